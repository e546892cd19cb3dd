/* clatter — growing, dividing rod-shaped cells (SPEC.md §6.3 "Growth", 002 §5.4). Part of the core
 * library.
 *
 * A colony drives a 3D world whose cells are dynamic bodies with one capsule (spherocylinder)
 * shape of diameter d. Cell length L below is the capsule's `length`: the distance between the two
 * cap centres (total length L + d). One colony step (clt_colony_step):
 *   1. growth: every cell L ← L·e^{h/τ} (dL/dt = L/τ integrated exactly over the step h);
 *   2. division: every cell with L ≥ division_length, in cell order, divides into two daughters
 *      along its axis (below);
 *   3. clt_world_step.
 * The world may hold other bodies (walls); the colony only touches its own cells.
 *
 * Division of a mother of length L, centre x, unit axis u, orientation q:
 *  - volume: each daughter has L_d = L/2 − d/3, so that the two daughters' volumes
 *    (π d²/4 · L_d + π d³/6 each) add up to the mother's exactly;
 *  - placement: the daughters' centres are x ± s u with s = (L_d + d + gap)/2: the daughters are
 *    equal, so their centre of mass is x; the two inner cap centres are d + gap apart, so the
 *    sisters do not overlap (gap = division_gap ≥ 0). Conserving volume makes the pair longer
 *    than the mother (each outer tip lies L_d + d + gap/2 = L/2 + 2d/3 + gap/2 from x, i.e.
 *    d/6 + gap/2 beyond hers): an overlap with a third cell created there is a negative signed
 *    distance that the next step's constraints remove (SPEC.md §6.2, Φ < 0 in b₀), exactly as an
 *    overlap created by growth is;
 *  - reorientation: each daughter is then turned about its own centre by a random rotation from
 *    the colony's generator (splitmix64 seeded by `seed`; draws in cell order, so a run is
 *    reproducible bit for bit). Planar worlds (world_def.planar): an angle uniform in
 *    [−max_reorientation, max_reorientation] about the plane normal z. Free 3D: a tilt angle
 *    uniform in [−max_reorientation, max_reorientation] about an axis ⊥ u whose azimuth is uniform
 *    in [0, π). Turning a daughter about its own centre by less than 90° never brings the sisters
 *    closer than d + gap (every point of one stays on its side of the plane between them);
 *  - velocities: both daughters take the velocity of the mother's material point at their centre
 *    and her angular velocity (irrelevant under the overdamped law, where velocities are outputs);
 *  - the mother's body becomes the first daughter (same handle), the second is a new body
 *    appended to the world and to the cell list; generation = mother's + 1 for both.
 *
 * Masses follow the shapes (material density); drag under the overdamped law is the world's
 * default drag of the capsule (src/dynamics/drag.c), recomputed from the current length. */
#ifndef CLATTER_COLONY_H
#define CLATTER_COLONY_H

#include "clatter/world.h"

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef struct clt_colony_t clt_colony_t;

typedef struct clt_colony_def_t {
  double diameter;          /* d [m] > 0, default 1 */
  double growth_time;       /* τ [s] > 0 of dL/dt = L/τ, default 1 */
  double division_length;   /* L at which a cell divides [m]; > 2d/3 (daughters of length ≥ 0), default 3 */
  double initial_length;    /* L of the first cell [m]; < 0 (default): the daughter length
                             * division_length/2 − d/3, so every generation lasts τ ln(L_div/L_d) */
  double initial_position[3]; /* centre of the first cell [m], default 0 */
  double initial_axis[3];     /* axis of the first cell (normalized; planar worlds: z ignored), default x */
  double max_reorientation;   /* [rad] in [0, π/2), default 0.05 */
  double division_gap;        /* surface gap between sisters at division [m] ≥ 0, default 0 */
  uint64_t seed;              /* default 1 */
  int material;               /* the cells' material (clt_world_add_material), −1 = world default */
  /* An existing body to start from (a scene's seed cell) instead of creating one: a dynamic body
   * whose only shape is a capsule of radius d/2 and length < division_length; initial_length,
   * initial_position, initial_axis and material are then taken from it. Default: the null handle
   * (clt_world_ground()): the colony creates the first cell. */
  clt_body_id_t first_cell;
} clt_colony_def_t;

clt_colony_def_t clt_default_colony_def(void);

/* A NULL colony never crashes (as a NULL world, world.h "Misuse"): the calls that return
 * clt_status_t return CLT_ERR_INVALID_ARGUMENT, the getters the neutral value given next to them,
 * clt_colony_destroy(NULL) does nothing. */

/* Validates def against the world (3D, planar or free), adds the first cell to it and returns
 * the colony in *out (NULL on failure; CLT_ERR_INVALID_ARGUMENT with the reason in
 * clt_world_error). The world must outlive the colony; destroying the colony leaves the cells in
 * the world. */
clt_status_t clt_colony_create(clt_world_t *world, const clt_colony_def_t *def, clt_colony_t **out);
void clt_colony_destroy(clt_colony_t *colony);

/* Steps 1–3 above. Returns the status of the first failing call (the world's message says why);
 * on a failure of clt_world_step the lengths and divisions of this step stay applied. */
clt_status_t clt_colony_step(clt_colony_t *colony);
/* Steps 1–2 only (growth and division over one time step, no mechanics). */
clt_status_t clt_colony_grow(clt_colony_t *colony);

clt_world_t *clt_colony_world(const clt_colony_t *colony);          /* NULL: NULL */
int clt_colony_cell_count(const clt_colony_t *colony);                /* NULL: 0 */
int64_t clt_colony_division_count(const clt_colony_t *colony);        /* NULL: 0 */

typedef struct clt_colony_cell_t {
  clt_body_id_t body;
  double length;       /* L: cap-centre distance [m] */
  double position[3];  /* centre [m] */
  double axis[3];      /* unit axis, world frame */
  int generation;      /* 0 for the first cell */
} clt_colony_cell_t;

/* The i-th cell (0 ≤ i < count, creation order); CLT_ERR_INVALID_ARGUMENT otherwise. */
clt_status_t clt_colony_get_cell(const clt_colony_t *colony, int index, clt_colony_cell_t *out);
/* Total volume of the cells [m³]: Σ (π d²/4 L + π d³/6). NULL: NaN. */
double clt_colony_volume(const clt_colony_t *colony);

/* Checkpoints. A colony's own state (its cells' lengths, generations and bodies, the generator,
 * the division count) as an opaque byte blob, native byte order, for the same build; the world's
 * state (poses, velocities, warm starts) is clt_world_save_state's. To continue a run:
 *   1. build the world from the same description and create the colony with the same def: it has
 *      its first cell only and has not grown;
 *   2. clt_colony_load_state: appends the bodies of the other cells in the order the run created
 *      them (each a capsule of the cell's length, made by the same calls as in the run);
 *   3. clt_world_load_state with the world's blob saved at the same moment.
 * The continuation is then bit-identical to the uninterrupted run (tests/colony/
 * test_checkpoint.c). load_state checks the blob before it touches the world (magic, version,
 * size, the def's scalars, cell bodies in creation order after the first cell's) and fails with
 * CLT_ERR_FORMAT (bad blob) or CLT_ERR_INVALID_ARGUMENT (the colony has grown) and the reason in
 * clt_world_error; on a failure while adding bodies the world keeps those already added. */
size_t clt_colony_state_size(const clt_colony_t *colony); /* NULL: 0 */
clt_status_t clt_colony_save_state(const clt_colony_t *colony, void *buffer, size_t size);
clt_status_t clt_colony_load_state(clt_colony_t *colony, const void *buffer, size_t size);

/* Orientation order of the colony (002 Fig. 5a), definitions:
 *  - local nematic order S_i of cell i over the cells j whose centres lie within `radius` of its
 *    centre (i included): planar worlds S_i = |⟨e^{2iθ_j}⟩| with θ_j the in-plane axis angle;
 *    free 3D S_i = the largest eigenvalue of ⟨(3 u_j u_jᵀ − I)/2⟩. 1 = all parallel; an isotropic
 *    neighbourhood of n cells gives about 1/√n in 2D. nematic_order is the mean of S_i over the
 *    cells;
 *  - aligned domains: the connected components of the graph linking cells i, j whose surfaces
 *    are within `contact_gap` (segment–segment distance − d ≤ contact_gap) and whose axes differ
 *    by less than `angle` [rad] (modulo π: the axes are unsigned). mean_domain_size = cells /
 *    domains (every cell belongs to one domain, single cells included); weighted_domain_size =
 *    Σ n_k² / cells (the size of the domain of a randomly picked cell); largest_domain = max n_k. */
typedef struct clt_colony_order_t {
  int cells;
  double nematic_order;
  int domains;
  double mean_domain_size;
  double weighted_domain_size;
  int largest_domain;
} clt_colony_order_t;

clt_status_t clt_colony_order(const clt_colony_t *colony, double radius, double angle, double contact_gap,
                              clt_colony_order_t *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
