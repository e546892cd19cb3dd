/* clt_sort (sort.h): bottom-up merge sort, runs of RUN elements first sorted by insertion. */
#include "base/sort.h"

#include <stdint.h>
#include <string.h>

#define RUN 16

typedef int (*compare_fn)(const void *, const void *);

static void insertion(char *a, size_t n, size_t size, compare_fn cmp, char *tmp) {
  for (size_t i = 1; i < n; i++) {
    size_t j = i;
    if (cmp(a + (j - 1) * size, a + j * size) <= 0) continue;
    memcpy(tmp, a + i * size, size);
    while (j > 0 && cmp(a + (j - 1) * size, tmp) > 0) {
      memcpy(a + j * size, a + (j - 1) * size, size);
      j--;
    }
    memcpy(a + j * size, tmp, size);
  }
}

/* from[lo, mid) and from[mid, hi) (each sorted) merged into to[lo, hi); ties from the left run */
static void merge(const char *from, char *to, size_t lo, size_t mid, size_t hi, size_t size, compare_fn cmp) {
  size_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi) {
    if (cmp(from + j * size, from + i * size) < 0)
      memcpy(to + k++ * size, from + j++ * size, size);
    else
      memcpy(to + k++ * size, from + i++ * size, size);
  }
  if (i < mid) memcpy(to + k * size, from + i * size, (mid - i) * size);
  if (j < hi) memcpy(to + k * size + (mid - i) * size, from + j * size, (hi - j) * size);
}

bool clt_sort(void *base, size_t n, size_t size, compare_fn cmp, clt_arena_t *arena) {
  if (n < 2 || size == 0) return true;
  clt_scratch_t scratch;
  clt_arena_t *a = clt_scratch_begin(&scratch, arena);
  char *buffer = n > SIZE_MAX / size ? NULL : clt_arena_alloc(a, n * size + size);
  if (!buffer) {
    clt_scratch_end(&scratch);
    return false;
  }
  char *tmp = buffer + n * size; /* one element for the insertion sort */
  char *from = base, *to = buffer;
  for (size_t lo = 0; lo < n; lo += RUN) insertion(from + lo * size, n - lo < RUN ? n - lo : RUN, size, cmp, tmp);
  for (size_t width = RUN; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      merge(from, to, lo, mid, hi, size, cmp);
    }
    char *t = from;
    from = to;
    to = t;
  }
  if (from != base) memcpy(base, from, n * size);
  clt_scratch_end(&scratch);
  return true;
}
