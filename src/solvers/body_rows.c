/* clt_body_rows_apply (body_rows.h). */
#include "solvers/body_rows.h"

#include <stddef.h>

#include "base/parallel.h"

static double side_dot(const double lin[3], const double ang[3], const double *u) {
  return lin[0] * u[0] + lin[1] * u[1] + lin[2] * u[2] + ang[0] * u[3] + ang[1] * u[4] + ang[2] * u[5];
}

/* acc = Σ over the body's entries of x_k · M̂⁻¹ J_{k,side}ᵀ. */
static void accumulate_body(const clt_body_rows_t *op, int body, const double *x, double acc[6]) {
  for (int k = 0; k < 6; k++) acc[k] = 0.0;
  for (int e = op->body_start[body]; e < op->body_start[body + 1]; e++) {
    int p = op->body_entry[e] >> 1, side = op->body_entry[e] & 1;
    const double *m = op->minv_jt + 12 * (size_t)p + 6 * (size_t)side;
    double xp = x[p];
    for (int k = 0; k < 6; k++) acc[k] += xp * m[k];
  }
}

void clt_body_rows_apply(const clt_body_rows_t *op, bool parallel, const double *x, double *y) {
  int na = op->active_count, n = op->n;
  double *u = op->u;
  CLT_PARALLEL_FOR_IF(parallel, schedule(static),
  for (int k = 0; k < na; k++) accumulate_body(op, op->active[k], x, u + 6 * (size_t)op->active[k]);
  );
  CLT_PARALLEL_FOR_IF(parallel, schedule(static),
  for (int p = 0; p < n; p++) {
    const double *j = op->jac + 12 * (size_t)p;
    int ba = op->body[2 * p], bb = op->body[2 * p + 1];
    double s = 0.0;
    if (ba >= 0) s += side_dot(j, j + 3, u + 6 * (size_t)ba);
    if (bb >= 0) s += side_dot(j + 6, j + 9, u + 6 * (size_t)bb);
    y[p] = op->scale * s;
  });
}
