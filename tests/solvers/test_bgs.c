/* Block Gauss–Seidel / PGS (SPEC.md §2.2): residual ≤ 1e-8 on every symmetric PSD LCP of
 * shared/data/lcp, "does not apply" where a diagonal is ≤ 0, scored against Lemke on random SPD
 * problems, the friction block (c_n, β, λ) solved exactly per contact on a sliding and a sticking
 * 2D box, free variables, relaxation, warm start and the matrix-free form. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "clatter/problems.h"
#include "clatter/solvers.h"
#include "solvers/lcp_test_friction.h"
#include "solvers/lcp_test_gen.h"
#include "test_util.h"

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
      fprintf(stderr, "%s\n", message);
      continue;
    }
    int n = prob.lcp_n;
    double *Md = gen_dense_copy(&prob.lcp_M), lmax = 0.0;
    double asym = gen_asymmetry(n, Md), lmin = gen_min_eigenvalue(n, Md, &lmax);
    int symmetric = asym <= 1e-12, psd = lmin >= -1e-12 * fmax(1.0, lmax);
    int min_diag_positive = 1;
    for (int i = 0; i < n; i++) min_diag_positive &= Md[i * n + i] > 0.0;
    clt_lcp_t lcp = {.n = n, .M = &prob.lcp_M, .q = prob.lcp_q};
    clt_solver_options_t o = clt_default_solver_options();
    o.tolerance = 1e-8;
    double *z = calloc((size_t)n, sizeof(double));
    clt_solve_result_t r;
    CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &lcp, &o, z, NULL, &r) == CLT_OK);
    printf("%-38s n=%3d sym=%d lmin=%9.3g  bgs: %-14s sweeps=%6d residual=%.3g %s\n", e->d_name, n,
           symmetric, lmin, clt_solver_status_name(r.status), r.iterations, r.residual, r.message);
    if (!min_diag_positive) {
      CHECK(r.status == CLT_SOLVE_ERROR); /* reported, never run */
      CHECK(strstr(r.message, "does not apply") != NULL);
    }
    if (symmetric && psd) {
      psd_files++;
      CHECK(r.status == CLT_SOLVE_SOLVED);
      CHECK_LE(r.residual, 1e-8);
    }
    if (strcmp(e->d_name, "lcp_legacy_mmc31.dat") == 0) {
      /* Symmetric, slightly indefinite (lmin < 0): PGS still converges here. */
      CHECK(lmin < 0.0);
      CHECK(r.status == CLT_SOLVE_SOLVED);
    }
    if (r.status == CLT_SOLVE_SOLVED) CHECK_NEAR(r.residual, clt_lcp_residual(&lcp, z), 1e-15);
    free(z);
    free(Md);
    clt_problem_file_free(&prob);
  }
  closedir(d);
  CHECK(psd_files == 6); /* deudeu(+block), trivial(+block), mmc, CPS_1 */
}

static void random_spd(void) {
  for (int trial = 0; trial < 8; trial++) {
    gen_rng_t rng = {300u + (unsigned)trial};
    int n = 5 + 20 * trial;
    double *M = malloc(sizeof(double) * (size_t)(n * n)), *q = malloc(sizeof(double) * (size_t)n);
    gen_gram(&rng, n, n, 0.5, M);
    for (int i = 0; i < n; i++) M[i * n + i] += 0.1 * n; /* keep PGS convergence quick */
    gen_solvable_q(&rng, n, M, 0.2, q);
    clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = M};
    clt_lcp_t lcp = {.n = n, .M = &Mm, .q = q};
    double *zl = calloc((size_t)n, sizeof(double)), *zb = calloc((size_t)n, sizeof(double));
    clt_solve_result_t rl, rb;
    clt_solver_options_t o = clt_default_solver_options();
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, &o, zl, NULL, &rl) == CLT_OK);
    CHECK(rl.status == CLT_SOLVE_SOLVED);
    for (int k = 0; k < 3; k++) {
      o.relaxation = k == 0 ? 1.0 : (k == 1 ? 1.3 : 0.7);
      CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &lcp, &o, zb, NULL, &rb) == CLT_OK);
      CHECK(rb.status == CLT_SOLVE_SOLVED);
      CHECK_LE(rb.residual, 1e-10);
      double err = 0.0, zn = 0.0;
      for (int i = 0; i < n; i++) {
        err = fmax(err, fabs(zb[i] - zl[i]));
        zn = fmax(zn, fabs(zl[i]));
      }
      CHECK_LE(err, 1e-7 * (1.0 + zn)); /* unique solution (SPD): both find it */
    }
    /* Warm start from the answer: converged at sweep 0. */
    o.relaxation = 1.0;
    o.warm_start = true;
    memcpy(zb, zl, sizeof(double) * (size_t)n);
    CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &lcp, &o, zb, NULL, &rb) == CLT_OK);
    CHECK(rb.status == CLT_SOLVE_SOLVED);
    CHECK(rb.iterations == 0);
    /* The sweep limit is reported as such, with the best iterate. */
    o.warm_start = false;
    o.max_iterations = 1;
    o.tolerance = 1e-14;
    CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &lcp, &o, zb, NULL, &rb) == CLT_OK);
    if (n > 5) CHECK(rb.status == CLT_SOLVE_MAX_ITERATIONS);
    free(M);
    free(q);
    free(zl);
    free(zb);
  }
}

/* Friction block: scalar PGS does not apply (λ has a zero diagonal); block GS with an exact
 * local LCP per contact matches Lemke's velocities and the analytical ones. */
static void friction_blocks(void) {
  const double mu = 0.3, h = 0.01, g = 9.81;
  for (int scenario = 0; scenario < 3; scenario++) {
    double v[3] = {0, 0, 0}, force = 0.0;
    if (scenario == 0) v[0] = 1.0;           /* sliding: decelerates by μ g h */
    if (scenario == 1) force = 0.5 * mu * g; /* pushed below the friction limit: sticks */
    if (scenario == 2) force = 2.0 * mu * g; /* pushed above it: slides, a = F/m − μ g */
    box2d_lcp_t p;
    box2d_build(&p, v, force, h, mu);
    clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = 8, .cols = 8, .values = p.A};
    int blocks[3] = {0, 4, 8};
    clt_lcp_t scalar = {.n = 8, .M = &Mm, .q = p.b};
    clt_lcp_t blocked = {.n = 8, .M = &Mm, .q = p.b, .block_start = blocks, .block_count = 2};
    clt_solver_options_t o = clt_default_solver_options();
    double zl[8], zb[8], vl[3], vb[3];
    clt_solve_result_t r;
    CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &scalar, &o, zb, NULL, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_ERROR);
    CHECK(strstr(r.message, "does not apply") != NULL);
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &scalar, &o, zl, NULL, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_SOLVED);
    CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &blocked, &o, zb, NULL, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_SOLVED);
    CHECK_LE(r.residual, 1e-10);
    box2d_velocity(&p, zl, vl);
    box2d_velocity(&p, zb, vb);
    for (int k = 0; k < 3; k++) CHECK_NEAR(vb[k], vl[k], 1e-8);
    double expect_vx =
        scenario == 0 ? 1.0 - mu * g * h : (scenario == 1 ? 0.0 : h * (force - mu * g));
    CHECK_NEAR(vl[0], expect_vx, 1e-9);
    CHECK_NEAR(vl[1], 0.0, 1e-9);
    CHECK_NEAR(vl[2], 0.0, 1e-9);
    CHECK_NEAR(zl[0] + zl[4], g * h, 1e-9); /* total normal impulse = m g h */
  }
}

/* Free variables: a 1D chain of three unit masses joined to each other (two equality rows) and
 * resting on the ground (contact rows), as scalar rows and as one free block. */
static void free_variables(void) {
  gen_rng_t rng = {55u};
  int n = 8, nf = 3;
  double M[64], q[8];
  gen_gram(&rng, n, n, 1.0, M);
  for (int i = 0; i < n; i++) q[i] = gen_sym(&rng);
  clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = M};
  int blocks[7] = {0, 3, 4, 5, 6, 7, 8};
  clt_lcp_t scalar = {.n = n, .M = &Mm, .q = q, .free_count = nf};
  clt_lcp_t blocked = {
      .n = n, .M = &Mm, .q = q, .free_count = nf, .block_start = blocks, .block_count = 6};
  double zl[8], zs[8], zb[8];
  clt_solve_result_t r;
  CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &scalar, NULL, zl, NULL, &r) == CLT_OK);
  CHECK(r.status == CLT_SOLVE_SOLVED);
  CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &scalar, NULL, zs, NULL, &r) == CLT_OK);
  CHECK(r.status == CLT_SOLVE_SOLVED);
  CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &blocked, NULL, zb, NULL, &r) == CLT_OK);
  CHECK(r.status == CLT_SOLVE_SOLVED);
  for (int i = 0; i < n; i++) {
    CHECK_NEAR(zs[i], zl[i], 1e-8);
    CHECK_NEAR(zb[i], zl[i], 1e-8);
  }
  /* A block straddling free and constrained variables is rejected. */
  int bad[3] = {0, 4, 8};
  clt_lcp_t straddle = {
      .n = n, .M = &Mm, .q = q, .free_count = nf, .block_start = bad, .block_count = 2};
  CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &straddle, NULL, zb, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
}

/* Matrix-free: the operator with diagonal and row_dot solves the problem like the matrix. */
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
static double op_row(void *user, int i, const double *x) {
  const op_data_t *d = user;
  double s = 0.0;
  for (int j = 0; j < d->n; j++) s += d->M[i * d->n + j] * x[j];
  return s;
}

static void matrix_free(void) {
  gen_rng_t rng = {808u};
  int n = 30;
  double *M = malloc(sizeof(double) * (size_t)(n * n)), q[30], diag[30], za[30], zb[30];
  gen_gram(&rng, n, n, 3.0, M);
  gen_solvable_q(&rng, n, M, 0.2, q);
  for (int i = 0; i < n; i++) diag[i] = M[i * n + i];
  op_data_t data = {n, M};
  clt_operator_t op = {
      .n = n, .apply = op_apply, .user = &data, .diagonal = diag, .row_dot = op_row};
  clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = M};
  clt_lcp_t with_m = {.n = n, .M = &Mm, .q = q};
  clt_lcp_t with_op = {.n = n, .op = &op, .q = q};
  clt_solve_result_t ra, rb;
  CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &with_m, NULL, za, NULL, &ra) == CLT_OK);
  CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &with_op, NULL, zb, NULL, &rb) == CLT_OK);
  CHECK(ra.status == CLT_SOLVE_SOLVED && rb.status == CLT_SOLVE_SOLVED);
  CHECK_LE(rb.residual, 1e-10);
  /* The operator is checked exactly every sweep, the matrix through a bound: they may stop a
   * few sweeps apart, on the same sequence of iterates. */
  CHECK(rb.iterations <= ra.iterations);
  for (int i = 0; i < n; i++) CHECK_NEAR(za[i], zb[i], 1e-9);
  /* Without row_dot: reported, not run. Lemke needs a matrix. */
  op.row_dot = NULL;
  CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &with_op, NULL, zb, NULL, &rb) == CLT_OK);
  CHECK(rb.status == CLT_SOLVE_ERROR);
  CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &with_op, NULL, zb, NULL, &rb) == CLT_OK);
  CHECK(rb.status == CLT_SOLVE_ERROR);
  free(M);
}

/* CSR storage: the same iterates as the dense twin (zeros dropped do not change a sum). */
static void csr_storage(void) {
  gen_rng_t rng = {31337u};
  int n = 120;
  double *M = malloc(sizeof(double) * (size_t)(n * n)), *q = malloc(sizeof(double) * (size_t)n);
  gen_banded_spd(&rng, n, 3, M);
  gen_solvable_q(&rng, n, M, 0.2, q);
  clt_matrix_t C = gen_csr_copy(n, M);
  clt_matrix_t D = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = M};
  int blocks[41];
  for (int b = 0; b <= 40; b++) blocks[b] = 3 * b;
  for (int blocked = 0; blocked < 2; blocked++) {
    clt_lcp_t ld = {.n = n,
                    .M = &D,
                    .q = q,
                    .block_start = blocked ? blocks : NULL,
                    .block_count = blocked ? 40 : 0};
    clt_lcp_t lc = ld;
    lc.M = &C;
    double *zd = calloc((size_t)n, sizeof(double)), *zc = calloc((size_t)n, sizeof(double));
    clt_solve_result_t rd, rc;
    CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &ld, NULL, zd, NULL, &rd) == CLT_OK);
    CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &lc, NULL, zc, NULL, &rc) == CLT_OK);
    CHECK(rd.status == CLT_SOLVE_SOLVED && rc.status == CLT_SOLVE_SOLVED);
    CHECK(rd.iterations == rc.iterations);
    for (int i = 0; i < n; i++) CHECK_NEAR(zc[i], zd[i], 1e-14 * (1.0 + fabs(zd[i])));
    free(zd);
    free(zc);
  }
  clt_matrix_free(&C);
  free(M);
  free(q);
}

int main(void) {
  csr_storage();
  data_files();
  random_spd();
  friction_blocks();
  free_variables();
  matrix_free();
  return clt_test_finish();
}
