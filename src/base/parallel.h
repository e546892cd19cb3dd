/* Loops that run in parallel only where they are large enough. GCC calls into the OpenMP runtime
 * for every `#pragma omp parallel`, also when its if clause is false (a team of one thread: about
 * 1.3 µs each on the development machine, where a small scene's step passed through some 20 such
 * regions, most of its time). CLT_PARALLEL_FOR_IF(cond, clauses, loop) runs the for statement
 * `loop` under `#pragma omp parallel for clauses` where cond holds and as plain C otherwise; the
 * loop is compiled twice. The loops it is used for give the same bits either way (each sums in a
 * fixed order, docs/design/granular.md "Threads"). */
#ifndef CLATTER_BASE_PARALLEL_H
#define CLATTER_BASE_PARALLEL_H

#define CLT_PRAGMA_(text) _Pragma(#text)
#ifdef _OPENMP
#define CLT_PARALLEL_FOR_IF(cond, clauses, ...) \
  do {                                          \
    if (cond) {                                 \
      CLT_PRAGMA_(omp parallel for clauses)     \
      __VA_ARGS__                               \
    } else {                                    \
      __VA_ARGS__                               \
    }                                           \
  } while (0)
#else
#define CLT_PARALLEL_FOR_IF(cond, clauses, ...) \
  do {                                          \
    __VA_ARGS__                                 \
  } while (0)
#endif

/* The same for a parallel region: the block runs under `#pragma omp parallel clauses` where cond
 * holds and as plain C otherwise (worksharing constructs inside it then bind to the one thread:
 * write them as CLT_PRAGMA_(omp for …), and take the thread number from clt_thread_num()). */
#ifdef _OPENMP
#define CLT_PARALLEL_IF(cond, clauses, ...) \
  do {                                      \
    if (cond) {                             \
      CLT_PRAGMA_(omp parallel clauses)     \
      __VA_ARGS__                           \
    } else {                                \
      __VA_ARGS__                           \
    }                                       \
  } while (0)
#include <omp.h>
static inline int clt_thread_num(void) { return omp_get_thread_num(); }
#else
#define CLT_PARALLEL_IF(cond, clauses, ...) \
  do {                                      \
    __VA_ARGS__                             \
  } while (0)
static inline int clt_thread_num(void) { return 0; }
#endif

#endif
