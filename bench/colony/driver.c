/* bench/colony driver: grows a bacterial colony (002 §5.4, SPEC.md §8 "colony") from the seed cell
 * of a scene for a number of generations with one contact model, and writes per step a CSV row
 * (time, cells, constraints, ReLCP iterations, max true overlap, wall times), per generation a
 * summary line with the orientation-order analysis, and one final "result" line (key=value) that
 * bench/colony/run collects into results.md. README.md documents the scene's "colony" block,
 * the options and every column. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clatter/colony.h"
#include "clatter/scene.h"
#include "clatter/world.h"

#define PI 3.14159265358979323846

typedef struct options_t {
  const char *scene;
  const char *model;      /* NULL: the scene's */
  const char *csv;        /* NULL: none */
  int generations;        /* ≤ 0: the scene's */
  double budget;          /* wall seconds of the run; ≤ 0: none */
  const char *sets[64];
  int set_count;
  long long seed;         /* < 0: the scene's */
  const char *cells;      /* NULL: none; else the cells at the end of the run (CSV) */
  long long max_steps;    /* > 0: stop after this step (the world's step count) */
} options_t;

/* The scene's colony block as the scene reader gives it (clt_scene_colony). */
typedef struct growth_t {
  clt_colony_def_t def;
  int generations;
  double order_radius, order_angle, order_gap;
} growth_t;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Process CPU time: the steadier measure on a shared machine (wall time includes waiting). */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: colony_bench [--scene FILE] [--generations G] [--model relcp|snsd|multisphere:N]\n"
          "                    [--budget SECONDS] [--csv FILE] [--seed S] [--set json.path=value]...\n"
          "                    [--cells FILE]\n"
          "                    [--steps K]\n"
          "Grows the colony of the scene (default scenes/papers/colony.json) from its seed cell for G\n"
          "generations (until 2^G cells), until the wall-time budget is spent or after step K (--steps).\n"
          "--cells writes every cell at the end (centre, axis, length, generation) as CSV (draw_colony.py\n"
          "draws it). Long runs with checkpoints: clatter run (README.md \"Long runs\").\n"
          "See bench/colony/README.md.\n");
}

typedef struct window_t { /* sums over the steps of one generation (or the whole run) */
  int steps;
  double constraints, relcp_iterations, wall, wall_colony, cell_steps, cpu;
  double max_overlap;
  double max_overlap_quiet; /* over the steps without a division (division creates overlaps, colony.h) */
  int max_constraints;
} window_t;

static void add(window_t *w, int cells, const clt_diagnostics_t *d, double wall, double wall_colony, bool divided,
                double cpu) {
  w->steps++;
  w->cpu += cpu;
  w->constraints += d->constraints;
  w->relcp_iterations += d->relcp_iterations;
  w->wall += wall;
  w->wall_colony += wall_colony;
  w->cell_steps += cells;
  if (d->max_overlap > w->max_overlap) w->max_overlap = d->max_overlap;
  if (!divided && d->max_overlap > w->max_overlap_quiet) w->max_overlap_quiet = d->max_overlap;
  if (d->constraints > w->max_constraints) w->max_constraints = d->constraints;
}

/* --cells: one row per cell at the end of the run, written to FILE.tmp and renamed. */
static int write_cells(const char *path, const clt_colony_t *colony) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "%s: cannot be written\n", tmp);
    return -1;
  }
  fprintf(f, "cell,x,y,z,axis_x,axis_y,axis_z,length,generation\n");
  for (int i = 0; i < clt_colony_cell_count(colony); i++) {
    clt_colony_cell_t c;
    if (clt_colony_get_cell(colony, i, &c) != CLT_OK) continue;
    fprintf(f, "%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d\n", i, c.position[0], c.position[1], c.position[2], c.axis[0],
            c.axis[1], c.axis[2], c.length, c.generation);
  }
  int ok = fclose(f) == 0;
  if (!ok || rename(tmp, path) != 0) {
    fprintf(stderr, "%s: cannot be written\n", path);
    remove(tmp);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  options_t o;
  memset(&o, 0, sizeof o);
  o.scene = "scenes/papers/colony.json";
  o.seed = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    }
    if (!v) {
      usage(stderr);
      return 2;
    }
    if (strcmp(a, "--scene") == 0) o.scene = v;
    else if (strcmp(a, "--model") == 0) o.model = v;
    else if (strcmp(a, "--csv") == 0) o.csv = v;
    else if (strcmp(a, "--generations") == 0) o.generations = atoi(v);
    else if (strcmp(a, "--budget") == 0) o.budget = atof(v);
    else if (strcmp(a, "--seed") == 0) o.seed = atoll(v);
    else if (strcmp(a, "--set") == 0 && o.set_count < 60) o.sets[o.set_count++] = v;
    else if (strcmp(a, "--cells") == 0) o.cells = v;
    else if (strcmp(a, "--steps") == 0) o.max_steps = atoll(v);
    else {
      usage(stderr);
      return 2;
    }
    i++;
  }

  /* Everything an early exit frees (done:); exit status 1 unless the run gets to its end. */
  int status = 1;
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  clt_colony_t *colony = NULL;
  FILE *csv = NULL;

  /* --model, --generations and --seed are overrides of the scene like --set */
  char model_set[96], generations_set[64], seed_set[64];
  if (o.model) {
    snprintf(model_set, sizeof model_set, "method.contact_model=%s", o.model);
    o.sets[o.set_count++] = model_set;
  }
  const char *sets[68];
  int set_count = 0;
  for (int i = 0; i < o.set_count; i++) sets[set_count++] = o.sets[i];
  if (o.generations > 0) {
    snprintf(generations_set, sizeof generations_set, "colony.generations=%d", o.generations);
    sets[set_count++] = generations_set;
  }
  if (o.seed >= 0) {
    snprintf(seed_set, sizeof seed_set, "colony.seed=%lld", o.seed);
    sets[set_count++] = seed_set;
  }
  clt_scene_overrides_t ov = {sets, set_count, NULL, 0};
  char msg[1024];
  if (clt_scene_load(o.scene, &ov, &scene, msg, sizeof msg) != CLT_OK) {
    fprintf(stderr, "%s\n", msg);
    goto done;
  }
  const clt_scene_colony_t *block = clt_scene_colony(scene);
  if (!block) {
    fprintf(stderr, "%s: the scene has no \"colony\" block\n", o.scene);
    goto done;
  }
  growth_t growth = {block->def, block->generations, block->order_radius, block->order_angle,
                     block->order_contact_gap};
  if (clt_scene_create_world(scene, NULL, NULL, &world, msg, sizeof msg) != CLT_OK ||
      clt_scene_create_colony(scene, world, &colony, msg, sizeof msg) != CLT_OK) {
    fprintf(stderr, "%s\n", msg);
    goto done;
  }
  double d = growth.def.diameter;
  const clt_method_t *m = clt_world_method(world);
  /* multisphere:N: the deepest a cap can sink into a neighbour's proxy between two sub-spheres
   * s = L_div/(N − 1) apart, δ = d − √(d² − s²/4) (docs/design/colony.md); the true overlap of
   * these runs is bounded by δ, not by the tolerance. */
  double proxy_bound = 0.0;
  if (m->contact_model == CLT_CONTACT_MODEL_MULTISPHERE && m->multisphere_count > 1) {
    double s = growth.def.division_length / (m->multisphere_count - 1);
    proxy_bound = s < 2.0 * d ? d - sqrt(d * d - 0.25 * s * s) : d;
  }
  char model_name[32];
  if (m->contact_model == CLT_CONTACT_MODEL_MULTISPHERE)
    snprintf(model_name, sizeof model_name, "multisphere:%d", m->multisphere_count);
  else
    snprintf(model_name, sizeof model_name, "%s",
             m->contact_model == CLT_CONTACT_MODEL_RELCP  ? "relcp"
             : m->contact_model == CLT_CONTACT_MODEL_SNSD ? "snsd"
                                                          : "default");

  if (o.csv) {
    csv = fopen(o.csv, "w");
    if (!csv) {
      fprintf(stderr, "%s: cannot be written\n", o.csv);
      goto done;
    }
    fprintf(csv, "step,t,cells,contacts,constraints,relcp_iterations,solver_iterations,max_overlap,wall_s,"
                 "wall_colony_s,wall_collide_s,wall_solve_s,cpu_s\n");
  }
  printf("# colony: scene %s, model %s, h %g, overlap_tolerance %g, d %g, tau %g, division_length %g, "
         "max_reorientation %g deg, seed %llu, generations %d, budget %g s\n",
         o.scene, model_name, clt_world_time_step(world), m->overlap_tolerance, d, growth.def.growth_time,
         growth.def.division_length, growth.def.max_reorientation * 180.0 / PI,
         (unsigned long long)growth.def.seed, growth.generations, o.budget);
  printf("# order: radius %g, angle %g deg, contact_gap %g\n", growth.order_radius, growth.order_angle * 180.0 / PI,
         growth.order_gap);
  printf("# gen cells steps mean_constraints max_constraints mean_relcp_iter ms_per_step us_per_cell_step "
         "cum_wall_s max_overlap S mean_domain weighted_domain largest_domain cpu_ms_per_step cpu_us_per_cell_step\n");

  window_t total, gen;
  memset(&total, 0, sizeof total);
  memset(&gen, 0, sizeof gen);
  int completed = 0, target = 1 << growth.generations;
  const char *stop = "generations";
  char why[512] = "";
  clt_colony_order_t last_order;
  memset(&last_order, 0, sizeof last_order);
  double t_start = now();
  bool done = clt_colony_cell_count(colony) >= target;
  while (!done) {
    double c0 = cpu_now();
    double t0 = now();
    int cells_before = clt_colony_cell_count(colony);
    clt_status_t st = clt_colony_grow(colony);
    double t1 = now();
    if (st == CLT_OK) st = clt_world_step(world);
    double t2 = now();
    double cpu = cpu_now() - c0;
    if (st != CLT_OK) {
      stop = "error";
      snprintf(why, sizeof why, "%s", clt_world_error(world));
      break;
    }
    clt_diagnostics_t dg;
    clt_world_get_diagnostics(world, &dg);
    int cells = clt_colony_cell_count(colony);
    bool divided = cells != cells_before;
    add(&total, cells, &dg, t2 - t0, t1 - t0, divided, cpu);
    add(&gen, cells, &dg, t2 - t0, t1 - t0, divided, cpu);
    if (csv)
      fprintf(csv, "%lld,%.9g,%d,%d,%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", (long long)dg.step, dg.t, cells,
              dg.contacts, dg.constraints, dg.relcp_iterations, dg.iterations, dg.max_overlap, t2 - t0, t1 - t0,
              dg.wall_collide_s, dg.wall_solve_s, cpu);
    if (csv) fflush(csv); /* a run killed inside a long step keeps every finished row */
    /* A generation is complete when the count reaches the next power of two (synchronous division). */
    if (cells >= 2 << completed) {
      completed++;
      clt_colony_order(colony, growth.order_radius, growth.order_angle, growth.order_gap, &last_order);
      printf("gen %d %d %d %.1f %d %.2f %.3f %.3f %.2f %.3g %.4f %.3f %.3f %d %.3f %.3f\n", completed, cells, gen.steps,
             gen.constraints / gen.steps, gen.max_constraints, gen.relcp_iterations / gen.steps,
             1e3 * gen.wall / gen.steps, 1e6 * gen.wall / gen.cell_steps, now() - t_start, gen.max_overlap,
             last_order.nematic_order, last_order.mean_domain_size, last_order.weighted_domain_size,
             last_order.largest_domain, 1e3 * gen.cpu / gen.steps, 1e6 * gen.cpu / gen.cell_steps);
      fflush(stdout);
      memset(&gen, 0, sizeof gen);
      if (cells >= target) break;
    }
    if (o.budget > 0.0 && now() - t_start > o.budget) {
      stop = "budget";
      break;
    }
    if (o.max_steps > 0 && clt_world_step_count(world) >= o.max_steps) {
      stop = "steps";
      break;
    }
  }
  double wall = now() - t_start;
  clt_colony_order(colony, growth.order_radius, growth.order_angle, growth.order_gap, &last_order);
  printf("result model=%s stop=%s generations=%d cells=%d steps=%d wall_s=%.3f mean_constraints=%.2f "
         "mean_relcp_iterations=%.3f ms_per_step=%.4f us_per_cell_step=%.4f us_per_constraint_step=%.4f "
         "max_overlap=%.4g max_overlap_no_division=%.4g overlap_tolerance=%g proxy_overlap_bound=%.4g S=%.4f mean_domain=%.4f weighted_domain=%.4f largest_domain=%d "
         "cpu_s=%.3f cpu_ms_per_step=%.4f cpu_us_per_cell_step=%.4f state_hash=%016llx\n",
         model_name, stop, completed, clt_colony_cell_count(colony), total.steps, wall,
         total.steps ? total.constraints / total.steps : 0.0,
         total.steps ? total.relcp_iterations / total.steps : 0.0, total.steps ? 1e3 * total.wall / total.steps : 0.0,
         total.cell_steps > 0 ? 1e6 * total.wall / total.cell_steps : 0.0,
         total.constraints > 0 ? 1e6 * total.wall / total.constraints : 0.0, total.max_overlap, total.max_overlap_quiet, m->overlap_tolerance,
         proxy_bound,
         last_order.nematic_order, last_order.mean_domain_size, last_order.weighted_domain_size,
         last_order.largest_domain, total.cpu, total.steps ? 1e3 * total.cpu / total.steps : 0.0,
         total.cell_steps > 0 ? 1e6 * total.cpu / total.cell_steps : 0.0,
         (unsigned long long)clt_world_state_hash(world));
  if (why[0]) {
    printf("# stopped: %s\n", why);
    fprintf(stderr, "%s: step %lld failed: %s\n", o.scene, (long long)clt_world_step_count(world) + 1, why);
  }
  status = strcmp(stop, "error") == 0 ? 3 : 0;
  if (o.cells && write_cells(o.cells, colony) != 0) status = 1;
done:
  if (csv) fclose(csv);
  clt_colony_destroy(colony);
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return status;
}
