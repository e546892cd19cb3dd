/* Uniform-grid broad phase (SPEC.md §5; see broadphase.h). Each bounded proxy is entered in every
 * cell its inflated box touches; cells are hashed into a table of about one bucket per entry and
 * the entries counting-sorted by hash bucket. A pair found in several shared cells is reported only from the
 * cell that holds the lower corner of the two boxes' intersection, so no duplicate removal is
 * needed. The final pair list is counting-sorted by first index, then by second within each run,
 * both O(N + pairs) for bounded neighbour counts. */
#include "collision/broadphase.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A proxy covering more cells than this is "large": tested against all others instead. */
#define MAX_CELLS_PER_PROXY 64

/* 16 bytes: cell coordinates fit in 32 bits (the cell is at least 1e-9 of the scene's span, and
 * coordinates count from the scene's lower corner), and the hash bucket is recomputed instead of
 * stored. At 10^5 spheres (about 8 entries each) the entries and their sorted copy take 26 MB
 * instead of 51 MB. */
typedef struct grid_entry_t {
  int32_t cell[3];
  int32_t proxy;
} grid_entry_t;

void clt_broadphase_init(clt_broadphase_t *bp) { memset(bp, 0, sizeof *bp); }

void clt_broadphase_destroy(clt_broadphase_t *bp) {
  free(bp->entries);
  free(bp->bucket_start);
  free(bp->sort_buffer);
  free(bp->pairs);
  free(bp->large);
  free(bp->low_cell);
  memset(bp, 0, sizeof *bp);
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

static uint32_t hash_cell(const int32_t c[3], uint32_t mask) {
  uint64_t h = (uint64_t)c[0] * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)c[1] * 0xC2B2AE3D27D4EB4Full + (h >> 29);
  h ^= (uint64_t)c[2] * 0x165667B19E3779F9ull + (h >> 32);
  h ^= h >> 31;
  return (uint32_t)h & mask;
}

typedef struct grid_t {
  double origin[3];
  double inv_cell;
  int dimension;
} grid_t;

static int64_t cell_coord(const grid_t *g, double x, int k) { return (int64_t)floor((x - g->origin[k]) * g->inv_cell); }

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

static bool push_pair(clt_broadphase_t *bp, int i, int j) {
  void *buffer = bp->pairs;
  if (!reserve(&buffer, &bp->pair_capacity, bp->pair_count + 1, sizeof(clt_broadphase_pair_t))) return false;
  bp->pairs = buffer;
  bp->pairs[bp->pair_count].a = i < j ? i : j;
  bp->pairs[bp->pair_count].b = i < j ? j : i;
  bp->pair_count++;
  return true;
}

/* Counting sort by a, then insertion sort by b inside each run of equal a. */
static bool sort_pairs(clt_broadphase_t *bp, int count) {
  int n = bp->pair_count;
  if (n <= 1) return true;
  if (!reserve(&bp->sort_buffer, &bp->sort_capacity, n, sizeof(clt_broadphase_pair_t))) return false;
  int *start = NULL;
  void *starts = bp->bucket_start;
  if (!reserve(&starts, &bp->bucket_capacity, count + 1, sizeof(int))) return false;
  bp->bucket_start = starts;
  start = bp->bucket_start;
  memset(start, 0, (size_t)(count + 1) * sizeof(int));
  for (int k = 0; k < n; k++) start[bp->pairs[k].a + 1]++;
  for (int i = 0; i < count; i++) start[i + 1] += start[i];
  clt_broadphase_pair_t *sorted = bp->sort_buffer;
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
  memcpy(bp->pairs, sorted, (size_t)n * sizeof *sorted);
  return true;
}

clt_status_t clt_broadphase_find_pairs(clt_broadphase_t *bp, const clt_broadphase_proxy_t *proxies, int count,
                                       int dimension, double margin) {
  bp->pair_count = 0;
  bp->grid_entries = 0;
  bp->large_count = 0;
  bp->entry_tests = 0;
  if (count < 0 || (dimension != 2 && dimension != 3)) return CLT_ERR_INVALID_ARGUMENT;
  if (!(margin >= 0.0)) margin = 0.0;
  int dim = dimension;

  /* Cell size: the mean inflated extent of the bounded proxies (granular scenes: about one
   * particle per cell), and an origin at the scene's lower corner. */
  grid_t g;
  double extent_sum = 0.0, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  int bounded = 0;
  for (int i = 0; i < count; i++) {
    const clt_broadphase_proxy_t *p = &proxies[i];
    if (p->unbounded) continue;
    double e = 0.0;
    bool finite = true;
    for (int k = 0; k < dim; k++) {
      if (!isfinite(p->lower[k]) || !isfinite(p->upper[k])) finite = false;
      e = fmax(e, p->upper[k] - p->lower[k] + 2.0 * margin);
    }
    if (!finite) continue;
    for (int k = 0; k < dim; k++) {
      lo[k] = fmin(lo[k], p->lower[k] - margin);
      hi[k] = fmax(hi[k], p->upper[k] + margin);
    }
    extent_sum += e;
    bounded++;
  }
  double cell = bounded > 0 ? extent_sum / bounded : 1.0;
  double span = 0.0;
  for (int k = 0; k < dim; k++) {
    g.origin[k] = bounded > 0 ? lo[k] : 0.0;
    if (bounded > 0) span = fmax(span, hi[k] - lo[k]);
  }
  if (dim == 2) g.origin[2] = 0.0;
  /* Keep cell coordinates well inside int64 and the cell non-degenerate. */
  cell = fmax(cell, span * 1e-9);
  if (!(cell > 0.0)) cell = 1.0;
  g.inv_cell = 1.0 / cell;
  g.dimension = dim;
  bp->cell_size = cell;

  /* Enter the proxies in the grid (and keep each one's lower cell for the home test). */
  {
    void *low = bp->low_cell;
    if (!reserve(&low, &bp->low_capacity, count > 0 ? 3 * count : 1, sizeof(int32_t))) return CLT_ERR_OUT_OF_MEMORY;
    bp->low_cell = low;
  }
  const int32_t *low = bp->low_cell;
  int n_entries = 0, n_large = 0;
  for (int i = 0; i < count; i++) {
    const clt_broadphase_proxy_t *p = &proxies[i];
    if (p->unbounded) continue;
    int64_t c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
    int64_t cells = 1;
    bool finite = true;
    for (int k = 0; k < dim; k++) {
      if (!isfinite(p->lower[k]) || !isfinite(p->upper[k])) {
        finite = false;
        break;
      }
      c0[k] = cell_coord(&g, p->lower[k] - margin, k);
      c1[k] = cell_coord(&g, p->upper[k] + margin, k);
      cells *= c1[k] - c0[k] + 1;
      if (cells > MAX_CELLS_PER_PROXY) break;
    }
    if (!finite || cells > MAX_CELLS_PER_PROXY) {
      void *large = bp->large;
      if (!reserve(&large, &bp->large_capacity, n_large + 1, sizeof(int))) return CLT_ERR_OUT_OF_MEMORY;
      bp->large = large;
      bp->large[n_large++] = i;
      continue;
    }
    if (!reserve(&bp->entries, &bp->entry_capacity, n_entries + (int)cells, sizeof(grid_entry_t)))
      return CLT_ERR_OUT_OF_MEMORY;
    for (int k = 0; k < 3; k++) bp->low_cell[3 * (size_t)i + k] = (int32_t)c0[k];
    grid_entry_t *e = bp->entries;
    for (int64_t z = c0[2]; z <= c1[2]; z++)
      for (int64_t y = c0[1]; y <= c1[1]; y++)
        for (int64_t x = c0[0]; x <= c1[0]; x++) {
          e[n_entries].cell[0] = (int32_t)x;
          e[n_entries].cell[1] = (int32_t)y;
          e[n_entries].cell[2] = (int32_t)z;
          e[n_entries].proxy = i;
          n_entries++;
        }
  }
  bp->grid_entries = n_entries;
  bp->large_count = n_large;

  /* Hash buckets: counting sort of the entries by bucket (about one entry per bucket). */
  uint32_t table = 64;
  while (table < (uint32_t)n_entries && table < (1u << 30)) table <<= 1;
  uint32_t mask = table - 1;
  {
    void *starts = bp->bucket_start;
    int need = (int)table + 1 > count + 1 ? (int)table + 1 : count + 1;
    if (!reserve(&starts, &bp->bucket_capacity, need, sizeof(int))) return CLT_ERR_OUT_OF_MEMORY;
    bp->bucket_start = starts;
  }
  if (!reserve(&bp->sort_buffer, &bp->sort_capacity,
               (int)((size_t)n_entries * sizeof(grid_entry_t) / sizeof(clt_broadphase_pair_t)) + 1,
               sizeof(clt_broadphase_pair_t)))
    return CLT_ERR_OUT_OF_MEMORY;
  grid_entry_t *entries = bp->entries, *sorted = bp->sort_buffer;
  int *start = bp->bucket_start;
  memset(start, 0, ((size_t)table + 1) * sizeof(int));
  for (int k = 0; k < n_entries; k++) start[hash_cell(entries[k].cell, mask) + 1]++;
  for (uint32_t b = 0; b < table; b++) start[b + 1] += start[b];
  for (int k = 0; k < n_entries; k++) sorted[start[hash_cell(entries[k].cell, mask)]++] = entries[k];
  /* start[b] is now the end of bucket b; buckets are contiguous in `sorted`. */

  int begin = 0;
  for (uint32_t b = 0; b < table; b++) {
    int end = start[b];
    for (int s = begin; s < end; s++) {
      const grid_entry_t *es = &sorted[s];
      const clt_broadphase_proxy_t *p = &proxies[es->proxy];
      bp->entry_tests += end - s - 1;
      const int32_t *lp = low + 3 * (size_t)es->proxy;
      for (int t = s + 1; t < end; t++) {
        const grid_entry_t *et = &sorted[t];
        if (et->cell[0] != es->cell[0] || et->cell[1] != es->cell[1] || et->cell[2] != es->cell[2]) continue;
        /* Report from the cell holding the lower corner of the intersection only: the cell of
         * max(lower_p, lower_q) − margin, which (the cell coordinate being monotone in x) is the
         * larger of the two proxies' lower cells; testing it first skips the boxes of the pairs
         * met again in the other cells they share. */
        const int32_t *lq = low + 3 * (size_t)et->proxy;
        bool home = true;
        for (int k = 0; k < dim && home; k++) home = (lp[k] > lq[k] ? lp[k] : lq[k]) == es->cell[k];
        if (!home) continue;
        const clt_broadphase_proxy_t *q = &proxies[et->proxy];
        if (es->proxy == et->proxy || !may_pair(p, q) || !boxes_overlap(p, q, margin, dim)) continue;
        if (!push_pair(bp, es->proxy, et->proxy)) {
          bp->pair_count = 0;
          return CLT_ERR_OUT_OF_MEMORY;
        }
      }
    }
    begin = end;
  }

  /* Large proxies against every bounded proxy (each large–large pair once). */
  for (int l = 0; l < n_large; l++) {
    int i = bp->large[l];
    const clt_broadphase_proxy_t *p = &proxies[i];
    for (int j = 0; j < count; j++) {
      const clt_broadphase_proxy_t *q = &proxies[j];
      if (j == i || q->unbounded || !may_pair(p, q)) continue;
      if (j < i && is_large(bp->large, n_large, j)) continue; /* reported from j's side */
      bool overlap = boxes_overlap(p, q, margin, dim);
      /* Non-finite bounds (a body that blew up): let the narrow phase see it. */
      for (int k = 0; k < dim; k++)
        if (!isfinite(p->lower[k]) || !isfinite(p->upper[k]) || !isfinite(q->lower[k]) || !isfinite(q->upper[k]))
          overlap = true;
      if (overlap && !push_pair(bp, i, j)) {
        bp->pair_count = 0;
        return CLT_ERR_OUT_OF_MEMORY;
      }
    }
  }

  /* Unbounded proxies against everything else (with a plane: what comes within reach of it). */
  for (int i = 0; i < count; i++) {
    if (!proxies[i].unbounded) continue;
    for (int j = 0; j < count; j++) {
      if (j == i || !may_pair(&proxies[i], &proxies[j])) continue;
      if (proxies[i].has_plane && beyond_plane(&proxies[i], &proxies[j], margin, dim)) continue;
      if (!push_pair(bp, i, j)) {
        bp->pair_count = 0;
        return CLT_ERR_OUT_OF_MEMORY;
      }
    }
  }

  if (!sort_pairs(bp, count)) {
    bp->pair_count = 0;
    return CLT_ERR_OUT_OF_MEMORY;
  }
  return CLT_OK;
}
