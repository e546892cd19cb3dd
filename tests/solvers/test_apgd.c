/* APGD and BBPGD (SPEC.md §2.3): residual ≤ 1e-8 on every symmetric PSD LCP of shared/data/lcp,
 * "matrix not symmetric" (not run) on the others, scored against Lemke on random SPD problems and
 * mixed problems, the second-order-cone QP (μ = 0 reduces to an LCP on the normals; APGD and
 * BBPGD agree), CSR storage, the matrix-free operator, and bit-identical results for any thread
 * count. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "clatter/problems.h"
#include "clatter/solvers.h"
#include "solvers/lcp_test_gen.h"
#include "test_util.h"

static const clt_solver_kind_t qp_solvers[2] = {CLT_SOLVER_APGD, CLT_SOLVER_BBPGD};

static void data_files(void) {
  const char *shared = clt_test_env("CLATTER_SHARED_DIR");
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/data/lcp", shared);
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  if (!d) return;
  struct dirent *e;
  int psd_files = 0;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".dat") != 0) continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    clt_problem_file_t prob;
    char message[512];
    if (clt_problem_file_load(path, &prob, message, sizeof message) != CLT_OK) {
      CHECK(!"load failed");
      continue;
    }
    int n = prob.lcp_n;
    double *Md = gen_dense_copy(&prob.lcp_M), lmax = 0.0;
    double asym = gen_asymmetry(n, Md), lmin = gen_min_eigenvalue(n, Md, &lmax);
    int symmetric = asym <= 1e-12, psd = lmin >= -1e-12 * fmax(1.0, lmax);
    psd_files += symmetric && psd;
    clt_lcp_t lcp = {.n = n, .M = &prob.lcp_M, .q = prob.lcp_q};
    clt_solver_options_t o = clt_default_solver_options();
    o.tolerance = 1e-8;
    double *z = calloc((size_t)n, sizeof(double));
    for (int s = 0; s < 2; s++) {
      clt_solve_result_t r;
      CHECK(clt_lcp_solve(qp_solvers[s], &lcp, &o, z, NULL, &r) == CLT_OK);
      printf("%-38s n=%3d sym=%d lmin=%9.3g %-5s: %-14s it=%6d residual=%.3g %s\n", e->d_name, n,
             symmetric, lmin, clt_solver_kind_name(qp_solvers[s]), clt_solver_status_name(r.status),
             r.iterations, r.residual, r.message);
      if (!symmetric) {
        CHECK(r.status == CLT_SOLVE_ERROR);
        CHECK(strstr(r.message, "matrix not symmetric") != NULL);
      } else if (psd) {
        CHECK(r.status == CLT_SOLVE_SOLVED);
        CHECK_LE(r.residual, 1e-8);
        CHECK_NEAR(r.residual, clt_lcp_residual(&lcp, z), 1e-15);
      } else {
        /* mmc31, slightly indefinite: whatever happens is reported truthfully. */
        CHECK(r.status != CLT_SOLVE_SOLVED || r.residual <= 1e-8);
      }
    }
    free(z);
    free(Md);
    clt_problem_file_free(&prob);
  }
  closedir(d);
  CHECK(psd_files == 6);
}

static double max_diff(int n, const double *a, const double *b) {
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

static void random_problems(void) {
  for (int trial = 0; trial < 10; trial++) {
    gen_rng_t rng = {700u + (unsigned)trial};
    int n = 3 + 15 * trial, nf = trial % 3 == 2 ? 2 : 0;
    double *M = malloc(sizeof(double) * (size_t)(n * n)), *q = malloc(sizeof(double) * (size_t)n);
    gen_gram(&rng, n, n, 0.2, M);
    gen_solvable_q(&rng, n, M, 0.2, q);
    clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = M};
    clt_lcp_t lcp = {.n = n, .M = &Mm, .q = q, .free_count = nf};
    double *zl = calloc((size_t)n, sizeof(double)), *z = calloc((size_t)n, sizeof(double));
    clt_solve_result_t rl, r;
    clt_solver_options_t o = clt_default_solver_options();
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, &o, zl, NULL, &rl) == CLT_OK);
    CHECK(rl.status == CLT_SOLVE_SOLVED);
    double lmax = 0.0, lmin = gen_min_eigenvalue(n, M, &lmax);
    for (int s = 0; s < 2; s++) {
      o.tolerance = 1e-10;
      CHECK(clt_lcp_solve(qp_solvers[s], &lcp, &o, z, NULL, &r) == CLT_OK);
      CHECK(r.status == CLT_SOLVE_SOLVED);
      CHECK_LE(r.residual, 1e-10);
      /* Error bound of a strongly convex QP: ‖z − z*‖ ≲ residual · (1 + ‖M‖) / λ_min. */
      CHECK_LE(max_diff(n, z, zl), 1e-10 * (1.0 + lmax) / lmin * 10.0 * (1.0 + fabs(q[0])) + 1e-9);
      /* Warm start at the answer: no iteration needed. */
      o.warm_start = true;
      memcpy(z, zl, sizeof(double) * (size_t)n);
      CHECK(clt_lcp_solve(qp_solvers[s], &lcp, &o, z, NULL, &r) == CLT_OK);
      CHECK(r.status == CLT_SOLVE_SOLVED);
      CHECK(r.iterations == 0);
      o.warm_start = false;
      /* Iteration cap: reported, not hidden. */
      o.max_iterations = 2;
      o.tolerance = 1e-14;
      CHECK(clt_lcp_solve(qp_solvers[s], &lcp, &o, z, NULL, &r) == CLT_OK);
      if (n > 3) CHECK(r.status == CLT_SOLVE_MAX_ITERATIONS);
      o.max_iterations = 100000;
    }
    free(M);
    free(q);
    free(zl);
    free(z);
  }
  /* A non-symmetric PD problem is refused. */
  double Mn[4] = {2, 1, -1, 2}, qn[2] = {-1, -1}, z[2];
  clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = 2, .cols = 2, .values = Mn};
  clt_lcp_t lcp = {.n = 2, .M = &Mm, .q = qn};
  clt_solve_result_t r;
  for (int s = 0; s < 2; s++) {
    CHECK(clt_lcp_solve(qp_solvers[s], &lcp, NULL, z, NULL, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_ERROR);
    CHECK(strstr(r.message, "matrix not symmetric") != NULL);
  }
}

/* Second-order cones, 3D (normal, t1, t2). */
static void cones(void) {
  gen_rng_t rng = {1234u};
  int nc = 12, n = 3 * nc;
  double *M = malloc(sizeof(double) * (size_t)(n * n)), *q = malloc(sizeof(double) * (size_t)n);
  gen_gram(&rng, n, n / 2, 0.05, M);
  for (int i = 0; i < n; i++) q[i] = gen_sym(&rng) - (i % 3 == 0 ? 0.5 : 0.0);
  int start[12];
  double mu[12];
  for (int c = 0; c < nc; c++) {
    start[c] = 3 * c;
    mu[c] = 0.1 + 0.08 * c;
  }
  clt_cone_set_t cs = {.count = nc, .dim = 3, .start = start, .mu = mu};
  clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = M};
  clt_lcp_t lcp = {.n = n, .M = &Mm, .q = q};
  double *za = calloc((size_t)n, sizeof(double)), *zb = calloc((size_t)n, sizeof(double));
  clt_solver_options_t o = clt_default_solver_options();
  o.tolerance = 1e-10;
  clt_solve_result_t ra, rb;
  CHECK(clt_cone_qp_solve(CLT_SOLVER_APGD, &lcp, &cs, &o, za, NULL, &ra) == CLT_OK);
  CHECK(clt_cone_qp_solve(CLT_SOLVER_BBPGD, &lcp, &cs, &o, zb, NULL, &rb) == CLT_OK);
  printf("cone QP n=%d: apgd %s it=%d res=%.3g; bbpgd %s it=%d res=%.3g\n", n,
         clt_solver_status_name(ra.status), ra.iterations, ra.residual,
         clt_solver_status_name(rb.status), rb.iterations, rb.residual);
  CHECK(ra.status == CLT_SOLVE_SOLVED && rb.status == CLT_SOLVE_SOLVED);
  CHECK_NEAR(ra.residual, clt_cone_qp_residual(&lcp, &cs, za), 1e-15);
  int active = 0;
  for (int c = 0; c < nc; c++) {
    double t = hypot(za[3 * c + 1], za[3 * c + 2]);
    CHECK_LE(t, mu[c] * za[3 * c] * (1.0 + 1e-12) + 1e-14); /* inside the cone */
    active += t > 0.99 * mu[c] * za[3 * c] && za[3 * c] > 1e-6;
  }
  CHECK(active > 0); /* the test exercises the cone boundary */
  /* Objective values agree (the QP is convex; minimizers may differ along flat directions). */
  double fa = 0.0, fb = 0.0;
  for (int i = 0; i < n; i++) {
    double sa = 0.0, sb = 0.0;
    for (int j = 0; j < n; j++) {
      sa += M[i * n + j] * za[j];
      sb += M[i * n + j] * zb[j];
    }
    fa += za[i] * (0.5 * sa + q[i]);
    fb += zb[i] * (0.5 * sb + q[i]);
  }
  CHECK_NEAR(fa, fb, 1e-8 * (1.0 + fabs(fa)));
  /* μ = 0: the cone is the half-line, so the normals solve the LCP of the normal sub-matrix. */
  for (int c = 0; c < nc; c++) mu[c] = 0.0;
  gen_gram(&rng, n, n, 0.5, M); /* strictly convex */
  CHECK(clt_cone_qp_solve(CLT_SOLVER_APGD, &lcp, &cs, &o, za, NULL, &ra) == CLT_OK);
  CHECK(ra.status == CLT_SOLVE_SOLVED);
  double Ms[12 * 12], qs[12], zs[12];
  for (int a = 0; a < nc; a++) {
    qs[a] = q[3 * a];
    for (int b = 0; b < nc; b++) Ms[a * nc + b] = M[(3 * a) * n + 3 * b];
  }
  clt_matrix_t Msm = {.kind = CLT_MATRIX_DENSE, .rows = nc, .cols = nc, .values = Ms};
  clt_lcp_t sub = {.n = nc, .M = &Msm, .q = qs};
  CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &sub, NULL, zs, NULL, &rb) == CLT_OK);
  for (int a = 0; a < nc; a++) {
    CHECK_NEAR(za[3 * a], zs[a], 1e-7);
    CHECK(za[3 * a + 1] == 0.0 && za[3 * a + 2] == 0.0);
  }
  /* Invalid cone sets are rejected. */
  int overlap[2] = {0, 2};
  clt_cone_set_t bad = {.count = 2, .dim = 3, .start = overlap, .mu = mu};
  CHECK(clt_cone_qp_solve(CLT_SOLVER_APGD, &lcp, &bad, &o, za, NULL, &ra) ==
        CLT_ERR_INVALID_ARGUMENT);
  free(M);
  free(q);
  free(za);
  free(zb);
}

typedef struct op_data_t {
  int n;
  const double *M;
} op_data_t;
static void op_apply(void *user, const double *x, double *y) {
  const op_data_t *d = user;
  for (int i = 0; i < d->n; i++) {
    double s = 0.0;
    for (int j = 0; j < d->n; j++) s += d->M[i * d->n + j] * x[j];
    y[i] = s;
  }
}

/* The thread count changes nothing, bit for bit; the matrix-free operator solves the same problem.
 */
static void operator_and_threads(void) {
  gen_rng_t rng = {99u};
  int n = 320; /* above the size where products go parallel */
  double *M = malloc(sizeof(double) * (size_t)(n * n)), *q = malloc(sizeof(double) * (size_t)n);
  gen_gram(&rng, n, 40, 1.0, M);
  gen_solvable_q(&rng, n, M, 0.1, q);
  clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = M};
  op_data_t data = {n, M};
  clt_operator_t op = {.n = n, .apply = op_apply, .user = &data};
  clt_lcp_t with_m = {.n = n, .M = &Mm, .q = q};
  clt_lcp_t with_op = {.n = n, .op = &op, .q = q};
  double *z1 = malloc(sizeof(double) * (size_t)n), *z2 = malloc(sizeof(double) * (size_t)n);
  for (int s = 0; s < 2; s++) {
    clt_solver_options_t o = clt_default_solver_options();
    o.tolerance = 1e-9;
    clt_solve_result_t r1, r2;
    o.threads = 1;
    CHECK(clt_lcp_solve(qp_solvers[s], &with_m, &o, z1, NULL, &r1) == CLT_OK);
    CHECK(r1.status == CLT_SOLVE_SOLVED);
    for (int threads = 2; threads <= 3; threads++) {
      o.threads = threads;
      CHECK(clt_lcp_solve(qp_solvers[s], &with_m, &o, z2, NULL, &r2) == CLT_OK);
      CHECK(r2.iterations == r1.iterations);
      CHECK(memcmp(z1, z2, sizeof(double) * (size_t)n) == 0);
    }
    /* The operator sums its rows in another order than the library's product: the same
     * problem solved, not the same bits. */
    CHECK(clt_lcp_solve(qp_solvers[s], &with_op, &o, z2, NULL, &r2) == CLT_OK);
    CHECK(r2.status == CLT_SOLVE_SOLVED);
    CHECK_LE(r2.residual, 1e-9);
    for (int i = 0; i < n; i++) CHECK_NEAR(z1[i], z2[i], 1e-6);
    printf("n=%d %s: %d iterations, residual %.3g\n", n, clt_solver_kind_name(qp_solvers[s]),
           r1.iterations, r1.residual);
  }
  free(M);
  free(q);
  free(z1);
  free(z2);
}

/* CSR storage: the same iterates as the dense twin; an asymmetric CSR matrix is refused. */
static void csr_storage(void) {
  gen_rng_t rng = {4711u};
  int n = 150;
  double *M = malloc(sizeof(double) * (size_t)(n * n)), *q = malloc(sizeof(double) * (size_t)n);
  gen_banded_spd(&rng, n, 4, M);
  gen_solvable_q(&rng, n, M, 0.2, q);
  clt_matrix_t C = gen_csr_copy(n, M);
  clt_matrix_t D = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = M};
  clt_lcp_t ld = {.n = n, .M = &D, .q = q}, lc = {.n = n, .M = &C, .q = q};
  double *zd = calloc((size_t)n, sizeof(double)), *zc = calloc((size_t)n, sizeof(double));
  for (int s = 0; s < 2; s++) {
    clt_solve_result_t rd, rc;
    CHECK(clt_lcp_solve(qp_solvers[s], &ld, NULL, zd, NULL, &rd) == CLT_OK);
    CHECK(clt_lcp_solve(qp_solvers[s], &lc, NULL, zc, NULL, &rc) == CLT_OK);
    CHECK(rd.status == CLT_SOLVE_SOLVED && rc.status == CLT_SOLVE_SOLVED);
    CHECK(rd.iterations == rc.iterations);
    for (int i = 0; i < n; i++) CHECK_NEAR(zc[i], zd[i], 1e-14 * (1.0 + fabs(zd[i])));
  }
  C.values[C.row_ptr[5] + 1] += 1e-3; /* break the symmetry */
  clt_solve_result_t r;
  CHECK(clt_lcp_solve(CLT_SOLVER_APGD, &lc, NULL, zc, NULL, &r) == CLT_OK);
  CHECK(r.status == CLT_SOLVE_ERROR && strstr(r.message, "not symmetric") != NULL);
  clt_matrix_free(&C);
  free(M);
  free(q);
  free(zd);
  free(zc);
}

int main(void) {
  csr_storage();
  data_files();
  random_problems();
  cones();
  operator_and_threads();
  return clt_test_finish();
}
