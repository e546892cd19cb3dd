/* Pinned state hashes (STYLE.md "Determinism is a contract"; Box2D checks a hash of its world
 * after a fixed number of steps the same way): three small fixed worlds, read through the scene
 * reader and stepped N steps, must end with exactly the clt_world_state_hash values below (the
 * hash covers time, step, body states, warm starts and contact memory: src/dynamics/state.c).
 * Any change to the bits of these steps fails here, so such a change is always a deliberate,
 * reviewed one: run this test, check the change is meant, and copy the printed hash into
 * the pin with the reason in the commit message.
 *
 * The pins hold for the Release build and for the Debug ASan+UBSan build alike: the tree builds
 * with -ffp-contract=off -fno-fast-math (CMakeLists.txt), so -O0 and -O2 evaluate the same IEEE
 * operations in the same order on x86-64 (SSE2, no x87 excess precision); libm and LAPACK are the
 * system's, so another machine or libm may need its own pins, as a checkpoint is (state.c).
 *
 * No scene here has 2D polygon–polygon contacts: that narrow phase is not frozen yet. */
#include <inttypes.h>
#include <stdio.h>

#include "clatter/scene.h"
#include "clatter/world.h"
#include "test_util.h"

/* 3D: three boxes stacked on a floor, anitescu-hart, Lemke (SPEC.md §1, §2). */
static const char box_stack[] =
    "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 1,\n"
    " \"method\": {\"scheme\": \"anitescu-hart\", \"solver\": \"lemke\"},\n"
    " \"materials\": {\"default\": {\"friction\": 0.4}},\n"
    " \"bodies\": [\n"
    "  {\"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, 1]}},\n"
    "  {\"position\": [0, 0, 0.1], \"shape\": {\"type\": \"box\", \"half_extents\": [0.2, 0.2, 0.1]}},\n"
    "  {\"position\": [0.02, 0, 0.31], \"orientation\": {\"axis\": [0, 0, 1], \"angle\": 0.2},\n"
    "   \"shape\": {\"type\": \"box\", \"half_extents\": [0.2, 0.2, 0.1]}},\n"
    "  {\"position\": [-0.03, 0.01, 0.53], \"shape\": {\"type\": \"box\", \"half_extents\": [0.15, 0.15, 0.1]}}\n"
    " ]}\n";

/* 3D: 27 jittered spheres falling onto a floor, scheme relaxed on the circular cone, bgs
 * (docs/stepping.md "The relaxed scheme"). */
static const char sphere_pile[] =
    "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.8,\n"
    " \"method\": {\"scheme\": \"relaxed\", \"solver\": \"bgs\", \"friction_cone\": \"circular\",\n"
    "            \"tolerance\": 1e-6, \"max_iterations\": 200, \"relaxation\": 1.5},\n"
    " \"materials\": {\"default\": {\"friction\": 0.5}},\n"
    " \"bodies\": [\n"
    "  {\"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, 1]}},\n"
    "  {\"name\": \"g\", \"position\": [-0.11, -0.11, 0.06], \"shape\": {\"type\": \"sphere\", \"radius\": 0.05},\n"
    "   \"grid\": {\"count\": [3, 3, 3], \"spacing\": [0.11, 0.11, 0.11], \"jitter\": [0.004, 0.004, 0],\n"
    "            \"seed\": 7}}\n"
    " ]}\n";

/* 2D: a chain of four disks on revolute joints, pinned to the world, swinging onto a floor
 * (joints and disk–half-plane contacts). */
static const char chain_2d[] =
    "{\"dimension\": 2, \"time_step\": 0.005, \"duration\": 1,\n"
    " \"method\": {\"scheme\": \"anitescu-hart\", \"solver\": \"lemke\"},\n"
    " \"bodies\": [\n"
    "  {\"type\": \"static\", \"shape\": {\"type\": \"halfplane\", \"normal\": [0, 1], \"point\": [0, -0.75]}},\n"
    "  {\"name\": \"l1\", \"position\": [0.2, 0], \"shape\": {\"type\": \"disk\", \"radius\": 0.08}},\n"
    "  {\"name\": \"l2\", \"position\": [0.4, 0], \"shape\": {\"type\": \"disk\", \"radius\": 0.08}},\n"
    "  {\"name\": \"l3\", \"position\": [0.6, 0], \"shape\": {\"type\": \"disk\", \"radius\": 0.08}},\n"
    "  {\"name\": \"l4\", \"position\": [0.8, 0], \"shape\": {\"type\": \"disk\", \"radius\": 0.08}}\n"
    " ],\n"
    " \"joints\": [\n"
    "  {\"type\": \"revolute\", \"body_a\": \"l1\", \"anchor_a\": [-0.2, 0], \"anchor_b\": [0, 0]},\n"
    "  {\"type\": \"revolute\", \"body_a\": \"l1\", \"body_b\": \"l2\", \"anchor_a\": [0.1, 0], \"anchor_b\": [-0.1, 0]},\n"
    "  {\"type\": \"revolute\", \"body_a\": \"l2\", \"body_b\": \"l3\", \"anchor_a\": [0.1, 0], \"anchor_b\": [-0.1, 0]},\n"
    "  {\"type\": \"revolute\", \"body_a\": \"l3\", \"body_b\": \"l4\", \"anchor_a\": [0.1, 0], \"anchor_b\": [-0.1, 0]}\n"
    " ]}\n";

typedef struct pinned_t {
  const char *name;
  const char *scene;
  uint64_t hash; /* clt_world_state_hash after the scene's steps */
} pinned_t;

static const pinned_t pins[] = {
    {"box_stack", box_stack, UINT64_C(0x906dd8861c5e100e)},
    {"sphere_pile", sphere_pile, UINT64_C(0x92c4fbde84c11b79)},
    {"chain_2d", chain_2d, UINT64_C(0x0815020d6a988c82)},
};

/* Steps the scene to its end; returns its state hash, 0 (and a failed check) if it cannot. */
static uint64_t run(const char *name, const char *text, int *contacts_seen) {
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  char message[512];
  if (clt_scene_parse(text, name, NULL, &scene, message, sizeof message) != CLT_OK ||
      clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "%s: %s\n", name, message);
    CHECK(false);
    clt_scene_destroy(scene);
    return 0;
  }
  int64_t steps = clt_scene_step_count(scene);
  *contacts_seen = 0;
  for (int64_t n = 0; n < steps; n++) {
    if (clt_world_step(world) != CLT_OK) {
      fprintf(stderr, "%s: step %lld: %s\n", name, (long long)n + 1, clt_world_error(world));
      CHECK(false);
      break;
    }
    clt_diagnostics_t d;
    clt_world_get_diagnostics(world, &d);
    if (d.contacts > *contacts_seen) *contacts_seen = d.contacts;
  }
  uint64_t hash = clt_world_state_hash(world);
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return hash;
}

int main(void) {
  for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
    int contacts = 0;
    uint64_t hash = run(pins[i].name, pins[i].scene, &contacts);
    /* the worlds must exercise contacts, else the pin says little about the solvers */
    CHECK(contacts > 0);
    printf("%s: state hash 0x%016" PRIx64 " (pinned 0x%016" PRIx64 "), at most %d contacts a step\n", pins[i].name,
           hash, pins[i].hash, contacts);
    if (hash != pins[i].hash) {
      fprintf(stderr,
              "%s: the state hash changed: 0x%016" PRIx64 ", pinned 0x%016" PRIx64 ".\n"
              "  The bits of this scene's steps changed. If the change is meant (a reviewed change of\n"
              "  the method or of the order of its floating-point operations), set the pin in\n"
              "  tests/stepper/test_state_hash.c to UINT64_C(0x%016" PRIx64 ") and say why in the commit.\n",
              pins[i].name, hash, pins[i].hash, hash);
    }
    CHECK(hash == pins[i].hash);
  }
  return clt_test_finish();
}
