/* Fixed (weld) joint, 3D: Θ = (p_A − p_B, rotation error of the relative orientation). */
#include "constraints/joint.h"

static int fixed_constraint(const clt_world_t *world, const clt_joint_rec_t *joint, double theta[6]) {
  double pa[3], pb[3];
  clt_joint_anchors(world, joint, pa, pb);
  for (int i = 0; i < 3; i++) theta[i] = pa[i] - pb[i];
  clt_joint_rotation_error(world, joint, theta + 3);
  return 6;
}

static int fixed_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t rows[6]) {
  clt_joint_point_rows(world, joint, rows);
  clt_joint_rotation_rows(world, joint, rows + 3);
  return 6;
}

const clt_joint_ops_t clt_joint_ops_fixed = {"fixed", false, true, false, fixed_constraint, fixed_rows};
