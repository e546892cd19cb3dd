/* Tests of what the library does with a state past the API's limits (world.h "Limits on
 * magnitudes": clt_body_set_state and clt_world_add_body refuse |v| > CLT_MAX_SPEED, |x| >
 * CLT_MAX_LENGTH, ...): a run whose divergence checks are off reaches such states by stepping, so
 * the step's non-finite checks and the colony's order must still handle them. The state is
 * written into the world's storage directly, as a step would. */
#ifndef CLATTER_TEST_PLANT_STATE_H
#define CLATTER_TEST_PLANT_STATE_H

#include "dynamics/world_internal.h"

static inline void clt_test_plant_state(clt_world_t *w, clt_body_id_t id, const clt_body_state_t *s) {
  w->states[id.index] = *s;
  clt_world_state_changed(w);
}

#endif
