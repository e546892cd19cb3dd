/* The 3D renderer: a small per-pixel ray caster with exact ray–shape intersections (sphere, box,
 * capsule, ellipsoid analytically; torus by sphere tracing its exact distance function), so
 * occlusion is right wherever shapes interpenetrate. Shading: ambient + Lambert from one light
 * near the camera, plus a shadow ray when the scene is small; half-spaces are checkered floors
 * that fade into the background with distance. The picture is supersampled (options->supersample²
 * rays per pixel) and written into a cairo ARGB32 surface. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/mesh.h"
#include "viz/viz.h"

#define TILE 16           /* pixels per side of a screen tile for the shape lists */
#define SHADOW_MAX_SHAPES 256 /* shadow rays test every shape: only for small scenes */
#define AMBIENT 0.32
#define DIFFUSE 0.68

typedef struct prim_t {
  clt_shape_type_t type;
  int body;
  double center[3];
  double q[4];     /* local → world */
  double radius;   /* bounding sphere */
  clt_viz_shape_t shape; /* as at the frame (a growing run: its length then) */
  double rgb[3];
} prim_t;

typedef struct plane_t {
  double point[3], normal[3];
} plane_t;

typedef struct camera_t {
  double eye[3], f[3], r[3], u[3];
  double tan_half, aspect;
  int width, height;
} camera_t;

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double a[3], const double b[3], double out[3]) {
  double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  memcpy(out, r, sizeof r);
}

static void normalize3(double v[3]) {
  double n = sqrt(dot3(v, v));
  if (n > 0) {
    for (int i = 0; i < 3; i++) v[i] /= n;
  }
}

static void make_camera(const clt_viz_view_t *view, camera_t *cam) {
  memcpy(cam->eye, view->eye, sizeof cam->eye);
  for (int i = 0; i < 3; i++) cam->f[i] = view->target[i] - view->eye[i];
  normalize3(cam->f);
  if (!(dot3(cam->f, cam->f) > 0)) cam->f[0] = 1;
  double up[3] = {view->up[0], view->up[1], view->up[2]};
  if (!(dot3(up, up) > 0)) up[2] = 1;
  cross3(cam->f, up, cam->r);
  if (dot3(cam->r, cam->r) < 1e-12) {
    /* Looking along the up axis: any perpendicular will do. */
    double other[3] = {1, 0, 0};
    if (fabs(cam->f[0]) > 0.9) other[0] = 0, other[1] = 1;
    cross3(cam->f, other, cam->r);
  }
  normalize3(cam->r);
  cross3(cam->r, cam->f, cam->u);
  cam->tan_half = tan(0.5 * (view->fov_y > 0 ? view->fov_y : 0.6));
  cam->width = view->width;
  cam->height = view->height;
  cam->aspect = (double)view->width / view->height;
}

bool clt_viz_project(const clt_viz_view_t *view, const double p[3], double *px, double *py) {
  camera_t cam;
  make_camera(view, &cam);
  double d[3] = {p[0] - cam.eye[0], p[1] - cam.eye[1], p[2] - cam.eye[2]};
  double z = dot3(d, cam.f);
  if (z <= 1e-9) return false;
  double x = dot3(d, cam.r) / (z * cam.tan_half * cam.aspect), y = dot3(d, cam.u) / (z * cam.tan_half);
  *px = 0.5 * (x + 1) * cam.width;
  *py = 0.5 * (1 - y) * cam.height;
  return true;
}

/* ---------------------------------------------------------------------------------------------
 * Ray–shape intersections in the shape's local frame: nearest t in (tmin, tmax), local normal. */

static bool solve_quadratic(double a, double b, double c, double *t0, double *t1) {
  double disc = b * b - 4 * a * c;
  if (disc < 0 || a == 0) return false;
  double s = sqrt(disc);
  double q = b < 0 ? -0.5 * (b - s) : -0.5 * (b + s); /* stable roots */
  double r0 = q / a, r1 = q != 0 ? c / q : r0;
  *t0 = fmin(r0, r1);
  *t1 = fmax(r0, r1);
  return true;
}

static bool hit_sphere(const double o[3], const double d[3], const double c[3], double r, double tmin,
                       double tmax, double *t) {
  double oc[3] = {o[0] - c[0], o[1] - c[1], o[2] - c[2]};
  double t0, t1;
  if (!solve_quadratic(dot3(d, d), 2 * dot3(oc, d), dot3(oc, oc) - r * r, &t0, &t1)) return false;
  if (t0 > tmin && t0 < tmax) {
    *t = t0;
    return true;
  }
  if (t1 > tmin && t1 < tmax) {
    *t = t1;
    return true;
  }
  return false;
}

static bool hit_box(const double o[3], const double d[3], const double h[3], double tmin, double tmax, double *t,
                    double n[3]) {
  double t_near = -DBL_MAX, t_far = DBL_MAX;
  int axis_near = 0, axis_far = 0;
  for (int i = 0; i < 3; i++) {
    if (fabs(d[i]) < 1e-300) {
      if (o[i] < -h[i] || o[i] > h[i]) return false;
      continue;
    }
    double a = (-h[i] - o[i]) / d[i], b = (h[i] - o[i]) / d[i];
    if (a > b) {
      double tmp = a;
      a = b;
      b = tmp;
    }
    if (a > t_near) t_near = a, axis_near = i;
    if (b < t_far) t_far = b, axis_far = i;
  }
  if (t_near > t_far) return false;
  int axis;
  if (t_near > tmin && t_near < tmax) {
    *t = t_near;
    axis = axis_near;
  } else if (t_far > tmin && t_far < tmax) {
    *t = t_far;
    axis = axis_far;
  } else {
    return false;
  }
  n[0] = n[1] = n[2] = 0;
  double p = o[axis] + *t * d[axis];
  n[axis] = p > 0 ? 1 : -1;
  return true;
}

static bool hit_capsule(const double o[3], const double d[3], double r, double half, double tmin, double tmax,
                        double *t, double n[3]) {
  bool hit = false;
  double best = tmax;
  /* The cylinder x² + y² = r², |z| ≤ half. */
  double t0, t1;
  if (solve_quadratic(d[0] * d[0] + d[1] * d[1], 2 * (o[0] * d[0] + o[1] * d[1]),
                      o[0] * o[0] + o[1] * o[1] - r * r, &t0, &t1)) {
    double ts[2] = {t0, t1};
    for (int k = 0; k < 2; k++) {
      double z = o[2] + ts[k] * d[2];
      if (ts[k] > tmin && ts[k] < best && fabs(z) <= half) {
        best = ts[k];
        hit = true;
        n[0] = o[0] + best * d[0];
        n[1] = o[1] + best * d[1];
        n[2] = 0;
      }
    }
  }
  for (int cap = -1; cap <= 1; cap += 2) {
    double c[3] = {0, 0, cap * half}, tc;
    if (hit_sphere(o, d, c, r, tmin, best, &tc)) {
      best = tc;
      hit = true;
      for (int i = 0; i < 3; i++) n[i] = o[i] + tc * d[i] - c[i];
    }
  }
  if (hit) {
    *t = best;
    normalize3(n);
  }
  return hit;
}

static bool hit_ellipsoid(const double o[3], const double d[3], const double ax[3], double tmin, double tmax,
                          double *t, double n[3]) {
  double os[3] = {o[0] / ax[0], o[1] / ax[1], o[2] / ax[2]}, ds[3] = {d[0] / ax[0], d[1] / ax[1], d[2] / ax[2]};
  double t0, t1;
  if (!solve_quadratic(dot3(ds, ds), 2 * dot3(os, ds), dot3(os, os) - 1, &t0, &t1)) return false;
  if (t0 > tmin && t0 < tmax) *t = t0;
  else if (t1 > tmin && t1 < tmax) *t = t1;
  else return false;
  for (int i = 0; i < 3; i++) n[i] = (o[i] + *t * d[i]) / (ax[i] * ax[i]);
  normalize3(n);
  return true;
}

static double torus_sdf(const double p[3], double big, double small) {
  double qx = sqrt(p[0] * p[0] + p[1] * p[1]) - big;
  return sqrt(qx * qx + p[2] * p[2]) - small;
}

/* Sphere tracing the torus' exact distance function inside its bounding sphere: the step never
 * overshoots the surface, so the first hit is found; misses only rays that graze within eps. */
static bool hit_torus(const double o[3], const double d[3], double big, double small, double tmin, double tmax,
                      double *t, double n[3]) {
  double bound = big + small;
  double oc = dot3(o, o), b = dot3(o, d);
  double disc = b * b - (oc - bound * bound);
  if (disc < 0) return false;
  double s = sqrt(disc);
  double t_in = fmax(-b - s, tmin), t_out = fmin(-b + s, tmax);
  double eps = 1e-5 * bound, tt = t_in;
  for (int it = 0; it < 256 && tt <= t_out; it++) {
    double p[3] = {o[0] + tt * d[0], o[1] + tt * d[1], o[2] + tt * d[2]};
    double dist = torus_sdf(p, big, small);
    if (fabs(dist) < eps) {
      if (tt <= tmin) return false;
      double rho = sqrt(p[0] * p[0] + p[1] * p[1]);
      double c[3] = {rho > 0 ? big * p[0] / rho : 0, rho > 0 ? big * p[1] / rho : 0, 0};
      for (int i = 0; i < 3; i++) n[i] = p[i] - c[i];
      normalize3(n);
      *t = tt;
      return true;
    }
    tt += fabs(dist);
  }
  return false;
}

/* A solid cylinder of radius r about z between ±half: the side and the two caps. */
static bool hit_cylinder(const double o[3], const double d[3], double r, double half, double tmin, double tmax,
                         double *t, double n[3]) {
  bool hit = false;
  double best = tmax;
  double a = d[0] * d[0] + d[1] * d[1], b = o[0] * d[0] + o[1] * d[1], c = o[0] * o[0] + o[1] * o[1] - r * r;
  if (a > 1e-300) {
    double disc = b * b - a * c;
    if (disc >= 0) {
      double tt = (-b - sqrt(disc)) / a, z = o[2] + tt * d[2];
      if (tt > tmin && tt < best && fabs(z) <= half) {
        best = tt;
        n[0] = (o[0] + tt * d[0]) / r;
        n[1] = (o[1] + tt * d[1]) / r;
        n[2] = 0;
        hit = true;
      }
    }
  }
  for (int cap = -1; cap <= 1; cap += 2) {
    if (fabs(d[2]) < 1e-300) break;
    double tt = (cap * half - o[2]) / d[2], x = o[0] + tt * d[0], y = o[1] + tt * d[1];
    if (tt > tmin && tt < best && x * x + y * y <= r * r && cap * d[2] < 0) {
      best = tt;
      n[0] = n[1] = 0;
      n[2] = cap;
      hit = true;
    }
  }
  if (hit) *t = best;
  return hit;
}

/* A convex polyhedron (its face planes): the ray enters at the last entering plane, if before it
 * leaves through the first leaving one. */
static bool hit_convex(const double o[3], const double d[3], const clt_convex_t *c, double tmin, double tmax,
                       double *t, double n[3]) {
  double t_in = -DBL_MAX, t_out = DBL_MAX, nin[3] = {0, 0, 1};
  for (int f = 0; f < clt_convex_face_count(c); f++) {
    double m[3], off;
    clt_convex_face_plane(c, f, m, &off);
    double dn = dot3(d, m), dist = off - dot3(o, m);
    if (fabs(dn) < 1e-300) {
      if (dist < 0) return false; /* parallel and outside */
      continue;
    }
    double tt = dist / dn;
    if (dn < 0) {
      if (tt > t_in) {
        t_in = tt;
        memcpy(nin, m, sizeof nin);
      }
    } else if (tt < t_out) {
      t_out = tt;
    }
  }
  if (!(t_in <= t_out) || t_in <= tmin || t_in >= tmax) return false;
  *t = t_in;
  memcpy(n, nin, sizeof nin);
  return true;
}

/* A triangle mesh through its hierarchy (both sides drawn): the nearest triangle along the ray
 * (Möller–Trumbore), the normal turned towards the viewer. */
static bool hit_mesh(const double o[3], const double d[3], const clt_mesh_t *m, double tmin, double tmax, double *t,
                     double n[3]) {
  int stack[128], top = 0;
  stack[top++] = 0;
  bool hit = false;
  double best = tmax, inv[3];
  for (int k = 0; k < 3; k++) inv[k] = 1.0 / d[k];
  while (top > 0) {
    const clt_mesh_node_t *node = &m->nodes[stack[--top]];
    double t0 = tmin, t1 = best;
    for (int k = 0; k < 3 && t0 <= t1; k++) {
      double a = (node->lo[k] - o[k]) * inv[k], b = (node->hi[k] - o[k]) * inv[k];
      if (a > b) {
        double x = a;
        a = b;
        b = x;
      }
      t0 = fmax(t0, a);
      t1 = fmin(t1, b);
    }
    if (!(t0 <= t1)) continue;
    if (node->count == 0) {
      if (top + 2 <= 128) {
        stack[top++] = node->first + 1;
        stack[top++] = node->first;
      }
      continue;
    }
    for (int i = node->first; i < node->first + node->count; i++) {
      const int *tri = m->triangles[m->order[i]];
      const double *a = m->vertices[tri[0]], *b = m->vertices[tri[1]], *c = m->vertices[tri[2]];
      double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
      double p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
      double det = dot3(e1, p);
      if (fabs(det) < 1e-300) continue;
      double s[3] = {o[0] - a[0], o[1] - a[1], o[2] - a[2]}, u = dot3(s, p) / det;
      if (u < 0 || u > 1) continue;
      double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
      double v = dot3(d, q) / det;
      if (v < 0 || u + v > 1) continue;
      double tt = dot3(e2, q) / det;
      if (tt > tmin && tt < best) {
        best = tt;
        const double *nn = m->normal[m->order[i]];
        double sign = dot3(nn, d) > 0 ? -1.0 : 1.0;
        for (int k = 0; k < 3; k++) n[k] = sign * nn[k];
        hit = true;
      }
    }
  }
  if (hit) *t = best;
  return hit;
}

/* Nearest hit of a world ray with a primitive: t and world normal. */
static bool hit_prim(const prim_t *pr, const double o[3], const double d[3], double tmin, double tmax, double *t,
                     double n[3]) {
  /* Bounding-sphere rejection first. */
  double tb;
  double oc[3] = {o[0] - pr->center[0], o[1] - pr->center[1], o[2] - pr->center[2]};
  if (dot3(oc, oc) > pr->radius * pr->radius && !hit_sphere(o, d, pr->center, pr->radius * 1.0001, tmin, tmax, &tb))
    return false;
  /* World → local: x_l = R⁻¹ (x − c). */
  double qi[4] = {pr->q[0], -pr->q[1], -pr->q[2], -pr->q[3]}, ol[3], dl[3], nl[3] = {0, 0, 1};
  clt_viz_quat_rotate(qi, oc, ol);
  clt_viz_quat_rotate(qi, d, dl);
  const clt_viz_shape_t *s = &pr->shape;
  bool hit = false;
  switch (pr->type) {
    case CLT_SHAPE_SPHERE: {
      double zero[3] = {0, 0, 0};
      hit = hit_sphere(ol, dl, zero, s->radius, tmin, tmax, t);
      if (hit) {
        for (int i = 0; i < 3; i++) nl[i] = ol[i] + *t * dl[i];
        normalize3(nl);
      }
      break;
    }
    case CLT_SHAPE_BOX: hit = hit_box(ol, dl, s->half_extents, tmin, tmax, t, nl); break;
    case CLT_SHAPE_CAPSULE: hit = hit_capsule(ol, dl, s->radius, 0.5 * s->length, tmin, tmax, t, nl); break;
    case CLT_SHAPE_ELLIPSOID: hit = hit_ellipsoid(ol, dl, s->semi_axes, tmin, tmax, t, nl); break;
    case CLT_SHAPE_TORUS: hit = hit_torus(ol, dl, s->major_radius, s->minor_radius, tmin, tmax, t, nl); break;
    case CLT_SHAPE_CYLINDER: hit = hit_cylinder(ol, dl, s->radius, 0.5 * s->length, tmin, tmax, t, nl); break;
    case CLT_SHAPE_POLYHEDRON: hit = s->hull && hit_convex(ol, dl, s->hull, tmin, tmax, t, nl); break;
    case CLT_SHAPE_MESH: hit = s->mesh && hit_mesh(ol, dl, s->mesh, tmin, tmax, t, nl); break;
    default: break;
  }
  if (hit) clt_viz_quat_rotate(pr->q, nl, n);
  return hit;
}

static bool hit_plane(const plane_t *pl, const double o[3], const double d[3], double tmin, double tmax,
                      double *t) {
  double dn = dot3(d, pl->normal);
  if (fabs(dn) < 1e-12) return false;
  double w[3] = {pl->point[0] - o[0], pl->point[1] - o[1], pl->point[2] - o[2]};
  double tt = dot3(w, pl->normal) / dn;
  if (tt > tmin && tt < tmax) {
    *t = tt;
    return true;
  }
  return false;
}

/* ---------------------------------------------------------------------------------------------
 * The picture */

typedef struct scene3_t {
  prim_t *prims;
  int prim_count;
  plane_t *planes;
  int plane_count;
  int *tile_first, *tile_items; /* per screen tile: prim indices (CSR) */
  int tiles_x, tiles_y;
  double light[3];
  bool shadows;
  double tile; /* floor checker size [m] */
  double fade; /* floor fade distance [m] */
} scene3_t;

static bool occluded(const scene3_t *sc, const double p[3], double eps) {
  double t, n[3];
  for (int i = 0; i < sc->prim_count; i++) {
    if (hit_prim(&sc->prims[i], p, sc->light, eps, DBL_MAX, &t, n)) return true;
  }
  return false;
}

/* Colour of one ray. */
static void trace(const scene3_t *sc, const camera_t *cam, const int *items, int item_count, const double d[3],
                  double rgb[3]) {
  double best = DBL_MAX, n[3] = {0, 0, 1}, t, nn[3];
  int hit = -1, plane_hit = -1;
  for (int k = 0; k < item_count; k++) {
    const prim_t *pr = &sc->prims[items[k]];
    if (hit_prim(pr, cam->eye, d, 1e-9, best, &t, nn)) {
      best = t;
      hit = items[k];
      memcpy(n, nn, sizeof n);
    }
  }
  for (int k = 0; k < sc->plane_count; k++) {
    /* Only the open side of a half-space shows its surface. */
    if (dot3(d, sc->planes[k].normal) >= 0) continue;
    if (hit_plane(&sc->planes[k], cam->eye, d, 1e-9, best, &t)) {
      best = t;
      hit = -1;
      plane_hit = k;
      memcpy(n, sc->planes[k].normal, sizeof n);
    }
  }
  if (hit < 0 && plane_hit < 0) {
    memcpy(rgb, clt_viz_background, 3 * sizeof(double));
    return;
  }
  double p[3] = {cam->eye[0] + best * d[0], cam->eye[1] + best * d[1], cam->eye[2] + best * d[2]};
  if (dot3(n, d) > 0) {
    for (int i = 0; i < 3; i++) n[i] = -n[i]; /* seen from inside */
  }
  double base[3];
  if (hit >= 0) {
    memcpy(base, sc->prims[hit].rgb, sizeof base);
  } else {
    /* Checkerboard in the plane's own coordinates. */
    const plane_t *pl = &sc->planes[plane_hit];
    double a[3], b[3], any[3] = {1, 0, 0};
    if (fabs(pl->normal[0]) > 0.9) any[0] = 0, any[1] = 1;
    cross3(pl->normal, any, a);
    normalize3(a);
    cross3(pl->normal, a, b);
    double w[3] = {p[0] - pl->point[0], p[1] - pl->point[1], p[2] - pl->point[2]};
    long ia = (long)floor(dot3(w, a) / sc->tile), ib = (long)floor(dot3(w, b) / sc->tile);
    double g = ((ia + ib) & 1) ? 0.78 : 0.86;
    base[0] = base[1] = base[2] = g;
  }
  double lambert = fmax(0, dot3(n, sc->light));
  if (lambert > 0 && sc->shadows) {
    double eps = 1e-6 * (1 + best);
    double ps[3] = {p[0] + 1e-4 * sc->tile * n[0], p[1] + 1e-4 * sc->tile * n[1], p[2] + 1e-4 * sc->tile * n[2]};
    if (occluded(sc, ps, eps)) lambert = 0;
  }
  double shade = AMBIENT + DIFFUSE * lambert;
  for (int i = 0; i < 3; i++) rgb[i] = base[i] * shade;
  if (plane_hit >= 0) {
    /* Fade the floor into the background towards the horizon. */
    double f = exp(-best / sc->fade);
    for (int i = 0; i < 3; i++) rgb[i] = f * rgb[i] + (1 - f) * clt_viz_background[i];
  }
}

/* Screen rectangle (pixels) covered by a primitive's bounding sphere; false if off screen. */
static bool prim_rect(const camera_t *cam, const clt_viz_view_t *view, const prim_t *pr, int rect[4]) {
  double d[3] = {pr->center[0] - cam->eye[0], pr->center[1] - cam->eye[1], pr->center[2] - cam->eye[2]};
  double z = dot3(d, cam->f);
  if (z + pr->radius <= 0) return false;
  if (z - pr->radius * 1.8 <= 1e-9) { /* the camera is near or inside: everywhere */
    rect[0] = rect[1] = 0;
    rect[2] = cam->width - 1;
    rect[3] = cam->height - 1;
    return true;
  }
  /* The projection of the bounding cube's corners holds the projected sphere. */
  double lo[2] = {DBL_MAX, DBL_MAX}, hi[2] = {-DBL_MAX, -DBL_MAX};
  for (int c = 0; c < 8; c++) {
    double p[3] = {pr->center[0] + ((c & 1) ? 1 : -1) * pr->radius,
                   pr->center[1] + ((c & 2) ? 1 : -1) * pr->radius,
                   pr->center[2] + ((c & 4) ? 1 : -1) * pr->radius};
    double x, y;
    if (!clt_viz_project(view, p, &x, &y)) {
      rect[0] = rect[1] = 0;
      rect[2] = cam->width - 1;
      rect[3] = cam->height - 1;
      return true;
    }
    lo[0] = fmin(lo[0], x), lo[1] = fmin(lo[1], y), hi[0] = fmax(hi[0], x), hi[1] = fmax(hi[1], y);
  }
  if (hi[0] < 0 || hi[1] < 0 || lo[0] >= cam->width || lo[1] >= cam->height) return false;
  rect[0] = (int)fmax(0, floor(lo[0]) - 1);
  rect[1] = (int)fmax(0, floor(lo[1]) - 1);
  rect[2] = (int)fmin(cam->width - 1, ceil(hi[0]) + 1);
  rect[3] = (int)fmin(cam->height - 1, ceil(hi[1]) + 1);
  return true;
}

static double bounding_radius(const clt_viz_shape_t *s) {
  switch (s->type) {
    case CLT_SHAPE_SPHERE: return s->radius;
    case CLT_SHAPE_BOX: return sqrt(dot3(s->half_extents, s->half_extents));
    case CLT_SHAPE_CAPSULE: return s->radius + 0.5 * s->length;
    case CLT_SHAPE_ELLIPSOID: return fmax(s->semi_axes[0], fmax(s->semi_axes[1], s->semi_axes[2]));
    case CLT_SHAPE_TORUS: return s->major_radius + s->minor_radius;
    case CLT_SHAPE_CYLINDER: return hypot(s->radius, 0.5 * s->length);
    case CLT_SHAPE_POLYHEDRON: return clt_viz_hull_radius(s->hull);
    case CLT_SHAPE_MESH: return clt_viz_mesh_radius(s->mesh);
    default: return 0;
  }
}

clt_status_t clt_viz_render_3d(const clt_viz_run_t *run, int64_t frame, const clt_viz_view_t *view,
                               const clt_viz_render_options_t *options, cairo_surface_t *surface) {
  camera_t cam;
  make_camera(view, &cam);
  scene3_t sc;
  memset(&sc, 0, sizeof sc);
  sc.prims = calloc((size_t)run->shape_count + 1, sizeof *sc.prims);
  sc.planes = calloc((size_t)run->shape_count + 1, sizeof *sc.planes);
  sc.tiles_x = (view->width + TILE - 1) / TILE;
  sc.tiles_y = (view->height + TILE - 1) / TILE;
  size_t tiles = (size_t)sc.tiles_x * (size_t)sc.tiles_y;
  sc.tile_first = calloc(tiles + 1, sizeof(int));
  int *rects = calloc(4 * ((size_t)run->shape_count + 1), sizeof(int));
  double *colors = malloc(sizeof(double) * 3 * ((size_t)run->body_count + 1));
  if (!sc.prims || !sc.planes || !sc.tile_first || !rects || !colors) {
    free(sc.prims), free(sc.planes), free(sc.tile_first), free(rects), free(colors);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  clt_viz_body_colors(run, frame, options, colors);
  for (int k = 0; k < run->shape_count; k++) {
    clt_viz_shape_t shape;
    if (!clt_viz_frame_shape(run, frame, k, &shape)) continue; /* not yet born (a growing run) */
    const clt_viz_shape_t *s = &shape;
    double p[3], q[4];
    clt_viz_shape_pose(run, frame, k, p, q);
    if (s->type == CLT_SHAPE_HALFSPACE) {
      plane_t *pl = &sc.planes[sc.plane_count++];
      clt_viz_quat_rotate(q, s->point, pl->point);
      for (int i = 0; i < 3; i++) pl->point[i] += p[i];
      clt_viz_quat_rotate(q, s->normal, pl->normal);
      normalize3(pl->normal);
      continue;
    }
    double r = bounding_radius(s);
    bool finite = isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) && isfinite(q[0]);
    if (!(r > 0) || !finite) continue;
    prim_t *pr = &sc.prims[sc.prim_count];
    pr->type = s->type;
    pr->body = s->body;
    memcpy(pr->center, p, sizeof p);
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) pr->q[i] = q[i] / qn;
    pr->radius = r;
    pr->shape = *s;
    memcpy(pr->rgb, colors + 3 * s->body, sizeof pr->rgb);
    if (prim_rect(&cam, view, pr, rects + 4 * sc.prim_count)) sc.prim_count++;
  }
  /* Bin primitives into screen tiles (counting pass, then fill). */
  for (int i = 0; i < sc.prim_count; i++) {
    const int *rc = rects + 4 * i;
    for (int ty = rc[1] / TILE; ty <= rc[3] / TILE; ty++) {
      for (int tx = rc[0] / TILE; tx <= rc[2] / TILE; tx++) sc.tile_first[(size_t)ty * sc.tiles_x + tx + 1]++;
    }
  }
  for (size_t t = 0; t < tiles; t++) sc.tile_first[t + 1] += sc.tile_first[t];
  sc.tile_items = calloc((size_t)sc.tile_first[tiles] + 1, sizeof(int));
  int *fill = calloc(tiles + 1, sizeof(int));
  if (!sc.tile_items || !fill) {
    free(sc.prims), free(sc.planes), free(sc.tile_first), free(rects), free(sc.tile_items), free(fill);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  for (int i = 0; i < sc.prim_count; i++) {
    const int *rc = rects + 4 * i;
    for (int ty = rc[1] / TILE; ty <= rc[3] / TILE; ty++) {
      for (int tx = rc[0] / TILE; tx <= rc[2] / TILE; tx++) {
        size_t t = (size_t)ty * sc.tiles_x + tx;
        sc.tile_items[sc.tile_first[t] + fill[t]++] = i;
      }
    }
  }
  free(fill);
  free(rects);
  free(colors);
  /* The light: above and a little to the left of the camera, fixed relative to it. */
  for (int i = 0; i < 3; i++) sc.light[i] = -0.55 * cam.f[i] + 0.75 * view->up[i] - 0.35 * cam.r[i];
  normalize3(sc.light);
  sc.shadows = sc.prim_count <= SHADOW_MAX_SHAPES;
  sc.tile = view->floor_tile > 0 ? view->floor_tile : 1;
  double span = sqrt((view->eye[0] - view->target[0]) * (view->eye[0] - view->target[0]) +
                     (view->eye[1] - view->target[1]) * (view->eye[1] - view->target[1]) +
                     (view->eye[2] - view->target[2]) * (view->eye[2] - view->target[2]));
  sc.fade = 2.5 * fmax(span, 1e-6);

  int ss = options->supersample < 1 ? 1 : options->supersample > 4 ? 4 : options->supersample;
  cairo_surface_flush(surface);
  unsigned char *data = cairo_image_surface_get_data(surface);
  int stride = cairo_image_surface_get_stride(surface);
  for (int y = 0; y < view->height; y++) {
    uint32_t *row = (uint32_t *)(data + (size_t)y * stride);
    for (int x = 0; x < view->width; x++) {
      size_t t = (size_t)(y / TILE) * sc.tiles_x + (size_t)(x / TILE);
      const int *items = sc.tile_items + sc.tile_first[t];
      int count = sc.tile_first[t + 1] - sc.tile_first[t];
      double acc[3] = {0, 0, 0};
      for (int sy = 0; sy < ss; sy++) {
        for (int sx = 0; sx < ss; sx++) {
          double fx = (x + (sx + 0.5) / ss) / view->width, fy = (y + (sy + 0.5) / ss) / view->height;
          double nx = (2 * fx - 1) * cam.tan_half * cam.aspect, ny = (1 - 2 * fy) * cam.tan_half;
          double d[3], rgb[3];
          for (int i = 0; i < 3; i++) d[i] = cam.f[i] + nx * cam.r[i] + ny * cam.u[i];
          normalize3(d);
          trace(&sc, &cam, items, count, d, rgb);
          for (int i = 0; i < 3; i++) acc[i] += rgb[i];
        }
      }
      uint32_t px = 0xff000000u;
      for (int i = 0; i < 3; i++) {
        double v = acc[i] / (ss * ss);
        int c = (int)lround(255.0 * (v < 0 ? 0 : v > 1 ? 1 : v));
        px |= (uint32_t)c << (16 - 8 * i);
      }
      row[x] = px;
    }
  }
  cairo_surface_mark_dirty(surface);
  free(sc.prims);
  free(sc.planes);
  free(sc.tile_first);
  free(sc.tile_items);
  return CLT_OK;
}
