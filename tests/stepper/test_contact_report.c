/* The contact report (clt_world_get_contact; docs/stepping.md "Contact report"): entries are made
 * where they are read, from the step's contacts and impulses (src/steppers/rows.h report_lazy).
 * A box resting on a floor, pushed sideways below the sliding force: for every scheme the report
 * gives the dynamics step's impulses — Σ c_n = m g h and a tangential impulse equal to the push
 * — also for `post`, whose position projection after the step overwrites the contacts and the
 * solution the report is made from (it keeps a copy first); the same entries when read twice, and
 * none after clt_world_load_state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

static void resting_box(clt_scheme_t scheme) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = 0.01;
  wd.method.scheme = scheme;
  wd.method.friction_directions = 8;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_material_def_t md = clt_default_material_def();
  md.friction = 0.5;
  md.density = 1000.0;
  int mat = -1;
  CHECK(clt_world_add_material(w, &md, &mat) == CLT_OK);
  clt_shape_def_t floor_shape = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  floor_shape.material = mat;
  clt_body_def_t fd = clt_default_body_def();
  fd.type = CLT_BODY_STATIC;
  fd.shapes = &floor_shape;
  fd.shape_count = 1;
  CHECK(clt_world_add_body(w, &fd, NULL) == CLT_OK);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = box.half_extents[1] = box.half_extents[2] = 0.1;
  box.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &box;
  bd.shape_count = 1;
  bd.position[2] = 0.1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  double mass = 1000.0 * 0.2 * 0.2 * 0.2, g = -wd.gravity[2], h = wd.time_step;
  double push = 0.2 * 0.5 * mass * g; /* below μ m g: the box sticks */
  clt_force_def_t f = clt_default_force_def(CLT_FORCE_APPLIED);
  f.body_a = id;
  f.force[0] = push;
  clt_force_id_t fid;
  CHECK(clt_world_add_force(w, &f, &fid) == CLT_OK);
  for (int k = 0; k < 20; k++) CHECK(clt_world_step(w) == CLT_OK);
  int n = clt_world_contact_count(w);
  CHECK(n >= 4);
  double cn = 0.0, impulse[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < n; i++) {
    clt_contact_info_t a, b;
    CHECK(clt_world_get_contact(w, i, &a) == CLT_OK);
    CHECK(clt_world_get_contact(w, i, &b) == CLT_OK);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(a.body_a == 0 || a.body_b == 0);
    CHECK_LE(fabs(a.normal[2]), 1.0 + 1e-12);
    cn += a.normal_impulse;
    double sign = a.body_b == 1 ? 1.0 : -1.0; /* impulse on the box */
    for (int k = 0; k < 3; k++) impulse[k] += sign * a.impulse[k];
  }
  printf("scheme %d: %d contacts, sum c_n = %.9g (m g h = %.9g), tangential %.9g (push h = %.9g)\n", (int)scheme,
         n, cn, mass * g * h, impulse[0], -push * h);
  CHECK_NEAR(cn, mass * g * h, 1e-6 * mass * g * h);
  CHECK_NEAR(impulse[2], mass * g * h, 1e-6 * mass * g * h);
  CHECK_NEAR(impulse[0], -push * h, 1e-6 * mass * g * h);
  clt_contact_info_t info;
  CHECK(clt_world_get_contact(w, n, &info) == CLT_ERR_INVALID_ARGUMENT);
  /* not part of the state */
  size_t size = clt_world_state_size(w);
  void *blob = malloc(size);
  CHECK(clt_world_save_state(w, blob, size) == CLT_OK);
  CHECK(clt_world_load_state(w, blob, size) == CLT_OK);
  CHECK(clt_world_contact_count(w) == 0);
  CHECK(clt_world_step(w) == CLT_OK);
  CHECK(clt_world_contact_count(w) == n);
  free(blob);
  clt_world_destroy(w);
}

int main(void) {
  resting_box(CLT_SCHEME_ANITESCU_HART);
  resting_box(CLT_SCHEME_POST);
  resting_box(CLT_SCHEME_RELAXED);
  return clt_test_finish();
}
