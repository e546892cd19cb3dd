/* Kinematic bodies (SPEC.md §0): motion prescribed as a function of time,
 *   x(t) = x0 + velocity·t + amplitude·sin(2π frequency·t + phase),
 * rotation at the constant (body-frame) angular velocity ω0: θ(t) = θ0 + ω0 t in 2D,
 * r(t) = r0 ⊗ exp(½ t ω0) in 3D. The velocity is reported analytically (it enters contacts). */
#include <math.h>

#include "dynamics/world_internal.h"
#include "math/vec.h"

void clt_kinematic_state(const clt_world_t *world, int body, double t, clt_body_state_t *out) {
  const clt_body_extra_t *b = clt_body_extra(world, body);
  const clt_motion_t *m = &b->motion;
  double omega_t = 2.0 * CLT_PI * m->frequency;
  double arg = omega_t * t + m->phase;
  double s = sin(arg), c = cos(arg);
  for (int i = 0; i < 3; i++) {
    out->position[i] = b->base_position[i] + m->velocity[i] * t + m->amplitude[i] * s;
    out->velocity[i] = m->velocity[i] + m->amplitude[i] * omega_t * c;
  }
  clt_v3_copy(out->angular_velocity, b->base_angular_velocity);
  if (world->dimension == 2) {
    out->angle = b->base_angle + b->base_angular_velocity[0] * t;
    clt_q_identity(out->orientation);
  } else {
    out->angle = 0.0;
    clt_q_integrate(out->orientation, b->base_orientation, b->base_angular_velocity, t);
  }
}
