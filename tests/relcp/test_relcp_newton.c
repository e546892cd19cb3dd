/* The sparse-direct interior-point Newton of a ReLCP pass (src/steppers/relcp_newton.c; SPEC.md
 * §6.2, §2), method.solver = newton, on rank-deficient pass LCPs λ ≥ 0 ⊥ A λ + b ≥ 0,
 * A = h Dᵀ B D, built like stage_relcp.c builds them for a planar colony: 120 dynamic bodies with a
 * planar mobility (an SPD 2×2 in-plane translational block, rotation about e_z only: 3 velocity
 * unknowns each, 360 in all), 300 in-plane constraints between random pairs (some against a static
 * body), and the ReLCP pattern that makes A singular — 100 of them repeated for the same pair with a
 * normal turned by ≤ 1e-3 rad and slightly moved contact points, 20 repeated exactly: 420
 * constraints > 360 unknowns. b = c + h J a with small offsets c ≥ 0 and normals turned so that
 * every pair approaches under a (most rows bind; v = 0 is feasible: the LCP is solvable; λ is not
 * unique, w is).
 *  - the answer satisfies the LCP to the tolerance (residual of solvers.h recomputed from a dense A)
 *    without the APGD fallback (the solver's own status), in few steps, also when called alone;
 *  - its w matches that of APGD and of dense Lemke (where Lemke solves);
 *  - bit-identical on repeat, with 1 and 2 OpenMP threads and with the parallel products on;
 *  - warm start from the answer: 0 steps; a step cap below what is needed reports an unconverged
 *    solve whose residual is that of the returned λ (after the APGD fallback);
 *  - clt_lcp_solve refuses newton (it needs the pass's body structure). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "clatter/solvers.h"
#include "clatter/world.h"
#include "dynamics/world_internal.h"
#include "steppers/relcp.h"
#include "steppers/relcp_newton.h"
#include "relcp_test_lcp.h"
#include "test_util.h"

#define NB 120   /* dynamic bodies; body NB is static */
#define NBASE 300
#define NNEAR 100 /* near-parallel repeats of constraints 0..NNEAR-1 */
#define NSAME 20  /* exact repeats of constraints NNEAR..NNEAR+NSAME-1 */
#define NC (NBASE + NNEAR + NSAME)

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static double uniform(void) { return relcp_test_uniform(&rng_state); }

typedef struct problem_t {
  clt_world_t *world;
  clt_relcp_work_t *work;
  double h;
  double b[NC];
  double dense[NC * NC]; /* A, for the checks */
} problem_t;

/* planar mobility: linear block [[m00 m01 0][m01 m11 0][0 0 0]], angular block k e_z e_zᵀ */
static double mobility[NB][18];
static double base_velocity[NB][6];

static void mobility_times(int body, const double lin[3], const double ang[3], double out[6]) {
  const double *m = mobility[body];
  for (int i = 0; i < 3; i++) {
    out[i] = m[3 * i] * lin[0] + m[3 * i + 1] * lin[1] + m[3 * i + 2] * lin[2];
    out[3 + i] = m[9 + 3 * i] * ang[0] + m[9 + 3 * i + 1] * ang[1] + m[9 + 3 * i + 2] * ang[2];
  }
}

/* One in-plane shared-normal row between a and bb (bb dynamic; a may be the static body NB):
 * normal at angle theta, contact points pa, pb relative to the bodies' centres (in plane). */
static void set_row(problem_t *p, int k, int a, int bb, double theta, const double pa[2], const double pb[2],
                    double offset) {
  clt_relcp_constraint_t *c = &p->work->constraints[k];
  c->body_a = a;
  c->body_b = bb;
  double n[3] = {cos(theta), sin(theta), 0.0};
  /* angular parts r × n: only the z component is non-zero in the plane */
  double ta = pa[0] * n[1] - pa[1] * n[0], tb = pb[0] * n[1] - pb[1] * n[0];
  memset(&c->jac, 0, sizeof c->jac);
  for (int i = 0; i < 3; i++) {
    c->jac.linear_a[i] = -n[i];
    c->jac.linear_b[i] = n[i];
  }
  c->jac.angular_a[2] = -ta;
  c->jac.angular_b[2] = tb;
  double *m = p->work->bj + 12 * (size_t)k;
  memset(m, 0, 12 * sizeof *m);
  double jv = 0.0;
  if (a < NB) {
    mobility_times(a, c->jac.linear_a, c->jac.angular_a, m);
    for (int i = 0; i < 3; i++) jv += c->jac.linear_a[i] * base_velocity[a][i] + c->jac.angular_a[i] * base_velocity[a][3 + i];
  }
  mobility_times(bb, c->jac.linear_b, c->jac.angular_b, m + 6);
  for (int i = 0; i < 3; i++) jv += c->jac.linear_b[i] * base_velocity[bb][i] + c->jac.angular_b[i] * base_velocity[bb][3 + i];
  p->b[k] = offset + p->h * jv; /* b = c + h J a */
  p->work->b[k] = p->b[k];
}

static void build(problem_t *p) {
  p->world = relcp_test_world(NB);
  for (int i = 0; i < NB; i++) {
    double *m = mobility[i];
    memset(m, 0, 18 * sizeof *m);
    double l00 = 0.5 + uniform(), l10 = uniform() - 0.5, l11 = 0.5 + uniform();
    m[0] = l00 * l00;
    m[1] = m[3] = l00 * l10;
    m[4] = l10 * l10 + l11 * l11;
    m[9 + 8] = 2.0 + 2.0 * uniform();
    for (int k = 0; k < 2; k++) base_velocity[i][k] = 2.0 * (uniform() - 0.5);
    base_velocity[i][5] = uniform() - 0.5;
  }
  clt_relcp_work_t *w = calloc(1, sizeof *w);
  p->work = w;
  p->h = 0.01;
  w->count = w->capacity = NC;
  w->constraints = calloc(NC, sizeof *w->constraints);
  w->bj = malloc(sizeof(double) * 12 * NC);
  w->b = malloc(sizeof(double) * NC);
  w->lambda = calloc(NC, sizeof(double));
  w->w = malloc(sizeof(double) * NC);
  w->diagonal = malloc(sizeof(double) * NC);
  static int pair[NBASE][2];
  static double angle[NBASE], pts[NBASE][4], off[NBASE];
  for (int k = 0; k < NBASE; k++) {
    int a, bb;
    if (k % 12 == 11) {
      a = NB; /* a wall */
      bb = (int)(uniform() * NB);
    } else {
      a = (int)(uniform() * NB);
      do bb = (int)(uniform() * NB);
      while (bb == a);
    }
    pair[k][0] = a;
    pair[k][1] = bb;
    angle[k] = 6.283185307179586 * uniform();
    for (int i = 0; i < 4; i++) pts[k][i] = 0.5 * (uniform() - 0.5);
    off[k] = 0.002 * uniform();
    set_row(p, k, a, bb, angle[k], pts[k], pts[k] + 2, off[k]);
    if (p->b[k] > off[k]) { /* turn the normal so that the pair approaches: most rows bind */
      angle[k] += 3.141592653589793;
      set_row(p, k, a, bb, angle[k], pts[k], pts[k] + 2, off[k]);
    }
  }
  for (int j = 0; j < NNEAR; j++) { /* ReLCP: the same pair again, the normal frozen a pass later */
    double pa[2] = {pts[j][0] + 1e-3 * (uniform() - 0.5), pts[j][1] + 1e-3 * (uniform() - 0.5)};
    double pb[2] = {pts[j][2] + 1e-3 * (uniform() - 0.5), pts[j][3] + 1e-3 * (uniform() - 0.5)};
    set_row(p, NBASE + j, pair[j][0], pair[j][1], angle[j] + 1e-3 * (uniform() - 0.5), pa, pb,
            off[j] + 2e-5 * uniform());
  }
  for (int j = 0; j < NSAME; j++) {
    int k = NNEAR + j;
    set_row(p, NBASE + NNEAR + j, pair[k][0], pair[k][1], angle[k], pts[k], pts[k] + 2, off[k]);
  }
  /* dense A = h Dᵀ B D for the checks */
  relcp_test_dense(w, NC, NB, p->h, p->dense);
}

/* ‖min(λ, Aλ + b)‖∞ / (1 + ‖b‖∞) from the dense A (∞ if some λ < 0); w_out receives A λ + b. */
static double residual(const problem_t *p, const double *lambda, double *w_out) {
  return relcp_test_residual(p->dense, p->b, NC, lambda, w_out);
}

static clt_diagnostics_t solve(problem_t *p, clt_solver_kind_t kind, double tol, int cap) {
  return relcp_test_solve(p->world, p->work, p->h, kind, tol, 1.0, cap);
}

#define max_abs_diff relcp_test_max_abs_diff

int main(void) {
  static problem_t p;
  build(&p);
  clt_relcp_work_t *w = p.work;
  static double lambda[NC], wn[NC], wa[NC], wl[NC], ref[NC];
  const double tol = 1e-9;
  double bmax = 0.0;
  for (int k = 0; k < NC; k++) bmax = fmax(bmax, fabs(p.b[k]));
  CHECK(NC > 3 * NB); /* more constraints than velocity unknowns: A is singular */

  /* newton, cold start, through the stage's entry point (420 > the dense limit: sparse path) */
  memset(w->lambda, 0, sizeof(double) * NC);
  clt_diagnostics_t d = solve(&p, CLT_SOLVER_NEWTON, tol, 100000);
  printf("newton: %d steps, residual %.3g\n", d.iterations, d.residual);
  CHECK(d.solver_status == CLT_SOLVE_SOLVED);
  CHECK(d.iterations > 1 && d.iterations <= 60); /* Newton steps only: no APGD fallback */
  memcpy(lambda, w->lambda, sizeof lambda);
  double res = residual(&p, lambda, wn);
  CHECK_LE(res, tol);
  CHECK_NEAR(res, d.residual, 1e-12);
  CHECK_LE(max_abs_diff(w->w, wn, NC), 1e-12); /* work->w = A λ + b */
  int active = 0, near_both = 0;
  for (int k = 0; k < NC; k++) active += lambda[k] > 0.0;
  int same_both = 0;
  for (int j = 0; j < NNEAR; j++) near_both += lambda[j] > 0.0 && lambda[NBASE + j] > 0.0;
  for (int j = 0; j < NSAME; j++) same_both += lambda[NNEAR + j] > 0.0 && lambda[NBASE + NNEAR + j] > 0.0;
  printf("newton: %d of %d active; both rows active: %d near-parallel pairs, %d exact repeats\n", active, NC,
         near_both, same_both);
  CHECK(active > NC / 3 && active < NC); /* a real complementarity problem */
  CHECK(near_both + same_both > 0);     /* and one where the rank deficiency binds */

  /* the solver's own status (no fallback), and bit-identical on repeat / threads / parallel */
  for (int run = 0; run < 3; run++) {
#ifdef _OPENMP
    omp_set_num_threads(run == 2 ? 2 : 1);
#endif
    clt_relcp_newton_options_t no = {tol, 100, run > 0, NULL}; /* (no arena: the solve takes its own) */
    clt_solve_result_t r;
    memset(w->lambda, 0, sizeof(double) * NC);
    CHECK(clt_relcp_newton_solve(w, p.h, &no, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_SOLVED);
    if (run == 0) {
      memcpy(ref, w->lambda, sizeof ref);
      printf("newton alone: %d steps, residual %.3g\n", r.iterations, r.residual);
      CHECK(r.iterations == d.iterations);
      CHECK(memcmp(ref, lambda, sizeof ref) == 0); /* as through clt_relcp_solve */
    } else {
      CHECK(memcmp(ref, w->lambda, sizeof ref) == 0);
    }
  }
#ifdef _OPENMP
  omp_set_num_threads(1);
#endif

  /* through the stage again: bit-identical */
  memset(w->lambda, 0, sizeof(double) * NC);
  d = solve(&p, CLT_SOLVER_NEWTON, tol, 100000);
  CHECK(memcmp(w->lambda, lambda, sizeof lambda) == 0);

  /* APGD on the same problem: the same w (unique for a PSD LCP), λ may differ */
  memset(w->lambda, 0, sizeof(double) * NC);
  d = solve(&p, CLT_SOLVER_APGD, 1e-11, 1000000);
  printf("apgd: %d iterations, residual %.3g\n", d.iterations, d.residual);
  CHECK(d.solver_status == CLT_SOLVE_SOLVED);
  residual(&p, w->lambda, wa);
  double dwa = max_abs_diff(wn, wa, NC), dla = max_abs_diff(lambda, w->lambda, NC);
  printf("|w_newton - w_apgd| = %.3g, |lambda_newton - lambda_apgd| = %.3g (1 + |b| = %.3g)\n", dwa, dla,
         1.0 + bmax);
  CHECK_LE(dwa, 1e-6 * (1.0 + bmax));

  /* dense Lemke (may end on a ray for a singular A, then polished): where it solves, the same w */
  memset(w->lambda, 0, sizeof(double) * NC);
  d = solve(&p, CLT_SOLVER_LEMKE, 1e-11, 100000);
  printf("lemke: status %s, residual %.3g\n", clt_solver_status_name(d.solver_status), d.residual);
  if (d.solver_status == CLT_SOLVE_SOLVED) {
    residual(&p, w->lambda, wl);
    printf("|w_newton - w_lemke| = %.3g\n", max_abs_diff(wn, wl, NC));
    CHECK_LE(max_abs_diff(wn, wl, NC), 1e-6 * (1.0 + bmax));
  }

  /* warm start from the answer: nothing to do */
  memcpy(w->lambda, lambda, sizeof lambda);
  d = solve(&p, CLT_SOLVER_NEWTON, tol, 100000);
  CHECK(d.solver_status == CLT_SOLVE_SOLVED);
  CHECK(d.iterations == 0);
  CHECK(memcmp(w->lambda, lambda, sizeof lambda) == 0);

  /* a cap below what is needed (3 Newton steps, then 3 APGD iterations): reported unconverged with
   * the residual of the returned λ */
  memset(w->lambda, 0, sizeof(double) * NC);
  d = solve(&p, CLT_SOLVER_NEWTON, tol, 3);
  printf("newton capped at 3: status %s, %d iterations, residual %.3g\n", clt_solver_status_name(d.solver_status),
         d.iterations, d.residual);
  CHECK(d.solver_status == CLT_SOLVE_MAX_ITERATIONS);
  CHECK(d.iterations == 6);
  CHECK(d.residual > tol);
  CHECK_NEAR(residual(&p, w->lambda, NULL), d.residual, 1e-12);

  /* the generic entry point cannot run it */
  clt_matrix_t m = {CLT_MATRIX_DENSE, NC, NC, p.dense, NULL, NULL, 0};
  clt_lcp_t lcp;
  memset(&lcp, 0, sizeof lcp);
  lcp.n = NC;
  lcp.M = &m;
  lcp.q = p.b;
  clt_solve_result_t r;
  CHECK(clt_lcp_solve(CLT_SOLVER_NEWTON, &lcp, NULL, lambda, NULL, &r) == CLT_OK);
  CHECK(r.status == CLT_SOLVE_ERROR);
  CHECK(strstr(r.message, "ReLCP") != NULL);
  CHECK(strcmp(clt_solver_kind_name(CLT_SOLVER_NEWTON), "newton") == 0);

  clt_relcp_work_destroy(w);
  clt_world_destroy(p.world);
  return clt_test_finish();
}
