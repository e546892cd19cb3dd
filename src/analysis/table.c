/* One measurement over a range of a run file's frames, as a table of numbers: the rows `clatter
 * analyze` writes as CSV and clatter.analyze returns (clatter/analysis.h; the columns are listed
 * in docs/analysis.md "Tables"). */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"

static const char *const kind_names[CLT_ANALYSIS_KIND_COUNT] = {"packing", "coordination", "forces", "stress",
                                                                "profile", "repose",       "flow"};

const char *clt_analysis_kind_name(clt_analysis_kind_t kind) {
  return kind >= 0 && kind < CLT_ANALYSIS_KIND_COUNT ? kind_names[kind] : NULL;
}

clt_analysis_kind_t clt_analysis_kind_from_name(const char *name) {
  for (int k = 0; name && k < CLT_ANALYSIS_KIND_COUNT; k++)
    if (strcmp(kind_names[k], name) == 0) return (clt_analysis_kind_t)k;
  return CLT_ANALYSIS_KIND_COUNT;
}

clt_analysis_request_t clt_default_analysis_request(clt_analysis_kind_t kind) {
  clt_analysis_request_t r;
  memset(&r, 0, sizeof r);
  r.kind = kind;
  r.first = r.last = -1;
  r.stride = 1;
  r.axis = -1;
  r.min_contacts = 2;
  r.repose = clt_default_repose_options();
  return r;
}

/* The columns of each kind; `#` marks an integer column (the mark is not part of the name). */
static const char *const columns_packing[] = {
    "#frame", "#step", "time", "region_volume", "solid_volume", "packing_fraction", "#particles", "#by_centre", NULL};
static const char *const columns_coordination[] = {"#frame",
                                                   "#step",
                                                   "time",
                                                   "#particles",
                                                   "#partners",
                                                   "coordination",
                                                   "#rattlers",
                                                   "#backbone_partners",
                                                   "mechanical_coordination",
                                                   NULL};
static const char *const columns_forces[] = {"#frame",   "#step",    "time",     "#body_a",  "#body_b",
                                             "point_x",  "point_y",  "point_z",  "normal_x", "normal_y",
                                             "normal_z", "force_x",  "force_y",  "force_z",  "normal_force",
                                             "branch_x", "branch_y", "branch_z", NULL};
static const char *const columns_stress[] = {"#frame",   "#step",    "time",       "volume",    "#contacts",
                                             "sigma_xx", "sigma_yy", "sigma_zz",   "sigma_xy",  "sigma_xz",
                                             "sigma_yz", "pressure", "deviatoric", "asymmetry", NULL};
static const char *const columns_profile[] = {"#frame",     "#step",      "time", "#bin",           "lo",
                                              "hi",         "#particles", "mass", "solid_fraction", "velocity_x",
                                              "velocity_y", "velocity_z", NULL};
static const char *const columns_repose[] = {"#frame",       "#step",       "time",     "angle",    "slope",
                                             "intercept",    "heap_radius", "centre_x", "centre_y", "centre_z",
                                             "#bins_fitted", "rms",         NULL};
static const char *const columns_flow[] = {"#frame_a",      "#frame_b", "time_a", "time_b",     "mass_positive",
                                           "mass_negative", "net_mass", "rate",   "#crossings", NULL};
static const char *const *const kind_columns[CLT_ANALYSIS_KIND_COUNT] = {
    columns_packing, columns_coordination, columns_forces, columns_stress,
    columns_profile, columns_repose,       columns_flow};

/* The table being built: its names and flags, and the values growing a row at a time. */
typedef struct table_storage_t {
  const char *names[24];
  bool integer[24];
  int64_t capacity; /* rows */
} table_storage_t;

static bool table_start(clt_analysis_table_t *t, clt_analysis_kind_t kind) {
  memset(t, 0, sizeof *t);
  table_storage_t *s = calloc(1, sizeof *s);
  if (!s) return false;
  const char *const *columns = kind_columns[kind];
  for (int c = 0; columns[c]; c++) {
    s->integer[c] = columns[c][0] == '#';
    s->names[c] = columns[c] + s->integer[c];
    t->column_count++;
  }
  t->names = s->names;
  t->integer = s->integer;
  t->storage = s;
  return true;
}

void clt_analysis_table_free(clt_analysis_table_t *table) {
  if (!table) return;
  free(table->storage);
  free(table->values);
  memset(table, 0, sizeof *table);
}

/* Appends a row (column_count values); false when memory runs out. */
static bool table_row(clt_analysis_table_t *t, const double *row) {
  table_storage_t *s = t->storage;
  if (t->row_count == s->capacity) {
    int64_t capacity = s->capacity ? 2 * s->capacity : 64;
    double *v = realloc(t->values, sizeof(double) * (size_t)capacity * (size_t)t->column_count);
    if (!v) return false;
    t->values = v;
    s->capacity = capacity;
  }
  memcpy(t->values + t->row_count * t->column_count, row, sizeof(double) * (size_t)t->column_count);
  t->row_count++;
  return true;
}

/* The frames the request names, resolved against the run's count (negative: from the end). */
static clt_status_t resolve_frames(const clt_analysis_request_t *r, int64_t count, int64_t *first, int64_t *last,
                                   int64_t *stride, char *message, size_t message_size) {
  if (count == 0) return clt_analysis_fail(message, message_size, "frames: the run has no trajectory frames");
  if (!r->frames_given) {
    *first = r->kind == CLT_ANALYSIS_FLOW ? 0 : count - 1;
    *last = count - 1;
    *stride = 1;
    return CLT_OK;
  }
  *first = r->first < 0 ? count + r->first : r->first;
  *last = r->last < 0 ? count + r->last : r->last;
  if (*last > count - 1) *last = count - 1;
  *stride = r->stride;
  if (r->stride < 1) return clt_analysis_fail(message, message_size, "frames: the stride must be at least 1");
  if (*first < 0 || *first > *last)
    return clt_analysis_fail(message, message_size, "frames: %lld:%lld is not a range within 0 … %lld",
                             (long long)r->first, (long long)r->last, (long long)count - 1);
  return CLT_OK;
}

static void row_start(double *row, const clt_analysis_frame_t *f) {
  row[0] = (double)f->frame;
  row[1] = (double)f->step;
  row[2] = f->time;
}

/* The rows of one frame (every kind but flow). */
static clt_status_t measure_frame(const clt_analysis_request_t *r, const clt_analysis_frame_t *f,
                                  clt_analysis_table_t *t, char *message, size_t message_size) {
  double row[24] = {0};
  row_start(row, f);
  const clt_analysis_box_t *region = r->has_region ? &r->region : NULL;
  clt_status_t st = CLT_OK;
  bool ok = true;
  switch (r->kind) {
  case CLT_ANALYSIS_PACKING: {
    clt_packing_t p;
    st = clt_analysis_packing(f, region, &p, message, message_size);
    double v[] = {p.region_volume, p.solid_volume, p.fraction, p.particles, p.by_centre};
    memcpy(row + 3, v, sizeof v);
    ok = st != CLT_OK || table_row(t, row);
    break;
  }
  case CLT_ANALYSIS_COORDINATION: {
    clt_coordination_t c;
    st = clt_analysis_coordination(f, region, r->min_contacts, &c, message, message_size);
    double v[] = {c.particles, (double)c.partners, c.mean, c.rattlers, (double)c.backbone_partners, c.mechanical};
    memcpy(row + 3, v, sizeof v);
    ok = st != CLT_OK || table_row(t, row);
    break;
  }
  case CLT_ANALYSIS_FORCES:
    st = clt_analysis_check_frame(f, message, message_size);
    for (int64_t i = 0; st == CLT_OK && ok && i < f->contact_count; i++) {
      if (!clt_analysis_contact_counts(f, i) || !clt_analysis_inside(region, f->dimension, f->contact_point + 3 * i))
        continue;
      const double *n = f->contact_normal ? f->contact_normal + 3 * i : NULL, *force = f->contact_force + 3 * i;
      row[3] = f->contact_body_a[i];
      row[4] = f->contact_body_b[i];
      for (int k = 0; k < 3; k++) {
        row[5 + k] = f->contact_point[3 * i + k];
        row[8 + k] = n ? n[k] : NAN;
        row[11 + k] = force[k];
      }
      row[14] = n ? force[0] * n[0] + force[1] * n[1] + force[2] * n[2] : NAN;
      clt_analysis_contact_branch(f, i, row + 15);
      ok = table_row(t, row);
    }
    break;
  case CLT_ANALYSIS_STRESS: {
    clt_stress_t s;
    st = clt_analysis_stress(f, region, &s, message, message_size);
    double v[] = {s.volume,      (double)s.contacts, s.sigma[0][0], s.sigma[1][1], s.sigma[2][2], s.sigma[0][1],
                  s.sigma[0][2], s.sigma[1][2],      s.pressure,    s.deviatoric,  s.asymmetry};
    memcpy(row + 3, v, sizeof v);
    ok = st != CLT_OK || table_row(t, row);
    break;
  }
  case CLT_ANALYSIS_PROFILE: {
    int axis = r->axis, sign;
    if (axis < 0) st = clt_analysis_up(f, -1, 0, &axis, &sign, message, message_size);
    int bins = r->bins > 0 ? r->bins : 20;
    clt_profile_bin_t *b = st == CLT_OK ? malloc(sizeof *b * (size_t)bins) : NULL;
    if (st == CLT_OK && !b) st = CLT_ERR_OUT_OF_MEMORY;
    if (st == CLT_OK) st = clt_analysis_profile(f, region, axis, bins, b, message, message_size);
    for (int k = 0; st == CLT_OK && ok && k < bins; k++) {
      double v[] = {k,
                    b[k].lo,
                    b[k].hi,
                    b[k].particles,
                    b[k].mass,
                    b[k].solid_fraction,
                    b[k].velocity[0],
                    b[k].velocity[1],
                    b[k].velocity[2]};
      memcpy(row + 3, v, sizeof v);
      ok = table_row(t, row);
    }
    free(b);
    break;
  }
  case CLT_ANALYSIS_REPOSE: {
    clt_repose_options_t o = r->repose;
    if (r->bins > 0) o.bins = r->bins;
    if (r->axis >= 0) o.up_axis = r->axis;
    clt_repose_t a;
    st = clt_analysis_repose(f, &o, &a, NULL, message, message_size);
    double v[] = {a.angle,     a.slope,     a.intercept,   a.heap_radius, a.centre[0],
                  a.centre[1], a.centre[2], a.bins_fitted, a.rms};
    memcpy(row + 3, v, sizeof v);
    ok = st != CLT_OK || table_row(t, row);
    break;
  }
  case CLT_ANALYSIS_FLOW:
  case CLT_ANALYSIS_KIND_COUNT: break;
  }
  if (st == CLT_OK && !ok) {
    clt_analysis_fail(message, message_size, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  return st;
}

clt_status_t clt_analysis_table(clt_analysis_run_t *run, const clt_analysis_request_t *r, clt_analysis_table_t *out,
                                char *message, size_t message_size) {
  memset(out, 0, sizeof *out);
  if (!run || !r) return clt_analysis_fail(message, message_size, "run and request: required");
  if (r->kind < 0 || r->kind >= CLT_ANALYSIS_KIND_COUNT)
    return clt_analysis_fail(message, message_size, "what: unknown measurement %d", (int)r->kind);
  bool needs_region =
      r->kind == CLT_ANALYSIS_PACKING || r->kind == CLT_ANALYSIS_STRESS || r->kind == CLT_ANALYSIS_PROFILE;
  if (needs_region && !r->has_region)
    return clt_analysis_fail(message, message_size, "region: %s needs a region (a finite box)", kind_names[r->kind]);
  if (r->kind == CLT_ANALYSIS_FLOW && !r->has_plane)
    return clt_analysis_fail(message, message_size, "plane: flow needs the plane's position along the axis");
  if (r->bins < 0) return clt_analysis_fail(message, message_size, "bins: must be at least 1 (got %d)", r->bins);
  int64_t first = 0, last = -1, stride = 1;
  clt_status_t st = resolve_frames(r, clt_analysis_frame_count(run), &first, &last, &stride, message, message_size);
  if (st != CLT_OK) return st;
  if (r->kind == CLT_ANALYSIS_FLOW && first + stride > last)
    return clt_analysis_fail(message, message_size, "frames: flow needs at least two frames (got %lld only)",
                             (long long)first);
  if (!table_start(out, r->kind)) return CLT_ERR_OUT_OF_MEMORY;
  clt_analysis_frame_t before, frame;
  memset(&before, 0, sizeof before);
  for (int64_t f = first; st == CLT_OK && f <= last; f += stride) {
    st = clt_analysis_read_frame(run, f, &frame, message, message_size);
    if (st != CLT_OK) break;
    if (r->kind != CLT_ANALYSIS_FLOW) {
      st = measure_frame(r, &frame, out, message, message_size);
      clt_analysis_frame_release(&frame);
      continue;
    }
    if (f > first) {
      int axis = r->axis, sign;
      if (axis < 0) st = clt_analysis_up(&frame, -1, 0, &axis, &sign, message, message_size);
      clt_flow_t flow;
      memset(&flow, 0, sizeof flow);
      if (st == CLT_OK)
        st = clt_analysis_flow(&before, &frame, axis, r->plane, r->has_region ? &r->region : NULL, &flow, message,
                               message_size);
      double row[] = {(double)before.frame, (double)frame.frame, before.time, frame.time,
                      flow.mass_positive,   flow.mass_negative,  flow.net,    flow.rate,
                      flow.crossings};
      if (st == CLT_OK && !table_row(out, row)) st = CLT_ERR_OUT_OF_MEMORY;
    }
    clt_analysis_frame_release(&before);
    before = frame;
  }
  clt_analysis_frame_release(&before);
  if (st != CLT_OK) clt_analysis_table_free(out);
  return st;
}
