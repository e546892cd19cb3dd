/* Multi-sphere proxies of smooth shapes: the `multisphere:N` baseline of SPEC.md §6.3 (LCP-MS of
 * 002 §5, after Markauskas et al. 2010), and a measure of how far a proxy surface is from the
 * true one (002 §5.1/§5.5 report the proxy-surface error on the true geometry).
 *
 * Construction (all in the shape's LOCAL frame; the caller composes the shape's local pose and the
 * body pose, exactly as for the shape itself):
 *  - sphere: itself, one sphere (n = 1 whatever N is asked);
 *  - ellipsoid (semi-axes a_x, a_y, a_z): N spheres centred on the major axis (the largest
 *    semi-axis A; the first of equal ones), evenly spaced over [−x_e, x_e] with
 *    x_e = (A² − c²)/A, c the smallest semi-axis. Sphere i gets the LARGEST INSCRIBED radius at its
 *    centre, r(x) = min over the two minor semi-axes k of k √(1 − x²/(A² − k²)) (A − |x| past
 *    the foot of the tip's normal), so every sphere lies inside the ellipsoid and touches it. x_e
 *    is the centre of the osculating sphere at the tips, radius c²/A: the end spheres reach the
 *    tips exactly; the centre sphere (odd N) has radius c and is the largest. Our reading of
 *    Markauskas et al. (2010), as 002 §5.1 describes it: odd N, spheres overlapping along the
 *    major axis, the largest centred, sized to the ellipsoid. For a spheroid (the two minor
 *    semi-axes equal) the union of all inscribed spheres on [−x_e, x_e] is the ellipsoid itself,
 *    so the proxy surface error → 0 as N grows (O(1/N²), measured in the test); for a triaxial one
 *    it tends to the gap b − c in the middle axis direction (spheres are round);
 *  - capsule (radius r, length L along local z): N spheres of radius r evenly spaced on the
 *    segment, the end ones at the cap centres (N = 1: one sphere at the centre). The envelope is
 *    inside the capsule, exact on the caps; the cylinder midway between neighbours s = L/(N − 1)
 *    apart is √(r² + s²/4) − r from it;
 *  - torus / ring (major radius R about local z, minor radius r): N ≥ 3 spheres of radius r evenly
 *    around the centre circle, the first on the local x axis (002 §5.5's 32-sphere chainmail
 *    proxy; N need not be odd). The proxy is inside the ring.
 * N may be any count 1..CLT_MULTISPHERE_MAX for ellipsoids and capsules; the paper uses odd N. */
#ifndef CLATTER_COLLISION_MULTISPHERE_H
#define CLATTER_COLLISION_MULTISPHERE_H

#include "clatter/world.h"

#define CLT_MULTISPHERE_MAX 63

/* Writes the proxy of `shape` with n spheres (see above) to centres[0..count−1] and
 * radii[0..count−1] (local frame of the shape) and returns count: n, or 1 for a sphere (the arrays
 * must hold max(n, 1) entries). Returns −1 when the shape type has no proxy (box, half-space, 2D
 * shapes), n is out of 1..CLT_MULTISPHERE_MAX (a torus needs n ≥ 3), or the sizes are not
 * positive and finite (capsule length ≥ 0). */
int clt_multisphere_build(const clt_shape_def_t *shape, int n, double centres[][3], double radii[]);

/* Surface error of a proxy (count spheres, local frame of `shape`) against the true surface of
 * `shape`, from `samples` sampled directions (≥ 16; a few thousand give 3–4 digits):
 *  *max_gap: the largest distance from a sampled point of the TRUE surface to the proxy union
 *            (signed: max over points x of min_i(|x − c_i| − r_i); > 0 where the proxy surface is
 *            recessed below the true one, ≤ 0 when the proxy covers every sampled point);
 *  *max_protrusion: how far the proxy reaches beyond the true shape (signed; > 0 sticks out).
 *            Convex shapes: max over sampled unit u of the support-function excess
 *            max_i(c_i·u + r_i) − h(u) (the one-sided Hausdorff distance in the limit); torus:
 *            max_i(d_i + r_i) with d_i the exact signed distance of centre i to the ring.
 * Surface points sampled: ellipsoid, the points with the sampled outward normals and the points
 * along the sampled rays from the centre; capsule, the caps along the sampled normals and a grid
 * on the cylinder; sphere, along the sampled normals; torus, an (angle, angle) grid.
 * Returns 0, or −1 for an unsupported shape / bad input (as clt_multisphere_build). */
int clt_multisphere_surface_error(const clt_shape_def_t *shape, int count, const double centres[][3],
                                  const double radii[], int samples, double *max_gap, double *max_protrusion);

#endif
