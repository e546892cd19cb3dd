/* 6-link chain (SPEC.md §8 "chain6", 001 §VI.A): links of 100 mm joined by spherical joints, the
 * first to the world, released horizontally, h = 1 ms, 600 steps. Max joint error per scheme (the
 * table of issue 4), with the orderings required:
 *   post ≤ 0.01 mm; anitescu-hart ≥ 10× below none and below baumgarte α = 200;
 *   none > baumgarte α = 50 > baumgarte α = 200.
 * α = 2000 (αh = 2) overcorrects: the velocity row asks ν v⁺ = −αΘ, so Θ⁺ ≈ (1 − αh) Θ + d = −Θ + d
 * (d = O(h²‖v‖²) the drift of one step). From the exact horizontal start the homogeneous part is
 * nil and Θ just follows d/2; any error present — here the last link starts 1 mm off its joint —
 * then flips sign every step without decaying (marginal stability, the jitter 001 reports), while
 * α = 200 damps it by 0.8 per step and anitescu-hart removes it in one step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/world.h"
#include "constraints/joint.h"
#include "test_util.h"

#define LINKS 6
#define LINK_LENGTH 0.1
#define STEPS 600

static clt_world_t *chain(clt_scheme_t scheme, double alpha, int post_repeats, double offset) {
  clt_world_def_t wd = clt_default_world_def(); /* 3D, h = 1 ms, gravity −z */
  wd.method.scheme = scheme;
  wd.method.alpha = alpha;
  wd.method.post_repeats = post_repeats;
  clt_world_t *w = NULL;
  char msg[256];
  if (clt_world_create(&wd, &w, msg, sizeof msg) != CLT_OK) {
    fprintf(stderr, "world: %s\n", msg);
    exit(1);
  }
  clt_body_id_t previous = clt_world_ground();
  for (int i = 0; i < LINKS; i++) {
    clt_body_def_t bd = clt_default_body_def();
    /* a 100 × 10 × 10 mm bar of 0.1 kg */
    bd.mass = 0.1;
    bd.inertia[0] = 0.1 * (0.01 * 0.01 + 0.01 * 0.01) / 12.0;
    bd.inertia[1] = bd.inertia[2] = 0.1 * (LINK_LENGTH * LINK_LENGTH + 0.01 * 0.01) / 12.0;
    bd.position[0] = LINK_LENGTH * (i + 0.5) + (i == LINKS - 1 ? offset : 0.0);
    clt_body_id_t id;
    CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
    clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_SPHERICAL);
    jd.body_a = id;
    jd.anchor_a[0] = -0.5 * LINK_LENGTH;
    jd.body_b = previous;
    jd.anchor_b[0] = clt_body_id_is_null(previous) ? 0.0 : 0.5 * LINK_LENGTH;
    CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
    previous = id;
  }
  return w;
}

typedef struct result_t {
  double max_error;   /* [m] */
  double last_error;  /* [m], max over the last 100 steps */
  double flip_share;  /* share of steps where the dominant joint-error component changes sign */
  int failures;
} result_t;

/* The signed component of Θ with the largest magnitude over all joints. */
static double dominant_error(const clt_world_t *w) {
  double best = 0.0;
  for (int j = 0; j < w->joint_count; j++) {
    double theta[6];
    int n = clt_joint_constraint(w, &w->joints[j], theta);
    for (int k = 0; k < n; k++)
      if (fabs(theta[k]) > fabs(best)) best = theta[k];
  }
  return best;
}

static result_t run(clt_scheme_t scheme, double alpha, int post_repeats, double offset) {
  clt_world_t *w = chain(scheme, alpha, post_repeats, offset);
  result_t r = {0.0, 0.0, 0.0, 0};
  double previous = 0.0;
  int flips = 0, counted = 0;
  for (int n = 0; n < STEPS; n++) {
    if (clt_world_step(w) != CLT_OK) {
      if (r.failures++ == 0) fprintf(stderr, "step %d: %s\n", n, clt_world_error(w));
      break;
    }
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED) r.failures++;
    if (d.joint_error > r.max_error) r.max_error = d.joint_error;
    if (n >= STEPS - 100 && d.joint_error > r.last_error) r.last_error = d.joint_error;
    double e = dominant_error(w);
    if (n > 0 && fabs(e) > 1e-12 && fabs(previous) > 1e-12) {
      counted++;
      if ((e > 0.0) != (previous > 0.0)) flips++;
    }
    previous = e;
  }
  r.flip_share = counted > 0 ? (double)flips / counted : 0.0;
  clt_world_destroy(w);
  return r;
}

int main(void) {
  result_t none = run(CLT_SCHEME_NONE, 0.0, 0, 0.0);
  result_t b50 = run(CLT_SCHEME_BAUMGARTE, 50.0, 0, 0.0);
  result_t b200 = run(CLT_SCHEME_BAUMGARTE, 200.0, 0, 0.0);
  result_t b2000 = run(CLT_SCHEME_BAUMGARTE, 2000.0, 0, 0.0);
  result_t post = run(CLT_SCHEME_POST, 0.0, 0, 0.0);
  result_t ah = run(CLT_SCHEME_ANITESCU_HART, 0.0, 0, 0.0);
  printf("chain6, h = 1 ms, 600 steps: max joint error [mm] (share of steps where the dominant error flips sign)\n");
  printf("  none              %10.6f  (%.2f)\n", 1e3 * none.max_error, none.flip_share);
  printf("  baumgarte a=50    %10.6f  (%.2f)\n", 1e3 * b50.max_error, b50.flip_share);
  printf("  baumgarte a=200   %10.6f  (%.2f)\n", 1e3 * b200.max_error, b200.flip_share);
  printf("  baumgarte a=2000  %10.6f  (%.2f)\n", 1e3 * b2000.max_error, b2000.flip_share);
  printf("  post              %10.6f  (%.2f)\n", 1e3 * post.max_error, post.flip_share);
  printf("  anitescu-hart     %10.6f  (%.2f)\n", 1e3 * ah.max_error, ah.flip_share);
  CHECK(none.failures + b50.failures + b200.failures + b2000.failures + post.failures + ah.failures == 0);
  CHECK_LE(post.max_error, 1e-5);
  CHECK_LE(10.0 * ah.max_error, none.max_error);
  CHECK_LE(ah.max_error, b200.max_error);
  CHECK_LE(b50.max_error, none.max_error);
  CHECK_LE(b200.max_error, b50.max_error);

  /* the same with the last link 1 mm off its joint at t = 0 */
  const double offset = 1e-3;
  result_t o_none = run(CLT_SCHEME_NONE, 0.0, 0, offset);
  result_t o200 = run(CLT_SCHEME_BAUMGARTE, 200.0, 0, offset);
  result_t o2000 = run(CLT_SCHEME_BAUMGARTE, 2000.0, 0, offset);
  result_t o_post = run(CLT_SCHEME_POST, 0.0, 0, offset);
  result_t o_ah = run(CLT_SCHEME_ANITESCU_HART, 0.0, 0, offset);
  printf("chain6 with a 1 mm initial error: max joint error over the last 100 steps [mm] (sign flips)\n");
  printf("  none              %10.6f  (%.2f)\n", 1e3 * o_none.last_error, o_none.flip_share);
  printf("  baumgarte a=200   %10.6f  (%.2f)\n", 1e3 * o200.last_error, o200.flip_share);
  printf("  baumgarte a=2000  %10.6f  (%.2f)\n", 1e3 * o2000.last_error, o2000.flip_share);
  printf("  post              %10.6f  (%.2f)\n", 1e3 * o_post.last_error, o_post.flip_share);
  printf("  anitescu-hart     %10.6f  (%.2f)\n", 1e3 * o_ah.last_error, o_ah.flip_share);
  CHECK(o_none.failures + o200.failures + o2000.failures + o_post.failures + o_ah.failures == 0);
  CHECK(o2000.flip_share > 0.95);      /* αh = 2: Θ⁺ ≈ −Θ every step */
  CHECK_LE(0.9 * offset, o2000.last_error); /* ... and it does not decay */
  CHECK(o200.flip_share < 0.05);
  CHECK(o_ah.flip_share < 0.05);
  CHECK_LE(o_ah.last_error, 1e-5);     /* removed at once, then O(h²‖v‖²) */
  CHECK_LE(o_post.last_error, 1e-5);
  CHECK_LE(offset, o_none.last_error); /* never corrected */
  return clt_test_finish();
}
