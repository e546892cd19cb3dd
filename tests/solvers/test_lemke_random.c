/* Lemke (SPEC.md §2.1) on random LCPs with fixed seeds: P-matrices (diagonally dominant,
 * AᵀA + I), PSD (low-rank BᵀB, solvable by construction), PD non-symmetric (S + K, K skew),
 * degenerate instances (many zero q entries, duplicated rows), Murty's triangular matrix; sizes
 * 1..300. Complementarity ≤ 1e-10 (scaled residual of solvers.h), z ≥ 0, w ≥ 0. Mixed LCPs with
 * free variables against an independent reference (enumeration of the active sets). Rays: an
 * infeasible problem must end on a ray, never "solved". */
#include <stdio.h>

#include "clatter/solvers.h"
#include "solvers/lcp_test_gen.h"
#include "test_util.h"

static int solved_count = 0;

/* Solves with Lemke and checks the answer. Returns the status. */
static clt_solver_status_t check_lemke(const char *label, int n, const double *Mv, const double *q,
                                       int free_count, double *z_out) {
  clt_matrix_t M = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = (double *)Mv};
  clt_lcp_t lcp = {.n = n, .M = &M, .q = q, .free_count = free_count};
  clt_solver_options_t o = clt_default_solver_options();
  double *z = calloc((size_t)n, sizeof(double)), *w = calloc((size_t)n, sizeof(double));
  clt_solve_result_t r;
  CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, &o, z, w, &r) == CLT_OK);
  if (r.status != CLT_SOLVE_SOLVED)
    fprintf(stderr, "%s n=%d: %s %s\n", label, n, clt_solver_status_name(r.status), r.message);
  CHECK(r.status == CLT_SOLVE_SOLVED);
  CHECK_LE(r.residual, 1e-10);
  double qn = 0.0;
  for (int i = 0; i < n; i++) qn = fmax(qn, fabs(q[i]));
  int bad = 0;
  for (int i = free_count; i < n; i++) {
    if (!(z[i] >= 0.0) || !(w[i] >= -1e-10 * (1.0 + qn))) bad++;
    if (fabs(fmin(z[i], w[i])) > 1e-10 * (1.0 + qn)) bad++;
  }
  for (int i = 0; i < free_count; i++)
    if (fabs(w[i]) > 1e-10 * (1.0 + qn)) bad++;
  CHECK(bad == 0);
  CHECK_NEAR(r.residual, clt_lcp_residual(&lcp, z), 1e-13);
  if (r.status == CLT_SOLVE_SOLVED) solved_count++;
  if (z_out) memcpy(z_out, z, sizeof(double) * (size_t)n);
  free(z);
  free(w);
  return r.status;
}

/* Reference for small (mixed) LCPs with a unique solution: every active set S of the
 * constrained part, solve [M]_{F∪S} z = −q with the others zero, keep the complementary one. */
static int enumerate(int n, int nf, const double *M, const double *q, double *z) {
  int nc = n - nf;
  double A[20 * 20], b[20];
  int idx[20];
  for (long mask = 0; mask < (1L << nc); mask++) {
    int k = 0;
    for (int i = 0; i < nf; i++) idx[k++] = i;
    for (int i = 0; i < nc; i++)
      if (mask & (1L << i)) idx[k++] = nf + i;
    for (int a = 0; a < k; a++) {
      for (int c = 0; c < k; c++) A[a * k + c] = M[idx[a] * n + idx[c]];
      b[a] = -q[idx[a]];
    }
    /* Gaussian elimination with partial pivoting. */
    int ok = 1;
    for (int c = 0; c < k && ok; c++) {
      int p = c;
      for (int a = c + 1; a < k; a++)
        if (fabs(A[a * k + c]) > fabs(A[p * k + c])) p = a;
      if (fabs(A[p * k + c]) < 1e-12) {
        ok = 0;
        break;
      }
      for (int t = 0; t < k; t++) {
        double tmp = A[c * k + t];
        A[c * k + t] = A[p * k + t];
        A[p * k + t] = tmp;
      }
      double tb = b[c];
      b[c] = b[p];
      b[p] = tb;
      for (int a = c + 1; a < k; a++) {
        double f = A[a * k + c] / A[c * k + c];
        for (int t = c; t < k; t++) A[a * k + t] -= f * A[c * k + t];
        b[a] -= f * b[c];
      }
    }
    if (!ok) continue;
    for (int c = k - 1; c >= 0; c--) {
      double s = b[c];
      for (int t = c + 1; t < k; t++) s -= A[c * k + t] * b[t];
      b[c] = s / A[c * k + c];
    }
    for (int i = 0; i < n; i++) z[i] = 0.0;
    for (int a = 0; a < k; a++) z[idx[a]] = b[a];
    int feasible = 1;
    for (int i = nf; i < n && feasible; i++) {
      double w = q[i];
      for (int j = 0; j < n; j++) w += M[i * n + j] * z[j];
      if (z[i] < -1e-12 || w < -1e-9) feasible = 0;
    }
    if (feasible) return 1;
  }
  return 0;
}

int main(void) {
  static const int sizes[] = {1, 2, 3, 5, 8, 13, 30, 64, 120, 300};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  double *M = malloc(sizeof(double) * 300 * 300), *q = malloc(sizeof(double) * 300);
  for (int s = 0; s < nsizes; s++) {
    int n = sizes[s];
    for (int trial = 0; trial < (n <= 30 ? 4 : 1); trial++) {
      gen_rng_t rng = {1000u + 17u * (unsigned)n + (unsigned)trial};
      /* P-matrix: strictly row diagonally dominant, non-symmetric; q random. */
      for (int i = 0; i < n; i++) {
        double row = 0.0;
        for (int j = 0; j < n; j++) {
          M[i * n + j] = i == j ? 0.0 : gen_sym(&rng);
          row += fabs(M[i * n + j]);
        }
        M[i * n + i] = row + 0.5 + gen_uniform(&rng);
        q[i] = gen_sym(&rng);
      }
      check_lemke("diag-dominant", n, M, q, 0, NULL);
      /* Degenerate: half of q exactly zero, the rest negative. */
      for (int i = 0; i < n; i++) q[i] = gen_uniform(&rng) < 0.5 ? 0.0 : -gen_uniform(&rng);
      check_lemke("diag-dominant degenerate", n, M, q, 0, NULL);
      /* SPD: AᵀA + I. */
      gen_gram(&rng, n, n, 1.0, M);
      for (int i = 0; i < n; i++) q[i] = gen_sym(&rng);
      check_lemke("AtA+I", n, M, q, 0, NULL);
      /* PSD low rank, solvable by construction, degenerate. */
      int k = n / 3 + 1;
      gen_gram(&rng, n, k, 0.0, M);
      gen_solvable_q(&rng, n, M, 0.3, q);
      check_lemke("PSD low rank", n, M, q, 0, NULL);
      /* PD non-symmetric: S + K, K skew. */
      gen_gram(&rng, n, n, 0.1, M);
      for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
          double kij = 2.0 * gen_sym(&rng);
          M[i * n + j] += kij;
          M[j * n + i] -= kij;
        }
      for (int i = 0; i < n; i++) q[i] = gen_sym(&rng);
      check_lemke("S+K", n, M, q, 0, NULL);
    }
  }
  /* Duplicated rows: variables duplicated in a PSD Gram matrix (M has equal rows and columns,
   * q equal entries): a classic degenerate case. */
  for (int trial = 0; trial < 6; trial++) {
    gen_rng_t rng = {77u + (unsigned)trial};
    int n = 12 + 4 * trial, base = n / 2;
    double *B = malloc(sizeof(double) * (size_t)(base * n));
    for (int i = 0; i < base * base; i++) B[i] = gen_sym(&rng);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        int a = i % base, b = j % base;
        double s = a == b ? 0.5 : 0.0;
        for (int l = 0; l < base; l++) s += B[l * base + a] * B[l * base + b];
        M[i * n + j] = s;
      }
    for (int i = 0; i < base; i++) q[i] = gen_sym(&rng);
    for (int i = base; i < n; i++) q[i] = q[i % base];
    check_lemke("duplicated rows", n, M, q, 0, NULL);
    free(B);
  }
  /* Murty's triangular P-matrix (1 on the diagonal, 2 above), various q. */
  for (int n = 1; n <= 12; n++) {
    gen_rng_t rng = {500u + (unsigned)n};
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) M[i * n + j] = i == j ? 1.0 : (j > i ? 2.0 : 0.0);
    for (int i = 0; i < n; i++) q[i] = -1.0;
    check_lemke("murty q=-1", n, M, q, 0, NULL);
    for (int i = 0; i < n; i++) q[i] = -(double)(n - i) - gen_uniform(&rng);
    check_lemke("murty decreasing q", n, M, q, 0, NULL);
    /* Transposed (lower triangular): the long-path direction. */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) M[i * n + j] = i == j ? 1.0 : (j < i ? 2.0 : 0.0);
    for (int i = 0; i < n; i++) q[i] = -1.0 - 0.1 * gen_uniform(&rng);
    check_lemke("murty transposed", n, M, q, 0, NULL);
  }
  /* Integer data, highly degenerate (q ∈ {0, −1, −2}, most zeros): exact ties everywhere, the
   * case where round-off must not decide the lexicographic order (cf. lcp_tobenna). */
  for (int trial = 0; trial < 8; trial++) {
    gen_rng_t rng = {6000u + (unsigned)trial};
    int n = 20 + 10 * trial;
    for (int i = 0; i < n; i++) {
      double row = 0.0;
      for (int j = 0; j < n; j++) {
        M[i * n + j] = i == j ? 0.0 : (double)((int)(7.0 * gen_uniform(&rng)) - 3);
        row += fabs(M[i * n + j]);
      }
      M[i * n + i] = row + 1.0;
      double u = gen_uniform(&rng);
      q[i] = u < 0.7 ? 0.0 : (u < 0.85 ? -1.0 : -2.0);
    }
    check_lemke("integer degenerate", n, M, q, 0, NULL);
  }
  /* PSD (copositive-plus) and infeasible: Lemke must end on a ray. */
  {
    double Mp[4] = {1, -1, -1, 1}, qp[2] = {-1, -1}, z[2], w[2];
    clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = 2, .cols = 2, .values = Mp};
    clt_lcp_t lcp = {.n = 2, .M = &Mm, .q = qp};
    clt_solve_result_t r;
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, NULL, z, w, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_RAY);
  }
  /* Infeasible: M = 0, q < 0 → ray; M = −I, q < 0 → ray. */
  {
    double Mz[4] = {0, 0, 0, 0}, qz[2] = {-1.0, -2.0};
    clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = 2, .cols = 2, .values = Mz};
    clt_lcp_t lcp = {.n = 2, .M = &Mm, .q = qz};
    double z[2], w[2];
    clt_solve_result_t r;
    clt_solver_options_t o = clt_default_solver_options();
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, &o, z, w, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_RAY);
    Mz[0] = Mz[3] = -1.0;
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, &o, z, w, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_RAY);
    /* Pivot cap. */
    for (int i = 0; i < 8 * 8; i++) M[i] = 0.0;
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 8; j++) M[i * 8 + j] = i == j ? 1.0 : (j < i ? 2.0 : 0.0);
    for (int i = 0; i < 8; i++) q[i] = -1.0;
    clt_matrix_t M8 = {.kind = CLT_MATRIX_DENSE, .rows = 8, .cols = 8, .values = M};
    clt_lcp_t l8 = {.n = 8, .M = &M8, .q = q};
    double z8[8], w8[8];
    o.max_iterations = 2;
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &l8, &o, z8, w8, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_MAX_ITERATIONS);
    CHECK(r.iterations == 2);
  }
  /* Mixed LCPs: free variables eliminated by the Schur complement, against enumeration. */
  for (int trial = 0; trial < 12; trial++) {
    gen_rng_t rng = {9000u + (unsigned)trial};
    int nf = 1 + trial % 4, nc = 2 + trial % 7, n = nf + nc;
    gen_gram(&rng, n, n, 0.5, M);
    if (trial % 2) /* non-symmetric but PD */
      for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
          double kij = gen_sym(&rng);
          M[i * n + j] += kij;
          M[j * n + i] -= kij;
        }
    for (int i = 0; i < n; i++) q[i] = gen_sym(&rng);
    double z[20], zref[20];
    check_lemke("mixed", n, M, q, nf, z);
    CHECK(enumerate(n, nf, M, q, zref));
    for (int i = 0; i < n; i++) CHECK_NEAR(z[i], zref[i], 1e-9);
  }
  /* Mixed with a rank-deficient free block (two equal joint rows): reported, not hidden. */
  {
    int n = 4;
    double Md[16] = {1, 1, 0.5, 0, 1, 1, 0.5, 0, 0.5, 0.5, 2, 0, 0, 0, 0, 1};
    double qd[4] = {1, 1, -1, -1};
    clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = Md};
    clt_lcp_t lcp = {.n = n, .M = &Mm, .q = qd, .free_count = 2};
    double z[4], w[4];
    clt_solve_result_t r;
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, NULL, z, w, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_ERROR);
    CHECK(strstr(r.message, "rank-deficient") != NULL);
  }
  /* CSR input gives the same answer as dense. */
  {
    gen_rng_t rng = {4242u};
    int n = 40;
    gen_gram(&rng, n, 10, 0.0, M);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        if ((i + 2 * j) % 5 == 0 && i != j) M[i * n + j] = 0.0; /* some structure */
    for (int i = 0; i < n; i++) M[i * n + i] += 1.0 + 40.0;
    gen_solvable_q(&rng, n, M, 0.2, q);
    int nnz = 0;
    for (int i = 0; i < n * n; i++) nnz += M[i] != 0.0;
    int *rp = malloc(sizeof(int) * (size_t)(n + 1)), *ci = malloc(sizeof(int) * (size_t)nnz);
    double *v = malloc(sizeof(double) * (size_t)nnz);
    int k = 0;
    for (int i = 0; i < n; i++) {
      rp[i] = k;
      for (int j = 0; j < n; j++)
        if (M[i * n + j] != 0.0) {
          ci[k] = j;
          v[k++] = M[i * n + j];
        }
    }
    rp[n] = k;
    clt_matrix_t C = {.kind = CLT_MATRIX_CSR,
                      .rows = n,
                      .cols = n,
                      .values = v,
                      .row_ptr = rp,
                      .col_index = ci,
                      .nnz = nnz};
    clt_lcp_t lcp = {.n = n, .M = &C, .q = q};
    double zc[40], zd[40], w[40];
    clt_solve_result_t r;
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, NULL, zc, w, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_SOLVED);
    check_lemke("dense twin of CSR", n, M, q, 0, zd);
    for (int i = 0; i < n; i++) CHECK(zc[i] == zd[i]);
    free(rp);
    free(ci);
    free(v);
  }
  /* Invalid input is refused with a reason, never solved. */
  {
    double Mb[4] = {1, 0, 0, NAN}, qb[2] = {-1, -1}, z[2];
    clt_matrix_t Mm = {.kind = CLT_MATRIX_DENSE, .rows = 2, .cols = 2, .values = Mb};
    clt_lcp_t lcp = {.n = 2, .M = &Mm, .q = qb};
    clt_solve_result_t r;
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, NULL, z, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
    CHECK(r.status == CLT_SOLVE_ERROR && strstr(r.message, "non-finite") != NULL);
    Mb[3] = 1.0;
    qb[1] = INFINITY;
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, NULL, z, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
    qb[1] = -1.0;
    Mm.rows = 3;
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, NULL, z, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
    Mm.rows = 2;
    lcp.free_count = 3;
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, NULL, z, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
  }
  printf("%d random LCPs solved by Lemke\n", solved_count);
  free(M);
  free(q);
  return clt_test_finish();
}
