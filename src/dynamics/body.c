/* Bodies: validation of body definitions, mass properties of composite bodies (centre of mass and
 * principal axes computed once, shapes re-expressed; SPEC.md §0), static and kinematic bodies,
 * handles, state access. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/world_internal.h"
#include "geometry/shape.h"
#include "math/vec.h"

clt_body_def_t clt_default_body_def(void) {
  clt_body_def_t d;
  memset(&d, 0, sizeof d);
  d.type = CLT_BODY_DYNAMIC;
  d.orientation[0] = 1.0;
  return d;
}

void clt_body_label(const clt_world_t *world, int index, char *out, size_t size) {
  if (index < 0) {
    snprintf(out, size, "ground");
  } else if (index < world->body_count && world->bodies[index].name[0]) {
    snprintf(out, size, "body '%s'", world->bodies[index].name);
  } else {
    snprintf(out, size, "body #%d", index);
  }
}

clt_status_t clt_world_resolve_body(clt_world_t *world, clt_body_id_t id, bool allow_ground,
                                    const char *what, int *out_index) {
  *out_index = -1;
  if (clt_body_id_is_null(id)) {
    if (allow_ground && id.generation == 0) return CLT_OK;
    return clt_world_fail(world, allow_ground ? CLT_ERR_STALE_HANDLE : CLT_ERR_INVALID_ARGUMENT,
                          "%s: %s", what, allow_ground ? "invalid ground handle" : "must be a body, not the ground");
  }
  if (id.index >= (uint32_t)world->body_count || world->bodies[id.index].generation != id.generation)
    return clt_world_fail(world, CLT_ERR_STALE_HANDLE,
                          "%s: stale or unknown body handle (index %u, generation %u; the world has %d bodies)",
                          what, id.index, id.generation, world->body_count);
  *out_index = (int)id.index;
  return CLT_OK;
}

/* Read-only resolve for const getters: same checks, message written through a cast because the
 * error buffer is the one mutable part of a const query (documented in clt_world_error). */
static clt_status_t resolve_const(const clt_world_t *world, clt_body_id_t id, const char *what, int *out) {
  return clt_world_resolve_body((clt_world_t *)world, id, false, what, out);
}

void clt_body_point_from_def(const clt_world_t *world, int body, const double in[3], double out[3]) {
  if (body < 0) {
    clt_v3_copy(out, in);
    return;
  }
  const clt_body_extra_t *b = clt_body_extra(world, body);
  double d[3];
  clt_v3_sub(d, in, b->frame_offset);
  if (world->dimension == 3) {
    clt_q_rotate_inv(out, b->frame_rotation, d);
  } else {
    clt_v3_copy(out, d); /* 2D frames only translate (the inertia is a scalar) */
  }
}

void clt_body_vector_from_def(const clt_world_t *world, int body, const double in[3], double out[3]) {
  if (body < 0 || world->dimension == 2) {
    clt_v3_copy(out, in);
    return;
  }
  clt_q_rotate_inv(out, clt_body_extra(world, body)->frame_rotation, in);
}

void clt_body_world_point(const clt_world_t *world, int body, const double local[3], double p[3],
                          double v[3]) {
  if (body < 0) {
    if (p) clt_v3_copy(p, local);
    if (v) clt_v3_set(v, 0.0, 0.0, 0.0);
    return;
  }
  const clt_body_state_t *s = &world->states[body];
  double rho[3];
  if (world->dimension == 2) {
    clt_rot2(rho, s->angle, local);
    rho[2] = 0.0;
    if (p) clt_v3_set(p, s->position[0] + rho[0], s->position[1] + rho[1], 0.0);
    if (v) {
      double w = s->angular_velocity[0];
      clt_v3_set(v, s->velocity[0] - w * rho[1], s->velocity[1] + w * rho[0], 0.0);
    }
  } else {
    clt_q_rotate(rho, s->orientation, local);
    if (p) clt_v3_add(p, s->position, rho);
    if (v) {
      double w_world[3], wxr[3];
      clt_q_rotate(w_world, s->orientation, s->angular_velocity);
      clt_v3_cross(wxr, w_world, rho);
      clt_v3_add(v, s->velocity, wxr);
    }
  }
}

/* ---- validation ---- */

static bool finite_n(const double *a, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(a[i])) return false;
  return true;
}

/* The first of a[0, n) that is not finite or whose magnitude passes limit (−1: none). */
static int past_limit(const double *a, int n, double limit) {
  for (int i = 0; i < n; i++)
    if (!(fabs(a[i]) <= limit)) return i;
  return -1;
}

#define FAIL(...) clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, __VA_ARGS__)

static clt_status_t validate_shape(clt_world_t *world, const char *label, int i, const clt_shape_def_t *s,
                                   clt_body_type_t body_type) {
  const clt_shape_ops_t *ops = clt_shape_ops(s->type);
  if (!ops) return FAIL("%s: shapes[%d].type is not a known shape type (got %d)", label, i, (int)s->type);
  if (ops->dimension != world->dimension)
    return FAIL("%s: shapes[%d] (%s) is a %dD shape, but the world is %dD", label, i, ops->name,
                ops->dimension, world->dimension);
  if (!ops->has_mass && body_type == CLT_BODY_DYNAMIC)
    return FAIL("%s: shapes[%d] (%s) has no mass (a half-space or a mesh): only static or kinematic bodies may carry it", label,
                i, ops->name);
  /* NaN anywhere is rejected, used field or not. */
  if (!isfinite(s->radius) || !isfinite(s->length) || !finite_n(s->half_extents, 3) ||
      !finite_n(s->semi_axes, 3) || !isfinite(s->major_radius) || !isfinite(s->minor_radius) ||
      !finite_n(s->point, 3) || !finite_n(s->normal, 3) || !finite_n(s->a, 3) || !finite_n(s->b, 3))
    return FAIL("%s: shapes[%d] (%s): every numeric field must be finite", label, i, ops->name);
  /* Lengths (world.h limits): every size and point of the def, used field or not. */
  const double sizes[] = {s->radius, s->length, s->major_radius, s->minor_radius};
  const double *points[] = {s->half_extents, s->semi_axes, s->point, s->a, s->b, s->local_position};
  bool past = past_limit(sizes, 4, CLT_MAX_LENGTH) >= 0;
  for (int k = 0; k < 6; k++) past = past || past_limit(points[k], 3, CLT_MAX_LENGTH) >= 0;
  for (int k = 0; k < CLT_MAX_POLYGON_VERTICES; k++) past = past || past_limit(s->vertices[k], 2, CLT_MAX_LENGTH) >= 0;
  if (past)
    return FAIL("%s: shapes[%d] (%s): sizes, points, vertices and local_position must be within %g m "
                "(CLT_MAX_LENGTH)", label, i, ops->name, CLT_MAX_LENGTH);
  if (!isfinite(clt_v3_norm(s->normal)))
    return FAIL("%s: shapes[%d] (%s): normal must have a finite length", label, i, ops->name);
  char reason[256];
  if (!ops->validate(s, reason, sizeof reason)) return FAIL("%s: shapes[%d] (%s): %s", label, i, ops->name, reason);
  if (!finite_n(s->local_position, 3) || !isfinite(s->local_angle) || !finite_n(s->local_orientation, 4))
    return FAIL("%s: shapes[%d] (%s): local pose must be finite", label, i, ops->name);
  if (world->dimension == 2 && s->local_position[2] != 0.0)
    return FAIL("%s: shapes[%d] (%s): local_position[2] must be 0 in a 2D world (got %g)", label, i,
                ops->name, s->local_position[2]);
  double q_norm = clt_q_norm(s->local_orientation);
  if (world->dimension == 3 && !(q_norm > 1e-12 && isfinite(q_norm)))
    return FAIL("%s: shapes[%d] (%s): local_orientation must be a non-zero quaternion of finite length", label, i,
                ops->name);
  if (s->material < -1 || s->material >= world->material_count)
    return FAIL("%s: shapes[%d] (%s): material %d does not exist (the world has %d materials)", label, i,
                ops->name, s->material, world->material_count);
  return CLT_OK;
}

static bool motion_is_zero(const clt_motion_t *m) {
  for (int i = 0; i < 3; i++)
    if (m->velocity[i] != 0.0 || m->amplitude[i] != 0.0) return false;
  return m->frequency == 0.0 && m->phase == 0.0 && m->keyframe_count == 0;
}

/* A keyframed law (world.h clt_motion_t): the keyframes, and nothing else of the law set. */
static clt_status_t validate_keyframes(clt_world_t *world, const clt_body_def_t *def, const char *label) {
  const clt_motion_t *m = &def->motion;
  if (m->keyframe_count < 0 || m->keyframe_count > CLT_MAX_KEYFRAMES)
    return FAIL("%s: motion.keyframe_count must be in [0, %d] (got %d)", label, CLT_MAX_KEYFRAMES, m->keyframe_count);
  if (m->keyframe_count == 0) return CLT_OK;
  if (!m->keyframes) return FAIL("%s: motion.keyframes must not be NULL when keyframe_count > 0", label);
  if ((int)m->interpolation != CLT_INTERPOLATE_LINEAR && (int)m->interpolation != CLT_INTERPOLATE_CUBIC)
    return FAIL("%s: motion.interpolation is not a known interpolation (got %d)", label, (int)m->interpolation);
  for (int i = 0; i < 3; i++)
    if (m->velocity[i] != 0.0 || m->amplitude[i] != 0.0 || def->angular_velocity[i] != 0.0)
      return FAIL("%s: keyframes set the whole motion: motion.velocity, motion.amplitude and angular_velocity must "
                  "be 0", label);
  if (m->frequency != 0.0 || m->phase != 0.0)
    return FAIL("%s: keyframes set the whole motion: motion.frequency and motion.phase must be 0", label);
  for (int k = 0; k < m->keyframe_count; k++) {
    const clt_keyframe_t *f = &m->keyframes[k];
    if (!(f->time >= 0.0 && isfinite(f->time)))
      return FAIL("%s: motion.keyframes[%d].time must be >= 0 and finite (got %g)", label, k, f->time);
    if (k > 0 && !(f->time > m->keyframes[k - 1].time))
      return FAIL("%s: motion.keyframes[%d].time (%g s) must be after keyframes[%d].time (%g s)", label, k, f->time,
                  k - 1, m->keyframes[k - 1].time);
    if (past_limit(f->position, 3, CLT_MAX_LENGTH) >= 0)
      return FAIL("%s: motion.keyframes[%d].position must be finite and within %g m (CLT_MAX_LENGTH)", label, k,
                  CLT_MAX_LENGTH);
    if (world->dimension == 2) {
      if (f->position[2] != 0.0) return FAIL("%s: motion.keyframes[%d].position[2] must be 0 in a 2D world", label, k);
      if (!isfinite(f->angle)) return FAIL("%s: motion.keyframes[%d].angle must be finite", label, k);
    } else if (!(clt_q_norm(f->orientation) > 1e-12 && isfinite(clt_q_norm(f->orientation)))) {
      return FAIL("%s: motion.keyframes[%d].orientation must be a non-zero quaternion of finite length", label, k);
    }
  }
  return CLT_OK;
}

static clt_status_t validate_body(clt_world_t *world, const clt_body_def_t *def, const char *label) {
  int dim = world->dimension;
  if ((int)def->type < CLT_BODY_DYNAMIC || def->type > CLT_BODY_KINEMATIC)
    return FAIL("%s: type is not a known body type (got %d)", label, (int)def->type);
  int k;
  if ((k = past_limit(def->position, 3, CLT_MAX_LENGTH)) >= 0)
    return FAIL("%s: position must be finite and within %g m (CLT_MAX_LENGTH; position[%d] is %g)", label,
                CLT_MAX_LENGTH, k, def->position[k]);
  if (!isfinite(def->angle)) return FAIL("%s: angle must be finite (got %g)", label, def->angle);
  if (!finite_n(def->orientation, 4)) return FAIL("%s: orientation must be finite", label);
  if ((k = past_limit(def->velocity, 3, CLT_MAX_SPEED)) >= 0)
    return FAIL("%s: velocity must be finite and within %g m/s (CLT_MAX_SPEED; velocity[%d] is %g)", label,
                CLT_MAX_SPEED, k, def->velocity[k]);
  if ((k = past_limit(def->angular_velocity, 3, CLT_MAX_ANGULAR_SPEED)) >= 0)
    return FAIL("%s: angular_velocity must be finite and within %g rad/s (CLT_MAX_ANGULAR_SPEED; "
                "angular_velocity[%d] is %g)", label, CLT_MAX_ANGULAR_SPEED, k, def->angular_velocity[k]);
  if (!isfinite(def->mass) && def->type == CLT_BODY_DYNAMIC)
    return FAIL("%s: mass must be > 0 and finite (got %g)", label, def->mass);
  if (!finite_n(def->inertia, 3) && def->type == CLT_BODY_DYNAMIC)
    return FAIL("%s: inertia must be finite", label);
  if (!finite_n(def->motion.velocity, 3) || !finite_n(def->motion.amplitude, 3) ||
      !isfinite(def->motion.frequency) || !isfinite(def->motion.phase))
    return FAIL("%s: motion must be finite", label);
  if (def->type == CLT_BODY_KINEMATIC) {
    clt_status_t st = validate_keyframes(world, def, label);
    if (st != CLT_OK) return st;
  }
  if (past_limit(def->motion.velocity, 3, CLT_MAX_SPEED) >= 0 ||
      past_limit(def->motion.amplitude, 3, CLT_MAX_LENGTH) >= 0)
    return FAIL("%s: motion.velocity must be within %g m/s (CLT_MAX_SPEED) and motion.amplitude within %g m "
                "(CLT_MAX_LENGTH)", label, CLT_MAX_SPEED, CLT_MAX_LENGTH);
  for (int i = 0; i < 3; i++)
    if (!(def->drag_linear[i] >= 0.0 && def->drag_linear[i] <= CLT_MAX_COEFFICIENT && def->drag_angular[i] >= 0.0 &&
          def->drag_angular[i] <= CLT_MAX_COEFFICIENT))
      return FAIL("%s: drag_linear and drag_angular must be >= 0 and <= %g (CLT_MAX_COEFFICIENT)", label,
                  CLT_MAX_COEFFICIENT);
  if (dim == 2) {
    if (def->position[2] != 0.0) return FAIL("%s: position[2] must be 0 in a 2D world (got %g)", label, def->position[2]);
    if (def->velocity[2] != 0.0) return FAIL("%s: velocity[2] must be 0 in a 2D world (got %g)", label, def->velocity[2]);
    if (def->angular_velocity[1] != 0.0 || def->angular_velocity[2] != 0.0)
      return FAIL("%s: angular_velocity[1] and [2] must be 0 in a 2D world (the angular velocity is [0])", label);
    if (def->motion.velocity[2] != 0.0 || def->motion.amplitude[2] != 0.0)
      return FAIL("%s: motion z components must be 0 in a 2D world", label);
  } else {
    if (def->angle != 0.0)
      return FAIL("%s: angle is for 2D worlds; in 3D give orientation (got angle %g)", label, def->angle);
    if (!(clt_q_norm(def->orientation) > 1e-12 && isfinite(clt_q_norm(def->orientation))))
      return FAIL("%s: orientation must be a non-zero quaternion of finite length", label);
  }
  if (def->shape_count < 0 || def->shape_count > CLT_MAX_SHAPES_PER_BODY)
    return FAIL("%s: shape_count must be in [0, %d] (got %d)", label, CLT_MAX_SHAPES_PER_BODY, def->shape_count);
  if (def->shape_count > 0 && !def->shapes) return FAIL("%s: shapes must not be NULL when shape_count > 0", label);
  for (int i = 0; i < def->shape_count; i++) {
    clt_status_t st = validate_shape(world, label, i, &def->shapes[i], def->type);
    if (st != CLT_OK) return st;
  }
  if (def->type == CLT_BODY_DYNAMIC) {
    if (def->mass < 0.0) return FAIL("%s: mass must be > 0 and finite (got %g)", label, def->mass);
    if (def->mass > 0.0) {
      if (!(def->mass >= CLT_MIN_MASS && def->mass <= CLT_MAX_MASS))
        return FAIL("%s: mass must be in [%g, %g] kg (CLT_MIN_MASS, CLT_MAX_MASS; got %g)", label, CLT_MIN_MASS,
                    CLT_MAX_MASS, def->mass);
      int n = dim == 3 ? 3 : 1;
      for (int i = 0; i < n; i++)
        if (!(def->inertia[i] > 0.0))
          return FAIL("%s: inertia[%d] must be > 0 and finite when mass is given (got %g)", label, i, def->inertia[i]);
      for (int i = 0; i < n; i++)
        if (!(def->inertia[i] >= CLT_MIN_INERTIA && def->inertia[i] <= CLT_MAX_INERTIA))
          return FAIL("%s: inertia[%d] must be in [%g, %g] kg m^2 (CLT_MIN_INERTIA, CLT_MAX_INERTIA; got %g)", label, i,
                      CLT_MIN_INERTIA, CLT_MAX_INERTIA, def->inertia[i]);
      if (dim == 2 && (def->inertia[1] != 0.0 || def->inertia[2] != 0.0))
        return FAIL("%s: inertia[1] and [2] must be 0 in a 2D world (the moment is inertia[0])", label);
    }
    if (!motion_is_zero(&def->motion)) return FAIL("%s: motion is for kinematic bodies only", label);
  } else if (def->type == CLT_BODY_STATIC) {
    if (!motion_is_zero(&def->motion)) return FAIL("%s: motion is for kinematic bodies only", label);
    for (int i = 0; i < 3; i++)
      if (def->velocity[i] != 0.0 || def->angular_velocity[i] != 0.0)
        return FAIL("%s: a static body's velocity and angular_velocity must be 0", label);
  } else {
    if (def->motion.frequency < 0.0)
      return FAIL("%s: motion.frequency must be >= 0 (got %g)", label, def->motion.frequency);
    for (int i = 0; i < 3; i++)
      if (def->velocity[i] != 0.0)
        return FAIL("%s: a kinematic body's velocity is motion.velocity (velocity must be 0)", label);
  }
  return CLT_OK;
}

/* ---- mass properties of the shapes (SPEC.md §0: principal frame once, at creation) ---- */

typedef struct composite_t {
  double mass;
  double com[3];          /* definition frame */
  double inertia[3][3];   /* about com, definition frame axes (2D: [2][2]) */
} composite_t;

static void composite_mass(const clt_world_t *world, const clt_body_def_t *def, composite_t *c) {
  memset(c, 0, sizeof *c);
  clt_mass_props_t props[CLT_MAX_SHAPES_PER_BODY];
  double centre[CLT_MAX_SHAPES_PER_BODY][3];
  for (int i = 0; i < def->shape_count; i++) {
    const clt_shape_def_t *s = &def->shapes[i];
    const clt_shape_ops_t *ops = clt_shape_ops(s->type);
    memset(&props[i], 0, sizeof props[i]);
    if (!ops->mass_properties) continue;
    double density = s->material >= 0 ? world->materials[s->material].density : world->default_material.density;
    ops->mass_properties(s, density, &props[i]);
    if (world->dimension == 2) {
      double cr[2];
      clt_rot2(cr, s->local_angle, props[i].centroid);
      clt_v3_set(centre[i], s->local_position[0] + cr[0], s->local_position[1] + cr[1], 0.0);
    } else {
      double q[4], cr[3];
      clt_q_copy(q, s->local_orientation);
      clt_q_normalize(q);
      clt_q_rotate(cr, q, props[i].centroid);
      clt_v3_add(centre[i], s->local_position, cr);
    }
    c->mass += props[i].mass;
    clt_v3_axpy(c->com, c->com, props[i].mass, centre[i]);
  }
  if (!(c->mass > 0.0)) return;
  clt_v3_scale(c->com, c->com, 1.0 / c->mass);
  for (int i = 0; i < def->shape_count; i++) {
    const clt_shape_def_t *s = &def->shapes[i];
    if (props[i].mass == 0.0 && props[i].inertia[2][2] == 0.0) continue;
    double d[3];
    clt_v3_sub(d, centre[i], c->com);
    double d2 = clt_v3_dot(d, d);
    if (world->dimension == 2) {
      c->inertia[2][2] += props[i].inertia[2][2] + props[i].mass * d2;
    } else {
      double q[4], r[3][3], rotated[3][3];
      clt_q_copy(q, s->local_orientation);
      clt_q_normalize(q);
      clt_q_to_m3(r, q);
      clt_m3_rotate_tensor(rotated, r, props[i].inertia);
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          c->inertia[a][b] += rotated[a][b] + props[i].mass * ((a == b ? d2 : 0.0) - d[a] * d[b]);
    }
  }
}

clt_body_extra_t *clt_body_extra_mut(clt_world_t *world, int i) {
  clt_body_rec_t *b = &world->bodies[i];
  if (b->extra < 0) {
    if (!clt_grow((void **)&world->body_extras, &world->body_extra_capacity, world->body_extra_count + 1,
                  sizeof *world->body_extras))
      return NULL;
    world->body_extras[world->body_extra_count] = *clt_body_extra(world, i);
    b->extra = world->body_extra_count++;
  }
  return &world->body_extras[b->extra];
}

/* Body names: copies in chunks of at least NAME_CHUNK bytes that are never moved, so the pointers
 * clt_body_get_info hands out stay valid for the world's life; no per-name allocation. */
#define NAME_CHUNK 65536

struct clt_name_chunk_t {
  struct clt_name_chunk_t *next;
  size_t used, size;
  char text[];
};

/* A copy of name (truncated to CLT_NAME_SIZE − 1 characters, as before) in world->names; NULL
 * when out of memory. */
static const char *copy_name(clt_world_t *world, const char *name) {
  size_t n = 0;
  while (n < CLT_NAME_SIZE - 1 && name[n]) n++;
  struct clt_name_chunk_t *c = world->names;
  if (!c || c->size - c->used < n + 1) {
    size_t size = NAME_CHUNK;
    c = malloc(sizeof *c + size);
    if (!c) return NULL;
    c->next = world->names;
    c->used = 0;
    c->size = size;
    world->names = c;
  }
  char *out = c->text + c->used;
  memcpy(out, name, n);
  out[n] = '\0';
  c->used += n + 1;
  return out;
}

void clt_world_free_names(clt_world_t *world) {
  while (world->names) {
    struct clt_name_chunk_t *next = world->names->next;
    free(world->names);
    world->names = next;
  }
}

/* Reallocates *array from `used` to exactly `cap` elements (cap ≥ used), the new tail zeroed. */
static bool resize_exact(void **array, int used, int cap, size_t element_size) {
  void *p = realloc(*array, (size_t)cap * element_size);
  if (!p) return false;
  memset((char *)p + (size_t)used * element_size, 0, (size_t)(cap - used) * element_size);
  *array = p;
  return true;
}

/* Per-body arrays to exactly new_cap (≥ body_capacity). All share body_capacity and are grown
 * together here (never inside a step). */
static clt_status_t set_body_capacity(clt_world_t *world, int new_cap) {
  int cap = world->body_capacity;
  if (new_cap <= cap) return CLT_OK;
  if (!resize_exact((void **)&world->bodies, cap, new_cap, sizeof *world->bodies) ||
      !resize_exact((void **)&world->states, cap, new_cap, sizeof *world->states) ||
      !resize_exact((void **)&world->backup, cap, new_cap, sizeof *world->backup) ||
      !resize_exact((void **)&world->backup_velocity, cap, new_cap, sizeof *world->backup_velocity) ||
      !resize_exact((void **)&world->backup_pose, cap, new_cap, sizeof *world->backup_pose) ||
      !resize_exact((void **)&world->force_acc, cap, new_cap, sizeof *world->force_acc) ||
      !resize_exact((void **)&world->torque_acc, cap, new_cap, sizeof *world->torque_acc))
    return CLT_ERR_OUT_OF_MEMORY; /* the arrays already grown keep their size: body_capacity is a lower bound */
  world->body_capacity = new_cap;
  world->acc_clear = false; /* (the accumulators' pages were written: given back again) */
  return CLT_OK;
}

static clt_status_t grow_bodies(clt_world_t *world, int needed_bodies, int needed_shapes) {
  if (needed_shapes > world->shape_capacity) {
    int shape_cap = world->shape_capacity > 0 ? world->shape_capacity : 8;
    while (shape_cap < needed_shapes) shape_cap *= 2;
    if (!clt_world_reserve_shapes(world, shape_cap)) return CLT_ERR_OUT_OF_MEMORY;
  }
  int cap = world->body_capacity;
  if (needed_bodies <= cap) return CLT_OK;
  int new_cap = cap > 0 ? cap : 8;
  while (new_cap < needed_bodies) new_cap *= 2;
  return set_body_capacity(world, new_cap);
}

clt_status_t clt_world_reserve(clt_world_t *world, int bodies, int shapes) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  if (bodies < 0 || shapes < 0)
    return FAIL("reserve: bodies and shapes must be >= 0 (got %d and %d)", bodies, shapes);
  if (set_body_capacity(world, bodies) != CLT_OK || !clt_world_reserve_shapes(world, shapes))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "reserve: out of memory for %d bodies and %d shapes",
                          bodies, shapes);
  return CLT_OK;
}

clt_status_t clt_world_add_body(clt_world_t *world, const clt_body_def_t *def, clt_body_id_t *out) {
  if (out) *out = clt_world_ground();
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  if (!def) return FAIL("body: def must not be NULL");
  char label[CLT_NAME_SIZE + 32];
  if (def->name && def->name[0])
    snprintf(label, sizeof label, "body '%.63s'", def->name);
  else
    snprintf(label, sizeof label, "body #%d", world->body_count);
  clt_status_t st = validate_body(world, def, label);
  if (st != CLT_OK) return st;

  int dim = world->dimension;
  clt_body_rec_t rec;
  memset(&rec, 0, sizeof rec);
  rec.type = def->type;
  rec.generation = 1;
  rec.name = "";
  rec.extra = -1;
  clt_body_extra_t extra;
  memset(&extra, 0, sizeof extra);
  clt_q_identity(extra.frame_rotation);
  clt_body_state_t state;
  memset(&state, 0, sizeof state);
  clt_v3_copy(state.position, def->position);
  clt_q_identity(state.orientation);
  if (dim == 2) {
    state.angle = def->angle;
  } else {
    clt_q_copy(state.orientation, def->orientation);
    clt_q_normalize(state.orientation);
  }
  clt_v3_copy(state.velocity, def->velocity);
  clt_v3_copy(state.angular_velocity, def->angular_velocity);

  if (def->type == CLT_BODY_DYNAMIC) {
    if (def->mass > 0.0) {
      rec.mass = def->mass;
      for (int i = 0; i < (dim == 3 ? 3 : 1); i++) rec.inertia[i] = def->inertia[i];
    } else {
      composite_t c;
      composite_mass(world, def, &c);
      if (!(c.mass > 0.0 && isfinite(c.mass)))
        return FAIL("%s: mass must be > 0 and finite (got %g): give mass and inertia, or shapes with "
                    "area/volume", label, c.mass);
      if (!(c.mass >= CLT_MIN_MASS && c.mass <= CLT_MAX_MASS))
        return FAIL("%s: the shapes give mass %g kg, outside [%g, %g] (CLT_MIN_MASS, CLT_MAX_MASS)", label, c.mass,
                    CLT_MIN_MASS, CLT_MAX_MASS);
      rec.mass = c.mass;
      clt_v3_copy(extra.frame_offset, c.com);
      if (dim == 2) {
        rec.inertia[0] = c.inertia[2][2];
        double r[2], w = def->angular_velocity[0];
        clt_rot2(r, def->angle, c.com);
        state.position[0] += r[0];
        state.position[1] += r[1];
        state.velocity[0] -= w * r[1]; /* velocity of the centre of mass: v + ω × r */
        state.velocity[1] += w * r[0];
      } else {
        double e[3][3], values[3];
        clt_m3_sym_eigen(c.inertia, values, e);
        clt_m3_to_q(extra.frame_rotation, e);
        for (int i = 0; i < 3; i++) rec.inertia[i] = values[i];
        double r[3], w_world[3], wxr[3];
        clt_q_rotate(r, state.orientation, c.com);
        clt_v3_add(state.position, state.position, r);
        clt_q_rotate(w_world, state.orientation, def->angular_velocity);
        clt_v3_cross(wxr, w_world, r);
        clt_v3_add(state.velocity, state.velocity, wxr);
        clt_q_mul(state.orientation, state.orientation, extra.frame_rotation);
        clt_q_normalize(state.orientation);
        clt_q_rotate_inv(state.angular_velocity, extra.frame_rotation, def->angular_velocity);
      }
      for (int i = 0; i < (dim == 3 ? 3 : 1); i++)
        if (!(rec.inertia[i] > 0.0 && isfinite(rec.inertia[i])))
          return FAIL("%s: the shapes give a degenerate inertia (principal moment %d is %g)", label, i,
                      rec.inertia[i]);
      for (int i = 0; i < (dim == 3 ? 3 : 1); i++)
        if (!(rec.inertia[i] >= CLT_MIN_INERTIA && rec.inertia[i] <= CLT_MAX_INERTIA))
          return FAIL("%s: the shapes give principal moment %d of %g kg m^2, outside [%g, %g] (CLT_MIN_INERTIA, "
                      "CLT_MAX_INERTIA)", label, i, rec.inertia[i], CLT_MIN_INERTIA, CLT_MAX_INERTIA);
    }
    rec.inv_mass = 1.0 / rec.mass;
    for (int i = 0; i < (dim == 3 ? 3 : 1); i++) rec.inv_inertia[i] = 1.0 / rec.inertia[i];
  } else {
    rec.mass = INFINITY;
    for (int i = 0; i < (dim == 3 ? 3 : 1); i++) rec.inertia[i] = INFINITY;
    extra.motion = def->motion;
    clt_v3_copy(extra.base_position, state.position);
    extra.base_angle = state.angle;
    clt_q_copy(extra.base_orientation, state.orientation);
    clt_v3_copy(extra.base_angular_velocity, def->angular_velocity);
  }
  clt_v3_copy(extra.drag_linear, def->drag_linear);
  clt_v3_copy(extra.drag_angular, def->drag_angular);
  /* Out of line only where it says something (a frame map other than the identity, bit for bit;
   * kinematic bodies; given drag): a static body's law is never evaluated (it does not move). */
  const clt_body_extra_t *fallback = &(const clt_body_extra_t){.frame_rotation = {1.0, 0.0, 0.0, 0.0}};
  bool has_extra = def->type == CLT_BODY_KINEMATIC ||
                   memcmp(extra.frame_offset, fallback->frame_offset, sizeof extra.frame_offset) != 0 ||
                   memcmp(extra.frame_rotation, fallback->frame_rotation, sizeof extra.frame_rotation) != 0;
  for (int i = 0; i < 3; i++) has_extra = has_extra || extra.drag_linear[i] != 0.0 || extra.drag_angular[i] != 0.0;

  int index = world->body_count;
  if (grow_bodies(world, index + 1, world->shape_count + def->shape_count) != CLT_OK)
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "%s: out of memory", label);
  if (has_extra && !clt_grow((void **)&world->body_extras, &world->body_extra_capacity, world->body_extra_count + 1,
                             sizeof *world->body_extras))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "%s: out of memory", label);
  int frames = def->type == CLT_BODY_KINEMATIC ? def->motion.keyframe_count : 0;
  if (frames > 0) {
    if (!clt_grow((void **)&world->keyframes, &world->keyframe_capacity, world->keyframe_count + frames,
                  sizeof *world->keyframes))
      return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "%s: out of memory", label);
    extra.keyframe_first = world->keyframe_count;
    extra.motion.keyframes = NULL;
    for (int k = 0; k < frames; k++) {
      clt_keyframe_t f = def->motion.keyframes[k];
      if (world->dimension == 3) clt_q_normalize(f.orientation);
      world->keyframes[world->keyframe_count + k] = f;
    }
    world->keyframe_count += frames;
  }
  if (def->name && def->name[0]) {
    rec.name = copy_name(world, def->name);
    if (!rec.name) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "%s: out of memory", label);
  }
  rec.shape_first = world->shape_count;
  rec.shape_count = def->shape_count;
  for (int i = 0; i < def->shape_count; i++) {
    clt_shape_def_t s = def->shapes[i];
    const clt_shape_ops_t *ops = clt_shape_ops(s.type);
    if (ops->canonicalize) ops->canonicalize(&s);
    if (dim == 2) {
      s.local_position[0] -= extra.frame_offset[0];
      s.local_position[1] -= extra.frame_offset[1];
      memset(s.local_orientation, 0, sizeof s.local_orientation);
      s.local_orientation[0] = 1.0;
    } else {
      double d[3], inv[4];
      clt_v3_sub(d, s.local_position, extra.frame_offset);
      clt_q_rotate_inv(s.local_position, extra.frame_rotation, d);
      clt_q_normalize(s.local_orientation);
      clt_q_conj(inv, extra.frame_rotation);
      clt_q_mul(s.local_orientation, inv, s.local_orientation);
      clt_q_normalize(s.local_orientation);
      s.local_angle = 0.0;
    }
    if (!clt_world_push_shape(world, &s)) {
      while (world->shape_count > rec.shape_first) clt_world_pop_shape(world);
      return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "%s: out of memory", label);
    }
  }
  if (has_extra) {
    rec.extra = world->body_extra_count++;
    world->body_extras[rec.extra] = extra;
  }
  world->bodies[index] = rec;
  world->body_count++;
  if (def->type == CLT_BODY_KINEMATIC) clt_kinematic_state(world, index, world->time, &state);
  world->states[index] = state;
  world->backup[index] = state;
  if (out) {
    out->index = (uint32_t)index;
    out->generation = rec.generation;
  }
  clt_world_state_changed(world);
  return CLT_OK;
}

int clt_world_body_count(const clt_world_t *world) { return world ? world->body_count : 0; }

clt_status_t clt_world_remove_body(clt_world_t *world, clt_body_id_t body) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  int i;
  clt_status_t st = clt_world_resolve_body(world, body, false, "remove_body", &i);
  if (st != CLT_OK) return st;
  clt_body_rec_t *b = &world->bodies[i];
  char label[CLT_NAME_SIZE + 32];
  if (b->name[0])
    snprintf(label, sizeof label, "body '%s'", b->name);
  else
    snprintf(label, sizeof label, "body #%d", i);
  for (int j = 0; j < world->joint_count; j++) {
    const clt_joint_rec_t *jt = &world->joints[j];
    if (!jt->removed && (jt->body_a == i || jt->body_b == i))
      return FAIL("remove_body: %s is held by joint #%d%s%s%s: remove the joint first (clt_world_remove_joint)", label,
                  j, jt->name[0] ? " '" : "", jt->name, jt->name[0] ? "'" : "");
  }
  for (int k = 0; k < world->force_count; k++) {
    const clt_force_rec_t *f = &world->forces[k];
    if (f->body_a == i || f->body_b == i)
      return FAIL("remove_body: force element #%d%s%s%s acts on %s (force elements cannot be removed)", k,
                  f->name[0] ? " '" : "", f->name, f->name[0] ? "'" : "", label);
  }
  /* its shapes collide with nothing (category 0: world.h clt_collision_filter_t) */
  if (!clt_world_reserve_shape_edits(world, b->shape_count))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "remove_body: out of memory");
  for (int s = 0; s < b->shape_count; s++) {
    clt_shape_def_t def = *clt_world_shape(world, b->shape_first + s);
    def.filter.category = 0;
    def.filter.mask = 0;
    clt_world_set_shape(world, b->shape_first + s, &def); /* cannot fail: reserved */
  }
  int kept = 0; /* its pending loads */
  for (int k = 0; k < world->load_count; k++)
    if (world->loads[k].body != i) world->loads[kept++] = world->loads[k];
  world->load_count = kept;
  b->removed = true;
  b->type = CLT_BODY_STATIC;
  b->generation++;
  b->mass = INFINITY;
  b->inv_mass = 0.0;
  for (int k = 0; k < 3; k++) {
    b->inertia[k] = INFINITY;
    b->inv_inertia[k] = 0.0;
    world->states[i].velocity[k] = 0.0;
    world->states[i].angular_velocity[k] = 0.0;
  }
  world->bodies_removed++;
  clt_world_state_changed(world);
  return CLT_OK;
}

clt_body_id_t clt_world_body_at(const clt_world_t *world, int i) {
  if (!world || i < 0 || i >= world->body_count || world->bodies[i].removed) return clt_world_ground();
  clt_body_id_t id = {(uint32_t)i, world->bodies[i].generation};
  return id;
}

clt_body_state_t *clt_world_states(clt_world_t *world) {
  return world && world->body_count > 0 ? world->states : NULL;
}

clt_status_t clt_body_get_state(const clt_world_t *world, clt_body_id_t body, clt_body_state_t *out) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  int index;
  clt_status_t st = resolve_const(world, body, "get_state", &index);
  if (st != CLT_OK) return st;
  if (!out) return clt_world_fail((clt_world_t *)world, CLT_ERR_INVALID_ARGUMENT, "get_state: out must not be NULL");
  *out = world->states[index];
  return CLT_OK;
}

clt_status_t clt_body_set_state(clt_world_t *world, clt_body_id_t body, const clt_body_state_t *state) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  int index;
  clt_status_t st = clt_world_resolve_body(world, body, false, "set_state", &index);
  if (st != CLT_OK) return st;
  char label[CLT_NAME_SIZE + 32];
  clt_body_label(world, index, label, sizeof label);
  if (!state) return FAIL("%s: set_state: state must not be NULL", label);
  if (world->bodies[index].type != CLT_BODY_DYNAMIC)
    return FAIL("%s: set_state: only dynamic bodies have a free state (static and kinematic bodies "
                "follow their definition)", label);
  if (!finite_n(state->position, 3) || !isfinite(state->angle) || !finite_n(state->orientation, 4) ||
      !finite_n(state->velocity, 3) || !finite_n(state->angular_velocity, 3))
    return FAIL("%s: set_state: every component must be finite", label);
  int k;
  if ((k = past_limit(state->position, 3, CLT_MAX_LENGTH)) >= 0)
    return FAIL("%s: set_state: |position[%d]| must be <= %g m (CLT_MAX_LENGTH; got %g)", label, k, CLT_MAX_LENGTH,
                state->position[k]);
  if ((k = past_limit(state->velocity, 3, CLT_MAX_SPEED)) >= 0)
    return FAIL("%s: set_state: |velocity[%d]| must be <= %g m/s (CLT_MAX_SPEED; got %g)", label, k, CLT_MAX_SPEED,
                state->velocity[k]);
  if ((k = past_limit(state->angular_velocity, 3, CLT_MAX_ANGULAR_SPEED)) >= 0)
    return FAIL("%s: set_state: |angular_velocity[%d]| must be <= %g rad/s (CLT_MAX_ANGULAR_SPEED; got %g)", label,
                k, CLT_MAX_ANGULAR_SPEED, state->angular_velocity[k]);
  clt_body_state_t s = *state;
  if (world->dimension == 2) {
    s.position[2] = s.velocity[2] = 0.0;
    s.angular_velocity[1] = s.angular_velocity[2] = 0.0;
    clt_q_identity(s.orientation);
  } else {
    if (!(clt_q_norm(s.orientation) > 1e-12 && isfinite(clt_q_norm(s.orientation))))
      return FAIL("%s: set_state: orientation must be non-zero, of finite length", label);
    clt_q_normalize(s.orientation);
    s.angle = 0.0;
  }
  world->states[index] = s;
  clt_world_state_changed(world);
  return CLT_OK;
}

clt_status_t clt_body_get_info(const clt_world_t *world, clt_body_id_t body, clt_body_info_t *out) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  int index;
  clt_status_t st = resolve_const(world, body, "get_info", &index);
  if (st != CLT_OK) return st;
  if (!out) return clt_world_fail((clt_world_t *)world, CLT_ERR_INVALID_ARGUMENT, "get_info: out must not be NULL");
  const clt_body_rec_t *b = &world->bodies[index];
  memset(out, 0, sizeof *out);
  out->type = b->type;
  out->mass = b->mass;
  memcpy(out->inertia, b->inertia, sizeof out->inertia);
  out->shape_count = b->shape_count;
  out->name = b->name;
  return CLT_OK;
}

clt_status_t clt_body_get_shape(const clt_world_t *world, clt_body_id_t body, int shape_index,
                                clt_shape_def_t *out) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  int index;
  clt_status_t st = resolve_const(world, body, "get_shape", &index);
  if (st != CLT_OK) return st;
  const clt_body_rec_t *b = &world->bodies[index];
  if (!out) return clt_world_fail((clt_world_t *)world, CLT_ERR_INVALID_ARGUMENT, "get_shape: out must not be NULL");
  if (shape_index < 0 || shape_index >= b->shape_count)
    return clt_world_fail((clt_world_t *)world, CLT_ERR_INVALID_ARGUMENT,
                          "get_shape: shape index %d out of range [0, %d)", shape_index, b->shape_count);
  *out = *clt_world_shape(world, b->shape_first + shape_index);
  return CLT_OK;
}
