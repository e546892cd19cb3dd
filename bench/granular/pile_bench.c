/* bench/granular: one pile run (scenes/papers/pile.json or any scene) measured from inside the
 * process: scene parse and world build time, per-step wall time split (collide / assemble / solve,
 * from the step diagnostics), kinetic energy against its peak, penetration, the broad phase
 * alone at the final state, and memory: peak RSS (getrusage) and where it goes (record sizes and
 * workspace capacities, read through the library's internal headers). Built and run by
 * bench/granular/run; prints `key value` lines that the script collects.
 *
 * usage: pile_bench SCENE.json [--param NAME=VALUE ...] [--set PATH=VALUE ...] [--steps K]
 *                   [--every M]   (print a step line every M steps; 0: none)
 *                   [--dump FILE] (the final positions and velocities, 6 doubles per body, raw:
 *                                  to compare two builds body by body)
 *                   [--memory]    (the resident size of each workspace array at the end, largest first,
 *                                  and a line `rss_peak_rise` for each step that raised the peak RSS by
 *                                  256 kB or more: where in the run the peak is made) */
#define _DEFAULT_SOURCE /* mincore */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "clatter/scene.h"
#include "collision/broadphase.h"
#include "dynamics/world_internal.h"
#include "steppers/relaxed.h"
#include "steppers/rows.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Process CPU time: on a loaded machine (the shared build box) steadier than wall time; with one
 * thread (OMP_NUM_THREADS=1) it is the compute time. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long peak_rss_kb(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

/* Current RSS from /proc (getrusage only gives the peak). */
static long current_rss_kb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return resident * 4;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* --memory: the resident size of each workspace array at the end of the run (arrays that only grow
 * keep the pages of their peak): its allocation (malloc_usable_size) and how much of it is in
 * memory (mincore), largest first, against the process's whole resident anonymous memory
 * (/proc/self/smaps). */
typedef struct named_t {
  const char *name;
  const void *ptr;
  long size, resident; /* bytes */
} named_t;

static int compare_resident(const void *a, const void *b) {
  long x = ((const named_t *)a)->resident, y = ((const named_t *)b)->resident;
  return (x < y) - (x > y);
}

static long anonymous_resident_kb(void) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return 0;
  char line[512];
  bool anon = false;
  long total = 0, kb;
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b;
    char perms[8], path[256] = "";
    if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3) { /* a mapping's first line */
      if (sscanf(line, "%*s %*s %*s %*s %*s %255s", path) != 1) path[0] = '\0';
      anon = path[0] == '\0' || strcmp(path, "[heap]") == 0;
    } else if (anon && sscanf(line, "Rss: %ld kB", &kb) == 1) {
      total += kb;
    }
  }
  fclose(f);
  return total;
}

static void memory_map(named_t *known, int known_count, int bodies) {
  long page = sysconf(_SC_PAGESIZE), sum = 0;
  for (int i = 0; i < known_count; i++) {
    known[i].size = known[i].ptr ? (long)malloc_usable_size((void *)known[i].ptr) : 0;
    known[i].resident = 0;
    if (known[i].size < page) continue; /* small: in the heap with others */
    uintptr_t lo = (uintptr_t)known[i].ptr & ~(uintptr_t)(page - 1);
    uintptr_t hi = ((uintptr_t)known[i].ptr + (uintptr_t)known[i].size + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
    size_t pages = (hi - lo) / (uintptr_t)page;
    unsigned char *v = malloc(pages);
    if (v && mincore((void *)lo, hi - lo, v) == 0)
      for (size_t k = 0; k < pages; k++) known[i].resident += (v[k] & 1) ? page : 0;
    free(v);
    sum += known[i].resident;
  }
  qsort(known, (size_t)known_count, sizeof *known, compare_resident);
  printf("memory_map begin (resident kB, B a body, allocated kB, array)\n");
  for (int i = 0; i < known_count; i++)
    if (known[i].resident >= 64 * 1024)
      printf("  %8ld %7.0f %8ld %s\n", known[i].resident / 1024, (double)known[i].resident / bodies,
             known[i].size / 1024, known[i].name);
  long total = anonymous_resident_kb();
  printf("memory_map end: anonymous resident %ld kB (%.0f B a body), in the arrays above %ld kB, elsewhere %ld kB "
         "(%.0f B a body)\n",
         total, 1024.0 * total / bodies, sum / 1024, total - sum / 1024, (1024.0 * total - (double)sum) / bodies);
}

int main(int argc, char **argv) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 128 * 1024); /* as clatter run does (tools/main.c) */
#endif
  const char *scene_path = NULL;
  const char *sets[64], *params[64];
  int set_count = 0, param_count = 0;
  long steps = 100, every = 0;
  const char *dump_path = NULL;
  bool memory = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--param") == 0 && i + 1 < argc && param_count < 64) {
      params[param_count++] = argv[++i];
    } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc && set_count < 64) {
      sets[set_count++] = argv[++i];
    } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      steps = atol(argv[++i]);
    } else if (strcmp(argv[i], "--every") == 0 && i + 1 < argc) {
      every = atol(argv[++i]);
    } else if (strcmp(argv[i], "--memory") == 0) {
      memory = true;
    } else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) {
      dump_path = argv[++i];
    } else if (argv[i][0] != '-' && !scene_path) {
      scene_path = argv[i];
    } else {
      fprintf(stderr, "usage: pile_bench SCENE.json [--param N=V] [--set P=V] [--steps K] [--every M] [--dump FILE]"
                      " [--memory]\n");
      return 2;
    }
  }
  if (!scene_path) {
    fprintf(stderr, "pile_bench: no scene\n");
    return 2;
  }
  long rss_start = current_rss_kb();
  char message[2048];
  clt_scene_overrides_t overrides = {sets, set_count, params, param_count};
  clt_scene_t *scene = NULL;
  double t0 = now(), c0 = cpu_now();
  if (clt_scene_load(scene_path, &overrides, &scene, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "%s\n", message);
    return 2;
  }
  double t_parse = now() - t0, cpu_parse = cpu_now() - c0;
  long rss_scene = current_rss_kb();
  clt_world_t *world = NULL;
  t0 = now();
  c0 = cpu_now();
  if (clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "%s\n", message);
    return 2;
  }
  double t_build = now() - t0, cpu_build = cpu_now() - c0;
  clt_scene_release_bodies(scene); /* as clatter run does */
  long rss_world = current_rss_kb();
  int n = clt_world_body_count(world);
  printf("bodies %d\nparse_s %.6f\nbuild_s %.6f\nparse_cpu_s %.6f\nbuild_cpu_s %.6f\n", n, t_parse, t_build,
         cpu_parse, cpu_build);
  printf("rss_start_kb %ld\nrss_after_parse_kb %ld\nrss_after_build_kb %ld\n", rss_start, rss_scene, rss_world);

  double ke_peak = 0, ke = 0, pen_max = 0, pen_last = 0, wall_sum = 0, col_sum = 0, asm_sum = 0, sol_sum = 0;
  long iter_sum = 0, unsolved = 0, contacts_max = 0, taken = 0, solves_sum = 0, solves_max = 0, miss_steps = 0,
       miss_max = 0;
  double first_wall = 0;
  long hwm_seen = peak_rss_kb(); /* --memory: a line whenever a step raises the peak by 256 kB or more */
  double cpu_steps = cpu_now();
  if (every > 0) printf("step t contacts iterations status kinetic_energy penetration wall_s collide_s assemble_s solve_s solves\n");
  for (long k = 0; k < steps; k++) {
    clt_status_t st = clt_world_step(world);
    if (st != CLT_OK) {
      printf("step_failed %ld %s: %s\n", k + 1, clt_status_name(st), clt_world_error(world));
      break;
    }
    clt_diagnostics_t d;
    clt_world_get_diagnostics(world, &d);
    taken++;
    ke = d.kinetic_energy;
    ke_peak = fmax(ke_peak, ke);
    pen_max = fmax(pen_max, d.penetration);
    pen_last = d.penetration;
    if (k == 0) first_wall = d.wall_s;
    wall_sum += d.wall_s;
    col_sum += d.wall_collide_s;
    asm_sum += d.wall_assemble_s;
    sol_sum += d.wall_solve_s;
    iter_sum += d.iterations;
    solves_sum += d.solves;
    if (d.solves > solves_max) solves_max = d.solves;
    if (d.set_misses > 0) miss_steps++;
    if (d.set_misses > miss_max) miss_max = d.set_misses;
    if (d.contacts > contacts_max) contacts_max = d.contacts;
    if (d.solver_status != CLT_SOLVE_SOLVED && d.solver_status != CLT_SOLVE_NONE) unsolved++;
    if (memory) {
      long hwm = peak_rss_kb();
      if (hwm >= hwm_seen + 256) {
        printf("rss_peak_rise step %ld peak_kb %ld solves %d contacts %d\n", (long)d.step, hwm, d.solves, d.contacts);
        hwm_seen = hwm;
      }
    }
    if (every > 0 && ((k + 1) % every == 0 || k + 1 == steps))
      printf("%ld %.4f %d %d %s %.6g %.3g %.4f %.4f %.4f %.4f %d\n", (long)d.step, d.t, d.contacts, d.iterations,
             clt_solver_status_name(d.solver_status), d.kinetic_energy, d.penetration, d.wall_s, d.wall_collide_s,
             d.wall_assemble_s, d.wall_solve_s, d.solves);
    fflush(stdout);
  }
  cpu_steps = cpu_now() - cpu_steps;
  long rss_peak = peak_rss_kb();
  printf("steps %ld\n", taken);
  if (taken > 0) printf("cpu_per_step_s %.6f\n", cpu_steps / taken);
  if (taken > 0) {
    printf("wall_per_step_s %.6f\ncollide_per_step_s %.6f\nassemble_per_step_s %.6f\nsolve_per_step_s %.6f\n",
           wall_sum / taken, col_sum / taken, asm_sum / taken, sol_sum / taken);
    printf("first_step_wall_s %.6f\n", first_wall);
    printf("iterations_per_step %.1f\nunconverged_steps %ld\nmax_contacts %ld\n", (double)iter_sum / taken, unsolved,
           contacts_max);
    printf("solves_per_step %.3f\nsolves_max %ld\n", (double)solves_sum / taken, solves_max);
    printf("set_miss_steps %ld\nset_misses_max %ld\n", miss_steps, miss_max);
    printf("kinetic_energy_peak %.6g\nkinetic_energy_final %.6g\nke_ratio_final %.3g\n", ke_peak, ke,
           ke_peak > 0 ? ke / ke_peak : 0.0);
    printf("penetration_max_m %.6g\npenetration_final_m %.6g\n", pen_max, pen_last);
  }
  printf("state_hash %016llx\n", (unsigned long long)clt_world_state_hash(world));
  if (dump_path) {
    FILE *f = fopen(dump_path, "wb");
    for (int i = 0; f && i < world->body_count; i++) {
      fwrite(world->states[i].position, sizeof(double), 3, f);
      fwrite(world->states[i].velocity, sizeof(double), 3, f);
    }
    if (f) fclose(f);
  }

  /* The broad phase alone at the final state, margin ε̂: on the shapes' own boxes (broadphase_*), and
   * with each body's sweep of the last step as the relaxed step's first solve queries it
   * (broadphase_swept_*). The proxies are placed again first: the step gives their pages back
   * after its search (stage_solve_relaxed.c, release_search), so what is left there is zeros. */
  clt_step_work_t *w = world->step_work;
  for (int swept = 0; swept < 2 && w; swept++) {
    const double *sweep = swept && w->relaxed ? w->relaxed->own : NULL;
    if (swept && !sweep) break;
    if (clt_place_proxies(world, w, sweep) != CLT_OK) break;
    clt_broadphase_t bp;
    clt_broadphase_init(&bp);
    double times[7];
    for (int r = 0; r < 7; r++) {
      double s = cpu_now();
      clt_broadphase_find_pairs(&bp, w->proxies, world->shape_count, world->dimension, world->method.active_set_eps);
      times[r] = cpu_now() - s; /* CPU time, median of 7 */
    }
    qsort(times, 7, sizeof times[0], compare_double);
    const char *tag = swept ? "broadphase_swept" : "broadphase";
    printf("%s_s %.6f\n%s_pairs %d\n%s_entry_tests %lld\n%s_large %d\n%s_cell %.4f\n", tag, times[3], tag,
           bp.pair_count, tag, (long long)bp.entry_tests, tag, bp.large_count, tag, bp.cell_size);
    clt_broadphase_destroy(&bp);
  }

  /* Where the memory goes (bytes per body of each array at its current capacity). */
  printf("rss_peak_kb %ld\nrss_peak_per_body_b %.0f\nrss_growth_per_body_b %.0f\n", rss_peak, 1024.0 * rss_peak / n,
         1024.0 * (rss_peak - rss_start) / n);
  printf("sizeof_shape_def %zu\nsizeof_body_rec %zu\nsizeof_body_state %zu\nsizeof_body_def %zu\n",
         sizeof(clt_shape_def_t), sizeof(clt_body_rec_t), sizeof(clt_body_state_t), sizeof(clt_body_def_t));
  printf("world_capacity_bodies %d\nworld_capacity_shapes %d\n", world->body_capacity, world->shape_capacity);
  if (w) {
    printf("sizeof_contact %zu\nsizeof_row %zu\nwork_contact_capacity %d\nwork_row_capacity %d\n", sizeof(clt_contact_t),
           sizeof(clt_row_t), w->contact_capacity, w->row_capacity);
    printf("work_memory_capacity %d\nwork_report_capacity %d\nsizeof_memory %zu\nsizeof_report %zu\n",
           w->memory_capacity, w->report_capacity, sizeof(clt_contact_memory_t), sizeof(clt_contact_info_t));
    printf("broadphase_entry_capacity %d\nbroadphase_pair_capacity %d\nbroadphase_bucket_capacity %d\n",
           w->broadphase.entry_capacity, w->broadphase.pair_capacity, w->broadphase.bucket_capacity);
  }
  if (memory) {
    clt_relaxed_work_t *r = w ? w->relaxed : NULL;
    clt_broadphase_t *bp = w ? &w->broadphase : NULL;
    named_t known[] = {
        {"world bodies", world->bodies, 0, 0},
        {"world states", world->states, 0, 0},
        {"world backup", world->backup, 0, 0},
        {"world force_acc", world->force_acc, 0, 0},
        {"world torque_acc", world->torque_acc, 0, 0},
        {"world shape_desc", world->shape_desc, 0, 0},
        {"work inv_linear", w ? w->inv_linear : NULL, 0, 0},
        {"work inv_angular", w ? w->inv_angular : NULL, 0, 0},
        {"work dp", w ? w->dp : NULL, 0, 0},
        {"work contacts", w ? w->contacts : NULL, 0, 0},
        {"work b", w ? w->b : NULL, 0, 0},
        {"work z", w ? w->z : NULL, 0, 0},
        {"work w", w ? w->w : NULL, 0, 0},
        {"work ipiv", w ? w->ipiv : NULL, 0, 0},
        {"work block_start", w ? w->block_start : NULL, 0, 0},
        {"work proxies", w ? w->proxies : NULL, 0, 0},
        {"work memory", w ? w->memory : NULL, 0, 0},
        {"work next_memory", w ? w->next_memory : NULL, 0, 0},
        {"work body_start", w ? w->body_start : NULL, 0, 0},
        {"work body_list", w ? w->body_list : NULL, 0, 0},
        {"broadphase entries", bp ? bp->entries : NULL, 0, 0},
        {"broadphase bucket_start", bp ? bp->bucket_start : NULL, 0, 0},
        {"broadphase sort_buffer", bp ? bp->sort_buffer : NULL, 0, 0},
        {"broadphase column_key", bp ? bp->column_key : NULL, 0, 0},
        {"broadphase pair_buffer", bp ? bp->pair_buffer : NULL, 0, 0},
        {"broadphase pairs", bp ? bp->pairs : NULL, 0, 0},
        {"broadphase kept", bp ? bp->kept : NULL, 0, 0},
        {"relaxed contacts", r ? r->contacts : NULL, 0, 0},
        {"relaxed delta", r ? r->delta : NULL, 0, 0},
        {"relaxed block_A", r ? r->block_A : NULL, 0, 0},
        {"relaxed colour", r ? r->colour : NULL, 0, 0},
        {"relaxed order", r ? r->order : NULL, 0, 0},
        {"relaxed ends", r ? r->ends : NULL, 0, 0},
        {"relaxed hot", r ? r->hot : NULL, 0, 0},
        {"relaxed hot_list", r ? r->hot_list : NULL, 0, 0},
        {"relaxed dv", r ? r->dv : NULL, 0, 0},
        {"relaxed inv", r ? r->inv : NULL, 0, 0},
        {"relaxed rot", r ? r->rot : NULL, 0, 0},
        {"relaxed dyn", r ? r->dyn : NULL, 0, 0},
        {"relaxed mask", r ? r->mask : NULL, 0, 0},
        {"relaxed own", r ? r->own : NULL, 0, 0},
        {"relaxed slack", r ? r->slack : NULL, 0, 0},
        {"relaxed vlo", r ? r->vlo : NULL, 0, 0},
        {"relaxed vhi", r ? r->vhi : NULL, 0, 0},
        {"relaxed vt", r ? r->vt : NULL, 0, 0},
        {"relaxed ext", r ? r->ext : NULL, 0, 0},
        {"relaxed u0", r ? r->u0 : NULL, 0, 0},
        {"relaxed box0", r ? r->box0 : NULL, 0, 0},
        {"relaxed shape_body", r ? r->shape_body : NULL, 0, 0},
        {"relaxed link", r ? r->link : NULL, 0, 0},
        {"relaxed own_pairs", r ? r->own_pairs : NULL, 0, 0},
        {"relaxed demand", r ? r->demand : NULL, 0, 0},
        {"relaxed solved", r ? r->solved : NULL, 0, 0},
        {"relaxed round_memory", r ? r->round_memory : NULL, 0, 0},
        {"relaxed reuse_reach", r ? r->reuse_reach : NULL, 0, 0},
        {"relaxed centres", r ? r->centres : NULL, 0, 0},
        {"relaxed bearing", r ? r->bearing : NULL, 0, 0},
        {"relaxed demanded", r ? r->demanded : NULL, 0, 0},
        {"relaxed ext_changed", r ? r->ext_changed : NULL, 0, 0},
        {"relaxed reuse_type", r ? r->reuse_type : NULL, 0, 0},
        {"work row_minv", w ? w->row_minv : NULL, 0, 0},
        {"work scratch", w ? w->scratch : NULL, 0, 0},
        {"broadphase block", bp ? bp->block : NULL, 0, 0},
        {"broadphase large", bp ? bp->large : NULL, 0, 0},
        {"world names", world->names, 0, 0},
        {"world body_extras", world->body_extras, 0, 0},
    };
    memory_map(known, (int)(sizeof known / sizeof known[0]), n);
  }
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return 0;
}
