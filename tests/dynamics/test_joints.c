/* Joint constraint functions Θ (SPEC.md §1; the joint_error diagnostic = max |Θ|): zero on
 * creation where the anchors coincide, invariant under the motions the joint allows, and equal to
 * the known violation for the motions it forbids. Anchors are in the body's definition frame, so a
 * composite body (frame moved to its centre of mass and principal axes) must not change them.
 * The rows ν = ∇Θ (src/constraints, which the step's joint rows use) are checked against central
 * finite differences of Θ along random velocities, for every joint type, against a body and the
 * ground. */
#include <string.h>

#include "clatter/world.h"
#include "constraints/joint.h"
#include "math/vec.h"
#include "test_util.h"

static clt_world_t *w;

static double joint_error(void) {
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  return d.joint_error;
}

/* Rotates the body about the world axis through world point c by angle a, and/or translates. */
static void move(clt_body_id_t id, const double c[3], const double axis[3], double a, const double shift[3]) {
  clt_body_state_t s;
  clt_body_get_state(w, id, &s);
  double th[3] = {axis[0] * a, axis[1] * a, axis[2] * a}, q[4], d[3];
  clt_q_exp(q, th);
  clt_v3_sub(d, s.position, c);
  clt_q_rotate(d, q, d);
  clt_v3_add(s.position, c, d);
  clt_v3_add(s.position, s.position, shift);
  clt_q_mul(s.orientation, q, s.orientation);
  CHECK(clt_body_set_state(w, id, &s) == CLT_OK);
}

static clt_body_id_t composite_body(void) {
  /* off-centre shapes: the principal frame is shifted and rotated against the definition frame */
  static clt_shape_def_t s[2];
  s[0] = clt_default_shape_def(CLT_SHAPE_BOX);
  s[0].half_extents[0] = 1.0;
  s[0].local_position[1] = 0.4;
  s[0].local_orientation[0] = cos(0.3);
  s[0].local_orientation[3] = sin(0.3);
  s[1] = clt_default_shape_def(CLT_SHAPE_SPHERE);
  s[1].local_position[0] = 0.8;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[0] = 1.0;
  bd.position[2] = 2.0;
  bd.shapes = s;
  bd.shape_count = 2;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  return id;
}

static const double zero[3] = {0.0, 0.0, 0.0};

static void test_3d(clt_joint_type_t type, const char *name) {
  clt_world_def_t wd = clt_default_world_def();
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_body_id_t id = composite_body();
  /* the joint sits at the definition-frame point (0.5, 0, 0) = world (1.5, 0, 2), axis def x */
  clt_joint_def_t jd = clt_default_joint_def(type);
  jd.body_a = id;
  jd.anchor_a[0] = 0.5;
  jd.anchor_b[0] = 1.5;
  jd.anchor_b[2] = 2.0;
  jd.axis_a[0] = 1.0;
  jd.axis_a[2] = 0.0;
  jd.axis_b[0] = 1.0;
  jd.axis_b[2] = 0.0;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  double pivot[3] = {1.5, 0.0, 2.0}, ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
  double e0 = joint_error();
  CHECK_LE(e0, 1e-14);
  double shift_x[3] = {0.25, 0.0, 0.0}, shift_y[3] = {0.0, 0.3, 0.0};
  switch (type) {
    case CLT_JOINT_SPHERICAL:
      move(id, pivot, ey, 0.7, zero); /* any rotation about the pivot is allowed */
      CHECK_LE(joint_error(), 1e-14);
      move(id, pivot, ez, 0.0, shift_y);
      CHECK_NEAR(joint_error(), 0.3, 1e-14);
      break;
    case CLT_JOINT_REVOLUTE:
      move(id, pivot, ex, 1.1, zero); /* about the hinge axis: allowed */
      CHECK_LE(joint_error(), 1e-14);
      move(id, pivot, ez, 0.2, zero); /* tilt: axis misalignment sin 0.2 */
      CHECK_NEAR(joint_error(), sin(0.2), 1e-14);
      break;
    case CLT_JOINT_PRISMATIC:
      move(id, pivot, ex, 0.0, shift_x); /* along the axis: allowed */
      CHECK_LE(joint_error(), 1e-14);
      move(id, pivot, ez, 0.0, shift_y); /* across: violation 0.3 */
      CHECK_NEAR(joint_error(), 0.3, 1e-14);
      move(id, pivot, ez, 0.0, (double[3]){0.0, -0.3, 0.0});
      move(id, pivot, ex, 0.1, zero); /* twist about the axis: rotation error 2 sin(0.05) */
      CHECK_NEAR(joint_error(), 2.0 * sin(0.05), 1e-14);
      break;
    case CLT_JOINT_FIXED:
      move(id, pivot, ey, 0.1, zero);
      CHECK_NEAR(joint_error(), 2.0 * sin(0.05), 1e-14);
      break;
    case CLT_JOINT_DISTANCE:
      move(id, pivot, ez, 0.9, zero);
      CHECK_LE(joint_error(), 1e-14);
      break;
    default:
      break;
  }
  printf("%s: ok (initial |Θ| %.3g)\n", name, e0);
  clt_world_destroy(w);
}

static void test_distance_2d(void) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.gravity[2] = 0.0;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = 1.0;
  clt_body_id_t a, b;
  CHECK(clt_world_add_body(w, &bd, &a) == CLT_OK);
  bd.position[0] = 2.5;
  CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_DISTANCE);
  jd.body_a = a;
  jd.body_b = b;
  jd.distance = 2.0;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  CHECK_NEAR(joint_error(), 0.5, 1e-15);
  /* 2D pin to the ground at world (0, 1) with anchor (0, 1) on a: Θ = 0; turn a by 90°: the
   * anchor goes to (−1, 0), Θ = (−1, −1) */
  jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = a;
  jd.anchor_a[1] = 1.0;
  jd.anchor_b[1] = 1.0;
  jd.distance = 0.0;
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  CHECK_NEAR(joint_error(), 0.5, 1e-15);
  clt_body_state_t s;
  clt_body_get_state(w, a, &s);
  s.angle = CLT_PI / 2.0;
  clt_body_set_state(w, a, &s);
  CHECK_NEAR(joint_error(), 1.0, 1e-15);
  clt_world_destroy(w);
}

static uint64_t rng = 88172645463325252ull;
static double uniform(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Moves every dynamic body along its velocity for time eps: x + eps u, r ⊗ exp(eps ω). */
static void displace(const clt_body_state_t *base, double eps) {
  for (int i = 0; i < w->body_count; i++) {
    clt_body_state_t s = base[i];
    clt_v3_axpy(s.position, s.position, eps, s.velocity);
    if (w->dimension == 2)
      s.angle += eps * s.angular_velocity[0];
    else
      clt_q_integrate(s.orientation, s.orientation, s.angular_velocity, eps);
    w->states[i] = s;
  }
}

static void rows_vs_finite_differences(int dim, clt_joint_type_t type, bool ground) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  if (dim == 2) wd.gravity[2] = 0.0;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_body_id_t a, b = clt_world_ground();
  if (dim == 3) {
    a = composite_body();
  } else {
    clt_shape_def_t s[2] = {clt_default_shape_def(CLT_SHAPE_DISK), clt_default_shape_def(CLT_SHAPE_DISK)};
    s[1].local_position[0] = 0.9;
    clt_body_def_t bd = clt_default_body_def();
    bd.shapes = s;
    bd.shape_count = 2;
    CHECK(clt_world_add_body(w, &bd, &a) == CLT_OK);
  }
  if (!ground) {
    clt_body_def_t bd = clt_default_body_def();
    bd.mass = 2.0;
    bd.inertia[0] = 0.5;
    if (dim == 3) {
      bd.inertia[1] = 0.7;
      bd.inertia[2] = 0.9;
    }
    bd.position[0] = 2.0;
    bd.position[1] = 0.5;
    CHECK(clt_world_add_body(w, &bd, &b) == CLT_OK);
  }
  clt_joint_def_t jd = clt_default_joint_def(type);
  jd.body_a = a;
  jd.body_b = b;
  jd.anchor_a[0] = 0.3;
  jd.anchor_a[1] = -0.2;
  jd.anchor_b[0] = ground ? 1.0 : -0.4;
  jd.anchor_b[1] = 0.25;
  if (dim == 3) {
    jd.anchor_a[2] = 0.1;
    jd.anchor_b[2] = 0.6;
    jd.axis_a[0] = 0.3;
    jd.axis_b[1] = -0.2;
  } else if (type == CLT_JOINT_PRISMATIC) { /* a 2D slider's axis lies in the plane */
    jd.axis_a[0] = 0.6;
    jd.axis_a[1] = 0.8;
    jd.axis_a[2] = 0.0;
  }
  CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
  const clt_joint_rec_t *joint = &w->joints[0];
  double worst = 0.0, scale = 0.0;
  for (int trial = 0; trial < 20; trial++) {
    /* a random configuration and velocity (the joint need not be satisfied) */
    clt_body_state_t base[2];
    for (int i = 0; i < w->body_count; i++) {
      clt_body_state_t *s = &w->states[i];
      for (int k = 0; k < dim; k++) {
        s->position[k] += 0.3 * uniform();
        s->velocity[k] = uniform();
      }
      if (dim == 2) {
        s->angle = 3.0 * uniform();
        s->angular_velocity[0] = uniform();
      } else {
        double th[3] = {uniform(), uniform(), uniform()}, q[4];
        clt_q_exp(q, th);
        clt_q_mul(s->orientation, s->orientation, q);
        for (int k = 0; k < 3; k++) s->angular_velocity[k] = uniform();
      }
      base[i] = *s;
    }
    clt_jacobian_row_t rows[7];
    double th0[7], thp[7], thm[7], rate0 = 0.0;
    int n = clt_joint_rows(w, joint, rows);
    int m = clt_joint_constraint(w, joint, th0);
    CHECK(n == m);
    /* and the coordinate's row (docs/actuation.md: the direction of limits and motors) as one more,
     * against its own rate: exact in any configuration for sliders and 2D pins (a 3D hinge's angle
     * rate a·(ω_B − ω_A) is exact only where its axes are aligned, which a random pose is not) */
    bool coordinate = !(dim == 3 && type == CLT_JOINT_REVOLUTE) && clt_joint_coordinate_row(w, joint, &rows[n]) &&
                      clt_joint_coordinate(w, joint, &th0[n], &rate0);
    double eps = 1e-6;
    displace(base, eps);
    clt_joint_constraint(w, joint, thp);
    if (coordinate) clt_joint_coordinate(w, joint, &thp[n], &rate0);
    displace(base, -eps);
    clt_joint_constraint(w, joint, thm);
    if (coordinate) clt_joint_coordinate(w, joint, &thm[n], &rate0);
    displace(base, 0.0);
    if (coordinate) n++;
    for (int r = 0; r < n; r++) {
      double fd = (thp[r] - thm[r]) / (2.0 * eps), rate = 0.0;
      const clt_body_state_t *sa = &base[0];
      int na = dim == 3 ? 3 : 1;
      for (int k = 0; k < 3; k++) rate += rows[r].linear_a[k] * sa->velocity[k];
      for (int k = 0; k < na; k++) rate += rows[r].angular_a[k] * sa->angular_velocity[k];
      if (!ground) {
        const clt_body_state_t *sb = &base[1];
        for (int k = 0; k < 3; k++) rate += rows[r].linear_b[k] * sb->velocity[k];
        for (int k = 0; k < na; k++) rate += rows[r].angular_b[k] * sb->angular_velocity[k];
      }
      worst = fmax(worst, fabs(rate - fd));
      scale = fmax(scale, fabs(fd));
    }
  }
  printf("%dD %s%s: rows (and the coordinate's) vs finite differences max |ν·v − dΘ/dt| = %.3g (|dΘ/dt| up to %.3g)\n", dim,
         clt_joint_type_name(type), ground ? " to ground" : "", worst, scale);
  CHECK_LE(worst, 1e-8);
  CHECK(scale > 0.1);
  clt_world_destroy(w);
}

int main(void) {
  for (int g = 0; g < 2; g++) {
    rows_vs_finite_differences(2, CLT_JOINT_REVOLUTE, g);
    rows_vs_finite_differences(2, CLT_JOINT_PRISMATIC, g);
    rows_vs_finite_differences(2, CLT_JOINT_DISTANCE, g);
    for (int t = 0; t < CLT_JOINT_TYPE_COUNT; t++) rows_vs_finite_differences(3, (clt_joint_type_t)t, g);
  }
  test_3d(CLT_JOINT_SPHERICAL, "spherical");
  test_3d(CLT_JOINT_REVOLUTE, "revolute");
  test_3d(CLT_JOINT_PRISMATIC, "prismatic");
  test_3d(CLT_JOINT_FIXED, "fixed");
  test_3d(CLT_JOINT_DISTANCE, "distance");
  test_distance_2d();
  return clt_test_finish();
}
