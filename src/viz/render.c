/* Pictures of trajectory frames: the shared parts (colours, view fitting, labels, contact overlay)
 * and the 2D renderer, which draws every 2D shape exactly as cairo paths (docs/visualization.md).
 * The 3D renderer is raycast.c. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fontconfig/fontconfig.h>

#include "viz/viz.h"

const double clt_viz_background[3] = {0.945, 0.953, 0.965};

/* Tableau-like palette: distinct, readable on a light background. */
static const double palette[][3] = {
    {0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173}, {0.839, 0.153, 0.157},
    {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294}, {0.890, 0.467, 0.761}, {0.737, 0.741, 0.133},
    {0.090, 0.745, 0.812}, {0.400, 0.400, 0.800},
};
#define PALETTE_SIZE ((int)(sizeof palette / sizeof palette[0]))

void clt_viz_body_color(const clt_viz_run_t *run, int body, double rgb[3]) {
  if (run->body_type[body] != CLT_BODY_DYNAMIC) {
    rgb[0] = rgb[1] = rgb[2] = 0.62;
    return;
  }
  int k = 0; /* index among dynamic bodies, so static floors do not shift the colours */
  for (int i = 0; i < body; i++) k += run->body_type[i] == CLT_BODY_DYNAMIC;
  memcpy(rgb, palette[k % PALETTE_SIZE], 3 * sizeof(double));
}

void clt_viz_body_colors(const clt_viz_run_t *run, int64_t frame, const clt_viz_render_options_t *options,
                         double *rgb) {
  for (int b = 0; b < run->body_count; b++) clt_viz_body_color(run, b, rgb + 3 * b);
  const clt_viz_contacts_t *c = &run->contacts;
  if (!options || !options->color_by_force || !run->has_contacts || !(c->max_body_force > 0)) return;
  double *sum = calloc((size_t)run->body_count + 1, sizeof(double));
  if (!sum) return;
  clt_viz_contact_body_forces(run, frame, sum);
  for (int b = 0; b < run->body_count; b++) {
    if (run->body_type[b] != CLT_BODY_DYNAMIC) continue;
    if (sum[b] > 0) clt_viz_colormap(sum[b] / c->max_body_force, rgb + 3 * b);
    else rgb[3 * b] = rgb[3 * b + 1] = rgb[3 * b + 2] = 0.82;
  }
  free(sum);
}

void clt_viz_colormap(double s, double rgb[3]) {
  /* Piecewise linear through viridis-like stops. */
  static const double stops[5][3] = {
      {0.267, 0.005, 0.329}, {0.231, 0.322, 0.545}, {0.129, 0.569, 0.549}, {0.369, 0.788, 0.384},
      {0.993, 0.906, 0.144}};
  if (!(s > 0)) s = 0;
  if (s > 1) s = 1;
  double x = s * 4;
  int i = (int)x;
  if (i >= 4) i = 3;
  double f = x - i;
  for (int c = 0; c < 3; c++) rgb[c] = stops[i][c] * (1 - f) + stops[i + 1][c] * f;
}

void clt_viz_set_font(cairo_t *cr, double size, bool bold) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

void clt_viz_release_static_data(void) {
  cairo_debug_reset_static_data();
  FcFini();
}

clt_viz_render_options_t clt_viz_default_render_options(void) {
  clt_viz_render_options_t o = {.width = 800, .height = 600, .supersample = 2, .label = true};
  return o;
}

/* ---------------------------------------------------------------------------------------------
 * View fitting */

typedef struct bounds_t {
  double lo[3], hi[3];
  bool any;
} bounds_t;

static void bounds_add(bounds_t *b, const double p[3], double r) {
  for (int i = 0; i < 3; i++) {
    if (!isfinite(p[i])) return;
  }
  for (int i = 0; i < 3; i++) {
    if (!b->any || p[i] - r < b->lo[i]) b->lo[i] = p[i] - r;
    if (!b->any || p[i] + r > b->hi[i]) b->hi[i] = p[i] + r;
  }
  b->any = true;
}

/* Radius of a sphere about the shape's origin that holds the shape (3D) or its 2D extent. */
static double shape_bounding_radius(const clt_viz_run_t *run, const clt_viz_shape_t *s) {
  switch (s->type) {
    case CLT_SHAPE_DISK:
    case CLT_SHAPE_SPHERE: return s->radius;
    case CLT_SHAPE_ELLIPSE:
    case CLT_SHAPE_ELLIPSOID: return fmax(s->semi_axes[0], fmax(s->semi_axes[1], s->semi_axes[2]));
    case CLT_SHAPE_BOX: return sqrt(s->half_extents[0] * s->half_extents[0] + s->half_extents[1] * s->half_extents[1] +
                                    s->half_extents[2] * s->half_extents[2]);
    case CLT_SHAPE_CAPSULE: return s->radius + 0.5 * s->length;
    case CLT_SHAPE_TORUS: return s->major_radius + s->minor_radius;
    case CLT_SHAPE_CYLINDER: return hypot(s->radius, 0.5 * s->length);
    case CLT_SHAPE_POLYHEDRON: return clt_viz_hull_radius(s->hull);
    case CLT_SHAPE_MESH: return clt_viz_mesh_radius(s->mesh);
    case CLT_SHAPE_SEGMENT: return s->radius + fmax(hypot(s->a[0], s->a[1]), hypot(s->b[0], s->b[1]));
    case CLT_SHAPE_POLYGON: {
      double r = 0;
      for (int k = 0; k < s->vertex_count; k++) {
        const double *v = run->vertices + 2 * (s->first_vertex + k);
        r = fmax(r, hypot(v[0], v[1]));
      }
      return r;
    }
    default: return 0;
  }
}

static bool is_plane(clt_shape_type_t t) { return t == CLT_SHAPE_HALFPLANE || t == CLT_SHAPE_HALFSPACE; }

/* Exact 2D extent of a shape at a frame. */
static void shape_bounds_2d(const clt_viz_run_t *run, int64_t frame, int k, bounds_t *b) {
  clt_viz_shape_t shape;
  if (!clt_viz_frame_shape(run, frame, k, &shape)) return;
  const clt_viz_shape_t *s = &shape;
  double p[3], q[4];
  clt_viz_shape_pose(run, frame, k, p, q);
  double c = q[0] * q[0] - q[3] * q[3], sn = 2 * q[0] * q[3]; /* cos θ, sin θ */
  switch (s->type) {
    case CLT_SHAPE_ELLIPSE: {
      double a = s->semi_axes[0], bb = s->semi_axes[1];
      double hx = sqrt(a * a * c * c + bb * bb * sn * sn), hy = sqrt(a * a * sn * sn + bb * bb * c * c);
      double lo[3] = {p[0] - hx, p[1] - hy, 0}, hi[3] = {p[0] + hx, p[1] + hy, 0};
      bounds_add(b, lo, 0);
      bounds_add(b, hi, 0);
      break;
    }
    case CLT_SHAPE_POLYGON:
      for (int v = 0; v < s->vertex_count; v++) {
        const double *x = run->vertices + 2 * (s->first_vertex + v);
        double w[3] = {p[0] + c * x[0] - sn * x[1], p[1] + sn * x[0] + c * x[1], 0};
        bounds_add(b, w, 0);
      }
      break;
    case CLT_SHAPE_SEGMENT:
      for (int e = 0; e < 2; e++) {
        const double *x = e ? s->b : s->a;
        double w[3] = {p[0] + c * x[0] - sn * x[1], p[1] + sn * x[0] + c * x[1], 0};
        bounds_add(b, w, s->radius);
      }
      break;
    case CLT_SHAPE_HALFPLANE: {
      double w[3] = {p[0] + c * s->point[0] - sn * s->point[1], p[1] + sn * s->point[0] + c * s->point[1], 0};
      bounds_add(b, w, 0);
      break;
    }
    default: bounds_add(b, p, shape_bounding_radius(run, s)); break;
  }
}

static void link_world_anchor(const clt_viz_run_t *run, int64_t frame, int body, const double anchor[3],
                              double out[3]) {
  if (body < 0) {
    memcpy(out, anchor, 3 * sizeof(double));
    return;
  }
  double p[3], q[4], r[3];
  clt_viz_body_pose(run, frame, body, p, q);
  clt_viz_quat_rotate(q, anchor, r);
  for (int i = 0; i < 3; i++) out[i] = p[i] + r[i];
}

static double nice_number(double x) {
  double e = pow(10, floor(log10(x)));
  double f = x / e;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * e;
}

static void normalize3(double v[3]) {
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n > 0) {
    for (int i = 0; i < 3; i++) v[i] /= n;
  }
}

static void cross3(const double a[3], const double b[3], double out[3]) {
  double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  memcpy(out, r, sizeof r);
}

void clt_viz_fit_view(const clt_viz_run_t *run, int64_t first, int64_t last, int64_t stride,
                      const clt_viz_render_options_t *options, clt_viz_view_t *view) {
  memset(view, 0, sizeof *view);
  view->width = options->width > 0 ? options->width : 800;
  view->height = options->height > 0 ? options->height : 600;
  if (stride < 1) stride = 1;
  if (first < 0) first = 0;
  if (last >= run->frame_count) last = run->frame_count - 1;
  bounds_t b = {{0}, {0}, false};
  for (int64_t f = first; f <= last; f += stride) {
    for (int k = 0; k < run->shape_count; k++) {
      if (run->dimension == 2) {
        shape_bounds_2d(run, f, k, &b);
      } else if (!is_plane(run->shapes[k].type)) {
        double p[3], q[4];
        clt_viz_shape_t shape;
        if (!clt_viz_frame_shape(run, f, k, &shape)) continue;
        clt_viz_shape_pose(run, f, k, p, q);
        bounds_add(&b, p, shape_bounding_radius(run, &shape));
      }
    }
    for (int l = 0; l < run->link_count; l++) {
      if (run->links[l].kind == CLT_VIZ_LINK_REMOVED || f >= run->links[l].gone_from) continue;
      double w[3];
      link_world_anchor(run, f, run->links[l].body_a, run->links[l].anchor_a, w);
      bounds_add(&b, w, 0);
      link_world_anchor(run, f, run->links[l].body_b, run->links[l].anchor_b, w);
      bounds_add(&b, w, 0);
    }
    for (int i = 0; i < run->body_count; i++) {
      if (run->body_shape_count[i] == 0) {
        double p[3], q[4];
        clt_viz_body_pose(run, f, i, p, q);
        bounds_add(&b, p, 0.05);
      }
    }
  }
  if (!b.any) {
    double zero[3] = {0, 0, 0};
    bounds_add(&b, zero, 1);
  }
  if (run->dimension == 2) {
    double cx = 0.5 * (b.lo[0] + b.hi[0]), cy = 0.5 * (b.lo[1] + b.hi[1]);
    double dx = b.hi[0] - b.lo[0], dy = b.hi[1] - b.lo[1];
    double size = fmax(dx, dy);
    if (!(size > 1e-9)) size = 1;
    dx = fmax(dx, 1e-3 * size) * 1.12; /* margins */
    dy = fmax(dy, 1e-3 * size) * 1.12;
    if (options->window_set) {
      cx = 0.5 * (options->window[0] + options->window[1]);
      cy = 0.5 * (options->window[2] + options->window[3]);
      dx = options->window[1] - options->window[0];
      dy = options->window[3] - options->window[2];
    }
    double scale = fmin(view->width / dx, view->height / dy);
    view->scale = scale;
    view->min[0] = cx - 0.5 * view->width / scale;
    view->max[0] = cx + 0.5 * view->width / scale;
    view->min[1] = cy - 0.5 * view->height / scale;
    view->max[1] = cy + 0.5 * view->height / scale;
    return;
  }
  double up[3] = {-run->gravity[0], -run->gravity[1], -run->gravity[2]};
  if (!(up[0] * up[0] + up[1] * up[1] + up[2] * up[2] > 0)) up[2] = 1;
  normalize3(up);
  memcpy(view->up, up, sizeof up);
  view->fov_y = 35.0 * CLT_VIZ_PI / 180.0;
  double radius = 0;
  for (int i = 0; i < 3; i++) {
    view->target[i] = 0.5 * (b.lo[i] + b.hi[i]);
    radius += 0.25 * (b.hi[i] - b.lo[i]) * (b.hi[i] - b.lo[i]);
  }
  radius = fmax(sqrt(radius), 1e-3);
  view->floor_tile = nice_number(radius / 3);
  if (options->camera_set) {
    memcpy(view->eye, options->eye, sizeof view->eye);
    memcpy(view->target, options->target, sizeof view->target);
    return;
  }
  /* Look from azimuth −60° and elevation 25° about the up axis, far enough for the bounding
   * sphere to fill the narrower field of view. */
  double e1[3], e2[3], any[3] = {1, 0, 0};
  if (fabs(up[0]) > 0.9) any[0] = 0, any[1] = 1;
  cross3(up, any, e2);
  normalize3(e2);
  cross3(e2, up, e1);
  double az = -60.0 * CLT_VIZ_PI / 180.0, el = 25.0 * CLT_VIZ_PI / 180.0;
  double aspect = (double)view->width / view->height;
  double dir[3], right[3], cam_up[3];
  for (int i = 0; i < 3; i++) dir[i] = cos(el) * (cos(az) * e1[i] + sin(az) * e2[i]) + sin(el) * up[i];
  /* Camera axes as raycast.c builds them: forward = −dir, right = forward × up. */
  double fwd[3] = {-dir[0], -dir[1], -dir[2]};
  cross3(fwd, up, right);
  normalize3(right);
  cross3(right, fwd, cam_up);
  /* The nearest eye distance at which every corner of the bounding box projects inside 92% of
   * the picture: corner offset o has depth dist − o·dir, so it fits when
   * dist ≥ o·dir + |o·right| / (0.92 tan(fov_x / 2)) and likewise vertically. */
  double tan_y = 0.92 * tan(0.5 * view->fov_y), tan_x = tan_y * aspect, dist = 0;
  for (int c = 0; c < 8; c++) {
    double o[3];
    for (int i = 0; i < 3; i++) o[i] = ((c >> i) & 1 ? b.hi[i] : b.lo[i]) - view->target[i];
    double along = o[0] * dir[0] + o[1] * dir[1] + o[2] * dir[2];
    double x = fabs(o[0] * right[0] + o[1] * right[1] + o[2] * right[2]);
    double y = fabs(o[0] * cam_up[0] + o[1] * cam_up[1] + o[2] * cam_up[2]);
    dist = fmax(dist, along + fmax(x / tan_x, y / tan_y));
  }
  dist = fmax(dist, 1.5 * radius); /* never inside the box */
  for (int i = 0; i < 3; i++) view->eye[i] = view->target[i] + dist * dir[i];
}

/* ---------------------------------------------------------------------------------------------
 * Overlays shared by 2D and 3D */

/* Maps a world point to the picture (2D: the world window; 3D: the camera). */
static bool to_pixel(const clt_viz_run_t *run, const clt_viz_view_t *view, const double p[3], double *x,
                     double *y) {
  if (run->dimension == 2) {
    *x = (p[0] - view->min[0]) * view->scale;
    *y = (view->max[1] - p[1]) * view->scale;
    return true;
  }
  return clt_viz_project(view, p, x, y);
}

static void draw_arrow(cairo_t *cr, double x0, double y0, double x1, double y1, double head) {
  double dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
  if (len < 1e-9) return;
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y1);
  cairo_stroke(cr);
  double ux = dx / len, uy = dy / len;
  head = fmin(head, 0.5 * len);
  cairo_move_to(cr, x1, y1);
  cairo_line_to(cr, x1 - head * ux + 0.5 * head * uy, y1 - head * uy - 0.5 * head * ux);
  cairo_line_to(cr, x1 - head * ux - 0.5 * head * uy, y1 - head * uy + 0.5 * head * ux);
  cairo_close_path(cr);
  cairo_fill(cr);
}

static double contact_magnitude(const clt_viz_contacts_t *c, int64_t i) {
  if (c->force) return sqrt(c->force[3 * i] * c->force[3 * i] + c->force[3 * i + 1] * c->force[3 * i + 1] +
                            c->force[3 * i + 2] * c->force[3 * i + 2]);
  if (c->normal_force) return fabs(c->normal_force[i]);
  return 0;
}

/* Contact points coloured by force magnitude (scaled by the largest force of the whole run, so
 * colours mean the same in every frame), force arrows, and a colour bar. */
static void draw_contacts(const clt_viz_run_t *run, int64_t frame, const clt_viz_view_t *view, cairo_t *cr) {
  const clt_viz_contacts_t *c = &run->contacts;
  double fmax_all = 0;
  for (int64_t i = 0; i < c->total; i++) fmax_all = fmax(fmax_all, contact_magnitude(c, i));
  double extent = run->dimension == 2 ? fmax(view->max[0] - view->min[0], view->max[1] - view->min[1])
                                      : 2 * view->floor_tile * 3;
  double arrow_scale = fmax_all > 0 ? 0.12 * extent / fmax_all : 0; /* m per N */
  double radius = fmax(2.5, 0.006 * fmin(view->width, view->height));
  cairo_set_line_width(cr, fmax(1.5, radius * 0.5));
  for (int64_t i = c->first[frame]; i < c->first[frame] + c->count[frame]; i++) {
    /* touching contacts only: a candidate carries no force, and a force network is read from the
     * dots (docs/visualization.md; files without /contacts/touching: every row) */
    if (c->touching && !c->touching[i]) continue;
    const double *p = c->point + 3 * i;
    double x, y, rgb[3];
    if (!to_pixel(run, view, p, &x, &y)) continue;
    double mag = contact_magnitude(c, i);
    clt_viz_colormap(fmax_all > 0 ? mag / fmax_all : 0, rgb);
    const double *dir = c->force ? c->force + 3 * i : c->normal ? c->normal + 3 * i : NULL;
    if (dir && arrow_scale > 0) {
      double s = c->force ? arrow_scale : arrow_scale * (c->normal_force ? c->normal_force[i] : 0);
      double tip[3] = {p[0] + s * dir[0], p[1] + s * dir[1], p[2] + s * dir[2]}, tx, ty;
      if (to_pixel(run, view, tip, &tx, &ty)) {
        cairo_set_source_rgb(cr, rgb[0] * 0.8, rgb[1] * 0.8, rgb[2] * 0.8);
        draw_arrow(cr, x, y, tx, ty, 3 * radius);
      }
    }
    cairo_new_path(cr);
    cairo_arc(cr, x, y, radius, 0, 2 * CLT_VIZ_PI);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    cairo_set_line_width(cr, fmax(1.5, radius * 0.5));
  }
  /* Colour bar, bottom right: title above, 0 and the largest force below. */
  double bw = fmin(0.22 * view->width, 180), bh = 10, bx = view->width - bw - 16, by = view->height - 30;
  cairo_pattern_t *pat = cairo_pattern_create_linear(bx, 0, bx + bw, 0);
  for (int k = 0; k <= 8; k++) {
    double rgb[3];
    clt_viz_colormap(k / 8.0, rgb);
    cairo_pattern_add_color_stop_rgb(pat, k / 8.0, rgb[0], rgb[1], rgb[2]);
  }
  cairo_rectangle(cr, bx, by, bw, bh);
  cairo_set_source(cr, pat);
  cairo_fill_preserve(cr);
  cairo_pattern_destroy(pat);
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
  char text[64];
  cairo_text_extents_t ext;
  clt_viz_set_font(cr, 12, false);
  cairo_move_to(cr, bx, by - 5);
  cairo_show_text(cr, "contact force [N]");
  cairo_move_to(cr, bx, by + bh + 13);
  cairo_show_text(cr, "0");
  snprintf(text, sizeof text, "%.3g", fmax_all);
  cairo_text_extents(cr, text, &ext);
  cairo_move_to(cr, bx + bw - ext.x_advance, by + bh + 13);
  cairo_show_text(cr, text);
}

static void draw_label(const clt_viz_run_t *run, int64_t frame, cairo_t *cr) {
  /* Enough decimals to tell neighbouring frames apart (at least 3). */
  double spacing = run->frame_count > 1 ? (run->frame_time[run->frame_count - 1] - run->frame_time[0]) /
                                              (double)(run->frame_count - 1)
                                        : 1;
  int decimals = spacing > 0 ? (int)ceil(-log10(spacing) - 1e-9) : 3;
  decimals = decimals < 3 ? 3 : decimals > 9 ? 9 : decimals;
  char text[320];
  snprintf(text, sizeof text, "%s   t = %.*f s", run->scene_name, decimals, run->frame_time[frame]);
  clt_viz_set_font(cr, 15, false);
  cairo_text_extents_t ext;
  cairo_text_extents(cr, text, &ext);
  cairo_rectangle(cr, 6, 6, ext.x_advance + 14, 26);
  cairo_set_source_rgba(cr, 1, 1, 1, 0.75);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  cairo_move_to(cr, 13, 24);
  cairo_show_text(cr, text);
}

/* A scale bar of a round length, bottom left (2D). */
static void draw_scale_bar(const clt_viz_view_t *view, cairo_t *cr) {
  double len = nice_number(0.18 * view->width / view->scale);
  double px = len * view->scale, x = 16, y = view->height - 20;
  cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
  cairo_set_line_width(cr, 2);
  cairo_move_to(cr, x, y - 5);
  cairo_line_to(cr, x, y);
  cairo_line_to(cr, x + px, y);
  cairo_line_to(cr, x + px, y - 5);
  cairo_stroke(cr);
  char text[64];
  snprintf(text, sizeof text, "%g m", len);
  clt_viz_set_font(cr, 12, false);
  cairo_text_extents_t ext;
  cairo_text_extents(cr, text, &ext);
  cairo_move_to(cr, x + 0.5 * (px - ext.x_advance), y - 8);
  cairo_show_text(cr, text);
}

/* Joints as dots, distance joints as lines, springs as zigzags. Pass 0 draws only thin lines from
 * the bodies' centres to their anchors (in 2D under the bodies, so only the part outside shows; in
 * 3D only for bodies without shapes); pass 1 the rest. */
static void draw_links(const clt_viz_run_t *run, int64_t frame, const clt_viz_view_t *view, cairo_t *cr,
                       int pass) {
  double r = fmax(3, 0.007 * fmin(view->width, view->height));
  for (int l = 0; l < run->link_count; l++) {
    const clt_viz_link_t *k = &run->links[l];
    if (k->kind == CLT_VIZ_LINK_REMOVED || frame >= k->gone_from) continue;
    double wa[3], wb[3], xa, ya, xb, yb;
    link_world_anchor(run, frame, k->body_a, k->anchor_a, wa);
    link_world_anchor(run, frame, k->body_b, k->anchor_b, wb);
    if (!to_pixel(run, view, wa, &xa, &ya) || !to_pixel(run, view, wb, &xb, &yb)) continue;
    if (!isfinite(xa + ya + xb + yb)) continue;
    /* Thin lines from the bodies' centres to their anchors show where the link acts. */
    cairo_set_source_rgba(cr, 0.2, 0.2, 0.2, 0.7);
    cairo_set_line_width(cr, 1.2);
    for (int side = 0; pass == 0 && side < 2; side++) {
      int b = side ? k->body_b : k->body_a;
      /* In 3D the lines are an overlay: only for bodies without shapes (links of a chain). */
      if (b < 0 || (run->dimension == 3 && run->body_shape_count[b] > 0)) continue;
      double p[3], q[4], x, y;
      clt_viz_body_pose(run, frame, b, p, q);
      if (!to_pixel(run, view, p, &x, &y)) continue;
      cairo_move_to(cr, x, y);
      cairo_line_to(cr, side ? xb : xa, side ? yb : ya);
      cairo_stroke(cr);
    }
    if (pass == 0) continue;
    if (k->kind == CLT_VIZ_LINK_SPRING) {
      double dx = xb - xa, dy = yb - ya, len = hypot(dx, dy);
      cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
      cairo_set_line_width(cr, 1.6);
      cairo_move_to(cr, xa, ya);
      if (len > 1e-6) {
        double ux = dx / len, uy = dy / len, amp = fmax(4, 0.012 * fmin(view->width, view->height));
        int zigs = 12;
        double end = 0.1 * len; /* straight ends */
        cairo_line_to(cr, xa + end * ux, ya + end * uy);
        for (int z = 1; z < zigs; z++) {
          double s = end + (len - 2 * end) * z / zigs, side = (z % 2) ? amp : -amp;
          cairo_line_to(cr, xa + s * ux - side * uy, ya + s * uy + side * ux);
        }
        cairo_line_to(cr, xb - end * ux, yb - end * uy);
      }
      cairo_line_to(cr, xb, yb);
      cairo_stroke(cr);
    } else if (k->kind == CLT_VIZ_LINK_DISTANCE) {
      cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
      cairo_set_line_width(cr, 2);
      cairo_move_to(cr, xa, ya);
      cairo_line_to(cr, xb, yb);
      cairo_stroke(cr);
    } else if (hypot(xb - xa, yb - ya) > 1.5) {
      /* A joint that has drifted apart: the gap in red. */
      cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
      cairo_set_line_width(cr, 1.5);
      cairo_move_to(cr, xa, ya);
      cairo_line_to(cr, xb, yb);
      cairo_stroke(cr);
    }
    for (int side = 0; side < 2; side++) {
      cairo_new_path(cr);
      cairo_arc(cr, side ? xb : xa, side ? yb : ya, side ? 0.6 * r : r, 0, 2 * CLT_VIZ_PI);
      cairo_set_source_rgb(cr, 1, 1, 1);
      cairo_fill_preserve(cr);
      cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
      cairo_set_line_width(cr, 1.5);
      cairo_stroke(cr);
    }
  }
}

/* ---------------------------------------------------------------------------------------------
 * 2D */

static void set_fill(cairo_t *cr, const double rgb[3]) { cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]); }

static void set_edge(cairo_t *cr, const double rgb[3]) {
  cairo_set_source_rgb(cr, 0.55 * rgb[0], 0.55 * rgb[1], 0.55 * rgb[2]);
}

clt_status_t clt_viz_render_2d(const clt_viz_run_t *run, int64_t frame, const clt_viz_view_t *view,
                               const clt_viz_render_options_t *options, cairo_t *cr) {
  double px = 1.0 / view->scale; /* one pixel in metres */
  double diag = hypot(view->max[0] - view->min[0], view->max[1] - view->min[1]);
  double *colors = malloc(sizeof(double) * 3 * ((size_t)run->body_count + 1));
  if (!colors) return CLT_ERR_OUT_OF_MEMORY;
  clt_viz_body_colors(run, frame, options, colors);
  draw_links(run, frame, view, cr, 0);
  cairo_save(cr);
  /* World coordinates: y up. */
  cairo_scale(cr, view->scale, -view->scale);
  cairo_translate(cr, -view->min[0], -view->max[1]);
  /* Half-planes first, as filled ground across the whole view. */
  for (int k = 0; k < run->shape_count; k++) {
    const clt_viz_shape_t *s = &run->shapes[k];
    if (s->type != CLT_SHAPE_HALFPLANE) continue;
    double p[3], q[4], n[3], w[3];
    clt_viz_shape_pose(run, frame, k, p, q);
    clt_viz_quat_rotate(q, s->point, w);
    clt_viz_quat_rotate(q, s->normal, n);
    normalize3(n);
    if (!isfinite(p[0] + p[1] + w[0] + w[1] + n[0] + n[1])) continue;
    double o[2] = {p[0] + w[0], p[1] + w[1]}, t[2] = {-n[1], n[0]}, d = 4 * diag;
    cairo_move_to(cr, o[0] + d * t[0], o[1] + d * t[1]);
    cairo_line_to(cr, o[0] - d * t[0], o[1] - d * t[1]);
    cairo_line_to(cr, o[0] - d * t[0] - d * n[0], o[1] - d * t[1] - d * n[1]);
    cairo_line_to(cr, o[0] + d * t[0] - d * n[0], o[1] + d * t[1] - d * n[1]);
    cairo_close_path(cr);
    cairo_set_source_rgb(cr, 0.80, 0.78, 0.74);
    cairo_fill(cr);
    cairo_move_to(cr, o[0] + d * t[0], o[1] + d * t[1]);
    cairo_line_to(cr, o[0] - d * t[0], o[1] - d * t[1]);
    cairo_set_source_rgb(cr, 0.35, 0.33, 0.30);
    cairo_set_line_width(cr, 2 * px);
    cairo_stroke(cr);
  }
  for (int k = 0; k < run->shape_count; k++) {
    clt_viz_shape_t shape;
    if (!clt_viz_frame_shape(run, frame, k, &shape)) continue;
    const clt_viz_shape_t *s = &shape;
    if (s->type == CLT_SHAPE_HALFPLANE) continue;
    double p[3], q[4], rgb[3];
    clt_viz_shape_pose(run, frame, k, p, q);
    memcpy(rgb, colors + 3 * s->body, sizeof rgb);
    double angle = 2 * atan2(q[3], q[0]);
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(angle)) continue; /* a run that blew up */
    cairo_save(cr);
    cairo_translate(cr, p[0], p[1]);
    cairo_rotate(cr, angle);
    cairo_set_line_width(cr, 1.5 * px);
    switch (s->type) {
      case CLT_SHAPE_DISK:
        cairo_arc(cr, 0, 0, s->radius, 0, 2 * CLT_VIZ_PI);
        set_fill(cr, rgb);
        cairo_fill_preserve(cr);
        set_edge(cr, rgb);
        cairo_stroke(cr);
        /* The radius along the body's x axis shows the rotation. */
        cairo_move_to(cr, 0, 0);
        cairo_line_to(cr, s->radius, 0);
        cairo_stroke(cr);
        break;
      case CLT_SHAPE_ELLIPSE:
        cairo_save(cr);
        cairo_scale(cr, s->semi_axes[0], s->semi_axes[1]);
        cairo_arc(cr, 0, 0, 1, 0, 2 * CLT_VIZ_PI);
        cairo_restore(cr);
        set_fill(cr, rgb);
        cairo_fill_preserve(cr);
        set_edge(cr, rgb);
        cairo_stroke(cr);
        cairo_move_to(cr, 0, 0);
        cairo_line_to(cr, s->semi_axes[0], 0);
        cairo_stroke(cr);
        break;
      case CLT_SHAPE_POLYGON:
        for (int v = 0; v < s->vertex_count; v++) {
          const double *x = run->vertices + 2 * (s->first_vertex + v);
          if (v == 0) cairo_move_to(cr, x[0], x[1]);
          else cairo_line_to(cr, x[0], x[1]);
        }
        cairo_close_path(cr);
        set_fill(cr, rgb);
        cairo_fill_preserve(cr);
        set_edge(cr, rgb);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        cairo_stroke(cr);
        break;
      case CLT_SHAPE_SEGMENT:
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
        cairo_move_to(cr, s->a[0], s->a[1]);
        cairo_line_to(cr, s->b[0], s->b[1]);
        if (s->radius > 0) {
          set_edge(cr, rgb);
          cairo_set_line_width(cr, 2 * s->radius + 3 * px);
          cairo_stroke_preserve(cr);
          set_fill(cr, rgb);
          cairo_set_line_width(cr, 2 * s->radius);
        } else {
          set_edge(cr, rgb);
          cairo_set_line_width(cr, 2.5 * px);
        }
        cairo_stroke(cr);
        break;
      default: break;
    }
    cairo_restore(cr);
  }
  cairo_restore(cr);
  free(colors);
  draw_links(run, frame, view, cr, 1);
  return CLT_OK;
}

clt_status_t clt_viz_render_frame(const clt_viz_run_t *run, int64_t frame, const clt_viz_view_t *view,
                                  const clt_viz_render_options_t *options, cairo_surface_t **out,
                                  char *message, size_t message_size) {
  *out = NULL;
  if (frame < 0 || frame >= run->frame_count) {
    if (message) {
      snprintf(message, message_size, "frame %lld out of range (the run has %lld frames)", (long long)frame,
               (long long)run->frame_count);
    }
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (!clt_viz_run_frame(run, frame)) {
    if (message) snprintf(message, message_size, "%s: cannot read trajectory frame %lld", run->path, (long long)frame);
    return CLT_ERR_IO;
  }
  cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, view->width, view->height);
  if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(surface);
    if (message) snprintf(message, message_size, "out of memory for a %d x %d picture", view->width, view->height);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  clt_status_t status = CLT_OK;
  if (run->dimension == 3) status = clt_viz_render_3d(run, frame, view, options, surface);
  cairo_t *cr = cairo_create(surface);
  if (run->dimension == 2) {
    cairo_set_source_rgb(cr, clt_viz_background[0], clt_viz_background[1], clt_viz_background[2]);
    cairo_paint(cr);
    status = clt_viz_render_2d(run, frame, view, options, cr);
    draw_scale_bar(view, cr);
  } else {
    draw_links(run, frame, view, cr, 0);
    draw_links(run, frame, view, cr, 1);
  }
  /* Bodies without shapes (mass and inertia only) as dots at their centres of mass. */
  for (int b = 0; status == CLT_OK && b < run->body_count; b++) {
    if (run->body_shape_count[b] > 0) continue;
    double p[3], q[4], x, y, rgb[3];
    clt_viz_body_pose(run, frame, b, p, q);
    if (!to_pixel(run, view, p, &x, &y) || !isfinite(x + y)) continue;
    clt_viz_body_color(run, b, rgb);
    cairo_new_path(cr); /* text leaves a current point that arc would join */
    cairo_arc(cr, x, y, 4.5, 0, 2 * CLT_VIZ_PI);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.55 * rgb[0], 0.55 * rgb[1], 0.55 * rgb[2]);
    cairo_set_line_width(cr, 1.5);
    cairo_stroke(cr);
  }
  if (status == CLT_OK && options->contacts && run->has_contacts) draw_contacts(run, frame, view, cr);
  if (options->label) draw_label(run, frame, cr);
  cairo_destroy(cr);
  if (status != CLT_OK) {
    cairo_surface_destroy(surface);
    if (message) snprintf(message, message_size, "rendering failed (%s)", clt_status_name(status));
    return status;
  }
  cairo_surface_flush(surface);
  *out = surface;
  return CLT_OK;
}
