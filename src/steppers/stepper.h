/* The time step as a sequence of named stages (STYLE.md; SPEC.md §1):
 *   forces → M̂⁻¹ → collide → joint rows → contact rows → free velocity → solve → remember →
 *   integrate → [post-stabilize] → commit → diagnose
 * A scheme (one file each: scheme_*.c) is the bias rule of its rows (Υ from Θ, Δ from Φ; SPEC.md
 * §1 table) plus its pipeline, an array of these stages; step.c picks the scheme by clt_scheme_t
 * and runs its stages, repeating or skipping ranges where the list names a branch (clt_stage_t;
 * the relaxed rounds and the ReLCP recursion, docs/stepping.md "Stages"). Each stage reads and
 * writes the world, the step context and the step workspace (rows.h); none branches on the scheme. With no joint or contact rows every pipeline
 * reduces to v⁺ = M̂⁻¹(M v + h k̂), q⁺ = q ⊕ h v⁺. */
#ifndef CLATTER_STEPPERS_STEPPER_H
#define CLATTER_STEPPERS_STEPPER_H

#include "dynamics/world_internal.h"
#include "steppers/rows.h"

/* Which wall-clock bucket of the diagnostics a stage's time is charged to (SPEC.md §7). */
typedef enum clt_stage_clock_t {
  CLT_CLOCK_COLLIDE,
  CLT_CLOCK_ASSEMBLE,
  CLT_CLOCK_SOLVE,
  CLT_CLOCK_OTHER
} clt_stage_clock_t;

struct clt_scheme_ops_t;

typedef struct clt_step_context_t {
  clt_world_t *world;
  const struct clt_scheme_ops_t *scheme;
  clt_step_work_t *work;
  double h;        /* time step */
  double t;        /* time at the start of the step (k̂ is evaluated at (t, q, v)) */
  double t_next;   /* time after the step */
  int64_t step;    /* index of the step being taken (1 for the first) */
  clt_diagnostics_t *diagnostics; /* filled by the stages; published when the step succeeds */
  /* Set by a stage whose list entry names a branch (clt_stage_t.branch): the step goes on at that
   * stage instead of the next one. Cleared before each stage runs. */
  bool branch;
} clt_step_context_t;

typedef clt_status_t (*clt_stage_fn)(clt_step_context_t *context);

/* One entry of a scheme's stage list. A list expresses repetition and early exits by branches: a
 * stage may continue the step at the stage named by `branch` (earlier: a range of stages repeated
 * until the stage says done; later: stages skipped) by setting context->branch. Stages run in list
 * order otherwise. */
typedef struct clt_stage_t {
  const char *name;
  clt_stage_fn run;
  clt_stage_clock_t clock;
  const char *branch; /* NULL: the stage does not branch */
} clt_stage_t;

/* A scheme of SPEC.md §1: the stabilization term of a row with constraint value g (Θ of a joint
 * row, Φ of a contact normal row) — Υ = bias(Θ), Δ = bias(Φ) — and the stages it runs. */
typedef struct clt_scheme_ops_t {
  const char *name;
  double (*bias)(const clt_method_t *method, double value, double h);
  const clt_stage_t *stages;
  int stage_count;
  /* The positions move only in stage "integrate", which stage "backup" (clt_stage_backup) precedes:
   * the step keeps the velocities before it (world->backup_velocity, 48 bytes a body) and writes
   * the whole state (112) only there, so that the solves do not carry it (clt_world_step). */
  bool late_backup;
} clt_scheme_ops_t;

extern const clt_scheme_ops_t clt_scheme_none, clt_scheme_anitescu_hart, clt_scheme_baumgarte, clt_scheme_post,
    clt_scheme_relaxed, clt_scheme_coulomb_circular;
/* The ReLCP family and the overdamped law (SPEC.md §6; scheme_relcp.c, relcp.h): selected by step.c
 * when method.contact_model is not the default, the law is overdamped or the world is planar. */
extern const clt_scheme_ops_t clt_scheme_relcp;

/* Stages (one file each). */
clt_status_t clt_stage_forces(clt_step_context_t *c);        /* stage_forces.c: k̂ into the accumulators */
clt_status_t clt_stage_inverse_mass(clt_step_context_t *c);  /* stage_mass.c: M̂⁻¹ at (q, v) */
clt_status_t clt_stage_collide(clt_step_context_t *c);       /* stage_collide.c: active set Φ ≤ ε̂ */
clt_status_t clt_stage_joint_rows(clt_step_context_t *c);    /* stage_joint_rows.c: ν, Θ, Υ */
clt_status_t clt_stage_contact_rows(clt_step_context_t *c);  /* stage_contact_rows.c: n, D, Φ, Δ */
clt_status_t clt_stage_free_velocity(clt_step_context_t *c); /* stage_velocity.c: v_free = M̂⁻¹(M v + h k̂) */
clt_status_t clt_stage_solve(clt_step_context_t *c);         /* stage_solve_rows.c: z, v⁺ = v_free + M̂⁻¹ N z */
clt_status_t clt_stage_remember(clt_step_context_t *c);      /* stage_contact_rows.c: restitution memory */
clt_status_t clt_stage_integrate(clt_step_context_t *c);     /* stage_integrate.c: q⁺ = q ⊕ h v⁺ */
clt_status_t clt_stage_post_project(clt_step_context_t *c);  /* stage_post.c: Cline–Pai projection (§3) */
clt_status_t clt_stage_spring_project(clt_step_context_t *c); /* stage_post.c: nonlinear projection (§4, 004 (46)) */
/* stage_spring_rows.c: CLT_ERR_UNSUPPORTED when the world has implicit force elements and the
 * pipeline has no compliant rows (relaxed, relcp, overdamped law); called by the forces stage. */
clt_status_t clt_check_spring_support(clt_step_context_t *c);
/* stage_actuation.c (docs/actuation.md): CLT_ERR_UNSUPPORTED when a joint has a limit or a velocity
 * or position motor and the pipeline has no step problem of rows; called by the forces stage. */
clt_status_t clt_check_actuation_support(clt_step_context_t *c);
/* Appends the limit rows (and, with motors, the velocity and position motor rows) of every joint
 * after the rows in the workspace as bounded unknowns (rows.h bounded_rows, row_bounds); bias by
 * the scheme, or, with scheme NULL (the position projection of §3), the gap itself. */
clt_status_t clt_build_actuation_rows(clt_world_t *world, clt_step_work_t *w, const clt_scheme_ops_t *scheme,
                                      double h, bool motors);
/* The effort motors' generalized forces ν_θᵀ τ into the force accumulators. */
void clt_add_joint_efforts(clt_world_t *world);
/* The effort motors' impulses h τ into next_joint_impulse (stage remember). */
void clt_remember_efforts(clt_world_t *world, clt_step_work_t *w, double h);
clt_status_t clt_stage_commit(clt_step_context_t *c);        /* step.c: finite check, time advances */
clt_status_t clt_stage_backup(clt_step_context_t *c);        /* step.c: late_backup's whole state */
clt_status_t clt_stage_diagnose(clt_step_context_t *c);      /* stage_diagnose.c */
/* stage_diverge.c: the state after the step within method.divergence_* (docs/stepping.md
 * "Divergence"), else CLT_ERR_DIVERGED naming the step, the quantity, the body and the bound. */
clt_status_t clt_stage_diverge(clt_step_context_t *c);
/* stage_diverge.c: takes the energy test's reference from the state before the step, where the
 * state was set, loaded or the world changed since the last one (called by clt_world_step). */
clt_status_t clt_divergence_reference(clt_world_t *world);
/* stage_collide.c: penetration max(0, −Φ) over all shape pairs at the current state (SPEC.md §1
 * "Infeasibility"). NaN if its workspace cannot be allocated. */
double clt_world_penetration(clt_world_t *world);
/* stage_diagnose.c: fills the state-describing fields of d (bodies, energies, joint error,
 * penetration, infeasibility) from the current state. */
void clt_world_describe_state(clt_world_t *world, clt_diagnostics_t *d);
/* stage_collide.c: the pair of bodies whose penetration exceeds fraction × the smaller of their
 * sizes (size[i] per body, +inf for no bound) by the largest ratio; false if none. */
bool clt_world_worst_penetration(clt_world_t *world, const double *size, double fraction, int *body_a, int *body_b,
                                 double *depth);

/* method.c: checks the method block for a world of the given dimension (clt_world_create); false
 * with a reason naming the field in msg. */
bool clt_method_check(const clt_method_t *method, int dimension, char *msg, size_t n);

/* The stages up to the new velocity, shared by every scheme of SPEC.md §1 (the step's mixed LCP
 * with the scheme's bias): use inside a stage array initializer. */
#define CLT_STAGES_DYNAMICS                                     \
  {"forces", clt_stage_forces, CLT_CLOCK_ASSEMBLE, NULL},             \
  {"inverse mass", clt_stage_inverse_mass, CLT_CLOCK_ASSEMBLE, NULL}, \
  {"collide", clt_stage_collide, CLT_CLOCK_COLLIDE, NULL},            \
  {"joint rows", clt_stage_joint_rows, CLT_CLOCK_ASSEMBLE, NULL},     \
  {"contact rows", clt_stage_contact_rows, CLT_CLOCK_ASSEMBLE, NULL}, \
  {"free velocity", clt_stage_free_velocity, CLT_CLOCK_SOLVE, NULL},  \
  {"solve", clt_stage_solve, CLT_CLOCK_SOLVE, NULL},                  \
  {"remember", clt_stage_remember, CLT_CLOCK_OTHER, NULL}

#define CLT_STAGE_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* From this many bodies the per-body stages (free velocity, inverse mass) run on every thread; each
 * body's result is its own, so the split does not change it. */
#define CLT_BODY_PARALLEL_MIN 4096

#endif
