/* Projected Gauss–Seidel on a body-block operator (SPEC.md §2.2; body_rows.h, the interface in
 * body_pgs.h), for the PSD LCP
 *     λ ≥ 0 ⊥ w = A λ + b ≥ 0,   A = s J M̂⁻¹ Jᵀ
 * (the ReLCP passes: A = h Dᵀ B D, SPEC.md §6.2). Matrix-free "sequential impulses": every body keeps
 * u = M̂⁻¹ Jᵀ λ (6-vector); row i reads w_i = b_i + s J_i · (u_A, u_B), takes
 * λ_i ← max(0, λ_i − ω w_i / A_ii) and adds M̂⁻¹ J_iᵀ Δλ_i to its two bodies, so an update costs O(1)
 * whatever the number of rows per body (the generic matrix-free BGS paid a row_dot over both
 * bodies' row lists instead: 5× slower per sweep on the 1000-ellipsoid suspension). The rows are
 * copied once per solve, packed in sweep order (a sweep streams through them), λ with them; λ goes
 * back to the caller's order for each exact check.
 *
 * Parallel and deterministic: rows are coloured greedily in row order (colouring.h), a sweep runs
 * the colours in order and each colour's rows in parallel; within a colour no two rows share a
 * body, so every update reads and writes only its own bodies and
 * the iterates are bit-identical for any thread count (and with `parallel` off).
 *
 * Stopping: the residual of solvers.h, ‖min(λ, w)‖∞ / (1 + ‖b‖∞), computed exactly from a fresh
 * product (clt_body_rows_apply), which also re-synchronizes u with λ (the running sums drift by
 * round-off). A sweep measures max |min(λ_i, w_i)| of the values it reads before each update; an
 * exact check runs when that is within 3× the tolerance (backing off after an optimistic one), every
 * PGS_RESYNC sweeps, and at the sweep cap. Only the exact residual decides and is reported. */
#include "solvers/body_pgs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "solvers/colouring.h"

/* Sweeps between two exact residuals at most (re-synchronizes u = B D λ). */
#define PGS_RESYNC 64
/* Largest back-off between an optimistic estimate and the next exact check. */
#define PGS_BACKOFF_MAX 16

static inline double side_dot(const double *j, const double *u) {
  return j[0] * u[0] + j[1] * u[1] + j[2] * u[2] + j[3] * u[3] + j[4] * u[4] + j[5] * u[5];
}

static inline void side_axpy(double *u, double s, const double *m) {
  for (int k = 0; k < 6; k++) u[k] += s * m[k];
}

/* One constraint, packed in sweep (colour) order so that a sweep streams through memory: h J
 * (12), B Jᵀ (12), b, ω / A_ii, its bodies (−1: not dynamic). */
typedef struct pgs_row_t {
  double hj[12];
  double bj[12];
  double b, step;
  int body[2];
} pgs_row_t;

/* One scalar PGS update of slot k; returns |min(λ_k, w_k)| before it (∞ for NaN). */
static inline double update(const pgs_row_t *row, double *lambda, double *u) {
  int ba = row->body[0], bb = row->body[1];
  double wi = row->b;
  if (ba >= 0) wi += side_dot(row->hj, u + 6 * (size_t)ba);
  if (bb >= 0) wi += side_dot(row->hj + 6, u + 6 * (size_t)bb);
  double li = *lambda;
  double e = fabs(fmin(li, wi));
  double ln = li - row->step * wi;
  if (!(ln > 0.0)) ln = 0.0;
  double dl = ln - li;
  if (dl != 0.0) {
    *lambda = ln;
    if (ba >= 0) side_axpy(u + 6 * (size_t)ba, dl, row->bj);
    if (bb >= 0) side_axpy(u + 6 * (size_t)bb, dl, row->bj + 6);
  }
  return isnan(wi) ? INFINITY : e;
}

static double sweep(const pgs_row_t *rows, double *lambda, double *u, int colours, const int *start, bool parallel) {
  double est = 0.0;
#ifdef _OPENMP
#pragma omp parallel if (parallel)
#else
  (void)parallel;
#endif
  {
    for (int c = 0; c < colours; c++) {
      int lo = start[c], hi = start[c + 1];
      if (c == CLT_COLOUR_MAX) { /* the overflow colour: its constraints may share bodies */
#ifdef _OPENMP
#pragma omp single
#endif
        for (int k = lo; k < hi; k++) est = fmax(est, update(rows + k, lambda + k, u));
        continue;
      }
#ifdef _OPENMP
#pragma omp for schedule(static) reduction(max : est)
#endif
      for (int k = lo; k < hi; k++) est = fmax(est, update(rows + k, lambda + k, u));
    }
  }
  return est;
}

/* ‖min(λ, w)‖∞ with w = A λ + b fresh, u re-synchronized. NaN → ∞. */
static double exact_residual(const clt_body_rows_t *op, const double *b, const double *lambda, double *w,
                             bool parallel) {
  int n = op->n;
  clt_body_rows_apply(op, parallel, lambda, w);
  double res = 0.0;
  for (int i = 0; i < n; i++) {
    w[i] += b[i];
    double a = fabs(fmin(lambda[i], w[i]));
    if (isnan(w[i]) || isnan(lambda[i])) a = INFINITY;
    res = fmax(res, a);
  }
  return res;
}

/* λ between the caller's order and the sweep order. */
static void scatter(const int *order, const double *packed, double *lambda, int n) {
  for (int k = 0; k < n; k++) lambda[order[k]] = packed[k];
}

clt_status_t clt_body_pgs_solve(const clt_body_rows_t *op, const double *b, const double *diagonal,
                                double *lambda, double *w, const clt_body_pgs_options_t *o,
                                clt_solve_result_t *r) {
  int n = op->n;
  double omega = o->relaxation;
  memset(r, 0, sizeof *r);
  if (op->jac_stride != CLT_BODY_ROWS_PACKED_JAC || op->body_stride != CLT_BODY_ROWS_PACKED_BODY) {
    /* (the colouring reads the bodies as one packed array) */
    r->status = CLT_SOLVE_ERROR;
    snprintf(r->message, sizeof r->message, "bgs: the operator's rows must be packed");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (!(omega > 0.0 && omega < 2.0)) {
    r->status = CLT_SOLVE_ERROR;
    snprintf(r->message, sizeof r->message, "bgs: relaxation %g outside (0, 2)", omega);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  for (int i = 0; i < n; i++)
    if (!(diagonal[i] > 0.0) || !isfinite(diagonal[i])) {
      r->status = CLT_SOLVE_ERROR;
      snprintf(r->message, sizeof r->message, "bgs does not apply: A[%d][%d] = %g <= 0 (PGS step undefined)", i, i,
               diagonal[i]);
      return CLT_OK;
    }
  clt_scratch_t scratch;
  clt_arena_t *a = clt_scratch_begin(&scratch, o->arena);
  int *order = CLT_ARENA_NEW(a, int, n);
  pgs_row_t *rows = CLT_ARENA_NEW(a, pgs_row_t, n);
  double *packed = CLT_ARENA_NEW(a, double, n);
  int colouring = clt_arena_mark(a);
  uint64_t *mask = CLT_ARENA_ZNEW(a, uint64_t, op->bodies);
  int *colour = CLT_ARENA_NEW(a, int, n);
  if (!mask || !colour || !order || !rows || !packed) {
    clt_scratch_end(&scratch);
    r->status = CLT_SOLVE_ERROR;
    snprintf(r->message, sizeof r->message, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  int start[CLT_COLOUR_MAX + 2];
  int colours = clt_colour_pairs(n, op->body, mask, colour, order, start);
  clt_arena_pop(a, colouring);

  double bmax = 0.0;
  for (int i = 0; i < n; i++) {
    bmax = fmax(bmax, fabs(b[i]));
    if (!(lambda[i] > 0.0)) lambda[i] = 0.0; /* the start projected (NaN → 0) */
  }
  for (int k = 0; k < n; k++) {
    int i = order[k];
    pgs_row_t *row = &rows[k];
    for (int c = 0; c < 12; c++) {
      row->hj[c] = op->scale * op->jac[12 * (size_t)i + (size_t)c];
      row->bj[c] = op->minv_jt[12 * (size_t)i + (size_t)c];
    }
    row->b = b[i];
    row->step = omega / diagonal[i];
    row->body[0] = op->body[2 * i];
    row->body[1] = op->body[2 * i + 1];
  }
  double scale = 1.0 + bmax, tol = o->tolerance * scale;
  double res = exact_residual(op, b, lambda, w, o->parallel);
  int sweeps = 0, next_exact = 0, backoff = 1;
  bool fresh = true; /* res is the residual of the current λ */
  r->status = res <= tol ? CLT_SOLVE_SOLVED : CLT_SOLVE_MAX_ITERATIONS;
  for (int k = 0; k < n; k++) packed[k] = lambda[order[k]];
  while (r->status != CLT_SOLVE_SOLVED && sweeps < o->max_sweeps) {
    double est = sweep(rows, packed, op->u, colours, start, o->parallel);
    sweeps++;
    fresh = false;
    if (!isfinite(est)) break;
    if ((est <= 3.0 * tol && sweeps >= next_exact) || sweeps % PGS_RESYNC == 0 || sweeps == o->max_sweeps) {
      scatter(order, packed, lambda, n);
      res = exact_residual(op, b, lambda, w, o->parallel);
      fresh = true;
      if (res <= tol) {
        r->status = CLT_SOLVE_SOLVED;
      } else if (est <= 3.0 * tol) {
        next_exact = sweeps + backoff; /* the estimate was optimistic: trust it less for a while */
        backoff = backoff < PGS_BACKOFF_MAX ? 2 * backoff : PGS_BACKOFF_MAX;
      }
    }
  }
  if (!fresh) {
    scatter(order, packed, lambda, n);
    res = exact_residual(op, b, lambda, w, o->parallel); /* the reported residual is of the final λ */
  }
  clt_scratch_end(&scratch);
  r->iterations = sweeps;
  r->residual_abs = res;
  r->residual = res / scale;
  if (!isfinite(res)) {
    r->status = CLT_SOLVE_ERROR;
    snprintf(r->message, sizeof r->message, "bgs diverged (non-finite iterate) after %d sweeps", sweeps);
  } else if (r->status != CLT_SOLVE_SOLVED) {
    snprintf(r->message, sizeof r->message, "bgs: %d sweeps without reaching the tolerance", sweeps);
  }
  return CLT_OK;
}
