/* The dedicated projected Gauss–Seidel of a ReLCP pass (SPEC.md §6.2, §2.2; relcp_pgs.c), used by
 * stage_relcp_solve.c for method.solver = bgs above its dense limit. */
#ifndef CLATTER_STEPPERS_RELCP_PGS_H
#define CLATTER_STEPPERS_RELCP_PGS_H

#include "clatter/solvers.h"
#include "solvers/body_pgs.h"
#include "steppers/relcp.h"

/* tolerance, max_sweeps, relaxation ω, parallel, arena: as the solver layer's (solvers/body_pgs.h) */
typedef clt_body_pgs_options_t clt_relcp_pgs_options_t;

/* The pass's constraints as a body-block operator (solvers/body_rows.h): A = h Dᵀ B D over the
 * work's count constraints, u = work->accumulator (stage_relcp_solve.c; needs the per-body lists of
 * its build step). bodies: the world's body count (0 where only products are taken). */
clt_body_rows_t clt_relcp_operator(const clt_relcp_work_t *work, int bodies, double h);

/* y = A x = h Dᵀ (B (D x)) (clt_body_rows_apply of clt_relcp_operator): leaves B D x in
 * work->accumulator for the bodies with a constraint. Bit-identical for any thread count and for
 * `parallel` on or off. */
void clt_relcp_apply(const clt_relcp_work_t *work, double h, bool parallel, const double *x, double *y);

/* clt_body_pgs_solve (solvers/body_pgs.h) on the pass: solves λ ≥ 0 ⊥ A λ + b ≥ 0 (A = h Dᵀ B D,
 * b = work->b, n = work->count) by projected Gauss–Seidel
 * (over-relaxed by ω) over constraints coloured so that no two of a colour share a dynamic body,
 * keeping B D λ per body in work->accumulator: one scalar update is O(1). work->diagonal must hold
 * diag(A); work->lambda is the start (warm: the recursion's padded λ) and the answer; work->w
 * receives A λ + b of the answer. body_count: the world's body count (the bodies of work->jb).
 * result: iterations = sweeps, residual as solvers.h (‖min(λ, w)‖∞ / (1 + ‖b‖∞), from a fresh
 * product), status SOLVED only if it meets the tolerance, MAX_ITERATIONS otherwise, ERROR (with a
 * message) for a non-positive diagonal or a non-finite iterate. Returns CLT_ERR_OUT_OF_MEMORY or
 * CLT_ERR_INVALID_ARGUMENT (ω outside (0, 2)), else CLT_OK. */
clt_status_t clt_relcp_pgs_solve(const clt_relcp_work_t *work, int body_count, double h,
                                 const clt_relcp_pgs_options_t *options, clt_solve_result_t *result);

#endif
