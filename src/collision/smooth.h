/* Private: shared-normal queries between smooth bodies (SPEC.md §5, §6.2; 002 §2.1.6, §5.5) with
 * an explicit convergence flag, for the ReLCP recursion, which must never build a constraint from
 * a point that is not a shared-normal point.
 *
 * Every query works on shapes placed in the world frame (clt_placed_shape_t) and produces ONE
 * point: Φ (> 0 apart, < 0 overlapping: minus the penetration depth), the unit normal n from A to
 * B, witness points p_A on ∂A and p_B on ∂B with p_B − p_A = Φ n, where the outward normal of A at
 * p_A is n and that of B at p_B is −n.
 *
 * Two layers:
 *  - clt_smooth_*_query: always computes the point (no distance cut) and returns a status;
 *    `info` (may be NULL) gets iteration counts and the residual of the shared-normal conditions;
 *  - clt_smooth_* pair functions with the clt_pair_fn signature of narrowphase_pairs.h, for the
 *    pair table: return 1 with the point in out[0] when Φ ≤ max_distance (ring–half-space: up to
 *    4 points, see below), 0 when farther, and CLT_SMOOTH_FAILED (negative) when the iteration
 *    did not converge or the input is bad — clt_collide passes that on as CLT_COLLIDE_FAILED,
 *    never as a count. Their first argument is the shape named first in the function name.
 *
 * Convex pairs (ellipsoid, sphere, capsule, half-space): Φ = max over unit u of the support
 * separation g(u) = u·(c_B − c_A) − h_A(u) − h_B(−u) (h without the centre), whose maximizer has
 * p_B − p_A ∥ u; this equals the distance when apart and minus the penetration depth (minimum
 * translation distance) when overlapping. Ring pairs: Φ = distance between the centre circles
 * (closed form / 1D search) − minor radii, exact also for linked rings (002 §5.5). */
#ifndef CLATTER_COLLISION_SMOOTH_H
#define CLATTER_COLLISION_SMOOTH_H

#include "collision/narrowphase_pairs.h"

/* Returned by the pair functions when no converged shared-normal point was found: the
 * dispatcher's CLT_COLLIDE_FAILED, passed on by clt_collide. */
#define CLT_SMOOTH_FAILED CLT_COLLIDE_FAILED

typedef enum clt_smooth_status_t {
  CLT_SMOOTH_OK = 0,            /* converged: a shared-normal point to the tolerance below */
  CLT_SMOOTH_NOT_CONVERGED = 1, /* no start converged; *out is left unspecified */
  CLT_SMOOTH_BAD_INPUT = 2      /* non-finite pose or non-positive size */
} clt_smooth_status_t;

typedef struct clt_smooth_info_t {
  clt_smooth_status_t status;
  int starts;        /* local searches run */
  int iterations;    /* Newton (or 1D) iterations over all starts */
  int fallback;      /* 1 if the dense-start fallback ran */
  double residual;   /* |n × (p_B − p_A)| / size scale of the returned point (stationarity) */
} clt_smooth_info_t;

/* Ellipsoid A against an ellipsoid or a sphere B (a sphere is an ellipsoid with equal axes). */
clt_smooth_status_t clt_smooth_ellipsoid_convex_query(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                                      clt_contact_point_t *out, clt_smooth_info_t *info);
/* Ellipsoid A against a capsule B of the current def->length (which may change between calls). */
clt_smooth_status_t clt_smooth_ellipsoid_capsule_query(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                                       clt_contact_point_t *out, clt_smooth_info_t *info);
/* Ellipsoid A against a half-space B (closed form: A's support point along −m). */
clt_smooth_status_t clt_smooth_ellipsoid_halfspace_query(const clt_placed_shape_t *a,
                                                         const clt_placed_shape_t *b, clt_contact_point_t *out,
                                                         clt_smooth_info_t *info);

/* Ellipsoid A against a box B: the support separation maximized over the box's faces, edges and
 * vertices (smooth_ellipsoid.c); one point, the shared-normal one where B's feature is smooth. */
clt_smooth_status_t clt_smooth_ellipsoid_box_query(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                                   clt_contact_point_t *out, clt_smooth_info_t *info);

/* Ring (torus) A against a ring, a sphere, a capsule or a half-space B. Rings are not convex: the
 * point is the one at the closest points of the centre circle of A and the core (circle, point,
 * segment) of B; against a half-space, the lowest point of the circle (a ring lying flat has a
 * whole circle of lowest points: the one along A's local x axis is taken). */
clt_smooth_status_t clt_smooth_torus_torus_query(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                                 clt_contact_point_t *out, clt_smooth_info_t *info);
clt_smooth_status_t clt_smooth_torus_sphere_query(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                                  clt_contact_point_t *out, clt_smooth_info_t *info);
clt_smooth_status_t clt_smooth_torus_capsule_query(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                                   clt_contact_point_t *out, clt_smooth_info_t *info);
clt_smooth_status_t clt_smooth_torus_halfspace_query(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                                     clt_contact_point_t *out, clt_smooth_info_t *info);

/* Pair-table entries (clt_pair_fn). clt_smooth_torus_halfspace alone may write up to 4 points:
 * the query's lowest point (feature 0) and the circle points a quarter, half and three quarters of
 * a turn from it (features 1–3), each with Φ ≤ max_distance, so a ring lying flat rests on a
 * square about its centre instead of rocking on one rim point. */
int clt_smooth_ellipsoid_ellipsoid(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                   clt_contact_point_t *out);
int clt_smooth_ellipsoid_sphere(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                clt_contact_point_t *out);
int clt_smooth_ellipsoid_capsule(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                 clt_contact_point_t *out);
int clt_smooth_ellipsoid_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                   clt_contact_point_t *out);
int clt_smooth_ellipsoid_box(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                             clt_contact_point_t *out);
int clt_smooth_torus_torus(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                           clt_contact_point_t *out);
int clt_smooth_torus_sphere(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                            clt_contact_point_t *out);
int clt_smooth_torus_capsule(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                             clt_contact_point_t *out);
int clt_smooth_torus_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                               clt_contact_point_t *out);

#endif
