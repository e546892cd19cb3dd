/* Scheme `relaxed` with the coloured cone block Gauss–Seidel (method.solver bgs; SPEC.md §2.2 on
 * the dual of the §2.3 QP; src/steppers/relaxed_bgs.c):
 *  - a sphere resting on a plane stays at rest;
 *  - a box sliding on a plane decelerates at μg on average (polyhedral and circular cone);
 *  - 50 spheres dropped into a box: every solve reaches the tolerance, penetration < 1 % of r;
 *  - over-relaxation (ω = 1.5, the fast kernel on the circular cone and the generic one): the same
 *    step as ω = 1 to the tolerance, in fewer sweeps; a whole pile run solves and rests;
 *  - the sphere layout of the blocks (a sphere pile on the circular cone: lever arms along the
 *    normal, world-frame angular velocities) gives APGD's step, whose rows are the general ones,
 *    within 1e-8 m/s; the boxes' and the polyhedral cone's solves keep the general layout; a sphere
 *    turned far from the identity rolls down a 20° incline at 5/7 g sin θ with ω = n × v / r;
 *  - the circular cone: a block pushed at 0°…45° slides in the push direction within 0.1°;
 *  - bit-identical results for 1 and 2 OpenMP threads on a layer large enough for the parallel
 *    coloured sweeps, and after checkpoint/resume;
 *  - an unconverged solve is reported as such; a joint inside the QP (free multipliers);
 *  - a stack of 3 boxes stands (non-diagonal contact blocks: the local solve iterates);
 *  - method.absolute_tolerance: the unscaled stop test is the stricter one in a landing step, and a
 *    pile run with it solves every step and stays within 1 % of r; method.velocity_tolerance caps
 *    the scaled test (at the tolerance itself it is the absolute test in that step; far above it,
 *    the scaled one).
 * The builders and the bodies that differ only in the solver (rest, cone, fail, joint) are in
 * relaxed_util.h, shared with test_relaxed.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/world.h"
#include "dynamics/world_internal.h"
#include "math/vec.h"
#include "steppers/relaxed.h"
#include "test_util.h"
#include "relaxed_util.h" /* builders and the bodies shared with test_relaxed.c */

/* A box launched at v0 along t₁ on a plane: 4 corner contacts, blocks that are not diagonal. */
static void sliding_box(clt_friction_cone_t cone, double mu) {
  const double h = 0.01, v0 = 1.0, g = 9.81;
  relaxed_slide_t r = relaxed_sliding_box(CLT_SOLVER_BGS, cone, -1.0, h, mu, v0); /* default active set ε */
  const double a = r.decel;
  printf("sliding box (bgs, %s cone, mu = %.2f): deceleration %.5f m/s^2 = %.4f mu g, lateral |v_x| %.2g, "
         "unsolved %d\n",
         relaxed_cone_name(cone), mu, a, a / (mu * g), r.lateral, r.unsolved);
  CHECK(r.samples > 10);
  CHECK(r.unsolved == 0);
  CHECK_NEAR(a, mu * g, 0.03 * mu * g);
  CHECK_LE(r.lateral, 1e-9);
}

/* 50 spheres (5×5×2 grid) dropped into a 0.6 m × 0.6 m box. */
static clt_world_t *pile_world_relaxation(clt_friction_cone_t cone, clt_solver_kind_t solver, double tolerance,
                                          double omega) {
  clt_world_def_t wd = relaxed_def(0.01, solver);
  wd.method.friction_cone = cone;
  wd.method.tolerance = tolerance;
  wd.method.max_iterations = 200000;
  wd.method.relaxation = omega;
  return relaxed_pile_world(&wd);
}

static clt_world_t *pile_world_with(clt_friction_cone_t cone, clt_solver_kind_t solver, double tolerance) {
  return pile_world_relaxation(cone, solver, tolerance, 1.0);
}

static clt_world_t *pile_world(clt_friction_cone_t cone) { return pile_world_with(cone, CLT_SOLVER_BGS, 1e-4); }

static void pile(clt_friction_cone_t cone) {
  clt_world_t *w = pile_world(cone);
  relaxed_pile_t r = relaxed_pile_run(w, true, "sweeps");
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  printf("pile of 50 spheres (bgs, %s, tolerance 1e-4): max penetration %.3g m (%.4f %% of r), contacts %d, "
         "KE end/peak %.3g, sweeps max %d mean %.1f, unsolved steps %d\n",
         cone == CLT_CONE_CIRCULAR ? "circular" : "polyhedral m_C = 8", r.pen, 100.0 * r.pen / 0.05, d.contacts,
         r.ke / r.ke_peak, r.iters, (double)r.total / 150.0, r.unsolved);
  CHECK_LE(r.pen, 0.01 * 0.05);
  CHECK_LE(r.ke, 1e-4 * r.ke_peak);
  CHECK(r.unsolved == 0);
  clt_world_destroy(w);
}

/* Loads a saved state into w, takes one step and returns its diagnostics. */
static clt_diagnostics_t step_from(clt_world_t *w, const unsigned char *blob, size_t size) {
  clt_diagnostics_t d;
  CHECK(clt_world_load_state(w, blob, size) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_world_get_diagnostics(w, &d);
  return d;
}

/* method.absolute_tolerance: the stop test without the 1 + ‖b‖∞ scale. From the same state, in the
 * step of the pile's run with the most sweeps under the scaled test (the second layer landing: ‖b‖∞
 * about its speed, so the scaled test is the looser one), the absolute test takes more sweeps and
 * both solve; a whole run with it solves every step, penetrates < 1 % of r and comes to rest. */
static void absolute_tolerance(void) {
  const double tol = 1e-3;
  clt_world_def_t wd = relaxed_def(0.01, CLT_SOLVER_BGS);
  wd.method.friction_cone = CLT_CONE_CIRCULAR;
  wd.method.tolerance = tol;
  wd.method.max_iterations = 200000;
  clt_world_t *rel = relaxed_pile_world(&wd);
  wd.method.absolute_tolerance = true;
  clt_world_t *abs_w = relaxed_pile_world(&wd), *run = relaxed_pile_world(&wd);
  static unsigned char blob[1 << 16], best_blob[1 << 16];
  size_t best_size = 0;
  int best_sweeps = -1, best_step = 0;
  for (int n = 0; n < 40; n++) {
    size_t size = clt_world_state_size(rel);
    CHECK(size <= sizeof blob && clt_world_save_state(rel, blob, sizeof blob) == CLT_OK);
    CHECK(clt_world_step(rel) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(rel, &d);
    if (d.iterations > best_sweeps) {
      best_sweeps = d.iterations;
      best_step = n + 1;
      best_size = size;
      memcpy(best_blob, blob, size);
    }
  }
  clt_diagnostics_t dr = step_from(rel, best_blob, best_size), da = step_from(abs_w, best_blob, best_size);
  relaxed_pile_t r = relaxed_pile_run(run, true, "sweeps");
  printf("absolute tolerance %.0e: step %d of the pile (%d contacts): sweeps %d scaled test, %d absolute "
         "(residual %.3g / %.3g, both scaled); whole run: max penetration %.3g m, KE end/peak %.3g, sweeps mean "
         "%.1f, unsolved %d\n",
         tol, best_step, dr.contacts, dr.iterations, da.iterations, dr.residual, da.residual, r.pen,
         r.ke / r.ke_peak, (double)r.total / 150.0, r.unsolved);
  CHECK(dr.iterations == best_sweeps); /* the reload repeats the step */
  CHECK(dr.solver_status == CLT_SOLVE_SOLVED && da.solver_status == CLT_SOLVE_SOLVED);
  CHECK(da.iterations > dr.iterations);
  CHECK_LE(da.residual, dr.residual);
  CHECK_LE(r.pen, 0.01 * 0.05);
  CHECK_LE(r.ke, 1e-4 * r.ke_peak);
  CHECK(r.unsolved == 0);
  /* method.velocity_tolerance caps the scaled test: at the tolerance itself it is the absolute test
   * in this step (‖b‖∞ > 0), and far above every scaled tolerance it changes nothing. */
  wd.method.absolute_tolerance = false;
  wd.method.velocity_tolerance = tol;
  clt_world_t *cap = relaxed_pile_world(&wd);
  wd.method.velocity_tolerance = 1e9;
  clt_world_t *loose = relaxed_pile_world(&wd);
  clt_diagnostics_t dc = step_from(cap, best_blob, best_size), dl = step_from(loose, best_blob, best_size);
  printf("velocity tolerance: %.0e: sweeps %d (absolute test %d), residual %.3g (%.3g); 1e9: sweeps %d "
         "(scaled test %d)\n",
         tol, dc.iterations, da.iterations, dc.residual, da.residual, dl.iterations, dr.iterations);
  CHECK(dc.iterations == da.iterations && dc.residual == da.residual);
  CHECK(dl.iterations == dr.iterations && dl.residual == dr.residual);
  clt_world_destroy(cap);
  clt_world_destroy(loose);
  clt_world_destroy(rel);
  clt_world_destroy(abs_w);
  clt_world_destroy(run);
}

/* Max velocity difference of two worlds with the same bodies (angular parts weighted by r = 0.05). */
static double velocity_difference(clt_world_t *a, clt_world_t *b, double *vmax) {
  double dv = 0.0;
  *vmax = 0.0;
  for (int i = 0; i < clt_world_body_count(a); i++) {
    clt_body_state_t sa, sb;
    clt_body_get_state(a, clt_world_body_at(a, i), &sa);
    clt_body_get_state(b, clt_world_body_at(b, i), &sb);
    for (int k = 0; k < 3; k++) {
      dv = fmax(dv, fabs(sa.velocity[k] - sb.velocity[k]));
      dv = fmax(dv, 0.05 * fabs(sa.angular_velocity[k] - sb.angular_velocity[k]));
      *vmax = fmax(*vmax, fabs(sa.velocity[k]));
    }
  }
  return dv;
}

/* The same QP solved two ways from the same state (the 50-sphere pile after 30 steps): v⁺ is
 * unique, so one step agrees to the tolerance. APGD (generator form, stage_solve_relaxed.c)
 * against the block Gauss–Seidel (impulse form); and the block Gauss–Seidel over-relaxed
 * (method.relaxation ω = 1.5, the piles' setting) against ω = 1, which must also take fewer sweeps. */
static void same_step(clt_friction_cone_t cone, clt_solver_kind_t solver_a, double omega_a, double omega_b) {
  clt_world_t *a = pile_world(cone);
  for (int n = 0; n < 30; n++) CHECK(clt_world_step(a) == CLT_OK);
  size_t size = clt_world_state_size(a);
  static unsigned char blob[1 << 16];
  CHECK(size <= sizeof blob && clt_world_save_state(a, blob, sizeof blob) == CLT_OK);
  clt_world_destroy(a);
  a = pile_world_relaxation(cone, solver_a, 1e-11, omega_a);
  clt_world_t *b = pile_world_relaxation(cone, CLT_SOLVER_BGS, 1e-11, omega_b);
  CHECK(clt_world_load_state(a, blob, size) == CLT_OK);
  CHECK(clt_world_load_state(b, blob, size) == CLT_OK);
  CHECK(clt_world_step(a) == CLT_OK && clt_world_step(b) == CLT_OK);
  clt_diagnostics_t da, db;
  clt_world_get_diagnostics(a, &da);
  clt_world_get_diagnostics(b, &db);
  double vmax, dv = velocity_difference(a, b, &vmax);
  printf("one step of the 50-sphere pile (%s, %d contacts): %s (omega %.1f) %d iterations, BGS (omega %.1f) %d sweeps, "
         "max |v_a - v_b| %.3g m/s (max |v| %.3g)\n",
         cone == CLT_CONE_CIRCULAR ? "circular" : "polyhedral", db.contacts,
         solver_a == CLT_SOLVER_APGD ? "APGD" : "BGS", omega_a, da.iterations, omega_b, db.iterations, dv, vmax);
  CHECK(da.solver_status == CLT_SOLVE_SOLVED && db.solver_status == CLT_SOLVE_SOLVED);
  CHECK(db.contacts > 50);
  CHECK_LE(dv, 1e-8);
  /* the block layout of b's solve: sphere on the circular cone (every contact is sphere–sphere or
   * sphere–plane), general on the polyhedral one (relaxed.h) */
  CHECK(b->step_work && b->step_work->relaxed && b->step_work->relaxed->sphere == (cone == CLT_CONE_CIRCULAR));
  if (solver_a == CLT_SOLVER_BGS && omega_b > omega_a) CHECK(db.iterations < da.iterations);
  clt_world_destroy(a);
  clt_world_destroy(b);
}

/* A solid sphere (r = 0.1) turned 1 rad about (1, 2, 3) rolls from rest down a plane tilted 20°
 * (μ = 0.5 > 2/7 tan 20°: it sticks). Exact rolling: after N steps v = N h (5/7) g sin θ down the
 * slope and ω = n × v / r in the world frame (ω is stored in the body frame; the solve's sphere
 * layout works in the world frame and rotates the change back). */
static void rolling_sphere(void) {
  const double h = 0.01, g = 9.81, theta = 20.0 * RELAXED_PI / 180.0, r = 0.1;
  clt_world_def_t wd = relaxed_def(h, CLT_SOLVER_BGS);
  wd.method.friction_cone = CLT_CONE_CIRCULAR;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, 0.5);
  double n[3] = {sin(theta), 0.0, cos(theta)}, down[3] = {cos(theta), 0.0, -sin(theta)};
  add_halfspace(w, mat, n[0], n[1], n[2], 0.0);
  clt_shape_def_t sd = clt_default_shape_def(CLT_SHAPE_SPHERE);
  sd.radius = r;
  sd.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  for (int k = 0; k < 3; k++) bd.position[k] = r * n[k];
  double axis = sqrt(14.0);
  bd.orientation[0] = cos(0.5);
  bd.orientation[1] = sin(0.5) * 1.0 / axis;
  bd.orientation[2] = sin(0.5) * 2.0 / axis;
  bd.orientation[3] = sin(0.5) * 3.0 / axis;
  bd.shapes = &sd;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  const int steps = 60;
  int unsolved = 0;
  double verr = 0.0, werr = 0.0, vref = 0.0, quat[4] = {0.0, 0.0, 0.0, 0.0};
  for (int step = 1; step <= steps; step++) {
    clt_body_state_t before;
    clt_body_get_state(w, id, &before);
    memcpy(quat, before.orientation, sizeof quat); /* the solve's orientation: the step's start */
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    unsolved += d.solver_status != CLT_SOLVE_SOLVED;
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    vref = step * h * (5.0 / 7.0) * g * sin(theta);
    double om[3], expect[3];
    clt_q_rotate(om, quat, s.angular_velocity); /* body → world */
    clt_v3_cross(expect, n, s.velocity);
    for (int k = 0; k < 3; k++) {
      verr = fmax(verr, fabs(s.velocity[k] - vref * down[k]));
      werr = fmax(werr, fabs(om[k] - expect[k] / r));
    }
  }
  printf("bgs, sphere layout: a sphere turned 1 rad rolls down 20 deg: |v - N h 5/7 g sin| max %.3g m/s (v %.3f), "
         "|omega - n x v / r| max %.3g rad/s, unsolved %d, layout %s\n",
         verr, vref, werr, unsolved, w->step_work->relaxed->sphere ? "sphere" : "general");
  CHECK(w->step_work->relaxed->sphere);
  CHECK(unsolved == 0);
  CHECK_LE(verr, 1e-8);
  CHECK_LE(werr, 1e-7);
  clt_world_destroy(w);
}

/* The whole pile over-relaxed (ω = 1.5): every solve reaches the tolerance, penetration < 1 % of r,
 * rest. (Its sweeps are printed beside ω = 1's: at this tolerance and size they are about equal,
 * 1381 against 1392; the gain is on deep piles, docs/design/granular.md "Solve settings".) */
static void over_relaxed_pile(void) {
  clt_world_t *w1 = pile_world_relaxation(CLT_CONE_CIRCULAR, CLT_SOLVER_BGS, 1e-4, 1.0);
  clt_world_t *w15 = pile_world_relaxation(CLT_CONE_CIRCULAR, CLT_SOLVER_BGS, 1e-4, 1.5);
  relaxed_pile_t r1 = relaxed_pile_run(w1, true, "sweeps"), r = relaxed_pile_run(w15, true, "sweeps");
  printf("pile of 50 spheres (bgs, circular, tolerance 1e-4, omega 1.5): max penetration %.3g m, KE end/peak %.3g, "
         "sweeps %ld (omega 1: %ld), unsolved steps %d\n",
         r.pen, r.ke / r.ke_peak, (long)r.total, (long)r1.total, r.unsolved);
  CHECK_LE(r.pen, 0.01 * 0.05);
  CHECK_LE(r.ke, 1e-4 * r.ke_peak);
  CHECK(r.unsolved == 0 && r1.unsolved == 0);
  clt_world_destroy(w1);
  clt_world_destroy(w15);
}

/* A layer of 40 × 40 spheres 0.5 mm apart on a floor, slightly dropped, sliding sideways: > 6000
 * contacts, above the size (4000) where the coloured sweeps run in parallel. State hash after
 * `steps` steps with the given OpenMP thread count. */
static uint64_t layer_hash(int threads, int steps, int *contacts, int *sweeps) {
  clt_world_def_t wd = relaxed_def(0.01, CLT_SOLVER_BGS);
  wd.method.tolerance = 1e-4;
  wd.method.max_iterations = 300;
  wd.method.active_set_eps = 0.01;
  wd.method.friction_cone = CLT_CONE_CIRCULAR;
  return relaxed_layer_hash(&wd, threads, steps, contacts, sweeps);
}

static void threads_and_resume(void) {
  int c1 = 0, c2 = 0, s1 = 0, s2 = 0;
  uint64_t h1 = layer_hash(1, 3, &c1, &s1), h2 = layer_hash(2, 3, &c2, &s2);
  printf("layer of 1600 spheres, 3 steps (at least %d contacts, %d sweeps): state hash 1 thread %016llx, "
         "2 threads %016llx (%s)\n",
         c1, s1, (unsigned long long)h1, (unsigned long long)h2, h1 == h2 ? "identical" : "DIFFERENT");
  CHECK(h1 == h2);
  CHECK(c1 >= 4000 && c1 == c2 && s1 == s2 && s1 > 3);
  relaxed_checkpoint_resume(pile_world(CLT_CONE_POLYHEDRAL), pile_world(CLT_CONE_POLYHEDRAL));
}

/* Three 1 m cubes stacked (issue [granular] stack: μ = 0.5, h = 0.01): drift and penetration. */
static void box_stack(void) {
  clt_world_def_t wd = relaxed_def(0.01, CLT_SOLVER_BGS);
  wd.method.tolerance = 1e-8;
  wd.method.max_iterations = 2000;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_material_def_t md = clt_default_material_def();
  md.friction = 0.5;
  md.density = 1000.0;
  int mat = -1;
  CHECK(clt_world_add_material(w, &md, &mat) == CLT_OK);
  add_halfspace(w, mat, 0, 0, 1, 0.0);
  clt_body_id_t top;
  top = add_box(w, mat, 0.5, 0.5, 0.5, 0.5, NULL);
  for (int k = 1; k < 3; k++) top = add_box(w, mat, 0.5, 0.5, 0.5, 0.5 + k, NULL);
  double pen = 0.0;
  int unsolved = 0, sweeps = 0;
  for (int n = 0; n < 300; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED) unsolved++;
    sweeps = d.iterations > sweeps ? d.iterations : sweeps;
    pen = fmax(pen, d.penetration);
  }
  clt_body_state_t s;
  clt_body_get_state(w, top, &s);
  double drift = hypot(s.position[0], s.position[1]);
  printf("bgs: 3-box stack, 300 steps: max penetration %.3g m, top drift %.3g m, top height error %.3g m, "
         "max sweeps %d, unsolved %d\n", pen, drift, s.position[2] - 2.5, sweeps, unsolved);
  CHECK(unsolved == 0);
  CHECK(!w->step_work->relaxed->sphere); /* boxes: the general layout */
  CHECK_LE(pen, 1e-6);
  CHECK_LE(drift, 1e-6);
  CHECK_LE(fabs(s.position[2] - 2.5), 1e-5);
  clt_world_destroy(w);
}

/* A box at rest on the floor under gravity tilted 30° from the normal, towards 20° from x (μ = 1:
 * it sticks; the tangential impulse lies between two of the m_C = 8 directions). The contact
 * report (read from z's compact layout, rows.h z_bracket, and its four corner blocks, which are
 * not exact) must sum to −m g h on the box, normal and tangential parts alike. */
static void report_balances_weight(clt_friction_cone_t cone) {
  const double g = 9.81, tilt = 30.0 * RELAXED_PI / 180.0, azimuth = 20.0 * RELAXED_PI / 180.0, h = 0.01;
  clt_world_def_t wd = relaxed_def(h, CLT_SOLVER_BGS);
  wd.method.friction_cone = cone;
  wd.method.friction_directions = 8;
  wd.gravity[0] = g * sin(tilt) * cos(azimuth);
  wd.gravity[1] = g * sin(tilt) * sin(azimuth);
  wd.gravity[2] = -g * cos(tilt);
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, 1.0);
  add_halfspace(w, mat, 0.0, 0.0, 1.0, 0.0);
  clt_body_id_t box = add_box(w, mat, 0.2, 0.15, 0.1, 0.1, NULL);
  for (int n = 0; n < 100; n++) CHECK(clt_world_step(w) == CLT_OK);
  clt_body_info_t info;
  CHECK(clt_body_get_info(w, box, &info) == CLT_OK);
  clt_body_state_t st;
  CHECK(clt_body_get_state(w, box, &st) == CLT_OK);
  double sum[3] = {0.0, 0.0, 0.0};
  int count = clt_world_contact_count(w);
  for (int i = 0; i < count; i++) {
    clt_contact_info_t c;
    CHECK(clt_world_get_contact(w, i, &c) == CLT_OK);
    double sign = c.body_b == 1 ? 1.0 : c.body_a == 1 ? -1.0 : 0.0;
    for (int k = 0; k < 3; k++) sum[k] += sign * c.impulse[k];
  }
  double weight = info.mass * g * h, err = 0.0;
  for (int k = 0; k < 3; k++) err = fmax(err, fabs(sum[k] + info.mass * wd.gravity[k] * h));
  double speed = sqrt(st.velocity[0] * st.velocity[0] + st.velocity[1] * st.velocity[1] +
                      st.velocity[2] * st.velocity[2]);
  printf("bgs: box at rest under tilted gravity (%s cone): %d contacts, sum of reported impulses "
         "(%.6f, %.6f, %.6f) N s against -m g h (%.6f, %.6f, %.6f); error %.2e of m g h, speed %.1e m/s\n",
         relaxed_cone_name(cone), count, sum[0], sum[1], sum[2], -info.mass * wd.gravity[0] * h,
         -info.mass * wd.gravity[1] * h, -info.mass * wd.gravity[2] * h, err / weight, speed);
  CHECK(count == 4);
  CHECK_LE(speed, 1e-6);
  CHECK_LE(err, 1e-6 * weight);
  clt_world_destroy(w);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : "";
  if (!*only || !strcmp(only, "rest")) relaxed_sphere_rest(CLT_SOLVER_BGS, 1e-8);
  if (!*only || !strcmp(only, "slide")) {
    sliding_box(CLT_CONE_POLYHEDRAL, 0.2);
    sliding_box(CLT_CONE_CIRCULAR, 0.2);
  }
  if (!*only || !strcmp(only, "pile")) {
    pile(CLT_CONE_POLYHEDRAL);
    pile(CLT_CONE_CIRCULAR);
  }
  if (!*only || !strcmp(only, "threads")) threads_and_resume();
  if (!*only || !strcmp(only, "absolute")) absolute_tolerance();
  if (!*only || !strcmp(only, "apgd")) {
    same_step(CLT_CONE_POLYHEDRAL, CLT_SOLVER_APGD, 1.0, 1.0);
    same_step(CLT_CONE_CIRCULAR, CLT_SOLVER_APGD, 1.0, 1.0);
  }
  if (!*only || !strcmp(only, "rolling")) rolling_sphere();
  if (!*only || !strcmp(only, "omega")) {
    same_step(CLT_CONE_POLYHEDRAL, CLT_SOLVER_BGS, 1.0, 1.5);
    same_step(CLT_CONE_CIRCULAR, CLT_SOLVER_BGS, 1.0, 1.5);
    over_relaxed_pile();
  }
  /* block on a 30° slope pushed at 0…45° (default active set ε; steps with contacts must be solved) */
  if (!*only || !strcmp(only, "cone")) relaxed_anisotropy(CLT_SOLVER_BGS, -1.0, true);
  if (!*only || !strcmp(only, "fail")) relaxed_unconverged_reported(CLT_SOLVER_BGS);
  /* 2D rod pinned to the world at (0, 1), its far end resting on the floor: joint rows (scalar blocks
   * with free multipliers) and contact blocks in one solve. Frictionless, N = m g x_G / x_C. */
  if (!*only || !strcmp(only, "joint")) {
    relaxed_rod_on_floor(CLT_SOLVER_BGS, 0.0, CLT_CONE_POLYHEDRAL);
    relaxed_rod_on_floor(CLT_SOLVER_BGS, 0.5, CLT_CONE_POLYHEDRAL);
  }
  if (!*only || !strcmp(only, "stack")) box_stack();
  if (!*only || !strcmp(only, "report")) {
    report_balances_weight(CLT_CONE_CIRCULAR);
    report_balances_weight(CLT_CONE_POLYHEDRAL);
  }
  return clt_test_finish();
}
