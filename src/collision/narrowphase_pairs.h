/* Private: the pair routines behind clt_collide's table (narrowphase.c). Each works on shapes
 * already placed in the world frame and writes at most CLT_MAX_PAIR_CONTACTS points with Φ ≤
 * max_distance, normals from its first to its second argument, and returns how many; or
 * CLT_COLLIDE_FAILED (negative, nothing written) when it could not compute them. */
#ifndef CLATTER_COLLISION_NARROWPHASE_PAIRS_H
#define CLATTER_COLLISION_NARROWPHASE_PAIRS_H

#include "collision/narrowphase.h"

/* A shape with its world pose: the composition of the body pose and the shape's local pose. */
typedef struct clt_placed_shape_t {
  const clt_shape_def_t *def;
  double position[3];   /* world position of the shape's local origin */
  double rotation[3][3]; /* 3D: local → world */
  double cos_angle;     /* 2D: world angle of the shape frame */
  double sin_angle;
} clt_placed_shape_t;

typedef int (*clt_pair_fn)(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                           clt_contact_point_t *out);

/* 2D (narrowphase_2d.c): disk, segment and polygon are all "rounded convex polygons" (1, 2 or
 * n ≥ 3 core vertices and a radius), so one vertex–feature routine serves all their pairs. */
int clt_collide_round_round_2d(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                               clt_contact_point_t *out);
int clt_collide_round_halfplane_2d(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                   double max_distance, clt_contact_point_t *out);
int clt_collide_ellipse_halfplane_2d(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                     double max_distance, clt_contact_point_t *out);
int clt_collide_ellipse_ellipse_2d(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                   double max_distance, clt_contact_point_t *out);
/* Any two convex 2D shapes (ellipse, disk, segment, polygon), one shared-normal point whose Φ is
 * the exact signed distance, penetration depth included (ellipse_2d.c). */
int clt_collide_convex_2d(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                          clt_contact_point_t *out);
int clt_collide_ellipse_round_2d(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                 clt_contact_point_t *out);

/* 3D (narrowphase_3d.c). */
int clt_collide_sphere_sphere(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                              clt_contact_point_t *out);
int clt_collide_sphere_capsule(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                               clt_contact_point_t *out);
int clt_collide_capsule_capsule(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                clt_contact_point_t *out);
int clt_collide_sphere_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                 clt_contact_point_t *out);
int clt_collide_capsule_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                  double max_distance, clt_contact_point_t *out);
int clt_collide_box_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                              clt_contact_point_t *out);
int clt_collide_sphere_box(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                           clt_contact_point_t *out);
int clt_collide_capsule_box(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                            clt_contact_point_t *out);

/* Polyhedron pairs (convex_pairs.c): a polyhedron with a sphere, capsule, box or polyhedron, and
 * with a half-space. May return CLT_COLLIDE_FAILED (out of memory for a large hull). */
int clt_collide_polytope(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                         clt_contact_point_t *out);
int clt_collide_polyhedron_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                     double max_distance, clt_contact_point_t *out);

/* Cylinder pairs and the other pairs of a curved convex shape with a polytope (convex_smooth.c):
 * cylinder–half-space and cylinder–sphere in closed form; the rest by support functions (GJK apart,
 * EPA in overlap; may return CLT_COLLIDE_FAILED when EPA does not converge). */
int clt_collide_cylinder_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                   clt_contact_point_t *out);
int clt_collide_cylinder_sphere(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                clt_contact_point_t *out);
int clt_collide_support(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                        clt_contact_point_t *out);

/* A triangle mesh (static or kinematic) with a sphere, capsule, box, polyhedron, cylinder or ellipsoid
 * (mesh_pairs.c). */
int clt_collide_mesh(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                     clt_contact_point_t *out);

/* Ellipsoid and torus (ring) pairs: smooth.h (smooth_ellipsoid.c, smooth_torus.c). Unlike the
 * routines above they can fail (no converged shared-normal point): they then return
 * CLT_COLLIDE_FAILED, which clt_collide passes on. */

/* Box–box separating-axis value (box_box.c): the largest separation of the two boxes' projections
 * over the 15 axes (> 0 apart; for overlapping boxes minus the penetration depth), and that axis,
 * unit, from A to B. Exposed for the tests. */
double clt_box_box_separation(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double axis[3]);

/* Places a shape: composes the body pose with the shape's local pose. */
void clt_place_shape(const clt_shape_def_t *def, const clt_collide_pose_t *pose, int dimension,
                     clt_placed_shape_t *out);

#endif
