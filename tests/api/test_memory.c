/* clt_world_memory and the diagnostics' work_bytes (world.h): the box stack of scenes/examples
 * (default method) and the 1000-sphere pile (scheme relaxed) report their world storage and step
 * workspace buffer by buffer; work_bytes is 0 before the first step, then the sum of the workspace
 * entries, and never shrinks (the step's buffers only grow); resident ≤ allocated; a world's
 * states take at least a state per body; NULL world: 0 entries. */
#include <stdio.h>
#include <string.h>

#include "clatter/clatter.h"
#include "clatter/scene.h"
#include "test_util.h"

static int64_t workspace_sum(const clt_world_t *world, int *entries, bool *states_ok) {
  clt_memory_entry_t e[256];
  int n = clt_world_memory(world, e, 256);
  CHECK(n > 0 && n <= 256);
  *entries = n;
  int64_t sum = 0;
  *states_ok = false;
  for (int i = 0; i < n && i < 256; i++) {
    CHECK(e[i].name && e[i].name[0] && e[i].resident <= e[i].bytes);
    if (e[i].workspace) sum += (int64_t)e[i].bytes;
    if (strcmp(e[i].name, "world states") == 0)
      *states_ok = e[i].bytes >= (size_t)clt_world_body_count(world) * sizeof(clt_body_state_t);
  }
  return sum;
}

static void check_scene(const char *path, const char *const *params, int param_count, int steps) {
  char file[1024], message[1024];
  snprintf(file, sizeof file, "%s/%s", clt_test_env("CLATTER_SOURCE_DIR"), path);
  clt_scene_overrides_t o = {NULL, 0, params, param_count};
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  CHECK(clt_scene_load(file, &o, &scene, message, sizeof message) == CLT_OK);
  CHECK(scene && clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) == CLT_OK);
  if (!world) {
    printf("%s\n", message);
    clt_scene_destroy(scene);
    return;
  }
  clt_diagnostics_t d;
  CHECK(clt_world_get_diagnostics(world, &d) == CLT_OK && d.work_bytes == 0);
  int64_t last = 0;
  int entries = 0;
  bool states_ok = false;
  for (int k = 0; k < steps; k++) {
    CHECK(clt_world_step(world) == CLT_OK);
    CHECK(clt_world_get_diagnostics(world, &d) == CLT_OK);
    CHECK(d.work_bytes > 0 && d.work_bytes >= last);
    CHECK(d.work_bytes == workspace_sum(world, &entries, &states_ok));
    last = d.work_bytes;
  }
  CHECK(states_ok);
  printf("%s: %d buffers, workspace %lld bytes after %d steps (%lld a body)\n", path, entries, (long long)last, steps,
         (long long)(last / clt_world_body_count(world)));
  clt_world_destroy(world);
  clt_scene_destroy(scene);
}

int main(void) {
  check_scene("scenes/examples/box_stack10.json", NULL, 0, 30);
  const char *pile[] = {"n=1000"};
  check_scene("scenes/papers/pile.json", pile, 1, 30);
  CHECK(clt_world_memory(NULL, NULL, 0) == 0);
  return clt_test_finish();
}
