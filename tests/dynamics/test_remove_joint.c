/* Removing joints and bodies, and adding them between steps (clt_world_remove_joint,
 * clt_world_remove_body, clt_world_add_joint, clt_world_add_body):
 *  - a two-link pendulum whose lower joint is removed: from the next step on the lower link falls
 *    freely (its velocity changes by exactly g h a step) while the upper one swings on; the removed
 *    id and its copies are stale, the other joint keeps its id and index, clt_world_joint_at gives a
 *    null id at the removed index, the diagnostics count one joint;
 *  - two overlapping spheres joined by a distance joint do not touch; once it is removed they do
 *    (contacts appear and push them apart: anitescu-hart's γ = 1 removes the 5 cm overlap in one
 *    step, so they leave at 5 m/s);
 *  - a falling box pinned to the world by a joint added between two steps stops at once;
 *  - a state saved after a removal continues bit for bit in a world rebuilt the same way;
 *  - a box resting on a dynamic table falls freely once the table is removed (velocity −g h a step,
 *    no contact); a body held by a joint cannot be removed; a removed body's id is stale, its index
 *    gives a null id, it counts in no energy; a ball added between two steps lands on the floor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

static const double h = 0.01, g = 9.81;

static clt_world_t *world_3d(void) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  return w;
}

/* a link: 0.4 m long, its anchors 0.05 m beyond its ends, so that links do not touch */
static clt_body_id_t add_box(clt_world_t *w, double x, double z) {
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = 0.2;
  box.half_extents[1] = box.half_extents[2] = 0.05;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &box;
  bd.shape_count = 1;
  bd.position[0] = x;
  bd.position[2] = z;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  return id;
}

/* two links along x from a pin at the origin: link i from x = 0.5 i to 0.5 (i + 1) */
static clt_world_t *pendulum(clt_body_id_t link[2], clt_joint_id_t joint[2]) {
  clt_world_t *w = world_3d();
  for (int i = 0; i < 2; i++) link[i] = add_box(w, 0.25 + 0.5 * i, 0.0);
  for (int i = 0; i < 2; i++) {
    clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_SPHERICAL);
    jd.body_a = link[i];
    jd.anchor_a[0] = -0.25;
    if (i == 1) {
      jd.body_b = link[0];
      jd.anchor_b[0] = 0.25;
    }
    CHECK(clt_world_add_joint(w, &jd, &joint[i]) == CLT_OK);
  }
  return w;
}

static void pendulum_release(void) {
  clt_body_id_t link[2];
  clt_joint_id_t joint[2];
  clt_world_t *w = pendulum(link, joint);
  for (int n = 0; n < 40; n++) CHECK(clt_world_step(w) == CLT_OK);
  /* the impulses of the ball joints' rows (clt_joint_get_impulses, any joint type): the pin carries
   * more than the knee, which carries the lower link alone */
  double pin[9], knee[9];
  CHECK(clt_joint_get_impulses(w, joint[0], pin) == CLT_OK && clt_joint_get_impulses(w, joint[1], knee) == CLT_OK);
  double pin_n = sqrt(pin[0] * pin[0] + pin[1] * pin[1] + pin[2] * pin[2]);
  double knee_n = sqrt(knee[0] * knee[0] + knee[1] * knee[1] + knee[2] * knee[2]);
  printf("ball joints' impulses at step 40: pin %.6f N s, knee %.6f N s (the rest of their 9: %g)\n", pin_n, knee_n,
         fabs(pin[3]) + fabs(pin[6]) + fabs(pin[8]));
  CHECK(pin_n > knee_n && knee_n > 0.0);
  CHECK(pin[3] == 0.0 && pin[6] == 0.0 && pin[8] == 0.0);
  clt_joint_id_t copy = joint[1];
  CHECK(clt_world_remove_joint(w, joint[1]) == CLT_OK);
  CHECK(clt_world_remove_joint(w, copy) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_joint_get_impulses(w, copy, knee) == CLT_ERR_STALE_HANDLE);
  clt_joint_info_t info;
  CHECK(clt_joint_get_info(w, copy, &info) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_world_joint_count(w) == 2);
  clt_joint_id_t at1 = clt_world_joint_at(w, 1), at0 = clt_world_joint_at(w, 0);
  CHECK(at1.index == CLT_NULL_INDEX);
  CHECK(at0.index == joint[0].index && at0.generation == joint[0].generation);
  CHECK(clt_joint_get_info(w, joint[0], &info) == CLT_OK);
  clt_body_state_t s0, s1;
  CHECK(clt_body_get_state(w, link[1], &s0) == CLT_OK);
  double worst = 0.0;
  for (int n = 0; n < 30; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    CHECK(clt_body_get_state(w, link[1], &s1) == CLT_OK);
    worst = fmax(worst, fabs(s1.velocity[2] - s0.velocity[2] + g * h));
    worst = fmax(worst, fmax(fabs(s1.velocity[0] - s0.velocity[0]), fabs(s1.velocity[1] - s0.velocity[1])));
    s0 = s1;
  }
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  CHECK(clt_body_get_state(w, link[0], &s0) == CLT_OK);
  double spin = sqrt(s0.angular_velocity[0] * s0.angular_velocity[0] + s0.angular_velocity[1] * s0.angular_velocity[1] +
                     s0.angular_velocity[2] * s0.angular_velocity[2]);
  printf("pendulum, lower joint removed at step 40: the free link's velocity changes by -g h a step to %.2e; "
         "the upper link swings on (|omega| %.3f rad/s); joints in the diagnostics %d, joint error %.2e\n",
         worst, spin, d.joints, d.joint_error);
  CHECK(spin > 1.0);
  CHECK_LE(worst, 1e-12);
  CHECK(d.joints == 1);
  CHECK_LE(d.joint_error, 1e-3);
  clt_world_destroy(w);
}

static void collide_after_removal(void) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  wd.gravity[2] = 0.0;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t ball = clt_default_shape_def(CLT_SHAPE_SPHERE);
  ball.radius = 0.1;
  clt_body_id_t b[2];
  for (int i = 0; i < 2; i++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.shapes = &ball;
    bd.shape_count = 1;
    bd.position[0] = 0.15 * i; /* overlapping by 5 cm */
    CHECK(clt_world_add_body(w, &bd, &b[i]) == CLT_OK);
  }
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_DISTANCE);
  jd.body_a = b[0];
  jd.body_b = b[1];
  clt_joint_id_t j;
  CHECK(clt_world_add_joint(w, &jd, &j) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  int before = d.contacts;
  CHECK(clt_world_remove_joint(w, j) == CLT_OK);
  for (int n = 0; n < 20; n++) CHECK(clt_world_step(w) == CLT_OK);
  clt_world_get_diagnostics(w, &d);
  clt_body_state_t s0, s1;
  CHECK(clt_body_get_state(w, b[0], &s0) == CLT_OK && clt_body_get_state(w, b[1], &s1) == CLT_OK);
  printf("joined overlapping spheres: %d contacts with the joint; 20 steps after its removal they are %.6f m apart, "
         "penetration %.2e\n", before, s1.position[0] - s0.position[0] - 0.2, d.penetration);
  CHECK(before == 0);
  CHECK(s1.position[0] - s0.position[0] >= 0.2 - 1e-6);
  clt_world_destroy(w);
}

static void pin_between_steps(void) {
  clt_world_t *w = world_3d();
  clt_body_id_t b = add_box(w, 0.0, 1.0);
  for (int n = 0; n < 10; n++) CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t s;
  CHECK(clt_body_get_state(w, b, &s) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_FIXED);
  jd.body_a = b;
  clt_joint_id_t j;
  double z0 = s.position[2];
  jd.anchor_b[2] = z0; /* the world point where its centre is now */
  CHECK(clt_world_add_joint(w, &jd, &j) == CLT_OK);
  for (int n = 0; n < 10; n++) CHECK(clt_world_step(w) == CLT_OK);
  CHECK(clt_body_get_state(w, b, &s) == CLT_OK);
  printf("a falling box pinned between two steps: moved %.3g m in the 10 steps after, speed %.3g m/s\n",
         fabs(s.position[2] - z0), fabs(s.velocity[2]));
  CHECK_LE(fabs(s.position[2] - z0), 1e-12);
  CHECK_LE(fabs(s.velocity[2]), 1e-12);
  clt_world_destroy(w);
}

static void state_after_removal(void) {
  clt_body_id_t link[2];
  clt_joint_id_t joint[2];
  clt_world_t *a = pendulum(link, joint);
  for (int n = 0; n < 20; n++) CHECK(clt_world_step(a) == CLT_OK);
  CHECK(clt_world_remove_joint(a, joint[0]) == CLT_OK);
  for (int n = 0; n < 5; n++) CHECK(clt_world_step(a) == CLT_OK);
  size_t size = clt_world_state_size(a);
  void *blob = malloc(size);
  CHECK(blob && clt_world_save_state(a, blob, size) == CLT_OK);
  for (int n = 0; n < 20; n++) CHECK(clt_world_step(a) == CLT_OK);
  clt_world_t *b = pendulum(link, joint);
  CHECK(clt_world_remove_joint(b, joint[0]) == CLT_OK);
  CHECK(clt_world_load_state(b, blob, size) == CLT_OK);
  for (int n = 0; n < 20; n++) CHECK(clt_world_step(b) == CLT_OK);
  printf("state saved after a removal: continued hash %016llx, reference %016llx\n",
         (unsigned long long)clt_world_state_hash(b), (unsigned long long)clt_world_state_hash(a));
  CHECK(clt_world_state_hash(a) == clt_world_state_hash(b));
  free(blob);
  clt_world_destroy(a);
  clt_world_destroy(b);
}

static void body_removal(void) {
  clt_world_t *w = world_3d();
  clt_shape_def_t floor = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  clt_body_def_t fd = clt_default_body_def();
  fd.type = CLT_BODY_STATIC;
  fd.shapes = &floor;
  fd.shape_count = 1;
  CHECK(clt_world_add_body(w, &fd, NULL) == CLT_OK);
  clt_shape_def_t slab = clt_default_shape_def(CLT_SHAPE_BOX);
  slab.half_extents[0] = slab.half_extents[1] = 0.5;
  slab.half_extents[2] = 0.05;
  clt_body_def_t td = clt_default_body_def();
  td.shapes = &slab;
  td.shape_count = 1;
  td.position[2] = 0.05;
  clt_body_id_t table, cup;
  CHECK(clt_world_add_body(w, &td, &table) == CLT_OK);
  cup = add_box(w, 0.0, 0.15); /* on the table */
  for (int n = 0; n < 20; n++) CHECK(clt_world_step(w) == CLT_OK);
  /* a joint holds the table: refused */
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_SPHERICAL);
  jd.body_a = table;
  jd.anchor_b[2] = 0.05;
  clt_joint_id_t pin;
  CHECK(clt_world_add_joint(w, &jd, &pin) == CLT_OK);
  CHECK(clt_world_remove_body(w, table) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "is held by joint #0: remove the joint first") != NULL);
  CHECK(clt_world_remove_joint(w, pin) == CLT_OK);
  double ke_before = clt_world_kinetic_energy(w);
  CHECK(clt_world_remove_body(w, table) == CLT_OK);
  CHECK(clt_world_remove_body(w, table) == CLT_ERR_STALE_HANDLE);
  clt_body_state_t s;
  CHECK(clt_body_get_state(w, table, &s) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_body_id_is_null(clt_world_body_at(w, 1)));
  CHECK(clt_world_body_count(w) == 3);
  clt_body_state_t c0, c1;
  CHECK(clt_body_get_state(w, cup, &c0) == CLT_OK);
  double worst = 0.0;
  for (int n = 0; n < 10; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    CHECK(clt_body_get_state(w, cup, &c1) == CLT_OK);
    worst = fmax(worst, fabs(c1.velocity[2] - c0.velocity[2] + g * h));
    c0 = c1;
  }
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  /* a ball added now falls onto the floor */
  clt_shape_def_t ball = clt_default_shape_def(CLT_SHAPE_SPHERE);
  ball.radius = 0.1;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &ball;
  bd.shape_count = 1;
  bd.position[0] = 2.0;
  bd.position[2] = 0.5;
  clt_body_id_t added;
  CHECK(clt_world_add_body(w, &bd, &added) == CLT_OK);
  for (int n = 0; n < 100; n++) CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t a;
  CHECK(clt_body_get_state(w, added, &a) == CLT_OK);
  printf("table removed under a resting box: the box's velocity changes by -g h a step to %.2e, %d contacts (the "
         "table had %.3g J of kinetic energy before); a ball added between steps lands at z = %.6f\n",
         worst, d.contacts, ke_before, a.position[2]);
  CHECK_LE(worst, 1e-12);
  CHECK(d.contacts == 0);
  CHECK_NEAR(a.position[2], 0.1, 1e-3);
  clt_world_destroy(w);
}

int main(void) {
  body_removal();
  pendulum_release();
  collide_after_removal();
  pin_between_steps();
  state_after_removal();
  return clt_test_finish();
}
