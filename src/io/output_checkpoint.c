/* Checkpoints of a run (docs/output-format.md "/checkpoint" and "State blob"): the world's whole
 * state (and a colony's) written every N steps and at an interrupt, so that --resume continues
 * bit-exactly (STYLE.md: bit-exact checkpoint/resume), and loaded back — by --resume
 * (output_resume.c) and by --start-from, which first checks that the file's bodies are the
 * scene's. A new checkpoint is written whole under another name before it replaces the old one,
 * so that a write failing half-way leaves the old one intact. */
#define _POSIX_C_SOURCE 200809L /* stat */
#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/output_internal.h"

clt_status_t clt_output_write_checkpoint(clt_output_t *out, const clt_world_t *world) {
  if (out->failed) return CLT_ERR_IO;
  if (out->growing && !out->colony) return CLT_ERR_INVALID_ARGUMENT; /* its cells could not be restored */
  size_t size = clt_world_state_size(world);
  size_t colony_size = out->colony ? clt_colony_state_size(out->colony) : 0;
  unsigned char *blob = malloc(size + colony_size + 1);
  if (!blob) return CLT_ERR_OUT_OF_MEMORY;
  clt_status_t status = clt_world_save_state(world, blob, size);
  if (status == CLT_OK && out->colony) status = clt_colony_save_state(out->colony, blob + size, colony_size);
  if (status != CLT_OK) {
    free(blob);
    return status;
  }
  clt_h5_silence_t quiet = clt_h5_silence();
  errno = 0;
  bool ok = output_grow(out, world) && output_flush(out); /* /bodies holds the checkpoint's bodies */
  if (ok && !output_room_for(out, (uint64_t)size + 65536 + out->flush_margin)) {
    errno = ENOSPC;
    ok = false;
  }
  hid_t g = -1, d = -1;
  /* The new checkpoint is written whole under another name and then takes the place of the old
   * one, so that a write failing half-way (a full disk) leaves the old one intact (salvage). */
  if (ok && H5Lexists(out->file, "checkpoint_next", H5P_DEFAULT) > 0)
    ok = H5Ldelete(out->file, "checkpoint_next", H5P_DEFAULT) >= 0;
  if (ok) {
    g = output_create_group(out->file, "checkpoint_next");
    ok = g >= 0;
  }
  if (ok) {
    d = output_create_table(g, "state", H5T_STD_U8LE, 0, NULL, 65536);
    if (d >= 0) { /* written past the chunk cache, so that a full disk fails the write, not a later close */
      hid_t dapl = output_whole_chunk_access();
      hid_t direct = H5Dopen2(g, "state", dapl);
      H5Pclose(dapl);
      H5Dclose(d);
      d = direct;
    }
    ok = d >= 0 && output_append_rows(d, H5T_NATIVE_UCHAR, (hsize_t)size, blob) >= 0;
  }
  if (ok && out->colony) { /* the colony's own state (clatter/colony.h "Checkpoints") */
    hid_t c = output_create_table(g, "colony", H5T_STD_U8LE, 0, NULL, 65536);
    ok = c >= 0 && output_append_rows(c, H5T_NATIVE_UCHAR, (hsize_t)colony_size, blob + size) >= 0;
    if (c >= 0 && H5Dclose(c) < 0) ok = false;
  }
  int64_t step = clt_world_step_count(world);
  ok = ok && output_set_attr_int64(g, "step", step) >= 0;
  ok = ok && output_set_attr_double(g, "time", clt_world_time(world)) >= 0;
  ok = ok && output_set_attr_int64(g, "size", (int64_t)size) >= 0;
  char hash[17];
  output_state_hash(world, hash);
  ok = ok && output_set_attr_string(g, "state_hash", hash) >= 0;
  /* closing the dataset writes its chunk from HDF5's cache: on a full disk that is where it fails */
  if (d >= 0 && H5Dclose(d) < 0) ok = false;
  if (g >= 0 && H5Gclose(g) < 0) ok = false;
  if (ok && H5Lexists(out->file, "checkpoint", H5P_DEFAULT) > 0)
    ok = H5Ldelete(out->file, "checkpoint", H5P_DEFAULT) >= 0;
  ok = ok && H5Lmove(out->file, "checkpoint_next", out->file, "checkpoint", H5P_DEFAULT, H5P_DEFAULT) >= 0;
  ok = ok && H5Fflush(out->file, H5F_SCOPE_LOCAL) >= 0;
  if (!ok) output_note_failure(out, errno);
  clt_h5_restore(quiet);
  free(blob);
  if (ok) out->checkpoint_step = step;
  return ok ? CLT_OK : CLT_ERR_IO;
}

int64_t clt_output_checkpoint_step(const clt_output_t *out) { return out->checkpoint_step; }

int64_t clt_output_checkpoint_every(const clt_output_t *out) { return out->checkpoint_every; }

clt_status_t clt_output_set_checkpoint_every(clt_output_t *out, int64_t steps) {
  if (!out || steps < 0) return CLT_ERR_INVALID_ARGUMENT;
  clt_h5_silence_t quiet = clt_h5_silence();
  /* flushed now: a run killed before its first checkpoint is resumed with its interval too */
  bool ok = output_set_attr_int64(out->file, "checkpoint_every", steps) >= 0 &&
            H5Fflush(out->file, H5F_SCOPE_LOCAL) >= 0;
  clt_h5_restore(quiet);
  if (ok) out->checkpoint_every = steps;
  return ok ? CLT_OK : CLT_ERR_IO;
}

/* The uint8 dataset `name` of the checkpoint group g, whole, into a new buffer (*blob, *size; free
 * it). `expected` ≥ 0: the size the group's attribute claims, which the dataset must have. A dataset
 * that claims more bytes than the file holds is refused before anything is allocated. */
static clt_status_t read_blob(hid_t g, const char *name, const char *path, int64_t expected, unsigned char **blob,
                              size_t *size, char *message, size_t message_size) {
  *blob = NULL;
  *size = 0;
  char what[64];
  snprintf(what, sizeof what, "/checkpoint/%s", name);
  hid_t d = H5Lexists(g, name, H5P_DEFAULT) > 0 ? H5Dopen2(g, name, H5P_DEFAULT) : -1;
  hsize_t rows = 0;
  struct stat st;
  clt_status_t status = CLT_OK;
  if (d < 0 || !clt_h5_column_rows(d, &rows) || (expected >= 0 && rows != (hsize_t)expected)) {
    set_message(message, message_size, "%s: damaged %s", path, what);
    status = CLT_ERR_FORMAT;
  } else if (stat(path, &st) != 0 || rows > (hsize_t)st.st_size) {
    set_message(message, message_size, "%s: damaged %s: larger than the file", path, what);
    status = CLT_ERR_FORMAT;
  } else if (!(*blob = malloc((size_t)rows + 1))) {
    status = CLT_ERR_OUT_OF_MEMORY;
  } else if (rows > 0 && H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, *blob) < 0) {
    set_message(message, message_size, "%s: cannot read %s", path, what);
    status = CLT_ERR_FORMAT;
  }
  if (status == CLT_OK) *size = (size_t)rows;
  else free(*blob), *blob = NULL;
  if (d >= 0) H5Dclose(d);
  return status;
}

/* Loads the /checkpoint of an open run file into world (and, for a colony run, /checkpoint/colony
 * into colony first: it adds the cell bodies the world's state then fills in, clatter/colony.h
 * "Checkpoints") and sets *step to its step. A file without one: *step = −1 and CLT_OK (the
 * caller decides). */
clt_status_t output_load_checkpoint(hid_t file, const char *path, clt_world_t *world, clt_colony_t *colony,
                                    int64_t *step, char *message, size_t message_size) {
  *step = -1;
  if (H5Lexists(file, "checkpoint", H5P_DEFAULT) <= 0) return CLT_OK;
  clt_status_t status = CLT_OK;
  hid_t g = H5Gopen2(file, "checkpoint", H5P_DEFAULT);
  bool has_colony = g >= 0 && H5Lexists(g, "colony", H5P_DEFAULT) > 0;
  int64_t size = -1, at = -1;
  unsigned char *blob = NULL;
  size_t bytes = 0;
  if (g < 0 || !clt_run_file_attr_int64(g, "step", &at) || !clt_run_file_attr_int64(g, "size", &size) || size < 0) {
    set_message(message, message_size, "%s: damaged /checkpoint%s", path, NULL);
    status = CLT_ERR_FORMAT;
  } else if (has_colony != (colony != NULL)) {
    set_message(message, message_size,
                colony ? "%s: damaged /checkpoint: a colony run's checkpoint without its colony%s"
                       : "%s: a colony run's checkpoint: its cells are restored only by continuing the run (--resume)%s",
                path, NULL);
    status = CLT_ERR_FORMAT;
  } else if (colony) {
    status = read_blob(g, "colony", path, -1, &blob, &bytes, message, message_size);
    if (status == CLT_OK && (status = clt_colony_load_state(colony, blob, bytes)) != CLT_OK)
      set_message(message, message_size, "%s: checkpoint rejected: %s", path, clt_world_error(world));
    free(blob);
    blob = NULL;
  }
  if (status == CLT_OK) status = read_blob(g, "state", path, size, &blob, &bytes, message, message_size);
  if (status == CLT_OK && (status = clt_world_load_state(world, blob, bytes)) != CLT_OK)
    set_message(message, message_size, "%s: checkpoint rejected: %s", path, clt_world_error(world));
  free(blob);
  if (g >= 0) H5Gclose(g);
  if (status == CLT_OK && at != clt_world_step_count(world)) {
    set_message(message, message_size, "%s: checkpoint step does not match the restored state%s", path, NULL);
    status = CLT_ERR_FORMAT;
  }
  if (status == CLT_OK) *step = at;
  return status;
}

/* Whether the bodies of the run file match the world's: the same count, and body by body the same
 * number of shapes and the same kind (static and kinematic bodies have infinite mass). The state
 * alone only checks the counts; materials and densities may differ. */
static bool same_bodies(hid_t file, const char *path, const clt_world_t *world, char *message, size_t message_size) {
  int n = clt_world_body_count(world);
  if (H5Lexists(file, "bodies", H5P_DEFAULT) <= 0) return true; /* (the state's check stands alone) */
  hid_t dm = H5Dopen2(file, "bodies/mass", H5P_DEFAULT), dc = H5Dopen2(file, "bodies/shape_count", H5P_DEFAULT);
  hsize_t rows_m = 0, rows_c = 0;
  bool ok = dm >= 0 && dc >= 0 && clt_h5_column_rows(dm, &rows_m) &&
            clt_h5_column_rows(dc, &rows_c);
  char detail[200] = "";
  if (ok && (rows_m != (hsize_t)n || rows_c != (hsize_t)n)) {
    snprintf(detail, sizeof detail, "it has %llu bodies, this scene %d", (unsigned long long)rows_m, n);
    ok = false;
  } else if (ok) {
    double *mass = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    int32_t *shapes = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    ok = mass && shapes && H5Dread(dm, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, mass) >= 0 &&
         H5Dread(dc, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, shapes) >= 0;
    for (int i = 0; ok && i < n; i++) {
      clt_body_info_t info;
      if (!output_body_info(world, i, &info)) ok = false;
      else if (isinf(info.mass) != isinf(mass[i]) || info.shape_count != shapes[i]) {
        snprintf(detail, sizeof detail, "body %d (%s) has %d shape(s) and is %s there, %d and %s in this scene", i,
                 info.name && info.name[0] ? info.name : "unnamed", (int)shapes[i],
                 isinf(mass[i]) ? "not dynamic" : "dynamic", info.shape_count,
                 isinf(info.mass) ? "not dynamic" : "dynamic");
        ok = false;
      }
    }
    free(mass);
    free(shapes);
  }
  if (dm >= 0) H5Dclose(dm);
  if (dc >= 0) H5Dclose(dc);
  if (!ok)
    set_message(message, message_size, "%s: its bodies are not this scene's: %s", path,
                detail[0] ? detail : "damaged /bodies");
  return ok;
}

clt_status_t clt_output_load_checkpoint(const char *path, clt_world_t *world, int64_t *step, char *message,
                                        size_t message_size) {
  *step = -1;
  clt_status_t status = CLT_OK;
  hid_t file = clt_run_file_open(path, OUTPUT_CANNOT_OPEN_HDF5, &status, message, message_size);
  if (file < 0) return status;
  clt_h5_silence_t quiet = clt_h5_silence();
  if (!same_bodies(file, path, world, message, message_size)) {
    status = CLT_ERR_FORMAT;
  } else {
    status = output_load_checkpoint(file, path, world, NULL, step, message, message_size);
    if (status == CLT_OK && *step < 0) {
      set_message(message, message_size,
                  "%s: has no checkpoint (write one with clatter run --checkpoint-every N; a run stopped by "
                  "Ctrl-C or --max-steps has one)%s",
                  path, NULL);
      status = CLT_ERR_FORMAT;
    }
  }
  H5Fclose(file);
  clt_h5_restore(quiet);
  return status;
}
