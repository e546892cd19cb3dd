/* Lemke (SPEC.md §2.1) on every LCP of shared/data/lcp (data README §5.1): a solution with scaled
 * residual ≤ 1e-10, or a secondary ray exactly on the three problems Lemke cannot solve:
 *   lcp_CPS_3 (bimatrix game: a solution exists, but Lemke with covering vector e ends on a ray),
 *   lcp_Pang_isolated_sol_perturbed (no solution), lcp_legacy_mathieu2 (no solution).
 * Where a .sol reference exists (4–6 digits), the answer must match it to its precision. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/problems.h"
#include "clatter/solvers.h"
#include "test_util.h"

static const char *const ray_files[] = {"lcp_CPS_3.dat", "lcp_Pang_isolated_sol_perturbed.dat",
                                        "lcp_legacy_mathieu2.dat"};

static int expect_ray(const char *name) {
  for (size_t k = 0; k < sizeof ray_files / sizeof ray_files[0]; k++)
    if (strcmp(name, ray_files[k]) == 0) return 1;
  return 0;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads the reference solution next to the .dat file, if any. Returns its length (0: none). */
static int read_sol(const char *dat_path, int n, double *out) {
  char path[2100];
  snprintf(path, sizeof path, "%s", dat_path);
  char *dot = strrchr(path, '.');
  if (!dot) return 0;
  strcpy(dot, ".sol");
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int k = 0;
  while (k < n && fscanf(f, "%lf", &out[k]) == 1) k++;
  fclose(f);
  return k;
}

int main(void) {
  const char *shared = clt_test_env("CLATTER_SHARED_DIR");
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/data/lcp", shared);
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  if (!d) return clt_test_finish();
  char *names[256];
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) && count < 256) {
    size_t len = strlen(e->d_name);
    if (len > 4 && strcmp(e->d_name + len - 4, ".dat") == 0) {
      names[count] = malloc(len + 1);
      memcpy(names[count++], e->d_name, len + 1);
    }
  }
  closedir(d);
  qsort(names, (size_t)count, sizeof names[0], compare_names);
  CHECK(count == 20);
  int rays = 0;
  for (int f = 0; f < count; f++) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, names[f]);
    clt_problem_file_t prob;
    char message[512];
    clt_status_t st = clt_problem_file_load(path, &prob, message, sizeof message);
    CHECK(st == CLT_OK);
    if (st != CLT_OK) {
      fprintf(stderr, "%s\n", message);
      continue;
    }
    CHECK(prob.kind == CLT_PROBLEM_LCP);
    int n = prob.lcp_n;
    clt_lcp_t lcp = {.n = n, .M = &prob.lcp_M, .q = prob.lcp_q};
    clt_solver_options_t o = clt_default_solver_options();
    o.tolerance = 1e-10;
    double *z = calloc((size_t)n, sizeof(double)), *w = calloc((size_t)n, sizeof(double));
    double *sol = calloc((size_t)n, sizeof(double));
    clt_solve_result_t r;
    double qn = 0.0;
    for (int i = 0; i < n; i++) qn = fmax(qn, fabs(prob.lcp_q[i]));
    CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, &o, z, w, &r) == CLT_OK);
    printf("%-40s n=%3d %-14s pivots=%4d residual=%.3g %s\n", names[f], n,
           clt_solver_status_name(r.status), r.iterations, r.residual, r.message);
    /* The reported residual is the one of solvers.h, recomputed independently. */
    CHECK_NEAR(r.residual, clt_lcp_residual(&lcp, z), 1e-15 + 1e-9 * r.residual);
    if (expect_ray(names[f])) {
      rays++;
      CHECK(r.status == CLT_SOLVE_RAY);
      CHECK(r.residual > 1e-10); /* a ray is never a solution in disguise */
    } else {
      CHECK(r.status == CLT_SOLVE_SOLVED);
      CHECK_LE(r.residual, 1e-10);
      for (int i = 0; i < n; i++) {
        CHECK(z[i] >= 0.0);
        CHECK(w[i] >= -1e-10 * (1.0 + qn)); /* w = Mz + q as returned */
      }
      int ns = read_sol(path, n, sol);
      if (ns == n && strcmp(names[f], "lcp_trivial.dat") != 0) {
        for (int i = 0; i < n; i++) CHECK_NEAR(z[i], sol[i], 1e-4 * (1.0 + fabs(sol[i])));
      }
      if (strcmp(names[f], "lcp_trivial.dat") == 0 ||
          strcmp(names[f], "lcp_trivial_block.dat") == 0)
        for (int i = 0; i < n; i++) CHECK_NEAR(z[i], 1.0 / (i + 1), 1e-14);
      if (strcmp(names[f], "lcp_CPS_1.dat") == 0) CHECK_NEAR(z[0] + z[1], 1.0, 1e-12);
    }
    free(z);
    free(w);
    free(sol);
    clt_problem_file_free(&prob);
    free(names[f]);
  }
  CHECK(rays == 3);
  return clt_test_finish();
}
