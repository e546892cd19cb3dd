/* Joint limits and motors (docs/actuation.md), against what is known exactly:
 *  - a bar on a hinge, lifted by a velocity motor with 10× the torque that holds it, into its
 *    upper limit: the limit's violation after every step (≤ 1e-6 rad with `post`, ≤ 1e-3 rad with
 *    `anitescu-hart`, both at h = 0.01), and no energy gained once it rests there;
 *  - the same lever with a motor of maximum torque τ_max lifts it iff τ_max exceeds the static
 *    torque m g r: the threshold found by bisection within 0.5 %;
 *  - a floating pair (no gravity) whose hinge motor spins the two up: the total angular and linear
 *    momentum stay what they were to 1e-10 (the motor acts on both bodies, equal and opposite),
 *    with a velocity, a position and an effort motor;
 *  - a position servo with stiffness 1e6 N m/rad holds its target at h = 0.01 and h = 0.05;
 *  - a prismatic slider under gravity stops at its lower limit, and a limit with restitution
 *    0.5 sends the bar back at half its speed;
 *  - a ball joint's 30° cone and ±0.4 rad twist range hold a rod swung and spun past both;
 *  - a 2D slider driven up a tilted axis stops at its limit, unturned;
 *  - joint state: limit impulse, side and motor impulse after a step;
 *  - bad definitions: each refused with its reason. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

#define PI 3.14159265358979323846

static const double mass = 2.0, length = 1.0, g0 = 9.81;

static void box_inertia(double m, const double e[3], double out[3]);

/* A 3D world with gravity −z and a bar (box length × 0.1 × 0.1) along +x from a hinge at the
 * origin about the world y axis; the bar is body A, the ground B, so θ (B relative to A) grows
 * when the bar lifts its free end (gravity drives θ down). */
static clt_world_t *lever(clt_scheme_t scheme, double h, clt_body_id_t *bar, clt_joint_id_t *joint,
                          const clt_joint_limit_t *limit, const clt_joint_motor_t *motor) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  wd.gravity[0] = wd.gravity[1] = 0.0;
  wd.gravity[2] = -g0;
  wd.method.scheme = scheme;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = 0.5 * length;
  box.half_extents[1] = box.half_extents[2] = 0.05;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &box;
  bd.shape_count = 1;
  bd.mass = mass;
  box_inertia(mass, box.half_extents, bd.inertia);
  bd.position[0] = 0.5 * length;
  CHECK(clt_world_add_body(w, &bd, bar) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = *bar;
  jd.anchor_a[0] = -0.5 * length;
  jd.axis_a[0] = jd.axis_a[2] = 0.0;
  jd.axis_a[1] = 1.0;
  jd.axis_b[0] = jd.axis_b[2] = 0.0;
  jd.axis_b[1] = 1.0;
  if (limit) jd.limit = *limit;
  if (motor) jd.motor = *motor;
  CHECK(clt_world_add_joint(w, &jd, joint) == CLT_OK);
  return w;
}

/* principal moments of a solid box of mass m and half extents e */
static void box_inertia(double m, const double e[3], double out[3]) {
  out[0] = m / 3.0 * (e[1] * e[1] + e[2] * e[2]);
  out[1] = m / 3.0 * (e[0] * e[0] + e[2] * e[2]);
  out[2] = m / 3.0 * (e[0] * e[0] + e[1] * e[1]);
}

static double energy(const clt_world_t *w) { return clt_world_kinetic_energy(w) + clt_world_potential_energy(w); }

static void limit_under_motor(clt_scheme_t scheme, double bound) {
  clt_joint_limit_t limit = {true, -1.0, 0.5, 0.0, 0.0};
  clt_joint_motor_t motor = {0};
  motor.mode = CLT_MOTOR_VELOCITY;
  motor.target_velocity = 2.0;
  motor.max_force = 10.0 * mass * g0 * 0.5 * length; /* 10× the torque that holds the bar level */
  clt_body_id_t bar;
  clt_joint_id_t j;
  clt_world_t *w = lever(scheme, 0.01, &bar, &j, &limit, &motor);
  double worst = 0.0, e_rest = NAN, gain = 0.0, rate_at_rest = 0.0;
  int engaged = -1;
  for (int n = 0; n < 300; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_joint_state_t s;
    CHECK(clt_joint_get_state(w, j, &s) == CLT_OK);
    worst = fmax(worst, s.position - limit.upper);
    if (engaged < 0 && s.limit_active == 1) engaged = n;
    if (engaged >= 0 && n >= engaged + 2) {
      if (isnan(e_rest)) e_rest = energy(w);
      gain = fmax(gain, energy(w) - e_rest);
      rate_at_rest = fmax(rate_at_rest, fabs(s.rate));
    }
  }
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  printf("limit under a 10x velocity motor, %s, h = 0.01: engaged at step %d, largest violation %.3g rad "
         "(bound %g), energy gain at rest %.3g J, |rate| at rest <= %.3g rad/s, joint error %.3g\n",
         clt_scheme_name(scheme), engaged, worst, bound, gain, rate_at_rest, d.joint_error);
  CHECK(engaged > 0 && engaged < 100);
  CHECK_LE(worst, bound);
  CHECK_LE(gain, 1e-9);
  CHECK_LE(rate_at_rest, 1e-6);
  clt_world_destroy(w);
}

/* θ after 0.5 s of a velocity motor (target +1 rad/s) with the given maximum torque, from level. */
static double lift(double max_torque) {
  clt_joint_motor_t motor = {0};
  motor.mode = CLT_MOTOR_VELOCITY;
  motor.target_velocity = 1.0;
  motor.max_force = max_torque;
  clt_body_id_t bar;
  clt_joint_id_t j;
  clt_world_t *w = lever(CLT_SCHEME_POST, 0.01, &bar, &j, NULL, &motor);
  for (int n = 0; n < 50; n++) CHECK(clt_world_step(w) == CLT_OK);
  clt_joint_state_t s;
  CHECK(clt_joint_get_state(w, j, &s) == CLT_OK);
  clt_world_destroy(w);
  return s.position;
}

static void force_threshold(void) {
  double stat = mass * g0 * 0.5 * length; /* m g r */
  CHECK(lift(1.005 * stat) > 0.0);
  CHECK(lift(0.995 * stat) < 0.0);
  double lo = 0.5 * stat, hi = 1.5 * stat;
  for (int it = 0; it < 30; it++) {
    double mid = 0.5 * (lo + hi);
    if (lift(mid) > 0.0)
      hi = mid;
    else
      lo = mid;
  }
  double threshold = 0.5 * (lo + hi);
  printf("lever: the motor lifts iff its maximum torque exceeds %.9g N m; static torque m g r = %.9g N m "
         "(relative difference %.2e)\n", threshold, stat, fabs(threshold / stat - 1.0));
  CHECK_LE(fabs(threshold / stat - 1.0), 0.005);
}

/* A motor and its rotor: two boxes on a common hinge axis (tilted) through both centres of mass,
 * no gravity, drifting together: the motor spins them up against each other. Isotropic inertias
 * and the centres on the axis: no gyroscopic torque and no orbiting, so the joint error stays at
 * round-off and only the motor could change the momentum. */
static void momentum(clt_motor_mode_t mode) {
  clt_world_def_t wd = clt_default_world_def();
  wd.gravity[0] = wd.gravity[1] = wd.gravity[2] = 0.0;
  wd.time_step = 0.01;
  wd.method.scheme = CLT_SCHEME_ANITESCU_HART;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = 0.4;
  box.half_extents[1] = 0.2;
  box.half_extents[2] = 0.1;
  const double axis[3] = {0.6, 0.0, 0.8};
  clt_body_id_t b[2];
  for (int i = 0; i < 2; i++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.shapes = &box;
    bd.shape_count = 1;
    bd.mass = i == 0 ? 3.0 : 1.0;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.05 * bd.mass;
    for (int k = 0; k < 3; k++) bd.position[k] = 1.0 * i * axis[k];
    bd.velocity[1] = 0.3;
    CHECK(clt_world_add_body(w, &bd, &b[i]) == CLT_OK);
  }
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = b[0];
  jd.body_b = b[1];
  for (int k = 0; k < 3; k++) {
    jd.anchor_a[k] = 0.5 * axis[k];
    jd.anchor_b[k] = -0.5 * axis[k];
  }
  memcpy(jd.axis_a, axis, sizeof axis);
  memcpy(jd.axis_b, axis, sizeof axis);
  jd.motor.mode = mode;
  jd.motor.target_velocity = 5.0;
  jd.motor.target_position = 1.0;
  jd.motor.stiffness = 50.0;
  jd.motor.damping = 1.0;
  jd.motor.max_force = 2.0;
  jd.motor.effort = 1.5;
  clt_joint_id_t j;
  CHECK(clt_world_add_joint(w, &jd, &j) == CLT_OK);
  double l0[3], a0[3], l1[3], a1[3];
  clt_world_momentum(w, l0, a0);
  double worst = 0.0;
  for (int n = 0; n < 200; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_world_momentum(w, l1, a1);
    for (int k = 0; k < 3; k++) worst = fmax(worst, fmax(fabs(l1[k] - l0[k]), fabs(a1[k] - a0[k])));
  }
  clt_joint_state_t s;
  CHECK(clt_joint_get_state(w, j, &s) == CLT_OK);
  printf("floating pair, %s motor: after 2 s the joint turns at %.6g rad/s (angle %.6g rad), motor impulse "
         "%.3g N m s; largest change of the linear and angular momentum %.3g\n",
         clt_motor_mode_name(mode), s.rate, s.position, s.motor_impulse, worst);
  if (mode == CLT_MOTOR_VELOCITY) CHECK_NEAR(s.rate, 5.0, 1e-9);
  /* at rest where −k (θ − θ*) − c (0 − θ̇*) = 0: θ = θ* + c θ̇* / k */
  if (mode == CLT_MOTOR_POSITION) CHECK_NEAR(s.position, 1.0 + 1.0 * 5.0 / 50.0, 1e-6);
  if (mode == CLT_MOTOR_EFFORT) CHECK(fabs(s.rate) > 10.0);
  CHECK_LE(worst, 1e-10);
  clt_world_destroy(w);
}

static void stiff_servo(double h) {
  clt_joint_motor_t motor = {0};
  motor.mode = CLT_MOTOR_POSITION;
  motor.target_position = 0.3;
  motor.stiffness = 1e6;
  motor.damping = 1e3;
  motor.max_force = 1e4;
  clt_body_id_t bar;
  clt_joint_id_t j;
  clt_world_t *w = lever(CLT_SCHEME_POST, h, &bar, &j, NULL, &motor);
  int steps = (int)lround(2.0 / h);
  double worst_late = 0.0;
  for (int n = 0; n < steps; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_joint_state_t s;
    CHECK(clt_joint_get_state(w, j, &s) == CLT_OK);
    if (n >= steps / 2) worst_late = fmax(worst_late, fabs(s.position - 0.3));
  }
  /* at rest the servo's torque k e balances gravity's m g r cos θ: e = m g r cos(0.3) / k */
  double sag = mass * g0 * 0.5 * length * cos(0.3) / 1e6;
  printf("position servo k = 1e6 N m/rad, h = %g: |theta - target| over the second second <= %.3g rad "
         "(static sag %.3g rad)\n", h, worst_late, sag);
  CHECK_LE(worst_late, 2.0 * sag + 1e-9);
  clt_world_destroy(w);
}

static void restitution(void) {
  clt_joint_limit_t limit = {true, -0.3, 0.3, 0.5, 0.0};
  clt_body_id_t bar;
  clt_joint_id_t j;
  /* the bar falls (θ decreases) from level onto the lower bound */
  clt_world_t *w = lever(CLT_SCHEME_POST, 0.001, &bar, &j, &limit, NULL);
  double before = 0.0, after = 0.0;
  for (int n = 0; n < 2000; n++) {
    clt_joint_state_t s0, s1;
    CHECK(clt_joint_get_state(w, j, &s0) == CLT_OK);
    CHECK(clt_world_step(w) == CLT_OK);
    CHECK(clt_joint_get_state(w, j, &s1) == CLT_OK);
    if (s0.rate < 0.0 && s1.rate > 0.0) {
      before = s0.rate;
      after = s1.rate;
      break;
    }
  }
  printf("limit with restitution 0.5: rate %.6g rad/s before the impact, %.6g after (ratio %.6g)\n", before, after,
         -after / before);
  CHECK(before < -1.0);
  CHECK_NEAR(-after / before, 0.5, 0.01); /* one step of gravity (h = 1e-3) on either side */
  clt_world_destroy(w);
}

static void slider(void) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = 0.01;
  wd.method.scheme = CLT_SCHEME_POST;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &box;
  bd.shape_count = 1;
  bd.position[2] = 2.0;
  clt_body_id_t b;
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_PRISMATIC);
  jd.body_a = b;
  jd.anchor_b[2] = 2.0;
  jd.limit.enabled = true;
  jd.limit.lower = -0.5; /* the ground's anchor below the box's: s = (p_B − p_A)·a grows as it falls */
  jd.limit.upper = 1.0;
  clt_joint_id_t j;
  CHECK(clt_world_add_joint(w, &jd, &j) == CLT_OK);
  for (int n = 0; n < 200; n++) CHECK(clt_world_step(w) == CLT_OK);
  clt_joint_state_t s;
  CHECK(clt_joint_get_state(w, j, &s) == CLT_OK);
  clt_body_state_t st;
  CHECK(clt_body_get_state(w, b, &st) == CLT_OK);
  const double *z = st.position;
  double m = 1000.0; /* the default box: 1 m³ at 1000 kg/m³ */
  printf("slider: the box falls 1 m onto its limit: s = %.12g m, rate %.3g, limit impulse %.6g N s (m g h = %.6g), "
         "side %d\n", s.position, s.rate, s.limit_impulse, m * 9.81 * 0.01, s.limit_active);
  CHECK_NEAR(s.position, 1.0, 1e-9);
  CHECK_NEAR(z[2], 1.0, 1e-9);
  CHECK(s.limit_active == 1);
  CHECK_NEAR(s.limit_impulse, -m * 9.81 * 0.01, 1e-9); /* from the upper bound: it pushes θ down */
  clt_world_destroy(w);
}

/* A rod hanging from a ball joint at the origin (axes: the rod's up its length, the world's z),
 * pushed sideways hard enough to swing to about 70°, and spinning about its length: a 30° cone
 * and a ±0.4 rad twist range hold it (post: every step ends inside them). */
static void cone_and_twist(void) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = 0.01;
  wd.method.scheme = CLT_SCHEME_POST;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = box.half_extents[1] = 0.05;
  box.half_extents[2] = 0.5;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &box;
  bd.shape_count = 1;
  bd.position[2] = -0.5;
  bd.velocity[0] = 3.0;            /* unlimited, it would swing up to about 70° */
  bd.angular_velocity[1] = 6.0;    /* the swing's own rotation about y (v = ω × r) */
  bd.angular_velocity[2] = 4.0;    /* and a spin about its length */
  clt_body_id_t rod;
  CHECK(clt_world_add_body(w, &bd, &rod) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_SPHERICAL);
  jd.body_a = rod;
  jd.anchor_a[2] = 0.5;
  jd.limit.enabled = true;
  jd.limit.swing = 30.0 * PI / 180.0;
  jd.limit.lower = -0.4;
  jd.limit.upper = 0.4;
  clt_joint_id_t j;
  CHECK(clt_world_add_joint(w, &jd, &j) == CLT_OK);
  double worst_swing = 0.0, worst_twist = 0.0, max_swing = 0.0, max_twist = 0.0, worst_error = 0.0;
  for (int n = 0; n < 300; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t s;
    CHECK(clt_body_get_state(w, rod, &s) == CLT_OK);
    /* the rod's axis (its body z) against the world's z, and its twist: its turn about A's axis
     * (the rod's) relative to the world, as a revolute joint measures it */
    double q[4] = {s.orientation[0], s.orientation[1], s.orientation[2], s.orientation[3]};
    double az = 1.0 - 2.0 * (q[1] * q[1] + q[2] * q[2]); /* R(q) e_z · e_z */
    double swing = acos(fmax(-1.0, fmin(1.0, az)));
    /* the twist part of the rod's rotation about z (swing–twist), as the joint measures it: the
     * world's turn relative to the rod, −2 atan2(q_z, q_w) */
    double twist = -2.0 * atan2(q[3], q[0]);
    max_twist = fmax(max_twist, fabs(twist));
    worst_twist = fmax(worst_twist, fabs(twist) - jd.limit.upper);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    worst_error = fmax(worst_error, d.joint_error);
    max_swing = fmax(max_swing, swing);
    worst_swing = fmax(worst_swing, swing - jd.limit.swing);
  }
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  printf("ball joint with a 30 deg cone and a +-0.4 rad twist range (post, h = 0.01): largest swing %.6f deg, "
         "past the cone by %.2e rad; largest |twist| %.6f rad, past the range by %.2e; largest joint error (the "
         "cone, the twist range and the point) %.2e\n",
         max_swing * 180.0 / PI, worst_swing, max_twist, worst_twist, worst_error);
  CHECK(max_twist > 0.39);
  CHECK_LE(worst_twist, 1e-6);
  CHECK(max_swing > 29.0 * PI / 180.0); /* it did reach the cone */
  CHECK_LE(worst_swing, 1e-6);
  CHECK_LE(worst_error, 1e-6);
  clt_world_destroy(w);
}

/* 2D: a disk turned by 0.3 rad on a slider to the world along (0.6, 0.8) in its own frame, driven up
 * it at 1 m/s by a velocity motor until its limit 0.5 m; gravity pulls it back, the limit and the
 * motor hold it there, unturned. */
static void slider_2d(void) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.time_step = 0.01;
  wd.gravity[1] = -9.81;
  wd.gravity[2] = 0.0;
  wd.method.scheme = CLT_SCHEME_POST;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t disk = clt_default_shape_def(CLT_SHAPE_DISK);
  disk.radius = 0.1;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &disk;
  bd.shape_count = 1;
  bd.angle = 0.3;
  clt_body_id_t b;
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_PRISMATIC);
  jd.body_a = b; /* the world is B: θ = (p_world − p_block)·a */
  jd.axis_a[0] = 0.6;
  jd.axis_a[1] = 0.8;
  jd.axis_a[2] = 0.0;
  jd.limit.enabled = true;
  jd.limit.lower = -0.5; /* s = (p_world − p_block)·a: the block moving +a lowers s */
  jd.limit.upper = 0.5;
  jd.motor.mode = CLT_MOTOR_VELOCITY;
  jd.motor.target_velocity = -1.0;
  jd.motor.max_force = 1e5;
  clt_joint_id_t j;
  CHECK(clt_world_add_joint(w, &jd, &j) == CLT_OK);
  for (int n = 0; n < 200; n++) CHECK(clt_world_step(w) == CLT_OK);
  clt_joint_state_t s;
  CHECK(clt_joint_get_state(w, j, &s) == CLT_OK);
  clt_body_state_t st;
  CHECK(clt_body_get_state(w, b, &st) == CLT_OK);
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  /* the axis is the block's (A's): (0.6, 0.8) turned by its angle 0.3 in the world */
  double ax = 0.6 * cos(0.3) - 0.8 * sin(0.3), ay = 0.6 * sin(0.3) + 0.8 * cos(0.3);
  printf("2D slider along (0.6, 0.8) in the block's frame: slide %.12f m (lower limit -0.5), block at (%.9f, %.9f) "
         "(%.9f, %.9f expected), angle %.12f (0.3), joint error %.2e\n", s.position, st.position[0], st.position[1],
         0.5 * ax, 0.5 * ay, st.angle, d.joint_error);
  CHECK_NEAR(s.position, -0.5, 1e-9);
  CHECK_NEAR(st.position[0], 0.5 * ax, 1e-9);
  CHECK_NEAR(st.position[1], 0.5 * ay, 1e-9);
  CHECK_NEAR(st.angle, 0.3, 1e-9);
  CHECK(s.limit_active == -1);
  clt_world_destroy(w);
}

static void bad_definitions(void) {
  clt_world_def_t wd = clt_default_world_def();
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t sphere = clt_default_shape_def(CLT_SHAPE_SPHERE);
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &sphere;
  bd.shape_count = 1;
  clt_body_id_t b;
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = b;
  jd.limit.enabled = true;
  jd.limit.lower = 0.5;
  jd.limit.upper = 0.2;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "limit.lower (0.5 rad) must be below limit.upper (0.2 rad)") != NULL);
  jd.limit.lower = -4.0;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "[-pi, pi]") != NULL);
  jd.limit.enabled = false;
  jd.motor.mode = CLT_MOTOR_VELOCITY;
  jd.motor.max_force = -1.0;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "motor.max_force must be > 0") != NULL);
  jd.motor.max_force = 1.0;
  jd.type = CLT_JOINT_SPHERICAL;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "a motor needs a revolute or prismatic joint (this one is spherical)") != NULL);
  jd.type = CLT_JOINT_REVOLUTE;
  jd.motor.mode = CLT_MOTOR_POSITION;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "a position motor needs stiffness") != NULL);
  jd.motor.stiffness = 10.0;
  clt_joint_id_t j;
  CHECK(clt_world_add_joint(w, &jd, &j) == CLT_OK);
  clt_joint_motor_t m = jd.motor;
  m.target_position = NAN;
  CHECK(clt_joint_set_motor(w, j, &m) == CLT_ERR_INVALID_ARGUMENT);
  clt_joint_info_t info;
  CHECK(clt_joint_get_info(w, j, &info) == CLT_OK);
  CHECK(info.motor.mode == CLT_MOTOR_POSITION && info.motor.target_position == 0.0); /* unchanged */
  clt_joint_limit_t lim = {true, -1.0, 1.0, 1.5, 0.0};
  CHECK(clt_joint_set_limit(w, j, &lim) == CLT_ERR_INVALID_ARGUMENT);
  lim.restitution = 0.2;
  CHECK(clt_joint_set_limit(w, j, &lim) == CLT_OK);
  CHECK(clt_joint_get_info(w, j, &info) == CLT_OK);
  CHECK(info.limit.enabled && info.limit.restitution == 0.2);
  clt_motor_mode_t mode;
  CHECK(clt_motor_mode_from_name("effort", &mode) && mode == CLT_MOTOR_EFFORT);
  CHECK(!clt_motor_mode_from_name("torque", &mode));
  clt_world_destroy(w);

  /* a pipeline without a step problem of rows refuses a limit */
  wd.method.scheme = CLT_SCHEME_RELAXED;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = b;
  jd.limit = lim;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_ERR_UNSUPPORTED);
  CHECK(strstr(clt_world_error(w), "has a limit") != NULL);
  clt_world_destroy(w);
}

int main(void) {
  limit_under_motor(CLT_SCHEME_POST, 1e-6);
  limit_under_motor(CLT_SCHEME_ANITESCU_HART, 1e-3);
  force_threshold();
  momentum(CLT_MOTOR_VELOCITY);
  momentum(CLT_MOTOR_POSITION);
  momentum(CLT_MOTOR_EFFORT);
  stiff_servo(0.01);
  stiff_servo(0.05);
  restitution();
  slider();
  cone_and_twist();
  slider_2d();
  bad_definitions();
  return clt_test_finish();
}
