/* LAPACK is opened when a world is given its first joint (clt_algebra_prepare, base/algebra.h), not
 * inside the first step: a world without joints never maps it (a granular run keeps its memory),
 * and one with a joint has it mapped before it steps (a control loop's first step does not stall
 * on the library's load). Asked of the dynamic linker (RTLD_NOLOAD) by the SONAME clatter opens. */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include <dlfcn.h>
#include <string.h>

#include "base/algebra.h"
#include "clatter/clatter.h"
#include "test_util.h"

static int mapped(const char *soname) {
  void *handle = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
  if (!handle) return 0;
  dlclose(handle);
  return 1;
}

int main(void) {
  const char *soname = clt_algebra_library();
  clt_world_def_t wdef = clt_default_world_def();
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wdef, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t sphere = clt_default_shape_def(CLT_SHAPE_SPHERE);
  sphere.radius = 0.1;
  clt_body_def_t b = clt_default_body_def();
  b.shapes = &sphere;
  b.shape_count = 1;
  clt_body_id_t a_id, b_id;
  CHECK(clt_world_add_body(w, &b, &a_id) == CLT_OK);
  b.position[0] = 0.5;
  CHECK(clt_world_add_body(w, &b, &b_id) == CLT_OK);
  for (int i = 0; i < 5; i++) CHECK(clt_world_step(w) == CLT_OK);
  CHECK(mapped(soname) == 0); /* bodies alone: never */
  clt_joint_def_t j = clt_default_joint_def(CLT_JOINT_SPHERICAL);
  j.body_a = a_id;
  j.body_b = b_id;
  j.anchor_a[0] = 0.25;
  j.anchor_b[0] = -0.25;
  CHECK(clt_world_add_joint(w, &j, NULL) == CLT_OK);
  CHECK(mapped(soname) == 1); /* the joint: before any step */
  CHECK(clt_algebra_error() == NULL);
  for (int i = 0; i < 5; i++) CHECK(clt_world_step(w) == CLT_OK);
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  CHECK(d.joint_error < 1e-9);
  clt_world_destroy(w);
  return clt_test_finish();
}
