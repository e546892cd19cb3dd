/* World lifetime, defaults, validation of the world definition, materials, error messages and
 * the per-world log (SPEC.md §0, §1; STYLE.md: no global state, errors as data). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/world_internal.h"

clt_method_t clt_default_method(void) {
  clt_method_t m;
  memset(&m, 0, sizeof m);
  m.scheme = CLT_SCHEME_ANITESCU_HART;
  m.gamma = 1.0;
  m.alpha = 0.0;
  m.post_repeats = 0;
  m.post_tolerance = 1e-9;
  m.solver = CLT_SOLVER_LEMKE;
  m.tolerance = 1e-10;
  m.max_iterations = 10000;
  m.relaxation = 1.0;
  m.warm_start = true;
  m.active_set_eps = 1e-3;
  m.friction_directions = 8;
  m.friction_cone = CLT_CONE_AUTO;
  m.gyroscopic = CLT_GYRO_EXPLICIT;
  m.on_unconverged = CLT_UNCONVERGED_RECORD;
  m.contact_model = CLT_CONTACT_MODEL_DEFAULT;
  m.multisphere_count = 3;
  m.overlap_tolerance = 1e-4;
  m.relcp_max_iterations = 50;
  m.divergence_energy_factor = 100.0;
  m.divergence_infeasibility_fraction = 0.5;
  return m;
}

clt_friction_cone_t clt_method_effective_cone(const clt_world_t *world) {
  const clt_method_t *m = &world->method;
  if (m->friction_cone != CLT_CONE_AUTO) return m->friction_cone;
  bool cone_solver = m->solver == CLT_SOLVER_LEMKE || m->solver == CLT_SOLVER_APGD || m->solver == CLT_SOLVER_BBPGD;
  if (m->scheme != CLT_SCHEME_ANITESCU_HART || !cone_solver || m->gyroscopic == CLT_GYRO_SEMI_IMPLICIT ||
      m->spring_projection > 0)
    return CLT_CONE_POLYHEDRAL;
  for (int k = 0; k < world->force_count; k++)
    if (clt_force_is_element(&world->forces[k]) && world->forces[k].treatment == CLT_TREAT_IMPLICIT)
      return CLT_CONE_POLYHEDRAL;
  return CLT_CONE_CIRCULAR;
}

clt_world_def_t clt_default_world_def(void) {
  clt_world_def_t d;
  memset(&d, 0, sizeof d);
  d.dimension = 3;
  d.time_step = 1e-3;
  d.gravity[2] = -9.81;
  d.method = clt_default_method();
  d.law = CLT_LAW_INERTIAL;
  d.viscosity = 1.0;
  d.planar = false;
  return d;
}

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

/* Checks the method block; writes a reason naming the field on failure. */
static bool validate_method(const clt_method_t *m, int dimension, char *msg, size_t n) {
  if ((int)m->scheme < CLT_SCHEME_NONE || m->scheme > CLT_SCHEME_RELAXED) {
    snprintf(msg, n, "method.scheme is not a known scheme (got %d)", (int)m->scheme);
    return false;
  }
  if (!(isfinite(m->gamma) && m->gamma > 0.0 && m->gamma <= 1.0)) {
    snprintf(msg, n, "method.gamma must be in (0, 1] (got %g)", m->gamma);
    return false;
  }
  if (!(isfinite(m->alpha) && m->alpha >= 0.0)) {
    snprintf(msg, n, "method.alpha must be >= 0 and finite (got %g)", m->alpha);
    return false;
  }
  if (m->post_repeats < 0) {
    snprintf(msg, n, "method.post_repeats must be >= 0 (got %d)", m->post_repeats);
    return false;
  }
  if (!(isfinite(m->post_tolerance) && m->post_tolerance >= 0.0)) {
    snprintf(msg, n, "method.post_tolerance must be >= 0 and finite (got %g)", m->post_tolerance);
    return false;
  }
  if ((int)m->solver < CLT_SOLVER_LEMKE || m->solver > CLT_SOLVER_MPRGP) {
    snprintf(msg, n, "method.solver is not a known solver (got %d)", (int)m->solver);
    return false;
  }
  if (!(isfinite(m->tolerance) && m->tolerance > 0.0)) {
    snprintf(msg, n, "method.tolerance must be > 0 and finite (got %g)", m->tolerance);
    return false;
  }
  if (!(isfinite(m->velocity_tolerance) && m->velocity_tolerance >= 0.0)) {
    snprintf(msg, n, "method.velocity_tolerance must be >= 0 and finite (got %g)", m->velocity_tolerance);
    return false;
  }
  if (!(isfinite(m->divergence_energy_factor) && m->divergence_energy_factor >= 0.0)) {
    snprintf(msg, n, "method.divergence_energy_factor must be >= 0 and finite (got %g)", m->divergence_energy_factor);
    return false;
  }
  if (!(isfinite(m->divergence_infeasibility_fraction) && m->divergence_infeasibility_fraction >= 0.0)) {
    snprintf(msg, n, "method.divergence_infeasibility_fraction must be >= 0 and finite (got %g)",
             m->divergence_infeasibility_fraction);
    return false;
  }
  if (m->max_iterations <= 0) {
    snprintf(msg, n, "method.max_iterations must be > 0 (got %d)", m->max_iterations);
    return false;
  }
  if (!(isfinite(m->relaxation) && m->relaxation > 0.0 && m->relaxation < 2.0)) {
    snprintf(msg, n, "method.relaxation must be in (0, 2) (got %g)", m->relaxation);
    return false;
  }
  if (!(isfinite(m->active_set_eps) && m->active_set_eps >= 0.0)) {
    snprintf(msg, n, "method.active_set_eps must be >= 0 and finite (got %g)", m->active_set_eps);
    return false;
  }
  if (dimension == 3 && (m->friction_directions < 4 || m->friction_directions % 2 != 0)) {
    snprintf(msg, n, "method.friction_directions must be even and >= 4 (got %d)", m->friction_directions);
    return false;
  }
  if ((int)m->gyroscopic < CLT_GYRO_EXPLICIT || m->gyroscopic > CLT_GYRO_OFF) {
    snprintf(msg, n, "method.gyroscopic is not a known treatment (got %d)", (int)m->gyroscopic);
    return false;
  }
  if ((int)m->friction_cone < CLT_CONE_POLYHEDRAL || m->friction_cone > CLT_CONE_AUTO) {
    snprintf(msg, n, "method.friction_cone is not a known cone (got %d)", (int)m->friction_cone);
    return false;
  }
  if (m->scheme == CLT_SCHEME_RELAXED && m->solver == CLT_SOLVER_MPRGP && m->friction_cone == CLT_CONE_CIRCULAR) {
    snprintf(msg, n, "method.solver mprgp handles bounds only: with scheme relaxed it needs friction_cone "
                     "polyhedral (the circular cone is solved by bgs, apgd or bbpgd)");
    return false;
  }
  if (m->scheme == CLT_SCHEME_ANITESCU_HART && m->friction_cone == CLT_CONE_CIRCULAR && m->solver != CLT_SOLVER_BGS &&
      m->solver != CLT_SOLVER_LEMKE && m->solver != CLT_SOLVER_APGD && m->solver != CLT_SOLVER_BBPGD) {
    snprintf(msg, n, "method.solver: scheme anitescu-hart on the circular cone (Coulomb's law, s = 0) is solved by "
                     "bgs, apgd or bbpgd (a fixed point of convex cone QPs): mprgp and newton do not apply");
    return false;
  }
  if ((int)m->on_unconverged < CLT_UNCONVERGED_RECORD || m->on_unconverged > CLT_UNCONVERGED_ABORT) {
    snprintf(msg, n, "method.on_unconverged is not a known policy (got %d)", (int)m->on_unconverged);
    return false;
  }
  if ((int)m->contact_model < CLT_CONTACT_MODEL_DEFAULT || m->contact_model > CLT_CONTACT_MODEL_MULTISPHERE) {
    snprintf(msg, n, "method.contact_model is not a known model (got %d)", (int)m->contact_model);
    return false;
  }
  if (m->multisphere_count < 1 || m->multisphere_count % 2 == 0) {
    snprintf(msg, n, "method.multisphere_count must be odd and >= 1 (got %d)", m->multisphere_count);
    return false;
  }
  if (!(isfinite(m->overlap_tolerance) && m->overlap_tolerance > 0.0)) {
    snprintf(msg, n, "method.overlap_tolerance must be > 0 and finite (got %g)", m->overlap_tolerance);
    return false;
  }
  if (m->relcp_max_iterations < 1) {
    snprintf(msg, n, "method.relcp_max_iterations must be >= 1 (got %d)", m->relcp_max_iterations);
    return false;
  }
  return true;
}

clt_status_t clt_world_create(const clt_world_def_t *def, clt_world_t **out, char *message,
                              size_t message_size) {
  char msg[CLT_ERROR_SIZE] = "";
  clt_status_t status = CLT_ERR_INVALID_ARGUMENT;
  if (out) *out = NULL;
  if (!def || !out) {
    snprintf(msg, sizeof msg, "world: def and out must not be NULL");
  } else if (def->dimension != 2 && def->dimension != 3) {
    snprintf(msg, sizeof msg, "world: dimension must be 2 or 3 (got %d)", def->dimension);
  } else if (!(isfinite(def->time_step) && def->time_step > 0.0)) {
    snprintf(msg, sizeof msg, "world: time_step must be > 0 and finite (got %g)", def->time_step);
  } else if (!isfinite(def->gravity[0]) || !isfinite(def->gravity[1]) || !isfinite(def->gravity[2])) {
    snprintf(msg, sizeof msg, "world: gravity must be finite");
  } else if (def->dimension == 2 && def->gravity[2] != 0.0) {
    snprintf(msg, sizeof msg, "world: gravity[2] must be 0 in a 2D world (got %g)", def->gravity[2]);
  } else if ((int)def->law < CLT_LAW_INERTIAL || def->law > CLT_LAW_OVERDAMPED) {
    snprintf(msg, sizeof msg, "world: law is not a known law of motion (got %d)", (int)def->law);
  } else if (!(isfinite(def->viscosity) && def->viscosity > 0.0)) {
    snprintf(msg, sizeof msg, "world: viscosity must be > 0 and finite (got %g)", def->viscosity);
  } else if (def->planar && def->dimension != 3) {
    snprintf(msg, sizeof msg, "world: planar applies to 3D worlds only");
  } else {
    char reason[256];
    if (!validate_method(&def->method, def->dimension, reason, sizeof reason)) {
      snprintf(msg, sizeof msg, "world: %s", reason);
    } else {
      status = CLT_OK;
    }
  }
  if (status == CLT_OK) {
    clt_world_t *w = calloc(1, sizeof *w);
    if (!w) {
      status = CLT_ERR_OUT_OF_MEMORY;
      snprintf(msg, sizeof msg, "world: out of memory");
    } else {
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
      *out = w;
    }
  }
  if (message && message_size > 0) snprintf(message, message_size, "%s", msg);
  return status;
}

void clt_world_destroy(clt_world_t *world) {
  if (!world) return;
  free(world->materials);
  free(world->bodies);
  clt_world_free_shapes(world);
  free(world->body_extras);
  clt_world_free_names(world);
  free(world->joints);
  free(world->forces);
  free(world->states);
  free(world->backup);
  free(world->backup_velocity);
  free(world->backup_pose);
  free(world->force_acc);
  free(world->torque_acc);
  free(world->divergence.size);
  clt_world_free_step_work(world);
  free(world);
}

const char *clt_world_error(const clt_world_t *world) { return world ? world->error : ""; }
int clt_world_dimension(const clt_world_t *world) { return world->dimension; }
double clt_world_time(const clt_world_t *world) { return world->time; }
int64_t clt_world_step_count(const clt_world_t *world) { return world->step_count; }
double clt_world_time_step(const clt_world_t *world) { return world->time_step; }
const clt_method_t *clt_world_method(const clt_world_t *world) { return &world->method; }

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
  if (!def) return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, "material: def must not be NULL");
  char label[CLT_NAME_SIZE + 32];
  if (def->name && def->name[0])
    snprintf(label, sizeof label, "material '%s'", def->name);
  else
    snprintf(label, sizeof label, "material #%d", world->material_count);
  if (!(isfinite(def->friction) && def->friction >= 0.0))
    return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, "%s: friction must be >= 0 and finite (got %g)",
                          label, def->friction);
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
