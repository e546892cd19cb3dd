/* The shape table, shape names and default shape definitions (SPEC.md §5). */
#include "geometry/shape.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const clt_shape_ops_t *const shape_table[CLT_SHAPE_TYPE_COUNT] = {
    [CLT_SHAPE_DISK] = &clt_shape_ops_disk,
    [CLT_SHAPE_HALFPLANE] = &clt_shape_ops_halfplane,
    [CLT_SHAPE_SEGMENT] = &clt_shape_ops_segment,
    [CLT_SHAPE_ELLIPSE] = &clt_shape_ops_ellipse,
    [CLT_SHAPE_POLYGON] = &clt_shape_ops_polygon,
    [CLT_SHAPE_SPHERE] = &clt_shape_ops_sphere,
    [CLT_SHAPE_HALFSPACE] = &clt_shape_ops_halfspace,
    [CLT_SHAPE_BOX] = &clt_shape_ops_box,
    [CLT_SHAPE_CAPSULE] = &clt_shape_ops_capsule,
    [CLT_SHAPE_ELLIPSOID] = &clt_shape_ops_ellipsoid,
    [CLT_SHAPE_TORUS] = &clt_shape_ops_torus,
    [CLT_SHAPE_CYLINDER] = &clt_shape_ops_cylinder,
    [CLT_SHAPE_POLYHEDRON] = &clt_shape_ops_polyhedron,
    [CLT_SHAPE_MESH] = &clt_shape_ops_mesh,
};

const clt_shape_ops_t *clt_shape_ops(clt_shape_type_t type) {
  if ((int)type < 0 || type >= CLT_SHAPE_TYPE_COUNT) return NULL;
  return shape_table[type];
}

const char *clt_shape_type_name(clt_shape_type_t type) {
  const clt_shape_ops_t *ops = clt_shape_ops(type);
  return ops ? ops->name : "unknown";
}

clt_shape_type_t clt_shape_type_from_name(const char *name) {
  if (!name) return CLT_SHAPE_TYPE_COUNT;
  for (int t = 0; t < CLT_SHAPE_TYPE_COUNT; t++)
    if (strcmp(shape_table[t]->name, name) == 0) return (clt_shape_type_t)t;
  return CLT_SHAPE_TYPE_COUNT;
}

clt_shape_def_t clt_default_shape_def(clt_shape_type_t type) {
  clt_shape_def_t s;
  memset(&s, 0, sizeof s);
  s.type = type;
  s.local_orientation[0] = 1.0;
  s.material = -1;
  s.filter.category = 1u;
  s.filter.mask = 0xFFFFFFFFu;
  /* A usable unit shape of each kind, so a def with only the type set is valid. */
  s.radius = 0.5;
  s.length = 1.0;
  s.half_extents[0] = s.half_extents[1] = s.half_extents[2] = 0.5;
  s.semi_axes[0] = 1.0;
  s.semi_axes[1] = 0.5;
  s.semi_axes[2] = type == CLT_SHAPE_ELLIPSOID ? 0.5 : 0.0;
  s.major_radius = 1.0;
  s.minor_radius = 0.25;
  if (type == CLT_SHAPE_HALFPLANE) s.normal[1] = 1.0;
  if (type == CLT_SHAPE_HALFSPACE) s.normal[2] = 1.0;
  if (type == CLT_SHAPE_SEGMENT) {
    s.a[0] = -0.5;
    s.b[0] = 0.5;
  }
  if (type == CLT_SHAPE_POLYGON) { /* unit square, counter-clockwise */
    static const double square[4][2] = {{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}};
    memcpy(s.vertices, square, sizeof square);
    s.vertex_count = 4;
  }
  return s;
}

bool clt_check_positive(const char *field, double value, char *message, size_t message_size) {
  if (isfinite(value) && value > 0.0) return true;
  snprintf(message, message_size, "%s must be > 0 and finite (got %g)", field, value);
  return false;
}

bool clt_check_nonnegative(const char *field, double value, char *message, size_t message_size) {
  if (isfinite(value) && value >= 0.0) return true;
  snprintf(message, message_size, "%s must be >= 0 and finite (got %g)", field, value);
  return false;
}
