/* Exact volumes of spheres in boxes and of shapes (clatter/analysis.h; the derivation is in
 * docs/analysis.md "Sphere–box volumes"), and the pieces every measurement shares: the region
 * test, the frame check, the up axis and the message helper (analysis_internal.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis_internal.h"

/* ---------------------------------------------------------------------------------------------
 * The unit ball beyond a corner: V(a, b, c) = |B ∩ {x ≥ a, y ≥ b, z ≥ c}|.
 *
 * For a, b, c ≥ 0 it is ∫_c^{z_m} C(a, b; ρ(z)) dz with ρ² = 1 − z², z_m² = 1 − a² − b² and C the
 * disk's corner area ½ρ²(acos(b/ρ) − asin(a/ρ)) − ½b√(ρ² − b²) − ½a√(ρ² − a²) + ab; each term
 * integrates in closed form (J_x, R_x of docs/analysis.md "Sphere–box volumes"). Every root and
 * inverse cosine is written with s_x(z) = √(1 − x² − z²) and atan2, and s_x at z_m is the other bound
 * itself (s_a(z_m) = b): taken as the root of a difference of rounded squares there, it puts the
 * volume off by up to 5·10⁻⁹. */

/* The primitive in z of (1 − z²)·acos(x/ρ) for bound x, at z with s = s_x(z) (J_x of docs/analysis.md). */
static double primitive_acos(double x, double z, double s) {
  double k2 = 1 - x * x, theta = atan2(z, s);
  double u = x == 0 ? 0.5 * CLT_ANALYSIS_PI : atan2(s, x); /* acos(x/ρ); ρ → 0 only where x = 0 */
  return (z - z * z * z / 3) * u + (x / 3) * (0.5 * (k2 * theta - z * s) - 2 * theta) + (2.0 / 3.0) * atan2(x * z, s);
}

/* The primitive in z of √(1 − x² − z²) at z, with s = s_x(z) (R_x of docs/analysis.md). */
static double primitive_root(double x, double z, double s) { return 0.5 * (z * s + (1 - x * x) * atan2(z, s)); }

static double corner3_nonnegative(double a, double b, double c) {
  if (a * a + b * b + c * c >= 1) return 0;
  double zm = sqrt(1 - a * a - b * b);
  double sa = sqrt(fmax(0, 1 - a * a - c * c)), sb = sqrt(fmax(0, 1 - b * b - c * c));
  double ja = primitive_acos(a, zm, b) - primitive_acos(a, c, sa);
  double jb = primitive_acos(b, zm, a) - primitive_acos(b, c, sb);
  double ra = primitive_root(a, zm, b) - primitive_root(a, c, sa);
  double rb = primitive_root(b, zm, a) - primitive_root(b, c, sb);
  double poly = (zm - zm * zm * zm / 3) - (c - c * c * c / 3);
  return 0.5 * (ja + jb) - 0.25 * CLT_ANALYSIS_PI * poly - 0.5 * b * rb - 0.5 * a * ra + a * b * (zm - c);
}

/* Any bounds in [−1, 1]: a negative one is the half-ball minus the mirror image (the ball is
 * symmetric), V(a, b, c) = 2 V(0, b, c) − V(−a, b, c). */
static double corner3(double a, double b, double c) {
  if (a < 0) return 2 * corner3(0, b, c) - corner3(-a, b, c);
  if (b < 0) return 2 * corner3(a, 0, c) - corner3(a, -b, c);
  if (c < 0) return 2 * corner3(a, b, 0) - corner3(a, b, -c);
  return corner3_nonnegative(a, b, c);
}

/* The unit disk beyond a corner, a, b ≥ 0: the corner area C(a, b; 1) above. */
static double corner2_nonnegative(double a, double b) {
  if (a * a + b * b >= 1) return 0;
  double sa = sqrt(1 - a * a), sb = sqrt(1 - b * b);
  return 0.5 * (atan2(sb, b) - atan2(a, sa)) - 0.5 * b * sb - 0.5 * a * sa + a * b;
}

static double corner2(double a, double b) {
  if (a < 0) return 2 * corner2(0, b) - corner2(-a, b);
  if (b < 0) return 2 * corner2(a, 0) - corner2(a, -b);
  return corner2_nonnegative(a, b);
}

static double clamp_unit(double v) { return v < -1 ? -1 : v > 1 ? 1 : v; }

/* Bounds relative to the centre in units of the radius, clamped to [−1, 1] (beyond, a bound cuts
 * nothing off); false when the box misses the ball or is empty, *inside when it holds all of it. */
static bool unit_bounds(int dimension, const double *center, double radius, const double *lo, const double *hi,
                        double u_lo[3], double u_hi[3], bool *inside) {
  *inside = true;
  for (int k = 0; k < dimension; k++) {
    if (!(lo[k] <= hi[k]) || lo[k] >= center[k] + radius || hi[k] <= center[k] - radius) return false;
    if (lo[k] > center[k] - radius || hi[k] < center[k] + radius) *inside = false;
    u_lo[k] = clamp_unit((lo[k] - center[k]) / radius);
    u_hi[k] = clamp_unit((hi[k] - center[k]) / radius);
  }
  return true;
}

static bool bad_arguments(int dimension, const double *center, double radius, const double *lo, const double *hi) {
  if (isnan(radius) || radius < 0) return true;
  for (int k = 0; k < dimension; k++)
    if (isnan(center[k]) || isnan(lo[k]) || isnan(hi[k]) || isinf(center[k])) return true;
  return false;
}

double clt_sphere_box_volume(const double center[3], double radius, const double lo[3], const double hi[3]) {
  if (bad_arguments(3, center, radius, lo, hi)) return NAN;
  if (radius == 0) return 0;
  double a[3], b[3];
  bool inside;
  if (!unit_bounds(3, center, radius, lo, hi, a, b, &inside)) return 0;
  double r3 = radius * radius * radius;
  if (inside) return 4.0 / 3.0 * CLT_ANALYSIS_PI * r3;
  /* 1[lo ≤ x < hi] = 1[x ≥ lo] − 1[x ≥ hi] on each axis: eight corners, signs alternating */
  double v = 0;
  for (int corner = 0; corner < 8; corner++) {
    double x = corner & 1 ? b[0] : a[0], y = corner & 2 ? b[1] : a[1], z = corner & 4 ? b[2] : a[2];
    int highs = (corner & 1) + ((corner >> 1) & 1) + ((corner >> 2) & 1);
    v += (highs % 2 ? -1 : 1) * corner3(x, y, z);
  }
  return fmax(0, v) * r3;
}

double clt_disk_box_area(const double center[2], double radius, const double lo[2], const double hi[2]) {
  if (bad_arguments(2, center, radius, lo, hi)) return NAN;
  if (radius == 0) return 0;
  double a[3], b[3];
  bool inside;
  if (!unit_bounds(2, center, radius, lo, hi, a, b, &inside)) return 0;
  double r2 = radius * radius;
  if (inside) return CLT_ANALYSIS_PI * r2;
  double v = corner2(a[0], a[1]) - corner2(b[0], a[1]) - corner2(a[0], b[1]) + corner2(b[0], b[1]);
  return fmax(0, v) * r2;
}

/* ---------------------------------------------------------------------------------------------
 * Shapes */

double clt_shape_volume(const clt_shape_def_t *s) {
  const double pi = CLT_ANALYSIS_PI;
  double r = s->radius;
  switch (s->type) {
  case CLT_SHAPE_SPHERE: return 4.0 / 3.0 * pi * r * r * r;
  case CLT_SHAPE_BOX: return 8 * s->half_extents[0] * s->half_extents[1] * s->half_extents[2];
  case CLT_SHAPE_CAPSULE: return pi * r * r * s->length + 4.0 / 3.0 * pi * r * r * r;
  case CLT_SHAPE_CYLINDER: return pi * r * r * s->length;
  case CLT_SHAPE_ELLIPSOID: return 4.0 / 3.0 * pi * s->semi_axes[0] * s->semi_axes[1] * s->semi_axes[2];
  case CLT_SHAPE_TORUS: return 2 * pi * pi * s->major_radius * s->minor_radius * s->minor_radius;
  case CLT_SHAPE_POLYHEDRON: {
    double centroid[3], inertia[3][3];
    return s->convex ? clt_convex_volume(s->convex, centroid, inertia) : 0;
  }
  case CLT_SHAPE_DISK: return pi * r * r;
  case CLT_SHAPE_ELLIPSE: return pi * s->semi_axes[0] * s->semi_axes[1];
  case CLT_SHAPE_POLYGON: {
    double twice = 0;
    for (int i = 0; i < s->vertex_count; i++) {
      const double *p = s->vertices[i], *q = s->vertices[(i + 1) % s->vertex_count];
      twice += p[0] * q[1] - q[0] * p[1];
    }
    return 0.5 * fabs(twice);
  }
  case CLT_SHAPE_SEGMENT: {
    double d[2] = {s->b[0] - s->a[0], s->b[1] - s->a[1]};
    return 2 * r * sqrt(d[0] * d[0] + d[1] * d[1]) + pi * r * r;
  }
  case CLT_SHAPE_HALFSPACE:
  case CLT_SHAPE_HALFPLANE:
  case CLT_SHAPE_MESH:
  case CLT_SHAPE_TYPE_COUNT: break;
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------------
 * What the measurements share (analysis_internal.h) */

double clt_analysis_volume_in_box(const clt_analysis_frame_t *f, int i, const double lo[3], const double hi[3],
                                  bool *by_centre) {
  const double *p = f->position + 3 * (size_t)i;
  *by_centre = false;
  if (f->radius[i] > 0)
    return f->dimension == 3 ? clt_sphere_box_volume(p, f->radius[i], lo, hi)
                             : clt_disk_box_area(p, f->radius[i], lo, hi);
  for (int k = 0; k < f->dimension; k++)
    if (!(p[k] >= lo[k] && p[k] < hi[k])) return 0; /* half-open: a centre on a face shared by two bins is in one */
  *by_centre = f->volume[i] > 0;
  return f->volume[i];
}

clt_status_t clt_analysis_box_from_numbers(int dimension, const double *v, int count, clt_analysis_box_t *out,
                                           char *message, size_t message_size) {
  if (dimension != 2 && dimension != 3)
    return clt_analysis_fail(message, message_size, "region: the dimension must be 2 or 3 (got %d)", dimension);
  if (count != 2 * dimension)
    return clt_analysis_fail(
        message, message_size, "region: a %dD run needs %s (the low corner, then the high corner) [m]; got %d numbers",
        dimension, dimension == 3 ? "six numbers X0,Y0,Z0,X1,Y1,Z1" : "four numbers X0,Y0,X1,Y1", count);
  for (int k = 0; k < 3; k++) {
    out->lo[k] = k < dimension ? v[k] : -INFINITY;
    out->hi[k] = k < dimension ? v[dimension + k] : INFINITY;
    if (!(out->lo[k] <= out->hi[k]))
      return clt_analysis_fail(message, message_size,
                               "region: along %c the low bound %g is not below the high bound %g", "xyz"[k],
                               out->lo[k], out->hi[k]);
  }
  return CLT_OK;
}

double clt_analysis_box_volume(const clt_analysis_box_t *box, int dimension) {
  double v = 1;
  for (int k = 0; k < dimension; k++) {
    double e = box->hi[k] - box->lo[k];
    if (!isfinite(e) || !(e > 0)) return NAN;
    v *= e;
  }
  return v;
}

clt_status_t clt_analysis_fail(char *message, size_t message_size, const char *format, ...) {
  if (message && message_size > 0) {
    va_list args;
    va_start(args, format);
    vsnprintf(message, message_size, format, args);
    va_end(args);
  }
  return CLT_ERR_INVALID_ARGUMENT;
}

clt_status_t clt_analysis_check_frame(const clt_analysis_frame_t *f, char *message, size_t message_size) {
  if (!f) return clt_analysis_fail(message, message_size, "frame: NULL");
  if (f->dimension != 2 && f->dimension != 3)
    return clt_analysis_fail(message, message_size, "frame: dimension must be 2 or 3 (got %d)", f->dimension);
  if (f->body_count < 0 || f->contact_count < 0)
    return clt_analysis_fail(message, message_size, "frame: negative body or contact count");
  if (f->body_count > 0 && (!f->position || !f->mass || !f->body_type || !f->radius || !f->volume))
    return clt_analysis_fail(message, message_size, "frame: position, mass, body_type, radius and volume are required");
  if (f->contact_count > 0 && (!f->contact_body_a || !f->contact_body_b || !f->contact_point || !f->contact_force))
    return clt_analysis_fail(message, message_size, "frame: contact bodies, points and forces are required");
  for (int64_t c = 0; c < f->contact_count; c++) {
    int a = f->contact_body_a[c], b = f->contact_body_b[c];
    if (a < 0 || a >= f->body_count || b < 0 || b >= f->body_count)
      return clt_analysis_fail(message, message_size, "frame: contact %lld names body %d of %d", (long long)c,
                               a < 0 || a >= f->body_count ? a : b, f->body_count);
  }
  return CLT_OK;
}

clt_status_t clt_analysis_up(const clt_analysis_frame_t *f, int axis, int sign, int *up_axis, int *up_sign,
                             char *message, size_t message_size) {
  if (axis >= f->dimension)
    return clt_analysis_fail(message, message_size, "axis: %d is not an axis of a %dD run", axis, f->dimension);
  int strongest = 0;
  for (int k = 1; k < f->dimension; k++)
    if (fabs(f->gravity[k]) > fabs(f->gravity[strongest])) strongest = k;
  if (axis < 0) axis = strongest;
  if (sign == 0) {
    if (!(fabs(f->gravity[axis]) > 0))
      return clt_analysis_fail(message, message_size,
                               "axis: the run has no gravity along axis %d to take up from: give the axis", axis);
    sign = f->gravity[axis] < 0 ? 1 : -1;
  }
  *up_axis = axis;
  *up_sign = sign > 0 ? 1 : -1;
  return CLT_OK;
}
