/* clt_body_set_capsule_length (SPEC.md §6.3 growth): the mass properties follow the new length
 * (analytic spherocylinder formulas, and the same as a body created at that length), the pose and
 * velocities are kept exactly for a single capsule, and a composite body whose centre of mass and
 * principal axes move keeps every material point's world position and velocity. The overdamped
 * law's default drag follows the length. Invalid requests
 * fail with a message and change nothing. */
#include <string.h>

#include "clatter/world.h"
#include "dynamics/world_internal.h"
#include "math/vec.h"
#include "test_util.h"

/* Spherocylinder of radius r and cap-centre distance L, density rho (independent of the library's
 * formulas: cylinder + two hemispheres, parallel-axis theorem at the hemisphere centroids). */
static void capsule_ref(double r, double len, double rho, double *mass, double *i_perp, double *i_axial) {
  double m_cyl = rho * CLT_PI * r * r * len;
  double m_hemi = rho * (2.0 / 3.0) * CLT_PI * r * r * r;
  double z_c = 0.5 * len + 3.0 * r / 8.0; /* hemisphere centroid from the capsule centre */
  /* hemisphere about its own centroid, perpendicular axis: (2/5 − 9/64) m r² = 83/320 m r² */
  double i_hemi_perp = (83.0 / 320.0) * m_hemi * r * r + m_hemi * z_c * z_c;
  *mass = m_cyl + 2.0 * m_hemi;
  *i_perp = m_cyl * (len * len / 12.0 + r * r / 4.0) + 2.0 * i_hemi_perp;
  *i_axial = 0.5 * m_cyl * r * r + 2.0 * 0.4 * m_hemi * r * r;
}

static clt_world_t *make_world(void) {
  clt_world_def_t wd = clt_default_world_def();
  wd.gravity[2] = 0.0;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  return w;
}

static void single_capsule(void) {
  clt_world_t *w = make_world();
  clt_material_def_t md = clt_default_material_def();
  md.density = 1100.0;
  int mat = -1;
  CHECK(clt_world_add_material(w, &md, &mat) == CLT_OK);
  clt_shape_def_t cap = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  cap.radius = 0.25;
  cap.length = 1.0;
  cap.material = mat;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &cap;
  bd.shape_count = 1;
  bd.position[0] = 0.3;
  bd.position[1] = -1.2;
  bd.position[2] = 0.7;
  double axis[3] = {0.3, -0.5, 0.8}, n = clt_v3_norm(axis);
  double rv[3] = {0.9 * axis[0] / n, 0.9 * axis[1] / n, 0.9 * axis[2] / n};
  clt_q_exp(bd.orientation, rv);
  bd.velocity[0] = 0.4;
  bd.velocity[2] = -0.1;
  bd.angular_velocity[0] = 1.5;
  bd.angular_velocity[1] = -0.5;
  bd.angular_velocity[2] = 0.25;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_body_state_t before, after;
  CHECK(clt_body_get_state(w, id, &before) == CLT_OK);

  const double lengths[] = {2.0, 0.0, 3.7, 1.0};
  double drag_long = 0.0;
  for (int k = 0; k < 4; k++) {
    double len = lengths[k];
    CHECK(clt_body_set_capsule_length(w, id, 0, len) == CLT_OK);
    clt_body_info_t info;
    CHECK(clt_body_get_info(w, id, &info) == CLT_OK);
    double m, ip, ia;
    capsule_ref(0.25, len, 1100.0, &m, &ip, &ia);
    CHECK_NEAR(info.mass, m, 1e-13 * m);
    /* the capsule is along the principal z axis (diagonal inertia: frame = definition frame) */
    CHECK_NEAR(info.inertia[0], ip, 1e-13 * ip);
    CHECK_NEAR(info.inertia[1], ip, 1e-13 * ip);
    CHECK_NEAR(info.inertia[2], ia, 1e-13 * ia);
    clt_shape_def_t s;
    CHECK(clt_body_get_shape(w, id, 0, &s) == CLT_OK);
    CHECK(s.length == len);
    CHECK(clt_body_get_state(w, id, &after) == CLT_OK);
    CHECK(memcmp(&before, &after, sizeof before) == 0); /* pose and velocities untouched, bit for bit */

    /* the same as a body created at that length */
    clt_world_t *w2 = make_world();
    int mat2 = -1;
    CHECK(clt_world_add_material(w2, &md, &mat2) == CLT_OK);
    clt_shape_def_t cap2 = cap;
    cap2.length = len;
    cap2.material = mat2;
    clt_body_def_t bd2 = bd;
    bd2.shapes = &cap2;
    clt_body_id_t id2;
    CHECK(clt_world_add_body(w2, &bd2, &id2) == CLT_OK);
    clt_body_info_t info2;
    CHECK(clt_body_get_info(w2, id2, &info2) == CLT_OK);
    CHECK_NEAR(info.mass, info2.mass, 1e-14 * info2.mass);
    for (int i = 0; i < 3; i++) CHECK_NEAR(info.inertia[i], info2.inertia[i], 1e-14 * info2.inertia[i]);
    /* the default drag of the overdamped law follows the new length (SPEC.md §6.1) */
    double zt[3][3], zr[3][3], zt2[3][3], zr2[3][3];
    CHECK(clt_body_drag(w, (int)id.index, zt, zr));
    CHECK(clt_body_drag(w2, (int)id2.index, zt2, zr2));
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        CHECK_NEAR(zt[i][j], zt2[i][j], 1e-14 * zt2[2][2]);
        CHECK_NEAR(zr[i][j], zr2[i][j], 1e-14 * zr2[0][0]);
      }
    if (k == 0) drag_long = zt[2][2];
    if (k == 1) CHECK(zt[2][2] < drag_long); /* a sphere (length 0) drags less along z than length 2 */
    clt_world_destroy(w2);
  }

  /* errors leave everything as it was */
  clt_body_info_t info0;
  CHECK(clt_body_get_info(w, id, &info0) == CLT_OK);
  CHECK(clt_body_set_capsule_length(w, id, 0, -1.0) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "length") != NULL);
  CHECK(clt_body_set_capsule_length(w, id, 0, NAN) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_body_set_capsule_length(w, id, 1, 2.0) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "out of range") != NULL);
  clt_body_id_t stale = id;
  stale.generation += 7;
  CHECK(clt_body_set_capsule_length(w, stale, 0, 2.0) == CLT_ERR_STALE_HANDLE);
  CHECK(clt_body_set_capsule_length(w, clt_world_ground(), 0, 2.0) == CLT_ERR_INVALID_ARGUMENT);
  clt_body_info_t info1;
  CHECK(clt_body_get_info(w, id, &info1) == CLT_OK);
  CHECK(info1.mass == info0.mass);
  clt_shape_def_t s;
  CHECK(clt_body_get_shape(w, id, 0, &s) == CLT_OK);
  CHECK(s.length == 1.0);

  /* a sphere is not a capsule; a static capsule does not grow */
  clt_shape_def_t sph = clt_default_shape_def(CLT_SHAPE_SPHERE);
  sph.radius = 0.5;
  clt_body_def_t sd = clt_default_body_def();
  sd.shapes = &sph;
  sd.shape_count = 1;
  sd.position[0] = 5.0;
  clt_body_id_t sid;
  CHECK(clt_world_add_body(w, &sd, &sid) == CLT_OK);
  CHECK(clt_body_set_capsule_length(w, sid, 0, 2.0) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strstr(clt_world_error(w), "not a capsule") != NULL);
  clt_body_def_t st = clt_default_body_def();
  st.type = CLT_BODY_STATIC;
  st.shapes = &cap;
  st.shape_count = 1;
  st.position[0] = -5.0;
  clt_body_id_t stid;
  CHECK(clt_world_add_body(w, &st, &stid) == CLT_OK);
  CHECK(clt_body_set_capsule_length(w, stid, 0, 2.0) == CLT_ERR_INVALID_ARGUMENT);
  clt_world_destroy(w);
}

/* World position and velocity of a body-fixed point given in the world at the reference time. */
static void material_point(const clt_body_state_t *s, const double local[3], double p[3], double v[3]) {
  double r[3], w_world[3], wxr[3];
  clt_q_rotate(r, s->orientation, local);
  clt_v3_add(p, s->position, r);
  clt_q_rotate(w_world, s->orientation, s->angular_velocity);
  clt_v3_cross(wxr, w_world, r);
  clt_v3_add(v, s->velocity, wxr);
}

static void sort3(double a[3]) {
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      if (a[j] < a[i]) {
        double t = a[i];
        a[i] = a[j];
        a[j] = t;
      }
}

/* A capsule off-centre and tilted, plus a sphere: lengthening the capsule moves the centre of mass
 * and turns the principal axes. */
static void composite(void) {
  clt_world_t *w = make_world();
  clt_shape_def_t shapes[2];
  shapes[0] = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  shapes[0].radius = 0.2;
  shapes[0].length = 1.0;
  shapes[0].local_position[0] = 0.8;
  shapes[0].local_position[1] = 0.1;
  double tilt[3] = {0.0, 0.6, 0.2};
  clt_q_exp(shapes[0].local_orientation, tilt);
  shapes[1] = clt_default_shape_def(CLT_SHAPE_SPHERE);
  shapes[1].radius = 0.4;
  shapes[1].local_position[0] = -0.5;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = shapes;
  bd.shape_count = 2;
  bd.position[1] = 2.0;
  double rv[3] = {0.2, -0.4, 0.3};
  clt_q_exp(bd.orientation, rv);
  bd.velocity[0] = -0.3;
  bd.velocity[1] = 0.7;
  bd.angular_velocity[0] = 0.5;
  bd.angular_velocity[1] = 2.0;
  bd.angular_velocity[2] = -1.0;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);

  /* material points: the two shape centres and two tips of the capsule, in the world */
  clt_body_state_t s0;
  CHECK(clt_body_get_state(w, id, &s0) == CLT_OK);
  double p0[4][3], v0[4][3];
  clt_shape_def_t cs0, ss0;
  CHECK(clt_body_get_shape(w, id, 0, &cs0) == CLT_OK);
  CHECK(clt_body_get_shape(w, id, 1, &ss0) == CLT_OK);
  double ez[3] = {0.0, 0.0, 1.0}, ax[3];
  clt_q_rotate(ax, cs0.local_orientation, ez);
  double loc0[4][3];
  clt_v3_copy(loc0[0], cs0.local_position);
  clt_v3_copy(loc0[1], ss0.local_position);
  clt_v3_axpy(loc0[2], cs0.local_position, 0.5, ax);
  clt_v3_axpy(loc0[3], cs0.local_position, -0.5, ax);
  for (int k = 0; k < 4; k++) material_point(&s0, loc0[k], p0[k], v0[k]);
  /* momenta before (mass changes, so compare velocities of material points instead) */

  CHECK(clt_body_set_capsule_length(w, id, 0, 2.5) == CLT_OK);

  clt_body_state_t s1;
  CHECK(clt_body_get_state(w, id, &s1) == CLT_OK);
  clt_shape_def_t cs1, ss1;
  CHECK(clt_body_get_shape(w, id, 0, &cs1) == CLT_OK);
  CHECK(clt_body_get_shape(w, id, 1, &ss1) == CLT_OK);
  CHECK(cs1.length == 2.5);
  double ax1[3];
  clt_q_rotate(ax1, cs1.local_orientation, ez);
  double loc1[4][3];
  clt_v3_copy(loc1[0], cs1.local_position);
  clt_v3_copy(loc1[1], ss1.local_position);
  clt_v3_axpy(loc1[2], cs1.local_position, 0.5, ax1);
  clt_v3_axpy(loc1[3], cs1.local_position, -0.5, ax1);
  double worst_p = 0.0, worst_v = 0.0;
  for (int k = 0; k < 4; k++) {
    double p1[3], v1[3];
    material_point(&s1, loc1[k], p1, v1);
    for (int i = 0; i < 3; i++) {
      worst_p = fmax(worst_p, fabs(p1[i] - p0[k][i]));
      worst_v = fmax(worst_v, fabs(v1[i] - v0[k][i]));
    }
  }
  CHECK_LE(worst_p, 1e-13);
  CHECK_LE(worst_v, 1e-13);
  /* the frame did move (else this case would test nothing) */
  CHECK(clt_v3_norm(cs1.local_position) != clt_v3_norm(cs0.local_position));

  /* mass properties equal those of the body created with the long capsule */
  clt_world_t *w2 = make_world();
  clt_shape_def_t shapes2[2] = {shapes[0], shapes[1]};
  shapes2[0].length = 2.5;
  clt_body_def_t bd2 = bd;
  bd2.shapes = shapes2;
  clt_body_id_t id2;
  CHECK(clt_world_add_body(w2, &bd2, &id2) == CLT_OK);
  clt_body_info_t a, b;
  CHECK(clt_body_get_info(w, id, &a) == CLT_OK);
  CHECK(clt_body_get_info(w2, id2, &b) == CLT_OK);
  CHECK_NEAR(a.mass, b.mass, 1e-13 * b.mass);
  sort3(a.inertia);
  sort3(b.inertia);
  for (int i = 0; i < 3; i++) CHECK_NEAR(a.inertia[i], b.inertia[i], 1e-12 * b.inertia[2]);
  /* and the same centre of mass in the world */
  clt_body_state_t t2;
  CHECK(clt_body_get_state(w2, id2, &t2) == CLT_OK);
  for (int i = 0; i < 3; i++) CHECK_NEAR(s1.position[i], t2.position[i], 1e-13);

  /* the world keeps stepping (free flight: the centre of mass moves at constant velocity) */
  for (int k = 0; k < 10; k++) CHECK(clt_world_step(w) == CLT_OK);
  clt_body_state_t s2;
  CHECK(clt_body_get_state(w, id, &s2) == CLT_OK);
  for (int i = 0; i < 3; i++) CHECK_NEAR(s2.position[i], s1.position[i] + 10 * 1e-3 * s1.velocity[i], 1e-12);
  clt_world_destroy(w2);
  clt_world_destroy(w);
}

int main(void) {
  single_capsule();
  composite();
  return clt_test_finish();
}
