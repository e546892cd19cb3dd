/* The swept active set's per-body arrays (sweep.h). */
#include "steppers/sweep.h"

#include <stdlib.h>

#include "steppers/rows.h"

bool clt_sweep_reserve(clt_sweep_t *s, int bodies) {
  if (bodies <= s->body_capacity) return true;
  int c1 = s->body_capacity, c2 = c1, c3 = c1, c4 = c1, c5 = c1, c6 = c1, c7 = c1, c8 = c1, c9 = c1, c10 = c1, c11 = c1,
      c12 = c1;
  if (!clt_step_work_grow((void **)&s->own, &c1, 6 * bodies, sizeof *s->own) ||
      !clt_step_work_grow((void **)&s->ext, &c2, 6 * bodies, sizeof *s->ext) ||
      !clt_step_work_grow((void **)&s->reuse_reach, &c3, bodies, sizeof *s->reuse_reach) ||
      !clt_step_work_grow((void **)&s->reuse_type, &c4, bodies, sizeof *s->reuse_type) ||
      !clt_step_work_grow((void **)&s->slack, &c5, bodies, sizeof *s->slack) ||
      !clt_step_work_grow((void **)&s->vlo, &c6, 3 * bodies, sizeof *s->vlo) ||
      !clt_step_work_grow((void **)&s->vhi, &c7, 3 * bodies, sizeof *s->vhi) ||
      !clt_step_work_grow((void **)&s->vt, &c8, bodies, sizeof *s->vt) ||
      !clt_step_work_grow((void **)&s->box0, &c9, 6 * bodies, sizeof *s->box0) ||
      !clt_step_work_grow((void **)&s->u0, &c10, 3 * bodies, sizeof *s->u0) ||
      !clt_step_work_grow((void **)&s->bearing, &c11, bodies, sizeof *s->bearing) ||
      !clt_step_work_grow((void **)&s->ext_changed, &c12, bodies, sizeof *s->ext_changed))
    return false;
  s->body_capacity = bodies;
  return true;
}

void clt_sweep_destroy(clt_sweep_t *s) {
  free(s->own), free(s->slack), free(s->vlo), free(s->vhi), free(s->vt), free(s->ext), free(s->u0), free(s->box0);
  free(s->bearing), free(s->shape_body), free(s->link), free(s->own_pairs), free(s->ext_changed);
  free(s->reuse_reach), free(s->reuse_type), free(s->centres), free(s->shelf), free(s->shelf_check);
}
