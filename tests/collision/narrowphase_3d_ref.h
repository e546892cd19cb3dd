/* Shared by test_narrowphase_3d.c and test_box_pairs.c: the brute-force references (support
 * functions, surface functions and samples written from the shape definitions, independently of
 * src/collision) and the per-pair driver. See test_narrowphase_3d.c for what is checked. */
#ifndef CLATTER_TESTS_NARROWPHASE_3D_REF_H
#define CLATTER_TESTS_NARROWPHASE_3D_REF_H

#include <math.h>
#include <stdlib.h>

#include "collision/narrowphase.h"
#include "collision/narrowphase_pairs.h"
#include "collide_ref.h"
#include "test_util.h"

typedef struct ref3_t {
  clt_shape_type_t type;
  double c[3], R[3][3]; /* world frame of the shape */
  double r, len, e[3];
  double p0[3], p1[3];  /* capsule cap centres */
  double P[3], N[3];    /* half-space */
  double a[3];          /* ellipsoid semi-axes */
} ref3_t;

static void qmul(double o[4], const double a[4], const double b[4]) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  o[0] = w, o[1] = x, o[2] = y, o[3] = z;
}
static void qmat(double m[3][3], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  m[0][0] = 1 - 2 * (y * y + z * z), m[0][1] = 2 * (x * y - w * z), m[0][2] = 2 * (x * z + w * y);
  m[1][0] = 2 * (x * y + w * z), m[1][1] = 1 - 2 * (x * x + z * z), m[1][2] = 2 * (y * z - w * x);
  m[2][0] = 2 * (x * z - w * y), m[2][1] = 2 * (y * z + w * x), m[2][2] = 1 - 2 * (x * x + y * y);
}
static void mv(double o[3], const double m[3][3], const double v[3]) {
  for (int i = 0; i < 3; i++) o[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
}
static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm3(const double a[3]) { return sqrt(dot3(a, a)); }

static void ref3_make(const clt_shape_def_t *d, const clt_collide_pose_t *pose, ref3_t *s) {
  memset(s, 0, sizeof *s);
  s->type = d->type;
  double q[4], Rb[3][3], off[3];
  qmat(Rb, pose->orientation);
  mv(off, Rb, d->local_position);
  for (int k = 0; k < 3; k++) s->c[k] = pose->position[k] + off[k];
  qmul(q, pose->orientation, d->local_orientation);
  double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= qn;
  qmat(s->R, q);
  s->r = d->radius;
  s->len = d->length;
  memcpy(s->e, d->half_extents, sizeof s->e);
  memcpy(s->a, d->semi_axes, sizeof s->a);
  if (d->type == CLT_SHAPE_CAPSULE)
    for (int k = 0; k < 3; k++) s->p0[k] = s->c[k] - 0.5 * d->length * s->R[k][2], s->p1[k] = s->c[k] + 0.5 * d->length * s->R[k][2];
  if (d->type == CLT_SHAPE_HALFSPACE) {
    mv(s->P, s->R, d->point);
    for (int k = 0; k < 3; k++) s->P[k] += s->c[k];
    mv(s->N, s->R, d->normal);
    double l = norm3(s->N);
    for (int k = 0; k < 3; k++) s->N[k] /= l;
  }
}

static double ref3_support(const ref3_t *s, const double u[3]) {
  switch (s->type) {
    case CLT_SHAPE_SPHERE: return dot3(s->c, u) + s->r;
    case CLT_SHAPE_CAPSULE: return fmax(dot3(s->p0, u), dot3(s->p1, u)) + s->r;
    case CLT_SHAPE_ELLIPSOID: { /* c·u + |diag(a) Rᵀ u| */
      double q = 0;
      for (int k = 0; k < 3; k++) {
        double l = s->R[0][k] * u[0] + s->R[1][k] * u[1] + s->R[2][k] * u[2];
        q += s->a[k] * s->a[k] * l * l;
      }
      return dot3(s->c, u) + sqrt(q);
    }
    case CLT_SHAPE_BOX: {
      double h = dot3(s->c, u);
      for (int k = 0; k < 3; k++) h += s->e[k] * fabs(s->R[0][k] * u[0] + s->R[1][k] * u[1] + s->R[2][k] * u[2]);
      return h;
    }
    default: return INFINITY;
  }
}
static double g3(const ref3_t *a, const ref3_t *b, const double u[3]) {
  double mu[3] = {-u[0], -u[1], -u[2]};
  return -ref3_support(a, u) - ref3_support(b, mu);
}

/* Pattern search of g on the sphere from u (unit), returns the best value found. */
static double refine3(const ref3_t *a, const ref3_t *b, const double u0[3]) {
  double u[3] = {u0[0], u0[1], u0[2]}, best = g3(a, b, u);
  static const double cs8[8][2] = {{1, 0}, {0.70710678118654752, 0.70710678118654752}, {0, 1},
                                   {-0.70710678118654752, 0.70710678118654752}, {-1, 0},
                                   {-0.70710678118654752, -0.70710678118654752}, {0, -1},
                                   {0.70710678118654752, -0.70710678118654752}};
  double step = 0.05;
  for (int iter = 0; step > 1e-11 && iter < 600; iter++) {
    double t1[3], t2[3], h[3] = {1, 0, 0};
    if (fabs(u[0]) > 0.6) h[0] = 0, h[1] = 1;
    t1[0] = u[1] * h[2] - u[2] * h[1], t1[1] = u[2] * h[0] - u[0] * h[2], t1[2] = u[0] * h[1] - u[1] * h[0];
    double l = norm3(t1);
    for (int k = 0; k < 3; k++) t1[k] /= l;
    t2[0] = u[1] * t1[2] - u[2] * t1[1], t2[1] = u[2] * t1[0] - u[0] * t1[2], t2[2] = u[0] * t1[1] - u[1] * t1[0];
    bool moved = false;
    for (int dir = 0; dir < 8 && !moved; dir++) {
      double v[3];
      for (int k = 0; k < 3; k++) v[k] = u[k] + step * (cs8[dir][0] * t1[k] + cs8[dir][1] * t2[k]);
      double vl = norm3(v);
      for (int k = 0; k < 3; k++) v[k] /= vl;
      double gv = g3(a, b, v);
      if (gv > best) {
        best = gv;
        memcpy(u, v, sizeof u);
        moved = true;
      }
    }
    if (!moved) step *= 0.5;
  }
  return best;
}

#define NDIR 1000
static double dirs[NDIR][3];
static void make_dirs(void) {
  double ga = REF_PI * (3 - sqrt(5.0));
  for (int i = 0; i < NDIR; i++) {
    double z = 1 - 2 * (i + 0.5) / NDIR, rr = sqrt(1 - z * z);
    dirs[i][0] = rr * cos(ga * i), dirs[i][1] = rr * sin(ga * i), dirs[i][2] = z;
  }
}
/* max over directions of g: the sample, refined from its 2 best points and from the hint. */
static double ref3_signed_distance(const ref3_t *a, const ref3_t *b, const double *hint) {
  int top[4] = {0, 0, 0, 0};
  double topg[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < NDIR; i++) {
    double g = g3(a, b, dirs[i]);
    for (int k = 0; k < 4; k++)
      if (g > topg[k]) {
        for (int m = 3; m > k; m--) topg[m] = topg[m - 1], top[m] = top[m - 1];
        topg[k] = g, top[k] = i;
        break;
      }
  }
  double best = topg[0];
  for (int k = 0; k < 2; k++) best = fmax(best, refine3(a, b, dirs[top[k]]));
  if (hint) best = fmax(best, refine3(a, b, hint));
  return best;
}

/* Distance of p from the surface; outward normal where smooth. */
static double point_segment3(const double p[3], const double a[3], const double b[3], double q[3]) {
  double ab[3], ap[3];
  for (int k = 0; k < 3; k++) ab[k] = b[k] - a[k], ap[k] = p[k] - a[k];
  double l2 = dot3(ab, ab), t = l2 > 0 ? dot3(ap, ab) / l2 : 0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  for (int k = 0; k < 3; k++) q[k] = a[k] + t * ab[k];
  double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
  return norm3(d);
}
static double ref3_signed_point(const ref3_t *s, const double p[3]) {
  double q[3], d[3];
  switch (s->type) {
    case CLT_SHAPE_SPHERE:
      for (int k = 0; k < 3; k++) d[k] = p[k] - s->c[k];
      return norm3(d) - s->r;
    case CLT_SHAPE_CAPSULE: return point_segment3(p, s->p0, s->p1, q) - s->r;
    case CLT_SHAPE_HALFSPACE:
      for (int k = 0; k < 3; k++) d[k] = p[k] - s->P[k];
      return dot3(d, s->N);
    case CLT_SHAPE_BOX: {
      double l[3];
      for (int k = 0; k < 3; k++) d[k] = p[k] - s->c[k];
      for (int k = 0; k < 3; k++) l[k] = s->R[0][k] * d[0] + s->R[1][k] * d[1] + s->R[2][k] * d[2];
      double out = 0, in = -INFINITY;
      for (int k = 0; k < 3; k++) {
        double x = fabs(l[k]) - s->e[k];
        if (x > 0) out += x * x;
        in = fmax(in, x);
      }
      return out > 0 ? sqrt(out) : in;
    }
    default: return NAN;
  }
}
/* Ellipsoid implicit function F = Σ (l_k / a_k)² − 1 in the local frame; first-order distance
 * |F| / |∇F| and the outward normal ∇F / |∇F|. */
static double ellipsoid_surface(const ref3_t *s, const double p[3], double n[3]) {
  double d[3], l[3], g[3], f = -1;
  for (int k = 0; k < 3; k++) d[k] = p[k] - s->c[k];
  for (int k = 0; k < 3; k++) {
    l[k] = s->R[0][k] * d[0] + s->R[1][k] * d[1] + s->R[2][k] * d[2];
    f += l[k] * l[k] / (s->a[k] * s->a[k]);
    g[k] = 2 * l[k] / (s->a[k] * s->a[k]);
  }
  double gl = norm3(g);
  if (n) {
    mv(n, s->R, g);
    for (int k = 0; k < 3; k++) n[k] /= gl;
  }
  return fabs(f) / gl;
}

static bool ref3_normal(const ref3_t *s, const double p[3], double n[3]) {
  double q[3];
  switch (s->type) {
    case CLT_SHAPE_SPHERE:
      for (int k = 0; k < 3; k++) n[k] = p[k] - s->c[k];
      break;
    case CLT_SHAPE_CAPSULE:
      point_segment3(p, s->p0, s->p1, q);
      for (int k = 0; k < 3; k++) n[k] = p[k] - q[k];
      break;
    case CLT_SHAPE_HALFSPACE:
      memcpy(n, s->N, 3 * sizeof(double));
      return true;
    case CLT_SHAPE_ELLIPSOID:
      ellipsoid_surface(s, p, n);
      return true;
    default:
      return false;
  }
  double l = norm3(n);
  for (int k = 0; k < 3; k++) n[k] /= l;
  return true;
}
/* Witness error: on the surface, or (a capsule's points for an end cap or an axis point, sign =
 * +1 for A, −1 for B) on the sphere of radius r about an axis point v = p ∓ r n, inside the
 * capsule: the point then stands for that sub-sphere. */
static double witness3(const ref3_t *s, const double p[3], const double n[3], double sign) {
  if (s->type == CLT_SHAPE_ELLIPSOID) return ellipsoid_surface(s, p, NULL);
  double e = fabs(ref3_signed_point(s, p));
  if (s->type != CLT_SHAPE_CAPSULE || e < 1e-12) return e;
  double v[3], q[3];
  for (int k = 0; k < 3; k++) v[k] = p[k] - sign * s->r * n[k];
  double off_axis = point_segment3(v, s->p0, s->p1, q);
  if (ref3_signed_point(s, p) <= 1e-12) return off_axis;
  return e;
}

/* Surface samples: m points (roughly uniform), and the spacing. */
static int ref3_samples(const ref3_t *s, int m, double (*pts)[3], double *spacing) {
  int k = 0;
  if (s->type == CLT_SHAPE_SPHERE || s->type == CLT_SHAPE_CAPSULE) {
    /* caps: Fibonacci sphere points around each end, kept on the hemisphere facing out; side:
     * rings along the axis */
    double L = s->type == CLT_SHAPE_CAPSULE ? s->len : 0.0;
    double area_caps = 4 * REF_PI * s->r * s->r, area_side = 2 * REF_PI * s->r * L;
    int nc = (int)(m * area_caps / (area_caps + area_side)), ns = m - nc;
    double ga = REF_PI * (3 - sqrt(5.0));
    for (int i = 0; i < nc; i++) {
      double z = 1 - 2 * (i + 0.5) / nc, rr = sqrt(1 - z * z), l[3] = {rr * cos(ga * i), rr * sin(ga * i), z};
      l[0] *= s->r, l[1] *= s->r, l[2] = l[2] * s->r + (z >= 0 ? 0.5 * L : -0.5 * L);
      double w[3];
      mv(w, s->R, l);
      for (int c = 0; c < 3; c++) pts[k][c] = s->c[c] + w[c];
      k++;
    }
    if (L > 0 && ns > 0) {
      int rings = (int)ceil(sqrt(ns * L / (2 * REF_PI * s->r))), per = ns / (rings > 0 ? rings : 1);
      for (int i = 0; i < rings && per > 0; i++)
        for (int j = 0; j < per && k < m; j++) {
          double t = 2 * REF_PI * (j + 0.5 * (i & 1)) / per, l[3] = {s->r * cos(t), s->r * sin(t), -0.5 * L + L * (i + 0.5) / rings}, w[3];
          mv(w, s->R, l);
          for (int c = 0; c < 3; c++) pts[k][c] = s->c[c] + w[c];
          k++;
        }
    }
    *spacing = 2.0 * sqrt((area_caps + area_side) / k);
    return k;
  }
  if (s->type == CLT_SHAPE_ELLIPSOID) { /* a Fibonacci sphere stretched onto the ellipsoid */
    double ga = REF_PI * (3 - sqrt(5.0)), amax = fmax(fmax(s->a[0], s->a[1]), s->a[2]);
    for (int i = 0; i < m; i++) {
      double z = 1 - 2 * (i + 0.5) / m, rr = sqrt(1 - z * z), l[3] = {s->a[0] * rr * cos(ga * i), s->a[1] * rr * sin(ga * i), s->a[2] * z}, w[3];
      mv(w, s->R, l);
      for (int c = 0; c < 3; c++) pts[k][c] = s->c[c] + w[c];
      k++;
    }
    *spacing = 2.0 * amax * sqrt(4 * REF_PI / m);
    return k;
  }
  /* box: a grid on each face */
  double area = 8 * (s->e[0] * s->e[1] + s->e[1] * s->e[2] + s->e[0] * s->e[2]);
  double h = sqrt(area / m);
  for (int f = 0; f < 6; f++) {
    int ax = f / 2, u = (ax + 1) % 3, v = (ax + 2) % 3;
    int nu = (int)ceil(2 * s->e[u] / h), nv = (int)ceil(2 * s->e[v] / h);
    for (int i = 0; i <= nu; i++)
      for (int j = 0; j <= nv; j++) {
        if (k >= 4 * m) break;
        double l[3], w[3];
        l[ax] = (f & 1) ? s->e[ax] : -s->e[ax];
        l[u] = -s->e[u] + 2 * s->e[u] * i / nu;
        l[v] = -s->e[v] + 2 * s->e[v] * j / nv;
        mv(w, s->R, l);
        for (int c = 0; c < 3; c++) pts[k][c] = s->c[c] + w[c];
        k++;
      }
  }
  *spacing = h * sqrt(2.0);
  return k;
}

static clt_shape_def_t blank(clt_shape_type_t t) {
  clt_shape_def_t d;
  memset(&d, 0, sizeof d);
  d.type = t;
  d.local_orientation[0] = 1.0;
  d.material = -1;
  return d;
}
static void random_quat(rng_t *r, double q[4]) {
  double n = 0;
  do {
    for (int k = 0; k < 4; k++) q[k] = rng_uniform(r, -1, 1);
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  } while (n < 0.1 || n > 1);
  for (int k = 0; k < 4; k++) q[k] /= n;
}
static bool thin_ellipsoids = false;

static clt_shape_def_t random_shape(rng_t *r, clt_shape_type_t t) {
  clt_shape_def_t d = blank(t);
  switch (t) {
    case CLT_SHAPE_SPHERE: d.radius = rng_uniform(r, 0.2, 1.5); break;
    case CLT_SHAPE_CAPSULE:
      d.radius = rng_uniform(r, 0.1, 0.8);
      d.length = rng_int(r, 0, 5) == 0 ? 0.0 : rng_uniform(r, 0.1, 2.5);
      break;
    case CLT_SHAPE_BOX:
      for (int k = 0; k < 3; k++) d.half_extents[k] = rng_uniform(r, 0.1, 1.5);
      break;
    case CLT_SHAPE_ELLIPSOID:
      for (int k = 0; k < 3; k++) d.semi_axes[k] = rng_uniform(r, 0.2, 1.5);
      if (thin_ellipsoids) { /* prolate / oblate, aspect ratios 4 to 12 */
        double a = rng_uniform(r, 1.0, 2.5), b = a / rng_uniform(r, 4.0, 12.0);
        int prolate = rng_int(r, 0, 1);
        d.semi_axes[0] = a, d.semi_axes[1] = prolate ? b : a, d.semi_axes[2] = b;
      }
      break;
    case CLT_SHAPE_HALFSPACE:
      for (int k = 0; k < 3; k++) d.point[k] = rng_uniform(r, -0.5, 0.5), d.normal[k] = rng_uniform(r, -1, 1);
      break;
    default: break;
  }
  if (t != CLT_SHAPE_HALFSPACE) {
    for (int k = 0; k < 3; k++) d.local_position[k] = rng_uniform(r, -0.3, 0.3);
    random_quat(r, d.local_orientation);
  }
  return d;
}
static double bounding_radius(const clt_shape_def_t *d) {
  double lp = norm3(d->local_position);
  switch (d->type) {
    case CLT_SHAPE_SPHERE: return lp + d->radius;
    case CLT_SHAPE_CAPSULE: return lp + d->radius + 0.5 * d->length;
    case CLT_SHAPE_BOX: return lp + norm3(d->half_extents);
    case CLT_SHAPE_ELLIPSOID: return lp + fmax(fmax(d->semi_axes[0], d->semi_axes[1]), d->semi_axes[2]);
    default: return 1.0;
  }
}

#define TOUCH_TOL 1e-7

static int sat_not_deepest; /* box–box overlaps whose deepest incident point was clipped away */
static int face_for_edge;   /* box–box poses whose face manifold stands in for a slightly better edge pair */

static void run_pair(clt_shape_type_t ta, clt_shape_type_t tb, int poses, uint64_t seed, const char *name) {
  rng_t rng = {seed};
  pair_stats_t st;
  stats_init(&st, name);
  const double big = 1e3;
  bool plane = ta == CLT_SHAPE_HALFSPACE || tb == CLT_SHAPE_HALFSPACE;
  bool boxbox = ta == CLT_SHAPE_BOX && tb == CLT_SHAPE_BOX;
  bool single = !plane && !boxbox && !(ta == CLT_SHAPE_CAPSULE && tb == CLT_SHAPE_BOX) &&
                !(ta == CLT_SHAPE_BOX && tb == CLT_SHAPE_CAPSULE);
  int printed = 0;
  double max_attained = 0.0, max_beaten = 0.0;
  for (int pi = 0; pi < poses; pi++) {
    clt_shape_def_t da = random_shape(&rng, ta), db = random_shape(&rng, tb);
    clt_collide_pose_t pa, pb;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    for (int k = 0; k < 3; k++) pa.position[k] = rng_uniform(&rng, -1, 1);
    random_quat(&rng, pa.orientation);
    random_quat(&rng, pb.orientation);
    double dir[3];
    do {
      for (int k = 0; k < 3; k++) dir[k] = rng_uniform(&rng, -1, 1);
    } while (norm3(dir) > 1 || norm3(dir) < 0.1);
    double dl = norm3(dir), reach = bounding_radius(&da) + bounding_radius(&db);
    double dist = rng_uniform(&rng, 0, 1.2 * reach);
    for (int k = 0; k < 3; k++) pb.position[k] = pa.position[k] + dist * dir[k] / dl;

    clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS];
    int n = clt_collide(&da, &pa, &db, &pb, big, c, CLT_MAX_PAIR_CONTACTS);
    if (pi % 3 == 1 && n > 0) { /* shift B by −Φ along the deepest point's normal: touching */
      int k = 0;
      for (int i = 1; i < n; i++)
        if (c[i].distance < c[k].distance) k = i;
      for (int m = 0; m < 3; m++) pb.position[m] -= c[k].distance * c[k].normal[m];
      n = clt_collide(&da, &pa, &db, &pb, big, c, CLT_MAX_PAIR_CONTACTS);
    }
    ref3_t ra, rb;
    ref3_make(&da, &pa, &ra);
    ref3_make(&db, &pb, &rb);
    st.poses++;
    st.contacts += n;
    CHECK(n >= 1);
    if (n < 1) {
      { clt_placed_shape_t sa, sb; double ax[3]; clt_place_shape(&da, &pa, 3, &sa); clt_place_shape(&db, &pb, 3, &sb); ref3_t xa, xb; ref3_make(&da, &pa, &xa); ref3_make(&db, &pb, &xb);
      fprintf(stderr, "%s pose %d: no point, sat %g ref %g\n", name, pi, clt_box_box_separation(&sa, &sb, ax), ref3_signed_distance(&xa, &xb, NULL)); }
      continue;
    }
    double min_phi = INFINITY;
    int deepest = 0;
    for (int i = 0; i < n; i++) {
      const clt_contact_point_t *k = &c[i];
      if (k->distance < min_phi) min_phi = k->distance, deepest = i;
      fmax_track(&st.normal_error, fabs(norm3(k->normal) - 1));
      if (fabs(norm3(k->normal) - 1) > 1e-9) fprintf(stderr, "%s pose %d: |n| = %g feature %d phi %g\n", name, pi, norm3(k->normal), k->feature, k->distance);
      double id[3];
      for (int m = 0; m < 3; m++) id[m] = k->point_b[m] - k->point_a[m] - k->distance * k->normal[m];
      bool edge_edge = boxbox && k->feature >= 12 * 64;
      if (!edge_edge) fmax_track(&st.identity_error, norm3(id));
      if (ta != CLT_SHAPE_HALFSPACE) fmax_track(&st.surface_error, witness3(&ra, k->point_a, k->normal, 1.0));
      else fmax_track(&st.surface_error, fabs(ref3_signed_point(&ra, k->point_a)));
      if (tb != CLT_SHAPE_HALFSPACE) fmax_track(&st.surface_error, witness3(&rb, k->point_b, k->normal, -1.0));
      else fmax_track(&st.surface_error, fabs(ref3_signed_point(&rb, k->point_b)));
      double nn[3];
      if (single && ref3_normal(&ra, k->point_a, nn)) {
        double d[3] = {k->normal[0] - nn[0], k->normal[1] - nn[1], k->normal[2] - nn[2]};
        fmax_track(&st.normal_error, norm3(d));
      }
      if (single && ref3_normal(&rb, k->point_b, nn)) {
        double d[3] = {k->normal[0] + nn[0], k->normal[1] + nn[1], k->normal[2] + nn[2]};
        fmax_track(&st.normal_error, norm3(d));
      }
      if (single) {
        double d[3], x[3];
        for (int m = 0; m < 3; m++) d[m] = k->point_b[m] - k->point_a[m];
        double l = norm3(d);
        if (l > 1e-6) {
          x[0] = d[1] * k->normal[2] - d[2] * k->normal[1];
          x[1] = d[2] * k->normal[0] - d[0] * k->normal[2];
          x[2] = d[0] * k->normal[1] - d[1] * k->normal[0];
          fmax_track(&st.parallel_error, norm3(x) / l);
        }
      }
      if (plane) { /* each point's Φ: height of its (cap-centre-less-radius / corner) point */
        const ref3_t *h = ta == CLT_SHAPE_HALFSPACE ? &ra : &rb;
        const double *q = ta == CLT_SHAPE_HALFSPACE ? k->point_b : k->point_a;
        fmax_track(&st.distance_error, fabs(ref3_signed_point(h, q) - k->distance));
      }
    }
    if (boxbox) CHECK(n <= 5); /* a manifold of 4 and the exact pair when the manifold misses it */
    if (ta == CLT_SHAPE_BOX && tb == CLT_SHAPE_HALFSPACE) CHECK(n <= 4);

    double phi_ref, claimed = min_phi;
    const double *hint = c[deepest].normal;
    if (plane) {
      const ref3_t *s = ta == CLT_SHAPE_HALFSPACE ? &rb : &ra, *h = ta == CLT_SHAPE_HALFSPACE ? &ra : &rb;
      double mN[3] = {-h->N[0], -h->N[1], -h->N[2]};
      phi_ref = -ref3_support(s, mN) - dot3(h->P, h->N);
      fmax_track(&st.distance_error, fabs(min_phi - phi_ref));
    } else {
      double axis[3];
      if (boxbox) { /* the separating-axis value is the claim; Φ of the points follows from it */
        clt_placed_shape_t sa, sb;
        clt_place_shape(&da, &pa, 3, &sa);
        clt_place_shape(&db, &pb, 3, &sb);
        claimed = clt_box_box_separation(&sa, &sb, axis);
        hint = axis;
      }
      phi_ref = ref3_signed_distance(&ra, &rb, hint);
      if (!single && !boxbox) {
        /* capsule–box: points for the end-cap spheres and the deepest axis point. Apart, the
         * smallest Φ is the distance; in overlap each sub-sphere is shallower than the capsule
         * (a subset), so min Φ ∈ [Φ_ref, 0). */
        if (phi_ref > TOUCH_TOL) {
          /* Apart: the support-function value is a lower bound (pattern search on a kinked g stops
           * a few 1e-9 short); the exact distance is the minimum over the axis of the point–box
           * distance (convex), found here by golden section on this file's box distance. */
          double lo = 0, hi = 1, gr = 0.6180339887498949, x1 = hi - gr, x2 = gr, y[3], f1, f2;
          for (int m = 0; m < 3; m++) y[m] = ra.p0[m] + x1 * (ra.p1[m] - ra.p0[m]);
          f1 = ref3_signed_point(&rb, y);
          for (int m = 0; m < 3; m++) y[m] = ra.p0[m] + x2 * (ra.p1[m] - ra.p0[m]);
          f2 = ref3_signed_point(&rb, y);
          for (int it = 0; it < 100; it++) {
            if (f1 <= f2) {
              hi = x2, x2 = x1, f2 = f1, x1 = hi - gr * (hi - lo);
              for (int m = 0; m < 3; m++) y[m] = ra.p0[m] + x1 * (ra.p1[m] - ra.p0[m]);
              f1 = ref3_signed_point(&rb, y);
            } else {
              lo = x1, x1 = x2, f1 = f2, x2 = lo + gr * (hi - lo);
              for (int m = 0; m < 3; m++) y[m] = ra.p0[m] + x2 * (ra.p1[m] - ra.p0[m]);
              f2 = ref3_signed_point(&rb, y);
            }
          }
          double ends[2] = {ref3_signed_point(&rb, ra.p0), ref3_signed_point(&rb, ra.p1)};
          double exact = fmin(fmin(f1, f2), fmin(ends[0], ends[1])) - ra.r;
          fmax_track(&st.distance_error, fabs(min_phi - exact));
          CHECK(phi_ref <= min_phi + 1e-9);
        } else {
          CHECK(min_phi <= TOUCH_TOL);
          CHECK(min_phi >= phi_ref - 1e-9);
        }
        if (phi_ref > TOUCH_TOL) st.separated++;
        else if (phi_ref < -TOUCH_TOL) st.overlapping++;
        else st.touching++;
        continue;
      }
      /* Apart, boxes can be farther than their separating-axis value (corner–edge pairs): there
       * the SAT value is only a lower bound. */
      double attained = fabs(g3(&ra, &rb, hint) - claimed), beaten = phi_ref - claimed;
      if (boxbox && phi_ref > TOUCH_TOL) {
        CHECK(claimed <= phi_ref + 1e-9);
        beaten = 0.0;
      }
      max_attained = fmax(max_attained, attained);
      max_beaten = fmax(max_beaten, beaten);
      fmax_track(&st.distance_error, fmax(attained, fabs(beaten)));
      if ((attained > 1e-8 || fabs(beaten) > 1e-8) && printed++ < 5)
        fprintf(stderr, "%s pose %d: claimed %.12g g(n) %.12g ref %.12g\n", name, pi, claimed, g3(&ra, &rb, hint), phi_ref);
      if (boxbox) {
        /* No point deeper than the SAT depth, but for the face preference (src/collision/convex_pairs.c:
         * a face within 1e-3 of the size plus 5 % of the edge pair's value stands in for it). */
        double scale = 2.0 * fmax(fmax(fmax(da.half_extents[0], da.half_extents[1]), da.half_extents[2]),
                                  fmax(fmax(db.half_extents[0], db.half_extents[1]), db.half_extents[2]));
        double window = 1e-3 * scale + 0.06 * fabs(claimed);
        CHECK(min_phi >= claimed - window - 1e-9);
        if (min_phi < claimed - 1e-9) face_for_edge++;
        if (phi_ref > TOUCH_TOL) CHECK(min_phi >= phi_ref - 1e-9); /* nor below the distance apart */
        if (phi_ref < -TOUCH_TOL && min_phi > claimed + 1e-9) sat_not_deepest++;
      }
    }
    if (phi_ref > TOUCH_TOL) st.separated++;
    else if (phi_ref < -TOUCH_TOL) st.overlapping++;
    else st.touching++;
    if (phi_ref < -TOUCH_TOL) { /* the infeasibility report's query: max_distance = 0 sees it */
      clt_contact_point_t c0[CLT_MAX_PAIR_CONTACTS];
      int n0 = clt_collide(&da, &pa, &db, &pb, 0.0, c0, CLT_MAX_PAIR_CONTACTS);
      double m0 = INFINITY;
      for (int i = 0; i < n0; i++) m0 = fmin(m0, c0[i].distance);
      CHECK(n0 >= 1 && m0 < 0.0);
      if (!(n0 >= 1 && m0 < 0.0)) fprintf(stderr, "%s pose %d: overlap %g not seen with max_distance 0\n", name, pi, phi_ref);
    }

    /* Sampled surface point pairs (separated single-point pairs, every 20th pose). */
    if (single && phi_ref > TOUCH_TOL && pi % 20 == 0) {
      static double qa[2600][3], qb[2600][3];
      double ha, hb;
      int ma = ref3_samples(&ra, 500, qa, &ha), mb = ref3_samples(&rb, 500, qb, &hb);
      double best = INFINITY;
      for (int i = 0; i < ma; i++)
        for (int j = 0; j < mb; j++) {
          double d[3] = {qa[i][0] - qb[j][0], qa[i][1] - qb[j][1], qa[i][2] - qb[j][2]};
          best = fmin(best, dot3(d, d));
        }
      double gap = sqrt(best) - min_phi;
      fmax_track(&st.sampled_gap, gap);
      if (gap < st.sampled_gap_min) st.sampled_gap_min = gap;
      CHECK(gap >= -1e-9);
      CHECK_LE(gap, ha + hb);
    }
  }
  stats_print(&st);
  printf("%-22s   max |g(n) - Phi| %.2e, max (best sampled g - Phi) %.2e\n", "", max_attained, max_beaten);
  CHECK_LE(st.distance_error, 1e-8);
  CHECK_LE(st.surface_error, 1e-9);
  CHECK_LE(st.identity_error, 1e-9);
  CHECK_LE(st.normal_error, 1e-7);
  CHECK_LE(st.parallel_error, 1e-7);
  CHECK(st.separated > poses / 20 && st.touching > poses / 20 && st.overlapping > poses / 20);
}



#endif
