/* clatter — common types: status codes, handles, log callback.
 * SI units throughout (m, kg, s, rad). */
#ifndef CLATTER_TYPES_H
#define CLATTER_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
/* The library is built with hidden visibility (src/CMakeLists.txt): what the public headers
 * declare, between this push and its pop, is what libclatter*.so export. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Every fallible call returns one of these; the message is in clt_world_error() (or the
 * solver result for the standalone solver API). The library never prints and never exits. */
typedef enum clt_status_t {
  CLT_OK = 0,
  CLT_ERR_INVALID_ARGUMENT, /* a definition field out of range (negative mass, NaN, ...) */
  CLT_ERR_OUT_OF_MEMORY,
  CLT_ERR_STALE_HANDLE,     /* a body/joint/force id that does not (or no longer) exist */
  CLT_ERR_UNSUPPORTED,      /* a valid request this build/version cannot do yet */
  CLT_ERR_NUMERICAL,        /* singular matrix, solver breakdown */
  CLT_ERR_SOLVER,           /* the step's solver did not converge and the run asked to abort */
  CLT_ERR_IO,               /* file could not be opened, read or written */
  CLT_ERR_FORMAT,           /* a file's content is malformed */
  CLT_ERR_DIVERGED          /* the state blew up: non-finite, energy or infeasibility past the bounds of
                               method.divergence_* (docs/stepping.md "Divergence") */
} clt_status_t;

/* Short stable name of a status ("ok", "invalid_argument", ...). */
const char *clt_status_name(clt_status_t status); /* "ok", "invalid_argument", ...; "unknown" otherwise */
bool clt_status_from_name(const char *name, clt_status_t *out); /* false for an unknown name */

/* Handles are small ids passed by value. generation detects stale handles. index = UINT32_MAX
 * with generation 0 is the null handle (the world / ground, for joints and force elements). */
typedef struct clt_body_id_t {
  uint32_t index;
  uint32_t generation;
} clt_body_id_t;

typedef struct clt_joint_id_t {
  uint32_t index;
  uint32_t generation;
} clt_joint_id_t;

typedef struct clt_force_id_t {
  uint32_t index;
  uint32_t generation;
} clt_force_id_t;

#define CLT_NULL_INDEX UINT32_MAX
static inline clt_body_id_t clt_world_ground(void) {
  clt_body_id_t id = {CLT_NULL_INDEX, 0};
  return id;
}
static inline bool clt_body_id_is_null(clt_body_id_t id) { return id.index == CLT_NULL_INDEX; }

typedef enum clt_log_level_t { CLT_LOG_DEBUG, CLT_LOG_INFO, CLT_LOG_WARNING, CLT_LOG_ERROR } clt_log_level_t;

/* Per-world log sink. message is valid only during the call. */
typedef void (*clt_log_fn)(void *user, clt_log_level_t level, const char *message);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
