/* Stage "diverge" (src/steppers/stage_diverge.c; docs/stepping.md "Divergence"):
 *  - a 2D two-link arm (links 1 kg, 1 m) held by explicit rotational dampers of 50 N m s/rad at
 *    h = 0.2 s blows up: CLT_ERR_DIVERGED at step 2 (energy 7.15e3 J against 100 × 6.31 J), the
 *    message naming the step, the quantity, the body and the bound, the body states of before the
 *    step kept; a factor of 1e6 lets it run one step longer (5.55e7 J at step 3); with both tests off it runs 50 steps to
 *    an energy past 1e100 J with a finite state (no test but these catches it);
 *  - the tests only read the state: the arm with implicit dampers gives the same state hash after
 *    50 steps with the tests on and off;
 *  - the infeasibility bound is the fraction times the smaller body's size: a disk of radius 0.1
 *    at rest 0.06 m deep in a half-plane (baumgarte, α = 1e-9) fails at fraction 0.5 (bound
 *    0.05 m) and passes at 0.7 (0.07 m);
 *  - the applied forces' work is allowed for: a 1 kg disk pushed by 100 N from rest for 1 000
 *    steps of 0.01 s gains 5e5 J, a hundred times the bound without it (5e3 J), and is not stopped;
 *  - a moving kinematic body turns the energy test off. */
#include <string.h>

#include "clatter/clatter.h"
#include "test_util.h"

static bool contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

static clt_world_t *arm(double damping, clt_force_treatment_t treatment, double energy_factor, double fraction,
                        bool kinematic) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.time_step = 0.2;
  wd.gravity[0] = 0.0;
  wd.gravity[1] = -9.81;
  wd.gravity[2] = 0.0;
  wd.method.divergence_energy_factor = energy_factor;
  wd.method.divergence_infeasibility_fraction = fraction;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t sd = clt_default_shape_def(CLT_SHAPE_POLYGON);
  const double v[4][2] = {{-0.5, -0.05}, {0.5, -0.05}, {0.5, 0.05}, {-0.5, 0.05}};
  memcpy(sd.vertices, v, sizeof v);
  sd.vertex_count = 4;
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = 0.0833;
  bd.shapes = &sd;
  bd.shape_count = 1;
  bd.position[0] = 0.5;
  bd.name = "upper";
  clt_body_id_t upper, fore;
  CHECK(clt_world_add_body(w, &bd, &upper) == CLT_OK);
  bd.position[0] = 1.5;
  bd.name = "fore";
  CHECK(clt_world_add_body(w, &bd, &fore) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = upper;
  jd.anchor_a[0] = -0.5;
  jd.name = "shoulder";
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  jd.body_b = fore;
  jd.anchor_a[0] = 0.5;
  jd.anchor_b[0] = -0.5;
  jd.name = "elbow";
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_ROTATIONAL_SPRING_DAMPER);
  fd.body_a = upper;
  fd.damping = damping;
  fd.treatment = treatment;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  fd.body_b = fore;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  if (kinematic) { /* a conveyor far away, touching nothing */
    clt_body_def_t kd = clt_default_body_def();
    kd.type = CLT_BODY_KINEMATIC;
    kd.position[1] = -100.0;
    kd.motion.velocity[0] = 1.0;
    kd.shapes = &sd;
    kd.shape_count = 1;
    CHECK(clt_world_add_body(w, &kd, NULL) == CLT_OK);
  }
  return w;
}

/* Steps until a failure or `steps` steps; returns the status, *taken = steps that succeeded. */
static clt_status_t run(clt_world_t *w, int steps, int *taken) {
  clt_status_t st = CLT_OK;
  *taken = 0;
  while (*taken < steps && (st = clt_world_step(w)) == CLT_OK) (*taken)++;
  return st;
}

static void explicit_arm(void) {
  clt_world_t *w = arm(50.0, CLT_TREAT_EXPLICIT, 100.0, 0.5, false);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t before[2], after[2];
  for (int i = 0; i < 2; i++) clt_body_get_state(w, clt_world_body_at(w, i), &before[i]);
  clt_status_t st = clt_world_step(w);
  const char *msg = clt_world_error(w);
  printf("explicit arm, defaults: %s: %s\n", clt_status_name(st), msg);
  CHECK(st == CLT_ERR_DIVERGED);
  CHECK(contains(msg, "step 2: the simulation diverged: energy (kinetic + gravity) 7.15e+03 J"));
  CHECK(contains(msg, "past the bound 631 J (divergence_energy_factor 100 x energy scale 6.31 J"));
  CHECK(contains(msg, "most of it in body 'fore'"));
  CHECK(clt_world_step_count(w) == 1);
  for (int i = 0; i < 2; i++) clt_body_get_state(w, clt_world_body_at(w, i), &after[i]);
  CHECK(memcmp(before, after, sizeof before) == 0); /* the body states of before the step */
  CHECK(strcmp(clt_status_name(st), "diverged") == 0);
  clt_world_destroy(w);

  int taken;
  w = arm(50.0, CLT_TREAT_EXPLICIT, 1e6, 0.0, false);
  st = run(w, 50, &taken);
  printf("explicit arm, factor 1e6: %s after %d steps: %s\n", clt_status_name(st), taken, clt_world_error(w));
  CHECK(st == CLT_ERR_DIVERGED && taken == 2);
  CHECK(contains(clt_world_error(w), "step 3: the simulation diverged: energy (kinetic + gravity) 5.55e+07 J"));
  clt_world_destroy(w);

  w = arm(50.0, CLT_TREAT_EXPLICIT, 0.0, 0.0, false);
  st = run(w, 50, &taken);
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  printf("explicit arm, tests off: %s after %d steps, energy %.3g J, joint error %.3g m\n", clt_status_name(st),
         taken, d.kinetic_energy + d.potential_energy, d.joint_error);
  CHECK(st == CLT_OK && taken == 50);
  CHECK(d.kinetic_energy > 1e100 && isfinite(d.kinetic_energy));
  clt_world_destroy(w);

  /* a moving kinematic body: no energy test (the infeasibility one is off here too) */
  w = arm(50.0, CLT_TREAT_EXPLICIT, 100.0, 0.0, true);
  st = run(w, 10, &taken);
  CHECK(st == CLT_OK && taken == 10);
  clt_world_destroy(w);
}

static void implicit_arm_unchanged(void) {
  int taken;
  clt_world_t *on = arm(50.0, CLT_TREAT_IMPLICIT, 100.0, 0.5, false);
  clt_world_t *off = arm(50.0, CLT_TREAT_IMPLICIT, 0.0, 0.0, false);
  CHECK(run(on, 50, &taken) == CLT_OK && taken == 50);
  CHECK(run(off, 50, &taken) == CLT_OK && taken == 50);
  CHECK(clt_world_state_hash(on) == clt_world_state_hash(off));
  clt_diagnostics_t d;
  clt_world_get_diagnostics(on, &d);
  printf("implicit arm: 50 steps, joint error %.3g m\n", d.joint_error);
  clt_world_destroy(on);
  clt_world_destroy(off);
}

static clt_world_t *disk_world(double fraction, double gravity, double *y) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.time_step = 0.01;
  wd.gravity[0] = wd.gravity[1] = wd.gravity[2] = 0.0;
  wd.gravity[1] = gravity;
  /* baumgarte with a correction too small to matter in a step: the infeasibility test applies to
   * the schemes that correct positions */
  wd.method.scheme = CLT_SCHEME_BAUMGARTE;
  wd.method.alpha = 1e-9;
  wd.method.divergence_infeasibility_fraction = fraction;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t floor = clt_default_shape_def(CLT_SHAPE_HALFPLANE);
  floor.normal[1] = 1.0;
  clt_body_def_t bd = clt_default_body_def();
  bd.type = CLT_BODY_STATIC;
  bd.shapes = &floor;
  bd.shape_count = 1;
  bd.name = "floor";
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_OK);
  clt_shape_def_t disk = clt_default_shape_def(CLT_SHAPE_DISK);
  disk.radius = 0.1;
  bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = 0.005;
  bd.shapes = &disk;
  bd.shape_count = 1;
  bd.position[1] = *y;
  bd.name = "puck";
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  return w;
}

static void infeasibility_bound(void) {
  double y = 0.04; /* 0.06 m deep */
  clt_world_t *w = disk_world(0.5, 0.0, &y);
  clt_status_t st = clt_world_step(w);
  printf("disk 0.06 m deep, fraction 0.5: %s: %s\n", clt_status_name(st), clt_world_error(w));
  CHECK(st == CLT_ERR_DIVERGED);
  CHECK(contains(clt_world_error(w), "step 1: the simulation diverged: penetration 0.06 m between body 'floor' and "
                                     "body 'puck', past the bound 0.05 m (divergence_infeasibility_fraction 0.5 x size "
                                     "0.1 m of body 'puck')"));
  CHECK(clt_world_step_count(w) == 0);
  clt_world_destroy(w);
  w = disk_world(0.7, 0.0, &y);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  CHECK_NEAR(d.penetration, 0.06, 1e-9);
  clt_world_destroy(w);
}

static void applied_work(void) {
  double y = 5.0;
  clt_world_t *w = disk_world(0.5, 0.0, &y);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = clt_world_body_at(w, 1);
  fd.force[0] = 100.0;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  int taken;
  clt_status_t st = run(w, 1000, &taken);
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  /* bound without the work: 100 × ½ (0.1 / 0.01)² = 5e3 J */
  printf("pushed disk: %s after %d steps, kinetic energy %.4g J\n", clt_status_name(st), taken, d.kinetic_energy);
  CHECK(st == CLT_OK && taken == 1000);
  CHECK(d.kinetic_energy > 50.0 * 5e3);
  clt_world_destroy(w);
}

int main(void) {
  explicit_arm();
  implicit_arm_unchanged();
  infeasibility_bound();
  applied_work();
  return clt_test_finish();
}
