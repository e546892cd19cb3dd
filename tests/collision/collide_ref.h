/* Shared by the collision tests: a seeded generator and per-pair error statistics. The
 * brute-force references themselves live in each test, written independently of src/collision. */
#ifndef CLATTER_TESTS_COLLIDE_REF_H
#define CLATTER_TESTS_COLLIDE_REF_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define REF_PI 3.14159265358979323846

typedef struct rng_t {
  uint64_t s;
} rng_t;

static inline uint64_t rng_next(rng_t *r) { /* splitmix64 */
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static inline double rng_uniform(rng_t *r, double lo, double hi) {
  return lo + (hi - lo) * ((double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0));
}
static inline int rng_int(rng_t *r, int lo, int hi) { /* inclusive */
  return lo + (int)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Worst errors of one pair type over all its poses. */
typedef struct pair_stats_t {
  const char *name;
  int poses, separated, touching, overlapping, contacts;
  double distance_error;   /* |Φ − Φ_ref| (exact-reference pairs) */
  double sampled_gap;      /* min over sampled point pairs − Φ, separated poses (≥ 0 up to sampling) */
  double sampled_gap_min;  /* most negative value of the same (Φ above the sampled minimum) */
  double surface_error;    /* witness points' distance to their surfaces */
  double identity_error;   /* |p_B − p_A − Φ n| */
  double normal_error;     /* | |n| − 1 | and, for smooth pairs, |n ∓ surface normal| */
  double parallel_error;   /* smooth pairs: |(p_B − p_A)/|p_B − p_A| × n| where |Φ| > 1e-6 */
} pair_stats_t;

static inline void stats_init(pair_stats_t *s, const char *name) {
  memset(s, 0, sizeof *s);
  s->name = name;
  s->sampled_gap_min = INFINITY;
}
static inline double fmax_track(double *slot, double v) {
  if (v > *slot || isnan(v)) *slot = v;
  return *slot;
}
static inline void stats_print(const pair_stats_t *s) {
  printf("%-22s poses %5d (sep %4d, touch %4d, overlap %4d) contacts %5d | max |dPhi| %.2e  sampled gap "
         "[%.2e, %.2e]  surface %.2e  pB-pA-Phi*n %.2e  normal %.2e  parallel %.2e\n",
         s->name, s->poses, s->separated, s->touching, s->overlapping, s->contacts, s->distance_error,
         isfinite(s->sampled_gap_min) ? s->sampled_gap_min : 0.0, s->sampled_gap, s->surface_error,
         s->identity_error, s->normal_error, s->parallel_error);
}

#endif
