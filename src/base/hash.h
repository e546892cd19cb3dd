/* clatter — FNV-1a 64, the checksum of state blobs (steppers/state.c, models/colony.c) and the
 * state hash (world.h clt_world_state_hash): byte order and build fixed, so equal bytes give
 * equal hashes on every machine. */
#ifndef CLATTER_BASE_HASH_H
#define CLATTER_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define CLT_FNV1A64_OFFSET 14695981039346656037ull
#define CLT_FNV1A64_PRIME 1099511628211ull

/* hash continued over n bytes at p (start with CLT_FNV1A64_OFFSET) */
static inline uint64_t clt_fnv1a64(uint64_t hash, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    hash ^= b[i];
    hash *= CLT_FNV1A64_PRIME;
  }
  return hash;
}

#endif
