/* A colony run is reproducible (include/clatter/colony.h): the same seed gives a bit-identical
 * world (state hash and every cell's pose) with growth, division and contact mechanics (overdamped
 * ReLCP, planar and free 3D); another seed gives a different colony. */
#include <string.h>

#include "colony_test.h"
#include "test_util.h"

static uint64_t grow_to(bool planar, uint64_t seed, int cells, double *positions, int *steps) {
  clt_world_t *w = colony_test_world(planar, CLT_LAW_OVERDAMPED, CLT_CONTACT_MODEL_RELCP, 0.02);
  clt_colony_def_t cd = colony_test_def(seed);
  clt_colony_t *c = NULL;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_OK);
  *steps = 0;
  while (c && clt_colony_cell_count(c) < cells && *steps < 2000) {
    clt_status_t st = clt_colony_step(c);
    CHECK(st == CLT_OK);
    if (st != CLT_OK) {
      fprintf(stderr, "step %d: %s\n", *steps, clt_world_error(w));
      break;
    }
    (*steps)++;
  }
  CHECK(c && clt_colony_cell_count(c) == cells);
  for (int i = 0; c && i < cells; i++) {
    clt_colony_cell_t cell;
    CHECK(clt_colony_get_cell(c, i, &cell) == CLT_OK);
    memcpy(positions + 7 * i, cell.position, 3 * sizeof(double));
    memcpy(positions + 7 * i + 3, cell.axis, 3 * sizeof(double));
    positions[7 * i + 6] = cell.length;
  }
  uint64_t hash = clt_world_state_hash(w);
  clt_colony_destroy(c);
  clt_world_destroy(w);
  return hash;
}

static void run(bool planar) {
  enum { CELLS = 16 };
  double a[7 * CELLS], b[7 * CELLS], o[7 * CELLS];
  int sa, sb, so;
  uint64_t ha = grow_to(planar, 11, CELLS, a, &sa);
  uint64_t hb = grow_to(planar, 11, CELLS, b, &sb);
  uint64_t ho = grow_to(planar, 12, CELLS, o, &so);
  printf("%s: %d cells after %d steps; hash %016llx twice: %016llx; seed 12: %016llx\n", planar ? "planar" : "free 3D",
         CELLS, sa, (unsigned long long)ha, (unsigned long long)hb, (unsigned long long)ho);
  CHECK(sa == sb);
  CHECK(ha == hb);
  CHECK(memcmp(a, b, sizeof a) == 0);
  CHECK(ho != ha);
  CHECK(memcmp(a, o, sizeof a) != 0);
}

int main(void) {
  run(true);
  run(false);
  return clt_test_finish();
}
