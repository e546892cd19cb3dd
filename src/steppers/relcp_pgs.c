/* The ReLCP pass's projected Gauss–Seidel (relcp_pgs.h): the pass's constraints as a body-block
 * operator (A = h Dᵀ B D: J = the constraints' rows, M̂⁻¹ = B, s = h; stage_relcp_solve.c builds
 * the lists) handed to the solver layer's coloured PGS (solvers/body_pgs.c). */
#include "steppers/relcp_pgs.h"

clt_status_t clt_relcp_pgs_solve(const clt_relcp_work_t *w, int body_count, double h,
                                 const clt_relcp_pgs_options_t *o, clt_solve_result_t *r) {
  clt_body_rows_t op = clt_relcp_operator(w, body_count, h);
  return clt_body_pgs_solve(&op, w->b, w->diagonal, w->lambda, w->w, o, r);
}
