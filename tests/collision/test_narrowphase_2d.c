/* 2D narrow phase (src/collision/narrowphase_2d.c, ellipse_2d.c) against brute force on random
 * poses (fixed seeds), separated, touching and overlapping:
 *  - signed distance: max over 1024 sampled normal angles (refined by golden section) of the
 *    support-function separation g(u) = −h_A(u) − h_B(−u), exact for convex shapes in both signs
 *    (the distance apart, minus the penetration depth when overlapping); for separated poses also
 *    the minimum over pairs of sampled boundary points;
 *  - witness points on their surfaces, p_B − p_A = Φ n, |n| = 1, and for smooth pairs n equal to
 *    the outward normal of A at p_A and minus that of B at p_B;
 *  - segment and polygon pairs (reference-edge manifolds): the smallest Φ equal to the signed
 *    distance apart and in overlap, no Φ below it, at most two points;
 *  - exactly aligned poses (corner on corner, edge on edge, face on face, a row of boxes sliding
 *    into each other): the face normal to round-off, two-point manifolds, the overlap seen. */
#include <math.h>
#include <stdlib.h>

#include "collision/narrowphase.h"
#include "collide_ref.h"
#include "test_util.h"

/* ---- shapes placed in the world, built directly from the def and body pose ---- */
typedef struct ref_shape_t {
  const clt_shape_def_t *def;
  double c[2], cs, sn;               /* world position and rotation of the shape frame */
  double v[CLT_MAX_POLYGON_VERTICES][2]; /* world core vertices (segment: 2, polygon: n) */
  int n;
  double r;                          /* disk / segment radius */
  double P[2], N[2];                 /* half-plane */
} ref_shape_t;

static void ref_make(const clt_shape_def_t *d, const clt_collide_pose_t *pose, ref_shape_t *s) {
  memset(s, 0, sizeof *s);
  s->def = d;
  double cb = cos(pose->angle), sb = sin(pose->angle);
  s->c[0] = pose->position[0] + cb * d->local_position[0] - sb * d->local_position[1];
  s->c[1] = pose->position[1] + sb * d->local_position[0] + cb * d->local_position[1];
  double ang = pose->angle + d->local_angle;
  s->cs = cos(ang);
  s->sn = sin(ang);
#define TO_WORLD(out, x, y)                         \
  do {                                              \
    (out)[0] = s->c[0] + s->cs * (x) - s->sn * (y); \
    (out)[1] = s->c[1] + s->sn * (x) + s->cs * (y); \
  } while (0)
  if (d->type == CLT_SHAPE_SEGMENT) {
    TO_WORLD(s->v[0], d->a[0], d->a[1]);
    TO_WORLD(s->v[1], d->b[0], d->b[1]);
    s->n = 2;
    s->r = d->radius;
  } else if (d->type == CLT_SHAPE_POLYGON) {
    s->n = d->vertex_count;
    for (int i = 0; i < s->n; i++) TO_WORLD(s->v[i], d->vertices[i][0], d->vertices[i][1]);
  } else if (d->type == CLT_SHAPE_DISK) {
    s->r = d->radius;
  } else if (d->type == CLT_SHAPE_HALFPLANE) {
    TO_WORLD(s->P, d->point[0], d->point[1]);
    double len = hypot(d->normal[0], d->normal[1]);
    s->N[0] = (s->cs * d->normal[0] - s->sn * d->normal[1]) / len;
    s->N[1] = (s->sn * d->normal[0] + s->cs * d->normal[1]) / len;
  }
#undef TO_WORLD
}

/* Support value h(u) = max over the shape of u·x, and the support point. */
static double ref_support(const ref_shape_t *s, const double u[2], double p[2]) {
  const clt_shape_def_t *d = s->def;
  if (d->type == CLT_SHAPE_DISK) {
    p[0] = s->c[0] + s->r * u[0];
    p[1] = s->c[1] + s->r * u[1];
  } else if (d->type == CLT_SHAPE_ELLIPSE) {
    double a = d->semi_axes[0], b = d->semi_axes[1];
    double lx = s->cs * u[0] + s->sn * u[1], ly = -s->sn * u[0] + s->cs * u[1];
    double k = sqrt(a * a * lx * lx + b * b * ly * ly);
    double px = a * a * lx / k, py = b * b * ly / k;
    p[0] = s->c[0] + s->cs * px - s->sn * py;
    p[1] = s->c[1] + s->sn * px + s->cs * py;
  } else {
    int best = 0;
    for (int i = 1; i < s->n; i++)
      if (s->v[i][0] * u[0] + s->v[i][1] * u[1] > s->v[best][0] * u[0] + s->v[best][1] * u[1]) best = i;
    p[0] = s->v[best][0] + s->r * u[0];
    p[1] = s->v[best][1] + s->r * u[1];
  }
  return p[0] * u[0] + p[1] * u[1];
}

static double sep_at(const ref_shape_t *a, const ref_shape_t *b, double phi) {
  double u[2] = {cos(phi), sin(phi)}, mu[2] = {-u[0], -u[1]}, p[2];
  return -ref_support(a, u, p) - ref_support(b, mu, p);
}

/* Signed distance of two convex shapes: max over the normal angle of the separation; every
 * local maximum of a 1024-angle sample near the best is refined by golden section (a polygon's
 * kinks make narrow peaks). */
static double ref_signed_distance(const ref_shape_t *a, const ref_shape_t *b) {
  enum { n = 1024 };
  static double g[n];
  double best = -INFINITY;
  for (int i = 0; i < n; i++) best = fmax(best, g[i] = sep_at(a, b, 2.0 * REF_PI * i / n));
  double result = best;
  for (int k = 0; k < n; k++) {
    if (g[k] < best - 0.05 || g[k] < g[(k + n - 1) % n] || g[k] < g[(k + 1) % n]) continue;
    double lo = 2.0 * REF_PI * (k - 1) / n, hi = 2.0 * REF_PI * (k + 1) / n, r = 0.6180339887498949;
    double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo), g1 = sep_at(a, b, x1), g2 = sep_at(a, b, x2);
    for (int it = 0; it < 120; it++) {
      if (g1 >= g2) {
        hi = x2, x2 = x1, g2 = g1, x1 = hi - r * (hi - lo), g1 = sep_at(a, b, x1);
      } else {
        lo = x1, x1 = x2, g1 = g2, x2 = lo + r * (hi - lo), g2 = sep_at(a, b, x2);
      }
    }
    result = fmax(result, fmax(g1, g2));
  }
  return result;
}

static double point_segment_distance(const double p[2], const double a[2], const double b[2], double q[2]) {
  double ab[2] = {b[0] - a[0], b[1] - a[1]}, ap[2] = {p[0] - a[0], p[1] - a[1]};
  double l2 = ab[0] * ab[0] + ab[1] * ab[1];
  double t = l2 > 0 ? (ap[0] * ab[0] + ap[1] * ab[1]) / l2 : 0.0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  q[0] = a[0] + t * ab[0];
  q[1] = a[1] + t * ab[1];
  return hypot(p[0] - q[0], p[1] - q[1]);
}

/* Exact signed distance from a point to a disk, segment (rounded) or polygon: the smallest
 * distance to any edge, negative when inside. */
static double ref_point_signed_distance(const ref_shape_t *s, const double p[2]) {
  double q[2];
  if (s->def->type == CLT_SHAPE_DISK) return hypot(p[0] - s->c[0], p[1] - s->c[1]) - s->r;
  if (s->def->type == CLT_SHAPE_HALFPLANE) return (p[0] - s->P[0]) * s->N[0] + (p[1] - s->P[1]) * s->N[1];
  if (s->n == 2) return point_segment_distance(p, s->v[0], s->v[1], q) - s->r;
  double d = INFINITY;
  bool inside = true;
  for (int i = 0; i < s->n; i++) {
    const double *a = s->v[i], *b = s->v[(i + 1) % s->n];
    d = fmin(d, point_segment_distance(p, a, b, q));
    if ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) < 0.0) inside = false;
  }
  return inside ? -d : d;
}

/* Distance of p from the surface (0 on it), and the outward unit normal there for smooth shapes
 * (returns false where the surface has no normal: polygon corners, bare segments). */
static double ref_surface_error(const ref_shape_t *s, const double p[2]) {
  if (s->def->type == CLT_SHAPE_ELLIPSE) {
    double a = s->def->semi_axes[0], b = s->def->semi_axes[1];
    double dx = p[0] - s->c[0], dy = p[1] - s->c[1];
    double lx = s->cs * dx + s->sn * dy, ly = -s->sn * dx + s->cs * dy;
    double f = lx * lx / (a * a) + ly * ly / (b * b) - 1.0;
    double gx = 2 * lx / (a * a), gy = 2 * ly / (b * b);
    return fabs(f) / hypot(gx, gy); /* first-order distance */
  }
  return fabs(ref_point_signed_distance(s, p));
}
static bool ref_outward_normal(const ref_shape_t *s, const double p[2], double n[2]) {
  double q[2];
  switch (s->def->type) {
    case CLT_SHAPE_DISK:
      n[0] = p[0] - s->c[0], n[1] = p[1] - s->c[1];
      break;
    case CLT_SHAPE_ELLIPSE: {
      double a = s->def->semi_axes[0], b = s->def->semi_axes[1];
      double dx = p[0] - s->c[0], dy = p[1] - s->c[1];
      double lx = s->cs * dx + s->sn * dy, ly = -s->sn * dx + s->cs * dy;
      double gx = lx / (a * a), gy = ly / (b * b);
      n[0] = s->cs * gx - s->sn * gy, n[1] = s->sn * gx + s->cs * gy;
      break;
    }
    case CLT_SHAPE_SEGMENT:
      if (s->r < 1e-3) return false;
      point_segment_distance(p, s->v[0], s->v[1], q);
      n[0] = p[0] - q[0], n[1] = p[1] - q[1];
      break;
    case CLT_SHAPE_HALFPLANE:
      n[0] = s->N[0], n[1] = s->N[1];
      return true;
    default:
      return false;
  }
  double len = hypot(n[0], n[1]);
  n[0] /= len, n[1] /= len;
  return true;
}

/* Witness check: distance of p from the surface; for a rounded segment's vertex point (multi),
 * alternatively from the boundary of the end disk through p ∓ r n, provided p is inside. */
static double witness_error(const ref_shape_t *s, const double p[2], const double n[3], double sign, bool multi) {
  double e = ref_surface_error(s, p);
  if (!multi || s->def->type != CLT_SHAPE_SEGMENT || e < 1e-12) return e;
  double v[2] = {p[0] - sign * s->r * n[0], p[1] - sign * s->r * n[1]};
  double q[2];
  double on_core = point_segment_distance(v, s->v[0], s->v[1], q);
  bool endpoint = hypot(v[0] - s->v[0][0], v[1] - s->v[0][1]) < 1e-12 || hypot(v[0] - s->v[1][0], v[1] - s->v[1][1]) < 1e-12;
  if (endpoint && on_core < 1e-12 && ref_point_signed_distance(s, p) <= 1e-12) return on_core;
  return e;
}

/* M points along the boundary (arc-length spacing at most *spacing). */
static int ref_boundary(const ref_shape_t *s, int m, double (*pts)[2], double *spacing) {
  const clt_shape_def_t *d = s->def;
  if (d->type == CLT_SHAPE_DISK || d->type == CLT_SHAPE_ELLIPSE) {
    double a = d->type == CLT_SHAPE_DISK ? s->r : d->semi_axes[0], b = d->type == CLT_SHAPE_DISK ? s->r : d->semi_axes[1];
    for (int i = 0; i < m; i++) {
      double t = 2 * REF_PI * i / m, x = a * cos(t), y = b * sin(t);
      pts[i][0] = s->c[0] + s->cs * x - s->sn * y, pts[i][1] = s->c[1] + s->sn * x + s->cs * y;
    }
    *spacing = 2 * REF_PI * fmax(a, b) / m;
    return m;
  }
  /* segment (stadium) or polygon: along each edge offset by r, plus the rounded ends */
  double perimeter = 0.0;
  int n = s->n, edges = n == 2 ? 2 : n;
  for (int i = 0; i < edges; i++) perimeter += hypot(s->v[(i + 1) % n][0] - s->v[i][0], s->v[(i + 1) % n][1] - s->v[i][1]);
  perimeter += 2 * REF_PI * s->r;
  double h = perimeter / m;
  int k = 0;
  for (int i = 0; i < edges && k < m; i++) {
    const double *a = s->v[i], *b = s->v[(i + 1) % n];
    double dx = b[0] - a[0], dy = b[1] - a[1], len = hypot(dx, dy);
    double nx = dy / len, ny = -dx / len; /* outward for the counter-clockwise / a→b, b→a loop */
    int steps = (int)ceil(len / h);
    for (int j = 0; j < steps && k < m; j++, k++) {
      double t = (double)j / steps;
      pts[k][0] = a[0] + t * dx + s->r * nx, pts[k][1] = a[1] + t * dy + s->r * ny;
    }
    if (s->r > 0) { /* arc around b from this edge's normal to the next edge's */
      const double *c = s->v[(i + 2) % n];
      double ex = c[0] - b[0], ey = c[1] - b[1], el = hypot(ex, ey);
      double a0 = atan2(ny, nx), a1 = atan2(-ex / el, ey / el);
      double sweep = a1 - a0;
      while (sweep < 0) sweep += 2 * REF_PI;
      int arc = (int)ceil(sweep * s->r / h);
      for (int j = 0; j < arc && k < m; j++, k++) {
        double t = a0 + sweep * j / arc;
        pts[k][0] = b[0] + s->r * cos(t), pts[k][1] = b[1] + s->r * sin(t);
      }
    }
  }
  *spacing = h;
  return k;
}

/* ---- random shapes ---- */
static clt_shape_def_t blank(clt_shape_type_t t) {
  clt_shape_def_t d;
  memset(&d, 0, sizeof d);
  d.type = t;
  d.local_orientation[0] = 1.0;
  d.material = -1;
  return d;
}
static void random_local_pose(rng_t *r, clt_shape_def_t *d) {
  d->local_position[0] = rng_uniform(r, -0.3, 0.3);
  d->local_position[1] = rng_uniform(r, -0.3, 0.3);
  d->local_angle = rng_uniform(r, -REF_PI, REF_PI);
}
static bool thin_ellipses = false;

static clt_shape_def_t random_shape(rng_t *r, clt_shape_type_t t) {
  clt_shape_def_t d = blank(t);
  switch (t) {
    case CLT_SHAPE_DISK:
      d.radius = rng_uniform(r, 0.2, 1.5);
      break;
    case CLT_SHAPE_ELLIPSE:
      if (thin_ellipses) { /* aspect ratios 5 to 20 */
        d.semi_axes[0] = rng_uniform(r, 1.0, 3.0);
        d.semi_axes[1] = d.semi_axes[0] / rng_uniform(r, 5.0, 20.0);
      } else {
        d.semi_axes[0] = rng_uniform(r, 0.3, 2.0);
        d.semi_axes[1] = rng_uniform(r, 0.3, 2.0);
      }
      break;
    case CLT_SHAPE_SEGMENT:
      d.a[0] = rng_uniform(r, -1.5, -0.2), d.a[1] = rng_uniform(r, -0.5, 0.5);
      d.b[0] = rng_uniform(r, 0.2, 1.5), d.b[1] = rng_uniform(r, -0.5, 0.5);
      d.radius = rng_int(r, 0, 3) == 0 ? 0.0 : rng_uniform(r, 0.05, 0.6);
      break;
    case CLT_SHAPE_POLYGON: {
      int n = rng_int(r, 3, 8);
      if (rng_int(r, 0, 3) == 0) { /* a box */
        double hx = rng_uniform(r, 0.2, 1.5), hy = rng_uniform(r, 0.2, 1.5);
        double v[4][2] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}};
        memcpy(d.vertices, v, sizeof v);
        d.vertex_count = 4;
        break;
      }
      /* sorted angles with a minimum gap keep it strictly convex */
      double ang[8], gap = 0.25, total = 2 * REF_PI - n * gap, acc = 0.0, w[9], ws = 0.0;
      for (int i = 0; i <= n; i++) ws += (w[i] = rng_uniform(r, 0.1, 1.0));
      double start = rng_uniform(r, 0, 2 * REF_PI);
      for (int i = 0; i < n; i++) {
        ang[i] = start + acc;
        acc += gap + total * w[i] / ws;
      }
      double sx = rng_uniform(r, 0.4, 1.5), sy = rng_uniform(r, 0.4, 1.5);
      for (int i = 0; i < n; i++) d.vertices[i][0] = sx * cos(ang[i]), d.vertices[i][1] = sy * sin(ang[i]);
      d.vertex_count = n;
      break;
    }
    case CLT_SHAPE_HALFPLANE: {
      double a = rng_uniform(r, 0, 2 * REF_PI);
      d.point[0] = rng_uniform(r, -0.5, 0.5), d.point[1] = rng_uniform(r, -0.5, 0.5);
      d.normal[0] = 2.0 * cos(a), d.normal[1] = 2.0 * sin(a); /* not unit on purpose */
      break;
    }
    default:
      break;
  }
  if (t != CLT_SHAPE_HALFPLANE) random_local_pose(r, &d);
  return d;
}
static double bounding_radius(const clt_shape_def_t *d) {
  double lp = hypot(d->local_position[0], d->local_position[1]);
  switch (d->type) {
    case CLT_SHAPE_DISK: return lp + d->radius;
    case CLT_SHAPE_ELLIPSE: return lp + fmax(d->semi_axes[0], d->semi_axes[1]);
    case CLT_SHAPE_SEGMENT: return lp + fmax(hypot(d->a[0], d->a[1]), hypot(d->b[0], d->b[1])) + d->radius;
    default: {
      double m = 0;
      for (int i = 0; i < d->vertex_count; i++) m = fmax(m, hypot(d->vertices[i][0], d->vertices[i][1]));
      return lp + m;
    }
  }
}
static bool is_smooth(const ref_shape_t *s) {
  return s->def->type == CLT_SHAPE_DISK || s->def->type == CLT_SHAPE_ELLIPSE || s->def->type == CLT_SHAPE_HALFPLANE;
}
static bool is_round_core(clt_shape_type_t t) {
  return t == CLT_SHAPE_DISK || t == CLT_SHAPE_SEGMENT || t == CLT_SHAPE_POLYGON;
}

#define TOUCH_TOL 1e-7

/* One pair type over `poses` random poses. */
static void run_pair(clt_shape_type_t ta, clt_shape_type_t tb, int poses, uint64_t seed, const char *name) {
  rng_t rng = {seed};
  pair_stats_t st;
  stats_init(&st, name);
  const double big = 1e3;
  int printed = 0;
  bool plane = tb == CLT_SHAPE_HALFPLANE || ta == CLT_SHAPE_HALFPLANE;
  /* vertex–feature families report several points per pair */
  bool cores = is_round_core(ta) && is_round_core(tb) && ta != CLT_SHAPE_DISK && tb != CLT_SHAPE_DISK;
  bool multi = plane || cores;
  for (int pose_i = 0; pose_i < poses; pose_i++) {
    clt_shape_def_t da = random_shape(&rng, ta), db = random_shape(&rng, tb);
    clt_collide_pose_t pa, pb;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    pa.position[0] = rng_uniform(&rng, -1, 1), pa.position[1] = rng_uniform(&rng, -1, 1);
    pa.angle = rng_uniform(&rng, -REF_PI, REF_PI);
    double dir = rng_uniform(&rng, 0, 2 * REF_PI);
    double reach = (ta == CLT_SHAPE_HALFPLANE ? 1.0 : bounding_radius(&da)) + (tb == CLT_SHAPE_HALFPLANE ? 1.0 : bounding_radius(&db));
    double dist = rng_uniform(&rng, 0.0, 1.3 * reach);
    pb.position[0] = pa.position[0] + dist * cos(dir), pb.position[1] = pa.position[1] + dist * sin(dir);
    pb.angle = rng_uniform(&rng, -REF_PI, REF_PI);

    clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS];
    int n = clt_collide(&da, &pa, &db, &pb, big, c, CLT_MAX_PAIR_CONTACTS);
    if (pose_i % 3 == 1 && n > 0) {
      /* Move B along the deepest point's normal by −Φ: a touching (or nearly) pose. */
      int k = 0;
      for (int i = 1; i < n; i++)
        if (c[i].distance < c[k].distance) k = i;
      pb.position[0] -= c[k].distance * c[k].normal[0];
      pb.position[1] -= c[k].distance * c[k].normal[1];
      n = clt_collide(&da, &pa, &db, &pb, big, c, CLT_MAX_PAIR_CONTACTS);
    }
    ref_shape_t ra, rb;
    ref_make(&da, &pa, &ra);
    ref_make(&db, &pb, &rb);
    double phi_ref;
    if (tb == CLT_SHAPE_HALFPLANE || ta == CLT_SHAPE_HALFPLANE) { /* min height over the shape */
      const ref_shape_t *s = ta == CLT_SHAPE_HALFPLANE ? &rb : &ra, *h = ta == CLT_SHAPE_HALFPLANE ? &ra : &rb;
      double mN[2] = {-h->N[0], -h->N[1]}, p[2];
      ref_support(s, mN, p);
      phi_ref = (p[0] - h->P[0]) * h->N[0] + (p[1] - h->P[1]) * h->N[1];
    } else {
      phi_ref = ref_signed_distance(&ra, &rb);
    }
    st.poses++;
    if (phi_ref > TOUCH_TOL) st.separated++;
    else if (phi_ref < -TOUCH_TOL) st.overlapping++;
    else st.touching++;
    st.contacts += n;
    if (phi_ref < -TOUCH_TOL) { /* the infeasibility report's query: max_distance = 0 sees it */
      clt_contact_point_t c0[CLT_MAX_PAIR_CONTACTS];
      int n0 = clt_collide(&da, &pa, &db, &pb, 0.0, c0, CLT_MAX_PAIR_CONTACTS);
      double m0 = INFINITY;
      for (int i = 0; i < n0; i++) m0 = fmin(m0, c0[i].distance);
      CHECK(n0 >= 1 && m0 < 0.0);
    }

    CHECK(n >= 1);
    if (n < 1) continue;
    CHECK(n <= CLT_MAX_PAIR_CONTACTS);
    double min_phi = INFINITY;
    for (int i = 0; i < n; i++) {
      const clt_contact_point_t *k = &c[i];
      min_phi = fmin(min_phi, k->distance);
      double nlen = hypot(k->normal[0], k->normal[1]);
      fmax_track(&st.normal_error, fabs(nlen - 1.0));
      double id = hypot(k->point_b[0] - k->point_a[0] - k->distance * k->normal[0],
                        k->point_b[1] - k->point_a[1] - k->distance * k->normal[1]);
      fmax_track(&st.identity_error, id);
      if (cores) {
        /* Reference-edge manifold: no point deeper than the signed distance; witnesses on the
         * surface of a sharp core (polygon, bare segment), inside or on a rounded one (a point of
         * a rounded incident edge, offset by r along the reference normal). */
        fmax_track(&st.distance_error, fmax(0.0, phi_ref - k->distance - 1e-12));
        fmax_track(&st.surface_error, ra.r > 0.0 ? fmax(0.0, ref_point_signed_distance(&ra, k->point_a))
                                                 : witness_error(&ra, k->point_a, k->normal, 1.0, false));
        fmax_track(&st.surface_error, rb.r > 0.0 ? fmax(0.0, ref_point_signed_distance(&rb, k->point_b))
                                                 : witness_error(&rb, k->point_b, k->normal, -1.0, false));
      } else {
        /* Rounded core vertices (segment ends) stand for their disks: the witness is on the
         * surface, or on the boundary of the end disk and inside the shape. */
        fmax_track(&st.surface_error, witness_error(&ra, k->point_a, k->normal, 1.0, multi));
        fmax_track(&st.surface_error, witness_error(&rb, k->point_b, k->normal, -1.0, multi));
      }
      double na[2], nb[2];
      if (is_smooth(&ra) && ref_outward_normal(&ra, k->point_a, na))
        fmax_track(&st.normal_error, hypot(k->normal[0] - na[0], k->normal[1] - na[1]));
      if (is_smooth(&rb) && ref_outward_normal(&rb, k->point_b, nb))
        fmax_track(&st.normal_error, hypot(k->normal[0] + nb[0], k->normal[1] + nb[1]));
      double dx = k->point_b[0] - k->point_a[0], dy = k->point_b[1] - k->point_a[1], dl = hypot(dx, dy);
      if (!multi && dl > 1e-6) fmax_track(&st.parallel_error, fabs(dx * k->normal[1] - dy * k->normal[0]) / dl);
      if (plane) { /* each point: the height of its vertex (cap, corner, support point) */
        const ref_shape_t *h = ta == CLT_SHAPE_HALFPLANE ? &ra : &rb;
        const double *q = ta == CLT_SHAPE_HALFPLANE ? k->point_b : k->point_a;
        double hq = (q[0] - h->P[0]) * h->N[0] + (q[1] - h->P[1]) * h->N[1];
        fmax_track(&st.distance_error, fabs(hq - k->distance));
      }
    }
    /* The smallest Φ is the signed distance (exact for single points, reference-edge manifolds
     * and planes; for the half-plane's vertex points in overlap only its sign is the contract). */
    double err = fabs(min_phi - phi_ref);
    if (!multi || plane || cores || phi_ref >= -TOUCH_TOL) {
      fmax_track(&st.distance_error, err);
      if (err > 1e-7 && printed++ < 5)
        fprintf(stderr, "%s pose %d: phi %.12g ref %.12g (n = %d) normal %g %g pa %g %g pb %g %g\n", name, pose_i, min_phi, phi_ref, n, c[0].normal[0], c[0].normal[1], c[0].point_a[0], c[0].point_a[1], c[0].point_b[0], c[0].point_b[1]);
    } else {
      CHECK(min_phi < 0.0);
      CHECK(min_phi >= phi_ref - 1e-9); /* no vertex deeper than the penetration depth */
    }
    /* Separated: the minimum over sampled boundary point pairs agrees to the sampling resolution. */
    if (!plane && phi_ref > TOUCH_TOL && pose_i % 8 == 0) {
      static double qa[600][2], qb[600][2];
      double ha, hb;
      int ma = ref_boundary(&ra, 512, qa, &ha), mb = ref_boundary(&rb, 512, qb, &hb);
      double best = INFINITY;
      for (int i = 0; i < ma; i++)
        for (int j = 0; j < mb; j++) {
          double dx = qa[i][0] - qb[j][0], dy = qa[i][1] - qb[j][1];
          best = fmin(best, dx * dx + dy * dy);
        }
      double gap = sqrt(best) - min_phi;
      fmax_track(&st.sampled_gap, gap);
      if (gap < st.sampled_gap_min) st.sampled_gap_min = gap;
      CHECK(gap >= -1e-9);          /* no sampled pair closer than Φ */
      CHECK_LE(gap, 0.5 * (ha + hb) + 1e-9); /* and Φ no farther than the sampling resolution */
    }
  }
  stats_print(&st);
  CHECK_LE(st.distance_error, 1e-8);
  CHECK_LE(st.surface_error, 1e-9);
  CHECK_LE(st.identity_error, 1e-9);
  CHECK_LE(st.normal_error, 1e-7);
  CHECK_LE(st.parallel_error, 1e-7);
  CHECK(st.separated > poses / 10 && st.touching > poses / 10 && st.overlapping > poses / 10);
}

/* Hand-made cases with known answers. */
static void known_cases(void) {
  clt_collide_pose_t pa, pb;
  memset(&pa, 0, sizeof pa);
  memset(&pb, 0, sizeof pb);
  clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS];
  /* A unit square resting on the ground y = 0, 1 mm above: 2 corner points, Φ = 1e-3. */
  clt_shape_def_t box = blank(CLT_SHAPE_POLYGON), ground = blank(CLT_SHAPE_HALFPLANE);
  double v[4][2] = {{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}};
  memcpy(box.vertices, v, sizeof v);
  box.vertex_count = 4;
  ground.normal[1] = 1.0;
  pa.position[1] = 0.501;
  int n = clt_collide(&box, &pa, &ground, &pb, 0.002, c, 8);
  CHECK(n == 2);
  for (int i = 0; i < n; i++) {
    CHECK_NEAR(c[i].distance, 1e-3, 1e-12);
    CHECK_NEAR(c[i].normal[1], -1.0, 1e-15);
  }
  CHECK(clt_collide(&box, &pa, &ground, &pb, 5e-4, c, 8) == 0); /* beyond ε̂ */
  /* Reversed order: normal flips, witness points swap. */
  n = clt_collide(&ground, &pb, &box, &pa, 0.002, c, 8);
  CHECK(n == 2);
  CHECK_NEAR(c[0].normal[1], 1.0, 1e-15);
  CHECK_NEAR(c[0].point_a[1], 0.0, 1e-15);
  CHECK_NEAR(c[0].point_b[1], 1e-3, 1e-12);
  /* Two unit squares stacked with a 1e-4 gap and offset by 0.25, all Φ = 1e-4. */
  memset(&pb, 0, sizeof pb);
  pb.position[0] = 0.25;
  pb.position[1] = 0.501 + 1.0001;
  n = clt_collide(&box, &pa, &box, &pb, 1e-3, c, 16);
  CHECK(n == 2); /* the ends of the overlap: A's corner under B, B's corner over A */
  for (int i = 0; i < n; i++) CHECK_NEAR(c[i].distance, 1e-4, 1e-12);
  /* Capacity keeps the deepest. */
  pb.angle = 1e-3;
  n = clt_collide(&box, &pa, &box, &pb, 1e-2, c, 1);
  CHECK(n == 1);
  /* Ellipse with axes 8 and 4 lying on the ground (000 §6 geometry), rotated by 90°. */
  clt_shape_def_t e = blank(CLT_SHAPE_ELLIPSE);
  e.semi_axes[0] = 8.0;
  e.semi_axes[1] = 4.0;
  memset(&pa, 0, sizeof pa);
  memset(&pb, 0, sizeof pb);
  pa.position[1] = 7.9;
  pa.angle = 0.5 * REF_PI;
  n = clt_collide(&e, &pa, &ground, &pb, 0.3, c, 4);
  CHECK(n == 1);
  CHECK_NEAR(c[0].distance, -0.1, 1e-12);
  CHECK_NEAR(c[0].point_a[0], 0.0, 1e-12);
  /* Two equal ellipses side by side along x with a 0.5 gap. */
  pb.position[0] = 2 * 4.0 + 0.5;
  pb.position[1] = 7.9;
  pb.angle = 0.5 * REF_PI;
  n = clt_collide(&e, &pa, &e, &pb, 1.0, c, 4);
  CHECK(n == 1);
  CHECK_NEAR(c[0].distance, 0.5, 1e-12);
  CHECK_NEAR(c[0].normal[0], 1.0, 1e-12);
  /* Crossing 4 × 0.4 bars (a plus sign): no vertex inside the other, still one overlap point,
   * with the penetration depth 2.2 (move one bar out along its length). */
  clt_shape_def_t bar = blank(CLT_SHAPE_POLYGON);
  double w[4][2] = {{-2, -0.2}, {2, -0.2}, {2, 0.2}, {-2, 0.2}};
  memcpy(bar.vertices, w, sizeof w);
  bar.vertex_count = 4;
  memset(&pa, 0, sizeof pa);
  memset(&pb, 0, sizeof pb);
  pb.angle = 0.5 * REF_PI;
  n = clt_collide(&bar, &pa, &bar, &pb, 0.0, c, 8);
  CHECK(n == 2); /* the vertical bar's end face against the horizontal bar's bottom face */
  for (int i = 0; i < n; i++) CHECK_NEAR(c[i].distance, -2.2, 1e-12);
  /* Unsupported combinations. */
  clt_shape_def_t sphere = blank(CLT_SHAPE_SPHERE);
  sphere.radius = 1;
  CHECK(clt_collide(&box, &pa, &sphere, &pb, 1, c, 4) == -1);
  CHECK(clt_collide(&ground, &pa, &ground, &pb, 1, c, 4) == 0);
}

/* Boxes on a grid of quarter units with angles in quarter turns, the whole scene turned by a
 * common angle: corners on corners, shared edges, faces on faces, exact touching. */
static void aligned_poses(void) {
  rng_t rng = {77};
  const double half[3] = {0.25, 0.5, 1.0};
  double worst_phi = 0.0, worst_normal = 0.0, worst_surface = 0.0;
  int poses = 0, touching = 0, two_point = 0;
  for (int pose_i = 0; pose_i < 4000; pose_i++) {
    clt_shape_def_t da = blank(CLT_SHAPE_POLYGON), db = blank(CLT_SHAPE_POLYGON);
    clt_shape_def_t *d[2] = {&da, &db};
    for (int s = 0; s < 2; s++) {
      double hx = half[rng_int(&rng, 0, 2)], hy = half[rng_int(&rng, 0, 2)];
      double v[4][2] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}};
      memcpy(d[s]->vertices, v, sizeof v);
      d[s]->vertex_count = 4;
    }
    double turn = pose_i % 2 == 0 ? 0.0 : rng_uniform(&rng, -REF_PI, REF_PI), ct = cos(turn), st = sin(turn);
    clt_collide_pose_t pa, pb;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    double xb = 0.25 * rng_int(&rng, -10, 10), yb = 0.25 * rng_int(&rng, -10, 10);
    pa.angle = turn;
    pb.angle = turn + 0.5 * REF_PI * rng_int(&rng, 0, 3);
    pb.position[0] = ct * xb - st * yb;
    pb.position[1] = st * xb + ct * yb;
    clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS];
    int n = clt_collide(&da, &pa, &db, &pb, 0.3, c, CLT_MAX_PAIR_CONTACTS);
    ref_shape_t ra, rb;
    ref_make(&da, &pa, &ra);
    ref_make(&db, &pb, &rb);
    double phi_ref = ref_signed_distance(&ra, &rb);
    if (phi_ref > 0.3 - 1e-9) continue;
    poses++;
    CHECK(n >= 1 && n <= 2);
    if (n < 1) continue;
    touching += fabs(phi_ref) < 1e-12;
    two_point += n == 2;
    double min_phi = INFINITY;
    for (int i = 0; i < n; i++) {
      min_phi = fmin(min_phi, c[i].distance);
      CHECK(c[i].distance >= phi_ref - 1e-12);
      /* the normal is a face normal of the turned frame: ±(cos, sin) or ±(−sin, cos) */
      double along = fabs(c[i].normal[0] * ct + c[i].normal[1] * st), across = fabs(-c[i].normal[0] * st + c[i].normal[1] * ct);
      if (phi_ref <= 1e-12) worst_normal = fmax(worst_normal, fmin(fabs(along - 1.0) + across, fabs(across - 1.0) + along));
      worst_surface = fmax(worst_surface, fmax(fabs(ref_point_signed_distance(&ra, c[i].point_a)), fabs(ref_point_signed_distance(&rb, c[i].point_b))));
    }
    worst_phi = fmax(worst_phi, fabs(min_phi - phi_ref));
  }
  printf("aligned boxes          poses %5d (touching %d, two-point %d) | max |dPhi| %.2e  normal off a face %.2e  surface %.2e\n",
         poses, touching, two_point, worst_phi, worst_normal, worst_surface);
  CHECK(poses > 1000 && touching > 100 && two_point > 100);
  CHECK_LE(worst_phi, 1e-9);
  CHECK_LE(worst_normal, 1e-12);
  CHECK_LE(worst_surface, 1e-12);

  /* Two unit squares stacked exactly (corners on corners): two points at Φ = 0, normal +y. */
  clt_shape_def_t box = blank(CLT_SHAPE_POLYGON);
  double v[4][2] = {{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}};
  memcpy(box.vertices, v, sizeof v);
  box.vertex_count = 4;
  clt_collide_pose_t pa, pb;
  memset(&pa, 0, sizeof pa);
  memset(&pb, 0, sizeof pb);
  pa.position[1] = 0.5;
  pb.position[1] = 1.5;
  clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS];
  int n = clt_collide(&box, &pa, &box, &pb, 1e-3, c, CLT_MAX_PAIR_CONTACTS);
  CHECK(n == 2);
  for (int i = 0; i < n; i++) {
    CHECK(c[i].distance == 0.0 && c[i].normal[0] == 0.0 && c[i].normal[1] == 1.0);
    CHECK(fabs(c[i].point_a[0]) == 0.5 && c[i].point_a[1] == 1.0);
  }
  /* A row of boxes slid 0.68 mm into each other along x, tops level: the overlap is −0.68 mm
   * (every vertex of each lies on the other's boundary, so no vertex sees it). */
  pb.position[0] = 1.0 - 0.68e-3;
  pb.position[1] = 0.5;
  n = clt_collide(&box, &pa, &box, &pb, 1e-3, c, CLT_MAX_PAIR_CONTACTS);
  CHECK(n == 2);
  for (int i = 0; i < n; i++) {
    CHECK_NEAR(c[i].distance, -0.68e-3, 1e-15);
    CHECK(c[i].normal[0] == 1.0 && c[i].normal[1] == 0.0);
  }
  /* Corner on corner along the diagonal, 1 mm apart each way: one point, the corners' distance. */
  pb.position[0] = 1.001;
  pb.position[1] = 1.501;
  n = clt_collide(&box, &pa, &box, &pb, 2e-3, c, CLT_MAX_PAIR_CONTACTS);
  CHECK(n == 1);
  if (n == 1) {
    CHECK_NEAR(c[0].distance, sqrt(2.0) * 1e-3, 1e-15);
    CHECK_NEAR(c[0].normal[0], sqrt(0.5), 1e-12);
  }
  /* A rounded segment lying on a box's top face: two points at its ends, Φ = gap. */
  clt_shape_def_t seg = blank(CLT_SHAPE_SEGMENT);
  seg.a[0] = -0.3, seg.b[0] = 0.3, seg.radius = 0.1;
  pb.position[0] = 0.1;
  pb.position[1] = 1.0 + 0.1 + 2e-4;
  n = clt_collide(&box, &pa, &seg, &pb, 1e-3, c, CLT_MAX_PAIR_CONTACTS);
  CHECK(n == 2);
  for (int i = 0; i < n; i++) {
    CHECK_NEAR(c[i].distance, 2e-4, 1e-14);
    CHECK(c[i].normal[1] == 1.0);
  }
}

int main(void) {
  known_cases();
  aligned_poses();
  const int poses = 2000;
  run_pair(CLT_SHAPE_DISK, CLT_SHAPE_DISK, poses, 11, "disk-disk");
  run_pair(CLT_SHAPE_DISK, CLT_SHAPE_SEGMENT, poses, 12, "disk-segment");
  run_pair(CLT_SHAPE_SEGMENT, CLT_SHAPE_DISK, poses, 13, "segment-disk");
  run_pair(CLT_SHAPE_DISK, CLT_SHAPE_POLYGON, poses, 14, "disk-polygon");
  run_pair(CLT_SHAPE_POLYGON, CLT_SHAPE_DISK, poses, 15, "polygon-disk");
  run_pair(CLT_SHAPE_SEGMENT, CLT_SHAPE_SEGMENT, poses, 16, "segment-segment");
  run_pair(CLT_SHAPE_SEGMENT, CLT_SHAPE_POLYGON, poses, 17, "segment-polygon");
  run_pair(CLT_SHAPE_POLYGON, CLT_SHAPE_POLYGON, poses, 18, "polygon-polygon");
  run_pair(CLT_SHAPE_DISK, CLT_SHAPE_HALFPLANE, poses, 19, "disk-halfplane");
  run_pair(CLT_SHAPE_SEGMENT, CLT_SHAPE_HALFPLANE, poses, 20, "segment-halfplane");
  run_pair(CLT_SHAPE_POLYGON, CLT_SHAPE_HALFPLANE, poses, 21, "polygon-halfplane");
  run_pair(CLT_SHAPE_HALFPLANE, CLT_SHAPE_POLYGON, poses, 22, "halfplane-polygon");
  run_pair(CLT_SHAPE_ELLIPSE, CLT_SHAPE_HALFPLANE, poses, 23, "ellipse-halfplane");
  run_pair(CLT_SHAPE_ELLIPSE, CLT_SHAPE_DISK, poses, 24, "ellipse-disk");
  run_pair(CLT_SHAPE_DISK, CLT_SHAPE_ELLIPSE, poses, 25, "disk-ellipse");
  run_pair(CLT_SHAPE_ELLIPSE, CLT_SHAPE_ELLIPSE, poses, 26, "ellipse-ellipse");
  run_pair(CLT_SHAPE_ELLIPSE, CLT_SHAPE_POLYGON, poses, 27, "ellipse-polygon");
  run_pair(CLT_SHAPE_SEGMENT, CLT_SHAPE_ELLIPSE, poses, 28, "segment-ellipse");
  thin_ellipses = true;
  run_pair(CLT_SHAPE_ELLIPSE, CLT_SHAPE_ELLIPSE, poses, 29, "thin ellipse-ellipse");
  run_pair(CLT_SHAPE_ELLIPSE, CLT_SHAPE_POLYGON, poses / 2, 30, "thin ellipse-polygon");
  return clt_test_finish();
}
