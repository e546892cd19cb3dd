/* Contacts with friction in the step (SPEC.md §1): active set by ε̂, normal and balanced friction
 * rows, the friction LCP (c_n, β, λ) per contact, solved by Lemke and by block Gauss–Seidel.
 *  - a box resting on a plane stays at rest: no drift, no jitter (velocity ≤ 1e-10 after settling);
 *  - a box on an incline of angle θ sticks when μ > tan θ and slides with the acceleration
 *    g (sin θ − μ cos θ) when μ < tan θ (2D: exact within 1 %);
 *  - a ball dropped with e_N = 0.5 rebounds to e_N² = 0.25 of its height (± 0.02);
 *  - the infeasibility reports penetration over all pairs. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "clatter/solvers.h"
#include "clatter/world.h"
#include "test_util.h"

static clt_world_t *make_world(int dim, double h, clt_solver_kind_t solver) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  wd.time_step = h;
  if (dim == 2) {
    wd.gravity[1] = -9.81;
    wd.gravity[2] = 0.0;
  }
  wd.method.solver = solver;
  wd.method.friction_cone = CLT_CONE_POLYHEDRAL; /* the row stages' LCP (the default cone is tested in
                                                  * test_coulomb_circular and scenes/validation) */
  /* Lemke is exact; block Gauss–Seidel stalls near 3e-10 on the degenerate 4-point box contact
   * (redundant normals), so it gets a tolerance it reaches and is held to matching bounds. */
  wd.method.tolerance = solver == CLT_SOLVER_LEMKE ? 1e-12 : 1e-8;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  return w;
}

static int material(clt_world_t *w, double mu, double e) {
  clt_material_def_t md = clt_default_material_def();
  md.friction = mu;
  md.restitution = e;
  int index = -1;
  CHECK(clt_world_add_material(w, &md, &index) == CLT_OK);
  return index;
}

/* A static ground plane through the origin with the given (unit) normal. */
static void ground(clt_world_t *w, const double normal[3], int mat) {
  clt_shape_def_t s = clt_default_shape_def(clt_world_dimension(w) == 2 ? CLT_SHAPE_HALFPLANE : CLT_SHAPE_HALFSPACE);
  memcpy(s.normal, normal, sizeof s.normal);
  s.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.type = CLT_BODY_STATIC;
  bd.shapes = &s;
  bd.shape_count = 1;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_OK);
}

static void resting_box(clt_solver_kind_t solver, double lift) {
  clt_world_t *w = make_world(3, 0.01, solver);
  int mat = material(w, 0.5, 0.0);
  const double up[3] = {0.0, 0.0, 1.0};
  ground(w, up, mat);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_BOX);
  s.half_extents[0] = 0.5;
  s.half_extents[1] = 0.3;
  s.half_extents[2] = 0.2;
  s.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[2] = 0.2 + lift;
  bd.shapes = &s;
  bd.shape_count = 1;
  clt_body_id_t box;
  CHECK(clt_world_add_body(w, &bd, &box) == CLT_OK);
  double max_v = 0.0, max_pen = 0.0;
  const int settle = lift > 0.0 ? 100 : 10; /* a lifted box falls, lands plastically, then rests */
  clt_body_state_t settled;
  memset(&settled, 0, sizeof settled);
  int failures = 0;
  clt_diagnostics_t d;
  for (int n = 0; n < 1000; n++) {
    if (clt_world_step(w) != CLT_OK) failures++;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED && d.solver_status != CLT_SOLVE_NONE) failures++;
    clt_body_state_t st;
    clt_body_get_state(w, box, &st);
    double v = sqrt(st.velocity[0] * st.velocity[0] + st.velocity[1] * st.velocity[1] +
                    st.velocity[2] * st.velocity[2] + st.angular_velocity[0] * st.angular_velocity[0] +
                    st.angular_velocity[1] * st.angular_velocity[1] + st.angular_velocity[2] * st.angular_velocity[2]);
    if (n >= settle && v > max_v) max_v = v;
    if (n == settle) clt_body_get_state(w, box, &settled);
    if (d.penetration > max_pen) max_pen = d.penetration;
  }
  clt_body_state_t st;
  clt_body_get_state(w, box, &st);
  double drift = fabs(st.position[0] - settled.position[0]) + fabs(st.position[1] - settled.position[1]) +
                 fabs(st.position[2] - settled.position[2]);
  printf("  resting box (%s, dropped from %g m): contacts %d, lcp size %d, max |v| after step %d %.2e, drift "
         "%.2e, max penetration %.2e, height %.12f\n", clt_solver_kind_name(solver), lift, d.contacts, d.lcp_size,
         settle, max_v, drift, max_pen, st.position[2]);
  /* the contact report: 4 points under the box, their impulses carry its weight m g h */
  CHECK(clt_world_contact_count(w) == 4);
  clt_body_info_t info;
  clt_body_get_info(w, box, &info);
  double total[3] = {0.0, 0.0, 0.0}, normal_sum = 0.0;
  for (int i = 0; i < clt_world_contact_count(w); i++) {
    clt_contact_info_t ci;
    CHECK(clt_world_get_contact(w, i, &ci) == CLT_OK);
    CHECK(ci.body_a == 0 && ci.body_b == 1);
    CHECK_NEAR(ci.normal[2], 1.0, 1e-12);
    CHECK_NEAR(ci.point[2], 0.0, 1e-6);
    normal_sum += ci.normal_impulse;
    for (int k = 0; k < 3; k++) total[k] += ci.impulse[k];
  }
  clt_contact_info_t none;
  CHECK(clt_world_get_contact(w, 4, &none) == CLT_ERR_INVALID_ARGUMENT);
  double weight = info.mass * 9.81 * 0.01;
  CHECK_NEAR(normal_sum, weight, 1e-6 * weight);
  CHECK_NEAR(total[2], weight, 1e-6 * weight);
  CHECK_LE(fabs(total[0]) + fabs(total[1]), 1e-6 * weight);
  double bound = solver == CLT_SOLVER_LEMKE ? 1e-10 : 1e-7;
  CHECK(failures == 0);
  CHECK(d.contacts == 4);
  CHECK_LE(max_v, bound);
  CHECK_LE(drift, bound);
  CHECK_LE(max_pen, lift > 0.0 ? 1e-3 : bound); /* the landing step may overlap by ≤ h·v_impact */
  CHECK_NEAR(st.position[2], 0.2, 1e-3); /* on the plane (Φ ∈ [0, ε̂] for anitescu-hart: rests where it lands) */
  clt_world_destroy(w);
}

/* 2D box (1 × 0.5) on a half-plane inclined by theta; returns the velocity along the slope after
 * `steps` steps from rest (positive downhill). */
static double incline_2d(double theta, double mu, clt_solver_kind_t solver, int steps, double h, int *failures) {
  clt_world_t *w = make_world(2, h, solver);
  int mat = material(w, mu, 0.0);
  const double normal[3] = {-sin(theta), cos(theta), 0.0};
  ground(w, normal, mat);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_POLYGON);
  const double hx = 0.5, hy = 0.25;
  const double v[4][2] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}};
  memcpy(s.vertices, v, sizeof v);
  s.vertex_count = 4;
  s.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.angle = theta;
  bd.position[0] = normal[0] * hy;
  bd.position[1] = normal[1] * hy;
  bd.shapes = &s;
  bd.shape_count = 1;
  clt_body_id_t box;
  CHECK(clt_world_add_body(w, &bd, &box) == CLT_OK);
  for (int n = 0; n < steps; n++) {
    if (clt_world_step(w) != CLT_OK) (*failures)++;
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED) (*failures)++;
  }
  clt_body_state_t st;
  clt_body_get_state(w, box, &st);
  clt_world_destroy(w);
  /* downhill direction: −(cos θ, sin θ) */
  return -(st.velocity[0] * cos(theta) + st.velocity[1] * sin(theta));
}

static void incline(clt_solver_kind_t solver) {
  const double theta = 30.0 * 3.14159265358979323846 / 180.0, g = 9.81, h = 0.01;
  const int steps = 100;
  int failures = 0;
  double stick = incline_2d(theta, 0.7, solver, steps, h, &failures);
  double slide = incline_2d(theta, 0.3, solver, steps, h, &failures);
  double expected = g * (sin(theta) - 0.3 * cos(theta)) * steps * h;
  printf("  2D incline 30 deg (%s): mu = 0.7 speed %.2e; mu = 0.3 speed %.6f, analytical %.6f (%.3f %%)\n",
         clt_solver_kind_name(solver), stick, slide, expected, 100.0 * (slide - expected) / expected);
  CHECK(failures == 0);
  CHECK_LE(fabs(stick), solver == CLT_SOLVER_LEMKE ? 1e-9 : 1e-6);
  CHECK_NEAR(slide, expected, 0.01 * expected);
}

static clt_world_t *ball_world(double e, double drop, double radius) {
  clt_world_t *w = make_world(3, 1e-3, CLT_SOLVER_LEMKE);
  int mat = material(w, 0.3, e);
  const double up[3] = {0.0, 0.0, 1.0};
  ground(w, up, mat);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_SPHERE);
  s.radius = radius;
  s.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[2] = radius + drop;
  bd.shapes = &s;
  bd.shape_count = 1;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_OK);
  return w;
}

static void bouncing_ball(void) {
  const double e = 0.5, drop = 1.0, radius = 0.1;
  clt_world_t *w = ball_world(e, drop, radius);
  clt_body_id_t ball = clt_world_body_at(w, 1);
  bool bounced = false;
  double apex = 0.0;
  int failures = 0;
  for (int n = 0; n < 1000; n++) {
    if (clt_world_step(w) != CLT_OK) failures++;
    clt_body_state_t st;
    clt_body_get_state(w, ball, &st);
    if (st.velocity[2] > 0.0) bounced = true;
    if (bounced && st.position[2] - radius > apex) apex = st.position[2] - radius;
  }
  printf("  bouncing ball e_N = %.2f: rebound height ratio %.4f (e_N^2 = %.4f)\n", e, apex / drop, e * e);
  CHECK(failures == 0);
  CHECK(bounced);
  CHECK_NEAR(apex / drop, e * e, 0.02);
  clt_world_destroy(w);
}

/* A checkpoint taken on the step of impact holds the pending rebound (restitution memory): the
 * continuation from it is bit-identical to the uninterrupted run. */
static void checkpoint_at_impact(void) {
  clt_world_t *a = ball_world(0.5, 0.2, 0.1), *b = ball_world(0.5, 0.2, 0.1);
  size_t empty = clt_world_state_size(a);
  int n = 0;
  while (clt_world_state_size(a) == empty && n < 1000) {
    clt_world_step(a);
    n++;
  }
  size_t size = clt_world_state_size(a);
  printf("  checkpoint at the impact step %d: state %zu bytes (%zu without contact memory)\n", n, size, empty);
  CHECK(size > empty);
  unsigned char blob[4096];
  CHECK(size <= sizeof blob);
  CHECK(clt_world_save_state(a, blob, sizeof blob) == CLT_OK);
  CHECK(clt_world_load_state(b, blob, size) == CLT_OK);
  CHECK(clt_world_state_hash(a) == clt_world_state_hash(b));
  for (int k = 0; k < 300; k++) {
    clt_world_step(a);
    clt_world_step(b);
  }
  CHECK(clt_world_state_hash(a) == clt_world_state_hash(b));
  clt_body_state_t sa, sb;
  clt_body_get_state(a, clt_world_body_at(a, 1), &sa);
  clt_body_get_state(b, clt_world_body_at(b, 1), &sb);
  CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
  clt_world_destroy(a);
  clt_world_destroy(b);
}

/* Block Gauss–Seidel warm-starts from the impulses of the last step, which are part of the state:
 * a run resumed from a checkpoint continues bit-identically. */
static void checkpoint_warm_start(void) {
  clt_world_t *a = NULL, *b = NULL;
  for (int k = 0; k < 2; k++) {
    clt_world_t *w = make_world(3, 0.01, CLT_SOLVER_BGS);
    int mat = material(w, 0.5, 0.0);
    const double up[3] = {0.0, 0.0, 1.0};
    ground(w, up, mat);
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_BOX);
    s.half_extents[0] = 0.5;
    s.half_extents[1] = 0.3;
    s.half_extents[2] = 0.2;
    s.material = mat;
    clt_body_def_t bd = clt_default_body_def();
    bd.position[2] = 0.25;
    bd.velocity[0] = 1.0; /* lands sliding, then sticks */
    bd.angular_velocity[2] = 0.5;
    bd.shapes = &s;
    bd.shape_count = 1;
    CHECK(clt_world_add_body(w, &bd, NULL) == CLT_OK);
    if (k == 0) a = w; else b = w;
  }
  for (int n = 0; n < 30; n++) clt_world_step(a);
  unsigned char blob[8192];
  size_t size = clt_world_state_size(a);
  CHECK(size <= sizeof blob);
  CHECK(clt_world_save_state(a, blob, sizeof blob) == CLT_OK);
  CHECK(clt_world_load_state(b, blob, size) == CLT_OK);
  for (int n = 0; n < 100; n++) {
    clt_world_step(a);
    clt_world_step(b);
  }
  printf("  bgs warm start: checkpoint of %zu bytes, continuation hash %s\n", size,
         clt_world_state_hash(a) == clt_world_state_hash(b) ? "identical" : "DIFFERENT");
  CHECK(clt_world_state_hash(a) == clt_world_state_hash(b));
  clt_world_destroy(a);
  clt_world_destroy(b);
}

/* Kinematic bodies enter contacts with their prescribed velocity: a box set down on a conveyor
 * (a kinematic plane moving at 1 m/s along x) is dragged by friction, v(t) = μ g t, until it moves
 * with the belt. */
static void conveyor(void) {
  const double mu = 0.4, speed = 1.0, h = 0.01;
  clt_world_t *w = make_world(3, h, CLT_SOLVER_LEMKE);
  int mat = material(w, mu, 0.0);
  clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  plane.normal[2] = 1.0;
  plane.material = mat;
  clt_body_def_t belt = clt_default_body_def();
  belt.type = CLT_BODY_KINEMATIC;
  belt.motion.velocity[0] = speed;
  belt.shapes = &plane;
  belt.shape_count = 1;
  CHECK(clt_world_add_body(w, &belt, NULL) == CLT_OK);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_BOX);
  s.half_extents[0] = s.half_extents[1] = s.half_extents[2] = 0.1;
  s.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[2] = 0.1;
  bd.shapes = &s;
  bd.shape_count = 1;
  clt_body_id_t box;
  CHECK(clt_world_add_body(w, &bd, &box) == CLT_OK);
  int bad = 0;
  double v10 = 0.0;
  for (int n = 0; n < 100; n++) {
    if (clt_world_step(w) != CLT_OK) bad++;
    clt_body_state_t st;
    clt_body_get_state(w, box, &st);
    if (n == 9) v10 = st.velocity[0];
  }
  clt_body_state_t st;
  clt_body_get_state(w, box, &st);
  printf("  conveyor: box speed after 0.1 s %.6f (mu g t = %.6f), after 1 s %.12f (belt %.1f)\n", v10,
         mu * 9.81 * 0.1, st.velocity[0], speed);
  CHECK(bad == 0);
  CHECK_NEAR(v10, mu * 9.81 * 0.1, 1e-6);
  CHECK_NEAR(st.velocity[0], speed, 1e-9);
  CHECK_LE(fabs(st.velocity[1]) + fabs(st.velocity[2]), 1e-9);
  clt_world_destroy(w);
}

/* Scheme `post` with contacts (SPEC.md §3): a spinning box thrown onto the plane. The position
 * projection removes every penetration after each step (the projection's LCP g_c + J_c dp ≥ 0),
 * while `none` keeps what it lets in; both end at rest. (With Δ = 0 a contact inside ε̂ also stops
 * approaching: the box may rest up to ε̂ above the plane.) */
static void post_contacts(void) {
  const clt_scheme_t schemes[2] = {CLT_SCHEME_POST, CLT_SCHEME_NONE};
  double max_pen[2] = {0.0, 0.0}, speed[2] = {0.0, 0.0};
  for (int k = 0; k < 2; k++) {
    clt_world_def_t wd = clt_default_world_def();
    wd.time_step = 0.01;
    wd.method.scheme = schemes[k];
    wd.method.post_repeats = 3;
    clt_world_t *w = NULL;
    CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
    const double up[3] = {0.0, 0.0, 1.0};
    ground(w, up, -1);
    clt_shape_def_t b = clt_default_shape_def(CLT_SHAPE_BOX);
    b.half_extents[0] = b.half_extents[1] = b.half_extents[2] = 0.1;
    clt_body_def_t bd = clt_default_body_def();
    bd.position[2] = 0.3;
    bd.velocity[0] = 1.0;
    bd.angular_velocity[1] = 3.0;
    bd.shapes = &b;
    bd.shape_count = 1;
    clt_body_id_t id;
    CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
    int bad = 0;
    for (int n = 0; n < 300; n++) {
      if (clt_world_step(w) != CLT_OK) bad++;
      clt_diagnostics_t d;
      clt_world_get_diagnostics(w, &d);
      if (d.solver_status != CLT_SOLVE_SOLVED && d.solver_status != CLT_SOLVE_NONE) bad++;
      if (d.penetration > max_pen[k]) max_pen[k] = d.penetration;
    }
    clt_body_state_t st;
    clt_body_get_state(w, id, &st);
    for (int i = 0; i < 3; i++) speed[k] += fabs(st.velocity[i]) + fabs(st.angular_velocity[i]);
    CHECK(bad == 0);
    clt_world_destroy(w);
  }
  printf("  thrown box: max penetration post %.2e, none %.2e; final |v| %.1e / %.1e\n", max_pen[0], max_pen[1],
         speed[0], speed[1]);
  CHECK_LE(max_pen[0], 1e-9);
  CHECK(max_pen[1] > 1e-3);
  CHECK_LE(speed[0], 1e-9);
  CHECK_LE(speed[1], 1e-9);
}

/* A sphere resting on a plane: zero drift over 10⁴ steps (issue 4). */
static void resting_sphere(void) {
  clt_world_t *w = ball_world(0.0, 0.0, 0.1);
  clt_body_id_t ball = clt_world_body_at(w, 1);
  clt_body_state_t s0;
  clt_body_get_state(w, ball, &s0);
  int bad = 0;
  double max_v = 0.0;
  for (int n = 0; n < 10000; n++) {
    if (clt_world_step(w) != CLT_OK) bad++;
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED) bad++;
    clt_body_state_t s;
    clt_body_get_state(w, ball, &s);
    double v = fabs(s.velocity[0]) + fabs(s.velocity[1]) + fabs(s.velocity[2]) + fabs(s.angular_velocity[0]) +
               fabs(s.angular_velocity[1]) + fabs(s.angular_velocity[2]);
    if (v > max_v) max_v = v;
  }
  clt_body_state_t s;
  clt_body_get_state(w, ball, &s);
  double drift = fabs(s.position[0] - s0.position[0]) + fabs(s.position[1] - s0.position[1]) +
                 fabs(s.position[2] - s0.position[2]);
  printf("  resting sphere, 10^4 steps: drift %.2e, max |v| %.2e\n", drift, max_v);
  CHECK(bad == 0);
  CHECK_LE(drift, 1e-12);
  CHECK_LE(max_v, 1e-12);
  clt_world_destroy(w);
}

int main(void) {
  resting_box(CLT_SOLVER_LEMKE, 0.0);
  resting_box(CLT_SOLVER_BGS, 0.0);
  resting_box(CLT_SOLVER_LEMKE, 0.01);
  resting_box(CLT_SOLVER_BGS, 0.01);
  incline(CLT_SOLVER_LEMKE);
  incline(CLT_SOLVER_BGS);
  bouncing_ball();
  resting_sphere();
  conveyor();
  post_contacts();
  checkpoint_at_impact();
  checkpoint_warm_start();
  return clt_test_finish();
}
