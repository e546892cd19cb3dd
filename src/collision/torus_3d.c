/* 3D torus / ring pairs (SPEC.md §5, 002 §5.5): a torus is the set of points within minor_radius
 * r of its centreline, the circle of radius major_radius R about the local z axis. Its signed
 * distance to another such swept shape is the distance between the cores minus the radii:
 *  - torus–sphere: point–circle distance (closed form) − r − r_sphere;
 *  - torus–torus: circle–circle distance: the minimum over the angle θ on A's circle of the
 *    closed-form distance from x(θ) to B's circle, f(θ). f has few local minima (two for linked
 *    rings); each local minimum of a fixed sample of θ is bracketed and refined by bisection on
 *    f'(θ) = n·x'(θ) (n the unit vector from B's closest point to x), which converges to machine
 *    precision, and the smallest is kept;
 *  - torus–half-space: the lowest centreline point and three more at quarter turns, each within
 *    range a point (a ring lying flat on a plane rests on several points, like a box).
 * The witness points are the core points moved by the radii along the normal. */
#include <math.h>

#include "collision/primitives_3d.h"

#define SAMPLE_ANGLES 64

typedef struct circle_t {
  double c[3], axis[3], e1[3], e2[3]; /* centre, unit axis, in-plane orthonormal basis */
  double radius;
} circle_t;

static void make_circle(const clt_placed_shape_t *s, circle_t *k) {
  clt_v3_copy(k->c, s->position);
  clt_c3_axis(s, 0, k->e1);
  clt_c3_axis(s, 1, k->e2);
  clt_c3_axis(s, 2, k->axis);
  k->radius = s->def->major_radius;
}

static void circle_point(const circle_t *k, double theta, double x[3], double dx[3]) {
  double ct = cos(theta), st = sin(theta);
  for (int i = 0; i < 3; i++) {
    x[i] = k->c[i] + k->radius * (ct * k->e1[i] + st * k->e2[i]);
    if (dx) dx[i] = k->radius * (-st * k->e1[i] + ct * k->e2[i]);
  }
}

/* Closest point of the circle to p, and the distance. A point on the axis is equidistant from
 * the whole circle; e1's point is taken. */
static double point_circle(const circle_t *k, const double p[3], double q[3]) {
  double d[3], rho[3];
  clt_v3_sub(d, p, k->c);
  clt_v3_axpy(rho, d, -clt_v3_dot(d, k->axis), k->axis);
  double len = clt_v3_norm(rho);
  if (len > 1e-15 * (1.0 + k->radius))
    clt_v3_axpy(q, k->c, k->radius / len, rho);
  else
    clt_v3_axpy(q, k->c, k->radius, k->e1);
  double pq[3];
  clt_v3_sub(pq, p, q);
  return clt_v3_norm(pq);
}

/* f(θ) and f'(θ) for x(θ) on a against circle b. */
static double circle_gap(const circle_t *a, const circle_t *b, double theta, double *slope, double x[3],
                         double y[3]) {
  double dx[3], d[3];
  circle_point(a, theta, x, dx);
  double f = point_circle(b, x, y);
  clt_v3_sub(d, x, y);
  if (slope) *slope = f > 0.0 ? clt_v3_dot(d, dx) / f : 0.0;
  return f;
}

/* Closest points x (on a) and y (on b) of two circles; returns their distance. */
static double circle_circle(const circle_t *a, const circle_t *b, double x[3], double y[3]) {
  const double step = 2.0 * CLT_PI / SAMPLE_ANGLES;
  double f[SAMPLE_ANGLES], xs[3], ys[3];
  for (int k = 0; k < SAMPLE_ANGLES; k++) f[k] = circle_gap(a, b, k * step, NULL, xs, ys);
  double best = circle_gap(a, b, 0.0, NULL, x, y); /* a sample always has a local minimum; this
                                                     only keeps x, y defined for NaN input */
  for (int k = 0; k < SAMPLE_ANGLES; k++) {
    double fl = f[(k + SAMPLE_ANGLES - 1) % SAMPLE_ANGLES], fr = f[(k + 1) % SAMPLE_ANGLES];
    if (!(f[k] <= fl && f[k] <= fr)) continue;
    double lo = (k - 1) * step, hi = (k + 1) * step, slope_lo, slope_hi, theta = k * step;
    circle_gap(a, b, lo, &slope_lo, xs, ys);
    circle_gap(a, b, hi, &slope_hi, xs, ys);
    if (slope_lo < 0.0 && slope_hi > 0.0) { /* bisection on the sign of f' */
      for (int it = 0; it < 64 && hi - lo > 1e-16; it++) {
        double mid = 0.5 * (lo + hi), s;
        circle_gap(a, b, mid, &s, xs, ys);
        if (s < 0.0)
          lo = mid;
        else
          hi = mid;
      }
      theta = 0.5 * (lo + hi);
    } else { /* f' has no sign change (a kink, or flat): golden section on f */
      const double g = 0.61803398874989485;
      double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
      double f1 = circle_gap(a, b, x1, NULL, xs, ys), f2 = circle_gap(a, b, x2, NULL, xs, ys);
      for (int it = 0; it < 100 && hi - lo > 1e-15; it++) {
        if (f1 <= f2) {
          hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo);
          f1 = circle_gap(a, b, x1, NULL, xs, ys);
        } else {
          lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo);
          f2 = circle_gap(a, b, x2, NULL, xs, ys);
        }
      }
      theta = 0.5 * (lo + hi);
    }
    double value = circle_gap(a, b, theta, NULL, xs, ys);
    if (value <= best) {
      best = value;
      clt_v3_copy(x, xs);
      clt_v3_copy(y, ys);
    }
  }
  return best;
}

/* One point between core points x (of A, radius ra) and y (of B, radius rb); fallback normal
 * when the cores meet. */
static int core_point(const double x[3], double ra, const double y[3], double rb, const double fallback[3],
                      double max_distance, clt_contact_point_t *out) {
  double d[3], n[3], pa[3], pb[3];
  clt_v3_sub(d, y, x);
  double len = clt_v3_norm(d), phi = len - ra - rb;
  if (phi > max_distance) return 0;
  if (len > 1e-14 * (1.0 + ra + rb))
    clt_v3_scale(n, d, 1.0 / len);
  else
    clt_v3_copy(n, fallback);
  clt_v3_axpy(pa, x, ra, n);
  clt_v3_axpy(pb, y, -rb, n);
  clt_c3_set_point(out, phi, n, pa, pb, 0);
  return 1;
}

int clt_collide_torus_torus(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double max_distance,
                            clt_contact_point_t *out) {
  circle_t a, b;
  make_circle(sa, &a);
  make_circle(sb, &b);
  double d[3];
  clt_v3_sub(d, b.c, a.c);
  double ra = sa->def->minor_radius, rb = sb->def->minor_radius;
  if (clt_v3_norm(d) - a.radius - b.radius - ra - rb > max_distance) return 0;
  double x[3], y[3], fallback[3];
  circle_circle(&a, &b, x, y);
  /* Crossing centrelines (deep overlap): the common perpendicular of the two tangents there. */
  double ta[3], tb[3], qa[3], qb[3];
  clt_v3_sub(qa, x, a.c);
  clt_v3_cross(ta, a.axis, qa);
  clt_v3_sub(qb, y, b.c);
  clt_v3_cross(tb, b.axis, qb);
  clt_v3_cross(fallback, ta, tb);
  double fl = clt_v3_norm(fallback);
  if (fl > 0.0) {
    clt_v3_scale(fallback, fallback, (clt_v3_dot(fallback, d) < 0.0 ? -1.0 : 1.0) / fl);
  } else {
    clt_v3_copy(fallback, a.axis);
  }
  return core_point(x, ra, y, rb, fallback, max_distance, out);
}

int clt_collide_torus_sphere(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double max_distance,
                             clt_contact_point_t *out) {
  circle_t a;
  make_circle(sa, &a);
  double x[3];
  point_circle(&a, sb->position, x);
  return core_point(x, sa->def->minor_radius, sb->position, sb->def->radius, a.axis, max_distance, out);
}

int clt_collide_torus_halfspace(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double max_distance,
                                clt_contact_point_t *out) {
  circle_t a;
  make_circle(sa, &a);
  double p[3], m[3], down[3];
  clt_c3_halfspace(sb, p, m);
  /* In-plane direction of steepest descent along −m (e1 when the ring lies flat). */
  clt_v3_axpy(down, m, -clt_v3_dot(m, a.axis), a.axis);
  clt_v3_scale(down, down, -1.0);
  double theta0 = atan2(clt_v3_dot(down, a.e2), clt_v3_dot(down, a.e1));
  if (!(clt_v3_norm(down) > 1e-15)) theta0 = 0.0;
  double r = sa->def->minor_radius, n[3];
  clt_v3_scale(n, m, -1.0);
  int count = 0;
  for (int k = 0; k < 4; k++) {
    double x[3], d[3], pa[3], pb[3];
    circle_point(&a, theta0 + 0.5 * CLT_PI * k, x, NULL);
    clt_v3_sub(d, x, p);
    double height = clt_v3_dot(d, m), phi = height - r;
    if (phi > max_distance) continue;
    clt_v3_axpy(pa, x, r, n);
    clt_v3_axpy(pb, x, -height, m);
    clt_c3_set_point(&out[count++], phi, n, pa, pb, k);
  }
  return count;
}
