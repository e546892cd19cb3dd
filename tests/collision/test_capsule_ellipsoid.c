/* Capsule–ellipsoid through clt_collide (src/collision/smooth_ellipsoid.c, SPEC.md §5; issue 6)
 * on structured families: capsule axis parallel to the ellipsoid's major axis, nearly parallel
 * (1e-15 to 1e-3 rad), crossed, touching with an end cap, zero length (must agree with the
 * ellipsoid–sphere pair), and a capsule growing in place; separated, touching and overlapping up
 * to half the capsule radius; round and thin (aspect 4–12) ellipsoids.
 *
 * Poses are built with a known shared-normal point: a random unit u, p the ellipsoid's support
 * point along u, and the capsule placed beyond the tangent plane at p, touching it at p + δ u
 * (its core in the plane at height r + δ, or its end cap's centre at p + (r + δ) u with the axis
 * pointing away). For δ ≥ 0 the plane separates, so Φ = δ exactly; for δ < 0, Φ ≥ δ. References
 * (independent of src/collision): the exact distance apart as the minimum along the core of the
 * exact point–ellipsoid distance (a convex function: golden section) minus r; the support-function
 * separation g(u) over 2000 directions refined by pattern search, which no direction may beat
 * (Φ = max g, also in overlap) and which the returned normal attains; witness points on the
 * surfaces with the outward normals ±n there; both argument orders; the max_distance early out
 * (a point exactly when Φ ≤ max_distance). */
#include <stdio.h>

#include "capsule_ref.h"
#include "smooth_ref.h"

enum { PARALLEL, NEARLY_PARALLEL, CROSSED, END_CAP, ZERO_LENGTH };
static const char *family_name[] = {"parallel", "nearly parallel", "crossed", "end cap", "zero length"};

static double ell_support(const sref_shape_t *e, const double u[3]) {
  double l[3];
  for (int k = 0; k < 3; k++)
    l[k] = (e->placed.rotation[0][k] * u[0] + e->placed.rotation[1][k] * u[1] + e->placed.rotation[2][k] * u[2]) *
           e->def.semi_axes[k];
  return cr_dot(e->placed.position, u) + cr_norm(l);
}
static double cap_support(const cr_capsule_t *c, const double u[3]) {
  return fmax(cr_dot(c->p0, u), cr_dot(c->p1, u)) + c->r;
}
/* Separation along u from the ellipsoid to the capsule: min over C of x·u − max over E of y·u. */
static double sep(const sref_shape_t *e, const cr_capsule_t *c, const double u[3]) {
  double mu[3] = {-u[0], -u[1], -u[2]};
  return -cap_support(c, mu) - ell_support(e, u);
}
/* Pattern search of sep on the sphere from u0. */
static double refine(const sref_shape_t *e, const cr_capsule_t *c, const double u0[3]) {
  double u[3] = {u0[0], u0[1], u0[2]}, best = sep(e, c, u), step = 0.05;
  for (int it = 0; step > 1e-12 && it < 800; it++) {
    double t1[3], t2[3], h[3] = {1.0, 0.0, 0.0};
    if (fabs(u[0]) > 0.6) h[0] = 0.0, h[1] = 1.0;
    cr_cross(t1, u, h);
    cr_normalize(t1);
    cr_cross(t2, u, t1);
    bool moved = false;
    for (int d = 0; d < 8 && !moved; d++) {
      double a = d * REF_PI / 4.0, v[3];
      for (int k = 0; k < 3; k++) v[k] = u[k] + step * (cos(a) * t1[k] + sin(a) * t2[k]);
      cr_normalize(v);
      double g = sep(e, c, v);
      if (g > best) best = g, u[0] = v[0], u[1] = v[1], u[2] = v[2], moved = true;
    }
    if (!moved) step *= 0.5;
  }
  return best;
}
#define NDIRS 2000
static double dirs[NDIRS][3];
static double max_sep(const sref_shape_t *e, const cr_capsule_t *c, const double hint[3]) {
  int top[2] = {0, 0};
  double tg[2] = {-INFINITY, -INFINITY};
  for (int i = 0; i < NDIRS; i++) {
    double g = sep(e, c, dirs[i]);
    if (g > tg[0]) tg[1] = tg[0], top[1] = top[0], tg[0] = g, top[0] = i;
    else if (g > tg[1]) tg[1] = g, top[1] = i;
  }
  double best = fmax(refine(e, c, dirs[top[0]]), refine(e, c, dirs[top[1]]));
  return fmax(best, refine(e, c, hint));
}

typedef struct core_ctx_t {
  const sref_shape_t *e;
  const cr_capsule_t *c;
} core_ctx_t;
static double core_fn(const void *ctx, double s) {
  const core_ctx_t *p = ctx;
  double x[3];
  cr_at(p->c, s, x);
  return sref_point_ellipsoid(p->e, x);
}

static clt_collide_pose_t pose_of(const double c[3], const double rot[3][3]) {
  /* quaternion of a rotation matrix (Shepperd) */
  clt_collide_pose_t p;
  memset(&p, 0, sizeof p);
  for (int k = 0; k < 3; k++) p.position[k] = c[k];
  double t = rot[0][0] + rot[1][1] + rot[2][2], *q = p.orientation;
  if (t > 0.0) {
    double s = 2.0 * sqrt(1.0 + t);
    q[0] = 0.25 * s, q[1] = (rot[2][1] - rot[1][2]) / s, q[2] = (rot[0][2] - rot[2][0]) / s, q[3] = (rot[1][0] - rot[0][1]) / s;
  } else if (rot[0][0] > rot[1][1] && rot[0][0] > rot[2][2]) {
    double s = 2.0 * sqrt(1.0 + rot[0][0] - rot[1][1] - rot[2][2]);
    q[0] = (rot[2][1] - rot[1][2]) / s, q[1] = 0.25 * s, q[2] = (rot[0][1] + rot[1][0]) / s, q[3] = (rot[0][2] + rot[2][0]) / s;
  } else if (rot[1][1] > rot[2][2]) {
    double s = 2.0 * sqrt(1.0 + rot[1][1] - rot[0][0] - rot[2][2]);
    q[0] = (rot[0][2] - rot[2][0]) / s, q[1] = (rot[0][1] + rot[1][0]) / s, q[2] = 0.25 * s, q[3] = (rot[1][2] + rot[2][1]) / s;
  } else {
    double s = 2.0 * sqrt(1.0 + rot[2][2] - rot[0][0] - rot[1][1]);
    q[0] = (rot[1][0] - rot[0][1]) / s, q[1] = (rot[0][2] + rot[2][0]) / s, q[2] = (rot[1][2] + rot[2][1]) / s, q[3] = 0.25 * s;
  }
  return p;
}

static void run_family(int family, int poses, uint64_t seed) {
  rng_t rng = {seed};
  cr_stats_t st;
  char name[64];
  snprintf(name, sizeof name, "capsule-ellipsoid %s", family_name[family]);
  cr_stats_init(&st, name);
  int failed = 0, exact = 0, cut_wrong = 0;
  double below = 0.0, beaten = 0.0, attained = 0.0, vs_sphere = 0.0;
  for (int i = 0; i < poses; i++) {
    sref_shape_t e;
    if (i % 3 == 2) { /* thin: prolate or oblate, aspect 4–12 */
      double a = rng_uniform(&rng, 1.0, 2.5), b = a / rng_uniform(&rng, 4.0, 12.0);
      if (rng_int(&rng, 0, 1)) sref_ellipsoid(&e, a, b, b);
      else sref_ellipsoid(&e, a, a, b);
    } else {
      sref_ellipsoid(&e, rng_uniform(&rng, 0.3, 1.5), rng_uniform(&rng, 0.3, 1.5), rng_uniform(&rng, 0.3, 1.5));
    }
    e.def.local_orientation[0] = 1.0;
    double rot[3][3], ce[3];
    sref_rng_t sr = {rng_next(&rng)};
    sref_rotation(&sr, rot);
    for (int k = 0; k < 3; k++) ce[k] = rng_uniform(&rng, -1.0, 1.0);
    sref_place(&e, ce, rot);
    double r = rng_uniform(&rng, 0.1, 0.6), len = family == ZERO_LENGTH ? 0.0 : rng_uniform(&rng, 0.3, 3.0);
    double delta;
    switch (i % 4) {
      case 0: delta = 0.0; break;
      case 1: delta = rng_uniform(&rng, -0.5 * r, 0.0); break;
      case 2: delta = rng_uniform(&rng, 0.0, 0.5); break;
      default: delta = rng_uniform(&rng, -0.5 * r, 0.5); break;
    }
    double u[3], p[3], z[3], cc[3];
    cr_unit(&rng, u);
    /* support point p = c + R diag(a²) Rᵀ u / σ */
    {
      double l[3], w[3], sigma = 0.0;
      for (int k = 0; k < 3; k++) {
        l[k] = (rot[0][k] * u[0] + rot[1][k] * u[1] + rot[2][k] * u[2]);
        sigma += e.def.semi_axes[k] * e.def.semi_axes[k] * l[k] * l[k];
        l[k] *= e.def.semi_axes[k] * e.def.semi_axes[k];
      }
      sigma = sqrt(sigma);
      sref_dir_to_world(&e, l, w);
      for (int k = 0; k < 3; k++) p[k] = ce[k] + w[k] / sigma;
    }
    if (family == END_CAP) {
      do {
        cr_unit(&rng, z);
      } while (cr_dot(z, u) < 0.2);
      for (int k = 0; k < 3; k++) cc[k] = p[k] + (r + delta) * u[k] + 0.5 * len * z[k];
    } else {
      if (family == PARALLEL || family == NEARLY_PARALLEL) { /* the major axis, projected ⊥ u */
        int m = 0;
        for (int k = 1; k < 3; k++)
          if (e.def.semi_axes[k] > e.def.semi_axes[m]) m = k;
        double ax[3] = {rot[0][m], rot[1][m], rot[2][m]};
        cr_axpy(z, ax, -cr_dot(ax, u), u);
        if (cr_norm(z) < 0.1) {
          i--;
          continue;
        }
        cr_normalize(z);
        if (family == NEARLY_PARALLEL) { /* tilt within the tangent plane, about u */
          double t[3];
          cr_rotate(t, z, u, (rng_int(&rng, 0, 1) ? 1.0 : -1.0) * pow(10.0, rng_uniform(&rng, -15.0, -3.0)));
          for (int k = 0; k < 3; k++) z[k] = t[k];
        }
      } else {
        cr_perp(&rng, u, z);
      }
      double s = family == ZERO_LENGTH ? 0.5 : rng_uniform(&rng, 0.05, 0.95);
      for (int k = 0; k < 3; k++) cc[k] = p[k] + (r + delta) * u[k] - (s - 0.5) * len * z[k];
    }
    clt_shape_def_t cap = clt_default_shape_def(CLT_SHAPE_CAPSULE);
    cap.radius = r;
    cap.length = len;
    clt_collide_pose_t pc = cr_pose(&rng, cc, z), pe = pose_of(ce, rot);
    cr_capsule_t c = cr_capsule(&cap, &pc);
    clt_contact_point_t out[4], sw[4];
    int n = clt_collide(&cap, &pc, &e.def, &pe, 1e3, out, 4);
    int m = clt_collide(&e.def, &pe, &cap, &pc, 1e3, sw, 4);
    if (n != 1 || m != 1) {
      failed++;
      continue;
    }
    const clt_contact_point_t *k = &out[0];
    double phi = k->distance;
    cr_count(&st, delta);
    st.points++;
    cr_check_point(&st, k);
    cr_track(&st.swap, fabs(phi - sw[0].distance));
    double ns[3] = {k->normal[0] + sw[0].normal[0], k->normal[1] + sw[0].normal[1], k->normal[2] + sw[0].normal[2]};
    cr_track(&st.swap, cr_norm(ns));
    cr_check_capsule_witness(&st, &c, k->point_a, k->normal, 1.0);
    /* p_B on the ellipsoid with outward normal −n */
    double en[3];
    cr_track(&st.surface, fabs(sref_ellipsoid_implicit(&e, k->point_b)) * fmin(fmin(e.def.semi_axes[0], e.def.semi_axes[1]), e.def.semi_axes[2]));
    sref_ellipsoid_normal(&e, k->point_b, en);
    double d[3] = {en[0] + k->normal[0], en[1] + k->normal[1], en[2] + k->normal[2]};
    cr_track(&st.normal, cr_norm(d));
    if (delta >= 0.0) {
      exact++;
      cr_track(&st.phi, fabs(phi - delta));
    } else {
      below = fmax(below, delta - phi);
    }
    /* Φ = max g (sep is from E to C: the normal from C to E is −u there) */
    double mn[3] = {-k->normal[0], -k->normal[1], -k->normal[2]};
    double best = max_sep(&e, &c, mn);
    beaten = fmax(beaten, best - phi);
    attained = fmax(attained, fabs(sep(&e, &c, mn) - phi));
    if (delta > 1e-9 && i % 5 == 2) { /* exact distance apart along the core */
      core_ctx_t ctx = {&e, &c};
      double ref = cr_golden(core_fn, &ctx) - r;
      cr_track(&st.phi, fabs(ref - phi));
      st.sampled++;
    }
    { /* the max_distance early out: a point exactly when Φ ≤ ε (outside a 1e-9 band) */
      double eps = rng_uniform(&rng, -0.2, 0.3);
      clt_contact_point_t o[4];
      if (fabs(phi - eps) > 1e-9 && clt_collide(&cap, &pc, &e.def, &pe, eps, o, 4) != (phi <= eps ? 1 : 0)) cut_wrong++;
    }
    if (family == ZERO_LENGTH) { /* the same as the ellipsoid–sphere pair */
      clt_shape_def_t ball = clt_default_shape_def(CLT_SHAPE_SPHERE);
      ball.radius = r;
      clt_contact_point_t o[4];
      CHECK(clt_collide(&ball, &pc, &e.def, &pe, 1e3, o, 4) == 1);
      vs_sphere = fmax(vs_sphere, fabs(o[0].distance - phi));
    }
  }
  cr_print(&st);
  printf("%-28s failed %d, exact %d, Phi below known %.1e, max g beats Phi by %.1e, |g(n) - Phi| %.1e, "
         "vs sphere %.1e, wrong cut-offs %d\n", "", failed, exact, below, beaten, attained, vs_sphere, cut_wrong);
  CHECK(failed == 0);
  CHECK(cut_wrong == 0);
  CHECK_LE(st.phi, 1e-9);
  CHECK_LE(st.surface, 1e-9);
  CHECK_LE(st.identity, 1e-10);
  CHECK_LE(st.normal, 1e-7);
  CHECK_LE(st.swap, 1e-7);
  CHECK_LE(below, 1e-9);
  CHECK_LE(beaten, 1e-9);
  CHECK_LE(attained, 1e-9);
  CHECK_LE(vs_sphere, 1e-9);
  CHECK(st.separated > poses / 8 && st.touching > poses / 8 && st.overlapping > poses / 8);
}

/* A capsule growing in place (002 §5.4: the length may change in time) against an ellipsoid:
 * each longer capsule contains the shorter one, so Φ never increases, and grows by at most the
 * half-length increase (1-Lipschitz); no failure over 400 lengths through 0. */
static void growing(void) {
  sref_shape_t e;
  sref_ellipsoid(&e, 1.5, 0.5, 0.4);
  e.def.local_orientation[0] = 1.0;
  double rot[3][3], ce[3] = {0.1, -0.2, 0.3};
  sref_rng_t sr = {99};
  sref_rotation(&sr, rot);
  sref_place(&e, ce, rot);
  clt_collide_pose_t pe = pose_of(ce, rot);
  rng_t rng = {77};
  double worst_up = 0.0, worst_drop = 0.0;
  int failed = 0;
  for (int trial = 0; trial < 10; trial++) {
    double cc[3], z[3];
    cr_unit(&rng, z);
    for (int k = 0; k < 3; k++) cc[k] = ce[k] + rng_uniform(&rng, -2.0, 2.0);
    clt_collide_pose_t pc = cr_pose(&rng, cc, z);
    clt_shape_def_t cap = clt_default_shape_def(CLT_SHAPE_CAPSULE);
    cap.radius = 0.2;
    double prev = NAN;
    for (int j = 0; j <= 40; j++) {
      cap.length = 0.1 * j;
      clt_contact_point_t o[4];
      if (clt_collide(&cap, &pc, &e.def, &pe, 1e3, o, 4) != 1) {
        failed++;
        continue;
      }
      if (!isnan(prev)) {
        worst_up = fmax(worst_up, o[0].distance - prev);
        worst_drop = fmax(worst_drop, prev - o[0].distance - 0.05);
      }
      prev = o[0].distance;
    }
  }
  printf("growing capsule: 10 x 41 lengths 0..4, failed %d, max increase %.1e, max drop beyond dL/2 %.1e\n",
         failed, worst_up, worst_drop);
  CHECK(failed == 0);
  CHECK_LE(worst_up, 1e-10);
  CHECK_LE(worst_drop, 1e-10);
}

int main(void) {
  for (int i = 0; i < NDIRS; i++) sref_fibonacci(NDIRS, i, dirs[i]);
  const int poses = 400;
  for (int f = PARALLEL; f <= ZERO_LENGTH; f++) run_family(f, poses, 900 + (uint64_t)f);
  growing();
  return clt_test_finish();
}
