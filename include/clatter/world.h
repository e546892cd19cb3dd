/* clatter — worlds, bodies, shapes, materials, joints, force elements, stepping, diagnostics.
 *
 * Conventions (SPEC.md §0):
 *  - A world is 2D or 3D. 2D bodies use (x, y, θ); their arrays below use components [0], [1]
 *    and the scalar angle / angular_velocity[0]; unused components must be 0.
 *  - 3D: position in the world frame, orientation a unit quaternion (w, x, y, z) body→world,
 *    linear velocity in the world frame, angular velocity in the BODY frame.
 *  - A body's frame is its centre of mass and principal axes. When a body is built from shapes
 *    placed off-centre or with a non-diagonal inertia, clt_world_add_body moves the body frame to
 *    the centre of mass and principal axes once (the shapes' local poses are re-expressed), and
 *    clt_body_get_state reports that frame.
 *
 * Creation goes through definition structs obtained from clt_default_*_def() so new fields never
 * break callers. Every function that can fail returns clt_status_t; the message is available from
 * clt_world_error().
 *
 * Misuse (docs/api-limits.md):
 *  - A NULL world never crashes. A function that returns clt_status_t returns
 *    CLT_ERR_INVALID_ARGUMENT (there is no world to hold a message; clt_world_error(NULL) returns the
 *    fixed text "no world (NULL)"); a getter returns the neutral value given next to it (0 counts,
 *    NaN for times and energies, NULL, the null handle clt_world_ground()). NULL def, state and out
 *    pointers are CLT_ERR_INVALID_ARGUMENT with the reason in clt_world_error, except the out
 *    pointers documented as optional (ids, out_index, momentum's arrays).
 *  - Magnitudes are checked where they enter (world, body, shape, joint, force and method
 *    definitions, clt_body_set_state, clt_body_set_capsule_length) against the limits below: NaN,
 *    ±inf and values past a limit are CLT_ERR_INVALID_ARGUMENT with a message naming the field and
 *    the limit. The step itself does not apply them (a state that grows past them is the
 *    divergence checks' business, method.divergence_*). */
#ifndef CLATTER_WORLD_H
#define CLATTER_WORLD_H

#include "clatter/types.h"

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef struct clt_world_t clt_world_t;

/* ---------------------------------------------------------------------------------------------
 * Limits on magnitudes (SI units; docs/api-limits.md). They lie far outside any use from
 * micrometre cells to 100 m structures, and they keep every product a step forms finite in double
 * precision (½ m v², ½ J ω², m g z, the energy scale Σ ½ m (r/h)² of the divergence test, the
 * entries 1/m + r²/J of the contact matrices): a value past one is a unit or sign mistake, or an
 * attack, not a scene. Bounds are inclusive. */

/* |position|, shape sizes and offsets, anchors, lengths of springs and distance joints, kinematic
 * amplitudes, method lengths (active_set_eps, post_tolerance, overlap_tolerance) [m]: the Earth–Moon
 * distance fits, and at 1e9 m the ulp of a double is 1.2e-7 m, a tenth of a bacterium. */
#define CLT_MAX_LENGTH 1e9
/* |velocity| components, kinematic motion.velocity, method.velocity_tolerance [m/s]: 3 times the
 * speed of light. */
#define CLT_MAX_SPEED 1e9
/* |angular velocity| components [rad/s]: centrifuges and flagellar motors turn at 1e3–1e4 rad/s;
 * 1e9 keeps ½ J ω² and the gyroscopic term finite for any allowed inertia. */
#define CLT_MAX_ANGULAR_SPEED 1e9
/* Mass of a dynamic body, given or computed from its shapes [kg] (2D: per unit thickness): a
 * 1 µm³ cell is 1e-15 kg, a 100 m structure 1e9 kg. The lower bound keeps 1/m finite and small
 * enough to be multiplied by any allowed force. */
#define CLT_MIN_MASS 1e-30
#define CLT_MAX_MASS 1e30
/* Principal moments of inertia of a dynamic body [kg m²]: m r² from a 1e-30 kg body of 1e-10 m to
 * a 1e30 kg body of 1e10 m. */
#define CLT_MIN_INERTIA 1e-50
#define CLT_MAX_INERTIA 1e50
/* time_step h [s]: 1 ps to about 17 minutes. The schemes divide by h (Υ = γΘ/h): a subnormal h
 * such as 1e-320 makes 1/h infinite, and no contact model resolves anything below a picosecond. */
#define CLT_MIN_TIME_STEP 1e-12
#define CLT_MAX_TIME_STEP 1e3
/* |gravity| components [m/s²]: the surface of a neutron star is about 1e12. */
#define CLT_MAX_ACCELERATION 1e12
/* |force|, |torque| and their amplitudes of applied forces [N, N m]. */
#define CLT_MAX_FORCE 1e30
/* Coefficients: stiffness [N/m, N m/rad] and damping [N s/m, N m s/rad] of spring–dampers (stiff
 * limits up to 1e14 are tested), drag coefficients [N s/m, N m s], viscosity [Pa s]. */
#define CLT_MAX_COEFFICIENT 1e30
/* Friction coefficient μ of a material: past about 10 every contact sticks already; 1e6 keeps the
 * cone's generators n + μ d_k and μ c_n finite. */
#define CLT_MAX_FRICTION 1e6

/* ---------------------------------------------------------------------------------------------
 * Method (SPEC.md §1–§3): scheme, solver, tolerances. */

typedef enum clt_scheme_t {
  CLT_SCHEME_NONE,          /* unstabilized velocity-level step */
  CLT_SCHEME_ANITESCU_HART, /* Υ = γΘ/h, Δ = γΦ/h (default) */
  CLT_SCHEME_BAUMGARTE,     /* Υ = αΘ, Δ = αΦ */
  CLT_SCHEME_POST,          /* Cline–Pai post-stabilization */
  CLT_SCHEME_RELAXED        /* convex relaxation, one QP per step */
} clt_scheme_t;

typedef enum clt_solver_kind_t {
  CLT_SOLVER_LEMKE,
  CLT_SOLVER_BGS,
  CLT_SOLVER_APGD,
  CLT_SOLVER_BBPGD,
  CLT_SOLVER_NEWTON, /* ReLCP passes only: sparse-direct interior-point Newton (steppers/relcp_newton.c) */
  CLT_SOLVER_MPRGP   /* symmetric PSD LCPs: CG on faces with proportioning and expansion (solvers/mprgp.c) */
} clt_solver_kind_t;

/* "lemke", "bgs", "apgd", "bbpgd", "newton", "mprgp" ("unknown" for another value), as
 * method.solver spells them, and the inverse (false for an unknown name). */
const char *clt_solver_kind_name(clt_solver_kind_t kind);
bool clt_solver_kind_from_name(const char *name, clt_solver_kind_t *out);

typedef enum clt_gyroscopic_t {
  CLT_GYRO_EXPLICIT,      /* −ω×Jω in k̂ (default) */
  CLT_GYRO_SEMI_IMPLICIT, /* h K_c added to M̂, K_c = −[Jω]ₓ (004 §2.3.5) */
  CLT_GYRO_OFF
} clt_gyroscopic_t;

typedef enum clt_on_unconverged_t {
  CLT_UNCONVERGED_RECORD, /* record in diagnostics (default) */
  CLT_UNCONVERGED_WARN,   /* record and log a warning */
  CLT_UNCONVERGED_ABORT   /* clt_world_step returns CLT_ERR_SOLVER */
} clt_on_unconverged_t;

/* Friction cone (SPEC.md §1, §2.3; docs/stepping.md "Default method" and "The relaxed scheme"). */
typedef enum clt_friction_cone_t {
  CLT_CONE_POLYHEDRAL = 0, /* m_C generators n + μ d_k, one multiplier each */
  CLT_CONE_CIRCULAR,       /* the exact Coulomb cone: one second-order-cone block per contact */
  CLT_CONE_AUTO            /* default: circular where scheme anitescu-hart's cone solve applies
                            * (clt_method_effective_cone), else polyhedral */
} clt_friction_cone_t;

/* The method's enums by the names the scene format gives them (docs/scene-format.md "method"):
 * clt_X_name returns NULL for a value out of range; clt_X_from_name returns false (and leaves
 * *out) for a name that is not one of them. Names: schemes "none", "anitescu-hart", "baumgarte",
 * "post", "relaxed"; gyroscopic "explicit", "semi-implicit", "off"; on_unconverged "record",
 * "warn", "abort"; friction cones "polyhedral", "circular", "auto" (solver kinds: solvers.h). */
const char *clt_scheme_name(clt_scheme_t scheme);
bool clt_scheme_from_name(const char *name, clt_scheme_t *out);
const char *clt_gyroscopic_name(clt_gyroscopic_t gyroscopic);
bool clt_gyroscopic_from_name(const char *name, clt_gyroscopic_t *out);
const char *clt_on_unconverged_name(clt_on_unconverged_t on_unconverged);
bool clt_on_unconverged_from_name(const char *name, clt_on_unconverged_t *out);
const char *clt_friction_cone_name(clt_friction_cone_t cone);
bool clt_friction_cone_from_name(const char *name, clt_friction_cone_t *out);

/* The cone a world's steps use: method.friction_cone, or for CLT_CONE_AUTO the circular cone
 * (Coulomb's law solved by APGD, docs/stepping.md "Default method") with scheme anitescu-hart and
 * solver lemke (the default), apgd or bbpgd, unless the world has implicit force elements, joint
 * limits or velocity or position motors (docs/actuation.md), the semi-implicit gyroscopic term or
 * method.spring_projection > 0, which need the polyhedral rows; polyhedral otherwise. */
clt_friction_cone_t clt_method_effective_cone(const clt_world_t *world); /* NULL: CLT_CONE_AUTO */

/* How contacts enter the step (SPEC.md §6). The ReLCP family is frictionless and uses the
 * shared-normal constraints of SPEC.md §6.2 under either law of motion (clt_law_t). */
typedef enum clt_contact_model_t {
  CLT_CONTACT_MODEL_DEFAULT = 0, /* the scheme's own contact rows with friction (SPEC.md §1) */
  CLT_CONTACT_MODEL_RELCP,       /* ReLCP recursion (SPEC.md §6.2) */
  CLT_CONTACT_MODEL_SNSD,        /* ReLCP iteration 0 only: one LCP-SNSD per step (§6.3) */
  CLT_CONTACT_MODEL_MULTISPHERE  /* bodies replaced by multisphere_count spheres (§6.3) */
} clt_contact_model_t;

typedef struct clt_method_t {
  clt_scheme_t scheme;
  double gamma;              /* anitescu-hart / relaxed γ ∈ (0, 1], default 1 */
  double alpha;              /* baumgarte α [1/s], default 0 */
  int post_repeats;          /* post: extra projections while I(q) > post_tolerance, default 0 */
  double post_tolerance;     /* [m], default 1e-9 */
  clt_solver_kind_t solver;  /* default Lemke */
  double tolerance;          /* solver residual tolerance (SPEC §2 "Residual"), default 1e-10 */
  int max_iterations;        /* iterative solvers (pivots for Lemke), default 10000 */
  double relaxation;         /* BGS over-relaxation ω, default 1 */
  bool warm_start;           /* default true */
  double active_set_eps;     /* ε̂ [m], default 1e-3 */
  int friction_directions;   /* m_C in 3D (even, ≥ 4), default 8; always 2 in 2D */
  clt_gyroscopic_t gyroscopic;
  clt_on_unconverged_t on_unconverged;
  clt_friction_cone_t friction_cone; /* relaxed scheme only; default polyhedral (0) */
  /* SPEC.md §6 */
  clt_contact_model_t contact_model; /* default CLT_CONTACT_MODEL_DEFAULT (0) */
  int multisphere_count;     /* N of multisphere (odd, ≥ 1), default 3 */
  double overlap_tolerance;  /* ε_tol of ReLCP [m]: a true overlap beyond it adds constraints, default 1e-4 */
  int relcp_max_iterations;  /* ReLCP recursion cap per step; reaching it rejects the step, default 50 */
  /* SPEC.md §4 "Nonlinear projection" (004 (46)): after the step, up to this many Gauss–Newton
   * projections of q onto the joints and contacts with the implicit springs' lengths held at their
   * linearized post-step values, while the infeasibility exceeds post_tolerance. 0 = off (default). */
  int spring_projection;
  /* Relaxed scheme, solver bgs: stop when the residual is ≤ tolerance itself instead of ≤ tolerance
   * × (1 + ‖b‖∞) (SPEC.md §2 "Residual"; the residual reported stays the scaled one). The scaled test
   * is loosest where ‖b‖∞ is large, i.e. in a step with fast impacts, where the error becomes
   * penetration, and tightest at rest; the absolute one is the same in both. Default false. */
  bool absolute_tolerance;
  /* Relaxed scheme, solver bgs: a velocity bound [m/s] on the unscaled residual, checked as well
   * as the tolerance's test: the solve stops when the residual is ≤ min(tolerance × (1 + ‖b‖∞),
   * velocity_tolerance) (with absolute_tolerance: ≤ min(tolerance, velocity_tolerance)). It caps
   * the scaled test where ‖b‖∞ is large (fast impacts, where a velocity error e penetrates about
   * h e) and leaves it as it is at rest. 0 = no bound (default). */
  double velocity_tolerance;
  /* Divergence bounds (docs/stepping.md "Divergence"): after every step the state is checked, and a
   * step past a bound fails with CLT_ERR_DIVERGED naming the step, the quantity, the body and the
   * bound. A non-finite state always fails so.
   *  - divergence_energy_factor: kinetic + gravity energy may exceed kinetic + potential (springs
   *    included) at the reference state by at most this factor times the energy scale E_s = KE_0 +
   *    Σ ½ m_i (r_i / h)² (each body moving its own bounding radius r_i in one step), plus a bound
   *    on the work of the applied forces. Not checked in a world with a moving kinematic body.
   *    Default 100; 0 = off.
   *  - divergence_infeasibility_fraction: a joint error or a penetration may reach at most this
   *    fraction of the size of the smaller body involved (its bounding radius about the centre of
   *    mass; at least the distance to a joint or force anchor on it), in the schemes that correct
   *    positions (not none, nor baumgarte with α = 0). Default 0.5; 0 = off. */
  double divergence_energy_factor;
  double divergence_infeasibility_fraction;
} clt_method_t;

clt_method_t clt_default_method(void);

/* ---------------------------------------------------------------------------------------------
 * World */

/* Law of motion (SPEC.md §6.1). */
typedef enum clt_law_t {
  CLT_LAW_INERTIAL = 0, /* v⁺ = v + M⁻¹(h f + D c), q⁺ = q ⊕ h v⁺ (default) */
  CLT_LAW_OVERDAMPED    /* U = 𝓜 (F + D λ), q⁺ = q ⊕ h U: local drag mobility per body */
} clt_law_t;

const char *clt_law_name(clt_law_t law); /* "inertial", "overdamped"; NULL out of range */
bool clt_law_from_name(const char *name, clt_law_t *out);

typedef struct clt_world_def_t {
  int dimension;       /* 2 or 3 */
  double time_step;    /* h [s] > 0 */
  double gravity[3];   /* [m/s²]; 2D uses [0], [1] */
  clt_method_t method;
  clt_law_t law;       /* default inertial */
  double viscosity;    /* overdamped law: fluid viscosity [Pa s] of the default drag, default 1 */
  bool planar;         /* 3D only: motion confined to the plane z = const (v_z = 0, ω_x = ω_y = 0) */
  clt_log_fn log;      /* optional */
  void *log_user;
} clt_world_def_t;

clt_world_def_t clt_default_world_def(void); /* 3D, h = 1e-3, gravity (0, 0, −9.81) */

/* Creates a world. On failure *out is NULL; if message is non-NULL, a reason is copied into it
 * (message_size bytes at most). CLT_ERR_INVALID_ARGUMENT for a NULL def or out and for a def
 * field out of range (the limits above: time_step in [CLT_MIN_TIME_STEP, CLT_MAX_TIME_STEP],
 * |gravity| ≤ CLT_MAX_ACCELERATION, viscosity ≤ CLT_MAX_COEFFICIENT, the method's lengths ≤
 * CLT_MAX_LENGTH, velocity_tolerance ≤ CLT_MAX_SPEED). */
clt_status_t clt_world_create(const clt_world_def_t *def, clt_world_t **out, char *message,
                              size_t message_size);
void clt_world_destroy(clt_world_t *world); /* NULL: nothing */

/* The message of the last failed call on this world ("" if none). Valid until the next call.
 * NULL world: the fixed string "no world (NULL)". */
const char *clt_world_error(const clt_world_t *world);

int clt_world_dimension(const clt_world_t *world);             /* NULL: 0 */
bool clt_world_planar(const clt_world_t *world);               /* world_def.planar; NULL: false */
double clt_world_time(const clt_world_t *world);               /* NULL: NaN */
int64_t clt_world_step_count(const clt_world_t *world);        /* NULL: 0 */
double clt_world_time_step(const clt_world_t *world);          /* NULL: NaN */
void clt_world_get_gravity(const clt_world_t *world, double out[3]); /* world_def.gravity; NULL: zeros */
const clt_method_t *clt_world_method(const clt_world_t *world); /* NULL: NULL */

/* ---------------------------------------------------------------------------------------------
 * Materials: per-shape friction, restitution and density. Contact pairs combine μ and e_N by the
 * geometric mean (documented in docs/scene-format.md). The ReLCP contact models (SPEC.md §6) are
 * frictionless and plastic: they do not read μ or e_N. The library does not refuse them there,
 * since the default μ is 0.5 and a given μ cannot be told from it; the scene reader refuses a
 * given μ > 0 or e_N > 0 (docs/scene-format.md "Fields the method does not use"). */

typedef struct clt_material_def_t {
  double friction;    /* μ ≥ 0, default 0.5 */
  double restitution; /* e_N ∈ [0, 1], default 0 */
  double density;     /* [kg/m³] in 3D, [kg/m²] in 2D, default 1000 */
  const char *name;   /* optional, copied */
} clt_material_def_t;

clt_material_def_t clt_default_material_def(void);
clt_status_t clt_world_add_material(clt_world_t *world, const clt_material_def_t *def, int *out_index);
int clt_world_material_count(const clt_world_t *world); /* materials added (indices 0 … count − 1); NULL: 0 */

/* ---------------------------------------------------------------------------------------------
 * Shapes (SPEC.md §5). Local pose relative to the body reference frame given in clt_body_def_t. */

typedef enum clt_shape_type_t {
  /* 2D */
  CLT_SHAPE_DISK,       /* radius */
  CLT_SHAPE_HALFPLANE,  /* point, normal (local frame); static/kinematic bodies only */
  CLT_SHAPE_SEGMENT,    /* a, b endpoints, radius ≥ 0 (rounded) */
  CLT_SHAPE_ELLIPSE,    /* semi_axes[0..1] */
  CLT_SHAPE_POLYGON,    /* vertices (counter-clockwise, convex), vertex_count ≥ 3 */
  /* 3D */
  CLT_SHAPE_SPHERE,     /* radius */
  CLT_SHAPE_HALFSPACE,  /* point, normal; static/kinematic bodies only */
  CLT_SHAPE_BOX,        /* half_extents[0..2] */
  CLT_SHAPE_CAPSULE,    /* radius, length = distance between the two cap centres, along local z */
  CLT_SHAPE_ELLIPSOID,  /* semi_axes[0..2] */
  CLT_SHAPE_TORUS,      /* major_radius (centreline), minor_radius (tube), axis = local z */
  CLT_SHAPE_CYLINDER,   /* radius, length (flat ends at ±length/2 along local z) */
  CLT_SHAPE_POLYHEDRON, /* convex: a clt_convex_t (vertices in the shape's local frame) */
  CLT_SHAPE_MESH,       /* a triangle mesh (clt_mesh_t); static or kinematic bodies only */
  CLT_SHAPE_TYPE_COUNT
} clt_shape_type_t;

#define CLT_MAX_POLYGON_VERTICES 32

/* A convex polyhedron's geometry (docs/shapes.md): vertices, faces (convex polygons, counter-
 * clockwise about their outward normal, coplanar faces merged), edges and its exact solid mass
 * properties. Immutable once made and reference counted: shape defs point to one (many bodies can
 * share it); clt_world_add_body takes a reference of its own, so the maker may release it at once. */
typedef struct clt_convex_t clt_convex_t;

#define CLT_MAX_CONVEX_VERTICES 4096

/* The convex hull of `count` points (qhull, reentrant libqhull_r). Points strictly inside the hull
 * and points on a face or an edge that are not corners are dropped; the kept vertices are in the
 * order of the input. CLT_ERR_INVALID_ARGUMENT, with a reason in message (naming the point), for a
 * non-finite point, fewer than 4 points, a flat or degenerate set (all on a plane to 1e-12 of its
 * size) or more than CLT_MAX_CONVEX_VERTICES hull vertices; *out is NULL then. */
clt_status_t clt_convex_from_points(const double (*points)[3], int count, clt_convex_t **out, char *message,
                                    size_t message_size);
/* A polyhedron given by vertices and faces: face f is face_vertices[face_start[f] … face_start[f+1]−1]
 * (face_start has face_count + 1 entries), counter-clockwise seen from outside. It must be a closed
 * convex polyhedron: every face planar (to 1e-9 of the size) and convex, every edge shared by two
 * faces running opposite ways, every vertex used, no vertex outside a face's plane; otherwise
 * CLT_ERR_INVALID_ARGUMENT with the face or vertex named in message. Coplanar neighbouring faces
 * (a square given as two triangles) are merged. */
clt_status_t clt_convex_from_faces(const double (*vertices)[3], int vertex_count, const int *face_vertices,
                                   const int *face_start, int face_count, clt_convex_t **out, char *message,
                                   size_t message_size);
/* A triangle mesh for environments (terrain, bowls, hoppers, drums; docs/shapes.md "Meshes"): one-sided
 * triangles (the solid side behind each triangle's normal, counter-clockwise vertices seen from the
 * front), with the adjacency that keeps contacts from snagging on the edges between triangles and a
 * bounding volume hierarchy. Immutable and reference counted like clt_convex_t. */
typedef struct clt_mesh_t clt_mesh_t;

#define CLT_MAX_MESH_TRIANGLES 50000000

/* From vertices and triangles (vertex indices). CLT_ERR_INVALID_ARGUMENT with the triangle or vertex
 * named in message for a non-finite vertex, an index out of range, a triangle without area (1e-12 of
 * the size squared), an edge shared by more than two triangles (non-manifold) or two neighbours that
 * run their shared edge the same way (inconsistent winding), or more than CLT_MAX_MESH_TRIANGLES. */
clt_status_t clt_mesh_create(const double (*vertices)[3], int vertex_count, const int (*triangles)[3],
                             int triangle_count, clt_mesh_t **out, char *message, size_t message_size);
void clt_mesh_retain(clt_mesh_t *mesh);  /* NULL: nothing */
void clt_mesh_release(clt_mesh_t *mesh); /* NULL: nothing */
int clt_mesh_vertex_count(const clt_mesh_t *mesh);
int clt_mesh_triangle_count(const clt_mesh_t *mesh);
const double (*clt_mesh_vertices(const clt_mesh_t *mesh))[3];
const int (*clt_mesh_triangles(const clt_mesh_t *mesh))[3];

void clt_convex_retain(clt_convex_t *convex);  /* NULL: nothing */
void clt_convex_release(clt_convex_t *convex); /* frees it with the last reference; NULL: nothing */
int clt_convex_vertex_count(const clt_convex_t *convex);
const double (*clt_convex_vertices(const clt_convex_t *convex))[3];
int clt_convex_face_count(const clt_convex_t *convex);
/* Face f's vertex indices (counter-clockwise about its outward normal); returns how many. */
int clt_convex_face(const clt_convex_t *convex, int f, const int **indices);
/* Face f's outward unit normal n and offset d (the face's plane is n·x = d). */
void clt_convex_face_plane(const clt_convex_t *convex, int f, double normal[3], double *offset);
int clt_convex_edge_count(const clt_convex_t *convex);
/* Volume [m³], centroid and inertia tensor about the centroid per unit density (multiply by the
 * density for kg m²), exact for the solid polyhedron. */
double clt_convex_volume(const clt_convex_t *convex, double centroid[3], double inertia[3][3]);

/* Which shapes may touch (docs/scene-format.md "Collision filtering"; Box2D's rule): two shapes of
 * the same non-zero group always collide when the group is positive and never when it is negative;
 * otherwise they collide when each one's category has a bit in the other's mask. Default: category
 * 1, mask all bits, group 0 (everything collides). The other exclusions stay: shapes of one body,
 * two static or kinematic bodies, and two bodies joined by a joint without collide_connected. */
typedef struct clt_collision_filter_t {
  uint32_t category;
  uint32_t mask;
  int32_t group;
} clt_collision_filter_t;

static inline bool clt_collision_filter_pass(const clt_collision_filter_t *a, const clt_collision_filter_t *b) {
  if (a->group != 0 && a->group == b->group) return a->group > 0;
  return (a->category & b->mask) != 0 && (b->category & a->mask) != 0;
}

typedef struct clt_shape_def_t {
  clt_shape_type_t type;
  double radius;
  double length;
  double half_extents[3];
  double semi_axes[3];
  double major_radius;
  double minor_radius;
  double point[3];
  double normal[3];
  double a[3];
  double b[3];
  double vertices[CLT_MAX_POLYGON_VERTICES][2];
  int vertex_count;
  const clt_convex_t *convex;  /* CLT_SHAPE_POLYHEDRON */
  const clt_mesh_t *mesh;      /* CLT_SHAPE_MESH */
  double local_position[3];
  double local_angle;          /* 2D */
  double local_orientation[4]; /* 3D quaternion (w, x, y, z), default identity */
  int material;                /* index from clt_world_add_material; −1 = the world's default */
  clt_collision_filter_t filter; /* default {1, 0xFFFFFFFF, 0}: collides with everything */
} clt_shape_def_t;

/* A unit shape of the type with every default set; start every def from it (a zero-filled def has
 * category 0 and mask 0, and collides with nothing). */
clt_shape_def_t clt_default_shape_def(clt_shape_type_t type);

/* Short stable name ("disk", "sphere", ...) and its inverse (returns CLT_SHAPE_TYPE_COUNT if
 * unknown). */
const char *clt_shape_type_name(clt_shape_type_t type);
clt_shape_type_t clt_shape_type_from_name(const char *name);

/* ---------------------------------------------------------------------------------------------
 * Bodies */

typedef enum clt_body_type_t { CLT_BODY_DYNAMIC, CLT_BODY_STATIC, CLT_BODY_KINEMATIC } clt_body_type_t;

const char *clt_body_type_name(clt_body_type_t type); /* "dynamic", "static", "kinematic"; NULL out of range */
bool clt_body_type_from_name(const char *name, clt_body_type_t *out);

/* A pose of a keyframed kinematic body at a time (clt_motion_t.keyframes): where its frame (the
 * frame its shapes are given in) is, in the world. */
typedef struct clt_keyframe_t {
  double time;           /* [s] ≥ 0, increasing from one keyframe to the next */
  double position[3];    /* [m] (2D: [2] = 0) */
  double orientation[4]; /* 3D: quaternion (w, x, y, z), normalized when stored; 2D: unused */
  double angle;          /* 2D [rad]; 3D: unused */
} clt_keyframe_t;

typedef enum clt_interpolation_t {
  CLT_INTERPOLATE_LINEAR, /* positions (and 2D angles) piecewise linear */
  CLT_INTERPOLATE_CUBIC   /* monotone cubic Hermite through the keyframes (Fritsch–Carlson, as PCHIP):
                           * C¹, no overshoot, at rest at the first and last keyframe and wherever
                           * a coordinate holds or turns back */
} clt_interpolation_t;

/* Prescribed motion of a kinematic body, either about its initial pose:
 *   x(t) = x0 + velocity·t + amplitude·sin(2π frequency·t + phase)
 * (angular motion: constant angular_velocity of the def), or, with keyframe_count > 0, through
 * keyframes: the pose at t interpolated between the keyframes around it (positions and 2D angles
 * as `interpolation` says, 3D orientations by slerp, the shortest way), held at the first before
 * it and at the last after it (at rest there). The body starts at the pose of t = 0 (its def's
 * position and orientation are not used); the other fields and the def's velocities must be 0.
 * The velocity reported at t is the motion's on [t, t + dt) (at a keyframe: the next piece's). */
typedef struct clt_motion_t {
  double velocity[3];   /* [m/s] */
  double amplitude[3];  /* [m] */
  double frequency;     /* [Hz] */
  double phase;         /* [rad] */
  const clt_keyframe_t *keyframes; /* copied by clt_world_add_body; at most CLT_MAX_KEYFRAMES */
  int keyframe_count;
  clt_interpolation_t interpolation;
} clt_motion_t;

#define CLT_MAX_KEYFRAMES 100000

#define CLT_MAX_SHAPES_PER_BODY 64

typedef struct clt_body_def_t {
  clt_body_type_t type;
  double position[3];
  double angle;                /* 2D */
  double orientation[4];       /* 3D (w, x, y, z), normalized on creation; default identity */
  double velocity[3];          /* world frame */
  double angular_velocity[3];  /* 3D: body frame; 2D: [0] = ω */
  /* Mass properties: if mass > 0 they are taken as given (inertia = principal moments about the
   * body frame axes: 3 values in 3D, inertia[0] in 2D), else computed from the shapes and their
   * materials' densities. */
  double mass;
  double inertia[3];
  const clt_shape_def_t *shapes; /* copied; shape_count ≤ CLT_MAX_SHAPES_PER_BODY */
  int shape_count;
  clt_motion_t motion;         /* kinematic bodies only */
  /* Overdamped law (SPEC.md §6.1): drag coefficients about the principal axes, translational
   * [N s/m] and rotational [N m s]. All zero (default): computed from the shapes and the world's
   * viscosity (docs/stepping.md "Overdamped law"). */
  double drag_linear[3];
  double drag_angular[3];
  const char *name;            /* optional, copied */
} clt_body_def_t;

clt_body_def_t clt_default_body_def(void);

clt_status_t clt_world_add_body(clt_world_t *world, const clt_body_def_t *def, clt_body_id_t *out);
/* Removes a body between steps (a part taken away, a grain that left the domain): from the next
 * step on it does not move, has no mass and no contacts, and counts in no energy or momentum. Its
 * id and every copy of it are stale (CLT_ERR_STALE_HANDLE); the other bodies keep their ids and
 * indices: the removed one keeps its index and its last pose in clt_world_states (at rest), and
 * clt_world_body_at gives a null id there. Refused (CLT_ERR_INVALID_ARGUMENT, nothing changed)
 * while a joint or a force element acts on it: remove the joint first (clt_world_remove_joint).
 * Loads given to it for the next step are dropped. Bodies may also be added between steps. */
clt_status_t clt_world_remove_body(clt_world_t *world, clt_body_id_t body);
/* Optional: room for `bodies` bodies and `shapes` shapes in total, allocated exactly (adding bodies
 * past it grows the storage by doubling, up to 2x what is used). A scene of known size reserves it
 * before adding its bodies. CLT_ERR_INVALID_ARGUMENT for negative counts, CLT_ERR_OUT_OF_MEMORY. */
clt_status_t clt_world_reserve(clt_world_t *world, int bodies, int shapes);
int clt_world_body_count(const clt_world_t *world); /* NULL: 0 */
/* The i-th body in creation order (0 ≤ i < body count); the null handle clt_world_ground() for an
 * index out of range or a NULL world. */
clt_body_id_t clt_world_body_at(const clt_world_t *world, int i);

typedef struct clt_body_state_t {
  double position[3];
  double angle;                /* 2D */
  double orientation[4];       /* 3D (w, x, y, z) */
  double velocity[3];
  double angular_velocity[3];  /* 3D body frame; 2D [0] */
} clt_body_state_t;

clt_status_t clt_body_get_state(const clt_world_t *world, clt_body_id_t body, clt_body_state_t *out);
/* The states of all bodies in creation order (clt_world_body_count entries), for bindings that show
 * them without copying (the Python package's arrays): the step writes the new states here. Valid
 * until a body is added (the array may move) or the world is destroyed; NULL for a NULL world or one
 * without bodies. Writes into it are not checked and not seen by the world: a binding that lets its
 * users write keeps a copy of the entries, puts the copy back into each entry that was written and
 * gives the written value to clt_body_set_state, which checks it and tells the world
 * (python/src/world.c). */
clt_body_state_t *clt_world_states(clt_world_t *world);
/* Sets a dynamic body's state. CLT_ERR_INVALID_ARGUMENT for a component that is not finite or
 * past CLT_MAX_LENGTH (position), CLT_MAX_SPEED (velocity) or CLT_MAX_ANGULAR_SPEED, and for a
 * zero orientation; the world is then unchanged. */
clt_status_t clt_body_set_state(clt_world_t *world, clt_body_id_t body, const clt_body_state_t *state);

typedef struct clt_body_info_t {
  clt_body_type_t type;
  double mass;        /* +inf for static/kinematic */
  double inertia[3];  /* principal moments (2D: [0]) */
  int shape_count;
  const char *name;   /* "" if none */
} clt_body_info_t;

clt_status_t clt_body_get_info(const clt_world_t *world, clt_body_id_t body, clt_body_info_t *out);
/* Changes the length of a capsule shape of a dynamic body (growth, SPEC.md §6.3): the mass
 * properties and the default drag are recomputed from the new shape; position, orientation and
 * velocities are kept. */
clt_status_t clt_body_set_capsule_length(clt_world_t *world, clt_body_id_t body, int shape_index, double length);
/* The shape as stored (local pose relative to the body's principal frame). */
clt_status_t clt_body_get_shape(const clt_world_t *world, clt_body_id_t body, int shape_index,
                                clt_shape_def_t *out);

/* ---------------------------------------------------------------------------------------------
 * Joints (SPEC.md §0): the step solves them as rows νᵀv⁺ + Υ = 0 with the default contact model
 * (docs/stepping.md); the contact models of SPEC.md §6 refuse a world with joints. body_b may be
 * clt_world_ground(). Anchors and axes are in each body's local (def) frame; for the ground,
 * world frame. */

typedef enum clt_joint_type_t {
  CLT_JOINT_REVOLUTE,   /* 2D pin; 3D hinge about axis */
  CLT_JOINT_SPHERICAL,  /* 3D ball */
  CLT_JOINT_PRISMATIC,  /* slider along axis (2D: axis_a in the plane, axis_a[2] = 0) */
  CLT_JOINT_FIXED,      /* 3D weld */
  CLT_JOINT_DISTANCE,   /* |p_A − p_B| = distance */
  CLT_JOINT_TYPE_COUNT
} clt_joint_type_t;

/* A joint limit (docs/actuation.md): lower ≤ θ ≤ upper on the coordinate θ of clt_joint_get_state
 * (revolute angle [rad], prismatic slide [m]), unilateral rows of the step problem with the
 * scheme's stabilization and Newton's restitution e at impact. 3D revolute: −π ≤ lower < upper ≤ π
 * (the angle is taken in (−π, π]). Spherical joints: a cone and a twist range about the joint's
 * axes (axis_a in A, axis_b in B, aligned at creation): the angle between the two axes at most
 * `swing` (in (0, π]), and the twist of B about them, measured from creation as a revolute angle,
 * within [lower, upper] ⊆ [−π, π]. */
typedef struct clt_joint_limit_t {
  bool enabled;
  double lower;
  double upper;       /* > lower (equal bounds would lock the joint: a fixed joint does that) */
  double restitution; /* e ∈ [0, 1]: at impact the rate is reversed to −e times its value */
  double swing;       /* spherical joints only: the cone's half angle [rad] */
} clt_joint_limit_t;

/* What drives a revolute or prismatic joint along its coordinate (docs/actuation.md):
 *  - VELOCITY: the row θ̇⁺ = target_velocity with an impulse in [−h max_force, h max_force] (a
 *    bounded variable of the step problem: the motor holds the rate while it can, and pushes with
 *    max_force when it cannot). Joint friction is a velocity motor with target 0.
 *  - POSITION: a servo, the linearly implicit spring–damper τ = −k(θ⁺ − target_position)
 *    − c(θ̇⁺ − target_velocity) (stable at any h, as SPEC.md §4's implicit elements), with the same
 *    bound |τ| ≤ max_force. k = stiffness ≥ 0, c = damping ≥ 0, k + c > 0.
 *  - EFFORT: the torque (force) `effort` along the coordinate, on B, and the reaction on A. */
typedef enum clt_motor_mode_t {
  CLT_MOTOR_OFF,
  CLT_MOTOR_VELOCITY,
  CLT_MOTOR_POSITION,
  CLT_MOTOR_EFFORT,
  CLT_MOTOR_MODE_COUNT
} clt_motor_mode_t;

typedef struct clt_joint_motor_t {
  clt_motor_mode_t mode;
  double target_velocity; /* [rad/s] or [m/s] */
  double target_position; /* [rad] or [m] */
  double stiffness;       /* k [N m/rad] or [N/m] */
  double damping;         /* c [N m s/rad] or [N s/m] */
  double max_force;       /* [N m] or [N]: velocity and position modes, > 0 and finite */
  double effort;          /* [N m] or [N]: effort mode */
} clt_joint_motor_t;

const char *clt_motor_mode_name(clt_motor_mode_t mode); /* "off", "velocity", "position", "effort"; NULL out of range */
bool clt_motor_mode_from_name(const char *name, clt_motor_mode_t *out);

typedef struct clt_joint_def_t {
  clt_joint_type_t type;
  clt_body_id_t body_a;
  clt_body_id_t body_b;
  double anchor_a[3];
  double anchor_b[3];
  double axis_a[3];
  double axis_b[3];
  double distance; /* distance joint; < 0: take the initial distance */
  bool collide_connected; /* whether the two bodies' shapes collide with each other; default false */
  clt_joint_limit_t limit; /* revolute and prismatic joints; default off */
  clt_joint_motor_t motor; /* revolute and prismatic joints; default off */
  const char *name;
} clt_joint_def_t;

clt_joint_def_t clt_default_joint_def(clt_joint_type_t type);
const char *clt_joint_type_name(clt_joint_type_t type);
clt_joint_type_t clt_joint_type_from_name(const char *name);
clt_status_t clt_world_add_joint(clt_world_t *world, const clt_joint_def_t *def, clt_joint_id_t *out);
/* Removes a joint between steps (a grasp released, a link broken): from the next step on it has no
 * rows, no limit or motor, and its two bodies collide again. Its id, and every copy of it, is stale
 * from then on (CLT_ERR_STALE_HANDLE); the other joints keep their ids and indices: the removed
 * joint keeps its index, where clt_world_joint_at gives a null id. A second removal, or a stale
 * id: CLT_ERR_STALE_HANDLE. Joints may also be added between steps (clt_world_add_joint). */
clt_status_t clt_world_remove_joint(clt_world_t *world, clt_joint_id_t joint);
/* Joints added, removed ones included (their indices stay taken); NULL: 0. */
int clt_world_joint_count(const clt_world_t *world);
/* The i-th joint in creation order (0 ≤ i < joint count); a null id ({CLT_NULL_INDEX, 0}) for a
 * removed joint, an index out of range or a NULL world. */
clt_joint_id_t clt_world_joint_at(const clt_world_t *world, int i);

/* A joint as the step holds it. Unlike clt_joint_def_t, anchors and axes are in each body's
 * principal frame (the frame of clt_body_state_t: origin at the centre of mass, axes the principal
 * axes; world frame for the ground), so that p = position + R(orientation) anchor is the anchor's
 * world point at any state. */
typedef struct clt_joint_info_t {
  clt_joint_type_t type;
  clt_body_id_t body_a;
  clt_body_id_t body_b; /* clt_world_ground() for the world */
  double anchor_a[3];
  double anchor_b[3];
  double axis_a[3];     /* unit (3D revolute and prismatic; as given, normalized, otherwise) */
  double axis_b[3];
  double distance;      /* distance joint: as resolved (the initial distance where the def's was < 0) */
  bool collide_connected;
  clt_joint_limit_t limit;
  clt_joint_motor_t motor;
  const char *name;     /* "" if none; valid until the next joint is added */
} clt_joint_info_t;

clt_status_t clt_joint_get_info(const clt_world_t *world, clt_joint_id_t joint, clt_joint_info_t *out);

/* The coordinate of a one-coordinate joint at the current state, and its rate:
 *  - revolute: the angle [rad] by which B has turned relative to A about the axis since the joint
 *    was created (counter-clockwise about A's axis, 2D about z), and its rate [rad/s]. 2D: it counts
 *    whole turns; 3D: in (−π, π].
 *  - prismatic: the slide [m] (p_B − p_A)·a of B's anchor from A's along A's axis, and its rate.
 *  - distance: the distance [m] |p_A − p_B| between the anchors, and its rate.
 * CLT_ERR_UNSUPPORTED for spherical and fixed joints (no single coordinate). */
typedef struct clt_joint_state_t {
  double position;
  double rate;
  /* The impulses of the last step [N s] or [N m s] (0 before the first step and after a step that
   * was not solved): of the limit row (positive pushes θ up, from the lower bound; negative from
   * the upper), of the motor (along θ on B; velocity and position modes; effort: effort · h), and of
   * the joint's constraint rows (one per component of Θ, clt_joint_constraint order; rows left
   * out as dependent count 0). */
  double limit_impulse;
  double motor_impulse;
  double constraint_impulse[6];
  int limit_active; /* −1: the lower bound's row was in the last step, +1: the upper's, 0: neither */
} clt_joint_state_t;

clt_status_t clt_joint_get_state(const clt_world_t *world, clt_joint_id_t joint, clt_joint_state_t *out);

/* The impulses of a joint's rows in the last step [N s, N m s] (0 before the first step and after a
 * step that was not solved), for every joint type: impulse[0..5] those of Θ's rows in
 * clt_joint_constraint order (rows left out as dependent count 0), impulse[6] and [7] the lower
 * and upper limit's (a spherical joint: the cone's and the twist's lower bound), impulse[8] the
 * motor's (a spherical joint: the twist's upper bound). */
clt_status_t clt_joint_get_impulses(const clt_world_t *world, clt_joint_id_t joint, double impulse[9]);

/* Change a joint's limit or motor between steps (a controller sets targets each step). The same
 * checks as clt_world_add_joint: CLT_ERR_INVALID_ARGUMENT with the reason, nothing changed. */
clt_status_t clt_joint_set_limit(clt_world_t *world, clt_joint_id_t joint, const clt_joint_limit_t *limit);
clt_status_t clt_joint_set_motor(clt_world_t *world, clt_joint_id_t joint, const clt_joint_motor_t *motor);

/* ---------------------------------------------------------------------------------------------
 * Force elements */

typedef enum clt_force_type_t {
  /* Applied force and torque on one body:
   *   F(t) = force + force_amplitude · cos(2π frequency t + phase)   (world frame, at the centre
   *   of mass), τ(t) likewise (world frame in 2D/3D; converted to the body frame internally). */
  CLT_FORCE_APPLIED,
  /* Spring–damper between two attachment points (SPEC.md §4): f = −(stiffness φ + damping φ̇),
   * φ = |p_A − p_B| − rest_length. treatment: explicit or linearly implicit. */
  CLT_FORCE_SPRING_DAMPER,
  /* Rotational spring–damper about an axis (SPEC.md §4; 004 §2.2 "a spring or a damper around the
   * fixed point of a revolute joint"): torque −(stiffness φ + damping φ̇) about the axis on body_a,
   * the opposite on body_b, φ = (angle of A relative to B about the axis) − rest_angle, the angle
   * counted from the configuration at creation. 2D: the axis is z and axis_a/axis_b are unused.
   * 3D: axis_a in A's def frame (world frame for the ground), axis_b in B's (all zero: axis_a as
   * it lies at creation); meant for bodies whose axes a revolute joint keeps aligned, |φ| < π. */
  CLT_FORCE_ROTATIONAL_SPRING_DAMPER,
  CLT_FORCE_TYPE_COUNT
} clt_force_type_t;

typedef enum clt_force_treatment_t { CLT_TREAT_EXPLICIT, CLT_TREAT_IMPLICIT } clt_force_treatment_t;

const char *clt_force_treatment_name(clt_force_treatment_t treatment); /* "explicit", "implicit"; NULL out of range */
bool clt_force_treatment_from_name(const char *name, clt_force_treatment_t *out);

typedef struct clt_force_def_t {
  clt_force_type_t type;
  clt_body_id_t body_a;
  clt_body_id_t body_b;       /* spring-damper: may be the ground */
  double force[3];
  double torque[3];           /* 2D: torque[0] */
  double force_amplitude[3];
  double torque_amplitude[3];
  double frequency;           /* [Hz]; 20 cos t is force_amplitude 20, frequency 1/(2π) */
  double phase;               /* [rad] */
  double anchor_a[3];
  double anchor_b[3];
  double stiffness;           /* [N/m] */
  double damping;             /* [N s/m] */
  double rest_length;         /* [m]; < 0: take the initial length */
  clt_force_treatment_t treatment;
  /* rotational spring–damper: stiffness [N m/rad], damping [N m s/rad] */
  double axis_a[3];           /* 3D: the axis in A's def frame (world frame for the ground) */
  double axis_b[3];           /* 3D: the axis in B's def frame; all zero: axis_a at creation */
  double rest_angle;          /* [rad], relative to the angle at creation */
  const char *name;
} clt_force_def_t;

clt_force_def_t clt_default_force_def(clt_force_type_t type);
const char *clt_force_type_name(clt_force_type_t type);
clt_force_type_t clt_force_type_from_name(const char *name);
clt_status_t clt_world_add_force(clt_world_t *world, const clt_force_def_t *def, clt_force_id_t *out);
int clt_world_force_count(const clt_world_t *world); /* NULL: 0 */
/* The i-th force element in creation order (0 ≤ i < force count); a null id ({CLT_NULL_INDEX, 0})
 * for an index out of range or a NULL world. */
clt_force_id_t clt_world_force_at(const clt_world_t *world, int i);

/* A force element as the step holds it: clt_force_def_t's fields with the anchors and the axes in
 * each body's principal frame (as clt_joint_info_t; world frame for the ground), the rest length
 * resolved (the initial length where the def's was < 0), the applied force's constant part as last
 * set (clt_force_set_applied). name: "" if none, valid until the next force element is added. */
typedef clt_force_def_t clt_force_info_t;

clt_status_t clt_force_get_info(const clt_world_t *world, clt_force_id_t force, clt_force_info_t *out);
/* Sets the constant part of an applied force element (CLT_FORCE_APPLIED) from the next step on:
 * force [N] (world frame, at the centre of mass) and torque [N m] (world frame; 2D: torque[0]), as
 * clt_force_def_t.force and .torque; the amplitudes, frequency and phase stay. Actuation computed by
 * the caller each step (a controller) goes through it. Checked as clt_world_add_force checks them
 * (finite, ≤ CLT_MAX_FORCE, 2D components); CLT_ERR_INVALID_ARGUMENT for another force type, and
 * CLT_ERR_STALE_HANDLE for an id that names no force element. Not part of the saved state
 * (clt_world_save_state holds positions and velocities, not inputs): a program that restores a
 * state sets its inputs again. */
clt_status_t clt_force_set_applied(clt_world_t *world, clt_force_id_t force, const double force_value[3],
                                   const double torque[3]);

/* Loads for the next step only, for controllers that compute them each step: a force [N] (world
 * frame) at a world point (NULL: the centre of mass; elsewhere it adds the torque (point − x) × force
 * about the centre of mass x at the time of the call), and a torque [N m] (world frame; 2D:
 * torque[0]). Calls add up until the next clt_world_step that succeeds takes them (one that fails
 * keeps them). Only dynamic bodies take loads; values finite and within CLT_MAX_FORCE; 2D: force[2]
 * and point[2] 0. CLT_ERR_STALE_HANDLE for an id that names no body. Not part of the saved state.
 * A pair of equal and opposite loads on two bodies is an actuator between them. */
clt_status_t clt_body_apply_force(clt_world_t *world, clt_body_id_t body, const double force[3],
                                  const double point[3]);
clt_status_t clt_body_apply_torque(clt_world_t *world, clt_body_id_t body, const double torque[3]);

/* ---------------------------------------------------------------------------------------------
 * Stepping and diagnostics (SPEC.md §7) */

/* Advances the world by one time step h. On failure the body states, time and step count are left
 * as they were before the step. CLT_ERR_DIVERGED: the state after the step blew up (non-finite, or
 * past a bound of method.divergence_*; the message names the step, the quantity, the body and the
 * bound; the solver memory that warm-starts the next step is that of the failed step).
 * CLT_ERR_SOLVER: method.on_unconverged is abort and the step problem was not solved. */
clt_status_t clt_world_step(clt_world_t *world);

/* The values are stored in run files (docs/output-format.md): new ones are appended. */
typedef enum clt_solver_status_t {
  CLT_SOLVE_NONE = 0,       /* no constraint problem this step */
  CLT_SOLVE_SOLVED,         /* the residual meets the tolerance */
  CLT_SOLVE_RAY,            /* Lemke secondary ray */
  CLT_SOLVE_MAX_ITERATIONS, /* an iterative solver stopped at its iteration cap; the last iterate */
  CLT_SOLVE_ERROR,          /* a failure to compute: no usable answer (singular, non-finite, does not apply) */
  CLT_SOLVE_NOT_CONVERGED   /* an answer short of the tolerance: the solver finished (Lemke on a
                               complementary basis, a stalled gradient method) with a residual above it */
} clt_solver_status_t;

/* "none", "solved", "ray", "max_iterations", "error", "not_converged" ("unknown" for another
 * value) and the inverse (false for an unknown name). */
const char *clt_solver_status_name(clt_solver_status_t status);
bool clt_solver_status_from_name(const char *name, clt_solver_status_t *out);

typedef struct clt_diagnostics_t {
  int64_t step;          /* index of the step just taken (1 after the first step) */
  double t;              /* time after the step */
  int bodies;
  int contacts;          /* candidate contacts: the active set, Φ ≤ ε̂ (SPEC.md §1; ReLCP: |C₀|) */
  int joints;            /* joint rows' owners */
  int lcp_size;          /* unknowns of the step problem */
  int iterations;
  double residual;
  clt_solver_status_t solver_status;
  double infeasibility;  /* I(q) after the step, over ALL pairs and joints */
  double penetration;    /* max(0, −Φ) */
  double joint_error;    /* max |Θ| */
  double kinetic_energy;
  double potential_energy; /* gravity (relative to the origin) + springs */
  int constraints;       /* ReLCP constraint count (0 where not applicable) */
  int relcp_iterations;
  double max_overlap;
  double wall_s;         /* whole step */
  double wall_collide_s;
  double wall_assemble_s;
  double wall_solve_s;
  int solves;            /* relaxed scheme: solves of the step (the active set's a-posteriori
                            test, docs/stepping.md "Active set (swept)"); 1 elsewhere */
  int set_misses;        /* relaxed scheme: bodies still outside their velocity box after the
                            last solve allowed (only when solves reached it); 0 elsewhere */
  int touching_contacts; /* entries of the contact report that touch (clt_contact_info_t.touching;
                            docs/output-format.md "Touching contacts") */
  int64_t work_bytes;    /* bytes the step workspace holds after the step (clt_world_memory's
                            workspace entries): its buffers only grow, so this is the most the steps
                            so far have needed; 0 for a state no step produced (before the first
                            step, after a load or set); not part of the state (a resumed run starts
                            small), and the allocator's rounding of each buffer (malloc_usable_size)
                            depends on the process's earlier allocations: two runs of the same scene
                            can differ by a few bytes */
  int64_t arena_bytes;   /* the most bytes of the step's scratch arena in use at once during the
                            step (the stages' and solvers' work vectors; docs/architecture.md
                            "Memory"); 0 for a state no step produced. Not part of the state, but
                            the same for the same scene and build */
} clt_diagnostics_t;

/* Diagnostics of the last step (all zero before the first step except bodies, energies and
 * infeasibility, which describe the current state). The world is not const: after an edit or a
 * state set (no step since), the state's description is computed here, which runs the contact
 * query over all shape pairs in the step workspace and keeps the result until the next change. */
clt_status_t clt_world_get_diagnostics(clt_world_t *world, clt_diagnostics_t *out);

/* Memory of a world, buffer by buffer (for tools and benchmarks): the world's storage (bodies,
 * states, shapes, joints, …) and its step workspace's buffers (workspace true). bytes is the
 * allocation, resident how much of it is in memory now: the step gives the pages of buffers that
 * are dead between stages back (docs/design/granular.md "Memory"). Fills at most capacity entries
 * (entries may be NULL with capacity 0) and returns how many there are; NULL world: 0. Names are
 * static strings ("world states", "work contacts", "relaxed block_A", …). */
typedef struct clt_memory_entry_t {
  const char *name;
  size_t bytes;
  size_t resident;
  bool workspace;
} clt_memory_entry_t;
int clt_world_memory(const clt_world_t *world, clt_memory_entry_t *entries, int capacity);

/* Active contacts of the last step (SPEC.md §1), for output writers and viewers
 * (docs/output-format.md /contacts). Geometry is that of the start of the step (where the rows
 * were built); impulses are the step's solution. Divide impulses by h for forces. */
typedef struct clt_contact_info_t {
  int body_a, body_b;     /* body indices in creation order (clt_world_body_at) */
  double point[3];        /* midway between the two witness points, world frame [m] (2D: z = 0) */
  double normal[3];       /* unit normal from A to B, world frame */
  double distance;        /* Φ [m] (negative: penetration) */
  double normal_impulse;  /* c_n [N s] (≥ 0) */
  double impulse[3];      /* total contact impulse on body B, n c_n + Σ β_k d_k, world frame [N s];
                           * body A receives the opposite */
  int touching;           /* 1: the bodies touch (Φ ≤ CLT_TOUCH_GAP_FRACTION · ε̂, or c_n above
                           * CLT_TOUCH_IMPULSE_FRACTION of the step's largest), 0: a candidate only
                           * (docs/output-format.md "Touching contacts") */
} clt_contact_info_t;

/* A contact of the report touches when its gap at the start of the step is within this fraction of
 * ε̂ (method.active_set_eps) — a length far above the round-off of a resting contact's Φ and far
 * below any gap a step closes — or when it presses: its normal impulse exceeds this fraction of the
 * largest normal impulse of the step. Lemke and the projecting solvers give a contact that does not
 * press an exact 0; an interior-point solve (solver newton) leaves a positive remainder within its
 * tolerance (2.5e-10 of the largest at tolerance 1e-10, docs/output-format.md "Touching contacts"). */
#define CLT_TOUCH_GAP_FRACTION 1e-6
#define CLT_TOUCH_IMPULSE_FRACTION 1e-6

/* Number of active contacts of the last step (0 before the first step, after load_state and after
 * a step that failed, and for a NULL world). */
int clt_world_contact_count(const clt_world_t *world);
/* The i-th of them (0 ≤ i < count; CLT_ERR_INVALID_ARGUMENT otherwise). */
clt_status_t clt_world_get_contact(const clt_world_t *world, int index, clt_contact_info_t *out);

/* Energies and infeasibility of the current state (what the diagnostics report after a step).
 * NULL world: NaN. */
double clt_world_kinetic_energy(const clt_world_t *world);
double clt_world_potential_energy(const clt_world_t *world);

/* Total world-frame linear and angular momentum (about the origin) of the dynamic bodies. linear
 * and angular may be NULL; a NULL world fills the given arrays with NaN. */
void clt_world_momentum(const clt_world_t *world, double linear[3], double angular[3]);

/* ---------------------------------------------------------------------------------------------
 * Checkpoints: the complete mutable state (time, step count, positions, velocities, warm starts,
 * restitution memory, ...) as an opaque byte blob. Restoring it into a world built from the same
 * description makes the continuation bit-identical to an uninterrupted run.
 *
 * The blob (format version 3, src/steppers/state.c, docs/output-format.md "State blob") carries
 * a 64-bit checksum of all its other bytes: load_state refuses a blob with any byte changed, a
 * truncated or extended one, one of another world (counts, dimension) and one with a non-finite
 * value, with CLT_ERR_FORMAT and the reason in clt_world_error, and leaves the world unchanged.
 * Version 2 blobs (no checksum, written before) are still read. */

size_t clt_world_state_size(const clt_world_t *world); /* NULL: 0 */
/* CLT_ERR_INVALID_ARGUMENT for a NULL or too small buffer (size < clt_world_state_size). */
clt_status_t clt_world_save_state(const clt_world_t *world, void *buffer, size_t size);
clt_status_t clt_world_load_state(clt_world_t *world, const void *buffer, size_t size);

/* A 64-bit hash of the mutable state (determinism tests): FNV-1a 64 of the state's bytes as the
 * blob holds them, without the checksum (in the layout of format version 2, so that hashes stay
 * comparable across the format change). NULL world: 0. */
uint64_t clt_world_state_hash(const clt_world_t *world);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
