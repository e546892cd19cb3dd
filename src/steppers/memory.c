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

typedef void (*visit_fn)(void *user, const char *name, const void *p, bool workspace);

/* Every buffer of the world (its storage) and of its step workspace, by name. */
static void visit(const clt_world_t *world, visit_fn f, void *u) {
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
  const clt_step_work_t *w = world->step_work;
  if (!w) return;
  const void *work[] = {w->inv_linear, w->inv_angular, w->dp, w->rows, w->row_value, w->row_bias, w->row_minv,
                        w->joint_row_owner, w->joint_row_component, w->row_compliance, w->spring_target,
                        w->contact_tangent, w->contacts, w->A, w->b, w->z, w->w, w->block_start, w->chol, w->ipiv,
                        w->csr_row_ptr, w->csr_col, w->csr_val, w->body_start, w->body_list, w->scratch,
                        w->proxies, w->memory, w->next_memory, w->report, w->joint_impulse, w->next_joint_impulse};
  static const char *const work_names[] = {
      "work inv_linear", "work inv_angular", "work dp", "work rows", "work row_value", "work row_bias",
      "work row_minv", "work joint_row_owner", "work joint_row_component", "work row_compliance",
      "work spring_target", "work contact_tangent", "work contacts", "work A", "work b", "work z", "work w",
      "work block_start", "work chol", "work ipiv", "work csr_row_ptr", "work csr_col", "work csr_val",
      "work body_start", "work body_list", "work scratch", "work proxies", "work memory", "work next_memory",
      "work report", "work joint_impulse", "work next_joint_impulse"};
  _Static_assert(sizeof work / sizeof *work == sizeof work_names / sizeof *work_names, "one name a buffer");
  for (size_t i = 0; i < sizeof work / sizeof *work; i++) f(u, work_names[i], work[i], true);
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
  const clt_relaxed_work_t *r = w->relaxed;
  if (r) {
    const void *relaxed[] = {r->contacts, r->delta,  r->coulomb_shift, r->block_A, r->colour, r->order, r->z_slot,
                             r->ends,     r->hot_list, r->share_kept, r->run_kept, r->dv, r->inv, r->rot, r->dyn,
                             r->own,      r->slack,  r->vlo,      r->vhi,     r->vt,     r->ext,   r->u0,
                             r->box0,     r->shape_body, r->link, r->ext_changed, r->demand, r->solved,
                             r->demanded, r->round_memory, r->reuse_reach, r->centres, r->shelf, r->joint_x,
                             r->joint_diag, r->joint_bias, r->rows, r->minv, r->b, r->x, r->y, r->u, r->mu,
                             r->offset,   r->count,  r->cone_start, r->body_start, r->body_entry, r->fill};
    static const char *const relaxed_names[] = {
        "relaxed contacts", "relaxed delta", "relaxed coulomb_shift", "relaxed block_A", "relaxed colour",
        "relaxed order", "relaxed z_slot", "relaxed ends", "relaxed hot_list", "relaxed share_kept",
        "relaxed run_kept", "relaxed dv", "relaxed inv", "relaxed rot", "relaxed dyn", "relaxed own",
        "relaxed slack", "relaxed vlo", "relaxed vhi", "relaxed vt", "relaxed ext", "relaxed u0", "relaxed box0",
        "relaxed shape_body", "relaxed link", "relaxed ext_changed", "relaxed demand", "relaxed solved",
        "relaxed demanded", "relaxed round_memory", "relaxed reuse_reach", "relaxed centres", "relaxed shelf",
        "relaxed joint_x", "relaxed joint_diag", "relaxed joint_bias", "relaxed rows", "relaxed minv",
        "relaxed b", "relaxed x", "relaxed y", "relaxed u", "relaxed mu", "relaxed offset", "relaxed count",
        "relaxed cone_start", "relaxed body_start", "relaxed body_entry", "relaxed fill"};
    _Static_assert(sizeof relaxed / sizeof *relaxed == sizeof relaxed_names / sizeof *relaxed_names,
                   "one name a buffer");
    for (size_t i = 0; i < sizeof relaxed / sizeof *relaxed; i++) f(u, relaxed_names[i], relaxed[i], true);
  }
  const clt_relcp_work_t *c = w->relcp;
  if (c) {
    const void *relcp[] = {c->mobility, c->base,    c->velocity, c->trial, c->instances, c->instance_shape,
                           c->proxies,  c->set.contacts, c->set.proxies, c->constraints, c->bj, c->b,
                           c->lambda,   c->w,       c->diagonal, c->body_start, c->body_entry, c->jr, c->jb,
                           c->active,   c->dense,   c->accumulator};
    static const char *const relcp_names[] = {
        "relcp mobility", "relcp base", "relcp velocity", "relcp trial", "relcp instances",
        "relcp instance_shape", "relcp proxies", "relcp contacts", "relcp contact proxies", "relcp constraints",
        "relcp bj", "relcp b", "relcp lambda", "relcp w", "relcp diagonal", "relcp body_start",
        "relcp body_entry", "relcp jr", "relcp jb", "relcp active", "relcp dense", "relcp accumulator"};
    _Static_assert(sizeof relcp / sizeof *relcp == sizeof relcp_names / sizeof *relcp_names, "one name a buffer");
    for (size_t i = 0; i < sizeof relcp / sizeof *relcp; i++) f(u, relcp_names[i], relcp[i], true);
  }
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
