/* clatter fuzzing — the problem readers (fuzz/README.md): Siconos .dat text and FCLIB HDF5. The
 * first byte chooses: 'H' the rest is an HDF5 description (h5_build.h), anything else the whole
 * input is a .dat file. A problem that loads must have finite numbers and consistent sizes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clatter/problems.h"
#include "h5_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_finite(const double *x, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(x[i])) abort();
}

/* sizes as documented in problems.h: every index in range, every value finite */
static void check_matrix(const clt_matrix_t *a, int rows, int cols) {
  if (a->rows != rows || a->cols != cols) abort();
  if (a->kind == CLT_MATRIX_DENSE) {
    check_finite(a->values, (int64_t)rows * cols);
    return;
  }
  if (a->row_ptr[0] != 0 || a->row_ptr[rows] != a->nnz) abort();
  for (int i = 0; i < rows; i++) {
    if (a->row_ptr[i + 1] < a->row_ptr[i]) abort();
    for (int k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      if (a->col_index[k] < 0 || a->col_index[k] >= cols || (k > a->row_ptr[i] && a->col_index[k] <= a->col_index[k - 1]))
        abort();
  }
  check_finite(a->values, a->nnz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[256], csv[256], message[1024];
  bool h5 = size > 0 && data[0] == 'H';
  clt_fuzz_temp_path(h5 ? ".hdf5" : ".dat", path, sizeof path);
  clt_fuzz_temp_path(".csv", csv, sizeof csv);
  if (h5) {
    if (!clt_fuzz_h5_build(data + 1, size - 1, path, csv)) return 0;
  } else {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
  }
  clt_problem_file_t p;
  message[0] = '\0';
  if (clt_problem_file_load(path, &p, message, sizeof message) == CLT_OK) {
    if (p.kind == CLT_PROBLEM_LCP) {
      if (p.lcp_n < 0) abort();
      check_matrix(&p.lcp_M, p.lcp_n, p.lcp_n);
      check_finite(p.lcp_q, p.lcp_n);
    } else if (p.kind == CLT_PROBLEM_FC_LOCAL) {
      const clt_fc_local_t *l = &p.local;
      int m = l->dim * l->contacts;
      if ((l->dim != 2 && l->dim != 3) || l->contacts < 0) abort();
      check_matrix(&l->W, m, m);
      check_finite(l->q, m);
      check_finite(l->mu, l->contacts);
    } else {
      const clt_fc_global_t *g = &p.global;
      int m = g->dim * g->contacts;
      if ((g->dim != 2 && g->dim != 3) || g->contacts < 0 || g->n < 0) abort();
      check_matrix(&g->M, g->n, g->n);
      check_matrix(&g->H, g->n, m);
      check_finite(g->f, g->n);
      check_finite(g->w, m);
      check_finite(g->mu, g->contacts);
    }
    clt_problem_file_free(&p);
  } else if (message[0] == '\0') {
    abort(); /* every failure has a reason */
  }
  if (getenv("CLATTER_FUZZ_VERBOSE")) fprintf(stderr, "%s\n", message[0] ? message : "ok");
  remove(path);
  remove(csv);
  return 0;
}
