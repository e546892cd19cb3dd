/* Shape operations table (SPEC.md §5): one entry per clt_shape_type_t, implemented one file per
 * shape family (round.c, ellipsoid.c, polygon.c, capsule.c, torus.c, plane.c, convex.c). A new shape adds a
 * file and one row in shape.c; nothing else in the core branches on the shape type for mass
 * properties or validation. The narrow phase will get its own pair table beside this one. */
#ifndef CLATTER_GEOMETRY_SHAPE_H
#define CLATTER_GEOMETRY_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "clatter/world.h"

/* Mass properties of one shape in its own local frame (before its local pose is applied).
 * 2D shapes: mass = density·area, centroid[0..1], inertia[2][2] = polar moment about the centroid
 * (all other inertia entries 0). 3D: full inertia tensor about the centroid. */
typedef struct clt_mass_props_t {
  double mass;
  double centroid[3];
  double inertia[3][3];
} clt_mass_props_t;

typedef struct clt_shape_ops_t {
  const char *name;
  int dimension;      /* 2 or 3 */
  bool has_mass;      /* false: half-plane / half-space (static or kinematic bodies only) */
  /* Checks the type-specific fields (finite, positive, convex, ...). On failure writes a reason
   * naming the field ("radius must be > 0 and finite (got -1)") and returns false. */
  bool (*validate)(const clt_shape_def_t *shape, char *message, size_t message_size);
  /* Mass properties at the given density; NULL when !has_mass. May yield mass 0 (a segment of
   * radius 0). */
  void (*mass_properties)(const clt_shape_def_t *shape, double density, clt_mass_props_t *out);
  /* Normalizes stored fields after validation (unit normals, ...); may be NULL. */
  void (*canonicalize)(clt_shape_def_t *shape);
} clt_shape_ops_t;

/* NULL for an out-of-range type. */
const clt_shape_ops_t *clt_shape_ops(clt_shape_type_t type);

/* Validation helpers shared by the shape files: each writes "<field> must be ... (got v)". */
bool clt_check_positive(const char *field, double value, char *message, size_t message_size);
bool clt_check_nonnegative(const char *field, double value, char *message, size_t message_size);

/* Per-family tables (defined in the family files, gathered in shape.c). */
extern const clt_shape_ops_t clt_shape_ops_disk, clt_shape_ops_sphere;
extern const clt_shape_ops_t clt_shape_ops_ellipse, clt_shape_ops_ellipsoid;
extern const clt_shape_ops_t clt_shape_ops_polygon, clt_shape_ops_box;
extern const clt_shape_ops_t clt_shape_ops_segment, clt_shape_ops_capsule;
extern const clt_shape_ops_t clt_shape_ops_torus;
extern const clt_shape_ops_t clt_shape_ops_cylinder, clt_shape_ops_polyhedron, clt_shape_ops_mesh;
extern const clt_shape_ops_t clt_shape_ops_halfplane, clt_shape_ops_halfspace;

#endif
