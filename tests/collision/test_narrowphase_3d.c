/* 3D narrow phase for spheres, capsules, ellipsoids and half-spaces through the pair table
 * (clt_collide: src/collision/narrowphase_3d.c, and smooth_ellipsoid.c for the ellipsoid pairs,
 * both argument orders so the table's swap is covered; box pairs in test_box_pairs.c) against
 * brute force on random poses (fixed seeds), separated, touching and overlapping; the references
 * are in narrowphase_3d_ref.h.
 * For convex A and B the signed distance is the largest support-function separation
 * g(u) = −h_A(u) − h_B(−u) over unit directions u (the distance apart, minus the penetration
 * depth in overlap). The reference maximizes g over 1000
 * Fibonacci directions refined by pattern search (also started from the returned normal), using
 * support functions written here from the shape definitions. Checked per pair:
 *  - the claimed signed distance Φ is attained along the returned normal (g(n) = Φ) and no sampled
 *    or refined direction separates more (max g − Φ ≈ 0): distance and penetration depth;
 *  - separated poses (a subset): the minimum over pairs of sampled surface points agrees with Φ
 *    to the sampling resolution;
 *  - witness points on the surfaces, p_B − p_A = Φ n, |n| = 1, for smooth pairs n along the
 *    outward normals at the witnesses;
 *  - box–box: at most 4 points, all on both boxes' surfaces (so inside both faces), each Φ the
 *    depth of its point; the separating-axis value equals max g (overlap: the exact penetration
 *    depth) and no point is deeper, and the smallest Φ is not below the true distance apart. */
#include "narrowphase_3d_ref.h"

/* clt_collide's codes: the iterative pairs (smooth.h) report failure as CLT_COLLIDE_FAILED in
 * either argument order, writing nothing; pairs not in the table give CLT_COLLIDE_UNSUPPORTED.
 * Failure is forced by shape data the iterations refuse (non-positive sizes, a zero normal). */
static void return_codes(void) {
  clt_shape_def_t flat = blank(CLT_SHAPE_ELLIPSOID), ball = blank(CLT_SHAPE_SPHERE), ring = blank(CLT_SHAPE_TORUS);
  clt_shape_def_t cap = blank(CLT_SHAPE_CAPSULE), floor = blank(CLT_SHAPE_HALFSPACE), box = blank(CLT_SHAPE_BOX);
  flat.semi_axes[0] = flat.semi_axes[1] = 1.0; /* semi_axes[2] = 0: a disk, not an ellipsoid */
  ball.radius = 0.5;
  ring.major_radius = 0.0, ring.minor_radius = 0.2; /* no centre circle */
  cap.radius = 0.3, cap.length = 1.0;
  floor.normal[2] = 0.0;                            /* no normal */
  box.half_extents[0] = box.half_extents[1] = box.half_extents[2] = 0.5;
  clt_collide_pose_t p0, p1;
  memset(&p0, 0, sizeof p0);
  memset(&p1, 0, sizeof p1);
  p0.orientation[0] = p1.orientation[0] = 1.0;
  p1.position[0] = 1.2;
  const clt_shape_def_t *bad[][2] = {{&flat, &ball}, {&flat, &cap}, {&flat, &floor}, {&ring, &ball}, {&ring, &cap}};
  for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++)
    for (int order = 0; order < 2; order++) {
      clt_contact_point_t out[4];
      memset(out, 0, sizeof out);
      out[0].distance = 42.0;
      const clt_shape_def_t *a = bad[i][order], *b = bad[i][1 - order];
      CHECK(clt_collide(a, &p0, b, &p1, 1e3, out, 4) == CLT_COLLIDE_FAILED);
      CHECK(out[0].distance == 42.0);
    }
  /* A ring against a half-space without a normal: failed, not "apart". */
  clt_shape_def_t good_ring = blank(CLT_SHAPE_TORUS);
  good_ring.major_radius = 1.0, good_ring.minor_radius = 0.2;
  clt_contact_point_t out[4];
  CHECK(clt_collide(&good_ring, &p0, &floor, &p1, 1e3, out, 4) == CLT_COLLIDE_FAILED);
  CHECK(clt_collide(&floor, &p1, &good_ring, &p0, 1e3, out, 4) == CLT_COLLIDE_FAILED);
  /* Capsule pairs of the smooth shapes are in the table (both orders), and ellipsoid–box
   * (test_ellipsoid_box.c); ring–box and ring–ellipsoid are not. */
  CHECK(clt_collide_supported(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_CAPSULE) && clt_collide_supported(CLT_SHAPE_CAPSULE, CLT_SHAPE_ELLIPSOID));
  CHECK(clt_collide_supported(CLT_SHAPE_TORUS, CLT_SHAPE_CAPSULE) && clt_collide_supported(CLT_SHAPE_CAPSULE, CLT_SHAPE_TORUS));
  CHECK(clt_collide_supported(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_BOX) && !clt_collide_supported(CLT_SHAPE_TORUS, CLT_SHAPE_ELLIPSOID));
  CHECK(clt_collide(&good_ring, &p0, &box, &p1, 1e3, out, 4) == CLT_COLLIDE_UNSUPPORTED);
  CHECK(clt_collide(&box, &p1, &good_ring, &p0, 1e3, out, 4) == CLT_COLLIDE_UNSUPPORTED);
}

int main(void) {
  return_codes();
  make_dirs();
  const int poses = 2000;
  run_pair(CLT_SHAPE_SPHERE, CLT_SHAPE_SPHERE, poses, 31, "sphere-sphere");
  run_pair(CLT_SHAPE_SPHERE, CLT_SHAPE_CAPSULE, poses, 32, "sphere-capsule");
  run_pair(CLT_SHAPE_CAPSULE, CLT_SHAPE_SPHERE, poses, 33, "capsule-sphere");
  run_pair(CLT_SHAPE_CAPSULE, CLT_SHAPE_CAPSULE, poses, 34, "capsule-capsule");
  run_pair(CLT_SHAPE_SPHERE, CLT_SHAPE_HALFSPACE, poses, 37, "sphere-halfspace");
  run_pair(CLT_SHAPE_CAPSULE, CLT_SHAPE_HALFSPACE, poses, 38, "capsule-halfspace");
  run_pair(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_ELLIPSOID, poses, 43, "ellipsoid-ellipsoid");
  run_pair(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_SPHERE, poses, 44, "ellipsoid-sphere");
  run_pair(CLT_SHAPE_SPHERE, CLT_SHAPE_ELLIPSOID, poses, 45, "sphere-ellipsoid");
  run_pair(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_CAPSULE, poses, 46, "ellipsoid-capsule");
  run_pair(CLT_SHAPE_CAPSULE, CLT_SHAPE_ELLIPSOID, poses, 47, "capsule-ellipsoid");
  run_pair(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_HALFSPACE, poses, 49, "ellipsoid-halfspace");
  run_pair(CLT_SHAPE_HALFSPACE, CLT_SHAPE_ELLIPSOID, poses, 48, "halfspace-ellipsoid");
  thin_ellipsoids = true;
  run_pair(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_ELLIPSOID, poses, 50, "thin ellipsoid pairs");
  run_pair(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_CAPSULE, poses, 51, "thin ellipsoid-capsule");
  return clt_test_finish();
}
