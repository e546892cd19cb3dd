/* 3D narrow phase for spheres, capsules, ellipsoids and half-spaces (src/collision/narrowphase_3d.c,
 * ellipsoid_3d.c; box pairs in test_box_pairs.c) against brute force on random poses (fixed
 * seeds), separated, touching and overlapping; the references are in narrowphase_3d_ref.h.
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

int main(void) {
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
  run_pair(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_HALFSPACE, poses, 49, "ellipsoid-halfspace");
  thin_ellipsoids = true;
  run_pair(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_ELLIPSOID, poses, 50, "thin ellipsoid pairs");
  return clt_test_finish();
}
