/* Revolute joint. 2D pin: Θ = p_A − p_B (2 rows). 3D hinge: Θ = (p_A − p_B, t₁_B·a_A, t₂_B·a_A):
 * point coincidence plus alignment of A's axis with B's axis (t₁, t₂ ⊥ axis_b, fixed in B). */
#include "constraints/joint.h"
#include "math/vec.h"

static int revolute_constraint(const clt_world_t *world, const clt_joint_rec_t *joint, double theta[6]) {
  double pa[3], pb[3];
  clt_joint_anchors(world, joint, pa, pb);
  theta[0] = pa[0] - pb[0];
  theta[1] = pa[1] - pb[1];
  if (world->dimension == 2) return 2;
  theta[2] = pa[2] - pb[2];
  double ra[4], rb[4], axis_a[3], t1[3], t2[3];
  clt_joint_orientation(world, joint->body_a, ra);
  clt_joint_orientation(world, joint->body_b, rb);
  clt_q_rotate(axis_a, ra, joint->axis_a);
  clt_q_rotate(t1, rb, joint->perp_b[0]);
  clt_q_rotate(t2, rb, joint->perp_b[1]);
  theta[3] = clt_v3_dot(t1, axis_a);
  theta[4] = clt_v3_dot(t2, axis_a);
  return 5;
}

/* Axis rows: Θ = t_B·a_A with ȧ_A = ω_A,w × a_A, ṫ_B = ω_B,w × t_B, so
 * Θ̇ = ω_A,w·(a_A × t_B) + ω_B,w·(t_B × a_A), expressed with body-frame ω (R ω_body = ω_world). */
static int revolute_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t rows[6]) {
  int n = clt_joint_point_rows(world, joint, rows);
  if (world->dimension == 2) return n;
  double ra[4], rb[4], axis_a[3];
  clt_joint_orientation(world, joint->body_a, ra);
  clt_joint_orientation(world, joint->body_b, rb);
  clt_q_rotate(axis_a, ra, joint->axis_a);
  for (int k = 0; k < 2; k++) {
    double t[3], c[3];
    clt_q_rotate(t, rb, joint->perp_b[k]);
    clt_v3_cross(c, axis_a, t);
    if (joint->body_a >= 0) clt_q_rotate_inv(rows[3 + k].angular_a, ra, c);
    if (joint->body_b >= 0) {
      clt_v3_scale(c, c, -1.0);
      clt_q_rotate_inv(rows[3 + k].angular_b, rb, c);
    }
  }
  return 5;
}

const clt_joint_ops_t clt_joint_ops_revolute = {"revolute", true, true, true, revolute_constraint, revolute_rows};
