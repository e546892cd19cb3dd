/* Spherical (ball) joint, 3D: Θ = p_A − p_B. */
#include "constraints/joint.h"

static int spherical_constraint(const clt_world_t *world, const clt_joint_rec_t *joint, double theta[6]) {
  double pa[3], pb[3];
  clt_joint_anchors(world, joint, pa, pb);
  for (int i = 0; i < 3; i++) theta[i] = pa[i] - pb[i];
  return 3;
}

static int spherical_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t rows[6]) {
  return clt_joint_point_rows(world, joint, rows);
}

const clt_joint_ops_t clt_joint_ops_spherical = {"spherical", false, true, false, spherical_constraint,
                                                 spherical_rows};
