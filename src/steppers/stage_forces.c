/* Stage "forces": the explicit generalized force k̂ = k(t, q, v) of SPEC.md §1 without gravity and
 * gyroscopic terms (those are per-body and applied in the velocity stage): applied forces and
 * explicit spring–dampers, evaluated at the start-of-step time and state, and the joints' effort motors. */
#include "steppers/stepper.h"

clt_status_t clt_stage_forces(clt_step_context_t *c) {
  /* implicit elements are rows, which not every pipeline has (stage_spring_rows.c) */
  clt_status_t st = clt_check_spring_support(c);
  if (st == CLT_OK) st = clt_check_actuation_support(c);
  if (st != CLT_OK) return st;
  clt_forces_accumulate(c->world, c->t);
  clt_add_joint_efforts(c->world); /* docs/actuation.md: effort motors */
  return CLT_OK;
}
