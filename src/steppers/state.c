/* Checkpoints and the state hash. The blob holds exactly the mutable state of world_internal.h:
 *   header (magic "CLTSTATE", format version, dimension, body/joint/force counts, 32 bytes)
 *   [version 3: checksum, uint64: FNV-1a 64 of every other byte of the blob, header then payload]
 *   payload: time, step_count, then every body's clt_body_state_t (14 doubles) in creation order,
 *   then the stepper's memory: the joint impulses of the last step (6 doubles per joint, 9 for a
 *   joint with a limit or a motor: rows.h CLT_JOINT_SLOTS; the warm start), and the contact memory, a uint32 count and per entry (int32 shape_a, shape_b, feature,
 *   restitution_state; double pre_velocity, normal_impulse, tangent_impulse[3], slip) in key
 *   order — warm starts and restitution records the next step reads
 *   (src/steppers/stage_contact_rows.c).
 * Version 3 (written now) is version 2 (read still) with the checksum: any changed, missing or
 * added byte is refused before the blob is interpreted. Everything is written through one sink, so
 * the hash covers exactly the bytes a checkpoint holds but the checksum; it is taken over the
 * version-2 form (header with version 2, then the payload), the bytes it has always hashed, so
 * the pinned hashes of tests/stepper/test_state_hash.c stay valid. Later stages that keep more
 * memory between steps append a section to the payload and bump the version. Native byte order: a
 * checkpoint is for the same build on the same machine (the bit-identical-continuation
 * contract). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "dynamics/world_internal.h"
#include "steppers/rows.h"

/* Bytes of one contact-memory entry in the blob. */
#define MEMORY_ENTRY_SIZE (4 * sizeof(int32_t) + 6 * sizeof(double))

#define CLT_STATE_VERSION 3u       /* written: with the checksum */
#define CLT_STATE_VERSION_PLAIN 2u /* read, and the form the state hash is taken over */

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
  if (n == 0) return;
  if (s->buffer) memcpy(s->buffer + s->size, data, n);
  s->hash = clt_fnv1a64(s->hash, data, n);
  s->size += n;
}

/* Leaves n bytes (the checksum's room) out of the hash. */
static void sink_skip(sink_t *s, size_t n) { s->size += n; }

static void make_header(const clt_world_t *world, uint32_t version, state_header_t *h) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, "CLTSTATE", 8);
  h->version = version;
  h->dimension = (uint32_t)world->dimension;
  h->body_count = (uint32_t)world->body_count;
  h->joint_count = (uint32_t)world->joint_count;
  h->force_count = (uint32_t)world->force_count;
}

/* The impulses a joint keeps in the state: Θ's 6, and the limit and motor rows' 3 more for a joint
 * with a limit or a motor (rows.h CLT_JOINT_SLOTS), so that a state without them is as before. */
static int joint_slots(const clt_world_t *world, int j) {
  return clt_joint_actuated(&world->joints[j]) ? CLT_JOINT_SLOTS : 6;
}

static size_t joint_memory_doubles(const clt_world_t *world) {
  size_t n = 0;
  for (int j = 0; j < world->joint_count; j++) n += (size_t)joint_slots(world, j);
  return n;
}

static void serialize_payload(const clt_world_t *world, sink_t *s) {
  sink_write(s, &world->time, sizeof world->time);
  sink_write(s, &world->step_count, sizeof world->step_count);
  sink_write(s, world->states, (size_t)world->body_count * sizeof *world->states);
  const clt_step_work_t *w = world->step_work;
  for (int j = 0; j < world->joint_count; j++)
    for (int k = 0; k < joint_slots(world, j); k++) {
      int i = CLT_JOINT_SLOTS * j + k;
      double v = w && i < w->joint_impulse_capacity ? w->joint_impulse[i] : 0.0;
      sink_write(s, &v, sizeof v);
    }
  uint32_t count = w ? (uint32_t)w->memory_count : 0u;
  sink_write(s, &count, sizeof count);
  for (uint32_t i = 0; i < count; i++) {
    const clt_contact_memory_t *m = &w->memory[i];
    int32_t ints[4] = {m->shape_a, m->shape_b, m->feature, m->restitution_state};
    double reals[6] = {m->pre_velocity, m->normal_impulse, m->tangent_impulse[0], m->tangent_impulse[1],
                       m->tangent_impulse[2], m->slip};
    sink_write(s, ints, sizeof ints);
    sink_write(s, reals, sizeof reals);
  }
}

/* The blob of the given version into s (version 3: s->hash ends as the checksum, which the caller
 * stores in its room after the header). */
static void serialize(const clt_world_t *world, uint32_t version, sink_t *s) {
  state_header_t h;
  make_header(world, version, &h);
  sink_write(s, &h, sizeof h);
  if (version >= 3u) sink_skip(s, sizeof(uint64_t));
  serialize_payload(world, s);
}

/* The payload's bytes without the contact-memory entries. */
static size_t payload_base(const clt_world_t *world) {
  return sizeof(double) + sizeof(int64_t) + (size_t)world->body_count * sizeof(clt_body_state_t) +
         joint_memory_doubles(world) * sizeof(double) + sizeof(uint32_t);
}

size_t clt_world_state_size(const clt_world_t *world) {
  if (!world) return 0;
  const clt_step_work_t *w = world->step_work;
  return sizeof(state_header_t) + sizeof(uint64_t) + payload_base(world) +
         (w ? (size_t)w->memory_count : 0u) * MEMORY_ENTRY_SIZE;
}

clt_status_t clt_world_save_state(const clt_world_t *world, void *buffer, size_t size) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  size_t needed = clt_world_state_size(world);
  if (!buffer)
    return clt_world_fail((clt_world_t *)world, CLT_ERR_INVALID_ARGUMENT, "save_state: buffer must not be NULL");
  if (size < needed)
    return clt_world_fail((clt_world_t *)world, CLT_ERR_INVALID_ARGUMENT,
                          "save_state: buffer too small (%zu bytes, need %zu)", size, needed);
  sink_t s = {buffer, 0, CLT_FNV1A64_OFFSET};
  serialize(world, CLT_STATE_VERSION, &s);
  uint64_t checksum = s.hash;
  memcpy((unsigned char *)buffer + sizeof(state_header_t), &checksum, sizeof checksum);
  return CLT_OK;
}

clt_status_t clt_world_load_state(clt_world_t *world, const void *buffer, size_t size) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  if (!buffer) return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, "load_state: buffer must not be NULL");
  const unsigned char *bytes = buffer;
  state_header_t h, mine;
  if (size < sizeof h)
    return clt_world_fail(world, CLT_ERR_FORMAT, "load_state: %zu bytes, shorter than the %zu-byte header", size,
                          sizeof h);
  memcpy(&h, bytes, sizeof h);
  make_header(world, CLT_STATE_VERSION, &mine);
  if (memcmp(h.magic, mine.magic, sizeof h.magic) != 0)
    return clt_world_fail(world, CLT_ERR_FORMAT, "load_state: not a clatter state (bad magic)");
  if (h.version != CLT_STATE_VERSION && h.version != CLT_STATE_VERSION_PLAIN)
    return clt_world_fail(world, CLT_ERR_FORMAT, "load_state: state format version %u, this build reads %u and %u",
                          h.version, CLT_STATE_VERSION_PLAIN, CLT_STATE_VERSION);
  size_t head = sizeof h;
  if (h.version == CLT_STATE_VERSION) {
    /* The checksum first: nothing of a changed blob is interpreted. */
    head += sizeof(uint64_t);
    if (size < head)
      return clt_world_fail(world, CLT_ERR_FORMAT, "load_state: %zu bytes, shorter than the %zu-byte header", size,
                            head);
    uint64_t stored, computed = clt_fnv1a64(clt_fnv1a64(CLT_FNV1A64_OFFSET, bytes, sizeof h), bytes + head, size - head);
    memcpy(&stored, bytes + sizeof h, sizeof stored);
    if (stored != computed)
      return clt_world_fail(world, CLT_ERR_FORMAT,
                            "load_state: checksum mismatch (stored %016" PRIx64 ", computed %016" PRIx64
                            " over %zu bytes): the state is corrupted, truncated or extended",
                            stored, computed, size);
  }
  if (h.dimension != mine.dimension || h.body_count != mine.body_count || h.joint_count != mine.joint_count ||
      h.force_count != mine.force_count)
    return clt_world_fail(world, CLT_ERR_FORMAT,
                          "load_state: the state is of a %uD world with %u bodies, %u joints, %u forces; "
                          "this world is %uD with %u, %u, %u",
                          h.dimension, h.body_count, h.joint_count, h.force_count, mine.dimension,
                          mine.body_count, mine.joint_count, mine.force_count);
  size_t needed = head + payload_base(world);
  uint32_t memory_count = 0;
  if (size < needed)
    return clt_world_fail(world, CLT_ERR_FORMAT,
                          "load_state: the state is %zu bytes, shorter than the %zu bytes of a version %u state of "
                          "this world without contact memory", size, needed, h.version);
  memcpy(&memory_count, bytes + needed - sizeof memory_count, sizeof memory_count);
  if (memory_count > (size - needed) / MEMORY_ENTRY_SIZE || size != needed + (size_t)memory_count * MEMORY_ENTRY_SIZE)
    return clt_world_fail(world, CLT_ERR_FORMAT,
                          "load_state: the state is %zu bytes, but a version %u state of this world with the %u "
                          "contact memory entries it announces is %.0f bytes", size, h.version, memory_count,
                          (double)needed + (double)memory_count * (double)MEMORY_ENTRY_SIZE);
  const unsigned char *p = bytes + head;
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
    /* A run keeps 3D orientations unit quaternions; the API's magnitude limits (docs/api-limits.md)
     * bound inputs, not states a run reached, so they are not applied here. */
    clt_body_state_t st;
    memcpy(&st, p + (size_t)i * sizeof st, sizeof st);
    double norm = sqrt(st.orientation[0] * st.orientation[0] + st.orientation[1] * st.orientation[1] +
                       st.orientation[2] * st.orientation[2] + st.orientation[3] * st.orientation[3]);
    if (world->dimension == 3 && !(fabs(norm - 1.0) <= 1e-6))
      return clt_world_fail(world, CLT_ERR_FORMAT, "load_state: body %d has an orientation of length %g, not 1", i,
                            norm);
  }
  const unsigned char *joint_memory = p + (size_t)world->body_count * sizeof(clt_body_state_t);
  size_t joint_doubles = joint_memory_doubles(world);
  const unsigned char *mem = joint_memory + joint_doubles * sizeof(double) + sizeof(uint32_t);
  clt_step_work_t *w = clt_step_work(world);
  if (!w || !clt_step_work_reserve_joint_impulses(w, world->joint_count))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "load_state: out of memory");
  for (size_t i = 0; i < joint_doubles; i++) {
    double v;
    memcpy(&v, joint_memory + (size_t)i * sizeof v, sizeof v);
    if (!isfinite(v)) return clt_world_fail(world, CLT_ERR_FORMAT, "load_state: joint impulse %zu is not finite", i);
  }
  if ((int)memory_count > w->memory_capacity) {
    clt_contact_memory_t *m = realloc(w->memory, (size_t)memory_count * sizeof *m);
    if (!m) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "load_state: out of memory");
    w->memory = m;
    w->memory_capacity = (int)memory_count;
  }
  for (uint32_t i = 0; i < memory_count; i++) {
    int32_t ints[4];
    double reals[6];
    memcpy(ints, mem + (size_t)i * MEMORY_ENTRY_SIZE, sizeof ints);
    memcpy(reals, mem + (size_t)i * MEMORY_ENTRY_SIZE + sizeof ints, sizeof reals);
    bool finite = true;
    for (int k = 0; k < 6; k++) finite = finite && isfinite(reals[k]);
    if (ints[0] < 0 || ints[0] >= world->shape_count || ints[1] < 0 || ints[1] >= world->shape_count ||
        ints[3] < CLT_RESTITUTION_NONE || ints[3] > CLT_RESTITUTION_DONE || !finite)
      return clt_world_fail(world, CLT_ERR_FORMAT, "load_state: contact memory entry %u is invalid", i);
  }
  for (uint32_t i = 0; i < memory_count; i++) {
    int32_t ints[4];
    double reals[6];
    memcpy(ints, mem + (size_t)i * MEMORY_ENTRY_SIZE, sizeof ints);
    memcpy(reals, mem + (size_t)i * MEMORY_ENTRY_SIZE + sizeof ints, sizeof reals);
    clt_contact_memory_t *m = &w->memory[i];
    m->shape_a = ints[0];
    m->shape_b = ints[1];
    m->feature = ints[2];
    m->restitution_state = ints[3];
    m->pre_velocity = reals[0];
    m->normal_impulse = reals[1];
    memcpy(m->tangent_impulse, reals + 2, sizeof m->tangent_impulse);
    m->slip = reals[5];
  }
  for (int j = 0, at = 0; j < world->joint_count; j++) {
    double *slots = w->joint_impulse + CLT_JOINT_SLOTS * (size_t)j;
    memset(slots, 0, CLT_JOINT_SLOTS * sizeof *slots);
    memcpy(slots, joint_memory + (size_t)at * sizeof(double), (size_t)joint_slots(world, j) * sizeof(double));
    at += joint_slots(world, j);
  }
  w->memory_count = (int)memory_count;
  w->report_count = 0; /* contacts "of the last step" are not part of the state */
  world->time = time;
  world->step_count = step_count;
  if (world->body_count > 0) memcpy(world->states, p, (size_t)world->body_count * sizeof *world->states);
  memset(&world->diagnostics, 0, sizeof world->diagnostics);
  world->diagnostics.step = step_count;
  world->diagnostics.t = time;
  clt_world_state_changed(world);
  return CLT_OK;
}

uint64_t clt_world_state_hash(const clt_world_t *world) {
  if (!world) return 0;
  sink_t s = {NULL, 0, CLT_FNV1A64_OFFSET};
  serialize(world, CLT_STATE_VERSION_PLAIN, &s);
  return s.hash;
}
