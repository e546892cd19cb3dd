/* The contact-force network's branch vectors and the Love–Weber stress (clatter/analysis.h;
 * docs/analysis.md "Love–Weber stress"). */
#include <string.h>

#include "analysis/analysis_internal.h"

bool clt_analysis_contact_counts(const clt_analysis_frame_t *f, int64_t i) {
  if (!f || i < 0 || i >= f->contact_count) return false;
  if (f->contact_touching && !f->contact_touching[i]) return false;
  int a = f->contact_body_a[i], b = f->contact_body_b[i];
  if (a < 0 || a >= f->body_count || b < 0 || b >= f->body_count || a == b) return false;
  if (!clt_analysis_present(f, a) || !clt_analysis_present(f, b)) return false;
  return clt_analysis_particle(f, a) || clt_analysis_particle(f, b);
}

/* A body's end of a branch: a particle's centre, or for a wall the contact point, so that the
 * Love sum over particles counts only the particle's half of a wall contact. */
static const double *branch_end(const clt_analysis_frame_t *f, int64_t i, int body) {
  return f->body_type[body] == CLT_BODY_DYNAMIC ? f->position + 3 * (size_t)body : f->contact_point + 3 * (size_t)i;
}

void clt_analysis_contact_branch(const clt_analysis_frame_t *f, int64_t i, double branch[3]) {
  branch[0] = branch[1] = branch[2] = NAN;
  if (!f || i < 0 || i >= f->contact_count) return;
  int a = f->contact_body_a[i], b = f->contact_body_b[i];
  if (a < 0 || a >= f->body_count || b < 0 || b >= f->body_count) return;
  const double *from = branch_end(f, i, a), *to = branch_end(f, i, b);
  for (int k = 0; k < 3; k++) branch[k] = to[k] - from[k];
}

clt_status_t clt_analysis_stress(const clt_analysis_frame_t *f, const clt_analysis_box_t *region, clt_stress_t *out,
                                 char *message, size_t message_size) {
  clt_status_t st = clt_analysis_check_frame(f, message, message_size);
  if (st != CLT_OK) return st;
  if (!region) return clt_analysis_fail(message, message_size, "region: required (a finite box)");
  double volume = clt_analysis_box_volume(region, f->dimension);
  if (isnan(volume)) return clt_analysis_fail(message, message_size, "region: must be finite and not empty");
  memset(out, 0, sizeof *out);
  out->volume = volume;
  double sum[3][3] = {{0}};
  int d = f->dimension;
  for (int64_t c = 0; c < f->contact_count; c++) {
    if (!clt_analysis_contact_counts(f, c) || !clt_analysis_inside(region, d, f->contact_point + 3 * (size_t)c))
      continue;
    double l[3];
    clt_analysis_contact_branch(f, c, l);
    const double *force = f->contact_force + 3 * (size_t)c;
    /* force on B along a branch from A to B: a pressing contact gives f·l > 0, compression positive */
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) sum[i][j] += force[i] * l[j];
    out->contacts++;
  }
  double asym = 0, trace = 0;
  for (int i = 0; i < d; i++) {
    for (int j = 0; j < d; j++) {
      out->sigma[i][j] = 0.5 * (sum[i][j] + sum[j][i]) / volume;
      double skew = 0.5 * (sum[i][j] - sum[j][i]) / volume;
      asym += skew * skew;
    }
    trace += out->sigma[i][i];
  }
  out->asymmetry = sqrt(asym);
  out->pressure = trace / d;
  double ss = 0;
  for (int i = 0; i < d; i++) {
    for (int j = 0; j < d; j++) {
      double s = out->sigma[i][j] - (i == j ? out->pressure : 0);
      ss += s * s;
    }
  }
  out->deviatoric = d == 3 ? sqrt(1.5 * ss) : sqrt(0.5 * ss);
  return CLT_OK;
}
