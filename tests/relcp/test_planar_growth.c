/* Planar ReLCP with changing bodies (what the colony of issue 7 does between steps): capsules
 * lying in the plane z = 0 of a planar overdamped world (SPEC.md §6.1, §6.3), pushed together;
 * between steps a capsule grows (clt_body_set_capsule_length) and new capsules are added. Every
 * step: z and the world ω_x, ω_y stay exactly 0, the true overlap stays ≤ ε_tol (ReLCP), and the
 * default drag follows the new length (a longer capsule is slower under the same force). */
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

#define PI 3.14159265358979323846

static clt_body_id_t add_capsule(clt_world_t *w, double x, double y, double angle, double length, double fx,
                                 double fy) {
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  s.radius = 0.25;
  s.length = length;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[0] = x;
  bd.position[1] = y;
  /* capsule axis (local z) into the plane along angle: rotate z→x (about y by 90°), then about z */
  double cy = cos(PI / 4), sy = sin(PI / 4), cz = cos(0.5 * angle), sz = sin(0.5 * angle);
  bd.orientation[0] = cz * cy; /* q_z(angle) ⊗ q_y(π/2) */
  bd.orientation[1] = -sz * sy;
  bd.orientation[2] = cz * sy;
  bd.orientation[3] = cy * sz;
  bd.shapes = &s;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = id;
  fd.force[0] = fx;
  fd.force[1] = fy;
  fd.force[2] = 0.3; /* out of the plane: must have no effect */
  fd.torque[0] = 0.2;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  return id;
}

int main(void) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = 0.5;
  memset(wd.gravity, 0, sizeof wd.gravity);
  wd.law = CLT_LAW_OVERDAMPED;
  wd.planar = true;
  wd.method.contact_model = CLT_CONTACT_MODEL_RELCP;
  wd.method.overlap_tolerance = 1e-4;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_body_id_t a = add_capsule(w, -2.5, 0.0, 0.3, 1.5, 1.0, 0.0);
  add_capsule(w, 2.5, 0.1, -0.4, 1.5, -1.0, 0.0);
  double worst_overlap = 0.0, worst_z = 0.0, worst_w = 0.0;
  int augmented = 0, added = 0, contact_steps = 0;
  double speed_short = 0.0, speed_long = 0.0;
  for (int n = 0; n < 200; n++) {
    if (n == 0 || n == 1) { /* the free velocity of body a before contact, before and after growth */
      clt_body_state_t s;
      CHECK(clt_world_step(w) == CLT_OK);
      clt_body_get_state(w, a, &s);
      if (n == 0) speed_short = s.velocity[0];
      if (n == 1) speed_long = s.velocity[0];
      if (n == 0) CHECK(clt_body_set_capsule_length(w, a, 0, 2.5) == CLT_OK);
      continue;
    }
    if (n % 40 == 20) { /* a new cell enters from above, pushed down */
      add_capsule(w, 2.0 * added - 3.0, 4.0, 0.7 * added, 1.0, 0.3 - 0.2 * added, -1.0);
      added++;
    }
    if (n % 25 == 0) { /* growth of a while in contact */
      double len = 2.5 + 0.02 * n / 25.0;
      CHECK(clt_body_set_capsule_length(w, a, 0, len) == CLT_OK);
    }
    clt_status_t st = clt_world_step(w);
    CHECK(st == CLT_OK);
    if (st != CLT_OK) {
      printf("step %d: %s\n", n + 1, clt_world_error(w));
      break;
    }
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    worst_overlap = fmax(worst_overlap, d.max_overlap);
    if (d.constraints > d.contacts) augmented++;
    if (d.constraints > 0) contact_steps++;
    for (int i = 0; i < clt_world_body_count(w); i++) {
      clt_body_state_t s;
      clt_body_get_state(w, clt_world_body_at(w, i), &s);
      worst_z = fmax(worst_z, fabs(s.position[2]));
      /* world ω = R ω_B: its x, y parts */
      double q0 = s.orientation[0], x = s.orientation[1], y = s.orientation[2], z = s.orientation[3];
      double r[2][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - q0 * z), 2 * (x * z + q0 * y)},
                        {2 * (x * y + q0 * z), 1 - 2 * (x * x + z * z), 2 * (y * z - q0 * x)}};
      for (int k = 0; k < 2; k++)
        worst_w = fmax(worst_w, fabs(r[k][0] * s.angular_velocity[0] + r[k][1] * s.angular_velocity[1] +
                                     r[k][2] * s.angular_velocity[2]));
    }
  }
  printf("planar growth: %d bodies, %d steps with constraints, max overlap %.3g, augmented steps %d, max |z| %.3g, "
         "max |omega_xy| %.3g, free speed %.5f -> %.5f after growth\n",
         clt_world_body_count(w), contact_steps, worst_overlap, augmented, worst_z, worst_w, speed_short, speed_long);
  CHECK(contact_steps > 50);
  CHECK(clt_world_body_count(w) == 2 + added && added >= 4);
  CHECK_LE(worst_overlap, 1e-4);
  CHECK(worst_z == 0.0);
  CHECK_LE(worst_w, 1e-12);
  CHECK(speed_short > 0.0 && speed_long > 0.0 && speed_long < speed_short);
  clt_world_destroy(w);
  return clt_test_finish();
}
