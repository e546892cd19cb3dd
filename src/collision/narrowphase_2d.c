/* 2D narrow phase for disks, segments and convex polygons, and their half-plane pairs
 * (SPEC.md §5). All three are "rounded convex polygons": a core of 1 (disk), 2 (segment) or n ≥ 3
 * (polygon) vertices swept by a radius (disk, segment) or not (polygon). Contacts are vertex–
 * feature pairs (004 §1.1): each core vertex of one shape against the closest feature (vertex or
 * edge) of the other's core, minus the radii. Each such Φ is the signed distance from a vertex to a
 * convex set, which is continuous and differentiable away from medial axes; for separated convex
 * shapes the smallest of them is the exact distance (in 2D the closest pair always involves a
 * vertex). A point of a rounded shape (segment radius r) stands for the disk of radius r about its
 * core vertex: p_A lies on that disk's boundary, which is on the shape's surface wherever the
 * normal is in the vertex's normal cone (always for the closest pair) and inside the shape
 * otherwise; keeping such points (a capsule lying on the ground has both end caps) costs nothing
 * and each is a valid non-penetration constraint. */
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

/* Separation of the two cores along unit axis u (from A to B): min over B of u·x − max over A. */
static double core_separation(const clt_round_core_t *a, const clt_round_core_t *b, const double u[2], int *a_support) {
  double max_a = -INFINITY, min_b = INFINITY;
  for (int i = 0; i < a->count; i++) {
    double s = clt_c2_dot(a->v[i], u);
    if (s > max_a) {
      max_a = s;
      *a_support = i;
    }
  }
  for (int i = 0; i < b->count; i++) {
    double s = clt_c2_dot(b->v[i], u);
    if (s < min_b) min_b = s;
  }
  return min_b - max_a;
}

int clt_collide_round_round_2d(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double max_distance,
                               clt_contact_point_t *out) {
  clt_round_core_t a, b;
  clt_round_core_make(sa, &a);
  clt_round_core_make(sb, &b);
  double radii = a.radius + b.radius;
  int count = 0;

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

  /* vertex_vertex[i] = j when vertex i of A found vertex j of B as its closest feature, so the
   * same vertex pair is not reported a second time from B's side. */
  int vertex_vertex[CLT_MAX_POLYGON_VERTICES];
  bool any_negative = false;
  if (b.count >= 2) {
    for (int i = 0; i < a.count; i++) {
      double c[2], m[2];
      int feature;
      vertex_vertex[i] = -1;
      double core_distance = point_core_distance(&b, a.v[i], c, m, &feature);
      /* A disk whose centre is inside a polygon: its signed distance minus the radius is no longer
       * the penetration depth, so take the exact shared-normal point (continuous at the switch:
       * both give −r with the centre on the boundary). */
      if (a.count == 1 && core_distance < 0.0) return clt_collide_convex_2d(sa, sb, max_distance, out);
      double phi = core_distance - radii;
      if (feature < CORE_EDGE_FEATURE) vertex_vertex[i] = feature;
      if (phi > max_distance) continue;
      double n[2] = {-m[0], -m[1]}, pa[2], pb[2];
      clt_c2_axpy(pa, a.v[i], a.radius, n);
      clt_c2_axpy(pb, c, -b.radius, n);
      set_point(&out[count++], phi, n, pa, pb, i * 128 + feature);
      any_negative = any_negative || phi < 0.0;
    }
  }
  if (a.count >= 2) {
    for (int j = 0; j < b.count; j++) {
      double c[2], m[2];
      int feature;
      double core_distance = point_core_distance(&a, b.v[j], c, m, &feature);
      if (b.count == 1 && core_distance < 0.0) return clt_collide_convex_2d(sa, sb, max_distance, out);
      double phi = core_distance - radii;
      if (phi > max_distance) continue;
      if (b.count >= 2 && feature < CORE_EDGE_FEATURE && vertex_vertex[feature] == j) continue;
      double pa[2], pb[2];
      clt_c2_axpy(pa, c, a.radius, m);
      clt_c2_axpy(pb, b.v[j], -b.radius, m);
      set_point(&out[count++], phi, m, pa, pb, 4096 + j * 128 + feature);
      any_negative = any_negative || phi < 0.0;
    }
  }

  /* Crossing cores with no vertex of either inside the other (two crossing segments, a plus-sign
   * of rectangles): no vertex–feature pair sees the overlap, so add the separating-axis contact
   * along the axis of least penetration. It only arises from deep overlap, never from a
   * trajectory that approaches from outside. */
  if (!any_negative && a.count >= 2 && b.count >= 2) {
    double best = -INFINITY, axis[2] = {1.0, 0.0};
    int support = 0;
    for (int side = 0; side < 2; side++) {
      const clt_round_core_t *s = side == 0 ? &a : &b;
      int edges = s->count == 2 ? 1 : s->count;
      for (int i = 0; i < edges; i++) {
        for (int sign = -1; sign <= 1; sign += 2) {
          if (s->count >= 3 && sign != (side == 0 ? 1 : -1)) continue; /* polygons: outward only */
          double u[2] = {sign * s->normal[i][0], sign * s->normal[i][1]};
          int sup = 0;
          double sep = core_separation(&a, &b, u, &sup);
          if (sep > best) {
            best = sep;
            axis[0] = u[0];
            axis[1] = u[1];
            support = sup;
          }
        }
      }
    }
    double scale = 0.0;
    for (int i = 0; i < a.count; i++) scale = fmax(scale, fabs(a.v[i][0]) + fabs(a.v[i][1]));
    for (int i = 0; i < b.count; i++) scale = fmax(scale, fabs(b.v[i][0]) + fabs(b.v[i][1]));
    if (best < -1e-12 * scale) { /* not for mere touching, which the vertex points already cover */
      double phi = best - radii;
      if (phi <= max_distance) {
        double pa[2], pb[2];
        clt_c2_axpy(pa, a.v[support], a.radius, axis);
        clt_c2_axpy(pb, pa, phi, axis);
        set_point(&out[count++], phi, axis, pa, pb, 8192);
      }
    }
  }
  return count;
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
