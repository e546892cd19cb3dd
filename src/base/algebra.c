/* LAPACK and BLAS opened on first use (algebra.h). */
#include "base/algebra.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "base/library.h"

#ifndef CLATTER_LAPACK_SONAME
#define CLATTER_LAPACK_SONAME "liblapack.so.3"
#endif

enum { DGETRF, DGETRS, DGETRI, DGECON, DGELSD, DPOTRF, DPOTRS, DPSTRF, DTRTRS, DGEMM, DSYRK, ROUTINES };
/* OpenBLAS's thread count, when the LAPACK opened is OpenBLAS's (optional symbols) */
enum { GET_THREADS = ROUTINES, SET_THREADS, SYMBOLS };

static const char *const names[SYMBOLS] = {"dgetrf_", "dgetrs_", "dgetri_", "dgecon_", "dgelsd_", "dpotrf_",
                                           "dpotrs_", "dpstrf_", "dtrtrs_", "dgemm_",  "dsyrk_",
                                           "openblas_get_num_threads", "openblas_set_num_threads"};
static clt_library_fn_t symbols[SYMBOLS];
static clt_library_t lapack = {.what = "LAPACK",
                               .soname = CLATTER_LAPACK_SONAME,
                               .count = ROUTINES,
                               .optional = SYMBOLS - ROUTINES,
                               .names = names,
                               .symbols = symbols};

/* One BLAS thread inside every call (algebra.h): the calls in progress, and the thread count to
 * put back when the last one ends; both under the lock so that an enter never interleaves with the
 * leave that restores. */
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static int calls_in_progress;
static int saved_threads;

void clt_algebra_enter(void) {
  if (!clt_library_open(&lapack) || !symbols[GET_THREADS] || !symbols[SET_THREADS]) return;
  pthread_mutex_lock(&threads_lock);
  if (calls_in_progress++ == 0) {
    saved_threads = ((int (*)(void))symbols[GET_THREADS])();
    if (saved_threads != 1) ((void (*)(int))symbols[SET_THREADS])(1);
  }
  pthread_mutex_unlock(&threads_lock);
}

void clt_algebra_leave(void) {
  if (!clt_library_open(&lapack) || !symbols[GET_THREADS] || !symbols[SET_THREADS]) return;
  pthread_mutex_lock(&threads_lock);
  if (--calls_in_progress == 0 && saved_threads != 1) ((void (*)(int))symbols[SET_THREADS])(saved_threads);
  pthread_mutex_unlock(&threads_lock);
}

/* the factorizations of the joint rows' solve (stage_joint_rows.c, stage_solve_rows.c), 1 × 1 */
void clt_algebra_prepare(void) {
  static atomic_int prepared;
  if (atomic_exchange(&prepared, 1)) return;
  double a = 1.0;
  int n = 1, info = 0;
  clt_dpotrf("L", &n, &a, &n, &info);
  int piv = 0, rank = 0;
  double tol = -1.0, work[2] = {0.0, 0.0};
  a = 1.0;
  clt_dpstrf("L", &n, &a, &n, &piv, &rank, &tol, work, &info);
}

const char *clt_algebra_error(void) {
  return atomic_load(&lapack.state) < 0 ? lapack.error : NULL;
}

const char *clt_algebra_library(void) { return lapack.soname; }

/* The routine's address with its own type, or NULL when the library is missing. */
#define ROUTINE(index, type) (clt_library_open(&lapack) ? (type)symbols[index] : (type)0)

typedef void (*dgetrf_fn)(const int *, const int *, double *, const int *, int *, int *);
void clt_dgetrf(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info) {
  dgetrf_fn f = ROUTINE(DGETRF, dgetrf_fn);
  if (f) {
    clt_algebra_enter();
    f(m, n, a, lda, ipiv, info);
    clt_algebra_leave();
  } else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dgetrs_fn)(const char *, const int *, const int *, const double *, const int *, const int *, double *,
                          const int *, int *);
void clt_dgetrs(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda, const int *ipiv,
                double *b, const int *ldb, int *info) {
  dgetrs_fn f = ROUTINE(DGETRS, dgetrs_fn);
  if (f) {
    clt_algebra_enter();
    f(trans, n, nrhs, a, lda, ipiv, b, ldb, info);
    clt_algebra_leave();
  } else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dgetri_fn)(const int *, double *, const int *, const int *, double *, const int *, int *);
void clt_dgetri(const int *n, double *a, const int *lda, const int *ipiv, double *work, const int *lwork, int *info) {
  dgetri_fn f = ROUTINE(DGETRI, dgetri_fn);
  if (f) {
    clt_algebra_enter();
    f(n, a, lda, ipiv, work, lwork, info);
    clt_algebra_leave();
  } else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dgecon_fn)(const char *, const int *, const double *, const int *, const double *, double *, double *,
                          int *, int *);
void clt_dgecon(const char *norm, const int *n, const double *a, const int *lda, const double *anorm, double *rcond,
                double *work, int *iwork, int *info) {
  dgecon_fn f = ROUTINE(DGECON, dgecon_fn);
  if (f) {
    clt_algebra_enter();
    f(norm, n, a, lda, anorm, rcond, work, iwork, info);
    clt_algebra_leave();
  } else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dgelsd_fn)(const int *, const int *, const int *, double *, const int *, double *, const int *, double *,
                          const double *, int *, double *, const int *, int *, int *);
void clt_dgelsd(const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
                double *s, const double *rcond, int *rank, double *work, const int *lwork, int *iwork, int *info) {
  dgelsd_fn f = ROUTINE(DGELSD, dgelsd_fn);
  if (f) {
    clt_algebra_enter();
    f(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info);
    clt_algebra_leave();
  } else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dpotrf_fn)(const char *, const int *, double *, const int *, int *);
void clt_dpotrf(const char *uplo, const int *n, double *a, const int *lda, int *info) {
  dpotrf_fn f = ROUTINE(DPOTRF, dpotrf_fn);
  if (f) {
    clt_algebra_enter();
    f(uplo, n, a, lda, info);
    clt_algebra_leave();
  } else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dpotrs_fn)(const char *, const int *, const int *, const double *, const int *, double *, const int *,
                          int *);
void clt_dpotrs(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
                const int *ldb, int *info) {
  dpotrs_fn f = ROUTINE(DPOTRS, dpotrs_fn);
  if (f) {
    clt_algebra_enter();
    f(uplo, n, nrhs, a, lda, b, ldb, info);
    clt_algebra_leave();
  } else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dpstrf_fn)(const char *, const int *, double *, const int *, int *, int *, const double *, double *,
                          int *);
void clt_dpstrf(const char *uplo, const int *n, double *a, const int *lda, int *piv, int *rank, const double *tol,
                double *work, int *info) {
  dpstrf_fn f = ROUTINE(DPSTRF, dpstrf_fn);
  if (f) {
    clt_algebra_enter();
    f(uplo, n, a, lda, piv, rank, tol, work, info);
    clt_algebra_leave();
  } else *info = CLT_ALGEBRA_UNAVAILABLE;
}

typedef void (*dtrtrs_fn)(const char *, const char *, const char *, const int *, const int *, const double *,
                          const int *, double *, const int *, int *);
void clt_dtrtrs(const char *uplo, const char *trans, const char *diag, const int *n, const int *nrhs, const double *a,
                const int *lda, double *b, const int *ldb, int *info) {
  dtrtrs_fn f = ROUTINE(DTRTRS, dtrtrs_fn);
  if (f) {
    clt_algebra_enter();
    f(uplo, trans, diag, n, nrhs, a, lda, b, ldb, info);
    clt_algebra_leave();
  } else *info = CLT_ALGEBRA_UNAVAILABLE;
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
  if (f) {
    clt_algebra_enter();
    f(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    clt_algebra_leave();
  } else fill_nan(c, *m, *n, *ldc);
}

typedef void (*dsyrk_fn)(const char *, const char *, const int *, const int *, const double *, const double *,
                         const int *, const double *, double *, const int *);
void clt_dsyrk(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *a,
               const int *lda, const double *beta, double *c, const int *ldc) {
  dsyrk_fn f = ROUTINE(DSYRK, dsyrk_fn);
  if (f) {
    clt_algebra_enter();
    f(uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
    clt_algebra_leave();
  } else fill_nan(c, *n, *n, *ldc);
}
