/* The body-block operator (solvers/body_rows.h) and the PGS on it (solvers/body_pgs.h).
 * - A product equals s J M̂⁻¹ Jᵀ x formed densely (to round-off), and u the per-body M̂⁻¹ Jᵀ x.
 * - The same rows as an array of records (strided) give the same bits as packed arrays, with every
 *   body accumulated (active NULL) or only the listed ones.
 * - PGS on a random PSD problem: solved to the tolerance, λ ≥ 0, w = A λ + b ≥ 0, λ_i w_i ≈ 0; the
 *   same bits with and without an arena; a strided operator is refused. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "base/arena.h"
#include "solvers/body_pgs.h"
#include "solvers/body_rows.h"
#include "test_util.h"

enum { BODIES = 7, ROWS = 40 };

typedef struct record_t { /* a row as a stepper keeps it: bodies, then the Jacobian */
  int body[2];
  double jac[12];
} record_t;

static unsigned seed = 7u;
static double uniform(void) {
  seed = seed * 1103515245u + 12345u;
  return ((seed >> 8) & 0xFFFF) / 65536.0 - 0.5;
}

int main(void) {
  static double jac[12 * ROWS], minv_jt[12 * ROWS], minv[BODIES][6];
  static int body[2 * ROWS], start[BODIES + 1], entry[2 * ROWS], active[BODIES];
  static record_t records[ROWS];
  for (int b = 0; b < BODIES; b++)
    for (int k = 0; k < 6; k++) minv[b][k] = 0.5 + fabs(uniform()); /* diagonal M̂⁻¹ */
  for (int p = 0; p < ROWS; p++) {
    int a = p % BODIES, c = (p * 3 + 1) % (BODIES + 1) - 1; /* side B: −1 (static) for some rows */
    if (c == a) c = -1;
    body[2 * p] = a;
    body[2 * p + 1] = c;
    for (int k = 0; k < 12; k++) jac[12 * p + k] = uniform();
    for (int side = 0; side < 2; side++) {
      int b = body[2 * p + side];
      for (int k = 0; k < 6; k++) minv_jt[12 * p + 6 * side + k] = b >= 0 ? minv[b][k] * jac[12 * p + 6 * side + k] : 0.0;
    }
    records[p].body[0] = a;
    records[p].body[1] = c;
    memcpy(records[p].jac, jac + 12 * p, sizeof records[p].jac);
  }
  /* per-body entry lists, rows increasing */
  int na = 0, count = 0;
  for (int b = 0; b < BODIES; b++) {
    start[b] = count;
    for (int p = 0; p < ROWS; p++)
      for (int side = 0; side < 2; side++)
        if (body[2 * p + side] == b) entry[count++] = 2 * p + side;
    if (count > start[b]) active[na++] = b;
  }
  start[BODIES] = count;
  static double u1[6 * BODIES], u2[6 * BODIES], u3[6 * BODIES];
  double h = 0.01;
  clt_body_rows_t packed = {.n = ROWS, .bodies = BODIES, .jac = jac, .minv_jt = minv_jt, .body = body,
                            .jac_stride = CLT_BODY_ROWS_PACKED_JAC, .body_stride = CLT_BODY_ROWS_PACKED_BODY,
                            .body_start = start, .body_entry = entry, .active = active, .active_count = na,
                            .scale = h, .u = u1};
  clt_body_rows_t strided = packed;
  strided.jac = records[0].jac;
  strided.body = records[0].body;
  strided.jac_stride = strided.body_stride = sizeof(record_t);
  strided.active = NULL;
  strided.active_count = BODIES;
  strided.u = u2;
  double x[ROWS], y1[ROWS], y2[ROWS];
  for (int p = 0; p < ROWS; p++) x[p] = uniform();
  clt_body_rows_apply(&packed, false, x, y1);
  clt_body_rows_apply(&strided, true, x, y2);
  CHECK(memcmp(y1, y2, sizeof y1) == 0);
  for (int k = 0; k < na; k++) CHECK(memcmp(u1 + 6 * active[k], u2 + 6 * active[k], 6 * sizeof(double)) == 0);
  clt_body_rows_t only_u = packed;
  only_u.u = u3;
  clt_body_rows_accumulate(&only_u, false, x);
  for (int k = 0; k < na; k++) CHECK(memcmp(u1 + 6 * active[k], u3 + 6 * active[k], 6 * sizeof(double)) == 0);
  /* dense reference: A_pq = h Σ_side Σ_side' [same body] J_p,side · M̂⁻¹ J_q,side' */
  static double A[ROWS][ROWS];
  double worst = 0.0;
  for (int p = 0; p < ROWS; p++) {
    double y = 0.0;
    for (int q = 0; q < ROWS; q++) {
      double a = 0.0;
      for (int sp = 0; sp < 2; sp++)
        for (int sq = 0; sq < 2; sq++) {
          int b = body[2 * p + sp];
          if (b < 0 || b != body[2 * q + sq]) continue;
          for (int k = 0; k < 6; k++) a += jac[12 * p + 6 * sp + k] * minv[b][k] * jac[12 * q + 6 * sq + k];
        }
      A[p][q] = h * a;
      y += A[p][q] * x[q];
    }
    worst = fmax(worst, fabs(y - y1[p]));
  }
  CHECK_LE(worst, 1e-14);
  /* PGS on λ ≥ 0 ⊥ A λ + b ≥ 0 */
  double b[ROWS], diag[ROWS], lambda1[ROWS], lambda2[ROWS], w1[ROWS], w2[ROWS];
  for (int p = 0; p < ROWS; p++) {
    b[p] = uniform();
    diag[p] = A[p][p];
    lambda1[p] = lambda2[p] = 0.0;
  }
  clt_body_pgs_options_t o = {1e-10, 100000, 1.0, false, NULL};
  clt_solve_result_t r1, r2;
  CHECK(clt_body_pgs_solve(&packed, b, diag, lambda1, w1, &o, &r1) == CLT_OK && r1.status == CLT_SOLVE_SOLVED);
  clt_arena_t *arena = clt_arena_create();
  o.arena = arena;
  o.parallel = true;
  CHECK(clt_body_pgs_solve(&packed, b, diag, lambda2, w2, &o, &r2) == CLT_OK && r2.status == CLT_SOLVE_SOLVED);
  CHECK(memcmp(lambda1, lambda2, sizeof lambda1) == 0 && r1.iterations == r2.iterations);
  double comp = 0.0;
  for (int p = 0; p < ROWS; p++) {
    CHECK(lambda1[p] >= 0.0 && w1[p] >= -1e-9);
    comp = fmax(comp, fabs(fmin(lambda1[p], w1[p])));
  }
  CHECK_LE(comp, 1e-9);
  CHECK(clt_body_pgs_solve(&strided, b, diag, lambda2, w2, &o, &r2) == CLT_ERR_INVALID_ARGUMENT);
  clt_arena_destroy(arena);
  printf("body rows: |A x - dense| = %.3g; PGS %d sweeps, residual %.3g\n", worst, r1.iterations, r1.residual);
  return clt_test_finish();
}
