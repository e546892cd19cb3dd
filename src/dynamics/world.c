/* The world's own storage (the checks of its definition outside the method block, allocation,
 * freeing), materials, error messages and the per-world log (SPEC.md §0, §1; STYLE.md: no global
 * state, errors as data). clt_world_create and clt_world_destroy are in steppers/method.c: they
 * check the method block and free the step workspace, both the stepper's (docs/architecture.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/world_internal.h"

clt_material_def_t clt_default_material_def(void) {
  clt_material_def_t d;
  memset(&d, 0, sizeof d);
  d.friction = 0.5;
  d.restitution = 0.0;
  d.density = 1000.0;
  return d;
}

static void copy_name(char dst[CLT_NAME_SIZE], const char *src) {
  dst[0] = '\0';
  if (src) snprintf(dst, CLT_NAME_SIZE, "%s", src);
}

bool clt_world_check_def(const clt_world_def_t *def, char *msg, size_t n) {
  int bad_gravity = -1;
  for (int k = 2; k >= 0; k--)
    if (!(fabs(def->gravity[k]) <= CLT_MAX_ACCELERATION)) bad_gravity = k;
  if (def->dimension != 2 && def->dimension != 3) {
    snprintf(msg, n, "world: dimension must be 2 or 3 (got %d)", def->dimension);
  } else if (!(def->time_step >= CLT_MIN_TIME_STEP && def->time_step <= CLT_MAX_TIME_STEP)) {
    snprintf(msg, n, "world: time_step must be > 0, in [%g, %g] s (CLT_MIN_TIME_STEP, CLT_MAX_TIME_STEP; got %g)",
             CLT_MIN_TIME_STEP, CLT_MAX_TIME_STEP, def->time_step);
  } else if (bad_gravity >= 0) {
    snprintf(msg, n, "world: gravity must be finite and within %g m/s^2 (CLT_MAX_ACCELERATION; gravity[%d] is %g)",
             CLT_MAX_ACCELERATION, bad_gravity, def->gravity[bad_gravity]);
  } else if (def->dimension == 2 && def->gravity[2] != 0.0) {
    snprintf(msg, n, "world: gravity[2] must be 0 in a 2D world (got %g)", def->gravity[2]);
  } else if ((int)def->law < CLT_LAW_INERTIAL || def->law > CLT_LAW_OVERDAMPED) {
    snprintf(msg, n, "world: law is not a known law of motion (got %d)", (int)def->law);
  } else if (!(def->viscosity > 0.0 && def->viscosity <= CLT_MAX_COEFFICIENT)) {
    snprintf(msg, n, "world: viscosity must be > 0 and <= %g Pa s (CLT_MAX_COEFFICIENT; got %g)",
             CLT_MAX_COEFFICIENT, def->viscosity);
  } else if (def->planar && def->dimension != 3) {
    snprintf(msg, n, "world: planar applies to 3D worlds only");
  } else {
    return true;
  }
  return false;
}

clt_world_t *clt_world_new(const clt_world_def_t *def) {
  clt_world_t *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->dimension = def->dimension;
  w->time_step = def->time_step;
  memcpy(w->gravity, def->gravity, sizeof w->gravity);
  w->method = def->method;
  w->law = def->law;
  w->viscosity = def->viscosity;
  w->planar = def->planar;
  w->log = def->log;
  w->log_user = def->log_user;
  clt_material_def_t md = clt_default_material_def();
  w->default_material.friction = md.friction;
  w->default_material.restitution = md.restitution;
  w->default_material.density = md.density;
  copy_name(w->default_material.name, "default");
  w->shape_desc_free = -1; /* no free description slot (shape_store.c) */
  w->backup_written = true;  /* (no step running) */
  clt_world_state_changed(w);
  return w;
}

void clt_world_free_storage(clt_world_t *world) {
  free(world->materials);
  free(world->bodies);
  clt_world_free_shapes(world);
  free(world->body_extras);
  free(world->keyframes);
  clt_world_free_names(world);
  free(world->joints);
  free(world->forces);
  free(world->states);
  free(world->backup);
  free(world->backup_velocity);
  free(world->backup_pose);
  free(world->force_acc);
  free(world->loads);
  free(world->torque_acc);
  free(world->divergence.size);
}

/* A NULL world (world.h "Misuse"): getters return a neutral value, fallible calls
 * CLT_ERR_INVALID_ARGUMENT, and clt_world_error this fixed text. */
const char *clt_world_error(const clt_world_t *world) { return world ? world->error : "no world (NULL)"; }
int clt_world_dimension(const clt_world_t *world) { return world ? world->dimension : 0; }
bool clt_world_planar(const clt_world_t *world) { return world ? world->planar : false; }
int clt_world_material_count(const clt_world_t *world) { return world ? world->material_count : 0; }
double clt_world_time(const clt_world_t *world) { return world ? world->time : NAN; }
int64_t clt_world_step_count(const clt_world_t *world) { return world ? world->step_count : 0; }
double clt_world_time_step(const clt_world_t *world) { return world ? world->time_step : NAN; }
void clt_world_get_gravity(const clt_world_t *world, double out[3]) {
  for (int k = 0; k < 3; k++) out[k] = world ? world->gravity[k] : 0.0;
}
const clt_method_t *clt_world_method(const clt_world_t *world) { return world ? &world->method : NULL; }

clt_status_t clt_world_fail(clt_world_t *world, clt_status_t status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(world->error, sizeof world->error, format, args);
  va_end(args);
  return status;
}

void clt_world_log(const clt_world_t *world, clt_log_level_t level, const char *format, ...) {
  if (!world->log) return;
  char buffer[CLT_ERROR_SIZE];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  world->log(world->log_user, level, buffer);
}

bool clt_grow(void **array, int *capacity, int needed, size_t element_size) {
  if (needed <= *capacity) return true;
  int cap = *capacity > 0 ? *capacity : 8;
  while (cap < needed) cap *= 2;
  void *p = realloc(*array, (size_t)cap * element_size);
  if (!p) return false;
  memset((char *)p + (size_t)*capacity * element_size, 0, (size_t)(cap - *capacity) * element_size);
  *array = p;
  *capacity = cap;
  return true;
}

clt_status_t clt_world_add_material(clt_world_t *world, const clt_material_def_t *def, int *out_index) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  if (!def) return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, "material: def must not be NULL");
  char label[CLT_NAME_SIZE + 32];
  if (def->name && def->name[0])
    snprintf(label, sizeof label, "material '%s'", def->name);
  else
    snprintf(label, sizeof label, "material #%d", world->material_count);
  if (!(def->friction >= 0.0 && def->friction <= CLT_MAX_FRICTION))
    return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT,
                          "%s: friction must be >= 0 and <= %g (CLT_MAX_FRICTION; got %g)", label, CLT_MAX_FRICTION,
                          def->friction);
  if (!(isfinite(def->restitution) && def->restitution >= 0.0 && def->restitution <= 1.0))
    return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, "%s: restitution must be in [0, 1] (got %g)",
                          label, def->restitution);
  if (!(isfinite(def->density) && def->density > 0.0))
    return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, "%s: density must be > 0 and finite (got %g)",
                          label, def->density);
  if (!clt_grow((void **)&world->materials, &world->material_capacity, world->material_count + 1,
                sizeof *world->materials))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "%s: out of memory", label);
  clt_material_rec_t *m = &world->materials[world->material_count];
  m->friction = def->friction;
  m->restitution = def->restitution;
  m->density = def->density;
  copy_name(m->name, def->name);
  if (out_index) *out_index = world->material_count;
  world->material_count++;
  return CLT_OK;
}
