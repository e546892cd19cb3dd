/* Failed solves and non-finite states (issue 4 acceptance; SPEC.md §2 "Residual", §7): a step whose
 * solver misses the tolerance is reported in the diagnostics with its status and residual (policy
 * `record`), or stops the run with CLT_ERR_SOLVER and the state of before the step (`abort`); a
 * solver that does not apply to the friction LCP (APGD) is refused with CLT_ERR_UNSUPPORTED; a
 * state that becomes non-finite stops with a message naming the step and the body. */
#include <math.h>
#include <string.h>

#include "clatter/world.h"
#include "plant_state.h"
#include "test_util.h"

/* A world of step h whose solver gets one iteration towards tolerance 1e-14, with a floor z = 0. */
static clt_world_t *floor_world(clt_world_def_t wd, double h, clt_on_unconverged_t policy) {
  wd.time_step = h;
  wd.method.max_iterations = 1;
  wd.method.tolerance = 1e-14;
  wd.method.on_unconverged = policy;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  plane.normal[2] = 1.0;
  clt_body_def_t gd = clt_default_body_def();
  gd.type = CLT_BODY_STATIC;
  gd.shapes = &plane;
  gd.shape_count = 1;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
  return w;
}

static clt_world_t *box_on_plane(clt_on_unconverged_t policy, clt_solver_kind_t solver) {
  clt_world_def_t wd = clt_default_world_def();
  wd.method.solver = solver;
  wd.method.friction_cone = CLT_CONE_POLYHEDRAL; /* the row stages' LCP */
  clt_world_t *w = floor_world(wd, 0.01, policy);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = box.half_extents[1] = box.half_extents[2] = 0.5;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[2] = 0.5;
  bd.shapes = &box;
  bd.shape_count = 1;
  bd.name = "crate";
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_OK);
  return w;
}

/* Spheres of radius 0.05 in a 4 × 4 × 2 block resting on a floor, slightly overlapping it and each
 * other, scheme relaxed (whose steps keep the state before them in two parts: stepper.h,
 * late_backup). */
static clt_world_t *relaxed_block(clt_on_unconverged_t policy, double h) {
  clt_world_def_t wd = clt_default_world_def();
  wd.method.scheme = CLT_SCHEME_RELAXED;
  wd.method.solver = CLT_SOLVER_BGS;
  wd.method.friction_cone = CLT_CONE_CIRCULAR;
  clt_world_t *w = floor_world(wd, h, policy);
  clt_shape_def_t ball = clt_default_shape_def(CLT_SHAPE_SPHERE);
  ball.radius = 0.05;
  for (int k = 0; k < 32; k++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.position[0] = 0.0999 * (k % 4);
    bd.position[1] = 0.0999 * (k / 4 % 4);
    bd.position[2] = 0.0499 + 0.0999 * (k / 16);
    bd.velocity[0] = 0.01 * (k % 3);
    bd.angular_velocity[2] = 0.1 * (k % 5);
    bd.shapes = &ball;
    bd.shape_count = 1;
    CHECK(clt_world_add_body(w, &bd, NULL) == CLT_OK);
  }
  return w;
}

int main(void) {
  /* relaxed, abort: the solve fails before stage "backup" (the positions have not moved, the
   * velocities have): the state of before the step, and the next step runs from it */
  clt_world_t *w = relaxed_block(CLT_UNCONVERGED_ABORT, 0.01);
  uint64_t hash = clt_world_state_hash(w);
  CHECK(clt_world_step(w) == CLT_ERR_SOLVER);
  CHECK(clt_world_step_count(w) == 0);
  CHECK(clt_world_state_hash(w) == hash);
  CHECK(clt_world_step(w) == CLT_ERR_SOLVER);
  CHECK(clt_world_state_hash(w) == hash);
  clt_world_destroy(w);
  /* relaxed, a state that becomes non-finite in stage "integrate" (after stage "backup"): the
   * poses and velocities of before the step */
  w = relaxed_block(CLT_UNCONVERGED_RECORD, 10.0);
  clt_body_state_t s0, s1;
  CHECK(clt_body_get_state(w, clt_world_body_at(w, 5), &s0) == CLT_OK);
  s0.velocity[2] = 1.7e308;
  s0.position[2] = 50.0; /* (free: no contact) */
  /* past CLT_MAX_SPEED: the API refuses it, a diverging run gets there (plant_state.h) */
  CHECK(clt_body_set_state(w, clt_world_body_at(w, 5), &s0) == CLT_ERR_INVALID_ARGUMENT);
  clt_test_plant_state(w, clt_world_body_at(w, 5), &s0);
  hash = clt_world_state_hash(w);
  CHECK(clt_world_step(w) == CLT_ERR_DIVERGED);
  CHECK(strstr(clt_world_error(w), "became non-finite") != NULL); /* (stage "commit") */
  CHECK(clt_world_step_count(w) == 0);
  CHECK(clt_world_state_hash(w) == hash);
  CHECK(clt_body_get_state(w, clt_world_body_at(w, 5), &s1) == CLT_OK);
  CHECK(memcmp(&s0, &s1, sizeof s0) == 0);
  clt_world_destroy(w);

  /* record: the step goes on, the diagnostics say what happened */
  w = box_on_plane(CLT_UNCONVERGED_RECORD, CLT_SOLVER_BGS);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  CHECK(d.solver_status == CLT_SOLVE_MAX_ITERATIONS);
  CHECK(d.iterations == 1);
  CHECK(d.residual > 1e-14 && isfinite(d.residual));
  CHECK(d.contacts == 4);
  clt_world_destroy(w);

  /* abort: CLT_ERR_SOLVER, the state of before the step */
  w = box_on_plane(CLT_UNCONVERGED_ABORT, CLT_SOLVER_BGS);
  hash = clt_world_state_hash(w);
  CHECK(clt_world_step(w) == CLT_ERR_SOLVER);
  CHECK(strstr(clt_world_error(w), "step 1") != NULL);
  CHECK(strstr(clt_world_error(w), "max_iterations") != NULL);
  CHECK(clt_world_step_count(w) == 0);
  CHECK(clt_world_state_hash(w) == hash);
  clt_world_destroy(w);

  /* a solver that does not apply (APGD needs a symmetric matrix; the friction LCP is not) */
  w = box_on_plane(CLT_UNCONVERGED_RECORD, CLT_SOLVER_APGD);
  CHECK(clt_world_step(w) == CLT_ERR_UNSUPPORTED);
  CHECK(strstr(clt_world_error(w), "method.solver apgd cannot solve the step problem") != NULL);
  CHECK(clt_world_step_count(w) == 0);
  clt_world_destroy(w);

  /* non-finite: a jointed body at 1.7e308 m/s across its joint, h = 10 s: the position overflows;
   * the step names the step and the body and keeps the state of before */
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = 10.0;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 1.0;
  bd.position[0] = 1.0;
  bd.velocity[1] = 1.7e308;
  bd.name = "comet";
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_ERR_INVALID_ARGUMENT); /* past CLT_MAX_SPEED */
  bd.velocity[1] = 0.0;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_body_state_t comet;
  CHECK(clt_body_get_state(w, id, &comet) == CLT_OK);
  comet.velocity[1] = 1.7e308;
  clt_test_plant_state(w, id, &comet);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_DISTANCE);
  jd.body_a = id;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  clt_status_t st = CLT_OK;
  for (int n = 0; n < 3 && st == CLT_OK; n++) st = clt_world_step(w);
  CHECK(st == CLT_ERR_DIVERGED);
  CHECK(strstr(clt_world_error(w), "body 'comet'") != NULL);
  CHECK(strstr(clt_world_error(w), "step 1:") != NULL);
  CHECK(clt_world_step_count(w) == 0);
  clt_body_state_t s;
  clt_body_get_state(w, id, &s);
  CHECK(isfinite(s.position[0]) && isfinite(s.velocity[1]));
  clt_world_destroy(w);
  return clt_test_finish();
}
