#define _POSIX_C_SOURCE 200809L /* mkdtemp */
/* The problem-file readers (src/io/problems) on every file of shared/data (README §5 tables:
 * sizes, kinds, known entries, storage forms that must agree), and on malformed files that must
 * fail with the file name and the line (text) or dataset (HDF5) in the message. */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clatter/problems.h"
#include "test_util.h"

static char shared_dir[1024];

static int load(const char *sub, const char *name, clt_problem_file_t *p) {
  char path[2048], message[512];
  snprintf(path, sizeof path, "%s/data/%s/%s", shared_dir, sub, name);
  clt_status_t st = clt_problem_file_load(path, p, message, sizeof message);
  if (st != CLT_OK) fprintf(stderr, "load %s failed: %s\n", name, message);
  CHECK(st == CLT_OK);
  return st == CLT_OK;
}

typedef struct lcp_row_t {
  const char *name;
  int n;
} lcp_row_t;

static const lcp_row_t lcp_table[] = {
    {"lcp_deudeu.dat", 2},         {"lcp_deudeu_block.dat", 2},
    {"lcp_trivial.dat", 9},        {"lcp_trivial_block.dat", 9},
    {"lcp_ortiz.dat", 4},          {"lcp_ortiz_block.dat", 4},
    {"lcp_exp_murty.dat", 6},      {"lcp_mmc.dat", 26},
    {"lcp_legacy_mmc31.dat", 31},  {"lcp_CPS_1.dat", 2},
    {"lcp_CPS_2.dat", 3},          {"lcp_CPS_3.dat", 4},
    {"lcp_CPS_4.dat", 4},          {"lcp_Pang_isolated_sol.dat", 3},
    {"lcp_Pang_isolated_sol_perturbed.dat", 3},
    {"lcp_enum_fails.dat", 9},     {"lcp_tobenna.dat", 40},
    {"lcp_legacy_confeti.dat", 6}, {"lcp_legacy_diodes.dat", 4},
    {"lcp_legacy_mathieu2.dat", 12},
};

typedef struct fc_row_t {
  const char *name;
  clt_problem_kind_t kind;
  int dim;
  int contacts;
  int n; /* global: velocity unknowns */
} fc_row_t;

static const fc_row_t fc_table[] = {
    {"FrictionContact3D_1c.dat", CLT_PROBLEM_FC_LOCAL, 3, 1, 0},
    {"FC3D_Example1.dat", CLT_PROBLEM_FC_LOCAL, 3, 3, 0},
    {"FC3D_Example1_SBM.dat", CLT_PROBLEM_FC_LOCAL, 3, 3, 0},
    {"Rover11035.dat", CLT_PROBLEM_FC_LOCAL, 3, 1, 0},
    {"Rover4396.dat", CLT_PROBLEM_FC_LOCAL, 3, 2, 0},
    {"Rover1039.dat", CLT_PROBLEM_FC_LOCAL, 3, 4, 0},
    {"Rover1040.dat", CLT_PROBLEM_FC_LOCAL, 3, 5, 0},
    {"Confeti-ex13-4contact-Fc3D-SBM.dat", CLT_PROBLEM_FC_LOCAL, 3, 4, 0},
    {"NESpheres_10_1.dat", CLT_PROBLEM_FC_LOCAL, 3, 9, 0},
    {"OneObject-i100000-316.hdf5.dat", CLT_PROBLEM_FC_LOCAL, 3, 25, 0},
    {"BoxesStack1-i100000-32.hdf5.dat", CLT_PROBLEM_FC_LOCAL, 3, 52, 0},
    {"Confeti-ex03-Fc3D-SBM.dat", CLT_PROBLEM_FC_LOCAL, 3, 54, 0},
    {"Capsules-i101-404.dat", CLT_PROBLEM_FC_LOCAL, 3, 225, 0},
    {"Capsules-i100-1090.dat", CLT_PROBLEM_FC_LOCAL, 3, 276, 0},
    {"KaplasTower-i1061-4.hdf5.dat", CLT_PROBLEM_FC_LOCAL, 3, 570, 0},
    {"Capsules-i125-1213.hdf5", CLT_PROBLEM_FC_LOCAL, 3, 286, 0},
    {"LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", CLT_PROBLEM_FC_LOCAL, 3, 60, 0},
    {"Box_Stacks-i0122-82-5.hdf5", CLT_PROBLEM_FC_GLOBAL, 3, 82, 450},
    {"spheres-in-a-box-98-i10000-256-10.hdf5", CLT_PROBLEM_FC_GLOBAL, 3, 256, 588},
    {"CubeH8.hdf5", CLT_PROBLEM_FC_GLOBAL, 3, 1, 162},
    {"FC2D_SliderCrankLagrangian00000.dat", CLT_PROBLEM_FC_LOCAL, 2, 2, 0},
    {"FrictionContactProblem00374.dat", CLT_PROBLEM_FC_LOCAL, 2, 28, 0},
    {"FrictionContactProblem00031.dat", CLT_PROBLEM_FC_LOCAL, 2, 11, 0},
    {"FrictionContactProblem00237.dat", CLT_PROBLEM_FC_LOCAL, 2, 376, 0},
    {"fc2d_granularflowonwall_00667_00000.dat", CLT_PROBLEM_FC_LOCAL, 2, 667, 0},
    {"fc2d_granularflowonwall_07002_00801.dat", CLT_PROBLEM_FC_LOCAL, 2, 7002, 0},
};

static int all_finite(const double *v, int n) {
  for (int k = 0; k < n; k++)
    if (!isfinite(v[k])) return 0;
  return 1;
}

static void test_lcp_files(void) {
  for (size_t k = 0; k < sizeof lcp_table / sizeof lcp_table[0]; k++) {
    clt_problem_file_t p;
    if (!load("lcp", lcp_table[k].name, &p)) continue;
    CHECK(p.kind == CLT_PROBLEM_LCP);
    CHECK(p.lcp_n == lcp_table[k].n);
    CHECK(p.lcp_M.rows == lcp_table[k].n && p.lcp_M.cols == lcp_table[k].n);
    CHECK(all_finite(p.lcp_q, p.lcp_n));
    clt_problem_file_free(&p);
  }
}

static void check_same_lcp(const char *a_name, const char *b_name) {
  clt_problem_file_t a, b;
  if (!load("lcp", a_name, &a)) return;
  if (!load("lcp", b_name, &b)) {
    clt_problem_file_free(&a);
    return;
  }
  CHECK(a.lcp_n == b.lcp_n);
  int same = a.lcp_n == b.lcp_n;
  for (int i = 0; same && i < a.lcp_n; i++) {
    if (a.lcp_q[i] != b.lcp_q[i]) same = 0;
    for (int j = 0; j < a.lcp_n; j++)
      if (clt_matrix_get(&a.lcp_M, i, j) != clt_matrix_get(&b.lcp_M, i, j)) same = 0;
  }
  if (!same) fprintf(stderr, "%s and %s differ\n", a_name, b_name);
  CHECK(same);
  clt_problem_file_free(&a);
  clt_problem_file_free(&b);
}

static void test_lcp_entries(void) {
  clt_problem_file_t p;
  /* README §3.1: murty's text looks lower-triangular, the matrix (column-major) is upper. */
  if (load("lcp", "lcp_exp_murty.dat", &p)) {
    int ok = 1;
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++) {
        double expect = j > i ? 2.0 : (j == i ? 1.0 : 0.0);
        if (clt_matrix_get(&p.lcp_M, i, j) != expect) ok = 0;
      }
    CHECK(ok);
    CHECK(p.lcp_q[0] == -1.0 && p.lcp_q[5] == -1.0);
    clt_problem_file_free(&p);
  }
  if (load("lcp", "lcp_trivial.dat", &p)) {
    for (int i = 0; i < 9; i++) {
      CHECK_NEAR(clt_matrix_get(&p.lcp_M, i, i), i + 1.0, 0.0);
      CHECK_NEAR(p.lcp_q[i], -1.0, 0.0);
    }
    clt_problem_file_free(&p);
  }
  if (load("lcp", "lcp_deudeu.dat", &p)) {
    CHECK_NEAR(clt_matrix_get(&p.lcp_M, 0, 0), 2.0, 0.0);
    CHECK_NEAR(clt_matrix_get(&p.lcp_M, 0, 1), 1.0, 0.0);
    CHECK_NEAR(clt_matrix_get(&p.lcp_M, 1, 0), 1.0, 0.0);
    CHECK_NEAR(clt_matrix_get(&p.lcp_M, 1, 1), 2.0, 0.0);
    clt_problem_file_free(&p);
  }
  check_same_lcp("lcp_deudeu.dat", "lcp_deudeu_block.dat");
  check_same_lcp("lcp_trivial.dat", "lcp_trivial_block.dat");
  check_same_lcp("lcp_ortiz.dat", "lcp_ortiz_block.dat");
}

static void test_fc_files(void) {
  for (size_t k = 0; k < sizeof fc_table / sizeof fc_table[0]; k++) {
    const fc_row_t *row = &fc_table[k];
    clt_problem_file_t p;
    if (!load("fc", row->name, &p)) continue;
    CHECK(p.kind == row->kind);
    if (p.kind != row->kind) fprintf(stderr, "%s: kind %s\n", row->name, clt_problem_kind_name(p.kind));
    if (row->kind == CLT_PROBLEM_FC_LOCAL) {
      const int m = row->dim * row->contacts;
      CHECK(p.local.dim == row->dim);
      CHECK(p.local.contacts == row->contacts);
      CHECK(p.local.W.rows == m && p.local.W.cols == m);
      CHECK(p.local.W.kind == CLT_MATRIX_CSR);
      CHECK(all_finite(p.local.q, m));
      CHECK(all_finite(p.local.mu, row->contacts));
      /* every contact's normal diagonal entry is positive in these problems */
      int positive = 1;
      for (int a = 0; a < row->contacts; a++)
        if (!(clt_matrix_get(&p.local.W, row->dim * a, row->dim * a) > 0.0)) positive = 0;
      if (!positive) fprintf(stderr, "%s: a W_nn ≤ 0\n", row->name);
      CHECK(positive);
    } else {
      const int m = row->dim * row->contacts;
      CHECK(p.global.dim == row->dim);
      CHECK(p.global.contacts == row->contacts);
      CHECK(p.global.n == row->n);
      CHECK(p.global.M.rows == row->n && p.global.M.cols == row->n);
      CHECK(p.global.H.rows == row->n && p.global.H.cols == m);
      CHECK(all_finite(p.global.f, row->n));
      CHECK(all_finite(p.global.w, m));
    }
    clt_problem_file_free(&p);
  }
}

static void test_fc_entries(void) {
  clt_problem_file_t a, b;
  if (load("fc", "FC3D_Example1.dat", &a)) {
    if (load("fc", "FC3D_Example1_SBM.dat", &b)) {
      int same = 1;
      for (int i = 0; i < 9; i++) {
        if (a.local.q[i] != b.local.q[i]) same = 0;
        for (int j = 0; j < 9; j++)
          if (clt_matrix_get(&a.local.W, i, j) != clt_matrix_get(&b.local.W, i, j)) same = 0;
      }
      for (int c = 0; c < 3; c++)
        if (a.local.mu[c] != b.local.mu[c]) same = 0;
      CHECK(same);
      clt_problem_file_free(&b);
    }
    /* the README table says μ ∈ [0, 0.1]; the file holds 0.1 for all three contacts */
    CHECK_NEAR(a.local.mu[0], 0.1, 1e-15);
    CHECK_NEAR(a.local.q[2], 3.0, 0.0);
    clt_problem_file_free(&a);
  }
  /* CSparse CSC dump: column 0 holds rows 0 and 649 (README §3.1 excerpt). */
  if (load("fc", "fc2d_granularflowonwall_00667_00000.dat", &a)) {
    CHECK_NEAR(clt_matrix_get(&a.local.W, 0, 0), 856.713, 0.0);
    CHECK_NEAR(clt_matrix_get(&a.local.W, 649, 0), -454.43, 0.0);
    CHECK_NEAR(clt_matrix_get(&a.local.W, 1, 0), 0.0, 0.0);
    CHECK_NEAR(a.local.mu[0], 0.5, 0.0);
    clt_problem_file_free(&a);
  }
  /* FCLIB triplets: i = row, p = column; H of Box_Stacks has max row 389, max column 245. */
  if (load("fc", "Box_Stacks-i0122-82-5.hdf5", &a)) {
    int max_row = -1, max_col = -1;
    const clt_matrix_t *H = &a.global.H;
    for (int i = 0; i < H->rows; i++)
      for (int k = H->row_ptr[i]; k < H->row_ptr[i + 1]; k++) {
        if (i > max_row) max_row = i;
        if (H->col_index[k] > max_col) max_col = H->col_index[k];
      }
    CHECK(max_row == 389);
    CHECK(max_col == 245);
    /* M is diagonal */
    CHECK(a.global.M.nnz == 450);
    clt_problem_file_free(&a);
  }
  /* CubeH8's M is stored as its upper triangle only (3006 entries above the diagonal, 2814 of
   * them nonzero, 162 on it, none below): the reader mirrors it into the symmetric M of README
   * §2.3 (exact zeros dropped). */
  if (load("fc", "CubeH8.hdf5", &a)) {
    const clt_matrix_t *M = &a.global.M;
    CHECK(M->nnz == 2 * 2814 + 162);
    double asym = 0.0;
    for (int i = 0; i < M->rows; i++)
      for (int k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++)
        asym = fmax(asym, fabs(M->values[k] - clt_matrix_get(M, M->col_index[k], i)));
    CHECK_NEAR(asym, 0.0, 0.0);
    clt_problem_file_free(&a);
  }
  /* CSR W of Capsules-i125: asymmetric by about 9.4e-3 (README §3.4). */
  if (load("fc", "Capsules-i125-1213.hdf5", &a)) {
    const clt_matrix_t *W = &a.local.W;
    double asym = 0.0, big = 0.0;
    for (int i = 0; i < W->rows; i++)
      for (int k = W->row_ptr[i]; k < W->row_ptr[i + 1]; k++) {
        double v = W->values[k];
        double d = fabs(v - clt_matrix_get(W, W->col_index[k], i));
        if (d > asym) asym = d;
        if (fabs(v) > big) big = fabs(v);
      }
    CHECK_NEAR(asym, 9.4e-3, 1e-3);
    CHECK_NEAR(big, 7.1, 0.1);
    clt_problem_file_free(&a);
  }
}

/* ---- malformed files ---------------------------------------------------------------------- */

static char temp_dir[512];

static void write_text(const char *name, const char *text, char *path, size_t path_size) {
  snprintf(path, path_size, "%s/%s", temp_dir, name);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fputs(text, f);
  fclose(f);
}

/* Loading must fail with `expect_status` and a message holding every needle. */
static void expect_failure(const char *path, clt_status_t expect_status, const char *needle1,
                           const char *needle2) {
  clt_problem_file_t p;
  char message[512] = "";
  clt_status_t st = clt_problem_file_load(path, &p, message, sizeof message);
  CHECK(st == expect_status);
  int ok = strstr(message, needle1) != NULL && (!needle2 || strstr(message, needle2) != NULL);
  if (!ok || st != expect_status)
    fprintf(stderr, "%s: status %s, message '%s' (wanted '%s' and '%s')\n", path,
            clt_status_name(st), message, needle1, needle2 ? needle2 : "");
  CHECK(ok);
  if (st == CLT_OK) clt_problem_file_free(&p);
}

static void test_malformed_text(void) {
  char path[1024];
  write_text("bad_token.dat", "2\n0\n2\n2\n2 2\n1 0\n0 abc\n-1 -1\n", path, sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "bad_token.dat:7:", "'abc'");

  write_text("truncated.dat", "3\n0\n3\n3\n3 3\n1 0 0\n0 1 0\n0 0 1\n-1 -1\n", path, sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "truncated.dat:9:", "end of file");

  write_text("nan.dat", "2\n0\n2\n2\n2 2\n1 0\n0 1\n-1 nan\n", path, sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "nan.dat:8:", "non-finite");

  write_text("inf.dat", "3\n1\n0\n3\n3\n3 3\n1 0 0\n0 1 0\n0 0 1\n-1 0 0\ninf\n", path,
             sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "inf.dat:11:", "non-finite");

  /* SBM with a block column index 5 of 1 block column */
  write_text("bad_block.dat",
             "2\n1\n2\n2\n1\n1\n1\n2\n2\n2\n1\n0 1\n5\n0\n2 1 1 2\n-5 -6\n", path, sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "bad_block.dat:13:", "out of range");

  /* SBM with non-cumulative offsets */
  write_text("bad_offsets.dat",
             "4\n1\n4\n4\n2\n2\n2\n2 1\n2 4\n3\n2\n0 1 2\n0 1\n0\n1 0 0 1\n1\n1 0 0 1\n1 1 1 1\n",
             path, sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "bad_offsets.dat:8:", "blocksize0");

  /* matrix size that disagrees with n */
  write_text("wrong_size.dat", "3\n0\n2\n2\n2 2\n1 0\n0 1\n-1 -1\n", path, sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "wrong_size.dat:1:", "not a problem");

  write_text("wrong_size2.dat", "3\n0\n3\n3\n2 2\n1 0\n0 1\n-1 -1\n", path, sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "wrong_size2.dat:5:", "differs");

  /* sparse row index out of range */
  write_text("bad_sparse.dat",
             "2\n1\n2\n2\n2\n2\nCSparse Version 3.1.9, May 4, 2016.  Copyright\n"
             "2-by-2, nzmax: 2 nnz: 2, 1-norm: 1\n    col 0 : locations 0 to 0\n      0 : 1\n"
             "    col 1 : locations 1 to 1\n      7 : 1\n-1 0\n0.5\n",
             path, sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "bad_sparse.dat:12:", "out of range");

  write_text("not_a_problem.txt", "hello world\nthis is not a problem\n", path, sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "not_a_problem.txt", "not a problem");

  write_text("empty.dat", "", path, sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "empty.dat", NULL);

  snprintf(path, sizeof path, "%s/does_not_exist.dat", temp_dir);
  expect_failure(path, CLT_ERR_IO, "does_not_exist.dat", "cannot open");

  write_text("negative_mu.dat", "2\n1\n0\n2\n2\n2 2\n1 0\n0 1\n-1 0\n-0.5\n", path, sizeof path);
  expect_failure(path, CLT_ERR_FORMAT, "negative_mu.dat:10:", "negative");
}

static void test_ambiguous_layouts(void) {
  char path[1024], message[512];
  clt_problem_file_t p;
  /* d = 2, nc = 1, CSparse storage: starts "2 1 2 2 2" like an n = 2 SBM LCP with 2 blocks */
  write_text("fc2d_sparse.dat",
             "2\n1\n2\n2\n2\n2\nCSparse Version 3.1.9, May 4, 2016.  Copyright\n"
             "2-by-2, nzmax: 3 nnz: 3, 1-norm: 4\n    col 0 : locations 0 to 1\n      0 : 2\n"
             "      1 : 0.5\n    col 1 : locations 2 to 2\n      1 : 3\n-1 0.25\n0.3\n",
             path, sizeof path);
  clt_status_t st = clt_problem_file_load(path, &p, message, sizeof message);
  CHECK(st == CLT_OK);
  if (st == CLT_OK) {
    CHECK(p.kind == CLT_PROBLEM_FC_LOCAL);
    CHECK(p.local.dim == 2 && p.local.contacts == 1);
    CHECK_NEAR(clt_matrix_get(&p.local.W, 1, 0), 0.5, 0.0);
    CHECK_NEAR(clt_matrix_get(&p.local.W, 0, 1), 0.0, 0.0);
    CHECK_NEAR(clt_matrix_get(&p.local.W, 1, 1), 3.0, 0.0);
    CHECK_NEAR(p.local.q[1], 0.25, 0.0);
    CHECK_NEAR(p.local.mu[0], 0.3, 0.0);
    clt_problem_file_free(&p);
  } else {
    fprintf(stderr, "%s\n", message);
  }
  /* CSparse triplet dump (origin 1): "i j : value" lines */
  write_text("fc2d_triplet.dat",
             "2\n1\n2\n2\n2\n1\nCSparse Version 3.1.9, May 4, 2016.  Copyright\n"
             "triplet: 2-by-2, nzmax: 3 nnz: 3\n    0 0 : 2\n    1 0 : 0.5\n    1 1 : 3\n"
             "-1 0.25\n0.3\n",
             path, sizeof path);
  st = clt_problem_file_load(path, &p, message, sizeof message);
  CHECK(st == CLT_OK);
  if (st == CLT_OK) {
    CHECK(p.kind == CLT_PROBLEM_FC_LOCAL);
    CHECK_NEAR(clt_matrix_get(&p.local.W, 0, 0), 2.0, 0.0);
    CHECK_NEAR(clt_matrix_get(&p.local.W, 1, 0), 0.5, 0.0);
    CHECK_NEAR(clt_matrix_get(&p.local.W, 0, 1), 0.0, 0.0);
    CHECK_NEAR(clt_matrix_get(&p.local.W, 1, 1), 3.0, 0.0);
    clt_problem_file_free(&p);
  } else {
    fprintf(stderr, "%s\n", message);
  }
  /* n = 2 SBM LCP with two 1×1 diagonal blocks: "2 1 2 2 2 2 2 ..." */
  write_text("lcp_sbm2.dat", "2\n1\n2\n2\n2\n2\n2\n1 2\n1 2\n3\n2\n0 1 2\n0 1\n0\n4\n1\n5\n-1 -2\n",
             path, sizeof path);
  st = clt_problem_file_load(path, &p, message, sizeof message);
  CHECK(st == CLT_OK);
  if (st == CLT_OK) {
    CHECK(p.kind == CLT_PROBLEM_LCP);
    CHECK_NEAR(clt_matrix_get(&p.lcp_M, 0, 0), 4.0, 0.0);
    CHECK_NEAR(clt_matrix_get(&p.lcp_M, 1, 1), 5.0, 0.0);
    CHECK_NEAR(clt_matrix_get(&p.lcp_M, 0, 1), 0.0, 0.0);
    CHECK_NEAR(p.lcp_q[1], -2.0, 0.0);
    clt_problem_file_free(&p);
  } else {
    fprintf(stderr, "%s\n", message);
  }
}

/* Writes a small FCLIB local problem; `omit` names a dataset left out, bad_index puts a column
 * index out of range. */
static void write_fclib_local(const char *path, const char *omit, int bad_index, int nan_q) {
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = H5Gcreate2(file, "/fclib_local", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Gclose(g);
  g = H5Gcreate2(file, "/fclib_local/W", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Gclose(g);
  g = H5Gcreate2(file, "/fclib_local/vectors", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Gclose(g);
  hsize_t one = 1, four = 4, three = 3;
  int spacedim = 3, m = 3, n = 3, nz = -2, nzmax = 3;
  int p[4] = {0, 1, 2, 3}, idx[3] = {0, 1, bad_index ? 9 : 2};
  double x[3] = {1.0, 1.0, 1.0}, q[3] = {-1.0, 0.0, nan_q ? NAN : 0.0}, mu[1] = {0.5};
  H5LTmake_dataset_int(file, "/fclib_local/spacedim", 1, &one, &spacedim);
  H5LTmake_dataset_int(file, "/fclib_local/W/m", 1, &one, &m);
  H5LTmake_dataset_int(file, "/fclib_local/W/n", 1, &one, &n);
  H5LTmake_dataset_int(file, "/fclib_local/W/nz", 1, &one, &nz);
  H5LTmake_dataset_int(file, "/fclib_local/W/nzmax", 1, &one, &nzmax);
  H5LTmake_dataset_int(file, "/fclib_local/W/p", 1, &four, p);
  H5LTmake_dataset_int(file, "/fclib_local/W/i", 1, &three, idx);
  H5LTmake_dataset_double(file, "/fclib_local/W/x", 1, &three, x);
  if (!omit || strcmp(omit, "q") != 0)
    H5LTmake_dataset_double(file, "/fclib_local/vectors/q", 1, &three, q);
  H5LTmake_dataset_double(file, "/fclib_local/vectors/mu", 1, &one, mu);
  H5Fclose(file);
}

static void test_malformed_hdf5(void) {
  char path[1024], message[512];
  snprintf(path, sizeof path, "%s/good.hdf5", temp_dir);
  write_fclib_local(path, NULL, 0, 0);
  clt_problem_file_t p;
  clt_status_t st = clt_problem_file_load(path, &p, message, sizeof message);
  CHECK(st == CLT_OK);
  if (st == CLT_OK) {
    CHECK(p.kind == CLT_PROBLEM_FC_LOCAL && p.local.contacts == 1 && p.local.dim == 3);
    CHECK_NEAR(clt_matrix_get(&p.local.W, 2, 2), 1.0, 0.0);
    clt_problem_file_free(&p);
  } else {
    fprintf(stderr, "%s\n", message);
  }
  snprintf(path, sizeof path, "%s/missing_q.hdf5", temp_dir);
  write_fclib_local(path, "q", 0, 0);
  expect_failure(path, CLT_ERR_FORMAT, "missing_q.hdf5: /fclib_local/vectors/q", "missing");

  snprintf(path, sizeof path, "%s/bad_index.hdf5", temp_dir);
  write_fclib_local(path, NULL, 1, 0);
  expect_failure(path, CLT_ERR_FORMAT, "bad_index.hdf5: /fclib_local/W/i", "out of range");

  snprintf(path, sizeof path, "%s/nan_q.hdf5", temp_dir);
  write_fclib_local(path, NULL, 0, 1);
  expect_failure(path, CLT_ERR_FORMAT, "nan_q.hdf5: /fclib_local/vectors/q", "not finite");

  /* a valid HDF5 file that holds no problem */
  snprintf(path, sizeof path, "%s/other.hdf5", temp_dir);
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t one = 1;
  int v = 1;
  H5LTmake_dataset_int(file, "/something", 1, &one, &v);
  H5Fclose(file);
  expect_failure(path, CLT_ERR_FORMAT, "other.hdf5", "not an FCLIB problem");
}

static void remove_temp_dir(void) {
  static const char *names[] = {"bad_token.dat", "truncated.dat", "nan.dat", "inf.dat",
                                "bad_block.dat", "bad_offsets.dat", "wrong_size.dat",
                                "wrong_size2.dat", "bad_sparse.dat", "not_a_problem.txt",
                                "empty.dat", "negative_mu.dat", "fc2d_sparse.dat", "fc2d_triplet.dat",
                                "lcp_sbm2.dat", "good.hdf5", "missing_q.hdf5", "bad_index.hdf5",
                                "nan_q.hdf5", "other.hdf5"};
  char path[1024];
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    snprintf(path, sizeof path, "%s/%s", temp_dir, names[k]);
    remove(path);
  }
  rmdir(temp_dir);
}

int main(void) {
  snprintf(shared_dir, sizeof shared_dir, "%s", clt_test_env("CLATTER_SHARED_DIR"));
  const char *tmp = getenv("TMPDIR");
  snprintf(temp_dir, sizeof temp_dir, "%s/clatter_readers_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(temp_dir)) {
    fprintf(stderr, "mkdtemp failed\n");
    return 1;
  }
  test_lcp_files();
  test_lcp_entries();
  test_fc_files();
  test_fc_entries();
  test_malformed_text();
  test_ambiguous_layouts();
  test_malformed_hdf5();
  remove_temp_dir();
  return clt_test_finish();
}
