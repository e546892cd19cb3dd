/* Stage "diverge": after the step is described (stage "diagnose"), is the state blowing up?
 * (docs/stepping.md "Divergence"; SPEC.md §7.) The tests only read the diagnostics and the state,
 * so a step that passes them is bit-for-bit what it would be without them:
 *  - energy: E = kinetic + gravity potential may exceed E_0, kinetic + potential (gravity and
 *    springs) at the reference state, by at most
 *        divergence_energy_factor · E_s + W,   E_s = KE_0 + Σ_i ½ m_i (r_i / h)²,
 *    where r_i is body i's size and W a bound on the work of the applied forces since the
 *    reference, Σ h (|F(t)| |v| + |τ(t)| |ω|) over the steps. Without applied work, gravity and
 *    springs only exchange energy with motion (a spring's ½γφ² ≥ 0 is left out of E: it can only
 *    give back what E_0 counted), and dampers, friction, inelastic impacts and the
 *    solvers' projections take it away; what the stabilization puts back is bounded by the
 *    bodies' moving their own size in a step, the second term of E_s. Energy past that comes
 *    from nowhere: an explicit element past its stability limit (004 §3.2), a solve gone wrong.
 *    A moving kinematic body does unbounded work on what it touches: no energy test then.
 *  - infeasibility: a joint error |Θ| or a penetration −Φ of more than
 *    divergence_infeasibility_fraction times the size of the smaller body involved (a static or
 *    kinematic body has no bound of its own), in the schemes that correct positions (not none,
 *    nor baumgarte with α = 0, whose drift grows by design): rigid bodies overlapping by half their size, or a
 *    joint torn apart by as much, are no longer a solution of anything.
 * A body's size r_i is its bounding radius about its centre of mass (a disk or sphere exactly,
 * other shapes by the farthest corner of their bounding boxes in its principal frame), at least the distance to any joint or force
 * element anchor on it; a dynamic body with neither takes the largest size in the world (1 m if
 * none has one). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "collision/narrowphase.h"
#include "math/vec.h"
#include "steppers/stepper.h"

static double body_size(const clt_world_t *world, int i) {
  const clt_body_rec_t *b = &world->bodies[i];
  double r = 0.0;
  clt_collide_pose_t pose = {{0.0, 0.0, 0.0}, 0.0, {1.0, 0.0, 0.0, 0.0}};
  for (int s = b->shape_first; s < b->shape_first + b->shape_count; s++) {
    const clt_shape_def_t *shape = clt_world_shape(world, s);
    if (shape->type == CLT_SHAPE_DISK || shape->type == CLT_SHAPE_SPHERE) { /* exact */
      r = fmax(r, clt_v3_norm(shape->local_position) + shape->radius);
      continue;
    }
    double lower[3], upper[3];
    if (!clt_shape_bounds(shape, &pose, lower, upper)) continue; /* a half-plane */
    double corner[3];
    for (int k = 0; k < 3; k++) corner[k] = fmax(fabs(lower[k]), fabs(upper[k]));
    r = fmax(r, clt_v3_norm(corner));
  }
  return r;
}

static void note_anchor(double *size, int body, const double anchor[3]) {
  if (body >= 0 && size[body] < INFINITY) size[body] = fmax(size[body], clt_v3_norm(anchor));
}

/* The reference of the energy test and the bodies' sizes, from the state before the step. */
static bool take_reference(clt_world_t *world) {
  int n = world->body_count;
  if (n > world->divergence.size_capacity) {
    double *size = realloc(world->divergence.size, (size_t)n * sizeof *size);
    if (!size) return false;
    world->divergence.size = size;
    world->divergence.size_capacity = n;
  }
  double *size = world->divergence.size;
  bool moving = false;
  for (int i = 0; i < n; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    size[i] = b->type == CLT_BODY_DYNAMIC ? body_size(world, i) : INFINITY;
    if (b->type == CLT_BODY_KINEMATIC) {
      const clt_body_extra_t *e = clt_body_extra(world, i);
      moving = moving || clt_v3_norm(e->motion.velocity) > 0.0 ||
               (clt_v3_norm(e->motion.amplitude) > 0.0 && e->motion.frequency != 0.0) ||
               clt_v3_norm(e->base_angular_velocity) > 0.0;
    }
  }
  for (int j = 0; j < world->joint_count; j++) {
    if (world->joints[j].removed) continue;
    note_anchor(size, world->joints[j].body_a, world->joints[j].anchor_a);
    note_anchor(size, world->joints[j].body_b, world->joints[j].anchor_b);
  }
  for (int k = 0; k < world->force_count; k++) {
    const clt_force_rec_t *f = &world->forces[k];
    if (!clt_force_is_element(f)) continue;
    note_anchor(size, f->body_a, f->anchor_a);
    note_anchor(size, f->body_b, f->anchor_b);
  }
  double largest = 0.0;
  for (int i = 0; i < n; i++)
    if (size[i] < INFINITY) largest = fmax(largest, size[i]);
  if (!(largest > 0.0)) largest = 1.0;
  double h = world->time_step, kinetic = clt_world_kinetic_energy(world), scale = kinetic;
  double min_size = INFINITY;
  for (int i = 0; i < n; i++) {
    if (!(size[i] < INFINITY)) continue;
    if (!(size[i] > 0.0)) size[i] = largest;
    min_size = fmin(min_size, size[i]);
    scale += 0.5 * world->bodies[i].mass * (size[i] / h) * (size[i] / h);
  }
  world->divergence.valid = true;
  world->divergence.body_count = n;
  world->divergence.step = world->step_count;
  world->divergence.energy = kinetic + clt_world_potential_energy(world);
  /* a reference that is itself not finite (a state set to overflow) bounds nothing */
  world->divergence.energy_test = !moving && isfinite(world->divergence.energy) && isfinite(scale);
  world->divergence.scale = scale;
  world->divergence.work = 0.0;
  world->divergence.min_size = min_size;
  return true;
}

clt_status_t clt_divergence_reference(clt_world_t *world) {
  const clt_method_t *m = &world->method;
  if (!(m->divergence_energy_factor > 0.0) && !(m->divergence_infeasibility_fraction > 0.0)) return CLT_OK;
  if (world->divergence.valid && world->divergence.body_count == world->body_count) return CLT_OK;
  if (!take_reference(world)) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (divergence monitor)");
  return CLT_OK;
}

/* h Σ (|F(t)| |v| + |τ(t)| |ω|) over the applied forces, velocities after the step. */
static double applied_work_bound(const clt_world_t *world, double t, double h) {
  double work = 0.0;
  for (int k = 0; k < world->force_count; k++) {
    const clt_force_rec_t *f = &world->forces[k];
    if (f->type != CLT_FORCE_APPLIED || f->body_a < 0) continue;
    double c = cos(2.0 * CLT_PI * f->frequency * t + f->phase), force[3], torque[3];
    clt_v3_axpy(force, f->force, c, f->force_amplitude);
    clt_v3_axpy(torque, f->torque, c, f->torque_amplitude);
    const clt_body_state_t *s = &world->states[f->body_a];
    double spin = world->dimension == 2 ? fabs(s->angular_velocity[0]) : clt_v3_norm(s->angular_velocity);
    double moment = world->dimension == 2 ? fabs(torque[0]) : clt_v3_norm(torque);
    work += h * (clt_v3_norm(force) * clt_v3_norm(s->velocity) + moment * spin);
  }
  return work;
}

/* The dynamic body with the largest kinetic energy (the one the energy went to). */
static int most_energetic(const clt_world_t *world, double *energy) {
  int best = -1;
  *energy = -1.0;
  for (int i = 0; i < world->body_count; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    if (b->type != CLT_BODY_DYNAMIC) continue;
    const clt_body_state_t *s = &world->states[i];
    double e = b->mass * clt_v3_dot(s->velocity, s->velocity);
    if (world->dimension == 2)
      e += b->inertia[0] * s->angular_velocity[0] * s->angular_velocity[0];
    else
      for (int k = 0; k < 3; k++) e += b->inertia[k] * s->angular_velocity[k] * s->angular_velocity[k];
    if (0.5 * e > *energy) {
      *energy = 0.5 * e;
      best = i;
    }
  }
  return best;
}

#define DIVERGED "step %lld: the simulation diverged: "
#define KEPT "; the state before the step is kept (docs/stepping.md \"Divergence\")"

clt_status_t clt_stage_diverge(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  const clt_method_t *m = &world->method;
  const clt_diagnostics_t *d = c->diagnostics;
  long long step = (long long)c->step;
  double factor = m->divergence_energy_factor, fraction = m->divergence_infeasibility_fraction;
  if (!world->divergence.valid) return CLT_OK; /* both tests off */
  char label[CLT_NAME_SIZE + 32], other[CLT_NAME_SIZE + 32];
  if (factor > 0.0 && world->divergence.energy_test) {
    world->divergence.work += applied_work_bound(world, c->t, c->h);
    /* the springs' potential left out (≥ 0, so leaving it out only lowers E): the linearly implicit
     * springs' ½γφ² of the actual φ is not what the scheme conserves (004 Thm 2.4 bounds that of the
     * linearized φ), and a stiff one pressed against a contact reports 3.6e10 J at γ = 1e10
     * (tests/stepper/test_stiff_energy.c) with 6 J of motion */
    double energy = d->kinetic_energy + d->potential_energy - clt_forces_potential_energy(world);
    double bound = factor * world->divergence.scale + world->divergence.work;
    if (!(energy - world->divergence.energy <= bound)) {
      double body_energy;
      clt_body_label(world, most_energetic(world, &body_energy), label, sizeof label);
      return clt_world_fail(world, CLT_ERR_DIVERGED,
                            DIVERGED "energy (kinetic + gravity) %.3g J, %.3g J above the %.3g J of step %lld, past the bound %.3g J "
                                     "(divergence_energy_factor %g x energy scale %.3g J + applied work %.3g J); "
                                     "kinetic energy %.3g J, most of it in %s (%.3g J)" KEPT,
                            step, energy, energy - world->divergence.energy, world->divergence.energy,
                            (long long)world->divergence.step, bound, factor, world->divergence.scale,
                            world->divergence.work, d->kinetic_energy, label, body_energy);
    }
  }
  /* without a position correction (scheme none, baumgarte with α = 0) the drift of joints and
   * contacts grows by design (docs/stepping.md "Divergence"): it is no sign of a blow-up */
  bool corrects = m->scheme != CLT_SCHEME_NONE && !(m->scheme == CLT_SCHEME_BAUMGARTE && m->alpha == 0.0);
  if (!(fraction > 0.0) || !corrects) return CLT_OK;
  const double *size = world->divergence.size;
  if (world->joint_count > 0 && !(d->joint_error <= fraction * world->divergence.min_size)) {
    int worst = -1; /* the joint past its bound by the largest ratio */
    double worst_ratio = 1.0, worst_error = 0.0;
    for (int j = 0; j < world->joint_count; j++) {
      const clt_joint_rec_t *joint = &world->joints[j];
      if (joint->removed) continue;
      double sa = joint->body_a >= 0 ? size[joint->body_a] : INFINITY;
      double sb = joint->body_b >= 0 ? size[joint->body_b] : INFINITY;
      double bound = fraction * fmin(sa, sb);
      if (!(bound < INFINITY)) continue;
      double theta[6], error = 0.0;
      int rows = clt_joint_constraint(world, joint, theta);
      for (int k = 0; k < rows; k++) error = fabs(theta[k]) > error || isnan(theta[k]) ? fabs(theta[k]) : error;
      if (error > worst_ratio * bound || (isnan(error) && worst < 0)) {
        worst = j;
        worst_ratio = error / bound;
        worst_error = error;
      }
    }
    if (worst >= 0) {
      const clt_joint_rec_t *joint = &world->joints[worst];
      int a = joint->body_a, b = joint->body_b;
      double sa = a >= 0 ? size[a] : INFINITY, sb = b >= 0 ? size[b] : INFINITY;
      char name[CLT_NAME_SIZE + 32], smaller[CLT_NAME_SIZE + 32];
      if (joint->name[0])
        snprintf(name, sizeof name, "joint '%s'", joint->name);
      else
        snprintf(name, sizeof name, "joint #%d", worst);
      clt_body_label(world, a, label, sizeof label);
      clt_body_label(world, b, other, sizeof other);
      clt_body_label(world, sa <= sb ? a : b, smaller, sizeof smaller);
      return clt_world_fail(world, CLT_ERR_DIVERGED,
                            DIVERGED "joint error %.3g m at %s (%s, %s), past the bound %.3g m "
                                     "(divergence_infeasibility_fraction %g x size %.3g m of %s)" KEPT,
                            step, worst_error, name, label, other, fraction * fmin(sa, sb), fraction, fmin(sa, sb),
                            smaller);
    }
  }
  if (!(d->penetration <= fraction * world->divergence.min_size)) {
    int a, b;
    double depth;
    if (clt_world_worst_penetration(world, size, fraction, &a, &b, &depth)) {
      int small = size[a] <= size[b] ? a : b;
      clt_body_label(world, a, label, sizeof label);
      clt_body_label(world, b, other, sizeof other);
      char smaller[CLT_NAME_SIZE + 32];
      clt_body_label(world, small, smaller, sizeof smaller);
      double s = fmin(size[a], size[b]);
      return clt_world_fail(world, CLT_ERR_DIVERGED,
                            DIVERGED "penetration %.3g m between %s and %s, past the bound %.3g m "
                                     "(divergence_infeasibility_fraction %g x size %.3g m of %s)" KEPT,
                            step, depth, label, other, fraction * s, fraction, s, smaller);
    }
  }
  return CLT_OK;
}
