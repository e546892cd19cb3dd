/* Triangle meshes for environments (docs/shapes.md "Meshes"): checked triangles with their normals,
 * the neighbour across each edge and whether that edge is a real (convex) edge, and a bounding volume
 * hierarchy (binary, split at the middle of the longest extent of the triangles' centroids, at most 4
 * triangles a leaf) so a query costs O(log n). The mesh shape has no mass: static or kinematic bodies
 * only. */
#include "geometry/mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/shape.h"
#include "math/vec.h"

static void free_mesh(clt_mesh_t *m) {
  if (!m) return;
  free(m->vertices);
  free(m->triangles);
  free(m->normal);
  free(m->neighbor);
  free(m->convex_edge);
  free(m->nodes);
  free(m->order);
  free(m);
}

void clt_mesh_retain(clt_mesh_t *m) {
  if (m) __atomic_fetch_add(&m->refs, 1, __ATOMIC_RELAXED);
}

void clt_mesh_release(clt_mesh_t *m) {
  if (m && __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) == 0) free_mesh(m);
}

int clt_mesh_vertex_count(const clt_mesh_t *m) { return m ? m->vertex_count : 0; }
int clt_mesh_triangle_count(const clt_mesh_t *m) { return m ? m->triangle_count : 0; }
const double (*clt_mesh_vertices(const clt_mesh_t *m))[3] { return m ? (const double(*)[3])m->vertices : NULL; }
const int (*clt_mesh_triangles(const clt_mesh_t *m))[3] { return m ? (const int(*)[3])m->triangles : NULL; }

typedef struct edge_entry_t {
  int a, b;   /* a < b */
  int tri, k; /* triangle and its edge index */
} edge_entry_t;

static int compare_edges(const void *pa, const void *pb) {
  const edge_entry_t *x = pa, *y = pb;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  return x->tri != y->tri ? (x->tri < y->tri ? -1 : 1) : x->k - y->k;
}

/* Builds the hierarchy over order[from, to) into node `index` (its children are allocated in pairs). */
static void build_node(clt_mesh_t *m, const double (*centroid)[3], int index, int from, int to) {
  clt_mesh_node_t *node = &m->nodes[index];
  for (int k = 0; k < 3; k++) {
    node->lo[k] = INFINITY;
    node->hi[k] = -INFINITY;
  }
  double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = from; i < to; i++) {
    const int *t = m->triangles[m->order[i]];
    for (int c = 0; c < 3; c++)
      for (int k = 0; k < 3; k++) {
        node->lo[k] = fmin(node->lo[k], m->vertices[t[c]][k]);
        node->hi[k] = fmax(node->hi[k], m->vertices[t[c]][k]);
      }
    for (int k = 0; k < 3; k++) {
      clo[k] = fmin(clo[k], centroid[m->order[i]][k]);
      chi[k] = fmax(chi[k], centroid[m->order[i]][k]);
    }
  }
  if (to - from <= 4) {
    node->first = from;
    node->count = to - from;
    return;
  }
  int axis = 0;
  for (int k = 1; k < 3; k++)
    if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
  double mid = 0.5 * (clo[axis] + chi[axis]);
  int i = from, j = to - 1;
  while (i <= j) {
    if (centroid[m->order[i]][axis] < mid) {
      i++;
    } else {
      int t = m->order[i];
      m->order[i] = m->order[j];
      m->order[j--] = t;
    }
  }
  int split = i;
  if (split == from || split == to) split = from + (to - from) / 2; /* all centroids equal along it */
  int left = m->node_count;
  m->node_count += 2;
  node->first = left;
  node->count = 0;
  build_node(m, centroid, left, from, split);
  build_node(m, centroid, left + 1, split, to);
}

bool clt_mesh_query(const clt_mesh_t *m, const double lo[3], const double hi[3], bool (*visit)(void *, int),
                    void *user) {
  int stack[128], top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const clt_mesh_node_t *n = &m->nodes[stack[--top]];
    if (n->lo[0] > hi[0] || n->hi[0] < lo[0] || n->lo[1] > hi[1] || n->hi[1] < lo[1] || n->lo[2] > hi[2] ||
        n->hi[2] < lo[2])
      continue;
    if (n->count > 0) {
      for (int i = n->first; i < n->first + n->count; i++)
        if (!visit(user, m->order[i])) return false;
    } else if (top + 2 <= 128) {
      stack[top++] = n->first + 1;
      stack[top++] = n->first;
    }
  }
  return true;
}

#define FAIL(...)                                                      \
  do {                                                                 \
    if (message && message_size) snprintf(message, message_size, __VA_ARGS__); \
    free_mesh(m);                                                      \
    free(edges);                                                       \
    free(centroid);                                                    \
    return CLT_ERR_INVALID_ARGUMENT;                                   \
  } while (0)

clt_status_t clt_mesh_create(const double (*vertices)[3], int vertex_count, const int (*triangles)[3],
                             int triangle_count, clt_mesh_t **out, char *message, size_t message_size) {
  if (!out) return CLT_ERR_INVALID_ARGUMENT;
  *out = NULL;
  clt_mesh_t *m = NULL;
  edge_entry_t *edges = NULL;
  double(*centroid)[3] = NULL;
  if (!vertices || !triangles || vertex_count < 3 || triangle_count < 1)
    FAIL("a mesh needs at least 3 vertices and 1 triangle (got %d and %d)", vertex_count, triangle_count);
  if (triangle_count > CLT_MAX_MESH_TRIANGLES)
    FAIL("%d triangles, more than CLT_MAX_MESH_TRIANGLES = %d", triangle_count, CLT_MAX_MESH_TRIANGLES);
  for (int i = 0; i < vertex_count; i++)
    if (!clt_v3_isfinite(vertices[i])) FAIL("vertex %d is not finite", i);
  m = calloc(1, sizeof *m);
  if (!m) return CLT_ERR_OUT_OF_MEMORY;
  m->vertex_count = vertex_count;
  m->triangle_count = triangle_count;
  m->vertices = malloc((size_t)vertex_count * sizeof *m->vertices);
  m->triangles = malloc((size_t)triangle_count * sizeof *m->triangles);
  m->normal = malloc((size_t)triangle_count * sizeof *m->normal);
  m->neighbor = malloc((size_t)triangle_count * sizeof *m->neighbor);
  m->convex_edge = malloc((size_t)triangle_count * sizeof *m->convex_edge);
  m->nodes = malloc((size_t)(2 * triangle_count) * sizeof *m->nodes);
  m->order = malloc((size_t)triangle_count * sizeof *m->order);
  edges = malloc((size_t)triangle_count * 3 * sizeof *edges);
  centroid = malloc((size_t)triangle_count * sizeof *centroid);
  if (!m->vertices || !m->triangles || !m->normal || !m->neighbor || !m->convex_edge || !m->nodes || !m->order ||
      !edges || !centroid) {
    free_mesh(m);
    free(edges);
    free(centroid);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  memcpy(m->vertices, vertices, (size_t)vertex_count * sizeof *m->vertices);
  for (int k = 0; k < 3; k++) {
    m->lo[k] = INFINITY;
    m->hi[k] = -INFINITY;
  }
  for (int i = 0; i < vertex_count; i++)
    for (int k = 0; k < 3; k++) {
      m->lo[k] = fmin(m->lo[k], vertices[i][k]);
      m->hi[k] = fmax(m->hi[k], vertices[i][k]);
    }
  m->size = fmax(fmax(m->hi[0] - m->lo[0], m->hi[1] - m->lo[1]), m->hi[2] - m->lo[2]);
  for (int t = 0; t < triangle_count; t++) {
    for (int c = 0; c < 3; c++) {
      int v = triangles[t][c];
      if (v < 0 || v >= vertex_count) FAIL("triangle %d: vertex index %d out of range [0, %d)", t, v, vertex_count);
      m->triangles[t][c] = v;
    }
    const double *a = vertices[triangles[t][0]], *b = vertices[triangles[t][1]], *c = vertices[triangles[t][2]];
    double ab[3], ac[3], n[3];
    clt_v3_sub(ab, b, a);
    clt_v3_sub(ac, c, a);
    clt_v3_cross(n, ab, ac);
    double len = clt_v3_norm(n);
    double scale = fmax(clt_v3_dot(ab, ab), clt_v3_dot(ac, ac));
    if (!(len > 1e-12 * scale) || !(len > 1e-24 * m->size * m->size))
      FAIL("triangle %d has no area (its vertices %d, %d, %d are on one line)", t, triangles[t][0], triangles[t][1],
           triangles[t][2]);
    clt_v3_scale(m->normal[t], n, 1.0 / len);
    for (int k = 0; k < 3; k++) centroid[t][k] = (a[k] + b[k] + c[k]) / 3.0;
    for (int k = 0; k < 3; k++) {
      int i = triangles[t][k], j = triangles[t][(k + 1) % 3];
      edges[3 * t + k] = (edge_entry_t){i < j ? i : j, i < j ? j : i, t, k};
      m->neighbor[t][k] = -1;
      m->convex_edge[t][k] = 1;
    }
  }
  /* Edges: sorted, an edge has one or two triangles; two run it opposite ways. */
  qsort(edges, (size_t)triangle_count * 3, sizeof *edges, compare_edges);
  for (long e = 0; e < 3L * triangle_count;) {
    long f = e + 1;
    while (f < 3L * triangle_count && edges[f].a == edges[e].a && edges[f].b == edges[e].b) f++;
    if (f - e > 2)
      FAIL("the edge between vertices %d and %d has %ld triangles (%d, %d, %d, ...): the mesh is not a manifold",
           edges[e].a, edges[e].b, f - e, edges[e].tri, edges[e + 1].tri, edges[e + 2].tri);
    if (f - e == 2) {
      const edge_entry_t *p = &edges[e], *q = &edges[e + 1];
      int pi = m->triangles[p->tri][p->k], qi = m->triangles[q->tri][q->k];
      if (pi == qi)
        FAIL("triangles %d and %d run their shared edge (%d, %d) the same way: their windings disagree", p->tri,
             q->tri, p->a, p->b);
      m->neighbor[p->tri][p->k] = q->tri;
      m->neighbor[q->tri][q->k] = p->tri;
      /* A ridge when the neighbour's far vertex lies behind this triangle's plane. */
      for (int side = 0; side < 2; side++) {
        const edge_entry_t *x = side ? q : p, *y = side ? p : q;
        int far = m->triangles[y->tri][(y->k + 2) % 3];
        double d[3];
        clt_v3_sub(d, m->vertices[far], m->vertices[m->triangles[x->tri][x->k]]);
        double h = clt_v3_dot(m->normal[x->tri], d);
        m->convex_edge[x->tri][x->k] = h < -1e-9 * clt_v3_norm(d);
      }
    }
    e = f;
  }
  for (int t = 0; t < triangle_count; t++) m->order[t] = t;
  m->node_count = 1;
  build_node(m, (const double(*)[3])centroid, 0, 0, triangle_count);
  free(edges);
  free(centroid);
  m->refs = 1;
  *out = m;
  return CLT_OK;
}

/* ---- the mesh shape ---- */

static bool validate_mesh(const clt_shape_def_t *s, char *msg, size_t n) {
  if (!s->mesh) {
    snprintf(msg, n, "mesh must point to a triangle mesh (clt_mesh_create)");
    return false;
  }
  return true;
}

const clt_shape_ops_t clt_shape_ops_mesh = {"mesh", 3, false, validate_mesh, NULL, NULL};
