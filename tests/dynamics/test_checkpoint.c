/* Checkpoints (clt_world_save_state / load_state) and determinism: a continuation from a saved
 * state is bit-identical to the uninterrupted run (hash and memcmp of the states), two identical
 * worlds stay identical, and a state of a different world is refused. */
#include <stdlib.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

/* A world exercising everything mutable: composite body, explicit spring to the ground and between
 * bodies, sinusoidal applied force, semi-implicit gyroscopic, a kinematic body, a static one. */
static clt_world_t *build(int dim) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  wd.time_step = 2e-3;
  if (dim == 2) {
    wd.gravity[2] = 0.0;
    wd.gravity[1] = -9.81;
  }
  wd.method.gyroscopic = CLT_GYRO_SEMI_IMPLICIT;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t s[2];
  clt_body_def_t bd = clt_default_body_def();
  if (dim == 3) {
    s[0] = clt_default_shape_def(CLT_SHAPE_BOX);
    s[1] = clt_default_shape_def(CLT_SHAPE_SPHERE);
    s[1].local_position[0] = 0.7;
    s[1].local_position[1] = 0.2;
    bd.angular_velocity[0] = 2.0;
    bd.angular_velocity[1] = -1.0;
    bd.angular_velocity[2] = 0.5;
  } else {
    s[0] = clt_default_shape_def(CLT_SHAPE_POLYGON);
    s[1] = clt_default_shape_def(CLT_SHAPE_DISK);
    s[1].local_position[0] = 0.7;
    bd.angular_velocity[0] = 2.0;
  }
  bd.shapes = s;
  bd.shape_count = 2;
  bd.velocity[0] = 0.3;
  clt_body_id_t a, b, k;
  CHECK(clt_world_add_body(w, &bd, &a) == CLT_OK);
  bd.position[0] = 2.0;
  bd.shape_count = 1;
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  clt_body_def_t kd = clt_default_body_def();
  kd.type = CLT_BODY_KINEMATIC;
  kd.motion.amplitude[1] = 0.1;
  kd.motion.frequency = 3.0;
  CHECK(clt_world_add_body(w, &kd, &k) == CLT_OK);
  kd = clt_default_body_def();
  kd.type = CLT_BODY_STATIC;
  CHECK(clt_world_add_body(w, &kd, NULL) == CLT_OK);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
  fd.body_a = a;
  fd.body_b = b;
  fd.anchor_a[1] = 0.2;
  fd.stiffness = 100.0;
  fd.damping = 1.0;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  fd.body_a = b;
  fd.body_b = clt_world_ground();
  fd.anchor_b[1] = 3.0;
  fd.rest_length = 1.0;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = a;
  fd.force_amplitude[0] = 20.0;
  fd.frequency = 1.0 / (2.0 * 3.14159265358979323846);
  fd.torque_amplitude[0] = 1.0;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  return w;
}

static void run(int dim) {
  clt_world_t *w1 = build(dim), *w2 = build(dim);
  CHECK(clt_world_state_hash(w1) == clt_world_state_hash(w2));
  for (int n = 0; n < 300; n++) {
    CHECK(clt_world_step(w1) == CLT_OK);
    CHECK(clt_world_step(w2) == CLT_OK);
  }
  CHECK(clt_world_state_hash(w1) == clt_world_state_hash(w2));

  size_t size = clt_world_state_size(w1);
  unsigned char *checkpoint = malloc(size), *end1 = malloc(size), *end2 = malloc(size);
  CHECK(clt_world_save_state(w1, checkpoint, size) == CLT_OK);
  CHECK(clt_world_save_state(w1, checkpoint, size - 1) == CLT_ERR_INVALID_ARGUMENT);
  uint64_t hash_at_checkpoint = clt_world_state_hash(w1);
  for (int n = 0; n < 500; n++) CHECK(clt_world_step(w1) == CLT_OK);
  CHECK(clt_world_save_state(w1, end1, size) == CLT_OK);
  uint64_t hash1 = clt_world_state_hash(w1);
  CHECK(hash1 != hash_at_checkpoint);

  /* resume in a fresh world built from the same description */
  clt_world_t *w3 = build(dim);
  CHECK(clt_world_load_state(w3, checkpoint, size) == CLT_OK);
  CHECK(clt_world_state_hash(w3) == hash_at_checkpoint);
  CHECK(clt_world_step_count(w3) == 300);
  for (int n = 0; n < 500; n++) CHECK(clt_world_step(w3) == CLT_OK);
  CHECK(clt_world_save_state(w3, end2, size) == CLT_OK);
  CHECK(clt_world_state_hash(w3) == hash1);
  CHECK(memcmp(end1, end2, size) == 0);
  clt_diagnostics_t d1, d3;
  clt_world_get_diagnostics(w1, &d1);
  clt_world_get_diagnostics(w3, &d3);
  CHECK(d1.step == 800 && d3.step == 800);
  CHECK(d1.kinetic_energy == d3.kinetic_energy && d1.potential_energy == d3.potential_energy);

  /* rewind the same world and replay */
  CHECK(clt_world_load_state(w2, checkpoint, size) == CLT_OK);
  for (int n = 0; n < 500; n++) clt_world_step(w2);
  CHECK(clt_world_state_hash(w2) == hash1);
  printf("%dD: state %zu bytes, hash after 800 steps %016llx\n", dim, size, (unsigned long long)hash1);

  /* refused: a different world, a corrupted blob */
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  if (dim == 2) wd.gravity[2] = 0.0;
  clt_world_t *other = NULL;
  clt_world_create(&wd, &other, NULL, 0);
  CHECK(clt_world_load_state(other, checkpoint, size) == CLT_ERR_FORMAT);
  clt_world_destroy(other);
  checkpoint[0] ^= 0xff;
  uint64_t before = clt_world_state_hash(w2);
  CHECK(clt_world_load_state(w2, checkpoint, size) == CLT_ERR_FORMAT);
  CHECK(clt_world_state_hash(w2) == before);
  free(checkpoint);
  free(end1);
  free(end2);
  clt_world_destroy(w1);
  clt_world_destroy(w2);
  clt_world_destroy(w3);
}

int main(void) {
  run(2);
  run(3);
  return clt_test_finish();
}
