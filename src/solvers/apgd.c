/* APGD: Nesterov's accelerated projected gradient with an adaptive step and gradient restart
 * (SPEC.md §2.3; Mazhar, Heyn, Negrut, Tasora 2015) for the QP
 *   min ½ zᵀ M z + qᵀ z over z ≥ 0 (free variables unbounded, optional second-order cones),
 * whose KKT conditions are the LCP when M is symmetric PSD.
 *
 * One product with M per iteration (at the new iterate, so its residual is exact): M y is
 * recovered from the products at the two last iterates (y is their affine combination) and
 * recomputed exactly every APGD_REFRESH iterations. The Lipschitz estimate L grows by backtracking on the exact quadratic
 * ½ dᵀ M d ≤ ½ L ‖d‖² (no cancellation in f(x) − f(y)) and shrinks by 0.9 each iteration. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "solvers/lcp_internal.h"

#define APGD_REFRESH 50

static double dot(int n, const double *a, const double *b) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* Shared by APGD and BBPGD: the "does not apply" check. */
bool lcp_qp_applies(const clt_lcp_t *p, const char *name, clt_solve_result_t *r) {
  double asym = lcp_asymmetry(p->M);
  if (asym > 1e-8) {
    r->status = CLT_SOLVE_ERROR;
    lcp_set_message(r, "matrix not symmetric (relative asymmetry %.3g): %s does not apply", asym,
                    name);
    return false;
  }
  return true;
}

/* Rough start for L: ‖M v‖ / ‖v‖ for a fixed positive v; backtracking corrects it. */
double lcp_qp_lipschitz_guess(const clt_lcp_t *p, double *tmp_x, double *tmp_y, int threads) {
  int n = p->n;
  for (int i = 0; i < n; i++) tmp_x[i] = 1.0 + 0.5 * (double)((i * 7919) % 13) / 13.0;
  lcp_apply(p, tmp_x, NULL, tmp_y, threads);
  double l = sqrt(dot(n, tmp_y, tmp_y) / dot(n, tmp_x, tmp_x));
  return l > 0.0 && isfinite(l) ? l : 1.0;
}

clt_status_t lcp_solve_apgd(const clt_lcp_t *p, const clt_cone_set_t *cones,
                            const clt_solver_options_t *o, double *z, double *w,
                            clt_solve_result_t *r) {
  if (!lcp_qp_applies(p, "apgd", r)) return CLT_OK;
  int n = p->n;
  size_t bytes = sizeof(double) * (size_t)n;
  clt_scratch_t scratch;
  clt_arena_t *a = clt_scratch_begin(&scratch, o->arena);
  double *x = clt_arena_alloc(a, bytes), *mx = clt_arena_alloc(a, bytes), *y = clt_arena_alloc(a, bytes);
  double *my = clt_arena_alloc(a, bytes), *xn = clt_arena_alloc(a, bytes), *mxn = clt_arena_alloc(a, bytes);
  double *g = clt_arena_alloc(a, bytes), *best = clt_arena_alloc(a, bytes);
  double *wv = w ? w : clt_arena_alloc(a, bytes);
  if (!x || !mx || !y || !my || !xn || !mxn || !g || !best || !wv) {
    clt_scratch_end(&scratch);
    lcp_set_message(r, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  const double *q = p->q;
  double scale = 1.0 + lcp_norm_inf(n, q);
  if (o->warm_start)
    memcpy(x, z, bytes);
  else
    memset(x, 0, bytes);
  lcp_project(p, cones, x);
  lcp_apply(p, x, NULL, mx, o->threads);
  memcpy(y, x, bytes);
  memcpy(my, mx, bytes);
  double theta = 1.0, best_res = INFINITY;
  int it = 0;
  r->status = CLT_SOLVE_MAX_ITERATIONS;
  for (int i = 0; i < n; i++) wv[i] = mx[i] + q[i];
  best_res = lcp_cone_residual_abs(p, cones, x, wv);
  memcpy(best, x, bytes);
  if (best_res / scale <= o->tolerance) {
    /* the start meets the tolerance (a warm start at rest): its product is fresh, and w = M z + q
     * is already the sum lcp_apply forms */
    memcpy(z, x, bytes);
    r->status = CLT_SOLVE_SOLVED;
    r->iterations = 0;
    r->residual_abs = best_res;
    r->residual = best_res / scale;
    r->message[0] = '\0';
    clt_scratch_end(&scratch);
    return CLT_OK;
  }
  double L = lcp_qp_lipschitz_guess(p, xn, mxn, o->threads);
  while (it < o->max_iterations) {
    it++;
    for (int i = 0; i < n; i++) g[i] = my[i] + q[i];
    for (int tries = 0;; tries++) {
      double t = 1.0 / L;
      for (int i = 0; i < n; i++) xn[i] = y[i] - t * g[i];
      lcp_project(p, cones, xn);
      lcp_apply(p, xn, NULL, mxn, o->threads);
      double dd = 0.0, dmd = 0.0;
      for (int i = 0; i < n; i++) {
        double d = xn[i] - y[i];
        dd += d * d;
        dmd += d * (mxn[i] - my[i]);
      }
      if (dmd <= L * dd || tries > 60) break;
      L *= 2.0;
    }
    for (int i = 0; i < n; i++) wv[i] = mxn[i] + q[i];
    double res = lcp_cone_residual_abs(p, cones, xn, wv);
    if (!isfinite(res)) {
      r->status = CLT_SOLVE_ERROR;
      lcp_set_message(r, "apgd diverged (non-finite iterate) after %d iterations", it);
      break;
    }
    if (res < best_res) {
      best_res = res;
      memcpy(best, xn, bytes);
    }
    if (res / scale <= o->tolerance) {
      memcpy(x, xn, bytes);
      r->status = CLT_SOLVE_SOLVED;
      break;
    }
    double theta_new = 0.5 * (-theta * theta + theta * sqrt(theta * theta + 4.0));
    double beta = theta * (1.0 - theta) / (theta * theta + theta_new);
    /* Gradient restart (O'Donoghue–Candès): the momentum points uphill. */
    double gdx = 0.0;
    for (int i = 0; i < n; i++) gdx += g[i] * (xn[i] - x[i]);
    if (gdx > 0.0) {
      beta = 0.0;
      theta_new = 1.0;
    }
    for (int i = 0; i < n; i++) {
      y[i] = xn[i] + beta * (xn[i] - x[i]);
      my[i] = mxn[i] + beta * (mxn[i] - mx[i]);
    }
    if (it % APGD_REFRESH == 0) lcp_apply(p, y, NULL, my, o->threads);
    double *tmp = x;
    x = xn;
    xn = tmp;
    tmp = mx;
    mx = mxn;
    mxn = tmp;
    theta = theta_new;
    L *= 0.9;
  }
  if (r->status == CLT_SOLVE_SOLVED)
    memcpy(z, x, bytes);
  else
    memcpy(z, best, bytes);
  /* The reported residual always comes from a fresh product. */
  lcp_finish_projected(p, cones, o, z, q, wv, it, scale, "apgd", r);
  r->iterations += lcp_qp_refine_face(p, cones, o, a, it, scale, z, wv, r);
  clt_scratch_end(&scratch);
  return CLT_OK;
}
