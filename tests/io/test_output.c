/* Run output (src/io/output.c): the HDF5 layout read back with the HDF5 C API against the world's
 * own states, the CSV, the summary, and checkpoint/resume through the API: a run interrupted
 * after its last checkpoint and resumed gives bit-identical datasets to an uninterrupted run. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clatter/output.h"
#include "clatter/scene.h"
#include "test_util.h"

static char message[2048];

static const char *scene_text =
    "{\"name\": \"out3\", \"dimension\": 3, \"time_step\": 0.001, \"duration\": 0.5,\n"
    " \"bodies\": [\n"
    "  {\"name\": \"tumbler\", \"mass\": 15, \"inertia\": [2, 3, 4], \"angular_velocity\": [0.01, 5, 0.01],\n"
    "   \"shape\": {\"type\": \"box\", \"half_extents\": [0.7, 0.5, 0.3]}},\n"
    "  {\"name\": \"stone\", \"position\": [5, 0, 0], \"velocity\": [2, 0, 5],\n"
    "   \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}\n"
    " ],\n"
    " \"output\": {\"interval_steps\": 10}\n"
    "}\n";

#define FRAMES 51
#define BODIES 2

typedef struct run_t {
  double position[FRAMES][BODIES][3];
  double orientation[FRAMES][BODIES][4];
  double velocity[FRAMES][BODIES][3];
  double angular_velocity[FRAMES][BODIES][3];
  double final_kinetic;
} run_t;

static void record_states(const clt_world_t *w, run_t *r) {
  int64_t step = clt_world_step_count(w);
  if (step % 10 != 0) return;
  int f = (int)(step / 10);
  for (int i = 0; i < BODIES; i++) {
    clt_body_state_t s;
    clt_body_get_state(w, clt_world_body_at(w, i), &s);
    memcpy(r->position[f][i], s.position, sizeof s.position);
    memcpy(r->orientation[f][i], s.orientation, sizeof s.orientation);
    memcpy(r->velocity[f][i], s.velocity, sizeof s.velocity);
    memcpy(r->angular_velocity[f][i], s.angular_velocity, sizeof s.angular_velocity);
  }
}

/* Full uninterrupted run into path. */
static bool full_run(clt_scene_t *scene, const char *path, run_t *r) {
  clt_world_t *w = NULL;
  if (clt_scene_create_world(scene, NULL, NULL, &w, message, sizeof message) != CLT_OK) return false;
  clt_output_t *out = NULL;
  if (clt_output_create(path, scene, w, &out, message, sizeof message) != CLT_OK) {
    clt_world_destroy(w);
    return false;
  }
  bool ok = true;
  record_states(w, r);
  while (ok && clt_world_step_count(w) < clt_scene_step_count(scene)) {
    ok = clt_world_step(w) == CLT_OK && clt_output_record_step(out, w) == CLT_OK;
    record_states(w, r);
  }
  r->final_kinetic = clt_world_kinetic_energy(w);
  ok = clt_output_close(out, CLT_RUN_COMPLETE, NULL, message, sizeof message) == CLT_OK && ok;
  clt_world_destroy(w);
  return ok;
}

static void *read_dataset(hid_t file, const char *name, size_t *bytes, int *rank, hsize_t dims[3]) {
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  if (d < 0) return NULL;
  hid_t ftype = H5Dget_type(d);
  hid_t mtype = H5Tget_native_type(ftype, H5T_DIR_ASCEND);
  hid_t space = H5Dget_space(d);
  *rank = H5Sget_simple_extent_ndims(space);
  hsize_t count = (hsize_t)H5Sget_simple_extent_npoints(space);
  H5Sget_simple_extent_dims(space, dims, NULL);
  *bytes = (size_t)count * H5Tget_size(mtype);
  void *data = calloc(*bytes + 1, 1);
  if (data && count > 0 && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    free(data);
    data = NULL;
  }
  H5Sclose(space);
  H5Tclose(mtype);
  H5Tclose(ftype);
  H5Dclose(d);
  return data;
}

static bool attr_string(hid_t obj, const char *name, char *buf, size_t size) {
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return false;
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, size);
  bool ok = H5Aread(a, t, buf) >= 0;
  H5Tclose(t);
  H5Aclose(a);
  return ok;
}

static void test_layout(clt_scene_t *scene, const char *path, const run_t *r) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(file >= 0);
  if (file < 0) return;
  char text[256];
  CHECK(attr_string(file, "format", text, sizeof text) && strcmp(text, CLT_OUTPUT_FORMAT_NAME) == 0);
  CHECK(attr_string(file, "status", text, sizeof text) && strcmp(text, "complete") == 0);
  CHECK(attr_string(file, "scene_name", text, sizeof text) && strcmp(text, "out3") == 0);
  CHECK(attr_string(file, "clatter_version", text, sizeof text));

  size_t bytes;
  int rank;
  hsize_t dims[3];
  /* /scene: the resolved scene JSON. */
  hid_t d = H5Dopen2(file, "scene", H5P_DEFAULT);
  CHECK(d >= 0);
  if (d >= 0) {
    hid_t t = H5Dget_type(d);
    size_t n = H5Tget_size(t);
    char *json = calloc(n + 1, 1);
    H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, json);
    CHECK(strcmp(json, clt_scene_json(scene)) == 0);
    free(json);
    H5Tclose(t);
    H5Dclose(d);
  }
  /* Trajectories equal the states the world reported, bit for bit. */
  double *pos = read_dataset(file, "trajectory/position", &bytes, &rank, dims);
  CHECK(pos && rank == 3 && dims[0] == FRAMES && dims[1] == BODIES && dims[2] == 3);
  if (pos) CHECK(memcmp(pos, r->position, sizeof r->position) == 0);
  free(pos);
  double *ori = read_dataset(file, "trajectory/orientation", &bytes, &rank, dims);
  CHECK(ori && rank == 3 && dims[0] == FRAMES && dims[2] == 4);
  if (ori) CHECK(memcmp(ori, r->orientation, sizeof r->orientation) == 0);
  free(ori);
  double *vel = read_dataset(file, "trajectory/velocity", &bytes, &rank, dims);
  CHECK(vel && memcmp(vel, r->velocity, sizeof r->velocity) == 0);
  free(vel);
  double *ang = read_dataset(file, "trajectory/angular_velocity", &bytes, &rank, dims);
  CHECK(ang && memcmp(ang, r->angular_velocity, sizeof r->angular_velocity) == 0);
  free(ang);
  int64_t *steps = read_dataset(file, "trajectory/step", &bytes, &rank, dims);
  CHECK(steps && dims[0] == FRAMES && steps[0] == 0 && steps[1] == 10 && steps[FRAMES - 1] == 500);
  free(steps);
  double *time = read_dataset(file, "trajectory/time", &bytes, &rank, dims);
  CHECK(time && time[0] == 0);
  if (time) CHECK_NEAR(time[FRAMES - 1], 0.5, 1e-12);
  free(time);
  /* Diagnostics: one row per step, step 0 (initial state) included. */
  int64_t *dstep = read_dataset(file, "diagnostics/step", &bytes, &rank, dims);
  CHECK(dstep && rank == 1 && dims[0] == 501);
  if (dstep) {
    bool consecutive = true;
    for (int i = 0; i < 501; i++) consecutive = consecutive && dstep[i] == i;
    CHECK(consecutive);
  }
  free(dstep);
  double *ke = read_dataset(file, "diagnostics/kinetic_energy", &bytes, &rank, dims);
  CHECK(ke && dims[0] == 501 && ke[500] == r->final_kinetic);
  free(ke);
  int32_t *bodies = read_dataset(file, "diagnostics/bodies", &bytes, &rank, dims);
  CHECK(bodies && bodies[0] == 2 && bodies[500] == 2);
  free(bodies);
  /* Static tables. */
  char *names = read_dataset(file, "bodies/name", &bytes, &rank, dims);
  CHECK(names && dims[0] == 2 && strcmp(names, "tumbler") == 0 && strcmp(names + bytes / 2, "stone") == 0);
  free(names);
  double *mass = read_dataset(file, "bodies/mass", &bytes, &rank, dims);
  CHECK(mass && mass[0] == 15);
  free(mass);
  char *types = read_dataset(file, "shapes/type", &bytes, &rank, dims);
  CHECK(types && dims[0] == 2 && strcmp(types, "box") == 0 && strcmp(types + bytes / 2, "sphere") == 0);
  free(types);
  double *radius = read_dataset(file, "shapes/radius", &bytes, &rank, dims);
  CHECK(radius && radius[1] == 0.1);
  free(radius);
  CHECK(H5Lexists(file, "checkpoint", H5P_DEFAULT) == 0);
  H5Fclose(file);

  /* CSV: header and one row per step. */
  char csv_path[4096];
  clt_output_csv_path(path, csv_path, sizeof csv_path);
  FILE *f = fopen(csv_path, "r");
  CHECK(f != NULL);
  if (f) {
    char line[4096];
    CHECK(fgets(line, sizeof line, f) != NULL);
    CHECK(
        strcmp(line,
               "step,t,bodies,contacts,joints,lcp_size,iterations,residual,solver_status,infeasibility,"
               "penetration,joint_error,kinetic_energy,potential_energy,wall_s,constraints,relcp_iterations,"
               "max_overlap,wall_collide_s,wall_assemble_s,wall_solve_s,solves,set_misses,touching_contacts,work_bytes,"
               "arena_bytes\n") == 0);
    int rows = 0;
    bool second_ok = false;
    while (fgets(line, sizeof line, f)) {
      if (rows == 1) second_ok = strncmp(line, "1,0.001,2,0,0,0,0,0,none,", 25) == 0;
      rows++;
    }
    CHECK(rows == 501);
    CHECK(second_ok);
    fclose(f);
  }

  clt_output_summary_t s;
  CHECK(clt_output_read_summary(path, &s, message, sizeof message) == CLT_OK);
  CHECK(s.steps == 500 && s.total_steps == 500 && s.bodies == 2 && s.shapes == 2 && s.frames == FRAMES);
  CHECK(s.final_time == 0.5 || fabs(s.final_time - 0.5) < 1e-12);
  CHECK(strcmp(s.status, "complete") == 0 && s.dimension == 3 && s.checkpoint_step == -1);
}

/* Compares two files dataset by dataset (bytes), skipping wall-clock columns. */
static void compare_files(const char *a, const char *b) {
  const char *names[] = {"trajectory/step",
                         "trajectory/time",
                         "trajectory/position",
                         "trajectory/orientation",
                         "trajectory/velocity",
                         "trajectory/angular_velocity",
                         "diagnostics/step",
                         "diagnostics/t",
                         "diagnostics/bodies",
                         "diagnostics/contacts",
                         "diagnostics/joints",
                         "diagnostics/lcp_size",
                         "diagnostics/iterations",
                         "diagnostics/residual",
                         "diagnostics/solver_status",
                         "diagnostics/infeasibility",
                         "diagnostics/penetration",
                         "diagnostics/joint_error",
                         "diagnostics/kinetic_energy",
                         "diagnostics/potential_energy",
                         "diagnostics/constraints",
                         "diagnostics/relcp_iterations",
                         "diagnostics/max_overlap",
                         "diagnostics/solves",
                         "diagnostics/set_misses",
                         "contacts/first",
                         "contacts/count",
                         "contacts/point",
                         "contacts/force",
                         "bodies/name",
                         "bodies/mass",
                         "bodies/inertia",
                         "shapes/type",
                         "scene"};
  hid_t fa = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(b, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(fa >= 0 && fb >= 0);
  for (size_t i = 0; fa >= 0 && fb >= 0 && i < sizeof names / sizeof names[0]; i++) {
    size_t na = 0, nb = 0;
    int ra, rb;
    hsize_t da[3] = {0}, db[3] = {0};
    void *x = read_dataset(fa, names[i], &na, &ra, da), *y = read_dataset(fb, names[i], &nb, &rb, db);
    bool same = x && y && na == nb && ra == rb && memcmp(da, db, sizeof da) == 0 && memcmp(x, y, na) == 0;
    if (!same) fprintf(stderr, "dataset %s differs\n", names[i]);
    CHECK(same);
    free(x);
    free(y);
  }
  if (fa >= 0) H5Fclose(fa);
  if (fb >= 0) H5Fclose(fb);
}

static void test_resume(clt_scene_t *scene, const char *full, const char *path) {
  /* Checkpoints at 100 and 200, data up to 230, then "interrupted" (as after a crash between
   * checkpoints, the rows past the checkpoint must go). */
  clt_world_t *w = NULL;
  CHECK(clt_scene_create_world(scene, NULL, NULL, &w, message, sizeof message) == CLT_OK);
  clt_output_t *out = NULL;
  CHECK(clt_output_create(path, scene, w, &out, message, sizeof message) == CLT_OK);
  if (!w || !out) return;
  while (clt_world_step_count(w) < 230) {
    clt_world_step(w);
    clt_output_record_step(out, w);
    if (clt_world_step_count(w) % 100 == 0) CHECK(clt_output_write_checkpoint(out, w) == CLT_OK);
  }
  CHECK(clt_output_checkpoint_step(out) == 200);
  CHECK(clt_output_close(out, CLT_RUN_INTERRUPTED, "test", message, sizeof message) == CLT_OK);
  clt_world_destroy(w);
  clt_output_summary_t s;
  CHECK(clt_output_read_summary(path, &s, message, sizeof message) == CLT_OK);
  CHECK(strcmp(s.status, "interrupted") == 0 && s.steps == 230 && s.checkpoint_step == 200);

  clt_scene_t *rs = NULL;
  clt_status_t st = clt_output_resume(path, NULL, NULL, &rs, &w, &out, message, sizeof message);
  if (st != CLT_OK) fprintf(stderr, "resume: %s\n", message);
  CHECK(st == CLT_OK);
  if (st != CLT_OK) return;
  CHECK(clt_world_step_count(w) == 200);
  CHECK(strcmp(clt_scene_json(rs), clt_scene_json(scene)) == 0);
  while (clt_world_step_count(w) < clt_scene_step_count(rs)) {
    clt_world_step(w);
    clt_output_record_step(out, w);
  }
  CHECK(clt_output_close(out, CLT_RUN_COMPLETE, NULL, message, sizeof message) == CLT_OK);
  clt_world_destroy(w);
  clt_scene_destroy(rs);
  CHECK(clt_output_read_summary(path, &s, message, sizeof message) == CLT_OK);
  CHECK(strcmp(s.status, "complete") == 0 && s.steps == 500 && s.diagnostics_rows == 501 &&
        s.frames == FRAMES);
  compare_files(full, path);

  /* The CSVs agree too, apart from the wall-clock columns (15 and 19–21). */
  char ca[4096], cb[4096];
  clt_output_csv_path(full, ca, sizeof ca);
  clt_output_csv_path(path, cb, sizeof cb);
  FILE *fa = fopen(ca, "r"), *fb = fopen(cb, "r");
  CHECK(fa && fb);
  if (fa && fb) {
    char la[4096], lb[4096];
    int rows = 0, differ = 0;
    while (fgets(la, sizeof la, fa)) {
      if (!fgets(lb, sizeof lb, fb)) {
        differ++;
        break;
      }
      char *sa, *sb, *ta = strtok_r(la, ",", &sa), *tb = strtok_r(lb, ",", &sb);
      for (int col = 1; ta && tb; col++) {
        if (col != 15 && col < 19 && strcmp(ta, tb) != 0) differ++;
        ta = strtok_r(NULL, ",", &sa);
        tb = strtok_r(NULL, ",", &sb);
      }
      rows++;
    }
    CHECK(fgets(lb, sizeof lb, fb) == NULL);
    CHECK(rows == 502);
    CHECK(differ == 0);
  }
  if (fa) fclose(fa);
  if (fb) fclose(fb);
}

static void test_bad_files(const char *dir) {
  clt_output_summary_t s;
  char path[4096];
  snprintf(path, sizeof path, "%s/missing.h5", dir);
  CHECK(clt_output_read_summary(path, &s, message, sizeof message) == CLT_ERR_IO);
  snprintf(path, sizeof path, "%s/garbage.h5", dir);
  FILE *f = fopen(path, "w");
  fputs("not an HDF5 file\n", f);
  fclose(f);
  CHECK(clt_output_read_summary(path, &s, message, sizeof message) == CLT_ERR_FORMAT);
  CHECK(strstr(message, "not an HDF5 file") != NULL);
  clt_scene_t *sc = NULL;
  clt_world_t *w = NULL;
  clt_output_t *out = NULL;
  CHECK(clt_output_resume(path, NULL, NULL, &sc, &w, &out, message, sizeof message) == CLT_ERR_FORMAT);
  CHECK(sc == NULL && w == NULL && out == NULL);
}

int main(void) {
  char dir[] = "/tmp/clatter_test_output_XXXXXX";
  if (!mkdtemp(dir)) return 1;
  clt_scene_t *scene = NULL;
  if (clt_scene_parse(scene_text, "out3.json", NULL, &scene, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "%s\n", message);
    return 1;
  }
  static run_t run;
  char full[4096], resumed[4096], tmp[4200];
  snprintf(full, sizeof full, "%s/full.h5", dir);
  snprintf(resumed, sizeof resumed, "%s/resumed.h5", dir);
  bool ok = full_run(scene, full, &run);
  if (!ok) fprintf(stderr, "full run: %s\n", message);
  CHECK(ok);
  snprintf(tmp, sizeof tmp, "%s.tmp", full);
  CHECK(access(full, F_OK) == 0 && access(tmp, F_OK) != 0);
  test_layout(scene, full, &run);
  test_resume(scene, full, resumed);
  test_bad_files(dir);
  clt_scene_destroy(scene);
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return clt_test_finish();
}
