/* Exact sphere–box volumes and disk–box areas (src/analysis/volume.c, docs/analysis.md
 * "Sphere–box volumes") against closed forms (one plane: a cap; planes through the centre: halves,
 * quarters, eighths; a disk's segment), against slicing (the 3D volume as the integral over z of
 * the exact 2D area, by composite Gauss–Legendre between the breakpoints), against Monte Carlo
 * with a stated tolerance, and by additivity (a sphere cut into the cells of a grid: the cells'
 * volumes add up to the whole). Shape volumes against their formulas. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clatter/analysis.h"
#include "test_util.h"

#define PI 3.14159265358979323846

static double sphere(double r) { return 4.0 / 3.0 * PI * r * r * r; }

/* splitmix64: a fixed, portable stream for the Monte Carlo checks */
static uint64_t rng_state = 0x2545F4914F6CDD1DULL;
static double uniform(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* The cap of height h of a ball of radius r: π h² (3r − h) / 3. */
static double cap(double r, double h) { return PI * h * h * (3 * r - h) / 3; }

/* Monte Carlo estimate of the ball's volume in the box, with its standard error: n points uniform
 * in the box ∩ the ball's bounding cube. */
static double monte_carlo(const double c[3], double r, const double lo[3], const double hi[3], long n, double *sigma) {
  double a[3], b[3], cube = 1;
  for (int k = 0; k < 3; k++) {
    a[k] = fmax(lo[k], c[k] - r);
    b[k] = fmin(hi[k], c[k] + r);
    cube *= b[k] - a[k];
  }
  long hits = 0;
  for (long i = 0; i < n; i++) {
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
      double x = a[k] + (b[k] - a[k]) * uniform() - c[k];
      d2 += x * x;
    }
    hits += d2 <= r * r;
  }
  double p = (double)hits / (double)n;
  *sigma = cube * sqrt(p * (1 - p) / (double)n);
  return cube * p;
}

/* The 3D volume by slicing: ∫ area(disk of radius √(r² − z²) ∩ rectangle) dz, composite 8-point
 * Gauss–Legendre on 64 panels per piece between the z where the slice's circle meets an edge or a
 * corner, in a variable that makes the pieces' square-root ends smooth. */
static double sliced(const double c[3], double r, const double lo[3], const double hi[3]) {
  static const double x8[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363};
  static const double w8[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};
  double z0 = fmax(lo[2] - c[2], -r), z1 = fmin(hi[2] - c[2], r);
  if (z1 <= z0) return 0;
  double cuts[32];
  int m = 0;
  cuts[m++] = z0;
  cuts[m++] = z1;
  double ex[2] = {lo[0] - c[0], hi[0] - c[0]}, ey[2] = {lo[1] - c[1], hi[1] - c[1]};
  double d2[8];
  int nd = 0;
  for (int i = 0; i < 2; i++) {
    d2[nd++] = ex[i] * ex[i];
    d2[nd++] = ey[i] * ey[i];
    for (int j = 0; j < 2; j++) d2[nd++] = ex[i] * ex[i] + ey[j] * ey[j];
  }
  for (int i = 0; i < nd; i++) {
    if (d2[i] >= r * r) continue;
    double z = sqrt(r * r - d2[i]);
    if (z > z0 && z < z1) cuts[m++] = z;
    if (-z > z0 && -z < z1) cuts[m++] = -z;
  }
  for (int i = 1; i < m; i++)
    for (int j = i; j > 0 && cuts[j] < cuts[j - 1]; j--) {
      double t = cuts[j];
      cuts[j] = cuts[j - 1];
      cuts[j - 1] = t;
    }
  /* z = z_p + (z_{p+1} − z_p)(3t² − 2t³): the square roots at both ends of a piece become smooth */
  double total = 0;
  const int panels = 64;
  for (int p = 0; p + 1 < m; p++) {
    double span = cuts[p + 1] - cuts[p];
    for (int q = 0; q < panels; q++) {
      double mid = (q + 0.5) / panels, half = 0.5 / panels;
      for (int g = 0; g < 8; g++) {
        double t = mid + (g < 4 ? -1 : 1) * x8[g % 4] * half;
        double z = cuts[p] + span * t * t * (3 - 2 * t), dz = span * 6 * t * (1 - t);
        double rho = sqrt(fmax(0, r * r - z * z)), centre2[2] = {c[0], c[1]};
        total += w8[g % 4] * half * dz * clt_disk_box_area(centre2, rho, lo, hi);
      }
    }
  }
  return total;
}

static void check_closed_forms(void) {
  double c[3] = {0.3, -1.2, 2.5}, r = 0.7;
  double inf = INFINITY;
  double lo[3] = {-inf, -inf, -inf}, hi[3] = {inf, inf, inf};
  CHECK_NEAR(clt_sphere_box_volume(c, r, lo, hi), sphere(r), 1e-15);
  /* one plane: the cap above z = c_z + d, for d across the whole sphere */
  for (int i = -9; i <= 9; i++) {
    double d = r * i / 10.0;
    double cut[3] = {-inf, -inf, c[2] + d};
    CHECK_NEAR(clt_sphere_box_volume(c, r, cut, hi), cap(r, r - d), 1e-15);
    double below[3] = {inf, inf, c[2] + d};
    CHECK_NEAR(clt_sphere_box_volume(c, r, lo, below), sphere(r) - cap(r, r - d), 1e-15);
  }
  /* planes through the centre: half, quarter, eighth, on every axis and side */
  for (int k = 0; k < 3; k++) {
    double a[3] = {-inf, -inf, -inf};
    a[k] = c[k];
    CHECK_NEAR(clt_sphere_box_volume(c, r, a, hi), sphere(r) / 2, 2e-16);
    double q[3] = {c[0], c[1], c[2]};
    q[k] = -inf;
    CHECK_NEAR(clt_sphere_box_volume(c, r, q, hi), sphere(r) / 4, 2e-16);
  }
  for (int corner = 0; corner < 8; corner++) {
    double a[3], b[3];
    for (int k = 0; k < 3; k++) {
      bool high = (corner >> k) & 1;
      a[k] = high ? c[k] : -inf;
      b[k] = high ? inf : c[k];
    }
    CHECK_NEAR(clt_sphere_box_volume(c, r, a, b), sphere(r) / 8, 2e-16);
  }
  /* two perpendicular planes, one through the centre: half the cap */
  double h = 0.25;
  double two[3] = {c[0], -inf, c[2] + r - h};
  CHECK_NEAR(clt_sphere_box_volume(c, r, two, hi), cap(r, h) / 2, 2e-16);
  /* a slab: the ball between two parallel planes */
  double slab_lo[3] = {-inf, c[1] - 0.2, -inf}, slab_hi[3] = {inf, c[1] + 0.5, inf};
  CHECK_NEAR(clt_sphere_box_volume(c, r, slab_lo, slab_hi), sphere(r) - cap(r, r - 0.5) - cap(r, r - 0.2), 1e-15);
  /* outside, touching, empty and degenerate boxes */
  double far_lo[3] = {c[0] + r, -inf, -inf};
  CHECK(clt_sphere_box_volume(c, r, far_lo, hi) == 0);
  double empty_lo[3] = {0, 0, 1}, empty_hi[3] = {1, 1, 0};
  CHECK(clt_sphere_box_volume(c, r, empty_lo, empty_hi) == 0);
  CHECK(isnan(clt_sphere_box_volume(c, -1, lo, hi)));
  double nan_lo[3] = {NAN, 0, 0};
  CHECK(isnan(clt_sphere_box_volume(c, r, nan_lo, hi)));
  double c0[3] = {0, 0, 0};
  CHECK(clt_sphere_box_volume(c0, 0, lo, hi) == 0);
}

/* Boxes cut by one, two and three planes at random, against slicing (1e-13 r³) and Monte Carlo
 * (4·10⁶ points: within 5 standard errors). */
static void check_random_boxes(void) {
  double worst_slice = 0, worst_sigma = 0;
  for (int t = 0; t < 60; t++) {
    double c[3] = {uniform() - 0.5, uniform() - 0.5, uniform() - 0.5}, r = 0.3 + uniform();
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
      /* every face, one axis at a time, may cut the ball or not */
      lo[k] = c[k] + r * (2.4 * uniform() - 1.6);
      hi[k] = lo[k] + r * (0.2 + 2 * uniform());
    }
    double v = clt_sphere_box_volume(c, r, lo, hi);
    double s = sliced(c, r, lo, hi);
    worst_slice = fmax(worst_slice, fabs(v - s) / (r * r * r));
    CHECK_NEAR(v, s, 1e-13 * r * r * r);
    if (t < 12) {
      double sigma, mc = monte_carlo(c, r, lo, hi, 4000000, &sigma);
      worst_sigma = fmax(worst_sigma, fabs(v - mc) / fmax(sigma, 1e-300));
      CHECK_NEAR(v, mc, 5 * sigma + 1e-12);
    }
  }
  printf("random boxes: worst |exact − sliced| = %.2e r³, worst |exact − Monte Carlo| = %.2f σ\n", worst_slice,
         worst_sigma);
}

/* A sphere in the cells of a grid that cuts it at arbitrary planes: the cells sum to the ball. */
static void check_additivity(void) {
  double c[3] = {0.123, -0.456, 0.789}, r = 1.1;
  double worst = 0;
  for (int n = 2; n <= 7; n++) {
    double sum = 0, edge = 2.6 * r / n;
    double origin[3] = {c[0] - 1.3 * r + 0.01, c[1] - 1.3 * r - 0.02, c[2] - 1.3 * r + 0.03};
    for (int i = -1; i <= n; i++)
      for (int j = -1; j <= n; j++)
        for (int k = -1; k <= n; k++) {
          double lo[3] = {origin[0] + i * edge, origin[1] + j * edge, origin[2] + k * edge};
          double hi[3] = {lo[0] + edge, lo[1] + edge, lo[2] + edge};
          sum += clt_sphere_box_volume(c, r, lo, hi);
        }
    worst = fmax(worst, fabs(sum - sphere(r)));
    CHECK_NEAR(sum, sphere(r), 2e-14);
  }
  printf("additivity: worst |Σ cells − 4/3 π r³| = %.2e (r = 1.1)\n", worst);
}

static void check_disk(void) {
  double c[2] = {0.4, -0.3}, r = 0.9, inf = INFINITY;
  double lo[2] = {-inf, -inf}, hi[2] = {inf, inf};
  CHECK_NEAR(clt_disk_box_area(c, r, lo, hi), PI * r * r, 1e-15);
  for (int i = -9; i <= 9; i++) {
    double d = r * i / 10.0;
    double cut[2] = {c[0] + d, -inf};
    /* the segment beyond a chord at distance d: r² acos(d/r) − d √(r² − d²) */
    CHECK_NEAR(clt_disk_box_area(c, r, cut, hi), r * r * acos(d / r) - d * sqrt(r * r - d * d), 1e-15);
  }
  double quarter[2] = {c[0], c[1]};
  CHECK_NEAR(clt_disk_box_area(c, r, quarter, hi), PI * r * r / 4, 2e-16);
  /* a rectangle cut by two and four lines, against Monte Carlo */
  for (int t = 0; t < 6; t++) {
    double a[2] = {c[0] - r + 1.2 * r * uniform(), c[1] - r + 1.2 * r * uniform()};
    double b[2] = {a[0] + r * (0.3 + uniform()), a[1] + r * (0.3 + uniform())};
    long n = 4000000, hits = 0;
    double x0 = fmax(a[0], c[0] - r), x1 = fmin(b[0], c[0] + r), y0 = fmax(a[1], c[1] - r), y1 = fmin(b[1], c[1] + r);
    for (long i = 0; i < n; i++) {
      double x = x0 + (x1 - x0) * uniform() - c[0], y = y0 + (y1 - y0) * uniform() - c[1];
      hits += x * x + y * y <= r * r;
    }
    double area = (x1 - x0) * (y1 - y0), p = (double)hits / (double)n;
    double sigma = area * sqrt(p * (1 - p) / (double)n);
    CHECK_NEAR(clt_disk_box_area(c, r, a, b), area * p, 5 * sigma + 1e-12);
  }
}

static void check_shapes(void) {
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_SPHERE);
  s.radius = 0.2;
  CHECK_NEAR(clt_shape_volume(&s), sphere(0.2), 1e-15);
  s = clt_default_shape_def(CLT_SHAPE_BOX);
  s.half_extents[0] = 0.1, s.half_extents[1] = 0.2, s.half_extents[2] = 0.3;
  CHECK_NEAR(clt_shape_volume(&s), 0.048, 1e-15);
  s = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  s.radius = 0.1, s.length = 0.5;
  CHECK_NEAR(clt_shape_volume(&s), PI * 0.01 * 0.5 + sphere(0.1), 1e-15);
  s = clt_default_shape_def(CLT_SHAPE_CYLINDER);
  s.radius = 0.1, s.length = 0.5;
  CHECK_NEAR(clt_shape_volume(&s), PI * 0.01 * 0.5, 1e-15);
  s = clt_default_shape_def(CLT_SHAPE_ELLIPSOID);
  s.semi_axes[0] = 0.1, s.semi_axes[1] = 0.2, s.semi_axes[2] = 0.3;
  CHECK_NEAR(clt_shape_volume(&s), 4.0 / 3.0 * PI * 0.006, 1e-15);
  s = clt_default_shape_def(CLT_SHAPE_TORUS);
  s.major_radius = 0.5, s.minor_radius = 0.1;
  CHECK_NEAR(clt_shape_volume(&s), 2 * PI * PI * 0.5 * 0.01, 1e-15);
  /* a unit cube as a polyhedron */
  double corners[8][3];
  for (int i = 0; i < 8; i++)
    for (int k = 0; k < 3; k++) corners[i][k] = (i >> k) & 1;
  clt_convex_t *cube = NULL;
  CHECK(clt_convex_from_points((const double(*)[3])corners, 8, &cube, NULL, 0) == CLT_OK);
  s = clt_default_shape_def(CLT_SHAPE_POLYHEDRON);
  s.convex = cube;
  CHECK_NEAR(clt_shape_volume(&s), 1, 1e-14);
  clt_convex_release(cube);
  s = clt_default_shape_def(CLT_SHAPE_POLYGON);
  s.vertex_count = 3;
  double tri[3][2] = {{0, 0}, {2, 0}, {0, 1}};
  for (int i = 0; i < 3; i++) s.vertices[i][0] = tri[i][0], s.vertices[i][1] = tri[i][1];
  CHECK_NEAR(clt_shape_volume(&s), 1, 1e-15);
  s = clt_default_shape_def(CLT_SHAPE_SEGMENT);
  s.radius = 0.1, s.a[0] = 0, s.b[0] = 1;
  CHECK_NEAR(clt_shape_volume(&s), 0.2 + PI * 0.01, 1e-15);
  s = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
  CHECK(clt_shape_volume(&s) == 0);
}

int main(void) {
  check_closed_forms();
  check_random_boxes();
  check_additivity();
  check_disk();
  check_shapes();
  return clt_test_finish();
}
