/* Broad phase (src/collision/broadphase.c) with half-space planes: an unbounded proxy that carries
 * its plane is paired exactly with the proxies whose box (grown by the margin) comes within the
 * margin of its half-space — checked against corner enumeration on random scenes in 2D and 3D —
 * and still with every proxy when it carries none. Then the pile case: 1000 spheres in a box of
 * five half-spaces make plane pairs only with the spheres next to them, not 5000. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collision/broadphase.h"
#include "test_util.h"

static uint64_t state = 12345;
static double uniform(double a, double b) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return a + (b - a) * (double)(state >> 11) / 9007199254740992.0;
}

/* Some corner of q's box lies within 2m of p's half-space (each side grown by the margin m). */
static bool near_plane(const clt_broadphase_proxy_t *p, const clt_broadphase_proxy_t *q, double m, int dim) {
  int corners = 1 << dim;
  for (int c = 0; c < corners; c++) {
    double s = 0.0;
    for (int k = 0; k < dim; k++) s += p->plane_normal[k] * (((c >> k) & 1) ? q->upper[k] : q->lower[k]);
    if (s - p->plane_offset <= 2.0 * m) return true;
  }
  return false;
}

static bool reported(const clt_broadphase_t *bp, int a, int b) {
  if (a > b) {
    int t = a;
    a = b;
    b = t;
  }
  int lo = 0, hi = bp->pair_count - 1; /* the list is sorted by (a, b) */
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    const clt_broadphase_pair_t *m = &bp->pairs[mid];
    if (m->a == a && m->b == b) return true;
    if (m->a < a || (m->a == a && m->b < b))
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return false;
}

static void random_check(int dim, int n, double margin) {
  clt_broadphase_proxy_t *px = calloc((size_t)n, sizeof *px);
  int planes = 0;
  for (int i = 0; i < n; i++) {
    clt_broadphase_proxy_t *p = &px[i];
    p->body = i;
    if (i % 25 == 0) {
      p->unbounded = p->fixed = true;
      for (int k = 0; k < 3; k++) p->lower[k] = -INFINITY, p->upper[k] = INFINITY;
      if (i % 50 == 0) { /* with a plane (every other one) */
        p->has_plane = true;
        double len = 0;
        for (int k = 0; k < dim; k++) {
          p->plane_normal[k] = uniform(-1, 1);
          len += p->plane_normal[k] * p->plane_normal[k];
        }
        for (int k = 0; k < dim; k++) p->plane_normal[k] /= sqrt(len);
        p->plane_offset = uniform(-3, 3);
        planes++;
      }
      continue;
    }
    for (int k = 0; k < dim; k++) {
      double c = uniform(-10, 10), h = uniform(0.05, 0.5);
      p->lower[k] = c - h;
      p->upper[k] = c + h;
    }
  }
  clt_broadphase_t bp;
  clt_broadphase_init(&bp);
  CHECK(clt_broadphase_find_pairs(&bp, px, n, dim, margin) == CLT_OK);
  int wrong = 0, culled = 0;
  for (int i = 0; i < n; i++) {
    if (!px[i].unbounded) continue;
    for (int j = 0; j < n; j++) {
      if (j == i || px[j].unbounded) continue;
      bool expect = !px[i].has_plane || near_plane(&px[i], &px[j], margin, dim);
      if (!expect) culled++;
      if (reported(&bp, i, j) != expect) wrong++;
    }
  }
  printf("%dD: %d planes, %d plane pairs culled, %d disagreements with corner enumeration\n", dim, planes, culled,
         wrong);
  CHECK(wrong == 0);
  CHECK(culled > 0);
  clt_broadphase_destroy(&bp);
  free(px);
}

static void pile_box(void) {
  /* 1000 spheres r = 0.05 on a 10 × 10 × 10 lattice 0.12 apart inside x, y ∈ [−0.6, 0.6], above z = 0. */
  int n = 1005;
  clt_broadphase_proxy_t *px = calloc((size_t)n, sizeof *px);
  const double normals[5][3] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
  const double offsets[5] = {0.0, -0.6, -0.6, -0.6, -0.6};
  for (int i = 0; i < 5; i++) {
    px[i].unbounded = px[i].fixed = px[i].has_plane = true;
    px[i].body = i;
    memcpy(px[i].plane_normal, normals[i], sizeof normals[i]);
    px[i].plane_offset = offsets[i];
  }
  for (int i = 5; i < n; i++) {
    int g = i - 5;
    double c[3] = {-0.54 + 0.12 * (g % 10), -0.54 + 0.12 * ((g / 10) % 10), 0.05 + 0.12 * (g / 100)};
    for (int k = 0; k < 3; k++) px[i].lower[k] = c[k] - 0.05, px[i].upper[k] = c[k] + 0.05;
    px[i].body = i;
  }
  clt_broadphase_t bp;
  clt_broadphase_init(&bp);
  CHECK(clt_broadphase_find_pairs(&bp, px, n, 3, 0.006) == CLT_OK); /* walls 1 cm from the outer columns */
  int plane_pairs = 0;
  for (int k = 0; k < bp.pair_count; k++) plane_pairs += bp.pairs[k].a < 5;
  /* floor: the 100 spheres of the bottom layer; walls: the 4 × 100 spheres of the outer columns */
  printf("pile box: %d plane pairs of %d candidates\n", plane_pairs, 5 * 1000);
  CHECK(plane_pairs == 100 + 4 * 100);
  clt_broadphase_destroy(&bp);
  free(px);
}

int main(void) {
  random_check(3, 2000, 0.01);
  random_check(2, 2000, 0.2);
  pile_box();
  return clt_test_finish();
}
