/* Force elements (SPEC.md §1, §4), explicit: applied constant + cosine force and torque against
 * the exact discrete sums of the scheme; a spring–damper as a harmonic oscillator (period of the
 * scheme and of the ODE, damping rate); a spring between two bodies conserves momentum. */
#include <string.h>

#include "clatter/world.h"
#include "math/vec.h"
#include "test_util.h"

static clt_world_t *world(int dim, double h, bool gravity) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  wd.time_step = h;
  memset(wd.gravity, 0, sizeof wd.gravity);
  if (gravity) wd.gravity[1] = -9.81;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  return w;
}

static clt_body_id_t body(clt_world_t *w, double mass, double inertia, double x) {
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = mass;
  bd.inertia[0] = inertia;
  if (clt_world_dimension(w) == 3) bd.inertia[1] = bd.inertia[2] = inertia;
  bd.position[0] = x;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  return id;
}

/* F(t) = F0 + A cos(t) ("20 cos t"), evaluated at the start of each step: the velocity after n
 * steps is v0 + (h/m)(n F0 + A Σ_{k<n} cos(k h)) with the closed form of the cosine sum. */
static void applied_force(int dim) {
  double h = 0.05, m = 2.0, F0 = 3.0, A = 20.0;
  clt_world_t *w = world(dim, h, true);
  clt_body_id_t id = body(w, m, 0.7, 0.0);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = id;
  fd.force[0] = F0;
  fd.force_amplitude[0] = A;
  fd.frequency = 1.0 / (2.0 * CLT_PI);
  fd.torque[dim == 2 ? 0 : 2] = 0.35;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  double worst_v = 0.0, worst_x = 0.0, worst_w = 0.0, x_sum = 0.0;
  for (int n = 1; n <= 200; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    double cos_sum = sin(0.5 * n * h) / sin(0.5 * h) * cos(0.5 * (n - 1) * h);
    double v = h / m * (n * F0 + A * cos_sum);
    x_sum += v;
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    worst_v = fmax(worst_v, fabs(s.velocity[0] - v) / fmax(1.0, fabs(v)));
    worst_x = fmax(worst_x, fabs(s.position[0] - h * x_sum) / fmax(1.0, fabs(h * x_sum)));
    CHECK_NEAR(s.velocity[1], -9.81 * n * h, 1e-12);
    /* constant torque: ω_n = n h τ / I (isotropic J in 3D: no gyroscopic term) */
    double wn = n * h * 0.35 / 0.7;
    worst_w = fmax(worst_w, fabs(s.angular_velocity[dim == 2 ? 0 : 2] - wn));
    if (n == 200) {
      double angle = h * h * 0.5 * n * (n + 1) / 2.0;
      if (dim == 2)
        CHECK_NEAR(s.angle, angle, 1e-12);
      else
        CHECK_NEAR(fabs(s.orientation[3]), fabs(sin(0.5 * angle)), 1e-12); /* rotation about z */
    }
  }
  printf("%dD applied force: max rel. error velocity %.3g, position %.3g, spin %.3g\n", dim, worst_v, worst_x, worst_w);
  CHECK_LE(worst_v, 1e-12);
  CHECK_LE(worst_x, 1e-12);
  CHECK_LE(worst_w, 1e-12);
  clt_world_destroy(w);
}

/* Torque given in the world frame is converted to the body frame: for a body turned 90° about x
 * the body y axis is the world z axis, so a world-z torque accelerates ω_y with J_yy. */
static void world_frame_torque(void) {
  clt_world_t *w = world(3, 1e-3, false);
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = 1.0;
  bd.inertia[1] = 2.0;
  bd.inertia[2] = 3.0;
  bd.orientation[0] = cos(CLT_PI / 4.0);
  bd.orientation[1] = sin(CLT_PI / 4.0); /* 90° about x: body y → world z */
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = id;
  fd.torque[2] = 4.0;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t s;
  clt_body_get_state(w, id, &s);
  CHECK_NEAR(s.angular_velocity[0], 0.0, 1e-15);
  CHECK_NEAR(s.angular_velocity[1], 1e-3 * 4.0 / 2.0, 1e-15);
  CHECK_NEAR(s.angular_velocity[2], 0.0, 1e-15);
  clt_world_destroy(w);
}

/* Mass on a spring to the ground (anchor in the world frame), no gravity. The scheme is symplectic
 * Euler: x oscillates with cos(ω_h h) = 1 − (ω h)²/2, ω² = k/m. */
static void oscillator(void) {
  double h = 1e-3, m = 0.5, k = 200.0, L0 = 1.0, amp = 0.1;
  clt_world_t *w = world(3, h, false);
  clt_body_id_t id = body(w, m, 1.0, L0 + amp);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
  fd.body_a = id;
  fd.stiffness = k;
  fd.rest_length = L0;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  double omega = sqrt(k / m), omega_h = acos(1.0 - 0.5 * omega * omega * h * h) / h;
  /* upward zero crossings of the displacement, linearly interpolated */
  double prev = amp, first = -1.0, last = -1.0, e0 = clt_world_kinetic_energy(w) + clt_world_potential_energy(w);
  int crossings = 0;
  double energy_dev = 0.0;
  for (int n = 1; n <= 5000; n++) {
    CHECK(clt_world_step(w) == CLT_OK || n < 0);
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    double x = s.position[0] - L0;
    if (prev < 0.0 && x >= 0.0) {
      double tc = (n - 1 + prev / (prev - x)) * h;
      if (first < 0.0) first = tc;
      last = tc;
      crossings++;
    }
    prev = x;
    energy_dev = fmax(energy_dev, fabs(clt_world_kinetic_energy(w) + clt_world_potential_energy(w) - e0) / e0);
  }
  double period = (last - first) / (crossings - 1);
  printf("spring: period %.9f, scheme 2π/ω_h %.9f, ODE 2π/ω %.9f, max energy deviation %.3g\n", period,
         2.0 * CLT_PI / omega_h, 2.0 * CLT_PI / omega, energy_dev);
  CHECK(crossings >= 4);
  CHECK_NEAR(period, 2.0 * CLT_PI / omega_h, 1e-6);
  CHECK_NEAR(period, 2.0 * CLT_PI / omega, 2.0 * (omega * h) * (omega * h) * 2.0 * CLT_PI / omega);
  CHECK_LE(energy_dev, omega * h); /* symplectic: bounded, O(h) oscillation, no drift */
  clt_world_destroy(w);

  /* damped: amplitude decays as exp(−c t / 2m) */
  double c = 2.0;
  w = world(3, h, false);
  id = body(w, m, 1.0, L0 + amp);
  fd.body_a = id;
  fd.damping = c;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  double peak_late = 0.0;
  for (int n = 1; n <= 3000; n++) {
    clt_world_step(w);
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    if (n * h > 2.5) peak_late = fmax(peak_late, fabs(s.position[0] - L0));
  }
  double envelope = amp * exp(-c / (2.0 * m) * 2.5);
  printf("damped spring: late peak %.6g, envelope at 2.5 s %.6g\n", peak_late, envelope);
  CHECK_LE(peak_late, 1.05 * envelope);
  CHECK(peak_late > 0.7 * envelope);
  clt_world_destroy(w);
}

/* Two bodies joined by an off-centre spring–damper: internal forces conserve linear and angular
 * momentum (equal and opposite forces along the line of the anchors). 2D and 3D. */
static void two_body_spring(int dim) {
  clt_world_t *w = world(dim, 1e-3, false);
  clt_body_id_t a = body(w, 1.0, 0.2, 0.0), b = body(w, 3.0, 0.5, 2.0);
  clt_body_state_t s;
  clt_body_get_state(w, b, &s);
  s.velocity[1] = 0.4;
  if (dim == 3) s.angular_velocity[0] = 0.3;
  if (dim == 2) s.angular_velocity[0] = -0.7;
  CHECK(clt_body_set_state(w, b, &s) == CLT_OK);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
  fd.body_a = a;
  fd.body_b = b;
  fd.anchor_a[1] = 0.3;
  fd.anchor_b[0] = -0.2;
  if (dim == 3) fd.anchor_b[2] = 0.1;
  fd.stiffness = 50.0;
  fd.damping = 0.5;
  fd.rest_length = 1.5;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  double p0[3], l0[3], p1[3], l1[3];
  clt_world_momentum(w, p0, l0);
  for (int n = 0; n < 2000; n++) clt_world_step(w);
  clt_world_momentum(w, p1, l1);
  double dp = 0.0;
  for (int k = 0; k < 3; k++) dp = fmax(dp, fabs(p1[k] - p0[k]));
  printf("%dD two-body spring: linear momentum change %.3g, angular (z) %.3g -> %.3g\n", dim, dp, l0[2], l1[2]);
  CHECK_LE(dp, 1e-12);
  /* Angular momentum is conserved by the ODE; the explicit step changes it by O(h). */
  CHECK_NEAR(l1[2], l0[2], 0.02 * fabs(l0[2]) + 1e-3);
  clt_world_destroy(w);
}

int main(void) {
  applied_force(2);
  applied_force(3);
  world_frame_torque();
  oscillator();
  two_body_spring(2);
  two_body_spring(3);
  return clt_test_finish();
}
