/* The collide side of a step under OpenMP (issue [granular]: bit-identical results for any number
 * of threads): a pile-like scene large enough for every parallel path (4217 shapes: broad phase,
 * proxy and sphere placement, narrow phase, penetration, kept-pair check, integration all above
 * their thresholds) — 4212 spheres of radius 0.05 in a 1 m box (floor and four walls as
 * half-spaces), stacked 1 mm apart so that contacts exist from the first step, relaxed scheme (a
 * loose solver tolerance: the solve is not what is tested, and runs the same for any thread count) — is
 * stepped once with 1 thread and once with 2: after every step the states, the broad-phase pairs,
 * the contact lists and the penetration must be identical bit for bit; with method.relaxation 1 and
 * 1.5 (the piles' over-relaxation). Also the parallel broad
 * phase against brute force on 6000 random proxies with 2 threads. */
#define _DEFAULT_SOURCE /* mincore */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "clatter/scene.h"
#include "base/pages.h"
#include "collision/broadphase.h"
#include "dynamics/world_internal.h"
#include "steppers/relaxed.h"
#include "steppers/rows.h"
#include "test_util.h"

static const char *scene_json =
    "{\"name\": \"parallel_pile\", \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1,"
    " \"gravity\": [0, 0, -9.81],"
    " \"method\": {\"scheme\": \"relaxed\", \"solver\": \"bgs\", \"friction_cone\": \"circular\","
    "   \"tolerance\": 1e-2, \"max_iterations\": 20},"
    " \"materials\": {\"default\": {\"friction\": 0.5, \"restitution\": 0, \"density\": 1000}},"
    " \"bodies\": ["
    "  {\"name\": \"floor\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, 1], \"point\": [0, 0, 0]}},"
    "  {\"name\": \"wx0\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [1, 0, 0], \"point\": [-0.5, 0, 0]}},"
    "  {\"name\": \"wx1\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [-1, 0, 0], \"point\": [0.5, 0, 0]}},"
    "  {\"name\": \"wy0\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 1, 0], \"point\": [0, -0.5, 0]}},"
    "  {\"name\": \"wy1\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, -1, 0], \"point\": [0, 0.5, 0]}},"
    "  {\"name\": \"grain\", \"position\": [-0.404, -0.404, 0.051], \"shape\": {\"type\": \"sphere\", \"radius\": 0.05},"
    "   \"grid\": {\"count\": [9, 9, 52], \"spacing\": [0.101, 0.101, 0.101], \"jitter\": [0.0004, 0.0004, 0], \"seed\": 3}}"
    " ]}";

static clt_world_t *make_world(double omega) {
  clt_scene_t *scene = NULL;
  char message[512];
  if (clt_scene_parse(scene_json, "parallel_pile", NULL, &scene, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "scene: %s\n", message);
    return NULL;
  }
  clt_world_t *world = NULL;
  if (clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) != CLT_OK)
    fprintf(stderr, "world: %s\n", message);
  clt_scene_destroy(scene);
  if (world) world->method.relaxation = omega;
  return world;
}

static void set_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

static bool same_bytes(const void *a, const void *b, size_t n) { return n == 0 || memcmp(a, b, n) == 0; }

#ifndef CLATTER_POISON_RELEASED
/* How many of the n whole pages of p[0, bytes) are resident (mincore), or −1. */
static long resident_pages(const void *p, size_t bytes, size_t *n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uintptr_t lo = ((uintptr_t)p + page - 1) / page * page, hi = ((uintptr_t)p + bytes) / page * page;
  *n = hi > lo ? (hi - lo) / page : 0;
  if (*n == 0) return -1;
  unsigned char *v = malloc(*n);
  if (!v || mincore((void *)lo, hi - lo, v) != 0) {
    free(v);
    return -1;
  }
  long resident = 0;
  for (size_t i = 0; i < *n; i++) resident += v[i] & 1;
  free(v);
  return resident;
}
#endif

/* Whether the buffer p[0, bytes) was given back (base/pages.h): none of its whole pages resident,
 * or in the sanitizer build (CLATTER_POISON_RELEASED) every byte 0xFF. */
static bool given_back(const char *name, const void *p, size_t bytes) {
  if (!p || bytes < CLT_RELEASE_MIN_BYTES) {
    printf("%s: %zu bytes, below the release threshold\n", name, bytes);
    return false;
  }
#ifdef CLATTER_POISON_RELEASED
  size_t poisoned = 0;
  for (size_t i = 0; i < bytes; i++) poisoned += ((const unsigned char *)p)[i] == 0xFF;
  printf("%s: %zu of %zu bytes 0xFF\n", name, poisoned, bytes);
  return poisoned == bytes;
#else
  size_t n;
  long resident = resident_pages(p, bytes, &n);
  printf("%s: %ld of %zu pages resident\n", name, resident, n);
  return resident == 0;
#endif
}

/* Whether every byte of p[0, bytes) is 0xFF. */
static bool all_ff(const char *name, const void *p, size_t bytes) {
  size_t ff = 0;
  for (size_t i = 0; i < bytes; i++) ff += ((const unsigned char *)p)[i] == 0xFF;
  printf("%s: %zu of %zu bytes 0xFF\n", name, ff, bytes);
  return p && bytes > 0 && ff == bytes;
}

static uint64_t pile_checks(double omega) {
  printf("method.relaxation %.1f\n", omega);
  clt_world_t *one = make_world(omega), *two = make_world(omega);
  CHECK(one != NULL && two != NULL);
  if (!one || !two) return 0;
  CHECK(one->shape_count == 4217);
  int steps = 5, max_pairs = 0, max_contacts = 0, mismatched_steps = 0;
  for (int s = 0; s < steps; s++) {
    set_threads(1);
    clt_status_t st1 = clt_world_step(one);
    clt_diagnostics_t d1;
    clt_world_get_diagnostics(one, &d1);
    set_threads(2);
    clt_status_t st2 = clt_world_step(two);
    clt_diagnostics_t d2;
    clt_world_get_diagnostics(two, &d2);
    CHECK(st1 == CLT_OK && st2 == CLT_OK);
    clt_relaxed_work_t *r1 = one->step_work->relaxed;
    if (s == 0 && r1) /* NaN: the sphere layout must neither read nor write the inverse masses */
      memset(r1->inv, 0xFF, (size_t)r1->body_capacity * 8 * sizeof *r1->inv);
    const clt_step_work_t *w1 = one->step_work, *w2 = two->step_work;
    bool same = one->body_count == two->body_count &&
                same_bytes(one->states, two->states, (size_t)one->body_count * sizeof *one->states) &&
                w1->contact_count == w2->contact_count &&
                same_bytes(w1->contacts, w2->contacts, (size_t)w1->contact_count * sizeof *w1->contacts) &&
                w1->broadphase.pair_count == w2->broadphase.pair_count &&
                same_bytes(w1->broadphase.pairs, w2->broadphase.pairs,
                           (size_t)w1->broadphase.pair_count * sizeof *w1->broadphase.pairs) &&
                memcmp(&d1.penetration, &d2.penetration, sizeof d1.penetration) == 0 &&
                memcmp(&d1.kinetic_energy, &d2.kinetic_energy, sizeof d1.kinetic_energy) == 0;
    if (!same) mismatched_steps++;
    if (w1->contact_count > max_contacts) max_contacts = w1->contact_count;
    if (w1->broadphase.pair_count > max_pairs) max_pairs = w1->broadphase.pair_count;
    printf("step %d: %d contacts, %d pairs (last broad phase), %d solves, penetration %.3g m, %s\n", s + 1,
           w1->contact_count, w1->broadphase.pair_count, d1.solves, d1.penetration, same ? "identical" : "DIFFERENT");
  }
  CHECK(mismatched_steps == 0);
  /* the parallel paths were taken (thresholds: 4096 bodies or proxies, 16384 pairs) */
  CHECK(max_contacts >= 4096);
  CHECK(max_pairs >= 16384);
  /* the block Gauss–Seidel ran in the sphere layout (steppers/relaxed.h) */
  CHECK(one->step_work->relaxed && one->step_work->relaxed->sphere);
  /* Between steps, what only a stage of the step reads has been given back (src/base/pages.h,
   * docs/stepping.md "Memory"): the records of the block Gauss–Seidel, the next contact memory, the
   * proxies, the spheres' centres and the broad phase's grid and sorts. What the contact report
   * and the next step read (contacts, impulses, memory, pairs) is kept, as the identical runs on
   * 1 and 2 threads above and the tests of the report show. */
  const clt_step_work_t *w = one->step_work;
  const clt_relaxed_work_t *r = w->relaxed;
  if (r) {
    CHECK(given_back("block records", r->contacts, r->contact_bytes));
    CHECK(given_back("next contact memory", w->next_memory, (size_t)w->next_memory_capacity * sizeof *w->next_memory));
    CHECK(given_back("proxies", w->proxies, (size_t)w->proxy_capacity * sizeof *w->proxies));
    CHECK(given_back("sphere centres", r->sweep->centres, (size_t)r->sweep->centre_capacity * 3 * sizeof *r->sweep->centres));
    /* (the sort keys are 16 bytes: broadphase.c) */
    CHECK(given_back("broad-phase sort keys", w->broadphase.sort_buffer, (size_t)w->broadphase.sort_capacity * 16));
    CHECK(given_back("spreading links", r->sweep->link, (size_t)r->sweep->link_capacity * sizeof *r->sweep->link));
    /* the demands and velocities of the step's solves, and the impulses of a solve before the last
     * (a step ends holding two contact memories, not three) */
    CHECK(given_back("solve demands", r->demand, (size_t)r->body_capacity * 6 * sizeof *r->demand));
    CHECK(given_back("solved velocities", r->solved, (size_t)r->body_capacity * 6 * sizeof *r->solved));
    CHECK(r->round_memory == NULL);
    /* The sphere layout keeps 1/m and 1/J in the velocity slots: the inverse masses, NaN after the
     * first step, were neither written nor read (the states are finite and the same as on 2 threads) */
    CHECK(all_ff("inverse masses", r->inv, (size_t)r->body_capacity * 8 * sizeof *r->inv));
  }
  uint64_t hash = clt_world_state_hash(one);
  clt_world_destroy(one);
  clt_world_destroy(two);
  set_threads(1);
  return hash;
}

typedef struct rng_t {
  uint64_t s;
} rng_t;

static double uniform(rng_t *r, double lo, double hi) {
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * (double)(r->s >> 11) * (1.0 / 9007199254740992.0);
}

/* The parallel broad phase (≥ 4096 proxies) against brute force: grains, a few long walls (large
 * proxies), half-spaces with planes, fixed proxies and composite bodies. */
static void broadphase_checks(void) {
  enum { N = 6000 };
  static clt_broadphase_proxy_t px[N];
  rng_t r = {11};
  double domain = cbrt((double)N) * 0.9;
  for (int i = 0; i < N; i++) {
    clt_broadphase_proxy_t *p = &px[i];
    memset(p, 0, sizeof *p);
    p->body = i > 0 && uniform(&r, 0, 1) < 0.1 ? px[i - 1].body : i;
    p->fixed = uniform(&r, 0, 1) < 0.05;
    if (i % 1500 == 7) { /* a half-space */
      p->unbounded = true;
      p->fixed = true;
      p->has_plane = i % 3000 == 7;
      p->plane_normal[i % 3] = 1.0;
      p->plane_offset = 0.3 * domain;
      for (int k = 0; k < 3; k++) p->lower[k] = -INFINITY, p->upper[k] = INFINITY;
      continue;
    }
    bool wall = i % 1000 == 3;
    for (int k = 0; k < 3; k++) {
      double c = uniform(&r, 0, domain), h = wall ? 0.4 * domain : uniform(&r, 0.2, 0.5);
      if (wall && k == i % 3) h = 0.05;
      p->lower[k] = c - h;
      p->upper[k] = c + h;
    }
  }
  clt_broadphase_t bp;
  clt_broadphase_init(&bp);
  set_threads(2);
  double margin = 0.02;
  CHECK(clt_broadphase_find_pairs(&bp, px, N, 3, margin) == CLT_OK);
  int k = 0, mismatches = 0;
  for (int i = 0; i < N; i++)
    for (int j = i + 1; j < N; j++) {
      if (!clt_broadphase_pair_test(&px[i], &px[j], 3, margin)) continue;
      if (k < bp.pair_count && bp.pairs[k].a == i && bp.pairs[k].b == j)
        k++;
      else
        mismatches++;
    }
  printf("broad phase, %d proxies, 2 threads: %d pairs, %d large, %d mismatches against brute force\n", N,
         bp.pair_count, bp.large_count, mismatches);
  CHECK(mismatches == 0);
  CHECK(k == bp.pair_count);
  CHECK(bp.large_count > 0);
  /* the same list with 1 thread */
  clt_broadphase_pair_t *first = malloc((size_t)bp.pair_count * sizeof *first + 1);
  int count = bp.pair_count;
  memcpy(first, bp.pairs, (size_t)count * sizeof *first);
  set_threads(1);
  CHECK(clt_broadphase_find_pairs(&bp, px, N, 3, margin) == CLT_OK);
  CHECK(bp.pair_count == count && same_bytes(first, bp.pairs, (size_t)count * sizeof *first));
  free(first);
  clt_broadphase_destroy(&bp);
}

int main(void) {
  broadphase_checks();
  /* ω = 1 and the piles' over-relaxation (the sweeps' fast kernel either way; the runs differ) */
  uint64_t h1 = pile_checks(1.0), h15 = pile_checks(1.5);
  CHECK(h1 != h15);
  return clt_test_finish();
}
