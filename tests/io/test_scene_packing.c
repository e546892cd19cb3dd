/* Random packings in scene files (src/io/scene_packing.c, docs/scene-format.md "Random packings"):
 * no two grains overlap and every grain lies in the region (brute force over all pairs), the drawn
 * radii follow the distribution (mean and standard deviation against the requested ones within
 * 4 standard errors; bounds held), masses follow the scaled shapes, orientations are unit and
 * random, the same fields give the same bits and the stored scene rebuilds them, and the messages
 * of bad packings. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/scene.h"
#include "test_util.h"

static char message[2048];

static clt_scene_t *parse(const char *text) {
  clt_scene_t *scene = NULL;
  if (clt_scene_parse(text, "p.json", NULL, &scene, message, sizeof message) != CLT_OK)
    fprintf(stderr, "parse failed: %s\n", message);
  return scene;
}

static bool fails_with(const char *text, const char *expected) {
  clt_scene_t *scene = NULL;
  clt_status_t s = clt_scene_parse(text, "p.json", NULL, &scene, message, sizeof message);
  bool ok = s == CLT_ERR_FORMAT && scene == NULL && strncmp(message, expected, strlen(expected)) == 0;
  if (!ok) fprintf(stderr, "expected [%s...]\n     got [%s] (%d)\n", expected, message, (int)s);
  clt_scene_destroy(scene);
  return ok;
}

/* Checks the packing bodies [first, first + n) of a scene of spheres (3D) or disks (2D) in the box
 * [lo, hi]: returns the smallest gap between two grains and fills the radii's mean and std. */
static double check_spheres(const clt_scene_t *scene, int first, int n, int dim, const double lo[3],
                            const double hi[3], double *mean, double *std, double *rmin, double *rmax) {
  double sum = 0, sum2 = 0, gap = INFINITY;
  *rmin = INFINITY;
  *rmax = 0;
  for (int i = 0; i < n; i++) {
    const clt_body_def_t *a = clt_scene_body_def(scene, first + i);
    double ra = a->shapes[0].radius;
    sum += ra;
    sum2 += ra * ra;
    *rmin = fmin(*rmin, ra);
    *rmax = fmax(*rmax, ra);
    for (int k = 0; k < dim; k++) {
      CHECK(a->position[k] - ra >= lo[k]);
      CHECK(a->position[k] + ra <= hi[k]);
    }
    for (int j = i + 1; j < n; j++) {
      const clt_body_def_t *b = clt_scene_body_def(scene, first + j);
      double d2 = 0;
      for (int k = 0; k < dim; k++) d2 += (a->position[k] - b->position[k]) * (a->position[k] - b->position[k]);
      gap = fmin(gap, sqrt(d2) - ra - b->shapes[0].radius);
    }
  }
  *mean = sum / n;
  *std = sqrt(fmax(0.0, sum2 / n - *mean * *mean));
  return gap;
}

static const char *lognormal =
    "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.01,"
    " \"materials\": {\"default\": {\"density\": 2500}},"
    " \"bodies\": ["
    "  {\"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, 1]}},"
    "  {\"name\": \"g\", \"shape\": {\"type\": \"sphere\", \"radius\": 1},"
    "   \"packing\": {\"number\": 3000, \"region\": {\"min\": [-0.1, -0.1, 0], \"max\": [0.1, 0.1, 0.4]},"
    "               \"radius\": {\"distribution\": \"lognormal\", \"mean\": 0.006, \"std\": 0.0015}, \"seed\": 3}}"
    " ]}";

static void test_lognormal_spheres(void) {
  clt_scene_t *scene = parse(lognormal);
  CHECK(scene != NULL);
  if (!scene) return;
  CHECK(clt_scene_body_count(scene) == 3001);
  double lo[3] = {-0.1, -0.1, 0}, hi[3] = {0.1, 0.1, 0.4}, mean, std, rmin, rmax;
  double gap = check_spheres(scene, 1, 3000, 3, lo, hi, &mean, &std, &rmin, &rmax);
  /* The default bounds of a log-normal are exp(m ± 4 s): the radius's own mean and std then hold to
   * within 0.1 % of the untruncated ones. */
  double se = 0.0015 / sqrt(3000.0);
  printf("lognormal: 3000 spheres, smallest gap %.3e m, mean %.6g (0.006, ±%.2g), std %.6g (0.0015), "
         "radii in [%.4g, %.4g]\n",
         gap, mean, 4 * se, std, rmin, rmax);
  CHECK(gap >= 0.0);
  CHECK(fabs(mean - 0.006) <= 4 * se);
  CHECK(fabs(std - 0.0015) <= 0.05 * 0.0015);
  CHECK(clt_scene_body_def(scene, 1)->name && strcmp(clt_scene_body_def(scene, 1)->name, "g0") == 0);
  CHECK(strcmp(clt_scene_body_def(scene, 3000)->name, "g2999") == 0);
  /* Orientations: unit quaternions, random (uniform rotations are uniform unit quaternions: the mean of |w| is 4/(3π), its
   * standard deviation 0.264, so 0.02 is 4 standard errors at 3000). */
  double w_mean = 0;
  for (int i = 1; i <= 3000; i++) {
    const double *q = clt_scene_body_def(scene, i)->orientation;
    CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-12);
    w_mean += fabs(q[0]) / 3000.0;
  }
  printf("lognormal: mean |w| of the orientations %.4f (uniform rotations: %.4f)\n", w_mean,
         4.0 / (3.0 * 3.14159265358979323846));
  CHECK(fabs(w_mean - 4.0 / (3.0 * 3.14159265358979323846)) < 0.02);
  /* Masses from the scaled shapes: ρ 4/3 π r³. */
  clt_world_t *world = NULL;
  CHECK(clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) == CLT_OK);
  if (world) {
    double worst = 0;
    for (int i = 1; i <= 3000; i++) {
      double r = clt_scene_body_def(scene, i)->shapes[0].radius;
      clt_body_info_t info;
      CHECK(clt_body_get_info(world, clt_world_body_at(world, i), &info) == CLT_OK);
      worst = fmax(worst, fabs(info.mass / (2500.0 * 4.0 / 3.0 * 3.14159265358979323846 * r * r * r) - 1.0));
    }
    printf("lognormal: mass against rho 4/3 pi r^3, largest relative error %.2e\n", worst);
    CHECK(worst < 1e-12);
    clt_world_destroy(world);
  }
  /* The stored scene rebuilds the same packing bit for bit; another seed gives another. */
  clt_scene_t *again = parse(clt_scene_json(scene));
  CHECK(again != NULL);
  if (again) {
    bool same = clt_scene_body_count(again) == 3001;
    for (int i = 1; same && i <= 3000; i++) {
      const clt_body_def_t *a = clt_scene_body_def(scene, i), *b = clt_scene_body_def(again, i);
      same = memcmp(a->position, b->position, sizeof a->position) == 0 &&
             memcmp(a->orientation, b->orientation, sizeof a->orientation) == 0 &&
             a->shapes[0].radius == b->shapes[0].radius;
    }
    CHECK(same);
    clt_scene_destroy(again);
  }
  char *text = strdup(lognormal);
  char *seed = strstr(text, "\"seed\": 3");
  seed[8] = '4';
  clt_scene_t *other = parse(text);
  CHECK(other != NULL);
  if (other) CHECK(clt_scene_body_def(other, 1)->position[0] != clt_scene_body_def(scene, 1)->position[0]);
  clt_scene_destroy(other);
  free(text);
  clt_scene_destroy(scene);
}

static void test_uniform_disks_and_normal(void) {
  const char *disks =
      "{\"dimension\": 2, \"time_step\": 0.01, \"duration\": 0.01, \"bodies\": ["
      " {\"shape\": {\"type\": \"disk\", \"radius\": 0.5},"
      "  \"packing\": {\"number\": 1500, \"region\": {\"min\": [0, 0], \"max\": [2, 1]},"
      "              \"radius\": {\"distribution\": \"uniform\", \"min\": 0.004, \"max\": 0.008}}}]}";
  clt_scene_t *scene = parse(disks);
  CHECK(scene != NULL);
  if (scene) {
    double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 0}, mean, std, rmin, rmax;
    double gap = check_spheres(scene, 0, 1500, 2, lo, hi, &mean, &std, &rmin, &rmax);
    double sd = 0.004 / sqrt(12.0);
    printf("uniform disks: smallest gap %.3e m, mean %.6g (0.006), std %.6g (%.6g), radii in [%.5g, %.5g]\n", gap,
           mean, std, sd, rmin, rmax);
    CHECK(gap >= 0.0);
    CHECK(rmin >= 0.004 && rmax <= 0.008);
    CHECK(fabs(mean - 0.006) <= 4 * sd / sqrt(1500.0));
    CHECK(fabs(std - sd) <= 0.05 * sd);
    clt_scene_destroy(scene);
  }
  const char *normal =
      "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.01, \"bodies\": ["
      " {\"shape\": {\"type\": \"sphere\", \"radius\": 1},"
      "  \"packing\": {\"number\": 1000, \"region\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},"
      "              \"radius\": {\"distribution\": \"normal\", \"mean\": 0.02, \"std\": 0.004}, \"seed\": 11}}]}";
  scene = parse(normal);
  CHECK(scene != NULL);
  if (scene) {
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, mean, std, rmin, rmax;
    double gap = check_spheres(scene, 0, 1000, 3, lo, hi, &mean, &std, &rmin, &rmax);
    printf("normal: smallest gap %.3e m, mean %.6g (0.02), std %.6g (0.004 before truncation at 3 std), radii in "
           "[%.5g, %.5g]\n",
           gap, mean, std, rmin, rmax);
    CHECK(gap >= 0.0);
    CHECK(rmin >= 0.02 - 3 * 0.004 && rmax <= 0.02 + 3 * 0.004);
    CHECK(fabs(mean - 0.02) <= 4 * 0.004 / sqrt(1000.0));
    /* truncation at ±3 std leaves 0.9866 of the standard deviation */
    CHECK(fabs(std - 0.9866 * 0.004) <= 0.06 * 0.004);
    clt_scene_destroy(scene);
  }
}

/* Non-spherical grains: every shape scaled by r / R0 about the body's origin (R0 the template's
 * bounding radius), orientations random or the template's. */
static void test_boxes(void) {
  const char *boxes =
      "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.01, \"bodies\": ["
      " {\"shapes\": [{\"type\": \"box\", \"half_extents\": [3, 2, 1]},"
      "              {\"type\": \"sphere\", \"radius\": 1, \"position\": [3, 0, 0]}],"
      "  \"packing\": {\"number\": 200, \"region\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},"
      "              \"radius\": {\"distribution\": \"uniform\", \"min\": 0.02, \"max\": 0.04},"
      "              \"orientation\": \"template\"}}]}";
  clt_scene_t *scene = parse(boxes);
  CHECK(scene != NULL);
  if (!scene) return;
  double worst = 0;
  for (int i = 0; i < 200; i++) {
    const clt_body_def_t *b = clt_scene_body_def(scene, i);
    double f = b->shapes[1].radius; /* the sphere: radius 1 × f, R0 = 4 (the sphere's far side) */
    worst = fmax(worst, fabs(b->shapes[0].half_extents[0] - 3 * f) + fabs(b->shapes[0].half_extents[2] - f) +
                            fabs(b->shapes[1].local_position[0] - 3 * f));
    CHECK(4 * f >= 0.02 * (1 - 1e-12) && 4 * f <= 0.04 * (1 + 1e-12));
    CHECK(b->orientation[0] == 1.0);
  }
  printf("boxes: scaled shapes off by at most %.2e m\n", worst);
  CHECK(worst < 1e-15);
  clt_scene_destroy(scene);
}

static void test_errors(void) {
  const char *head = "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 1, \"bodies\": [";
  struct {
    const char *body, *expected;
  } cases[] = {
      {"{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"grid\": {\"count\": [2, 1, 1], \"spacing\": [1, 1, 1]},"
       " \"packing\": {\"number\": 2}}]}",
       "p.json: bodies[0]: give \"grid\" or \"packing\", not both"},
      {"{\"position\": [0, 0, 1], \"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"packing\": {\"number\": 2}}]}",
       "p.json: bodies[0].position: not used with a packing"},
      {"{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"packing\": {\"number\": 2, \"radius\": 0.1}}]}",
       "p.json: bodies[0].packing.region: required"},
      {"{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"packing\": {\"number\": 2, \"radius\": 0.1,"
       " \"region\": {\"min\": [0, 0, 0], \"max\": [1, 0, 1]}}}]}",
       "p.json: bodies[0].packing.region.max[1]: must be above region.min[1]"},
      {"{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"packing\": {\"number\": 2, \"region\": {\"min\": [0, 0, 0],"
       " \"max\": [1, 1, 1]}, \"radius\": {\"distribution\": \"normal\", \"mean\": 0.1, \"std\": 0.05}}}]}",
       "p.json: bodies[0].packing.radius.min: required: the default mean − 3 std is -0.05"},
      {"{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"packing\": {\"number\": 2, \"region\": {\"min\": [0, 0, 0],"
       " \"max\": [1, 1, 1]}, \"radius\": {\"distribution\": \"uniform\", \"min\": 0.2, \"max\": 0.1}}}]}",
       "p.json: bodies[0].packing.radius.max: must be at least min (0.2; got 0.1)"},
      {"{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"packing\": {\"number\": 2, \"region\": {\"min\": [0, 0, 0],"
       " \"max\": [1, 1, 1]}, \"radius\": {\"distribution\": \"gamma\", \"mean\": 0.1}}}]}",
       "p.json: bodies[0].packing.radius.distribution: "},
      {"{\"mass\": 1, \"inertia\": [1, 1, 1], \"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"packing\": {\"number\": 2,"
       " \"region\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]}, \"radius\": 0.1}}]}",
       "p.json: bodies[0].mass: not allowed with a packing"},
      {"{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"packing\": {\"number\": 2, \"region\": {\"min\": [0, 0, 0],"
       " \"max\": [1, 1, 0.1]}, \"radius\": 0.1}}]}",
       "p.json: bodies[0].packing: region is narrower than a grain of bounding radius 0.1 along axis 2"},
      {"{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"packing\": {\"number\": 500, \"region\": {\"min\": [0, 0, 0],"
       " \"max\": [1, 1, 1]}, \"radius\": 0.1}}]}",
       "p.json: bodies[0].packing: placed "},
      {"{\"shape\": {\"type\": \"polyhedron\", \"vertices\": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]},"
       " \"packing\": {\"number\": 2, \"region\": {\"min\": [0, 0, 0], \"max\": [9, 9, 9]}, \"radius\": 0.1}}]}",
       "p.json: bodies[0].shape: a packing scales its grains: polyhedron shapes cannot be scaled"},
      {"{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"packing\": {\"number\": 2, \"sead\": 1}}]}",
       "p.json: bodies[0].packing.sead: unknown key"},
  };
  char text[1024];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(text, sizeof text, "%s%s", head, cases[i].body);
    CHECK(fails_with(text, cases[i].expected));
  }
  /* The jammed packing says how far it got. */
  snprintf(text, sizeof text, "%s%s", head, cases[9].body);
  clt_scene_t *scene = NULL;
  clt_scene_parse(text, "p.json", NULL, &scene, message, sizeof message);
  printf("jammed: %s\n", message);
  CHECK(strstr(message, "attempts: enlarge the region or lower the number") != NULL);
}

int main(void) {
  test_lognormal_spheres();
  test_uniform_disks_and_normal();
  test_boxes();
  test_errors();
  return clt_test_finish();
}
