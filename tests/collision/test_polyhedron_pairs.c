/* Polyhedron pairs through clt_collide (src/collision/convex_pairs.c, docs/shapes.md): a convex
 * polyhedron against a polyhedron, a box, a sphere, a capsule and a half-space, on thousands of
 * random poses (apart, touching, overlapping) and on exactly aligned ones (face on face, edge on
 * edge, vertex on face, a tilted face resting on a corner).
 *
 * The reference is brute force over every feature pair, independent of src/collision: apart, the
 * smallest of the vertex–face, vertex–edge and edge–edge distances of the two cores; overlapping,
 * the largest separation over every face normal and every edge–edge cross product (the
 * separating-axis theorem: exactly minus the penetration depth); minus the radii. The smallest Φ
 * returned must equal it to 1e-9 of the size; every point has p_B − p_A = Φ n with n unit and its
 * witness points on the two surfaces; both argument orders agree; a sample of separated poses is
 * checked against 4·10⁴ pairs of sampled surface points (none closer than Φ). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "collision/narrowphase.h"
#include "math/vec.h"
#include "test_util.h"

typedef struct rng_t {
  uint64_t s;
} rng_t;
static uint64_t rng_next(rng_t *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double uni(rng_t *r, double lo, double hi) { return lo + (hi - lo) * (double)(rng_next(r) >> 11) / 9007199254740992.0; }

static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void sub(double o[3], const double a[3], const double b[3]) {
  for (int k = 0; k < 3; k++) o[k] = a[k] - b[k];
}
static void cross(double o[3], const double a[3], const double b[3]) {
  double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  memcpy(o, t, sizeof t);
}
static double norm(const double a[3]) { return sqrt(dot(a, a)); }

/* ---- the reference's own polytopes (world frame) ---- */
typedef struct ref_t {
  int nv, nf, ne;
  double v[64][3];
  double fn[64][3], fd[64];
  int face[64][16], face_n[64];
  int edge[128][2];
  double radius;
} ref_t;

static void rotate(const double q[4], const double a[3], double o[3]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double m[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  for (int i = 0; i < 3; i++) o[i] = m[i][0] * a[0] + m[i][1] * a[1] + m[i][2] * a[2];
}

static void place(const clt_collide_pose_t *p, const double l[3], double o[3]) {
  rotate(p->orientation, l, o);
  for (int k = 0; k < 3; k++) o[k] += p->position[k];
}

static void ref_edges_from_faces(ref_t *r) {
  r->ne = 0;
  for (int f = 0; f < r->nf; f++)
    for (int k = 0; k < r->face_n[f]; k++) {
      int i = r->face[f][k], j = r->face[f][(k + 1) % r->face_n[f]];
      if (i < j) {
        r->edge[r->ne][0] = i;
        r->edge[r->ne][1] = j;
        r->ne++;
      }
    }
}

static void ref_from_shape(const clt_shape_def_t *d, const clt_collide_pose_t *p, ref_t *r) {
  memset(r, 0, sizeof *r);
  if (d->type == CLT_SHAPE_SPHERE) {
    r->nv = 1;
    memcpy(r->v[0], p->position, sizeof r->v[0]);
    r->radius = d->radius;
    return;
  }
  if (d->type == CLT_SHAPE_CAPSULE) {
    double e0[3] = {0, 0, -0.5 * d->length}, e1[3] = {0, 0, 0.5 * d->length};
    place(p, e0, r->v[0]);
    place(p, e1, r->v[1]);
    r->nv = 2;
    r->ne = 1;
    r->edge[0][0] = 0;
    r->edge[0][1] = 1;
    r->radius = d->radius;
    return;
  }
  if (d->type == CLT_SHAPE_BOX) {
    static const int faces[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3}, {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
    const double *e = d->half_extents;
    r->nv = 8;
    for (int i = 0; i < 8; i++) {
      double l[3] = {(i & 1) ? e[0] : -e[0], (i & 2) ? e[1] : -e[1], (i & 4) ? e[2] : -e[2]};
      place(p, l, r->v[i]);
    }
    r->nf = 6;
    for (int f = 0; f < 6; f++) {
      r->face_n[f] = 4;
      memcpy(r->face[f], faces[f], sizeof faces[f]);
    }
  } else { /* polyhedron, through the public accessors */
    r->nv = clt_convex_vertex_count(d->convex);
    const double(*v)[3] = clt_convex_vertices(d->convex);
    for (int i = 0; i < r->nv; i++) place(p, v[i], r->v[i]);
    r->nf = clt_convex_face_count(d->convex);
    for (int f = 0; f < r->nf; f++) {
      const int *idx;
      r->face_n[f] = clt_convex_face(d->convex, f, &idx);
      memcpy(r->face[f], idx, (size_t)r->face_n[f] * sizeof(int));
    }
  }
  for (int f = 0; f < r->nf; f++) { /* plane from the first three vertices (faces are convex) */
    double a[3], b[3], n[3];
    sub(a, r->v[r->face[f][1]], r->v[r->face[f][0]]);
    sub(b, r->v[r->face[f][2]], r->v[r->face[f][0]]);
    cross(n, a, b);
    double l = norm(n);
    for (int k = 0; k < 3; k++) r->fn[f][k] = n[k] / l;
    r->fd[f] = dot(r->fn[f], r->v[r->face[f][0]]);
  }
  ref_edges_from_faces(r);
}

/* Distance between segments by ternary search on the convex distance function (nested). */
static double point_segment(const double x[3], const double a[3], const double b[3]) {
  double d[3], r[3];
  sub(d, b, a);
  sub(r, x, a);
  double t = dot(d, d) > 0 ? dot(r, d) / dot(d, d) : 0.0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  double c[3] = {a[0] + t * d[0] - x[0], a[1] + t * d[1] - x[1], a[2] + t * d[2] - x[2]};
  return norm(c);
}

static double segment_segment(const double a0[3], const double a1[3], const double b0[3], const double b1[3]) {
  /* exact: the minimum is at an endpoint pair, or interior to both where the common perpendicular meets */
  double best = fmin(fmin(point_segment(a0, b0, b1), point_segment(a1, b0, b1)),
                     fmin(point_segment(b0, a0, a1), point_segment(b1, a0, a1)));
  double da[3], db[3], r[3], m[3];
  sub(da, a1, a0);
  sub(db, b1, b0);
  sub(r, a0, b0);
  cross(m, da, db);
  double mm = dot(m, m);
  if (mm > 1e-20 * dot(da, da) * dot(db, db)) {
    double a = dot(da, da), b = dot(da, db), c = dot(da, r), e = dot(db, db), f = dot(db, r);
    double den = a * e - b * b, s = (b * f - c * e) / den, t = (a * f - b * c) / den;
    if (s > 0 && s < 1 && t > 0 && t < 1) {
      double p[3], q[3], d[3];
      for (int k = 0; k < 3; k++) {
        p[k] = a0[k] + s * da[k];
        q[k] = b0[k] + t * db[k];
      }
      sub(d, p, q);
      best = fmin(best, norm(d));
    }
  }
  return best;
}

/* Distance from x to face f of r (the plane distance where x projects inside, else the edges). */
static double point_face(const double x[3], const ref_t *r, int f) {
  double h = dot(r->fn[f], x) - r->fd[f], p[3];
  for (int k = 0; k < 3; k++) p[k] = x[k] - h * r->fn[f][k];
  bool inside = true;
  for (int k = 0; k < r->face_n[f]; k++) {
    double e[3], q[3], c[3];
    sub(e, r->v[r->face[f][(k + 1) % r->face_n[f]]], r->v[r->face[f][k]]);
    sub(q, p, r->v[r->face[f][k]]);
    cross(c, e, q);
    if (dot(c, r->fn[f]) < 0) inside = false;
  }
  if (inside) return fabs(h);
  double best = INFINITY;
  for (int k = 0; k < r->face_n[f]; k++)
    best = fmin(best, point_segment(x, r->v[r->face[f][k]], r->v[r->face[f][(k + 1) % r->face_n[f]]]));
  return best;
}

static double min_proj(const ref_t *r, const double n[3]) {
  double m = INFINITY;
  for (int i = 0; i < r->nv; i++) m = fmin(m, dot(n, r->v[i]));
  return m;
}
static double max_proj(const ref_t *r, const double n[3]) {
  double m = -INFINITY;
  for (int i = 0; i < r->nv; i++) m = fmax(m, dot(n, r->v[i]));
  return m;
}

/* The signed distance of the two shapes, by brute force. */
static double ref_signed_distance(const ref_t *a, const ref_t *b) {
  /* overlap test and depth: every candidate axis */
  double sep = -INFINITY;
  for (int s = 0; s < 2; s++) {
    const ref_t *p = s == 0 ? a : b, *q = s == 0 ? b : a;
    for (int f = 0; f < p->nf; f++) sep = fmax(sep, min_proj(q, p->fn[f]) - p->fd[f]);
  }
  for (int i = 0; i < a->ne; i++)
    for (int j = 0; j < b->ne; j++) {
      double da[3], db[3], n[3];
      sub(da, a->v[a->edge[i][1]], a->v[a->edge[i][0]]);
      sub(db, b->v[b->edge[j][1]], b->v[b->edge[j][0]]);
      cross(n, da, db);
      double l = norm(n);
      if (l < 1e-9 * norm(da) * norm(db)) continue;
      for (int k = 0; k < 3; k++) n[k] /= l;
      double s1 = min_proj(b, n) - max_proj(a, n), n2[3] = {-n[0], -n[1], -n[2]};
      double s2 = min_proj(b, n2) - max_proj(a, n2);
      sep = fmax(sep, fmax(s1, s2));
    }
  if (a->nf == 0 && b->nf == 0) sep = 1.0; /* not used here */
  double radii = a->radius + b->radius;
  if (sep <= 0.0) return sep - radii;
  double best = INFINITY;
  for (int s = 0; s < 2; s++) {
    const ref_t *p = s == 0 ? a : b, *q = s == 0 ? b : a;
    for (int i = 0; i < q->nv; i++) {
      for (int f = 0; f < p->nf; f++) best = fmin(best, point_face(q->v[i], p, f));
      for (int e = 0; e < p->ne; e++) best = fmin(best, point_segment(q->v[i], p->v[p->edge[e][0]], p->v[p->edge[e][1]]));
      for (int j = 0; j < p->nv; j++) {
        double d[3];
        sub(d, q->v[i], p->v[j]);
        best = fmin(best, norm(d));
      }
    }
  }
  for (int i = 0; i < a->ne; i++)
    for (int j = 0; j < b->ne; j++)
      best = fmin(best, segment_segment(a->v[a->edge[i][0]], a->v[a->edge[i][1]], b->v[b->edge[j][0]], b->v[b->edge[j][1]]));
  return best - radii;
}

/* How far x is off the surface of r (0 on it). */
static double surface_error(const ref_t *r, const double x[3]) {
  if (r->nf == 0) {
    double d = r->nv == 1 ? point_segment(x, r->v[0], r->v[0]) : point_segment(x, r->v[0], r->v[1]);
    return fabs(d - r->radius);
  }
  double m = -INFINITY;
  for (int f = 0; f < r->nf; f++) m = fmax(m, dot(r->fn[f], x) - r->fd[f]);
  return fabs(m);
}

static void random_quat(rng_t *r, double q[4]) {
  double n = 0;
  do {
    for (int k = 0; k < 4; k++) q[k] = uni(r, -1, 1);
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  } while (n < 0.1 || n > 1);
  for (int k = 0; k < 4; k++) q[k] /= n;
}

static clt_convex_t *random_hull(rng_t *r, int points, double size) {
  double p[64][3];
  for (int i = 0; i < points; i++)
    for (int k = 0; k < 3; k++) p[i][k] = uni(r, -0.5, 0.5) * size * (k == 2 ? 0.7 : 1.0);
  clt_convex_t *c = NULL;
  char msg[256];
  CHECK(clt_convex_from_points((const double(*)[3])p, points, &c, msg, sizeof msg) == CLT_OK);
  return c;
}

typedef struct stats_t {
  const char *name;
  int poses, apart, overlap;
  double phi_err, consistency, surface, swap, sampled;
  int face_for_edge;
} stats_t;

static void check_pose(stats_t *st, const clt_shape_def_t *da, const clt_collide_pose_t *pa,
                       const clt_shape_def_t *db, const clt_collide_pose_t *pb, double size, bool sample, rng_t *rng) {
  ref_t ra, rb;
  ref_from_shape(da, pa, &ra);
  ref_from_shape(db, pb, &rb);
  double expect = ref_signed_distance(&ra, &rb);
  clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS], s[CLT_MAX_PAIR_CONTACTS];
  int n = clt_collide(da, pa, db, pb, 1e3, c, CLT_MAX_PAIR_CONTACTS);
  int m = clt_collide(db, pb, da, pa, 1e3, s, CLT_MAX_PAIR_CONTACTS);
  CHECK(n >= 1 && m >= 1 && n <= 5);
  if (!(n >= 1 && m >= 1 && n <= 5)) printf("n=%d m=%d expect=%g types %d %d\n", n, m, expect, da->type, db->type);
  if (n < 1 || m < 1) return;
  st->poses++;
  if (expect > 0) st->apart++;
  else st->overlap++;
  /* The exact pair is among the points (the one nearest the reference); the others are face-manifold
   * points, each the height of a pair of surface points along its normal: never below the exact
   * signed distance by more than the face preference allows (1e-3 of the size plus 6 %). */
  double nearest = INFINITY, nearest_s = INFINITY, best = INFINITY;
  int bi = 0;
  for (int i = 0; i < n; i++) {
    if (fabs(c[i].distance - expect) < nearest) {
      nearest = fabs(c[i].distance - expect);
      bi = i;
    }
    best = fmin(best, c[i].distance);
    double d[3];
    sub(d, c[i].point_b, c[i].point_a);
    for (int k = 0; k < 3; k++) d[k] -= c[i].distance * c[i].normal[k];
    st->consistency = fmax(st->consistency, fmax(norm(d), fabs(norm(c[i].normal) - 1.0)) / size);
    CHECK(c[i].distance >= expect - 1e-3 * size - 0.06 * fabs(expect) - 1e-9 * size);
  }
  if (best < expect - 1e-9 * size) st->face_for_edge++;
  for (int i = 0; i < m; i++) nearest_s = fmin(nearest_s, fabs(s[i].distance - expect));
  st->phi_err = fmax(st->phi_err, nearest / size);
  st->swap = fmax(st->swap, nearest_s / size);
  /* The exact pair's witnesses lie on both surfaces (the manifold's points of a capsule or sphere
   * lie on the sphere about their core point, as the capsule's other pairs do). */
  st->surface = fmax(st->surface, fmax(surface_error(&ra, c[bi].point_a), surface_error(&rb, c[bi].point_b)) / size);
  if (sample && expect > 0) {
    /* 200 × 200 random surface points (on random faces' random convex combinations / spheres) */
    double pa_s[200][3], pb_s[200][3];
    for (int side = 0; side < 2; side++) {
      const ref_t *r = side == 0 ? &ra : &rb;
      double(*out)[3] = side == 0 ? pa_s : pb_s;
      for (int i = 0; i < 200; i++) {
        if (r->nf > 0) {
          int f = (int)(rng_next(rng) % (uint64_t)r->nf), k = r->face_n[f];
          double w[16], tot = 0;
          for (int j = 0; j < k; j++) tot += (w[j] = uni(rng, 0, 1) * uni(rng, 0, 1));
          for (int q = 0; q < 3; q++) {
            out[i][q] = 0;
            for (int j = 0; j < k; j++) out[i][q] += w[j] / tot * r->v[r->face[f][j]][q];
          }
        } else {
          double t = r->nv == 2 ? uni(rng, 0, 1) : 0.0, u[3];
          do {
            for (int q = 0; q < 3; q++) u[q] = uni(rng, -1, 1);
          } while (norm(u) > 1 || norm(u) < 0.1);
          double l = norm(u);
          for (int q = 0; q < 3; q++)
            out[i][q] = r->v[0][q] + t * (r->v[r->nv - 1][q] - r->v[0][q]) + r->radius * u[q] / l;
        }
      }
    }
    double closest = INFINITY;
    for (int i = 0; i < 200; i++)
      for (int j = 0; j < 200; j++) {
        double d[3];
        sub(d, pb_s[j], pa_s[i]);
        closest = fmin(closest, norm(d));
      }
    st->sampled = fmax(st->sampled, (expect - closest) / size); /* ≤ 0: no sampled pair is closer */
  }
}

static void report(const stats_t *st, int expected) {
  printf("%-22s poses %5d (apart %4d, overlapping %4d): |Phi - ref| %.2e, p_B - p_A - Phi n %.2e, "
         "witness off surface %.2e, orders %.2e, sampled closer by %.2e (of the size); a face manifold "
         "deeper than the edge pair's exact value in %d\n",
         st->name, st->poses, st->apart, st->overlap, st->phi_err, st->consistency, st->surface, st->swap,
         st->sampled, st->face_for_edge);
  CHECK(st->poses == expected);
  CHECK_LE(st->phi_err, 1e-9);
  CHECK_LE(st->consistency, 1e-12);
  CHECK_LE(st->surface, 1e-9);
  CHECK_LE(st->swap, 1e-9);
  CHECK_LE(st->sampled, 1e-12);
}

static clt_shape_def_t poly_def(const clt_convex_t *c) {
  clt_shape_def_t d = clt_default_shape_def(CLT_SHAPE_POLYHEDRON);
  d.convex = c;
  return d;
}

static void random_pairs(const char *name, clt_shape_type_t other, int count, rng_t *rng) {
  stats_t st = {name, 0, 0, 0, 0, 0, 0, 0, -INFINITY, 0};
  for (int i = 0; i < count; i++) {
    double size = 1.0;
    clt_convex_t *ca = random_hull(rng, 6 + (int)(rng_next(rng) % 14), size), *cb = NULL;
    clt_shape_def_t da = poly_def(ca), db = clt_default_shape_def(other);
    switch (other) {
      case CLT_SHAPE_POLYHEDRON:
        cb = random_hull(rng, 6 + (int)(rng_next(rng) % 14), size);
        db.convex = cb;
        break;
      case CLT_SHAPE_BOX:
        for (int k = 0; k < 3; k++) db.half_extents[k] = uni(rng, 0.1, 0.5);
        break;
      case CLT_SHAPE_SPHERE: db.radius = uni(rng, 0.05, 0.4); break;
      default:
        db.radius = uni(rng, 0.05, 0.3);
        db.length = uni(rng, 0.0, 0.8);
        break;
    }
    clt_collide_pose_t pa = {{0, 0, 0}, 0, {1, 0, 0, 0}}, pb = pa;
    random_quat(rng, pa.orientation);
    random_quat(rng, pb.orientation);
    double dir[3];
    do {
      for (int k = 0; k < 3; k++) dir[k] = uni(rng, -1, 1);
    } while (norm(dir) > 1 || norm(dir) < 0.1);
    double dist = uni(rng, 0.0, 1.2), l = norm(dir);
    for (int k = 0; k < 3; k++) {
      pa.position[k] = uni(rng, -3, 3);
      pb.position[k] = pa.position[k] + dist * dir[k] / l;
    }
    check_pose(&st, &da, &pa, &db, &pb, size, i % 50 == 0, rng);
    clt_convex_release(ca);
    clt_convex_release(cb);
  }
  report(&st, count);
}

/* Exactly aligned configurations of two unit cubes (as 8-vertex polyhedra) and a cube with a box. */
static void aligned(rng_t *rng) {
  static const double cube[8][3] = {{-.5, -.5, -.5}, {.5, -.5, -.5}, {-.5, .5, -.5}, {.5, .5, -.5},
                                    {-.5, -.5, .5},  {.5, -.5, .5},  {-.5, .5, .5},  {.5, .5, .5}};
  clt_convex_t *c = NULL;
  CHECK(clt_convex_from_points(cube, 8, &c, NULL, 0) == CLT_OK);
  CHECK(clt_convex_vertex_count(c) == 8 && clt_convex_face_count(c) == 6 && clt_convex_edge_count(c) == 12);
  clt_shape_def_t d = poly_def(c), box = clt_default_shape_def(CLT_SHAPE_BOX);
  stats_t st = {"aligned cubes", 0, 0, 0, 0, 0, 0, 0, -INFINITY, 0};
  const double s2 = sqrt(0.5);
  for (int gap_i = 0; gap_i < 3; gap_i++) {
    double gap = gap_i == 0 ? 0.0 : gap_i == 1 ? 0.01 : -0.01;
    /* face on face, offset sideways */
    clt_collide_pose_t pa = {{0, 0, 0}, 0, {1, 0, 0, 0}}, pb = {{0.3, -0.2, 1.0 + gap}, 0, {1, 0, 0, 0}};
    check_pose(&st, &d, &pa, &d, &pb, 1.0, true, rng);
    check_pose(&st, &d, &pa, &box, &pb, 1.0, true, rng);
    clt_contact_point_t out[CLT_MAX_PAIR_CONTACTS];
    int n = clt_collide(&d, &pa, &d, &pb, 0.1, out, CLT_MAX_PAIR_CONTACTS);
    CHECK(n == 4); /* the overlap square's corners */
    for (int i = 0; i < n; i++) CHECK_NEAR(out[i].distance, gap, 1e-12);
    /* edge on edge: both turned 45° about perpendicular axes */
    clt_collide_pose_t qa = {{0, 0, 0}, 0, {cos(CLT_PI / 8), sin(CLT_PI / 8), 0, 0}};
    clt_collide_pose_t qb = {{0, 0, 2 * s2 + gap}, 0, {cos(CLT_PI / 8), 0, sin(CLT_PI / 8), 0}};
    check_pose(&st, &d, &qa, &d, &qb, 1.0, true, rng);
    n = clt_collide(&d, &qa, &d, &qb, 0.1, out, CLT_MAX_PAIR_CONTACTS);
    CHECK(n == 1);
    if (n == 1) CHECK_NEAR(out[0].distance, gap, 1e-12);
    /* vertex on face: B stands on a corner (its body diagonal vertical) */
    double axis[3] = {1, -1, 0}, ang = acos(1 / sqrt(3.0)), l = norm(axis);
    clt_collide_pose_t va = {{0, 0, 0}, 0, {1, 0, 0, 0}};
    clt_collide_pose_t vb = {{0.1, 0.05, 0.5 + sqrt(3.0) / 2 + gap}, 0,
                             {cos(ang / 2), sin(ang / 2) * axis[0] / l, sin(ang / 2) * axis[1] / l, 0}};
    check_pose(&st, &d, &va, &d, &vb, 1.0, true, rng);
  }
  report(&st, 12);
  clt_convex_release(c);
}

static void halfspace(rng_t *rng) {
  stats_t st = {"polyhedron-halfspace", 0, 0, 0, 0, 0, 0, 0, -INFINITY, 0};
  for (int i = 0; i < 1000; i++) {
    clt_convex_t *c = random_hull(rng, 6 + i % 14, 1.0);
    clt_shape_def_t d = poly_def(c), h = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
    clt_collide_pose_t pa = {{uni(rng, -1, 1), uni(rng, -1, 1), uni(rng, -0.6, 0.6)}, 0, {1, 0, 0, 0}};
    clt_collide_pose_t ph = {{0, 0, 0}, 0, {1, 0, 0, 0}};
    random_quat(rng, pa.orientation);
    random_quat(rng, ph.orientation);
    ref_t r;
    ref_from_shape(&d, &pa, &r);
    double m[3], z[3] = {0, 0, 1};
    rotate(ph.orientation, z, m);
    double expect = min_proj(&r, m);
    clt_contact_point_t out[CLT_MAX_PAIR_CONTACTS];
    int n = clt_collide(&d, &pa, &h, &ph, 10.0, out, CLT_MAX_PAIR_CONTACTS);
    CHECK(n >= 1 && n <= 4);
    double best = INFINITY;
    for (int k = 0; k < n; k++) {
      best = fmin(best, out[k].distance);
      st.surface = fmax(st.surface, surface_error(&r, out[k].point_a));
      st.surface = fmax(st.surface, fabs(dot(m, out[k].point_b)));
    }
    st.poses++;
    if (expect > 0) st.apart++;
    else st.overlap++;
    st.phi_err = fmax(st.phi_err, fabs(best - expect));
    clt_convex_release(c);
  }
  report(&st, 1000);
}

int main(void) {
  rng_t rng = {12345};
  random_pairs("polyhedron-polyhedron", CLT_SHAPE_POLYHEDRON, 2000, &rng);
  random_pairs("polyhedron-box", CLT_SHAPE_BOX, 1500, &rng);
  random_pairs("polyhedron-sphere", CLT_SHAPE_SPHERE, 1500, &rng);
  random_pairs("polyhedron-capsule", CLT_SHAPE_CAPSULE, 1500, &rng);
  halfspace(&rng);
  aligned(&rng);
  return clt_test_finish();
}
