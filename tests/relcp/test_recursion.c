/* The ReLCP recursion (SPEC.md §6.2, §6.3; 002 §3.1, Cor. 19), overdamped law:
 *  - a small dense scene (27 ellipsoids of aspect 2.5 pushed together, time step large enough to
 *    move a body by half its minor radius): every accepted step has max true overlap ≤ ε_tol,
 *    the recursion augments on some steps, and `snsd` on the same scene overlaps beyond ε_tol and
 *    more than ReLCP;
 *  - the iteration cap: relcp_max_iterations = 1 rejects the first step that needs augmenting with
 *    CLT_ERR_SOLVER and a message, and the state is the one before the step;
 *  - "ellipsoids2" (two identical ellipsoids rotated 45°, offset, pushed past each other by unit
 *    forces; SPEC.md §8): at a small step the recursion never augments (Cor. 19: ReLCP = LCP-SNSD),
 *    at a large one it does and still keeps the overlap ≤ ε_tol;
 *  - multisphere:N builds constraints between the proxy spheres; the true overlap is measured;
 *  - the matrix-free path (125 bodies, several hundred constraints, APGD) keeps the same guarantee;
 *  - the same run twice gives a bit-identical state, and so does a run resumed from a checkpoint
 *    (the contact memory that warm-starts the next step is part of it). */
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

typedef struct opts_t {
  double h;
  clt_contact_model_t model;
  int cap;
  int multisphere;
  clt_solver_kind_t solver;
  double tolerance; /* 0: 1e-10 */
} opts_t;

static clt_world_t *base_world(const opts_t *o) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = o->h;
  memset(wd.gravity, 0, sizeof wd.gravity);
  wd.law = CLT_LAW_OVERDAMPED;
  wd.viscosity = 1.0;
  wd.method.contact_model = o->model;
  wd.method.overlap_tolerance = 1e-4;
  wd.method.active_set_eps = 1e-3;
  wd.method.relcp_max_iterations = o->cap > 0 ? o->cap : 50;
  wd.method.multisphere_count = o->multisphere > 0 ? o->multisphere : 3;
  wd.method.solver = o->solver;
  wd.method.tolerance = o->tolerance > 0.0 ? o->tolerance : 1e-10;
  wd.method.max_iterations = 100000;
  clt_world_t *w = NULL;
  char msg[256];
  CHECK(clt_world_create(&wd, &w, msg, sizeof msg) == CLT_OK);
  return w;
}

static void add(clt_world_t *w, const clt_shape_def_t *s, const double p[3], const double q[4], const double f[3]) {
  clt_body_def_t bd = clt_default_body_def();
  memcpy(bd.position, p, sizeof bd.position);
  memcpy(bd.orientation, q, sizeof bd.orientation);
  bd.shapes = s;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = id;
  memcpy(fd.force, f, sizeof fd.force);
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
}

static uint64_t rng_state;
static double rnd(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* side³ ellipsoids, random orientations, unit force towards the centre. */
static clt_world_t *lattice_scene(const opts_t *o, int side, double spacing) {
  clt_world_t *w = base_world(o);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_ELLIPSOID);
  s.semi_axes[0] = 0.5;
  s.semi_axes[1] = 0.2;
  s.semi_axes[2] = 0.2;
  rng_state = 12345;
  double c = 0.5 * (side - 1);
  for (int i = 0; i < side * side * side; i++) {
    double p[3] = {spacing * (i % side - c), spacing * ((i / side) % side - c), spacing * (i / (side * side) - c)};
    double q[4] = {rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5};
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) q[k] /= qn;
    double r = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    double f[3] = {0.0, 0.0, 0.0};
    if (r > 0.0)
      for (int k = 0; k < 3; k++) f[k] = -p[k] / r;
    add(w, &s, p, q, f);
  }
  return w;
}

static clt_world_t *dense_scene(const opts_t *o) { return lattice_scene(o, 3, 1.1); }

/* ellipsoids2: semi-axes (1, 0.25, 0.25), both rotated 45° about z, centres 1 apart in x and 2.5
 * apart in y, unit forces pushing them past each other along y. */
static clt_world_t *ellipsoids2(const opts_t *o) {
  clt_world_t *w = base_world(o);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_ELLIPSOID);
  s.semi_axes[0] = 1.0;
  s.semi_axes[1] = 0.25;
  s.semi_axes[2] = 0.25;
  double c = cos(0.5 * 0.25 * 3.14159265358979323846), sn = sin(0.5 * 0.25 * 3.14159265358979323846);
  double q[4] = {c, 0.0, 0.0, sn};
  double pu[3] = {0.5, 1.25, 0.0}, pl[3] = {-0.5, -1.25, 0.0};
  double fu[3] = {0.0, -1.0, 0.0}, fl[3] = {0.0, 1.0, 0.0};
  add(w, &s, pu, q, fu);
  add(w, &s, pl, q, fl);
  return w;
}

typedef struct stats_t {
  double max_overlap;
  int augmented_steps, max_passes, max_constraints, steps_with_contact;
  int failures;
  double x[6];
  uint64_t hash;
} stats_t;

static stats_t run(clt_world_t *w, int steps) {
  stats_t s;
  memset(&s, 0, sizeof s);
  for (int n = 0; n < steps; n++) {
    if (clt_world_step(w) != CLT_OK) {
      s.failures++;
      printf("step %d failed: %s\n", n + 1, clt_world_error(w));
      break;
    }
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    s.max_overlap = fmax(s.max_overlap, d.max_overlap);
    if (d.constraints > d.contacts) s.augmented_steps++;
    if (d.relcp_iterations > s.max_passes) s.max_passes = d.relcp_iterations;
    if (d.constraints > s.max_constraints) s.max_constraints = d.constraints;
    if (d.contacts > 0) s.steps_with_contact++;
  }
  for (int i = 0; i < 2 && i < clt_world_body_count(w); i++) {
    clt_body_state_t st;
    clt_body_get_state(w, clt_world_body_at(w, i), &st);
    memcpy(s.x + 3 * i, st.position, sizeof st.position);
  }
  s.hash = clt_world_state_hash(w);
  return s;
}

static void dense(void) {
  opts_t o = {0.5, CLT_CONTACT_MODEL_RELCP, 0, 0, CLT_SOLVER_LEMKE, 0.0};
  clt_world_t *w = dense_scene(&o);
  stats_t r = run(w, 30);
  clt_world_destroy(w);
  printf("dense relcp: max overlap %.3g, augmented steps %d, max passes %d, max constraints %d\n", r.max_overlap,
         r.augmented_steps, r.max_passes, r.max_constraints);
  CHECK(r.failures == 0);
  CHECK_LE(r.max_overlap, 1e-4);
  CHECK(r.augmented_steps >= 3);
  CHECK(r.max_passes >= 2);

  o.model = CLT_CONTACT_MODEL_SNSD;
  w = dense_scene(&o);
  stats_t s = run(w, 30);
  clt_world_destroy(w);
  printf("dense snsd: max overlap %.3g\n", s.max_overlap);
  CHECK(s.failures == 0);
  CHECK(s.max_overlap > 10.0 * 1e-4);
  CHECK(s.max_overlap > 10.0 * r.max_overlap);
  CHECK(s.augmented_steps == 0 && s.max_passes == 1);

  /* matrix-free APGD on the same scene: same overlap guarantee */
  o.model = CLT_CONTACT_MODEL_RELCP;
  o.solver = CLT_SOLVER_APGD;
  w = dense_scene(&o);
  stats_t a = run(w, 20);
  clt_world_destroy(w);
  printf("dense relcp apgd: max overlap %.3g, augmented steps %d\n", a.max_overlap, a.augmented_steps);
  CHECK(a.failures == 0);
  CHECK_LE(a.max_overlap, 1e-4);

}

/* 125 bodies: several hundred constraints, past the dense limit: the matrix-free operator with
 * APGD. (BGS also runs matrix-free, through the operator's diagonal and row products, but projected
 * Gauss–Seidel converges slowly on these PSD problems: 31 s against APGD's 0.6 s on this lattice at
 * spacing 1.1, h = 0.5, 24 steps.) */
static void matrix_free(void) {
  opts_t o = {1.5, CLT_CONTACT_MODEL_RELCP, 0, 0, CLT_SOLVER_APGD, 1e-7};
  clt_world_t *w = lattice_scene(&o, 5, 1.02);
  stats_t r = run(w, 5);
  clt_world_destroy(w);
  printf("125 ellipsoids apgd: max constraints %d, augmented steps %d, max overlap %.3g\n", r.max_constraints,
         r.augmented_steps, r.max_overlap);
  CHECK(r.failures == 0);
  CHECK(r.max_constraints > 256);
  CHECK(r.augmented_steps >= 1);
  CHECK_LE(r.max_overlap, 1e-4);
}

/* A checkpoint mid-run (positions and the contact memory that warm-starts APGD) continues
 * bit-identically in a fresh world built from the same description. */
static void checkpoint(void) {
  opts_t o = {0.5, CLT_CONTACT_MODEL_RELCP, 0, 0, CLT_SOLVER_APGD, 1e-8};
  clt_world_t *w = dense_scene(&o);
  run(w, 8);
  size_t size = clt_world_state_size(w);
  unsigned char *buf = malloc(size);
  CHECK(clt_world_save_state(w, buf, size) == CLT_OK);
  stats_t straight = run(w, 6);
  clt_world_destroy(w);
  w = dense_scene(&o);
  size_t fresh = clt_world_state_size(w); /* no contact memory yet */
  CHECK(clt_world_load_state(w, buf, size) == CLT_OK);
  stats_t resumed = run(w, 6);
  clt_world_destroy(w);
  free(buf);
  printf("checkpoint: %zu bytes, hashes %016llx %016llx\n", size, (unsigned long long)straight.hash,
         (unsigned long long)resumed.hash);
  CHECK(size > fresh); /* the contact memory is in it */
  CHECK(straight.hash == resumed.hash);
}

static void cap(void) {
  opts_t o = {0.5, CLT_CONTACT_MODEL_RELCP, 1, 0, CLT_SOLVER_LEMKE, 0.0};
  clt_world_t *w = dense_scene(&o);
  int rejected = 0;
  for (int n = 0; n < 30 && !rejected; n++) {
    size_t size = clt_world_state_size(w);
    unsigned char *before = malloc(size), *after = malloc(size);
    CHECK(clt_world_save_state(w, before, size) == CLT_OK);
    double t = clt_world_time(w);
    clt_status_t st = clt_world_step(w);
    if (st != CLT_OK) {
      rejected = 1;
      printf("rejected at step %d: %s\n", n + 1, clt_world_error(w));
      CHECK(st == CLT_ERR_SOLVER);
      CHECK(strstr(clt_world_error(w), "relcp_max_iterations") != NULL);
      CHECK(clt_world_time(w) == t);
      CHECK(clt_world_save_state(w, after, size) == CLT_OK);
      CHECK(memcmp(before, after, size) == 0);
    }
    free(before);
    free(after);
  }
  CHECK(rejected == 1);
  clt_world_destroy(w);
}

static void two_ellipsoids(void) {
  /* unit forces, drag ~ 5: the bodies cross 2.5 in about 15 time units */
  opts_t o = {0.01, CLT_CONTACT_MODEL_RELCP, 0, 0, CLT_SOLVER_LEMKE, 0.0};
  clt_world_t *w = ellipsoids2(&o);
  stats_t small = run(w, 4000);
  clt_world_destroy(w);
  printf("ellipsoids2 h=%.3g: contact steps %d, augmented %d, max overlap %.3g, final x %.4f %.4f / %.4f %.4f\n", o.h,
         small.steps_with_contact, small.augmented_steps, small.max_overlap, small.x[0], small.x[1], small.x[3],
         small.x[4]);
  CHECK(small.failures == 0);
  CHECK(small.steps_with_contact > 100);
  CHECK(small.augmented_steps == 0);
  CHECK(small.max_passes == 1);
  CHECK_LE(small.max_overlap, 1e-4);

  o.h = 0.5;
  w = ellipsoids2(&o);
  stats_t large = run(w, 30);
  clt_world_destroy(w);
  printf("ellipsoids2 h=%.3g: contact steps %d, augmented %d, max passes %d, max overlap %.3g\n", o.h,
         large.steps_with_contact, large.augmented_steps, large.max_passes, large.max_overlap);
  CHECK(large.failures == 0);
  CHECK(large.augmented_steps >= 1);
  CHECK_LE(large.max_overlap, 1e-4);
  /* determinism: the same run again, bit-identical state */
  w = ellipsoids2(&o);
  stats_t again = run(w, 30);
  clt_world_destroy(w);
  CHECK(again.hash == large.hash);

  o.model = CLT_CONTACT_MODEL_SNSD;
  w = ellipsoids2(&o);
  stats_t snsd = run(w, 30);
  clt_world_destroy(w);
  printf("ellipsoids2 snsd h=%.3g: max overlap %.3g\n", o.h, snsd.max_overlap);
  CHECK(snsd.max_overlap > large.max_overlap);
  CHECK(snsd.max_overlap > 1e-4);

  o.model = CLT_CONTACT_MODEL_MULTISPHERE;
  o.multisphere = 7;
  o.h = 0.05;
  w = ellipsoids2(&o);
  stats_t ms = run(w, 300);
  clt_world_destroy(w);
  printf("ellipsoids2 multisphere:7 h=%.3g: max constraints %d, true max overlap %.3g, final x %.4f %.4f\n", o.h,
         ms.max_constraints, ms.max_overlap, ms.x[0], ms.x[1]);
  CHECK(ms.failures == 0);
  CHECK(ms.max_constraints >= 1);
  CHECK(ms.steps_with_contact > 10);
  CHECK(isfinite(ms.max_overlap));
}

int main(void) {
  dense();
  matrix_free();
  checkpoint();
  cap();
  two_ellipsoids();
  return clt_test_finish();
}
