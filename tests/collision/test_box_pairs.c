/* 3D box pairs (src/collision/narrowphase_3d.c, box_box.c) against brute force on random poses
 * (fixed seeds), separated, touching and overlapping: sphere–box, box–half-space, capsule–box and
 * box–box (contact manifold), with the references and checks of test_narrowphase_3d.c
 * (narrowphase_3d_ref.h), plus hand-made manifolds with known answers, plus exactly aligned
 * poses (corner on corner, edge on edge, face on face, exact touching) against the exact distance
 * of boxes that share their axes. */
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

/* Shape A at the origin turned by q0, shape B at R0 x turned by q0 ⊗ qt (R0 = R(q0)). */
static void place_in_frame(const double q0[4], const double qt[4], const double x[3], clt_collide_pose_t *pa,
                           clt_collide_pose_t *pb, double R0[3][3]) {
  memset(pa, 0, sizeof *pa);
  memset(pb, 0, sizeof *pb);
  memcpy(pa->orientation, q0, 4 * sizeof *q0);
  qmul(pb->orientation, q0, qt);
  qmat(R0, q0);
  mv(pb->position, R0, x);
}

/* The half extents along the frame's axes of a box turned by `turns` quarter turns about `axis`:
 * an odd number swaps the other two. */
static void turned_extents(const double e[3], int axis, int turns, double out[3]) {
  memcpy(out, e, 3 * sizeof *e);
  if (turns % 2) {
    int i1 = (axis + 1) % 3, i2 = (axis + 2) % 3;
    out[i1] = e[i2], out[i2] = e[i1];
  }
}

/* How far unit vector n is from ± an axis of the frame R0 (0 when it is one). */
static double off_frame_axis(const double R0[3][3], const double n[3]) {
  double l[3], big = 0.0, rest = 0.0;
  for (int k = 0; k < 3; k++) l[k] = fabs(R0[0][k] * n[0] + R0[1][k] * n[1] + R0[2][k] * n[2]);
  for (int k = 0; k < 3; k++) big = fmax(big, l[k]);
  for (int k = 0; k < 3; k++) rest += l[k] == big ? 0.0 : l[k];
  return fabs(big - 1.0) + rest;
}

/* Two boxes whose axes are those of one frame R0 (box B turned by quarter turns about one of its
 * axes), centres on a grid of quarter units in that frame, R0 the identity or random; a box on a
 * half-space whose normal is an axis of R0. Exact: for boxes sharing their axes the signed
 * distance is max_k s_k in overlap and (Σ max(s_k, 0)²)^½ apart, s_k = |Δc_k| − a_k − b_k. */
static void aligned_poses(void) {
  rng_t rng = {91};
  const double half[3] = {0.25, 0.5, 1.0};
  double worst_phi = 0.0, worst_below = 0.0, worst_normal = 0.0, worst_surface = 0.0;
  int poses = 0, touching = 0, manifolds = 0, most = 0;
  double worst_plane = 0.0;
  for (int pose_i = 0; pose_i < 3000; pose_i++) {
    clt_shape_def_t da = blank(CLT_SHAPE_BOX), db = blank(CLT_SHAPE_BOX);
    for (int k = 0; k < 3; k++) da.half_extents[k] = half[rng_int(&rng, 0, 2)], db.half_extents[k] = half[rng_int(&rng, 0, 2)];
    double q0[4] = {1, 0, 0, 0};
    if (pose_i % 2) random_quat(&rng, q0);
    int axis = rng_int(&rng, 0, 2), turns = rng_int(&rng, 0, 3);
    double qt[4] = {cos(turns * REF_PI / 4), 0, 0, 0};
    qt[1 + axis] = sin(turns * REF_PI / 4);
    double R0[3][3], x[3];
    for (int k = 0; k < 3; k++) x[k] = 0.25 * rng_int(&rng, -8, 8);
    clt_collide_pose_t pa, pb;
    place_in_frame(q0, qt, x, &pa, &pb, R0);
    double eb[3];
    turned_extents(db.half_extents, axis, turns, eb);
    double sk[3], inside = -INFINITY, apart = 0.0;
    for (int k = 0; k < 3; k++) {
      sk[k] = fabs(x[k]) - da.half_extents[k] - eb[k];
      inside = fmax(inside, sk[k]);
      if (sk[k] > 0) apart += sk[k] * sk[k];
    }
    double exact = apart > 0 ? sqrt(apart) : inside;
    clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS];
    int n = clt_collide(&da, &pa, &db, &pb, 0.3, c, CLT_MAX_PAIR_CONTACTS);
    if (exact > 0.3 - 1e-9) {
      CHECK(n == 0 || c[0].distance <= 0.3);
      continue;
    }
    poses++;
    touching += fabs(exact) < 1e-12;
    manifolds += n > 1;
    most = n > most ? n : most;
    CHECK(n >= 1);
    if (n < 1) continue;
    ref3_t ra, rb;
    ref3_make(&da, &pa, &ra);
    ref3_make(&db, &pb, &rb);
    double min_phi = INFINITY;
    for (int i = 0; i < n; i++) {
      min_phi = fmin(min_phi, c[i].distance);
      worst_below = fmax(worst_below, exact - c[i].distance);
      worst_surface = fmax(worst_surface, fmax(fabs(ref3_signed_point(&ra, c[i].point_a)), fabs(ref3_signed_point(&rb, c[i].point_b))));
      if (exact <= 1e-12) worst_normal = fmax(worst_normal, off_frame_axis(R0, c[i].normal)); /* touching, overlap */
    }
    worst_phi = fmax(worst_phi, fabs(min_phi - exact));

    /* box A on a half-space with normal R0 e_axis through the origin, A's centre at height x_axis */
    clt_shape_def_t plane = blank(CLT_SHAPE_HALFSPACE);
    plane.normal[axis] = 1.0;
    clt_collide_pose_t pg;
    memset(&pg, 0, sizeof pg);
    memcpy(pg.orientation, q0, sizeof q0);
    memcpy(pa.orientation, pb.orientation, sizeof pa.orientation); /* A turned like B */
    double height = x[axis] + 0.25 * 4;
    double local[3] = {0, 0, 0};
    local[axis] = height;
    mv(pa.position, R0, local);
    double ea[3];
    turned_extents(da.half_extents, axis, turns, ea);
    double want = height - ea[axis];
    int m = clt_collide(&da, &pa, &plane, &pg, 0.3, c, CLT_MAX_PAIR_CONTACTS);
    if (want <= 0.3) {
      CHECK(m == 4); /* a face on the plane: its 4 corners */
      for (int i = 0; i < m; i++) {
        worst_plane = fmax(worst_plane, fabs(c[i].distance - want));
        double nn = R0[0][axis] * c[i].normal[0] + R0[1][axis] * c[i].normal[1] + R0[2][axis] * c[i].normal[2];
        worst_plane = fmax(worst_plane, fabs(nn + 1.0));
      }
    } else {
      CHECK(m == 0);
    }
  }
  printf("aligned boxes          poses %5d (touching %d, manifolds %d, at most %d points) | max |dPhi| %.2e, "
         "below exact %.2e, normal off a face %.2e, surface %.2e; box on an aligned plane %.2e\n",
         poses, touching, manifolds, most, worst_phi, worst_below, worst_normal, worst_surface, worst_plane);
  CHECK(poses > 500 && touching > 50 && manifolds > 100);
  CHECK(most <= 4);
  CHECK_LE(worst_phi, 1e-9);
  CHECK_LE(worst_below, 1e-9);
  CHECK_LE(worst_normal, 1e-12);
  CHECK_LE(worst_surface, 1e-9);
  CHECK_LE(worst_plane, 1e-12);
}

/* A capsule whose axis is an axis of a box's frame R0, centre on a grid of eighth units, apart or
 * touching: the exact distance is that of the axis segment to the box (interval gaps per axis)
 * minus the radius; lying parallel on a face at the touch it rests on both end caps with the
 * face normal; the box's witness is on its surface, the capsule's on or inside it. */
static void aligned_capsules(void) {
  rng_t rng = {93};
  double worst_phi = 0.0, worst_below = 0.0, worst_normal = 0.0, worst_surface = 0.0;
  int poses = 0, touching = 0, two_caps = 0, flat_touch = 0;
  for (int pose_i = 0; pose_i < 3000; pose_i++) {
    clt_shape_def_t box = blank(CLT_SHAPE_BOX), cap = blank(CLT_SHAPE_CAPSULE);
    for (int k = 0; k < 3; k++) box.half_extents[k] = 0.25 * rng_int(&rng, 1, 4);
    cap.radius = 0.125 * rng_int(&rng, 1, 2);
    cap.length = 0.25 * rng_int(&rng, 1, 4);
    double q0[4] = {1, 0, 0, 0};
    if (pose_i % 2) random_quat(&rng, q0);
    int axis = rng_int(&rng, 0, 2); /* the capsule's axis (its local z) along R0 e_axis */
    double qt[4] = {1, 0, 0, 0};
    if (axis == 0) qt[0] = cos(REF_PI / 4), qt[2] = sin(REF_PI / 4);       /* z → x */
    else if (axis == 1) qt[0] = cos(REF_PI / 4), qt[1] = -sin(REF_PI / 4); /* z → y */
    double R0[3][3], x[3];
    for (int k = 0; k < 3; k++) x[k] = 0.125 * rng_int(&rng, -16, 16);
    clt_collide_pose_t pa, pb;
    place_in_frame(q0, qt, x, &pa, &pb, R0);
    double apart = 0.0, inside = -INFINITY;
    for (int k = 0; k < 3; k++) {
      double half = k == axis ? 0.5 * cap.length : 0.0;
      double gap = fabs(x[k]) - box.half_extents[k] - half;
      inside = fmax(inside, gap);
      if (gap > 0) apart += gap * gap;
    }
    if (!(apart > 0.0) && inside < 0.0) continue; /* the axis enters the box: overlap, no closed form */
    double exact = sqrt(apart) - cap.radius;
    clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS];
    int n = clt_collide(&cap, &pb, &box, &pa, 0.3, c, CLT_MAX_PAIR_CONTACTS);
    if (exact > 0.3 - 1e-9) continue;
    if (exact < -1e-12) continue; /* the capsule overlaps the box: its depth has no closed form here */
    poses++;
    CHECK(n >= 1);
    if (n < 1) continue;
    ref3_t rc, rb;
    ref3_make(&cap, &pb, &rc);
    ref3_make(&box, &pa, &rb);
    double min_phi = INFINITY;
    int gaps_on_axis = 0; /* axes other than the capsule's with a positive gap */
    for (int k = 0; k < 3; k++)
      if (k != axis && fabs(x[k]) - box.half_extents[k] > 1e-12) gaps_on_axis++;
    bool flat = gaps_on_axis == 1 && fabs(x[axis]) + 0.5 * cap.length <= box.half_extents[axis] + 1e-12;
    for (int i = 0; i < n; i++) {
      min_phi = fmin(min_phi, c[i].distance);
      worst_below = fmax(worst_below, exact - c[i].distance);
      /* an end cap's point stands for its sphere: on the capsule or inside it (narrowphase.h) */
      worst_surface = fmax(worst_surface, fmax(fmax(0.0, ref3_signed_point(&rc, c[i].point_a)), fabs(ref3_signed_point(&rb, c[i].point_b))));
      if (flat) worst_normal = fmax(worst_normal, off_frame_axis(R0, c[i].normal)); /* lying over a face */
    }
    if (fabs(exact) < 1e-12) touching++;
    if (flat && fabs(exact) < 1e-12) {
      flat_touch++;
      int at_touch = 0;
      for (int i = 0; i < n; i++) at_touch += fabs(c[i].distance) < 1e-12;
      two_caps += at_touch == 2;
    }
    worst_phi = fmax(worst_phi, fabs(min_phi - exact));
  }
  printf("aligned capsule-box    poses %5d (touching %d, lying flat at the touch %d, of them on both caps %d) | "
         "max |dPhi| %.2e, below exact %.2e, normal off a face %.2e, surface %.2e\n",
         poses, touching, flat_touch, two_caps, worst_phi, worst_below, worst_normal, worst_surface);
  CHECK(poses > 300 && touching > 50 && flat_touch > 10);
  CHECK(two_caps == flat_touch);
  CHECK_LE(worst_phi, 1e-9);
  CHECK_LE(worst_below, 1e-9);
  CHECK_LE(worst_normal, 1e-12);
  CHECK_LE(worst_surface, 1e-9);
}

int main(void) {
  make_dirs();
  known_cases();
  aligned_poses();
  aligned_capsules();
  const int poses = 2000;
  run_pair(CLT_SHAPE_SPHERE, CLT_SHAPE_BOX, poses, 35, "sphere-box");
  run_pair(CLT_SHAPE_BOX, CLT_SHAPE_SPHERE, poses, 36, "box-sphere");
  run_pair(CLT_SHAPE_BOX, CLT_SHAPE_HALFSPACE, poses, 39, "box-halfspace");
  run_pair(CLT_SHAPE_HALFSPACE, CLT_SHAPE_BOX, poses, 40, "halfspace-box");
  run_pair(CLT_SHAPE_CAPSULE, CLT_SHAPE_BOX, poses, 41, "capsule-box");
  run_pair(CLT_SHAPE_BOX, CLT_SHAPE_BOX, poses, 42, "box-box");
  printf("box-box overlaps whose deepest incident corner was clipped off the reference face: %d; poses whose face manifold stands in for a slightly better edge pair: %d\n", sat_not_deepest, face_for_edge);
  return clt_test_finish();
}
