/* Polyhedron and cylinder bodies ([shapes], docs/shapes.md):
 *  - mass properties: a hulled tetrahedron (with points inside and on its faces, which the hull
 *    drops) and a cube given by faces against the closed forms, to 1e-12; a cylinder likewise;
 *  - a cube given as an 8-vertex polyhedron behaves like the box shape: a tower of 10 cubes dropped
 *    with small offsets, turns and tilts follows the box tower's trajectory to 1e-9 m over 500
 *    steps (the polyhedron pairs build the same manifolds as box–box and box–half-space);
 *  - bad polyhedra are refused with the face or vertex named. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

static const double cube_points[8][3] = {{-.5, -.5, -.5}, {.5, -.5, -.5}, {-.5, .5, -.5}, {.5, .5, -.5},
                                         {-.5, -.5, .5},  {.5, -.5, .5},  {-.5, .5, .5},  {.5, .5, .5}};

static double rel(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-300); }

static void mass_properties(void) {
  /* Right tetrahedron (0,0,0), (a,0,0), (0,b,0), (0,0,c): V = abc/6, centroid (a, b, c)/4, and about
   * the centroid I_xx = 3m(b² + c²)/80, I_xy = m ab/80 (the tensor's off-diagonal is −∫xy dm). */
  double a = 0.3, b = 0.7, c = 1.1;
  double pts[12][3] = {{0, 0, 0}, {a, 0, 0}, {0, b, 0}, {0, 0, c}, {a / 4, b / 4, c / 4}, {a / 2, b / 2, 0},
                       {a / 3, 0, c / 3}, {0.01, 0.02, 0.03}, {a / 5, b / 5, c / 5}, {0, b / 2, c / 2},
                       {a / 2, 0, 0}, {0.05, 0.05, 0.05}};
  clt_convex_t *t = NULL;
  char msg[256] = "";
  CHECK(clt_convex_from_points((const double(*)[3])pts, 12, &t, msg, sizeof msg) == CLT_OK);
  if (!t) return;
  CHECK(clt_convex_vertex_count(t) == 4 && clt_convex_face_count(t) == 4 && clt_convex_edge_count(t) == 6);
  double g[3], inertia[3][3];
  double v = clt_convex_volume(t, g, inertia), m = v; /* unit density */
  double worst = rel(v, a * b * c / 6);
  worst = fmax(worst, fmax(rel(g[0], a / 4), fmax(rel(g[1], b / 4), rel(g[2], c / 4))));
  worst = fmax(worst, rel(inertia[0][0], 3 * m * (b * b + c * c) / 80));
  worst = fmax(worst, rel(inertia[1][1], 3 * m * (a * a + c * c) / 80));
  worst = fmax(worst, rel(inertia[2][2], 3 * m * (a * a + b * b) / 80));
  worst = fmax(worst, rel(inertia[0][1], m * a * b / 80));
  worst = fmax(worst, rel(inertia[0][2], m * a * c / 80));
  worst = fmax(worst, rel(inertia[1][2], m * b * c / 80));
  printf("hulled tetrahedron: largest relative error of volume, centroid, inertia %.2e\n", worst);
  CHECK_LE(worst, 1e-12);

  /* The same through a world: a body's mass and principal moments. */
  clt_world_def_t wd = clt_default_world_def();
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_POLYHEDRON);
  s.convex = t;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &s;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_convex_release(t); /* the world keeps its own reference */
  clt_body_info_t info;
  CHECK(clt_body_get_info(w, id, &info) == CLT_OK);
  CHECK(rel(info.mass, 1000.0 * a * b * c / 6) <= 1e-12);
  clt_body_state_t st;
  CHECK(clt_body_get_state(w, id, &st) == CLT_OK);
  CHECK(rel(st.position[0], a / 4) <= 1e-12 && rel(st.position[2], c / 4) <= 1e-12);

  /* A cube by faces (as triangles: coplanar pairs merge into squares). */
  static const int tri[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                              2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
  int start[13];
  for (int f = 0; f <= 12; f++) start[f] = 3 * f;
  clt_convex_t *cube = NULL;
  CHECK(clt_convex_from_faces(cube_points, 8, tri, start, 12, &cube, msg, sizeof msg) == CLT_OK);
  if (cube) {
    CHECK(clt_convex_face_count(cube) == 6 && clt_convex_edge_count(cube) == 12);
    v = clt_convex_volume(cube, g, inertia);
    CHECK_NEAR(v, 1.0, 1e-15);
    CHECK_NEAR(inertia[0][0], 1.0 / 6.0, 1e-15);
    CHECK_NEAR(inertia[0][1], 0.0, 1e-15);
    CHECK_NEAR(g[0], 0.0, 1e-16);
    clt_convex_release(cube);
  }
  /* Cylinder: m = ρπr²L, I_z = m r²/2, I_x = m(3r² + L²)/12. */
  clt_shape_def_t cyl = clt_default_shape_def(CLT_SHAPE_CYLINDER);
  cyl.radius = 0.2;
  cyl.length = 0.9;
  bd.shapes = &cyl;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  CHECK(clt_body_get_info(w, id, &info) == CLT_OK);
  double mc = 1000.0 * 3.14159265358979323846 * 0.04 * 0.9;
  CHECK(rel(info.mass, mc) <= 1e-12);
  double ix = mc * (3 * 0.04 + 0.81) / 12, iz = 0.5 * mc * 0.04, got_x = fmax(info.inertia[0], info.inertia[1]);
  double got_z = fmin(fmin(info.inertia[0], info.inertia[1]), info.inertia[2]);
  printf("cylinder: mass %.15g (closed form %.15g), I_x %.15g (%.15g), I_z %.15g (%.15g)\n", info.mass, mc, got_x,
         ix, got_z, iz);
  CHECK(rel(got_x, ix) <= 1e-12 && rel(got_z, iz) <= 1e-12);
  clt_world_destroy(w);
}

/* Drops a tower of `n` cubes (box shapes or 8-vertex polyhedra) and records every step's poses. */
static void tower(bool polyhedron, int n, int steps, double (*pos)[3], double (*quat)[4]) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = 0.01;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  clt_body_def_t gd = clt_default_body_def();
  gd.type = CLT_BODY_STATIC;
  gd.shapes = &plane;
  gd.shape_count = 1;
  CHECK(clt_world_add_body(w, &gd, NULL) == CLT_OK);
  clt_convex_t *c = NULL;
  CHECK(clt_convex_from_points(cube_points, 8, &c, NULL, 0) == CLT_OK);
  clt_shape_def_t s = clt_default_shape_def(polyhedron ? CLT_SHAPE_POLYHEDRON : CLT_SHAPE_BOX);
  s.convex = polyhedron ? c : NULL;
  clt_body_id_t ids[32];
  for (int i = 0; i < n; i++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.position[0] = 0.01 * sin(1.7 * i);
    bd.position[1] = 0.01 * cos(2.3 * i);
    bd.position[2] = 0.5 + 1.002 * i + 0.002;
    double yaw = 0.05 * sin(0.9 * i), tilt = 0.002 * cos(1.3 * i);
    double q[4] = {cos(0.5 * yaw) * cos(0.5 * tilt), sin(0.5 * tilt) * cos(0.5 * yaw), sin(0.5 * tilt) * sin(0.5 * yaw),
                   sin(0.5 * yaw) * cos(0.5 * tilt)};
    memcpy(bd.orientation, q, sizeof q);
    bd.shapes = &s;
    bd.shape_count = 1;
    CHECK(clt_world_add_body(w, &bd, &ids[i]) == CLT_OK);
  }
  clt_convex_release(c);
  for (int k = 0; k < steps; k++) {
    CHECK(clt_world_step(w) == CLT_OK);
    for (int i = 0; i < n; i++) {
      clt_body_state_t st;
      clt_body_get_state(w, ids[i], &st);
      memcpy(pos[k * n + i], st.position, sizeof st.position);
      memcpy(quat[k * n + i], st.orientation, sizeof st.orientation);
    }
  }
  clt_world_destroy(w);
}

static void cube_tower(void) {
  enum { N = 10, STEPS = 500 };
  static double pb[N * STEPS][3], qb[N * STEPS][4], pp[N * STEPS][3], qp[N * STEPS][4];
  tower(false, N, STEPS, pb, qb);
  tower(true, N, STEPS, pp, qp);
  double worst = 0.0, worst_q = 0.0, moved = 0.0;
  for (int k = 0; k < N * STEPS; k++) {
    for (int j = 0; j < 3; j++) worst = fmax(worst, fabs(pb[k][j] - pp[k][j]));
    double dotq = fabs(qb[k][0] * qp[k][0] + qb[k][1] * qp[k][1] + qb[k][2] * qp[k][2] + qb[k][3] * qp[k][3]);
    worst_q = fmax(worst_q, 1.0 - fmin(dotq, 1.0));
  }
  for (int i = 0; i < N; i++) moved = fmax(moved, fabs(pb[(STEPS - 1) * N + i][2] - pb[i][2]));
  for (int i = 0; i < N; i++)
    printf("  cube %d: box (%.6f %.6f %.6f), polyhedron (%.6f %.6f %.6f)\n", i, pb[(STEPS - 1) * N + i][0],
           pb[(STEPS - 1) * N + i][1], pb[(STEPS - 1) * N + i][2], pp[(STEPS - 1) * N + i][0], pp[(STEPS - 1) * N + i][1],
           pp[(STEPS - 1) * N + i][2]);
  printf("tower of %d cubes, %d steps: largest position difference box vs polyhedron %.3e m, orientation "
         "1 - |q.q'| %.3e (the boxes moved up to %.3f m)\n",
         N, STEPS, worst, worst_q, moved);
  CHECK_LE(worst, 1e-9);
  CHECK_LE(worst_q, 1e-15);
  CHECK(moved > 0.005); /* it did fall and settle: the comparison is not of a tower at rest */
}

static void bad_polyhedra(void) {
  char msg[256];
  clt_convex_t *c = (clt_convex_t *)1;
  double flat[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.5, 0.5, 0}};
  CHECK(clt_convex_from_points((const double(*)[3])flat, 5, &c, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(c == NULL && strstr(msg, "no volume") != NULL);
  double nan_pt[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, NAN}};
  CHECK(clt_convex_from_points((const double(*)[3])nan_pt, 4, &c, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(msg, "vertex 3") != NULL);
  /* A cube with one face running the wrong way. */
  static const int quads[24] = {0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 2, 6, 7, 3, 0, 4, 6, 2, 1, 5, 7, 3};
  int start[7] = {0, 4, 8, 12, 16, 20, 24};
  CHECK(clt_convex_from_faces(cube_points, 8, quads, start, 6, &c, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  printf("wrong winding: %s\n", msg);
  CHECK(strstr(msg, "face 5") != NULL);
  /* An open box (one face missing). */
  static const int open[20] = {0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 2, 6, 7, 3, 0, 4, 6, 2};
  CHECK(clt_convex_from_faces(cube_points, 8, open, start, 5, &c, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  printf("open: %s\n", msg);
  CHECK(strstr(msg, "two faces") != NULL);
  /* A non-planar face. */
  double bent[8][3];
  memcpy(bent, cube_points, sizeof bent);
  bent[7][2] = 0.6;
  static const int good[24] = {0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 2, 6, 7, 3, 0, 4, 6, 2, 1, 3, 7, 5};
  CHECK(clt_convex_from_faces((const double(*)[3])bent, 8, good, start, 6, &c, msg, sizeof msg) == CLT_ERR_INVALID_ARGUMENT);
  printf("bent: %s\n", msg);
  CHECK(strstr(msg, "not planar") != NULL);
  CHECK(clt_convex_from_faces(cube_points, 8, good, start, 6, &c, msg, sizeof msg) == CLT_OK);
  clt_convex_release(c);
  /* A world refuses a polyhedron shape without its polyhedron. */
  clt_world_def_t wd = clt_default_world_def();
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_POLYHEDRON);
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &s;
  bd.shape_count = 1;
  CHECK(clt_world_add_body(w, &bd, NULL) == CLT_ERR_INVALID_ARGUMENT);
  printf("no polyhedron: %s\n", clt_world_error(w));
  clt_world_destroy(w);
}

int main(void) {
  mass_properties();
  cube_tower();
  bad_polyhedra();
  return clt_test_finish();
}
