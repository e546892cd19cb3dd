/* Stage "integrate" (SPEC.md §0): q⁺ = q ⊕ h v⁺ for dynamic bodies — 2D θ⁺ = θ + h ω⁺; 3D
 * x⁺ = x + h u⁺, r⁺ = r ⊗ exp(½ h ω⁺) renormalized — and the prescribed law at t + h for
 * kinematic bodies. Static bodies never move. */
#include "math/vec.h"
#include "steppers/stepper.h"
#include "base/parallel.h"

/* Bodies are independent: from this many on the loop runs on the OpenMP threads (the same result
 * for any number of threads; below it a parallel region costs more than the loop). */
#define INTEGRATE_PARALLEL_MIN 4096

clt_status_t clt_stage_integrate(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  double h = c->h;
  CLT_PARALLEL_FOR_IF(world->body_count >= INTEGRATE_PARALLEL_MIN, schedule(static),
  for (int i = 0; i < world->body_count; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    clt_body_state_t *s = &world->states[i];
    if (b->type == CLT_BODY_KINEMATIC) {
      clt_kinematic_state(world, i, c->t_next, s);
    } else if (b->type == CLT_BODY_DYNAMIC) {
      clt_v3_axpy(s->position, s->position, h, s->velocity);
      if (world->dimension == 2)
        s->angle += h * s->angular_velocity[0];
      else
        clt_q_integrate(s->orientation, s->orientation, s->angular_velocity, h);
    }
  });
  return CLT_OK;
}
