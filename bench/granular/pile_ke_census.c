/* Where a pile's kinetic energy is (docs/design/granular.md "Rest and creep"):
 * loads the last checkpoint of a run file written with --checkpoint-every (a copy: the run file is
 * not changed; clt_output_resume works on a temporary copy that clt_output_discard removes) and
 * prints, per height band of Z m, the dynamic bodies' count, kinetic energy (translation and
 * rotation), mean vertical velocity and largest speed, and the highest body centre. Then, per band,
 * the grains next to a wall (centre within radius + 6 mm of a wall of the box |x|, |y| ≤ W) apart
 * from the others: mean vertical velocity, mean |ω| r (r: the radius of the sphere of the body's
 * mass and inertia, i.e. √(2.5 I/m)) and the share of their kinetic energy in rotation. A grain
 * rolling down a wall without slipping has |ω| r = |v|. Public API only.
 *
 *   pile_ke_census RUN.h5 [--band Z] [--half-width W]   (W: default 0.5 m, the pile's box)
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
  double band = 5.0, half = 0.5;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--band") == 0 && i + 1 < argc)
      band = atof(argv[++i]);
    else if (strcmp(argv[i], "--half-width") == 0 && i + 1 < argc)
      half = atof(argv[++i]);
    else if (!path)
      path = argv[i];
  }
  if (!path || !(band > 0.0) || !(half > 0.0)) {
    fprintf(stderr, "usage: pile_ke_census RUN.h5 [--band Z] [--half-width W]\n");
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
  /* [0]: next to a wall, [1]: interior */
  static double side_vz[2][BANDS], side_spin[2][BANDS], side_ke[2][BANDS], side_rot[2][BANDS];
  static int side_count[2][BANDS];
  double total = 0.0, top = -INFINITY;
  for (int i = 0; i < clt_world_body_count(world); i++) {
    clt_body_id_t id = clt_world_body_at(world, i);
    clt_body_info_t info;
    clt_body_state_t s;
    if (clt_body_get_info(world, id, &info) != CLT_OK || info.type != CLT_BODY_DYNAMIC) continue;
    if (clt_body_get_state(world, id, &s) != CLT_OK) continue;
    double v2 = s.velocity[0] * s.velocity[0] + s.velocity[1] * s.velocity[1] + s.velocity[2] * s.velocity[2];
    double k = 0.5 * info.mass * v2, rot = 0.0, w2 = 0.0;
    for (int a = 0; a < 3; a++) {
      rot += 0.5 * info.inertia[a] * s.angular_velocity[a] * s.angular_velocity[a];
      w2 += s.angular_velocity[a] * s.angular_velocity[a];
    }
    k += rot;
    double radius = sqrt(2.5 * info.inertia[0] / info.mass);
    double reach = half - radius - 0.006;
    int side = fabs(s.position[0]) >= reach || fabs(s.position[1]) >= reach ? 0 : 1;
    int b = (int)floor(s.position[2] / band);
    b = b < 0 ? 0 : b >= BANDS ? BANDS - 1 : b;
    ke[b] += k;
    vz[b] += s.velocity[2];
    count[b]++;
    vmax[b] = fmax(vmax[b], sqrt(v2));
    side_vz[side][b] += s.velocity[2];
    side_spin[side][b] += sqrt(w2) * radius;
    side_ke[side][b] += k;
    side_rot[side][b] += rot;
    side_count[side][b]++;
    total += k;
    top = fmax(top, s.position[2]);
  }
  printf("t %.4f kinetic_energy %.6g top_centre_m %.4f\n", clt_world_time(world), total, top);
  printf("band_m bodies kinetic_energy_J mean_vz_m_s max_speed_m_s\n");
  for (int b = 0; b < BANDS; b++)
    if (count[b])
      printf("%g-%g %d %.4g %.4f %.4f\n", b * band, (b + 1) * band, count[b], ke[b], vz[b] / count[b], vmax[b]);
  printf("band_m wall:bodies mean_vz mean_spin_r rot_share interior:bodies mean_vz mean_spin_r rot_share\n");
  for (int b = 0; b < BANDS; b++) {
    if (!count[b]) continue;
    printf("%g-%g", b * band, (b + 1) * band);
    for (int side = 0; side < 2; side++) {
      int n = side_count[side][b];
      if (n)
        printf(" %d %.4f %.4f %.3f", n, side_vz[side][b] / n, side_spin[side][b] / n,
               side_ke[side][b] > 0.0 ? side_rot[side][b] / side_ke[side][b] : 0.0);
      else
        printf(" 0 - - -");
    }
    printf("\n");
  }
  clt_output_discard(out);
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return 0;
}
