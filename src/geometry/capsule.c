/* Rounded segments: the 2D segment (endpoints a, b, radius r ≥ 0; a "stadium" when r > 0) and the
 * 3D capsule / spherocylinder (radius r, cap-centre distance `length` along local z). */
#include "geometry/shape.h"

#include <math.h>
#include <stdio.h>

#include "math/vec.h"

static bool validate_segment(const clt_shape_def_t *s, char *msg, size_t n) {
  if (!isfinite(s->a[0]) || !isfinite(s->a[1]) || !isfinite(s->b[0]) || !isfinite(s->b[1])) {
    snprintf(msg, n, "endpoints a and b must be finite");
    return false;
  }
  if (s->a[0] == s->b[0] && s->a[1] == s->b[1]) {
    snprintf(msg, n, "endpoints a and b must differ (use a disk for a point)");
    return false;
  }
  return clt_check_nonnegative("radius", s->radius, msg, n);
}

/* Stadium = rectangle L × 2r plus two half disks; a radius-0 segment has no area (mass 0). */
static void segment_mass(const clt_shape_def_t *s, double density, clt_mass_props_t *out) {
  double dx = s->b[0] - s->a[0], dy = s->b[1] - s->a[1];
  double len = sqrt(dx * dx + dy * dy), r = s->radius;
  double m_rect = density * 2.0 * r * len;
  double m_disk = density * CLT_PI * r * r; /* both half disks */
  double k = 4.0 * r / (3.0 * CLT_PI);       /* half-disk centroid distance from its flat side */
  double i_half = 0.5 * m_disk * (0.5 * r * r - k * k) + 0.5 * m_disk * (0.5 * len + k) * (0.5 * len + k);
  out->mass = m_rect + m_disk;
  out->centroid[0] = 0.5 * (s->a[0] + s->b[0]);
  out->centroid[1] = 0.5 * (s->a[1] + s->b[1]);
  out->inertia[2][2] = m_rect * (len * len + 4.0 * r * r) / 12.0 + 2.0 * i_half;
}

static bool validate_capsule(const clt_shape_def_t *s, char *msg, size_t n) {
  return clt_check_positive("radius", s->radius, msg, n) &&
         clt_check_nonnegative("length", s->length, msg, n);
}

static void capsule_mass(const clt_shape_def_t *s, double density, clt_mass_props_t *out) {
  double r = s->radius, len = s->length;
  double m_cyl = density * CLT_PI * r * r * len;
  double m_caps = density * (4.0 / 3.0) * CLT_PI * r * r * r; /* both hemispheres */
  out->mass = m_cyl + m_caps;
  /* Hemisphere pair about the centre: m(2r²/5 + L²/4 + 3Lr/8) (parallel axis through the
   * hemisphere centroid at 3r/8 from its flat face). */
  double i_perp = m_cyl * (len * len / 12.0 + r * r / 4.0) +
                  m_caps * (0.4 * r * r + 0.25 * len * len + 0.375 * len * r);
  out->inertia[0][0] = out->inertia[1][1] = i_perp;
  out->inertia[2][2] = 0.5 * m_cyl * r * r + 0.4 * m_caps * r * r;
}

const clt_shape_ops_t clt_shape_ops_segment = {"segment", 2, true, validate_segment, segment_mass, NULL};
const clt_shape_ops_t clt_shape_ops_capsule = {"capsule", 3, true, validate_capsule, capsule_mass, NULL};
