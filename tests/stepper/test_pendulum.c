/* 2D pendulum (SPEC.md §8 "pendulum", 000 §5): a body of mass 1 on a revolute joint to the world,
 * released horizontally, h = 0.1, 1000 steps.
 *  - `none` (Υ = 0) drifts: its joint error at the end is > 100× that of `anitescu-hart`;
 *  - `anitescu-hart` (Υ = Θ/h): 000 Theorem 4.1, I(q⁽ˡ⁺¹⁾) ≤ C (h‖v⁽ˡ⁺¹⁾‖)²: the ratio stays
 *    bounded (the circle's geometry gives ≈ 1/(2L) for a point moving tangentially);
 *  - `baumgarte` and `post` sit in between / at the projection's accuracy;
 *  - a checkpoint taken mid-run continues bit-identically. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

#define LENGTH 1.0

static clt_world_t *pendulum(clt_scheme_t scheme, double h) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.time_step = h;
  wd.gravity[0] = 0.0;
  wd.gravity[1] = -9.81;
  wd.gravity[2] = 0.0;
  wd.method.scheme = scheme;
  wd.method.alpha = 2.0; /* baumgarte: αh = 0.2 */
  wd.method.post_repeats = 5; /* post: Gauss–Newton passes until I ≤ post_tolerance (1e-9) */
  clt_world_t *w = NULL;
  char msg[256];
  if (clt_world_create(&wd, &w, msg, sizeof msg) != CLT_OK) {
    fprintf(stderr, "world: %s\n", msg);
    exit(1);
  }
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = 0.01;
  bd.position[0] = LENGTH;
  clt_body_id_t bob;
  CHECK(clt_world_add_body(w, &bd, &bob) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = bob;
  jd.anchor_a[0] = -LENGTH; /* the pivot, in the body frame */
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  return w;
}

typedef struct run_t {
  double final_error;
  double max_error;
  double max_ratio; /* max over steps of I(q⁽ˡ⁺¹⁾) / (h ‖v⁽ˡ⁺¹⁾‖)² */
  int failures;
} run_t;

static run_t run(clt_scheme_t scheme, int steps) {
  double h = 0.1;
  clt_world_t *w = pendulum(scheme, h);
  clt_body_id_t bob = clt_world_body_at(w, 0);
  run_t r = {0.0, 0.0, 0.0, 0};
  for (int n = 0; n < steps; n++) {
    if (clt_world_step(w) != CLT_OK) {
      if (r.failures++ == 0) fprintf(stderr, "step %d: %s\n", n, clt_world_error(w));
      break;
    }
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    clt_body_state_t s;
    clt_body_get_state(w, bob, &s);
    double v2 = s.velocity[0] * s.velocity[0] + s.velocity[1] * s.velocity[1] +
                s.angular_velocity[0] * s.angular_velocity[0];
    if (d.solver_status != CLT_SOLVE_SOLVED) r.failures++;
    if (d.infeasibility > r.max_error) r.max_error = d.infeasibility;
    if (v2 > 0.0 && d.infeasibility / (h * h * v2) > r.max_ratio) r.max_ratio = d.infeasibility / (h * h * v2);
    r.final_error = d.joint_error;
  }
  clt_world_destroy(w);
  return r;
}

static void checkpoint_continuation(void) {
  clt_world_t *a = pendulum(CLT_SCHEME_ANITESCU_HART, 0.1), *b = pendulum(CLT_SCHEME_ANITESCU_HART, 0.1);
  for (int n = 0; n < 37; n++) clt_world_step(a);
  size_t size = clt_world_state_size(a);
  void *blob = malloc(size);
  CHECK(clt_world_save_state(a, blob, size) == CLT_OK);
  CHECK(clt_world_load_state(b, blob, size) == CLT_OK);
  for (int n = 0; n < 100; n++) {
    clt_world_step(a);
    clt_world_step(b);
  }
  CHECK(clt_world_state_hash(a) == clt_world_state_hash(b));
  free(blob);
  clt_world_destroy(a);
  clt_world_destroy(b);
}

int main(void) {
  run_t none = run(CLT_SCHEME_NONE, 1000);
  run_t ah = run(CLT_SCHEME_ANITESCU_HART, 1000);
  run_t baum = run(CLT_SCHEME_BAUMGARTE, 1000);
  run_t post = run(CLT_SCHEME_POST, 1000);
  printf("pendulum h = 0.1, 1000 steps: joint error at the end / max\n");
  printf("  none           %.3e / %.3e\n", none.final_error, none.max_error);
  printf("  anitescu-hart  %.3e / %.3e   max I/(h|v|)^2 = %.4f\n", ah.final_error, ah.max_error, ah.max_ratio);
  printf("  baumgarte a=2  %.3e / %.3e\n", baum.final_error, baum.max_error);
  printf("  post           %.3e / %.3e\n", post.final_error, post.max_error);
  printf("  none / anitescu-hart at the end: %.3g\n", none.final_error / ah.final_error);
  CHECK(none.failures == 0 && ah.failures == 0 && baum.failures == 0 && post.failures == 0);
  CHECK(none.final_error > 100.0 * ah.final_error);
  CHECK(ah.max_ratio < 1.0); /* bounded: ≈ 1/(2L) = 0.5 for the geometry of the circle */
  CHECK(baum.final_error < none.final_error);
  CHECK(post.max_error < 1e-8);
  checkpoint_continuation();
  return clt_test_finish();
}
