/* Ellipse (2D, semi-axes a, b along local x, y) and ellipsoid (3D, semi-axes a, b, c). */
#include "geometry/shape.h"

#include <math.h>

#include "math/vec.h"

static bool validate_ellipse(const clt_shape_def_t *s, char *msg, size_t n) {
  return clt_check_positive("semi_axes[0]", s->semi_axes[0], msg, n) &&
         clt_check_positive("semi_axes[1]", s->semi_axes[1], msg, n);
}

static bool validate_ellipsoid(const clt_shape_def_t *s, char *msg, size_t n) {
  return validate_ellipse(s, msg, n) && clt_check_positive("semi_axes[2]", s->semi_axes[2], msg, n);
}

static void ellipse_mass(const clt_shape_def_t *s, double density, clt_mass_props_t *out) {
  double a = s->semi_axes[0], b = s->semi_axes[1];
  out->mass = density * CLT_PI * a * b;
  out->inertia[2][2] = 0.25 * out->mass * (a * a + b * b);
}

static void ellipsoid_mass(const clt_shape_def_t *s, double density, clt_mass_props_t *out) {
  double a = s->semi_axes[0], b = s->semi_axes[1], c = s->semi_axes[2];
  out->mass = density * (4.0 / 3.0) * CLT_PI * a * b * c;
  out->inertia[0][0] = 0.2 * out->mass * (b * b + c * c);
  out->inertia[1][1] = 0.2 * out->mass * (a * a + c * c);
  out->inertia[2][2] = 0.2 * out->mass * (a * a + b * b);
}

const clt_shape_ops_t clt_shape_ops_ellipse = {"ellipse", 2, true, validate_ellipse, ellipse_mass, NULL};
const clt_shape_ops_t clt_shape_ops_ellipsoid = {"ellipsoid", 3, true, validate_ellipsoid,
                                                 ellipsoid_mass, NULL};
