/* scenes/papers/damper1d.json (SPEC.md §8; 004 §3.2, figs. 3–6), read through the scene reader
 * with its parameters, issue 5's acceptance checks:
 *  - damping 20: explicit and implicit positions agree within 5 % of the distance travelled;
 *  - damping 100: explicit diverges, reported as CLT_ERR_DIVERGED, the implicit run
 *    stays bounded;
 *  - damping 1e6 (implicit): the distance stays within 1e-3 of 3 for 10 s, and the motion is that
 *    of the rigid link (a distance joint in place of the damper, 004 Thm 2.6) to 1e-3;
 *    static-friction plateaus (both |v| < 1e-9 over intervals): with the 20 N drive the linked
 *    pair never comes to rest (it reverses where |20 cos t| > μ (m₁ + m₂) g = 7.85 N, see
 *    docs/stepping.md), so the plateaus are checked with the drive halved (10 N), where they
 *    must appear, and in the mass-ratio runs below;
 *  - masses 1 and 1e8: damping 20 — the heavy body moves < 1e-6 while the light one moves, with
 *    static-friction plateaus; damping 1e8 — both essentially fixed; every step solved;
 *  - a run with an implicit element resumed from a checkpoint ends bit-identical (BGS, warm start). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/scene.h"
#include "clatter/world.h"
#include "test_util.h"

#define FRAMES 201

typedef struct run_t {
  clt_status_t status;
  char message[512];
  int steps, unsolved;
  double x[FRAMES][2], v[FRAMES][2];
} run_t;

static run_t R; /* large: static */

static void run(const char *damping, const char *treatment, const char *mass2, const char *set1, const char *set2) {
  memset(&R, 0, sizeof R);
  char path[1024], p1[64], p2[64], p3[64];
  snprintf(path, sizeof path, "%s/scenes/papers/damper1d.json", clt_test_env("CLATTER_SOURCE_DIR"));
  snprintf(p1, sizeof p1, "damping=%s", damping);
  snprintf(p2, sizeof p2, "treatment=%s", treatment);
  snprintf(p3, sizeof p3, "mass2=%s", mass2);
  const char *params[3] = {p1, p2, p3};
  const char *sets[2] = {set1, set2};
  clt_scene_overrides_t ov = {sets, set2 ? 2 : set1 ? 1 : 0, params, 3};
  clt_scene_t *scene = NULL;
  clt_world_t *w = NULL;
  if (clt_scene_load(path, &ov, &scene, R.message, sizeof R.message) != CLT_OK ||
      clt_scene_create_world(scene, NULL, NULL, &w, R.message, sizeof R.message) != CLT_OK) {
    fprintf(stderr, "%s: %s\n", path, R.message);
    R.status = CLT_ERR_INVALID_ARGUMENT;
    clt_scene_destroy(scene);
    return;
  }
  CHECK(clt_scene_step_count(scene) == FRAMES - 1);
  for (int n = 0; n < FRAMES; n++) {
    if (n > 0) {
      R.status = clt_world_step(w);
      if (R.status != CLT_OK) {
        snprintf(R.message, sizeof R.message, "%s", clt_world_error(w));
        break;
      }
      R.steps++;
      clt_diagnostics_t d;
      clt_world_get_diagnostics(w, &d);
      /* a ray, or a basis whose residual is not usable; an inexact Lemke basis (status error,
       * residual ≤ 1e-6: the 1e8-scaled problems of the mass-ratio runs) is tolerated */
      if (d.solver_status == CLT_SOLVE_RAY || d.solver_status == CLT_SOLVE_MAX_ITERATIONS ||
          ((d.solver_status == CLT_SOLVE_ERROR || d.solver_status == CLT_SOLVE_NOT_CONVERGED) && !(d.residual <= 1e-6)))
        R.unsolved++;
    }
    for (int b = 0; b < 2; b++) {
      clt_body_state_t s;
      clt_body_get_state(w, clt_world_body_at(w, b + 1), &s);
      R.x[n][b] = s.position[0];
      R.v[n][b] = s.velocity[0];
    }
  }
  clt_world_destroy(w);
  clt_scene_destroy(scene);
}

/* Number of frames where both |v| < 1e-9 (excluding the initial rest) and the longest such run in
 * seconds. */
static double plateau_seconds(int *frames) {
  int best = 0, cur = 0;
  *frames = 0;
  for (int n = 1; n < FRAMES; n++) {
    bool rest = fabs(R.v[n][0]) < 1e-9 && fabs(R.v[n][1]) < 1e-9;
    if (rest) (*frames)++;
    cur = rest ? cur + 1 : 0;
    if (cur > best) best = cur;
  }
  return best * 0.05;
}

/* Checkpoints (the implicit element's impulse is cold-started, not state): with block Gauss–Seidel
 * (warm-started) a run resumed from a mid-run checkpoint ends bit-identical. */
static void resume_identical(void) {
  char path[1024], msg[512];
  snprintf(path, sizeof path, "%s/scenes/papers/damper1d.json", clt_test_env("CLATTER_SOURCE_DIR"));
  const char *sets[2] = {"method.solver=bgs", "method.tolerance=1e-12"};
  const char *params[1] = {"damping=1e6"};
  clt_scene_overrides_t ov = {sets, 2, params, 1};
  clt_scene_t *scene = NULL;
  clt_world_t *a = NULL, *b = NULL;
  CHECK(clt_scene_load(path, &ov, &scene, msg, sizeof msg) == CLT_OK);
  CHECK(clt_scene_create_world(scene, NULL, NULL, &a, msg, sizeof msg) == CLT_OK);
  CHECK(clt_scene_create_world(scene, NULL, NULL, &b, msg, sizeof msg) == CLT_OK);
  for (int n = 0; n < 100; n++) CHECK(clt_world_step(a) == CLT_OK);
  static unsigned char blob[1 << 16];
  size_t size = clt_world_state_size(a);
  CHECK(size <= sizeof blob);
  CHECK(clt_world_save_state(a, blob, size) == CLT_OK);
  for (int n = 0; n < 100; n++) clt_world_step(a);
  CHECK(clt_world_load_state(b, blob, size) == CLT_OK);
  for (int n = 0; n < 100; n++) clt_world_step(b);
  CHECK(clt_world_state_hash(a) == clt_world_state_hash(b));
  clt_world_destroy(a);
  clt_world_destroy(b);
  clt_scene_destroy(scene);
}

int main(void) {
  /* damping 20: explicit ≈ implicit (004 Fig. 3) */
  static double xe[FRAMES][2];
  run("20", "explicit", "1", NULL, NULL);
  CHECK(R.status == CLT_OK && R.steps == FRAMES - 1 && R.unsolved == 0);
  memcpy(xe, R.x, sizeof xe);
  run("20", "implicit", "1", NULL, NULL);
  CHECK(R.status == CLT_OK && R.steps == FRAMES - 1 && R.unsolved == 0);
  for (int b = 0; b < 2; b++) {
    double travel = 0.0, diff = 0.0;
    for (int n = 1; n < FRAMES; n++) travel += fabs(R.x[n][b] - R.x[n - 1][b]);
    for (int n = 0; n < FRAMES; n++) diff = fmax(diff, fabs(R.x[n][b] - xe[n][b]));
    printf("damping 20, body %d: travelled %.4g m, max |x_explicit − x_implicit| = %.4g m (%.2f %%)\n", b, travel,
           diff, 100.0 * diff / travel);
    CHECK(travel > 10.0);
    CHECK_LE(diff, 0.05 * travel);
  }

  /* damping 100: explicit diverges (reported), implicit bounded (004 Fig. 4) */
  run("100", "explicit", "1", NULL, NULL);
  printf("damping 100 explicit: %s after %d steps: %s\n", clt_status_name(R.status), R.steps, R.message);
  CHECK(R.status == CLT_ERR_DIVERGED);
  CHECK(strstr(R.message, "diverged") != NULL);
  CHECK(R.steps < FRAMES - 1);
  run("100", "implicit", "1", NULL, NULL);
  CHECK(R.status == CLT_OK && R.steps == FRAMES - 1 && R.unsolved == 0);
  double xmax = 0.0, vmax = 0.0;
  for (int n = 0; n < FRAMES; n++)
    for (int b = 0; b < 2; b++) {
      xmax = fmax(xmax, fabs(R.x[n][b] - R.x[0][b]));
      vmax = fmax(vmax, fabs(R.v[n][b]));
    }
  printf("damping 100 implicit: max |x − x0| = %.4g m, max |v| = %.4g m/s\n", xmax, vmax);
  CHECK_LE(xmax, 20.0); /* 20 N on 2 kg against friction: |x| ≤ ∫∫ 10 ≤ 20 over a half period */
  CHECK_LE(vmax, 10.0);

  /* damping 1e6 (implicit): the distance stays 3; the motion is the rigid link's (004 Fig. 5) */
  static double xr[FRAMES][2];
  run("1e6", "implicit", "1", "forces[1].rigid=true", NULL);
  CHECK(R.status == CLT_OK && R.steps == FRAMES - 1);
  memcpy(xr, R.x, sizeof xr);
  run("1e6", "implicit", "1", NULL, NULL);
  CHECK(R.status == CLT_OK && R.steps == FRAMES - 1 && R.unsolved == 0);
  double ddev = 0.0, rdev = 0.0;
  for (int n = 0; n < FRAMES; n++) {
    ddev = fmax(ddev, fabs(R.x[n][1] - R.x[n][0] - 3.0));
    for (int b = 0; b < 2; b++) rdev = fmax(rdev, fabs(R.x[n][b] - xr[n][b]));
  }
  int frames;
  double plateau = plateau_seconds(&frames);
  printf("damping 1e6: max |d − 3| = %.3g m, max |x − x_rigid| = %.3g m, rest frames %d (20 N drive)\n", ddev, rdev,
         frames);
  CHECK_LE(ddev, 1e-3);
  CHECK_LE(rdev, 1e-3);
  run("1e6", "implicit", "1", "forces[0].force_amplitude=[10, 0]", NULL);
  CHECK(R.status == CLT_OK && R.steps == FRAMES - 1 && R.unsolved == 0);
  ddev = 0.0;
  for (int n = 0; n < FRAMES; n++) ddev = fmax(ddev, fabs(R.x[n][1] - R.x[n][0] - 3.0));
  plateau = plateau_seconds(&frames);
  printf("damping 1e6, 10 N drive: max |d − 3| = %.3g m, %d rest frames, longest plateau %.2f s\n", ddev, frames,
         plateau);
  CHECK_LE(ddev, 1e-3);
  CHECK(frames >= 20);
  CHECK(plateau >= 0.5);

  /* masses 1 and 1e8 (004 Fig. 6) */
  run("20", "implicit", "1e8", NULL, NULL);
  CHECK(R.status == CLT_OK && R.steps == FRAMES - 1 && R.unsolved == 0);
  double light = 0.0, heavy = 0.0;
  for (int n = 0; n < FRAMES; n++) {
    light = fmax(light, fabs(R.x[n][0] - R.x[0][0]));
    heavy = fmax(heavy, fabs(R.x[n][1] - R.x[0][1]));
  }
  plateau = plateau_seconds(&frames);
  printf("masses 1, 1e8, damping 20: light moves %.4g m, heavy %.3g m; %d rest frames, longest %.2f s\n", light,
         heavy, frames, plateau);
  CHECK(light > 0.5);
  CHECK_LE(heavy, 1e-6);
  CHECK(frames >= 10 && plateau >= 0.3);
  run("1e8", "implicit", "1e8", NULL, NULL);
  CHECK(R.status == CLT_OK && R.steps == FRAMES - 1 && R.unsolved == 0);
  light = heavy = 0.0;
  for (int n = 0; n < FRAMES; n++) {
    light = fmax(light, fabs(R.x[n][0] - R.x[0][0]));
    heavy = fmax(heavy, fabs(R.x[n][1] - R.x[0][1]));
  }
  printf("masses 1, 1e8, damping 1e8: light moves %.3g m, heavy %.3g m\n", light, heavy);
  CHECK_LE(light, 1e-5);
  CHECK_LE(heavy, 1e-6);
  resume_identical();
  return clt_test_finish();
}
