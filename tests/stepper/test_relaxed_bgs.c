/* Scheme `relaxed` with the coloured cone block Gauss–Seidel (method.solver bgs; SPEC.md §2.2 on
 * the dual of the §2.3 QP; src/steppers/relaxed_bgs.c):
 *  - a sphere resting on a plane stays at rest;
 *  - a box sliding on a plane decelerates at μg on average (polyhedral and circular cone);
 *  - 50 spheres dropped into a box: every solve reaches the tolerance, penetration < 1 % of r;
 *  - the circular cone: a block pushed at 0°…45° slides in the push direction within 0.1°;
 *  - bit-identical results for 1 and 2 OpenMP threads on a layer large enough for the parallel
 *    coloured sweeps, and after checkpoint/resume;
 *  - an unconverged solve is reported as such; a joint inside the QP (free multipliers);
 *  - a stack of 3 boxes stands (non-diagonal contact blocks: the local solve iterates). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "clatter/world.h"
#include "test_util.h"

#define PI 3.14159265358979323846

static clt_world_def_t bgs_def(double h) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  wd.method.scheme = CLT_SCHEME_RELAXED;
  wd.method.solver = CLT_SOLVER_BGS;
  wd.method.tolerance = 1e-10;
  wd.method.max_iterations = 20000;
  return wd;
}

static int add_material(clt_world_t *w, double mu) {
  clt_material_def_t md = clt_default_material_def();
  md.friction = mu;
  int mat = -1;
  CHECK(clt_world_add_material(w, &md, &mat) == CLT_OK);
  return mat;
}

static void add_halfspace(clt_world_t *w, int mat, double nx, double ny, double nz, double offset) {
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

static clt_body_id_t add_sphere(clt_world_t *w, int mat, double r, double x, double y, double z) {
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

static clt_body_id_t add_box(clt_world_t *w, int mat, double hx, double hy, double hz, double z, const double v[3]) {
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

static void sphere_rest(void) {
  clt_world_def_t wd = bgs_def(0.01);
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
  printf("sphere at rest (bgs): max |v| %.3g m/s, max height drift %.3g m over 5 s\n", vmax, dz);
  CHECK(unsolved == 0);
  CHECK_LE(vmax, 1e-8);
  CHECK_LE(dz, 1e-8);
  clt_world_destroy(w);
}

/* A box launched at v0 along t₁ on a plane: 4 corner contacts, blocks that are not diagonal. */
static void sliding_box(clt_friction_cone_t cone, double mu) {
  const double h = 0.01, v0 = 1.0, g = 9.81;
  clt_world_def_t wd = bgs_def(h);
  wd.method.friction_cone = cone;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, mu);
  add_halfspace(w, mat, 0, 0, 1, 0.0);
  const double v[3] = {0.0, v0, 0.0};
  clt_body_id_t id = add_box(w, mat, 0.2, 0.2, 0.1, 0.1, v);
  double st = 0, sv = 0, stt = 0, stv = 0, lateral = 0.0;
  int cnt = 0, unsolved = 0;
  for (int n = 1; n <= 200; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.contacts > 0 && d.solver_status != CLT_SOLVE_SOLVED) unsolved++;
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    double t = n * h;
    if (s.velocity[1] > 0.1 * v0) {
      lateral = fmax(lateral, fabs(s.velocity[0]));
      if (n >= 2) {
        st += t, sv += s.velocity[1], stt += t * t, stv += t * s.velocity[1];
        cnt++;
      }
    }
  }
  double a = -(cnt * stv - st * sv) / (cnt * stt - st * st);
  printf("sliding box (bgs, %s cone, mu = %.2f): deceleration %.5f m/s^2 = %.4f mu g, lateral |v_x| %.2g, "
         "unsolved %d\n",
         cone == CLT_CONE_CIRCULAR ? "circular" : "polyhedral", mu, a, a / (mu * g), lateral, unsolved);
  CHECK(cnt > 10);
  CHECK(unsolved == 0);
  CHECK_NEAR(a, mu * g, 0.03 * mu * g);
  CHECK_LE(lateral, 1e-9);
  clt_world_destroy(w);
}

/* 50 spheres (5×5×2 grid) dropped into a 0.6 m × 0.6 m box. */
static clt_world_t *pile_world_with(clt_friction_cone_t cone, clt_solver_kind_t solver, double tolerance) {
  clt_world_def_t wd = bgs_def(0.01);
  wd.method.friction_cone = cone;
  wd.method.solver = solver;
  wd.method.tolerance = tolerance;
  wd.method.max_iterations = 200000;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
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

static clt_world_t *pile_world(clt_friction_cone_t cone) { return pile_world_with(cone, CLT_SOLVER_BGS, 1e-4); }

static void pile(clt_friction_cone_t cone) {
  clt_world_t *w = pile_world(cone);
  double pen = 0.0, ke_peak = 0.0, ke = 0.0;
  int unsolved = 0, iters = 0;
  long total = 0;
  for (int n = 0; n < 150; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.contacts > 0 && d.solver_status != CLT_SOLVE_SOLVED) unsolved++;
    iters = d.iterations > iters ? d.iterations : iters;
    total += d.iterations;
    pen = fmax(pen, d.penetration);
    ke_peak = fmax(ke_peak, d.kinetic_energy);
    ke = d.kinetic_energy;
    if (getenv("RELAXED_TRACE"))
      printf("  step %d: contacts %d size %d sweeps %d residual %.3g status %s pen %.3g\n", n + 1, d.contacts,
             d.lcp_size, d.iterations, d.residual, clt_solver_status_name(d.solver_status), d.penetration);
  }
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  printf("pile of 50 spheres (bgs, %s, tolerance 1e-4): max penetration %.3g m (%.4f %% of r), contacts %d, "
         "KE end/peak %.3g, sweeps max %d mean %.1f, unsolved steps %d\n",
         cone == CLT_CONE_CIRCULAR ? "circular" : "polyhedral m_C = 8", pen, 100.0 * pen / 0.05, d.contacts,
         ke / ke_peak, iters, (double)total / 150.0, unsolved);
  CHECK_LE(pen, 0.01 * 0.05);
  CHECK_LE(ke, 1e-4 * ke_peak);
  CHECK(unsolved == 0);
  clt_world_destroy(w);
}

/* The same QP solved by APGD (generator form, stage_solve_relaxed.c) and by the block Gauss–Seidel
 * (impulse form): v⁺ is unique, so one step from the same state agrees to the tolerance. */
static void against_apgd(clt_friction_cone_t cone) {
  clt_world_t *a = pile_world(cone);
  for (int n = 0; n < 30; n++) CHECK(clt_world_step(a) == CLT_OK);
  size_t size = clt_world_state_size(a);
  static unsigned char blob[1 << 16];
  CHECK(size <= sizeof blob && clt_world_save_state(a, blob, sizeof blob) == CLT_OK);
  clt_world_destroy(a);
  a = pile_world_with(cone, CLT_SOLVER_APGD, 1e-11);
  clt_world_t *b = pile_world_with(cone, CLT_SOLVER_BGS, 1e-11);
  CHECK(clt_world_load_state(a, blob, size) == CLT_OK);
  CHECK(clt_world_load_state(b, blob, size) == CLT_OK);
  CHECK(clt_world_step(a) == CLT_OK && clt_world_step(b) == CLT_OK);
  clt_diagnostics_t da, db;
  clt_world_get_diagnostics(a, &da);
  clt_world_get_diagnostics(b, &db);
  double dv = 0.0, vmax = 0.0;
  for (int i = 0; i < clt_world_body_count(a); i++) {
    clt_body_state_t sa, sb;
    clt_body_get_state(a, clt_world_body_at(a, i), &sa);
    clt_body_get_state(b, clt_world_body_at(b, i), &sb);
    for (int k = 0; k < 3; k++) {
      dv = fmax(dv, fabs(sa.velocity[k] - sb.velocity[k]));
      dv = fmax(dv, 0.05 * fabs(sa.angular_velocity[k] - sb.angular_velocity[k]));
      vmax = fmax(vmax, fabs(sa.velocity[k]));
    }
  }
  printf("one step of the 50-sphere pile (%s, %d contacts): APGD %d iterations, BGS %d sweeps, max |v_apgd - v_bgs| "
         "%.3g m/s (max |v| %.3g)\n", cone == CLT_CONE_CIRCULAR ? "circular" : "polyhedral", db.contacts, da.iterations,
         db.iterations, dv, vmax);
  CHECK(da.solver_status == CLT_SOLVE_SOLVED && db.solver_status == CLT_SOLVE_SOLVED);
  CHECK(db.contacts > 50);
  CHECK_LE(dv, 1e-8);
  clt_world_destroy(a);
  clt_world_destroy(b);
}

/* A layer of 40 × 40 spheres 0.5 mm apart on a floor, slightly dropped, sliding sideways: > 6000
 * contacts, above the size (4000) where the coloured sweeps run in parallel. State hash after
 * `steps` steps with the given OpenMP thread count. */
static uint64_t layer_hash(int threads, int steps, int *contacts, int *sweeps) {
#ifdef _OPENMP
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
  clt_world_def_t wd = bgs_def(0.01);
  wd.method.tolerance = 1e-4;
  wd.method.max_iterations = 300;
  wd.method.active_set_eps = 0.01;
  wd.method.friction_cone = CLT_CONE_CIRCULAR;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, 0.5);
  add_halfspace(w, mat, 0, 0, 1, 0.0);
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++) {
      clt_body_id_t id = add_sphere(w, mat, 0.05, 0.1005 * i, 0.1005 * j, 0.0501 + 0.0002 * ((i * 7 + j * 3) % 5));
      clt_body_state_t st;
      clt_body_get_state(w, id, &st);
      st.velocity[0] = 0.05 * sin(i + 2.0 * j);
      clt_body_set_state(w, id, &st);
    }
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

static void threads_and_resume(void) {
  int c1 = 0, c2 = 0, s1 = 0, s2 = 0;
  uint64_t h1 = layer_hash(1, 3, &c1, &s1), h2 = layer_hash(2, 3, &c2, &s2);
  printf("layer of 1600 spheres, 3 steps (at least %d contacts, %d sweeps): state hash 1 thread %016llx, "
         "2 threads %016llx (%s)\n",
         c1, s1, (unsigned long long)h1, (unsigned long long)h2, h1 == h2 ? "identical" : "DIFFERENT");
  CHECK(h1 == h2);
  CHECK(c1 >= 4000 && c1 == c2 && s1 == s2 && s1 > 3);
  clt_world_t *a = pile_world(CLT_CONE_POLYHEDRAL), *b = pile_world(CLT_CONE_POLYHEDRAL);
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

/* Sliding direction of a box on a 30° slope (gravity tilted) at azimuth phi, relative to phi. */
static double slide_deviation(clt_friction_cone_t cone, int directions, double phi, double *speed) {
  const double theta = 30.0 * PI / 180.0;
  clt_world_def_t wd = bgs_def(0.01);
  wd.gravity[0] = 9.81 * sin(theta) * cos(phi);
  wd.gravity[1] = 9.81 * sin(theta) * sin(phi);
  wd.gravity[2] = -9.81 * cos(theta);
  wd.method.friction_cone = cone;
  wd.method.friction_directions = directions;
  wd.method.tolerance = 1e-12;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, 0.3);
  add_halfspace(w, mat, 0, 0, 1, 0.0);
  clt_body_id_t id = add_box(w, mat, 0.25, 0.25, 0.1, 0.1, NULL);
  int unsolved = 0;
  for (int n = 0; n < 50; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.contacts > 0 && d.solver_status != CLT_SOLVE_SOLVED) unsolved++;
  }
  CHECK(unsolved == 0);
  clt_body_state_t s;
  clt_body_get_state(w, id, &s);
  clt_world_destroy(w);
  *speed = hypot(s.velocity[0], s.velocity[1]);
  double along = (s.velocity[0] * cos(phi) + s.velocity[1] * sin(phi)) / *speed;
  double across = (-s.velocity[0] * sin(phi) + s.velocity[1] * cos(phi)) / *speed;
  return fabs(atan2(across, along)) * 180.0 / PI;
}

static void anisotropy(void) {
  const double theta = 30.0 * PI / 180.0, mu = 0.3, g = 9.81;
  const double expected = g * (sin(theta) - mu * cos(theta)) * 0.5;
  printf("bgs: block on a 30 deg slope, mu = 0.3, pushed at 0..45 deg from generator t1 (speed after 0.5 s; "
         "Coulomb %.5f):\n", expected);
  const int cfg_dirs[3] = {4, 8, 8};
  const clt_friction_cone_t cfg_cone[3] = {CLT_CONE_POLYHEDRAL, CLT_CONE_POLYHEDRAL, CLT_CONE_CIRCULAR};
  for (int c = 0; c < 3; c++) {
    double worst = 0.0, smin = INFINITY, smax = 0.0;
    printf("  %-10s m_C = %d:", cfg_cone[c] == CLT_CONE_CIRCULAR ? "circular" : "polyhedral", cfg_dirs[c]);
    for (int k = 0; k <= 8; k++) {
      double angle = 45.0 * k / 8.0, speed;
      double dev = slide_deviation(cfg_cone[c], cfg_dirs[c], 0.5 * PI + angle * PI / 180.0, &speed);
      printf(" %.3g", dev);
      worst = fmax(worst, dev);
      smin = fmin(smin, speed);
      smax = fmax(smax, speed);
    }
    printf(" deg; worst %.4g deg, speed %.5f..%.5f\n", worst, smin, smax);
    if (cfg_cone[c] == CLT_CONE_CIRCULAR) {
      CHECK_LE(worst, 0.1);
      CHECK_NEAR(smax, smin, 1e-6 * smax);
      CHECK_NEAR(smax, expected, 0.01 * expected);
    } else {
      CHECK(worst > 1.0);
    }
  }
}

static void unconverged_reported(void) {
  clt_world_t *w = NULL;
  clt_world_def_t wd = bgs_def(0.01);
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
  printf("bgs, max_iterations = 3: status %s, sweeps %d, residual %.3g\n", clt_solver_status_name(d.solver_status),
         d.iterations, d.residual);
  CHECK(d.solver_status == CLT_SOLVE_MAX_ITERATIONS);
  CHECK(d.iterations == 3);
  CHECK(d.residual > 1e-14);
  clt_world_destroy(w);
}

/* 2D rod pinned to the world at (0, 1), its far end resting on the floor: joint rows (scalar blocks
 * with free multipliers) and contact blocks in one solve. Frictionless, N = m g x_G / x_C. */
static void rod_on_floor(double mu) {
  clt_world_def_t wd = bgs_def(0.01);
  wd.dimension = 2;
  wd.gravity[1] = -9.81;
  wd.gravity[2] = 0.0;
  wd.method.tolerance = 1e-11;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, mu);
  clt_shape_def_t floor_shape = clt_default_shape_def(CLT_SHAPE_HALFPLANE);
  floor_shape.normal[1] = 1.0;
  floor_shape.material = mat;
  clt_body_def_t fd = clt_default_body_def();
  fd.type = CLT_BODY_STATIC;
  fd.shapes = &floor_shape;
  fd.shape_count = 1;
  CHECK(clt_world_add_body(w, &fd, NULL) == CLT_OK);
  const double half = 1.0, thick = 0.02;
  double angle = -asin((1.0 - thick) / (2.0 * half));
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
  int bad = 0;
  double max_v = 0.0, max_err = 0.0;
  clt_diagnostics_t d;
  for (int n = 0; n < 300; n++) {
    if (clt_world_step(w) != CLT_OK) bad++;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED) bad++;
    if (n > 50) max_err = fmax(max_err, d.joint_error);
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    double speed = fabs(s.velocity[0]) + fabs(s.velocity[1]) + fabs(s.angular_velocity[0]);
    if (n > 50 && speed > max_v) max_v = speed;
  }
  clt_body_state_t s;
  clt_body_get_state(w, id, &s);
  clt_body_info_t info;
  clt_body_get_info(w, id, &info);
  double normal = 0.0, x_c = 0.0;
  for (int i = 0; i < clt_world_contact_count(w); i++) {
    clt_contact_info_t ci;
    clt_world_get_contact(w, i, &ci);
    if (ci.normal_impulse > 0.0) x_c = ci.point[0];
    normal += ci.normal_impulse / wd.time_step;
  }
  double expected = info.mass * 9.81 * s.position[0] / x_c;
  printf("bgs: rod pinned on the floor (2D, mu = %.1f): max joint error after step 50 %.2e, max |v| %.2e, N = %.9f "
         "(frictionless moments: %.9f)\n", mu, max_err, max_v, normal, expected);
  CHECK(bad == 0);
  CHECK(d.joints == 1 && d.contacts >= 1);
  CHECK_LE(max_err, 1e-9);
  CHECK_LE(max_v, 1e-7);
  if (mu == 0.0) CHECK_NEAR(normal, expected, 1e-6 * expected);
  clt_world_destroy(w);
}

/* Three 1 m cubes stacked (issue [granular] stack: μ = 0.5, h = 0.01): drift and penetration. */
static void box_stack(void) {
  clt_world_def_t wd = bgs_def(0.01);
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
  CHECK_LE(pen, 1e-6);
  CHECK_LE(drift, 1e-6);
  CHECK_LE(fabs(s.position[2] - 2.5), 1e-5);
  clt_world_destroy(w);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : "";
  if (!*only || !strcmp(only, "rest")) sphere_rest();
  if (!*only || !strcmp(only, "slide")) {
    sliding_box(CLT_CONE_POLYHEDRAL, 0.2);
    sliding_box(CLT_CONE_CIRCULAR, 0.2);
  }
  if (!*only || !strcmp(only, "pile")) {
    pile(CLT_CONE_POLYHEDRAL);
    pile(CLT_CONE_CIRCULAR);
  }
  if (!*only || !strcmp(only, "threads")) threads_and_resume();
  if (!*only || !strcmp(only, "apgd")) {
    against_apgd(CLT_CONE_POLYHEDRAL);
    against_apgd(CLT_CONE_CIRCULAR);
  }
  if (!*only || !strcmp(only, "cone")) anisotropy();
  if (!*only || !strcmp(only, "fail")) unconverged_reported();
  if (!*only || !strcmp(only, "joint")) {
    rod_on_floor(0.0);
    rod_on_floor(0.5);
  }
  if (!*only || !strcmp(only, "stack")) box_stack();
  return clt_test_finish();
}
