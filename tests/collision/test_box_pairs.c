/* 3D box pairs (src/collision/narrowphase_3d.c, box_box.c) against brute force on random poses
 * (fixed seeds), separated, touching and overlapping: sphere–box, box–half-space, capsule–box and
 * box–box (contact manifold), with the references and checks of test_narrowphase_3d.c
 * (narrowphase_3d_ref.h), plus hand-made manifolds with known answers. */
#include "narrowphase_3d_ref.h"

static void known_cases(void) {
  clt_collide_pose_t pa, pb;
  memset(&pa, 0, sizeof pa);
  memset(&pb, 0, sizeof pb);
  pa.orientation[0] = pb.orientation[0] = 1;
  clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS];
  clt_shape_def_t box = blank(CLT_SHAPE_BOX), ground = blank(CLT_SHAPE_HALFSPACE);
  box.half_extents[0] = box.half_extents[1] = box.half_extents[2] = 0.5;
  ground.normal[2] = 1;
  /* A cube resting on the ground 1e-4 above: 4 points at Φ = 1e-4, normal −z. */
  pa.position[2] = 0.5001;
  int n = clt_collide(&box, &pa, &ground, &pb, 1e-3, c, 8);
  CHECK(n == 4);
  for (int i = 0; i < n; i++) {
    CHECK_NEAR(c[i].distance, 1e-4, 1e-12);
    CHECK_NEAR(c[i].normal[2], -1, 0);
  }
  /* Two cubes stacked, the upper one shifted by (0.2, 0.3) and 1e-4 above: a 4-point manifold,
   * the corners of the overlap rectangle, all Φ = 1e-4. */
  pb.position[0] = 0.2, pb.position[1] = 0.3, pb.position[2] = 0.5001 + 1.0001;
  n = clt_collide(&box, &pa, &box, &pb, 1e-3, c, 8);
  CHECK(n == 4);
  double xs = 0, ys = 0;
  for (int i = 0; i < n; i++) {
    CHECK_NEAR(c[i].distance, 1e-4, 1e-12);
    CHECK_NEAR(c[i].normal[2], 1, 1e-15);
    xs += c[i].point_a[0], ys += c[i].point_a[1];
  }
  CHECK_NEAR(xs / 4, 0.1, 1e-12); /* overlap rectangle x ∈ [−0.3, 0.5], y ∈ [−0.2, 0.5] */
  CHECK_NEAR(ys / 4, 0.15, 1e-12);
  /* Feature ids stay the same under a small motion (warm starts match points by them). */
  int f0[8], f1[8];
  for (int i = 0; i < n; i++) f0[i] = c[i].feature;
  double tilt[4] = {cos(5e-7), sin(5e-7), 0, 0};
  memcpy(pb.orientation, tilt, sizeof tilt);
  pb.position[0] += 1e-6;
  int n1 = clt_collide(&box, &pa, &box, &pb, 1e-3, c, 8);
  CHECK(n1 == n);
  for (int i = 0; i < n1 && i < 8; i++) f1[i] = c[i].feature;
  for (int i = 0; i < n && i < n1; i++) CHECK(f0[i] == f1[i]);
  pb.orientation[0] = 1, pb.orientation[1] = 0;
  /* A capsule lying on the ground: both caps. */
  clt_shape_def_t cap = blank(CLT_SHAPE_CAPSULE);
  cap.radius = 0.1, cap.length = 1.0;
  double q[4] = {cos(REF_PI / 4), sin(REF_PI / 4), 0, 0}; /* axis along y */
  memcpy(pa.orientation, q, sizeof q);
  memset(pa.position, 0, sizeof pa.position);
  pa.position[2] = 0.1 - 1e-3;
  memset(pb.position, 0, sizeof pb.position);
  n = clt_collide(&cap, &pa, &ground, &pb, 1e-3, c, 8);
  CHECK(n == 2);
  for (int i = 0; i < n; i++) CHECK_NEAR(c[i].distance, -1e-3, 1e-12);
  /* Parallel capsules side by side: the middle of the overlap, Φ exact. */
  memcpy(pb.orientation, q, sizeof q);
  pb.position[0] = 0.25, pb.position[1] = 0.4, pb.position[2] = pa.position[2];
  n = clt_collide(&cap, &pa, &cap, &pb, 1.0, c, 8);
  CHECK(n == 1);
  CHECK_NEAR(c[0].distance, 0.05, 1e-12);
  CHECK_NEAR(c[0].point_a[1], 0.2, 1e-12); /* overlap of y ∈ [−0.5, 0.5] and [−0.1, 0.9] */
  CHECK_NEAR(c[0].normal[0], 1, 1e-12);
  /* A capsule (r = 0.1, length 1) lying across the edge x = z = 0.5 of a unit cube, its axis along
   * (1, 0, −1)/√2 and centred 0.11 from the edge along (1, 0, 1)/√2: both caps are far, the
   * axis point over the edge gets its own point with Φ = 0.11 − 0.1 = 0.01. */
  clt_shape_def_t cube = blank(CLT_SHAPE_BOX);
  cube.half_extents[0] = cube.half_extents[1] = cube.half_extents[2] = 0.5;
  memset(&pb, 0, sizeof pb);
  pb.orientation[0] = 1;
  double qm[4] = {cos(REF_PI / 8), 0, -sin(REF_PI / 8), 0}; /* local z → (−1, 0, 1)/√2 */
  memcpy(pa.orientation, qm, sizeof qm);
  pa.position[0] = 0.5 + 0.11 / sqrt(2.0);
  pa.position[1] = 0;
  pa.position[2] = 0.5 + 0.11 / sqrt(2.0);
  n = clt_collide(&cap, &pa, &cube, &pb, 0.05, c, 8);
  bool interior = false;
  for (int i = 0; i < n; i++)
    if (c[i].feature == 2) {
      interior = true;
      CHECK_NEAR(c[i].distance, 0.01, 1e-9);
    }
  CHECK(interior);
  CHECK(n == 1);
}

int main(void) {
  make_dirs();
  known_cases();
  const int poses = 2000;
  run_pair(CLT_SHAPE_SPHERE, CLT_SHAPE_BOX, poses, 35, "sphere-box");
  run_pair(CLT_SHAPE_BOX, CLT_SHAPE_SPHERE, poses, 36, "box-sphere");
  run_pair(CLT_SHAPE_BOX, CLT_SHAPE_HALFSPACE, poses, 39, "box-halfspace");
  run_pair(CLT_SHAPE_HALFSPACE, CLT_SHAPE_BOX, poses, 40, "halfspace-box");
  run_pair(CLT_SHAPE_CAPSULE, CLT_SHAPE_BOX, poses, 41, "capsule-box");
  run_pair(CLT_SHAPE_BOX, CLT_SHAPE_BOX, poses, 42, "box-box");
  printf("box-box overlaps whose deepest incident corner was clipped off the reference face: %d\n", sat_not_deepest);
  return clt_test_finish();
}
