/* clt_world_step: runs the pipeline of the world's scheme (stepper.h, scheme_*.c), times the
 * stages, checks the new state is finite (else restores the previous one: CLT_ERR_DIVERGED) and
 * publishes the diagnostics. Buffers grow to the largest problem seen and are then reused. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "base/pages.h"
#include "steppers/stepper.h"
#include "base/parallel.h"

/* Stage "commit": the new state must be finite before time advances and the state is described
 * (SPEC.md §7); on failure the driver restores the state of before the step. The contact memory
 * built this step (stage "remember") becomes the state's. */
clt_status_t clt_stage_commit(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  /* the first body with a non-finite state (a min: the same for any number of OpenMP threads) */
  int first = world->body_count;
  CLT_PARALLEL_FOR_IF(world->body_count >= 4096, schedule(static) reduction(min : first),
  for (int i = 0; i < world->body_count; i++) {
    const double *v = (const double *)&world->states[i];
    for (size_t k = 0; k < sizeof world->states[i] / sizeof(double); k++)
      if (!isfinite(v[k]) && i < first) first = i;
  });
  if (first < world->body_count) {
    char label[CLT_NAME_SIZE + 32];
    clt_body_label(world, first, label, sizeof label);
    return clt_world_fail(world, CLT_ERR_DIVERGED,
                          "step %lld: the simulation diverged: the state of %s became non-finite; the state "
                          "before the step is kept", (long long)c->step, label);
  }
  clt_step_work_t *w = c->work;
  clt_contact_memory_take(&w->memory, &w->memory_count, &w->memory_capacity, &w->next_memory, &w->next_memory_count,
                          &w->next_memory_capacity);
  /* the memory of the step before: dead until the next step's stage "remember" writes it */
  clt_work_release(w, w->next_memory, (size_t)w->next_memory_capacity * sizeof *w->next_memory);
  double *ji = w->joint_impulse;
  w->joint_impulse = w->next_joint_impulse;
  w->next_joint_impulse = ji;
  world->time = c->t_next;
  world->step_count = c->step;
  return CLT_OK;
}

static const clt_scheme_ops_t *scheme_ops(const clt_world_t *world) {
  const clt_method_t *method = &world->method;
  switch (method->scheme) {
    case CLT_SCHEME_NONE: return &clt_scheme_none;
    case CLT_SCHEME_ANITESCU_HART:
      /* s = 0 on the circular cone: the cone solve's stages (scheme_relaxed.c) */
      return clt_method_effective_cone(world) == CLT_CONE_CIRCULAR ? &clt_scheme_coulomb_circular
                                                                    : &clt_scheme_anitescu_hart;
    case CLT_SCHEME_BAUMGARTE: return &clt_scheme_baumgarte;
    case CLT_SCHEME_POST: return &clt_scheme_post;
    case CLT_SCHEME_RELAXED: return &clt_scheme_relaxed;
  }
  return &clt_scheme_anitescu_hart;
}

/* The position of the stage named `name` in the scheme's list (a branch target; the list's
 * names are checked by tests/stepper/test_stage_lists.c). */
static int stage_index(const clt_scheme_ops_t *scheme, const char *name) {
  for (int k = 0; k < scheme->stage_count; k++)
    if (strcmp(scheme->stages[k].name, name) == 0) return k;
  return scheme->stage_count; /* unreachable for a checked list: the step ends */
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The states of n bodies from `from` to `to`: in parallel blocks for a large world (a serial copy
 * of 10⁵ states is a few per cent of a pile's step on two threads). */
static void copy_states(clt_body_state_t *to, const clt_body_state_t *from, int n) {
  enum { BLOCK = 4096 };
  if (n <= 0) return; /* memcpy with a NULL pointer is undefined even for 0 bytes */
  int blocks = (n + BLOCK - 1) / BLOCK;
  CLT_PARALLEL_FOR_IF(blocks > 1, schedule(static),
  for (int k = 0; k < blocks; k++) {
    int i0 = k * BLOCK, i1 = i0 + BLOCK < n ? i0 + BLOCK : n;
    memcpy(to + i0, from + i0, (size_t)(i1 - i0) * sizeof *to);
  });
}

/* The velocities of n bodies into to (late_backup). */
static void copy_velocities(double (*to)[6], const clt_body_state_t *from, int n) {
  CLT_PARALLEL_FOR_IF(n >= 4096, schedule(static),
  for (int i = 0; i < n; i++) {
    memcpy(to[i], from[i].velocity, sizeof from[i].velocity);
    memcpy(to[i] + 3, from[i].angular_velocity, sizeof from[i].angular_velocity);
  });
}

/* The poses of n bodies into to (late_backup). */
static void copy_poses(double (*to)[8], const clt_body_state_t *from, int n) {
  _Static_assert(offsetof(clt_body_state_t, velocity) == 8 * sizeof(double), "the pose: 8 doubles");
  CLT_PARALLEL_FOR_IF(n >= 4096, schedule(static),
  for (int i = 0; i < n; i++) memcpy(to[i], &from[i], 8 * sizeof(double));
  );
}

/* Stage "backup" (late_backup): the poses before the step, which have not moved yet. */
clt_status_t clt_stage_backup(clt_step_context_t *c) {
  copy_poses(c->world->backup_pose, c->world->states, c->world->body_count);
  c->world->backup_written = true;
  return CLT_OK;
}

static void restore(clt_world_t *world, double time, int64_t step_count) {
  int n = world->body_count;
  if (!world->backup_late) {
    copy_states(world->states, world->backup, n);
  } else {
    /* the velocities, and the poses where stage "backup" kept them (else they have not moved, and
     * are kept now, for what reads them after a step: clt_sweep_keep_pairs) */
    CLT_PARALLEL_FOR_IF(n >= 4096, schedule(static),
    for (int i = 0; i < n; i++) {
      clt_body_state_t *s = &world->states[i];
      if (world->backup_written) memcpy(s, world->backup_pose[i], 8 * sizeof(double));
      memcpy(s->velocity, world->backup_velocity[i], sizeof s->velocity);
      memcpy(s->angular_velocity, world->backup_velocity[i] + 3, sizeof s->angular_velocity);
    });
    if (!world->backup_written) copy_poses(world->backup_pose, world->states, n);
    world->backup_written = true;
  }
  world->time = time;
  world->step_count = step_count;
}

clt_status_t clt_world_step(clt_world_t *world) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  double start = now_s();
  double time0 = world->time;
  int64_t step0 = world->step_count;
  clt_step_work_t *work = clt_step_work(world);
  if (!work) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (workspace)");
  clt_status_t reference = clt_divergence_reference(world); /* from the state before the step */
  if (reference != CLT_OK) return reference;
  clt_step_context_t c;
  c.world = world;
  c.scheme = scheme_ops(world);
  if (world->method.contact_model != CLT_CONTACT_MODEL_DEFAULT || world->law == CLT_LAW_OVERDAMPED || world->planar)
    c.scheme = &clt_scheme_relcp; /* SPEC.md §6 (scheme_relcp.c) */
  /* the relaxed scheme's kept pairs read their poses from the backup (clt_sweep_keep_pairs) */
  work->sweep.reuse_valid = false;
  work->release_pages = world->body_count >= CLT_RELEASE_MIN_BODIES;
  world->backup_late = c.scheme->late_backup;
  if (world->backup_late) {
    /* the velocities now, the poses in stage "backup"; until then the last step's are dead
     * (base/pages.h), and so is the whole-state backup, which this scheme does not write */
    copy_velocities(world->backup_velocity, world->states, world->body_count);
    if (clt_work_releases(work)) {
      clt_release_pages(world->backup_pose, (size_t)world->body_count * sizeof *world->backup_pose);
      clt_release_pages(world->backup, (size_t)world->body_count * sizeof *world->backup);
    }
    world->backup_written = false;
  } else {
    copy_states(world->backup, world->states, world->body_count);
    world->backup_written = true;
  }

  clt_diagnostics_t d;
  memset(&d, 0, sizeof d);
  d.solver_status = CLT_SOLVE_NONE;
  d.solves = 1;
  c.work = work;
  c.h = world->time_step;
  c.t = time0;
  c.step = step0 + 1;
  c.t_next = (double)c.step * world->time_step; /* n·h, not a running sum: no drift, resumable */
  c.diagnostics = &d;
  d.step = c.step;
  work->next_memory_count = 0;
  work->lcp_n = 0;
  work->z_bracket = false;
  work->report_count = 0; /* the report is rebuilt by this step; none if it fails (rows.h) */
  work->report_lazy = false;

  clt_arena_reset_peak(&work->arena);
  for (int k = 0; k < c.scheme->stage_count; k++) {
    const clt_stage_t *stage = &c.scheme->stages[k];
    bool timed = stage->clock != CLT_CLOCK_OTHER; /* clock reads only where a bucket exists */
    double t0 = timed ? now_s() : 0.0;
    c.branch = false;
    int mark = clt_arena_mark(&work->arena);
    clt_status_t st = stage->run(&c);
    clt_arena_pop(&work->arena, mark); /* the stage's scratch dies with it (rows.h) */
    if (timed) {
      double elapsed = now_s() - t0;
      if (stage->clock == CLT_CLOCK_COLLIDE) d.wall_collide_s += elapsed;
      if (stage->clock == CLT_CLOCK_ASSEMBLE) d.wall_assemble_s += elapsed;
      if (stage->clock == CLT_CLOCK_SOLVE) d.wall_solve_s += elapsed;
    }
    if (st != CLT_OK) {
      restore(world, time0, step0);
      work->report_count = 0; /* no contacts of a failed step (rows.h) */
      return st;
    }
    if (c.branch && stage->branch) k = stage_index(c.scheme, stage->branch) - 1;
  }
  clt_forces_spend_loads(world); /* (a failed step keeps them for the next try) */
  d.wall_s = now_s() - start;
  d.arena_bytes = (int64_t)clt_arena_peak(&work->arena);
  world->diagnostics = d;
  world->diagnostics_stale = false;
  world->diagnostics_stepped = true;
  return CLT_OK;
}
