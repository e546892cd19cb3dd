/* M̂⁻¹ per body (SPEC.md §1): M̂ = M, block diagonal, except that the semi-implicit gyroscopic
 * treatment (004 §2.3.5) uses J + h K_c, K_c = −[J ω⁽ˡ⁾]ₓ, in the angular block — the same matrix
 * the free-velocity stage inverts, so v⁺ = v_free + M̂⁻¹ N z is the exact solution of the
 * dynamics row of §1. Evaluated at the start-of-step velocity, before the free-velocity stage. */
#include <string.h>

#include "math/vec.h"
#include "steppers/stepper.h"
#include "base/parallel.h"

clt_status_t clt_compute_inverse_mass(clt_world_t *world, clt_step_work_t *work, double h, bool plain_mass) {
  if (!clt_step_work_reserve_bodies(work, world->body_count))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (body workspace)");
  bool semi = !plain_mass && world->dimension == 3 && world->method.gyroscopic == CLT_GYRO_SEMI_IMPLICIT;
  work->symmetric = !semi;
  int n = world->body_count, bad = n; /* the first singular body (a min: any split) */
  CLT_PARALLEL_FOR_IF(n >= CLT_BODY_PARALLEL_MIN, schedule(static) reduction(min : bad),
  for (int i = 0; i < n; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    double *m = work->inv_angular[i];
    memset(m, 0, 9 * sizeof *m);
    if (b->type != CLT_BODY_DYNAMIC) {
      work->inv_linear[i] = 0.0;
      continue;
    }
    work->inv_linear[i] = b->inv_mass;
    if (world->dimension == 2) {
      m[0] = b->inv_inertia[0];
    } else if (!semi) {
      m[0] = b->inv_inertia[0];
      m[4] = b->inv_inertia[1];
      m[8] = b->inv_inertia[2];
    } else {
      const double *w = world->states[i].angular_velocity;
      double jw[3] = {b->inertia[0] * w[0], b->inertia[1] * w[1], b->inertia[2] * w[2]};
      double a[3][3] = {{b->inertia[0], h * jw[2], -h * jw[1]},
                        {-h * jw[2], b->inertia[1], h * jw[0]},
                        {h * jw[1], -h * jw[0], b->inertia[2]}};
      for (int col = 0; col < 3; col++) {
        double e[3] = {0.0, 0.0, 0.0}, x[3];
        e[col] = 1.0;
        if (!clt_m3_solve(a, e, x)) {
          if (i < bad) bad = i;
          break;
        }
        for (int r = 0; r < 3; r++) m[3 * r + col] = x[r];
      }
    }
  });
  if (bad < n) {
    char label[CLT_NAME_SIZE + 32];
    clt_body_label(world, bad, label, sizeof label);
    return clt_world_fail(world, CLT_ERR_NUMERICAL, "%s: singular semi-implicit gyroscopic matrix", label);
  }
  return CLT_OK;
}

clt_status_t clt_stage_inverse_mass(clt_step_context_t *c) {
  return clt_compute_inverse_mass(c->world, c->work, c->h, false);
}
