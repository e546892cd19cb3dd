/* The narrow-phase pair table and dispatcher (SPEC.md §5): places both shapes in the world frame,
 * picks the routine for the pair of types (swapping A and B when the table lists the pair the
 * other way round), and keeps the deepest `capacity` points; a routine's failure is passed on as
 * CLT_COLLIDE_FAILED. */
#include "collision/narrowphase.h"

#include <math.h>
#include <string.h>

#include "collision/collision_math.h"
#include "collision/narrowphase_pairs.h"
#include "collision/smooth.h"

typedef struct pair_entry_t {
  clt_shape_type_t a, b;
  clt_pair_fn fn; /* NULL: a supported pair that never touches (two unbounded shapes) */
} pair_entry_t;

/* The pair table, one row per unordered pair of types; (a, b) is the argument order of fn. */
static const pair_entry_t pair_table[] = {
    /* 2D */
    {CLT_SHAPE_DISK, CLT_SHAPE_DISK, clt_collide_round_round_2d},
    {CLT_SHAPE_DISK, CLT_SHAPE_SEGMENT, clt_collide_round_round_2d},
    {CLT_SHAPE_DISK, CLT_SHAPE_POLYGON, clt_collide_round_round_2d},
    {CLT_SHAPE_SEGMENT, CLT_SHAPE_SEGMENT, clt_collide_round_round_2d},
    {CLT_SHAPE_SEGMENT, CLT_SHAPE_POLYGON, clt_collide_round_round_2d},
    {CLT_SHAPE_POLYGON, CLT_SHAPE_POLYGON, clt_collide_round_round_2d},
    {CLT_SHAPE_DISK, CLT_SHAPE_HALFPLANE, clt_collide_round_halfplane_2d},
    {CLT_SHAPE_SEGMENT, CLT_SHAPE_HALFPLANE, clt_collide_round_halfplane_2d},
    {CLT_SHAPE_POLYGON, CLT_SHAPE_HALFPLANE, clt_collide_round_halfplane_2d},
    {CLT_SHAPE_ELLIPSE, CLT_SHAPE_HALFPLANE, clt_collide_ellipse_halfplane_2d},
    {CLT_SHAPE_ELLIPSE, CLT_SHAPE_ELLIPSE, clt_collide_ellipse_ellipse_2d},
    {CLT_SHAPE_ELLIPSE, CLT_SHAPE_DISK, clt_collide_ellipse_round_2d},
    {CLT_SHAPE_ELLIPSE, CLT_SHAPE_SEGMENT, clt_collide_ellipse_round_2d},
    {CLT_SHAPE_ELLIPSE, CLT_SHAPE_POLYGON, clt_collide_ellipse_round_2d},
    {CLT_SHAPE_HALFPLANE, CLT_SHAPE_HALFPLANE, NULL},
    /* 3D */
    {CLT_SHAPE_SPHERE, CLT_SHAPE_SPHERE, clt_collide_sphere_sphere},
    {CLT_SHAPE_SPHERE, CLT_SHAPE_CAPSULE, clt_collide_sphere_capsule},
    {CLT_SHAPE_CAPSULE, CLT_SHAPE_CAPSULE, clt_collide_capsule_capsule},
    {CLT_SHAPE_SPHERE, CLT_SHAPE_HALFSPACE, clt_collide_sphere_halfspace},
    {CLT_SHAPE_CAPSULE, CLT_SHAPE_HALFSPACE, clt_collide_capsule_halfspace},
    {CLT_SHAPE_BOX, CLT_SHAPE_HALFSPACE, clt_collide_box_halfspace},
    {CLT_SHAPE_SPHERE, CLT_SHAPE_BOX, clt_collide_sphere_box},
    {CLT_SHAPE_CAPSULE, CLT_SHAPE_BOX, clt_collide_capsule_box},
    {CLT_SHAPE_BOX, CLT_SHAPE_BOX, clt_collide_polytope},
    /* smooth.h: these may return CLT_COLLIDE_FAILED */
    {CLT_SHAPE_ELLIPSOID, CLT_SHAPE_ELLIPSOID, clt_smooth_ellipsoid_ellipsoid},
    {CLT_SHAPE_ELLIPSOID, CLT_SHAPE_SPHERE, clt_smooth_ellipsoid_sphere},
    {CLT_SHAPE_ELLIPSOID, CLT_SHAPE_CAPSULE, clt_smooth_ellipsoid_capsule},
    {CLT_SHAPE_ELLIPSOID, CLT_SHAPE_HALFSPACE, clt_smooth_ellipsoid_halfspace},
    {CLT_SHAPE_ELLIPSOID, CLT_SHAPE_BOX, clt_smooth_ellipsoid_box},
    {CLT_SHAPE_TORUS, CLT_SHAPE_TORUS, clt_smooth_torus_torus},
    {CLT_SHAPE_TORUS, CLT_SHAPE_SPHERE, clt_smooth_torus_sphere},
    {CLT_SHAPE_TORUS, CLT_SHAPE_CAPSULE, clt_smooth_torus_capsule},
    {CLT_SHAPE_TORUS, CLT_SHAPE_HALFSPACE, clt_smooth_torus_halfspace},
    {CLT_SHAPE_HALFSPACE, CLT_SHAPE_HALFSPACE, NULL},
    /* convex_pairs.c */
    {CLT_SHAPE_POLYHEDRON, CLT_SHAPE_POLYHEDRON, clt_collide_polytope},
    {CLT_SHAPE_POLYHEDRON, CLT_SHAPE_BOX, clt_collide_polytope},
    {CLT_SHAPE_POLYHEDRON, CLT_SHAPE_SPHERE, clt_collide_polytope},
    {CLT_SHAPE_POLYHEDRON, CLT_SHAPE_CAPSULE, clt_collide_polytope},
    {CLT_SHAPE_POLYHEDRON, CLT_SHAPE_HALFSPACE, clt_collide_polyhedron_halfspace},
    /* convex_smooth.c */
    {CLT_SHAPE_CYLINDER, CLT_SHAPE_HALFSPACE, clt_collide_cylinder_halfspace},
    {CLT_SHAPE_CYLINDER, CLT_SHAPE_SPHERE, clt_collide_cylinder_sphere},
    {CLT_SHAPE_CYLINDER, CLT_SHAPE_CAPSULE, clt_collide_support},
    {CLT_SHAPE_CYLINDER, CLT_SHAPE_BOX, clt_collide_support},
    {CLT_SHAPE_CYLINDER, CLT_SHAPE_POLYHEDRON, clt_collide_support},
    {CLT_SHAPE_CYLINDER, CLT_SHAPE_CYLINDER, clt_collide_support},
    {CLT_SHAPE_CYLINDER, CLT_SHAPE_ELLIPSOID, clt_collide_support},
    {CLT_SHAPE_POLYHEDRON, CLT_SHAPE_ELLIPSOID, clt_collide_support},
    /* mesh_pairs.c (meshes belong to static or kinematic bodies: with each other and with a
     * half-space they never collide) */
    {CLT_SHAPE_MESH, CLT_SHAPE_SPHERE, clt_collide_mesh},
    {CLT_SHAPE_MESH, CLT_SHAPE_CAPSULE, clt_collide_mesh},
    {CLT_SHAPE_MESH, CLT_SHAPE_BOX, clt_collide_mesh},
    {CLT_SHAPE_MESH, CLT_SHAPE_POLYHEDRON, clt_collide_mesh},
    {CLT_SHAPE_MESH, CLT_SHAPE_CYLINDER, clt_collide_mesh},
    {CLT_SHAPE_MESH, CLT_SHAPE_ELLIPSOID, clt_collide_mesh},
    {CLT_SHAPE_MESH, CLT_SHAPE_MESH, NULL},
    {CLT_SHAPE_MESH, CLT_SHAPE_HALFSPACE, NULL},
};

static const int pair_table_size = (int)(sizeof pair_table / sizeof pair_table[0]);

/* Row of the table for (a, b) in either order; *swapped tells which. */
static const pair_entry_t *find_pair(clt_shape_type_t a, clt_shape_type_t b, bool *swapped) {
  for (int i = 0; i < pair_table_size; i++) {
    if (pair_table[i].a == a && pair_table[i].b == b) {
      *swapped = false;
      return &pair_table[i];
    }
    if (pair_table[i].a == b && pair_table[i].b == a) {
      *swapped = true;
      return &pair_table[i];
    }
  }
  return NULL;
}

bool clt_collide_supported(clt_shape_type_t a, clt_shape_type_t b) {
  bool swapped;
  return find_pair(a, b, &swapped) != NULL;
}

static int shape_dimension(clt_shape_type_t t) {
  switch (t) {
    case CLT_SHAPE_DISK:
    case CLT_SHAPE_HALFPLANE:
    case CLT_SHAPE_SEGMENT:
    case CLT_SHAPE_ELLIPSE:
    case CLT_SHAPE_POLYGON:
      return 2;
    default:
      return 3;
  }
}

void clt_place_shape(const clt_shape_def_t *def, const clt_collide_pose_t *pose, int dimension,
                     clt_placed_shape_t *out) {
  memset(out, 0, sizeof *out);
  out->def = def;
  if (dimension == 2) {
    double c = cos(pose->angle), s = sin(pose->angle);
    double local[2] = {def->local_position[0], def->local_position[1]};
    double world[2];
    clt_c2_rot(world, c, s, local);
    out->position[0] = pose->position[0] + world[0];
    out->position[1] = pose->position[1] + world[1];
    double angle = pose->angle + def->local_angle;
    out->cos_angle = cos(angle);
    out->sin_angle = sin(angle);
    out->rotation[0][0] = out->cos_angle;
    out->rotation[0][1] = -out->sin_angle;
    out->rotation[1][0] = out->sin_angle;
    out->rotation[1][1] = out->cos_angle;
    out->rotation[2][2] = 1.0;
    return;
  }
  /* A zero quaternion (a def built without clt_default_shape_def) counts as the identity. */
  double qb[4], ql[4], q[4];
  clt_q_copy(qb, pose->orientation);
  clt_q_copy(ql, def->local_orientation);
  if (!(clt_q_norm(qb) > 0.0)) clt_q_identity(qb);
  if (!(clt_q_norm(ql) > 0.0)) clt_q_identity(ql);
  clt_q_normalize(qb);
  clt_q_normalize(ql);
  double offset[3];
  clt_q_rotate(offset, qb, def->local_position);
  clt_v3_add(out->position, pose->position, offset);
  clt_q_mul(q, qb, ql);
  clt_q_normalize(q);
  clt_q_to_m3(out->rotation, q);
}

/* Mirrors a point computed for (B, A) into the caller's (A, B) order. */
static void swap_point(clt_contact_point_t *c) {
  double tmp[3];
  clt_v3_copy(tmp, c->point_a);
  clt_v3_copy(c->point_a, c->point_b);
  clt_v3_copy(c->point_b, tmp);
  clt_v3_scale(c->normal, c->normal, -1.0);
  /* Feature ids are built as side·K + index by the pair routines; swapping the roles of the two
   * shapes keeps them unique, which is all a warm start needs. */
}

int clt_collide(const clt_shape_def_t *a, const clt_collide_pose_t *pose_a, const clt_shape_def_t *b,
                const clt_collide_pose_t *pose_b, double max_distance, clt_contact_point_t *out,
                int capacity) {
  bool swapped;
  const pair_entry_t *entry = find_pair(a->type, b->type, &swapped);
  if (!entry) return CLT_COLLIDE_UNSUPPORTED;
  if (!entry->fn || capacity <= 0) return 0;
  int dim = shape_dimension(a->type);
  clt_placed_shape_t pa, pb;
  clt_place_shape(a, pose_a, dim, &pa);
  clt_place_shape(b, pose_b, dim, &pb);

  clt_contact_point_t buffer[CLT_MAX_PAIR_CONTACTS];
  int count = swapped ? entry->fn(&pb, &pa, max_distance, buffer) : entry->fn(&pa, &pb, max_distance, buffer);
  /* A failed iterative pair (smooth.h) writes nothing usable: pass the failure on, never a count. */
  if (count < 0) return CLT_COLLIDE_FAILED;
  if (swapped)
    for (int i = 0; i < count; i++) swap_point(&buffer[i]);

  if (count <= capacity) {
    memcpy(out, buffer, (size_t)count * sizeof *buffer);
    return count;
  }
  /* Keep the `capacity` deepest points, in generation order (stable, so deterministic). */
  bool keep[CLT_MAX_PAIR_CONTACTS] = {false};
  for (int k = 0; k < capacity; k++) {
    int best = -1;
    for (int i = 0; i < count; i++)
      if (!keep[i] && (best < 0 || buffer[i].distance < buffer[best].distance)) best = i;
    keep[best] = true;
  }
  int written = 0;
  for (int i = 0; i < count; i++)
    if (keep[i]) out[written++] = buffer[i];
  return written;
}
