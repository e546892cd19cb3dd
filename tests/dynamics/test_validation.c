/* Errors as data (STYLE.md): every invalid field → CLT_ERR_INVALID_ARGUMENT with a message naming
 * it; stale handles; non-finite states → CLT_ERR_DIVERGED with the state restored; joints and
 * implicit springs accepted, unknown treatments refused; a world with joints steps; two worlds are
 * independent. */
#include <string.h>

#include "clatter/world.h"
#include "plant_state.h"
#include "test_util.h"

static int contains(const char *text, const char *part) {
  if (!strstr(text, part)) {
    fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", text, part);
    return 0;
  }
  return 1;
}

static clt_world_t *world(int dim) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  if (dim == 2) {
    wd.gravity[2] = 0.0;
    wd.gravity[1] = -9.81;
  }
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  return w;
}

static void expect_body_error(clt_world_t *w, const clt_body_def_t *bd, clt_status_t want, const char *part) {
  clt_body_id_t id;
  int before = clt_world_body_count(w);
  CHECK(clt_world_add_body(w, bd, &id) == want);
  CHECK(contains(clt_world_error(w), part));
  CHECK(clt_body_id_is_null(id));
  CHECK(clt_world_body_count(w) == before);
}

static void world_errors(void) {
  clt_world_def_t wd = clt_default_world_def();
  clt_world_t *w = (clt_world_t *)1;
  char msg[256];
  wd.dimension = 4;
  CHECK(clt_world_create(&wd, &w, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(w == NULL);
  CHECK(contains(msg, "dimension must be 2 or 3 (got 4)"));
  wd = clt_default_world_def();
  wd.time_step = -1e-3;
  CHECK(clt_world_create(&wd, &w, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(msg, "time_step must be > 0"));
  wd = clt_default_world_def();
  wd.gravity[1] = NAN;
  CHECK(clt_world_create(&wd, &w, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(msg, "gravity must be finite"));
  wd = clt_default_world_def();
  wd.method.friction_directions = 5;
  CHECK(clt_world_create(&wd, &w, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(msg, "method.friction_directions"));
  wd = clt_default_world_def();
  wd.method.gamma = 1.5;
  CHECK(clt_world_create(&wd, &w, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(msg, "method.gamma"));
  wd = clt_default_world_def();
  wd.method.friction_cone = (clt_friction_cone_t)7;
  CHECK(clt_world_create(&wd, &w, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(msg, "method.friction_cone"));
}

static void body_errors(void) {
  clt_world_t *w = world(3);
  clt_body_def_t bd = clt_default_body_def();
  bd.name = "racket";
  bd.mass = -1.0;
  expect_body_error(w, &bd, CLT_ERR_INVALID_ARGUMENT, "body 'racket': mass must be > 0 and finite (got -1)");
  bd.mass = NAN;
  expect_body_error(w, &bd, CLT_ERR_INVALID_ARGUMENT, "body 'racket': mass must be > 0 and finite (got nan)");
  bd.mass = 1.0;
  bd.inertia[0] = bd.inertia[1] = 1.0;
  bd.inertia[2] = 0.0;
  expect_body_error(w, &bd, CLT_ERR_INVALID_ARGUMENT, "body 'racket': inertia[2] must be > 0");
  bd.inertia[2] = 1.0;
  bd.position[1] = INFINITY;
  expect_body_error(w, &bd, CLT_ERR_INVALID_ARGUMENT, "body 'racket': position must be finite");
  bd.position[1] = 0.0;
  bd.angular_velocity[0] = NAN;
  expect_body_error(w, &bd, CLT_ERR_INVALID_ARGUMENT, "angular_velocity must be finite");
  bd.angular_velocity[0] = 0.0;
  bd.orientation[0] = 0.0;
  expect_body_error(w, &bd, CLT_ERR_INVALID_ARGUMENT, "orientation must be a non-zero quaternion");
  bd.orientation[0] = 1.0;

  /* shapes */
  clt_body_def_t sb = clt_default_body_def();
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_SPHERE);
  s.radius = -0.5;
  sb.shapes = &s;
  sb.shape_count = 1;
  sb.name = "ball";
  expect_body_error(w, &sb, CLT_ERR_INVALID_ARGUMENT, "body 'ball': shapes[0] (sphere): radius must be > 0 and finite (got -0.5)");
  s = clt_default_shape_def(CLT_SHAPE_DISK);
  expect_body_error(w, &sb, CLT_ERR_INVALID_ARGUMENT, "shapes[0] (disk) is a 2D shape, but the world is 3D");
  s = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  expect_body_error(w, &sb, CLT_ERR_INVALID_ARGUMENT, "only static or kinematic bodies may carry it");
  s = clt_default_shape_def(CLT_SHAPE_BOX);
  s.half_extents[1] = NAN;
  expect_body_error(w, &sb, CLT_ERR_INVALID_ARGUMENT, "every numeric field must be finite");
  s = clt_default_shape_def(CLT_SHAPE_TORUS);
  s.minor_radius = 2.0;
  expect_body_error(w, &sb, CLT_ERR_INVALID_ARGUMENT, "minor_radius must be < major_radius");
  s = clt_default_shape_def(CLT_SHAPE_SPHERE);
  s.material = 3;
  expect_body_error(w, &sb, CLT_ERR_INVALID_ARGUMENT, "material 3 does not exist");
  sb.shape_count = 0;
  sb.name = NULL;
  expect_body_error(w, &sb, CLT_ERR_INVALID_ARGUMENT, "body #0: mass must be > 0 and finite (got 0)");

  /* a static half-space is fine; a static body may not move */
  clt_body_def_t ground = clt_default_body_def();
  ground.type = CLT_BODY_STATIC;
  s = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  ground.shapes = &s;
  ground.shape_count = 1;
  clt_body_id_t gid;
  CHECK(clt_world_add_body(w, &ground, &gid) == CLT_OK);
  ground.velocity[0] = 1.0;
  expect_body_error(w, &ground, CLT_ERR_INVALID_ARGUMENT, "static body's velocity");

  /* materials */
  clt_material_def_t md = clt_default_material_def();
  md.friction = -0.1;
  md.name = "ice";
  CHECK(clt_world_add_material(w, &md, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "material 'ice': friction must be >= 0"));
  md.friction = 0.1;
  md.restitution = 1.5;
  CHECK(clt_world_add_material(w, &md, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "restitution must be in [0, 1]"));

  /* stale handles */
  clt_body_state_t st;
  clt_body_id_t bad = {7, 1};
  CHECK(clt_body_get_state(w, bad, &st) == CLT_ERR_STALE_HANDLE);
  CHECK(contains(clt_world_error(w), "stale or unknown body handle"));
  clt_body_id_t wrong_gen = {gid.index, gid.generation + 1};
  CHECK(clt_body_get_state(w, wrong_gen, &st) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_body_get_state(w, gid, &st) == CLT_OK);
  clt_body_info_t info;
  CHECK(clt_body_get_info(w, bad, &info) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_body_get_info(w, gid, &info) == CLT_OK);
  CHECK(isinf(info.mass));
  CHECK(info.type == CLT_BODY_STATIC && info.shape_count == 1 && strcmp(info.name, "") == 0);
  clt_shape_def_t shape;
  CHECK(clt_body_get_shape(w, gid, 0, &shape) == CLT_OK);
  CHECK(shape.type == CLT_SHAPE_HALFSPACE);
  CHECK(clt_body_get_shape(w, gid, 1, &shape) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "shape index 1 out of range"));
  CHECK(clt_body_id_is_null(clt_world_body_at(w, 5)));
  CHECK(clt_world_body_at(w, 0).index == gid.index);
  CHECK(clt_body_set_state(w, gid, &st) == CLT_ERR_INVALID_ARGUMENT);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = bad;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_ERR_STALE_HANDLE);
  fd.body_a = gid;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must be a dynamic body"));
  clt_world_destroy(w);

  /* 2D-specific */
  w = world(2);
  clt_body_def_t b2 = clt_default_body_def();
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  b2.shapes = &box;
  b2.shape_count = 1;
  expect_body_error(w, &b2, CLT_ERR_INVALID_ARGUMENT, "is a 3D shape, but the world is 2D");
  clt_shape_def_t poly = clt_default_shape_def(CLT_SHAPE_POLYGON);
  double cw[4][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}}; /* clockwise */
  memcpy(poly.vertices, cw, sizeof cw);
  b2.shapes = &poly;
  expect_body_error(w, &b2, CLT_ERR_INVALID_ARGUMENT, "counter-clockwise");
  b2.shapes = NULL;
  b2.shape_count = 0;
  b2.mass = 1.0;
  b2.inertia[0] = 1.0;
  b2.position[2] = 1.0;
  expect_body_error(w, &b2, CLT_ERR_INVALID_ARGUMENT, "position[2] must be 0 in a 2D world");
  clt_world_destroy(w);
}

static void numerical_and_unsupported(void) {
  clt_world_def_t wd10 = clt_default_world_def();
  wd10.time_step = 10.0;
  wd10.gravity[2] = 0.0; /* (the bodies stay where the joint below expects them) */
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd10, &w, NULL, 0) == CLT_OK);
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1e-300; /* below CLT_MIN_MASS, as a force of 1e300 is above CLT_MAX_FORCE: refused */
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 1.0;
  bd.name = "dust";
  clt_body_id_t id, other;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "CLT_MIN_MASS"));
  bd.mass = CLT_MIN_MASS;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  bd.mass = 1.0;
  bd.name = "rock";
  bd.position[0] = 3.0;
  CHECK(clt_world_add_body(w, &bd, &other) == CLT_OK);
  for (int n = 0; n < 5; n++) CHECK(clt_world_step(w) == CLT_OK);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = id;
  fd.force[0] = 1e300;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "CLT_MAX_FORCE"));
  fd.force[0] = CLT_MAX_FORCE;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  /* the lightest body pushed by the largest force stays finite (what the limits are for) */
  clt_body_state_t before, after, other_before, other_after;
  CHECK(clt_world_step(w) == CLT_OK);
  clt_body_get_state(w, id, &before);
  CHECK(isfinite(before.position[0]) && isfinite(before.velocity[0]));
  /* a state past the limits, as a run without divergence checks reaches it (plant_state.h):
   * 1.7e308 m/s over h = 10 s overflows the position */
  before.velocity[0] = 1.7e308;
  CHECK(clt_body_set_state(w, id, &before) == CLT_ERR_INVALID_ARGUMENT);
  clt_test_plant_state(w, id, &before);
  clt_body_get_state(w, id, &before);
  clt_body_get_state(w, other, &other_before);
  uint64_t hash = clt_world_state_hash(w);
  CHECK(clt_world_step(w) == CLT_ERR_DIVERGED);
  CHECK(contains(clt_world_error(w), "body 'dust'"));
  clt_body_get_state(w, id, &after);
  clt_body_get_state(w, other, &other_after);
  CHECK(memcmp(&before, &after, sizeof before) == 0);
  CHECK(memcmp(&other_before, &other_after, sizeof before) == 0);
  CHECK(clt_world_step_count(w) == 6);
  CHECK(clt_world_state_hash(w) == hash);

  /* joints: stored, Θ reported, stepped (anitescu-hart with γ = 1 removes the error in one step) */
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_SPHERICAL);
  jd.body_a = other;
  jd.anchor_b[0] = 3.5; /* world point, 0.5 from the body's centre: Θ = (−0.5, ·, ·) */
  clt_body_state_t os;
  clt_body_get_state(w, other, &os);
  jd.anchor_b[1] = os.position[1];
  jd.anchor_b[2] = os.position[2];
  clt_joint_id_t jid;
  CHECK(clt_world_add_joint(w, &jd, &jid) == CLT_OK);
  CHECK(clt_world_joint_count(w) == 1);
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  CHECK_NEAR(d.joint_error, 0.5, 1e-12);
  CHECK_NEAR(d.infeasibility, 0.5, 1e-12);
  CHECK(clt_world_step(w) == CLT_ERR_DIVERGED); /* still 'dust' at 1.7e308 m/s */
  CHECK(clt_world_step_count(w) == 6);
  {
    /* the same joint in a world without the bad body steps */
    clt_world_t *w2 = world(3);
    bd.name = "rock";
    clt_body_id_t rock;
    CHECK(clt_world_add_body(w2, &bd, &rock) == CLT_OK);
    jd.body_a = rock;
    CHECK(clt_world_add_joint(w2, &jd, NULL) == CLT_OK);
    CHECK(clt_world_step(w2) == CLT_OK);
    CHECK(clt_world_step_count(w2) == 1);
    clt_world_get_diagnostics(w2, &d);
    CHECK(d.joints == 1);
    CHECK(d.lcp_size == 3);
    CHECK(d.solver_status == CLT_SOLVE_SOLVED);
    CHECK_LE(d.joint_error, 1e-3);
    clt_world_destroy(w2);
  }
  jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = other;
  jd.axis_a[2] = 0.0;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "axis_a and axis_b must be non-zero"));
  jd.axis_a[2] = 1.0;
  jd.body_b = other;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must be different bodies"));

  /* implicit springs are accepted (compliant rows, SPEC.md §4); a bad treatment is refused */
  clt_force_def_t sd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
  sd.body_a = other;
  sd.stiffness = 10.0;
  sd.treatment = CLT_TREAT_IMPLICIT;
  sd.name = "stiff";
  CHECK(clt_world_add_force(w, &sd, NULL) == CLT_OK);
  sd.treatment = (clt_force_treatment_t)7;
  CHECK(clt_world_add_force(w, &sd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "force 'stiff': treatment is not a known treatment"));
  sd.treatment = CLT_TREAT_EXPLICIT;
  sd.stiffness = -1.0;
  CHECK(clt_world_add_force(w, &sd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "stiffness must be >= 0"));
  clt_world_destroy(w);

  /* 2D joints: revolute ok, spherical refused */
  w = world(2);
  clt_body_def_t b2 = clt_default_body_def();
  b2.mass = 1.0;
  b2.inertia[0] = 1.0;
  CHECK(clt_world_add_body(w, &b2, &id) == CLT_OK);
  jd = clt_default_joint_def(CLT_JOINT_SPHERICAL);
  jd.body_a = id;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "not available in a 2D world"));
  clt_world_destroy(w);
}

static void independent_worlds(void) {
  clt_world_t *a = world(3), *b = world(3);
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 1.0;
  clt_body_id_t ia, ib;
  CHECK(clt_world_add_body(a, &bd, &ia) == CLT_OK);
  CHECK(clt_world_add_body(b, &bd, &ib) == CLT_OK);
  uint64_t hb = clt_world_state_hash(b);
  for (int n = 0; n < 100; n++) clt_world_step(a);
  CHECK(clt_world_state_hash(b) == hb);
  CHECK(clt_world_step_count(b) == 0);
  bd.mass = -2.0;
  CHECK(clt_world_add_body(a, &bd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strcmp(clt_world_error(b), "") == 0);
  clt_body_state_t sa, sb;
  clt_body_get_state(a, ia, &sa);
  clt_body_get_state(b, ib, &sb);
  CHECK_NEAR(sa.velocity[2], -0.981, 1e-12);
  CHECK(sb.velocity[2] == 0.0);
  clt_world_destroy(a);
  clt_world_destroy(b);
}

/* A world without bodies steps, saves and hashes (no NULL-pointer copies). */
static void empty_world(void) {
  clt_world_t *w = world(3);
  for (int n = 0; n < 3; n++) CHECK(clt_world_step(w) == CLT_OK);
  CHECK_NEAR(clt_world_time(w), 3e-3, 1e-18);
  size_t size = clt_world_state_size(w);
  unsigned char buffer[256];
  CHECK(size <= sizeof buffer);
  CHECK(clt_world_save_state(w, buffer, sizeof buffer) == CLT_OK);
  CHECK(clt_world_load_state(w, buffer, size) == CLT_OK);
  (void)clt_world_state_hash(w);
  clt_diagnostics_t d;
  CHECK(clt_world_get_diagnostics(w, &d) == CLT_OK);
  CHECK(d.step == 3 && d.bodies == 0 && d.solver_status == CLT_SOLVE_NONE);
  clt_world_destroy(w);
}

static void names(void) {
  for (int t = 0; t < CLT_JOINT_TYPE_COUNT; t++)
    CHECK(clt_joint_type_from_name(clt_joint_type_name((clt_joint_type_t)t)) == (clt_joint_type_t)t);
  for (int t = 0; t < CLT_FORCE_TYPE_COUNT; t++)
    CHECK(clt_force_type_from_name(clt_force_type_name((clt_force_type_t)t)) == (clt_force_type_t)t);
  CHECK(clt_joint_type_from_name("hinge") == CLT_JOINT_TYPE_COUNT);
  CHECK(strcmp(clt_force_type_name(CLT_FORCE_SPRING_DAMPER), "spring-damper") == 0);
}

int main(void) {
  world_errors();
  body_errors();
  numerical_and_unsupported();
  independent_worlds();
  empty_world();
  names();
  return clt_test_finish();
}
