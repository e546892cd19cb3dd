/* The angle of repose of a heap from its surface height profile (clatter/analysis.h;
 * docs/analysis.md "Angle of repose"). */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"

clt_repose_options_t clt_default_repose_options(void) {
  clt_repose_options_t o;
  memset(&o, 0, sizeof o);
  o.up_axis = -1;
  o.up_sign = 0;
  o.fit_min = 0.2;
  o.fit_max = 0.8;
  o.bins = 20;
  return o;
}

/* A particle's radius for its top: a sphere's own, else the radius of the sphere (disk) of its volume. */
static double top_radius(const clt_analysis_frame_t *f, int i) {
  if (f->radius[i] > 0) return f->radius[i];
  return f->dimension == 3 ? cbrt(3 * f->volume[i] / (4 * CLT_ANALYSIS_PI)) : sqrt(f->volume[i] / CLT_ANALYSIS_PI);
}

/* The distance of p from the heap's axis through centre (the up component left out). */
static double axis_distance(int dimension, int up, const double *p, const double *centre) {
  double r2 = 0;
  for (int k = 0; k < dimension; k++)
    if (k != up) r2 += (p[k] - centre[k]) * (p[k] - centre[k]);
  return sqrt(r2);
}

clt_status_t clt_analysis_repose(const clt_analysis_frame_t *f, const clt_repose_options_t *o, clt_repose_t *out,
                                 double *heights, char *message, size_t message_size) {
  clt_status_t st = clt_analysis_check_frame(f, message, message_size);
  if (st != CLT_OK) return st;
  if (!o) return clt_analysis_fail(message, message_size, "options: NULL");
  if (o->bins < 1) return clt_analysis_fail(message, message_size, "bins: must be at least 1 (got %d)", o->bins);
  if (!(o->fit_min >= 0 && o->fit_min < o->fit_max && o->fit_max <= 1))
    return clt_analysis_fail(message, message_size, "fit: must be MIN:MAX with 0 ≤ MIN < MAX ≤ 1 (got %g:%g)",
                             o->fit_min, o->fit_max);
  if (!(o->heap_radius >= 0) || isinf(o->heap_radius))
    return clt_analysis_fail(message, message_size, "heap_radius: must be a length ≥ 0 (got %g)", o->heap_radius);
  int up, sign;
  st = clt_analysis_up(f, o->up_axis, o->up_sign, &up, &sign, message, message_size);
  if (st != CLT_OK) return st;
  memset(out, 0, sizeof *out);
  if (o->has_centre) {
    for (int k = 0; k < 3; k++) out->centre[k] = k < f->dimension ? o->centre[k] : 0;
    for (int k = 0; k < f->dimension; k++)
      if (!isfinite(out->centre[k])) return clt_analysis_fail(message, message_size, "centre: must be finite");
  } else {
    double mass = 0;
    for (int i = 0; i < f->body_count; i++) {
      if (!clt_analysis_particle(f, i)) continue;
      mass += f->mass[i];
      for (int k = 0; k < 3; k++) out->centre[k] += f->mass[i] * f->position[3 * (size_t)i + k];
    }
    if (!(mass > 0)) return clt_analysis_fail(message, message_size, "frame: no particles to make a heap");
    for (int k = 0; k < 3; k++) out->centre[k] /= mass;
  }
  out->centre[up] = 0; /* an axis, not a point: its height means nothing */
  double radius = o->heap_radius;
  if (radius == 0) {
    for (int i = 0; i < f->body_count; i++) {
      if (clt_analysis_particle(f, i))
        radius =
            fmax(radius, axis_distance(f->dimension, up, f->position + 3 * (size_t)i, out->centre) + top_radius(f, i));
    }
  }
  if (!(radius > 0)) return clt_analysis_fail(message, message_size, "heap_radius: no particles to take it from");
  out->heap_radius = radius;
  int bins = o->bins;
  double width = radius / bins;
  double *top = heights ? heights : malloc(sizeof *top * (size_t)bins);
  double *top_r = malloc(sizeof *top_r * (size_t)bins);
  if (!top || !top_r) {
    if (!heights) free(top);
    free(top_r);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  for (int k = 0; k < bins; k++) top[k] = top_r[k] = NAN;
  for (int i = 0; i < f->body_count; i++) {
    if (!clt_analysis_particle(f, i)) continue;
    const double *p = f->position + 3 * (size_t)i;
    double r = axis_distance(f->dimension, up, p, out->centre);
    if (r > radius) continue;
    int k = (int)(r / width);
    if (k >= bins) k = bins - 1;
    double h = sign * p[up] + top_radius(f, i);
    if (isnan(top[k]) || h > top[k]) {
      top[k] = h;
      top_r[k] = r;
    }
  }
  /* least squares of h = intercept + slope r through each fitted bin's top particle, at its own
   * distance: a bin's top particle sits near its inner edge, not at its centre */
  double sr = 0, sh = 0, srr = 0, srh = 0;
  int m = 0;
  for (int k = 0; k < bins; k++) {
    double centre = (k + 0.5) * width;
    if (isnan(top[k]) || centre < o->fit_min * radius || centre > o->fit_max * radius) continue;
    sr += top_r[k];
    sh += top[k];
    m++;
  }
  if (m < 2) {
    if (!heights) free(top);
    free(top_r);
    return clt_analysis_fail(
        message, message_size,
        "bins: %d bins with particles between %g and %g of the heap radius %g m: at least 2 needed", m, o->fit_min,
        o->fit_max, radius);
  }
  double rbar = sr / m, hbar = sh / m;
  for (int k = 0; k < bins; k++) {
    double centre = (k + 0.5) * width;
    if (isnan(top[k]) || centre < o->fit_min * radius || centre > o->fit_max * radius) continue;
    srr += (top_r[k] - rbar) * (top_r[k] - rbar);
    srh += (top_r[k] - rbar) * (top[k] - hbar);
  }
  out->slope = srh / srr;
  out->intercept = hbar - out->slope * rbar;
  out->bins_fitted = m;
  double sq = 0;
  for (int k = 0; k < bins; k++) {
    double centre = (k + 0.5) * width;
    if (isnan(top[k]) || centre < o->fit_min * radius || centre > o->fit_max * radius) continue;
    double e = top[k] - (out->intercept + out->slope * top_r[k]);
    sq += e * e;
  }
  out->rms = sqrt(sq / m);
  free(top_r);
  out->angle = atan(-out->slope) * 180 / CLT_ANALYSIS_PI;
  if (!heights) free(top);
  return CLT_OK;
}
