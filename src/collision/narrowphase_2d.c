/* 2D narrow phase for disks, segments and convex polygons, and their half-plane pairs
 * (SPEC.md §5). All three are "rounded convex polygons": a core of 1 (disk), 2 (segment) or n ≥ 3
 * (polygon) vertices swept by a radius (disk, segment) or not (polygon).
 *  - A disk against any core: its centre against the closest feature of the other core, minus the
 *    radii (one point; the exact shared-normal point once the centre is inside a polygon).
 *  - Two segments or polygons: a reference-edge manifold (collide_cores below). Vertex–feature
 *    pairs taken one vertex at a time are not enough there: when corners sit on corners the
 *    closest feature of a vertex is a vertex, and the normal is whatever direction round-off
 *    gives; and when two boxes slide into each other with level tops every vertex lies on the
 *    other's boundary, so no vertex sees the overlap.
 *  - A half-plane: one point per core vertex (segment end cap, polygon corner) within range. */
#include <math.h>
#include <string.h>

#include "collision/collision_math.h"
#include "collision/narrowphase_pairs.h"

#include "collision/round_core_2d.h"

#define CORE_EDGE_FEATURE 64 /* feature code of edge i is CORE_EDGE_FEATURE + i, vertex i is i */

void clt_round_core_make(const clt_placed_shape_t *s, clt_round_core_t *core) {
  const clt_shape_def_t *d = s->def;
  double c = s->cos_angle, sn = s->sin_angle;
  double local[CLT_MAX_POLYGON_VERTICES][2];
  int count;
  if (d->type == CLT_SHAPE_DISK) {
    local[0][0] = local[0][1] = 0.0;
    count = 1;
    core->radius = d->radius;
  } else if (d->type == CLT_SHAPE_SEGMENT) {
    local[0][0] = d->a[0];
    local[0][1] = d->a[1];
    local[1][0] = d->b[0];
    local[1][1] = d->b[1];
    count = 2;
    core->radius = d->radius;
  } else { /* polygon */
    count = d->vertex_count;
    if (count > CLT_MAX_POLYGON_VERTICES) count = CLT_MAX_POLYGON_VERTICES;
    for (int i = 0; i < count; i++) {
      local[i][0] = d->vertices[i][0];
      local[i][1] = d->vertices[i][1];
    }
    core->radius = 0.0;
  }
  core->count = count;
  for (int i = 0; i < count; i++) {
    double w[2];
    clt_c2_rot(w, c, sn, local[i]);
    core->v[i][0] = s->position[0] + w[0];
    core->v[i][1] = s->position[1] + w[1];
  }
  if (count >= 2) {
    for (int i = 0; i < count; i++) {
      const double *p = core->v[i], *q = core->v[(i + 1) % count];
      double dx = q[0] - p[0], dy = q[1] - p[1];
      double len = hypot(dx, dy);
      if (len > 0.0) {
        core->normal[i][0] = dy / len; /* right of the direction: outward for counter-clockwise */
        core->normal[i][1] = -dx / len;
      } else {
        core->normal[i][0] = 1.0;
        core->normal[i][1] = 0.0;
      }
    }
  }
}

/* Signed distance from point p to the core (count ≥ 2), negative inside a polygon; the closest
 * boundary point, the core's outward normal there (pointing from the core towards p when outside)
 * and the feature code of the closest feature. */
static double point_core_distance(const clt_round_core_t *core, const double p[2], double closest[2],
                                  double normal[2], int *feature) {
  int n = core->count;
  if (n >= 3) {
    int best = 0;
    double best_sep = -INFINITY;
    for (int i = 0; i < n; i++) {
      double d[2];
      clt_c2_sub(d, p, core->v[i]);
      double sep = clt_c2_dot(d, core->normal[i]);
      if (sep > best_sep) {
        best_sep = sep;
        best = i;
      }
    }
    if (best_sep <= 0.0) { /* inside: the nearest edge line is the nearest boundary */
      clt_c2_axpy(closest, p, -best_sep, core->normal[best]);
      normal[0] = core->normal[best][0];
      normal[1] = core->normal[best][1];
      *feature = CORE_EDGE_FEATURE + best;
      return best_sep;
    }
  }
  int edges = (n == 2) ? 1 : n; /* a segment's two edges share one line */
  double best_d2 = INFINITY;
  for (int i = 0; i < edges; i++) {
    const double *a = core->v[i], *b = core->v[(i + 1) % n];
    double ab[2], ap[2];
    clt_c2_sub(ab, b, a);
    clt_c2_sub(ap, p, a);
    double len2 = clt_c2_dot(ab, ab);
    double t = len2 > 0.0 ? clt_c_clamp(clt_c2_dot(ap, ab) / len2, 0.0, 1.0) : 0.0;
    double q[2], dq[2];
    clt_c2_axpy(q, a, t, ab);
    clt_c2_sub(dq, p, q);
    double d2 = clt_c2_dot(dq, dq);
    if (d2 < best_d2) {
      best_d2 = d2;
      closest[0] = q[0];
      closest[1] = q[1];
      *feature = (t <= 0.0) ? i : (t >= 1.0 ? (i + 1) % n : CORE_EDGE_FEATURE + i);
      double dist = sqrt(d2);
      if (dist > 0.0) {
        normal[0] = dq[0] / dist;
        normal[1] = dq[1] / dist;
      } else { /* on the boundary (or on a segment): the edge's own normal */
        normal[0] = core->normal[i][0];
        normal[1] = core->normal[i][1];
      }
    }
  }
  return sqrt(best_d2);
}

static void set_point(clt_contact_point_t *c, double phi, const double n[2], const double pa[2],
                      const double pb[2], int feature) {
  c->distance = phi;
  c->normal[0] = n[0];
  c->normal[1] = n[1];
  c->normal[2] = 0.0;
  c->point_a[0] = pa[0];
  c->point_a[1] = pa[1];
  c->point_a[2] = 0.0;
  c->point_b[0] = pb[0];
  c->point_b[1] = pb[1];
  c->point_b[2] = 0.0;
  c->feature = feature;
}

/* Largest separation of core `other` from the edge lines of core `ref` (count ≥ 2): over ref's
 * edges i, min over other's vertices of n_i·(w − v_i). The edge that attains it is *edge. For
 * convex cores the larger of the two cores' values is their signed distance when it is ≤ 0 (the
 * penetration depth: the Minkowski difference of two polygons has only their edge normals). */
static double max_edge_separation(const clt_round_core_t *ref, const clt_round_core_t *other, int *edge) {
  double best = -INFINITY;
  *edge = 0;
  for (int i = 0; i < ref->count; i++) {
    double sep = INFINITY;
    for (int j = 0; j < other->count; j++) {
      double d[2];
      clt_c2_sub(d, other->v[j], ref->v[i]);
      sep = fmin(sep, clt_c2_dot(d, ref->normal[i]));
    }
    if (sep > best) {
      best = sep;
      *edge = i;
    }
  }
  return best;
}

/* The closest pair of two separated cores (count ≥ 2 each): each core vertex against the other
 * core. Returns the distance; *vertex_vertex says whether it joins a vertex to a vertex, and
 * point_a, point_b are the closest points with `normal` from A to B. */
static double closest_core_pair(const clt_round_core_t *a, const clt_round_core_t *b, double point_a[2],
                                double point_b[2], double normal[2], bool *vertex_vertex) {
  double best = INFINITY;
  for (int side = 0; side < 2; side++) {
    const clt_round_core_t *from = side == 0 ? a : b, *to = side == 0 ? b : a;
    for (int i = 0; i < from->count; i++) {
      double c[2], m[2];
      int feature;
      double d = point_core_distance(to, from->v[i], c, m, &feature);
      if (!(d < best)) continue;
      best = d;
      *vertex_vertex = feature < CORE_EDGE_FEATURE;
      double sign = side == 0 ? -1.0 : 1.0; /* m points from `to` towards the vertex */
      normal[0] = sign * m[0];
      normal[1] = sign * m[1];
      const double *pa = side == 0 ? from->v[i] : c, *pb = side == 0 ? c : from->v[i];
      point_a[0] = pa[0], point_a[1] = pa[1];
      point_b[0] = pb[0], point_b[1] = pb[1];
    }
  }
  return best;
}

/* One contact at the closest pair of two separated cores (points on the cores, normal A to B). */
static int single_point(const clt_round_core_t *a, const clt_round_core_t *b, double distance, const double core_a[2],
                        const double core_b[2], const double n[2], double max_distance, clt_contact_point_t *out) {
  double phi = distance - a->radius - b->radius;
  if (phi > max_distance) return 0;
  double pa[2], pb[2];
  clt_c2_axpy(pa, core_a, a->radius, n);
  clt_c2_axpy(pb, core_b, -b->radius, n);
  set_point(&out[0], phi, n, pa, pb, 8192);
  return 1;
}

/* Segments and polygons against each other: a reference-edge manifold (Box2D's b2ClipPolygons is
 * the model). The reference edge is the edge of either core whose line separates the other core
 * the most (its separation is the signed distance whenever the cores overlap or touch); the
 * incident edge is the other core's edge most anti-parallel to it, clipped to the reference
 * edge's extent. Each kept point is a point of the incident core against the reference edge, with
 * the reference normal: so corner on corner, shared edges and parallel faces get the face normal
 * and two points, never a normal that round-off picks. Cores apart whose closest features are two
 * vertices get that single pair instead (a corner passing a corner), with its exact distance. */
static int collide_cores(const clt_round_core_t *a, const clt_round_core_t *b, double max_distance,
                         clt_contact_point_t *out) {
  double radii = a->radius + b->radius;
  int edge_a, edge_b;
  double sep_a = max_edge_separation(a, b, &edge_a), sep_b = max_edge_separation(b, a, &edge_b);
  double scale = 0.0;
  for (int i = 0; i < a->count; i++) scale = fmax(scale, fabs(a->v[i][0] - a->v[0][0]) + fabs(a->v[i][1] - a->v[0][1]));
  for (int i = 0; i < b->count; i++) scale = fmax(scale, fabs(b->v[i][0] - b->v[0][0]) + fabs(b->v[i][1] - b->v[0][1]));
  double tie = 1e-10 * scale; /* round-off of a separation: prefer A's edge within it */
  bool flip = sep_b > sep_a + tie;
  double sep = flip ? sep_b : sep_a;
  if (sep - radii > max_distance) return 0; /* the edge separation never exceeds the distance */

  /* Apart: the closest pair, used when it joins a corner to a corner off the reference edge's
   * normal, or when the incident edge lies beside the reference edge. */
  double closest_a[2] = {0.0, 0.0}, closest_b[2] = {0.0, 0.0}, closest_n[2] = {0.0, 0.0}, closest = -INFINITY;
  if (sep > tie) {
    bool vertex_vertex = false;
    closest = closest_core_pair(a, b, closest_a, closest_b, closest_n, &vertex_vertex);
    if (vertex_vertex && closest > sep + tie) return single_point(a, b, closest, closest_a, closest_b, closest_n, max_distance, out);
  }

  const clt_round_core_t *ref = flip ? b : a, *inc = flip ? a : b;
  int e = flip ? edge_b : edge_a;
  const double *v1 = ref->v[e], *v2 = ref->v[(e + 1) % ref->count], *m = ref->normal[e];
  int k = 0; /* incident edge: the most anti-parallel */
  double most = INFINITY;
  for (int j = 0; j < inc->count; j++) {
    double dot = clt_c2_dot(inc->normal[j], m);
    if (dot < most) {
      most = dot;
      k = j;
    }
  }
  /* Clip the incident edge w1 → w2 to the slab t·v1 ≤ t·x ≤ t·v2 of the reference edge. */
  double t[2], len;
  clt_c2_sub(t, v2, v1);
  len = clt_c2_norm(t);
  t[0] /= len, t[1] /= len;
  double p[2][2], lo = clt_c2_dot(t, v1), hi = clt_c2_dot(t, v2);
  int tag[2] = {k, (k + 1) % inc->count}; /* incident vertex index, or 64 + end of the reference edge */
  p[0][0] = inc->v[tag[0]][0], p[0][1] = inc->v[tag[0]][1];
  p[1][0] = inc->v[tag[1]][0], p[1][1] = inc->v[tag[1]][1];
  int kept = 2;
  for (int side = 0; side < 2 && kept == 2; side++) {
    double bound = side == 0 ? lo : hi, sign = side == 0 ? 1.0 : -1.0; /* keep sign·(t·x − bound) ≥ 0 */
    double d0 = sign * (clt_c2_dot(t, p[0]) - bound), d1 = sign * (clt_c2_dot(t, p[1]) - bound);
    if (d0 < -tie && d1 < -tie) { /* beside the reference edge: only a corner can touch */
      if (closest > -INFINITY) return single_point(a, b, closest, closest_a, closest_b, closest_n, max_distance, out);
      double h0 = clt_c2_dot(p[0], m), h1 = clt_c2_dot(p[1], m);
      if (h1 < h0) p[0][0] = p[1][0], p[0][1] = p[1][1], tag[0] = tag[1];
      kept = 1;
      break;
    }
    d0 = d0 > -tie ? fmax(d0, 0.0) : d0; /* an end on the slab's boundary to round-off is on it */
    d1 = d1 > -tie ? fmax(d1, 0.0) : d1;
    if (d0 >= 0.0 && d1 >= 0.0) continue;
    int out_i = d0 < 0.0 ? 0 : 1;
    double f = d0 / (d0 - d1);
    double q[2] = {p[0][0] + f * (p[1][0] - p[0][0]), p[0][1] + f * (p[1][1] - p[0][1])};
    p[out_i][0] = q[0], p[out_i][1] = q[1];
    tag[out_i] = 64 + side;
  }
  /* n from A to B: the reference normal, or its opposite when the reference edge is B's. */
  double n[2] = {flip ? -m[0] : m[0], flip ? -m[1] : m[1]};
  int count = 0;
  if (kept == 2 && fabs(clt_c2_dot(t, p[1]) - clt_c2_dot(t, p[0])) <= tie) kept = 1; /* clipped to a point */
  for (int i = 0; i < kept; i++) {
    double d[2];
    clt_c2_sub(d, p[i], v1);
    double s = clt_c2_dot(d, m); /* the incident point's height over the reference edge */
    double phi = s - radii;
    if (phi > max_distance) continue;
    double foot[2], pa[2], pb[2];
    clt_c2_axpy(foot, p[i], -s, m);
    const double *core_a = flip ? p[i] : foot, *core_b = flip ? foot : p[i];
    clt_c2_axpy(pa, core_a, a->radius, n);
    clt_c2_axpy(pb, core_b, -b->radius, n);
    set_point(&out[count++], phi, n, pa, pb, (flip ? 4096 : 0) + e * 128 + tag[i]);
  }
  return count;
}

int clt_collide_round_round_2d(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double max_distance,
                               clt_contact_point_t *out) {
  clt_round_core_t a, b;
  clt_round_core_make(sa, &a);
  clt_round_core_make(sb, &b);
  if (a.count >= 2 && b.count >= 2) return collide_cores(&a, &b, max_distance, out);
  double radii = a.radius + b.radius;

  if (a.count == 1 && b.count == 1) { /* disk–disk */
    double d[2];
    clt_c2_sub(d, b.v[0], a.v[0]);
    double len = clt_c2_norm(d);
    double n[2] = {1.0, 0.0}; /* coincident centres: any direction is a minimizer */
    if (len > 0.0) {
      n[0] = d[0] / len;
      n[1] = d[1] / len;
    }
    double phi = len - radii;
    if (phi > max_distance) return 0;
    double pa[2], pb[2];
    clt_c2_axpy(pa, a.v[0], a.radius, n);
    clt_c2_axpy(pb, b.v[0], -b.radius, n);
    set_point(&out[0], phi, n, pa, pb, 0);
    return 1;
  }

  /* A disk against a segment or polygon: its centre against the closest feature of the other
   * core. A centre inside a polygon is no longer a distance minus the radius, so the exact
   * shared-normal point is taken there (continuous at the switch: both give −r with the centre on
   * the boundary). */
  const clt_round_core_t *disk = a.count == 1 ? &a : &b, *core = a.count == 1 ? &b : &a;
  double c[2], m[2];
  int feature;
  double core_distance = point_core_distance(core, disk->v[0], c, m, &feature);
  if (core_distance < 0.0) return clt_collide_convex_2d(sa, sb, max_distance, out);
  double phi = core_distance - radii;
  if (phi > max_distance) return 0;
  double n[2] = {a.count == 1 ? -m[0] : m[0], a.count == 1 ? -m[1] : m[1]}; /* from A to B */
  const double *ca = a.count == 1 ? disk->v[0] : c, *cb = a.count == 1 ? c : disk->v[0];
  double pa[2], pb[2];
  clt_c2_axpy(pa, ca, a.radius, n);
  clt_c2_axpy(pb, cb, -b.radius, n);
  set_point(&out[0], phi, n, pa, pb, a.count == 1 ? feature : 4096 + feature);
  return 1;
}

/* World point and outward unit normal of a half-plane. */
static void halfplane_world(const clt_placed_shape_t *s, double point[2], double normal[2]) {
  double lp[2] = {s->def->point[0], s->def->point[1]}, ln[2] = {s->def->normal[0], s->def->normal[1]};
  double w[2];
  clt_c2_rot(w, s->cos_angle, s->sin_angle, lp);
  point[0] = s->position[0] + w[0];
  point[1] = s->position[1] + w[1];
  clt_c2_rot(normal, s->cos_angle, s->sin_angle, ln);
  double len = clt_c2_norm(normal);
  if (len > 0.0) {
    normal[0] /= len;
    normal[1] /= len;
  } else {
    normal[0] = 0.0;
    normal[1] = 1.0;
  }
}

int clt_collide_round_halfplane_2d(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                   double max_distance, clt_contact_point_t *out) {
  clt_round_core_t a;
  clt_round_core_make(sa, &a);
  double p[2], m[2];
  halfplane_world(sb, p, m);
  double n[2] = {-m[0], -m[1]}; /* from the shape into the wall */
  int count = 0;
  for (int i = 0; i < a.count; i++) { /* one point per core vertex (segment end cap, polygon corner) */
    double d[2];
    clt_c2_sub(d, a.v[i], p);
    double height = clt_c2_dot(d, m);
    double phi = height - a.radius;
    if (phi > max_distance) continue;
    double pa[2], pb[2];
    clt_c2_axpy(pa, a.v[i], a.radius, n);
    clt_c2_axpy(pb, a.v[i], -height, m);
    set_point(&out[count++], phi, n, pa, pb, i);
  }
  return count;
}
