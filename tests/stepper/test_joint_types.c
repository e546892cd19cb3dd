/* Every joint type in the step (SPEC.md §0, §1): two bodies, the first joined to the world and the
 * second to the first by the joint under test, thrown with a spin under gravity; `anitescu-hart`,
 * h = 1 ms, 1000 steps. The joint error stays at the O(h²‖v‖²) level (≤ 1e-4 m here), the motions the joint forbids
 * stay absent (fixed: at rest; prismatic: no rotation; revolute: relative spin along the axis), and
 * the step problem is solved every step. Also: redundant joints (dependent rows are left out and
 * the motion is the same as with one joint), the semi-implicit gyroscopic term (non-symmetric M̂,
 * LU path) and the 2D joints. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "math/vec.h"
#include "test_util.h"

typedef struct outcome_t {
  double max_error;
  int failures;
  clt_body_state_t a, b; /* final states */
} outcome_t;

static clt_world_t *make_world(int dim, clt_gyroscopic_t gyro) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  if (dim == 2) {
    wd.gravity[1] = -9.81;
    wd.gravity[2] = 0.0;
  }
  wd.method.gyroscopic = gyro;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  return w;
}

static clt_body_id_t add_body(clt_world_t *w, double x, const double v[3], const double omega[3]) {
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = 0.02;
  bd.inertia[1] = 0.03;
  bd.inertia[2] = 0.04;
  if (clt_world_dimension(w) == 2) bd.inertia[1] = bd.inertia[2] = 0.0;
  bd.position[0] = x;
  memcpy(bd.velocity, v, sizeof bd.velocity);
  memcpy(bd.angular_velocity, omega, sizeof bd.angular_velocity);
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  return id;
}

static outcome_t run(clt_world_t *w, int steps) {
  outcome_t o;
  memset(&o, 0, sizeof o);
  for (int n = 0; n < steps; n++) {
    if (clt_world_step(w) != CLT_OK) {
      if (o.failures++ == 0) fprintf(stderr, "  step %d: %s\n", n, clt_world_error(w));
      break;
    }
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED) o.failures++;
    if (d.joint_error > o.max_error) o.max_error = d.joint_error;
  }
  clt_body_get_state(w, clt_world_body_at(w, 0), &o.a);
  clt_body_get_state(w, clt_world_body_at(w, 1), &o.b);
  return o;
}

/* Body 0 at x = 0.5 joined to the world at the origin, body 1 at x = 1.5 joined to body 0 at x = 1. */
static clt_world_t *mechanism(clt_joint_type_t type, clt_gyroscopic_t gyro, int copies) {
  clt_world_t *w = make_world(3, gyro);
  const double v0[3] = {0.0, 0.3, 0.2}, w0[3] = {0.0, 0.0, 2.0}, v1[3] = {0.1, 0.0, -0.2}, w1[3] = {0.0, 0.0, 5.0};
  clt_body_id_t a = add_body(w, 0.5, v0, w0), b = add_body(w, 1.5, v1, w1);
  for (int c = 0; c < copies; c++) {
    clt_joint_def_t jd = clt_default_joint_def(type);
    bool distance = type == CLT_JOINT_DISTANCE; /* rods between the centres (0.5 and 1 long) */
    jd.body_a = a;
    jd.anchor_a[0] = distance ? 0.0 : -0.5;
    jd.axis_a[2] = 1.0;
    jd.axis_b[2] = 1.0;
    CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
    jd.body_a = b;
    jd.body_b = a;
    jd.anchor_b[0] = distance ? 0.0 : 0.5;
    CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  }
  return w;
}

static void test_3d(clt_joint_type_t type) {
  clt_world_t *w = mechanism(type, CLT_GYRO_EXPLICIT, 1);
  outcome_t o = run(w, 1000);
  printf("  3D %-10s max joint error %.3e\n", clt_joint_type_name(type), o.max_error);
  CHECK(o.failures == 0);
  CHECK_LE(o.max_error, 1e-4); /* O(h²‖v‖²/L): h = 1 ms, ‖v‖ of a few m/s */
  if (type == CLT_JOINT_FIXED) {
    /* welded to the world: at rest (the initial velocities are removed on the first step) */
    CHECK_LE(clt_v3_norm(o.a.velocity) + clt_v3_norm(o.b.velocity), 1e-9);
    CHECK_LE(clt_v3_norm(o.a.angular_velocity) + clt_v3_norm(o.b.angular_velocity), 1e-9);
  }
  if (type == CLT_JOINT_PRISMATIC) {
    /* sliding along z only: no rotation, x and y fixed */
    CHECK_LE(clt_v3_norm(o.a.angular_velocity) + clt_v3_norm(o.b.angular_velocity), 1e-9);
    CHECK_NEAR(o.a.position[0], 0.5, 1e-6);
    CHECK_NEAR(o.a.position[1], 0.0, 1e-6);
    CHECK(o.a.position[2] < -1.0); /* it fell (g t²/2 ≈ 4.9 m, minus the initial upward speed) */
  }
  if (type == CLT_JOINT_REVOLUTE) {
    /* hinge about z: the body-frame spin stays along z */
    CHECK_LE(fabs(o.a.angular_velocity[0]) + fabs(o.a.angular_velocity[1]), 1e-9);
    CHECK_LE(fabs(o.a.position[2]), 1e-5);
  }
  clt_world_destroy(w);
}

static void test_redundant(void) {
  clt_world_t *one = mechanism(CLT_JOINT_SPHERICAL, CLT_GYRO_EXPLICIT, 1);
  clt_world_t *two = mechanism(CLT_JOINT_SPHERICAL, CLT_GYRO_EXPLICIT, 2);
  outcome_t o1 = run(one, 300), o2 = run(two, 300);
  double dx = fabs(o1.b.position[0] - o2.b.position[0]) + fabs(o1.b.position[1] - o2.b.position[1]) +
              fabs(o1.b.position[2] - o2.b.position[2]);
  clt_diagnostics_t d;
  clt_world_get_diagnostics(two, &d);
  printf("  redundant spherical joints: lcp_size %d of 12 rows, position difference to one joint %.3e\n",
         d.lcp_size, dx);
  CHECK(o2.failures == 0);
  CHECK(d.lcp_size == 6); /* 12 rows, 6 dependent ones left out */
  CHECK_LE(dx, 1e-9);
  clt_world_destroy(one);
  clt_world_destroy(two);
}

static void test_semi_implicit(void) {
  clt_world_t *w = mechanism(CLT_JOINT_SPHERICAL, CLT_GYRO_SEMI_IMPLICIT, 1);
  outcome_t o = run(w, 1000);
  printf("  semi-implicit gyroscopic term: max joint error %.3e\n", o.max_error);
  CHECK(o.failures == 0);
  CHECK_LE(o.max_error, 1e-4); /* O(h²‖v‖²/L): h = 1 ms, ‖v‖ of a few m/s */
  clt_world_destroy(w);
}

static void test_2d(clt_joint_type_t type) {
  clt_world_t *w = make_world(2, CLT_GYRO_EXPLICIT);
  const double v0[3] = {0.0, 0.5, 0.0}, w0[3] = {1.0, 0.0, 0.0}, v1[3] = {0.0, -0.5, 0.0}, w1[3] = {-3.0, 0.0, 0.0};
  clt_body_id_t a = add_body(w, 0.5, v0, w0), b = add_body(w, 1.5, v1, w1);
  clt_joint_def_t jd = clt_default_joint_def(type);
  bool distance = type == CLT_JOINT_DISTANCE;
  jd.body_a = a;
  jd.anchor_a[0] = distance ? 0.0 : -0.5;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  jd.body_a = b;
  jd.body_b = a;
  jd.anchor_b[0] = distance ? 0.0 : 0.5;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  outcome_t o = run(w, 1000);
  printf("  2D %-10s max joint error %.3e\n", clt_joint_type_name(type), o.max_error);
  CHECK(o.failures == 0);
  CHECK_LE(o.max_error, 1e-4); /* O(h²‖v‖²/L): h = 1 ms, ‖v‖ of a few m/s */
  clt_world_destroy(w);
}

int main(void) {
  test_3d(CLT_JOINT_SPHERICAL);
  test_3d(CLT_JOINT_REVOLUTE);
  test_3d(CLT_JOINT_PRISMATIC);
  test_3d(CLT_JOINT_FIXED);
  test_3d(CLT_JOINT_DISTANCE);
  test_redundant();
  test_semi_implicit();
  test_2d(CLT_JOINT_REVOLUTE);
  test_2d(CLT_JOINT_DISTANCE);
  return clt_test_finish();
}
