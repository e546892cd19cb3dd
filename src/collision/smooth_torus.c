/* Ring (torus) pairs by their centre circles (SPEC.md §5; 002 §5.5), with a convergence flag
 * (smooth.h). A ring is the set of points within the minor radius r of its centre circle (major
 * radius R about the local z axis), so against another swept shape (ring, sphere, capsule) its
 * signed distance is the distance between the two cores minus both radii — exact also for linked
 * rings, whose cores never meet while the rings do not overlap.
 *
 *  - circle–point: closed form (project on the ring plane, go out to radius R);
 *  - circle–circle: 1D minimization over the angle θ of the smaller circle of the closed-form
 *    distance f(θ) to the other circle. f has few local minima (two for a linked pair); every local
 *    minimum of a θ sample is refined by the Illinois (safeguarded regula falsi) iteration on
 *    f'(θ) = (x − y)·x'(θ)/f inside its bracket — golden section where f' does not change sign
 *    across the bracket (a kink: the cores cross, or x passes the other circle's axis) — and the
 *    smallest wins. Converged when the bracket is at rounding level and the shared-normal
 *    conditions hold (n ⊥ both circle tangents), else CLT_SMOOTH_NOT_CONVERGED;
 *  - circle–segment (capsule): the same 1D search over the segment parameter, ends included;
 *  - ring–half-space: the lowest point of the circle (the query); the pair-table entry adds the
 *    quarter turns from it, so a ring lying flat rests on 4 points.
 * Witness points are the core points moved by the radii along the normal. Where the cores meet
 * (deep overlap) the normal is the common perpendicular of the two core tangents. */
#include <math.h>
#include <string.h>

#include "collision/collision_math.h"
#include "collision/smooth.h"

#define CIRCLE_SAMPLES 64
#define MAX_SAMPLES 1024

typedef struct circle_t {
  double c[3], axis[3], e1[3], e2[3];
  double radius;
} circle_t;

static bool make_circle(const clt_placed_shape_t *s, circle_t *k) {
  for (int i = 0; i < 3; i++) {
    k->c[i] = s->position[i];
    k->e1[i] = s->rotation[i][0];
    k->e2[i] = s->rotation[i][1];
    k->axis[i] = s->rotation[i][2];
  }
  k->radius = s->def->major_radius;
  return k->radius > 0.0 && s->def->minor_radius >= 0.0 && isfinite(k->radius) && clt_v3_isfinite(k->c);
}

static void circle_at(const circle_t *k, double theta, double x[3], double dx[3]) {
  double ct = cos(theta), st = sin(theta);
  for (int i = 0; i < 3; i++) {
    x[i] = k->c[i] + k->radius * (ct * k->e1[i] + st * k->e2[i]);
    dx[i] = k->radius * (-st * k->e1[i] + ct * k->e2[i]);
  }
}

/* Closest point y of circle k to p, and |p − y|. On the axis every circle point is equally far;
 * the one along e1 is taken (*on_axis set). */
static double point_circle(const circle_t *k, const double p[3], double y[3], bool *on_axis) {
  double d[3];
  clt_v3_sub(d, p, k->c);
  /* The direction to p in the ring's own basis (e1, e2), so y stays in the ring's plane to
   * rounding: d − (d·axis) axis, normalized, carries an axial error ε|d|/ρ that near the axis
   * (ρ ≪ |d|) moved y off the circle by up to 1e-6 R (found by test_torus_degenerate.c). */
  double x1 = clt_v3_dot(d, k->e1), x2 = clt_v3_dot(d, k->e2), len = hypot(x1, x2);
  bool axis = !(len > 1e-14 * (k->radius + clt_v3_norm(d)));
  if (on_axis) *on_axis = axis;
  if (axis) {
    clt_v3_axpy(y, k->c, k->radius, k->e1);
  } else {
    double c1 = k->radius * x1 / len, c2 = k->radius * x2 / len;
    for (int i = 0; i < 3; i++) y[i] = k->c[i] + c1 * k->e1[i] + c2 * k->e2[i];
  }
  double r[3];
  clt_v3_sub(r, p, y);
  return clt_v3_norm(r);
}

/* A 1D core parameterization: a circle angle or a segment parameter. */
typedef struct curve_t {
  bool segment;
  const circle_t *circle; /* the curve when !segment */
  double p0[3], dir[3];   /* segment p0 + t dir, t ∈ [0, 1] */
  const circle_t *other;  /* the circle it is measured against */
} curve_t;

/* f(t) = distance from the curve point to the other circle, and f'(t). */
static double curve_gap(const curve_t *cv, double t, double *slope, double x[3], double y[3]) {
  double dx[3];
  if (cv->segment) {
    clt_v3_axpy(x, cv->p0, t, cv->dir);
    clt_v3_copy(dx, cv->dir);
  } else {
    circle_at(cv->circle, t, x, dx);
  }
  double f = point_circle(cv->other, x, y, NULL);
  if (slope) {
    double r[3];
    clt_v3_sub(r, x, y);
    *slope = f > 0.0 ? clt_v3_dot(r, dx) / f : 0.0;
  }
  return f;
}

/* Refines a local minimum of f in [lo, hi]; returns the parameter. */
static double refine(const curve_t *cv, double lo, double hi, int *iterations) {
  double xs[3], ys[3], slo, shi;
  curve_gap(cv, lo, &slo, xs, ys);
  curve_gap(cv, hi, &shi, xs, ys);
  double width = hi - lo;
  if (slo < 0.0 && shi > 0.0) { /* Illinois on f' */
    int side = 0;
    for (int it = 0; it < 200; it++) {
      (*iterations)++;
      double t = (lo * shi - hi * slo) / (shi - slo);
      if (!(t > lo && t < hi)) t = 0.5 * (lo + hi);
      double s;
      curve_gap(cv, t, &s, xs, ys);
      if (s == 0.0) return t;
      if (s < 0.0) {
        lo = t, slo = s;
        if (side == -1) shi *= 0.5;
        side = -1;
      } else {
        hi = t, shi = s;
        if (side == 1) slo *= 0.5;
        side = 1;
      }
      if (hi - lo <= 4e-16 * (width + fabs(lo) + fabs(hi))) break;
    }
    /* The side with the smaller |f'| is the closer one. */
    return fabs(slo) < fabs(shi) ? lo : hi;
  }
  /* No sign change of f' (a kink, or a flat stretch): golden section on f. */
  const double g = 0.61803398874989485;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = curve_gap(cv, x1, NULL, xs, ys), f2 = curve_gap(cv, x2, NULL, xs, ys);
  for (int it = 0; it < 200 && hi - lo > 4e-16 * (width + fabs(lo) + fabs(hi)); it++) {
    (*iterations)++;
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo);
      f1 = curve_gap(cv, x1, NULL, xs, ys);
    } else {
      lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo);
      f2 = curve_gap(cv, x2, NULL, xs, ys);
    }
  }
  return f1 <= f2 ? x1 : x2;
}

/* Global minimum of f over the curve: sample, refine each sampled local minimum (for a segment,
 * the ends are candidates too). Writes the core points x (curve) and y (other circle). */
static double curve_min(const curve_t *cv, int n, double x[3], double y[3], double *param, int *iterations,
                        int *starts) {
  double f[MAX_SAMPLES + 1];
  double xs[3], ys[3];
  int count = cv->segment ? n + 1 : n;
  double step = cv->segment ? 1.0 / n : 2.0 * CLT_PI / n;
  for (int k = 0; k < count; k++) f[k] = curve_gap(cv, k * step, NULL, xs, ys);
  double best = INFINITY;
  for (int k = 0; k < count; k++) {
    double fl, fr;
    if (cv->segment) {
      fl = k > 0 ? f[k - 1] : INFINITY;
      fr = k < n ? f[k + 1] : INFINITY;
    } else {
      fl = f[(k + n - 1) % n];
      fr = f[(k + 1) % n];
    }
    if (!(f[k] <= fl && f[k] <= fr)) continue;
    (*starts)++;
    double lo = (k - 1) * step, hi = (k + 1) * step, t;
    if (cv->segment) {
      lo = fmax(lo, 0.0);
      hi = fmin(hi, 1.0);
    }
    t = refine(cv, lo, hi, iterations);
    if (cv->segment) { /* the ends are candidates of their own; a refined end snaps to it */
      if (t < 1e-12) t = 0.0;
      if (t > 1.0 - 1e-12) t = 1.0;
      double e0 = curve_gap(cv, 0.0, NULL, xs, ys), e1 = curve_gap(cv, 1.0, NULL, xs, ys);
      double value = curve_gap(cv, t, NULL, xs, ys);
      if (k == 0 && e0 <= value) t = 0.0;
      if (k == n && e1 <= value) t = 1.0;
    }
    double value = curve_gap(cv, t, NULL, xs, ys);
    if (value < best) {
      best = value;
      *param = t;
      clt_v3_copy(x, xs);
      clt_v3_copy(y, ys);
    }
  }
  return best;
}

/* The point from core points xa (A, radius ra) and xb (B, radius rb), normal from A to B. Where
 * the cores meet, `fallback` (unit) is the normal. */
static void core_point(const double xa[3], double ra, const double xb[3], double rb, const double fallback[3],
                       clt_contact_point_t *out) {
  double d[3], n[3];
  clt_v3_sub(d, xb, xa);
  double len = clt_v3_norm(d);
  if (len > 1e-14 * (1.0 + ra + rb))
    clt_v3_scale(n, d, 1.0 / len);
  else
    clt_v3_copy(n, fallback);
  out->distance = len - ra - rb;
  clt_v3_copy(out->normal, n);
  clt_v3_axpy(out->point_a, xa, ra, n);
  clt_v3_axpy(out->point_b, xb, -rb, n);
  out->feature = 0;
}

static clt_smooth_info_t *info_or_local(clt_smooth_info_t *info, clt_smooth_info_t *local) {
  clt_smooth_info_t *i = info ? info : local;
  memset(i, 0, sizeof *i);
  return i;
}

/* Unit tangent of circle k at its point x. */
static void circle_tangent(const circle_t *k, const double x[3], double t[3]) {
  double r[3];
  clt_v3_sub(r, x, k->c);
  clt_v3_cross(t, k->axis, r);
  double len = clt_v3_norm(t);
  if (len > 0.0) clt_v3_scale(t, t, 1.0 / len);
}

clt_smooth_status_t clt_smooth_torus_torus_query(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                                 clt_contact_point_t *out, clt_smooth_info_t *info) {
  clt_smooth_info_t local;
  info = info_or_local(info, &local);
  circle_t a, b;
  if (!make_circle(sa, &a) || !make_circle(sb, &b)) return info->status = CLT_SMOOTH_BAD_INPUT;
  /* Search over the smaller circle, sampled finely enough for the other's curvature. */
  bool swap = a.radius > b.radius;
  const circle_t *small = swap ? &b : &a, *big = swap ? &a : &b;
  curve_t cv;
  memset(&cv, 0, sizeof cv);
  cv.circle = small;
  cv.other = big;
  int n = CIRCLE_SAMPLES;
  double xs[3], ys[3], t;
  double f = curve_min(&cv, n, xs, ys, &t, &info->iterations, &info->starts);
  if (!isfinite(f)) return info->status = CLT_SMOOTH_NOT_CONVERGED;
  const double *xa = swap ? ys : xs, *xb = swap ? xs : ys;
  /* Normal where the cores meet: the common perpendicular of the tangents, towards B's centre. */
  double ta[3], tb[3], fallback[3], d[3];
  circle_tangent(&a, xa, ta);
  circle_tangent(&b, xb, tb);
  clt_v3_cross(fallback, ta, tb);
  clt_v3_sub(d, b.c, a.c);
  double fl = clt_v3_norm(fallback);
  if (fl > 1e-12)
    clt_v3_scale(fallback, fallback, (clt_v3_dot(fallback, d) < 0.0 ? -1.0 : 1.0) / fl);
  else
    clt_v3_copy(fallback, a.axis);
  core_point(xa, sa->def->minor_radius, xb, sb->def->minor_radius, fallback, out);
  /* Shared-normal conditions: n ⊥ both core tangents (cores apart), checked, not assumed. */
  double scale = a.radius + b.radius;
  info->residual = fmax(fabs(clt_v3_dot(out->normal, ta)), fabs(clt_v3_dot(out->normal, tb)));
  double gap = f / scale;
  /* Tangency holds to ~√ε·(scale/f)·ε-level in θ; accept 1e-7 relative, or cores touching. */
  if (gap > 1e-9 && info->residual > 1e-7) return info->status = CLT_SMOOTH_NOT_CONVERGED;
  return info->status = CLT_SMOOTH_OK;
}

clt_smooth_status_t clt_smooth_torus_sphere_query(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                                  clt_contact_point_t *out, clt_smooth_info_t *info) {
  clt_smooth_info_t local;
  info = info_or_local(info, &local);
  circle_t a;
  if (!make_circle(sa, &a) || !(sb->def->radius >= 0.0) || !clt_v3_isfinite(sb->position))
    return info->status = CLT_SMOOTH_BAD_INPUT;
  double y[3];
  point_circle(&a, sb->position, y, NULL);
  core_point(y, sa->def->minor_radius, sb->position, sb->def->radius, a.axis, out);
  return info->status = CLT_SMOOTH_OK;
}

clt_smooth_status_t clt_smooth_torus_capsule_query(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                                   clt_contact_point_t *out, clt_smooth_info_t *info) {
  clt_smooth_info_t local;
  info = info_or_local(info, &local);
  circle_t a;
  double len = sb->def->length;
  if (!make_circle(sa, &a) || !(sb->def->radius >= 0.0) || !(len >= 0.0) || !isfinite(len) ||
      !clt_v3_isfinite(sb->position))
    return info->status = CLT_SMOOTH_BAD_INPUT;
  curve_t cv;
  memset(&cv, 0, sizeof cv);
  cv.segment = true;
  cv.other = &a;
  double z[3];
  for (int k = 0; k < 3; k++) z[k] = sb->rotation[k][2];
  clt_v3_axpy(cv.p0, sb->position, -0.5 * len, z);
  clt_v3_scale(cv.dir, z, len);
  /* Samples: enough that each of the (at most two) minima has its own sample bracket. */
  int n = (int)ceil(8.0 * len / a.radius);
  n = n < 16 ? 16 : (n > MAX_SAMPLES ? MAX_SAMPLES : n);
  double xs[3], ys[3], t;
  double f = curve_min(&cv, n, xs, ys, &t, &info->iterations, &info->starts);
  if (!isfinite(f)) return info->status = CLT_SMOOTH_NOT_CONVERGED;
  double ta[3], fallback[3], d[3];
  circle_tangent(&a, ys, ta);
  clt_v3_cross(fallback, ta, z);
  clt_v3_sub(d, sb->position, a.c);
  double fl = clt_v3_norm(fallback);
  if (fl > 1e-12)
    clt_v3_scale(fallback, fallback, (clt_v3_dot(fallback, d) < 0.0 ? -1.0 : 1.0) / fl);
  else
    clt_v3_copy(fallback, a.axis);
  core_point(ys, sa->def->minor_radius, xs, sb->def->radius, fallback, out);
  /* Shared normal: ⊥ the ring tangent always; ⊥ the axis unless the closest point is an end. */
  info->residual = fabs(clt_v3_dot(out->normal, ta));
  bool interior = t > 0.0 && t < 1.0;
  if (interior) info->residual = fmax(info->residual, fabs(clt_v3_dot(out->normal, z)));
  if (f / (a.radius + len) > 1e-9 && info->residual > 1e-7) return info->status = CLT_SMOOTH_NOT_CONVERGED;
  return info->status = CLT_SMOOTH_OK;
}

/* A ring against a half-space, in the ring's plane: d1 the unit direction from the centre to the
 * lowest circle point (A's local x axis when the ring lies flat and every circle point is lowest),
 * d2 = axis × d1 a quarter turn on; p and m (unit, outward) the plane. */
typedef struct ring_plane_t {
  circle_t circle;
  double d1[3], d2[3];
  double p[3], m[3];
} ring_plane_t;

static clt_smooth_status_t make_ring_plane(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                           ring_plane_t *rp) {
  circle_t *a = &rp->circle;
  if (!make_circle(sa, a)) return CLT_SMOOTH_BAD_INPUT;
  clt_m3_mulv(rp->p, sb->rotation, sb->def->point);
  clt_v3_add(rp->p, rp->p, sb->position);
  clt_m3_mulv(rp->m, sb->rotation, sb->def->normal);
  double len = clt_v3_norm(rp->m);
  if (!(len > 0.0) || !clt_v3_isfinite(rp->p) || !clt_v3_isfinite(rp->m)) return CLT_SMOOTH_BAD_INPUT;
  clt_v3_scale(rp->m, rp->m, 1.0 / len);
  /* Lowest circle point: from the centre along the in-plane component of −m, in the ring's own
   * basis (x, y) so d1 and d2 stay in its plane to rounding even when the tilt is tiny (m − (m·a)a
   * would carry an O(ε/tilt) error along the axis into the heights). */
  double x = -clt_v3_dot(rp->m, a->e1), y = -clt_v3_dot(rp->m, a->e2), len_xy = hypot(x, y);
  if (len_xy > 1e-14) {
    x /= len_xy, y /= len_xy;
  } else {
    x = 1.0, y = 0.0;
  }
  for (int i = 0; i < 3; i++) {
    rp->d1[i] = x * a->e1[i] + y * a->e2[i];
    rp->d2[i] = -y * a->e1[i] + x * a->e2[i];
  }
  return CLT_SMOOTH_OK;
}

/* The point of circle point k of the quarter-turn set (k = 0 the lowest; 1, 2, 3 at 90°, 180°,
 * 270° from it): the tube's ball about that centreline point against the plane. */
static void ring_plane_point(const ring_plane_t *rp, double r, int k, clt_contact_point_t *out) {
  static const double cs[4][2] = {{1.0, 0.0}, {0.0, 1.0}, {-1.0, 0.0}, {0.0, -1.0}};
  const circle_t *a = &rp->circle;
  double x[3], rel[3];
  for (int i = 0; i < 3; i++) x[i] = a->c[i] + a->radius * (cs[k][0] * rp->d1[i] + cs[k][1] * rp->d2[i]);
  clt_v3_sub(rel, x, rp->p);
  double height = clt_v3_dot(rel, rp->m);
  out->distance = height - r;
  clt_v3_scale(out->normal, rp->m, -1.0);
  clt_v3_axpy(out->point_a, x, -r, rp->m);
  clt_v3_axpy(out->point_b, x, -height, rp->m);
  out->feature = k;
}

clt_smooth_status_t clt_smooth_torus_halfspace_query(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                                     clt_contact_point_t *out, clt_smooth_info_t *info) {
  clt_smooth_info_t local;
  info = info_or_local(info, &local);
  ring_plane_t rp;
  clt_smooth_status_t status = make_ring_plane(sa, sb, &rp);
  if (status != CLT_SMOOTH_OK) return info->status = status;
  ring_plane_point(&rp, sa->def->minor_radius, 0, out);
  return info->status = CLT_SMOOTH_OK;
}

static int as_pair(clt_smooth_status_t status, const clt_contact_point_t *point, double max_distance,
                   clt_contact_point_t *out) {
  if (status != CLT_SMOOTH_OK) return CLT_SMOOTH_FAILED;
  if (point->distance > max_distance) return 0;
  out[0] = *point;
  return 1;
}

static bool far_apart(const clt_placed_shape_t *a, double ra, const clt_placed_shape_t *b, double rb,
                      double max_distance) {
  double d[3];
  clt_v3_sub(d, b->position, a->position);
  return clt_v3_norm(d) - ra - rb > max_distance;
}

static double torus_bound(const clt_placed_shape_t *s) { return s->def->major_radius + s->def->minor_radius; }

int clt_smooth_torus_torus(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                           clt_contact_point_t *out) {
  if (far_apart(a, torus_bound(a), b, torus_bound(b), max_distance)) return 0;
  clt_contact_point_t point;
  return as_pair(clt_smooth_torus_torus_query(a, b, &point, NULL), &point, max_distance, out);
}

int clt_smooth_torus_sphere(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                            clt_contact_point_t *out) {
  if (far_apart(a, torus_bound(a), b, b->def->radius, max_distance)) return 0;
  clt_contact_point_t point;
  return as_pair(clt_smooth_torus_sphere_query(a, b, &point, NULL), &point, max_distance, out);
}

int clt_smooth_torus_capsule(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                             clt_contact_point_t *out) {
  if (far_apart(a, torus_bound(a), b, b->def->radius + 0.5 * b->def->length, max_distance)) return 0;
  clt_contact_point_t point;
  return as_pair(clt_smooth_torus_capsule_query(a, b, &point, NULL), &point, max_distance, out);
}

/* Unlike the other pairs, several points: a ring lying (nearly) flat on a plane touches it along
 * a whole circle, and one point on the rim, off the centre of mass, would let it rock from side to
 * side. The lowest point (exact Φ) and the three quarter turns from it, each within range, form a
 * square about the ring's centre, so the ring rests on a support polygon, like a box on its 4
 * corners (SPEC.md §5 manifolds). Tilted beyond max_distance, only the lowest point remains. */
int clt_smooth_torus_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                               clt_contact_point_t *out) {
  ring_plane_t rp;
  if (make_ring_plane(a, b, &rp) != CLT_SMOOTH_OK) return CLT_SMOOTH_FAILED;
  int count = 0;
  for (int k = 0; k < 4; k++) {
    clt_contact_point_t point;
    ring_plane_point(&rp, a->def->minor_radius, k, &point);
    if (point.distance <= max_distance) out[count++] = point;
  }
  return count;
}
