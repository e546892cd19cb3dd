/* clatter — measurements of granular packings (docs/analysis.md): the solid fraction of a box,
 * coordination numbers, the contact-force network, the Love–Weber stress of a box, profiles along
 * an axis, the angle of repose of a heap and the mass flow rate through a plane. Part of the
 * installed library (layer analysis, above io: docs/architecture.md).
 *
 * Every measurement reads a frame (clt_analysis_frame_t): the bodies' positions, velocities,
 * masses, types, sphere radii and volumes, and the frame's contacts with their forces and
 * `touching` flags. A frame comes from a run file (clt_analysis_open, clt_analysis_read_frame),
 * from a world (clt_analysis_frame_from_world), or from arrays a program fills itself. Particles
 * are the dynamic bodies present in the frame; static and kinematic bodies (walls, floors,
 * meshes) are never particles but their contacts on particles count. clt_analysis_table runs one
 * measurement over a range of a run file's frames and gives the rows `clatter analyze` writes as
 * CSV and `clatter.analyze` returns as NumPy arrays.
 *
 * Units are SI: metres, kilograms, seconds, newtons, pascals. A 2D frame measures areas for
 * volumes (m²) and its stresses are forces per length (N/m); the z components are ignored.
 * Like every clatter library it never prints: errors come back as a status and a message. */
#ifndef CLATTER_ANALYSIS_H
#define CLATTER_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clatter/world.h"

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ---------------------------------------------------------------------------------------------
 * Exact volumes (docs/analysis.md "Sphere–box volumes") */

/* The volume [m³] of the ball of `radius` about `center` inside the axis-aligned box lo ≤ x ≤ hi,
 * in closed form (inclusion–exclusion over the box's eight corners of the ball's volume beyond a
 * corner, each an integral done by hand: docs/analysis.md). Bounds may be ±INFINITY (a slab, a
 * half-space); a box with lo > hi on an axis holds nothing (0). The error is about 10⁻¹⁵ radius³
 * (tests/analysis/test_volume.c). NaN for a NaN argument or a negative radius. */
double clt_sphere_box_volume(const double center[3], double radius, const double lo[3], const double hi[3]);
/* The 2D counterpart: the area [m²] of the disk of `radius` about center[0..1] inside the
 * rectangle lo ≤ x ≤ hi (two components each). */
double clt_disk_box_area(const double center[2], double radius, const double lo[2], const double hi[2]);

/* The solid volume [m³] of a shape (2D shapes: area [m²]): sphere 4/3 π r³, box 8 h₀h₁h₂, capsule
 * π r² L + 4/3 π r³, cylinder π r² L, ellipsoid 4/3 π abc, torus 2π² R r², polyhedron its hull's
 * volume, disk π r², ellipse π ab, polygon its shoelace area, rounded segment 2 r L + π r²; 0 for
 * half-spaces, half-planes and meshes (they bound no solid). */
double clt_shape_volume(const clt_shape_def_t *shape);

/* ---------------------------------------------------------------------------------------------
 * A frame */

typedef struct clt_analysis_frame_t {
  int dimension;     /* 2 or 3 */
  int64_t frame;     /* the run file's frame (−1 for a frame of a world) */
  int64_t step;      /* the step it was recorded at */
  double time;       /* [s] */
  double gravity[3]; /* [m/s²]: "up" is against it (repose) */
  int body_count;
  /* Per body, body_count rows. A body whose position is NaN (removed, or in a growing run not
   * born yet) is left out of every measurement. */
  const double *position; /* × 3 centre of mass, world frame [m] (2D: z = 0) */
  const double *velocity; /* × 3 [m/s], or NULL (profiles then give NaN velocities) */
  const double *mass;     /* [kg]; +inf for static and kinematic bodies */
  const int *body_type;   /* clt_body_type_t: only CLT_BODY_DYNAMIC bodies are particles */
  const double *radius;   /* r of a body whose only shape is a sphere (2D: disk) centred on its
                             centre of mass, whose volumes in a box are exact; 0 otherwise */
  const double *volume;   /* the body's solid volume [m³] (2D: area [m²]): its shapes' sum */
  /* The frame's contacts (docs/output-format.md "/contacts"), contact_count rows. */
  int64_t contact_count;
  const int32_t *contact_body_a, *contact_body_b; /* body rows */
  const double *contact_point;                    /* × 3 [m] */
  const double *contact_normal;                   /* × 3 unit normal from A to B */
  const double *contact_force;                    /* × 3 total force on B [N] (A gets the opposite) */
  const uint8_t *contact_touching;                /* 1: touching (docs/output-format.md "Touching contacts"),
                                                     0: a candidate only; NULL: every row touches */
  void *storage; /* what clt_analysis_frame_release frees; NULL for a frame filled by hand */
} clt_analysis_frame_t;

/* An axis-aligned box lo ≤ x ≤ hi [m]; 2D uses components 0 and 1. Bounds may be ±INFINITY where
 * a measurement needs no volume (coordination, forces, flow). */
typedef struct clt_analysis_box_t {
  double lo[3], hi[3];
} clt_analysis_box_t;

/* A box from 2·dimension numbers, the low corner then the high corner (the form of `clatter
 * analyze --region`); the axes beyond the dimension are unbounded. CLT_ERR_INVALID_ARGUMENT
 * ("region: ...") for another count, a NaN, or a low bound above its high one. */
clt_status_t clt_analysis_box_from_numbers(int dimension, const double *numbers, int count, clt_analysis_box_t *out,
                                           char *message, size_t message_size);

/* The world's bodies now and the contacts of its last step (clt_world_get_contact), copied into
 * arrays that *out owns (free them with clt_analysis_frame_release). CLT_ERR_INVALID_ARGUMENT for
 * a NULL world; CLT_ERR_OUT_OF_MEMORY. */
clt_status_t clt_analysis_frame_from_world(const clt_world_t *world, clt_analysis_frame_t *out, char *message,
                                           size_t message_size);
/* Frees what a reader or clt_analysis_frame_from_world allocated for the frame and zeroes it;
 * a frame filled by hand (storage NULL) is only zeroed. NULL: nothing. */
void clt_analysis_frame_release(clt_analysis_frame_t *frame);

/* ---------------------------------------------------------------------------------------------
 * Measurements of one frame. Each returns CLT_ERR_INVALID_ARGUMENT, with the reason in message,
 * for a NULL frame, a dimension other than 2 or 3, or an argument named in its description. */

typedef struct clt_packing_t {
  double region_volume; /* [m³] (2D: m²) */
  double solid_volume;  /* Σ over particles of their volume inside the region [m³] */
  double fraction;      /* solid_volume / region_volume */
  int particles;        /* particles with some volume inside */
  int by_centre;        /* of them, not spheres: counted whole when their centre is inside */
} clt_packing_t;
/* The solid (packing) fraction of a finite box: spheres (disks) by their exact volume inside it
 * (clt_sphere_box_volume), other particles by their whole volume when their centre is inside
 * (docs/analysis.md "Packing fraction"). A box with an infinite or empty extent is an error. */
clt_status_t clt_analysis_packing(const clt_analysis_frame_t *frame, const clt_analysis_box_t *region,
                                  clt_packing_t *out, char *message, size_t message_size);

typedef struct clt_coordination_t {
  int particles;             /* N: particles whose centre is in the region */
  int64_t partners;          /* Σ nᵢ over them: nᵢ = the bodies (particles or walls) i touches */
  double mean;               /* Z = Σ nᵢ / N (NaN for N = 0) */
  int rattlers;              /* of the N, those left out of the backbone (min_contacts below) */
  int64_t backbone_partners; /* Σ n*ᵢ over the N − rattlers: their partners in the backbone and walls */
  double mechanical;         /* Z* = Σ n*ᵢ / (N − rattlers) (NaN when every particle rattles) */
} clt_coordination_t;
/* Coordination numbers from the touching contacts (docs/analysis.md "Coordination number"): nᵢ
 * counts the distinct bodies with at least one touching contact with particle i (a box face on a
 * floor touches at up to 4 points: one partner). Rattlers are removed repeatedly from all the
 * particles: a particle with fewer than min_contacts partners among walls and the particles not
 * removed yet is removed, until none is (Agnolin & Roux 2007; min_contacts 2 for frictional
 * grains, d + 1 for frictionless ones); Z* counts what the remaining particles touch. region NULL:
 * every particle. min_contacts < 1 is an error. */
clt_status_t clt_analysis_coordination(const clt_analysis_frame_t *frame, const clt_analysis_box_t *region,
                                       int min_contacts, clt_coordination_t *out, char *message, size_t message_size);

/* Whether the frame's contact row i enters the force network and the stress: it touches, and at
 * least one of its bodies is a particle. */
bool clt_analysis_contact_counts(const clt_analysis_frame_t *frame, int64_t i);
/* The branch vector l [m] of contact row i (docs/analysis.md "Love–Weber stress"): from A's centre
 * to B's centre, where a static or kinematic body's "centre" is the contact point (so a wall
 * contact's branch runs between the particle's centre and the contact point). Its force on B is
 * contact_force. NaN for an index out of range or a body absent from the frame. */
void clt_analysis_contact_branch(const clt_analysis_frame_t *frame, int64_t i, double branch[3]);

typedef struct clt_stress_t {
  double volume;      /* V [m³] (2D: m²) */
  int64_t contacts;   /* contacts summed: touching, with the point inside the region */
  double sigma[3][3]; /* symmetric part of σ_ij = (1/V) Σ_c f_i l_j [Pa] (2D: N/m, row and
                         column 2 zero); compression positive */
  double pressure;    /* p = tr σ / d */
  double deviatoric;  /* q: 3D √(3/2 s:s), 2D √(s:s / 2) = |σ₁ − σ₂| / 2, s = σ − p I */
  double asymmetry;   /* |σ − σᵀ| / 2 (Frobenius) before symmetrizing: zero at equilibrium
                         without torques at the contacts */
} clt_stress_t;
/* The Love–Weber stress of a finite box: the touching contacts whose point lies inside it, each
 * with its force on B and branch vector (clt_analysis_contact_branch). */
clt_status_t clt_analysis_stress(const clt_analysis_frame_t *frame, const clt_analysis_box_t *region, clt_stress_t *out,
                                 char *message, size_t message_size);

typedef struct clt_profile_bin_t {
  double lo, hi;         /* the bin's extent along the axis [m] */
  int particles;         /* particles whose centre is in the bin (and in the region) */
  double mass;           /* their mass [kg] */
  double velocity[3];    /* their mass-weighted mean velocity [m/s]; NaN without particles or
                            without velocities in the frame */
  double solid_fraction; /* exact sphere volume in the bin's box over its volume (packing) */
} clt_profile_bin_t;
/* Profiles along axis 0, 1 or 2 (2D: 0 or 1): the finite region cut into `bins` equal slabs
 * along the axis, each measured like clt_analysis_packing, velocities by centre. out has bins
 * entries. */
clt_status_t clt_analysis_profile(const clt_analysis_frame_t *frame, const clt_analysis_box_t *region, int axis,
                                  int bins, clt_profile_bin_t *out, char *message, size_t message_size);

typedef struct clt_repose_options_t {
  int up_axis;             /* 0, 1, 2; −1: the axis of gravity's largest component */
  int up_sign;             /* +1 / −1: heights grow along ±up_axis; 0: against gravity */
  bool has_centre;         /* false: the heap's axis goes through the particles' centre of mass */
  double centre[3];        /* a point on the heap's axis [m] (its up component is ignored) */
  double heap_radius;      /* R [m]; 0: the largest rᵢ + ρᵢ of the particles */
  double fit_min, fit_max; /* the bins fitted: centres in [fit_min R, fit_max R] (0 ≤ min < max ≤ 1) */
  int bins;                /* radial bins over [0, R] */
} clt_repose_options_t;
/* Defaults: up against gravity, centre of mass, R from the particles, fit 0.2 … 0.8, 20 bins. */
clt_repose_options_t clt_default_repose_options(void);

typedef struct clt_repose_t {
  double angle;       /* the angle of repose [degrees] = atan(−slope) */
  double slope;       /* dh/dr of the least-squares line h = intercept + slope r */
  double intercept;   /* [m] */
  double heap_radius; /* R used [m] */
  double centre[3];   /* the axis point used [m] (its up component 0) */
  int bins_fitted;    /* bins with a particle in the fitted range */
  double rms;         /* root-mean-square residual of the fit [m] */
} clt_repose_t;
/* The angle of repose of a heap (docs/analysis.md "Angle of repose"): rᵢ is a particle's distance
 * from the heap's axis (2D: |x − x_c| along the horizontal axis), its top hᵢ = its up coordinate +
 * ρᵢ (ρ its radius, or for other shapes the radius of the sphere of its volume); radial bin k of
 * [0, R] keeps its top particle, the one with the largest hᵢ; the line is fitted by least squares
 * to the (rᵢ, hᵢ) of the top particles of the non-empty bins whose centre lies in
 * [fit_min R, fit_max R] (at the particle's own rᵢ: the top particle of a bin sits near its inner
 * edge). heights, when not NULL, receives options->bins top heights hᵢ (NaN for an empty bin).
 * Fewer than two bins to fit is CLT_ERR_INVALID_ARGUMENT ("bins: ..."). */
clt_status_t clt_analysis_repose(const clt_analysis_frame_t *frame, const clt_repose_options_t *options,
                                 clt_repose_t *out, double *heights, char *message, size_t message_size);

typedef struct clt_flow_t {
  double mass_positive; /* mass of the particles whose centre crossed the plane towards +axis [kg] */
  double mass_negative; /* ... towards −axis [kg] (≥ 0) */
  double net;           /* mass_positive − mass_negative [kg] */
  double rate;          /* net / (after->time − before->time) [kg/s] */
  int crossings;        /* particles that crossed, either way */
} clt_flow_t;
/* The mass that crossed the plane x_axis = position between two frames of the same bodies
 * (docs/analysis.md "Mass flow rate"): a particle crosses when its centre is below the plane
 * (x < position) in one frame and not below in the other; with a region, only where the straight
 * path between its two centres meets the plane inside the region's extent on the other axes
 * (an orifice). A particle that crosses and comes back between the two frames is not seen. The
 * frames must have the same body count and dimension, and after->time > before->time. */
clt_status_t clt_analysis_flow(const clt_analysis_frame_t *before, const clt_analysis_frame_t *after, int axis,
                               double position, const clt_analysis_box_t *region, clt_flow_t *out, char *message,
                               size_t message_size);

/* ---------------------------------------------------------------------------------------------
 * Run files */

typedef struct clt_analysis_run_t clt_analysis_run_t;

/* Opens a run file (docs/output-format.md) through the library's run reader, with its checks
 * against damaged files, and reads its bodies and shapes. CLT_ERR_IO ("PATH: cannot open: ...")
 * or CLT_ERR_FORMAT ("PATH: reason") otherwise. A file without /trajectory has no frames. */
clt_status_t clt_analysis_open(const char *path, clt_analysis_run_t **out, char *message, size_t message_size);
void clt_analysis_close(clt_analysis_run_t *run);                /* NULL: nothing */
int64_t clt_analysis_frame_count(const clt_analysis_run_t *run); /* NULL: 0 */
int clt_analysis_dimension(const clt_analysis_run_t *run);       /* 2 or 3; NULL: 0 */
/* Frame 0 ≤ frame < count, into arrays *out owns (clt_analysis_frame_release; independent of the
 * run and of other frames). Contacts come from /contacts when the file has it (none otherwise),
 * velocities from /trajectory/velocity when present. CLT_ERR_INVALID_ARGUMENT for a frame out of
 * range ("frames: ..."), CLT_ERR_FORMAT for a damaged dataset, named in message, and for a frame
 * with contacts in a file whose /contacts has no `touching` flags (a file of before them: its rows
 * are candidates, not contacts). */
clt_status_t clt_analysis_read_frame(clt_analysis_run_t *run, int64_t frame, clt_analysis_frame_t *out, char *message,
                                     size_t message_size);

/* ---------------------------------------------------------------------------------------------
 * Tables: one measurement over a range of frames (`clatter analyze`, `clatter.analyze`) */

typedef enum clt_analysis_kind_t {
  CLT_ANALYSIS_PACKING,
  CLT_ANALYSIS_COORDINATION,
  CLT_ANALYSIS_FORCES,
  CLT_ANALYSIS_STRESS,
  CLT_ANALYSIS_PROFILE,
  CLT_ANALYSIS_REPOSE,
  CLT_ANALYSIS_FLOW,
  CLT_ANALYSIS_KIND_COUNT
} clt_analysis_kind_t;

/* "packing", "coordination", "forces", "stress", "profile", "repose", "flow"; NULL out of range.
 * The inverse returns CLT_ANALYSIS_KIND_COUNT for an unknown name. */
const char *clt_analysis_kind_name(clt_analysis_kind_t kind);
clt_analysis_kind_t clt_analysis_kind_from_name(const char *name);

/* What to measure. The field names are the options of `clatter analyze` (--min-contacts for
 * min_contacts, ...) and the keywords of clatter.analyze; error messages begin with them. */
typedef struct clt_analysis_request_t {
  clt_analysis_kind_t kind;
  /* frames first … last every stride; negative indices count from the end (−1: the last frame).
   * frames_given false: the last frame, or every frame for flow. */
  bool frames_given;
  int64_t first, last, stride;
  bool has_region; /* required by packing, stress and profile */
  clt_analysis_box_t region;
  int axis;                    /* profile (bins along it) and flow (the plane's normal); −1: the up axis */
  int bins;                    /* profile and repose; 0: 20 */
  bool has_plane;              /* flow: required */
  double plane;                /* flow: the plane x_axis = plane [m] */
  int min_contacts;            /* coordination: rattlers have fewer partners (default 2) */
  clt_repose_options_t repose; /* repose: centre, heap_radius, fit (its bins: the bins above) */
} clt_analysis_request_t;

clt_analysis_request_t clt_default_analysis_request(clt_analysis_kind_t kind);

/* A table of numbers: row r, column c at values[r · column_count + c]. */
typedef struct clt_analysis_table_t {
  int column_count;
  int64_t row_count;
  const char *const *names; /* column names (static strings) */
  const bool *integer;      /* columns that hold integers (frame, step, counts, body rows) */
  double *values;
  void *storage; /* what clt_analysis_table_free frees with the values */
} clt_analysis_table_t;

/* Runs the request over the run file's frames (docs/analysis.md "Tables" lists each kind's
 * columns). CLT_ERR_INVALID_ARGUMENT with "FIELD: reason" for a request that cannot be measured
 * (a missing region, frames outside the file, ...); the run's own errors as
 * clt_analysis_read_frame. On success free the table with clt_analysis_table_free. */
clt_status_t clt_analysis_table(clt_analysis_run_t *run, const clt_analysis_request_t *request,
                                clt_analysis_table_t *out, char *message, size_t message_size);
void clt_analysis_table_free(clt_analysis_table_t *table); /* NULL: nothing */

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
