/* API misuse (issue 42 "[harden]"; world.h "Misuse", docs/api-limits.md): every public function
 * that takes a world, a colony or a solver problem is called with NULL and must answer with a code
 * (CLT_ERR_INVALID_ARGUMENT) or its documented neutral value, never crash; NULL def, out and state
 * pointers likewise, with a reason in clt_world_error. Then absurd magnitudes (NaN, ±inf, ±1e308,
 * h = 1e-320, values just past each limit) in every definition and in clt_body_set_state are
 * refused with a message naming the field and the limit and leave the world as it was, values at
 * the limits are accepted, and the reproducer (an angular velocity of 1e308, after which
 * every step failed) is refused while the world keeps stepping. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "clatter/colony.h"
#include "clatter/solvers.h"
#include "clatter/world.h"
#include "test_util.h"

static bool contains(const char *text, const char *part) {
  if (text && strstr(text, part)) return true;
  fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", text ? text : "(null)", part);
  return false;
}

static bool null_body(clt_body_id_t id) { return clt_body_id_is_null(id) && id.generation == 0; }

/* The absurd values tried in every field. */
static const double absurd[] = {NAN, INFINITY, -INFINITY, 1e308, -1e308};
#define ABSURD_COUNT ((int)(sizeof absurd / sizeof absurd[0]))

/* ---- NULL world: every function of world.h ---- */
static void null_world(void) {
  clt_world_def_t wd = clt_default_world_def();
  clt_world_t *w = (clt_world_t *)&wd; /* (a non-NULL value that must be overwritten) */
  char msg[256] = "";
  CHECK(clt_world_create(NULL, &w, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(w == NULL);
  CHECK(contains(msg, "must not be NULL"));
  CHECK(clt_world_create(&wd, NULL, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_create(NULL, NULL, NULL, 0) == CLT_ERR_INVALID_ARGUMENT);
  clt_world_destroy(NULL);
  CHECK(strcmp(clt_world_error(NULL), "no world (NULL)") == 0);

  CHECK(clt_method_effective_cone(NULL) == CLT_CONE_AUTO);
  CHECK(clt_world_dimension(NULL) == 0);
  CHECK(isnan(clt_world_time(NULL)));
  CHECK(clt_world_step_count(NULL) == 0);
  CHECK(isnan(clt_world_time_step(NULL)));
  CHECK(clt_world_method(NULL) == NULL);

  clt_material_def_t md = clt_default_material_def();
  int index = 7;
  CHECK(clt_world_add_material(NULL, &md, &index) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(index == 7);

  clt_shape_def_t sphere = clt_default_shape_def(CLT_SHAPE_SPHERE);
  sphere.radius = 0.5;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &sphere;
  bd.shape_count = 1;
  clt_body_id_t id = {3, 1};
  CHECK(clt_world_add_body(NULL, &bd, &id) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(null_body(id));
  CHECK(clt_world_reserve(NULL, 10, 10) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_body_count(NULL) == 0);
  CHECK(null_body(clt_world_body_at(NULL, 0)));

  clt_body_id_t some = {0, 1};
  clt_body_state_t s;
  memset(&s, 0, sizeof s);
  s.orientation[0] = 1.0;
  CHECK(clt_body_get_state(NULL, some, &s) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_body_set_state(NULL, some, &s) == CLT_ERR_INVALID_ARGUMENT);
  clt_body_info_t info;
  CHECK(clt_body_get_info(NULL, some, &info) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_body_set_capsule_length(NULL, some, 0, 1.0) == CLT_ERR_INVALID_ARGUMENT);
  clt_shape_def_t shape;
  CHECK(clt_body_get_shape(NULL, some, 0, &shape) == CLT_ERR_INVALID_ARGUMENT);

  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_SPHERICAL);
  jd.body_a = some;
  clt_joint_id_t jid = {3, 1};
  CHECK(clt_world_add_joint(NULL, &jd, &jid) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(jid.index == CLT_NULL_INDEX && jid.generation == 0);
  CHECK(clt_world_joint_count(NULL) == 0);
  clt_joint_limit_t limit = {true, -1.0, 1.0, 0.0, 0.0};
  clt_joint_motor_t motor = {0};
  double impulse[9];
  CHECK(clt_joint_set_limit(NULL, jid, &limit) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_joint_set_motor(NULL, jid, &motor) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_joint_get_impulses(NULL, jid, impulse) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_remove_joint(NULL, jid) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_remove_body(NULL, some) == CLT_ERR_INVALID_ARGUMENT);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = some;
  clt_force_id_t fid = {3, 1};
  CHECK(clt_world_add_force(NULL, &fd, &fid) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(fid.index == CLT_NULL_INDEX && fid.generation == 0);
  CHECK(clt_world_force_count(NULL) == 0);

  CHECK(clt_world_step(NULL) == CLT_ERR_INVALID_ARGUMENT);
  clt_diagnostics_t d;
  CHECK(clt_world_get_diagnostics(NULL, &d) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_contact_count(NULL) == 0);
  clt_contact_info_t ci;
  CHECK(clt_world_get_contact(NULL, 0, &ci) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(isnan(clt_world_kinetic_energy(NULL)));
  CHECK(isnan(clt_world_potential_energy(NULL)));
  double p[3] = {0, 0, 0}, l[3] = {0, 0, 0};
  clt_world_momentum(NULL, p, l);
  CHECK(isnan(p[0]) && isnan(p[1]) && isnan(p[2]) && isnan(l[0]) && isnan(l[1]) && isnan(l[2]));
  clt_world_momentum(NULL, NULL, NULL);

  unsigned char blob[256] = {0};
  CHECK(clt_world_state_size(NULL) == 0);
  CHECK(clt_world_save_state(NULL, blob, sizeof blob) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_load_state(NULL, blob, sizeof blob) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_state_hash(NULL) == 0);
}

/* A 3D world with a floor, a ball (a capsule body too) and a joint, stepped once. */
static clt_world_t *small_world(clt_body_id_t *ball, clt_body_id_t *rod) {
  clt_world_def_t wd = clt_default_world_def();
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  plane.normal[2] = 1.0;
  clt_body_def_t gd = clt_default_body_def();
  gd.type = CLT_BODY_STATIC;
  gd.shapes = &plane;
  gd.shape_count = 1;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
  clt_shape_def_t sphere = clt_default_shape_def(CLT_SHAPE_SPHERE);
  sphere.radius = 0.1;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[2] = 0.1;
  bd.shapes = &sphere;
  bd.shape_count = 1;
  bd.name = "ball";
  CHECK(clt_world_add_body(w, &bd, ball) == CLT_OK);
  clt_shape_def_t capsule = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  capsule.radius = 0.05;
  capsule.length = 0.3;
  bd.position[0] = 1.0;
  bd.position[2] = 1.0;
  bd.shapes = &capsule;
  bd.name = "rod";
  CHECK(clt_world_add_body(w, &bd, rod) == CLT_OK);
  CHECK(clt_world_step(w) == CLT_OK);
  return w;
}

/* ---- NULL defs, outs and states on a real world ---- */
static void null_pointers(void) {
  clt_body_id_t ball, rod;
  clt_world_t *w = small_world(&ball, &rod);
  uint64_t hash = clt_world_state_hash(w);
  int index = 7;
  CHECK(clt_world_add_material(w, NULL, &index) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must not be NULL"));
  CHECK(index == 7);
  clt_body_id_t id = {3, 1};
  CHECK(clt_world_add_body(w, NULL, &id) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must not be NULL"));
  CHECK(null_body(id));
  clt_body_def_t bd = clt_default_body_def();
  bd.shape_count = 1; /* shapes NULL */
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "shapes must not be NULL"));
  CHECK(clt_world_add_joint(w, NULL, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must not be NULL"));
  CHECK(clt_world_add_force(w, NULL, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must not be NULL"));
  CHECK(clt_body_get_state(w, ball, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must not be NULL"));
  CHECK(clt_body_set_state(w, ball, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must not be NULL"));
  CHECK(clt_body_get_info(w, ball, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must not be NULL"));
  CHECK(clt_body_get_shape(w, ball, 0, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_get_diagnostics(w, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must not be NULL"));
  CHECK(clt_world_get_contact(w, 0, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_save_state(w, NULL, 1000) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_load_state(w, NULL, 1000) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must not be NULL"));
  clt_world_momentum(w, NULL, NULL);
  /* the joint setters and getters of docs/actuation.md */
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_SPHERICAL);
  jd.body_a = ball;
  jd.anchor_b[2] = 0.1; /* the ball's centre, where it rests on the floor */
  clt_joint_id_t jid;
  CHECK(clt_world_add_joint(w, &jd, &jid) == CLT_OK);
  hash = clt_world_state_hash(w);
  CHECK(clt_joint_set_limit(w, jid, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "set_limit: out must not be NULL"));
  CHECK(clt_joint_set_motor(w, jid, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "set_motor: out must not be NULL"));
  CHECK(clt_joint_get_impulses(w, jid, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_remove_body(w, clt_world_ground()) == CLT_ERR_INVALID_ARGUMENT);
  /* the ground handle and a stale one where a body is needed */
  clt_body_state_t s;
  CHECK(clt_body_get_state(w, clt_world_ground(), &s) == CLT_ERR_INVALID_ARGUMENT);
  clt_body_id_t stale = {99, 1};
  CHECK(clt_body_get_state(w, stale, &s) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_world_state_hash(w) == hash); /* nothing changed */
  CHECK(clt_world_step(w) == CLT_OK);
  clt_world_destroy(w);
}

/* ---- absurd values in the world definition ---- */
static void expect_world_refused(const clt_world_def_t *wd, const char *part1, const char *part2) {
  clt_world_t *w = (clt_world_t *)wd;
  char msg[512] = "";
  CHECK(clt_world_create(wd, &w, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(w == NULL);
  CHECK(contains(msg, part1));
  if (part2) CHECK(contains(msg, part2));
  clt_world_destroy(w);
}

static void expect_world_accepted(const clt_world_def_t *wd) {
  clt_world_t *w = NULL;
  char msg[512] = "";
  CHECK(clt_world_create(wd, &w, msg, sizeof msg) == CLT_OK);
  if (!w) fprintf(stderr, "  refused: %s\n", msg);
  clt_world_destroy(w);
}

static void world_limits(void) {
  const double steps[] = {NAN, INFINITY, -INFINITY, 1e308, -1e308, 1e-320, 0.0, -1e-3, 1e-13, 1001.0};
  for (int i = 0; i < (int)(sizeof steps / sizeof steps[0]); i++) {
    clt_world_def_t wd = clt_default_world_def();
    wd.time_step = steps[i];
    expect_world_refused(&wd, "time_step", "CLT_MIN_TIME_STEP");
  }
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = CLT_MIN_TIME_STEP;
  expect_world_accepted(&wd);
  wd.time_step = CLT_MAX_TIME_STEP;
  expect_world_accepted(&wd);
  for (int i = 0; i < ABSURD_COUNT; i++)
    for (int k = 0; k < 3; k++) {
      wd = clt_default_world_def();
      wd.gravity[k] = absurd[i];
      expect_world_refused(&wd, "gravity", "CLT_MAX_ACCELERATION");
    }
  wd = clt_default_world_def();
  wd.gravity[2] = -2.0 * CLT_MAX_ACCELERATION;
  expect_world_refused(&wd, "gravity", "CLT_MAX_ACCELERATION");
  wd.gravity[2] = -CLT_MAX_ACCELERATION;
  expect_world_accepted(&wd);
  for (int i = 0; i < ABSURD_COUNT; i++) {
    wd = clt_default_world_def();
    wd.viscosity = absurd[i];
    expect_world_refused(&wd, "viscosity", NULL);
    /* the method's lengths and rates: the active_set_eps = 1e308 made the broad phase
     * shift by 66 bits */
    wd = clt_default_world_def();
    wd.method.active_set_eps = absurd[i];
    expect_world_refused(&wd, "method.active_set_eps", NULL);
    wd = clt_default_world_def();
    wd.method.post_tolerance = absurd[i];
    expect_world_refused(&wd, "method.post_tolerance", NULL);
    wd = clt_default_world_def();
    wd.method.overlap_tolerance = absurd[i];
    expect_world_refused(&wd, "method.overlap_tolerance", NULL);
    wd = clt_default_world_def();
    wd.method.velocity_tolerance = absurd[i];
    expect_world_refused(&wd, "method.velocity_tolerance", NULL);
    wd = clt_default_world_def();
    wd.method.alpha = absurd[i];
    expect_world_refused(&wd, "method.alpha", NULL);
    wd = clt_default_world_def();
    wd.method.gamma = absurd[i];
    expect_world_refused(&wd, "method.gamma", NULL);
    wd = clt_default_world_def();
    wd.method.tolerance = absurd[i];
    if (absurd[i] != 1e308) /* (a loose tolerance is a choice, not a hazard) */
      expect_world_refused(&wd, "method.tolerance", NULL);
    wd = clt_default_world_def();
    wd.method.relaxation = absurd[i];
    expect_world_refused(&wd, "method.relaxation", NULL);
  }
  wd = clt_default_world_def();
  wd.method.active_set_eps = 2.0 * CLT_MAX_LENGTH;
  expect_world_refused(&wd, "method.active_set_eps", "CLT_MAX_LENGTH");
  wd.method.active_set_eps = CLT_MAX_LENGTH;
  expect_world_accepted(&wd);
  wd = clt_default_world_def();
  wd.method.velocity_tolerance = CLT_MAX_SPEED; /* (tests/stepper/test_relaxed_bgs.c uses it) */
  expect_world_accepted(&wd);
}

/* ---- absurd values in bodies, shapes, materials, joints, forces and set_state ---- */

/* Adding bd to w must fail with part in the message and leave the world as it was. */
static void expect_body_refused(clt_world_t *w, const clt_body_def_t *bd, const char *part1, const char *part2) {
  int before = clt_world_body_count(w);
  uint64_t hash = clt_world_state_hash(w);
  clt_body_id_t id = {3, 1};
  CHECK(clt_world_add_body(w, bd, &id) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(null_body(id));
  CHECK(contains(clt_world_error(w), part1));
  if (part2) CHECK(contains(clt_world_error(w), part2));
  CHECK(clt_world_body_count(w) == before);
  CHECK(clt_world_state_hash(w) == hash);
}

static clt_body_def_t given_body(void) {
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.1;
  bd.position[2] = 5.0;
  bd.name = "probe";
  return bd;
}

static void body_limits(void) {
  clt_body_id_t ball, rod;
  clt_world_t *w = small_world(&ball, &rod);
  for (int i = 0; i < ABSURD_COUNT; i++) {
    double v = absurd[i];
    for (int k = 0; k < 3; k++) {
      clt_body_def_t bd = given_body();
      bd.position[k] = v;
      expect_body_refused(w, &bd, "position", NULL);
      bd = given_body();
      bd.velocity[k] = v;
      expect_body_refused(w, &bd, "velocity", NULL);
      bd = given_body();
      bd.angular_velocity[k] = v;
      expect_body_refused(w, &bd, "angular_velocity", NULL);
      bd = given_body();
      bd.inertia[k] = v;
      expect_body_refused(w, &bd, "inertia", NULL);
      bd = given_body();
      bd.drag_linear[k] = v;
      expect_body_refused(w, &bd, "drag", NULL);
    }
    clt_body_def_t bd = given_body();
    bd.mass = v;
    expect_body_refused(w, &bd, "mass", NULL);
    bd = given_body();
    bd.orientation[1] = v;
    expect_body_refused(w, &bd, "orientation", NULL);
    /* shapes: sizes and offsets */
    clt_shape_def_t sphere = clt_default_shape_def(CLT_SHAPE_SPHERE);
    sphere.radius = v;
    bd = clt_default_body_def();
    bd.shapes = &sphere;
    bd.shape_count = 1;
    expect_body_refused(w, &bd, "shapes[0]", NULL);
    sphere.radius = 0.1;
    sphere.local_position[0] = v;
    expect_body_refused(w, &bd, "shapes[0]", NULL);
    /* kinematic motion */
    bd = clt_default_body_def();
    bd.type = CLT_BODY_KINEMATIC;
    bd.motion.amplitude[0] = v;
    expect_body_refused(w, &bd, "motion", NULL);
  }
  /* just past each limit, with the limit's name in the message */
  clt_body_def_t bd = given_body();
  bd.position[0] = 1.5 * CLT_MAX_LENGTH;
  expect_body_refused(w, &bd, "position", "CLT_MAX_LENGTH");
  bd = given_body();
  bd.velocity[1] = -1.5 * CLT_MAX_SPEED;
  expect_body_refused(w, &bd, "velocity", "CLT_MAX_SPEED");
  bd = given_body();
  bd.angular_velocity[2] = 1.5 * CLT_MAX_ANGULAR_SPEED;
  expect_body_refused(w, &bd, "angular_velocity", "CLT_MAX_ANGULAR_SPEED");
  bd = given_body();
  bd.mass = 1e-320; /* subnormal: 1/m is infinite */
  expect_body_refused(w, &bd, "mass", "CLT_MIN_MASS");
  bd.mass = 0.5 * CLT_MIN_MASS;
  expect_body_refused(w, &bd, "mass", "CLT_MIN_MASS");
  bd.mass = 2.0 * CLT_MAX_MASS;
  expect_body_refused(w, &bd, "mass", "CLT_MAX_MASS");
  bd = given_body();
  bd.inertia[1] = 0.5 * CLT_MIN_INERTIA;
  expect_body_refused(w, &bd, "inertia[1]", "CLT_MIN_INERTIA");
  bd.inertia[1] = 2.0 * CLT_MAX_INERTIA;
  expect_body_refused(w, &bd, "inertia[1]", "CLT_MAX_INERTIA");
  bd = given_body();
  bd.orientation[0] = 1e200; /* finite, but its length overflows */
  expect_body_refused(w, &bd, "orientation", NULL);
  clt_shape_def_t big = clt_default_shape_def(CLT_SHAPE_SPHERE);
  big.radius = 2.0 * CLT_MAX_LENGTH;
  bd = clt_default_body_def();
  bd.shapes = &big;
  bd.shape_count = 1;
  expect_body_refused(w, &bd, "shapes[0]", "CLT_MAX_LENGTH");
  big.radius = 1e-12; /* a speck: the mass its shape gives is below CLT_MIN_MASS */
  expect_body_refused(w, &bd, "mass", "CLT_MIN_MASS");
  big.radius = 1e6; /* a 1000 km ball of water: 4.2e21 kg, within; its moments (1.7e33) within too */
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  /* at the limits: accepted */
  bd = given_body();
  bd.position[0] = CLT_MAX_LENGTH;
  bd.velocity[1] = -CLT_MAX_SPEED;
  bd.angular_velocity[2] = CLT_MAX_ANGULAR_SPEED;
  bd.mass = CLT_MIN_MASS;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = CLT_MIN_INERTIA;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  bd.mass = CLT_MAX_MASS;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = CLT_MAX_INERTIA;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);

  /* materials */
  for (int i = 0; i < ABSURD_COUNT; i++) {
    clt_material_def_t md = clt_default_material_def();
    md.friction = absurd[i];
    CHECK(clt_world_add_material(w, &md, NULL) == CLT_ERR_INVALID_ARGUMENT);
    CHECK(contains(clt_world_error(w), "friction"));
    md = clt_default_material_def();
    md.density = absurd[i];
    if (absurd[i] == 1e308) continue; /* (a finite density: the mass it gives is what is limited, below) */
    CHECK(clt_world_add_material(w, &md, NULL) == CLT_ERR_INVALID_ARGUMENT);
  }
  int dense;
  clt_material_def_t heavy = clt_default_material_def();
  heavy.density = 1e300;
  CHECK(clt_world_add_material(w, &heavy, &dense) == CLT_OK);
  clt_shape_def_t lump = clt_default_shape_def(CLT_SHAPE_SPHERE);
  lump.radius = 0.1;
  lump.material = dense;
  bd = clt_default_body_def();
  bd.shapes = &lump;
  bd.shape_count = 1;
  expect_body_refused(w, &bd, "mass", "CLT_MAX_MASS");
  clt_material_def_t md = clt_default_material_def();
  md.friction = 2.0 * CLT_MAX_FRICTION;
  CHECK(clt_world_add_material(w, &md, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "CLT_MAX_FRICTION"));

  /* capsule growth */
  for (int i = 0; i < ABSURD_COUNT; i++) {
    CHECK(clt_body_set_capsule_length(w, rod, 0, absurd[i]) == CLT_ERR_INVALID_ARGUMENT);
    CHECK(contains(clt_world_error(w), "length"));
  }
  CHECK(clt_body_set_capsule_length(w, rod, 0, 2.0 * CLT_MAX_LENGTH) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "CLT_MAX_LENGTH"));

  /* joints and forces */
  uint64_t hash = clt_world_state_hash(w);
  for (int i = 0; i < ABSURD_COUNT; i++) {
    double v = absurd[i];
    clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_DISTANCE);
    jd.body_a = ball;
    jd.anchor_b[0] = v;
    CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
    jd = clt_default_joint_def(CLT_JOINT_DISTANCE);
    jd.body_a = ball;
    jd.distance = v;
    if (!(v < 0.0 && isfinite(v))) /* (a negative distance means "the initial one") */
      CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
    jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
    jd.body_a = ball;
    jd.axis_a[2] = v;
    CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
    clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
    fd.body_a = ball;
    fd.force[2] = v;
    CHECK(clt_world_add_force(w, &fd, NULL) == CLT_ERR_INVALID_ARGUMENT);
    fd = clt_default_force_def(CLT_FORCE_APPLIED);
    fd.body_a = ball;
    fd.torque_amplitude[0] = v;
    CHECK(clt_world_add_force(w, &fd, NULL) == CLT_ERR_INVALID_ARGUMENT);
    fd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
    fd.body_a = ball;
    fd.stiffness = v;
    CHECK(clt_world_add_force(w, &fd, NULL) == CLT_ERR_INVALID_ARGUMENT);
    fd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
    fd.body_a = ball;
    fd.rest_length = v;
    if (!(v < 0.0 && isfinite(v))) /* (a negative rest length means "the initial one") */
      CHECK(clt_world_add_force(w, &fd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  }
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_DISTANCE);
  jd.body_a = ball;
  jd.distance = 2.0 * CLT_MAX_LENGTH;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "distance") && contains(clt_world_error(w), "CLT_MAX_LENGTH"));
  jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = ball;
  jd.axis_a[2] = 1e200; /* finite, its length is not */
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "axis"));
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = ball;
  fd.force[0] = 2.0 * CLT_MAX_FORCE;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "CLT_MAX_FORCE"));
  fd = clt_default_force_def(CLT_FORCE_SPRING_DAMPER);
  fd.body_a = ball;
  fd.damping = 2.0 * CLT_MAX_COEFFICIENT;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "CLT_MAX_COEFFICIENT"));
  CHECK(clt_world_joint_count(w) == 0 && clt_world_force_count(w) == 0);
  CHECK(clt_world_state_hash(w) == hash);
  clt_world_destroy(w);
}

static void set_state_limits(void) {
  clt_body_id_t ball, rod;
  clt_world_t *w = small_world(&ball, &rod);
  clt_body_state_t good;
  CHECK(clt_body_get_state(w, ball, &good) == CLT_OK);
  uint64_t hash = clt_world_state_hash(w);
  for (int i = 0; i < ABSURD_COUNT; i++)
    for (int k = 0; k < 3; k++) {
      clt_body_state_t s = good;
      s.position[k] = absurd[i];
      CHECK(clt_body_set_state(w, ball, &s) == CLT_ERR_INVALID_ARGUMENT);
      CHECK(contains(clt_world_error(w), "set_state"));
      s = good;
      s.velocity[k] = absurd[i];
      CHECK(clt_body_set_state(w, ball, &s) == CLT_ERR_INVALID_ARGUMENT);
      s = good;
      s.angular_velocity[k] = absurd[i];
      CHECK(clt_body_set_state(w, ball, &s) == CLT_ERR_INVALID_ARGUMENT);
      s = good;
      s.orientation[k] = absurd[i];
      CHECK(clt_body_set_state(w, ball, &s) == CLT_ERR_INVALID_ARGUMENT);
      CHECK(clt_world_state_hash(w) == hash);
    }
  clt_body_state_t s = good;
  s.position[0] = 1.5 * CLT_MAX_LENGTH;
  CHECK(clt_body_set_state(w, ball, &s) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "position[0]") && contains(clt_world_error(w), "CLT_MAX_LENGTH"));
  s = good;
  s.velocity[2] = 1.5 * CLT_MAX_SPEED;
  CHECK(clt_body_set_state(w, ball, &s) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "velocity[2]") && contains(clt_world_error(w), "CLT_MAX_SPEED"));
  /* the reproducer: an angular velocity of 1e308 was accepted and every later step failed */
  s = good;
  s.angular_velocity[0] = 1e308;
  CHECK(clt_body_set_state(w, ball, &s) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "angular_velocity[0]") && contains(clt_world_error(w), "CLT_MAX_ANGULAR_SPEED"));
  s.orientation[0] = 1e200;
  s.angular_velocity[0] = 0.0;
  CHECK(clt_body_set_state(w, ball, &s) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_state_hash(w) == hash);
  for (int n = 0; n < 10; n++) CHECK(clt_world_step(w) == CLT_OK);
  /* at the limits: accepted */
  CHECK(clt_body_get_state(w, ball, &s) == CLT_OK);
  s.position[0] = -CLT_MAX_LENGTH;
  s.velocity[0] = CLT_MAX_SPEED;
  s.angular_velocity[1] = -CLT_MAX_ANGULAR_SPEED;
  CHECK(clt_body_set_state(w, ball, &s) == CLT_OK);
  clt_world_destroy(w);

  /* 2D: the same checks on (x, y, θ) */
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.gravity[1] = -9.81;
  wd.gravity[2] = 0.0;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t disk = clt_default_shape_def(CLT_SHAPE_DISK);
  disk.radius = 0.1;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &disk;
  bd.shape_count = 1;
  bd.angular_velocity[0] = 1e308;
  CHECK(clt_world_add_body(w, &bd, &ball) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "CLT_MAX_ANGULAR_SPEED"));
  bd.angular_velocity[0] = 1.0;
  CHECK(clt_world_add_body(w, &bd, &ball) == CLT_OK);
  CHECK(clt_body_get_state(w, ball, &s) == CLT_OK);
  s.angular_velocity[0] = -1e308;
  CHECK(clt_body_set_state(w, ball, &s) == CLT_ERR_INVALID_ARGUMENT);
  s.angular_velocity[0] = 1.0;
  s.angle = INFINITY;
  CHECK(clt_body_set_state(w, ball, &s) == CLT_ERR_INVALID_ARGUMENT);
  for (int n = 0; n < 3; n++) CHECK(clt_world_step(w) == CLT_OK);
  clt_world_destroy(w);
}

/* ---- the colony ---- */
static void colony_misuse(void) {
  clt_colony_def_t cd = clt_default_colony_def();
  clt_colony_t *c = (clt_colony_t *)&cd;
  CHECK(clt_colony_create(NULL, &cd, &c) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(c == NULL);
  clt_colony_destroy(NULL);
  CHECK(clt_colony_step(NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_colony_grow(NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_colony_world(NULL) == NULL);
  CHECK(clt_colony_cell_count(NULL) == 0);
  CHECK(clt_colony_division_count(NULL) == 0);
  clt_colony_cell_t cell;
  CHECK(clt_colony_get_cell(NULL, 0, &cell) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(isnan(clt_colony_volume(NULL)));
  unsigned char blob[64];
  CHECK(clt_colony_state_size(NULL) == 0);
  CHECK(clt_colony_save_state(NULL, blob, sizeof blob) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_colony_load_state(NULL, blob, sizeof blob) == CLT_ERR_INVALID_ARGUMENT);
  clt_colony_order_t o;
  CHECK(clt_colony_order(NULL, 1.0, 0.1, 0.1, &o) == CLT_ERR_INVALID_ARGUMENT);
  /* a real colony: NULL def and out; absurd sizes reach the world's limits */
  clt_world_t *w = NULL;
  clt_world_def_t wd = clt_default_world_def();
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  CHECK(clt_colony_create(w, NULL, &c) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clt_world_error(w), "must not be NULL"));
  CHECK(clt_colony_create(w, &cd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  cd.diameter = 1e300;
  cd.division_length = 3e300;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(c == NULL);
  CHECK(contains(clt_world_error(w), "CLT_MAX_LENGTH"));
  cd = clt_default_colony_def();
  cd.initial_position[0] = 1e300;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(c == NULL && clt_world_body_count(w) == 0);
  cd = clt_default_colony_def();
  CHECK(clt_colony_create(w, &cd, &c) == CLT_OK);
  CHECK(clt_colony_get_cell(c, 0, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_colony_order(c, 1.0, 0.1, 0.1, NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_colony_save_state(c, NULL, 100) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_colony_load_state(c, NULL, 100) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_colony_step(c) == CLT_OK);
  clt_colony_destroy(c);
  clt_world_destroy(w);
}

/* ---- the solver layer: NULL problems, matrices and outputs ---- */
static void solver_misuse(void) {
  clt_solve_result_t r;
  double z[2] = {0, 0}, wv[2];
  memset(&r, 0, sizeof r);
  CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, NULL, NULL, z, wv, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(r.message[0] != '\0');
  CHECK(clt_lcp_solve(CLT_SOLVER_BGS, NULL, NULL, NULL, NULL, NULL) == CLT_ERR_INVALID_ARGUMENT);
  memset(&r, 0, sizeof r);
  CHECK(clt_lcp_polish(NULL, NULL, z, wv, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(r.message[0] != '\0');
  CHECK(isnan(clt_lcp_residual(NULL, z)));
  memset(&r, 0, sizeof r);
  CHECK(clt_cone_qp_solve(CLT_SOLVER_APGD, NULL, NULL, NULL, z, wv, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(r.message[0] != '\0');
  CHECK(isnan(clt_cone_qp_residual(NULL, NULL, z)));

  /* a 2 x 2 LCP with its pieces missing */
  double values[4] = {2, 1, 1, 2}, q[2] = {-1, -1};
  clt_matrix_t M = {CLT_MATRIX_DENSE, 2, 2, values, NULL, NULL, 0};
  clt_lcp_t lcp = {2, &M, NULL, q, 0, NULL, 0, NULL, NULL};
  CHECK(isnan(clt_lcp_residual(&lcp, NULL)));
  memset(&r, 0, sizeof r);
  CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, NULL, NULL, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(r.message[0] != '\0');
  clt_matrix_t hollow = {CLT_MATRIX_DENSE, 2, 2, NULL, NULL, NULL, 0};
  clt_lcp_t bad = {2, &hollow, NULL, q, 0, NULL, 0, NULL, NULL};
  memset(&r, 0, sizeof r);
  CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &bad, NULL, z, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(r.message[0] != '\0');
  CHECK(clt_lcp_polish(&bad, NULL, z, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(isnan(clt_lcp_residual(&bad, z)));
  bad.M = &M;
  bad.q = NULL;
  CHECK(clt_lcp_solve(CLT_SOLVER_APGD, &bad, NULL, z, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(isnan(clt_lcp_residual(&bad, z)));
  /* the intact problem still solves */
  CHECK(clt_lcp_solve(CLT_SOLVER_LEMKE, &lcp, NULL, z, wv, &r) == CLT_OK);
  CHECK(r.status == CLT_SOLVE_SOLVED);
  CHECK(clt_lcp_residual(&lcp, z) <= 1e-10);

  /* matrices */
  clt_matrix_free(NULL);
  double y[2] = {5, 5};
  clt_matrix_multiply(NULL, z, y);
  clt_matrix_multiply(&hollow, z, y);
  clt_matrix_multiply(&M, NULL, y);
  clt_matrix_multiply(&M, z, NULL);
  CHECK(y[0] == 5 && y[1] == 5);
  CHECK(isnan(clt_matrix_get(NULL, 0, 0)));
  CHECK(isnan(clt_matrix_get(&hollow, 0, 0)));
  clt_matrix_t csr = {CLT_MATRIX_CSR, 2, 2, NULL, NULL, NULL, 3};
  CHECK(isnan(clt_matrix_get(&csr, 0, 0)));
  clt_matrix_multiply(&csr, z, y);
  CHECK(clt_matrix_get(&M, 0, 1) == 1.0 && clt_matrix_get(&M, 5, 5) == 0.0);

  /* frictional contact */
  clt_fc_local_free(NULL);
  clt_fc_global_free(NULL);
  double err = 0.0;
  CHECK(isnan(clt_fc_local_error(NULL, z, &err)) && isnan(err));
  memset(&r, 0, sizeof r);
  CHECK(clt_fc_local_solve(NULL, NULL, z, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(r.message[0] != '\0');
  memset(&r, 0, sizeof r);
  CHECK(clt_fc_local_active_set(NULL, NULL, z, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(r.message[0] != '\0');
  memset(&r, 0, sizeof r);
  double v[4], rr[2];
  CHECK(clt_fc_global_solve(NULL, NULL, v, rr, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(r.message[0] != '\0');
  clt_fc_local_t out;
  CHECK(clt_fc_global_condense(NULL, &out) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_fc_global_condense(NULL, NULL) == CLT_ERR_INVALID_ARGUMENT);
  /* a local problem whose W has no arrays */
  double fq[2] = {-1, 0}, mu[1] = {0.5};
  clt_fc_local_t fc = {2, 1, {CLT_MATRIX_DENSE, 2, 2, NULL, NULL, NULL, 0}, fq, mu};
  double fr[2] = {0, 0};
  CHECK(isnan(clt_fc_local_error(&fc, fr, NULL)));
  CHECK(clt_fc_local_solve(&fc, NULL, fr, NULL, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_fc_local_active_set(&fc, NULL, fr, &r) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_fc_local_solve(&fc, NULL, NULL, NULL, NULL) == CLT_ERR_INVALID_ARGUMENT);
  double wvals[4] = {1, 0, 0, 1};
  fc.W.values = wvals;
  CHECK(clt_fc_local_solve(&fc, NULL, fr, NULL, &r) == CLT_OK);
  CHECK(r.status == CLT_SOLVE_SOLVED);
  CHECK(clt_fc_local_error(&fc, fr, NULL) <= 1e-10);
}

int main(void) {
  null_world();
  null_pointers();
  world_limits();
  body_limits();
  set_state_limits();
  colony_misuse();
  solver_misuse();
  return clt_test_finish();
}
