/* Checkpoints and the state hash. The blob holds exactly the mutable state of world_internal.h:
 *   header (magic "CLTSTATE", format version, dimension, body/joint/force counts)
 *   time, step_count, then every body's clt_body_state_t (14 doubles) in creation order.
 * Everything is written through one sink, so the hash covers exactly the bytes a checkpoint
 * holds. Later stages that keep memory between steps (warm starts, restitution memory) append a
 * section in serialize() and bump CLT_STATE_VERSION. Native byte order: a checkpoint is for the
 * same build on the same machine (the bit-identical-continuation contract). */
#include <math.h>
#include <string.h>

#include "dynamics/world_internal.h"

#define CLT_STATE_VERSION 1u

typedef struct state_header_t {
  char magic[8];
  uint32_t version;
  uint32_t dimension;
  uint32_t body_count;
  uint32_t joint_count;
  uint32_t force_count;
  uint32_t reserved;
} state_header_t;

typedef struct sink_t {
  unsigned char *buffer; /* NULL: only count / hash */
  size_t size;
  uint64_t hash;         /* FNV-1a 64 */
} sink_t;

static void sink_write(sink_t *s, const void *data, size_t n) {
  const unsigned char *p = data;
  if (n == 0) return;
  if (s->buffer) memcpy(s->buffer + s->size, p, n);
  for (size_t i = 0; i < n; i++) {
    s->hash ^= p[i];
    s->hash *= 1099511628211ull;
  }
  s->size += n;
}

static void make_header(const clt_world_t *world, state_header_t *h) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, "CLTSTATE", 8);
  h->version = CLT_STATE_VERSION;
  h->dimension = (uint32_t)world->dimension;
  h->body_count = (uint32_t)world->body_count;
  h->joint_count = (uint32_t)world->joint_count;
  h->force_count = (uint32_t)world->force_count;
}

static void serialize(const clt_world_t *world, sink_t *s) {
  state_header_t h;
  make_header(world, &h);
  sink_write(s, &h, sizeof h);
  sink_write(s, &world->time, sizeof world->time);
  sink_write(s, &world->step_count, sizeof world->step_count);
  sink_write(s, world->states, (size_t)world->body_count * sizeof *world->states);
}

size_t clt_world_state_size(const clt_world_t *world) {
  return sizeof(state_header_t) + sizeof(double) + sizeof(int64_t) +
         (size_t)world->body_count * sizeof(clt_body_state_t);
}

clt_status_t clt_world_save_state(const clt_world_t *world, void *buffer, size_t size) {
  size_t needed = clt_world_state_size(world);
  if (!buffer || size < needed)
    return clt_world_fail((clt_world_t *)world, CLT_ERR_INVALID_ARGUMENT,
                          "save_state: buffer too small (%zu bytes, need %zu)", size, needed);
  sink_t s = {buffer, 0, 14695981039346656037ull};
  serialize(world, &s);
  return CLT_OK;
}

clt_status_t clt_world_load_state(clt_world_t *world, const void *buffer, size_t size) {
  size_t needed = clt_world_state_size(world);
  if (!buffer) return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, "load_state: buffer must not be NULL");
  if (size != needed)
    return clt_world_fail(world, CLT_ERR_FORMAT,
                          "load_state: the state is %zu bytes but this world's state is %zu bytes "
                          "(a checkpoint of a different world?)", size, needed);
  state_header_t h, mine;
  memcpy(&h, buffer, sizeof h);
  make_header(world, &mine);
  if (memcmp(h.magic, mine.magic, sizeof h.magic) != 0)
    return clt_world_fail(world, CLT_ERR_FORMAT, "load_state: not a clatter state (bad magic)");
  if (h.version != mine.version)
    return clt_world_fail(world, CLT_ERR_FORMAT, "load_state: state format version %u, this build reads %u",
                          h.version, mine.version);
  if (h.dimension != mine.dimension || h.body_count != mine.body_count || h.joint_count != mine.joint_count ||
      h.force_count != mine.force_count)
    return clt_world_fail(world, CLT_ERR_FORMAT,
                          "load_state: the state is of a %uD world with %u bodies, %u joints, %u forces; "
                          "this world is %uD with %u, %u, %u",
                          h.dimension, h.body_count, h.joint_count, h.force_count, mine.dimension,
                          mine.body_count, mine.joint_count, mine.force_count);
  const unsigned char *p = (const unsigned char *)buffer + sizeof h;
  double time;
  int64_t step_count;
  memcpy(&time, p, sizeof time);
  p += sizeof time;
  memcpy(&step_count, p, sizeof step_count);
  p += sizeof step_count;
  if (!isfinite(time) || step_count < 0)
    return clt_world_fail(world, CLT_ERR_FORMAT, "load_state: time or step count is invalid");
  /* Check every value before touching the world, so a bad blob leaves it unchanged. */
  for (int i = 0; i < world->body_count; i++) {
    double values[sizeof(clt_body_state_t) / sizeof(double)];
    memcpy(values, p + (size_t)i * sizeof(clt_body_state_t), sizeof values);
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++)
      if (!isfinite(values[k]))
        return clt_world_fail(world, CLT_ERR_FORMAT, "load_state: body %d has a non-finite state", i);
  }
  world->time = time;
  world->step_count = step_count;
  if (world->body_count > 0) memcpy(world->states, p, (size_t)world->body_count * sizeof *world->states);
  memset(&world->diagnostics, 0, sizeof world->diagnostics);
  world->diagnostics.step = step_count;
  world->diagnostics.t = time;
  clt_world_describe_state(world, &world->diagnostics);
  return CLT_OK;
}

uint64_t clt_world_state_hash(const clt_world_t *world) {
  sink_t s = {NULL, 0, 14695981039346656037ull};
  serialize(world, &s);
  return s.hash;
}
