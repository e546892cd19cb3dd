/* Scene reader (src/io/scene*.c): field mapping onto world.h definitions, parameters, --param and
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

static const char *scene3d =
    "{\"name\": \"p3\", \"dimension\": 3, \"time_step\": 0.30000000000000004, \"duration\": 3,\n"
    " \"parameters\": {\"m\": 2, \"who\": \"ball\", \"warm\": false, \"g\": [0, 0, -1], \"lit\": \"$$x\"},\n"
    " \"gravity\": \"$g\",\n"
    " \"method\": {\"scheme\": \"baumgarte\", \"alpha\": 50, \"solver\": \"bgs\", \"warm_start\": "
    "\"$warm\",\n"
    "            \"friction_directions\": 6,\n"
    "            \"gyroscopic\": \"semi-implicit\",\n"
    "            \"on_unconverged\": \"warn\"},\n"
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
  const char *negative_cap[] = {"method.velocity_tolerance=-0.01"};
  CHECK(fails_with(scene2d, negative_cap, 1, NULL, 0, CLT_ERR_FORMAT,
                   "t.json: method.velocity_tolerance: must be >= 0 (got -0.01)"));
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

/* SPEC.md §6 keys: method.contact_model / overlap_tolerance / relcp_max_iterations, top-level
 * law / viscosity / planar, bodies[i].drag_linear / drag_angular; their values survive the stored
 * resolved scene (parse it again: same values, same text). */
static const char *scene_relcp =
    "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.1, \"law\": \"overdamped\",\n"
    " \"viscosity\": 0.25, \"planar\": true, \"parameters\": {\"model\": \"multisphere:13\"},\n"
    " \"method\": {\"contact_model\": \"$model\", \"overlap_tolerance\": 1.0000000000000001e-05,\n"
    "            \"relcp_max_iterations\": 7},\n"
    " \"bodies\": [{\"name\": \"e\", \"drag_linear\": [2, 3, 4], \"drag_angular\": [0.1, 0.2, "
    "0.30000000000000004],\n"
    "             \"shape\": {\"type\": \"ellipsoid\", \"semi_axes\": [1, 0.5, 0.5]}},\n"
    "            {\"name\": \"f\", \"position\": [3, 0, 0], \"shape\": {\"type\": \"ellipsoid\", "
    "\"semi_axes\": [1, 0.5, 0.5]}}]}\n";

static bool relcp_values(const clt_scene_t *s, clt_contact_model_t model, int count) {
  const clt_world_def_t *wd = clt_scene_world_def(s);
  const clt_body_def_t *e = clt_scene_body_def(s, 0), *f = clt_scene_body_def(s, 1);
  if (!e || !f || clt_scene_body_def(s, 2) != NULL) return false;
  bool ok = wd->method.contact_model == model && wd->method.overlap_tolerance == 1.0000000000000001e-05 &&
            wd->method.relcp_max_iterations == 7 && wd->law == CLT_LAW_OVERDAMPED && wd->viscosity == 0.25 &&
            wd->planar;
  if (model == CLT_CONTACT_MODEL_MULTISPHERE) ok = ok && wd->method.multisphere_count == count;
  ok = ok && e->drag_linear[0] == 2 && e->drag_linear[1] == 3 && e->drag_linear[2] == 4;
  ok = ok && e->drag_angular[0] == 0.1 && e->drag_angular[1] == 0.2 &&
       e->drag_angular[2] == 0.30000000000000004;
  /* No drag given: all zero, the library's default drag. */
  for (int k = 0; k < 3; k++) ok = ok && f->drag_linear[k] == 0 && f->drag_angular[k] == 0;
  return ok;
}

static void test_relcp_keys(void) {
  clt_scene_t *a = parse(scene_relcp, NULL, 0, NULL, 0);
  CHECK(a != NULL);
  if (!a) return;
  CHECK(relcp_values(a, CLT_CONTACT_MODEL_MULTISPHERE, 13));
  clt_scene_t *b = parse(clt_scene_json(a), NULL, 0, NULL, 0);
  CHECK(b != NULL);
  if (b) {
    CHECK(relcp_values(b, CLT_CONTACT_MODEL_MULTISPHERE, 13));
    CHECK(strcmp(clt_scene_json(a), clt_scene_json(b)) == 0);
    clt_scene_destroy(b);
  }
  /* The values reach the world. */
  clt_world_t *w = NULL;
  clt_status_t st = clt_scene_create_world(a, NULL, NULL, &w, message, sizeof message);
  if (st != CLT_OK) fprintf(stderr, "create_world: %s\n", message);
  CHECK(st == CLT_OK);
  if (w) {
    const clt_method_t *m = clt_world_method(w);
    CHECK(m->contact_model == CLT_CONTACT_MODEL_MULTISPHERE && m->multisphere_count == 13);
    CHECK(m->relcp_max_iterations == 7);
    clt_world_destroy(w);
  }
  clt_scene_destroy(a);

  /* Each model by name, through --param and --set. */
  const char *names[] = {"model=relcp", "model=snsd", "model=multisphere:1", "model=multisphere:63"};
  const clt_contact_model_t models[] = {CLT_CONTACT_MODEL_RELCP, CLT_CONTACT_MODEL_SNSD,
                                        CLT_CONTACT_MODEL_MULTISPHERE, CLT_CONTACT_MODEL_MULTISPHERE};
  const int counts[] = {0, 0, 1, 63};
  for (int i = 0; i < 4; i++) {
    clt_scene_t *s = parse(scene_relcp, NULL, 0, &names[i], 1);
    CHECK(s != NULL);
    if (s) {
      CHECK(relcp_values(s, models[i], counts[i]));
      clt_scene_destroy(s);
    }
  }
  /* The law's fields stay allowed under the other law; the ReLCP tolerances must go back to their
   * defaults under the default contact model, which ignores them (docs/scene-format.md "Fields the
   * method does not use"). */
  const char *sets[] = {"law=inertial", "planar=false", "method.contact_model=default",
                        "method.overlap_tolerance=1e-4", "method.relcp_max_iterations=50"};
  CHECK(fails_with(scene_relcp, sets, 3, NULL, 0, CLT_ERR_FORMAT,
                   "t.json: method.overlap_tolerance: is ignored by method.contact_model default (a tolerance of "
                   "the ReLCP contact models, SPEC.md §6.2); leave it out or give 0.0001 (got 1e-05)"));
  clt_scene_t *s = parse(scene_relcp, sets, 5, NULL, 0);
  CHECK(s != NULL);
  if (s) {
    const clt_world_def_t *wd = clt_scene_world_def(s);
    CHECK(wd->law == CLT_LAW_INERTIAL && !wd->planar && wd->method.contact_model == CLT_CONTACT_MODEL_DEFAULT);
    CHECK(wd->viscosity == 0.25);
    clt_scene_destroy(s);
  }
  /* Defaults without the keys. */
  s = parse(scene2d, NULL, 0, NULL, 0);
  CHECK(s != NULL);
  if (s) {
    const clt_world_def_t *wd = clt_scene_world_def(s);
    CHECK(wd->law == CLT_LAW_INERTIAL && wd->viscosity == 1 && !wd->planar);
    CHECK(wd->method.contact_model == CLT_CONTACT_MODEL_DEFAULT && wd->method.overlap_tolerance == 1e-4);
    CHECK(wd->method.relcp_max_iterations == 50);
    clt_scene_destroy(s);
  }

  /* Messages (tests/cli/bad_scenes/ holds one scene per class as well). */
  const char *bad[][2] = {
      {"model=relcpp",
       "t.json: method.contact_model: unknown value \"relcpp\" (expected one of: default, relcp, snsd, "
       "multisphere:N)"},
      {"model=multisphere:4", "t.json: method.contact_model: multisphere:4: N must be odd"},
      {"model=multisphere:0", "t.json: method.contact_model: multisphere:0: N must be between 1 and 63"},
      {"model=multisphere:-3",
       "t.json: method.contact_model: multisphere:-3: N must be an odd integer from 1 to 63"},
      {"model=multisphere:",
       "t.json: method.contact_model: multisphere:: N must be an odd integer from 1 to 63"},
      {"model=multisphere",
       "t.json: method.contact_model: \"multisphere\" needs the sphere count: multisphere:N (N odd, 1 to 63)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK(fails_with(scene_relcp, NULL, 0, &bad[i][0], 1, CLT_ERR_FORMAT, bad[i][1]));
  }
  const char *bad_sets[][2] = {
      {"method.overlap_tolerance=-1", "t.json: method.overlap_tolerance: must be > 0 (got -1)"},
      {"method.relcp_max_iterations=2.5", "t.json: method.relcp_max_iterations: must be an integer (got 2.5)"},
      {"viscosity=0", "t.json: viscosity: must be > 0 (got 0)"},
      {"law=stokes", "t.json: law: unknown value \"stokes\" (expected one of: inertial, overdamped)"},
      {"planar=1", "t.json: planar: must be true or false (got 1)"},
      {"method.contact_model=default",
       "t.json: law: \"overdamped\" needs method.contact_model relcp, snsd or multisphere:N (the default "
       "contact rows are inertial only)"},
      {"bodies[1].drag_angular=[1, 1, 1]",
       "t.json: bodies[1].drag_linear: required when drag_angular is given (give both drags or neither)"},
      {"bodies[0].drag_angular=[1, -1, 1]", "t.json: bodies[0].drag_angular[1]: must be > 0 (got -1)"},
      {"bodies[0].drag_linear=[1, 1]",
       "t.json: bodies[0].drag_linear: must be an array of 3 numbers (got an array of 2)"},
  };
  for (size_t i = 0; i < sizeof bad_sets / sizeof bad_sets[0]; i++) {
    CHECK(fails_with(scene_relcp, &bad_sets[i][0], 1, NULL, 0, CLT_ERR_FORMAT, bad_sets[i][1]));
  }
  const char *planar_default[] = {"law=inertial", "method.contact_model=default"};
  CHECK(fails_with(scene_relcp, planar_default, 2, NULL, 0, CLT_ERR_FORMAT,
                   "t.json: planar: needs method.contact_model relcp, snsd or multisphere:N (the default "
                   "contact rows are unconfined)"));
}

static void test_default_scene(void) {
  /* The embedded default scene and scenes/examples/default.json are the same scene. */
  char path[4096];
  snprintf(path, sizeof path, "%s/scenes/examples/default.json", clt_test_env("CLATTER_SOURCE_DIR"));
  char *text = clt_test_read_file(path);
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
  char *doc = clt_test_read_file(path);
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

static void test_release_bodies(void) {
  /* After the world is built the scene's bodies can go (clatter run does this): the count stays,
   * the definitions are gone, and a second world cannot be built from the scene. */
  clt_scene_t *s = parse(scene_relcp, NULL, 0, NULL, 0);
  CHECK(s != NULL);
  if (!s) return;
  clt_world_t *world = NULL;
  CHECK(clt_scene_create_world(s, NULL, NULL, &world, message, sizeof message) == CLT_OK);
  CHECK(world && clt_world_body_count(world) == 2);
  clt_world_destroy(world);
  clt_scene_release_bodies(s);
  clt_scene_release_bodies(s); /* twice is harmless */
  CHECK(clt_scene_body_count(s) == 2);
  CHECK(clt_scene_body_def(s, 0) == NULL);
  CHECK(clt_scene_name(s) != NULL && clt_scene_json(s) != NULL && clt_scene_time_step(s) == 0.01);
  world = NULL;
  CHECK(clt_scene_create_world(s, NULL, NULL, &world, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(world == NULL && strstr(message, "released") != NULL);
  clt_scene_destroy(s);
}

/* Fields the chosen combination ignores are refused when given with another value than their
 * default, and accepted where the combination reads them (docs/scene-format.md "Fields the
 * method does not use"). Each case is a set of --set overrides on a plain 3D scene. */
static void test_unused_fields(void) {
  static const char *scene =
      "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.1, \"materials\": {\"m\": {}},\n"
      " \"bodies\": [{\"name\": \"s\", \"material\": \"m\", \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}]}\n";
  static const char *const accepted[][3] = {
      {"method.contact_model=relcp", "materials.m.friction=0", "materials.m.restitution=0"},
      {"method.contact_model=relcp", "method.scheme=anitescu-hart", "method.gamma=1"},
      {"method.contact_model=relcp", "method.solver=bgs", "method.relaxation=1.5"},
      {"method.contact_model=snsd", "method.overlap_tolerance=1e-3", "method.relcp_max_iterations=3"},
      {"method.scheme=none", "method.gamma=1", "method.alpha=0"},
      {"method.scheme=baumgarte", "method.alpha=20", "method.friction_directions=8"},
      {"method.scheme=post", "method.post_repeats=3", "method.post_tolerance=1e-6"},
      {"method.scheme=none", "method.spring_projection=2", "method.post_tolerance=1e-6"},
      {"method.scheme=relaxed", "method.friction_cone=circular", "method.velocity_tolerance=0.03"},
      {"method.scheme=relaxed", "method.absolute_tolerance=true", "method.relaxation=1.5"},
      {"method.scheme=anitescu-hart", "method.friction_cone=circular", "method.relaxation=1.5"},
      {"method.solver=bgs", "method.relaxation=1.5", "materials.m.friction=0.3"},
  };
  for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
    clt_scene_t *s = parse(scene, accepted[i], 3, NULL, 0);
    if (!s) fprintf(stderr, "case %zu refused\n", i);
    CHECK(s != NULL);
    clt_scene_destroy(s);
  }
  /* The relaxed scheme's stop tests reach the world definition. */
  const char *stop[] = {"method.scheme=relaxed", "method.absolute_tolerance=true", "method.velocity_tolerance=0.03"};
  clt_scene_t *st = parse(scene, stop, 3, NULL, 0);
  CHECK(st != NULL);
  if (st) {
    CHECK(clt_scene_world_def(st)->method.absolute_tolerance == true);
    CHECK(clt_scene_world_def(st)->method.velocity_tolerance == 0.03);
    clt_scene_destroy(st);
  }
  static const char *const refused[][3] = {
      {"method.contact_model=relcp", "materials.m.friction=0.3",
       "t.json: materials.m.friction: is ignored by method.contact_model relcp (the ReLCP contact models are "
       "frictionless, SPEC.md §6); leave it out or give 0 (got 0.3)"},
      {"method.contact_model=multisphere:3", "method.friction_cone=circular",
       "t.json: method.friction_cone: is ignored by method.contact_model multisphere:3 (the ReLCP contact models "
       "are frictionless, SPEC.md §6); leave it out or give \"polyhedral\" (got \"circular\")"},
      {"method.contact_model=relcp", "method.gyroscopic=semi-implicit",
       "t.json: method.gyroscopic: is ignored by method.contact_model relcp (the ReLCP step takes the gyroscopic "
       "torque explicitly, SPEC.md §6.1); leave it out or give \"explicit\" or \"off\" (got \"semi-implicit\")"},
      {"method.scheme=baumgarte", "method.post_repeats=2",
       "t.json: method.post_repeats: is ignored by scheme baumgarte (the repeats of scheme post's projection, "
       "SPEC.md §3); leave it out or give 0 (got 2)"},
      {"method.scheme=none", "method.post_tolerance=1e-6",
       "t.json: method.post_tolerance: is ignored by scheme none (the target of scheme post's projection and of "
       "method.spring_projection); leave it out or give 1e-9 (got 1e-06)"},
      {"method.scheme=baumgarte", "method.friction_cone=circular",
       "t.json: method.friction_cone: is ignored by scheme baumgarte (the contact rows' cone is polyhedral; "
       "circular is for anitescu-hart and relaxed, docs/stepping.md); leave it out or give \"polyhedral\" (got "
       "\"circular\")"},
      {"method.scheme=relaxed", "method.spring_projection=3",
       "t.json: method.spring_projection: is ignored by scheme relaxed (the cone solve has no spring projection "
       "stage, docs/stepping.md); leave it out or give 0 (got 3)"},
      {"method.solver=bgs", "method.velocity_tolerance=0.03",
       "t.json: method.velocity_tolerance: is ignored by solver bgs with scheme anitescu-hart (a stop test of the "
       "cone block Gauss-Seidel: scheme relaxed, or anitescu-hart on the circular cone, with solver bgs or "
       "lemke); leave it out or give 0 (got 0.03)"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    CHECK(fails_with(scene, refused[i], 2, NULL, 0, CLT_ERR_FORMAT, refused[i][2]));
  }
  const char *apgd[] = {"method.scheme=relaxed", "method.solver=apgd", "method.relaxation=1.5"};
  CHECK(fails_with(scene, apgd, 3, NULL, 0, CLT_ERR_FORMAT,
                   "t.json: method.relaxation: is ignored by solver apgd with scheme relaxed (ω over-relaxes the "
                   "Gauss-Seidel solves only); leave it out or give 1 (got 1.5)"));
  static const char *scene2d =
      "{\"dimension\": 2, \"time_step\": 0.01, \"duration\": 0.1, \"method\": {\"gyroscopic\": \"off\"},\n"
      " \"bodies\": [{\"name\": \"d\", \"shape\": {\"type\": \"disk\", \"radius\": 0.1}}]}\n";
  CHECK(fails_with(scene2d, NULL, 0, NULL, 0, CLT_ERR_FORMAT,
                   "t.json: method.gyroscopic: is ignored by a 2D scene (a planar body has no gyroscopic torque); "
                   "leave it out or give \"explicit\" (got \"off\")"));
}

int main(void) {
  test_mapping_3d();
  test_documented_example();
  test_round_trip();
  test_parameters_and_sets();
  test_errors();
  test_relcp_keys();
  test_unused_fields();
  test_default_scene();
  test_examples_parse();
  test_release_bodies();
  return clt_test_finish();
}
