/* Sorting with the step's scratch: glibc's qsort allocates a copy of any array over a kilobyte
 * (it merge-sorts), which would be an allocation in every step that sorts contacts (STYLE.md: no
 * allocations in the hot loop after the first steps). clt_sort is a stable merge sort whose
 * buffer comes from the arena (base/arena.h). For keys that are unique, as every caller's are,
 * any correct sort gives the same order, so results do not depend on which sort ran. */
#ifndef CLATTER_BASE_SORT_H
#define CLATTER_BASE_SORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

/* Sorts n elements of `size` bytes at base by cmp (as qsort's), stably. The buffer (n · size
 * bytes) comes from arena and is given back before the return; arena may be NULL (a buffer of
 * its own). Returns false, with the array unchanged, when out of memory. */
bool clt_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *), clt_arena_t *arena);

#endif
