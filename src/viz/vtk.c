/* VTK XML output for ParaView: per trajectory frame a PolyData file (.vtp, ASCII, numbers with
 * 17 significant digits so they read back exactly) and .pvd collections that give each file its
 * time. Three series: the bodies as points with their state and shape parameters, the shapes as
 * surfaces (triangles and quads, for viewing), and the contacts when the run has /contacts. */
#define _POSIX_C_SOURCE 200809L /* popen, access, mkdir */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "viz/viz.h"

typedef struct mesh_t {
  double *points; /* 3 per point */
  int64_t point_count, point_cap;
  int64_t *conn, *offsets;
  int64_t conn_count, conn_cap, poly_count, poly_cap;
  int32_t *poly_body, *poly_shape_type;
  bool failed;
} mesh_t;

static int64_t mesh_point(mesh_t *m, double x, double y, double z) {
  if (m->point_count == m->point_cap) {
    int64_t cap = m->point_cap ? 2 * m->point_cap : 256;
    double *p = realloc(m->points, (size_t)cap * 3 * sizeof(double));
    if (!p) {
      m->failed = true;
      return 0;
    }
    m->points = p;
    m->point_cap = cap;
  }
  double *p = m->points + 3 * m->point_count;
  p[0] = x, p[1] = y, p[2] = z;
  return m->point_count++;
}

static void mesh_poly(mesh_t *m, const int64_t *ids, int n, int body, int type) {
  if (m->failed) return;
  if (m->conn_count + n > m->conn_cap) {
    int64_t cap = m->conn_cap ? 2 * m->conn_cap : 1024;
    while (cap < m->conn_count + n) cap *= 2;
    int64_t *c = realloc(m->conn, (size_t)cap * sizeof(int64_t));
    if (!c) {
      m->failed = true;
      return;
    }
    m->conn = c;
    m->conn_cap = cap;
  }
  if (m->poly_count == m->poly_cap) {
    int64_t cap = m->poly_cap ? 2 * m->poly_cap : 256;
    int64_t *o = realloc(m->offsets, (size_t)cap * sizeof(int64_t));
    if (o) m->offsets = o;
    int32_t *b = realloc(m->poly_body, (size_t)cap * sizeof(int32_t));
    if (b) m->poly_body = b;
    int32_t *t = realloc(m->poly_shape_type, (size_t)cap * sizeof(int32_t));
    if (t) m->poly_shape_type = t;
    if (!o || !b || !t) {
      m->failed = true;
      return;
    }
    m->poly_cap = cap;
  }
  memcpy(m->conn + m->conn_count, ids, (size_t)n * sizeof(int64_t));
  m->conn_count += n;
  m->offsets[m->poly_count] = m->conn_count;
  m->poly_body[m->poly_count] = body;
  m->poly_shape_type[m->poly_count] = type;
  m->poly_count++;
}

static void mesh_free(mesh_t *m) {
  free(m->points);
  free(m->conn);
  free(m->offsets);
  free(m->poly_body);
  free(m->poly_shape_type);
}

/* A world point from a local one. */
static int64_t add_local(mesh_t *m, const double p[3], const double q[4], double x, double y, double z) {
  double l[3] = {x, y, z}, w[3];
  clt_viz_quat_rotate(q, l, w);
  return mesh_point(m, p[0] + w[0], p[1] + w[1], p[2] + w[2]);
}

/* A surface of revolution-like grid: rows × cols points from f(i, j), quads between them
 * (wrapping in j). */
typedef void (*grid_fn)(const clt_viz_shape_t *s, int i, int j, int rows, int cols, double out[3]);

static void mesh_grid(mesh_t *m, const clt_viz_shape_t *s, const double p[3], const double q[4], int rows,
                      int cols, grid_fn f, int body) {
  int64_t base = m->point_count;
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++) {
      double l[3];
      f(s, i, j, rows, cols, l);
      add_local(m, p, q, l[0], l[1], l[2]);
    }
  }
  for (int i = 0; i + 1 < rows; i++) {
    for (int j = 0; j < cols; j++) {
      int jn = (j + 1) % cols;
      int64_t ids[4] = {base + i * cols + j, base + i * cols + jn, base + (i + 1) * cols + jn,
                        base + (i + 1) * cols + j};
      mesh_poly(m, ids, 4, body, (int)s->type);
    }
  }
}

#define VTK_PI 3.14159265358979323846

static void ellipsoid_fn(const clt_viz_shape_t *s, int i, int j, int rows, int cols, double out[3]) {
  double th = VTK_PI * i / (rows - 1), ph = 2 * VTK_PI * j / cols;
  double a[3] = {s->radius, s->radius, s->radius};
  if (s->type == CLT_SHAPE_ELLIPSOID) memcpy(a, s->semi_axes, sizeof a);
  out[0] = a[0] * sin(th) * cos(ph);
  out[1] = a[1] * sin(th) * sin(ph);
  out[2] = a[2] * cos(th);
}

static void capsule_fn(const clt_viz_shape_t *s, int i, int j, int rows, int cols, double out[3]) {
  /* rows even: the upper half sits at +L/2, the lower half at −L/2 (equator ring doubled). */
  int half = rows / 2;
  int k = i < half ? i : i - 1;
  double th = VTK_PI * k / (rows - 2), ph = 2 * VTK_PI * j / cols;
  out[0] = s->radius * sin(th) * cos(ph);
  out[1] = s->radius * sin(th) * sin(ph);
  out[2] = s->radius * cos(th) + (i < half ? 0.5 : -0.5) * s->length;
}

static void torus_fn(const clt_viz_shape_t *s, int i, int j, int rows, int cols, double out[3]) {
  double u = 2 * VTK_PI * i / (rows - 1), v = 2 * VTK_PI * j / cols;
  double rho = s->major_radius + s->minor_radius * cos(v);
  out[0] = rho * cos(u);
  out[1] = rho * sin(u);
  out[2] = s->minor_radius * sin(v);
}

/* Cylinder: rows 0 and rows−1 are the cap centres, 1 … rows−2 rings from the top rim to the bottom. */
static void cylinder_fn(const clt_viz_shape_t *s, int i, int j, int rows, int cols, double out[3]) {
  double ph = 2 * VTK_PI * j / cols, h = 0.5 * s->length;
  double rho = (i == 0 || i == rows - 1) ? 0.0 : s->radius;
  out[0] = rho * cos(ph);
  out[1] = rho * sin(ph);
  out[2] = i <= 1 ? h : (i >= rows - 2 ? -h : h - 2 * h * (i - 1) / (rows - 3));
}

static void mesh_shape(mesh_t *m, const clt_viz_run_t *run, int64_t frame, int k, double plane_size) {
  clt_viz_shape_t shape;
  if (!clt_viz_frame_shape(run, frame, k, &shape)) return; /* not yet born (a growing run) */
  const clt_viz_shape_t *s = &shape;
  double p[3], q[4];
  clt_viz_shape_pose(run, frame, k, p, q);
  int body = s->body, type = (int)s->type;
  switch (s->type) {
    case CLT_SHAPE_SPHERE:
    case CLT_SHAPE_ELLIPSOID: mesh_grid(m, s, p, q, 13, 24, ellipsoid_fn, body); break;
    case CLT_SHAPE_CAPSULE: mesh_grid(m, s, p, q, 14, 24, capsule_fn, body); break;
    case CLT_SHAPE_TORUS: mesh_grid(m, s, p, q, 33, 16, torus_fn, body); break;
    case CLT_SHAPE_CYLINDER: mesh_grid(m, s, p, q, 5, 32, cylinder_fn, body); break;
    case CLT_SHAPE_MESH: {
      if (!s->mesh) break;
      int64_t base = m->point_count;
      const double(*v)[3] = clt_mesh_vertices(s->mesh);
      const int(*t)[3] = clt_mesh_triangles(s->mesh);
      for (int i = 0; i < clt_mesh_vertex_count(s->mesh); i++) add_local(m, p, q, v[i][0], v[i][1], v[i][2]);
      for (int f = 0; f < clt_mesh_triangle_count(s->mesh); f++) {
        int64_t ids[3] = {base + t[f][0], base + t[f][1], base + t[f][2]};
        mesh_poly(m, ids, 3, body, type);
      }
      break;
    }
    case CLT_SHAPE_POLYHEDRON: {
      if (!s->hull) break;
      int64_t base = m->point_count;
      const double(*v)[3] = clt_convex_vertices(s->hull);
      for (int i = 0; i < clt_convex_vertex_count(s->hull); i++) add_local(m, p, q, v[i][0], v[i][1], v[i][2]);
      for (int f = 0; f < clt_convex_face_count(s->hull); f++) {
        const int *idx;
        int n = clt_convex_face(s->hull, f, &idx);
        int64_t ids[256];
        if (n > 256) n = 256;
        for (int i = 0; i < n; i++) ids[i] = base + idx[i];
        mesh_poly(m, ids, n, body, type);
      }
      break;
    }
    case CLT_SHAPE_BOX: {
      int64_t base = m->point_count;
      for (int c = 0; c < 8; c++) {
        add_local(m, p, q, ((c & 1) ? 1 : -1) * s->half_extents[0], ((c & 2) ? 1 : -1) * s->half_extents[1],
                  ((c & 4) ? 1 : -1) * s->half_extents[2]);
      }
      static const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                      {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
      for (int f = 0; f < 6; f++) {
        int64_t ids[4];
        for (int v = 0; v < 4; v++) ids[v] = base + faces[f][v];
        mesh_poly(m, ids, 4, body, type);
      }
      break;
    }
    case CLT_SHAPE_DISK:
    case CLT_SHAPE_ELLIPSE: {
      int64_t ids[48];
      double a = s->type == CLT_SHAPE_DISK ? s->radius : s->semi_axes[0];
      double b = s->type == CLT_SHAPE_DISK ? s->radius : s->semi_axes[1];
      for (int v = 0; v < 48; v++) {
        double t = 2 * VTK_PI * v / 48;
        ids[v] = add_local(m, p, q, a * cos(t), b * sin(t), 0);
      }
      mesh_poly(m, ids, 48, body, type);
      break;
    }
    case CLT_SHAPE_POLYGON: {
      int64_t ids[64];
      int n = s->vertex_count > 64 ? 64 : s->vertex_count;
      for (int v = 0; v < n; v++) {
        const double *x = run->vertices + 2 * (s->first_vertex + v);
        ids[v] = add_local(m, p, q, x[0], x[1], 0);
      }
      mesh_poly(m, ids, n, body, type);
      break;
    }
    case CLT_SHAPE_SEGMENT: {
      /* The rounded segment's outline (a stadium), or a thin sliver when radius = 0. */
      double dx = s->b[0] - s->a[0], dy = s->b[1] - s->a[1], len = hypot(dx, dy);
      double r = s->radius > 0 ? s->radius : 1e-3 * len, base = atan2(dy, dx);
      int64_t ids[34];
      int n = 0;
      for (int e = 0; e < 2; e++) {
        const double *c = e ? s->a : s->b;
        for (int v = 0; v <= 16; v++) {
          double t = base - 0.5 * VTK_PI + VTK_PI * v / 16 + (e ? VTK_PI : 0);
          ids[n++] = add_local(m, p, q, c[0] + r * cos(t), c[1] + r * sin(t), 0);
        }
      }
      mesh_poly(m, ids, n, body, type);
      break;
    }
    case CLT_SHAPE_HALFSPACE:
    case CLT_SHAPE_HALFPLANE: {
      double n[3], o[3], t1[3], t2[3], any[3] = {1, 0, 0};
      clt_viz_quat_rotate(q, s->normal, n);
      double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      for (int i = 0; i < 3; i++) n[i] /= nn > 0 ? nn : 1;
      clt_viz_quat_rotate(q, s->point, o);
      for (int i = 0; i < 3; i++) o[i] += p[i];
      if (s->type == CLT_SHAPE_HALFPLANE) {
        /* A band on the solid side, in the z = 0 plane. */
        double t[2] = {-n[1], n[0]}, h = plane_size;
        int64_t ids[4] = {mesh_point(m, o[0] + h * t[0], o[1] + h * t[1], 0),
                          mesh_point(m, o[0] - h * t[0], o[1] - h * t[1], 0),
                          mesh_point(m, o[0] - h * t[0] - 0.1 * h * n[0], o[1] - h * t[1] - 0.1 * h * n[1], 0),
                          mesh_point(m, o[0] + h * t[0] - 0.1 * h * n[0], o[1] + h * t[1] - 0.1 * h * n[1], 0)};
        mesh_poly(m, ids, 4, body, type);
        break;
      }
      if (fabs(n[0]) > 0.9) any[0] = 0, any[1] = 1;
      t1[0] = n[1] * any[2] - n[2] * any[1], t1[1] = n[2] * any[0] - n[0] * any[2],
      t1[2] = n[0] * any[1] - n[1] * any[0];
      double l = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
      for (int i = 0; i < 3; i++) t1[i] /= l;
      t2[0] = n[1] * t1[2] - n[2] * t1[1], t2[1] = n[2] * t1[0] - n[0] * t1[2], t2[2] = n[0] * t1[1] - n[1] * t1[0];
      int64_t ids[4];
      for (int c = 0; c < 4; c++) {
        double a = (c == 0 || c == 3) ? -plane_size : plane_size, b = c < 2 ? -plane_size : plane_size;
        ids[c] = mesh_point(m, o[0] + a * t1[0] + b * t2[0], o[1] + a * t1[1] + b * t2[1], o[2] + a * t1[2] + b * t2[2]);
      }
      mesh_poly(m, ids, 4, body, type);
      break;
    }
    default: break;
  }
}

/* ---------------------------------------------------------------------------------------------
 * Writing */

static void write_doubles(FILE *f, const char *name, int components, const double *v, int64_t n) {
  fprintf(f, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n", name,
          components);
  for (int64_t i = 0; i < n; i++) {
    fputs("         ", f);
    for (int c = 0; c < components; c++) {
      double x = v[i * components + c];
      fprintf(f, " %.17g", isfinite(x) ? x : (x > 0 ? DBL_MAX : x < 0 ? -DBL_MAX : 0));
    }
    fputc('\n', f);
  }
  fputs("        </DataArray>\n", f);
}

static void write_int32(FILE *f, const char *name, const int32_t *v, int64_t n) {
  fprintf(f, "        <DataArray type=\"Int32\" Name=\"%s\" format=\"ascii\">\n         ", name);
  for (int64_t i = 0; i < n; i++) fprintf(f, " %d%s", (int)v[i], (i + 1) % 20 == 0 ? "\n         " : "");
  fputs("\n        </DataArray>\n", f);
}

static void write_int64(FILE *f, const char *name, const int64_t *v, int64_t n) {
  fprintf(f, "        <DataArray type=\"Int64\" Name=\"%s\" format=\"ascii\">\n         ", name);
  for (int64_t i = 0; i < n; i++) fprintf(f, " %lld%s", (long long)v[i], (i + 1) % 20 == 0 ? "\n         " : "");
  fputs("\n        </DataArray>\n", f);
}

static void write_header(FILE *f, int64_t points, int64_t verts, int64_t polys) {
  fputs("<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
        "  <PolyData>\n",
        f);
  fprintf(f,
          "    <Piece NumberOfPoints=\"%lld\" NumberOfVerts=\"%lld\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
          "NumberOfPolys=\"%lld\">\n",
          (long long)points, (long long)verts, (long long)polys);
}

static void write_points_and_verts(FILE *f, const double *points, int64_t n, bool verts) {
  fputs("      <Points>\n", f);
  write_doubles(f, "Points", 3, points, n);
  fputs("      </Points>\n", f);
  if (!verts) return;
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
  if (!ids) return;
  fputs("      <Verts>\n", f);
  for (int64_t i = 0; i < n; i++) ids[i] = i;
  write_int64(f, "connectivity", ids, n);
  for (int64_t i = 0; i < n; i++) ids[i] = i + 1;
  write_int64(f, "offsets", ids, n);
  fputs("      </Verts>\n", f);
  free(ids);
}

static void write_footer(FILE *f) { fputs("    </Piece>\n  </PolyData>\n</VTKFile>\n", f); }

static bool write_bodies(const clt_viz_run_t *run, int64_t frame, const char *path) {
  const clt_viz_frame_t *state = clt_viz_run_frame(run, frame);
  if (!state) return false;
  FILE *f = fopen(path, "w");
  if (!f) return false;
  int64_t n = run->body_count;
  size_t rows = (size_t)(n > 0 ? n : 1);
  double *buf = calloc(rows * 4, sizeof(double));
  int32_t *ibuf = calloc(rows, sizeof(int32_t));
  if (!buf || !ibuf) {
    free(buf), free(ibuf);
    fclose(f);
    return false;
  }
  write_header(f, n, n, 0);
  fputs("      <PointData Scalars=\"body_id\" Vectors=\"velocity\">\n", f);
  write_doubles(f, "orientation", 4, state->orientation, n);
  if (state->angle) write_doubles(f, "angle", 1, state->angle, n);
  if (state->velocity) write_doubles(f, "velocity", 3, state->velocity, n);
  if (state->angular_velocity) write_doubles(f, "angular_velocity", 3, state->angular_velocity, n);
  for (int64_t i = 0; i < n; i++) ibuf[i] = (int32_t)i;
  write_int32(f, "body_id", ibuf, n);
  for (int64_t i = 0; i < n; i++) ibuf[i] = run->body_type[i];
  write_int32(f, "body_type", ibuf, n);
  for (int64_t i = 0; i < n; i++) ibuf[i] = run->body_shape_count[i];
  write_int32(f, "shape_count", ibuf, n);
  for (int64_t i = 0; i < n; i++) ibuf[i] = run->body_shape_count[i] > 0 ? (int32_t)run->shapes[run->body_first_shape[i]].type : -1;
  write_int32(f, "shape_type", ibuf, n);
  /* The first shape's parameters (zeros for bodies without shapes). */
  static const struct {
    const char *name;
    size_t offset;
    int width;
  } fields[] = {{"radius", offsetof(clt_viz_shape_t, radius), 1},
                {"length", offsetof(clt_viz_shape_t, length), 1},
                {"half_extents", offsetof(clt_viz_shape_t, half_extents), 3},
                {"semi_axes", offsetof(clt_viz_shape_t, semi_axes), 3},
                {"major_radius", offsetof(clt_viz_shape_t, major_radius), 1},
                {"minor_radius", offsetof(clt_viz_shape_t, minor_radius), 1}};
  for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
    int w = fields[k].width;
    for (int64_t i = 0; i < n; i++) {
      if (run->body_shape_count[i] > 0) {
        const clt_viz_shape_t *s = &run->shapes[run->body_first_shape[i]];
        memcpy(buf + i * w, (const char *)s + fields[k].offset, sizeof(double) * (size_t)w);
      } else {
        memset(buf + i * w, 0, sizeof(double) * (size_t)w);
      }
    }
    write_doubles(f, fields[k].name, w, buf, n);
  }
  fputs("      </PointData>\n", f);
  write_points_and_verts(f, state->position, n, true);
  write_footer(f);
  free(buf);
  free(ibuf);
  return fclose(f) == 0;
}

static bool write_shapes(const clt_viz_run_t *run, int64_t frame, double plane_size, const char *path) {
  if (!clt_viz_run_frame(run, frame)) return false;
  mesh_t m;
  memset(&m, 0, sizeof m);
  for (int k = 0; k < run->shape_count; k++) mesh_shape(&m, run, frame, k, plane_size);
  if (m.failed) {
    mesh_free(&m);
    return false;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    mesh_free(&m);
    return false;
  }
  write_header(f, m.point_count, 0, m.poly_count);
  fputs("      <CellData Scalars=\"body_id\">\n", f);
  write_int32(f, "body_id", m.poly_body, m.poly_count);
  write_int32(f, "shape_type", m.poly_shape_type, m.poly_count);
  fputs("      </CellData>\n", f);
  write_points_and_verts(f, m.points, m.point_count, false);
  fputs("      <Polys>\n", f);
  write_int64(f, "connectivity", m.conn, m.conn_count);
  write_int64(f, "offsets", m.offsets, m.poly_count);
  fputs("      </Polys>\n", f);
  write_footer(f);
  mesh_free(&m);
  return fclose(f) == 0;
}

static bool write_contacts(const clt_viz_run_t *run, int64_t frame, const char *path) {
  const clt_viz_contacts_t *c = &run->contacts;
  int64_t first = c->first[frame], n = c->count[frame];
  FILE *f = fopen(path, "w");
  if (!f) return false;
  write_header(f, n, n, 0);
  fputs("      <PointData Vectors=\"force\">\n", f);
  if (c->normal) write_doubles(f, "normal", 3, c->normal + 3 * first, n);
  if (c->force) write_doubles(f, "force", 3, c->force + 3 * first, n);
  if (c->normal_force) write_doubles(f, "normal_force", 1, c->normal_force + first, n);
  if (c->distance) write_doubles(f, "distance", 1, c->distance + first, n);
  if (c->body_a) write_int32(f, "body_a", c->body_a + first, n);
  if (c->body_b) write_int32(f, "body_b", c->body_b + first, n);
  /* every candidate is exported; threshold on touching = 1 for the force network (docs/visualization.md) */
  if (c->touching) write_int32(f, "touching", c->touching + first, n);
  fputs("      </PointData>\n", f);
  write_points_and_verts(f, c->point + 3 * first, n, true);
  write_footer(f);
  return fclose(f) == 0;
}

static const char *file_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

clt_status_t clt_viz_write_vtk(const clt_viz_run_t *run, const char *dir, const char *base, int64_t first,
                               int64_t last, int64_t stride, int *files_written, char *message,
                               size_t message_size) {
  *files_written = 0;
  if (!base || !base[0] || strchr(base, '/') || base[0] == '.') { /* the files stay inside dir */
    if (message) snprintf(message, message_size, "'%s': a base name must be a file name (no '/', no leading '.')",
                          base ? base : "");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (run->frame_count < 1) {
    if (message) snprintf(message, message_size, "%s: the run has no trajectory frames", run->path);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (stride < 1) stride = 1;
  if (first < 0) first = 0;
  if (last >= run->frame_count) last = run->frame_count - 1;
  if (first > last) {
    if (message) snprintf(message, message_size, "empty frame range");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    if (message) snprintf(message, message_size, "%s: cannot create directory (%s)", dir, strerror(errno));
    return CLT_ERR_IO;
  }
  /* Half-space and half-plane patches sized to the bodies' whole range of motion. */
  clt_viz_render_options_t o = clt_viz_default_render_options();
  clt_viz_view_t view;
  clt_viz_fit_view(run, first, last, stride, &o, &view);
  double plane_size = run->dimension == 2 ? 0.5 * hypot(view.max[0] - view.min[0], view.max[1] - view.min[1])
                                          : 6 * view.floor_tile;
  const char *series[3] = {"", "_shapes", "_contacts"};
  int series_count = run->has_contacts ? 3 : 2;
  FILE *pvd[3] = {NULL, NULL, NULL};
  size_t plen = strlen(dir) + strlen(base) + 64;
  char *path = malloc(plen);
  if (!path) return CLT_ERR_OUT_OF_MEMORY;
  clt_status_t status = CLT_OK;
  for (int s = 0; s < series_count && status == CLT_OK; s++) {
    snprintf(path, plen, "%s/%s%s.pvd", dir, base, series[s]);
    pvd[s] = fopen(path, "w");
    if (!pvd[s]) {
      status = CLT_ERR_IO;
      break;
    }
    fputs("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          "  <Collection>\n",
          pvd[s]);
  }
  for (int64_t frame = first; status == CLT_OK && frame <= last; frame += stride) {
    for (int s = 0; s < series_count; s++) {
      snprintf(path, plen, "%s/%s%s_%05lld.vtp", dir, base, series[s], (long long)frame);
      bool ok = s == 0 ? write_bodies(run, frame, path)
                : s == 1 ? write_shapes(run, frame, plane_size, path)
                         : write_contacts(run, frame, path);
      if (!ok) {
        status = CLT_ERR_IO;
        break;
      }
      (*files_written)++;
      fprintf(pvd[s], "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s\"/>\n", run->frame_time[frame],
              file_name(path));
    }
  }
  for (int s = 0; s < series_count; s++) {
    if (!pvd[s]) continue;
    fputs("  </Collection>\n</VTKFile>\n", pvd[s]);
    if (fclose(pvd[s]) != 0) status = CLT_ERR_IO;
    else if (status == CLT_OK) (*files_written)++;
  }
  if (status != CLT_OK && message) snprintf(message, message_size, "%s: cannot write (%s)", path, strerror(errno));
  free(path);
  return status;
}
