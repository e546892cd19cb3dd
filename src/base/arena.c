/* The step arena (arena.h). */
#include "base/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OWN_ALLOCATION ((size_t)-1)

static size_t round_up(size_t bytes) {
  return (bytes + (CLT_ARENA_ALIGN - 1)) / CLT_ARENA_ALIGN * CLT_ARENA_ALIGN;
}

void clt_arena_init(clt_arena_t *a) { memset(a, 0, sizeof *a); }

void clt_arena_release(clt_arena_t *a) {
  if (!a) return;
  clt_arena_pop(a, 0);
  free(a->block_raw);
  free(a->entries);
  memset(a, 0, sizeof *a);
}

/* A block of `bytes` (rounded) aligned to CLT_ARENA_ALIGN, replacing the old one: only while the
 * stack is empty, so no pointer into the old block is alive. */
static void grow_block(clt_arena_t *a, size_t bytes) {
  void *raw = malloc(bytes + CLT_ARENA_ALIGN);
  if (!raw) return; /* keep the old block: allocations that do not fit still get their own */
  free(a->block_raw);
  a->block_raw = raw;
  a->block = (char *)(((uintptr_t)raw + CLT_ARENA_ALIGN - 1) / CLT_ARENA_ALIGN * CLT_ARENA_ALIGN);
  a->capacity = bytes;
}

void clt_arena_pop(clt_arena_t *a, int mark) {
  if (mark < 0) mark = 0;
  while (a->count > mark) {
    clt_arena_entry_t *e = &a->entries[--a->count];
    if (e->heap) {
      free(e->heap);
    } else {
#ifdef CLATTER_POISON_RELEASED
      /* (the sanitizer build) dead scratch reads as NaN or −1, as pages.h does for released pages */
      memset(a->block + e->offset, 0xFF, e->bytes);
#endif
      a->top = e->offset;
    }
    a->used -= e->bytes;
  }
  if (a->count == 0 && a->high > a->capacity) grow_block(a, a->high);
}

static bool push_entry(clt_arena_t *a) {
  if (a->count < a->entry_capacity) return true;
  int capacity = a->entry_capacity > 0 ? 2 * a->entry_capacity : 32;
  clt_arena_entry_t *e = realloc(a->entries, sizeof *e * (size_t)capacity);
  if (!e) return false;
  a->entries = e;
  a->entry_capacity = capacity;
  return true;
}

void *clt_arena_alloc(clt_arena_t *a, size_t bytes) {
  if (bytes > SIZE_MAX / 2) return NULL;
  size_t rounded = round_up(bytes > 0 ? bytes : 1);
  if (!push_entry(a)) return NULL;
  clt_arena_entry_t *e = &a->entries[a->count];
  void *p;
  if (a->capacity - a->top >= rounded) {
    e->offset = a->top;
    e->heap = NULL;
    p = a->block + a->top;
    a->top += rounded;
  } else {
    /* does not fit: an allocation of its own until the block has grown (at the next empty stack) */
    void *h = aligned_alloc(CLT_ARENA_ALIGN, rounded);
    if (!h) return NULL;
    e->offset = OWN_ALLOCATION;
    e->heap = h;
    p = h;
  }
  e->bytes = rounded;
  a->count++;
  a->used += rounded;
  if (a->used > a->peak) a->peak = a->used;
  if (a->used > a->high) a->high = a->used;
  return p;
}

void *clt_arena_zalloc(clt_arena_t *a, size_t bytes) {
  void *p = clt_arena_alloc(a, bytes);
  if (p) memset(p, 0, bytes);
  return p;
}

size_t clt_arena_held_bytes(const clt_arena_t *a) {
  size_t own = 0;
  for (int i = 0; i < a->count; i++) own += a->entries[i].heap ? a->entries[i].bytes : 0;
  return (a->block_raw ? a->capacity + CLT_ARENA_ALIGN : 0) + own +
         sizeof *a->entries * (size_t)a->entry_capacity;
}

clt_arena_t *clt_arena_create(void) {
  clt_arena_t *a = malloc(sizeof *a);
  if (a) clt_arena_init(a);
  return a;
}

void clt_arena_destroy(clt_arena_t *a) {
  if (!a) return;
  clt_arena_release(a);
  free(a);
}

size_t clt_arena_peak_bytes(const clt_arena_t *a) { return a ? a->high : 0; }
