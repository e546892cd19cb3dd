/* clt_release_pages (pages.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_DONTNEED */
#include "base/pages.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

size_t clt_page_bytes(void) {
  long s = sysconf(_SC_PAGESIZE);
  return s > 0 ? (size_t)s : 4096;
}

void clt_release_pages(void *p, size_t bytes) {
  if (!p || bytes == 0) return;
#ifdef CLATTER_POISON_RELEASED
  memset(p, 0xFF, bytes);
#else
  if (bytes < CLT_RELEASE_MIN_BYTES) return;
  size_t page = clt_page_bytes();
  /* only the pages wholly inside the buffer: the allocator's headers lie outside it */
  uintptr_t lo = ((uintptr_t)p + page - 1) / page * page;
  uintptr_t hi = ((uintptr_t)p + bytes) / page * page;
  if (hi <= lo) return;
  /* (advice: a failure costs only memory or time) The huge-page advice changes no contents, so it
   * covers the partial pages at the two ends too: advice on the inside only would split a
   * malloc'd mapping in two at its header's page, and a later realloc could then not grow it by
   * mremap (EFAULT across two mappings): glibc copies the whole buffer instead, its given-back
   * pages included. At 10⁵ grains that copy put 27 MB on the peak whenever the contacts'
   * capacity doubled (docs/design/granular.md "Memory"). */
  if (hi - lo >= CLT_RELEASE_HUGE_BYTES) {
    uintptr_t first = (uintptr_t)p / page * page, end = ((uintptr_t)p + bytes + page - 1) / page * page;
    (void)madvise((void *)first, end - first, MADV_HUGEPAGE);
  }
  (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
#endif
}

void clt_zero_pages(void *p, size_t bytes) {
  if (!p || bytes == 0) return;
  size_t page = clt_page_bytes();
  uintptr_t begin = (uintptr_t)p, end = begin + bytes;
  uintptr_t lo = (begin + page - 1) / page * page, hi = end / page * page;
  if (bytes < CLT_RELEASE_MIN_BYTES || hi <= lo || madvise((void *)lo, hi - lo, MADV_DONTNEED) != 0) {
    memset(p, 0, bytes);
    return;
  }
  memset(p, 0, lo - begin); /* the partial pages at the two ends */
  memset((void *)hi, 0, end - hi);
}
