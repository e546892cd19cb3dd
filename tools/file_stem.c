/* File names made from a run file's or scene's contents (commands.h). */
#include <stdio.h>
#include <string.h>

#include "commands.h"

void clt_tool_file_stem(const char *name, const char *fallback, char *out, size_t size) {
  size_t n = 0;
  for (const char *p = name ? name : ""; *p && n + 1 < size; p++) {
    unsigned char c = (unsigned char)*p;
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                c == '_' || (c == '.' && n > 0);
    out[n++] = keep ? (char)c : '_';
  }
  out[n] = '\0';
  bool only_marks = true; /* "", "_", "__": nothing of the name left */
  for (size_t i = 0; i < n; i++) only_marks = only_marks && out[i] == '_';
  if (only_marks) snprintf(out, size, "%s", fallback);
}
