/* The step arena: scratch memory as a stack with a recorded maximum (STYLE.md "Memory has one
 * owner per step"; MuJoCo's mj_markStack/mj_freeStack and Box2D's arena allocator work alike).
 *
 * A user takes a mark, allocates, and pops back to the mark; what lies above a mark dies with the
 * pop, so no algorithm frees its own scratch. The arena owns one block. An allocation that does
 * not fit in the block comes from malloc and is freed at its pop, and the largest use seen
 * (`peak`) is remembered: when the stack is next empty the block grows to that size, so a loop
 * that repeats the same work (a step, a solve) allocates nothing once the block has grown. The
 * world's step pops to a mark after every stage (steppers/step.c), so a stage's scratch lives
 * exactly as long as the stage. The public face is clt_arena_create/…_peak_bytes in
 * clatter/solvers.h (a solver's options may carry an arena). */
#ifndef CLATTER_BASE_ARENA_H
#define CLATTER_BASE_ARENA_H

#include <stdbool.h>
#include <stddef.h>

#include "clatter/solvers.h"

/* Every allocation starts on this boundary (a cache line; also enough for any C type). */
#define CLT_ARENA_ALIGN 64

typedef struct clt_arena_entry_t {
  size_t offset; /* in the block, or (size_t)-1 for an allocation of its own */
  size_t bytes;  /* as rounded up to CLT_ARENA_ALIGN */
  void *heap;    /* the allocation of its own (NULL in the block) */
} clt_arena_entry_t;

struct clt_arena_t {
  char *block;     /* aligned to CLT_ARENA_ALIGN */
  void *block_raw; /* what malloc gave (block is inside it) */
  size_t capacity; /* of the block */
  size_t top;      /* bytes of the block in use */
  size_t used;     /* bytes in use, block and own allocations */
  size_t peak;     /* the most bytes in use since clt_arena_reset_peak */
  size_t high;     /* the most bytes in use ever: the block's next size */
  clt_arena_entry_t *entries;
  int count, entry_capacity;
};

/* An empty arena (no block yet) in place; clt_arena_release frees what it holds. */
void clt_arena_init(clt_arena_t *a);
void clt_arena_release(clt_arena_t *a);

/* A mark: the stack's height now. */
static inline int clt_arena_mark(const clt_arena_t *a) { return a->count; }

/* Frees everything allocated since mark m (LIFO). When the stack becomes empty and the block was
 * too small for the largest use seen, the block grows to it (the only allocation of the arena
 * itself after warm-up: none). */
void clt_arena_pop(clt_arena_t *a, int mark);

/* bytes of scratch aligned to CLT_ARENA_ALIGN, uninitialized (clt_arena_zalloc: zeroed); NULL when
 * out of memory. bytes = 0 gives a valid, distinct pointer. */
void *clt_arena_alloc(clt_arena_t *a, size_t bytes);
void *clt_arena_zalloc(clt_arena_t *a, size_t bytes);

/* n elements of type T. */
#define CLT_ARENA_NEW(a, T, n) ((T *)clt_arena_alloc((a), sizeof(T) * (size_t)(n)))
#define CLT_ARENA_ZNEW(a, T, n) ((T *)clt_arena_zalloc((a), sizeof(T) * (size_t)(n)))

/* A solver's scratch: the arena it was given, or one of its own for this call (today's malloc
 * and free, for a caller without an arena). clt_scratch_end pops everything the call took.
 *   clt_scratch_t s; clt_arena_t *a = clt_scratch_begin(&s, options->arena); ... clt_scratch_end(&s); */
typedef struct clt_scratch_t {
  clt_arena_t *arena;
  clt_arena_t local;
  int mark;
} clt_scratch_t;

static inline clt_arena_t *clt_scratch_begin(clt_scratch_t *s, clt_arena_t *given) {
  if (given) {
    s->arena = given;
  } else {
    clt_arena_init(&s->local);
    s->arena = &s->local;
  }
  s->mark = clt_arena_mark(s->arena);
  return s->arena;
}

static inline void clt_scratch_end(clt_scratch_t *s) {
  clt_arena_pop(s->arena, s->mark);
  if (s->arena == &s->local) clt_arena_release(&s->local);
}

/* The peak since the last reset (the step's: steppers/step.c resets it when a step begins). */
static inline size_t clt_arena_peak(const clt_arena_t *a) { return a->peak; }
static inline void clt_arena_reset_peak(clt_arena_t *a) { a->peak = a->used; }

/* The bytes the arena holds from the system (block, entries, own allocations). */
size_t clt_arena_held_bytes(const clt_arena_t *a);

#endif
