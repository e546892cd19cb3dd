/* Random LCP generators shared by the solver tests (fixed seeds, own generator: the same numbers
 * on every platform). */
#ifndef CLATTER_TESTS_LCP_TEST_GEN_H
#define CLATTER_TESTS_LCP_TEST_GEN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct gen_rng_t {
  uint64_t s;
} gen_rng_t;

static inline double gen_uniform(gen_rng_t *r) { /* [0, 1) */
  r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(r->s >> 11) * (1.0 / 9007199254740992.0);
}
static inline double gen_sym(gen_rng_t *r) { return 2.0 * gen_uniform(r) - 1.0; }

/* M = Bᵀ B (+ shift I), B k×n; row-major n×n. */
static inline void gen_gram(gen_rng_t *r, int n, int k, double shift, double *M) {
  double *B = malloc(sizeof(double) * (size_t)(k * n + 1));
  for (int i = 0; i < k * n; i++) B[i] = gen_sym(r);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = i == j ? shift : 0.0;
      for (int l = 0; l < k; l++) s += B[l * n + i] * B[l * n + j];
      M[i * n + j] = s;
    }
  free(B);
}

/* q = w* − M z* for a random complementary pair (z*, w*) ≥ 0: the LCP is solvable.
 * zero_fraction of the indices get z*_i = w*_i = 0 (degenerate). */
static inline void gen_solvable_q(gen_rng_t *r, int n, const double *M, double zero_fraction,
                                  double *q) {
  double *z = calloc((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++) z[i] = gen_uniform(r) < 0.5 ? gen_uniform(r) : 0.0;
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++) s += M[i * n + j] * z[j];
    double wi = z[i] > 0.0 ? 0.0 : gen_uniform(r);
    q[i] = wi - s;
  }
  for (int i = 0; i < n; i++)
    if (gen_uniform(r) < zero_fraction && z[i] == 0.0) {
      /* w*_i = 0 too: make q_i = −(M z*)_i exactly. */
      double s = 0.0;
      for (int j = 0; j < n; j++) s += M[i * n + j] * z[j];
      q[i] = -s;
    }
  free(z);
}

/* The smallest eigenvalue of the symmetric part of M (LAPACK dsyev), for "is it PSD". */
void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w,
            double *work, const int *lwork, int *info);
static inline double gen_min_eigenvalue(int n, const double *M, double *max_eig) {
  double *a = malloc(sizeof(double) * (size_t)(n * n)), *ev = malloc(sizeof(double) * (size_t)n);
  int lwork = 64 * n + 64, info = 0;
  double *work = malloc(sizeof(double) * (size_t)lwork);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) a[i * n + j] = 0.5 * (M[i * n + j] + M[j * n + i]);
  dsyev_("N", "U", &n, a, &n, ev, work, &lwork, &info);
  double lo = info == 0 ? ev[0] : NAN;
  if (max_eig) *max_eig = info == 0 ? ev[n - 1] : NAN;
  free(a);
  free(ev);
  free(work);
  return lo;
}

/* Relative asymmetry max|M − Mᵀ| / max|M|. */
static inline double gen_asymmetry(int n, const double *M) {
  double a = 0.0, m = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      m = fmax(m, fabs(M[i * n + j]));
      a = fmax(a, fabs(M[i * n + j] - M[j * n + i]));
    }
  return m > 0.0 ? a / m : 0.0;
}

/* Dense row-major copy of a clt_matrix_t (dense or CSR). */
#ifdef CLATTER_SOLVERS_H
static inline double *gen_dense_copy(const clt_matrix_t *m) {
  int n = m->rows;
  double *a = calloc((size_t)n * (size_t)m->cols, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m->cols; j++) a[i * m->cols + j] = clt_matrix_get(m, i, j);
  return a;
}
/* CSR copy of a dense row-major n×n matrix (exact zeros dropped); free with clt_matrix_free. */
static inline clt_matrix_t gen_csr_copy(int n, const double *M) {
  clt_matrix_t c;
  memset(&c, 0, sizeof c);
  int nnz = 0;
  for (int i = 0; i < n * n; i++) nnz += M[i] != 0.0;
  c.kind = CLT_MATRIX_CSR;
  c.rows = c.cols = n;
  c.nnz = nnz;
  c.row_ptr = malloc(sizeof(int) * (size_t)(n + 1));
  c.col_index = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
  c.values = malloc(sizeof(double) * (size_t)(nnz > 0 ? nnz : 1));
  int k = 0;
  for (int i = 0; i < n; i++) {
    c.row_ptr[i] = k;
    for (int j = 0; j < n; j++)
      if (M[i * n + j] != 0.0) {
        c.col_index[k] = j;
        c.values[k++] = M[i * n + j];
      }
  }
  c.row_ptr[n] = k;
  return c;
}

/* Banded SPD matrix (half-bandwidth bw), diagonally dominant: sparse test problems. */
static inline void gen_banded_spd(gen_rng_t *r, int n, int bw, double *M) {
  for (int i = 0; i < n * n; i++) M[i] = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j <= i + bw && j < n; j++) M[i * n + j] = M[j * n + i] = gen_sym(r);
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++) s += fabs(M[i * n + j]);
    M[i * n + i] = s + 0.5;
  }
}
#endif

#endif
