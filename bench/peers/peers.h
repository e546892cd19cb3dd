/* bench/peers — the same scenes in ODE, Bullet, MuJoCo and clatter, measured by one driver.
 *
 * A scene (peers_scene_t) is an engine-neutral description: bodies with their initial pose, mass
 * and principal inertia, static half-space planes, ball joints. Each engine (engine_*.c/.cpp)
 * builds it, steps it and reports body states back; every measurement (penetration, joint error,
 * kinetic energy, rest) is computed here from those states against the true geometry, never from
 * an engine's internals, so the columns mean the same thing for every engine (README.md). */
#ifndef PEERS_H
#define PEERS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum peers_scene_kind_t {
  PEERS_PILE,
  PEERS_STACK,
  PEERS_CHAIN,
  PEERS_TOWER,
  PEERS_CANTILEVER,
  PEERS_POLYSTACK, /* a column of hexagonal prisms, each turned about the vertical */
  PEERS_POLYPILE   /* irregular convex polyhedra in the pile's box */
} peers_scene_kind_t;

typedef enum peers_shape_t {
  PEERS_SPHERE, /* radius */
  PEERS_BOX,    /* half[3] */
  PEERS_NONE,   /* mass and inertia only: no collision geometry (chain links) */
  PEERS_HULL    /* convex polyhedron: hull */
} peers_shape_t;

/* A convex polyhedron in its body frame: origin at the centre of mass of the solid, axes its
 * principal axes (scenes.c computes both), every vertex a corner of the hull. Faces are convex
 * polygons, counter-clockwise seen from outside; plane f is {x : n·x = d} with n the outward unit
 * normal. */
typedef struct peers_hull_t {
  int vertex_count;
  double (*vertices)[3];
  int face_count;
  int *face_start; /* face f is face_vertices[face_start[f] .. face_start[f + 1]) */
  int *face_vertices;
  double (*planes)[4]; /* n[3], d */
  int edge_count;
  int (*edges)[2];
  double inradius;     /* distance from the centre of mass to the nearest face plane */
  double circumradius; /* distance to the farthest vertex */
} peers_hull_t;

typedef struct peers_body_t {
  peers_shape_t shape;
  const peers_hull_t *hull; /* PEERS_HULL: owned by the scene */
  double radius;
  double half[3];
  double position[3];    /* centre of mass, world frame [m] */
  double orientation[4]; /* (w, x, y, z) body → world */
  double mass;           /* [kg] */
  double inertia[3];     /* principal moments about the body axes [kg m²] */
} peers_body_t;

/* Static half-space {x : n·x ≥ offset}; its surface is the plane n·x = offset. */
typedef struct peers_plane_t {
  double normal[3];
  double offset;
} peers_plane_t;

/* Ball joint: anchor_a in body a's frame coincides with anchor_b in body b's frame, or in the world
 * frame when body_b < 0. A fixed joint also keeps the relative orientation of the start. */
typedef struct peers_joint_t {
  int body_a, body_b;
  double anchor_a[3];
  double anchor_b[3];
  bool fixed;
} peers_joint_t;

#define PEERS_MAX_PLANES 5

typedef struct peers_scene_t {
  peers_scene_kind_t kind;
  char name[32];
  double time_step; /* h [s] */
  int steps;
  double gravity[3];
  double friction;    /* Coulomb μ of every contact pair */
  double restitution; /* 0 */
  double density;     /* [kg/m³], informational: masses are given per body */
  int body_count;
  peers_body_t *bodies;
  int plane_count;
  peers_plane_t planes[PEERS_MAX_PLANES];
  int joint_count;
  peers_joint_t *joints;
  int hull_count;
  peers_hull_t *hulls; /* the bodies' hulls (a body points at one) */
  bool needs_contacts;
} peers_scene_t;

/* What an engine reports per body: centre of mass, orientation (w, x, y, z), linear velocity and
 * angular velocity, both in the WORLD frame. */
typedef struct peers_state_t {
  double position[3];
  double orientation[4];
  double velocity[3];
  double angular_velocity[3];
} peers_state_t;

/* Engine-specific knobs the driver passes through. */
typedef struct peers_options_t {
  bool bullet_no_sleep;      /* disable Bullet's deactivation (on by default in Bullet) */
  int ode_iterations;        /* dWorldQuickStep iterations, 20 */
  int mujoco_njmax_cap;      /* mujoco-sized: largest njmax (≤ 0: 8000) */
  const char *clatter_scheme; /* NULL: the per-scene default of engine_clatter.c; these override
                                 the piles' method only */
  const char *clatter_solver;
  double clatter_tolerance;   /* ≤ 0: default */
  int clatter_iterations;     /* ≤ 0: default */
  bool clatter_absolute;      /* method.absolute_tolerance for the piles (default off) */
  double clatter_relaxation;  /* method.relaxation ω for the piles (≤ 0: default, 1.5) */
  /* Scenes that take clatter's default method (stack10, chain6, tower20): NULL or "auto" keeps
   * clt_default_method(); "polyhedral" sets friction_cone polyhedral + solver lemke (the default
   * before the circular cone became the default); "circular" sets friction_cone circular. */
  const char *clatter_cone;
} peers_options_t;

/* One engine. create returns NULL and fills why (e.g. "unsupported: ...") when it cannot build the
 * scene; step is the timed call and returns 0, or −1 with why filled (the run stops there);
 * after_step (optional) runs untimed after every step and may also stop the run (−1); get_states
 * fills body_count states. */
typedef struct peers_engine_t {
  const char *name;
  void *(*create)(const peers_scene_t *scene, const peers_options_t *options, char *why,
                  size_t why_size);
  int (*step)(void *engine, char *why, size_t why_size);
  int (*after_step)(void *engine, char *why, size_t why_size);
  void (*get_states)(void *engine, peers_state_t *states);
  void (*destroy)(void *engine);
  /* Static description of the engine's settings for the README/report (one line). */
  const char *(*describe)(void);
  /* Optional, after the run: a remark for the status column of a completed run (e.g. solves that
   * hit the iteration cap); leaves note empty when there is nothing to say. */
  void (*note)(void *engine, char *note, size_t note_size);
} peers_engine_t;

extern const peers_engine_t peers_engine_ode;
extern const peers_engine_t peers_engine_bullet;
extern const peers_engine_t peers_engine_mujoco;       /* MuJoCo's default buffers */
extern const peers_engine_t peers_engine_mujoco_sized; /* buffers sized from N */
extern const peers_engine_t peers_engine_clatter;
extern const peers_engine_t peers_engine_clatter_fast; /* piles: at most 20 sweeps (ODE's 20 iterations) */
extern const peers_engine_t peers_engine_clatter_lemke; /* default-method scenes (stack, chain, tower): polyhedral cone + Lemke */

/* ---- scenes.c: scene construction and measurements ---- */

/* Builds a scene; duration ≤ 0 selects the scene's default. Returns 0, or −1 (out of memory). */
int peers_scene_pile(peers_scene_t *scene, int n, double duration);
int peers_scene_stack(peers_scene_t *scene, double duration);
int peers_scene_chain(peers_scene_t *scene, double duration);
int peers_scene_tower(peers_scene_t *scene, double duration);
int peers_scene_cantilever(peers_scene_t *scene, double duration);
/* polystack10: ten hexagonal prisms; polypileN: n irregular 14-vertex polyhedra (README.md). */
int peers_scene_polystack(peers_scene_t *scene, double duration);
int peers_scene_polypile(peers_scene_t *scene, int n, double duration);
void peers_scene_free(peers_scene_t *scene);

/* Default simulated time of a pile of n spheres: the fall time of the top layer plus 3 s, ≥ 5 s. */
double peers_pile_default_duration(int n);

void peers_quat_rotate(const double q[4], const double v[3], double out[3]);
/* Lowest signed distance of a body's geometry (sphere, box or hull) to a plane at a state. */
double peers_plane_distance(const peers_body_t *body, const peers_state_t *state, const peers_plane_t *plane);

/* Max penetration depth [m] over sphere–sphere, sphere–plane, box–box and hull–hull (separating
 * axes: exact for convex polyhedra), box–plane and hull–plane pairs of the given states (0 if
 * nothing overlaps). Uses a uniform grid for spheres. */
double peers_max_penetration(const peers_scene_t *scene, const peers_state_t *states);
/* Max distance [m] between the two anchors of any joint. */
double peers_max_joint_error(const peers_scene_t *scene, const peers_state_t *states);
/* Kinetic energy [J]: Σ ½ m v² + ½ ωᵀ I ω with ω rotated into the body's principal frame. */
double peers_kinetic_energy(const peers_scene_t *scene, const peers_state_t *states);
/* The same, also returning its rotational part Σ ½ ωᵀ I ω. */
double peers_kinetic_energy_split(const peers_scene_t *scene, const peers_state_t *states, double *rotational);

#ifdef __cplusplus
}
#endif
#endif
