/* clatter — scene files (JSON, docs/scene-format.md): reading, validation, parameters, overrides,
 * and building a world from them. Part of the clatter_io library (cJSON); the core library does
 * not depend on it.
 *
 * Every error message has the form "SOURCE: JSON.PATH: reason", e.g.
 *   scene.json: bodies[3].shape.radius: must be > 0 (got -1)
 * and malformed JSON "SOURCE:LINE:COLUMN: invalid JSON: reason". The functions never print. */
#ifndef CLATTER_SCENE_H
#define CLATTER_SCENE_H

#include "clatter/colony.h"
#include "clatter/world.h"

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef struct clt_scene_t clt_scene_t;

/* Mesh files (docs/shapes.md "Mesh files"): OBJ, STL (binary and ASCII), PLY, OFF, COLLADA and the
 * other formats the Open Asset Import Library reads. The file's vertices are multiplied by scale
 * (per axis; NULL: 1) after its node transforms; faces are triangulated and duplicate vertices
 * joined. On success *vertices and *triangles are malloc'd (free them); CLT_ERR_IO for a file that
 * cannot be opened, CLT_ERR_FORMAT for one that is not a mesh or has no triangles, with the path in
 * message. */
clt_status_t clt_mesh_file_read(const char *path, const double scale[3], double (**vertices)[3], int *vertex_count,
                                int (**triangles)[3], int *triangle_count, char *message, size_t message_size);
/* The convex hull of a mesh file's vertices (clt_convex_from_points), the path in any message. */
clt_status_t clt_convex_from_file(const char *path, const double scale[3], clt_convex_t **out, char *message,
                                  size_t message_size);

/* Overrides applied while reading, in this order: every `set` ("json.path=value", e.g.
 * "bodies[0].mass=2"), then the parameters (declared defaults, replaced by `params`
 * "name=value"), then "$name" references are substituted. A value is parsed as JSON if it parses,
 * else taken as a string. Arrays of C strings; not copied beyond the call. */
typedef struct clt_scene_overrides_t {
  const char *const *sets;
  int set_count;
  const char *const *params;
  int param_count;
} clt_scene_overrides_t;

/* What to write (the scene's "output" block; docs/output-format.md). */
typedef struct clt_scene_output_t {
  const char *path;       /* "" if the scene names none (the CLI then uses "<name>.h5") */
  int64_t interval_steps; /* trajectory frame every this many steps, ≥ 1 */
  bool trajectory;        /* positions and orientations/angles */
  bool velocities;        /* linear and angular velocities */
  bool diagnostics;       /* /diagnostics in the HDF5 file */
  bool csv;               /* OUT.csv beside OUT.h5 */
  bool contacts;          /* /contacts (points and forces) at each trajectory frame */
} clt_scene_output_t;

/* Reads and validates a scene from JSON text. `source` names it in messages (e.g. the file
 * name). overrides may be NULL. On failure *out is NULL, message holds the reason (message_size
 * bytes at most, truncated) and the status is CLT_ERR_FORMAT (content) or
 * CLT_ERR_INVALID_ARGUMENT (a malformed override or an unknown --param name). */
clt_status_t clt_scene_parse(const char *text, const char *source, const clt_scene_overrides_t *overrides,
                             clt_scene_t **out, char *message, size_t message_size);

/* Scene files longer than this are refused before they are read to the end (a scene is text; a
 * path to /dev/zero or a disk image must not exhaust memory), as is any NUL byte, at its offset. */
#define CLT_SCENE_MAX_BYTES (256 << 20)

/* As clt_scene_parse, reading the file at path (CLT_ERR_IO if it cannot be read). */
clt_status_t clt_scene_load(const char *path, const clt_scene_overrides_t *overrides, clt_scene_t **out,
                            char *message, size_t message_size);

void clt_scene_destroy(clt_scene_t *scene);

/* What the reader read but does not use, one line each (a URDF model's visual elements, materials,
 * transmissions, joint dynamics, ...: docs/shapes.md "URDF"); "" if nothing. */
const char *clt_scene_notes(const clt_scene_t *scene);

/* The resolved scene (overrides applied, parameters substituted) as JSON text whose numbers
 * round-trip exactly: parsing it again (without overrides) gives the same world, bit for bit.
 * Owned by the scene. */
const char *clt_scene_json(const clt_scene_t *scene);

const char *clt_scene_name(const clt_scene_t *scene);
const char *clt_scene_source(const clt_scene_t *scene);
int clt_scene_dimension(const clt_scene_t *scene);
double clt_scene_time_step(const clt_scene_t *scene);
double clt_scene_duration(const clt_scene_t *scene);
/* Number of steps of the whole run: duration / time_step rounded to the nearest integer. */
int64_t clt_scene_step_count(const clt_scene_t *scene);
const clt_scene_output_t *clt_scene_output(const clt_scene_t *scene);
const clt_world_def_t *clt_scene_world_def(const clt_scene_t *scene);
int clt_scene_body_count(const clt_scene_t *scene);
/* The i-th body's definition as read (0 ≤ i < body count; NULL otherwise). Its shapes and name
 * are owned by the scene. */
const clt_body_def_t *clt_scene_body_def(const clt_scene_t *scene, int index);

/* Builds the world: materials, bodies, joints, forces in file order. log (may be NULL) becomes
 * the world's log sink. A failure of the library is reported against the JSON path of the object
 * that caused it ("scene.json: joints[2]: <library message>"). On failure *out is NULL. */
clt_status_t clt_scene_create_world(const clt_scene_t *scene, clt_log_fn log, void *log_user,
                                    clt_world_t **out, char *message, size_t message_size);

/* Sets the motors whose inputs the scene gives as functions of time (docs/scene-format.md
 * "Functions of time") for the coming step from t to t + h: targets to their values at t + h (a
 * step's rows ask for the rate and the position it ends with), efforts to their values at t (as
 * the applied forces of SPEC.md §1, taken at the start of the step). Call it before each
 * clt_world_step of a world built by clt_scene_create_world; the run loop does
 * (clt_run_loop_t.scene). Joints and bodies with "remove_at" are removed (clt_world_remove_joint,
 * clt_world_remove_body; joints first) before the first step that starts at that time or later
 * (half a step of slack for the rounding of t = n h). Does nothing for a scene without such inputs. Returns the status of
 * clt_joint_set_motor (the world's error names the joint). */
clt_status_t clt_scene_drive(const clt_scene_t *scene, clt_world_t *world);

/* The scene's "colony" block (docs/scene-format.md "colony"): a colony of growing, dividing cells
 * (clatter/colony.h) started from the scene's seed cell, its first dynamic body, which must have one
 * capsule shape. Defaults are filled in: def.diameter is the seed cell's; order_radius
 * 2·division_length and order_contact_gap 0.1·diameter where the block gives none. */
typedef struct clt_scene_colony_t {
  clt_colony_def_t def;     /* first_cell is set by clt_scene_create_colony */
  int generations;          /* G: a run ends when the colony has 2^G cells (or at the duration) */
  double order_radius;      /* clt_colony_order's radius [m], angle [rad] and contact_gap [m] */
  double order_angle;
  double order_contact_gap;
  int seed_body;            /* index of the seed cell among the scene's bodies */
} clt_scene_colony_t;

/* NULL when the scene has no "colony" block. Owned by the scene. */
const clt_scene_colony_t *clt_scene_colony(const clt_scene_t *scene);

/* Creates the scene's colony on a world built from it (clt_scene_create_world): its first cell is
 * the world's body of index seed_body. On failure *out is NULL and message holds
 * "SOURCE: colony: reason" (CLT_ERR_INVALID_ARGUMENT: no colony block, or the colony's checks). */
clt_status_t clt_scene_create_colony(const clt_scene_t *scene, clt_world_t *world, clt_colony_t **out, char *message,
                                     size_t message_size);

/* Frees the scene's bodies as read (their definitions, shapes and names: several hundred bytes a
 * body, the largest part of a scene of many bodies) once the world is built from them. Everything
 * else stays: clt_scene_body_count keeps its value, clt_scene_body_def returns NULL, and
 * clt_scene_create_world fails with CLT_ERR_INVALID_ARGUMENT. */
void clt_scene_release_bodies(clt_scene_t *scene);

/* The built-in default scene (also scenes/examples/default.json): a torque-free asymmetric body
 * spun about its intermediate axis (Dzhanibekov flips) next to a projectile; 3D, no contacts. */
const char *clt_scene_default_json(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
