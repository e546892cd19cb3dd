/* Restitution and kinematic bodies under the `relaxed` scheme (SPEC.md §1 "Restitution", §0 body
 * kinds; docs/stepping.md "Restitution (the exact rule)", "The relaxed scheme"): what the Brazil-nut
 * scenes (scenes/papers/brazilnut.json, brazilnut2d.json) rely on.
 *  1. A ball dropped on a kinematic floor (at rest) with e_N = 0.5 rebounds at half its impact speed.
 *  2. A kinematic floor moving up at constant speed carries a resting body at that speed.
 *  3. A floor shaken vertically below 1 g (Γ = Aω²/g = 0.4) carries a resting body along x(t)
 *     without a gap or overlap (the kinematic body enters each step with its mean velocity).
 *  4. A composite kinematic container (floor and four walls as five boxes of one body) moving
 *     sideways catches a frictionless ball and pushes it at its own speed, plastically (e_N = 0).
 *  5. The same container shaken at Γ = 3 throws a ball up; with e_N = 0.5 the ball's rebounds from the
 *     container floor keep the restitution ratio relative to the floor's velocity. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/scene.h"
#include "test_util.h"

static char message[2048];

static clt_world_t *world_from(const char *text) {
  clt_scene_t *scene = NULL;
  if (clt_scene_parse(text, "restitution.json", NULL, &scene, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "parse: %s\n", message);
    return NULL;
  }
  clt_world_t *world = NULL;
  if (clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) != CLT_OK)
    fprintf(stderr, "build: %s\n", message);
  clt_scene_destroy(scene);
  return world;
}

static clt_body_state_t body(clt_world_t *w, int i) {
  clt_body_state_t s;
  memset(&s, 0, sizeof s);
  clt_body_get_state(w, clt_world_body_at(w, i), &s);
  return s;
}

/* 1. Ball from 1 m on a kinematic floor at rest, e_N = 0.5: ratio of the first rebound speed to the
 * impact speed. */
static void test_bounce_on_kinematic_floor(void) {
  const char *text =
      "{\"dimension\": 3, \"time_step\": 0.001, \"duration\": 1,"
      " \"method\": {\"scheme\": \"relaxed\", \"solver\": \"apgd\", \"tolerance\": 1e-10},"
      " \"materials\": {\"default\": {\"friction\": 0.5, \"restitution\": 0.5}},"
      " \"bodies\": ["
      "  {\"type\": \"kinematic\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, 1]}},"
      "  {\"position\": [0, 0, 1.1], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}]}";
  clt_world_t *w = world_from(text);
  CHECK(w != NULL);
  if (!w) return;
  double impact = 0, rebound = 0, peak_after = 0;
  bool bounced = false;
  for (int k = 0; k < 1200; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t s = body(w, 1);
    if (!bounced) {
      if (s.velocity[2] < impact) impact = s.velocity[2];
      if (s.velocity[2] > 0) bounced = true;
    }
    if (bounced && s.velocity[2] > rebound) rebound = s.velocity[2];
    if (bounced && s.position[2] - 0.1 > peak_after) peak_after = s.position[2] - 0.1;
  }
  printf("kinematic floor: impact %.6f m/s, rebound %.6f m/s, ratio %.4f, rebound height %.4f m\n", impact,
         rebound, -rebound / impact, peak_after);
  CHECK(bounced);
  CHECK_NEAR(-rebound / impact, 0.5, 0.01);
  CHECK_NEAR(peak_after, 0.25, 0.01); /* e_N² of the 1 m drop */
  clt_world_destroy(w);
}

/* 2. A kinematic floor rising at 0.5 m/s carries a box resting on it. */
static void test_rising_floor_carries(void) {
  const char *text =
      "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 1,"
      " \"method\": {\"scheme\": \"relaxed\", \"solver\": \"apgd\", \"tolerance\": 1e-10},"
      " \"bodies\": ["
      "  {\"type\": \"kinematic\", \"motion\": {\"velocity\": [0, 0, 0.5]},"
      "   \"shape\": {\"type\": \"box\", \"half_extents\": [1, 1, 0.1]}},"
      "  {\"position\": [0, 0, 0.2], \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}}]}";
  clt_world_t *w = world_from(text);
  CHECK(w != NULL);
  if (!w) return;
  double worst_gap = 0, worst_speed = 0;
  for (int k = 0; k < 200; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t floor = body(w, 0), box = body(w, 1);
    double gap = (box.position[2] - 0.1) - (floor.position[2] + 0.1);
    if (k >= 5) {
      worst_gap = fmax(worst_gap, fabs(gap));
      worst_speed = fmax(worst_speed, fabs(box.velocity[2] - 0.5));
    }
  }
  clt_body_state_t floor = body(w, 0);
  printf("rising floor: floor at %.4f m, worst |gap| %.3g m, worst |v - 0.5| %.3g m/s\n", floor.position[2],
         worst_gap, worst_speed);
  CHECK_NEAR(floor.position[2], 1.0, 1e-12);
  CHECK_LE(worst_gap, 1e-6);
  CHECK_LE(worst_speed, 1e-6);
  clt_world_destroy(w);
}

/* 3. Floor shaken at A = 0.02 m, f = 2.25 Hz: Γ = A(2πf)²/g ≈ 0.41 < 1, the box never leaves it. */
static void test_gentle_shaking_carries(void) {
  const char *text =
      "{\"dimension\": 3, \"time_step\": 0.005, \"duration\": 1,"
      " \"method\": {\"scheme\": \"relaxed\", \"solver\": \"apgd\", \"tolerance\": 1e-10},"
      " \"bodies\": ["
      "  {\"type\": \"kinematic\", \"motion\": {\"amplitude\": [0, 0, 0.02], \"frequency\": 2.25},"
      "   \"shape\": {\"type\": \"box\", \"half_extents\": [1, 1, 0.1]}},"
      "  {\"position\": [0, 0, 0.2], \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}}]}";
  clt_world_t *w = world_from(text);
  CHECK(w != NULL);
  if (!w) return;
  double worst_gap = 0, worst_speed = 0;
  for (int k = 0; k < 400; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t floor = body(w, 0), box = body(w, 1);
    double gap = (box.position[2] - 0.1) - (floor.position[2] + 0.1);
    worst_gap = fmax(worst_gap, fabs(gap));
    worst_speed = fmax(worst_speed, fabs(box.velocity[2] - floor.velocity[2]));
  }
  printf("shaken floor (Gamma 0.41): worst |gap| %.3g m, worst relative speed %.3g m/s\n", worst_gap, worst_speed);
  /* The floor enters each step with its mean velocity over the step (step_work.c), so the box
   * follows its position exactly; its velocity is that mean, which differs from the floor's
   * velocity at the step's end by at most h·Aω². (With the floor's velocity at the step's start
   * the gap was 5e-5 m.) */
  CHECK_LE(worst_gap, 1e-9);
  CHECK_LE(worst_speed, 0.005 * 0.02 * pow(2 * 3.14159265358979 * 2.25, 2) + 1e-9);
  clt_world_destroy(w);
}

/* A 1 m × 1 m container (floor and four walls: five boxes of one kinematic body). */
#define CONTAINER_SHAPES                                                                                  \
  "\"shapes\": ["                                                                                         \
  " {\"type\": \"box\", \"half_extents\": [0.6, 0.6, 0.05], \"position\": [0, 0, -0.05]},"                  \
  " {\"type\": \"box\", \"half_extents\": [0.05, 0.6, 0.5], \"position\": [-0.55, 0, 0.5]},"                \
  " {\"type\": \"box\", \"half_extents\": [0.05, 0.6, 0.5], \"position\": [0.55, 0, 0.5]},"                 \
  " {\"type\": \"box\", \"half_extents\": [0.5, 0.05, 0.5], \"position\": [0, -0.55, 0.5]},"                \
  " {\"type\": \"box\", \"half_extents\": [0.5, 0.05, 0.5], \"position\": [0, 0.55, 0.5]}]"

/* 4. Container moving at 0.3 m/s in x; a frictionless ball at rest inside is caught by the wall at
 * x = −0.5 and then moves with it (e_N = 0), staying inside. ε̂ = 1 cm ≥ h·0.3 m/s: the wall is in
 * the active set before it reaches the ball (with the default 1 mm it would arrive 2 mm deep and
 * the stabilization term Φ/h would kick the ball off at 0.5 m/s). */
static void test_composite_container_pushes(void) {
  const char *text =
      "{\"dimension\": 3, \"time_step\": 0.01, \"duration\": 1,"
      " \"method\": {\"scheme\": \"relaxed\", \"solver\": \"apgd\", \"tolerance\": 1e-10, \"active_set_eps\": 0.01},"
      " \"materials\": {\"default\": {\"friction\": 0}},"
      " \"bodies\": ["
      "  {\"type\": \"kinematic\", \"motion\": {\"velocity\": [0.3, 0, 0]}, " CONTAINER_SHAPES "},"
      "  {\"position\": [0, 0, 0.1], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}]}";
  clt_world_t *w = world_from(text);
  CHECK(w != NULL);
  if (!w) return;
  for (int k = 0; k < 300; k++) CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t box = body(w, 0), ball = body(w, 1);
  double rel = ball.position[0] - box.position[0];
  printf("pushed by the container: container x %.4f, ball relative x %.6f (wall at -0.4), v %.6f m/s\n",
         box.position[0], rel, ball.velocity[0]);
  CHECK_NEAR(box.position[0], 0.9, 1e-12);
  CHECK_NEAR(rel, -0.4, 1e-6);
  CHECK_NEAR(ball.velocity[0], 0.3, 1e-6);
  CHECK_NEAR(ball.position[2], 0.1, 1e-6);
  clt_world_destroy(w);
}

/* Total normal impulse on body 1 from body 0 in the last step. */
static double floor_impulse(clt_world_t *w) {
  double cn = 0;
  for (int i = 0; i < clt_world_contact_count(w); i++) {
    clt_contact_info_t c;
    if (clt_world_get_contact(w, i, &c) == CLT_OK && c.body_a == 0 && c.body_b == 1) cn += c.normal_impulse;
  }
  return cn;
}

/* 5. The container shaken vertically at Γ = 3 (A = 0.05 m, f = 3.8985 Hz) with e_N = 0.5: the ball
 * leaves the floor every cycle. At each impact (the first step with a floor impulse after a flight;
 * relative approach speed w⁻ = (v_ball − v_floor) before it) the relative speed after the rebound
 * step (the lagged rule: the step after the impact) is ≈ 0.5 |w⁻|, less the relative acceleration
 * (g + floor) over those two steps (≤ 4 g · 2h = 0.04 m/s). */
static void test_shaken_container_restitution(void) {
  const char *text =
      "{\"dimension\": 3, \"time_step\": 0.0005, \"duration\": 1,"
      " \"method\": {\"scheme\": \"relaxed\", \"solver\": \"apgd\", \"tolerance\": 1e-10, \"active_set_eps\": 0.01},"
      " \"materials\": {\"default\": {\"friction\": 0.5, \"restitution\": 0.5}},"
      " \"bodies\": ["
      "  {\"type\": \"kinematic\", \"motion\": {\"amplitude\": [0, 0, 0.05], \"frequency\": 3.8985}, " CONTAINER_SHAPES
      "},"
      "  {\"position\": [0, 0, 0.1], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}]}";
  clt_world_t *w = world_from(text);
  CHECK(w != NULL);
  if (!w) return;
  int impacts = 0, free_steps = 0, since_impact = -1;
  double worst = 0, prev_rel = 0, approach = 0;
  for (int k = 0; k < 4000; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t box = body(w, 0), ball = body(w, 1);
    double rel = ball.velocity[2] - box.velocity[2];
    double cn = floor_impulse(w);
    if (since_impact >= 0 && ++since_impact == 2) {
      if (approach < -0.5) {
        impacts++;
        double ratio = rel / -approach;
        worst = fmax(worst, fabs(ratio - 0.5));
        printf("  impact %d: approach %.4f m/s, separation %.4f m/s, ratio %.4f\n", impacts, approach, rel, ratio);
      }
      since_impact = -1;
    }
    if (cn > 0 && free_steps >= 20 && since_impact < 0) {
      approach = prev_rel;
      since_impact = 0;
    }
    free_steps = cn > 0 ? 0 : free_steps + 1;
    prev_rel = rel;
  }
  printf("shaken container (Gamma 3, e_N 0.5): %d impacts, worst |ratio - 0.5| %.4f\n", impacts, worst);
  CHECK(impacts >= 2);
  CHECK_LE(worst, 0.08);
  clt_world_destroy(w);
}

int main(void) {
  test_bounce_on_kinematic_floor();
  test_rising_floor_carries();
  test_gentle_shaking_carries();
  test_composite_container_pushes();
  test_shaken_container_restitution();
  return clt_test_finish();
}
