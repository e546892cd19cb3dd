/* Frames from run files and from worlds (src/analysis/frames.c) and the tables over a run's frames
 * (src/analysis/table.c): a column of spheres with a box beside it stepped to rest and written
 * through clt_output; the run file's last frame is the world's state bit for bit (positions,
 * velocities, masses, radii, volumes, contacts and their forces); tables give the numbers of the
 * measurements of each frame, column by column; damaged or unsuitable requests are refused with
 * the field named. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clatter/analysis.h"
#include "clatter/output.h"
#include "clatter/scene.h"
#include "test_util.h"

static char message[2048];

static const char *scene_text =
    "{\"name\": \"column\", \"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.5,\n"
    " \"bodies\": [\n"
    "  {\"name\": \"floor\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, 1]}},\n"
    "  {\"position\": [0, 0, 0.1], \"mass\": 2, \"inertia\": [0.008, 0.008, 0.008], \"shape\": {\"type\": \"sphere\", "
    "\"radius\": 0.1}},\n"
    "  {\"position\": [0, 0, 0.3], \"mass\": 2, \"inertia\": [0.008, 0.008, 0.008], \"shape\": {\"type\": \"sphere\", "
    "\"radius\": 0.1}},\n"
    "  {\"position\": [0, 0, 0.5], \"mass\": 2, \"inertia\": [0.008, 0.008, 0.008], \"shape\": {\"type\": \"sphere\", "
    "\"radius\": 0.1}},\n"
    "  {\"position\": [1, 0, 0.2], \"mass\": 3, \"inertia\": [0.02, 0.02, 0.02], \"shape\": {\"type\": \"box\", "
    "\"half_extents\": [0.1, 0.15, 0.2]}}\n"
    " ],\n"
    " \"output\": {\"interval_steps\": 10}\n"
    "}\n";

int main(void) {
  char dir[] = "/tmp/clatter_analysis_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/column.h5", dir);
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  clt_output_t *out = NULL;
  CHECK(clt_scene_parse(scene_text, "column", NULL, &scene, message, sizeof message) == CLT_OK);
  CHECK(clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) == CLT_OK);
  CHECK(clt_output_create(path, scene, world, &out, message, sizeof message) == CLT_OK);
  for (int s = 0; s < 50; s++) CHECK(clt_world_step(world) == CLT_OK && clt_output_record_step(out, world) == CLT_OK);
  CHECK(clt_output_close(out, CLT_RUN_COMPLETE, NULL, message, sizeof message) == CLT_OK);

  clt_analysis_run_t *run = NULL;
  CHECK(clt_analysis_open(path, &run, message, sizeof message) == CLT_OK);
  CHECK(clt_analysis_frame_count(run) == 6 && clt_analysis_dimension(run) == 3);
  clt_analysis_frame_t file, live;
  CHECK(clt_analysis_read_frame(run, 5, &file, message, sizeof message) == CLT_OK);
  CHECK(clt_analysis_frame_from_world(world, &live, message, sizeof message) == CLT_OK);
  CHECK(file.step == 50 && file.frame == 5 && live.step == 50 && file.time == live.time);
  CHECK(file.body_count == 5 && live.body_count == 5);
  CHECK(memcmp(file.position, live.position, sizeof(double) * 15) == 0);
  CHECK(memcmp(file.velocity, live.velocity, sizeof(double) * 15) == 0);
  CHECK(memcmp(file.mass, live.mass, sizeof(double) * 5) == 0);
  CHECK(memcmp(file.body_type, live.body_type, sizeof(int) * 5) == 0);
  CHECK(file.radius[1] == 0.1 && live.radius[1] == 0.1 && file.radius[4] == 0 && file.radius[0] == 0);
  CHECK_NEAR(file.volume[4], 8 * 0.1 * 0.15 * 0.2, 1e-15);
  CHECK(file.volume[4] == live.volume[4] && file.volume[1] == live.volume[1]);
  CHECK(file.contact_count == live.contact_count && file.contact_count >= 7);
  bool same = true;
  for (int64_t c = 0; c < file.contact_count; c++) {
    same = same && file.contact_body_a[c] == live.contact_body_a[c] &&
           file.contact_body_b[c] == live.contact_body_b[c] && file.contact_touching[c] == live.contact_touching[c] &&
           memcmp(file.contact_point + 3 * c, live.contact_point + 3 * c, 24) == 0 &&
           memcmp(file.contact_normal + 3 * c, live.contact_normal + 3 * c, 24) == 0 &&
           memcmp(file.contact_force + 3 * c, live.contact_force + 3 * c, 24) == 0;
  }
  CHECK(same);
  clt_analysis_frame_release(&live);

  /* tables: one row per frame, the numbers of the direct calls */
  clt_analysis_request_t r = clt_default_analysis_request(CLT_ANALYSIS_STRESS);
  double cell[6] = {-0.1, -0.1, 0.1, 0.1, 0.1, 0.3};
  CHECK(clt_analysis_box_from_numbers(3, cell, 6, &r.region, message, sizeof message) == CLT_OK);
  r.has_region = true;
  r.frames_given = true;
  r.first = 1, r.last = -1, r.stride = 2;
  clt_analysis_table_t t;
  CHECK(clt_analysis_table(run, &r, &t, message, sizeof message) == CLT_OK);
  CHECK(t.row_count == 3 && t.column_count == 14);
  CHECK(strcmp(t.names[0], "frame") == 0 && t.integer[0] && strcmp(t.names[7], "sigma_zz") == 0 && !t.integer[7]);
  clt_stress_t s;
  CHECK(clt_analysis_stress(&file, &r.region, &s, message, sizeof message) == CLT_OK);
  CHECK(t.values[2 * 14 + 0] == 5 && t.values[2 * 14 + 1] == 50 && t.values[2 * 14 + 7] == s.sigma[2][2]);
  CHECK_NEAR(s.sigma[2][2], 2 * 2 * 9.81 / 0.04, 1e-9 * 2 * 2 * 9.81 / 0.04); /* two spheres above the contact */
  clt_analysis_table_free(&t);
  CHECK(t.values == NULL && t.storage == NULL);
  r = clt_default_analysis_request(CLT_ANALYSIS_COORDINATION);
  CHECK(clt_analysis_table(run, &r, &t, message, sizeof message) == CLT_OK);
  clt_coordination_t c;
  CHECK(clt_analysis_coordination(&file, NULL, 2, &c, message, sizeof message) == CLT_OK);
  /* spheres: floor + 1, 2, 1 partners; the box: the floor (one partner for its four points) */
  CHECK(t.row_count == 1 && t.values[3] == 4 && t.values[4] == 6 && t.values[5] == 1.5 && c.partners == 6);
  clt_analysis_table_free(&t);
  r = clt_default_analysis_request(CLT_ANALYSIS_FORCES);
  CHECK(clt_analysis_table(run, &r, &t, message, sizeof message) == CLT_OK);
  int64_t touching = 0;
  for (int64_t i = 0; i < file.contact_count; i++) touching += file.contact_touching[i];
  CHECK(t.row_count == touching && t.column_count == 18);
  clt_analysis_table_free(&t);
  r = clt_default_analysis_request(CLT_ANALYSIS_FLOW);
  r.has_plane = true;
  r.plane = 0.25;
  CHECK(clt_analysis_table(run, &r, &t, message, sizeof message) == CLT_OK);
  CHECK(t.row_count == 5 && t.values[4 * 9 + 1] == 5);
  clt_analysis_table_free(&t);

  /* refused, with the field named */
  r = clt_default_analysis_request(CLT_ANALYSIS_PACKING);
  CHECK(clt_analysis_table(run, &r, &t, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "region:", 7) == 0);
  r = clt_default_analysis_request(CLT_ANALYSIS_FLOW);
  r.has_plane = true;
  r.frames_given = true, r.first = 2, r.last = 2;
  CHECK(clt_analysis_table(run, &r, &t, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "frames:", 7) == 0);
  r = clt_default_analysis_request(CLT_ANALYSIS_COORDINATION);
  r.frames_given = true, r.first = 7, r.last = 9;
  CHECK(clt_analysis_table(run, &r, &t, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "frames:", 7) == 0);
  CHECK(clt_analysis_box_from_numbers(3, cell, 4, &r.region, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_analysis_read_frame(run, 6, &live, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  clt_analysis_frame_release(&file);
  clt_analysis_close(run);

  /* files that are not run files */
  char csv[300];
  snprintf(csv, sizeof csv, "%s/column.csv", dir);
  CHECK(clt_analysis_open(csv, &run, message, sizeof message) == CLT_ERR_FORMAT && run == NULL);
  CHECK(strstr(message, "column.csv: ") != NULL);
  snprintf(csv, sizeof csv, "%s/missing.h5", dir);
  CHECK(clt_analysis_open(csv, &run, message, sizeof message) == CLT_ERR_IO && run == NULL);

  clt_world_destroy(world);
  clt_scene_destroy(scene);
  remove(path);
  snprintf(csv, sizeof csv, "%s/column.csv", dir);
  remove(csv);
  rmdir(dir);
  return clt_test_finish();
}
