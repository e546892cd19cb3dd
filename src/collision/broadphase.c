/* Uniform-grid broad phase (SPEC.md §5; see broadphase.h). Along each axis the cell is at least as
 * long as every "grid" proxy's inflated box (the cells are boxes, not cubes: make_grid), so each
 * such box is entered once, in the cell of its lower corner, and two boxes can only overlap when
 * their cells differ by at most one along every axis. The
 * grid proxies are sorted by cell key (column, then position along the sweep axis, the axis of
 * the largest span), and each one is tested against the proxies of its own cell and the next one
 * along its column, and of the three cells around it in each of the forward neighbour columns: a
 * half stencil, so every pair is met exactly once and no duplicate removal is needed. Proxies much
 * larger than the typical one (walls, containers) or with non-finite bounds are tested against
 * everything instead; unbounded ones (half-spaces) against everything or what comes near their
 * plane. The pairs come from per-thread buffers in any order and are then counting-sorted by
 * first index and by second within each run: the result is a function of the proxies only.
 *
 * Replaces a hashed grid with every box entered in every cell it touched (about 8 entries per
 * sphere, a random-access counting sort of the entries by hash bucket): at 10⁵ spheres the sorted
 * cells touch memory in order and do one key per proxy. */
#include "collision/broadphase.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/pages.h"
#include "base/parallel.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Scenes with fewer proxies run on one thread (a parallel region costs more than they take). */
#define BROADPHASE_PARALLEL_MIN 4096
/* The partial bounds of fixed blocks of proxies are summed in block order: the cell size does not
 * depend on the number of threads. */
#define BLOCK_PROXIES 4096
/* A proxy whose inflated extent exceeds this many times the mean is "large": tested against all
 * others, rather than making every cell as large as it is. */
#define LARGE_FACTOR 4.0
/* The pair search's work units: about this many a thread, of at least UNIT_MIN_ENTRIES entries. */
#define UNITS_PER_THREAD 32
#define UNIT_MIN_ENTRIES 256
/* Cell coordinates stay below 2^CELL_BITS per axis (the cell grows with the scene's span). */
#define CELL_BITS 20
/* The widest grid key: large_key = 2^bits and unbounded_key = 2^bits + 1 must fit in 64 bits. */
#define GRID_KEY_BITS_MAX 63

/* A grid proxy in cell order: its inflated box (the same rounded values boxes_overlap compares)
 * and its cell along the sweep axis. */
typedef struct grid_item_t {
  double lower[3], upper[3];
  int32_t proxy;
  int32_t body;
  uint32_t sweep;
  int32_t fixed;
} grid_item_t;

typedef struct sort_key_t {
  uint64_t key;
  int32_t index;
  int32_t pad;
} sort_key_t;

typedef struct thread_pairs_t {
  clt_broadphase_pair_t *pairs;
  int count, capacity;
  int64_t tests;
  int failed;
} thread_pairs_t;

/* Partial bounds of one block of proxies (bounded, finite ones). */
typedef struct block_bounds_t {
  double lo[3], hi[3];
  double extent_sum[3], extent_max[3]; /* per axis */
  double coord_max;
  int bounded;
} block_bounds_t;

void clt_broadphase_init(clt_broadphase_t *bp) { memset(bp, 0, sizeof *bp); }

void clt_broadphase_destroy(clt_broadphase_t *bp) {
  thread_pairs_t *t = bp->threads;
  for (int i = 0; i < bp->thread_capacity; i++) free(t[i].pairs);
  free(bp->threads);
  free(bp->entries);
  free(bp->bucket_start);
  free(bp->sort_buffer);
  free(bp->column_key);
  free(bp->units);
  free(bp->pair_buffer);
  free(bp->block);
  free(bp->histogram);
  free(bp->pairs);
  free(bp->large);
  free(bp->kept);
  memset(bp, 0, sizeof *bp);
}

void clt_broadphase_release_scratch(clt_broadphase_t *bp) {
  thread_pairs_t *t = bp->threads;
  for (int i = 0; i < bp->thread_capacity; i++)
    clt_release_pages(t[i].pairs, (size_t)t[i].capacity * sizeof *t[i].pairs);
  clt_release_pages(bp->entries, (size_t)bp->entry_capacity * sizeof(grid_item_t));
  clt_release_pages(bp->bucket_start, (size_t)bp->bucket_capacity * sizeof *bp->bucket_start);
  clt_release_pages(bp->sort_buffer, (size_t)bp->sort_capacity * sizeof(sort_key_t));
  clt_release_pages(bp->column_key, (size_t)bp->column_capacity * sizeof *bp->column_key);
  clt_release_pages(bp->units, (size_t)bp->unit_capacity * sizeof *bp->units);
  clt_release_pages(bp->pair_buffer, (size_t)bp->pair_buffer_capacity * sizeof(clt_broadphase_pair_t));
  clt_release_pages(bp->histogram, (size_t)bp->histogram_capacity * sizeof *bp->histogram);
  clt_release_pages(bp->kept, (size_t)bp->kept_capacity * sizeof(clt_broadphase_pair_t));
}

/* Grows *buffer to hold at least n elements of the given size. */
static bool reserve(void **buffer, int *capacity, int n, size_t size) {
  if (n <= *capacity) return true;
  int cap = *capacity > 0 ? *capacity : 64;
  while (cap < n) {
    if (cap > INT32_MAX / 2) return false;
    cap *= 2;
  }
  void *p = realloc(*buffer, (size_t)cap * size);
  if (!p) return false;
  *buffer = p;
  *capacity = cap;
  return true;
}

static bool boxes_overlap(const clt_broadphase_proxy_t *p, const clt_broadphase_proxy_t *q, double margin, int dim) {
  for (int k = 0; k < dim; k++)
    if (p->lower[k] - margin > q->upper[k] + margin || q->lower[k] - margin > p->upper[k] + margin) return false;
  return true;
}

static bool may_pair(const clt_broadphase_proxy_t *p, const clt_broadphase_proxy_t *q) {
  if (p->body == q->body) return false;
  if (p->fixed && q->fixed) return false;
  if (p->unbounded && q->unbounded) return false;
  return true;
}

/* Whether q's box, grown by margin, stays farther than margin outside the half-space of plane
 * proxy p: min over the box of n·x − offset > 2·margin. Non-finite bounds never count as beyond. */
static bool beyond_plane(const clt_broadphase_proxy_t *p, const clt_broadphase_proxy_t *q, double margin, int dim) {
  if (q->unbounded) return false;
  double lowest = 0.0;
  for (int k = 0; k < dim; k++) {
    double n = p->plane_normal[k];
    double x = n >= 0.0 ? q->lower[k] : q->upper[k];
    if (!isfinite(x)) return false;
    lowest += n * x;
  }
  return lowest - p->plane_offset > 2.0 * margin;
}

bool clt_broadphase_pair_test(const clt_broadphase_proxy_t *p, const clt_broadphase_proxy_t *q, int dimension,
                              double margin) {
  if (!(margin >= 0.0)) margin = 0.0;
  if (!may_pair(p, q)) return false;
  if (p->unbounded) return !(p->has_plane && beyond_plane(p, q, margin, dimension));
  if (q->unbounded) return !(q->has_plane && beyond_plane(q, p, margin, dimension));
  for (int k = 0; k < dimension; k++)
    if (!isfinite(p->lower[k]) || !isfinite(p->upper[k]) || !isfinite(q->lower[k]) || !isfinite(q->upper[k]))
      return true;
  return boxes_overlap(p, q, margin, dimension);
}

/* Whether index is in the ascending list. */
static bool is_large(const int *list, int n, int index) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (list[mid] == index) return true;
    if (list[mid] < index)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return false;
}

static void push_pair(thread_pairs_t *t, int i, int j) {
  if (t->count == t->capacity) {
    void *buffer = t->pairs;
    if (!reserve(&buffer, &t->capacity, t->count + 1, sizeof(clt_broadphase_pair_t))) {
      t->failed = 1;
      return;
    }
    t->pairs = buffer;
  }
  t->pairs[t->count].a = i < j ? i : j;
  t->pairs[t->count].b = i < j ? j : i;
  t->count++;
}

/* Two grid proxies: the test of boxes_overlap on the stored inflated bounds. */
static inline void test_items(thread_pairs_t *t, const grid_item_t *p, const grid_item_t *q, int dim) {
  t->tests++;
  if (p->body == q->body || (p->fixed && q->fixed)) return;
  for (int k = 0; k < dim; k++)
    if (p->lower[k] > q->upper[k] || q->lower[k] > p->upper[k]) return;
  push_pair(t, p->proxy, q->proxy);
}

/* The pairs become those in *other (an array of pairs with room for *capacity) and *other the old
 * pairs' array. */
static void swap_pairs_with(clt_broadphase_t *bp, void **other, int *capacity) {
  clt_broadphase_pair_t *old = bp->pairs;
  int old_cap = bp->pair_capacity;
  bp->pairs = *other;
  bp->pair_capacity = *capacity;
  *other = old;
  *capacity = old_cap;
}

/* The pairs become those in bp->pair_buffer and the buffer the old pairs' array. */
static void swap_pair_buffers(clt_broadphase_t *bp) {
  swap_pairs_with(bp, &bp->pair_buffer, &bp->pair_buffer_capacity);
}

/* Counting sort by a, then insertion sort by b inside each run of equal a. */
static bool sort_pairs(clt_broadphase_t *bp, int count) {
  int n = bp->pair_count;
  if (n <= 1) return true;
  if (!reserve(&bp->pair_buffer, &bp->pair_buffer_capacity, n, sizeof(clt_broadphase_pair_t))) return false;
  void *starts = bp->bucket_start;
  if (!reserve(&starts, &bp->bucket_capacity, count + 1, sizeof(int))) return false;
  bp->bucket_start = starts;
  int *start = bp->bucket_start;
  memset(start, 0, (size_t)(count + 1) * sizeof(int));
  for (int k = 0; k < n; k++) start[bp->pairs[k].a + 1]++;
  for (int i = 0; i < count; i++) start[i + 1] += start[i];
  clt_broadphase_pair_t *sorted = bp->pair_buffer;
  for (int k = 0; k < n; k++) sorted[start[bp->pairs[k].a]++] = bp->pairs[k];
  for (int k = 1; k < n; k++) {
    clt_broadphase_pair_t p = sorted[k];
    int m = k - 1;
    while (m >= 0 && sorted[m].a == p.a && sorted[m].b > p.b) {
      sorted[m + 1] = sorted[m];
      m--;
    }
    sorted[m + 1] = p;
  }
  swap_pair_buffers(bp); /* instead of copying back */
  return true;
}

/* The pairs of the per-thread buffers into bp->pairs (room for total), sorted by (a, b) as
 * sort_pairs does, in parallel: per-thread counts by a, their prefix sums in (a, thread) order, each
 * thread scattering its own pairs, then the runs of equal a sorted by b. The pairs are distinct, so
 * the result does not depend on which thread found which pair. */
static bool sort_thread_pairs(clt_broadphase_t *bp, int count, int threads, int total) {
  bp->pair_count = 0;
  size_t stride = (size_t)count + 1;
  if (stride * (size_t)threads > INT32_MAX) return false;
  void *h = bp->histogram;
  if (!reserve(&h, &bp->histogram_capacity, (int)(stride * (size_t)threads), sizeof(int))) return false;
  bp->histogram = h;
  int *hist = bp->histogram;
  const thread_pairs_t *tp = bp->threads;
  clt_broadphase_pair_t *out = bp->pairs;
#pragma omp parallel num_threads(threads)
  {
    /* (by buffer, not by thread: the team may be smaller than the buffers) */
#pragma omp for schedule(static, 1)
    for (int t = 0; t < threads; t++) {
      int *c = hist + stride * (size_t)t;
      memset(c, 0, stride * sizeof(int));
      for (int k = 0; k < tp[t].count; k++) c[tp[t].pairs[k].a]++;
    }
#pragma omp single
    {
      int at = 0;
      for (int a = 0; a < count; a++)
        for (int t = 0; t < threads; t++) {
          int n = hist[stride * (size_t)t + (size_t)a];
          hist[stride * (size_t)t + (size_t)a] = at;
          at += n;
        }
    }
#pragma omp for schedule(static, 1)
    for (int t = 0; t < threads; t++) {
      int *c = hist + stride * (size_t)t;
      for (int k = 0; k < tp[t].count; k++) out[c[tp[t].pairs[k].a]++] = tp[t].pairs[k];
    }
    /* hist of the last thread now holds the end of each run of equal a */
    const int *end = hist + stride * (size_t)(threads - 1);
#pragma omp for schedule(static)
    for (int a = 0; a < count; a++) {
      int s = a > 0 ? end[a - 1] : 0;
      for (int k = s + 1; k < end[a]; k++) {
        clt_broadphase_pair_t p = out[k];
        int m = k - 1;
        while (m >= s && out[m].b > p.b) {
          out[m + 1] = out[m];
          m--;
        }
        out[m + 1] = p;
      }
    }
  }
  bp->pair_count = total;
  return true;
}

/* Stable LSD radix sort of keys[0, n) on their low `bits` bits (11 per pass), using tmp. Returns
 * the array that holds the result (keys or tmp). */
static sort_key_t *radix_sort(sort_key_t *keys, sort_key_t *tmp, int n, int bits) {
  int count[2049];
  for (int shift = 0; shift < bits; shift += 11) {
    memset(count, 0, sizeof count);
    for (int i = 0; i < n; i++) count[((keys[i].key >> shift) & 2047u) + 1]++;
    if (count[1 + ((keys[0].key >> shift) & 2047u)] == n) continue; /* one digit value: nothing moves */
    for (int d = 0; d < 2048; d++) count[d + 1] += count[d];
    for (int i = 0; i < n; i++) tmp[count[(keys[i].key >> shift) & 2047u]++] = keys[i];
    sort_key_t *s = keys;
    keys = tmp;
    tmp = s;
  }
  return keys;
}

/* radix_sort on `threads` contiguous shares of the keys: per share counts of each digit, their
 * offsets in (digit, share) order, each share scattering its own keys. That is where the serial
 * stable sort puts every key, so the result is the same for any number of threads. hist: room for
 * threads × 2049 counts. */
static sort_key_t *radix_sort_parallel(sort_key_t *keys, sort_key_t *tmp, int n, int bits, int threads, int *hist) {
  for (int shift = 0; shift < bits; shift += 11) {
    bool one_digit = false;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static, 1)
      for (int t = 0; t < threads; t++) {
        int *c = hist + 2049 * (size_t)t;
        memset(c, 0, 2049 * sizeof(int));
        int i0 = (int)((int64_t)n * t / threads), i1 = (int)((int64_t)n * (t + 1) / threads);
        for (int i = i0; i < i1; i++) c[(keys[i].key >> shift) & 2047u]++;
      }
#pragma omp single
      {
        unsigned first = (unsigned)((keys[0].key >> shift) & 2047u);
        int same = 0;
        for (int t = 0; t < threads; t++) same += hist[2049 * (size_t)t + first];
        one_digit = same == n; /* nothing moves */
        int at = 0;
        for (int d = 0; d < 2048 && !one_digit; d++)
          for (int t = 0; t < threads; t++) {
            int m = hist[2049 * (size_t)t + (size_t)d];
            hist[2049 * (size_t)t + (size_t)d] = at;
            at += m;
          }
      }
      if (!one_digit) {
#pragma omp for schedule(static, 1)
        for (int t = 0; t < threads; t++) {
          int *c = hist + 2049 * (size_t)t;
          int i0 = (int)((int64_t)n * t / threads), i1 = (int)((int64_t)n * (t + 1) / threads);
          for (int i = i0; i < i1; i++) tmp[c[(keys[i].key >> shift) & 2047u]++] = keys[i];
        }
      }
    }
    if (one_digit) continue;
    sort_key_t *s = keys;
    keys = tmp;
    tmp = s;
  }
  return keys;
}

static int bit_width(uint64_t v) {
  int b = 0;
  while (v > 0) {
    b++;
    v >>= 1;
  }
  return b;
}

/* The grid of one query. */
typedef struct grid_t {
  double origin[3];
  double inv_cell[3];
  double limit[3]; /* largest inflated extent of a grid proxy along each axis: (1 − 10⁻⁶) of the cell */
  int sweep, a, b; /* axes: sweep (sorted along), a and b (the column; 2D: b unused) */
  int bits_s, bits_b, bits_a;
  uint64_t count_a, count_b; /* cells along a and b */
} grid_t;

static uint64_t cell_of(const grid_t *g, double x, int k) {
  double c = floor((x - g->origin[k]) * g->inv_cell[k]);
  if (!(c >= 0.0)) return 0; /* (never: x ≥ origin) */
  if (c > (double)((1u << (CELL_BITS + 1)) - 1)) return (1u << (CELL_BITS + 1)) - 1;
  return (uint64_t)c;
}

/* The proxies' partial bounds over block `blk`. */
static void block_bounds(const clt_broadphase_proxy_t *proxies, int count, int blk, int dim, double margin,
                         block_bounds_t *out) {
  block_bounds_t r;
  for (int k = 0; k < 3; k++) r.lo[k] = INFINITY, r.hi[k] = -INFINITY, r.extent_sum[k] = r.extent_max[k] = 0.0;
  r.coord_max = 0.0;
  r.bounded = 0;
  int end = (blk + 1) * BLOCK_PROXIES < count ? (blk + 1) * BLOCK_PROXIES : count;
  for (int i = blk * BLOCK_PROXIES; i < end; i++) {
    const clt_broadphase_proxy_t *p = &proxies[i];
    if (p->unbounded) continue;
    bool finite = true;
    for (int k = 0; k < dim; k++)
      if (!isfinite(p->lower[k]) || !isfinite(p->upper[k])) finite = false;
    if (!finite) continue;
    /* (finite values: plain comparisons, which unlike fmax are inlined) */
    for (int k = 0; k < dim; k++) {
      double l = p->lower[k] - margin, u = p->upper[k] + margin, a = fabs(l) > fabs(u) ? fabs(l) : fabs(u);
      double e = u - l;
      r.extent_sum[k] += e;
      if (e > r.extent_max[k]) r.extent_max[k] = e;
      if (l < r.lo[k]) r.lo[k] = l;
      if (u > r.hi[k]) r.hi[k] = u;
      if (a > r.coord_max) r.coord_max = a;
    }
    r.bounded++;
  }
  *out = r;
}

/* Chooses the cells, the axes and the origin from the bounds of the bounded proxies (the cells
 * depend on the proxies only). The cell is chosen per axis, from the extents along that axis:
 * where the boxes are longer along one axis than the others (grains falling through a step swept
 * along their velocity: 0.4 m tall, 0.1 m wide at 10⁵ grains), a cube as large as the longest
 * extent would put 16 times as many grains in a cell across, and every grain is tested against
 * the 27 cells around it (docs/design/granular.md "Broad phase": 2.4× fewer comparisons at 10⁵). */
static void make_grid(const block_bounds_t *all, int dim, grid_t *g) {
  double span[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 3; k++) {
    g->origin[k] = all->bounded > 0 && k < dim ? all->lo[k] : 0.0;
    if (all->bounded > 0 && k < dim) span[k] = all->hi[k] - all->lo[k];
  }
  for (int k = 0; k < 3; k++) {
    double mean = all->bounded > 0 ? all->extent_sum[k] / all->bounded : 0.0;
    double target = fmin(all->extent_max[k], LARGE_FACTOR * mean);
    /* Cell coordinates below 2^CELL_BITS along the axis, and rounding far below the 10⁻⁶ slack
     * of the neighbour property at the scene's coordinates (broadphase.c top comment). */
    double cell = target * (1.0 + 2e-6);
    cell = fmax(cell, span[k] * (1.0 / (double)(1u << CELL_BITS)));
    cell = fmax(cell, all->coord_max * (1.0 / (double)(1u << 26)));
    if (!(cell > 0.0) || !isfinite(cell)) cell = 1.0;
    g->inv_cell[k] = 1.0 / cell;
    g->limit[k] = cell * (1.0 - 1e-6);
  }
  /* The sweep axis: the largest span (the column grid over the two others stays small). */
  g->sweep = 0;
  for (int k = 1; k < dim; k++)
    if (span[k] > span[g->sweep]) g->sweep = k;
  if (dim == 2) {
    g->a = 1 - g->sweep;
    g->b = -1;
  } else {
    g->a = g->sweep == 0 ? 1 : 0;
    g->b = g->sweep == 2 ? 1 : 2;
  }
  /* The cells of the largest coordinates bound every key (cell_of is monotone in x). */
  double top[3];
  for (int k = 0; k < 3; k++) top[k] = all->bounded > 0 && k < dim ? all->hi[k] : g->origin[k];
  uint64_t n_s = cell_of(g, top[g->sweep], g->sweep) + 1;
  g->count_a = cell_of(g, top[g->a], g->a) + 1;
  g->count_b = g->b >= 0 ? cell_of(g, top[g->b], g->b) + 1 : 1;
  g->bits_s = bit_width(n_s);
  g->bits_b = bit_width(g->count_b);
  g->bits_a = bit_width(g->count_a);
}

/* Reserves the per-thread pair buffers. */
static bool reserve_threads(clt_broadphase_t *bp, int n) {
  if (n <= bp->thread_capacity) return true;
  thread_pairs_t *t = realloc(bp->threads, (size_t)n * sizeof *t);
  if (!t) return false;
  memset(t + bp->thread_capacity, 0, (size_t)(n - bp->thread_capacity) * sizeof *t);
  bp->threads = t;
  bp->thread_capacity = n;
  return true;
}

/* The column whose key is `key` (an index into col_key), or −1. */
static int find_column(const uint64_t *col_key, int columns, uint64_t key) {
  int lo = 0, hi = columns - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (col_key[mid] == key) return mid;
    if (col_key[mid] < key)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* The first entry of column q's [lo, hi) whose sweep cell is at least `cell` − 1 (sorted by cell). */
static int first_near(const grid_item_t *items, int lo, int hi, uint32_t cell) {
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (items[mid].sweep + 1 < cell)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The pairs of entries [first, last) of grid column c: with the later entries of the column (the
 * entry's own cell and the next one along the sweep axis) and with the forward neighbour columns
 * (a, b+1), (a+1, b−1), (a+1, b), (a+1, b+1), the three cells around the entry's along the sweep
 * axis in each. A column's ranges together find its pairs once each, whatever the split. */
static void column_pairs(const grid_t *g, const grid_item_t *items, const int *col_start, const uint64_t *col_key,
                         int columns, int c, int first, int last, int dim, thread_pairs_t *t) {
  int end = col_start[c + 1];
  for (int i = first; i < last; i++) {
    const grid_item_t *p = &items[i];
    for (int j = i + 1; j < end && items[j].sweep <= p->sweep + 1; j++) test_items(t, p, &items[j], dim);
  }
  uint64_t ca = col_key[c] >> g->bits_b, cb = col_key[c] & ((UINT64_C(1) << g->bits_b) - 1);
  static const int offsets[4][2] = {{0, 1}, {1, -1}, {1, 0}, {1, 1}};
  for (int o = 0; o < 4; o++) {
    if (offsets[o][1] < 0 && cb == 0) continue;
    uint64_t na = ca + (uint64_t)offsets[o][0], nb = cb + (uint64_t)(int64_t)offsets[o][1];
    if (na >= g->count_a || nb >= g->count_b) continue; /* (keys would alias another column) */
    int q = find_column(col_key, columns, (na << g->bits_b) | nb);
    if (q < 0) continue;
    int qe = col_start[q + 1], qb = first_near(items, col_start[q], qe, items[first].sweep);
    for (int i = first; i < last && qb < qe; i++) {
      const grid_item_t *p = &items[i];
      while (qb < qe && items[qb].sweep + 1 < p->sweep) qb++;
      for (int j = qb; j < qe && items[j].sweep <= p->sweep + 1; j++) test_items(t, p, &items[j], dim);
    }
  }
}

/* The pairs of the proxies of changed bodies among entries [first, last) of grid column c
 * (clt_broadphase_update_pairs): with every proxy of the column and of the eight around it, in the
 * three cells around its own along the sweep axis: the candidates column_pairs would test with it,
 * from either side. A pair of two changed proxies is taken from the one with the lower index. */
static void changed_column_pairs(const grid_t *g, const grid_item_t *items, const int *col_start,
                                 const uint64_t *col_key, int columns, int c, int first, int last, int dim,
                                 const unsigned char *changed, thread_pairs_t *t) {
  int64_t ca = (int64_t)(col_key[c] >> g->bits_b), cb = (int64_t)(col_key[c] & ((UINT64_C(1) << g->bits_b) - 1));
  for (int i = first; i < last; i++) {
    const grid_item_t *p = &items[i];
    if (!changed[p->body]) continue;
    for (int da = -1; da <= 1; da++)
      for (int db = -1; db <= 1; db++) {
        int64_t na = ca + da, nb = cb + db;
        if (na < 0 || nb < 0 || na >= (int64_t)g->count_a || nb >= (int64_t)g->count_b) continue;
        int q = da == 0 && db == 0 ? c : find_column(col_key, columns, ((uint64_t)na << g->bits_b) | (uint64_t)nb);
        if (q < 0) continue;
        for (int j = first_near(items, col_start[q], col_start[q + 1], p->sweep);
             j < col_start[q + 1] && items[j].sweep <= p->sweep + 1; j++) {
          const grid_item_t *o = &items[j];
          if (j == i || (changed[o->body] && o->proxy < p->proxy)) continue;
          test_items(t, p, o, dim);
        }
      }
  }
}

/* The first index of pairs[0, n) whose a is at least a (pairs sorted by a). */
static int first_pair_from(const clt_broadphase_pair_t *pairs, int n, int a) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (pairs[mid].a < a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static bool pair_kept(const clt_broadphase_pair_t *p, const clt_broadphase_proxy_t *proxies,
                      const unsigned char *changed) {
  return !changed[proxies[p->a].body] && !changed[proxies[p->b].body];
}

/* Merges into out the pairs of kept[k0, k1) without a proxy of a changed body and the sorted
 * fresh[f0, f1) (each with one); returns the number written (out NULL: only counts). */
static int merge_range(const clt_broadphase_pair_t *kept, int k0, int k1, const clt_broadphase_pair_t *fresh, int f0,
                       int f1, const clt_broadphase_proxy_t *proxies, const unsigned char *changed,
                       clt_broadphase_pair_t *out) {
  int m = 0;
  if (!out) {
    for (int k = k0; k < k1; k++) m += pair_kept(&kept[k], proxies, changed);
    return m + (f1 - f0);
  }
  int i = k0, j = f0;
  while (i < k1 || j < f1) {
    if (i < k1 && !pair_kept(&kept[i], proxies, changed)) {
      i++;
      continue;
    }
    bool take_kept =
        j >= f1 || (i < k1 && (kept[i].a < fresh[j].a || (kept[i].a == fresh[j].a && kept[i].b < fresh[j].b)));
    out[m++] = take_kept ? kept[i++] : fresh[j++];
  }
  return m;
}

/* The pairs of bp->kept[0, kept) without a proxy of a changed body, merged with the sorted pairs
 * of bp->pairs (each with one): into bp->pair_buffer, then swapped in. In parallel, each share of
 * the proxy indices (by a) is merged at its offset: the same pairs in the same order. */
static bool merge_kept(clt_broadphase_t *bp, const clt_broadphase_proxy_t *proxies, int count, int kept,
                       const unsigned char *changed) {
  enum { SHARES = 64 };
  int n = bp->pair_count, shares = 1;
#ifdef _OPENMP
  if (count >= BROADPHASE_PARALLEL_MIN) shares = omp_get_max_threads() < SHARES ? omp_get_max_threads() : SHARES;
#endif
  int k_at[SHARES + 1], f_at[SHARES + 1], out_at[SHARES + 1];
  for (int t = 0; t <= shares; t++) {
    int a = (int)((int64_t)count * t / shares);
    k_at[t] = t == shares ? kept : first_pair_from(bp->kept, kept, a);
    f_at[t] = t == shares ? n : first_pair_from(bp->pairs, n, a);
  }
  out_at[0] = 0;
  CLT_PARALLEL_FOR_IF(shares > 1, schedule(static, 1) num_threads(shares),
  for (int t = 0; t < shares; t++)
    out_at[t + 1] =
        merge_range(bp->kept, k_at[t], k_at[t + 1], bp->pairs, f_at[t], f_at[t + 1], proxies, changed, NULL);
  );
  for (int t = 0; t < shares; t++) out_at[t + 1] += out_at[t];
  int total = out_at[shares];
  if (!reserve(&bp->pair_buffer, &bp->pair_buffer_capacity, total > 0 ? total : 1, sizeof(clt_broadphase_pair_t)))
    return false;
  clt_broadphase_pair_t *out = bp->pair_buffer;
  CLT_PARALLEL_FOR_IF(shares > 1, schedule(static, 1) num_threads(shares),
  for (int t = 0; t < shares; t++)
    merge_range(bp->kept, k_at[t], k_at[t + 1], bp->pairs, f_at[t], f_at[t + 1], proxies, changed, out + out_at[t]);
  );
  swap_pair_buffers(bp);
  bp->pair_count = total;
  return true;
}

static clt_status_t find_pairs(clt_broadphase_t *bp, const clt_broadphase_proxy_t *proxies, int count, int dimension,
                               double margin, const unsigned char *changed);

clt_status_t clt_broadphase_find_pairs(clt_broadphase_t *bp, const clt_broadphase_proxy_t *proxies, int count,
                                       int dimension, double margin) {
  return find_pairs(bp, proxies, count, dimension, margin, NULL);
}

clt_status_t clt_broadphase_update_pairs(clt_broadphase_t *bp, const clt_broadphase_proxy_t *proxies, int count,
                                         int dimension, double margin, const unsigned char *changed) {
  if (!changed) return CLT_ERR_INVALID_ARGUMENT;
  /* the earlier pairs become bp->kept, by swapping the arrays (find_pairs fills bp->pairs) */
  int kept = bp->pair_count;
  swap_pairs_with(bp, &bp->kept, &bp->kept_capacity);
  clt_status_t st = find_pairs(bp, proxies, count, dimension, margin, changed);
  if (st != CLT_OK) return st;
  if (!merge_kept(bp, proxies, count, kept, changed)) {
    bp->pair_count = 0;
    return CLT_ERR_OUT_OF_MEMORY;
  }
  return CLT_OK;
}

/* clt_broadphase_find_pairs; with `changed`, only the pairs with a proxy of a changed body. */
static clt_status_t find_pairs(clt_broadphase_t *bp, const clt_broadphase_proxy_t *proxies, int count, int dimension,
                               double margin, const unsigned char *changed) {
  bp->pair_count = 0;
  bp->grid_entries = 0;
  bp->large_count = 0;
  bp->entry_tests = 0;
  if (count < 0 || (dimension != 2 && dimension != 3)) return CLT_ERR_INVALID_ARGUMENT;
  if (!(margin >= 0.0)) margin = 0.0;
  int dim = dimension;
  bool par = count >= BROADPHASE_PARALLEL_MIN;
  (void)par;
  int threads = 1;
#ifdef _OPENMP
  if (par) threads = omp_get_max_threads();
#endif
  if (threads < 1) threads = 1;

  /* Bounds of the bounded proxies: fixed blocks in parallel, combined in block order. */
  int blocks = (count + BLOCK_PROXIES - 1) / BLOCK_PROXIES;
  {
    void *b = bp->block;
    int need = (int)((size_t)(blocks > 0 ? blocks : 1) * sizeof(block_bounds_t) / sizeof(double));
    if (!reserve(&b, &bp->block_capacity, need, sizeof(double))) return CLT_ERR_OUT_OF_MEMORY;
    bp->block = b;
  }
  block_bounds_t *bb = (block_bounds_t *)(void *)bp->block;
  CLT_PARALLEL_FOR_IF(par, schedule(static),
  for (int blk = 0; blk < blocks; blk++) block_bounds(proxies, count, blk, dim, margin, &bb[blk]);
  );
  block_bounds_t all;
  for (int k = 0; k < 3; k++) all.lo[k] = INFINITY, all.hi[k] = -INFINITY;
  for (int k = 0; k < 3; k++) all.extent_sum[k] = all.extent_max[k] = 0.0;
  all.coord_max = 0.0;
  all.bounded = 0;
  for (int blk = 0; blk < blocks; blk++) {
    for (int k = 0; k < 3; k++) {
      all.lo[k] = fmin(all.lo[k], bb[blk].lo[k]);
      all.hi[k] = fmax(all.hi[k], bb[blk].hi[k]);
    }
    for (int k = 0; k < 3; k++) {
      all.extent_sum[k] += bb[blk].extent_sum[k];
      all.extent_max[k] = fmax(all.extent_max[k], bb[blk].extent_max[k]);
    }
    all.coord_max = fmax(all.coord_max, bb[blk].coord_max);
    all.bounded += bb[blk].bounded;
  }
  grid_t g;
  make_grid(&all, dim, &g);
  bp->cell_size = 0.0;
  for (int k = 0; k < dim; k++) bp->cell_size = fmax(bp->cell_size, 1.0 / g.inv_cell[k]);

  /* Cell keys: (a, b, sweep cell) for the grid proxies; the others after them (large: 1, unbounded:
   * 2 above every grid key), so the sort also lists them in index order. The grid needs a key of
   * at most 63 bits: 21 per axis at most when the cells cover the span (make_grid). Only bounds
   * whose span or extent overflows (coordinates near 1e308, a margin of 1e308) leave the cell at
   * 1.0 and put the clamped cells (22 bits) on every axis: then there is no grid, and every
   * bounded proxy is "large", tested against all the others (O(N²), exact). */
  bool use_grid = g.bits_a + g.bits_b + g.bits_s <= GRID_KEY_BITS_MAX;
  int key_bits = use_grid ? g.bits_a + g.bits_b + g.bits_s : 0;
  uint64_t large_key = UINT64_C(1) << key_bits, unbounded_key = large_key + 1;
  if (!reserve(&bp->sort_buffer, &bp->sort_capacity, 2 * (count > 0 ? count : 1), sizeof(sort_key_t)))
    return CLT_ERR_OUT_OF_MEMORY;
  sort_key_t *keys = bp->sort_buffer, *tmp = keys + count;
  int n_grid = 0;
  CLT_PARALLEL_FOR_IF(par, schedule(static) reduction(+ : n_grid),
  for (int i = 0; i < count; i++) {
    const clt_broadphase_proxy_t *p = &proxies[i];
    keys[i].index = i;
    keys[i].pad = 0;
    if (p->unbounded) {
      keys[i].key = unbounded_key;
      continue;
    }
    bool grid = use_grid;
    for (int k = 0; k < dim && grid; k++) {
      double l = p->lower[k] - margin, u = p->upper[k] + margin;
      if (!isfinite(l) || !isfinite(u) || !(u - l <= g.limit[k])) grid = false;
    }
    if (!grid) {
      keys[i].key = large_key;
      continue;
    }
    uint64_t cs = cell_of(&g, p->lower[g.sweep] - margin, g.sweep);
    uint64_t ca = cell_of(&g, p->lower[g.a] - margin, g.a);
    uint64_t cb = g.b >= 0 ? cell_of(&g, p->lower[g.b] - margin, g.b) : 0;
    keys[i].key = (((ca << g.bits_b) | cb) << g.bits_s) | cs;
    n_grid++;
  });
  sort_key_t *sorted = keys;
  if (count > 0 && threads > 1) {
    void *h = bp->histogram;
    if (!reserve(&h, &bp->histogram_capacity, 2049 * threads, sizeof(int))) return CLT_ERR_OUT_OF_MEMORY;
    bp->histogram = h;
    sorted = radix_sort_parallel(keys, tmp, count, key_bits + 2, threads, bp->histogram);
  } else if (count > 0) {
    sorted = radix_sort(keys, tmp, count, key_bits + 2);
  }
  bp->grid_entries = n_grid;

  /* The large proxies (ascending), after the grid ones in the sorted keys. */
  int n_large = 0;
  for (int k = n_grid; k < count && sorted[k].key == large_key; k++) n_large++;
  {
    void *large = bp->large;
    if (!reserve(&large, &bp->large_capacity, n_large > 0 ? n_large : 1, sizeof(int))) return CLT_ERR_OUT_OF_MEMORY;
    bp->large = large;
  }
  for (int k = 0; k < n_large; k++) bp->large[k] = sorted[n_grid + k].index;
  bp->large_count = n_large;
  int n_unbounded = count - n_grid - n_large;
  const sort_key_t *unbounded = sorted + n_grid + n_large;

  /* The grid proxies in cell order, and the columns. */
  if (!reserve(&bp->entries, &bp->entry_capacity, n_grid > 0 ? n_grid : 1, sizeof(grid_item_t)))
    return CLT_ERR_OUT_OF_MEMORY;
  grid_item_t *items = bp->entries;
  uint64_t sweep_mask = (UINT64_C(1) << g.bits_s) - 1;
  CLT_PARALLEL_FOR_IF(par, schedule(static),
  for (int k = 0; k < n_grid; k++) {
    const clt_broadphase_proxy_t *p = &proxies[sorted[k].index];
    grid_item_t *it = &items[k];
    for (int d = 0; d < 3; d++) {
      it->lower[d] = p->lower[d] - margin;
      it->upper[d] = p->upper[d] + margin;
    }
    it->proxy = sorted[k].index;
    it->body = p->body;
    it->fixed = p->fixed;
    it->sweep = (uint32_t)(sorted[k].key & sweep_mask);
  });
  int columns = 0;
  for (int k = 0; k < n_grid; k++)
    if (k == 0 || (sorted[k].key >> g.bits_s) != (sorted[k - 1].key >> g.bits_s)) columns++;
  {
    void *starts = bp->bucket_start, *ck = bp->column_key;
    if (!reserve(&starts, &bp->bucket_capacity, columns + 1, sizeof(int)) ||
        !reserve(&ck, &bp->column_capacity, columns + 1, sizeof(uint64_t)))
      return CLT_ERR_OUT_OF_MEMORY;
    bp->bucket_start = starts;
    bp->column_key = ck;
  }
  int *col_start = bp->bucket_start;
  uint64_t *col_key = bp->column_key;
  for (int k = 0, c = 0; k < n_grid; k++)
    if (k == 0 || (sorted[k].key >> g.bits_s) != (sorted[k - 1].key >> g.bits_s)) {
      col_key[c] = sorted[k].key >> g.bits_s;
      col_start[c++] = k;
    }
  col_start[columns] = n_grid;

  /* The pairs, into per-thread buffers: grid columns, large proxies against every bounded proxy
   * (each large–large pair once), unbounded ones against everything else (with a plane: what comes
   * within reach of it). */
  if (!reserve_threads(bp, threads)) return CLT_ERR_OUT_OF_MEMORY;
  thread_pairs_t *tp = bp->threads;
  for (int t = 0; t < threads; t++) {
    tp[t].count = 0;
    tp[t].tests = 0;
    tp[t].failed = 0;
  }
  const int *large = bp->large;
  /* The work units: each column cut into runs of at most `run` entries, about UNITS_PER_THREAD
   * runs a thread in all, so that the threads stay busy together when a few columns hold most of
   * the entries (a tall pile in a narrow box: 4 to 36 columns of up to 6000 entries). */
  int run = n_grid / (UNITS_PER_THREAD * threads) > UNIT_MIN_ENTRIES ? n_grid / (UNITS_PER_THREAD * threads)
                                                                      : UNIT_MIN_ENTRIES;
  int units = 0;
  for (int c = 0; c < columns; c++) units += (col_start[c + 1] - col_start[c] + run - 1) / run;
  {
    void *u = bp->units;
    if (!reserve(&u, &bp->unit_capacity, 2 * (units > 0 ? units : 1), sizeof(int))) return CLT_ERR_OUT_OF_MEMORY;
    bp->units = u;
  }
  int *unit = bp->units;
  for (int c = 0, u = 0; c < columns; c++)
    for (int k = col_start[c]; k < col_start[c + 1]; k += run, u++) {
      unit[2 * u] = c;
      unit[2 * u + 1] = k;
    }
  CLT_PARALLEL_IF(par, num_threads(threads), {
    int me = clt_thread_num();
    /* A copy on this thread's stack: the counters are written at every test, and the threads'
     * records share a cache line (false sharing made this loop 2.4x the work on 2 threads). */
    thread_pairs_t mine = tp[me], *t = &mine;
    CLT_PRAGMA_(omp for schedule(dynamic, 1) nowait)
    for (int u = 0; u < units; u++) {
      int c = unit[2 * u], first = unit[2 * u + 1];
      int last = first + run < col_start[c + 1] ? first + run : col_start[c + 1];
      if (changed)
        changed_column_pairs(&g, items, col_start, col_key, columns, c, first, last, dim, changed, t);
      else
        column_pairs(&g, items, col_start, col_key, columns, c, first, last, dim, t);
    }
    if (n_large > 0 || n_unbounded > 0) {
      CLT_PRAGMA_(omp for schedule(static) nowait)
      for (int j = 0; j < count; j++) {
        const clt_broadphase_proxy_t *q = &proxies[j];
        for (int l = 0; l < n_large; l++) {
          int i = large[l];
          const clt_broadphase_proxy_t *p = &proxies[i];
          if (j == i || q->unbounded || !may_pair(p, q)) continue;
          if (changed && !changed[p->body] && !changed[q->body]) continue;
          if (j < i && is_large(large, n_large, j)) continue; /* reported from j's side */
          bool overlap = boxes_overlap(p, q, margin, dim);
          /* Non-finite bounds (a body that blew up): let the narrow phase see it. */
          for (int k = 0; k < dim; k++)
            if (!isfinite(p->lower[k]) || !isfinite(p->upper[k]) || !isfinite(q->lower[k]) ||
                !isfinite(q->upper[k]))
              overlap = true;
          if (overlap) push_pair(t, i, j);
        }
        for (int u = 0; u < n_unbounded; u++) {
          int i = unbounded[u].index;
          const clt_broadphase_proxy_t *p = &proxies[i];
          if (j == i || !may_pair(p, q)) continue;
          if (changed && !changed[p->body] && !changed[q->body]) continue;
          if (p->has_plane && beyond_plane(p, q, margin, dim)) continue;
          push_pair(t, i, j);
        }
      }
    }
    tp[me] = mine;
  });

  int total = 0;
  bool failed = false;
  for (int t = 0; t < threads; t++) {
    failed = failed || tp[t].failed;
    total += tp[t].count;
    bp->entry_tests += tp[t].tests;
  }
  if (failed) return CLT_ERR_OUT_OF_MEMORY;
  {
    void *buffer = bp->pairs;
    if (!reserve(&buffer, &bp->pair_capacity, total > 0 ? total : 1, sizeof(clt_broadphase_pair_t)))
      return CLT_ERR_OUT_OF_MEMORY;
    bp->pairs = buffer;
  }
  if (threads > 1) return sort_thread_pairs(bp, count, threads, total) ? CLT_OK : CLT_ERR_OUT_OF_MEMORY;
  for (int t = 0, at = 0; t < threads; t++) {
    if (tp[t].count > 0) memcpy(bp->pairs + at, tp[t].pairs, (size_t)tp[t].count * sizeof *bp->pairs);
    at += tp[t].count;
  }
  bp->pair_count = total;
  if (!sort_pairs(bp, count)) {
    bp->pair_count = 0;
    return CLT_ERR_OUT_OF_MEMORY;
  }
  return CLT_OK;
}
