/* Broad phase at coordinates and margins near the end of the doubles (issue 42 "[harden]": UBSan
 * "shift exponent 66" in broadphase.c with active_set_eps = 1e308). Bounds whose span or extent
 * overflows left the grid's cell at 1.0 with the cell indices clamped to 22 bits on every axis:
 * the key took 66 bits and `1 << key_bits` was undefined (on x86 it wrapped to a small key that
 * sorted the "large" proxies among the grid ones, and pairs were lost). The world's limits
 * (CLT_MAX_LENGTH) keep a world's own inputs far from this, but a run without divergence checks can
 * carry a body there, so the broad phase itself must stay exact: each scene below is compared with
 * all-pairs brute force, for clt_broadphase_find_pairs and clt_broadphase_update_pairs, in 2D and
 * 3D. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/broadphase.h"
#include "test_util.h"

static bool brute_overlap(const clt_broadphase_proxy_t *p, const clt_broadphase_proxy_t *q, double m, int dim) {
  if (p->body == q->body || (p->fixed && q->fixed) || (p->unbounded && q->unbounded)) return false;
  if (p->unbounded || q->unbounded) return true;
  for (int k = 0; k < dim; k++)
    if (p->lower[k] - m > q->upper[k] + m || q->lower[k] - m > p->upper[k] + m) return false;
  return true;
}

/* The broad phase's last result against brute force: the number of differences. */
static int differences(const clt_broadphase_t *bp, const clt_broadphase_proxy_t *px, int n, int dim, double margin) {
  int k = 0, wrong = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      if (!brute_overlap(&px[i], &px[j], margin, dim)) continue;
      if (k < bp->pair_count && bp->pairs[k].a == i && bp->pairs[k].b == j)
        k++;
      else
        wrong++;
    }
  return wrong + (bp->pair_count - k);
}

static uint64_t state = 12345;
static double uniform(double lo, double hi) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * (double)(state >> 11) / 9007199254740992.0;
}

static void box(clt_broadphase_proxy_t *p, int body, const double c[3], double half, int dim) {
  memset(p, 0, sizeof *p);
  for (int k = 0; k < dim; k++) {
    p->lower[k] = c[k] - half;
    p->upper[k] = c[k] + half;
  }
  p->body = body;
}

/* n small boxes near the origin (some touching), two far away at ±far on every axis, a wall
 * larger than the others, a fixed floor box and an unbounded proxy. */
static int scene(clt_broadphase_proxy_t *px, int n, int dim, double far) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    double c[3] = {uniform(-1.0, 1.0), uniform(-1.0, 1.0), dim == 3 ? uniform(-1.0, 1.0) : 0.0};
    box(&px[m], m, c, 0.1, dim);
    m++;
  }
  double a[3] = {far, far, dim == 3 ? far : 0.0}, b[3] = {-far, -far, dim == 3 ? -far : 0.0};
  box(&px[m], m, a, 0.1, dim);
  m++;
  box(&px[m], m, b, 0.1, dim);
  m++;
  double o[3] = {0.0, 0.0, 0.0};
  box(&px[m], m, o, 5.0, dim); /* large: 50 times the others */
  m++;
  double f[3] = {0.0, -1.2, 0.0};
  box(&px[m], m, f, 0.3, dim);
  px[m].fixed = true;
  m++;
  memset(&px[m], 0, sizeof px[m]);
  px[m].unbounded = true;
  px[m].fixed = true;
  px[m].body = m;
  m++;
  return m;
}

static void check(int dim, double far, double margin, const char *what) {
  clt_broadphase_proxy_t px[64];
  int n = scene(px, 40, dim, far);
  clt_broadphase_t bp;
  clt_broadphase_init(&bp);
  CHECK(clt_broadphase_find_pairs(&bp, px, n, dim, margin) == CLT_OK);
  int wrong = differences(&bp, px, n, dim, margin);
  printf("%dD, %s: %d proxies, %d pairs, %d grid entries, %d large, %d differences from brute force\n", dim, what, n,
         bp.pair_count, bp.grid_entries, bp.large_count, wrong);
  CHECK(wrong == 0);
  /* an update that moves a third of the bodies (and one far one back near the origin) */
  unsigned char changed[64] = {0};
  for (int i = 0; i < n; i += 3) {
    if (px[i].unbounded) continue;
    changed[px[i].body] = 1;
    for (int k = 0; k < dim; k++) {
      double d = i == 40 ? -far + uniform(-0.5, 0.5) : uniform(-0.05, 0.05);
      px[i].lower[k] += d;
      px[i].upper[k] += d;
    }
  }
  CHECK(clt_broadphase_update_pairs(&bp, px, n, dim, margin, changed) == CLT_OK);
  wrong = differences(&bp, px, n, dim, margin);
  CHECK(wrong == 0);
  clt_broadphase_destroy(&bp);
}

int main(void) {
  for (int dim = 2; dim <= 3; dim++) {
    check(dim, 1.0, 0.01, "ordinary scene");
    check(dim, 1e9, 0.01, "bodies at CLT_MAX_LENGTH");
    check(dim, 1e300, 0.01, "bodies at 1e300 m");
    check(dim, 1e308, 0.01, "bodies at 1e308 m (the span overflows)");
    check(dim, 1.7e308, 1e300, "bodies at 1.7e308 m, margin 1e300");
    check(dim, 1.0, 1e308, "margin 1e308 (the issue's active_set_eps)");
    check(dim, 1e308, 1e308, "bodies at 1e308 m, margin 1e308");
  }
  return clt_test_finish();
}
