/* clatter — the complementarity solver layer (SPEC.md §2), usable on its own: no bodies, no
 * geometry. LCPs (standard and mixed), the bound-constrained QP duals of the relaxed scheme, and
 * the frictional contact problem with the exact Coulomb cone (shared/data/README.md §2.2–2.3).
 *
 * Conventions
 *  - LCP: find z with w = M z + q, and for i < free_count: w_i = 0 (z_i free);
 *    for i ≥ free_count: z_i ≥ 0, w_i ≥ 0, z_i w_i = 0.
 *    With bounds (clt_lcp_t.lower / upper, a box-constrained or "bounded" LCP, docs/actuation.md):
 *    for i ≥ free_count, lo_i ≤ z_i ≤ hi_i and w_i ≥ 0 where z_i = lo_i, w_i ≤ 0 where z_i = hi_i,
 *    w_i = 0 in between (lo = 0, hi = +∞ is the LCP above).
 *  - Residual (SPEC.md §2): ‖min(z, w)‖∞ over the complementarity part (with bounds, the natural
 *    map ‖z − clamp(z − w, lo, hi)‖∞, which is the same for [0, ∞)), plus ‖w_free‖∞ over the free
 *    part, divided by (1 + ‖q‖∞).
 *  - A solve that does not reach the tolerance never reports CLT_SOLVE_SOLVED. */
#ifndef CLATTER_SOLVERS_H
#define CLATTER_SOLVERS_H

#include "clatter/types.h"
#include "clatter/world.h" /* clt_solver_kind_t, clt_solver_status_t */

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ---------------------------------------------------------------------------------------------
 * Matrices. Dense storage is row-major. CSR: row_ptr[rows + 1], col_index[nnz], values[nnz],
 * column indices sorted within a row. The struct owns nothing unless created by the library
 * (then free with clt_matrix_free). */

typedef enum clt_matrix_kind_t { CLT_MATRIX_DENSE, CLT_MATRIX_CSR } clt_matrix_kind_t;

typedef struct clt_matrix_t {
  clt_matrix_kind_t kind;
  int rows;
  int cols;
  double *values;  /* dense: rows*cols; CSR: nnz */
  int *row_ptr;    /* CSR */
  int *col_index;  /* CSR */
  int nnz;         /* CSR */
} clt_matrix_t;

/* NULL arguments never crash (as a NULL world, world.h "Misuse"): functions that return
 * clt_status_t return CLT_ERR_INVALID_ARGUMENT with the reason in result->message when result is
 * given; the others return the neutral value given next to them. */
void clt_matrix_free(clt_matrix_t *m);                      /* frees arrays, zeroes the struct; NULL: nothing */
/* y = m x; does nothing for a NULL or unusable m (missing arrays) or a NULL x or y. */
void clt_matrix_multiply(const clt_matrix_t *m, const double *x, double *y);
/* The entry (0 outside the matrix or not stored); NaN for a NULL or unusable m. */
double clt_matrix_get(const clt_matrix_t *m, int row, int col);

/* Matrix-free operator: y = A x with A n×n. diagonal (optional) = diag(A).
 * row_dot (optional) returns (A x)_i: with it and diagonal, block Gauss–Seidel runs matrix-free
 * (scalar blocks); an implementation for A = Nᵀ M̂⁻¹ N can keep v = M̂⁻¹ N x itself (SPEC.md §2.2). */
typedef struct clt_operator_t {
  int n;
  void (*apply)(void *user, const double *x, double *y);
  void *user;
  const double *diagonal;
  double (*row_dot)(void *user, int i, const double *x);
} clt_operator_t;

/* ---------------------------------------------------------------------------------------------
 * Solver options and results */

/* Scratch memory that solves reuse: a stack from which a solve takes its work vectors and to
 * which it gives them back on return. It grows to the largest solve seen, so a loop of solves of
 * one size allocates nothing after the first. Not thread-safe: one arena per thread of solves.
 * A world's step passes its own (the diagnostics' arena_bytes is its peak in a step). */
typedef struct clt_arena_t clt_arena_t;

clt_arena_t *clt_arena_create(void);          /* NULL when out of memory */
void clt_arena_destroy(clt_arena_t *arena);   /* NULL: nothing; no solve may be using it */
size_t clt_arena_peak_bytes(const clt_arena_t *arena); /* the most bytes a solve has used at once */

typedef struct clt_solver_options_t {
  double tolerance;    /* on the scaled residual; default 1e-10 */
  int max_iterations;  /* sweeps / iterations / pivots; default 100000 */
  double relaxation;   /* BGS ω, default 1 */
  bool warm_start;     /* use the incoming z (or r) as the starting point; default false */
  int threads;         /* 0 = OpenMP default; results are bit-identical for any count */
  clt_arena_t *arena;  /* scratch for the solve; NULL (default): the solve allocates its own */
} clt_solver_options_t;

clt_solver_options_t clt_default_solver_options(void);

typedef struct clt_solve_result_t {
  clt_solver_status_t status;
  int iterations;      /* pivots for Lemke */
  double residual;     /* as defined for the problem (scaled) */
  double residual_abs; /* unscaled */
  char message[160];   /* why a solve failed or did not apply ("" when solved) */
} clt_solve_result_t;

/* ---------------------------------------------------------------------------------------------
 * LCP */

typedef struct clt_lcp_t {
  int n;
  const clt_matrix_t *M;  /* n×n, or NULL when op is given (iterative solvers only) */
  const clt_operator_t *op;
  const double *q;
  int free_count;         /* the first free_count variables are free (mixed LCP) */
  /* Optional block structure for block Gauss–Seidel: block b spans
   * [block_start[b], block_start[b+1]); NULL = scalar blocks. */
  const int *block_start;
  int block_count;
  /* Optional bounds of the variables i ≥ free_count (entries below free_count are not read):
   * lower[i] finite, upper[i] ≥ lower[i] and possibly +∞. NULL: lower 0, upper +∞. Lemke solves
   * a bounded problem as the LCP of twice the bounded variables (z − lo and the multiplier of
   * z ≤ hi); block Gauss–Seidel clamps, and needs every variable with other bounds than [0, ∞) in
   * a block of its own; APGD and BBPGD project onto the box; MPRGP refuses them (status error). */
  const double *lower;
  const double *upper;
} clt_lcp_t;

/* Solves the LCP with the given solver. z (length n) is the answer, and the starting point when
 * options->warm_start; w (length n, may be NULL) receives M z + q. Returns CLT_OK when the call
 * itself worked (see result->status for the outcome), or an error for invalid input.
 * result->status: CLT_SOLVE_SOLVED when the residual meets the tolerance; CLT_SOLVE_MAX_ITERATIONS
 * when an iterative solver stopped at its cap; CLT_SOLVE_NOT_CONVERGED when the solver finished with
 * an answer whose residual is above the tolerance (Lemke on a complementary basis that Newton
 * polishing could not bring to it, BBPGD/MPRGP stalled on a zero step); CLT_SOLVE_ERROR only for a
 * failure to compute (does not apply, singular, non-finite, no solution).
 *  - CLT_SOLVER_LEMKE: exact (SPEC.md §2.1); needs M; free variables by a Schur complement;
 *    ignores warm_start; iterations = pivots, the first (z₀) pivot included; CLT_SOLVE_RAY on a
 *    secondary ray.
 *  - CLT_SOLVER_BGS: needs M, or op with diagonal and row_dot (scalar blocks); with block_start,
 *    exact local LCPs per block (SPEC.md §2.2); iterations = sweeps.
 *  - CLT_SOLVER_APGD, CLT_SOLVER_BBPGD: symmetric PSD M (or an op the caller knows to be); a
 *    solve that iterated ends with a face refinement (conjugate gradients on the face of its
 *    answer, kept only if feasible with a lower residual; docs/stepping.md "Face refinement");
 *    iterations = gradient steps plus the refinement's products, together ≤ max_iterations.
 *  - CLT_SOLVER_MPRGP: the same problems, by conjugate gradients on the face of the iterate with
 *    proportioning and expansion steps (src/solvers/mprgp.c); iterations = operator products.
 *    An LCP without a solution (the QP unbounded below) ends in CLT_SOLVE_ERROR, "unbounded".
 *  - CLT_SOLVER_NEWTON: the solver of ReLCP passes (src/steppers/relcp_newton.c), which needs
 *    their body structure: here always status CLT_SOLVE_ERROR (call returns CLT_OK).
 * Where a solver does not apply (no matrix, a diagonal ≤ 0 for scalar PGS, a non-symmetric M
 * for APGD/BBPGD/MPRGP: "matrix not symmetric"), result->status is CLT_SOLVE_ERROR with the reason in
 * result->message, and the call returns CLT_OK. */
clt_status_t clt_lcp_solve(clt_solver_kind_t solver, const clt_lcp_t *problem,
                           const clt_solver_options_t *options, double *z, double *w,
                           clt_solve_result_t *result);

/* Polishes an approximate LCP solution z (start and answer) by at most options->max_iterations
 * active-set semismooth Newton steps (minimum-norm least-squares steps on the rows picked by
 * min(z, w); dense linear algebra, needs M; src/solvers/lemke.c). For degenerate problems such as
 * the step LCP of stacked boxes, after Lemke ended on a ray or an inaccurate basis, or after an
 * iterative solver. The best iterate is returned; status CLT_SOLVE_SOLVED only if its residual
 * (as above) meets options->tolerance, else CLT_SOLVE_MAX_ITERATIONS. iterations = Newton steps.
 * w (may be NULL) receives M z + q. A problem with bounds (clt_lcp_t.lower / upper): status
 * CLT_SOLVE_ERROR ("does not apply"), z unchanged, the call returns CLT_OK. */
clt_status_t clt_lcp_polish(const clt_lcp_t *problem, const clt_solver_options_t *options,
                            double *z, double *w, clt_solve_result_t *result);

/* Scaled residual of z as defined above. NaN for a NULL or invalid problem or a NULL z. */
double clt_lcp_residual(const clt_lcp_t *problem, const double *z);

/* clt_solver_kind_name and clt_solver_kind_from_name: world.h */

/* ---------------------------------------------------------------------------------------------
 * Convex QP with second-order cones (SPEC.md §2.3, the exact-cone option of the relaxed scheme):
 *   min ½ zᵀ M z + qᵀ z  s.t.  z_i free for i < free_count, z_b ∈ K_b for every cone b, z_i ≥ 0
 *   for every other variable. M symmetric PSD. Cone b covers the dim consecutive variables from
 *   start[b] (normal first, then the tangential ones): K_b = {‖z_T‖ ≤ μ_b z_N}. Cones must not
 *   overlap each other nor the free variables. Without cones this is the LCP of clt_lcp_t. */
typedef struct clt_cone_set_t {
  int count;
  int dim;          /* 2 or 3 */
  const int *start; /* count */
  const double *mu; /* count, ≥ 0 */
} clt_cone_set_t;

/* Solves the QP above with CLT_SOLVER_APGD or CLT_SOLVER_BBPGD, or without cones (NULL or count 0)
 * with CLT_SOLVER_MPRGP (others, and MPRGP with cones: CLT_ERR_INVALID_ARGUMENT).
 * result->residual is the natural-map residual ‖z − P(z − w)‖∞ / (1 + ‖q‖∞), w = M z + q, which
 * reduces to the LCP residual without cones. cones may be NULL. */
clt_status_t clt_cone_qp_solve(clt_solver_kind_t solver, const clt_lcp_t *problem,
                               const clt_cone_set_t *cones, const clt_solver_options_t *options,
                               double *z, double *w, clt_solve_result_t *result);
/* NaN for a NULL or invalid problem or cone set, or a NULL z. */
double clt_cone_qp_residual(const clt_lcp_t *problem, const clt_cone_set_t *cones, const double *z);

/* ---------------------------------------------------------------------------------------------
 * Frictional contact with the exact Coulomb cone (data README §2.2–2.3) */

typedef struct clt_fc_local_t {
  int dim;            /* 2 or 3 */
  int contacts;       /* nc; unknowns m = dim·nc, contact a at [dim·a, dim·a + dim), normal first */
  clt_matrix_t W;     /* m×m */
  double *q;          /* m */
  double *mu;         /* nc */
} clt_fc_local_t;

typedef struct clt_fc_global_t {
  int dim;
  int contacts;
  int n;              /* velocity unknowns */
  clt_matrix_t M;     /* n×n SPD */
  clt_matrix_t H;     /* n×m */
  double *f;          /* n */
  double *w;          /* m */
  double *mu;         /* nc */
} clt_fc_global_t;

void clt_fc_local_free(clt_fc_local_t *p);   /* NULL: nothing */
void clt_fc_global_free(clt_fc_global_t *p); /* NULL: nothing */

/* Natural-map error of the data README: sqrt(Σ‖r_a − P_K(r_a − û_a)‖²) / ‖q‖₂ (‖q‖₂ ≤ DBL_EPSILON:
 * divided by 1, i.e. the absolute error — a relative error means nothing at ‖q‖ ≈ 4e-18).
 * abs_error (may be NULL) receives the numerator. NaN (and *abs_error NaN) for a NULL or invalid
 * problem or a NULL r. */
double clt_fc_local_error(const clt_fc_local_t *p, const double *r, double *abs_error);

/* Exact-cone block Gauss–Seidel (NSGS) on the local problem: a safeguarded Newton local solve
 * per contact with a projection fallback. r (length m) is the answer and the starting point when
 * options->warm_start; u (may be NULL) receives W r + q. result->residual is the natural-map
 * error above; status CLT_SOLVE_SOLVED only if it is ≤ options->tolerance.
 * W may be dense or CSR and need not be symmetric. Uses tolerance, max_iterations (sweeps),
 * relaxation (ω) and warm_start; runs on one thread (deterministic). When the sweeps stagnate
 * it polishes with a semismooth Newton (problems of ≤ 400 unknowns) and changes the sweep
 * order and relaxation, restarting from the starting point (src/solvers/fc_nsgs.c); the best
 * iterate seen is returned. */
clt_status_t clt_fc_local_solve(const clt_fc_local_t *p, const clt_solver_options_t *options,
                                double *r, double *u, clt_solve_result_t *result);

/* Active-set polish of an approximate solution r (length m) of the local problem, for small
 * problems (m ≤ CLT_FC_ACTIVE_MAX_UNKNOWNS; dense): guesses each contact's case (take-off, stick,
 * slide) from r and u = W r + q, solves those cases' equations exactly (Gauss–Newton, minimum-norm
 * least squares), and tries the guesses with the doubtful contacts switched one and two at a time
 * (src/solvers/fc_active.c). r is replaced only by a point with a smaller natural-map error;
 * result->residual is the error of the r returned, status CLT_SOLVE_SOLVED when it is
 * ≤ options->tolerance (else CLT_SOLVE_MAX_ITERATIONS). Uses options->tolerance only. */
#define CLT_FC_ACTIVE_MAX_UNKNOWNS 400
clt_status_t clt_fc_local_active_set(const clt_fc_local_t *p, const clt_solver_options_t *options,
                                     double *r, clt_solve_result_t *result);

/* The global problem by condensation onto the local one (W = Hᵀ M⁻¹ H never formed densely when
 * M is diagonal). v (n), r (m), u (m; may be NULL). result->residual: the natural-map error of
 * the condensed problem. */
clt_status_t clt_fc_global_solve(const clt_fc_global_t *p, const clt_solver_options_t *options,
                                 double *v, double *r, double *u, clt_solve_result_t *result);

/* The condensed local problem of a global one: W = Hᵀ M⁻¹ H (CSR when M is diagonal, dense
 * otherwise), q = Hᵀ M⁻¹ f + w, μ copied. out is owned by the caller (clt_fc_local_free).
 * Errors: CLT_ERR_INVALID_ARGUMENT, CLT_ERR_NUMERICAL (M not SPD), CLT_ERR_OUT_OF_MEMORY. */
clt_status_t clt_fc_global_condense(const clt_fc_global_t *p, clt_fc_local_t *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
