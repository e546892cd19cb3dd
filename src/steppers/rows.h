/* The constraint rows of one step and the workspace that holds them (SPEC.md §1, §2, §3).
 *
 * Generalized velocity of a body as a 6-vector (u, ω): u the world-frame linear velocity, ω the
 * body-frame angular velocity (3D); 2D uses u[0], u[1] and ω[0] with every other component 0, so
 * one layout serves both dimensions (the rows of constraints/joint.h follow it).
 *
 * Rows are stored in this order: the joint rows ν (free impulses), then for every active contact
 * its normal row n followed by its m_C friction-direction rows D. The step problem (mixed LCP) has
 * the unknowns
 *     z = (c_ν [joint rows], then per contact: c_n, β₁ … β_{m_C}, λ)
 * i.e. every row has one unknown and each contact adds the slip multiplier λ, which has no row.
 *
 * All buffers grow to the largest problem seen and are kept (no allocation once a run has
 * settled; STYLE.md). */
#ifndef CLATTER_STEPPERS_ROWS_H
#define CLATTER_STEPPERS_ROWS_H

#include "base/arena.h"
#include "base/pages.h"
#include "collision/broadphase.h"
#include "collision/narrowphase.h"
#include "constraints/joint.h"
#include "steppers/sweep.h"

/* One row of N: J = [J_A, J_B] acting on the generalized velocities of body_a and body_b
 * (−1: the ground). */
typedef struct clt_row_t {
  int body_a, body_b;
  clt_jacobian_row_t jac;
} clt_row_t;

/* An active contact (SPEC.md §1 "Active set", §5): geometry frozen at q. */
typedef struct clt_contact_t {
  int shape_a, shape_b;  /* shape indices (clt_world_shape) */
  int body_a, body_b;
  int feature;           /* narrow-phase feature id: (shape_a, shape_b, feature) is the contact key */
  double distance;       /* Φ at q */
  double normal[3];      /* A → B */
  double point_a[3], point_b[3];
  double friction;       /* μ of the pair (geometric mean) */
  double restitution;    /* e_N of the pair (geometric mean) */
  double normal_velocity;   /* nᵀv⁽ˡ⁾ at the start of the step */
  double restitution_bias;  /* e_N v_pre added to Δ this step (SPEC.md §1 "Restitution") */
} clt_contact_t;

/* Memory of a contact across steps (part of the checkpoint state): the impulses of the last step
 * (warm start of iterative solvers) and the restitution record (stage_contact_rows.c). Kept for
 * every contact that carried a normal impulse; sorted by key (shape_a, shape_b, feature). */
typedef enum clt_restitution_state_t {
  CLT_RESTITUTION_NONE = 0,    /* no impact recorded */
  CLT_RESTITUTION_PENDING = 1, /* impact last step: the rebound is asked this step */
  CLT_RESTITUTION_DONE = 2     /* rebound asked; no new impact while the contact keeps pressing */
} clt_restitution_state_t;

typedef struct clt_contact_memory_t {
  int shape_a, shape_b, feature;
  int restitution_state;     /* clt_restitution_state_t */
  double pre_velocity;       /* v_pre = nᵀv before the impact (< 0) */
  double normal_impulse;     /* c_n */
  double tangent_impulse[3]; /* Σ_k β_k d_k, world frame (re-expressed on the next step's directions) */
  double slip;               /* λ */
} clt_contact_memory_t;

/* Which rows a problem uses (the dynamics step or the position projection of §3). */
typedef struct clt_problem_kind_t {
  bool friction;   /* include D rows, β and λ (the dynamics step); false: normal rows only */
  bool velocity;   /* b = J v_free + bias (dynamics); false: b = bias (position projection) */
} clt_problem_kind_t;

typedef struct clt_step_work_t {
  /* M̂⁻¹ per body: linear 1/m (0 for non-dynamic bodies) and the angular 3×3 block, row-major
   * (diag(1/J) unless the gyroscopic term is semi-implicit: (J + h K_c)⁻¹). */
  int body_capacity;
  double *inv_linear;
  double (*inv_angular)[9];
  double *dp;     /* 6 per body: the displacement of the position projection (§3) */
  int dp_capacity;
  bool symmetric; /* M̂ symmetric (false with the semi-implicit gyroscopic term) */

  /* rows */
  int row_count, row_capacity;
  clt_row_t *rows;
  double *row_value;   /* Θ (joint rows) or Φ (normal rows) at q; 0 for friction rows */
  double *row_bias;    /* Υ / Δ (SPEC.md §1 table) */
  double *row_minv;    /* 12 per row: M̂⁻¹ J_Aᵀ (6) and M̂⁻¹ J_Bᵀ (6) */
  int joint_rows;      /* rows [0, joint_rows) are joint rows */
  /* The limit and motor rows (docs/actuation.md), last among the joint rows: rows
   * [joint_rows − bounded_rows, joint_rows), each an unknown in [row_bounds[2i], row_bounds[2i + 1]]
   * (i counted from the first of them) where the others are free. */
  int bounded_rows;
  double *row_bounds;
  int row_bounds_capacity;
  int joint_rows_dropped; /* dependent joint rows left out this step (rank deficiency) */
  int *joint_row_owner;   /* joint index of each joint row */
  int *joint_row_component; /* component of Θ of each joint row (0…5) */
  /* Implicit force elements (SPEC.md §4, stage_spring_rows.c): compliant rows gᵀv⁺ + b + ε c = 0
   * placed last among the free joint rows, rows [joint_rows − bounded_rows − spring_rows,
   * joint_rows − bounded_rows); their owner is
   * world->joint_count + the force index (component 0). row_compliance is ε for them, 0 for every
   * other row; the step problem adds it to the diagonal of A. */
  double *row_compliance;
  int spring_rows;
  /* Per force element: the linearized post-step value φ(q) + h ∇φ(q)ᵀ v⁺ of this step, the value
   * the nonlinear projection (004 (46)) holds; NaN for elements without a compliant row. */
  double *spring_target;
  int spring_target_capacity;
  int friction_directions; /* m_C of the rows built (2 in 2D) */
  /* t₁ of each contact's friction directions, 3 a contact, when tangent_aligned (3D row schemes:
   * t₁ along the contact's tangential load, docs/stepping.md "Friction directions"); otherwise
   * the fixed basis of clt_contact_tangents. Read through clt_contact_basis. */
  double *contact_tangent;
  int contact_tangent_capacity;
  bool tangent_aligned;

  /* contacts */
  int contact_count, contact_capacity;
  clt_contact_t *contacts;

  /* the step problem w = A z + b (dense, row-major) */
  int lcp_n, lcp_capacity; /* b, w and ipiv hold lcp_capacity entries, z z_capacity */
  int z_capacity;
  double *A, *b, *z, *w;
  /* How z holds the contact impulses after the joint rows: false, the layout above (m_C + 2 a
   * contact); true, CLT_Z_BRACKET a contact (clt_z_bracket_put: the relaxed block Gauss–Seidel's
   * c_n and its tangential impulse on the two bracketing directions, 32 bytes instead of 80 with
   * m_C = 8). Readers go through clt_contact_z. */
  bool z_bracket;
  int block_capacity;
  int *block_start;
  int block_count;
  double *chol;        /* joints-only factorization */
  int *ipiv;
  int dense_capacity;  /* A and chol hold dense_capacity² doubles */
  bool dense;          /* the problem is in A (dense) or in the CSR arrays below */
  /* the step problem as CSR (block Gauss–Seidel on large problems: only unknowns sharing a body
   * couple) */
  int *csr_row_ptr, *csr_col;
  double *csr_val;
  int csr_row_capacity, csr_capacity, csr_val_capacity;
  int *body_start, *body_list, *scratch;
  int body_start_capacity, body_list_capacity, scratch_capacity;

  /* collision */
  clt_broadphase_t broadphase;
  clt_broadphase_proxy_t *proxies;
  int proxy_capacity;
  clt_contact_point_t points[CLT_MAX_PAIR_CONTACTS];
  /* Shape pairs of the last clt_find_contacts whose narrow phase failed (CLT_COLLIDE_FAILED: an
   * ellipsoid / ring iteration that did not converge): no contact was made for them, and a
   * warning went to the world's log (stage_collide.c). */
  int collide_failed;
  /* the parallel narrow phase's per-thread contact buffers (stage_collide.c), created on first use */
  struct clt_collide_threads_t *collide_threads;

  /* contact memory: current (state) and the one being built this step (swapped on commit) */
  int memory_count, memory_capacity;
  clt_contact_memory_t *memory;
  int next_memory_count, next_memory_capacity;
  clt_contact_memory_t *next_memory;
  /* The contacts of the last step for clt_world_get_contact (report_count of them; a step that
   * fails leaves none: 0 is set when a step starts). report_lazy (stage remember): each entry is
   * made where it is read, from contacts[j] and its impulses in z (clt_contact_report_get): no
   * 96-byte record per contact and step (docs/design/granular.md "Memory"). A
   * stage that overwrites contacts, z, joint_rows or friction_directions after stage remember
   * (the position projections of stage_post.c) first calls clt_contact_report_keep; stage relcp
   * writes report directly (report_lazy false). */
  int report_count, report_capacity;
  clt_contact_info_t *report;
  bool report_lazy;
  bool report_solved; /* the step's z holds the impulses (else they are reported as 0) */
  /* What makes a report entry touching (clt_contact_touching), set by stage "diagnose" once the
   * report is final: the gap CLT_TOUCH_GAP_FRACTION · ε̂ [m] and the normal impulse floor
   * CLT_TOUCH_IMPULSE_FRACTION × the step's largest normal impulse [N s] (world.h) */
  double touch_gap, touch_impulse;
  /* joint impulses of the last step, CLT_JOINT_SLOTS per joint (state; warm start), and the next ones */
  int joint_impulse_capacity;
  double *joint_impulse, *next_joint_impulse;
  /* the relaxed scheme's solve workspace (steppers/relaxed.h), created on first use */
  struct clt_relaxed_work_t *relaxed;
  /* the ReLCP pipeline's own workspace (steppers/relcp.h), created on its first step */
  struct clt_relcp_work_t *relcp;
  /* whether this step gives the pages of dead buffers back (clt_work_release): set by
   * clt_world_step for worlds of CLT_RELEASE_MIN_BODIES bodies or more */
  bool release_pages;
  /* the swept active set, filled by the relaxed stages and read by the contact query (sweep.h) */
  clt_sweep_t sweep;
  /* the step's scratch (base/arena.h): step.c pops it to its mark after every stage, so what a
   * stage takes from it lives until the stage returns; the solvers take theirs from it too */
  clt_arena_t arena;
} clt_step_work_t;

/* The joint memory (joint_impulse) holds CLT_JOINT_SLOTS impulses a joint, filed by row component:
 * 0…5 the components of Θ, then the limit rows at the lower and at the upper bound and the motor
 * row (docs/actuation.md). */
#define CLT_JOINT_SLOTS 9
#define CLT_JOINT_LOWER 6
#define CLT_JOINT_UPPER 7
#define CLT_JOINT_MOTOR 8

/* Whether a joint has rows or memory beyond Θ's (a limit, or a motor of any mode). */
static inline bool clt_joint_actuated(const clt_joint_rec_t *j) {
  return j->limit.enabled || j->motor.mode != CLT_MOTOR_OFF;
}

/* Worlds below this many bodies keep their buffers' pages between the stages. Giving them back
 * lowers the peak memory by what the dead buffers hold, and costs a page fault and a zeroed page
 * per page when the next writer comes. In a small world that is all cost: the 10³ pile's step took
 * 20 % longer with the pages given back (4.28–4.60 against 3.52–3.67 ms, the same bits) for 0.6 MB
 * less peak memory. At 8·10³ the buffers under 1 MB alone keep 4.8 MB off the peak, so a byte
 * threshold cannot tell the two apart (docs/design/granular.md "Memory"). */
#define CLT_RELEASE_MIN_BODIES 4096

/* Whether this step hands dead buffers to clt_release_pages: where it gives pages back
 * (w->release_pages), and in the sanitizer build (CLATTER_POISON_RELEASED) always, so that a
 * reader of a dead buffer fails the tests whatever the world's size. */
static inline bool clt_work_releases(const clt_step_work_t *w) {
#ifdef CLATTER_POISON_RELEASED
  (void)w;
  return true;
#else
  return w->release_pages;
#endif
}

/* clt_release_pages(p, bytes) where clt_work_releases(w). */
static inline void clt_work_release(const clt_step_work_t *w, void *p, size_t bytes) {
  if (clt_work_releases(w)) clt_release_pages(p, bytes);
}

/* The compact layout of z (z_bracket): c_n, α, β and k0 · CLT_Z_BRACKET_K + k1 (exact in a double:
 * k0, k1 < m_C ≤ 1024), for the impulse c_n n + α d_k0 + β d_k1. */
#define CLT_Z_BRACKET 4
#define CLT_Z_ROW_MAX (1024 + 2) /* m_C + 2 for the largest m_C a scene may ask for */
#define CLT_Z_BRACKET_K 1024

static inline void clt_z_bracket_put(double *z, double cn, int k0, double alpha, int k1, double beta) {
  z[0] = cn;
  z[1] = alpha;
  z[2] = beta;
  z[3] = (double)(k0 * CLT_Z_BRACKET_K + k1);
}

/* How many entries of z the contact impulses of the step fill after the joint rows. */
static inline int clt_contact_z_block(const clt_step_work_t *w) {
  return w->z_bracket ? CLT_Z_BRACKET : w->friction_directions + 2;
}

/* Contact j's impulses in the layout of the step problem (m_C + 2 values: c_n, β_1 … β_m, λ): a
 * pointer into z, or, with the compact layout, buf (m_C + 2 doubles) made from it by the
 * operations the full layout's writer used (zeros, then += α and += β), so that every reader gets
 * the same bits either way. */
static inline const double *clt_contact_z(const clt_step_work_t *w, int j, double *buf) {
  int m = w->friction_directions;
  const double *z = w->z + w->joint_rows + (size_t)j * (size_t)clt_contact_z_block(w);
  if (!w->z_bracket) return z;
  for (int k = 0; k < m + 2; k++) buf[k] = 0.0;
  int key = (int)z[3];
  buf[0] = z[0];
  buf[1 + key / CLT_Z_BRACKET_K] += z[1];
  buf[1 + key % CLT_Z_BRACKET_K] += z[2];
  return buf;
}

/* Whether a report entry touches (world.h clt_contact_info_t.touching): its gap at the start of the
 * step is within touch_gap, or its normal impulse is above touch_impulse (docs/output-format.md
 * "Touching contacts"). */
static inline bool clt_contact_touching(const clt_step_work_t *w, double distance, double normal_impulse) {
  return distance <= w->touch_gap || normal_impulse > w->touch_impulse;
}

/* Contact report entry `index` (< report_count) of the last step (rows.h, report_lazy). */
void clt_contact_report_get(const clt_world_t *world, const clt_step_work_t *work, int index, clt_contact_info_t *out);
/* Entry `index`'s gap Φ and normal impulse c_n alone (what clt_contact_report_get reports, without
 * the rest of the entry: stage "diagnose" reads them for every contact of every step). */
void clt_contact_report_gap(const clt_step_work_t *work, int index, double *distance, double *normal_impulse);
/* Copies a lazy report into work->report, so that contacts and z can be overwritten. */
clt_status_t clt_contact_report_keep(clt_world_t *world, clt_step_work_t *work);
/* The memory entry of a contact key, or NULL. */
const clt_contact_memory_t *clt_find_contact_memory(const clt_step_work_t *work, int shape_a, int shape_b,
                                                    int feature);
/* The same in any array of entries in key order (count of them). */
const clt_contact_memory_t *clt_find_memory_entry(const clt_contact_memory_t *memory, int count, int shape_a,
                                                  int shape_b, int feature);
/* Makes the memory just built (*next, with its count and capacity) the one of *into, and hands
 * the buffer *into held to *next, empty (no copy). */
void clt_contact_memory_take(clt_contact_memory_t **into, int *into_count, int *into_capacity,
                             clt_contact_memory_t **next, int *next_count, int *next_capacity);
/* Grows the joint-impulse memory to the world's joint count (new entries 0). */
bool clt_step_work_reserve_joint_impulses(clt_step_work_t *work, int joints);

/* The world's workspace, created on first use; NULL only when out of memory. */
clt_step_work_t *clt_step_work(clt_world_t *world);
/* The bytes the step workspace holds (memory.c; the diagnostics' work_bytes). */
int64_t clt_step_work_bytes(const clt_world_t *world);
/* clt_world_memory's walk over the buffers: one call per buffer (p may be NULL), by name. Each
 * scheme lists its own workspace's (clt_relaxed_visit_memory, clt_relcp_visit_memory). */
typedef void (*clt_memory_visit_fn)(void *user, const char *name, const void *p, bool workspace);
void clt_step_work_destroy(clt_step_work_t *work);
/* Frees the world's workspace (clt_world_destroy) and clears world->step_work. */
void clt_world_free_step_work(clt_world_t *world);
/* Grows the row / contact / problem buffers. */
bool clt_step_work_reserve_rows(clt_step_work_t *work, int rows);
bool clt_step_work_reserve_contacts(clt_step_work_t *work, int contacts);
bool clt_step_work_reserve_problem(clt_step_work_t *work, int n, int blocks);
/* Grows z alone to n unknowns (the relaxed solves, which write only the impulses). */
bool clt_step_work_reserve_z(clt_step_work_t *work, int n);
/* realloc *p to at least `needed` elements of `size` bytes, doubling; keeps the contents. */
bool clt_step_work_grow(void **p, int *capacity, int needed, size_t size);
bool clt_step_work_grow_ints(int **array, int *capacity, int needed);
bool clt_step_work_grow_doubles(double **array, int *capacity, int needed);
/* The dense matrices A and chol for problems of size n. */
bool clt_step_work_reserve_dense(clt_step_work_t *work, int n);
bool clt_step_work_reserve_bodies(clt_step_work_t *work, int bodies);
bool clt_step_work_reserve_dp(clt_step_work_t *work, int bodies);

/* Generalized velocity 6-vector of body i (0 for the ground and static bodies; the current state
 * velocity for dynamic and kinematic ones). */
void clt_body_velocity6(const clt_world_t *world, int body, double v[6]);
/* J v for a row (both sides). */
double clt_row_velocity(const clt_world_t *world, const clt_row_t *row);

/* Builds the joint rows ν and values Θ at the current state into work (rows [0, joint_rows)),
 * leaving out rows that are linearly dependent on the others (pivoted Cholesky of ν M⁻¹ νᵀ). */
clt_status_t clt_build_joint_rows(clt_world_t *world, clt_step_work_t *work);
/* Leaves out the rows of [0, n) that are linearly dependent on the others (pivoted Cholesky of
 * J M⁻¹ Jᵀ), keeping the order; sets joint_rows = row_count = the kept count. */
clt_status_t clt_drop_dependent_rows(clt_world_t *world, clt_step_work_t *work, int n);
/* Appends the compliant rows of the implicit force elements after the joint rows
 * (stage_spring_rows.c): g = ∇φ, bias b = γφ/(hγ + δ), compliance ε = 1/(h(hγ + δ)). Call right
 * after clt_build_joint_rows. */
clt_status_t clt_build_spring_rows(clt_world_t *world, clt_step_work_t *work, double h);
/* After the solve: records φ + h ∇φᵀ v⁺ of every implicit element (the projection target). */
void clt_record_spring_targets(clt_world_t *world, clt_step_work_t *work, double h);
/* Finds the active contacts (Φ ≤ max_distance) at the current state into work->contacts. */
clt_status_t clt_find_contacts(clt_world_t *world, clt_step_work_t *work, double max_distance);
void clt_collide_threads_destroy(struct clt_collide_threads_t *threads);
/* The same with the relaxed scheme's swept active set (relaxed.h), or body_margin NULL: body i's
 * bounds grow by body_margin[6i .. 6i + 6) below and above along each axis, which must be
 * work->sweep.ext as clt_stage_relaxed_collide left it, and a point is active when its gap can
 * close this step given the velocity boxes there (stage_collide.c, pair_reach). */
clt_status_t clt_find_contacts_swept(clt_world_t *world, clt_step_work_t *work, double max_distance,
                                     const double *body_margin);
/* After clt_find_contacts_swept(world, work, eps, work->sweep.ext): records ε̂ and the
 * step so that the penetration diagnostics of the state after the step can test those pairs
 * instead of running the broad phase again (stage_collide.c). The poses of the search are the
 * backup's (clt_world_backup_pose), the step's start (nothing is kept where a state differs from it); the sweeps
 * are work->sweep.ext, which stays as it is until the next search. Any other broad phase on work clears
 * it, and so do clt_stage_relaxed_collide before it writes work->sweep.ext and clt_world_step before it
 * writes the backup. */
void clt_sweep_keep_pairs(clt_world_t *world, clt_step_work_t *work, double eps);
/* Shelving the contacts through a solve (relaxed_bgs.c). Once the block Gauss–Seidel has read what
 * it needs of work->contacts but the records, they are dead until the solve ends, and the records
 * are built from each contact made again on the fly: the contacts and the records, 136 and 208
 * bytes a contact, are never resident at once.
 * - clt_contacts_shelve: where the step gives pages back (clt_work_releases) and every contact is
 *   one that the narrow phase makes again from the shapes alone (a sphere against a sphere or a
 *   half-space, no restitution, its μ that of the pair or 0), writes work->sweep.shelf and gives the
 *   contacts' pages back; returns whether it did (work->sweep.shelved).
 * - clt_contact_remake: contact j of the shelf into *c, with the narrow-phase call of
 *   clt_find_contacts_swept but an unbounded reach (for these pairs the reach only decides whether
 *   a point is made: the same bits); false if its point is not found again (a bug, never a
 *   physical case: the positions must not move while shelved). The sanitizer build also compares
 *   the bytes with a copy kept by clt_contacts_shelve.
 * - clt_contact_lost: fails the step for contact j that clt_contact_remake did not make.
 * - clt_contacts_unshelve: every contact back into work->contacts. */
bool clt_contacts_shelve(clt_world_t *world, clt_step_work_t *w);
bool clt_contact_remake(const clt_world_t *world, const clt_step_work_t *w, int j, struct clt_contact_t *c);
clt_status_t clt_contact_lost(clt_world_t *world, const clt_step_work_t *w, int j);
clt_status_t clt_contacts_unshelve(clt_world_t *world, clt_step_work_t *w);
/* The largest of a body's 6 sweep extents (a half-space's offset grows by it). */
static inline double clt_sweep_reach(const double sweep[6]) {
  double m = 0.0;
  for (int k = 0; k < 6; k++) m = sweep[k] > m ? sweep[k] : m;
  return m;
}
/* The farthest corner of the bounds of body i's shapes from its origin (−1: an unbounded shape). */
double clt_body_extent(const clt_world_t *world, int i);
/* The farthest point of body i's bounded shapes from its origin that a rotation moves (a sphere
 * centred on the body does not count: rotating it leaves its bounds as they are); *unbounded tells
 * whether the body also has an unbounded shape (stage_collide.c). */
double clt_body_rotation_reach(const clt_world_t *world, int i, bool *unbounded);
/* The broad phase alone (work->broadphase.pairs over work->proxies, proxy index = shape index),
 * bounds grown by margin on every side and by body_sweep[6 body .. 6 body + 6) below and above
 * along each axis (may be NULL). */
clt_status_t clt_broad_phase_pairs(clt_world_t *world, clt_step_work_t *work, double margin, const double *body_sweep);
/* Only its proxies (work->proxies), placed as clt_broad_phase_pairs places them: for pairs kept from
 * a broad phase of the same state with the same sweeps. */
clt_status_t clt_place_proxies(clt_world_t *world, clt_step_work_t *work, const double *body_sweep);
/* Appends the rows of work's contacts after the joint rows: n (value Φ), and with friction the
 * m_C direction rows. */
/* The Jacobian row of contact c along the world direction dir: dir·(ṗ_B − ṗ_A) at the witness
 * points (SPEC.md §0). Normal, friction and relaxed-cone generator rows are all such rows. */
void clt_contact_row(const clt_world_t *world, const clt_contact_t *c, const double dir[3], clt_row_t *row);

clt_status_t clt_build_contact_rows(clt_world_t *world, clt_step_work_t *work, bool friction, double h);

/* The tangent basis of a contact normal (2D: t₁ = (−n_y, n_x), t₂ = −t₁) and its k-th balanced
 * friction direction of m (SPEC.md §1; 2D: t₁, t₂). */
void clt_contact_tangents(const clt_world_t *world, const double n[3], double t1[3], double t2[3]);
/* The tangents t₁, t₂ of contact j's friction directions in the rows of this step (the aligned
 * basis where work->tangent_aligned, else clt_contact_tangents). */
void clt_contact_basis(const clt_world_t *world, const clt_step_work_t *work, int j, double t1[3], double t2[3]);
void clt_friction_direction(const clt_world_t *world, const double t1[3], const double t2[3], int k, int m,
                            double d[3]);

/* Computes work->inv_linear / inv_angular from the current state (M̂ of SPEC.md §1; with
 * plain_mass the plain M, as the position projection of §3 uses). */
clt_status_t clt_compute_inverse_mass(clt_world_t *world, clt_step_work_t *work, double h, bool plain_mass);

/* Assembles w = A z + b of the current rows (SPEC.md §2 "Reduction"), solves it with the world's
 * solver (joints only: a dense factorization), writes z and fills the solver fields of d.
 * Returns CLT_OK also when the solver failed (status in d), except for invalid input / memory. */
clt_status_t clt_solve_rows(clt_world_t *world, clt_step_work_t *work, clt_problem_kind_t kind,
                            clt_diagnostics_t *d);
/* Adds M̂⁻¹ N z (the impulses of the solution) to each body's velocity (dv = NULL) or, with dv
 * given (6 per body), writes it there instead. */
void clt_apply_impulses(clt_world_t *world, const clt_step_work_t *work, clt_problem_kind_t kind, double *dv);


#endif
