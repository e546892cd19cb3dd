/* Private: polytope cores of the polyhedron pairs (convex_pairs.c, convex_smooth.c). A polyhedron
 * or a box (radius 0), a sphere (a point core) or a capsule (a segment core), placed in the world
 * frame: vertices, face planes (boxes and polyhedra), edges with their two faces. */
#ifndef CLATTER_COLLISION_CONVEX_CORE_H
#define CLATTER_COLLISION_CONVEX_CORE_H

#include <stdbool.h>
#include <stddef.h>

#include "collision/narrowphase_pairs.h"

#define CLT_CORE_INLINE 64 /* vertices and faces held without allocating (a box, a hull of ≤ 64) */

typedef struct clt_core_t {
  int nv, nf, ne;
  double (*v)[3];            /* world vertices */
  double (*fn)[3];           /* world outward unit face normals */
  double *fd;                /* face planes fn·x = fd */
  const int *face_start;     /* face f: face_vertices[face_start[f] … face_start[f + 1] − 1] */
  const int *face_vertices;  /* counter-clockwise about the outward normal */
  const int (*edges)[2];
  const int (*edge_faces)[2]; /* NULL for a segment core */
  double radius;             /* sphere and capsule */
  double scale;              /* the shape's size: the scale of the tolerances */
  double centre[3];          /* the mean of the vertices */
  double *heap;              /* the arrays when they are not inline */
  double v_inline[CLT_CORE_INLINE][3], fn_inline[CLT_CORE_INLINE][3], fd_inline[CLT_CORE_INLINE];
} clt_core_t;

/* The core of a placed sphere, capsule, box or polyhedron; false for another type or when out of
 * memory. clt_core_free releases it. */
bool clt_core_make(const clt_placed_shape_t *s, clt_core_t *c);
void clt_core_free(clt_core_t *c);

/* GJK: the distance of the two cores (not counting the radii) and their closest points; false when
 * they overlap or touch (to rounding). */
bool clt_core_distance(const clt_core_t *a, const clt_core_t *b, double pa[3], double pb[3], double *distance);

/* The barycentric weights of the point of triangle (a, b, c) closest to the origin, some 0 on an edge
 * or a vertex (Ericson, Real-Time Collision Detection §5.1.5): GJK's sub-simplex step. */
void clt_triangle_closest_to_origin(const double a[3], const double b[3], const double c[3], double lam[3]);

/* The contacts of two cores, as the header of convex_pairs.c says; −1 on failure. */
int clt_collide_cores(const clt_core_t *a, const clt_core_t *b, double max_distance, clt_contact_point_t *out);

/* A mesh triangle (tri: its core in the world; local: its vertices in the mesh's frame; mesh: the
 * placed mesh) against a curved shape (cylinder, ellipsoid) by support functions (convex_smooth.c):
 * the exact pair, and a cylinder's end or side manifold on the triangle's face. −1 on failure. */
int clt_collide_triangle_support(const clt_core_t *tri, const clt_placed_shape_t *mesh, const double local[3][3],
                                 const clt_placed_shape_t *other, double max_distance, clt_contact_point_t *out);

/* Reduces n > 4 candidate points (point i at `points` + i·stride bytes, with Φ in phi, reference
 * normal m) to 4 (their indices in keep): the deepest, the farthest from it, then the two adding the
 * largest triangle area on either side of that diagonal. Each choice is made among the candidates
 * within round-off of the best (1e-10 of the patch's size in Φ, 1e-9 relative in distance and
 * area) by their position along a fixed direction in the patch's plane: a face resting flat on a
 * face has all its points at Φ = 0 ± 1e-13, and a pick decided by round-off would change the points
 * from step to step and void the warm start (docs/shapes.md "Contacts"). Returns how many (≤ 4). */
int clt_reduce_manifold(const double *points, size_t stride, const double *phi, int n, const double m[3],
                        int keep[4]);

#endif
