/* The mass that crossed a plane between two frames (clatter/analysis.h; docs/analysis.md "Mass
 * flow rate"). */
#include <string.h>

#include "analysis/analysis_internal.h"

clt_status_t clt_analysis_flow(const clt_analysis_frame_t *before, const clt_analysis_frame_t *after, int axis,
                               double position, const clt_analysis_box_t *region, clt_flow_t *out, char *message,
                               size_t message_size) {
  clt_status_t st = clt_analysis_check_frame(before, message, message_size);
  if (st == CLT_OK) st = clt_analysis_check_frame(after, message, message_size);
  if (st != CLT_OK) return st;
  if (before->body_count != after->body_count || before->dimension != after->dimension)
    return clt_analysis_fail(message, message_size, "frames: %d and %d bodies, %dD and %dD: not the same bodies",
                             before->body_count, after->body_count, before->dimension, after->dimension);
  if (!(after->time > before->time))
    return clt_analysis_fail(message, message_size,
                             "frames: the second frame (t = %g s) must come after the first (t = %g s)", after->time,
                             before->time);
  if (axis < 0 || axis >= after->dimension)
    return clt_analysis_fail(message, message_size, "axis: must be one of the run's %d axes (got %d)", after->dimension,
                             axis);
  if (!isfinite(position)) return clt_analysis_fail(message, message_size, "plane: must be a finite position");
  memset(out, 0, sizeof *out);
  for (int i = 0; i < after->body_count; i++) {
    if (!clt_analysis_particle(before, i) || !clt_analysis_particle(after, i)) continue;
    const double *p0 = before->position + 3 * (size_t)i, *p1 = after->position + 3 * (size_t)i;
    bool below0 = p0[axis] < position, below1 = p1[axis] < position;
    if (below0 == below1) continue;
    if (region) {
      /* where the straight path between the two centres meets the plane (p0 ≠ p1 along the axis) */
      double t = (position - p0[axis]) / (p1[axis] - p0[axis]), q[3];
      for (int k = 0; k < 3; k++) q[k] = p0[k] + t * (p1[k] - p0[k]);
      bool inside = true; /* on the other axes: the region's extent along the plane's normal is no limit */
      for (int k = 0; k < after->dimension; k++)
        if (k != axis && !(q[k] >= region->lo[k] && q[k] <= region->hi[k])) inside = false;
      if (!inside) continue;
    }
    out->crossings++;
    if (below0)
      out->mass_positive += after->mass[i];
    else
      out->mass_negative += after->mass[i];
  }
  out->net = out->mass_positive - out->mass_negative;
  out->rate = out->net / (after->time - before->time);
  return CLT_OK;
}
