/* The Love–Weber stress and the branch vectors (src/analysis/stress.c, docs/analysis.md
 * "Love–Weber stress") on a column of five spheres (radius r) stacked on a floor and stepped to
 * rest under gravity by the default method, read from the world (clt_analysis_frame_from_world):
 * in a box of side 2r around the contact between spheres i and i + 1 — the column's square cell,
 * one lattice period high — σ_zz is the weight above the contact per area of the cell,
 * (4 − i) m g / (2r)², the other components vanish, p = σ_zz / 3 and q = σ_zz; the floor contact's
 * branch runs from the contact point to the sphere's centre. The same in 2D with disks
 * (σ_yy = weight per length of the cell). */
#include <stdio.h>
#include <string.h>

#include "clatter/analysis.h"
#include "clatter/scene.h"
#include "test_util.h"

#define G 9.81
#define R 0.1
#define M 2.0
#define N 5

static char message[2048];

static clt_world_t *column(int dimension) {
  char text[4096];
  int n = snprintf(text, sizeof text,
                   "{\"name\": \"column\", \"dimension\": %d, \"time_step\": 0.01, \"duration\": 1,\n"
                   " \"gravity\": %s, \"bodies\": [\n"
                   "  {\"name\": \"floor\", \"type\": \"static\", \"shape\": {\"type\": \"%s\", \"normal\": %s}}",
                   dimension, dimension == 3 ? "[0, 0, -9.81]" : "[0, -9.81]",
                   dimension == 3 ? "halfspace" : "halfplane", dimension == 3 ? "[0, 0, 1]" : "[0, 1]");
  for (int i = 0; i < N; i++)
    n += snprintf(
        text + n, sizeof text - (size_t)n,
        ",\n  {\"position\": %s%g%s, \"mass\": %g, \"inertia\": %s, \"shape\": {\"type\": \"%s\", \"radius\": %g}}",
        dimension == 3 ? "[0, 0, " : "[0, ", R + 2 * R * i, "]", M, dimension == 3 ? "[0.008, 0.008, 0.008]" : "0.01",
        dimension == 3 ? "sphere" : "disk", R);
  snprintf(text + n, sizeof text - (size_t)n, "\n ]}\n");
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  if (clt_scene_parse(text, "column", NULL, &scene, message, sizeof message) != CLT_OK ||
      clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "%s\n", message);
    clt_scene_destroy(scene);
    return NULL;
  }
  clt_scene_destroy(scene);
  for (int s = 0; s < 100; s++) CHECK(clt_world_step(world) == CLT_OK);
  return world;
}

static void check_column(int dimension) {
  clt_world_t *world = column(dimension);
  CHECK(world != NULL);
  if (!world) return;
  clt_analysis_frame_t f;
  CHECK(clt_analysis_frame_from_world(world, &f, message, sizeof message) == CLT_OK);
  CHECK(f.body_count == N + 1 && f.dimension == dimension && f.step == 100);
  int up = dimension - 1;
  double worst = 0;
  for (int i = 0; i + 1 < N; i++) {
    /* the cell around the contact of spheres i and i + 1 (bodies i + 1 and i + 2) */
    clt_analysis_box_t cell = {{-R, -R, -R}, {R, R, R}};
    double zc = 2 * R * (i + 1);
    cell.lo[up] = zc - R;
    cell.hi[up] = zc + R;
    if (dimension == 2) cell.lo[2] = -INFINITY, cell.hi[2] = INFINITY;
    clt_stress_t s;
    CHECK(clt_analysis_stress(&f, &cell, &s, message, sizeof message) == CLT_OK);
    CHECK(s.contacts == 1);
    double weight = (N - 1 - i) * M * G, expected = dimension == 3 ? weight / (4 * R * R) : weight / (2 * R);
    worst = fmax(worst, fabs(s.sigma[up][up] / expected - 1));
    CHECK_NEAR(s.sigma[up][up], expected, 1e-9 * expected);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        if (a != up || b != up) CHECK_NEAR(s.sigma[a][b], 0, 1e-9 * expected);
    CHECK_NEAR(s.pressure, expected / dimension, 1e-9 * expected);
    CHECK_NEAR(s.deviatoric, dimension == 3 ? expected : expected / 2, 1e-9 * expected);
    CHECK_NEAR(s.asymmetry, 0, 1e-9 * expected);
  }
  printf("%dD column of %d at rest: worst |σ / (weight above per cell area) − 1| = %.2e\n", dimension, N, worst);
  /* the floor contact: branch from the contact point (the wall's end) to the lowest centre */
  int floor_contact = -1;
  for (int64_t c = 0; c < f.contact_count; c++)
    if (f.contact_body_a[c] == 0 || f.contact_body_b[c] == 0) floor_contact = (int)c;
  CHECK(floor_contact >= 0);
  if (floor_contact >= 0) {
    double l[3];
    clt_analysis_contact_branch(&f, floor_contact, l);
    double sign = f.contact_body_a[floor_contact] == 0 ? 1 : -1; /* from A to B */
    CHECK_NEAR(sign * l[up], R, 1e-6);
    CHECK(clt_analysis_contact_counts(&f, floor_contact));
  }
  /* the region around the floor contact holds the wall's half branch: r, not 2r */
  clt_analysis_box_t bottom = {{-R, -R, -R}, {R, R, R}};
  if (dimension == 2) bottom.lo[2] = -INFINITY, bottom.hi[2] = INFINITY;
  clt_stress_t s;
  CHECK(clt_analysis_stress(&f, &bottom, &s, message, sizeof message) == CLT_OK);
  double volume = dimension == 3 ? 8 * R * R * R : 4 * R * R;
  CHECK_NEAR(s.sigma[up][up], N * M * G * R / volume, 1e-9 * N * M * G * R / volume);
  CHECK(clt_analysis_stress(&f, NULL, &s, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  clt_analysis_frame_release(&f);
  CHECK(f.position == NULL && f.storage == NULL);
  clt_world_destroy(world);
}

int main(void) {
  check_column(3);
  check_column(2);
  return clt_test_finish();
}
