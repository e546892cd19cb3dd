/* 3D ellipsoid pairs (SPEC.md §5): shared-normal points by a safeguarded Newton iteration.
 *
 * As in 2D (ellipse_2d.c), for convex A and B the signed distance is the largest support-function
 * separation g(u) = −h_A(u) − h_B(−u) = u·(p_B − p_A) over unit directions u, with p_A =
 * support_A(u), p_B = support_B(−u), and at a maximizer p_B − p_A is parallel to u: the outward
 * normals at p_A and p_B are u and −u (002 §2.1.6). The unknown is the normal direction (two
 * parameters on the unit sphere). Riemannian gradient and Hessian of g on the sphere:
 *   grad = P (p_B − p_A),   Hess = −P (H_A(u) + H_B(−u)) P − g(u) P,   P = I − u uᵀ,
 * with H the Hessian of the support function (ellipsoid: M/s − M u uᵀ M / s³, M = R diag(a²) Rᵀ,
 * s² = uᵀ M u; sphere: r P). Newton steps in the tangent plane, accepted only if g increases
 * (else halved; where the Hessian is not negative definite, a gradient step), from the
 * centre-to-centre direction and the best few of a fixed sample of directions; the best result
 * is kept. Only smooth partners (ellipsoid, sphere) are in the pair table: against a box or a
 * capsule g has kinks where Newton stalls, and those pairs are not implemented yet. Against a
 * half-space: the closed-form support point along −n. */
#include <math.h>
#include <string.h>

#include "collision/primitives_3d.h"

#define SAMPLE_COUNT 128
#define START_COUNT 4

typedef struct convex3_t {
  clt_shape_type_t type; /* ellipsoid or sphere */
  double c[3];
  double m[3][3];        /* ellipsoid: R diag(a²) Rᵀ */
  double r;              /* sphere radius */
  double bound;          /* bounding sphere radius about c */
} convex3_t;

static void make_convex3(const clt_placed_shape_t *s, convex3_t *k) {
  memset(k, 0, sizeof *k);
  k->type = s->def->type;
  clt_v3_copy(k->c, s->position);
  if (k->type == CLT_SHAPE_SPHERE) {
    k->r = s->def->radius;
    k->bound = k->r;
    return;
  }
  const double *a = s->def->semi_axes;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      k->m[i][j] = s->rotation[i][0] * s->rotation[j][0] * a[0] * a[0] +
                   s->rotation[i][1] * s->rotation[j][1] * a[1] * a[1] +
                   s->rotation[i][2] * s->rotation[j][2] * a[2] * a[2];
  k->bound = fmax(fmax(a[0], a[1]), a[2]);
}

/* Support point of unit w and the Hessian of the support function there. */
static void support3(const convex3_t *k, const double w[3], double p[3], double h[3][3]) {
  if (k->type == CLT_SHAPE_SPHERE) {
    clt_v3_axpy(p, k->c, k->r, w);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) h[i][j] = k->r * ((i == j ? 1.0 : 0.0) - w[i] * w[j]);
    return;
  }
  double mw[3];
  clt_m3_mulv(mw, k->m, w);
  double s2 = clt_v3_dot(w, mw), s = sqrt(s2);
  clt_v3_axpy(p, k->c, 1.0 / s, mw);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) h[i][j] = k->m[i][j] / s - mw[i] * mw[j] / (s2 * s);
}

typedef struct eval3_t {
  double g;
  double pa[3], pb[3];
  double grad[2];    /* in the tangent basis t1, t2 */
  double hess[2][2];
  double t1[3], t2[3];
} eval3_t;

static void evaluate(const convex3_t *a, const convex3_t *b, const double u[3], eval3_t *ev) {
  double mu[3], ha[3][3], hb[3][3], diff[3];
  clt_v3_scale(mu, u, -1.0);
  support3(a, u, ev->pa, ha);
  support3(b, mu, ev->pb, hb);
  clt_v3_sub(diff, ev->pb, ev->pa);
  ev->g = clt_v3_dot(diff, u);
  clt_v3_basis(u, ev->t1, ev->t2);
  const double *t[2] = {ev->t1, ev->t2};
  for (int i = 0; i < 2; i++) {
    ev->grad[i] = clt_v3_dot(t[i], diff);
    for (int j = 0; j < 2; j++) {
      double hj[3], sum[3][3];
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) sum[r][c] = -(ha[r][c] + hb[r][c]);
      clt_m3_mulv(hj, sum, t[j]);
      ev->hess[i][j] = clt_v3_dot(t[i], hj) - (i == j ? ev->g : 0.0);
    }
  }
}

/* Local maximization of g from u (unit); returns the final u in u. */
static void newton_ascent(const convex3_t *a, const convex3_t *b, double u[3], double scale, eval3_t *ev) {
  evaluate(a, b, u, ev);
  for (int it = 0; it < 60; it++) {
    double gn = hypot(ev->grad[0], ev->grad[1]);
    if (gn <= 1e-15 * scale) break;
    double h11 = ev->hess[0][0], h12 = 0.5 * (ev->hess[0][1] + ev->hess[1][0]), h22 = ev->hess[1][1];
    double det = h11 * h22 - h12 * h12, step[2];
    bool newton = h11 < 0.0 && det > 0.0;
    if (newton) { /* negative definite: Newton */
      step[0] = -(h22 * ev->grad[0] - h12 * ev->grad[1]) / det;
      step[1] = -(-h12 * ev->grad[0] + h11 * ev->grad[1]) / det;
    } else { /* gradient ascent with a step of the order of an angle over the shape size */
      step[0] = ev->grad[0] / scale;
      step[1] = ev->grad[1] / scale;
    }
    double len = hypot(step[0], step[1]);
    if (len > 0.5) { /* at most ~30° per iteration */
      step[0] *= 0.5 / len;
      step[1] *= 0.5 / len;
    }
    bool accepted = false;
    if (newton && len < 1e-5) {
      /* Near the maximum g changes by O(step²), below rounding once the step is under ~1e-8: take
       * the Newton step without the ascent test (quadratic convergence from here). */
      for (int k = 0; k < 3; k++) u[k] += step[0] * ev->t1[k] + step[1] * ev->t2[k];
      clt_v3_scale(u, u, 1.0 / clt_v3_norm(u));
      evaluate(a, b, u, ev);
      if (len < 1e-15) break;
      continue;
    }
    for (int half = 0; half < 40; half++) {
      double v[3];
      for (int k = 0; k < 3; k++) v[k] = u[k] + step[0] * ev->t1[k] + step[1] * ev->t2[k];
      clt_v3_scale(v, v, 1.0 / clt_v3_norm(v));
      eval3_t trial;
      evaluate(a, b, v, &trial);
      if (trial.g >= ev->g) {
        bool moved = v[0] != u[0] || v[1] != u[1] || v[2] != u[2];
        clt_v3_copy(u, v);
        *ev = trial;
        accepted = moved;
        break;
      }
      step[0] *= 0.5;
      step[1] *= 0.5;
    }
    if (!accepted) break;
  }
}

/* A Fibonacci sphere of SAMPLE_COUNT directions (computed per query: no shared state, so queries
 * may run in parallel). */
static void sample_directions(double dirs[SAMPLE_COUNT][3]) {
  const double golden = CLT_PI * (3.0 - sqrt(5.0));
  for (int i = 0; i < SAMPLE_COUNT; i++) {
    double z = 1.0 - 2.0 * (i + 0.5) / SAMPLE_COUNT, r = sqrt(1.0 - z * z);
    dirs[i][0] = r * cos(golden * i);
    dirs[i][1] = r * sin(golden * i);
    dirs[i][2] = z;
  }
}

static int shared_normal_contact3(const convex3_t *a, const convex3_t *b, double max_distance,
                                  clt_contact_point_t *out) {
  double d[3];
  clt_v3_sub(d, b->c, a->c);
  double dist = clt_v3_norm(d);
  if (dist - a->bound - b->bound > max_distance) return 0;
  double scale = a->bound + b->bound;
  /* Starting directions: centre to centre, and the best of the sample. */
  double dirs[SAMPLE_COUNT][3];
  sample_directions(dirs);
  int start[START_COUNT];
  double start_g[START_COUNT];
  for (int k = 0; k < START_COUNT; k++) start[k] = -1, start_g[k] = -INFINITY;
  for (int i = 0; i < SAMPLE_COUNT; i++) {
    double p[3], h[3][3], mu[3], q[3];
    support3(a, dirs[i], p, h);
    clt_v3_scale(mu, dirs[i], -1.0);
    support3(b, mu, q, h);
    double diff[3];
    clt_v3_sub(diff, q, p);
    double g = clt_v3_dot(diff, dirs[i]);
    for (int k = 0; k < START_COUNT; k++)
      if (g > start_g[k]) {
        for (int m = START_COUNT - 1; m > k; m--) start[m] = start[m - 1], start_g[m] = start_g[m - 1];
        start[k] = i, start_g[k] = g;
        break;
      }
  }
  eval3_t best;
  memset(&best, 0, sizeof best);
  best.g = -INFINITY;
  double best_u[3] = {0.0, 0.0, 1.0};
  for (int k = -1; k < START_COUNT; k++) {
    double u[3];
    if (k < 0) {
      if (!(dist > 0.0)) continue;
      clt_v3_scale(u, d, 1.0 / dist);
    } else {
      if (start[k] < 0) continue;
      clt_v3_copy(u, dirs[start[k]]);
    }
    eval3_t ev;
    newton_ascent(a, b, u, scale, &ev);
    if (ev.g > best.g) {
      best = ev;
      clt_v3_copy(best_u, u);
    }
  }
  if (best.g > max_distance) return 0;
  double pa[3], pb[3];
  clt_v3_copy(pa, best.pa);
  clt_v3_copy(pb, best.pb);
  clt_c3_set_point(out, best.g, best_u, pa, pb, 0);
  return 1;
}

int clt_collide_ellipsoid_convex(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double max_distance,
                                 clt_contact_point_t *out) {
  convex3_t a, b;
  make_convex3(sa, &a);
  make_convex3(sb, &b);
  return shared_normal_contact3(&a, &b, max_distance, out);
}

int clt_collide_ellipsoid_halfspace(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                    double max_distance, clt_contact_point_t *out) {
  convex3_t a;
  make_convex3(sa, &a);
  double p[3], m[3], n[3], s[3], h[3][3], d[3];
  clt_c3_halfspace(sb, p, m);
  clt_v3_scale(n, m, -1.0);
  support3(&a, n, s, h);
  clt_v3_sub(d, s, p);
  double phi = clt_v3_dot(d, m);
  if (phi > max_distance) return 0;
  double pb[3];
  clt_v3_axpy(pb, s, -phi, m);
  clt_c3_set_point(out, phi, n, s, pb, 0);
  return 1;
}
