/* clt_world_step: runs the pipeline of the world's scheme (stepper.h), times the stages, checks
 * the new state is finite (else restores the previous one: CLT_ERR_NUMERICAL) and publishes the
 * diagnostics. No allocation happens here: every per-body workspace is sized by add_body. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>
#include <time.h>

#include "steppers/stepper.h"

/* The pipeline without constraint rows; every scheme reduces to it while there are no joint or
 * contact rows. The contact/stepper work inserts "collide" and "build rows" before "solve",
 * swaps the solve stage for the row solve and adds "stabilize" (post-stabilization, §3) after
 * "integrate" for CLT_SCHEME_POST. */
/* Stage "commit": the new state must be finite before time advances and the state is described
 * (SPEC.md §7); on failure the driver restores the state of before the step. */
static clt_status_t stage_commit(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  for (int i = 0; i < world->body_count; i++) {
    const double *v = (const double *)&world->states[i];
    for (size_t k = 0; k < sizeof world->states[i] / sizeof(double); k++) {
      if (!isfinite(v[k])) {
        char label[CLT_NAME_SIZE + 32];
        clt_body_label(world, i, label, sizeof label);
        return clt_world_fail(world, CLT_ERR_NUMERICAL,
                              "step %lld: the state of %s became non-finite; the state before the step is "
                              "kept", (long long)c->step, label);
      }
    }
  }
  world->time = c->t_next;
  world->step_count = c->step;
  return CLT_OK;
}

static const clt_stage_t unconstrained_pipeline[] = {
    {"forces", clt_stage_forces, CLT_CLOCK_ASSEMBLE},
    {"solve", clt_stage_free_velocity, CLT_CLOCK_SOLVE},
    {"integrate", clt_stage_integrate, CLT_CLOCK_OTHER},
    {"commit", stage_commit, CLT_CLOCK_OTHER},
    {"diagnose", clt_stage_diagnose, CLT_CLOCK_OTHER},
};

typedef struct pipeline_t {
  const clt_stage_t *stages;
  int count;
} pipeline_t;

static pipeline_t scheme_pipeline(clt_scheme_t scheme) {
  (void)scheme; /* all schemes coincide without rows (SPEC.md §1 table: Υ, Δ act on rows only) */
  pipeline_t p = {unconstrained_pipeline, (int)(sizeof unconstrained_pipeline / sizeof unconstrained_pipeline[0])};
  return p;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void restore(clt_world_t *world, double time, int64_t step_count) {
  if (world->body_count > 0) /* memcpy with a NULL pointer is undefined even for 0 bytes */
    memcpy(world->states, world->backup, (size_t)world->body_count * sizeof *world->states);
  world->time = time;
  world->step_count = step_count;
}

clt_status_t clt_world_step(clt_world_t *world) {
  if (world->joint_count > 0)
    return clt_world_fail(world, CLT_ERR_UNSUPPORTED, "joints are not supported by the step yet (the [stepper] work)");
  double start = now_s();
  double time0 = world->time;
  int64_t step0 = world->step_count;
  if (world->body_count > 0) memcpy(world->backup, world->states, (size_t)world->body_count * sizeof *world->states);

  clt_diagnostics_t d;
  memset(&d, 0, sizeof d);
  d.solver_status = CLT_SOLVE_NONE;
  clt_step_context_t c;
  c.world = world;
  c.h = world->time_step;
  c.t = time0;
  c.step = step0 + 1;
  c.t_next = (double)c.step * world->time_step; /* n·h, not a running sum: no drift, resumable */
  c.diagnostics = &d;

  pipeline_t p = scheme_pipeline(world->method.scheme);
  for (int k = 0; k < p.count; k++) {
    const clt_stage_t *stage = &p.stages[k];
    bool timed = stage->clock != CLT_CLOCK_OTHER; /* clock reads only where a bucket exists */
    double t0 = timed ? now_s() : 0.0;
    clt_status_t st = stage->run(&c);
    if (timed) {
      double elapsed = now_s() - t0;
      if (stage->clock == CLT_CLOCK_COLLIDE) d.wall_collide_s += elapsed;
      if (stage->clock == CLT_CLOCK_ASSEMBLE) d.wall_assemble_s += elapsed;
      if (stage->clock == CLT_CLOCK_SOLVE) d.wall_solve_s += elapsed;
    }
    if (st != CLT_OK) {
      restore(world, time0, step0);
      return st;
    }
  }
  d.wall_s = now_s() - start;
  world->diagnostics = d;
  return CLT_OK;
}
