/* The time step as a sequence of named stages (STYLE.md; SPEC.md §1):
 *   collide → build rows → solve → integrate → stabilize → diagnose
 * A scheme is a pipeline: an array of stages (step.c picks it by clt_scheme_t). Each stage reads
 * and writes the world and the step context; a new scheme or the contact work adds stage files
 * and a pipeline entry instead of branching inside existing stages.
 *
 * Today (no joint or contact rows yet) every scheme runs the unconstrained pipeline
 *   forces (k̂) → solve (v⁺ = M̂⁻¹(M v + h k̂), no rows) → integrate (q⁺ = q ⊕ h v⁺) → commit
 *   (finite check, time advances) → diagnose,
 * which is exactly the step of SPEC.md §1 with no ν, n, D rows. */
#ifndef CLATTER_STEPPERS_STEPPER_H
#define CLATTER_STEPPERS_STEPPER_H

#include "dynamics/world_internal.h"

/* Which wall-clock bucket of the diagnostics a stage's time is charged to (SPEC.md §7). */
typedef enum clt_stage_clock_t {
  CLT_CLOCK_COLLIDE,
  CLT_CLOCK_ASSEMBLE,
  CLT_CLOCK_SOLVE,
  CLT_CLOCK_OTHER
} clt_stage_clock_t;

typedef struct clt_step_context_t {
  clt_world_t *world;
  double h;        /* time step */
  double t;        /* time at the start of the step (k̂ is evaluated at (t, q, v)) */
  double t_next;   /* time after the step */
  int64_t step;    /* index of the step being taken (1 for the first) */
  clt_diagnostics_t *diagnostics; /* filled by the stages; published when the step succeeds */
} clt_step_context_t;

typedef clt_status_t (*clt_stage_fn)(clt_step_context_t *context);

typedef struct clt_stage_t {
  const char *name;
  clt_stage_fn run;
  clt_stage_clock_t clock;
} clt_stage_t;

/* Stages (one file each). */
clt_status_t clt_stage_forces(clt_step_context_t *c);        /* stage_forces.c: k̂ into the accumulators */
clt_status_t clt_stage_free_velocity(clt_step_context_t *c); /* stage_velocity.c: v⁺ with no rows */
clt_status_t clt_stage_integrate(clt_step_context_t *c);     /* stage_integrate.c: q⁺ = q ⊕ h v⁺ */
clt_status_t clt_stage_diagnose(clt_step_context_t *c);      /* stage_diagnose.c */

#endif
