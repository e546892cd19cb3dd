/* Keyframed kinematic bodies (world.h clt_motion_t): the pose at every keyframe time is the
 * keyframe's, exactly where a step lands on it; between keyframes linear or cubic Hermite
 * positions and slerped orientations, whose reported velocities are the derivatives (checked
 * against central differences of the poses); held at rest after the last keyframe; in 2D the
 * angle too. A box resting on a keyframed platform that moves sideways and up is carried by
 * friction. Bad keyframe tables are refused with their reason. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

static clt_world_t *world_of(int dim, double h, double g) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  wd.time_step = h;
  wd.gravity[0] = wd.gravity[1] = wd.gravity[2] = 0.0;
  wd.gravity[dim - 1] = -g;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  return w;
}

static void quat_axis(double q[4], double angle) { /* about z */
  q[0] = cos(0.5 * angle);
  q[1] = q[2] = 0.0;
  q[3] = sin(0.5 * angle);
}

static void poses_3d(clt_interpolation_t interpolation) {
  const double h = 0.01;
  clt_world_t *w = world_of(3, h, 9.81);
  clt_keyframe_t f[3];
  memset(f, 0, sizeof f);
  f[0].time = 0.0;
  f[0].position[2] = 1.0;
  quat_axis(f[0].orientation, 0.0);
  f[1].time = 1.0;
  f[1].position[0] = 1.0;
  f[1].position[2] = 1.0;
  quat_axis(f[1].orientation, 1.5);
  f[2].time = 2.0;
  f[2].position[0] = 1.0;
  f[2].position[1] = 1.0;
  f[2].position[2] = 2.0;
  quat_axis(f[2].orientation, 3.0);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  clt_body_def_t bd = clt_default_body_def();
  bd.type = CLT_BODY_KINEMATIC;
  bd.shapes = &box;
  bd.shape_count = 1;
  bd.motion.keyframes = f;
  bd.motion.keyframe_count = 3;
  bd.motion.interpolation = interpolation;
  clt_body_id_t b;
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  double worst_key = 0.0, worst_rate = 0.0, worst_spin = 0.0;
  clt_body_state_t prev, cur, next;
  CHECK(clt_body_get_state(w, b, &cur) == CLT_OK);
  prev = cur;
  for (int n = 1; n <= 250; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    CHECK(clt_body_get_state(w, b, &next) == CLT_OK);
    if (n >= 2 && n % 100 != 0 && n % 100 != 1 && n < 200) {
      /* central difference of the position at the previous step against its reported velocity */
      for (int k = 0; k < 3; k++)
        worst_rate = fmax(worst_rate, fabs((next.position[k] - prev.position[k]) / (2 * h) - cur.velocity[k]));
      /* the turn about z from one step to the next: ω h (slerp at a constant rate inside a piece) */
      double dz = 2.0 * (atan2(next.orientation[3], next.orientation[0]) - atan2(cur.orientation[3], cur.orientation[0]));
      worst_spin = fmax(worst_spin, fabs(dz / h - cur.angular_velocity[2]));
    }
    if (n % 100 == 0) {
      const clt_keyframe_t *k = &f[n / 100 > 2 ? 2 : n / 100];
      for (int c = 0; c < 3; c++) worst_key = fmax(worst_key, fabs(next.position[c] - k->position[c]));
      for (int c = 0; c < 4; c++) worst_key = fmax(worst_key, fabs(next.orientation[c] - k->orientation[c]));
    }
    prev = cur;
    cur = next;
  }
  printf("keyframes 3D, %s: |pose - keyframe| at the keyframe times <= %.2e; |velocity - central difference| "
         "<= %.2e m/s; |spin - turn per step| <= %.2e rad/s; after the last: velocity %g, spin %g\n",
         interpolation == CLT_INTERPOLATE_CUBIC ? "cubic" : "linear", worst_key, worst_rate, worst_spin,
         cur.velocity[0] + cur.velocity[1] + cur.velocity[2], cur.angular_velocity[2]);
  CHECK_LE(worst_key, 1e-14);
  /* linear: exact; cubic: the central difference's error h²/6 |x'''| */
  CHECK_LE(worst_rate, interpolation == CLT_INTERPOLATE_CUBIC ? 1e-3 : 1e-12);
  CHECK_LE(worst_spin, 1e-10);
  CHECK(cur.velocity[0] == 0.0 && cur.velocity[1] == 0.0 && cur.velocity[2] == 0.0 && cur.angular_velocity[2] == 0.0);
  for (int c = 0; c < 3; c++) CHECK(cur.position[c] == f[2].position[c]);
  clt_world_destroy(w);
}

static void angle_2d(void) {
  clt_world_t *w = world_of(2, 0.01, 0.0);
  clt_keyframe_t f[2];
  memset(f, 0, sizeof f);
  f[0].time = 0.5;
  f[0].angle = 0.2;
  f[1].time = 1.5;
  f[1].position[0] = 2.0;
  f[1].angle = -0.8;
  clt_shape_def_t disk = clt_default_shape_def(CLT_SHAPE_DISK);
  clt_body_def_t bd = clt_default_body_def();
  bd.type = CLT_BODY_KINEMATIC;
  bd.shapes = &disk;
  bd.shape_count = 1;
  bd.motion.keyframes = f;
  bd.motion.keyframe_count = 2;
  clt_body_id_t b;
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  clt_body_state_t s;
  CHECK(clt_body_get_state(w, b, &s) == CLT_OK);
  CHECK(s.angle == 0.2 && s.position[0] == 0.0 && s.angular_velocity[0] == 0.0); /* held before the first */
  for (int n = 0; n < 100; n++) CHECK(clt_world_step(w) == CLT_OK);
  CHECK(clt_body_get_state(w, b, &s) == CLT_OK);
  printf("keyframes 2D: at t = 1 s x = %.15g (1), angle %.15g (-0.3), rate %.15g (-1), x rate %.15g (2)\n",
         s.position[0], s.angle, s.angular_velocity[0], s.velocity[0]);
  CHECK_NEAR(s.position[0], 1.0, 1e-12);
  CHECK_NEAR(s.angle, -0.3, 1e-12);
  CHECK_NEAR(s.angular_velocity[0], -1.0, 1e-12);
  CHECK_NEAR(s.velocity[0], 2.0, 1e-12);
  clt_world_destroy(w);
}

/* A box on a platform that moves 0.5 m sideways and lifts 0.3 m, smoothly, in 2 s: friction
 * (μ = 0.5, the polyhedral cone's exact direction along the load) carries it along. */
static void carried(void) {
  clt_world_t *w = world_of(3, 0.005, 9.81);
  clt_keyframe_t f[3];
  memset(f, 0, sizeof f);
  for (int k = 0; k < 3; k++) f[k].orientation[0] = 1.0;
  f[1].time = 1.0;
  f[1].position[0] = 0.25;
  f[1].position[2] = 0.15;
  f[2].time = 2.0;
  f[2].position[0] = 0.5;
  f[2].position[2] = 0.3;
  clt_shape_def_t plate = clt_default_shape_def(CLT_SHAPE_BOX);
  plate.half_extents[0] = plate.half_extents[1] = 1.0;
  plate.half_extents[2] = 0.05;
  clt_body_def_t pd = clt_default_body_def();
  pd.type = CLT_BODY_KINEMATIC;
  pd.shapes = &plate;
  pd.shape_count = 1;
  pd.motion.keyframes = f;
  pd.motion.keyframe_count = 3;
  pd.motion.interpolation = CLT_INTERPOLATE_CUBIC;
  clt_body_id_t p, b;
  CHECK(clt_world_add_body(w, &pd, &p) == CLT_OK);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = box.half_extents[1] = box.half_extents[2] = 0.1;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &box;
  bd.shape_count = 1;
  bd.position[2] = 0.15;
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  for (int n = 0; n < 500; n++) CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t s;
  CHECK(clt_body_get_state(w, b, &s) == CLT_OK);
  printf("box carried by a keyframed platform: moved to (%.6f, %.6f, %.6f) (platform moved by 0.5, 0, 0.3)\n",
         s.position[0], s.position[1], s.position[2]);
  CHECK_NEAR(s.position[0], 0.5, 1e-3);
  CHECK_NEAR(s.position[2], 0.45, 2e-3);
  clt_world_destroy(w);
}

static void bad_tables(void) {
  clt_world_t *w = world_of(3, 0.01, 9.81);
  clt_keyframe_t f[2];
  memset(f, 0, sizeof f);
  f[0].orientation[0] = f[1].orientation[0] = 1.0;
  f[0].time = 1.0;
  f[1].time = 0.5;
  clt_body_def_t bd = clt_default_body_def();
  bd.type = CLT_BODY_KINEMATIC;
  bd.motion.keyframes = f;
  bd.motion.keyframe_count = 2;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "keyframes[1].time (0.5 s) must be after keyframes[0].time (1 s)") != NULL);
  f[1].time = 2.0;
  bd.motion.velocity[0] = 1.0;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "keyframes set the whole motion") != NULL);
  bd.motion.velocity[0] = 0.0;
  f[1].orientation[0] = 0.0;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  f[1].orientation[0] = 1.0;
  bd.type = CLT_BODY_DYNAMIC;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "motion is for kinematic bodies only") != NULL);
  bd.type = CLT_BODY_KINEMATIC;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_OK);
  clt_world_destroy(w);
}

int main(void) {
  poses_3d(CLT_INTERPOLATE_LINEAR);
  poses_3d(CLT_INTERPOLATE_CUBIC);
  angle_2d();
  carried();
  bad_tables();
  return clt_test_finish();
}
