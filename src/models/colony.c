/* Growing and dividing spherocylinder cells (SPEC.md §6.3 "Growth", 002 §5.4): growth, division,
 * the seeded generator of the daughters' reorientation, and the orientation-order analysis. The
 * rules and definitions are documented in include/clatter/colony.h. */
#include "clatter/colony.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "dynamics/world_calls.h"
#include "math/vec.h"

typedef struct cell_rec_t {
  clt_body_id_t body;
  double length;
  int generation;
} cell_rec_t;

struct clt_colony_t {
  clt_world_t *world;
  clt_colony_def_t def;
  bool planar;
  cell_rec_t *cells;
  int count, capacity;
  uint64_t rng;             /* splitmix64 state */
  int64_t divisions;
  double factor_h;          /* the h that growth_factor was computed for */
  double growth_factor;     /* e^{h/τ} */
};

/* splitmix64 (Steele, Lea & Flood 2014): a 64-bit counter through a bijective mixer; small state,
 * full period 2⁶⁴, and the same sequence on every platform. */
static uint64_t next_u64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static double next_unit(uint64_t *state) { return (double)(next_u64(state) >> 11) * 0x1.0p-53; }

clt_colony_def_t clt_default_colony_def(void) {
  clt_colony_def_t d;
  memset(&d, 0, sizeof d);
  d.diameter = 1.0;
  d.growth_time = 1.0;
  d.division_length = 3.0;
  d.initial_length = -1.0;
  d.initial_axis[0] = 1.0;
  d.max_reorientation = 0.05;
  d.division_gap = 0.0;
  d.seed = 1;
  d.material = -1;
  d.first_cell = clt_world_ground();
  return d;
}

/* The unit quaternion turning e_z onto the unit vector u (shortest arc). */
static void quat_from_z(const double u[3], double q[4]) {
  double c = 1.0 + u[2];
  if (c < 1e-12) { /* u = −e_z: half turn about x */
    q[0] = 0.0;
    q[1] = 1.0;
    q[2] = 0.0;
    q[3] = 0.0;
    return;
  }
  q[0] = c;
  q[1] = -u[1];
  q[2] = u[0];
  q[3] = 0.0;
  clt_q_normalize(q);
}

/* The state of body b (an index the caller resolved or made) and its single shape, through the
 * public API. */
static const clt_body_state_t *body_state(const clt_world_t *world, int b) {
  return &clt_world_states((clt_world_t *)world)[b];
}

static clt_shape_def_t body_shape(const clt_world_t *world, int b) {
  clt_shape_def_t s;
  /* a body without shapes: a def of no type, which no check takes for a capsule */
  if (clt_body_get_shape(world, clt_world_body_at(world, b), 0, &s) != CLT_OK)
    s = clt_default_shape_def(CLT_SHAPE_TYPE_COUNT);
  return s;
}

/* World orientation of cell body b's capsule (principal orientation ⊗ the shape's local one). */
static void capsule_orientation(const clt_world_t *world, int b, double q[4]) {
  clt_shape_def_t s = body_shape(world, b);
  clt_q_mul(q, body_state(world, b)->orientation, s.local_orientation);
}

static void capsule_axis(const clt_world_t *world, int b, double u[3]) {
  double q[4], ez[3] = {0.0, 0.0, 1.0};
  capsule_orientation(world, b, q);
  clt_q_rotate(u, q, ez);
}

static bool push_cell(clt_colony_t *c, clt_body_id_t body, double length, int generation) {
  if (!clt_grow((void **)&c->cells, &c->capacity, c->count + 1, sizeof *c->cells)) return false;
  c->cells[c->count].body = body;
  c->cells[c->count].length = length;
  c->cells[c->count].generation = generation;
  c->count++;
  return true;
}

/* A new cell body: one capsule along its local z, turned to the world orientation q. */
static clt_status_t add_cell_body(clt_colony_t *c, const double position[3], const double q[4],
                                  const double velocity[3], const double omega_world[3], double length,
                                  clt_body_id_t *out) {
  clt_shape_def_t cap = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  cap.radius = 0.5 * c->def.diameter;
  cap.length = length;
  cap.material = c->def.material;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &cap;
  bd.shape_count = 1;
  clt_v3_copy(bd.position, position);
  clt_q_copy(bd.orientation, q);
  clt_v3_copy(bd.velocity, velocity);
  clt_q_rotate_inv(bd.angular_velocity, q, omega_world); /* body frame = the capsule's frame */
  return clt_world_add_body(c->world, &bd, out);
}

#define FAIL(...) clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, __VA_ARGS__)

/* clt_colony_create from an existing seed cell (def->first_cell), def's scalars already checked. */
static clt_status_t adopt(clt_world_t *world, const clt_colony_def_t *def, clt_colony_t **out) {
  int b;
  clt_status_t st = clt_world_resolve_body(world, def->first_cell, false, "colony: first_cell", &b);
  if (st != CLT_OK) return st;
  clt_body_info_t info;
  clt_body_get_info(world, def->first_cell, &info);
  char label[96];
  clt_body_label(world, b, label, sizeof label);
  clt_shape_def_t shape = body_shape(world, b);
  if (info.type != CLT_BODY_DYNAMIC || info.shape_count != 1 || shape.type != CLT_SHAPE_CAPSULE)
    return FAIL("colony: first_cell (%s) must be a dynamic body with one capsule shape", label);
  const clt_shape_def_t *s = &shape;
  if (fabs(2.0 * s->radius - def->diameter) > 1e-12 * def->diameter)
    return FAIL("colony: first_cell (%s) has diameter %g, the colony's is %g", label, 2.0 * s->radius,
                def->diameter);
  if (!(s->length < def->division_length))
    return FAIL("colony: first_cell (%s) has length %g >= division_length %g", label, s->length,
                def->division_length);
  if (clt_world_planar(world)) {
    double u[3];
    capsule_axis(world, b, u);
    if (fabs(u[2]) > 1e-12) return FAIL("colony: first_cell (%s): its axis must lie in the plane", label);
  }
  clt_colony_t *c = calloc(1, sizeof *c);
  if (!c) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "colony: out of memory");
  c->world = world;
  c->def = *def;
  c->def.diameter = 2.0 * s->radius;
  c->def.material = s->material;
  c->planar = clt_world_planar(world);
  c->rng = def->seed;
  if (!push_cell(c, def->first_cell, s->length, 0)) {
    free(c);
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "colony: out of memory");
  }
  *out = c;
  return CLT_OK;
}

clt_status_t clt_colony_create(clt_world_t *world, const clt_colony_def_t *def, clt_colony_t **out) {
  if (out) *out = NULL;
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  if (!def || !out) return FAIL("colony: def and out must not be NULL");
  if (clt_world_dimension(world) != 3)
    return FAIL("colony: the cells are capsules of a 3D world (use world_def.planar for a 2D colony)");
  double d = def->diameter;
  if (!(isfinite(d) && d > 0.0)) return FAIL("colony: diameter must be > 0 and finite (got %g)", d);
  if (!(isfinite(def->growth_time) && def->growth_time > 0.0))
    return FAIL("colony: growth_time must be > 0 and finite (got %g)", def->growth_time);
  if (!(isfinite(def->division_length) && def->division_length > 2.0 * d / 3.0))
    return FAIL("colony: division_length must be > 2/3 of the diameter (%g), so that daughters have a "
                "length >= 0 (got %g)", 2.0 * d / 3.0, def->division_length);
  if (!(isfinite(def->max_reorientation) && def->max_reorientation >= 0.0 && def->max_reorientation < 0.5 * CLT_PI))
    return FAIL("colony: max_reorientation must be in [0, pi/2) (got %g)", def->max_reorientation);
  if (!(isfinite(def->division_gap) && def->division_gap >= 0.0))
    return FAIL("colony: division_gap must be >= 0 and finite (got %g)", def->division_gap);
  if (!clt_body_id_is_null(def->first_cell)) return adopt(world, def, out);
  double daughter = 0.5 * def->division_length - d / 3.0;
  double l0 = def->initial_length < 0.0 ? daughter : def->initial_length;
  if (!(isfinite(l0) && l0 >= 0.0 && l0 < def->division_length))
    return FAIL("colony: initial_length must be in [0, division_length) (got %g)", def->initial_length);
  if (def->material < -1 || def->material >= clt_world_material_count(world))
    return FAIL("colony: material %d does not exist (the world has %d materials)", def->material,
                clt_world_material_count(world));
  double axis[3];
  clt_v3_copy(axis, def->initial_axis);
  if (clt_world_planar(world)) axis[2] = 0.0;
  double n = clt_v3_norm(axis);
  if (!(isfinite(n) && n > 0.0))
    return FAIL("colony: initial_axis must be a finite non-zero vector%s", clt_world_planar(world) ? " in the plane" : "");
  clt_v3_scale(axis, axis, 1.0 / n);
  if (!clt_v3_isfinite(def->initial_position)) return FAIL("colony: initial_position must be finite");

  clt_colony_t *c = calloc(1, sizeof *c);
  if (!c) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "colony: out of memory");
  c->world = world;
  c->def = *def;
  c->planar = clt_world_planar(world);
  c->rng = def->seed;
  double q[4], zero[3] = {0.0, 0.0, 0.0};
  quat_from_z(axis, q);
  clt_body_id_t id;
  clt_status_t st = add_cell_body(c, def->initial_position, q, zero, zero, l0, &id);
  if (st == CLT_OK && !push_cell(c, id, l0, 0)) st = clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "colony: out of memory");
  if (st != CLT_OK) {
    free(c->cells);
    free(c);
    return st;
  }
  *out = c;
  return CLT_OK;
}

void clt_colony_destroy(clt_colony_t *colony) {
  if (!colony) return;
  free(colony->cells);
  free(colony);
}

clt_world_t *clt_colony_world(const clt_colony_t *colony) { return colony ? colony->world : NULL; }
int clt_colony_cell_count(const clt_colony_t *colony) { return colony ? colony->count : 0; }
int64_t clt_colony_division_count(const clt_colony_t *colony) { return colony ? colony->divisions : 0; }

/* The rotation vector of one daughter's reorientation (colony.h). */
static void draw_turn(clt_colony_t *c, const double u[3], double rv[3]) {
  double phi = c->def.max_reorientation * (2.0 * next_unit(&c->rng) - 1.0);
  if (c->planar) {
    clt_v3_set(rv, 0.0, 0.0, phi);
    return;
  }
  double psi = CLT_PI * next_unit(&c->rng);
  double t1[3], t2[3], w[3];
  clt_v3_basis(u, t1, t2);
  clt_v3_scale(w, t1, cos(psi));
  clt_v3_axpy(w, w, sin(psi), t2);
  clt_v3_scale(rv, w, phi);
}

static clt_status_t divide(clt_colony_t *c, int i) {
  clt_world_t *world = c->world;
  cell_rec_t *cell = &c->cells[i];
  int b = (int)cell->body.index;
  double d = c->def.diameter;
  double daughter = 0.5 * cell->length - d / 3.0; /* volume: 2(π d²/4 L_d + π d³/6) = π d²/4 L + π d³/6 */
  double offset = 0.5 * (daughter + d + c->def.division_gap);
  clt_body_state_t mother = *body_state(world, b);
  double qm[4], u[3];
  capsule_orientation(world, b, qm);
  capsule_axis(world, b, u);
  if (c->planar) { /* the axis is in the plane up to round-off; keep it exactly there */
    u[2] = 0.0;
    double n = clt_v3_norm(u);
    clt_v3_scale(u, u, 1.0 / n);
  }
  double rv1[3], rv2[3], e1[4], e2[4];
  draw_turn(c, u, rv1);
  draw_turn(c, u, rv2);
  clt_q_exp(e1, rv1);
  clt_q_exp(e2, rv2);
  double w_world[3];
  clt_q_rotate(w_world, mother.orientation, mother.angular_velocity);

  /* first daughter: the mother's body, at x − s u */
  double r1[3], r2[3], wxr[3];
  clt_v3_scale(r1, u, -offset);
  clt_v3_scale(r2, u, offset);
  clt_body_state_t s1 = mother;
  clt_v3_add(s1.position, mother.position, r1);
  clt_q_mul(s1.orientation, e1, mother.orientation);
  clt_q_normalize(s1.orientation);
  clt_v3_cross(wxr, w_world, r1);
  clt_v3_add(s1.velocity, mother.velocity, wxr);
  clt_q_rotate_inv(s1.angular_velocity, s1.orientation, w_world);
  clt_status_t st = clt_body_set_capsule_length(world, cell->body, 0, daughter);
  if (st != CLT_OK) return st;
  st = clt_body_set_state(world, cell->body, &s1);
  if (st != CLT_OK) return st;
  cell->length = daughter;
  cell->generation++;
  int generation = cell->generation;

  /* second daughter: a new body at x + s u */
  double p2[3], v2[3], q2[4];
  clt_v3_add(p2, mother.position, r2);
  clt_v3_cross(wxr, w_world, r2);
  clt_v3_add(v2, mother.velocity, wxr);
  clt_q_mul(q2, e2, qm);
  clt_q_normalize(q2);
  clt_body_id_t id;
  st = add_cell_body(c, p2, q2, v2, w_world, daughter, &id);
  if (st != CLT_OK) return st;
  if (!push_cell(c, id, daughter, generation))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "colony: out of memory");
  c->divisions++;
  return CLT_OK;
}

clt_status_t clt_colony_grow(clt_colony_t *colony) {
  if (!colony) return CLT_ERR_INVALID_ARGUMENT;
  clt_world_t *world = colony->world;
  double h = clt_world_time_step(world);
  if (h != colony->factor_h) {
    colony->growth_factor = exp(h / colony->def.growth_time);
    colony->factor_h = h;
  }
  for (int i = 0; i < colony->count; i++) {
    cell_rec_t *cell = &colony->cells[i];
    cell->length *= colony->growth_factor; /* L(t + h) = L(t) e^{h/τ}: exact for dL/dt = L/τ */
    clt_status_t st = clt_body_set_capsule_length(world, cell->body, 0, cell->length);
    if (st != CLT_OK) return st;
  }
  /* Daughters are appended; those born in this step are not examined again in it. */
  int n = colony->count;
  for (int i = 0; i < n; i++) {
    if (colony->cells[i].length >= colony->def.division_length) {
      clt_status_t st = divide(colony, i);
      if (st != CLT_OK) return st;
    }
  }
  return CLT_OK;
}

clt_status_t clt_colony_step(clt_colony_t *colony) {
  if (!colony) return CLT_ERR_INVALID_ARGUMENT;
  clt_status_t st = clt_colony_grow(colony);
  if (st != CLT_OK) return st;
  return clt_world_step(colony->world);
}

clt_status_t clt_colony_get_cell(const clt_colony_t *colony, int index, clt_colony_cell_t *out) {
  if (!colony) return CLT_ERR_INVALID_ARGUMENT;
  clt_world_t *world = colony->world;
  if (index < 0 || index >= colony->count || !out)
    return FAIL("colony: cell index %d out of range [0, %d)", index, colony->count);
  const cell_rec_t *cell = &colony->cells[index];
  int b;
  clt_status_t st = clt_world_resolve_body(world, cell->body, false, "colony cell", &b);
  if (st != CLT_OK) return st;
  out->body = cell->body;
  out->length = cell->length;
  out->generation = cell->generation;
  clt_v3_copy(out->position, body_state(world, b)->position);
  capsule_axis(world, b, out->axis);
  return CLT_OK;
}

double clt_colony_volume(const clt_colony_t *colony) {
  if (!colony) return NAN;
  double d = colony->def.diameter, sum = 0.0;
  for (int i = 0; i < colony->count; i++) sum += colony->cells[i].length;
  return CLT_PI * d * d / 4.0 * sum + (double)colony->count * CLT_PI * d * d * d / 6.0;
}

/* ---- checkpoints (colony.h) ----
 * Blob: header (magic "CLTCOLNY", version, planar, cell count, divisions, generator state, the
 * def's scalars) then per cell in cell order its body index, generation and length, then (version
 * 2) a uint64 checksum: FNV-1a 64 of every byte before it. Version 1 (no checksum) is read too. */

#define COLONY_STATE_VERSION 2u
#define COLONY_STATE_VERSION_PLAIN 1u

typedef struct colony_header_t {
  char magic[8];
  uint32_t version;
  uint32_t planar;
  int32_t count;
  int32_t reserved;
  int64_t divisions;
  uint64_t rng;
  uint64_t seed;
  double diameter, growth_time, division_length, max_reorientation, division_gap;
} colony_header_t;

typedef struct colony_cell_blob_t {
  uint32_t body;
  int32_t generation;
  double length;
} colony_cell_blob_t;

static void make_colony_header(const clt_colony_t *c, colony_header_t *h) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, "CLTCOLNY", 8);
  h->version = COLONY_STATE_VERSION;
  h->planar = c->planar ? 1u : 0u;
  h->count = c->count;
  h->divisions = c->divisions;
  h->rng = c->rng;
  h->seed = c->def.seed;
  h->diameter = c->def.diameter;
  h->growth_time = c->def.growth_time;
  h->division_length = c->def.division_length;
  h->max_reorientation = c->def.max_reorientation;
  h->division_gap = c->def.division_gap;
}

size_t clt_colony_state_size(const clt_colony_t *colony) {
  if (!colony) return 0;
  return sizeof(colony_header_t) + (size_t)colony->count * sizeof(colony_cell_blob_t) + sizeof(uint64_t);
}

clt_status_t clt_colony_save_state(const clt_colony_t *colony, void *buffer, size_t size) {
  if (!colony) return CLT_ERR_INVALID_ARGUMENT;
  clt_world_t *world = colony->world;
  size_t needed = clt_colony_state_size(colony);
  if (!buffer || size < needed)
    return FAIL("colony: save_state: buffer too small (%zu bytes, need %zu)", buffer ? size : 0, needed);
  colony_header_t h;
  make_colony_header(colony, &h);
  unsigned char *p = buffer;
  memcpy(p, &h, sizeof h);
  p += sizeof h;
  for (int i = 0; i < colony->count; i++) {
    colony_cell_blob_t cb = {colony->cells[i].body.index, colony->cells[i].generation, colony->cells[i].length};
    memcpy(p + (size_t)i * sizeof cb, &cb, sizeof cb);
  }
  size_t body = needed - sizeof(uint64_t);
  uint64_t checksum = clt_fnv1a64(CLT_FNV1A64_OFFSET, buffer, body);
  memcpy((unsigned char *)buffer + body, &checksum, sizeof checksum);
  return CLT_OK;
}

static bool same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

clt_status_t clt_colony_load_state(clt_colony_t *colony, const void *buffer, size_t size) {
  if (!colony) return CLT_ERR_INVALID_ARGUMENT;
  clt_world_t *world = colony->world;
  if (!buffer) return FAIL("colony: load_state: buffer must not be NULL");
  if (colony->count != 1 || colony->divisions != 0)
    return FAIL("colony: load_state: the colony has %d cells and %lld divisions; load into a colony just "
                "created (one cell)", colony->count, (long long)colony->divisions);
  colony_header_t h, mine;
  if (size < sizeof h)
    return clt_world_fail(world, CLT_ERR_FORMAT, "colony: load_state: %zu bytes, shorter than the header", size);
  memcpy(&h, buffer, sizeof h);
  make_colony_header(colony, &mine);
  if (memcmp(h.magic, mine.magic, sizeof h.magic) != 0)
    return clt_world_fail(world, CLT_ERR_FORMAT, "colony: load_state: not a colony state (bad magic)");
  if (h.version != mine.version && h.version != COLONY_STATE_VERSION_PLAIN)
    return clt_world_fail(world, CLT_ERR_FORMAT, "colony: load_state: state format version %u, this build reads %u and %u",
                          h.version, COLONY_STATE_VERSION_PLAIN, mine.version);
  size_t trailer = h.version == COLONY_STATE_VERSION_PLAIN ? 0 : sizeof(uint64_t);
  if (h.count < 1 || h.divisions < 0 || size < sizeof h + trailer ||
      (size_t)h.count > (size - sizeof h - trailer) / sizeof(colony_cell_blob_t) ||
      size != sizeof h + (size_t)h.count * sizeof(colony_cell_blob_t) + trailer)
    return clt_world_fail(world, CLT_ERR_FORMAT, "colony: load_state: %zu bytes do not hold %d cells", size, h.count);
  if (trailer) {
    uint64_t stored;
    memcpy(&stored, (const unsigned char *)buffer + size - trailer, sizeof stored);
    if (stored != clt_fnv1a64(CLT_FNV1A64_OFFSET, buffer, size - trailer))
      return clt_world_fail(world, CLT_ERR_FORMAT, "colony: load_state: checksum mismatch (the blob is damaged)");
  }
  if (h.planar != mine.planar || h.seed != mine.seed || !same_double(h.diameter, mine.diameter) ||
      !same_double(h.growth_time, mine.growth_time) || !same_double(h.division_length, mine.division_length) ||
      !same_double(h.max_reorientation, mine.max_reorientation) || !same_double(h.division_gap, mine.division_gap))
    return clt_world_fail(world, CLT_ERR_FORMAT,
                          "colony: load_state: the state is of a %s colony (d %g, tau %g, division_length %g, "
                          "max_reorientation %g, division_gap %g, seed %llu); this one is %s (d %g, tau %g, "
                          "division_length %g, max_reorientation %g, division_gap %g, seed %llu)",
                          h.planar ? "planar" : "3D", h.diameter, h.growth_time, h.division_length,
                          h.max_reorientation, h.division_gap, (unsigned long long)h.seed,
                          mine.planar ? "planar" : "3D", mine.diameter, mine.growth_time, mine.division_length,
                          mine.max_reorientation, mine.division_gap, (unsigned long long)mine.seed);
  /* Every cell checked before the world is touched: the first cell is this colony's, the others
   * the bodies this world will append, in order. */
  const unsigned char *p = (const unsigned char *)buffer + sizeof h;
  for (int i = 0; i < h.count; i++) {
    colony_cell_blob_t cb;
    memcpy(&cb, p + (size_t)i * sizeof cb, sizeof cb);
    uint32_t expect = i == 0 ? colony->cells[0].body.index : (uint32_t)clt_world_body_count(world) + (uint32_t)(i - 1);
    if (cb.body != expect)
      return clt_world_fail(world, CLT_ERR_FORMAT,
                            "colony: load_state: cell %d was body %u in the run; this world makes it body %u "
                            "(a world built from another description?)", i, cb.body, expect);
    if (!(isfinite(cb.length) && cb.length >= 0.0 && cb.length < h.division_length) || cb.generation < 0)
      return clt_world_fail(world, CLT_ERR_FORMAT,
                            "colony: load_state: cell %d has length %g and generation %d (need 0 <= length < %g, "
                            "generation >= 0)", i, cb.length, cb.generation, h.division_length);
  }
  /* The cells' bodies as the run made them: add_cell_body, then the length as grow sets it. The
   * poses and velocities are clt_world_load_state's. */
  double zero[3] = {0.0, 0.0, 0.0}, q[4] = {1.0, 0.0, 0.0, 0.0};
  for (int i = 0; i < h.count; i++) {
    colony_cell_blob_t cb;
    memcpy(&cb, p + (size_t)i * sizeof cb, sizeof cb);
    clt_status_t st = CLT_OK;
    if (i > 0) {
      clt_body_id_t id;
      st = add_cell_body(colony, zero, q, zero, zero, cb.length, &id);
      if (st == CLT_OK && !push_cell(colony, id, cb.length, cb.generation))
        st = clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "colony: out of memory");
    }
    if (st == CLT_OK) st = clt_body_set_capsule_length(world, colony->cells[i].body, 0, cb.length);
    if (st != CLT_OK) return st;
    colony->cells[i].length = cb.length;
    colony->cells[i].generation = cb.generation;
  }
  colony->rng = h.rng;
  colony->divisions = h.divisions;
  return CLT_OK;
}

/* ---- orientation order ---- */

/* Distance between segments [p0, p1] and [q0, q1] (closest points by clamped parameters; Ericson,
 * Real-Time Collision Detection §5.1.9). */
static double segment_distance(const double p0[3], const double p1[3], const double q0[3], const double q1[3]) {
  double d1[3], d2[3], r[3];
  clt_v3_sub(d1, p1, p0);
  clt_v3_sub(d2, q1, q0);
  clt_v3_sub(r, p0, q0);
  double a = clt_v3_dot(d1, d1), e = clt_v3_dot(d2, d2), f = clt_v3_dot(d2, r);
  double s, t;
  if (a <= 1e-300 && e <= 1e-300) {
    s = t = 0.0;
  } else if (a <= 1e-300) {
    s = 0.0;
    t = fmin(fmax(f / e, 0.0), 1.0);
  } else {
    double cc = clt_v3_dot(d1, r);
    if (e <= 1e-300) {
      t = 0.0;
      s = fmin(fmax(-cc / a, 0.0), 1.0);
    } else {
      double bb = clt_v3_dot(d1, d2), denom = a * e - bb * bb;
      s = denom > 1e-14 * a * e ? fmin(fmax((bb * f - cc * e) / denom, 0.0), 1.0) : 0.0;
      t = (bb * s + f) / e;
      if (t < 0.0) {
        t = 0.0;
        s = fmin(fmax(-cc / a, 0.0), 1.0);
      } else if (t > 1.0) {
        t = 1.0;
        s = fmin(fmax((bb - cc) / a, 0.0), 1.0);
      }
    }
  }
  double cp[3], cq[3], diff[3];
  clt_v3_axpy(cp, p0, s, d1);
  clt_v3_axpy(cq, q0, t, d2);
  clt_v3_sub(diff, cp, cq);
  return clt_v3_norm(diff);
}

static int find_root(int *parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* Largest eigenvalue of a symmetric 3×3 matrix. */
static double largest_eigenvalue(const double m[3][3]) {
  double values[3], v[3][3];
  clt_m3_sym_eigen(m, values, v);
  return fmax(values[0], fmax(values[1], values[2]));
}

clt_status_t clt_colony_order(const clt_colony_t *colony, double radius, double angle, double contact_gap,
                              clt_colony_order_t *out) {
  if (!colony) return CLT_ERR_INVALID_ARGUMENT;
  clt_world_t *world = colony->world;
  if (!out) return FAIL("colony order: out must not be NULL");
  if (!(isfinite(radius) && radius >= 0.0 && isfinite(angle) && angle >= 0.0 && isfinite(contact_gap) &&
        contact_gap >= 0.0))
    return FAIL("colony order: radius, angle and contact_gap must be >= 0 and finite");
  memset(out, 0, sizeof *out);
  int n = colony->count;
  out->cells = n;
  if (n == 0) return CLT_OK;
  double d = colony->def.diameter;
  double (*pos)[3] = malloc((size_t)n * sizeof *pos);
  double (*axis)[3] = malloc((size_t)n * sizeof *axis);
  int *bin_of = malloc((size_t)n * sizeof *bin_of);
  int *order = malloc((size_t)n * sizeof *order);
  int *parent = malloc((size_t)n * sizeof *parent);
  int *size = calloc((size_t)n, sizeof *size);
  if (!pos || !axis || !bin_of || !order || !parent || !size) {
    free(pos), free(axis), free(bin_of), free(order), free(parent), free(size);
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "colony order: out of memory");
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, lmax = 0.0;
  for (int i = 0; i < n; i++) {
    int b = (int)colony->cells[i].body.index;
    clt_v3_copy(pos[i], body_state(world, b)->position);
    capsule_axis(world, b, axis[i]);
    lmax = fmax(lmax, colony->cells[i].length);
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], pos[i][k]);
      hi[k] = fmax(hi[k], pos[i][k]);
    }
    parent[i] = i;
  }
  /* Uniform grid on the centres, bins no smaller than either neighbour criterion: centres of
   * touching cells are at most L_i/2 + L_j/2 + d + gap apart. Bins grow until their count is O(n). */
  double bin = fmax(radius, lmax + d + contact_gap);
  if (!(bin > 0.0)) bin = 1.0;
  int nb[3];
  for (;;) { /* counted in doubles: a cell far from the others must not overflow an int */
    double count[3], total = 1.0;
    for (int k = 0; k < 3; k++) {
      count[k] = floor((hi[k] - lo[k]) / bin) + 1.0;
      total *= count[k];
    }
    if (total <= 4.0 * n + 64.0) {
      for (int k = 0; k < 3; k++) nb[k] = (int)count[k];
      break;
    }
    bin *= total > 1e12 ? cbrt(total / (4.0 * n + 64.0)) : 1.5;
  }
  int bins = nb[0] * nb[1] * nb[2];
  int *start = calloc((size_t)bins + 1, sizeof *start);
  if (!start) {
    free(pos), free(axis), free(bin_of), free(order), free(parent), free(size);
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "colony order: out of memory");
  }
  for (int i = 0; i < n; i++) {
    int ix[3];
    for (int k = 0; k < 3; k++) {
      ix[k] = (int)floor((pos[i][k] - lo[k]) / bin);
      if (ix[k] >= nb[k]) ix[k] = nb[k] - 1;
    }
    bin_of[i] = (ix[2] * nb[1] + ix[1]) * nb[0] + ix[0];
    start[bin_of[i] + 1]++;
  }
  for (int k = 0; k < bins; k++) start[k + 1] += start[k];
  int *fill = malloc((size_t)bins * sizeof *fill);
  if (!fill) {
    free(pos), free(axis), free(bin_of), free(order), free(parent), free(size), free(start);
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "colony order: out of memory");
  }
  memcpy(fill, start, (size_t)bins * sizeof *fill);
  for (int i = 0; i < n; i++) order[fill[bin_of[i]]++] = i;
  free(fill);

  double cos_angle = cos(angle), sum_s = 0.0;
  for (int i = 0; i < n; i++) {
    int ix[3] = {bin_of[i] % nb[0], (bin_of[i] / nb[0]) % nb[1], bin_of[i] / (nb[0] * nb[1])};
    double c2 = 0.0, s2 = 0.0, q[3][3] = {{0}};
    int neighbours = 0;
    double half_i = 0.5 * colony->cells[i].length;
    double pi0[3], pi1[3];
    clt_v3_axpy(pi0, pos[i], -half_i, axis[i]);
    clt_v3_axpy(pi1, pos[i], half_i, axis[i]);
    for (int z = ix[2] - 1; z <= ix[2] + 1; z++) {
      if (z < 0 || z >= nb[2]) continue;
      for (int y = ix[1] - 1; y <= ix[1] + 1; y++) {
        if (y < 0 || y >= nb[1]) continue;
        for (int x = ix[0] - 1; x <= ix[0] + 1; x++) {
          if (x < 0 || x >= nb[0]) continue;
          int cell_bin = (z * nb[1] + y) * nb[0] + x;
          for (int k = start[cell_bin]; k < start[cell_bin + 1]; k++) {
            int j = order[k];
            double diff[3];
            clt_v3_sub(diff, pos[j], pos[i]);
            double dist = clt_v3_norm(diff);
            if (dist <= radius) {
              neighbours++;
              if (colony->planar) {
                double th = atan2(axis[j][1], axis[j][0]);
                c2 += cos(2.0 * th);
                s2 += sin(2.0 * th);
              } else {
                for (int a = 0; a < 3; a++)
                  for (int bb = 0; bb < 3; bb++) q[a][bb] += 1.5 * axis[j][a] * axis[j][bb] - (a == bb ? 0.5 : 0.0);
              }
            }
            if (j <= i) continue;
            double half_j = 0.5 * colony->cells[j].length;
            if (dist > half_i + half_j + d + contact_gap) continue;
            if (fabs(clt_v3_dot(axis[i], axis[j])) < cos_angle) continue;
            double pj0[3], pj1[3];
            clt_v3_axpy(pj0, pos[j], -half_j, axis[j]);
            clt_v3_axpy(pj1, pos[j], half_j, axis[j]);
            if (segment_distance(pi0, pi1, pj0, pj1) - d > contact_gap) continue;
            int ri = find_root(parent, i), rj = find_root(parent, j);
            if (ri != rj) {
              if (ri < rj) parent[rj] = ri;
              else parent[ri] = rj;
            }
          }
        }
      }
    }
    /* i itself is always within radius (distance 0), so neighbours ≥ 1 */
    if (colony->planar) {
      sum_s += sqrt(c2 * c2 + s2 * s2) / neighbours;
    } else {
      for (int a = 0; a < 3; a++)
        for (int bb = 0; bb < 3; bb++) q[a][bb] /= neighbours;
      sum_s += largest_eigenvalue(q);
    }
  }
  out->nematic_order = sum_s / n;
  for (int i = 0; i < n; i++) size[find_root(parent, i)]++;
  double sq = 0.0;
  for (int i = 0; i < n; i++) {
    if (size[i] == 0) continue;
    out->domains++;
    sq += (double)size[i] * size[i];
    if (size[i] > out->largest_domain) out->largest_domain = size[i];
  }
  out->mean_domain_size = (double)n / out->domains;
  out->weighted_domain_size = sq / n;
  free(pos), free(axis), free(bin_of), free(order), free(parent), free(size), free(start);
  return CLT_OK;
}
