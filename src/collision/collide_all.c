/* The collide stage: broad phase, then the narrow-phase pair table on each candidate pair (see
 * collide_all.h). */
#include "collision/collide_all.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void clt_contact_set_init(clt_contact_set_t *set) {
  memset(set, 0, sizeof *set);
  clt_broadphase_init(&set->broadphase);
}

void clt_contact_set_destroy(clt_contact_set_t *set) {
  free(set->contacts);
  free(set->proxies);
  clt_broadphase_destroy(&set->broadphase);
  memset(set, 0, sizeof *set);
}

static bool grow(void **buffer, int *capacity, int n, size_t size) {
  if (n <= *capacity) return true;
  int cap = *capacity > 0 ? *capacity : 64;
  while (cap < n) {
    if (cap > (1 << 29)) return false;
    cap *= 2;
  }
  void *p = realloc(*buffer, (size_t)cap * size);
  if (!p) return false;
  *buffer = p;
  *capacity = cap;
  return true;
}

clt_status_t clt_collide_all(clt_contact_set_t *set, const clt_shape_instance_t *shapes, int count, int dimension,
                             double max_distance) {
  set->count = 0;
  set->candidate_pairs = 0;
  set->unsupported_a = set->unsupported_b = -1;
  set->failed_a = set->failed_b = -1;
  if (count < 0 || (dimension != 2 && dimension != 3)) return CLT_ERR_INVALID_ARGUMENT;
  void *proxies = set->proxies;
  if (!grow(&proxies, &set->proxy_capacity, count, sizeof(clt_broadphase_proxy_t))) return CLT_ERR_OUT_OF_MEMORY;
  set->proxies = proxies;
  for (int i = 0; i < count; i++) {
    clt_broadphase_proxy_t *p = &set->proxies[i];
    p->unbounded = !clt_shape_bounds(shapes[i].shape, &shapes[i].pose, p->lower, p->upper);
    p->has_plane = false; /* no plane culling here (broadphase.h) */
    p->body = shapes[i].body;
    p->fixed = shapes[i].fixed;
  }
  double margin = max_distance > 0.0 ? max_distance : 0.0;
  if (!isfinite(margin)) margin = 1e300; /* "everything": every bounded pair is a candidate */
  clt_status_t status = clt_broadphase_find_pairs(&set->broadphase, set->proxies, count, dimension, margin);
  if (status != CLT_OK) return status;
  set->candidate_pairs = set->broadphase.pair_count;

  clt_contact_point_t points[CLT_MAX_PAIR_CONTACTS];
  for (int k = 0; k < set->broadphase.pair_count; k++) {
    int a = set->broadphase.pairs[k].a, b = set->broadphase.pairs[k].b;
    if (!clt_collision_filter_pass(&shapes[a].shape->filter, &shapes[b].shape->filter)) continue;
    int n = clt_collide(shapes[a].shape, &shapes[a].pose, shapes[b].shape, &shapes[b].pose, max_distance, points,
                        CLT_MAX_PAIR_CONTACTS);
    if (n == CLT_COLLIDE_UNSUPPORTED) {
      set->count = 0;
      set->unsupported_a = a;
      set->unsupported_b = b;
      return CLT_ERR_UNSUPPORTED;
    }
    if (n < 0) { /* CLT_COLLIDE_FAILED */
      set->count = 0;
      set->failed_a = a;
      set->failed_b = b;
      return CLT_ERR_NUMERICAL;
    }
    if (n == 0) continue;
    void *contacts = set->contacts;
    if (!grow(&contacts, &set->capacity, set->count + n, sizeof(clt_shape_contact_t))) {
      set->count = 0;
      return CLT_ERR_OUT_OF_MEMORY;
    }
    set->contacts = contacts;
    for (int i = 0; i < n; i++) {
      clt_shape_contact_t *c = &set->contacts[set->count++];
      c->shape_a = a;
      c->shape_b = b;
      c->point = points[i];
    }
  }
  return CLT_OK;
}
