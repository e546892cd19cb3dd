/* The memory of a world buffer by buffer (world.h clt_world_memory) and the step workspace's total
 * (the diagnostics' work_bytes). The step's buffers only grow (STYLE.md: no allocation once a run
 * has settled), so the workspace's allocation after a step is the largest the steps so far have
 * needed; the pages of buffers that are dead between stages are given back (base/pages.h), so
 * what is resident can be less (docs/design/granular.md "Memory"). */
#define _DEFAULT_SOURCE /* mincore */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "steppers/relaxed.h"
#include "steppers/relcp.h"
#include "steppers/rows.h"

/* Every buffer of the world (its storage) and of its step workspace, by name. */
static void visit(const clt_world_t *world, clt_memory_visit_fn f, void *u) {
  f(u, "world bodies", world->bodies, false);
  f(u, "world states", world->states, false);
  f(u, "world backup", world->backup, false);
  f(u, "world backup_velocity", world->backup_velocity, false);
  f(u, "world backup_pose", world->backup_pose, false);
  f(u, "world force_acc", world->force_acc, false);
  f(u, "world torque_acc", world->torque_acc, false);
  f(u, "world shape_desc", world->shape_desc, false);
  f(u, "world shape_descs", world->shape_descs, false);
  f(u, "world shape_buckets", world->shape_buckets, false);
  f(u, "world body_extras", world->body_extras, false);
  f(u, "world materials", world->materials, false);
  f(u, "world joints", world->joints, false);
  f(u, "world forces", world->forces, false);
  f(u, "world loads", world->loads, false);
  f(u, "world keyframes", world->keyframes, false);
  const clt_step_work_t *w = world->step_work;
  if (!w) return;
  const void *work[] = {w->inv_linear, w->inv_angular, w->dp, w->rows, w->row_value, w->row_bias, w->row_minv,
                        w->joint_row_owner, w->joint_row_component, w->row_compliance, w->row_bounds, w->spring_target,
                        w->contact_tangent, w->contacts, w->A, w->b, w->z, w->w, w->block_start, w->chol, w->ipiv,
                        w->csr_row_ptr, w->csr_col, w->csr_val, w->body_start, w->body_list, w->scratch,
                        w->proxies, w->memory, w->next_memory, w->report, w->joint_impulse, w->next_joint_impulse};
  static const char *const work_names[] = {
      "work inv_linear", "work inv_angular", "work dp", "work rows", "work row_value", "work row_bias",
      "work row_minv", "work joint_row_owner", "work joint_row_component", "work row_compliance", "work row_bounds",
      "work spring_target", "work contact_tangent", "work contacts", "work A", "work b", "work z", "work w",
      "work block_start", "work chol", "work ipiv", "work csr_row_ptr", "work csr_col", "work csr_val",
      "work body_start", "work body_list", "work scratch", "work proxies", "work memory", "work next_memory",
      "work report", "work joint_impulse", "work next_joint_impulse"};
  _Static_assert(sizeof work / sizeof *work == sizeof work_names / sizeof *work_names, "one name a buffer");
  for (size_t i = 0; i < sizeof work / sizeof *work; i++) f(u, work_names[i], work[i], true);
  f(u, "work arena", w->arena.block_raw, true);
  f(u, "work arena entries", w->arena.entries, true);
  const clt_broadphase_t *bp = &w->broadphase;
  f(u, "broadphase entries", bp->entries, true);
  f(u, "broadphase bucket_start", bp->bucket_start, true);
  f(u, "broadphase sort_buffer", bp->sort_buffer, true);
  f(u, "broadphase column_key", bp->column_key, true);
  f(u, "broadphase units", bp->units, true);
  f(u, "broadphase pair_buffer", bp->pair_buffer, true);
  f(u, "broadphase block", bp->block, true);
  f(u, "broadphase histogram", bp->histogram, true);
  f(u, "broadphase pairs", bp->pairs, true);
  f(u, "broadphase large", bp->large, true);
  f(u, "broadphase kept", bp->kept, true);
  const clt_sweep_t *sw = &w->sweep;
  const void *sweep[] = {sw->own,  sw->slack, sw->vlo,        sw->vhi,         sw->vt,         sw->ext,
                         sw->u0,   sw->box0,  sw->bearing,    sw->shape_body,  sw->link,       sw->own_pairs,
                         sw->ext_changed, sw->reuse_reach, sw->reuse_type, sw->centres, sw->shelf};
  static const char *const sweep_names[] = {
      "sweep own",        "sweep slack",      "sweep vlo",         "sweep vhi",        "sweep vt",
      "sweep ext",        "sweep u0",         "sweep box0",        "sweep bearing",    "sweep shape_body",
      "sweep link",       "sweep own_pairs",  "sweep ext_changed", "sweep reuse_reach", "sweep reuse_type",
      "sweep centres",    "sweep shelf"};
  _Static_assert(sizeof sweep / sizeof *sweep == sizeof sweep_names / sizeof *sweep_names, "one name a buffer");
  for (size_t i = 0; i < sizeof sweep / sizeof *sweep; i++) f(u, sweep_names[i], sweep[i], true);
  /* the schemes' own buffers (relaxed.h, relcp.h) */
  clt_relaxed_visit_memory(w->relaxed, f, u);
  clt_relcp_visit_memory(w->relcp, f, u);
}

/* The bytes malloc gave p (0 for NULL, or where the C library cannot say). */
static size_t allocated(const void *p) {
#ifdef __GLIBC__
  return p ? malloc_usable_size((void *)(uintptr_t)p) : 0;
#else
  (void)p;
  return 0;
#endif
}

/* The bytes of p[0, bytes) in memory (mincore; a buffer smaller than a page shares its page with
 * others and counts as resident whole). */
static size_t resident(const void *p, size_t bytes) {
  long page = sysconf(_SC_PAGESIZE);
  if (!p || bytes == 0 || page <= 0) return 0;
  if (bytes < (size_t)page) return bytes;
  uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(page - 1);
  uintptr_t hi = ((uintptr_t)p + bytes + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
  size_t pages = (hi - lo) / (uintptr_t)page, in = 0;
  unsigned char *v = malloc(pages);
  if (v && mincore((void *)lo, hi - lo, v) == 0)
    for (size_t k = 0; k < pages; k++) in += (v[k] & 1) ? (size_t)page : 0;
  free(v);
  return in < bytes ? in : bytes;
}

typedef struct report_t {
  clt_memory_entry_t *entries;
  int capacity, count;
} report_t;

static void add_entry(void *user, const char *name, const void *p, bool workspace) {
  report_t *r = user;
  if (!p) return;
  if (r->count < r->capacity) {
    clt_memory_entry_t *e = &r->entries[r->count];
    e->name = name;
    e->bytes = allocated(p);
    e->resident = resident(p, e->bytes);
    e->workspace = workspace;
  }
  r->count++;
}

int clt_world_memory(const clt_world_t *world, clt_memory_entry_t *entries, int capacity) {
  if (!world) return 0;
  report_t r = {entries, entries ? capacity : 0, 0};
  visit(world, add_entry, &r);
  return r.count;
}

static void add_bytes(void *user, const char *name, const void *p, bool workspace) {
  (void)name;
  if (workspace) *(int64_t *)user += (int64_t)allocated(p);
}

int64_t clt_step_work_bytes(const clt_world_t *world) {
  int64_t bytes = 0;
  visit(world, add_bytes, &bytes);
  return bytes;
}
