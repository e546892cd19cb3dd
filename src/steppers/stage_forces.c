/* Stage "forces": the explicit generalized force k̂ = k(t, q, v) of SPEC.md §1 without gravity and
 * gyroscopic terms (those are per-body and applied in the velocity stage): applied forces and
 * explicit spring–dampers, evaluated at the start-of-step time and state. */
#include "steppers/stepper.h"

clt_status_t clt_stage_forces(clt_step_context_t *c) {
  clt_forces_accumulate(c->world, c->t);
  return CLT_OK;
}
