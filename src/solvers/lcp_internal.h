/* Private helpers shared by the LCP/QP solvers (SPEC.md §2): dense Lemke kernel, dense/CSR/operator
 * products with thread-count-independent results, the residual, and LAPACK prototypes. */
#ifndef CLATTER_SOLVERS_LCP_INTERNAL_H
#define CLATTER_SOLVERS_LCP_INTERNAL_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>

#include "base/algebra.h" /* LAPACK, opened on first use */
#include "clatter/solvers.h"
#include "solvers/matrix_internal.h"

/* Dot product with four interleaved partial sums combined in a fixed order: deterministic (no
 * dependence on threads or alignment) and about four times faster than one running sum, which
 * -ffp-contract=off / no fast-math keep the compiler from reassociating itself. */
static inline double lcp_dot(const double *a, const double *b, int n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    s0 += a[j] * b[j];
    s1 += a[j + 1] * b[j + 1];
    s2 += a[j + 2] * b[j + 2];
    s3 += a[j + 3] * b[j + 3];
  }
  for (; j < n; j++) s0 += a[j] * b[j];
  return (s0 + s1) + (s2 + s3);
}

/* Writes a printf-style message into result->message (no-op when result is NULL). */
void lcp_set_message(clt_solve_result_t *result, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* y = A x + q (q may be NULL) with A the problem's matrix or operator. Row-parallel with OpenMP
 * when threads != 1: every row is one sequential dot product, so the result is bit-identical for
 * any thread count. */
void lcp_apply(const clt_lcp_t *p, const double *x, const double *q, double *y, int threads);

/* ‖q‖∞ */
double lcp_norm_inf(int n, const double *x);

/* Unscaled residual of (z, w = Mz + q) as in solvers.h, for a problem without bounds. */
double lcp_residual_abs(int n, int free_count, const double *z, const double *w);

/* The bounds of variable i ≥ free_count (solvers.h: [0, +∞) without clt_lcp_t.lower / upper). */
static inline double lcp_lower(const clt_lcp_t *p, int i) { return p->lower ? p->lower[i] : 0.0; }
static inline double lcp_upper(const clt_lcp_t *p, int i) { return p->upper ? p->upper[i] : INFINITY; }
/* Whether some variable i ≥ free_count has other bounds than [0, +∞). */
bool lcp_has_bounds(const clt_lcp_t *p);
/* |z − clamp(z − w, lo, hi)|, the natural-map residual of one bounded variable: |min(z, w)| for
 * [0, +∞) to the bit (z − w < 0 exactly when z < w); NaN when z or w is. */
static inline double lcp_box_residual(double z, double w, double lo, double hi) {
  if (isnan(z) || isnan(w)) return NAN;
  double d = z - w;
  return fabs(d < lo ? z - lo : d > hi ? z - hi : w);
}
/* z clamped into [lo, hi] (lo for NaN). */
static inline double lcp_clamp(double z, double lo, double hi) { return z > lo ? (z < hi ? z : hi) : lo; }
/* The residual of solvers.h (unscaled) of any problem: lcp_residual_abs without bounds. */
double lcp_problem_residual_abs(const clt_lcp_t *p, const double *z, const double *w);

/* Dense Lemke kernel (lemke.c): standard LCP (no free variables), M row-major n×n. Returns the
 * outcome status; z and w (both length n, w may be NULL) receive the answer; *pivots the number
 * of pivots. message (may be NULL) receives the reason when not solved. When the final residual
 * exceeds polish_tolerance·(1 + ‖q‖∞), the basis is refactorized once and the answer recomputed;
 * the caller still verifies the residual. */
typedef struct lcp_lemke_work_t lcp_lemke_work_t;
/* The kernel's workspace for problems of up to `capacity` unknowns, from the arena (base/arena.h):
 * it dies with the caller's pop. */
lcp_lemke_work_t *lcp_lemke_work_create(clt_arena_t *arena, int capacity);
clt_solver_status_t lcp_lemke_dense(lcp_lemke_work_t *work, int n, const double *M, const double *q,
                                    int max_pivots, double polish_tolerance, double *z, int *pivots,
                                    char *message, size_t message_size);

/* Active-set semismooth Newton polish of z (its scratch from the arena) for the dense problem (M row-major n×n, the first nf
 * variables free), at most `iterations` steps, stopping when the scaled residual is ≤ tolerance.
 * z: start and answer (the best iterate seen); w receives M z + q; *steps (may be NULL) the Newton
 * steps taken. Returns the scaled residual of the answer (INFINITY when out of memory: z
 * unchanged). */
double lcp_newton_polish(clt_arena_t *arena, int n, int nf, const double *M, const double *q, int iterations,
                         double tolerance, double *z, double *w, int *steps);

/* Solvers (one file each); same contract as clt_lcp_solve, arguments already validated. */
clt_status_t lcp_solve_lemke(const clt_lcp_t *p, const clt_solver_options_t *o, double *z,
                             double *w, clt_solve_result_t *r);
clt_status_t lcp_solve_bgs(const clt_lcp_t *p, const clt_solver_options_t *o, double *z, double *w,
                           clt_solve_result_t *r);
clt_status_t lcp_solve_apgd(const clt_lcp_t *p, const clt_cone_set_t *cones,
                            const clt_solver_options_t *o, double *z, double *w,
                            clt_solve_result_t *r);
clt_status_t lcp_solve_bbpgd(const clt_lcp_t *p, const clt_cone_set_t *cones,
                             const clt_solver_options_t *o, double *z, double *w,
                             clt_solve_result_t *r);
clt_status_t lcp_solve_mprgp(const clt_lcp_t *p, const clt_solver_options_t *o, double *z, double *w,
                             clt_solve_result_t *r);

/* Projection of z onto the feasible set of the QP (free: unbounded; cones: second-order cone
 * K_μ = {‖t‖ ≤ μ n}; other variables: z ≥ 0). cone_of[i] = cone index or −1. */
void lcp_project(const clt_lcp_t *p, const clt_cone_set_t *cones, double *z);

/* Natural-map residual ‖z − P(z − w)‖∞ (unscaled), which equals lcp_residual_abs without cones. */
double lcp_cone_residual_abs(const clt_lcp_t *p, const clt_cone_set_t *cones, const double *z,
                             const double *w);

/* The end of a projected-gradient solve (APGD, BBPGD): recomputes w = M z + q into wv and the
 * residual from a fresh product, demotes SOLVED to MAX_ITERATIONS if that residual misses the
 * tolerance, and sets the message ("NAME: IT iterations without reaching the tolerance"). */
void lcp_finish_projected(const clt_lcp_t *p, const clt_cone_set_t *cones, const clt_solver_options_t *o,
                          const double *z, const double *q, double *wv, int iterations, double scale,
                          const char *name, clt_solve_result_t *r);

/* The face refinement after a projected-gradient solve of `iterations` iterations (qp_face.c;
 * none after 0 or an error): conjugate gradients, at most max(10, min(iterations, n)) products with
 * M and no more than o->max_iterations − iterations (scratch from arena), on the equations w_F = 0
 * of the face z lies on.
 * z, w = M z + q and r (its residual, residual_abs and status, which a residual within the
 * tolerance promotes to solved) are replaced only by a feasible point with a lower residual.
 * scale: 1 + ‖q‖∞. Returns the products used. */
int lcp_qp_refine_face(const clt_lcp_t *p, const clt_cone_set_t *cones, const clt_solver_options_t *o,
                       clt_arena_t *arena, int iterations, double scale, double *z, double *w,
                       clt_solve_result_t *r);

/* Relative asymmetry max|M − Mᵀ| / max|M| of an explicit matrix (0 for operators). */
double lcp_asymmetry(const clt_matrix_t *M);

/* APGD/BBPGD (apgd.c): false (and result->status = error, "matrix not symmetric") when M is not
 * symmetric; a rough starting Lipschitz estimate of M. */
bool lcp_qp_applies(const clt_lcp_t *p, const char *name, clt_solve_result_t *r);
double lcp_qp_lipschitz_guess(const clt_lcp_t *p, double *tmp_x, double *tmp_y, int threads);

#endif
