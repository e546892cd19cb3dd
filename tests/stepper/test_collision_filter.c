/* Collision filtering (docs/scene-format.md "Collision filtering"; world.h clt_collision_filter_t),
 * through scene files and the default method:
 *  - three categories over a floor: two spheres that only take the floor land on the same spot,
 *    through each other, untouched sideways; a sphere that excludes the floor's category falls
 *    through it exactly as in free fall;
 *  - groups: a positive shared group collides whatever the bits, a negative one never does;
 *  - two bodies overlapping at their joint: no contact and no penetration by default, contacts with
 *    collide_connected;
 *  - bad values: an error naming the JSON path. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/scene.h"
#include "clatter/world.h"
#include "test_util.h"

static char message[2048];

static clt_world_t *world_of(const char *text) {
  clt_scene_t *scene = NULL;
  clt_world_t *w = NULL;
  if (clt_scene_parse(text, "filter.json", NULL, &scene, message, sizeof message) != CLT_OK ||
      clt_scene_create_world(scene, NULL, NULL, &w, message, sizeof message) != CLT_OK)
    fprintf(stderr, "%s\n", message);
  clt_scene_destroy(scene);
  CHECK(w != NULL);
  return w;
}

static void position(const clt_world_t *w, int body, double p[3]) {
  clt_body_state_t s;
  CHECK(clt_body_get_state(w, clt_world_body_at(w, body), &s) == CLT_OK);
  memcpy(p, s.position, sizeof s.position);
}

/* Bodies: 0 floor; 1 p and 2 q (categories 2 and 4, mask 1: the floor only), started overlapping;
 * 3 r (category 8, every bit but the floor's); 4, 5 of group 7 with mask 0, 1 mm into each other;
 * 6, 7 of group −3 with the default bits, started overlapping. */
static const char *categories =
    "{\"name\": \"categories\", \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1,\n"
    " \"bodies\": [\n"
    "  {\"name\": \"floor\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, 1]}},\n"
    "  {\"name\": \"p\", \"position\": [0, 0, 0.5], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1, \"category\": 2, \"mask\": 1}},\n"
    "  {\"name\": \"q\", \"position\": [0.05, 0, 0.55], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1, \"category\": 4, \"mask\": 1}},\n"
    "  {\"name\": \"r\", \"position\": [2, 0, 0.5], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1, \"category\": 8,\n"
    "   \"mask\": 4294967294}},\n"
    "  {\"name\": \"g1\", \"position\": [4, 0, 5], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1, \"mask\": 0, \"group\": 7}},\n"
    "  {\"name\": \"g2\", \"position\": [4.199, 0, 5], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1, \"mask\": 0, \"group\": 7}},\n"
    "  {\"name\": \"n1\", \"position\": [6, 0, 0.5], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1, \"group\": -3}},\n"
    "  {\"name\": \"n2\", \"position\": [6.05, 0, 0.55], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1, \"group\": -3}}\n"
    " ]\n"
    "}\n";

static void three_categories(void) {
  clt_world_t *w = world_of(categories);
  if (!w) return;
  const double h = 0.01, g = 9.81;
  int steps = 100;
  double worst_fall = 0.0;
  for (int n = 1; n <= steps; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    double r[3];
    position(w, 3, r);
    /* semi-implicit Euler from rest: z_n = z_0 − g h² n(n + 1)/2 */
    double z = 0.5 - g * h * h * 0.5 * (double)n * (double)(n + 1);
    worst_fall = fmax(worst_fall, fabs(r[2] - z));
  }
  double p[3], q[3], g1[3], g2[3], n1[3], n2[3];
  position(w, 1, p);
  position(w, 2, q);
  position(w, 4, g1);
  position(w, 5, g2);
  position(w, 6, n1);
  position(w, 7, n2);
  double apart = sqrt((g1[0] - g2[0]) * (g1[0] - g2[0]) + (g1[1] - g2[1]) * (g1[1] - g2[1]) + (g1[2] - g2[2]) * (g1[2] - g2[2]));
  printf("categories: p at (%.3g, %.3g, %.9f), q at (%.3g, %.3g, %.9f); r through the floor, off free fall by %.3g m;\n"
         "  group 7 (mask 0) %.6f m apart (radii 0.1 each); group -3 at x %.3g and %.3g, z %.9f and %.9f\n",
         p[0], p[1], p[2], q[0], q[1], q[2], worst_fall, apart, n1[0], n2[0], n1[2], n2[2]);
  /* p and q rest on the floor where they fell, through each other */
  CHECK_NEAR(p[2], 0.1, 1e-6);
  CHECK_NEAR(q[2], 0.1, 1e-6);
  CHECK(p[0] == 0.0 && p[1] == 0.0 && q[0] == 0.05 && q[1] == 0.0);
  /* r falls through the floor */
  CHECK_LE(worst_fall, 1e-12);
  /* a shared positive group collides although mask 0 lets nothing else in */
  CHECK_LE(0.2 - 1e-6, apart);
  /* a shared negative group never collides, although the bits would */
  CHECK_NEAR(n1[2], 0.1, 1e-6);
  CHECK_NEAR(n2[2], 0.1, 1e-6);
  CHECK(n1[0] == 6.0 && n2[0] == 6.05 && n1[1] == 0.0 && n2[1] == 0.0);
  clt_world_destroy(w);
}

/* Two 1 m bars without gravity, overlapping by 0.2 m around the spherical joint that links them. */
static void joined_bodies(bool collide_connected) {
  char text[2048];
  snprintf(text, sizeof text,
           "{\"name\": \"joined\", \"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.1, \"gravity\": [0, 0, 0],\n"
           " \"bodies\": [\n"
           "  {\"name\": \"a\", \"position\": [0, 0, 0], \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.1, 0.1]}},\n"
           "  {\"name\": \"b\", \"position\": [0.8, 0, 0], \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.1, 0.1]}}\n"
           " ],\n"
           " \"joints\": [{\"type\": \"spherical\", \"body_a\": \"a\", \"body_b\": \"b\", \"anchor_a\": [0.4, 0, 0],\n"
           "   \"anchor_b\": [-0.4, 0, 0]%s}]\n"
           "}\n",
           collide_connected ? ", \"collide_connected\": true" : "");
  clt_world_t *w = world_of(text);
  if (!w) return;
  clt_joint_info_t j;
  CHECK(clt_joint_get_info(w, clt_world_joint_at(w, 0), &j) == CLT_OK && j.collide_connected == collide_connected);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  printf("bars overlapping at their joint, collide_connected %s: %d contacts, penetration %.3g m\n",
         collide_connected ? "true" : "false", d.contacts, d.penetration);
  if (collide_connected) {
    CHECK(d.contacts > 0);
    CHECK_LE(0.01, d.penetration); /* the overlap counts: 0.2 m less what one step undid */
  } else {
    CHECK(d.contacts == 0);
    CHECK(d.penetration == 0.0);
  }
  clt_world_destroy(w);
}

static void bad_values(void) {
  static const struct {
    const char *shape_extra, *joint_extra, *expected;
  } cases[] = {
      {", \"category\": -1", "", "bodies[1].shape.category: must be between 0 and 4294967295 (got -1)"},
      {", \"mask\": 4294967296", "", "bodies[1].shape.mask: must be between 0 and 4294967295 (got 4294967296)"},
      {", \"group\": 1.5", "", "bodies[1].shape.group: must be an integer (got 1.5)"},
      {", \"mask\": \"all\"", "", "bodies[1].shape.mask: must be a number"},
      {"", ", \"collide_connected\": \"yes\"", "joints[0].collide_connected: must be true or false"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[2048];
    snprintf(text, sizeof text,
             "{\"name\": \"bad\", \"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.1,\n"
             " \"bodies\": [{\"name\": \"a\", \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}},\n"
             "  {\"name\": \"b\", \"position\": [1, 0, 0], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1%s}}],\n"
             " \"joints\": [{\"type\": \"distance\", \"body_a\": \"a\", \"body_b\": \"b\"%s}]\n"
             "}\n",
             cases[i].shape_extra, cases[i].joint_extra);
    clt_scene_t *scene = NULL;
    clt_status_t st = clt_scene_parse(text, "bad.json", NULL, &scene, message, sizeof message);
    printf("bad value %zu: %s\n", i, message);
    CHECK(st != CLT_OK);
    CHECK(strstr(message, cases[i].expected) != NULL);
    clt_scene_destroy(scene);
  }
}

int main(void) {
  three_categories();
  joined_bodies(false);
  joined_bodies(true);
  bad_values();
  return clt_test_finish();
}
