/* 3x3 dense helpers that are too long to inline: quaternion from a rotation matrix, tensor
 * rotation, a pivoted 3x3 solve (semi-implicit gyroscopic step, SPEC.md §1) and the symmetric
 * Jacobi eigen-decomposition that finds a composite body's principal axes (SPEC.md §0). */
#include <math.h>

#include "math/vec.h"

void clt_m3_to_q(double q[4], const double m[3][3]) {
  /* Shepperd's method: pick the largest of w², x², y², z² to divide by. */
  double trace = m[0][0] + m[1][1] + m[2][2];
  if (trace >= m[0][0] && trace >= m[1][1] && trace >= m[2][2]) {
    double s = 2.0 * sqrt(1.0 + trace);
    q[0] = 0.25 * s;
    q[1] = (m[2][1] - m[1][2]) / s;
    q[2] = (m[0][2] - m[2][0]) / s;
    q[3] = (m[1][0] - m[0][1]) / s;
  } else if (m[0][0] >= m[1][1] && m[0][0] >= m[2][2]) {
    double s = 2.0 * sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]);
    q[0] = (m[2][1] - m[1][2]) / s;
    q[1] = 0.25 * s;
    q[2] = (m[0][1] + m[1][0]) / s;
    q[3] = (m[0][2] + m[2][0]) / s;
  } else if (m[1][1] >= m[2][2]) {
    double s = 2.0 * sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]);
    q[0] = (m[0][2] - m[2][0]) / s;
    q[1] = (m[0][1] + m[1][0]) / s;
    q[2] = 0.25 * s;
    q[3] = (m[1][2] + m[2][1]) / s;
  } else {
    double s = 2.0 * sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]);
    q[0] = (m[1][0] - m[0][1]) / s;
    q[1] = (m[0][2] + m[2][0]) / s;
    q[2] = (m[1][2] + m[2][1]) / s;
    q[3] = 0.25 * s;
  }
  if (q[0] < 0.0) {
    q[0] = -q[0];
    q[1] = -q[1];
    q[2] = -q[2];
    q[3] = -q[3];
  }
  clt_q_normalize(q);
}

void clt_m3_rotate_tensor(double out[3][3], const double r[3][3], const double s[3][3]) {
  double rs[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) rs[i][j] = r[i][0] * s[0][j] + r[i][1] * s[1][j] + r[i][2] * s[2][j];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      out[i][j] = rs[i][0] * r[j][0] + rs[i][1] * r[j][1] + rs[i][2] * r[j][2];
}

bool clt_m3_solve(const double a_in[3][3], const double b_in[3], double x[3]) {
  double a[3][3], b[3];
  double scale = 0.0;
  for (int i = 0; i < 3; i++) {
    b[i] = b_in[i];
    for (int j = 0; j < 3; j++) {
      a[i][j] = a_in[i][j];
      if (fabs(a[i][j]) > scale) scale = fabs(a[i][j]);
    }
  }
  if (!(scale > 0.0)) return false;
  for (int k = 0; k < 3; k++) {
    int p = k;
    for (int i = k + 1; i < 3; i++)
      if (fabs(a[i][k]) > fabs(a[p][k])) p = i;
    if (!(fabs(a[p][k]) > 1e-300 && fabs(a[p][k]) > 1e-15 * scale)) return false;
    if (p != k) {
      for (int j = 0; j < 3; j++) {
        double t = a[k][j];
        a[k][j] = a[p][j];
        a[p][j] = t;
      }
      double t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
    for (int i = k + 1; i < 3; i++) {
      double f = a[i][k] / a[k][k];
      for (int j = k; j < 3; j++) a[i][j] -= f * a[k][j];
      b[i] -= f * b[k];
    }
  }
  for (int i = 2; i >= 0; i--) {
    double s = b[i];
    for (int j = i + 1; j < 3; j++) s -= a[i][j] * x[j];
    x[i] = s / a[i][i];
  }
  return true;
}

void clt_m3_sym_eigen(const double s[3][3], double values[3], double v[3][3]) {
  double a[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) a[i][j] = 0.5 * (s[i][j] + s[j][i]);
  clt_m3_identity(v);
  for (int sweep = 0; sweep < 64; sweep++) {
    double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
    double diag = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
    if (off == 0.0) break;
    for (int p = 0; p < 2; p++) {
      for (int q = p + 1; q < 3; q++) {
        /* Off-diagonal rounding noise (a shape turned by 90° gives ~1e-17) is treated as zero:
         * with nearly equal diagonal entries it would otherwise turn the axes by an arbitrary
         * 45° inside a degenerate eigenspace. */
        if (fabs(a[p][q]) <= 1e-15 * diag) {
          a[p][q] = a[q][p] = 0.0;
          continue;
        }
        /* Rotation angle that zeroes a[p][q] (Golub & Van Loan, sym. Schur 2x2). */
        double tau = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
        double c = 1.0 / sqrt(1.0 + t * t);
        double sn = t * c;
        for (int k = 0; k < 3; k++) { /* A ← A G */
          double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - sn * akq;
          a[k][q] = sn * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) { /* A ← Gᵀ A */
          double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - sn * aqk;
          a[q][k] = sn * apk + c * aqk;
        }
        a[p][q] = a[q][p] = 0.0;
        for (int k = 0; k < 3; k++) { /* V ← V G */
          double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - sn * vkq;
          v[k][q] = sn * vkp + c * vkq;
        }
      }
    }
  }
  /* Order the columns so V is as close to the identity as possible (a body whose shapes are
   * almost aligned keeps its axes), make the diagonal non-negative, and keep det V = +1. */
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  int best = 0;
  double best_score = -1.0;
  for (int k = 0; k < 6; k++) {
    double score = fabs(v[0][perms[k][0]]) + fabs(v[1][perms[k][1]]) + fabs(v[2][perms[k][2]]);
    if (score > best_score + 1e-12) {
      best_score = score;
      best = k;
    }
  }
  double w[3][3], vals[3];
  for (int j = 0; j < 3; j++) {
    int src = perms[best][j];
    vals[j] = a[src][src];
    double sign = v[j][src] < 0.0 ? -1.0 : 1.0;
    for (int i = 0; i < 3; i++) w[i][j] = sign * v[i][src];
  }
  double det = w[0][0] * (w[1][1] * w[2][2] - w[1][2] * w[2][1]) -
               w[0][1] * (w[1][0] * w[2][2] - w[1][2] * w[2][0]) +
               w[0][2] * (w[1][0] * w[2][1] - w[1][1] * w[2][0]);
  if (det < 0.0) {
    int j = 0;
    for (int k = 1; k < 3; k++)
      if (fabs(w[k][k]) < fabs(w[j][j])) j = k;
    for (int i = 0; i < 3; i++) w[i][j] = -w[i][j];
  }
  for (int i = 0; i < 3; i++) {
    values[i] = vals[i];
    for (int j = 0; j < 3; j++) v[i][j] = w[i][j];
  }
}
