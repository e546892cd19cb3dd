/* Prismatic (slider) joint. 3D: the relative orientation stays at its creation value (3 rows) and
 * the offset p_B − p_A has no component across A's axis (2 rows: t₁_A·d, t₂_A·d). 2D: the relative
 * angle stays at its creation value, θ_B − θ_A − θ₀ (1 row), and t_A·d = 0 with t_A ⊥ the axis in
 * the plane (1 row). */
#include "constraints/joint.h"
#include "math/vec.h"

static double planar_angle(const clt_world_t *world, int body) { return body < 0 ? 0.0 : world->states[body].angle; }

static int prismatic_constraint(const clt_world_t *world, const clt_joint_rec_t *joint, double theta[6]) {
  double pa[3], pb[3], d[3], ra[4], t1[3], t2[3];
  if (world->dimension == 2) {
    clt_joint_anchors(world, joint, pa, pb);
    clt_v3_sub(d, pb, pa);
    clt_joint_orientation(world, joint->body_a, ra);
    clt_q_rotate(t1, ra, joint->perp_a[0]);
    theta[0] = planar_angle(world, joint->body_b) - planar_angle(world, joint->body_a) - joint->angle0;
    theta[1] = t1[0] * d[0] + t1[1] * d[1];
    return 2;
  }
  clt_joint_rotation_error(world, joint, theta);
  clt_joint_anchors(world, joint, pa, pb);
  clt_v3_sub(d, pb, pa);
  clt_joint_orientation(world, joint->body_a, ra);
  clt_q_rotate(t1, ra, joint->perp_a[0]);
  clt_q_rotate(t2, ra, joint->perp_a[1]);
  theta[3] = clt_v3_dot(t1, d);
  theta[4] = clt_v3_dot(t2, d);
  return 5;
}

/* Lateral rows: Θ = t_A·d along A's two directions across the axis (clt_joint_slide_row). */
static int prismatic_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t rows[6]) {
  if (world->dimension == 2) {
    if (joint->body_a >= 0) rows[0].angular_a[0] = -1.0;
    if (joint->body_b >= 0) rows[0].angular_b[0] = 1.0;
    clt_joint_slide_row(world, joint, joint->perp_a[0], &rows[1]);
    return 2;
  }
  clt_joint_rotation_rows(world, joint, rows);
  for (int k = 0; k < 2; k++) clt_joint_slide_row(world, joint, joint->perp_a[k], &rows[3 + k]);
  return 5;
}

const clt_joint_ops_t clt_joint_ops_prismatic = {"prismatic", true, true, true, prismatic_constraint,
                                                 prismatic_rows};
