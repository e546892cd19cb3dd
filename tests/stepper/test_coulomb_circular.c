/* Scheme `anitescu-hart` on the circular cone (SPEC.md §1, s = 0: Coulomb's law proper, solved by
 * the coloured cone block Gauss–Seidel of relaxed_bgs.c with each contact's Coulomb problem solved
 * exactly; src/steppers/scheme_relaxed.c, clt_scheme_coulomb_circular):
 *  - a sphere launched sliding on a plane (no spin) stays on the plane (no lift: the relaxation's
 *    s = 1 lifts it by about h μ ‖v_T‖ a step), its speed falls by exactly μ g h a step while it
 *    slides, and it rolls from the analytical step on at 5/7 of its launch speed in the launch
 *    direction (angular momentum about the contact point is conserved);
 *  - the same launch along a generator direction equals the polyhedral anitescu-hart step solved
 *    by Lemke (the (c_n, β, λ) LCP of SPEC.md §1 with m_C = 8): the two forms of s = 0 agree;
 *  - 50 spheres dropped into a box come to rest with penetration < 1 % of r, every solve reaching
 *    the De Saxcé residual's tolerance (1e-5 here: at 1e-6 one step of the 150 stalls at 1.05e-6 after
 *    2000 sweeps; Gauss–Seidel on Coulomb's law converges slowly in a resting frictional network);
 *  - bit-identical results for 1 and 2 OpenMP threads on a layer large enough for the parallel
 *    coloured sweeps;
 *  - the solvers that do not apply (APGD, BBPGD: s = 0 is not a convex QP) are refused by name. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/world.h"
#include "dynamics/world_internal.h"
#include "math/vec.h"
#include "steppers/relaxed.h"
#include "test_util.h"
#include "relaxed_util.h"

static const double G = 9.81, MU = 0.5, RADIUS = 0.1, H = 0.01;

static clt_world_def_t coulomb_def(clt_solver_kind_t solver, clt_friction_cone_t cone) {
  clt_world_def_t wd = relaxed_def(H, solver);
  wd.method.scheme = CLT_SCHEME_ANITESCU_HART;
  wd.method.friction_cone = cone;
  wd.method.friction_directions = 8;
  return wd;
}

typedef struct {
  double v[3], w[3], z;
} ball_state_t;

typedef struct {
  double lift;          /* max |z − r| over the run */
  double decel_err;     /* max over sliding steps of | |v_k−1| − |v_k| − μ g h | */
  int slide_steps;      /* steps whose friction impulse was at the cone's edge (speed not yet 5/7) */
  double roll_speed;    /* |v| at the end */
  double roll_dir_err;  /* angle between the final v and the launch direction, rad */
  double roll_err;      /* |v − ω × (−r e_z)| at the end: the contact point's slip */
  int unsolved;
  ball_state_t traj[40];
} slide_t;

/* A solid sphere (r = 0.1, ρ 1000) on the plane z = 0, launched at v0 in direction angle (rad) with
 * no spin, 40 steps. */
static slide_t launch(clt_world_def_t wd, double v0, double angle) {
  slide_t out;
  memset(&out, 0, sizeof out);
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, MU);
  add_halfspace(w, mat, 0, 0, 1, 0.0);
  clt_body_id_t id = add_sphere(w, mat, RADIUS, 0.0, 0.0, RADIUS);
  clt_body_state_t st;
  clt_body_get_state(w, id, &st);
  st.velocity[0] = v0 * cos(angle);
  st.velocity[1] = v0 * sin(angle);
  clt_body_set_state(w, id, &st);
  double prev = v0;
  for (int k = 0; k < 40; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.contacts > 0 && d.solver_status != CLT_SOLVE_SOLVED) out.unsolved++;
    clt_body_get_state(w, id, &st);
    ball_state_t *b = &out.traj[k];
    memcpy(b->v, st.velocity, sizeof b->v);
    clt_q_rotate(b->w, st.orientation, st.angular_velocity); /* body → world */
    b->z = st.position[2];
    out.lift = fmax(out.lift, fabs(st.position[2] - RADIUS));
    double speed = hypot(st.velocity[0], st.velocity[1]);
    if (speed > (5.0 / 7.0) * v0 * (1.0 + 1e-9)) {
      out.slide_steps++;
      out.decel_err = fmax(out.decel_err, fabs(prev - speed - MU * G * H));
    }
    prev = speed;
  }
  const ball_state_t *e = &out.traj[39];
  out.roll_speed = hypot(e->v[0], e->v[1]);
  out.roll_dir_err = fabs(atan2(e->v[1], e->v[0]) - angle);
  /* contact point velocity v + ω × (−r e_z) = (v_x − r ω_y, v_y + r ω_x) */
  out.roll_err = hypot(e->v[0] - RADIUS * e->w[1], e->v[1] + RADIUS * e->w[0]);
  clt_world_destroy(w);
  return out;
}

/* Coulomb's law on the launch: on the plane, μgh of speed lost a sliding step for the predicted
 * steps, then rolling at 5/7 v0 in the launch direction with no slip (to slip_bound). */
static void check_coulomb_launch(const slide_t *s, double v0, int expect_slide, double slip_bound) {
  CHECK(s->unsolved == 0);
  CHECK_LE(s->lift, 1e-9);
  CHECK(s->slide_steps == expect_slide);
  CHECK_LE(s->decel_err, 1e-9);
  CHECK_LE(fabs(s->roll_speed - 5.0 / 7.0 * v0), 1e-9);
  CHECK_LE(s->roll_dir_err, 1e-9);
  CHECK_LE(s->roll_err, slip_bound);
}

static void slide_to_roll(void) {
  const double v0 = 2.0, angle = 30.0 * RELAXED_PI / 180.0;
  slide_t c = launch(coulomb_def(CLT_SOLVER_BGS, CLT_CONE_CIRCULAR), v0, angle);
  clt_world_def_t rd = relaxed_def(H, CLT_SOLVER_BGS);
  rd.method.friction_cone = CLT_CONE_CIRCULAR;
  slide_t r = launch(rd, v0, angle);
  /* slip speed falls by μ g h (1 + m r²/I) = 3.5 μ g h a sliding step: it sticks in step ⌈v0 / that⌉ */
  int expect_slide = (int)ceil(v0 / (3.5 * MU * G * H)) - 1;
  printf("sphere launched at %.1f m/s, 30 deg, mu %.1f: anitescu-hart circular: lift %.3g m, slides %d steps "
         "(expected %d), |dv - mu g h| max %.3g, final speed %.12f (5/7 v0 %.12f), direction error %.3g rad, "
         "contact slip %.3g m/s, unsolved %d; relaxed circular: lift %.3g m, slides %d steps, final speed %.6f\n",
         v0, MU, c.lift, c.slide_steps, expect_slide, c.decel_err, c.roll_speed, 5.0 / 7.0 * v0, c.roll_dir_err,
         c.roll_err, c.unsolved, r.lift, r.slide_steps, r.roll_speed);
  check_coulomb_launch(&c, v0, expect_slide, 1e-9);
  /* the relaxation: the same launch leaves the plane (first step: w_N = μ ‖w_T‖ ≈ 1 m/s, 1 cm) */
  CHECK(r.lift > 1e-3);
  /* Coulomb's law by APGD and BBPGD (the fixed point on the De Saxcé shift, stage_solve_relaxed.c),
   * and by the default method (friction_cone auto, solver lemke: the same APGD fixed point) */
  const clt_solver_kind_t qp[3] = {CLT_SOLVER_APGD, CLT_SOLVER_BBPGD, CLT_SOLVER_LEMKE};
  for (int i = 0; i < 3; i++) {
    clt_world_def_t qd = coulomb_def(qp[i], i == 2 ? CLT_CONE_AUTO : CLT_CONE_CIRCULAR);
    qd.method.tolerance = 1e-12;
    slide_t a = launch(qd, v0, angle);
    printf("  %s%s: lift %.3g m, slides %d steps, |dv - mu g h| max %.3g, final speed %.12f, direction error %.3g "
           "rad, contact slip %.3g m/s, unsolved %d\n",
           clt_solver_kind_name(qp[i]), i == 2 ? " (default cone)" : "", a.lift, a.slide_steps, a.decel_err,
           a.roll_speed, a.roll_dir_err, a.roll_err, a.unsolved);
    check_coulomb_launch(&a, v0, expect_slide, 1e-8);
  }
}

/* Along a generator direction (0°) the circular and the polyhedral cone give the same friction
 * impulse; the polyhedral s = 0 step is the LCP of the row stages, solved by Lemke. */
static void against_lemke(void) {
  slide_t c = launch(coulomb_def(CLT_SOLVER_BGS, CLT_CONE_CIRCULAR), 2.0, 0.0);
  slide_t l = launch(coulomb_def(CLT_SOLVER_LEMKE, CLT_CONE_POLYHEDRAL), 2.0, 0.0);
  double dv = 0.0, dw = 0.0, dz = 0.0;
  for (int k = 0; k < 40; k++) {
    for (int i = 0; i < 3; i++) {
      dv = fmax(dv, fabs(c.traj[k].v[i] - l.traj[k].v[i]));
      dw = fmax(dw, fabs(c.traj[k].w[i] - l.traj[k].w[i]));
    }
    dz = fmax(dz, fabs(c.traj[k].z - l.traj[k].z));
  }
  printf("launch along a generator: circular (bgs) against polyhedral m_C = 8 (lemke), 40 steps: |dv| %.3g m/s, "
         "|dw| %.3g rad/s, |dz| %.3g m; slides %d / %d steps\n",
         dv, dw, dz, c.slide_steps, l.slide_steps);
  CHECK(c.unsolved == 0 && l.unsolved == 0);
  CHECK(c.slide_steps == l.slide_steps);
  CHECK_LE(dv, 1e-9);
  CHECK_LE(dw, 1e-8);
  CHECK_LE(dz, 1e-9);
}

static void pile_rests(void) {
  clt_world_def_t wd = coulomb_def(CLT_SOLVER_BGS, CLT_CONE_CIRCULAR);
  wd.method.tolerance = 1e-5;
  wd.method.max_iterations = 2000;
  clt_world_t *w = relaxed_pile_world(&wd);
  relaxed_pile_t r = relaxed_pile_run(w, true, "sweeps");
  printf("pile of 50 spheres (anitescu-hart circular, bgs, tolerance 1e-5): max penetration %.3g m, KE end/peak %.3g, "
         "sweeps %ld (max %d a step), unsolved steps %d\n",
         r.pen, r.ke / r.ke_peak, r.total, r.iters, r.unsolved);
  CHECK(r.unsolved == 0);
  CHECK_LE(r.pen, 0.01 * 0.05);
  CHECK_LE(r.ke, 1e-6 * r.ke_peak);
  clt_world_destroy(w);
}

static uint64_t layer_hash(int threads, int *contacts, int *sweeps) {
  clt_world_def_t wd = coulomb_def(CLT_SOLVER_BGS, CLT_CONE_CIRCULAR);
  wd.method.tolerance = 1e-4;
  wd.method.max_iterations = 300;
  wd.method.active_set_eps = 0.01;
  return relaxed_layer_hash(&wd, threads, 3, contacts, sweeps);
}

static void threads(void) {
  int c1 = 0, c2 = 0, s1 = 0, s2 = 0;
  uint64_t h1 = layer_hash(1, &c1, &s1), h2 = layer_hash(2, &c2, &s2);
  printf("layer of 1600 spheres, anitescu-hart circular, 3 steps (at least %d contacts, %d sweeps): state hash "
         "1 thread %016llx, 2 threads %016llx (%s)\n",
         c1, s1, (unsigned long long)h1, (unsigned long long)h2, h1 == h2 ? "identical" : "DIFFERENT");
  CHECK(h1 == h2);
  CHECK(c1 >= 4000 && c1 == c2 && s1 == s2 && s1 > 3);
}

static void refused(void) {
  const clt_solver_kind_t bad[] = {CLT_SOLVER_MPRGP, CLT_SOLVER_NEWTON};
  for (int i = 0; i < 2; i++) {
    clt_world_def_t wd = coulomb_def(bad[i], CLT_CONE_CIRCULAR);
    clt_world_t *w = NULL;
    char msg[256] = "";
    CHECK(clt_world_create(&wd, &w, msg, sizeof msg) != CLT_OK);
    CHECK(w == NULL);
    CHECK(strstr(msg, "method.solver") != NULL && strstr(msg, "anitescu-hart") != NULL);
    if (i == 0) printf("mprgp refused: %s\n", msg);
  }
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : "";
  if (!*only || !strcmp(only, "slide")) slide_to_roll();
  if (!*only || !strcmp(only, "lemke")) against_lemke();
  if (!*only || !strcmp(only, "pile")) pile_rests();
  if (!*only || !strcmp(only, "threads")) threads();
  if (!*only || !strcmp(only, "refused")) refused();
  return clt_test_finish();
}
