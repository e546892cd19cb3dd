/* The collide stage of a step (SPEC.md §1 active set, §5): broad phase over all shapes, then the
 * narrow phase on every candidate pair, collecting the contact points with Φ ≤ max_distance in a
 * deterministic order (candidate pairs sorted by shape index, then each pair's own point order);
 * pairs whose collision filters do not pass (world.h clt_collision_filter_pass) are left out.
 * The stepper calls it with max_distance = ε̂ for the active set; the infeasibility report I(q)
 * calls it with a large max_distance (every overlapping pair counts, SPEC.md §1). */
#ifndef CLATTER_COLLISION_COLLIDE_ALL_H
#define CLATTER_COLLISION_COLLIDE_ALL_H

#include "collision/broadphase.h"
#include "collision/narrowphase.h"

/* One shape of one body, as the collide stage sees it. */
typedef struct clt_shape_instance_t {
  const clt_shape_def_t *shape;
  clt_collide_pose_t pose; /* the pose of the body carrying the shape */
  int body;                /* shapes of the same body never collide */
  bool fixed;              /* static / kinematic body: two fixed shapes never collide */
} clt_shape_instance_t;

typedef struct clt_shape_contact_t {
  int shape_a, shape_b; /* instance indices, shape_a < shape_b; the point's A is shape_a */
  clt_contact_point_t point;
} clt_shape_contact_t;

/* Reusable output and working memory (zero-initialize or clt_contact_set_init; buffers grow and are
 * kept, so steady-state steps do not allocate). */
typedef struct clt_contact_set_t {
  clt_shape_contact_t *contacts;
  int count;
  int capacity;
  clt_broadphase_proxy_t *proxies;
  int proxy_capacity;
  clt_broadphase_t broadphase;
  int candidate_pairs;           /* broad-phase pairs of the last call */
  int unsupported_a, unsupported_b; /* the pair that made the last call fail with UNSUPPORTED */
  int failed_a, failed_b;           /* the pair that made the last call fail with NUMERICAL */
} clt_contact_set_t;

void clt_contact_set_init(clt_contact_set_t *set);
void clt_contact_set_destroy(clt_contact_set_t *set);

/* Fills set->contacts with every contact point of every pair of instances with Φ ≤ max_distance.
 * The broad phase inflates the bounds by max(max_distance, 0), so no pair within range is missed.
 * Returns CLT_OK; CLT_ERR_OUT_OF_MEMORY; CLT_ERR_UNSUPPORTED when a candidate pair of shape types
 * has no narrow phase (set->unsupported_a/b name it; worlds should reject such shapes up front with
 * clt_collide_supported); CLT_ERR_NUMERICAL when a candidate pair's narrow phase failed
 * (CLT_COLLIDE_FAILED: an ellipsoid or ring iteration that did not converge, or bad shape data;
 * set->failed_a/b name it) — a missing contact is never passed off as "apart";
 * CLT_ERR_INVALID_ARGUMENT for a bad dimension or count. On error set->count is 0. */
clt_status_t clt_collide_all(clt_contact_set_t *set, const clt_shape_instance_t *shapes, int count, int dimension,
                             double max_distance);

#endif
