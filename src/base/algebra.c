/* LAPACK and BLAS opened on first use (algebra.h). */
#include "base/algebra.h"

#include <math.h>
#include <stddef.h>

#include "base/library.h"

#ifndef CLATTER_LAPACK_SONAME
#define CLATTER_LAPACK_SONAME "liblapack.so.3"
#endif

enum { DGETRF, DGETRS, DGETRI, DGECON, DGELSD, DPOTRF, DPOTRS, DPSTRF, DTRTRS, DGEMM, DSYRK, ROUTINES };

static const char *const names[ROUTINES] = {"dgetrf_", "dgetrs_", "dgetri_", "dgecon_", "dgelsd_", "dpotrf_",
                                            "dpotrs_", "dpstrf_", "dtrtrs_", "dgemm_",  "dsyrk_"};
static clt_library_fn_t symbols[ROUTINES];
static clt_library_t lapack = {.what = "LAPACK",
                               .soname = CLATTER_LAPACK_SONAME,
                               .count = ROUTINES,
                               .names = names,
                               .symbols = symbols};

const char *clt_algebra_error(void) {
  return atomic_load(&lapack.state) < 0 ? lapack.error : NULL;
}

const char *clt_algebra_library(void) { return lapack.soname; }

/* The routine's address with its own type, or NULL when the library is missing. */
#define ROUTINE(index, type) (clt_library_open(&lapack) ? (type)symbols[index] : (type)0)

typedef void (*dgetrf_fn)(const int *, const int *, double *, const int *, int *, int *);
void clt_dgetrf(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info) {
  dgetrf_fn f = ROUTINE(DGETRF, dgetrf_fn);
  if (f) f(m, n, a, lda, ipiv, info); else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dgetrs_fn)(const char *, const int *, const int *, const double *, const int *, const int *, double *,
                          const int *, int *);
void clt_dgetrs(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda, const int *ipiv,
                double *b, const int *ldb, int *info) {
  dgetrs_fn f = ROUTINE(DGETRS, dgetrs_fn);
  if (f) f(trans, n, nrhs, a, lda, ipiv, b, ldb, info); else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dgetri_fn)(const int *, double *, const int *, const int *, double *, const int *, int *);
void clt_dgetri(const int *n, double *a, const int *lda, const int *ipiv, double *work, const int *lwork, int *info) {
  dgetri_fn f = ROUTINE(DGETRI, dgetri_fn);
  if (f) f(n, a, lda, ipiv, work, lwork, info); else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dgecon_fn)(const char *, const int *, const double *, const int *, const double *, double *, double *,
                          int *, int *);
void clt_dgecon(const char *norm, const int *n, const double *a, const int *lda, const double *anorm, double *rcond,
                double *work, int *iwork, int *info) {
  dgecon_fn f = ROUTINE(DGECON, dgecon_fn);
  if (f) f(norm, n, a, lda, anorm, rcond, work, iwork, info); else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dgelsd_fn)(const int *, const int *, const int *, double *, const int *, double *, const int *, double *,
                          const double *, int *, double *, const int *, int *, int *);
void clt_dgelsd(const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
                double *s, const double *rcond, int *rank, double *work, const int *lwork, int *iwork, int *info) {
  dgelsd_fn f = ROUTINE(DGELSD, dgelsd_fn);
  if (f) f(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info); else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dpotrf_fn)(const char *, const int *, double *, const int *, int *);
void clt_dpotrf(const char *uplo, const int *n, double *a, const int *lda, int *info) {
  dpotrf_fn f = ROUTINE(DPOTRF, dpotrf_fn);
  if (f) f(uplo, n, a, lda, info); else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dpotrs_fn)(const char *, const int *, const int *, const double *, const int *, double *, const int *,
                          int *);
void clt_dpotrs(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
                const int *ldb, int *info) {
  dpotrs_fn f = ROUTINE(DPOTRS, dpotrs_fn);
  if (f) f(uplo, n, nrhs, a, lda, b, ldb, info); else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dpstrf_fn)(const char *, const int *, double *, const int *, int *, int *, const double *, double *,
                          int *);
void clt_dpstrf(const char *uplo, const int *n, double *a, const int *lda, int *piv, int *rank, const double *tol,
                double *work, int *info) {
  dpstrf_fn f = ROUTINE(DPSTRF, dpstrf_fn);
  if (f) f(uplo, n, a, lda, piv, rank, tol, work, info); else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dtrtrs_fn)(const char *, const char *, const char *, const int *, const int *, const double *,
                          const int *, double *, const int *, int *);
void clt_dtrtrs(const char *uplo, const char *trans, const char *diag, const int *n, const int *nrhs, const double *a,
                const int *lda, double *b, const int *ldb, int *info) {
  dtrtrs_fn f = ROUTINE(DTRTRS, dtrtrs_fn);
  if (f) f(uplo, trans, diag, n, nrhs, a, lda, b, ldb, info); else *info = CLT_ALGEBRA_UNAVAILABLE;
}

/* c[0..rows) × [0..cols) with leading dimension ldc, all NaN */
static void fill_nan(double *c, int rows, int cols, int ldc) {
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++) c[(long)j * ldc + i] = NAN;
}

typedef void (*dgemm_fn)(const char *, const char *, const int *, const int *, const int *, const double *,
                         const double *, const int *, const double *, const int *, const double *, double *,
                         const int *);
void clt_dgemm(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
               const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
               const int *ldc) {
  dgemm_fn f = ROUTINE(DGEMM, dgemm_fn);
  if (f) f(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); else fill_nan(c, *m, *n, *ldc);
}

typedef void (*dsyrk_fn)(const char *, const char *, const int *, const int *, const double *, const double *,
                         const int *, const double *, double *, const int *);
void clt_dsyrk(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *a,
               const int *lda, const double *beta, double *c, const int *ldc) {
  dsyrk_fn f = ROUTINE(DSYRK, dsyrk_fn);
  if (f) f(uplo, trans, n, k, alpha, a, lda, beta, c, ldc); else fill_nan(c, *n, *n, *ldc);
}
