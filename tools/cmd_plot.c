/* clatter plot — diagnostics of one or more runs against time, as a PNG (docs/visualization.md).
 * Exit status: 0, 1 if the PNG cannot be written, 2 for bad usage or an unreadable run file. */
#define _POSIX_C_SOURCE 200809L /* popen, access, mkdir */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "viz/viz.h"

#define MAX_RUNS 32
#define MAX_QUANTITIES 32

static void usage(FILE *out) {
  fprintf(out,
          "usage: clatter plot OUT.h5 [OUT2.h5 ...] [QUANTITY ...] [-o plot.png] [--log | --linear]\n"
          "                    [--size WxH] [--label NAME ...]\n"
          "\n"
          "Plots per-step diagnostics against time, one panel per quantity, the runs overlaid.\n"
          "QUANTITY is a diagnostics column (infeasibility, penetration, joint_error, kinetic_energy,\n"
          "potential_energy, iterations, residual, contacts, joints, lcp_size, constraints, ...) or\n"
          "energy (kinetic + potential). Default: infeasibility, penetration, joint_error, energy,\n"
          "iterations, residual, contacts and lcp_size, leaving out those that are zero in every run.\n"
          "  -o FILE        output PNG (default: plot.png)\n"
          "  --log          log scale on every panel (zeros are left out); by default a log scale is\n"
          "                 used for errors and residuals whose positive values span > 2 decades\n"
          "  --linear       never a log scale\n"
          "  --size WxH     picture size in pixels (default: from the number of panels)\n"
          "  --label NAME   legend name of the next run, in order (default: scene name, or the file\n"
          "                 name when two runs share a scene)\n");
}

static bool is_run_file(const char *arg) {
  size_t n = strlen(arg);
  if ((n > 3 && strcmp(arg + n - 3, ".h5") == 0) || (n > 5 && strcmp(arg + n - 5, ".hdf5") == 0)) return true;
  return access(arg, F_OK) == 0 && strchr(arg, '/') != NULL;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int plot_main(int argc, char **argv) {
  const char *files[MAX_RUNS], *quantities[MAX_QUANTITIES], *labels_given[MAX_RUNS];
  int file_count = 0, quantity_count = 0, label_count = 0;
  const char *output = "plot.png";
  clt_viz_plot_options_t options = {0};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
      output = argv[++i];
    } else if (strcmp(a, "--log") == 0) {
      options.log_all = true;
    } else if (strcmp(a, "--linear") == 0) {
      options.linear_all = true;
    } else if (strcmp(a, "--size") == 0 && i + 1 < argc) {
      if (sscanf(argv[++i], "%dx%d", &options.width, &options.height) != 2 || options.width < 200 ||
          options.height < 150 || options.width > 10000 || options.height > 10000) {
        fprintf(stderr, "clatter plot: --size must be WxH with 200 <= W, 150 <= H, both <= 10000 (got '%s')\n",
                argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--label") == 0 && i + 1 < argc) {
      if (label_count < MAX_RUNS) labels_given[label_count++] = argv[++i];
    } else if (a[0] == '-') {
      fprintf(stderr, "clatter plot: unknown or incomplete option '%s'\n\n", a);
      usage(stderr);
      return 2;
    } else if (is_run_file(a)) {
      if (file_count == MAX_RUNS) {
        fprintf(stderr, "clatter plot: at most %d runs\n", MAX_RUNS);
        return 2;
      }
      files[file_count++] = a;
    } else {
      if (quantity_count == MAX_QUANTITIES) {
        fprintf(stderr, "clatter plot: at most %d quantities\n", MAX_QUANTITIES);
        return 2;
      }
      quantities[quantity_count++] = a;
    }
  }
  if (file_count == 0) {
    fprintf(stderr, "clatter plot: no run file given\n\n");
    usage(stderr);
    return 2;
  }
  if (options.log_all && options.linear_all) {
    fprintf(stderr, "clatter plot: --log and --linear exclude each other\n");
    return 2;
  }
  clt_viz_run_t *runs[MAX_RUNS];
  char message[1024];
  for (int i = 0; i < file_count; i++) {
    if (clt_viz_run_read(files[i], &runs[i], message, sizeof message) != CLT_OK) {
      fprintf(stderr, "clatter plot: %s\n", message);
      for (int k = 0; k < i; k++) clt_viz_run_free(runs[k]);
      return 2;
    }
    if (runs[i]->diagnostics_rows == 0) {
      fprintf(stderr, "clatter plot: %s: no /diagnostics (the run had output.diagnostics = false)\n", files[i]);
      for (int k = 0; k <= i; k++) clt_viz_run_free(runs[k]);
      return 2;
    }
  }
  for (int q = 0; q < quantity_count; q++) {
    if (!clt_viz_quantity_info(quantities[q], NULL, NULL, NULL)) {
      bool found = false;
      for (int i = 0; i < file_count && !found; i++) found = clt_viz_run_diagnostic(runs[i], quantities[q]) != NULL;
      if (!found) {
        fprintf(stderr, "clatter plot: '%s' is neither a run file nor a diagnostics column\n", quantities[q]);
        for (int k = 0; k < file_count; k++) clt_viz_run_free(runs[k]);
        return 2;
      }
    }
  }
  if (quantity_count == 0) {
    static const char *defaults[] = {"infeasibility", "penetration", "joint_error", "energy",
                                     "iterations",    "residual",    "contacts",    "lcp_size"};
    for (size_t d = 0; d < sizeof defaults / sizeof defaults[0]; d++) {
      bool keep = strcmp(defaults[d], "energy") == 0 || strcmp(defaults[d], "infeasibility") == 0;
      for (int i = 0; i < file_count && !keep; i++) {
        const double *v = clt_viz_run_diagnostic(runs[i], defaults[d]);
        for (int64_t r = 0; v && r < runs[i]->diagnostics_rows && !keep; r++) keep = v[r] != 0 && isfinite(v[r]);
      }
      if (keep) quantities[quantity_count++] = defaults[d];
    }
  }
  /* Legend labels: scene names, unless two runs share one. */
  char label_buf[MAX_RUNS][256];
  const char *labels[MAX_RUNS];
  for (int i = 0; i < file_count; i++) {
    bool shared = false;
    for (int k = 0; k < file_count; k++) shared = shared || (k != i && strcmp(runs[k]->scene_name, runs[i]->scene_name) == 0);
    if (i < label_count) snprintf(label_buf[i], sizeof label_buf[i], "%s", labels_given[i]);
    else if (shared || !runs[i]->scene_name[0]) snprintf(label_buf[i], sizeof label_buf[i], "%s", base_name(files[i]));
    else snprintf(label_buf[i], sizeof label_buf[i], "%s", runs[i]->scene_name);
    labels[i] = label_buf[i];
  }
  clt_status_t st = clt_viz_plot(runs, labels, file_count, quantities, quantity_count, &options, output, message,
                                 sizeof message);
  for (int k = 0; k < file_count; k++) clt_viz_run_free(runs[k]);
  if (st != CLT_OK) {
    fprintf(stderr, "clatter plot: %s\n", message);
    return st == CLT_ERR_INVALID_ARGUMENT ? 2 : 1;
  }
  printf("wrote %s (%d panel%s, %d run%s)\n", output, quantity_count, quantity_count == 1 ? "" : "s", file_count,
         file_count == 1 ? "" : "s");
  return 0;
}

int clt_cmd_plot(int argc, char **argv) {
  int status = plot_main(argc, argv);
  clt_viz_release_static_data(); /* font caches: a clean exit for leak checkers */
  return status;
}
