/* clatter — seeing results (library clatter_viz): reads a run file written by `clatter run`
 * (docs/output-format.md) through io's run reader (io/run_reader.h), and turns it into
 * diagnostics plots (PNG), pictures of frames (PNG: 2D scenes drawn with cairo, 3D scenes ray
 * cast) and VTK XML PolyData series for ParaView. Used by `clatter plot`, `clatter render` and
 * `clatter vtk` (docs/visualization.md). Like every clatter library it never prints and never
 * exits: errors come back as a status and a message. */
#ifndef CLATTER_VIZ_H
#define CLATTER_VIZ_H

#define CLT_VIZ_PI 3.14159265358979323846

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "clatter/types.h"
#include "clatter/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * A run file in memory */

/* One row of /shapes: local pose relative to the body's principal frame and the parameters. */
typedef struct clt_viz_shape_t {
  int body;
  clt_shape_type_t type;
  double position[3];
  double orientation[4]; /* (w, x, y, z), 3D */
  double angle;          /* 2D */
  double radius, length, major_radius, minor_radius;
  double half_extents[3], semi_axes[3], point[3], normal[3], a[3], b[3];
  int vertex_count, first_vertex; /* polygon vertices: run->vertices rows */
  const clt_convex_t *hull;       /* polyhedron: the hull of /shapes/hull_vertices (owned by the run) */
  const clt_mesh_t *mesh;         /* mesh: /shapes/mesh_vertices and mesh_triangles (owned by the run) */
} clt_viz_shape_t;

/* The largest distance of a polyhedron's vertices from its frame's origin (0 for NULL). */
static inline double clt_viz_hull_radius(const clt_convex_t *c) {
  double r = 0;
  const double(*v)[3] = clt_convex_vertices(c);
  for (int i = 0; i < clt_convex_vertex_count(c); i++)
    r = fmax(r, sqrt(v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2]));
  return r;
}

/* The largest distance of a mesh's vertices from its frame's origin (0 for NULL). */
static inline double clt_viz_mesh_radius(const clt_mesh_t *m) {
  double r = 0;
  const double(*v)[3] = clt_mesh_vertices(m);
  for (int i = 0; i < clt_mesh_vertex_count(m); i++)
    r = fmax(r, sqrt(v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2]));
  return r;
}

/* Joints and spring-dampers from the stored scene JSON, drawn by the 2D renderer. Anchors are
 * converted to the body's principal frame (the frame the trajectories report), or world
 * coordinates where the body is −1 (the world). */
typedef enum clt_viz_link_kind_t {
  CLT_VIZ_LINK_REVOLUTE,
  CLT_VIZ_LINK_SPHERICAL,
  CLT_VIZ_LINK_PRISMATIC,
  CLT_VIZ_LINK_FIXED,
  CLT_VIZ_LINK_DISTANCE,
  CLT_VIZ_LINK_SPRING,
  CLT_VIZ_LINK_REMOVED /* a joint removed before the file was made: its row, nothing to draw */
} clt_viz_link_kind_t;

typedef struct clt_viz_link_t {
  clt_viz_link_kind_t kind;
  int body_a, body_b; /* −1 = world */
  double anchor_a[3], anchor_b[3];
  int64_t gone_from; /* the first frame without the joint (removed during the run); frame_count: none */
} clt_viz_link_t;

/* The optional /contacts group (docs/output-format.md, "contacts (optional)"), rows aligned with
 * the trajectory frames: frame f owns contact rows first[f] … first[f] + count[f] − 1. */
typedef struct clt_viz_contacts_t {
  int64_t total;          /* contact rows */
  int64_t *first, *count; /* per trajectory frame */
  int32_t *body_a, *body_b;
  double *point;        /* total × 3 [m] */
  double *normal;       /* total × 3, or NULL */
  double *force;        /* total × 3 [N], or NULL */
  double *normal_force; /* total [N], or NULL */
  double *distance;     /* total [m], or NULL */
  int32_t *touching;    /* total: 1 touching, 0 a candidate only (docs/output-format.md "Touching
                           contacts"), or NULL (a file of before it) */
  double max_body_force; /* largest Σ |force| of one body's contacts in one frame [N] */
} clt_viz_contacts_t;

typedef struct clt_viz_run_t {
  char path[1024];
  char scene_name[256];
  int dimension;
  double time_step;
  double gravity[3]; /* from the scene JSON (default −9.81 along the last axis) */

  int body_count;
  char (*body_name)[64];
  int *body_type; /* clt_body_type_t */
  int *body_first_shape, *body_shape_count;

  int shape_count;
  clt_viz_shape_t *shapes;
  int vertex_total;
  double *vertices; /* vertex_total × 2 */

  int64_t frame_count; /* 0 when the file has no /trajectory */
  int64_t *frame_step;
  double *frame_time;
  bool has_velocity, has_angular_velocity;
  /* The body states are read one frame at a time (clt_viz_run_frame), so that runs larger than
   * memory can be drawn; the file stays open until clt_viz_run_free. */
  struct clt_viz_frame_cache_t *cache;

  int link_count;
  clt_viz_link_t *links;

  int64_t diagnostics_rows;
  int diagnostics_count;
  char (*diagnostics_name)[32];
  double **diagnostics; /* diagnostics_count columns of diagnostics_rows values */

  bool has_contacts;
  clt_viz_contacts_t contacts;
} clt_viz_run_t;

/* Reads a whole run file. CLT_ERR_IO if it cannot be opened, CLT_ERR_FORMAT if it is not a clatter
 * run file or a dataset has an unexpected shape. Free with clt_viz_run_free. */
clt_status_t clt_viz_run_read(const char *path, clt_viz_run_t **out, char *message, size_t message_size);
void clt_viz_run_free(clt_viz_run_t *run);

/* The body states of one trajectory frame. */
typedef struct clt_viz_frame_t {
  int64_t frame;
  const double *position;         /* body_count × 3 [m] */
  const double *orientation;      /* body_count × 4 (w, x, y, z) (2D: rotation about z by angle) */
  const double *angle;            /* body_count (2D), else NULL */
  const double *velocity;         /* body_count × 3, or NULL when the run has none */
  const double *angular_velocity; /* body_count × 3 (3D body frame; 2D: (0, 0, ω)), or NULL */
  const double *length;           /* body_count: a growing run's capsule lengths (/trajectory/length), or NULL */
} clt_viz_frame_t;

/* Reads (or returns the cached) frame 0 ≤ frame < frame_count. The pointers stay valid until the
 * next call for another frame. NULL when the frame is out of range or cannot be read. Not
 * thread-safe (the run holds one frame). */
const clt_viz_frame_t *clt_viz_run_frame(const clt_viz_run_t *run, int64_t frame);

/* A diagnostics column by name (NULL if absent). "energy" is derived: kinetic + potential
 * (computed on first use and cached in the run). */
const double *clt_viz_run_diagnostic(clt_viz_run_t *run, const char *name);

/* Shape `shape` as it is at a frame: in a growing run (a colony) a capsule takes the frame's length
 * of its body. False when its body does not exist yet at that frame (its position is NaN:
 * docs/output-format.md "Growing runs"): draw nothing for it. */
bool clt_viz_frame_shape(const clt_viz_run_t *run, int64_t frame, int shape, clt_viz_shape_t *out);

/* World pose of a body or of a shape at a trajectory frame (orientation as (w, x, y, z); 2D:
 * rotation about z). NaN if the frame cannot be read. */
void clt_viz_body_pose(const clt_viz_run_t *run, int64_t frame, int body, double position[3],
                       double orientation[4]);
void clt_viz_shape_pose(const clt_viz_run_t *run, int64_t frame, int shape, double position[3],
                        double orientation[4]);

/* Adds each contact's force magnitude (|force|, else |normal_force|) at a frame to both of its
 * bodies' entries of sum (body_count values; the caller zeroes them). Nothing without /contacts. */
void clt_viz_contact_body_forces(const clt_viz_run_t *run, int64_t frame, double *sum);

/* Trajectory frame whose time is nearest t (0 if there are no frames). */
int64_t clt_viz_frame_at_time(const clt_viz_run_t *run, double t);

/* Parses a frame range "a:b:s" (first a, last b inclusive, stride s; each part optional: "::10"
 * is every tenth frame, "5:" from 5 to the end; negative a or b count from the end, −1 = the last
 * frame) against a run with frame_count frames. False for malformed text or an empty range. */
bool clt_viz_parse_frames(const char *spec, int64_t frame_count, int64_t *first, int64_t *last, int64_t *stride);

/* Small quaternion helpers (w, x, y, z). */
void clt_viz_quat_rotate(const double q[4], const double v[3], double out[3]);
void clt_viz_quat_mul(const double a[4], const double b[4], double out[4]);

/* ---------------------------------------------------------------------------------------------
 * Pictures (render.c: 2D with cairo; raycast.c: 3D) */

/* Base colour of body i (RGB in [0, 1]): a fixed palette by dynamic body index; static and
 * kinematic bodies are grey. The 3D shading multiplies it by a scalar (ambient + Lambert), so a
 * pixel's colour is proportional to it. */
void clt_viz_body_color(const clt_viz_run_t *run, int body, double rgb[3]);
extern const double clt_viz_background[3]; /* RGB of the background */


typedef struct clt_viz_render_options_t {
  int width, height;   /* pixels (default 800 × 600) */
  bool camera_set;     /* 3D: use eye/target below instead of the automatic camera */
  double eye[3], target[3];
  bool window_set;     /* 2D: show at least x ∈ [window[0], window[1]], y ∈ [window[2], window[3]] */
  double window[4];
  bool contacts;       /* overlay contact points and forces (needs /contacts) */
  bool color_by_force; /* colour dynamic bodies by the sum of their contact forces' magnitudes */
  int supersample;     /* 3D: rays per pixel per axis (1 … 4, default 2) */
  bool label;          /* draw the scene name and time in a corner (default true) */
} clt_viz_render_options_t;

clt_viz_render_options_t clt_viz_default_render_options(void);

/* The colours (body_count × 3) the bodies are drawn with at a frame: clt_viz_body_color, or with
 * options->color_by_force (and /contacts with body ids) the colour map of the sum of the
 * magnitudes of each dynamic body's contact forces at the frame over the largest such sum of the
 * run (light grey for none). */
void clt_viz_body_colors(const clt_viz_run_t *run, int64_t frame, const clt_viz_render_options_t *options,
                         double *rgb);

/* A view fitted once for a sequence of frames so that a movie does not jump: 2D: world window;
 * 3D: pinhole camera. */
typedef struct clt_viz_view_t {
  int width, height;
  double min[2], max[2]; /* 2D world window [m] */
  double scale;          /* 2D pixels per metre */
  double eye[3], target[3], up[3];
  double fov_y; /* 3D vertical field of view [rad] */
  double floor_tile; /* 3D checkerboard tile [m] */
} clt_viz_view_t;

/* Fits the view to every frame in first…last (step stride ≥ 1) of the run's bodies (half-planes
 * and half-spaces excluded; they are drawn across the view). */
void clt_viz_fit_view(const clt_viz_run_t *run, int64_t first, int64_t last, int64_t stride,
                      const clt_viz_render_options_t *options, clt_viz_view_t *view);

/* Draws one trajectory frame into a new ARGB32 image surface (the caller destroys it).
 * CLT_ERR_INVALID_ARGUMENT for a frame out of range, CLT_ERR_OUT_OF_MEMORY. */
clt_status_t clt_viz_render_frame(const clt_viz_run_t *run, int64_t frame, const clt_viz_view_t *view,
                                  const clt_viz_render_options_t *options, cairo_surface_t **out,
                                  char *message, size_t message_size);

/* Internal entry points of render.c / raycast.c (same contract as clt_viz_render_frame). */
clt_status_t clt_viz_render_2d(const clt_viz_run_t *run, int64_t frame, const clt_viz_view_t *view,
                               const clt_viz_render_options_t *options, cairo_t *cr);
clt_status_t clt_viz_render_3d(const clt_viz_run_t *run, int64_t frame, const clt_viz_view_t *view,
                               const clt_viz_render_options_t *options, cairo_surface_t *surface);

/* Projects a world point with a 3D view to pixel coordinates; false if behind the camera. */
bool clt_viz_project(const clt_viz_view_t *view, const double p[3], double *px, double *py);

/* Colour map for contact force magnitudes: s in [0, 1] → RGB (dark blue … yellow). */
void clt_viz_colormap(double s, double rgb[3]);

/* Text in the label font (DejaVu Sans through cairo's toy font API). */
void clt_viz_set_font(cairo_t *cr, double size, bool bold);

/* Releases cairo's and fontconfig's process-wide caches (fonts looked up for the labels), so that
 * leak checkers see a clean exit. Call once at the end, after every surface is destroyed. */
void clt_viz_release_static_data(void);

/* ---------------------------------------------------------------------------------------------
 * Plots (plot.c) */

typedef struct clt_viz_plot_options_t {
  int width, height; /* whole picture [px]; 0 = automatic from the panel count */
  bool log_all;      /* log scale on every panel */
  bool linear_all;   /* never log scale */
} clt_viz_plot_options_t;

/* Known diagnostics: unit ("" for a count) and whether a log scale is considered. Returns false
 * for a name that is not a diagnostics column (nor "energy"). */
bool clt_viz_quantity_info(const char *name, const char **unit, const char **label, bool *log_candidate);

/* Plots quantities (diagnostics columns or "energy") against time, one panel each, one line per
 * run (labels[i] in the legend), to a PNG file. A quantity absent from a run is skipped for that
 * run; a quantity absent from all runs is CLT_ERR_INVALID_ARGUMENT. */
clt_status_t clt_viz_plot(clt_viz_run_t *const *runs, const char *const *labels, int run_count,
                          const char *const *quantities, int quantity_count,
                          const clt_viz_plot_options_t *options, const char *png_path, char *message,
                          size_t message_size);

/* ---------------------------------------------------------------------------------------------
 * VTK XML (vtk.c) */

/* Which bodies the shapes series draws as surfaces: AUTO every body but those a sphere glyph of
 * the bodies file draws exactly (dynamic bodies whose one shape is a sphere, 2D a disk, centred on
 * the body's point), ALL every body, NONE no shapes series at all. */
typedef enum clt_viz_vtk_surfaces_t {
  CLT_VIZ_VTK_SURFACES_AUTO,
  CLT_VIZ_VTK_SURFACES_ALL,
  CLT_VIZ_VTK_SURFACES_NONE
} clt_viz_vtk_surfaces_t;

typedef struct clt_viz_vtk_options_t {
  int64_t first, last, stride; /* frames first…last (clamped to the run's) every stride */
  clt_viz_vtk_surfaces_t surfaces;
  bool ascii; /* ASCII .vtp files (17 significant digits) instead of binary zlib-compressed ones */
} clt_viz_vtk_options_t;

/* Every frame, AUTO surfaces, binary. */
clt_viz_vtk_options_t clt_viz_default_vtk_options(void);

/* "auto", "all", "none" → *out; false for another name. */
bool clt_viz_vtk_surfaces_from_name(const char *name, clt_viz_vtk_surfaces_t *out);

/* Writes dir/<base>_NNNNN.vtp per trajectory frame of the options' range (points = body centres;
 * point data: orientation quaternion, velocity, angular velocity, body id and type, shape type
 * id, whether a glyph draws the body, parameters of the body's first shape),
 * dir/<base>_shapes_NNNNN.vtp (the surfaces options->surfaces asks for, as polygons; not with
 * NONE), dir/<base>_contacts_NNNNN.vtp when the run has /contacts, and the collections
 * dir/<base>.pvd, dir/<base>_shapes.pvd (and dir/<base>_contacts.pvd) with the frames' times.
 * Every file is written as FILE.part and renamed when complete; after an error the .part file is
 * removed and what existed under the file's name is left as it was. options NULL: the defaults.
 * *files_written counts the files. CLT_ERR_INVALID_ARGUMENT (bad base name, empty range),
 * CLT_ERR_FORMAT (a frame of the run cannot be read), CLT_ERR_IO (a file cannot be written),
 * CLT_ERR_OUT_OF_MEMORY; the message says which file. */
clt_status_t clt_viz_write_vtk(const clt_viz_run_t *run, const char *dir, const char *base,
                               const clt_viz_vtk_options_t *options, int *files_written, char *message,
                               size_t message_size);

#ifdef __cplusplus
}
#endif
#endif
