/* Mass properties from shapes and density against closed forms (src/geometry), and composite
 * bodies: centre of mass, parallel-axis theorem, principal-axis rotation (SPEC.md §0). */
#include <string.h>

#include "clatter/world.h"
#include "math/vec.h"
#include "test_util.h"

static clt_world_t *make(int dim, double density, int *material) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  if (dim == 2) {
    wd.gravity[2] = 0.0;
    wd.gravity[1] = -9.81;
  }
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_material_def_t md = clt_default_material_def();
  md.density = density;
  CHECK(clt_world_add_material(w, &md, material) == CLT_OK);
  return w;
}

/* One dynamic body with one shape; returns its info. */
static clt_body_info_t single(clt_world_t *w, clt_shape_def_t s, int material) {
  s.material = material;
  clt_body_def_t bd = clt_default_body_def();
  bd.shapes = &s;
  bd.shape_count = 1;
  clt_body_id_t id;
  clt_body_info_t info;
  memset(&info, 0, sizeof info);
  clt_status_t st = clt_world_add_body(w, &bd, &id);
  if (st != CLT_OK) fprintf(stderr, "add_body: %s\n", clt_world_error(w));
  CHECK(st == CLT_OK);
  clt_body_get_info(w, id, &info);
  return info;
}

static void check_rel(double got, double want, const char *what) {
  double rel = fabs(got - want) / fabs(want);
  if (rel > 1e-12) fprintf(stderr, "%s: got %.17g want %.17g\n", what, got, want);
  CHECK_LE(rel, 1e-12);
}

static void shapes_3d(void) {
  int mat;
  double rho = 7.5;
  clt_world_t *w = make(3, rho, &mat);
  const double pi = CLT_PI;
  {
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_SPHERE);
    s.radius = 0.3;
    clt_body_info_t i = single(w, s, mat);
    double m = rho * 4.0 / 3.0 * pi * 0.027;
    check_rel(i.mass, m, "sphere mass");
    for (int k = 0; k < 3; k++) check_rel(i.inertia[k], 0.4 * m * 0.09, "sphere inertia");
  }
  {
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_BOX);
    s.half_extents[0] = 0.5;
    s.half_extents[1] = 1.0;
    s.half_extents[2] = 1.5;
    clt_body_info_t i = single(w, s, mat);
    double m = rho * 1.0 * 2.0 * 3.0;
    check_rel(i.mass, m, "box mass");
    check_rel(i.inertia[0], m / 12.0 * (4.0 + 9.0), "box Ixx");
    check_rel(i.inertia[1], m / 12.0 * (1.0 + 9.0), "box Iyy");
    check_rel(i.inertia[2], m / 12.0 * (1.0 + 4.0), "box Izz");
  }
  {
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_ELLIPSOID);
    s.semi_axes[0] = 1.0;
    s.semi_axes[1] = 2.0;
    s.semi_axes[2] = 3.0;
    clt_body_info_t i = single(w, s, mat);
    double m = rho * 4.0 / 3.0 * pi * 6.0;
    check_rel(i.mass, m, "ellipsoid mass");
    check_rel(i.inertia[0], m * (4.0 + 9.0) / 5.0, "ellipsoid Ixx");
    check_rel(i.inertia[1], m * (1.0 + 9.0) / 5.0, "ellipsoid Iyy");
    check_rel(i.inertia[2], m * (1.0 + 4.0) / 5.0, "ellipsoid Izz");
  }
  {
    /* Capsule: cylinder + sphere; hemispheres' axial moment m_s 2r²/5, transverse
     * m_s (2r²/5 + L²/4 + 3Lr/8). r = 0.5, L = 2. */
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_CAPSULE);
    s.radius = 0.5;
    s.length = 2.0;
    clt_body_info_t i = single(w, s, mat);
    double mc = rho * pi * 0.25 * 2.0, ms = rho * 4.0 / 3.0 * pi * 0.125;
    check_rel(i.mass, mc + ms, "capsule mass");
    check_rel(i.inertia[2], mc * 0.125 + ms * 0.1, "capsule Izz");
    check_rel(i.inertia[0], mc * (4.0 / 12.0 + 0.25 / 4.0) + ms * (0.1 + 1.0 + 0.375), "capsule Ixx");
    /* Length 0 is a sphere. */
    s.length = 0.0;
    i = single(w, s, mat);
    check_rel(i.inertia[0], 0.4 * ms * 0.25, "capsule L=0 = sphere");
  }
  {
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_TORUS);
    s.major_radius = 2.0;
    s.minor_radius = 0.5;
    clt_body_info_t i = single(w, s, mat);
    double m = rho * 2.0 * pi * pi * 2.0 * 0.25;
    check_rel(i.mass, m, "torus mass");
    check_rel(i.inertia[2], m * (4.0 + 0.75 * 0.25), "torus Izz");
    check_rel(i.inertia[0], m * (2.0 + 0.625 * 0.25), "torus Ixx");
  }
  clt_world_destroy(w);
}

/* Stadium area and polar moment by a midpoint grid (independent of the closed form). */
static void stadium_grid(double len, double r, double *area, double *polar) {
  int n = 1000;
  double x0 = -0.5 * len - r, y0 = -r, dx = (len + 2.0 * r) / n, dy = 2.0 * r / n;
  double a = 0.0, j = 0.0;
  for (int i = 0; i < n; i++) {
    double x = x0 + (i + 0.5) * dx;
    double cx = fmin(fmax(x, -0.5 * len), 0.5 * len);
    for (int k = 0; k < n; k++) {
      double y = y0 + (k + 0.5) * dy;
      if ((x - cx) * (x - cx) + y * y <= r * r) {
        a += dx * dy;
        j += dx * dy * (x * x + y * y);
      }
    }
  }
  *area = a;
  *polar = j;
}

static void shapes_2d(void) {
  int mat;
  double rho = 3.0;
  clt_world_t *w = make(2, rho, &mat);
  const double pi = CLT_PI;
  {
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_DISK);
    s.radius = 2.0;
    clt_body_info_t i = single(w, s, mat);
    check_rel(i.mass, rho * pi * 4.0, "disk mass");
    check_rel(i.inertia[0], 0.5 * rho * pi * 4.0 * 4.0, "disk inertia");
  }
  {
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_ELLIPSE);
    s.semi_axes[0] = 8.0;
    s.semi_axes[1] = 4.0;
    clt_body_info_t i = single(w, s, mat);
    double m = rho * pi * 32.0;
    check_rel(i.mass, m, "ellipse mass");
    check_rel(i.inertia[0], m * (64.0 + 16.0) / 4.0, "ellipse inertia");
  }
  {
    /* polygon = box 2 × 4 placed off-centre: same moment about its own centroid */
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_POLYGON);
    double v[4][2] = {{1.0, 1.0}, {3.0, 1.0}, {3.0, 5.0}, {1.0, 5.0}};
    memcpy(s.vertices, v, sizeof v);
    s.vertex_count = 4;
    clt_body_info_t i = single(w, s, mat);
    double m = rho * 8.0;
    check_rel(i.mass, m, "polygon mass");
    check_rel(i.inertia[0], m * (4.0 + 16.0) / 12.0, "polygon inertia");
  }
  {
    /* right triangle with legs 3: centroid (1, 1), polar moment m (a² + b² + c²)/36 = m */
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_POLYGON);
    double v[3][2] = {{0.0, 0.0}, {3.0, 0.0}, {0.0, 3.0}};
    memcpy(s.vertices, v, sizeof v);
    s.vertex_count = 3;
    s.material = mat;
    clt_body_def_t bd = clt_default_body_def();
    bd.position[0] = 10.0;
    bd.angle = CLT_PI / 2.0;
    bd.shapes = &s;
    bd.shape_count = 1;
    clt_body_id_t id;
    CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
    clt_body_info_t i;
    clt_body_get_info(w, id, &i);
    check_rel(i.mass, rho * 4.5, "triangle mass");
    check_rel(i.inertia[0], rho * 4.5, "triangle inertia");
    clt_body_state_t st;
    clt_body_get_state(w, id, &st);
    CHECK_NEAR(st.position[0], 9.0, 1e-12); /* centroid (1, 1) rotated by 90° → (−1, 1) */
    CHECK_NEAR(st.position[1], 1.0, 1e-12);
    clt_shape_def_t stored;
    clt_body_get_shape(w, id, 0, &stored);
    CHECK_NEAR(stored.local_position[0], -1.0, 1e-15);
    CHECK_NEAR(stored.local_position[1], -1.0, 1e-15);
  }
  {
    clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_SEGMENT);
    s.a[0] = -1.5;
    s.b[0] = 1.5;
    s.radius = 0.4;
    clt_body_info_t i = single(w, s, mat);
    double area, polar;
    stadium_grid(3.0, 0.4, &area, &polar);
    check_rel(i.mass, rho * (2.0 * 0.4 * 3.0 + pi * 0.16), "stadium mass");
    printf("stadium: mass %.10g (grid %.10g), inertia %.10g (grid %.10g)\n", i.mass, rho * area, i.inertia[0],
           rho * polar);
    CHECK_LE(fabs(i.mass - rho * area) / i.mass, 2e-3);
    CHECK_LE(fabs(i.inertia[0] - rho * polar) / i.inertia[0], 2e-3);
  }
  clt_world_destroy(w);
}

static void composite(void) {
  int mat;
  double rho = 1000.0;
  clt_world_t *w = make(3, rho, &mat);
  double r = 0.1, m1 = rho * 4.0 / 3.0 * CLT_PI * r * r * r;
  /* Unequal spheres on the x axis: COM and the parallel-axis theorem. */
  {
    clt_shape_def_t s[2] = {clt_default_shape_def(CLT_SHAPE_SPHERE), clt_default_shape_def(CLT_SHAPE_SPHERE)};
    s[0].radius = r;
    s[1].radius = 2.0 * r;
    s[1].local_position[0] = 1.0;
    clt_body_def_t bd = clt_default_body_def();
    bd.position[2] = 5.0;
    bd.shapes = s;
    bd.shape_count = 2;
    clt_body_id_t id;
    CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
    double m2 = 8.0 * m1, m = m1 + m2, c = m2 * 1.0 / m;
    clt_body_info_t i;
    clt_body_state_t st;
    clt_body_get_info(w, id, &i);
    clt_body_get_state(w, id, &st);
    check_rel(i.mass, m, "composite mass");
    CHECK_NEAR(st.position[0], c, 1e-14);
    CHECK_NEAR(st.position[2], 5.0, 1e-14);
    double ix = 0.4 * m1 * r * r + 0.4 * m2 * 4.0 * r * r;
    double iy = ix + m1 * c * c + m2 * (1.0 - c) * (1.0 - c);
    check_rel(i.inertia[0], ix, "composite Ixx");
    check_rel(i.inertia[1], iy, "composite Iyy (parallel axis)");
    check_rel(i.inertia[2], iy, "composite Izz (parallel axis)");
    CHECK_NEAR(st.orientation[0], 1.0, 1e-15); /* already principal: the frame is not rotated */
  }
  /* Equal spheres along (1, 1, 0)/√2 at ±d: the principal frame must rotate so one axis lies
   * along the line of centres (moment 2·(2/5) m r²), the other two 2·(2/5) m r² + 2 m d². */
  {
    double d = 0.5, u = d / sqrt(2.0);
    clt_shape_def_t s[2] = {clt_default_shape_def(CLT_SHAPE_SPHERE), clt_default_shape_def(CLT_SHAPE_SPHERE)};
    s[0].radius = s[1].radius = r;
    s[0].local_position[0] = 1.0 + u;
    s[0].local_position[1] = u;
    s[1].local_position[0] = 1.0 - u;
    s[1].local_position[1] = -u;
    clt_body_def_t bd = clt_default_body_def();
    bd.shapes = s;
    bd.shape_count = 2;
    bd.angular_velocity[2] = 2.0; /* spinning about the def frame's z at the reference origin */
    clt_body_id_t id;
    CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
    clt_body_info_t i;
    clt_body_state_t st;
    clt_body_get_info(w, id, &i);
    clt_body_get_state(w, id, &st);
    double small = 2.0 * 0.4 * m1 * r * r, big = small + 2.0 * m1 * d * d;
    int axis = -1, count_big = 0;
    for (int k = 0; k < 3; k++) {
      if (fabs(i.inertia[k] - small) <= 1e-12 * big) axis = k;
      if (fabs(i.inertia[k] - big) <= 1e-12 * big) count_big++;
    }
    CHECK(axis >= 0);
    CHECK(count_big == 2);
    if (axis >= 0) {
      double e[3] = {0.0, 0.0, 0.0}, world_axis[3];
      e[axis] = 1.0;
      clt_q_rotate(world_axis, st.orientation, e);
      CHECK_NEAR(fabs(world_axis[0]), 1.0 / sqrt(2.0), 1e-12);
      CHECK_NEAR(fabs(world_axis[1]), 1.0 / sqrt(2.0), 1e-12);
      CHECK_NEAR(world_axis[2], 0.0, 1e-12);
      CHECK(world_axis[0] * world_axis[1] > 0.0);
    }
    CHECK_NEAR(st.position[0], 1.0, 1e-14);
    CHECK_NEAR(st.position[1], 0.0, 1e-14);
    /* Shapes re-expressed: world position of each shape unchanged. */
    for (int k = 0; k < 2; k++) {
      clt_shape_def_t stored;
      CHECK(clt_body_get_shape(w, id, k, &stored) == CLT_OK);
      double p[3];
      clt_q_rotate(p, st.orientation, stored.local_position);
      CHECK_NEAR(st.position[0] + p[0], s[k].local_position[0], 1e-14);
      CHECK_NEAR(st.position[1] + p[1], s[k].local_position[1], 1e-14);
      CHECK_NEAR(st.position[2] + p[2], 0.0, 1e-14);
    }
    /* Rigid velocity field: the COM (1, 0, 0) moves at ω × r = (0, 2, 0); ω is the same vector
     * expressed in the principal frame. */
    CHECK_NEAR(st.velocity[0], 0.0, 1e-14);
    CHECK_NEAR(st.velocity[1], 2.0, 1e-14);
    double w_world[3];
    clt_q_rotate(w_world, st.orientation, st.angular_velocity);
    CHECK_NEAR(w_world[0], 0.0, 1e-14);
    CHECK_NEAR(w_world[1], 0.0, 1e-14);
    CHECK_NEAR(w_world[2], 2.0, 1e-14);
    /* A rotated shape: a box turned 90° about z has Ixx and Iyy swapped, but the body's principal
     * frame absorbs the rotation, so the moments come out along the box axes. */
    clt_shape_def_t b = clt_default_shape_def(CLT_SHAPE_BOX);
    b.half_extents[0] = 1.0;
    b.half_extents[1] = 2.0;
    b.half_extents[2] = 3.0;
    b.local_orientation[0] = cos(CLT_PI / 8.0); /* 45° about x */
    b.local_orientation[1] = sin(CLT_PI / 8.0);
    b.material = mat;
    clt_body_def_t bb = clt_default_body_def();
    bb.shapes = &b;
    bb.shape_count = 1;
    CHECK(clt_world_add_body(w, &bb, &id) == CLT_OK);
    clt_body_get_info(w, id, &i);
    clt_body_get_state(w, id, &st);
    double mb = rho * 48.0;
    double want[3] = {mb * 13.0 / 3.0, mb * 10.0 / 3.0, mb * 5.0 / 3.0};
    double sorted_got[3] = {i.inertia[0], i.inertia[1], i.inertia[2]};
    for (int a = 0; a < 3; a++)
      for (int c2 = a + 1; c2 < 3; c2++)
        if (sorted_got[c2] > sorted_got[a]) {
          double t = sorted_got[a];
          sorted_got[a] = sorted_got[c2];
          sorted_got[c2] = t;
        }
    for (int k = 0; k < 3; k++) check_rel(sorted_got[k], want[k], "rotated box principal moments");
    /* A capsule turned 90° about x (axis along y): the tensor is diagonal up to rounding, with a
     * degenerate pair; the frame must stay put rather than turn inside the degenerate plane. */
    clt_shape_def_t cap = clt_default_shape_def(CLT_SHAPE_CAPSULE);
    cap.local_orientation[0] = cos(CLT_PI / 4.0);
    cap.local_orientation[1] = sin(CLT_PI / 4.0);
    cap.material = mat;
    clt_body_def_t cb = clt_default_body_def();
    cb.shapes = &cap;
    cb.shape_count = 1;
    clt_body_id_t cid;
    CHECK(clt_world_add_body(w, &cb, &cid) == CLT_OK);
    clt_body_info_t ci;
    clt_body_state_t cs;
    clt_body_get_info(w, cid, &ci);
    clt_body_get_state(w, cid, &cs);
    CHECK(cs.orientation[0] == 1.0);
    CHECK_NEAR(ci.inertia[0], ci.inertia[2], 1e-12 * ci.inertia[0]);
    CHECK(ci.inertia[1] < ci.inertia[0]); /* axial moment along y is the small one */
    clt_shape_def_t stored;
    clt_body_get_shape(w, id, 0, &stored);
    /* body orientation ⊗ shape orientation = the shape's original world orientation */
    double q[4];
    clt_q_mul(q, st.orientation, stored.local_orientation);
    double ex[3] = {0.0, 1.0, 0.0}, a1[3], a2[3];
    clt_q_rotate(a1, q, ex);
    clt_q_rotate(a2, b.local_orientation, ex);
    for (int k = 0; k < 3; k++) CHECK_NEAR(a1[k], a2[k], 1e-12);
  }
  clt_world_destroy(w);
}

int main(void) {
  shapes_3d();
  shapes_2d();
  composite();
  for (int t = 0; t < CLT_SHAPE_TYPE_COUNT; t++)
    CHECK(clt_shape_type_from_name(clt_shape_type_name((clt_shape_type_t)t)) == (clt_shape_type_t)t);
  CHECK(clt_shape_type_from_name("spheroid") == CLT_SHAPE_TYPE_COUNT);
  return clt_test_finish();
}
