/* Body grids in scene files (src/io/scene_sections.c "Body grids", docs/scene-format.md): the expanded
 * bodies (count, order, positions, names, jitter bounds), determinism and the bit-exact rebuild
 * from the stored scene, --param on the counts, references to generated bodies, 2D grids, and
 * the messages of malformed grids (tests/cli/bad_scenes/grid_* cover the CLI side). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/scene.h"
#include "test_util.h"

static char message[2048];

static clt_scene_t *parse(const char *text, const char *const *params, int param_count) {
  clt_scene_overrides_t o = {NULL, 0, params, param_count};
  clt_scene_t *scene = NULL;
  clt_status_t s = clt_scene_parse(text, "g.json", &o, &scene, message, sizeof message);
  if (s != CLT_OK) fprintf(stderr, "parse failed: %s\n", message);
  return scene;
}

static bool fails_with(const char *text, const char *expected) {
  clt_scene_t *scene = NULL;
  clt_status_t s = clt_scene_parse(text, "g.json", NULL, &scene, message, sizeof message);
  bool ok = s == CLT_ERR_FORMAT && scene == NULL && strcmp(message, expected) == 0;
  if (!ok) fprintf(stderr, "expected [%s]\n     got [%s] (%d)\n", expected, message, (int)s);
  clt_scene_destroy(scene);
  return ok;
}

static clt_world_t *build(const clt_scene_t *scene) {
  clt_world_t *world = NULL;
  if (clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "build failed: %s\n", message);
    return NULL;
  }
  return world;
}

static void state(clt_world_t *w, int i, clt_body_state_t *s) {
  memset(s, 0, sizeof *s);
  CHECK(clt_body_get_state(w, clt_world_body_at(w, i), s) == CLT_OK);
}

static const char *pile =
    "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.05, \"parameters\": {\"n\": 60, \"nz\": 4},"
    " \"method\": {\"scheme\": \"relaxed\", \"solver\": \"apgd\", \"tolerance\": 1e-6},"
    " \"bodies\": ["
    "  {\"name\": \"floor\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, 1]}},"
    "  {\"name\": \"g\", \"position\": [-0.3, -0.2, 0.1], \"velocity\": [0, 0, -1],"
    "   \"shape\": {\"type\": \"sphere\", \"radius\": 0.05},"
    "   \"grid\": {\"count\": [4, 5, \"$nz\"], \"spacing\": [0.2, 0.1, 0.15], \"number\": \"$n\","
    "            \"jitter\": [0.01, 0.02, 0], \"seed\": 7}},"
    "  {\"name\": \"lid\", \"mass\": 1, \"inertia\": [1, 1, 1], \"position\": [0, 0, 2]}"
    " ],"
    " \"joints\": [{\"type\": \"distance\", \"body_a\": \"g59\", \"body_b\": \"lid\"}],"
    " \"output\": {\"contacts\": false}}";

static void test_expansion(void) {
  clt_scene_t *s = parse(pile, NULL, 0);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(clt_scene_body_count(s) == 62); /* floor, 60 grains, lid */
  clt_world_t *w = build(s);
  CHECK(w != NULL);
  if (w) {
    CHECK(clt_world_body_count(w) == 62);
    double max_jitter[3] = {0, 0, 0};
    for (int n = 0; n < 60; n++) {
      clt_body_state_t st;
      state(w, 1 + n, &st);
      int idx[3] = {n % 4, (n / 4) % 5, n / 20};
      const double origin[3] = {-0.3, -0.2, 0.1}, spacing[3] = {0.2, 0.1, 0.15};
      for (int k = 0; k < 3; k++) {
        double lattice = origin[k] + idx[k] * spacing[k];
        max_jitter[k] = fmax(max_jitter[k], fabs(st.position[k] - lattice));
      }
      CHECK(st.velocity[2] == -1.0); /* every copy keeps the template's other fields */
      clt_body_info_t info;
      CHECK(clt_body_get_info(w, clt_world_body_at(w, 1 + n), &info) == CLT_OK);
      char expected[16];
      snprintf(expected, sizeof expected, "g%d", n);
      CHECK(strcmp(info.name, expected) == 0);
      CHECK_NEAR(info.mass, 1000.0 * 4.0 / 3.0 * 3.14159265358979323846 * 0.05 * 0.05 * 0.05, 1e-12);
    }
    /* Jitter: within its amplitude, really used on x and y, absent on z. */
    CHECK_LE(max_jitter[0], 0.01);
    CHECK_LE(max_jitter[1], 0.02);
    CHECK(max_jitter[0] > 0.005);
    CHECK(max_jitter[1] > 0.01);
    CHECK(max_jitter[2] < 1e-15);
    clt_body_info_t info;
    CHECK(clt_body_get_info(w, clt_world_body_at(w, 61), &info) == CLT_OK);
    CHECK(strcmp(info.name, "lid") == 0);
  }

  /* The stored scene keeps the grid (short) and rebuilds the same world bit for bit. */
  const char *json = clt_scene_json(s);
  CHECK(strstr(json, "\"grid\"") != NULL);
  CHECK(strlen(json) < 2000);
  clt_scene_t *again = parse(json, NULL, 0);
  CHECK(again != NULL);
  clt_world_t *w2 = again ? build(again) : NULL;
  CHECK(w2 != NULL);
  if (w && w2) {
    CHECK(clt_world_body_count(w2) == 62);
    CHECK(clt_world_state_hash(w) == clt_world_state_hash(w2));
    bool same = true;
    for (int i = 0; i < 62; i++) {
      clt_body_state_t a, b;
      state(w, i, &a);
      state(w2, i, &b);
      same = same && memcmp(a.position, b.position, sizeof a.position) == 0;
    }
    CHECK(same);
    /* ... and steps identically. */
    for (int k = 0; k < 5; k++) {
      CHECK(clt_world_step(w) == CLT_OK);
      CHECK(clt_world_step(w2) == CLT_OK);
    }
    CHECK(clt_world_state_hash(w) == clt_world_state_hash(w2));
  }
  clt_world_destroy(w2);
  clt_scene_destroy(again);
  clt_world_destroy(w);
  clt_scene_destroy(s);

  /* A different seed moves the grains; the same seed does not. */
  const char *seed8[] = {"n=60"};
  clt_scene_t *a = parse(pile, seed8, 1);
  char *text = malloc(strlen(pile) + 1);
  strcpy(text, pile);
  char *seed = strstr(text, "\"seed\": 7");
  seed[8] = '8';
  clt_scene_t *b = parse(text, NULL, 0);
  free(text);
  clt_world_t *wa = a ? build(a) : NULL, *wb = b ? build(b) : NULL;
  CHECK(wa && wb);
  if (wa && wb) {
    clt_body_state_t x, y;
    state(wa, 5, &x);
    state(wb, 5, &y);
    CHECK(x.position[0] != y.position[0]);
    CHECK(x.position[2] == y.position[2]);
  }
  clt_world_destroy(wa);
  clt_world_destroy(wb);
  clt_scene_destroy(a);
  clt_scene_destroy(b);
}

static void test_params(void) {
  /* --param sets the counts: n = 8 of a 4 × 5 × 1 grid. */
  const char *p[] = {"n=8", "nz=1"};
  clt_scene_overrides_t o = {NULL, 0, p, 2};
  clt_scene_t *s = NULL;
  CHECK(clt_scene_parse(pile, "g.json", &o, &s, message, sizeof message) == CLT_ERR_FORMAT);
  CHECK(s == NULL); /* the joint names g59, which no longer exists */
  CHECK(strcmp(message, "g.json: joints[0].body_a: unknown body \"g59\"") == 0);
  const char *p2[] = {"n=80", "nz=4"};
  s = parse(pile, p2, 2);
  CHECK(s != NULL);
  if (s) CHECK(clt_scene_body_count(s) == 82);
  clt_scene_destroy(s);
  CHECK(fails_with("{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 1, \"bodies\": [{\"shape\": "
                   "{\"type\": \"sphere\", \"radius\": 1}, \"grid\": {\"count\": [4, 5, 4], \"spacing\": [1, 1, 1], "
                   "\"number\": 81}}]}",
                   "g.json: bodies[0].grid.number: must be between 1 and 80 (got 81)"));
}

static void test_2d_and_unnamed(void) {
  const char *text =
      "{\"dimension\": 2, \"time_step\": 0.01, \"duration\": 1, \"bodies\": ["
      " {\"shape\": {\"type\": \"disk\", \"radius\": 0.1}, \"position\": [1, 2],"
      "  \"grid\": {\"count\": [3, 2], \"spacing\": [0.5, 0.25], \"jitter\": 0.05}},"
      " {\"name\": \"box\", \"shape\": {\"type\": \"box\", \"half_extents\": [1, 1]}, \"position\": [0, -5]}]}";
  clt_scene_t *s = parse(text, NULL, 0);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(clt_scene_body_count(s) == 7);
  clt_world_t *w = build(s);
  if (w) {
    for (int n = 0; n < 6; n++) {
      clt_body_state_t st;
      state(w, n, &st);
      CHECK_LE(fabs(st.position[0] - (1 + (n % 3) * 0.5)), 0.05);
      CHECK_LE(fabs(st.position[1] - (2 + (n / 3) * 0.25)), 0.05);
      clt_body_info_t info;
      clt_body_get_info(w, clt_world_body_at(w, n), &info);
      CHECK(info.name[0] == '\0');
    }
    clt_body_state_t st;
    state(w, 6, &st);
    CHECK(st.position[1] == -5);
  }
  clt_world_destroy(w);
  clt_scene_destroy(s);
}

static void test_errors(void) {
  const char *head = "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 1, \"bodies\": [{\"name\": \"a\", "
                     "\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"grid\": ";
  char text[1024];
  struct {
    const char *grid, *expected;
  } cases[] = {
      {"{\"count\": [2, 2], \"spacing\": [1, 1, 1]}}]}",
       "g.json: bodies[0].grid.count: must be an array of 3 numbers (got an array of 2)"},
      {"{\"count\": [2, 0, 1], \"spacing\": [1, 1, 1]}}]}",
       "g.json: bodies[0].grid.count[1]: must be between 1 and 10000000 (got 0)"},
      {"{\"count\": [2, 1.5, 1], \"spacing\": [1, 1, 1]}}]}",
       "g.json: bodies[0].grid.count[1]: must be an integer (got 1.5)"},
      {"{\"count\": [2, 2, 2]}}]}", "g.json: bodies[0].grid.spacing: required field is missing"},
      {"{\"count\": [2, 2, 2], \"spacing\": [1, 0, 1]}}]}",
       "g.json: bodies[0].grid.spacing[1]: must be > 0 (got 0)"},
      {"{\"count\": [2, 2, 2], \"spacing\": [1, 1, 1], \"jitter\": -1}}]}",
       "g.json: bodies[0].grid.jitter: must be >= 0 (got -1)"},
      {"{\"count\": [2, 2, 2], \"spacing\": [1, 1, 1], \"jitter\": \"x\"}}]}",
       "g.json: bodies[0].grid.jitter: must be a number or an array of 3 numbers (got string \"x\")"},
      {"{\"count\": [2, 2, 2], \"spacing\": [1, 1, 1], \"seed\": -1}}]}",
       "g.json: bodies[0].grid.seed: must be between 0 and 9007199254740991 (got -1)"},
      {"{\"count\": [2, 2, 2], \"spacing\": [1, 1, 1], \"sead\": 1}}]}",
       "g.json: bodies[0].grid.sead: unknown key (a grid allows: count, spacing, number, jitter, seed)"},
      {"{\"count\": [10000, 10000, 10000], \"spacing\": [1, 1, 1]}}]}",
       "g.json: bodies[0].grid.count: makes 1000000000000 bodies; at most 10000000 (or give \"number\")"},
      {"[1]}]}", "g.json: bodies[0].grid: must be an object (got an array)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(text, sizeof text, "%s%s", head, cases[i].grid);
    CHECK(fails_with(text, cases[i].expected));
  }
  /* A name that leaves no room for the index. */
  CHECK(fails_with("{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 1, \"bodies\": [{\"name\": "
                   "\"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijab\", \"shape\": {\"type\": "
                   "\"sphere\", \"radius\": 1}, \"grid\": {\"count\": [11, 1, 1], \"spacing\": [1, 1, 1]}}]}",
                   "g.json: bodies[0].name: must be at most 63 characters with the grid index appended (got 62 + 2)"));
  /* Generated names collide with a later body. */
  CHECK(fails_with("{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 1, \"bodies\": [{\"name\": \"a\", "
                   "\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"grid\": {\"count\": [3, 1, 1], "
                   "\"spacing\": [3, 1, 1]}}, {\"name\": \"a1\", \"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}",
                   "g.json: bodies[1].name: duplicate body name \"a1\" (also bodies[0])"));
}

/* scenes/papers/pile.json at n = 1000: the documented generator (docs/scene-format.md "Body grids":
 * xorshift64*, state seed XOR 0x9E3779B97F4A7C15, one draw per copy and jittered axis) written
 * out here independently gives the same positions bit for bit; 1000 = 15 full layers of 64 and 40. */
static double doc_uniform(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return (double)((x * UINT64_C(2685821657736338717)) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void test_pile_file(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s/scenes/papers/pile.json", clt_test_env("CLATTER_SOURCE_DIR"));
  clt_scene_t *s = NULL;
  CHECK(clt_scene_load(path, NULL, &s, message, sizeof message) == CLT_OK);
  if (!s) return;
  CHECK(clt_scene_body_count(s) == 1005);
  clt_world_t *w = build(s);
  if (w) {
    uint64_t rng = UINT64_C(0x9E3779B97F4A7C15); /* seed 0 */
    bool same = true;
    double top = 0;
    for (int i = 0; i < 1000; i++) {
      clt_body_state_t st;
      state(w, 5 + i, &st);
      int k = i % 64, layer = i / 64;
      double x = -0.42 + (double)(k % 8) * 0.12, y = -0.42 + (double)(k / 8) * 0.12;
      x += 0.005 * doc_uniform(&rng);
      y += 0.005 * doc_uniform(&rng);
      double z = 0.07 + (double)layer * 0.12;
      same = same && st.position[0] == x && st.position[1] == y && st.position[2] == z;
      top = fmax(top, st.position[2]);
    }
    CHECK(same);
    CHECK_NEAR(top, 0.07 + 15 * 0.12, 1e-12);
  }
  clt_world_destroy(w);
  clt_scene_destroy(s);
}

int main(void) {
  test_pile_file();
  test_expansion();
  test_params();
  test_2d_and_unnamed();
  test_errors();
  return clt_test_finish();
}
