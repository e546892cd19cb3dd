/* Private 2D helpers of the collision module. 3D vectors and quaternions come from math/vec.h
 * (owned by the core); only what it lacks lives here, under the clt_c2_ prefix so the two never
 * clash. */
#ifndef CLATTER_COLLISION_MATH_H
#define CLATTER_COLLISION_MATH_H

#include <math.h>

#include "math/vec.h"

static inline double clt_c2_dot(const double a[2], const double b[2]) { return a[0] * b[0] + a[1] * b[1]; }
/* z component of a × b */
static inline double clt_c2_cross(const double a[2], const double b[2]) { return a[0] * b[1] - a[1] * b[0]; }
static inline void clt_c2_sub(double out[2], const double a[2], const double b[2]) {
  out[0] = a[0] - b[0];
  out[1] = a[1] - b[1];
}
/* out = a + s b */
static inline void clt_c2_axpy(double out[2], const double a[2], double s, const double b[2]) {
  out[0] = a[0] + s * b[0];
  out[1] = a[1] + s * b[1];
}
static inline double clt_c2_norm(const double a[2]) { return hypot(a[0], a[1]); }
/* Rotation by the angle whose cosine and sine are c, s; out may alias a. */
static inline void clt_c2_rot(double out[2], double c, double s, const double a[2]) {
  double x = c * a[0] - s * a[1];
  double y = s * a[0] + c * a[1];
  out[0] = x;
  out[1] = y;
}
/* Inverse rotation (world → local); out may alias a. */
static inline void clt_c2_rot_inv(double out[2], double c, double s, const double a[2]) {
  double x = c * a[0] + s * a[1];
  double y = -s * a[0] + c * a[1];
  out[0] = x;
  out[1] = y;
}
static inline double clt_c_clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

#endif
