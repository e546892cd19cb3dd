/* The face refinement that ends an APGD or BBPGD solve of the cone QP (docs/stepping.md "Face
 * refinement"): on the face of the feasible set that z lies on (free variables, bounded variables
 * z_i > 0, cones with z strictly inside), the KKT conditions are the linear equations w_F = 0, and
 * conjugate gradients on M_FF d = −w_F (the variables off the face held) solve them to round-off in
 * a few products where a projected gradient creeps at the rate of M's conditioning. The refined
 * point is kept only if it is feasible and its natural-map residual is lower. */
#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "solvers/lcp_internal.h"

/* A cone member counts as strictly inside when ‖z_T‖ < (1 − this) μ z_N: one on the boundary
 * slides, and its friction is not a linear function of the face's unknowns. */
#define FACE_CONE_MARGIN 1e-9

static double tangential(int dim, const double *z) {
  return dim == 3 ? hypot(z[1], z[2]) : fabs(z[1]); /* as lcp.c measures a cone */
}

/* face[i] = 1 for the unknowns on z's face; returns how many. */
static int face_of(const clt_lcp_t *p, const clt_cone_set_t *cones, const double *z, unsigned char *face) {
  int n = p->n, count = 0, next = 0;
  bool with_cones = cones && cones->count > 0;
  for (int i = 0; i < p->free_count; i++) face[i] = 1;
  count += p->free_count;
  for (int i = p->free_count; i < n;) {
    if (with_cones && next < cones->count && cones->start[next] == i) {
      int dim = cones->dim;
      double mu = cones->mu[next];
      bool inside = z[i] > 0.0 && tangential(dim, z + i) < (1.0 - FACE_CONE_MARGIN) * mu * z[i];
      /* μ = 0: the cone is the ray z_T = 0, and only z_N is free on it */
      face[i] = z[i] > 0.0 && (inside || mu == 0.0);
      for (int k = 1; k < dim; k++) face[i + k] = inside;
      for (int k = 0; k < dim; k++) count += face[i + k];
      i += dim;
      next++;
    } else {
      face[i] = z[i] > lcp_lower(p, i) && z[i] < lcp_upper(p, i);
      count += face[i];
      i++;
    }
  }
  return count;
}

static bool feasible(const clt_lcp_t *p, const clt_cone_set_t *cones, const double *z) {
  int n = p->n, next = 0;
  bool with_cones = cones && cones->count > 0;
  for (int i = p->free_count; i < n;) {
    if (with_cones && next < cones->count && cones->start[next] == i) {
      if (!(tangential(cones->dim, z + i) <= cones->mu[next] * z[i])) return false;
      i += cones->dim;
      next++;
    } else {
      if (!(z[i] >= lcp_lower(p, i) && z[i] <= lcp_upper(p, i))) return false;
      i++;
    }
  }
  return true;
}

int lcp_qp_refine_face(const clt_lcp_t *p, const clt_cone_set_t *cones, const clt_solver_options_t *o,
                       clt_arena_t *arena, int iterations, double scale, double *z, double *w,
                       clt_solve_result_t *r) {
  int n = p->n;
  if (n == 0 || iterations <= 0 || r->status == CLT_SOLVE_ERROR || r->residual_abs == 0.0 ||
      !isfinite(r->residual_abs))
    return 0;
  /* at most as many products as the solve took (so at most doubling its cost), and no more than
   * CG needs in exact arithmetic (n) */
  int budget = iterations < n ? iterations : n;
  if (budget < 10) budget = 10;
  /* and within the caller's cap on the solve's products, the refined point's own product included */
  if (budget > o->max_iterations - iterations - 1) budget = o->max_iterations - iterations - 1;
  if (budget <= 0) return 0;
  size_t bytes = sizeof(double) * (size_t)n;
  int mark = clt_arena_mark(arena);
  unsigned char *face = clt_arena_alloc(arena, (size_t)n);
  double *d = clt_arena_alloc(arena, bytes), *res = clt_arena_alloc(arena, bytes);
  double *dir = clt_arena_alloc(arena, bytes), *mdir = clt_arena_alloc(arena, bytes);
  double *zn = clt_arena_alloc(arena, bytes), *wn = clt_arena_alloc(arena, bytes);
  if (!face || !d || !res || !dir || !mdir || !zn || !wn || face_of(p, cones, z, face) == 0) {
    clt_arena_pop(arena, mark);
    return 0;
  }
  /* What the face cannot mend: the residual with w_F = 0. Above the tolerance, z is on the wrong
   * face (a contact to release or to slide), and only the projected gradient can move it off. */
  double target = 1e-6 * o->tolerance * scale, largest = 0.0;
  for (int i = 0; i < n; i++) {
    wn[i] = face[i] ? 0.0 : w[i];
    if (face[i]) largest = fmax(largest, fabs(w[i]));
  }
  if (largest <= target || !(lcp_cone_residual_abs(p, cones, z, wn) <= o->tolerance * scale)) {
    clt_arena_pop(arena, mark);
    return 0;
  }
  /* CG from d = 0 on M_FF d = −w_F, to far below the tolerance so that the next warm-started
   * solve starts below it */
  double rr = 0.0;
  for (int i = 0; i < n; i++) {
    d[i] = 0.0;
    res[i] = face[i] ? -w[i] : 0.0;
    dir[i] = res[i];
    rr += res[i] * res[i];
  }
  int products = 0, best_at = 0, steps = 0;
  double best = INFINITY;
  /* CG's residual is not monotone; it stops once 10 products have not lowered it (round-off), and
   * at the first iterate that leaves the feasible set (a contact on the face has to lift off or
   * slide: the face was not the solution's), keeping the last feasible one */
  while (products < budget && products - best_at < 10) {
    lcp_apply(p, dir, NULL, mdir, o->threads);
    products++;
    double curvature = 0.0;
    for (int i = 0; i < n; i++) {
      if (!face[i]) mdir[i] = 0.0;
      curvature += dir[i] * mdir[i];
    }
    if (!(curvature > 0.0)) break;
    double alpha = rr / curvature;
    for (int i = 0; i < n; i++) zn[i] = z[i] + (d[i] + alpha * dir[i]);
    if (!feasible(p, cones, zn)) break;
    double rr_next = 0.0;
    largest = 0.0;
    for (int i = 0; i < n; i++) {
      d[i] += alpha * dir[i];
      res[i] -= alpha * mdir[i];
      rr_next += res[i] * res[i];
      largest = fmax(largest, fabs(res[i]));
    }
    steps++;
    if (largest <= target || !isfinite(rr_next)) break;
    if (largest < best) {
      best = largest;
      best_at = products;
    }
    double beta = rr_next / rr;
    rr = rr_next;
    for (int i = 0; i < n; i++) dir[i] = res[i] + beta * dir[i];
  }
  if (steps > 0) {
    for (int i = 0; i < n; i++) zn[i] = z[i] + d[i];
    lcp_apply(p, zn, p->q, wn, o->threads);
    products++;
    double residual = lcp_cone_residual_abs(p, cones, zn, wn);
    if (residual < r->residual_abs) {
      memcpy(z, zn, bytes);
      memcpy(w, wn, bytes);
      r->residual_abs = residual;
      r->residual = residual / scale;
      if (r->residual <= o->tolerance &&
          (r->status == CLT_SOLVE_MAX_ITERATIONS || r->status == CLT_SOLVE_NOT_CONVERGED)) {
        r->status = CLT_SOLVE_SOLVED;
        r->message[0] = '\0';
      }
    }
  }
  clt_arena_pop(arena, mark);
  return products;
}
