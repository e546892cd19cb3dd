/* clatter fuzzing — the scene reader (fuzz/README.md). The input is a scene file's bytes; a scene
 * that reads must also build its world or say why, and its resolved JSON must read again to the
 * same resolved JSON (scene.h: the numbers round-trip exactly). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/scene.h"
#include "h5_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[256], message[1024];
  clt_fuzz_temp_path(".json", path, sizeof path);
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  clt_scene_t *scene = NULL;
  if (clt_scene_load(path, NULL, &scene, message, sizeof message) != CLT_OK) {
    if (scene || message[0] == '\0') abort(); /* a failure has a reason and no scene */
    if (getenv("CLATTER_FUZZ_VERBOSE")) fprintf(stderr, "%s\n", message);
    remove(path);
    return 0;
  }
  clt_scene_t *again = NULL;
  if (clt_scene_parse(clt_scene_json(scene), "resolved", NULL, &again, message, sizeof message) != CLT_OK ||
      strcmp(clt_scene_json(scene), clt_scene_json(again)) != 0) {
    fprintf(stderr, "the resolved scene does not read back to itself: %s\n", message);
    abort();
  }
  clt_scene_destroy(again);
  if (clt_scene_body_count(scene) <= 2000) {
    clt_world_t *world = NULL;
    message[0] = '\0';
    clt_status_t status = clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message);
    if ((status == CLT_OK) != (world != NULL) || (status != CLT_OK && message[0] == '\0')) abort();
    clt_world_destroy(world);
  }
  clt_scene_destroy(scene);
  remove(path);
  return 0;
}
