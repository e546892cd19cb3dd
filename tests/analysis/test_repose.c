/* The angle of repose (src/analysis/repose.c, docs/analysis.md "Angle of repose") of synthetic
 * heaps with a known slope: grains of radius ρ placed at random (a fixed stream) in a cone of
 * half-angle 90° − θ on a floor, their tops below the surface h(r) = H − r tan θ, measured within
 * 0.5° for θ = 20°, 30° and 38° (3D cones) and in 2D (a triangle), with the default options and
 * with a given centre, heap radius and fitted range; the floor is no particle. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <math.h>
#include <string.h>

#include "clatter/analysis.h"
#include "test_util.h"

#define PI 3.14159265358979323846
#define GRAINS 30000

static char message[512];
static uint64_t rng_state = 0x853C49E6748FEA9BULL;

static double uniform(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

int main(void) {
  /* a frame of up to GRAINS + 1 bodies, the floor first */
  static double position[GRAINS + 1][3], mass[GRAINS + 1], radius[GRAINS + 1], volume[GRAINS + 1];
  static int type[GRAINS + 1];
  double thetas[] = {20, 30, 38};
  double worst = 0;
  for (int dimension = 3; dimension >= 2; dimension--)
    for (size_t t = 0; t < sizeof thetas / sizeof thetas[0]; t++) {
      double theta = thetas[t], rho = 0.01, slope = tan(theta * PI / 180), height = 1.0, cx = 0.3, cy = -0.2;
      int grains = dimension == 3 ? GRAINS : 6000, up = dimension - 1;
      position[0][0] = cx, position[0][1] = cy, position[0][2] = 0;
      mass[0] = INFINITY, radius[0] = 0, volume[0] = 0, type[0] = CLT_BODY_STATIC;
      double base = height / slope;
      for (int g = 1; g <= grains;) {
        double p[3] = {cx + base * (2 * uniform() - 1), dimension == 3 ? cy + base * (2 * uniform() - 1) : 0, 0};
        double r = dimension == 3 ? hypot(p[0] - cx, p[1] - cy) : fabs(p[0] - cx);
        double top = height - r * slope - rho;
        if (top < rho) continue;
        p[up] = rho + (top - rho) * uniform();
        memcpy(position[g], p, sizeof p);
        radius[g] = rho;
        volume[g] = dimension == 3 ? 4.0 / 3.0 * PI * rho * rho * rho : PI * rho * rho;
        mass[g] = 2500 * volume[g];
        type[g] = CLT_BODY_DYNAMIC;
        g++;
      }
      clt_analysis_frame_t f;
      memset(&f, 0, sizeof f);
      f.dimension = dimension;
      f.gravity[up] = -9.81;
      f.body_count = grains + 1;
      f.position = &position[0][0];
      f.mass = mass;
      f.body_type = type;
      f.radius = radius;
      f.volume = volume;
      clt_repose_options_t o = clt_default_repose_options();
      clt_repose_t a;
      double heights[20];
      CHECK(clt_analysis_repose(&f, &o, &a, heights, message, sizeof message) == CLT_OK);
      CHECK_NEAR(a.angle, theta, 0.5);
      CHECK(a.bins_fitted >= 10);
      CHECK_NEAR(a.heap_radius, base, 0.05 * base);
      worst = fmax(worst, fabs(a.angle - theta));
      printf("%dD heap of %d grains at %.0f°: %.3f° (default options: centre of mass (%.4f, %.4f), R = %.4f m, "
             "%d bins, rms %.2e m)\n",
             dimension, grains, theta, a.angle, a.centre[0], a.centre[1], a.heap_radius, a.bins_fitted, a.rms);
      /* the axis and the radius given, a narrower fitted range, more bins */
      o.has_centre = true;
      o.centre[0] = cx, o.centre[1] = cy;
      o.heap_radius = base;
      o.fit_min = 0.3, o.fit_max = 0.7;
      o.bins = 40;
      CHECK(clt_analysis_repose(&f, &o, &a, NULL, message, sizeof message) == CLT_OK);
      CHECK_NEAR(a.angle, theta, 0.5);
      worst = fmax(worst, fabs(a.angle - theta));
      /* the heights: below the surface at the bin's inner edge, above it at its outer edge */
      double width = a.heap_radius / 20;
      clt_repose_options_t d = clt_default_repose_options();
      d.has_centre = true, d.centre[0] = cx, d.centre[1] = cy, d.heap_radius = base;
      CHECK(clt_analysis_repose(&f, &d, &a, heights, message, sizeof message) == CLT_OK);
      for (int k = 1; k < 19; k++) {
        CHECK_LE(heights[k], height - k * width * slope + 1e-12);
        CHECK_LE(height - (k + 1) * width * slope - 0.05, heights[k]);
      }
    }
  printf("worst |measured − built| = %.3f°\n", worst);
  /* too few bins to fit, and bad options */
  clt_repose_options_t o = clt_default_repose_options();
  clt_repose_t a;
  o.fit_min = 0.5, o.fit_max = 0.52;
  clt_analysis_frame_t f;
  memset(&f, 0, sizeof f);
  f.dimension = 3;
  f.gravity[2] = -9.81;
  f.body_count = 2;
  f.position = &position[0][0];
  f.mass = mass;
  f.body_type = type;
  f.radius = radius;
  f.volume = volume;
  CHECK(clt_analysis_repose(&f, &o, &a, NULL, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "bins:", 5) == 0);
  o = clt_default_repose_options();
  o.fit_max = 1.5;
  CHECK(clt_analysis_repose(&f, &o, &a, NULL, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "fit:", 4) == 0);
  f.gravity[2] = 0;
  o = clt_default_repose_options();
  CHECK(clt_analysis_repose(&f, &o, &a, NULL, message, sizeof message) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "axis:", 5) == 0);
  return clt_test_finish();
}
