/* The dedicated coloured PGS of a ReLCP pass (src/steppers/relcp_pgs.c; SPEC.md §6.2, §2.2), on
 * pass LCPs λ ≥ 0 ⊥ A λ + b ≥ 0, A = h Dᵀ B D, built like stage_relcp.c builds them: 160 dynamic
 * bodies with a random SPD mobility B (two 3×3 blocks), 640 frozen shared-normal rows J_k =
 * (−n, −r_A × n | n, r_B × n) between random body pairs, some against a static body, one hub body
 * with 80 constraints (more than the 64 conflict-free colours: the serial overflow colour runs),
 * b random with both signs. 640 > the dense limit (256): clt_relcp_solve takes the matrix-free
 * path, where method.solver = bgs runs the new solver.
 *  - the answer satisfies the LCP to the tolerance (residual of solvers.h, recomputed here from
 *    a dense A), and matches the dense Lemke answer (A is positive definite here: 640 rows, 960
 *    velocity unknowns, so λ is unique) and BBPGD's and MPRGP's w (the operator path of
 *    clt_relcp_solve with method.solver = mprgp), MPRGP in fewer products than BBPGD;
 *  - over-relaxation ω = 1.5 converges to the same answer;
 *  - the iterates are bit-identical with 1 and 2 OpenMP threads and with the parallel sweep off;
 *  - warm start from the answer: 0 sweeps; a sweep cap below what is needed reports
 *    max_iterations with the residual of the returned λ; ω outside (0, 2) is refused. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "clatter/world.h"
#include "dynamics/world_internal.h"
#include "solvers/colouring.h"
#include "steppers/relcp.h"
#include "steppers/relcp_pgs.h"
#include "relcp_test_lcp.h"
#include "test_util.h"

#define NB 160 /* dynamic bodies; body NB is static */
#define NC 640
#define HUB 80 /* constraints of body 0 */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(void) { return relcp_test_uniform(&rng_state); }

static void cross(const double a[3], const double b[3], double out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* A random SPD 3×3 block s (L Lᵀ + 0.2 s I), row-major. */
static void spd(double s, double out[9]) {
  double l[9];
  for (int k = 0; k < 9; k++) l[k] = s * (uniform() - 0.5);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double v = 0.0;
      for (int k = 0; k < 3; k++) v += l[3 * i + k] * l[3 * j + k];
      out[3 * i + j] = v + (i == j ? 0.2 * s : 0.0);
    }
}

static void mat3(const double m[9], const double x[3], double out[3]) {
  for (int i = 0; i < 3; i++) out[i] = m[3 * i] * x[0] + m[3 * i + 1] * x[1] + m[3 * i + 2] * x[2];
}

typedef struct problem_t {
  clt_world_t *world;
  clt_relcp_work_t *work;
  double h;
  double b[NC];
  double dense[NC * NC]; /* A, for the checks */
} problem_t;

static double mobility[NB][18];

static void build(problem_t *p) {
  p->world = relcp_test_world(NB);
  for (int i = 0; i < NB; i++) {
    spd(1.0 + uniform(), mobility[i]);
    spd(2.0 + 2.0 * uniform(), mobility[i] + 9);
  }
  clt_relcp_work_t *w = calloc(1, sizeof *w);
  p->work = w;
  p->h = 0.05;
  w->count = w->capacity = NC;
  w->constraints = calloc(NC, sizeof *w->constraints);
  w->bj = malloc(sizeof(double) * 12 * NC);
  w->b = malloc(sizeof(double) * NC);
  w->lambda = calloc(NC, sizeof(double));
  w->w = malloc(sizeof(double) * NC);
  w->diagonal = malloc(sizeof(double) * NC);
  for (int k = 0; k < NC; k++) {
    clt_relcp_constraint_t *c = &w->constraints[k];
    int a, bb;
    if (k < HUB) {
      a = 0;
      bb = 1 + (int)(uniform() * (NB - 1));
    } else if (k % 10 == 0) {
      a = NB; /* the static body */
      bb = 1 + (int)(uniform() * (NB - 1));
    } else {
      a = 1 + (int)(uniform() * (NB - 1));
      do bb = 1 + (int)(uniform() * (NB - 1));
      while (bb == a);
    }
    c->body_a = a;
    c->body_b = bb;
    double n[3] = {uniform() - 0.5, uniform() - 0.5, uniform() - 0.5}, ra[3], rb[3], t[3];
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int i = 0; i < 3; i++) {
      n[i] /= len;
      ra[i] = uniform() - 0.5;
      rb[i] = uniform() - 0.5;
    }
    cross(ra, n, t);
    for (int i = 0; i < 3; i++) {
      c->jac.linear_a[i] = -n[i];
      c->jac.angular_a[i] = -t[i];
      c->jac.linear_b[i] = n[i];
    }
    cross(rb, n, c->jac.angular_b);
    double *m = w->bj + 12 * (size_t)k;
    memset(m, 0, 12 * sizeof *m);
    if (a < NB) {
      mat3(mobility[a], c->jac.linear_a, m);
      mat3(mobility[a] + 9, c->jac.angular_a, m + 3);
    }
    mat3(mobility[bb], c->jac.linear_b, m + 6);
    mat3(mobility[bb] + 9, c->jac.angular_b, m + 9);
    p->b[k] = 0.02 * (uniform() - 0.6);
    w->b[k] = p->b[k];
  }
  /* dense A = h Dᵀ B D for the checks: A_kl = h Σ over shared dynamic bodies J_k,side · (B J_lᵀ) */
  relcp_test_dense(w, NC, NB, p->h, p->dense);
}

/* ‖min(λ, Aλ + b)‖∞ / (1 + ‖b‖∞) from the dense A; w_out (may be NULL) receives A λ + b. */
static double residual(const problem_t *p, const double *lambda, double *w_out) {
  return relcp_test_residual(p->dense, p->b, NC, lambda, w_out);
}

static clt_diagnostics_t solve(problem_t *p, clt_solver_kind_t kind, double tol, double omega, int cap) {
  return relcp_test_solve(p->world, p->work, p->h, kind, tol, omega, cap);
}

#define max_abs_diff relcp_test_max_abs_diff

int main(void) {
  static problem_t p;
  build(&p);
  clt_relcp_work_t *w = p.work;
  static double lemke[NC], lambda[NC], wv[NC], wl[NC], start[NC];
  const double tol = 1e-10;

  /* the exact answer: dense Lemke (clt_relcp_solve takes the dense path for Lemke) */
  memset(w->lambda, 0, sizeof(double) * NC);
  clt_diagnostics_t d = solve(&p, CLT_SOLVER_LEMKE, 1e-12, 1.0, 100000);
  CHECK(d.solver_status == CLT_SOLVE_SOLVED);
  memcpy(lemke, w->lambda, sizeof lemke);
  CHECK_LE(residual(&p, lemke, wl), 1e-10);
  int active = 0;
  double lmax = 0.0;
  for (int k = 0; k < NC; k++) {
    active += lemke[k] > 0.0;
    lmax = fmax(lmax, lemke[k]);
  }
  printf("lemke: %d of %d constraints active, max lambda %.3g\n", active, NC, lmax);
  CHECK(active > NC / 4 && active < NC); /* a real complementarity problem, not a linear system */

  /* the PGS, cold start, ω = 1 */
  memset(w->lambda, 0, sizeof(double) * NC);
  d = solve(&p, CLT_SOLVER_BGS, tol, 1.0, 100000);
  printf("pgs: %d sweeps, residual %.3g\n", d.iterations, d.residual);
  CHECK(d.solver_status == CLT_SOLVE_SOLVED);
  CHECK(d.iterations > 1);
  memcpy(lambda, w->lambda, sizeof lambda);
  double res = residual(&p, lambda, wv);
  CHECK_LE(res, tol);
  CHECK_NEAR(res, d.residual, 1e-12); /* the reported residual is that of the returned λ */
  CHECK_LE(max_abs_diff(w->w, wv, NC), 1e-12); /* work->w = A λ + b */
  CHECK_LE(max_abs_diff(lambda, lemke, NC), 1e-6 * lmax);
  CHECK_LE(max_abs_diff(wv, wl, NC), 1e-9);

  /* BBPGD on the same problem: the same w (w is unique for a PSD LCP) */
  memset(w->lambda, 0, sizeof(double) * NC);
  d = solve(&p, CLT_SOLVER_BBPGD, tol, 1.0, 100000);
  CHECK(d.solver_status == CLT_SOLVE_SOLVED);
  static double wb[NC];
  residual(&p, w->lambda, wb);
  CHECK_LE(max_abs_diff(wv, wb, NC), 1e-9);
  int bbpgd_iterations = d.iterations;
  memset(w->lambda, 0, sizeof(double) * NC);
  d = solve(&p, CLT_SOLVER_MPRGP, tol, 1.0, 100000);
  printf("bbpgd: %d iterations; mprgp: %d products, residual %.3g\n", bbpgd_iterations, d.iterations, d.residual);
  CHECK(d.solver_status == CLT_SOLVE_SOLVED);
  CHECK_LE(residual(&p, w->lambda, wb), tol);
  CHECK_LE(max_abs_diff(wv, wb, NC), 1e-9);
  CHECK(d.iterations < bbpgd_iterations);

  /* over-relaxation */
  memset(w->lambda, 0, sizeof(double) * NC);
  d = solve(&p, CLT_SOLVER_BGS, tol, 1.5, 100000);
  printf("pgs, omega 1.5: %d sweeps, residual %.3g\n", d.iterations, d.residual);
  CHECK(d.solver_status == CLT_SOLVE_SOLVED);
  CHECK_LE(residual(&p, w->lambda, NULL), tol);
  CHECK_LE(max_abs_diff(w->lambda, lemke, NC), 1e-6 * lmax);

  /* warm start from the answer: nothing to do */
  memcpy(w->lambda, lambda, sizeof lambda);
  d = solve(&p, CLT_SOLVER_BGS, tol, 1.0, 100000);
  CHECK(d.solver_status == CLT_SOLVE_SOLVED);
  CHECK(d.iterations == 0);
  CHECK(memcmp(w->lambda, lambda, sizeof lambda) == 0);

  /* a cap below what is needed: reported, with the residual of the returned λ */
  memset(w->lambda, 0, sizeof(double) * NC);
  d = solve(&p, CLT_SOLVER_BGS, tol, 1.0, 3);
  CHECK(d.solver_status == CLT_SOLVE_MAX_ITERATIONS);
  CHECK(d.iterations == 3);
  CHECK(d.residual > tol);
  CHECK_NEAR(residual(&p, w->lambda, NULL), d.residual, 1e-12);

  /* bit-identical for any thread count and with the parallel sweep off: the direct call (the
   * stage runs the sweep in parallel only from 4096 constraints) */
  for (int k = 0; k < NC; k++) start[k] = 0.5 * lemke[k] * uniform(); /* a warm start off the answer */
  static double ref[NC];
  /* (a sweep cap keeps the 2-thread run short: per-colour barriers are slow on a loaded machine) */
  clt_relcp_pgs_options_t po = {tol, 60, 1.2, false, NULL}; /* (no arena: the solve takes its own) */
  clt_solve_result_t r;
  double ref_res = 0.0;
  for (int run = 0; run < 3; run++) {
    po.parallel = run > 0;
#ifdef _OPENMP
    omp_set_num_threads(run == 2 ? 2 : 1);
#endif
    memcpy(w->lambda, start, sizeof start);
    /* diag(A) as clt_relcp_solve leaves it in work->diagonal (matrix-free path) */
    CHECK(clt_relcp_pgs_solve(w, NB + 1, p.h, &po, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_MAX_ITERATIONS);
    CHECK(r.iterations == 60);
    if (run == 0) {
      memcpy(ref, w->lambda, sizeof ref);
      ref_res = r.residual;
      printf("pgs, omega 1.2, warm, 60 sweeps: residual %.3g\n", r.residual);
    } else {
      CHECK(memcmp(ref, w->lambda, sizeof ref) == 0);
      CHECK(r.residual == ref_res);
    }
  }
  double start_res = residual(&p, start, NULL);
  printf("(from %.3g at the start)\n", start_res);
  CHECK_LE(ref_res, 0.05 * start_res); /* it did converge part of the way */
  /* and from there on to the answer */
  po.max_sweeps = 100000;
  CHECK(clt_relcp_pgs_solve(w, NB + 1, p.h, &po, &r) == CLT_OK);
  CHECK(r.status == CLT_SOLVE_SOLVED);
  CHECK_LE(max_abs_diff(w->lambda, lemke, NC), 1e-6 * lmax);

  /* the colouring: no two constraints of a conflict-free colour share a dynamic body; the hub's
   * constraints beyond 64 land in the overflow colour */
  static uint64_t mask[NB + 1];
  static int colour[NC], order[NC], seen[NB + 1];
  int cstart[CLT_COLOUR_MAX + 2];
  int colours = clt_colour_pairs(NC, w->jb, mask, colour, order, cstart);
  CHECK(colours == CLT_COLOUR_MAX + 1);
  CHECK(cstart[colours] == NC);
  bool clash = false;
  for (int c = 0; c < CLT_COLOUR_MAX; c++) {
    memset(seen, 0, sizeof seen);
    for (int k = cstart[c]; k < cstart[c + 1]; k++) {
      CHECK(colour[order[k]] == c);
      if (k > cstart[c]) CHECK(order[k] > order[k - 1]); /* constraint order within a colour */
      for (int side = 0; side < 2; side++) {
        int body = w->jb[2 * order[k] + side];
        if (body < 0) continue;
        if (seen[body]) clash = true;
        seen[body] = 1;
      }
    }
  }
  CHECK(!clash);
  CHECK(cstart[CLT_COLOUR_MAX + 1] - cstart[CLT_COLOUR_MAX] >= HUB - CLT_COLOUR_MAX);

  /* ω outside (0, 2) is refused */
  po.relaxation = 2.0;
  CHECK(clt_relcp_pgs_solve(w, NB + 1, p.h, &po, &r) == CLT_ERR_INVALID_ARGUMENT);

  clt_relcp_work_destroy(w);
  clt_world_destroy(p.world);
  return clt_test_finish();
}
