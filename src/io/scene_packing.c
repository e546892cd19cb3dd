/* Random packings (docs/scene-format.md "Random packings"): bodies[i].packing makes one entry stand
 * for `number` copies of the body, each scaled to a bounding radius drawn from a distribution
 * (constant, uniform, truncated normal or log-normal), placed without overlap in a box by random
 * sequential addition (largest grain first), and turned at random. Like a grid, the resolved
 * scene keeps the packing object, not its expansion: the copies are a pure function of its fields
 * and of the seeded generator (scn_uniform), so a stored scene rebuilds the same world bit for
 * bit. Grains are kept apart by their bounding spheres, so no shape overlaps another at the start. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/scene_internal.h"

static const char *const distribution_names[] = {"constant", "uniform", "normal", "lognormal", NULL};

/* Reads packing.radius: a number (every grain that size) or a distribution object. */
static bool read_radius(ctx_t *ctx, const cJSON *g, const char *p, packing_spec_t *k) {
  char pr[PATH_SIZE];
  scn_join_key(pr, p, "radius");
  const cJSON *r = scn_get(g, "radius");
  if (!r) return scn_missing(ctx, p, "radius");
  if (cJSON_IsNumber(r)) {
    if (!scn_read_number(ctx, g, p, "radius", &k->mean, RANGE_POSITIVE, true)) return false;
    k->distribution = PACKING_CONSTANT;
    k->min = k->max = k->mean;
    return true;
  }
  static const char *const keys[] = {"distribution", "min", "max", "mean", "std", NULL};
  if (!scn_expect_object(ctx, r, pr) || !scn_check_keys(ctx, r, pr, keys, "a radius distribution")) return false;
  int kind = PACKING_UNIFORM;
  if (!scn_read_enum(ctx, r, pr, "distribution", distribution_names, &kind, true)) return false;
  k->distribution = (packing_distribution_t)kind;
  char pk[PATH_SIZE];
  if (kind == PACKING_CONSTANT) {
    if (!scn_read_number(ctx, r, pr, "mean", &k->mean, RANGE_POSITIVE, true)) return false;
    k->min = k->max = k->mean;
    return true;
  }
  if (kind == PACKING_UNIFORM) {
    if (!scn_read_number(ctx, r, pr, "min", &k->min, RANGE_POSITIVE, true) ||
        !scn_read_number(ctx, r, pr, "max", &k->max, RANGE_POSITIVE, true))
      return false;
    k->mean = 0.5 * (k->min + k->max);
  } else {
    if (!scn_read_number(ctx, r, pr, "mean", &k->mean, RANGE_POSITIVE, true) ||
        !scn_read_number(ctx, r, pr, "std", &k->std, RANGE_POSITIVE, true))
      return false;
    if (kind == PACKING_NORMAL) {
      k->min = k->mean - 3.0 * k->std;
      k->max = k->mean + 3.0 * k->std;
    } else { /* the log-normal's own parameters from the radius's mean and standard deviation */
      double s2 = log1p(k->std * k->std / (k->mean * k->mean)), m = log(k->mean) - 0.5 * s2, s = sqrt(s2);
      k->min = exp(m - 4.0 * s);
      k->max = exp(m + 4.0 * s);
    }
    if (!scn_read_number(ctx, r, pr, "min", &k->min, RANGE_POSITIVE, false) ||
        !scn_read_number(ctx, r, pr, "max", &k->max, RANGE_POSITIVE, false))
      return false;
    if (!(k->min > 0)) {
      scn_join_key(pk, pr, "min");
      char got[64];
      scn_format_number(k->min, got, sizeof got);
      return scn_fail(ctx, pk, "required: the default mean − 3 std is %s, not a radius", got);
    }
  }
  if (!(k->max >= k->min)) {
    scn_join_key(pk, pr, "max");
    char got[64], low[64];
    scn_format_number(k->max, got, sizeof got);
    scn_format_number(k->min, low, sizeof low);
    return scn_fail(ctx, pk, "must be at least min (%s; got %s)", low, got);
  }
  return true;
}

bool scn_read_packing(ctx_t *ctx, const cJSON *b, int index, grid_spec_t *spec) {
  char pb[PATH_SIZE], p[PATH_SIZE], pk[PATH_SIZE];
  scn_join_index(pb, "bodies", index);
  scn_join_key(p, pb, "packing");
  const cJSON *g = scn_get(b, "packing");
  static const char *const keys[] = {"number", "region", "radius", "orientation", "seed", "attempts", NULL};
  if (!scn_expect_object(ctx, g, p) || !scn_check_keys(ctx, g, p, keys, "a packing")) return false;
  static const char *const placed[] = {"position", "angle", "orientation", NULL};
  for (int i = 0; placed[i]; i++)
    if (scn_get(b, placed[i])) {
      scn_join_key(pk, pb, placed[i]);
      return scn_fail(ctx, pk, "not used with a packing (it places and turns every grain: packing.region, "
                               "packing.orientation)");
    }
  spec->is_packing = true;
  packing_spec_t *k = &spec->packing;
  if (!scn_read_int(ctx, g, p, "number", &spec->number, 1, GRID_MAX_BODIES, true)) return false;
  if (!scn_read_int(ctx, g, p, "seed", &spec->seed, 0, GRID_MAX_SEED, false)) return false;
  k->attempts = 10000;
  if (!scn_read_int(ctx, g, p, "attempts", &k->attempts, 1, INT64_C(100000000), false)) return false;
  const cJSON *region = scn_get(g, "region");
  scn_join_key(pk, p, "region");
  if (!region) return scn_missing(ctx, p, "region");
  static const char *const region_keys[] = {"min", "max", NULL};
  if (!scn_expect_object(ctx, region, pk) || !scn_check_keys(ctx, region, pk, region_keys, "a region")) return false;
  if (!scn_read_dvec(ctx, region, pk, "min", k->region_min, RANGE_ANY, true) ||
      !scn_read_dvec(ctx, region, pk, "max", k->region_max, RANGE_ANY, true))
    return false;
  for (int d = 0; d < ctx->dimension; d++)
    if (!(k->region_max[d] > k->region_min[d])) {
      char pm[PATH_SIZE];
      scn_join_key(pm, pk, "max");
      scn_join_index(pm, pm, d);
      return scn_fail(ctx, pm, "must be above region.min[%d]", d);
    }
  if (!read_radius(ctx, g, p, k)) return false;
  static const char *const orientation_names[] = {"random", "template", NULL};
  int orientation = 0;
  if (!scn_read_enum(ctx, g, p, "orientation", orientation_names, &orientation, false)) return false;
  k->random_orientation = orientation == 0;
  return true;
}

/* ---------------------------------------------------------------------------------------------
 * Expansion */

/* Bounding radius of a shape about its own origin; false for shapes that cannot be scaled. */
static bool shape_extent(const clt_shape_def_t *s, double *extent) {
  switch (s->type) {
    case CLT_SHAPE_DISK:
    case CLT_SHAPE_SPHERE: *extent = s->radius; return true;
    case CLT_SHAPE_SEGMENT:
      *extent = fmax(hypot(s->a[0], s->a[1]), hypot(s->b[0], s->b[1])) + s->radius;
      return true;
    case CLT_SHAPE_ELLIPSE: *extent = fmax(s->semi_axes[0], s->semi_axes[1]); return true;
    case CLT_SHAPE_POLYGON:
      *extent = 0;
      for (int i = 0; i < s->vertex_count; i++) *extent = fmax(*extent, hypot(s->vertices[i][0], s->vertices[i][1]));
      return true;
    case CLT_SHAPE_BOX:
      *extent = sqrt(s->half_extents[0] * s->half_extents[0] + s->half_extents[1] * s->half_extents[1] +
                     s->half_extents[2] * s->half_extents[2]);
      return true;
    case CLT_SHAPE_CAPSULE: *extent = s->radius + 0.5 * s->length; return true;
    case CLT_SHAPE_ELLIPSOID: *extent = fmax(s->semi_axes[0], fmax(s->semi_axes[1], s->semi_axes[2])); return true;
    case CLT_SHAPE_TORUS: *extent = s->major_radius + s->minor_radius; return true;
    case CLT_SHAPE_CYLINDER: *extent = hypot(s->radius, 0.5 * s->length); return true;
    default: return false; /* half-planes, half-spaces, polyhedra (shared), meshes */
  }
}

static void shape_scale(clt_shape_def_t *s, double f) {
  s->radius *= f;
  s->length *= f;
  s->major_radius *= f;
  s->minor_radius *= f;
  for (int k = 0; k < 3; k++) {
    s->half_extents[k] *= f;
    s->semi_axes[k] *= f;
    s->a[k] *= f;
    s->b[k] *= f;
    s->local_position[k] *= f;
  }
  for (int i = 0; i < s->vertex_count; i++) {
    s->vertices[i][0] *= f;
    s->vertices[i][1] *= f;
  }
}

/* A standard normal draw (Box–Muller, the cosine branch: two uniforms per draw). */
static double normal_draw(uint64_t *state) {
  double u1 = 0.5 * (1.0 - scn_uniform(state)); /* (0, 1] */
  double u2 = scn_uniform(state);
  return sqrt(-2.0 * log(u1)) * cos(3.14159265358979323846 * u2);
}

/* Draws a radius; truncation by redrawing (at most 1000 draws: the bounds hold ≥ 99.7 % of the
 * mass by default, and a user's narrower bounds are refused if they hold almost none). */
static bool draw_radius(const packing_spec_t *k, uint64_t *state, double *r) {
  if (k->distribution == PACKING_CONSTANT) {
    *r = k->mean;
    return true;
  }
  if (k->distribution == PACKING_UNIFORM) {
    *r = k->min + (k->max - k->min) * 0.5 * (scn_uniform(state) + 1.0);
    return true;
  }
  double s2 = log1p(k->std * k->std / (k->mean * k->mean)), m = log(k->mean) - 0.5 * s2;
  for (int tries = 0; tries < 1000; tries++) {
    double z = normal_draw(state);
    double x = k->distribution == PACKING_NORMAL ? k->mean + k->std * z : exp(m + sqrt(s2) * z);
    if (x >= k->min && x <= k->max) {
      *r = x;
      return true;
    }
  }
  return false;
}

typedef struct grain_t {
  double r;
  int64_t n; /* body order */
} grain_t;

static int larger_first(const void *pa, const void *pb) {
  const grain_t *a = pa, *b = pb;
  if (a->r != b->r) return a->r > b->r ? -1 : 1;
  return a->n < b->n ? -1 : a->n > b->n;
}

/* Hashed uniform grid of cell 2 r_max over the placed grains. */
typedef struct cells_t {
  double size;
  size_t mask;
  int64_t *head, *next;
} cells_t;

static size_t cell_hash(const cells_t *c, const int64_t cell[3]) {
  uint64_t h = (uint64_t)cell[0] * UINT64_C(73856093) ^ (uint64_t)cell[1] * UINT64_C(19349663) ^
               (uint64_t)cell[2] * UINT64_C(83492791);
  return (size_t)(h & c->mask);
}

static bool overlaps(const cells_t *c, int dim, const double (*x)[3], const double *r, const double y[3], double ry) {
  int64_t base[3] = {0, 0, 0};
  for (int k = 0; k < dim; k++) base[k] = (int64_t)floor(y[k] / c->size);
  int reach[3] = {1, 1, dim == 3 ? 1 : 0};
  for (int dz = -reach[2]; dz <= reach[2]; dz++)
    for (int dy = -reach[1]; dy <= reach[1]; dy++)
      for (int dx = -reach[0]; dx <= reach[0]; dx++) {
        int64_t cell[3] = {base[0] + dx, base[1] + dy, base[2] + dz};
        for (int64_t j = c->head[cell_hash(c, cell)]; j >= 0; j = c->next[j]) {
          double d2 = 0;
          for (int k = 0; k < dim; k++) d2 += (x[j][k] - y[k]) * (x[j][k] - y[k]);
          if (d2 < (r[j] + ry) * (r[j] + ry)) return true;
        }
      }
  return false;
}

bool scn_expand_packing(ctx_t *ctx, const grid_spec_t *spec, int index, int slot) {
  clt_scene_t *scene = ctx->scene;
  const packing_spec_t *k = &spec->packing;
  scene_body_t template = scene->bodies[slot];
  int dim = ctx->dimension, count = template.def.shape_count;
  char p[PATH_SIZE], pk[PATH_SIZE];
  scn_join_index(p, "bodies", index);
  if (template.def.type == CLT_BODY_DYNAMIC && template.def.mass > 0) {
    scn_join_key(pk, p, "mass");
    return scn_fail(ctx, pk, "not allowed with a packing: each grain's mass comes from its shapes' densities "
                             "(the grains differ in size)");
  }
  if (count == 0) return scn_fail(ctx, p, "a packing needs a body with a shape to scale");
  /* The template's bounding radius about its origin: copies are scaled to the drawn radius. */
  double bound = 0;
  for (int i = 0; i < count; i++) {
    double extent;
    const clt_shape_def_t *s = &template.shapes[i];
    if (!shape_extent(s, &extent)) {
      scn_join_key(pk, p, count == 1 ? "shape" : "shapes");
      if (count > 1) scn_join_index(pk, pk, i);
      return scn_fail(ctx, pk, "a packing scales its grains: %s shapes cannot be scaled (use sphere, box, capsule, "
                               "cylinder, ellipsoid, torus or a 2D disk, ellipse, segment, polygon)",
                      clt_shape_type_name(s->type));
    }
    double offset = sqrt(s->local_position[0] * s->local_position[0] + s->local_position[1] * s->local_position[1] +
                         s->local_position[2] * s->local_position[2]);
    bound = fmax(bound, offset + extent);
  }
  if (!(bound > 0)) return scn_fail(ctx, p, "a packing needs a body of non-zero size");
  char pg[PATH_SIZE], base_name[NAME_MAX_LENGTH + 1] = "";
  scn_join_key(pg, p, "packing");
  if (template.name) snprintf(base_name, sizeof base_name, "%s", template.name);
  if (!scn_check_copy_names(ctx, template.name, spec->number, "packing", p)) return false;

  int64_t n_total = spec->number;
  grain_t *order = malloc((size_t)n_total * sizeof *order);
  double (*x)[3] = calloc((size_t)n_total, sizeof *x);
  double *r = malloc((size_t)n_total * sizeof *r);
  clt_shape_def_t *unscaled = malloc((size_t)count * sizeof *unscaled);
  cells_t cells = {0};
  size_t table = 1;
  while (table < 2 * (size_t)n_total) table <<= 1;
  cells.mask = table - 1;
  cells.head = malloc(table * sizeof *cells.head);
  cells.next = malloc((size_t)n_total * sizeof *cells.next);
  bool ok = order && x && r && unscaled && cells.head && cells.next;
  if (!ok) scn_fail(ctx, pg, "out of memory");
  /* Radii in body order, then placements largest first, then orientations in body order: one
   * stream, so the packing is a function of its fields alone. */
  uint64_t state = (uint64_t)spec->seed ^ UINT64_C(0x9E3779B97F4A7C15);
  double r_max = 0;
  for (int64_t n = 0; ok && n < n_total; n++) {
    if (!draw_radius(k, &state, &r[n])) {
      scn_join_key(pk, pg, "radius");
      ok = scn_fail(ctx, pk, "1000 draws in a row fell outside [min, max]: the bounds hold almost none of the "
                             "distribution");
      break;
    }
    order[n] = (grain_t){r[n], n};
    r_max = fmax(r_max, r[n]);
  }
  if (ok) {
    qsort(order, (size_t)n_total, sizeof *order, larger_first);
    for (size_t t = 0; t < table; t++) cells.head[t] = -1;
    cells.size = 2.0 * r_max;
  }
  for (int64_t q = 0; ok && q < n_total; q++) {
    int64_t n = order[q].n;
    double y[3] = {0, 0, 0};
    for (int d = 0; d < dim; d++)
      if (k->region_max[d] - k->region_min[d] < 2 * r[n]) {
        char got[64];
        scn_format_number(r[n], got, sizeof got);
        ok = scn_fail(ctx, pg, "region is narrower than a grain of bounding radius %s along axis %d", got, d);
      }
    bool placed = false;
    for (int64_t attempt = 0; ok && attempt < k->attempts && !placed; attempt++) {
      for (int d = 0; d < dim; d++) {
        double lo = k->region_min[d] + r[n], hi = k->region_max[d] - r[n];
        y[d] = lo + (hi - lo) * 0.5 * (scn_uniform(&state) + 1.0);
      }
      placed = !overlaps(&cells, dim, (const double (*)[3])x, r, y, r[n]);
    }
    if (!ok) break;
    if (!placed) {
      double volume = 1, solid = 0;
      for (int d = 0; d < dim; d++) volume *= k->region_max[d] - k->region_min[d];
      for (int64_t j = 0; j < q; j++) {
        double rj = order[j].r;
        solid += dim == 3 ? 4.0 / 3.0 * 3.14159265358979323846 * rj * rj * rj : 3.14159265358979323846 * rj * rj;
      }
      ok = scn_fail(ctx, pg,
                    "placed %lld of %lld grains (their bounding %s fill %.3f of the region) before one found no room in "
                    "%lld attempts: enlarge the region or lower the number (random sequential addition jams near "
                    "%s)",
                    (long long)q, (long long)n_total, dim == 3 ? "spheres" : "disks", solid / volume,
                    (long long)k->attempts, dim == 3 ? "0.38 in 3D" : "0.55 in 2D");
      break;
    }
    memcpy(x[n], y, sizeof y);
    int64_t cell[3] = {0, 0, 0};
    for (int d = 0; d < dim; d++) cell[d] = (int64_t)floor(y[d] / cells.size);
    size_t h = cell_hash(&cells, cell);
    cells.next[n] = cells.head[h];
    cells.head[h] = n;
  }
  if (ok) memcpy(unscaled, template.shapes, (size_t)count * sizeof *unscaled);
  for (int64_t n = 0; ok && n < n_total; n++) {
    scene_body_t *body = &scene->bodies[slot + n];
    if (n > 0) {
      *body = template;
      body->name = NULL;
      body->shapes = malloc((size_t)count * sizeof *body->shapes);
      if (!body->shapes) {
        body->def.shape_count = 0;
        ok = scn_fail(ctx, pg, "out of memory");
        break;
      }
    }
    memcpy(body->shapes, unscaled, (size_t)count * sizeof *unscaled);
    for (int i = 0; i < count; i++) shape_scale(&body->shapes[i], r[n] / bound);
    body->def.shapes = body->shapes;
    if (template.name && !scn_name_copy(ctx, body, base_name, n, p)) {
      ok = false;
      break;
    }
    for (int d = 0; d < 3; d++) body->def.position[d] = d < dim ? x[n][d] : 0.0;
    if (!k->random_orientation) continue;
    if (dim == 2) {
      body->def.angle = 3.14159265358979323846 * scn_uniform(&state);
    } else { /* uniform on the rotations (Shoemake) */
      double u1 = 0.5 * (scn_uniform(&state) + 1.0), u2 = 3.14159265358979323846 * scn_uniform(&state),
             u3 = 3.14159265358979323846 * scn_uniform(&state);
      body->def.orientation[0] = sqrt(1 - u1) * sin(u2);
      body->def.orientation[1] = sqrt(1 - u1) * cos(u2);
      body->def.orientation[2] = sqrt(u1) * sin(u3);
      body->def.orientation[3] = sqrt(u1) * cos(u3);
    }
  }
  free(order);
  free(x);
  free(r);
  free(unscaled);
  free(cells.head);
  free(cells.next);
  return ok;
}
