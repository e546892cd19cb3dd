/* clt_release_pages (src/base/pages.h): the whole pages inside a buffer are given back to the
 * system (not resident, read back as zeros, writable again), the bytes of partial pages at either
 * end and buffers below CLT_RELEASE_MIN_BYTES stay as they were. In the sanitizer build
 * (CLATTER_POISON_RELEASED) every released byte is 0xFF instead, so that a reader that expected
 * the contents fails. */
#define _DEFAULT_SOURCE /* mincore */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/pages.h"
#include "test_util.h"

/* Resident pages among the whole pages inside p[0, bytes). */
static long resident_pages(const void *p, size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uintptr_t lo = ((uintptr_t)p + page - 1) / page * page, hi = ((uintptr_t)p + bytes) / page * page;
  if (hi <= lo) return 0;
  size_t n = (hi - lo) / page;
  unsigned char *v = malloc(n);
  if (!v || mincore((void *)lo, hi - lo, v) != 0) {
    free(v);
    return -1;
  }
  long count = 0;
  for (size_t i = 0; i < n; i++) count += v[i] & 1;
  free(v);
  return count;
}

static size_t count_bytes(const unsigned char *p, size_t n, unsigned char value) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += p[i] == value;
  return c;
}

int main(void) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  /* a buffer of 64 pages and a bit, starting 100 bytes into a page */
  size_t bytes = 64 * page + 300;
  size_t total = 68 * page; /* (aligned_alloc: a multiple of the alignment) */
  unsigned char *block = aligned_alloc(page, total);
  CHECK(block != NULL);
  if (!block) return clt_test_finish();
  unsigned char *p = block + 100;
  memset(block, 7, total);
  long before = resident_pages(p, bytes);
  printf("%zu bytes from offset 100 of a page: %ld whole pages resident before\n", bytes, before);
  CHECK(before == 63);
  clt_release_pages(p, bytes);
#ifdef CLATTER_POISON_RELEASED
  printf("poison build: %zu of %zu bytes are 0xFF\n", count_bytes(p, bytes, 0xFF), bytes);
  CHECK(count_bytes(p, bytes, 0xFF) == bytes);
  CHECK(block[99] == 7 && p[bytes] == 7); /* nothing outside */
#else
  size_t head = page - 100, tail = (100 + bytes) % page; /* the partial pages' bytes inside p */
  long after = resident_pages(p, bytes);
  size_t zeros = count_bytes(p + head, bytes - head - tail, 0);
  printf("after: %ld whole pages resident, %zu of %zu bytes of them read as 0, the %zu + %zu bytes of the "
         "partial pages kept: %zu\n",
         after, zeros, bytes - head - tail, head, tail, count_bytes(p, head, 7) + count_bytes(p + bytes - tail, tail, 7));
  CHECK(after == 0);
  CHECK(zeros == bytes - head - tail);
  CHECK(count_bytes(p, head, 7) == head);
  CHECK(count_bytes(p + bytes - tail, tail, 7) == tail);
  CHECK(block[99] == 7 && p[bytes] == 7);
  /* a buffer below the threshold is left as it is */
  clt_release_pages(p, CLT_RELEASE_MIN_BYTES - 1);
  CHECK(count_bytes(p, head, 7) == head);
#endif
  /* writable again, and resident once written */
  memset(p, 3, bytes);
  CHECK(count_bytes(p, bytes, 3) == bytes);
  CHECK(resident_pages(p, bytes) == 63);
  clt_release_pages(NULL, bytes); /* no buffer: nothing */
  clt_release_pages(p, 0);
  CHECK(count_bytes(p, bytes, 3) == bytes);
  free(block);
  return clt_test_finish();
}
