/* 2D ellipse pairs (SPEC.md §5): the shared-normal construction of 002 §2.1.6.
 *
 * For convex A and B with support functions h_A, h_B, the separation along a unit direction u is
 *   g(u) = min_{x∈B} u·x − max_{x∈A} u·x = −h_B(−u) − h_A(u),
 * and the signed distance is max_u g(u): the distance when apart, minus the penetration depth
 * when overlapping (separating-axis theorem). At a smooth maximizer g'(u) = (p_B − p_A)·u⊥ = 0 with
 * p_A = support_A(u), p_B = support_B(−u): the outward normals at p_A and p_B are u and −u and
 * p_B − p_A is parallel to them — exactly the shared-normal points. So the two boundary
 * parameters reduce to one, the normal angle φ, found by a safeguarded Newton iteration on g'(φ)
 * = 0 (bisection whenever Newton leaves the bracket), bracketed around the best of a fixed sample
 * of directions; if the sample does not bracket a sign change of g', a golden-section search on g
 * is the fallback. Polygons and segments enter through their support function, which makes the
 * same construction serve ellipse–polygon with one point (the ellipse is strictly convex, so the
 * contact point on it is unique). */
#include <math.h>

#include "collision/collision_math.h"
#include "collision/narrowphase_pairs.h"
#include "collision/round_core_2d.h"

#define SAMPLE_DIRECTIONS 96

typedef struct convex2_t {
  bool is_ellipse;
  double centre[2];
  double m[2][2];         /* ellipse: R diag(a², b²) Rᵀ */
  double bound;           /* radius of a bounding circle about centre */
  clt_round_core_t core;  /* rounded polygon */
} convex2_t;

static void make_convex(const clt_placed_shape_t *s, convex2_t *k) {
  if (s->def->type == CLT_SHAPE_ELLIPSE) {
    double a = s->def->semi_axes[0], b = s->def->semi_axes[1];
    double c = s->cos_angle, sn = s->sin_angle;
    k->is_ellipse = true;
    k->centre[0] = s->position[0];
    k->centre[1] = s->position[1];
    k->m[0][0] = c * c * a * a + sn * sn * b * b;
    k->m[1][1] = sn * sn * a * a + c * c * b * b;
    k->m[0][1] = k->m[1][0] = c * sn * (a * a - b * b);
    k->bound = fmax(a, b);
    return;
  }
  k->is_ellipse = false;
  clt_round_core_make(s, &k->core);
  k->centre[0] = k->core.v[0][0];
  k->centre[1] = k->core.v[0][1];
  double r = 0.0;
  for (int i = 1; i < k->core.count; i++) {
    double d[2];
    clt_c2_sub(d, k->core.v[i], k->centre);
    r = fmax(r, clt_c2_norm(d));
  }
  k->bound = r + k->core.radius;
}

/* Support point p(w) of unit direction w and its derivative dp = Dp(w)·dw. */
static void support(const convex2_t *k, const double w[2], const double dw[2], double p[2], double dp[2]) {
  if (k->is_ellipse) {
    double mw[2] = {k->m[0][0] * w[0] + k->m[0][1] * w[1], k->m[1][0] * w[0] + k->m[1][1] * w[1]};
    double mdw[2] = {k->m[0][0] * dw[0] + k->m[0][1] * dw[1], k->m[1][0] * dw[0] + k->m[1][1] * dw[1]};
    double s2 = clt_c2_dot(w, mw), s = sqrt(s2);
    p[0] = k->centre[0] + mw[0] / s;
    p[1] = k->centre[1] + mw[1] / s;
    double t = clt_c2_dot(w, mdw) / (s2 * s);
    dp[0] = mdw[0] / s - mw[0] * t;
    dp[1] = mdw[1] / s - mw[1] * t;
    return;
  }
  int best = 0;
  double best_s = -INFINITY;
  for (int i = 0; i < k->core.count; i++) {
    double v = clt_c2_dot(k->core.v[i], w);
    if (v > best_s) {
      best_s = v;
      best = i;
    }
  }
  clt_c2_axpy(p, k->core.v[best], k->core.radius, w);
  dp[0] = k->core.radius * dw[0];
  dp[1] = k->core.radius * dw[1];
}

/* g(φ), g'(φ), g''(φ) and the support points (see the file comment). */
static double separation(const convex2_t *a, const convex2_t *b, double phi, double *d1, double *d2,
                         double pa[2], double pb[2]) {
  double u[2] = {cos(phi), sin(phi)}, up[2] = {-u[1], u[0]};
  double mu[2] = {-u[0], -u[1]}, mup[2] = {-up[0], -up[1]};
  double dpa[2], dpb[2], diff[2], ddiff[2];
  support(a, u, up, pa, dpa);
  support(b, mu, mup, pb, dpb);
  clt_c2_sub(diff, pb, pa);
  clt_c2_sub(ddiff, dpb, dpa);
  if (d1) *d1 = clt_c2_dot(diff, up);
  if (d2) *d2 = clt_c2_dot(ddiff, up) - clt_c2_dot(diff, u);
  return clt_c2_dot(diff, u);
}

/* A local maximum of g near sample x (spacing step): safeguarded Newton on g' = 0 inside
 * [x − step, x + step] when g' changes sign there, else golden section on g. */
static double refine_maximum(const convex2_t *a, const convex2_t *b, double x, double step) {
  double pa[2], pb[2];
  double lo = x - step, hi = x + step;
  double dlo, dhi;
  separation(a, b, lo, &dlo, NULL, pa, pb);
  separation(a, b, hi, &dhi, NULL, pa, pb);
  if (dlo > 0.0 && dhi < 0.0) {
    /* Newton on f = −g' (f(lo) < 0 < f(hi), f' = −g'' > 0 near the maximum). */
    double dxold = hi - lo, dx = dxold, d1, d2;
    separation(a, b, x, &d1, &d2, pa, pb);
    double f = -d1, df = -d2;
    for (int it = 0; it < 100; it++) {
      if (((x - hi) * df - f) * ((x - lo) * df - f) > 0.0 || fabs(2.0 * f) > fabs(dxold * df)) {
        dxold = dx;
        dx = 0.5 * (hi - lo);
        x = lo + dx;
      } else {
        dxold = dx;
        dx = f / df;
        x -= dx;
      }
      if (fabs(dx) < 1e-15 || hi - lo < 1e-15) break;
      separation(a, b, x, &d1, &d2, pa, pb);
      f = -d1;
      df = -d2;
      if (f == 0.0) break;
      if (f < 0.0)
        lo = x;
      else
        hi = x;
    }
    return x;
  }
  const double r = 0.61803398874989485;
  double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo);
  double g1 = separation(a, b, x1, NULL, NULL, pa, pb), g2 = separation(a, b, x2, NULL, NULL, pa, pb);
  for (int it = 0; it < 200 && hi - lo > 1e-14; it++) {
    if (g1 >= g2) {
      hi = x2;
      x2 = x1;
      g2 = g1;
      x1 = hi - r * (hi - lo);
      g1 = separation(a, b, x1, NULL, NULL, pa, pb);
    } else {
      lo = x1;
      x1 = x2;
      g1 = g2;
      x2 = lo + r * (hi - lo);
      g2 = separation(a, b, x2, NULL, NULL, pa, pb);
    }
  }
  return 0.5 * (lo + hi);
}

/* The maximizing normal angle of g (file comment). */
static double shared_normal_angle(const convex2_t *a, const convex2_t *b) {
  const double step = 2.0 * CLT_PI / SAMPLE_DIRECTIONS;
  double pa[2], pb[2];
  /* Start direction: centre to centre, so the sample is aligned with the likely answer. */
  double d[2];
  clt_c2_sub(d, b->centre, a->centre);
  double phi0 = (d[0] == 0.0 && d[1] == 0.0) ? 0.0 : atan2(d[1], d[0]);
  double g[SAMPLE_DIRECTIONS];
  for (int k = 0; k < SAMPLE_DIRECTIONS; k++) g[k] = separation(a, b, phi0 + k * step, NULL, NULL, pa, pb);
  /* Refine every local maximum of the sample (a polygon's kinks make narrow peaks that a coarse
   * sample may rank below a broad one) and keep the best. */
  double best_x = phi0, best_g = -INFINITY;
  for (int k = 0; k < SAMPLE_DIRECTIONS; k++) {
    double gl = g[(k + SAMPLE_DIRECTIONS - 1) % SAMPLE_DIRECTIONS], gr = g[(k + 1) % SAMPLE_DIRECTIONS];
    if (!(g[k] >= gl && g[k] >= gr)) continue;
    double x = refine_maximum(a, b, phi0 + k * step, step);
    double gx = separation(a, b, x, NULL, NULL, pa, pb);
    if (gx > best_g) {
      best_g = gx;
      best_x = x;
    }
  }
  return best_x;
}

static int shared_normal_contact(const convex2_t *a, const convex2_t *b, double max_distance,
                                 clt_contact_point_t *out) {
  double d[2];
  clt_c2_sub(d, b->centre, a->centre);
  if (clt_c2_norm(d) - a->bound - b->bound > max_distance) return 0;
  double phi = shared_normal_angle(a, b);
  double pa[2], pb[2];
  double dist = separation(a, b, phi, NULL, NULL, pa, pb);
  if (dist > max_distance) return 0;
  double u[2] = {cos(phi), sin(phi)};
  /* A polygon's support may be a whole edge (the maximizer sits where g has a kink): the witness
   * on it is then where the shared normal through p_A meets that edge. */
  if (!b->is_ellipse && b->core.count >= 2)
    clt_c2_axpy(pb, pa, dist, u);
  else if (!a->is_ellipse && a->core.count >= 2)
    clt_c2_axpy(pa, pb, -dist, u);
  out->distance = dist;
  out->normal[0] = u[0];
  out->normal[1] = u[1];
  out->normal[2] = 0.0;
  out->point_a[0] = pa[0];
  out->point_a[1] = pa[1];
  out->point_a[2] = 0.0;
  out->point_b[0] = pb[0];
  out->point_b[1] = pb[1];
  out->point_b[2] = 0.0;
  out->feature = 0;
  return 1;
}

int clt_collide_ellipse_ellipse_2d(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                   double max_distance, clt_contact_point_t *out) {
  convex2_t a, b;
  make_convex(sa, &a);
  make_convex(sb, &b);
  return shared_normal_contact(&a, &b, max_distance, out);
}

int clt_collide_convex_2d(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double max_distance,
                          clt_contact_point_t *out) {
  convex2_t a, b;
  make_convex(sa, &a);
  make_convex(sb, &b);
  return shared_normal_contact(&a, &b, max_distance, out);
}

int clt_collide_ellipse_round_2d(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double max_distance,
                                 clt_contact_point_t *out) {
  convex2_t a, b;
  make_convex(sa, &a);
  make_convex(sb, &b);
  return shared_normal_contact(&a, &b, max_distance, out);
}

/* Closed form: the ellipse's support point along −m (m the wall's outward normal). */
int clt_collide_ellipse_halfplane_2d(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                     double max_distance, clt_contact_point_t *out) {
  convex2_t a;
  make_convex(sa, &a);
  double lp[2] = {sb->def->point[0], sb->def->point[1]}, ln[2] = {sb->def->normal[0], sb->def->normal[1]};
  double p[2], m[2];
  clt_c2_rot(p, sb->cos_angle, sb->sin_angle, lp);
  p[0] += sb->position[0];
  p[1] += sb->position[1];
  clt_c2_rot(m, sb->cos_angle, sb->sin_angle, ln);
  double len = clt_c2_norm(m);
  if (!(len > 0.0)) return 0;
  m[0] /= len;
  m[1] /= len;
  double n[2] = {-m[0], -m[1]}, dn[2] = {0.0, 0.0}, s[2], ds[2], d[2];
  support(&a, n, dn, s, ds);
  clt_c2_sub(d, s, p);
  double phi = clt_c2_dot(d, m);
  if (phi > max_distance) return 0;
  out->distance = phi;
  out->normal[0] = n[0];
  out->normal[1] = n[1];
  out->normal[2] = 0.0;
  out->point_a[0] = s[0];
  out->point_a[1] = s[1];
  out->point_a[2] = 0.0;
  out->point_b[0] = s[0] - phi * m[0];
  out->point_b[1] = s[1] - phi * m[1];
  out->point_b[2] = 0.0;
  out->feature = 0;
  return 1;
}
