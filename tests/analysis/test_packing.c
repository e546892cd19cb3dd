/* The packing fraction and the profiles (src/analysis/packing.c, docs/analysis.md "Packing
 * fraction", "Profiles") on a simple cubic lattice of touching spheres (tests/analysis/lattice.h):
 * any box whose edges are whole lattice spacings holds exactly one sphere's volume per cell, π/6
 * of it, wherever it is put — its faces cut spheres by one, two and three planes — and thin slabs
 * hold the closed-form slices of the layers; velocities are mass-weighted per slab. */
#include <math.h>
#include <stdio.h>

#include "lattice.h"
#include "test_util.h"

#define PI 3.14159265358979323846

static lattice_t lat;
static char message[512];

static void check_packing(void) {
  lattice_build(&lat, 7);
  clt_analysis_frame_t f = lattice_frame(&lat);
  /* interior boxes of 3 × 3 × 3 and 2 × 4 × 1 cells at offsets that cut spheres anywhere */
  double offsets[][3] = {{1.3, 1.3, 1.3}, {0.5, 0.5, 0.5}, {1, 1, 1}, {1.07, 1.71, 0.93}, {2.5, 1.25, 2.499}};
  double sizes[][3] = {{3, 3, 3}, {2, 4, 1}};
  double worst = 0;
  for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++)
    for (size_t s = 0; s < 2; s++) {
      clt_analysis_box_t box;
      for (int k = 0; k < 3; k++) {
        box.lo[k] = offsets[o][k];
        box.hi[k] = offsets[o][k] + sizes[s][k];
      }
      clt_packing_t p;
      CHECK(clt_analysis_packing(&f, &box, &p, message, sizeof message) == CLT_OK);
      CHECK_NEAR(p.fraction, PI / 6, 1e-14);
      CHECK_NEAR(p.region_volume, sizes[s][0] * sizes[s][1] * sizes[s][2], 1e-13);
      CHECK(p.by_centre == 0);
      worst = fmax(worst, fabs(p.fraction - PI / 6));
    }
  printf("simple cubic lattice: worst |φ − π/6| = %.2e over 10 boxes of whole cells\n", worst);
  /* the whole lattice in a box around it: every sphere whole */
  clt_analysis_box_t all = {{-0.5, -0.5, -0.5}, {6.5, 6.5, 6.5}};
  clt_packing_t p;
  CHECK(clt_analysis_packing(&f, &all, &p, message, sizeof message) == CLT_OK);
  CHECK(p.particles == 343);
  CHECK_NEAR(p.solid_volume, 343 * PI / 6, 1e-12);
  /* the slab |z − 3| ≤ 0.25 through the middle of a layer, around whole spheres in x and y: each
   * of the 49 gives π (r² · 0.5 − 2 · 0.25³ / 3) */
  clt_analysis_box_t slab = {{-0.5, -0.5, 2.75}, {6.5, 6.5, 3.25}};
  CHECK(clt_analysis_packing(&f, &slab, &p, message, sizeof message) == CLT_OK);
  CHECK_NEAR(p.solid_volume, 49 * PI * (0.25 * 0.5 - 2 * 0.25 * 0.25 * 0.25 / 3), 1e-13);
  CHECK(p.particles == 49);
  /* a non-sphere particle counts whole by its centre: a 0.1 m³ body at (3, 3, 3.2) */
  int box_body = lattice_body(&lat, (double[3]){3, 3, 3.2}, 0, CLT_BODY_DYNAMIC);
  lat.volume[box_body] = 0.1;
  lat.mass[box_body] = 100;
  f = lattice_frame(&lat);
  clt_analysis_box_t around = {{2.5, 2.5, 3.0}, {3.5, 3.5, 3.5}};
  clt_packing_t q;
  CHECK(clt_analysis_packing(&f, &around, &q, message, sizeof message) == CLT_OK);
  CHECK(q.by_centre == 1);
  clt_analysis_box_t beside = {{2.5, 2.5, 3.25}, {3.5, 3.5, 3.75}};
  CHECK(clt_analysis_packing(&f, &beside, &q, message, sizeof message) == CLT_OK);
  CHECK(q.by_centre == 0);
  /* a body absent from the frame (NaN) and the floor count nothing */
  lat.position[box_body][0] = NAN;
  f = lattice_frame(&lat);
  CHECK(clt_analysis_packing(&f, &all, &p, message, sizeof message) == CLT_OK);
  CHECK(p.particles == 343);
  /* regions that cannot be measured */
  clt_analysis_box_t open = {{0, 0, 0}, {1, 1, INFINITY}}, flat = {{0, 0, 1}, {1, 1, 1}};
  CHECK(clt_analysis_packing(&f, &open, &p, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "region:", 7) == 0);
  CHECK(clt_analysis_packing(&f, &flat, &p, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_analysis_packing(&f, NULL, &p, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
}

static void check_profile(void) {
  lattice_build(&lat, 6);
  /* shear along x with a layer speed 2 z, and per column masses 1 + i with a speed offset
   * 0.1 (i − 2.5): the mass-weighted mean is 2 z + 0.1 Σ mᵢ (i − 2.5) / Σ mᵢ */
  double num = 0, den = 0;
  for (int i = 0; i < 6; i++) {
    num += (1 + i) * 0.1 * (i - 2.5);
    den += 1 + i;
  }
  for (int k = 0; k < 6; k++)
    for (int j = 0; j < 6; j++)
      for (int i = 0; i < 6; i++) {
        int b = lattice_index(&lat, i, j, k);
        lat.mass[b] = 1 + i;
        lat.velocity[b][0] = 2 * k + 0.1 * (i - 2.5);
        lat.velocity[b][2] = -0.5;
      }
  clt_analysis_frame_t f = lattice_frame(&lat);
  /* slabs 0.25 thick over z ∈ [−0.5, 5.5] with x, y ∈ [0, 5]: the 5 × 5 cross-section through the
   * centres holds 25 spheres' worth per layer; a slab 0 … 0.25 from a centre holds
   * π (r² 0.25 − 0.25³/3) of each sphere, 0.25 … 0.5 π (r² 0.25 − (0.5³ − 0.25³)/3) */
  clt_analysis_box_t region = {{0, 0, -0.5}, {5, 5, 5.5}};
  clt_profile_bin_t bins[24];
  CHECK(clt_analysis_profile(&f, &region, 2, 24, bins, message, sizeof message) == CLT_OK);
  double inner = PI * (0.25 * 0.25 - 0.25 * 0.25 * 0.25 / 3) / 0.25;
  double outer = PI * (0.25 * 0.25 - (0.125 - 0.25 * 0.25 * 0.25) / 3) / 0.25;
  CHECK_NEAR(inner, 11 * PI / 48, 1e-15);
  CHECK_NEAR(outer, 5 * PI / 48, 1e-15);
  for (int b = 0; b < 24; b++) {
    int layer = b / 4, quarter = b % 4;
    CHECK_NEAR(bins[b].lo, -0.5 + 0.25 * b, 1e-14);
    CHECK_NEAR(bins[b].solid_fraction, quarter == 0 || quarter == 3 ? outer : inner, 1e-13);
    if (quarter == 2) {
      /* the layer's centres sit on this slab's lower face: 36 of them in the closed region */
      CHECK(bins[b].particles == 36);
      CHECK_NEAR(bins[b].mass, 6 * den, 1e-12);
      CHECK_NEAR(bins[b].velocity[0], 2 * layer + num / den, 1e-12);
      CHECK_NEAR(bins[b].velocity[1], 0, 1e-15);
      CHECK_NEAR(bins[b].velocity[2], -0.5, 1e-15);
    } else {
      CHECK(bins[b].particles == 0);
      CHECK(isnan(bins[b].velocity[0]));
    }
  }
  /* without velocities: NaN, the fractions unchanged */
  f.velocity = NULL;
  CHECK(clt_analysis_profile(&f, &region, 2, 24, bins, message, sizeof message) == CLT_OK);
  CHECK(isnan(bins[2].velocity[0]) && bins[2].particles == 36);
  CHECK_NEAR(bins[1].solid_fraction, inner, 1e-13);
  CHECK(clt_analysis_profile(&f, &region, 3, 24, bins, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "axis:", 5) == 0);
  CHECK(clt_analysis_profile(&f, &region, 2, 0, bins, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "bins:", 5) == 0);
}

int main(void) {
  check_packing();
  check_profile();
  return clt_test_finish();
}
