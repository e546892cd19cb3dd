/* clatter — the complementarity solver layer (SPEC.md §2), usable on its own: no bodies, no
 * geometry. LCPs (standard and mixed), the bound-constrained QP duals of the relaxed scheme, and
 * the frictional contact problem with the exact Coulomb cone (shared/data/README.md §2.2–2.3).
 *
 * Conventions
 *  - LCP: find z with w = M z + q, and for i < free_count: w_i = 0 (z_i free);
 *    for i ≥ free_count: z_i ≥ 0, w_i ≥ 0, z_i w_i = 0.
 *  - Residual (SPEC.md §2): ‖min(z, w)‖∞ over the complementarity part, plus ‖w_free‖∞ over the
 *    free part, divided by (1 + ‖q‖∞).
 *  - A solve that does not reach the tolerance never reports CLT_SOLVE_SOLVED. */
#ifndef CLATTER_SOLVERS_H
#define CLATTER_SOLVERS_H

#include "clatter/types.h"
#include "clatter/world.h" /* clt_solver_kind_t, clt_solver_status_t */

#ifdef __cplusplus
extern "C" {
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

void clt_matrix_free(clt_matrix_t *m);                      /* frees arrays, zeroes the struct */
void clt_matrix_multiply(const clt_matrix_t *m, const double *x, double *y); /* y = m x */
double clt_matrix_get(const clt_matrix_t *m, int row, int col);

/* Matrix-free operator: y = A x with A n×n. diagonal (optional) = diag(A). */
typedef struct clt_operator_t {
  int n;
  void (*apply)(void *user, const double *x, double *y);
  void *user;
  const double *diagonal;
} clt_operator_t;

/* ---------------------------------------------------------------------------------------------
 * Solver options and results */

typedef struct clt_solver_options_t {
  double tolerance;    /* on the scaled residual; default 1e-10 */
  int max_iterations;  /* sweeps / iterations / pivots; default 100000 */
  double relaxation;   /* BGS ω, default 1 */
  bool warm_start;     /* use the incoming z (or r) as the starting point; default false */
  int threads;         /* 0 = OpenMP default; results are bit-identical for any count */
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
} clt_lcp_t;

/* Solves the LCP with the given solver. z (length n) is the answer, and the starting point when
 * options->warm_start; w (length n, may be NULL) receives M z + q. Returns CLT_OK when the call
 * itself worked (see result->status for the outcome), or an error for invalid input. */
clt_status_t clt_lcp_solve(clt_solver_kind_t solver, const clt_lcp_t *problem,
                           const clt_solver_options_t *options, double *z, double *w,
                           clt_solve_result_t *result);

/* Scaled residual of z as defined above. */
double clt_lcp_residual(const clt_lcp_t *problem, const double *z);

const char *clt_solver_kind_name(clt_solver_kind_t kind); /* "lemke", "bgs", "apgd", "bbpgd" */

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

void clt_fc_local_free(clt_fc_local_t *p);
void clt_fc_global_free(clt_fc_global_t *p);

/* Natural-map error of the data README: sqrt(Σ‖r_a − P_K(r_a − û_a)‖²) / ‖q‖₂ (‖q‖ = 0: 1).
 * abs_error (may be NULL) receives the numerator. */
double clt_fc_local_error(const clt_fc_local_t *p, const double *r, double *abs_error);

/* Exact-cone block Gauss–Seidel (NSGS) on the local problem: a safeguarded Newton local solve
 * per contact with a projection fallback. r (length m) is the answer and the starting point when
 * options->warm_start; u (may be NULL) receives W r + q. result->residual is the natural-map
 * error above; status CLT_SOLVE_SOLVED only if it is ≤ options->tolerance. */
clt_status_t clt_fc_local_solve(const clt_fc_local_t *p, const clt_solver_options_t *options,
                                double *r, double *u, clt_solve_result_t *result);

/* The global problem by condensation onto the local one (W = Hᵀ M⁻¹ H never formed densely when
 * M is diagonal). v (n), r (m), u (m; may be NULL). result->residual: the natural-map error of
 * the condensed problem. */
clt_status_t clt_fc_global_solve(const clt_fc_global_t *p, const clt_solver_options_t *options,
                                 double *v, double *r, double *u, clt_solve_result_t *result);

#ifdef __cplusplus
}
#endif
#endif
