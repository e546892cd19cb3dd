/* A box on a genuinely tilted 3D half-space (SPEC.md §1, balanced polyhedral friction cone with m_C
 * directions d_k = cos(2πk/m_C) t₁ + sin(2πk/m_C) t₂ about the contact normal n): issue 4's
 * incline check in 3D, complementing tests/stepper/test_friction_cone.c (which tilts gravity over a
 * horizontal plane and sweeps the downhill azimuth with a 4-generator sticking check).
 *
 * Here the plane's normal n is tilted away from every axis (25° about (1, 2, 0)) and the box is
 * rotated to lie flush on it, so the contact normal, the friction basis (t₁, t₂) and the box's
 * face manifold are all oblique. Gravity makes the angle θ with −n and its downhill direction u is
 * chosen in the contact plane: along a friction direction d₀, or midway between d₀ and d₁ (rotated
 * by π/m_C). Checked for m_C = 4, 8, 16:
 *  - along d₀ (θ = 30°, μ = 0.3 < tan θ): acceleration within 1 % of g (sin θ − μ cos θ), sliding
 *    straight downhill; the contact forces reported by clt_world_get_contact sum to N = m g cos θ
 *    along n and a friction force μ N opposing the motion;
 *  - between two directions (rotated by π/(2 m_C) and π/m_C from d₀ of the fixed basis): the
 *    same, exactly: the rows turn the basis so that t₁ lies along the contact's tangential load
 *    (docs/stepping.md "Friction directions"), so the polyhedral cone is exact along the slide and
 *    the box slides straight downhill at the circular cone's acceleration;
 *  - tan θ < μ (θ = 20°, μ = 0.6): the box sticks, along d₀ and midway;
 *  - near the threshold (θ = 25°, μ = 0.5, tan θ = 0.466): it sticks along d₀ and midway for every
 *    m_C, where a cone in the fixed basis holds only μ cos(π/m_C) midway (0.354, 0.462, 0.490).
 * The reported contact normal is checked to be n (so the basis used here is the one the rows use). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "math/vec.h"
#include "test_util.h"

#define PI 3.14159265358979323846
#define G 9.81
#define H 0.01
#define STEPS 50

typedef struct result_t {
  double accel;        /* |v| / t after STEPS steps from rest [m/s²] */
  double angle_deg;    /* between the velocity and the downhill direction u */
  double normal_err;   /* |Σ c_n / t − m g cos θ| / (m g cos θ) over the last step */
  double friction_err; /* |friction + μ N v̂| / (μ N) over the last step */
  double normal_dev;   /* max |reported normal − n| */
  int failures;        /* steps that failed or were not solved */
} result_t;

/* The tilted plane's unit normal: e_z rotated by 25° about (1, 2, 0)/√5. */
static void plane_normal(double n[3], double q[4]) {
  double axis[3] = {1 / sqrt(5.0), 2 / sqrt(5.0), 0}, a = 25.0 * PI / 180.0;
  q[0] = cos(a / 2);
  for (int k = 0; k < 3; k++) q[k + 1] = sin(a / 2) * axis[k];
  /* n = R(q) e_z */
  n[0] = 2 * (q[1] * q[3] + q[0] * q[2]);
  n[1] = 2 * (q[2] * q[3] - q[0] * q[1]);
  n[2] = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
}

static result_t slide(int m_c, double theta, double mu, double alpha) {
  result_t r = {0};
  double n[3], q[4], t1[3], t2[3], u[3];
  plane_normal(n, q);
  clt_v3_basis(n, t1, t2);
  for (int k = 0; k < 3; k++) u[k] = cos(alpha) * t1[k] + sin(alpha) * t2[k];
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = H;
  for (int k = 0; k < 3; k++) wd.gravity[k] = G * (-cos(theta) * n[k] + sin(theta) * u[k]);
  wd.method.friction_directions = m_c;
  wd.method.tolerance = 1e-12;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  if (!w) {
    r.failures = 1;
    return r;
  }
  clt_material_def_t md = clt_default_material_def();
  md.friction = mu;
  int mat = -1;
  CHECK(clt_world_add_material(w, &md, &mat) == CLT_OK);
  /* Plane first: it is body A of the contact, whose normal points from A to B. */
  clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  memcpy(plane.normal, n, sizeof n);
  plane.material = mat;
  clt_body_def_t gd = clt_default_body_def();
  gd.type = CLT_BODY_STATIC;
  gd.shapes = &plane;
  gd.shape_count = 1;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = 0.3;
  box.half_extents[1] = 0.2;
  box.half_extents[2] = 0.1;
  box.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  for (int k = 0; k < 3; k++) bd.position[k] = 0.1 * n[k]; /* bottom face on the plane */
  memcpy(bd.orientation, q, sizeof q);
  bd.shapes = &box;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_body_info_t info;
  CHECK(clt_body_get_info(w, id, &info) == CLT_OK);
  double mass = info.mass;
  double sum_cn = 0, friction[3] = {0, 0, 0};
  for (int s = 0; s < STEPS; s++) {
    if (clt_world_step(w) != CLT_OK) r.failures++;
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED) r.failures++;
    if (s == STEPS - 1) {
      for (int i = 0; i < clt_world_contact_count(w); i++) {
        clt_contact_info_t c;
        CHECK(clt_world_get_contact(w, i, &c) == CLT_OK);
        double dn = 0;
        for (int k = 0; k < 3; k++) dn += fabs(c.normal[k] - n[k]);
        r.normal_dev = fmax(r.normal_dev, dn);
        sum_cn += c.normal_impulse;
        for (int k = 0; k < 3; k++) friction[k] += c.impulse[k] - c.normal_impulse * c.normal[k];
      }
    }
  }
  clt_body_state_t st;
  clt_body_get_state(w, id, &st);
  double speed = clt_v3_norm(st.velocity);
  r.accel = speed / (STEPS * H);
  double cross[3];
  clt_v3_cross(cross, st.velocity, u);
  r.angle_deg = speed > 0 ? atan2(clt_v3_norm(cross), clt_v3_dot(st.velocity, u)) * 180.0 / PI : 0;
  double normal_force = mass * G * cos(theta);
  r.normal_err = fabs(sum_cn / H - normal_force) / normal_force;
  if (speed > 0) {
    double e = 0;
    for (int k = 0; k < 3; k++) {
      double want = -mu * normal_force * st.velocity[k] / speed;
      e += (friction[k] / H - want) * (friction[k] / H - want);
    }
    r.friction_err = sqrt(e) / (mu * normal_force);
  }
  clt_world_destroy(w);
  return r;
}

int main(void) {
  const int counts[3] = {4, 8, 16};
  const double theta = 30.0 * PI / 180.0, mu = 0.3;
  const double exact = G * (sin(theta) - mu * cos(theta));
  int failures = 0;
  printf(
      "box on a plane tilted 25 deg about (1,2,0); incline theta = 30 deg, mu = 0.3: exact a = %.6f m/s^2\n",
      exact);
  for (int c = 0; c < 3; c++) {
    int m = counts[c];
    /* Along the friction direction d_0. */
    result_t on = slide(m, theta, mu, 0.0);
    double on_err = (on.accel - exact) / exact;
    /* Between d_0 and d_1: a quarter and half of the sector. */
    result_t quarter = slide(m, theta, mu, 0.5 * PI / m);
    result_t mid = slide(m, theta, mu, PI / m);
    double q_err = (quarter.accel - exact) / exact, mid_err = (mid.accel - exact) / exact;
    printf(
        "  m_C = %2d: along d_0: a = %.6f (%+.1e %%), %.1e deg off downhill, N error %.1e, friction error "
        "%.1e\n",
        m, on.accel, 100 * on_err, on.angle_deg, on.normal_err, on.friction_err);
    printf("            downhill pi/(2 m_C) from d_0: a = %.6f (%+.1e %%), %.1e deg off downhill\n", quarter.accel,
           100 * q_err, quarter.angle_deg);
    printf("            downhill pi/m_C from d_0:     a = %.6f (%+.1e %%), %.1e deg off downhill\n", mid.accel,
           100 * mid_err, mid.angle_deg);
    failures += on.failures + quarter.failures + mid.failures;
    CHECK_LE(fabs(on_err), 1e-6);
    CHECK_LE(on.angle_deg, 1e-5);
    CHECK_LE(on.normal_err, 1e-6);
    CHECK_LE(on.friction_err, 1e-6);
    CHECK_LE(on.normal_dev, 1e-12);
    CHECK_LE(mid.normal_dev, 1e-12);
    /* Isotropic: the circular cone's sliding in every direction. */
    CHECK_LE(fabs(q_err), 1e-6);
    CHECK_LE(fabs(mid_err), 1e-6);
    CHECK_LE(quarter.angle_deg, 1e-5);
    CHECK_LE(mid.angle_deg, 1e-5);
    CHECK_LE(quarter.friction_err, 1e-6);
    CHECK_LE(mid.friction_err, 1e-6);
  }
  /* Sticking: tan 20° = 0.364 < μ cos(π/4) = 0.424, so even the 4-direction cone holds in every
   * direction. */
  const double theta_stick = 20.0 * PI / 180.0, mu_stick = 0.6;
  for (int c = 0; c < 3; c++) {
    int m = counts[c];
    for (int k = 0; k < 2; k++) {
      result_t r = slide(m, theta_stick, mu_stick, k * PI / m);
      printf("  stick, m_C = %2d, %s: speed after %.1f s %.2e m/s, N error %.1e\n", m,
             k ? "midway" : "along d_0", STEPS * H, r.accel * STEPS * H, r.normal_err);
      CHECK_LE(r.accel * STEPS * H, 1e-9);
      CHECK_LE(r.normal_err, 1e-6);
      failures += r.failures;
    }
  }
  /* Near the threshold: θ = 25°, μ = 0.5 (tan θ = 0.466 < μ): sticks in every direction. */
  const double theta_edge = 25.0 * PI / 180.0, mu_edge = 0.5;
  for (int c = 0; c < 3; c++) {
    int m = counts[c];
    result_t on = slide(m, theta_edge, mu_edge, 0.0);
    result_t mid = slide(m, theta_edge, mu_edge, PI / m);
    printf("  threshold, m_C = %2d: along d_0 speed %.2e m/s, midway %.2e m/s (tan theta = %.3f < mu)\n", m,
           on.accel * STEPS * H, mid.accel * STEPS * H, tan(theta_edge));
    CHECK_LE(on.accel * STEPS * H, 1e-9);
    CHECK_LE(mid.accel * STEPS * H, 1e-9);
    failures += on.failures + mid.failures;
  }
  CHECK(failures == 0);
  return clt_test_finish();
}
