/* --set PATH=VALUE, --param NAME=VALUE and "$name" substitution on the cJSON tree of a scene
 * (docs/scene-format.md "Parameters and overrides"). */
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
const char *scn_escaped_nul(const char *text) {
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
  *nul = scn_escaped_nul(text) != NULL;
  if (*nul) return NULL;
  cJSON *v = cJSON_Parse(text);
  if (v) return v;
  return cJSON_CreateString(text);
}

bool scn_apply_set(ctx_t *ctx, cJSON *root, const char *assignment) {
  ctx->status = CLT_ERR_INVALID_ARGUMENT;
  const char *eq = strchr(assignment, '=');
  char where[PATH_SIZE + 16];
  snprintf(where, sizeof where, "--set %s", assignment);
  if (!eq || eq == assignment) {
    scn_fail(ctx, where, "expected PATH=VALUE");
    return false;
  }
  size_t path_len = (size_t)(eq - assignment);
  if (path_len >= PATH_SIZE) return scn_fail(ctx, where, "path too long");
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
        ok = scn_fail(ctx, where, "bad path (array index expected after '[')");
        break;
      }
      s = end + 1;
      if (*s == '.') s++;
      last = (*s == '\0');
      if (!cJSON_IsArray(current)) {
        ok = scn_fail(ctx, where, "%s is not an array", *walked ? walked : "the scene");
        break;
      }
      int size = cJSON_GetArraySize(current);
      if (index < 0 || index >= size) {
        ok = scn_fail(ctx, where, "index %ld out of range (%s has %d element%s)", index, walked, size,
                  size == 1 ? "" : "s");
        break;
      }
      char w[PATH_SIZE];
      scn_join_index(w, walked, (int)index);
      snprintf(walked, sizeof walked, "%s", w);
      if (last) {
        bool nul;
        cJSON *v = override_value(eq + 1, &nul);
        if (nul) {
          ok = scn_fail(ctx, where, "the value holds \\u0000 (NUL), which no field accepts");
        } else if (!v || !cJSON_ReplaceItemInArray(current, (int)index, v)) {
          ctx->status = CLT_ERR_OUT_OF_MEMORY;
          ok = scn_fail(ctx, where, "out of memory");
        }
        break;
      }
      next = cJSON_GetArrayItem(current, (int)index);
    } else {
      size_t n = strcspn(s, ".[");
      if (n == 0) {
        ok = scn_fail(ctx, where, "bad path (empty key)");
        break;
      }
      char key[PATH_SIZE];
      memcpy(key, s, n);
      key[n] = '\0';
      s += n;
      if (*s == '.') {
        s++;
        if (*s == '\0') {
          ok = scn_fail(ctx, where, "bad path (ends with '.')");
          break;
        }
      }
      last = (*s == '\0');
      if (!cJSON_IsObject(current)) {
        ok = scn_fail(ctx, where, "%s is not an object", *walked ? walked : "the scene");
        break;
      }
      char w[PATH_SIZE];
      scn_join_key(w, walked, key);
      snprintf(walked, sizeof walked, "%s", w);
      next = cJSON_GetObjectItemCaseSensitive(current, key);
      if (last) {
        bool nul;
        cJSON *v = override_value(eq + 1, &nul);
        bool done = v && (next ? replace_child(current, next, v) : cJSON_AddItemToObject(current, key, v));
        if (nul) {
          ok = scn_fail(ctx, where, "the value holds \\u0000 (NUL), which no field accepts");
        } else if (!done) {
          ctx->status = CLT_ERR_OUT_OF_MEMORY;
          ok = scn_fail(ctx, where, "out of memory");
        }
        break;
      }
      if (!next) {
        /* Missing intermediate objects are created (validation then checks the keys). */
        if (*s == '[') {
          ok = scn_fail(ctx, where, "%s does not exist", walked);
          break;
        }
        next = cJSON_AddObjectToObject(current, key);
        if (!next) {
          ctx->status = CLT_ERR_OUT_OF_MEMORY;
          ok = scn_fail(ctx, where, "out of memory");
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
bool scn_check_parameter_value(ctx_t *ctx, const cJSON *v, const char *path) {
  if (cJSON_IsNumber(v)) {
    double d;
    return scn_number_value(ctx, v, path, &d);
  }
  if (cJSON_IsString(v) || cJSON_IsBool(v)) return true;
  if (cJSON_IsArray(v)) {
    int i = 0;
    for (const cJSON *c = v->child; c; c = c->next, i++) {
      char p[PATH_SIZE];
      scn_join_index(p, path, i);
      if (cJSON_IsArray(c) || cJSON_IsObject(c))
        return scn_fail(ctx, p, "parameter values cannot nest arrays or objects");
      if (!scn_check_parameter_value(ctx, c, p)) return false;
    }
    return true;
  }
  char got[64];
  scn_describe(v, got, sizeof got);
  return scn_fail(ctx, path, "a parameter value must be a number, string, boolean or array (got %s)", got);
}

bool scn_apply_param(ctx_t *ctx, cJSON *parameters, const char *assignment) {
  const char *eq = strchr(assignment, '=');
  ctx->status = CLT_ERR_INVALID_ARGUMENT;
  if (!eq || eq == assignment) return scn_fail(ctx, NULL, "--param %s: expected NAME=VALUE", assignment);
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
      return scn_fail(ctx, NULL, "--param %s: unknown parameter '%s' (declared: %s)", assignment, name, list);
    return scn_fail(ctx, NULL, "--param %s: unknown parameter '%s' (the scene declares no parameters)",
                assignment, name);
  }
  bool nul;
  cJSON *v = override_value(eq + 1, &nul);
  if (nul) return scn_fail(ctx, NULL, "--param %s: the value holds \\u0000 (NUL), which no field accepts", assignment);
  if (!v) {
    ctx->status = CLT_ERR_OUT_OF_MEMORY;
    return scn_fail(ctx, NULL, "out of memory");
  }
  char where[PATH_SIZE];
  snprintf(where, sizeof where, "--param %.*s", PATH_SIZE - 16, assignment);
  bool ok = scn_check_parameter_value(ctx, v, where);
  if (!ok) {
    cJSON_Delete(v);
    return false;
  }
  replace_child(parameters, old, v);
  ctx->status = CLT_OK;
  return true;
}

/* The declared parameters are sorted by name (then by declaration order), so that duplicates are
 * neighbours and a "$name" is found by bisection: a scene with 2·10⁵ parameters took 70 s when
 * both were linear searches. */
static const cJSON *const *sort_items;

static int by_name_then_order(const void *a, const void *b) {
  int ia = *(const int *)a, ib = *(const int *)b;
  int c = strcmp(sort_items[ia]->string, sort_items[ib]->string);
  return c != 0 ? c : (ia > ib) - (ia < ib);
}

/* Builds the index of parameters (NULL: empty); false when out of memory. */
bool scn_param_index_build(const cJSON *parameters, param_index_t *x) {
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

void scn_param_index_free(param_index_t *x) {
  free(x->items);
  free(x->order);
  memset(x, 0, sizeof *x);
}

/* The first declared duplicate (by declaration order) of x, or NULL. */
const cJSON *scn_param_index_duplicate(const param_index_t *x) {
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
bool scn_substitute(ctx_t *ctx, cJSON *item, const char *path, const param_index_t *parameters,
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
      scn_join_key(p, path, c->string);
    } else {
      scn_join_index(p, path, i);
    }
    if (cJSON_IsString(c) && c->valuestring[0] == '$') {
      if (c->valuestring[1] == '$') {
        cJSON *literal = cJSON_CreateString(c->valuestring + 1);
        if (!literal || !replace_child(item, c, literal)) return scn_fail(ctx, p, "out of memory");
      } else {
        const char *name = c->valuestring + 1;
        const cJSON *value = param_index_find(parameters, name);
        if (!value) return scn_fail(ctx, p, "unknown parameter '%s' (declare it in \"parameters\")", name);
        cJSON *copy = cJSON_Duplicate(value, true);
        if (!copy || !replace_child(item, c, copy)) return scn_fail(ctx, p, "out of memory");
      }
    } else if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
      if (!scn_substitute(ctx, c, p, parameters, skip)) return false;
    }
    c = next;
  }
  return true;
}
