/* Multi-sphere proxies (src/collision/multisphere.c, SPEC.md §6.3): the documented construction
 * (inscribed spheres along the major axis, the end ones reaching the tips, the largest centred),
 * symmetry, the capsule's exact envelope, the ring's, and the surface error shrinking with N at
 * the rate of an O(1/N²) scallop — against references written here:
 *  - an independent inscribedness check: every proxy sphere of an ellipsoid must lie inside it,
 *    tested by the implicit function at 2000 points of each sphere's surface, and touch it (the
 *    nearest of those points within a sampling tolerance of the surface);
 *  - the capsule's scallop: distance √(r² + s²/4) − r from the cylinder midway between neighbours
 *    s apart to the proxy. */
#include <math.h>
#include <stdio.h>

#include "collision/multisphere.h"
#include "test_util.h"

#define PI 3.14159265358979323846

static clt_shape_def_t ellipsoid(double ax, double ay, double az) {
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_ELLIPSOID);
  s.semi_axes[0] = ax, s.semi_axes[1] = ay, s.semi_axes[2] = az;
  return s;
}

static void fib(int k, int n, double u[3]) {
  double z = 1.0 - 2.0 * (k + 0.5) / n, r = sqrt(fmax(0.0, 1.0 - z * z)), t = PI * (3.0 - sqrt(5.0)) * k;
  u[0] = r * cos(t), u[1] = r * sin(t), u[2] = z;
}

/* Max over 2000 points of the surface of sphere (c, r) of the ellipsoid's implicit value
 * Σ x_k²/a_k² − 1: ≤ 0 when the sphere is inside, ≈ 0 when it also touches. */
static double sphere_max_implicit(const double a[3], const double c[3], double r) {
  double worst = -INFINITY;
  for (int k = 0; k < 2000; k++) {
    double u[3];
    fib(k, 2000, u);
    double f = -1.0;
    for (int i = 0; i < 3; i++) {
      double x = c[i] + r * u[i];
      f += x * x / (a[i] * a[i]);
    }
    worst = fmax(worst, f);
  }
  return worst;
}

static void test_ellipsoid_construction(void) {
  /* Prolate spheroid along x, triaxial with the major axis along y, oblate-ish along z. */
  const double shapes[3][3] = {{2.35, 1.0, 1.0}, {0.6, 3.0, 0.4}, {0.5, 0.7, 1.4}};
  for (int s = 0; s < 3; s++) {
    clt_shape_def_t e = ellipsoid(shapes[s][0], shapes[s][1], shapes[s][2]);
    const double *a = e.semi_axes;
    int m = 0;
    for (int k = 1; k < 3; k++)
      if (a[k] > a[m]) m = k;
    double c = fmin(fmin(a[0], a[1]), a[2]), big = a[m];
    for (int n = 1; n <= CLT_MULTISPHERE_MAX; n += 2) {
      double cen[CLT_MULTISPHERE_MAX][3], rad[CLT_MULTISPHERE_MAX];
      int got = clt_multisphere_build(&e, n, cen, rad);
      CHECK(got == n);
      if (got != n) continue;
      int mid = n / 2;
      /* Largest centred, radius = smallest semi-axis; centres on the major axis, symmetric. */
      CHECK_NEAR(cen[mid][m], 0.0, 0.0);
      CHECK_NEAR(rad[mid], c, 1e-15);
      double worst_inside = -INFINITY, worst_touch = INFINITY;
      for (int i = 0; i < n; i++) {
        CHECK(rad[i] <= rad[mid]);
        for (int k = 0; k < 3; k++)
          if (k != m) CHECK(cen[i][k] == 0.0);
        CHECK(cen[n - 1 - i][m] == -cen[i][m]);
        CHECK(rad[n - 1 - i] == rad[i]);
        if (i > 0) CHECK(cen[i][m] > cen[i - 1][m]);
        double f = sphere_max_implicit(a, cen[i], rad[i]);
        worst_inside = fmax(worst_inside, f);
        worst_touch = fmin(worst_touch, f); /* the sphere that comes least close */
      }
      /* Inside (to rounding), and each sphere touches: its outermost sampled point is within the
       * sampling resolution (2000 points, ~0.06 rad spacing ⇒ ≲ 3e-3 relative) of the surface. */
      CHECK_LE(worst_inside, 1e-12);
      CHECK_LE(-worst_touch, 1e-2);
      if (n > 1) { /* end spheres: centre (A² − c²)/A, radius c²/A, reaching the tips */
        CHECK_NEAR(cen[n - 1][m], (big * big - c * c) / big, 1e-14 * big);
        CHECK_NEAR(rad[n - 1], c * c / big, 1e-14 * big);
        CHECK_NEAR(cen[n - 1][m] + rad[n - 1], big, 1e-14 * big);
      }
    }
  }
}

static void test_errors_shrink(void) {
  /* Spheroid of aspect 2.35 (Markauskas et al. 2010; 002 §5.1): the proxy is inscribed (protrusion
   * ≤ 0) and its gap falls like 1/N² (halves of spacing ⇒ quarters of scallop depth). */
  clt_shape_def_t e = ellipsoid(2.35, 1.0, 1.0);
  const int ns[] = {3, 5, 7, 9, 13, 17, 23, 27, 55};
  double gap[9], prot[9];
  for (int i = 0; i < 9; i++) {
    double cen[CLT_MULTISPHERE_MAX][3], rad[CLT_MULTISPHERE_MAX];
    CHECK(clt_multisphere_build(&e, ns[i], cen, rad) == ns[i]);
    CHECK(clt_multisphere_surface_error(&e, ns[i], (const double(*)[3])cen, rad, 4000, &gap[i], &prot[i]) == 0);
    printf("ellipsoid 2.35:1:1  N = %2d  max gap %.6f  max protrusion %.2e\n", ns[i], gap[i], prot[i]);
    CHECK_LE(prot[i], 1e-12);
    CHECK(gap[i] > 0.0);
    if (i > 0) CHECK(gap[i] < gap[i - 1]);
  }
  /* Numbers (4000 directions; these also pin the construction): N = 3 leaves a gap of 0.58 of the
   * minor radius, N = 13 (the paper's "adequate" resolution) 0.029, N = 27 0.0068. */
  CHECK(gap[0] > 0.5 && gap[0] < 0.65);
  CHECK(gap[4] > 0.025 && gap[4] < 0.032);
  CHECK(gap[7] > 0.006 && gap[7] < 0.0075);
  /* O(1/N²): spacing ∝ 1/(N − 1); from N = 27 to 55 the spacing halves, the gap ≈ quarters. */
  double rate = gap[8] / gap[7];
  printf("gap(55)/gap(27) = %.3f (1/4 expected)\n", rate);
  CHECK(rate > 0.18 && rate < 0.32);

  /* Triaxial: the gap tends to b − c (round spheres in a flat cross-section), not to 0. */
  clt_shape_def_t t = ellipsoid(3.0, 1.0, 0.5);
  double cen[CLT_MULTISPHERE_MAX][3], rad[CLT_MULTISPHERE_MAX], g, p;
  CHECK(clt_multisphere_build(&t, 61, cen, rad) == 61);
  CHECK(clt_multisphere_surface_error(&t, 61, (const double(*)[3])cen, rad, 4000, &g, &p) == 0);
  printf("ellipsoid 3:1:0.5 N = 61  max gap %.6f (b − c = 0.5)  protrusion %.2e\n", g, p);
  CHECK_NEAR(g, 0.5, 2e-3);
  CHECK_LE(p, 1e-12);
}

static void test_capsule(void) {
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  s.radius = 0.5;
  s.length = 3.0;
  for (int n = 1; n <= 15; n++) {
    double cen[CLT_MULTISPHERE_MAX][3], rad[CLT_MULTISPHERE_MAX], g, p;
    CHECK(clt_multisphere_build(&s, n, cen, rad) == n);
    for (int i = 0; i < n; i++) {
      CHECK(rad[i] == s.radius);
      CHECK(cen[i][0] == 0.0 && cen[i][1] == 0.0);
      CHECK(cen[n - 1 - i][2] == -cen[i][2]);
    }
    if (n > 1) {
      CHECK_NEAR(cen[0][2], -1.5, 1e-15);
      CHECK_NEAR(cen[n - 1][2], 1.5, 1e-15);
    }
    CHECK(clt_multisphere_surface_error(&s, n, (const double(*)[3])cen, rad, 4096, &g, &p) == 0);
    /* Protrusion exactly 0 (the caps are the end spheres' halves); the gap is the distance
     * √(r² + s²/4) − r from the cylinder midway between neighbours s apart to the spheres (the
     * grid of 65 rings on the cylinder hits the midpoints when n − 1 divides 64) or, for n = 1,
     * the cap tips' distance to the sphere. */
    double expect = 1.5; /* n = 1: the cap tips are 2 from the centre, the sphere reaches 0.5 */
    if (n > 1) expect = hypot(0.5 * s.length / (n - 1), s.radius) - s.radius;
    printf("capsule N = %2d gap %.6f expect %.6f protrusion %.2e\n", n, g, expect, p);
    if (n == 1) { /* no sampled normal is exactly the axis or exactly across it */
      CHECK_NEAR(g, expect, 1e-3);
      CHECK(p <= 0.0 && p > -1e-3);
    } else {
      CHECK_NEAR(p, 0.0, 1e-14);
      if (n == 2 || n == 3 || n == 5 || n == 9) { /* midpoints on the sampled grid */
        CHECK_NEAR(g, expect, 1e-12);
      } else {
        CHECK_LE(g, expect + 1e-12);
        CHECK(g > 0.9 * expect);
      }
    }
  }
  /* Zero length: all spheres coincide with the capsule (a sphere): no error at all. */
  s.length = 0.0;
  double cen[CLT_MULTISPHERE_MAX][3], rad[CLT_MULTISPHERE_MAX], g, p;
  CHECK(clt_multisphere_build(&s, 5, cen, rad) == 5);
  CHECK(clt_multisphere_surface_error(&s, 5, (const double(*)[3])cen, rad, 1000, &g, &p) == 0);
  CHECK_NEAR(g, 0.0, 1e-14);
  CHECK_NEAR(p, 0.0, 1e-14);
}

static void test_sphere_torus_unsupported(void) {
  double cen[CLT_MULTISPHERE_MAX][3], rad[CLT_MULTISPHERE_MAX], g, p;
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_SPHERE);
  s.radius = 0.7;
  CHECK(clt_multisphere_build(&s, 7, cen, rad) == 1);
  CHECK(rad[0] == 0.7 && cen[0][0] == 0.0 && cen[0][1] == 0.0 && cen[0][2] == 0.0);
  CHECK(clt_multisphere_surface_error(&s, 1, (const double(*)[3])cen, rad, 500, &g, &p) == 0);
  CHECK_NEAR(g, 0.0, 1e-15);
  CHECK_NEAR(p, 0.0, 1e-15);

  /* Ring, 32 spheres (002 §5.5 chainmail): inside, scallop R(1 − cos(π/N))-ish on the outer rim. */
  clt_shape_def_t t = clt_default_shape_def(CLT_SHAPE_TORUS);
  t.major_radius = 1.0;
  t.minor_radius = 0.1;
  CHECK(clt_multisphere_build(&t, 32, cen, rad) == 32);
  for (int i = 0; i < 32; i++) {
    CHECK_NEAR(hypot(cen[i][0], cen[i][1]), 1.0, 1e-15);
    CHECK(cen[i][2] == 0.0 && rad[i] == 0.1);
  }
  CHECK(clt_multisphere_surface_error(&t, 32, (const double(*)[3])cen, rad, 64 * 64, &g, &p) == 0);
  printf("torus R = 1, r = 0.1, N = 32: max gap %.5f, protrusion %.2e\n", g, p);
  CHECK_NEAR(p, 0.0, 1e-14);
  /* Midway between neighbours on the outer rim: the point (R + r) at angle π/N is at distance
   * √((R+r)² + R² − 2R(R+r)cos(π/N)) from a centre. */
  double half = PI / 32, expect = sqrt(1.1 * 1.1 + 1.0 - 2.0 * 1.1 * cos(half)) - 0.1;
  CHECK_NEAR(g, expect, 1e-12);
  CHECK(clt_multisphere_build(&t, 2, cen, rad) == -1);

  /* Unsupported shapes and counts. */
  clt_shape_def_t b = clt_default_shape_def(CLT_SHAPE_BOX);
  b.half_extents[0] = b.half_extents[1] = b.half_extents[2] = 1.0;
  CHECK(clt_multisphere_build(&b, 3, cen, rad) == -1);
  clt_shape_def_t h = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  CHECK(clt_multisphere_build(&h, 3, cen, rad) == -1);
  clt_shape_def_t e = ellipsoid(2.0, 1.0, 1.0);
  CHECK(clt_multisphere_build(&e, 0, cen, rad) == -1);
  CHECK(clt_multisphere_build(&e, CLT_MULTISPHERE_MAX + 1, cen, rad) == -1);
  e.semi_axes[1] = 0.0;
  CHECK(clt_multisphere_build(&e, 3, cen, rad) == -1);
}

int main(void) {
  test_ellipsoid_construction();
  test_errors_shrink();
  test_capsule();
  test_sphere_torus_unsupported();
  return clt_test_finish();
}
