/* Shared helpers of the smooth-body narrow-phase tests (test_smooth_*.c): a seeded generator,
 * random rotations, placed shapes built by hand (no dependence on the dispatcher), and the
 * reference geometry written independently of src/collision/smooth_*.c. */
#ifndef CLATTER_TESTS_SMOOTH_REF_H
#define CLATTER_TESTS_SMOOTH_REF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "collision/smooth.h"

#define SREF_PI 3.14159265358979323846

typedef struct sref_rng_t {
  uint64_t s;
} sref_rng_t;

/* splitmix64 → uniform in [0, 1). */
static inline double sref_uniform(sref_rng_t *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}
static inline double sref_range(sref_rng_t *r, double lo, double hi) { return lo + (hi - lo) * sref_uniform(r); }

static inline double sref_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double sref_norm(const double a[3]) { return sqrt(sref_dot(a, a)); }
static inline void sref_cross(double o[3], const double a[3], const double b[3]) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Uniform random unit vector (normalized Gaussian by Box–Muller). */
static inline void sref_unit(sref_rng_t *r, double u[3]) {
  for (;;) {
    for (int k = 0; k < 3; k++) {
      double a = sref_uniform(r), b = sref_uniform(r);
      u[k] = sqrt(-2.0 * log(1.0 - a)) * cos(2.0 * SREF_PI * b);
    }
    double n = sref_norm(u);
    if (n > 1e-3) {
      for (int k = 0; k < 3; k++) u[k] /= n;
      return;
    }
  }
}

/* Random rotation matrix (uniform unit quaternion). */
static inline void sref_rotation(sref_rng_t *r, double m[3][3]) {
  double q[4], n = 0.0;
  do {
    n = 0.0;
    for (int k = 0; k < 4; k++) {
      q[k] = sref_range(r, -1.0, 1.0);
      n += q[k] * q[k];
    }
  } while (n > 1.0 || n < 1e-4);
  n = sqrt(n);
  double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  m[0][0] = 1 - 2 * (y * y + z * z), m[0][1] = 2 * (x * y - w * z), m[0][2] = 2 * (x * z + w * y);
  m[1][0] = 2 * (x * y + w * z), m[1][1] = 1 - 2 * (x * x + z * z), m[1][2] = 2 * (y * z - w * x);
  m[2][0] = 2 * (x * z - w * y), m[2][1] = 2 * (y * z + w * x), m[2][2] = 1 - 2 * (x * x + y * y);
}

static inline void sref_identity(double m[3][3]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) m[i][j] = i == j ? 1.0 : 0.0;
}

/* A placed shape with its own def (the placed shape points into it: keep both together). */
typedef struct sref_shape_t {
  clt_shape_def_t def;
  clt_placed_shape_t placed;
} sref_shape_t;

static inline void sref_place(sref_shape_t *s, const double c[3], const double rot[3][3]) {
  memset(&s->placed, 0, sizeof s->placed);
  s->placed.def = &s->def;
  for (int i = 0; i < 3; i++) {
    s->placed.position[i] = c[i];
    for (int j = 0; j < 3; j++) s->placed.rotation[i][j] = rot[i][j];
  }
}

static inline void sref_ellipsoid(sref_shape_t *s, double a0, double a1, double a2) {
  memset(&s->def, 0, sizeof s->def);
  s->def.type = CLT_SHAPE_ELLIPSOID;
  s->def.semi_axes[0] = a0, s->def.semi_axes[1] = a1, s->def.semi_axes[2] = a2;
}

/* World → local of a placed shape. */
static inline void sref_to_local(const sref_shape_t *s, const double x[3], double l[3]) {
  double d[3];
  for (int k = 0; k < 3; k++) d[k] = x[k] - s->placed.position[k];
  for (int k = 0; k < 3; k++)
    l[k] = s->placed.rotation[0][k] * d[0] + s->placed.rotation[1][k] * d[1] + s->placed.rotation[2][k] * d[2];
}
static inline void sref_to_world(const sref_shape_t *s, const double l[3], double x[3]) {
  for (int k = 0; k < 3; k++)
    x[k] = s->placed.position[k] + s->placed.rotation[k][0] * l[0] + s->placed.rotation[k][1] * l[1] +
           s->placed.rotation[k][2] * l[2];
}
static inline void sref_dir_to_world(const sref_shape_t *s, const double l[3], double x[3]) {
  for (int k = 0; k < 3; k++)
    x[k] = s->placed.rotation[k][0] * l[0] + s->placed.rotation[k][1] * l[1] + s->placed.rotation[k][2] * l[2];
}

/* Ellipsoid implicit function |diag(1/a) Rᵀ (x − c)|² − 1 (0 on the surface, < 0 inside). */
static inline double sref_ellipsoid_implicit(const sref_shape_t *s, const double x[3]) {
  double l[3];
  sref_to_local(s, x, l);
  const double *a = s->def.semi_axes;
  return (l[0] / a[0]) * (l[0] / a[0]) + (l[1] / a[1]) * (l[1] / a[1]) + (l[2] / a[2]) * (l[2] / a[2]) - 1.0;
}
/* Outward unit normal of the ellipsoid at (or near) x: the gradient of the implicit function. */
static inline void sref_ellipsoid_normal(const sref_shape_t *s, const double x[3], double n[3]) {
  double l[3], g[3];
  sref_to_local(s, x, l);
  const double *a = s->def.semi_axes;
  for (int k = 0; k < 3; k++) g[k] = l[k] / (a[k] * a[k]);
  sref_dir_to_world(s, g, n);
  double len = sref_norm(n);
  for (int k = 0; k < 3; k++) n[k] /= len;
}

/* Exact distance from an outside point x to the ellipsoid (Lagrange multiplier t ≥ 0 of
 * Σ (a_i y_i / (t + a_i²))² = 1, decreasing in t, found by bisection: slow and sure). Returns 0
 * for points inside. */
static inline double sref_point_ellipsoid(const sref_shape_t *s, const double x[3]) {
  double y[3];
  sref_to_local(s, x, y);
  const double *a = s->def.semi_axes;
  double f0 = (y[0] / a[0]) * (y[0] / a[0]) + (y[1] / a[1]) * (y[1] / a[1]) + (y[2] / a[2]) * (y[2] / a[2]) - 1.0;
  if (f0 <= 0.0) return 0.0;
  double amax = fmax(fmax(a[0], a[1]), a[2]);
  double lo = 0.0, hi = sref_norm(y) * amax + amax * amax;
  for (int it = 0; it < 200; it++) {
    double t = 0.5 * (lo + hi), f = -1.0;
    for (int k = 0; k < 3; k++) {
      double q = a[k] * y[k] / (t + a[k] * a[k]);
      f += q * q;
    }
    if (f > 0.0)
      lo = t;
    else
      hi = t;
    if (hi - lo <= 1e-17 * hi) break;
  }
  double t = 0.5 * (lo + hi), d2 = 0.0;
  for (int k = 0; k < 3; k++) {
    double xk = a[k] * a[k] * y[k] / (t + a[k] * a[k]);
    d2 += (y[k] - xk) * (y[k] - xk);
  }
  return sqrt(d2);
}

/* Fibonacci point i of n on the unit sphere. */
static inline void sref_fibonacci(int n, int i, double u[3]) {
  const double golden = SREF_PI * (3.0 - sqrt(5.0));
  double z = 1.0 - 2.0 * (i + 0.5) / n, r = sqrt(fmax(0.0, 1.0 - z * z));
  u[0] = r * cos(golden * i), u[1] = r * sin(golden * i), u[2] = z;
}

#endif
