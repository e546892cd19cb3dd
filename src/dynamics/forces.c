/* Force elements (SPEC.md §1 k̂, §4): applied forces/torques (constant + cosine) and spring–dampers
 * treated explicitly. The linearly implicit spring treatment (compliant rows, SPEC.md §4) belongs
 * to the [stepper] work and is refused with CLT_ERR_UNSUPPORTED until then. */
#include <math.h>
#include <stdio.h>
#include <string.h>

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
  return CLT_FORCE_TYPE_COUNT;
}

int clt_world_force_count(const clt_world_t *world) { return world->force_count; }

static bool finite3(const double a[3]) { return clt_v3_isfinite(a); }

#define FAIL(...) clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, __VA_ARGS__)

clt_status_t clt_world_add_force(clt_world_t *world, const clt_force_def_t *def, clt_force_id_t *out) {
  if (out) {
    out->index = CLT_NULL_INDEX;
    out->generation = 0;
  }
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
      !isfinite(def->damping) || !isfinite(def->rest_length))
    return FAIL("%s: every numeric field must be finite", label);

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
    if (def->treatment == CLT_TREAT_IMPLICIT)
      return clt_world_fail(world, CLT_ERR_UNSUPPORTED,
                            "%s: the implicit spring-damper treatment (compliant rows, SPEC.md §4) is not "
                            "supported yet (the [stepper] work); use treatment explicit", label);
    if (world->dimension == 2 && (def->anchor_a[2] != 0.0 || def->anchor_b[2] != 0.0))
      return FAIL("%s: anchor_a[2] and anchor_b[2] must be 0 in a 2D world", label);
    clt_body_point_from_def(world, rec.body_a, def->anchor_a, rec.anchor_a);
    clt_body_point_from_def(world, rec.body_b, def->anchor_b, rec.anchor_b);
    rec.stiffness = def->stiffness;
    rec.damping = def->damping;
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

/* Adds a world-frame force f acting at world point p to a body's accumulators. */
static void add_point_force(clt_world_t *world, int body, const double f[3], const double p[3]) {
  if (body < 0 || world->bodies[body].type != CLT_BODY_DYNAMIC) return;
  const clt_body_state_t *s = &world->states[body];
  double rho[3], tau[3];
  clt_v3_sub(rho, p, s->position);
  clt_v3_add(world->force_acc[body], world->force_acc[body], f);
  if (world->dimension == 2) {
    world->torque_acc[body][0] += rho[0] * f[1] - rho[1] * f[0];
  } else {
    double tau_body[3];
    clt_v3_cross(tau, rho, f);
    clt_q_rotate_inv(tau_body, s->orientation, tau);
    clt_v3_add(world->torque_acc[body], world->torque_acc[body], tau_body);
  }
}

/* Spring–damper state: unit direction n from B to A, length, rate of length. */
static void spring_geometry(const clt_world_t *world, const clt_force_rec_t *f, double n[3], double *length,
                            double *rate, double pa[3], double pb[3]) {
  double va[3], vb[3], d[3], dv[3];
  clt_body_world_point(world, f->body_a, f->anchor_a, pa, va);
  clt_body_world_point(world, f->body_b, f->anchor_b, pb, vb);
  clt_v3_sub(d, pa, pb);
  clt_v3_sub(dv, va, vb);
  *length = clt_v3_norm(d);
  if (*length > 0.0) {
    clt_v3_scale(n, d, 1.0 / *length);
  } else {
    clt_v3_set(n, 0.0, 0.0, 0.0); /* coincident anchors: no direction, no force */
  }
  *rate = clt_v3_dot(n, dv);
}

void clt_forces_accumulate(clt_world_t *world, double t) {
  if (world->body_count == 0) return;
  memset(world->force_acc, 0, (size_t)world->body_count * sizeof *world->force_acc);
  memset(world->torque_acc, 0, (size_t)world->body_count * sizeof *world->torque_acc);
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
    } else if (f->type == CLT_FORCE_SPRING_DAMPER) {
      double n[3], length, rate, pa[3], pb[3];
      spring_geometry(world, f, n, &length, &rate, pa, pb);
      /* SPEC.md §4: f = −(γ φ + δ φ̇) along ∇φ, φ = |p_A − p_B| − L₀. */
      double magnitude = -(f->stiffness * (length - f->rest_length) + f->damping * rate);
      double fa[3], fb[3];
      clt_v3_scale(fa, n, magnitude);
      clt_v3_scale(fb, n, -magnitude);
      add_point_force(world, f->body_a, fa, pa);
      add_point_force(world, f->body_b, fb, pb);
    }
  }
}

double clt_forces_potential_energy(const clt_world_t *world) {
  double energy = 0.0;
  for (int k = 0; k < world->force_count; k++) {
    const clt_force_rec_t *f = &world->forces[k];
    if (f->type != CLT_FORCE_SPRING_DAMPER) continue;
    double n[3], length, rate, pa[3], pb[3];
    spring_geometry(world, f, n, &length, &rate, pa, pb);
    double phi = length - f->rest_length;
    energy += 0.5 * f->stiffness * phi * phi;
  }
  return energy;
}
