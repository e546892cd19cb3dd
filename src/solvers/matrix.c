/* Dense and CSR matrices of the solver layer (solvers.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/matrix_internal.h"

bool clt_matrix_usable(const clt_matrix_t *m, int rows, int cols) {
  if (!m || m->rows < 0 || m->cols < 0 || (rows >= 0 && m->rows != rows) || (cols >= 0 && m->cols != cols))
    return false;
  if (m->kind == CLT_MATRIX_DENSE) return m->values || (size_t)m->rows * (size_t)m->cols == 0;
  if (m->kind != CLT_MATRIX_CSR || !m->row_ptr || m->nnz < 0) return false;
  if (m->nnz > 0 && (!m->values || !m->col_index)) return false;
  return m->row_ptr[0] == 0 && m->row_ptr[m->rows] == m->nnz;
}

void clt_matrix_free(clt_matrix_t *m) {
  if (!m) return;
  free(m->values);
  free(m->row_ptr);
  free(m->col_index);
  memset(m, 0, sizeof *m);
}

void clt_matrix_multiply(const clt_matrix_t *m, const double *x, double *y) {
  if (!clt_matrix_usable(m, -1, -1) || !x || !y) return;
  if (m->kind == CLT_MATRIX_DENSE) {
    for (int i = 0; i < m->rows; i++) {
      const double *row = m->values + (size_t)i * (size_t)m->cols;
      double s = 0.0;
      for (int j = 0; j < m->cols; j++) s += row[j] * x[j];
      y[i] = s;
    }
  } else {
    for (int i = 0; i < m->rows; i++) {
      double s = 0.0;
      for (int k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++)
        s += m->values[k] * x[m->col_index[k]];
      y[i] = s;
    }
  }
}

double clt_matrix_get(const clt_matrix_t *m, int row, int col) {
  if (!clt_matrix_usable(m, -1, -1)) return NAN;
  if (row < 0 || row >= m->rows || col < 0 || col >= m->cols) return 0.0;
  if (m->kind == CLT_MATRIX_DENSE) return m->values[(size_t)row * (size_t)m->cols + (size_t)col];
  /* Column indices are sorted within a row: binary search. */
  int lo = m->row_ptr[row], hi = m->row_ptr[row + 1];
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (m->col_index[mid] < col)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < m->row_ptr[row + 1] && m->col_index[lo] == col) ? m->values[lo] : 0.0;
}
