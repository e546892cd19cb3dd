/* Half-plane (2D) and half-space (3D): the solid side is opposite to the outward normal through
 * `point`. Unbounded, so no mass: only static and kinematic bodies may carry them. */
#include "geometry/shape.h"

#include <math.h>
#include <stdio.h>

#include "math/vec.h"

static bool validate_plane(const clt_shape_def_t *s, int dim, char *msg, size_t n) {
  for (int i = 0; i < dim; i++) {
    if (!isfinite(s->point[i]) || !isfinite(s->normal[i])) {
      snprintf(msg, n, "point and normal must be finite");
      return false;
    }
  }
  double len2 = 0.0;
  for (int i = 0; i < dim; i++) len2 += s->normal[i] * s->normal[i];
  if (!(len2 > 1e-200)) {
    snprintf(msg, n, "normal must be non-zero");
    return false;
  }
  return true;
}

static bool validate_halfplane(const clt_shape_def_t *s, char *msg, size_t n) {
  return validate_plane(s, 2, msg, n);
}
static bool validate_halfspace(const clt_shape_def_t *s, char *msg, size_t n) {
  return validate_plane(s, 3, msg, n);
}

static void normalize_halfplane(clt_shape_def_t *s) {
  double len = hypot(s->normal[0], s->normal[1]);
  s->normal[0] /= len;
  s->normal[1] /= len;
}
static void normalize_halfspace(clt_shape_def_t *s) {
  double len = clt_v3_norm(s->normal);
  clt_v3_scale(s->normal, s->normal, 1.0 / len);
}

const clt_shape_ops_t clt_shape_ops_halfplane = {"halfplane", 2, false, validate_halfplane, NULL,
                                                 normalize_halfplane};
const clt_shape_ops_t clt_shape_ops_halfspace = {"halfspace", 3, false, validate_halfspace, NULL,
                                                 normalize_halfspace};
