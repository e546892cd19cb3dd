/* Box–box separating-axis value over the 15 candidate axes (3 face normals of each box, 9 edge–edge
 * cross products): for overlapping boxes exactly minus the penetration depth. The contacts of box
 * pairs are made by the polytope routine (convex_pairs.c); this closed form is kept for the tests,
 * as a reference independent of it. */
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
