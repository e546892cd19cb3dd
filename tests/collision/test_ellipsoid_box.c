/* Ellipsoid–box through clt_collide (src/collision/smooth_ellipsoid.c, SPEC.md §5), both argument
 * orders, against the brute-force references of narrowphase_3d_ref.h (random poses: separated,
 * touching, overlapping; round and thin ellipsoids): Φ = max of the support separation g over
 * sampled + refined directions and g(n) = Φ; witness points on both surfaces, p_B − p_A = Φ n,
 * n the ellipsoid's outward normal at p_A; sampled surface pairs for separated poses. Added here:
 *  - the max_distance early out: a point exactly when Φ ≤ max_distance;
 *  - −n in the box's normal cone at p_B (a face normal, between the two face normals of an edge,
 *    or inside the orthant of a vertex): the shared-normal condition where the box is not smooth;
 *  - resting contacts with a known answer: an ellipsoid with its support point along −axis placed
 *    at height δ over the middle of a face (Φ = δ, n = the face normal), over an edge and over a
 *    corner (Φ = δ with the contact direction inside the edge's / vertex's normal cone, δ ≥ 0). */
#include "narrowphase_3d_ref.h"

/* −n (box frame) in the normal cone of the box at p (box frame): returns the violation. */
static double cone_violation(const double e[3], const double p[3], const double n[3]) {
  double worst = 0.0;
  for (int k = 0; k < 3; k++) {
    bool active = fabs(fabs(p[k]) - e[k]) <= 1e-9 * (1.0 + e[k]);
    if (active)
      worst = fmax(worst, n[k] * (p[k] > 0 ? 1.0 : -1.0)); /* −n_k must have the sign of p_k */
    else
      worst = fmax(worst, fabs(n[k]));
  }
  return worst;
}

static void to_box_frame(const clt_shape_def_t *box, const clt_collide_pose_t *pose, const double x[3], bool point,
                         double out[3]) {
  ref3_t r;
  ref3_make(box, pose, &r);
  double d[3];
  for (int k = 0; k < 3; k++) d[k] = point ? x[k] - r.c[k] : x[k];
  for (int k = 0; k < 3; k++) out[k] = r.R[0][k] * d[0] + r.R[1][k] * d[1] + r.R[2][k] * d[2];
}

static void normal_cones(int poses, uint64_t seed) {
  rng_t rng = {seed};
  double worst = 0.0;
  int failed = 0, cut_wrong = 0;
  for (int i = 0; i < poses; i++) {
    thin_ellipsoids = i % 3 == 0;
    clt_shape_def_t a = random_shape(&rng, CLT_SHAPE_ELLIPSOID), b = random_shape(&rng, CLT_SHAPE_BOX);
    clt_collide_pose_t pa, pb;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    random_quat(&rng, pa.orientation);
    random_quat(&rng, pb.orientation);
    double dir[3];
    do {
      for (int k = 0; k < 3; k++) dir[k] = rng_uniform(&rng, -1, 1);
    } while (norm3(dir) > 1 || norm3(dir) < 0.1);
    double reach = bounding_radius(&a) + bounding_radius(&b);
    for (int k = 0; k < 3; k++) pb.position[k] = reach * 0.8 * dir[k];
    clt_contact_point_t c[4];
    if (clt_collide(&a, &pa, &b, &pb, 1e3, c, 4) != 1) {
      failed++;
      continue;
    }
    /* the max_distance early out: a point exactly when Φ ≤ ε (outside a 1e-9 band) */
    double eps = rng_uniform(&rng, -0.2, 0.3);
    if (fabs(c[0].distance - eps) > 1e-9) {
      clt_contact_point_t d[4];
      if (clt_collide(&a, &pa, &b, &pb, eps, d, 4) != (c[0].distance <= eps ? 1 : 0)) cut_wrong++;
    }
    double p[3], n[3];
    to_box_frame(&b, &pb, c[0].point_b, true, p);
    to_box_frame(&b, &pb, c[0].normal, false, n);
    worst = fmax(worst, cone_violation(b.half_extents, p, n));
  }
  thin_ellipsoids = false;
  printf("normal cone at p_B: %d poses, failed %d, max violation %.2e, wrong cut-offs %d\n", poses, failed, worst,
         cut_wrong);
  CHECK(failed == 0);
  CHECK(cut_wrong == 0);
  CHECK_LE(worst, 1e-7);
}

/* Ellipsoid over the middle of a face (k = 0), of an edge (k = 1) or of a corner (k = 2) of an
 * axis-aligned box at the origin, its support point along −u at p + δ u, u inside the feature's
 * normal cone: the plane through p + δ u... separates by δ, and the box point p is δ away. */
static void resting(int kind, int poses, uint64_t seed) {
  rng_t rng = {seed};
  double worst_phi = 0.0, worst_n = 0.0;
  int failed = 0;
  for (int i = 0; i < poses; i++) {
    clt_shape_def_t b = blank(CLT_SHAPE_BOX), a = blank(CLT_SHAPE_ELLIPSOID);
    for (int k = 0; k < 3; k++) b.half_extents[k] = rng_uniform(&rng, 0.2, 1.5), a.semi_axes[k] = rng_uniform(&rng, 0.1, 1.2);
    random_quat(&rng, a.local_orientation);
    double u[3] = {0, 0, 0}, p[3] = {0, 0, 0};
    if (kind == 0) { /* face +z: u = +z, p in the face */
      u[2] = 1.0;
      p[0] = rng_uniform(&rng, -0.9, 0.9) * b.half_extents[0];
      p[1] = rng_uniform(&rng, -0.9, 0.9) * b.half_extents[1];
      p[2] = b.half_extents[2];
    } else if (kind == 1) { /* edge x = +e0, z = +e2 */
      double t = rng_uniform(&rng, 0.05, 0.5 * REF_PI - 0.05);
      u[0] = cos(t), u[2] = sin(t);
      p[0] = b.half_extents[0], p[1] = rng_uniform(&rng, -0.9, 0.9) * b.half_extents[1], p[2] = b.half_extents[2];
    } else { /* corner (+,+,+) */
      for (int k = 0; k < 3; k++) u[k] = rng_uniform(&rng, 0.1, 1.0), p[k] = b.half_extents[k];
      double l = norm3(u);
      for (int k = 0; k < 3; k++) u[k] /= l;
    }
    double delta = i % 2 ? 0.0 : rng_uniform(&rng, 0.0, 0.3);
    /* ellipsoid centre c so that its support point along −u is p + δ u: c = p + δ u + M u / σ */
    ref3_t ra;
    clt_collide_pose_t pa, pb;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    pa.orientation[0] = pb.orientation[0] = 1.0;
    ref3_make(&a, &pa, &ra);
    double l[3], w[3], sigma = 0.0;
    for (int k = 0; k < 3; k++) {
      l[k] = ra.R[0][k] * u[0] + ra.R[1][k] * u[1] + ra.R[2][k] * u[2];
      sigma += a.semi_axes[k] * a.semi_axes[k] * l[k] * l[k];
      l[k] *= a.semi_axes[k] * a.semi_axes[k];
    }
    sigma = sqrt(sigma);
    mv(w, ra.R, l);
    for (int k = 0; k < 3; k++) pa.position[k] = p[k] + delta * u[k] + w[k] / sigma;
    clt_contact_point_t c[4];
    if (clt_collide(&a, &pa, &b, &pb, 1e3, c, 4) != 1) {
      failed++;
      continue;
    }
    worst_phi = fmax(worst_phi, fabs(c[0].distance - delta));
    if (delta > 1e-3) { /* the normal is −u (A to B) where the contact is unique */
      double d[3] = {c[0].normal[0] + u[0], c[0].normal[1] + u[1], c[0].normal[2] + u[2]};
      worst_n = fmax(worst_n, norm3(d));
    }
  }
  const char *names[] = {"face", "edge", "corner"};
  printf("resting on a %s: %d poses, failed %d, max |Phi - delta| %.2e, max |n + u| %.2e\n", names[kind], poses,
         failed, worst_phi, worst_n);
  CHECK(failed == 0);
  CHECK_LE(worst_phi, 1e-9);
  CHECK_LE(worst_n, 1e-7);
}

int main(void) {
  make_dirs();
  CHECK(clt_collide_supported(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_BOX) && clt_collide_supported(CLT_SHAPE_BOX, CLT_SHAPE_ELLIPSOID));
  run_pair(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_BOX, 1500, 1301, "ellipsoid-box");
  run_pair(CLT_SHAPE_BOX, CLT_SHAPE_ELLIPSOID, 1500, 1302, "box-ellipsoid");
  thin_ellipsoids = true;
  run_pair(CLT_SHAPE_ELLIPSOID, CLT_SHAPE_BOX, 1000, 1303, "thin ellipsoid-box");
  thin_ellipsoids = false;
  normal_cones(2000, 1304);
  for (int k = 0; k < 3; k++) resting(k, 500, 1310 + (uint64_t)k);
  return clt_test_finish();
}
