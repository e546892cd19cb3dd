/* Diagnostics against time (docs/output-format.md "/diagnostics"): one panel per quantity, one
 * line per run, drawn with cairo into a PNG. Long series are reduced to their minimum and maximum
 * per pixel column, which draws exactly what a full polyline would at that resolution. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/viz.h"

static const struct {
  const char *name, *label, *unit;
  bool log_candidate;
} quantities[] = {
    {"infeasibility", "infeasibility I(q)", "m", true},
    {"penetration", "penetration max(0, -Phi)", "m", true},
    {"joint_error", "joint error max |Theta|", "m", true},
    {"energy", "total energy (kinetic + potential)", "J", false},
    {"kinetic_energy", "kinetic energy", "J", false},
    {"potential_energy", "potential energy", "J", false},
    {"iterations", "solver iterations", "", false},
    {"residual", "solver residual", "", true},
    {"contacts", "candidate contacts (active set)", "", false},
    {"touching_contacts", "touching contacts", "", false},
    {"joints", "joints in the step problem", "", false},
    {"lcp_size", "step problem size (unknowns)", "", false},
    {"constraints", "ReLCP constraints", "", false},
    {"relcp_iterations", "ReLCP iterations", "", false},
    {"max_overlap", "ReLCP max overlap", "m", true},
    {"bodies", "bodies", "", false},
    {"solver_status", "solver status (1 solved, 2 ray, 3 max it., 4 error)", "", false},
    {"wall_s", "wall-clock time per step", "s", true},
    {"wall_collide_s", "wall-clock collision time", "s", true},
    {"wall_assemble_s", "wall-clock assembly time", "s", true},
    {"wall_solve_s", "wall-clock solve time", "s", true},
    {"solves", "solves per step (relaxed active set)", "", false},
    {"set_misses", "bodies outside their box after the last solve (relaxed)", "", false},
    {"step", "step", "", false},
    {"t", "time", "s", false},
};

bool clt_viz_quantity_info(const char *name, const char **unit, const char **label, bool *log_candidate) {
  for (size_t i = 0; i < sizeof quantities / sizeof quantities[0]; i++) {
    if (strcmp(quantities[i].name, name) == 0) {
      if (unit) *unit = quantities[i].unit;
      if (label) *label = quantities[i].label;
      if (log_candidate) *log_candidate = quantities[i].log_candidate;
      return true;
    }
  }
  return false;
}

/* Line colours of the runs (distinct from each other on white). */
static const double run_colors[][3] = {
    {0.122, 0.467, 0.706}, {0.839, 0.153, 0.157}, {0.173, 0.627, 0.173}, {1.000, 0.498, 0.055},
    {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294}, {0.890, 0.467, 0.761}, {0.498, 0.498, 0.498},
    {0.737, 0.741, 0.133}, {0.090, 0.745, 0.812},
};
#define RUN_COLORS ((int)(sizeof run_colors / sizeof run_colors[0]))

typedef struct axis_t {
  double lo, hi;
  bool log;
} axis_t;

static double axis_map(const axis_t *a, double v) {
  if (a->log) return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
  return (v - a->lo) / (a->hi - a->lo);
}

static double nice_step(double range, int target) {
  double raw = range / target;
  double e = pow(10, floor(log10(raw)));
  double f = raw / e;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * e;
}

static void format_tick(char *buf, size_t size, double v, double step) {
  if (fabs(v) < 1e-12 * step) v = 0;
  double a = fabs(v);
  if (a != 0 && (a >= 1e5 || a < 1e-3)) snprintf(buf, size, "%.3g", v);
  else if (step >= 1) snprintf(buf, size, "%.0f", v);
  else {
    int digits = (int)ceil(-log10(step) - 1e-9);
    snprintf(buf, size, "%.*f", digits < 0 ? 0 : digits > 6 ? 6 : digits, v);
  }
}

static void text_right(cairo_t *cr, double x, double y, const char *s) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  cairo_move_to(cr, x - e.x_advance, y);
  cairo_show_text(cr, s);
}

static void text_center(cairo_t *cr, double x, double y, const char *s) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  cairo_move_to(cr, x - 0.5 * e.x_advance, y);
  cairo_show_text(cr, s);
}

/* Draws one panel in the rectangle (x, y, w, h). */
static void draw_panel(cairo_t *cr, clt_viz_run_t *const *runs, const char *const *labels, int run_count,
                       const char *quantity, const clt_viz_plot_options_t *options, double x, double y,
                       double w, double h, bool legend) {
  const char *unit = "", *label = quantity;
  bool log_candidate = false;
  clt_viz_quantity_info(quantity, &unit, &label, &log_candidate);
  /* Data ranges. */
  double tmin = DBL_MAX, tmax = -DBL_MAX, vmin = DBL_MAX, vmax = -DBL_MAX, pmin = DBL_MAX, pmax = -DBL_MAX;
  for (int r = 0; r < run_count; r++) {
    const double *t = clt_viz_run_diagnostic(runs[r], "t");
    const double *v = clt_viz_run_diagnostic(runs[r], quantity);
    if (!t || !v) continue;
    for (int64_t i = 0; i < runs[r]->diagnostics_rows; i++) {
      if (!isfinite(v[i]) || !isfinite(t[i])) continue;
      tmin = fmin(tmin, t[i]), tmax = fmax(tmax, t[i]);
      vmin = fmin(vmin, v[i]), vmax = fmax(vmax, v[i]);
      if (v[i] > 0) pmin = fmin(pmin, v[i]), pmax = fmax(pmax, v[i]);
    }
  }
  bool empty = tmin > tmax;
  if (empty) tmin = 0, tmax = 1, vmin = 0, vmax = 1;
  axis_t ax = {tmin, tmax, false}, ay = {vmin, vmax, false};
  if (ax.hi <= ax.lo) ax.hi = ax.lo + 1;
  /* Log scale when asked, or automatically when positive data span more than two decades. */
  bool can_log = pmax > 0 && pmin <= pmax;
  if (!options->linear_all && can_log && (options->log_all || (log_candidate && pmax / pmin > 100))) {
    ay.log = true;
    ay.lo = pow(10, floor(log10(pmin)));
    ay.hi = pow(10, ceil(log10(pmax)));
    if (ay.hi <= ay.lo) ay.hi = ay.lo * 10;
  } else {
    if (ay.hi - ay.lo < 1e-300 + 1e-12 * fabs(ay.hi)) {
      double pad = fabs(ay.hi) > 0 ? 0.05 * fabs(ay.hi) : 1;
      ay.lo -= pad, ay.hi += pad;
    } else {
      double pad = 0.05 * (ay.hi - ay.lo);
      ay.lo -= pad, ay.hi += pad;
    }
    /* Counts and errors are never negative: keep zero as the floor of the axis. */
    if (vmin >= 0 && ay.lo < 0) ay.lo = 0;
  }
  /* Layout: room for tick labels on the left, the time axis below, the title above. */
  double left = x + 78, right = x + w - 16, top = y + 30, bottom = y + h - 42;
  double pw = right - left, ph = bottom - top;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_rectangle(cr, left, top, pw, ph);
  cairo_fill(cr);
  /* Title with unit. */
  char title[160];
  if (unit[0]) snprintf(title, sizeof title, "%s [%s]%s", label, unit, ay.log ? "  (log scale)" : "");
  else snprintf(title, sizeof title, "%s%s", label, ay.log ? "  (log scale)" : "");
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  clt_viz_set_font(cr, 14, true);
  cairo_move_to(cr, left, y + 20);
  cairo_show_text(cr, title);
  /* Grid and ticks. */
  clt_viz_set_font(cr, 11.5, false);
  cairo_set_line_width(cr, 1);
  char buf[64];
  double step = nice_step(ax.hi - ax.lo, (int)fmax(3, pw / 90));
  for (double v = ceil(ax.lo / step - 1e-9) * step; v <= ax.hi + 1e-9 * step; v += step) {
    double px = left + axis_map(&ax, v) * pw;
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    cairo_move_to(cr, floor(px) + 0.5, top);
    cairo_line_to(cr, floor(px) + 0.5, bottom);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    format_tick(buf, sizeof buf, v, step);
    text_center(cr, px, bottom + 15, buf);
  }
  if (ay.log) {
    int e0 = (int)lround(log10(ay.lo)), e1 = (int)lround(log10(ay.hi));
    int every = (e1 - e0 + 5) / 6; /* at most ~7 labelled decades */
    if (every < 1) every = 1;
    for (int e = e0; e <= e1; e++) {
      double py = bottom - axis_map(&ay, pow(10, e)) * ph;
      cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
      cairo_move_to(cr, left, floor(py) + 0.5);
      cairo_line_to(cr, right, floor(py) + 0.5);
      cairo_stroke(cr);
      if ((e - e0) % every == 0) {
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        snprintf(buf, sizeof buf, "1e%d", e);
        text_right(cr, left - 6, py + 4, buf);
      }
    }
  } else {
    double ystep = nice_step(ay.hi - ay.lo, (int)fmax(3, ph / 45));
    if (!unit[0] && !log_candidate && ystep < 1) ystep = 1; /* counts: whole-number ticks */
    for (double v = ceil(ay.lo / ystep - 1e-9) * ystep; v <= ay.hi + 1e-9 * ystep; v += ystep) {
      double py = bottom - axis_map(&ay, v) * ph;
      cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
      cairo_move_to(cr, left, floor(py) + 0.5);
      cairo_line_to(cr, right, floor(py) + 0.5);
      cairo_stroke(cr);
      cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
      format_tick(buf, sizeof buf, v, ystep);
      text_right(cr, left - 6, py + 4, buf);
    }
  }
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  text_center(cr, left + 0.5 * pw, bottom + 33, "time t [s]");
  /* The lines, clipped to the plot area. */
  cairo_save(cr);
  cairo_rectangle(cr, left, top, pw, ph);
  cairo_clip(cr);
  cairo_set_line_width(cr, 1.6);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  int columns = (int)pw;
  for (int r = 0; r < run_count; r++) {
    const double *t = clt_viz_run_diagnostic(runs[r], "t");
    const double *v = clt_viz_run_diagnostic(runs[r], quantity);
    if (!t || !v) continue;
    const double *c = run_colors[r % RUN_COLORS];
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
    int64_t n = runs[r]->diagnostics_rows;
    bool pen = false;
    int64_t i = 0;
    while (i < n) {
      /* Gather the samples of one pixel column (all of them when the series is short). */
      int64_t j = i + 1;
      if (n > 2 * columns) {
        int col = (int)floor(axis_map(&ax, t[i]) * columns);
        while (j < n && (int)floor(axis_map(&ax, t[j]) * columns) == col) j++;
      }
      double lo = DBL_MAX, hi = -DBL_MAX;
      int64_t ilo = -1, ihi = -1;
      bool valid = true;
      for (int64_t k = i; k < j; k++) {
        if (!isfinite(v[k]) || (ay.log && !(v[k] > 0))) {
          valid = false;
          break;
        }
        if (v[k] < lo) lo = v[k], ilo = k;
        if (v[k] > hi) hi = v[k], ihi = k;
      }
      if (!valid || ilo < 0) {
        pen = false; /* a gap: zero on a log axis, or a non-finite value */
        i = j;
        continue;
      }
      int64_t order[2] = {ilo < ihi ? ilo : ihi, ilo < ihi ? ihi : ilo};
      for (int k = 0; k < (order[0] == order[1] ? 1 : 2); k++) {
        double px = left + axis_map(&ax, t[order[k]]) * pw, py = bottom - axis_map(&ay, v[order[k]]) * ph;
        if (pen) cairo_line_to(cr, px, py);
        else cairo_move_to(cr, px, py);
        pen = true;
      }
      i = j;
    }
    if (n == 1 && isfinite(v[0]) && (!ay.log || v[0] > 0)) {
      cairo_arc(cr, left + axis_map(&ax, t[0]) * pw, bottom - axis_map(&ay, v[0]) * ph, 2.5, 0, 6.2832);
      cairo_fill(cr);
    }
    cairo_stroke(cr);
  }
  cairo_restore(cr);
  if (empty) {
    cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
    clt_viz_set_font(cr, 13, false);
    text_center(cr, left + 0.5 * pw, top + 0.5 * ph, "no data");
  }
  /* Frame. */
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, floor(left) + 0.5, floor(top) + 0.5, floor(pw), floor(ph));
  cairo_stroke(cr);
  /* Legend, top right inside the first panel. */
  if (legend && run_count > 0) {
    clt_viz_set_font(cr, 12, false);
    double lw = 0;
    for (int r = 0; r < run_count; r++) {
      cairo_text_extents_t e;
      cairo_text_extents(cr, labels[r], &e);
      lw = fmax(lw, e.x_advance);
    }
    double bw = lw + 44, bh = 18.0 * run_count + 8, bx = right - bw - 8, by = top + 8;
    cairo_set_source_rgba(cr, 1, 1, 1, 0.88);
    cairo_rectangle(cr, bx, by, bw, bh);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_stroke(cr);
    for (int r = 0; r < run_count; r++) {
      const double *c = run_colors[r % RUN_COLORS];
      double ly = by + 14 + 18.0 * r;
      cairo_set_source_rgb(cr, c[0], c[1], c[2]);
      cairo_set_line_width(cr, 2.5);
      cairo_move_to(cr, bx + 8, ly - 4);
      cairo_line_to(cr, bx + 30, ly - 4);
      cairo_stroke(cr);
      cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
      cairo_move_to(cr, bx + 36, ly);
      cairo_show_text(cr, labels[r]);
    }
  }
}

clt_status_t clt_viz_plot(clt_viz_run_t *const *runs, const char *const *labels, int run_count,
                          const char *const *quantity_names, int quantity_count,
                          const clt_viz_plot_options_t *options, const char *png_path, char *message,
                          size_t message_size) {
  if (quantity_count < 1 || run_count < 1) {
    if (message) snprintf(message, message_size, "nothing to plot");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  for (int q = 0; q < quantity_count; q++) {
    bool found = false;
    for (int r = 0; r < run_count && !found; r++) found = clt_viz_run_diagnostic(runs[r], quantity_names[q]) != NULL;
    if (!found) {
      if (message) {
        snprintf(message, message_size, "no run has the diagnostics column '%s' (see docs/output-format.md)",
                 quantity_names[q]);
      }
      return CLT_ERR_INVALID_ARGUMENT;
    }
  }
  int cols = quantity_count <= 3 ? 1 : 2;
  int rows = (quantity_count + cols - 1) / cols;
  int width = options->width > 0 ? options->width : (cols == 1 ? 860 : 1280);
  int height = options->height > 0 ? options->height : 36 + rows * 280;
  cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
  if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(surface);
    if (message) snprintf(message, message_size, "out of memory for a %d x %d plot", width, height);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  cairo_t *cr = cairo_create(surface);
  cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
  cairo_paint(cr);
  /* Heading: the scene(s). */
  char heading[512] = "";
  for (int r = 0; r < run_count; r++) {
    bool seen = false;
    for (int s = 0; s < r; s++) seen = seen || strcmp(runs[s]->scene_name, runs[r]->scene_name) == 0;
    if (seen) continue;
    size_t len = strlen(heading);
    snprintf(heading + len, sizeof heading - len, "%s%s", len ? ", " : "", runs[r]->scene_name);
  }
  clt_viz_set_font(cr, 15, true);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  cairo_move_to(cr, 14, 24);
  cairo_show_text(cr, heading);
  cairo_text_extents_t ext;
  cairo_text_extents(cr, heading, &ext);
  double heading_end = 14 + ext.x_advance;
  /* The legend in one row on the heading's right when it fits, else inside the first panel. */
  clt_viz_set_font(cr, 12.5, false);
  double legend_width = 0;
  for (int r = 0; r < run_count; r++) {
    cairo_text_extents(cr, labels[r], &ext);
    legend_width += 34 + ext.x_advance + 18;
  }
  bool legend_on_top = run_count > 1 && heading_end + 30 + legend_width < width - 10;
  if (legend_on_top) {
    double lx = width - 10 - legend_width;
    for (int r = 0; r < run_count; r++) {
      const double *c = run_colors[r % RUN_COLORS];
      cairo_set_source_rgb(cr, c[0], c[1], c[2]);
      cairo_set_line_width(cr, 2.5);
      cairo_move_to(cr, lx, 19);
      cairo_line_to(cr, lx + 26, 19);
      cairo_stroke(cr);
      cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
      cairo_move_to(cr, lx + 34, 23);
      cairo_show_text(cr, labels[r]);
      cairo_text_extents(cr, labels[r], &ext);
      lx += 34 + ext.x_advance + 18;
    }
  }
  double pw = (double)width / cols, ph = (double)(height - 36) / rows;
  for (int q = 0; q < quantity_count; q++) {
    int c = q % cols, r = q / cols;
    draw_panel(cr, runs, labels, run_count, quantity_names[q], options, c * pw, 36 + r * ph, pw, ph,
               q == 0 && run_count > 1 && !legend_on_top);
  }
  cairo_destroy(cr);
  cairo_status_t st = cairo_surface_write_to_png(surface, png_path);
  cairo_surface_destroy(surface);
  if (st != CAIRO_STATUS_SUCCESS) {
    if (message) snprintf(message, message_size, "%s: cannot write (%s)", png_path, cairo_status_to_string(st));
    return CLT_ERR_IO;
  }
  return CLT_OK;
}
