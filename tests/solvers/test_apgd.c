/* APGD, BBPGD and MPRGP (SPEC.md §2.3): residual ≤ 1e-8 on every symmetric PSD LCP of
 * shared/data/lcp, "matrix not symmetric" (not run) on the others, scored against Lemke on random
 * SPD problems and mixed problems, CSR storage, the matrix-free operator, and bit-identical results
 * for any thread count; the second-order-cone QP for APGD and BBPGD (μ = 0 reduces to an LCP on the
 * normals; they agree); for MPRGP also a column of stacked bodies (CG's finite termination on the
 * face, against BBPGD's iteration count), repeated constraint rows (singular M) and an LCP without
 * a solution; the face refinement that ends an APGD or BBPGD solve. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "clatter/problems.h"
#include "clatter/solvers.h"
#include "solvers/lcp_test_gen.h"
#include "test_util.h"

#define QP_SOLVERS 3
static const clt_solver_kind_t qp_solvers[QP_SOLVERS] = {CLT_SOLVER_APGD, CLT_SOLVER_BBPGD, CLT_SOLVER_MPRGP};

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
    for (int s = 0; s < QP_SOLVERS; s++) {
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
    for (int s = 0; s < QP_SOLVERS; s++) {
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
  for (int s = 0; s < QP_SOLVERS; s++) {
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
  for (int s = 0; s < QP_SOLVERS; s++) {
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
  for (int s = 0; s < QP_SOLVERS; s++) {
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

/* A column of n unit masses on the floor, vertical only (contact k between bodies k − 1 and k; k = 0
 * the floor): M = J Jᵀ is the path Laplacian (κ ~ n²), q = J v_free with v_free = −g h for all, so
 * λ_k = (n − k) g h, every contact active. From a warm start with every contact already active,
 * MPRGP is CG on one face and ends in about n products (finite termination; plus the gradient
 * refreshes), where APGD and BBPGD need ~10 n and ~100 n; cold, the face opens one contact per
 * product (information travels one contact per product for any Krylov method). */
static void column(void) {
  const int n = 200;
  const double gh = 9.81 * 0.01;
  double *M = calloc((size_t)n * (size_t)n, sizeof(double)), *q = calloc((size_t)n, sizeof(double));
  double *z = malloc(sizeof(double) * (size_t)n);
  for (int k = 0; k < n; k++) {
    M[k * n + k] = k == 0 ? 1.0 : 2.0;
    if (k + 1 < n) M[k * n + k + 1] = M[(k + 1) * n + k] = -1.0;
  }
  q[0] = -gh;
  clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = M};
  clt_lcp_t lcp = {.n = n, .M = &Mm, .q = q};
  int its[2][QP_SOLVERS];
  for (int warm = 0; warm < 2; warm++)
    for (int s = 0; s < QP_SOLVERS; s++) {
      clt_solver_options_t o = clt_default_solver_options();
      o.tolerance = 1e-10;
      o.warm_start = warm;
      for (int k = 0; k < n; k++) z[k] = warm ? 0.9 * (n - k) * gh : 0.0;
      clt_solve_result_t r;
      CHECK(clt_lcp_solve(qp_solvers[s], &lcp, &o, z, NULL, &r) == CLT_OK);
      CHECK(r.status == CLT_SOLVE_SOLVED);
      double err = 0.0;
      for (int k = 0; k < n; k++) err = fmax(err, fabs(z[k] - (n - k) * gh));
      printf("column n=%d %s %s: %d iterations, residual %.3g, max |λ − λ*| %.3g\n", n, warm ? "warm" : "cold",
             clt_solver_kind_name(qp_solvers[s]), r.iterations, r.residual, err);
      CHECK_LE(err, 1e-4 * gh * n);
      its[warm][s] = r.iterations;
    }
  CHECK_LE(its[1][2], n + n / 50 + 10); /* CG: n products and the refreshes */
  CHECK_LE(its[0][2], 6 * n);
  for (int s = 0; s < 2; s++) CHECK(its[1][2] * 5 < its[1][s] && its[0][2] < its[0][s]);
  free(M);
  free(q);
  free(z);
}

/* MPRGP on a singular M (every constraint row twice, as ReLCP produces for a pair with nearly
 * parallel frozen normals): solved to the tolerance, the objective equal to Lemke's on the
 * reduced problem; and an LCP without a solution (M = 0 in one row, q < 0 there): an error that
 * says so, not an iteration cap. */
static void mprgp_singular(void) {
  gen_rng_t rng = {2024u};
  int m = 40, n = 2 * m;
  double *Mr = malloc(sizeof(double) * (size_t)(m * m)), *qr = malloc(sizeof(double) * (size_t)m);
  gen_gram(&rng, m, m, 0.05, Mr);
  gen_solvable_q(&rng, m, Mr, 0.2, qr);
  double *M = malloc(sizeof(double) * (size_t)(n * n)), *q = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) {
    q[i] = qr[i % m];
    for (int j = 0; j < n; j++) M[i * n + j] = Mr[(i % m) * m + j % m];
  }
  clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = M};
  clt_matrix_t Mrm = {.kind = CLT_MATRIX_DENSE, .rows = m, .cols = m, .values = Mr};
  clt_lcp_t lcp = {.n = n, .M = &Mm, .q = q}, reduced = {.n = m, .M = &Mrm, .q = qr};
  double *z = calloc((size_t)n, sizeof(double)), *zr = calloc((size_t)m, sizeof(double));
  clt_solver_options_t o = clt_default_solver_options();
  o.tolerance = 1e-10;
  clt_solve_result_t r, rr;
  CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &reduced, &o, zr, NULL, &rr) == CLT_OK);
  CHECK(rr.status == CLT_SOLVE_SOLVED);
  CHECK(clt_lcp_solve(CLT_SOLVER_MPRGP, &lcp, &o, z, NULL, &r) == CLT_OK);
  printf("repeated rows n=%d mprgp: %s, %d iterations, residual %.3g\n", n, clt_solver_status_name(r.status),
         r.iterations, r.residual);
  CHECK(r.status == CLT_SOLVE_SOLVED);
  CHECK_LE(r.residual, 1e-10);
  /* the pair sums are the reduced problem's λ (its M is positive definite) */
  for (int i = 0; i < m; i++) CHECK_NEAR(z[i] + z[i + m], zr[i], 1e-7 * (1.0 + fabs(zr[i])));
  double M0[4] = {1, 0, 0, 0}, q0[2] = {-1, -1}, z0[2] = {0, 0};
  clt_matrix_t M0m = {.kind = CLT_MATRIX_DENSE, .rows = 2, .cols = 2, .values = M0};
  clt_lcp_t bad = {.n = 2, .M = &M0m, .q = q0};
  CHECK(clt_lcp_solve(CLT_SOLVER_MPRGP, &bad, &o, z0, NULL, &r) == CLT_OK);
  printf("no solution: %s (%s)\n", clt_solver_status_name(r.status), r.message);
  CHECK(r.status == CLT_SOLVE_ERROR);
  CHECK(strstr(r.message, "unbounded") != NULL);
  free(Mr);
  free(qr);
  free(M);
  free(q);
  free(z);
  free(zr);
}

/* The face refinement (docs/stepping.md "Face refinement"): a cone QP whose solution sticks,
 * every cone strictly inside at w = 0, with a singular M = J Jᵀ (48 unknowns, rank 24, as four
 * points a side make a box stack's). APGD and BBPGD stop at their tolerance 1e-6 and the
 * refinement takes the answer to round-off; warm-started from it, nothing to do; a cap on the
 * iterations caps the refinement too. */
static void face_refinement(void) {
  gen_rng_t rng = {77u};
  enum { NC = 16, N = 3 * NC, K = 24 };
  static double J[N * K], M[N * N], q[N], zstar[N], z[N];
  for (int i = 0; i < N * K; i++) J[i] = gen_sym(&rng);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = 0.0;
      for (int k = 0; k < K; k++) s += J[i * K + k] * J[j * K + k];
      M[i * N + j] = s;
    }
  int start[NC];
  double mu[NC];
  for (int c = 0; c < NC; c++) {
    start[c] = 3 * c;
    mu[c] = 0.5;
    zstar[3 * c] = 1.0 + gen_uniform(&rng);
    zstar[3 * c + 1] = 0.3 * mu[c] * zstar[3 * c] * gen_sym(&rng);
    zstar[3 * c + 2] = 0.3 * mu[c] * zstar[3 * c] * gen_sym(&rng);
  }
  for (int i = 0; i < N; i++) {
    double s = 0.0;
    for (int j = 0; j < N; j++) s += M[i * N + j] * zstar[j];
    q[i] = -s; /* w(z*) = 0 */
  }
  clt_cone_set_t cs = {.count = NC, .dim = 3, .start = start, .mu = mu};
  clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = N, .cols = N, .values = M};
  clt_lcp_t lcp = {.n = N, .M = &Mm, .q = q};
  for (int s = 0; s < 2; s++) {
    clt_solver_kind_t solver = qp_solvers[s];
    clt_solver_options_t o = clt_default_solver_options();
    o.tolerance = 1e-6;
    clt_solve_result_t r;
    memset(z, 0, sizeof z);
    CHECK(clt_cone_qp_solve(solver, &lcp, &cs, &o, z, NULL, &r) == CLT_OK);
    printf("face refinement %s: %s, %d iterations, residual %.3g (tolerance 1e-6)\n", clt_solver_kind_name(solver),
           clt_solver_status_name(r.status), r.iterations, r.residual);
    CHECK(r.status == CLT_SOLVE_SOLVED);
    CHECK_LE(r.residual, 1e-12);
    CHECK_NEAR(r.residual, clt_cone_qp_residual(&lcp, &cs, z), 1e-15);
    for (int c = 0; c < NC; c++) CHECK_LE(hypot(z[3 * c + 1], z[3 * c + 2]), mu[c] * z[3 * c]);
    /* warm-started from its own answer: no iteration, the same answer */
    double again[N];
    memcpy(again, z, sizeof z);
    o.warm_start = true;
    clt_solve_result_t r2;
    CHECK(clt_cone_qp_solve(solver, &lcp, &cs, &o, again, NULL, &r2) == CLT_OK);
    CHECK(r2.status == CLT_SOLVE_SOLVED && r2.iterations == 0);
    CHECK(memcmp(again, z, sizeof z) == 0);
    /* capped below what the solve needs: the refinement stays within the cap */
    o.warm_start = false;
    o.max_iterations = 5;
    memset(z, 0, sizeof z);
    CHECK(clt_cone_qp_solve(solver, &lcp, &cs, &o, z, NULL, &r2) == CLT_OK);
    printf("  capped at 5: %s, %d iterations, residual %.3g\n", clt_solver_status_name(r2.status), r2.iterations,
           r2.residual);
    CHECK(r2.status == CLT_SOLVE_MAX_ITERATIONS && r2.iterations == 5);
    /* a cap a few products above what the gradient steps need: solve and refinement within it */
    o.max_iterations = 10000;
    o.tolerance = 1e-6;
    memset(z, 0, sizeof z);
    CHECK(clt_cone_qp_solve(solver, &lcp, &cs, &o, z, NULL, &r2) == CLT_OK);
    int cap = r2.iterations - 3; /* the refinement took more than 3 products above */
    o.max_iterations = cap;
    memset(z, 0, sizeof z);
    CHECK(clt_cone_qp_solve(solver, &lcp, &cs, &o, z, NULL, &r2) == CLT_OK);
    printf("  capped at %d: %s, %d iterations, residual %.3g\n", cap, clt_solver_status_name(r2.status),
           r2.iterations, r2.residual);
    CHECK_LE(r2.iterations, cap);
  }
}

int main(void) {
  column();
  mprgp_singular();
  csr_storage();
  data_files();
  random_problems();
  cones();
  operator_and_threads();
  face_refinement();
  return clt_test_finish();
}
