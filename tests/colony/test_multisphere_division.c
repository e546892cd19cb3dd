/* multisphere:N in a dividing colony keeps the true capsule overlap within what its proxy allows
 * (SPEC.md §6.3; 002 §5.4 compares LCP-MS with ReLCP on this colony).
 *
 * The proxy of a capsule of radius r and length L is N spheres of radius r spaced s = L/(N − 1)
 * along the core (src/collision/multisphere.h). In a plane, of two touching capsules at least one
 * touches with a cap, and the deepest a cap sphere can sink into the other capsule without
 * overlapping its proxy is the valley between two neighbouring spheres: centre 2r from both, so
 * the true overlap is at most
 *     δ(s) = 2r − √(4r² − s²/4),        s ≤ division_length/(N − 1)
 * (cells never reach the division length between steps): δ = 0.0670 for N = 5 and 0.0286 for
 * N = 7 with the bench colony's d = 0.5, L_div = 2 (docs/design/colony.md "Multisphere overlaps").
 *
 * The regression: a division makes each daughter's outer tip reach d/6 beyond the mother's
 * (colony.h), and the push that removes that overlap in one step can move neighbours by more than
 * the active-set distance ε̂; with one candidate set taken at q (Φ ≤ ε̂) their sub-sphere pairs had
 * no constraint, and the bench colony's true overlaps reached 0.09–0.5 (0.5 = d: cores crossing).
 * The fix completes the candidate set with the proxy pairs that overlap at the trial configuration
 * (src/steppers/stage_relcp.c, complete_proxy_candidates).
 * Checked here with the bench's h = 0.01, ε̂ = 0.025, ε_tol = 5e-4 (APGD to 1e-8):
 *  1. a few cells: a cell dividing against a wall pushes a neighbour B into a cell C that starts
 *     0.04 > ε̂ away from it; every overlap must stay within δ(5);
 *  2. a colony grown from one cell to 64 cells with multisphere:7 (the model of 002 Fig. 5a): every
 *     step, division steps included, within δ(7). */
#include "colony_test.h"
#include "test_util.h"

#define D 0.5
#define L_DIV 2.0
#define SLACK 2e-3 /* linearization of the frozen sub-sphere normals over one step */

static double proxy_bound(int n) {
  double r = 0.5 * D, s = L_DIV / (n - 1);
  return 2.0 * r - sqrt(4.0 * r * r - 0.25 * s * s);
}

static clt_world_t *make_world(int spheres) {
  clt_world_def_t wd = clt_default_world_def();
  wd.gravity[2] = 0.0;
  wd.time_step = 0.01;
  wd.planar = true;
  wd.law = CLT_LAW_OVERDAMPED;
  wd.viscosity = 1.0;
  wd.method.contact_model = CLT_CONTACT_MODEL_MULTISPHERE;
  wd.method.multisphere_count = spheres;
  wd.method.active_set_eps = 0.025;
  wd.method.overlap_tolerance = 5e-4;
  wd.method.solver = CLT_SOLVER_APGD;
  wd.method.tolerance = 1e-8;
  wd.method.max_iterations = 100000;
  clt_world_t *w = NULL;
  char msg[256];
  if (clt_world_create(&wd, &w, msg, sizeof msg) != CLT_OK) {
    fprintf(stderr, "world: %s\n", msg);
    exit(1);
  }
  return w;
}

static clt_colony_def_t colony_def(double initial_length, double reorientation, uint64_t seed) {
  clt_colony_def_t cd = clt_default_colony_def();
  cd.diameter = D;
  cd.division_length = L_DIV;
  cd.growth_time = 1.0;
  cd.initial_length = initial_length;
  cd.max_reorientation = reorientation;
  cd.seed = seed;
  return cd;
}

/* A dynamic capsule (not a colony cell) centred at (x, 0, 0) with its axis along y. */
static void add_cross_capsule(clt_world_t *w, double x, double length) {
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  s.radius = 0.5 * D;
  s.length = length;
  clt_body_def_t b = clt_default_body_def();
  b.position[0] = x;
  b.orientation[0] = sqrt(0.5); /* a quarter turn about x: local z → world y */
  b.orientation[1] = -sqrt(0.5);
  b.shapes = &s;
  b.shape_count = 1;
  CHECK(clt_world_add_body(w, &b, NULL) == CLT_OK);
}

static void add_wall(clt_world_t *w, double x) { /* static half-space x ≤ x_wall, normal +x */
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  s.point[0] = x;
  s.normal[0] = 1.0;
  clt_body_def_t b = clt_default_body_def();
  b.type = CLT_BODY_STATIC;
  b.shapes = &s;
  b.shape_count = 1;
  CHECK(clt_world_add_body(w, &b, NULL) == CLT_OK);
}

/* 1. Wall | A (divides in the first step) | B | 0.04 | C, along x; B and C lie across. */
static void few_cells(void) {
  const int n = 5;
  clt_world_t *w = make_world(n);
  double l0 = 1.99; /* e^{0.01}·1.99 = 2.01 ≥ L_div: A divides in step 1 */
  clt_colony_def_t cd = colony_def(l0, 0.0, 1);
  clt_colony_t *c = NULL;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_OK);
  if (!c) return;
  double tip = 0.5 * l0 + 0.5 * D; /* A's tips at ±tip */
  add_wall(w, -tip - 0.005);
  double xb = tip + 0.01 + 0.5 * D; /* B 0.01 from A's tip */
  add_cross_capsule(w, xb, 1.0);
  add_cross_capsule(w, xb + D + 0.04, 1.0); /* C 0.04 from B: outside ε̂ = 0.025 */
  double worst = 0.0;
  int steps = 0;
  for (; steps < 10; steps++) {
    clt_status_t st = clt_colony_step(c);
    CHECK(st == CLT_OK);
    if (st != CLT_OK) {
      fprintf(stderr, "step %d: %s\n", steps, clt_world_error(w));
      break;
    }
    clt_diagnostics_t dg;
    CHECK(clt_world_get_diagnostics(w, &dg) == CLT_OK);
    if (steps == 0) printf("few cells, step 1: %d cells, %d constraints (%d at q), %d LCP solves, max true overlap %.4f\n",
                           clt_colony_cell_count(c), dg.constraints, dg.contacts, dg.relcp_iterations, dg.max_overlap);
    worst = fmax(worst, dg.max_overlap);
  }
  /* B was pushed (it started 0.01 from A; the daughter's tip reached 0.083 into it) */
  clt_body_state_t sb;
  CHECK(clt_body_get_state(w, clt_world_body_at(w, 2), &sb) == CLT_OK);
  printf("few cells: %d steps, B moved %.4f, max true overlap %.4f (bound %.4f)\n", steps, sb.position[0] - xb, worst,
         proxy_bound(n));
  CHECK(clt_colony_cell_count(c) == 2);
  CHECK(sb.position[0] - xb > 0.04); /* B had to move into C's range: the case the test is about */
  CHECK_LE(worst, proxy_bound(n) + SLACK);
  clt_colony_destroy(c);
  clt_world_destroy(w);
}

/* 2. One cell to 64 with multisphere:7. */
static void colony(void) {
  const int n = 7;
  clt_world_t *w = make_world(n);
  clt_colony_def_t cd = colony_def(-1.0, 5.0 * 3.14159265358979323846 / 180.0, 1);
  clt_colony_t *c = NULL;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_OK);
  if (!c) return;
  double worst = 0.0;
  int steps = 0, worst_step = 0;
  while (clt_colony_cell_count(c) < 64 && steps < 1000) {
    clt_status_t st = clt_colony_step(c);
    CHECK(st == CLT_OK);
    if (st != CLT_OK) {
      fprintf(stderr, "step %d: %s\n", steps, clt_world_error(w));
      break;
    }
    steps++;
    clt_diagnostics_t dg;
    CHECK(clt_world_get_diagnostics(w, &dg) == CLT_OK);
    if (dg.max_overlap > worst) {
      worst = dg.max_overlap;
      worst_step = steps;
    }
  }
  printf("colony multisphere:%d: %d cells after %d steps, max true overlap %.4f at step %d (bound %.4f)\n", n,
         clt_colony_cell_count(c), steps, worst, worst_step, proxy_bound(n));
  CHECK(clt_colony_cell_count(c) == 64);
  CHECK_LE(worst, proxy_bound(n) + SLACK);
  clt_colony_destroy(c);
  clt_world_destroy(w);
}

int main(void) {
  few_cells();
  colony();
  return clt_test_finish();
}
