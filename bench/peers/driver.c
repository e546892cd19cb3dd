/* bench/peers driver: runs every engine on every scene, each run in its own child process (so a
 * crash, an engine's exit() or its memory never leaks into another row, and peak RSS is per run),
 * and prints one Markdown table (stdout) and optionally a CSV file. README.md documents the
 * scenes, the engines' settings and every column. */
#define _POSIX_C_SOURCE 200809L
#include "peers.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef enum run_status_t {
  RUN_OK,
  RUN_CANNOT_BUILD, /* create refused: unsupported or failed */
  RUN_STOPPED,      /* a step failed or the engine detected lost constraints */
  RUN_WALL_LIMIT,   /* stopped by --max-wall after some steps (the numbers cover those) */
  RUN_CRASHED
} run_status_t;

/* The common result record: one per (scene, engine). Plain data, sent from the child through a
 * pipe. */
typedef struct peers_result_t {
  char scene[32];
  char engine[16];
  int bodies;
  int steps_planned;
  int steps_run;
  run_status_t status;
  char why[320];
  double setup_s;
  int first_steps;         /* steps in the "first" window (min(--first, steps run)) */
  double wall_first_s;     /* wall time of those steps */
  double wall_total_s;     /* wall time of every step call */
  double cpu_total_s;      /* process CPU time of every step call */
  double max_penetration;  /* [m], max over sampled states */
  double end_penetration;  /* [m], final state */
  double max_joint_error;  /* [m], max over sampled states (scenes with joints) */
  double ke_end, ke_peak;  /* [J] */
  double ke_end_rotational; /* [J] rotational part of ke_end */
  int at_rest;             /* ke_end < max(1e-6 ke_peak, ½ M (1 µm/s)²) */
  double rest_since;       /* [s] time from which every sample stays below the threshold */
  double top_drift;        /* [m] horizontal offset of the top body at the end (stack, tower); the tip's
                              sag at the end (cantilever) */
  long rss_peak_kb, rss_base_kb;
} peers_result_t;

typedef struct driver_options_t {
  peers_options_t engine;
  int first;          /* window for the "first steps" timing, 300 */
  int sample_every;   /* ≤ 0: per-scene default */
  double duration;    /* ≤ 0: per-scene default */
  double max_wall;    /* per run [s]; ≤ 0: none */
} driver_options_t;

static double now(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long max_rss_kb(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

static int build_scene(peers_scene_t *scene, const char *kind, int n, double duration) {
  if (strcmp(kind, "pile") == 0) return peers_scene_pile(scene, n, duration);
  if (strcmp(kind, "stack") == 0) return peers_scene_stack(scene, duration);
  if (strcmp(kind, "chain") == 0) return peers_scene_chain(scene, duration);
  if (strcmp(kind, "tower") == 0) return peers_scene_tower(scene, duration);
  if (strcmp(kind, "cantilever") == 0) return peers_scene_cantilever(scene, duration);
  if (strcmp(kind, "polystack") == 0) return peers_scene_polystack(scene, duration);
  if (strcmp(kind, "polypile") == 0) return peers_scene_polypile(scene, n, duration);
  return -1;
}

/* Runs one engine on one scene in the current (child) process. */
static void run_one(const peers_engine_t *engine, const char *kind, int n, const driver_options_t *opt,
                    peers_result_t *r) {
  r->rss_base_kb = max_rss_kb();
  peers_scene_t scene;
  if (build_scene(&scene, kind, n, opt->duration) != 0) {
    r->status = RUN_CANNOT_BUILD;
    snprintf(r->why, sizeof r->why, "out of memory building the scene");
    return;
  }
  snprintf(r->scene, sizeof r->scene, "%s", scene.name);
  r->bodies = scene.body_count;
  r->steps_planned = scene.steps;
  int sample_every = opt->sample_every > 0 ? opt->sample_every : (scene.kind == PEERS_PILE || scene.kind == PEERS_POLYPILE ? 5 : 1);

  double t0 = now(CLOCK_MONOTONIC);
  void *e = engine->create(&scene, &opt->engine, r->why, sizeof r->why);
  r->setup_s = now(CLOCK_MONOTONIC) - t0;
  if (!e) {
    r->status = RUN_CANNOT_BUILD;
    r->rss_peak_kb = max_rss_kb();
    peers_scene_free(&scene);
    return;
  }
  peers_state_t *states = malloc((size_t)scene.body_count * sizeof *states);
  int samples_max = scene.steps / sample_every + 2;
  double *ke_samples = malloc((size_t)samples_max * sizeof *ke_samples);
  double *t_samples = malloc((size_t)samples_max * sizeof *t_samples);
  if (!states || !ke_samples || !t_samples) {
    r->status = RUN_CANNOT_BUILD;
    snprintf(r->why, sizeof r->why, "out of memory");
    engine->destroy(e);
    peers_scene_free(&scene);
    free(states);
    free(ke_samples);
    free(t_samples);
    return;
  }
  int samples = 0;
  engine->get_states(e, states);
  ke_samples[samples] = peers_kinetic_energy(&scene, states);
  t_samples[samples++] = 0.0;
  r->ke_peak = ke_samples[0];
  r->max_penetration = peers_max_penetration(&scene, states);
  r->max_joint_error = peers_max_joint_error(&scene, states);

  double run_start = now(CLOCK_MONOTONIC);
  r->status = RUN_OK;
  for (int step = 1; step <= scene.steps; ++step) {
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    int rc = engine->step(e, r->why, sizeof r->why);
    double c1 = now(CLOCK_PROCESS_CPUTIME_ID), w1 = now(CLOCK_MONOTONIC);
    if (rc == 0 && engine->after_step) rc = engine->after_step(e, r->why, sizeof r->why);
    if (rc != 0) {
      r->status = RUN_STOPPED;
      char tail[sizeof r->why];
      memcpy(tail, r->why, sizeof tail);
      tail[sizeof tail - 1] = 0;
      snprintf(r->why, sizeof r->why, "step %d: %.290s", step, tail);
      break;
    }
    r->steps_run = step;
    r->wall_total_s += w1 - w0;
    r->cpu_total_s += c1 - c0;
    if (step <= opt->first) {
      r->first_steps = step;
      r->wall_first_s += w1 - w0;
    }
    if (step % sample_every == 0 || step == scene.steps) {
      engine->get_states(e, states);
      double ke = peers_kinetic_energy(&scene, states);
      ke_samples[samples] = ke;
      t_samples[samples++] = step * scene.time_step;
      if (ke > r->ke_peak) r->ke_peak = ke;
      double pen = peers_max_penetration(&scene, states);
      if (!(pen <= r->max_penetration)) r->max_penetration = pen;
      double je = peers_max_joint_error(&scene, states);
      if (!(je <= r->max_joint_error)) r->max_joint_error = je;
    }
    if (opt->max_wall > 0 && now(CLOCK_MONOTONIC) - run_start > opt->max_wall && step < scene.steps) {
      r->status = RUN_WALL_LIMIT;
      snprintf(r->why, sizeof r->why, "stopped by --max-wall %g s after %d of %d steps", opt->max_wall,
               step, scene.steps);
      break;
    }
  }
  if (r->status == RUN_OK || r->status == RUN_WALL_LIMIT) {
    engine->get_states(e, states);
    r->ke_end = peers_kinetic_energy_split(&scene, states, &r->ke_end_rotational);
    r->end_penetration = peers_max_penetration(&scene, states);
    if (!(r->end_penetration <= r->max_penetration)) r->max_penetration = r->end_penetration;
    /* at rest: below 10⁻⁶ of the peak, or below ½ M (1 µm/s)², so that a scene which starts at
     * rest and stays there (the peak itself tiny) counts as at rest */
    double total_mass = 0.0;
    for (int i = 0; i < scene.body_count; i++) total_mass += scene.bodies[i].mass;
    double threshold = fmax(1e-6 * r->ke_peak, 0.5 * total_mass * 1e-12);
    r->at_rest = r->ke_end < threshold;
    r->rest_since = NAN;
    if (r->at_rest) {
      int last_above = -1;
      for (int k = 0; k < samples; ++k)
        if (!(ke_samples[k] < threshold)) last_above = k;
      if (last_above + 1 < samples) r->rest_since = t_samples[last_above + 1];
    }
    if (scene.kind == PEERS_STACK || scene.kind == PEERS_TOWER || scene.kind == PEERS_POLYSTACK) {
      const peers_body_t *top = &scene.bodies[scene.body_count - 1];
      double dx = states[scene.body_count - 1].position[0] - top->position[0];
      double dy = states[scene.body_count - 1].position[1] - top->position[1];
      r->top_drift = sqrt(dx * dx + dy * dy);
    } else if (scene.kind == PEERS_CANTILEVER) { /* the tip's sag: how far it went down */
      r->top_drift = scene.bodies[scene.body_count - 1].position[2] - states[scene.body_count - 1].position[2];
    } else {
      r->top_drift = NAN;
    }
  }
  if (r->status == RUN_OK && engine->note) engine->note(e, r->why, sizeof r->why);
  r->rss_peak_kb = max_rss_kb();
  engine->destroy(e);
  peers_scene_free(&scene);
  free(states);
  free(ke_samples);
  free(t_samples);
}

/* Forks, runs, collects. A child that dies leaves a RUN_CRASHED record. */
static void run_isolated(const peers_engine_t *engine, const char *kind, int n, const driver_options_t *opt,
                         peers_result_t *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->engine, sizeof r->engine, "%s", engine->name);
  if (strcmp(kind, "pile") == 0 || strcmp(kind, "polypile") == 0)
    snprintf(r->scene, sizeof r->scene, "%s%d", kind, n);
  else
    snprintf(r->scene, sizeof r->scene, "%s",
             strcmp(kind, "stack") == 0        ? "stack10"
             : strcmp(kind, "tower") == 0      ? "tower20"
             : strcmp(kind, "cantilever") == 0 ? "cantilever10"
             : strcmp(kind, "polystack") == 0  ? "polystack10"
                                               : "chain6");
  int fd[2];
  fflush(stdout);
  fflush(stderr);
  if (pipe(fd) != 0) {
    r->status = RUN_CRASHED;
    snprintf(r->why, sizeof r->why, "pipe: %s", strerror(errno));
    return;
  }
  pid_t pid = fork();
  if (pid < 0) {
    r->status = RUN_CRASHED;
    snprintf(r->why, sizeof r->why, "fork: %s", strerror(errno));
    close(fd[0]);
    close(fd[1]);
    return;
  }
  if (pid == 0) {
    close(fd[0]);
    /* Engines' own chatter (MuJoCo, ODE) goes to stderr, never into the table on stdout. */
    dup2(STDERR_FILENO, STDOUT_FILENO);
    peers_result_t mine = *r;
    run_one(engine, kind, n, opt, &mine);
    const char *p = (const char *)&mine;
    size_t left = sizeof mine;
    while (left > 0) {
      ssize_t w = write(fd[1], p, left);
      if (w <= 0) _exit(3);
      p += w;
      left -= (size_t)w;
    }
    _exit(0);
  }
  close(fd[1]);
  peers_result_t got;
  size_t have = 0;
  /* --max-wall is checked between steps; a single step (or a build) far longer than that is cut
   * here: no result after 3 × max-wall + 60 s kills the child. */
  double hard_limit = opt->max_wall > 0 ? 3 * opt->max_wall + 60 : -1, started = now(CLOCK_MONOTONIC);
  int killed = 0;
  while (have < sizeof got) {
    if (hard_limit > 0) {
      double left = hard_limit - (now(CLOCK_MONOTONIC) - started);
      struct pollfd p = {fd[0], POLLIN, 0};
      int ready = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        kill(pid, SIGKILL);
        killed = 1;
        break;
      }
    }
    ssize_t k = read(fd[0], (char *)&got + have, sizeof got - have);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    have += (size_t)k;
  }
  close(fd[0]);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (have == sizeof got) {
    *r = got;
    return;
  }
  if (killed) {
    r->status = RUN_WALL_LIMIT;
    snprintf(r->why, sizeof r->why, "killed: no result within %.0f s (3 × --max-wall + 60 s); nothing measured",
             hard_limit);
    return;
  }
  r->status = RUN_CRASHED;
  if (WIFSIGNALED(wstatus))
    snprintf(r->why, sizeof r->why, "signal %d (%s)", WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
  else
    snprintf(r->why, sizeof r->why, "exited with status %d without a result", WEXITSTATUS(wstatus));
}

static const char *status_word(run_status_t s) {
  switch (s) {
    case RUN_OK: return "ok";
    case RUN_CANNOT_BUILD: return "cannot run";
    case RUN_STOPPED: return "stopped";
    case RUN_WALL_LIMIT: return "partial";
    case RUN_CRASHED: return "crashed";
  }
  return "?";
}

static void fmt(char *buf, size_t size, const char *format, double value, int valid) {
  if (!valid || !isfinite(value))
    snprintf(buf, size, "—");
  else
    snprintf(buf, size, format, value);
}

static void print_markdown_header(FILE *f, int first) {
  fprintf(f, "| scene | engine | bodies | steps | ms/step (first %d) | ms/step (all) | CPU ms/step (all) | max pen. [mm] | pen. at end [mm] | "
             "max joint err. [mm] | KE end [J] | KE end / peak | at rest (since t [s]) | top drift [mm] | peak RSS [MB] | "
             "status |\n",
          first);
  fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n");
}

static void md_escape(const char *in, char *out, size_t size) {
  size_t k = 0;
  for (; *in && k + 2 < size; ++in) {
    if (*in == '|') out[k++] = '\\';
    out[k++] = *in == '\n' ? ' ' : *in;
  }
  out[k] = 0;
}

static void print_markdown_row(FILE *f, const peers_result_t *r) {
  int measured = r->status == RUN_OK || (r->status == RUN_WALL_LIMIT && r->steps_run > 0);
  /* A run stopped by a failing step still timed the steps before it, unless the engine refused the
   * scene's physics (then those were steps of a different problem). */
  int timed = measured || (r->status == RUN_STOPPED && r->steps_run > 0 && !strstr(r->why, "unsupported") &&
                          !strstr(r->why, "no answer"));
  char first[32], all[32], cpu[32], pen[32], pen_end[32], joint[32], ke[32], ratio[32], rest[48], drift[32], rss[32];
  fmt(first, sizeof first, "%.3f", r->first_steps > 0 ? 1e3 * r->wall_first_s / r->first_steps : NAN,
      timed && r->first_steps > 0);
  fmt(all, sizeof all, "%.3f", r->steps_run > 0 ? 1e3 * r->wall_total_s / r->steps_run : NAN,
      timed && r->steps_run > 0);
  fmt(cpu, sizeof cpu, "%.3f", r->steps_run > 0 ? 1e3 * r->cpu_total_s / r->steps_run : NAN,
      timed && r->steps_run > 0);
  fmt(pen, sizeof pen, "%.3f", 1e3 * r->max_penetration, measured);
  fmt(pen_end, sizeof pen_end, "%.3f", 1e3 * r->end_penetration, measured);
  fmt(joint, sizeof joint, "%.4f", 1e3 * r->max_joint_error,
      measured && (strncmp(r->scene, "chain", 5) == 0 || strncmp(r->scene, "cantilever", 10) == 0));
  fmt(ke, sizeof ke, "%.3e", r->ke_end, measured);
  fmt(ratio, sizeof ratio, "%.1e", r->ke_peak > 0 ? r->ke_end / r->ke_peak : NAN, measured);
  if (!measured)
    snprintf(rest, sizeof rest, "—");
  else if (r->at_rest && isfinite(r->rest_since))
    snprintf(rest, sizeof rest, "yes (%.2f)", r->rest_since);
  else
    snprintf(rest, sizeof rest, "%s", r->at_rest ? "yes" : "no");
  fmt(drift, sizeof drift, "%.3f", 1e3 * r->top_drift,
      measured && (strncmp(r->scene, "stack", 5) == 0 || strncmp(r->scene, "tower", 5) == 0 ||
                   strncmp(r->scene, "polystack", 9) == 0 ||
                   strncmp(r->scene, "cantilever", 10) == 0));
  fmt(rss, sizeof rss, "%.1f", r->rss_peak_kb / 1024.0, r->rss_peak_kb > 0);
  char status[400], why[360];
  md_escape(r->why, why, sizeof why);
  if (r->status == RUN_OK)
    snprintf(status, sizeof status, "ok%s%s", r->why[0] ? ": " : "", why);
  else
    snprintf(status, sizeof status, "%s: %s", status_word(r->status), why);
  fprintf(f, "| %s | %s | %d | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->scene,
          r->engine, r->bodies, r->steps_run, r->steps_planned, first, all, cpu, pen, pen_end, joint, ke, ratio, rest,
          drift, rss, status);
  fflush(f);
}

static void csv_quote(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void print_csv_header(FILE *f) {
  fprintf(f, "scene,engine,bodies,steps_planned,steps_run,status,first_steps,ms_per_step_first,ms_per_step_all,"
             "cpu_ms_per_step_all,setup_s,max_penetration_m,end_penetration_m,max_joint_error_m,ke_end_j,"
             "ke_end_rotational_j,ke_peak_j,"
             "at_rest,rest_since_s,top_drift_m,peak_rss_kb,base_rss_kb,why\n");
}

static void print_csv_row(FILE *f, const peers_result_t *r) {
  int measured = r->status == RUN_OK || (r->status == RUN_WALL_LIMIT && r->steps_run > 0);
  int timed = measured || (r->status == RUN_STOPPED && r->steps_run > 0 && !strstr(r->why, "unsupported") &&
                          !strstr(r->why, "no answer"));
  fprintf(f, "%s,%s,%d,%d,%d,%s,%d,", r->scene, r->engine, r->bodies, r->steps_planned, r->steps_run,
          status_word(r->status), r->first_steps);
  if (measured) {
    fprintf(f, "%.6g,%.6g,%.6g,%.4g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%.4g,%.6g,",
            r->first_steps ? 1e3 * r->wall_first_s / r->first_steps : NAN,
            r->steps_run ? 1e3 * r->wall_total_s / r->steps_run : NAN,
            r->steps_run ? 1e3 * r->cpu_total_s / r->steps_run : NAN, r->setup_s, r->max_penetration,
            r->end_penetration, r->max_joint_error, r->ke_end, r->ke_end_rotational, r->ke_peak, r->at_rest, r->rest_since, r->top_drift);
  } else if (timed) {
    fprintf(f, "%.6g,%.6g,%.6g,%.4g,,,,,,,,,,", r->first_steps ? 1e3 * r->wall_first_s / r->first_steps : NAN,
            1e3 * r->wall_total_s / r->steps_run, 1e3 * r->cpu_total_s / r->steps_run, r->setup_s);
  } else {
    fprintf(f, ",,,%.4g,,,,,,,,,,", r->setup_s);
  }
  fprintf(f, "%ld,%ld,", r->rss_peak_kb, r->rss_base_kb);
  csv_quote(f, r->why);
  fputc('\n', f);
  fflush(f);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: peers [options]\n"
          "  --scenes LIST        comma list of pile,stack,chain,tower,cantilever,polystack,polypile\n"
          "                       (default all of them)\n"
          "  --n LIST             pile sizes, comma list (default 1000)\n"
          "  --poly-n LIST        polypile sizes, comma list (default 512)\n"
          "  --engines LIST       ode,bullet,mujoco,mujoco-sized,clatter,clatter-fast,clatter-lemke\n"
          "                       (default: ode,bullet,mujoco,clatter,clatter-fast)\n"
          "  --time S             simulated time of every scene (default: per scene, README.md)\n"
          "  --first K            window of the 'first steps' timing column (default 300)\n"
          "  --sample-every K     measure every K steps (default 5 for piles, 1 otherwise)\n"
          "  --max-wall S         stop a run after S seconds of wall time (reported as partial)\n"
          "  --csv FILE           also write the rows as CSV\n"
          "  --bullet-no-sleep    disable Bullet's deactivation (on by default in Bullet)\n"
          "  --ode-iterations K   dWorldQuickStep iterations (default 20)\n"
          "  --mujoco-njmax K     mujoco-sized: largest njmax (default 8000; 2.2 allocates njmax^2 numbers)\n"
          "  --clatter-scheme S, --clatter-solver S, --clatter-tolerance X, --clatter-iterations K\n"
          "                       override engine_clatter.c's method for the piles (the stack, the\n"
          "                       chain and the tower keep theirs; see --clatter-cone)\n"
          "  --clatter-absolute-tolerance  the piles' stop test without the 1 + |b|inf scale\n"
          "                       (method.absolute_tolerance; docs/scene-format.md)\n"
          "  --clatter-relaxation W  the piles' over-relaxation omega in (0, 2) (default 1.5; 1: plain\n"
          "                       Gauss-Seidel)\n"
          "  --clatter-cone C     auto (default), polyhedral or circular: the scenes that take clatter's\n"
          "                       default method (stack, chain, tower); polyhedral also selects Lemke on the\n"
          "                       row stages' friction LCP (engine clatter-lemke does the same)\n");
}

static const peers_engine_t *find_engine(const char *name) {
  static const peers_engine_t *all[] = {&peers_engine_ode,          &peers_engine_bullet,  &peers_engine_mujoco,
                                        &peers_engine_mujoco_sized, &peers_engine_clatter, &peers_engine_clatter_fast,
                                        &peers_engine_clatter_lemke};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k)
    if (strcmp(all[k]->name, name) == 0) return all[k];
  return NULL;
}

#define MAX_LIST 16

static int split(char *text, char *items[MAX_LIST]) {
  int count = 0;
  for (char *save = NULL, *tok = strtok_r(text, ",", &save); tok && count < MAX_LIST;
       tok = strtok_r(NULL, ",", &save))
    items[count++] = tok;
  return count;
}

int main(int argc, char **argv) {
  /* As `clatter run` does (tools/main.c): clatter runs LAPACK on one BLAS thread, and OpenBLAS's
   * idle workers would only add spinning to the CPU time; no other engine here uses OpenBLAS.
   * An explicit OPENBLAS_NUM_THREADS is kept (README.md "BLAS threads"). */
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  driver_options_t opt;
  memset(&opt, 0, sizeof opt);
  opt.first = 300;
  opt.engine.ode_iterations = 20;
  char scenes_text[256] = "pile,stack,chain,tower,cantilever,polystack,polypile", sizes_text[256] = "1000",
       poly_sizes_text[256] = "512", engines_text[256] = "ode,bullet,mujoco,clatter,clatter-fast";
  const char *csv_path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE                                                   \
  do {                                                               \
    if (!v) {                                                        \
      fprintf(stderr, "peers: %s needs a value\n", a);               \
      return 2;                                                      \
    }                                                                \
    ++i;                                                             \
  } while (0)
    if (strcmp(a, "--scenes") == 0) { NEED_VALUE; snprintf(scenes_text, sizeof scenes_text, "%s", v); }
    else if (strcmp(a, "--n") == 0) { NEED_VALUE; snprintf(sizes_text, sizeof sizes_text, "%s", v); }
    else if (strcmp(a, "--poly-n") == 0) { NEED_VALUE; snprintf(poly_sizes_text, sizeof poly_sizes_text, "%s", v); }
    else if (strcmp(a, "--engines") == 0) { NEED_VALUE; snprintf(engines_text, sizeof engines_text, "%s", v); }
    else if (strcmp(a, "--time") == 0) { NEED_VALUE; opt.duration = atof(v); }
    else if (strcmp(a, "--first") == 0) { NEED_VALUE; opt.first = atoi(v); }
    else if (strcmp(a, "--sample-every") == 0) { NEED_VALUE; opt.sample_every = atoi(v); }
    else if (strcmp(a, "--max-wall") == 0) { NEED_VALUE; opt.max_wall = atof(v); }
    else if (strcmp(a, "--csv") == 0) { NEED_VALUE; csv_path = v; }
    else if (strcmp(a, "--bullet-no-sleep") == 0) opt.engine.bullet_no_sleep = true;
    else if (strcmp(a, "--mujoco-njmax") == 0) { NEED_VALUE; opt.engine.mujoco_njmax_cap = atoi(v); }
    else if (strcmp(a, "--ode-iterations") == 0) { NEED_VALUE; opt.engine.ode_iterations = atoi(v); }
    else if (strcmp(a, "--clatter-scheme") == 0) { NEED_VALUE; opt.engine.clatter_scheme = v; }
    else if (strcmp(a, "--clatter-solver") == 0) { NEED_VALUE; opt.engine.clatter_solver = v; }
    else if (strcmp(a, "--clatter-tolerance") == 0) { NEED_VALUE; opt.engine.clatter_tolerance = atof(v); }
    else if (strcmp(a, "--clatter-iterations") == 0) { NEED_VALUE; opt.engine.clatter_iterations = atoi(v); }
    else if (strcmp(a, "--clatter-absolute-tolerance") == 0) opt.engine.clatter_absolute = true;
    else if (strcmp(a, "--clatter-cone") == 0) {
      NEED_VALUE;
      if (strcmp(v, "auto") && strcmp(v, "polyhedral") && strcmp(v, "circular")) {
        fprintf(stderr, "peers: --clatter-cone must be auto, polyhedral or circular (got %s)\n", v);
        return 2;
      }
      opt.engine.clatter_cone = v;
    }
    else if (strcmp(a, "--clatter-relaxation") == 0) {
      NEED_VALUE;
      char *end;
      opt.engine.clatter_relaxation = strtod(v, &end);
      if (*end || !(opt.engine.clatter_relaxation > 0.0 && opt.engine.clatter_relaxation < 2.0)) {
        fprintf(stderr, "peers: --clatter-relaxation must be a number in (0, 2) (got %s)\n", v);
        return 2;
      }
    }
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { usage(stdout); return 0; }
    else { fprintf(stderr, "peers: unknown option %s\n", a); usage(stderr); return 2; }
#undef NEED_VALUE
  }
  char *scenes[MAX_LIST], *sizes[MAX_LIST], *poly_sizes[MAX_LIST], *engine_names[MAX_LIST];
  int scene_count = split(scenes_text, scenes), size_count = split(sizes_text, sizes),
      poly_size_count = split(poly_sizes_text, poly_sizes),
      engine_count = split(engines_text, engine_names);
  const peers_engine_t *engines[MAX_LIST];
  for (int k = 0; k < engine_count; ++k) {
    engines[k] = find_engine(engine_names[k]);
    if (!engines[k]) {
      fprintf(stderr, "peers: unknown engine %s (ode, bullet, mujoco, mujoco-sized, clatter, clatter-fast, clatter-lemke)\n",
              engine_names[k]);
      return 2;
    }
  }
  for (int k = 0; k < scene_count; ++k)
    if (strcmp(scenes[k], "pile") && strcmp(scenes[k], "stack") && strcmp(scenes[k], "chain") &&
        strcmp(scenes[k], "tower") && strcmp(scenes[k], "cantilever") && strcmp(scenes[k], "polystack") &&
        strcmp(scenes[k], "polypile")) {
      fprintf(stderr, "peers: unknown scene %s (pile, stack, chain, tower, cantilever, polystack, polypile)\n",
              scenes[k]);
      return 2;
    }
  for (int k = 0; k < size_count; ++k)
    if (atoi(sizes[k]) < 1) {
      fprintf(stderr, "peers: bad pile size %s\n", sizes[k]);
      return 2;
    }
  for (int k = 0; k < poly_size_count; ++k)
    if (atoi(poly_sizes[k]) < 1) {
      fprintf(stderr, "peers: bad polypile size %s\n", poly_sizes[k]);
      return 2;
    }
  FILE *csv = NULL;
  if (csv_path) {
    csv = fopen(csv_path, "w");
    if (!csv) {
      fprintf(stderr, "peers: cannot write %s: %s\n", csv_path, strerror(errno));
      return 2;
    }
    print_csv_header(csv);
  }
  printf("Engines:\n\n");
  for (int k = 0; k < engine_count; ++k) printf("- %s: %s\n", engines[k]->name, engines[k]->describe());
  if (opt.engine.clatter_cone)
    printf("\n--clatter-cone %s: clatter and clatter-fast run the stack, the chain and the tower with friction_cone %s%s.\n",
           opt.engine.clatter_cone, opt.engine.clatter_cone,
           strcmp(opt.engine.clatter_cone, "polyhedral") == 0 ? " and Lemke (the default before the circular cone)" : "");
  printf("\nTiming window of the first column: the first %d steps.\n\n", opt.first);
  print_markdown_header(stdout, opt.first);
  int failures = 0;
  for (int s = 0; s < scene_count; ++s) {
    int pile = strcmp(scenes[s], "pile") == 0, polypile = strcmp(scenes[s], "polypile") == 0;
    int runs = pile ? size_count : polypile ? poly_size_count : 1;
    for (int z = 0; z < runs; ++z) {
      int n = pile ? atoi(sizes[z]) : polypile ? atoi(poly_sizes[z]) : 0;
      for (int k = 0; k < engine_count; ++k) {
        peers_result_t r;
        run_isolated(engines[k], scenes[s], n, &opt, &r);
        print_markdown_row(stdout, &r);
        if (csv) print_csv_row(csv, &r);
        if (r.status == RUN_CRASHED) ++failures;
      }
    }
  }
  if (csv) fclose(csv);
  (void)failures;
  return 0;
}
