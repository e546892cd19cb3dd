/* Kinematic bodies (SPEC.md §0): motion prescribed as a function of time, either
 *   x(t) = x0 + velocity·t + amplitude·sin(2π frequency·t + phase),
 * rotation at the constant (body-frame) angular velocity ω0: θ(t) = θ0 + ω0 t in 2D,
 * r(t) = r0 ⊗ exp(½ t ω0) in 3D; or through keyframes (world.h clt_motion_t): positions and 2D
 * angles piecewise linear or monotone cubic Hermite, 3D orientations by slerp, r(t) = r_k ⊗ exp(½ (t − t_k) ω_k)
 * with ω_k = 2 log(r_k⁻¹ ⊗ r_{k+1}) / (t_{k+1} − t_k) in the body frame (the shortest way). The
 * velocity is reported analytically (it enters contacts): the motion's on [t, t + dt). */
#include <math.h>

#include "dynamics/world_internal.h"
#include "math/vec.h"

static double component(const clt_keyframe_t *f, int c) { return c < 3 ? f->position[c] : f->angle; }

/* Tangent (dx/dt) of component c at keyframe k for the cubic law, monotone (Fritsch–Carlson, as
 * PCHIP): 0 at the ends and where the slopes on either side differ in sign or one is 0 (a hold or
 * a turning point stays one: no overshoot), else their weighted harmonic mean. */
static double tangent(const clt_keyframe_t *f, int n, int k, int c) {
  if (k <= 0 || k >= n - 1) return 0.0;
  double h0 = f[k].time - f[k - 1].time, h1 = f[k + 1].time - f[k].time;
  double d0 = (component(&f[k], c) - component(&f[k - 1], c)) / h0;
  double d1 = (component(&f[k + 1], c) - component(&f[k], c)) / h1;
  if (!(d0 * d1 > 0.0)) return 0.0;
  double w0 = 2.0 * h1 + h0, w1 = h1 + 2.0 * h0;
  return (w0 + w1) / (w0 / d0 + w1 / d1);
}

static void keyframed_state(const clt_world_t *world, const clt_body_extra_t *b, double t, clt_body_state_t *out) {
  const clt_keyframe_t *f = world->keyframes + b->keyframe_first;
  int n = b->motion.keyframe_count;
  for (int c = 0; c < 3; c++) out->velocity[c] = out->angular_velocity[c] = 0.0;
  int k = 0; /* the piece [t_k, t_{k+1}) holding t; k = n − 1 past the last, −1 before the first */
  if (t < f[0].time) {
    k = -1;
  } else {
    while (k + 1 < n && f[k + 1].time <= t) k++;
  }
  if (k < 0 || k == n - 1) { /* held, at rest */
    const clt_keyframe_t *e = &f[k < 0 ? 0 : n - 1];
    clt_v3_copy(out->position, e->position);
    out->angle = world->dimension == 2 ? e->angle : 0.0;
    if (world->dimension == 3)
      clt_q_copy(out->orientation, e->orientation);
    else
      clt_q_identity(out->orientation);
    return;
  }
  const clt_keyframe_t *a = &f[k], *z = &f[k + 1];
  double dt = z->time - a->time, s = (t - a->time) / dt;
  int comps = world->dimension == 2 ? 4 : 3; /* x, y, z (and the 2D angle as component 3) */
  for (int c = 0; c < comps; c++) {
    if (world->dimension == 2 && c == 2) {
      out->position[2] = 0.0;
      continue;
    }
    double p0 = c < 3 ? a->position[c] : a->angle, p1 = c < 3 ? z->position[c] : z->angle, value, rate;
    if (b->motion.interpolation == CLT_INTERPOLATE_CUBIC) {
      double m0 = tangent(f, n, k, c) * dt, m1 = tangent(f, n, k + 1, c) * dt;
      double s2 = s * s, s3 = s2 * s;
      value = (2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * m0 + (-2 * s3 + 3 * s2) * p1 + (s3 - s2) * m1;
      rate = ((6 * s2 - 6 * s) * p0 + (3 * s2 - 4 * s + 1) * m0 + (-6 * s2 + 6 * s) * p1 + (3 * s2 - 2 * s) * m1) / dt;
    } else {
      value = p0 + s * (p1 - p0);
      rate = (p1 - p0) / dt;
    }
    if (c < 3) {
      out->position[c] = value;
      out->velocity[c] = rate;
    } else {
      out->angle = value;
      out->angular_velocity[0] = rate;
    }
  }
  if (world->dimension == 2) {
    clt_q_identity(out->orientation);
    return;
  }
  out->angle = 0.0;
  double inv[4], d[4];
  clt_q_conj(inv, a->orientation);
  clt_q_mul(d, inv, z->orientation);
  if (d[0] < 0.0)
    for (int c = 0; c < 4; c++) d[c] = -d[c];
  double sn = sqrt(d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
  double phi = 2.0 * atan2(sn, d[0]); /* the turn from r_k to r_{k+1}, in [0, π] */
  for (int c = 0; c < 3; c++) out->angular_velocity[c] = sn > 0.0 ? phi * d[c + 1] / sn / dt : 0.0;
  clt_q_integrate(out->orientation, a->orientation, out->angular_velocity, t - a->time);
}

void clt_kinematic_state(const clt_world_t *world, int body, double t, clt_body_state_t *out) {
  const clt_body_extra_t *b = clt_body_extra(world, body);
  if (b->motion.keyframe_count > 0) {
    keyframed_state(world, b, t, out);
    return;
  }
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
