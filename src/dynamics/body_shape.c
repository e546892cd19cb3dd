/* Shape edits of existing bodies: the capsule length of a growing cell (SPEC.md §6.3, 002 §5.4).
 *
 * A body is stored in its principal frame (SPEC.md §0, world_internal.h). Changing a shape changes
 * the mass properties; for the common case (a single capsule, or any body whose centre of mass and
 * principal axes do not move) only the mass and the principal moments change. When they do move
 * (a capsule placed off-centre in a composite body), the principal frame is moved to the new
 * centre of mass and axes, exactly as clt_world_add_body would have placed it, and everything
 * expressed in that frame (shapes, joint and force anchors, the state) is re-expressed so that the
 * body's pose in the world and its velocities do not change. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dynamics/world_internal.h"
#include "geometry/shape.h"
#include "math/vec.h"

/* Mass, centre of mass and inertia tensor (about that centre, principal-frame axes) of a body's
 * stored shapes, in its current principal frame. */
static void principal_mass(const clt_world_t *world, int body, double *mass, double com[3],
                           double inertia[3][3]) {
  const clt_body_rec_t *b = &world->bodies[body];
  clt_mass_props_t props[CLT_MAX_SHAPES_PER_BODY];
  double centre[CLT_MAX_SHAPES_PER_BODY][3];
  *mass = 0.0;
  clt_v3_set(com, 0.0, 0.0, 0.0);
  memset(inertia, 0, 9 * sizeof(double));
  for (int i = 0; i < b->shape_count; i++) {
    const clt_shape_def_t *s = clt_world_shape(world, b->shape_first + i);
    const clt_shape_ops_t *ops = clt_shape_ops(s->type);
    memset(&props[i], 0, sizeof props[i]);
    clt_v3_set(centre[i], 0.0, 0.0, 0.0);
    if (!ops || !ops->mass_properties) continue;
    double density = s->material >= 0 ? world->materials[s->material].density : world->default_material.density;
    ops->mass_properties(s, density, &props[i]);
    double cr[3];
    clt_q_rotate(cr, s->local_orientation, props[i].centroid);
    clt_v3_add(centre[i], s->local_position, cr);
    *mass += props[i].mass;
    clt_v3_axpy(com, com, props[i].mass, centre[i]);
  }
  if (!(*mass > 0.0)) return;
  clt_v3_scale(com, com, 1.0 / *mass);
  for (int i = 0; i < b->shape_count; i++) {
    if (props[i].mass == 0.0) continue;
    const clt_shape_def_t *s = clt_world_shape(world, b->shape_first + i);
    double d[3], r[3][3], rotated[3][3];
    clt_v3_sub(d, centre[i], com);
    double d2 = clt_v3_dot(d, d);
    clt_q_to_m3(r, s->local_orientation);
    clt_m3_rotate_tensor(rotated, r, props[i].inertia);
    for (int a = 0; a < 3; a++)
      for (int c = 0; c < 3; c++)
        inertia[a][c] += rotated[a][c] + props[i].mass * ((a == c ? d2 : 0.0) - d[a] * d[c]);
  }
}

/* Moves body `body`'s principal frame to origin c and axes e (columns, old-frame coordinates):
 * shapes, joint and force anchors and the state are re-expressed; the world pose is unchanged. */
static void move_frame(clt_world_t *world, int body, const double c[3], const double e[3][3]) {
  clt_body_rec_t *b = &world->bodies[body];
  double qe[4], qe_inv[4];
  clt_m3_to_q(qe, e);
  clt_q_normalize(qe);
  clt_q_conj(qe_inv, qe);
  for (int i = 0; i < b->shape_count; i++) {
    clt_shape_def_t moved = *clt_world_shape(world, b->shape_first + i), *s = &moved;
    double d[3];
    clt_v3_sub(d, s->local_position, c);
    clt_m3_mulv_t(s->local_position, e, d);
    clt_q_mul(s->local_orientation, qe_inv, s->local_orientation);
    clt_q_normalize(s->local_orientation);
    clt_world_set_shape(world, b->shape_first + i, s); /* cannot fail: clt_world_reserve_shape_edits */
  }
  for (int j = 0; j < world->joint_count; j++) {
    clt_joint_rec_t *jr = &world->joints[j];
    double d[3];
    if (jr->body_a == body) {
      clt_v3_sub(d, jr->anchor_a, c);
      clt_m3_mulv_t(jr->anchor_a, e, d);
      clt_v3_copy(d, jr->axis_a);
      clt_m3_mulv_t(jr->axis_a, e, d);
      for (int k = 0; k < 2; k++) {
        clt_v3_copy(d, jr->perp_a[k]);
        clt_m3_mulv_t(jr->perp_a[k], e, d);
      }
      clt_q_mul(jr->relative_orientation, qe_inv, jr->relative_orientation); /* r_A⁻¹ ⊗ r_B */
    }
    if (jr->body_b == body) {
      clt_v3_sub(d, jr->anchor_b, c);
      clt_m3_mulv_t(jr->anchor_b, e, d);
      clt_v3_copy(d, jr->axis_b);
      clt_m3_mulv_t(jr->axis_b, e, d);
      for (int k = 0; k < 2; k++) {
        clt_v3_copy(d, jr->perp_b[k]);
        clt_m3_mulv_t(jr->perp_b[k], e, d);
      }
      clt_q_mul(jr->relative_orientation, jr->relative_orientation, qe);
    }
  }
  for (int f = 0; f < world->force_count; f++) {
    clt_force_rec_t *fr = &world->forces[f];
    double d[3];
    /* anchors are points; the rotational spring's axis and reference vectors are directions */
    if (fr->body_a == body) {
      clt_v3_sub(d, fr->anchor_a, c);
      clt_m3_mulv_t(fr->anchor_a, e, d);
      clt_v3_copy(d, fr->axis_a);
      clt_m3_mulv_t(fr->axis_a, e, d);
      clt_v3_copy(d, fr->perp_a);
      clt_m3_mulv_t(fr->perp_a, e, d);
    }
    if (fr->body_b == body) {
      clt_v3_sub(d, fr->anchor_b, c);
      clt_m3_mulv_t(fr->anchor_b, e, d);
      clt_v3_copy(d, fr->axis_b);
      clt_m3_mulv_t(fr->axis_b, e, d);
      clt_v3_copy(d, fr->perp_b);
      clt_m3_mulv_t(fr->perp_b, e, d);
    }
  }
  /* Definition frame → principal frame map: p_principal = R(frame_rotation)ᵀ(p_def − frame_offset).
   * Cannot fail: clt_body_set_capsule_length made room for the record. */
  clt_body_extra_t *x = clt_body_extra_mut(world, body);
  double shift[3];
  clt_q_rotate(shift, x->frame_rotation, c);
  clt_v3_add(x->frame_offset, x->frame_offset, shift);
  clt_q_mul(x->frame_rotation, x->frame_rotation, qe);
  clt_q_normalize(x->frame_rotation);
  /* State: the new origin's position and velocity, the new axes. */
  clt_body_state_t *s = &world->states[body];
  double r[3], w_world[3], wxr[3];
  clt_q_rotate(r, s->orientation, c);
  clt_q_rotate(w_world, s->orientation, s->angular_velocity);
  clt_v3_cross(wxr, w_world, r);
  clt_v3_add(s->position, s->position, r);
  clt_v3_add(s->velocity, s->velocity, wxr);
  clt_q_mul(s->orientation, s->orientation, qe);
  clt_q_normalize(s->orientation);
  double w_body[3];
  clt_v3_copy(w_body, s->angular_velocity);
  clt_m3_mulv_t(s->angular_velocity, e, w_body);
}

clt_status_t clt_body_set_capsule_length(clt_world_t *world, clt_body_id_t body, int shape_index, double length) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  int index;
  clt_status_t st = clt_world_resolve_body(world, body, false, "set_capsule_length", &index);
  if (st != CLT_OK) return st;
  clt_body_rec_t *b = &world->bodies[index];
  char label[CLT_NAME_SIZE + 32];
  clt_body_label(world, index, label, sizeof label);
  if (b->type != CLT_BODY_DYNAMIC)
    return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT,
                          "%s: set_capsule_length: only dynamic bodies can change shape", label);
  if (shape_index < 0 || shape_index >= b->shape_count)
    return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT,
                          "%s: set_capsule_length: shape index %d out of range [0, %d)", label, shape_index,
                          b->shape_count);
  /* Copy-on-write (shape_store.c): the description may be shared with other bodies' shapes. */
  int shape_id = b->shape_first + shape_index;
  clt_shape_def_t next_shape = *clt_world_shape(world, shape_id), *shape = &next_shape;
  if (shape->type != CLT_SHAPE_CAPSULE)
    return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT,
                          "%s: set_capsule_length: shapes[%d] is a %s, not a capsule", label, shape_index,
                          clt_shape_type_name(shape->type));
  if (!(length >= 0.0 && length <= CLT_MAX_LENGTH))
    return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT,
                          "%s: set_capsule_length: length must be >= 0 and <= %g m (CLT_MAX_LENGTH; got %g)", label,
                          CLT_MAX_LENGTH, length);

  /* One new description for this shape and, if the frame moves, one per shape of the body. */
  if (!clt_world_reserve_shape_edits(world, b->shape_count + 1))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "%s: set_capsule_length: out of memory", label);
  double old_length = shape->length;
  shape->length = length;
  clt_world_set_shape(world, shape_id, shape);
  double mass, com[3], inertia[3][3];
  principal_mass(world, index, &mass, com, inertia);
  if (!(mass >= CLT_MIN_MASS && mass <= CLT_MAX_MASS)) {
    shape->length = old_length;
    clt_world_set_shape(world, shape_id, shape);
    return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT,
                          "%s: set_capsule_length: the new shapes give mass %g, outside [%g, %g] kg (CLT_MIN_MASS, "
                          "CLT_MAX_MASS)", label, mass, CLT_MIN_MASS, CLT_MAX_MASS);
  }
  /* The frame moves only if the centre of mass or the principal axes did (composite bodies):
   * relative thresholds at the level of round-off, so a single capsule keeps its frame exactly. */
  double scale = inertia[0][0] + inertia[1][1] + inertia[2][2];
  double size = sqrt(scale / mass);
  double off = fabs(inertia[0][1]) + fabs(inertia[0][2]) + fabs(inertia[1][2]);
  bool shifted = clt_v3_norm(com) > 1e-14 * size;
  bool rotated = off > 1e-13 * scale;
  double values[3] = {inertia[0][0], inertia[1][1], inertia[2][2]};
  /* A moved frame is kept out of line (world_internal.h clt_body_extra_t): room for it first. */
  if ((shifted || rotated) && b->extra < 0 &&
      !clt_grow((void **)&world->body_extras, &world->body_extra_capacity, world->body_extra_count + 1,
                sizeof *world->body_extras)) {
    shape->length = old_length;
    clt_world_set_shape(world, shape_id, shape);
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "%s: set_capsule_length: out of memory", label);
  }
  if (shifted || rotated) {
    double e[3][3];
    if (rotated) {
      clt_m3_sym_eigen(inertia, values, e);
    } else {
      clt_m3_identity(e);
    }
    move_frame(world, index, com, e);
  }
  for (int i = 0; i < 3; i++) {
    if (!(values[i] > 0.0 && isfinite(values[i]))) {
      /* Unreachable for a capsule of radius > 0; kept as a guard on the data. */
      return clt_world_fail(world, CLT_ERR_NUMERICAL,
                            "%s: set_capsule_length: degenerate inertia (principal moment %d is %g)", label,
                            i, values[i]);
    }
  }
  b->mass = mass;
  b->inv_mass = 1.0 / mass;
  for (int i = 0; i < 3; i++) {
    b->inertia[i] = values[i];
    b->inv_inertia[i] = 1.0 / values[i];
  }
  /* Drag (SPEC.md §6.1): a body whose def gave no drag (all zero) uses the default drag computed
   * from its shapes by the overdamped law's code (src/dynamics/drag.c), which reads the stored
   * shapes, so the new length is taken into account there; explicitly given drag is kept. */
  clt_world_state_changed(world);
  return CLT_OK;
}
