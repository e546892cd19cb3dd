/* Small inline vector, quaternion and 3x3 helpers for the physics core (SPEC.md §0).
 * Plain double arrays: v[3], quaternions q[4] = (w, x, y, z), matrices m[3][3] row-major.
 * Everything here is pure and allocation-free; callers may alias in/out only where noted. */
#ifndef CLATTER_MATH_VEC_H
#define CLATTER_MATH_VEC_H

#include <math.h>
#include <stdbool.h>

/* π without relying on POSIX M_PI (the build is strict C11). */
#define CLT_PI 3.14159265358979323846

static inline void clt_v3_set(double out[3], double x, double y, double z) {
  out[0] = x;
  out[1] = y;
  out[2] = z;
}
static inline void clt_v3_copy(double out[3], const double a[3]) {
  out[0] = a[0];
  out[1] = a[1];
  out[2] = a[2];
}
static inline void clt_v3_add(double out[3], const double a[3], const double b[3]) {
  out[0] = a[0] + b[0];
  out[1] = a[1] + b[1];
  out[2] = a[2] + b[2];
}
static inline void clt_v3_sub(double out[3], const double a[3], const double b[3]) {
  out[0] = a[0] - b[0];
  out[1] = a[1] - b[1];
  out[2] = a[2] - b[2];
}
static inline void clt_v3_scale(double out[3], const double a[3], double s) {
  out[0] = a[0] * s;
  out[1] = a[1] * s;
  out[2] = a[2] * s;
}
/* out = a + s b */
static inline void clt_v3_axpy(double out[3], const double a[3], double s, const double b[3]) {
  out[0] = a[0] + s * b[0];
  out[1] = a[1] + s * b[1];
  out[2] = a[2] + s * b[2];
}
static inline double clt_v3_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
/* out = a × b; out may alias neither input. */
static inline void clt_v3_cross(double out[3], const double a[3], const double b[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}
static inline double clt_v3_norm(const double a[3]) { return sqrt(clt_v3_dot(a, a)); }
static inline bool clt_v3_isfinite(const double a[3]) {
  return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]);
}
/* Two unit vectors t1, t2 with (n, t1, t2) right-handed orthonormal; n must be unit. */
static inline void clt_v3_basis(const double n[3], double t1[3], double t2[3]) {
  double a[3] = {1.0, 0.0, 0.0};
  if (fabs(n[0]) > 0.57735026918962573) clt_v3_set(a, 0.0, 1.0, 0.0);
  clt_v3_cross(t1, n, a);
  double len = clt_v3_norm(t1);
  clt_v3_scale(t1, t1, 1.0 / len);
  clt_v3_cross(t2, n, t1);
}

/* ---- 2D ---- */
static inline void clt_rot2(double out[2], double angle, const double a[2]) {
  double c = cos(angle), s = sin(angle);
  double x = c * a[0] - s * a[1];
  double y = s * a[0] + c * a[1];
  out[0] = x;
  out[1] = y;
}

/* ---- quaternions (w, x, y, z), body → world ---- */
static inline void clt_q_identity(double q[4]) {
  q[0] = 1.0;
  q[1] = q[2] = q[3] = 0.0;
}
static inline void clt_q_copy(double out[4], const double q[4]) {
  out[0] = q[0];
  out[1] = q[1];
  out[2] = q[2];
  out[3] = q[3];
}
static inline double clt_q_norm(const double q[4]) {
  return sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
}
static inline void clt_q_normalize(double q[4]) {
  double n = clt_q_norm(q);
  q[0] /= n;
  q[1] /= n;
  q[2] /= n;
  q[3] /= n;
}
static inline void clt_q_conj(double out[4], const double q[4]) {
  out[0] = q[0];
  out[1] = -q[1];
  out[2] = -q[2];
  out[3] = -q[3];
}
/* out = a ⊗ b; out may alias an input. */
static inline void clt_q_mul(double out[4], const double a[4], const double b[4]) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  out[0] = w;
  out[1] = x;
  out[2] = y;
  out[3] = z;
}
/* exp of the pure quaternion (0, ½θ): the unit quaternion of the rotation vector theta. Uses the
 * series for tiny angles so that sin(|θ|/2)/|θ| keeps full relative accuracy. */
static inline void clt_q_exp(double out[4], const double theta[3]) {
  double angle = clt_v3_norm(theta);
  double half = 0.5 * angle;
  double s; /* sin(half) / angle */
  if (angle < 1e-4) {
    double a2 = angle * angle;
    s = 0.5 - a2 / 48.0 + a2 * a2 / 3840.0;
    out[0] = 1.0 - a2 / 8.0 + a2 * a2 / 384.0;
  } else {
    s = sin(half) / angle;
    out[0] = cos(half);
  }
  out[1] = s * theta[0];
  out[2] = s * theta[1];
  out[3] = s * theta[2];
}
/* SPEC.md §0: r⁺ = r ⊗ exp(½ h ω) for a body-frame ω, renormalized. out may alias r. */
static inline void clt_q_integrate(double out[4], const double r[4], const double omega[3], double h) {
  double theta[3] = {h * omega[0], h * omega[1], h * omega[2]};
  double e[4];
  clt_q_exp(e, theta);
  clt_q_mul(out, r, e);
  clt_q_normalize(out);
}
/* out = R(q) a (body → world); out may alias a. */
static inline void clt_q_rotate(double out[3], const double q[4], const double a[3]) {
  /* t = 2 q_v × a; out = a + w t + q_v × t */
  const double *qv = q + 1;
  double t[3], c[3];
  clt_v3_cross(t, qv, a);
  clt_v3_scale(t, t, 2.0);
  clt_v3_cross(c, qv, t);
  double r0 = a[0] + q[0] * t[0] + c[0];
  double r1 = a[1] + q[0] * t[1] + c[1];
  double r2 = a[2] + q[0] * t[2] + c[2];
  clt_v3_set(out, r0, r1, r2);
}
/* out = R(q)ᵀ a (world → body); out may alias a. */
static inline void clt_q_rotate_inv(double out[3], const double q[4], const double a[3]) {
  double c[4];
  clt_q_conj(c, q);
  clt_q_rotate(out, c, a);
}
static inline bool clt_q_isfinite(const double q[4]) {
  return isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]) && isfinite(q[3]);
}

/* ---- 3x3 ---- */
static inline void clt_m3_identity(double m[3][3]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) m[i][j] = (i == j) ? 1.0 : 0.0;
}
static inline void clt_m3_mulv(double out[3], const double m[3][3], const double a[3]) {
  double x = m[0][0] * a[0] + m[0][1] * a[1] + m[0][2] * a[2];
  double y = m[1][0] * a[0] + m[1][1] * a[1] + m[1][2] * a[2];
  double z = m[2][0] * a[0] + m[2][1] * a[1] + m[2][2] * a[2];
  clt_v3_set(out, x, y, z);
}
static inline void clt_m3_mulv_t(double out[3], const double m[3][3], const double a[3]) {
  double x = m[0][0] * a[0] + m[1][0] * a[1] + m[2][0] * a[2];
  double y = m[0][1] * a[0] + m[1][1] * a[1] + m[2][1] * a[2];
  double z = m[0][2] * a[0] + m[1][2] * a[1] + m[2][2] * a[2];
  clt_v3_set(out, x, y, z);
}
/* Rotation matrix of a unit quaternion. */
static inline void clt_q_to_m3(double m[3][3], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  m[0][0] = 1.0 - 2.0 * (y * y + z * z);
  m[0][1] = 2.0 * (x * y - w * z);
  m[0][2] = 2.0 * (x * z + w * y);
  m[1][0] = 2.0 * (x * y + w * z);
  m[1][1] = 1.0 - 2.0 * (x * x + z * z);
  m[1][2] = 2.0 * (y * z - w * x);
  m[2][0] = 2.0 * (x * z - w * y);
  m[2][1] = 2.0 * (y * z + w * x);
  m[2][2] = 1.0 - 2.0 * (x * x + y * y);
}

/* Implemented in src/math/mat3.c. */
void clt_m3_to_q(double q[4], const double m[3][3]); /* proper rotation matrix → unit quaternion */
/* out = R S Rᵀ (rotate a symmetric tensor into another frame). */
void clt_m3_rotate_tensor(double out[3][3], const double r[3][3], const double s[3][3]);
/* Solves A x = b (3x3, partial pivoting). Returns false if A is singular to working precision. */
bool clt_m3_solve(const double a[3][3], const double b[3], double x[3]);
/* Symmetric eigen-decomposition by cyclic Jacobi: S = V diag(values) Vᵀ; columns of V are the
 * eigenvectors, V a proper rotation (det +1), ordered and signed to stay closest to the identity
 * so an already diagonal S gives V = I exactly. */
void clt_m3_sym_eigen(const double s[3][3], double values[3], double v[3][3]);

#endif
