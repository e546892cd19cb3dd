/* bench_fc: clatter's exact-cone NSGS (src/solvers/fc_nsgs.c) against Siconos numerics' NSGS
 * (Debian libsiconos-numerics-dev 4.4.0) on every frictional-contact file of a folder, in the
 * same run, at the same tolerance and iteration limit:
 *   local 3D  clatter clt_fc_local_solve   vs  fc3d_driver  SICONOS_FRICTION_3D_NSGS
 *   local 2D  clatter clt_fc_local_solve   vs  fc2d_driver  SICONOS_FRICTION_2D_NSGS
 *   global    clatter clt_fc_global_solve  vs  gfc3d_driver SICONOS_GLOBAL_FRICTION_3D_NSGS_WR
 * Siconos gets the same numbers: .dat files through its own reader (frictionContact_newFromFile;
 * a CSparse W is converted to 2×2/3×3 SBM blocks because 4.4.0's fc2d_driver aborts on sparse
 * storage, data README §5.2), FCLIB local files as SBM built from the W our reader loaded,
 * global files as sparse M and H (dense when M is not diagonal: 4.4.0 crashes otherwise), a
 * fresh copy per run since NSGS_WR keeps state in the problem. Both answers are scored with the same measure: the natural-map
 * error of data README §2.2 (for global problems, of the condensed local problem), relative to
 * ‖q‖ and absolute. Each solve is repeated until it has run ≥ --min-time seconds; the best batch
 * mean is kept.
 *
 * usage: bench_fc [--min-time S] [--tolerance X] [--max-iterations N] DIR_OR_FILES...
 *        (prints a Markdown table) */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, clock_gettime */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clatter/problems.h"
#include "clatter/solvers.h"

#include "siconos/numerics/CSparseMatrix.h"
#include "siconos/numerics/FrictionContactProblem.h"
#include "siconos/numerics/Friction_cst.h"
#include "siconos/numerics/GlobalFrictionContactProblem.h"
#include "siconos/numerics/NonSmoothDrivers.h"
#include "siconos/numerics/NumericsMatrix.h"
#include "siconos/numerics/NumericsVerbose.h"
#include "siconos/numerics/SolverOptions.h"
#include "siconos/numerics/SparseBlockMatrix.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct bench_case_t {
  const clt_problem_file_t *prob;
  FrictionContactProblem *sic_local;
  GlobalFrictionContactProblem *sic_global;
  const clt_fc_global_t *global_source; /* global: Siconos' problem is rebuilt for every run */
  double driver_seconds;                /* global: time inside gfc3d_driver, summed */
  int runs;
  double tolerance;
  int max_iterations;
  double *r, *u, *v;
  int m, n;
  /* outcome of the last run */
  char status[32];
  int iterations;
} bench_case_t;

static void run_ours(bench_case_t *c) {
  clt_solver_options_t o = clt_default_solver_options();
  o.tolerance = c->tolerance;
  o.max_iterations = c->max_iterations;
  o.threads = 1;
  clt_solve_result_t res;
  if (c->prob->kind == CLT_PROBLEM_FC_LOCAL)
    clt_fc_local_solve(&c->prob->local, &o, c->r, c->u, &res);
  else
    clt_fc_global_solve(&c->prob->global, &o, c->v, c->r, c->u, &res);
  c->iterations = res.iterations;
  snprintf(c->status, sizeof c->status, "%s", clt_solver_status_name(res.status));
}

static GlobalFrictionContactProblem *siconos_global(const clt_fc_global_t *p);

static void run_siconos(bench_case_t *c) {
  int info;
  c->runs++;
  memset(c->r, 0, sizeof(double) * (size_t)c->m);
  memset(c->u, 0, sizeof(double) * (size_t)c->m);
  SolverOptions *so;
  if (c->global_source) {
    /* a fresh problem per run: 4.4.0's NSGS_WR keeps state in the problem (its reformulation)
     * and a second call on the same problem crashes (SIGFPE); only the driver call is timed */
    if (c->sic_global) globalFrictionContact_free(c->sic_global);
    c->sic_global = siconos_global(c->global_source);
    memset(c->v, 0, sizeof(double) * (size_t)c->n);
    so = solver_options_create(SICONOS_GLOBAL_FRICTION_3D_NSGS_WR);
    so->iparam[SICONOS_IPARAM_MAX_ITER] = c->max_iterations;
    so->dparam[SICONOS_DPARAM_TOL] = c->tolerance;
    if (so->numberOfInternalSolvers > 0) {
      so->internalSolvers[0]->iparam[SICONOS_IPARAM_MAX_ITER] = c->max_iterations;
      so->internalSolvers[0]->dparam[SICONOS_DPARAM_TOL] = c->tolerance;
    }
    /* 4.4.0 prints the reformulated problem on stdout for a dense M: keep the table clean */
    fflush(stdout);
    int saved = dup(STDOUT_FILENO), devnull = open("/dev/null", O_WRONLY);
    if (saved >= 0 && devnull >= 0) dup2(devnull, STDOUT_FILENO);
    double t0 = now();
    info = gfc3d_driver(c->sic_global, c->r, c->u, c->v, so);
    c->driver_seconds += now() - t0;
    fflush(stdout);
    if (saved >= 0 && devnull >= 0) dup2(saved, STDOUT_FILENO);
    if (saved >= 0) close(saved);
    if (devnull >= 0) close(devnull);
  } else {
    const int d = c->sic_local->dimension;
    so = solver_options_create(d == 2 ? SICONOS_FRICTION_2D_NSGS : SICONOS_FRICTION_3D_NSGS);
    so->iparam[SICONOS_IPARAM_MAX_ITER] = c->max_iterations;
    so->dparam[SICONOS_DPARAM_TOL] = c->tolerance;
    info = d == 2 ? fc2d_driver(c->sic_local, c->r, c->u, so)
                  : fc3d_driver(c->sic_local, c->r, c->u, so);
  }
  c->iterations = so->iparam[SICONOS_IPARAM_ITER_DONE];
  if (c->global_source && so->numberOfInternalSolvers > 0 && c->iterations == 0)
    c->iterations = so->internalSolvers[0]->iparam[SICONOS_IPARAM_ITER_DONE];
  snprintf(c->status, sizeof c->status, "info=%d", info);
  solver_options_delete(so);
}

/* Mean seconds per solve: batches of growing size until min_time/3, best batch mean of three. */
static double time_it(void (*fn)(bench_case_t *), bench_case_t *c, double min_time) {
  double t0 = now();
  fn(c); /* warm-up */
  double first = now() - t0;
  if (first >= min_time) return first; /* long solves: one run is the measure */
  int reps = 1;
  for (;;) {
    t0 = now();
    for (int k = 0; k < reps; k++) fn(c);
    double dt = now() - t0;
    if (dt >= min_time / 3.0 || reps >= (1 << 20)) {
      double best = dt / reps;
      for (int k = 0; k < 2; k++) {
        t0 = now();
        for (int j = 0; j < reps; j++) fn(c);
        double mean = (now() - t0) / reps;
        if (mean < best) best = mean;
      }
      return best;
    }
    reps *= 2;
  }
}

/* A Siconos sparse (CSC) matrix from one of ours. */
static NumericsMatrix *siconos_sparse(const clt_matrix_t *A) {
  NumericsMatrix *S = NM_create(NM_SPARSE, A->rows, A->cols);
  int nnz = 0;
  for (int i = 0; i < A->rows; i++)
    for (int j = 0; j < A->cols; j++)
      if (A->kind == CLT_MATRIX_DENSE && A->values[(size_t)i * A->cols + j] != 0.0) nnz++;
  if (A->kind == CLT_MATRIX_CSR) nnz = A->row_ptr[A->rows];
  NM_triplet_alloc(S, nnz > 0 ? nnz : 1);
  CSparseMatrix *T = S->matrix2->triplet;
  for (int i = 0; i < A->rows; i++) {
    if (A->kind == CLT_MATRIX_DENSE) {
      for (int j = 0; j < A->cols; j++) {
        double x = A->values[(size_t)i * A->cols + j];
        if (x != 0.0) CSparseMatrix_entry(T, i, j, x);
      }
    } else {
      for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
        CSparseMatrix_entry(T, i, A->col_index[k], A->values[k]);
    }
  }
  S->matrix2->origin = NSM_TRIPLET;
  return S;
}

/* SBM with d×d blocks from a Siconos sparse matrix. */
static NumericsMatrix *siconos_sbm(NumericsMatrix *sparse, int d) {
  SparseBlockStructuredMatrix *sbm = SBM_new();
  SBM_from_csparse(d, NM_csc(sparse), sbm);
  return NM_new_SBM(sparse->size0, sparse->size1, sbm);
}

static FrictionContactProblem *siconos_local(const char *path, const clt_fc_local_t *p) {
  size_t len = strlen(path);
  FrictionContactProblem *fc = NULL;
  if (len > 4 && strcmp(path + len - 4, ".dat") == 0) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    fc = frictionContact_newFromFile(f);
    fclose(f);
    if (fc && fc->M->storageType == NM_SPARSE) {
      NumericsMatrix *sbm = siconos_sbm(fc->M, fc->dimension);
      NM_free(fc->M);
      fc->M = sbm;
    }
    return fc;
  }
  const int m = p->dim * p->contacts;
  NumericsMatrix *sparse = siconos_sparse(&p->W);
  NumericsMatrix *W = siconos_sbm(sparse, p->dim);
  NM_free(sparse);
  double *q = malloc(sizeof(double) * (size_t)m), *mu = malloc(sizeof(double) * (size_t)p->contacts);
  memcpy(q, p->q, sizeof(double) * (size_t)m);
  memcpy(mu, p->mu, sizeof(double) * (size_t)p->contacts);
  return frictionContactProblem_new_with_data(p->dim, p->contacts, W, q, mu);
}

static GlobalFrictionContactProblem *siconos_global(const clt_fc_global_t *p) {
  GlobalFrictionContactProblem *g = globalFrictionContactProblem_new();
  const int m = p->dim * p->contacts;
  g->dimension = p->dim;
  g->numberOfContacts = p->contacts;
  /* a non-diagonal M goes dense: 4.4.0's NM_LU_inv path of the reformulation crashes (SIGFPE
   * in NM_internalData_copy) on a triplet-only M */
  int diagonal = 1;
  for (int i = 0; i < p->M.rows && diagonal; i++)
    for (int j = 0; j < p->M.cols; j++)
      if (j != i && clt_matrix_get(&p->M, i, j) != 0.0) { diagonal = 0; break; }
  if (diagonal) {
    g->M = siconos_sparse(&p->M);
  } else {
    double *dense = malloc(sizeof(double) * (size_t)p->n * (size_t)p->n);
    for (int i = 0; i < p->n; i++)
      for (int j = 0; j < p->n; j++) dense[(size_t)j * p->n + i] = clt_matrix_get(&p->M, i, j);
    g->M = NM_create_from_data(NM_DENSE, p->n, p->n, dense);
  }
  if (diagonal) {
    g->H = siconos_sparse(&p->H);
  } else { /* dense too: the reformulated W must be dense for fc3d_nsgs (it crashes otherwise) */
    double *dense = malloc(sizeof(double) * (size_t)p->n * (size_t)m + 1);
    for (int i = 0; i < p->n; i++)
      for (int j = 0; j < m; j++) dense[(size_t)j * p->n + i] = clt_matrix_get(&p->H, i, j);
    g->H = NM_create_from_data(NM_DENSE, p->n, m, dense);
  }
  g->q = malloc(sizeof(double) * (size_t)p->n);
  g->b = malloc(sizeof(double) * (size_t)m);
  g->mu = malloc(sizeof(double) * (size_t)p->contacts);
  memcpy(g->q, p->f, sizeof(double) * (size_t)p->n);
  memcpy(g->b, p->w, sizeof(double) * (size_t)m);
  memcpy(g->mu, p->mu, sizeof(double) * (size_t)p->contacts);
  return g;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_problem_name(const char *name) {
  size_t len = strlen(name);
  return (len > 4 && strcmp(name + len - 4, ".dat") == 0) ||
         (len > 5 && strcmp(name + len - 5, ".hdf5") == 0);
}

int main(int argc, char **argv) {
  double min_time = 0.3, tolerance = 1e-8;
  int max_iterations = 10000;
  char *files[512];
  int nfiles = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--min-time") == 0 && i + 1 < argc) {
      min_time = atof(argv[++i]);
    } else if (strcmp(argv[i], "--tolerance") == 0 && i + 1 < argc) {
      tolerance = atof(argv[++i]);
    } else if (strcmp(argv[i], "--max-iterations") == 0 && i + 1 < argc) {
      max_iterations = atoi(argv[++i]);
    } else {
      DIR *d = opendir(argv[i]);
      if (d) {
        struct dirent *e;
        while ((e = readdir(d)) && nfiles < 512) {
          if (!is_problem_name(e->d_name)) continue;
          size_t sz = strlen(argv[i]) + strlen(e->d_name) + 2;
          files[nfiles] = malloc(sz);
          snprintf(files[nfiles++], sz, "%s/%s", argv[i], e->d_name);
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
  printf("Tolerance %.0e on the natural-map error, at most %d iterations, one thread.\n\n",
         tolerance, max_iterations);
  printf("| file | d | contacts | clatter status | it | clatter err (rel / abs) | clatter ms | "
         "Siconos info | it | Siconos err (rel / abs) | Siconos ms | ratio clatter/Siconos |\n");
  printf("|---|---:|---:|---|---:|---|---:|---|---:|---|---:|---:|\n");
  double total_both[2] = {0.0, 0.0};
  int count_both = 0, slower = 0;
  for (int f = 0; f < nfiles; f++) {
    clt_problem_file_t prob;
    char message[512];
    if (clt_problem_file_load(files[f], &prob, message, sizeof message) != CLT_OK ||
        prob.kind == CLT_PROBLEM_LCP) {
      fprintf(stderr, "bench_fc: skipping %s: %s\n", files[f], message);
      continue;
    }
    /* the local problem on which both answers are scored */
    clt_fc_local_t scored;
    const clt_fc_local_t *local = &prob.local;
    if (prob.kind == CLT_PROBLEM_FC_GLOBAL) {
      if (clt_fc_global_condense(&prob.global, &scored) != CLT_OK) {
        fprintf(stderr, "bench_fc: cannot condense %s\n", files[f]);
        clt_problem_file_free(&prob);
        continue;
      }
      local = &scored;
    }
    const int d = local->dim, nc = local->contacts, m = d * nc;
    const int n = prob.kind == CLT_PROBLEM_FC_GLOBAL ? prob.global.n : 0;
    bench_case_t c = {.prob = &prob, .tolerance = tolerance, .max_iterations = max_iterations,
                      .m = m, .n = n};
    c.r = calloc((size_t)m + 1, sizeof(double));
    c.u = calloc((size_t)m + 1, sizeof(double));
    c.v = calloc((size_t)n + 1, sizeof(double));
    if (prob.kind == CLT_PROBLEM_FC_GLOBAL) c.global_source = &prob.global;
    else c.sic_local = siconos_local(files[f], &prob.local);
    const char *name = strrchr(files[f], '/') ? strrchr(files[f], '/') + 1 : files[f];

    double t_ours = time_it(run_ours, &c, min_time);
    char st_ours[32];
    snprintf(st_ours, sizeof st_ours, "%s", c.status);
    int it_ours = c.iterations;
    double abs_ours, err_ours = clt_fc_local_error(local, c.r, &abs_ours);

    double t_sic = NAN, err_sic = NAN, abs_sic = NAN;
    char st_sic[32] = "n/a";
    int it_sic = 0;
    if (c.sic_local || c.global_source) {
      if (c.global_source) {
        run_siconos(&c); /* warm-up */
        c.driver_seconds = 0.0;
        c.runs = 0;
        do run_siconos(&c);
        while (c.driver_seconds < min_time && c.runs < 1000);
        t_sic = c.driver_seconds / c.runs;
      } else {
        t_sic = time_it(run_siconos, &c, min_time);
      }
      snprintf(st_sic, sizeof st_sic, "%s", c.status);
      it_sic = c.iterations;
      err_sic = clt_fc_local_error(local, c.r, &abs_sic);
    }
    /* Siconos "solved": its own criterion (info = 0) or our measure within the tolerance */
    int sic_solved = strcmp(st_sic, "info=0") == 0 || err_sic <= tolerance;
    int both = strcmp(st_ours, "solved") == 0 && sic_solved;
    if (both) {
      count_both++;
      total_both[0] += t_ours;
      total_both[1] += t_sic;
      if (t_ours > t_sic) slower++;
    }
    printf("| %s | %d | %d | %s | %d | %.2e / %.2e | %.3f | %s | %d | %.2e / %.2e | %.3f | %.2f%s |\n",
           name, d, nc, st_ours, it_ours, err_ours, abs_ours, 1e3 * t_ours, st_sic, it_sic,
           err_sic, abs_sic, 1e3 * t_sic, t_ours / t_sic, both ? "" : " (not both solved)");
    fflush(stdout);
    free(c.r);
    free(c.u);
    free(c.v);
    if (c.sic_local) frictionContactProblem_free(c.sic_local);
    if (c.sic_global) globalFrictionContact_free(c.sic_global);
    if (local == &scored) clt_fc_local_free(&scored);
    clt_problem_file_free(&prob);
  }
  printf("\n**Files both solve to %.0e:** %d; total time clatter %.3f ms, Siconos %.3f ms, ratio "
         "%.2f; files where clatter is slower: %d\n",
         tolerance, count_both, 1e3 * total_both[0], 1e3 * total_both[1],
         total_both[1] > 0 ? total_both[0] / total_both[1] : NAN, slower);
  for (int f = 0; f < nfiles; f++) free(files[f]);
  return 0;
}
