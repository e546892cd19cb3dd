/* The run writer (clatter/output.h, docs/output-format.md): a run file's life from
 * clt_output_create to clt_output_close. Creating writes the root attributes, the resolved scene,
 * /bodies and /shapes and the step-0 row and frame of the initial state; each step then adds a
 * diagnostics row (and CSV line) and, every output interval, a trajectory frame with its contacts,
 * buffered in memory and appended a few thousand rows at a time; closing writes the run's status
 * and final state and publishes the temporary file under its final name (output_files.c).
 * A growing run (a colony) adds the new bodies' rows and columns as it goes (output_grow). */
#define _POSIX_C_SOURCE 200809L /* close */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/output_internal.h"

/* Frames are buffered up to 1 MB (all series together) before they are appended, and a chunk of a
 * per-body series holds that many frames (output_open_series): more buffering saves no write and
 * is memory held for the run (8 MB made 7.6 MB more peak RSS in a `clatter run` of the 8·10³
 * pile). At least one frame is buffered, at most 1 024. */
#define TRAJ_BUFFER_BYTES (1u << 20)
/* Buffered contact rows before a flush (about 6 MB). */
#define CONT_BUFFER_ROWS 65536

const char *clt_run_status_name(clt_run_status_t status) {
  switch (status) {
    case CLT_RUN_RUNNING: return "running";
    case CLT_RUN_COMPLETE: return "complete";
    case CLT_RUN_INTERRUPTED: return "interrupted";
    case CLT_RUN_ERROR: return "error";
    case CLT_RUN_DIVERGED: return "diverged";
  }
  return "unknown";
}

static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

char *output_concat(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *d = malloc(na + nb + 1);
  if (d) {
    memcpy(d, a, na);
    memcpy(d + na, b, nb + 1);
  }
  return d;
}

void output_free(clt_output_t *out) {
  if (!out) return;
  for (int i = 0; i < COLUMN_COUNT; i++) {
    if (out->diag[i] > 0) H5Dclose(out->diag[i]);
  }
  for (int i = 0; i < TRAJ_COUNT; i++) {
    if (out->traj[i] > 0) H5Dclose(out->traj[i]);
    free(out->traj_buffer[i]);
  }
  for (int i = 0; i < CONT_DATASETS; i++) {
    if (out->cont[i] > 0) H5Dclose(out->cont[i]);
  }
  output_free_contact_rows(&out->cont_rows);
  free(out->cont_first);
  free(out->cont_count);
  if (out->file > 0) H5Fclose(out->file);
  if (out->csv) fclose(out->csv);
  if (out->lock_fd >= 0) close(out->lock_fd);
  free(out->diag_buffer);
  free(out->bodies);
  output_release_reserve(out);
  free(out->reserve_path);
  free(out->path);
  free(out->tmp_path);
  free(out->csv_path);
  free(out->csv_tmp_path);
  free(out);
}

clt_output_t *output_alloc(const char *path, const clt_scene_t *scene) {
  clt_output_t *out = calloc(1, sizeof *out);
  if (!out) return NULL;
  for (int i = 0; i < COLUMN_COUNT; i++) out->diag[i] = -1;
  for (int i = 0; i < TRAJ_COUNT; i++) out->traj[i] = -1;
  for (int i = 0; i < CONT_DATASETS; i++) out->cont[i] = -1;
  out->file = -1;
  out->lock_fd = -1;
  out->checkpoint_step = -1;
  out->last_frame_step = -1;
  out->options = *clt_scene_output(scene);
  out->contacts = out->options.contacts && out->options.trajectory;
  out->time_step = clt_scene_time_step(scene);
  out->dimension = clt_scene_dimension(scene);
  out->growing = clt_scene_colony(scene) != NULL;
  char csv[4096];
  clt_output_csv_path(path, csv, sizeof csv);
  out->path = dup_string(path);
  out->tmp_path = output_concat(path, ".tmp");
  out->csv_path = dup_string(out->options.csv ? csv : "");
  out->csv_tmp_path = output_concat(csv, ".tmp");
  out->reserve_path = output_concat(path, ".tmp.reserve");
  out->diag_buffer = malloc(sizeof(double) * COLUMN_COUNT * DIAG_BUFFER_ROWS);
  if (!out->path || !out->tmp_path || !out->csv_path || !out->csv_tmp_path || !out->reserve_path ||
      !out->diag_buffer) {
    output_free(out);
    return NULL;
  }
  return out;
}

/* The frame buffers for n bodies (none buffered: called at setup and, in a growing run, after a
 * flush). */
static bool size_buffers(clt_output_t *out, int n) {
  int widths[TRAJ_COUNT] = {1,     1, 3 * n, out->dimension == 3 ? 4 * n : n, 3 * n, out->dimension == 3 ? 3 * n : n,
                            1, n, JOINT_STATE_COLUMNS * out->joint_count};
  size_t per_frame = 0;
  for (int i = 0; i < TRAJ_COUNT; i++) {
    out->traj_width[i] = widths[i];
    per_frame += (size_t)widths[i] * sizeof(double);
  }
  size_t cap = TRAJ_BUFFER_BYTES / per_frame;
  out->traj_capacity = (int)(cap < 1 ? 1 : cap > 1024 ? 1024 : cap);
  for (int i = 0; i < TRAJ_COUNT; i++) {
    free(out->traj_buffer[i]);
    out->traj_buffer[i] = malloc(sizeof(double) * (size_t)widths[i] * (size_t)out->traj_capacity);
    if (!out->traj_buffer[i]) return false;
  }
  free(out->cont_first);
  free(out->cont_count);
  out->cont_first = malloc(sizeof(int64_t) * (size_t)out->traj_capacity);
  out->cont_count = malloc(sizeof(int64_t) * (size_t)out->traj_capacity);
  return out->cont_first && out->cont_count;
}

/* The bodies recorded per frame: the world's (in creation order). */
bool output_setup_bodies(clt_output_t *out, const clt_world_t *world) {
  out->method = clt_world_method(world);
  int n = clt_world_body_count(world);
  clt_body_id_t *bodies = realloc(out->bodies, sizeof *bodies * (size_t)(n > 0 ? n : 1));
  if (!bodies) return false;
  out->bodies = bodies;
  out->body_count = n;
  for (int i = 0; i < n; i++) out->bodies[i] = clt_world_body_at(world, i);
  out->joint_count = clt_world_joint_count(world);
  out->joint_series = out->joint_count > 0;
  return size_buffers(out, n);
}

static bool write_static(clt_output_t *out, const clt_scene_t *scene, const clt_world_t *world) {
  hid_t file = out->file;
  bool ok = true;
  ok = ok && output_set_attr_string(file, "format", CLT_OUTPUT_FORMAT_NAME) >= 0;
  ok = ok && output_set_attr_int64(file, "format_version", CLT_OUTPUT_FORMAT_VERSION) >= 0;
  ok = ok && output_set_attr_string(file, "clatter_version", CLATTER_VERSION_STRING) >= 0;
  ok = ok && output_set_attr_string(file, "scene_name", clt_scene_name(scene)) >= 0;
  ok = ok && output_set_attr_int64(file, "dimension", clt_scene_dimension(scene)) >= 0;
  ok = ok && output_set_attr_double(file, "time_step", clt_scene_time_step(scene)) >= 0;
  ok = ok && output_set_attr_double(file, "duration", clt_scene_duration(scene)) >= 0;
  ok = ok && output_set_attr_int64(file, "total_steps", clt_scene_step_count(scene)) >= 0;
  /* what the solver_status column's not-solved rows missed (clatter info's summary) */
  ok = ok && output_set_attr_double(file, "tolerance", clt_world_method(world)->tolerance) >= 0;
  double gravity[3];
  clt_world_get_gravity(world, gravity);
  ok = ok && output_set_attr_doubles(file, "gravity", 3, gravity) >= 0;
  if (clt_world_step_count(world) > 0) /* a run started from another run's checkpoint */
    ok = ok && output_set_attr_int64(file, "first_step", clt_world_step_count(world)) >= 0;
  ok = ok && output_set_attr_int64(file, "output_interval_steps", out->options.interval_steps) >= 0;
  ok = ok && output_set_attr_string(file, "status", "running") >= 0;
  ok = ok && output_set_attr_string(file, "status_message", "") >= 0;
  if (!ok) return false;

  /* The resolved scene: what --resume rebuilds the world from. */
  const char *json = clt_scene_json(scene);
  hid_t type = output_string_type(strlen(json) + 1);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_obj_track_times(dcpl, 0);
  hid_t d = H5Dcreate2(file, "scene", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ok = d >= 0 && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, json) >= 0;
  if (d >= 0) H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Tclose(type);
  if (!ok) return false;

  return output_write_bodies(out, world, 0, out->body_count, true) && output_write_links(file, world);
}

/* Appends the buffered rows and frames and flushes the CSV and the HDF5 file; refused (errno
 * ENOSPC) when the disk has not the room for it (output_room_for). */
bool output_flush(clt_output_t *out) {
  uint64_t pending = (uint64_t)out->diag_rows * COLUMN_COUNT * sizeof(double) + BUFSIZ +
                     (uint64_t)out->cont_rows.rows * 128;
  for (int k = 0; k < TRAJ_COUNT; k++) pending += (uint64_t)out->traj_rows * (uint64_t)out->traj_width[k] * 8;
  if (!output_room_for(out, pending + out->flush_margin)) {
    errno = ENOSPC;
    return false;
  }
  bool ok = true;
  if (out->diag_rows > 0) {
    if (out->options.diagnostics) {
      for (int c = 0; c < COLUMN_COUNT && ok; c++) {
        ok = output_append_rows(out->diag[c], H5T_NATIVE_DOUBLE, (hsize_t)out->diag_rows,
                                out->diag_buffer + (size_t)c * DIAG_BUFFER_ROWS) >= 0;
      }
    }
    out->diag_rows = 0;
  }
  if (out->traj_rows > 0) {
    for (int k = 0; k < TRAJ_COUNT && ok; k++) {
      if (!output_traj_enabled(out, k)) continue;
      ok = output_append_rows(out->traj[k], H5T_NATIVE_DOUBLE, (hsize_t)out->traj_rows, out->traj_buffer[k]) >= 0;
    }
    /* The contacts of the same frames, so /contacts/first and count always have as many rows as
     * /trajectory/step on disk. */
    if (out->contacts) {
      contact_rows_t *c = &out->cont_rows;
      hsize_t n = (hsize_t)c->rows, f = (hsize_t)out->traj_rows;
      ok = ok && output_append_rows(out->cont[CONT_POINT], H5T_NATIVE_DOUBLE, n, c->point) >= 0;
      ok = ok && output_append_rows(out->cont[CONT_BODY_A], H5T_NATIVE_INT32, n, c->body_a) >= 0;
      ok = ok && output_append_rows(out->cont[CONT_BODY_B], H5T_NATIVE_INT32, n, c->body_b) >= 0;
      ok = ok && output_append_rows(out->cont[CONT_NORMAL], H5T_NATIVE_DOUBLE, n, c->normal) >= 0;
      ok = ok && output_append_rows(out->cont[CONT_DISTANCE], H5T_NATIVE_DOUBLE, n, c->distance) >= 0;
      ok = ok && output_append_rows(out->cont[CONT_NORMAL_FORCE], H5T_NATIVE_DOUBLE, n, c->normal_force) >= 0;
      ok = ok && output_append_rows(out->cont[CONT_FORCE], H5T_NATIVE_DOUBLE, n, c->force) >= 0;
      ok = ok && output_append_rows(out->cont[CONT_TOUCHING], H5T_NATIVE_UINT8, n, c->touching) >= 0;
      ok = ok && output_append_rows(out->cont[CONT_FIRST], H5T_NATIVE_INT64, f, out->cont_first) >= 0;
      ok = ok && output_append_rows(out->cont[CONT_COUNT], H5T_NATIVE_INT64, f, out->cont_count) >= 0;
      c->rows = 0;
    }
    out->traj_rows = 0;
  }
  if (ok && out->csv) ok = fflush(out->csv) == 0;
  if (ok && out->file >= 0) ok = H5Fflush(out->file, H5F_SCOPE_LOCAL) >= 0;
  return ok;
}

static bool record_row(clt_output_t *out, clt_world_t *world) {
  clt_diagnostics_t d;
  if (clt_world_get_diagnostics(world, &d) != CLT_OK) return false;
  /* The step-0 row describes the initial state (world.h: step and t are 0 before any step). */
  d.step = clt_world_step_count(world);
  d.t = clt_world_time(world);
  out->last_step = d.step;
  out->last_time = d.t;
  if (out->options.diagnostics) {
    for (int c = 0; c < COLUMN_COUNT; c++) {
      out->diag_buffer[(size_t)c * DIAG_BUFFER_ROWS + (size_t)out->diag_rows] = output_column_value(&d, c);
    }
    out->diag_rows++;
  }
  if (out->csv && !output_csv_row(out->csv, &d)) return false;
  if (out->diag_rows == DIAG_BUFFER_ROWS) return output_flush(out);
  return true;
}

/* Whether trajectory series k has a column per body. */
static bool per_body(int k) { return k != TRAJ_STEP && k != TRAJ_TIME && k != TRAJ_BODIES && k != TRAJ_JOINTS; }

/* One frame of /trajectory/joint_state: θ, θ̇, the limit and the motor impulse of the last step
 * per joint (clt_joint_get_state), 1 (0 once it is removed), and the impulses of its Θ rows; NaN
 * for the θ and θ̇ of joints without one coordinate and of removed ones (whose impulses are 0). */
static bool record_joints(clt_output_t *out, const clt_world_t *world, double *row) {
  for (int j = 0; j < out->joint_count; j++) {
    clt_joint_id_t id = clt_world_joint_at(world, j);
    double *v = row + JOINT_STATE_COLUMNS * j;
    for (int k = 2; k < JOINT_STATE_COLUMNS; k++) v[k] = 0.0;
    v[0] = v[1] = NAN;
    v[4] = id.index == CLT_NULL_INDEX ? 0.0 : 1.0;
    if (id.index == CLT_NULL_INDEX) continue; /* removed (clt_world_remove_joint) */
    double impulse[9];
    if (clt_joint_get_impulses(world, id, impulse) != CLT_OK) return false;
    for (int k = 0; k < 6; k++) v[5 + k] = impulse[k];
    clt_joint_info_t info;
    if (clt_joint_get_info(world, id, &info) != CLT_OK) return false;
    if (info.type != CLT_JOINT_REVOLUTE && info.type != CLT_JOINT_PRISMATIC && info.type != CLT_JOINT_DISTANCE) continue;
    clt_joint_state_t s;
    if (clt_joint_get_state(world, id, &s) != CLT_OK) return false;
    v[0] = s.position;
    v[1] = s.rate;
    v[2] = s.limit_impulse;
    v[3] = s.motor_impulse;
  }
  return true;
}

/* A growing run: the bodies added to the world since the last frame or checkpoint get their rows
 * in /bodies and /shapes and their columns in the per-body series, after the frames buffered
 * before them are flushed. */
bool output_grow(clt_output_t *out, const clt_world_t *world) {
  int n = clt_world_body_count(world);
  if (!out->growing || n <= out->body_count) return true;
  if (!output_flush(out)) return false;
  int from = out->body_count;
  clt_body_id_t *bodies = realloc(out->bodies, sizeof *bodies * (size_t)n);
  if (!bodies) return false;
  out->bodies = bodies;
  for (int i = from; i < n; i++) out->bodies[i] = clt_world_body_at(world, i);
  if (!output_write_bodies(out, world, from, n, false)) return false;
  out->body_count = n;
  for (int k = 0; k < TRAJ_COUNT; k++)
    if (output_traj_enabled(out, k) && per_body(k) && output_set_body_columns(out->traj[k], (hsize_t)n) < 0)
      return false;
  return size_buffers(out, n);
}

static bool record_frame(clt_output_t *out, const clt_world_t *world) {
  if (!output_grow(out, world)) return false;
  if (!out->options.trajectory) return true;
  int r = out->traj_rows, n = out->body_count;
  double *step = out->traj_buffer[TRAJ_STEP] + r, *time = out->traj_buffer[TRAJ_TIME] + r;
  double *pos = out->traj_buffer[TRAJ_POSITION] + (size_t)r * (size_t)out->traj_width[TRAJ_POSITION];
  double *ori = out->traj_buffer[TRAJ_ORIENTATION] + (size_t)r * (size_t)out->traj_width[TRAJ_ORIENTATION];
  double *vel = out->traj_buffer[TRAJ_VELOCITY] + (size_t)r * (size_t)out->traj_width[TRAJ_VELOCITY];
  double *ang = out->traj_buffer[TRAJ_ANGULAR] + (size_t)r * (size_t)out->traj_width[TRAJ_ANGULAR];
  *step = (double)clt_world_step_count(world);
  *time = clt_world_time(world);
  out->last_frame_step = clt_world_step_count(world);
  for (int i = 0; i < n; i++) {
    clt_body_state_t s;
    if (clt_world_body_at(world, i).index == CLT_NULL_INDEX) { /* removed (clt_world_remove_body): NaN */
      for (int k = 0; k < 3; k++) s.position[k] = s.velocity[k] = s.angular_velocity[k] = NAN;
      for (int k = 0; k < 4; k++) s.orientation[k] = NAN;
      s.angle = NAN;
    } else if (clt_body_get_state(world, out->bodies[i], &s) != CLT_OK) {
      return false;
    }
    for (int k = 0; k < 3; k++) {
      pos[3 * i + k] = s.position[k];
      vel[3 * i + k] = s.velocity[k];
    }
    if (out->dimension == 3) {
      for (int k = 0; k < 4; k++) ori[4 * i + k] = s.orientation[k];
      for (int k = 0; k < 3; k++) ang[3 * i + k] = s.angular_velocity[k];
    } else {
      ori[i] = s.angle;
      ang[i] = s.angular_velocity[0];
    }
  }
  if (out->growing) {
    out->traj_buffer[TRAJ_BODIES][r] = n;
    double *length = out->traj_buffer[TRAJ_LENGTH] + (size_t)r * (size_t)n;
    for (int i = 0; i < n; i++) {
      clt_shape_def_t shape;
      length[i] = clt_body_get_shape(world, out->bodies[i], 0, &shape) == CLT_OK ? shape.length : NAN;
    }
  }
  if (out->joint_series &&
      !record_joints(out, world, out->traj_buffer[TRAJ_JOINTS] + (size_t)r * (size_t)out->traj_width[TRAJ_JOINTS]))
    return false;
  if (out->contacts && !output_record_contacts(out, world, r)) return false;
  out->traj_rows++;
  if (out->traj_rows == out->traj_capacity || out->cont_rows.rows >= CONT_BUFFER_ROWS) {
    return output_flush(out);
  }
  return true;
}

static bool frame_due(const clt_output_t *out, int64_t step) {
  return step % out->options.interval_steps == 0;
}

clt_status_t clt_output_create(const char *path, const clt_scene_t *scene, clt_world_t *world,
                               clt_output_t **result, char *message, size_t message_size) {
  return clt_output_create_flags(path, scene, world, 0u, result, message, message_size);
}

clt_status_t clt_output_create_flags(const char *path, const clt_scene_t *scene, clt_world_t *world,
                                     unsigned flags, clt_output_t **result, char *message, size_t message_size) {
  *result = NULL;
  clt_output_t *out = output_alloc(path, scene);
  if (!out) return CLT_ERR_OUT_OF_MEMORY;
  bool overwrite = (flags & CLT_OUTPUT_OVERWRITE) != 0;
  out->replace_final = overwrite;
  if (!output_final_free(out->path, overwrite, message, message_size) ||
      (out->csv_path[0] && !output_final_free(out->csv_path, overwrite, message, message_size))) {
    output_free(out);
    return CLT_ERR_IO;
  }
  clt_status_t status = CLT_OK;
  out->lock_fd = output_create_exclusive(out->tmp_path, out->path, true, message, message_size);
  if (out->lock_fd < 0) {
    output_free(out);
    return CLT_ERR_IO;
  }
  out->own_tmp = true;
  if (!output_make_reserve(out, message, message_size)) {
    clt_output_discard(out);
    return CLT_ERR_IO;
  }
  out->first_step = clt_world_step_count(world);
  clt_h5_silence_t quiet = clt_h5_silence();
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  H5Pset_obj_track_times(fcpl, 0);
  out->file = H5Fcreate(out->tmp_path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  H5Pclose(fcpl);
  if (out->file < 0) {
    set_message(message, message_size, "%s: cannot create the output file%s", out->tmp_path, NULL);
    status = CLT_ERR_IO;
  } else if (!output_same_inode(out->lock_fd, out->tmp_path)) {
    set_message(message, message_size, "%s: replaced by another file while being created%s", out->tmp_path, NULL);
    out->own_tmp = false; /* not ours any more: left alone */
    status = CLT_ERR_IO;
  }
  if (status == CLT_OK && out->csv_path[0]) {
    if (!output_create_csv(out, message, message_size)) status = CLT_ERR_IO;
    else output_csv_header(out->csv);
  }
  if (status == CLT_OK && !output_setup_bodies(out, world)) status = CLT_ERR_OUT_OF_MEMORY;
  errno = 0;
  if (status == CLT_OK && (!write_static(out, scene, world) || !output_open_series(out, true))) {
    set_message(message, message_size, "%s: cannot write the output file: %s", out->tmp_path,
                errno ? strerror(errno) : "the HDF5 library reported an error");
    status = CLT_ERR_IO;
  }
  if (status == CLT_OK) { /* H5Fflush: a run whose later writes fail still leaves a readable file */
    if (!record_row(out, world) || !record_frame(out, world) || !output_flush(out) ||
        H5Fflush(out->file, H5F_SCOPE_LOCAL) < 0) {
      set_message(message, message_size, "%s: cannot write the output file: %s", out->tmp_path,
                  errno ? strerror(errno) : "the HDF5 library reported an error");
      status = CLT_ERR_IO;
    }
  }
  clt_h5_restore(quiet);
  if (status != CLT_OK) {
    clt_output_discard(out);
    return status;
  }
  *result = out;
  return CLT_OK;
}

clt_status_t clt_output_record_step(clt_output_t *out, clt_world_t *world) {
  if (out->failed) return CLT_ERR_IO;
  clt_h5_silence_t quiet = clt_h5_silence();
  errno = 0;
  bool ok = record_row(out, world);
  if (ok && frame_due(out, clt_world_step_count(world))) ok = record_frame(out, world);
  if (!ok) output_note_failure(out, errno);
  clt_h5_restore(quiet);
  return ok ? CLT_OK : CLT_ERR_IO;
}

clt_status_t clt_output_record_frame(clt_output_t *out, const clt_world_t *world) {
  if (out->failed) return CLT_ERR_IO;
  if (out->last_frame_step == clt_world_step_count(world)) return CLT_OK;
  clt_h5_silence_t quiet = clt_h5_silence();
  errno = 0;
  bool ok = record_frame(out, world);
  if (!ok) output_note_failure(out, errno);
  clt_h5_restore(quiet);
  return ok ? CLT_OK : CLT_ERR_IO;
}

/* clt_world_state_hash as 16 lower-case hex digits (docs/output-format.md "state_hash"). */
void output_state_hash(const clt_world_t *world, char hash[17]) {
  snprintf(hash, 17, "%016llx", (unsigned long long)clt_world_state_hash(world));
}

void clt_output_record_final_state(clt_output_t *out, const clt_world_t *world) {
  output_state_hash(world, out->state_hash);
  out->state_hash_step = clt_world_step_count(world);
}

clt_status_t clt_output_attach_colony(clt_output_t *out, const clt_colony_t *colony) {
  if (!out || !colony || !out->growing || clt_colony_world(colony) == NULL) return CLT_ERR_INVALID_ARGUMENT;
  out->colony = colony;
  return CLT_OK;
}

clt_status_t clt_output_close(clt_output_t *out, clt_run_status_t run_status, const char *status_message,
                              char *message, size_t message_size) {
  if (out->failed) return output_close_failed(out, run_status, status_message, message, message_size);
  clt_h5_silence_t quiet = clt_h5_silence();
  errno = 0;
  bool ok = output_flush(out);
  ok = ok && output_set_attr_string(out->file, "status", clt_run_status_name(run_status)) >= 0;
  ok = ok && output_set_attr_string(out->file, "status_message", status_message ? status_message : "") >= 0;
  ok = ok && output_set_attr_int64(out->file, "steps", out->last_step) >= 0;
  ok = ok && output_set_attr_double(out->file, "final_time", out->last_time) >= 0;
  if (out->state_hash[0]) {
    ok = ok && output_set_attr_string(out->file, "state_hash", out->state_hash) >= 0;
    ok = ok && output_set_attr_int64(out->file, "state_hash_step", out->state_hash_step) >= 0;
  } else {
    /* a resumed file must not keep the hash of the run it continued */
    if (H5Aexists(out->file, "state_hash") > 0) ok = ok && H5Adelete(out->file, "state_hash") >= 0;
    if (H5Aexists(out->file, "state_hash_step") > 0) ok = ok && H5Adelete(out->file, "state_hash_step") >= 0;
  }
  if (!ok) {
    output_note_failure(out, errno);
    clt_h5_restore(quiet);
    return output_close_failed(out, run_status, status_message, message, message_size);
  }
  ok = H5Fclose(out->file) >= 0;
  out->file = -1;
  if (out->csv) {
    ok = (fclose(out->csv) == 0) && ok;
    out->csv = NULL;
  }
  clt_h5_restore(quiet);
  clt_status_t status = CLT_OK;
  if (!ok) {
    set_message(message, message_size, "%s: writing the output failed%s", out->tmp_path, NULL);
    status = CLT_ERR_IO;
  } else if (output_publish(out->tmp_path, out->path, out->replace_final) != 0) {
    if (errno == EEXIST)
      snprintf(message, message_size, "%s appeared while the run was writing it; the run's output is left in %s",
               out->path, out->tmp_path);
    else
      snprintf(message, message_size, "%s: cannot rename to %s: %s", out->tmp_path, out->path, strerror(errno));
    status = CLT_ERR_IO;
  } else if (out->csv_path[0] && output_publish(out->csv_tmp_path, out->csv_path, out->replace_final) != 0) {
    if (errno == EEXIST)
      snprintf(message, message_size, "%s appeared while the run was writing it; the run's CSV is left in %s",
               out->csv_path, out->csv_tmp_path);
    else
      snprintf(message, message_size, "%s: cannot rename to %s: %s", out->csv_tmp_path, out->csv_path,
               strerror(errno));
    status = CLT_ERR_IO;
  }
  output_free(out);
  return status;
}

void clt_output_discard(clt_output_t *out) {
  if (!out) return;
  clt_h5_silence_t quiet = clt_h5_silence();
  for (int i = 0; i < COLUMN_COUNT; i++) {
    if (out->diag[i] > 0) H5Dclose(out->diag[i]);
    out->diag[i] = -1;
  }
  for (int i = 0; i < TRAJ_COUNT; i++) {
    if (out->traj[i] > 0) H5Dclose(out->traj[i]);
    out->traj[i] = -1;
  }
  for (int i = 0; i < CONT_DATASETS; i++) {
    if (out->cont[i] > 0) H5Dclose(out->cont[i]);
    out->cont[i] = -1;
  }
  if (out->file >= 0) H5Fclose(out->file);
  out->file = -1;
  clt_h5_restore(quiet);
  if (out->csv) fclose(out->csv);
  out->csv = NULL;
  /* only what this process made: a second run on the same path must not delete the first's */
  if (out->own_tmp) unlink(out->tmp_path);
  if (out->own_csv_tmp && out->csv_path[0]) unlink(out->csv_tmp_path);
  output_free(out);
}

void clt_output_no_exit_handler(void) { H5dont_atexit(); }

const char *clt_output_path(const clt_output_t *out) { return out->path; }
const char *clt_output_csv_file(const clt_output_t *out) { return out->csv_path; }
