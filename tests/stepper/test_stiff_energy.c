/* Energy behaviour of the linearly implicit scheme (SPEC.md §4; 004 §2.3.3):
 *  - 004 Thm 2.4 with no external force: the discrete energy
 *        v⁺ᵀMv⁺ + Σ γ (φ(q) + h ∇φ(q)ᵀv⁺)²  ≤  vᵀMv + Σ γ φ(q)²
 *    at every one of 10⁴ steps, h = 0.1 and 0.01, γ = 10², 10⁶, 10¹⁰, with friction (μ = 0.5) and
 *    without. The system: a disk on a table pressed into it by a spring to a point below the table
 *    (so friction has a normal force without gravity), a second disk hung on it by a
 *    spring–damper, a pure damper to the world. Scheme `none` (Υ = Δ = 0), the scheme of the
 *    theorem; all elements implicit.
 *  - 1D, φ linear (004 §2.3.3 after Cor. 2.5): three disks on a line joined by springs, one
 *    bouncing on a wall: the true total energy ½vᵀMv + Σ ½γφ(q)² never increases.
 *  - Cor. 2.5: from springs at rest, one step's kinetic energy never exceeds the initial one for
 *    γ → ∞ (10² … 10¹⁴), and v⁺ tends to the rigid-link step's (004 Thm 2.6). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

static clt_world_t *make_world(double h, clt_scheme_t scheme) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.time_step = h;
  memset(wd.gravity, 0, sizeof wd.gravity);
  wd.method.scheme = scheme;
  wd.method.solver = CLT_SOLVER_LEMKE;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  return w;
}

static clt_body_id_t add_disk(clt_world_t *w, double x, double y, double vx, double vy, double omega, int material) {
  clt_shape_def_t disk = clt_default_shape_def(CLT_SHAPE_DISK);
  disk.radius = 0.5;
  disk.material = material;
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.3;
  bd.inertia[0] = 0.4;
  bd.position[0] = x;
  bd.position[1] = y;
  bd.velocity[0] = vx;
  bd.velocity[1] = vy;
  bd.angular_velocity[0] = omega;
  bd.shapes = &disk;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  return id;
}

static void add_static_plane(clt_world_t *w, double px, double py, double nx, double ny, int material) {
  clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFPLANE);
  plane.point[0] = px;
  plane.point[1] = py;
  plane.normal[0] = nx;
  plane.normal[1] = ny;
  plane.material = material;
  clt_body_def_t tb = clt_default_body_def();
  tb.type = CLT_BODY_STATIC;
  tb.shapes = &plane;
  tb.shape_count = 1;
  CHECK(clt_world_add_body(w, &tb, NULL) == CLT_OK);
}

typedef struct spring_t {
  int a, b;         /* body slots, −1: world point */
  double world[2];  /* anchor of a world side */
  double gamma, delta, rest;
} spring_t;

static void add_spring(clt_world_t *w, const clt_body_id_t *ids, const spring_t *s) {
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
  fd.body_a = ids[s->a];
  fd.body_b = s->b >= 0 ? ids[s->b] : clt_world_ground();
  if (s->b < 0) {
    fd.anchor_b[0] = s->world[0];
    fd.anchor_b[1] = s->world[1];
  }
  fd.stiffness = s->gamma;
  fd.damping = s->delta;
  fd.rest_length = s->rest;
  fd.treatment = CLT_TREAT_IMPLICIT;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
}

/* φ and ∇φᵀv of a centre-anchored spring (linear parts only: no lever arm). */
static double spring_phi(const clt_body_state_t *st, const spring_t *s, double n[2]) {
  double pa[2] = {st[s->a].position[0], st[s->a].position[1]};
  double pb[2] = {s->b >= 0 ? st[s->b].position[0] : s->world[0], s->b >= 0 ? st[s->b].position[1] : s->world[1]};
  double d[2] = {pa[0] - pb[0], pa[1] - pb[1]}, len = hypot(d[0], d[1]);
  n[0] = d[0] / len;
  n[1] = d[1] / len;
  return len - s->rest;
}

static double spring_rate(const clt_body_state_t *st, const spring_t *s, const double n[2]) {
  double r = n[0] * st[s->a].velocity[0] + n[1] * st[s->a].velocity[1];
  if (s->b >= 0) r -= n[0] * st[s->b].velocity[0] + n[1] * st[s->b].velocity[1];
  return r;
}

static double kinetic2(const clt_body_state_t *st, int count) { /* vᵀMv */
  double e = 0.0;
  for (int i = 0; i < count; i++)
    e += 1.3 * (st[i].velocity[0] * st[i].velocity[0] + st[i].velocity[1] * st[i].velocity[1]) +
         0.4 * st[i].angular_velocity[0] * st[i].angular_velocity[0];
  return e;
}

/* 004 Thm 2.4 over 10⁴ steps; returns the worst relative excess of the left side. */
static void theorem_2_4(double h, double gamma, double mu) {
  clt_world_t *w = make_world(h, CLT_SCHEME_NONE);
  clt_material_def_t md = clt_default_material_def();
  md.friction = mu;
  int mat;
  clt_world_add_material(w, &md, &mat);
  add_static_plane(w, 0.0, 0.0, 0.0, 1.0, mat);
  clt_body_id_t ids[2];
  ids[0] = add_disk(w, 0.0, 0.5, 1.5, 0.0, 2.0, mat);
  ids[1] = add_disk(w, 1.0, 2.0, -0.5, 1.0, -1.0, mat);
  /* springs start at rest length except the presser, stretched by 0.05 (its γ scaled so its force
   * stays O(10) N: γ φ = γ₀ · 0.05) */
  spring_t s[3] = {
      {0, -1, {-2.0, -1.5}, gamma, 0.0, 0.0},  /* presses disk 0 into the table */
      {1, 0, {0, 0}, gamma, 3.0, 0.0},         /* disk 1 hung on disk 0 */
      {1, -1, {3.0, 2.0}, 0.0, 2.0, 0.0},      /* pure damper to the world */
  };
  double d0 = hypot(2.0, 2.0), d1 = hypot(1.0, 1.5), d2 = hypot(2.0, 0.0);
  s[0].rest = d0 - 10.0 / gamma;
  s[1].rest = d1;
  s[2].rest = d2;
  for (int k = 0; k < 3; k++) add_spring(w, ids, &s[k]);
  double worst = -INFINITY;
  int failures = 0, contact_steps = 0;
  for (int n = 0; n < 10000; n++) {
    clt_body_state_t st[2], st1[2];
    for (int i = 0; i < 2; i++) clt_body_get_state(w, ids[i], &st[i]);
    double phi[3], nn[3][2];
    double before = kinetic2(st, 2);
    for (int k = 0; k < 3; k++) {
      phi[k] = spring_phi(st, &s[k], nn[k]);
      before += s[k].gamma * phi[k] * phi[k];
    }
    if (clt_world_step(w) != CLT_OK) {
      failures++;
      break;
    }
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.solver_status != CLT_SOLVE_SOLVED && d.solver_status != CLT_SOLVE_NONE) failures++;
    if (d.contacts > 0) contact_steps++;
    for (int i = 0; i < 2; i++) clt_body_get_state(w, ids[i], &st1[i]);
    double after = kinetic2(st1, 2);
    for (int k = 0; k < 3; k++) {
      double lin = phi[k] + h * spring_rate(st1, &s[k], nn[k]); /* ∇φ at q, v⁺ */
      after += s[k].gamma * lin * lin;
    }
    worst = fmax(worst, (after - before) / before);
  }
  printf("Thm 2.4, h = %g, γ = %g, μ = %g: max relative change of the discrete energy %.3g (%d steps in contact)\n", h,
         gamma, mu, worst, contact_steps);
  CHECK(failures == 0);
  CHECK(contact_steps > 1000); /* the contact (and its friction) is exercised */
  CHECK_LE(worst, 1e-9);
  clt_world_destroy(w);
}

/* 1D: disks on the x axis, springs along x (φ linear while the order holds), a wall at x = −3. */
static void linear_energy(double h, double gamma) {
  clt_world_t *w = make_world(h, CLT_SCHEME_NONE);
  add_static_plane(w, -3.0, 0.0, 1.0, 0.0, -1);
  clt_body_id_t ids[3];
  ids[0] = add_disk(w, -1.5, 0.0, -2.0, 0.0, 0.0, -1);
  ids[1] = add_disk(w, 0.0, 0.0, 0.5, 0.0, 0.0, -1);
  ids[2] = add_disk(w, 1.5, 0.0, 1.0, 0.0, 0.0, -1);
  spring_t s[2] = {{1, 0, {0, 0}, gamma, 0.5, 1.5}, {2, 1, {0, 0}, 1.0, 0.0, 1.0}};
  for (int k = 0; k < 2; k++) add_spring(w, ids, &s[k]);
  double e0 = clt_world_kinetic_energy(w) + clt_world_potential_energy(w), prev = e0, worst = -INFINITY;
  int failures = 0, contact_steps = 0;
  for (int n = 0; n < 10000; n++) {
    if (clt_world_step(w) != CLT_OK) {
      failures++;
      break;
    }
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.contacts > 0) contact_steps++;
    double e = clt_world_kinetic_energy(w) + clt_world_potential_energy(w);
    worst = fmax(worst, (e - prev) / e0);
    prev = e;
  }
  printf("1D linear springs, h = %g, γ = %g: max relative energy increase per step %.3g, final/initial %.4g (%d steps "
         "on the wall)\n", h, gamma, worst, prev / e0, contact_steps);
  CHECK(failures == 0);
  CHECK(contact_steps > 0);
  CHECK_LE(worst, 1e-12);
  clt_world_destroy(w);
}

/* Cor. 2.5 and the stiff limit: one step from springs at rest with friction. */
static void stiff_limit(void) {
  double vbar[2][3] = {{0}};
  double ke0 = 0.0;
  for (int rigid = 1; rigid >= 0; rigid--) {
    for (double gamma = 1e2; gamma <= 1e14; gamma *= 1e3) {
      clt_world_t *w = make_world(0.1, CLT_SCHEME_NONE);
      clt_material_def_t md = clt_default_material_def();
      md.friction = 0.5;
      int mat;
      clt_world_add_material(w, &md, &mat);
      add_static_plane(w, 0.0, 0.0, 0.0, 1.0, mat);
      clt_body_id_t ids[2];
      ids[0] = add_disk(w, 0.0, 0.5, 2.0, -1.0, 3.0, mat);
      ids[1] = add_disk(w, 1.2, 1.6, -1.0, 2.0, -2.0, mat);
      if (rigid) {
        clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_DISTANCE);
        jd.body_a = ids[1];
        jd.body_b = ids[0];
        CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
      } else {
        spring_t s = {1, 0, {0, 0}, gamma, 0.0, hypot(1.2, 1.1)};
        add_spring(w, ids, &s);
      }
      ke0 = clt_world_kinetic_energy(w);
      CHECK(clt_world_step(w) == CLT_OK);
      double ke = clt_world_kinetic_energy(w), dv = 0.0;
      for (int i = 0; i < 2; i++) {
        clt_body_state_t st;
        clt_body_get_state(w, ids[i], &st);
        double v[3] = {st.velocity[0], st.velocity[1], st.angular_velocity[0]};
        for (int k = 0; k < 3; k++) {
          if (rigid) vbar[i][k] = v[k];
          dv = fmax(dv, fabs(v[k] - vbar[i][k]));
        }
      }
      clt_world_destroy(w);
      if (rigid) break;
      printf("Cor. 2.5, γ = %.0e: KE⁺/KE = %.6f, |v⁺ − v̄_rigid| = %.3g\n", gamma, ke / ke0, dv);
      CHECK_LE(ke, ke0 * (1.0 + 1e-12));
      if (gamma >= 1e11) CHECK_LE(dv, 1e-6);
    }
  }
}

int main(void) {
  const double hs[2] = {0.1, 0.01}, gammas[3] = {1e2, 1e6, 1e10};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) {
      theorem_2_4(hs[i], gammas[j], 0.5);
      theorem_2_4(hs[i], gammas[j], 0.0);
    }
  for (int i = 0; i < 2; i++) {
    linear_energy(hs[i], 1e2);
    linear_energy(hs[i], 1e10);
  }
  stiff_limit();
  return clt_test_finish();
}
