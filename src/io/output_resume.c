/* --resume (clatter/output.h clt_output_resume, docs/output-format.md "Life cycle, interruption
 * and resume"): a run file reopened to continue it. The temporary files a killed run left are
 * recovered first (output_files.c); the file is copied to its temporary name, the scene rebuilt
 * from the stored JSON, the checkpoint loaded (output_checkpoint.c), every table and the CSV cut
 * back to the checkpoint's step, and the run goes on writing as a new one would. Each table is
 * checked against the world before anything is appended to it or resized (output_open_series,
 * plausible_tables): a damaged or crafted file is refused with its reason. */
#define _POSIX_C_SOURCE 200809L /* stat */
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "io/output_internal.h"

/* Whether no open table claims more rows than the file has bytes (each row holds at least one
 * byte): a damaged or crafted extent is refused before anything resizes it, since shrinking a
 * dataset makes HDF5 visit every chunk its extent claims (3.8e18 rows: 800 s of CPU). */
static bool plausible_tables(const clt_output_t *out) {
  struct stat st;
  if (stat(out->tmp_path, &st) != 0) return false;
  hsize_t bytes = (hsize_t)st.st_size;
  for (int i = 0; i < COLUMN_COUNT; i++)
    if (out->diag[i] > 0 && output_table_rows(out->diag[i]) > bytes) return false;
  for (int i = 0; i < TRAJ_COUNT; i++)
    if (out->traj[i] > 0 && output_table_rows(out->traj[i]) > bytes) return false;
  for (int i = 0; i < CONT_DATASETS; i++)
    if (out->cont[i] > 0 && output_table_rows(out->cont[i]) > bytes) return false;
  return true;
}

static clt_status_t resume_run(const char *path, clt_log_fn log, void *log_user, clt_scene_t **scene_out,
                               clt_world_t **world_out, clt_colony_t **colony_out, clt_output_t **result,
                               char *message, size_t message_size) {
  *scene_out = NULL;
  *world_out = NULL;
  *result = NULL;
  if (colony_out) *colony_out = NULL;
  if (!output_recover_interrupted(path, message, message_size)) return CLT_ERR_IO;
  clt_status_t status = CLT_OK;
  char *json = output_read_scene_json(path, &status, message, message_size);
  if (!json) return status;
  char source[4096];
  snprintf(source, sizeof source, "%s:/scene", path);
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  clt_colony_t *colony = NULL;
  clt_output_t *out = NULL;
  status = clt_scene_parse(json, source, NULL, &scene, message, message_size);
  free(json);
  if (status != CLT_OK) goto fail;
  status = clt_scene_create_world(scene, log, log_user, &world, message, message_size);
  if (status != CLT_OK) goto fail;
  if (clt_scene_colony(scene)) {
    if (!colony_out) {
      set_message(message, message_size,
                  "%s: a colony run (its world grows): continue it with clt_output_resume_colony%s", path, NULL);
      status = CLT_ERR_INVALID_ARGUMENT;
    } else {
      status = clt_scene_create_colony(scene, world, &colony, message, message_size);
    }
    if (status != CLT_OK) goto fail;
  }
  out = output_alloc(path, scene);
  if (!out) {
    status = CLT_ERR_OUT_OF_MEMORY;
    goto fail;
  }
  out->replace_final = true; /* the continued run replaces the file it continues */
  out->colony = colony;
  out->lock_fd = output_create_exclusive(out->tmp_path, out->path, true, message, message_size);
  if (out->lock_fd < 0) {
    status = CLT_ERR_IO; /* (nothing made yet: discarding it removes no file) */
    goto fail;
  }
  out->own_tmp = true;
  clt_h5_silence_t quiet = clt_h5_silence();
  if (!output_make_reserve(out, message, message_size)) status = CLT_ERR_IO;
  if (status == CLT_OK && !output_copy_file(path, out->lock_fd)) {
    set_message(message, message_size, "%s: cannot copy to %s", path, out->tmp_path);
    status = CLT_ERR_IO;
  }
  if (status == CLT_OK) {
    out->file = H5Fopen(out->tmp_path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (out->file < 0) {
      set_message(message, message_size, "%s: cannot open as HDF5%s", out->tmp_path, NULL);
      status = CLT_ERR_FORMAT;
    } else if (!output_same_inode(out->lock_fd, out->tmp_path)) {
      set_message(message, message_size, "%s: replaced by another file while being created%s", out->tmp_path, NULL);
      out->own_tmp = false;
      status = CLT_ERR_IO;
    }
  }
  if (status == CLT_OK) clt_run_file_attr_int64(out->file, "checkpoint_every", &out->checkpoint_every);
  /* Restore the checkpoint (none: start again from the initial state). */
  int64_t step = 0, first = 0;
  if (status == CLT_OK) {
    first = clt_run_file_first_step(out->file);
    out->first_step = first;
    if (first < 0) {
      set_message(message, message_size, "%s: damaged attribute first_step%s", path, NULL);
      status = CLT_ERR_FORMAT;
    }
  }
  if (status == CLT_OK) {
    status = output_load_checkpoint(out->file, path, world, colony, &step, message, message_size);
    if (status == CLT_OK && step >= 0) out->checkpoint_step = step;
    if (status == CLT_OK && step < 0) {
      step = 0;
      if (first > 0) { /* started from another run: its initial state is not in this file */
        char at[32];
        snprintf(at, sizeof at, "%lld", (long long)first);
        set_message(message, message_size,
                    "%s: has no checkpoint of its own (it started from another run's at step %s)", path, at);
        status = CLT_ERR_FORMAT;
      }
    }
  }
  if (status == CLT_OK && step != clt_world_step_count(world)) {
    set_message(message, message_size, "%s: checkpoint step does not match the restored state%s", path, NULL);
    status = CLT_ERR_FORMAT;
  }
  /* the bodies of the restored state (a growing run's: its cells at the checkpoint) */
  if (status == CLT_OK && !output_setup_bodies(out, world)) status = CLT_ERR_OUT_OF_MEMORY;
  if (status == CLT_OK && !out->growing && out->body_count != clt_scene_body_count(scene)) status = CLT_ERR_FORMAT;
  if (status == CLT_OK && out->growing && !output_cut_bodies(out, world)) {
    set_message(message, message_size, "%s: /bodies or /shapes does not reach the checkpoint%s", path, NULL);
    status = CLT_ERR_FORMAT;
  }
  if (status == CLT_OK && !output_open_series(out, false)) {
    set_message(message, message_size, "%s: missing or misshapen trajectory, contacts or diagnostics datasets%s", path, NULL);
    status = CLT_ERR_FORMAT;
  }
  if (status == CLT_OK && !plausible_tables(out)) {
    set_message(message, message_size, "%s: damaged: a dataset claims more rows than the file has bytes%s", path,
                NULL);
    status = CLT_ERR_FORMAT;
  }
  /* Drop everything after the checkpoint. */
  if (status == CLT_OK && out->options.trajectory) {
    int64_t keep = output_rows_upto(out->traj[TRAJ_STEP], step);
    for (int k = 0; k < TRAJ_COUNT && keep >= 0; k++) {
      if (output_traj_enabled(out, k) && output_truncate_rows(out->traj[k], (hsize_t)keep) < 0) keep = -1;
    }
    if (keep < 0) status = CLT_ERR_FORMAT;
    if (status == CLT_OK && out->contacts && !output_truncate_contacts(out, keep)) {
      set_message(message, message_size, "%s: damaged /contacts%s", path, NULL);
      status = CLT_ERR_FORMAT;
    }
  }
  if (status == CLT_OK && out->options.diagnostics) {
    int64_t keep = output_rows_upto(out->diag[COLUMN_step], step);
    if (keep != step - first + 1) keep = -1;
    for (int c = 0; c < COLUMN_COUNT && keep >= 0; c++) {
      if (output_truncate_rows(out->diag[c], (hsize_t)keep) < 0) keep = -1;
    }
    if (keep < 0) {
      set_message(message, message_size, "%s: /diagnostics does not reach the checkpoint%s", path, NULL);
      status = CLT_ERR_FORMAT;
    }
  }
  if (status == CLT_OK) {
    output_set_attr_string(out->file, "status", "running");
    output_set_attr_string(out->file, "status_message", "");
    if (H5Aexists(out->file, "steps") > 0) H5Adelete(out->file, "steps");
    if (H5Aexists(out->file, "final_time") > 0) H5Adelete(out->file, "final_time");
  }
  if (status == CLT_OK && out->csv_path[0]) {
    if (!output_create_csv(out, message, message_size)) {
      status = CLT_ERR_IO;
    } else if (!output_copy_csv_prefix(out->csv_path, out->csv, step - first)) {
      set_message(message, message_size,
                  "%s: missing or shorter than the checkpoint's step (needed to resume)", out->csv_path,
                  NULL);
      status = CLT_ERR_FORMAT;
    }
  }
  clt_h5_restore(quiet);
  if (status != CLT_OK) goto fail;
  out->last_step = step;
  out->last_time = clt_world_time(world);
  *scene_out = scene;
  *world_out = world;
  if (colony_out) *colony_out = colony;
  *result = out;
  return CLT_OK;
fail: /* only the temporary files this call made are removed (clt_output_discard) */
  clt_output_discard(out);
  clt_colony_destroy(colony);
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return status;
}

clt_status_t clt_output_resume(const char *path, clt_log_fn log, void *log_user, clt_scene_t **scene_out,
                               clt_world_t **world_out, clt_output_t **result, char *message, size_t message_size) {
  return resume_run(path, log, log_user, scene_out, world_out, NULL, result, message, message_size);
}

clt_status_t clt_output_resume_colony(const char *path, clt_log_fn log, void *log_user, clt_scene_t **scene_out,
                                      clt_world_t **world_out, clt_colony_t **colony_out, clt_output_t **result,
                                      char *message, size_t message_size) {
  if (!colony_out) return CLT_ERR_INVALID_ARGUMENT;
  return resume_run(path, log, log_user, scene_out, world_out, colony_out, result, message, message_size);
}
