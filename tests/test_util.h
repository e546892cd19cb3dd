/* Minimal test harness: CHECK-style assertions that count, print the failing expression with
 * file:line and the numbers involved, and a summary line. Include once per test executable. */
#ifndef CLATTER_TEST_UTIL_H
#define CLATTER_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int clt_test_passed = 0;
static int clt_test_failed = 0;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (cond) {                                                                  \
      clt_test_passed++;                                                         \
    } else {                                                                     \
      clt_test_failed++;                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
    }                                                                            \
  } while (0)

/* |a − b| ≤ tol */
#define CHECK_NEAR(a, b, tol)                                                            \
  do {                                                                                   \
    double clt_a_ = (double)(a), clt_b_ = (double)(b), clt_t_ = (double)(tol);           \
    if (fabs(clt_a_ - clt_b_) <= clt_t_) {                                               \
      clt_test_passed++;                                                                 \
    } else {                                                                             \
      clt_test_failed++;                                                                 \
      fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g, |diff| = %.3g > %.3g\n", \
              __FILE__, __LINE__, #a, clt_a_, #b, clt_b_, fabs(clt_a_ - clt_b_), clt_t_); \
    }                                                                                    \
  } while (0)

/* a ≤ b, printing both */
#define CHECK_LE(a, b)                                                                   \
  do {                                                                                   \
    double clt_a_ = (double)(a), clt_b_ = (double)(b);                                   \
    if (clt_a_ <= clt_b_) {                                                              \
      clt_test_passed++;                                                                 \
    } else {                                                                             \
      clt_test_failed++;                                                                 \
      fprintf(stderr, "%s:%d: CHECK_LE failed: %s = %.6g > %s = %.6g\n", __FILE__,      \
              __LINE__, #a, clt_a_, #b, clt_b_);                                          \
    }                                                                                    \
  } while (0)

/* Prints the closing line ("N passed, N failed") and returns the exit status. */
static inline int clt_test_finish(void) {
  printf("%d passed, %d failed\n", clt_test_passed, clt_test_failed);
  return clt_test_failed == 0 ? 0 : 1;
}

static inline const char *clt_test_env(const char *name) {
  const char *v = getenv(name);
  if (!v) {
    fprintf(stderr, "environment variable %s is not set (run the test through ctest)\n", name);
    exit(1);
  }
  return v;
}

/* The whole file as a NUL-terminated string (free it), or NULL if it cannot be read. */
static inline char *clt_test_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s) s[n] = '\0';
  fclose(f);
  return s;
}

#endif
