/* LAPACK and BLAS for the dense solvers, opened on first use (base/library.h says why).
 *
 * Each clt_dxxxx takes the arguments of the Fortran routine dxxxx_ it calls, by address, with
 * column-major matrices. When the library cannot be loaded, the routines that report through
 * `info` set it to CLT_ALGEBRA_UNAVAILABLE (a value LAPACK itself never returns), so every caller's
 * existing failure path takes over, and the two BLAS products, which have no `info`, fill their
 * output with NaN, so that no result computed from them passes a residual test. The reason is on
 * stderr once (clt_library_open) and in clt_algebra_error(). */
#ifndef CLATTER_BASE_ALGEBRA_H
#define CLATTER_BASE_ALGEBRA_H

#define CLT_ALGEBRA_UNAVAILABLE (-1000)

/* Opens LAPACK now and makes a 1 × 1 call of each factorization the joint solve uses, so that the
 * library's load and its first-call setup (OpenBLAS starts its threads and allocates its buffers:
 * chain6's first step took 11.6 ms with them and 0.85 ms without, against 9 µs for a later step)
 * happen while a world is built rather than inside its first step, where a control loop would see
 * the stall. The world calls it when it is given what will need LAPACK (a joint). Changes no
 * result. */
void clt_algebra_prepare(void);

/* Why LAPACK could not be loaded, or NULL when it was (or has not been tried). */
const char *clt_algebra_error(void);
/* What is opened: the SONAME of the LAPACK CMake found (e.g. "libopenblas.so.0"). */
const char *clt_algebra_library(void);

/* Every routine below runs on one BLAS thread. OpenBLAS splits a product between its own threads
 * when OPENBLAS_NUM_THREADS or OMP_NUM_THREADS allows it, and the split changes the order of the
 * sums: the 10-box stack under Lemke differed between 1 and 2 BLAS threads from step 27 on, and
 * the determinism contract (same bits for any thread count) must not hang on an environment
 * variable. So each call sets OpenBLAS's thread count to 1 and puts the previous count back when
 * the last call in progress ends (the setting is process-wide: a program embedding clatter keeps
 * its own between our calls). Other BLAS users (CHOLMOD) bracket their calls with
 * clt_algebra_enter / clt_algebra_leave. With a LAPACK other than OpenBLAS (no
 * openblas_set_num_threads) both do nothing. tests/cli/test_determinism_threads.sh checks it. */
void clt_algebra_enter(void);
void clt_algebra_leave(void);

void clt_dgetrf(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void clt_dgetrs(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda, const int *ipiv,
                double *b, const int *ldb, int *info);
void clt_dgetri(const int *n, double *a, const int *lda, const int *ipiv, double *work, const int *lwork, int *info);
void clt_dgecon(const char *norm, const int *n, const double *a, const int *lda, const double *anorm, double *rcond,
                double *work, int *iwork, int *info);
void clt_dgelsd(const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
                double *s, const double *rcond, int *rank, double *work, const int *lwork, int *iwork, int *info);
void clt_dpotrf(const char *uplo, const int *n, double *a, const int *lda, int *info);
void clt_dpotrs(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
                const int *ldb, int *info);
void clt_dpstrf(const char *uplo, const int *n, double *a, const int *lda, int *piv, int *rank, const double *tol,
                double *work, int *info);
void clt_dtrtrs(const char *uplo, const char *trans, const char *diag, const int *n, const int *nrhs, const double *a,
                const int *lda, double *b, const int *ldb, int *info);
void clt_dgemm(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
               const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
               const int *ldc);
void clt_dsyrk(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *a,
               const int *lda, const double *beta, double *c, const int *ldc);

#endif
