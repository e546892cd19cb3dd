/* The step workspace (rows.h): creation on first use, buffers that only grow, and the velocity
 * helpers shared by the stages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"
#include "steppers/relaxed.h"
#include "steppers/relcp.h"
#include "steppers/rows.h"

clt_step_work_t *clt_step_work(clt_world_t *world) {
  if (!world->step_work) {
    clt_step_work_t *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    clt_broadphase_init(&w->broadphase);
    clt_arena_init(&w->arena);
    world->step_work = w;
  }
  return world->step_work;
}

void clt_step_work_destroy(clt_step_work_t *w) {
  if (!w) return;
  clt_arena_release(&w->arena);
  free(w->inv_linear);
  free(w->inv_angular);
  free(w->dp);
  free(w->rows);
  free(w->row_value);
  free(w->row_bias);
  free(w->contact_tangent);
  free(w->row_minv);
  free(w->joint_row_owner);
  free(w->joint_row_component);
  free(w->row_compliance);
  free(w->row_bounds);
  free(w->spring_target);
  free(w->joint_impulse);
  free(w->next_joint_impulse);
  free(w->contacts);
  free(w->A);
  free(w->b);
  free(w->z);
  free(w->w);
  free(w->block_start);
  free(w->chol);
  free(w->ipiv);
  free(w->csr_row_ptr);
  free(w->csr_col);
  free(w->csr_val);
  free(w->body_start);
  free(w->body_list);
  free(w->scratch);
  clt_broadphase_destroy(&w->broadphase);
  clt_collide_threads_destroy(w->collide_threads);
  free(w->proxies);
  free(w->memory);
  free(w->next_memory);
  free(w->report);
  clt_relaxed_work_destroy(w->relaxed);
  clt_sweep_destroy(&w->sweep);
  clt_relcp_work_destroy(w->relcp);
  free(w);
}

bool clt_step_work_grow(void **p, int *capacity, int needed, size_t size) {
  if (needed <= *capacity) return true;
  int cap = *capacity > 0 ? *capacity : 16;
  while (cap < needed) cap *= 2;
  void *q = realloc(*p, (size_t)cap * size);
  if (!q) return false;
  *p = q;
  *capacity = cap;
  return true;
}

bool clt_step_work_reserve_rows(clt_step_work_t *w, int rows) {
  if (rows <= w->row_capacity) return true;
  int c1 = w->row_capacity, c2 = c1, c3 = c1, c4 = c1, c5 = c1, c6 = c1, c7 = c1;
  bool ok = clt_step_work_grow((void **)&w->rows, &c1, rows, sizeof *w->rows) &&
            clt_step_work_grow((void **)&w->row_value, &c2, rows, sizeof *w->row_value) &&
            clt_step_work_grow((void **)&w->row_bias, &c3, rows, sizeof *w->row_bias) &&
            clt_step_work_grow((void **)&w->row_minv, &c4, rows, 12 * sizeof *w->row_minv) &&
            clt_step_work_grow((void **)&w->joint_row_owner, &c5, rows, sizeof *w->joint_row_owner) &&
            clt_step_work_grow((void **)&w->joint_row_component, &c6, rows, sizeof *w->joint_row_component) &&
            clt_step_work_grow((void **)&w->row_compliance, &c7, rows, sizeof *w->row_compliance);
  if (ok) w->row_capacity = c1;
  return ok;
}

bool clt_step_work_reserve_contacts(clt_step_work_t *w, int contacts) {
  return clt_step_work_grow((void **)&w->contacts, &w->contact_capacity, contacts, sizeof *w->contacts);
}

bool clt_step_work_reserve_problem(clt_step_work_t *w, int n, int blocks) {
  if (n > w->lcp_capacity) {
    int cap = w->lcp_capacity > 0 ? w->lcp_capacity : 16;
    while (cap < n) cap *= 2;
    double *b = realloc(w->b, (size_t)cap * sizeof *b);
    if (b) w->b = b;
    double *ww = realloc(w->w, (size_t)cap * sizeof *ww);
    if (ww) w->w = ww;
    int *ipiv = realloc(w->ipiv, (size_t)cap * sizeof *ipiv);
    if (ipiv) w->ipiv = ipiv;
    if (!b || !ww || !ipiv) return false;
    w->lcp_capacity = cap;
  }
  return clt_step_work_reserve_z(w, n) &&
         clt_step_work_grow((void **)&w->block_start, &w->block_capacity, blocks + 1, sizeof *w->block_start);
}

bool clt_step_work_reserve_z(clt_step_work_t *w, int n) {
  return clt_step_work_grow((void **)&w->z, &w->z_capacity, n, sizeof *w->z);
}

bool clt_step_work_reserve_dense(clt_step_work_t *w, int n) {
  if (n <= w->dense_capacity) return true;
  int cap = w->dense_capacity > 0 ? w->dense_capacity : 16;
  while (cap < n) cap *= 2;
  double *A = realloc(w->A, (size_t)cap * (size_t)cap * sizeof *A);
  if (A) w->A = A;
  double *chol = realloc(w->chol, (size_t)cap * (size_t)cap * sizeof *chol);
  if (chol) w->chol = chol;
  if (!A || !chol) return false;
  w->dense_capacity = cap;
  return true;
}

bool clt_step_work_grow_ints(int **p, int *capacity, int needed) {
  return clt_step_work_grow((void **)p, capacity, needed, sizeof **p);
}

bool clt_step_work_grow_doubles(double **p, int *capacity, int needed) {
  return clt_step_work_grow((void **)p, capacity, needed, sizeof **p);
}

bool clt_step_work_reserve_bodies(clt_step_work_t *w, int bodies) {
  if (bodies <= w->body_capacity) return true;
  int c1 = w->body_capacity, c2 = c1;
  bool ok = clt_step_work_grow((void **)&w->inv_linear, &c1, bodies, sizeof *w->inv_linear) &&
            clt_step_work_grow((void **)&w->inv_angular, &c2, bodies, sizeof *w->inv_angular);
  if (ok) w->body_capacity = c1;
  return ok;
}

bool clt_step_work_reserve_dp(clt_step_work_t *w, int bodies) {
  return clt_step_work_grow((void **)&w->dp, &w->dp_capacity, 6 * bodies, sizeof *w->dp);
}

bool clt_step_work_reserve_joint_impulses(clt_step_work_t *w, int joints) {
  int needed = CLT_JOINT_SLOTS * joints;
  if (needed <= w->joint_impulse_capacity) return true;
  double *a = realloc(w->joint_impulse, (size_t)needed * sizeof *a);
  if (a) w->joint_impulse = a;
  double *b = realloc(w->next_joint_impulse, (size_t)needed * sizeof *b);
  if (b) w->next_joint_impulse = b;
  if (!a || !b) return false;
  for (int i = w->joint_impulse_capacity; i < needed; i++) a[i] = b[i] = 0.0;
  w->joint_impulse_capacity = needed;
  return true;
}

static int key_compare(int a1, int b1, int f1, int a2, int b2, int f2) {
  if (a1 != a2) return a1 < a2 ? -1 : 1;
  if (b1 != b2) return b1 < b2 ? -1 : 1;
  if (f1 != f2) return f1 < f2 ? -1 : 1;
  return 0;
}

const clt_contact_memory_t *clt_find_contact_memory(const clt_step_work_t *w, int shape_a, int shape_b,
                                                    int feature) {
  return clt_find_memory_entry(w->memory, w->memory_count, shape_a, shape_b, feature);
}

void clt_contact_memory_take(clt_contact_memory_t **into, int *into_count, int *into_capacity,
                             clt_contact_memory_t **next, int *next_count, int *next_capacity) {
  clt_contact_memory_t *m = *into;
  int cap = *into_capacity;
  *into = *next;
  *into_count = *next_count;
  *into_capacity = *next_capacity;
  *next = m;
  *next_capacity = cap;
  *next_count = 0;
}

const clt_contact_memory_t *clt_find_memory_entry(const clt_contact_memory_t *memory, int count, int shape_a,
                                                  int shape_b, int feature) {
  int lo = 0, hi = count - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    const clt_contact_memory_t *m = &memory[mid];
    int c = key_compare(m->shape_a, m->shape_b, m->feature, shape_a, shape_b, feature);
    if (c == 0) return m;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

/* A kinematic body with a periodic term enters the step with its mean velocity over the step,
 * (x(t + h) − x(t))/h, not its velocity at t: its position follows the law exactly
 * (stage_integrate.c), and the mean velocity is what keeps it consistent with q⁺ = q + h v⁺ of the
 * dynamic bodies it touches. With v(t) an accelerating container runs ahead of its contents by
 * ½ a h² per step (0.15 m at h = 0.1 s and Γ = 3 in scenes/papers/brazilnut.json), which the
 * stabilization term then pays back as a kick of Φ/h. Constant velocities are unchanged. */
static void kinematic_step_velocity(const clt_world_t *world, int body, double u[3]) {
  const clt_motion_t *m = &clt_body_extra(world, body)->motion;
  if (!(m->frequency > 0.0) || (m->amplitude[0] == 0.0 && m->amplitude[1] == 0.0 && m->amplitude[2] == 0.0))
    return;
  double h = world->time_step, w = 2.0 * CLT_PI * m->frequency;
  double t0 = (double)world->step_count * h, t1 = (double)(world->step_count + 1) * h;
  double ds = sin(w * t1 + m->phase) - sin(w * t0 + m->phase);
  for (int i = 0; i < 3; i++) u[i] = m->velocity[i] + m->amplitude[i] * ds / h;
}

void clt_body_velocity6(const clt_world_t *world, int body, double v[6]) {
  memset(v, 0, 6 * sizeof *v);
  if (body < 0 || world->bodies[body].type == CLT_BODY_STATIC) return;
  const clt_body_state_t *s = &world->states[body];
  double u[3] = {s->velocity[0], s->velocity[1], s->velocity[2]};
  if (world->bodies[body].type == CLT_BODY_KINEMATIC) kinematic_step_velocity(world, body, u);
  if (world->dimension == 2) {
    v[0] = u[0];
    v[1] = u[1];
    v[3] = s->angular_velocity[0];
  } else {
    memcpy(v, u, 3 * sizeof *v);
    memcpy(v + 3, s->angular_velocity, 3 * sizeof *v);
  }
}

static double side_dot(const double linear[3], const double angular[3], const double v[6]) {
  return linear[0] * v[0] + linear[1] * v[1] + linear[2] * v[2] + angular[0] * v[3] + angular[1] * v[4] +
         angular[2] * v[5];
}

double clt_row_velocity(const clt_world_t *world, const clt_row_t *row) {
  double v[6], s = 0.0;
  if (row->body_a >= 0) {
    clt_body_velocity6(world, row->body_a, v);
    s += side_dot(row->jac.linear_a, row->jac.angular_a, v);
  }
  if (row->body_b >= 0) {
    clt_body_velocity6(world, row->body_b, v);
    s += side_dot(row->jac.linear_b, row->jac.angular_b, v);
  }
  return s;
}

int clt_world_contact_count(const clt_world_t *world) {
  return world && world->step_work ? world->step_work->report_count : 0;
}

clt_status_t clt_world_get_contact(const clt_world_t *world, int index, clt_contact_info_t *out) {
  if (!world) return CLT_ERR_INVALID_ARGUMENT;
  int count = clt_world_contact_count(world);
  if (!out) return clt_world_fail((clt_world_t *)world, CLT_ERR_INVALID_ARGUMENT, "get_contact: out must not be NULL");
  if (index < 0 || index >= count)
    return clt_world_fail((clt_world_t *)world, CLT_ERR_INVALID_ARGUMENT,
                          "get_contact: index %d out of range (the last step has %d contacts)", index, count);
  clt_contact_report_get(world, world->step_work, index, out);
  return CLT_OK;
}

void clt_world_free_step_work(clt_world_t *world) {
  clt_step_work_destroy(world->step_work);
  world->step_work = NULL;
}
