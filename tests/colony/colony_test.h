/* Shared set-up of the colony tests: a 3D world without gravity for a colony of cells. */
#ifndef CLATTER_TESTS_COLONY_TEST_H
#define CLATTER_TESTS_COLONY_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "clatter/colony.h"
#include "clatter/world.h"

/* law: CLT_LAW_OVERDAMPED / INERTIAL; model: the contact model (ReLCP family or default). */
static inline clt_world_t *colony_test_world(bool planar, clt_law_t law, clt_contact_model_t model, double h) {
  clt_world_def_t wd = clt_default_world_def();
  wd.gravity[2] = 0.0;
  wd.time_step = h;
  wd.planar = planar;
  wd.law = law;
  wd.viscosity = 1.0;
  wd.method.contact_model = model;
  wd.method.overlap_tolerance = 1e-3;
  clt_world_t *w = NULL;
  char msg[256];
  if (clt_world_create(&wd, &w, msg, sizeof msg) != CLT_OK) {
    fprintf(stderr, "world: %s\n", msg);
    exit(1);
  }
  return w;
}

/* The colony of the reproducibility and checkpoint tests: d 1, division at 3, τ 1, turns of up to
 * 0.1 rad, the first cell's axis off the coordinate axes. */
static inline clt_colony_def_t colony_test_def(uint64_t seed) {
  clt_colony_def_t cd = clt_default_colony_def();
  cd.diameter = 1.0;
  cd.division_length = 3.0;
  cd.growth_time = 1.0;
  cd.max_reorientation = 0.1;
  cd.seed = seed;
  cd.initial_axis[1] = 0.3;
  return cd;
}

#endif
