/* The method block (clt_method_t: which scheme, which solver, which cone; SPEC.md §1), which is the
 * stepper's: its defaults, its checks with the rules of which solver fits which scheme, and the
 * cone a scheme and solver solve on. The world is created and destroyed here because creation
 * checks the method and destruction frees the step workspace; the world's own storage is
 * dynamics/world.c's (docs/architecture.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steppers/stepper.h"

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
  if (!world) return CLT_CONE_AUTO; /* (world.h: the neutral answer to a NULL world) */
  const clt_method_t *m = &world->method;
  if (m->friction_cone != CLT_CONE_AUTO) return m->friction_cone;
  bool cone_solver = m->solver == CLT_SOLVER_LEMKE || m->solver == CLT_SOLVER_APGD || m->solver == CLT_SOLVER_BBPGD;
  if (m->scheme != CLT_SCHEME_ANITESCU_HART || !cone_solver || m->gyroscopic == CLT_GYRO_SEMI_IMPLICIT ||
      m->spring_projection > 0)
    return CLT_CONE_POLYHEDRAL;
  for (int k = 0; k < world->force_count; k++)
    if (clt_force_is_element(&world->forces[k]) && world->forces[k].treatment == CLT_TREAT_IMPLICIT)
      return CLT_CONE_POLYHEDRAL;
  for (int j = 0; j < world->joint_count; j++) { /* limit and motor rows (docs/actuation.md) */
    const clt_joint_rec_t *joint = &world->joints[j];
    if (joint->limit.enabled || joint->motor.mode == CLT_MOTOR_VELOCITY || joint->motor.mode == CLT_MOTOR_POSITION)
      return CLT_CONE_POLYHEDRAL;
  }
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

bool clt_method_check(const clt_method_t *m, int dimension, char *msg, size_t n) {
  if ((int)m->scheme < CLT_SCHEME_NONE || m->scheme > CLT_SCHEME_RELAXED) {
    snprintf(msg, n, "method.scheme is not a known scheme (got %d)", (int)m->scheme);
    return false;
  }
  if (!(isfinite(m->gamma) && m->gamma > 0.0 && m->gamma <= 1.0)) {
    snprintf(msg, n, "method.gamma must be in (0, 1] (got %g)", m->gamma);
    return false;
  }
  if (!(m->alpha >= 0.0 && m->alpha <= 1.0 / CLT_MIN_TIME_STEP)) {
    snprintf(msg, n, "method.alpha must be >= 0 and <= %g 1/s (1/CLT_MIN_TIME_STEP; got %g)", 1.0 / CLT_MIN_TIME_STEP,
             m->alpha);
    return false;
  }
  if (m->post_repeats < 0) {
    snprintf(msg, n, "method.post_repeats must be >= 0 (got %d)", m->post_repeats);
    return false;
  }
  if (!(m->post_tolerance >= 0.0 && m->post_tolerance <= CLT_MAX_LENGTH)) {
    snprintf(msg, n, "method.post_tolerance must be >= 0 and <= %g m (CLT_MAX_LENGTH; got %g)", CLT_MAX_LENGTH,
             m->post_tolerance);
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
  if (!(m->velocity_tolerance >= 0.0 && m->velocity_tolerance <= CLT_MAX_SPEED)) {
    snprintf(msg, n, "method.velocity_tolerance must be >= 0 and <= %g m/s (CLT_MAX_SPEED; got %g)", CLT_MAX_SPEED,
             m->velocity_tolerance);
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
  if (!(m->active_set_eps >= 0.0 && m->active_set_eps <= CLT_MAX_LENGTH)) {
    snprintf(msg, n, "method.active_set_eps must be >= 0 and <= %g m (CLT_MAX_LENGTH; got %g)", CLT_MAX_LENGTH,
             m->active_set_eps);
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
  if (!(m->overlap_tolerance > 0.0 && m->overlap_tolerance <= CLT_MAX_LENGTH)) {
    snprintf(msg, n, "method.overlap_tolerance must be > 0 and <= %g m (CLT_MAX_LENGTH; got %g)", CLT_MAX_LENGTH,
             m->overlap_tolerance);
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
  } else if (clt_world_check_def(def, msg, sizeof msg)) {
    char reason[256];
    if (!clt_method_check(&def->method, def->dimension, reason, sizeof reason)) {
      snprintf(msg, sizeof msg, "world: %s", reason);
    } else {
      status = CLT_OK;
    }
  }
  if (status == CLT_OK) {
    clt_world_t *w = clt_world_new(def);
    if (!w) {
      status = CLT_ERR_OUT_OF_MEMORY;
      snprintf(msg, sizeof msg, "world: out of memory");
    } else {
      *out = w;
    }
  }
  if (message && message_size > 0) snprintf(message, message_size, "%s", msg);
  return status;
}

void clt_world_destroy(clt_world_t *world) {
  if (!world) return;
  clt_world_free_storage(world);
  clt_world_free_step_work(world);
  free(world);
}
