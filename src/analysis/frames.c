/* Frames for the measurements (clatter/analysis.h): read from a run file through io's run reader
 * (io/run_reader.h, with its checks against damaged files: docs/output-format.md "Reading damaged
 * files"), or copied from a world. A frame owns its arrays (frame_storage_t). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "analysis/analysis_internal.h"
#include "io/run_reader.h"

/* What a frame's pointers point into. */
typedef struct frame_storage_t {
  double *position, *velocity, *mass, *radius, *volume;
  int *body_type;
  int32_t *body_a, *body_b;
  double *point, *normal, *force;
  uint8_t *touching;
} frame_storage_t;

void clt_analysis_frame_release(clt_analysis_frame_t *frame) {
  if (!frame) return;
  frame_storage_t *s = frame->storage;
  if (s) {
    free(s->position);
    free(s->velocity);
    free(s->mass);
    free(s->radius);
    free(s->volume);
    free(s->body_type);
    free(s->body_a);
    free(s->body_b);
    free(s->point);
    free(s->normal);
    free(s->force);
    free(s->touching);
    free(s);
  }
  memset(frame, 0, sizeof *frame);
}

/* Storage for n bodies and c contacts (with velocities when asked), pointed to by the frame. */
static bool frame_allocate(clt_analysis_frame_t *f, int n, int64_t c, bool velocity) {
  frame_storage_t *s = calloc(1, sizeof *s);
  f->storage = s;
  if (!s) return false;
  size_t rows = (size_t)(n > 0 ? n : 1), contacts = (size_t)(c > 0 ? c : 1);
  s->position = malloc(sizeof(double) * 3 * rows);
  s->velocity = velocity ? malloc(sizeof(double) * 3 * rows) : NULL;
  s->mass = malloc(sizeof(double) * rows);
  s->radius = malloc(sizeof(double) * rows);
  s->volume = malloc(sizeof(double) * rows);
  s->body_type = malloc(sizeof(int) * rows);
  s->body_a = malloc(sizeof(int32_t) * contacts);
  s->body_b = malloc(sizeof(int32_t) * contacts);
  s->point = malloc(sizeof(double) * 3 * contacts);
  s->normal = malloc(sizeof(double) * 3 * contacts);
  s->force = malloc(sizeof(double) * 3 * contacts);
  s->touching = malloc(contacts);
  f->body_count = n;
  f->contact_count = c;
  f->position = s->position;
  f->velocity = s->velocity;
  f->mass = s->mass;
  f->radius = s->radius;
  f->volume = s->volume;
  f->body_type = s->body_type;
  f->contact_body_a = s->body_a;
  f->contact_body_b = s->body_b;
  f->contact_point = s->point;
  f->contact_normal = s->normal;
  f->contact_force = s->force;
  f->contact_touching = s->touching;
  return s->position && (!velocity || s->velocity) && s->mass && s->radius && s->volume && s->body_type && s->body_a &&
         s->body_b && s->point && s->normal && s->force && s->touching;
}

/* A body's radius when it is one sphere (2D: disk) centred on its centre of mass, else 0: only
 * those have exact volumes in a box. */
static double sphere_radius(int dimension, int shape_count, const clt_shape_def_t *s) {
  clt_shape_type_t round = dimension == 3 ? CLT_SHAPE_SPHERE : CLT_SHAPE_DISK;
  if (shape_count != 1 || s->type != round || !(s->radius > 0)) return 0;
  const double *p = s->local_position;
  double off = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
  return off <= 1e-9 * s->radius ? s->radius : 0;
}

/* ---------------------------------------------------------------------------------------------
 * From a world */

clt_status_t clt_analysis_frame_from_world(const clt_world_t *world, clt_analysis_frame_t *out, char *message,
                                           size_t message_size) {
  memset(out, 0, sizeof *out);
  if (!world) return clt_analysis_fail(message, message_size, "world: NULL");
  int n = clt_world_body_count(world), c = clt_world_contact_count(world);
  out->dimension = clt_world_dimension(world);
  out->frame = -1;
  out->step = clt_world_step_count(world);
  out->time = clt_world_time(world);
  clt_world_get_gravity(world, out->gravity);
  if (!frame_allocate(out, n, c, true)) {
    clt_analysis_frame_release(out);
    clt_analysis_fail(message, message_size, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  frame_storage_t *s = out->storage;
  for (int i = 0; i < n; i++) {
    clt_body_id_t body = clt_world_body_at(world, i);
    clt_body_info_t info;
    clt_body_state_t state;
    s->radius[i] = s->volume[i] = 0;
    /* a removed body answers neither: absent from the frame */
    if (clt_body_get_info(world, body, &info) != CLT_OK || clt_body_get_state(world, body, &state) != CLT_OK) {
      for (int k = 0; k < 3; k++) s->position[3 * i + k] = s->velocity[3 * i + k] = NAN;
      s->mass[i] = NAN;
      s->body_type[i] = CLT_BODY_STATIC;
      continue;
    }
    memcpy(s->position + 3 * i, state.position, sizeof state.position);
    memcpy(s->velocity + 3 * i, state.velocity, sizeof state.velocity);
    s->mass[i] = info.mass;
    s->body_type[i] = (int)info.type;
    for (int k = 0; k < info.shape_count; k++) {
      clt_shape_def_t shape;
      if (clt_body_get_shape(world, body, k, &shape) != CLT_OK) continue;
      s->volume[i] += clt_shape_volume(&shape);
      if (k == 0) s->radius[i] = sphere_radius(out->dimension, info.shape_count, &shape);
    }
  }
  double h = clt_world_time_step(world);
  for (int i = 0; i < c; i++) {
    clt_contact_info_t info;
    if (clt_world_get_contact(world, i, &info) != CLT_OK) {
      clt_analysis_frame_release(out);
      return clt_analysis_fail(message, message_size, "world: contact %d of %d cannot be read", i, c);
    }
    s->body_a[i] = info.body_a;
    s->body_b[i] = info.body_b;
    s->touching[i] = info.touching ? 1 : 0;
    for (int k = 0; k < 3; k++) {
      s->point[3 * i + k] = info.point[k];
      s->normal[3 * i + k] = info.normal[k];
      s->force[3 * i + k] = info.impulse[k] / h; /* impulse over the step: the force of the frame */
    }
  }
  return CLT_OK;
}

/* ---------------------------------------------------------------------------------------------
 * From a run file */

enum { C_BODY_A, C_BODY_B, C_POINT, C_NORMAL, C_FORCE, C_NORMAL_FORCE, C_TOUCHING, C_COUNT };
static const char *const contact_sets[C_COUNT] = {"contacts/body_a",  "contacts/body_b", "contacts/point",
                                                  "contacts/normal",  "contacts/force",  "contacts/normal_force",
                                                  "contacts/touching"};
static const int contact_widths[C_COUNT] = {1, 1, 3, 3, 3, 1, 1};

struct clt_analysis_run_t {
  char path[1024];
  hid_t file;
  int dimension;
  double gravity[3];
  int body_count;
  double *mass, *radius, *volume;
  int *body_type;
  int64_t frame_count;
  int64_t *frame_step;
  double *frame_time;
  hid_t position, velocity; /* −1 when absent */
  int64_t contact_rows;     /* rows of the per-contact tables; −1 without /contacts */
  int64_t *contact_first, *contact_count;
  hid_t contacts[C_COUNT]; /* −1 when absent */
};

void clt_analysis_close(clt_analysis_run_t *run) {
  if (!run) return;
  if (run->position >= 0) H5Dclose(run->position);
  if (run->velocity >= 0) H5Dclose(run->velocity);
  for (int k = 0; k < C_COUNT; k++)
    if (run->contacts[k] >= 0) H5Dclose(run->contacts[k]);
  clt_run_file_close(run->file);
  free(run->mass);
  free(run->radius);
  free(run->volume);
  free(run->body_type);
  free(run->frame_step);
  free(run->frame_time);
  free(run->contact_first);
  free(run->contact_count);
  free(run);
}

int64_t clt_analysis_frame_count(const clt_analysis_run_t *run) { return run ? run->frame_count : 0; }

int clt_analysis_dimension(const clt_analysis_run_t *run) { return run ? run->dimension : 0; }

static double *read_doubles(hid_t file, const char *path, hsize_t rows, hsize_t width) {
  return clt_run_file_read(file, path, H5T_NATIVE_DOUBLE, sizeof(double), rows, width);
}

static int32_t *read_int32(hid_t file, const char *path, hsize_t rows, hsize_t width) {
  return clt_run_file_read(file, path, H5T_NATIVE_INT32, sizeof(int32_t), rows, width);
}

/* The shapes of /shapes as shape defs (what clt_shape_volume reads), summed per body into volume
 * and radius; polyhedra through the hull of their stored vertices. False for a damaged table. */
static bool read_bodies(clt_analysis_run_t *run) {
  hid_t file = run->file;
  hsize_t dims[3];
  if (clt_run_file_dims(file, "bodies/mass", dims) != 1) return false;
  hsize_t n = dims[0];
  if (n > (hsize_t)INT32_MAX) return false;
  run->body_count = (int)n;
  size_t rows = n > 0 ? (size_t)n : 1;
  run->mass = read_doubles(file, "bodies/mass", n, 1);
  int32_t *first = read_int32(file, "bodies/first_shape", n, 1), *count = read_int32(file, "bodies/shape_count", n, 1);
  run->radius = calloc(rows, sizeof(double));
  run->volume = calloc(rows, sizeof(double));
  run->body_type = calloc(rows, sizeof(int));
  char(*types)[16] = calloc(rows, sizeof *types);
  bool ok = run->mass && first && count && run->radius && run->volume && run->body_type && types &&
            clt_run_file_read_strings(file, "bodies/type", n, &types[0][0], 16);
  for (hsize_t i = 0; ok && i < n; i++) {
    clt_body_type_t t;
    ok = clt_body_type_from_name(types[i], &t);
    run->body_type[i] = (int)t;
  }
  free(types);
  int64_t k = ok ? clt_run_file_rows(file, "shapes/body") : -1;
  ok = ok && k >= 0;
  hsize_t shapes = ok ? (hsize_t)k : 0;
  for (hsize_t i = 0; ok && i < n; i++)
    ok = first[i] >= 0 && count[i] >= 0 && (hsize_t)first[i] <= shapes &&
         (hsize_t)count[i] <= shapes - (hsize_t)first[i];
  char(*shape_types)[32] = ok ? calloc(shapes > 0 ? shapes : 1, sizeof *shape_types) : NULL;
  ok = ok && shape_types && clt_run_file_read_strings(file, "shapes/type", shapes, &shape_types[0][0], 32);
  static const struct {
    const char *path;
    int width;
    size_t offset;
  } fields[] = {{"shapes/position", 3, offsetof(clt_shape_def_t, local_position)},
                {"shapes/radius", 1, offsetof(clt_shape_def_t, radius)},
                {"shapes/length", 1, offsetof(clt_shape_def_t, length)},
                {"shapes/half_extents", 3, offsetof(clt_shape_def_t, half_extents)},
                {"shapes/semi_axes", 3, offsetof(clt_shape_def_t, semi_axes)},
                {"shapes/major_radius", 1, offsetof(clt_shape_def_t, major_radius)},
                {"shapes/minor_radius", 1, offsetof(clt_shape_def_t, minor_radius)},
                {"shapes/a", 3, offsetof(clt_shape_def_t, a)},
                {"shapes/b", 3, offsetof(clt_shape_def_t, b)}};
  enum { FIELDS = sizeof fields / sizeof fields[0] };
  double *columns[FIELDS] = {NULL};
  for (int f = 0; ok && f < FIELDS; f++) {
    if (clt_run_file_exists(file, fields[f].path) &&
        !(columns[f] = read_doubles(file, fields[f].path, shapes, (hsize_t)fields[f].width)))
      ok = false;
  }
  /* polygons (2D) and polyhedra: their vertex tables, absent in files without either */
  int32_t *vcount = ok ? read_int32(file, "shapes/vertex_count", shapes, 1) : NULL;
  int32_t *vfirst = ok ? read_int32(file, "shapes/first_vertex", shapes, 1) : NULL;
  int32_t *hcount = ok ? read_int32(file, "shapes/hull_vertex_count", shapes, 1) : NULL;
  int32_t *hfirst = ok ? read_int32(file, "shapes/first_hull_vertex", shapes, 1) : NULL;
  int64_t vrows = clt_run_file_rows(file, "shapes/vertices"), hrows = clt_run_file_rows(file, "shapes/hull_vertices");
  double *vertices = ok && vrows > 0 ? read_doubles(file, "shapes/vertices", (hsize_t)vrows, 2) : NULL;
  double *hull = ok && hrows > 0 ? read_doubles(file, "shapes/hull_vertices", (hsize_t)hrows, 3) : NULL;
  for (hsize_t i = 0; ok && i < n; i++) {
    for (int32_t j = first[i]; ok && j < first[i] + count[i]; j++) {
      clt_shape_def_t def = clt_default_shape_def(clt_shape_type_from_name(shape_types[j]));
      if (def.type == CLT_SHAPE_TYPE_COUNT) {
        ok = false;
        break;
      }
      for (int f = 0; f < FIELDS; f++)
        if (columns[f])
          memcpy((char *)&def + fields[f].offset, columns[f] + (size_t)j * (size_t)fields[f].width,
                 sizeof(double) * (size_t)fields[f].width);
      clt_convex_t *convex = NULL;
      if (def.type == CLT_SHAPE_POLYGON) {
        ok = vcount && vfirst && vertices && vcount[j] >= 3 && vcount[j] <= CLT_MAX_POLYGON_VERTICES &&
             vfirst[j] >= 0 && vfirst[j] + (int64_t)vcount[j] <= vrows;
        for (int v = 0; ok && v < vcount[j]; v++) {
          def.vertices[v][0] = vertices[2 * ((size_t)vfirst[j] + (size_t)v)];
          def.vertices[v][1] = vertices[2 * ((size_t)vfirst[j] + (size_t)v) + 1];
        }
        def.vertex_count = ok ? vcount[j] : 0;
      } else if (def.type == CLT_SHAPE_POLYHEDRON) {
        ok = hcount && hfirst && hull && hcount[j] >= 4 && hfirst[j] >= 0 && hfirst[j] + (int64_t)hcount[j] <= hrows &&
             clt_convex_from_points((const double(*)[3])(hull + 3 * (size_t)hfirst[j]), hcount[j], &convex, NULL, 0) ==
                 CLT_OK;
        def.convex = convex;
      }
      if (ok) {
        run->volume[i] += clt_shape_volume(&def);
        if (j == first[i]) run->radius[i] = sphere_radius(run->dimension, count[i], &def);
      }
      clt_convex_release(convex);
    }
  }
  for (int f = 0; f < FIELDS; f++) free(columns[f]);
  free(vcount);
  free(vfirst);
  free(hcount);
  free(hfirst);
  free(vertices);
  free(hull);
  free(shape_types);
  free(first);
  free(count);
  return ok;
}

/* /trajectory: its steps and times, and the position (and velocity) series opened for the frames. */
static bool open_trajectory(clt_analysis_run_t *run) {
  hsize_t dims[3];
  if (clt_run_file_dims(run->file, "trajectory/time", dims) != 1) return !clt_run_file_exists(run->file, "trajectory");
  hsize_t t = dims[0], n = (hsize_t)run->body_count;
  run->frame_count = (int64_t)t;
  run->frame_time = read_doubles(run->file, "trajectory/time", t, 1);
  run->frame_step = clt_run_file_read(run->file, "trajectory/step", H5T_NATIVE_INT64, sizeof(int64_t), t, 1);
  if (!run->frame_time || !run->frame_step) return false;
  const char *sets[2] = {"trajectory/position", "trajectory/velocity"};
  hid_t *handles[2] = {&run->position, &run->velocity};
  for (int s = 0; s < 2; s++) {
    int rank = clt_run_file_dims(run->file, sets[s], dims);
    if (rank < 0 && s == 1) continue; /* velocities are optional (output.velocities) */
    if (rank != 3 || dims[0] != t || dims[1] != n || dims[2] != 3) return false;
    *handles[s] = H5Dopen2(run->file, sets[s], H5P_DEFAULT);
    if (*handles[s] < 0) return false;
  }
  return true;
}

/* /contacts: first and count per frame, checked against the tables' rows, which their storage
 * must hold (a crafted count must not size a buffer). */
static bool open_contacts(clt_analysis_run_t *run) {
  if (!clt_run_file_exists(run->file, "contacts")) return true;
  hsize_t t = (hsize_t)run->frame_count, dims[3];
  run->contact_first = clt_run_file_read(run->file, "contacts/first", H5T_NATIVE_INT64, sizeof(int64_t), t, 1);
  run->contact_count = clt_run_file_read(run->file, "contacts/count", H5T_NATIVE_INT64, sizeof(int64_t), t, 1);
  if (!run->contact_first || !run->contact_count || clt_run_file_dims(run->file, "contacts/point", dims) != 2)
    return false;
  run->contact_rows = (int64_t)dims[0];
  for (int k = 0; k < C_COUNT; k++) {
    int rank = clt_run_file_dims(run->file, contact_sets[k], dims);
    if (rank < 0) continue;
    hsize_t width = rank == 2 ? dims[1] : 1;
    if (rank > 2 || dims[0] != (hsize_t)run->contact_rows || width != (hsize_t)contact_widths[k]) return false;
    run->contacts[k] = H5Dopen2(run->file, contact_sets[k], H5P_DEFAULT);
    if (run->contacts[k] < 0 || !clt_h5_stored(run->contacts[k])) return false;
  }
  for (hsize_t f = 0; f < t; f++) {
    if (run->contact_first[f] < 0 || run->contact_count[f] < 0 ||
        run->contact_count[f] > run->contact_rows - run->contact_first[f])
      return false;
  }
  return run->contacts[C_POINT] >= 0;
}

clt_status_t clt_analysis_open(const char *path, clt_analysis_run_t **out, char *message, size_t message_size) {
  *out = NULL;
  clt_analysis_run_t *run = calloc(1, sizeof *run);
  if (!run) return CLT_ERR_OUT_OF_MEMORY;
  snprintf(run->path, sizeof run->path, "%s", path);
  run->position = run->velocity = -1;
  run->contact_rows = -1;
  for (int k = 0; k < C_COUNT; k++) run->contacts[k] = -1;
  clt_status_t status = CLT_OK;
  run->file = clt_run_file_open(path, NULL, &status, message, message_size);
  if (run->file < 0) {
    free(run);
    return status;
  }
  clt_h5_silence_t quiet = clt_h5_silence(); /* a library never prints: HDF5's stack stays quiet */
  int64_t dimension = 0;
  const char *damaged = NULL;
  if (!clt_run_file_attr_int64(run->file, "dimension", &dimension) || (dimension != 2 && dimension != 3)) {
    damaged = "damaged clatter run file (its dimension is not 2 or 3)";
  } else {
    run->dimension = (int)dimension;
    /* a file of before the attribute: the scene default (docs/output-format.md "gravity") */
    if (!clt_run_file_attr_doubles(run->file, "gravity", 3, run->gravity)) {
      memset(run->gravity, 0, sizeof run->gravity);
      run->gravity[run->dimension - 1] = -9.81;
    }
    if (!read_bodies(run))
      damaged = "damaged /bodies or /shapes";
    else if (!open_trajectory(run))
      damaged = "damaged /trajectory";
    else if (!open_contacts(run))
      damaged = "damaged /contacts (docs/output-format.md)";
  }
  clt_h5_restore(quiet);
  if (damaged) {
    clt_run_file_message(message, message_size, path, damaged);
    clt_analysis_close(run);
    return CLT_ERR_FORMAT;
  }
  *out = run;
  return CLT_OK;
}

clt_status_t clt_analysis_read_frame(clt_analysis_run_t *run, int64_t frame, clt_analysis_frame_t *out, char *message,
                                     size_t message_size) {
  memset(out, 0, sizeof *out);
  if (!run) return clt_analysis_fail(message, message_size, "run: NULL");
  if (frame < 0 || frame >= run->frame_count)
    return clt_analysis_fail(message, message_size, "frames: frame %lld is not in 0 … %lld", (long long)frame,
                             (long long)run->frame_count - 1);
  bool contacts = run->contact_rows >= 0 && run->contact_count[frame] > 0;
  if (contacts && run->contacts[C_TOUCHING] < 0) {
    clt_run_file_message(message, message_size, run->path,
                         "/contacts has no touching flags (a file of before them: docs/output-format.md "
                         "\"Touching contacts\")");
    return CLT_ERR_FORMAT;
  }
  int64_t c = contacts ? run->contact_count[frame] : 0, first = contacts ? run->contact_first[frame] : 0;
  out->dimension = run->dimension;
  out->frame = frame;
  out->step = run->frame_step[frame];
  out->time = run->frame_time[frame];
  memcpy(out->gravity, run->gravity, sizeof out->gravity);
  if (!frame_allocate(out, run->body_count, c, run->velocity >= 0)) {
    clt_analysis_frame_release(out);
    clt_analysis_fail(message, message_size, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  frame_storage_t *s = out->storage;
  size_t n = (size_t)run->body_count;
  memcpy(s->mass, run->mass, sizeof(double) * n);
  memcpy(s->radius, run->radius, sizeof(double) * n);
  memcpy(s->volume, run->volume, sizeof(double) * n);
  memcpy(s->body_type, run->body_type, sizeof(int) * n);
  clt_h5_silence_t quiet = clt_h5_silence();
  bool ok = n == 0 || clt_h5_read_row(run->position, frame, s->position);
  if (ok && s->velocity && n > 0) ok = clt_h5_read_row(run->velocity, frame, s->velocity);
  const char *what = ok ? NULL : "damaged /trajectory";
  if (!what && c > 0) {
    hid_t *d = run->contacts;
    ok = d[C_BODY_A] >= 0 && d[C_BODY_B] >= 0 &&
         clt_h5_read_rows(d[C_BODY_A], H5T_NATIVE_INT32, sizeof(int32_t), first, c, s->body_a) &&
         clt_h5_read_rows(d[C_BODY_B], H5T_NATIVE_INT32, sizeof(int32_t), first, c, s->body_b) &&
         clt_h5_read_rows(d[C_POINT], H5T_NATIVE_DOUBLE, sizeof(double), first, c, s->point) &&
         clt_h5_read_rows(d[C_TOUCHING], H5T_NATIVE_UINT8, sizeof(uint8_t), first, c, s->touching);
    if (ok && d[C_NORMAL] >= 0)
      ok = clt_h5_read_rows(d[C_NORMAL], H5T_NATIVE_DOUBLE, sizeof(double), first, c, s->normal);
    else
      for (int64_t i = 0; i < 3 * c; i++) s->normal[i] = NAN;
    if (ok && d[C_FORCE] >= 0) {
      ok = clt_h5_read_rows(d[C_FORCE], H5T_NATIVE_DOUBLE, sizeof(double), first, c, s->force);
    } else if (ok && d[C_NORMAL_FORCE] >= 0 && d[C_NORMAL] >= 0) {
      /* the normal part alone, where a writer gave no total force (docs/output-format.md) */
      double *fn = malloc(sizeof(double) * (size_t)c);
      ok = fn && clt_h5_read_rows(d[C_NORMAL_FORCE], H5T_NATIVE_DOUBLE, sizeof(double), first, c, fn);
      for (int64_t i = 0; ok && i < 3 * c; i++) s->force[i] = fn[i / 3] * s->normal[i];
      free(fn);
    } else {
      for (int64_t i = 0; i < 3 * c; i++) s->force[i] = NAN; /* no forces in the file */
    }
    for (int64_t i = 0; ok && i < c; i++)
      ok = s->body_a[i] >= 0 && s->body_a[i] < run->body_count && s->body_b[i] >= 0 && s->body_b[i] < run->body_count;
    if (!ok) what = "damaged /contacts (docs/output-format.md)";
  }
  clt_h5_restore(quiet);
  if (what) {
    clt_analysis_frame_release(out);
    clt_run_file_message(message, message_size, run->path, what);
    return CLT_ERR_FORMAT;
  }
  return CLT_OK;
}
