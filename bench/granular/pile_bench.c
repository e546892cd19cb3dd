/* bench/granular: one pile run (scenes/papers/pile.json or any scene) measured from inside the
 * process: scene parse and world build time, per-step wall time split (collide / assemble / solve,
 * from the step diagnostics), kinetic energy against its peak, penetration, and memory: peak RSS
 * (getrusage), the step workspace's bytes (the diagnostics' work_bytes) and where it goes
 * (clt_world_memory). Built and run by bench/granular/run; prints `key value` lines that the script
 * collects. It uses the public API only (include/clatter/).
 *
 * usage: pile_bench SCENE.json [--param NAME=VALUE ...] [--set PATH=VALUE ...] [--steps K]
 *                   [--every M]   (print a step line every M steps; 0: none)
 *                   [--dump FILE] (the final positions and velocities, 6 doubles per body, raw:
 *                                  to compare two builds body by body)
 *                   [--memory]    (the resident size of each workspace array at the end, largest first,
 *                                  and a line `rss_peak_rise` for each step that raised the peak RSS by
 *                                  256 kB or more: where in the run the peak is made) */
#define _DEFAULT_SOURCE
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "clatter/clatter.h"
#include "clatter/scene.h"

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

/* --memory: the resident size of each buffer of the world and its step workspace at the end of the
 * run (clt_world_memory: buffers that only grow keep the pages of their peak), largest first,
 * against the process's whole resident anonymous memory (/proc/self/smaps). */
static int compare_resident(const void *a, const void *b) {
  size_t x = ((const clt_memory_entry_t *)a)->resident, y = ((const clt_memory_entry_t *)b)->resident;
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

static void memory_map(const clt_world_t *world, int bodies) {
  int count = clt_world_memory(world, NULL, 0);
  clt_memory_entry_t *e = calloc((size_t)(count > 0 ? count : 1), sizeof *e);
  if (!e) return;
  count = clt_world_memory(world, e, count);
  qsort(e, (size_t)count, sizeof *e, compare_resident);
  size_t sum = 0;
  printf("memory_map begin (resident kB, B a body, allocated kB, array)\n");
  for (int i = 0; i < count; i++) {
    sum += e[i].resident;
    if (e[i].resident >= 64 * 1024)
      printf("  %8zu %7.0f %8zu %s\n", e[i].resident / 1024, (double)e[i].resident / bodies, e[i].bytes / 1024,
             e[i].name);
  }
  long total = anonymous_resident_kb();
  printf("memory_map end: anonymous resident %ld kB (%.0f B a body), in the arrays above %zu kB, elsewhere %ld kB "
         "(%.0f B a body)\n",
         total, 1024.0 * total / bodies, sum / 1024, total - (long)(sum / 1024), (1024.0 * total - (double)sum) / bodies);
  free(e);
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
    for (int i = 0; f && i < n; i++) {
      clt_body_state_t st;
      if (clt_body_get_state(world, clt_world_body_at(world, i), &st) != CLT_OK) break;
      fwrite(st.position, sizeof(double), 3, f);
      fwrite(st.velocity, sizeof(double), 3, f);
    }
    if (f) fclose(f);
  }

  /* Where the memory goes. */
  printf("rss_peak_kb %ld\nrss_peak_per_body_b %.0f\nrss_growth_per_body_b %.0f\n", rss_peak, 1024.0 * rss_peak / n,
         1024.0 * (rss_peak - rss_start) / n);
  clt_diagnostics_t last;
  if (clt_world_get_diagnostics(world, &last) == CLT_OK)
    printf("work_bytes %lld\nwork_bytes_per_body %.0f\n", (long long)last.work_bytes, (double)last.work_bytes / n);
  if (memory) memory_map(world, n);
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return 0;
}
