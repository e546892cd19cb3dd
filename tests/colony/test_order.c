/* Orientation-order analysis (clt_colony_order, include/clatter/colony.h) on arranged cells with
 * known answers: a row of parallel touching cells is one aligned domain with S = 1; alternating
 * perpendicular cells give S = 0 (2D) and single-cell domains; two separated parallel rows give
 * two domains; in 3D, cells along x, y and z give S = 0 and along one axis S = 1. A cell 10²⁰⁰ m
 * from the others (a checkpoint's state, say) is its own domain, not an overflow of the bins. */
#include <stdio.h>

#include "colony_test.h"
#include "math/vec.h"
#include "plant_state.h"
#include "test_util.h"

/* Grows a colony to 8 cells (no mechanics) and returns it. */
static clt_colony_t *eight(clt_world_t *w) {
  clt_colony_def_t cd = clt_default_colony_def();
  cd.diameter = 1.0;
  cd.division_length = 3.0;
  clt_colony_t *c = NULL;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_OK);
  while (c && clt_colony_cell_count(c) < 8) CHECK(clt_colony_grow(c) == CLT_OK);
  return c;
}

/* Places cell i at p with its capsule axis along u (cells are capsules along their local z). */
static void place(clt_world_t *w, clt_colony_t *c, int i, const double p[3], const double u[3]) {
  clt_colony_cell_t cell;
  CHECK(clt_colony_get_cell(c, i, &cell) == CLT_OK);
  clt_body_state_t s;
  CHECK(clt_body_get_state(w, cell.body, &s) == CLT_OK);
  clt_v3_copy(s.position, p);
  double cr = 1.0 + u[2];
  if (cr < 1e-12) {
    s.orientation[0] = 0, s.orientation[1] = 1, s.orientation[2] = 0, s.orientation[3] = 0;
  } else {
    s.orientation[0] = cr, s.orientation[1] = -u[1], s.orientation[2] = u[0], s.orientation[3] = 0;
  }
  if (fabs(p[0]) <= CLT_MAX_LENGTH && fabs(p[1]) <= CLT_MAX_LENGTH && fabs(p[2]) <= CLT_MAX_LENGTH) {
    CHECK(clt_body_set_state(w, cell.body, &s) == CLT_OK);
  } else { /* a cell flown away in a run that diverged: past the API's limits (plant_state.h) */
    CHECK(clt_body_set_state(w, cell.body, &s) == CLT_ERR_INVALID_ARGUMENT);
    clt_q_normalize(s.orientation); /* (what set_state does) */
    clt_test_plant_state(w, cell.body, &s);
  }
  CHECK(clt_colony_get_cell(c, i, &cell) == CLT_OK);
  double e[3];
  clt_v3_sub(e, cell.axis, u);
  CHECK_LE(clt_v3_norm(e), 1e-15);
}

static void planar(void) {
  clt_world_t *w = colony_test_world(true, CLT_LAW_INERTIAL, CLT_CONTACT_MODEL_DEFAULT, 0.01);
  clt_colony_t *c = eight(w);
  if (!c) return;
  clt_colony_cell_t cell;
  CHECK(clt_colony_get_cell(c, 0, &cell) == CLT_OK);
  double len = cell.length; /* all equal after synchronous divisions */
  const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
  /* a stack of 8 parallel cells along y, side by side, 0.02 apart: one domain */
  for (int i = 0; i < 8; i++) {
    double p[3] = {0.0, 1.02 * i, 0.0};
    place(w, c, i, p, ex);
  }
  clt_colony_order_t o;
  CHECK(clt_colony_order(c, 100.0, 0.2, 0.05, &o) == CLT_OK);
  printf("parallel stack: S %.6f, %d domains, mean %.3f, weighted %.3f, largest %d\n", o.nematic_order, o.domains,
         o.mean_domain_size, o.weighted_domain_size, o.largest_domain);
  CHECK(o.cells == 8);
  CHECK_NEAR(o.nematic_order, 1.0, 1e-14);
  CHECK(o.domains == 1 && o.largest_domain == 8);
  CHECK_NEAR(o.mean_domain_size, 8.0, 0.0);
  CHECK_NEAR(o.weighted_domain_size, 8.0, 0.0);
  /* contact_gap smaller than the 0.02 gaps: every cell alone */
  CHECK(clt_colony_order(c, 100.0, 0.2, 0.01, &o) == CLT_OK);
  CHECK(o.domains == 8 && o.largest_domain == 1);
  /* two stacks of 4, 5 apart: two domains; S still 1 */
  for (int i = 4; i < 8; i++) {
    double p[3] = {len + 1.0 + 5.0, 1.02 * (i - 4), 0.0};
    place(w, c, i, p, ex);
  }
  CHECK(clt_colony_order(c, 100.0, 0.2, 0.05, &o) == CLT_OK);
  CHECK(o.domains == 2 && o.largest_domain == 4);
  CHECK_NEAR(o.mean_domain_size, 4.0, 0.0);
  CHECK_NEAR(o.nematic_order, 1.0, 1e-14);
  /* alternate x and y axes in a chequerboard of touching cells: S = 0 over the whole colony,
   * no two touching cells aligned, yet a local radius that sees only one cell gives S = 1 */
  for (int i = 0; i < 8; i++) {
    double p[3] = {(len + 1.02) * (i % 4), (len + 1.02) * (i / 4), 0.0};
    place(w, c, i, p, (i % 4 + i / 4) % 2 ? ey : ex);
  }
  CHECK(clt_colony_order(c, 100.0, 0.2, 0.05, &o) == CLT_OK);
  printf("chequerboard: S %.3g, %d domains\n", o.nematic_order, o.domains);
  CHECK_NEAR(o.nematic_order, 0.0, 1e-14);
  CHECK(o.domains == 8);
  CHECK(clt_colony_order(c, 0.1, 0.2, 0.05, &o) == CLT_OK);
  CHECK_NEAR(o.nematic_order, 1.0, 1e-14);
  /* an angle threshold: cells turned by 0.1 rad from each other in a stack are one domain at
   * 0.15 and eight at 0.05 */
  for (int i = 0; i < 8; i++) {
    double th = 0.1 * (i % 2), p[3] = {0.0, 1.2 * i, 0.0}, u[3] = {cos(th), sin(th), 0.0};
    place(w, c, i, p, u);
  }
  CHECK(clt_colony_order(c, 100.0, 0.15, 0.5, &o) == CLT_OK);
  CHECK(o.domains == 1);
  CHECK(clt_colony_order(c, 100.0, 0.05, 0.5, &o) == CLT_OK);
  CHECK(o.domains == 8);
  CHECK_NEAR(o.nematic_order, cos(0.1), 1e-14); /* |(1 + e^{0.2i})/2| = cos 0.1 */
  CHECK(clt_colony_order(c, -1.0, 0.05, 0.5, &o) == CLT_ERR_INVALID_ARGUMENT);
  clt_colony_destroy(c);
  clt_world_destroy(w);
}

static void free3d(void) {
  clt_world_t *w = colony_test_world(false, CLT_LAW_INERTIAL, CLT_CONTACT_MODEL_DEFAULT, 0.01);
  clt_colony_t *c = eight(w);
  if (!c) return;
  const double axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int i = 0; i < 6; i++) {
    double p[3] = {10.0 * i, 0.0, 0.0};
    place(w, c, i, p, axes[i % 3]);
  }
  for (int i = 6; i < 8; i++) {
    double p[3] = {10.0 * i, 0.0, 0.0};
    place(w, c, i, p, axes[2]);
  }
  clt_colony_order_t o;
  /* radius 25 around cells 0..5 sees x, y, z in equal numbers only for some; use all: 3 x 2 + 2 z */
  CHECK(clt_colony_order(c, 1000.0, 0.2, 0.05, &o) == CLT_OK);
  /* Q = ⟨(3uuᵀ − I)/2⟩ over 2 x, 2 y, 4 z: eigenvalues (2·1 + 2·(−½) + 4·(−½))/8 … largest −0.125 + ... */
  double qx = (2 * 1.0 + 6 * -0.5) / 8.0, qz = (4 * 1.0 + 4 * -0.5) / 8.0;
  CHECK_NEAR(o.nematic_order, fmax(qx, qz), 1e-14);
  CHECK(o.domains == 8);
  for (int i = 0; i < 8; i++) {
    double p[3] = {0.0, 0.0, 1.01 * i};
    place(w, c, i, p, axes[0]);
  }
  CHECK(clt_colony_order(c, 1000.0, 0.2, 0.05, &o) == CLT_OK);
  CHECK_NEAR(o.nematic_order, 1.0, 1e-14);
  CHECK(o.domains == 1);
  clt_colony_destroy(c);
  clt_world_destroy(w);
}

/* the parallel stack with its last cell 1e200 away: 7 cells in one domain, that one alone */
static void far_cell(void) {
  clt_world_t *w = colony_test_world(true, CLT_LAW_INERTIAL, CLT_CONTACT_MODEL_DEFAULT, 0.01);
  clt_colony_t *c = eight(w);
  if (!c) return;
  const double ex[3] = {1, 0, 0};
  for (int i = 0; i < 8; i++) {
    double p[3] = {i == 7 ? 1e200 : 0.0, 1.02 * i, 0.0};
    place(w, c, i, p, ex);
  }
  clt_colony_order_t o;
  CHECK(clt_colony_order(c, 100.0, 0.2, 0.05, &o) == CLT_OK);
  printf("one cell 1e200 away: %d domains, largest %d\n", o.domains, o.largest_domain);
  CHECK(o.cells == 8);
  CHECK(o.domains == 2);
  CHECK(o.largest_domain == 7);
  clt_colony_destroy(c);
  clt_world_destroy(w);
}

int main(void) {
  planar();
  free3d();
  far_cell();
  return clt_test_finish();
}
