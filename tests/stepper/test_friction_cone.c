/* The balanced polyhedral friction cone in 3D (SPEC.md §1): a box sliding on a plane inclined by θ
 * (gravity tilted instead of the plane, so the downhill direction φ can be swept), μ < tan θ. The
 * rows turn each contact's friction basis so that t₁ lies along its tangential load
 * (docs/stepping.md "Friction directions"): the acceleration is the analytical g (sin θ − μ cos θ)
 * and the slide is straight downhill in every direction, for m_C = 4, 8, 16 alike (a basis fixed
 * to the plane would give +31.7 / +8.2 / +2.1 % and 20.9 / 11.3 / 5.6° between generators). With
 * μ > tan θ the box sticks in every direction. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

#define PI 3.14159265358979323846

/* Velocity of the box after `steps` steps from rest; gravity at inclination theta, azimuth phi. */
static void slide(int directions, double theta, double phi, double mu, int steps, double v_out[3], int *failures) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = 0.01;
  wd.gravity[0] = 9.81 * sin(theta) * cos(phi);
  wd.gravity[1] = 9.81 * sin(theta) * sin(phi);
  wd.gravity[2] = -9.81 * cos(theta);
  wd.method.friction_directions = directions;
  wd.method.tolerance = 1e-12;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_material_def_t md = clt_default_material_def();
  md.friction = mu;
  int mat = -1;
  CHECK(clt_world_add_material(w, &md, &mat) == CLT_OK);
  clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  plane.normal[2] = 1.0;
  plane.material = mat;
  clt_body_def_t gd = clt_default_body_def();
  gd.type = CLT_BODY_STATIC;
  gd.shapes = &plane;
  gd.shape_count = 1;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = box.half_extents[1] = 0.25;
  box.half_extents[2] = 0.1;
  box.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[2] = 0.1;
  bd.shapes = &box;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  for (int n = 0; n < steps; n++) {
    if (clt_world_step(w) != CLT_OK) (*failures)++;
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED) (*failures)++;
  }
  clt_body_state_t s;
  clt_body_get_state(w, id, &s);
  memcpy(v_out, s.velocity, 3 * sizeof *v_out);
  clt_world_destroy(w);
}

int main(void) {
  const double theta = 30.0 * PI / 180.0, mu = 0.3, g = 9.81;
  const int steps = 50;
  const double expected = g * (sin(theta) - mu * cos(theta)) * steps * 0.01;
  const int counts[3] = {4, 8, 16};
  int failures = 0;
  printf("3D sliding box, theta = 30 deg, mu = 0.3: speed after 0.5 s vs analytical %.6f\n", expected);
  for (int c = 0; c < 3; c++) {
    int m = counts[c];
    double worst_speed = 0.0, worst_angle = 0.0;
    /* sweep the downhill azimuth over one sector between two generators of the fixed basis (its t₁
     * on the plane z = 0 is +y: clt_v3_basis) */
    for (int k = 0; k <= 8; k++) {
      double phi = 0.5 * PI + (2.0 * PI / m) * k / 8.0;
      double v[3];
      slide(m, theta, phi, mu, steps, v, &failures);
      double speed = hypot(v[0], v[1]);
      double along = v[0] * cos(phi) + v[1] * sin(phi);
      double angle = acos(fmin(1.0, along / speed)) * 180.0 / PI;
      double rel = (speed - expected) / expected;
      if (fabs(rel) > fabs(worst_speed)) worst_speed = rel;
      if (angle > worst_angle) worst_angle = angle;
    }
    printf("  m_C = %2d: worst speed error %+.1e %%, worst direction deviation %.1e deg\n", m, 100.0 * worst_speed,
           worst_angle);
    CHECK_LE(fabs(worst_speed), 1e-9);
    CHECK_LE(worst_angle, 1e-5); /* acos near 1: round-off of 1e-8 rad */
  }
  /* sticking: μ = 0.6 > tan 20° = 0.364, in every direction */
  const double theta_stick = 20.0 * PI / 180.0;
  for (int k = 0; k <= 4; k++) {
    double v[3];
    slide(4, theta_stick, 0.5 * PI + (0.5 * PI) * k / 4.0, 0.6, steps, v, &failures);
    CHECK_LE(hypot(v[0], v[1]), 1e-9);
  }
  CHECK(failures == 0);
  return clt_test_finish();
}
