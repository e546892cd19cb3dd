/* Narrow phase (SPEC.md §5): contact points between two placed shapes.
 *
 * A query between shape A on a body at pose_a and shape B at pose_b returns zero or more contact
 * points, each with
 *   Φ  signed distance (> 0 apart, < 0 overlapping) [m],
 *   n  unit normal from A to B (world frame),
 *   p_A, p_B witness points on the surfaces of A and B (world frame), with p_B − p_A = Φ n.
 * The rate of Φ along a motion is n·(ṗ_B − ṗ_A), which is the contact row of SPEC.md §0/§1.
 *
 * What a pair produces (the pair table is in narrowphase.c):
 *  - smooth convex pairs (disk, ellipse, sphere, capsule, ellipsoid with their own kind and each
 *    other within a dimension, ellipse with a polygon or segment, disk with a polygon or segment,
 *    sphere with a box): one shared-normal point (002 §2.1.6): outward normals anti-parallel and
 *    parallel to p_B − p_A; Φ is the exact signed distance (penetration depth when overlapping).
 *    Ellipsoid pairs (smooth_ellipsoid.c) are iterative and report failure: no point is ever made
 *    from an unconverged iteration (clt_collide then returns CLT_COLLIDE_FAILED);
 *  - polygon / segment pairs (2D): a reference-edge manifold of at most 2 points (narrowphase_2d.c):
 *    the edge of either core whose line separates the other the most gives the normal, the other
 *    core's most anti-parallel edge is clipped to it, and each kept point is a vertex–edge pair
 *    (004 §1.1) measured along that normal; the smallest Φ is the signed distance, apart and in
 *    overlap. Corners on corners, shared edges and parallel faces get the face normal exactly;
 *    cores apart whose closest features are two vertices get that single pair instead. A rounded
 *    shape's point (segment radius) lies on its core offset by the radius;
 *  - plane pairs: one point per vertex / end cap / support point within range (box: the 4
 *    deepest corners);
 *  - capsule–box: each end cap, plus the axis point closest to the box when nearer than both;
 *  - torus (ring) with a torus, a sphere or a capsule: one point at the closest points of the
 *    centre circle and the other's core (002 §5.5; Φ = core distance − radii, exact also for
 *    linked rings; smooth_torus.c, may fail like the ellipsoid pairs); with a half-space: up to 4
 *    points, the lowest centreline point and the quarter turns from it, each within range (a ring
 *    lying flat rests on a square of points around its centre instead of rocking on one);
 *  - ellipsoid–box: one point, the maximum of the support separation over the box's faces, edges
 *    and vertices (smooth_ellipsoid.c; may fail like the other ellipsoid pairs);
 *  - polytope pairs (polyhedron with polyhedron, box, sphere, capsule; box–box; convex_pairs.c): a
 *    face manifold of up to 4 points or one edge–edge point, the exact signed distance and its
 *    witnesses always among the points (docs/shapes.md "Contacts");
 *  - cylinder pairs and polyhedron–ellipsoid (convex_smooth.c): cylinder–half-space up to 4 rim
 *    points, cylinder–sphere in closed form, the rest one exact point by support functions (GJK,
 *    EPA, an ascent of the support separation) plus an end or side manifold on a polytope face;
 *  - not implemented yet (clt_collide returns CLT_COLLIDE_UNSUPPORTED): torus with a box, an
 *    ellipsoid, a cylinder or a polyhedron, and 2D with 3D shapes.
 * Half-planes / half-spaces: the solid lies opposite to their (outward) normal through point. */
#ifndef CLATTER_COLLISION_NARROWPHASE_H
#define CLATTER_COLLISION_NARROWPHASE_H

#include <stdbool.h>

#include "clatter/world.h"

/* Most points any pair of the table can produce before truncation (polygon–polygon: one per
 * vertex of each, plus a fallback). */
#define CLT_MAX_PAIR_CONTACTS (2 * CLT_MAX_POLYGON_VERTICES + 1)

/* Pose of the body that carries a shape (SPEC.md §0): position[0..1] and angle in 2D; position
 * and unit quaternion orientation (w, x, y, z), body → world, in 3D. The shape's own local pose
 * (local_position, local_angle / local_orientation of its def) is composed with it. */
typedef struct clt_collide_pose_t {
  double position[3];
  double angle;
  double orientation[4];
} clt_collide_pose_t;

typedef struct clt_contact_point_t {
  double distance;    /* Φ [m] */
  double normal[3];   /* unit, from A to B, world frame (2D: [2] = 0) */
  double point_a[3];  /* p_A on the surface of A, world frame */
  double point_b[3];  /* p_B on the surface of B, world frame; p_B − p_A = Φ n */
  /* Stable id of the feature pair that produced the point (e.g. vertex i of A against B), the same
   * from step to step while the configuration does not change topology: for warm starts and
   * restitution memory. Always in terms of the caller's A and B (not the table's order). */
  int feature;
} clt_contact_point_t;

/* Negative returns of clt_collide (nothing is written to out then). */
#define CLT_COLLIDE_UNSUPPORTED (-1) /* the pair of shape types is not in the table */
#define CLT_COLLIDE_FAILED (-2)      /* an iterative pair did not converge, or bad shape data / pose */

/* Contact points of shape a (on a body at pose_a) against shape b (at pose_b) whose Φ ≤
 * max_distance (the active-set ε̂ of SPEC.md §1; the infeasibility report passes a large value).
 * Writes at most capacity points to out, keeping the deepest ones when there are more (ties by
 * generation order), and returns how many it wrote (≥ 0). Returns CLT_COLLIDE_UNSUPPORTED (−1)
 * when the pair of shape types is not in the table (e.g. a 2D shape against a 3D one, or shapes
 * whose narrow phase is not implemented; clt_collide_supported tells in advance), and
 * CLT_COLLIDE_FAILED (−2) when the pair's routine found no trustworthy answer (the ellipsoid and
 * ring iterations did not converge, or a non-finite pose / non-positive size): the caller must not
 * take that as "no contact" silently. The output is a deterministic function of the inputs. */
int clt_collide(const clt_shape_def_t *a, const clt_collide_pose_t *pose_a, const clt_shape_def_t *b,
                const clt_collide_pose_t *pose_b, double max_distance, clt_contact_point_t *out,
                int capacity);

/* Whether clt_collide handles this pair of shape types (in either order). Two unbounded shapes
 * (half-plane/half-plane, half-space/half-space) are "handled" and never touch (0 points). */
bool clt_collide_supported(clt_shape_type_t a, clt_shape_type_t b);

/* World-frame axis-aligned bounds of a placed shape, for the broad phase. Returns false for
 * unbounded shapes (half-plane / half-space), whose bounds are then ±infinity. 2D shapes set
 * [2] to 0. */
bool clt_shape_bounds(const clt_shape_def_t *shape, const clt_collide_pose_t *pose, double lower[3],
                      double upper[3]);

#endif
