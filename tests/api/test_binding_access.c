/* What bindings use (world.h): clt_world_states is the world's own array (the step writes it, the
 * getters read it), and clt_force_set_applied changes an applied force from the next step on: a
 * free body pushed by F for one step gains v = F h / m exactly, then coasts. Its checks: another
 * force type, a stale id, a non-finite or too large value, 2D components. */
#include <string.h>

#include "clatter/clatter.h"
#include "test_util.h"

static clt_world_t *make_world(int dimension, clt_body_id_t *body, clt_force_id_t *push, clt_force_id_t *spring) {
  clt_world_def_t wdef = clt_default_world_def();
  wdef.dimension = dimension;
  memset(wdef.gravity, 0, sizeof wdef.gravity);
  wdef.time_step = 0.01;
  clt_world_t *w = NULL;
  if (clt_world_create(&wdef, &w, NULL, 0) != CLT_OK) return NULL;
  clt_body_def_t b = clt_default_body_def();
  b.mass = 2.0;
  b.inertia[0] = 0.5;
  if (dimension == 3) b.inertia[1] = b.inertia[2] = 0.5;
  clt_body_id_t other;
  if (clt_world_add_body(w, &b, body) != CLT_OK || clt_world_add_body(w, &b, &other) != CLT_OK) return NULL;
  clt_force_def_t f = clt_default_force_def(CLT_FORCE_APPLIED);
  f.body_a = *body;
  clt_world_add_force(w, &f, push);
  clt_force_def_t s = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
  s.body_a = other; /* a spring element on another body: not an applied force */
  s.stiffness = 1.0;
  s.rest_length = 0.0;
  clt_world_add_force(w, &s, spring);
  return w;
}

int main(void) {
  clt_body_id_t body;
  clt_force_id_t push, spring;
  clt_world_t *w = make_world(3, &body, &push, &spring);
  CHECK(w != NULL);
  if (!w) return clt_test_finish();
  CHECK(clt_world_states(NULL) == NULL);
  clt_body_state_t *states = clt_world_states(w);
  CHECK(states != NULL);

  /* the force ids by index */
  CHECK(clt_world_force_at(w, 0).index == push.index && clt_world_force_at(w, 0).generation == push.generation);
  CHECK(clt_world_force_at(w, 2).index == CLT_NULL_INDEX && clt_world_force_at(NULL, 0).index == CLT_NULL_INDEX);

  /* one step pushed by F = (4, 0, 0), then the force off: v = F h / m = 0.02 m/s */
  double f[3] = {4.0, 0.0, 0.0}, zero[3] = {0.0, 0.0, 0.0};
  CHECK(clt_force_set_applied(w, push, f, zero) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_OK);
  CHECK(clt_force_set_applied(w, push, zero, zero) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t got;
  clt_body_get_state(w, body, &got);
  CHECK_NEAR(got.velocity[0], 4.0 * 0.01 / 2.0, 1e-15);
  /* the array is the world's: the step wrote it */
  CHECK(clt_world_states(w) == states);
  CHECK(memcmp(&states[0], &got, sizeof got) == 0);
  /* a torque about z: ω_z = τ h / J */
  double tau[3] = {0.0, 0.0, 1.0};
  CHECK(clt_force_set_applied(w, push, zero, tau) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_OK);
  CHECK_NEAR(states[0].angular_velocity[2], 1.0 * 0.01 / 0.5, 1e-12);

  /* refused */
  double bad[3] = {NAN, 0.0, 0.0}, big[3] = {2 * CLT_MAX_FORCE, 0.0, 0.0};
  CHECK(clt_force_set_applied(w, spring, f, zero) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "not an applied force") != NULL);
  CHECK(clt_force_set_applied(w, push, bad, zero) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_force_set_applied(w, push, zero, big) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "CLT_MAX_FORCE") != NULL);
  clt_force_id_t stale = {7, 1};
  CHECK(clt_force_set_applied(w, stale, f, zero) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_force_set_applied(w, push, NULL, zero) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_force_set_applied(NULL, push, f, zero) == CLT_ERR_INVALID_ARGUMENT);
  clt_world_destroy(w);

  /* 2D: no z force, torque only in [0] */
  w = make_world(2, &body, &push, &spring);
  CHECK(w != NULL);
  if (!w) return clt_test_finish();
  double fz[3] = {0.0, 0.0, 1.0}, t2[3] = {0.5, 0.0, 0.0};
  CHECK(clt_force_set_applied(w, push, fz, zero) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_force_set_applied(w, push, zero, fz) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_force_set_applied(w, push, zero, t2) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_OK);
  CHECK_NEAR(clt_world_states(w)[0].angular_velocity[0], 0.5 * 0.01 / 0.5, 1e-12);
  clt_world_destroy(w);
  return clt_test_finish();
}
