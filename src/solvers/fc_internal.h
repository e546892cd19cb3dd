/* clatter — private helpers of the frictional-contact solvers (fc_*.c), data README §2.2–2.3. */
#ifndef CLATTER_FC_INTERNAL_H
#define CLATTER_FC_INTERNAL_H

#include "clatter/solvers.h"
#include "solvers/matrix_internal.h"

/* Projection onto K = {‖x_T‖ ≤ μ x_N} (data README §2.2); out may alias x. */
void clt_fc_project_cone(int dim, double mu, const double *x, double *out);
/* ‖r − P_K(r − û)‖² for one contact with velocity u (û, De Saxcé's, built here). */
double clt_fc_contact_error(int dim, double mu, const double *r, const double *u);
/* ‖q‖₂, and the natural-map error given u = W r + q and ‖q‖₂ (the solvers cache it). */
double clt_fc_norm_q(const clt_fc_local_t *p);
double clt_fc_error_scaled(const clt_fc_local_t *p, const double *r, const double *u,
                           double norm_q, double *abs_error);
/* Natural-map error given u = W r + q already computed. */
double clt_fc_error_from_u(const clt_fc_local_t *p, const double *r, const double *u,
                           double *abs_error);

/* W in block-CSR form: contact a's block row holds blocks (a, col[k]) for k in
 * [ptr[a], ptr[a+1]), each dim×dim row-major in val[k·dim²]; diag[a] = the k of block (a, a),
 * or −1 when absent. */
typedef struct clt_fc_blocks_t {
  int dim;
  int contacts;
  int *ptr;
  int *col;
  int *diag;
  double *val;
} clt_fc_blocks_t;

clt_status_t clt_fc_blocks_build(const clt_matrix_t *W, int dim, int contacts,
                                 clt_fc_blocks_t *out);
void clt_fc_blocks_free(clt_fc_blocks_t *b);
/* u = W r + q */
void clt_fc_blocks_apply(const clt_fc_blocks_t *b, const double *r, const double *q, double *u);

/* Outcome of one contact's exact local solve. */
typedef enum clt_fc_local_case_t {
  CLT_FC_TAKE_OFF,   /* r = 0 */
  CLT_FC_STICK,      /* u = 0, r inside K */
  CLT_FC_SLIDE,      /* u_N = 0, r on ∂K opposite u_T */
  CLT_FC_FALLBACK    /* best candidate / projection iterations: may be inexact */
} clt_fc_local_case_t;

/* Per-contact data precomputed once: the diagonal block and its inverse. */
typedef struct clt_fc_contact_t {
  double W[9];      /* dim×dim row-major */
  double Winv[9];
  int invertible;
  double mu;
} clt_fc_contact_t;

void clt_fc_contact_prepare(int dim, const double *Waa, double mu, clt_fc_contact_t *c);

/* Solves the one-contact problem u = W_aa r + qt, K* ∋ û ⟂ r ∈ K exactly (case analysis:
 * take-off, stick, slide with a safeguarded Newton on the sliding direction and a sampled root
 * search as its fallback). r holds the warm start on entry and the answer on return. */
clt_fc_local_case_t clt_fc_contact_solve(int dim, const clt_fc_contact_t *c, const double *qt,
                                         double *r);

/* Levenberg–Marquardt semismooth Newton on the natural map (fc_newton.c), dense, for problems
 * of at most FC_NEWTON_MAX_UNKNOWNS unknowns. r is improved in place (left unchanged when no
 * step lowers the natural-map error); returns 1 when it lowered the error. error_out receives
 * the natural-map error of the returned r, iterations_out the Newton iterations. */
#define FC_NEWTON_MAX_UNKNOWNS 400
int clt_fc_newton_polish(const clt_fc_local_t *p, const clt_fc_blocks_t *b, double *r,
                         int max_iterations, double tolerance, double *error_out,
                         int *iterations_out);

#endif
