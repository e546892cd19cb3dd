/* A program written against the installed clatter (tests/install/test_install.sh builds it with
 * pkg-config and with CMake's find_package): a sphere dropped on a half-space comes to rest on it,
 * and the built-in default scene, built and stepped through the scene API, reports the state hash
 * that `clatter run` reports for the same steps. Prints "rest_z=... hash=...". */
#include <clatter/clatter.h>
#include <clatter/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, const char *message) {
  fprintf(stderr, "consumer: %s: %s\n", what, message);
  return 1;
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 100;
  char message[512];
  clt_world_def_t wdef = clt_default_world_def();
  clt_world_t *world = NULL;
  if (clt_world_create(&wdef, &world, message, sizeof message) != CLT_OK) return fail("world", message);
  clt_shape_def_t floor_shape = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  floor_shape.normal[2] = 1.0;
  clt_body_def_t floor_body = clt_default_body_def();
  floor_body.type = CLT_BODY_STATIC;
  floor_body.shapes = &floor_shape;
  floor_body.shape_count = 1;
  clt_body_id_t floor_id, ball_id;
  if (clt_world_add_body(world, &floor_body, &floor_id) != CLT_OK) return fail("floor", clt_world_error(world));
  clt_shape_def_t ball_shape = clt_default_shape_def(CLT_SHAPE_SPHERE);
  ball_shape.radius = 0.1;
  clt_body_def_t ball = clt_default_body_def();
  ball.position[2] = 0.3;
  ball.shapes = &ball_shape;
  ball.shape_count = 1;
  if (clt_world_add_body(world, &ball, &ball_id) != CLT_OK) return fail("ball", clt_world_error(world));
  for (int i = 0; i < 1000; i++)
    if (clt_world_step(world) != CLT_OK) return fail("step", clt_world_error(world));
  clt_body_state_t state;
  clt_body_get_state(world, ball_id, &state);
  clt_world_destroy(world);

  clt_scene_t *scene = NULL;
  if (clt_scene_parse(clt_scene_default_json(), "default", NULL, &scene, message, sizeof message) != CLT_OK)
    return fail("scene", message);
  if (clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) != CLT_OK)
    return fail("scene world", message);
  for (int i = 0; i < steps; i++)
    if (clt_world_step(world) != CLT_OK) return fail("scene step", clt_world_error(world));
  printf("rest_z=%.6f hash=%016llx\n", state.position[2], (unsigned long long)clt_world_state_hash(world));
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return fabs(state.position[2] - 0.1) < 1e-3 ? 0 : 1;
}
