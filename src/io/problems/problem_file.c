/* clatter — problem-file entry points: kind detection (HDF5 signature, else the Siconos .dat
 * token layout), freeing, and the triplet → CSR / dense assembly shared by the readers.
 *
 * Representation chosen (documented in include/clatter/problems.h's contract):
 *  - LCP matrices are returned DENSE row-major (the LCP files are small and Lemke pivots on a
 *    dense tableau anyway);
 *  - frictional-contact matrices (local W, global M and H) are returned as CSR with sorted
 *    column indices, duplicates summed and exact zeros dropped, whatever the file's storage. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/problems/problem_internal.h"

void clt_problem_message(char *message, size_t message_size, const char *format, ...) {
  if (!message || message_size == 0) return;
  va_list args;
  va_start(args, format);
  vsnprintf(message, message_size, format, args);
  va_end(args);
}

int clt_triplets_reserve(clt_triplets_t *t, long long extra) {
  long long need = (long long)t->count + extra;
  if (need <= t->capacity) return 0;
  if (need > 0x7fffffffLL) return -1;
  long long cap = t->capacity > 0 ? t->capacity : 64;
  while (cap < need) cap *= 2;
  if (cap > 0x7fffffffLL) cap = need;
  int *row = realloc(t->row, (size_t)cap * sizeof *row);
  if (!row) return -1;
  t->row = row;
  int *col = realloc(t->col, (size_t)cap * sizeof *col);
  if (!col) return -1;
  t->col = col;
  double *value = realloc(t->value, (size_t)cap * sizeof *value);
  if (!value) return -1;
  t->value = value;
  t->capacity = (int)cap;
  return 0;
}

void clt_triplets_push(clt_triplets_t *t, int row, int col, double value) {
  t->row[t->count] = row;
  t->col[t->count] = col;
  t->value[t->count] = value;
  t->count++;
}

void clt_triplets_free(clt_triplets_t *t) {
  free(t->row);
  free(t->col);
  free(t->value);
  memset(t, 0, sizeof *t);
}

clt_status_t clt_triplets_to_csr(const clt_triplets_t *t, clt_matrix_t *out) {
  memset(out, 0, sizeof *out);
  const int rows = t->rows, cols = t->cols, count = t->count;
  /* Two stable counting sorts (by column, then by row) give row-major order with sorted
   * columns in O(nnz + rows + cols). */
  int *col_start = calloc((size_t)cols + 1, sizeof *col_start);
  int *by_col = malloc(((size_t)count + 1) * sizeof *by_col);
  int *row_ptr = calloc((size_t)rows + 1, sizeof *row_ptr);
  int *order = malloc(((size_t)count + 1) * sizeof *order);
  int *col_index = malloc(((size_t)count + 1) * sizeof *col_index);
  double *values = malloc(((size_t)count + 1) * sizeof *values);
  if (!col_start || !by_col || !row_ptr || !order || !col_index || !values) {
    free(col_start); free(by_col); free(row_ptr); free(order); free(col_index); free(values);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  for (int k = 0; k < count; k++) col_start[t->col[k] + 1]++;
  for (int c = 0; c < cols; c++) col_start[c + 1] += col_start[c];
  for (int k = 0; k < count; k++) by_col[col_start[t->col[k]]++] = k;
  for (int k = 0; k < count; k++) row_ptr[t->row[k] + 1]++;
  for (int r = 0; r < rows; r++) row_ptr[r + 1] += row_ptr[r];
  int *cursor = malloc(((size_t)rows + 1) * sizeof *cursor);
  if (!cursor) {
    free(col_start); free(by_col); free(row_ptr); free(order); free(col_index); free(values);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  memcpy(cursor, row_ptr, (size_t)rows * sizeof *cursor);
  for (int j = 0; j < count; j++) {
    int k = by_col[j];
    order[cursor[t->row[k]]++] = k;
  }
  free(cursor);
  free(col_start);
  free(by_col);
  /* Merge duplicates and drop exact zeros, compacting in place. */
  int nnz = 0;
  int start = 0;
  for (int r = 0; r < rows; r++) {
    int end = row_ptr[r + 1];
    int j = start;
    row_ptr[r] = nnz;
    while (j < end) {
      int c = t->col[order[j]];
      double v = 0.0;
      while (j < end && t->col[order[j]] == c) v += t->value[order[j++]];
      if (v != 0.0) {
        col_index[nnz] = c;
        values[nnz] = v;
        nnz++;
      }
    }
    start = end;
  }
  row_ptr[rows] = nnz;
  free(order);
  out->kind = CLT_MATRIX_CSR;
  out->rows = rows;
  out->cols = cols;
  out->nnz = nnz;
  out->row_ptr = row_ptr;
  out->col_index = col_index;
  out->values = values;
  return CLT_OK;
}

clt_status_t clt_triplets_to_dense(const clt_triplets_t *t, clt_matrix_t *out) {
  memset(out, 0, sizeof *out);
  double *values = calloc((size_t)t->rows * (size_t)t->cols + 1, sizeof *values);
  if (!values) return CLT_ERR_OUT_OF_MEMORY;
  for (int k = 0; k < t->count; k++)
    values[(size_t)t->row[k] * (size_t)t->cols + (size_t)t->col[k]] += t->value[k];
  out->kind = CLT_MATRIX_DENSE;
  out->rows = t->rows;
  out->cols = t->cols;
  out->values = values;
  return CLT_OK;
}

/* HDF5 files start with an 8-byte signature at offset 0, or at 512, 1024, 2048, ... when the
 * file has a user block. */
static int is_hdf5_file(FILE *f) {
  static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  long offset = 0;
  for (int attempt = 0; attempt < 16; attempt++) {
    unsigned char head[8];
    if (fseek(f, offset, SEEK_SET) != 0) return 0;
    if (fread(head, 1, 8, f) != 8) return 0;
    if (memcmp(head, signature, 8) == 0) return 1;
    offset = offset == 0 ? 512 : offset * 2;
  }
  return 0;
}

clt_status_t clt_problem_file_load(const char *path, clt_problem_file_t *out, char *message,
                                   size_t message_size) {
  if (message && message_size) message[0] = '\0';
  if (!out) return CLT_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (!path) {
    clt_problem_message(message, message_size, "(null): no file name");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    clt_problem_message(message, message_size, "%s: cannot open file", path);
    return CLT_ERR_IO;
  }
  int hdf5 = is_hdf5_file(f);
  fclose(f);
  clt_status_t status = hdf5 ? clt_read_fclib_problem(path, out, message, message_size)
                             : clt_read_dat_problem(path, out, message, message_size);
  if (status != CLT_OK) clt_problem_file_free(out);
  return status;
}

void clt_problem_file_free(clt_problem_file_t *p) {
  if (!p) return;
  clt_matrix_free(&p->lcp_M);
  free(p->lcp_q);
  clt_fc_local_free(&p->local);
  clt_fc_global_free(&p->global);
  memset(p, 0, sizeof *p);
}

const char *clt_problem_kind_name(clt_problem_kind_t kind) {
  switch (kind) {
    case CLT_PROBLEM_LCP: return "lcp";
    case CLT_PROBLEM_FC_LOCAL: return "fc_local";
    case CLT_PROBLEM_FC_GLOBAL: return "fc_global";
  }
  return "unknown";
}
