/* `clatter lcp`: runs the complementarity solvers (SPEC.md §2) on problem files written by other
 * projects (shared/data/README.md: Siconos .dat LCPs and frictional-contact problems, FCLIB HDF5)
 * and prints, per file and solver, size, status, iterations, residual and time. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clatter/problems.h"
#include "clatter/solvers.h"
#include "commands.h"

typedef enum lcp_cli_solver_t {
  CLI_LEMKE,
  CLI_BGS,
  CLI_APGD,
  CLI_BBPGD,
  CLI_MPRGP,
  CLI_NSGS,
  CLI_COUNT
} lcp_cli_solver_t;

/* The LCP solvers the command offers (the library's names, clt_solver_kind_name), then nsgs. */
static const clt_solver_kind_t lcp_kinds[CLI_NSGS] = {CLT_SOLVER_LEMKE, CLT_SOLVER_BGS, CLT_SOLVER_APGD,
                                                      CLT_SOLVER_BBPGD, CLT_SOLVER_MPRGP};

static const char *solver_name(int s) { return s == CLI_NSGS ? "nsgs" : clt_solver_kind_name(lcp_kinds[s]); }

/* The solver a --solver value names ("pgs": bgs), or −1. */
static int solver_from_name(const char *name) {
  if (strcmp(name, "nsgs") == 0) return CLI_NSGS;
  if (strcmp(name, "pgs") == 0) return CLI_BGS;
  clt_solver_kind_t kind;
  if (!clt_solver_kind_from_name(name, &kind)) return -1;
  for (int s = 0; s < CLI_NSGS; s++)
    if (lcp_kinds[s] == kind) return s;
  return -1;
}

static void usage(FILE *out) {
  fprintf(
      out,
      "usage: clatter lcp [--solver NAME] [--json] [--tolerance X] [--max-iterations N] FILE...\n"
      "\n"
      "Solves complementarity problems read from files: Siconos .dat LCPs, Siconos .dat and\n"
      "FCLIB .hdf5 frictional-contact problems (local and global).\n"
      "  --solver NAME        lemke, bgs (alias pgs), apgd, bbpgd, mprgp for LCPs; nsgs for\n"
      "                       frictional contact. Default: all five LCP solvers on LCP files, nsgs on\n"
      "                       frictional-contact files.\n"
      "  --json               one JSON object per line: file, n, solver, status, iterations,\n"
      "                       residual, seconds (and message when not solved)\n"
      "  --tolerance X        scaled residual to reach (default 1e-10 for LCPs, 1e-8 for\n"
      "                       frictional contact: the natural-map error)\n"
      "  --max-iterations N   pivots / sweeps / iterations (default 100000)\n"
      "Exit status: 0 when every file was read, 2 when a file could not be read or on a usage\n"
      "error.\n");
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", out);
    else if (c == '\t')
      fputs("\\t", out);
    else if (c < 0x20)
      fprintf(out, "\\u%04x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

static void report(bool json, const char *file, int n, const char *solver, const char *status,
                   int iterations, double residual, double seconds, const char *message) {
  if (json) {
    printf("{\"file\":");
    json_string(stdout, file);
    printf(",\"n\":%d,\"solver\":", n);
    json_string(stdout, solver);
    printf(",\"status\":");
    json_string(stdout, status);
    printf(",\"iterations\":%d,\"residual\":", iterations);
    if (isfinite(residual))
      printf("%.6e", residual);
    else
      printf("null");
    printf(",\"seconds\":%.6e", seconds);
    if (strcmp(status, "solved") != 0 && message && message[0]) {
      printf(",\"message\":");
      json_string(stdout, message);
    }
    printf("}\n");
  } else {
    printf("%-44s %7d  %-6s %-15s %8d  %10.3e  %10.6f  %s\n", file, n, solver, status, iterations,
           residual, seconds, strcmp(status, "solved") == 0 ? "" : message);
  }
  fflush(stdout);
}

static const char *status_word(clt_solver_status_t s) {
  switch (s) {
    case CLT_SOLVE_SOLVED:
      return "solved";
    case CLT_SOLVE_RAY:
      return "ray";
    case CLT_SOLVE_MAX_ITERATIONS:
      return "max_iterations";
    case CLT_SOLVE_NOT_CONVERGED:
      return "not_converged";
    default:
      return "error";
  }
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static void run_lcp(bool json, const char *file, const clt_problem_file_t *p, int chosen,
                    const clt_solver_options_t *o) {
  int n = p->lcp_n;
  clt_lcp_t lcp = {.n = n, .M = &p->lcp_M, .q = p->lcp_q};
  double *z = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
  for (int s = 0; s < CLI_COUNT; s++) {
    if (chosen >= 0 && s != chosen) continue;
    if (s == CLI_NSGS) {
      if (chosen == CLI_NSGS)
        report(json, file, n, "nsgs", "error", 0, NAN, 0.0,
               "nsgs applies to frictional-contact problems, not to an LCP");
      continue;
    }
    clt_solve_result_t r;
    double t0 = now_seconds();
    clt_status_t st = z ? clt_lcp_solve(lcp_kinds[s], &lcp, o, z, NULL, &r) : CLT_ERR_OUT_OF_MEMORY;
    double t1 = now_seconds();
    if (st != CLT_OK) {
      report(json, file, n, solver_name(s), "error", 0, NAN, t1 - t0,
             z ? r.message : "out of memory");
      continue;
    }
    report(json, file, n, solver_name(s), status_word(r.status), r.iterations, r.residual, t1 - t0,
           r.message);
  }
  free(z);
}

static void run_fc(bool json, const char *file, const clt_problem_file_t *p, int chosen,
                   const clt_solver_options_t *o) {
  bool global = p->kind == CLT_PROBLEM_FC_GLOBAL;
  int dim = global ? p->global.dim : p->local.dim;
  int contacts = global ? p->global.contacts : p->local.contacts;
  int m = dim * contacts;
  if (chosen >= 0 && chosen != CLI_NSGS) {
    report(json, file, m, solver_name(chosen), "error", 0, NAN, 0.0,
           "this solver applies to LCPs; frictional contact is solved by nsgs");
    return;
  }
  double *r = calloc((size_t)(m > 0 ? m : 1), sizeof(double));
  double *v = global ? calloc((size_t)(p->global.n > 0 ? p->global.n : 1), sizeof(double)) : NULL;
  if (!r || (global && !v)) {
    report(json, file, m, "nsgs", "error", 0, NAN, 0.0, "out of memory");
    free(r);
    free(v);
    return;
  }
  clt_solve_result_t res;
  memset(&res, 0, sizeof res);
  double t0 = now_seconds();
  clt_status_t st = global ? clt_fc_global_solve(&p->global, o, v, r, NULL, &res)
                           : clt_fc_local_solve(&p->local, o, r, NULL, &res);
  double t1 = now_seconds();
  if (st != CLT_OK)
    report(json, file, m, "nsgs", "error", res.iterations, NAN, t1 - t0, res.message);
  else
    report(json, file, m, "nsgs", status_word(res.status), res.iterations, res.residual, t1 - t0,
           res.message);
  free(r);
  free(v);
}

int clt_cmd_lcp(int argc, char **argv) {
  bool json = false, tolerance_given = false;
  int chosen = -1;
  clt_solver_options_t o = clt_default_solver_options();
  int first_file = argc;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "--json") == 0) {
      json = true;
    } else if (strcmp(a, "--solver") == 0 || strcmp(a, "--tolerance") == 0 ||
               strcmp(a, "--max-iterations") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "clatter lcp: %s needs a value\n", a);
        return 2;
      }
      const char *v = argv[++i];
      if (strcmp(a, "--solver") == 0) {
        chosen = solver_from_name(v);
        if (chosen < 0) {
          fprintf(stderr, "clatter lcp: unknown solver '%s' (lemke, bgs, pgs, apgd, bbpgd, mprgp, nsgs)\n",
                  v);
          return 2;
        }
      } else {
        char *end = NULL;
        errno = 0;
        if (strcmp(a, "--tolerance") == 0) {
          double t = strtod(v, &end);
          if (errno || !end || *end || !(t > 0.0) || !isfinite(t)) {
            fprintf(stderr, "clatter lcp: --tolerance expects a positive number, got '%s'\n", v);
            return 2;
          }
          o.tolerance = t;
          tolerance_given = true;
        } else {
          long k = strtol(v, &end, 10);
          if (errno || !end || *end || k < 0 || k > 1000000000L) {
            fprintf(stderr, "clatter lcp: --max-iterations expects a count >= 0, got '%s'\n", v);
            return 2;
          }
          o.max_iterations = (int)k;
        }
      }
    } else if (a[0] == '-' && a[1] == '-') {
      fprintf(stderr, "clatter lcp: unknown option '%s'\n\n", a);
      usage(stderr);
      return 2;
    } else {
      first_file = i;
      break;
    }
  }
  if (first_file >= argc) {
    fprintf(stderr, "clatter lcp: no problem file given\n\n");
    usage(stderr);
    return 2;
  }
  if (!json)
    printf("%-44s %7s  %-6s %-15s %8s  %10s  %10s  %s\n", "file", "n", "solver", "status", "iter",
           "residual", "seconds", "message");
  int failed = 0;
  for (int i = first_file; i < argc; i++) {
    const char *path = argv[i];
    if (path[0] == '-' && path[1] == '-') {
      fprintf(stderr, "clatter lcp: options must come before the files ('%s')\n", path);
      failed = 1;
      continue;
    }
    clt_problem_file_t prob;
    char message[512];
    memset(&prob, 0, sizeof prob);
    clt_status_t st = clt_problem_file_load(path, &prob, message, sizeof message);
    if (st != CLT_OK) {
      fprintf(stderr, "clatter lcp: %s\n", message);
      report(json, base_name(path), 0, chosen >= 0 ? solver_name(chosen) : "-", "error", 0, NAN,
             0.0, message);
      failed = 1;
      continue;
    }
    clt_solver_options_t po = o;
    if (prob.kind == CLT_PROBLEM_LCP) {
      run_lcp(json, base_name(path), &prob, chosen, &po);
    } else {
      if (!tolerance_given) po.tolerance = 1e-8;
      run_fc(json, base_name(path), &prob, chosen, &po);
    }
    clt_problem_file_free(&prob);
  }
  return failed ? 2 : 0;
}
