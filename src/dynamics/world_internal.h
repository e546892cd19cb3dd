/* The world's internal layout, shared by src/dynamics, src/constraints and src/steppers.
 *
 * Description vs state (STYLE.md, MuJoCo's model/data split): everything a body, joint or force
 * element was created with is immutable after creation; the mutable state is exactly
 *   time, step_count, states[0..body_count)          (+ whatever later stages register)
 * and that is what clt_world_save_state serializes and clt_world_state_hash hashes.
 *
 * Frames (SPEC.md §0): every body is stored in its principal frame (origin at the centre of mass,
 * axes the principal axes). frame_offset / frame_rotation map the body's *definition* frame (the
 * frame its def, shapes, joint and force anchors were written in) to it:
 *   p_principal = R(frame_rotation)ᵀ (p_def − frame_offset).                                    */
#ifndef CLATTER_DYNAMICS_WORLD_INTERNAL_H
#define CLATTER_DYNAMICS_WORLD_INTERNAL_H

#include <stdarg.h>

#include "clatter/world.h"
#include "dynamics/world_calls.h" /* the error, log, label, handle and growth helpers */

#define CLT_ERROR_SIZE 512
#define CLT_NAME_SIZE 64

typedef struct clt_material_rec_t {
  double friction;
  double restitution;
  double density;
  char name[CLT_NAME_SIZE];
} clt_material_rec_t;

/* What few bodies need, out of line (world->body_extras, by clt_body_rec_t.extra): the map from
 * the definition frame where it is not the identity (see above), a kinematic body's law, and the
 * drag a def gave (the rest: identity frame, all zero, clt_body_extra). */
typedef struct clt_body_extra_t {
  double frame_offset[3];  /* definition frame → principal frame, see above */
  double frame_rotation[4];
  /* Kinematic law reference (principal frame, at t = 0 before the periodic term). A keyframed law's
   * keyframes are world->keyframes[keyframe_first, + motion.keyframe_count) (motion.keyframes is
   * not kept). */
  clt_motion_t motion;
  int keyframe_first;
  double base_position[3];
  double base_angle;
  double base_orientation[4];
  double base_angular_velocity[3];
  /* Overdamped law (SPEC.md §6.1): drag about the principal axes as given in the def (all zero:
   * computed from the shapes and world->viscosity, by the code that owns the overdamped law). */
  double drag_linear[3];
  double drag_angular[3];
} clt_body_extra_t;

/* 96 bytes: a granular pile holds 10⁵ of them, and its whole budget is 2 kB a body
 * (docs/design/granular.md "Memory"). */
typedef struct clt_body_rec_t {
  clt_body_type_t type;
  uint32_t generation;
  const char *name;        /* "" or a copy (at most CLT_NAME_SIZE − 1 chars) in world->names */
  double mass;             /* +inf for static / kinematic */
  double inv_mass;         /* 0 for static / kinematic */
  double inertia[3];       /* principal moments (2D: [0]); +inf for static / kinematic */
  double inv_inertia[3];
  int shape_first;         /* into the world's shapes (clt_world_shape) */
  int shape_count;
  int extra;               /* into world->body_extras (moved frame, kinematic, given drag); −1: none */
  bool removed;            /* clt_world_remove_body: static now, its shapes collide with nothing */
} clt_body_rec_t;
_Static_assert(sizeof(clt_body_rec_t) <= 96, "clt_body_rec_t stays within 96 bytes");

/* A joint as stored: anchors and axes converted to the principal frames (world frame for the
 * ground, body index −1). */
typedef struct clt_joint_rec_t {
  clt_joint_type_t type;
  uint32_t generation;
  char name[CLT_NAME_SIZE];
  int body_a, body_b;
  double anchor_a[3], anchor_b[3];
  double axis_a[3], axis_b[3];      /* unit */
  double perp_b[2][3];              /* unit, ⊥ axis_b, in B's frame: revolute axis alignment */
  double perp_a[2][3];              /* unit, ⊥ axis_a, in A's frame: prismatic lateral offset */
  double distance;                  /* distance joint, resolved (≥ 0) */
  bool collide_connected;           /* the two bodies' shapes collide with each other */
  double angle0;                    /* 2D revolute: θ_B − θ_A at creation (clt_joint_get_state) */
  double relative_orientation[4];   /* r_A⁻¹ ⊗ r_B at creation: fixed / prismatic reference */
  clt_joint_limit_t limit;          /* docs/actuation.md */
  clt_joint_motor_t motor;
  bool removed;                     /* clt_world_remove_joint: no rows, no effect; its index stays */
} clt_joint_rec_t;

/* A load for the next step (clt_body_apply_force / _torque): world-frame force and torque. */
typedef struct clt_load_t {
  int body;
  double force[3], torque[3];
} clt_load_t;

typedef struct clt_force_rec_t {
  clt_force_type_t type;
  uint32_t generation;
  char name[CLT_NAME_SIZE];
  int body_a, body_b;               /* −1: ground */
  double force[3], torque[3], force_amplitude[3], torque_amplitude[3];
  double frequency, phase;
  double anchor_a[3], anchor_b[3];  /* principal frames (world for the ground) */
  double stiffness, damping, rest_length;
  clt_force_treatment_t treatment;
  /* rotational spring–damper (SPEC.md §4): unit axes and reference vectors ⊥ the axis in the
   * principal frames (world for the ground; 3D), the rest angle and, in 2D, θ_A − θ_B at creation */
  double axis_a[3], axis_b[3], perp_a[3], perp_b[3];
  double rest_angle, angle_offset;
} clt_force_rec_t;

struct clt_world_t {
  /* description */
  int dimension;
  double time_step;
  double gravity[3];
  clt_method_t method;
  clt_law_t law;         /* SPEC.md §6.1 */
  double viscosity;      /* overdamped default drag [Pa s] */
  bool planar;           /* 3D motion confined to z = const */
  clt_log_fn log;
  void *log_user;
  clt_material_rec_t default_material;
  clt_material_rec_t *materials;
  int material_count, material_capacity;
  clt_body_rec_t *bodies;
  int body_capacity;
  clt_body_extra_t *body_extras;
  int body_extra_count, body_extra_capacity;
  clt_keyframe_t *keyframes; /* of the keyframed kinematic bodies (clt_body_extra_t.keyframe_first) */
  int keyframe_count, keyframe_capacity;
  struct clt_name_chunk_t *names; /* body names (clt_body_rec_t.name), in chunks that never move */
  /* Shapes (principal frame, SPEC.md §0), interned: shape s (body b's are [shape_first,
   * shape_first + shape_count)) is shape_descs[shape_desc[s]].def, one description shared by every
   * shape that is bit-for-bit the same (a pile of 10⁵ equal spheres stores one). Read through
   * clt_world_shape; descriptions are never written in place (copy-on-write: clt_world_set_shape).
   * src/dynamics/shape_store.c. */
  int32_t *shape_desc;
  int shape_count, shape_capacity;
  struct clt_shape_desc_t *shape_descs;
  int shape_desc_count;    /* slots used (live or on the free list) */
  int shape_desc_capacity;
  int shape_desc_free;     /* first free slot (refs 0), chained through next; −1: none */
  bool filters_used;       /* a description with a collision filter other than the default has been
                              stored: only then does the collide stage read the filters of its pairs */
  int32_t *shape_buckets;  /* hash → first slot, chained through next; −1: empty */
  int shape_bucket_count;  /* power of two (0 before the first shape) */
  clt_joint_rec_t *joints;
  int joint_count, joint_capacity;
  int joints_removed; /* of joint_count (clt_world_remove_joint) */
  int bodies_removed; /* of body_count (clt_world_remove_body) */
  clt_force_rec_t *forces;
  int force_count, force_capacity;

  /* mutable state */
  double time;
  int64_t step_count;
  int body_count;
  clt_body_state_t *states;

  /* per-step workspace, sized when bodies are added (no allocation inside clt_world_step) */
  clt_body_state_t *backup;         /* state before the step, restored on CLT_ERR_NUMERICAL; with a
                                       scheme whose positions move only in stage "integrate"
                                       (late_backup: stepper.h) written by stage "backup" before it */
  /* A late_backup scheme's step (stepper.h; backup_late) keeps the state before it in two parts:
   * the velocities and angular velocities when it starts (backup_velocity), the poses (position,
   * angle, orientation: clt_world_backup_pose) in stage "backup", before the positions move;
   * backup is not written. 48 + 64 bytes a body instead of 112, of which the solves carry 48. */
  double (*backup_velocity)[6];
  double (*backup_pose)[8];
  bool backup_late;                 /* the last step (or this one) kept its state so */
  bool backup_written;              /* the poses of the step's start are kept (or no step is running) */
  double (*force_acc)[3];           /* world-frame force on each body's centre of mass */
  double (*torque_acc)[3];          /* 3D: body-frame torque; 2D: [0] */
  bool acc_clear;                   /* force_acc and torque_acc are zero, their pages given back
                                       (clt_forces_accumulate of a world without force records) */
  struct clt_load_t *loads;         /* clt_body_apply_force / _torque since the last step that
                                       succeeded, in call order (a list: a controller loads a few
                                       bodies of what may be a large world) */
  int load_count, load_capacity;

  /* The stepper's workspace and its memory between steps (src/steppers/rows.h): rows, contacts,
   * the step problem, and the contact memory (restitution, warm start) that is part of the state
   * and therefore of checkpoints (state.c). Created on the first step. */
  struct clt_step_work_t *step_work;

  /* Divergence monitor (src/steppers/stage_diverge.c; docs/stepping.md "Divergence"): the
   * reference the energy test measures from, taken at the first step after the state was set,
   * loaded or the world changed (clt_world_state_changed). Not part of the state: it decides only
   * whether a step fails, never what a step computes. */
  struct {
    bool valid;
    int body_count;     /* bodies when the reference was taken */
    int64_t step;       /* step of the reference state */
    bool energy_test;   /* false with a moving kinematic body (its work is not bounded) */
    double energy;      /* E_0 = kinetic + potential at the reference */
    double scale;       /* E_s = KE_0 + Σ ½ m_i (r_i / h)² */
    double work;        /* bound on the applied forces' work since the reference */
    double min_size;    /* smallest size of a dynamic body */
    double *size;       /* per body: r_i, +inf for static and kinematic bodies */
    int size_capacity;
  } divergence;

  clt_diagnostics_t diagnostics;
  bool diagnostics_stale; /* state fields of diagnostics out of date (clt_world_state_changed) */
  bool diagnostics_stepped; /* the state is one a step produced (work_bytes is reported for it) */
  char error[CLT_ERROR_SIZE];
};

/* An interned shape description (src/dynamics/shape_store.c): def in canonical form (padding
 * zero), the hash of its bytes, the number of shapes using it and the hash / free-list chain. */
typedef struct clt_shape_desc_t {
  clt_shape_def_t def;
  uint64_t hash;
  int32_t refs;
  int32_t next;
} clt_shape_desc_t;

/* Shape s of the world (0 ≤ s < shape_count), as stored. The pointer is valid until the next
 * shape is added or set. */
/* The pose (position, angle, orientation: the first 8 doubles of clt_body_state_t) of body i at the
 * start of the last step, or of the step running once its poses are kept (backup_written). */
static inline const double *clt_world_backup_pose(const clt_world_t *world, int i) {
  return world->backup_late ? world->backup_pose[i] : (const double *)&world->backup[i];
}

static inline const clt_shape_def_t *clt_world_shape(const clt_world_t *world, int s) {
  return &world->shape_descs[world->shape_desc[s]].def;
}
/* Appends a shape (shape_count + 1; capacity from clt_world_reserve_shapes or doubling). */
bool clt_world_push_shape(clt_world_t *world, const clt_shape_def_t *def);
/* Removes the last shape (undoing a push). */
void clt_world_pop_shape(clt_world_t *world);
/* Replaces shape s by def: the shared description is left to the other shapes using it. */
bool clt_world_set_shape(clt_world_t *world, int s, const clt_shape_def_t *def);
/* Room for `edits` more distinct descriptions: the next `edits` clt_world_set_shape calls cannot
 * fail (a multi-shape edit that must not stop half-way). */
bool clt_world_reserve_shape_edits(clt_world_t *world, int edits);
/* Room for `shapes` shapes in total (exact, no slack). */
bool clt_world_reserve_shapes(clt_world_t *world, int shapes);
/* Frees the shape storage (clt_world_destroy). */
void clt_world_free_shapes(clt_world_t *world);
/* Bytes held by the shape storage (per-shape indices, descriptions, hash buckets) at capacity. */
size_t clt_world_shape_bytes(const clt_world_t *world);

/* Body i's out-of-line record, or the default one (identity frame map, no motion, drag from the
 * shapes). */
static inline const clt_body_extra_t *clt_body_extra(const clt_world_t *world, int i) {
  static const clt_body_extra_t none = {.frame_rotation = {1.0, 0.0, 0.0, 0.0}};
  int e = world->bodies[i].extra;
  return e >= 0 ? &world->body_extras[e] : &none;
}
/* Body i's out-of-line record for writing, made (a copy of the default) if it has none; NULL when
 * out of memory (never after clt_grow of body_extras to body_extra_count + 1). body.c */
clt_body_extra_t *clt_body_extra_mut(clt_world_t *world, int i);

/* Frees the body names (body.c). */
void clt_world_free_names(clt_world_t *world);

/* The parts of clt_world_create and clt_world_destroy (steppers/method.c) that are the world's own
 * storage: the checks of a definition outside its method block (false with a "world: ..." reason
 * in msg), a world allocated and set from a checked definition (NULL when out of memory), and
 * freeing everything it holds but the step workspace and the world itself. */
bool clt_world_check_def(const clt_world_def_t *def, char *msg, size_t n);
clt_world_t *clt_world_new(const clt_world_def_t *def);
void clt_world_free_storage(clt_world_t *world);


/* Converts a point / direction given in a body's definition frame to its principal frame. */
void clt_body_point_from_def(const clt_world_t *world, int body, const double in[3], double out[3]);
void clt_body_vector_from_def(const clt_world_t *world, int body, const double in[3], double out[3]);

/* World-frame position and velocity of a point fixed in a body (principal-frame coordinates);
 * body −1 is the ground (the point is in the world frame, velocity 0). Either output may be NULL. */
void clt_body_world_point(const clt_world_t *world, int body, const double local[3], double p[3],
                          double v[3]);

/* Kinematic law (SPEC.md §0 / clt_motion_t): the state of kinematic body `body` at time t. */
void clt_kinematic_state(const clt_world_t *world, int body, double t, clt_body_state_t *out);

/* Generalized force k at (t, q, v) excluding gravity and gyroscopic terms: applied forces and
 * explicit springs, into force_acc / torque_acc (which it zeroes first). */
void clt_forces_accumulate(clt_world_t *world, double t);
/* After a step that succeeded: the loads of clt_body_apply_force / _torque are spent. */
void clt_forces_spend_loads(clt_world_t *world);
/* Drag tensors of a body for the overdamped law (SPEC.md §6.1; src/dynamics/drag.c, docs/stepping.md
 * "ReLCP and the overdamped law"), principal frame: translational zt [N s/m], rotational zr
 * [N m s]; the default from the shapes and world->viscosity, or the body's drag_linear /
 * drag_angular where given (not all zero). False when the body has nothing to derive a drag from
 * or a given drag has a component <= 0. */
bool clt_body_drag(const clt_world_t *world, int body, double zt[3][3], double zr[3][3]);
/* Potential energy of the springs (explicit and implicit), Σ ½ γ φ². */
double clt_forces_potential_energy(const clt_world_t *world);
/* φ and ∇φ of a spring–damper or rotational spring–damper element at the current state
 * (src/dynamics/forces.c): grad = (linear_a, angular_a, linear_b, angular_b), the two-body row
 * layout of src/constraints/joint.h (ω in the body frame; 2D: [0], [1] and the angle's [0]).
 * Returns false (grad zero) where the element has no direction (coincident anchors). */
bool clt_force_element_gradient(const clt_world_t *world, const clt_force_rec_t *f, double *phi, double grad[12]);
/* A spring–damper element (linear or rotational). */
bool clt_force_is_element(const clt_force_rec_t *f);

/* Marks world->diagnostics' state fields out of date after an edit (a body, joint or force added,
 * a state set): clt_world_get_diagnostics refreshes them on demand, so building a scene of N
 * bodies does not run the all-pairs penetration query N times. */
void clt_world_state_changed(clt_world_t *world);

#endif
