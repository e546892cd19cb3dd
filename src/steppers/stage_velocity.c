/* Stage "solve" without constraint rows (SPEC.md §1): M̂ v⁺ = M v + h k̂, per dynamic body:
 *   u⁺ = u + h (g + F/m)
 *   J ω⁺ = J ω + h (τ − ω × J ω)                   gyroscopic explicit (default)
 *   (J + h K_c) ω⁺ = J ω + h τ,  K_c = −[J ω]ₓ       gyroscopic semi-implicit (004 §2.3.5)
 *   J ω⁺ = J ω + h τ                               gyroscopic off
 * The semi-implicit form conserves ω⁺ᵀ(J ω⁺ − J ω) = h ω⁺ᵀτ, so with τ = 0 the kinetic energy of a
 * free body never increases (Cauchy–Schwarz in the J inner product). */
#include <math.h>
#include <stdbool.h>

#include "math/vec.h"
#include "steppers/stepper.h"
#include "base/parallel.h"

/* false: the semi-implicit matrix is singular (the caller reports it). */
static bool body_velocity_3d(clt_world_t *world, int i, double h) {
  const clt_body_rec_t *b = &world->bodies[i];
  clt_body_state_t *s = &world->states[i];
  const double *f = world->force_acc[i], *tau = world->torque_acc[i];
  for (int k = 0; k < 3; k++) s->velocity[k] += h * (world->gravity[k] + f[k] * b->inv_mass);
  double *w = s->angular_velocity;
  double jw[3] = {b->inertia[0] * w[0], b->inertia[1] * w[1], b->inertia[2] * w[2]};
  switch (world->method.gyroscopic) {
    case CLT_GYRO_EXPLICIT: {
      double gyro[3];
      clt_v3_cross(gyro, w, jw); /* ω × Jω */
      for (int k = 0; k < 3; k++) w[k] += h * b->inv_inertia[k] * (tau[k] - gyro[k]);
      break;
    }
    case CLT_GYRO_SEMI_IMPLICIT: {
      /* J + h K_c with K_c = −[Jω]ₓ; [a]ₓ is the cross-product matrix (a × x = [a]ₓ x). */
      double m[3][3] = {{b->inertia[0], h * jw[2], -h * jw[1]},
                        {-h * jw[2], b->inertia[1], h * jw[0]},
                        {h * jw[1], -h * jw[0], b->inertia[2]}};
      double rhs[3] = {jw[0] + h * tau[0], jw[1] + h * tau[1], jw[2] + h * tau[2]};
      double out[3];
      if (!clt_m3_solve(m, rhs, out)) return false;
      clt_v3_copy(w, out);
      break;
    }
    case CLT_GYRO_OFF:
      for (int k = 0; k < 3; k++) w[k] += h * b->inv_inertia[k] * tau[k];
      break;
  }
  return true;
}

clt_status_t clt_stage_free_velocity(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  double h = c->h;
  int n = world->body_count, bad = n; /* the first body whose update failed (a min: any split) */
  CLT_PARALLEL_FOR_IF(n >= CLT_BODY_PARALLEL_MIN, schedule(static) reduction(min : bad),
  for (int i = 0; i < n; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    if (b->type != CLT_BODY_DYNAMIC) continue;
    if (world->dimension == 2) {
      clt_body_state_t *s = &world->states[i];
      s->velocity[0] += h * (world->gravity[0] + world->force_acc[i][0] * b->inv_mass);
      s->velocity[1] += h * (world->gravity[1] + world->force_acc[i][1] * b->inv_mass);
      s->angular_velocity[0] += h * world->torque_acc[i][0] * b->inv_inertia[0];
    } else if (!body_velocity_3d(world, i, h) && i < bad) {
      bad = i;
    }
  });
  if (bad < n) {
    char label[CLT_NAME_SIZE + 32];
    clt_body_label(world, bad, label, sizeof label);
    return clt_world_fail(world, CLT_ERR_NUMERICAL, "%s: singular semi-implicit gyroscopic matrix", label);
  }
  return CLT_OK;
}
