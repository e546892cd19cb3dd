/* Scene files: JSON → validated clt_scene_t → world (docs/scene-format.md).
 *
 * Reading happens in stages on the cJSON tree, so every message can name the JSON path:
 *   parse → apply --set overrides → resolve parameters (--param) → substitute "$name"
 *   → validate and convert into world.h definitions
 *   → serialize the resolved tree (stored in outputs; numbers round-trip exactly).
 * The reader validates everything it can (types, ranges, finiteness, unknown keys, dimension) so
 * the user sees the JSON path; errors the library still finds are mapped back to the path of the
 * body/joint/force that caused them in clt_scene_create_world. */
#include "clatter/scene.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/names.h"
#include "json_text.h"

#define PATH_SIZE 512
#define CLT_SCENE_PI 3.14159265358979323846

typedef struct name_entry_t {
  const char *name;
  int index;
} name_entry_t;

typedef struct scene_body_t {
  clt_body_def_t def;
  clt_shape_def_t *shapes;
  char *name;
  bool shared_shapes; /* a grid copy: shapes belong to the grid's first body (docs "Body grids") */
  int entry;          /* index in the file's "bodies" array (differs after a grid) */
} scene_body_t;

typedef struct scene_joint_t {
  clt_joint_def_t def;
  int body_a, body_b; /* body indices, −1 = the world */
  char *name;
} scene_joint_t;

typedef struct scene_force_t {
  clt_force_def_t def;
  int body_a, body_b;
  char *name;
  bool rigid; /* spring-damper "rigid": true: built as a distance joint instead (SPEC.md §8 twobar) */
} scene_force_t;

struct clt_scene_t {
  char *source;
  char *name;
  char *json;
  char *output_path;
  clt_world_def_t world_def;
  double duration;
  int64_t step_count;
  clt_scene_output_t output;
  int material_count;
  clt_material_def_t *materials;
  char **material_names;
  int default_material; /* index of the material named "default", −1 if none */
  int body_count;
  scene_body_t *bodies;
  struct name_entry_t *bodies_by_name; /* named bodies sorted by name, then index */
  int named_count;
  int joint_count;
  scene_joint_t *joints;
  int force_count;
  scene_force_t *forces;
  bool has_colony; /* a "colony" block (docs/scene-format.md "colony") */
  clt_scene_colony_t colony;
};

/* ---------------------------------------------------------------------------------------------
 * Error context */

typedef struct ctx_t {
  const char *source;
  char *message;
  size_t message_size;
  bool failed;
  clt_status_t status;
  int dimension;
  clt_scene_t *scene;
} ctx_t;

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
static bool
fail(ctx_t *ctx, const char *path, const char *fmt, ...) {
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

static void join_key(char *out, const char *parent, const char *key) {
  char copy[PATH_SIZE];
  path_concat(copy, parent, NULL, NULL); /* out may alias parent */
  path_concat(out, copy, copy[0] ? "." : NULL, key);
}

static void join_index(char *out, const char *parent, int index) {
  char copy[PATH_SIZE], number[16];
  path_concat(copy, parent, NULL, NULL);
  snprintf(number, sizeof number, "[%d]", index);
  path_concat(out, copy, NULL, number);
}

static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* "string \"NaN\"", "array", ... for messages about wrong types. */
static void describe(const cJSON *item, char *buf, size_t size) {
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

static void format_number(double v, char *buf, size_t size) { clt_json_format_number(v, buf, size); }

/* ---------------------------------------------------------------------------------------------
 * Typed access with validation */

static const cJSON *get(const cJSON *obj, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Every key of obj must be in allowed (NULL-terminated); no key may repeat. */
static bool check_keys(ctx_t *ctx, const cJSON *obj, const char *path, const char *const *allowed,
                       const char *what) {
  for (const cJSON *c = obj->child; c; c = c->next) {
    char p[PATH_SIZE];
    join_key(p, path, c->string);
    for (const cJSON *d = obj->child; d != c; d = d->next) {
      if (strcmp(d->string, c->string) == 0) return fail(ctx, p, "duplicate key");
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
      return fail(ctx, p, "unknown key (%s allows: %s)", what, list);
    }
  }
  return true;
}

static bool expect_object(ctx_t *ctx, const cJSON *item, const char *path) {
  if (cJSON_IsObject(item)) return true;
  char got[64];
  describe(item, got, sizeof got);
  return fail(ctx, path, "must be an object (got %s)", got);
}

static bool number_value(ctx_t *ctx, const cJSON *item, const char *path, double *out) {
  if (!cJSON_IsNumber(item)) {
    char got[64];
    describe(item, got, sizeof got);
    return fail(ctx, path, "must be a number (got %s)", got);
  }
  if (!isfinite(item->valuedouble)) {
    return fail(ctx, path, "must be a finite number (got %s)", item->valuedouble > 0 ? "inf" : "-inf");
  }
  *out = item->valuedouble;
  return true;
}

typedef enum range_t {
  RANGE_ANY,
  RANGE_POSITIVE,    /* > 0 */
  RANGE_NONNEGATIVE, /* ≥ 0 */
  RANGE_GAMMA,       /* (0, 1] */
  RANGE_FRACTION     /* [0, 1] */
} range_t;

static bool check_range(ctx_t *ctx, const char *path, double v, range_t range) {
  char got[64];
  format_number(v, got, sizeof got);
  switch (range) {
    case RANGE_ANY: return true;
    case RANGE_POSITIVE:
      if (!(v > 0)) return fail(ctx, path, "must be > 0 (got %s)", got);
      return true;
    case RANGE_NONNEGATIVE:
      if (!(v >= 0)) return fail(ctx, path, "must be >= 0 (got %s)", got);
      return true;
    case RANGE_GAMMA:
      if (!(v > 0 && v <= 1)) return fail(ctx, path, "must be in (0, 1] (got %s)", got);
      return true;
    case RANGE_FRACTION:
      if (!(v >= 0 && v <= 1)) return fail(ctx, path, "must be in [0, 1] (got %s)", got);
      return true;
  }
  return true;
}

static bool missing(ctx_t *ctx, const char *parent, const char *key) {
  char p[PATH_SIZE];
  join_key(p, parent, key);
  return fail(ctx, p, "required field is missing");
}

static bool read_number(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double *out,
                        range_t range, bool required) {
  const cJSON *item = get(obj, key);
  if (!item) return required ? missing(ctx, parent, key) : true;
  char p[PATH_SIZE];
  join_key(p, parent, key);
  double v = 0;
  if (!number_value(ctx, item, p, &v)) return false;
  if (!check_range(ctx, p, v, range)) return false;
  *out = v;
  return true;
}

static bool read_int(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, int64_t *out,
                     int64_t min, int64_t max, bool required) {
  const cJSON *item = get(obj, key);
  if (!item) return required ? missing(ctx, parent, key) : true;
  char p[PATH_SIZE];
  join_key(p, parent, key);
  double v = 0;
  if (!number_value(ctx, item, p, &v)) return false;
  char got[64];
  format_number(v, got, sizeof got);
  if (v != floor(v)) return fail(ctx, p, "must be an integer (got %s)", got);
  if (v < (double)min || v > (double)max) {
    return fail(ctx, p, "must be between %lld and %lld (got %s)", (long long)min, (long long)max, got);
  }
  *out = (int64_t)v;
  return true;
}

static bool read_bool(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, bool *out) {
  const cJSON *item = get(obj, key);
  if (!item) return true;
  char p[PATH_SIZE];
  join_key(p, parent, key);
  if (!cJSON_IsBool(item)) {
    char got[64];
    describe(item, got, sizeof got);
    return fail(ctx, p, "must be true or false (got %s)", got);
  }
  *out = cJSON_IsTrue(item);
  return true;
}

static bool string_value(ctx_t *ctx, const cJSON *item, const char *path, const char **out) {
  if (!cJSON_IsString(item)) {
    char got[64];
    describe(item, got, sizeof got);
    return fail(ctx, path, "must be a string (got %s)", got);
  }
  if (item->valuestring[0] == '\0') return fail(ctx, path, "must not be empty");
  *out = item->valuestring;
  return true;
}

static bool read_string(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, const char **out,
                        bool required) {
  const cJSON *item = get(obj, key);
  if (!item) return required ? missing(ctx, parent, key) : true;
  char p[PATH_SIZE];
  join_key(p, parent, key);
  return string_value(ctx, item, p, out);
}

/* Names of bodies, joints, forces and materials: what the library stores (63 characters). */
#define NAME_MAX_LENGTH 63

static bool read_name(ctx_t *ctx, const cJSON *obj, const char *parent, const char **out) {
  if (!read_string(ctx, obj, parent, "name", out, false)) return false;
  if (*out && strlen(*out) > NAME_MAX_LENGTH) {
    char p[PATH_SIZE];
    join_key(p, parent, "name");
    return fail(ctx, p, "must be at most %d characters (got %zu)", NAME_MAX_LENGTH, strlen(*out));
  }
  return true;
}

/* names: NULL-terminated; *out gets the index. */
static bool read_enum(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key,
                      const char *const *names, int *out, bool required) {
  const char *s = NULL;
  if (!read_string(ctx, obj, parent, key, &s, required)) return false;
  if (!s) return true;
  for (int i = 0; names[i]; i++) {
    if (strcmp(names[i], s) == 0) {
      *out = i;
      return true;
    }
  }
  char p[PATH_SIZE], list[256] = "";
  join_key(p, parent, key);
  for (int i = 0; names[i]; i++) {
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
  }
  return fail(ctx, p, "unknown value \"%s\" (expected one of: %s)", s, list);
}

static bool vector_value(ctx_t *ctx, const cJSON *item, const char *path, int n, double *out) {
  if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != n) {
    char got[64];
    if (cJSON_IsArray(item)) {
      snprintf(got, sizeof got, "an array of %d", cJSON_GetArraySize(item));
    } else {
      describe(item, got, sizeof got);
    }
    return fail(ctx, path, "must be an array of %d numbers (got %s)", n, got);
  }
  int i = 0;
  for (const cJSON *c = item->child; c; c = c->next, i++) {
    char p[PATH_SIZE];
    join_index(p, path, i);
    if (!number_value(ctx, c, p, &out[i])) return false;
  }
  return true;
}

static bool read_vector(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, int n, double *out,
                        range_t range, bool required) {
  const cJSON *item = get(obj, key);
  if (!item) return required ? missing(ctx, parent, key) : true;
  char p[PATH_SIZE];
  join_key(p, parent, key);
  double v[4] = {0, 0, 0, 0};
  if (!vector_value(ctx, item, p, n, v)) return false;
  for (int i = 0; i < n; i++) {
    char pi[PATH_SIZE];
    join_index(pi, p, i);
    if (!check_range(ctx, pi, v[i], range)) return false;
  }
  for (int i = 0; i < n; i++) out[i] = v[i];
  return true;
}

/* A per-dimension vector: [x, y] in 2D, [x, y, z] in 3D. */
static bool read_dvec(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double *out,
                      range_t range, bool required) {
  return read_vector(ctx, obj, parent, key, ctx->dimension, out, range, required);
}

/* A per-dimension angular quantity: a number in 2D (stored in [0]), [x, y, z] in 3D. */
static bool read_angular(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double *out,
                         range_t range) {
  if (ctx->dimension == 3) return read_vector(ctx, obj, parent, key, 3, out, range, false);
  const cJSON *item = get(obj, key);
  if (item && cJSON_IsArray(item)) {
    char p[PATH_SIZE];
    join_key(p, parent, key);
    return fail(ctx, p, "must be a number in a 2D scene (got an array)");
  }
  return read_number(ctx, obj, parent, key, &out[0], range, false);
}

static bool nonzero_vector(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, const double *v,
                           int n) {
  if (!get(obj, key)) return true;
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i] * v[i];
  if (s > 0) return true;
  char p[PATH_SIZE];
  join_key(p, parent, key);
  return fail(ctx, p, "must not be the zero vector");
}

/* 3D orientation: quaternion [w, x, y, z] (non-zero, normalized here) or {"axis": [..],
 * "angle": rad}. */
static bool read_orientation(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double q[4]) {
  const cJSON *item = get(obj, key);
  if (!item) return true;
  char p[PATH_SIZE];
  join_key(p, parent, key);
  if (ctx->dimension == 2) return fail(ctx, p, "not allowed in a 2D scene (use \"angle\")");
  if (cJSON_IsObject(item)) {
    static const char *const keys[] = {"axis", "angle", NULL};
    if (!check_keys(ctx, item, p, keys, "an axis-angle orientation")) return false;
    double axis[3] = {0, 0, 1}, angle = 0;
    if (!read_vector(ctx, item, p, "axis", 3, axis, RANGE_ANY, true)) return false;
    if (!nonzero_vector(ctx, item, p, "axis", axis, 3)) return false;
    if (!read_number(ctx, item, p, "angle", &angle, RANGE_ANY, true)) return false;
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
    describe(item, got, sizeof got);
    return fail(ctx, p, "must be a quaternion [w, x, y, z] or {\"axis\": [x, y, z], \"angle\": a} (got %s)",
                got);
  }
  double v[4];
  if (!vector_value(ctx, item, p, 4, v)) return false;
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
  if (!(n > 0)) return fail(ctx, p, "must be a non-zero quaternion");
  for (int i = 0; i < 4; i++) q[i] = v[i] / n;
  return true;
}

static bool read_angle(ctx_t *ctx, const cJSON *obj, const char *parent, double *angle) {
  const cJSON *item = get(obj, "angle");
  if (!item) return true;
  char p[PATH_SIZE];
  join_key(p, parent, "angle");
  if (ctx->dimension == 3) return fail(ctx, p, "not allowed in a 3D scene (use \"orientation\")");
  return read_number(ctx, obj, parent, "angle", angle, RANGE_ANY, false);
}

/* ---------------------------------------------------------------------------------------------
 * Overrides: --set path=value, --param name=value, "$name" substitution */

/* Replaces child c of parent (object or array) by replacement, keeping c's key. */
static bool replace_child(cJSON *parent, cJSON *c, cJSON *replacement) {
  if (replacement->string && !(replacement->type & cJSON_StringIsConst)) cJSON_free(replacement->string);
  replacement->string = NULL;
  replacement->type &= ~cJSON_StringIsConst;
  if (cJSON_IsObject(parent)) return cJSON_ReplaceItemInObjectCaseSensitive(parent, c->string, replacement);
  return cJSON_ReplaceItemViaPointer(parent, c, replacement);
}

/* The first "\u0000" escape inside a JSON string of text (NULL if none): cJSON decodes it into a
 * NUL that ends the C string, so "a\u0000b" would silently become "a". */
static const char *escaped_nul(const char *text) {
  bool in_string = false;
  for (const char *c = text; *c; c++) {
    if (!in_string) {
      in_string = *c == '"';
    } else if (*c == '"') {
      in_string = false;
    } else if (*c == '\\') {
      if (c[1] == 'u' && c[2] == '0' && c[3] == '0' && c[4] == '0' && c[5] == '0') return c;
      if (c[1]) c++; /* the escaped character */
    }
  }
  return NULL;
}

/* The value text of an override: JSON if it parses, else a string. NULL (with *nul set) when it
 * holds a \u0000 escape. */
static cJSON *override_value(const char *text, bool *nul) {
  *nul = escaped_nul(text) != NULL;
  if (*nul) return NULL;
  cJSON *v = cJSON_Parse(text);
  if (v) return v;
  return cJSON_CreateString(text);
}

static bool apply_set(ctx_t *ctx, cJSON *root, const char *assignment) {
  ctx->status = CLT_ERR_INVALID_ARGUMENT;
  const char *eq = strchr(assignment, '=');
  char where[PATH_SIZE + 16];
  snprintf(where, sizeof where, "--set %s", assignment);
  if (!eq || eq == assignment) {
    fail(ctx, where, "expected PATH=VALUE");
    return false;
  }
  size_t path_len = (size_t)(eq - assignment);
  if (path_len >= PATH_SIZE) return fail(ctx, where, "path too long");
  char path[PATH_SIZE];
  memcpy(path, assignment, path_len);
  path[path_len] = '\0';

  /* Walk segments: key ("name") or index ("[3]"). */
  cJSON *current = root;
  const char *s = path;
  char walked[PATH_SIZE] = "";
  bool ok = true;
  while (*s && ok) {
    cJSON *next = NULL;
    bool last;
    if (*s == '[') {
      char *end = (char *)s + 1;
      errno = 0;
      long index = s[1] >= '0' && s[1] <= '9' ? strtol(s + 1, &end, 10) : 0; /* digits only: no "[ 1]", "[+1]" */
      if (end == s + 1 || *end != ']' || errno) {
        ok = fail(ctx, where, "bad path (array index expected after '[')");
        break;
      }
      s = end + 1;
      if (*s == '.') s++;
      last = (*s == '\0');
      if (!cJSON_IsArray(current)) {
        ok = fail(ctx, where, "%s is not an array", *walked ? walked : "the scene");
        break;
      }
      int size = cJSON_GetArraySize(current);
      if (index < 0 || index >= size) {
        ok = fail(ctx, where, "index %ld out of range (%s has %d element%s)", index, walked, size,
                  size == 1 ? "" : "s");
        break;
      }
      char w[PATH_SIZE];
      join_index(w, walked, (int)index);
      snprintf(walked, sizeof walked, "%s", w);
      if (last) {
        bool nul;
        cJSON *v = override_value(eq + 1, &nul);
        if (nul) {
          ok = fail(ctx, where, "the value holds \\u0000 (NUL), which no field accepts");
        } else if (!v || !cJSON_ReplaceItemInArray(current, (int)index, v)) {
          ctx->status = CLT_ERR_OUT_OF_MEMORY;
          ok = fail(ctx, where, "out of memory");
        }
        break;
      }
      next = cJSON_GetArrayItem(current, (int)index);
    } else {
      size_t n = strcspn(s, ".[");
      if (n == 0) {
        ok = fail(ctx, where, "bad path (empty key)");
        break;
      }
      char key[PATH_SIZE];
      memcpy(key, s, n);
      key[n] = '\0';
      s += n;
      if (*s == '.') {
        s++;
        if (*s == '\0') {
          ok = fail(ctx, where, "bad path (ends with '.')");
          break;
        }
      }
      last = (*s == '\0');
      if (!cJSON_IsObject(current)) {
        ok = fail(ctx, where, "%s is not an object", *walked ? walked : "the scene");
        break;
      }
      char w[PATH_SIZE];
      join_key(w, walked, key);
      snprintf(walked, sizeof walked, "%s", w);
      next = cJSON_GetObjectItemCaseSensitive(current, key);
      if (last) {
        bool nul;
        cJSON *v = override_value(eq + 1, &nul);
        bool done = v && (next ? replace_child(current, next, v) : cJSON_AddItemToObject(current, key, v));
        if (nul) {
          ok = fail(ctx, where, "the value holds \\u0000 (NUL), which no field accepts");
        } else if (!done) {
          ctx->status = CLT_ERR_OUT_OF_MEMORY;
          ok = fail(ctx, where, "out of memory");
        }
        break;
      }
      if (!next) {
        /* Missing intermediate objects are created (validation then checks the keys). */
        if (*s == '[') {
          ok = fail(ctx, where, "%s does not exist", walked);
          break;
        }
        next = cJSON_AddObjectToObject(current, key);
        if (!next) {
          ctx->status = CLT_ERR_OUT_OF_MEMORY;
          ok = fail(ctx, where, "out of memory");
          break;
        }
      }
    }
    current = next;
  }
  if (ok) ctx->status = CLT_OK;
  return ok;
}

/* Parameter values may be numbers (finite), strings, booleans or arrays of those. */
static bool check_parameter_value(ctx_t *ctx, const cJSON *v, const char *path) {
  if (cJSON_IsNumber(v)) {
    double d;
    return number_value(ctx, v, path, &d);
  }
  if (cJSON_IsString(v) || cJSON_IsBool(v)) return true;
  if (cJSON_IsArray(v)) {
    int i = 0;
    for (const cJSON *c = v->child; c; c = c->next, i++) {
      char p[PATH_SIZE];
      join_index(p, path, i);
      if (cJSON_IsArray(c) || cJSON_IsObject(c))
        return fail(ctx, p, "parameter values cannot nest arrays or objects");
      if (!check_parameter_value(ctx, c, p)) return false;
    }
    return true;
  }
  char got[64];
  describe(v, got, sizeof got);
  return fail(ctx, path, "a parameter value must be a number, string, boolean or array (got %s)", got);
}

static bool apply_param(ctx_t *ctx, cJSON *parameters, const char *assignment) {
  const char *eq = strchr(assignment, '=');
  ctx->status = CLT_ERR_INVALID_ARGUMENT;
  if (!eq || eq == assignment) return fail(ctx, NULL, "--param %s: expected NAME=VALUE", assignment);
  char name[PATH_SIZE];
  size_t n = (size_t)(eq - assignment);
  if (n >= sizeof name) n = sizeof name - 1;
  memcpy(name, assignment, n);
  name[n] = '\0';
  cJSON *old = parameters ? cJSON_GetObjectItemCaseSensitive(parameters, name) : NULL;
  if (!old) {
    char list[400] = "";
    if (parameters) {
      for (const cJSON *c = parameters->child; c; c = c->next) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", c->string);
      }
    }
    if (list[0])
      return fail(ctx, NULL, "--param %s: unknown parameter '%s' (declared: %s)", assignment, name, list);
    return fail(ctx, NULL, "--param %s: unknown parameter '%s' (the scene declares no parameters)",
                assignment, name);
  }
  bool nul;
  cJSON *v = override_value(eq + 1, &nul);
  if (nul) return fail(ctx, NULL, "--param %s: the value holds \\u0000 (NUL), which no field accepts", assignment);
  if (!v) {
    ctx->status = CLT_ERR_OUT_OF_MEMORY;
    return fail(ctx, NULL, "out of memory");
  }
  char where[PATH_SIZE];
  snprintf(where, sizeof where, "--param %.*s", PATH_SIZE - 16, assignment);
  bool ok = check_parameter_value(ctx, v, where);
  if (!ok) {
    cJSON_Delete(v);
    return false;
  }
  replace_child(parameters, old, v);
  ctx->status = CLT_OK;
  return true;
}

/* The declared parameters sorted by name (then by declaration order), so that duplicates are
 * neighbours and a "$name" is found by bisection: a scene with 2·10⁵ parameters took 70 s when
 * both were linear searches. */
typedef struct param_index_t {
  const cJSON **items;
  int *order; /* declaration position of items[k] */
  int count;
} param_index_t;

static const cJSON *const *sort_items;

static int by_name_then_order(const void *a, const void *b) {
  int ia = *(const int *)a, ib = *(const int *)b;
  int c = strcmp(sort_items[ia]->string, sort_items[ib]->string);
  return c != 0 ? c : (ia > ib) - (ia < ib);
}

/* Builds the index of parameters (NULL: empty); false when out of memory. */
static bool param_index_build(const cJSON *parameters, param_index_t *x) {
  memset(x, 0, sizeof *x);
  int n = 0;
  for (const cJSON *c = parameters ? parameters->child : NULL; c; c = c->next) n++;
  if (n == 0) return true;
  const cJSON **items = malloc((size_t)n * sizeof *items);
  int *order = malloc((size_t)n * sizeof *order);
  const cJSON **sorted = malloc((size_t)n * sizeof *sorted);
  if (!items || !order || !sorted) {
    free(items);
    free(order);
    free(sorted);
    return false;
  }
  int k = 0;
  for (const cJSON *c = parameters->child; c; c = c->next, k++) {
    items[k] = c;
    order[k] = k;
  }
  sort_items = items; /* the parse runs on one thread */
  qsort(order, (size_t)n, sizeof *order, by_name_then_order);
  for (k = 0; k < n; k++) sorted[k] = items[order[k]];
  free(items);
  x->items = sorted;
  x->order = order;
  x->count = n;
  return true;
}

static void param_index_free(param_index_t *x) {
  free(x->items);
  free(x->order);
  memset(x, 0, sizeof *x);
}

/* The first declared duplicate (by declaration order) of x, or NULL. */
static const cJSON *param_index_duplicate(const param_index_t *x) {
  const cJSON *first = NULL;
  int at = x->count;
  for (int k = 1; k < x->count; k++) {
    if (strcmp(x->items[k]->string, x->items[k - 1]->string) == 0 && x->order[k] < at) {
      at = x->order[k];
      first = x->items[k];
    }
  }
  return first;
}

static const cJSON *param_index_find(const param_index_t *x, const char *name) {
  int lo = 0, hi = x->count;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    int c = strcmp(x->items[mid]->string, name);
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < x->count && strcmp(x->items[lo]->string, name) == 0 ? x->items[lo] : NULL;
}

/* Replaces every string "$name" below item by a copy of the parameter's value; "$$x" becomes the
 * literal string "$x". */
static bool substitute(ctx_t *ctx, cJSON *item, const char *path, const param_index_t *parameters,
                       const cJSON *skip) {
  int i = 0;
  for (cJSON *c = item->child; c; i++) {
    cJSON *next = c->next;
    if (c == skip) {
      c = next;
      continue;
    }
    char p[PATH_SIZE];
    if (cJSON_IsObject(item)) {
      join_key(p, path, c->string);
    } else {
      join_index(p, path, i);
    }
    if (cJSON_IsString(c) && c->valuestring[0] == '$') {
      if (c->valuestring[1] == '$') {
        cJSON *literal = cJSON_CreateString(c->valuestring + 1);
        if (!literal || !replace_child(item, c, literal)) return fail(ctx, p, "out of memory");
      } else {
        const char *name = c->valuestring + 1;
        const cJSON *value = param_index_find(parameters, name);
        if (!value) return fail(ctx, p, "unknown parameter '%s' (declare it in \"parameters\")", name);
        cJSON *copy = cJSON_Duplicate(value, true);
        if (!copy || !replace_child(item, c, copy)) return fail(ctx, p, "out of memory");
      }
    } else if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
      if (!substitute(ctx, c, p, parameters, skip)) return false;
    }
    c = next;
  }
  return true;
}

/* ---------------------------------------------------------------------------------------------
 * Scene sections */


/* method.contact_model (SPEC.md §6): "default" | "relcp" | "snsd" | "multisphere:N", N odd in
 * 1…CONTACT_MULTISPHERE_MAX (the sphere count is part of the value so a sweep is one --set). */
#define CONTACT_MULTISPHERE_MAX 63

static bool read_contact_model(ctx_t *ctx, const cJSON *m, const char *parent, clt_method_t *method) {
  const char *s = NULL;
  if (!read_string(ctx, m, parent, "contact_model", &s, false)) return false;
  if (!s) return true;
  char p[PATH_SIZE];
  join_key(p, parent, "contact_model");
  static const char *const plain[] = {"default", "relcp", "snsd"};
  static const clt_contact_model_t plain_models[] = {CLT_CONTACT_MODEL_DEFAULT, CLT_CONTACT_MODEL_RELCP,
                                                     CLT_CONTACT_MODEL_SNSD};
  for (int i = 0; i < 3; i++) {
    if (strcmp(s, plain[i]) == 0) {
      method->contact_model = plain_models[i];
      return true;
    }
  }
  static const char prefix[] = "multisphere:";
  if (strncmp(s, prefix, sizeof prefix - 1) == 0) {
    const char *digits = s + sizeof prefix - 1;
    bool integer = *digits != '\0' && strlen(digits) <= 9;
    for (const char *c = digits; *c; c++) {
      if (*c < '0' || *c > '9') integer = false;
    }
    if (!integer) {
      return fail(ctx, p, "%s: N must be an odd integer from 1 to %d", s, CONTACT_MULTISPHERE_MAX);
    }
    long count = strtol(digits, NULL, 10);
    if (count < 1 || count > CONTACT_MULTISPHERE_MAX) {
      return fail(ctx, p, "%s: N must be between 1 and %d", s, CONTACT_MULTISPHERE_MAX);
    }
    if (count % 2 == 0) return fail(ctx, p, "%s: N must be odd", s);
    method->contact_model = CLT_CONTACT_MODEL_MULTISPHERE;
    method->multisphere_count = (int)count;
    return true;
  }
  if (strcmp(s, "multisphere") == 0) {
    return fail(ctx, p, "\"multisphere\" needs the sphere count: multisphere:N (N odd, 1 to %d)",
                CONTACT_MULTISPHERE_MAX);
  }
  return fail(ctx, p, "unknown value \"%s\" (expected one of: default, relcp, snsd, multisphere:N)", s);
}

static bool read_method(ctx_t *ctx, const cJSON *m, clt_method_t *method) {
  static const char *const keys[] = {
      "scheme",     "gamma",          "alpha",      "post_repeats", "post_tolerance", "solver",
      "tolerance",  "max_iterations", "relaxation", "warm_start",   "active_set_eps", "friction_directions",
      "gyroscopic", "on_unconverged", "friction_cone", "contact_model", "overlap_tolerance",
      "relcp_max_iterations", "spring_projection", "absolute_tolerance", "velocity_tolerance",
      "divergence_energy_factor", "divergence_infeasibility_fraction", NULL};
  const char *p = "method";
  if (!expect_object(ctx, m, p) || !check_keys(ctx, m, p, keys, "method")) return false;
  int e;
  int64_t n;
  e = (int)method->scheme;
  if (!read_enum(ctx, m, p, "scheme", clt_scheme_names, &e, false)) return false;
  method->scheme = (clt_scheme_t)e;
  if (!read_number(ctx, m, p, "gamma", &method->gamma, RANGE_GAMMA, false)) return false;
  if (!read_number(ctx, m, p, "alpha", &method->alpha, RANGE_NONNEGATIVE, false)) return false;
  n = method->post_repeats;
  if (!read_int(ctx, m, p, "post_repeats", &n, 0, 1000, false)) return false;
  method->post_repeats = (int)n;
  if (!read_number(ctx, m, p, "post_tolerance", &method->post_tolerance, RANGE_POSITIVE, false)) return false;
  e = (int)method->solver;
  if (!read_enum(ctx, m, p, "solver", clt_solver_kind_names, &e, false)) return false;
  method->solver = (clt_solver_kind_t)e;
  if (!read_number(ctx, m, p, "tolerance", &method->tolerance, RANGE_POSITIVE, false)) return false;
  n = method->max_iterations;
  if (!read_int(ctx, m, p, "max_iterations", &n, 1, 1000000000, false)) return false;
  method->max_iterations = (int)n;
  if (!read_number(ctx, m, p, "relaxation", &method->relaxation, RANGE_POSITIVE, false)) return false;
  if (method->relaxation >= 2) {
    char got[64];
    format_number(method->relaxation, got, sizeof got);
    return fail(ctx, "method.relaxation", "must be in (0, 2) (got %s)", got);
  }
  if (!read_bool(ctx, m, p, "warm_start", &method->warm_start)) return false;
  if (!read_bool(ctx, m, p, "absolute_tolerance", &method->absolute_tolerance)) return false;
  if (!read_number(ctx, m, p, "velocity_tolerance", &method->velocity_tolerance, RANGE_NONNEGATIVE, false))
    return false;
  if (!read_number(ctx, m, p, "active_set_eps", &method->active_set_eps, RANGE_NONNEGATIVE, false))
    return false;
  /* docs/stepping.md "Divergence": 0 turns a test off */
  if (!read_number(ctx, m, p, "divergence_energy_factor", &method->divergence_energy_factor, RANGE_NONNEGATIVE,
                   false))
    return false;
  if (!read_number(ctx, m, p, "divergence_infeasibility_fraction", &method->divergence_infeasibility_fraction,
                   RANGE_NONNEGATIVE, false))
    return false;
  n = method->friction_directions;
  if (!read_int(ctx, m, p, "friction_directions", &n, 2, 1024, false)) return false;
  if (get(m, "friction_directions") && ctx->dimension == 3 && (n < 4 || n % 2 != 0)) {
    return fail(ctx, "method.friction_directions", "must be even and >= 4 in 3D (got %lld)", (long long)n);
  }
  if (get(m, "friction_directions") && ctx->dimension == 2 && n != 2) {
    return fail(ctx, "method.friction_directions", "is always 2 in a 2D scene (got %lld)", (long long)n);
  }
  method->friction_directions = (int)n;
  e = (int)method->gyroscopic;
  if (!read_enum(ctx, m, p, "gyroscopic", clt_gyroscopic_names, &e, false)) return false;
  method->gyroscopic = (clt_gyroscopic_t)e;
  e = (int)method->on_unconverged;
  if (!read_enum(ctx, m, p, "on_unconverged", clt_on_unconverged_names, &e, false)) return false;
  method->on_unconverged = (clt_on_unconverged_t)e;
  e = (int)method->friction_cone;
  if (!read_enum(ctx, m, p, "friction_cone", clt_friction_cone_names, &e, false)) return false;
  method->friction_cone = (clt_friction_cone_t)e;
  if (method->scheme == CLT_SCHEME_RELAXED && method->solver == CLT_SOLVER_MPRGP &&
      method->friction_cone == CLT_CONE_CIRCULAR)
    return fail(ctx, "method.solver", "mprgp handles bounds only: with scheme relaxed it needs friction_cone "
                                      "polyhedral (the circular cone is solved by bgs, apgd or bbpgd)");
  if (method->scheme == CLT_SCHEME_ANITESCU_HART && method->friction_cone == CLT_CONE_CIRCULAR &&
      method->solver != CLT_SOLVER_BGS && method->solver != CLT_SOLVER_LEMKE && method->solver != CLT_SOLVER_APGD &&
      method->solver != CLT_SOLVER_BBPGD)
    return fail(ctx, "method.solver",
                "scheme anitescu-hart on the circular cone (Coulomb's law, s = 0) is solved by bgs, apgd or "
                "bbpgd (a fixed point of convex cone QPs): mprgp and newton do not apply");
  /* SPEC.md §6: contact model and ReLCP tolerances. */
  if (!read_contact_model(ctx, m, p, method)) return false;
  if (!read_number(ctx, m, p, "overlap_tolerance", &method->overlap_tolerance, RANGE_POSITIVE, false))
    return false;
  n = method->relcp_max_iterations;
  if (!read_int(ctx, m, p, "relcp_max_iterations", &n, 1, 1000000, false)) return false;
  method->relcp_max_iterations = (int)n;
  /* SPEC.md §4 nonlinear projection after the step: Gauss–Newton passes, 0 = off */
  n = method->spring_projection;
  if (!read_int(ctx, m, p, "spring_projection", &n, 0, 1000, false)) return false;
  method->spring_projection = (int)n;
  return true;
}

/* Law of motion (SPEC.md §6.1): top-level "law", "viscosity", "planar". viscosity is read under
 * either law (a --set law=inertial must not invalidate an overdamped scene); only the overdamped
 * law uses it. */

static bool read_world_law(ctx_t *ctx, const cJSON *root, clt_world_def_t *wd) {
  int e = (int)wd->law;
  if (!read_enum(ctx, root, "", "law", clt_law_names, &e, false)) return false;
  wd->law = (clt_law_t)e;
  if (!read_number(ctx, root, "", "viscosity", &wd->viscosity, RANGE_POSITIVE, false)) return false;
  if (get(root, "planar") && ctx->dimension == 2) {
    return fail(ctx, "planar", "not allowed in a 2D scene (a 2D world is planar)");
  }
  if (!read_bool(ctx, root, "", "planar", &wd->planar)) return false;
  /* The default contact rows (SPEC.md §1, with friction) know only the inertial, unconfined law
   * (docs/stepping.md "ReLCP and the overdamped law"): say so before anything runs. */
  if (wd->method.contact_model == CLT_CONTACT_MODEL_DEFAULT) {
    if (wd->law == CLT_LAW_OVERDAMPED) {
      return fail(ctx, "law", "\"overdamped\" needs method.contact_model relcp, snsd or multisphere:N "
                              "(the default contact rows are inertial only)");
    }
    if (wd->planar) {
      return fail(ctx, "planar", "needs method.contact_model relcp, snsd or multisphere:N (the default "
                                 "contact rows are unconfined)");
    }
  }
  return true;
}

static bool read_materials(ctx_t *ctx, const cJSON *mats) {
  clt_scene_t *scene = ctx->scene;
  if (!expect_object(ctx, mats, "materials")) return false;
  int count = cJSON_GetArraySize(mats);
  scene->materials = calloc((size_t)(count > 0 ? count : 1), sizeof *scene->materials);
  scene->material_names = calloc((size_t)(count > 0 ? count : 1), sizeof *scene->material_names);
  if (!scene->materials || !scene->material_names) return fail(ctx, "materials", "out of memory");
  static const char *const keys[] = {"friction", "restitution", "density", NULL};
  for (const cJSON *m = mats->child; m; m = m->next) {
    char p[PATH_SIZE];
    join_key(p, "materials", m->string);
    for (const cJSON *d = mats->child; d != m; d = d->next) {
      if (strcmp(d->string, m->string) == 0) return fail(ctx, p, "duplicate key");
    }
    if (m->string[0] == '\0') return fail(ctx, p, "a material name must not be empty");
    if (strlen(m->string) > NAME_MAX_LENGTH) {
      return fail(ctx, p, "a material name must be at most %d characters", NAME_MAX_LENGTH);
    }
    if (!expect_object(ctx, m, p) || !check_keys(ctx, m, p, keys, "a material")) return false;
    clt_material_def_t def = clt_default_material_def();
    if (!read_number(ctx, m, p, "friction", &def.friction, RANGE_NONNEGATIVE, false)) return false;
    if (!read_number(ctx, m, p, "restitution", &def.restitution, RANGE_FRACTION, false)) return false;
    if (!read_number(ctx, m, p, "density", &def.density, RANGE_POSITIVE, false)) return false;
    int i = scene->material_count;
    scene->material_names[i] = dup_string(m->string);
    if (!scene->material_names[i]) return fail(ctx, p, "out of memory");
    def.name = scene->material_names[i];
    scene->materials[i] = def;
    if (strcmp(m->string, "default") == 0) scene->default_material = i;
    scene->material_count++;
  }
  return true;
}

static bool find_material(ctx_t *ctx, const cJSON *obj, const char *parent, int *out) {
  const char *name = NULL;
  if (!read_string(ctx, obj, parent, "material", &name, false)) return false;
  if (!name) return true;
  clt_scene_t *scene = ctx->scene;
  for (int i = 0; i < scene->material_count; i++) {
    if (strcmp(scene->material_names[i], name) == 0) {
      *out = i;
      return true;
    }
  }
  char p[PATH_SIZE], list[300] = "";
  join_key(p, parent, "material");
  for (int i = 0; i < scene->material_count; i++) {
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", scene->material_names[i]);
  }
  return fail(ctx, p, "unknown material \"%s\" (defined: %s)", name, list[0] ? list : "none");
}

/* ---------------------------------------------------------------------------------------------
 * Fields a combination does not read (docs/scene-format.md "Fields the method does not use"):
 * a value the scene gives that the chosen contact model, scheme or solver never reads would be
 * silently ignored, so it is refused by name. A field's default is accepted wherever it is given
 * (the run is then the one the scene describes), so one --set still switches a scene's scheme or
 * model; the law-of-motion fields (viscosity, drag_*) stay allowed under either law, because a
 * scene is meant to run under both (docs/scene-format.md "Laws of motion and contact models"). */

static bool refuse_unused(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, bool differs,
                          const char *neutral, const char *by, const char *why) {
  const cJSON *item = obj ? get(obj, key) : NULL;
  if (!item || !differs) return true;
  char p[PATH_SIZE], got[96];
  join_key(p, parent, key);
  if (cJSON_IsString(item)) {
    snprintf(got, sizeof got, "\"%.60s\"", item->valuestring);
  } else {
    describe(item, got, sizeof got);
  }
  return fail(ctx, p, "is ignored by %s (%s); leave it out or give %s (got %s)", by, why, neutral, got);
}

static bool check_unused_fields(ctx_t *ctx, const cJSON *root) {
  const clt_world_def_t *wd = &ctx->scene->world_def;
  const clt_method_t *m = &wd->method;
  const clt_method_t d = clt_default_method();
  const cJSON *mj = get(root, "method");
  const char *mp = "method";
  char by[128];
  /* SPEC.md §6: relcp, snsd and multisphere:N replace the scheme's pipeline (step.c) */
  if (m->contact_model != CLT_CONTACT_MODEL_DEFAULT) {
    const cJSON *cm = get(mj, "contact_model");
    snprintf(by, sizeof by, "method.contact_model %.60s", cm && cJSON_IsString(cm) ? cm->valuestring : "relcp");
    const char *no_scheme = "the ReLCP step has no stabilization scheme, SPEC.md §6.1";
    const char *no_friction = "the ReLCP contact models are frictionless, SPEC.md §6";
    const cJSON *mats = get(root, "materials");
    for (const cJSON *mat = mats ? mats->child : NULL; mat; mat = mat->next) {
      char p[PATH_SIZE];
      join_key(p, "materials", mat->string);
      const cJSON *f = get(mat, "friction"), *e = get(mat, "restitution");
      if (!refuse_unused(ctx, mat, p, "friction", f && f->valuedouble > 0, "0", by, no_friction) ||
          !refuse_unused(ctx, mat, p, "restitution", e && e->valuedouble > 0, "0", by,
                         "the ReLCP contact models are plastic: no restitution, SPEC.md §6"))
        return false;
    }
    const int default_directions = ctx->dimension == 2 ? 2 : d.friction_directions;
    return refuse_unused(ctx, mj, mp, "scheme", m->scheme != d.scheme, "\"anitescu-hart\"", by, no_scheme) &&
           refuse_unused(ctx, mj, mp, "gamma", m->gamma != d.gamma, "1", by, no_scheme) &&
           refuse_unused(ctx, mj, mp, "alpha", m->alpha != d.alpha, "0", by, no_scheme) &&
           refuse_unused(ctx, mj, mp, "post_repeats", m->post_repeats != d.post_repeats, "0", by, no_scheme) &&
           refuse_unused(ctx, mj, mp, "post_tolerance", m->post_tolerance != d.post_tolerance, "1e-9", by,
                         no_scheme) &&
           refuse_unused(ctx, mj, mp, "spring_projection", m->spring_projection != 0, "0", by,
                         "the ReLCP step has no spring projection stage, docs/stepping.md") &&
           refuse_unused(ctx, mj, mp, "friction_directions", m->friction_directions != default_directions,
                         ctx->dimension == 2 ? "2" : "8", by, no_friction) &&
           refuse_unused(ctx, mj, mp, "friction_cone", m->friction_cone != d.friction_cone, "\"polyhedral\"", by,
                         no_friction) &&
           refuse_unused(ctx, mj, mp, "absolute_tolerance", m->absolute_tolerance, "false", by,
                         "a stop test of the cone block Gauss-Seidel of scheme relaxed") &&
           refuse_unused(ctx, mj, mp, "velocity_tolerance", m->velocity_tolerance != 0, "0", by,
                         "a stop test of the cone block Gauss-Seidel of scheme relaxed") &&
           refuse_unused(ctx, mj, mp, "relaxation", m->relaxation != d.relaxation && m->solver != CLT_SOLVER_BGS,
                         "1", by, "only solver bgs, a Gauss-Seidel, is over-relaxed") &&
           refuse_unused(ctx, mj, mp, "gyroscopic", m->gyroscopic == CLT_GYRO_SEMI_IMPLICIT,
                         "\"explicit\" or \"off\"", by,
                         "the ReLCP step takes the gyroscopic torque explicitly, SPEC.md §6.1");
  }
  /* The default contact model: the row schemes (SPEC.md §1) or the cone solve (scheme relaxed,
   * and anitescu-hart on the circular cone: docs/stepping.md "The relaxed scheme"). */
  bool circular_ah = m->scheme == CLT_SCHEME_ANITESCU_HART && m->friction_cone == CLT_CONE_CIRCULAR;
  bool cone = m->scheme == CLT_SCHEME_RELAXED || circular_ah;
  /* the cone block Gauss–Seidel (relaxed_bgs.c) solves for lemke, bgs and newton */
  bool cone_gs = cone && m->solver != CLT_SOLVER_APGD && m->solver != CLT_SOLVER_BBPGD && m->solver != CLT_SOLVER_MPRGP;
  snprintf(by, sizeof by, "scheme %s%s", clt_scheme_names[m->scheme], circular_ah ? " on the circular cone" : "");
  bool biased = m->scheme == CLT_SCHEME_ANITESCU_HART || m->scheme == CLT_SCHEME_RELAXED;
  bool spring_projection = !cone && m->spring_projection > 0;
  char solver_by[160];
  snprintf(solver_by, sizeof solver_by, "solver %s with %s", clt_solver_kind_names[m->solver], by);
  const char *relcp_by = "method.contact_model default";
  const char *relcp_why = "a tolerance of the ReLCP contact models, SPEC.md §6.2";
  const char *cone_stop = "a stop test of the cone block Gauss-Seidel: scheme relaxed, or anitescu-hart on the "
                          "circular cone, with solver bgs or lemke";
  return refuse_unused(ctx, mj, mp, "overlap_tolerance", m->overlap_tolerance != d.overlap_tolerance, "0.0001",
                       relcp_by, relcp_why) &&
         refuse_unused(ctx, mj, mp, "relcp_max_iterations", m->relcp_max_iterations != d.relcp_max_iterations, "50",
                       relcp_by, relcp_why) &&
         refuse_unused(ctx, mj, mp, "gamma", !biased && m->gamma != d.gamma, "1", by,
                       "γ scales the bias of anitescu-hart and relaxed only, SPEC.md §1") &&
         refuse_unused(ctx, mj, mp, "alpha", m->scheme != CLT_SCHEME_BAUMGARTE && m->alpha != d.alpha, "0", by,
                       "α is the bias of baumgarte only, SPEC.md §1") &&
         refuse_unused(ctx, mj, mp, "post_repeats", m->scheme != CLT_SCHEME_POST && m->post_repeats != d.post_repeats,
                       "0", by, "the repeats of scheme post's projection, SPEC.md §3") &&
         refuse_unused(ctx, mj, mp, "post_tolerance",
                       m->scheme != CLT_SCHEME_POST && !spring_projection && m->post_tolerance != d.post_tolerance,
                       "1e-9", by, "the target of scheme post's projection and of method.spring_projection") &&
         refuse_unused(ctx, mj, mp, "friction_cone", !biased && m->friction_cone != d.friction_cone,
                       "\"polyhedral\"", by, "the contact rows' cone is polyhedral; circular is for anitescu-hart "
                                             "and relaxed, docs/stepping.md") &&
         refuse_unused(ctx, mj, mp, "spring_projection", cone && m->spring_projection != 0, "0", by,
                       "the cone solve has no spring projection stage, docs/stepping.md") &&
         refuse_unused(ctx, mj, mp, "absolute_tolerance", !cone_gs && m->absolute_tolerance, "false", solver_by,
                       cone_stop) &&
         refuse_unused(ctx, mj, mp, "velocity_tolerance", !cone_gs && m->velocity_tolerance != 0, "0", solver_by,
                       cone_stop) &&
         refuse_unused(ctx, mj, mp, "relaxation",
                       !cone_gs && m->solver != CLT_SOLVER_BGS && m->relaxation != d.relaxation, "1", solver_by,
                       "ω over-relaxes the Gauss-Seidel solves only") &&
         refuse_unused(ctx, mj, mp, "gyroscopic", ctx->dimension == 2 && m->gyroscopic != d.gyroscopic,
                       "\"explicit\"", "a 2D scene", "a planar body has no gyroscopic torque");
}

/* Shape types as written in scene files; "box" in 2D becomes a polygon. */
typedef struct shape_kind_t {
  const char *name;
  int dimension;
  clt_shape_type_t type;
  const char *const *fields; /* type-specific keys */
} shape_kind_t;

static const char *const fields_radius[] = {"radius", NULL};
static const char *const fields_plane[] = {"point", "normal", NULL};
static const char *const fields_segment[] = {"a", "b", "radius", NULL};
static const char *const fields_semi_axes[] = {"semi_axes", NULL};
static const char *const fields_polygon[] = {"vertices", NULL};
static const char *const fields_box[] = {"half_extents", NULL};
static const char *const fields_capsule[] = {"radius", "length", NULL};
static const char *const fields_torus[] = {"major_radius", "minor_radius", NULL};

static const shape_kind_t shape_kinds[] = {
    {"disk", 2, CLT_SHAPE_DISK, fields_radius},
    {"halfplane", 2, CLT_SHAPE_HALFPLANE, fields_plane},
    {"segment", 2, CLT_SHAPE_SEGMENT, fields_segment},
    {"ellipse", 2, CLT_SHAPE_ELLIPSE, fields_semi_axes},
    {"polygon", 2, CLT_SHAPE_POLYGON, fields_polygon},
    {"box", 2, CLT_SHAPE_POLYGON, fields_box},
    {"sphere", 3, CLT_SHAPE_SPHERE, fields_radius},
    {"halfspace", 3, CLT_SHAPE_HALFSPACE, fields_plane},
    {"box", 3, CLT_SHAPE_BOX, fields_box},
    {"capsule", 3, CLT_SHAPE_CAPSULE, fields_capsule},
    {"ellipsoid", 3, CLT_SHAPE_ELLIPSOID, fields_semi_axes},
    {"torus", 3, CLT_SHAPE_TORUS, fields_torus},
};
#define SHAPE_KIND_COUNT ((int)(sizeof shape_kinds / sizeof shape_kinds[0]))

static bool read_polygon(ctx_t *ctx, const cJSON *s, const char *p, clt_shape_def_t *def) {
  const cJSON *v = get(s, "vertices");
  if (!v) return missing(ctx, p, "vertices");
  char pv[PATH_SIZE];
  join_key(pv, p, "vertices");
  int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
  if (n < 3 || n > CLT_MAX_POLYGON_VERTICES) {
    return fail(ctx, pv, "must be an array of 3 to %d [x, y] points", CLT_MAX_POLYGON_VERTICES);
  }
  int i = 0;
  for (const cJSON *c = v->child; c; c = c->next, i++) {
    char pi[PATH_SIZE];
    join_index(pi, pv, i);
    if (!vector_value(ctx, c, pi, 2, def->vertices[i])) return false;
  }
  def->vertex_count = n;
  /* Convex and counter-clockwise: every turn is to the left. */
  for (i = 0; i < n; i++) {
    const double *a = def->vertices[i], *b = def->vertices[(i + 1) % n], *c = def->vertices[(i + 2) % n];
    double cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
    if (!(cross > 0)) {
      return fail(ctx, pv, "must be convex and counter-clockwise (turn at vertex %d is not to the left)",
                  (i + 1) % n);
    }
  }
  return true;
}

static bool read_shape(ctx_t *ctx, const cJSON *s, const char *p, clt_body_type_t body_type,
                       int body_material, clt_shape_def_t *out) {
  if (!expect_object(ctx, s, p)) return false;
  const char *type = NULL;
  if (!read_string(ctx, s, p, "type", &type, true)) return false;
  const shape_kind_t *kind = NULL;
  for (int i = 0; i < SHAPE_KIND_COUNT; i++) {
    if (strcmp(shape_kinds[i].name, type) == 0 && shape_kinds[i].dimension == ctx->dimension) {
      kind = &shape_kinds[i];
    }
  }
  char pt[PATH_SIZE];
  join_key(pt, p, "type");
  if (!kind) {
    char list[200] = "";
    for (int i = 0; i < SHAPE_KIND_COUNT; i++) {
      if (shape_kinds[i].dimension != ctx->dimension) continue;
      size_t len = strlen(list);
      snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", shape_kinds[i].name);
    }
    for (int i = 0; i < SHAPE_KIND_COUNT; i++) {
      if (strcmp(shape_kinds[i].name, type) == 0) {
        return fail(ctx, pt, "\"%s\" is a %dD shape; a %dD scene allows: %s", type, shape_kinds[i].dimension,
                    ctx->dimension, list);
      }
    }
    return fail(ctx, pt, "unknown shape type \"%s\" (a %dD scene allows: %s)", type, ctx->dimension, list);
  }
  const char *keys[16];
  int k = 0;
  keys[k++] = "type";
  keys[k++] = "material";
  keys[k++] = "position";
  keys[k++] = ctx->dimension == 2 ? "angle" : "orientation";
  for (int i = 0; kind->fields[i]; i++) keys[k++] = kind->fields[i];
  keys[k] = NULL;
  char what[64];
  snprintf(what, sizeof what, "a %s shape", kind->name);
  if (!check_keys(ctx, s, p, keys, what)) return false;

  clt_shape_def_t def = clt_default_shape_def(kind->type);
  def.material = body_material;
  if (!find_material(ctx, s, p, &def.material)) return false;
  if (!read_dvec(ctx, s, p, "position", def.local_position, RANGE_ANY, false)) return false;
  if (!read_angle(ctx, s, p, &def.local_angle)) return false;
  if (!read_orientation(ctx, s, p, "orientation", def.local_orientation)) return false;

  bool plane = kind->type == CLT_SHAPE_HALFPLANE || kind->type == CLT_SHAPE_HALFSPACE;
  if (plane && body_type == CLT_BODY_DYNAMIC) {
    return fail(ctx, pt, "a %s belongs to a static or kinematic body", kind->name);
  }
  switch (kind->type) {
    case CLT_SHAPE_DISK:
    case CLT_SHAPE_SPHERE:
      if (!read_number(ctx, s, p, "radius", &def.radius, RANGE_POSITIVE, true)) return false;
      break;
    case CLT_SHAPE_HALFPLANE:
    case CLT_SHAPE_HALFSPACE: {
      double normal[3] = {0, 0, 0};
      if (!read_dvec(ctx, s, p, "point", def.point, RANGE_ANY, false)) return false;
      if (!read_dvec(ctx, s, p, "normal", normal, RANGE_ANY, true)) return false;
      if (!nonzero_vector(ctx, s, p, "normal", normal, ctx->dimension)) return false;
      double len = sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
      for (int i = 0; i < 3; i++) def.normal[i] = normal[i] / len;
      break;
    }
    case CLT_SHAPE_SEGMENT:
      if (!read_dvec(ctx, s, p, "a", def.a, RANGE_ANY, true)) return false;
      if (!read_dvec(ctx, s, p, "b", def.b, RANGE_ANY, true)) return false;
      def.radius = 0;
      if (!read_number(ctx, s, p, "radius", &def.radius, RANGE_NONNEGATIVE, false)) return false;
      if (def.a[0] == def.b[0] && def.a[1] == def.b[1]) return fail(ctx, p, "a and b must differ");
      break;
    case CLT_SHAPE_ELLIPSE:
    case CLT_SHAPE_ELLIPSOID:
      if (!read_dvec(ctx, s, p, "semi_axes", def.semi_axes, RANGE_POSITIVE, true)) return false;
      break;
    case CLT_SHAPE_POLYGON:
      if (strcmp(kind->name, "box") == 0) {
        double he[2];
        if (!read_vector(ctx, s, p, "half_extents", 2, he, RANGE_POSITIVE, true)) return false;
        const double corners[4][2] = {{-he[0], -he[1]}, {he[0], -he[1]}, {he[0], he[1]}, {-he[0], he[1]}};
        for (int i = 0; i < 4; i++) {
          def.vertices[i][0] = corners[i][0];
          def.vertices[i][1] = corners[i][1];
        }
        def.vertex_count = 4;
      } else if (!read_polygon(ctx, s, p, &def)) {
        return false;
      }
      break;
    case CLT_SHAPE_BOX:
      if (!read_vector(ctx, s, p, "half_extents", 3, def.half_extents, RANGE_POSITIVE, true)) return false;
      break;
    case CLT_SHAPE_CAPSULE:
      if (!read_number(ctx, s, p, "radius", &def.radius, RANGE_POSITIVE, true)) return false;
      if (!read_number(ctx, s, p, "length", &def.length, RANGE_NONNEGATIVE, true)) return false;
      break;
    case CLT_SHAPE_TORUS:
      if (!read_number(ctx, s, p, "major_radius", &def.major_radius, RANGE_POSITIVE, true)) return false;
      if (!read_number(ctx, s, p, "minor_radius", &def.minor_radius, RANGE_POSITIVE, true)) return false;
      if (!(def.minor_radius < def.major_radius)) {
        char pm[PATH_SIZE];
        join_key(pm, p, "minor_radius");
        return fail(ctx, pm, "must be < major_radius");
      }
      break;
    default: break;
  }
  *out = def;
  return true;
}

static bool read_motion(ctx_t *ctx, const cJSON *m, const char *p, clt_motion_t *motion) {
  static const char *const keys[] = {"velocity", "amplitude", "frequency", "phase", NULL};
  if (!expect_object(ctx, m, p) || !check_keys(ctx, m, p, keys, "motion")) return false;
  if (!read_dvec(ctx, m, p, "velocity", motion->velocity, RANGE_ANY, false)) return false;
  if (!read_dvec(ctx, m, p, "amplitude", motion->amplitude, RANGE_ANY, false)) return false;
  if (!read_number(ctx, m, p, "frequency", &motion->frequency, RANGE_NONNEGATIVE, false)) return false;
  if (!read_number(ctx, m, p, "phase", &motion->phase, RANGE_ANY, false)) return false;
  return true;
}

/* Overdamped drag (SPEC.md §6.1) about the principal axes: both or neither (neither: the library
 * computes it from the shapes and the viscosity), every component > 0 (zero drag would be an
 * infinite mobility), dynamic bodies only. */
static bool read_drag(ctx_t *ctx, const cJSON *b, const char *p, clt_body_def_t *def) {
  const cJSON *lin = get(b, "drag_linear"), *ang = get(b, "drag_angular");
  if (!lin && !ang) return true;
  char pk[PATH_SIZE];
  join_key(pk, p, lin ? "drag_linear" : "drag_angular");
  if (def->type != CLT_BODY_DYNAMIC) {
    return fail(ctx, pk, "not allowed for a %s body (only dynamic bodies move by drag)",
                clt_body_type_names[def->type]);
  }
  if (!lin || !ang) {
    join_key(pk, p, lin ? "drag_angular" : "drag_linear");
    return fail(ctx, pk, "required when %s is given (give both drags or neither)",
                lin ? "drag_linear" : "drag_angular");
  }
  if (!read_dvec(ctx, b, p, "drag_linear", def->drag_linear, RANGE_POSITIVE, true)) return false;
  return read_angular(ctx, b, p, "drag_angular", def->drag_angular, RANGE_POSITIVE);
}

/* ---------------------------------------------------------------------------------------------
 * Body grids (docs/scene-format.md "Body grids"): bodies[i].grid makes one entry stand for many
 * copies of the body on a lattice, so a 10^5-grain pile is a short file. The resolved scene keeps
 * the grid (not its expansion): the copies are a pure function of the grid fields and of the
 * generator below, so the stored scene rebuilds the same world bit for bit and stays small. */

#define GRID_MAX_BODIES 10000000 /* all bodies of a scene, grids expanded */
#define GRID_MAX_SEED INT64_C(9007199254740991) /* 2^53 − 1: exact in a JSON number */

typedef struct grid_spec_t {
  int64_t count[3];  /* lattice points per axis (1 on unused axes) */
  double spacing[3]; /* lattice step per axis [m] */
  double jitter[3];  /* uniform offset amplitude per axis [m]: x + jitter·U[−1, 1) */
  int64_t number;    /* bodies made: the first `number` lattice points, x fastest, then y, z */
  int64_t seed;
} grid_spec_t;

/* The jitter generator: xorshift64* (Marsaglia / Vigna), state = seed XOR 0x9E3779B97F4A7C15
 * (never zero for seeds < 2^53). Portable integer arithmetic, so every platform and thread count
 * makes the same grid; seed 0 gives the sequence bench/peers uses for its piles. */
static double grid_uniform(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  uint64_t r = x * UINT64_C(2685821657736338717);
  return (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [−1, 1) */
}

/* Reads and checks bodies[index].grid (absent: one body, spec->number = 1). */
static bool read_grid(ctx_t *ctx, const cJSON *b, int index, grid_spec_t *spec) {
  memset(spec, 0, sizeof *spec);
  for (int k = 0; k < 3; k++) spec->count[k] = 1;
  spec->number = 1;
  if (!cJSON_IsObject(b)) return true; /* read_body reports it */
  const cJSON *g = get(b, "grid");
  if (!g) return true;
  char p[PATH_SIZE], pk[PATH_SIZE];
  join_index(p, "bodies", index);
  join_key(p, p, "grid");
  static const char *const keys[] = {"count", "spacing", "number", "jitter", "seed", NULL};
  if (!expect_object(ctx, g, p) || !check_keys(ctx, g, p, keys, "a grid")) return false;
  int dim = ctx->dimension;
  double count[3] = {1, 1, 1};
  if (!read_dvec(ctx, g, p, "count", count, RANGE_ANY, true)) return false;
  double product = 1;
  for (int k = 0; k < dim; k++) {
    join_key(pk, p, "count");
    join_index(pk, pk, k);
    char got[64];
    format_number(count[k], got, sizeof got);
    if (count[k] != floor(count[k])) return fail(ctx, pk, "must be an integer (got %s)", got);
    if (count[k] < 1 || count[k] > GRID_MAX_BODIES)
      return fail(ctx, pk, "must be between 1 and %d (got %s)", GRID_MAX_BODIES, got);
    spec->count[k] = (int64_t)count[k];
    product *= count[k];
  }
  if (!read_dvec(ctx, g, p, "spacing", spec->spacing, RANGE_POSITIVE, true)) return false;
  const cJSON *jitter = get(g, "jitter");
  if (jitter && cJSON_IsNumber(jitter)) {
    double a = 0;
    if (!read_number(ctx, g, p, "jitter", &a, RANGE_NONNEGATIVE, false)) return false;
    for (int k = 0; k < dim; k++) spec->jitter[k] = a;
  } else if (jitter) {
    if (!cJSON_IsArray(jitter)) {
      join_key(pk, p, "jitter");
      char got[64];
      describe(jitter, got, sizeof got);
      return fail(ctx, pk, "must be a number or an array of %d numbers (got %s)", dim, got);
    }
    if (!read_dvec(ctx, g, p, "jitter", spec->jitter, RANGE_NONNEGATIVE, false)) return false;
  }
  spec->number = (int64_t)fmin(product, (double)GRID_MAX_BODIES + 1);
  if (get(g, "number")) {
    int64_t max = product < (double)GRID_MAX_BODIES ? (int64_t)product : GRID_MAX_BODIES;
    if (!read_int(ctx, g, p, "number", &spec->number, 1, max, false)) return false;
  } else if (product > GRID_MAX_BODIES) {
    join_key(pk, p, "count");
    char got[64];
    format_number(product, got, sizeof got);
    return fail(ctx, pk, "makes %s bodies; at most %d (or give \"number\")", got, GRID_MAX_BODIES);
  }
  if (!read_int(ctx, g, p, "seed", &spec->seed, 0, GRID_MAX_SEED, false)) return false;
  return true;
}

/* Fills bodies[slot + 1 … slot + number − 1] from the template read into bodies[slot] and moves
 * every copy to its lattice point: position + (i dx, j dy, k dz) + jitter. Copies share the
 * template's shape array; named bodies get the copy index as a suffix ("grain" → "grain0" …). */
static bool expand_grid(ctx_t *ctx, const grid_spec_t *spec, int index, int slot) {
  clt_scene_t *scene = ctx->scene;
  scene_body_t template = scene->bodies[slot];
  char p[PATH_SIZE], base_name[NAME_MAX_LENGTH + 1] = "";
  join_index(p, "bodies", index);
  if (template.name) snprintf(base_name, sizeof base_name, "%s", template.name);
  if (template.name) {
    char digits[32];
    int width = snprintf(digits, sizeof digits, "%lld", (long long)(spec->number - 1));
    if (strlen(template.name) + (size_t)width > NAME_MAX_LENGTH) {
      char pn[PATH_SIZE];
      join_key(pn, p, "name");
      return fail(ctx, pn, "must be at most %d characters with the grid index appended (got %zu + %d)",
                  NAME_MAX_LENGTH, strlen(template.name), width);
    }
  }
  uint64_t state = (uint64_t)spec->seed ^ UINT64_C(0x9E3779B97F4A7C15);
  int dim = ctx->dimension;
  for (int64_t n = 0; n < spec->number; n++) {
    scene_body_t *body = &scene->bodies[slot + n];
    if (n > 0) {
      *body = template;
      body->shared_shapes = true;
      body->name = NULL;
    }
    if (template.name) {
      char name[NAME_MAX_LENGTH + 24]; /* the length was checked above; room for any index */
      snprintf(name, sizeof name, "%s%lld", base_name, (long long)n);
      char *copy = dup_string(name);
      if (!copy) return fail(ctx, p, "out of memory");
      if (n == 0) free(body->name); /* the template's own name becomes "<name>0" */
      body->name = copy;
      body->def.name = body->name;
    }
    int64_t index_of[3] = {n % spec->count[0], (n / spec->count[0]) % spec->count[1],
                           n / (spec->count[0] * spec->count[1])};
    for (int k = 0; k < dim; k++) {
      double x = template.def.position[k] + (double)index_of[k] * spec->spacing[k];
      if (spec->jitter[k] > 0) x += spec->jitter[k] * grid_uniform(&state);
      body->def.position[k] = x;
    }
  }
  return true;
}

static bool read_body(ctx_t *ctx, const cJSON *b, int index, int slot, const grid_spec_t *grid) {
  clt_scene_t *scene = ctx->scene;
  scene_body_t *body = &scene->bodies[slot];
  body->entry = index;
  char p[PATH_SIZE];
  join_index(p, "bodies", index);
  static const char *const keys[] = {
      "name", "type",    "position", "angle", "orientation", "velocity", "angular_velocity",
      "mass", "inertia", "material", "shape", "shapes",      "motion",   "drag_linear",
      "drag_angular", "grid", NULL};
  if (!expect_object(ctx, b, p) || !check_keys(ctx, b, p, keys, "a body")) return false;
  clt_body_def_t def = clt_default_body_def();
  const char *name = NULL;
  if (!read_name(ctx, b, p, &name)) return false;
  if (name) {
    char pn[PATH_SIZE];
    join_key(pn, p, "name");
    if (strcmp(name, "world") == 0) return fail(ctx, pn, "\"world\" is reserved for the ground");
    body->name = dup_string(name);
    if (!body->name) return fail(ctx, p, "out of memory");
  }
  int type = CLT_BODY_DYNAMIC;
  if (!read_enum(ctx, b, p, "type", clt_body_type_names, &type, false)) return false;
  def.type = (clt_body_type_t)type;
  if (!read_dvec(ctx, b, p, "position", def.position, RANGE_ANY, false)) return false;
  if (!read_angle(ctx, b, p, &def.angle)) return false;
  if (!read_orientation(ctx, b, p, "orientation", def.orientation)) return false;
  if (!read_dvec(ctx, b, p, "velocity", def.velocity, RANGE_ANY, false)) return false;
  if (!read_angular(ctx, b, p, "angular_velocity", def.angular_velocity, RANGE_ANY)) return false;

  char pk[PATH_SIZE];
  if (def.type != CLT_BODY_DYNAMIC) {
    const char *kind = clt_body_type_names[def.type];
    static const char *const dynamic_only[] = {"mass", "inertia", NULL};
    for (int i = 0; dynamic_only[i]; i++) {
      if (get(b, dynamic_only[i])) {
        join_key(pk, p, dynamic_only[i]);
        return fail(ctx, pk, "not allowed for a %s body (its mass is infinite)", kind);
      }
    }
    if (get(b, "velocity")) {
      join_key(pk, p, "velocity");
      return fail(ctx, pk, "not allowed for a %s body (%s)", kind,
                  def.type == CLT_BODY_STATIC ? "it never moves" : "use motion.velocity");
    }
    if (def.type == CLT_BODY_STATIC && get(b, "angular_velocity")) {
      join_key(pk, p, "angular_velocity");
      return fail(ctx, pk, "not allowed for a static body (it never moves)");
    }
  }
  if (get(b, "motion")) {
    join_key(pk, p, "motion");
    if (def.type != CLT_BODY_KINEMATIC)
      return fail(ctx, pk, "only kinematic bodies have a prescribed motion");
    if (!read_motion(ctx, get(b, "motion"), pk, &def.motion)) return false;
  }

  /* Mass properties: explicit (mass and inertia), else from the shapes' densities. */
  if (def.type == CLT_BODY_DYNAMIC) {
    if (get(b, "mass")) {
      if (!read_number(ctx, b, p, "mass", &def.mass, RANGE_POSITIVE, true)) return false;
      if (!get(b, "inertia")) {
        join_key(pk, p, "inertia");
        return fail(ctx, pk, "required when mass is given (principal moments, kg m^2)");
      }
      if (!read_angular(ctx, b, p, "inertia", def.inertia, RANGE_POSITIVE)) return false;
    } else if (get(b, "inertia")) {
      join_key(pk, p, "inertia");
      return fail(ctx, pk, "needs mass as well (or neither: mass from the shapes' densities)");
    }
  }

  if (!read_drag(ctx, b, p, &def)) return false;

  int body_material = scene->default_material;
  if (!find_material(ctx, b, p, &body_material)) return false;
  const cJSON *shape = get(b, "shape");
  const cJSON *shapes = get(b, "shapes");
  if (shape && shapes) return fail(ctx, p, "give \"shape\" or \"shapes\", not both");
  int count = 0;
  if (shape) count = 1;
  if (shapes) {
    join_key(pk, p, "shapes");
    if (!cJSON_IsArray(shapes)) {
      char got[64];
      describe(shapes, got, sizeof got);
      return fail(ctx, pk, "must be an array of shapes (got %s)", got);
    }
    count = cJSON_GetArraySize(shapes);
    if (count > CLT_MAX_SHAPES_PER_BODY) {
      return fail(ctx, pk, "at most %d shapes per body (got %d)", CLT_MAX_SHAPES_PER_BODY, count);
    }
  }
  if (count > 0) {
    body->shapes = calloc((size_t)count, sizeof *body->shapes);
    if (!body->shapes) return fail(ctx, p, "out of memory");
  }
  if (shape) {
    join_key(pk, p, "shape");
    if (!read_shape(ctx, shape, pk, def.type, body_material, &body->shapes[0])) return false;
  } else if (shapes) {
    int i = 0;
    for (const cJSON *s = shapes->child; s; s = s->next, i++) {
      char ps[PATH_SIZE], base[PATH_SIZE];
      join_key(base, p, "shapes");
      join_index(ps, base, i);
      if (!read_shape(ctx, s, ps, def.type, body_material, &body->shapes[i])) return false;
    }
  }
  if (def.type == CLT_BODY_DYNAMIC && count == 0 && !(def.mass > 0)) {
    return fail(ctx, p, "a dynamic body needs a shape (mass from density) or mass and inertia");
  }
  def.shapes = body->shapes;
  def.shape_count = count;
  def.name = body->name;
  body->def = def;
  return get(b, "grid") ? expand_grid(ctx, grid, index, slot) : true;
}

/* Body names are looked up through a sorted index (scenes may have 10^4–10^5 bodies). */
static int compare_body_names(const void *a, const void *b) {
  const name_entry_t *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

/* Builds the index; a repeated name is an error at the later body. */
static bool index_body_names(ctx_t *ctx) {
  clt_scene_t *scene = ctx->scene;
  scene->bodies_by_name =
      malloc(sizeof *scene->bodies_by_name * (size_t)(scene->body_count > 0 ? scene->body_count : 1));
  if (!scene->bodies_by_name) return fail(ctx, "bodies", "out of memory");
  int n = 0;
  for (int i = 0; i < scene->body_count; i++) {
    if (scene->bodies[i].name) {
      scene->bodies_by_name[n].name = scene->bodies[i].name;
      scene->bodies_by_name[n].index = i;
      n++;
    }
  }
  scene->named_count = n;
  qsort(scene->bodies_by_name, (size_t)n, sizeof *scene->bodies_by_name, compare_body_names);
  int first_dup = -1, other = -1;
  for (int k = 1; k < n; k++) {
    const name_entry_t *a = &scene->bodies_by_name[k - 1], *b = &scene->bodies_by_name[k];
    if (strcmp(a->name, b->name) == 0 && (first_dup < 0 || b->index < first_dup)) {
      first_dup = b->index;
      other = a->index;
    }
  }
  if (first_dup >= 0) {
    char p[PATH_SIZE], pn[PATH_SIZE];
    join_index(p, "bodies", scene->bodies[first_dup].entry);
    join_key(pn, p, "name");
    return fail(ctx, pn, "duplicate body name \"%s\" (also bodies[%d])", scene->bodies[first_dup].name,
                scene->bodies[other].entry);
  }
  return true;
}

static int find_body(const clt_scene_t *scene, const char *name) {
  int lo = 0, hi = scene->named_count - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    int c = strcmp(scene->bodies_by_name[mid].name, name);
    if (c == 0) return scene->bodies_by_name[mid].index;
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return -1;
}

/* A body reference: a body name, "world" (if allowed), or an index into bodies. */
static bool read_body_ref(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, bool allow_world,
                          bool required, int *out) {
  const cJSON *item = get(obj, key);
  if (!item) return required ? missing(ctx, parent, key) : true;
  char p[PATH_SIZE];
  join_key(p, parent, key);
  clt_scene_t *scene = ctx->scene;
  if (cJSON_IsNumber(item)) {
    int64_t index = 0;
    if (!read_int(ctx, obj, parent, key, &index, 0, scene->body_count - 1, true)) return false;
    *out = (int)index;
    return true;
  }
  const char *name = NULL;
  if (!string_value(ctx, item, p, &name)) return false;
  if (strcmp(name, "world") == 0) {
    if (!allow_world) return fail(ctx, p, "must be a body, not the world");
    *out = -1;
    return true;
  }
  int found = find_body(scene, name);
  if (found >= 0) {
    *out = found;
    return true;
  }
  return fail(ctx, p, "unknown body \"%s\"", name);
}

/* The names of joint_type_name(type) for type < count, NULL-terminated (read_enum's list). */
static void type_names(const char *(*name)(int), int count, const char **out) {
  for (int t = 0; t < count; t++) out[t] = name(t);
  out[count] = NULL;
}
static const char *joint_type_name(int t) { return clt_joint_type_name((clt_joint_type_t)t); }
static const char *force_type_name(int t) { return clt_force_type_name((clt_force_type_t)t); }

static bool read_joint(ctx_t *ctx, const cJSON *j, int index) {
  clt_scene_t *scene = ctx->scene;
  scene_joint_t *joint = &scene->joints[index];
  char p[PATH_SIZE], pk[PATH_SIZE];
  join_index(p, "joints", index);
  if (!expect_object(ctx, j, p)) return false;
  int type = 0;
  const char *joint_type_names[CLT_JOINT_TYPE_COUNT + 1];
  type_names(joint_type_name, CLT_JOINT_TYPE_COUNT, joint_type_names);
  if (!read_enum(ctx, j, p, "type", joint_type_names, &type, true)) return false;
  clt_joint_type_t jt = (clt_joint_type_t)type;
  const char *keys[12];
  int k = 0;
  keys[k++] = "type";
  keys[k++] = "name";
  keys[k++] = "body_a";
  keys[k++] = "body_b";
  keys[k++] = "anchor_a";
  keys[k++] = "anchor_b";
  bool has_axis = (jt == CLT_JOINT_REVOLUTE && ctx->dimension == 3) || jt == CLT_JOINT_PRISMATIC;
  if (has_axis) {
    keys[k++] = "axis_a";
    keys[k++] = "axis_b";
  }
  if (jt == CLT_JOINT_DISTANCE) keys[k++] = "distance";
  keys[k] = NULL;
  char what[64];
  snprintf(what, sizeof what, "a %dD %s joint", ctx->dimension, joint_type_names[type]);
  if (!check_keys(ctx, j, p, keys, what)) return false;
  if (ctx->dimension == 2 && jt != CLT_JOINT_REVOLUTE && jt != CLT_JOINT_DISTANCE) {
    join_key(pk, p, "type");
    return fail(ctx, pk, "a %s joint needs a 3D scene (2D allows: revolute, distance)",
                joint_type_names[type]);
  }
  clt_joint_def_t def = clt_default_joint_def(jt);
  const char *name = NULL;
  if (!read_name(ctx, j, p, &name)) return false;
  if (name) {
    joint->name = dup_string(name);
    if (!joint->name) return fail(ctx, p, "out of memory");
  }
  joint->body_b = -1;
  if (!read_body_ref(ctx, j, p, "body_a", false, true, &joint->body_a)) return false;
  if (!read_body_ref(ctx, j, p, "body_b", true, false, &joint->body_b)) return false;
  if (joint->body_a == joint->body_b) {
    join_key(pk, p, "body_b");
    return fail(ctx, pk, "must differ from body_a");
  }
  if (!read_dvec(ctx, j, p, "anchor_a", def.anchor_a, RANGE_ANY, false)) return false;
  if (!read_dvec(ctx, j, p, "anchor_b", def.anchor_b, RANGE_ANY, false)) return false;
  if (has_axis) {
    if (!read_vector(ctx, j, p, "axis_a", 3, def.axis_a, RANGE_ANY, false)) return false;
    if (!nonzero_vector(ctx, j, p, "axis_a", def.axis_a, 3)) return false;
    if (!read_vector(ctx, j, p, "axis_b", 3, def.axis_b, RANGE_ANY, false)) return false;
    if (!nonzero_vector(ctx, j, p, "axis_b", def.axis_b, 3)) return false;
  }
  if (jt == CLT_JOINT_DISTANCE) {
    if (!read_number(ctx, j, p, "distance", &def.distance, RANGE_NONNEGATIVE, false)) return false;
  }
  def.name = joint->name;
  joint->def = def;
  return true;
}

static bool read_force(ctx_t *ctx, const cJSON *f, int index) {
  clt_scene_t *scene = ctx->scene;
  scene_force_t *force = &scene->forces[index];
  char p[PATH_SIZE], pk[PATH_SIZE];
  join_index(p, "forces", index);
  if (!expect_object(ctx, f, p)) return false;
  const char *force_type_names[CLT_FORCE_TYPE_COUNT + 1];
  type_names(force_type_name, CLT_FORCE_TYPE_COUNT, force_type_names);
  int type = 0;
  if (!read_enum(ctx, f, p, "type", force_type_names, &type, true)) return false;
  static const char *const applied_keys[] = {
      "type",      "name",  "body", "force", "torque", "force_amplitude", "torque_amplitude",
      "frequency", "phase", NULL};
  static const char *const spring_keys[] = {"type",        "name",      "body_a",    "body_b",
                                            "anchor_a",    "anchor_b",  "stiffness", "damping",
                                            "rest_length", "treatment", "rigid",    NULL};
  static const char *const rotational_keys[] = {"type",      "name",    "body_a",     "body_b",    "axis_a",
                                                "axis_b",    "stiffness", "damping", "rest_angle", "treatment",
                                                NULL};
  const char *name = NULL;
  force->body_b = -1;
  if (type == 0) {
    if (!check_keys(ctx, f, p, applied_keys, "an applied force")) return false;
    clt_force_def_t def = clt_default_force_def(CLT_FORCE_APPLIED);
    if (!read_name(ctx, f, p, &name)) return false;
    if (!read_body_ref(ctx, f, p, "body", false, true, &force->body_a)) return false;
    if (scene->bodies[force->body_a].def.type != CLT_BODY_DYNAMIC) {
      join_key(pk, p, "body");
      return fail(ctx, pk, "must be a dynamic body");
    }
    if (!read_dvec(ctx, f, p, "force", def.force, RANGE_ANY, false)) return false;
    if (!read_angular(ctx, f, p, "torque", def.torque, RANGE_ANY)) return false;
    if (!read_dvec(ctx, f, p, "force_amplitude", def.force_amplitude, RANGE_ANY, false)) return false;
    if (!read_angular(ctx, f, p, "torque_amplitude", def.torque_amplitude, RANGE_ANY)) return false;
    if (!read_number(ctx, f, p, "frequency", &def.frequency, RANGE_NONNEGATIVE, false)) return false;
    if (!read_number(ctx, f, p, "phase", &def.phase, RANGE_ANY, false)) return false;
    force->def = def;
  } else if (type == 2) {
    /* rotational spring-damper (SPEC.md §4): about z in 2D; about axis_a / axis_b in 3D */
    if (!check_keys(ctx, f, p, rotational_keys, "a rotational spring-damper")) return false;
    clt_force_def_t def = clt_default_force_def(CLT_FORCE_ROTATIONAL_SPRING_DAMPER);
    if (!read_name(ctx, f, p, &name)) return false;
    if (!read_body_ref(ctx, f, p, "body_a", false, true, &force->body_a)) return false;
    if (!read_body_ref(ctx, f, p, "body_b", true, false, &force->body_b)) return false;
    if (force->body_a == force->body_b) {
      join_key(pk, p, "body_b");
      return fail(ctx, pk, "must differ from body_a");
    }
    if (ctx->dimension == 2 && (get(f, "axis_a") || get(f, "axis_b"))) {
      join_key(pk, p, get(f, "axis_a") ? "axis_a" : "axis_b");
      return fail(ctx, pk, "not used in a 2D scene (the axis is z)");
    }
    if (ctx->dimension == 3 && !get(f, "axis_a")) return missing(ctx, p, "axis_a");
    if (!read_dvec(ctx, f, p, "axis_a", def.axis_a, RANGE_ANY, false)) return false;
    if (!read_dvec(ctx, f, p, "axis_b", def.axis_b, RANGE_ANY, false)) return false;
    if (!read_number(ctx, f, p, "stiffness", &def.stiffness, RANGE_NONNEGATIVE, false)) return false;
    if (!read_number(ctx, f, p, "damping", &def.damping, RANGE_NONNEGATIVE, false)) return false;
    if (!read_number(ctx, f, p, "rest_angle", &def.rest_angle, RANGE_ANY, false)) return false;
    int treatment = (int)def.treatment;
    if (!read_enum(ctx, f, p, "treatment", clt_force_treatment_names, &treatment, false)) return false;
    def.treatment = (clt_force_treatment_t)treatment;
    if (!(def.stiffness > 0) && !(def.damping > 0)) {
      return fail(ctx, p, "a rotational spring-damper needs stiffness > 0 or damping > 0");
    }
    force->def = def;
  } else {
    if (!check_keys(ctx, f, p, spring_keys, "a spring-damper")) return false;
    clt_force_def_t def = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
    if (!read_name(ctx, f, p, &name)) return false;
    if (!read_body_ref(ctx, f, p, "body_a", false, true, &force->body_a)) return false;
    if (!read_body_ref(ctx, f, p, "body_b", true, false, &force->body_b)) return false;
    if (force->body_a == force->body_b) {
      join_key(pk, p, "body_b");
      return fail(ctx, pk, "must differ from body_a");
    }
    if (!read_dvec(ctx, f, p, "anchor_a", def.anchor_a, RANGE_ANY, false)) return false;
    if (!read_dvec(ctx, f, p, "anchor_b", def.anchor_b, RANGE_ANY, false)) return false;
    if (!read_number(ctx, f, p, "stiffness", &def.stiffness, RANGE_NONNEGATIVE, false)) return false;
    if (!read_number(ctx, f, p, "damping", &def.damping, RANGE_NONNEGATIVE, false)) return false;
    if (!read_number(ctx, f, p, "rest_length", &def.rest_length, RANGE_NONNEGATIVE, false)) return false;
    int treatment = (int)def.treatment;
    if (!read_enum(ctx, f, p, "treatment", clt_force_treatment_names, &treatment, false)) return false;
    def.treatment = (clt_force_treatment_t)treatment;
    if (!read_bool(ctx, f, p, "rigid", &force->rigid)) return false;
    if (!(def.stiffness > 0) && !(def.damping > 0) && !force->rigid) {
      return fail(ctx, p, "a spring-damper needs stiffness > 0 or damping > 0");
    }
    force->def = def;
  }
  if (name) {
    force->name = dup_string(name);
    if (!force->name) return fail(ctx, p, "out of memory");
  }
  force->def.name = force->name;
  return true;
}

static bool read_output(ctx_t *ctx, const cJSON *o) {
  clt_scene_t *scene = ctx->scene;
  static const char *const keys[] = {
      "path", "interval", "interval_steps", "trajectory", "velocities", "diagnostics", "csv", "contacts",
      NULL};
  const char *p = "output";
  if (!expect_object(ctx, o, p) || !check_keys(ctx, o, p, keys, "output")) return false;
  const char *path = NULL;
  if (!read_string(ctx, o, p, "path", &path, false)) return false;
  if (path) {
    free(scene->output_path);
    scene->output_path = dup_string(path);
    if (!scene->output_path) return fail(ctx, p, "out of memory");
  }
  if (get(o, "interval") && get(o, "interval_steps")) {
    return fail(ctx, p, "give \"interval\" (seconds) or \"interval_steps\", not both");
  }
  int64_t steps = 1;
  if (!read_int(ctx, o, p, "interval_steps", &steps, 1, INT64_C(1) << 40, false)) return false;
  double interval = 0;
  if (!read_number(ctx, o, p, "interval", &interval, RANGE_POSITIVE, false)) return false;
  if (interval > 0) {
    double h = scene->world_def.time_step;
    double n = round(interval / h);
    if (n < 1 || fabs(n * h - interval) > 1e-9 * interval) {
      char got[64], hs[64];
      format_number(interval, got, sizeof got);
      format_number(h, hs, sizeof hs);
      return fail(ctx, "output.interval", "must be a whole multiple of time_step %s (got %s)", hs, got);
    }
    steps = (int64_t)n;
  }
  scene->output.interval_steps = steps;
  if (!read_bool(ctx, o, p, "trajectory", &scene->output.trajectory)) return false;
  if (!read_bool(ctx, o, p, "velocities", &scene->output.velocities)) return false;
  if (!read_bool(ctx, o, p, "diagnostics", &scene->output.diagnostics)) return false;
  if (!read_bool(ctx, o, p, "csv", &scene->output.csv)) return false;
  if (!read_bool(ctx, o, p, "contacts", &scene->output.contacts)) return false;
  return true;
}

/* The "colony" block (docs/scene-format.md "colony", include/clatter/colony.h). The seed cell is
 * checked when the colony is created (clt_scene_create_colony): it needs the built world. */
static bool read_colony(ctx_t *ctx, const cJSON *c) {
  clt_scene_t *scene = ctx->scene;
  static const char *const keys[] = {"growth_time", "division_length", "max_reorientation_deg", "division_gap",
                                     "seed",        "generations",     "order",                 NULL};
  static const char *const order_keys[] = {"radius", "angle_deg", "contact_gap", NULL};
  const char *p = "colony";
  if (!expect_object(ctx, c, p) || !check_keys(ctx, c, p, keys, "colony")) return false;
  if (ctx->dimension != 3)
    return fail(ctx, p, "the cells are capsules of a 3D world (\"dimension\": 3; \"planar\": true for a 2D colony)");
  clt_scene_colony_t *col = &scene->colony;
  col->def = clt_default_colony_def();
  col->generations = 10;
  col->order_radius = -1.0;
  col->order_angle = 10.0 * CLT_SCENE_PI / 180.0;
  col->order_contact_gap = -1.0;
  double degrees = col->def.max_reorientation * 180.0 / CLT_SCENE_PI;
  int64_t seed = (int64_t)col->def.seed, generations = col->generations;
  if (!read_number(ctx, c, p, "growth_time", &col->def.growth_time, RANGE_POSITIVE, false) ||
      !read_number(ctx, c, p, "division_length", &col->def.division_length, RANGE_POSITIVE, false) ||
      !read_number(ctx, c, p, "max_reorientation_deg", &degrees, RANGE_NONNEGATIVE, false) ||
      !read_number(ctx, c, p, "division_gap", &col->def.division_gap, RANGE_NONNEGATIVE, false) ||
      !read_int(ctx, c, p, "seed", &seed, 0, INT64_C(1) << 53, false) ||
      !read_int(ctx, c, p, "generations", &generations, 1, 30, false))
    return false;
  if (!(degrees < 90.0)) {
    char got[64];
    format_number(degrees, got, sizeof got);
    return fail(ctx, "colony.max_reorientation_deg", "must be in [0, 90) (got %s)", got);
  }
  col->def.max_reorientation = degrees * CLT_SCENE_PI / 180.0;
  col->def.seed = (uint64_t)seed;
  col->generations = (int)generations;
  const cJSON *order = get(c, "order");
  if (order) {
    const char *op = "colony.order";
    double angle = 10.0;
    if (!expect_object(ctx, order, op) || !check_keys(ctx, order, op, order_keys, "colony.order") ||
        !read_number(ctx, order, op, "radius", &col->order_radius, RANGE_POSITIVE, false) ||
        !read_number(ctx, order, op, "angle_deg", &angle, RANGE_POSITIVE, false) ||
        !read_number(ctx, order, op, "contact_gap", &col->order_contact_gap, RANGE_NONNEGATIVE, false))
      return false;
    if (!(angle <= 90.0)) {
      char got[64];
      format_number(angle, got, sizeof got);
      return fail(ctx, "colony.order.angle_deg", "must be in (0, 90] (got %s)", got);
    }
    col->order_angle = angle * CLT_SCENE_PI / 180.0;
  }
  /* The seed cell: the scene's first dynamic body, one capsule whose diameter is the colony's. */
  int seed_body = -1;
  for (int i = 0; i < scene->body_count && seed_body < 0; i++)
    if (scene->bodies[i].def.type == CLT_BODY_DYNAMIC) seed_body = i;
  if (seed_body < 0) return fail(ctx, p, "the scene has no dynamic body to grow the colony from (its seed cell)");
  const clt_body_def_t *seed_def = &scene->bodies[seed_body].def;
  if (seed_def->shape_count != 1 || seed_def->shapes[0].type != CLT_SHAPE_CAPSULE) {
    char where[PATH_SIZE];
    join_index(where, "bodies", scene->bodies[seed_body].entry);
    return fail(ctx, where, "the colony's seed cell (the first dynamic body) must have one capsule shape");
  }
  col->seed_body = seed_body;
  col->def.diameter = 2.0 * seed_def->shapes[0].radius;
  if (col->order_radius < 0.0) col->order_radius = 2.0 * col->def.division_length;
  if (col->order_contact_gap < 0.0) col->order_contact_gap = 0.1 * col->def.diameter;
  scene->has_colony = true;
  return true;
}

/* The scene name becomes a file name ("<name>.h5"): keep it to a safe character set. */
static bool valid_name(const char *s) {
  if (!*s || *s == '.' || *s == '-' || strlen(s) > 200) return false;
  for (; *s; s++) {
    char c = *s;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

/* Default name: the source's base name without extension, unsafe characters replaced. */
static char *name_from_source(const char *source) {
  const char *base = strrchr(source, '/');
  base = base ? base + 1 : source;
  char *name = dup_string(*base ? base : "scene");
  if (!name) return NULL;
  char *dot = strrchr(name, '.');
  if (dot && dot != name) *dot = '\0';
  for (char *c = name; *c; c++) {
    bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == '-' || *c == '.';
    if (!ok) *c = '_';
  }
  if (name[0] == '.' || name[0] == '-') name[0] = '_';
  if (strlen(name) > 200) name[200] = '\0';
  return name;
}

static bool read_scene(ctx_t *ctx, const cJSON *root) {
  clt_scene_t *scene = ctx->scene;
  if (!cJSON_IsObject(root)) {
    char got[64];
    describe(root, got, sizeof got);
    return fail(ctx, NULL, "a scene must be a JSON object (got %s)", got);
  }
  static const char *const keys[] = {"name",    "description", "dimension", "time_step", "duration",
                                     "gravity", "parameters",  "method",    "materials", "bodies",
                                     "joints",  "forces",      "output",    "law",
                                     "viscosity", "planar",    "colony",    NULL};
  if (!check_keys(ctx, root, "", keys, "a scene")) return false;

  const char *name = NULL;
  if (!read_string(ctx, root, "", "name", &name, false)) return false;
  if (name) {
    if (!valid_name(name)) {
      return fail(ctx, "name",
                  "must be 1 to 200 letters, digits, '_', '-' or '.', not starting with '.' or '-' "
                  "(it names the output file)");
    }
    scene->name = dup_string(name);
  } else {
    scene->name = name_from_source(ctx->source);
  }
  if (!scene->name) return fail(ctx, NULL, "out of memory");
  const char *description = NULL;
  if (!read_string(ctx, root, "", "description", &description, false)) return false;

  int64_t dimension = 0;
  const cJSON *dim = get(root, "dimension");
  if (!dim) return missing(ctx, "", "dimension");
  if (cJSON_IsNumber(dim) && isfinite(dim->valuedouble) && dim->valuedouble != 2 && dim->valuedouble != 3) {
    char got[64];
    format_number(dim->valuedouble, got, sizeof got);
    return fail(ctx, "dimension", "must be 2 or 3 (got %s)", got);
  }
  if (!read_int(ctx, root, "", "dimension", &dimension, 2, 3, true)) return false;
  ctx->dimension = (int)dimension;

  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = ctx->dimension;
  wd.gravity[0] = 0;
  wd.gravity[1] = ctx->dimension == 2 ? -9.81 : 0;
  wd.gravity[2] = ctx->dimension == 3 ? -9.81 : 0;
  if (!read_number(ctx, root, "", "time_step", &wd.time_step, RANGE_POSITIVE, true)) return false;
  if (!read_number(ctx, root, "", "duration", &scene->duration, RANGE_POSITIVE, true)) return false;
  double steps = round(scene->duration / wd.time_step);
  if (steps < 1) {
    return fail(ctx, "duration", "must be at least one time_step");
  }
  if (steps > 1e15) return fail(ctx, "duration", "too many steps (%.3g)", steps);
  scene->step_count = (int64_t)steps;
  if (!read_dvec(ctx, root, "", "gravity", wd.gravity, RANGE_ANY, false)) return false;
  if (ctx->dimension == 2) {
    wd.method.friction_directions = 2;
  }
  const cJSON *method = get(root, "method");
  if (method && !read_method(ctx, method, &wd.method)) return false;
  if (!read_world_law(ctx, root, &wd)) return false;
  scene->world_def = wd;

  const cJSON *materials = get(root, "materials");
  if (materials && !read_materials(ctx, materials)) return false;
  if (!check_unused_fields(ctx, root)) return false;

  const cJSON *bodies = get(root, "bodies");
  if (!bodies) return missing(ctx, "", "bodies");
  if (!cJSON_IsArray(bodies) || cJSON_GetArraySize(bodies) == 0) {
    char got[64];
    if (cJSON_IsArray(bodies)) {
      snprintf(got, sizeof got, "an empty array");
    } else {
      describe(bodies, got, sizeof got);
    }
    return fail(ctx, "bodies", "must be a non-empty array of bodies (got %s)", got);
  }
  /* Grids first (docs "Body grids"): how many bodies each entry makes. */
  int count = cJSON_GetArraySize(bodies);
  grid_spec_t *grids = calloc((size_t)count, sizeof *grids);
  if (!grids) return fail(ctx, "bodies", "out of memory");
  int64_t total = 0;
  int i = 0;
  for (const cJSON *b = bodies->child; b; b = b->next, i++) {
    if (!read_grid(ctx, b, i, &grids[i])) {
      free(grids);
      return false;
    }
    total += grids[i].number;
    if (total > GRID_MAX_BODIES) {
      free(grids);
      return fail(ctx, "bodies", "more than %d bodies (grids expanded)", GRID_MAX_BODIES);
    }
  }
  scene->bodies = calloc((size_t)total, sizeof *scene->bodies);
  if (!scene->bodies) {
    free(grids);
    return fail(ctx, "bodies", "out of memory");
  }
  scene->body_count = (int)total;
  i = 0;
  int slot = 0;
  for (const cJSON *b = bodies->child; b; b = b->next, i++) {
    if (!read_body(ctx, b, i, slot, &grids[i])) {
      free(grids);
      return false;
    }
    slot += (int)grids[i].number;
  }
  free(grids);
  if (!index_body_names(ctx)) return false;

  const cJSON *joints = get(root, "joints");
  if (joints) {
    if (!cJSON_IsArray(joints)) {
      char got[64];
      describe(joints, got, sizeof got);
      return fail(ctx, "joints", "must be an array of joints (got %s)", got);
    }
    count = cJSON_GetArraySize(joints);
    scene->joints = calloc((size_t)(count ? count : 1), sizeof *scene->joints);
    if (!scene->joints) return fail(ctx, "joints", "out of memory");
    scene->joint_count = count;
    i = 0;
    for (const cJSON *j = joints->child; j; j = j->next, i++) {
      if (!read_joint(ctx, j, i)) return false;
    }
  }

  const cJSON *forces = get(root, "forces");
  if (forces) {
    if (!cJSON_IsArray(forces)) {
      char got[64];
      describe(forces, got, sizeof got);
      return fail(ctx, "forces", "must be an array of force elements (got %s)", got);
    }
    count = cJSON_GetArraySize(forces);
    scene->forces = calloc((size_t)(count ? count : 1), sizeof *scene->forces);
    if (!scene->forces) return fail(ctx, "forces", "out of memory");
    scene->force_count = count;
    i = 0;
    for (const cJSON *f = forces->child; f; f = f->next, i++) {
      if (!read_force(ctx, f, i)) return false;
    }
  }

  scene->output.interval_steps = 1;
  scene->output.trajectory = true;
  scene->output.velocities = true;
  scene->output.diagnostics = true;
  scene->output.csv = true;
  scene->output.contacts = true;
  const cJSON *output = get(root, "output");
  if (output && !read_output(ctx, output)) return false;
  if (!scene->output_path) scene->output_path = dup_string("");
  if (!scene->output_path) return fail(ctx, NULL, "out of memory");
  scene->output.path = scene->output_path;
  const cJSON *colony = get(root, "colony");
  if (colony && !read_colony(ctx, colony)) return false;
  return true;
}

/* ---------------------------------------------------------------------------------------------
 * Public API */

void clt_scene_release_bodies(clt_scene_t *scene) {
  if (!scene || !scene->bodies) return;
  for (int i = 0; i < scene->body_count; i++) {
    if (!scene->bodies[i].shared_shapes) free(scene->bodies[i].shapes);
    free(scene->bodies[i].name);
  }
  free(scene->bodies);
  scene->bodies = NULL;
  free(scene->bodies_by_name);
  scene->bodies_by_name = NULL;
}

void clt_scene_destroy(clt_scene_t *scene) {
  if (!scene) return;
  free(scene->source);
  free(scene->name);
  free(scene->json);
  free(scene->output_path);
  for (int i = 0; i < scene->material_count; i++) free(scene->material_names[i]);
  free(scene->material_names);
  free(scene->materials);
  clt_scene_release_bodies(scene);
  for (int i = 0; i < scene->joint_count; i++) free(scene->joints[i].name);
  free(scene->joints);
  for (int i = 0; i < scene->force_count; i++) free(scene->forces[i].name);
  free(scene->forces);
  free(scene);
}

clt_status_t clt_scene_parse(const char *text, const char *source, const clt_scene_overrides_t *overrides,
                             clt_scene_t **out, char *message, size_t message_size) {
  *out = NULL;
  if (message && message_size) message[0] = '\0';
  if (!source) source = "scene";
  clt_scene_t *scene = calloc(1, sizeof *scene);
  if (!scene) return CLT_ERR_OUT_OF_MEMORY;
  scene->default_material = -1;
  scene->source = dup_string(source);
  ctx_t ctx = {source, message, message_size, false, CLT_OK, 0, scene};
  if (!scene->source) {
    clt_scene_destroy(scene);
    return CLT_ERR_OUT_OF_MEMORY;
  }

  const char *nul = escaped_nul(text);
  if (nul) {
    int line, column;
    clt_json_line_column(text, (size_t)(nul - text), &line, &column);
    if (message && message_size)
      snprintf(message, message_size, "%s:%d:%d: a string holds \\u0000 (NUL), which no field accepts", source,
               line, column);
    clt_scene_destroy(scene);
    return CLT_ERR_FORMAT;
  }
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, true);
  if (!root) {
    int line, column;
    size_t offset = end ? (size_t)(end - text) : 0;
    clt_json_line_column(text, offset, &line, &column);
    if (message && message_size) {
      const char *what = text[offset] == '\0' ? "unexpected end of input" : "syntax error";
      if (text[offset] != '\0' && offset > 0) {
        /* Trailing garbage after a complete value reads better as such. */
        cJSON *prefix = cJSON_ParseWithLengthOpts(text, offset, NULL, false);
        if (prefix) {
          what = "unexpected text after the scene object";
          cJSON_Delete(prefix);
        }
      }
      char near[24] = "";
      if (text[offset] != '\0') {
        int k = 0;
        for (const char *c = text + offset; *c && *c != '\n' && k < 16; c++) near[k++] = *c;
        near[k] = '\0';
      }
      if (near[0]) {
        snprintf(message, message_size, "%s:%d:%d: invalid JSON: %s near '%s'", source, line, column, what,
                 near);
      } else {
        snprintf(message, message_size, "%s:%d:%d: invalid JSON: %s", source, line, column, what);
      }
    }
    clt_scene_destroy(scene);
    return CLT_ERR_FORMAT;
  }

  bool ok = true;
  if (overrides) {
    for (int i = 0; ok && i < overrides->set_count; i++) ok = apply_set(&ctx, root, overrides->sets[i]);
  }
  cJSON *parameters = ok ? cJSON_GetObjectItemCaseSensitive(root, "parameters") : NULL;
  if (ok && parameters) {
    ok = expect_object(&ctx, parameters, "parameters");
    param_index_t names;
    if (ok && !param_index_build(parameters, &names)) {
      ctx.status = CLT_ERR_OUT_OF_MEMORY;
      ok = fail(&ctx, NULL, "out of memory");
    } else if (ok) {
      const cJSON *dup = param_index_duplicate(&names);
      if (dup) {
        char p[PATH_SIZE];
        join_key(p, "parameters", dup->string);
        ok = fail(&ctx, p, "duplicate key");
      }
      param_index_free(&names);
    }
    for (const cJSON *c = ok ? parameters->child : NULL; ok && c; c = c->next) {
      char p[PATH_SIZE];
      join_key(p, "parameters", c->string);
      if (ok && (c->string[0] == '\0' || c->string[0] == '$')) {
        ok = fail(&ctx, p, "a parameter name must not be empty or start with '$'");
      }
      if (ok) ok = check_parameter_value(&ctx, c, p);
    }
  }
  if (ok && overrides) {
    for (int i = 0; ok && i < overrides->param_count; i++) {
      ok = apply_param(&ctx, parameters, overrides->params[i]);
    }
  }
  if (ok) {
    /* Substitute everywhere except inside the parameter declarations themselves (the index is
     * built after --param, which replaces declared values). */
    param_index_t index;
    if (!param_index_build(parameters, &index)) {
      ctx.status = CLT_ERR_OUT_OF_MEMORY;
      ok = fail(&ctx, NULL, "out of memory");
    } else {
      ok = substitute(&ctx, root, "", &index, parameters);
      param_index_free(&index);
    }
  }
  if (ok) ok = read_scene(&ctx, root);
  if (ok && !cJSON_GetObjectItemCaseSensitive(root, "name")) {
    /* The stored scene must not depend on its file name: write the derived name in, first. */
    cJSON *name = cJSON_AddStringToObject(root, "name", scene->name);
    name = name ? cJSON_DetachItemViaPointer(root, name) : NULL;
    ok = name && cJSON_InsertItemInArray(root, 0, name);
    if (!ok) ctx.status = CLT_ERR_OUT_OF_MEMORY;
  }
  if (ok) {
    scene->json = clt_json_serialize(root, true);
    if (!scene->json) {
      ctx.status = CLT_ERR_OUT_OF_MEMORY;
      ok = false;
    }
  }
  cJSON_Delete(root);
  if (!ok) {
    clt_status_t status = ctx.status != CLT_OK ? ctx.status : CLT_ERR_FORMAT;
    clt_scene_destroy(scene);
    return status;
  }
  *out = scene;
  return CLT_OK;
}

clt_status_t clt_scene_load(const char *path, const clt_scene_overrides_t *overrides, clt_scene_t **out,
                            char *message, size_t message_size) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (message && message_size)
      snprintf(message, message_size, "%s: cannot open: %s", path, strerror(errno));
    return CLT_ERR_IO;
  }
  size_t capacity = 4096, length = 0;
  char *text = malloc(capacity);
  while (text) {
    if (length + 1 >= capacity) {
      char *bigger = realloc(text, capacity * 2);
      if (!bigger) {
        free(text);
        text = NULL;
        break;
      }
      text = bigger;
      capacity *= 2;
    }
    size_t n = fread(text + length, 1, capacity - length - 1, f);
    size_t nul = 0;
    while (nul < n && text[length + nul] != '\0') nul++;
    if (nul < n) { /* /dev/zero, a binary file: said at the first NUL, not after reading it all */
      long long at = (long long)(length + nul);
      free(text);
      fclose(f);
      if (message && message_size)
        snprintf(message, message_size, "%s: contains a NUL byte at offset %lld (not a JSON text file)", path, at);
      return CLT_ERR_FORMAT;
    }
    length += n;
    if (n == 0) break;
    if (length > CLT_SCENE_MAX_BYTES) {
      free(text);
      fclose(f);
      if (message && message_size)
        snprintf(message, message_size, "%s: longer than %d MiB: not a scene file", path, CLT_SCENE_MAX_BYTES >> 20);
      return CLT_ERR_FORMAT;
    }
  }
  bool read_error = ferror(f) != 0;
  fclose(f);
  if (!text) return CLT_ERR_OUT_OF_MEMORY;
  if (read_error) {
    free(text);
    if (message && message_size) snprintf(message, message_size, "%s: read error", path);
    return CLT_ERR_IO;
  }
  text[length] = '\0';
  clt_status_t status = clt_scene_parse(text, path, overrides, out, message, message_size);
  free(text);
  return status;
}

const char *clt_scene_json(const clt_scene_t *scene) { return scene->json; }
const char *clt_scene_name(const clt_scene_t *scene) { return scene->name; }
const char *clt_scene_source(const clt_scene_t *scene) { return scene->source; }
int clt_scene_dimension(const clt_scene_t *scene) { return scene->world_def.dimension; }
double clt_scene_time_step(const clt_scene_t *scene) { return scene->world_def.time_step; }
double clt_scene_duration(const clt_scene_t *scene) { return scene->duration; }
int64_t clt_scene_step_count(const clt_scene_t *scene) { return scene->step_count; }
const clt_scene_output_t *clt_scene_output(const clt_scene_t *scene) { return &scene->output; }
const clt_world_def_t *clt_scene_world_def(const clt_scene_t *scene) { return &scene->world_def; }
int clt_scene_body_count(const clt_scene_t *scene) { return scene->body_count; }
const clt_body_def_t *clt_scene_body_def(const clt_scene_t *scene, int index) {
  if (!scene || !scene->bodies || index < 0 || index >= scene->body_count) return NULL;
  return &scene->bodies[index].def;
}

const clt_scene_colony_t *clt_scene_colony(const clt_scene_t *scene) {
  return scene && scene->has_colony ? &scene->colony : NULL;
}

clt_status_t clt_scene_create_colony(const clt_scene_t *scene, clt_world_t *world, clt_colony_t **out, char *message,
                                     size_t message_size) {
  *out = NULL;
  if (!scene->has_colony) {
    if (message && message_size) snprintf(message, message_size, "%s: the scene has no \"colony\" block", scene->source);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  clt_colony_def_t def = scene->colony.def;
  def.first_cell = clt_world_body_at(world, scene->colony.seed_body);
  clt_status_t status = clt_colony_create(world, &def, out);
  if (status != CLT_OK && message && message_size)
    snprintf(message, message_size, "%s: %s", scene->source, clt_world_error(world));
  return status;
}

static clt_status_t world_failure(const clt_scene_t *scene, clt_world_t *world, clt_status_t status,
                                  const char *path, char *message, size_t message_size) {
  if (message && message_size) {
    const char *reason = clt_world_error(world);
    snprintf(message, message_size, "%s: %s: %s", scene->source, path,
             reason && *reason ? reason : clt_status_name(status));
  }
  clt_world_destroy(world);
  return status;
}

clt_status_t clt_scene_create_world(const clt_scene_t *scene, clt_log_fn log, void *log_user,
                                    clt_world_t **out, char *message, size_t message_size) {
  *out = NULL;
  if (!scene->bodies && scene->body_count > 0) {
    if (message && message_size)
      snprintf(message, message_size, "%s: the scene's bodies were released (clt_scene_release_bodies)", scene->source);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  clt_world_def_t wd = scene->world_def;
  wd.log = log;
  wd.log_user = log_user;
  clt_world_t *world = NULL;
  char reason[512] = "";
  clt_status_t status = clt_world_create(&wd, &world, reason, sizeof reason);
  if (status != CLT_OK) {
    if (message && message_size) {
      snprintf(message, message_size, "%s: %s", scene->source, reason[0] ? reason : clt_status_name(status));
    }
    return status;
  }
  char path[PATH_SIZE];
  int *material_index = calloc((size_t)(scene->material_count ? scene->material_count : 1), sizeof(int));
  clt_body_id_t *ids = calloc((size_t)scene->body_count, sizeof *ids);
  if (!material_index || !ids) {
    free(material_index);
    free(ids);
    clt_world_destroy(world);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  status = CLT_OK;
  for (int i = 0; status == CLT_OK && i < scene->material_count; i++) {
    status = clt_world_add_material(world, &scene->materials[i], &material_index[i]);
    if (status != CLT_OK) join_key(path, "materials", scene->material_names[i]);
  }
  /* The world's per-body storage allocated once, exactly (no doubling slack: a 10⁵-body pile). */
  int shape_total = 0;
  for (int i = 0; i < scene->body_count; i++) shape_total += scene->bodies[i].def.shape_count;
  if (status == CLT_OK) {
    status = clt_world_reserve(world, scene->body_count, shape_total);
    if (status != CLT_OK) snprintf(path, sizeof path, "bodies");
  }
  clt_shape_def_t shapes[CLT_MAX_SHAPES_PER_BODY];
  for (int i = 0; status == CLT_OK && i < scene->body_count; i++) {
    clt_body_def_t def = scene->bodies[i].def;
    for (int k = 0; k < def.shape_count; k++) {
      shapes[k] = def.shapes[k];
      if (shapes[k].material >= 0) shapes[k].material = material_index[shapes[k].material];
    }
    def.shapes = def.shape_count ? shapes : NULL;
    status = clt_world_add_body(world, &def, &ids[i]);
    if (status != CLT_OK) join_index(path, "bodies", scene->bodies[i].entry);
  }
  for (int i = 0; status == CLT_OK && i < scene->joint_count; i++) {
    clt_joint_def_t def = scene->joints[i].def;
    def.body_a = ids[scene->joints[i].body_a];
    def.body_b = scene->joints[i].body_b < 0 ? clt_world_ground() : ids[scene->joints[i].body_b];
    clt_joint_id_t id;
    status = clt_world_add_joint(world, &def, &id);
    if (status != CLT_OK) join_index(path, "joints", i);
  }
  for (int i = 0; status == CLT_OK && i < scene->force_count; i++) {
    clt_force_def_t def = scene->forces[i].def;
    def.body_a = ids[scene->forces[i].body_a];
    def.body_b = scene->forces[i].body_b < 0 ? clt_world_ground() : ids[scene->forces[i].body_b];
    if (scene->forces[i].rigid) {
      /* the stiff limit of the element (004 Thm 2.6): a distance joint between the same anchors,
       * of length rest_length (or the initial length) */
      clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_DISTANCE);
      jd.body_a = def.body_a;
      jd.body_b = def.body_b;
      memcpy(jd.anchor_a, def.anchor_a, sizeof jd.anchor_a);
      memcpy(jd.anchor_b, def.anchor_b, sizeof jd.anchor_b);
      jd.distance = def.rest_length;
      jd.name = def.name;
      clt_joint_id_t jid;
      status = clt_world_add_joint(world, &jd, &jid);
      if (status != CLT_OK) join_index(path, "forces", i);
      continue;
    }
    clt_force_id_t id;
    status = clt_world_add_force(world, &def, &id);
    if (status != CLT_OK) join_index(path, "forces", i);
  }
  free(material_index);
  free(ids);
  if (status != CLT_OK) return world_failure(scene, world, status, path, message, message_size);
  *out = world;
  return CLT_OK;
}
