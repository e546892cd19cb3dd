/* Joint limits and motors in the step (docs/actuation.md): the rows of the joint coordinate θ
 * (revolute angle, prismatic slide; clt_joint_coordinate_row) that a limit or a motor adds to the
 * step problem, the effort motors' generalized forces, and the joint state read back from the
 * step's memory (clt_joint_get_state).
 *
 * Rows, appended after the joint and spring rows as bounded unknowns (rows.h):
 *   lower limit, gap g = θ − lower:   ν_θ v⁺ + Υ ≥ 0  ⊥  c ≥ 0
 *   upper limit, gap g = upper − θ:  −ν_θ v⁺ + Υ ≥ 0  ⊥  c ≥ 0
 *   velocity motor:                   ν_θ v⁺ − θ̇*       with c ∈ [−h τ_max, h τ_max]
 *   position motor:                   ν_θ v⁺ + (k e − c_d θ̇*)/(h k + c_d) + ε c,
 *                                     ε = 1/(h (h k + c_d)), e = θ − θ*, c ∈ [−h τ_max, h τ_max]
 * In the dynamics step both limit rows are always there (a joint has few): Υ = g/h while g > 0,
 * i.e. θ + h θ̇⁺ stays within the bound over the step (a motor or a blow can cover any distance
 * in one step, so the row cannot wait until the bound is within ε̂), and the scheme's bias Υ(g) of
 * SPEC.md §1 once the bound is violated (g ≤ 0). The position projection of `post` takes the rows
 * with g ≤ ε̂ = method.active_set_eps, as it takes contacts, with b = g. Restitution (Newton's
 * law, on the step of impact): where the row did not push on the step before and θ approaches
 * the bound at the rate r < 0 so that it would reach it within the step (g + h r ≤ ε̂),
 * Υ ← min(Υ, e r) asks a rebound of at least −e r. */
#include <math.h>
#include <string.h>

#include "math/vec.h"
#include "steppers/stepper.h"

/* Room for `more` rows after row_count, and their bounds. */
static bool reserve(clt_step_work_t *w, int more) {
  int bounded = w->bounded_rows + more;
  return clt_step_work_reserve_rows(w, w->row_count + more) &&
         clt_step_work_grow_doubles(&w->row_bounds, &w->row_bounds_capacity, 2 * bounded);
}

static void append(clt_step_work_t *w, const clt_joint_rec_t *joint, int owner, int component,
                   const clt_jacobian_row_t *jac, double sign, double value, double bias, double compliance,
                   double lo, double hi) {
  int n = w->row_count;
  clt_row_t *r = &w->rows[n];
  r->body_a = joint->body_a;
  r->body_b = joint->body_b;
  r->jac = *jac;
  if (sign < 0.0) {
    for (int k = 0; k < 3; k++) {
      r->jac.linear_a[k] = -r->jac.linear_a[k];
      r->jac.angular_a[k] = -r->jac.angular_a[k];
      r->jac.linear_b[k] = -r->jac.linear_b[k];
      r->jac.angular_b[k] = -r->jac.angular_b[k];
    }
  }
  w->row_value[n] = value;
  w->row_bias[n] = bias;
  w->row_compliance[n] = compliance;
  w->joint_row_owner[n] = owner;
  w->joint_row_component[n] = component;
  w->row_bounds[2 * w->bounded_rows] = lo;
  w->row_bounds[2 * w->bounded_rows + 1] = hi;
  w->bounded_rows++;
  w->row_count = n + 1;
  w->joint_rows = n + 1;
}

/* θ − θ* of a position motor: 3D revolute angles live in (−π, π], so the error is taken there too. */
static double servo_error(const clt_world_t *world, const clt_joint_rec_t *j, double theta) {
  double e = theta - j->motor.target_position;
  if (j->type == CLT_JOINT_REVOLUTE && world->dimension == 3) e = remainder(e, 2.0 * CLT_PI);
  return e;
}

/* One unilateral limit row ±ν with gap g (see the top of the file): left out of the position
 * projection beyond ε̂; Υ = g/h before the bound, the scheme's bias past it; restitution. */
static void limit_row(clt_world_t *world, clt_step_work_t *w, const clt_scheme_ops_t *scheme, double h, int j,
                      int component, const clt_jacobian_row_t *jac, double sign, double gap, double approach) {
  const clt_joint_rec_t *joint = &world->joints[j];
  double eps = world->method.active_set_eps;
  if (!scheme && !(gap <= eps)) return;
  const double *memory = w->joint_impulse && CLT_JOINT_SLOTS * (j + 1) <= w->joint_impulse_capacity
                             ? w->joint_impulse + CLT_JOINT_SLOTS * (size_t)j
                             : NULL;
  double bias = !scheme ? gap : gap > 0.0 ? gap / h : scheme->bias(&world->method, gap, h);
  bool pressing = memory && memory[component] > 0.0;
  if (scheme && joint->limit.restitution > 0.0 && approach < 0.0 && !pressing && gap + h * approach <= eps)
    bias = fmin(bias, joint->limit.restitution * approach);
  append(w, joint, j, component, jac, sign, gap, bias, 0.0, 0.0, INFINITY);
}

/* A spherical joint's cone and twist rows (world.h clt_joint_limit_t): swing φ ≤ φ_max (the row of
 * φ is zero while the axes are aligned, where the cone is far), lower ≤ twist ≤ upper; filed under
 * components 6 (swing), 7 and 8 (twist bounds). */
static void cone_rows(clt_world_t *world, clt_step_work_t *w, const clt_scheme_ops_t *scheme, double h, int j) {
  const clt_joint_rec_t *joint = &world->joints[j];
  double swing, swing_rate, twist, twist_rate;
  clt_jacobian_row_t swing_row, twist_row;
  clt_joint_swing(world, joint, &swing, &swing_rate, &swing_row);
  clt_joint_twist(world, joint, &twist, &twist_rate, &twist_row);
  if (swing > 1e-9) limit_row(world, w, scheme, h, j, 6, &swing_row, -1.0, joint->limit.swing - swing, -swing_rate);
  limit_row(world, w, scheme, h, j, 7, &twist_row, 1.0, twist - joint->limit.lower, twist_rate);
  limit_row(world, w, scheme, h, j, 8, &twist_row, -1.0, joint->limit.upper - twist, -twist_rate);
}

clt_status_t clt_build_actuation_rows(clt_world_t *world, clt_step_work_t *w, const clt_scheme_ops_t *scheme,
                                      double h, bool motors) {
  /* scheme: the dynamics step (with its motors); NULL: the position projection */
  w->bounded_rows = 0;
  for (int j = 0; j < world->joint_count; j++) {
    const clt_joint_rec_t *joint = &world->joints[j];
    if (joint->type == CLT_JOINT_SPHERICAL && joint->limit.enabled) {
      if (!reserve(w, 3))
        return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (limit and motor rows)");
      cone_rows(world, w, scheme, h, j);
      continue;
    }
    bool motor = motors && (joint->motor.mode == CLT_MOTOR_VELOCITY || joint->motor.mode == CLT_MOTOR_POSITION);
    if (!joint->limit.enabled && !motor) continue;
    double theta, rate;
    clt_jacobian_row_t jac;
    if (!clt_joint_coordinate(world, joint, &theta, &rate) || !clt_joint_coordinate_row(world, joint, &jac)) continue;
    if (!reserve(w, 3))
      return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (limit and motor rows)");
    if (joint->limit.enabled) {
      /* approach < 0: moving towards the bound */
      limit_row(world, w, scheme, h, j, CLT_JOINT_LOWER, &jac, 1.0, theta - joint->limit.lower, rate);
      limit_row(world, w, scheme, h, j, CLT_JOINT_UPPER, &jac, -1.0, joint->limit.upper - theta, -rate);
    }
    if (motor) {
      const clt_joint_motor_t *m = &joint->motor;
      double bound = h * m->max_force, bias = -m->target_velocity, compliance = 0.0;
      if (m->mode == CLT_MOTOR_POSITION) {
        double s = h * m->stiffness + m->damping; /* > 0 (checked) */
        bias = (m->stiffness * servo_error(world, joint, theta) - m->damping * m->target_velocity) / s;
        compliance = 1.0 / (h * s);
      }
      append(w, joint, j, CLT_JOINT_MOTOR, &jac, 1.0, 0.0, bias, compliance, -bound, bound);
    }
  }
  return CLT_OK;
}

/* Velocity and position motors and limits are rows of the step problem of stage_solve_rows.c;
 * pipelines without it (the relaxed scheme's QP, the overdamped law's ReLCP) refuse them rather
 * than dropping them. Effort motors are forces, which every pipeline applies. */
clt_status_t clt_check_actuation_support(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  bool rows = false;
  for (int k = 0; k < c->scheme->stage_count; k++)
    if (c->scheme->stages[k].run == clt_stage_solve) rows = true;
  if (rows && world->law == CLT_LAW_INERTIAL) return CLT_OK;
  for (int j = 0; j < world->joint_count; j++) {
    const clt_joint_rec_t *joint = &world->joints[j];
    const char *what = joint->limit.enabled                        ? "a limit"
                       : joint->motor.mode == CLT_MOTOR_VELOCITY ? "a velocity motor"
                       : joint->motor.mode == CLT_MOTOR_POSITION ? "a position motor"
                                                                 : NULL;
    if (!what) continue;
    return clt_world_fail(world, CLT_ERR_UNSUPPORTED,
                          "step %lld: joint #%d%s%s%s has %s (rows of the step problem, docs/actuation.md), which the "
                          "'%s' pipeline%s does not support; use a scheme with a step problem (post, anitescu-hart, "
                          "baumgarte, none)",
                          (long long)c->step, j, joint->name[0] ? " '" : "", joint->name, joint->name[0] ? "'" : "",
                          what, c->scheme->name, world->law != CLT_LAW_INERTIAL ? " of the overdamped law" : "");
  }
  return CLT_OK;
}

void clt_add_joint_efforts(clt_world_t *world) {
  for (int j = 0; j < world->joint_count; j++) {
    const clt_joint_rec_t *joint = &world->joints[j];
    if (joint->motor.mode != CLT_MOTOR_EFFORT || joint->motor.effort == 0.0) continue;
    clt_jacobian_row_t jac;
    if (!clt_joint_coordinate_row(world, joint, &jac)) continue;
    /* the generalized force ν_θᵀ τ: a row's parts are a force (world frame) and a body-frame torque */
    double tau = joint->motor.effort;
    const int body[2] = {joint->body_a, joint->body_b};
    const double *lin[2] = {jac.linear_a, jac.linear_b}, *ang[2] = {jac.angular_a, jac.angular_b};
    for (int side = 0; side < 2; side++) {
      int b = body[side];
      if (b < 0 || world->bodies[b].type != CLT_BODY_DYNAMIC) continue;
      world->acc_clear = false;
      clt_v3_axpy(world->force_acc[b], world->force_acc[b], tau, lin[side]);
      if (world->dimension == 2)
        world->torque_acc[b][0] += tau * ang[side][0];
      else
        clt_v3_axpy(world->torque_acc[b], world->torque_acc[b], tau, ang[side]);
    }
  }
}

void clt_remember_efforts(clt_world_t *world, clt_step_work_t *w, double h) {
  for (int j = 0; j < world->joint_count; j++)
    if (world->joints[j].motor.mode == CLT_MOTOR_EFFORT)
      w->next_joint_impulse[CLT_JOINT_SLOTS * (size_t)j + CLT_JOINT_MOTOR] = h * world->joints[j].motor.effort;
}

clt_status_t clt_joint_get_impulses(const clt_world_t *world, clt_joint_id_t joint, double impulse[9]) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  const clt_joint_rec_t *j = NULL;
  clt_status_t status = clt_joint_lookup(world, joint, impulse, "get_impulses", &j);
  if (status != CLT_OK) return status;
  _Static_assert(CLT_JOINT_SLOTS == 9, "world.h documents 9 impulses");
  const clt_step_work_t *w = world->step_work;
  size_t first = CLT_JOINT_SLOTS * (size_t)joint.index;
  for (int k = 0; k < CLT_JOINT_SLOTS; k++)
    impulse[k] = w && w->joint_impulse && first + CLT_JOINT_SLOTS <= (size_t)w->joint_impulse_capacity
                     ? w->joint_impulse[first + (size_t)k]
                     : 0.0;
  return CLT_OK;
}

clt_status_t clt_joint_get_state(const clt_world_t *world, clt_joint_id_t joint, clt_joint_state_t *out) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  const clt_joint_rec_t *j = NULL;
  clt_status_t status = clt_joint_lookup(world, joint, out, "get_state", &j);
  if (status != CLT_OK) return status;
  memset(out, 0, sizeof *out);
  if (!clt_joint_coordinate(world, j, &out->position, &out->rate))
    return clt_world_fail((clt_world_t *)world, CLT_ERR_UNSUPPORTED,
                          "joint get_state: a %s joint has no single coordinate", clt_joint_type_name(j->type));
  const clt_step_work_t *w = world->step_work;
  size_t first = CLT_JOINT_SLOTS * (size_t)joint.index;
  if (!w || !w->joint_impulse || first + CLT_JOINT_SLOTS > (size_t)w->joint_impulse_capacity) return CLT_OK;
  const double *m = w->joint_impulse + first;
  for (int k = 0; k < 6; k++) out->constraint_impulse[k] = m[k];
  out->limit_impulse = m[CLT_JOINT_LOWER] - m[CLT_JOINT_UPPER];
  out->limit_active = m[CLT_JOINT_LOWER] > 0.0 ? -1 : m[CLT_JOINT_UPPER] > 0.0 ? 1 : 0;
  out->motor_impulse = m[CLT_JOINT_MOTOR];
  return CLT_OK;
}
