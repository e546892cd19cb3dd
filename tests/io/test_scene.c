/* Scene reader (src/io/scene.c): field mapping onto world.h definitions, parameters, --param and
 * --set overrides, exact round trip of the resolved JSON, the built-in default scene, and the
 * messages of a few malformed scenes (the CLI test tests/cli/test_bad_scenes.sh covers many more). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/scene.h"
#include "test_util.h"

static char message[2048];

static clt_scene_t *parse(const char *text, const char *const *sets, int set_count, const char *const *params,
                          int param_count) {
  clt_scene_overrides_t o = {sets, set_count, params, param_count};
  clt_scene_t *scene = NULL;
  clt_status_t s = clt_scene_parse(text, "t.json", &o, &scene, message, sizeof message);
  if (s != CLT_OK) fprintf(stderr, "parse failed: %s\n", message);
  return scene;
}

/* Parses text expecting failure; returns whether the message equals expected. */
static bool fails_with(const char *text, const char *const *sets, int set_count, const char *const *params,
                       int param_count, clt_status_t status, const char *expected) {
  clt_scene_overrides_t o = {sets, set_count, params, param_count};
  clt_scene_t *scene = NULL;
  clt_status_t s = clt_scene_parse(text, "t.json", &o, &scene, message, sizeof message);
  bool ok = s == status && scene == NULL && strcmp(message, expected) == 0;
  if (!ok)
    fprintf(stderr, "expected [%s] (%d)\n     got [%s] (%d)\n", expected, (int)status, message, (int)s);
  clt_scene_destroy(scene);
  return ok;
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *t = malloc((size_t)n + 1);
  if (t && fread(t, 1, (size_t)n, f) != (size_t)n) {
    free(t);
    t = NULL;
  }
  if (t) t[n] = '\0';
  fclose(f);
  return t;
}

static const char *scene3d =
    "{\"name\": \"p3\", \"dimension\": 3, \"time_step\": 0.30000000000000004, \"duration\": 3,\n"
    " \"parameters\": {\"m\": 2, \"who\": \"ball\", \"warm\": false, \"g\": [0, 0, -1], \"lit\": \"$$x\"},\n"
    " \"gravity\": \"$g\",\n"
    " \"method\": {\"scheme\": \"baumgarte\", \"alpha\": 50, \"solver\": \"bgs\", \"warm_start\": "
    "\"$warm\",\n"
    "            \"friction_directions\": 6, \"gyroscopic\": \"semi-implicit\", \"on_unconverged\": "
    "\"warn\"},\n"
    " \"materials\": {\"steel\": {\"density\": 7800, \"friction\": 0.25, \"restitution\": 0.5}},\n"
    " \"bodies\": [\n"
    "  {\"name\": \"$who\", \"mass\": \"$m\", \"inertia\": [1, 2, 3], \"position\": [1, 2, 3],\n"
    "   \"orientation\": {\"axis\": [0, 0, 2], \"angle\": 1.5707963267948966},\n"
    "   \"velocity\": [0.1, 0.2, 0.3], \"angular_velocity\": [1, 0, 0],\n"
    "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.5, \"material\": \"steel\"},\n"
    "              {\"type\": \"capsule\", \"radius\": 0.1, \"length\": 1, \"position\": [0, 0, 1]}]},\n"
    "  {\"name\": \"floor\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, "
    "2]}},\n"
    "  {\"name\": \"shaker\", \"type\": \"kinematic\", \"motion\": {\"amplitude\": [0, 0, 0.1], "
    "\"frequency\": 2},\n"
    "   \"shape\": {\"type\": \"box\", \"half_extents\": [1, 1, 0.1]}}\n"
    " ],\n"
    " \"joints\": [{\"type\": \"spherical\", \"body_a\": \"ball\", \"anchor_a\": [0, 0, 1], \"anchor_b\": "
    "[1, 2, 4]}],\n"
    " \"forces\": [{\"type\": \"applied\", \"body\": 0, \"force_amplitude\": [20, 0, 0], \"frequency\": "
    "0.15915494309189535},\n"
    "            {\"type\": \"spring-damper\", \"body_a\": \"ball\", \"body_b\": \"world\", \"stiffness\": "
    "100,\n"
    "             \"damping\": 20, \"treatment\": \"explicit\"}],\n"
    " \"output\": {\"interval\": 0.9000000000000001, \"velocities\": false, \"path\": \"out/p3.h5\"}\n"
    "}\n";

static void test_mapping_3d(void) {
  clt_scene_t *s = parse(scene3d, NULL, 0, NULL, 0);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(strcmp(clt_scene_name(s), "p3") == 0);
  CHECK(clt_scene_dimension(s) == 3);
  CHECK(clt_scene_time_step(s) == 0.30000000000000004);
  CHECK(clt_scene_step_count(s) == 10);
  const clt_world_def_t *wd = clt_scene_world_def(s);
  CHECK(wd->gravity[0] == 0 && wd->gravity[1] == 0 && wd->gravity[2] == -1);
  CHECK(wd->method.scheme == CLT_SCHEME_BAUMGARTE);
  CHECK(wd->method.alpha == 50);
  CHECK(wd->method.solver == CLT_SOLVER_BGS);
  CHECK(wd->method.warm_start == false);
  CHECK(wd->method.friction_directions == 6);
  CHECK(wd->method.gyroscopic == CLT_GYRO_SEMI_IMPLICIT);
  CHECK(wd->method.on_unconverged == CLT_UNCONVERGED_WARN);
  const clt_scene_output_t *o = clt_scene_output(s);
  CHECK(o->interval_steps == 3);
  CHECK(!o->velocities && o->trajectory && o->diagnostics && o->csv);
  CHECK(strcmp(o->path, "out/p3.h5") == 0);
  CHECK(clt_scene_body_count(s) == 3);
  /* The resolved JSON has every reference substituted and "$$x" unescaped. */
  const char *json = clt_scene_json(s);
  CHECK(strstr(json, "\"$who\"") == NULL && strstr(json, "\"$m\"") == NULL);
  CHECK(strstr(json, "\"name\": \"ball\"") != NULL);
  CHECK(strstr(json, "\"lit\": \"$$x\"") != NULL); /* declarations stay as written */
  CHECK(strstr(json, "0.30000000000000004") != NULL);

  /* Through the library: the values arrive in the world. */
  clt_world_t *w = NULL;
  clt_status_t st = clt_scene_create_world(s, NULL, NULL, &w, message, sizeof message);
  if (st != CLT_OK) fprintf(stderr, "create_world: %s\n", message);
  CHECK(st == CLT_OK);
  if (w) {
    CHECK(clt_world_body_count(w) == 3);
    CHECK(clt_world_joint_count(w) == 1);
    CHECK(clt_world_force_count(w) == 2);
    clt_body_info_t info;
    CHECK(clt_body_get_info(w, clt_world_body_at(w, 0), &info) == CLT_OK);
    CHECK(info.mass == 2);
    CHECK(strcmp(info.name, "ball") == 0);
    CHECK(info.shape_count == 2);
    CHECK(clt_body_get_info(w, clt_world_body_at(w, 1), &info) == CLT_OK);
    CHECK(info.type == CLT_BODY_STATIC);
    CHECK(clt_body_get_info(w, clt_world_body_at(w, 2), &info) == CLT_OK);
    CHECK(info.type == CLT_BODY_KINEMATIC);
    clt_body_state_t state;
    CHECK(clt_body_get_state(w, clt_world_body_at(w, 0), &state) == CLT_OK);
    CHECK_NEAR(state.velocity[2], 0.3, 0);
    /* axis-angle (0,0,1)·π/2 → q = (cos π/4, 0, 0, sin π/4) (the body frame may be re-aligned to
     * principal axes, so only check that the orientation is a unit quaternion). */
    double n = 0;
    for (int k = 0; k < 4; k++) n += state.orientation[k] * state.orientation[k];
    CHECK_NEAR(n, 1, 1e-14);
    clt_world_destroy(w);
  }
  clt_scene_destroy(s);
}

static void test_round_trip(void) {
  /* Re-reading the resolved JSON reproduces it exactly (numbers included). */
  clt_scene_t *a = parse(scene3d, NULL, 0, NULL, 0);
  CHECK(a != NULL);
  if (!a) return;
  clt_scene_t *b = parse(clt_scene_json(a), NULL, 0, NULL, 0);
  CHECK(b != NULL);
  if (b) {
    CHECK(strcmp(clt_scene_json(a), clt_scene_json(b)) == 0);
    CHECK(clt_scene_time_step(a) == clt_scene_time_step(b));
    clt_scene_destroy(b);
  }
  clt_scene_destroy(a);
}

static const char *scene2d =
    "{\"dimension\": 2, \"time_step\": 0.05, \"duration\": 1,\n"
    " \"parameters\": {\"damping\": 20, \"mu\": 0.4},\n"
    " \"materials\": {\"default\": {\"friction\": \"$mu\"}},\n"
    " \"bodies\": [\n"
    "  {\"name\": \"left\", \"position\": [0, 0.5], \"angle\": 0.25, \"angular_velocity\": 3,\n"
    "   \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5]}},\n"
    "  {\"name\": \"right\", \"position\": [3, 0.5], \"mass\": 1, \"inertia\": 0.1,\n"
    "   \"shape\": {\"type\": \"disk\", \"radius\": 0.5}},\n"
    "  {\"name\": \"table\", \"type\": \"static\", \"shape\": {\"type\": \"halfplane\", \"normal\": [0, "
    "1]}}\n"
    " ],\n"
    " \"forces\": [{\"type\": \"spring-damper\", \"body_a\": \"left\", \"body_b\": \"right\", \"damping\": "
    "\"$damping\"}]\n"
    "}\n";

static void test_parameters_and_sets(void) {
  /* Defaults. */
  clt_scene_t *s = parse(scene2d, NULL, 0, NULL, 0);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(strcmp(clt_scene_name(s), "t") == 0); /* from the source name, and written into the JSON */
  CHECK(strncmp(clt_scene_json(s), "{\n  \"name\": \"t\",\n", 15) == 0);
  CHECK(strstr(clt_scene_json(s), "\"damping\": 20") != NULL);
  CHECK(clt_scene_world_def(s)->gravity[1] == -9.81);
  CHECK(clt_scene_world_def(s)->method.friction_directions == 2);
  clt_scene_destroy(s);

  /* --param replaces the default everywhere it is referenced; --set any field, with array
   * indices, creating missing objects; the value is JSON if it parses, else a string. */
  const char *params[] = {"damping=1e6", "mu=0.2"};
  const char *sets[] = {"method.scheme=none", "bodies[1].mass=2",           "output.interval_steps=4",
                        "name=renamed",       "bodies[0].position[1]=0.75", "gravity=[0, -1]"};
  s = parse(scene2d, sets, 6, params, 2);
  CHECK(s != NULL);
  if (!s) return;
  const char *json = clt_scene_json(s);
  CHECK(strstr(json, "\"damping\": 1000000") != NULL);
  CHECK(strstr(json, "\"friction\": 0.2") != NULL);
  CHECK(clt_scene_world_def(s)->method.scheme == CLT_SCHEME_NONE);
  CHECK(clt_scene_output(s)->interval_steps == 4);
  CHECK(strcmp(clt_scene_name(s), "renamed") == 0);
  CHECK(clt_scene_world_def(s)->gravity[1] == -1);
  CHECK(strstr(json, "\"position\": [0, 0.75]") != NULL);
  clt_world_t *w = NULL;
  clt_status_t st = clt_scene_create_world(s, NULL, NULL, &w, message, sizeof message);
  if (st != CLT_OK) fprintf(stderr, "create_world: %s\n", message);
  CHECK(st == CLT_OK);
  if (w) {
    clt_body_info_t info;
    CHECK(clt_body_get_info(w, clt_world_body_at(w, 1), &info) == CLT_OK);
    CHECK(info.mass == 2);
    clt_body_state_t state;
    CHECK(clt_body_get_state(w, clt_world_body_at(w, 0), &state) == CLT_OK);
    CHECK(state.angular_velocity[0] == 3);
    clt_world_destroy(w);
  }
  clt_scene_destroy(s);

  /* A --set may also reference a parameter. */
  const char *set_ref[] = {"bodies[1].mass=$damping"};
  s = parse(scene2d, set_ref, 1, NULL, 0);
  CHECK(s != NULL);
  if (s) {
    CHECK(strstr(clt_scene_json(s), "\"mass\": 20") != NULL);
    clt_scene_destroy(s);
  }
}

static void test_errors(void) {
  const char *unknown[] = {"dampin=3"};
  CHECK(fails_with(scene2d, NULL, 0, unknown, 1, CLT_ERR_INVALID_ARGUMENT,
                   "t.json: --param dampin=3: unknown parameter 'dampin' (declared: damping, mu)"));
  const char *bad_type[] = {"damping=\"soft\""};
  CHECK(fails_with(scene2d, NULL, 0, bad_type, 1, CLT_ERR_FORMAT,
                   "t.json: forces[0].damping: must be a number (got string \"soft\")"));
  const char *string_value[] = {"bodies[0].angle=abc"};
  CHECK(fails_with(scene2d, string_value, 1, NULL, 0, CLT_ERR_FORMAT,
                   "t.json: bodies[0].angle: must be a number (got string \"abc\")"));
  const char *not_array[] = {"bodies.x=1"};
  CHECK(fails_with(scene2d, not_array, 1, NULL, 0, CLT_ERR_INVALID_ARGUMENT,
                   "t.json: --set bodies.x=1: bodies is not an object"));
  const char *no_eq[] = {"method.scheme"};
  CHECK(fails_with(scene2d, no_eq, 1, NULL, 0, CLT_ERR_INVALID_ARGUMENT,
                   "t.json: --set method.scheme: expected PATH=VALUE"));
  CHECK(fails_with("{\"dimension\": 2,\n  \"time_step\": 0.1,,\n}", NULL, 0, NULL, 0, CLT_ERR_FORMAT,
                   "t.json:2:21: invalid JSON: syntax error"));
  CHECK(fails_with("{\"dimension\": 3} x", NULL, 0, NULL, 0, CLT_ERR_FORMAT,
                   "t.json:1:18: invalid JSON: unexpected text after the scene object near 'x'"));
  CHECK(fails_with(
      "{\"dimension\": 2, \"time_step\": 0.1, \"duration\": 1, \"bodies\": [{\"shape\": "
      "{\"type\": \"ellipse\", \"semi_axes\": [1, 0]}}]}",
      NULL, 0, NULL, 0, CLT_ERR_FORMAT, "t.json: bodies[0].shape.semi_axes[1]: must be > 0 (got 0)"));
  CHECK(fails_with("{\"dimension\": 3, \"time_step\": 0.1, \"duration\": 1, \"bodies\": [{\"mass\": 1}]}",
                   NULL, 0, NULL, 0, CLT_ERR_FORMAT,
                   "t.json: bodies[0].inertia: required when mass is given (principal moments, kg m^2)"));
  CHECK(
      fails_with("{\"dimension\": 3, \"time_step\": 0.1, \"duration\": 1, \"bodies\": [{\"name\": \"a\", "
                 "\"shape\": {\"type\": \"sphere\", \"radius\": 1}}], \"joints\": [{\"type\": \"revolute\", "
                 "\"body_a\": \"a\", \"body_b\": \"a\"}]}",
                 NULL, 0, NULL, 0, CLT_ERR_FORMAT, "t.json: joints[0].body_b: must differ from body_a"));
  CHECK(
      fails_with("{\"dimension\": 3, \"time_step\": 0.1, \"duration\": 1, \"output\": {\"interval\": 0.25}, "
                 "\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}",
                 NULL, 0, NULL, 0, CLT_ERR_FORMAT,
                 "t.json: output.interval: must be a whole multiple of time_step 0.1 (got 0.25)"));
  CHECK(fails_with(
      "{\"dimension\": 3, \"time_step\": 0.1, \"duration\": 1, \"parameters\": {\"x\": null}, "
      "\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}",
      NULL, 0, NULL, 0, CLT_ERR_FORMAT,
      "t.json: parameters.x: a parameter value must be a number, string, boolean or array (got null)"));
}

static void test_default_scene(void) {
  /* The embedded default scene and scenes/examples/default.json are the same scene. */
  char path[4096];
  snprintf(path, sizeof path, "%s/scenes/examples/default.json", clt_test_env("CLATTER_SOURCE_DIR"));
  char *text = read_text(path);
  CHECK(text != NULL);
  if (!text) return;
  CHECK(strcmp(text, clt_scene_default_json()) == 0);
  clt_scene_t *s = NULL;
  CHECK(clt_scene_parse(clt_scene_default_json(), "default.json", NULL, &s, message, sizeof message) ==
        CLT_OK);
  if (s) {
    CHECK(strcmp(clt_scene_name(s), "default") == 0);
    CHECK(clt_scene_dimension(s) == 3);
    clt_scene_destroy(s);
  }
  free(text);
}

static void test_examples_parse(void) {
  /* Every example scene must be valid. */
  const char *names[] = {"default", "projectile2d", "pendulum2d", "tumbling_box", "sliding_boxes"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/scenes/examples/%s.json", clt_test_env("CLATTER_SOURCE_DIR"), names[i]);
    clt_scene_t *s = NULL;
    clt_status_t st = clt_scene_load(path, NULL, &s, message, sizeof message);
    if (st != CLT_OK) fprintf(stderr, "%s\n", message);
    CHECK(st == CLT_OK);
    clt_scene_destroy(s);
  }
}

static void test_documented_example(void) {
  /* The complete example of docs/scene-format.md is a valid scene. */
  char path[4096];
  snprintf(path, sizeof path, "%s/docs/scene-format.md", clt_test_env("CLATTER_SOURCE_DIR"));
  char *doc = read_text(path);
  CHECK(doc != NULL);
  if (!doc) return;
  char *start = strstr(doc, "```json\n");
  char *end = start ? strstr(start + 8, "```") : NULL;
  CHECK(start && end);
  if (start && end) {
    *end = '\0';
    clt_scene_t *s = NULL;
    clt_status_t st = clt_scene_parse(start + 8, "scene-format.md", NULL, &s, message, sizeof message);
    if (st != CLT_OK) fprintf(stderr, "%s\n", message);
    CHECK(st == CLT_OK);
    if (s) {
      CHECK(clt_scene_body_count(s) == 3);
      CHECK(clt_scene_output(s)->interval_steps == 5);
      clt_scene_destroy(s);
    }
  }
  free(doc);
}

int main(void) {
  test_mapping_3d();
  test_documented_example();
  test_round_trip();
  test_parameters_and_sets();
  test_errors();
  test_default_scene();
  test_examples_parse();
  return clt_test_finish();
}
