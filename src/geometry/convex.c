/* Convex polyhedra (docs/shapes.md): the hull of a point set by qhull's reentrant library, or a
 * polyhedron given by faces and checked; faces as convex polygons (qhull merges coplanar facets),
 * edges with their two faces, and the exact mass properties of the solid. */
#define _POSIX_C_SOURCE 200809L /* open_memstream: qhull's messages are kept off stderr */
#include "geometry/convex.h"

#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/shape.h"
#include "math/vec.h"

static void set_message(char *message, size_t size, const char *text) {
  if (message && size > 0) snprintf(message, size, "%s", text);
}

static void free_convex(clt_convex_t *c) {
  if (!c) return;
  free(c->vertices);
  free(c->face_start);
  free(c->face_vertices);
  free(c->face_normal);
  free(c->face_offset);
  free(c->edges);
  free(c->edge_faces);
  free(c);
}

void clt_convex_retain(clt_convex_t *c) {
  if (c) __atomic_fetch_add(&c->refs, 1, __ATOMIC_RELAXED);
}

void clt_convex_release(clt_convex_t *c) {
  if (c && __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0) free_convex(c);
}

int clt_convex_vertex_count(const clt_convex_t *c) { return c ? c->vertex_count : 0; }
const double (*clt_convex_vertices(const clt_convex_t *c))[3] { return c ? (const double(*)[3])c->vertices : NULL; }
int clt_convex_face_count(const clt_convex_t *c) { return c ? c->face_count : 0; }
int clt_convex_edge_count(const clt_convex_t *c) { return c ? c->edge_count : 0; }

int clt_convex_face(const clt_convex_t *c, int f, const int **indices) {
  if (!c || f < 0 || f >= c->face_count) {
    if (indices) *indices = NULL;
    return 0;
  }
  if (indices) *indices = c->face_vertices + c->face_start[f];
  return c->face_start[f + 1] - c->face_start[f];
}

void clt_convex_face_plane(const clt_convex_t *c, int f, double normal[3], double *offset) {
  if (!c || f < 0 || f >= c->face_count) {
    clt_v3_set(normal, 0.0, 0.0, 0.0);
    *offset = NAN;
    return;
  }
  clt_v3_copy(normal, c->face_normal[f]);
  *offset = c->face_offset[f];
}

double clt_convex_volume(const clt_convex_t *c, double centroid[3], double inertia[3][3]) {
  if (!c) return NAN;
  if (centroid) clt_v3_copy(centroid, c->centroid);
  if (inertia) memcpy(inertia, c->inertia, sizeof c->inertia);
  return c->volume;
}

int clt_convex_support(const clt_convex_t *c, const double d[3]) {
  int best = 0;
  double value = clt_v3_dot(c->vertices[0], d);
  for (int i = 1; i < c->vertex_count; i++) {
    double s = clt_v3_dot(c->vertices[i], d);
    if (s > value) {
      value = s;
      best = i;
    }
  }
  return best;
}

/* Volume, centroid and inertia about the centroid (unit density) of the closed polyhedron, by the
 * divergence theorem: the faces fanned into triangles, each the base of a tetrahedron with apex at
 * the interior point r. A tetrahedron (r, r + a, r + b, r + c) of signed volume V = a·(b × c)/6 has
 * ∫ x dV = V (a + b + c)/4 and ∫ x xᵀ dV = V/20 (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a + b + c, x relative
 * to r. */
static void mass_properties(clt_convex_t *c) {
  const double *r = c->interior;
  double volume = 0.0, first[3] = {0.0, 0.0, 0.0}, second[3][3] = {{0.0}};
  for (int f = 0; f < c->face_count; f++) {
    const int *idx = c->face_vertices + c->face_start[f];
    int n = c->face_start[f + 1] - c->face_start[f];
    for (int k = 1; k + 1 < n; k++) {
      double a[3], b[3], d[3], bc[3], s[3];
      clt_v3_sub(a, c->vertices[idx[0]], r);
      clt_v3_sub(b, c->vertices[idx[k]], r);
      clt_v3_sub(d, c->vertices[idx[k + 1]], r);
      clt_v3_cross(bc, b, d);
      double v = clt_v3_dot(a, bc) / 6.0;
      volume += v;
      for (int i = 0; i < 3; i++) s[i] = a[i] + b[i] + d[i];
      for (int i = 0; i < 3; i++) first[i] += v * s[i] / 4.0;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          second[i][j] += v / 20.0 * (a[i] * a[j] + b[i] * b[j] + d[i] * d[j] + s[i] * s[j]);
    }
  }
  double g[3];
  for (int i = 0; i < 3; i++) {
    g[i] = first[i] / volume;
    c->centroid[i] = r[i] + g[i];
  }
  double cov[3][3]; /* ∫ (x − g)(x − g)ᵀ dV */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) cov[i][j] = second[i][j] - volume * g[i] * g[j];
  double trace = cov[0][0] + cov[1][1] + cov[2][2];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) c->inertia[i][j] = (i == j ? trace : 0.0) - cov[i][j];
  c->volume = volume;
}

/* Orders the vertices of one face counter-clockwise about its outward normal n (by angle about
 * their mean in the face's plane; a convex polygon's vertices have distinct angles). */
typedef struct angle_key_t {
  double angle;
  int vertex;
} angle_key_t;

static int compare_angle(const void *pa, const void *pb) {
  const angle_key_t *a = pa, *b = pb;
  if (a->angle < b->angle) return -1;
  if (a->angle > b->angle) return 1;
  return a->vertex - b->vertex;
}

static void order_face(const double (*v)[3], int *idx, int n, const double approx_normal[3]) {
  double mean[3] = {0.0, 0.0, 0.0}, t1[3], t2[3], nn[3];
  for (int k = 0; k < n; k++) clt_v3_add(mean, mean, v[idx[k]]);
  clt_v3_scale(mean, mean, 1.0 / n);
  clt_v3_scale(nn, approx_normal, 1.0 / clt_v3_norm(approx_normal));
  clt_v3_basis(nn, t1, t2);
  /* (t1, t2, n) right-handed, so increasing angle runs counter-clockwise about n. */
  double cr[3];
  clt_v3_cross(cr, t1, t2);
  if (clt_v3_dot(cr, nn) < 0.0) clt_v3_scale(t2, t2, -1.0);
  angle_key_t keys[CLT_MAX_CONVEX_VERTICES];
  for (int k = 0; k < n; k++) {
    double d[3];
    clt_v3_sub(d, v[idx[k]], mean);
    keys[k].angle = atan2(clt_v3_dot(d, t2), clt_v3_dot(d, t1));
    keys[k].vertex = idx[k];
  }
  qsort(keys, (size_t)n, sizeof keys[0], compare_angle);
  /* Start at the lowest vertex index: the same polyhedron gives the same face arrays. */
  int start = 0;
  for (int k = 1; k < n; k++)
    if (keys[k].vertex < keys[start].vertex) start = k;
  for (int k = 0; k < n; k++) idx[k] = keys[(start + k) % n].vertex;
}

/* Newell's normal of an ordered polygon (exact for exactly planar faces with axis-aligned normals),
 * and the plane offset as the largest n·v (no vertex beyond the plane). */
static void face_plane(const double (*v)[3], const int *idx, int n, double normal[3], double *offset) {
  double m[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < n; k++) {
    const double *p = v[idx[k]], *q = v[idx[(k + 1) % n]];
    m[0] += (p[1] - q[1]) * (p[2] + q[2]);
    m[1] += (p[2] - q[2]) * (p[0] + q[0]);
    m[2] += (p[0] - q[0]) * (p[1] + q[1]);
  }
  clt_v3_scale(normal, m, 1.0 / clt_v3_norm(m));
  double d = -INFINITY;
  for (int k = 0; k < n; k++) d = fmax(d, clt_v3_dot(normal, v[idx[k]]));
  *offset = d;
}

typedef struct edge_key_t {
  int a, b, face;
} edge_key_t;

static int compare_edge(const void *pa, const void *pb) {
  const edge_key_t *x = pa, *y = pb;
  if (x->a != y->a) return x->a - y->a;
  if (x->b != y->b) return x->b - y->b;
  return x->face - y->face;
}

/* Fills edges from the faces; false if some edge does not have exactly two faces. */
static bool build_edges(clt_convex_t *c) {
  int total = c->face_start[c->face_count];
  edge_key_t *keys = malloc((size_t)total * sizeof *keys);
  if (!keys) return false;
  for (int f = 0; f < c->face_count; f++) {
    int n = c->face_start[f + 1] - c->face_start[f];
    const int *idx = c->face_vertices + c->face_start[f];
    for (int k = 0; k < n; k++) {
      int i = idx[k], j = idx[(k + 1) % n];
      edge_key_t *e = &keys[c->face_start[f] + k];
      e->a = i < j ? i : j;
      e->b = i < j ? j : i;
      e->face = f;
    }
  }
  qsort(keys, (size_t)total, sizeof *keys, compare_edge);
  bool ok = total % 2 == 0;
  c->edge_count = total / 2;
  c->edges = malloc((size_t)(c->edge_count > 0 ? c->edge_count : 1) * sizeof *c->edges);
  c->edge_faces = malloc((size_t)(c->edge_count > 0 ? c->edge_count : 1) * sizeof *c->edge_faces);
  ok = ok && c->edges && c->edge_faces;
  for (int e = 0; ok && e < c->edge_count; e++) {
    const edge_key_t *p = &keys[2 * e], *q = &keys[2 * e + 1];
    if (p->a != q->a || p->b != q->b || (2 * e + 2 < total && keys[2 * e + 2].a == p->a && keys[2 * e + 2].b == p->b)) {
      ok = false;
      break;
    }
    c->edges[e][0] = p->a;
    c->edges[e][1] = p->b;
    c->edge_faces[e][0] = p->face;
    c->edge_faces[e][1] = q->face;
  }
  free(keys);
  return ok;
}

static void finish_metrics(clt_convex_t *c) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  double mean[3] = {0.0, 0.0, 0.0};
  c->bound_radius = 0.0;
  for (int i = 0; i < c->vertex_count; i++) {
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], c->vertices[i][k]);
      hi[k] = fmax(hi[k], c->vertices[i][k]);
    }
    clt_v3_add(mean, mean, c->vertices[i]);
    c->bound_radius = fmax(c->bound_radius, clt_v3_norm(c->vertices[i]));
  }
  clt_v3_scale(c->interior, mean, 1.0 / c->vertex_count);
  c->size = fmax(fmax(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
}

/* The hull by qhull ("Qt" is not asked for: coplanar facets are merged into one polygon). On
 * success *out holds a new polyhedron with refs = 1. */
static clt_status_t hull(const double (*points)[3], int count, clt_convex_t **out, char *message,
                         size_t message_size) {
  *out = NULL;
  coordT *coords = malloc((size_t)count * 3 * sizeof *coords);
  if (!coords) return CLT_ERR_OUT_OF_MEMORY;
  for (int i = 0; i < count; i++)
    for (int k = 0; k < 3; k++) coords[3 * i + k] = points[i][k];
  char *log_text = NULL;
  size_t log_size = 0;
  FILE *log = open_memstream(&log_text, &log_size);
  qhT qh_storage, *qh = &qh_storage;
  QHULL_LIB_CHECK
  qh_zero(qh, log);
  int exitcode = qh_new_qhull(qh, 3, count, coords, False, (char *)"qhull", NULL, log);
  clt_status_t status = CLT_OK;
  clt_convex_t *c = NULL;
  if (exitcode != 0) {
    status = CLT_ERR_INVALID_ARGUMENT;
    set_message(message, message_size,
                "the points span no volume (all on one plane or line to rounding): a polyhedron needs at "
                "least 4 points not on one plane");
  } else {
    c = calloc(1, sizeof *c);
    int nv = qh->num_vertices, nf = qh->num_facets;
    int *map = malloc((size_t)count * sizeof *map); /* input index → vertex index */
    if (!c || !map) {
      status = CLT_ERR_OUT_OF_MEMORY;
    } else if (nv > CLT_MAX_CONVEX_VERTICES) {
      status = CLT_ERR_INVALID_ARGUMENT;
      if (message)
        snprintf(message, message_size, "the hull has %d vertices, more than CLT_MAX_CONVEX_VERTICES = %d", nv,
                 CLT_MAX_CONVEX_VERTICES);
    } else {
      for (int i = 0; i < count; i++) map[i] = -1;
      vertexT *vertex, **vertexp;
      facetT *facet;
      FORALLvertices map[qh_pointid(qh, vertex->point)] = 0;
      c->vertex_count = 0;
      c->vertices = malloc((size_t)nv * sizeof *c->vertices);
      c->face_start = malloc((size_t)(nf + 1) * sizeof *c->face_start);
      c->face_normal = malloc((size_t)nf * sizeof *c->face_normal);
      c->face_offset = malloc((size_t)nf * sizeof *c->face_offset);
      int total = 0;
      FORALLfacets total += qh_setsize(qh, facet->vertices);
      c->face_vertices = malloc((size_t)total * sizeof *c->face_vertices);
      if (!c->vertices || !c->face_start || !c->face_normal || !c->face_offset || !c->face_vertices) {
        status = CLT_ERR_OUT_OF_MEMORY;
      } else {
        for (int i = 0; i < count; i++) /* the input order */
          if (map[i] == 0) {
            map[i] = c->vertex_count;
            clt_v3_copy(c->vertices[c->vertex_count++], points[i]);
          }
        int f = 0, k = 0;
        FORALLfacets {
          c->face_start[f] = k;
          int n = 0;
          FOREACHvertex_(facet->vertices) c->face_vertices[k + n++] = map[qh_pointid(qh, vertex->point)];
          double approx[3] = {facet->normal[0], facet->normal[1], facet->normal[2]};
          order_face((const double(*)[3])c->vertices, c->face_vertices + k, n, approx);
          face_plane((const double(*)[3])c->vertices, c->face_vertices + k, n, c->face_normal[f],
                     &c->face_offset[f]);
          k += n;
          f++;
        }
        c->face_start[f] = k;
        c->face_count = f;
        if (!build_edges(c)) {
          status = CLT_ERR_NUMERICAL;
          set_message(message, message_size, "qhull returned a hull whose edges do not pair up");
        }
      }
    }
    free(map);
  }
  int curlong, totlong;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  fclose(log);
  free(log_text);
  free(coords);
  if (status != CLT_OK) {
    free_convex(c);
    return status;
  }
  finish_metrics(c);
  mass_properties(c);
  if (!(c->volume > 1e-12 * c->size * c->size * c->size)) {
    free_convex(c);
    set_message(message, message_size, "the points span no volume (all on one plane to 1e-12 of their size)");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  c->refs = 1;
  *out = c;
  return CLT_OK;
}

static bool points_finite(const double (*p)[3], int count, char *message, size_t message_size) {
  for (int i = 0; i < count; i++)
    if (!clt_v3_isfinite(p[i])) {
      if (message) snprintf(message, message_size, "vertex %d is not finite", i);
      return false;
    }
  return true;
}

clt_status_t clt_convex_from_points(const double (*points)[3], int count, clt_convex_t **out, char *message,
                                    size_t message_size) {
  if (!out) return CLT_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!points || count < 4) {
    if (message) snprintf(message, message_size, "a polyhedron needs at least 4 points (got %d)", count);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (!points_finite(points, count, message, message_size)) return CLT_ERR_INVALID_ARGUMENT;
  return hull(points, count, out, message, message_size);
}

clt_status_t clt_convex_from_faces(const double (*vertices)[3], int vertex_count, const int *face_vertices,
                                   const int *face_start, int face_count, clt_convex_t **out, char *message,
                                   size_t message_size) {
  if (!out) return CLT_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!vertices || vertex_count < 4 || !face_vertices || !face_start || face_count < 4) {
    if (message)
      snprintf(message, message_size, "a polyhedron needs at least 4 vertices and 4 faces (got %d and %d)",
               vertex_count, face_count);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (vertex_count > CLT_MAX_CONVEX_VERTICES) {
    if (message)
      snprintf(message, message_size, "%d vertices, more than CLT_MAX_CONVEX_VERTICES = %d", vertex_count,
               CLT_MAX_CONVEX_VERTICES);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (!points_finite(vertices, vertex_count, message, message_size)) return CLT_ERR_INVALID_ARGUMENT;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < vertex_count; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], vertices[i][k]);
      hi[k] = fmax(hi[k], vertices[i][k]);
    }
  double size = fmax(fmax(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]), tol = 1e-9 * size;
  /* Each face: indices in range, at least 3, planar and convex, every vertex behind its plane. */
  clt_convex_t probe = {0};
  probe.vertex_count = vertex_count;
  probe.face_count = face_count;
  probe.face_start = (int *)face_start;
  probe.face_vertices = (int *)face_vertices;
  char *used = calloc((size_t)vertex_count, 1);
  if (!used) return CLT_ERR_OUT_OF_MEMORY;
  clt_status_t status = CLT_OK;
  for (int f = 0; f < face_count && status == CLT_OK; f++) {
    int n = face_start[f + 1] - face_start[f];
    const int *idx = face_vertices + face_start[f];
    if (face_start[f] < 0 || n < 3) {
      if (message) snprintf(message, message_size, "face %d has %d vertices (at least 3)", f, n);
      status = CLT_ERR_INVALID_ARGUMENT;
      break;
    }
    for (int k = 0; k < n; k++) {
      if (idx[k] < 0 || idx[k] >= vertex_count) {
        if (message) snprintf(message, message_size, "face %d: vertex index %d out of range [0, %d)", f, idx[k], vertex_count);
        status = CLT_ERR_INVALID_ARGUMENT;
        break;
      }
      used[idx[k]] = 1;
    }
    if (status != CLT_OK) break;
    double m[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < n; k++) {
      const double *p = vertices[idx[k]], *q = vertices[idx[(k + 1) % n]];
      m[0] += (p[1] - q[1]) * (p[2] + q[2]);
      m[1] += (p[2] - q[2]) * (p[0] + q[0]);
      m[2] += (p[0] - q[0]) * (p[1] + q[1]);
    }
    double len = clt_v3_norm(m);
    if (!(len > 1e-12 * size * size)) {
      if (message) snprintf(message, message_size, "face %d is degenerate (no area)", f);
      status = CLT_ERR_INVALID_ARGUMENT;
      break;
    }
    double nrm[3], d = 0.0;
    clt_v3_scale(nrm, m, 1.0 / len);
    for (int k = 0; k < n; k++) d += clt_v3_dot(nrm, vertices[idx[k]]) / n;
    for (int k = 0; k < n; k++)
      if (fabs(clt_v3_dot(nrm, vertices[idx[k]]) - d) > tol) {
        if (message)
          snprintf(message, message_size, "face %d is not planar: vertex %d is %.3g off its plane", f, idx[k],
                   fabs(clt_v3_dot(nrm, vertices[idx[k]]) - d));
        status = CLT_ERR_INVALID_ARGUMENT;
        break;
      }
    for (int k = 0; k < n && status == CLT_OK; k++) { /* convex: every turn the same way */
      double e0[3], e1[3], cr[3];
      clt_v3_sub(e0, vertices[idx[(k + 1) % n]], vertices[idx[k]]);
      clt_v3_sub(e1, vertices[idx[(k + 2) % n]], vertices[idx[(k + 1) % n]]);
      clt_v3_cross(cr, e0, e1);
      if (clt_v3_dot(cr, nrm) < -tol * size) {
        if (message) snprintf(message, message_size, "face %d is not convex (at vertex %d)", f, idx[(k + 1) % n]);
        status = CLT_ERR_INVALID_ARGUMENT;
      }
    }
    for (int i = 0; i < vertex_count && status == CLT_OK; i++)
      if (clt_v3_dot(nrm, vertices[i]) - d > tol) {
        if (message)
          snprintf(message, message_size,
                   "vertex %d lies %.3g outside face %d's plane: the polyhedron is not convex, or face %d runs "
                   "clockwise seen from outside (faces must run counter-clockwise)",
                   i, clt_v3_dot(nrm, vertices[i]) - d, f, f);
        status = CLT_ERR_INVALID_ARGUMENT;
      }
  }
  for (int i = 0; i < vertex_count && status == CLT_OK; i++)
    if (!used[i]) {
      if (message) snprintf(message, message_size, "vertex %d is used by no face", i);
      status = CLT_ERR_INVALID_ARGUMENT;
    }
  free(used);
  if (status != CLT_OK) return status;
  /* Closed: every directed edge i → j has its twin j → i in another face. */
  if (!build_edges(&probe)) {
    free(probe.edges);
    free(probe.edge_faces);
    set_message(message, message_size,
                "the faces do not close the solid: some edge is not shared by exactly two faces");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  for (int e = 0; e < probe.edge_count && status == CLT_OK; e++) {
    /* The two faces must run the edge in opposite directions. */
    int dir[2];
    for (int s = 0; s < 2; s++) {
      int f = probe.edge_faces[e][s], n = face_start[f + 1] - face_start[f];
      const int *idx = face_vertices + face_start[f];
      dir[s] = 0;
      for (int k = 0; k < n; k++)
        if (idx[k] == probe.edges[e][0] && idx[(k + 1) % n] == probe.edges[e][1]) dir[s] = 1;
    }
    if (dir[0] == dir[1]) {
      if (message)
        snprintf(message, message_size, "faces %d and %d run their common edge (%d, %d) the same way",
                 probe.edge_faces[e][0], probe.edge_faces[e][1], probe.edges[e][0], probe.edges[e][1]);
      status = CLT_ERR_INVALID_ARGUMENT;
    }
  }
  free(probe.edges);
  free(probe.edge_faces);
  if (status != CLT_OK) return status;
  status = hull(vertices, vertex_count, out, message, message_size);
  if (status == CLT_OK && (*out)->vertex_count != vertex_count) {
    if (message) {
      int missing = 0;
      for (int i = 0; i < vertex_count; i++) {
        bool found = false;
        for (int j = 0; j < (*out)->vertex_count && !found; j++)
          found = memcmp((*out)->vertices[j], vertices[i], sizeof vertices[i]) == 0;
        if (!found) {
          missing = i;
          break;
        }
      }
      snprintf(message, message_size, "vertex %d is not a corner (it lies on an edge or a face)", missing);
    }
    clt_convex_release(*out);
    *out = NULL;
    return CLT_ERR_INVALID_ARGUMENT;
  }
  return status;
}

/* ---- the polyhedron shape ---- */

static bool validate_polyhedron(const clt_shape_def_t *s, char *msg, size_t n) {
  if (!s->convex) {
    snprintf(msg, n, "convex must point to a polyhedron (clt_convex_from_points or clt_convex_from_faces)");
    return false;
  }
  return true;
}

static void polyhedron_mass(const clt_shape_def_t *s, double density, clt_mass_props_t *out) {
  const clt_convex_t *c = s->convex;
  out->mass = density * c->volume;
  clt_v3_copy(out->centroid, c->centroid);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) out->inertia[i][j] = density * c->inertia[i][j];
}

const clt_shape_ops_t clt_shape_ops_polyhedron = {"polyhedron", 3, true, validate_polyhedron, polyhedron_mass,
                                                  NULL};

/* ---- the cylinder ---- */

static bool validate_cylinder(const clt_shape_def_t *s, char *msg, size_t n) {
  return clt_check_positive("radius", s->radius, msg, n) && clt_check_positive("length", s->length, msg, n);
}

static void cylinder_mass(const clt_shape_def_t *s, double density, clt_mass_props_t *out) {
  double r = s->radius, len = s->length;
  out->mass = density * CLT_PI * r * r * len;
  out->inertia[0][0] = out->inertia[1][1] = out->mass * (3.0 * r * r + len * len) / 12.0;
  out->inertia[2][2] = 0.5 * out->mass * r * r;
}

const clt_shape_ops_t clt_shape_ops_cylinder = {"cylinder", 3, true, validate_cylinder, cylinder_mass, NULL};
