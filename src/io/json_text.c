/* Exact JSON serialization (see json_text.h). */
#include "json_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text_buffer_t {
  char *data;
  size_t length;
  size_t capacity;
  bool failed;
} text_buffer_t;

static void append(text_buffer_t *b, const char *s, size_t n) {
  if (b->failed) return;
  if (b->length + n + 1 > b->capacity) {
    size_t capacity = b->capacity ? b->capacity : 256;
    while (b->length + n + 1 > capacity) capacity *= 2;
    char *data = realloc(b->data, capacity);
    if (!data) {
      b->failed = true;
      return;
    }
    b->data = data;
    b->capacity = capacity;
  }
  memcpy(b->data + b->length, s, n);
  b->length += n;
  b->data[b->length] = '\0';
}

static void append_str(text_buffer_t *b, const char *s) { append(b, s, strlen(s)); }

void clt_json_format_number(double value, char *buf, size_t size) {
  if (!isfinite(value)) {
    snprintf(buf, size, "null");
    return;
  }
  /* Shortest of 15–17 significant digits that reads back as the same double. */
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, size, "%.*g", digits, value);
    if (strtod(buf, NULL) == value) break;
  }
}

static void append_string_literal(text_buffer_t *b, const char *s) {
  append_str(b, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    char esc[8];
    switch (*p) {
      case '"': append_str(b, "\\\""); break;
      case '\\': append_str(b, "\\\\"); break;
      case '\n': append_str(b, "\\n"); break;
      case '\r': append_str(b, "\\r"); break;
      case '\t': append_str(b, "\\t"); break;
      case '\b': append_str(b, "\\b"); break;
      case '\f': append_str(b, "\\f"); break;
      default:
        if (*p < 0x20) {
          snprintf(esc, sizeof esc, "\\u%04x", *p);
          append_str(b, esc);
        } else {
          append(b, (const char *)p, 1);
        }
    }
  }
  append_str(b, "\"");
}

static bool is_scalar(const cJSON *item) { return !cJSON_IsArray(item) && !cJSON_IsObject(item); }

static bool all_scalars(const cJSON *array) {
  for (const cJSON *c = array->child; c; c = c->next) {
    if (!is_scalar(c)) {
      /* Small arrays of scalar arrays (polygon vertices) also stay on one line. */
      if (!cJSON_IsArray(c)) return false;
      for (const cJSON *d = c->child; d; d = d->next) {
        if (!is_scalar(d)) return false;
      }
    }
  }
  return true;
}

static void indent(text_buffer_t *b, int depth) {
  for (int i = 0; i < depth; i++) append_str(b, "  ");
}

static void write_item(text_buffer_t *b, const cJSON *item, bool pretty, int depth) {
  char number[64];
  if (cJSON_IsNull(item) || cJSON_IsInvalid(item)) {
    append_str(b, "null");
  } else if (cJSON_IsFalse(item)) {
    append_str(b, "false");
  } else if (cJSON_IsTrue(item)) {
    append_str(b, "true");
  } else if (cJSON_IsNumber(item)) {
    clt_json_format_number(item->valuedouble, number, sizeof number);
    append_str(b, number);
  } else if (cJSON_IsString(item)) {
    append_string_literal(b, item->valuestring ? item->valuestring : "");
  } else if (cJSON_IsArray(item)) {
    bool inline_array = !pretty || all_scalars(item);
    append_str(b, "[");
    for (const cJSON *c = item->child; c; c = c->next) {
      if (!inline_array) {
        append_str(b, "\n");
        indent(b, depth + 1);
      }
      write_item(b, c, pretty && !inline_array, depth + 1);
      if (c->next) append_str(b, inline_array && pretty ? ", " : ",");
    }
    if (!inline_array && item->child) {
      append_str(b, "\n");
      indent(b, depth);
    }
    append_str(b, "]");
  } else if (cJSON_IsObject(item)) {
    append_str(b, "{");
    for (const cJSON *c = item->child; c; c = c->next) {
      if (pretty) {
        append_str(b, "\n");
        indent(b, depth + 1);
      }
      append_string_literal(b, c->string ? c->string : "");
      append_str(b, pretty ? ": " : ":");
      write_item(b, c, pretty, depth + 1);
      if (c->next) append_str(b, ",");
    }
    if (pretty && item->child) {
      append_str(b, "\n");
      indent(b, depth);
    }
    append_str(b, "}");
  } else {
    append_str(b, "null");
  }
}

char *clt_json_serialize(const cJSON *item, bool pretty) {
  text_buffer_t b = {0};
  write_item(&b, item, pretty, 0);
  if (pretty) append_str(&b, "\n");
  if (b.failed) {
    free(b.data);
    return NULL;
  }
  return b.data;
}

void clt_json_line_column(const char *text, size_t offset, int *line, int *column) {
  int l = 1, c = 1;
  for (size_t i = 0; i < offset && text[i]; i++) {
    if (text[i] == '\n') {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  *line = l;
  *column = c;
}
