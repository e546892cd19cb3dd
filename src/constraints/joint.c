/* Joints: definitions, validation, storage, the type table and the joint-error diagnostic
 * (SPEC.md §1 Infeasibility: max |Θᵢ| over all joints). */
#include "constraints/joint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/algebra.h"
#include "math/vec.h"

static const clt_joint_ops_t *const joint_table[CLT_JOINT_TYPE_COUNT] = {
    [CLT_JOINT_REVOLUTE] = &clt_joint_ops_revolute,
    [CLT_JOINT_SPHERICAL] = &clt_joint_ops_spherical,
    [CLT_JOINT_PRISMATIC] = &clt_joint_ops_prismatic,
    [CLT_JOINT_FIXED] = &clt_joint_ops_fixed,
    [CLT_JOINT_DISTANCE] = &clt_joint_ops_distance,
};

const clt_joint_ops_t *clt_joint_ops(clt_joint_type_t type) {
  if ((int)type < 0 || type >= CLT_JOINT_TYPE_COUNT) return NULL;
  return joint_table[type];
}

const char *clt_joint_type_name(clt_joint_type_t type) {
  const clt_joint_ops_t *ops = clt_joint_ops(type);
  return ops ? ops->name : "unknown";
}

clt_joint_type_t clt_joint_type_from_name(const char *name) {
  if (!name) return CLT_JOINT_TYPE_COUNT;
  for (int t = 0; t < CLT_JOINT_TYPE_COUNT; t++)
    if (strcmp(joint_table[t]->name, name) == 0) return (clt_joint_type_t)t;
  return CLT_JOINT_TYPE_COUNT;
}

clt_joint_def_t clt_default_joint_def(clt_joint_type_t type) {
  clt_joint_def_t d;
  memset(&d, 0, sizeof d);
  d.type = type;
  d.body_a = clt_world_ground();
  d.body_b = clt_world_ground();
  d.axis_a[2] = 1.0;
  d.axis_b[2] = 1.0;
  d.distance = -1.0;
  return d;
}

int clt_world_joint_count(const clt_world_t *world) { return world ? world->joint_count : 0; }

clt_joint_id_t clt_world_joint_at(const clt_world_t *world, int i) {
  clt_joint_id_t id = {CLT_NULL_INDEX, 0};
  if (!world || i < 0 || i >= world->joint_count || world->joints[i].removed) return id;
  id.index = (uint32_t)i;
  id.generation = world->joints[i].generation;
  return id;
}

static void relative_orientation(const clt_world_t *world, const clt_joint_rec_t *joint, double ra[4],
                                 double rel[4]);

/* A 2D body's angle (0 for the ground). */
static double planar_angle(const clt_world_t *world, int body) { return body < 0 ? 0.0 : world->states[body].angle; }

/* A body's angular velocity in the world frame (2D: about z; 0 for the ground). */
static void world_angular_velocity(const clt_world_t *world, int body, double out[3]) {
  clt_v3_set(out, 0.0, 0.0, 0.0);
  if (body < 0) return;
  const clt_body_state_t *s = &world->states[body];
  if (world->dimension == 2)
    out[2] = s->angular_velocity[0];
  else
    clt_q_rotate(out, s->orientation, s->angular_velocity);
}

clt_status_t clt_joint_lookup(const clt_world_t *world, clt_joint_id_t joint, const void *out, const char *what,
                             const clt_joint_rec_t **rec) {
  clt_world_t *w = (clt_world_t *)world; /* for the error message only */
  if (joint.index >= (uint32_t)world->joint_count || world->joints[joint.index].generation != joint.generation ||
      world->joints[joint.index].removed)
    return clt_world_fail(w, CLT_ERR_STALE_HANDLE, "joint %s: joint id {%u, %u} names no joint", what, joint.index,
                          joint.generation);
  if (!out) return clt_world_fail(w, CLT_ERR_INVALID_ARGUMENT, "joint %s: out must not be NULL", what);
  *rec = &world->joints[joint.index];
  return CLT_OK;
}

bool clt_joint_coordinate(const clt_world_t *world, const clt_joint_rec_t *j, double *position, double *rate) {
  double pa[3], pb[3], va[3], vb[3], wa[3], wb[3];
  clt_body_world_point(world, j->body_a, j->anchor_a, pa, va);
  clt_body_world_point(world, j->body_b, j->anchor_b, pb, vb);
  world_angular_velocity(world, j->body_a, wa);
  world_angular_velocity(world, j->body_b, wb);
  switch (j->type) {
    case CLT_JOINT_REVOLUTE:
      if (world->dimension == 2) {
        *position = planar_angle(world, j->body_b) - planar_angle(world, j->body_a) - j->angle0;
        *rate = wb[2] - wa[2];
      } else {
        /* the rotation of B relative to A since creation, in A's frame: d = rel ⊗ rel₀⁻¹, and its
         * angle about A's axis */
        double ra[4], inv[4], rel[4], d[4], axis[3];
        relative_orientation(world, j, ra, rel);
        clt_q_conj(inv, j->relative_orientation);
        clt_q_mul(d, rel, inv);
        *position = 2.0 * atan2(d[1] * j->axis_a[0] + d[2] * j->axis_a[1] + d[3] * j->axis_a[2], d[0]);
        if (*position > CLT_PI) *position -= 2.0 * CLT_PI;
        if (*position <= -CLT_PI) *position += 2.0 * CLT_PI;
        clt_q_rotate(axis, ra, j->axis_a);
        double dw[3];
        clt_v3_sub(dw, wb, wa);
        *rate = clt_v3_dot(dw, axis);
      }
      return true;
    case CLT_JOINT_PRISMATIC: {
      /* s = (p_B − p_A)·a, a = A's axis in the world: ṡ = (v_B − v_A)·a + (p_B − p_A)·(ω_A × a) */
      double ra[4], axis[3], r[3], dv[3], c[3];
      clt_joint_orientation(world, j->body_a, ra);
      clt_q_rotate(axis, ra, j->axis_a);
      clt_v3_sub(r, pb, pa);
      clt_v3_sub(dv, vb, va);
      clt_v3_cross(c, wa, axis);
      *position = clt_v3_dot(r, axis);
      *rate = clt_v3_dot(dv, axis) + clt_v3_dot(r, c);
      return true;
    }
    case CLT_JOINT_DISTANCE: {
      double r[3], dv[3];
      clt_v3_sub(r, pa, pb);
      clt_v3_sub(dv, va, vb);
      double len = clt_v3_norm(r);
      *position = len;
      *rate = len > 0.0 ? clt_v3_dot(r, dv) / len : 0.0;
      return true;
    }
    default:
      return false;
  }
}

bool clt_joint_coordinate_row(const clt_world_t *world, const clt_joint_rec_t *j, clt_jacobian_row_t *row) {
  memset(row, 0, sizeof *row);
  if (j->type == CLT_JOINT_REVOLUTE) {
    if (world->dimension == 2) {
      if (j->body_a >= 0) row->angular_a[0] = -1.0;
      if (j->body_b >= 0) row->angular_b[0] = 1.0;
      return true;
    }
    /* θ̇ = a·(ω_B − ω_A) with a = R_A axis_a (world): body-frame parts R_Bᵀ a and −axis_a */
    double ra[4], rb[4], a[3];
    clt_joint_orientation(world, j->body_a, ra);
    clt_joint_orientation(world, j->body_b, rb);
    clt_q_rotate(a, ra, j->axis_a);
    if (j->body_a >= 0) clt_v3_scale(row->angular_a, j->axis_a, -1.0);
    if (j->body_b >= 0) clt_q_rotate_inv(row->angular_b, rb, a);
    return true;
  }
  if (j->type == CLT_JOINT_PRISMATIC) {
    clt_joint_slide_row(world, j, j->axis_a, row);
    return true;
  }
  return false;
}

void clt_joint_slide_row(const clt_world_t *world, const clt_joint_rec_t *joint, const double dir_a[3],
                         clt_jacobian_row_t *row) {
  /* Θ = t·d with t = R_A dir_a, d = p_B − p_A, ṫ = ω_A,w × t:
   *   Θ̇ = −t·u_A + ω_A,w·(t × (d + ρ_A)) + t·u_B + ω_B,w·(ρ_B × t)   (ρ the anchors' lever arms) */
  double pa[3], pb[3], d[3], ra[4], rb[4], t[3], c[3];
  clt_joint_anchors(world, joint, pa, pb);
  clt_v3_sub(d, pb, pa);
  clt_joint_orientation(world, joint->body_a, ra);
  clt_joint_orientation(world, joint->body_b, rb);
  clt_q_rotate(t, ra, dir_a);
  if (joint->body_a >= 0) {
    double rho_a[3], arm[3];
    clt_q_rotate(rho_a, ra, joint->anchor_a);
    clt_v3_add(arm, d, rho_a);
    clt_v3_cross(c, t, arm);
    clt_q_rotate_inv(row->angular_a, ra, c);
    clt_v3_scale(row->linear_a, t, -1.0);
  }
  if (joint->body_b >= 0) {
    double rho_b[3];
    clt_q_rotate(rho_b, rb, joint->anchor_b);
    clt_v3_cross(c, rho_b, t);
    clt_q_rotate_inv(row->angular_b, rb, c);
    clt_v3_copy(row->linear_b, t);
  }
  if (world->dimension == 2) { /* in the plane the angular parts lie along z: the row's scalar ω part */
    row->angular_a[0] = row->angular_a[2];
    row->angular_b[0] = row->angular_b[2];
    row->angular_a[1] = row->angular_a[2] = row->angular_b[1] = row->angular_b[2] = 0.0;
  }
}

void clt_joint_swing(const clt_world_t *world, const clt_joint_rec_t *j, double *angle, double *rate,
                     clt_jacobian_row_t *row) {
  double ra[4], rb[4], a[3], b[3], c[3], wa[3], wb[3], dw[3];
  clt_joint_orientation(world, j->body_a, ra);
  clt_joint_orientation(world, j->body_b, rb);
  clt_q_rotate(a, ra, j->axis_a);
  clt_q_rotate(b, rb, j->axis_b);
  clt_v3_cross(c, a, b);
  double s = clt_v3_norm(c);
  *angle = atan2(s, clt_v3_dot(a, b));
  memset(row, 0, sizeof *row);
  *rate = 0.0;
  if (!(s > 1e-12)) return; /* aligned: every direction opens the cone alike (the gap is the whole cone) */
  clt_v3_scale(c, c, 1.0 / s); /* φ̇ = n·(ω_B − ω_A), n = (a × b)/|a × b| */
  if (j->body_a >= 0) {
    clt_q_rotate_inv(row->angular_a, ra, c);
    clt_v3_scale(row->angular_a, row->angular_a, -1.0);
  }
  if (j->body_b >= 0) clt_q_rotate_inv(row->angular_b, rb, c);
  world_angular_velocity(world, j->body_a, wa);
  world_angular_velocity(world, j->body_b, wb);
  clt_v3_sub(dw, wb, wa);
  *rate = clt_v3_dot(dw, c);
}

void clt_joint_twist(const clt_world_t *world, const clt_joint_rec_t *j, double *angle, double *rate,
                     clt_jacobian_row_t *row) {
  /* the revolute angle about A's axis (clt_joint_coordinate), whose rate is a·(ω_B − ω_A) */
  clt_joint_rec_t as_hinge = *j;
  as_hinge.type = CLT_JOINT_REVOLUTE;
  clt_joint_coordinate(world, &as_hinge, angle, rate);
  clt_joint_coordinate_row(world, &as_hinge, row);
}

double clt_joint_limit_violation(const clt_world_t *world, const clt_joint_rec_t *j) {
  if (!j->limit.enabled) return 0.0;
  double theta, rate;
  double v = 0.0;
  if (j->type == CLT_JOINT_SPHERICAL) {
    clt_jacobian_row_t row;
    double swing;
    clt_joint_swing(world, j, &swing, &rate, &row);
    clt_joint_twist(world, j, &theta, &rate, &row);
    v = fmax(swing - j->limit.swing, fmax(j->limit.lower - theta, theta - j->limit.upper));
  } else {
    if (!clt_joint_coordinate(world, j, &theta, &rate)) return 0.0;
    v = fmax(j->limit.lower - theta, theta - j->limit.upper);
  }
  return v > 0.0 || isnan(v) ? v : 0.0;
}

clt_status_t clt_joint_get_info(const clt_world_t *world, clt_joint_id_t joint, clt_joint_info_t *out) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  const clt_joint_rec_t *j = NULL;
  clt_status_t status = clt_joint_lookup(world, joint, out, "get_info", &j);
  if (status != CLT_OK) return status;
  memset(out, 0, sizeof *out);
  out->type = j->type;
  out->body_a = j->body_a >= 0 ? clt_world_body_at(world, j->body_a) : clt_world_ground();
  out->body_b = j->body_b >= 0 ? clt_world_body_at(world, j->body_b) : clt_world_ground();
  memcpy(out->anchor_a, j->anchor_a, sizeof out->anchor_a);
  memcpy(out->anchor_b, j->anchor_b, sizeof out->anchor_b);
  memcpy(out->axis_a, j->axis_a, sizeof out->axis_a);
  memcpy(out->axis_b, j->axis_b, sizeof out->axis_b);
  out->distance = j->distance;
  out->collide_connected = j->collide_connected;
  out->limit = j->limit;
  out->motor = j->motor;
  out->name = j->name;
  return CLT_OK;
}

void clt_joint_anchors(const clt_world_t *world, const clt_joint_rec_t *joint, double pa[3], double pb[3]) {
  clt_body_world_point(world, joint->body_a, joint->anchor_a, pa, NULL);
  clt_body_world_point(world, joint->body_b, joint->anchor_b, pb, NULL);
}

void clt_joint_orientation(const clt_world_t *world, int body, double r[4]) {
  if (body < 0) {
    clt_q_identity(r);
  } else if (world->dimension == 2) { /* the turn about z by the body's angle */
    double a = world->states[body].angle;
    r[0] = cos(0.5 * a);
    r[1] = r[2] = 0.0;
    r[3] = sin(0.5 * a);
  } else {
    clt_q_copy(r, world->states[body].orientation);
  }
}

/* r_A⁻¹ ⊗ r_B: B's orientation relative to A's (ra: r_A, for callers that need it). */
static void relative_orientation(const clt_world_t *world, const clt_joint_rec_t *joint, double ra[4],
                                 double rel[4]) {
  double rb[4], inv[4];
  clt_joint_orientation(world, joint->body_a, ra);
  clt_joint_orientation(world, joint->body_b, rb);
  clt_q_conj(inv, ra);
  clt_q_mul(rel, inv, rb);
}

void clt_joint_rotation_error(const clt_world_t *world, const clt_joint_rec_t *joint, double out[3]) {
  double ra[4], rel[4], inv[4], err[4];
  relative_orientation(world, joint, ra, rel);
  clt_q_conj(inv, joint->relative_orientation);
  clt_q_mul(err, inv, rel);
  double sign = err[0] < 0.0 ? -2.0 : 2.0;
  clt_v3_set(out, sign * err[1], sign * err[2], sign * err[3]);
}

int clt_joint_constraint(const clt_world_t *world, const clt_joint_rec_t *joint, double theta[6]) {
  return clt_joint_ops(joint->type)->constraint(world, joint, theta);
}

double clt_world_joint_error(const clt_world_t *world) {
  double worst = 0.0;
  for (int j = 0; j < world->joint_count; j++) {
    if (world->joints[j].removed) continue;
    double theta[6];
    int n = clt_joint_constraint(world, &world->joints[j], theta);
    for (int k = 0; k < n; k++)
      if (fabs(theta[k]) > worst || isnan(theta[k])) worst = fabs(theta[k]);
    double v = clt_joint_limit_violation(world, &world->joints[j]);
    if (v > worst || isnan(v)) worst = v;
  }
  return worst;
}

#define FAIL(...) clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, __VA_ARGS__)

/* The checks of a limit and a motor (world.h) for a joint of the given type; label names it. */
static clt_status_t check_actuation(clt_world_t *world, clt_joint_type_t type, const clt_joint_limit_t *limit,
                                    const clt_joint_motor_t *motor, const char *label) {
  bool coordinate = type == CLT_JOINT_REVOLUTE || type == CLT_JOINT_PRISMATIC;
  const char *unit = type == CLT_JOINT_PRISMATIC ? "m" : "rad";
  if (limit && limit->enabled) {
    bool cone = type == CLT_JOINT_SPHERICAL && world->dimension == 3;
    if (!coordinate && !cone)
      return FAIL("%s: a limit needs a revolute, prismatic or spherical joint (this one is %s)", label,
                  clt_joint_type_name(type));
    if (cone && !(limit->swing > 0.0 && limit->swing <= CLT_PI))
      return FAIL("%s: limit.swing of a spherical joint must be in (0, pi] (got %g)", label, limit->swing);
    if (!cone && limit->swing != 0.0)
      return FAIL("%s: limit.swing is for spherical joints (got %g)", label, limit->swing);
    if (!isfinite(limit->lower) || !isfinite(limit->upper) || !isfinite(limit->restitution))
      return FAIL("%s: limit.lower, limit.upper and limit.restitution must be finite", label);
    if (!(limit->lower < limit->upper))
      return FAIL("%s: limit.lower (%g %s) must be below limit.upper (%g %s)%s", label, limit->lower, unit,
                  limit->upper, unit, limit->lower == limit->upper ? " (equal bounds lock the joint: use a fixed joint)" : "");
    if (!(limit->restitution >= 0.0 && limit->restitution <= 1.0))
      return FAIL("%s: limit.restitution must be in [0, 1] (got %g)", label, limit->restitution);
    if ((type == CLT_JOINT_REVOLUTE || cone) && world->dimension == 3 &&
        !(limit->lower >= -CLT_PI && limit->upper <= CLT_PI))
      return FAIL("%s: a 3D %s limit must lie in [-pi, pi] (the angle is measured in (-pi, pi]; got [%g, %g])",
                  label, cone ? "twist" : "revolute", limit->lower, limit->upper);
    if (type == CLT_JOINT_PRISMATIC && !(fabs(limit->lower) <= CLT_MAX_LENGTH && fabs(limit->upper) <= CLT_MAX_LENGTH))
      return FAIL("%s: limit.lower and limit.upper must be within %g m (CLT_MAX_LENGTH)", label, CLT_MAX_LENGTH);
  }
  if (!motor) return CLT_OK;
  if ((int)motor->mode < 0 || motor->mode >= CLT_MOTOR_MODE_COUNT)
    return FAIL("%s: motor.mode is not a known motor mode (got %d)", label, (int)motor->mode);
  if (motor->mode == CLT_MOTOR_OFF) return CLT_OK;
  if (!coordinate)
    return FAIL("%s: a motor needs a revolute or prismatic joint (this one is %s)", label, clt_joint_type_name(type));
  if (!isfinite(motor->target_velocity) || !isfinite(motor->target_position) || !isfinite(motor->stiffness) ||
      !isfinite(motor->damping) || !isfinite(motor->effort) || isnan(motor->max_force))
    return FAIL("%s: every motor field must be finite", label);
  if (motor->mode == CLT_MOTOR_EFFORT) return CLT_OK;
  if (!(motor->max_force > 0.0 && isfinite(motor->max_force)))
    return FAIL("%s: motor.max_force must be > 0 and finite for a %s motor (got %g)", label,
                clt_motor_mode_name(motor->mode), motor->max_force);
  if (motor->mode == CLT_MOTOR_POSITION &&
      !(motor->stiffness >= 0.0 && motor->damping >= 0.0 && motor->stiffness + motor->damping > 0.0))
    return FAIL("%s: a position motor needs stiffness >= 0 and damping >= 0, not both 0 (got %g, %g)", label,
                motor->stiffness, motor->damping);
  return CLT_OK;
}

/* A joint handle's record for a setter, or the failure. */
static clt_status_t settable(clt_world_t *world, clt_joint_id_t joint, const void *arg, const char *what,
                             clt_joint_rec_t **rec, char *label, size_t label_size) {
  const clt_joint_rec_t *j = NULL;
  clt_status_t st = clt_joint_lookup(world, joint, arg, what, &j);
  if (st != CLT_OK) return st;
  if (j->name[0])
    snprintf(label, label_size, "joint '%.63s'", j->name);
  else
    snprintf(label, label_size, "joint #%d", (int)joint.index);
  *rec = &world->joints[joint.index];
  return CLT_OK;
}

clt_status_t clt_world_remove_joint(clt_world_t *world, clt_joint_id_t joint) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  const clt_joint_rec_t *j = NULL;
  clt_status_t st = clt_joint_lookup(world, joint, &joint, "remove", &j);
  if (st != CLT_OK) return st;
  clt_joint_rec_t *rec = &world->joints[joint.index];
  rec->removed = true;
  rec->generation++; /* every copy of the id is stale now */
  memset(&rec->limit, 0, sizeof rec->limit);
  memset(&rec->motor, 0, sizeof rec->motor);
  world->joints_removed++;
  clt_world_state_changed(world);
  return CLT_OK;
}

/* Sets a joint's limit or its motor (the other NULL; arg: the caller's pointer, refused when NULL)
 * after the checks of clt_world_add_joint. */
static clt_status_t set_actuation(clt_world_t *world, clt_joint_id_t joint, const char *what, const void *arg,
                                  const clt_joint_limit_t *limit, const clt_joint_motor_t *motor) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  clt_joint_rec_t *j = NULL;
  char label[CLT_NAME_SIZE + 32];
  clt_status_t st = settable(world, joint, arg, what, &j, label, sizeof label);
  if (st == CLT_OK) st = check_actuation(world, j->type, limit, motor, label);
  if (st != CLT_OK) return st;
  if (limit) j->limit = *limit;
  if (motor) j->motor = *motor;
  return CLT_OK;
}

clt_status_t clt_joint_set_limit(clt_world_t *world, clt_joint_id_t joint, const clt_joint_limit_t *limit) {
  return set_actuation(world, joint, "set_limit", limit, limit, NULL);
}

clt_status_t clt_joint_set_motor(clt_world_t *world, clt_joint_id_t joint, const clt_joint_motor_t *motor) {
  return set_actuation(world, joint, "set_motor", motor, NULL, motor);
}

clt_status_t clt_world_add_joint(clt_world_t *world, const clt_joint_def_t *def, clt_joint_id_t *out) {
  if (out) {
    out->index = CLT_NULL_INDEX;
    out->generation = 0;
  }
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  if (!def) return FAIL("joint: def must not be NULL");
  char label[CLT_NAME_SIZE + 32];
  if (def->name && def->name[0])
    snprintf(label, sizeof label, "joint '%.63s'", def->name);
  else
    snprintf(label, sizeof label, "joint #%d", world->joint_count);
  const clt_joint_ops_t *ops = clt_joint_ops(def->type);
  if (!ops) return FAIL("%s: type is not a known joint type (got %d)", label, (int)def->type);
  if (world->dimension == 2 ? !ops->allowed_2d : !ops->allowed_3d)
    return FAIL("%s: a %s joint is not available in a %dD world", label, ops->name, world->dimension);
  if (!clt_v3_isfinite(def->anchor_a) || !clt_v3_isfinite(def->anchor_b) || !clt_v3_isfinite(def->axis_a) ||
      !clt_v3_isfinite(def->axis_b) || !isfinite(def->distance))
    return FAIL("%s: every numeric field must be finite", label);
  /* world.h limits: anchors and the distance are lengths; an axis is a direction whose length
   * must stay finite when it is normalized. */
  for (int k = 0; k < 3; k++)
    if (!(fabs(def->anchor_a[k]) <= CLT_MAX_LENGTH && fabs(def->anchor_b[k]) <= CLT_MAX_LENGTH))
      return FAIL("%s: anchor_a and anchor_b must be within %g m (CLT_MAX_LENGTH)", label, CLT_MAX_LENGTH);
  if (!(def->distance <= CLT_MAX_LENGTH))
    return FAIL("%s: distance must be <= %g m (CLT_MAX_LENGTH; got %g)", label, CLT_MAX_LENGTH, def->distance);
  if (!isfinite(clt_v3_norm(def->axis_a)) || !isfinite(clt_v3_norm(def->axis_b)))
    return FAIL("%s: axis_a and axis_b must have a finite length", label);
  clt_status_t checked = check_actuation(world, def->type, &def->limit, &def->motor, label);
  if (checked != CLT_OK) return checked;
  clt_joint_rec_t rec;
  memset(&rec, 0, sizeof rec);
  rec.type = def->type;
  rec.limit = def->limit;
  rec.motor = def->motor;
  rec.generation = 1;
  rec.collide_connected = def->collide_connected;
  if (def->name) snprintf(rec.name, sizeof rec.name, "%s", def->name);
  char what[CLT_NAME_SIZE + 48];
  snprintf(what, sizeof what, "%s: body_a", label);
  clt_status_t st = clt_world_resolve_body(world, def->body_a, false, what, &rec.body_a);
  if (st != CLT_OK) return st;
  snprintf(what, sizeof what, "%s: body_b", label);
  st = clt_world_resolve_body(world, def->body_b, true, what, &rec.body_b);
  if (st != CLT_OK) return st;
  if (rec.body_a == rec.body_b) return FAIL("%s: body_a and body_b must be different bodies", label);
  if (world->dimension == 2 && (def->anchor_a[2] != 0.0 || def->anchor_b[2] != 0.0))
    return FAIL("%s: anchor_a[2] and anchor_b[2] must be 0 in a 2D world", label);
  clt_body_point_from_def(world, rec.body_a, def->anchor_a, rec.anchor_a);
  clt_body_point_from_def(world, rec.body_b, def->anchor_b, rec.anchor_b);
  if (world->dimension == 3) {
    if (ops->uses_axis && !(clt_v3_norm(def->axis_a) > 1e-12 && clt_v3_norm(def->axis_b) > 1e-12))
      return FAIL("%s: axis_a and axis_b must be non-zero", label);
    double axis_a[3] = {0.0, 0.0, 1.0}, axis_b[3] = {0.0, 0.0, 1.0};
    if (clt_v3_norm(def->axis_a) > 1e-12) clt_v3_scale(axis_a, def->axis_a, 1.0 / clt_v3_norm(def->axis_a));
    if (clt_v3_norm(def->axis_b) > 1e-12) clt_v3_scale(axis_b, def->axis_b, 1.0 / clt_v3_norm(def->axis_b));
    clt_body_vector_from_def(world, rec.body_a, axis_a, rec.axis_a);
    clt_body_vector_from_def(world, rec.body_b, axis_b, rec.axis_b);
    clt_v3_basis(rec.axis_a, rec.perp_a[0], rec.perp_a[1]);
    clt_v3_basis(rec.axis_b, rec.perp_b[0], rec.perp_b[1]);
    double ra[4], rb[4], inv[4];
    clt_joint_orientation(world, rec.body_a, ra);
    clt_joint_orientation(world, rec.body_b, rb);
    clt_q_conj(inv, ra);
    clt_q_mul(rec.relative_orientation, inv, rb);
    clt_q_normalize(rec.relative_orientation);
  } else if (def->type == CLT_JOINT_PRISMATIC) { /* 2D: the slide axis in the plane, A's frame */
    double n = hypot(def->axis_a[0], def->axis_a[1]);
    if (def->axis_a[2] != 0.0 || !(n > 1e-12))
      return FAIL("%s: a 2D prismatic joint needs axis_a in the plane, non-zero, with axis_a[2] = 0", label);
    clt_v3_set(rec.axis_a, def->axis_a[0] / n, def->axis_a[1] / n, 0.0);
    clt_v3_copy(rec.axis_b, rec.axis_a);
    clt_v3_set(rec.perp_a[0], -rec.axis_a[1], rec.axis_a[0], 0.0);
    clt_q_identity(rec.relative_orientation);
    rec.angle0 = planar_angle(world, rec.body_b) - planar_angle(world, rec.body_a);
  } else {
    rec.axis_a[2] = rec.axis_b[2] = 1.0;
    clt_q_identity(rec.relative_orientation);
    rec.angle0 = planar_angle(world, rec.body_b) - planar_angle(world, rec.body_a);
  }
  if (def->type == CLT_JOINT_DISTANCE) {
    if (def->distance < 0.0) {
      double pa[3], pb[3], d[3];
      clt_joint_anchors(world, &rec, pa, pb);
      clt_v3_sub(d, pa, pb);
      rec.distance = clt_v3_norm(d);
    } else {
      rec.distance = def->distance;
    }
  }
  if (!clt_grow((void **)&world->joints, &world->joint_capacity, world->joint_count + 1, sizeof *world->joints))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "%s: out of memory", label);
  world->joints[world->joint_count] = rec;
  if (out) {
    out->index = (uint32_t)world->joint_count;
    out->generation = rec.generation;
  }
  world->joint_count++;
  clt_world_state_changed(world);
  /* joint rows are solved through LAPACK (stage_joint_rows.c): open it now, not in the first step */
  clt_algebra_prepare();
  return CLT_OK;
}

int clt_joint_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t rows[6]) {
  memset(rows, 0, 6 * sizeof *rows);
  return clt_joint_ops(joint->type)->rows(world, joint, rows);
}

void clt_point_row(const clt_world_t *world, int body, const double local[3], const double n[3], double sign,
                   double linear[3], double angular[3]) {
  if (body < 0) return;
  const clt_body_state_t *s = &world->states[body];
  if (world->dimension == 2) {
    double rho[2];
    clt_rot2(rho, s->angle, local);
    linear[0] += sign * n[0];
    linear[1] += sign * n[1];
    angular[0] += sign * (rho[0] * n[1] - rho[1] * n[0]);
  } else {
    double n_body[3], c[3];
    clt_q_rotate_inv(n_body, s->orientation, n);
    clt_v3_cross(c, local, n_body); /* ρ_B × n_B, ρ_B = the body-frame lever arm */
    for (int k = 0; k < 3; k++) {
      linear[k] += sign * n[k];
      angular[k] += sign * c[k];
    }
  }
}

int clt_joint_point_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t *rows) {
  int dim = world->dimension;
  for (int k = 0; k < dim; k++) {
    double e[3] = {0.0, 0.0, 0.0};
    e[k] = 1.0;
    clt_point_row(world, joint->body_a, joint->anchor_a, e, 1.0, rows[k].linear_a, rows[k].angular_a);
    clt_point_row(world, joint->body_b, joint->anchor_b, e, -1.0, rows[k].linear_b, rows[k].angular_b);
  }
  return dim;
}

void clt_joint_rotation_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t rows[3]) {
  /* q_rel = r_A⁻¹ ⊗ r_B, q_err = c ⊗ q_rel with c = rel0⁻¹ constant. With body-frame ω:
   *   q̇_rel = −½ ω_A ⊗ q_rel + ½ q_rel ⊗ ω_B, so
   *   2 q̇_err = q_err ⊗ ω_B − (c ω_A c⁻¹) ⊗ q_err,
   * and for q = (w, v): vec(q ⊗ (0, b)) = (w I + [v]ₓ) b, vec((0, a) ⊗ q) = (w I − [v]ₓ) a. */
  double ra[4], rel[4], c[4], err[4];
  relative_orientation(world, joint, ra, rel);
  clt_q_conj(c, joint->relative_orientation);
  clt_q_mul(err, c, rel);
  if (err[0] < 0.0) /* the same hemisphere choice as clt_joint_rotation_error */
    for (int k = 0; k < 4; k++) err[k] = -err[k];
  double w = err[0], v[3] = {err[1], err[2], err[3]};
  double plus[3][3] = {{w, -v[2], v[1]}, {v[2], w, -v[0]}, {-v[1], v[0], w}};  /* w I + [v]ₓ */
  double minus[3][3] = {{w, v[2], -v[1]}, {-v[2], w, v[0]}, {v[1], -v[0], w}}; /* w I − [v]ₓ */
  double rc[3][3];
  clt_q_to_m3(rc, c);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double a = 0.0;
      for (int k = 0; k < 3; k++) a += minus[i][k] * rc[k][j];
      if (joint->body_a >= 0) rows[i].angular_a[j] = -a;
      if (joint->body_b >= 0) rows[i].angular_b[j] = plus[i][j];
    }
  }
}
