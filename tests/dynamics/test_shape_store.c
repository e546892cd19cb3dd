/* The world's compact storage (src/dynamics/shape_store.c, body.c; a granular pile's budget is 2 kB
 * a body, docs/design/granular.md "Memory"): equal shape descriptions are stored once (a 1000-sphere
 * grid holds one sphere description, 4 bytes per shape besides), reads give back exactly what was
 * given, a shape edit (clt_body_set_capsule_length, a growing colony cell) changes only its own
 * body, descriptions no shape uses any more are freed and their slots reused, clt_world_reserve
 * allocates exactly, and body names stay valid while bodies are added. */
#include <string.h>

#include "clatter/world.h"
#include "dynamics/world_internal.h"
#include "test_util.h"

static clt_world_t *make_world(void) {
  clt_world_def_t wd = clt_default_world_def();
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  return w;
}

/* Descriptions in use (refs > 0). */
static int live_descriptions(const clt_world_t *w) {
  int n = 0;
  for (int d = 0; d < w->shape_desc_count; d++) n += w->shape_descs[d].refs > 0;
  return n;
}

static bool same_shape(const clt_shape_def_t *a, const clt_shape_def_t *b) {
  return a->type == b->type && a->radius == b->radius && a->length == b->length &&
         memcmp(a->local_position, b->local_position, sizeof a->local_position) == 0 &&
         memcmp(a->local_orientation, b->local_orientation, sizeof a->local_orientation) == 0 &&
         a->material == b->material;
}

/* A 10 × 10 × 10 grid of equal spheres on a floor: two descriptions, ~4 bytes per shape. */
static void grid(void) {
  clt_world_t *w = make_world();
  CHECK(clt_world_reserve(w, 1001, 1001) == CLT_OK);
  clt_shape_def_t floor_shape = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  clt_body_def_t fd = clt_default_body_def();
  fd.type = CLT_BODY_STATIC;
  fd.shapes = &floor_shape;
  fd.shape_count = 1;
  fd.name = "floor";
  CHECK(clt_world_add_body(w, &fd, NULL) == CLT_OK);
  clt_shape_def_t sphere = clt_default_shape_def(CLT_SHAPE_SPHERE);
  sphere.radius = 0.05;
  for (int i = 0; i < 1000; i++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.shapes = &sphere;
    bd.shape_count = 1;
    bd.position[0] = 0.11 * (i % 10);
    bd.position[1] = 0.11 * ((i / 10) % 10);
    bd.position[2] = 0.06 + 0.11 * (i / 100);
    CHECK(clt_world_add_body(w, &bd, NULL) == CLT_OK);
  }
  CHECK(w->shape_count == 1001);
  CHECK(live_descriptions(w) == 2);
  /* exact reservation: no doubling slack */
  CHECK(w->body_capacity == 1001);
  CHECK(w->shape_capacity == 1001);
  /* 1001 × 4 bytes of indices + a few descriptions and buckets (a copy per shape: 776 kB) */
  size_t bytes = clt_world_shape_bytes(w);
  printf("shape storage for 1001 shapes: %zu bytes (%zu bytes per clt_shape_def_t)\n", bytes,
         sizeof(clt_shape_def_t));
  CHECK_LE((double)bytes, 1001.0 * sizeof(int32_t) + 8.0 * sizeof(clt_shape_desc_t) + 64.0 * sizeof(int32_t));
  /* every shape reads back what was given (a sphere at the centre of mass: the stored pose is the
   * principal frame's, here the identity) */
  for (int i = 1; i < 1001; i++) {
    clt_shape_def_t out;
    CHECK(clt_body_get_shape(w, clt_world_body_at(w, i), 0, &out) == CLT_OK);
    if (!same_shape(&out, &sphere)) {
      CHECK(same_shape(&out, &sphere));
      break;
    }
  }
  clt_shape_def_t out;
  CHECK(clt_body_get_shape(w, clt_world_body_at(w, 0), 0, &out) == CLT_OK);
  CHECK(out.type == CLT_SHAPE_HALFSPACE);
  /* one more body past the reservation grows by doubling */
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &sphere;
  bd.shape_count = 1;
  bd.position[2] = 5.0;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_OK);
  CHECK(w->body_capacity == 2002);
  CHECK(live_descriptions(w) == 2);
  CHECK(clt_world_reserve(w, -1, 0) == CLT_ERR_INVALID_ARGUMENT);
  clt_world_destroy(w);
}

/* Three equal capsule cells: growing one leaves its sisters' shape, mass and inertia bit-identical;
 * back at the shared length it shares the description again. */
static void growing_cell(void) {
  clt_world_t *w = make_world();
  clt_shape_def_t cap = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  cap.radius = 0.5;
  cap.length = 2.0;
  clt_body_id_t ids[3];
  for (int i = 0; i < 3; i++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.shapes = &cap;
    bd.shape_count = 1;
    bd.position[0] = 3.0 * i;
    CHECK(clt_world_add_body(w, &bd, &ids[i]) == CLT_OK);
  }
  CHECK(live_descriptions(w) == 1);
  clt_body_info_t before[3];
  clt_shape_def_t shape_before[3];
  for (int i = 0; i < 3; i++) {
    CHECK(clt_body_get_info(w, ids[i], &before[i]) == CLT_OK);
    CHECK(clt_body_get_shape(w, ids[i], 0, &shape_before[i]) == CLT_OK);
  }
  CHECK(clt_body_set_capsule_length(w, ids[1], 0, 2.5) == CLT_OK);
  CHECK(live_descriptions(w) == 2);
  for (int i = 0; i < 3; i += 2) {
    clt_body_info_t info;
    clt_shape_def_t s;
    CHECK(clt_body_get_info(w, ids[i], &info) == CLT_OK);
    CHECK(clt_body_get_shape(w, ids[i], 0, &s) == CLT_OK);
    CHECK(memcmp(&s, &shape_before[i], sizeof s) == 0);
    CHECK(info.mass == before[i].mass);
    CHECK(memcmp(info.inertia, before[i].inertia, sizeof info.inertia) == 0);
  }
  clt_shape_def_t grown;
  clt_body_info_t grown_info;
  CHECK(clt_body_get_shape(w, ids[1], 0, &grown) == CLT_OK);
  CHECK(clt_body_get_info(w, ids[1], &grown_info) == CLT_OK);
  CHECK(grown.length == 2.5);
  CHECK(grown_info.mass > before[1].mass);
  /* a failed edit changes nothing */
  CHECK(clt_body_set_capsule_length(w, ids[1], 0, -1.0) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(live_descriptions(w) == 2);
  CHECK(clt_body_set_capsule_length(w, ids[1], 0, 2.0) == CLT_OK);
  CHECK(live_descriptions(w) == 1);
  /* every cell at its own length, many times over: the table holds what is in use, no more */
  for (int round = 0; round < 200; round++) {
    for (int i = 0; i < 3; i++)
      CHECK(clt_body_set_capsule_length(w, ids[i], 0, 1.0 + 0.01 * round + 0.001 * i) == CLT_OK);
  }
  CHECK(live_descriptions(w) == 3);
  CHECK_LE(w->shape_desc_count, 8);
  for (int i = 0; i < 3; i++) {
    clt_shape_def_t s;
    CHECK(clt_body_get_shape(w, ids[i], 0, &s) == CLT_OK);
    CHECK(s.length == 1.0 + 0.01 * 199 + 0.001 * i);
  }
  clt_world_destroy(w);
}

/* Two equal composite bodies (a sphere and an off-centre capsule): growing the capsule of one moves
 * its principal frame (every shape re-expressed); the other keeps its shapes bit-identical. */
static void composite(void) {
  clt_world_t *w = make_world();
  clt_shape_def_t shapes[2] = {clt_default_shape_def(CLT_SHAPE_SPHERE), clt_default_shape_def(CLT_SHAPE_CAPSULE)};
  shapes[0].radius = 0.4;
  shapes[1].radius = 0.2;
  shapes[1].length = 1.0;
  shapes[1].local_position[0] = 0.9;
  clt_body_id_t ids[2];
  for (int i = 0; i < 2; i++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.shapes = shapes;
    bd.shape_count = 2;
    bd.position[1] = 4.0 * i;
    CHECK(clt_world_add_body(w, &bd, &ids[i]) == CLT_OK);
  }
  CHECK(live_descriptions(w) == 2);
  clt_shape_def_t other[2];
  for (int k = 0; k < 2; k++) CHECK(clt_body_get_shape(w, ids[1], k, &other[k]) == CLT_OK);
  CHECK(clt_body_set_capsule_length(w, ids[0], 1, 1.6) == CLT_OK);
  CHECK(live_descriptions(w) == 4); /* both of body 0's shapes moved with its frame */
  for (int k = 0; k < 2; k++) {
    clt_shape_def_t s;
    CHECK(clt_body_get_shape(w, ids[1], k, &s) == CLT_OK);
    CHECK(memcmp(&s, &other[k], sizeof s) == 0);
  }
  clt_world_destroy(w);
}

/* Many distinct descriptions (bucket growth) and names handed out by get_info that stay valid. */
static void distinct_and_names(void) {
  clt_world_t *w = make_world();
  const char *first_name = NULL;
  char long_name[100];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  for (int i = 0; i < 3000; i++) {
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_SPHERE);
    s.radius = 0.01 * (1 + i % 500);
    clt_body_def_t bd = clt_default_body_def();
    bd.shapes = &s;
    bd.shape_count = 1;
    bd.position[0] = i;
    char name[32];
    snprintf(name, sizeof name, "grain_%d", i);
    bd.name = i == 1 ? long_name : name;
    clt_body_id_t id;
    CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
    if (i == 0) {
      clt_body_info_t info;
      CHECK(clt_body_get_info(w, id, &info) == CLT_OK);
      first_name = info.name;
    }
  }
  CHECK(live_descriptions(w) == 500);
  CHECK(strcmp(first_name, "grain_0") == 0);
  clt_body_info_t info;
  CHECK(clt_body_get_info(w, clt_world_body_at(w, 1), &info) == CLT_OK);
  CHECK(strlen(info.name) == CLT_NAME_SIZE - 1);
  CHECK(clt_body_get_info(w, clt_world_body_at(w, 2999), &info) == CLT_OK);
  CHECK(strcmp(info.name, "grain_2999") == 0);
  for (int i = 0; i < 3000; i += 7) {
    clt_shape_def_t s;
    CHECK(clt_body_get_shape(w, clt_world_body_at(w, i), 0, &s) == CLT_OK);
    CHECK(s.radius == 0.01 * (1 + i % 500));
  }
  clt_world_destroy(w);
}

int main(void) {
  grid();
  growing_cell();
  composite();
  distinct_and_names();
  return clt_test_finish();
}
