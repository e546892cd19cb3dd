/* clatter — frictional contact problems with the exact Coulomb cone (shared/data/README.md
 * §2.2–2.3): freeing, the cone projection and the natural-map error that Siconos and FCLIB use. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/fc_internal.h"

void clt_fc_local_free(clt_fc_local_t *p) {
  if (!p) return;
  clt_matrix_free(&p->W);
  free(p->q);
  free(p->mu);
  memset(p, 0, sizeof *p);
}

void clt_fc_global_free(clt_fc_global_t *p) {
  if (!p) return;
  clt_matrix_free(&p->M);
  clt_matrix_free(&p->H);
  free(p->f);
  free(p->w);
  free(p->mu);
  memset(p, 0, sizeof *p);
}

void clt_fc_project_cone(int dim, double mu, const double *x, double *out) {
  const double n = x[0];
  const double t = dim == 3 ? sqrt(x[1] * x[1] + x[2] * x[2]) : fabs(x[1]);
  if (t <= mu * n && n >= 0.0) { /* inside K (n ≥ 0 matters for μ = 0: 0 ≤ 0·n for any n) */
    for (int k = 0; k < dim; k++) out[k] = x[k];
    return;
  }
  if (mu * t <= -n) { /* inside the polar cone −K* */
    for (int k = 0; k < dim; k++) out[k] = 0.0;
    return;
  }
  /* onto the boundary: α = (μ t + n)/(μ² + 1), r = (α, μ α r_T / t); t > 0 here */
  const double alpha = (mu * t + n) / (mu * mu + 1.0);
  out[0] = alpha;
  const double scale = mu * alpha / t;
  for (int k = 1; k < dim; k++) out[k] = scale * x[k];
}

double clt_fc_contact_error(int dim, double mu, const double *r, const double *u) {
  /* e = r − P_K(r − û), û = u + (μ‖u_T‖, 0, 0) (De Saxcé) */
  double x[3], p[3];
  if (dim == 3) {
    const double ut = sqrt(u[1] * u[1] + u[2] * u[2]);
    x[0] = r[0] - (u[0] + mu * ut);
    x[1] = r[1] - u[1];
    x[2] = r[2] - u[2];
    clt_fc_project_cone(3, mu, x, p);
    const double e0 = r[0] - p[0], e1 = r[1] - p[1], e2 = r[2] - p[2];
    return e0 * e0 + e1 * e1 + e2 * e2;
  }
  x[0] = r[0] - (u[0] + mu * fabs(u[1]));
  x[1] = r[1] - u[1];
  clt_fc_project_cone(2, mu, x, p);
  const double e0 = r[0] - p[0], e1 = r[1] - p[1];
  return e0 * e0 + e1 * e1;
}

double clt_fc_norm_q(const clt_fc_local_t *p) {
  double q2 = 0.0;
  for (int k = 0; k < p->dim * p->contacts; k++) q2 += p->q[k] * p->q[k];
  return sqrt(q2);
}

double clt_fc_error_scaled(const clt_fc_local_t *p, const double *r, const double *u,
                           double norm_q, double *abs_error) {
  const int d = p->dim;
  double sum = 0.0;
  for (int a = 0; a < p->contacts; a++)
    sum += clt_fc_contact_error(d, p->mu[a], r + d * a, u + d * a);
  double abs_err = sqrt(sum);
  if (abs_error) *abs_error = abs_err;
  /* relative to ‖q‖, except when ‖q‖ is at rounding level (fc2d_granularflowonwall_00667_00000
   * has ‖q‖ ≈ 4e-18): there the relative error means nothing and the absolute one is used */
  return norm_q > DBL_EPSILON ? abs_err / norm_q : abs_err;
}

double clt_fc_error_from_u(const clt_fc_local_t *p, const double *r, const double *u,
                           double *abs_error) {
  return clt_fc_error_scaled(p, r, u, clt_fc_norm_q(p), abs_error);
}

double clt_fc_local_error(const clt_fc_local_t *p, const double *r, double *abs_error) {
  if (!p || !r || (p->dim != 2 && p->dim != 3) || p->contacts < 0 ||
      (p->contacts > 0 && (!p->q || !p->mu || !clt_matrix_usable(&p->W, p->dim * p->contacts, -1)))) {
    if (abs_error) *abs_error = NAN;
    return NAN;
  }
  const int m = p->dim * p->contacts;
  double *u = malloc(((size_t)m + 1) * sizeof *u);
  if (!u) {
    if (abs_error) *abs_error = NAN;
    return NAN;
  }
  clt_matrix_multiply(&p->W, r, u);
  for (int k = 0; k < m; k++) u[k] += p->q[k];
  double e = clt_fc_error_from_u(p, r, u, abs_error);
  free(u);
  return e;
}
