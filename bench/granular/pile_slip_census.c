/* Which contacts of a pile slide (docs/design/granular.md "Rest and creep"): loads
 * the last checkpoint of a run file written with --checkpoint-every (a copy: the run file is not
 * changed; clt_output_resume works on a temporary copy that clt_output_discard removes), takes K
 * steps, and prints per height band of Z m, for the contacts of the last step that bear
 * (c_n > 0), grain–grain apart from grain–wall (a contact with a static or kinematic body): how many
 * bear, how many are at the edge of the friction cone (|tangential impulse| ≥ 0.99 μ c_n, i.e.
 * sliding) and their mean slip speed after the step. The contact's μ is not in the public API:
 * --mu is the grains' pair value and --wall-mu the grain–wall one (default: --mu); with materials
 * combined by the geometric mean, μ_pair = √(μ_a μ_b). Public API only.
 *
 *   pile_slip_census RUN.h5 --mu M [--wall-mu W] [--band Z] [--steps K]
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

/* Velocity of body i's material point p (world frame); 0 for a body that is not dynamic. */
static void point_velocity(clt_world_t *world, int i, const double p[3], double v[3]) {
  clt_body_id_t id = clt_world_body_at(world, i);
  clt_body_info_t info;
  clt_body_state_t s;
  v[0] = v[1] = v[2] = 0.0;
  if (clt_body_get_info(world, id, &info) != CLT_OK || info.type != CLT_BODY_DYNAMIC) return;
  if (clt_body_get_state(world, id, &s) != CLT_OK) return;
  double r[3] = {p[0] - s.position[0], p[1] - s.position[1], p[2] - s.position[2]};
  const double *w = s.angular_velocity;
  v[0] = s.velocity[0] + w[1] * r[2] - w[2] * r[1];
  v[1] = s.velocity[1] + w[2] * r[0] - w[0] * r[2];
  v[2] = s.velocity[2] + w[0] * r[1] - w[1] * r[0];
}

static bool dynamic(clt_world_t *world, int i) {
  clt_body_info_t info;
  return clt_body_get_info(world, clt_world_body_at(world, i), &info) == CLT_OK && info.type == CLT_BODY_DYNAMIC;
}

int main(int argc, char **argv) {
  double band = 3.0, mu = -1.0, wall_mu = -1.0;
  int steps = 1;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--band") == 0 && i + 1 < argc)
      band = atof(argv[++i]);
    else if (strcmp(argv[i], "--mu") == 0 && i + 1 < argc)
      mu = atof(argv[++i]);
    else if (strcmp(argv[i], "--wall-mu") == 0 && i + 1 < argc)
      wall_mu = atof(argv[++i]);
    else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
      steps = atoi(argv[++i]);
    else if (!path)
      path = argv[i];
  }
  if (wall_mu < 0.0) wall_mu = mu;
  if (!path || !(band > 0.0) || !(mu > 0.0) || !(wall_mu > 0.0) || steps < 1) {
    fprintf(stderr, "usage: pile_slip_census RUN.h5 --mu M [--wall-mu W] [--band Z] [--steps K]\n");
    return 2;
  }
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  clt_output_t *out = NULL;
  char message[1024];
  if (clt_output_resume(path, NULL, NULL, &scene, &world, &out, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "pile_slip_census: %s\n", message);
    return 1;
  }
  int status = 0;
  for (int k = 0; k < steps && status == 0; k++)
    if (clt_world_step(world) != CLT_OK) {
      fprintf(stderr, "pile_slip_census: step failed: %s\n", clt_world_error(world));
      status = 1;
    }
  /* [0]: grain–grain, [1]: grain–wall */
  static int bearing[2][BANDS], sliding[2][BANDS];
  static double slip[2][BANDS];
  int n = status == 0 ? clt_world_contact_count(world) : 0;
  for (int i = 0; i < n; i++) {
    clt_contact_info_t c;
    if (clt_world_get_contact(world, i, &c) != CLT_OK || !(c.normal_impulse > 0.0)) continue;
    int side = dynamic(world, c.body_a) && dynamic(world, c.body_b) ? 0 : 1;
    double pn = c.impulse[0] * c.normal[0] + c.impulse[1] * c.normal[1] + c.impulse[2] * c.normal[2];
    double pt2 = 0.0, st2 = 0.0, va[3], vb[3], rel[3];
    point_velocity(world, c.body_a, c.point, va);
    point_velocity(world, c.body_b, c.point, vb);
    for (int d = 0; d < 3; d++) rel[d] = vb[d] - va[d];
    double rn = rel[0] * c.normal[0] + rel[1] * c.normal[1] + rel[2] * c.normal[2];
    for (int d = 0; d < 3; d++) {
      double t = c.impulse[d] - pn * c.normal[d], s = rel[d] - rn * c.normal[d];
      pt2 += t * t;
      st2 += s * s;
    }
    int b = (int)floor(c.point[2] / band);
    b = b < 0 ? 0 : b >= BANDS ? BANDS - 1 : b;
    bearing[side][b]++;
    if (sqrt(pt2) >= 0.99 * (side ? wall_mu : mu) * pn) {
      sliding[side][b]++;
      slip[side][b] += sqrt(st2);
    }
  }
  if (status == 0) {
    printf("t %.4f contacts %d (mu %g, wall mu %g)\n", clt_world_time(world), n, mu, wall_mu);
    printf("band_m grain-grain:bearing sliding mean_slip_m_s grain-wall:bearing sliding mean_slip_m_s\n");
    for (int b = 0; b < BANDS; b++) {
      if (!bearing[0][b] && !bearing[1][b]) continue;
      printf("%g-%g", b * band, (b + 1) * band);
      for (int side = 0; side < 2; side++)
        printf(" %d %d %.4f", bearing[side][b], sliding[side][b],
               sliding[side][b] ? slip[side][b] / sliding[side][b] : 0.0);
      printf("\n");
    }
  }
  clt_output_discard(out);
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return status;
}
