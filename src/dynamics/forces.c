/* Force elements (SPEC.md §1 k̂, §4): applied forces/torques (constant + cosine), spring–dampers
 * between two attachment points and rotational spring–dampers about an axis. Explicit elements
 * put −(γ φ + δ φ̇) ∇φ into k (here); linearly implicit ones (004 (32)–(33)) become compliant
 * bilateral rows of the step problem (src/steppers/stage_spring_rows.c) and are skipped here.
 * Both use clt_force_element_gradient, so the row of an implicit element is exactly the ∇φ its
 * explicit force acts along. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/pages.h"

#include "dynamics/world_internal.h"
#include "math/vec.h"

clt_force_def_t clt_default_force_def(clt_force_type_t type) {
  clt_force_def_t d;
  memset(&d, 0, sizeof d);
  d.type = type;
  d.body_a = clt_world_ground();
  d.body_b = clt_world_ground();
  d.rest_length = -1.0;
  d.treatment = CLT_TREAT_EXPLICIT;
  return d;
}

static const char *const force_names[CLT_FORCE_TYPE_COUNT] = {
    [CLT_FORCE_APPLIED] = "applied",
    [CLT_FORCE_SPRING_DAMPER] = "spring-damper",
    [CLT_FORCE_ROTATIONAL_SPRING_DAMPER] = "rotational-spring-damper",
};

const char *clt_force_type_name(clt_force_type_t type) {
  if ((int)type < 0 || type >= CLT_FORCE_TYPE_COUNT) return "unknown";
  return force_names[type];
}

clt_force_type_t clt_force_type_from_name(const char *name) {
  if (!name) return CLT_FORCE_TYPE_COUNT;
  for (int t = 0; t < CLT_FORCE_TYPE_COUNT; t++)
    if (strcmp(force_names[t], name) == 0) return (clt_force_type_t)t;
  if (strcmp(name, "spring_damper") == 0) return CLT_FORCE_SPRING_DAMPER;
  if (strcmp(name, "rotational_spring_damper") == 0) return CLT_FORCE_ROTATIONAL_SPRING_DAMPER;
  return CLT_FORCE_TYPE_COUNT;
}

int clt_world_force_count(const clt_world_t *world) { return world ? world->force_count : 0; }

static bool finite3(const double a[3]) { return clt_v3_isfinite(a); }

#define FAIL(...) clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, __VA_ARGS__)

/* Orientation (body → world) of side `body` (identity for the ground). */
static void side_orientation(const clt_world_t *world, int body, double q[4]) {
  if (body < 0) {
    clt_q_identity(q);
  } else {
    clt_q_copy(q, world->states[body].orientation);
  }
}

/* A rotational spring–damper: axes and reference vectors (3D) or the angle offset (2D), all taken
 * from the configuration at creation so that φ = −rest_angle there. */
static clt_status_t rotational_setup(clt_world_t *world, const clt_force_def_t *def, const char *label,
                                     clt_force_rec_t *rec) {
  if (def->anchor_a[0] != 0.0 || def->anchor_a[1] != 0.0 || def->anchor_a[2] != 0.0 || def->anchor_b[0] != 0.0 ||
      def->anchor_b[1] != 0.0 || def->anchor_b[2] != 0.0)
    return FAIL("%s: a rotational spring-damper has no anchors (it acts on the relative rotation)", label);
  if (def->rest_length >= 0.0)
    return FAIL("%s: a rotational spring-damper uses rest_angle, not rest_length", label);
  rec->rest_angle = def->rest_angle;
  if (world->dimension == 2) {
    if (clt_v3_norm(def->axis_a) != 0.0 || clt_v3_norm(def->axis_b) != 0.0)
      return FAIL("%s: in a 2D world the axis is z; leave axis_a and axis_b zero", label);
    double ta = rec->body_a >= 0 ? world->states[rec->body_a].angle : 0.0;
    double tb = rec->body_b >= 0 ? world->states[rec->body_b].angle : 0.0;
    rec->angle_offset = ta - tb;
    clt_v3_set(rec->axis_a, 0.0, 0.0, 1.0);
    clt_v3_set(rec->axis_b, 0.0, 0.0, 1.0);
    return CLT_OK;
  }
  double la = clt_v3_norm(def->axis_a), lb = clt_v3_norm(def->axis_b);
  if (!(la > 0.0)) return FAIL("%s: axis_a must be non-zero in a 3D world", label);
  double qa[4], qb[4], a[3], n[3];
  side_orientation(world, rec->body_a, qa);
  side_orientation(world, rec->body_b, qb);
  clt_v3_scale(a, def->axis_a, 1.0 / la);
  clt_body_vector_from_def(world, rec->body_a, a, rec->axis_a);
  clt_q_rotate(n, qa, rec->axis_a);
  if (lb > 0.0) {
    double b[3];
    clt_v3_scale(b, def->axis_b, 1.0 / lb);
    clt_body_vector_from_def(world, rec->body_b, b, rec->axis_b);
  } else {
    clt_q_rotate_inv(rec->axis_b, qb, n);
  }
  double t2[3], u[3];
  clt_v3_basis(rec->axis_a, rec->perp_a, t2);
  clt_q_rotate(u, qa, rec->perp_a);
  clt_q_rotate_inv(rec->perp_b, qb, u);
  return CLT_OK;
}

clt_status_t clt_world_add_force(clt_world_t *world, const clt_force_def_t *def, clt_force_id_t *out) {
  if (out) {
    out->index = CLT_NULL_INDEX;
    out->generation = 0;
  }
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  if (!def) return FAIL("force: def must not be NULL");
  char label[CLT_NAME_SIZE + 32];
  if (def->name && def->name[0])
    snprintf(label, sizeof label, "force '%.63s'", def->name);
  else
    snprintf(label, sizeof label, "force #%d", world->force_count);
  if ((int)def->type < 0 || def->type >= CLT_FORCE_TYPE_COUNT)
    return FAIL("%s: type is not a known force type (got %d)", label, (int)def->type);
  if (!finite3(def->force) || !finite3(def->torque) || !finite3(def->force_amplitude) ||
      !finite3(def->torque_amplitude) || !isfinite(def->frequency) || !isfinite(def->phase) ||
      !finite3(def->anchor_a) || !finite3(def->anchor_b) || !isfinite(def->stiffness) ||
      !isfinite(def->damping) || !isfinite(def->rest_length) || !finite3(def->axis_a) ||
      !finite3(def->axis_b) || !isfinite(def->rest_angle))
    return FAIL("%s: every numeric field must be finite", label);
  /* world.h limits */
  for (int k = 0; k < 3; k++) {
    if (!(fabs(def->force[k]) <= CLT_MAX_FORCE && fabs(def->torque[k]) <= CLT_MAX_FORCE &&
          fabs(def->force_amplitude[k]) <= CLT_MAX_FORCE && fabs(def->torque_amplitude[k]) <= CLT_MAX_FORCE))
      return FAIL("%s: force, torque and their amplitudes must be within %g (CLT_MAX_FORCE, N and N m)", label,
                  CLT_MAX_FORCE);
    if (!(fabs(def->anchor_a[k]) <= CLT_MAX_LENGTH && fabs(def->anchor_b[k]) <= CLT_MAX_LENGTH))
      return FAIL("%s: anchor_a and anchor_b must be within %g m (CLT_MAX_LENGTH)", label, CLT_MAX_LENGTH);
  }
  if (!(def->stiffness <= CLT_MAX_COEFFICIENT && def->damping <= CLT_MAX_COEFFICIENT))
    return FAIL("%s: stiffness and damping must be <= %g (CLT_MAX_COEFFICIENT; got %g and %g)", label,
                CLT_MAX_COEFFICIENT, def->stiffness, def->damping);
  if (!(def->rest_length <= CLT_MAX_LENGTH))
    return FAIL("%s: rest_length must be <= %g m (CLT_MAX_LENGTH; got %g)", label, CLT_MAX_LENGTH, def->rest_length);
  if (!isfinite(clt_v3_norm(def->axis_a)) || !isfinite(clt_v3_norm(def->axis_b)))
    return FAIL("%s: axis_a and axis_b must have a finite length", label);

  clt_force_rec_t rec;
  memset(&rec, 0, sizeof rec);
  rec.type = def->type;
  rec.generation = 1;
  if (def->name) snprintf(rec.name, sizeof rec.name, "%s", def->name);
  rec.treatment = def->treatment;
  char what[CLT_NAME_SIZE + 48];
  clt_status_t st;

  if (def->type == CLT_FORCE_APPLIED) {
    snprintf(what, sizeof what, "%s: body_a", label);
    st = clt_world_resolve_body(world, def->body_a, false, what, &rec.body_a);
    if (st != CLT_OK) return st;
    if (world->bodies[rec.body_a].type != CLT_BODY_DYNAMIC)
      return FAIL("%s: body_a must be a dynamic body (static and kinematic bodies ignore forces)", label);
    if (!clt_body_id_is_null(def->body_b))
      return FAIL("%s: body_b is not used by an applied force (leave it as the ground)", label);
    rec.body_b = -1;
    if (!(def->frequency >= 0.0)) return FAIL("%s: frequency must be >= 0 (got %g)", label, def->frequency);
    if (world->dimension == 2) {
      if (def->force[2] != 0.0 || def->force_amplitude[2] != 0.0)
        return FAIL("%s: force[2] and force_amplitude[2] must be 0 in a 2D world", label);
      if (def->torque[1] != 0.0 || def->torque[2] != 0.0 || def->torque_amplitude[1] != 0.0 ||
          def->torque_amplitude[2] != 0.0)
        return FAIL("%s: in a 2D world the torque is torque[0] ([1] and [2] must be 0)", label);
    }
    clt_v3_copy(rec.force, def->force);
    clt_v3_copy(rec.torque, def->torque);
    clt_v3_copy(rec.force_amplitude, def->force_amplitude);
    clt_v3_copy(rec.torque_amplitude, def->torque_amplitude);
    rec.frequency = def->frequency;
    rec.phase = def->phase;
  } else {
    snprintf(what, sizeof what, "%s: body_a", label);
    st = clt_world_resolve_body(world, def->body_a, true, what, &rec.body_a);
    if (st != CLT_OK) return st;
    snprintf(what, sizeof what, "%s: body_b", label);
    st = clt_world_resolve_body(world, def->body_b, true, what, &rec.body_b);
    if (st != CLT_OK) return st;
    if (rec.body_a == rec.body_b)
      return FAIL("%s: body_a and body_b must be different bodies", label);
    bool any_dynamic = (rec.body_a >= 0 && world->bodies[rec.body_a].type == CLT_BODY_DYNAMIC) ||
                       (rec.body_b >= 0 && world->bodies[rec.body_b].type == CLT_BODY_DYNAMIC);
    if (!any_dynamic) return FAIL("%s: at least one of body_a, body_b must be a dynamic body", label);
    if (!(def->stiffness >= 0.0)) return FAIL("%s: stiffness must be >= 0 and finite (got %g)", label, def->stiffness);
    if (!(def->damping >= 0.0)) return FAIL("%s: damping must be >= 0 and finite (got %g)", label, def->damping);
    if ((int)def->treatment != CLT_TREAT_EXPLICIT && (int)def->treatment != CLT_TREAT_IMPLICIT)
      return FAIL("%s: treatment is not a known treatment (got %d)", label, (int)def->treatment);
    rec.stiffness = def->stiffness;
    rec.damping = def->damping;
    if (def->type == CLT_FORCE_ROTATIONAL_SPRING_DAMPER) {
      st = rotational_setup(world, def, label, &rec);
      if (st != CLT_OK) return st;
      goto store;
    }
    if (world->dimension == 2 && (def->anchor_a[2] != 0.0 || def->anchor_b[2] != 0.0))
      return FAIL("%s: anchor_a[2] and anchor_b[2] must be 0 in a 2D world", label);
    clt_body_point_from_def(world, rec.body_a, def->anchor_a, rec.anchor_a);
    clt_body_point_from_def(world, rec.body_b, def->anchor_b, rec.anchor_b);
    if (def->rest_length < 0.0) {
      double pa[3], pb[3], d[3];
      clt_body_world_point(world, rec.body_a, rec.anchor_a, pa, NULL);
      clt_body_world_point(world, rec.body_b, rec.anchor_b, pb, NULL);
      clt_v3_sub(d, pa, pb);
      rec.rest_length = clt_v3_norm(d);
    } else {
      rec.rest_length = def->rest_length;
    }
  }
store:
  if (!clt_grow((void **)&world->forces, &world->force_capacity, world->force_count + 1, sizeof *world->forces))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "%s: out of memory", label);
  world->forces[world->force_count] = rec;
  if (out) {
    out->index = (uint32_t)world->force_count;
    out->generation = rec.generation;
  }
  world->force_count++;
  clt_world_state_changed(world);
  return CLT_OK;
}

clt_force_id_t clt_world_force_at(const clt_world_t *world, int i) {
  clt_force_id_t id = {CLT_NULL_INDEX, 0};
  if (!world || i < 0 || i >= world->force_count) return id;
  id.index = (uint32_t)i;
  id.generation = world->forces[i].generation;
  return id;
}

clt_status_t clt_force_get_info(const clt_world_t *world, clt_force_id_t force, clt_force_info_t *out) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  clt_world_t *w = (clt_world_t *)world; /* for the error message only */
  if (force.index >= (uint32_t)world->force_count || world->forces[force.index].generation != force.generation)
    return clt_world_fail(w, CLT_ERR_STALE_HANDLE, "force get_info: force id {%u, %u} names no force element",
                          force.index, force.generation);
  if (!out) return clt_world_fail(w, CLT_ERR_INVALID_ARGUMENT, "force get_info: out must not be NULL");
  const clt_force_rec_t *f = &world->forces[force.index];
  *out = clt_default_force_def(f->type);
  out->body_a = f->body_a >= 0 ? clt_world_body_at(world, f->body_a) : clt_world_ground();
  out->body_b = f->body_b >= 0 ? clt_world_body_at(world, f->body_b) : clt_world_ground();
  clt_v3_copy(out->force, f->force);
  clt_v3_copy(out->torque, f->torque);
  clt_v3_copy(out->force_amplitude, f->force_amplitude);
  clt_v3_copy(out->torque_amplitude, f->torque_amplitude);
  out->frequency = f->frequency;
  out->phase = f->phase;
  clt_v3_copy(out->anchor_a, f->anchor_a);
  clt_v3_copy(out->anchor_b, f->anchor_b);
  out->stiffness = f->stiffness;
  out->damping = f->damping;
  out->rest_length = f->rest_length;
  out->treatment = f->treatment;
  clt_v3_copy(out->axis_a, f->axis_a);
  clt_v3_copy(out->axis_b, f->axis_b);
  out->rest_angle = f->rest_angle;
  out->name = f->name;
  return CLT_OK;
}

clt_status_t clt_force_set_applied(clt_world_t *world, clt_force_id_t force, const double force_value[3],
                                   const double torque[3]) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  if (force.index >= (uint32_t)world->force_count || world->forces[force.index].generation != force.generation)
    return clt_world_fail(world, CLT_ERR_STALE_HANDLE, "set_applied: force id {%u, %u} names no force element",
                          force.index, force.generation);
  clt_force_rec_t *f = &world->forces[force.index];
  char label[CLT_NAME_SIZE + 32];
  if (f->name[0])
    snprintf(label, sizeof label, "force '%.63s'", f->name);
  else
    snprintf(label, sizeof label, "force #%u", force.index);
  if (f->type != CLT_FORCE_APPLIED)
    return FAIL("%s: set_applied: the element is a %s, not an applied force", label, force_names[f->type]);
  if (!force_value || !torque) return FAIL("%s: set_applied: force and torque must not be NULL", label);
  if (!finite3(force_value) || !finite3(torque)) return FAIL("%s: set_applied: force and torque must be finite", label);
  for (int k = 0; k < 3; k++)
    if (!(fabs(force_value[k]) <= CLT_MAX_FORCE && fabs(torque[k]) <= CLT_MAX_FORCE))
      return FAIL("%s: set_applied: force and torque must be within %g (CLT_MAX_FORCE, N and N m)", label,
                  CLT_MAX_FORCE);
  if (world->dimension == 2 && (force_value[2] != 0.0 || torque[1] != 0.0 || torque[2] != 0.0))
    return FAIL("%s: set_applied: in a 2D world force[2], torque[1] and torque[2] must be 0", label);
  clt_v3_copy(f->force, force_value);
  clt_v3_copy(f->torque, torque);
  return CLT_OK;
}

bool clt_force_is_element(const clt_force_rec_t *f) {
  return f->type == CLT_FORCE_SPRING_DAMPER || f->type == CLT_FORCE_ROTATIONAL_SPRING_DAMPER;
}

/* One side of a linear spring's row: linear n, angular ρ × n (2D: the scalar in [0]; 3D: in the
 * body frame, SPEC.md §0 "Jacobian row"), times sign. */
static void point_side(const clt_world_t *world, int body, const double p[3], const double n[3], double sign,
                       double lin[3], double ang[3]) {
  memset(lin, 0, 3 * sizeof *lin);
  memset(ang, 0, 3 * sizeof *ang);
  if (body < 0) return;
  const clt_body_state_t *s = &world->states[body];
  double rho[3];
  clt_v3_sub(rho, p, s->position);
  clt_v3_scale(lin, n, sign);
  if (world->dimension == 2) {
    lin[2] = 0.0;
    ang[0] = sign * (rho[0] * n[1] - rho[1] * n[0]);
  } else {
    double c[3];
    clt_v3_cross(c, rho, n);
    clt_q_rotate_inv(ang, s->orientation, c);
    clt_v3_scale(ang, ang, sign);
  }
}

/* Angle wrapped into (−π, π]. */
static double wrap_angle(double a) {
  a = fmod(a, 2.0 * CLT_PI);
  if (a > CLT_PI) a -= 2.0 * CLT_PI;
  if (a <= -CLT_PI) a += 2.0 * CLT_PI;
  return a;
}

bool clt_force_element_gradient(const clt_world_t *world, const clt_force_rec_t *f, double *phi, double grad[12]) {
  memset(grad, 0, 12 * sizeof *grad);
  *phi = 0.0;
  if (f->type == CLT_FORCE_SPRING_DAMPER) {
    /* φ = |p_A − p_B| − L₀, ∇φ = the unit direction n = (p_A − p_B)/|p_A − p_B| at both points. */
    double pa[3], pb[3], d[3], n[3];
    clt_body_world_point(world, f->body_a, f->anchor_a, pa, NULL);
    clt_body_world_point(world, f->body_b, f->anchor_b, pb, NULL);
    clt_v3_sub(d, pa, pb);
    double length = clt_v3_norm(d);
    *phi = length - f->rest_length;
    if (!(length > 0.0)) return false; /* coincident anchors: no direction, no force */
    clt_v3_scale(n, d, 1.0 / length);
    point_side(world, f->body_a, pa, n, 1.0, grad, grad + 3);
    point_side(world, f->body_b, pb, n, -1.0, grad + 6, grad + 9);
    return true;
  }
  if (f->type != CLT_FORCE_ROTATIONAL_SPRING_DAMPER) return false;
  if (world->dimension == 2) {
    /* φ = θ_A − θ_B − (θ_A − θ_B at creation) − rest angle; φ̇ = ω_A − ω_B (no wrapping in 2D). */
    double ta = f->body_a >= 0 ? world->states[f->body_a].angle : 0.0;
    double tb = f->body_b >= 0 ? world->states[f->body_b].angle : 0.0;
    *phi = ta - tb - f->angle_offset - f->rest_angle;
    if (f->body_a >= 0) grad[3] = 1.0;
    if (f->body_b >= 0) grad[9] = -1.0;
    return true;
  }
  /* 3D: n = R_A axis_a; θ = the angle from u_B = R_B perp_b to u_A = R_A perp_a about n (both
   * taken in the plane ⊥ n); φ̇ = n·(ω_A − ω_B) in world terms, i.e. the body-frame rows
   * R_Aᵀ n = axis_a and −R_Bᵀ n. */
  double qa[4], qb[4], n[3], ua[3], ub[3], c[3];
  side_orientation(world, f->body_a, qa);
  side_orientation(world, f->body_b, qb);
  clt_q_rotate(n, qa, f->axis_a);
  clt_q_rotate(ua, qa, f->perp_a);
  clt_q_rotate(ub, qb, f->perp_b);
  clt_v3_cross(c, ub, ua);
  *phi = wrap_angle(atan2(clt_v3_dot(c, n), clt_v3_dot(ub, ua)) - f->rest_angle);
  if (f->body_a >= 0) clt_v3_copy(grad + 3, f->axis_a);
  if (f->body_b >= 0) {
    clt_q_rotate_inv(grad + 9, qb, n);
    clt_v3_scale(grad + 9, grad + 9, -1.0);
  }
  return true;
}

/* Adds the generalized force s·g of one side (g: linear world force, angular body-frame torque). */
static void add_side(clt_world_t *world, int body, const double *lin, const double *ang, double s) {
  if (body < 0 || world->bodies[body].type != CLT_BODY_DYNAMIC) return;
  clt_v3_axpy(world->force_acc[body], world->force_acc[body], s, lin);
  if (world->dimension == 2) {
    world->torque_acc[body][0] += s * ang[0];
  } else {
    clt_v3_axpy(world->torque_acc[body], world->torque_acc[body], s, ang);
  }
}

/* ∇φᵀ v of one side (6-vector layout of the row). */
static double side_rate(const clt_world_t *world, int body, const double *lin, const double *ang) {
  if (body < 0) return 0.0;
  const clt_body_state_t *s = &world->states[body];
  return clt_v3_dot(lin, s->velocity) + (world->dimension == 2 ? ang[0] * s->angular_velocity[0]
                                                                : clt_v3_dot(ang, s->angular_velocity));
}

/* A body's load for the next step (clt_body_apply_force / _torque), checked as applied force
 * elements are: a dynamic body, finite values within CLT_MAX_FORCE, 2D components in the plane. */
static clt_status_t add_load(clt_world_t *world, clt_body_id_t body, const double force[3], const double torque[3],
                             const char *what) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  int b;
  clt_status_t st = clt_world_resolve_body(world, body, false, what, &b);
  if (st != CLT_OK) return st;
  char label[CLT_NAME_SIZE + 48];
  clt_body_label(world, b, label, sizeof label);
  if (world->bodies[b].type != CLT_BODY_DYNAMIC)
    return FAIL("%s: %s: the body is %s (only dynamic bodies take forces)", what, label,
                clt_body_type_name(world->bodies[b].type));
  if (!finite3(force) || !finite3(torque)) return FAIL("%s: %s: the values must be finite", what, label);
  for (int k = 0; k < 3; k++)
    if (!(fabs(force[k]) <= CLT_MAX_FORCE && fabs(torque[k]) <= CLT_MAX_FORCE))
      return FAIL("%s: %s: the values must be within %g (CLT_MAX_FORCE, N and N m)", what, label, CLT_MAX_FORCE);
  if (!clt_grow((void **)&world->loads, &world->load_capacity, world->load_count + 1, sizeof *world->loads))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
  clt_load_t *load = &world->loads[world->load_count++];
  load->body = b;
  clt_v3_copy(load->force, force);
  clt_v3_copy(load->torque, torque);
  return CLT_OK;
}

clt_status_t clt_body_apply_force(clt_world_t *world, clt_body_id_t body, const double force[3],
                                  const double point[3]) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  if (!force) return FAIL("apply_force: force must not be NULL");
  double torque[3] = {0.0, 0.0, 0.0};
  if (world->dimension == 2 && force[2] != 0.0) return FAIL("apply_force: in a 2D world force[2] must be 0");
  if (point) {
    int b;
    clt_status_t st = clt_world_resolve_body(world, body, false, "apply_force", &b);
    if (st != CLT_OK) return st;
    if (!finite3(point)) return FAIL("apply_force: point must be finite");
    if (world->dimension == 2 && point[2] != 0.0) return FAIL("apply_force: in a 2D world point[2] must be 0");
    double r[3], tau[3];
    clt_v3_sub(r, point, world->states[b].position);
    clt_v3_cross(tau, r, force);
    if (world->dimension == 2) {
      torque[0] = tau[2]; /* 2D: the scalar torque in [0] (world.h) */
    } else {
      clt_v3_copy(torque, tau);
    }
  }
  return add_load(world, body, force, torque, "apply_force");
}

clt_status_t clt_body_apply_torque(clt_world_t *world, clt_body_id_t body, const double torque[3]) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  if (!torque) return FAIL("apply_torque: torque must not be NULL");
  if (world->dimension == 2 && (torque[1] != 0.0 || torque[2] != 0.0))
    return FAIL("apply_torque: in a 2D world the torque is torque[0] ([1] and [2] must be 0)");
  static const double zero[3] = {0.0, 0.0, 0.0};
  return add_load(world, body, zero, torque, "apply_torque");
}

void clt_forces_spend_loads(clt_world_t *world) { world->load_count = 0; }

/* The loads of clt_body_apply_force / _torque into the accumulators, in call order (torques to the
 * body frame). */
static void add_loads(clt_world_t *world) {
  for (int k = 0; k < world->load_count; k++) {
    const clt_load_t *load = &world->loads[k];
    int b = load->body;
    clt_v3_add(world->force_acc[b], world->force_acc[b], load->force);
    if (world->dimension == 2) {
      world->torque_acc[b][0] += load->torque[0];
    } else {
      double tau_body[3];
      clt_q_rotate_inv(tau_body, world->states[b].orientation, load->torque);
      clt_v3_add(world->torque_acc[b], world->torque_acc[b], tau_body);
    }
  }
}

void clt_forces_accumulate(clt_world_t *world, double t) {
  if (world->body_count == 0) return;
  size_t bytes = (size_t)world->body_count * sizeof *world->force_acc;
  if (world->force_count == 0 && world->load_count == 0) {
    /* Nothing adds to the accumulators: zero they stay, and their pages are given back once
     * (base/pages.h), so that a pile's 48 bytes a body of zeros are not resident */
    if (!world->acc_clear) {
      clt_zero_pages(world->force_acc, bytes);
      clt_zero_pages(world->torque_acc, bytes);
      world->acc_clear = true;
    }
    return;
  }
  world->acc_clear = false;
  memset(world->force_acc, 0, bytes);
  memset(world->torque_acc, 0, bytes);
  for (int k = 0; k < world->force_count; k++) {
    const clt_force_rec_t *f = &world->forces[k];
    if (f->type == CLT_FORCE_APPLIED) {
      int b = f->body_a;
      double c = cos(2.0 * CLT_PI * f->frequency * t + f->phase);
      double force[3], torque[3];
      clt_v3_axpy(force, f->force, c, f->force_amplitude);
      clt_v3_axpy(torque, f->torque, c, f->torque_amplitude);
      clt_v3_add(world->force_acc[b], world->force_acc[b], force);
      if (world->dimension == 2) {
        world->torque_acc[b][0] += torque[0];
      } else { /* world-frame torque → body frame (SPEC.md §0: ω and J live in the body frame) */
        double tau_body[3];
        clt_q_rotate_inv(tau_body, world->states[b].orientation, torque);
        clt_v3_add(world->torque_acc[b], world->torque_acc[b], tau_body);
      }
    } else if (clt_force_is_element(f) && f->treatment == CLT_TREAT_EXPLICIT) {
      /* SPEC.md §4, explicit: k ∋ −(γ φ + δ φ̇) ∇φ, φ̇ = ∇φᵀ v. Implicit elements are rows. */
      double phi, g[12];
      if (!clt_force_element_gradient(world, f, &phi, g)) continue;
      double rate = side_rate(world, f->body_a, g, g + 3) + side_rate(world, f->body_b, g + 6, g + 9);
      double magnitude = -(f->stiffness * phi + f->damping * rate);
      add_side(world, f->body_a, g, g + 3, magnitude);
      add_side(world, f->body_b, g + 6, g + 9, magnitude);
    }
  }
  add_loads(world);
}

double clt_forces_potential_energy(const clt_world_t *world) {
  double energy = 0.0;
  for (int k = 0; k < world->force_count; k++) {
    const clt_force_rec_t *f = &world->forces[k];
    if (!clt_force_is_element(f)) continue;
    double phi, g[12];
    clt_force_element_gradient(world, f, &phi, g);
    energy += 0.5 * f->stiffness * phi * phi;
  }
  return energy;
}
