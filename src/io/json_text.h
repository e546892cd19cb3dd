/* JSON text helpers shared by the scene reader and the output writer (clatter_io, internal). */
#ifndef CLATTER_IO_JSON_TEXT_H
#define CLATTER_IO_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* Serializes item as JSON. Numbers use the shortest of %.15g/%.16g/%.17g that parses back to the
 * same double, so the text reproduces the values bit for bit (cJSON_Print only guarantees
 * ~15 digits). Non-finite numbers are written as null (callers validate before). pretty: two-space
 * indentation, arrays of scalars on one line. Returns a malloc'ed string or NULL (out of memory). */
char *clt_json_serialize(const cJSON *item, bool pretty);

/* Formats a double the same way into buf (at least 32 bytes). */
void clt_json_format_number(double value, char *buf, size_t size);

/* Line and column (1-based) of byte offset in text. */
void clt_json_line_column(const char *text, size_t offset, int *line, int *column);

#endif
