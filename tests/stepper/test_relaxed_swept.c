/* The relaxed scheme's swept active set (stage_solve_relaxed.c, clt_stage_relaxed_collide) must
 * cover what contact does within a step: a column of 12 spheres, 2 cm apart, falls past a wall
 * 2 cm away and lands at 7.6 m/s on the floor. The impact stops the chain of grains within one
 * step, so every grain pair whose gap the changed velocities close must be in the step's QP: the
 * penetration stays below 1 % of the radius. And while the column falls as one, nothing can touch:
 * the wall's gap does not close (the grains move along it) and the grains move together, so the
 * active set holds no contact at all. (The earlier spreading gave every grain within h|u| of the
 * wall an extra h|u| and passed it on through the column: 10⁶ speculative contacts in the
 * falling 10⁵ pile; a variant that took each pair's distance off the extras it passed on let
 * this column penetrate 45 mm. The velocity boxes with their opening times: 0.16 mm, and none
 * while falling.) A second column, 40 spheres landing at 14 m/s (h|u| = 7 gaps a step), checks
 * that the change travels as far up the column as the gaps close. The 12-sphere column also lands
 * frictionless, with the block Gauss–Seidel and with APGD (the circular cone at μ = 0), and with
 * every other grain 1 cm off the axis (oblique contacts that slide). In every landing a contact
 * beyond ε̂ whose pair did not bear the step before carries no tangential impulse (new gapped
 * contacts enter frictionless, stage_collide.c: without that rule the zigzag column has 54 such
 * contacts with friction, and the relaxed cone pushes separated sliding pairs apart). */
#include "relaxed_util.h"

/* A column of n spheres 2 cm apart, 2 cm from a wall, released at rest with its lowest centre at
 * z0: free fall for fall_steps (nothing may touch), then land steps (penetration < 1 % r, every
 * grain on the one below). */
static void column(int n, double z0, int fall_steps, int land_steps, double mu, clt_solver_kind_t solver,
                   double zigzag) {
  clt_world_def_t wd = relaxed_def(0.01, solver);
  wd.method.tolerance = 1.5e-3;
  wd.method.max_iterations = 200;
  wd.method.friction_cone = CLT_CONE_CIRCULAR;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, mu);
  add_halfspace(w, mat, 0.0, 0.0, 1.0, 0.0); /* floor z = 0 */
  add_halfspace(w, mat, 1.0, 0.0, 0.0, 0.5); /* wall x = −0.5 */
  const double r = 0.05, wall_gap = 0.02, spacing = 0.12;
  for (int k = 0; k < n; k++)
    add_sphere(w, mat, r, -0.5 + r + wall_gap + (k % 2 ? zigzag : 0.0), 0.0, z0 + spacing * k);

  /* bodies 0 and 1 are the floor and the wall */
  int grain_pairs = 0, wall_contacts = 0;
  for (int step = 0; step < fall_steps; step++) {
    CHECK(clt_world_step(w) == CLT_OK);
    for (int i = 0; i < clt_world_contact_count(w); i++) {
      clt_contact_info_t c;
      CHECK(clt_world_get_contact(w, i, &c) == CLT_OK);
      if (c.body_a >= 2 && c.body_b >= 2) grain_pairs++;
      else wall_contacts++;
    }
  }
  double v = 9.81 * 0.01 * fall_steps;
  printf("%d spheres, while falling (%d steps, to %.2f m/s): %d grain-grain contacts, %d with the floor or wall\n", n,
         fall_steps, v, grain_pairs, wall_contacts);
  CHECK(wall_contacts == 0);
  CHECK(grain_pairs == 0);

  double pen_max = 0.0;
  int contacts_max = 0;
  /* New gapped contacts enter frictionless (stage_collide.c): a contact beyond ε̂ whose pair did
   * not bear last step carries no tangential impulse; one that bore may. */
  static bool bore[64][64];
  memset(bore, 0, sizeof bore);
  int gapped_new = 0, gapped_new_tangential = 0, tangential = 0;
  const double eps = wd.method.active_set_eps;
  for (int step = 0; step < land_steps; step++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_diagnostics_t d;
    CHECK(clt_world_get_diagnostics(w, &d) == CLT_OK);
    pen_max = fmax(pen_max, d.penetration);
    if (d.contacts > contacts_max) contacts_max = d.contacts;
    static bool now[64][64];
    memset(now, 0, sizeof now);
    for (int i = 0; i < clt_world_contact_count(w); i++) {
      clt_contact_info_t c;
      CHECK(clt_world_get_contact(w, i, &c) == CLT_OK);
      if (c.body_a >= 64 || c.body_b >= 64) continue;
      double pn = c.impulse[0] * c.normal[0] + c.impulse[1] * c.normal[1] + c.impulse[2] * c.normal[2], t[3];
      for (int k = 0; k < 3; k++) t[k] = c.impulse[k] - pn * c.normal[k];
      bool slips = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]) > 1e-12 * (1.0 + fabs(pn));
      tangential += slips;
      if (c.distance > eps && !bore[c.body_a][c.body_b]) {
        gapped_new++;
        gapped_new_tangential += slips;
      }
      if (c.normal_impulse > 0.0) now[c.body_a][c.body_b] = true;
    }
    memcpy(bore, now, sizeof bore);
  }
  printf("%d spheres%s, mu %.1f, %s, landing (%d steps): max penetration %.3g m, max contacts %d; contacts beyond "
         "eps new to bearing: %d (with a tangential impulse: %d); all contacts with one: %d\n",
         n, zigzag > 0.0 ? " (zigzag)" : "", mu, solver == CLT_SOLVER_APGD ? "APGD" : "BGS", land_steps, pen_max,
         contacts_max, gapped_new, gapped_new_tangential, tangential);
  CHECK(gapped_new > 0);
  CHECK(gapped_new_tangential == 0);
  if (zigzag > 0.0 && mu > 0.0) CHECK(tangential > 0); /* friction acts once a contact bears */
  CHECK_LE(pen_max, 0.01 * r);
  CHECK(contacts_max >= n - 1); /* the column lands as a stack: every grain on the one below */
  clt_world_destroy(w);
}

/* One step of a row of n spheres of radius 0.05 m along x (centres x[k]), out of gravity and
 * without friction, the first pushed at v0: the velocities after it (v, n) and the diagnostics. */
static void push_row(int n, const double *x, double v0, double *v, clt_diagnostics_t *d) {
  clt_world_def_t wd = relaxed_def(0.01, CLT_SOLVER_BGS);
  wd.gravity[2] = 0.0;
  wd.method.tolerance = 1e-10;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  int mat = add_material(w, 0.0);
  clt_body_id_t id[16];
  CHECK(n <= 16);
  for (int k = 0; k < n && k < 16; k++) id[k] = add_sphere(w, mat, 0.05, x[k], 0.0, 0.0);
  clt_body_state_t s;
  CHECK(clt_body_get_state(w, id[0], &s) == CLT_OK);
  s.velocity[0] = v0;
  CHECK(clt_body_set_state(w, id[0], &s) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_OK);
  CHECK(clt_world_get_diagnostics(w, d) == CLT_OK);
  for (int k = 0; k < n && k < 16; k++) {
    CHECK(clt_body_get_state(w, id[k], &s) == CLT_OK);
    v[k] = s.velocity[0];
  }
  clt_world_destroy(w);
}

/* A push through grains that already touch: sphere A at 10 m/s touches B, and B is 2 cm from C,
 * all at rest and out of gravity. Touching pairs do not pass their velocity boxes on (that made
 * every landed grain of the 10⁵ pile share the landing velocities), so the first solve has the
 * contact A–B only; it moves B 5 cm, through C. The test after the solve (stage "active set test", relaxed.h)
 * finds B outside its box, and the second solve has B–C: nothing penetrates, momentum is kept, and
 * the step reports 2 solves. Without friction and restitution B closes the gap exactly within the
 * step (Φ/h + v_B − v_C = 0: v_B − v_C = 2 m/s) and A moves with B: v = (4, 4, 2) m/s. */
static void push_through_touching(void) {
  const double x[3] = {0.0, 0.1, 0.22}; /* A; B touching A; C 2 cm from B */
  double v[3];
  clt_diagnostics_t d;
  push_row(3, x, 10.0, v, &d);
  printf("push through touching grains: %d solves, %d contacts, penetration %.3g m, v = %.4f %.4f %.4f m/s\n",
         d.solves, d.contacts, d.penetration, v[0], v[1], v[2]);
  CHECK(d.solves == 2);
  CHECK(d.contacts == 2);
  CHECK_LE(d.penetration, 1e-6);
  CHECK_NEAR(v[0] + v[1] + v[2], 10.0, 1e-9); /* equal masses: the momentum, divided by m */
  CHECK_NEAR(v[0], 4.0, 1e-6);
  CHECK_NEAR(v[1], 4.0, 1e-6);
  CHECK_NEAR(v[2], 2.0, 1e-6);
}

/* A push along a chain of touching pairs with 2 cm gaps between them (A–B, C–D, …, 12 spheres), A
 * at 60 m/s: the first solve has A–B only and moves B 30 cm. The later solves spread what they
 * found across the gaps again (link_time), so the whole chain is in the set within the solves a
 * step allows: nothing penetrates, momentum is kept, no body is left outside its box. (Keeping
 * the boxes of the solve before without spreading them again lets such a change travel one gap a
 * solve: the 40-sphere column above then penetrated 72.5 mm.) */
static void push_along_gapped_chain(void) {
  enum { n = 12 };
  double x[n], v[n], p = 0.0;
  x[0] = 0.0;
  for (int k = 1; k < n; k++) x[k] = x[k - 1] + 0.1 + (k % 2 == 0 ? 0.02 : 0.0); /* B touches A, C is 2 cm from B, … */
  clt_diagnostics_t d;
  push_row(n, x, 60.0, v, &d);
  for (int k = 0; k < n; k++) p += v[k];
  printf("push along a gapped chain: %d solves, %d contacts, %d bodies outside their boxes, penetration %.3g m\n",
         d.solves, d.contacts, d.set_misses, d.penetration);
  CHECK(d.solves >= 2 && d.solves <= 4);
  CHECK(d.set_misses == 0);
  CHECK_LE(d.penetration, 1e-6);
  CHECK_NEAR(p, 60.0, 1e-8);
}

/* A chain of 12 spheres 5 mm apart, none touching, the first at 60 m/s. The boxes spread one hop
 * a solve (spread_boxes), so each later solve takes the push on by a grain or two: the step needs 5
 * solves, more than the 4 allowed before. With the 8 allowed now nothing is left outside its box
 * and nothing penetrates; with 4, one sphere is left outside its box and penetrates 24.5 mm (the
 * 10⁵ pile at landing speed: 16 mm, docs/design/granular.md "The swept active set"). */
static void push_along_close_chain(void) {
  enum { n = 12 };
  double x[n], v[n], p = 0.0;
  x[0] = 0.0;
  for (int k = 1; k < n; k++) x[k] = x[k - 1] + 0.1 + 0.005;
  clt_diagnostics_t d;
  push_row(n, x, 60.0, v, &d);
  for (int k = 0; k < n; k++) p += v[k];
  printf("push along a chain 5 mm apart: %d solves, %d contacts, %d bodies outside their boxes, penetration %.3g m\n",
         d.solves, d.contacts, d.set_misses, d.penetration);
  CHECK(d.solves > 4 && d.solves <= 8);
  CHECK(d.set_misses == 0);
  CHECK_LE(d.penetration, 1e-6);
  CHECK_NEAR(p, 60.0, 1e-8);
}

int main(void) {
  push_through_touching();
  push_along_gapped_chain();
  push_along_close_chain();
  /* free fall to t = 0.5 s (h·u = 0.049 m, more than the gaps), lands at 7.6 m/s near t = 0.78 s */
  column(12, 3.0, 50, 100, 0.5, CLT_SOLVER_BGS, 0.0);
  /* from 10 m: 14 m/s at the floor, h|u| = 0.14 m = 7 gaps a step */
  column(40, 10.0, 100, 150, 0.5, CLT_SOLVER_BGS, 0.0);
  /* every other grain 1 cm off the axis: oblique contacts, which slide */
  column(12, 3.0, 50, 100, 0.5, CLT_SOLVER_BGS, 0.01);
  column(12, 3.0, 50, 100, 0.5, CLT_SOLVER_APGD, 0.01);
  /* Frictionless, both solvers: the contacts of the aligned column have no tangential part, where
   * the circular cone's projection once took any P_N, negative too, as inside the cone for μ = 0
   * (0 ≤ 0 · P_N): the solve pulled the column down at up to 116 m/s, penetration 0.1 m. */
  column(12, 3.0, 50, 100, 0.0, CLT_SOLVER_BGS, 0.0);
  column(12, 3.0, 50, 100, 0.0, CLT_SOLVER_APGD, 0.0);
  return clt_test_finish();
}
