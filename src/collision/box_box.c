/* Box–box contact manifold (SPEC.md §5). The separating-axis test over the 15 candidate axes (3
 * face normals of each box, 9 edge–edge cross products) gives the axis of largest separation —
 * for overlapping boxes the axis of least penetration, exactly the penetration depth. For a face
 * axis, the most anti-parallel face of the other box (incident face) is clipped against the side
 * planes of the reference face (Sutherland–Hodgman); every clipped point within range becomes a
 * contact with its own Φ, its height above the reference plane along the shared reference normal,
 * and at most 4 are kept (the deepest, then the ones spanning the largest area). For an edge–edge
 * axis the closest points of the two supporting edges give one contact. */
#include <math.h>

#include "collision/primitives_3d.h"

typedef struct box_t {
  double c[3];
  double axis[3][3]; /* world direction of local axis k */
  double e[3];
} box_t;

static void make_box(const clt_placed_shape_t *s, box_t *b) {
  clt_v3_copy(b->c, s->position);
  for (int k = 0; k < 3; k++) {
    clt_c3_axis(s, k, b->axis[k]);
    b->e[k] = s->def->half_extents[k];
  }
}

static double projected_radius(const box_t *b, const double u[3]) {
  return b->e[0] * fabs(clt_v3_dot(b->axis[0], u)) + b->e[1] * fabs(clt_v3_dot(b->axis[1], u)) +
         b->e[2] * fabs(clt_v3_dot(b->axis[2], u));
}

typedef struct sat_t {
  double separation[15];
  double axis[15][3]; /* unit, oriented from A to B; zero for skipped (parallel) edge pairs */
  bool valid[15];
} sat_t;

/* Axes 0–2: faces of A, 3–5: faces of B, 6–14: a_i × b_j (i = (k−6)/3, j = (k−6)%3). */
static void sat_axes(const box_t *a, const box_t *b, sat_t *sat) {
  double d[3];
  clt_v3_sub(d, b->c, a->c);
  for (int k = 0; k < 15; k++) {
    double u[3];
    if (k < 3) {
      clt_v3_copy(u, a->axis[k]);
    } else if (k < 6) {
      clt_v3_copy(u, b->axis[k - 3]);
    } else {
      clt_v3_cross(u, a->axis[(k - 6) / 3], b->axis[(k - 6) % 3]);
      double len = clt_v3_norm(u);
      /* Near-parallel edges: their cross product is noise, and a face axis covers the pair. */
      if (len < 1e-6) {
        sat->valid[k] = false;
        sat->separation[k] = -INFINITY;
        clt_v3_set(sat->axis[k], 0.0, 0.0, 0.0);
        continue;
      }
      clt_v3_scale(u, u, 1.0 / len);
    }
    double dd = clt_v3_dot(d, u);
    if (dd < 0.0) {
      clt_v3_scale(u, u, -1.0);
      dd = -dd;
    }
    sat->valid[k] = true;
    sat->separation[k] = dd - projected_radius(a, u) - projected_radius(b, u);
    clt_v3_copy(sat->axis[k], u);
  }
}

double clt_box_box_separation(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double axis[3]) {
  box_t a, b;
  make_box(sa, &a);
  make_box(sb, &b);
  sat_t sat;
  sat_axes(&a, &b, &sat);
  int best = 0;
  for (int k = 1; k < 15; k++)
    if (sat.valid[k] && sat.separation[k] > sat.separation[best]) best = k;
  clt_v3_copy(axis, sat.axis[best]);
  return sat.separation[best];
}

typedef struct clip_point_t {
  double p[3];
  int tag; /* incident vertex 0–3, or 4 + 4·(clip plane) + (tag of the edge start) & 3 */
} clip_point_t;

/* Keeps the part of the polygon with (p − origin)·u ≤ limit; a vertex at most `slack` beyond the
 * plane is on it to round-off and is kept where it is (a corner exactly on a corner, an edge on an
 * edge: the face manifold then keeps it, instead of leaving it to the closest-feature fallback,
 * whose normal round-off would choose). */
static int clip_polygon(const clip_point_t *in, int n, const double origin[3], const double u[3], double limit,
                        double slack, int plane, clip_point_t *out) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    const clip_point_t *p = &in[i], *q = &in[(i + 1) % n];
    double dp[3], dq[3];
    clt_v3_sub(dp, p->p, origin);
    clt_v3_sub(dq, q->p, origin);
    double sp = clt_v3_dot(dp, u) - limit, sq = clt_v3_dot(dq, u) - limit;
    if (sp <= slack) out[m++] = *p;
    if ((sp < 0.0 && sq > slack) || (sp > slack && sq < 0.0)) {
      double t = sp / (sp - sq), pq[3];
      clt_v3_sub(pq, q->p, p->p);
      clt_v3_axpy(out[m].p, p->p, t, pq);
      out[m].tag = 4 + 4 * plane + (p->tag & 3);
      m++;
    }
  }
  return m;
}

/* Reduces n > 4 candidate points (with heights phi along m) to 4: the deepest, the farthest from
 * it, then the two that add the largest triangle area on either side of that diagonal. */
static int reduce_manifold(const clip_point_t *pts, const double *phi, int n, const double m[3], int keep[4]) {
  int i0 = 0;
  for (int i = 1; i < n; i++)
    if (phi[i] < phi[i0]) i0 = i;
  int i1 = -1;
  double best = -1.0;
  for (int i = 0; i < n; i++) {
    if (i == i0) continue;
    double d[3];
    clt_v3_sub(d, pts[i].p, pts[i0].p);
    double d2 = clt_v3_dot(d, d);
    if (d2 > best) {
      best = d2;
      i1 = i;
    }
  }
  int i2 = -1, i3 = -1;
  double most = 0.0, least = 0.0;
  double e01[3];
  clt_v3_sub(e01, pts[i1].p, pts[i0].p);
  for (int i = 0; i < n; i++) {
    if (i == i0 || i == i1) continue;
    double d[3], c[3];
    clt_v3_sub(d, pts[i].p, pts[i0].p);
    clt_v3_cross(c, e01, d);
    double area = clt_v3_dot(c, m);
    if (i2 < 0 || area > most) {
      most = area;
      i2 = i;
    }
    if (i3 < 0 || area < least) {
      least = area;
      i3 = i;
    }
  }
  keep[0] = i0;
  keep[1] = i1;
  int count = 2;
  if (i2 >= 0) keep[count++] = i2;
  if (i3 >= 0 && i3 != i2) keep[count++] = i3;
  return count;
}

/* Face contact: reference face `face` (axis index, sign) of box r with outward normal m; incident
 * box i. ref_is_a tells which of the caller's shapes r is. */
static int face_contact(const box_t *r, int face, const double m[3], const box_t *inc, bool ref_is_a,
                        double max_distance, clt_contact_point_t *out) {
  /* Incident face: the face of inc whose outward normal is most anti-parallel to m. */
  int j = 0;
  double best = -1.0;
  for (int k = 0; k < 3; k++) {
    double dk = fabs(clt_v3_dot(inc->axis[k], m));
    if (dk > best) {
      best = dk;
      j = k;
    }
  }
  double sj = clt_v3_dot(inc->axis[j], m) > 0.0 ? -1.0 : 1.0;
  int p = (j + 1) % 3, q = (j + 2) % 3;
  double fc[3];
  clt_v3_axpy(fc, inc->c, sj * inc->e[j], inc->axis[j]);
  clip_point_t poly[16], tmp[16];
  const double su[4] = {1.0, -1.0, -1.0, 1.0}, sv[4] = {1.0, 1.0, -1.0, -1.0};
  for (int k = 0; k < 4; k++) {
    clt_v3_axpy(poly[k].p, fc, su[k] * inc->e[p], inc->axis[p]);
    clt_v3_axpy(poly[k].p, poly[k].p, sv[k] * inc->e[q], inc->axis[q]);
    poly[k].tag = k;
  }
  int n = 4;
  int t1 = (face + 1) % 3, t2 = (face + 2) % 3;
  double slack = 1e-9 * fmax(fmax(fmax(r->e[0], r->e[1]), r->e[2]), fmax(fmax(inc->e[0], inc->e[1]), inc->e[2]));
  for (int plane = 0; plane < 4 && n > 0; plane++) {
    double u[3];
    int axis = plane < 2 ? t1 : t2;
    clt_v3_scale(u, r->axis[axis], (plane & 1) ? -1.0 : 1.0);
    n = clip_polygon(poly, n, r->c, u, r->e[axis], slack, plane, tmp);
    for (int k = 0; k < n; k++) poly[k] = tmp[k];
  }
  double rc[3], phi[16];
  clt_v3_axpy(rc, r->c, r->e[face], m); /* a point of the reference plane */
  clip_point_t kept[16];
  double kept_phi[16];
  int count = 0;
  for (int k = 0; k < n; k++) {
    double d[3];
    clt_v3_sub(d, poly[k].p, rc);
    phi[k] = clt_v3_dot(d, m);
    if (phi[k] <= max_distance) {
      kept[count] = poly[k];
      kept_phi[count++] = phi[k];
    }
  }
  int index[4] = {0, 1, 2, 3};
  int final = count;
  if (count > 4) final = reduce_manifold(kept, kept_phi, count, m, index);
  int sign = clt_v3_dot(m, r->axis[face]) > 0.0 ? 0 : 1;
  int feature_base = ((ref_is_a ? 0 : 1) * 6 + face * 2 + sign) * 64;
  for (int k = 0; k < final; k++) {
    const clip_point_t *c = &kept[index[k]];
    double ph = kept_phi[index[k]], onref[3], n_ab[3];
    clt_v3_axpy(onref, c->p, -ph, m); /* projection onto the reference face */
    if (ref_is_a) {
      clt_v3_copy(n_ab, m);
      clt_c3_set_point(&out[k], ph, n_ab, onref, c->p, feature_base + c->tag);
    } else {
      clt_v3_scale(n_ab, m, -1.0);
      clt_c3_set_point(&out[k], ph, n_ab, c->p, onref, feature_base + c->tag);
    }
  }
  return final;
}

/* Fallback when the face manifold is empty (the incident face lies entirely beside the reference
 * face; only with the boxes apart or touching, when the closest features are a corner and an edge
 * that the 15 axes do not see): the closest pair among corner–box and edge–edge pairs, one point. */
static int closest_features(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, const box_t *a,
                            const box_t *b, double max_distance, clt_contact_point_t *out) {
  double best = INFINITY, pa[3] = {0, 0, 0}, pb[3] = {0, 0, 0}, n[3] = {0, 0, 1};
  int feature = 0;
  for (int side = 0; side < 2; side++) {
    const box_t *s = side == 0 ? a : b;
    const clt_placed_shape_t *other = side == 0 ? sb : sa;
    for (int i = 0; i < 8; i++) {
      double x[3], q[3], m[3];
      clt_v3_copy(x, s->c);
      for (int k = 0; k < 3; k++) clt_v3_axpy(x, x, (i >> k) & 1 ? s->e[k] : -s->e[k], s->axis[k]);
      double d = clt_c3_point_box(other, x, q, m); /* m: the other box's outward normal, towards x */
      if (d < best) {
        best = d;
        feature = 13 * 64 + side * 8 + i;
        clt_v3_copy(side == 0 ? pa : pb, x);
        clt_v3_copy(side == 0 ? pb : pa, q);
        clt_v3_scale(n, m, side == 0 ? -1.0 : 1.0);
      }
    }
  }
  double centres[3];
  clt_v3_sub(centres, b->c, a->c);
  for (int i = 0; i < 12; i++) {
    for (int j = 0; j < 12; j++) {
      double e[2][2][3], dir[2][3];
      for (int side = 0; side < 2; side++) {
        const box_t *s = side == 0 ? a : b;
        int idx = side == 0 ? i : j, k0 = idx / 4, k1 = (k0 + 1) % 3, k2 = (k0 + 2) % 3;
        double c[3];
        clt_v3_axpy(c, s->c, (idx & 1) ? s->e[k1] : -s->e[k1], s->axis[k1]);
        clt_v3_axpy(c, c, (idx & 2) ? s->e[k2] : -s->e[k2], s->axis[k2]);
        clt_v3_axpy(e[side][0], c, -s->e[k0], s->axis[k0]);
        clt_v3_axpy(e[side][1], c, s->e[k0], s->axis[k0]);
        clt_v3_copy(dir[side], s->axis[k0]);
      }
      double ca[3], cb[3], d[3], m[3];
      clt_c3_segment_segment(e[0][0], e[0][1], e[1][0], e[1][1], ca, cb);
      clt_v3_sub(d, cb, ca);
      double len = clt_v3_norm(d);
      if (!(len < best)) continue;
      if (len > 1e-12 * (1.0 + clt_v3_norm(centres))) {
        clt_v3_scale(m, d, 1.0 / len);
      } else { /* touching edges: their common perpendicular, towards B */
        clt_v3_cross(m, dir[0], dir[1]);
        double l = clt_v3_norm(m);
        if (l < 1e-6) continue;
        clt_v3_scale(m, m, (clt_v3_dot(m, centres) < 0.0 ? -1.0 : 1.0) / l);
      }
      best = len;
      feature = 14 * 64 + i * 12 + j;
      clt_v3_copy(pa, ca);
      clt_v3_copy(pb, cb);
      clt_v3_copy(n, m);
    }
  }
  if (!(best <= max_distance)) return 0;
  clt_v3_axpy(pb, pa, best, n); /* exact p_B − p_A = Φ n despite rounding in the box frame */
  clt_c3_set_point(out, best, n, pa, pb, feature);
  return 1;
}

/* Edge–edge contact on SAT axis k ≥ 6: the closest points of the two supporting edges. */
static int edge_contact(const box_t *a, const box_t *b, const sat_t *sat, int axis, double max_distance,
                        clt_contact_point_t *out) {
  int i = (axis - 6) / 3, j = (axis - 6) % 3;
  const double *u = sat->axis[axis];
  double ca[3], cb[3];
  clt_v3_copy(ca, a->c);
  clt_v3_copy(cb, b->c);
  for (int k = 0; k < 3; k++) {
    if (k != i) clt_v3_axpy(ca, ca, clt_v3_dot(a->axis[k], u) >= 0.0 ? a->e[k] : -a->e[k], a->axis[k]);
    if (k != j) clt_v3_axpy(cb, cb, clt_v3_dot(b->axis[k], u) >= 0.0 ? -b->e[k] : b->e[k], b->axis[k]);
  }
  double a0[3], a1[3], b0[3], b1[3], pa[3], pb[3], d[3];
  clt_v3_axpy(a0, ca, -a->e[i], a->axis[i]);
  clt_v3_axpy(a1, ca, a->e[i], a->axis[i]);
  clt_v3_axpy(b0, cb, -b->e[j], b->axis[j]);
  clt_v3_axpy(b1, cb, b->e[j], b->axis[j]);
  clt_c3_segment_segment(a0, a1, b0, b1, pa, pb);
  clt_v3_sub(d, pb, pa);
  double phi = clt_v3_dot(d, u), n[3];
  clt_v3_copy(n, u);
  if (phi > 0.0) {
    /* Apart: the true gap between the two edge points (≥ the distance of the boxes), along the
     * line joining them, so p_B − p_A = Φ n holds even when an edge point is clamped at a
     * corner. */
    phi = clt_v3_norm(d);
    clt_v3_scale(n, d, 1.0 / phi);
  }
  if (phi > max_distance) return 0;
  clt_c3_set_point(out, phi, n, pa, pb, 12 * 64 + i * 3 + j);
  return 1;
}

int clt_collide_box_box(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double max_distance,
                        clt_contact_point_t *out) {
  box_t a, b;
  make_box(sa, &a);
  make_box(sb, &b);
  sat_t sat;
  sat_axes(&a, &b, &sat);
  int best_a = 0, best_b = 3, best_e = -1;
  for (int k = 1; k < 3; k++)
    if (sat.separation[k] > sat.separation[best_a]) best_a = k;
  for (int k = 4; k < 6; k++)
    if (sat.separation[k] > sat.separation[best_b]) best_b = k;
  for (int k = 6; k < 15; k++)
    if (sat.valid[k] && (best_e < 0 || sat.separation[k] > sat.separation[best_e])) best_e = k;
  double sep_face = fmax(sat.separation[best_a], sat.separation[best_b]);
  double sep_max = best_e >= 0 ? fmax(sep_face, sat.separation[best_e]) : sep_face;
  /* The SAT value never exceeds the true distance, so beyond range there is nothing. */
  if (sep_max > max_distance) return 0;

  /* Prefer faces over edges, and A's faces over B's, unless clearly worse: the manifold then does
   * not flip between nearly equivalent features from one step to the next. */
  double scale = fmax(fmax(fmax(a.e[0], a.e[1]), a.e[2]), fmax(fmax(b.e[0], b.e[1]), b.e[2]));
  double tol = 1e-9 * scale;
  if (best_e >= 0 && sat.separation[best_e] > sep_face + tol)
    return edge_contact(&a, &b, &sat, best_e, max_distance, out);
  int count;
  if (sat.separation[best_b] > sat.separation[best_a] + tol) {
    double m[3];
    clt_v3_scale(m, sat.axis[best_b], -1.0); /* B's face normal, towards A */
    count = face_contact(&b, best_b - 3, m, &a, false, max_distance, out);
  } else {
    count = face_contact(&a, best_a, sat.axis[best_a], &b, true, max_distance, out);
  }
  if (count == 0 && sep_max > -1e-9 * scale) {
    count = closest_features(sa, sb, &a, &b, max_distance, out);
  } else if (count == 0) {
    /* Overlapping with every clipped point above the reference plane (the deepest incident corner
     * lies beside the reference face): report the deepest corner inside the other box, else the
     * best edge–edge axis, so an overlap is never invisible to the infeasibility report. */
    count = closest_features(sa, sb, &a, &b, max_distance, out);
    if (count > 0 && !(out[0].distance < 0.0)) count = 0;
    if (count == 0 && best_e >= 0) count = edge_contact(&a, &b, &sat, best_e, max_distance, out);
  }
  return count;
}
