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

void clt_body_rows_accumulate(const clt_body_rows_t *op, bool parallel, const double *x) {
  int na = op->active_count;
  double *u = op->u;
  const int *active = op->active;
  CLT_PARALLEL_FOR_IF(parallel, schedule(static),
  for (int k = 0; k < na; k++) {
    int b = active ? active[k] : k;
    accumulate_body(op, b, x, u + 6 * (size_t)b);
  });
}

void clt_body_rows_apply(const clt_body_rows_t *op, bool parallel, const double *x, double *y) {
  int n = op->n;
  const double *u = op->u;
  clt_body_rows_accumulate(op, parallel, x);
  CLT_PARALLEL_FOR_IF(parallel, schedule(static),
  for (int p = 0; p < n; p++) {
    const double *j = clt_body_rows_jac(op, p);
    const int *body = clt_body_rows_body(op, p);
    int ba = body[0], bb = body[1];
    double s = 0.0;
    if (ba >= 0) s += side_dot(j, j + 3, u + 6 * (size_t)ba);
    if (bb >= 0) s += side_dot(j + 6, j + 9, u + 6 * (size_t)bb);
    y[p] = op->scale * s;
  });
}
