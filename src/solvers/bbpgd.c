/* BBPGD: Barzilai–Borwein projected gradient (SPEC.md §2.3) for the QP of apgd.c, safeguarded as
 * the spectral projected gradient method of Birgin, Martínez and Raydan: the BB step (alternating
 * BB1 = sᵀs/sᵀy and BB2 = sᵀy/yᵀy) is clamped to [α_min, α_max], and a nonmonotone line search
 * (Grippo–Lampariello–Lucidi, memory BBPGD_MEMORY) along the projected direction guarantees
 * convergence. f is quadratic, so the line search needs no extra product: f(x + λd) =
 * f + λ gᵀd + ½ λ² dᵀMd. One product with M per iteration; the gradient is refreshed exactly every
 * BBPGD_REFRESH iterations and before a convergence claim. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "solvers/lcp_internal.h"

#define BBPGD_MEMORY 10
#define BBPGD_REFRESH 50

clt_status_t lcp_solve_bbpgd(const clt_lcp_t *p, const clt_cone_set_t *cones,
                             const clt_solver_options_t *o, double *z, double *w,
                             clt_solve_result_t *r) {
  if (!lcp_qp_applies(p, "bbpgd", r)) return CLT_OK;
  int n = p->n;
  size_t bytes = sizeof(double) * (size_t)n;
  clt_scratch_t scratch;
  clt_arena_t *a = clt_scratch_begin(&scratch, o->arena);
  double *x = clt_arena_alloc(a, bytes), *g = clt_arena_alloc(a, bytes), *d = clt_arena_alloc(a, bytes);
  double *md = clt_arena_alloc(a, bytes), *best = clt_arena_alloc(a, bytes);
  double *wv = w ? w : clt_arena_alloc(a, bytes);
  if (!x || !g || !d || !md || !best || !wv) {
    clt_scratch_end(&scratch);
    lcp_set_message(r, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  const double *q = p->q;
  double scale = 1.0 + lcp_norm_inf(n, q);
  double L = lcp_qp_lipschitz_guess(p, x, g, o->threads);
  const double alpha_min = 1e-12 / L, alpha_max = 1e12 / L;
  double alpha = 1.0 / L;
  if (o->warm_start)
    memcpy(x, z, bytes);
  else
    memset(x, 0, bytes);
  lcp_project(p, cones, x);
  lcp_apply(p, x, q, g, o->threads); /* g = M x + q */
  double f = 0.0;
  for (int i = 0; i < n; i++) f += 0.5 * x[i] * (g[i] + q[i]);
  double fhist[BBPGD_MEMORY];
  for (int k = 0; k < BBPGD_MEMORY; k++) fhist[k] = f;
  double best_res = INFINITY;
  int it = 0;
  r->status = CLT_SOLVE_MAX_ITERATIONS;
  for (;;) {
    double res = lcp_cone_residual_abs(p, cones, x, g);
    if (!isfinite(res)) {
      r->status = CLT_SOLVE_ERROR;
      lcp_set_message(r, "bbpgd diverged (non-finite iterate) after %d iterations", it);
      break;
    }
    if (res < best_res) {
      best_res = res;
      memcpy(best, x, bytes);
    }
    if (res / scale <= o->tolerance) {
      /* Confirm with an exact gradient (the recursive one drifts). */
      lcp_apply(p, x, q, g, o->threads);
      res = lcp_cone_residual_abs(p, cones, x, g);
      if (res / scale <= o->tolerance) {
        r->status = CLT_SOLVE_SOLVED;
        break;
      }
    }
    if (it >= o->max_iterations) break;
    it++;
    for (int i = 0; i < n; i++) d[i] = x[i] - alpha * g[i];
    lcp_project(p, cones, d);
    for (int i = 0; i < n; i++) d[i] -= x[i];
    lcp_apply(p, d, NULL, md, o->threads);
    double gd = 0.0, dmd = 0.0, dd = 0.0, mdmd = 0.0;
    for (int i = 0; i < n; i++) {
      gd += g[i] * d[i];
      dmd += d[i] * md[i];
      dd += d[i] * d[i];
      mdmd += md[i] * md[i];
    }
    if (!(dd > 0.0)) { /* stationary up to round-off: refresh and re-test */
      lcp_apply(p, x, q, g, o->threads);
      if (lcp_cone_residual_abs(p, cones, x, g) / scale > o->tolerance) {
        r->status = CLT_SOLVE_NOT_CONVERGED; /* a finite iterate short of the tolerance */
        lcp_set_message(r, "bbpgd stalled (zero projected step) after %d iterations", it);
      } else {
        r->status = CLT_SOLVE_SOLVED;
      }
      break;
    }
    double fmax = fhist[0];
    for (int k = 1; k < BBPGD_MEMORY; k++) fmax = fmax > fhist[k] ? fmax : fhist[k];
    double lambda = 1.0;
    for (int tries = 0; tries < 60; tries++) {
      double fn = f + lambda * gd + 0.5 * lambda * lambda * dmd;
      if (fn <= fmax + 1e-4 * lambda * gd) break;
      /* Safeguarded minimizer of the quadratic along d. */
      double lt = dmd > 0.0 ? -gd / dmd : 0.5 * lambda;
      lambda = lt < 0.1 * lambda ? 0.1 * lambda : (lt > 0.9 * lambda ? 0.5 * lambda : lt);
    }
    for (int i = 0; i < n; i++) {
      x[i] += lambda * d[i];
      g[i] += lambda * md[i];
    }
    f += lambda * gd + 0.5 * lambda * lambda * dmd;
    fhist[it % BBPGD_MEMORY] = f;
    if (it % BBPGD_REFRESH == 0) {
      /* x + λd may leave the feasible set by round-off in cones: re-project, refresh. */
      lcp_project(p, cones, x);
      lcp_apply(p, x, q, g, o->threads);
      f = 0.0;
      for (int i = 0; i < n; i++) f += 0.5 * x[i] * (g[i] + q[i]);
    }
    /* s = λd, y = λMd: sᵀy = λ²dᵀMd, sᵀs = λ²dᵀd, yᵀy = λ²(Md)ᵀMd. */
    double step;
    if (dmd <= 0.0)
      step = alpha_max;
    else
      step = (it % 2) ? dd / dmd : dmd / mdmd;
    alpha = step < alpha_min ? alpha_min : (step > alpha_max ? alpha_max : step);
  }
  if (r->status != CLT_SOLVE_SOLVED) memcpy(x, best, bytes);
  memcpy(z, x, bytes);
  lcp_finish_projected(p, cones, o, z, q, wv, it, scale, "bbpgd", r);
  r->iterations += lcp_qp_refine_face(p, cones, o, a, it, scale, z, wv, r);
  clt_scratch_end(&scratch);
  return CLT_OK;
}
