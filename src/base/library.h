/* Shared libraries opened on first use.
 *
 * LAPACK/BLAS (OpenBLAS on Debian) and CHOLMOD are needed by the dense and sparse solvers only:
 * Lemke, the joint rows' factorizations, the global frictional-contact solvers and the ReLCP
 * Newton solve. A granular pile never calls them, yet linking them makes every process map and
 * relocate them at start: OpenBLAS's tables of kernels for every CPU alone are 1.2 MB of private
 * pages, and with gfortran, quadmath, METIS and CHOLMOD the libraries took 3.4 MB of the 5.7 MB a
 * pile run had resident before it read its scene (docs/design/granular.md "Memory"). So the
 * solvers reach them through wrappers (base/algebra.h, steppers/relcp_newton.c) that open the
 * library the first time one of its routines is called.
 *
 * The library handle and the resolved addresses are process-wide, like the dynamic linker's own
 * tables: written once under a lock, read-only afterwards, and safe to reach from any thread. */
#ifndef CLATTER_BASE_LIBRARY_H
#define CLATTER_BASE_LIBRARY_H

#include <stdatomic.h>
#include <stdbool.h>

typedef void (*clt_library_fn_t)(void);

typedef struct clt_library_t {
  const char *what;          /* for the message, e.g. "LAPACK" */
  const char *soname;        /* what dlopen is given, e.g. "libopenblas.so.0" (set by CMake) */
  int count;                 /* symbols to resolve */
  int optional;              /* more names after them, resolved when present (else NULL) */
  const char *const *names;  /* [count + optional] */
  clt_library_fn_t *symbols; /* [count + optional], filled by clt_library_open */
  atomic_int state;          /* 0 not tried, 1 open, −1 failed (error holds why) */
  char error[512];
} clt_library_t;

/* Opens lib once per process and resolves all its names; later calls return at once. Returns
 * true when every required symbol is there (the optional ones may be NULL). On failure lib->error names the library, its soname and
 * dlerror's reason, the same text is written once to stderr (the solvers that asked see only
 * their routine fail), and every later call returns false without trying again. */
bool clt_library_open(clt_library_t *lib);

#endif
