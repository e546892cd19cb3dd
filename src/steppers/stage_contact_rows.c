/* Build rows, contacts (SPEC.md §0, §1): for every active contact j, with n from A to B and the
 * witness points p_A, p_B,
 *   normal row  n_j:  Φ̇ = n·(ṗ_B − ṗ_A)   (body B: +n at p_B, body A: −n at p_A), value Φ_j,
 *   friction rows D_j: the same with the balanced directions d_k instead of n — 2D: ±t,
 *   t = (−n_y, n_x); 3D: d_k = cos(2πk/m_C) t₁ + sin(2πk/m_C) t₂, (n, t₁, t₂) orthonormal.
 * Δ_j = the scheme's bias(Φ_j) plus the restitution term below.
 *
 * Contact memory. Every contact that carried a normal impulse (c_n > 0) leaves an entry under its
 * key (shape A, shape B, narrow-phase feature) with its impulses — c_n, the friction impulse
 * Σ β_k d_k as a world vector, λ — which warm-start iterative solvers on the next step, and its
 * restitution record. The entry is dropped when the contact leaves the active set or carries no
 * normal impulse. The memory is part of the checkpoint state (src/steppers/state.c).
 *
 * Restitution (SPEC.md §1, 003; the exact rule), for pairs with e_N > 0:
 *   1. impact: a contact with no entry (it was not pressing on the step before) that receives
 *      c_n > 0 in a step that began with an approaching normal velocity v_pre = nᵀv⁽ˡ⁾ < 0 records
 *      v_pre ("pending"). That step itself is plastic: the stabilization term already acts on the
 *      step of impact.
 *   2. rebound: on the next step, if the contact is still active, Δ_j ← Δ_j + e_N v_pre, so the
 *      solver asks nᵀv⁺ ≥ −e_N v_pre − (the scheme's Δ): a separating velocity of e_N |v_pre|.
 *      The record is then "done" and stays so while the contact keeps pressing, so a resting
 *      contact never re-triggers.
 *   3. once the entry is dropped (separation: c_n = 0 or out of the active set) the next impact is
 *      detected afresh. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/sort.h"
#include "math/vec.h"
#include "steppers/stepper.h"
#include "base/parallel.h"

#define CLT_TWO_PI 6.283185307179586476925286766559
/* Contacts from which the memory is written by several threads (below: one, in the same order),
 * and the most shares it is cut into. */
#define REMEMBER_PARALLEL_MIN 16384
#define REMEMBER_SHARES 64

/* sign · (row of n·ṗ) for the world point p of body i (SPEC.md §0). */
static void point_row(const clt_world_t *world, int body, const double p[3], const double n[3], double sign,
                      double linear[3], double angular[3]) {
  if (body < 0) return;
  const clt_body_state_t *s = &world->states[body];
  double rho[3];
  clt_v3_sub(rho, p, s->position);
  if (world->dimension == 2) {
    linear[0] += sign * n[0];
    linear[1] += sign * n[1];
    angular[0] += sign * (rho[0] * n[1] - rho[1] * n[0]);
  } else {
    double c[3], cb[3];
    clt_v3_cross(c, rho, n); /* R(ρ_B × n_B) = ρ × n */
    clt_q_rotate_inv(cb, s->orientation, c);
    for (int k = 0; k < 3; k++) {
      linear[k] += sign * n[k];
      angular[k] += sign * cb[k];
    }
  }
}

void clt_contact_row(const clt_world_t *world, const clt_contact_t *c, const double dir[3], clt_row_t *row) {
  memset(row, 0, sizeof *row);
  row->body_a = c->body_a;
  row->body_b = c->body_b;
  point_row(world, c->body_a, c->point_a, dir, -1.0, row->jac.linear_a, row->jac.angular_a);
  point_row(world, c->body_b, c->point_b, dir, 1.0, row->jac.linear_b, row->jac.angular_b);
}

static const clt_contact_memory_t *find_memory(const clt_step_work_t *w, const clt_contact_t *c) {
  return clt_find_contact_memory(w, c->shape_a, c->shape_b, c->feature);
}

void clt_contact_tangents(const clt_world_t *world, const double n[3], double t1[3], double t2[3]) {
  if (world->dimension == 2) {
    clt_v3_set(t1, -n[1], n[0], 0.0);
    clt_v3_scale(t2, t1, -1.0);
  } else {
    clt_v3_basis(n, t1, t2);
  }
}

void clt_friction_direction(const clt_world_t *world, const double t1[3], const double t2[3], int k, int m,
                            double d[3]) {
  if (world->dimension == 2) {
    clt_v3_copy(d, k == 0 ? t1 : t2);
  } else {
    double a = CLT_TWO_PI * (double)k / (double)m;
    double ca = cos(a), sa = sin(a);
    for (int i = 0; i < 3; i++) d[i] = ca * t1[i] + sa * t2[i];
  }
}

void clt_contact_basis(const clt_world_t *world, const clt_step_work_t *w, int j, double t1[3], double t2[3]) {
  const clt_contact_t *c = &w->contacts[j];
  if (!w->tangent_aligned) {
    clt_contact_tangents(world, c->normal, t1, t2);
    return;
  }
  clt_v3_copy(t1, w->contact_tangent + 3 * (size_t)j);
  clt_v3_cross(t2, c->normal, t1);
}

/* The change of body i's linear velocity in the free-velocity stage, h (g + F/m) (zero for
 * static and kinematic bodies, and for the ground, i < 0). */
static void free_velocity_increment(const clt_world_t *world, int i, double h, double dv[3]) {
  clt_v3_set(dv, 0.0, 0.0, 0.0);
  if (i < 0 || world->bodies[i].type != CLT_BODY_DYNAMIC) return;
  for (int k = 0; k < 3; k++) dv[k] = h * (world->gravity[k] + world->force_acc[i][k] * world->bodies[i].inv_mass);
}

/* t₁ of contact c's friction directions along its tangential load (docs/stepping.md "Friction
 * directions"): the tangential relative velocity the contact would have without contact forces
 * this step (the velocities at the start of the step at the contact point, plus the linear
 * free-velocity change of each body), where it is above round-off; else the direction opposite
 * the friction impulse it carried on the step before; else the fixed basis. Along t₁ there is a
 * cone generator and its opposite, so the threshold of sticking and the friction of sliding are
 * exact along the load, whatever m_C and the contact's orientation. */
static void aligned_tangent(const clt_world_t *world, const clt_step_work_t *w, const clt_contact_t *c, double h,
                            double t1[3]) {
  double f1[3], f2[3];
  clt_contact_tangents(world, c->normal, f1, f2);
  double slip[3] = {0.0, 0.0, 0.0};
  double dva[3], dvb[3];
  free_velocity_increment(world, c->body_a, h, dva);
  free_velocity_increment(world, c->body_b, h, dvb);
  for (int axis = 0; axis < 2; axis++) {
    const double *d = axis == 0 ? f1 : f2;
    clt_row_t row;
    clt_contact_row(world, c, d, &row);
    double v = clt_row_velocity(world, &row) + clt_v3_dot(dvb, d) - clt_v3_dot(dva, d);
    clt_v3_axpy(slip, slip, v, d);
  }
  double speed = clt_v3_norm(slip), g = clt_v3_norm(world->gravity);
  if (speed > 1e-6 * h * g + 1e-12) { /* above the velocity noise of a converged resting contact */
    clt_v3_scale(t1, slip, 1.0 / speed);
    return;
  }
  const clt_contact_memory_t *mem = find_memory(w, c);
  if (mem) {
    double f[3];
    clt_v3_copy(f, mem->tangent_impulse);
    clt_v3_axpy(f, f, -clt_v3_dot(f, c->normal), c->normal);
    double len = clt_v3_norm(f);
    if (len > 0.0) {
      clt_v3_scale(t1, f, -1.0 / len);
      return;
    }
  }
  clt_v3_copy(t1, f1);
}

clt_status_t clt_build_contact_rows(clt_world_t *world, clt_step_work_t *w, bool friction, double h) {
  int m = friction ? (world->dimension == 2 ? 2 : world->method.friction_directions) : 0;
  w->friction_directions = friction ? m : 0;
  int first = w->joint_rows;
  int total = first + w->contact_count * (1 + m);
  if (!clt_step_work_reserve_rows(w, total))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (%d contact rows)", total);
  w->tangent_aligned = false;
  if (m > 0 && world->dimension == 3) {
    if (!clt_step_work_grow_doubles(&w->contact_tangent, &w->contact_tangent_capacity, 3 * w->contact_count))
      return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (%d contact rows)", total);
    for (int j = 0; j < w->contact_count; j++)
      aligned_tangent(world, w, &w->contacts[j], h, w->contact_tangent + 3 * (size_t)j);
    w->tangent_aligned = true;
  }
  int r = first;
  for (int j = 0; j < w->contact_count; j++) {
    clt_contact_t *c = &w->contacts[j];
    clt_contact_row(world, c, c->normal, &w->rows[r]);
    w->row_value[r] = c->distance;
    w->row_bias[r] = 0.0;
    r++;
    if (m == 0) continue;
    double t1[3], t2[3];
    clt_contact_basis(world, w, j, t1, t2);
    for (int k = 0; k < m; k++) {
      double d[3];
      clt_friction_direction(world, t1, t2, k, m, d);
      clt_contact_row(world, c, d, &w->rows[r]);
      w->row_value[r] = 0.0;
      w->row_bias[r] = 0.0;
      r++;
    }
  }
  w->row_count = r;
  return CLT_OK;
}

/* Stage "contact rows": n, D at q; Δ = bias(Φ) + restitution (runs before the free-velocity
 * stage, so the normal velocity read here is nᵀv⁽ˡ⁾). */
clt_status_t clt_stage_contact_rows(clt_step_context_t *c) {
  clt_step_work_t *w = c->work;
  clt_status_t st = clt_build_contact_rows(c->world, w, true, c->h);
  if (st != CLT_OK) return st;
  int stride = 1 + w->friction_directions;
  for (int j = 0; j < w->contact_count; j++) {
    clt_contact_t *ct = &w->contacts[j];
    int r = w->joint_rows + j * stride;
    ct->normal_velocity = clt_row_velocity(c->world, &w->rows[r]);
    const clt_contact_memory_t *m = ct->restitution > 0.0 ? find_memory(w, ct) : NULL;
    ct->restitution_bias =
        m && m->restitution_state == CLT_RESTITUTION_PENDING ? ct->restitution * m->pre_velocity : 0.0;
    w->row_bias[r] = c->scheme->bias(&c->world->method, ct->distance, c->h) + ct->restitution_bias;
  }
  return CLT_OK;
}

/* The balanced directions of m as cos/sin of 2πk/m, computed once per stage instead of once per
 * contact and direction (the same numbers clt_friction_direction computes). */
typedef struct direction_table_t {
  int m;
  double c[64], s[64];
} direction_table_t;

static void direction_table(direction_table_t *t, int m) {
  t->m = m <= 64 ? m : 0;
  for (int k = 0; k < t->m; k++) {
    double a = CLT_TWO_PI * (double)k / (double)m;
    t->c[k] = cos(a);
    t->s[k] = sin(a);
  }
}

static void table_direction(const clt_world_t *world, const direction_table_t *t, const double t1[3],
                            const double t2[3], int k, int m, double d[3]) {
  if (world->dimension == 2 || t->m != m) {
    clt_friction_direction(world, t1, t2, k, m, d);
    return;
  }
  for (int i = 0; i < 3; i++) d[i] = t->c[k] * t1[i] + t->s[k] * t2[i];
}

static int memory_order(const void *pa, const void *pb) {
  const clt_contact_memory_t *a = pa, *b = pb;
  if (a->shape_a != b->shape_a) return a->shape_a < b->shape_a ? -1 : 1;
  if (a->shape_b != b->shape_b) return a->shape_b < b->shape_b ? -1 : 1;
  if (a->feature != b->feature) return a->feature < b->feature ? -1 : 1;
  return 0;
}

/* Entry j of the contact report from contact j and its impulses in z (rows.h layout). */
static void report_entry(const clt_world_t *world, const clt_step_work_t *w, const direction_table_t *table, int j,
                         clt_contact_info_t *info) {
  int m = w->friction_directions;
  const clt_contact_t *ct = &w->contacts[j];
  double zbuf[CLT_Z_ROW_MAX];
  const double *z = clt_contact_z(w, j, zbuf);
  memset(info, 0, sizeof *info);
  info->body_a = ct->body_a;
  info->body_b = ct->body_b;
  for (int k = 0; k < 3; k++) info->point[k] = 0.5 * (ct->point_a[k] + ct->point_b[k]);
  clt_v3_copy(info->normal, ct->normal);
  info->distance = ct->distance;
  if (!w->report_solved) return;
  info->normal_impulse = z[0];
  clt_v3_scale(info->impulse, ct->normal, z[0]);
  double t1[3], t2[3];
  clt_contact_basis(world, w, j, t1, t2);
  for (int k = 0; k < m; k++) {
    double d[3];
    table_direction(world, table, t1, t2, k, m, d);
    clt_v3_axpy(info->impulse, info->impulse, z[1 + k], d);
  }
}

void clt_contact_report_get(const clt_world_t *world, const clt_step_work_t *w, int index, clt_contact_info_t *out) {
  if (!w->report_lazy) {
    *out = w->report[index];
  } else {
    direction_table_t table;
    direction_table(&table, w->friction_directions);
    report_entry(world, w, &table, index, out);
  }
  out->touching = clt_contact_touching(w, out->distance, out->normal_impulse);
}

void clt_contact_report_gap(const clt_step_work_t *w, int index, double *distance, double *normal_impulse) {
  if (!w->report_lazy) {
    *distance = w->report[index].distance;
    *normal_impulse = w->report[index].normal_impulse;
    return;
  }
  double zbuf[CLT_Z_ROW_MAX];
  *distance = w->contacts[index].distance;
  *normal_impulse = w->report_solved ? clt_contact_z(w, index, zbuf)[0] : 0.0;
}

clt_status_t clt_contact_report_keep(clt_world_t *world, clt_step_work_t *w) {
  if (!w->report_lazy) return CLT_OK;
  if (!clt_step_work_grow((void **)&w->report, &w->report_capacity, w->report_count, sizeof *w->report))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (contact report)");
  direction_table_t table;
  direction_table(&table, w->friction_directions);
  for (int j = 0; j < w->report_count; j++) report_entry(world, w, &table, j, &w->report[j]);
  w->report_lazy = false;
  return CLT_OK;
}

/* The memory entry of pressing contact ct with impulses z (rows.h layout; rules above). */
static void memory_entry(const clt_world_t *world, const clt_step_work_t *w, const direction_table_t *table,
                         const clt_contact_t *ct, const double *z, int m, clt_contact_memory_t *out) {
  const clt_contact_memory_t *old = ct->restitution > 0.0 ? find_memory(w, ct) : NULL; /* read by rule 2 only */
  clt_contact_memory_t next;
  memset(&next, 0, sizeof next);
  next.shape_a = ct->shape_a;
  next.shape_b = ct->shape_b;
  next.feature = ct->feature;
  next.normal_impulse = z[0];
  next.slip = z[m + 1];
  double t1[3], t2[3];
  clt_contact_basis(world, w, (int)(ct - w->contacts), t1, t2);
  for (int k = 0; k < m; k++) {
    if (z[1 + k] == 0.0) continue;
    double d[3];
    table_direction(world, table, t1, t2, k, m, d);
    clt_v3_axpy(next.tangent_impulse, next.tangent_impulse, z[1 + k], d);
  }
  if (ct->restitution > 0.0) {
    if (old) { /* rule 2 */
      next.restitution_state =
          old->restitution_state == CLT_RESTITUTION_NONE ? CLT_RESTITUTION_NONE : CLT_RESTITUTION_DONE;
      next.pre_velocity = old->pre_velocity;
    } else if (ct->normal_velocity < 0.0) { /* rule 1 */
      next.restitution_state = CLT_RESTITUTION_PENDING;
      next.pre_velocity = ct->normal_velocity;
    }
  }
  *out = next;
}

/* Stage "remember": the memory for the next step from this step's impulses (rules above): contact
 * entries into next_memory (sorted by key), joint impulses into next_joint_impulse; the commit
 * stage makes them the state's. */
clt_status_t clt_stage_remember(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  w->next_memory_count = 0;
  if (!clt_step_work_reserve_joint_impulses(w, world->joint_count))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (joint memory)");
  if (world->joint_count > 0) /* a NULL buffer with 0 bytes is still undefined for memset */
    memset(w->next_joint_impulse, 0, (size_t)world->joint_count * CLT_JOINT_SLOTS * sizeof *w->next_joint_impulse);
  bool solved = w->lcp_n == w->joint_rows + w->contact_count * clt_contact_z_block(w);
  for (int i = 0; solved && i < w->joint_rows; i++)
    w->next_joint_impulse[CLT_JOINT_SLOTS * w->joint_row_owner[i] + w->joint_row_component[i]] = w->z[i];
  clt_remember_efforts(world, w, c->h);
  int m = w->friction_directions;
  /* The contact report (clt_world_get_contact) is read from the contacts and z where it is asked
   * for (report_entry): nothing is copied per step (rows.h). */
  w->report_count = w->contact_count;
  w->report_lazy = true;
  w->report_solved = solved;
  direction_table_t table;
  direction_table(&table, m);
  /* Two passes over equal shares of the contacts (in parallel for many): each share counts its
   * pressing contacts, then writes their entries from the share's offset — the entries of one
   * thread's loop, in contact order, whatever the number of threads. */
  int nc = solved ? w->contact_count : 0, shares = 1;
#ifdef _OPENMP
  if (nc >= REMEMBER_PARALLEL_MIN)
    shares = omp_get_max_threads() < REMEMBER_SHARES ? omp_get_max_threads() : REMEMBER_SHARES;
#endif
  int at[REMEMBER_SHARES + 1] = {0};
  CLT_PARALLEL_FOR_IF(shares > 1, schedule(static, 1) num_threads(shares),
  for (int t = 0; t < shares; t++) {
    int from = (int)((int64_t)nc * t / shares), to = (int)((int64_t)nc * (t + 1) / shares), n = 0;
    for (int j = from; j < to; j++) {
      double zbuf[CLT_Z_ROW_MAX];
      n += clt_contact_z(w, j, zbuf)[0] > 0.0;
    }
    at[t + 1] = n;
  });
  for (int t = 0; t < shares; t++) at[t + 1] += at[t];
  if (at[shares] > w->next_memory_capacity) {
    int cap = w->next_memory_capacity > 0 ? w->next_memory_capacity : 16;
    while (cap < at[shares]) cap = cap > INT32_MAX / 2 ? at[shares] : 2 * cap;
    clt_contact_memory_t *p = realloc(w->next_memory, (size_t)cap * sizeof *p);
    if (!p) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (contact memory)");
    w->next_memory = p;
    w->next_memory_capacity = cap;
  }
  CLT_PARALLEL_FOR_IF(shares > 1, schedule(static, 1) num_threads(shares),
  for (int t = 0; t < shares; t++) {
    int from = (int)((int64_t)nc * t / shares), to = (int)((int64_t)nc * (t + 1) / shares), out = at[t];
    for (int j = from; j < to; j++) {
      const clt_contact_t *ct = &w->contacts[j];
      double zbuf[CLT_Z_ROW_MAX];
      const double *z = clt_contact_z(w, j, zbuf);
      if (!(z[0] > 0.0)) continue; /* not pressing: the entry is dropped */
      memory_entry(world, w, &table, ct, z, m, &w->next_memory[out++]);
    }
  });
  w->next_memory_count = at[shares];
  /* The contacts come in pair order (the broad phase's pairs are sorted), so the entries usually
   * are in key order already: a sort would take a copy of the array (64 bytes per entry at the
   * step's peak) to sort it again. Keys are unique: either way the same order. */
  bool sorted = true;
  for (int i = 1; sorted && i < w->next_memory_count; i++)
    sorted = memory_order(&w->next_memory[i - 1], &w->next_memory[i]) < 0;
  if (!sorted && !clt_sort(w->next_memory, (size_t)w->next_memory_count, sizeof *w->next_memory, memory_order, &w->arena))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (contact memory)");
  return CLT_OK;
}
