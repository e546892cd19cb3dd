/* The swept active set's data (docs/stepping.md "The relaxed scheme"): the contact query's view of
 * how far each body may move within the step, which the relaxed scheme fills (stage_solve_relaxed.c,
 * clt_stage_relaxed_collide) and the narrow phase, the shelving of contacts and the penetration
 * diagnostics read (stage_collide.c). Part of the step workspace (rows.h: work->sweep), so that the
 * contact query reads no scheme's own workspace. */
#ifndef CLATTER_STEPPERS_SWEEP_H
#define CLATTER_STEPPERS_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

struct clt_broadphase_pair_t;
struct clt_contact_t;

typedef struct clt_sweep_t {
  bool active;       /* a scheme fills it (scheme relaxed, and anitescu-hart on the circular cone) */
  bool later_round;  /* the search is a later round of the step's solves (relaxed.h) */
  int body_capacity; /* of the per-body arrays */
  /* The swept active set (clt_stage_relaxed_collide), per body: the own margin (free flight), the
   * part of it that is not h|u| (acceleration, rotation), the box [vlo, vhi] (3 each) of the linear
   * velocities it may have from time vt of the step on, and the margin its bounds grow by. */
  double *own, *slack, *vlo, *vhi, *vt, *ext; /* own and ext: 6 per body, how far its bounds grow
                                                  below (3) and above (3) along each axis: its free
                                                  flight, and with its velocity box */
  double *u0;         /* 3 per body: its linear velocity over the step (0 static, a kinematic one's mean) */
  double *box0;       /* 6 per body: its box (vlo, vhi) before the spreading's hop (spread_boxes) */
  unsigned char *bearing; /* per body: one of its contacts bore last step */
  int *shape_body;        /* per shape: its body (built by each step's first search) */
  int shape_body_capacity;
  double *link; /* per broad-phase pair: when it can touch under the start boxes, or ∞ (spread_boxes) */
  int link_capacity;
  /* the pairs of the broad phase under the own sweeps, kept from the step's first solve for the
   * later ones (the own sweeps depend only on the state the step starts from) */
  struct clt_broadphase_pair_t *own_pairs;
  int own_pair_count, own_pair_capacity;
  /* The broad phase under the boxes (work->broadphase) of the solve before, when valid: a later
   * solve searches again only for the pairs of bodies whose margin (ext) changed (ext_changed, per
   * body; ext_changes of them), clt_broadphase_update_pairs. */
  bool ext_pairs_valid;
  unsigned char *ext_changed;
  int ext_changes;
  double widen; /* how far pair_reach widens the boxes of dynamic bodies (clt_stage_relaxed_collide) */
  /* The swept broad phase's pairs (work->broadphase) stand in for the penetration diagnostics'
   * broad phase (clt_world_penetration, stage_collide.c) while every body is within its allowance
   * of where it was then (clt_sweep_keep_pairs). */
  bool reuse_valid;
  int reuse_bodies, reuse_shapes;
  int64_t reuse_step; /* world->step_count when kept: they serve the state after that step only,
                         whose start the backup's poses are (clt_world_backup_pose; clt_world_step
                         forgets them before it writes that) */
  double reuse_eps;    /* ε̂ of that broad phase: body i's boxes were grown by ext_i + ε̂ below and
                          above along each axis (ext stays as it was until the next search, which
                          clears reuse_valid before it writes ext) */
  double *reuse_reach; /* per body: farthest point of a shape that rotation moves (0: none), or
                          −1 with an unbounded shape (the pairs stand only if it did not move) */
  unsigned char *reuse_type;
  /* the centres of the spheres, placed once per pass over the pairs (stage_collide.c), 3 by shape
   * index: all that the sphere–sphere test reads besides the shape (24 bytes a shape instead of a
   * whole placed shape's 120) */
  double *centres;
  int centre_capacity;
  /* The contacts shelved through a block Gauss–Seidel solve (clt_contacts_shelve): from the
   * warm start's search to the end of the solve only the records' build reads work->contacts, so
   * in a world that gives pages back their pages go, and each contact is made again from 12 bytes
   * instead of 136: shelf holds (shape_a, shape_b or ~shape_b where the point entered
   * frictionless, feature) by contact index. swept: work->contacts came from
   * clt_find_contacts_swept, and only the relaxed stages have touched them since. */
  int *shelf;
  int shelf_capacity, shelf_count;
  bool shelved, swept;
  /* The sanitizer build (CLATTER_POISON_RELEASED) keeps a copy of the shelved contacts, and
   * clt_contacts_unshelve fails the step unless it made the same bytes: every relaxed sphere scene
   * of its tests checks the shelving. */
  struct clt_contact_t *shelf_check;
  int shelf_check_capacity;
} clt_sweep_t;

/* Room for `bodies` bodies in the per-body arrays. */
bool clt_sweep_reserve(clt_sweep_t *sweep, int bodies);
void clt_sweep_destroy(clt_sweep_t *sweep);

#endif
