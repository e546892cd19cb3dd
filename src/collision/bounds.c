/* World-frame bounding boxes of placed shapes for the broad phase (SPEC.md §5). */
#include <math.h>

#include "collision/collision_math.h"
#include "collision/narrowphase_pairs.h"
#include "collision/primitives_3d.h"
#include "geometry/convex.h"
#include "geometry/mesh.h"

static void set_box(double lower[3], double upper[3], const double c[3], const double h[3]) {
  for (int k = 0; k < 3; k++) {
    lower[k] = c[k] - h[k];
    upper[k] = c[k] + h[k];
  }
}

bool clt_shape_bounds(const clt_shape_def_t *shape, const clt_collide_pose_t *pose, double lower[3],
                      double upper[3]) {
  int dim = (shape->type <= CLT_SHAPE_POLYGON) ? 2 : 3;
  clt_placed_shape_t s;
  clt_place_shape(shape, pose, dim, &s);
  double h[3] = {0.0, 0.0, 0.0};
  switch (shape->type) {
    case CLT_SHAPE_HALFPLANE:
    case CLT_SHAPE_HALFSPACE:
      for (int k = 0; k < 3; k++) {
        lower[k] = -INFINITY;
        upper[k] = INFINITY;
      }
      if (dim == 2) lower[2] = upper[2] = 0.0;
      return false;
    case CLT_SHAPE_DISK:
    case CLT_SHAPE_SPHERE:
      h[0] = h[1] = shape->radius;
      if (dim == 3) h[2] = shape->radius;
      set_box(lower, upper, s.position, h);
      return true;
    case CLT_SHAPE_ELLIPSE: { /* exact: the support in ±x, ±y */
      double a = shape->semi_axes[0], b = shape->semi_axes[1], c = s.cos_angle, sn = s.sin_angle;
      h[0] = sqrt(a * a * c * c + b * b * sn * sn);
      h[1] = sqrt(a * a * sn * sn + b * b * c * c);
      set_box(lower, upper, s.position, h);
      return true;
    }
    case CLT_SHAPE_SEGMENT:
    case CLT_SHAPE_POLYGON: {
      int n = shape->type == CLT_SHAPE_SEGMENT ? 2 : shape->vertex_count;
      double r = shape->type == CLT_SHAPE_SEGMENT ? shape->radius : 0.0;
      for (int k = 0; k < 2; k++) {
        lower[k] = INFINITY;
        upper[k] = -INFINITY;
      }
      for (int i = 0; i < n && i < CLT_MAX_POLYGON_VERTICES; i++) {
        double l[2], w[2];
        if (shape->type == CLT_SHAPE_SEGMENT) {
          l[0] = i == 0 ? shape->a[0] : shape->b[0];
          l[1] = i == 0 ? shape->a[1] : shape->b[1];
        } else {
          l[0] = shape->vertices[i][0];
          l[1] = shape->vertices[i][1];
        }
        clt_c2_rot(w, s.cos_angle, s.sin_angle, l);
        for (int k = 0; k < 2; k++) {
          lower[k] = fmin(lower[k], s.position[k] + w[k] - r);
          upper[k] = fmax(upper[k], s.position[k] + w[k] + r);
        }
      }
      lower[2] = upper[2] = 0.0;
      return true;
    }
    case CLT_SHAPE_BOX:
    case CLT_SHAPE_ELLIPSOID: { /* |R| e (exact for boxes, exact support extents for ellipsoids) */
      const double *e = shape->type == CLT_SHAPE_BOX ? shape->half_extents : shape->semi_axes;
      for (int k = 0; k < 3; k++) {
        if (shape->type == CLT_SHAPE_BOX)
          h[k] = fabs(s.rotation[k][0]) * e[0] + fabs(s.rotation[k][1]) * e[1] + fabs(s.rotation[k][2]) * e[2];
        else
          h[k] = sqrt(s.rotation[k][0] * s.rotation[k][0] * e[0] * e[0] +
                      s.rotation[k][1] * s.rotation[k][1] * e[1] * e[1] +
                      s.rotation[k][2] * s.rotation[k][2] * e[2] * e[2]);
      }
      set_box(lower, upper, s.position, h);
      return true;
    }
    case CLT_SHAPE_CAPSULE: {
      double p0[3], p1[3];
      clt_c3_capsule_ends(&s, p0, p1);
      for (int k = 0; k < 3; k++) {
        lower[k] = fmin(p0[k], p1[k]) - shape->radius;
        upper[k] = fmax(p0[k], p1[k]) + shape->radius;
      }
      return true;
    }
    case CLT_SHAPE_CYLINDER: { /* exact: the two end discs' extents along each axis */
      for (int k = 0; k < 3; k++) {
        double a = s.rotation[k][2];
        h[k] = 0.5 * shape->length * fabs(a) + shape->radius * sqrt(fmax(0.0, 1.0 - a * a));
      }
      set_box(lower, upper, s.position, h);
      return true;
    }
    case CLT_SHAPE_POLYHEDRON: { /* exact: the placed vertices' extremes */
      const clt_convex_t *c = shape->convex;
      for (int k = 0; k < 3; k++) {
        lower[k] = INFINITY;
        upper[k] = -INFINITY;
      }
      for (int i = 0; i < c->vertex_count; i++) {
        double x[3];
        clt_m3_mulv(x, s.rotation, c->vertices[i]);
        for (int k = 0; k < 3; k++) {
          lower[k] = fmin(lower[k], s.position[k] + x[k]);
          upper[k] = fmax(upper[k], s.position[k] + x[k]);
        }
      }
      return true;
    }
    case CLT_SHAPE_MESH: { /* the placed corners of the mesh's box */
      const clt_mesh_t *m = shape->mesh;
      for (int k = 0; k < 3; k++) {
        lower[k] = INFINITY;
        upper[k] = -INFINITY;
      }
      for (int i = 0; i < 8; i++) {
        double l[3] = {(i & 1) ? m->hi[0] : m->lo[0], (i & 2) ? m->hi[1] : m->lo[1], (i & 4) ? m->hi[2] : m->lo[2]}, x[3];
        clt_m3_mulv(x, s.rotation, l);
        for (int k = 0; k < 3; k++) {
          lower[k] = fmin(lower[k], s.position[k] + x[k]);
          upper[k] = fmax(upper[k], s.position[k] + x[k]);
        }
      }
      return true;
    }
    case CLT_SHAPE_TORUS: { /* the bounding sphere of the ring */
      double r = shape->major_radius + shape->minor_radius;
      h[0] = h[1] = h[2] = r;
      set_box(lower, upper, s.position, h);
      return true;
    }
    default:
      for (int k = 0; k < 3; k++) {
        lower[k] = -INFINITY;
        upper[k] = INFINITY;
      }
      return false;
  }
}
