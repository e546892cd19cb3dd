/* clatter run — runs a scene (or the built-in default scene) and writes OUT.h5 + OUT.csv.
 * Exit status: 0 done (complete, or stopped by --max-steps), 1 runtime failure (a step failed,
 * output could not be written), 2 bad input (usage, scene, override, run file to resume),
 * 3 diverged (a step blew up: CLT_ERR_DIVERGED, docs/stepping.md "Divergence"),
 * 128 + signal number when interrupted by SIGINT (130) or SIGTERM (143). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clatter/clatter.h"
#include "clatter/output.h"
#include "clatter/scene.h"
#include "commands.h"

static volatile sig_atomic_t stop_signal = 0;

/* First SIGINT/SIGTERM: finish the current step and close the output cleanly. A second one (a
 * step that never ends) kills the process at once, leaving only the .tmp files. */
static void on_signal(int signo) {
  if (stop_signal) {
    signal(signo, SIG_DFL);
    raise(signo);
    return;
  }
  stop_signal = signo;
}

static void usage(FILE *out) {
  fprintf(out,
          "usage: clatter run [SCENE.json | ROBOT.urdf] [options]\n"
          "\n"
          "Runs SCENE.json (without it: the built-in default scene, scenes/examples/default.json)\n"
          "and writes trajectories and per-step diagnostics to OUT.h5 and OUT.csv. ROBOT.urdf runs the\n"
          "robot alone, its base fixed on a ground plane, 2 s at h = 1 ms (docs/shapes.md \"URDF\").\n"
          "\n"
          "options:\n"
          "  -o, --output OUT.h5      output file (default: the scene's output.path, a path relative\n"
          "                           to the current folder, else <name>.h5)\n"
          "  --overwrite              replace OUT.h5 / OUT.csv if they exist (without it: an error)\n"
          "  --set PATH=VALUE         override any scene field by JSON path, e.g. method.scheme=none,\n"
          "                           bodies[0].mass=2 (VALUE is JSON if it parses, else a string)\n"
          "  --param NAME=VALUE       override a declared scene parameter\n"
          "  --checkpoint-every N     store the full state every N steps (for --resume; a resumed\n"
          "                           run keeps the interval it was started with)\n"
          "  --resume OUT.h5          continue an interrupted run from its last checkpoint (also a\n"
          "                           run killed before it closed: give its final name)\n"
          "  --start-from RUN.h5      start from RUN.h5's last checkpoint instead of the scene's\n"
          "                           initial state, into a new file (-o, required): a branch with\n"
          "                           other settings (--set; without SCENE.json, RUN.h5's own scene);\n"
          "                           the bodies must be the same, duration is the end time\n"
          "  --max-steps N            stop after N steps of this invocation (status interrupted,\n"
          "                           a checkpoint is written so --resume can continue)\n"
          "  -q, --quiet              no progress bar and no closing summary line (the count of\n"
          "                           steps not solved to the tolerance is still reported)\n"
          "  -h, --help               this text\n"
          "\n"
          "Exit status: 0 done, 1 runtime failure, 2 bad input, 3 diverged, 130 interrupted (Ctrl-C).\n"
          "Formats: docs/scene-format.md, docs/output-format.md.\n");
}

typedef struct run_args_t {
  const char *scene_path;
  const char *output_path;
  const char *resume_path;
  const char *start_path;
  const char **sets;
  int set_count;
  const char **params;
  int param_count;
  long long checkpoint_every;
  long long max_steps;
  bool quiet;
  bool overwrite;
} run_args_t;

static bool parse_count(const char *option, const char *text, long long min, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno || end == text || *end != '\0' || v < min) {
    fprintf(stderr, "clatter run: %s: expected an integer >= %lld (got '%s')\n", option, min, text);
    return false;
  }
  *out = v;
  return true;
}

/* Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, run_args_t *a) {
  a->sets = calloc((size_t)argc + 1, sizeof *a->sets);
  a->params = calloc((size_t)argc + 1, sizeof *a->params);
  a->checkpoint_every = 0;
  a->max_steps = -1;
  if (!a->sets || !a->params) return 1;
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    const char *value = NULL;
    /* Options taking a value accept "--opt VALUE" and "--opt=VALUE". */
    static const char *const valued[] = {"-o",       "--output",    "--set", "--param", "--checkpoint-every",
                                         "--resume", "--max-steps", "--start-from", NULL};
    char name[64] = "";
    for (int k = 0; valued[k]; k++) {
      size_t n = strlen(valued[k]);
      if (strcmp(arg, valued[k]) == 0) {
        if (i + 1 >= argc) {
          fprintf(stderr, "clatter run: %s needs a value\n", arg);
          return 2;
        }
        snprintf(name, sizeof name, "%s", valued[k]);
        value = argv[++i];
      } else if (strncmp(arg, valued[k], n) == 0 && arg[n] == '=' && valued[k][1] == '-') {
        snprintf(name, sizeof name, "%s", valued[k]);
        value = arg + n + 1;
      }
      if (value) break;
    }
    if (value) {
      /* an option given twice is an error, not the last one silently winning (--set and --param
       * repeat by design) */
      static const char *const once[] = {"-o", "--output", "--checkpoint-every", "--resume", "--max-steps",
                                         "--start-from", NULL};
      for (int k = 0; once[k]; k++) {
        if (strcmp(name, once[k]) != 0) continue;
        bool is_output = strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0;
        const char *seen = is_output ? a->output_path
                           : strcmp(name, "--resume") == 0     ? a->resume_path
                           : strcmp(name, "--start-from") == 0 ? a->start_path
                           : strcmp(name, "--max-steps") == 0  ? (a->max_steps >= 0 ? "" : NULL)
                                                               : (a->checkpoint_every > 0 ? "" : NULL);
        if (seen) {
          fprintf(stderr, "clatter run: %s given twice\n", is_output ? "-o/--output" : name);
          return 2;
        }
      }
      if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0) {
        a->output_path = value;
      } else if (strcmp(name, "--set") == 0) {
        a->sets[a->set_count++] = value;
      } else if (strcmp(name, "--param") == 0) {
        a->params[a->param_count++] = value;
      } else if (strcmp(name, "--checkpoint-every") == 0) {
        if (!parse_count(name, value, 1, &a->checkpoint_every)) return 2;
      } else if (strcmp(name, "--resume") == 0) {
        a->resume_path = value;
      } else if (strcmp(name, "--start-from") == 0) {
        a->start_path = value;
      } else if (strcmp(name, "--max-steps") == 0) {
        if (!parse_count(name, value, 0, &a->max_steps)) return 2;
      }
      continue;
    }
    if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
      a->quiet = true;
    } else if (strcmp(arg, "--overwrite") == 0) {
      a->overwrite = true;
    } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      fprintf(stderr, "clatter run: unknown option '%s' (see clatter run --help)\n", arg);
      return 2;
    } else if (a->scene_path) {
      fprintf(stderr, "clatter run: more than one scene given ('%s', '%s')\n", a->scene_path, arg);
      return 2;
    } else {
      a->scene_path = arg;
    }
  }
  if (a->resume_path &&
      (a->scene_path || a->output_path || a->set_count || a->param_count || a->start_path || a->overwrite)) {
    fprintf(stderr,
            "clatter run: --resume takes the scene and output from the run file; it cannot be combined "
            "with a scene, -o, --set, --param, --start-from or --overwrite\n");
    return 2;
  }
  if (a->start_path && !a->output_path) {
    fprintf(stderr, "clatter run: --start-from %s needs -o OUT.h5 (the run file it starts from is not changed)\n",
            a->start_path);
    return 2;
  }
  return -1;
}

/* ---------------------------------------------------------------------------------------------
 * Progress bar (stderr, only on a terminal) */

typedef struct progress_t {
  bool enabled;
  bool drawn;
  double start;
  double last;
  int64_t first_step;
} progress_t;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void format_duration(double s, char *buf, size_t size) {
  if (!(s >= 0) || s > 359999) {
    snprintf(buf, size, "--:--");
    return;
  }
  long total = (long)(s + 0.5);
  if (total >= 3600) {
    snprintf(buf, size, "%ld:%02ld:%02ld", total / 3600, (total / 60) % 60, total % 60);
  } else {
    snprintf(buf, size, "%ld:%02ld", total / 60, total % 60);
  }
}

static void progress_update(progress_t *p, int64_t step, int64_t total, double t, bool force) {
  if (!p->enabled) return;
  double now = now_s();
  if (!force && now - p->last < 0.1) return;
  p->last = now;
  double fraction = total > 0 ? (double)step / (double)total : 1;
  int width = 30, filled = (int)(fraction * width);
  char bar[64];
  for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
  bar[width] = '\0';
  double elapsed = now - p->start;
  int64_t done = step - p->first_step;
  double eta = done > 0 ? elapsed * (double)(total - step) / (double)done : -1;
  char eta_text[32], elapsed_text[32];
  format_duration(eta, eta_text, sizeof eta_text);
  format_duration(elapsed, elapsed_text, sizeof elapsed_text);
  fprintf(stderr, "\r[%s] %3d%%  step %lld/%lld  t = %.4g s  elapsed %s  ETA %s\033[K", bar,
          (int)(100 * fraction), (long long)step, (long long)total, t, elapsed_text, eta_text);
  fflush(stderr);
  p->drawn = true;
}

static void progress_clear(progress_t *p) {
  if (p->enabled && p->drawn) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    p->drawn = false;
  }
}

static progress_t *log_progress = NULL;

static void log_to_stderr(void *user, clt_log_level_t level, const char *message) {
  (void)user;
  if (level < CLT_LOG_WARNING) return;
  if (log_progress) progress_clear(log_progress);
  fprintf(stderr, "clatter: %s: %s\n", level == CLT_LOG_ERROR ? "error" : "warning", message);
}

/* ---------------------------------------------------------------------------------------------
 * The run */

static int exit_for_status(clt_status_t s) { return s == CLT_ERR_OUT_OF_MEMORY ? 1 : 2; }

/* Steps whose solve did not meet the tolerance (solver status other than none and solved), for
 * the end-of-run report that every policy of method.on_unconverged gets. */
typedef struct unconverged_t {
  long long count;
  long long by_status[CLT_SOLVE_NOT_CONVERGED + 1];
  int64_t first_step, worst_step;
  double worst_residual;
} unconverged_t;

static void note_unconverged(unconverged_t *u, clt_world_t *world) {
  clt_diagnostics_t d;
  if (clt_world_get_diagnostics(world, &d) != CLT_OK) return;
  if (d.solver_status == CLT_SOLVE_NONE || d.solver_status == CLT_SOLVE_SOLVED) return;
  if (u->count == 0) u->first_step = d.step;
  u->count++;
  if ((int)d.solver_status >= 0 && d.solver_status <= CLT_SOLVE_NOT_CONVERGED) u->by_status[d.solver_status]++;
  if (u->count == 1 || d.residual > u->worst_residual || (isnan(d.residual) && !isnan(u->worst_residual))) {
    u->worst_residual = d.residual;
    u->worst_step = d.step;
  }
}

/* clt_output_run's callbacks: a signal interrupts the run; each step updates the progress line and
 * the unconverged steps' statistics. */
typedef struct run_watch_t {
  progress_t *progress;
  unconverged_t *unconverged;
  int64_t total;
} run_watch_t;

static int run_stop(void *user) {
  (void)user;
  return (int)stop_signal;
}

static void run_stepped(void *user, clt_world_t *world) {
  run_watch_t *watch = user;
  note_unconverged(watch->unconverged, world);
  progress_update(watch->progress, clt_world_step_count(world), watch->total, clt_world_time(world), false);
}

/* "clatter run: 10 of 500 steps not solved to the tolerance 1e-10 (not_converged 10): worst
 * residual 4.1e-09 at step 37, first at step 12" (stderr). */
static void report_unconverged(const unconverged_t *u, long long steps, double tolerance) {
  if (u->count == 0) return;
  char kinds[256] = "";
  size_t used = 0;
  for (int k = 0; k <= CLT_SOLVE_NOT_CONVERGED; k++) {
    if (u->by_status[k] == 0) continue;
    int n = snprintf(kinds + used, sizeof kinds - used, "%s%s %lld", used ? ", " : "",
                     clt_solver_status_name((clt_solver_status_t)k), u->by_status[k]);
    if (n < 0 || (size_t)n >= sizeof kinds - used) break;
    used += (size_t)n;
  }
  fprintf(stderr,
          "clatter run: %lld of %lld steps not solved to the tolerance %.3g (%s): worst residual %.3g at step %lld, "
          "first at step %lld\n",
          u->count, steps, tolerance, kinds, u->worst_residual, (long long)u->worst_step, (long long)u->first_step);
}

/* The message of a failed call, or the status's name when the call left it empty (out of memory):
 * no error is printed without a reason. */
static const char *reason(const char *message, clt_status_t status) {
  return message[0] ? message : clt_status_name(status);
}

/* A relative path that stays inside the current folder: no leading '/', no ".." component. */
static bool relative_inside(const char *path) {
  if (path[0] == '/') return false;
  for (const char *p = path; *p;) {
    const char *end = strchr(p, '/');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n == 2 && p[0] == '.' && p[1] == '.') return false;
    if (!end) break;
    p = end + 1;
  }
  return true;
}

/* Whether two paths name the same existing file. */
static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* --start-from: the world (built from the scene) takes the run file's last checkpoint. Returns 0,
 * or the exit status with a message. */
static int start_from(const run_args_t *args, const clt_scene_t *scene, clt_world_t *world, char *message,
                      size_t size) {
  if (same_file(args->start_path, args->output_path)) {
    snprintf(message, size, "-o %s is the run file given to --start-from; write the branch to another file",
             args->output_path);
    return 2;
  }
  int64_t step = -1;
  char reason[2048] = "";
  clt_status_t status = clt_output_load_checkpoint(args->start_path, world, &step, reason, sizeof reason);
  if (status != CLT_OK) {
    snprintf(message, size, "cannot start from: %s", reason);
    return exit_for_status(status);
  }
  int64_t total = clt_scene_step_count(scene);
  if (step >= total) {
    snprintf(message, size,
             "cannot start from: %s: its checkpoint is at step %lld (t = %.6g s), at or past the scene's end "
             "(step %lld, duration %.6g s): nothing to run; give a later end with --set duration=...",
             args->start_path, (long long)step, clt_world_time(world), (long long)total, clt_scene_duration(scene));
    return 2;
  }
  return 0;
}

static int run(int argc, char **argv) {
  run_args_t args = {0};
  int code = parse_args(argc, argv, &args);
  if (code >= 0) {
    free(args.sets);
    free(args.params);
    return code;
  }
  char message[2048] = "";
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  clt_colony_t *colony = NULL; /* a scene with a "colony" block: the cells grow and divide */
  clt_output_t *out = NULL;
  clt_status_t status;
  if (args.resume_path) {
    status = clt_output_resume_colony(args.resume_path, log_to_stderr, NULL, &scene, &world, &colony, &out, message,
                                      sizeof message);
    if (status != CLT_OK) {
      fprintf(stderr, "clatter run: cannot resume: %s\n", message[0] ? message : clt_status_name(status));
      free(args.sets);
      free(args.params);
      return exit_for_status(status);
    }
    /* the interval the run was started with, unless this invocation gives one */
    if (args.checkpoint_every == 0) args.checkpoint_every = clt_output_checkpoint_every(out);
    else if (clt_output_set_checkpoint_every(out, args.checkpoint_every) != CLT_OK)
      fprintf(stderr, "clatter run: warning: could not record the checkpoint interval\n");
  } else {
    clt_scene_overrides_t overrides = {args.sets, args.set_count, args.params, args.param_count};
    char *stored = NULL;
    const char *prefix = ""; /* of the message of a scene that could not be read */
    size_t path_length = args.scene_path ? strlen(args.scene_path) : 0;
    if (args.scene_path && path_length > 5 && strcmp(args.scene_path + path_length - 5, ".urdf") == 0) {
      /* A robot alone (docs/shapes.md "URDF"): its fixed base on a ground plane, 2 s at h = 1 ms;
       * --set changes any of it (urdf[0].fixed_base=false, duration=10, ...). */
      char text[8192], name[256];
      const char *base = strrchr(args.scene_path, '/');
      base = base ? base + 1 : args.scene_path;
      snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 5), base);
      for (char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-')) *c = '_';
      snprintf(text, sizeof text,
               "{\"name\": \"%s\", \"dimension\": 3, \"time_step\": 0.001, \"duration\": 2.0, \"bodies\": "
               "[{\"name\": \"ground\", \"type\": \"static\", \"shape\": {\"type\": \"halfspace\", \"normal\": [0, 0, 1]}}], "
               "\"urdf\": [{\"file\": \"%s\"}]}",
               name, base);
      status = clt_scene_parse(text, args.scene_path, &overrides, &scene, message, sizeof message);
    } else if (args.scene_path) {
      status = clt_scene_load(args.scene_path, &overrides, &scene, message, sizeof message);
    } else if (args.start_path) {
      stored = clt_output_read_scene_json(args.start_path, message, sizeof message);
      status = CLT_ERR_FORMAT;
      if (stored) {
        char source[4200];
        snprintf(source, sizeof source, "%s:/scene", args.start_path);
        status = clt_scene_parse(stored, source, &overrides, &scene, message, sizeof message);
        free(stored);
      }
      if (status != CLT_OK) prefix = "clatter run: cannot start from: ";
    } else {
      status = clt_scene_parse(clt_scene_default_json(), "default.json (built-in)", &overrides, &scene,
                               message, sizeof message);
    }
    free(args.sets);
    free(args.params);
    args.sets = NULL;
    args.params = NULL;
    if (status != CLT_OK) {
      fprintf(stderr, "%s%s\n", prefix, reason(message, status));
      return exit_for_status(status);
    }
    /* What the scene's URDF models carry and clatter does not use (docs/shapes.md "URDF"). */
    for (const char *n = clt_scene_notes(scene); !args.quiet && *n;) {
      const char *end = strchr(n, '\n');
      int len = end ? (int)(end - n) : (int)strlen(n);
      fprintf(stderr, "clatter run: note: %.*s\n", len, n);
      n += len + (end ? 1 : 0);
    }
    status = clt_scene_create_world(scene, log_to_stderr, NULL, &world, message, sizeof message);
    if (status != CLT_OK) {
      fprintf(stderr, "%s\n", reason(message, status));
      clt_scene_destroy(scene);
      return exit_for_status(status);
    }
    if (clt_scene_colony(scene) && args.start_path) {
      fprintf(stderr, "clatter run: --start-from: the scene has a colony, whose cells only a run's own --resume "
                      "restores\n");
      clt_world_destroy(world);
      clt_scene_destroy(scene);
      return 2;
    }
    if (clt_scene_colony(scene)) {
      status = clt_scene_create_colony(scene, world, &colony, message, sizeof message);
      if (status != CLT_OK) {
        fprintf(stderr, "%s\n", reason(message, status));
        clt_world_destroy(world);
        clt_scene_destroy(scene);
        return exit_for_status(status);
      }
    }
    if (args.start_path) {
      int code2 = start_from(&args, scene, world, message, sizeof message);
      if (code2 != 0) {
        fprintf(stderr, "clatter run: %s\n", reason(message, status));
        clt_world_destroy(world);
        clt_scene_destroy(scene);
        return code2;
      }
    }
    char default_path[600];
    const char *path = args.output_path;
    if (!path && clt_scene_output(scene)->path[0]) {
      path = clt_scene_output(scene)->path;
      if (!relative_inside(path)) {
        fprintf(stderr,
                "%s: output.path: \"%s\" is not a path inside the current folder (no leading /, no ..); "
                "a scene file cannot choose where else to write: give -o on the command line\n",
                args.scene_path ? args.scene_path : "scene", path);
        clt_world_destroy(world);
        clt_scene_destroy(scene);
        return 2;
      }
    }
    if (!path) {
      char stem[512];
      clt_tool_file_stem(clt_scene_name(scene), "run", stem, sizeof stem);
      snprintf(default_path, sizeof default_path, "%s.h5", stem);
      path = default_path;
    }
    status = clt_output_create_flags(path, scene, world, args.overwrite ? CLT_OUTPUT_OVERWRITE : 0u, &out, message,
                                     sizeof message);
    if (status == CLT_OK && colony) status = clt_output_attach_colony(out, colony);
    if (status == CLT_OK && args.checkpoint_every > 0)
      status = clt_output_set_checkpoint_every(out, args.checkpoint_every);
    if (status != CLT_OK) {
      if (out) {
        clt_output_discard(out);
        snprintf(message, sizeof message, "%s: cannot write the output file", path);
      }
      fprintf(stderr, "clatter run: %s\n", reason(message, status));
      clt_colony_destroy(colony);
      clt_world_destroy(world);
      clt_scene_destroy(scene);
      return 1;
    }
  }
  free(args.sets);
  free(args.params);
  /* the world holds the bodies now; the scene's own copies are not needed for the run */
  clt_scene_release_bodies(scene);

  progress_t progress = {0};
  progress.enabled = !args.quiet && isatty(STDERR_FILENO);
  progress.start = now_s();
  progress.first_step = clt_world_step_count(world);
  log_progress = &progress;

  int64_t total = clt_scene_step_count(scene);
  unconverged_t unconverged = {0};
  int64_t first_step = clt_world_step_count(world);
  /* a colony run ends at 2^generations cells, or at the duration */
  const clt_scene_colony_t *colony_block = clt_scene_colony(scene);
  run_watch_t watch = {.progress = &progress, .unconverged = &unconverged, .total = total};
  clt_run_loop_t loop = {.end_step = total,
                         .target_cells = colony_block ? 1 << colony_block->generations : 0,
                         .max_steps = args.max_steps,
                         .checkpoint_every = args.checkpoint_every,
                         .stop = run_stop,
                         .stepped = run_stepped,
                         .user = &watch,
                         .scene = scene};
  clt_run_result_t result;
  clt_output_run(out, world, colony, &loop, &result);
  long long done = (long long)(clt_world_step_count(world) - first_step);
  clt_run_status_t run_status = result.status;
  char status_message[1024];
  snprintf(status_message, sizeof status_message, "%s", result.message);
  int exit_code = 0;
  if (run_status == CLT_RUN_INTERRUPTED && result.stop_code != 0) {
    snprintf(status_message, sizeof status_message, "interrupted by signal %d", result.stop_code);
    exit_code = 128 + result.stop_code;
  } else if (run_status == CLT_RUN_INTERRUPTED) {
    snprintf(status_message, sizeof status_message, "stopped after --max-steps %lld", args.max_steps);
  } else if (run_status == CLT_RUN_DIVERGED) {
    exit_code = 3;
  } else if (run_status == CLT_RUN_ERROR) {
    exit_code = 1;
  }
  /* A signal during the last step: the run is complete anyway. */
  if (run_status == CLT_RUN_COMPLETE) stop_signal = 0;
  if (result.warning[0]) fprintf(stderr, "clatter run: warning: %s\n", result.warning);
  progress_update(&progress, clt_world_step_count(world), total, clt_world_time(world), true);
  progress_clear(&progress);
  log_progress = NULL;

  char h5_path[4096], csv_path[4096];
  snprintf(h5_path, sizeof h5_path, "%s", clt_output_path(out));
  snprintf(csv_path, sizeof csv_path, "%s", clt_output_csv_file(out));
  status = clt_output_close(out, run_status, status_message, message, sizeof message);
  if (status != CLT_OK) {
    fprintf(stderr, "clatter run: %s\n", reason(message, status));
    if (exit_code == 0) exit_code = 1;
  }
  report_unconverged(&unconverged, done, clt_world_method(world)->tolerance);
  if (run_status == CLT_RUN_ERROR) {
    fprintf(stderr, "clatter run: %s\n", status_message);
  } else if (run_status == CLT_RUN_DIVERGED) {
    fprintf(stderr, "clatter run: diverged: %s\n", status_message);
  } else if (run_status == CLT_RUN_INTERRUPTED && exit_code != 0) {
    fprintf(stderr, "clatter run: interrupted at step %lld of %lld; continue with: clatter run --resume %s\n",
            (long long)clt_world_step_count(world), (long long)total, h5_path);
  }
  if (!args.quiet && status == CLT_OK) {
    char cells[64] = "";
    if (colony) snprintf(cells, sizeof cells, ", %d cells", clt_colony_cell_count(colony));
    printf("%s: %s, %lld of %lld steps, t = %.6g s%s -> %s%s%s\n", clt_scene_name(scene),
           clt_run_status_name(run_status), (long long)clt_world_step_count(world), (long long)total,
           clt_world_time(world), cells, h5_path, csv_path[0] ? ", " : "", csv_path);
  }
  clt_colony_destroy(colony);
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return exit_code;
}

int clt_cmd_run(int argc, char **argv) {
  /* Installed before anything else, so a signal at any moment ends in a valid output file
   * (interrupted at step 0 at the earliest). Installed even where the shell set SIGINT to be
   * ignored (background jobs): the run must stay stoppable by it. */
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  stop_signal = 0;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  int code = run(argc, argv);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  return code;
}
