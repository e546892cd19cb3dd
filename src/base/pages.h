/* Giving back the pages of a buffer whose contents are dead until it is written again.
 *
 * A step keeps its buffers between steps (STYLE.md: no allocation once a run has settled), but
 * not every buffer is live in every stage: the broad phase's sort buffers and the placed shapes
 * are read only while contacts are found, the block Gauss–Seidel's records only during its
 * sweeps, the next contact memory only while stage "remember" writes it. Peak memory is the
 * largest sum of what is resident at once, so a buffer whose pages are given back when it dies
 * counts only in the stages where it lives (docs/design/granular.md "Memory"). The buffer
 * stays allocated and keeps its capacity: the next writer touches fresh zero pages.
 *
 * With CLATTER_POISON_RELEASED (the sanitizer build) the bytes are overwritten with 0xFF instead
 * (NaN as a double, −1 as an int), so that a reader that expected them to survive fails the
 * tests. */
#ifndef CLATTER_BASE_PAGES_H
#define CLATTER_BASE_PAGES_H

#include <stddef.h>

/* The contents of p[0, bytes) are dead: the whole pages inside it are given back to the system
 * (madvise MADV_DONTNEED) when it spans at least CLT_RELEASE_MIN_BYTES; smaller buffers are left
 * as they are (a system call would cost more than their pages). p may be NULL.
 *
 * The next writer pays a page fault per page. Where the kernel's transparent huge pages are
 * enabled for advised ranges (/sys/kernel/mm/transparent_hugepage/enabled: madvise, as on the
 * machine of these numbers, or always), a buffer of at least CLT_RELEASE_HUGE_BYTES is also
 * advised MADV_HUGEPAGE, so that it faults back 2 MB at a time. That advice covers every page
 * the buffer touches, its partial end pages included, so that a malloc'd buffer stays one
 * mapping which realloc can still grow by mremap instead of copying. The pages still have to be zeroed
 * again: at 10⁵ grains on 2 threads a step took 13 % longer with 4 kB pages and about 9 % longer
 * with huge pages, on 1 thread 1 % longer. A huge page that a buffer's used part only begins is
 * resident whole: up to 2 MB more per buffer, which at 4 MB (the 8·10³ pile's records) made the
 * peak 0.5–1.6 MB higher from run to run; hence 8 MB (docs/design/granular.md "Memory"). */
void clt_release_pages(void *p, size_t bytes);

/* p[0, bytes) = 0, with the whole pages inside it given back to the system (madvise
 * MADV_DONTNEED: a private anonymous page reads as zero afterwards, from the shared zero page, and
 * counts in the resident size only once written again) when it spans at least
 * CLT_RELEASE_MIN_BYTES; the rest is written. For a buffer that stays zero and is read every step
 * (the force accumulators of a world without force records). p must come from malloc (private
 * anonymous memory); p may be NULL. Also in the sanitizer build: the zeros are the contents. */
void clt_zero_pages(void *p, size_t bytes);

/* The system's page size in bytes (4096 where it cannot be read). */
size_t clt_page_bytes(void);

#define CLT_RELEASE_MIN_BYTES ((size_t)64 * 1024)
#define CLT_RELEASE_HUGE_BYTES ((size_t)8 << 20)

#endif
