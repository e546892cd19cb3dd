/* 3D narrow phase for spheres, capsules (spherocylinders), boxes and half-spaces (SPEC.md §5),
 * box–box excepted (box_box.c). Spheres and capsules are points and segments swept by a radius, so
 * their pairs are closest-point problems on the cores minus the radii: one shared-normal point. A
 * capsule against a half-space or a box gets a point per end cap, so it can lie flat and stable
 * (one point for a zero-length capsule). */
#include <math.h>

#include "collision/primitives_3d.h"

/* A normal for coincident cores: any unit vector orthogonal to axis (if given) oriented like hint,
 * else hint itself, else +z. Only reached for exactly overlapping centres / axes. */
static void fallback_normal(const double axis[3], const double hint[3], double n[3]) {
  double len = clt_v3_norm(hint);
  if (axis && clt_v3_norm(axis) > 0.0) {
    double u[3], t2[3];
    clt_v3_scale(u, axis, 1.0 / clt_v3_norm(axis));
    clt_v3_basis(u, n, t2);
    if (clt_v3_dot(n, hint) < 0.0) clt_v3_scale(n, n, -1.0);
    return;
  }
  if (len > 0.0)
    clt_v3_scale(n, hint, 1.0 / len);
  else
    clt_v3_set(n, 0.0, 0.0, 1.0);
}

/* One point between core points ca (of A, radius ra) and cb (of B, radius rb). */
static int cores_contact(const double ca[3], double ra, const double cb[3], double rb, const double *axis,
                         const double hint[3], double max_distance, int feature, clt_contact_point_t *out) {
  double d[3], n[3];
  clt_v3_sub(d, cb, ca);
  double len = clt_v3_norm(d);
  double phi = len - ra - rb;
  if (phi > max_distance) return 0;
  if (len > 1e-14 * (1.0 + ra + rb))
    clt_v3_scale(n, d, 1.0 / len);
  else
    fallback_normal(axis, hint, n);
  double pa[3], pb[3];
  clt_v3_axpy(pa, ca, ra, n);
  clt_v3_axpy(pb, cb, -rb, n);
  clt_c3_set_point(out, phi, n, pa, pb, feature);
  return 1;
}

int clt_collide_sphere_sphere(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                              clt_contact_point_t *out) {
  double hint[3] = {0.0, 0.0, 1.0};
  return cores_contact(a->position, a->def->radius, b->position, b->def->radius, NULL, hint, max_distance, 0,
                       out);
}

int clt_collide_sphere_capsule(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                               clt_contact_point_t *out) {
  double p0[3], p1[3], axis[3], c[3], hint[3];
  clt_c3_capsule_ends(b, p0, p1);
  clt_v3_sub(axis, p1, p0);
  double t = clt_c3_segment_param(p0, p1, a->position);
  clt_v3_axpy(c, p0, t, axis);
  double basis_hint[3] = {1.0, 0.0, 0.0};
  clt_v3_copy(hint, basis_hint);
  return cores_contact(a->position, a->def->radius, c, b->def->radius, axis, hint, max_distance, 0, out);
}

int clt_collide_capsule_capsule(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                clt_contact_point_t *out) {
  double a0[3], a1[3], b0[3], b1[3], ca[3], cb[3];
  clt_c3_capsule_ends(a, a0, a1);
  clt_c3_capsule_ends(b, b0, b1);
  clt_c3_segment_segment(a0, a1, b0, b1, ca, cb);
  /* Crossing axes: the common perpendicular of the two axes, towards B's centre. */
  double da[3], db[3], axis[3], hint[3];
  clt_v3_sub(da, a1, a0);
  clt_v3_sub(db, b1, b0);
  clt_v3_cross(axis, da, db);
  clt_v3_sub(hint, b->position, a->position);
  if (clt_v3_norm(axis) > 1e-12 * (clt_v3_dot(da, da) + clt_v3_dot(db, db))) {
    double n[3], len = clt_v3_norm(axis);
    clt_v3_scale(n, axis, 1.0 / len);
    if (clt_v3_dot(n, hint) < 0.0) clt_v3_scale(n, n, -1.0);
    clt_v3_copy(hint, n);
    return cores_contact(ca, a->def->radius, cb, b->def->radius, NULL, hint, max_distance, 0, out);
  }
  return cores_contact(ca, a->def->radius, cb, b->def->radius, da, hint, max_distance, 0, out);
}

/* Core point x with radius r against the half-space (p, m). */
static int point_halfspace(const double x[3], double r, const double p[3], const double m[3], double max_distance,
                           int feature, clt_contact_point_t *out) {
  double d[3], n[3], pa[3], pb[3];
  clt_v3_sub(d, x, p);
  double height = clt_v3_dot(d, m);
  double phi = height - r;
  if (phi > max_distance) return 0;
  clt_v3_scale(n, m, -1.0);
  clt_v3_axpy(pa, x, r, n);
  clt_v3_axpy(pb, x, -height, m);
  clt_c3_set_point(out, phi, n, pa, pb, feature);
  return 1;
}

int clt_collide_sphere_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                 clt_contact_point_t *out) {
  double p[3], m[3];
  clt_c3_halfspace(b, p, m);
  return point_halfspace(a->position, a->def->radius, p, m, max_distance, 0, out);
}

int clt_collide_capsule_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                  double max_distance, clt_contact_point_t *out) {
  double p[3], m[3], e0[3], e1[3];
  clt_c3_halfspace(b, p, m);
  clt_c3_capsule_ends(a, e0, e1);
  int count = point_halfspace(e0, a->def->radius, p, m, max_distance, 0, out);
  /* A zero-length capsule (a sphere; a length that changes in time may pass through 0) has one cap:
   * a second, identical row would make the LCP matrix singular. */
  if (!(a->def->length > 0.0)) return count;
  count += point_halfspace(e1, a->def->radius, p, m, max_distance, 1, out + count);
  return count;
}

/* Each of the 8 corners within range, the 4 deepest kept (a box lying on a face has exactly 4). */
int clt_collide_box_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                              clt_contact_point_t *out) {
  double p[3], m[3];
  clt_c3_halfspace(b, p, m);
  clt_contact_point_t corner[8];
  int count = 0;
  const double *e = a->def->half_extents;
  for (int i = 0; i < 8; i++) {
    double l[3] = {(i & 1) ? e[0] : -e[0], (i & 2) ? e[1] : -e[1], (i & 4) ? e[2] : -e[2]}, x[3];
    clt_m3_mulv(x, a->rotation, l);
    clt_v3_add(x, x, a->position);
    count += point_halfspace(x, 0.0, p, m, max_distance, i, corner + count);
  }
  if (count <= 4) {
    for (int i = 0; i < count; i++) out[i] = corner[i];
    return count;
  }
  bool keep[8] = {false};
  for (int k = 0; k < 4; k++) {
    int best = -1;
    for (int i = 0; i < count; i++)
      if (!keep[i] && (best < 0 || corner[i].distance < corner[best].distance)) best = i;
    keep[best] = true;
  }
  int written = 0;
  for (int i = 0; i < count; i++)
    if (keep[i]) out[written++] = corner[i];
  return written;
}

/* Core point x (radius r, of A) against box B: the signed point–box distance minus r. */
static int point_box(const double x[3], double r, const clt_placed_shape_t *box, double max_distance, int feature,
                     clt_contact_point_t *out) {
  double q[3], m[3], n[3], pa[3];
  double phi = clt_c3_point_box(box, x, q, m) - r;
  if (phi > max_distance) return 0;
  clt_v3_scale(n, m, -1.0);
  clt_v3_axpy(pa, x, r, n);
  clt_c3_set_point(out, phi, n, pa, q, feature);
  return 1;
}

int clt_collide_sphere_box(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                           clt_contact_point_t *out) {
  return point_box(a->position, a->def->radius, b, max_distance, 0, out);
}

/* Both end caps against the box, plus the point of the axis closest to the box when it lies
 * strictly inside the segment and is closer than both caps (a capsule across a box edge). The
 * signed distance to a convex set is a convex function along the axis, so a golden-section search
 * finds that point. */
int clt_collide_capsule_box(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                            clt_contact_point_t *out) {
  double e0[3], e1[3], q[3], m[3], d[3];
  clt_c3_capsule_ends(a, e0, e1);
  double r = a->def->radius;
  int count = point_box(e0, r, b, max_distance, 0, out);
  if (!(a->def->length > 0.0)) return count; /* one cap only (see capsule–half-space) */
  count += point_box(e1, r, b, max_distance, 1, out + count);
  clt_v3_sub(d, e1, e0);
  double f0 = clt_c3_point_box(b, e0, q, m), f1 = clt_c3_point_box(b, e1, q, m);
  if (fmin(f0, f1) - r > max_distance + clt_v3_norm(d)) return count; /* cannot get closer */
  const double g = 0.61803398874989485;
  double lo = 0.0, hi = 1.0, x1 = hi - g, x2 = lo + g, y[3];
  clt_v3_axpy(y, e0, x1, d);
  double g1 = clt_c3_point_box(b, y, q, m);
  clt_v3_axpy(y, e0, x2, d);
  double g2 = clt_c3_point_box(b, y, q, m);
  for (int it = 0; it < 80; it++) {
    if (g1 <= g2) {
      hi = x2;
      x2 = x1;
      g2 = g1;
      x1 = hi - g * (hi - lo);
      clt_v3_axpy(y, e0, x1, d);
      g1 = clt_c3_point_box(b, y, q, m);
    } else {
      lo = x1;
      x1 = x2;
      g1 = g2;
      x2 = lo + g * (hi - lo);
      clt_v3_axpy(y, e0, x2, d);
      g2 = clt_c3_point_box(b, y, q, m);
    }
  }
  double t = 0.5 * (lo + hi);
  clt_v3_axpy(y, e0, t, d);
  double ft = clt_c3_point_box(b, y, q, m);
  /* Interior minimum, clearly below both caps (a flat-lying capsule has a constant distance and
   * needs only its caps). */
  double margin = 1e-9 * (1.0 + clt_v3_norm(d));
  if (ft < fmin(f0, f1) - margin) count += point_box(y, r, b, max_distance, 2, out + count);
  return count;
}
