/* The step arena (base/arena.h) and the sort that uses it (base/sort.h).
 * - Allocations are aligned, distinct and keep their contents until popped; a pop frees exactly
 *   what lies above its mark; peak and used count rounded bytes.
 * - Growth: allocations past the block are their own until the stack is empty; then the block
 *   grows to the largest use seen, and the same sequence again fits the block (no own allocation,
 *   the memory held stays the same).
 * - clt_scratch with no arena takes and frees one of its own; with one, leaves it as it was.
 * - A solve with an arena gives the same bits as without, and leaves the arena empty.
 * - clt_sort: the same order as a stable reference (insertion) on random keys with ties, for
 *   sizes around the run length and the merge widths; NULL arena works. */
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/sort.h"
#include "clatter/solvers.h"
#include "test_util.h"

static int own_allocations(const clt_arena_t *a) {
  int n = 0;
  for (int i = 0; i < a->count; i++) n += a->entries[i].heap != NULL;
  return n;
}

static void round_of(clt_arena_t *a, int k, double **keep) {
  for (int i = 0; i < k; i++) {
    double *p = CLT_ARENA_NEW(a, double, 100 * (i + 1));
    CHECK(p != NULL && (uintptr_t)p % CLT_ARENA_ALIGN == 0);
    for (int j = 0; j < 100 * (i + 1); j++) p[j] = i + 0.5;
    keep[i] = p;
  }
  for (int i = 0; i < k; i++) CHECK(keep[i][0] == i + 0.5 && keep[i][100 * (i + 1) - 1] == i + 0.5);
}

static void test_arena(void) {
  clt_arena_t a;
  clt_arena_init(&a);
  double *keep[8];
  /* first round: no block yet, every allocation is its own */
  round_of(&a, 8, keep);
  CHECK(a.count == 8 && own_allocations(&a) == 8);
  size_t expected = 0;
  for (int i = 0; i < 8; i++) expected += (100 * (i + 1) * sizeof(double) + CLT_ARENA_ALIGN - 1) / CLT_ARENA_ALIGN * CLT_ARENA_ALIGN;
  CHECK(a.used == expected && clt_arena_peak(&a) == expected);
  /* a pop to a middle mark frees the entries above it only */
  clt_arena_pop(&a, 5);
  CHECK(a.count == 5 && keep[4][0] == 4.5);
  clt_arena_pop(&a, 0);
  CHECK(a.count == 0 && a.used == 0 && a.capacity >= expected);
  size_t held = clt_arena_held_bytes(&a);
  /* second and third rounds: all in the block, nothing more held */
  for (int r = 0; r < 2; r++) {
    clt_arena_reset_peak(&a);
    round_of(&a, 8, keep);
    CHECK(own_allocations(&a) == 0 && clt_arena_peak(&a) == expected);
    for (int i = 1; i < 8; i++) CHECK((char *)keep[i] > (char *)keep[i - 1]);
    clt_arena_pop(&a, 0);
    CHECK(clt_arena_held_bytes(&a) == held);
  }
  /* zeroed and zero-byte allocations */
  int *z = CLT_ARENA_ZNEW(&a, int, 1000);
  void *e1 = clt_arena_alloc(&a, 0), *e2 = clt_arena_alloc(&a, 0);
  CHECK(z && e1 && e2 && e1 != e2);
  bool zero = true;
  for (int i = 0; i < 1000; i++) zero = zero && z[i] == 0;
  CHECK(zero);
  clt_arena_pop(&a, 0);
  CHECK(clt_arena_alloc(&a, SIZE_MAX) == NULL && a.count == 0);
  /* scratch: its own arena without one; the given one back at its mark */
  clt_scratch_t s;
  clt_arena_t *own = clt_scratch_begin(&s, NULL);
  CHECK(own == &s.local && CLT_ARENA_NEW(own, double, 10) != NULL);
  clt_scratch_end(&s);
  (void)CLT_ARENA_NEW(&a, double, 3);
  clt_arena_t *given = clt_scratch_begin(&s, &a);
  CHECK(given == &a && CLT_ARENA_NEW(given, double, 10) != NULL && a.count == 2);
  clt_scratch_end(&s);
  CHECK(a.count == 1);
  clt_arena_release(&a);
  CHECK(a.block == NULL && a.entries == NULL);
}

/* APGD on a small symmetric positive definite LCP, with and without an arena. */
static void test_solve_with_arena(void) {
  enum { N = 24 };
  static double m[N * N], q[N];
  for (int i = 0; i < N; i++) {
    q[i] = (i % 3 == 0 ? 1.0 : -1.0) * (1.0 + 0.1 * i);
    for (int j = 0; j < N; j++) m[i * N + j] = (i == j ? 4.0 : 0.0) + 1.0 / (1.0 + i + j);
  }
  clt_matrix_t mat = {CLT_MATRIX_DENSE, N, N, m, NULL, NULL, 0};
  clt_lcp_t p = {N, &mat, NULL, q, 0, NULL, 0, NULL, NULL};
  clt_solver_kind_t kinds[] = {CLT_SOLVER_APGD, CLT_SOLVER_BBPGD, CLT_SOLVER_MPRGP, CLT_SOLVER_BGS, CLT_SOLVER_LEMKE};
  clt_arena_t *arena = clt_arena_create();
  CHECK(arena != NULL);
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    double z1[N] = {0}, z2[N] = {0}, w1[N], w2[N];
    clt_solver_options_t o = clt_default_solver_options();
    clt_solve_result_t r1, r2;
    CHECK(o.arena == NULL);
    CHECK(clt_lcp_solve(kinds[k], &p, &o, z1, w1, &r1) == CLT_OK && r1.status == CLT_SOLVE_SOLVED);
    o.arena = arena;
    CHECK(clt_lcp_solve(kinds[k], &p, &o, z2, w2, &r2) == CLT_OK && r2.status == CLT_SOLVE_SOLVED);
    CHECK(memcmp(z1, z2, sizeof z1) == 0 && memcmp(w1, w2, sizeof w1) == 0 && r1.iterations == r2.iterations);
    CHECK(arena->count == 0 && clt_arena_peak_bytes(arena) >= (size_t)N * sizeof(double));
  }
  clt_arena_destroy(arena);
  clt_arena_destroy(NULL);
  CHECK(clt_arena_peak_bytes(NULL) == 0);
}

typedef struct item_t {
  int key, order;
} item_t;

static int by_key(const void *a, const void *b) {
  int x = ((const item_t *)a)->key, y = ((const item_t *)b)->key;
  return (x > y) - (x < y);
}

static void test_sort(void) {
  clt_arena_t a;
  clt_arena_init(&a);
  static item_t items[1100], reference[1100];
  uint32_t seed = 12345u;
  int sizes[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 257, 1024, 1100};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int n = sizes[s];
    for (int i = 0; i < n; i++) {
      seed = seed * 1664525u + 1013904223u;
      items[i].key = (int)(seed >> 24) % 37; /* many ties: stability shows */
      items[i].order = i;
    }
    memcpy(reference, items, sizeof(item_t) * (size_t)n);
    for (int i = 1; i < n; i++) { /* stable insertion sort */
      item_t t = reference[i];
      int j = i;
      while (j > 0 && reference[j - 1].key > t.key) {
        reference[j] = reference[j - 1];
        j--;
      }
      reference[j] = t;
    }
    CHECK(clt_sort(items, (size_t)n, sizeof(item_t), by_key, s % 2 ? &a : NULL));
    CHECK(n == 0 || memcmp(items, reference, sizeof(item_t) * (size_t)n) == 0);
    CHECK(a.count == 0);
  }
  clt_arena_release(&a);
}

int main(void) {
  test_arena();
  test_solve_with_arena();
  test_sort();
  return clt_test_finish();
}
