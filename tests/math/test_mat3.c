/* src/math: Jacobi eigen-decomposition (reconstruction, orthonormality, det +1, identity for a
 * diagonal input), the pivoted 3x3 solve, quaternion ↔ matrix, rotation helpers. */
#include <stdint.h>
#include <string.h>

#include "math/vec.h"
#include "test_util.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(void) { /* xorshift64*, deterministic */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

int main(void) {
  double worst_recon = 0.0, worst_orth = 0.0;
  for (int trial = 0; trial < 2000; trial++) {
    double s[3][3];
    for (int i = 0; i < 3; i++)
      for (int j = i; j < 3; j++) s[i][j] = s[j][i] = uniform();
    if (trial % 3 == 0) s[0][1] = s[1][0] = 0.0; /* partly diagonal */
    double values[3], v[3][3];
    clt_m3_sym_eigen(s, values, v);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double r = 0.0, o = 0.0;
        for (int k = 0; k < 3; k++) {
          r += v[i][k] * values[k] * v[j][k];
          o += v[k][i] * v[k][j];
        }
        worst_recon = fmax(worst_recon, fabs(r - s[i][j]));
        worst_orth = fmax(worst_orth, fabs(o - (i == j ? 1.0 : 0.0)));
      }
    double det = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
                 v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
    CHECK_NEAR(det, 1.0, 1e-12);
    /* quaternion round trip of the eigenvector rotation */
    double q[4], m[3][3];
    clt_m3_to_q(q, v);
    clt_q_to_m3(m, q);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) worst_orth = fmax(worst_orth, fabs(m[i][j] - v[i][j]));
  }
  printf("eigen: max reconstruction error %.3g, max orthonormality / round-trip error %.3g\n", worst_recon, worst_orth);
  CHECK_LE(worst_recon, 1e-13);
  CHECK_LE(worst_orth, 1e-13);

  /* diagonal input: V = I exactly, values in place */
  double d[3][3] = {{3.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 2.0}}, values[3], v[3][3];
  clt_m3_sym_eigen(d, values, v);
  CHECK(values[0] == 3.0 && values[1] == 1.0 && values[2] == 2.0);
  CHECK(v[0][0] == 1.0 && v[1][1] == 1.0 && v[2][2] == 1.0 && v[0][1] == 0.0 && v[2][0] == 0.0);

  /* solve: residual of a non-symmetric system, and singular detection */
  double a[3][3] = {{2.0, 0.5, -1.0}, {-0.5, 3.0, 0.25}, {1.0, -0.25, 4.0}}, b[3] = {1.0, -2.0, 3.0}, x[3];
  CHECK(clt_m3_solve(a, b, x));
  for (int i = 0; i < 3; i++) CHECK_NEAR(a[i][0] * x[0] + a[i][1] * x[1] + a[i][2] * x[2], b[i], 1e-14);
  double sing[3][3] = {{1.0, 2.0, 3.0}, {2.0, 4.0, 6.0}, {0.0, 1.0, 1.0}};
  CHECK(!clt_m3_solve(sing, b, x));

  /* rotate / rotate_inv / q_to_m3 agree; cross product right-handed */
  double q[4] = {0.5, 0.5, -0.5, 0.5}, p[3] = {0.3, -1.2, 2.0}, r1[3], r2[3], back[3], m[3][3];
  clt_q_rotate(r1, q, p);
  clt_q_to_m3(m, q);
  clt_m3_mulv(r2, m, p);
  clt_q_rotate_inv(back, q, r1);
  for (int i = 0; i < 3; i++) {
    CHECK_NEAR(r1[i], r2[i], 1e-15);
    CHECK_NEAR(back[i], p[i], 1e-15);
  }
  double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3];
  clt_v3_cross(ez, ex, ey);
  CHECK(ez[2] == 1.0);
  /* exp map: rotation vector θ rotates by |θ| about θ/|θ| */
  double theta[3] = {0.0, 0.0, CLT_PI / 2.0}, e[4], rx[3];
  clt_q_exp(e, theta);
  clt_q_rotate(rx, e, ex);
  CHECK_NEAR(rx[0], 0.0, 1e-15);
  CHECK_NEAR(rx[1], 1.0, 1e-15);
  /* basis */
  double n[3] = {0.6, 0.0, 0.8}, t1[3], t2[3];
  clt_v3_basis(n, t1, t2);
  CHECK_NEAR(clt_v3_dot(n, t1), 0.0, 1e-15);
  CHECK_NEAR(clt_v3_dot(n, t2), 0.0, 1e-15);
  CHECK_NEAR(clt_v3_dot(t1, t2), 0.0, 1e-15);
  CHECK_NEAR(clt_v3_norm(t2), 1.0, 1e-15);
  return clt_test_finish();
}
