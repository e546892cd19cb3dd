/* Distance joint (2D and 3D): Θ = |p_A − p_B| − distance. */
#include "constraints/joint.h"
#include "math/vec.h"

static int distance_constraint(const clt_world_t *world, const clt_joint_rec_t *joint, double theta[6]) {
  double pa[3], pb[3], d[3];
  clt_joint_anchors(world, joint, pa, pb);
  clt_v3_sub(d, pa, pb);
  theta[0] = clt_v3_norm(d) - joint->distance;
  return 1;
}

/* Θ̇ = n·(ṗ_A − ṗ_B), n = (p_A − p_B)/|p_A − p_B| (no row while the anchors coincide). */
static int distance_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t rows[6]) {
  double pa[3], pb[3], d[3];
  clt_joint_anchors(world, joint, pa, pb);
  clt_v3_sub(d, pa, pb);
  double len = clt_v3_norm(d);
  if (len > 0.0) {
    clt_v3_scale(d, d, 1.0 / len);
    clt_point_row(world, joint->body_a, joint->anchor_a, d, 1.0, rows[0].linear_a, rows[0].angular_a);
    clt_point_row(world, joint->body_b, joint->anchor_b, d, -1.0, rows[0].linear_b, rows[0].angular_b);
  }
  return 1;
}

const clt_joint_ops_t clt_joint_ops_distance = {"distance", true, true, false, distance_constraint, distance_rows};
