/* Convex polygon (2D, counter-clockwise vertices) and box (3D, half extents). */
#include "geometry/shape.h"

#include <math.h>

#include "math/vec.h"
#include <stdio.h>

static bool validate_polygon(const clt_shape_def_t *s, char *msg, size_t n) {
  int count = s->vertex_count;
  if (count < 3 || count > CLT_MAX_POLYGON_VERTICES) {
    snprintf(msg, n, "vertex_count must be in [3, %d] (got %d)", CLT_MAX_POLYGON_VERTICES, count);
    return false;
  }
  for (int i = 0; i < count; i++) {
    if (!isfinite(s->vertices[i][0]) || !isfinite(s->vertices[i][1])) {
      snprintf(msg, n, "vertices[%d] must be finite", i);
      return false;
    }
  }
  /* Convex and counter-clockwise: every turn is strictly to the left (collinear vertices would
   * make an edge normal ambiguous for the vertex–edge contacts of SPEC.md §5). */
  for (int i = 0; i < count; i++) {
    const double *p = s->vertices[i], *q = s->vertices[(i + 1) % count], *r = s->vertices[(i + 2) % count];
    double cross = (q[0] - p[0]) * (r[1] - q[1]) - (q[1] - p[1]) * (r[0] - q[0]);
    if (!(cross > 0.0)) {
      snprintf(msg, n, "vertices must form a convex polygon in counter-clockwise order (turn at vertex %d is %s)",
               (i + 1) % count, cross == 0.0 ? "straight" : "clockwise");
      return false;
    }
  }
  /* Convex turns can still wind around twice (a star); the total turning must be one turn. */
  double area2 = 0.0;
  for (int i = 0; i < count; i++) {
    const double *p = s->vertices[i], *q = s->vertices[(i + 1) % count];
    area2 += p[0] * q[1] - q[0] * p[1];
  }
  double turning = 0.0;
  for (int i = 0; i < count; i++) {
    const double *p = s->vertices[i], *q = s->vertices[(i + 1) % count], *r = s->vertices[(i + 2) % count];
    double a1 = atan2(q[1] - p[1], q[0] - p[0]), a2 = atan2(r[1] - q[1], r[0] - q[0]);
    double d = a2 - a1;
    while (d <= -CLT_PI) d += 2.0 * CLT_PI;
    while (d > CLT_PI) d -= 2.0 * CLT_PI;
    turning += d;
  }
  if (!(area2 > 0.0) || fabs(turning - 2.0 * CLT_PI) > 1e-6) {
    snprintf(msg, n, "vertices must form a simple convex polygon (they wind %.3g times)", turning / (2.0 * CLT_PI));
    return false;
  }
  return true;
}

/* Area, centroid and polar moment by the triangle fan from the origin (signed areas). */
static void polygon_mass(const clt_shape_def_t *s, double density, clt_mass_props_t *out) {
  double area = 0.0, cx = 0.0, cy = 0.0, j0 = 0.0;
  for (int i = 0; i < s->vertex_count; i++) {
    const double *p = s->vertices[i], *q = s->vertices[(i + 1) % s->vertex_count];
    double cross = p[0] * q[1] - q[0] * p[1];
    area += 0.5 * cross;
    cx += (p[0] + q[0]) * cross / 6.0;
    cy += (p[1] + q[1]) * cross / 6.0;
    /* ∫(x² + y²) over the triangle (0, p, q) */
    j0 += cross / 12.0 *
          (p[0] * p[0] + p[0] * q[0] + q[0] * q[0] + p[1] * p[1] + p[1] * q[1] + q[1] * q[1]);
  }
  cx /= area;
  cy /= area;
  out->mass = density * area;
  out->centroid[0] = cx;
  out->centroid[1] = cy;
  out->inertia[2][2] = density * (j0 - area * (cx * cx + cy * cy));
}

static bool validate_box(const clt_shape_def_t *s, char *msg, size_t n) {
  return clt_check_positive("half_extents[0]", s->half_extents[0], msg, n) &&
         clt_check_positive("half_extents[1]", s->half_extents[1], msg, n) &&
         clt_check_positive("half_extents[2]", s->half_extents[2], msg, n);
}

static void box_mass(const clt_shape_def_t *s, double density, clt_mass_props_t *out) {
  double a = s->half_extents[0], b = s->half_extents[1], c = s->half_extents[2];
  out->mass = density * 8.0 * a * b * c;
  out->inertia[0][0] = out->mass * (b * b + c * c) / 3.0;
  out->inertia[1][1] = out->mass * (a * a + c * c) / 3.0;
  out->inertia[2][2] = out->mass * (a * a + b * b) / 3.0;
}

const clt_shape_ops_t clt_shape_ops_polygon = {"polygon", 2, true, validate_polygon, polygon_mass, NULL};
const clt_shape_ops_t clt_shape_ops_box = {"box", 3, true, validate_box, box_mass, NULL};
