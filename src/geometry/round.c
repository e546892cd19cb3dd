/* Round shapes: disk (2D) and sphere (3D). */
#include <math.h>

#include "math/vec.h"

#include "geometry/shape.h"

static bool validate_radius(const clt_shape_def_t *s, char *msg, size_t n) {
  return clt_check_positive("radius", s->radius, msg, n);
}

static void disk_mass(const clt_shape_def_t *s, double density, clt_mass_props_t *out) {
  double r = s->radius;
  out->mass = density * CLT_PI * r * r;
  out->inertia[2][2] = 0.5 * out->mass * r * r;
}

static void sphere_mass(const clt_shape_def_t *s, double density, clt_mass_props_t *out) {
  double r = s->radius;
  out->mass = density * (4.0 / 3.0) * CLT_PI * r * r * r;
  double i = 0.4 * out->mass * r * r;
  out->inertia[0][0] = out->inertia[1][1] = out->inertia[2][2] = i;
}

const clt_shape_ops_t clt_shape_ops_disk = {"disk", 2, true, validate_radius, disk_mass, NULL};
const clt_shape_ops_t clt_shape_ops_sphere = {"sphere", 3, true, validate_radius, sphere_mass, NULL};
