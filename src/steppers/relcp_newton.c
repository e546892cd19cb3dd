/* Sparse-direct solve of one ReLCP pass's LCP (SPEC.md §6.2; relcp_newton.h):
 *     λ ≥ 0 ⊥ g(λ) = A λ + b ≥ 0,   A = h Dᵀ B D  (symmetric PSD, often singular).
 *
 * Why an interior point. ReLCP adds several constraints for one pair with nearly parallel frozen
 * normals, so A — and its restriction A_FF to any active face — is singular or nearly so, and the
 * colony's long force chains make the rest of its spectrum badly conditioned (APGD: 10³–10⁵
 * iterations per pass). Active-set Newton methods need a regular A_FF: measured on colony passes,
 * projected Newton (ε-active set, Armijo along the projection arc) with a proximal term ρI stalls or
 * crawls (45–200 steps: the steps along the near-null directions are cut by the projection, and a
 * ρ large enough to bound them makes the proximal contraction slow), and the primal–dual
 * active-set step is rejected from the recursion's warm starts. A primal–dual interior point does
 * not care: its Newton matrix A + S Λ⁻¹ is positive definite at every interior iterate (S Λ⁻¹ > 0),
 * whatever the rank of A, and Mehrotra's predictor–corrector reaches the tolerance in 10–25
 * factorizations on every colony and suspension pass tried, cold or warm. For a PSD LCP w is
 * unique and the iterates converge to the analytic centre of the optimal λ face, so repeated rows
 * share their force instead of making the step undefined.
 *
 * The iteration (infeasible start, slack s for w): r = s − (A λ + b), μ = λᵀs / n,
 *     (A + S Λ⁻¹ + ρI) Δλ = r − s + (σμ − Δλ_a Δs_a) / λ,   Δs = (σμ − Δλ_a Δs_a) / λ − s − S Λ⁻¹ Δλ,
 * with the affine predictor (σ = 0, no second-order term) first and σ = (μ_a / μ)³, one common
 * step to 0.99 of the boundary, ρ = 1e-12 · max diag(A) only as a guard against round-off. The
 * stopping test is that of the other solvers (solvers.h) on the ORIGINAL LCP, from fresh operator
 * products (clt_relcp_apply): the residual of λ itself and of its crossover (λ_i < s_i set to 0),
 * the best of which is returned. Start: the warm λ raised to ≥ 1e-2 of the force scale
 * (max(max λ, ‖b‖∞ / max diag A)), s = max(g(λ), 1e-2 · that scale · max diag A) — smaller
 * shifts stalled on colony passes.
 *
 * Linear algebra: A is assembled sparse (two constraints couple iff they share a dynamic body; the
 * lower triangle, each entry one fixed sum), analysed once per call (AMD ordering, simplicial
 * LDLᵀ: deterministic, no BLAS threads; on colony passes (a factor of 2 200 rows takes ~2 Mflop)
 * AMD beat METIS, NESDIS and COLAMD orderings, and CHOLMOD's automatic supernodal choice did not
 * speed up an 11-generation colony run), and refactorized numerically each step with the new
 * diagonal. On 3D packings the factor fills in (1 000 ellipsoids, 4 900 rows: 0.8 M nonzeros,
 * 0.26 Gflop) and the solve is ~10× slower than APGD: stage_relcp_solve.c documents the choice. */
#include "base/algebra.h"
#include "base/arena.h"
#include "steppers/relcp_newton.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <suitesparse/cholmod.h>

#include "base/library.h"
#include "steppers/relcp_pgs.h" /* clt_relcp_apply */

/* CHOLMOD, opened the first time a Newton solve needs it (base/library.h: most runs never do). */
#ifndef CLATTER_CHOLMOD_SONAME
#define CLATTER_CHOLMOD_SONAME "libcholmod.so.3"
#endif
enum {
  CH_start, CH_finish, CH_allocate_sparse, CH_sort, CH_analyze, CH_factorize_p,
  CH_solve, CH_zeros, CH_free_dense, CH_free_factor, CH_free_sparse, CHOLMOD_ROUTINES
};
static const char *const cholmod_names[CHOLMOD_ROUTINES] = {
    "cholmod_start", "cholmod_finish", "cholmod_allocate_sparse", "cholmod_sort",
    "cholmod_analyze", "cholmod_factorize_p", "cholmod_solve", "cholmod_zeros",
    "cholmod_free_dense", "cholmod_free_factor", "cholmod_free_sparse"};
static clt_library_fn_t cholmod_symbols[CHOLMOD_ROUTINES];
static clt_library_t cholmod_library = {.what = "CHOLMOD",
                                        .soname = CLATTER_CHOLMOD_SONAME,
                                        .count = CHOLMOD_ROUTINES,
                                        .names = cholmod_names,
                                        .symbols = cholmod_symbols};
/* cholmod_<name> with the type cholmod.h declares; valid once clt_library_open(&cholmod_library) */
#define CHOLMOD(name) ((__typeof__(&cholmod_##name))cholmod_symbols[CH_##name])

/* the round-off guard ρ relative to max diag(A): far below anything that moves w at the tolerance */
#define NEWTON_RHO 1e-12
/* the interior start: λ ≥ NEWTON_START · (force scale), s ≥ that times max diag(A) */
#define NEWTON_START 1e-2
/* fraction of the step to the boundary */
#define NEWTON_STEP_FRACTION 0.99
/* Give up (and let the caller fall back) when the best residual has not improved by this factor
 * over this many steps. */
#define NEWTON_STALL_STEPS 30
#define NEWTON_STALL_FACTOR 0.5

typedef struct newton_t {
  int n;
  cholmod_common cc;
  bool started;
  cholmod_sparse *a;      /* lower triangle of A (values: A + the diagonal shift of the step) */
  double *template_x;     /* the values of A in a's pattern (from the arena) */
  clt_arena_t *arena;     /* template_x and the vectors below live on it until newton_free */
  clt_scratch_t scratch;
  cholmod_factor *factor;
  cholmod_dense *rhs;
  double *lam, *slack, *g, *rp, *dl, *dw, *dla, *dwa, *dvec, *best, *diag;
} newton_t;

static void newton_free(newton_t *t) {
  if (t->started) {
    if (t->factor) CHOLMOD(free_factor)(&t->factor, &t->cc);
    if (t->a) CHOLMOD(free_sparse)(&t->a, &t->cc);
    if (t->rhs) CHOLMOD(free_dense)(&t->rhs, &t->cc);
    CHOLMOD(finish)(&t->cc);
  }
  clt_scratch_end(&t->scratch);
}

static double dot6(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* The lower triangle of A in CSC (column p holds A_qp for q ≥ p; two constraints couple iff they
 * share a dynamic body), sorted, values also kept in template_x. Each value is one fixed sum over
 * (side of p, body entry), so the matrix is the same on every run. */
static bool assemble(const clt_relcp_work_t *w, double h, newton_t *t) {
  int n = w->count;
  /* (the three stay on the arena below template_x, which is sized by them and lives until
   * newton_free pops them all) */
  int *mark = CLT_ARENA_NEW(t->arena, int, n);
  int *cols = CLT_ARENA_NEW(t->arena, int, n);
  double *row = CLT_ARENA_NEW(t->arena, double, n);
  bool ok = mark && cols && row;
  size_t nnz = 0;
  if (ok) {
    for (int i = 0; i < n; i++) mark[i] = -1;
    for (int p = 0; p < n; p++)
      for (int s = 0; s < 2; s++) {
        int body = w->jb[2 * p + s];
        if (body < 0) continue;
        for (int e = w->body_start[body]; e < w->body_start[body + 1]; e++) {
          int q = w->body_entry[e] >> 1;
          if (q >= p && mark[q] != p) {
            mark[q] = p;
            nnz++;
          }
        }
      }
    /* a constraint without a dynamic body (cannot happen in ReLCP) still gets its diagonal */
    for (int p = 0; p < n; p++)
      if (mark[p] != p) nnz++;
  }
  if (ok) {
    t->a = CHOLMOD(allocate_sparse)((size_t)n, (size_t)n, nnz, 1, 1, -1, CHOLMOD_REAL, &t->cc);
    t->template_x = CLT_ARENA_NEW(t->arena, double, nnz + 1);
    ok = t->a && t->template_x;
  }
  if (ok) {
    int *ap = t->a->p, *ai = t->a->i;
    double *ax = t->a->x;
    size_t k = 0;
    for (int i = 0; i < n; i++) mark[i] = -1;
    for (int p = 0; p < n; p++) {
      ap[p] = (int)k;
      int nc = 0;
      mark[p] = p; /* the diagonal first, present even if zero */
      row[p] = 0.0;
      cols[nc++] = p;
      for (int s = 0; s < 2; s++) {
        int body = w->jb[2 * p + s];
        if (body < 0) continue;
        const double *jp = w->jr + 12 * (size_t)p + 6 * (size_t)s;
        for (int e = w->body_start[body]; e < w->body_start[body + 1]; e++) {
          int q = w->body_entry[e] >> 1, sq = w->body_entry[e] & 1;
          if (q < p) continue;
          if (mark[q] != p) {
            mark[q] = p;
            row[q] = 0.0;
            cols[nc++] = q;
          }
          row[q] += h * dot6(jp, w->bj + 12 * (size_t)q + 6 * (size_t)sq);
        }
      }
      for (int c = 0; c < nc; c++) {
        ai[k] = cols[c];
        ax[k] = row[cols[c]];
        k++;
      }
    }
    ap[n] = (int)k;
    ok = CHOLMOD(sort)(t->a, &t->cc) != 0;
    if (ok) {
      memcpy(t->template_x, t->a->x, sizeof(double) * k);
      for (int p = 0; p < n; p++) t->diag[p] = 0.0;
      for (int p = 0; p < n; p++)
        for (int e = ap[p]; e < ap[p + 1]; e++)
          if (ai[e] == p) t->diag[p] = t->template_x[e];
    }
  }
  return ok;
}

/* Numeric LDLᵀ of A + diag(dvec) + ρI (the pattern of the symbolic analysis). */
static bool factor_shifted(newton_t *t, const double *dvec, double rho) {
  int n = t->n;
  int *ap = t->a->p, *ai = t->a->i;
  double *ax = t->a->x;
  for (int p = 0; p < n; p++)
    for (int e = ap[p]; e < ap[p + 1]; e++) ax[e] = ai[e] == p ? t->template_x[e] + dvec[p] : t->template_x[e];
  double beta[2] = {rho, 0.0};
  clt_algebra_enter(); /* CHOLMOD's supernodes go to OpenBLAS: one thread (base/algebra.h) */
  int ok = CHOLMOD(factorize_p)(t->a, beta, NULL, 0, t->factor, &t->cc);
  clt_algebra_leave();
  if (!ok) return false;
  return t->cc.status == CHOLMOD_OK && t->factor->minor >= (size_t)n;
}

/* x = (A + D + ρI)⁻¹ rhs with the current factor; false if CHOLMOD failed. */
static bool solve_into(newton_t *t, double *x) {
  clt_algebra_enter();
  cholmod_dense *sol = CHOLMOD(solve)(CHOLMOD_A, t->factor, t->rhs, &t->cc);
  clt_algebra_leave();
  if (!sol) return false;
  memcpy(x, sol->x, sizeof(double) * (size_t)t->n);
  CHOLMOD(free_dense)(&sol, &t->cc);
  return true;
}

static double lcp_residual_abs(int n, const double *lam, const double *g) {
  double r = 0.0;
  for (int i = 0; i < n; i++) {
    double m = fabs(fmin(lam[i], g[i]));
    if (!(m <= r)) r = isfinite(m) ? m : INFINITY;
  }
  return r;
}

/* The largest α ≤ 1 keeping x + α dx ≥ 0 and y + α dy ≥ 0 (x, y > 0). */
static double max_step(int n, const double *x, const double *dx, const double *y, const double *dy) {
  double a = 1.0;
  for (int i = 0; i < n; i++) {
    if (dx[i] < 0.0) a = fmin(a, -x[i] / dx[i]);
    if (dy[i] < 0.0) a = fmin(a, -y[i] / dy[i]);
  }
  return a;
}

clt_status_t clt_relcp_newton_solve(const clt_relcp_work_t *w, double h, const clt_relcp_newton_options_t *o,
                                    clt_solve_result_t *r) {
  memset(r, 0, sizeof *r);
  int n = w->count;
  const double *b = w->b;
  if (n <= 0) {
    r->status = CLT_SOLVE_SOLVED;
    return CLT_OK;
  }
  double bmax = 0.0;
  for (int i = 0; i < n; i++) bmax = fmax(bmax, fabs(b[i]));
  double scale = 1.0 + bmax, tol_abs = o->tolerance * scale;
  newton_t t;
  memset(&t, 0, sizeof t);
  t.n = n;
  t.arena = clt_scratch_begin(&t.scratch, o->arena);
  size_t bytes = sizeof(double) * (size_t)n;
  double **vecs[] = {&t.lam, &t.slack, &t.g, &t.rp, &t.dl, &t.dw, &t.dla, &t.dwa, &t.dvec, &t.best, &t.diag};
  bool ok = true;
  for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) {
    *vecs[k] = CLT_ARENA_ZNEW(t.arena, double, n);
    ok = ok && *vecs[k];
  }
  if (!ok) {
    newton_free(&t);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  double *lam = t.lam, *sl = t.slack, *g = t.g, *rp = t.rp, *dl = t.dl, *dw = t.dw, *dla = t.dla, *dwa = t.dwa;
  double *dv = t.dvec;
  for (int i = 0; i < n; i++) lam[i] = w->lambda[i] > 0.0 && isfinite(w->lambda[i]) ? w->lambda[i] : 0.0;
  clt_relcp_apply(w, h, o->parallel, lam, g);
  for (int i = 0; i < n; i++) g[i] += b[i];
  double res = lcp_residual_abs(n, lam, g), best_res = res;
  memcpy(t.best, lam, bytes);
  int it = 0, best_it = 0;
  clt_status_t status = CLT_OK;
  r->status = res <= tol_abs ? CLT_SOLVE_SOLVED : CLT_SOLVE_MAX_ITERATIONS;
  if (r->status != CLT_SOLVE_SOLVED && !clt_library_open(&cholmod_library)) {
    r->status = CLT_SOLVE_ERROR;
    snprintf(r->message, sizeof r->message, "newton: %.140s", cholmod_library.error);
  } else if (r->status != CLT_SOLVE_SOLVED) {
    CHOLMOD(start)(&t.cc);
    t.started = true;
    t.cc.print = 0;
    t.cc.error_handler = NULL;
    t.cc.supernodal = CHOLMOD_SIMPLICIAL;
    t.cc.nmethods = 1;
    t.cc.method[0].ordering = CHOLMOD_AMD;
    t.cc.postorder = 1;
    if (!assemble(w, h, &t)) {
      status = t.cc.status == CHOLMOD_OUT_OF_MEMORY || t.a == NULL ? CLT_ERR_OUT_OF_MEMORY : CLT_OK;
      r->status = CLT_SOLVE_ERROR;
      snprintf(r->message, sizeof r->message, "newton: assembling A failed (cholmod status %d)", t.cc.status);
    } else {
      t.factor = CHOLMOD(analyze)(t.a, &t.cc);
      t.rhs = CHOLMOD(zeros)((size_t)n, 1, CHOLMOD_REAL, &t.cc);
      if (!t.factor || !t.rhs) {
        r->status = CLT_SOLVE_ERROR;
        snprintf(r->message, sizeof r->message, "newton: symbolic analysis failed (cholmod status %d)", t.cc.status);
      }
    }
    double dmax = 0.0, lmax = 0.0;
    for (int i = 0; i < n; i++) {
      dmax = fmax(dmax, t.diag[i]);
      lmax = fmax(lmax, lam[i]);
    }
    if (!(dmax > 0.0)) dmax = 1.0;
    double rho = NEWTON_RHO * dmax;
    /* interior start near the warm start: the force scale is that of λ or of b / diag(A) */
    double lscale = fmax(lmax, bmax / dmax);
    if (!(lscale > 0.0)) lscale = 1.0;
    for (int i = 0; i < n; i++) {
      lam[i] = fmax(lam[i], NEWTON_START * lscale);
      sl[i] = fmax(g[i], NEWTON_START * lscale * dmax);
    }
    double *rv = t.rhs ? t.rhs->x : NULL;
    while (r->status == CLT_SOLVE_MAX_ITERATIONS && it < o->max_iterations) {
      /* infeasibility r_p = s − (A λ + b) and the complementarity gap μ */
      clt_relcp_apply(w, h, o->parallel, lam, g);
      double mu = 0.0;
      for (int i = 0; i < n; i++) {
        g[i] += b[i];
        rp[i] = sl[i] - g[i];
        mu += lam[i] * sl[i];
        dv[i] = sl[i] / lam[i];
      }
      mu /= n;
      if (it > 0) {
        res = lcp_residual_abs(n, lam, g);
        if (res < best_res) {
          if (res < NEWTON_STALL_FACTOR * best_res) best_it = it;
          best_res = res;
          memcpy(t.best, lam, bytes);
        }
        if (res <= tol_abs) {
          r->status = CLT_SOLVE_SOLVED;
          break;
        }
        /* crossover: the iterate with its complementarity decided (λ_i < s_i → 0) often meets the
         * tolerance steps before the iterate itself (one product, no factorization) */
        for (int i = 0; i < n; i++) dl[i] = lam[i] >= sl[i] ? lam[i] : 0.0;
        clt_relcp_apply(w, h, o->parallel, dl, dw);
        for (int i = 0; i < n; i++) dw[i] += b[i];
        double cres = lcp_residual_abs(n, dl, dw);
        if (cres < best_res) {
          if (cres < NEWTON_STALL_FACTOR * best_res) best_it = it;
          best_res = cres;
          memcpy(t.best, dl, bytes);
        }
        if (cres <= tol_abs) {
          r->status = CLT_SOLVE_SOLVED;
          break;
        }
        if (it - best_it >= NEWTON_STALL_STEPS) {
          snprintf(r->message, sizeof r->message, "newton: stalled at residual %.3g after %d steps", best_res / scale, it);
          break;
        }
      }
      if (!factor_shifted(&t, dv, rho)) {
        r->status = CLT_SOLVE_ERROR;
        snprintf(r->message, sizeof r->message, "newton: factorization failed (cholmod status %d)", t.cc.status);
        break;
      }
      /* predictor (affine scaling): (A + S Λ⁻¹) Δλ = r_p − s, Δs = −s − S Λ⁻¹ Δλ */
      for (int i = 0; i < n; i++) rv[i] = rp[i] - sl[i];
      if (!solve_into(&t, dla)) {
        r->status = CLT_SOLVE_ERROR;
        snprintf(r->message, sizeof r->message, "newton: solve failed (cholmod status %d)", t.cc.status);
        break;
      }
      for (int i = 0; i < n; i++) dwa[i] = -sl[i] - dv[i] * dla[i];
      double aa = max_step(n, lam, dla, sl, dwa), mu_aff = 0.0;
      for (int i = 0; i < n; i++) mu_aff += (lam[i] + aa * dla[i]) * (sl[i] + aa * dwa[i]);
      mu_aff /= n;
      double sigma = mu > 0.0 ? pow(fmax(mu_aff, 0.0) / mu, 3.0) : 0.0;
      if (sigma > 1.0) sigma = 1.0;
      /* corrector (Mehrotra): (A + S Λ⁻¹) Δλ = r_p − s + (σμ − Δλ_a Δs_a) / λ */
      for (int i = 0; i < n; i++) rv[i] = rp[i] - sl[i] + (sigma * mu - dla[i] * dwa[i]) / lam[i];
      if (!solve_into(&t, dl)) {
        r->status = CLT_SOLVE_ERROR;
        snprintf(r->message, sizeof r->message, "newton: solve failed (cholmod status %d)", t.cc.status);
        break;
      }
      for (int i = 0; i < n; i++) dw[i] = (sigma * mu - dla[i] * dwa[i]) / lam[i] - sl[i] - dv[i] * dl[i];
      double alpha = fmin(1.0, NEWTON_STEP_FRACTION * max_step(n, lam, dl, sl, dw));
      bool finite = true;
      for (int i = 0; i < n; i++) {
        lam[i] += alpha * dl[i];
        sl[i] += alpha * dw[i];
        if (!(lam[i] > 0.0) || !(sl[i] > 0.0) || !isfinite(lam[i]) || !isfinite(sl[i])) finite = false;
      }
      it++;
      if (!finite) {
        r->status = CLT_SOLVE_ERROR;
        snprintf(r->message, sizeof r->message, "newton: iterate left the interior at step %d", it);
        break;
      }
    }
    if (r->status == CLT_SOLVE_MAX_ITERATIONS && it >= o->max_iterations) {
      /* the last iterate's residual was not yet measured */
      clt_relcp_apply(w, h, o->parallel, lam, g);
      for (int i = 0; i < n; i++) g[i] += b[i];
      res = lcp_residual_abs(n, lam, g);
      if (res < best_res) {
        best_res = res;
        memcpy(t.best, lam, bytes);
      }
    }
  }
  memcpy(w->lambda, t.best, bytes);
  clt_relcp_apply(w, h, o->parallel, w->lambda, w->w);
  for (int i = 0; i < n; i++) w->w[i] += b[i];
  best_res = lcp_residual_abs(n, w->lambda, w->w);
  r->iterations = it;
  r->residual_abs = best_res;
  r->residual = best_res / scale;
  if (best_res <= tol_abs) {
    r->status = CLT_SOLVE_SOLVED;
    r->message[0] = '\0';
  } else {
    if (r->status == CLT_SOLVE_SOLVED) r->status = CLT_SOLVE_MAX_ITERATIONS;
    if (!r->message[0]) snprintf(r->message, sizeof r->message, "newton: %d steps, residual %.3g", it, r->residual);
  }
  newton_free(&t);
  return status;
}
