/* Stiff springs and dampers as compliant rows (SPEC.md §4; 004 (32)–(33)):
 *  - 3D, semi-implicit gyroscopic term: one step of a world with implicit spring–dampers
 *    (body–body, body–world, a pure damper, a rotational spring–damper), an explicit spring and an
 *    applied force gives the v⁺ of the dense linearly implicit step M̂ v⁺ = M v + h k̂ built here
 *    from 004 (32)–(33) (M̂ = M + h K_c + Σ (h²γ + hδ) ∇φ∇φᵀ, k̂ = k₁ − Σ γ φ ∇φ) to round-off;
 *  - 2D with a pressing frictionless contact, Lemke (dense) and block Gauss–Seidel (CSR): v⁺ of the
 *    dense KKT system [M̂ −n; nᵀ 0] to round-off / the solver tolerance; 3D the same with the
 *    semi-implicit gyroscopic term (non-symmetric M̂, 004 §2.3.5) and Lemke;
 *  - a rotational spring on a hinged body (2D pin; 3D revolute joint about a tilted axis) oscillates
 *    as θ₀ cos(√(k/I) t), explicit and implicit;
 *  - the relaxed scheme and the overdamped law refuse implicit elements with a clear message;
 *  - an explicit damper past its stability limit diverges and is reported (CLT_ERR_DIVERGED), the
 *    state before the failing step kept. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/solvers.h"
#include "clatter/world.h"
#include "math/vec.h"
#include "test_util.h"

#define N12 12

/* Gaussian elimination with partial pivoting: a x = b (n ≤ 16). */
static void solve_dense(int n, double a[16][16], double b[16], double x[16]) {
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(a[i][k]) > fabs(a[p][k])) p = i;
    for (int j = 0; j < n; j++) {
      double t = a[k][j];
      a[k][j] = a[p][j];
      a[p][j] = t;
    }
    double t = b[k];
    b[k] = b[p];
    b[p] = t;
    for (int i = k + 1; i < n; i++) {
      double f = a[i][k] / a[k][k];
      for (int j = k; j < n; j++) a[i][j] -= f * a[k][j];
      b[i] -= f * b[k];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    for (int j = i + 1; j < n; j++) s -= a[i][j] * x[j];
    x[i] = s / a[i][i];
  }
}

typedef struct elem_t {
  int a, b;            /* body slots 0/1, −1 ground */
  double anchor_a[3], anchor_b[3];
  double gamma, delta, rest;
  bool rotational;
  double axis[3];      /* rotational: in A's frame */
  bool implicit;
} elem_t;

/* φ and ∇φ (12-vector over the two bodies' (u, ω_body)) computed independently of the library. */
static double element_gradient(const clt_body_state_t st[2], const elem_t *e, double g[N12]) {
  memset(g, 0, N12 * sizeof *g);
  if (e->rotational) { /* at the state of creation (the only one used): φ = −rest */
    double n[3];
    clt_q_rotate(n, st[e->a].orientation, e->axis);
    for (int k = 0; k < 3; k++) g[6 * e->a + 3 + k] = e->axis[k];
    if (e->b >= 0) {
      double nb[3];
      clt_q_rotate_inv(nb, st[e->b].orientation, n);
      for (int k = 0; k < 3; k++) g[6 * e->b + 3 + k] = -nb[k];
    }
    return -e->rest;
  }
  double p[2][3], rho[2][3];
  const int body[2] = {e->a, e->b};
  const double *anchor[2] = {e->anchor_a, e->anchor_b};
  for (int s = 0; s < 2; s++) {
    if (body[s] < 0) {
      clt_v3_copy(p[s], anchor[s]);
      continue;
    }
    clt_q_rotate(rho[s], st[body[s]].orientation, anchor[s]);
    clt_v3_add(p[s], st[body[s]].position, rho[s]);
  }
  double d[3], n[3];
  clt_v3_sub(d, p[0], p[1]);
  double len = clt_v3_norm(d);
  clt_v3_scale(n, d, 1.0 / len);
  for (int s = 0; s < 2; s++) {
    if (body[s] < 0) continue;
    double sign = s == 0 ? 1.0 : -1.0, c[3], cb[3];
    clt_v3_cross(c, rho[s], n);
    clt_q_rotate_inv(cb, st[body[s]].orientation, c);
    for (int k = 0; k < 3; k++) {
      g[6 * body[s] + k] = sign * n[k];
      g[6 * body[s] + 3 + k] = sign * cb[k];
    }
  }
  return len - e->rest;
}

static void dense_3d(void) {
  const double h = 0.01;
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  wd.method.gyroscopic = CLT_GYRO_SEMI_IMPLICIT;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  const double mass[2] = {2.0, 0.7}, inertia[2][3] = {{0.3, 0.5, 0.8}, {0.2, 0.25, 0.1}};
  const double pos[2][3] = {{0.1, 0.2, 1.0}, {1.3, -0.4, 1.5}};
  double quat[2][4] = {{0.9, 0.1, -0.3, 0.2}, {0.7, -0.2, 0.4, 0.5}};
  const double vel[2][3] = {{0.3, -0.2, 0.5}, {-1.0, 0.4, 0.1}}, omega[2][3] = {{2.0, -1.0, 3.0}, {-0.5, 4.0, 1.0}};
  clt_body_id_t id[2];
  for (int i = 0; i < 2; i++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.mass = mass[i];
    memcpy(bd.inertia, inertia[i], sizeof bd.inertia);
    memcpy(bd.position, pos[i], sizeof bd.position);
    memcpy(bd.orientation, quat[i], sizeof bd.orientation);
    memcpy(bd.velocity, vel[i], sizeof bd.velocity);
    memcpy(bd.angular_velocity, omega[i], sizeof bd.angular_velocity);
    CHECK(clt_world_add_body(w, &bd, &id[i]) == CLT_OK);
  }
  elem_t el[5] = {
      {0, 1, {0.2, 0.1, -0.1}, {-0.1, 0.3, 0.2}, 1e3, 50.0, 0.8, false, {0}, true},  /* body–body spring-damper */
      {0, -1, {-0.3, 0.0, 0.1}, {0.0, 0.5, 2.0}, 200.0, 0.0, 1.0, false, {0}, true}, /* body–world spring */
      {1, -1, {0.0, 0.2, 0.0}, {2.0, 0.0, 1.0}, 0.0, 30.0, 0.5, false, {0}, true},   /* body–world pure damper */
      {0, 1, {0}, {0}, 40.0, 5.0, 0.3, true, {0.0, 0.6, 0.8}, true},                  /* rotational */
      {0, 1, {0.0, -0.2, 0.1}, {0.1, 0.0, 0.0}, 10.0, 2.0, 1.1, false, {0}, false},  /* explicit */
  };
  for (int k = 0; k < 5; k++) {
    clt_force_def_t fd = clt_default_force_def(el[k].rotational ? CLT_FORCE_ROTATIONAL_SPRING_DAMPER
                                                                : CLT_FORCE_SPRING_DAMPER);
    fd.body_a = id[el[k].a];
    fd.body_b = el[k].b >= 0 ? id[el[k].b] : clt_world_ground();
    memcpy(fd.anchor_a, el[k].anchor_a, sizeof fd.anchor_a);
    memcpy(fd.anchor_b, el[k].anchor_b, sizeof fd.anchor_b);
    fd.stiffness = el[k].gamma;
    fd.damping = el[k].delta;
    if (el[k].rotational) {
      memcpy(fd.axis_a, el[k].axis, sizeof fd.axis_a);
      fd.rest_angle = el[k].rest;
    } else {
      fd.rest_length = el[k].rest;
    }
    fd.treatment = el[k].implicit ? CLT_TREAT_IMPLICIT : CLT_TREAT_EXPLICIT;
    CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  }
  clt_force_def_t ap = clt_default_force_def(CLT_FORCE_APPLIED);
  ap.body_a = id[1];
  ap.force[0] = 3.0;
  ap.torque[2] = 0.4;
  CHECK(clt_world_add_force(w, &ap, NULL) == CLT_OK);

  clt_body_state_t st[2];
  double v[N12];
  for (int i = 0; i < 2; i++) {
    CHECK(clt_body_get_state(w, id[i], &st[i]) == CLT_OK);
    memcpy(v + 6 * i, st[i].velocity, 3 * sizeof(double));
    memcpy(v + 6 * i + 3, st[i].angular_velocity, 3 * sizeof(double));
    for (int k = 0; k < 3; k++) quat[i][k] = 0.0; /* unused from here on */
  }
  /* M̂ and M v + h k̂ (004 (32)–(33)) */
  double A[16][16], rhs[16], x[16];
  memset(A, 0, sizeof A);
  for (int i = 0; i < 2; i++) {
    const double *wv = st[i].angular_velocity;
    double jw[3] = {inertia[i][0] * wv[0], inertia[i][1] * wv[1], inertia[i][2] * wv[2]};
    double kc[3][3] = {{0, jw[2], -jw[1]}, {-jw[2], 0, jw[0]}, {jw[1], -jw[0], 0}}; /* K_c = −[Jω]ₓ */
    for (int k = 0; k < 3; k++) {
      A[6 * i + k][6 * i + k] = mass[i];
      rhs[6 * i + k] = mass[i] * v[6 * i + k] + h * mass[i] * (k == 2 ? -9.81 : 0.0);
      rhs[6 * i + 3 + k] = inertia[i][k] * v[6 * i + 3 + k];
      for (int l = 0; l < 3; l++) A[6 * i + 3 + k][6 * i + 3 + l] = (k == l ? inertia[i][k] : 0.0) + h * kc[k][l];
    }
  }
  double tau_body[3], tau_world[3] = {0.0, 0.0, 0.4};
  clt_q_rotate_inv(tau_body, st[1].orientation, tau_world);
  rhs[6] += h * 3.0;
  for (int k = 0; k < 3; k++) rhs[9 + k] += h * tau_body[k];
  for (int e = 0; e < 5; e++) {
    double g[N12], phi = element_gradient(st, &el[e], g), rate = 0.0;
    for (int i = 0; i < N12; i++) rate += g[i] * v[i];
    if (el[e].implicit) {
      double s = h * h * el[e].gamma + h * el[e].delta;
      for (int i = 0; i < N12; i++) {
        for (int j = 0; j < N12; j++) A[i][j] += s * g[i] * g[j];
        rhs[i] -= h * el[e].gamma * phi * g[i];
      }
    } else {
      for (int i = 0; i < N12; i++) rhs[i] -= h * (el[e].gamma * phi + el[e].delta * rate) * g[i];
    }
  }
  solve_dense(N12, A, rhs, x);
  CHECK(clt_world_step(w) == CLT_OK);
  double err = 0.0, scale = 0.0;
  for (int i = 0; i < 2; i++) {
    clt_body_state_t s;
    clt_body_get_state(w, id[i], &s);
    for (int k = 0; k < 3; k++) {
      err = fmax(err, fabs(s.velocity[k] - x[6 * i + k]));
      err = fmax(err, fabs(s.angular_velocity[k] - x[6 * i + 3 + k]));
      scale = fmax(scale, fmax(fabs(x[6 * i + k]), fabs(x[6 * i + 3 + k])));
    }
  }
  printf("3D rows vs dense M̂/k̂: max |Δv⁺| = %.3g (|v⁺| ≤ %.3g)\n", err, scale);
  CHECK_LE(err, 1e-12 * scale);
  clt_world_destroy(w);
}

/* 2D: disk 0 resting on a frictionless table (Φ = 0, scheme none: the contact acts as nᵀv⁺ = 0
 * while it presses), disk 1 above it; implicit spring–dampers disk–disk and disk–world. */
static void contact_2d(clt_solver_kind_t solver) {
  const double h = 0.05;
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.time_step = h;
  wd.gravity[0] = 0.0;
  wd.gravity[1] = -9.81;
  wd.gravity[2] = 0.0;
  wd.method.scheme = CLT_SCHEME_NONE;
  wd.method.solver = solver;
  wd.method.tolerance = 1e-13;
  wd.method.max_iterations = 100000;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_material_def_t md = clt_default_material_def();
  md.friction = 0.0;
  int mat;
  clt_world_add_material(w, &md, &mat);
  clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFPLANE);
  plane.normal[1] = 1.0;
  plane.material = mat;
  clt_body_def_t tb = clt_default_body_def();
  tb.type = CLT_BODY_STATIC;
  tb.shapes = &plane;
  tb.shape_count = 1;
  CHECK(clt_world_add_body(w, &tb, NULL) == CLT_OK);
  clt_shape_def_t disk = clt_default_shape_def(CLT_SHAPE_DISK);
  disk.radius = 0.5;
  disk.material = mat;
  const double mass[2] = {1.5, 0.8};
  const double pos[2][2] = {{0.0, 0.5}, {0.7, 2.0}}, vel[2][2] = {{0.4, 0.0}, {-0.3, 0.6}};
  clt_body_id_t id[2];
  for (int i = 0; i < 2; i++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.mass = mass[i];
    bd.inertia[0] = 0.2;
    bd.position[0] = pos[i][0];
    bd.position[1] = pos[i][1];
    bd.velocity[0] = vel[i][0];
    bd.velocity[1] = vel[i][1];
    bd.shapes = &disk;
    bd.shape_count = 1;
    CHECK(clt_world_add_body(w, &bd, &id[i]) == CLT_OK);
  }
  /* centre anchors: rows without torque; γ, δ, rest */
  const double el[3][3] = {{300.0, 20.0, 2.0}, {50.0, 4.0, 0.0}, {0.0, 15.0, 0.0}};
  const int ea[3] = {0, 0, 1}, eb[3] = {1, -1, -1};
  const double world_pt[3][2] = {{0, 0}, {-3.0, -0.5}, {2.0, 2.5}};
  for (int k = 0; k < 3; k++) {
    clt_force_def_t fd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
    fd.body_a = id[ea[k]];
    fd.body_b = eb[k] >= 0 ? id[eb[k]] : clt_world_ground();
    fd.anchor_b[0] = world_pt[k][0];
    fd.anchor_b[1] = world_pt[k][1];
    fd.stiffness = el[k][0];
    fd.damping = el[k][1];
    fd.rest_length = k == 0 ? el[k][2] : 1.0;
    fd.treatment = CLT_TREAT_IMPLICIT;
    CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  }
  /* dense KKT: unknowns (v0x, v0y, v1x, v1y, c_n); rotation decouples (no torques) */
  double A[16][16], rhs[16], x[16];
  memset(A, 0, sizeof A);
  memset(rhs, 0, sizeof rhs);
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 2; k++) {
      A[2 * i + k][2 * i + k] = mass[i];
      rhs[2 * i + k] = mass[i] * vel[i][k] + h * mass[i] * (k == 1 ? -9.81 : 0.0);
    }
  for (int e = 0; e < 3; e++) {
    double pa[2] = {pos[ea[e]][0], pos[ea[e]][1]};
    double pb[2] = {eb[e] >= 0 ? pos[eb[e]][0] : world_pt[e][0], eb[e] >= 0 ? pos[eb[e]][1] : world_pt[e][1]};
    double d[2] = {pa[0] - pb[0], pa[1] - pb[1]}, len = hypot(d[0], d[1]);
    double g[4] = {0, 0, 0, 0};
    g[2 * ea[e]] = d[0] / len;
    g[2 * ea[e] + 1] = d[1] / len;
    if (eb[e] >= 0) {
      g[2 * eb[e]] = -d[0] / len;
      g[2 * eb[e] + 1] = -d[1] / len;
    }
    double phi = len - (e == 0 ? el[e][2] : 1.0), s = h * h * el[e][0] + h * el[e][1];
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) A[i][j] += s * g[i] * g[j];
      rhs[i] -= h * el[e][0] * phi * g[i];
    }
  }
  A[1][4] = -1.0; /* − n c_n, n = +y on disk 0 */
  A[4][1] = 1.0;  /* nᵀ v⁺ = 0 */
  solve_dense(5, A, rhs, x);
  CHECK(x[4] > 0.1); /* the contact presses: the equality form is the LCP's solution */
  CHECK(clt_world_step(w) == CLT_OK);
  clt_diagnostics_t dg;
  clt_world_get_diagnostics(w, &dg);
  CHECK(dg.contacts == 1 && dg.solver_status == CLT_SOLVE_SOLVED);
  double err = 0.0;
  for (int i = 0; i < 2; i++) {
    clt_body_state_t s;
    clt_body_get_state(w, id[i], &s);
    err = fmax(err, fmax(fabs(s.velocity[0] - x[2 * i]), fabs(s.velocity[1] - x[2 * i + 1])));
  }
  printf("2D contact + rows (%s) vs dense KKT: max |Δv⁺| = %.3g, c_n = %.6g\n", clt_solver_kind_name(solver), err, x[4]);
  CHECK_LE(err, solver == CLT_SOLVER_LEMKE ? 1e-12 : 1e-9);
  clt_world_destroy(w);
}

/* 3D, semi-implicit gyroscopic term (M̂ non-symmetric) with Lemke: a spinning sphere pressed onto a
 * frictionless plane by an implicit spring with an off-centre anchor (so the spring row has an
 * angular part that couples with h K_c). The contact row at the lowest point has no angular part;
 * while it presses it acts as nᵀv⁺ = 0, so v⁺ is the dense KKT solution [M̂ −n; nᵀ 0]. */
static void gyro_contact_3d(void) {
  const double h = 0.02, m = 2.0, J[3] = {0.3, 0.5, 0.8}, r = 0.5;
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  wd.method.scheme = CLT_SCHEME_NONE;
  wd.method.gyroscopic = CLT_GYRO_SEMI_IMPLICIT;
  wd.method.solver = CLT_SOLVER_LEMKE;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_material_def_t md = clt_default_material_def();
  md.friction = 0.0;
  int mat;
  clt_world_add_material(w, &md, &mat);
  clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  plane.normal[2] = 1.0;
  plane.material = mat;
  clt_body_def_t tb = clt_default_body_def();
  tb.type = CLT_BODY_STATIC;
  tb.shapes = &plane;
  tb.shape_count = 1;
  CHECK(clt_world_add_body(w, &tb, NULL) == CLT_OK);
  clt_shape_def_t ball = clt_default_shape_def(CLT_SHAPE_SPHERE);
  ball.radius = r;
  ball.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = m;
  memcpy(bd.inertia, J, sizeof J);
  bd.position[2] = r;
  bd.orientation[0] = 0.8;
  bd.orientation[2] = 0.6;
  bd.velocity[0] = 0.5;
  bd.angular_velocity[0] = 3.0;
  bd.angular_velocity[1] = -2.0;
  bd.angular_velocity[2] = 5.0;
  bd.shapes = &ball;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  elem_t el = {0, -1, {0.2, -0.1, 0.3}, {-1.0, 0.5, -0.8}, 400.0, 10.0, 1.0, false, {0}, true};
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
  fd.body_a = id;
  memcpy(fd.anchor_a, el.anchor_a, sizeof fd.anchor_a);
  memcpy(fd.anchor_b, el.anchor_b, sizeof fd.anchor_b);
  fd.stiffness = el.gamma;
  fd.damping = el.delta;
  fd.rest_length = el.rest;
  fd.treatment = CLT_TREAT_IMPLICIT;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  clt_body_state_t st[2];
  CHECK(clt_body_get_state(w, id, &st[0]) == CLT_OK);
  st[1] = st[0];
  double v[6], g[N12];
  memcpy(v, st[0].velocity, 3 * sizeof(double));
  memcpy(v + 3, st[0].angular_velocity, 3 * sizeof(double));
  double phi = element_gradient(st, &el, g);
  double A[16][16], rhs[16], x[16];
  memset(A, 0, sizeof A);
  const double *wv = st[0].angular_velocity;
  double jw[3] = {J[0] * wv[0], J[1] * wv[1], J[2] * wv[2]};
  double kc[3][3] = {{0, jw[2], -jw[1]}, {-jw[2], 0, jw[0]}, {jw[1], -jw[0], 0}};
  for (int k = 0; k < 3; k++) {
    A[k][k] = m;
    rhs[k] = m * v[k] + (k == 2 ? -h * m * 9.81 : 0.0);
    rhs[3 + k] = J[k] * v[3 + k];
    for (int l = 0; l < 3; l++) A[3 + k][3 + l] = (k == l ? J[k] : 0.0) + h * kc[k][l];
  }
  double sc = h * h * el.gamma + h * el.delta;
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 6; j++) A[i][j] += sc * g[i] * g[j];
    rhs[i] -= h * el.gamma * phi * g[i];
  }
  A[2][6] = -1.0;
  A[6][2] = 1.0;
  rhs[6] = 0.0;
  solve_dense(7, A, rhs, x);
  CHECK(x[6] > 1.0);
  CHECK(clt_world_step(w) == CLT_OK);
  clt_diagnostics_t dg;
  clt_world_get_diagnostics(w, &dg);
  CHECK(dg.contacts == 1 && dg.solver_status == CLT_SOLVE_SOLVED);
  clt_body_state_t s1;
  clt_body_get_state(w, id, &s1);
  double err = 0.0, scale = 0.0;
  for (int k = 0; k < 3; k++) {
    err = fmax(err, fmax(fabs(s1.velocity[k] - x[k]), fabs(s1.angular_velocity[k] - x[3 + k])));
    scale = fmax(scale, fmax(fabs(x[k]), fabs(x[3 + k])));
  }
  printf("3D semi-implicit gyroscopic + contact + rows (lemke) vs dense KKT: max |Δv⁺| = %.3g, c_n = %.6g\n", err,
         x[6]);
  CHECK_LE(err, 1e-12 * scale);
  clt_world_destroy(w);
}

/* A 2D body pinned at its centre to the ground, a rotational spring to the ground: θ(t) =
 * θ₀ cos(√(k/I) t). Both treatments, h = 1e-3, one period. */
static void rotational_oscillator(int dimension, clt_force_treatment_t treatment) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dimension;
  wd.time_step = 1e-3;
  memset(wd.gravity, 0, sizeof wd.gravity);
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = 0.5;
  if (dimension == 3) { /* hinge about the body's z axis, tilted in the world */
    bd.inertia[0] = bd.inertia[1] = 2.0;
    bd.inertia[2] = 0.5;
    bd.orientation[0] = cos(0.3);
    bd.orientation[1] = sin(0.3);
  }
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = id;
  if (dimension == 3) {
    jd.axis_a[2] = 1.0;
    jd.axis_b[1] = -sin(0.6); /* the body z axis in the world: R_x(0.6) e_z */
    jd.axis_b[2] = cos(0.6);
  }
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_ROTATIONAL_SPRING_DAMPER);
  fd.body_a = id;
  if (dimension == 3) fd.axis_a[2] = 1.0;
  fd.stiffness = 8.0;
  fd.rest_angle = -0.2; /* φ = θ + 0.2: released 0.2 rad from rest */
  fd.treatment = treatment;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  double omega = sqrt(8.0 / 0.5), period = 2.0 * CLT_PI / omega, err = 0.0;
  int steps = (int)lround(period / 1e-3);
  for (int n = 1; n <= steps; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    double theta = s.angle;
    if (dimension == 3) { /* rotation about the body z axis relative to the initial orientation */
      double q0[4] = {cos(0.3), -sin(0.3), 0.0, 0.0}, r[4]; /* r = q0⁻¹ ⊗ q */
      const double *q = s.orientation;
      r[0] = q0[0] * q[0] - q0[1] * q[1] - q0[2] * q[2] - q0[3] * q[3];
      r[3] = q0[0] * q[3] + q0[1] * q[2] - q0[2] * q[1] + q0[3] * q[0];
      theta = 2.0 * atan2(r[3], r[0]);
    }
    err = fmax(err, fabs((theta + 0.2) - 0.2 * cos(omega * n * 1e-3)));
  }
  printf("rotational spring %dD (%s): max |θ − θ_exact| over a period = %.3g rad\n", dimension,
         treatment == CLT_TREAT_IMPLICIT ? "implicit" : "explicit", err);
  CHECK_LE(err, 0.2 * 0.02);
  CHECK_NEAR(clt_world_potential_energy(w) + clt_world_kinetic_energy(w), 0.5 * 8.0 * 0.04, 0.5 * 8.0 * 0.04 * 0.03);
  clt_world_destroy(w);
}

static bool contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

static void refusals_and_divergence(void) {
  /* relaxed scheme: implicit elements refused by the joint-rows stage */
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.time_step = 0.05;
  memset(wd.gravity, 0, sizeof wd.gravity);
  wd.method.scheme = CLT_SCHEME_RELAXED;
  wd.method.solver = CLT_SOLVER_APGD;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = 1.0;
  clt_body_id_t a, b;
  clt_world_add_body(w, &bd, &a);
  bd.position[0] = 3.0;
  bd.velocity[0] = 1.0;
  clt_world_add_body(w, &bd, &b);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
  fd.body_a = a;
  fd.body_b = b;
  fd.damping = 100.0;
  fd.treatment = CLT_TREAT_IMPLICIT;
  fd.name = "damper";
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_ERR_UNSUPPORTED);
  CHECK(contains(clt_world_error(w), "'damper' is linearly implicit"));
  CHECK(contains(clt_world_error(w), "'relaxed' pipeline"));
  clt_world_destroy(w);

  /* the overdamped law (the ReLCP pipeline, SPEC.md §6): refused by the forces stage */
  clt_world_def_t od = clt_default_world_def();
  od.law = CLT_LAW_OVERDAMPED;
  CHECK(clt_world_create(&od, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t sphere = clt_default_shape_def(CLT_SHAPE_SPHERE);
  sphere.radius = 0.5;
  clt_body_def_t sb = clt_default_body_def();
  sb.shapes = &sphere;
  sb.shape_count = 1;
  clt_world_add_body(w, &sb, &a);
  fd.body_a = a;
  fd.body_b = clt_world_ground();
  fd.anchor_b[2] = 2.0;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_ERR_UNSUPPORTED);
  CHECK(contains(clt_world_error(w), "'damper' is linearly implicit"));
  CHECK(contains(clt_world_error(w), "overdamped law"));
  clt_world_destroy(w);
  fd.anchor_b[2] = 0.0;

  /* explicit damper, h δ (1/m_A + 1/m_B) = 10: the relative velocity is multiplied by −9 per step;
   * the run must end in CLT_ERR_DIVERGED with the last finite state kept */
  wd.method.scheme = CLT_SCHEME_ANITESCU_HART;
  wd.method.solver = CLT_SOLVER_LEMKE;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  bd.position[0] = 0.0;
  bd.velocity[0] = 0.0;
  clt_world_add_body(w, &bd, &a);
  bd.position[0] = 3.0;
  bd.velocity[0] = 1.0;
  clt_world_add_body(w, &bd, &b);
  fd.body_a = a;
  fd.body_b = b;
  fd.treatment = CLT_TREAT_EXPLICIT;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  clt_status_t st = CLT_OK;
  int n = 0;
  while (st == CLT_OK && n < 1000) {
    st = clt_world_step(w);
    n++;
  }
  printf("explicit damper 100: %s after %d steps: %s\n", clt_status_name(st), n, clt_world_error(w));
  CHECK(st == CLT_ERR_DIVERGED);
  clt_body_state_t s;
  clt_body_get_state(w, b, &s);
  CHECK(isfinite(s.velocity[0]) && isfinite(s.position[0]));
  CHECK(clt_world_step_count(w) == n - 1);
  clt_world_destroy(w);
}

int main(void) {
  dense_3d();
  contact_2d(CLT_SOLVER_LEMKE);
  contact_2d(CLT_SOLVER_BGS);
  gyro_contact_3d();
  for (int dim = 2; dim <= 3; dim++) {
    rotational_oscillator(dim, CLT_TREAT_EXPLICIT);
    rotational_oscillator(dim, CLT_TREAT_IMPLICIT);
  }
  refusals_and_divergence();
  return clt_test_finish();
}
