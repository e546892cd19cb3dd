/* Broad phase (src/collision/broadphase.c) against all-pairs brute force on random scenes, 2D and
 * 3D: granular proxies of mixed sizes, a few large ones (walls, a container floor), unbounded
 * half-spaces, composite bodies (several proxies per body), fixed bodies, a degenerate scene (all
 * proxies at one point) and an empty one. The pair lists must be identical (same pairs, sorted
 * by (a, b), no duplicates), also when clt_broadphase_update_pairs searches again only for the
 * pairs of changed bodies. Also runs clt_shape_bounds on every shape type against its support
 * extents, and scenes at coordinates near the end of the doubles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/broadphase.h"
#include "collision/narrowphase.h"
#include "collide_ref.h"
#include "test_util.h"

static bool brute_overlap(const clt_broadphase_proxy_t *p, const clt_broadphase_proxy_t *q, double m, int dim) {
  if (p->body == q->body || (p->fixed && q->fixed) || (p->unbounded && q->unbounded)) return false;
  if (p->unbounded || q->unbounded) return true;
  for (int k = 0; k < dim; k++)
    if (p->lower[k] - m > q->upper[k] + m || q->lower[k] - m > p->upper[k] + m) return false;
  return true;
}

/* Checks the broad phase's last result against brute force. */
static void check_brute(const clt_broadphase_t *bp, const clt_broadphase_proxy_t *px, int n, int dim, double margin) {
  int k = 0, mismatches = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      if (!brute_overlap(&px[i], &px[j], margin, dim)) continue;
      if (k < bp->pair_count && bp->pairs[k].a == i && bp->pairs[k].b == j)
        k++;
      else
        mismatches++;
    }
  CHECK(mismatches == 0);
  CHECK(k == bp->pair_count); /* nothing extra (duplicates or unsorted entries would land here) */
}

/* Compares the broad phase with brute force; returns the number of pairs. */
static int compare(clt_broadphase_t *bp, const clt_broadphase_proxy_t *px, int n, int dim, double margin) {
  CHECK(clt_broadphase_find_pairs(bp, px, n, dim, margin) == CLT_OK);
  check_brute(bp, px, n, dim, margin);
  return bp->pair_count;
}

/* clt_broadphase_update_pairs: after a full search on px, the proxies of about one body in
 * `every` are moved, grown, shrunk or made large (all proxies of a changed body, bodies being
 * shared by composite proxies); the updated list must be identical to brute force on the new
 * proxies. Returns the number of changed bodies. */
static int compare_update(clt_broadphase_t *bp, rng_t *r, clt_broadphase_proxy_t *px, int n, int dim, double margin,
                          double domain, int every) {
  CHECK(clt_broadphase_find_pairs(bp, px, n, dim, margin) == CLT_OK);
  static unsigned char changed[8000];
  memset(changed, 0, sizeof changed);
  int changes = 0;
  for (int i = 0; i < n; i++)
    if (!changed[px[i].body] && rng_int(r, 0, every - 1) == 0) {
      changed[px[i].body] = 1;
      changes++;
    }
  for (int i = 0; i < n; i++) {
    clt_broadphase_proxy_t *p = &px[i];
    if (!changed[p->body] || p->unbounded) continue;
    int how = rng_int(r, 0, 3);
    for (int k = 0; k < dim; k++) {
      double shift = how == 0 ? rng_uniform(r, -2.0, 2.0) : 0.0;
      double grow = how == 1 ? rng_uniform(r, 0.0, 0.5) : how == 2 ? -0.25 * (p->upper[k] - p->lower[k]) : 0.0;
      if (how == 3) grow = 0.3 * domain; /* large now */
      p->lower[k] += shift - grow;
      p->upper[k] += shift + grow;
    }
  }
  CHECK(clt_broadphase_update_pairs(bp, px, n, dim, margin, changed) == CLT_OK);
  check_brute(bp, px, n, dim, margin);
  return changes;
}

static void random_scene(rng_t *r, clt_broadphase_proxy_t *px, int n, int dim, double domain) {
  for (int i = 0; i < n; i++) {
    clt_broadphase_proxy_t *p = &px[i];
    memset(p, 0, sizeof *p);
    p->body = i;
    if (i > 0 && rng_int(r, 0, 9) == 0) p->body = px[i - 1].body; /* composite body */
    p->fixed = rng_int(r, 0, 19) == 0;
    int kind = rng_int(r, 0, 199);
    if (kind == 0) { /* unbounded */
      p->unbounded = true;
      p->fixed = true;
      for (int k = 0; k < 3; k++) p->lower[k] = -INFINITY, p->upper[k] = INFINITY;
      continue;
    }
    double size = kind < 4 ? rng_uniform(r, 0.3, 1.0) * domain : rng_uniform(r, 0.2, 1.2); /* walls */
    for (int k = 0; k < dim; k++) {
      double c = rng_uniform(r, 0, domain), h = 0.5 * size * rng_uniform(r, 0.2, 1.0);
      if (kind < 4 && k == kind % dim) h = 0.1; /* a thin wall */
      p->lower[k] = c - h;
      p->upper[k] = c + h;
    }
  }
}

static void shape_bounds_checks(void) {
  /* Bounds contain the shape's support points in ±x, ±y, ±z and touch them. */
  rng_t r = {77};
  clt_collide_pose_t pose;
  memset(&pose, 0, sizeof pose);
  double q[4] = {0.9, 0.1, -0.3, 0.2}, qn = sqrt(0.81 + 0.01 + 0.09 + 0.04);
  for (int k = 0; k < 4; k++) pose.orientation[k] = q[k] / qn;
  pose.position[0] = 1, pose.position[1] = -2, pose.position[2] = 0.5;
  pose.angle = 0.7;
  clt_shape_def_t d;
  memset(&d, 0, sizeof d);
  d.local_orientation[0] = 1;
  d.local_position[0] = 0.3;
  double lo[3], hi[3];
  /* Box: compare with its 8 corners. */
  d.type = CLT_SHAPE_BOX;
  d.half_extents[0] = 0.5, d.half_extents[1] = 0.2, d.half_extents[2] = 1.0;
  CHECK(clt_shape_bounds(&d, &pose, lo, hi));
  double w = pose.orientation[0], x = pose.orientation[1], y = pose.orientation[2], z = pose.orientation[3];
  double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  double mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int c = 0; c < 8; c++) {
    double l[3] = {0.3 + ((c & 1) ? 0.5 : -0.5), (c & 2) ? 0.2 : -0.2, (c & 4) ? 1.0 : -1.0};
    for (int i = 0; i < 3; i++) {
      double v = pose.position[i] + R[i][0] * l[0] + R[i][1] * l[1] + R[i][2] * l[2];
      mn[i] = fmin(mn[i], v), mx[i] = fmax(mx[i], v);
    }
  }
  for (int i = 0; i < 3; i++) {
    CHECK_NEAR(lo[i], mn[i], 1e-12);
    CHECK_NEAR(hi[i], mx[i], 1e-12);
  }
  /* Polygon and ellipse in 2D: sampled boundary inside, and touching within the sampling. */
  memset(&d, 0, sizeof d);
  d.type = CLT_SHAPE_ELLIPSE;
  d.semi_axes[0] = 2, d.semi_axes[1] = 0.5;
  d.local_angle = 0.4;
  CHECK(clt_shape_bounds(&d, &pose, lo, hi));
  double emn[2] = {INFINITY, INFINITY}, emx[2] = {-INFINITY, -INFINITY};
  for (int s = 0; s < 100000; s++) {
    double t = 2 * REF_PI * s / 100000, a = pose.angle + 0.4;
    double px = 2 * cos(t), py = 0.5 * sin(t);
    double vx = pose.position[0] + cos(a) * px - sin(a) * py, vy = pose.position[1] + sin(a) * px + cos(a) * py;
    emn[0] = fmin(emn[0], vx), emx[0] = fmax(emx[0], vx), emn[1] = fmin(emn[1], vy), emx[1] = fmax(emx[1], vy);
  }
  for (int i = 0; i < 2; i++) {
    CHECK(lo[i] <= emn[i] && hi[i] >= emx[i]);
    CHECK_NEAR(lo[i], emn[i], 1e-8);
    CHECK_NEAR(hi[i], emx[i], 1e-8);
  }
  d.type = CLT_SHAPE_HALFPLANE;
  CHECK(!clt_shape_bounds(&d, &pose, lo, hi));
  (void)r;
}

/* Coordinates and margins near the end of the doubles: bounds whose span or extent overflows
 * leave the grid's cell at 1.0 with the cell indices clamped on every axis, and the key would need
 * 66 bits, past what `1 << key_bits` can shift; the broad phase then tests all pairs
 * (broadphase.c). The world's limits (CLT_MAX_LENGTH, docs/api-limits.md) keep its own inputs far
 * from this, but a run without divergence checks can carry a body there, so the broad phase must
 * stay exact: each scene is compared with brute force, for find and update, in 2D and 3D. */
static void extreme_box(clt_broadphase_proxy_t *p, int body, const double c[3], double half, int dim) {
  memset(p, 0, sizeof *p);
  for (int k = 0; k < dim; k++) {
    p->lower[k] = c[k] - half;
    p->upper[k] = c[k] + half;
  }
  p->body = body;
}

/* n small boxes near the origin (some touching), two far away at ±far on every axis, a wall
 * larger than the others, a fixed floor box and an unbounded proxy. */
static int extreme_scene(rng_t *r, clt_broadphase_proxy_t *px, int n, int dim, double far) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    double c[3] = {rng_uniform(r, -1.0, 1.0), rng_uniform(r, -1.0, 1.0), dim == 3 ? rng_uniform(r, -1.0, 1.0) : 0.0};
    extreme_box(&px[m], m, c, 0.1, dim);
    m++;
  }
  double a[3] = {far, far, dim == 3 ? far : 0.0}, b[3] = {-far, -far, dim == 3 ? -far : 0.0};
  extreme_box(&px[m], m, a, 0.1, dim);
  m++;
  extreme_box(&px[m], m, b, 0.1, dim);
  m++;
  double o[3] = {0.0, 0.0, 0.0};
  extreme_box(&px[m], m, o, 5.0, dim); /* large: 50 times the others */
  m++;
  double f[3] = {0.0, -1.2, 0.0};
  extreme_box(&px[m], m, f, 0.3, dim);
  px[m].fixed = true;
  m++;
  memset(&px[m], 0, sizeof px[m]);
  px[m].unbounded = true;
  px[m].fixed = true;
  px[m].body = m;
  m++;
  return m;
}

static void extreme_check(rng_t *r, int dim, double far, double margin, const char *what) {
  clt_broadphase_proxy_t px[64];
  int n = extreme_scene(r, px, 40, dim, far);
  clt_broadphase_t bp;
  clt_broadphase_init(&bp);
  CHECK(clt_broadphase_find_pairs(&bp, px, n, dim, margin) == CLT_OK);
  printf("%dD, %s: %d proxies, %d pairs, %d grid entries, %d large\n", dim, what, n, bp.pair_count,
         bp.grid_entries, bp.large_count);
  check_brute(&bp, px, n, dim, margin);
  /* an update that moves a third of the bodies (and one far one back near the origin) */
  unsigned char changed[64] = {0};
  for (int i = 0; i < n; i += 3) {
    if (px[i].unbounded) continue;
    changed[px[i].body] = 1;
    for (int k = 0; k < dim; k++) {
      double d = i == 40 ? -far + rng_uniform(r, -0.5, 0.5) : rng_uniform(r, -0.05, 0.05);
      px[i].lower[k] += d;
      px[i].upper[k] += d;
    }
  }
  CHECK(clt_broadphase_update_pairs(&bp, px, n, dim, margin, changed) == CLT_OK);
  check_brute(&bp, px, n, dim, margin);
  clt_broadphase_destroy(&bp);
}

int main(void) {
  clt_broadphase_t bp;
  clt_broadphase_init(&bp);
  rng_t r = {2024};
  static clt_broadphase_proxy_t px[4000];
  int total_pairs = 0, scenes = 0;
  for (int dim = 2; dim <= 3; dim++) {
    for (int s = 0; s < 6; s++) {
      int n = s == 0 ? 1 : (s < 3 ? 300 : 2000);
      double domain = dim == 2 ? sqrt(n) * 1.0 : cbrt(n) * 1.0; /* dense granular packing */
      random_scene(&r, px, n, dim, domain);
      double margin = s % 2 ? 1e-3 : 0.05;
      total_pairs += compare(&bp, px, n, dim, margin);
      scenes++;
      if (n == 2000)
        printf("dim %d, %d proxies: %d pairs, cell %.3f, %d grid entries (%.2f per proxy), %d large\n", dim, n,
               bp.pair_count, bp.cell_size, bp.grid_entries, (double)bp.grid_entries / n, bp.large_count);
      if (n == 2000) CHECK_LE(bp.grid_entries, 8.0 * n); /* each granular proxy in ≤ 2^d cells mostly */
    }
  }
  /* Degenerate: every proxy is the same point (zero extent): all pairs, no division by zero. */
  for (int i = 0; i < 50; i++) {
    memset(&px[i], 0, sizeof px[i]);
    px[i].body = i;
  }
  CHECK(compare(&bp, px, 50, 3, 0.0) == 50 * 49 / 2);
  /* Empty scene, and invalid arguments. */
  CHECK(clt_broadphase_find_pairs(&bp, px, 0, 3, 0.0) == CLT_OK && bp.pair_count == 0);
  CHECK(clt_broadphase_find_pairs(&bp, px, 10, 4, 0.0) == CLT_ERR_INVALID_ARGUMENT);
  /* Determinism: the same scene twice gives the same list. */
  random_scene(&r, px, 1000, 3, 10.0);
  clt_broadphase_find_pairs(&bp, px, 1000, 3, 1e-3);
  int count = bp.pair_count;
  clt_broadphase_pair_t *first = malloc((size_t)(count > 0 ? count : 1) * sizeof *first);
  memcpy(first, bp.pairs, (size_t)count * sizeof *first);
  clt_broadphase_find_pairs(&bp, px, 1000, 3, 1e-3);
  CHECK(count == bp.pair_count && memcmp(first, bp.pairs, (size_t)count * sizeof *first) == 0);
  free(first);
  printf("%d scenes, %d pairs in all, identical to brute force\n", scenes, total_pairs);
  for (int dim = 2; dim <= 3; dim++) {
    extreme_check(&r, dim, 1.0, 0.01, "ordinary scene");
    extreme_check(&r, dim, 1e9, 0.01, "bodies at CLT_MAX_LENGTH");
    extreme_check(&r, dim, 1e300, 0.01, "bodies at 1e300 m");
    extreme_check(&r, dim, 1e308, 0.01, "bodies at 1e308 m (the span overflows)");
    extreme_check(&r, dim, 1.7e308, 1e300, "bodies at 1.7e308 m, margin 1e300");
    extreme_check(&r, dim, 1.0, 1e308, "margin 1e308 (active_set_eps at its largest double)");
    extreme_check(&r, dim, 1e308, 1e308, "bodies at 1e308 m, margin 1e308");
  }
  /* Expected O(N): a dense granular scene (no walls, no planes) scaled from 1000 to 16000 proxies
   * keeps the grid entries and the in-bucket comparisons per proxy bounded (counted, not timed). */
  static clt_broadphase_proxy_t grain[16000];
  double per_proxy[3];
  for (int s = 0, n = 1000; n <= 16000; n *= 4, s++) {
    double domain = cbrt((double)n);
    for (int i = 0; i < n; i++) {
      memset(&grain[i], 0, sizeof grain[i]);
      grain[i].body = i;
      for (int k = 0; k < 3; k++) {
        double c = rng_uniform(&r, 0, domain), h = rng_uniform(&r, 0.2, 0.4);
        grain[i].lower[k] = c - h, grain[i].upper[k] = c + h;
      }
    }
    CHECK(clt_broadphase_find_pairs(&bp, grain, n, 3, 1e-3) == CLT_OK);
    per_proxy[s] = (double)(bp.entry_tests + bp.grid_entries) / n;
    printf("granular 3D, %5d proxies: %6d pairs, %.2f grid entries and %.2f bucket comparisons per proxy\n", n,
           bp.pair_count, (double)bp.grid_entries / n, (double)bp.entry_tests / n);
  }
  CHECK_LE(per_proxy[2], 1.25 * per_proxy[0]);
  compare(&bp, grain, 4000, 3, 1e-3);
  /* Boxes longer along one axis (grains swept along their fall through a step: 0.1 m wide, up to
   * 0.4 m tall, 1000 a cubic metre in a 1 m × 1 m column): the cells are chosen per axis, so a cell
   * holds about 4 of them, not the 64 of a 0.4 m cube, and a proxy meets about 14 cells' worth
   * (counted, not timed; with cubes: about 900). */
  for (int i = 0; i < 4000; i++) {
    memset(&grain[i], 0, sizeof grain[i]);
    grain[i].body = i;
    double x = rng_uniform(&r, 0, 1), y = rng_uniform(&r, 0, 1), z = rng_uniform(&r, 0, 4);
    double tall = rng_uniform(&r, 0.1, 0.4);
    grain[i].lower[0] = x - 0.05, grain[i].upper[0] = x + 0.05;
    grain[i].lower[1] = y - 0.05, grain[i].upper[1] = y + 0.05;
    grain[i].lower[2] = z - 0.05, grain[i].upper[2] = z - 0.05 + tall;
  }
  compare(&bp, grain, 4000, 3, 1e-3);
  printf("swept 3D, 4000 proxies: %d pairs, longest cell side %.3f, %.1f bucket comparisons per proxy\n",
         bp.pair_count, bp.cell_size, (double)bp.entry_tests / 4000);
  CHECK_LE((double)bp.entry_tests / 4000, 100.0);
  /* Updates: random scenes as above (large, unbounded, composite, fixed proxies), with a tenth or
   * half of the bodies changed, and 6000 proxies (the parallel search when OpenMP has threads). */
  int updated = 0;
  for (int dim = 2; dim <= 3; dim++)
    for (int s = 0; s < 4; s++) {
      int n = s < 2 ? 300 : 2000, every = s % 2 ? 2 : 10;
      double domain = dim == 2 ? sqrt(n) : cbrt(n);
      random_scene(&r, px, n, dim, domain);
      updated += compare_update(&bp, &r, px, n, dim, s % 2 ? 1e-3 : 0.05, domain, every);
    }
  static clt_broadphase_proxy_t many[6000];
  random_scene(&r, many, 6000, 3, cbrt(6000.0));
  updated += compare_update(&bp, &r, many, 6000, 3, 1e-3, cbrt(6000.0), 20);
  CHECK(clt_broadphase_update_pairs(&bp, many, 6000, 3, 1e-3, NULL) == CLT_ERR_INVALID_ARGUMENT);
  printf("updates: %d changed bodies in 9 scenes, identical to brute force\n", updated);
  clt_broadphase_destroy(&bp);
  shape_bounds_checks();
  return clt_test_finish();
}
