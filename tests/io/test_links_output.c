/* Joints and force elements as the step holds them (clt_joint_get_info, clt_force_get_info) and
 * the run file's /links and gravity (docs/output-format.md), for a body whose principal frame is
 * not its def frame (a shape off its origin, a turned body): every anchor given in a def frame
 * lands on the same world point from the principal-frame anchors; the axes likewise; a distance
 * joint's and a spring's lengths resolved; applied forces as last set; /links holds exactly the
 * joints and the spring-damper, in that order, with those anchors; bad handles refused; the last
 * frame of /trajectory/joint_state is clt_joint_get_state's (a hinge with a limit and a friction
 * motor, a distance joint). */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clatter/output.h"
#include "clatter/scene.h"
#include "test_util.h"

static char message[2048];

/* "arm": a box 0.3 m off its def origin, turned 0.4 rad about z, at (1, 0, 2); "bob": a sphere. */
static const char *scene_text =
    "{\"name\": \"links\", \"dimension\": 3, \"time_step\": 0.001, \"duration\": 0.01,\n"
    " \"gravity\": [0, -9.81, -1],\n"
    " \"bodies\": [\n"
    "  {\"name\": \"arm\", \"position\": [1, 0, 2], \"orientation\": {\"axis\": [0, 0, 1], \"angle\": 0.4},\n"
    "   \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.1, 0.1], \"position\": [0.3, 0, 0]}},\n"
    "  {\"name\": \"bob\", \"position\": [2.5, 0.5, 2], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}\n"
    " ],\n"
    " \"joints\": [\n"
    "  {\"type\": \"revolute\", \"name\": \"hinge\", \"body_a\": \"arm\", \"body_b\": \"world\", \"anchor_a\": [-0.2, 0, 0],\n"
    "   \"anchor_b\": [0.8153, -0.0779, 2], \"axis_a\": [0, 0, 2], \"axis_b\": [0, 0, 1],\n"
    "   \"limit\": {\"lower\": -0.1, \"upper\": 0.1},\n"
    "   \"motor\": {\"mode\": \"velocity\", \"target_velocity\": 0, \"max_force\": 0.5}},\n"
    "  {\"type\": \"distance\", \"body_a\": \"arm\", \"body_b\": \"bob\", \"anchor_a\": [0.8, 0, 0]}\n"
    " ],\n"
    " \"forces\": [\n"
    "  {\"type\": \"applied\", \"name\": \"push\", \"body\": \"bob\", \"force\": [1, 2, 3]},\n"
    "  {\"type\": \"spring-damper\", \"name\": \"spring\", \"body_a\": \"bob\", \"body_b\": \"world\", \"anchor_a\": [0, 0.1, 0],\n"
    "   \"anchor_b\": [3, 3, 3], \"stiffness\": 10, \"damping\": 1},\n"
    "  {\"type\": \"rotational-spring-damper\", \"body_a\": \"arm\", \"body_b\": \"bob\", \"axis_a\": [0, 0, 1],\n"
    "   \"stiffness\": 1}\n"
    " ]\n"
    "}\n";

static void rotate(const double q[4], const double v[3], double out[3]) {
  const double *u = q + 1;
  double t[3] = {2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]), 2 * (u[0] * v[1] - u[1] * v[0])};
  out[0] = v[0] + q[0] * t[0] + (u[1] * t[2] - u[2] * t[1]);
  out[1] = v[1] + q[0] * t[1] + (u[2] * t[0] - u[0] * t[2]);
  out[2] = v[2] + q[0] * t[2] + (u[0] * t[1] - u[1] * t[0]);
}

/* The world point of a principal-frame point of body (the ground: the point itself). */
static void world_point(const clt_world_t *w, clt_body_id_t body, const double local[3], double out[3]) {
  if (clt_body_id_is_null(body)) {
    memcpy(out, local, 3 * sizeof *out);
    return;
  }
  clt_body_state_t s;
  CHECK(clt_body_get_state(w, body, &s) == CLT_OK);
  rotate(s.orientation, local, out);
  for (int k = 0; k < 3; k++) out[k] += s.position[k];
}

/* The world point of a def-frame point of the arm (position (1, 0, 2), 0.4 rad about z). */
static void arm_def_point(const double local[3], double out[3]) {
  double c = cos(0.4), s = sin(0.4);
  out[0] = 1.0 + c * local[0] - s * local[1];
  out[1] = s * local[0] + c * local[1];
  out[2] = 2.0 + local[2];
}

static double dist(const double a[3], const double b[3]) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static void check_infos(const clt_world_t *w) {
  clt_body_id_t arm = clt_world_body_at(w, 0), bob = clt_world_body_at(w, 1);
  CHECK(clt_world_joint_count(w) == 2 && clt_world_force_count(w) == 3);
  double g[3];
  clt_world_get_gravity(w, g);
  CHECK(g[0] == 0.0 && g[1] == -9.81 && g[2] == -1.0);

  clt_joint_info_t j;
  CHECK(clt_joint_get_info(w, clt_world_joint_at(w, 0), &j) == CLT_OK);
  CHECK(j.type == CLT_JOINT_REVOLUTE && strcmp(j.name, "hinge") == 0);
  CHECK(j.body_a.index == arm.index && clt_body_id_is_null(j.body_b));
  double expected[3], got[3], given[3] = {-0.2, 0, 0};
  arm_def_point(given, expected);
  world_point(w, j.body_a, j.anchor_a, got);
  printf("hinge anchor_a: world (%.6f, %.6f, %.6f), from the def frame (%.6f, %.6f, %.6f)\n", got[0], got[1], got[2],
         expected[0], expected[1], expected[2]);
  CHECK_LE(dist(got, expected), 1e-14);
  CHECK(j.anchor_a[0] != given[0]); /* the principal frame is 0.3 m along the box from the def frame */
  CHECK(j.anchor_b[0] == 0.8153 && j.anchor_b[1] == -0.0779 && j.anchor_b[2] == 2.0);
  clt_body_state_t s;
  clt_body_get_state(w, arm, &s);
  double axis[3];
  rotate(s.orientation, j.axis_a, axis);
  CHECK_NEAR(axis[0], 0.0, 1e-15);
  CHECK_NEAR(axis[1], 0.0, 1e-15);
  CHECK_NEAR(axis[2], 1.0, 1e-15); /* (0, 0, 2) normalized, in the world */

  CHECK(clt_joint_get_info(w, clt_world_joint_at(w, 1), &j) == CLT_OK);
  CHECK(j.type == CLT_JOINT_DISTANCE && j.name[0] == '\0' && j.body_b.index == bob.index);
  double pa[3], pb[3], a_given[3] = {0.8, 0, 0};
  world_point(w, j.body_a, j.anchor_a, pa);
  world_point(w, j.body_b, j.anchor_b, pb);
  arm_def_point(a_given, expected);
  CHECK_LE(dist(pa, expected), 1e-14);
  CHECK_NEAR(j.distance, dist(pa, pb), 1e-14); /* resolved from the def's −1 */

  clt_force_info_t f;
  CHECK(clt_force_get_info(w, clt_world_force_at(w, 0), &f) == CLT_OK);
  CHECK(f.type == CLT_FORCE_APPLIED && strcmp(f.name, "push") == 0 && f.force[2] == 3.0);
  CHECK(clt_force_get_info(w, clt_world_force_at(w, 1), &f) == CLT_OK);
  CHECK(f.type == CLT_FORCE_SPRING_DAMPER && f.stiffness == 10.0 && f.damping == 1.0);
  world_point(w, f.body_a, f.anchor_a, pa);
  CHECK_NEAR(f.rest_length, dist(pa, f.anchor_b), 1e-14);
  CHECK(clt_force_get_info(w, clt_world_force_at(w, 2), &f) == CLT_OK);
  CHECK(f.type == CLT_FORCE_ROTATIONAL_SPRING_DAMPER);

  /* handles that name nothing */
  clt_joint_id_t none = clt_world_joint_at(w, 2), stale = clt_world_joint_at(w, 0);
  CHECK(none.index == CLT_NULL_INDEX);
  stale.generation += 1;
  CHECK(clt_joint_get_info(w, none, &j) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_joint_get_info(w, stale, &j) == CLT_ERR_STALE_HANDLE);
  CHECK(strstr(clt_world_error(w), "names no joint") != NULL);
  CHECK(clt_joint_get_info(w, clt_world_joint_at(w, 0), NULL) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_force_get_info(w, clt_world_force_at(w, 3), &f) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_joint_get_info(NULL, clt_world_joint_at(w, 0), &j) == CLT_ERR_INVALID_ARGUMENT);
  clt_world_get_gravity(NULL, g);
  CHECK(g[0] == 0.0 && g[1] == 0.0 && g[2] == 0.0);
}

/* /links and the gravity attribute against the infos. */
static void check_file(const char *path, const clt_world_t *w) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(file >= 0);
  if (file < 0) return;
  double g[3] = {0, 0, 0};
  hid_t attr = H5Aopen(file, "gravity", H5P_DEFAULT);
  CHECK(attr >= 0 && H5Aread(attr, H5T_NATIVE_DOUBLE, g) >= 0);
  if (attr >= 0) H5Aclose(attr);
  CHECK(g[0] == 0.0 && g[1] == -9.81 && g[2] == -1.0);
  int32_t body[3][2];
  double anchor[3][2][3];
  char type[3][16];
  hid_t d = H5Dopen2(file, "links/body", H5P_DEFAULT);
  hid_t space = d >= 0 ? H5Dget_space(d) : -1;
  hsize_t dims[3] = {0, 0, 0};
  CHECK(space >= 0 && H5Sget_simple_extent_ndims(space) == 2);
  if (space >= 0) H5Sget_simple_extent_dims(space, dims, NULL), H5Sclose(space);
  printf("/links: %d rows\n", (int)dims[0]);
  CHECK(dims[0] == 3 && dims[1] == 2); /* two joints and the spring-damper */
  CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, body) >= 0);
  if (d >= 0) H5Dclose(d);
  d = H5Dopen2(file, "links/anchor", H5P_DEFAULT);
  CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, anchor) >= 0);
  if (d >= 0) H5Dclose(d);
  d = H5Dopen2(file, "links/type", H5P_DEFAULT);
  hid_t st = H5Tcopy(H5T_C_S1);
  H5Tset_size(st, sizeof type[0]);
  CHECK(d >= 0 && H5Dread(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, type) >= 0);
  H5Tclose(st);
  if (d >= 0) H5Dclose(d);
  double js[2][2][11]; /* frames 0 and 1, two joints */
  d = H5Dopen2(file, "trajectory/joint_state", H5P_DEFAULT);
  CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, js) >= 0);
  if (d >= 0) H5Dclose(d);
  for (int row = 0; row < 2; row++) {
    clt_joint_state_t s;
    CHECK(clt_joint_get_state(w, clt_world_joint_at(w, row), &s) == CLT_OK);
    CHECK(js[1][row][0] == s.position && js[1][row][1] == s.rate && js[1][row][2] == s.limit_impulse &&
          js[1][row][3] == s.motor_impulse);
    CHECK(js[0][row][2] == 0.0 && js[0][row][3] == 0.0); /* no step yet at frame 0 */
    CHECK(js[0][row][4] == 1.0 && js[1][row][4] == 1.0); /* present */
    for (int k = 0; k < 6; k++) CHECK(js[1][row][5 + k] == s.constraint_impulse[k]);
  }
  printf("/trajectory/joint_state after one step: hinge angle %.3g rad, motor impulse %.6g N m s (bound h * 0.5 = "
         "%.6g)\n", js[1][0][0], js[1][0][3], 0.001 * 0.5);
  CHECK(fabs(js[1][0][3]) == 0.001 * 0.5); /* the friction motor holds at its bound against gravity */
  H5Fclose(file);
  CHECK(strcmp(type[0], "revolute") == 0 && strcmp(type[1], "distance") == 0 && strcmp(type[2], "spring-damper") == 0);
  CHECK(body[0][0] == 0 && body[0][1] == -1 && body[1][0] == 0 && body[1][1] == 1 && body[2][0] == 1 &&
        body[2][1] == -1);
  clt_joint_info_t j;
  clt_force_info_t f;
  for (int row = 0; row < 2; row++) {
    CHECK(clt_joint_get_info(w, clt_world_joint_at(w, row), &j) == CLT_OK);
    CHECK(memcmp(anchor[row][0], j.anchor_a, sizeof j.anchor_a) == 0);
    CHECK(memcmp(anchor[row][1], j.anchor_b, sizeof j.anchor_b) == 0);
  }
  CHECK(clt_force_get_info(w, clt_world_force_at(w, 1), &f) == CLT_OK);
  CHECK(memcmp(anchor[2][0], f.anchor_a, sizeof f.anchor_a) == 0 && memcmp(anchor[2][1], f.anchor_b, sizeof f.anchor_b) == 0);
}

int main(void) {
  char dir[] = "/tmp/clatter_test_links_XXXXXX";
  if (!mkdtemp(dir)) return 1;
  clt_scene_t *scene = NULL;
  if (clt_scene_parse(scene_text, "links.json", NULL, &scene, message, sizeof message) != CLT_OK) {
    fprintf(stderr, "%s\n", message);
    return 1;
  }
  clt_world_t *w = NULL;
  CHECK(clt_scene_create_world(scene, NULL, NULL, &w, message, sizeof message) == CLT_OK);
  if (w) {
    check_infos(w);
    char path[4200];
    snprintf(path, sizeof path, "%s/links.h5", dir);
    clt_output_t *out = NULL;
    CHECK(clt_output_create(path, scene, w, &out, message, sizeof message) == CLT_OK);
    CHECK(clt_world_step(w) == CLT_OK && clt_output_record_step(out, w) == CLT_OK);
    CHECK(clt_output_close(out, CLT_RUN_COMPLETE, NULL, message, sizeof message) == CLT_OK);
    check_file(path, w);
    clt_world_destroy(w);
  }
  clt_scene_destroy(scene);
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return clt_test_finish();
}
