/* Cylinders ([shapes], docs/shapes.md), with the default method:
 *  - rolling down an incline without slipping: the centre accelerates at a = (2/3) g sin θ (a solid
 *    cylinder, I = m r²/2), measured over 1 s (x_N = a h² N(N + 1)/2 of the step), within 0.5 %;
 *  - standing on a flat end on a slope with friction enough not to slide: it stands below the
 *    tipping angle atan(2r/L) and tips above it, within 1° (bisection on the slope angle);
 *  - standing on its end and lying on its side on a box, and on its end on a polyhedron: at rest
 *    (the cap and side manifolds on a face, convex_smooth.c).
 * The incline is the ground tilted by turning gravity: the same contact geometry. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

static const double G = 9.81, PI = 3.14159265358979323846;

static clt_world_t *make_world(double slope, double friction, double h) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  wd.gravity[0] = G * sin(slope);
  wd.gravity[1] = 0.0;
  wd.gravity[2] = -G * cos(slope);
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_material_def_t md = clt_default_material_def();
  md.friction = friction;
  int mat = -1;
  CHECK(clt_world_add_material(w, &md, &mat) == CLT_OK);
  clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  plane.material = mat;
  clt_body_def_t gd = clt_default_body_def();
  gd.type = CLT_BODY_STATIC;
  gd.shapes = &plane;
  gd.shape_count = 1;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
  return w;
}

static clt_body_id_t add_cylinder(clt_world_t *w, double r, double len, const double pos[3], const double q[4]) {
  clt_shape_def_t c = clt_default_shape_def(CLT_SHAPE_CYLINDER);
  c.radius = r;
  c.length = len;
  c.material = 0;
  clt_body_def_t bd = clt_default_body_def();
  memcpy(bd.position, pos, sizeof bd.position);
  memcpy(bd.orientation, q, sizeof bd.orientation);
  bd.shapes = &c;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  return id;
}

static void rolling(void) {
  const double theta = 20.0 * PI / 180.0, r = 0.2, len = 0.5, h = 1e-3;
  clt_world_t *w = make_world(theta, 0.5, h);
  double s = sqrt(0.5), q[4] = {s, s, 0, 0}; /* axis along y */
  double pos[3] = {0, 0, r};
  clt_body_id_t id = add_cylinder(w, r, len, pos, q);
  int steps = 1000;
  double max_vz = 0, max_slip = 0;
  for (int k = 0; k < steps; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t st;
    clt_body_get_state(w, id, &st);
    max_vz = fmax(max_vz, fabs(st.velocity[2]));
    /* the contact point's velocity along the slope: v_x + ω_y r (ω in the world frame) */
    double qw = st.orientation[0], qx = st.orientation[1], qy = st.orientation[2], qz = st.orientation[3];
    double wb[3] = {st.angular_velocity[0], st.angular_velocity[1], st.angular_velocity[2]};
    double R[3][3] = {{1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy)},
                      {2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx)},
                      {2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx * qx + qy * qy)}};
    double wy = R[1][0] * wb[0] + R[1][1] * wb[1] + R[1][2] * wb[2];
    max_slip = fmax(max_slip, fabs(st.velocity[0] - wy * r));
  }
  clt_body_state_t st;
  clt_body_get_state(w, id, &st);
  /* The semi-implicit Euler step puts the centre at x_N = a h² N(N + 1)/2 under a constant a. */
  double a = 2.0 * st.position[0] / (h * h * steps * (steps + 1.0)), expect = 2.0 / 3.0 * G * sin(theta);
  printf("rolling cylinder on a 20 deg incline: a = %.6f m/s^2, (2/3) g sin(theta) = %.6f (%.3f %%), largest "
         "|v_z| %.2e m/s, largest slip speed %.2e m/s, height %.9f m\n",
         a, expect, 100 * (a / expect - 1), max_vz, max_slip, st.position[2]);
  CHECK_LE(fabs(a / expect - 1), 0.005);
  CHECK_LE(fabs(st.position[2] - r), 1e-6);
  clt_world_destroy(w);
}

/* Whether a cylinder standing on its end on a slope of `deg` degrees tips within 2 s. */
static bool tips(double deg, double r, double len) {
  clt_world_t *w = make_world(deg * PI / 180.0, 2.0, 2e-3);
  double q[4] = {1, 0, 0, 0}, pos[3] = {0, 0, 0.5 * len};
  clt_body_id_t id = add_cylinder(w, r, len, pos, q);
  double tilt = 0;
  for (int k = 0; k < 1000; k++) {
    if (clt_world_step(w) != CLT_OK) break;
    clt_body_state_t st;
    clt_body_get_state(w, id, &st);
    double qx = st.orientation[1], qy = st.orientation[2];
    double az = 1 - 2 * (qx * qx + qy * qy); /* the axis's z component */
    tilt = fmax(tilt, acos(fmin(1.0, fabs(az))));
  }
  clt_world_destroy(w);
  return tilt > 10.0 * PI / 180.0;
}

static void tipping(void) {
  const double r = 0.25, len = 1.0, expect = atan(2 * r / len) * 180.0 / PI;
  double lo = expect - 5, hi = expect + 5;
  CHECK(!tips(lo, r, len));
  CHECK(tips(hi, r, len));
  for (int it = 0; it < 8; it++) {
    double mid = 0.5 * (lo + hi);
    if (tips(mid, r, len))
      hi = mid;
    else
      lo = mid;
  }
  printf("cylinder on its end (r = %.2f, L = %.2f): tips between %.3f and %.3f deg; atan(2r/L) = %.3f deg\n", r, len,
         lo, hi, expect);
  CHECK_LE(fabs(0.5 * (lo + hi) - expect), 1.0);
}

static void on_faces(void) {
  clt_world_t *w = make_world(0.0, 0.5, 1e-3);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = box.half_extents[1] = 1.0;
  box.half_extents[2] = 0.25;
  clt_body_def_t bd = clt_default_body_def();
  bd.type = CLT_BODY_STATIC;
  bd.position[2] = 0.25;
  bd.shapes = &box;
  bd.shape_count = 1;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_OK);
  /* an octagonal prism as a polyhedron, beside the box */
  double pts[16][3];
  for (int i = 0; i < 16; i++) {
    double a = (i % 8) * PI / 4 + 0.3;
    pts[i][0] = 0.6 * cos(a);
    pts[i][1] = 0.6 * sin(a);
    pts[i][2] = i < 8 ? -0.25 : 0.25;
  }
  clt_convex_t *prism = NULL;
  CHECK(clt_convex_from_points((const double(*)[3])pts, 16, &prism, NULL, 0) == CLT_OK);
  clt_shape_def_t ps = clt_default_shape_def(CLT_SHAPE_POLYHEDRON);
  ps.convex = prism;
  bd.position[0] = 3.0;
  bd.shapes = &ps;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_OK);
  clt_convex_release(prism);
  double up[4] = {1, 0, 0, 0}, s = sqrt(0.5), side[4] = {s, s, 0, 0};
  double p1[3] = {0.3, -0.4, 0.5 + 0.3 + 1e-4}, p2[3] = {-0.3, 0.4, 0.5 + 0.15 + 1e-4}, p3[3] = {3.0, 0.1, 0.5 + 0.3 + 1e-4};
  clt_body_id_t a = add_cylinder(w, 0.15, 0.6, p1, up), b = add_cylinder(w, 0.15, 0.6, p2, side),
                c = add_cylinder(w, 0.15, 0.6, p3, up);
  double worst_v = 0, worst_w = 0;
  for (int k = 0; k < 2000; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    if (k < 200) continue; /* landing from 0.1 mm */
    clt_body_id_t ids[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
      clt_body_state_t st;
      clt_body_get_state(w, ids[i], &st);
      if (getenv("CLT_CYL_VERBOSE") && fabs(st.velocity[0]) + fabs(st.velocity[1]) + fabs(st.velocity[2]) > 1e-6)
      {
        printf("  k %d cyl %d v (%.2e %.2e %.2e) w (%.2e %.2e %.2e)\n", k, i, st.velocity[0], st.velocity[1], st.velocity[2],
               st.angular_velocity[0], st.angular_velocity[1], st.angular_velocity[2]);
        for (int j = 0; j < clt_world_contact_count(w); j++) {
          clt_contact_info_t ci;
          clt_world_get_contact(w, j, &ci);
          printf("    %d-%d phi %.3e n (%.3f %.3f %.3f) p (%.3f %.3f %.3f) cn %.3e\n", ci.body_a, ci.body_b, ci.distance,
                 ci.normal[0], ci.normal[1], ci.normal[2], ci.point[0], ci.point[1], ci.point[2], ci.normal_impulse);
        }
      }
      worst_v = fmax(worst_v, sqrt(st.velocity[0] * st.velocity[0] + st.velocity[1] * st.velocity[1] + st.velocity[2] * st.velocity[2]));
      worst_w = fmax(worst_w, sqrt(st.angular_velocity[0] * st.angular_velocity[0] + st.angular_velocity[1] * st.angular_velocity[1] +
                                   st.angular_velocity[2] * st.angular_velocity[2]));
    }
  }
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  printf("cylinders on their end and side on a box and on a polyhedron, t = 0.2 to 2 s: largest speed %.2e m/s, "
         "angular speed %.2e rad/s; contacts %d, penetration %.2e m\n",
         worst_v, worst_w, d.contacts, d.penetration);
  CHECK_LE(worst_v, 1e-6);
  CHECK_LE(worst_w, 1e-5);
  CHECK(d.contacts >= 4 + 2 + 4);
  CHECK_LE(d.penetration, 1e-6);
  clt_world_destroy(w);
}

/* A stack of 8 coins (r = 0.05 m, 1 cm thick), each up to 8 mm off the one below and turned, on the
 * floor, with a log lying across the top coin: cap on cap and cap on side manifolds (docs/shapes.md
 * "Contacts"). With a single point per pair the coins would rock and the stack fall; it stands, at
 * rest. (Parallel sides: tests/collision/test_cylinder_pairs.c.) */
static void coin_stack(void) {
  clt_world_t *w = make_world(0.0, 0.5, 1e-3);
  clt_body_id_t ids[9];
  for (int i = 0; i < 8; i++) {
    double turn = 0.7 * i, q[4] = {cos(turn / 2), 0, 0, sin(turn / 2)};
    double p[3] = {0.008 * (i % 3) - 0.008, 0.004 * (i % 2), 0.005 + 0.01 * i}; /* exactly touching */
    ids[i] = add_cylinder(w, 0.05, 0.01, p, q);
  }
  double s = sqrt(0.5), across[4] = {s, 0, s, 0};
  double p8[3] = {0.0, 0.0, 0.08 + 0.02};
  ids[8] = add_cylinder(w, 0.02, 0.2, p8, across); /* a log across the top coin, axis x */
  double worst_v = 0, worst_w = 0, start[9][3];
  for (int i = 0; i < 9; i++) {
    clt_body_state_t st;
    clt_body_get_state(w, ids[i], &st);
    memcpy(start[i], st.position, sizeof start[i]);
  }
  for (int k = 0; k < 1500; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    if (k < 300) continue;
    for (int i = 0; i < 8; i++) { /* the coins (the log on top can roll: a neutral mode) */
      clt_body_state_t st;
      clt_body_get_state(w, ids[i], &st);
      worst_v = fmax(worst_v, sqrt(st.velocity[0] * st.velocity[0] + st.velocity[1] * st.velocity[1] +
                                   st.velocity[2] * st.velocity[2]));
      worst_w = fmax(worst_w, sqrt(st.angular_velocity[0] * st.angular_velocity[0] +
                                   st.angular_velocity[1] * st.angular_velocity[1] +
                                   st.angular_velocity[2] * st.angular_velocity[2]));
    }
  }
  double moved = 0, log_height = 0;
  for (int i = 0; i < 9; i++) {
    clt_body_state_t st;
    clt_body_get_state(w, ids[i], &st);
    if (i < 8) moved = fmax(moved, hypot(st.position[0] - start[i][0], st.position[1] - start[i][1]));
    else log_height = fabs(st.position[2] - start[i][2]);
  }
  clt_diagnostics_t d;
  clt_world_get_diagnostics(w, &d);
  printf("8 coins, offset and turned, a log across the top, t = 0.3 to 1.5 s: coins' largest speed %.2e m/s, "
         "angular speed %.2e rad/s, horizontal drift %.2e m; the log's height changed %.2e m; contacts %d, "
         "penetration %.2e m\n",
         worst_v, worst_w, moved, log_height, d.contacts, d.penetration);
  CHECK_LE(log_height, 1e-9);
  CHECK_LE(worst_v, 1e-6);
  CHECK_LE(worst_w, 1e-4);
  CHECK_LE(moved, 1e-6);
  CHECK(d.contacts >= 4 * 8 + 2);
  CHECK_LE(d.penetration, 1e-6);
  clt_world_destroy(w);
}

int main(void) {
  coin_stack();
  rolling();
  on_faces();
  tipping();
  return clt_test_finish();
}
