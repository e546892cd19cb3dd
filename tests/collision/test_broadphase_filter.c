/* clt_broadphase_pair_test (src/collision/broadphase.c) decides a pair exactly as
 * clt_broadphase_find_pairs reports it: on random scenes in 2D and 3D (boxes of mixed sizes, some
 * large enough to be tested against everything, fixed and unbounded proxies with and without a
 * plane, several proxies per body) the pairs it accepts among all pairs are exactly the pairs found,
 * for margin 0 and > 0. The penetration diagnostics of the relaxed scheme filter the step's swept
 * pairs with it instead of running the broad phase again (stage_collide.c), so this equality is
 * what makes their value the same. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/broadphase.h"
#include "test_util.h"

static uint64_t state = 987654321;
static double uniform(double a, double b) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return a + (b - a) * (double)(state >> 11) / 9007199254740992.0;
}

static void random_scene(int dim, int n, double margin) {
  clt_broadphase_proxy_t *px = calloc((size_t)n, sizeof *px);
  for (int i = 0; i < n; i++) {
    clt_broadphase_proxy_t *p = &px[i];
    p->body = i % 3 == 0 && i > 0 ? i - 1 : i; /* some bodies with two proxies */
    p->fixed = i % 7 == 0;
    if (i % 31 == 0) {
      p->unbounded = true;
      p->fixed = true;
      for (int k = 0; k < 3; k++) p->lower[k] = -INFINITY, p->upper[k] = INFINITY;
      if (i % 62 == 0) {
        p->has_plane = true;
        double len = 0.0;
        for (int k = 0; k < dim; k++) {
          p->plane_normal[k] = uniform(-1, 1);
          len += p->plane_normal[k] * p->plane_normal[k];
        }
        for (int k = 0; k < dim; k++) p->plane_normal[k] /= sqrt(len);
        p->plane_offset = uniform(-2, 2);
      }
      continue;
    }
    double size = i % 17 == 0 ? uniform(1.0, 4.0) : uniform(0.02, 0.3); /* a few large ones */
    for (int k = 0; k < dim; k++) {
      double c = uniform(-3, 3);
      p->lower[k] = c - size * uniform(0.5, 1.0);
      p->upper[k] = c + size * uniform(0.5, 1.0);
    }
  }
  clt_broadphase_t bp;
  clt_broadphase_init(&bp);
  CHECK(clt_broadphase_find_pairs(&bp, px, n, dim, margin) == CLT_OK);
  /* the found list is sorted by (a, b): walk it alongside all pairs */
  int k = 0, accepted = 0, mismatches = 0;
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++) {
      bool found = k < bp.pair_count && bp.pairs[k].a == a && bp.pairs[k].b == b;
      if (found) k++;
      bool test = clt_broadphase_pair_test(&px[a], &px[b], dim, margin);
      bool test_swapped = clt_broadphase_pair_test(&px[b], &px[a], dim, margin);
      accepted += test;
      if (test != found || test_swapped != test) mismatches++;
    }
  printf("dim %d, %d proxies, margin %g: %d pairs found, %d accepted by the test, %d mismatches\n", dim, n, margin,
         bp.pair_count, accepted, mismatches);
  CHECK(k == bp.pair_count);
  CHECK(mismatches == 0);
  CHECK(bp.pair_count > n / 4); /* the scene is not trivially empty */
  clt_broadphase_destroy(&bp);
  free(px);
}

int main(void) {
  for (int dim = 2; dim <= 3; dim++) {
    random_scene(dim, 400, 0.0);
    random_scene(dim, 400, 0.05);
    random_scene(dim, 700, 0.2);
  }
  return clt_test_finish();
}
