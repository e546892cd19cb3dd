/* Coordination numbers (src/analysis/coordination.c, docs/analysis.md "Coordination number") on
 * a simple cubic lattice of touching spheres on a floor (tests/analysis/lattice.h): 6 in the
 * interior; over the whole lattice the bonds and the floor, counted from touching rows only, each
 * pair once however many rows it has; rattlers removed one after another; walls and kinematic
 * bodies partners but never particles. */
#include <stdio.h>

#include "lattice.h"
#include "test_util.h"

static lattice_t lat;
static char message[512];

int main(void) {
  const int n = 6;
  lattice_build(&lat, n);
  clt_analysis_frame_t f = lattice_frame(&lat);
  clt_coordination_t c;
  /* the 2 × 2 × 2 centres inside: 6 neighbours each */
  clt_analysis_box_t inside = {{1.5, 1.5, 1.5}, {3.5, 3.5, 3.5}};
  CHECK(clt_analysis_coordination(&f, &inside, 2, &c, message, sizeof message) == CLT_OK);
  CHECK(c.particles == 8);
  CHECK(c.partners == 48);
  CHECK(c.mean == 6);
  CHECK(c.rattlers == 0);
  CHECK(c.mechanical == 6);
  /* the whole lattice: 3 n² (n − 1) bonds counted from both ends, plus the bottom layer's n² on the
   * floor: Z = (6 n² (n − 1) + n²) / n³ */
  int bonds = 3 * n * n * (n - 1), bottom = n * n, spheres = n * n * n;
  CHECK(clt_analysis_coordination(&f, NULL, 2, &c, message, sizeof message) == CLT_OK);
  CHECK(c.particles == spheres);
  CHECK(c.partners == 2 * bonds + bottom);
  CHECK_NEAR(c.mean, (double)(2 * bonds + bottom) / spheres, 1e-15);
  CHECK(c.rattlers == 0);
  printf("lattice %d³ on a floor: Z = %.6f (interior 6), rows %lld (touching and candidates)\n", n, c.mean,
         (long long)lat.contacts);
  /* rattlers: R alone; a chain lattice(0,0,0) – P – Q: Q has 1 partner and goes, then P has 1 left */
  int corner = lattice_index(&lat, 0, 0, 0);
  int r = lattice_body(&lat, (double[3]){10, 10, 10}, 0.5, CLT_BODY_DYNAMIC);
  int p = lattice_body(&lat, (double[3]){-1, 0, 0}, 0.5, CLT_BODY_DYNAMIC);
  int q = lattice_body(&lat, (double[3]){-2, 0, 0}, 0.5, CLT_BODY_DYNAMIC);
  (void)r;
  lattice_pair(&lat, p, corner, 1, 1);
  lattice_pair(&lat, q, p, 1, 1);
  lattice_pair(&lat, q, p, 1, 1); /* a second point of the same pair */
  f = lattice_frame(&lat);
  CHECK(clt_analysis_coordination(&f, NULL, 2, &c, message, sizeof message) == CLT_OK);
  CHECK(c.particles == spheres + 3);
  CHECK(c.partners == 2 * bonds + bottom + 2 + 2);
  CHECK(c.rattlers == 3);
  CHECK(c.backbone_partners == 2 * bonds + bottom);
  CHECK_NEAR(c.mechanical, (double)(2 * bonds + bottom) / spheres, 1e-15);
  /* with min_contacts 1 only R rattles */
  CHECK(clt_analysis_coordination(&f, NULL, 1, &c, message, sizeof message) == CLT_OK);
  CHECK(c.rattlers == 1);
  CHECK(c.backbone_partners == c.partners);
  /* a kinematic paddle touching Q: a partner, not a particle; Q (2 partners now) stays, and P */
  int paddle = lattice_body(&lat, (double[3]){-3, 0, 0}, 0, CLT_BODY_KINEMATIC);
  lattice_contact(&lat, paddle, q, (double[3]){-2.5, 0, 0}, (double[3]){1, 0, 0}, 1, 1);
  f = lattice_frame(&lat);
  CHECK(clt_analysis_coordination(&f, NULL, 2, &c, message, sizeof message) == CLT_OK);
  CHECK(c.particles == spheres + 3);
  CHECK(c.partners == 2 * bonds + bottom + 2 + 2 + 1);
  CHECK(c.rattlers == 1);
  /* a candidate row only (touching 0) never counts: R near the lattice, not touching */
  lattice_pair(&lat, r, lattice_index(&lat, n - 1, n - 1, n - 1), 0, 0);
  f = lattice_frame(&lat);
  CHECK(clt_analysis_coordination(&f, NULL, 2, &c, message, sizeof message) == CLT_OK);
  CHECK(c.partners == 2 * bonds + bottom + 5);
  /* a frame with no particles in the region: NaN */
  clt_analysis_box_t empty = {{100, 100, 100}, {101, 101, 101}};
  CHECK(clt_analysis_coordination(&f, &empty, 2, &c, message, sizeof message) == CLT_OK);
  CHECK(c.particles == 0 && isnan(c.mean) && isnan(c.mechanical));
  CHECK(clt_analysis_coordination(&f, NULL, 0, &c, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "min_contacts:", 13) == 0);
  /* a contact row naming a body the frame lacks */
  lat.b[0] = lat.bodies + 5;
  f = lattice_frame(&lat);
  CHECK(clt_analysis_coordination(&f, NULL, 2, &c, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  return clt_test_finish();
}
