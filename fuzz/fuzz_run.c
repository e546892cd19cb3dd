/* clatter fuzzing — the run-file readers (fuzz/README.md). The input is an HDF5 description
 * (h5_build.h) of a run file and its CSV; the harness does what `clatter info`, `render`/`vtk`,
 * `analyze` and `run --resume` do with it: the summary, the stored scene, the viz reader with every
 * frame's poses, the analysis reader with its measurements of the first frames, and a resume that
 * takes one step and closes. Every failure must come with a reason. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clatter/analysis.h"
#include "clatter/output.h"
#include "clatter/scene.h"
#include "h5_build.h"
#include "viz/viz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* CLATTER_FUZZ_VERBOSE=1 prints each reader's verdict (to see why a seed is refused) */
static void need_reason(clt_status_t status, const char *message) {
  if (status != CLT_OK && message[0] == '\0') abort();
  if (getenv("CLATTER_FUZZ_VERBOSE")) fprintf(stderr, "%s\n", status == CLT_OK ? "ok" : message);
}

static void read_viz(const char *path) {
  char message[1024] = "";
  clt_viz_run_t *run = NULL;
  clt_status_t status = clt_viz_run_read(path, &run, message, sizeof message);
  need_reason(status, message);
  if (status != CLT_OK) return;
  for (int64_t f = 0; f < run->frame_count && f < 8; f++) {
    if (!clt_viz_run_frame(run, f)) continue;
    for (int b = 0; b < run->body_count; b++) {
      double p[3], q[4];
      clt_viz_body_pose(run, f, b, p, q);
    }
    for (int s = 0; s < run->shape_count; s++) {
      double p[3], q[4];
      clt_viz_shape_pose(run, f, s, p, q);
    }
    if (run->has_contacts) {
      double *sum = calloc((size_t)run->body_count * 3 + 1, sizeof *sum);
      if (sum) clt_viz_contact_body_forces(run, f, sum);
      free(sum);
    }
  }
  clt_viz_run_diagnostic(run, "energy");
  clt_viz_run_free(run);
}

static void read_analysis(const char *path) {
  char message[1024] = "";
  clt_analysis_run_t *run = NULL;
  clt_status_t status = clt_analysis_open(path, &run, message, sizeof message);
  need_reason(status, message);
  if (status != CLT_OK) return;
  clt_analysis_box_t box = {{-9, -9, -9}, {9, 9, 9}};
  for (int64_t f = 0; f < clt_analysis_frame_count(run) && f < 8; f++) {
    clt_analysis_frame_t frame;
    message[0] = '\0';
    status = clt_analysis_read_frame(run, f, &frame, message, sizeof message);
    need_reason(status, message);
    if (status != CLT_OK) continue;
    clt_packing_t packing;
    clt_coordination_t coordination;
    clt_stress_t stress;
    clt_analysis_packing(&frame, &box, &packing, message, sizeof message);
    clt_analysis_coordination(&frame, NULL, 2, &coordination, message, sizeof message);
    clt_analysis_stress(&frame, &box, &stress, message, sizeof message);
    clt_analysis_frame_release(&frame);
  }
  clt_analysis_request_t request = clt_default_analysis_request(CLT_ANALYSIS_FORCES);
  request.frames_given = true;
  request.first = 0;
  clt_analysis_table_t table;
  message[0] = '\0';
  status = clt_analysis_table(run, &request, &table, message, sizeof message);
  need_reason(status, message);
  if (status == CLT_OK) clt_analysis_table_free(&table);
  clt_analysis_close(run);
}

static void resume(const char *path) {
  char message[1024] = "";
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  clt_output_t *out = NULL;
  clt_status_t status = clt_output_resume(path, NULL, NULL, &scene, &world, &out, message, sizeof message);
  need_reason(status, message);
  if (status != CLT_OK) return;
  if (clt_scene_body_count(scene) <= 100 && clt_world_step(world) == CLT_OK) clt_output_record_step(out, world);
  clt_output_record_final_state(out, world);
  clt_output_close(out, CLT_RUN_INTERRUPTED, NULL, message, sizeof message);
  clt_world_destroy(world);
  clt_scene_destroy(scene);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[256], csv[256], message[1024] = "";
  clt_fuzz_temp_path(".h5", path, sizeof path);
  clt_output_csv_path(path, csv, sizeof csv);
  if (!clt_fuzz_h5_build(data, size, path, csv)) return 0;
  clt_output_summary_t summary;
  need_reason(clt_output_read_summary(path, &summary, message, sizeof message), message);
  message[0] = '\0';
  char *json = clt_output_read_scene_json(path, message, sizeof message);
  need_reason(json ? CLT_OK : CLT_ERR_FORMAT, json ? "" : message);
  free(json);
  read_viz(path);
  read_analysis(path);
  resume(path);
  char tmp[300];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  remove(tmp);
  snprintf(tmp, sizeof tmp, "%s.tmp", csv);
  remove(tmp);
  remove(path);
  remove(csv);
  return 0;
}
