/* Torus / ring (3D): centreline radius R (major_radius) about local z, tube radius r. */
#include "geometry/shape.h"

#include <math.h>
#include <stdio.h>

#include "math/vec.h"

static bool validate_torus(const clt_shape_def_t *s, char *msg, size_t n) {
  if (!clt_check_positive("major_radius", s->major_radius, msg, n) ||
      !clt_check_positive("minor_radius", s->minor_radius, msg, n))
    return false;
  if (!(s->minor_radius < s->major_radius)) {
    snprintf(msg, n, "minor_radius must be < major_radius (got %g >= %g)", s->minor_radius, s->major_radius);
    return false;
  }
  return true;
}

static void torus_mass(const clt_shape_def_t *s, double density, clt_mass_props_t *out) {
  double big = s->major_radius, r = s->minor_radius;
  out->mass = density * 2.0 * CLT_PI * CLT_PI * big * r * r;
  out->inertia[0][0] = out->inertia[1][1] = out->mass * (0.5 * big * big + 0.625 * r * r);
  out->inertia[2][2] = out->mass * (big * big + 0.75 * r * r);
}

const clt_shape_ops_t clt_shape_ops_torus = {"torus", 3, true, validate_torus, torus_mass, NULL};
