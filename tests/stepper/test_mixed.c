/* Joints and contacts in one step problem (SPEC.md §1, §2: the mixed LCP with free joint impulses):
 *  - 2D: a rod pinned to the world at one end rests with its other end on a frictionless floor.
 *    In equilibrium the floor carries N = m g (x_G − x_P)/(x_C − x_P) (moments about the pin P; G
 *    the centre of mass, C the contact point), the rod stays at rest and the pin holds;
 *  - 3D: a box hinged to the world along one bottom edge lies on the floor, with friction; it stays
 *    at rest with zero joint error;
 * each with Lemke (free block by its Schur complement) and block Gauss–Seidel (joint blocks). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/solvers.h"
#include "clatter/world.h"
#include "test_util.h"
#include "relaxed_util.h" /* add_pinned_rod, pinned_rod_run (shared with the relaxed tests) */

static void rod_on_floor(clt_solver_kind_t solver) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.time_step = 0.01;
  wd.gravity[1] = -9.81;
  wd.gravity[2] = 0.0;
  wd.method.solver = solver;
  wd.method.tolerance = solver == CLT_SOLVER_LEMKE ? 1e-12 : 1e-9;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, 0.0); /* frictionless floor */
  clt_body_id_t id = add_pinned_rod(w, mat); /* rod of length 2 from the pin at (0, 1) down to the floor */
  pinned_rod_t r = pinned_rod_run(w, id, wd.time_step);
  printf("  rod on floor (%s): lcp size %d, joint error %.2e, max |v| %.2e, N = %.9f (moments: %.9f)\n",
         clt_solver_kind_name(solver), r.d.lcp_size, r.d.joint_error, r.max_v, r.normal, r.expected);
  CHECK(r.bad == 0);
  CHECK(r.d.joints == 1 && r.d.contacts >= 1);
  CHECK_LE(r.d.joint_error, 1e-9);
  CHECK_LE(r.max_v, solver == CLT_SOLVER_LEMKE ? 1e-10 : 1e-7);
  CHECK_NEAR(r.normal, r.expected, 1e-6 * r.expected);
  clt_world_destroy(w);
}

static void hinged_box(clt_solver_kind_t solver) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = 0.01;
  wd.method.solver = solver;
  wd.method.tolerance = solver == CLT_SOLVER_LEMKE ? 1e-12 : 1e-9;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t floor_shape = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  floor_shape.normal[2] = 1.0;
  clt_body_def_t fd = clt_default_body_def();
  fd.type = CLT_BODY_STATIC;
  fd.shapes = &floor_shape;
  fd.shape_count = 1;
  CHECK(clt_world_add_body(w, &fd, NULL) == CLT_OK);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = 0.5;
  box.half_extents[1] = 0.3;
  box.half_extents[2] = 0.1;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[2] = 0.1;
  bd.shapes = &box;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_REVOLUTE); /* hinge along the edge x = −0.5, z = 0 */
  jd.body_a = id;
  jd.anchor_a[0] = -0.5;
  jd.anchor_a[2] = -0.1;
  jd.anchor_b[0] = -0.5;
  jd.axis_a[0] = jd.axis_b[0] = 0.0;
  jd.axis_a[1] = jd.axis_b[1] = 1.0;
  jd.axis_a[2] = jd.axis_b[2] = 0.0;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  int bad = 0;
  double max_v = 0.0, max_err = 0.0;
  clt_diagnostics_t d;
  for (int n = 0; n < 300; n++) {
    if (clt_world_step(w) != CLT_OK) bad++;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED) bad++;
    if (d.joint_error > max_err) max_err = d.joint_error;
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    double speed = 0.0;
    for (int k = 0; k < 3; k++) speed += fabs(s.velocity[k]) + fabs(s.angular_velocity[k]);
    if (n > 10 && speed > max_v) max_v = speed;
  }
  printf("  hinged box (%s): lcp size %d, contacts %d, max joint error %.2e, max |v| %.2e, penetration %.2e\n",
         clt_solver_kind_name(solver), d.lcp_size, d.contacts, max_err, max_v, d.penetration);
  CHECK(bad == 0);
  CHECK_LE(max_err, 1e-9);
  CHECK_LE(max_v, solver == CLT_SOLVER_LEMKE ? 1e-10 : 1e-6);
  CHECK_LE(d.penetration, 1e-8);
  clt_world_destroy(w);
}

int main(void) {
  rod_on_floor(CLT_SOLVER_LEMKE);
  rod_on_floor(CLT_SOLVER_BGS);
  hinged_box(CLT_SOLVER_LEMKE);
  hinged_box(CLT_SOLVER_BGS);
  return clt_test_finish();
}
