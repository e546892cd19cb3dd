/* Broad phase (SPEC.md §5): candidate shape pairs whose bounding boxes, inflated by the active-set
 * margin ε̂, overlap. A uniform grid (each box in the cell of its lower corner, cells at least as
 * large as the boxes, neighbours found in sorted cell order) gives expected O(N + pairs) cost for
 * granular scenes (objects of similar size); objects much larger than the cells (walls,
 * containers) are tested against everything instead of being rasterized, and unbounded shapes
 * (half-planes / half-spaces) are candidates against every other shape, or, when the proxy carries
 * its plane, against those near it. The same pair list serves the active set and the
 * infeasibility report. */
#ifndef CLATTER_COLLISION_BROADPHASE_H
#define CLATTER_COLLISION_BROADPHASE_H

#include <stdbool.h>
#include <stdint.h>

#include "clatter/types.h"

typedef struct clt_broadphase_proxy_t {
  double lower[3], upper[3]; /* world-frame bounds (clt_shape_bounds); 2D: [2] = 0 */
  bool unbounded;            /* half-plane / half-space: bounds ignored */
  int body;                  /* proxies of the same body never pair */
  bool fixed;                /* static or kinematic: two fixed proxies never pair */
  /* Unbounded proxies only, optional (has_plane false: paired with every other proxy): the
   * half-space's boundary, solid where plane_normal·x < plane_offset (unit outward normal; the
   * offset may include the proxy's own margin). A proxy whose box lies farther than 2·margin
   * outside it (both grown by margin) is not paired with it: a floor and four walls then cost
   * O(contacts) narrow-phase calls, not 5 N. */
  bool has_plane;
  double plane_normal[3];
  double plane_offset;
} clt_broadphase_proxy_t;

typedef struct clt_broadphase_pair_t {
  int a, b; /* proxy indices, a < b */
} clt_broadphase_pair_t;

/* Reusable working memory: buffers grow to the largest scene seen and are kept, so a run does not
 * allocate once it has settled. Zero-initialize (or clt_broadphase_init) before first use. */
typedef struct clt_broadphase_t {
  void *entries;      /* the grid proxies in cell order (broadphase.c) */
  int entry_capacity;
  int *bucket_start;  /* the start of each grid column in `entries`, then the pair sort's counts */
  int bucket_capacity;
  void *sort_buffer;  /* cell keys and their sorted copy */
  int sort_capacity;
  uint64_t *column_key;
  int column_capacity;
  int *units;         /* the pair search's work units: (column, first entry) pairs (broadphase.c) */
  int unit_capacity;
  void *pair_buffer;  /* the pair sort's copy */
  int pair_buffer_capacity;
  double *block;      /* per-block partial bounds (a sum independent of the thread count) */
  int block_capacity;
  void *threads;      /* per-thread pair buffers (OpenMP) */
  int thread_capacity;
  int *histogram;     /* the parallel pair sort's per-thread counts */
  int histogram_capacity;
  clt_broadphase_pair_t *pairs;
  int pair_count;
  int pair_capacity;
  int *large;
  int large_capacity;
  void *kept;         /* clt_broadphase_update_pairs: the earlier pairs while it works */
  int kept_capacity;
  /* Statistics of the last query (for benchmarks and tests). */
  double cell_size;    /* the longest side of the grid's cells (they are chosen per axis) */
  int grid_entries;   /* proxies entered in the grid (one cell each) */
  int large_count;
  int64_t entry_tests; /* box tests of grid neighbours: O(N) for granular scenes */
} clt_broadphase_t;

void clt_broadphase_init(clt_broadphase_t *bp);
void clt_broadphase_destroy(clt_broadphase_t *bp);
/* Gives back the pages of the working buffers of the last query (the grid, the sorts, the
 * per-thread pairs, the earlier pairs of an update): dead until the next query writes them
 * (base/pages.h). bp->pairs and the capacities stay. */
void clt_broadphase_release_scratch(clt_broadphase_t *bp);

/* Finds every pair (a < b) of proxies whose bounds, each grown by margin ≥ 0 on every side,
 * overlap (touching counts), plus every unbounded proxy against every other proxy (with a plane:
 * every proxy within 2·margin of it); pairs of the
 * same body, pairs of two fixed proxies and pairs of two unbounded proxies are left out. The result
 * (bp->pairs, bp->pair_count, valid until the next call) is sorted by (a, b), so it does not depend
 * on the grid, the order of the search or the number of OpenMP threads (scenes of at least 4096
 * proxies are searched in parallel). Exact for any finite bounds and margin, up to 1e308: where the
 * scene's span or a grown box overflows and the grid's keys would need more than 63 bits, there is
 * no grid and every proxy is tested against every other (tests/collision/
 * test_broadphase_extreme.c). dimension is 2 or 3. Returns CLT_ERR_OUT_OF_MEMORY if a buffer
 * cannot grow (bp->pair_count is then 0), CLT_ERR_INVALID_ARGUMENT for count < 0 or a bad
 * dimension. */
clt_status_t clt_broadphase_find_pairs(clt_broadphase_t *bp, const clt_broadphase_proxy_t *proxies, int count,
                                       int dimension, double margin);

/* The same result as clt_broadphase_find_pairs, from the result of the last call (bp->pairs, either
 * function) on proxies that differ from these only in those of bodies with changed[body] set
 * (indexed by proxy.body; the same count, dimension, margin, bodies and fixed flags): the pairs
 * of that result with no such proxy are kept, and only the pairs with one are searched for. */
clt_status_t clt_broadphase_update_pairs(clt_broadphase_t *bp, const clt_broadphase_proxy_t *proxies, int count,
                                         int dimension, double margin, const unsigned char *changed);

/* Whether clt_broadphase_find_pairs(..., margin) would report the pair of proxies p and q (in
 * either order): their bounds grown by margin touch (or one of them is not finite), or one is
 * unbounded and the other within its reach, never two of the same body, two fixed or two unbounded
 * ones. Lets a caller filter a superset of the pairs (stage_collide.c). */
bool clt_broadphase_pair_test(const clt_broadphase_proxy_t *p, const clt_broadphase_proxy_t *q, int dimension,
                              double margin);

#endif
