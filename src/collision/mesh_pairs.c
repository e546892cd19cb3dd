/* A triangle mesh against a sphere, a capsule, a box, a polyhedron, a cylinder or an ellipsoid
 * (docs/shapes.md "Meshes").
 *
 * The mesh's hierarchy gives the triangles near the other shape (its bounding sphere grown by the
 * contact distance); each triangle is a flat polytope core (its two sides, three edges) against the
 * other core (convex_pairs.c), or by support functions against a cylinder or an ellipsoid
 * (convex_smooth.c). Triangles are one-sided: a point whose normal comes from behind the
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
  const clt_core_t *other;          /* a polytope core; NULL for a curved shape */
  const clt_placed_shape_t *curved; /* a cylinder or an ellipsoid */
  double max_distance, tol;
  clt_contact_point_t points[GATHER];
  int count;
  bool failed;
} gather_t;

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
  int count;
  if (g->other) {
    count = clt_collide_cores(&tri, g->other, g->max_distance, pts);
  } else {
    double local[3][3];
    for (int c = 0; c < 3; c++) clt_v3_copy(local[c], m->vertices[m->triangles[t][c]]);
    count = clt_collide_triangle_support(&tri, g->placed, (const double(*)[3])local, g->curved, g->max_distance, pts);
  }
  if (count < 0) {
    g->failed = true;
    return false;
  }
  for (int i = 0; i < count; i++) {
    const clt_contact_point_t *p = &pts[i];
    double c = clt_v3_dot(p->normal, n);
    if (c < -1e-9) continue; /* from behind: one-sided */
    if (c < 1.0 - 1e-9) { /* an edge or a vertex of the triangle (its support along n): real edges only */
      double h[3], top = -INFINITY;
      for (int k = 0; k < 3; k++) top = fmax(top, h[k] = clt_v3_dot(p->normal, tri.v[k]));
      bool at[3];
      int n_at = 0;
      for (int k = 0; k < 3; k++) n_at += at[k] = h[k] >= top - g->tol;
      if (n_at == 2) {
        int k = at[0] && at[1] ? 0 : at[1] && at[2] ? 1 : 2; /* the edge k → k + 1 */
        if (!m->convex_edge[t][k]) continue;
      } else if (n_at == 1) {
        int k = at[0] ? 0 : at[1] ? 1 : 2, before = (k + 2) % 3;
        if (!m->convex_edge[t][k] && !m->convex_edge[t][before]) continue;
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
    case CLT_SHAPE_CYLINDER: return hypot(d->radius, 0.5 * d->length);
    case CLT_SHAPE_ELLIPSOID: return fmax(fmax(d->semi_axes[0], d->semi_axes[1]), d->semi_axes[2]);
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
  bool curved = b->def->type == CLT_SHAPE_CYLINDER || b->def->type == CLT_SHAPE_ELLIPSOID;
  if (!curved && !clt_core_make(b, &other)) return CLT_COLLIDE_FAILED;
  gather_t *g = malloc(sizeof *g);
  if (!g) {
    if (!curved) clt_core_free(&other);
    return CLT_COLLIDE_FAILED;
  }
  g->mesh = m;
  g->placed = a;
  g->other = curved ? NULL : &other;
  g->curved = curved ? b : NULL;
  g->max_distance = max_distance;
  g->tol = 1e-9 * fmax(m->size, curved ? 2.0 * bound_radius(b->def) : other.scale);
  g->count = 0;
  g->failed = false;
  clt_mesh_query(m, lo, hi, visit, g);
  if (!curved) clt_core_free(&other);
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
