/* Shared by test_fc_data.c and test_fc_data_large.c: solve one frictional-contact file of
 * shared/data/fc with the exact-cone NSGS, check the answer independently (natural-map error
 * recomputed from r; for global problems also M v = H r + f and u = Hᵀ v + w), print a table
 * row. Included once per test executable. */
#ifndef CLATTER_TEST_FC_COMMON_H
#define CLATTER_TEST_FC_COMMON_H

#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clatter/problems.h"
#include "test_util.h"

#define FC_TOLERANCE 1e-8
#define FC_MAX_SWEEPS 20000

static double fc_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fc_print_header(void) {
  printf("| file | d | contacts | status | sweeps | error (rel) | error (abs) | ms |\n");
  printf("|---|---:|---:|---|---:|---:|---:|---:|\n");
}

/* Solves the file; returns 1 when the solver reports SOLVED and the recomputed error is within
 * the tolerance (asserted as consistent), 0 otherwise; -1 when the file cannot be loaded. */
static int fc_solve_file_limited(const char *name, int max_sweeps);
static int fc_solve_file(const char *name) { return fc_solve_file_limited(name, FC_MAX_SWEEPS); }

static int fc_solve_file_limited(const char *name, int max_sweeps) {
  char path[2048], message[512];
  snprintf(path, sizeof path, "%s/data/fc/%s", clt_test_env("CLATTER_SHARED_DIR"), name);
  clt_problem_file_t p;
  if (clt_problem_file_load(path, &p, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "%s\n", message);
    CHECK(0);
    return -1;
  }
  clt_solver_options_t o = clt_default_solver_options();
  o.tolerance = FC_TOLERANCE;
  o.max_iterations = max_sweeps;
  clt_solve_result_t res;
  clt_status_t st;
  double err = NAN, abs_err = NAN;
  int d, nc;
  double t0 = fc_now();
  if (p.kind == CLT_PROBLEM_FC_LOCAL) {
    d = p.local.dim, nc = p.local.contacts;
    const int m = d * nc;
    double *r = calloc((size_t)m + 1, sizeof *r), *u = calloc((size_t)m + 1, sizeof *u);
    st = clt_fc_local_solve(&p.local, &o, r, u, &res);
    t0 = fc_now() - t0;
    err = clt_fc_local_error(&p.local, r, &abs_err);
    /* the u returned is W r + q */
    double *check = calloc((size_t)m + 1, sizeof *check), du = 0.0, un = 0.0;
    clt_matrix_multiply(&p.local.W, r, check);
    for (int k = 0; k < m; k++) {
      du = fmax(du, fabs(check[k] + p.local.q[k] - u[k]));
      un = fmax(un, fabs(u[k]));
    }
    CHECK_LE(du, 1e-12 * (1.0 + un));
    free(check);
    free(r);
    free(u);
  } else {
    const clt_fc_global_t *g = &p.global;
    d = g->dim, nc = g->contacts;
    const int m = d * nc, n = g->n;
    double *r = calloc((size_t)m + 1, sizeof *r), *u = calloc((size_t)m + 1, sizeof *u);
    double *v = calloc((size_t)n + 1, sizeof *v);
    st = clt_fc_global_solve(g, &o, v, r, u, &res);
    t0 = fc_now() - t0;
    clt_fc_local_t condensed;
    CHECK(clt_fc_global_condense(g, &condensed) == CLT_OK);
    err = clt_fc_local_error(&condensed, r, &abs_err);
    clt_fc_local_free(&condensed);
    /* M v = H r + f and u = Hᵀ v + w */
    double *Mv = calloc((size_t)n + 1, sizeof *Mv), *Hr = calloc((size_t)n + 1, sizeof *Hr);
    clt_matrix_multiply(&g->M, v, Mv);
    clt_matrix_multiply(&g->H, r, Hr);
    double dv = 0.0, scale = 0.0;
    for (int k = 0; k < n; k++) {
      dv = fmax(dv, fabs(Mv[k] - Hr[k] - g->f[k]));
      scale = fmax(scale, fabs(Hr[k]) + fabs(g->f[k]));
    }
    CHECK_LE(dv, 1e-9 * (1.0 + scale));
    double du = 0.0, us = 0.0;
    for (int j = 0; j < m; j++) {
      double s = g->w[j];
      for (int k = 0; k < n; k++) s += clt_matrix_get(&g->H, k, j) * v[k];
      du = fmax(du, fabs(s - u[j]));
      us = fmax(us, fabs(s));
    }
    CHECK_LE(du, 1e-12 * (1.0 + us));
    free(Mv);
    free(Hr);
    free(r);
    free(u);
    free(v);
  }
  CHECK(st == CLT_OK);
  /* the reported residual is the recomputed one, and SOLVED only within the tolerance */
  CHECK_NEAR(res.residual, err, 1e-12 + 1e-9 * err);
  if (res.status == CLT_SOLVE_SOLVED) CHECK_LE(err, FC_TOLERANCE);
  else CHECK(err > FC_TOLERANCE);
  printf("| %s | %d | %d | %s | %d | %.2e | %.2e | %.1f |\n", name, d, nc,
         clt_solver_status_name(res.status), res.iterations, err, abs_err, 1e3 * t0);
  fflush(stdout);
  clt_problem_file_free(&p);
  return res.status == CLT_SOLVE_SOLVED && err <= FC_TOLERANCE;
}

#endif
