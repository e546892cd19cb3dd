/* /contacts in the run output (src/io/output.c, docs/output-format.md): a box resting on a
 * half-space and a ball dropped beside it (ε̂ = 5 cm > its fall per step, so it lands without
 * penetrating or bouncing). Read back with the HDF5 C API: one first/count row per trajectory
 * frame, consistent row indexing, counts equal to the diagnostics' active contacts, points on the
 * floor plane (midway between the witness points), normals from the floor to the body, and at rest
 * the normal forces of each body summing to m g with no friction. Then a run interrupted between
 * checkpoints and resumed gives bit-identical /contacts datasets (the rows of the dropped frames
 * are cut), and output.contacts = false writes no group. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clatter/output.h"
#include "clatter/scene.h"
#include "test_util.h"

static char message[2048];

#define BOX_MASS 2.0
#define BALL_MASS 0.5
#define G 9.81
#define STEPS 100
#define INTERVAL 5
#define FRAMES (STEPS / INTERVAL + 1)

static const char *scene_text =
    "{\"name\": \"rest\", \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1,\n"
    " \"bodies\": [\n"
    "  {\"name\": \"floor\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, "
    "1]}},\n"
    "  {\"name\": \"box\", \"position\": [0.3, -0.2, 0.25], \"mass\": 2, \"inertia\": [0.1, 0.1, 0.1],\n"
    "   \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.4, 0.25]}},\n"
    "  {\"name\": \"ball\", \"position\": [2, 0, 0.4], \"mass\": 0.5, \"inertia\": [0.002, 0.002, 0.002],\n"
    "   \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}\n"
    " ],\n"
    " \"method\": {\"active_set_eps\": 0.05},\n"
    " \"output\": {\"interval_steps\": 5}\n"
    "}\n";

static void *read_all(hid_t file, const char *name, hid_t mem_type, size_t elem, hsize_t *rows) {
  *rows = 0;
  if (H5Lexists(file, "contacts", H5P_DEFAULT) <= 0 && strncmp(name, "contacts/", 9) == 0) return NULL;
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  if (d < 0) return NULL;
  hid_t space = H5Dget_space(d);
  hsize_t dims[3] = {0, 1, 1};
  H5Sget_simple_extent_dims(space, dims, NULL);
  hsize_t n = (hsize_t)H5Sget_simple_extent_npoints(space);
  void *data = calloc((size_t)n + 1, elem);
  if (data && n > 0 && H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    free(data);
    data = NULL;
  }
  H5Sclose(space);
  H5Dclose(d);
  *rows = dims[0];
  return data;
}

/* Runs the scene from a fresh world to `stop` steps, checkpointing every `every` steps (0: never),
 * and closes with `status`. */
static bool run_to(const clt_scene_t *scene, const char *path, int64_t stop, int64_t every,
                   clt_run_status_t status) {
  clt_world_t *w = NULL;
  if (clt_scene_create_world(scene, NULL, NULL, &w, message, sizeof message) != CLT_OK) return false;
  clt_output_t *out = NULL;
  if (clt_output_create(path, scene, w, &out, message, sizeof message) != CLT_OK) {
    clt_world_destroy(w);
    return false;
  }
  bool ok = true;
  while (ok && clt_world_step_count(w) < stop) {
    ok = clt_world_step(w) == CLT_OK && clt_output_record_step(out, w) == CLT_OK;
    if (ok && every > 0 && clt_world_step_count(w) % every == 0)
      ok = clt_output_write_checkpoint(out, w) == CLT_OK;
  }
  ok = clt_output_close(out, status, NULL, message, sizeof message) == CLT_OK && ok;
  clt_world_destroy(w);
  return ok;
}

static void check_layout(const char *path) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(file >= 0);
  if (file < 0) return;
  hsize_t frames = 0, nf = 0, nc = 0, np = 0, nn = 0, nd = 0, nfo = 0, nvec = 0, na = 0, nb = 0, ndiag = 0;
  int64_t *tstep = read_all(file, "trajectory/step", H5T_NATIVE_INT64, 8, &frames);
  int64_t *first = read_all(file, "contacts/first", H5T_NATIVE_INT64, 8, &nf);
  int64_t *count = read_all(file, "contacts/count", H5T_NATIVE_INT64, 8, &nc);
  double *point = read_all(file, "contacts/point", H5T_NATIVE_DOUBLE, 8, &np);
  double *normal = read_all(file, "contacts/normal", H5T_NATIVE_DOUBLE, 8, &nn);
  double *dist = read_all(file, "contacts/distance", H5T_NATIVE_DOUBLE, 8, &nd);
  double *fn = read_all(file, "contacts/normal_force", H5T_NATIVE_DOUBLE, 8, &nfo);
  double *force = read_all(file, "contacts/force", H5T_NATIVE_DOUBLE, 8, &nvec);
  int32_t *body_a = read_all(file, "contacts/body_a", H5T_NATIVE_INT32, 4, &na);
  int32_t *body_b = read_all(file, "contacts/body_b", H5T_NATIVE_INT32, 4, &nb);
  int32_t *dcont = read_all(file, "diagnostics/contacts", H5T_NATIVE_INT32, 4, &ndiag);
  bool have = tstep && first && count && point && normal && dist && fn && force && body_a && body_b && dcont;
  CHECK(have);
  if (!have) goto done;
  CHECK(frames == FRAMES && nf == FRAMES && nc == FRAMES && ndiag == STEPS + 1);
  hsize_t total = np;
  CHECK(total > 0 && nn == total && nd == total && nfo == total && nvec == total && na == total &&
        nb == total);
  /* Rows are packed frame by frame; counts are the diagnostics' active contacts of that step. */
  int64_t next = 0;
  int count_mismatch = 0;
  for (hsize_t f = 0; f < frames; f++) {
    CHECK(first[f] == next);
    next += count[f];
    if (count[f] != dcont[tstep[f]]) count_mismatch++;
  }
  CHECK(count_mismatch == 0);
  CHECK((hsize_t)next == total);
  CHECK(count[0] == 0);          /* no step taken yet at step 0 */
  CHECK(count[1] == 4);          /* the box's four corners; the ball still falls */
  CHECK(count[FRAMES - 1] == 5); /* box + ball at rest */
  double max_off_plane = 0, max_normal_err = 0, max_gap = 0;
  for (hsize_t i = 0; i < total; i++) {
    /* The point lies midway between the floor's witness (z = 0) and the body's (z = Φ). */
    max_off_plane = fmax(max_off_plane, fabs(point[3 * i + 2] - 0.5 * dist[i]));
    max_gap = fmax(max_gap, fabs(dist[i]));
    /* The normal points from body A to body B: up when A is the floor (body 0). */
    double sign = body_a[i] == 0 ? 1 : -1;
    CHECK(body_a[i] == 0 || body_b[i] == 0);
    max_normal_err =
        fmax(max_normal_err, fabs(normal[3 * i]) + fabs(normal[3 * i + 1]) + fabs(normal[3 * i + 2] - sign));
    CHECK(fn[i] >= 0);
  }
  printf("contacts: %llu rows in %llu frames; max |z - Φ/2| = %.3g m, max |Φ| = %.3g m, normal error %.3g\n",
         (unsigned long long)total, (unsigned long long)frames, max_off_plane, max_gap, max_normal_err);
  CHECK_LE(max_off_plane, 1e-12);
  CHECK_LE(max_gap, 0.05); /* active set: Φ ≤ ε̂ */
  CHECK_LE(max_normal_err, 1e-12);
  /* Last frame: everything at rest. Per body the normal forces sum to m g, the total force is
   * normal (no friction needed) and its z component is the normal force. */
  int64_t f0 = first[FRAMES - 1];
  double sum[3] = {0, 0, 0};
  double max_tangential = 0;
  for (int64_t i = f0; i < f0 + count[FRAMES - 1]; i++) {
    int other = body_a[i] == 0 ? body_b[i] : body_a[i];
    if (other >= 1 && other <= 2) sum[other] += fn[i];
    max_tangential = fmax(max_tangential, hypot(force[3 * i], force[3 * i + 1]));
    CHECK_NEAR(fabs(force[3 * i + 2]), fn[i], 1e-9 * (1 + fn[i]));
  }
  printf(
      "at rest: box normal force %.12g N (m g = %.12g), ball %.12g N (m g = %.12g), max tangential %.3g N\n",
      sum[1], BOX_MASS * G, sum[2], BALL_MASS * G, max_tangential);
  CHECK_NEAR(sum[1], BOX_MASS * G, 1e-6 * BOX_MASS * G);
  CHECK_NEAR(sum[2], BALL_MASS * G, 1e-6 * BALL_MASS * G);
  CHECK_LE(max_tangential, 1e-9);
done:
  free(tstep);
  free(first);
  free(count);
  free(point);
  free(normal);
  free(dist);
  free(fn);
  free(force);
  free(body_a);
  free(body_b);
  free(dcont);
  H5Fclose(file);
}

static void compare_contacts(const char *a, const char *b) {
  static const struct {
    const char *name;
    int width; /* values per row */
    int kind;  /* 0 double, 1 int64, 2 int32 */
  } sets[] = {{"contacts/first", 1, 1},     {"contacts/count", 1, 1},        {"contacts/point", 3, 0},
              {"contacts/body_a", 1, 2},    {"contacts/body_b", 1, 2},       {"contacts/normal", 3, 0},
              {"contacts/distance", 1, 0},  {"contacts/normal_force", 1, 0}, {"contacts/force", 3, 0},
              {"trajectory/position", 9, 0}};
  hid_t fa = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(b, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(fa >= 0 && fb >= 0);
  for (size_t i = 0; fa >= 0 && fb >= 0 && i < sizeof sets / sizeof sets[0]; i++) {
    hid_t type = sets[i].kind == 0   ? H5T_NATIVE_DOUBLE
                 : sets[i].kind == 1 ? H5T_NATIVE_INT64
                                     : H5T_NATIVE_INT32;
    size_t elem = sets[i].kind == 2 ? 4 : 8;
    hsize_t ra = 0, rb = 0;
    char *x = read_all(fa, sets[i].name, type, elem, &ra), *y = read_all(fb, sets[i].name, type, elem, &rb);
    bool same = x && y && ra == rb && memcmp(x, y, (size_t)ra * (size_t)sets[i].width * elem) == 0;
    if (!same)
      fprintf(stderr, "dataset %s differs (%llu vs %llu rows)\n", sets[i].name, (unsigned long long)ra,
              (unsigned long long)rb);
    CHECK(same);
    free(x);
    free(y);
  }
  if (fa >= 0) H5Fclose(fa);
  if (fb >= 0) H5Fclose(fb);
}

static void test_resume(const clt_scene_t *scene, const char *full, const char *path) {
  /* Checkpoints at 30 and 60, data up to 73 (frames 65 and 70 and their contact rows must go). */
  CHECK(run_to(scene, path, 73, 30, CLT_RUN_INTERRUPTED));
  hsize_t rows_before = 0, frames_before = 0;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0) {
    free(read_all(f, "contacts/point", H5T_NATIVE_DOUBLE, 8, &rows_before));
    free(read_all(f, "contacts/first", H5T_NATIVE_INT64, 8, &frames_before));
    H5Fclose(f);
  }
  CHECK(frames_before == 73 / INTERVAL + 1);
  clt_scene_t *rs = NULL;
  clt_world_t *w = NULL;
  clt_output_t *out = NULL;
  clt_status_t st = clt_output_resume(path, NULL, NULL, &rs, &w, &out, message, sizeof message);
  if (st != CLT_OK) fprintf(stderr, "resume: %s\n", message);
  CHECK(st == CLT_OK);
  if (st != CLT_OK) return;
  CHECK(clt_world_step_count(w) == 60);
  while (clt_world_step_count(w) < clt_scene_step_count(rs)) {
    CHECK(clt_world_step(w) == CLT_OK);
    CHECK(clt_output_record_step(out, w) == CLT_OK);
  }
  CHECK(clt_output_close(out, CLT_RUN_COMPLETE, NULL, message, sizeof message) == CLT_OK);
  clt_world_destroy(w);
  clt_scene_destroy(rs);
  compare_contacts(full, path);
}

/* Touching contacts against candidates (docs/output-format.md "Touching contacts"): a box resting
 * on the floor with a wall 1 cm from its side (ε̂ = 2 cm): 8 candidates (4 floor corners, the 4
 * corners of the side face), 4 touching, in every scheme and contact model; then four columns of
 * three spheres on the floor at the corners of a square with 1 cm gaps between the columns: 24
 * candidates, 12 touching, and the mean coordination number of the spheres from touching contacts
 * 4/3 (sphere–sphere) against 10/3 from the candidates. */
static const char *wall_text =
    "{\"name\": \"wall\", \"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.3,\n"
    " \"bodies\": [\n"
    "  {\"name\": \"floor\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, 1]}},\n"
    "  {\"name\": \"wall\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"point\": [0.51, 0, 0],\n"
    "   \"normal\": [-1, 0, 0]}},\n"
    "  {\"name\": \"box\", \"position\": [0, 0, 0.25], \"mass\": 2, \"inertia\": [0.1, 0.1, 0.1],\n"
    "   \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.4, 0.25]}}\n"
    " ],\n"
    " \"method\": {\"active_set_eps\": 0.02}\n"
    "}\n";

/* Steps a world of scene_text with overrides to its end; per step the candidates and touching
 * contacts must be `candidates` and `touching`, the report's entries agree with the diagnostics,
 * and the touching entries are exactly those with Φ ≤ 1e-6 ε̂ or a pressing normal impulse.
 * Returns the sphere–sphere touching and candidate contacts of the last step. */
static void check_touching(const char *text, const char *const *sets, int nsets, int candidates, int touching,
                           int *ss_touching, int *ss_candidates) {
  clt_scene_t *scene = NULL;
  clt_scene_overrides_t ov = {sets, nsets, NULL, 0};
  clt_status_t st = clt_scene_parse(text, "touch.json", &ov, &scene, message, sizeof message);
  if (st != CLT_OK) fprintf(stderr, "%s\n", message);
  CHECK(st == CLT_OK);
  clt_world_t *w = NULL;
  if (!scene || clt_scene_create_world(scene, NULL, NULL, &w, message, sizeof message) != CLT_OK) {
    CHECK(false);
    clt_scene_destroy(scene);
    return;
  }
  int bad_counts = 0, bad_entries = 0, steps = 0;
  double far_max = 0; /* largest normal impulse of a contact ≥ 1 mm apart [N s] */
  while (clt_world_step_count(w) < clt_scene_step_count(scene)) {
    if (clt_world_step(w) != CLT_OK) {
      fprintf(stderr, "step failed: %s\n", clt_world_error(w));
      CHECK(false);
      break;
    }
    steps++;
    clt_diagnostics_t d;
    CHECK(clt_world_get_diagnostics(w, &d) == CLT_OK);
    int n = clt_world_contact_count(w), t = 0, sst = 0, ssc = 0;
    for (int i = 0; i < n; i++) {
      clt_contact_info_t c;
      CHECK(clt_world_get_contact(w, i, &c) == CLT_OK);
      bool near = c.distance <= 1e-6 * 0.02;
      if (c.distance > 1e-3) far_max = fmax(far_max, c.normal_impulse);
      if (!(c.touching == 0 || c.touching == 1) || (near && !c.touching) || (c.touching && !near && !(c.normal_impulse > 0)))
        bad_entries++;
      t += c.touching;
      bool spheres = c.body_a > 0 && c.body_b > 0;
      sst += spheres && c.touching;
      ssc += spheres;
    }
    if (d.contacts != candidates || d.touching_contacts != touching || t != touching || n != candidates) {
      if (bad_counts++ < 3)
        fprintf(stderr, "  step %lld: contacts %d (report %d), touching %d (report %d); expected %d, %d\n",
                (long long)d.step, d.contacts, n, d.touching_contacts, t, candidates, touching);
    }
    *ss_touching = sst;
    *ss_candidates = ssc;
  }
  char label[512] = "";
  for (int k = 0, at = 0; k < nsets && at < (int)sizeof label; k++)
    at += snprintf(label + at, sizeof label - (size_t)at, "%s%s", k ? " " : "", strncmp(sets[k], "materials", 9) == 0 ? "(μ = 0)" : sets[k]);
  printf("  %-72s %d steps: %d candidates, %d touching; far contacts' largest impulse %.3g N s\n", label, steps,
         candidates, touching, far_max);
  CHECK(bad_counts == 0);
  CHECK(bad_entries == 0);
  /* Nothing presses across the 1 cm gaps: exact zeros, but for the interior point (solver newton),
   * whose remainder (1.2e-11 N s, 2.5e-10 of the largest) stays below the touching floor. */
  if (!strstr(label, "newton")) CHECK(far_max == 0);
  else CHECK_LE(far_max, 1e-9);
  clt_world_destroy(w);
  clt_scene_destroy(scene);
}

static void test_touching(void) {
  static const char *const variants[][3] = {
      {"method.scheme=anitescu-hart", NULL, NULL},
      {"method.scheme=none", NULL, NULL},
      {"method.scheme=baumgarte", NULL, NULL},
      {"method.scheme=post", NULL, NULL},
      {"method.scheme=anitescu-hart", "method.solver=bgs", NULL},
      {"method.friction_cone=circular", "method.solver=bgs", NULL},
      {"method.scheme=relaxed", "method.solver=bgs", NULL},
      {"method.scheme=relaxed", "method.solver=apgd", NULL},
      {"materials={\"default\": {\"friction\": 0}}", "method.contact_model=relcp", "method.solver=apgd"},
      {"materials={\"default\": {\"friction\": 0}}", "method.contact_model=snsd", "method.solver=newton"},
      {"materials={\"default\": {\"friction\": 0}}", "method.contact_model=relcp", "method.solver=newton"},
  };
  int sst = 0, ssc = 0;
  printf("box on the floor, wall 1 cm away:\n");
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    int n = variants[v][2] ? 3 : variants[v][1] ? 2 : 1;
    check_touching(wall_text, variants[v], n, 8, 4, &sst, &ssc);
  }
  /* four columns of three spheres (r = 0.1 m) at the corners of a 0.21 m square */
  char pile[4096];
  int at = snprintf(pile, sizeof pile,
                    "{\"name\": \"columns\", \"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.3,\n"
                    " \"method\": {\"active_set_eps\": 0.02},\n \"bodies\": [\n"
                    "  {\"name\": \"floor\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", "
                    "\"normal\": [0, 0, 1]}}");
  for (int k = 0; k < 12; k++)
    at += snprintf(pile + at, sizeof pile - (size_t)at,
                   ",\n  {\"position\": [%g, %g, %g], \"mass\": 1, \"inertia\": [0.004, 0.004, 0.004], "
                   "\"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}",
                   0.21 * (k % 2), 0.21 * ((k / 2) % 2), 0.1 + 0.2 * (k / 4));
  snprintf(pile + at, sizeof pile - (size_t)at, "\n ]\n}\n");
  printf("four columns of three spheres, 1 cm apart:\n");
  const char *const ah[] = {"method.scheme=anitescu-hart"}, *const rx[] = {"method.scheme=relaxed"};
  check_touching(pile, ah, 1, 24, 12, &sst, &ssc);
  double z_touch = 2.0 * sst / 12, z_cand = 2.0 * ssc / 12;
  printf("  coordination number (sphere-sphere): %.4f from touching, %.4f from candidates\n", z_touch, z_cand);
  CHECK_NEAR(z_touch, 4.0 / 3.0, 1e-12);
  CHECK_NEAR(z_cand, 10.0 / 3.0, 1e-12);
  check_touching(pile, rx, 1, 24, 12, &sst, &ssc);
  CHECK(sst == 8 && ssc == 20);
}

int main(void) {
  char dir[] = "/tmp/clatter_test_contacts_XXXXXX";
  if (!mkdtemp(dir)) return 1;
  clt_scene_t *scene = NULL;
  if (clt_scene_parse(scene_text, "rest.json", NULL, &scene, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "%s\n", message);
    return 1;
  }
  CHECK(clt_scene_output(scene)->contacts); /* the default */
  char full[4096], resumed[4096], off[4096];
  snprintf(full, sizeof full, "%s/full.h5", dir);
  snprintf(resumed, sizeof resumed, "%s/resumed.h5", dir);
  snprintf(off, sizeof off, "%s/off.h5", dir);
  bool ok = run_to(scene, full, STEPS, 0, CLT_RUN_COMPLETE);
  if (!ok) fprintf(stderr, "full run: %s\n", message);
  CHECK(ok);
  check_layout(full);
  test_resume(scene, full, resumed);
  test_touching();

  /* output.contacts = false: no group, and a resume of such a file works without one. */
  clt_scene_t *quiet = NULL;
  const char *sets[] = {"output.contacts=false"};
  clt_scene_overrides_t ov = {sets, 1, NULL, 0};
  CHECK(clt_scene_parse(scene_text, "rest.json", &ov, &quiet, message, sizeof message) == CLT_OK);
  if (quiet) {
    CHECK(!clt_scene_output(quiet)->contacts);
    CHECK(run_to(quiet, off, 20, 10, CLT_RUN_INTERRUPTED));
    hid_t f = H5Fopen(off, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && H5Lexists(f, "contacts", H5P_DEFAULT) == 0);
    if (f >= 0) H5Fclose(f);
    clt_scene_t *rs = NULL;
    clt_world_t *w = NULL;
    clt_output_t *out = NULL;
    CHECK(clt_output_resume(off, NULL, NULL, &rs, &w, &out, message, sizeof message) == CLT_OK);
    if (out) CHECK(clt_output_close(out, CLT_RUN_INTERRUPTED, NULL, message, sizeof message) == CLT_OK);
    clt_world_destroy(w);
    clt_scene_destroy(rs);
    clt_scene_destroy(quiet);
  }
  clt_scene_destroy(scene);
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return clt_test_finish();
}
