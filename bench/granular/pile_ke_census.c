/* Where a pile's kinetic energy is (issue [granular]; bench/granular/results.md "Session 10"):
 * loads the last checkpoint of a run file written with --checkpoint-every (a copy: the run file is
 * not changed; clt_output_resume works on a temporary copy that clt_output_discard removes) and
 * prints, per height band of Z m, the dynamic bodies' count, kinetic energy (translation and
 * rotation), mean vertical velocity and largest speed, and the highest body centre. Public API only.
 *
 *   pile_ke_census RUN.h5 [--band Z]
 *
 * Build: as pile_bench.c (bench/granular/run shows the command). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/output.h"
#include "clatter/scene.h"
#include "clatter/world.h"

enum { BANDS = 400 };

int main(int argc, char **argv) {
  double band = 5.0;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--band") == 0 && i + 1 < argc)
      band = atof(argv[++i]);
    else if (!path)
      path = argv[i];
  }
  if (!path || !(band > 0.0)) {
    fprintf(stderr, "usage: pile_ke_census RUN.h5 [--band Z]\n");
    return 2;
  }
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  clt_output_t *out = NULL;
  char message[1024];
  if (clt_output_resume(path, NULL, NULL, &scene, &world, &out, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "pile_ke_census: %s\n", message);
    return 1;
  }
  static double ke[BANDS], vz[BANDS], vmax[BANDS];
  static int count[BANDS];
  double total = 0.0, top = -INFINITY;
  for (int i = 0; i < clt_world_body_count(world); i++) {
    clt_body_id_t id = clt_world_body_at(world, i);
    clt_body_info_t info;
    clt_body_state_t s;
    if (clt_body_get_info(world, id, &info) != CLT_OK || info.type != CLT_BODY_DYNAMIC) continue;
    if (clt_body_get_state(world, id, &s) != CLT_OK) continue;
    double v2 = s.velocity[0] * s.velocity[0] + s.velocity[1] * s.velocity[1] + s.velocity[2] * s.velocity[2];
    double k = 0.5 * info.mass * v2;
    for (int a = 0; a < 3; a++) k += 0.5 * info.inertia[a] * s.angular_velocity[a] * s.angular_velocity[a];
    int b = (int)floor(s.position[2] / band);
    b = b < 0 ? 0 : b >= BANDS ? BANDS - 1 : b;
    ke[b] += k;
    vz[b] += s.velocity[2];
    count[b]++;
    vmax[b] = fmax(vmax[b], sqrt(v2));
    total += k;
    top = fmax(top, s.position[2]);
  }
  printf("t %.4f kinetic_energy %.6g top_centre_m %.4f\n", clt_world_time(world), total, top);
  printf("band_m bodies kinetic_energy_J mean_vz_m_s max_speed_m_s\n");
  for (int b = 0; b < BANDS; b++)
    if (count[b])
      printf("%g-%g %d %.4g %.4f %.4f\n", b * band, (b + 1) * band, count[b], ke[b], vz[b] / count[b], vmax[b]);
  clt_output_discard(out);
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return 0;
}
