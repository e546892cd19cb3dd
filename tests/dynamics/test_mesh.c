/* Triangle-mesh environments ([shapes], docs/shapes.md "Meshes"), with the default method:
 *  - a box sliding over a flat mesh of many triangles, across their edges and vertices: no spurious
 *    impulse at an edge (the largest vertical speed during the slide < 1e-6 m/s), and it stops where
 *    it would on a half-space;
 *  - a ball rolling in a spherical bowl made of triangles oscillates with the period of a ball
 *    rolling in a sphere, T = 2π √(7 (R − r) / (5 g)), within 1 % (the tessellation is reported);
 *  - bad meshes are refused naming the triangle or edge. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

static const double PI = 3.14159265358979323846, G = 9.81;

/* A flat square of side 2 L centred at the origin, n × n cells, each split into two triangles along
 * alternating diagonals. */
static clt_mesh_t *flat_mesh(int n, double L) {
  int nv = (n + 1) * (n + 1), nt = 2 * n * n;
  double(*v)[3] = malloc((size_t)nv * sizeof *v);
  int(*t)[3] = malloc((size_t)nt * sizeof *t);
  for (int j = 0; j <= n; j++)
    for (int i = 0; i <= n; i++) {
      v[j * (n + 1) + i][0] = -L + 2 * L * i / n;
      v[j * (n + 1) + i][1] = -L + 2 * L * j / n;
      v[j * (n + 1) + i][2] = 0;
    }
  int k = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      int a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      if ((i + j) % 2) {
        t[k][0] = a, t[k][1] = b, t[k][2] = d, k++;
        t[k][0] = a, t[k][1] = d, t[k][2] = c, k++;
      } else {
        t[k][0] = a, t[k][1] = b, t[k][2] = c, k++;
        t[k][0] = b, t[k][1] = d, t[k][2] = c, k++;
      }
    }
  clt_mesh_t *m = NULL;
  char msg[256];
  CHECK(clt_mesh_create((const double(*)[3])v, nv, (const int(*)[3])t, nt, &m, msg, sizeof msg) == CLT_OK);
  free(v);
  free(t);
  return m;
}

static double slide(bool on_mesh, double *max_vz, double *final_x) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = 1e-3;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_material_def_t md = clt_default_material_def();
  md.friction = 0.2;
  int mat;
  CHECK(clt_world_add_material(w, &md, &mat) == CLT_OK);
  clt_shape_def_t ground = clt_default_shape_def(on_mesh ? CLT_SHAPE_MESH : CLT_SHAPE_HALFSPACE);
  clt_mesh_t *m = on_mesh ? flat_mesh(40, 4.0) : NULL;
  ground.mesh = m;
  ground.material = mat;
  clt_body_def_t gd = clt_default_body_def();
  gd.type = CLT_BODY_STATIC;
  gd.shapes = &ground;
  gd.shape_count = 1;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
  clt_mesh_release(m);
  clt_shape_def_t box = clt_default_shape_def(CLT_SHAPE_BOX);
  box.half_extents[0] = box.half_extents[1] = 0.25;
  box.half_extents[2] = 0.1;
  box.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[0] = -2.0;
  bd.position[1] = -0.37;
  bd.position[2] = 0.1;
  bd.velocity[0] = 2.5;
  bd.velocity[1] = 0.9;
  double yaw = 0.3;
  bd.orientation[0] = cos(0.5 * yaw);
  bd.orientation[3] = sin(0.5 * yaw);
  bd.shapes = &box;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  *max_vz = 0;
  double max_w = 0;
  for (int k = 0; k < 2000; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t st;
    clt_body_get_state(w, id, &st);
    *max_vz = fmax(*max_vz, fabs(st.velocity[2]));
    max_w = fmax(max_w, hypot(st.angular_velocity[0], st.angular_velocity[1]));
  }
  clt_body_state_t st;
  clt_body_get_state(w, id, &st);
  *final_x = st.position[0];
  clt_world_destroy(w);
  return max_w;
}

static void flat_slide(void) {
  double vz_mesh, vz_plane, x_mesh, x_plane;
  double w_mesh = slide(true, &vz_mesh, &x_mesh);
  slide(false, &vz_plane, &x_plane);
  printf("box sliding over a flat mesh of 3200 triangles: largest |v_z| %.2e m/s, largest tilt rate %.2e rad/s; "
         "stops at x = %.9f m (on a half-space %.9f, |v_z| %.2e)\n",
         vz_mesh, w_mesh, x_mesh, x_plane, vz_plane);
  CHECK_LE(vz_mesh, 1e-6);
  CHECK_LE(w_mesh, 1e-5);
  CHECK_NEAR(x_mesh, x_plane, 1e-6);
}

/* The inside of a sphere of radius R below z = R·cos(cap) (a bowl), latitude rings × longitude
 * segments, triangles facing the centre. */
static clt_mesh_t *bowl_mesh(double R, int rings, int segments, double cap) {
  int nv = 1 + rings * segments, nt = segments + 2 * segments * (rings - 1);
  double(*v)[3] = malloc((size_t)nv * sizeof *v);
  int(*t)[3] = malloc((size_t)nt * sizeof *t);
  v[0][0] = v[0][1] = 0;
  v[0][2] = -R;
  for (int i = 1; i <= rings; i++) {
    double th = cap * i / rings; /* polar angle from the bottom */
    for (int j = 0; j < segments; j++) {
      double ph = 2 * PI * j / segments;
      double *x = v[1 + (i - 1) * segments + j];
      x[0] = R * sin(th) * cos(ph);
      x[1] = R * sin(th) * sin(ph);
      x[2] = -R * cos(th);
    }
  }
  int k = 0;
  for (int j = 0; j < segments; j++) { /* facing up (towards the centre): counter-clockwise from above */
    t[k][0] = 0, t[k][1] = 1 + j, t[k][2] = 1 + (j + 1) % segments, k++;
  }
  for (int i = 1; i < rings; i++)
    for (int j = 0; j < segments; j++) {
      int a = 1 + (i - 1) * segments + j, b = 1 + (i - 1) * segments + (j + 1) % segments;
      int c = a + segments, d = b + segments;
      t[k][0] = a, t[k][1] = c, t[k][2] = d, k++;
      t[k][0] = a, t[k][1] = d, t[k][2] = b, k++;
    }
  clt_mesh_t *m = NULL;
  char msg[256] = "";
  clt_status_t s = clt_mesh_create((const double(*)[3])v, nv, (const int(*)[3])t, nt, &m, msg, sizeof msg);
  if (s != CLT_OK) printf("bowl: %s\n", msg);
  CHECK(s == CLT_OK);
  free(v);
  free(t);
  return m;
}

static void bowl(void) {
  const double R = 1.0, r = 0.1, theta0 = 0.12, h = 1e-3;
  const int rings = 120, segments = 360;
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_mesh_t *m = bowl_mesh(R, rings, segments, 0.5 * PI * 0.8);
  clt_shape_def_t shape = clt_default_shape_def(CLT_SHAPE_MESH);
  shape.mesh = m;
  clt_body_def_t gd = clt_default_body_def();
  gd.type = CLT_BODY_STATIC;
  gd.shapes = &shape;
  gd.shape_count = 1;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
  int triangles = clt_mesh_triangle_count(m);
  clt_mesh_release(m);
  clt_shape_def_t ball = clt_default_shape_def(CLT_SHAPE_SPHERE);
  ball.radius = r;
  clt_body_def_t bd = clt_default_body_def();
  /* at rest, θ0 up the bowl, touching its inner surface (the facets lie inside the sphere, below it) */
  bd.position[0] = (R - r) * sin(theta0);
  bd.position[2] = -(R - r) * cos(theta0);
  bd.shapes = &ball;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  double last_x = bd.position[0], crossings[16];
  int nc = 0;
  for (int k = 0; k < 20000 && nc < 5; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t st;
    clt_body_get_state(w, id, &st);
    if ((last_x > 0) != (st.position[0] > 0)) /* linear interpolation of the zero crossing */
      crossings[nc++] = h * (k + last_x / (last_x - st.position[0]));
    last_x = st.position[0];
  }
  clt_world_destroy(w);
  CHECK(nc == 5);
  if (nc < 5) return;
  double period = (crossings[4] - crossings[0]) / 2.0;
  /* small oscillations of a rolling ball in a sphere; the amplitude's correction (1 + θ0²/16) */
  double expect = 2 * PI * sqrt(7.0 * (R - r) / (5.0 * G)) * (1 + theta0 * theta0 / 16.0);
  printf("ball (r = %.2f) rolling in a bowl (R = %.1f) of %d triangles (%d rings x %d segments): period %.5f s, "
         "2 pi sqrt(7 (R - r)/(5 g)) (1 + theta0^2/16) = %.5f s (%.3f %%)\n",
         r, R, triangles, rings, segments, period, expect, 100 * (period / expect - 1));
  CHECK_LE(fabs(period / expect - 1), 0.01);
}

static void bad_meshes(void) {
  double v[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}};
  int nonmanifold[3][3] = {{0, 1, 2}, {1, 0, 3}, {0, 1, 4}};
  clt_mesh_t *m = NULL;
  char msg[256];
  CHECK(clt_mesh_create((const double(*)[3])v, 5, (const int(*)[3])nonmanifold, 3, &m, msg, sizeof msg) ==
        CLT_ERR_INVALID_ARGUMENT);
  printf("non-manifold: %s\n", msg);
  CHECK(strstr(msg, "not a manifold") != NULL && m == NULL);
  int flipped[2][3] = {{0, 1, 2}, {0, 1, 3}};
  CHECK(clt_mesh_create((const double(*)[3])v, 5, (const int(*)[3])flipped, 2, &m, msg, sizeof msg) ==
        CLT_ERR_INVALID_ARGUMENT);
  printf("winding: %s\n", msg);
  CHECK(strstr(msg, "windings disagree") != NULL);
  int flat[1][3] = {{0, 1, 1}};
  CHECK(clt_mesh_create((const double(*)[3])v, 5, (const int(*)[3])flat, 1, &m, msg, sizeof msg) ==
        CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(msg, "triangle 0 has no area") != NULL);
  /* a mesh on a dynamic body is refused */
  int one[1][3] = {{0, 1, 2}};
  CHECK(clt_mesh_create((const double(*)[3])v, 5, (const int(*)[3])one, 1, &m, msg, sizeof msg) == CLT_OK);
  clt_world_def_t wd = clt_default_world_def();
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_MESH);
  s.mesh = m;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &s;
  bd.shape_count = 1;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  printf("dynamic mesh: %s\n", clt_world_error(w));
  clt_world_destroy(w);
  clt_mesh_release(m);
}

/* A cylinder rolling down a flat mesh (gravity turned by 20°): a = (2/3) g sin θ; an ellipsoid at rest
 * on it with its contact under its centre (the curved pairs through support functions). */
static void curved_on_mesh(void) {
  const double theta = 20.0 * PI / 180.0, r = 0.2, h = 1e-3;
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  wd.gravity[0] = G * sin(theta);
  wd.gravity[2] = -G * cos(theta);
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_mesh_t *m = flat_mesh(40, 8.0);
  clt_shape_def_t ground = clt_default_shape_def(CLT_SHAPE_MESH);
  ground.mesh = m;
  clt_body_def_t gd = clt_default_body_def();
  gd.type = CLT_BODY_STATIC;
  gd.shapes = &ground;
  gd.shape_count = 1;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
  clt_mesh_release(m);
  clt_shape_def_t cyl = clt_default_shape_def(CLT_SHAPE_CYLINDER), ell = clt_default_shape_def(CLT_SHAPE_ELLIPSOID);
  cyl.radius = r;
  cyl.length = 0.5;
  ell.semi_axes[0] = 0.3, ell.semi_axes[1] = 0.2, ell.semi_axes[2] = 0.1;
  clt_body_def_t bd = clt_default_body_def();
  double s = sqrt(0.5);
  bd.position[0] = -6.0, bd.position[1] = -0.13, bd.position[2] = r;
  bd.orientation[0] = s, bd.orientation[1] = s; /* axis along y */
  bd.shapes = &cyl;
  bd.shape_count = 1;
  clt_body_id_t c;
  CHECK(clt_world_add_body(w, &bd, &c) == CLT_OK);
  int steps = 1000;
  double max_vz = 0;
  for (int k = 0; k < steps; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t st;
    clt_body_get_state(w, c, &st);
    max_vz = fmax(max_vz, fabs(st.velocity[2]));
  }
  clt_body_state_t st;
  clt_body_get_state(w, c, &st);
  double a = 2.0 * (st.position[0] + 6.0) / (h * h * steps * (steps + 1.0)), expect = 2.0 / 3.0 * G * sin(theta);
  printf("cylinder rolling down a flat mesh (20 deg): a = %.6f m/s^2, (2/3) g sin(theta) = %.6f (%.3f %%), largest "
         "|v_z| %.2e m/s, height %.9f m\n", a, expect, 100 * (a / expect - 1), max_vz, st.position[2]);
  CHECK_LE(fabs(a / expect - 1), 0.005);
  CHECK_LE(fabs(st.position[2] - r), 1e-6);
  /* Known (docs/shapes.md "Meshes"): crossing the cells' edges, the side manifold misses one end for
   * single steps and the cylinder hops by up to 2.3e-3 m/s; this bound keeps it from growing. */
  CHECK_LE(max_vz, 5e-3);
  clt_world_destroy(w);
  /* the ellipsoid, level ground */
  wd.gravity[0] = 0, wd.gravity[2] = -G;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  m = flat_mesh(10, 2.0);
  ground.mesh = m;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
  clt_mesh_release(m);
  clt_body_def_t ed = clt_default_body_def();
  ed.position[0] = 0.13, ed.position[1] = 0.21, ed.position[2] = 0.1 + 1e-4;
  ed.shapes = &ell;
  ed.shape_count = 1;
  clt_body_id_t e;
  CHECK(clt_world_add_body(w, &ed, &e) == CLT_OK);
  for (int k = 0; k < 500; k++) CHECK(clt_world_step(w) == CLT_OK);
  clt_body_get_state(w, e, &st);
  double off = 0;
  for (int i = 0; i < clt_world_contact_count(w); i++) {
    clt_contact_info_t ci;
    clt_world_get_contact(w, i, &ci);
    off = fmax(off, hypot(ci.point[0] - st.position[0], ci.point[1] - st.position[1]));
  }
  printf("ellipsoid at rest on a mesh: height %.9f m, speed %.2e m/s, contact %.2e m from under its centre\n",
         st.position[2], hypot(hypot(st.velocity[0], st.velocity[1]), st.velocity[2]), off);
  CHECK_NEAR(st.position[2], 0.1, 1e-6);
  CHECK_LE(off, 1e-6);
  CHECK(clt_world_contact_count(w) >= 1);
  clt_world_destroy(w);
}

int main(void) {
  bad_meshes();
  curved_on_mesh();
  flat_slide();
  bowl();
  return clt_test_finish();
}
