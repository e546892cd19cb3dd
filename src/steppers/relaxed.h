/* The `relaxed` scheme (SPEC.md §1 table, §2.3): its contact stage, its solve stage and the
 * workspace they keep between steps (stage_solve_relaxed.c, relaxed_bgs.c). */
#ifndef CLATTER_STEPPERS_RELAXED_H
#define CLATTER_STEPPERS_RELAXED_H

#include <stdint.h>

#include "steppers/stepper.h"

/* Colours of the block Gauss–Seidel: blocks of one colour share no dynamic body; one more colour
 * (index CLT_RELAXED_MAX_COLOURS) holds the blocks that found none free, and runs serially. */
#define CLT_RELAXED_MAX_COLOURS 64

/* One contact of the coloured cone block Gauss–Seidel (relaxed_bgs.c), in the contact frame
 * (n, t1, t2): rows J_k = (−d_k, ang_a[k]) on body a and (d_k, ang_b[k]) on body b, d_k the
 * frame's k-th direction (SPEC.md §0 point rows). Only what every visit reads is here: the sweeps
 * stream these records. A record is this header followed by its rows, in one of two layouts chosen
 * per solve (clt_relaxed_work_t.sphere; the records are contact_stride bytes apart):
 * - general (368 bytes): rows[0 … 26] = jt[9][3], the rows transposed: jt[i][k] is component i of
 *   row k's part (d_k for i < 3, ang_a[k] in the body frame for 3 ≤ i < 6, ang_b[k] for 6 ≤ i < 9),
 *   so that jt[i] holds component i of the three rows (the kernel reads four doubles from jt[i]:
 *   the fourth, from what follows, is never used; rows[27] = 0 ends it);
 * - sphere (208 bytes), where every contact is between spheres centred on their bodies (isotropic
 *   inertia) and static bodies: rows = n, t1, r_a, r_b with ρ_a = r_a n and ρ_b = r_b n the lever
 *   arms, so ang_a[k] = −r_a n × d_k and ang_b[k] = r_b n × d_k in the world frame (0, t2, −t1
 *   times the radius: the normal impulse exerts no torque) and the solve's angular velocity
 *   changes are world-frame (docs/design/granular.md "Memory"); t2 = n × t1 is made where it is
 *   read (the same bits as a stored copy, 24 bytes less). */
typedef struct clt_relaxed_contact_t {
  int a, b;       /* dynamic body index, or −1 (ground, static, kinematic: no velocity change) */
  int index;      /* the contact's index in work->contacts */
  int exact;      /* 1: A_jj = diag(a_n, a_t, a_t): the local solve is a scaled projection */
  double bias[3]; /* J v_free + (Δ, 0, 0): the contact's rows of b */
  double x[3];    /* (P_N, P_T1, P_T2): the impulse in the contact frame */
  double sqrt_n, sqrt_t, mu;            /* metric D = σ diag(a_n, a_t, a_t) of the local solve */
  double mu_scaled, inv_dn, inv_dt;     /* μ √(a_T/a_N), 1/(σ a_N), 1/(σ a_T) */
  double inv_sqrt_n, inv_sqrt_t, dn, dt; /* 1/√a_N, 1/√a_T, σ a_N, σ a_T */
  /* (Recomputing the five scales of the D-metric projection from dn and dt where a block projects
   * saves 40 bytes and gives the same bits, but costs 5 % of the 8·10³ pile's CPU time.) */
  double rows[]; /* the layout of the solve (above) */
} clt_relaxed_contact_t;

/* Doubles of a record's rows in the general and the sphere layout (clt_relaxed_contact_t). */
#define CLT_RELAXED_ROWS_GENERAL 28
#define CLT_RELAXED_ROWS_SPHERE 8

typedef struct clt_relaxed_work_t {
  /* per contact of the step */
  int contact_capacity;
  clt_relaxed_contact_t *contacts; /* in colour order, contact_stride bytes apart (clt_relaxed_block);
                                      its pages are given back after each solve (base/pages.h) */
  size_t contact_stride;           /* sizeof the header + the rows of this solve's layout */
  size_t contact_bytes;            /* allocated */
  bool sphere;                     /* this solve's records have the sphere layout */
  double *delta;                   /* Δ_j by contact index */
  /* Coulomb's law by APGD / BBPGD: the De Saxcé shift s_j = μ_j ‖w_T,j‖ by contact index
   * (stage_solve_relaxed.c, coulomb_fixed_point); allocated on first use only */
  double *coulomb_shift;
  int coulomb_shift_capacity;
  double *block_A;                 /* 6 per slot: A_jj = J M̂⁻¹ Jᵀ (00 01 02 11 12 22), written
                                      and read only for the blocks that are not exact */
  int *colour;                     /* by contact index */
  int *order;                      /* contact index by slot (clt_colour_pairs) */
  double *z_slot;                  /* CLT_Z_BRACKET per slot: the impulses in slot order, on their
                                      way into work->z (clt_relaxed_bgs_solve) */
  int *ends;                       /* 2 per contact: its dynamic bodies (or −1), the colouring's input */
  unsigned char *hot;              /* by slot: the last update exceeded RELAXED_HOT × tolerance (the
                                      focused passes revisit it) */
  int *hot_list;                   /* the hot slots in slot order (serial focused passes) */
  int hot_start[CLT_RELAXED_MAX_COLOURS + 2]; /* colour c's span of hot_list */
  bool hot_list_valid;             /* hot_list matches hot */
  int *share_kept;                 /* per colour (and thread): a serial focused pass's kept counts;
                                      the parallel passes' cursors (sweep_list, colour_sweep) */
  int share_kept_capacity;
  int *run_kept;                   /* a parallel focused pass's kept count per run (sweep_list) */
  int run_kept_capacity;
  int colour_count;
  int colour_start[CLT_RELAXED_MAX_COLOURS + 2]; /* colour c spans [colour_start[c], colour_start[c + 1]) */
  /* per body */
  int body_capacity;
  double *dv;      /* 8 per body: M̂⁻¹ Gᵀ x, linear part at [0, 3), angular at [4, 7) */
  double *inv;     /* 8 per body: 1/m at [0], the diagonal of J⁻¹ at [4, 7) (M̂ is diagonal in the
                      relaxed scheme) */
  double *rot;     /* 3D: 9 per body, the rotation matrix of its orientation (built once per solve and
                      read by every block of the body: build_block3) */
  int *dyn;        /* body index if dynamic, else −1 */
  uint64_t *mask;  /* colours used by the body's contacts */
  /* the swept active set's data (sweep.h), which the contact query reads: &work->sweep */
  clt_sweep_t *sweep;
  /* The solves of one step (the rounds, clt_stage_relaxed_test): after solve `round`, a body whose motion h v⁺
   * left the box the active set was built from demands its v⁺ (± a margin) in its box for the
   * next: demand holds 6 per body (the velocities' lower and upper corner), demanded which bodies
   * have one. The next solve starts from the impulses of this one (round_memory, in the contact
   * memory's key order; round_warm: use it instead of the memory of the last step). */
  int round;
  bool slow;      /* the first solve's boxes were the all-slow hull (kept for the later ones) */
  double *demand;
  double *solved; /* 6 per body: the state's velocity and angular_velocity after the last solve,
                     where that was not dv_applied */
  bool dv_applied; /* the last solve was the block Gauss–Seidel's and its v⁺ is v_free + dv: a later
                      solve with the same contacts makes v⁺ again from dv (clt_relaxed_apply_dv)
                      instead of keeping a copy in solved (48 bytes a body) */
  unsigned char *demanded;
  clt_contact_memory_t *round_memory;
  int round_memory_count, round_memory_capacity;
  bool round_warm;
  int sweeps;           /* the step's solves' iterations so far */
  int last_count;       /* the contacts of the last round's solve, −1 before the first */
  uint64_t last_keys;   /* and their keys (contact_keys, stage_solve_relaxed.c) */
  /* joint rows (free multipliers) */
  int joint_capacity;
  double *joint_x, *joint_diag, *joint_bias;
  /* the APGD/BBPGD path (stage_solve_relaxed.c) */
  int row_capacity, contact2_capacity, body2_capacity;
  clt_row_t *rows;
  double *minv, *b, *x, *y, *u, *mu;
  int *offset, *count, *cone_start, *body_start, *body_entry, *fill;
} clt_relaxed_work_t;

/* Record i of r->contacts (slot order). */
static inline clt_relaxed_contact_t *clt_relaxed_block(const clt_relaxed_work_t *r, int i) {
  return (clt_relaxed_contact_t *)((char *)r->contacts + (size_t)i * r->contact_stride);
}

/* The relaxed workspace's buffers, for clt_world_memory (memory.c); r may be NULL. */
void clt_relaxed_visit_memory(const clt_relaxed_work_t *r, clt_memory_visit_fn f, void *user);
void clt_relaxed_work_destroy(clt_relaxed_work_t *r);
/* v⁺ = v_free + dv for every dynamic body, the states holding v_free (the end of the block
 * Gauss–Seidel, in the layout of its last solve: r->sphere). */
void clt_relaxed_apply_dv(clt_world_t *world, const clt_relaxed_work_t *r);
/* Grows the per-contact and per-body buffers (relaxed_bgs.c); false when out of memory. */
bool clt_relaxed_reserve(clt_relaxed_work_t *r, int contacts, int bodies);
/* The relaxed workspace of the step workspace, created on first use; NULL when out of memory. */
clt_relaxed_work_t *clt_relaxed_work(clt_step_work_t *work);

/* Stage "collide" of scheme relaxed: the active set of SPEC.md §1 with an adaptive ε̂ (allowed
 * there as an option): a contact point is active when its gap can close this step. Body i moves at
 * most m_i = h (‖u_i‖ + h ‖a_i‖ + ‖ω_i‖ R_i) in free flight (a_i = gravity + applied force / m; R_i
 * the distance from the body origin to its farthest shape point; 0 for static bodies and for a
 * body whose shapes are spheres centred on it); what contact does within the step is bounded by a
 * box of velocities per body, spread from the pairs that can touch (stage_solve_relaxed.c), and a
 * point is kept when its gap can close along its normal given the two boxes (stage_collide.c,
 * pair_reach). A contact that cannot close this step has Δ = γΦ/h larger than its approach speed
 * and stays inactive in the QP; one that can is in the active set before it penetrates, whatever
 * the speed (a grain falling 6 m/s moves 6 cm a step). */
clt_status_t clt_stage_relaxed_collide(clt_step_context_t *c);


/* The solve rounds of scheme relaxed (scheme_relaxed.c's stage list): a round is stages "active
 * set" (collide: the swept active set), "joint rows", "contact rows", "free velocity" and "solve",
 * then "active set test", the a-posteriori test of the active set: when the solution moves a body
 * outside the box of motions its active set was built for, by more than ε̂/4, the body's box takes
 * in its new velocity and the round runs again from the start-of-step velocities, warm-started
 * from the last solve, at most RELAXED_SOLVES times; a round whose active set finds the contacts
 * of the round before keeps that round's solve and ends the rounds. "begin solves" and "end
 * solves" set up and close the rounds. diagnostics.iterations are the sweeps of all the solves,
 * solves their number, set_misses the bodies the last allowed solve left outside their boxes. */
clt_status_t clt_stage_relaxed_begin(clt_step_context_t *c);
clt_status_t clt_stage_relaxed_active_set(clt_step_context_t *c); /* branches to "end solves" */
clt_status_t clt_stage_relaxed_joint_rows(clt_step_context_t *c);
clt_status_t clt_stage_relaxed_free_velocity(clt_step_context_t *c);
clt_status_t clt_stage_relaxed_solve_round(clt_step_context_t *c);
clt_status_t clt_stage_relaxed_test(clt_step_context_t *c); /* branches to "active set" */
clt_status_t clt_stage_relaxed_end(clt_step_context_t *c);

/* Stage "inverse mass" of scheme relaxed: M̂⁻¹ per body into the step workspace (stage_mass.c) only
 * where a solve reads it there: APGD / BBPGD / MPRGP, joint rows, the semi-implicit gyroscopic
 * term. The block Gauss–Seidel without joints takes 1/m and the diagonal of J⁻¹ from the bodies
 * (relaxed_bgs.c), which saves 80 bytes a body. */
clt_status_t clt_stage_relaxed_inverse_mass(clt_step_context_t *c);

/* Stage "contact rows" of scheme relaxed: per active contact Δ = bias(Φ) + the restitution term
 * (SPEC.md §1) and the start-of-step normal velocity (the restitution rule of the other schemes);
 * no friction-direction rows are built (the solve stage builds the rows it uses). Sets
 * work->friction_directions (the layout of work->z, rows.h) and leaves only the joint rows. */
clt_status_t clt_stage_relaxed_contacts(clt_step_context_t *c);

/* Stage "solve" of scheme relaxed: the dual of the step's convex QP, by the coloured cone block
 * Gauss–Seidel (method.solver bgs, relaxed_bgs.c) or matrix-free APGD / BBPGD, then
 * v⁺ = v_free + M̂⁻¹ Gᵀ x; writes the impulses into work->z in the layout of rows.h (the block
 * Gauss–Seidel: its compact form, z_bracket, which clt_contact_z expands with the same bits) so
 * that stage "remember" and the contact report apply as they are. With joints only it is the
 * joint equality solve every scheme shares (clt_solve_rows). */
clt_status_t clt_stage_solve_relaxed(clt_step_context_t *c);

/* The coloured cone block Gauss–Seidel on the relaxed QP (relaxed_bgs.c): solves, updates the
 * dynamic bodies' velocities (v⁺) and writes work->z; fills the solver fields of d. Returns CLT_OK
 * also when the solve missed the tolerance (status in d). */
clt_status_t clt_relaxed_bgs_solve(clt_step_context_t *c, clt_relaxed_work_t *r);

/* A tangential vector (a1, a2) on (t1, t2) as α d_k0 + β d_k1 (α, β ≥ 0) on the two of the m
 * balanced directions that bracket it (2D: ±t1); dc/ds: cos/sin of 2πk/m, or NULL (computed). */
void clt_relaxed_bracket(const double *dc, const double *ds, int dimension, int m, double a1, double a2, int *k0,
                         int *k1, double *alpha, double *beta);

#endif
