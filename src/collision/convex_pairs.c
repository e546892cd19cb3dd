/* Polytope pairs (SPEC.md §5; docs/shapes.md "Contacts"): a convex polyhedron against a box, a
 * sphere, a capsule, another polyhedron or a half-space.
 *
 * Every shape of these pairs is a polytope core swept by a radius: a polyhedron or a box (radius 0),
 * a sphere (a point) or a capsule (a segment). The signed distance of two cores is the largest
 * separation over the candidate axes of the separating-axis test when they overlap — the faces of
 * either and the cross products of the edge pairs that build a face of the Minkowski difference
 * (the arcs of the two edges cross on the Gauss map) — which is exactly the penetration depth; when
 * they are apart, GJK gives the exact distance and the closest points (for polytopes it stops at
 * the exact simplex). The contacts are a face manifold when the best axis is a face (the other
 * core's most anti-parallel face, or its segment or point, clipped against the side planes of the
 * reference face; each kept point with its own Φ along the reference normal, at most 4 kept: the
 * deepest, the farthest from it and the two spanning the largest area on either side), otherwise
 * the single closest pair. A manifold whose smallest Φ misses the exact signed distance (a corner
 * beside the reference face) gets the exact pair added, so the smallest Φ is always the signed
 * distance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/convex_core.h"
#include "collision/primitives_3d.h"
#include "geometry/convex.h"

/* ---- cores in the world frame ---- */

/* Box faces: f = 2·axis + (negative side), vertex i = (±e0, ±e1, ±e2) by bits 0, 1, 2. */
static const int box_face_vertices[24] = {1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3, 0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1};
static const int box_face_start[7] = {0, 4, 8, 12, 16, 20, 24};
static const int box_edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                     {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
/* The faces of edge k: along axis a = k / 4, the other two bits of its vertices choose them. */
static const int box_edge_faces[12][2] = {{3, 5}, {2, 5}, {3, 4}, {2, 4}, {1, 5}, {0, 5},
                                          {1, 4}, {0, 4}, {1, 3}, {0, 3}, {1, 2}, {0, 2}};

static bool core_alloc(clt_core_t *c, int nv, int nf) {
  c->heap = NULL;
  if (nv <= CLT_CORE_INLINE && nf <= CLT_CORE_INLINE) {
    c->v = c->v_inline;
    c->fn = c->fn_inline;
    c->fd = c->fd_inline;
    return true;
  }
  size_t bytes = (size_t)nv * sizeof(double[3]) + (size_t)nf * (sizeof(double[3]) + sizeof(double));
  c->heap = malloc(bytes);
  if (!c->heap) return false;
  c->v = (double(*)[3])c->heap;
  c->fn = (double(*)[3])(c->heap + 3 * (size_t)nv);
  c->fd = c->heap + 3 * (size_t)nv + 3 * (size_t)nf;
  return true;
}

void clt_core_free(clt_core_t *c) {
  free(c->heap);
  c->heap = NULL;
}

static void place_point(const clt_placed_shape_t *s, const double local[3], double out[3]) {
  clt_m3_mulv(out, s->rotation, local);
  clt_v3_add(out, out, s->position);
}

bool clt_core_make(const clt_placed_shape_t *s, clt_core_t *c) {
  memset(c, 0, offsetof(clt_core_t, v_inline));
  const clt_shape_def_t *d = s->def;
  switch (d->type) {
    case CLT_SHAPE_SPHERE:
      core_alloc(c, 1, 0);
      c->nv = 1;
      clt_v3_copy(c->v[0], s->position);
      c->radius = d->radius;
      c->scale = d->radius;
      break;
    case CLT_SHAPE_CAPSULE:
      core_alloc(c, 2, 0);
      clt_c3_capsule_ends(s, c->v[0], c->v[1]);
      /* A zero-length capsule is a sphere: one core point (two equal ones would make a null edge). */
      c->nv = d->length > 0.0 ? 2 : 1;
      c->ne = c->nv - 1;
      c->edges = (const int(*)[2])box_edges; /* {0, 1} */
      c->radius = d->radius;
      c->scale = d->radius + d->length;
      break;
    case CLT_SHAPE_BOX: {
      core_alloc(c, 8, 6);
      const double *e = d->half_extents;
      for (int i = 0; i < 8; i++) {
        double l[3] = {(i & 1) ? e[0] : -e[0], (i & 2) ? e[1] : -e[1], (i & 4) ? e[2] : -e[2]};
        place_point(s, l, c->v[i]);
      }
      for (int f = 0; f < 6; f++) {
        clt_c3_axis(s, f / 2, c->fn[f]);
        if (f & 1) clt_v3_scale(c->fn[f], c->fn[f], -1.0);
        double x[3];
        clt_v3_axpy(x, s->position, e[f / 2], c->fn[f]);
        c->fd[f] = clt_v3_dot(c->fn[f], x);
      }
      c->nv = 8;
      c->nf = 6;
      c->ne = 12;
      c->face_start = box_face_start;
      c->face_vertices = box_face_vertices;
      c->edges = box_edges;
      c->edge_faces = box_edge_faces;
      c->scale = 2.0 * fmax(fmax(e[0], e[1]), e[2]);
      break;
    }
    case CLT_SHAPE_POLYHEDRON: {
      const clt_convex_t *p = d->convex;
      if (!core_alloc(c, p->vertex_count, p->face_count)) return false;
      for (int i = 0; i < p->vertex_count; i++) place_point(s, p->vertices[i], c->v[i]);
      for (int f = 0; f < p->face_count; f++) {
        clt_m3_mulv(c->fn[f], s->rotation, p->face_normal[f]);
        /* The plane through the face's first vertex as placed (the offset moves with the pose). */
        c->fd[f] = clt_v3_dot(c->fn[f], c->v[p->face_vertices[p->face_start[f]]]);
        for (int k = p->face_start[f] + 1; k < p->face_start[f + 1]; k++)
          c->fd[f] = fmax(c->fd[f], clt_v3_dot(c->fn[f], c->v[p->face_vertices[k]]));
      }
      c->nv = p->vertex_count;
      c->nf = p->face_count;
      c->ne = p->edge_count;
      c->face_start = p->face_start;
      c->face_vertices = p->face_vertices;
      c->edges = (const int(*)[2])p->edges;
      c->edge_faces = (const int(*)[2])p->edge_faces;
      c->scale = p->size;
      break;
    }
    default:
      return false;
  }
  double mean[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < c->nv; i++) clt_v3_add(mean, mean, c->v[i]);
  clt_v3_scale(c->centre, mean, 1.0 / c->nv);
  return true;
}

static int core_support(const clt_core_t *c, const double d[3]) {
  int best = 0;
  double value = clt_v3_dot(c->v[0], d);
  for (int i = 1; i < c->nv; i++) {
    double s = clt_v3_dot(c->v[i], d);
    if (s > value) {
      value = s;
      best = i;
    }
  }
  return best;
}

/* ---- GJK distance of two cores (the closest points of their hulls) ---- */

typedef struct simplex_t {
  int n;
  double w[4][3], a[4][3], b[4][3]; /* w = a − b: Minkowski difference points and their sources */
  double lambda[4];
} simplex_t;

static void keep(simplex_t *s, const int *which, const double *lambda, int count) {
  simplex_t t = *s;
  for (int k = 0; k < count; k++) {
    clt_v3_copy(s->w[k], t.w[which[k]]);
    clt_v3_copy(s->a[k], t.a[which[k]]);
    clt_v3_copy(s->b[k], t.b[which[k]]);
    s->lambda[k] = lambda[k];
  }
  s->n = count;
}

/* Closest point of segment (i, j) of s to the origin: barycentric weights into out. */
static double segment_closest(const simplex_t *s, int i, int j, double lam[2]) {
  double ab[3];
  clt_v3_sub(ab, s->w[j], s->w[i]);
  double len2 = clt_v3_dot(ab, ab);
  double t = len2 > 0.0 ? clt_c_clamp(-clt_v3_dot(s->w[i], ab) / len2, 0.0, 1.0) : 0.0;
  lam[0] = 1.0 - t;
  lam[1] = t;
  double p[3];
  clt_v3_axpy(p, s->w[i], t, ab);
  return clt_v3_dot(p, p);
}

void clt_triangle_closest_to_origin(const double a[3], const double b[3], const double c[3], double lam[3]) {
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  clt_v3_sub(ab, b, a);
  clt_v3_sub(ac, c, a);
  clt_v3_scale(ap, a, -1.0);
  double d1 = clt_v3_dot(ab, ap), d2 = clt_v3_dot(ac, ap);
  lam[0] = 1.0;
  lam[1] = lam[2] = 0.0;
  if (d1 <= 0.0 && d2 <= 0.0) return;
  clt_v3_scale(bp, b, -1.0);
  double d3 = clt_v3_dot(ab, bp), d4 = clt_v3_dot(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) {
    lam[0] = 0.0;
    lam[1] = 1.0;
    return;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    double v = d1 / (d1 - d3);
    lam[0] = 1.0 - v;
    lam[1] = v;
    return;
  }
  clt_v3_scale(cp, c, -1.0);
  double d5 = clt_v3_dot(ab, cp), d6 = clt_v3_dot(ac, cp);
  if (d6 >= 0.0 && d5 <= d6) {
    lam[0] = 0.0;
    lam[2] = 1.0;
    return;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    double w = d2 / (d2 - d6);
    lam[0] = 1.0 - w;
    lam[2] = w;
    return;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
    double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    lam[0] = 0.0;
    lam[1] = 1.0 - w;
    lam[2] = w;
    return;
  }
  double denom = 1.0 / (va + vb + vc);
  lam[1] = vb * denom;
  lam[2] = vc * denom;
  lam[0] = 1.0 - lam[1] - lam[2];
}

/* Closest point of triangle (i, j, k) of s to the origin: the weights of its vertices. */
static void triangle_closest(const simplex_t *s, int i, int j, int k, double lam[3]) {
  clt_triangle_closest_to_origin(s->w[i], s->w[j], s->w[k], lam);
}

static void weighted(const simplex_t *s, const int *idx, const double *lam, int n, double out[3]) {
  clt_v3_set(out, 0.0, 0.0, 0.0);
  for (int k = 0; k < n; k++) clt_v3_axpy(out, out, lam[k], s->w[idx[k]]);
}

/* Reduces s to the smallest sub-simplex containing its point closest to the origin and returns
 * that point in v; false when the origin is inside the tetrahedron (overlap). */
static bool simplex_reduce(simplex_t *s, double v[3]) {
  int idx[4] = {0, 1, 2, 3};
  if (s->n == 1) {
    clt_v3_copy(v, s->w[0]);
    s->lambda[0] = 1.0;
    return true;
  }
  if (s->n == 2) {
    double lam[2];
    segment_closest(s, 0, 1, lam);
    weighted(s, idx, lam, 2, v);
    int which[2], count = 0;
    double l2[2];
    for (int k = 0; k < 2; k++)
      if (lam[k] > 0.0) {
        which[count] = k;
        l2[count++] = lam[k];
      }
    keep(s, which, l2, count);
    return true;
  }
  if (s->n == 3) {
    double lam[3];
    triangle_closest(s, 0, 1, 2, lam);
    weighted(s, idx, lam, 3, v);
    int which[3], count = 0;
    double l3[3];
    for (int k = 0; k < 3; k++)
      if (lam[k] > 0.0) {
        which[count] = k;
        l3[count++] = lam[k];
      }
    keep(s, which, l3, count);
    return true;
  }
  /* Tetrahedron: the origin is inside unless it lies beyond some face (against the opposite
   * vertex); then the closest of those faces' closest points. */
  static const int faces[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
  double best = INFINITY, best_lam[3] = {0.0, 0.0, 0.0}, best_v[3] = {0.0, 0.0, 0.0};
  int best_face = -1;
  double size2 = 0.0;
  for (int k = 1; k < 4; k++) {
    double e[3];
    clt_v3_sub(e, s->w[k], s->w[0]);
    size2 = fmax(size2, clt_v3_dot(e, e));
  }
  for (int f = 0; f < 4; f++) {
    const double *a = s->w[faces[f][0]], *b = s->w[faces[f][1]], *c = s->w[faces[f][2]], *d = s->w[faces[f][3]];
    double ab[3], ac[3], nrm[3], ad[3];
    clt_v3_sub(ab, b, a);
    clt_v3_sub(ac, c, a);
    clt_v3_cross(nrm, ab, ac);
    clt_v3_sub(ad, d, a);
    double side_origin = -clt_v3_dot(nrm, a), side_d = clt_v3_dot(nrm, ad);
    /* A flat tetrahedron (the new point on the old triangle's plane, to rounding) has no inside:
     * every face is a candidate. */
    bool flat = fabs(side_d) <= 1e-12 * size2 * sqrt(size2);
    if (!flat && side_origin * side_d >= 0.0) continue; /* origin on d's side of this face */
    double lam[3], p[3];
    triangle_closest(s, faces[f][0], faces[f][1], faces[f][2], lam);
    weighted(s, faces[f], lam, 3, p);
    double dd = clt_v3_dot(p, p);
    if (dd < best) {
      best = dd;
      best_face = f;
      memcpy(best_lam, lam, sizeof lam);
      clt_v3_copy(best_v, p);
    }
  }
  if (best_face < 0) return false;
  clt_v3_copy(v, best_v);
  int which[3], count = 0;
  double l3[3];
  for (int k = 0; k < 3; k++)
    if (best_lam[k] > 0.0) {
      which[count] = faces[best_face][k];
      l3[count++] = best_lam[k];
    }
  keep(s, which, l3, count);
  return true;
}

bool clt_core_distance(const clt_core_t *a, const clt_core_t *b, double pa[3], double pb[3], double *distance) {
  simplex_t s;
  s.n = 1;
  clt_v3_copy(s.a[0], a->v[0]);
  clt_v3_copy(s.b[0], b->v[0]);
  clt_v3_sub(s.w[0], s.a[0], s.b[0]);
  s.lambda[0] = 1.0;
  double v[3];
  clt_v3_copy(v, s.w[0]);
  double scale = fmax(a->scale, b->scale) + 1e-300;
  for (int iter = 0; iter < 128; iter++) {
    double vv = clt_v3_dot(v, v);
    if (vv <= 1e-30 * scale * scale) return false;
    double d[3];
    clt_v3_scale(d, v, -1.0);
    int ia = core_support(a, d), ib = core_support(b, v);
    double w[3];
    clt_v3_sub(w, a->v[ia], b->v[ib]);
    /* Converged: no support point gets closer than the current one by more than rounding. */
    if (vv - clt_v3_dot(v, w) <= 1e-15 * vv) break;
    bool repeated = false;
    for (int k = 0; k < s.n; k++) repeated = repeated || (s.w[k][0] == w[0] && s.w[k][1] == w[1] && s.w[k][2] == w[2]);
    if (repeated) break;
    clt_v3_copy(s.w[s.n], w);
    clt_v3_copy(s.a[s.n], a->v[ia]);
    clt_v3_copy(s.b[s.n], b->v[ib]);
    s.n++;
    simplex_t before = s;
    double vn[3];
    if (!simplex_reduce(&s, vn)) return false;
    if (clt_v3_dot(vn, vn) >= vv) { /* no progress: rounding; keep the previous simplex */
      s = before;
      s.n--;
      break;
    }
    clt_v3_copy(v, vn);
  }
  clt_v3_set(pa, 0.0, 0.0, 0.0);
  clt_v3_set(pb, 0.0, 0.0, 0.0);
  double total = 0.0;
  for (int k = 0; k < s.n; k++) total += s.lambda[k];
  for (int k = 0; k < s.n; k++) {
    clt_v3_axpy(pa, pa, s.lambda[k] / total, s.a[k]);
    clt_v3_axpy(pb, pb, s.lambda[k] / total, s.b[k]);
  }
  double d[3];
  clt_v3_sub(d, pb, pa);
  *distance = clt_v3_norm(d);
  return true;
}

/* ---- separating axes ---- */

typedef struct axis_t {
  int kind;     /* 0: face of a, 1: face of b, 2: edge pair; −1: none */
  int index;    /* face, or edge of a */
  int index_b;  /* edge of b */
  double separation;
  double n[3];  /* unit, from a to b */
} axis_t;

/* Smallest n·x over the core's vertices. */
static double core_min(const clt_core_t *c, const double n[3]) {
  double m = INFINITY;
  for (int i = 0; i < c->nv; i++) m = fmin(m, clt_v3_dot(n, c->v[i]));
  return m;
}

/* Whether the Gauss-map arcs of edge ea of a (between its faces' normals) and of edge eb of b
 * (between the negated normals of its faces) cross: only then is their cross product a face normal
 * of the Minkowski difference (Gregorius, "The Separating Axis Test between Convex Polyhedra",
 * GDC 2013). An edge with no faces (a segment core) has a whole great circle, perpendicular to it. */
static bool minkowski_face(const clt_core_t *a, int ea, const clt_core_t *b, int eb, const double da[3],
                           const double db[3]) {
  if (a->nf == 0 && b->nf == 0) return true;
  if (b->nf == 0) {
    const double *p = a->fn[a->edge_faces[ea][0]], *q = a->fn[a->edge_faces[ea][1]];
    return clt_v3_dot(p, db) * clt_v3_dot(q, db) < 0.0;
  }
  if (a->nf == 0) {
    const double *p = b->fn[b->edge_faces[eb][0]], *q = b->fn[b->edge_faces[eb][1]];
    return clt_v3_dot(p, da) * clt_v3_dot(q, da) < 0.0;
  }
  const double *pa = a->fn[a->edge_faces[ea][0]], *qa = a->fn[a->edge_faces[ea][1]];
  double c[3], d[3];
  clt_v3_scale(c, b->fn[b->edge_faces[eb][0]], -1.0);
  clt_v3_scale(d, b->fn[b->edge_faces[eb][1]], -1.0);
  double bxa[3], dxc[3];
  clt_v3_cross(bxa, qa, pa);
  clt_v3_cross(dxc, d, c);
  double cba = clt_v3_dot(c, bxa), dba = clt_v3_dot(d, bxa), adc = clt_v3_dot(pa, dxc), bdc = clt_v3_dot(qa, dxc);
  return cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0;
}

/* The best axes of each kind: faces of a, faces of b, edge pairs (kind −1 where there are none). */
/* The best axis of each kind; stops early (the pair is out of range) once some axis separates the
 * cores by more than cutoff: an axis's separation never exceeds the distance. */
static void sat(const clt_core_t *a, const clt_core_t *b, double cutoff, axis_t best[3]) {
  for (int k = 0; k < 3; k++) {
    best[k].kind = -1;
    best[k].separation = -INFINITY;
  }
  for (int f = 0; f < a->nf; f++) {
    double s = core_min(b, a->fn[f]) - a->fd[f];
    if (s > best[0].separation) {
      best[0] = (axis_t){0, f, -1, s, {a->fn[f][0], a->fn[f][1], a->fn[f][2]}};
    }
  }
  for (int f = 0; f < b->nf; f++) {
    double m[3];
    clt_v3_scale(m, b->fn[f], -1.0);
    double s = core_min(a, b->fn[f]) - b->fd[f];
    if (s > best[1].separation) best[1] = (axis_t){1, f, -1, s, {m[0], m[1], m[2]}};
  }
  if (best[0].separation > cutoff || best[1].separation > cutoff) return;
  for (int i = 0; i < a->ne; i++) {
    const double *a0 = a->v[a->edges[i][0]], *a1 = a->v[a->edges[i][1]];
    double da[3];
    clt_v3_sub(da, a1, a0);
    for (int j = 0; j < b->ne; j++) {
      const double *b0 = b->v[b->edges[j][0]], *b1 = b->v[b->edges[j][1]];
      double db[3], n[3];
      clt_v3_sub(db, b1, b0);
      if (!minkowski_face(a, i, b, j, da, db)) continue;
      clt_v3_cross(n, da, db);
      double len = clt_v3_norm(n);
      /* Near-parallel edges: the cross product is noise, and a face axis covers the pair. */
      if (len < 1e-6 * clt_v3_norm(da) * clt_v3_norm(db)) continue;
      clt_v3_scale(n, n, 1.0 / len);
      /* Outward from a at its edge (from the polytope with faces; a segment against a polytope takes
       * the other's side). */
      double r[3];
      if (a->nf > 0) {
        clt_v3_sub(r, a0, a->centre);
        if (clt_v3_dot(n, r) < 0.0) clt_v3_scale(n, n, -1.0);
      } else {
        clt_v3_sub(r, b->centre, b0);
        if (clt_v3_dot(n, r) < 0.0) clt_v3_scale(n, n, -1.0);
      }
      double d[3];
      clt_v3_sub(d, b0, a0);
      double s = clt_v3_dot(n, d);
      if (s > best[2].separation) {
        best[2] = (axis_t){2, i, j, s, {n[0], n[1], n[2]}};
        if (s > cutoff) return;
      }
    }
  }
}

/* ---- face manifolds ---- */

typedef struct clip_t {
  double p[3];
  int tag;
} clip_t;

/* Keeps the part of polygon `in` (n vertices; n = 2: a segment, n = 1: a point) with u·p ≤ limit;
 * a vertex at most `slack` beyond is kept where it is. */
static int clip(const clip_t *in, int n, const double u[3], double limit, double slack, int plane, clip_t *out) {
  if (n <= 2) {
    int m = 0;
    if (n == 1) {
      if (clt_v3_dot(u, in[0].p) - limit <= slack) out[m++] = in[0];
      return m;
    }
    double s0 = clt_v3_dot(u, in[0].p) - limit, s1 = clt_v3_dot(u, in[1].p) - limit;
    if (s0 > slack && s1 > slack) return 0;
    for (int k = 0; k < 2; k++) {
      double sk = k == 0 ? s0 : s1, so = k == 0 ? s1 : s0;
      if (sk <= slack) {
        out[m++] = in[k];
      } else {
        double t = so / (so - sk), d[3];
        clt_v3_sub(d, in[k].p, in[1 - k].p);
        clt_v3_axpy(out[m].p, in[1 - k].p, t, d);
        out[m].tag = 4096 + 64 * plane + in[k].tag % 64;
        m++;
      }
    }
    return m;
  }
  int m = 0;
  for (int i = 0; i < n; i++) {
    const clip_t *p = &in[i], *q = &in[(i + 1) % n];
    double sp = clt_v3_dot(u, p->p) - limit, sq = clt_v3_dot(u, q->p) - limit;
    if (sp <= slack) out[m++] = *p;
    if ((sp < 0.0 && sq > slack) || (sp > slack && sq < 0.0)) {
      double t = sp / (sp - sq), pq[3];
      clt_v3_sub(pq, q->p, p->p);
      clt_v3_axpy(out[m].p, p->p, t, pq);
      out[m].tag = 4096 + 64 * plane + p->tag % 64;
      m++;
    }
  }
  return m;
}

#define POINT(i) ((const double *)((const char *)points + (size_t)(i) * stride))
static double reduce_dist2(const double *points, size_t stride, int i, int from) {
  double d[3];
  clt_v3_sub(d, POINT(i), POINT(from));
  return i == from ? -1.0 : clt_v3_dot(d, d);
}

static double reduce_area(const double *points, size_t stride, int i, int i0, const double e01[3],
                          const double m[3]) {
  double d[3], c[3];
  clt_v3_sub(d, POINT(i), POINT(i0));
  clt_v3_cross(c, e01, d);
  return clt_v3_dot(c, m);
}

int clt_reduce_manifold(const double *points, size_t stride, const double *phi, int n, const double m[3],
                        int keep[4]) {
  /* Ties are broken by a key that only the geometry decides (not the order of the candidates, so a
   * cube gets the same points as a box): the position along a fixed direction in the patch's plane,
   * far from parallel to m. */
  double u[3] = {1.0, 2.0, 3.0};
  for (int attempt = 0; attempt < 2; attempt++) {
    clt_v3_axpy(u, u, -clt_v3_dot(u, m), m);
    if (clt_v3_dot(u, u) > 0.25 * 14.0) break;
    u[0] = 3.0, u[1] = -1.0, u[2] = 2.0;
  }
  double size2 = 0.0, low = INFINITY; /* the patch's size: within 2× of its diameter */
  for (int i = 0; i < n; i++) {
    size2 = fmax(size2, reduce_dist2(points, stride, i, 0));
    low = fmin(low, phi[i]);
  }
  int i0 = -1;
  for (int i = 0; i < n; i++)
    if (phi[i] <= low + 1e-10 * sqrt(size2) && (i0 < 0 || clt_v3_dot(POINT(i), u) > clt_v3_dot(POINT(i0), u)))
      i0 = i;
  keep[0] = i0;
  double best = -1.0;
  for (int i = 0; i < n; i++) best = fmax(best, reduce_dist2(points, stride, i, i0));
  if (best < 0.0) return 1;
  int i1 = -1;
  for (int i = 0; i < n; i++)
    if (reduce_dist2(points, stride, i, i0) >= best * (1.0 - 1e-9) &&
        (i1 < 0 || clt_v3_dot(POINT(i), u) > clt_v3_dot(POINT(i1), u)))
      i1 = i;
  keep[1] = i1;
  double most = -INFINITY, least = INFINITY, e01[3];
  clt_v3_sub(e01, POINT(i1), POINT(i0));
  for (int i = 0; i < n; i++) {
    if (i == i0 || i == i1) continue;
    double area = reduce_area(points, stride, i, i0, e01, m);
    most = fmax(most, area);
    least = fmin(least, area);
  }
  int i2 = -1, i3 = -1;
  for (int i = 0; i < n; i++) {
    if (i == i0 || i == i1) continue;
    double area = reduce_area(points, stride, i, i0, e01, m), key = clt_v3_dot(POINT(i), u);
    if (area >= most - 1e-9 * best && (i2 < 0 || key > clt_v3_dot(POINT(i2), u))) i2 = i;
    if (area <= least + 1e-9 * best && (i3 < 0 || key > clt_v3_dot(POINT(i3), u))) i3 = i;
  }
  int count = 2;
  if (i2 >= 0) keep[count++] = i2;
  if (i3 >= 0 && i3 != i2) keep[count++] = i3;
  return count;
}
#undef POINT

/* Face manifold: reference face f of core r (outward normal m, towards the other core o); r_is_a
 * tells which of the caller's shapes r is. Returns how many points it wrote; *deepest_phi is the
 * smallest Φ written (INFINITY if none). Works in stack buffers up to faces of CLT_CORE_INLINE
 * vertices each (no allocation in a step); larger faces take a buffer from the heap. */
static int face_manifold(const clt_core_t *r, int f, const clt_core_t *o, bool r_is_a, double max_distance,
                         clt_contact_point_t *out, double *deepest_phi) {
  const double *m = r->fn[f];
  *deepest_phi = INFINITY;
  int g = -1, incident_n = o->nv;
  if (o->nf > 0) { /* incident face: the most anti-parallel one */
    double low = INFINITY;
    for (int k = 0; k < o->nf; k++) {
      double c = clt_v3_dot(o->fn[k], m);
      if (c < low) {
        low = c;
        g = k;
      }
    }
    incident_n = o->face_start[g + 1] - o->face_start[g];
  }
  int fs = r->face_start[f], fn = r->face_start[f + 1] - fs;
  /* Clipping a convex polygon by a plane adds at most one vertex. */
  enum { STACK_ROOM = 2 * CLT_CORE_INLINE + 8 };
  size_t room = (size_t)(incident_n + fn + 8);
  clip_t stack_a[STACK_ROOM], stack_b[STACK_ROOM], *heap = NULL, *poly = stack_a, *tmp = stack_b;
  if (room > STACK_ROOM) {
    heap = malloc(2 * room * sizeof *heap);
    if (!heap) return 0;
    poly = heap;
    tmp = heap + room;
  }
  int n = 0;
  if (g >= 0) {
    for (int k = o->face_start[g]; k < o->face_start[g + 1]; k++, n++) {
      clt_v3_copy(poly[n].p, o->v[o->face_vertices[k]]);
      poly[n].tag = o->face_vertices[k] % 64;
    }
  } else {
    for (; n < o->nv; n++) {
      clt_v3_copy(poly[n].p, o->v[n]);
      poly[n].tag = n;
    }
  }
  double slack = 1e-9 * fmax(r->scale, o->scale);
  for (int k = 0; k < fn && n > 0; k++) {
    const double *p0 = r->v[r->face_vertices[fs + k]], *p1 = r->v[r->face_vertices[fs + (k + 1) % fn]];
    double e[3], u[3];
    clt_v3_sub(e, p1, p0);
    clt_v3_cross(u, e, m);
    double len = clt_v3_norm(u);
    if (!(len > 0.0)) continue;
    clt_v3_scale(u, u, 1.0 / len);
    n = clip(poly, n, u, clt_v3_dot(u, p0), slack, k, tmp);
    clip_t *swap = poly;
    poly = tmp;
    tmp = swap;
  }
  /* The points within range, compacted in place (their Φ in tmp's first slot's spare room). */
  double ref = r->fd[f];
  int count = 0;
  double phi_stack[STACK_ROOM], *phi = room > STACK_ROOM ? (double *)tmp : phi_stack;
  for (int k = 0; k < n; k++) {
    double h = clt_v3_dot(poly[k].p, m) - ref - o->radius - r->radius;
    if (h <= max_distance) {
      poly[count] = poly[k];
      phi[count++] = h;
    }
  }
  int index[4] = {0, 1, 2, 3}, final = count;
  if (count > 4) final = clt_reduce_manifold(poly[0].p, sizeof poly[0], phi, count, m, index);
  int base = ((r_is_a ? 0 : 1) + 2 * f) * 8192;
  for (int k = 0; k < final; k++) {
    const double *p = poly[index[k]].p;
    double ph = phi[index[k]], h = ph + o->radius + r->radius, on_r[3], on_o[3], nab[3];
    clt_v3_axpy(on_r, p, -(h - r->radius), m);
    clt_v3_axpy(on_o, p, -o->radius, m);
    *deepest_phi = fmin(*deepest_phi, ph);
    if (r_is_a) {
      clt_v3_copy(nab, m);
      clt_c3_set_point(&out[k], ph, nab, on_r, on_o, base + poly[index[k]].tag);
    } else {
      clt_v3_scale(nab, m, -1.0);
      clt_c3_set_point(&out[k], ph, nab, on_o, on_r, base + poly[index[k]].tag);
    }
  }
  free(heap);
  return final;
}

/* The single closest pair of two separated cores (GJK), as a contact of the caller's shapes. */
static int closest_pair(const clt_core_t *a, const clt_core_t *b, double max_distance, int feature,
                        clt_contact_point_t *out) {
  double ca[3], cb[3], d;
  if (!clt_core_distance(a, b, ca, cb, &d)) return -1;
  double phi = d - a->radius - b->radius;
  if (phi > max_distance) return 0;
  double n[3], pa[3], pb[3];
  if (!(d > 0.0)) return -1;
  clt_v3_sub(n, cb, ca);
  clt_v3_scale(n, n, 1.0 / d);
  clt_v3_axpy(pa, ca, a->radius, n);
  clt_v3_axpy(pb, pa, phi, n); /* exact p_B − p_A = Φ n */
  clt_c3_set_point(out, phi, n, pa, pb, feature);
  return 1;
}

/* The closest points of the two edges of an edge-pair axis (overlapping cores). */
static int edge_pair(const clt_core_t *a, const clt_core_t *b, const axis_t *ax, double max_distance,
                     clt_contact_point_t *out) {
  double ca[3], cb[3];
  clt_c3_segment_segment(a->v[a->edges[ax->index][0]], a->v[a->edges[ax->index][1]], b->v[b->edges[ax->index_b][0]],
                         b->v[b->edges[ax->index_b][1]], ca, cb);
  double phi = ax->separation - a->radius - b->radius;
  if (phi > max_distance) return 0;
  double pa[3], pb[3];
  clt_v3_axpy(pa, ca, a->radius, ax->n);
  clt_v3_axpy(pb, pa, phi, ax->n);
  clt_c3_set_point(out, phi, ax->n, pa, pb, 3 * 8192 * 16 + ax->index * 1024 + ax->index_b);
  return 1;
}

int clt_collide_cores(const clt_core_t *a, const clt_core_t *b, double max_distance, clt_contact_point_t *out) {
  axis_t best[3];
  double radii = a->radius + b->radius;
  sat(a, b, max_distance + radii, best);
  double face_sep = fmax(best[0].separation, best[1].separation);
  double sep = fmax(face_sep, best[2].separation);
  if (sep - radii > max_distance) return 0; /* the axis value never exceeds the distance */
  double scale = fmax(a->scale, b->scale), tol = 1e-9 * scale;
  /* Faces before edges unless the edge pair separates clearly more (by 1e-3 of the size plus 5 % of
   * the face's separation, as ODE's box–box test): a box resting slightly turned and tilted on
   * another has an edge-pair axis that beats the face by ~1e-5 of the size, and a single edge point
   * would let it rock and sink; the manifold of the face holds it, and the exact pair is added
   * below when the manifold misses it. a's faces before b's unless worse by more than rounding: the
   * manifold does not flip between nearly equivalent features from one step to the next. */
  const axis_t *ax = &best[2];
  if (!(best[2].kind >= 0 && best[2].separation > face_sep + 1e-3 * scale + 0.05 * fabs(face_sep)))
    ax = (best[1].kind >= 0 && (best[0].kind < 0 || best[1].separation > best[0].separation + tol)) ? &best[1] : &best[0];
  double exact = sep; /* the cores' signed distance */
  bool apart = sep > tol;
  if (apart) {
    double ca[3], cb[3];
    if (clt_core_distance(a, b, ca, cb, &exact) == false) exact = sep;
  }
  int count = 0;
  double deepest = INFINITY;
  if (ax->kind == 0)
    count = face_manifold(a, ax->index, b, true, max_distance, out, &deepest);
  else if (ax->kind == 1)
    count = face_manifold(b, ax->index, a, false, max_distance, out, &deepest);
  else if (!apart)
    return edge_pair(a, b, ax, max_distance, out);
  if (exact - radii > max_distance) return count;
  /* The exact pair is always among the points: when the manifold misses the signed distance (apart:
   * the closest features are not over the reference face; overlapping: a face stood in for a
   * slightly better edge pair, or the deepest corner lies beside the reference face). */
  bool face_for_edge = !apart && ax->kind != 2 && best[2].kind >= 0 && best[2].separation > face_sep + tol;
  if (count > 0 && !face_for_edge && fabs(deepest - (exact - radii)) <= tol) return count;
  if (apart) {
    int extra = closest_pair(a, b, max_distance, 3 * 8192 * 16 - 1, out + count);
    if (extra < 0) return count > 0 ? count : -1;
    count += extra;
  } else if (best[2].kind >= 0 && best[2].separation >= sep - tol) {
    count += edge_pair(a, b, &best[2], max_distance, out + count);
  } else if (ax->kind == 0 || ax->kind == 1) {
    const clt_core_t *r = ax->kind == 0 ? a : b, *o = ax->kind == 0 ? b : a;
    const double *m = r->fn[ax->index];
    int i = 0;
    double low = INFINITY;
    for (int k = 0; k < o->nv; k++) {
      double h = clt_v3_dot(o->v[k], m);
      if (h < low) {
        low = h;
        i = k;
      }
    }
    double phi = ax->separation - radii, on_r[3], on_o[3], nab[3];
    clt_v3_axpy(on_o, o->v[i], -o->radius, m);
    clt_v3_axpy(on_r, on_o, -phi, m);
    if (ax->kind == 0) {
      clt_v3_copy(nab, m);
      clt_c3_set_point(&out[count++], phi, nab, on_r, on_o, 3 * 8192 * 16 - 2);
    } else {
      clt_v3_scale(nab, m, -1.0);
      clt_c3_set_point(&out[count++], phi, nab, on_o, on_r, 3 * 8192 * 16 - 2);
    }
  }
  return count;
}

int clt_collide_polytope(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double max_distance,
                         clt_contact_point_t *out) {
  clt_core_t a, b;
  bool ok_a = clt_core_make(sa, &a), ok_b = ok_a && clt_core_make(sb, &b);
  int count = ok_a && ok_b ? clt_collide_cores(&a, &b, max_distance, out) : -1;
  if (ok_a) clt_core_free(&a);
  if (ok_b) clt_core_free(&b);
  return count < 0 ? CLT_COLLIDE_FAILED : count;
}

/* Polyhedron against a half-space: every vertex within range; more than 4 reduced to the deepest,
 * the farthest from it and the two spanning the largest area. */
int clt_collide_polyhedron_halfspace(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                     double max_distance, clt_contact_point_t *out) {
  double p[3], m[3];
  clt_c3_halfspace(sb, p, m);
  const clt_convex_t *c = sa->def->convex;
  /* The deepest vertex first, by the support in −m: a vertex cannot be within range unless the
   * deepest one is. */
  double ml[3], mm[3];
  clt_v3_scale(mm, m, -1.0);
  clt_m3_mulv_t(ml, sa->rotation, mm);
  double x[3];
  place_point(sa, c->vertices[clt_convex_support(c, ml)], x);
  double d[3];
  clt_v3_sub(d, x, p);
  if (clt_v3_dot(d, m) > max_distance) return 0;
  int nv = c->vertex_count, count = 0;
  double stack_pts[CLT_CORE_INLINE][3], stack_phi[CLT_CORE_INLINE], (*pts)[3] = stack_pts, *phi = stack_phi;
  int stack_which[CLT_CORE_INLINE], *which = stack_which;
  void *heap = NULL;
  if (nv > CLT_CORE_INLINE) {
    heap = malloc((size_t)nv * (sizeof *pts + sizeof *phi + sizeof *which));
    if (!heap) return CLT_COLLIDE_FAILED;
    pts = heap;
    phi = (double *)(pts + nv);
    which = (int *)(phi + nv);
  }
  for (int i = 0; i < nv; i++) {
    place_point(sa, c->vertices[i], x);
    clt_v3_sub(d, x, p);
    double h = clt_v3_dot(d, m);
    if (h <= max_distance) {
      clt_v3_copy(pts[count], x);
      phi[count] = h;
      which[count++] = i;
    }
  }
  int index[4] = {0, 1, 2, 3};
  int final = count;
  if (count > 4) {
    double up[3];
    clt_v3_copy(up, m);
    final = clt_reduce_manifold(pts[0], sizeof pts[0], phi, count, up, index);
    /* keep the generation order (vertex order) among the kept points: deterministic and like the box */
    for (int i = 1; i < final; i++)
      for (int j = i; j > 0 && index[j] < index[j - 1]; j--) {
        int t = index[j];
        index[j] = index[j - 1];
        index[j - 1] = t;
      }
  }
  double n[3];
  clt_v3_scale(n, m, -1.0);
  for (int k = 0; k < final; k++) {
    const double *q = pts[index[k]];
    double pb[3];
    clt_v3_axpy(pb, q, -phi[index[k]], m);
    clt_c3_set_point(&out[k], phi[index[k]], n, q, pb, which[index[k]]);
  }
  free(heap);
  return final;
}
