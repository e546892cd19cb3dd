/* /contacts of a run file (docs/output-format.md "contacts (optional)"): the active contacts of
 * each trajectory frame's step, buffered row by row and appended with the frames they belong to
 * (output_flush), so that /contacts/first and /contacts/count always have as many rows as
 * /trajectory/step on disk. --resume cuts them back to a frame, and makes /contacts/touching for
 * a file written before it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/output_internal.h"

/* Room for `more` further buffered contact rows. */
static bool contact_rows_reserve(contact_rows_t *c, int more) {
  if (c->rows + more <= c->capacity) return true;
  int cap = c->capacity > 0 ? c->capacity : 64;
  while (cap < c->rows + more) cap *= 2;
  double *point = realloc(c->point, sizeof(double) * 3 * (size_t)cap);
  if (point) c->point = point;
  double *normal = realloc(c->normal, sizeof(double) * 3 * (size_t)cap);
  if (normal) c->normal = normal;
  double *force = realloc(c->force, sizeof(double) * 3 * (size_t)cap);
  if (force) c->force = force;
  double *distance = realloc(c->distance, sizeof(double) * (size_t)cap);
  if (distance) c->distance = distance;
  double *normal_force = realloc(c->normal_force, sizeof(double) * (size_t)cap);
  if (normal_force) c->normal_force = normal_force;
  int32_t *body_a = realloc(c->body_a, sizeof(int32_t) * (size_t)cap);
  if (body_a) c->body_a = body_a;
  int32_t *body_b = realloc(c->body_b, sizeof(int32_t) * (size_t)cap);
  if (body_b) c->body_b = body_b;
  uint8_t *touching = realloc(c->touching, (size_t)cap);
  if (touching) c->touching = touching;
  if (!point || !normal || !force || !distance || !normal_force || !body_a || !body_b || !touching) return false;
  c->capacity = cap;
  return true;
}

/* The active contacts of the step that produced frame r of the buffer (docs/output-format.md
 * /contacts): forces are the step's impulses over h. */
bool output_record_contacts(clt_output_t *out, const clt_world_t *world, int r) {
  int n = clt_world_contact_count(world);
  contact_rows_t *c = &out->cont_rows;
  if (n < 0 || !contact_rows_reserve(c, n)) return false;
  out->cont_first[r] = out->contact_total;
  out->cont_count[r] = n;
  double h = out->time_step;
  for (int i = 0; i < n; i++) {
    clt_contact_info_t info;
    if (clt_world_get_contact(world, i, &info) != CLT_OK) return false;
    int row = c->rows + i;
    for (int k = 0; k < 3; k++) {
      c->point[3 * row + k] = info.point[k];
      c->normal[3 * row + k] = info.normal[k];
      c->force[3 * row + k] = info.impulse[k] / h;
    }
    c->distance[row] = info.distance;
    c->normal_force[row] = info.normal_impulse / h;
    c->body_a[row] = info.body_a;
    c->body_b[row] = info.body_b;
    c->touching[row] = info.touching ? 1 : 0;
  }
  c->rows += n;
  out->contact_total += n;
  return true;
}

void output_free_contact_rows(contact_rows_t *c) {
  free(c->point);
  free(c->normal);
  free(c->force);
  free(c->distance);
  free(c->normal_force);
  free(c->body_a);
  free(c->body_b);
  free(c->touching);
}

/* /contacts/touching of a file written before it (--resume): the rule of clt_contact_info_t.touching
 * applied to the stored rows, frame by frame — distance ≤ CLT_TOUCH_GAP_FRACTION · ε̂, or a normal
 * force above CLT_TOUCH_IMPULSE_FRACTION of the frame's largest (forces are the impulses over h). */
bool output_fill_touching(clt_output_t *out) {
  hsize_t nf = 0, nc = 0, nd = 0, nn = 0;
  int64_t *first = clt_h5_read_column(out->cont[CONT_FIRST], H5T_NATIVE_INT64, 8, &nf);
  int64_t *count = clt_h5_read_column(out->cont[CONT_COUNT], H5T_NATIVE_INT64, 8, &nc);
  double *distance = clt_h5_read_column(out->cont[CONT_DISTANCE], H5T_NATIVE_DOUBLE, 8, &nd);
  double *normal_force = clt_h5_read_column(out->cont[CONT_NORMAL_FORCE], H5T_NATIVE_DOUBLE, 8, &nn);
  uint8_t *touching = malloc((size_t)(nd > 0 ? nd : 1));
  bool ok = first && count && distance && normal_force && touching && nf == nc && nd == nn;
  if (ok) memset(touching, 0, (size_t)nd);
  const clt_method_t *m = out->method;
  for (hsize_t f = 0; ok && f < nf; f++) {
    if (first[f] < 0 || count[f] < 0 || (hsize_t)(first[f] + count[f]) > nd) {
      ok = false;
      break;
    }
    double largest = 0.0;
    for (int64_t i = first[f]; i < first[f] + count[f]; i++) largest = fmax(largest, normal_force[i]);
    for (int64_t i = first[f]; i < first[f] + count[f]; i++)
      touching[i] = distance[i] <= CLT_TOUCH_GAP_FRACTION * m->active_set_eps ||
                    normal_force[i] > CLT_TOUCH_IMPULSE_FRACTION * largest;
  }
  ok = ok && output_append_rows(out->cont[CONT_TOUCHING], H5T_NATIVE_UINT8, nd, touching) >= 0;
  free(first);
  free(count);
  free(distance);
  free(normal_force);
  free(touching);
  return ok;
}

/* Cuts /contacts back to its first `frames` frames: the contact rows those frames own. */
bool output_truncate_contacts(clt_output_t *out, int64_t frames) {
  int64_t rows = 0;
  hsize_t have = output_table_rows(out->cont[CONT_POINT]);
  hsize_t kept_frames = (hsize_t)frames;
  if (output_table_rows(out->cont[CONT_FIRST]) < kept_frames || output_table_rows(out->cont[CONT_COUNT]) < kept_frames)
    return false;
  if (frames > 0) {
    int64_t first = 0, count = 0;
    hsize_t start = (hsize_t)frames - 1, one = 1;
    for (int k = CONT_FIRST; k <= CONT_COUNT; k++) {
      hid_t space = H5Dget_space(out->cont[k]);
      hid_t mem = H5Screate_simple(1, &one, NULL);
      H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &one, NULL);
      int64_t *value = k == CONT_FIRST ? &first : &count;
      herr_t r = H5Dread(out->cont[k], H5T_NATIVE_INT64, mem, space, H5P_DEFAULT, value);
      H5Sclose(mem);
      H5Sclose(space);
      if (r < 0) return false;
    }
    rows = first + count;
    if (first < 0 || count < 0 || (hsize_t)rows > have) return false;
  }
  for (int k = 0; k < CONT_DATASETS; k++) {
    hsize_t keep = k == CONT_FIRST || k == CONT_COUNT ? (hsize_t)frames : (hsize_t)rows;
    if (output_table_rows(out->cont[k]) < keep || output_truncate_rows(out->cont[k], keep) < 0) return false;
  }
  out->contact_total = rows;
  return true;
}
