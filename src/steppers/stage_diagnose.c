/* Stage "diagnose" (SPEC.md §7): the state-describing part of the diagnostics after the step
 * (energies, joint error, infeasibility I(q) over all joints and pairs), and the touching contacts
 * of the step's contact report. Solver fields are filled by the stages that solve; with no rows
 * there is no problem (status none, size 0). clt_world_get_diagnostics lives here too: describing a
 * state between steps runs the same query over all shape pairs (stage_collide.c), which only this
 * layer may call (docs/architecture.md). */
#include <math.h>

#include "steppers/stepper.h"

/* The touching contacts among the report's candidates (world.h clt_contact_info_t.touching;
 * docs/output-format.md "Touching contacts"). It runs once the report is final in every pipeline
 * (the last stage of each), so the gap and impulse floor set here are those clt_world_get_contact
 * applies. Reporting only: nothing of the state is read back from it. */
static int count_touching(const clt_world_t *world, clt_step_work_t *w) {
  double largest = 0.0;
  for (int j = 0; j < w->report_count; j++) {
    double phi, cn;
    clt_contact_report_gap(w, j, &phi, &cn);
    largest = fmax(largest, cn);
  }
  /* ε̂ is the scene's own "near" length (world.h CLT_TOUCH_GAP_FRACTION). The impulse floor is 0
   * where nothing presses, so that impulses of exactly 0 never touch; else it sits above the
   * remainder an interior-point solve leaves on contacts that do not press. */
  w->touch_gap = CLT_TOUCH_GAP_FRACTION * world->method.active_set_eps;
  w->touch_impulse = CLT_TOUCH_IMPULSE_FRACTION * largest;
  int n = 0;
  for (int j = 0; j < w->report_count; j++) {
    double phi, cn;
    clt_contact_report_gap(w, j, &phi, &cn);
    n += clt_contact_touching(w, phi, cn);
  }
  return n;
}

void clt_world_describe_state(clt_world_t *world, clt_diagnostics_t *d) {
  d->bodies = world->body_count;
  d->kinetic_energy = clt_world_kinetic_energy(world);
  d->potential_energy = clt_world_potential_energy(world);
  d->joint_error = clt_world_joint_error(world);
  d->joints = world->joint_count - world->joints_removed;
  d->penetration = clt_world_penetration(world); /* over all shape pairs (stage_collide.c) */
  d->infeasibility = d->joint_error > d->penetration ? d->joint_error : d->penetration;
}

clt_status_t clt_stage_diagnose(clt_step_context_t *c) {
  clt_diagnostics_t *d = c->diagnostics;
  d->step = c->step;
  d->t = c->t_next;
  clt_world_describe_state(c->world, d);
  d->touching_contacts = count_touching(c->world, c->work);
  return CLT_OK;
}

clt_status_t clt_world_get_diagnostics(clt_world_t *world, clt_diagnostics_t *out) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  if (!out) return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, "get_diagnostics: out must not be NULL");
  if (world->diagnostics_stale) { /* the state changed since it was described (world_internal.h) */
    clt_world_describe_state(world, &world->diagnostics);
    world->diagnostics_stale = false;
  }
  *out = world->diagnostics;
  /* measured where it is read, not in every step (0.2 us, 3 % of chain6's step): the workspace
   * holds the same from the end of a step to the next; 0 for a state no step produced */
  out->work_bytes = world->diagnostics_stepped ? clt_step_work_bytes(world) : 0;
  if (!world->diagnostics_stepped) out->arena_bytes = 0;
  return CLT_OK;
}
