/* Scene reading, inside clatter_io: the scene's storage, the error context every reader fails
 * through (messages "SOURCE: JSON.PATH: reason"), and the functions the files of the reader share:
 * scene_values.c (typed values at a JSON path), scene_overrides.c (--set, --param and "$name"),
 * scene_sections.c (one reader per section of docs/scene-format.md), scene.c (the whole file and
 * the public getters) and scene_build.c (the world and the colony built from a scene). */
#ifndef CLATTER_IO_SCENE_INTERNAL_H
#define CLATTER_IO_SCENE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "clatter/scene.h"

#define PATH_SIZE 512
#define CLT_SCENE_PI 3.14159265358979323846

typedef struct name_entry_t {
  const char *name;
  int index;
} name_entry_t;

typedef struct scene_body_t {
  clt_body_def_t def;
  clt_shape_def_t *shapes;
  char *name;
  bool shared_shapes; /* a grid copy: shapes belong to the grid's first body (docs "Body grids") */
  clt_keyframe_t *keyframes; /* a keyframed kinematic body's (def.motion.keyframes; owned) */
  int entry;          /* index in the file's "bodies" array (differs after a grid) */
  double remove_at;   /* "remove_at" [s]: removed before the first step that starts there or later; NaN: never */
} scene_body_t;

/* A value of the scene as a function of time (docs/scene-format.md "Functions of time"): a
 * number, mean + amplitude·sin(2π frequency t + phase), or piecewise-linear keyframes (held
 * before the first and after the last). */
typedef enum scene_function_kind_t { FUNCTION_CONSTANT, FUNCTION_SINUSOID, FUNCTION_KEYFRAMES } scene_function_kind_t;

typedef struct scene_function_t {
  scene_function_kind_t kind;
  double value; /* constant; sinusoid: the mean */
  double amplitude, frequency, phase;
  int count;
  double *times, *values; /* keyframes (owned; times increasing) */
} scene_function_t;

double scn_function_value(const scene_function_t *f, double t);
void scn_function_free(scene_function_t *f);

typedef struct scene_joint_t {
  clt_joint_def_t def;
  int body_a, body_b; /* body indices, −1 = the world */
  char *name;
  /* the motor's inputs as functions of time; scheduled: one of them is not a constant */
  scene_function_t target_velocity, target_position, effort;
  bool scheduled;
  double remove_at; /* "remove_at" [s]: removed before the first step that starts there or later; NaN: never */
} scene_joint_t;

typedef struct scene_force_t {
  clt_force_def_t def;
  int body_a, body_b;
  char *name;
  bool rigid; /* spring-damper "rigid": true: built as a distance joint instead (SPEC.md §8 twobar) */
} scene_force_t;

struct clt_scene_t {
  char *source;
  char *notes;       /* what the reader left unused (URDF elements), one line each; NULL: none */
  char *name;
  char *json;
  char *output_path;
  clt_world_def_t world_def;
  double duration;
  int64_t step_count;
  clt_scene_output_t output;
  int material_count;
  clt_material_def_t *materials;
  char **material_names;
  int default_material; /* index of the material named "default", −1 if none */
  int body_count;
  scene_body_t *bodies;
  struct name_entry_t *bodies_by_name; /* named bodies sorted by name, then index */
  int named_count;
  int joint_count;
  scene_joint_t *joints;
  /* the bodies with "remove_at" (body index, time), kept after clt_scene_release_bodies */
  int body_removal_count;
  int *body_removal_index;
  double *body_removal_time;
  int force_count;
  scene_force_t *forces;
  bool has_colony; /* a "colony" block (docs/scene-format.md "colony") */
  clt_scene_colony_t colony;
};

/* ---------------------------------------------------------------------------------------------
 * Error context */

typedef struct ctx_t {
  const char *source;
  char *message;
  size_t message_size;
  bool failed;
  clt_status_t status;
  int dimension;
  clt_scene_t *scene;
} ctx_t;

/* Names of bodies, joints, forces and materials: what the library stores (63 characters). */
#define NAME_MAX_LENGTH 63

typedef enum range_t {
  RANGE_ANY,
  RANGE_POSITIVE,    /* > 0 */
  RANGE_NONNEGATIVE, /* ≥ 0 */
  RANGE_GAMMA,       /* (0, 1] */
  RANGE_FRACTION     /* [0, 1] */
} range_t;

#define GRID_MAX_BODIES 10000000 /* all bodies of a scene, grids expanded */
#define GRID_MAX_SEED INT64_C(9007199254740991) /* 2^53 − 1: exact in a JSON number */

/* A random packing (docs/scene-format.md "Random packings", scene_packing.c). */
typedef enum packing_distribution_t {
  PACKING_CONSTANT,  /* radius: a number */
  PACKING_UNIFORM,   /* min, max */
  PACKING_NORMAL,    /* mean, std, truncated to [min, max] */
  PACKING_LOGNORMAL  /* mean, std of the radius (not of its logarithm), truncated to [min, max] */
} packing_distribution_t;

typedef struct packing_spec_t {
  double region_min[3], region_max[3]; /* the box every grain's bounding sphere lies in [m] */
  packing_distribution_t distribution;
  double min, max, mean, std;          /* bounding radius of a grain [m] */
  bool random_orientation;
  int64_t attempts;                    /* tries per grain before the packing is refused */
} packing_spec_t;

typedef struct grid_spec_t {
  int64_t count[3];  /* lattice points per axis (1 on unused axes) */
  double spacing[3]; /* lattice step per axis [m] */
  double jitter[3];  /* uniform offset amplitude per axis [m]: x + jitter·U[−1, 1) */
  int64_t number;    /* bodies made: the first `number` lattice points, x fastest, then y, z */
  int64_t seed;
  bool is_packing;   /* bodies[i].packing instead of a grid: `packing`, `number` and `seed` apply */
  packing_spec_t packing;
} grid_spec_t;

/* The generator of grids' jitter and of packings: xorshift64*, uniform in [−1, 1). */
double scn_uniform(uint64_t *state);
/* Copies of a body are named "<name>0", "<name>1", …: the longest such name must fit (what:
 * "grid" or "packing", for the message). */
bool scn_check_copy_names(ctx_t *ctx, const char *name, int64_t number, const char *what, const char *body_path);
bool scn_name_copy(ctx_t *ctx, scene_body_t *body, const char *base, int64_t n, const char *body_path);
/* Reads bodies[index].packing into spec (number, seed, packing); scn_read_grid calls it. */
bool scn_read_packing(ctx_t *ctx, const cJSON *b, int index, grid_spec_t *spec);
/* Fills bodies[slot … slot + number − 1] from the template read into bodies[slot]: every copy
 * scaled to its drawn bounding radius, placed without overlap, turned at random. */
bool scn_expand_packing(ctx_t *ctx, const grid_spec_t *spec, int index, int slot);

/* Values and the error context (scene_values.c) */
bool scn_vector_value(ctx_t *ctx, const cJSON *item, const char *path, int n, double *out);
bool scn_read_vector(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, int n, double *out, range_t range, bool required);
void scn_join_key(char *out, const char *parent, const char *key);
bool scn_fail(ctx_t *ctx, const char *path, const char *fmt, ...);
/* Appends a line to the scene's notes (clt_scene_notes). */
void scn_note(ctx_t *ctx, const char *fmt, ...);
/* Replaces the scene's "urdf" entries by the bodies and joints of their files (scene_urdf.c). */
bool scn_expand_urdf(ctx_t *ctx, cJSON *root);
void scn_format_number(double v, char *buf, size_t size);
bool scn_expect_object(ctx_t *ctx, const cJSON *item, const char *path);
const cJSON *scn_get(const cJSON *obj, const char *key);
bool scn_read_angle(ctx_t *ctx, const cJSON *obj, const char *parent, double *angle);
bool scn_read_bool(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, bool *out);
bool scn_read_dvec(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double *out, range_t range, bool required);
void scn_describe(const cJSON *item, char *buf, size_t size);
bool scn_read_number(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double *out, range_t range, bool required);
bool scn_nonzero_vector(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, const double *v, int n);
bool scn_read_enum(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, const char *const *names, int *out, bool required);
bool scn_number_value(ctx_t *ctx, const cJSON *item, const char *path, double *out);
bool scn_read_orientation(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double q[4]);
bool scn_read_int(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, int64_t *out, int64_t min, int64_t max, bool required);
bool scn_read_angular(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, double *out, range_t range);
bool scn_check_keys(ctx_t *ctx, const cJSON *obj, const char *path, const char *const *allowed, const char *what);
bool scn_missing(ctx_t *ctx, const char *parent, const char *key);
bool scn_read_name(ctx_t *ctx, const cJSON *obj, const char *parent, const char **out);
bool scn_read_string(ctx_t *ctx, const cJSON *obj, const char *parent, const char *key, const char **out, bool required);
bool scn_string_value(ctx_t *ctx, const cJSON *item, const char *path, const char **out);
char *scn_dup_string(const char *s);
void scn_join_index(char *out, const char *parent, int index);

/* The declared parameters sorted by name (scn_param_index_build). */
typedef struct param_index_t {
  const cJSON **items;
  int *order; /* declaration position of items[k] */
  int count;
} param_index_t;

/* --set, --param and "$name" (scene_overrides.c) */
bool scn_check_parameter_value(ctx_t *ctx, const cJSON *v, const char *path);
void scn_param_index_free(param_index_t *x);
const char *scn_escaped_nul(const char *text);
bool scn_param_index_build(const cJSON *parameters, param_index_t *x);
bool scn_substitute(ctx_t *ctx, cJSON *item, const char *path, const param_index_t *parameters, const cJSON *skip);
bool scn_apply_set(ctx_t *ctx, cJSON *root, const char *assignment);
const cJSON *scn_param_index_duplicate(const param_index_t *x);
bool scn_apply_param(ctx_t *ctx, cJSON *parameters, const char *assignment);

/* The section readers (scene_sections.c) */
bool scn_read_materials(ctx_t *ctx, const cJSON *mats);
bool scn_read_method(ctx_t *ctx, const cJSON *m, clt_method_t *method);
bool scn_read_joint(ctx_t *ctx, const cJSON *j, int index);
bool scn_read_world_law(ctx_t *ctx, const cJSON *root, clt_world_def_t *wd);
bool scn_read_colony(ctx_t *ctx, const cJSON *c);
bool scn_read_force(ctx_t *ctx, const cJSON *f, int index);
bool scn_read_body(ctx_t *ctx, const cJSON *b, int index, int slot, const grid_spec_t *grid);
bool scn_read_grid(ctx_t *ctx, const cJSON *b, int index, grid_spec_t *spec);
bool scn_index_body_names(ctx_t *ctx);
bool scn_check_unused_fields(ctx_t *ctx, const cJSON *root);
bool scn_read_output(ctx_t *ctx, const cJSON *o);

#endif
