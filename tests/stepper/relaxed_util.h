/* Scenes and test bodies shared by the `relaxed` scheme tests (test_relaxed.c: APGD/BBPGD,
 * test_relaxed_bgs.c: block Gauss–Seidel) and the pinned rod of test_mixed.c. The world def, the
 * builders and the parts that differ only in the solver take it as a parameter; what each test
 * checks and prints stays in its file where the two differ. Include after "test_util.h". */
#ifndef CLATTER_TESTS_RELAXED_UTIL_H
#define CLATTER_TESTS_RELAXED_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "clatter/solvers.h"
#include "clatter/world.h"
#include "test_util.h"

#define RELAXED_PI 3.14159265358979323846

static inline clt_world_def_t relaxed_def(double h, clt_solver_kind_t solver) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  wd.method.scheme = CLT_SCHEME_RELAXED;
  wd.method.solver = solver;
  wd.method.tolerance = 1e-10;
  wd.method.max_iterations = 20000;
  return wd;
}

static inline int add_material(clt_world_t *w, double mu) {
  clt_material_def_t md = clt_default_material_def();
  md.friction = mu;
  int mat = -1;
  CHECK(clt_world_add_material(w, &md, &mat) == CLT_OK);
  return mat;
}

static inline void add_halfspace(clt_world_t *w, int mat, double nx, double ny, double nz, double offset) {
  clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  plane.normal[0] = nx;
  plane.normal[1] = ny;
  plane.normal[2] = nz;
  plane.material = mat;
  clt_body_def_t gd = clt_default_body_def();
  gd.type = CLT_BODY_STATIC;
  gd.position[0] = -offset * nx;
  gd.position[1] = -offset * ny;
  gd.position[2] = -offset * nz;
  gd.shapes = &plane;
  gd.shape_count = 1;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
}

static inline clt_body_id_t add_sphere(clt_world_t *w, int mat, double r, double x, double y, double z) {
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_SPHERE);
  s.radius = r;
  s.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[0] = x;
  bd.position[1] = y;
  bd.position[2] = z;
  bd.shapes = &s;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  return id;
}

static inline clt_body_id_t add_box(clt_world_t *w, int mat, double hx, double hy, double hz, double z,
                                    const double v[3]) {
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = hx;
  box.half_extents[1] = hy;
  box.half_extents[2] = hz;
  box.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[2] = z;
  if (v) memcpy(bd.velocity, v, 3 * sizeof *v);
  bd.shapes = &box;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  return id;
}

static inline const char *relaxed_cone_name(clt_friction_cone_t cone) {
  return cone == CLT_CONE_CIRCULAR ? "circular" : "polyhedral";
}

/* A sphere resting on a plane for 5 s: max |v| ≤ vmax_tol and height drift ≤ 1e-8 after step 10. */
static inline void relaxed_sphere_rest(clt_solver_kind_t solver, double vmax_tol) {
  clt_world_def_t wd = relaxed_def(0.01, solver);
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, 0.5);
  add_halfspace(w, mat, 0, 0, 1, 0.0);
  clt_body_id_t id = add_sphere(w, mat, 0.1, 0.0, 0.0, 0.1);
  double vmax = 0.0, dz = 0.0;
  int unsolved = 0;
  for (int n = 0; n < 500; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED) unsolved++;
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    if (n >= 10) {
      vmax = fmax(vmax, sqrt(s.velocity[0] * s.velocity[0] + s.velocity[1] * s.velocity[1] +
                             s.velocity[2] * s.velocity[2]));
      dz = fmax(dz, fabs(s.position[2] - 0.1));
    }
  }
  printf("sphere at rest (%s): max |v| %.3g m/s, max height drift %.3g m over 5 s\n", clt_solver_kind_name(solver),
         vmax, dz);
  CHECK(unsolved == 0);
  CHECK_LE(vmax, vmax_tol);
  CHECK_LE(dz, 1e-8);
  clt_world_destroy(w);
}

/* A box launched at v0 along t₁ (+y, a generator of the polyhedral cone) on a plane, 200 steps:
 * least-squares slope of v_y(t) over the sliding phase (v_y > 0.1 v0) after the first step, and the
 * hopping / lateral motion meanwhile. */
typedef struct {
  double decel, hmax, vnmax, lateral;
  int samples, unsolved; /* unsolved: steps with contacts whose solve did not converge */
} relaxed_slide_t;

/* active_set_eps < 0: the default. */
static inline relaxed_slide_t relaxed_sliding_box(clt_solver_kind_t solver, clt_friction_cone_t cone,
                                                  double active_set_eps, double h, double mu, double v0) {
  relaxed_slide_t r = {0};
  clt_world_def_t wd = relaxed_def(h, solver);
  wd.method.friction_cone = cone;
  if (active_set_eps >= 0.0) wd.method.active_set_eps = active_set_eps;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, mu);
  add_halfspace(w, mat, 0, 0, 1, 0.0);
  const double v[3] = {0.0, v0, 0.0};
  clt_body_id_t id = add_box(w, mat, 0.2, 0.2, 0.1, 0.1, v);
  double st = 0, sv = 0, stt = 0, stv = 0;
  for (int n = 1; n <= 200; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.contacts > 0 && d.solver_status != CLT_SOLVE_SOLVED) r.unsolved++;
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    double t = n * h;
    if (s.velocity[1] > 0.1 * v0) {
      r.hmax = fmax(r.hmax, s.position[2] - 0.1);
      r.vnmax = fmax(r.vnmax, fabs(s.velocity[2]));
      r.lateral = fmax(r.lateral, fabs(s.velocity[0]));
      if (n >= 2) {
        st += t, sv += s.velocity[1], stt += t * t, stv += t * s.velocity[1];
        r.samples++;
      }
    }
  }
  int cnt = r.samples;
  r.decel = -(cnt * stv - st * sv) / (cnt * stt - st * st);
  clt_world_destroy(w);
  return r;
}

/* 50 spheres (5×5×2 grid) dropped into a 0.6 m × 0.6 m box, the method from wd. */
static inline clt_world_t *relaxed_pile_world(const clt_world_def_t *wd) {
  clt_world_t *w = NULL;
  CHECK(clt_world_create(wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, 0.5);
  add_halfspace(w, mat, 0, 0, 1, 0.0);
  add_halfspace(w, mat, 1, 0, 0, 0.3);
  add_halfspace(w, mat, -1, 0, 0, 0.3);
  add_halfspace(w, mat, 0, 1, 0, 0.3);
  add_halfspace(w, mat, 0, -1, 0, 0.3);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 5; j++)
        add_sphere(w, mat, 0.05, -0.24 + 0.12 * i + 0.01 * k, -0.24 + 0.12 * j + 0.005 * k, 0.06 + 0.12 * k);
  return w;
}

/* 150 steps of the pile: max penetration, kinetic energy at the end and at its peak, iterations
 * (max and total), steps not solved (only those with contacts when contacts_only). */
typedef struct {
  double pen, ke_peak, ke;
  int unsolved, iters;
  long total;
} relaxed_pile_t;

static inline relaxed_pile_t relaxed_pile_run(clt_world_t *w, bool contacts_only, const char *iteration_word) {
  relaxed_pile_t r = {0};
  for (int n = 0; n < 150; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if ((!contacts_only || d.contacts > 0) && d.solver_status != CLT_SOLVE_SOLVED) r.unsolved++;
    r.iters = d.iterations > r.iters ? d.iterations : r.iters;
    r.total += d.iterations;
    r.pen = fmax(r.pen, d.penetration);
    r.ke_peak = fmax(r.ke_peak, d.kinetic_energy);
    r.ke = d.kinetic_energy;
    if (getenv("RELAXED_TRACE"))
      printf("  step %d: contacts %d size %d %s %d residual %.3g status %s pen %.3g\n", n + 1, d.contacts,
             d.lcp_size, iteration_word, d.iterations, d.residual, clt_solver_status_name(d.solver_status),
             d.penetration);
  }
  return r;
}

/* A layer of n × n spheres 0.5 mm apart on a floor, slightly dropped, sliding sideways; the OpenMP
 * thread count set to threads first. */
static inline clt_world_t *relaxed_layer_world(const clt_world_def_t *wd, int n, int threads) {
#ifdef _OPENMP
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
  clt_world_t *w = NULL;
  CHECK(clt_world_create(wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, 0.5);
  add_halfspace(w, mat, 0, 0, 1, 0.0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      clt_body_id_t id = add_sphere(w, mat, 0.05, 0.1005 * i, 0.1005 * j, 0.0501 + 0.0002 * ((i * 7 + j * 3) % 5));
      clt_body_state_t st;
      clt_body_get_state(w, id, &st);
      st.velocity[0] = 0.05 * sin(i + 2.0 * j);
      clt_body_set_state(w, id, &st);
    }
  return w;
}

/* relaxed_layer_world(wd, 40, threads) run `steps` steps: its state hash, the fewest contacts of a
 * step and the sweeps (iterations) of all of them. Destroys the world. */
static inline uint64_t relaxed_layer_hash(const clt_world_def_t *wd, int threads, int steps, int *contacts,
                                          int *sweeps) {
  clt_world_t *w = relaxed_layer_world(wd, 40, threads);
  *contacts = 0;
  *sweeps = 0;
  for (int n = 0; n < steps; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    *contacts = d.contacts < *contacts || *contacts == 0 ? d.contacts : *contacts;
    *sweeps += d.iterations;
  }
  uint64_t hsh = clt_world_state_hash(w);
  clt_world_destroy(w);
  return hsh;
}

/* Two identical worlds: a runs 40 steps, b loads its checkpoint, both run 30 more and must agree
 * bit for bit. Destroys both. */
static inline void relaxed_checkpoint_resume(clt_world_t *a, clt_world_t *b) {
  for (int n = 0; n < 40; n++) clt_world_step(a);
  size_t size = clt_world_state_size(a);
  static unsigned char blob[1 << 16];
  CHECK(size <= sizeof blob);
  CHECK(clt_world_save_state(a, blob, sizeof blob) == CLT_OK);
  CHECK(clt_world_load_state(b, blob, size) == CLT_OK);
  for (int n = 0; n < 30; n++) {
    clt_world_step(a);
    clt_world_step(b);
  }
  printf("checkpoint at step 40 (%zu bytes), 30 more steps: %s\n", size,
         clt_world_state_hash(a) == clt_world_state_hash(b) ? "identical" : "DIFFERENT");
  CHECK(clt_world_state_hash(a) == clt_world_state_hash(b));
  clt_world_destroy(a);
  clt_world_destroy(b);
}

/* Sliding direction of a box on a 30° slope (gravity tilted) at azimuth phi, relative to phi, after
 * 50 steps (every step with contacts — every step when !contacts_only — solved). active_set_eps < 0:
 * the default. */
static inline double relaxed_slide_deviation(clt_solver_kind_t solver, double active_set_eps, bool contacts_only,
                                             clt_friction_cone_t cone, int directions, double phi, double *speed) {
  const double theta = 30.0 * RELAXED_PI / 180.0, mu = 0.3;
  clt_world_def_t wd = relaxed_def(0.01, solver);
  wd.gravity[0] = 9.81 * sin(theta) * cos(phi);
  wd.gravity[1] = 9.81 * sin(theta) * sin(phi);
  wd.gravity[2] = -9.81 * cos(theta);
  wd.method.friction_cone = cone;
  wd.method.friction_directions = directions;
  wd.method.tolerance = 1e-12;
  if (active_set_eps >= 0.0) wd.method.active_set_eps = active_set_eps;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, mu);
  add_halfspace(w, mat, 0, 0, 1, 0.0);
  clt_body_id_t id = add_box(w, mat, 0.25, 0.25, 0.1, 0.1, NULL);
  int unsolved = 0;
  for (int n = 0; n < 50; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if ((!contacts_only || d.contacts > 0) && d.solver_status != CLT_SOLVE_SOLVED) unsolved++;
  }
  CHECK(unsolved == 0);
  clt_body_state_t s;
  clt_body_get_state(w, id, &s);
  clt_world_destroy(w);
  *speed = hypot(s.velocity[0], s.velocity[1]);
  double along = (s.velocity[0] * cos(phi) + s.velocity[1] * sin(phi)) / *speed;
  double across = (-s.velocity[0] * sin(phi) + s.velocity[1] * cos(phi)) / *speed;
  return fabs(atan2(across, along)) * 180.0 / RELAXED_PI;
}

/* The block pushed at 0..45° from the generator t₁ for m_C = 4, 8 (polyhedral) and the circular
 * cone: the circular cone slides in the push direction within 0.1°, isotropic, at the Coulomb speed;
 * the polyhedral one deviates by more than 1°. The BGS lines carry "bgs: " and print worst with %.4g. */
static inline void relaxed_anisotropy(clt_solver_kind_t solver, double active_set_eps, bool contacts_only) {
  const bool bgs = solver == CLT_SOLVER_BGS;
  const double theta = 30.0 * RELAXED_PI / 180.0, mu = 0.3, g = 9.81;
  const double expected = g * (sin(theta) - mu * cos(theta)) * 0.5;
  printf("%sblock on a 30 deg slope, mu = 0.3, pushed at 0..45 deg from generator t1 (speed after 0.5 s; "
         "Coulomb %.5f):\n", bgs ? "bgs: " : "", expected);
  const int cfg_dirs[3] = {4, 8, 8};
  const clt_friction_cone_t cfg_cone[3] = {CLT_CONE_POLYHEDRAL, CLT_CONE_POLYHEDRAL, CLT_CONE_CIRCULAR};
  for (int c = 0; c < 3; c++) {
    double worst = 0.0, smin = INFINITY, smax = 0.0;
    printf("  %-10s m_C = %d:", relaxed_cone_name(cfg_cone[c]), cfg_dirs[c]);
    for (int k = 0; k <= 8; k++) {
      double angle = 45.0 * k / 8.0, speed;
      /* t₁ of the plane z = 0 is +y (clt_v3_basis) */
      double dev = relaxed_slide_deviation(solver, active_set_eps, contacts_only, cfg_cone[c], cfg_dirs[c],
                                           0.5 * RELAXED_PI + angle * RELAXED_PI / 180.0, &speed);
      printf(" %.3g", dev);
      worst = fmax(worst, dev);
      smin = fmin(smin, speed);
      smax = fmax(smax, speed);
    }
    if (bgs)
      printf(" deg; worst %.4g deg, speed %.5f..%.5f\n", worst, smin, smax);
    else
      printf(" deg; worst %.4f deg, speed %.5f..%.5f\n", worst, smin, smax);
    if (cfg_cone[c] == CLT_CONE_CIRCULAR) {
      CHECK_LE(worst, 0.1);
      CHECK_NEAR(smax, smin, 1e-6 * smax); /* isotropic */
      CHECK_NEAR(smax, expected, 0.01 * expected);
    } else {
      CHECK(worst > 1.0); /* the polyhedral cone is anisotropic */
    }
  }
}

/* max_iterations = 3 on a box just touching the floor: reported as MAX_ITERATIONS after exactly 3
 * iterations (BGS: sweeps, and a residual above the tolerance), never "solved". */
static inline void relaxed_unconverged_reported(clt_solver_kind_t solver) {
  const bool bgs = solver == CLT_SOLVER_BGS;
  clt_world_t *w = NULL;
  clt_world_def_t wd = relaxed_def(0.01, solver);
  wd.method.max_iterations = 3;
  wd.method.tolerance = 1e-14;
  wd.method.warm_start = false;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, 0.5);
  add_halfspace(w, mat, 0, 0, 1, 0.0);
  add_box(w, mat, 0.2, 0.2, 0.1, 0.099, NULL);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  printf("%smax_iterations = 3: status %s, %s %d, residual %.3g\n", bgs ? "bgs, " : "",
         clt_solver_status_name(d.solver_status), bgs ? "sweeps" : "iterations", d.iterations, d.residual);
  CHECK(d.solver_status == CLT_SOLVE_MAX_ITERATIONS);
  CHECK(d.iterations == 3);
  if (bgs) CHECK(d.residual > 1e-14);
  clt_world_destroy(w);
}

/* 2D: a floor (half-plane, material mat) and a rod of length 2 (half-thickness 0.02) pinned to the
 * world at (0, 1) by a revolute joint, its bottom-right corner on y = 0. Returns the rod. */
static inline clt_body_id_t add_pinned_rod(clt_world_t *w, int mat) {
  clt_shape_def_t floor_shape = clt_default_shape_def(CLT_SHAPE_HALFPLANE);
  floor_shape.normal[1] = 1.0;
  floor_shape.material = mat;
  clt_body_def_t fd = clt_default_body_def();
  fd.type = CLT_BODY_STATIC;
  fd.shapes = &floor_shape;
  fd.shape_count = 1;
  CHECK(clt_world_add_body(w, &fd, NULL) == CLT_OK);
  const double half = 1.0, thick = 0.02;
  double angle = -asin((1.0 - thick) / (2.0 * half)); /* bottom-right corner on y = 0 */
  clt_shape_def_t rod = clt_default_shape_def(CLT_SHAPE_POLYGON);
  const double v[4][2] = {{-half, -thick}, {half, -thick}, {half, thick}, {-half, thick}};
  memcpy(rod.vertices, v, sizeof v);
  rod.vertex_count = 4;
  rod.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.angle = angle;
  bd.position[0] = half * cos(angle);
  bd.position[1] = 1.0 + half * sin(angle);
  bd.shapes = &rod;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = id;
  jd.anchor_a[0] = -half;
  jd.anchor_b[1] = 1.0;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  return id;
}

/* 300 steps of the pinned rod: failed steps or unsolved solves (bad), max speed and joint error
 * after step 50, the floor's normal force N at the end and the frictionless-moments value
 * m g x_G / x_C; d: the last step's diagnostics. */
typedef struct {
  int bad;
  double max_v, max_err, normal, expected;
  clt_diagnostics_t d;
} pinned_rod_t;

static inline pinned_rod_t pinned_rod_run(clt_world_t *w, clt_body_id_t id, double h) {
  pinned_rod_t r = {0};
  for (int n = 0; n < 300; n++) {
    if (clt_world_step(w) != CLT_OK) r.bad++;
    clt_world_get_diagnostics(w, &r.d);
    if (r.d.solver_status != CLT_SOLVE_SOLVED) r.bad++;
    if (n > 50) r.max_err = fmax(r.max_err, r.d.joint_error);
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    double speed = fabs(s.velocity[0]) + fabs(s.velocity[1]) + fabs(s.angular_velocity[0]);
    if (n > 50 && speed > r.max_v) r.max_v = speed;
  }
  clt_body_state_t s;
  clt_body_get_state(w, id, &s);
  clt_body_info_t info;
  clt_body_get_info(w, id, &info);
  double x_c = 0.0;
  for (int i = 0; i < clt_world_contact_count(w); i++) {
    clt_contact_info_t ci;
    clt_world_get_contact(w, i, &ci);
    if (ci.normal_impulse > 0.0) x_c = ci.point[0];
    r.normal += ci.normal_impulse / h;
  }
  r.expected = info.mass * 9.81 * s.position[0] / x_c;
  return r;
}

/* The pinned rod in the relaxed scheme with friction mu and the given cone: at rest, no joint error;
 * frictionless, N = m g x_G / x_C. The BGS line carries "bgs: " and no cone / QP size. */
static inline void relaxed_rod_on_floor(clt_solver_kind_t solver, double mu, clt_friction_cone_t cone) {
  clt_world_def_t wd = relaxed_def(0.01, solver);
  wd.dimension = 2;
  wd.gravity[1] = -9.81;
  wd.gravity[2] = 0.0;
  wd.method.friction_cone = cone;
  wd.method.tolerance = 1e-11;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, mu);
  clt_body_id_t id = add_pinned_rod(w, mat);
  pinned_rod_t r = pinned_rod_run(w, id, wd.time_step);
  if (solver == CLT_SOLVER_BGS)
    printf("bgs: rod pinned on the floor (2D, mu = %.1f): max joint error after step 50 %.2e, max |v| %.2e, N = %.9f "
           "(frictionless moments: %.9f)\n", mu, r.max_err, r.max_v, r.normal, r.expected);
  else
    printf("rod pinned on the floor (2D, mu = %.1f, %s): QP size %d, max joint error after step 50 %.2e, max |v| "
           "%.2e, N = %.9f (frictionless moments: %.9f)\n",
           mu, relaxed_cone_name(cone), r.d.lcp_size, r.max_err, r.max_v, r.normal, r.expected);
  CHECK(r.bad == 0);
  CHECK(r.d.joints == 1 && r.d.contacts >= 1);
  CHECK_LE(r.max_err, 1e-9);
  CHECK_LE(r.max_v, 1e-7);
  if (mu == 0.0) CHECK_NEAR(r.normal, r.expected, 1e-6 * r.expected);
  clt_world_destroy(w);
}

#endif
