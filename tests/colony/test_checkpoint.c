/* A colony run continued from a checkpoint (clt_colony_save_state + clt_world_save_state, then
 * clt_colony_load_state + clt_world_load_state into a freshly built world and colony) is
 * bit-identical to the uninterrupted run: state hash, every cell's pose, length and generation,
 * and the division count, for checkpoints taken mid-generation and right after a division, planar
 * and free 3D (overdamped ReLCP). Bad blobs and misuse are refused with a reason and leave the
 * world as it was. */
#include <string.h>

#include "colony_test.h"
#include "base/hash.h"
#include "test_util.h"

enum { CELLS = 16, MAX_STEPS = 2000 };

typedef struct run_t {
  clt_world_t *world;
  clt_colony_t *colony;
} run_t;

static run_t start(bool planar, uint64_t seed) {
  run_t r = {colony_test_world(planar, CLT_LAW_OVERDAMPED, CLT_CONTACT_MODEL_RELCP, 0.02), NULL};
  clt_colony_def_t cd = colony_test_def(seed);
  CHECK(clt_colony_create(r.world, &cd, &r.colony) == CLT_OK);
  return r;
}

static void finish(run_t *r) {
  clt_colony_destroy(r->colony);
  clt_world_destroy(r->world);
}

static bool step(run_t *r) {
  clt_status_t st = clt_colony_step(r->colony);
  if (st != CLT_OK) fprintf(stderr, "step: %s\n", clt_world_error(r->world));
  return st == CLT_OK;
}

/* Every cell's position, axis, length and generation, then the division count. */
static int snapshot(const run_t *r, double *out) {
  int n = clt_colony_cell_count(r->colony);
  for (int i = 0; i < n; i++) {
    clt_colony_cell_t cell;
    CHECK(clt_colony_get_cell(r->colony, i, &cell) == CLT_OK);
    memcpy(out + 8 * i, cell.position, 3 * sizeof(double));
    memcpy(out + 8 * i + 3, cell.axis, 3 * sizeof(double));
    out[8 * i + 6] = cell.length;
    out[8 * i + 7] = cell.generation;
  }
  out[8 * n] = (double)clt_colony_division_count(r->colony);
  return 8 * n + 1;
}

typedef struct blobs_t {
  void *colony, *world;
  size_t colony_size, world_size;
} blobs_t;

static blobs_t save(const run_t *r) {
  blobs_t b;
  b.colony_size = clt_colony_state_size(r->colony);
  b.world_size = clt_world_state_size(r->world);
  b.colony = malloc(b.colony_size);
  b.world = malloc(b.world_size);
  CHECK(clt_colony_save_state(r->colony, b.colony, b.colony_size) == CLT_OK);
  CHECK(clt_world_save_state(r->world, b.world, b.world_size) == CLT_OK);
  return b;
}

/* Grows to CELLS straight, then again with a checkpoint after `at` steps, and compares. */
static void continue_at(bool planar, int at, const double *reference, int reference_len, uint64_t reference_hash,
                        int reference_steps) {
  run_t a = start(planar, 7);
  for (int s = 0; s < at; s++) CHECK(step(&a));
  blobs_t b = save(&a);
  int cells_at = clt_colony_cell_count(a.colony);
  finish(&a);

  run_t c = start(planar, 7);
  CHECK(clt_colony_load_state(c.colony, b.colony, b.colony_size) == CLT_OK);
  CHECK(clt_world_load_state(c.world, b.world, b.world_size) == CLT_OK);
  CHECK(clt_colony_cell_count(c.colony) == cells_at);
  /* the restored colony saves the same bytes */
  blobs_t again = save(&c);
  CHECK(again.colony_size == b.colony_size && memcmp(again.colony, b.colony, b.colony_size) == 0);
  CHECK(again.world_size == b.world_size && memcmp(again.world, b.world, b.world_size) == 0);
  int steps = at;
  while (clt_colony_cell_count(c.colony) < CELLS && steps < MAX_STEPS && step(&c)) steps++;
  double got[8 * 64 + 1];
  int len = snapshot(&c, got);
  uint64_t hash = clt_world_state_hash(c.world);
  printf("%s, checkpoint after step %d (%d cells): continued to %d cells at step %d, hash %016llx (%s)\n",
         planar ? "planar" : "free 3D", at, cells_at, clt_colony_cell_count(c.colony), steps,
         (unsigned long long)hash, hash == reference_hash ? "same" : "DIFFERENT");
  CHECK(steps == reference_steps);
  CHECK(hash == reference_hash);
  CHECK(len == reference_len && memcmp(got, reference, (size_t)len * sizeof(double)) == 0);
  finish(&c);
  free(b.colony), free(b.world), free(again.colony), free(again.world);
}

static void run(bool planar) {
  run_t a = start(planar, 7);
  int steps = 0, division_step = -1;
  while (clt_colony_cell_count(a.colony) < CELLS && steps < MAX_STEPS) {
    int before = clt_colony_cell_count(a.colony);
    CHECK(step(&a));
    steps++;
    if (division_step < 0 && before >= 4 && clt_colony_cell_count(a.colony) > before) division_step = steps;
  }
  CHECK(clt_colony_cell_count(a.colony) == CELLS);
  double reference[8 * 64 + 1];
  int len = snapshot(&a, reference);
  uint64_t hash = clt_world_state_hash(a.world);
  printf("%s: %d cells after %d steps, hash %016llx; first division from 4 cells at step %d\n",
         planar ? "planar" : "free 3D", CELLS, steps, (unsigned long long)hash, division_step);
  finish(&a);
  CHECK(division_step > 0);
  continue_at(planar, steps / 2 + 3, reference, len, hash, steps); /* mid-generation */
  continue_at(planar, division_step, reference, len, hash, steps); /* right after a division */
}

/* Bad blobs and misuse: refused with a reason, nothing changed. */
static void refusals(void) {
  run_t a = start(true, 7);
  for (int s = 0; s < 120; s++) CHECK(step(&a));
  CHECK(clt_colony_cell_count(a.colony) > 1);
  blobs_t b = save(&a);

  /* into a colony that has grown */
  CHECK(clt_colony_load_state(a.colony, b.colony, b.colony_size) == CLT_ERR_INVALID_ARGUMENT);
  printf("grown colony: %s\n", clt_world_error(a.world));
  CHECK(strstr(clt_world_error(a.world), "just created") != NULL);

  run_t c = start(true, 7);
  int bodies = clt_world_body_count(c.world);
  unsigned char *bad = malloc(b.colony_size);
  memcpy(bad, b.colony, b.colony_size);
  bad[0] ^= 1;
  CHECK(clt_colony_load_state(c.colony, bad, b.colony_size) == CLT_ERR_FORMAT);
  CHECK(strstr(clt_world_error(c.world), "bad magic") != NULL);
  CHECK(clt_colony_load_state(c.colony, b.colony, b.colony_size - 1) == CLT_ERR_FORMAT);
  printf("truncated: %s\n", clt_world_error(c.world));
  /* one bit of a cell flipped: the checksum (the last 8 bytes) catches it */
  memcpy(bad, b.colony, b.colony_size);
  bad[b.colony_size - sizeof(uint64_t) - 3] ^= 0x10;
  CHECK(clt_colony_load_state(c.colony, bad, b.colony_size) == CLT_ERR_FORMAT);
  printf("flipped bit: %s\n", clt_world_error(c.world));
  CHECK(strstr(clt_world_error(c.world), "checksum mismatch") != NULL);
  /* a negative length with the checksum made right again: the content checks */
  size_t body = b.colony_size - sizeof(uint64_t);
  memcpy(bad, b.colony, b.colony_size);
  memcpy(bad + body - sizeof(double), &(double){-1.0}, sizeof(double)); /* last cell's length */
  uint64_t sum = clt_fnv1a64(CLT_FNV1A64_OFFSET, bad, body);
  memcpy(bad + body, &sum, sizeof sum);
  CHECK(clt_colony_load_state(c.colony, bad, b.colony_size) == CLT_ERR_FORMAT);
  printf("negative length: %s\n", clt_world_error(c.world));
  CHECK(strstr(clt_world_error(c.world), "length -1") != NULL);
  CHECK(clt_world_body_count(c.world) == bodies && clt_colony_cell_count(c.colony) == 1);
  /* the world's blob alone does not fit a world without the cells */
  CHECK(clt_world_load_state(c.world, b.world, b.world_size) == CLT_ERR_FORMAT);
  free(bad);
  finish(&c);

  run_t other = start(true, 8); /* another seed */
  CHECK(clt_colony_load_state(other.colony, b.colony, b.colony_size) == CLT_ERR_FORMAT);
  printf("other seed: %s\n", clt_world_error(other.world));
  CHECK(strstr(clt_world_error(other.world), "seed 7") != NULL);
  CHECK(clt_world_body_count(other.world) == bodies);
  finish(&other);

  /* a version 1 blob (before the checksum: the same bytes without the last 8) still loads */
  run_t v1 = start(true, 7);
  unsigned char *plain = malloc(b.colony_size);
  memcpy(plain, b.colony, b.colony_size);
  memcpy(plain + 8, &(uint32_t){1}, sizeof(uint32_t)); /* the version, after the magic */
  CHECK(clt_colony_load_state(v1.colony, plain, b.colony_size - sizeof(uint64_t)) == CLT_OK);
  CHECK(clt_colony_cell_count(v1.colony) == clt_colony_cell_count(a.colony));
  free(plain);
  finish(&v1);

  finish(&a);
  free(b.colony), free(b.world);
}

int main(void) {
  run(true);
  run(false);
  refusals();
  return clt_test_finish();
}
