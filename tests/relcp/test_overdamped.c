/* The overdamped law of motion (SPEC.md §6.1, docs/stepping.md "ReLCP and the overdamped law"):
 *  - default drag: a sphere gets Stokes' 6πηa and 8πηa³; a prolate spheroid matches the closed
 *    forms of its Stokes drag (Perrin), checked through the motion it produces;
 *  - a free body: U = 𝓜 F exactly (world-frame translational mobility R Z_t⁻¹ Rᵀ, body-frame
 *    rotational Z_r⁻¹), q⁺ = q ⊕ h U, with applied force, torque and gravity (m g);
 *  - per-body drag_linear / drag_angular override the default;
 *  - planar worlds: v_z = 0 and world ω_x = ω_y = 0 for a tilted body under a 3D force and torque,
 *    and the in-plane response is the restricted drag's inverse;
 *  - the overdamped law with the default contact model is refused with a clear message. */
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

#define PI 3.14159265358979323846

static void qrot(const double q[4], const double v[3], double out[3]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  for (int i = 0; i < 3; i++) out[i] = r[i][0] * v[0] + r[i][1] * v[1] + r[i][2] * v[2];
}

static void qrot_inv(const double q[4], const double v[3], double out[3]) {
  double c[4] = {q[0], -q[1], -q[2], -q[3]};
  qrot(c, v, out);
}

static clt_world_t *overdamped_world(double h, double eta, bool planar, double gz) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  wd.gravity[0] = wd.gravity[1] = 0.0;
  wd.gravity[2] = gz;
  wd.law = CLT_LAW_OVERDAMPED;
  wd.viscosity = eta;
  wd.planar = planar;
  wd.method.contact_model = CLT_CONTACT_MODEL_RELCP;
  clt_world_t *w = NULL;
  char msg[256];
  CHECK(clt_world_create(&wd, &w, msg, sizeof msg) == CLT_OK);
  return w;
}

static clt_body_id_t add_body(clt_world_t *w, const clt_shape_def_t *s, const double pos[3], const double q[4]) {
  clt_body_def_t bd = clt_default_body_def();
  memcpy(bd.position, pos, sizeof bd.position);
  memcpy(bd.orientation, q, sizeof bd.orientation);
  bd.shapes = s;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  return id;
}

static void apply(clt_world_t *w, clt_body_id_t id, const double f[3], const double t[3]) {
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = id;
  memcpy(fd.force, f, sizeof fd.force);
  memcpy(fd.torque, t, sizeof fd.torque);
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
}

/* Perrin's closed forms for a prolate spheroid, semi-axes a (long) > b = c. */
static void prolate(double a, double b, double eta, double *zpar, double *zperp, double *rpar, double *rperp) {
  double e = sqrt(1.0 - b * b / (a * a)), l = log((1.0 + e) / (1.0 - e));
  *zpar = 16.0 * PI * eta * a * e * e * e / ((1.0 + e * e) * l - 2.0 * e);
  *zperp = 32.0 * PI * eta * a * e * e * e / (2.0 * e + (3.0 * e * e - 1.0) * l);
  *rpar = 32.0 * PI * eta * a * b * b * e * e * e / (3.0 * (2.0 * e - (1.0 - e * e) * l));
  *rperp = 32.0 * PI * eta * a * a * a * e * e * e * (2.0 - e * e) / (3.0 * ((1.0 + e * e) * l - 2.0 * e));
}

static void sphere_free(void) {
  double h = 0.01, eta = 2.5, a = 0.3;
  clt_world_t *w = overdamped_world(h, eta, false, 0.0);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_SPHERE);
  s.radius = a;
  double pos[3] = {1, 2, 3}, q[4] = {1, 0, 0, 0};
  clt_body_id_t id = add_body(w, &s, pos, q);
  double f[3] = {1.0, -2.0, 0.5}, t[3] = {0.2, 0.1, -0.4};
  apply(w, id, f, t);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t st;
  clt_body_get_state(w, id, &st);
  for (int k = 0; k < 3; k++) {
    CHECK_NEAR(st.velocity[k], f[k] / (6 * PI * eta * a), 1e-14);
    CHECK_NEAR(st.angular_velocity[k], t[k] / (8 * PI * eta * a * a * a), 1e-13);
    CHECK_NEAR(st.position[k], pos[k] + h * f[k] / (6 * PI * eta * a), 1e-14);
  }
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  CHECK(d.constraints == 0 && d.relcp_iterations == 1 && d.max_overlap == 0.0);
  clt_world_destroy(w);
}

/* A tilted prolate spheroid (long axis = local x) with force, torque and gravity. */
static void spheroid_free(void) {
  double h = 0.02, eta = 0.7, a = 1.2, b = 0.4, g = -3.0;
  clt_world_t *w = overdamped_world(h, eta, false, g);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_ELLIPSOID);
  s.semi_axes[0] = a;
  s.semi_axes[1] = s.semi_axes[2] = b;
  double pos[3] = {0.5, -1, 2};
  double q[4] = {0.8, 0.2, -0.4, 0.3};
  double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= qn;
  clt_body_id_t id = add_body(w, &s, pos, q);
  double f[3] = {0.3, 1.0, -0.2}, t[3] = {0.5, -0.3, 0.8};
  apply(w, id, f, t);
  clt_body_info_t info;
  clt_body_get_info(w, id, &info);
  clt_body_state_t s0;
  clt_body_get_state(w, id, &s0);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t st;
  clt_body_get_state(w, id, &st);
  double zpar, zperp, rpar, rperp;
  prolate(a, b, eta, &zpar, &zperp, &rpar, &rperp);
  /* The principal frame of the spheroid is its own frame (axes possibly permuted): work in the
   * reported frame, finding the long axis as the world direction of the shape's local x. */
  double total[3] = {f[0], f[1], f[2] + info.mass * g}, fb[3], tb[3];
  qrot_inv(s0.orientation, total, fb);
  qrot_inv(s0.orientation, t, tb);
  /* long axis in the principal frame: the stored shape's local orientation */
  clt_shape_def_t stored;
  CHECK(clt_body_get_shape(w, id, 0, &stored) == CLT_OK);
  double ex[3] = {1, 0, 0}, axis[3];
  qrot(stored.local_orientation, ex, axis);
  double ub[3], wb[3];
  double fpar = fb[0] * axis[0] + fb[1] * axis[1] + fb[2] * axis[2];
  double tpar = tb[0] * axis[0] + tb[1] * axis[1] + tb[2] * axis[2];
  for (int k = 0; k < 3; k++) {
    ub[k] = fpar * axis[k] / zpar + (fb[k] - fpar * axis[k]) / zperp;
    wb[k] = tpar * axis[k] / rpar + (tb[k] - tpar * axis[k]) / rperp;
  }
  double u[3];
  qrot(s0.orientation, ub, u);
  for (int k = 0; k < 3; k++) {
    CHECK_NEAR(st.velocity[k], u[k], 1e-12 * (1 + fabs(u[k])));
    CHECK_NEAR(st.angular_velocity[k], wb[k], 1e-12 * (1 + fabs(wb[k])));
    CHECK_NEAR(st.position[k], s0.position[k] + h * u[k], 1e-13);
  }
  printf("spheroid a=%.2f b=%.2f: zeta_par %.6f zeta_perp %.6f rot_par %.6f rot_perp %.6f\n", a, b, zpar, zperp, rpar,
         rperp);
  clt_world_destroy(w);
}

/* The triaxial Perrin integrals by direct quadrature (λ = e^σ, Simpson on σ ∈ [−60, 60]):
 * χ = ∫ dλ/Δ, α_i = ∫ dλ/((a_i²+λ)Δ). */
static void triaxial_quadrature(const double a[3], double eta, double zt[3], double zr[3]) {
  int n = 200000;
  double lo = -60.0, hi = 60.0, dh = (hi - lo) / n, chi = 0.0, al[3] = {0, 0, 0};
  for (int k = 0; k <= n; k++) {
    double sg = lo + dh * k, lam = exp(sg), wgt = (k == 0 || k == n) ? 1.0 : (k % 2 ? 4.0 : 2.0);
    double d = sqrt((a[0] * a[0] + lam) * (a[1] * a[1] + lam) * (a[2] * a[2] + lam));
    chi += wgt * lam / d;
    for (int i = 0; i < 3; i++) al[i] += wgt * lam / ((a[i] * a[i] + lam) * d);
  }
  chi *= dh / 3.0;
  for (int i = 0; i < 3; i++) al[i] *= dh / 3.0;
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    zt[i] = 16.0 * PI * eta / (chi + a[i] * a[i] * al[i]);
    zr[i] = 16.0 * PI * eta * (a[j] * a[j] + a[k] * a[k]) / (3.0 * (a[j] * a[j] * al[j] + a[k] * a[k] * al[k]));
  }
}

/* A triaxial ellipsoid, unrotated (its principal frame is the world frame up to an axis
 * permutation, handled through the stored shape orientation). */
static void triaxial(void) {
  double h = 0.01, eta = 1.3, a[3] = {0.9, 0.5, 0.2};
  clt_world_t *w = overdamped_world(h, eta, false, 0.0);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_ELLIPSOID);
  memcpy(s.semi_axes, a, sizeof a);
  double pos[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0};
  clt_body_id_t id = add_body(w, &s, pos, q);
  double f[3] = {1.0, 1.0, 1.0}, t[3] = {1.0, 1.0, 1.0};
  apply(w, id, f, t);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t st;
  clt_body_get_state(w, id, &st);
  double zt[3], zr[3];
  triaxial_quadrature(a, eta, zt, zr);
  /* the def frame is the world frame (identity orientation): u = diag(1/ζ_t) f; ω in the world
   * frame is R ω_B, the same before and after the step (the rotation is about ω itself) */
  double ww[3];
  qrot(st.orientation, st.angular_velocity, ww);
  for (int k = 0; k < 3; k++) {
    CHECK_NEAR(st.velocity[k], f[k] / zt[k], 1e-9 * f[k] / zt[k]);
    CHECK_NEAR(ww[k], t[k] / zr[k], 1e-9 * t[k] / zr[k]);
  }
  printf("triaxial (0.9, 0.5, 0.2): zeta_t %.8f %.8f %.8f zeta_r %.8f %.8f %.8f (quadrature)\n", zt[0], zt[1], zt[2],
         zr[0], zr[1], zr[2]);
  clt_world_destroy(w);
}

/* drag_linear / drag_angular given: U_body = F_body / ζ componentwise. */
static void drag_override(void) {
  double h = 0.01;
  clt_world_t *w = overdamped_world(h, 1.0, false, 0.0);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  s.radius = 0.2;
  s.length = 1.0;
  clt_body_def_t bd = clt_default_body_def();
  bd.orientation[0] = cos(0.3);
  bd.orientation[3] = sin(0.3);
  bd.shapes = &s;
  bd.shape_count = 1;
  double zl[3] = {2.0, 3.0, 5.0}, za[3] = {7.0, 11.0, 13.0};
  memcpy(bd.drag_linear, zl, sizeof zl);
  memcpy(bd.drag_angular, za, sizeof za);
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  double f[3] = {1.0, 2.0, 3.0}, t[3] = {-1.0, 0.5, 2.0};
  apply(w, id, f, t);
  clt_body_state_t s0, st;
  clt_body_get_state(w, id, &s0);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_get_state(w, id, &st);
  double fb[3], tb[3], ub[3], wb[3], u[3];
  qrot_inv(s0.orientation, f, fb);
  qrot_inv(s0.orientation, t, tb);
  for (int k = 0; k < 3; k++) {
    ub[k] = fb[k] / zl[k];
    wb[k] = tb[k] / za[k];
  }
  qrot(s0.orientation, ub, u);
  for (int k = 0; k < 3; k++) {
    CHECK_NEAR(st.velocity[k], u[k], 1e-14);
    CHECK_NEAR(st.angular_velocity[k], wb[k], 1e-14);
  }
  clt_world_destroy(w);
}

/* Capsule default drag = the prolate spheroid of the same length and diameter. */
static void capsule_default(void) {
  double eta = 1.5, r = 0.25, len = 2.0;
  clt_world_t *w = overdamped_world(0.01, eta, false, 0.0);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  s.radius = r;
  s.length = len;
  double pos[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0};
  clt_body_id_t id = add_body(w, &s, pos, q);
  double f[3] = {1.0, 0.0, 2.0}, t[3] = {0.0, 0.0, 0.0};
  apply(w, id, f, t);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t st;
  clt_body_get_state(w, id, &st);
  double zpar, zperp, rpar, rperp;
  prolate(0.5 * len + r, r, eta, &zpar, &zperp, &rpar, &rperp);
  CHECK_NEAR(st.velocity[0], 1.0 / zperp, 1e-12);
  CHECK_NEAR(st.velocity[2], 2.0 / zpar, 1e-12);
  clt_world_destroy(w);
}

/* Planar: a tilted ellipsoid pushed out of the plane and twisted about in-plane axes. */
static void planar(void) {
  double h = 0.01;
  clt_world_t *w = overdamped_world(h, 1.0, true, -9.81);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_ELLIPSOID);
  s.semi_axes[0] = 1.0;
  s.semi_axes[1] = 0.5;
  s.semi_axes[2] = 0.3;
  double pos[3] = {0, 0, 0.7}, q[4] = {0.9, 0.1, 0.2, 0.3};
  double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= qn;
  clt_body_id_t id = add_body(w, &s, pos, q);
  double f[3] = {1.0, 0.5, 4.0}, t[3] = {2.0, -1.0, 0.5};
  apply(w, id, f, t);
  double worst_vz = 0.0, worst_wxy = 0.0, z0 = pos[2];
  for (int n = 0; n < 50; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t st;
    clt_body_get_state(w, id, &st);
    double ww[3];
    qrot(st.orientation, st.angular_velocity, ww); /* the orientation after the step: ω ∥ Rᵀe_z is kept */
    worst_vz = fmax(worst_vz, fabs(st.velocity[2]));
    worst_wxy = fmax(worst_wxy, fmax(fabs(ww[0]), fabs(ww[1])));
    CHECK_NEAR(st.position[2], z0, 0.0);
    if (n == 0) CHECK(fabs(ww[2]) > 1e-3 && fabs(st.velocity[0]) > 1e-3);
  }
  printf("planar: max |v_z| %.3g, max |omega_x,y| (world) %.3g\n", worst_vz, worst_wxy);
  CHECK(worst_vz == 0.0);
  CHECK_LE(worst_wxy, 1e-12);
  clt_world_destroy(w);

  /* the inertial law in a planar world: the same confinement, and the in-plane momentum and the
   * angular momentum about z are kept (no forces) */
  clt_world_def_t iw = clt_default_world_def();
  iw.time_step = 0.01;
  iw.planar = true;
  iw.method.contact_model = CLT_CONTACT_MODEL_RELCP;
  CHECK(clt_world_create(&iw, &w, NULL, 0) == CLT_OK);
  clt_body_def_t bd = clt_default_body_def();
  memcpy(bd.orientation, q, sizeof q);
  bd.position[2] = 0.7;
  bd.velocity[0] = 0.3;
  bd.velocity[2] = 1.0;
  bd.angular_velocity[0] = 0.5;
  bd.angular_velocity[1] = -0.2;
  bd.angular_velocity[2] = 0.4;
  bd.shapes = &s;
  bd.shape_count = 1;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  double wz_first = 0.0;
  worst_vz = worst_wxy = 0.0;
  for (int n = 0; n < 50; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t st;
    clt_body_get_state(w, id, &st);
    double ww[3];
    qrot(st.orientation, st.angular_velocity, ww);
    worst_vz = fmax(worst_vz, fabs(st.velocity[2]));
    worst_wxy = fmax(worst_wxy, fmax(fabs(ww[0]), fabs(ww[1])));
    CHECK_NEAR(st.position[2], 0.7, 0.0);
    CHECK_NEAR(st.velocity[0], 0.3, 1e-15);
    if (n == 0) wz_first = ww[2];
    CHECK_NEAR(ww[2], wz_first, 1e-12);
  }
  printf("planar inertial: max |v_z| %.3g, max |omega_x,y| %.3g, omega_z %.6f\n", worst_vz, worst_wxy, wz_first);
  CHECK(worst_vz == 0.0);
  CHECK_LE(worst_wxy, 1e-12);
  CHECK(fabs(wz_first) > 1e-3);
  clt_world_destroy(w);

  /* the default contact model refuses the overdamped law */
  clt_world_def_t wd = clt_default_world_def();
  wd.law = CLT_LAW_OVERDAMPED;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t sp = clt_default_shape_def(CLT_SHAPE_SPHERE);
  double p0[3] = {0, 0, 0}, q0[4] = {1, 0, 0, 0};
  add_body(w, &sp, p0, q0);
  CHECK(clt_world_step(w) == CLT_ERR_UNSUPPORTED);
  printf("refused: %s\n", clt_world_error(w));
  CHECK(strstr(clt_world_error(w), "contact_model") != NULL);
  CHECK(clt_world_time(w) == 0.0);
  clt_world_destroy(w);
}

int main(void) {
  sphere_free();
  spheroid_free();
  triaxial();
  drag_override();
  capsule_default();
  planar();
  return clt_test_finish();
}
