/* scenes/papers/colony.json (SPEC.md §8 "colony"): the scene reader gives its "colony" block
 * (clt_scene_colony: the block's values, the seed cell's diameter, the order defaults) and builds
 * the world without a warning; clt_scene_create_colony adopts the seed cell. The scene without its
 * block builds a planar overdamped ReLCP world whose seed cell a colony made by hand adopts
 * (clt_colony_def_t.first_cell); the block's keys are the documented ones; four generations grow
 * 16 cells with every step's true overlap within the tolerance. Also: adopting checks the seed
 * cell. */
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clatter/scene.h"
#include "colony_test.h"
#include "math/vec.h"
#include "test_util.h"

static char warned[1024];
static int warnings;

static void catch_log(void *user, clt_log_level_t level, const char *message) {
  (void)user;
  if (level != CLT_LOG_WARNING) return;
  warnings++;
  snprintf(warned, sizeof warned, "%s", message);
}

int main(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/scenes/papers/colony.json", clt_test_env("CLATTER_SOURCE_DIR"));
  char *text = clt_test_read_file(path);
  CHECK(text != NULL);
  if (!text) return clt_test_finish();
  char msg[1024];
  clt_scene_t *whole = NULL;
  CHECK(clt_scene_parse(text, path, NULL, &whole, msg, sizeof msg) == CLT_OK);
  clt_world_t *seed_only = NULL;
  CHECK(whole && clt_scene_create_world(whole, catch_log, NULL, &seed_only, msg, sizeof msg) == CLT_OK);
  printf("the whole file: %d warning(s): %s\n", warnings, warned);
  CHECK(warnings == 0);
  const clt_scene_colony_t *read = whole ? clt_scene_colony(whole) : NULL;
  CHECK(read != NULL);
  if (read) {
    CHECK(read->def.growth_time == 1.0 && read->def.division_length == 2.0 && read->def.division_gap == 0.0);
    CHECK(fabs(read->def.max_reorientation - 5.0 * CLT_PI / 180.0) < 1e-15 && read->def.seed == 1);
    CHECK(read->def.diameter == 0.5 && read->generations == 14 && read->seed_body == 0);
    CHECK(read->order_radius == 4.0 && fabs(read->order_angle - 10.0 * CLT_PI / 180.0) < 1e-15 &&
          read->order_contact_gap == 0.05);
    clt_colony_t *adopted = NULL;
    CHECK(clt_scene_create_colony(whole, seed_only, &adopted, msg, sizeof msg) == CLT_OK);
    CHECK(adopted && clt_colony_cell_count(adopted) == 1 && clt_world_body_count(seed_only) == 1);
    clt_colony_destroy(adopted);
  }
  clt_world_destroy(seed_only);
  clt_scene_destroy(whole);

  cJSON *root = cJSON_Parse(text);
  free(text);
  CHECK(root != NULL);
  cJSON *block = cJSON_DetachItemFromObjectCaseSensitive(root, "colony");
  CHECK(cJSON_IsObject(block));
  static const char *const keys[] = {"growth_time", "division_length", "max_reorientation_deg", "division_gap",
                                     "seed", "generations", "order", NULL};
  for (const cJSON *c = block ? block->child : NULL; c; c = c->next) {
    bool known = false;
    for (int i = 0; keys[i]; i++) known = known || strcmp(keys[i], c->string) == 0;
    CHECK(known);
  }
  clt_colony_def_t cd = clt_default_colony_def();
  cd.growth_time = cJSON_GetObjectItem(block, "growth_time")->valuedouble;
  cd.division_length = cJSON_GetObjectItem(block, "division_length")->valuedouble;
  cd.max_reorientation = cJSON_GetObjectItem(block, "max_reorientation_deg")->valuedouble * CLT_PI / 180.0;
  cd.seed = (uint64_t)cJSON_GetObjectItem(block, "seed")->valuedouble;
  cJSON_Delete(block);
  char *scene_text = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  clt_scene_t *scene = NULL;
  CHECK(clt_scene_parse(scene_text, path, NULL, &scene, msg, sizeof msg) == CLT_OK);
  free(scene_text);
  if (!scene) {
    fprintf(stderr, "%s\n", msg);
    return clt_test_finish();
  }
  clt_world_t *w = NULL;
  CHECK(clt_scene_create_world(scene, catch_log, NULL, &w, msg, sizeof msg) == CLT_OK);
  CHECK(warnings == 0);
  const clt_world_def_t *wd = clt_scene_world_def(scene);
  CHECK(wd->planar && wd->law == CLT_LAW_OVERDAMPED && wd->method.contact_model == CLT_CONTACT_MODEL_RELCP);
  double tol = wd->method.overlap_tolerance;
  clt_body_id_t seed = clt_world_body_at(w, 0);
  clt_shape_def_t shape;
  CHECK(clt_body_get_shape(w, seed, 0, &shape) == CLT_OK);
  CHECK(shape.type == CLT_SHAPE_CAPSULE);

  /* adoption checks the seed cell */
  clt_colony_t *c = NULL;
  cd.diameter = 3.0 * shape.radius; /* not the seed cell's */
  cd.first_cell = seed;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "diameter") != NULL);
  cd.diameter = 2.0 * shape.radius;
  cd.first_cell.generation += 1;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_ERR_STALE_HANDLE);
  cd.first_cell = seed;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_OK);
  if (!c) return clt_test_finish();
  clt_colony_cell_t cell;
  CHECK(clt_colony_get_cell(c, 0, &cell) == CLT_OK);
  CHECK(cell.length == shape.length);
  CHECK(cell.body.index == seed.index);

  int steps = 0;
  double worst = 0.0;
  while (clt_colony_cell_count(c) < 16 && steps < 1000) {
    clt_status_t st = clt_colony_step(c);
    CHECK(st == CLT_OK);
    if (st != CLT_OK) {
      fprintf(stderr, "%s\n", clt_world_error(w));
      break;
    }
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    worst = fmax(worst, d.max_overlap);
    steps++;
  }
  printf("colony.json: 16 cells after %d steps (t = %.2f), max true overlap %.3g (tolerance %.3g)\n", steps,
         clt_world_time(w), worst, tol);
  CHECK(clt_colony_cell_count(c) == 16);
  CHECK_LE(worst, tol);
  clt_colony_destroy(c);
  clt_world_destroy(w);
  clt_scene_destroy(scene);
  return clt_test_finish();
}
