/* Prismatic (slider) joint, 3D: the relative orientation stays at its creation value (3 rows) and
 * the offset p_B − p_A has no component across A's axis (2 rows: t₁_A·d, t₂_A·d). */
#include "constraints/joint.h"
#include "math/vec.h"

static int prismatic_constraint(const clt_world_t *world, const clt_joint_rec_t *joint, double theta[6]) {
  double pa[3], pb[3], d[3], ra[4], t1[3], t2[3];
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

/* Lateral rows: Θ = t_A·d, d = p_B − p_A, ṫ_A = ω_A,w × t_A:
 *   Θ̇ = −t_A·u_A + ω_A,w·(t_A × (d + ρ_A)) + t_A·u_B + ω_B,w·(ρ_B × t_A)
 * (ρ the world lever arms of the anchors). */
static int prismatic_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t rows[6]) {
  clt_joint_rotation_rows(world, joint, rows);
  double pa[3], pb[3], d[3], ra[4], rb[4];
  clt_joint_anchors(world, joint, pa, pb);
  clt_v3_sub(d, pb, pa);
  clt_joint_orientation(world, joint->body_a, ra);
  clt_joint_orientation(world, joint->body_b, rb);
  for (int k = 0; k < 2; k++) {
    clt_jacobian_row_t *row = &rows[3 + k];
    double t[3], c[3];
    clt_q_rotate(t, ra, joint->perp_a[k]);
    if (joint->body_a >= 0) {
      double rho_a[3], arm[3];
      clt_q_rotate(rho_a, ra, joint->anchor_a);
      clt_v3_add(arm, d, rho_a);
      clt_v3_cross(c, t, arm);
      clt_q_rotate_inv(row->angular_a, ra, c);
      clt_v3_scale(row->linear_a, t, -1.0);
    }
    if (joint->body_b >= 0) {
      double rho_b[3];
      clt_q_rotate(rho_b, rb, joint->anchor_b);
      clt_v3_cross(c, rho_b, t);
      clt_q_rotate_inv(row->angular_b, rb, c);
      clt_v3_copy(row->linear_b, t);
    }
  }
  return 5;
}

const clt_joint_ops_t clt_joint_ops_prismatic = {"prismatic", false, true, true, prismatic_constraint,
                                                 prismatic_rows};
