/* bench_lcp: clatter's LCP solvers against Siconos numerics (Debian libsiconos-numerics-dev) on
 * every LCP file of a folder, in the same run, at the same tolerance:
 *   clatter Lemke (lexicographic, SPEC.md §2.1)  vs  Siconos lcp_lexicolemke
 *   clatter BGS/PGS (scalar, SPEC.md §2.2)       vs  Siconos lcp_pgs
 * Both get the identical problem (Siconos' matrix is built from the array our reader loaded, in
 * its column-major dense storage). Each solve is repeated until it has run ≥ --min-time seconds,
 * and the best mean per batch is kept. Errors are recomputed for both answers with the residual
 * of clatter's solvers.h (the "cerr" of the data README, scaled by 1 + ‖q‖∞).
 *
 * usage: bench_lcp [--min-time S] [--tolerance X] DIR_OR_FILES...   (prints Markdown) */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clatter/problems.h"
#include "clatter/solvers.h"

#include "siconos/numerics/LCP_Solvers.h"
#include "siconos/numerics/LinearComplementarityProblem.h"
#include "siconos/numerics/NumericsMatrix.h"
#include "siconos/numerics/NumericsVerbose.h"
#include "siconos/numerics/SolverOptions.h"
#include "siconos/numerics/lcp_cst.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct bench_case_t {
  const clt_lcp_t *lcp;
  LinearComplementarityProblem *sic;
  int which; /* 0 lemke, 1 pgs */
  double tolerance;
  int max_iterations;
  double *z, *w;
  /* outcomes of the last run */
  const char *status;
  int iterations;
} bench_case_t;

static void run_ours(bench_case_t *c) {
  clt_solver_options_t o = clt_default_solver_options();
  o.tolerance = c->tolerance;
  o.max_iterations = c->max_iterations;
  o.threads = 1;
  clt_solve_result_t r;
  clt_lcp_solve(c->which == 0 ? CLT_SOLVER_LEMKE : CLT_SOLVER_BGS, c->lcp, &o, c->z, c->w, &r);
  c->iterations = r.iterations;
  c->status = clt_solver_status_name(r.status);
}

static void run_siconos(bench_case_t *c) {
  SolverOptions *so = solver_options_create(c->which == 0 ? SICONOS_LCP_LEMKE : SICONOS_LCP_PGS);
  so->iparam[SICONOS_IPARAM_MAX_ITER] = c->max_iterations;
  so->dparam[SICONOS_DPARAM_TOL] = c->tolerance;
  int info = 0;
  for (int i = 0; i < c->lcp->n; i++) c->z[i] = c->w[i] = 0.0;
  if (c->which == 0)
    lcp_lexicolemke(c->sic, c->z, c->w, &info, so);
  else
    lcp_pgs(c->sic, c->z, c->w, &info, so);
  c->iterations = so->iparam[SICONOS_IPARAM_ITER_DONE];
  c->status = info == 0 ? "info=0" : (info == 1 ? "info=1" : (info == 2 ? "info=2" : "info>2"));
  solver_options_delete(so);
}

/* Mean seconds per solve: batches of growing size until min_time, best batch mean of three. */
static double time_it(void (*fn)(bench_case_t *), bench_case_t *c, double min_time) {
  fn(c); /* warm-up, and the outcome reported */
  int reps = 1;
  for (;;) {
    double t0 = now();
    for (int r = 0; r < reps; r++) fn(c);
    double dt = now() - t0;
    if (dt >= min_time / 3.0 || reps >= (1 << 24)) {
      double best = dt / reps;
      for (int k = 0; k < 2; k++) {
        t0 = now();
        for (int r = 0; r < reps; r++) fn(c);
        double m = (now() - t0) / reps;
        if (m < best) best = m;
      }
      return best;
    }
    reps *= 2;
  }
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  double min_time = 0.2, tolerance = 1e-10;
  int max_iterations = 100000;
  char *files[512];
  int nfiles = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--min-time") == 0 && i + 1 < argc) {
      min_time = atof(argv[++i]);
    } else if (strcmp(argv[i], "--tolerance") == 0 && i + 1 < argc) {
      tolerance = atof(argv[++i]);
    } else {
      DIR *d = opendir(argv[i]);
      if (d) {
        struct dirent *e;
        while ((e = readdir(d)) && nfiles < 512) {
          size_t len = strlen(e->d_name);
          if (len > 4 && strcmp(e->d_name + len - 4, ".dat") == 0) {
            size_t sz = strlen(argv[i]) + len + 2;
            files[nfiles] = malloc(sz);
            snprintf(files[nfiles++], sz, "%s/%s", argv[i], e->d_name);
          }
        }
        closedir(d);
      } else if (nfiles < 512) {
        size_t sz = strlen(argv[i]) + 1;
        files[nfiles] = malloc(sz);
        memcpy(files[nfiles++], argv[i], sz);
      }
    }
  }
  qsort(files, (size_t)nfiles, sizeof files[0], compare_names);
  numerics_set_verbose(0);
  double total[2][2] = {{0, 0}, {0, 0}};
  int both_solved_pgs = 0;
  double total_pgs_both[2] = {0, 0};
  printf(
      "| file | n | solver | clatter status | it | clatter residual | clatter ms | Siconos info | "
      "it | "
      "Siconos residual | Siconos ms | ratio clatter/Siconos |\n");
  printf("|---|---:|---|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
  for (int f = 0; f < nfiles; f++) {
    clt_problem_file_t prob;
    char message[512];
    if (clt_problem_file_load(files[f], &prob, message, sizeof message) != CLT_OK ||
        prob.kind != CLT_PROBLEM_LCP) {
      fprintf(stderr, "bench_lcp: skipping %s: %s\n", files[f], message);
      continue;
    }
    int n = prob.lcp_n;
    clt_lcp_t lcp = {.n = n, .M = &prob.lcp_M, .q = prob.lcp_q};
    /* Siconos: the same numbers, dense column-major. */
    double *colmajor = malloc(sizeof(double) * (size_t)n * (size_t)n);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        colmajor[(size_t)j * (size_t)n + (size_t)i] = clt_matrix_get(&prob.lcp_M, i, j);
    double *qcopy = malloc(sizeof(double) * (size_t)n);
    memcpy(qcopy, prob.lcp_q, sizeof(double) * (size_t)n);
    LinearComplementarityProblem sic = {
        .size = n, .M = NM_create_from_data(NM_DENSE, n, n, colmajor), .q = qcopy};
    double *z = calloc((size_t)n, sizeof(double)), *w = calloc((size_t)n, sizeof(double));
    const char *name = strrchr(files[f], '/') ? strrchr(files[f], '/') + 1 : files[f];
    for (int which = 0; which < 2; which++) {
      bench_case_t c = {.lcp = &lcp,
                        .sic = &sic,
                        .which = which,
                        .tolerance = tolerance,
                        .max_iterations = max_iterations,
                        .z = z,
                        .w = w};
      double t_ours = time_it(run_ours, &c, min_time);
      run_ours(&c);
      const char *st_ours = c.status;
      int it_ours = c.iterations;
      double res_ours = clt_lcp_residual(&lcp, z);
      double t_sic = time_it(run_siconos, &c, min_time);
      run_siconos(&c);
      double res_sic = clt_lcp_residual(&lcp, z);
      total[which][0] += t_ours;
      total[which][1] += t_sic;
      if (which == 1 && strcmp(st_ours, "solved") == 0 && strcmp(c.status, "info=0") == 0) {
        both_solved_pgs++;
        total_pgs_both[0] += t_ours;
        total_pgs_both[1] += t_sic;
      }
      char res_text[32];
      if (strcmp(st_ours, "error") == 0)
        snprintf(res_text, sizeof res_text, "—");
      else
        snprintf(res_text, sizeof res_text, "%.2e", res_ours);
      printf("| %s | %d | %s | %s | %d | %s | %.4f | %s | %d | %.2e | %.4f | %.2f |\n", name, n,
             which == 0 ? "lemke" : "pgs", st_ours, it_ours, res_text, 1e3 * t_ours, c.status,
             c.iterations, res_sic, 1e3 * t_sic, t_ours / t_sic);
      fflush(stdout);
    }
    free(z);
    free(w);
    NM_free(sic.M);
    free(qcopy);
    clt_problem_file_free(&prob);
  }
  printf("\n**Total Lemke time over all %d files:** clatter %.4f ms, Siconos %.4f ms, ratio %.2f\n",
         nfiles, 1e3 * total[0][0], 1e3 * total[0][1], total[0][0] / total[0][1]);
  printf(
      "\n**Total PGS time over all files:** clatter %.4f ms, Siconos %.4f ms, ratio %.2f "
      "(includes the files where one side stops at once: zero diagonal)\n",
      1e3 * total[1][0], 1e3 * total[1][1], total[1][0] / total[1][1]);
  printf("\n**PGS on the %d files both solve:** clatter %.4f ms, Siconos %.4f ms, ratio %.2f\n",
         both_solved_pgs, 1e3 * total_pgs_both[0], 1e3 * total_pgs_both[1],
         total_pgs_both[1] > 0 ? total_pgs_both[0] / total_pgs_both[1] : NAN);
  for (int f = 0; f < nfiles; f++) free(files[f]);
  return 0;
}
