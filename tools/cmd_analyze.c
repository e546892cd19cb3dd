/* clatter analyze — granular measurements of a run file's frames as CSV (docs/analysis.md):
 * packing fraction, coordination, the contact-force network, the Love–Weber stress, profiles,
 * the angle of repose and the mass flow rate, computed by the library (clatter/analysis.h). Exit
 * status: 0, 1 if the output cannot be written, 2 for bad usage, a request that cannot be
 * measured or an unreadable run file. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fchmod */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clatter/analysis.h"
#include "commands.h"

static void usage(FILE *out) {
  fprintf(out, "usage: clatter analyze RUN.h5 --what KIND [--frames A:B:S] [--region BOX] [--axis x|y|z]\n"
               "                       [--bins N] [--plane P] [--min-contacts N] [--centre X,Y[,Z]]\n"
               "                       [--heap-radius R] [--fit MIN:MAX] [-o OUT.csv]\n"
               "\n"
               "Measures a granular packing in trajectory frames and writes one CSV table (docs/analysis.md):\n"
               "  --what packing       solid fraction of --region (spheres by their exact volume inside)\n"
               "  --what coordination  touching partners per particle, with and without rattlers\n"
               "  --what forces        the touching contacts: force on body_b, normal, branch vector\n"
               "  --what stress        Love-Weber stress of --region [Pa], compression positive\n"
               "  --what profile       --bins slabs of --region along --axis: solid fraction, velocity\n"
               "  --what repose        angle of repose of a heap from its surface height profile [degrees]\n"
               "  --what flow          mass through the plane x_axis = --plane between frames [kg, kg/s]\n"
               "Options:\n"
               "  --frames A:B:S       frames A to B inclusive every S, or one frame N; negative counts from\n"
               "                       the end (default: the last frame; flow: every frame)\n"
               "  --region BOX         X0,Y0,Z0,X1,Y1,Z1 (2D: X0,Y0,X1,Y1) [m]: required by packing, stress\n"
               "                       and profile; limits coordination and forces to what is inside, flow\n"
               "                       to the crossings within it; inf and -inf are allowed where no volume\n"
               "                       is needed\n"
               "  --axis x|y|z         profile and flow: the axis (default: up, against gravity); repose: up\n"
               "  --bins N             profile slabs and repose radial bins (default 20)\n"
               "  --plane P            flow: the plane's position along the axis [m] (required)\n"
               "  --min-contacts N     coordination: rattlers have fewer partners (default 2)\n"
               "  --centre X,Y[,Z]     repose: a point on the heap's axis (default: the centre of mass)\n"
               "  --heap-radius R      repose: R [m] (default: the farthest particle's edge)\n"
               "  --fit MIN:MAX        repose: fit the bins between MIN R and MAX R (default 0.2:0.8)\n"
               "  -o OUT.csv           the table (default: standard output)\n");
}

/* Up to max comma-separated numbers (inf and -inf allowed); the count, or −1 for anything else. */
static int parse_numbers(const char *text, double *out, int max) {
  int n = 0;
  const char *p = text;
  while (*p) {
    char *end;
    double v = strtod(p, &end);
    if (end == p || isnan(v) || n == max) return -1;
    out[n++] = v;
    if (*end == ',')
      p = end + 1;
    else if (*end == '\0')
      p = end;
    else
      return -1;
    if (*end == ',' && *p == '\0') return -1;
  }
  return n;
}

/* The message of a --region that is not a list of numbers. */
static clt_status_t region_syntax_error(char *message, size_t size, const char *text) {
  snprintf(message, size, "region: '%s' is not a list of numbers X0,Y0,Z0,X1,Y1,Z1 (2D: X0,Y0,X1,Y1) [m]", text);
  return CLT_ERR_INVALID_ARGUMENT;
}

/* One integer of A:B:S (empty: fallback). */
static bool parse_index(const char *text, size_t len, int64_t fallback, int64_t *out) {
  if (len == 0) {
    *out = fallback;
    return true;
  }
  char buf[32];
  if (len >= sizeof buf) return false;
  memcpy(buf, text, len);
  buf[len] = '\0';
  char *end;
  long long v = strtoll(buf, &end, 10);
  *out = v;
  return *end == '\0';
}

/* A:B:S, A:B, or N (that frame alone), into the request (the library resolves negative indices). */
static bool parse_frames(const char *spec, clt_analysis_request_t *r) {
  const char *c1 = strchr(spec, ':');
  if (!c1) {
    if (!parse_index(spec, strlen(spec), 0, &r->first) || *spec == '\0') return false;
    r->last = r->first;
    r->stride = 1;
    return r->frames_given = true;
  }
  const char *c2 = strchr(c1 + 1, ':'), *end = spec + strlen(spec);
  if (!parse_index(spec, (size_t)(c1 - spec), 0, &r->first) ||
      !parse_index(c1 + 1, (size_t)((c2 ? c2 : end) - (c1 + 1)), -1, &r->last) ||
      !parse_index(c2 ? c2 + 1 : end, c2 ? (size_t)(end - (c2 + 1)) : 0, 1, &r->stride))
    return false;
  return r->frames_given = true;
}

static int parse_axis(const char *text) {
  if (strcmp(text, "x") == 0 || strcmp(text, "0") == 0) return 0;
  if (strcmp(text, "y") == 0 || strcmp(text, "1") == 0) return 1;
  if (strcmp(text, "z") == 0 || strcmp(text, "2") == 0) return 2;
  return -1;
}

/* The library's "field: reason" as the option's name, after the run file it was asked of:
 * "RUN.h5: --min-contacts: reason" (a request can fail for what the file holds: no frames, no heap);
 * the file's own errors name it already. */
static void print_error(const char *input, const char *message) {
  static const char *const fields[] = {"region", "axis",        "bins", "plane", "min_contacts",
                                       "centre", "heap_radius", "fit",  "frames"};
  for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
    size_t n = strlen(fields[k]);
    if (strncmp(message, fields[k], n) == 0 && message[n] == ':') {
      char option[32];
      snprintf(option, sizeof option, "%s", fields[k]);
      for (char *c = option; *c; c++)
        if (*c == '_') *c = '-';
      fprintf(stderr, "clatter analyze: %s: --%s%s\n", input, option, message + n);
      return;
    }
  }
  fprintf(stderr, "clatter analyze: %s\n", message);
}

static bool write_csv(FILE *out, const clt_analysis_table_t *t) {
  for (int c = 0; c < t->column_count; c++) fprintf(out, "%s%s", c ? "," : "", t->names[c]);
  fputc('\n', out);
  for (int64_t r = 0; r < t->row_count; r++) {
    for (int c = 0; c < t->column_count; c++) {
      double v = t->values[r * t->column_count + c];
      if (c) fputc(',', out);
      if (isnan(v))
        fputs("nan", out);
      else if (t->integer[c])
        fprintf(out, "%lld", (long long)v);
      else
        fprintf(out, "%.17g", v);
    }
    fputc('\n', out);
  }
  return !ferror(out);
}

/* The table into path through a temporary file beside it, renamed when complete: a reader never
 * sees half a table, and a failed write leaves an earlier file as it was. */
static int write_file(const char *path, const clt_analysis_table_t *t) {
  char tmp[4200];
  if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
    fprintf(stderr, "clatter analyze: -o: path too long\n");
    return 1;
  }
  int fd = mkstemp(tmp);
  if (fd < 0) {
    fprintf(stderr, "clatter analyze: %s: cannot create a temporary file beside it (%s)\n", path, strerror(errno));
    return 1;
  }
  fchmod(fd, 0644);
  FILE *out = fdopen(fd, "w");
  bool ok = out && write_csv(out, t);
  if (out)
    ok = fclose(out) == 0 && ok;
  else
    close(fd);
  if (ok && rename(tmp, path) != 0) ok = false;
  if (!ok) {
    fprintf(stderr, "clatter analyze: %s: cannot write (%s)\n", path, strerror(errno));
    remove(tmp);
    return 1;
  }
  return 0;
}

/* The flow table's whole window on one line: net mass over the time between its first and last frame. */
static void print_flow_summary(const clt_analysis_table_t *t, const char *path) {
  double net = 0;
  for (int64_t r = 0; r < t->row_count; r++) net += t->values[r * t->column_count + 6];
  double t0 = t->values[2], t1 = t->values[(t->row_count - 1) * t->column_count + 3];
  printf("wrote %s: net mass %.6g kg through the plane in %.6g … %.6g s, mean rate %.6g kg/s\n", path, net, t0, t1,
         net / (t1 - t0));
}

int clt_cmd_analyze(int argc, char **argv) {
  const char *input = NULL, *output = NULL, *what = NULL, *region_text = NULL, *centre_text = NULL;
  clt_analysis_request_t r = clt_default_analysis_request(CLT_ANALYSIS_PACKING);
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end = NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (a[0] == '-' && a[1] != '\0' && !v) {
      fprintf(stderr, "clatter analyze: %s: missing its value\n\n", a);
      usage(stderr);
      return 2;
    } else if (strcmp(a, "-o") == 0) {
      output = argv[++i];
    } else if (strcmp(a, "--what") == 0) {
      what = argv[++i];
    } else if (strcmp(a, "--frames") == 0) {
      if (!parse_frames(argv[++i], &r)) {
        fprintf(stderr, "clatter analyze: --frames '%s': expected A:B:S or N (integers; negative count from the end)\n",
                argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--region") == 0) {
      region_text = argv[++i];
    } else if (strcmp(a, "--centre") == 0 || strcmp(a, "--center") == 0) {
      centre_text = argv[++i];
    } else if (strcmp(a, "--axis") == 0) {
      r.axis = parse_axis(argv[++i]);
      if (r.axis < 0) {
        fprintf(stderr, "clatter analyze: --axis: must be x, y or z (got '%s')\n", argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--bins") == 0) {
      long n = strtol(argv[++i], &end, 10);
      if (*end || n < 1 || n > 1000000) {
        fprintf(stderr, "clatter analyze: --bins: must be an integer from 1 to 1000000 (got '%s')\n", argv[i]);
        return 2;
      }
      r.bins = (int)n;
    } else if (strcmp(a, "--min-contacts") == 0) {
      long n = strtol(argv[++i], &end, 10);
      if (*end || n < 1 || n > 1000) {
        fprintf(stderr, "clatter analyze: --min-contacts: must be an integer from 1 to 1000 (got '%s')\n", argv[i]);
        return 2;
      }
      r.min_contacts = (int)n;
    } else if (strcmp(a, "--plane") == 0) {
      r.plane = strtod(argv[++i], &end);
      if (*end || !isfinite(r.plane) || end == argv[i]) {
        fprintf(stderr, "clatter analyze: --plane: must be a number [m] (got '%s')\n", argv[i]);
        return 2;
      }
      r.has_plane = true;
    } else if (strcmp(a, "--heap-radius") == 0) {
      r.repose.heap_radius = strtod(argv[++i], &end);
      if (*end || end == argv[i] || !(r.repose.heap_radius > 0) || isinf(r.repose.heap_radius)) {
        fprintf(stderr, "clatter analyze: --heap-radius: must be a length > 0 [m] (got '%s')\n", argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--fit") == 0) {
      char extra;
      if (sscanf(argv[++i], "%lf:%lf%c", &r.repose.fit_min, &r.repose.fit_max, &extra) != 2) {
        fprintf(stderr, "clatter analyze: --fit: expected MIN:MAX, fractions of the heap radius (got '%s')\n", argv[i]);
        return 2;
      }
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "clatter analyze: unknown option '%s'\n\n", a);
      usage(stderr);
      return 2;
    } else if (input) {
      fprintf(stderr, "clatter analyze: unexpected argument '%s' (one run file)\n\n", a);
      usage(stderr);
      return 2;
    } else {
      input = a;
    }
  }
  if (!input || !what) {
    fprintf(stderr, "clatter analyze: %s\n\n", !input ? "a run file is required" : "--what is required");
    usage(stderr);
    return 2;
  }
  r.kind = clt_analysis_kind_from_name(what);
  if (r.kind == CLT_ANALYSIS_KIND_COUNT) {
    fprintf(stderr,
            "clatter analyze: --what: unknown '%s' (packing, coordination, forces, stress, profile, repose, flow)\n",
            what);
    return 2;
  }
  char message[2048];
  clt_analysis_run_t *run = NULL;
  clt_status_t st = clt_analysis_open(input, &run, message, sizeof message);
  if (st != CLT_OK) {
    print_error(input, message);
    return 2;
  }
  /* the run's dimension says how many numbers a region and a centre have */
  int dimension = clt_analysis_dimension(run);
  if (region_text) {
    double v[7];
    int n = parse_numbers(region_text, v, 7);
    st = n < 0 ? region_syntax_error(message, sizeof message, region_text)
               : clt_analysis_box_from_numbers(dimension, v, n, &r.region, message, sizeof message);
    if (st != CLT_OK) {
      print_error(input, message);
      clt_analysis_close(run);
      return 2;
    }
    r.has_region = true;
  }
  if (centre_text) {
    double v[3] = {0, 0, 0};
    int n = parse_numbers(centre_text, v, 3);
    if (n != dimension && !(dimension == 3 && n == 2)) {
      fprintf(stderr, "clatter analyze: --centre '%s': expected %s [m]\n", centre_text,
              dimension == 3 ? "X,Y or X,Y,Z" : "X,Y");
      clt_analysis_close(run);
      return 2;
    }
    memcpy(r.repose.centre, v, sizeof v);
    r.repose.has_centre = true;
  }
  clt_analysis_table_t table;
  st = clt_analysis_table(run, &r, &table, message, sizeof message);
  clt_analysis_close(run);
  if (st != CLT_OK) {
    print_error(input, message);
    return st == CLT_ERR_OUT_OF_MEMORY ? 1 : 2;
  }
  int status = 0;
  if (!output) {
    status = write_csv(stdout, &table) && fflush(stdout) == 0 ? 0 : 1;
  } else {
    status = write_file(output, &table);
    if (status == 0 && r.kind == CLT_ANALYSIS_FLOW)
      print_flow_summary(&table, output);
    else if (status == 0)
      printf("wrote %s (%lld rows)\n", output, (long long)table.row_count);
  }
  clt_analysis_table_free(&table);
  return status;
}
