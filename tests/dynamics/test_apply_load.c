/* clt_body_apply_force / clt_body_apply_torque (world.h): loads for the next step only. Without
 * gravity, a force at the centre of mass for n steps gives v = n h F / m; one off the centre adds
 * the torque (p − x) × F, ω = h τ / I after one step; a step without a call keeps the velocities;
 * calls add up; an equal and opposite pair on two bodies (an actuator) keeps the total momentum
 * zero; 2D torques; bad calls refused with a reason. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

static clt_world_t *world_3d(void) {
  clt_world_def_t wd = clt_default_world_def();
  wd.gravity[2] = 0.0;
  wd.time_step = 0.01;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  return w;
}

static clt_body_id_t add_box(clt_world_t *w, double x, clt_body_type_t type) {
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = 0.5;
  box.half_extents[1] = 0.25;
  box.half_extents[2] = 0.1;
  clt_body_def_t bd = clt_default_body_def();
  bd.type = type;
  bd.position[0] = x;
  bd.shapes = &box;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  return id;
}

static void three_d(void) {
  clt_world_t *w = world_3d();
  clt_body_id_t a = add_box(w, 0.0, CLT_BODY_DYNAMIC), b = add_box(w, 5.0, CLT_BODY_DYNAMIC);
  clt_body_id_t wall = add_box(w, -5.0, CLT_BODY_STATIC);
  clt_body_info_t info;
  clt_body_get_info(w, a, &info);
  const double h = 0.01, m = info.mass, iz = info.inertia[2];
  const double force[3] = {3.0, -1.0, 2.0};
  /* at the centre of mass, 10 steps */
  for (int n = 0; n < 10; n++) {
    CHECK(clt_body_apply_force(w, a, force, NULL) == CLT_OK);
    CHECK(clt_world_step(w) == CLT_OK);
  }
  clt_body_state_t s;
  clt_body_get_state(w, a, &s);
  double worst = 0.0;
  for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(s.velocity[k] - 10.0 * h * force[k] / m) / fabs(10.0 * h * force[k] / m));
  printf("10 steps at the centre: v = (%.15g, %.15g, %.15g), relative error %.3g\n", s.velocity[0], s.velocity[1],
         s.velocity[2], worst);
  CHECK_LE(worst, 1e-14);
  CHECK(s.angular_velocity[0] == 0.0 && s.angular_velocity[1] == 0.0 && s.angular_velocity[2] == 0.0);
  /* the loads are spent: a step without a call keeps the velocity */
  double v_before[3];
  memcpy(v_before, s.velocity, sizeof v_before);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_get_state(w, a, &s);
  CHECK(memcmp(v_before, s.velocity, sizeof v_before) == 0);

  /* off the centre: F = (0, 2, 0) at 0.5 m along x adds τ = (0, 0, 1); two calls of half each */
  clt_body_state_t b0;
  clt_body_get_state(w, b, &b0);
  double point[3] = {b0.position[0] + 0.5, b0.position[1], b0.position[2]}, half[3] = {0.0, 1.0, 0.0};
  CHECK(clt_body_apply_force(w, b, half, point) == CLT_OK);
  CHECK(clt_body_apply_force(w, b, half, point) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_get_state(w, b, &s);
  printf("off the centre: v_y %.15g (h F/m %.15g), w_z %.15g (h tau/I %.15g)\n", s.velocity[1], h * 2.0 / m,
         s.angular_velocity[2], h * 1.0 / iz);
  CHECK_NEAR(s.velocity[1], h * 2.0 / m, 1e-15);
  CHECK_NEAR(s.angular_velocity[2], h * 1.0 / iz, 1e-14);

  /* an actuator: equal and opposite loads on a and b keep the total momentum */
  double pa0[3];
  clt_body_state_t sa, sb;
  clt_body_get_state(w, a, &sa);
  clt_body_get_state(w, b, &sb);
  for (int k = 0; k < 3; k++) pa0[k] = m * (sa.velocity[k] + sb.velocity[k]);
  const double push[3] = {-4.0, 0.5, 0.0}, pull[3] = {4.0, -0.5, 0.0};
  for (int n = 0; n < 5; n++) {
    CHECK(clt_body_apply_force(w, a, push, NULL) == CLT_OK);
    CHECK(clt_body_apply_force(w, b, pull, NULL) == CLT_OK);
    CHECK(clt_world_step(w) == CLT_OK);
  }
  clt_body_get_state(w, a, &sa);
  clt_body_get_state(w, b, &sb);
  double drift = 0.0;
  for (int k = 0; k < 3; k++) drift = fmax(drift, fabs(m * (sa.velocity[k] + sb.velocity[k]) - pa0[k]));
  printf("actuator pair: total momentum changed by %.3g N s\n", drift);
  CHECK_LE(drift, 1e-13);

  /* bad calls */
  const double bad[3] = {NAN, 0.0, 0.0};
  CHECK(clt_body_apply_force(w, wall, force, NULL) == CLT_ERR_INVALID_ARGUMENT);
  printf("static body: %s\n", clt_world_error(w));
  CHECK(strstr(clt_world_error(w), "only dynamic bodies") != NULL);
  CHECK(clt_body_apply_force(w, a, bad, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "finite") != NULL);
  CHECK(clt_body_apply_torque(w, a, NULL) == CLT_ERR_INVALID_ARGUMENT);
  clt_body_id_t stale = a;
  stale.generation += 7;
  CHECK(clt_body_apply_force(w, stale, force, NULL) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_body_apply_force(w, clt_world_ground(), force, NULL) != CLT_OK);
  clt_world_destroy(w);
}

static void two_d(void) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.gravity[1] = 0.0;
  wd.gravity[2] = 0.0;
  wd.time_step = 0.01;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t disk = clt_default_shape_def(CLT_SHAPE_DISK);
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &disk;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_body_info_t info;
  clt_body_get_info(w, id, &info);
  const double tau[3] = {0.3, 0.0, 0.0}, up[3] = {0.0, 1.0, 0.0}, side[3] = {1.0, 0.0, 0.0};
  CHECK(clt_body_apply_torque(w, id, tau) == CLT_OK);
  CHECK(clt_body_apply_force(w, id, up, side) == CLT_OK); /* at (1, 0): τ = 1 about z */
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t s;
  clt_body_get_state(w, id, &s);
  printf("2D: w %.15g (h tau/I %.15g)\n", s.angular_velocity[0], 0.01 * 1.3 / info.inertia[0]);
  CHECK_NEAR(s.angular_velocity[0], 0.01 * 1.3 / info.inertia[0], 1e-14);
  const double out_of_plane[3] = {0.0, 0.0, 1.0}, tilt[3] = {0.0, 1.0, 0.0};
  CHECK(clt_body_apply_force(w, id, out_of_plane, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_body_apply_torque(w, id, tilt) == CLT_ERR_INVALID_ARGUMENT);
  clt_world_destroy(w);
}

int main(void) {
  three_d();
  two_d();
  return clt_test_finish();
}
