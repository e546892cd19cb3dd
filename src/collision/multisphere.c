/* Multi-sphere proxies (SPEC.md §6.3, 002 §5) and their surface error; the construction is
 * documented in multisphere.h. */
#include "collision/multisphere.h"

#include <math.h>
#include <string.h>

#include "collision/collision_math.h"

static bool positive(double x) { return x > 0.0 && isfinite(x); }

/* Largest inscribed radius of the ellipsoid at the major-axis point x (|x| ≤ A): in the plane of
 * the major axis and a minor semi-axis k the nearest ellipse point to (x, 0) is off the axis while
 * |x| < (A² − k²)/A (at distance k √(1 − x²/(A² − k²))), else the tip (A − |x|); the sphere is
 * limited by the nearer of the two planes. */
static double inscribed_radius(double big, double k1, double k2, double x) {
  double r = big - fabs(x);
  const double ks[2] = {k1, k2};
  for (int j = 0; j < 2; j++) {
    double k = ks[j], e2 = big * big - k * k;
    if (e2 > 0.0 && fabs(x) < e2 / big) r = fmin(r, k * sqrt(fmax(0.0, 1.0 - x * x / e2)));
  }
  return r;
}

/* Index of the largest semi-axis (the first of equal ones). */
static int major_index(const double a[3]) {
  int m = 0;
  for (int k = 1; k < 3; k++)
    if (a[k] > a[m]) m = k;
  return m;
}

int clt_multisphere_build(const clt_shape_def_t *shape, int n, double centres[][3], double radii[]) {
  if (!shape || n < 1 || n > CLT_MULTISPHERE_MAX) return -1;
  switch (shape->type) {
    case CLT_SHAPE_SPHERE:
      if (!positive(shape->radius)) return -1;
      clt_v3_set(centres[0], 0.0, 0.0, 0.0);
      radii[0] = shape->radius;
      return 1;
    case CLT_SHAPE_ELLIPSOID: {
      const double *a = shape->semi_axes;
      if (!positive(a[0]) || !positive(a[1]) || !positive(a[2])) return -1;
      int m = major_index(a);
      double big = a[m], k1 = a[(m + 1) % 3], k2 = a[(m + 2) % 3];
      double c = fmin(k1, k2);
      double xe = (big * big - c * c) / big; /* centre of the tips' osculating sphere */
      for (int i = 0; i < n; i++) {
        /* Symmetric by construction: x_{n−1−i} = −x_i exactly (same magnitude formula). */
        double x = 0.0;
        if (n > 1) {
          int j = 2 * i - (n - 1); /* −(n−1), …, n−1 step 2 */
          x = xe * (double)j / (double)(n - 1);
        }
        clt_v3_set(centres[i], 0.0, 0.0, 0.0);
        centres[i][m] = x;
        radii[i] = inscribed_radius(big, k1, k2, x);
      }
      return n;
    }
    case CLT_SHAPE_CAPSULE: {
      double r = shape->radius, len = shape->length;
      if (!positive(r) || !(len >= 0.0) || !isfinite(len)) return -1;
      for (int i = 0; i < n; i++) {
        double z = 0.0;
        if (n > 1) z = 0.5 * len * (double)(2 * i - (n - 1)) / (double)(n - 1);
        clt_v3_set(centres[i], 0.0, 0.0, z);
        radii[i] = r;
      }
      return n;
    }
    case CLT_SHAPE_TORUS: {
      double big = shape->major_radius, r = shape->minor_radius;
      if (n < 3 || !positive(big) || !positive(r)) return -1;
      for (int i = 0; i < n; i++) {
        double t = 2.0 * CLT_PI * (double)i / (double)n;
        clt_v3_set(centres[i], big * cos(t), big * sin(t), 0.0);
        radii[i] = r;
      }
      return n;
    }
    default:
      return -1;
  }
}

/* ---------------------------------------------------------------------------------------------
 * Surface error */

/* Direction k of a Fibonacci sphere of n points. */
static void fibonacci(int k, int n, double u[3]) {
  const double golden = CLT_PI * (3.0 - sqrt(5.0));
  double z = 1.0 - 2.0 * (k + 0.5) / n, r = sqrt(fmax(0.0, 1.0 - z * z));
  double t = golden * k;
  clt_v3_set(u, r * cos(t), r * sin(t), z);
}

/* Signed distance of x to the proxy union: exact outside it (the min over the spheres); inside,
 * minus the depth in the sphere that covers x best (enough for the sign). */
static double proxy_distance(int count, const double centres[][3], const double radii[], const double x[3]) {
  double best = INFINITY;
  for (int i = 0; i < count; i++) {
    double d[3];
    clt_v3_sub(d, x, centres[i]);
    best = fmin(best, clt_v3_norm(d) - radii[i]);
  }
  return best;
}

static double proxy_support(int count, const double centres[][3], const double radii[], const double u[3]) {
  double best = -INFINITY;
  for (int i = 0; i < count; i++) best = fmax(best, clt_v3_dot(centres[i], u) + radii[i]);
  return best;
}

/* Support function and support point of the true convex shape (local frame). */
static double true_support(const clt_shape_def_t *s, const double u[3], double point[3]) {
  if (s->type == CLT_SHAPE_ELLIPSOID) {
    const double *a = s->semi_axes;
    double w[3] = {a[0] * a[0] * u[0], a[1] * a[1] * u[1], a[2] * a[2] * u[2]};
    double sigma = sqrt(clt_v3_dot(w, u));
    clt_v3_scale(point, w, 1.0 / sigma);
    return sigma;
  }
  double h = 0.0;
  clt_v3_scale(point, u, s->radius);
  if (s->type == CLT_SHAPE_CAPSULE) {
    double zc = u[2] >= 0.0 ? 0.5 * s->length : -0.5 * s->length;
    point[2] += zc;
    h = zc * u[2];
  }
  return h + s->radius;
}

int clt_multisphere_surface_error(const clt_shape_def_t *shape, int count, const double centres[][3],
                                  const double radii[], int samples, double *max_gap, double *max_protrusion) {
  if (!shape || count < 1 || samples < 16) return -1;
  double gap = -INFINITY, out = -INFINITY;
  switch (shape->type) {
    case CLT_SHAPE_SPHERE:
    case CLT_SHAPE_ELLIPSOID:
    case CLT_SHAPE_CAPSULE: {
      if (shape->type == CLT_SHAPE_ELLIPSOID) {
        const double *a = shape->semi_axes;
        if (!positive(a[0]) || !positive(a[1]) || !positive(a[2])) return -1;
      } else if (!positive(shape->radius) || (shape->type == CLT_SHAPE_CAPSULE && !(shape->length >= 0.0))) {
        return -1;
      }
      for (int k = 0; k < samples; k++) {
        double u[3], x[3];
        fibonacci(k, samples, u);
        double h = true_support(shape, u, x);
        gap = fmax(gap, proxy_distance(count, centres, radii, x));
        out = fmax(out, proxy_support(count, centres, radii, u) - h);
        if (shape->type == CLT_SHAPE_ELLIPSOID) { /* the point on the ray along u */
          const double *a = shape->semi_axes;
          double q = u[0] * u[0] / (a[0] * a[0]) + u[1] * u[1] / (a[1] * a[1]) + u[2] * u[2] / (a[2] * a[2]);
          clt_v3_scale(x, u, 1.0 / sqrt(q));
          gap = fmax(gap, proxy_distance(count, centres, radii, x));
        }
      }
      if (shape->type == CLT_SHAPE_CAPSULE) { /* the cylinder, which no normal sample reaches */
        int rings = (int)ceil(sqrt((double)samples));
        for (int i = 0; i <= rings; i++) {
          double z = shape->length * ((double)i / rings - 0.5);
          for (int j = 0; j < rings; j++) {
            double t = 2.0 * CLT_PI * j / rings;
            double x[3] = {shape->radius * cos(t), shape->radius * sin(t), z};
            gap = fmax(gap, proxy_distance(count, centres, radii, x));
          }
        }
      }
      break;
    }
    case CLT_SHAPE_TORUS: {
      double big = shape->major_radius, r = shape->minor_radius;
      if (!positive(big) || !positive(r)) return -1;
      int m = (int)ceil(sqrt((double)samples));
      for (int i = 0; i < m; i++) {
        double t = 2.0 * CLT_PI * i / m, ct = cos(t), st = sin(t);
        for (int j = 0; j < m; j++) {
          double p = 2.0 * CLT_PI * j / m;
          double rho = big + r * cos(p);
          double x[3] = {rho * ct, rho * st, r * sin(p)};
          gap = fmax(gap, proxy_distance(count, centres, radii, x));
        }
      }
      for (int i = 0; i < count; i++) {
        double rho = hypot(centres[i][0], centres[i][1]);
        double d = hypot(rho - big, centres[i][2]) - r;
        out = fmax(out, d + radii[i]);
      }
      break;
    }
    default:
      return -1;
  }
  *max_gap = gap;
  *max_protrusion = out;
  return 0;
}
