/* The solid fraction of a box and the profiles along an axis (clatter/analysis.h;
 * docs/analysis.md "Packing fraction", "Profiles"). */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"

static const char *const axis_names = "xyz";

/* A finite region with a positive extent on each of the frame's axes: its volume, or an error. */
static clt_status_t region_volume(const clt_analysis_frame_t *f, const clt_analysis_box_t *region, double *volume,
                                  char *message, size_t message_size) {
  if (!region) return clt_analysis_fail(message, message_size, "region: required (a finite box)");
  *volume = clt_analysis_box_volume(region, f->dimension);
  if (isnan(*volume)) {
    for (int k = 0; k < f->dimension; k++) {
      if (!isfinite(region->lo[k]) || !isfinite(region->hi[k]))
        return clt_analysis_fail(message, message_size, "region: the %c extent must be finite (got %g … %g)",
                                 axis_names[k], region->lo[k], region->hi[k]);
      if (!(region->hi[k] > region->lo[k]))
        return clt_analysis_fail(message, message_size, "region: empty along %c (%g … %g)", axis_names[k],
                                 region->lo[k], region->hi[k]);
    }
  }
  return CLT_OK;
}

clt_status_t clt_analysis_packing(const clt_analysis_frame_t *f, const clt_analysis_box_t *region, clt_packing_t *out,
                                  char *message, size_t message_size) {
  clt_status_t st = clt_analysis_check_frame(f, message, message_size);
  double volume = 0;
  if (st == CLT_OK) st = region_volume(f, region, &volume, message, message_size);
  if (st != CLT_OK) return st;
  memset(out, 0, sizeof *out);
  out->region_volume = volume;
  for (int i = 0; i < f->body_count; i++) {
    if (!clt_analysis_particle(f, i)) continue;
    bool by_centre;
    double v = clt_analysis_volume_in_box(f, i, region->lo, region->hi, &by_centre);
    if (v > 0) {
      out->solid_volume += v;
      out->particles++;
      out->by_centre += by_centre;
    }
  }
  out->fraction = out->solid_volume / volume;
  return CLT_OK;
}

clt_status_t clt_analysis_profile(const clt_analysis_frame_t *f, const clt_analysis_box_t *region, int axis, int bins,
                                  clt_profile_bin_t *out, char *message, size_t message_size) {
  clt_status_t st = clt_analysis_check_frame(f, message, message_size);
  double volume = 0;
  if (st == CLT_OK) st = region_volume(f, region, &volume, message, message_size);
  if (st != CLT_OK) return st;
  if (axis < 0 || axis >= f->dimension)
    return clt_analysis_fail(message, message_size, "axis: must be one of the run's %d axes (got %d)", f->dimension,
                             axis);
  if (bins < 1) return clt_analysis_fail(message, message_size, "bins: must be at least 1 (got %d)", bins);
  double lo = region->lo[axis], width = (region->hi[axis] - lo) / bins;
  for (int k = 0; k < bins; k++) {
    clt_profile_bin_t *b = &out[k];
    memset(b, 0, sizeof *b);
    b->lo = lo + k * width;
    b->hi = k == bins - 1 ? region->hi[axis] : lo + (k + 1) * width;
  }
  double *momentum = calloc((size_t)bins * 3, sizeof *momentum);
  if (!momentum) return CLT_ERR_OUT_OF_MEMORY;
  for (int i = 0; i < f->body_count; i++) {
    if (!clt_analysis_particle(f, i)) continue;
    const double *p = f->position + 3 * (size_t)i;
    /* velocity: by centre, in the bin that holds it (its upper edge belongs to the last bin only) */
    if (clt_analysis_inside(region, f->dimension, p)) {
      int k = (int)floor((p[axis] - lo) / width);
      k = k < 0 ? 0 : k >= bins ? bins - 1 : k;
      out[k].particles++;
      out[k].mass += f->mass[i];
      for (int c = 0; c < 3 && f->velocity; c++) momentum[3 * k + c] += f->mass[i] * f->velocity[3 * (size_t)i + c];
    }
    /* volume: every bin the body can reach (a sphere's extent; another shape's centre) */
    double reach = f->radius[i];
    int k0 = (int)floor((p[axis] - reach - lo) / width), k1 = (int)floor((p[axis] + reach - lo) / width);
    k0 = k0 < 0 ? 0 : k0;
    k1 = k1 >= bins ? bins - 1 : k1;
    for (int k = k0; k <= k1; k++) {
      double blo[3], bhi[3];
      memcpy(blo, region->lo, sizeof blo);
      memcpy(bhi, region->hi, sizeof bhi);
      blo[axis] = out[k].lo;
      bhi[axis] = out[k].hi;
      bool by_centre;
      out[k].solid_fraction += clt_analysis_volume_in_box(f, i, blo, bhi, &by_centre);
    }
  }
  for (int k = 0; k < bins; k++) {
    clt_profile_bin_t *b = &out[k];
    b->solid_fraction /= volume / bins;
    for (int c = 0; c < 3; c++) b->velocity[c] = f->velocity && b->mass > 0 ? momentum[3 * k + c] / b->mass : NAN;
  }
  free(momentum);
  return CLT_OK;
}
