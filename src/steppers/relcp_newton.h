/* A sparse-direct solve of the PSD LCP of one ReLCP pass (SPEC.md §6.2, §2; relcp_newton.c), used
 * by stage_relcp_solve.c for method.solver = newton: λ ≥ 0 ⊥ A λ + b ≥ 0, A = h Dᵀ B D, often
 * rank-deficient (repeated constraints of one pair with nearly parallel normals). */
#ifndef CLATTER_STEPPERS_RELCP_NEWTON_H
#define CLATTER_STEPPERS_RELCP_NEWTON_H

#include "clatter/solvers.h"
#include "steppers/relcp.h"

typedef struct clt_relcp_newton_options_t {
  double tolerance;   /* on the scaled LCP residual of solvers.h */
  int max_iterations; /* interior-point (Newton) steps */
  bool parallel;      /* the operator products with OpenMP (the numbers do not depend on it) */
  clt_arena_t *arena; /* the step's (base/arena.h): the iteration's vectors; NULL: its own */
} clt_relcp_newton_options_t;

/* Solves λ ≥ 0 ⊥ A λ + b ≥ 0 (A = h Dᵀ B D, b = work->b, n = work->count) by a primal–dual
 * interior-point method (Mehrotra predictor–corrector) whose Newton systems A + S Λ⁻¹ are factored
 * by a sparse LDLᵀ (CHOLMOD, simplicial, AMD ordering, one symbolic analysis per call) — see
 * relcp_newton.c. Needs the per-body lists of stage_relcp_solve.c's build step (as
 * clt_relcp_apply). work->lambda is the start (warm: the recursion's padded λ; returned at once if
 * it meets the tolerance) and receives the best iterate; work->w receives A λ + b of it.
 * result: iterations = Newton steps (factorizations), residual as solvers.h (from a fresh
 * product), status SOLVED only if it meets the tolerance; MAX_ITERATIONS when the steps ran out or
 * stagnated, ERROR (with a message) when CHOLMOD failed or an iterate left the interior. The caller
 * must fall back to another solver from the returned λ when the status is not SOLVED. Returns
 * CLT_ERR_OUT_OF_MEMORY, else CLT_OK. Deterministic: bit-identical on repeat and for any thread
 * count. */
clt_status_t clt_relcp_newton_solve(const clt_relcp_work_t *work, double h, const clt_relcp_newton_options_t *options,
                                    clt_solve_result_t *result);

#endif
