/* What the layers above dynamics that build on the public API (src/models: the colony) may call of
 * the world's internals: the world's error message and log, body labels and handle resolution for
 * their messages, and array growth. Everything else they read through include/clatter/world.h; the
 * world's struct (world_internal.h, which includes this header) stays with dynamics, constraints
 * and steppers (scripts/check_layers.py WORLD_PRIVATE). */
#ifndef CLATTER_DYNAMICS_WORLD_CALLS_H
#define CLATTER_DYNAMICS_WORLD_CALLS_H

#include <stddef.h>

#include "clatter/world.h"

/* Sets world->error from a printf-style message and returns status (pass-through for returns). */
clt_status_t clt_world_fail(clt_world_t *world, clt_status_t status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* Sends a message to the world's log callback, if any. */
void clt_world_log(const clt_world_t *world, clt_log_level_t level, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* "body 'racket'" or "body #3" for messages. */
void clt_body_label(const clt_world_t *world, int index, char *out, size_t size);

/* Resolves a handle to an index; −1 with CLT_ERR_STALE_HANDLE set in the world's error on
 * failure. allow_ground: the null handle resolves to −1 with CLT_OK. */
clt_status_t clt_world_resolve_body(clt_world_t *world, clt_body_id_t id, bool allow_ground,
                                    const char *what, int *out_index);

/* Grows an array to hold at least `needed` elements (capacity doubling). */
bool clt_grow(void **array, int *capacity, int needed, size_t element_size);

#endif
