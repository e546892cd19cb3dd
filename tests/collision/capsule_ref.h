/* Shared by test_capsule_*.c: poses built from an axis direction, and brute-force references for
 * capsules (spherocylinders) written from the definitions, independently of src/collision:
 * closest points of segments by golden section on a convex function, surface samples, and the
 * support-function separation of convex pairs maximized over sampled directions. */
#ifndef CLATTER_TESTS_CAPSULE_REF_H
#define CLATTER_TESTS_CAPSULE_REF_H

#include <math.h>
#include <string.h>

#include "collide_ref.h"
#include "collision/narrowphase.h"
#include "test_util.h"

static inline double cr_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double cr_norm(const double a[3]) { return sqrt(cr_dot(a, a)); }
static inline void cr_cross(double o[3], const double a[3], const double b[3]) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}
static inline void cr_normalize(double a[3]) {
  double l = cr_norm(a);
  for (int k = 0; k < 3; k++) a[k] /= l;
}
static inline void cr_axpy(double o[3], const double a[3], double s, const double b[3]) {
  for (int k = 0; k < 3; k++) o[k] = a[k] + s * b[k];
}
static inline void cr_unit(rng_t *r, double u[3]) {
  do {
    for (int k = 0; k < 3; k++) u[k] = rng_uniform(r, -1.0, 1.0);
  } while (cr_norm(u) > 1.0 || cr_norm(u) < 0.1);
  cr_normalize(u);
}
/* A unit vector orthogonal to u (random). */
static inline void cr_perp(rng_t *r, const double u[3], double p[3]) {
  double v[3];
  do {
    cr_unit(r, v);
    cr_cross(p, u, v);
  } while (cr_norm(p) < 0.2);
  cr_normalize(p);
}
/* v rotated by angle t about the unit axis k (Rodrigues). */
static inline void cr_rotate(double o[3], const double v[3], const double k[3], double t) {
  double c = cos(t), s = sin(t), kx[3], kv = cr_dot(k, v);
  cr_cross(kx, k, v);
  for (int i = 0; i < 3; i++) o[i] = v[i] * c + kx[i] * s + k[i] * kv * (1.0 - c);
}

/* Pose whose local z axis is the unit d, with a random spin about it, at centre c. */
static inline clt_collide_pose_t cr_pose(rng_t *r, const double c[3], const double d[3]) {
  clt_collide_pose_t p;
  memset(&p, 0, sizeof p);
  for (int k = 0; k < 3; k++) p.position[k] = c[k];
  /* q = spin about z, then the shortest rotation z → d */
  double spin = rng_uniform(r, 0.0, 2.0 * REF_PI);
  double qs[4] = {cos(0.5 * spin), 0.0, 0.0, sin(0.5 * spin)};
  double qd[4];
  if (d[2] < -1.0 + 1e-12) {
    qd[0] = 0.0, qd[1] = 1.0, qd[2] = 0.0, qd[3] = 0.0;
  } else {
    qd[0] = 1.0 + d[2], qd[1] = -d[1], qd[2] = d[0], qd[3] = 0.0;
    double n = sqrt(qd[0] * qd[0] + qd[1] * qd[1] + qd[2] * qd[2]);
    for (int k = 0; k < 4; k++) qd[k] /= n;
  }
  double *q = p.orientation;
  q[0] = qd[0] * qs[0] - qd[1] * qs[1] - qd[2] * qs[2] - qd[3] * qs[3];
  q[1] = qd[0] * qs[1] + qd[1] * qs[0] + qd[2] * qs[3] - qd[3] * qs[2];
  q[2] = qd[0] * qs[2] - qd[1] * qs[3] + qd[2] * qs[0] + qd[3] * qs[1];
  q[3] = qd[0] * qs[3] + qd[1] * qs[2] - qd[2] * qs[1] + qd[3] * qs[0];
  return p;
}
/* Rotation matrix of a unit quaternion (w, x, y, z). */
static inline void cr_qmat(double m[3][3], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  m[0][0] = 1 - 2 * (y * y + z * z), m[0][1] = 2 * (x * y - w * z), m[0][2] = 2 * (x * z + w * y);
  m[1][0] = 2 * (x * y + w * z), m[1][1] = 1 - 2 * (x * x + z * z), m[1][2] = 2 * (y * z - w * x);
  m[2][0] = 2 * (x * z - w * y), m[2][1] = 2 * (y * z + w * x), m[2][2] = 1 - 2 * (x * x + y * y);
}

/* A capsule in the world: the core segment [p0, p1] and the radius. */
typedef struct cr_capsule_t {
  double p0[3], p1[3], r;
} cr_capsule_t;

static inline cr_capsule_t cr_capsule(const clt_shape_def_t *d, const clt_collide_pose_t *p) {
  cr_capsule_t c;
  double m[3][3];
  cr_qmat(m, p->orientation);
  for (int k = 0; k < 3; k++) {
    c.p0[k] = p->position[k] - 0.5 * d->length * m[k][2];
    c.p1[k] = p->position[k] + 0.5 * d->length * m[k][2];
  }
  c.r = d->radius;
  return c;
}
static inline void cr_at(const cr_capsule_t *c, double s, double x[3]) {
  for (int k = 0; k < 3; k++) x[k] = c->p0[k] + s * (c->p1[k] - c->p0[k]);
}
/* Distance from x to the core, and the closest core point. */
static inline double cr_point_core(const cr_capsule_t *c, const double x[3], double q[3]) {
  double d[3], w[3];
  for (int k = 0; k < 3; k++) d[k] = c->p1[k] - c->p0[k], w[k] = x[k] - c->p0[k];
  double l2 = cr_dot(d, d), s = l2 > 0.0 ? cr_dot(w, d) / l2 : 0.0;
  s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
  cr_at(c, s, q);
  double e[3] = {x[0] - q[0], x[1] - q[1], x[2] - q[2]};
  return cr_norm(e);
}
/* Minimum over s ∈ [0, 1] of a convex f(s) by golden section (120 steps: bracket at 1e-25). */
typedef double (*cr_fn)(const void *ctx, double s);
static inline double cr_golden(cr_fn f, const void *ctx) {
  const double g = 0.6180339887498949;
  double lo = 0.0, hi = 1.0, x1 = hi - g, x2 = g, f1 = f(ctx, x1), f2 = f(ctx, x2);
  for (int it = 0; it < 120; it++) {
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo), f1 = f(ctx, x1);
    } else {
      lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo), f2 = f(ctx, x2);
    }
  }
  return fmin(fmin(f1, f2), fmin(f(ctx, 0.0), f(ctx, 1.0)));
}
typedef struct cr_segseg_t {
  const cr_capsule_t *a, *b;
} cr_segseg_t;
static inline double cr_segseg_fn(const void *ctx, double s) {
  const cr_segseg_t *p = ctx;
  double x[3], q[3];
  cr_at(p->a, s, x);
  return cr_point_core(p->b, x, q);
}
/* Distance between the cores (convex in s: distance from a moving point to a convex set). */
static inline double cr_core_distance(const cr_capsule_t *a, const cr_capsule_t *b) {
  cr_segseg_t ctx = {a, b};
  return cr_golden(cr_segseg_fn, &ctx);
}

/* Surface samples of a capsule: Fibonacci points on each end sphere outside the other half and
 * rings on the cylinder; returns the count and the spacing (largest gap to a sample). */
static inline int cr_samples(const cr_capsule_t *c, int m, double (*pts)[3], double *spacing) {
  double d[3] = {c->p1[0] - c->p0[0], c->p1[1] - c->p0[1], c->p1[2] - c->p0[2]};
  double len = cr_norm(d), z[3] = {0.0, 0.0, 1.0}, e1[3], e2[3];
  if (len > 0.0) z[0] = d[0] / len, z[1] = d[1] / len, z[2] = d[2] / len;
  double h[3] = {1.0, 0.0, 0.0};
  if (fabs(z[0]) > 0.6) h[0] = 0.0, h[1] = 1.0;
  cr_cross(e1, z, h);
  cr_normalize(e1);
  cr_cross(e2, z, e1);
  double area_caps = 4.0 * REF_PI * c->r * c->r, area_side = 2.0 * REF_PI * c->r * len;
  int nc = (int)(m * area_caps / (area_caps + area_side)), k = 0;
  double ga = REF_PI * (3.0 - sqrt(5.0));
  for (int i = 0; i < nc; i++) {
    double w = 1.0 - 2.0 * (i + 0.5) / nc, rr = sqrt(1.0 - w * w);
    double u[3];
    for (int j = 0; j < 3; j++) u[j] = rr * cos(ga * i) * e1[j] + rr * sin(ga * i) * e2[j] + w * z[j];
    cr_axpy(pts[k++], w >= 0.0 ? c->p1 : c->p0, c->r, u);
  }
  int side = m - nc;
  if (len > 0.0 && side > 0) {
    int rings = (int)ceil(sqrt(side * len / (2.0 * REF_PI * c->r)));
    int per = side / rings;
    for (int i = 0; i < rings; i++)
      for (int j = 0; j < per; j++) {
        double t = 2.0 * REF_PI * (j + 0.5 * (i & 1)) / per, x[3];
        cr_at(c, (i + 0.5) / rings, x);
        for (int q = 0; q < 3; q++) pts[k][q] = x[q] + c->r * (cos(t) * e1[q] + sin(t) * e2[q]);
        k++;
      }
  }
  *spacing = 2.0 * sqrt((area_caps + area_side) / k);
  return k;
}

/* Minimum distance between two sampled point sets. */
static inline double cr_sampled_distance(const double (*pa)[3], int na, const double (*pb)[3], int nb) {
  double best = INFINITY;
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++) {
      double d[3] = {pa[i][0] - pb[j][0], pa[i][1] - pb[j][1], pa[i][2] - pb[j][2]};
      best = fmin(best, cr_dot(d, d));
    }
  return sqrt(best);
}

/* Error tallies of one family of poses. */
typedef struct cr_stats_t {
  const char *name;
  int poses, separated, touching, overlapping, sampled, points;
  double phi;       /* |Φ − Φ_ref| */
  double surface;   /* witness points off their surfaces */
  double identity;  /* |p_B − p_A − Φ n| */
  double normal;    /* | |n| − 1 |, |n ∓ outward normals at the witnesses| */
  double swap;      /* |Φ(A,B) − Φ(B,A)|, |n(A,B) + n(B,A)| */
  double shift;     /* |Φ − Φ after translating both by a large offset| / offset */
  double sampled_below, sampled_above; /* sampled min distance − Φ: ≥ 0, ≤ spacing */
} cr_stats_t;

static inline void cr_stats_init(cr_stats_t *s, const char *name) {
  memset(s, 0, sizeof *s);
  s->name = name;
  s->sampled_below = INFINITY;
  s->sampled_above = -INFINITY;
}
static inline void cr_track(double *slot, double v) {
  if (v > *slot || isnan(v)) *slot = v;
}
static inline void cr_count(cr_stats_t *s, double phi_ref) {
  s->poses++;
  if (phi_ref > 1e-9)
    s->separated++;
  else if (phi_ref < -1e-9)
    s->overlapping++;
  else
    s->touching++;
}
static inline void cr_print(const cr_stats_t *s) {
  printf("%-28s poses %4d (sep %4d touch %4d overlap %4d, sampled %3d) | dPhi %.1e surface %.1e "
         "pB-pA-Phi n %.1e normal %.1e swap %.1e shift %.1e sampled-Phi [%.1e, %.1e]\n",
         s->name, s->poses, s->separated, s->touching, s->overlapping, s->sampled, s->phi, s->surface,
         s->identity, s->normal, s->swap, s->shift, isfinite(s->sampled_below) ? s->sampled_below : 0.0,
         isfinite(s->sampled_above) ? s->sampled_above : 0.0);
}
/* The bounds every family must meet (rounding level: the pairs are closed form or converged). */
static inline void cr_assert(const cr_stats_t *s, double phi_tol) {
  cr_print(s);
  CHECK_LE(s->phi, phi_tol);
  CHECK_LE(s->surface, 1e-10);
  CHECK_LE(s->identity, 1e-10);
  CHECK_LE(s->normal, 1e-8);
  CHECK_LE(s->swap, 1e-8);
  CHECK_LE(s->shift, 1e-12);
  if (s->sampled > 0) CHECK(s->sampled_below >= -1e-9);
  CHECK(s->poses > 0);
}

/* Checks common to every point: |n| = 1 and p_B − p_A = Φ n. */
static inline void cr_check_point(cr_stats_t *s, const clt_contact_point_t *c) {
  cr_track(&s->normal, fabs(cr_norm(c->normal) - 1.0));
  double id[3];
  for (int k = 0; k < 3; k++) id[k] = c->point_b[k] - c->point_a[k] - c->distance * c->normal[k];
  cr_track(&s->identity, cr_norm(id));
}
/* Witness x on capsule c with outward normal `sign`·n there (A: +1, B: −1). */
static inline void cr_check_capsule_witness(cr_stats_t *s, const cr_capsule_t *c, const double x[3], const double n[3],
                                     double sign) {
  double q[3];
  double d = cr_point_core(c, x, q);
  cr_track(&s->surface, fabs(d - c->r));
  double m[3] = {(x[0] - q[0]) / d, (x[1] - q[1]) / d, (x[2] - q[2]) / d};
  double e[3] = {m[0] - sign * n[0], m[1] - sign * n[1], m[2] - sign * n[2]};
  cr_track(&s->normal, cr_norm(e));
}

#endif
