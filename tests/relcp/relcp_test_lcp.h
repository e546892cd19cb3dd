/* Shared by the tests of the ReLCP pass solvers (test_relcp_pgs.c, test_relcp_newton.c): a seeded
 * generator, the dense A = h Dᵀ B D of a filled clt_relcp_work_t, the LCP residual from it, and
 * one clt_relcp_solve call with the method fields a test varies. Header-only (static functions). */
#ifndef CLATTER_TESTS_RELCP_TEST_LCP_H
#define CLATTER_TESTS_RELCP_TEST_LCP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "clatter/world.h"
#include "dynamics/world_internal.h"
#include "steppers/relcp.h"
#include "test_util.h"

/* splitmix64 → [0, 1) */
static inline double relcp_test_uniform(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* An overdamped world without gravity with `dynamic_count` unit spheres on the x axis and one
 * static sphere after them (body index dynamic_count): the bodies of a hand-built pass LCP. */
static inline clt_world_t *relcp_test_world(int dynamic_count) {
  clt_world_def_t wd = clt_default_world_def();
  wd.law = CLT_LAW_OVERDAMPED;
  memset(wd.gravity, 0, sizeof wd.gravity);
  char msg[256];
  clt_world_t *world = NULL;
  CHECK(clt_world_create(&wd, &world, msg, sizeof msg) == CLT_OK);
  if (!world) return NULL;
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_SPHERE);
  for (int i = 0; i <= dynamic_count; i++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.shapes = &s;
    bd.shape_count = 1;
    bd.position[0] = (double)i;
    if (i == dynamic_count) bd.type = CLT_BODY_STATIC;
    CHECK(clt_world_add_body(world, &bd, NULL) == CLT_OK);
  }
  return world;
}

/* dense (n × n, row-major) = h Dᵀ B D of the n constraints of w: A_kl = h Σ over the dynamic bodies
 * k and l share of J_k,side · (B J_lᵀ)_side (w->bj); bodies ≥ dynamic_count are static. */
static inline void relcp_test_dense(const clt_relcp_work_t *w, int n, int dynamic_count, double h, double *dense) {
  for (int k = 0; k < n; k++)
    for (int l = 0; l < n; l++) {
      const clt_relcp_constraint_t *ck = &w->constraints[k], *cl = &w->constraints[l];
      double s = 0.0;
      for (int sk = 0; sk < 2; sk++)
        for (int sl = 0; sl < 2; sl++) {
          int bk = sk ? ck->body_b : ck->body_a, bl = sl ? cl->body_b : cl->body_a;
          if (bk != bl || bk >= dynamic_count) continue;
          const double *lin = sk ? ck->jac.linear_b : ck->jac.linear_a;
          const double *ang = sk ? ck->jac.angular_b : ck->jac.angular_a;
          const double *m = w->bj + 12 * (size_t)l + 6 * (size_t)sl;
          for (int i = 0; i < 3; i++) s += lin[i] * m[i] + ang[i] * m[3 + i];
        }
      dense[(size_t)k * (size_t)n + (size_t)l] = h * s;
    }
}

/* ‖min(λ, Aλ + b)‖∞ / (1 + ‖b‖∞) from the dense A (∞ if some λ < 0); w_out (may be NULL) receives
 * A λ + b. */
static inline double relcp_test_residual(const double *dense, const double *b, int n, const double *lambda,
                                         double *w_out) {
  double res = 0.0, bmax = 0.0;
  for (int k = 0; k < n; k++) {
    double s = b[k];
    for (int l = 0; l < n; l++) s += dense[(size_t)k * (size_t)n + (size_t)l] * lambda[l];
    if (w_out) w_out[k] = s;
    res = fmax(res, fabs(fmin(lambda[k], s)));
    bmax = fmax(bmax, fabs(b[k]));
    if (lambda[k] < 0.0) res = INFINITY;
  }
  return res / (1.0 + bmax);
}

/* One pass solve of w's LCP with the given solver, tolerance, ω and cap (unconverged: recorded). */
static inline clt_diagnostics_t relcp_test_solve(clt_world_t *world, clt_relcp_work_t *w, double h,
                                                 clt_solver_kind_t kind, double tol, double omega, int cap) {
  world->method.solver = kind;
  world->method.tolerance = tol;
  world->method.relaxation = omega;
  world->method.max_iterations = cap;
  world->method.on_unconverged = CLT_UNCONVERGED_RECORD;
  clt_diagnostics_t d;
  memset(&d, 0, sizeof d);
  CHECK(clt_relcp_solve(world, w, h, &d) == CLT_OK);
  return d;
}

static inline double relcp_test_max_abs_diff(const double *a, const double *b, int n) {
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

#endif
