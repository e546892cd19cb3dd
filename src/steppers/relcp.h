/* The ReLCP family of contact models (SPEC.md §6; 002 §3–4) and the overdamped law of motion
 * (SPEC.md §6.1): scheme_relcp.c (the pipeline), stage_relcp.c (setup, constraint generation,
 * the recursion) and stage_relcp_solve.c (the PSD LCP of one recursion pass).
 *
 * Generic form (SPEC.md §6.1). Per dynamic body the generalized velocity is the 6-vector
 * (u, ω) of rows.h (u world frame, ω body frame) and
 *     velocity = a + B D λ,
 *     inertial:   a = v + h M⁻¹ f_ext,   B = M⁻¹,   λ = the impulses c;
 *     overdamped: a = 𝓜 F_ext,          B = 𝓜,     λ = the contact forces,
 * B block diagonal per body (6×6, no linear–angular coupling), stored as two 3×3 blocks. A
 * constraint k between bodies A and B is one row J_k (SPEC.md §0: n at p_B minus n at p_A, with
 * the normal and lever arms frozen where it was found and the angular part in the body frame of the
 * start-of-step orientation, the frame of the velocity unknowns), and its linearized separation is
 *     w_k(λ) = c_k + h J_k · velocity(λ),
 * with c_k = Φ_k(q) for the constraints of iteration 0 and c_k = Φ_k(q_j) − h J_k · velocity_{j−1}
 * for a constraint found at the trial configuration q_j (its value pulled back to q). This is SPEC
 * §6.2's b_k + h D_kᵀ B D_k (λ − ι(λ_prev)) written in closed form: both are the same affine map
 * of λ (the old constraints' Φ̂ is their w at λ_prev), so each pass solves
 *     λ ≥ 0 ⊥ A λ + b ≥ 0,   A = h Dᵀ B D,   b = c + h Dᵀ a,
 * warm-started from the last pass's λ padded with zeros. */
#ifndef CLATTER_STEPPERS_RELCP_H
#define CLATTER_STEPPERS_RELCP_H

#include "collision/collide_all.h"
#include "steppers/stepper.h"

/* One frozen shared-normal constraint (SPEC.md §6.2). */
typedef struct clt_relcp_constraint_t {
  int body_a, body_b;     /* body indices (never two non-dynamic bodies) */
  int shape_a, shape_b;   /* world shape indices (the proxy's own shape for multisphere) */
  int key_a, key_b, feature; /* collision instance pair and narrow-phase feature: memory key */
  int iteration;          /* recursion pass that created it (0: the SNSD set at q) */
  double distance;        /* Φ where it was found */
  double offset;          /* c_k above */
  double normal[3];       /* A → B, world frame, frozen */
  double point_a[3], point_b[3];
  clt_jacobian_row_t jac; /* J_k */
} clt_relcp_constraint_t;

/* The workspace of the ReLCP pipeline, hung off clt_step_work_t (rows.h `relcp`). Buffers grow to
 * the largest problem seen and are kept, and the solvers take their iteration vectors from the
 * step arena (base/arena.h): a settled run does not allocate. Nothing in it survives a step;
 * what does (the warm start: each SNSD constraint's pair force, λ summed over the pair's
 * constraints) goes into the step workspace's contact memory, which checkpoints save. */
typedef struct clt_relcp_work_t {
  int body_capacity;
  double *mobility;        /* 18 per body: B's linear block (world frame) then angular block (body frame), row-major */
  double *base;            /* 6 per body: a */
  double *velocity;        /* 6 per body: velocity of the current pass */
  clt_body_state_t *trial; /* q_{k+1} */
  /* collision instances: the true shapes [0, shape_count), then the multisphere proxies */
  clt_shape_instance_t *instances;
  int *instance_shape;     /* world shape index of each instance */
  int instance_capacity;
  int proxy_count;
  clt_shape_def_t *proxies;
  int proxy_capacity;
  clt_contact_set_t set;
  /* constraints and the LCP */
  int count, capacity;
  clt_relcp_constraint_t *constraints;
  double *bj;              /* 12 per constraint: B J_Aᵀ, B J_Bᵀ */
  double *b, *lambda, *w, *diagonal;
  int *body_start, *body_entry;
  int body_start_capacity, body_entry_capacity;
  double *jr;              /* 12 per constraint: J_A (linear, angular), J_B — compact copy for the operator */
  int *jb;                 /* 2 per constraint: body of each side, −1 if not dynamic */
  int compact_capacity;
  int *active;             /* the dynamic bodies with at least one constraint, increasing */
  int active_count, active_capacity;
  double *dense;
  int dense_capacity;      /* dense holds dense_capacity² doubles */
  double *accumulator;     /* 6 per body: the operator's B D x */
  int accumulator_capacity;
  /* the recursion of this step (the stages "prepare" … "recurse") */
  bool multisphere;        /* the constraints are between proxies */
  int pass;                /* passes so far */
  int prepared;            /* constraints prepared by the passes before */
  int violations;          /* pairs overlapping beyond the tolerance after the last pass */
  double max_overlap;      /* their largest overlap */
} clt_relcp_work_t;

/* The ReLCP workspace's buffers, for clt_world_memory (memory.c); w may be NULL. */
void clt_relcp_visit_memory(const clt_relcp_work_t *w, clt_memory_visit_fn f, void *user);
void clt_relcp_work_destroy(clt_relcp_work_t *work);

/* The stages of the ReLCP family (stage_relcp.c; scheme_relcp.c's list, SPEC.md §6.2):
 * "mobility": B and the free motion of the law, the shape instances (proxies for multisphere);
 * "active set": C₀, the constraints of the pairs within ε̂ at q;
 * "prepare": the constraints added since the last pass get their rows; "solve": the pass's LCP
 * and the trial state q_{k+1}; "overlaps": the true overlaps at q_{k+1} (multisphere: completes
 * the candidate set and branches back to "prepare" when it added pairs); "recurse": the pairs
 * overlapping beyond the tolerance become constraints and the recursion branches back to
 * "prepare" (relcp only; at relcp_max_iterations the step fails);
 * "accept": q⁺ = q_{k+1}, the contact report and memory, the diagnostics. */
clt_status_t clt_stage_relcp_mobility(clt_step_context_t *c);
clt_status_t clt_stage_relcp_active_set(clt_step_context_t *c);
clt_status_t clt_stage_relcp_prepare(clt_step_context_t *c);
clt_status_t clt_stage_relcp_solve_pass(clt_step_context_t *c);
clt_status_t clt_stage_relcp_overlaps(clt_step_context_t *c); /* branches to "prepare" */
clt_status_t clt_stage_relcp_recurse(clt_step_context_t *c);  /* branches to "prepare" */
clt_status_t clt_stage_relcp_accept(clt_step_context_t *c);

/* One pass's LCP (stage_relcp_solve.c): A = h Dᵀ B D of the work's constraints (dense for small
 * problems and Lemke, matrix-free otherwise), b = work->b; λ (work->lambda) is the start and the
 * answer, work->w receives A λ + b. Adds the solver's iterations to d->iterations and writes its
 * residual and status. Returns CLT_OK also when the solver did not converge (status in d). */
clt_status_t clt_relcp_solve(clt_world_t *world, clt_relcp_work_t *work, double h, clt_diagnostics_t *d);

#endif
