/* A triangle mesh against a sphere, a capsule, a box or a polyhedron (docs/shapes.md "Meshes").
 *
 * The mesh's hierarchy gives the triangles near the other shape (its bounding sphere grown by the
 * contact distance); each triangle is a flat polytope core (its two sides, three edges) against the
 * other core (convex_pairs.c). Triangles are one-sided: a point whose normal comes from behind the
 * triangle is dropped. No snagging on internal edges: a point on an edge that is flat or a valley
 * between two triangles (clt_mesh_t.convex_edge), or on a vertex whose two edges in this triangle are
 * both internal, is dropped — the neighbour's face holds that part of the shape. The points of all
 * triangles are then merged: equal points (a shared vertex) once, and those sharing a normal reduced to
 * 4 like a face manifold. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "collision/convex_core.h"
#include "collision/primitives_3d.h"
#include "geometry/convex.h"
#include "geometry/mesh.h"

enum { GATHER = 256 };

static const int tri_face_start[3] = {0, 3, 6};
static const int tri_face_vertices[6] = {0, 1, 2, 0, 2, 1};
static const int tri_edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};
static const int tri_edge_faces[3][2] = {{0, 1}, {0, 1}, {0, 1}};

typedef struct gather_t {
  const clt_mesh_t *mesh;
  const clt_placed_shape_t *placed; /* the mesh */
  const clt_core_t *other;
  double max_distance, tol;
  clt_contact_point_t points[GATHER];
  int count;
  bool failed;
} gather_t;

static double point_segment2(const double x[3], const double a[3], const double b[3]) {
  double d[3], r[3], c[3];
  clt_v3_sub(d, b, a);
  clt_v3_sub(r, x, a);
  double dd = clt_v3_dot(d, d), t = dd > 0.0 ? clt_c_clamp(clt_v3_dot(r, d) / dd, 0.0, 1.0) : 0.0;
  clt_v3_axpy(c, a, t, d);
  clt_v3_sub(c, x, c);
  return clt_v3_dot(c, c);
}

static bool visit(void *user, int t) {
  gather_t *g = user;
  const clt_mesh_t *m = g->mesh;
  clt_core_t tri;
  memset(&tri, 0, offsetof(clt_core_t, v_inline));
  tri.v = tri.v_inline;
  tri.fn = tri.fn_inline;
  tri.fd = tri.fd_inline;
  for (int c = 0; c < 3; c++) {
    clt_m3_mulv(tri.v[c], g->placed->rotation, m->vertices[m->triangles[t][c]]);
    clt_v3_add(tri.v[c], tri.v[c], g->placed->position);
  }
  double n[3];
  clt_m3_mulv(n, g->placed->rotation, m->normal[t]);
  clt_v3_copy(tri.fn[0], n);
  clt_v3_scale(tri.fn[1], n, -1.0);
  tri.fd[0] = clt_v3_dot(n, tri.v[0]);
  tri.fd[1] = -tri.fd[0];
  tri.nv = 3;
  tri.nf = 2;
  tri.ne = 3;
  tri.face_start = tri_face_start;
  tri.face_vertices = tri_face_vertices;
  tri.edges = tri_edges;
  tri.edge_faces = tri_edge_faces;
  double e0[3], e1[3];
  clt_v3_sub(e0, tri.v[1], tri.v[0]);
  clt_v3_sub(e1, tri.v[2], tri.v[0]);
  tri.scale = fmax(clt_v3_norm(e0), clt_v3_norm(e1));
  for (int k = 0; k < 3; k++) tri.centre[k] = (tri.v[0][k] + tri.v[1][k] + tri.v[2][k]) / 3.0;
  clt_contact_point_t pts[CLT_MAX_PAIR_CONTACTS];
  int count = clt_collide_cores(&tri, g->other, g->max_distance, pts);
  if (count < 0) {
    g->failed = true;
    return false;
  }
  double tol2 = g->tol * g->tol;
  for (int i = 0; i < count; i++) {
    const clt_contact_point_t *p = &pts[i];
    double c = clt_v3_dot(p->normal, n);
    if (c < -1e-9) continue; /* from behind: one-sided */
    if (c < 1.0 - 1e-9) {    /* an edge or a vertex of the triangle: real edges only */
      int near_edge = -1, near_vertex = -1;
      for (int k = 0; k < 3; k++) {
        double d[3];
        clt_v3_sub(d, p->point_a, tri.v[k]);
        if (clt_v3_dot(d, d) <= tol2) near_vertex = k;
        if (point_segment2(p->point_a, tri.v[k], tri.v[(k + 1) % 3]) <= tol2) near_edge = k;
      }
      if (near_vertex >= 0) {
        int k = near_vertex, before = (k + 2) % 3;
        if (!m->convex_edge[t][k] && !m->convex_edge[t][before]) continue;
      } else if (near_edge >= 0 && !m->convex_edge[t][near_edge]) {
        continue;
      }
    }
    if (g->count == GATHER) { /* keep the deepest */
      int worst = 0;
      for (int j = 1; j < GATHER; j++)
        if (g->points[j].distance > g->points[worst].distance) worst = j;
      if (p->distance >= g->points[worst].distance) continue;
      g->points[worst] = *p;
      g->points[worst].feature = 16 * t + (i & 15);
      continue;
    }
    g->points[g->count] = *p;
    g->points[g->count].feature = 16 * t + (i & 15);
    g->count++;
  }
  return true;
}

static double bound_radius(const clt_shape_def_t *d) {
  switch (d->type) {
    case CLT_SHAPE_SPHERE: return d->radius;
    case CLT_SHAPE_CAPSULE: return d->radius + 0.5 * d->length;
    case CLT_SHAPE_BOX: return clt_v3_norm(d->half_extents);
    case CLT_SHAPE_POLYHEDRON: return d->convex->bound_radius;
    default: return INFINITY;
  }
}

int clt_collide_mesh(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                     clt_contact_point_t *out) {
  const clt_mesh_t *m = a->def->mesh;
  double r = bound_radius(b->def) + fmax(max_distance, 0.0);
  if (!isfinite(r)) return CLT_COLLIDE_FAILED;
  double rel[3], c[3], lo[3], hi[3];
  clt_v3_sub(rel, b->position, a->position);
  clt_m3_mulv_t(c, a->rotation, rel);
  for (int k = 0; k < 3; k++) {
    lo[k] = c[k] - r;
    hi[k] = c[k] + r;
  }
  clt_core_t other;
  if (!clt_core_make(b, &other)) return CLT_COLLIDE_FAILED;
  gather_t *g = malloc(sizeof *g);
  if (!g) {
    clt_core_free(&other);
    return CLT_COLLIDE_FAILED;
  }
  g->mesh = m;
  g->placed = a;
  g->other = &other;
  g->max_distance = max_distance;
  g->tol = 1e-9 * fmax(m->size, other.scale);
  g->count = 0;
  g->failed = false;
  clt_mesh_query(m, lo, hi, visit, g);
  clt_core_free(&other);
  if (g->failed) {
    free(g);
    return CLT_COLLIDE_FAILED;
  }
  /* Merge: equal points once; each group of one normal reduced to 4. */
  int written = 0;
  bool used[GATHER] = {false};
  for (int i = 0; i < g->count && written < CLT_MAX_PAIR_CONTACTS; i++) {
    if (used[i]) continue;
    double group_pts[GATHER][3], group_phi[GATHER];
    int group_index[GATHER], gn = 0;
    for (int j = i; j < g->count; j++) {
      if (used[j] || clt_v3_dot(g->points[j].normal, g->points[i].normal) < 1.0 - 1e-9) continue;
      used[j] = true;
      bool dup = false;
      for (int k = 0; k < gn && !dup; k++) {
        double d[3];
        clt_v3_sub(d, g->points[j].point_b, group_pts[k]);
        dup = clt_v3_dot(d, d) <= g->tol * g->tol && fabs(g->points[j].distance - group_phi[k]) <= g->tol;
      }
      if (dup) continue;
      clt_v3_copy(group_pts[gn], g->points[j].point_b);
      group_phi[gn] = g->points[j].distance;
      group_index[gn++] = j;
    }
    int keep[4] = {0, 1, 2, 3}, final = gn;
    if (gn > 4) final = clt_reduce_manifold(group_pts[0], sizeof group_pts[0], group_phi, gn, g->points[i].normal, keep);
    for (int k = 0; k < final && written < CLT_MAX_PAIR_CONTACTS; k++) out[written++] = g->points[group_index[keep[k]]];
  }
  free(g);
  return written;
}
