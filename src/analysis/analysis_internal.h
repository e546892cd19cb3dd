/* Between the files of src/analysis (layer analysis, docs/architecture.md): which bodies are
 * particles, the region test, a particle's volume in a box, the frame check and the message
 * helper. The measurements themselves are in clatter/analysis.h. */
#ifndef CLATTER_ANALYSIS_INTERNAL_H
#define CLATTER_ANALYSIS_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "clatter/analysis.h"

#define CLT_ANALYSIS_PI 3.14159265358979323846

/* A body present in the frame (its position is a number). */
static inline bool clt_analysis_present(const clt_analysis_frame_t *f, int i) {
  return !isnan(f->position[3 * (size_t)i]);
}

/* A particle: a dynamic body present in the frame. */
static inline bool clt_analysis_particle(const clt_analysis_frame_t *f, int i) {
  return f->body_type[i] == CLT_BODY_DYNAMIC && clt_analysis_present(f, i);
}

/* Whether p lies in the box (closed) on the frame's axes; a NULL box holds everything. */
static inline bool clt_analysis_inside(const clt_analysis_box_t *box, int dimension, const double p[3]) {
  if (!box) return true;
  for (int k = 0; k < dimension; k++)
    if (!(p[k] >= box->lo[k] && p[k] <= box->hi[k])) return false;
  return true;
}

/* The volume (2D: area) of particle i inside the box lo … hi: exact for a sphere (disk), its whole
 * volume when its centre is inside (lo ≤ x < hi) for another shape (docs/analysis.md "Packing fraction").
 * *by_centre is set when the second rule was used and gave a volume. */
double clt_analysis_volume_in_box(const clt_analysis_frame_t *f, int i, const double lo[3], const double hi[3],
                                  bool *by_centre);

/* The box's volume on the frame's axes (2D: area), NaN unless every extent is finite and positive. */
double clt_analysis_box_volume(const clt_analysis_box_t *box, int dimension);

/* CLT_ERR_INVALID_ARGUMENT with the reason formatted into message. */
clt_status_t clt_analysis_fail(char *message, size_t message_size, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The checks every measurement makes of its frame: not NULL, dimension 2 or 3, the per-body
 * arrays there, contact rows naming bodies of the frame. */
clt_status_t clt_analysis_check_frame(const clt_analysis_frame_t *f, char *message, size_t message_size);

/* The up axis and sign: against gravity's largest component (axis < 0 or sign 0), else as given.
 * CLT_ERR_INVALID_ARGUMENT ("axis: ...") without gravity to take it from. */
clt_status_t clt_analysis_up(const clt_analysis_frame_t *f, int axis, int sign, int *up_axis, int *up_sign,
                             char *message, size_t message_size);

#endif
