/* Local drag of the overdamped law of motion (SPEC.md §6.1; 002 §2.1.2, §5.2 eq. 82): a body
 * moving with world velocity u and angular velocity ω in a fluid of viscosity η feels the drag
 * force −Z_t u and torque −Z_r ω, Z_t and Z_r symmetric positive definite 3×3 tensors, here in the
 * body's principal frame. The mobility 𝓜 of the law U = 𝓜 F is their inverse, block diagonal per
 * body (no hydrodynamic coupling between bodies: the local-drag model of 002).
 *
 * Defaults from the shape (docs/stepping.md "ReLCP and the overdamped law"):
 *  - ellipsoid with semi-axes (a₁, a₂, a₃): the exact Stokes drag (Oberbeck/Perrin), with
 *      χ = ∫₀^∞ dλ/Δ,  α_i = ∫₀^∞ dλ/((a_i² + λ)Δ),  Δ = √((a₁²+λ)(a₂²+λ)(a₃²+λ)),
 *      ζ_t,i = 16πη / (χ + a_i² α_i),   ζ_r,i = 16πη (a_j² + a_k²) / (3 (a_j² α_j + a_k² α_k)),
 *    evaluated through Carlson's symmetric integrals χ = 2 R_F(a₁², a₂², a₃²),
 *    α_i = (2/3) R_D(a_j², a_k², a_i²). A sphere of radius a gives Stokes' 6πηa and 8πηa³; a long
 *    prolate spheroid of length L = 2a₃ and diameter d gives the slender-body limits
 *    ζ_∥ ≈ 2πηL/(ln(2L/d) − ½), ζ_⊥ ≈ 4πηL/(ln(2L/d) + ½), ζ_r⊥ ≈ πηL³/(3(ln(2L/d) − ½)),
 *    so the drag scales with the major axis length as 002's local drag model does;
 *  - sphere: 6πηa, 8πηa³;
 *  - capsule (spherocylinder) of radius r and cap-centre distance ℓ: the drag of the prolate
 *    spheroid of the same total length L = ℓ + 2r and diameter d = 2r (semi-axes r, r, L/2). It is
 *    smooth in ℓ (growing cells), exact for the sphere ℓ = 0 and slender-body-like for ℓ ≫ r;
 *  - torus (ring) of major radius R and minor radius r: resistive-force theory for the slender
 *    centreline circle with the local coefficients per unit length ξ_∥ = 2πη/(Λ − ½),
 *    ξ_⊥ = 4πη/(Λ + ½), Λ = max(ln(8R/r), 1):  translation along the ring axis 2πR ξ_⊥, in the
 *    ring plane πR(ξ_∥ + ξ_⊥); rotation about the axis 2πR³ ξ_∥, about an in-plane axis πR³ ξ_⊥;
 *  - any other shape (box), and bodies of several shapes: the sphere of the same volume (the
 *    sum of the shapes' volumes) — a crude default: give drag_linear / drag_angular instead.
 * A single shape's tensors are rotated from its local frame into the principal frame (its local
 * orientation); with several shapes the tensors are isotropic. Per-body drag_linear /
 * drag_angular (principal axes; a vector of zeros = the default) replace the defaults. */
#include <math.h>
#include <string.h>

#include "dynamics/world_internal.h"
#include "geometry/shape.h"
#include "math/vec.h"

#define CLT_PI_D 3.14159265358979323846264338327950288

/* Carlson's R_F(x, y, z) = ½ ∫₀^∞ dt / √((t+x)(t+y)(t+z)) by the duplication theorem (x, y, z ≥ 0,
 * at most one zero): iterate until the arguments agree to 1e-4 relative (the series truncation
 * error is then ~1e-24), then the fifth-order series. */
static double carlson_rf(double x, double y, double z) {
  for (int it = 0; it < 200; it++) {
    double a = (x + y + z) / 3.0;
    double dx = 1.0 - x / a, dy = 1.0 - y / a, dz = 1.0 - z / a;
    if (fmax(fabs(dx), fmax(fabs(dy), fabs(dz))) < 1e-4) {
      double e2 = dx * dy - dz * dz, e3 = dx * dy * dz;
      return (1.0 - e2 / 10.0 + e3 / 14.0 + e2 * e2 / 24.0 - 3.0 * e2 * e3 / 44.0) / sqrt(a);
    }
    double sx = sqrt(x), sy = sqrt(y), sz = sqrt(z);
    double l = sx * sy + sy * sz + sz * sx;
    x = 0.25 * (x + l);
    y = 0.25 * (y + l);
    z = 0.25 * (z + l);
  }
  return NAN;
}

/* Carlson's R_D(x, y, z) = (3/2) ∫₀^∞ dt / ((t+z) √((t+x)(t+y)(t+z))), same method. */
static double carlson_rd(double x, double y, double z) {
  double sum = 0.0, fac = 1.0;
  for (int it = 0; it < 200; it++) {
    double a = (x + y + 3.0 * z) / 5.0;
    double dx = 1.0 - x / a, dy = 1.0 - y / a, dz = 1.0 - z / a;
    if (fmax(fabs(dx), fmax(fabs(dy), fabs(dz))) < 1e-4) {
      /* X + Y + 3Z = 0 for these normalized differences */
      double ea = dx * dy, eb = dz * dz, ec = ea - eb, ed = ea - 6.0 * eb, ee = ed + ec + ec;
      double s = ed * (-3.0 / 14.0 + 9.0 / 88.0 * ed - 9.0 / 52.0 * dz * ee) +
                 dz * (ee / 6.0 + dz * (-9.0 / 22.0 * ec + dz * 3.0 / 26.0 * ea));
      return 3.0 * sum + fac * (1.0 + s) / (a * sqrt(a));
    }
    double sx = sqrt(x), sy = sqrt(y), sz = sqrt(z);
    double l = sx * sy + sy * sz + sz * sx;
    sum += fac / (sz * (z + l));
    fac *= 0.25;
    x = 0.25 * (x + l);
    y = 0.25 * (y + l);
    z = 0.25 * (z + l);
  }
  return NAN;
}

/* Exact Stokes drag of an ellipsoid, principal values in its own axes. */
static void ellipsoid_drag(const double a[3], double eta, double zt[3], double zr[3]) {
  double s[3] = {a[0] * a[0], a[1] * a[1], a[2] * a[2]};
  double chi = 2.0 * carlson_rf(s[0], s[1], s[2]);
  double alpha[3];
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    alpha[i] = (2.0 / 3.0) * carlson_rd(s[j], s[k], s[i]);
  }
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    zt[i] = 16.0 * CLT_PI_D * eta / (chi + s[i] * alpha[i]);
    zr[i] = 16.0 * CLT_PI_D * eta * (s[j] + s[k]) / (3.0 * (s[j] * alpha[j] + s[k] * alpha[k]));
  }
}

static void sphere_drag(double radius, double eta, double zt[3], double zr[3]) {
  for (int i = 0; i < 3; i++) {
    zt[i] = 6.0 * CLT_PI_D * eta * radius;
    zr[i] = 8.0 * CLT_PI_D * eta * radius * radius * radius;
  }
}

static double shape_volume(const clt_shape_def_t *s) {
  const clt_shape_ops_t *ops = clt_shape_ops(s->type);
  if (!ops || !ops->mass_properties) return 0.0;
  clt_mass_props_t p;
  memset(&p, 0, sizeof p);
  ops->mass_properties(s, 1.0, &p);
  return p.mass > 0.0 && isfinite(p.mass) ? p.mass : 0.0;
}

/* Principal drag values of one shape in its own local frame; false if it has no formula. */
static bool shape_drag(const clt_shape_def_t *s, double eta, double zt[3], double zr[3]) {
  switch (s->type) {
    case CLT_SHAPE_SPHERE:
      sphere_drag(s->radius, eta, zt, zr);
      return true;
    case CLT_SHAPE_ELLIPSOID:
      ellipsoid_drag(s->semi_axes, eta, zt, zr);
      return true;
    case CLT_SHAPE_CAPSULE: {
      double a[3] = {s->radius, s->radius, 0.5 * s->length + s->radius};
      ellipsoid_drag(a, eta, zt, zr);
      return true;
    }
    case CLT_SHAPE_TORUS: {
      double big = s->major_radius, r = s->minor_radius;
      double lam = fmax(log(8.0 * big / r), 1.0);
      double xp = 2.0 * CLT_PI_D * eta / (lam - 0.5), xn = 4.0 * CLT_PI_D * eta / (lam + 0.5);
      zt[0] = zt[1] = CLT_PI_D * big * (xp + xn);
      zt[2] = 2.0 * CLT_PI_D * big * xn;
      zr[0] = zr[1] = CLT_PI_D * big * big * big * xn;
      zr[2] = 2.0 * CLT_PI_D * big * big * big * xp;
      return true;
    }
    default:
      return false;
  }
}

/* out = R diag(d) Rᵀ with R the rotation of unit quaternion q. */
static void rotate_diag(const double q[4], const double d[3], double out[3][3]) {
  double r[3][3];
  clt_q_to_m3(r, q);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) out[i][j] = r[i][0] * d[0] * r[j][0] + r[i][1] * d[1] * r[j][1] + r[i][2] * d[2] * r[j][2];
}

static bool all_zero(const double v[3]) { return v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0; }

bool clt_body_drag(const clt_world_t *world, int body, double zt[3][3], double zr[3][3]) {
  const clt_body_rec_t *b = &world->bodies[body];
  const clt_body_extra_t *x = clt_body_extra(world, body);
  double identity[4] = {1.0, 0.0, 0.0, 0.0};
  bool given_t = !all_zero(x->drag_linear), given_r = !all_zero(x->drag_angular);
  for (int i = 0; i < 3; i++)
    if ((given_t && !(x->drag_linear[i] > 0.0)) || (given_r && !(x->drag_angular[i] > 0.0))) return false;
  if (!given_t || !given_r) {
    double eta = world->viscosity, dt[3], dr[3];
    const double *orientation = identity;
    bool ok = false;
    if (b->shape_count == 1) {
      const clt_shape_def_t *s = clt_world_shape(world, b->shape_first);
      ok = shape_drag(s, eta, dt, dr);
      orientation = s->local_orientation;
    }
    if (!ok) {
      double volume = 0.0;
      for (int k = 0; k < b->shape_count; k++) volume += shape_volume(clt_world_shape(world, b->shape_first + k));
      if (!(volume > 0.0)) return false;
      sphere_drag(cbrt(3.0 * volume / (4.0 * CLT_PI_D)), eta, dt, dr);
      orientation = identity;
    }
    rotate_diag(orientation, dt, zt);
    rotate_diag(orientation, dr, zr);
  }
  if (given_t) rotate_diag(identity, x->drag_linear, zt);
  if (given_r) rotate_diag(identity, x->drag_angular, zr);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      if (!isfinite(zt[i][j]) || !isfinite(zr[i][j]) || (i == j && !(zt[i][i] > 0.0 && zr[i][i] > 0.0))) return false;
  return true;
}
