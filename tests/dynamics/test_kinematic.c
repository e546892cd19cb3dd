/* Kinematic bodies follow x(t) = x0 + v t + A sin(2π f t + φ) with the analytic velocity, rotate
 * at their constant angular velocity, ignore gravity and forces; static bodies never move; neither
 * carries energy or momentum (SPEC.md §0). */
#include <string.h>

#include "clatter/world.h"
#include "math/vec.h"
#include "test_util.h"

static void run(int dim) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  wd.time_step = 1e-3;
  if (dim == 2) {
    wd.gravity[2] = 0.0;
    wd.gravity[1] = -9.81;
  }
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_body_def_t kd = clt_default_body_def();
  kd.type = CLT_BODY_KINEMATIC;
  kd.position[0] = 1.0;
  kd.position[1] = -2.0;
  kd.motion.velocity[0] = 0.1;
  kd.motion.amplitude[1] = 0.05;
  if (dim == 3) kd.motion.amplitude[2] = 0.02;
  kd.motion.frequency = 2.0;
  kd.motion.phase = 0.3;
  if (dim == 2)
    kd.angular_velocity[0] = 1.5;
  else
    kd.angular_velocity[2] = 1.5;
  clt_shape_def_t plane = clt_default_shape_def(dim == 2 ? CLT_SHAPE_HALFPLANE : CLT_SHAPE_HALFSPACE);
  kd.shapes = &plane;
  kd.shape_count = 1;
  clt_body_id_t kid, sid;
  CHECK(clt_world_add_body(w, &kd, &kid) == CLT_OK);
  clt_body_def_t sd = clt_default_body_def();
  sd.type = CLT_BODY_STATIC;
  sd.position[0] = 4.0;
  sd.shapes = &plane;
  sd.shape_count = 1;
  CHECK(clt_world_add_body(w, &sd, &sid) == CLT_OK);
  clt_body_state_t s0;
  clt_body_get_state(w, sid, &s0);
  double worst = 0.0, worst_v = 0.0;
  const double two_pi = 2.0 * CLT_PI;
  for (int n = 0; n <= 1500; n++) {
    if (n > 0) CHECK(clt_world_step(w) == CLT_OK);
    double t = n * wd.time_step, arg = two_pi * 2.0 * t + 0.3;
    clt_body_state_t s;
    clt_body_get_state(w, kid, &s);
    double want[3] = {1.0 + 0.1 * t, -2.0 + 0.05 * sin(arg), dim == 3 ? 0.02 * sin(arg) : 0.0};
    double want_v[3] = {0.1, 0.05 * two_pi * 2.0 * cos(arg), dim == 3 ? 0.02 * two_pi * 2.0 * cos(arg) : 0.0};
    for (int k = 0; k < 3; k++) {
      worst = fmax(worst, fabs(s.position[k] - want[k]));
      worst_v = fmax(worst_v, fabs(s.velocity[k] - want_v[k]));
    }
    if (dim == 2) {
      worst = fmax(worst, fabs(s.angle - 1.5 * t));
    } else {
      worst = fmax(worst, fabs(s.orientation[0] - cos(0.75 * t)));
      worst = fmax(worst, fabs(s.orientation[3] - sin(0.75 * t)));
    }
  }
  printf("%dD kinematic: max position/angle error %.3g, velocity error %.3g\n", dim, worst, worst_v);
  CHECK_LE(worst, 1e-13);
  CHECK_LE(worst_v, 1e-12);
  clt_body_state_t s1;
  clt_body_get_state(w, sid, &s1);
  CHECK(memcmp(&s0, &s1, sizeof s0) == 0);
  CHECK(clt_world_kinetic_energy(w) == 0.0);
  CHECK(clt_world_potential_energy(w) == 0.0);
  double p[3], l[3];
  clt_world_momentum(w, p, l);
  CHECK(p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0);
  /* set_state is refused for prescribed bodies */
  CHECK(clt_body_set_state(w, kid, &s1) == CLT_ERR_INVALID_ARGUMENT);
  clt_world_destroy(w);
}

int main(void) {
  run(2);
  run(3);
  return clt_test_finish();
}
