/* VTK XML output for ParaView: per trajectory frame a PolyData file (.vtp) and .pvd collections
 * that give each file its time. Three series: the bodies as points with their state and shape
 * parameters, the shapes as surfaces (triangles and quads, for viewing; by default only of the
 * bodies a sphere glyph cannot draw), and the contacts when the run has /contacts. The .vtp files
 * are binary, zlib-compressed, with Float64 values bit for bit those of the run file, or ASCII on
 * request (docs/visualization.md "`clatter vtk`: ParaView"). */
#define _POSIX_C_SOURCE 200809L /* mkdir */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

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
 * Which bodies the shapes files draw */

/* A body that a sphere glyph of its `radius` at its point draws exactly: a dynamic body whose one
 * shape is a sphere (3D) or disk (2D) centred on the body's point (to 10⁻⁹ of the radius, far
 * below what a picture shows). A body given its own mass and inertia may carry its sphere off its
 * centre of mass, and then it is not one. */
static bool round_body(const clt_viz_run_t *run, int body) {
  if (run->body_type[body] != CLT_BODY_DYNAMIC || run->body_shape_count[body] != 1) return false;
  const clt_viz_shape_t *s = &run->shapes[run->body_first_shape[body]];
  if (s->type != (run->dimension == 2 ? CLT_SHAPE_DISK : CLT_SHAPE_SPHERE)) return false;
  double d = sqrt(s->position[0] * s->position[0] + s->position[1] * s->position[1] + s->position[2] * s->position[2]);
  return d <= 1e-9 * s->radius;
}

/* Whether the shapes files leave the body to a glyph of the bodies file (docs/visualization.md,
 * "--surfaces"). */
static bool glyphed(const clt_viz_run_t *run, int body, clt_viz_vtk_surfaces_t surfaces) {
  return surfaces != CLT_VIZ_VTK_SURFACES_ALL && round_body(run, body);
}

/* ---------------------------------------------------------------------------------------------
 * Writing one .vtp file
 *
 * VTK XML PolyData. Binary (the default): every array in the appended block after
 * `<AppendedData encoding="raw">_`, zlib-compressed the way VTK's own writers do it
 * (vtkZLibDataCompressor, header_type UInt64): per array the header [number of blocks, uncompressed
 * block size, uncompressed size of the last block (0 when it is full), compressed size of each
 * block] as UInt64, then the compressed blocks. The XML, which comes first, names each array's
 * offset in that block, so the compressed bytes are collected in memory and written after it.
 * ASCII (--ascii): the numbers inline, 17 significant digits. */

#define VTP_BLOCK 32768 /* uncompressed bytes per block, as vtkXMLWriter's default */

typedef enum vtp_type_t { VTP_FLOAT64, VTP_INT32, VTP_INT64 } vtp_type_t;

typedef struct vtp_t {
  FILE *f;
  bool ascii;
  char *path, *part; /* the file and the one written until it is complete */
  unsigned char *data;
  size_t size, cap;    /* the appended block so far */
  clt_status_t status; /* first failure */
  int error;           /* errno of a failed write */
} vtp_t;

static const char *byte_order(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first ? "LittleEndian" : "BigEndian";
}

static bool vtp_reserve(vtp_t *v, size_t more) {
  if (v->status != CLT_OK) return false;
  if (v->size + more <= v->cap) return true;
  size_t cap = v->cap ? v->cap : 65536;
  while (cap < v->size + more) cap *= 2;
  unsigned char *d = realloc(v->data, cap);
  if (!d) {
    v->status = CLT_ERR_OUT_OF_MEMORY;
    return false;
  }
  v->data = d;
  v->cap = cap;
  return true;
}

static void vtp_put_u64(vtp_t *v, size_t at, uint64_t x) { memcpy(v->data + at, &x, sizeof x); }

/* Opens path.part; vtp_close renames it to path, so an existing file is replaced only by a
 * complete one. */
static bool vtp_open(vtp_t *v, const char *path, bool ascii) {
  memset(v, 0, sizeof *v);
  v->status = CLT_OK;
  v->ascii = ascii;
  size_t n = strlen(path);
  v->path = malloc(2 * n + 8);
  if (!v->path) {
    v->status = CLT_ERR_OUT_OF_MEMORY;
    return false;
  }
  memcpy(v->path, path, n + 1);
  v->part = v->path + n + 1;
  snprintf(v->part, n + 7, "%s.part", path);
  v->f = fopen(v->part, "wb");
  if (!v->f) {
    v->status = CLT_ERR_IO;
    v->error = errno;
    return false;
  }
  return true;
}

static void vtp_header(vtp_t *v, int64_t points, int64_t verts, int64_t polys) {
  fprintf(v->f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\"%s>\n"
          "  <PolyData>\n"
          "    <Piece NumberOfPoints=\"%lld\" NumberOfVerts=\"%lld\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
          "NumberOfPolys=\"%lld\">\n",
          byte_order(), v->ascii ? "" : " compressor=\"vtkZLibDataCompressor\"", (long long)points, (long long)verts,
          (long long)polys);
}

static void vtp_array_ascii(vtp_t *v, vtp_type_t type, const void *values, int64_t count, int components) {
  FILE *f = v->f;
  for (int64_t i = 0; i < count; i++) {
    if (i % (type == VTP_FLOAT64 ? components : 20) == 0) fputs(i ? "\n          " : "          ", f);
    if (type == VTP_FLOAT64) {
      /* VTK's ASCII parser reads no "nan" or "inf": NaN (a body not born yet or removed) becomes 0
       * and ±inf ±DBL_MAX. */
      double x = ((const double *)values)[i];
      fprintf(f, " %.17g", isfinite(x) ? x : (x > 0 ? DBL_MAX : x < 0 ? -DBL_MAX : 0));
    } else if (type == VTP_INT32) {
      fprintf(f, " %d", (int)((const int32_t *)values)[i]);
    } else {
      fprintf(f, " %lld", (long long)((const int64_t *)values)[i]);
    }
  }
  fputc('\n', f);
}

/* Appends bytes of values to the block as VTK's compressed blocks; false when out of memory. */
static bool vtp_array_binary(vtp_t *v, const void *values, size_t bytes) {
  size_t blocks = (bytes + VTP_BLOCK - 1) / VTP_BLOCK;
  size_t head = v->size;
  if (!vtp_reserve(v, (3 + blocks) * sizeof(uint64_t) + blocks * compressBound(VTP_BLOCK))) return false;
  vtp_put_u64(v, head, blocks);
  vtp_put_u64(v, head + 8, VTP_BLOCK);
  vtp_put_u64(v, head + 16, bytes % VTP_BLOCK);
  v->size += (3 + blocks) * sizeof(uint64_t);
  for (size_t b = 0; b < blocks; b++) {
    size_t len = b + 1 < blocks || bytes % VTP_BLOCK == 0 ? VTP_BLOCK : bytes % VTP_BLOCK;
    uLongf out = compressBound(VTP_BLOCK);
    if (compress2(v->data + v->size, &out, (const Bytef *)values + b * VTP_BLOCK, len, Z_DEFAULT_COMPRESSION) !=
        Z_OK) {
      v->status = CLT_ERR_OUT_OF_MEMORY; /* compress2's only failure with a large enough output */
      return false;
    }
    vtp_put_u64(v, head + 8 * (3 + b), out);
    v->size += out;
  }
  return true;
}

static void vtp_array(vtp_t *v, vtp_type_t type, const char *name, int components, const void *values,
                      int64_t tuples) {
  static const char *const type_names[] = {"Float64", "Int32", "Int64"};
  static const size_t sizes[] = {8, 4, 8};
  if (v->status != CLT_OK) return;
  int64_t count = tuples * components;
  fprintf(v->f, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" ", type_names[type], name,
          components);
  if (v->ascii) {
    fputs("format=\"ascii\">\n", v->f);
    vtp_array_ascii(v, type, values, count, components);
    fputs("        </DataArray>\n", v->f);
  } else {
    fprintf(v->f, "format=\"appended\" offset=\"%zu\"/>\n", v->size);
    vtp_array_binary(v, values, (size_t)count * sizes[type]);
  }
}

static void vtp_points(vtp_t *v, const double *points, int64_t n, bool verts) {
  fputs("      <Points>\n", v->f);
  vtp_array(v, VTP_FLOAT64, "Points", 3, points, n);
  fputs("      </Points>\n", v->f);
  if (!verts) return;
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
  if (!ids) {
    v->status = CLT_ERR_OUT_OF_MEMORY;
    return;
  }
  fputs("      <Verts>\n", v->f);
  for (int64_t i = 0; i < n; i++) ids[i] = i;
  vtp_array(v, VTP_INT64, "connectivity", 1, ids, n);
  for (int64_t i = 0; i < n; i++) ids[i] = i + 1;
  vtp_array(v, VTP_INT64, "offsets", 1, ids, n);
  fputs("      </Verts>\n", v->f);
  free(ids);
}

/* Ends the XML, writes the appended block and renames path.part to path; on any failure the
 * partial file is removed and the message says why. */
static clt_status_t vtp_close(vtp_t *v, char *message, size_t message_size) {
  if (v->f) {
    fputs("    </Piece>\n  </PolyData>\n", v->f);
    if (!v->ascii && v->status == CLT_OK) {
      fputs("  <AppendedData encoding=\"raw\">\n   _", v->f);
      if (fwrite(v->data, 1, v->size, v->f) != v->size) v->status = CLT_ERR_IO, v->error = errno;
      fputs("\n  </AppendedData>\n", v->f);
    }
    fputs("</VTKFile>\n", v->f);
    if (ferror(v->f) && v->status == CLT_OK) v->status = CLT_ERR_IO, v->error = errno;
    if (fclose(v->f) != 0 && v->status == CLT_OK) v->status = CLT_ERR_IO, v->error = errno;
    if (v->status == CLT_OK && rename(v->part, v->path) != 0) v->status = CLT_ERR_IO, v->error = errno;
    if (v->status != CLT_OK) remove(v->part);
  }
  if (v->status == CLT_ERR_IO && message)
    snprintf(message, message_size, "%s: cannot write (%s)", v->path ? v->path : "", strerror(v->error));
  else if (v->status != CLT_OK && message)
    snprintf(message, message_size, "%s: out of memory", v->path ? v->path : "");
  free(v->path);
  free(v->data);
  return v->status;
}

/* ---------------------------------------------------------------------------------------------
 * The three series */

typedef struct job_t {
  const clt_viz_run_t *run;
  const clt_viz_vtk_options_t *options;
  double plane_size; /* half-width of a half-space's patch [m] */
  char *message;
  size_t message_size;
} job_t;

static clt_status_t frame_unreadable(const job_t *job, int64_t frame) {
  if (job->message)
    snprintf(job->message, job->message_size, "%s: cannot read trajectory frame %lld", job->run->path,
             (long long)frame);
  return CLT_ERR_FORMAT;
}

static clt_status_t write_bodies(const job_t *job, int64_t frame, const char *path) {
  const clt_viz_run_t *run = job->run;
  const clt_viz_frame_t *state = clt_viz_run_frame(run, frame);
  if (!state) return frame_unreadable(job, frame);
  vtp_t v;
  if (!vtp_open(&v, path, job->options->ascii)) return vtp_close(&v, job->message, job->message_size);
  int64_t n = run->body_count;
  size_t rows = (size_t)(n > 0 ? n : 1);
  double *buf = calloc(rows * 3, sizeof(double));
  int32_t *ibuf = calloc(rows, sizeof(int32_t));
  if (!buf || !ibuf) {
    free(buf), free(ibuf);
    v.status = CLT_ERR_OUT_OF_MEMORY;
    return vtp_close(&v, job->message, job->message_size);
  }
  vtp_header(&v, n, n, 0);
  fputs("      <PointData Scalars=\"body_id\" Vectors=\"velocity\">\n", v.f);
  vtp_array(&v, VTP_FLOAT64, "orientation", 4, state->orientation, n);
  if (state->angle) vtp_array(&v, VTP_FLOAT64, "angle", 1, state->angle, n);
  if (state->velocity) vtp_array(&v, VTP_FLOAT64, "velocity", 3, state->velocity, n);
  if (state->angular_velocity) vtp_array(&v, VTP_FLOAT64, "angular_velocity", 3, state->angular_velocity, n);
  for (int64_t i = 0; i < n; i++) ibuf[i] = (int32_t)i;
  vtp_array(&v, VTP_INT32, "body_id", 1, ibuf, n);
  for (int64_t i = 0; i < n; i++) ibuf[i] = run->body_type[i];
  vtp_array(&v, VTP_INT32, "body_type", 1, ibuf, n);
  for (int64_t i = 0; i < n; i++) ibuf[i] = run->body_shape_count[i];
  vtp_array(&v, VTP_INT32, "shape_count", 1, ibuf, n);
  for (int64_t i = 0; i < n; i++)
    ibuf[i] = run->body_shape_count[i] > 0 ? (int32_t)run->shapes[run->body_first_shape[i]].type : -1;
  vtp_array(&v, VTP_INT32, "shape_type", 1, ibuf, n);
  for (int64_t i = 0; i < n; i++) ibuf[i] = glyphed(run, (int)i, job->options->surfaces);
  vtp_array(&v, VTP_INT32, "glyph", 1, ibuf, n);
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
    vtp_array(&v, VTP_FLOAT64, fields[k].name, w, buf, n);
  }
  fputs("      </PointData>\n", v.f);
  vtp_points(&v, state->position, n, true);
  free(buf);
  free(ibuf);
  return vtp_close(&v, job->message, job->message_size);
}

static clt_status_t write_shapes(const job_t *job, int64_t frame, const char *path) {
  const clt_viz_run_t *run = job->run;
  if (!clt_viz_run_frame(run, frame)) return frame_unreadable(job, frame);
  mesh_t m;
  memset(&m, 0, sizeof m);
  for (int k = 0; k < run->shape_count; k++) {
    if (job->options->surfaces == CLT_VIZ_VTK_SURFACES_AUTO && round_body(run, run->shapes[k].body)) continue;
    mesh_shape(&m, run, frame, k, job->plane_size);
  }
  vtp_t v;
  if (!vtp_open(&v, path, job->options->ascii) || m.failed) {
    if (m.failed && v.status == CLT_OK) v.status = CLT_ERR_OUT_OF_MEMORY;
    mesh_free(&m);
    return vtp_close(&v, job->message, job->message_size);
  }
  vtp_header(&v, m.point_count, 0, m.poly_count);
  fputs("      <CellData Scalars=\"body_id\">\n", v.f);
  vtp_array(&v, VTP_INT32, "body_id", 1, m.poly_body, m.poly_count);
  vtp_array(&v, VTP_INT32, "shape_type", 1, m.poly_shape_type, m.poly_count);
  fputs("      </CellData>\n", v.f);
  vtp_points(&v, m.points, m.point_count, false);
  fputs("      <Polys>\n", v.f);
  vtp_array(&v, VTP_INT64, "connectivity", 1, m.conn, m.conn_count);
  vtp_array(&v, VTP_INT64, "offsets", 1, m.offsets, m.poly_count);
  fputs("      </Polys>\n", v.f);
  mesh_free(&m);
  return vtp_close(&v, job->message, job->message_size);
}

static clt_status_t write_contacts(const job_t *job, int64_t frame, const char *path) {
  const clt_viz_contacts_t *c = &job->run->contacts;
  int64_t first = c->first[frame], n = c->count[frame];
  vtp_t v;
  if (!vtp_open(&v, path, job->options->ascii)) return vtp_close(&v, job->message, job->message_size);
  vtp_header(&v, n, n, 0);
  fputs("      <PointData Vectors=\"force\">\n", v.f);
  if (c->normal) vtp_array(&v, VTP_FLOAT64, "normal", 3, c->normal + 3 * first, n);
  if (c->force) vtp_array(&v, VTP_FLOAT64, "force", 3, c->force + 3 * first, n);
  if (c->normal_force) vtp_array(&v, VTP_FLOAT64, "normal_force", 1, c->normal_force + first, n);
  if (c->distance) vtp_array(&v, VTP_FLOAT64, "distance", 1, c->distance + first, n);
  if (c->body_a) vtp_array(&v, VTP_INT32, "body_a", 1, c->body_a + first, n);
  if (c->body_b) vtp_array(&v, VTP_INT32, "body_b", 1, c->body_b + first, n);
  /* every candidate is exported; threshold on touching = 1 for the force network (docs/visualization.md) */
  if (c->touching) vtp_array(&v, VTP_INT32, "touching", 1, c->touching + first, n);
  fputs("      </PointData>\n", v.f);
  vtp_points(&v, c->point + 3 * first, n, true);
  return vtp_close(&v, job->message, job->message_size);
}

static const char *file_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

clt_viz_vtk_options_t clt_viz_default_vtk_options(void) {
  clt_viz_vtk_options_t o;
  memset(&o, 0, sizeof o);
  o.first = 0;
  o.last = INT64_MAX;
  o.stride = 1;
  o.surfaces = CLT_VIZ_VTK_SURFACES_AUTO;
  o.ascii = false;
  return o;
}

bool clt_viz_vtk_surfaces_from_name(const char *name, clt_viz_vtk_surfaces_t *out) {
  static const char *const names[] = {"auto", "all", "none"};
  for (int i = 0; i < 3; i++) {
    if (strcmp(name, names[i]) == 0) {
      *out = (clt_viz_vtk_surfaces_t)i;
      return true;
    }
  }
  return false;
}

clt_status_t clt_viz_write_vtk(const clt_viz_run_t *run, const char *dir, const char *base,
                               const clt_viz_vtk_options_t *options, int *files_written, char *message,
                               size_t message_size) {
  *files_written = 0;
  clt_viz_vtk_options_t o = options ? *options : clt_viz_default_vtk_options();
  if (!base || !base[0] || strchr(base, '/') || base[0] == '.') { /* the files stay inside dir */
    if (message) snprintf(message, message_size, "'%s': a base name must be a file name (no '/', no leading '.')",
                          base ? base : "");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (run->frame_count < 1) {
    if (message) snprintf(message, message_size, "%s: the run has no trajectory frames", run->path);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (o.stride < 1) o.stride = 1;
  if (o.first < 0) o.first = 0;
  if (o.last >= run->frame_count) o.last = run->frame_count - 1;
  if (o.first > o.last) {
    if (message) snprintf(message, message_size, "empty frame range");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    if (message) snprintf(message, message_size, "%s: cannot create directory (%s)", dir, strerror(errno));
    return CLT_ERR_IO;
  }
  /* Half-space and half-plane patches sized to the bodies' whole range of motion. */
  clt_viz_render_options_t ro = clt_viz_default_render_options();
  clt_viz_view_t view;
  clt_viz_fit_view(run, o.first, o.last, o.stride, &ro, &view);
  job_t job = {.run = run, .options = &o, .message = message, .message_size = message_size};
  job.plane_size = run->dimension == 2 ? 0.5 * hypot(view.max[0] - view.min[0], view.max[1] - view.min[1])
                                       : 6 * view.floor_tile;
  /* series 0 bodies, 1 shapes (not with --surfaces none), 2 contacts (runs with /contacts) */
  const char *series[3] = {"", "_shapes", "_contacts"};
  bool wanted[3] = {true, o.surfaces != CLT_VIZ_VTK_SURFACES_NONE, run->has_contacts};
  FILE *pvd[3] = {NULL, NULL, NULL};
  size_t plen = strlen(dir) + strlen(base) + 64;
  char *path = malloc(plen), *part = malloc(plen + 8);
  if (!path || !part) {
    free(path), free(part);
    if (message) snprintf(message, message_size, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  clt_status_t status = CLT_OK;
  /* The collections too are written to .part files and renamed once every frame is written. */
  for (int s = 0; s < 3 && status == CLT_OK; s++) {
    if (!wanted[s]) continue;
    snprintf(part, plen + 8, "%s/%s%s.pvd.part", dir, base, series[s]);
    pvd[s] = fopen(part, "w");
    if (!pvd[s]) {
      status = CLT_ERR_IO;
      if (message) snprintf(message, message_size, "%s: cannot write (%s)", part, strerror(errno));
      break;
    }
    fputs("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          "  <Collection>\n",
          pvd[s]);
  }
  for (int64_t frame = o.first; status == CLT_OK && frame <= o.last; frame += o.stride) {
    for (int s = 0; s < 3 && status == CLT_OK; s++) {
      if (!wanted[s]) continue;
      snprintf(path, plen, "%s/%s%s_%05lld.vtp", dir, base, series[s], (long long)frame);
      status = s == 0 ? write_bodies(&job, frame, path)
               : s == 1 ? write_shapes(&job, frame, path)
                        : write_contacts(&job, frame, path);
      if (status != CLT_OK) break;
      (*files_written)++;
      fprintf(pvd[s], "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s\"/>\n", run->frame_time[frame],
              file_name(path));
    }
  }
  for (int s = 0; s < 3; s++) {
    if (!pvd[s]) continue;
    snprintf(path, plen, "%s/%s%s.pvd", dir, base, series[s]);
    snprintf(part, plen + 8, "%s.part", path);
    fputs("  </Collection>\n</VTKFile>\n", pvd[s]);
    bool ok = !ferror(pvd[s]);
    int error = errno;
    if (fclose(pvd[s]) != 0) ok = false, error = errno;
    if (ok && status == CLT_OK && rename(part, path) != 0) ok = false, error = errno;
    if (!ok && status == CLT_OK) {
      status = CLT_ERR_IO;
      if (message) snprintf(message, message_size, "%s: cannot write (%s)", path, strerror(error));
    }
    if (status == CLT_OK) (*files_written)++;
    else remove(part);
  }
  free(path);
  free(part);
  return status;
}
