/* clt_joint_get_state (world.h): the coordinate and rate of one-coordinate joints, against motions
 * whose coordinate is known exactly. Without gravity:
 *  - 2D: a disk pinned at its centre spinning at 10 rad/s: the world turns by −n h ω relative to
 *    it, counting whole turns;
 *  - 3D: a turned sphere on a hinge about (1, 1, 0)/√2 spinning at 3 rad/s about it: the world
 *    turns by −n h ω relative to it, in (−π, π], at rate −ω;
 *  - a box on a prismatic joint along a turned axis sliding at 2 m/s: the world's anchor slides
 *    s₀ − 2 t along it, rate −2;
 *  - a distance joint: its distance, rate 0 while it holds;
 *  - a spherical joint has no single coordinate; a stale id is refused. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

#define PI 3.14159265358979323846

static clt_world_t *world_of(int dim) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  wd.gravity[0] = wd.gravity[1] = wd.gravity[2] = 0.0;
  wd.time_step = 0.01;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  return w;
}

static double wrap(double a) {
  a = fmod(a, 2.0 * PI);
  if (a > PI) a -= 2.0 * PI;
  if (a <= -PI) a += 2.0 * PI;
  return a;
}

static void spinning_disk(void) {
  clt_world_t *w = world_of(2);
  clt_shape_def_t disk = clt_default_shape_def(CLT_SHAPE_DISK);
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &disk;
  bd.shape_count = 1;
  bd.angle = 0.7;
  bd.angular_velocity[0] = 10.0;
  clt_body_id_t b;
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = b;
  clt_joint_id_t j;
  CHECK(clt_world_add_joint(w, &jd, &j) == CLT_OK);
  clt_joint_state_t s;
  CHECK(clt_joint_get_state(w, j, &s) == CLT_OK);
  CHECK(s.position == 0.0 && s.rate == -10.0); /* B (the ground) turns at −10 rad/s relative to A */
  for (int n = 0; n < 100; n++) CHECK(clt_world_step(w) == CLT_OK);
  CHECK(clt_joint_get_state(w, j, &s) == CLT_OK);
  printf("2D disk: angle %.15g (expected %.15g), rate %.15g\n", s.position, -10.0, s.rate);
  CHECK_NEAR(s.position, -10.0, 1e-12); /* more than a turn, not wrapped */
  CHECK_NEAR(s.rate, -10.0, 1e-12);
  clt_world_destroy(w);
}

static void hinge_3d(void) {
  clt_world_t *w = world_of(3);
  clt_shape_def_t sphere = clt_default_shape_def(CLT_SHAPE_SPHERE);
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &sphere;
  bd.shape_count = 1;
  /* turned 0.9 rad about (0, 0.6, 0.8): the hinge axis in its def frame is R⁻¹ (1, 1, 0)/√2 */
  double c = cos(0.45), s = sin(0.45);
  double q[4] = {c, 0.0, 0.6 * s, 0.8 * s};
  memcpy(bd.orientation, q, sizeof q);
  const double k = 1.0 / sqrt(2.0), axis[3] = {k, k, 0.0}, omega = 3.0;
  /* ω in the body frame: R⁻¹ (ω axis) */
  double u[3] = {-q[1], -q[2], -q[3]}, local[3];
  {
    double t[3] = {2 * (u[1] * axis[2] - u[2] * axis[1]), 2 * (u[2] * axis[0] - u[0] * axis[2]),
                   2 * (u[0] * axis[1] - u[1] * axis[0])};
    local[0] = axis[0] + q[0] * t[0] + (u[1] * t[2] - u[2] * t[1]);
    local[1] = axis[1] + q[0] * t[1] + (u[2] * t[0] - u[0] * t[2]);
    local[2] = axis[2] + q[0] * t[2] + (u[0] * t[1] - u[1] * t[0]);
  }
  for (int i = 0; i < 3; i++) bd.angular_velocity[i] = omega * local[i];
  clt_body_id_t b;
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = b; /* (body_a must be a body: B is the world, which turns at −ω relative to A) */
  jd.body_b = clt_world_ground();
  memcpy(jd.axis_a, local, sizeof local);
  memcpy(jd.axis_b, axis, sizeof axis);
  clt_joint_id_t j;
  CHECK(clt_world_add_joint(w, &jd, &j) == CLT_OK);
  double worst = 0.0, worst_rate = 0.0;
  for (int n = 1; n <= 150; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_joint_state_t st;
    CHECK(clt_joint_get_state(w, j, &st) == CLT_OK);
    /* the world (B) turns at −ω relative to the sphere (A) */
    worst = fmax(worst, fabs(wrap(st.position - wrap(-omega * 0.01 * n))));
    worst_rate = fmax(worst_rate, fabs(st.rate + omega));
  }
  printf("3D hinge over 4.5 rad: angle off by %.3g rad, rate off by %.3g rad/s\n", worst, worst_rate);
  CHECK_LE(worst, 1e-10);
  CHECK_LE(worst_rate, 1e-10);
  clt_world_destroy(w);
}

static void slider_and_distance(void) {
  clt_world_t *w = world_of(3);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &box;
  bd.shape_count = 1;
  const double axis[3] = {0.6, 0.0, 0.8};
  for (int i = 0; i < 3; i++) bd.velocity[i] = 2.0 * axis[i];
  bd.position[0] = 1.0;
  clt_body_id_t b;
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_PRISMATIC);
  jd.body_a = b;
  jd.body_b = clt_world_ground();
  memcpy(jd.axis_a, axis, sizeof axis);
  memcpy(jd.axis_b, axis, sizeof axis);
  clt_joint_id_t j;
  CHECK(clt_world_add_joint(w, &jd, &j) == CLT_OK);
  clt_joint_state_t st;
  CHECK(clt_joint_get_state(w, j, &st) == CLT_OK);
  double s0 = st.position; /* (0 − (1, 0, 0))·a = −0.6 */
  CHECK_NEAR(s0, -0.6, 1e-15);
  for (int n = 0; n < 50; n++) CHECK(clt_world_step(w) == CLT_OK);
  CHECK(clt_joint_get_state(w, j, &st) == CLT_OK);
  printf("slider: %.15g after 0.5 s (expected %.15g), rate %.15g\n", st.position, s0 - 1.0, st.rate);
  CHECK_NEAR(st.position, s0 - 1.0, 1e-12); /* the world's anchor moves −2 m/s along A's axis */
  CHECK_NEAR(st.rate, -2.0, 1e-12);

  /* a distance joint between the box and a ball at 1.5 m */
  clt_shape_def_t ball = clt_default_shape_def(CLT_SHAPE_SPHERE);
  clt_body_def_t bb = clt_default_body_def();
  bb.shapes = &ball;
  bb.shape_count = 1;
  clt_body_state_t box_state;
  clt_body_get_state(w, b, &box_state);
  for (int i = 0; i < 3; i++) bb.position[i] = box_state.position[i];
  bb.position[1] += 1.5;
  for (int i = 0; i < 3; i++) bb.velocity[i] = box_state.velocity[i];
  clt_body_id_t ballb;
  CHECK(clt_world_add_body(w, &bb, &ballb) == CLT_OK);
  clt_joint_def_t dd = clt_default_joint_def(CLT_JOINT_DISTANCE);
  dd.body_a = b;
  dd.body_b = ballb;
  clt_joint_id_t dj;
  CHECK(clt_world_add_joint(w, &dd, &dj) == CLT_OK);
  for (int n = 0; n < 20; n++) CHECK(clt_world_step(w) == CLT_OK);
  CHECK(clt_joint_get_state(w, dj, &st) == CLT_OK);
  printf("distance joint: %.15g, rate %.3g\n", st.position, st.rate);
  CHECK_NEAR(st.position, 1.5, 1e-10);
  CHECK_LE(fabs(st.rate), 1e-10);

  /* no single coordinate; bad handles */
  clt_joint_def_t sd = clt_default_joint_def(CLT_JOINT_SPHERICAL);
  sd.body_a = ballb;
  clt_joint_id_t sj;
  CHECK(clt_world_add_joint(w, &sd, &sj) == CLT_OK);
  CHECK(clt_joint_get_state(w, sj, &st) == CLT_ERR_UNSUPPORTED);
  CHECK(strstr(clt_world_error(w), "no single coordinate") != NULL);
  clt_joint_id_t stale = j;
  stale.generation += 1;
  CHECK(clt_joint_get_state(w, stale, &st) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_joint_get_state(w, j, NULL) == CLT_ERR_INVALID_ARGUMENT);
  clt_world_destroy(w);
}

int main(void) {
  spinning_disk();
  hinge_3d();
  slider_and_distance();
  return clt_test_finish();
}
