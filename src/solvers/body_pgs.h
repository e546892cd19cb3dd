/* Projected Gauss–Seidel on a body-block operator (body_rows.h; SPEC.md §2.2; body_pgs.c): the
 * coloured, matrix-free sweep of the ReLCP passes (steppers/relcp_pgs.c fills the operator from
 * a pass's constraints). */
#ifndef CLATTER_SOLVERS_BODY_PGS_H
#define CLATTER_SOLVERS_BODY_PGS_H

#include "clatter/solvers.h"
#include "solvers/body_rows.h"

typedef struct clt_body_pgs_options_t {
  double tolerance;   /* on the scaled LCP residual of solvers.h */
  int max_sweeps;
  double relaxation;  /* ω in (0, 2) */
  bool parallel;      /* sweep each colour with OpenMP (the numbers do not depend on it) */
  clt_arena_t *arena; /* the colouring and the packed rows (base/arena.h); NULL: its own */
} clt_body_pgs_options_t;

/* Solves λ ≥ 0 ⊥ A λ + b ≥ 0 (A of op, n = op->n) by projected Gauss–Seidel (over-relaxed by ω)
 * over rows coloured so that no two of a colour share a body, keeping M̂⁻¹ Jᵀ λ per body in op->u:
 * one scalar update is O(1). diagonal must hold diag(A); lambda is the start (projected onto
 * λ ≥ 0) and the answer; w receives A λ + b of the answer. op->bodies sizes the colouring's
 * per-body masks; its rows must be packed (CLT_BODY_ROWS_PACKED_*, else CLT_ERR_INVALID_ARGUMENT). result: iterations = sweeps, residual as solvers.h (‖min(λ, w)‖∞ / (1 + ‖b‖∞),
 * from a fresh product), status SOLVED only if it meets the tolerance, MAX_ITERATIONS otherwise,
 * ERROR (with a message) for a non-positive diagonal or a non-finite iterate. Returns
 * CLT_ERR_OUT_OF_MEMORY or CLT_ERR_INVALID_ARGUMENT (ω outside (0, 2)), else CLT_OK. The numbers
 * do not depend on the thread count or on `parallel`. */
clt_status_t clt_body_pgs_solve(const clt_body_rows_t *op, const double *b, const double *diagonal,
                                double *lambda, double *w, const clt_body_pgs_options_t *options,
                                clt_solve_result_t *result);

#endif
