/* Private: closest-point primitives of the 3D narrow phase (narrowphase_3d.c, box_box.c). */
#ifndef CLATTER_COLLISION_PRIMITIVES_3D_H
#define CLATTER_COLLISION_PRIMITIVES_3D_H

#include <math.h>

#include "collision/collision_math.h"
#include "collision/narrowphase_pairs.h"

/* Column k of a placed shape's rotation: its local axis k in the world frame. */
static inline void clt_c3_axis(const clt_placed_shape_t *s, int k, double out[3]) {
  out[0] = s->rotation[0][k];
  out[1] = s->rotation[1][k];
  out[2] = s->rotation[2][k];
}

/* Cap centres of a capsule (local z, ±length/2 about the shape origin). */
static inline void clt_c3_capsule_ends(const clt_placed_shape_t *s, double p0[3], double p1[3]) {
  double z[3];
  clt_c3_axis(s, 2, z);
  double h = 0.5 * s->def->length;
  clt_v3_axpy(p0, s->position, -h, z);
  clt_v3_axpy(p1, s->position, h, z);
}

/* Parameter of the point of segment [p, q] closest to x, in [0, 1]. */
static inline double clt_c3_segment_param(const double p[3], const double q[3], const double x[3]) {
  double d[3], r[3];
  clt_v3_sub(d, q, p);
  clt_v3_sub(r, x, p);
  double len2 = clt_v3_dot(d, d);
  return len2 > 0.0 ? clt_c_clamp(clt_v3_dot(r, d) / len2, 0.0, 1.0) : 0.0;
}

/* Closest points c1 = p1 + s (q1 − p1) and c2 = p2 + t (q2 − p2) of two segments. Parallel
 * segments have a whole interval of closest pairs; the midpoint of the overlap of their
 * projections is taken, so the answer is symmetric and moves continuously. */
static inline void clt_c3_segment_segment(const double p1[3], const double q1[3], const double p2[3],
                                          const double q2[3], double c1[3], double c2[3]) {
  double d1[3], d2[3], r[3];
  clt_v3_sub(d1, q1, p1);
  clt_v3_sub(d2, q2, p2);
  clt_v3_sub(r, p1, p2);
  double a = clt_v3_dot(d1, d1), e = clt_v3_dot(d2, d2), f = clt_v3_dot(d2, r);
  double s, t;
  const double tiny = 1e-300;
  if (a <= tiny && e <= tiny) {
    s = t = 0.0;
  } else if (a <= tiny) {
    s = 0.0;
    t = clt_c_clamp(f / e, 0.0, 1.0);
  } else {
    double c = clt_v3_dot(d1, r);
    if (e <= tiny) {
      t = 0.0;
      s = clt_c_clamp(-c / a, 0.0, 1.0);
    } else {
      double b = clt_v3_dot(d1, d2);
      /* Closest points of the two lines by cross products, s = ((p2 − p1) × d2)·m / |m|² with
       * m = d1 × d2: relative error ~ε/θ at an angle θ between the axes, where the textbook
       * (b f − c e)/(a e − b²) loses ε/θ² to cancellation (4.7e-7 in Φ at θ ~ 1e-6, found by
       * tests/collision/test_capsule_pairs.c). Below θ ~ 1e-12 the lines count as parallel and
       * the middle of the overlap is taken: its distance exceeds the true one by at most
       * θ·|d1|·|d2|/2 (the distance is linear along nearly parallel segments whose lines meet far
       * away), 1e-12 relative. */
      double m[3], w[3], rn[3];
      clt_v3_cross(m, d1, d2);
      double denom = clt_v3_dot(m, m);
      if (denom > 1e-24 * a * e) {
        clt_v3_scale(rn, r, -1.0);
        clt_v3_cross(w, rn, d2);
        s = clt_c_clamp(clt_v3_dot(w, m) / denom, 0.0, 1.0);
      } else { /* parallel: middle of the overlap of segment 2 projected on segment 1 */
        double s0 = -c / a, s1 = (b - c) / a;
        double lo = fmax(0.0, fmin(s0, s1)), hi = fmin(1.0, fmax(s0, s1));
        s = lo <= hi ? 0.5 * (lo + hi) : (fmax(s0, s1) < 0.0 ? 0.0 : 1.0);
      }
      t = (b * s + f) / e;
      if (t < 0.0) {
        t = 0.0;
        s = clt_c_clamp(-c / a, 0.0, 1.0);
      } else if (t > 1.0) {
        t = 1.0;
        s = clt_c_clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  clt_v3_axpy(c1, p1, s, d1);
  clt_v3_axpy(c2, p2, t, d2);
}

/* Signed distance from x to a placed box (negative inside), the closest boundary point and the
 * box's outward unit normal there (towards x when outside). */
static inline double clt_c3_point_box(const clt_placed_shape_t *box, const double x[3], double closest[3],
                                      double normal[3]) {
  const double *e = box->def->half_extents;
  double r[3], l[3];
  clt_v3_sub(r, x, box->position);
  clt_m3_mulv_t(l, box->rotation, r);
  bool inside = fabs(l[0]) <= e[0] && fabs(l[1]) <= e[1] && fabs(l[2]) <= e[2];
  double q[3], m[3] = {0.0, 0.0, 0.0}, dist;
  if (inside) { /* nearest face */
    int k = 0;
    double depth = INFINITY;
    for (int i = 0; i < 3; i++) {
      double di = e[i] - fabs(l[i]);
      if (di < depth) {
        depth = di;
        k = i;
      }
    }
    clt_v3_copy(q, l);
    double sign = l[k] >= 0.0 ? 1.0 : -1.0;
    q[k] = sign * e[k];
    m[k] = sign;
    dist = -depth;
  } else {
    for (int i = 0; i < 3; i++) q[i] = clt_c_clamp(l[i], -e[i], e[i]);
    double d[3];
    clt_v3_sub(d, l, q);
    dist = clt_v3_norm(d);
    clt_v3_scale(m, d, 1.0 / dist);
  }
  clt_m3_mulv(closest, box->rotation, q);
  clt_v3_add(closest, closest, box->position);
  clt_m3_mulv(normal, box->rotation, m);
  return dist;
}

/* World point and outward unit normal of a placed half-space. */
static inline void clt_c3_halfspace(const clt_placed_shape_t *s, double point[3], double normal[3]) {
  clt_m3_mulv(point, s->rotation, s->def->point);
  clt_v3_add(point, point, s->position);
  clt_m3_mulv(normal, s->rotation, s->def->normal);
  double len = clt_v3_norm(normal);
  if (len > 0.0)
    clt_v3_scale(normal, normal, 1.0 / len);
  else
    clt_v3_set(normal, 0.0, 0.0, 1.0);
}

static inline void clt_c3_set_point(clt_contact_point_t *c, double phi, const double n[3], const double pa[3],
                                    const double pb[3], int feature) {
  c->distance = phi;
  clt_v3_copy(c->normal, n);
  clt_v3_copy(c->point_a, pa);
  clt_v3_copy(c->point_b, pb);
  c->feature = feature;
}

#endif
