/* Contact census of a falling pile (docs/design/granular.md "The swept active set"): steps
 * a scene and, every M steps from step F, prints where its contacts are and which of them bear,
 * and which grains have left free fall. Public API only.
 *
 *   pile_census SCENE.json [--param N=V] [--set P=V] --steps K --from F --every M [--band Z]
 *
 * Per report: contacts by start-of-step gap Φ (≤ 0, < 1 mm, < 1 cm, < 5 cm, ≥ 5 cm), all and
 * bearing (c_n > 0); contacts and bearing contacts per height band of Z m (default 5); the top of
 * the landed grains (|v| < 1 m/s); and per band the grains that are not in free fall: their
 * velocity differs from the highest grain's by more than 1 mm/s in the 1-norm (every grain of
 * scenes/papers/pile.json starts at rest, so until something touches it its velocity is that of
 * the column's top, which nothing reaches before it lands). Build: as pile_bench.c
 * (bench/granular/run shows the command). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/scene.h"
#include "clatter/world.h"

#define BANDS 40

static int band_of(double z, double width) {
  int b = (int)floor(z / width);
  return b < 0 ? 0 : (b >= BANDS ? BANDS - 1 : b);
}

static void report(clt_world_t *world, int step, double width) {
  long gap_all[5] = {0}, gap_bore[5] = {0}, band_all[BANDS] = {0}, band_bore[BANDS] = {0}, off[BANDS] = {0};
  int nc = clt_world_contact_count(world);
  for (int i = 0; i < nc; i++) {
    clt_contact_info_t c;
    if (clt_world_get_contact(world, i, &c) != CLT_OK) continue;
    int g = c.distance <= 0 ? 0 : c.distance < 1e-3 ? 1 : c.distance < 1e-2 ? 2 : c.distance < 5e-2 ? 3 : 4;
    bool bore = c.normal_impulse > 0.0;
    gap_all[g]++;
    gap_bore[g] += bore;
    band_all[band_of(c.point[2], width)]++;
    band_bore[band_of(c.point[2], width)] += bore;
  }
  /* the free-fall velocity: the highest grain's (nothing reaches the top of a falling column) */
  double top = -INFINITY, highest = -INFINITY, fall[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < clt_world_body_count(world); i++) {
    clt_body_id_t id = clt_world_body_at(world, i);
    clt_body_info_t info;
    clt_body_state_t s;
    if (clt_body_get_info(world, id, &info) != CLT_OK || info.type != CLT_BODY_DYNAMIC) continue;
    if (clt_body_get_state(world, id, &s) == CLT_OK && s.position[2] > highest) {
      highest = s.position[2];
      memcpy(fall, s.velocity, sizeof fall);
    }
  }
  long offs = 0, grains = 0;
  for (int i = 0; i < clt_world_body_count(world); i++) {
    clt_body_id_t id = clt_world_body_at(world, i);
    clt_body_info_t info;
    clt_body_state_t s;
    if (clt_body_get_info(world, id, &info) != CLT_OK || info.type != CLT_BODY_DYNAMIC) continue;
    if (clt_body_get_state(world, id, &s) != CLT_OK) continue;
    grains++;
    const double *v = s.velocity;
    if (sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) < 1.0 && s.position[2] > top) top = s.position[2];
    if (fabs(v[0] - fall[0]) + fabs(v[1] - fall[1]) + fabs(v[2] - fall[2]) > 1e-3) {
      offs++;
      off[band_of(s.position[2], width)]++;
    }
  }
  printf("step %d t %.2f contacts %d grains %ld landed_top %.2f highest %.2f off_free_fall %ld\n", step,
         clt_world_time(world), nc, grains, top, highest, offs);
  static const char *gap_name[5] = {"<=0", "<1mm", "<1cm", "<5cm", ">=5cm"};
  printf("  by gap (all/bearing):");
  for (int g = 0; g < 5; g++) printf(" %s %ld/%ld", gap_name[g], gap_all[g], gap_bore[g]);
  printf("\n  by height band of %g m from z (contacts all/bearing, grains off free fall):", width);
  for (int b = 0; b < BANDS; b++)
    if (band_all[b] || off[b]) printf(" [%g] %ld/%ld %ld", b * width, band_all[b], band_bore[b], off[b]);
  printf("\n");
  fflush(stdout);
}

int main(int argc, char **argv) {
  const char *params[16], *sets[16];
  int np = 0, ns = 0, steps = 0, from = 1, every = 1;
  double width = 5.0;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--param") && v && np < 16) params[np++] = argv[++i];
    else if (!strcmp(a, "--set") && v && ns < 15) sets[ns++] = argv[++i];
    else if (!strcmp(a, "--steps") && v) steps = atoi(argv[++i]);
    else if (!strcmp(a, "--from") && v) from = atoi(argv[++i]);
    else if (!strcmp(a, "--every") && v) every = atoi(argv[++i]);
    else if (!strcmp(a, "--band") && v) width = atof(argv[++i]);
    else if (a[0] != '-' && !path) path = a;
    else {
      fprintf(stderr, "usage: pile_census SCENE.json [--param N=V] [--set P=V] --steps K --from F --every M "
                      "[--band Z]\n");
      return 2;
    }
  }
  if (!path || steps <= 0 || every <= 0 || !(width > 0.0)) {
    fprintf(stderr, "pile_census: a scene, --steps > 0, --every > 0 and --band > 0 are needed\n");
    return 2;
  }
  sets[ns++] = "output.trajectory=false";
  clt_scene_overrides_t ov = {sets, ns, params, np};
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  char msg[1024];
  if (clt_scene_load(path, &ov, &scene, msg, sizeof msg) != CLT_OK ||
      clt_scene_create_world(scene, NULL, NULL, &world, msg, sizeof msg) != CLT_OK) {
    fprintf(stderr, "pile_census: %s\n", msg);
    return 1;
  }
  for (int k = 1; k <= steps; k++) {
    if (clt_world_step(world) != CLT_OK) {
      fprintf(stderr, "pile_census: step %d: %s\n", k, clt_world_error(world));
      return 1;
    }
    if (k >= from && (k - from) % every == 0) report(world, k, width);
  }
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return 0;
}
