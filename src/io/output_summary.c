/* What `clatter info` and the Python package's run_summary read of a run file (clatter/output.h
 * clt_output_read_summary, docs/output-format.md "`clatter info`"): the root attributes, the sizes
 * of the tables and figures over the diagnostics columns; and the stored scene that --resume and
 * --start-from rebuild a run from (clt_output_read_scene_json). Both read through the run reader
 * (run_reader.h), as the viewers do. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/output_internal.h"

char *output_read_scene_json(const char *path, clt_status_t *status, char *message, size_t message_size) {
  hid_t file = clt_run_file_open(path, OUTPUT_CANNOT_OPEN_HDF5, status, message, message_size);
  if (file < 0) return NULL;
  clt_h5_silence_t quiet = clt_h5_silence();
  char *text = clt_run_file_read_scene(file);
  if (!text) {
    clt_run_file_message(message, message_size, path, "not a clatter run file (no /scene)");
    *status = CLT_ERR_FORMAT;
  }
  H5Fclose(file);
  clt_h5_restore(quiet);
  return text;
}

char *clt_output_read_scene_json(const char *path, char *message, size_t message_size) {
  clt_status_t status = CLT_OK;
  return output_read_scene_json(path, &status, message, message_size);
}

/* The diagnostics column `name` (*data NULL and false when absent or damaged). */
static bool read_column(hid_t file, const char *name, double **data, hsize_t *rows) {
  *data = clt_run_file_read_diagnostic(file, name, rows);
  return *data != NULL;
}

clt_status_t clt_output_read_summary(const char *path, clt_output_summary_t *s, char *message,
                                     size_t message_size) {
  memset(s, 0, sizeof *s);
  s->checkpoint_step = -1;
  s->state_hash_step = -1;
  s->max_touching_contacts = -1;
  clt_status_t status = CLT_OK;
  hid_t file = clt_run_file_open(path, NULL, &status, message, message_size);
  if (file < 0) return status;
  clt_h5_silence_t quiet = clt_h5_silence();
  int64_t v = 0;
  clt_run_file_attr_string(file, "format", s->format, sizeof s->format);
  if (clt_run_file_attr_int64(file, "format_version", &v)) s->format_version = (int)v;
  clt_run_file_attr_string(file, "clatter_version", s->clatter_version, sizeof s->clatter_version);
  clt_run_file_attr_string(file, "scene_name", s->scene, sizeof s->scene);
  clt_run_file_attr_string(file, "status", s->status, sizeof s->status);
  clt_run_file_attr_string(file, "status_message", s->status_message, sizeof s->status_message);
  if (clt_run_file_attr_string(file, "state_hash", s->state_hash, sizeof s->state_hash) &&
      !clt_run_file_attr_int64(file, "state_hash_step", &s->state_hash_step))
    s->state_hash[0] = '\0';
  bool ok = clt_run_file_attr_int64(file, "dimension", &v);
  s->dimension = (int)v;
  ok = ok && clt_run_file_attr_double(file, "time_step", &s->time_step);
  ok = ok && clt_run_file_attr_int64(file, "total_steps", &s->total_steps);
  s->first_step = ok ? clt_run_file_first_step(file) : 0;
  ok = ok && s->first_step >= 0;
  int64_t bodies = clt_run_file_rows(file, "bodies/mass");
  int64_t shapes = clt_run_file_rows(file, "shapes/body");
  ok = ok && bodies >= 0 && shapes >= 0;
  s->bodies = (int)bodies;
  s->shapes = (int)shapes;
  s->frames = clt_run_file_exists(file, "trajectory/time") ? clt_run_file_rows(file, "trajectory/time") : 0;
  if (!ok) {
    set_message(message, message_size, "%s: damaged clatter run file (missing attributes or /bodies)%s",
                path, NULL);
    status = CLT_ERR_FORMAT;
  }
  if (status == CLT_OK) {
    double *step = NULL, *t = NULL;
    hsize_t rows = 0, rows_t = 0;
    if (read_column(file, "step", &step, &rows) && read_column(file, "t", &t, &rows_t) && rows == rows_t) {
      s->diagnostics_rows = (int64_t)rows;
      if (rows > 0) {
        s->steps = (int64_t)step[rows - 1];
        s->final_time = t[rows - 1];
      }
      double *col = NULL;
      hsize_t n = 0;
      struct {
        const char *name;
        double *max;
      } maxima[] = {{"infeasibility", &s->max_infeasibility},
                    {"penetration", &s->max_penetration},
                    {"joint_error", &s->max_joint_error}};
      for (size_t k = 0; k < sizeof maxima / sizeof maxima[0]; k++) {
        if (read_column(file, maxima[k].name, &col, &n)) {
          for (hsize_t i = 0; i < n; i++) {
            if (col[i] > *maxima[k].max || isnan(col[i])) *maxima[k].max = col[i];
          }
          free(col);
        }
      }
      if (read_column(file, "contacts", &col, &n)) {
        for (hsize_t i = 0; i < n; i++) {
          if (col[i] > s->max_contacts) s->max_contacts = (int)col[i];
        }
        free(col);
      }
      if (read_column(file, "touching_contacts", &col, &n)) { /* (-1 in rows of before the column) */
        s->max_touching_contacts = 0;
        for (hsize_t i = 0; i < n; i++) {
          if (col[i] > s->max_touching_contacts) s->max_touching_contacts = (int)col[i];
        }
        free(col);
      }
      s->first_unconverged_step = -1;
      s->worst_unconverged_step = -1;
      double *residual = NULL;
      hsize_t nr = 0;
      if (!read_column(file, "residual", &residual, &nr)) nr = 0;
      if (read_column(file, "solver_status", &col, &n)) {
        for (hsize_t i = 0; i < n; i++) {
          int code = (int)col[i];
          if (code == CLT_SOLVE_NONE || code == CLT_SOLVE_SOLVED) continue;
          s->unconverged_steps++;
          if (code >= 0 && code < CLT_OUTPUT_SOLVER_STATUSES) s->unconverged_by_status[code]++;
          if (s->first_unconverged_step < 0 && i < rows) s->first_unconverged_step = (int64_t)step[i];
          /* a NaN residual (a solve that failed to compute) is the worst there is */
          if (i < nr && i < rows && (s->worst_unconverged_step < 0 || residual[i] > s->worst_residual ||
                                     (isnan(residual[i]) && !isnan(s->worst_residual)))) {
            s->worst_residual = residual[i];
            s->worst_unconverged_step = (int64_t)step[i];
          }
        }
        free(col);
      }
      free(residual);
      double tolerance = 0.0;
      if (clt_run_file_attr_double(file, "tolerance", &tolerance)) s->tolerance = tolerance;
      if (read_column(file, "solves", &col, &n)) { /* (absent in files of before the column) */
        for (hsize_t i = 0; i < n; i++) {
          if (col[i] > s->max_solves) s->max_solves = (int)col[i];
          if (col[i] > 1.0) s->resolved_steps++;
        }
        free(col);
      }
      if (read_column(file, "set_misses", &col, &n)) {
        for (hsize_t i = 0; i < n; i++)
          if (col[i] > 0.0) s->set_miss_steps++;
        free(col);
      }
      if (read_column(file, "wall_s", &col, &n)) {
        for (hsize_t i = 0; i < n; i++) s->wall_s += col[i];
        free(col);
      }
      double *ke = NULL, *pe = NULL;
      hsize_t nk = 0, np = 0;
      if (read_column(file, "kinetic_energy", &ke, &nk) && read_column(file, "potential_energy", &pe, &np) &&
          nk == np && nk > 0) {
        s->initial_energy = ke[0] + pe[0];
        s->final_energy = ke[nk - 1] + pe[nk - 1];
      }
      free(ke);
      free(pe);
    } else {
      /* Diagnostics not written: fall back to the attributes and the trajectory. */
      clt_run_file_attr_int64(file, "steps", &s->steps);
      clt_run_file_attr_double(file, "final_time", &s->final_time);
    }
    free(step);
    free(t);
    clt_run_file_attr_int64(file, "checkpoint_every", &s->checkpoint_every);
    int64_t checkpoint = clt_run_file_checkpoint_step(file);
    if (checkpoint != -2) s->checkpoint_step = checkpoint; /* (−2: unreadable, reported as none) */
  }
  H5Fclose(file);
  clt_h5_restore(quiet);
  return status;
}
