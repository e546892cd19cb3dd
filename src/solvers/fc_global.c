/* clatter — the global frictional contact problem (data README §2.3) by condensation onto the
 * local one: M v = H r + f, u = Hᵀ v + w  ⇒  u = W r + q with W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w.
 *
 * Diagonal M (lumped masses, the usual rigid-body case): W is formed sparse, row by row of Hᵀ,
 * with the M⁻¹ scaling folded in; nothing n×n or m×m dense is ever allocated. Otherwise M is
 * factored M = L Lᵀ (LAPACK dpotrf), X = L⁻¹ H and W = Xᵀ X (dense). The local problem is solved
 * by NSGS (fc_nsgs.c) and v = M⁻¹ (H r + f) is recovered; u = Hᵀ v + w. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/algebra.h"
#include "solvers/fc_internal.h"

static void set_message(clt_solve_result_t *result, const char *text) {
  if (result) snprintf(result->message, sizeof result->message, "%s", text);
}

static void clt_problem_message_fc(char *message, size_t size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void clt_problem_message_fc(char *message, size_t size, const char *format, ...) {
  if (!message || size == 0) return;
  va_list args;
  va_start(args, format);
  vsnprintf(message, size, format, args);
  va_end(args);
}

/* Diagonal of M when M is diagonal with positive entries; NULL otherwise (or out of memory). */
static double *diagonal_of(const clt_matrix_t *M) {
  const int n = M->rows;
  double *diag = calloc((size_t)n + 1, sizeof *diag);
  if (!diag) return NULL;
  for (int i = 0; i < n; i++) {
    if (M->kind == CLT_MATRIX_DENSE) {
      for (int j = 0; j < n; j++) {
        double v = M->values[(size_t)i * n + j];
        if (j == i) diag[i] = v;
        else if (v != 0.0) goto not_diagonal;
      }
    } else {
      for (int k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++) {
        if (M->col_index[k] == i) diag[i] += M->values[k];
        else if (M->values[k] != 0.0) goto not_diagonal;
      }
    }
    if (!(diag[i] > 0.0)) goto not_diagonal;
  }
  return diag;
not_diagonal:
  free(diag);
  return NULL;
}

/* Transpose of a CSR matrix (sorted columns preserved). */
static clt_status_t csr_transpose(const clt_matrix_t *A, clt_matrix_t *T) {
  memset(T, 0, sizeof *T);
  const int nnz = A->row_ptr[A->rows];
  T->kind = CLT_MATRIX_CSR;
  T->rows = A->cols;
  T->cols = A->rows;
  T->nnz = nnz;
  T->row_ptr = calloc((size_t)A->cols + 1, sizeof *T->row_ptr);
  T->col_index = malloc(((size_t)nnz + 1) * sizeof *T->col_index);
  T->values = malloc(((size_t)nnz + 1) * sizeof *T->values);
  int *cursor = malloc(((size_t)A->cols + 1) * sizeof *cursor);
  if (!T->row_ptr || !T->col_index || !T->values || !cursor) {
    free(cursor);
    clt_matrix_free(T);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  for (int k = 0; k < nnz; k++) T->row_ptr[A->col_index[k] + 1]++;
  for (int j = 0; j < A->cols; j++) T->row_ptr[j + 1] += T->row_ptr[j];
  memcpy(cursor, T->row_ptr, (size_t)A->cols * sizeof *cursor);
  for (int i = 0; i < A->rows; i++) {
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      int p = cursor[A->col_index[k]]++;
      T->col_index[p] = i;
      T->values[p] = A->values[k];
    }
  }
  free(cursor);
  return CLT_OK;
}

static int compare_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* W = Hᵀ diag(dinv) H as CSR (Gustavson's row-by-row product with a dense accumulator). */
static clt_status_t condense_diagonal(const clt_matrix_t *H, const double *dinv, clt_matrix_t *W) {
  memset(W, 0, sizeof *W);
  const int m = H->cols;
  clt_matrix_t Ht;
  clt_status_t st = csr_transpose(H, &Ht);
  if (st != CLT_OK) return st;
  double *acc = calloc((size_t)m + 1, sizeof *acc);
  int *mark = malloc(((size_t)m + 1) * sizeof *mark);
  int *list = malloc(((size_t)m + 1) * sizeof *list);
  int *row_ptr = calloc((size_t)m + 1, sizeof *row_ptr);
  int capacity = 1024, nnz = 0;
  int *col = malloc((size_t)capacity * sizeof *col);
  double *val = malloc((size_t)capacity * sizeof *val);
  if (!acc || !mark || !list || !row_ptr || !col || !val) {
    st = CLT_ERR_OUT_OF_MEMORY;
    goto done;
  }
  for (int j = 0; j < m; j++) mark[j] = -1;
  for (int i = 0; i < m; i++) {
    int count = 0;
    for (int kk = Ht.row_ptr[i]; kk < Ht.row_ptr[i + 1]; kk++) {
      const int k = Ht.col_index[kk];
      const double s = Ht.values[kk] * dinv[k];
      for (int p = H->row_ptr[k]; p < H->row_ptr[k + 1]; p++) {
        const int j = H->col_index[p];
        if (mark[j] != i) {
          mark[j] = i;
          acc[j] = 0.0;
          list[count++] = j;
        }
        acc[j] += s * H->values[p];
      }
    }
    qsort(list, (size_t)count, sizeof *list, compare_int);
    if (nnz + count > capacity) {
      while (nnz + count > capacity) capacity *= 2;
      int *c2 = realloc(col, (size_t)capacity * sizeof *col);
      if (!c2) { st = CLT_ERR_OUT_OF_MEMORY; goto done; }
      col = c2;
      double *v2 = realloc(val, (size_t)capacity * sizeof *val);
      if (!v2) { st = CLT_ERR_OUT_OF_MEMORY; goto done; }
      val = v2;
    }
    for (int t = 0; t < count; t++) {
      col[nnz] = list[t];
      val[nnz] = acc[list[t]];
      nnz++;
    }
    row_ptr[i + 1] = nnz;
  }
  W->kind = CLT_MATRIX_CSR;
  W->rows = W->cols = m;
  W->nnz = nnz;
  W->row_ptr = row_ptr;
  W->col_index = col;
  W->values = val;
  row_ptr = NULL, col = NULL, val = NULL;
  st = CLT_OK;
done:
  free(acc);
  free(mark);
  free(list);
  free(row_ptr);
  free(col);
  free(val);
  clt_matrix_free(&Ht);
  return st;
}

/* Dense column-major copy of a matrix (n×k). */
static double *dense_column_major(const clt_matrix_t *A) {
  double *D = calloc((size_t)A->rows * (size_t)A->cols + 1, sizeof *D);
  if (!D) return NULL;
  for (int i = 0; i < A->rows; i++) {
    if (A->kind == CLT_MATRIX_DENSE) {
      for (int j = 0; j < A->cols; j++)
        D[(size_t)j * A->rows + i] = A->values[(size_t)i * A->cols + j];
    } else {
      for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
        D[(size_t)A->col_index[k] * A->rows + i] += A->values[k];
    }
  }
  return D;
}

/* y = Aᵀ x for A (dense row-major or CSR), y of length A->cols. */
static void multiply_transpose(const clt_matrix_t *A, const double *x, double *y) {
  for (int j = 0; j < A->cols; j++) y[j] = 0.0;
  for (int i = 0; i < A->rows; i++) {
    if (A->kind == CLT_MATRIX_DENSE) {
      for (int j = 0; j < A->cols; j++) y[j] += A->values[(size_t)i * A->cols + j] * x[i];
    } else {
      for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
        y[A->col_index[k]] += A->values[k] * x[i];
    }
  }
}

/* Condenses p onto out (out->q, out->W allocated; out->mu points to p->mu — never freed
 * through out by the solve; clt_fc_global_condense copies it). *L_out (may be NULL) receives
 * the Cholesky factor of M (column-major n×n) when M is not diagonal, else NULL. */
static clt_status_t condense(const clt_fc_global_t *p, clt_fc_local_t *out, double **L_out,
                             char *message, size_t message_size) {
  const int n = p->n, m = p->dim * p->contacts;
  memset(out, 0, sizeof *out);
  if (L_out) *L_out = NULL;
  out->dim = p->dim;
  out->contacts = p->contacts;
  out->mu = p->mu;
  out->q = malloc(((size_t)m + 1) * sizeof *out->q);
  double *minv_f = malloc(((size_t)n + 1) * sizeof *minv_f);
  double *L = NULL, *X = NULL, *dinv = NULL;
  clt_matrix_t Hcsr;
  memset(&Hcsr, 0, sizeof Hcsr);
  clt_status_t st = CLT_OK;
  const int one = 1;
  int info = 0;
  if (!out->q || !minv_f) goto oom;
  dinv = diagonal_of(&p->M);
  if (dinv) {
    for (int k = 0; k < n; k++) dinv[k] = 1.0 / dinv[k];
    const clt_matrix_t *H = &p->H;
    if (H->kind == CLT_MATRIX_DENSE) { /* rare: express a dense H as CSR for the product */
      int nnz = 0;
      for (size_t k = 0; k < (size_t)n * m; k++) nnz += H->values[k] != 0.0;
      Hcsr.kind = CLT_MATRIX_CSR;
      Hcsr.rows = n, Hcsr.cols = m, Hcsr.nnz = nnz;
      Hcsr.row_ptr = calloc((size_t)n + 1, sizeof *Hcsr.row_ptr);
      Hcsr.col_index = malloc(((size_t)nnz + 1) * sizeof *Hcsr.col_index);
      Hcsr.values = malloc(((size_t)nnz + 1) * sizeof *Hcsr.values);
      if (!Hcsr.row_ptr || !Hcsr.col_index || !Hcsr.values) goto oom;
      nnz = 0;
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
          double x = H->values[(size_t)i * m + j];
          if (x != 0.0) Hcsr.col_index[nnz] = j, Hcsr.values[nnz++] = x;
        }
        Hcsr.row_ptr[i + 1] = nnz;
      }
      H = &Hcsr;
    }
    if (condense_diagonal(H, dinv, &out->W) != CLT_OK) goto oom;
    for (int k = 0; k < n; k++) minv_f[k] = dinv[k] * p->f[k];
  } else {
    L = dense_column_major(&p->M);
    X = dense_column_major(&p->H);
    if (!L || !X) goto oom;
    /* Cholesky needs a symmetric M: refuse, rather than silently use one triangle */
    double big = 0.0, asym = 0.0;
    for (int j = 0; j < n; j++)
      for (int i = j; i < n; i++) {
        const double a = fabs(L[(size_t)j * n + i]);
        const double diff = fabs(L[(size_t)j * n + i] - L[(size_t)i * n + j]);
        if (a > big) big = a;
        if (diff > asym) asym = diff;
      }
    if (asym > 1e-12 * big) {
      clt_problem_message_fc(message, message_size,
                             "M is not symmetric (max |M - M^T| = %.3g, max |M| = %.3g)", asym, big);
      st = CLT_ERR_INVALID_ARGUMENT;
      goto done;
    }
    double *Wd = malloc(((size_t)m * m + 1) * sizeof *Wd);
    if (!Wd) goto oom;
    clt_dpotrf("L", &n, L, &n, &info);
    if (info != 0) {
      free(Wd);
      clt_problem_message_fc(message, message_size,
                             "M is not symmetric positive definite (Cholesky pivot %d)", info);
      st = CLT_ERR_NUMERICAL;
      goto done;
    }
    if (m > 0) clt_dtrtrs("L", "N", "N", &n, &m, L, &n, X, &n, &info); /* X = L⁻¹ H */
    const double alpha = 1.0, beta = 0.0;
    if (m > 0) clt_dgemm("T", "N", &m, &m, &n, &alpha, X, &n, X, &n, &beta, Wd, &m); /* XᵀX */
    /* W = XᵀX is symmetric: its column-major storage is also row-major */
    out->W.kind = CLT_MATRIX_DENSE;
    out->W.rows = out->W.cols = m;
    out->W.values = Wd;
    memcpy(minv_f, p->f, (size_t)n * sizeof *minv_f);
    clt_dpotrs("L", &n, &one, L, &n, minv_f, &n, &info);
  }
  multiply_transpose(&p->H, minv_f, out->q);
  for (int k = 0; k < m; k++) out->q[k] += p->w[k];
  goto done;
oom:
  st = CLT_ERR_OUT_OF_MEMORY;
  clt_problem_message_fc(message, message_size, "out of memory");
done:
  free(dinv);
  free(X);
  free(minv_f);
  clt_matrix_free(&Hcsr);
  if (st != CLT_OK) {
    free(out->q);
    clt_matrix_free(&out->W);
    memset(out, 0, sizeof *out);
    free(L);
    L = NULL;
  }
  if (L_out) *L_out = L;
  else free(L);
  return st;
}

static int global_valid(const clt_fc_global_t *p) {
  return p && (p->dim == 2 || p->dim == 3) && p->n > 0 && p->contacts >= 0 && clt_matrix_usable(&p->M, p->n, p->n) &&
         clt_matrix_usable(&p->H, p->n, p->dim * p->contacts) && p->f && p->w && p->mu;
}

clt_status_t clt_fc_global_condense(const clt_fc_global_t *p, clt_fc_local_t *out) {
  if (!out) return CLT_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (!global_valid(p)) return CLT_ERR_INVALID_ARGUMENT;
  clt_status_t st = condense(p, out, NULL, NULL, 0);
  if (st != CLT_OK) return st;
  out->mu = malloc(((size_t)p->contacts + 1) * sizeof *out->mu);
  if (!out->mu) {
    clt_fc_local_free(out);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  memcpy(out->mu, p->mu, (size_t)p->contacts * sizeof *out->mu);
  return CLT_OK;
}

clt_status_t clt_fc_global_solve(const clt_fc_global_t *p, const clt_solver_options_t *options,
                                 double *v, double *r, double *u, clt_solve_result_t *result) {
  clt_solve_result_t local_result;
  if (!result) result = &local_result;
  memset(result, 0, sizeof *result);
  result->status = CLT_SOLVE_ERROR;
  if (!global_valid(p) || !v || !r) {
    set_message(result, "invalid global frictional contact problem");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  const int n = p->n, m = p->dim * p->contacts;
  clt_fc_local_t local;
  double *L = NULL;
  clt_status_t st = condense(p, &local, &L, result->message, sizeof result->message);
  if (st != CLT_OK) return st;
  double *rhs = malloc(((size_t)n + 1) * sizeof *rhs);
  double *d = L ? NULL : diagonal_of(&p->M);
  if (!rhs || (!L && !d)) {
    st = CLT_ERR_OUT_OF_MEMORY;
    set_message(result, "out of memory");
    goto done;
  }
  st = clt_fc_local_solve(&local, options, r, NULL, result);
  if (st != CLT_OK) goto done;
  /* v = M⁻¹ (H r + f) */
  clt_matrix_multiply(&p->H, r, rhs);
  for (int k = 0; k < n; k++) rhs[k] += p->f[k];
  if (L) {
    const int one = 1;
    int info = 0;
    clt_dpotrs("L", &n, &one, L, &n, rhs, &n, &info);
    memcpy(v, rhs, (size_t)n * sizeof *v);
  } else {
    for (int k = 0; k < n; k++) v[k] = rhs[k] / d[k];
  }
  if (u) {
    multiply_transpose(&p->H, v, u);
    for (int k = 0; k < m; k++) u[k] += p->w[k];
  }
done:
  free(L);
  free(d);
  free(rhs);
  free(local.q);
  clt_matrix_free(&local.W);
  return st;
}
