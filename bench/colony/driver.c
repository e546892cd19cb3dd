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
#include <unistd.h>

#include <cjson/cJSON.h>

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
  const char *checkpoint; /* NULL: none */
  double checkpoint_every; /* wall seconds between checkpoints (besides each generation's end) */
  const char *resume;     /* NULL: a new run */
  const char *cells;      /* NULL: none; else the cells at the end of the run (CSV) */
  long long max_steps;    /* > 0: stop after this step (the world's step count) */
} options_t;

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
          "                    [--checkpoint FILE [--checkpoint-every SECONDS]] [--resume FILE] [--cells FILE]\n"
          "                    [--steps K]\n"
          "Grows the colony of the scene (default scenes/papers/colony.json) from its seed cell for G\n"
          "generations (until 2^G cells), until the wall-time budget is spent or after step K (--steps).\n"
          "--checkpoint writes the run's state at the end of every generation, every --checkpoint-every\n"
          "seconds (default 600) and at the end; --resume continues such a run bit for bit (same scene\n"
          "and options). --cells writes every cell at the end (centre, axis, length, generation) as CSV\n"
          "(draw_colony.py draws it).\n"
          "See bench/colony/README.md.\n");
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s) s[n] = '\0';
  fclose(f);
  return s;
}

static int number(const cJSON *obj, const char *key, double *out, double lo, const char *source) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return 0;
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo) {
    fprintf(stderr, "%s: colony.%s: must be a number >= %g\n", source, key, lo);
    return -1;
  }
  *out = v->valuedouble;
  return 0;
}

/* The scene's "colony" block (README.md). */
static int read_growth(const cJSON *block, const char *source, growth_t *g) {
  static const char *const keys[] = {"growth_time", "division_length", "max_reorientation_deg", "division_gap",
                                     "seed", "generations", "order", NULL};
  g->def = clt_default_colony_def();
  g->generations = 10;
  g->order_radius = -1.0;
  g->order_angle = 10.0 * PI / 180.0;
  g->order_gap = -1.0;
  if (!block) return 0;
  if (!cJSON_IsObject(block)) {
    fprintf(stderr, "%s: colony: must be an object\n", source);
    return -1;
  }
  for (const cJSON *c = block->child; c; c = c->next) {
    int known = 0;
    for (int i = 0; keys[i]; i++) known |= strcmp(keys[i], c->string) == 0;
    if (!known) {
      fprintf(stderr, "%s: colony.%s: unknown key\n", source, c->string);
      return -1;
    }
  }
  double deg = g->def.max_reorientation * 180.0 / PI, seed = (double)g->def.seed, gens = g->generations;
  if (number(block, "growth_time", &g->def.growth_time, 0.0, source) ||
      number(block, "division_length", &g->def.division_length, 0.0, source) ||
      number(block, "max_reorientation_deg", &deg, 0.0, source) ||
      number(block, "division_gap", &g->def.division_gap, 0.0, source) ||
      number(block, "seed", &seed, 0.0, source) || number(block, "generations", &gens, 0.0, source))
    return -1;
  g->def.max_reorientation = deg * PI / 180.0;
  g->def.seed = (uint64_t)seed;
  g->generations = (int)gens;
  const cJSON *order = cJSON_GetObjectItemCaseSensitive(block, "order");
  if (order) {
    double angle = g->order_angle * 180.0 / PI;
    if (!cJSON_IsObject(order) || number(order, "radius", &g->order_radius, 0.0, source) ||
        number(order, "angle_deg", &angle, 0.0, source) || number(order, "contact_gap", &g->order_gap, 0.0, source)) {
      fprintf(stderr, "%s: colony.order: expected {\"radius\", \"angle_deg\", \"contact_gap\"} numbers\n", source);
      return -1;
    }
    g->order_angle = angle * PI / 180.0;
  }
  return 0;
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

/* ---- checkpoints (--checkpoint, --resume) ----
 * One file: magic "CLTCOLBK", version, the run's identity (FNV-1a 64 of the scene file, the --set
 * overrides with --model, and the colony seed), the driver's counters, the colony's and the
 * world's state blobs (clatter/colony.h, clatter/world.h: native byte order, the same build), and
 * an FNV-1a 64 checksum of all the bytes before it. Written to FILE.tmp and renamed, so a run
 * killed while writing keeps its previous checkpoint. */
#define CHECKPOINT_VERSION 1u

typedef struct run_state_t {
  int32_t completed, target;
  window_t total, gen;
  double elapsed_wall; /* wall seconds of the run so far, every segment */
  int64_t csv_bytes;   /* the CSV's length at the checkpoint (a resumed run cuts the rows after it) */
  int64_t step;
} run_state_t;

typedef struct checkpoint_header_t {
  char magic[8];
  uint32_t version, reserved;
  uint64_t identity;
  run_state_t run;
  uint64_t colony_size, world_size;
} checkpoint_header_t;

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

static uint64_t run_identity(const char *scene_file_text, const options_t *o, uint64_t seed) {
  uint64_t h = fnv(14695981039346656037ull, scene_file_text, strlen(scene_file_text) + 1);
  for (int i = 0; i < o->set_count; i++) h = fnv(h, o->sets[i], strlen(o->sets[i]) + 1);
  return fnv(h, &seed, sizeof seed);
}

/* 0 on success; otherwise the reason in why. */
static int write_checkpoint(const char *path, uint64_t identity, const run_state_t *rs, const clt_colony_t *colony,
                            clt_world_t *world, char *why, size_t why_size) {
  checkpoint_header_t h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, "CLTCOLBK", 8);
  h.version = CHECKPOINT_VERSION;
  h.identity = identity;
  h.run = *rs;
  h.colony_size = clt_colony_state_size(colony);
  h.world_size = clt_world_state_size(world);
  size_t size = sizeof h + h.colony_size + h.world_size + sizeof(uint64_t);
  unsigned char *buffer = malloc(size);
  if (!buffer) {
    snprintf(why, why_size, "out of memory (%zu bytes)", size);
    return -1;
  }
  memcpy(buffer, &h, sizeof h);
  if (clt_colony_save_state(colony, buffer + sizeof h, h.colony_size) != CLT_OK ||
      clt_world_save_state(world, buffer + sizeof h + h.colony_size, h.world_size) != CLT_OK) {
    snprintf(why, why_size, "%s", clt_world_error(world));
    free(buffer);
    return -1;
  }
  uint64_t sum = fnv(14695981039346656037ull, buffer, size - sizeof sum);
  memcpy(buffer + size - sizeof sum, &sum, sizeof sum);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "wb");
  int ok = f && fwrite(buffer, 1, size, f) == size;
  if (f) ok = fclose(f) == 0 && ok;
  free(buffer);
  if (!ok || rename(tmp, path) != 0) {
    snprintf(why, why_size, "cannot write %s", ok ? path : tmp);
    remove(tmp);
    return -1;
  }
  return 0;
}

/* Reads and checks a checkpoint; *colony_blob and *world_blob point into *buffer (free it). */
static int read_checkpoint(const char *path, uint64_t identity, checkpoint_header_t *h, unsigned char **buffer,
                           const unsigned char **colony_blob, const unsigned char **world_blob) {
  *buffer = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot be read\n", path);
    return -1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  size_t size = n > 0 ? (size_t)n : 0;
  unsigned char *b = malloc(size + 1);
  int ok = b && fread(b, 1, size, f) == size;
  fclose(f);
  const char *why = NULL;
  uint64_t sum = 0;
  if (!ok) why = "cannot be read";
  else if (size < 8 || memcmp(b, "CLTCOLBK", 8) != 0) why = "not a colony_bench checkpoint";
  else if (size < sizeof *h + sizeof sum) why = "truncated (shorter than a checkpoint's header)";
  if (!why) {
    memcpy(h, b, sizeof *h);
    memcpy(&sum, b + size - sizeof sum, sizeof sum);
    if (h->version != CHECKPOINT_VERSION) why = "checkpoint format version differs from this build's";
    else if (sum != fnv(14695981039346656037ull, b, size - sizeof sum)) why = "checksum mismatch (truncated or corrupt file)";
    else if (h->colony_size > size || h->world_size > size ||
             sizeof *h + h->colony_size + h->world_size + sizeof sum != size)
      why = "section sizes do not add up to the file's size";
    else if (h->identity != identity)
      why = "the checkpoint is of another run (the scene file, --set/--model or --seed differ)";
    else if (h->run.completed < 0 || h->run.completed > 30 || h->run.csv_bytes < 0 || h->run.step < 0 ||
             !(isfinite(h->run.elapsed_wall) && h->run.elapsed_wall >= 0.0) || h->run.total.steps < 0 ||
             h->run.gen.steps < 0)
      why = "the run's counters are invalid";
  }
  if (why) {
    fprintf(stderr, "%s: %s\n", path, why);
    free(b);
    return -1;
  }
  *buffer = b;
  *colony_blob = b + sizeof *h;
  *world_blob = b + sizeof *h + h->colony_size;
  return 0;
}

int main(int argc, char **argv) {
  options_t o;
  memset(&o, 0, sizeof o);
  o.scene = "scenes/papers/colony.json";
  o.seed = -1;
  o.checkpoint_every = 600.0;
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
    else if (strcmp(a, "--checkpoint") == 0) o.checkpoint = v;
    else if (strcmp(a, "--checkpoint-every") == 0) o.checkpoint_every = atof(v);
    else if (strcmp(a, "--resume") == 0) o.resume = v;
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
  cJSON *root = NULL, *block = NULL;
  char *scene_text = NULL;
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  clt_colony_t *colony = NULL;
  FILE *csv = NULL;
  unsigned char *checkpoint_buffer = NULL;

  /* The scene without its "colony" block goes through the scene reader; the block is ours. */
  char *scene_file_text = read_text(o.scene); /* also the run's identity (checkpoints) */
  if (!scene_file_text) {
    fprintf(stderr, "%s: cannot be read\n", o.scene);
    goto done;
  }
  root = cJSON_Parse(scene_file_text);
  if (!root) {
    fprintf(stderr, "%s: invalid JSON\n", o.scene);
    goto done;
  }
  block = cJSON_DetachItemFromObjectCaseSensitive(root, "colony");
  growth_t growth;
  if (read_growth(block, o.scene, &growth) != 0) goto done;
  scene_text = cJSON_PrintUnformatted(root);
  char model_set[96];
  if (o.model) {
    snprintf(model_set, sizeof model_set, "method.contact_model=%s", o.model);
    o.sets[o.set_count++] = model_set;
  }
  clt_scene_overrides_t ov = {o.sets, o.set_count, NULL, 0};
  char msg[1024];
  if (!scene_text || clt_scene_parse(scene_text, o.scene, &ov, &scene, msg, sizeof msg) != CLT_OK) {
    fprintf(stderr, "%s\n", scene_text ? msg : "out of memory");
    goto done;
  }
  if (clt_scene_create_world(scene, NULL, NULL, &world, msg, sizeof msg) != CLT_OK) {
    fprintf(stderr, "%s\n", msg);
    goto done;
  }
  if (o.generations > 0) growth.generations = o.generations;
  if (growth.generations < 1 || growth.generations > 30) {
    fprintf(stderr, "%s: generations must be in [1, 30] (got %d)\n", o.scene, growth.generations);
    goto done;
  }
  if (o.seed >= 0) growth.def.seed = (uint64_t)o.seed;
  uint64_t identity = run_identity(scene_file_text, &o, growth.def.seed);

  /* The seed cell: the scene's first dynamic body (one capsule). */
  clt_body_id_t seed_cell = clt_world_ground();
  for (int i = 0; i < clt_world_body_count(world); i++) {
    clt_body_info_t info;
    clt_body_id_t id = clt_world_body_at(world, i);
    if (clt_body_get_info(world, id, &info) == CLT_OK && info.type == CLT_BODY_DYNAMIC) {
      seed_cell = id;
      break;
    }
  }
  clt_shape_def_t shape;
  if (clt_body_id_is_null(seed_cell) || clt_body_get_shape(world, seed_cell, 0, &shape) != CLT_OK) {
    fprintf(stderr, "%s: the scene has no dynamic body to start the colony from\n", o.scene);
    goto done;
  }
  growth.def.diameter = 2.0 * shape.radius;
  growth.def.first_cell = seed_cell;
  double d = growth.def.diameter;
  if (growth.order_radius < 0.0) growth.order_radius = 2.0 * growth.def.division_length;
  if (growth.order_gap < 0.0) growth.order_gap = 0.1 * d;
  if (clt_colony_create(world, &growth.def, &colony) != CLT_OK) {
    fprintf(stderr, "%s: %s\n", o.scene, clt_world_error(world));
    goto done;
  }
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

  /* --resume: the colony's cells and the world's state as the checkpoint left them (colony.h) */
  run_state_t rs;
  memset(&rs, 0, sizeof rs);
  if (o.resume) {
    checkpoint_header_t ch;
    const unsigned char *colony_blob, *world_blob;
    if (read_checkpoint(o.resume, identity, &ch, &checkpoint_buffer, &colony_blob, &world_blob) != 0) goto done;
    if (clt_colony_load_state(colony, colony_blob, ch.colony_size) != CLT_OK ||
        clt_world_load_state(world, world_blob, ch.world_size) != CLT_OK) {
      fprintf(stderr, "%s: %s\n", o.resume, clt_world_error(world));
      goto done;
    }
    rs = ch.run;
  }

  if (o.csv && o.resume && rs.csv_bytes > 0) { /* the rows up to the checkpoint, the later ones cut */
    csv = fopen(o.csv, "r+");
    long have = -1;
    if (csv && fseek(csv, 0, SEEK_END) == 0) have = ftell(csv);
    if (!csv || have < rs.csv_bytes || ftruncate(fileno(csv), (off_t)rs.csv_bytes) != 0 ||
        fseek(csv, 0, SEEK_END) != 0) {
      fprintf(stderr, "%s: cannot continue it: it must hold the %lld bytes the checkpoint %s counted (it has %ld)\n",
              o.csv, (long long)rs.csv_bytes, o.resume, have);
      goto done;
    }
  } else if (o.csv) {
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
  if (o.resume)
    printf("# resumed from %s after step %lld: %d cells, %d generations complete, %.1f s of wall time before\n",
           o.resume, (long long)rs.step, clt_colony_cell_count(colony), rs.completed, rs.elapsed_wall);
  printf("# order: radius %g, angle %g deg, contact_gap %g\n", growth.order_radius, growth.order_angle * 180.0 / PI,
         growth.order_gap);
  printf("# gen cells steps mean_constraints max_constraints mean_relcp_iter ms_per_step us_per_cell_step "
         "cum_wall_s max_overlap S mean_domain weighted_domain largest_domain cpu_ms_per_step cpu_us_per_cell_step\n");

  window_t total = rs.total, gen = rs.gen;
  int completed = rs.completed, target = 1 << growth.generations;
  const char *stop = "generations";
  char why[512] = "";
  clt_colony_order_t last_order;
  memset(&last_order, 0, sizeof last_order);
  double t_start = now() - rs.elapsed_wall, last_checkpoint = now();
  /* writes the checkpoint (--checkpoint) of the state after the last finished step */
#define CHECKPOINT()                                                                                  \
  do {                                                                                                \
    rs.completed = completed, rs.target = growth.generations, rs.total = total, rs.gen = gen;         \
    rs.elapsed_wall = now() - t_start, rs.step = clt_world_step_count(world);                         \
    rs.csv_bytes = csv ? (int64_t)ftell(csv) : 0;                                                     \
    char cwhy[4200];                                                                                  \
    if (write_checkpoint(o.checkpoint, identity, &rs, colony, world, cwhy, sizeof cwhy) != 0) {       \
      fprintf(stderr, "%s: %s\n", o.checkpoint, cwhy);                                               \
      goto done;                                                                                      \
    }                                                                                                 \
    last_checkpoint = now();                                                                          \
  } while (0)
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
      if (o.checkpoint) CHECKPOINT();
    }
    if (o.budget > 0.0 && now() - t_start > o.budget) {
      stop = "budget";
      break;
    }
    if (o.max_steps > 0 && clt_world_step_count(world) >= o.max_steps) {
      stop = "steps";
      break;
    }
    if (o.checkpoint && now() - last_checkpoint >= o.checkpoint_every) CHECKPOINT();
  }
  if (o.checkpoint && strcmp(stop, "error") != 0) CHECKPOINT();
#undef CHECKPOINT
  double wall = now() - t_start;
  clt_colony_order(colony, growth.order_radius, growth.order_angle, growth.order_gap, &last_order);
  printf("result model=%s stop=%s generations=%d cells=%d steps=%d wall_s=%.3f mean_constraints=%.2f "
         "mean_relcp_iterations=%.3f ms_per_step=%.4f us_per_cell_step=%.4f us_per_constraint_step=%.4f "
         "max_overlap=%.4g max_overlap_no_division=%.4g overlap_tolerance=%g proxy_overlap_bound=%.4g S=%.4f mean_domain=%.4f weighted_domain=%.4f largest_domain=%d "
         "cpu_s=%.3f cpu_ms_per_step=%.4f cpu_us_per_cell_step=%.4f\n",
         model_name, stop, completed, clt_colony_cell_count(colony), total.steps, wall,
         total.steps ? total.constraints / total.steps : 0.0,
         total.steps ? total.relcp_iterations / total.steps : 0.0, total.steps ? 1e3 * total.wall / total.steps : 0.0,
         total.cell_steps > 0 ? 1e6 * total.wall / total.cell_steps : 0.0,
         total.constraints > 0 ? 1e6 * total.wall / total.constraints : 0.0, total.max_overlap, total.max_overlap_quiet, m->overlap_tolerance,
         proxy_bound,
         last_order.nematic_order, last_order.mean_domain_size, last_order.weighted_domain_size,
         last_order.largest_domain, total.cpu, total.steps ? 1e3 * total.cpu / total.steps : 0.0,
         total.cell_steps > 0 ? 1e6 * total.cpu / total.cell_steps : 0.0);
  if (why[0]) {
    printf("# stopped: %s\n", why);
    fprintf(stderr, "%s: step %lld failed: %s\n", o.scene, (long long)clt_world_step_count(world) + 1, why);
  }
  status = strcmp(stop, "error") == 0 ? 3 : 0;
  if (o.cells && write_cells(o.cells, colony) != 0) status = 1;
done:
  if (csv) fclose(csv);
  free(checkpoint_buffer);
  clt_colony_destroy(colony);
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  free(scene_text);
  cJSON_Delete(block);
  cJSON_Delete(root);
  free(scene_file_text);
  return status;
}
