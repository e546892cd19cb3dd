/* The diagnostics CSV beside a run file (docs/output-format.md "CSV"), and the one table of
 * diagnostics columns that it and /diagnostics share (OUTPUT_COLUMNS, output_internal.h): the
 * header and a row per step, the CSV's temporary file, and its cutting on --resume (to the
 * checkpoint's step, adding the late columns a CSV of before them lacks) and after a failed write
 * (salvage, output_files.c). */
#define _POSIX_C_SOURCE 200809L /* fdopen, truncate */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "io/output_internal.h"

#define OUTPUT_COLUMN_ENTRY(name, kind, wall, late) {#name, kind, wall, late},
const column_t output_columns[COLUMN_COUNT] = {OUTPUT_COLUMNS(OUTPUT_COLUMN_ENTRY)};
#undef OUTPUT_COLUMN_ENTRY

double output_column_value(const clt_diagnostics_t *d, int column) {
  switch (column) {
#define OUTPUT_COLUMN_VALUE(name, kind, wall, late) \
  case COLUMN_##name: return (double)d->name;
    OUTPUT_COLUMNS(OUTPUT_COLUMN_VALUE)
#undef OUTPUT_COLUMN_VALUE
    default: return 0;
  }
}

void clt_output_csv_path(const char *h5_path, char *buf, size_t size) {
  size_t n = strlen(h5_path);
  const char *ext = NULL;
  if (n > 3 && strcmp(h5_path + n - 3, ".h5") == 0) ext = h5_path + n - 3;
  if (n > 5 && strcmp(h5_path + n - 5, ".hdf5") == 0) ext = h5_path + n - 5;
  int stem = (int)(ext ? (size_t)(ext - h5_path) : n);
  snprintf(buf, size, "%.*s.csv", stem, h5_path);
}

/* The header line, the columns' names (without its newline), into buf. */
static void header_text(char *buf, size_t size) {
  size_t at = 0;
  for (int c = 0; c < COLUMN_COUNT && at < size; c++)
    at += (size_t)snprintf(buf + at, size - at, "%s%s", c ? "," : "", output_columns[c].name);
}

void output_csv_header(FILE *f) {
  char header[2048];
  header_text(header, sizeof header);
  fputs(header, f);
  fputc('\n', f);
}

/* The row of diagnostics d (integers as integers, the solver status by name, doubles with 17
 * digits: a CSV reader gets the same numbers as /diagnostics). False if the line could not be
 * written. */
bool output_csv_row(FILE *f, const clt_diagnostics_t *d) {
  for (int c = 0; c < COLUMN_COUNT; c++) {
    if (c) fputc(',', f);
    double v = output_column_value(d, c);
    switch (output_columns[c].kind) {
      case COL_INT64: fprintf(f, "%lld", (long long)v); break;
      case COL_INT32: fprintf(f, "%d", (int)v); break;
      case COL_STATUS: fputs(clt_solver_status_name(d->solver_status), f); break;
      case COL_DOUBLE: fprintf(f, "%.17g", v); break;
    }
  }
  return fputc('\n', f) != EOF;
}

/* The CSV's temporary file, made exclusively, open for writing with its header (own_csv_tmp). */
bool output_create_csv(clt_output_t *out, char *message, size_t message_size) {
  int fd = output_create_exclusive(out->csv_tmp_path, out->path, false, message, message_size);
  if (fd < 0) return false;
  out->own_csv_tmp = true;
  out->csv = fdopen(fd, "w");
  if (!out->csv) {
    snprintf(message, message_size, "%s: cannot open: %s", out->csv_tmp_path, strerror(errno));
    close(fd);
    return false;
  }
  return true;
}

/* Complete rows (lines after the header) of the CSV at path, −1 if it cannot be read. */
int64_t output_csv_rows(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  int64_t lines = 0;
  for (int c; (c = fgetc(f)) != EOF;)
    if (c == '\n') lines++;
  fclose(f);
  return lines - 1;
}

/* Cuts the file at path after its header and `rows` rows (false if it has fewer). */
bool output_cut_csv(const char *path, int64_t rows) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  int64_t lines = rows + 1;
  long at = 0;
  for (int c; lines > 0 && (c = fgetc(f)) != EOF; at++)
    if (c == '\n') lines--;
  fclose(f);
  return lines == 0 && truncate(path, at) == 0;
}

/* Copies the CSV keeping the header and the rows of steps ≤ last_step (one row per step from 0).
 * A CSV of before the late columns (its header the current one without its last columns, each of
 * them late) gets those columns, -1 in its rows (as their /diagnostics datasets:
 * output_open_series). */
bool output_copy_csv_prefix(const char *from, FILE *o, int64_t last_step) { /* last_step: rows − 1 */
  FILE *in = fopen(from, "rb");
  if (!in) return false;
  char header[2048], line[2048];
  header_text(header, sizeof header);
  size_t n = 0;
  int c = EOF;
  while (n + 1 < sizeof line && (c = fgetc(in)) != EOF && c != '\n') line[n++] = (char)c;
  line[n] = '\0';
  bool ok = c == '\n';
  /* the columns it lacks: the header's tail after line, if line is its start at a comma */
  const char *missing = "";
  int pad = 0;
  if (ok && strncmp(header, line, n) == 0 && header[n] == ',') {
    missing = header + n;
    for (const char *p = missing; *p; p++) pad += *p == ',';
    for (int k = COLUMN_COUNT - pad; k < COLUMN_COUNT; k++)
      if (!output_columns[k].late) pad = -1;
    if (pad < 0) missing = "", pad = 0; /* not only late columns: copied as it is */
  }
  ok = ok && fprintf(o, "%s%s\n", line, missing) > 0;
  int64_t lines = last_step + 1; /* the rows of steps first..first + last_step */
  while (ok && lines > 0 && (c = fgetc(in)) != EOF) {
    if (c == '\n') {
      for (int k = 0; k < pad && ok; k++) ok = fputs(",-1", o) != EOF;
      lines--;
    }
    if (fputc(c, o) == EOF) ok = false;
  }
  if (lines > 0) ok = false; /* the CSV ended before the checkpoint: damaged */
  fclose(in);
  if (fflush(o) != 0) ok = false;
  return ok;
}
