/* A clatter run file (docs/output-format.md) in memory for the viewers (clt_viz_run_t, viz.h):
 * bodies, shapes, diagnostics and contacts read whole, trajectory frames one at a time. The file is
 * read through io's run reader (io/run_reader.h), the one reader of the documented layout that
 * `clatter info` and --resume use too, with its checks against damaged files; what is the viewers'
 * own is here: the frame cache and the poses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "viz/viz.h"
#include "io/run_reader.h"

/* ---------------------------------------------------------------------------------------------
 * Quaternions (w, x, y, z) */

void clt_viz_quat_mul(const double a[4], const double b[4], double out[4]) {
  double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                 a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                 a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                 a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  memcpy(out, r, sizeof r);
}

void clt_viz_quat_rotate(const double q[4], const double v[3], double out[3]) {
  /* v' = v + 2 w (u × v) + 2 u × (u × v), u = (x, y, z) */
  const double *u = q + 1;
  double t[3] = {2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]),
                 2 * (u[0] * v[1] - u[1] * v[0])};
  double r[3] = {v[0] + q[0] * t[0] + (u[1] * t[2] - u[2] * t[1]),
                 v[1] + q[0] * t[1] + (u[2] * t[0] - u[0] * t[2]),
                 v[2] + q[0] * t[2] + (u[0] * t[1] - u[1] * t[0])};
  memcpy(out, r, sizeof r);
}

static void quat_from_angle_z(double angle, double q[4]) {
  q[0] = cos(0.5 * angle);
  q[1] = 0;
  q[2] = 0;
  q[3] = sin(0.5 * angle);
}

/* ---------------------------------------------------------------------------------------------
 * Whole datasets, through the run reader */

static double *read_doubles(hid_t file, const char *path, hsize_t rows, hsize_t per_row) {
  return clt_run_file_read(file, path, H5T_NATIVE_DOUBLE, sizeof(double), rows, per_row);
}

static int32_t *read_int32(hid_t file, const char *path, hsize_t rows) {
  return clt_run_file_read(file, path, H5T_NATIVE_INT32, sizeof(int32_t), rows, 1);
}

static int64_t *read_int64(hid_t file, const char *path, hsize_t rows) {
  return clt_run_file_read(file, path, H5T_NATIVE_INT64, sizeof(int64_t), rows, 1);
}

/* ---------------------------------------------------------------------------------------------
 * Joints and springs: /links, with anchors in the bodies' principal frames (the writer takes them
 * from clt_joint_get_info and clt_force_get_info) */

/* Reads /links into run->links; a file without it (a world without joints or springs) has none.
 * False for a damaged group. */
static bool read_links(hid_t file, clt_viz_run_t *run) {
  int64_t n = clt_run_file_rows(file, "links/type");
  if (n < 0) return !clt_run_file_exists(file, "links");
  static const struct {
    const char *name;
    clt_viz_link_kind_t kind;
  } kinds[] = {{"revolute", CLT_VIZ_LINK_REVOLUTE}, {"spherical", CLT_VIZ_LINK_SPHERICAL},
               {"prismatic", CLT_VIZ_LINK_PRISMATIC}, {"fixed", CLT_VIZ_LINK_FIXED},
               {"distance", CLT_VIZ_LINK_DISTANCE},   {"spring-damper", CLT_VIZ_LINK_SPRING},
               {"removed", CLT_VIZ_LINK_REMOVED}};
  hsize_t rows = (hsize_t)n;
  /* the numeric tables first: their reader checks that the file holds the rows they claim, before
   * anything is allocated for them (io/run_reader.h) */
  int32_t *body = clt_run_file_read(file, "links/body", H5T_NATIVE_INT32, sizeof(int32_t), rows, 2);
  double *anchor = body ? clt_run_file_read(file, "links/anchor", H5T_NATIVE_DOUBLE, sizeof(double), rows, 6) : NULL;
  char(*types)[32] = anchor ? calloc(rows + 1, sizeof *types) : NULL;
  run->links = types ? calloc(rows + 1, sizeof *run->links) : NULL;
  bool ok = run->links && clt_run_file_read_strings(file, "links/type", rows, &types[0][0], 32);
  for (hsize_t i = 0; ok && i < rows; i++) {
    int k = -1;
    for (size_t t = 0; t < sizeof kinds / sizeof kinds[0]; t++)
      if (strcmp(kinds[t].name, types[i]) == 0) k = (int)t;
    int a = body[2 * i], b = body[2 * i + 1];
    if (k < 0 || a < -1 || a >= run->body_count || b < -1 || b >= run->body_count) {
      ok = false;
      break;
    }
    clt_viz_link_t *link = &run->links[run->link_count++];
    link->gone_from = INT64_MAX;
    link->kind = kinds[k].kind;
    link->body_a = a;
    link->body_b = b;
    memcpy(link->anchor_a, anchor + 6 * i, sizeof link->anchor_a);
    memcpy(link->anchor_b, anchor + 6 * i + 3, sizeof link->anchor_b);
  }
  free(types);
  free(body);
  free(anchor);
  return ok;
}

/* When joints were removed during the run: /trajectory/joint_state's fifth column (of 11) is 1 while a
 * joint exists and 0 from its removal on (for good), so the first frame without it is found by
 * bisection over the frames, one row read at a time. A file without the dataset has no removals. */
static bool read_removals(hid_t file, clt_viz_run_t *run) {
  hsize_t dims[3];
  int rank = clt_run_file_dims(file, "trajectory/joint_state", dims);
  if (rank < 0) return true;
  if (rank != 3 || dims[0] != (hsize_t)run->frame_count || dims[2] != 11 || dims[1] > (hsize_t)run->link_count)
    return false;
  if (dims[0] == 0 || dims[1] == 0) return true;
  hid_t d = H5Dopen2(file, "trajectory/joint_state", H5P_DEFAULT);
  double *row = d >= 0 ? malloc(sizeof *row * 11 * dims[1]) : NULL;
  bool ok = row != NULL;
  int64_t last = run->frame_count - 1;
  ok = ok && clt_h5_read_row(d, last, row);
  for (hsize_t j = 0; ok && j < dims[1]; j++) {
    if (row[11 * j + 4] != 0.0) continue; /* still there at the last frame */
    int64_t lo = -1, hi = last; /* present at lo (or before the first frame), gone at hi */
    double *probe = malloc(sizeof *probe * 11 * dims[1]);
    ok = probe != NULL;
    while (ok && hi - lo > 1) {
      int64_t mid = lo + (hi - lo) / 2;
      ok = clt_h5_read_row(d, mid, probe);
      if (ok && probe[11 * j + 4] != 0.0)
        lo = mid;
      else
        hi = mid;
    }
    free(probe);
    run->links[j].gone_from = hi;
  }
  free(row);
  if (d >= 0) H5Dclose(d);
  return ok;
}

/* ---------------------------------------------------------------------------------------------
 * The run */

static void close_cache(struct clt_viz_frame_cache_t *c);

void clt_viz_run_free(clt_viz_run_t *run) {
  if (!run) return;
  free(run->body_name);
  free(run->body_type);
  free(run->body_first_shape);
  free(run->body_shape_count);
  for (int i = 0; run->shapes && i < run->shape_count; i++) {
    clt_convex_release((clt_convex_t *)run->shapes[i].hull);
    clt_mesh_release((clt_mesh_t *)run->shapes[i].mesh);
  }
  free(run->shapes);
  free(run->vertices);
  free(run->frame_step);
  free(run->frame_time);
  close_cache(run->cache);
  free(run->links);
  for (int i = 0; i < run->diagnostics_count; i++) free(run->diagnostics[i]);
  free(run->diagnostics);
  free(run->diagnostics_name);
  clt_viz_contacts_t *c = &run->contacts;
  free(c->first);
  free(c->count);
  free(c->body_a);
  free(c->body_b);
  free(c->point);
  free(c->normal);
  free(c->force);
  free(c->normal_force);
  free(c->distance);
  free(c->touching);
  free(run);
}

static bool read_shapes(hid_t file, clt_viz_run_t *run) {
  hsize_t dims[3];
  int rank = clt_run_file_dims(file, "shapes/body", dims);
  if (rank != 1) return false;
  hsize_t k = dims[0];
  run->shape_count = (int)k;
  run->shapes = calloc(k > 0 ? k : 1, sizeof *run->shapes);
  char(*types)[32] = calloc(k > 0 ? k : 1, sizeof *types);
  int32_t *body = read_int32(file, "shapes/body", k);
  int32_t *vcount = read_int32(file, "shapes/vertex_count", k);
  int32_t *vfirst = read_int32(file, "shapes/first_vertex", k);
  struct {
    const char *name;
    int width;
    size_t offset;
  } fields[] = {
      {"shapes/position", 3, offsetof(clt_viz_shape_t, position)},
      {"shapes/orientation", 4, offsetof(clt_viz_shape_t, orientation)},
      {"shapes/angle", 1, offsetof(clt_viz_shape_t, angle)},
      {"shapes/radius", 1, offsetof(clt_viz_shape_t, radius)},
      {"shapes/length", 1, offsetof(clt_viz_shape_t, length)},
      {"shapes/half_extents", 3, offsetof(clt_viz_shape_t, half_extents)},
      {"shapes/semi_axes", 3, offsetof(clt_viz_shape_t, semi_axes)},
      {"shapes/major_radius", 1, offsetof(clt_viz_shape_t, major_radius)},
      {"shapes/minor_radius", 1, offsetof(clt_viz_shape_t, minor_radius)},
      {"shapes/point", 3, offsetof(clt_viz_shape_t, point)},
      {"shapes/normal", 3, offsetof(clt_viz_shape_t, normal)},
      {"shapes/a", 3, offsetof(clt_viz_shape_t, a)},
      {"shapes/b", 3, offsetof(clt_viz_shape_t, b)},
  };
  bool ok = run->shapes && types && body && clt_run_file_read_strings(file, "shapes/type", k, &types[0][0], 32);
  for (hsize_t i = 0; ok && i < k; i++) {
    clt_viz_shape_t *s = &run->shapes[i];
    s->body = body[i];
    s->type = clt_shape_type_from_name(types[i]);
    s->orientation[0] = 1;
    s->vertex_count = vcount ? vcount[i] : 0;
    s->first_vertex = vfirst ? vfirst[i] : 0;
    if (s->type == CLT_SHAPE_TYPE_COUNT || s->body < 0 || s->body >= run->body_count) ok = false;
  }
  for (size_t f = 0; ok && f < sizeof fields / sizeof fields[0]; f++) {
    double *col = read_doubles(file, fields[f].name, k, (hsize_t)fields[f].width);
    if (!col) continue; /* an absent optional column keeps the defaults */
    for (hsize_t i = 0; i < k; i++) {
      memcpy((char *)&run->shapes[i] + fields[f].offset, col + i * (hsize_t)fields[f].width,
             sizeof(double) * (size_t)fields[f].width);
    }
    free(col);
  }
  if (ok && clt_run_file_dims(file, "shapes/vertices", dims) == 2 && dims[1] == 2) {
    run->vertex_total = (int)dims[0];
    run->vertices = read_doubles(file, "shapes/vertices", dims[0], 2);
    if (!run->vertices) ok = false;
  }
  /* Polyhedra: their vertices, whose hull gives the faces back. */
  int32_t *hcount = read_int32(file, "shapes/hull_vertex_count", k);
  int32_t *hfirst = read_int32(file, "shapes/first_hull_vertex", k);
  double *hull = NULL;
  hsize_t hull_rows = 0;
  if (ok && hcount && hfirst && clt_run_file_dims(file, "shapes/hull_vertices", dims) == 2 && dims[1] == 3) {
    hull_rows = dims[0];
    hull = read_doubles(file, "shapes/hull_vertices", dims[0], 3);
  }
  for (hsize_t i = 0; ok && i < k; i++) {
    clt_viz_shape_t *s = &run->shapes[i];
    if (s->type != CLT_SHAPE_POLYHEDRON) continue;
    ok = hull && hcount[i] >= 4 && hfirst[i] >= 0 && (hsize_t)hfirst[i] + (hsize_t)hcount[i] <= hull_rows;
    clt_convex_t *c = NULL;
    ok = ok && clt_convex_from_points((const double(*)[3])(hull + 3 * (size_t)hfirst[i]), hcount[i], &c, NULL, 0) == CLT_OK;
    s->hull = c;
  }
  free(hull);
  free(hcount);
  free(hfirst);
  /* Meshes: their vertices and triangles. */
  int32_t *mvc = read_int32(file, "shapes/mesh_vertex_count", k), *mvf = read_int32(file, "shapes/first_mesh_vertex", k);
  int32_t *mtc = read_int32(file, "shapes/mesh_triangle_count", k), *mtf = read_int32(file, "shapes/first_mesh_triangle", k);
  double *mv = NULL;
  int32_t *mt = NULL;
  hsize_t mv_rows = 0, mt_rows = 0;
  if (ok && mvc && mvf && mtc && mtf && clt_run_file_dims(file, "shapes/mesh_vertices", dims) == 2 && dims[1] == 3) {
    mv_rows = dims[0];
    mv = read_doubles(file, "shapes/mesh_vertices", dims[0], 3);
    if (clt_run_file_dims(file, "shapes/mesh_triangles", dims) == 2 && dims[1] == 3) {
      mt_rows = dims[0];
      mt = clt_run_file_read(file, "shapes/mesh_triangles", H5T_NATIVE_INT32, sizeof(int32_t), dims[0], 3);
    }
  }
  for (hsize_t i = 0; ok && i < k; i++) {
    clt_viz_shape_t *s = &run->shapes[i];
    if (s->type != CLT_SHAPE_MESH) continue;
    ok = mv && mt && mvc[i] >= 3 && mtc[i] >= 1 && mvf[i] >= 0 && mtf[i] >= 0 &&
         (hsize_t)mvf[i] + (hsize_t)mvc[i] <= mv_rows && (hsize_t)mtf[i] + (hsize_t)mtc[i] <= mt_rows;
    clt_mesh_t *m = NULL;
    if (ok) {
      int(*tri)[3] = malloc(sizeof *tri * (size_t)mtc[i]);
      ok = tri != NULL;
      for (int j = 0; ok && j < mtc[i]; j++)
        for (int c = 0; c < 3; c++) tri[j][c] = mt[3 * ((size_t)mtf[i] + (size_t)j) + (size_t)c];
      ok = ok && clt_mesh_create((const double(*)[3])(mv + 3 * (size_t)mvf[i]), mvc[i], (const int(*)[3])tri, mtc[i],
                                 &m, NULL, 0) == CLT_OK;
      free(tri);
    }
    s->mesh = m;
  }
  free(mv);
  free(mt);
  free(mvc);
  free(mvf);
  free(mtc);
  free(mtf);
  for (hsize_t i = 0; ok && i < k; i++) {
    const clt_viz_shape_t *s = &run->shapes[i];
    if (s->type == CLT_SHAPE_POLYGON &&
        (s->vertex_count < 3 || s->first_vertex < 0 || s->first_vertex + s->vertex_count > run->vertex_total)) {
      ok = false;
    }
  }
  free(types);
  free(body);
  free(vcount);
  free(vfirst);
  return ok;
}

/* The open trajectory datasets and one frame's buffers. */
struct clt_viz_frame_cache_t {
  hid_t file;
  hid_t position, orientation, velocity, angular_velocity; /* −1 if absent; orientation = angle in 2D */
  hid_t length; /* a growing run's /trajectory/length, −1 if absent */
  clt_viz_frame_t view;
  double *position_buf, *orientation_buf, *angle_buf, *velocity_buf, *angular_velocity_buf, *length_buf, *scratch;
};

static void close_cache(struct clt_viz_frame_cache_t *c) {
  if (!c) return;
  hid_t sets[5] = {c->position, c->orientation, c->velocity, c->angular_velocity, c->length};
  for (int i = 0; i < 5; i++) {
    if (sets[i] >= 0) H5Dclose(sets[i]);
  }
  clt_run_file_close(c->file);
  free(c->position_buf);
  free(c->orientation_buf);
  free(c->angle_buf);
  free(c->velocity_buf);
  free(c->angular_velocity_buf);
  free(c->length_buf);
  free(c->scratch);
  free(c);
}

/* Checks the trajectory's shapes and opens its datasets for clt_viz_run_frame (takes over file). */
static bool open_trajectory(hid_t file, clt_viz_run_t *run) {
  struct clt_viz_frame_cache_t *c = calloc(1, sizeof *c);
  if (!c) return false;
  c->file = file;
  c->position = c->orientation = c->velocity = c->angular_velocity = c->length = -1;
  c->view.frame = -1;
  run->cache = c;
  hsize_t dims[3];
  if (clt_run_file_dims(file, "trajectory/time", dims) != 1) return true; /* no trajectory: allowed */
  hsize_t t = dims[0], n = (hsize_t)run->body_count;
  run->frame_count = (int64_t)t;
  run->frame_time = read_doubles(file, "trajectory/time", t, 1);
  run->frame_step = read_int64(file, "trajectory/step", t);
  if (!run->frame_time || !run->frame_step) return false;
  const char *ori = run->dimension == 2 ? "trajectory/angle" : "trajectory/orientation";
  hsize_t ori_width = run->dimension == 2 ? 1 : 4, w_width = run->dimension == 2 ? 1 : 3;
  struct {
    const char *path;
    hsize_t width;
    bool required;
    hid_t *dset;
  } sets[] = {{"trajectory/position", 3, true, &c->position},
              {ori, ori_width, true, &c->orientation},
              {"trajectory/velocity", 3, false, &c->velocity},
              {"trajectory/angular_velocity", w_width, false, &c->angular_velocity},
              {"trajectory/length", 1, false, &c->length}};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    int rank = clt_run_file_dims(file, sets[i].path, dims);
    if (rank < 0) {
      if (sets[i].required) return false;
      continue;
    }
    hsize_t per_row = (rank >= 2 ? dims[1] : 1) * (rank >= 3 ? dims[2] : 1);
    if (dims[0] != t || per_row != n * sets[i].width) return false;
    *sets[i].dset = H5Dopen2(file, sets[i].path, H5P_DEFAULT);
    if (*sets[i].dset < 0) return false;
  }
  size_t rows = n > 0 ? n : 1;
  c->position_buf = calloc(rows * 3, sizeof(double));
  c->orientation_buf = calloc(rows * 4, sizeof(double));
  c->angle_buf = run->dimension == 2 ? calloc(rows, sizeof(double)) : NULL;
  c->velocity_buf = c->velocity >= 0 ? calloc(rows * 3, sizeof(double)) : NULL;
  c->angular_velocity_buf = c->angular_velocity >= 0 ? calloc(rows * 3, sizeof(double)) : NULL;
  c->length_buf = c->length >= 0 ? calloc(rows, sizeof(double)) : NULL;
  c->scratch = calloc(rows, sizeof(double));
  run->has_velocity = c->velocity >= 0;
  run->has_angular_velocity = c->angular_velocity >= 0;
  return c->position_buf && c->orientation_buf && c->scratch && (run->dimension == 3 || c->angle_buf) &&
         (c->velocity < 0 || c->velocity_buf) && (c->angular_velocity < 0 || c->angular_velocity_buf) &&
         (c->length < 0 || c->length_buf);
}

const clt_viz_frame_t *clt_viz_run_frame(const clt_viz_run_t *run, int64_t frame) {
  struct clt_viz_frame_cache_t *c = run->cache;
  if (!c || frame < 0 || frame >= run->frame_count) return NULL;
  if (c->view.frame == frame) return &c->view;
  clt_h5_silence_t quiet = clt_h5_silence();
  size_t n = (size_t)run->body_count;
  bool ok = clt_h5_read_row(c->position, frame, c->position_buf);
  if (ok && run->dimension == 2) {
    ok = clt_h5_read_row(c->orientation, frame, c->angle_buf);
    for (size_t i = 0; ok && i < n; i++) quat_from_angle_z(c->angle_buf[i], c->orientation_buf + 4 * i);
  } else if (ok) {
    ok = clt_h5_read_row(c->orientation, frame, c->orientation_buf);
  }
  if (ok && c->velocity >= 0) ok = clt_h5_read_row(c->velocity, frame, c->velocity_buf);
  if (ok && c->angular_velocity >= 0) {
    if (run->dimension == 2) {
      ok = clt_h5_read_row(c->angular_velocity, frame, c->scratch);
      for (size_t i = 0; ok && i < n; i++) {
        c->angular_velocity_buf[3 * i] = c->angular_velocity_buf[3 * i + 1] = 0;
        c->angular_velocity_buf[3 * i + 2] = c->scratch[i];
      }
    } else {
      ok = clt_h5_read_row(c->angular_velocity, frame, c->angular_velocity_buf);
    }
  }
  if (ok && c->length >= 0) ok = clt_h5_read_row(c->length, frame, c->length_buf);
  clt_h5_restore(quiet);
  if (!ok) {
    c->view.frame = -1;
    return NULL;
  }
  c->view.frame = frame;
  c->view.position = c->position_buf;
  c->view.orientation = c->orientation_buf;
  c->view.angle = c->angle_buf;
  c->view.velocity = c->velocity_buf;
  c->view.angular_velocity = c->angular_velocity_buf;
  c->view.length = c->length_buf;
  return &c->view;
}

static bool read_diagnostics(hid_t file, clt_viz_run_t *run) {
  hsize_t dims[3];
  if (clt_run_file_dims(file, "diagnostics/t", dims) != 1) return true; /* absent: allowed */
  run->diagnostics_rows = (int64_t)dims[0];
  /* + 1: room for the derived "energy" column. */
  char *names = clt_run_file_names(file, "diagnostics", sizeof run->diagnostics_name[0], 1, &run->diagnostics_count);
  run->diagnostics_name = (char(*)[sizeof run->diagnostics_name[0]])names;
  run->diagnostics = calloc((size_t)run->diagnostics_count + 1, sizeof *run->diagnostics);
  bool ok = run->diagnostics_name && run->diagnostics;
  if (!ok) run->diagnostics_count = 0;
  /* Columns that are not one number per row (none today) are left out rather than failing. */
  int kept = 0;
  for (int i = 0; ok && i < run->diagnostics_count; i++) {
    char path[64];
    snprintf(path, sizeof path, "diagnostics/%s", run->diagnostics_name[i]);
    double *column = read_doubles(file, path, dims[0], 1);
    if (!column) continue;
    memmove(run->diagnostics_name[kept], run->diagnostics_name[i], sizeof run->diagnostics_name[0]);
    run->diagnostics[kept++] = column;
  }
  if (ok) run->diagnostics_count = kept;
  return ok && clt_viz_run_diagnostic(run, "t") != NULL;
}

static bool read_contacts(hid_t file, clt_viz_run_t *run) {
  if (!clt_run_file_exists(file, "contacts/first") || run->frame_count <= 0) return true;
  clt_viz_contacts_t *c = &run->contacts;
  hsize_t t = (hsize_t)run->frame_count;
  c->first = read_int64(file, "contacts/first", t);
  c->count = read_int64(file, "contacts/count", t);
  hsize_t dims[3];
  if (!c->first || !c->count || clt_run_file_dims(file, "contacts/point", dims) != 2 || dims[1] != 3) return false;
  hsize_t m = dims[0];
  c->total = (int64_t)m;
  for (hsize_t f = 0; f < t; f++) {
    if (c->first[f] < 0 || c->count[f] < 0 || c->first[f] + c->count[f] > c->total) return false;
  }
  c->point = read_doubles(file, "contacts/point", m, 3);
  c->body_a = read_int32(file, "contacts/body_a", m);
  c->body_b = read_int32(file, "contacts/body_b", m);
  if (!c->point) return false;
  if (clt_run_file_exists(file, "contacts/normal") && !(c->normal = read_doubles(file, "contacts/normal", m, 3)))
    return false;
  if (clt_run_file_exists(file, "contacts/force") && !(c->force = read_doubles(file, "contacts/force", m, 3)))
    return false;
  if (clt_run_file_exists(file, "contacts/normal_force") &&
      !(c->normal_force = read_doubles(file, "contacts/normal_force", m, 1)))
    return false;
  if (clt_run_file_exists(file, "contacts/distance") && !(c->distance = read_doubles(file, "contacts/distance", m, 1)))
    return false;
  if (clt_run_file_exists(file, "contacts/touching") && !(c->touching = read_int32(file, "contacts/touching", m)))
    return false;
  run->has_contacts = true;
  /* The largest per-body force sum of the run: the scale of --color-by-force. */
  double *sum = calloc((size_t)run->body_count + 1, sizeof(double));
  if (!sum) return false;
  for (int64_t f = 0; f < run->frame_count; f++) {
    memset(sum, 0, sizeof(double) * (size_t)run->body_count);
    clt_viz_contact_body_forces(run, f, sum);
    for (int b = 0; b < run->body_count; b++) {
      if (run->body_type[b] == CLT_BODY_DYNAMIC && sum[b] > c->max_body_force) c->max_body_force = sum[b];
    }
  }
  free(sum);
  return true;
}

void clt_viz_contact_body_forces(const clt_viz_run_t *run, int64_t frame, double *sum) {
  const clt_viz_contacts_t *c = &run->contacts;
  if (!run->has_contacts || frame < 0 || frame >= run->frame_count) return;
  for (int64_t i = c->first[frame]; i < c->first[frame] + c->count[frame]; i++) {
    double m = 0;
    if (c->force) m = sqrt(c->force[3 * i] * c->force[3 * i] + c->force[3 * i + 1] * c->force[3 * i + 1] +
                           c->force[3 * i + 2] * c->force[3 * i + 2]);
    else if (c->normal_force) m = fabs(c->normal_force[i]);
    int ids[2] = {c->body_a ? c->body_a[i] : -1, c->body_b ? c->body_b[i] : -1};
    for (int k = 0; k < 2; k++) {
      if (ids[k] >= 0 && ids[k] < run->body_count && (k == 0 || ids[1] != ids[0])) sum[ids[k]] += m;
    }
  }
}

clt_status_t clt_viz_run_read(const char *path, clt_viz_run_t **out, char *message, size_t message_size) {
  *out = NULL;
  clt_status_t status = CLT_OK;
  hid_t file = -1;
  clt_viz_run_t *run = calloc(1, sizeof *run);
  if (!run) {
    clt_run_file_message(message, message_size, path, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  snprintf(run->path, sizeof run->path, "%s", path);
  file = clt_run_file_open(path, NULL, &status, message, message_size);
  if (file < 0) {
    free(run);
    return status;
  }
  /* a library must not print: HDF5's error stack stays quiet while the file is read */
  clt_h5_silence_t quiet = clt_h5_silence();
  int64_t dimension = 0;
  if (!clt_run_file_attr_int64(file, "dimension", &dimension) || (dimension != 2 && dimension != 3)) {
    status = CLT_ERR_FORMAT;
    clt_run_file_message(message, message_size, path, "damaged clatter run file (its dimension is not 2 or 3)");
    goto done;
  }
  run->dimension = (int)dimension;
  /* up is against gravity (render.c); a file without the attribute: the scene default */
  if (!clt_run_file_attr_doubles(file, "gravity", 3, run->gravity)) {
    memset(run->gravity, 0, sizeof run->gravity);
    run->gravity[run->dimension - 1] = -9.81;
  }
  clt_run_file_attr_string(file, "scene_name", run->scene_name, sizeof run->scene_name);
  clt_run_file_attr_double(file, "time_step", &run->time_step);

  hsize_t dims[3];
  if (clt_run_file_dims(file, "bodies/name", dims) != 1) {
    status = CLT_ERR_FORMAT;
    clt_run_file_message(message, message_size, path, "missing /bodies");
    goto done;
  }
  hsize_t n = dims[0];
  run->body_count = (int)n;
  run->body_name = calloc(n + 1, sizeof *run->body_name);
  run->body_type = calloc(n + 1, sizeof *run->body_type);
  char(*types)[16] = calloc(n + 1, sizeof *types);
  int32_t *first = read_int32(file, "bodies/first_shape", n);
  int32_t *count = read_int32(file, "bodies/shape_count", n);
  run->body_first_shape = calloc(n + 1, sizeof(int));
  run->body_shape_count = calloc(n + 1, sizeof(int));
  bool ok = run->body_name && run->body_type && types && first && count && run->body_first_shape &&
            run->body_shape_count && clt_run_file_read_strings(file, "bodies/name", n, &run->body_name[0][0], 64) &&
            clt_run_file_read_strings(file, "bodies/type", n, &types[0][0], 16);
  for (hsize_t i = 0; ok && i < n; i++) {
    run->body_type[i] = strcmp(types[i], "static") == 0      ? CLT_BODY_STATIC
                        : strcmp(types[i], "kinematic") == 0 ? CLT_BODY_KINEMATIC
                                                             : CLT_BODY_DYNAMIC;
    run->body_first_shape[i] = first[i];
    run->body_shape_count[i] = count[i];
  }
  free(types);
  free(first);
  free(count);
  ok = ok && read_shapes(file, run);
  for (int i = 0; ok && i < run->body_count; i++) {
    if (run->body_shape_count[i] < 0 || run->body_first_shape[i] < 0 ||
        run->body_first_shape[i] > run->shape_count ||
        run->body_shape_count[i] > run->shape_count - run->body_first_shape[i]) /* no overflow of first + count */
      ok = false;
  }
  if (!ok) {
    status = CLT_ERR_FORMAT;
    clt_run_file_message(message, message_size, path, "damaged /bodies or /shapes");
    goto done;
  }
  /* From here the run owns the file (closed by clt_viz_run_free). */
  bool opened = open_trajectory(file, run);
  if (run->cache) file = -1;
  if (!opened) {
    status = CLT_ERR_FORMAT;
    clt_run_file_message(message, message_size, path, "damaged /trajectory");
    goto done;
  }
  hid_t owned = run->cache->file;
  if (!read_diagnostics(owned, run)) {
    status = CLT_ERR_FORMAT;
    clt_run_file_message(message, message_size, path, "damaged /diagnostics");
    goto done;
  }
  if (!read_contacts(owned, run)) {
    status = CLT_ERR_FORMAT;
    clt_run_file_message(message, message_size, path, "damaged /contacts (docs/output-format.md)");
    goto done;
  }
  if (!read_links(owned, run)) {
    status = CLT_ERR_FORMAT;
    clt_run_file_message(message, message_size, path, "damaged /links (docs/output-format.md)");
    goto done;
  }
  if (!read_removals(owned, run)) {
    status = CLT_ERR_FORMAT;
    clt_run_file_message(message, message_size, path, "damaged /trajectory/joint_state (docs/output-format.md)");
    goto done;
  }

done:
  clt_run_file_close(file);
  clt_h5_restore(quiet);
  if (status != CLT_OK) {
    clt_viz_run_free(run);
    return status;
  }
  *out = run;
  return CLT_OK;
}

const double *clt_viz_run_diagnostic(clt_viz_run_t *run, const char *name) {
  for (int i = 0; i < run->diagnostics_count; i++) {
    if (strcmp(run->diagnostics_name[i], name) == 0) return run->diagnostics[i];
  }
  if (strcmp(name, "energy") == 0) {
    const double *k = clt_viz_run_diagnostic(run, "kinetic_energy");
    const double *p = clt_viz_run_diagnostic(run, "potential_energy");
    if (!k || !p || !run->diagnostics) return NULL;
    double *e = malloc(sizeof(double) * (size_t)(run->diagnostics_rows > 0 ? run->diagnostics_rows : 1));
    if (!e) return NULL;
    for (int64_t i = 0; i < run->diagnostics_rows; i++) e[i] = k[i] + p[i];
    /* read_diagnostics left room for this one derived column. */
    snprintf(run->diagnostics_name[run->diagnostics_count], sizeof run->diagnostics_name[0], "energy");
    run->diagnostics[run->diagnostics_count++] = e;
    return e;
  }
  return NULL;
}

void clt_viz_body_pose(const clt_viz_run_t *run, int64_t frame, int body, double position[3],
                       double orientation[4]) {
  const clt_viz_frame_t *f = clt_viz_run_frame(run, frame);
  if (!f) {
    position[0] = position[1] = position[2] = NAN;
    orientation[0] = orientation[1] = orientation[2] = orientation[3] = NAN;
    return;
  }
  memcpy(position, f->position + 3 * (size_t)body, 3 * sizeof(double));
  memcpy(orientation, f->orientation + 4 * (size_t)body, 4 * sizeof(double));
}

void clt_viz_shape_pose(const clt_viz_run_t *run, int64_t frame, int shape, double position[3],
                        double orientation[4]) {
  const clt_viz_shape_t *s = &run->shapes[shape];
  double p[3], q[4], ql[4], r[3];
  clt_viz_body_pose(run, frame, s->body, p, q);
  if (run->dimension == 2) quat_from_angle_z(s->angle, ql);
  else memcpy(ql, s->orientation, sizeof ql);
  clt_viz_quat_rotate(q, s->position, r);
  for (int i = 0; i < 3; i++) position[i] = p[i] + r[i];
  clt_viz_quat_mul(q, ql, orientation);
}

bool clt_viz_frame_shape(const clt_viz_run_t *run, int64_t frame, int shape, clt_viz_shape_t *out) {
  *out = run->shapes[shape];
  const clt_viz_frame_t *f = clt_viz_run_frame(run, frame);
  if (!f) return true; /* no trajectory: the shape as stored */
  if (isnan(f->position[3 * (size_t)out->body])) return false;
  if (f->length && out->type == CLT_SHAPE_CAPSULE) out->length = f->length[out->body];
  return true;
}

int64_t clt_viz_frame_at_time(const clt_viz_run_t *run, double t) {
  int64_t best = 0;
  for (int64_t f = 1; f < run->frame_count; f++) {
    if (fabs(run->frame_time[f] - t) < fabs(run->frame_time[best] - t)) best = f;
  }
  return best;
}

static bool parse_index(const char *text, size_t len, int64_t frame_count, int64_t fallback, int64_t *out) {
  if (len == 0) {
    *out = fallback;
    return true;
  }
  char buf[32];
  if (len >= sizeof buf) return false;
  memcpy(buf, text, len);
  buf[len] = '\0';
  char *end;
  long long v = strtoll(buf, &end, 10);
  if (*end != '\0') return false;
  *out = v < 0 ? frame_count + v : v;
  return true;
}

bool clt_viz_parse_frames(const char *spec, int64_t frame_count, int64_t *first, int64_t *last, int64_t *stride) {
  const char *c1 = strchr(spec, ':');
  if (!c1) return false;
  const char *c2 = strchr(c1 + 1, ':');
  const char *end = spec + strlen(spec);
  if (!parse_index(spec, (size_t)(c1 - spec), frame_count, 0, first)) return false;
  if (!parse_index(c1 + 1, (size_t)((c2 ? c2 : end) - (c1 + 1)), frame_count, frame_count - 1, last)) return false;
  *stride = 1;
  if (c2) {
    int64_t s;
    if (!parse_index(c2 + 1, (size_t)(end - (c2 + 1)), 0, 1, &s) || s < 1) return false;
    *stride = s;
  }
  if (*last > frame_count - 1) *last = frame_count - 1;
  return *first >= 0 && *first <= *last;
}
