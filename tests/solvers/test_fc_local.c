/* The exact-cone frictional contact solvers on problems built here (fixed seeds):
 *  - the natural-map error on hand-computed cases (data README §2.2);
 *  - one-contact problems (3D and 2D, μ = 0 … 2, symmetric and slightly asymmetric W): the
 *    exact local solve (take-off / stick / slide) must give an error at rounding level;
 *  - multi-contact problems W = Hᵀ M⁻¹ H: NSGS reaches 1e-10, and the answer satisfies the cone
 *    conditions checked independently (r ∈ K, û ∈ K*, r·û = 0);
 *  - the global condensation against a dense reference (diagonal and full SPD M), v and u;
 *  - the status contract: too few sweeps ⇒ MAX_ITERATIONS with the error above tolerance;
 *    a warm start at a solution ⇒ SOLVED in 0 sweeps; invalid input ⇒ an error status. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/solvers.h"
#include "test_util.h"

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static double uniform(void) { /* [0, 1) */
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static double symmetric_uniform(void) { return 2.0 * uniform() - 1.0; }

/* Dense row-major matrix owned by the test (clt_matrix_free frees it). */
static clt_matrix_t dense(int rows, int cols) {
  clt_matrix_t m;
  memset(&m, 0, sizeof m);
  m.kind = CLT_MATRIX_DENSE;
  m.rows = rows;
  m.cols = cols;
  m.values = calloc((size_t)rows * cols, sizeof(double));
  return m;
}

static void test_error_measure(void) {
  clt_fc_local_t p = {.dim = 3, .contacts = 1};
  p.W = dense(3, 3);
  for (int i = 0; i < 3; i++) p.W.values[i * 3 + i] = 1.0;
  double q[3] = {-1.0, 0.0, 0.0}, mu[1] = {0.5}, r[3] = {0.0, 0.0, 0.0}, abs_err;
  p.q = q;
  p.mu = mu;
  /* r = 0, û = (−1, 0, 0): e = −P_K((1, 0, 0)) = (−1, 0, 0) */
  CHECK_NEAR(clt_fc_local_error(&p, r, &abs_err), 1.0, 1e-15);
  CHECK_NEAR(abs_err, 1.0, 1e-15);
  /* the solution r = (1, 0, 0) (u = 0) has error 0 */
  r[0] = 1.0;
  CHECK_NEAR(clt_fc_local_error(&p, r, NULL), 0.0, 1e-15);
  /* take-off: q_N > 0, r = 0 */
  q[0] = 2.0, q[1] = 3.0;
  r[0] = 0.0;
  CHECK_NEAR(clt_fc_local_error(&p, r, NULL), 0.0, 1e-15);
  /* sliding: W = I, q = (−1, −2, 0), μ = 0.5: r = (1, 0.5, 0), u = (0, −1.5, 0) */
  q[0] = -1.0, q[1] = -2.0;
  r[0] = 1.0, r[1] = 0.5;
  CHECK_NEAR(clt_fc_local_error(&p, r, NULL), 0.0, 1e-15);
  /* ... and r = (1, 0, 0) there is wrong: û = (0.75·… ) gives a positive error */
  r[1] = 0.0;
  CHECK(clt_fc_local_error(&p, r, NULL) > 0.1);
  /* μ = 0: K is the half-line r_T = 0, r_N ≥ 0 */
  mu[0] = 0.0;
  q[0] = 1.0, q[1] = 0.0, q[2] = 0.0;
  r[0] = r[1] = r[2] = 0.0;
  CHECK_NEAR(clt_fc_local_error(&p, r, NULL), 0.0, 1e-15); /* take-off: −û = (−1, 0, 0) ↦ 0 */
  q[0] = -1.0, q[1] = 0.5;
  CHECK_NEAR(clt_fc_local_error(&p, r, &abs_err), 1.0 / sqrt(1.25), 1e-15);
  r[0] = 1.0; /* u = (0, 0.5, 0): frictionless sliding, the solution */
  CHECK_NEAR(clt_fc_local_error(&p, r, NULL), 0.0, 1e-15);
  clt_matrix_free(&p.W);
}

/* Independent check of the cone conditions for one contact, largest violation over
 *   r ∈ K (‖r_T‖ ≤ μ r_N, r_N ≥ 0),  û ∈ K* (μ‖û_T‖ ≤ û_N, which for De Saxcé's û = u +
 *   μ‖u_T‖e_N is u_N ≥ 0),  r·û = 0,
 * each divided by scale. */
static double cone_violation(int d, double mu, const double *r, const double *u, double scale) {
  const double rt = d == 3 ? hypot(r[1], r[2]) : fabs(r[1]);
  const double ut = d == 3 ? hypot(u[1], u[2]) : fabs(u[1]);
  const double uhat[3] = {u[0] + mu * ut, u[1], d == 3 ? u[2] : 0.0};
  double v = fmax(rt - mu * r[0], -r[0]);
  v = fmax(v, mu * ut - uhat[0]);
  double dot = 0.0;
  for (int k = 0; k < d; k++) dot += r[k] * uhat[k];
  v = fmax(v, fabs(dot));
  return v / scale;
}

static void test_one_contact(void) {
  const double mus[] = {0.0, 0.1, 0.5, 1.0, 2.0};
  double worst = 0.0, worst_cone = 0.0;
  int cases = 0;
  for (int dim = 2; dim <= 3; dim++) {
    for (int trial = 0; trial < 600; trial++) {
      const double mu = mus[trial % 5];
      clt_fc_local_t p = {.dim = dim, .contacts = 1};
      p.W = dense(dim, dim);
      /* W = A Aᵀ + 0.05 I, plus (every other trial) a small asymmetric part */
      double A[9];
      for (int k = 0; k < dim * dim; k++) A[k] = symmetric_uniform();
      for (int i = 0; i < dim; i++)
        for (int j = 0; j < dim; j++) {
          double s = i == j ? 0.05 : 0.0;
          for (int k = 0; k < dim; k++) s += A[i * dim + k] * A[j * dim + k];
          if (trial % 2) s += 0.02 * symmetric_uniform();
          p.W.values[i * dim + j] = s;
        }
      double q[3], muv[1] = {mu}, r[3] = {0, 0, 0}, u[3];
      for (int k = 0; k < dim; k++) q[k] = symmetric_uniform();
      p.q = q;
      p.mu = muv;
      clt_solver_options_t o = clt_default_solver_options();
      o.tolerance = 1e-13;
      o.max_iterations = 5;
      clt_solve_result_t res;
      CHECK(clt_fc_local_solve(&p, &o, r, u, &res) == CLT_OK);
      double e = clt_fc_local_error(&p, r, NULL);
      if (e > worst) worst = e;
      if (!(e <= 1e-12)) {
        fprintf(stderr, "one contact d=%d trial %d mu=%g: error %.3e, status %s\n", dim, trial,
                mu, e, clt_solver_status_name(res.status));
      }
      CHECK(res.status == CLT_SOLVE_SOLVED);
      CHECK(res.iterations <= 1); /* one exact local solve */
      double scale = 1.0;
      double viol = cone_violation(dim, mu, r, u, scale);
      if (viol > worst_cone) worst_cone = viol;
      clt_matrix_free(&p.W);
      cases++;
    }
  }
  printf("one-contact problems: %d cases, worst natural-map error %.2e, worst cone violation "
         "%.2e\n",
         cases, worst, worst_cone);
  CHECK_LE(worst, 1e-12);
  CHECK_LE(worst_cone, 1e-12);
}

/* A random global problem: n velocities, nc contacts, H with a few nonzeros per column. */
static void random_global(clt_fc_global_t *g, int dim, int n, int nc, int diagonal_mass) {
  memset(g, 0, sizeof *g);
  const int m = dim * nc;
  g->dim = dim;
  g->contacts = nc;
  g->n = n;
  g->M = dense(n, n);
  if (diagonal_mass) {
    for (int i = 0; i < n; i++) g->M.values[i * n + i] = 0.5 + uniform();
  } else { /* M = B Bᵀ + I */
    double *B = malloc(sizeof(double) * (size_t)n * n);
    for (int k = 0; k < n * n; k++) B[k] = 0.3 * symmetric_uniform();
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double s = i == j ? 1.0 : 0.0;
        for (int k = 0; k < n; k++) s += B[i * n + k] * B[j * n + k];
        g->M.values[i * n + j] = s;
      }
    free(B);
  }
  g->H = dense(n, m);
  for (int j = 0; j < m; j++)
    for (int t = 0; t < 3; t++) g->H.values[(int)(uniform() * n) * m + j] += symmetric_uniform();
  g->f = malloc(sizeof(double) * (size_t)n);
  g->w = malloc(sizeof(double) * (size_t)m);
  g->mu = malloc(sizeof(double) * (size_t)nc);
  for (int i = 0; i < n; i++) g->f[i] = symmetric_uniform();
  for (int j = 0; j < m; j++) g->w[j] = (j % dim == 0) ? symmetric_uniform() - 0.5 : 0.3 * symmetric_uniform();
  for (int a = 0; a < nc; a++) g->mu[a] = a % 4 == 0 ? 0.0 : 0.2 + 0.6 * uniform();
}

/* Dense Gaussian elimination with partial pivoting: X = A⁻¹ B (A n×n, B n×k, row-major). */
static void dense_solve(int n, const double *A, int k, const double *B, double *X) {
  double *a = malloc(sizeof(double) * (size_t)n * n);
  memcpy(a, A, sizeof(double) * (size_t)n * n);
  memcpy(X, B, sizeof(double) * (size_t)n * k);
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int i = c + 1; i < n; i++)
      if (fabs(a[i * n + c]) > fabs(a[piv * n + c])) piv = i;
    for (int j = 0; j < n; j++) {
      double t = a[c * n + j]; a[c * n + j] = a[piv * n + j]; a[piv * n + j] = t;
    }
    for (int j = 0; j < k; j++) {
      double t = X[c * k + j]; X[c * k + j] = X[piv * k + j]; X[piv * k + j] = t;
    }
    for (int i = c + 1; i < n; i++) {
      double f = a[i * n + c] / a[c * n + c];
      for (int j = c; j < n; j++) a[i * n + j] -= f * a[c * n + j];
      for (int j = 0; j < k; j++) X[i * k + j] -= f * X[c * k + j];
    }
  }
  for (int c = n - 1; c >= 0; c--)
    for (int j = 0; j < k; j++) {
      double s = X[c * k + j];
      for (int i = c + 1; i < n; i++) s -= a[c * n + i] * X[i * k + j];
      X[c * k + j] = s / a[c * n + c];
    }
  free(a);
}

static void test_global(int dim, int diagonal_mass) {
  clt_fc_global_t g;
  const int n = 24, nc = 10, m = dim * nc;
  random_global(&g, dim, n, nc, diagonal_mass);
  /* reference W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w */
  double *MiH = malloc(sizeof(double) * (size_t)n * m), *Mif = malloc(sizeof(double) * (size_t)n);
  dense_solve(n, g.M.values, m, g.H.values, MiH);
  dense_solve(n, g.M.values, 1, g.f, Mif);
  clt_fc_local_t local;
  CHECK(clt_fc_global_condense(&g, &local) == CLT_OK);
  double dW = 0.0, dq = 0.0, big = 0.0;
  for (int i = 0; i < m; i++) {
    double qi = g.w[i];
    for (int k = 0; k < n; k++) qi += g.H.values[k * m + i] * Mif[k];
    dq = fmax(dq, fabs(qi - local.q[i]));
    for (int j = 0; j < m; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++) s += g.H.values[k * m + i] * MiH[k * m + j];
      dW = fmax(dW, fabs(s - clt_matrix_get(&local.W, i, j)));
      big = fmax(big, fabs(s));
    }
  }
  CHECK_LE(dW, 1e-12 * big);
  CHECK_LE(dq, 1e-12 * (1.0 + big));
  CHECK(local.W.kind == (diagonal_mass ? CLT_MATRIX_CSR : CLT_MATRIX_DENSE));
  /* solve the global problem; check M v = H r + f, u = Hᵀ v + w, cone conditions */
  double *r = calloc((size_t)m, sizeof(double)), *u = calloc((size_t)m, sizeof(double));
  double *v = calloc((size_t)n, sizeof(double));
  clt_solver_options_t o = clt_default_solver_options();
  o.tolerance = 1e-10;
  o.max_iterations = 20000;
  clt_solve_result_t res;
  CHECK(clt_fc_global_solve(&g, &o, v, r, u, &res) == CLT_OK);
  CHECK(res.status == CLT_SOLVE_SOLVED);
  CHECK_LE(clt_fc_local_error(&local, r, NULL), 1e-10);
  double dv = 0.0, du = 0.0, viol = 0.0, rmax = 0.0;
  for (int i = 0; i < n; i++) {
    double s = -g.f[i];
    for (int k = 0; k < n; k++) s += g.M.values[i * n + k] * v[k];
    for (int j = 0; j < m; j++) s -= g.H.values[i * m + j] * r[j];
    dv = fmax(dv, fabs(s));
  }
  for (int j = 0; j < m; j++) {
    double s = g.w[j];
    for (int k = 0; k < n; k++) s += g.H.values[k * m + j] * v[k];
    du = fmax(du, fabs(s - u[j]));
    rmax = fmax(rmax, fabs(r[j]));
  }
  for (int a = 0; a < nc; a++)
    viol = fmax(viol, cone_violation(dim, g.mu[a], r + dim * a, u + dim * a, 1.0 + rmax));
  CHECK_LE(dv, 1e-10);
  CHECK_LE(du, 1e-10);
  CHECK_LE(viol, 1e-8);
  printf("global d=%d %s M: W error %.1e, %d sweeps, error %.2e, cone violation %.1e\n", dim,
         diagonal_mass ? "diagonal" : "full", dW, res.iterations, res.residual, viol);

  /* the status contract on the condensed local problem */
  o.max_iterations = 1;
  o.tolerance = 1e-14;
  memset(r, 0, sizeof(double) * (size_t)m);
  CHECK(clt_fc_local_solve(&local, &o, r, NULL, &res) == CLT_OK);
  if (res.status != CLT_SOLVE_SOLVED) {
    CHECK(res.status == CLT_SOLVE_MAX_ITERATIONS);
    CHECK(res.residual > 1e-14);
    CHECK(res.message[0] != '\0');
  } else {
    CHECK_LE(res.residual, 1e-14);
  }
  /* warm start at a solution: solved at once */
  o.max_iterations = 20000;
  o.tolerance = 1e-10;
  CHECK(clt_fc_local_solve(&local, &o, r, NULL, &res) == CLT_OK);
  o.warm_start = true;
  CHECK(clt_fc_local_solve(&local, &o, r, NULL, &res) == CLT_OK);
  CHECK(res.status == CLT_SOLVE_SOLVED);
  CHECK(res.iterations == 0);

  free(MiH);
  free(Mif);
  free(r);
  free(u);
  free(v);
  clt_fc_local_free(&local);
  clt_fc_global_free(&g);
}

static void test_invalid(void) {
  clt_fc_local_t p = {.dim = 4, .contacts = 1};
  double r[4] = {0};
  clt_solve_result_t res;
  CHECK(clt_fc_local_solve(&p, NULL, r, NULL, &res) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(res.status == CLT_SOLVE_ERROR);
  /* a negative μ */
  clt_fc_local_t q = {.dim = 3, .contacts = 1};
  q.W = dense(3, 3);
  double qq[3] = {-1, 0, 0}, mu[1] = {-0.1};
  q.q = qq;
  q.mu = mu;
  CHECK(clt_fc_local_solve(&q, NULL, r, NULL, &res) == CLT_ERR_INVALID_ARGUMENT);
  clt_matrix_free(&q.W);
  /* a non-symmetric full M is refused by the condensation (no silent one-triangle use) */
  clt_fc_global_t g;
  random_global(&g, 3, 6, 1, 0);
  g.M.values[1] += 0.5;
  double v[6], rr[3];
  CHECK(clt_fc_global_solve(&g, NULL, v, rr, NULL, &res) == CLT_ERR_INVALID_ARGUMENT);
  clt_fc_global_free(&g);
}

int main(void) {
  test_error_measure();
  test_one_contact();
  test_global(3, 1);
  test_global(3, 0);
  test_global(2, 1);
  test_global(2, 0);
  test_invalid();
  return clt_test_finish();
}
