/* Bounded (box-constrained) LCPs, solvers.h: lo ≤ z ≤ hi for the constrained variables, w ≥ 0 at
 * lo, w ≤ 0 at hi, w = 0 between. Random problems with a symmetric positive definite M (a unique
 * answer) are solved by brute force — every assignment of each constrained variable to its lower
 * bound, its upper bound or the inside, each a linear system, kept when its signs hold — and by
 * Lemke, block Gauss–Seidel, APGD and BBPGD, which must agree with it. Plus the cases the step of
 * docs/actuation.md builds: a motor row with symmetric bounds ±τh, a limit row [0, ∞) on the same
 * direction (a singular 2×2 block), and the checks of bad bounds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/solvers.h"
#include "test_util.h"

#define N 7

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(void) { /* [0, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Gaussian elimination with partial pivoting of the k×k system a x = b (a, b overwritten). */
static bool solve_small(int k, double *a, double *b) {
  for (int c = 0; c < k; c++) {
    int piv = c;
    for (int r = c + 1; r < k; r++)
      if (fabs(a[r * k + c]) > fabs(a[piv * k + c])) piv = r;
    if (fabs(a[piv * k + c]) < 1e-300) return false;
    for (int j = 0; j < k; j++) {
      double t = a[c * k + j];
      a[c * k + j] = a[piv * k + j];
      a[piv * k + j] = t;
    }
    double t = b[c];
    b[c] = b[piv];
    b[piv] = t;
    for (int r = c + 1; r < k; r++) {
      double f = a[r * k + c] / a[c * k + c];
      for (int j = c; j < k; j++) a[r * k + j] -= f * a[c * k + j];
      b[r] -= f * b[c];
    }
  }
  for (int c = k - 1; c >= 0; c--) {
    for (int j = c + 1; j < k; j++) b[c] -= a[c * k + j] * b[j];
    b[c] /= a[c * k + c];
  }
  return true;
}

/* The answer by enumeration; returns how many assignments satisfied the conditions (1 for an SPD M). */
static int brute_force(const double *M, const double *q, int nf, const double *lo, const double *hi, double *z) {
  int found = 0, combos = 1;
  for (int i = nf; i < N; i++) combos *= 3;
  for (int code = 0; code < combos; code++) {
    int state[N], c = code; /* 0: inside (or free), 1: at lo, 2: at hi */
    bool skip = false;
    for (int i = 0; i < N; i++) {
      state[i] = i < nf ? 0 : c % 3;
      if (i >= nf) c /= 3;
      if (state[i] == 2 && !isfinite(hi[i])) skip = true;
    }
    if (skip) continue;
    double x[N], a[N * N], b[N];
    int idx[N], k = 0;
    for (int i = 0; i < N; i++) x[i] = state[i] == 1 ? lo[i] : state[i] == 2 ? hi[i] : 0.0;
    for (int i = 0; i < N; i++)
      if (state[i] == 0) idx[k++] = i;
    for (int r = 0; r < k; r++) {
      double s = q[idx[r]];
      for (int j = 0; j < N; j++)
        if (state[j] != 0) s += M[idx[r] * N + j] * x[j];
      b[r] = -s;
      for (int cc = 0; cc < k; cc++) a[r * k + cc] = M[idx[r] * N + idx[cc]];
    }
    if (k > 0 && !solve_small(k, a, b)) continue;
    for (int r = 0; r < k; r++) x[idx[r]] = b[r];
    bool ok = true;
    for (int i = 0; i < N && ok; i++) {
      double w = q[i];
      for (int j = 0; j < N; j++) w += M[i * N + j] * x[j];
      if (i >= nf && state[i] == 0) ok = x[i] > lo[i] - 1e-12 && x[i] < hi[i] + 1e-12;
      if (state[i] == 1) ok = w >= -1e-12;
      if (state[i] == 2) ok = w <= 1e-12;
    }
    if (!ok) continue;
    if (found == 0) memcpy(z, x, sizeof x);
    found++;
  }
  return found;
}

static void random_cases(void) {
  const clt_solver_kind_t solvers[] = {CLT_SOLVER_LEMKE, CLT_SOLVER_BGS, CLT_SOLVER_APGD, CLT_SOLVER_BBPGD};
  double worst[4] = {0, 0, 0, 0};
  int at_hi = 0, at_lo = 0;
  for (int trial = 0; trial < 200; trial++) {
    double B[N * N], M[N * N], q[N], lo[N], hi[N], ref[N];
    for (int i = 0; i < N * N; i++) B[i] = 2.0 * uniform() - 1.0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        double s = i == j ? 0.05 : 0.0;
        for (int k = 0; k < N; k++) s += B[i * N + k] * B[j * N + k];
        M[i * N + j] = s;
      }
    int nf = trial % 3;
    for (int i = 0; i < N; i++) {
      q[i] = 4.0 * uniform() - 2.0;
      int kind = (i + trial) % 4; /* [0, ∞), [−a, a] (a motor), [lo, hi], [lo, ∞) with lo < 0 */
      double a = 0.05 + uniform();
      lo[i] = kind == 0 ? 0.0 : kind == 1 ? -a : kind == 2 ? uniform() - 0.5 : -a;
      hi[i] = kind == 0 ? INFINITY : kind == 1 ? a : kind == 2 ? lo[i] + 0.01 + uniform() : INFINITY;
    }
    CHECK(brute_force(M, q, nf, lo, hi, ref) == 1);
    for (int i = nf; i < N; i++) {
      at_hi += ref[i] == hi[i];
      at_lo += ref[i] == lo[i];
    }
    clt_matrix_t mat = {CLT_MATRIX_DENSE, N, N, M, NULL, NULL, 0};
    clt_lcp_t p = {N, &mat, NULL, q, nf, NULL, 0, lo, hi};
    for (int s = 0; s < 4; s++) {
      clt_solver_options_t o = clt_default_solver_options();
      o.tolerance = 1e-12;
      o.max_iterations = 200000;
      double z[N], w[N];
      clt_solve_result_t r;
      CHECK(clt_lcp_solve(solvers[s], &p, &o, z, w, &r) == CLT_OK);
      CHECK(r.status == CLT_SOLVE_SOLVED);
      for (int i = 0; i < N; i++) {
        worst[s] = fmax(worst[s], fabs(z[i] - ref[i]));
        if (i >= nf && !(z[i] >= lo[i] && z[i] <= hi[i]))
          fprintf(stderr, "solver %d: z[%d] = %.17g outside [%.17g, %.17g]\n", s, i, z[i], lo[i], hi[i]);
        if (i >= nf) CHECK(z[i] >= lo[i] && z[i] <= hi[i]);
      }
      CHECK_LE(clt_lcp_residual(&p, z), 1e-12);
    }
  }
  printf("bounded LCPs, 200 random problems (n = %d; %d variables at an upper bound, %d at a lower one): "
         "largest |z - brute force| lemke %.2e, bgs %.2e, apgd %.2e, bbpgd %.2e\n",
         N, at_hi, at_lo, worst[0], worst[1], worst[2], worst[3]);
  CHECK(at_hi > 50 && at_lo > 50);
  CHECK_LE(worst[0], 1e-9);
  CHECK_LE(worst[1], 1e-8);
  CHECK_LE(worst[2], 1e-8);
  CHECK_LE(worst[3], 1e-8);
}

/* A velocity motor row m and a limit row l on the same direction (A = [a a; a a], singular), with a
 * free joint row before them: the motor saturates at its bound and the limit takes the rest. */
static void motor_against_limit(void) {
  double a = 2.0, c = 0.3;
  double M[9] = {1.5, c, c, c, a, a, c, a, a};
  /* w_motor = ν v − target with target −1, into the limit; w_limit = ν v ≥ 0 */
  double q[3] = {0.2, 1.0, 0.0};
  double lo[3] = {0.0, -0.25, 0.0}, hi[3] = {0.0, 0.25, INFINITY};
  clt_matrix_t mat = {CLT_MATRIX_DENSE, 3, 3, M, NULL, NULL, 0};
  int blocks[4] = {0, 1, 2, 3};
  clt_lcp_t p = {3, &mat, NULL, q, 1, blocks, 3, lo, hi};
  const clt_solver_kind_t solvers[] = {CLT_SOLVER_LEMKE, CLT_SOLVER_BGS};
  for (int s = 0; s < 2; s++) {
    double z[3], w[3];
    clt_solve_result_t r;
    clt_solver_options_t o = clt_default_solver_options();
    CHECK(clt_lcp_solve(solvers[s], &p, &o, z, w, &r) == CLT_OK);
    CHECK(r.status == CLT_SOLVE_SOLVED);
    /* ν v = w_limit = 0 (the limit holds), the motor at its lower bound (w_motor = 1 > 0) */
    CHECK_NEAR(z[1], -0.25, 1e-12);
    CHECK_NEAR(w[2], 0.0, 1e-12);
    CHECK_NEAR(w[0], 0.0, 1e-12);
    CHECK(z[2] > 0.0);
  }
}

static void bad_bounds(void) {
  double M[4] = {2.0, 0.0, 0.0, 2.0}, q[2] = {1.0, -1.0}, z[2], w[2];
  clt_matrix_t mat = {CLT_MATRIX_DENSE, 2, 2, M, NULL, NULL, 0};
  double lo[2] = {0.0, 1.0}, hi[2] = {1.0, 0.5}; /* hi < lo */
  clt_lcp_t p = {2, &mat, NULL, q, 0, NULL, 0, lo, hi};
  clt_solve_result_t r;
  CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &p, NULL, z, w, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(r.message, "variable 1 has bounds") != NULL);
  lo[1] = -INFINITY;
  hi[1] = 1.0;
  CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &p, NULL, z, w, &r) == CLT_ERR_INVALID_ARGUMENT);
  lo[1] = -1.0;
  CHECK(clt_lcp_solve(CLT_SOLVER_MPRGP, &p, NULL, z, w, &r) == CLT_OK);
  CHECK(r.status == CLT_SOLVE_ERROR && strstr(r.message, "mprgp does not apply") != NULL);
  CHECK(clt_lcp_polish(&p, NULL, z, w, &r) == CLT_OK);
  CHECK(r.status == CLT_SOLVE_ERROR);
  /* a bounded variable inside a block of two: block Gauss–Seidel refuses */
  int blocks[2] = {0, 2};
  clt_lcp_t pb = {2, &mat, NULL, q, 0, blocks, 1, lo, hi};
  CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &pb, NULL, z, w, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(r.message, "block of its own") != NULL);
  /* the default bounds given explicitly are the plain LCP, to the bit */
  double lo0[2] = {0.0, 0.0}, hi0[2] = {INFINITY, INFINITY}, z0[2], z1[2];
  clt_lcp_t plain = {2, &mat, NULL, q, 0, NULL, 0, NULL, NULL}, explicit_bounds = plain;
  explicit_bounds.lower = lo0;
  explicit_bounds.upper = hi0;
  CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &plain, NULL, z0, NULL, &r) == CLT_OK);
  CHECK(clt_lcp_solve(CLT_SOLVER_BGS, &explicit_bounds, NULL, z1, NULL, &r) == CLT_OK);
  CHECK(memcmp(z0, z1, sizeof z0) == 0);
}

int main(void) {
  random_cases();
  motor_against_limit();
  bad_bounds();
  return clt_test_finish();
}
