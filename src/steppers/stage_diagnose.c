/* Stage "diagnose" (SPEC.md §7): the state-describing part of the diagnostics after the step
 * (energies, joint error, infeasibility I(q) over all joints and pairs). Solver fields are
 * filled by the stages that solve; with no rows there is no problem (status none, size 0). */
#include "steppers/stepper.h"

clt_status_t clt_stage_diagnose(clt_step_context_t *c) {
  clt_diagnostics_t *d = c->diagnostics;
  d->step = c->step;
  d->t = c->t_next;
  clt_world_describe_state(c->world, d);
  return CLT_OK;
}
