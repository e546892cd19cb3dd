/* Typed values of a scene at a JSON path (scene_internal.h): every reader reads through these, and
 * every failure names the path (docs/scene-format.md "Strictness and error messages"). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/names.h"
#include "io/json_text.h"
#include "io/scene_internal.h"

static bool failv(ctx_t *ctx, const char *path, const char *fmt, va_list ap) {
  if (ctx->failed) return false;
  ctx->failed = true;
  if (ctx->status == CLT_OK) ctx->status = CLT_ERR_FORMAT;
  if (ctx->message && ctx->message_size > 0) {
    char reason[768];
    vsnprintf(reason, sizeof reason, fmt, ap);
    if (path && *path) {
      snprintf(ctx->message, ctx->message_size, "%s: %s: %s", ctx->source, path, reason);
    } else {
      snprintf(ctx->message, ctx->message_size, "%s: %s", ctx->source, reason);
    }
  }
  return false;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
bool scn_fail(ctx_t *ctx, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  failv(ctx, path, fmt, ap);
  va_end(ap);
  return false;
}

/* Bounded string concatenation (paths longer than PATH_SIZE are truncated, never overflow). */
static void path_concat(char *out, const char *a, const char *sep, const char *b) {
  size_t n = 0;
  const char *parts[3] = {a, sep, b};
  for (int k = 0; k < 3; k++) {
    for (const char *c = parts[k]; c && *c && n + 1 < PATH_SIZE; c++) out[n++] = *c;
  }
  out[n] = '\0';
}

void scn_join_key(char *out, const char *parent, const char *key) {
  char copy[PATH_SIZE];
  path_concat(copy, parent, NULL, NULL); /* out may alias parent */
  path_concat(out, copy, copy[0] ? "." : NULL, key);
}

void scn_join_index(char *out, const char *parent, int index) {
  char copy[PATH_SIZE], number[16];
  path_concat(copy, parent, NULL, NULL);
  snprintf(number, sizeof number, "[%d]", index);
  path_concat(out, copy, NULL, number);
}

char *scn_dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* "string \"NaN\"", "array", ... for messages about wrong types. */
void scn_describe(const cJSON *item, char *buf, size_t size) {
  if (cJSON_IsString(item)) {
    snprintf(buf, size, "string \"%.40s\"", item->valuestring);
  } else if (cJSON_IsNumber(item)) {
    clt_json_format_number(item->valuedouble, buf, size);
    if (!isfinite(item->valuedouble)) snprintf(buf, size, "%s", item->valuedouble > 0 ? "inf" : "-inf");
  } else if (cJSON_IsBool(item)) {
    snprintf(buf, size, "%s", cJSON_IsTrue(item) ? "true" : "false");
  } else if (cJSON_IsNull(item)) {
    snprintf(buf, size, "null");
  } else if (cJSON_IsArray(item)) {
    snprintf(buf, size, "an array");
  } else {
    snprintf(buf, size, "an object");
  }
}

void scn_format_number(double v, char *buf, size_t size) { clt_json_format_number(v, buf, size); }

/* ---------------------------------------------------------------------------------------------
 * Typed access with validation */

const cJSON *scn_get(const cJSON *obj, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Every key of obj must be in allowed (NULL-terminated); no key may repeat. */
bool scn_check_keys(ctx_t *ctx, const cJSON *obj, const char *path, const char *const *allowed,
                       const char *what) {
  for (const cJSON *c = obj->child; c; c = c->next) {
    char p[PATH_SIZE];
    scn_join_key(p, path, c->string);
    for (const cJSON *d = obj->child; d != c; d = d->next) {
      if (strcmp(d->string, c->string) == 0) return scn_fail(ctx, p, "duplicate key");
    }
    bool known = false;
    for (int i = 0; allowed[i]; i++) {
      if (strcmp(allowed[i], c->string) == 0) known = true;
    }
    if (!known) {
      char list[512] = "";
      for (int i = 0; allowed[i]; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", allowed[i]);
      }
      return scn_fail(ctx, p, "unknown key (%s allows: %s)", what, list);
    }
  }
  return true;
}

bool scn_expect_object(ctx_t *ctx, const cJSON *item, const char *path) {
  if (cJSON_IsObject(item)) return true;
  char got[64];
  scn_describe(item, got, sizeof got);
  return scn_fail(ctx, path, "must be an object (got %s)", got);
}

bool scn_number_value(ctx_t *ctx, const cJSON *item, const char *path, double *out) {
  if (!cJSON_IsNumber(item)) {
    char got[64];
    scn_describe(item, got, sizeof got);
    return scn_fail(ctx, path, "must be a number (got %s)", got);
  }
  if (!isfinite(item->valuedouble)) {
    return scn_fail(ctx, path, "must be a finite number (got %s)", item->valuedouble > 0 ? "inf" : "-inf");
  }
  *out = item->valuedouble;
  return true;
}


static bool check_range(ctx_t *ctx, const char *path, double v, range_t range) {
  char got[64];
  scn_format_number(v, got, sizeof got);
  switch (range) {
    case RANGE_ANY: return true;
    case RANGE_POSITIVE:
      if (!(v > 0)) return scn_fail(ctx, path, "must be > 0 (got %s)", got);
      return true;
    case RANGE_NONNEGATIVE:
      if (!(v >= 0)) return scn_fail(ctx, path, "must be >= 0 (got %s)", got);
      return true;
    case RANGE_GAMMA:
      if (!(v > 0 && v <= 1)) return scn_fail(ctx, path, "must be in (0, 1] (got %s)", got);
      return true;
    case RANGE_FRACTION:
      if (!(v >= 0 && v <= 1)) return scn_fail(ctx, path, "must be in [0, 1] (got %s)", got);
      return true;
  }
  return true;
}

bool scn_missing(ctx_t *ctx, const char *parent, const char *key) {
  char p[PATH_SIZE];
  scn_join_key(p, parent, key);
  return scn_fail(ctx, p, "required field is missing");
}

bool scn_read_number(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double *out,
                        range_t range, bool required) {
  const cJSON *item = scn_get(obj, key);
  if (!item) return required ? scn_missing(ctx, parent, key) : true;
  char p[PATH_SIZE];
  scn_join_key(p, parent, key);
  double v = 0;
  if (!scn_number_value(ctx, item, p, &v)) return false;
  if (!check_range(ctx, p, v, range)) return false;
  *out = v;
  return true;
}

bool scn_read_int(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, int64_t *out,
                     int64_t min, int64_t max, bool required) {
  const cJSON *item = scn_get(obj, key);
  if (!item) return required ? scn_missing(ctx, parent, key) : true;
  char p[PATH_SIZE];
  scn_join_key(p, parent, key);
  double v = 0;
  if (!scn_number_value(ctx, item, p, &v)) return false;
  char got[64];
  scn_format_number(v, got, sizeof got);
  if (v != floor(v)) return scn_fail(ctx, p, "must be an integer (got %s)", got);
  if (v < (double)min || v > (double)max) {
    return scn_fail(ctx, p, "must be between %lld and %lld (got %s)", (long long)min, (long long)max, got);
  }
  *out = (int64_t)v;
  return true;
}

bool scn_read_bool(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, bool *out) {
  const cJSON *item = scn_get(obj, key);
  if (!item) return true;
  char p[PATH_SIZE];
  scn_join_key(p, parent, key);
  if (!cJSON_IsBool(item)) {
    char got[64];
    scn_describe(item, got, sizeof got);
    return scn_fail(ctx, p, "must be true or false (got %s)", got);
  }
  *out = cJSON_IsTrue(item);
  return true;
}

bool scn_string_value(ctx_t *ctx, const cJSON *item, const char *path, const char **out) {
  if (!cJSON_IsString(item)) {
    char got[64];
    scn_describe(item, got, sizeof got);
    return scn_fail(ctx, path, "must be a string (got %s)", got);
  }
  if (item->valuestring[0] == '\0') return scn_fail(ctx, path, "must not be empty");
  *out = item->valuestring;
  return true;
}

bool scn_read_string(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, const char **out,
                        bool required) {
  const cJSON *item = scn_get(obj, key);
  if (!item) return required ? scn_missing(ctx, parent, key) : true;
  char p[PATH_SIZE];
  scn_join_key(p, parent, key);
  return scn_string_value(ctx, item, p, out);
}


bool scn_read_name(ctx_t *ctx, const cJSON *obj, const char *parent, const char **out) {
  if (!scn_read_string(ctx, obj, parent, "name", out, false)) return false;
  if (*out && strlen(*out) > NAME_MAX_LENGTH) {
    char p[PATH_SIZE];
    scn_join_key(p, parent, "name");
    return scn_fail(ctx, p, "must be at most %d characters (got %zu)", NAME_MAX_LENGTH, strlen(*out));
  }
  return true;
}

/* names: NULL-terminated; *out gets the index. */
bool scn_read_enum(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key,
                      const char *const *names, int *out, bool required) {
  const char *s = NULL;
  if (!scn_read_string(ctx, obj, parent, key, &s, required)) return false;
  if (!s) return true;
  for (int i = 0; names[i]; i++) {
    if (strcmp(names[i], s) == 0) {
      *out = i;
      return true;
    }
  }
  char p[PATH_SIZE], list[256] = "";
  scn_join_key(p, parent, key);
  for (int i = 0; names[i]; i++) {
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
  }
  return scn_fail(ctx, p, "unknown value \"%s\" (expected one of: %s)", s, list);
}

bool scn_vector_value(ctx_t *ctx, const cJSON *item, const char *path, int n, double *out) {
  if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != n) {
    char got[64];
    if (cJSON_IsArray(item)) {
      snprintf(got, sizeof got, "an array of %d", cJSON_GetArraySize(item));
    } else {
      scn_describe(item, got, sizeof got);
    }
    return scn_fail(ctx, path, "must be an array of %d numbers (got %s)", n, got);
  }
  int i = 0;
  for (const cJSON *c = item->child; c; c = c->next, i++) {
    char p[PATH_SIZE];
    scn_join_index(p, path, i);
    if (!scn_number_value(ctx, c, p, &out[i])) return false;
  }
  return true;
}

bool scn_read_vector(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, int n, double *out,
                        range_t range, bool required) {
  const cJSON *item = scn_get(obj, key);
  if (!item) return required ? scn_missing(ctx, parent, key) : true;
  char p[PATH_SIZE];
  scn_join_key(p, parent, key);
  double v[4] = {0, 0, 0, 0};
  if (!scn_vector_value(ctx, item, p, n, v)) return false;
  for (int i = 0; i < n; i++) {
    char pi[PATH_SIZE];
    scn_join_index(pi, p, i);
    if (!check_range(ctx, pi, v[i], range)) return false;
  }
  for (int i = 0; i < n; i++) out[i] = v[i];
  return true;
}

/* A per-dimension vector: [x, y] in 2D, [x, y, z] in 3D. */
bool scn_read_dvec(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double *out,
                      range_t range, bool required) {
  return scn_read_vector(ctx, obj, parent, key, ctx->dimension, out, range, required);
}

/* A per-dimension angular quantity: a number in 2D (stored in [0]), [x, y, z] in 3D. */
bool scn_read_angular(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double *out,
                         range_t range) {
  if (ctx->dimension == 3) return scn_read_vector(ctx, obj, parent, key, 3, out, range, false);
  const cJSON *item = scn_get(obj, key);
  if (item && cJSON_IsArray(item)) {
    char p[PATH_SIZE];
    scn_join_key(p, parent, key);
    return scn_fail(ctx, p, "must be a number in a 2D scene (got an array)");
  }
  return scn_read_number(ctx, obj, parent, key, &out[0], range, false);
}

bool scn_nonzero_vector(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, const double *v,
                           int n) {
  if (!scn_get(obj, key)) return true;
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i] * v[i];
  if (s > 0) return true;
  char p[PATH_SIZE];
  scn_join_key(p, parent, key);
  return scn_fail(ctx, p, "must not be the zero vector");
}

/* 3D orientation: quaternion [w, x, y, z] (non-zero, normalized here) or {"axis": [..],
 * "angle": rad}. */
bool scn_read_orientation(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double q[4]) {
  const cJSON *item = scn_get(obj, key);
  if (!item) return true;
  char p[PATH_SIZE];
  scn_join_key(p, parent, key);
  if (ctx->dimension == 2) return scn_fail(ctx, p, "not allowed in a 2D scene (use \"angle\")");
  if (cJSON_IsObject(item)) {
    static const char *const keys[] = {"axis", "angle", NULL};
    if (!scn_check_keys(ctx, item, p, keys, "an axis-angle orientation")) return false;
    double axis[3] = {0, 0, 1}, angle = 0;
    if (!scn_read_vector(ctx, item, p, "axis", 3, axis, RANGE_ANY, true)) return false;
    if (!scn_nonzero_vector(ctx, item, p, "axis", axis, 3)) return false;
    if (!scn_read_number(ctx, item, p, "angle", &angle, RANGE_ANY, true)) return false;
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    double s = sin(0.5 * angle) / n;
    q[0] = cos(0.5 * angle);
    q[1] = axis[0] * s;
    q[2] = axis[1] * s;
    q[3] = axis[2] * s;
    return true;
  }
  if (!cJSON_IsArray(item)) {
    char got[64];
    scn_describe(item, got, sizeof got);
    return scn_fail(ctx, p, "must be a quaternion [w, x, y, z] or {\"axis\": [x, y, z], \"angle\": a} (got %s)",
                got);
  }
  double v[4];
  if (!scn_vector_value(ctx, item, p, 4, v)) return false;
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
  if (!(n > 0)) return scn_fail(ctx, p, "must be a non-zero quaternion");
  for (int i = 0; i < 4; i++) q[i] = v[i] / n;
  return true;
}

bool scn_read_angle(ctx_t *ctx, const cJSON *obj, const char *parent, double *angle) {
  const cJSON *item = scn_get(obj, "angle");
  if (!item) return true;
  char p[PATH_SIZE];
  scn_join_key(p, parent, "angle");
  if (ctx->dimension == 3) return scn_fail(ctx, p, "not allowed in a 3D scene (use \"orientation\")");
  return scn_read_number(ctx, obj, parent, "angle", angle, RANGE_ANY, false);
}
