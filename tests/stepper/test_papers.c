/* The scenes of SPEC.md §8 in scenes/papers/ (read through the scene reader, variants by
 * --set-style overrides), run to the end, with issue 4's acceptance checks:
 *  - pendulum: joint error at the end with `none` > 100× that of `anitescu-hart`;
 *  - chain6: post ≤ 0.01 mm; anitescu-hart ≥ 10× below none and below baumgarte α = 200;
 *    none > baumgarte α = 50 > baumgarte α = 200;
 *  - ellipse: infeasibility at t = 20 s at least 100× smaller with `anitescu-hart` than `none`;
 *  - disks21: the stabilized run's maximum infeasibility below the unstabilized one. */
#include <stdio.h>
#include <string.h>

#include "clatter/scene.h"
#include "clatter/world.h"
#include "test_util.h"

typedef struct outcome_t {
  double final_infeasibility, max_infeasibility, final_joint_error, max_joint_error;
  int steps, bad_steps;
} outcome_t;

static outcome_t run(const char *scene_name, const char *scheme, const char *extra) {
  outcome_t o;
  memset(&o, 0, sizeof o);
  char path[1024], set_scheme[128];
  snprintf(path, sizeof path, "%s/scenes/papers/%s.json", clt_test_env("CLATTER_SOURCE_DIR"), scene_name);
  snprintf(set_scheme, sizeof set_scheme, "method.scheme=%s", scheme);
  const char *sets[2] = {set_scheme, extra};
  clt_scene_overrides_t ov = {sets, extra ? 2 : 1, NULL, 0};
  clt_scene_t *scene = NULL;
  clt_world_t *w = NULL;
  char msg[512];
  if (clt_scene_load(path, &ov, &scene, msg, sizeof msg) != CLT_OK ||
      clt_scene_create_world(scene, NULL, NULL, &w, msg, sizeof msg) != CLT_OK) {
    fprintf(stderr, "%s: %s\n", path, msg);
    o.bad_steps = 1;
    clt_scene_destroy(scene);
    return o;
  }
  int64_t steps = clt_scene_step_count(scene);
  for (int64_t n = 0; n < steps; n++) {
    if (clt_world_step(w) != CLT_OK) {
      fprintf(stderr, "%s %s step %lld: %s\n", scene_name, scheme, (long long)n, clt_world_error(w));
      o.bad_steps++;
      break;
    }
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    /* a ray or a solver that did not apply; an inexact Lemke basis (not_converged, residual ≤ 1e-6) is
     * tolerated and counted separately by the diagnostics */
    bool short_of = d.solver_status == CLT_SOLVE_ERROR || d.solver_status == CLT_SOLVE_NOT_CONVERGED;
    if (d.solver_status == CLT_SOLVE_RAY || (short_of && !(d.residual <= 1e-6)))
      o.bad_steps++;
    o.steps++;
    o.final_infeasibility = d.infeasibility;
    o.final_joint_error = d.joint_error;
    if (d.infeasibility > o.max_infeasibility) o.max_infeasibility = d.infeasibility;
    if (d.joint_error > o.max_joint_error) o.max_joint_error = d.joint_error;
  }
  clt_world_destroy(w);
  clt_scene_destroy(scene);
  return o;
}

int main(void) {
  outcome_t p_none = run("pendulum", "none", NULL), p_ah = run("pendulum", "anitescu-hart", NULL);
  printf("pendulum: joint error at the end none %.3e, anitescu-hart %.3e\n", p_none.final_joint_error,
         p_ah.final_joint_error);
  CHECK(p_none.steps == 1000 && p_ah.steps == 1000);
  CHECK(p_none.final_joint_error > 100.0 * p_ah.final_joint_error);

  outcome_t none = run("chain6", "none", NULL);
  outcome_t b50 = run("chain6", "baumgarte", "method.alpha=50");
  outcome_t b200 = run("chain6", "baumgarte", "method.alpha=200");
  outcome_t b2000 = run("chain6", "baumgarte", "method.alpha=2000");
  outcome_t post = run("chain6", "post", NULL);
  outcome_t ah = run("chain6", "anitescu-hart", NULL);
  printf("chain6 max joint error [mm]: none %.4f, baumgarte 50 %.4f, 200 %.4f, 2000 %.4f, post %.2e, "
         "anitescu-hart %.4f\n", 1e3 * none.max_joint_error, 1e3 * b50.max_joint_error, 1e3 * b200.max_joint_error,
         1e3 * b2000.max_joint_error, 1e3 * post.max_joint_error, 1e3 * ah.max_joint_error);
  CHECK(none.steps == 600 && post.steps == 600 && ah.steps == 600 && b2000.steps == 600);
  CHECK_LE(post.max_joint_error, 1e-5);
  CHECK_LE(10.0 * ah.max_joint_error, none.max_joint_error);
  CHECK_LE(ah.max_joint_error, b200.max_joint_error);
  CHECK_LE(b50.max_joint_error, none.max_joint_error);
  CHECK_LE(b200.max_joint_error, b50.max_joint_error);

  outcome_t e_none = run("ellipse", "none", NULL), e_ah = run("ellipse", "anitescu-hart", NULL);
  printf("ellipse: infeasibility at t = 20 s none %.3e, anitescu-hart %.3e (ratio %.0f); max %.3e / %.3e\n",
         e_none.final_infeasibility, e_ah.final_infeasibility, e_none.final_infeasibility / e_ah.final_infeasibility,
         e_none.max_infeasibility, e_ah.max_infeasibility);
  CHECK(e_none.steps == 400 && e_ah.steps == 400);
  CHECK(e_none.bad_steps == 0 && e_ah.bad_steps == 0);
  CHECK_LE(100.0 * e_ah.final_infeasibility, e_none.final_infeasibility);

  outcome_t d_none = run("disks21", "none", NULL), d_ah = run("disks21", "anitescu-hart", NULL);
  printf("disks21: max infeasibility none %.3e, anitescu-hart %.3e; at the end %.3e / %.3e\n",
         d_none.max_infeasibility, d_ah.max_infeasibility, d_none.final_infeasibility, d_ah.final_infeasibility);
  CHECK(d_none.steps == 400 && d_ah.steps == 400);
  CHECK(d_none.bad_steps == 0 && d_ah.bad_steps == 0);
  CHECK_LE(d_ah.max_infeasibility, d_none.max_infeasibility);
  return clt_test_finish();
}
