/* Cylinder pairs and the other convex pairs with a curved shape (SPEC.md §5; docs/shapes.md
 * "Contacts"): cylinder with a half-space (exact manifold), a sphere (exact closed form), and, by
 * support functions, with a capsule, a box, a polyhedron, a cylinder or an ellipsoid, and a
 * polyhedron with an ellipsoid.
 *
 * The support-function pairs: GJK on the Minkowski difference gives the distance and the closest
 * points when the shapes are apart (stopped when the gap between its upper bound |v| and lower
 * bound v·w/|v| is below 1e-12 of the size); when they overlap, the expanding polytope (EPA) grows
 * from GJK's last simplex to the face of the Minkowski difference nearest the origin, to the same
 * tolerance: minus the penetration depth, its direction and witness points. A flat feature resting
 * on a flat one gets a manifold: a cylinder's cap or side on a face of a box or a polyhedron (rim
 * points at quarter turns from the lowest, or the two ends of the lowest line of the side, clipped
 * to the face), each with its own Φ along the face normal, beside the exact pair. */
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "collision/convex_core.h"
#include "collision/primitives_3d.h"
#include "collision/smooth.h"
#include "geometry/convex.h"

/* ---- support functions of placed shapes (world frame) ---- */

static void support(const clt_placed_shape_t *s, const double d[3], double out[3]) {
  const clt_shape_def_t *def = s->def;
  double l[3], p[3] = {0.0, 0.0, 0.0};
  clt_m3_mulv_t(l, s->rotation, d);
  switch (def->type) {
    case CLT_SHAPE_SPHERE: {
      double n = clt_v3_norm(l);
      if (n > 0.0) clt_v3_scale(p, l, def->radius / n);
      break;
    }
    case CLT_SHAPE_CAPSULE: {
      double n = clt_v3_norm(l);
      if (n > 0.0) clt_v3_scale(p, l, def->radius / n);
      p[2] += l[2] >= 0.0 ? 0.5 * def->length : -0.5 * def->length;
      break;
    }
    case CLT_SHAPE_BOX:
      for (int k = 0; k < 3; k++) p[k] = l[k] >= 0.0 ? def->half_extents[k] : -def->half_extents[k];
      break;
    case CLT_SHAPE_CYLINDER: {
      double radial = hypot(l[0], l[1]);
      if (radial > 0.0) {
        p[0] = def->radius * l[0] / radial;
        p[1] = def->radius * l[1] / radial;
      }
      p[2] = l[2] >= 0.0 ? 0.5 * def->length : -0.5 * def->length;
      break;
    }
    case CLT_SHAPE_ELLIPSOID: {
      const double *e = def->semi_axes;
      double q[3] = {e[0] * l[0], e[1] * l[1], e[2] * l[2]}, n = clt_v3_norm(q);
      if (n > 0.0)
        for (int k = 0; k < 3; k++) p[k] = e[k] * q[k] / n;
      break;
    }
    case CLT_SHAPE_POLYHEDRON:
      clt_v3_copy(p, def->convex->vertices[clt_convex_support(def->convex, l)]);
      break;
    default:
      break;
  }
  clt_m3_mulv(out, s->rotation, p);
  clt_v3_add(out, out, s->position);
}

static double shape_size(const clt_shape_def_t *d) {
  switch (d->type) {
    case CLT_SHAPE_SPHERE: return 2.0 * d->radius;
    case CLT_SHAPE_CAPSULE: return 2.0 * d->radius + d->length;
    case CLT_SHAPE_BOX: return 2.0 * fmax(fmax(d->half_extents[0], d->half_extents[1]), d->half_extents[2]);
    case CLT_SHAPE_CYLINDER: return fmax(2.0 * d->radius, d->length);
    case CLT_SHAPE_ELLIPSOID: return 2.0 * fmax(fmax(d->semi_axes[0], d->semi_axes[1]), d->semi_axes[2]);
    case CLT_SHAPE_POLYHEDRON: return d->convex->size;
    default: return 1.0;
  }
}

/* ---- GJK and EPA on the Minkowski difference A − B ---- */

typedef struct mpoint_t {
  double w[3], a[3], b[3]; /* w = a − b */
} mpoint_t;

static void msupport(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, const double d[3], mpoint_t *m) {
  double nd[3];
  clt_v3_scale(nd, d, -1.0);
  support(sa, d, m->a);
  support(sb, nd, m->b);
  clt_v3_sub(m->w, m->a, m->b);
}

/* Closest point to the origin of the simplex s (n ≤ 4 points), its barycentric weights, and the
 * simplex reduced to the points with positive weight. false: the origin is inside (n = 4). */
static bool closest_on_simplex(mpoint_t *s, int *n, double lambda[4], double v[3]);

static void compact(mpoint_t *s, int *n, double lambda[4], const int *idx, const double *lam, int k) {
  mpoint_t t[4];
  memcpy(t, s, sizeof t);
  int m = 0;
  for (int i = 0; i < k; i++)
    if (lam[i] > 0.0) {
      s[m] = t[idx[i]];
      lambda[m++] = lam[i];
    }
  *n = m;
}

static bool closest_on_simplex(mpoint_t *s, int *n, double lambda[4], double v[3]) {
  static const int all[4] = {0, 1, 2, 3};
  double lam[4] = {1.0, 0.0, 0.0, 0.0};
  const int *idx = all;
  int k = *n;
  if (k == 2) {
    double ab[3];
    clt_v3_sub(ab, s[1].w, s[0].w);
    double len2 = clt_v3_dot(ab, ab);
    double t = len2 > 0.0 ? clt_c_clamp(-clt_v3_dot(s[0].w, ab) / len2, 0.0, 1.0) : 0.0;
    lam[0] = 1.0 - t;
    lam[1] = t;
  } else if (k == 3) {
    clt_triangle_closest_to_origin(s[0].w, s[1].w, s[2].w, lam);
  } else if (k == 4) {
    static const int faces[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
    double best = INFINITY, size2 = 0.0;
    int best_f = -1;
    double best_lam[3] = {0.0, 0.0, 0.0};
    for (int i = 1; i < 4; i++) {
      double e[3];
      clt_v3_sub(e, s[i].w, s[0].w);
      size2 = fmax(size2, clt_v3_dot(e, e));
    }
    for (int f = 0; f < 4; f++) {
      const double *a = s[faces[f][0]].w, *b = s[faces[f][1]].w, *c = s[faces[f][2]].w, *d = s[faces[f][3]].w;
      double ab[3], ac[3], nr[3], ad[3];
      clt_v3_sub(ab, b, a);
      clt_v3_sub(ac, c, a);
      clt_v3_cross(nr, ab, ac);
      clt_v3_sub(ad, d, a);
      double so = -clt_v3_dot(nr, a), sd = clt_v3_dot(nr, ad);
      bool flat = fabs(sd) <= 1e-12 * size2 * sqrt(size2);
      if (!flat && so * sd >= 0.0) continue;
      double l3[3], p[3] = {0.0, 0.0, 0.0};
      clt_triangle_closest_to_origin(a, b, c, l3);
      for (int i = 0; i < 3; i++) clt_v3_axpy(p, p, l3[i], s[faces[f][i]].w);
      double dd = clt_v3_dot(p, p);
      if (dd < best) {
        best = dd;
        best_f = f;
        memcpy(best_lam, l3, sizeof l3);
      }
    }
    if (best_f < 0) return false;
    idx = faces[best_f];
    memcpy(lam, best_lam, sizeof best_lam);
    k = 3;
  }
  clt_v3_set(v, 0.0, 0.0, 0.0);
  for (int i = 0; i < k; i++) clt_v3_axpy(v, v, lam[i], s[idx[i]].w);
  compact(s, n, lambda, idx, lam, k);
  return true;
}

typedef struct result_t {
  double phi, n[3], pa[3], pb[3];
} result_t;

static void witnesses(const mpoint_t *s, int n, const double *lambda, double pa[3], double pb[3]) {
  double total = 0.0;
  clt_v3_set(pa, 0.0, 0.0, 0.0);
  clt_v3_set(pb, 0.0, 0.0, 0.0);
  for (int i = 0; i < n; i++) total += lambda[i];
  for (int i = 0; i < n; i++) {
    clt_v3_axpy(pa, pa, lambda[i] / total, s[i].a);
    clt_v3_axpy(pb, pb, lambda[i] / total, s[i].b);
  }
}

/* EPA from a simplex enclosing the origin. */
enum { EPA_VERTS = 256, EPA_FACES = 512 };

typedef struct epa_face_t {
  int v[3];
  double n[3], d; /* outward unit normal, distance from the origin */
  bool live;
} epa_face_t;

static bool epa_face(const mpoint_t *p, epa_face_t *f, int a, int b, int c) {
  f->v[0] = a;
  f->v[1] = b;
  f->v[2] = c;
  double ab[3], ac[3];
  clt_v3_sub(ab, p[b].w, p[a].w);
  clt_v3_sub(ac, p[c].w, p[a].w);
  clt_v3_cross(f->n, ab, ac);
  double len = clt_v3_norm(f->n);
  if (!(len > 0.0)) return false;
  clt_v3_scale(f->n, f->n, 1.0 / len);
  f->d = clt_v3_dot(f->n, p[a].w);
  f->live = true;
  return true;
}

static bool epa(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, mpoint_t *simplex, int sn, double tol,
                result_t *out, double *gap_out) {
  mpoint_t p[EPA_VERTS];
  int np = 0;
  for (int i = 0; i < sn; i++) p[np++] = simplex[i];
  /* Blow a smaller simplex up to a tetrahedron around the origin (touching or degenerate). */
  static const double dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  for (int k = 0; k < 6 && np < 4; k++) {
    mpoint_t m;
    msupport(sa, sb, dirs[k], &m);
    bool dup = false;
    for (int i = 0; i < np; i++) {
      double d[3];
      clt_v3_sub(d, m.w, p[i].w);
      dup = dup || clt_v3_norm(d) <= 1e-12 * tol;
    }
    if (!dup) p[np++] = m;
  }
  if (np < 4) return false;
  /* Orient the tetrahedron: faces outward. */
  double ab[3], ac[3], ad[3], cr[3];
  clt_v3_sub(ab, p[1].w, p[0].w);
  clt_v3_sub(ac, p[2].w, p[0].w);
  clt_v3_sub(ad, p[3].w, p[0].w);
  clt_v3_cross(cr, ab, ac);
  if (clt_v3_dot(cr, ad) > 0.0) {
    mpoint_t t = p[1];
    p[1] = p[2];
    p[2] = t;
  }
  epa_face_t f[EPA_FACES];
  int nf = 0;
  bool ok = epa_face(p, &f[nf++], 0, 1, 2) && epa_face(p, &f[nf++], 0, 3, 1) && epa_face(p, &f[nf++], 0, 2, 3) &&
            epa_face(p, &f[nf++], 1, 3, 2);
  if (!ok) return false;
  for (int i = 0; i < nf; i++)
    if (f[i].d < -tol) return false; /* the origin is not inside */
  for (int iter = 0; iter < 200; iter++) {
    int best = -1;
    for (int i = 0; i < nf; i++)
      if (f[i].live && (best < 0 || f[i].d < f[best].d)) best = i;
    if (best < 0) return false;
    mpoint_t m;
    msupport(sa, sb, f[best].n, &m);
    double gap = clt_v3_dot(m.w, f[best].n) - f[best].d;
    if (gap <= tol || iter == 199 || np == EPA_VERTS || nf + 2 * np > EPA_FACES) {
      /* The origin's projection on the face: its barycentric weights give the witnesses. */
      const epa_face_t *b = &f[best];
      double lam[3], proj[3], e0[3], e1[3], e2[3], c0[3];
      clt_v3_scale(proj, b->n, b->d);
      clt_v3_sub(e0, p[b->v[1]].w, p[b->v[0]].w);
      clt_v3_sub(e1, p[b->v[2]].w, p[b->v[0]].w);
      clt_v3_sub(e2, proj, p[b->v[0]].w);
      double d00 = clt_v3_dot(e0, e0), d01 = clt_v3_dot(e0, e1), d11 = clt_v3_dot(e1, e1);
      double d20 = clt_v3_dot(e2, e0), d21 = clt_v3_dot(e2, e1), den = d00 * d11 - d01 * d01;
      lam[1] = (d11 * d20 - d01 * d21) / den;
      lam[2] = (d00 * d21 - d01 * d20) / den;
      lam[0] = 1.0 - lam[1] - lam[2];
      clt_v3_set(out->pa, 0.0, 0.0, 0.0);
      clt_v3_set(c0, 0.0, 0.0, 0.0);
      for (int i = 0; i < 3; i++) {
        clt_v3_axpy(out->pa, out->pa, lam[i], p[b->v[i]].a);
        clt_v3_axpy(c0, c0, lam[i], p[b->v[i]].b);
      }
      /* Translating A by −d n separates the shapes (the face of A − B nearest the origin lies at
       * d along its outward normal n): B lies along n from A, and Φ = −d. */
      clt_v3_copy(out->n, b->n);
      out->phi = -b->d;
      clt_v3_axpy(out->pb, out->pa, out->phi, out->n); /* exact p_B − p_A = Φ n */
      (void)c0;
      /* The depth lies within [d, d + gap]; the polish (below) takes the normal the rest of the way. */
      *gap_out = gap;
      return gap <= 1e9 * tol;
    }
    /* The faces that see m, grown from the best face across edges (one connected cap, so its
     * border, the horizon, is one loop even where rounding makes coplanar faces disagree); the
     * horizon's edges with m make the new faces. */
    int stack[EPA_FACES], top = 0, edges[EPA_FACES][2], ne = 0;
    bool seen[EPA_FACES];
    memset(seen, 0, sizeof(bool) * (size_t)nf);
    seen[best] = true;
    stack[top++] = best;
    bool degenerate = false;
    while (top > 0) {
      int i = stack[--top];
      f[i].live = false;
      for (int k = 0; k < 3; k++) {
        int a = f[i].v[k], b = f[i].v[(k + 1) % 3], nb = -1;
        for (int j = 0; j < nf && nb < 0; j++)
          if (j != i && (f[j].live || seen[j]))
            for (int q = 0; q < 3; q++)
              if (f[j].v[q] == b && f[j].v[(q + 1) % 3] == a) nb = j;
        if (nb >= 0 && seen[nb]) continue; /* inside the cap */
        double d[3];
        bool visible = false;
        if (nb >= 0) {
          clt_v3_sub(d, m.w, p[f[nb].v[0]].w);
          visible = clt_v3_dot(f[nb].n, d) > 1e-3 * tol;
        }
        if (visible) {
          seen[nb] = true;
          stack[top++] = nb;
        } else if (ne < EPA_FACES) {
          edges[ne][0] = a;
          edges[ne][1] = b;
          ne++;
        }
      }
    }
    p[np] = m;
    int live = 0;
    for (int i = 0; i < nf; i++)
      if (f[i].live) f[live++] = f[i];
    nf = live;
    for (int e = 0; e < ne && !degenerate; e++)
      if (!epa_face(p, &f[nf++], edges[e][0], edges[e][1], np)) degenerate = true;
    np++;
    /* A new face without area (m on a horizon edge's line): the polytope cannot grow further here;
     * the next pass reports the best face as it is. */
    if (degenerate) {
      for (int i = 0; i < nf; i++)
        if (f[i].live && !(f[i].n[0] == f[i].n[0])) f[i].live = false;
    }
  }
  return false;
}

/* Whether a shape's support is a vertex of a polytope (box, polyhedron): not where a face touches. */
static bool flat_support(const clt_shape_def_t *d) {
  return d->type == CLT_SHAPE_BOX || d->type == CLT_SHAPE_POLYHEDRON;
}

/* g(n) = n·(sup_B(−n) − sup_A(n)): the support separation along n, ≤ Φ for every unit n, = Φ at
 * the optimal normal (SPEC.md §5: the distance apart, minus the depth in overlap). */
static double separation(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, const double n[3], double pa[3],
                         double pb[3]) {
  double m[3];
  clt_v3_scale(m, n, -1.0);
  support(sa, n, pa);
  support(sb, m, pb);
  double d[3];
  clt_v3_sub(d, pb, pa);
  return clt_v3_dot(n, d);
}

/* Polishes the normal of GJK or EPA by ascent of g on the sphere: the tangential part of
 * sup_B(−n) − sup_A(n) is g's gradient; a step of 1/|g| of it is GJK's own fixed point apart. Curved
 * shapes leave GJK and EPA short of the optimum by ~1e-7 of the size; the ascent takes g to its
 * maximum to rounding where the supports are smooth. Φ is then g at the best normal (attained by
 * it, so never above the true value), p_A the support of A along it and p_B = p_A + Φ n. */
static bool polish(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double tol, double slack, bool force,
                   result_t *out) {
  double n[3], pa[3], pb[3];
  clt_v3_copy(n, out->n);
  double best = separation(sa, sb, n, pa, pb);
  double scale_up = 1.0; /* grows after a full step, shrinks after halvings */
  for (int iter = 0; iter < 60 && isfinite(best); iter++) {
    double d[3], t[3];
    clt_v3_sub(d, pb, pa);
    clt_v3_axpy(t, d, -best, n);
    double tl = clt_v3_norm(t);
    if (tl <= tol) break;
    /* GJK's step 1/|g| apart, but never turning n by more than 0.1 rad (g near 0 when touching). */
    double alpha = fmin(1.0 / fmax(fabs(best), tol), 0.1 / tl) * scale_up;
    bool improved = false;
    for (int half = 0; half < 60 && !improved; half++, alpha *= 0.5) {
      double m[3], qa[3], qb[3];
      clt_v3_axpy(m, n, alpha, t);
      clt_v3_scale(m, m, 1.0 / clt_v3_norm(m));
      double gm = separation(sa, sb, m, qa, qb);
      if (gm > best) {
        best = gm;
        clt_v3_copy(n, m);
        clt_v3_copy(pa, qa);
        clt_v3_copy(pb, qb);
        improved = true;
        scale_up = half == 0 ? fmin(2.0 * scale_up, 1.0) : ldexp(1.0, -half);
      }
    }
    if (!improved) break;
  }
  /* GJK's and EPA's Φ are upper bounds (GJK's points are inside the hull of supports; EPA's face is
   * inside the Minkowski difference, `slack` below its surface), g a lower one: the polished value
   * replaces them when the two agree to 1e-6 of the size beyond that slack, as they do unless the
   * start was in a wrong basin (or `force`: the caller takes g's value whatever the start said). */
  bool agree = isfinite(best) && best >= out->phi - slack - 1e6 * tol;
  if (agree || (force && isfinite(best))) {
    out->phi = best;
    clt_v3_copy(out->n, n);
    /* The witnesses from the shape whose support is one point: a polytope's support along a face
     * normal is any point of the face (the first vertex), a curved shape's is where it touches. */
    if (flat_support(sa->def) && !flat_support(sb->def)) {
      clt_v3_copy(out->pb, pb);
      clt_v3_axpy(out->pa, pb, -best, n);
    } else {
      clt_v3_copy(out->pa, pa);
      clt_v3_axpy(out->pb, pa, best, n);
    }
  }
  return agree;
}

/* The signed distance of two convex shapes by support functions: GJK apart, EPA in overlap. */
static bool support_distance(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, result_t *out) {
  double scale = fmax(shape_size(sa->def), shape_size(sb->def));
  double tol = 1e-12 * scale;
  mpoint_t s[4];
  int n = 1;
  double lambda[4] = {1.0, 0.0, 0.0, 0.0}, v[3], d0[3];
  clt_v3_sub(d0, sb->position, sa->position);
  if (!(clt_v3_norm(d0) > 0.0)) clt_v3_set(d0, 0.0, 0.0, 1.0);
  msupport(sa, sb, d0, &s[0]);
  clt_v3_copy(v, s[0].w);
  bool overlap = false;
  double gap = 0.0; /* EPA's: how far its Φ may lie above the true one */
  double last[3];   /* the last direction GJK searched: the normal of a touching pair */
  clt_v3_copy(last, d0);
  clt_v3_scale(last, last, -1.0);
  for (int iter = 0; iter < 256; iter++) {
    double vv = clt_v3_dot(v, v);
    if (vv <= tol * tol) {
      overlap = true;
      break;
    }
    clt_v3_copy(last, v);
    double d[3];
    clt_v3_scale(d, v, -1.0);
    mpoint_t m;
    msupport(sa, sb, d, &m);
    double vw = clt_v3_dot(v, m.w);
    /* |v| is an upper bound of the distance, v·w/|v| a lower one. */
    if (vv - vw <= tol * sqrt(vv)) break;
    s[n++] = m;
    mpoint_t keep[4];
    double keep_lambda[4];
    int keep_n = n - 1;
    memcpy(keep, s, sizeof keep);
    memcpy(keep_lambda, lambda, sizeof keep_lambda);
    memcpy(keep_lambda, lambda, sizeof keep_lambda);
    double vn[3];
    if (!closest_on_simplex(s, &n, lambda, vn)) {
      overlap = true;
      n = 4;
      break;
    }
    if (clt_v3_dot(vn, vn) >= vv) { /* no progress (rounding): keep the last simplex */
      memcpy(s, keep, sizeof keep);
      memcpy(lambda, keep_lambda, sizeof keep_lambda);
      n = keep_n;
      break;
    }
    clt_v3_copy(v, vn);
  }
  if (!overlap) {
    witnesses(s, n, lambda, out->pa, out->pb);
    double d[3];
    clt_v3_sub(d, out->pb, out->pa);
    out->phi = clt_v3_norm(d);
    if (!(out->phi > 0.0)) return false;
    clt_v3_scale(out->n, d, 1.0 / out->phi);
  } else if (!epa(sa, sb, s, n, 1e2 * tol, out, &gap)) {
    if (!(clt_v3_dot(v, v) <= tol * tol && n < 4)) return false;
    /* Touching to rounding, where EPA's start has no volume: Φ = 0 at the simplex's point, along
     * the last direction GJK searched. */
    witnesses(s, n, lambda, out->pa, out->pb);
    out->phi = 0.0;
    clt_v3_scale(out->n, last, -1.0 / clt_v3_norm(last)); /* v = p_A − p_B: n = −v̂ */
  }
  if (!polish(sa, sb, tol, gap, false, out)) {
    /* GJK's normal where g is far below its distance: two nearly parallel lines touching (logs side
     * by side) give GJK a sliver triangle whose closest point, ~1e-10 from the origin, has a
     * direction left to rounding. g is a lower bound of Φ for every normal: climb it from the line
     * of centres and keep that when it does better than the normal GJK gave. */
    result_t alt = *out;
    double qa[3], qb[3], g_gjk = separation(sa, sb, out->n, qa, qb);
    clt_v3_scale(alt.n, d0, 1.0 / clt_v3_norm(d0));
    if (!polish(sa, sb, tol, gap, false, &alt)) polish(sa, sb, tol, gap, true, &alt);
    if (alt.phi > g_gjk) *out = alt;
  }
  return true;
}

/* ---- flat features: manifolds on a face ---- */

/* Candidate points of a cylinder against a plane of outward normal m (towards the cylinder): the
 * rim points of its lower cap at quarter turns from the lowest when the cap faces the plane, the
 * two ends of its lowest line when it lies on its side; 0 when neither (within 1e-3 rad). */
static int cylinder_flat_points(const clt_placed_shape_t *s, const double m[3], double pts[4][3], int tags[4]) {
  double a[3];
  clt_c3_axis(s, 2, a);
  double am = clt_v3_dot(a, m), r = s->def->radius, h = 0.5 * s->def->length;
  const double flat = 1e-3;
  double u[3]; /* the lowest direction in the cap plane: −m without its axial part */
  clt_v3_scale(u, m, -1.0);
  clt_v3_axpy(u, u, am, a);
  double ul = clt_v3_norm(u);
  if (fabs(am) >= cos(flat)) { /* cap down */
    double cap[3], w[3];
    clt_v3_axpy(cap, s->position, am > 0.0 ? -h : h, a); /* the cap facing the plane */
    if (ul > 1e-12)
      clt_v3_scale(u, u, 1.0 / ul);
    else
      clt_c3_axis(s, 0, u);
    clt_v3_cross(w, a, u);
    for (int k = 0; k < 4; k++) {
      double c = k == 0 ? 1.0 : k == 2 ? -1.0 : 0.0, sn = k == 1 ? 1.0 : k == 3 ? -1.0 : 0.0;
      clt_v3_axpy(pts[k], cap, r * c, u);
      clt_v3_axpy(pts[k], pts[k], r * sn, w);
      tags[k] = (am > 0.0 ? 0 : 4) + k;
    }
    return 4;
  }
  if (fabs(am) <= sin(flat) && ul > 0.0) { /* on its side */
    clt_v3_scale(u, u, 1.0 / ul);
    for (int k = 0; k < 2; k++) {
      clt_v3_axpy(pts[k], s->position, k == 0 ? -h : h, a);
      clt_v3_axpy(pts[k], pts[k], r, u);
      tags[k] = 8 + k;
    }
    return 2;
  }
  return 0;
}

int clt_collide_cylinder_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                   clt_contact_point_t *out) {
  double p[3], m[3], axis[3];
  clt_c3_halfspace(b, p, m);
  clt_c3_axis(a, 2, axis);
  double r = a->def->radius, h = 0.5 * a->def->length, am = clt_v3_dot(axis, m);
  /* Rim points of both caps at quarter turns from each cap's lowest point (the lowest of all is
   * the deepest point of the cylinder). */
  double u[3], w[3];
  clt_v3_scale(u, m, -1.0);
  clt_v3_axpy(u, u, am, axis);
  double ul = clt_v3_norm(u);
  if (ul > 1e-12 * (1.0 + fabs(am)))
    clt_v3_scale(u, u, 1.0 / ul);
  else
    clt_c3_axis(a, 0, u);
  clt_v3_cross(w, axis, u);
  double pts[8][3], phi[8];
  int tags[8], count = 0;
  for (int cap = 0; cap < 2; cap++) {
    double c[3];
    clt_v3_axpy(c, a->position, cap == 0 ? -h : h, axis);
    for (int k = 0; k < 4; k++) {
      double cs = k == 0 ? 1.0 : k == 2 ? -1.0 : 0.0, sn = k == 1 ? 1.0 : k == 3 ? -1.0 : 0.0, x[3], d[3];
      clt_v3_axpy(x, c, r * cs, u);
      clt_v3_axpy(x, x, r * sn, w);
      clt_v3_sub(d, x, p);
      double height = clt_v3_dot(d, m);
      if (height > max_distance) continue;
      clt_v3_copy(pts[count], x);
      phi[count] = height;
      tags[count++] = 4 * cap + k;
    }
  }
  int index[4] = {0, 1, 2, 3}, final = count;
  if (count > 4) {
    final = clt_reduce_manifold(pts[0], sizeof pts[0], phi, count, m, index);
    for (int i = 1; i < final; i++) /* generation order among the kept */
      for (int j = i; j > 0 && index[j] < index[j - 1]; j--) {
        int t = index[j];
        index[j] = index[j - 1];
        index[j - 1] = t;
      }
  }
  double n[3];
  clt_v3_scale(n, m, -1.0);
  for (int k = 0; k < final; k++) {
    double pb[3];
    clt_v3_axpy(pb, pts[index[k]], -phi[index[k]], m);
    clt_c3_set_point(&out[k], phi[index[k]], n, pts[index[k]], pb, tags[index[k]]);
  }
  return final;
}

/* Sphere against a cylinder: the closest point of the solid cylinder to the centre, exactly. */
int clt_collide_cylinder_sphere(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                clt_contact_point_t *out) {
  double d[3], l[3];
  clt_v3_sub(d, b->position, a->position);
  clt_m3_mulv_t(l, a->rotation, d);
  double r = a->def->radius, h = 0.5 * a->def->length, rs = b->def->radius;
  double radial = hypot(l[0], l[1]);
  double q[3], nl[3], dist;
  if (radial <= r && fabs(l[2]) <= h) { /* centre inside: the nearer of the side and the cap */
    double to_side = r - radial, to_cap = h - fabs(l[2]);
    if (to_cap <= to_side) {
      q[0] = l[0];
      q[1] = l[1];
      q[2] = l[2] >= 0.0 ? h : -h;
      nl[0] = nl[1] = 0.0;
      nl[2] = l[2] >= 0.0 ? 1.0 : -1.0;
      dist = -to_cap;
    } else {
      double ux = radial > 0.0 ? l[0] / radial : 1.0, uy = radial > 0.0 ? l[1] / radial : 0.0;
      q[0] = r * ux;
      q[1] = r * uy;
      q[2] = l[2];
      nl[0] = ux;
      nl[1] = uy;
      nl[2] = 0.0;
      dist = -to_side;
    }
  } else {
    double s = radial > r ? r / radial : 1.0;
    q[0] = l[0] * s;
    q[1] = l[1] * s;
    q[2] = clt_c_clamp(l[2], -h, h);
    double e[3];
    clt_v3_sub(e, l, q);
    dist = clt_v3_norm(e);
    clt_v3_scale(nl, e, 1.0 / dist);
  }
  double phi = dist - rs;
  if (phi > max_distance) return 0;
  double n[3], pa[3], pb[3];
  clt_m3_mulv(n, a->rotation, nl);
  clt_m3_mulv(pa, a->rotation, q);
  clt_v3_add(pa, pa, a->position);
  clt_v3_axpy(pb, pa, phi, n);
  clt_c3_set_point(out, phi, n, pa, pb, 0);
  return 1;
}

/* The flat-on-face manifold: a cylinder (c) with its cap or side on face f of polytope r. */
static int cylinder_on_face(const clt_core_t *r, int f, const clt_placed_shape_t *c, bool r_is_a, double max_distance,
                            clt_contact_point_t *out) {
  const double *m = r->fn[f];
  double pts[4][3];
  int tags[4];
  int n = cylinder_flat_points(c, m, pts, tags);
  if (n == 0) return 0;
  int fs = r->face_start[f], fn = r->face_start[f + 1] - fs;
  double slack = 1e-9 * r->scale;
  /* Clip: points (n = 4) kept when inside every side plane; the side line (n = 2) cut to them. */
  double t0 = 0.0, t1 = 1.0;
  bool keep[4] = {true, true, true, true};
  for (int k = 0; k < fn; k++) {
    const double *p0 = r->v[r->face_vertices[fs + k]], *p1 = r->v[r->face_vertices[fs + (k + 1) % fn]];
    double e[3], u[3];
    clt_v3_sub(e, p1, p0);
    clt_v3_cross(u, e, m);
    double len = clt_v3_norm(u);
    if (!(len > 0.0)) continue;
    clt_v3_scale(u, u, 1.0 / len);
    double limit = clt_v3_dot(u, p0);
    if (n == 4) {
      for (int i = 0; i < 4; i++) keep[i] = keep[i] && clt_v3_dot(u, pts[i]) - limit <= slack;
    } else {
      double s0 = clt_v3_dot(u, pts[0]) - limit, s1 = clt_v3_dot(u, pts[1]) - limit;
      if (s0 > slack && s1 > slack) return 0;
      if (s0 > slack) t0 = fmax(t0, s0 / (s0 - s1));
      if (s1 > slack) t1 = fmin(t1, s0 / (s0 - s1));
    }
  }
  if (n == 2) {
    if (!(t0 <= t1)) return 0;
    double d[3], q0[3], q1[3];
    clt_v3_sub(d, pts[1], pts[0]);
    clt_v3_axpy(q0, pts[0], t0, d);
    clt_v3_axpy(q1, pts[0], t1, d);
    clt_v3_copy(pts[0], q0);
    clt_v3_copy(pts[1], q1);
  }
  int count = 0;
  for (int i = 0; i < n; i++) {
    if (!keep[i]) continue;
    double h = clt_v3_dot(pts[i], m) - r->fd[f];
    if (h > max_distance) continue;
    double on_r[3], nab[3];
    clt_v3_axpy(on_r, pts[i], -h, m);
    int feature = 1000000 + 16 * f + tags[i];
    if (r_is_a) {
      clt_v3_copy(nab, m);
      clt_c3_set_point(&out[count++], h, nab, on_r, pts[i], feature);
    } else {
      clt_v3_scale(nab, m, -1.0);
      clt_c3_set_point(&out[count++], h, nab, pts[i], on_r, feature);
    }
  }
  return count;
}

/* Two cylinders whose flat features face each other across the normal n (from a to b): a cap on a
 * cap (coins: the two discs' overlap sampled by each rim's quarter points inside the other disc and
 * the rims' crossings, reduced to 4), a cap on a side (the side's line clipped to the disc) or two
 * parallel sides (the overlap of the two lines). Φ of a point is its distance along n to the other
 * cylinder's flat feature; 0 points when no pair of flat features faces (the exact point stands). */
static int cylinder_pair_flat(const clt_placed_shape_t *a, const clt_placed_shape_t *b, const double n[3],
                              double max_distance, clt_contact_point_t *out) {
  double m[3], pa[4][3], pb[4][3];
  int ta[4], tb[4];
  clt_v3_scale(m, n, -1.0);
  int na = cylinder_flat_points(a, m, pa, ta), nb = cylinder_flat_points(b, n, pb, tb);
  if (na == 0 || nb == 0) return 0;
  double ax[3], bx[3];
  clt_c3_axis(a, 2, ax);
  clt_c3_axis(b, 2, bx);
  double ra = a->def->radius, rb = b->def->radius;
  double slack = 1e-9 * fmax(shape_size(a->def), shape_size(b->def));
  /* Candidate points on a's flat feature (on_a) or on b's (on_b), in the contact plane. */
  double pts[12][3], phi[12];
  int from_b[12], tag[12], count = 0;
  if (na == 4 && nb == 4) {
    double ca[3] = {0, 0, 0}, cb[3] = {0, 0, 0}, e[3], w[3];
    for (int k = 0; k < 4; k++) {
      clt_v3_axpy(ca, ca, 0.25, pa[k]);
      clt_v3_axpy(cb, cb, 0.25, pb[k]);
    }
    clt_v3_sub(e, cb, ca); /* from a's cap centre towards b's, in the plane */
    clt_v3_axpy(e, e, -clt_v3_dot(e, n), n);
    double d = clt_v3_norm(e);
    if (d > slack)
      clt_v3_scale(e, e, 1.0 / d);
    else {
      clt_c3_axis(a, 0, e);
      clt_v3_axpy(e, e, -clt_v3_dot(e, n), n);
      clt_v3_scale(e, e, 1.0 / clt_v3_norm(e));
    }
    clt_v3_cross(w, n, e);
    for (int side = 0; side < 2; side++) {
      const double *c = side ? cb : ca, *o = side ? ca : cb;
      double r = side ? rb : ra, ro = side ? ra : rb;
      for (int k = 0; k < 4; k++) {
        double q[3], dq[3];
        double ce = k == 0 ? 1.0 : k == 2 ? -1.0 : 0.0, cw = k == 1 ? 1.0 : k == 3 ? -1.0 : 0.0;
        clt_v3_axpy(q, c, r * ce, e);
        clt_v3_axpy(q, q, r * cw, w);
        clt_v3_sub(dq, q, o);
        clt_v3_axpy(dq, dq, -clt_v3_dot(dq, n), n);
        if (clt_v3_norm(dq) > ro + slack) continue; /* outside the other disc */
        clt_v3_copy(pts[count], q);
        from_b[count] = side;
        tag[count++] = 8 * side + k;
      }
    }
    /* The rims' crossings (the corners of the lens), on a's rim. */
    if (d < ra + rb && d > fabs(ra - rb)) {
      double x = (d * d + ra * ra - rb * rb) / (2 * d), y = sqrt(fmax(0.0, ra * ra - x * x));
      for (int k = 0; k < 2; k++) {
        clt_v3_axpy(pts[count], ca, x, e);
        clt_v3_axpy(pts[count], pts[count], k ? -y : y, w);
        from_b[count] = 0;
        tag[count++] = 16 + k;
      }
    }
  } else if (na == 2 && nb == 2) { /* sides: parallel lines only */
    double c[3];
    clt_v3_cross(c, ax, bx);
    if (clt_v3_norm(c) > sin(1e-3)) return 0;
    double dir[3], len2;
    clt_v3_sub(dir, pa[1], pa[0]);
    len2 = clt_v3_dot(dir, dir);
    double t0 = 0.0, t1 = 1.0, s0[3], s1[3];
    clt_v3_sub(s0, pb[0], pa[0]);
    clt_v3_sub(s1, pb[1], pa[0]);
    double u0 = clt_v3_dot(s0, dir) / len2, u1 = clt_v3_dot(s1, dir) / len2;
    t0 = fmax(t0, fmin(u0, u1));
    t1 = fmin(t1, fmax(u0, u1));
    if (!(t0 <= t1)) return 0;
    for (int k = 0; k < 2; k++) {
      clt_v3_axpy(pts[count], pa[0], k ? t1 : t0, dir);
      from_b[count] = 0;
      tag[count++] = 20 + k;
    }
  } else { /* a cap on a side: the side's line clipped to the disc */
    bool cap_a = na == 4;
    const double (*cap)[3] = cap_a ? pa : pb, (*line)[3] = cap_a ? pb : pa;
    double centre[3] = {0, 0, 0}, r = cap_a ? ra : rb;
    for (int k = 0; k < 4; k++) clt_v3_axpy(centre, centre, 0.25, cap[k]);
    double dir[3], f[3];
    clt_v3_sub(dir, line[1], line[0]);
    clt_v3_sub(f, line[0], centre);
    clt_v3_axpy(dir, dir, -clt_v3_dot(dir, n), n); /* in the plane */
    clt_v3_axpy(f, f, -clt_v3_dot(f, n), n);
    double qa = clt_v3_dot(dir, dir), qb = 2 * clt_v3_dot(f, dir), qc = clt_v3_dot(f, f) - r * r;
    double disc = qb * qb - 4 * qa * qc;
    if (!(qa > 0.0) || disc < 0.0) return 0;
    double t0 = fmax(0.0, (-qb - sqrt(disc)) / (2 * qa)), t1 = fmin(1.0, (-qb + sqrt(disc)) / (2 * qa));
    if (!(t0 <= t1)) return 0;
    double full[3];
    clt_v3_sub(full, line[1], line[0]);
    for (int k = 0; k < 2; k++) {
      clt_v3_axpy(pts[count], line[0], k ? t1 : t0, full);
      from_b[count] = cap_a ? 1 : 0;
      tag[count++] = 24 + k;
    }
  }
  /* Φ: along n from the point's own feature to the other's flat feature, the plane of its cap or
   * the plane that touches its side along the line (normal: n without the axial part). */
  double plane_p[2][3], plane_n[2][3];
  for (int side = 0; side < 2; side++) {
    const double (*f)[3] = side ? pb : pa, *axis = side ? bx : ax;
    if ((side ? nb : na) == 4) {
      memset(plane_p[side], 0, sizeof plane_p[side]);
      for (int k = 0; k < 4; k++) clt_v3_axpy(plane_p[side], plane_p[side], 0.25, f[k]);
      clt_v3_copy(plane_n[side], axis);
    } else {
      clt_v3_copy(plane_p[side], f[0]);
      clt_v3_axpy(plane_n[side], n, -clt_v3_dot(n, axis), axis);
      clt_v3_scale(plane_n[side], plane_n[side], 1.0 / clt_v3_norm(plane_n[side]));
    }
  }
  for (int i = 0; i < count; i++) {
    int o = from_b[i] ? 0 : 1; /* the other cylinder's plane */
    double d[3];
    clt_v3_sub(d, plane_p[o], pts[i]);
    phi[i] = (from_b[i] ? -1.0 : 1.0) * clt_v3_dot(d, plane_n[o]) / clt_v3_dot(n, plane_n[o]);
  }
  int keep[4] = {0, 1, 2, 3}, final = count;
  if (count > 4) final = clt_reduce_manifold(pts[0], sizeof pts[0], phi, count, n, keep);
  int written = 0;
  for (int k = 0; k < final; k++) {
    int i = keep[k];
    if (phi[i] > max_distance) continue;
    double on_a[3], on_b[3];
    if (from_b[i]) {
      clt_v3_copy(on_b, pts[i]);
      clt_v3_axpy(on_a, pts[i], -phi[i], n);
    } else {
      clt_v3_copy(on_a, pts[i]);
      clt_v3_axpy(on_b, pts[i], phi[i], n);
    }
    clt_c3_set_point(&out[written++], phi[i], n, on_a, on_b, 3000000 + tag[i]);
  }
  return written;
}

int clt_collide_triangle_support(const clt_core_t *tri, const clt_placed_shape_t *mesh, const double local[3][3],
                                 const clt_placed_shape_t *other, double max_distance, clt_contact_point_t *out) {
  /* The triangle as a polyhedron of three vertices for the support functions (its size for the
   * tolerances); the mesh's pose places it. */
  clt_convex_t hull;
  memset(&hull, 0, sizeof hull);
  double v[3][3];
  memcpy(v, local, sizeof v);
  hull.vertices = v;
  hull.vertex_count = 3;
  for (int i = 0; i < 3; i++) {
    double e[3];
    clt_v3_sub(e, v[(i + 1) % 3], v[i]);
    hull.size = fmax(hull.size, clt_v3_norm(e));
    hull.bound_radius = fmax(hull.bound_radius, clt_v3_norm(v[i]));
  }
  clt_shape_def_t def = *mesh->def;
  def.type = CLT_SHAPE_POLYHEDRON;
  def.convex = &hull;
  clt_placed_shape_t placed = *mesh;
  placed.def = &def;
  result_t exact;
  if (!support_distance(&placed, other, &exact)) return CLT_COLLIDE_FAILED;
  /* The face normal (see clt_collide_support), then a cylinder's manifold on the face. */
  int count = 0;
  double qa[3], qb[3], gf = separation(&placed, other, tri->fn[0], qa, qb);
  if (gf >= exact.phi) {
    exact.phi = gf;
    clt_v3_copy(exact.n, tri->fn[0]);
    clt_v3_copy(exact.pb, qb);
    clt_v3_axpy(exact.pa, qb, -gf, exact.n);
  }
  if (other->def->type == CLT_SHAPE_CYLINDER && clt_v3_dot(tri->fn[0], exact.n) >= cos(1e-3))
    count = cylinder_on_face(tri, 0, other, true, max_distance, out);
  if (exact.phi > max_distance) return count;
  double deepest = INFINITY;
  for (int i = 0; i < count; i++) deepest = fmin(deepest, out[i].distance);
  double scale = fmax(hull.size, shape_size(other->def));
  if (count == 0 || fabs(deepest - exact.phi) > 1e-9 * scale)
    clt_c3_set_point(&out[count++], exact.phi, exact.n, exact.pa, exact.pb, 2000000);
  return count;
}

/* Every support-function pair: the exact point, and a flat manifold where a cylinder's cap or side
 * lies on a face of a box or polyhedron (the exact point added when the manifold misses it). */
int clt_collide_support(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                        clt_contact_point_t *out) {
  /* Bounding spheres first: nothing within range. */
  double d[3];
  clt_v3_sub(d, b->position, a->position);
  double ra = shape_size(a->def), rb = shape_size(b->def); /* ≥ the bounding radii about the origins */
  if (a->def->type == CLT_SHAPE_POLYHEDRON) ra = a->def->convex->bound_radius;
  if (b->def->type == CLT_SHAPE_POLYHEDRON) rb = b->def->convex->bound_radius;
  if (clt_v3_norm(d) - ra - rb > max_distance) return 0;
  result_t exact;
  if (!support_distance(a, b, &exact)) return CLT_COLLIDE_FAILED;
  if (exact.phi > max_distance) return 0;
  int count = 0;
  /* A polytope's face nearest the contact normal: g is kinked at a face normal (the polytope's support
   * switches vertex there, and a cylinder's too when it lies on its side or end), where the ascent
   * may stop ~1e-3 rad short; the face normal is the optimum whenever it separates at least as
   * well. A cylinder whose end or side then lies on that face gets its manifold. */
  for (int side = 0; side < 2 && count == 0; side++) {
    const clt_placed_shape_t *poly = side == 0 ? a : b, *other = side == 0 ? b : a;
    if (!flat_support(poly->def) || flat_support(other->def)) continue;
    clt_core_t core;
    if (!clt_core_make(poly, &core)) return CLT_COLLIDE_FAILED;
    double m[3]; /* outward from the polytope */
    clt_v3_scale(m, exact.n, side == 0 ? 1.0 : -1.0);
    int best = 0;
    for (int f = 1; f < core.nf; f++)
      if (clt_v3_dot(core.fn[f], m) > clt_v3_dot(core.fn[best], m)) best = f;
    double nf[3], qa[3], qb[3];
    clt_v3_scale(nf, core.fn[best], side == 0 ? 1.0 : -1.0);
    double gf = separation(a, b, nf, qa, qb);
    if (gf >= exact.phi) { /* the witnesses from the curved side (the face's support is a vertex) */
      exact.phi = gf;
      clt_v3_copy(exact.n, nf);
      if (side == 0) {
        clt_v3_copy(exact.pb, qb);
        clt_v3_axpy(exact.pa, qb, -gf, nf);
      } else {
        clt_v3_copy(exact.pa, qa);
        clt_v3_axpy(exact.pb, qa, gf, nf);
      }
    }
    if (other->def->type == CLT_SHAPE_CYLINDER && fabs(clt_v3_dot(exact.n, nf)) >= cos(1e-3))
      count = cylinder_on_face(&core, best, other, side == 0, max_distance, out);
    clt_core_free(&core);
  }
  if (a->def->type == CLT_SHAPE_CYLINDER && b->def->type == CLT_SHAPE_CYLINDER)
    count = cylinder_pair_flat(a, b, exact.n, max_distance, out);
  double deepest = INFINITY;
  for (int i = 0; i < count; i++) deepest = fmin(deepest, out[i].distance);
  double scale = fmax(shape_size(a->def), shape_size(b->def));
  if (count == 0 || fabs(deepest - exact.phi) > 1e-9 * scale)
    clt_c3_set_point(&out[count++], exact.phi, exact.n, exact.pa, exact.pb, 2000000);
  return count;
}
