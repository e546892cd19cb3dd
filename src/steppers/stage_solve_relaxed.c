/* Solve stage of the `relaxed` scheme (SPEC.md §1 table with s = 1, §2.3; 003 "convex
 * relaxation", 000 §4 case 2): one convex QP per step,
 *     min_v ½ vᵀM̂v − (M v⁽ˡ⁾ + h k̂)ᵀv
 *     s.t. (n_j + μ_j d_{j,i})ᵀ v ≥ −Δ_j   every active contact j, generator i    (polyhedral)
 *          n_jᵀ v + Δ_j ≥ μ_j ‖T_j v‖       every active contact j                  (circular)
 *          ν_iᵀ v = −Υ_i                    every joint row i.
 * (The same stages run scheme anitescu-hart on the circular cone: s = 0, Coulomb's law, solved by
 * the cone block Gauss–Seidel only; relaxed_bgs.c.) The QP is solved through its dual — by the
 * coloured cone block Gauss–Seidel of relaxed_bgs.c (method.solver bgs, or lemke, the default,
 * which does not apply to a QP) or, here, by APGD / BBPGD (and by
 * MPRGP for the polyhedral cone, whose dual has bounds only; it refuses the circular one). This file
 * also holds the scheme's collide stage (the swept active set) and contact stage (Δ). For APGD /
 * BBPGD: with G the stacked constraint rows (joint rows, then per contact its
 * generator rows g_{j,i} = n_j + μ_j d_{j,i}, or its rows (n_j, t1_j, t2_j) for the circular cone)
 * and v = v_free + M̂⁻¹ Gᵀ x, the dual is
 *     min_x ½ xᵀ A x + bᵀ x,   A = G M̂⁻¹ Gᵀ,  b = G v_free + (Υ | Δ_j | 0 for tangent rows),
 * x free on the joint rows, x_{j,i} ≥ 0 (polyhedral) or (x_N, x_T) ∈ {‖x_T‖ ≤ μ_j x_N} (the dual of
 * the second-order cone {a ≥ μ‖b‖} of the circular constraint). A is never formed: the operator
 * applies Gᵀ (per body, over that body's rows in row order), M̂⁻¹ and G (per row), each in parallel
 * with OpenMP with every output entry summed in one fixed order, so the product — and the solve —
 * is bit-identical for any thread count.
 *
 * Impulse of contact j: P_j = n_j Σ_i x_{j,i} + μ_j Σ_i x_{j,i} d_{j,i} (polyhedral) or
 * n_j x_N + t1 x_T1 + t2 x_T2 (circular). It is written into work->z in the layout of rows.h
 * (c_n, β_1…β_m, λ = 0): c_n = the normal part, Σ β_k d_k = the tangential part (polyhedral:
 * β_i = μ x_{j,i}; circular: on the two generators that bracket it), so the memory (warm start,
 * restitution) and the contact report are those of the other schemes. Warm start: the contact
 * memory (c_n, tangential impulse vector) of the last step (in a later solve of the step: of the
 * solve before), re-expressed on this step's generators (docs/stepping.md "The relaxed scheme");
 * joint impulses from the joint memory. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/algebra.h"
#include "base/pages.h"
#include "clatter/solvers.h"
#include "math/vec.h"
#include "solvers/body_rows.h"
#include "steppers/relaxed.h"
#include "base/parallel.h"

/* Below this many unknowns the products run on one thread: a parallel region per product costs
 * more than it saves on small problems, and spinning threads hurt on a loaded machine. The result
 * does not depend on it (every entry is summed in the same order either way). */
#define RELAXED_PARALLEL_MIN 4096
/* From this many broad-phase pairs the spreading computes its link times on every thread. */
#define RELAXED_SPREAD_PARALLEL_MIN 16384
/* At most this many solves per step (the stage "active set test"): the last one is kept whatever it
 * does. With the boxes spread one hop a solve reaches one grain further down a chain that an
 * impact pushes; in the 10⁵ pile at landing speeds of 28-35 m/s (t = 2.8-3.5 s) 4 solves left
 * bodies outside their boxes on 155 of the first 353 steps and let grains penetrate 16 mm; 8
 * solves left none and 0.45 mm (docs/design/granular.md "The swept active set"). */
#define RELAXED_SOLVES 8
/* A body that left its box demands its new velocity with this fraction of its change on either
 * side: the next solve, with more contacts, moves it a little further (first 300 steps of the
 * 8·10³ pile: 0.25 instead of 0 took the solves a step from 2.13 to 2.07 and the max penetration,
 * where 4 solves did not suffice, from 0.44 to 0.28 mm). */
#define RELAXED_DEMAND_MARGIN 0.25

/* The step's QP operator G M̂⁻¹ Gᵀ as a body-block operator (solvers/body_rows.h) over the rows of
 * the problem: their Jacobians in place in the clt_row_t records, M̂⁻¹ Jᵀ 12 per row, every body
 * accumulated (active NULL), scale 1. */
static clt_body_rows_t relaxed_operator(const clt_row_t *rows, const double *minv, int n, int bodies,
                                        const int *body_start, const int *body_entry, double *u) {
  _Static_assert(sizeof(clt_jacobian_row_t) == 12 * sizeof(double), "J_A, J_B: 12 doubles in a row record");
  _Static_assert(offsetof(clt_row_t, body_b) == offsetof(clt_row_t, body_a) + sizeof(int), "two body ints");
  clt_body_rows_t op = {.n = n, .bodies = bodies, .jac = n > 0 ? (const double *)(const void *)&rows[0].jac : NULL, .minv_jt = minv,
                        .body = n > 0 ? &rows[0].body_a : NULL, .jac_stride = sizeof *rows, .body_stride = sizeof *rows,
                        .body_start = body_start, .body_entry = body_entry, .active = NULL,
                        .active_count = bodies, .scale = 1.0, .u = u};
  return op;
}

/* y = G M̂⁻¹ Gᵀ x (an operator callback for the solvers of clatter/solvers.h). */
static void relaxed_apply(void *user, const double *x, double *y) {
  const clt_body_rows_t *op = user;
  clt_body_rows_apply(op, op->n >= RELAXED_PARALLEL_MIN, x, y);
}

static void side_minv(const clt_world_t *world, const clt_step_work_t *w, int body, const double lin[3],
                      const double ang[3], double out[6]) {
  memset(out, 0, 6 * sizeof *out);
  if (body < 0 || world->bodies[body].type != CLT_BODY_DYNAMIC) return;
  double im = w->inv_linear[body];
  const double *ia = w->inv_angular[body];
  for (int k = 0; k < 3; k++) {
    out[k] = im * lin[k];
    out[3 + k] = ia[3 * k] * ang[0] + ia[3 * k + 1] * ang[1] + ia[3 * k + 2] * ang[2];
  }
}


/* The step's QP (generator or cone-block form) in the relaxed workspace's buffers, which grow and
 * are kept (rows.h: no allocation once a run has settled). */
typedef struct relaxed_problem_t {
  int n, nj, nc, m, cone_dim;
  bool circular;
  clt_row_t *rows;
  double *minv, *b, *x, *y, *u, *mu;
  int *offset, *count, *body_start, *body_entry, *cone_start;
} relaxed_problem_t;

/* The buffers of a problem with nc contacts, n unknowns and nb bodies. */
static bool reserve_problem(clt_relaxed_work_t *r, int nc, int n, int nb) {
  if (nc + 1 > r->contact2_capacity) {
    int c1 = r->contact2_capacity, c2 = c1, c3 = c1, c4 = c1;
    if (!clt_step_work_grow((void **)&r->offset, &c1, nc + 1, sizeof(int)) ||
        !clt_step_work_grow((void **)&r->count, &c2, nc + 1, sizeof(int)) ||
        !clt_step_work_grow((void **)&r->mu, &c3, nc + 1, sizeof(double)) ||
        !clt_step_work_grow((void **)&r->cone_start, &c4, nc + 1, sizeof(int)))
      return false;
    r->contact2_capacity = c1;
  }
  if (n > r->row_capacity) {
    int c1 = r->row_capacity, c2 = c1, c3 = c1, c4 = c1, c5 = c1, c6 = c1;
    if (!clt_step_work_grow((void **)&r->rows, &c1, n, sizeof *r->rows) ||
        !clt_step_work_grow((void **)&r->minv, &c2, n, 12 * sizeof(double)) ||
        !clt_step_work_grow((void **)&r->b, &c3, n, sizeof(double)) || !clt_step_work_grow((void **)&r->x, &c4, n, sizeof(double)) ||
        !clt_step_work_grow((void **)&r->y, &c5, n, sizeof(double)) ||
        !clt_step_work_grow((void **)&r->body_entry, &c6, n, 2 * sizeof(int)))
      return false;
    r->row_capacity = c1;
  }
  if (nb + 1 > r->body2_capacity) {
    int c1 = r->body2_capacity, c2 = c1, c3 = c1;
    if (!clt_step_work_grow((void **)&r->u, &c1, nb + 1, 6 * sizeof(double)) ||
        !clt_step_work_grow((void **)&r->body_start, &c2, nb + 1, sizeof(int)) ||
        !clt_step_work_grow((void **)&r->fill, &c3, nb + 1, sizeof(int)))
      return false;
    r->body2_capacity = c1;
  }
  return true;
}

/* Rows of G, their M̂⁻¹ Jᵀ, b and the per-body row lists. */
static bool build_problem(clt_world_t *world, clt_step_work_t *w, clt_relaxed_work_t *r, relaxed_problem_t *q) {
  int nj = w->joint_rows, nc = w->contact_count, m = w->friction_directions;
  int nb = world->body_count;
  q->nj = nj;
  q->nc = nc;
  q->m = m;
  q->circular = clt_method_effective_cone(world) == CLT_CONE_CIRCULAR;
  q->cone_dim = world->dimension == 2 ? 2 : 3;
  if (!reserve_problem(r, nc, 0, 0)) return false;
  q->offset = r->offset;
  q->count = r->count;
  q->mu = r->mu;
  q->cone_start = r->cone_start;
  int n = nj;
  for (int j = 0; j < nc; j++) {
    double mu = w->contacts[j].friction;
    q->mu[j] = mu;
    q->offset[j] = n;
    q->cone_start[j] = n;
    /* polyhedral: m generators, or the normal alone without friction (m equal generators would
     * only make the dual degenerate) */
    q->count[j] = q->circular ? q->cone_dim : (mu > 0.0 ? m : 1);
    n += q->count[j];
  }
  q->n = n;
  if (!reserve_problem(r, nc, n > 0 ? n : 1, nb)) return false;
  q->rows = r->rows;
  q->minv = r->minv;
  q->b = r->b;
  q->x = r->x;
  q->y = r->y;
  q->u = r->u;
  q->body_start = r->body_start;
  q->body_entry = r->body_entry;
  memset(q->x, 0, sizeof(double) * (size_t)(n > 0 ? n : 1));
  memset(q->u, 0, 6 * sizeof(double) * (size_t)(nb + 1));
  memset(q->body_start, 0, sizeof(int) * (size_t)(nb + 1));

  for (int p = 0; p < nj; p++) {
    q->rows[p] = w->rows[p];
    q->b[p] = w->row_bias[p];
  }
  for (int j = 0; j < nc; j++) {
    const clt_contact_t *ct = &w->contacts[j];
    double delta = r->delta[j];
    int o = q->offset[j];
    double t1[3], t2[3];
    clt_contact_tangents(world, ct->normal, t1, t2);
    if (q->circular) {
      clt_contact_row(world, ct, ct->normal, &q->rows[o]);
      q->b[o] = delta;
      clt_contact_row(world, ct, t1, &q->rows[o + 1]);
      q->b[o + 1] = 0.0;
      if (q->cone_dim == 3) {
        clt_contact_row(world, ct, t2, &q->rows[o + 2]);
        q->b[o + 2] = 0.0;
      }
    } else {
      for (int i = 0; i < q->count[j]; i++) {
        double g[3];
        clt_v3_copy(g, ct->normal);
        if (q->mu[j] > 0.0) {
          double d[3];
          clt_friction_direction(world, t1, t2, i, m, d);
          clt_v3_axpy(g, g, q->mu[j], d);
        }
        clt_contact_row(world, ct, g, &q->rows[o + i]);
        q->b[o + i] = delta;
      }
    }
  }
  for (int p = 0; p < n; p++) {
    const clt_row_t *rw = &q->rows[p];
    q->b[p] += clt_row_velocity(world, rw); /* G v_free (+ kinematic bodies' prescribed velocity) */
    side_minv(world, w, rw->body_a, rw->jac.linear_a, rw->jac.angular_a, q->minv + 12 * (size_t)p);
    side_minv(world, w, rw->body_b, rw->jac.linear_b, rw->jac.angular_b, q->minv + 12 * (size_t)p + 6);
  }
  /* per-body lists of (row, side), rows increasing: a fixed summation order for Gᵀ x */
  for (int p = 0; p < n; p++) {
    const clt_row_t *rw = &q->rows[p];
    if (rw->body_a >= 0 && world->bodies[rw->body_a].type == CLT_BODY_DYNAMIC) q->body_start[rw->body_a + 1]++;
    if (rw->body_b >= 0 && world->bodies[rw->body_b].type == CLT_BODY_DYNAMIC) q->body_start[rw->body_b + 1]++;
  }
  for (int i = 0; i < nb; i++) q->body_start[i + 1] += q->body_start[i];
  int *fill = r->fill;
  if (nb > 0) memcpy(fill, q->body_start, sizeof(int) * (size_t)nb);
  for (int p = 0; p < n; p++) {
    const clt_row_t *rw = &q->rows[p];
    if (rw->body_a >= 0 && world->bodies[rw->body_a].type == CLT_BODY_DYNAMIC) q->body_entry[fill[rw->body_a]++] = 2 * p;
    if (rw->body_b >= 0 && world->bodies[rw->body_b].type == CLT_BODY_DYNAMIC)
      q->body_entry[fill[rw->body_b]++] = 2 * p + 1;
  }
  return true;
}

/* Starting point from the memory of the last step (rows.h), or in a later solve of the step from
 * the solve before (the stage "active set test"): joint impulses by joint and
 * component; a contact's (c_n, T = Σβ_k d_k) becomes generator multipliers with Σx = c_n and
 * μ Σ x_i d_i = T — T/μ on the two generators that bracket it, the rest of c_n spread evenly over
 * all m (Σ_i d_i = 0 for balanced directions), scaled into the cone if T/μ alone exceeds c_n — or
 * the cone block (c_n, T·t1, T·t2) (the solver projects it onto the cone). */
static void warm_start(const clt_world_t *world, const clt_step_work_t *w, relaxed_problem_t *q) {
  memset(q->x, 0, sizeof(double) * (size_t)q->n);
  for (int p = 0; p < q->nj && w->joint_impulse; p++) {
    int owner = w->joint_row_owner[p];
    if (CLT_JOINT_SLOTS * owner + 6 <= w->joint_impulse_capacity)
      q->x[p] = w->joint_impulse[CLT_JOINT_SLOTS * owner + w->joint_row_component[p]];
  }
  for (int j = 0; j < q->nc; j++) {
    const clt_contact_t *ct = &w->contacts[j];
    const clt_relaxed_work_t *r = w->relaxed; /* a later solve of the step: the last solve's */
    const clt_contact_memory_t *mem =
        r->round_warm ? clt_find_memory_entry(r->round_memory, r->round_memory_count, ct->shape_a, ct->shape_b, ct->feature)
                      : clt_find_contact_memory(w, ct->shape_a, ct->shape_b, ct->feature);
    if (!mem || !(mem->normal_impulse > 0.0)) continue;
    double cn = mem->normal_impulse;
    double t1[3], t2[3];
    clt_contact_tangents(world, ct->normal, t1, t2);
    double a1 = clt_v3_dot(mem->tangent_impulse, t1), a2 = clt_v3_dot(mem->tangent_impulse, t2);
    double *x = q->x + q->offset[j];
    if (q->circular) {
      x[0] = cn;
      x[1] = a1;
      if (q->cone_dim == 3) x[2] = a2;
      continue;
    }
    if (q->count[j] == 1) {
      x[0] = cn;
      continue;
    }
    int k0, k1;
    double alpha, beta;
    clt_relaxed_bracket(NULL, NULL, world->dimension, q->m, a1, a2, &k0, &k1, &alpha, &beta);
    alpha /= q->mu[j];
    beta /= q->mu[j];
    double rest = cn - alpha - beta;
    if (rest < 0.0) {
      double s = cn / (alpha + beta);
      alpha *= s;
      beta *= s;
      rest = 0.0;
    }
    for (int i = 0; i < q->m; i++) x[i] = rest / (double)q->m;
    x[k0] += alpha;
    x[k1] += beta;
  }
}

/* The dual solution into work->z (layout of rows.h). */
static void write_impulses(const clt_world_t *world, clt_step_work_t *w, const relaxed_problem_t *q, bool usable) {
  int m = w->friction_directions, blk = m + 2, nstd = q->nj + q->nc * blk;
  memset(w->z, 0, sizeof(double) * (size_t)nstd);
  if (!usable) return;
  for (int p = 0; p < q->nj; p++) w->z[p] = q->x[p];
  for (int j = 0; j < q->nc; j++) {
    const double *x = q->x + q->offset[j];
    double *z = w->z + q->nj + j * blk;
    if (q->circular) {
      z[0] = x[0];
      int k0, k1;
      double alpha, beta;
      clt_relaxed_bracket(NULL, NULL, world->dimension, m, x[1], q->cone_dim == 3 ? x[2] : 0.0, &k0, &k1, &alpha, &beta);
      z[1 + k0] += alpha;
      z[1 + k1] += beta;
    } else if (q->count[j] == 1) {
      z[0] = x[0];
    } else {
      double cn = 0.0;
      for (int i = 0; i < m; i++) {
        cn += x[i];
        z[1 + i] = q->mu[j] * x[i];
      }
      z[0] = cn;
    }
  }
}

/* A solve that missed the tolerance: recorded (always), logged or fatal per method.on_unconverged. */
static clt_status_t report_unsolved(clt_step_context_t *c, clt_solver_status_t status, double residual,
                                    const char *message) {
  clt_world_t *world = c->world;
  if (status == CLT_SOLVE_SOLVED) return CLT_OK;
  const char *what = clt_solver_status_name(status);
  int size = c->diagnostics->lcp_size;
  if (world->method.on_unconverged == CLT_UNCONVERGED_ABORT)
    return clt_world_fail(world, CLT_ERR_SOLVER, "step %lld: the relaxed QP (size %d) was not solved: %s, residual %.3g%s%s",
                          (long long)c->step, size, what, residual, message[0] ? ": " : "", message);
  if (world->method.on_unconverged == CLT_UNCONVERGED_WARN)
    clt_world_log(world, CLT_LOG_WARNING, "step %lld: the relaxed QP (size %d) was not solved: %s, residual %.3g",
                  (long long)c->step, size, what, residual);
  return CLT_OK;
}

clt_relaxed_work_t *clt_relaxed_work(clt_step_work_t *work) {
  if (!work->relaxed) {
    work->relaxed = calloc(1, sizeof *work->relaxed);
    if (!work->relaxed) return NULL;
    work->relaxed->sweep = &work->sweep;
    work->sweep.active = true;
  }
  return work->relaxed;
}

static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }

/* The earliest time at which a separation s along one direction closes when the closing speed is
 * w0 until t0 and at most wmax ≥ w0 after; INFINITY: never. */
static double close_time(double s, double w0, double wmax, double t0) {
  if (s <= 0.0) return 0.0;
  double w = dmax(w0, 0.0);
  if (w * t0 >= s) return s / w;
  if (!(wmax > 0.0)) return INFINITY;
  return t0 + (s - w * t0) / wmax;
}

/* max and min of nᵀv over the velocity box [lo, hi] */
static double box_max_dot(const double n[3], const double *lo, const double *hi) {
  double d = 0.0;
  for (int k = 0; k < 3; k++) d += n[k] * (n[k] >= 0.0 ? hi[k] : lo[k]);
  return d;
}
static double box_min_dot(const double n[3], const double *lo, const double *hi) {
  double d = 0.0;
  for (int k = 0; k < 3; k++) d += n[k] * (n[k] >= 0.0 ? lo[k] : hi[k]);
  return d;
}

/* Body i's linear velocity over the step as clt_stage_relaxed_collide recorded it. */
static const double *body_velocity(const clt_relaxed_work_t *r, int i) {
  return r->sweep->u0 + 3 * (size_t)i;
}

/* The earliest time within the step at which the shapes of broad-phase pair (p, q) can touch, given
 * each body's velocity box (clt_stage_relaxed_collide), or INFINITY. The proxies' bounds are those
 * of the broad phase under the own sweeps; taken back to the bounds now, the boxes must close
 * along every axis they are apart on (a half-space: along its normal), each at the pair's start
 * relative velocity until the first of the two boxes opened, and at most the boxes' largest
 * closing speed after. Conservative: bounds contain the shapes, and the slack the rotation and
 * acceleration terms. */
static double link_time(const clt_world_t *world, const clt_step_work_t *w, const clt_relaxed_work_t *r, int sp, int sq,
                        double slack) {
  const clt_broadphase_proxy_t *p = &w->proxies[sp], *q = &w->proxies[sq];
  int a = p->body, b = q->body;
  double t0 = dmin(r->sweep->vt[a], r->sweep->vt[b]);
  const double *la = r->sweep->vlo + 3 * (size_t)a, *ha = r->sweep->vhi + 3 * (size_t)a;
  const double *lb = r->sweep->vlo + 3 * (size_t)b, *hb = r->sweep->vhi + 3 * (size_t)b;
  const double *ua = body_velocity(r, a), *ub = body_velocity(r, b);
  if (p->unbounded || q->unbounded) {
    const clt_broadphase_proxy_t *pl = p->unbounded ? p : q, *o = p->unbounded ? q : p;
    if (!pl->has_plane || o->unbounded) return 0.0;
    int P = pl->body, O = o->body;
    const double *n = pl->plane_normal;
    double centre = 0.0, half = 0.0;
    const double *eo = r->sweep->own + 6 * (size_t)O;
    for (int k = 0; k < 3; k++) {
      double lo = o->lower[k] + eo[k], hi = o->upper[k] - eo[3 + k];
      centre += n[k] * 0.5 * (lo + hi);
      half += fabs(n[k]) * 0.5 * (hi - lo);
    }
    double s = centre - half - (pl->plane_offset - clt_sweep_reach(r->sweep->own + 6 * (size_t)P));
    const double *uP = body_velocity(r, P), *uO = body_velocity(r, O);
    double w0 = clt_v3_dot(n, uP) - clt_v3_dot(n, uO);
    double wmax = box_max_dot(n, r->sweep->vlo + 3 * (size_t)P, r->sweep->vhi + 3 * (size_t)P) -
                  box_min_dot(n, r->sweep->vlo + 3 * (size_t)O, r->sweep->vhi + 3 * (size_t)O);
    return close_time(s - slack, w0, wmax, t0);
  }
  double tau = 0.0;
  for (int k = 0; k < world->dimension; k++) {
    const double *ea = r->sweep->own + 6 * (size_t)a, *eb = r->sweep->own + 6 * (size_t)b;
    double loa = p->lower[k] + ea[k], hia = p->upper[k] - ea[3 + k];
    double lob = q->lower[k] + eb[k], hib = q->upper[k] - eb[3 + k];
    double t;
    if (lob - hia >= loa - hib) /* b above a along k: a must gain on b */
      t = close_time(lob - hia - slack, ua[k] - ub[k], ha[k] - lb[k], t0);
    else
      t = close_time(loa - hib - slack, ub[k] - ua[k], hb[k] - la[k], t0);
    tau = dmax(tau, t);
  }
  return tau;
}

/* One hop of the velocity boxes (clt_stage_relaxed_collide) over the pairs of the broad phase
 * under the own sweeps: a pair that can touch within the step under the boxes the step starts
 * with (link_time ≤ h) gives each of its dynamic bodies the hull of its own and its partner's
 * start box, from the earliest such time on. Two dynamic bodies whose bounds touch already pass
 * nothing on. What an impact does further on, through a chain of grains, is for the test after
 * the solve (the stage "active set test"): the bodies it moves out of their boxes demand their new
 * velocities, and the next solve's hop starts from those. Every pair reads only the start boxes
 * (box0), so the boxes do not depend on the order of the pairs or the thread count. false: out of
 * memory. */
static bool spread_boxes(const clt_world_t *world, const clt_step_work_t *w, clt_relaxed_work_t *r, double h,
                         double eps, const clt_broadphase_pair_t *pairs, int np) {
  const int *body = r->sweep->shape_body; /* (pair k's bodies: body[pairs[k].a], body[pairs[k].b]) */
  int nb = world->body_count;
  if (np > r->sweep->link_capacity) {
    double *l = realloc(r->sweep->link, (size_t)np * sizeof *l);
    if (!l) return false;
    r->sweep->link = l;
    r->sweep->link_capacity = np;
  }
  /* (guided: a pair with a wall or a falling grain costs more than one in the settled bed, and the
   * pairs come sorted by proxy: equal shares left one thread waiting a third of the loop) */
  CLT_PARALLEL_FOR_IF(np >= RELAXED_SPREAD_PARALLEL_MIN, schedule(guided, 1024),
  for (int k = 0; k < np; k++) {
    int a = body[pairs[k].a], b = body[pairs[k].b];
    bool da = world->bodies[a].type == CLT_BODY_DYNAMIC, db = world->bodies[b].type == CLT_BODY_DYNAMIC;
    double tau = da || db ? link_time(world, w, r, pairs[k].a, pairs[k].b, eps + r->sweep->slack[a] + r->sweep->slack[b]) : INFINITY;
    r->sweep->link[k] = tau <= h && !(da && db && !(tau > 0.0)) ? tau : INFINITY;
  });
  CLT_PARALLEL_FOR_IF(nb >= RELAXED_PARALLEL_MIN, schedule(static),
  for (int i = 0; i < nb; i++) {
    memcpy(r->sweep->box0 + 6 * (size_t)i, r->sweep->vlo + 3 * (size_t)i, 3 * sizeof *r->sweep->box0);
    memcpy(r->sweep->box0 + 6 * (size_t)i + 3, r->sweep->vhi + 3 * (size_t)i, 3 * sizeof *r->sweep->box0);
  });
  /* (min and max of start values: any order gives the same boxes) */
  for (int k = 0; k < np; k++) {
    double tau = r->sweep->link[k];
    if (!(tau <= h)) continue;
    int a = body[pairs[k].a], b = body[pairs[k].b];
    for (int side = 0; side < 2; side++) {
      int i = side ? b : a, j = side ? a : b;
      if (world->bodies[i].type != CLT_BODY_DYNAMIC) continue;
      double *vl = r->sweep->vlo + 3 * (size_t)i, *vh = r->sweep->vhi + 3 * (size_t)i;
      const double *jb = r->sweep->box0 + 6 * (size_t)j;
      for (int d = 0; d < 3; d++) {
        vl[d] = dmin(vl[d], jb[d]);
        vh[d] = dmax(vh[d], jb[3 + d]);
      }
      r->sweep->vt[i] = dmin(r->sweep->vt[i], tau);
    }
  }
  /* the links and start boxes are dead until the next spreading (base/pages.h) */
  clt_work_release(w, r->sweep->link, (size_t)r->sweep->link_capacity * sizeof *r->sweep->link);
  clt_work_release(w, r->sweep->box0, (size_t)r->body_capacity * 6 * sizeof *r->sweep->box0);
  return true;
}

clt_status_t clt_stage_relaxed_collide(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  clt_relaxed_work_t *r = clt_relaxed_work(w);
  if (!r || !clt_relaxed_reserve(r, 0, world->body_count))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "collide: out of memory");
  double h = c->h, eps = world->method.active_set_eps;
  int nb = world->body_count;
  /* Own sweep: in free flight body i's surface moves by h u_i, plus at most slack_i = h(h|a_i| +
   * |ω_i| R_i) in any direction; its bounds grow by that along each axis (own: 3 below, 3 above). */
  CLT_PARALLEL_FOR_IF(nb >= RELAXED_PARALLEL_MIN, schedule(static),
  for (int i = 0; i < nb; i++) {
    if (r->round > 0) { /* a later solve of the step: the same state, so the same u, slack and own */
      for (int k = 0; k < 3; k++) r->sweep->vlo[3 * (size_t)i + k] = r->sweep->vhi[3 * (size_t)i + k] = r->sweep->u0[3 * (size_t)i + k];
      r->sweep->vt[i] = h;
      continue;
    }
    const clt_body_rec_t *b = &world->bodies[i];
    const clt_body_state_t *s = &world->states[i];
    /* the velocity the step moves it with: 0 for a static body, a kinematic one's mean over the
     * step (clt_body_velocity6; a shaken container's differs from its velocity at t by up to
     * ½|a|h: 1.5 m/s in scenes/papers/brazilnut.json, 2.0 m/s in brazilnut2d.json) */
    double v6[6];
    clt_body_velocity6(world, i, v6);
    double *u = r->sweep->u0 + 3 * (size_t)i;
    u[0] = v6[0];
    u[1] = v6[1];
    u[2] = world->dimension == 2 ? 0.0 : v6[2];
    r->sweep->slack[i] = 0.0;
    double *own = r->sweep->own + 6 * (size_t)i;
    for (int k = 0; k < 6; k++) own[k] = 0.0;
    for (int k = 0; k < 3; k++) r->sweep->vlo[3 * (size_t)i + k] = r->sweep->vhi[3 * (size_t)i + k] = u[k];
    r->sweep->vt[i] = h;
    if (b->type == CLT_BODY_STATIC) continue;
    double acc[3];
    for (int k = 0; k < 3; k++) acc[k] = b->type == CLT_BODY_DYNAMIC ? world->gravity[k] + world->force_acc[i][k] * b->inv_mass : 0.0;
    double spin = world->dimension == 2 ? fabs(s->angular_velocity[0]) : clt_v3_norm(s->angular_velocity);
    bool unbounded; /* a half-space adds no finite reach: its motion is in the other terms */
    double reach = spin > 0.0 ? clt_body_rotation_reach(world, i, &unbounded) : 0.0;
    r->sweep->slack[i] = h * (h * clt_v3_norm(acc) + spin * reach);
    for (int k = 0; k < 3; k++) {
      own[k] = r->sweep->slack[i] + dmax(0.0, -h * u[k]);
      own[3 + k] = r->sweep->slack[i] + dmax(0.0, h * u[k]);
    }
  });
  /* From last step's contacts (the memory): a contact that bore may bear at a gap up to h μ |slip|
   * (stage_collide.c, point_can_close), slip ≤ the two bodies' |u| + |ω| extent, so a body with
   * such a contact grows its bounds by h max μ (|u| + |ω| extent) on every side (below; a block
   * sliding at 1.2 m/s on a slope rides 3.6 mm above it); a pending rebound (SPEC.md §1) asks a
   * separation e|v_pre| this step, which is outside the hull of the velocities, so both bodies'
   * boxes take in u ± max e |v_pre| on every axis before the spreading. */
  double mu_max = 0.0, e_max = 0.0;
  for (int m = 0; m < world->material_count; m++) {
    const clt_material_rec_t *mat = &world->materials[m];
    mu_max = fmax(mu_max, mat->friction);
    e_max = fmax(e_max, mat->restitution);
  }
  /* (a later solve of the step: the same memory, so the same bearing flags; only the rebounds'
   * boxes, reset above, are taken in again) */
  bool kicks = e_max > 0.0 && w->memory_count > 0;
  if (r->round == 0) {
    if (nb > 0) memset(r->sweep->bearing, 0, (size_t)nb); /* (NULL before the first body) */
    /* each shape's body (the memory's keys and the broad phase's pairs are shapes) */
    if (!clt_step_work_grow((void **)&r->sweep->shape_body, &r->sweep->shape_body_capacity, world->shape_count, sizeof(int)))
      return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "collide: out of memory");
    CLT_PARALLEL_FOR_IF(nb >= RELAXED_PARALLEL_MIN, schedule(static),
    for (int i = 0; i < nb; i++)
      for (int k = 0; k < world->bodies[i].shape_count; k++) r->sweep->shape_body[world->bodies[i].shape_first + k] = i;
    );
  }
  if (r->round == 0 && (mu_max > 0.0 || kicks) && w->memory_count > 0) {
    /* the bodies of a contact that bore last step (flags only: any order, any thread) */
    int nm = w->memory_count;
    CLT_PARALLEL_FOR_IF(nm >= RELAXED_PARALLEL_MIN, schedule(static),
    for (int k = 0; k < nm; k++) {
      const clt_contact_memory_t *m = &w->memory[k];
      if (!(m->normal_impulse > 0.0)) continue;
      int sh[2] = {m->shape_a, m->shape_b};
      for (int q = 0; q < 2; q++) {
        if (sh[q] < 0 || sh[q] >= world->shape_count) continue;
        unsigned char *flag = &r->sweep->bearing[r->sweep->shape_body[sh[q]]];
        CLT_PRAGMA_(omp atomic write)
        *flag = 1;
      }
    });
  }
  if (kicks) { /* the pending rebounds, in every solve of the step (their boxes were reset above) */
    for (int k = 0; k < w->memory_count; k++) {
      const clt_contact_memory_t *m = &w->memory[k];
      double kick = m->restitution_state == CLT_RESTITUTION_PENDING ? e_max * fabs(m->pre_velocity) : 0.0;
      if (!(kick > 0.0)) continue;
      int sh[2] = {m->shape_a, m->shape_b};
      for (int q = 0; q < 2; q++) {
        if (sh[q] < 0 || sh[q] >= world->shape_count) continue;
        int b = r->sweep->shape_body[sh[q]];
        if (world->bodies[b].type != CLT_BODY_DYNAMIC) continue;
        r->sweep->vt[b] = 0.0; /* from the start of the step */
        for (int d = 0; d < world->dimension; d++) {
          double u = r->sweep->u0[3 * (size_t)b + d];
          r->sweep->vlo[3 * (size_t)b + d] = dmin(r->sweep->vlo[3 * (size_t)b + d], u - kick);
          r->sweep->vhi[3 * (size_t)b + d] = dmax(r->sweep->vhi[3 * (size_t)b + d], u + kick);
        }
      }
    }
  }
  /* the velocities an earlier solve of this step gave (the stage "active set test"), from its start */
  if (r->round > 0) {
    CLT_PARALLEL_FOR_IF(nb >= RELAXED_PARALLEL_MIN, schedule(static),
    for (int i = 0; i < nb; i++) {
      if (!r->demanded[i]) continue;
      const double *dm = r->demand + 6 * (size_t)i;
      r->sweep->vt[i] = 0.0;
      for (int k = 0; k < 3; k++) {
        r->sweep->vlo[3 * (size_t)i + k] = dmin(r->sweep->vlo[3 * (size_t)i + k], dm[k]);
        r->sweep->vhi[3 * (size_t)i + k] = dmax(r->sweep->vhi[3 * (size_t)i + k], dm[3 + k]);
      }
    });
  }
  /* Contacts change velocities within the step: a grain falling onto one that has just stopped, or
   * one resting next to a fast one, closes a gap its start-of-step velocity does not predict. Each
   * body gets a box of the velocities it may have after time vt_i of the step (before: u_i), grown
   * from {u_i} by every broad-phase partner (under the own sweeps) it can touch within the step:
   * an inelastic impact leaves both in the hull of their velocities (static ones count as u = 0).
   * Touching is decided by link_time, and a grain sliding past a wall gets nothing from it (the
   * spreading before gave every grain within h|u| of a wall an extra h|u| and passed it through
   * the column: 8.2·10⁵ contacts in the falling 10⁵ pile at t = 0.4 s, then 6.4·10³). Two dynamic
   * bodies that touch already pass nothing on (through them the hull reached every grain of a
   * landed pile: 2.0·10⁵ contacts in the 10⁵ pile at t = 1.3 s, then 5.3·10⁴). One hop only
   * (spread_boxes): the boxes a partner got from its own partners are not passed on. Passed on
   * until nothing changed, the hull of a 30 m/s impact filled the landed grains within 10 m of
   * the 10⁵ pile's landing front, at gaps they do not close: 3.5·10⁵ of its 4.8·10⁵ contacts
   * at t = 2.6 s had gaps ≥ 5 cm and 32 of them bore, and 1.1·10⁶ contacts at t = 3.2 s made a
   * step take 19 s (docs/design/granular.md "The swept active set"). The test after the solve finds the
   * bodies that an impact passed down a chain moves out of their boxes, and the next solve's hop
   * starts from their new velocities. A function of the state only, the same for any thread
   * count. */
  double glo0 = 0.0, glo1 = 0.0, glo2 = 0.0, ghi0 = 0.0, ghi1 = 0.0, ghi2 = 0.0; /* min / max: any order */
  CLT_PARALLEL_FOR_IF(nb >= RELAXED_PARALLEL_MIN, schedule(static) reduction(min : glo0, glo1, glo2) reduction(max : ghi0, ghi1, ghi2),
  for (int i = 0; i < nb; i++) {
    const double *vl = r->sweep->vlo + 3 * (size_t)i, *vh = r->sweep->vhi + 3 * (size_t)i;
    glo0 = dmin(glo0, vl[0]);
    glo1 = dmin(glo1, vl[1]);
    glo2 = dmin(glo2, vl[2]);
    ghi0 = dmax(ghi0, vh[0]);
    ghi1 = dmax(ghi1, vh[1]);
    ghi2 = dmax(ghi2, vh[2]);
  });
  double glo[3] = {glo0, glo1, glo2}, ghi[3] = {ghi0, ghi1, ghi2};
  double span[3] = {ghi[0] - glo[0], ghi[1] - glo[1], ghi[2] - glo[2]};
  if (r->round == 0) r->slow = h * clt_v3_norm(span) <= eps;
  if (r->slow) {
    /* Everything slow (a settled pile): every box is the hull of all velocities and 0 from the
     * start of the step, which moves no pair by more than (1 + 2e)ε̂ with the widening below;
     * cheaper than the broad phase it would take to find the partners. A later solve of the step
     * that began so keeps to it, so that its set contains the first's. */
    CLT_PARALLEL_FOR_IF(nb >= RELAXED_PARALLEL_MIN, schedule(static),
    for (int i = 0; i < nb; i++)
      if (world->bodies[i].type == CLT_BODY_DYNAMIC) {
        memcpy(r->sweep->vlo + 3 * (size_t)i, glo, sizeof glo);
        memcpy(r->sweep->vhi + 3 * (size_t)i, ghi, sizeof ghi);
        r->sweep->vt[i] = 0.0;
      });
  } else {
    /* the broad phase under the own sweeps: the step's first solve runs it and keeps its pairs,
     * the later ones (the same state and sweeps) only place the proxies again */
    clt_status_t st =
        r->round == 0 ? clt_broad_phase_pairs(world, w, eps, r->sweep->own) : clt_place_proxies(world, w, r->sweep->own);
    if (st != CLT_OK) return st;
    if (r->round == 0) {
      int np = w->broadphase.pair_count;
      if (!clt_step_work_grow((void **)&r->sweep->own_pairs, &r->sweep->own_pair_capacity, np, sizeof *r->sweep->own_pairs))
        return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "collide: out of memory");
      if (np > 0) memcpy(r->sweep->own_pairs, w->broadphase.pairs, (size_t)np * sizeof *r->sweep->own_pairs);
      r->sweep->own_pair_count = np;
    }
    if (!spread_boxes(world, w, r, h, eps, r->sweep->own_pairs, r->sweep->own_pair_count))
      return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "collide: out of memory");
  }
  /* A bounce leaves the hull by up to e times its width (a light grain struck by a heavy one):
   * pair_reach (stage_collide.c) widens the boxes of dynamic bodies once by max e times their
   * width (widening at every link would compound along the chain). What else leaves the boxes —
   * the push of grains that already touch, the relaxed cone's separation μ‖T v⁺‖ of a sliding
   * contact — is found after the solve (the stage "active set test"). Widening by μ against static
   * bodies, as before that test, put grains falling past a wall 2–3 cm off in contact with it, and
   * the cone then pushed them off it at μ|u| − Φ/h (3.7 m/s at 12.7 m/s): in the 10⁵ pile those
   * grains stirred the falling column up to 12 m above the landed pile (with the test and that
   * widening: 2.8·10⁵ contacts and 6.3 mm penetration at t = 1.4 s). Then each body's bounds grow, along each axis, by how far
   * it can move with a velocity in its widest box: vt u + (h − vt) v, plus its slack. */
  r->sweep->widen = e_max;
  /* (a later solve: which bodies' margins changed since the solve before, whose broad phase is
   * then only updated; a sum over the bodies: any order) */
  bool update = r->round > 0 && r->sweep->ext_pairs_valid;
  int changes = 0;
  r->sweep->reuse_valid = false; /* the kept pairs' allowances are ext (clt_sweep_keep_pairs) */
  CLT_PARALLEL_FOR_IF(nb >= RELAXED_PARALLEL_MIN, schedule(static) reduction(+ : changes),
  for (int i = 0; i < nb; i++) {
    double *ext = r->sweep->ext + 6 * (size_t)i, before[6];
    if (update) memcpy(before, ext, sizeof before);
    for (int d = 0; d < 6; d++) ext[d] = 0.0;
    if (world->bodies[i].type == CLT_BODY_STATIC) {
      if (update) changes += r->sweep->ext_changed[i] = memcmp(before, ext, sizeof before) != 0;
      continue;
    }
    double ride = 0.0;
    if (r->sweep->bearing[i]) {
      const clt_body_state_t *st = &world->states[i];
      double spin = world->dimension == 2 ? fabs(st->angular_velocity[0]) : clt_v3_norm(st->angular_velocity);
      double extent = spin > 0.0 ? clt_body_extent(world, i) : 0.0;
      ride = h * mu_max * (clt_v3_norm(body_velocity(r, i)) + spin * dmax(extent, 0.0)); /* (an unbounded
                                                    shape's rotation is in its slack) */
    }
    const double *vl = r->sweep->vlo + 3 * (size_t)i, *vh = r->sweep->vhi + 3 * (size_t)i, *u = body_velocity(r, i);
    double f = world->bodies[i].type == CLT_BODY_DYNAMIC ? r->sweep->widen : 0.0, t = r->sweep->vt[i];
    for (int d = 0; d < 3; d++) {
      double extra = f * (vh[d] - vl[d]);
      double lo = t * u[d] + (h - t) * (vl[d] - extra), hi = t * u[d] + (h - t) * (vh[d] + extra);
      ext[d] = r->sweep->slack[i] + ride + dmax(0.0, -lo);
      ext[3 + d] = r->sweep->slack[i] + ride + dmax(0.0, hi);
    }
    if (update) changes += r->sweep->ext_changed[i] = memcmp(before, ext, sizeof before) != 0;
  });
  r->sweep->ext_changes = update ? changes : nb;
  clt_status_t st = clt_find_contacts_swept(world, w, eps, r->sweep->ext);
  if (st == CLT_OK) clt_sweep_keep_pairs(world, w, eps);
  r->sweep->ext_pairs_valid = st == CLT_OK; /* (clt_find_contacts_swept leaves the pairs under ext) */
  return st;
}

/* After a solve: marks every dynamic body whose motion h v⁺ left the motions its box allowed
 * (t u + (h − t)[vlo, vhi] along each axis, t its opening time, ± its slack h(h|a| + |ω|R):
 * clt_stage_relaxed_collide) by more than `allow` summed over the axes, and makes it demand of the
 * next solve v⁺ ± (margin + RELAXED_DEMAND_MARGIN |v⁺ − u|) per axis, from the start of the step.
 * Returns how many were marked (mark false: only counts them). A point left out of the set has a gap above ε̂ plus its closing
 * under the two boxes (stage_collide.c, point_can_close): with both bodies within ε̂/4 of their
 * boxes it still cannot overlap at the end of the step. */
static int mark_demands(clt_world_t *world, clt_relaxed_work_t *r, double h, double allow, double margin, bool mark) {
  int nb = world->body_count, marked = 0;
  CLT_PARALLEL_FOR_IF(nb >= RELAXED_PARALLEL_MIN, schedule(static) reduction(+ : marked),
  for (int i = 0; i < nb; i++) {
    if (world->bodies[i].type != CLT_BODY_DYNAMIC) continue;
    const double *v = world->states[i].velocity, *u = body_velocity(r, i);
    const double *lo = r->sweep->vlo + 3 * (size_t)i, *hi = r->sweep->vhi + 3 * (size_t)i;
    double t = r->sweep->vt[i], out = 0.0, vp[3] = {v[0], v[1], world->dimension == 2 ? 0.0 : v[2]};
    for (int k = 0; k < 3; k++) {
      double x = h * vp[k], a = t * u[k] + (h - t) * lo[k], b = t * u[k] + (h - t) * hi[k];
      out += dmax(0.0, dmax(a - x, x - b) - r->sweep->slack[i]);
    }
    if (!(out > allow)) continue; /* (a NaN is left to the step's own checks) */
    marked++;
    if (!mark) continue;
    double *dm = r->demand + 6 * (size_t)i;
    if (!r->demanded[i])
      for (int k = 0; k < 3; k++) dm[k] = dm[3 + k] = vp[k];
    r->demanded[i] = 1;
    for (int k = 0; k < 3; k++) {
      double m = margin + RELAXED_DEMAND_MARGIN * fabs(vp[k] - u[k]);
      dm[k] = dmin(dm[k], vp[k] - m);
      dm[3 + k] = dmax(dm[3 + k], vp[k] + m);
    }
  });
  return marked;
}

static uint64_t key_mix(uint64_t x) { /* splitmix64's finaliser: a bijection that spreads every bit */
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* A digest of the step's contact keys in order (two solves with the same count and digest had the
 * same set: the stage "active set test"): the sum of one mixed value per contact and its position, so
 * that it is summed in parallel, to the same value for any thread count. */
static uint64_t contact_keys(const clt_step_work_t *w) {
  uint64_t x = 0;
  int n = w->contact_count;
  CLT_PARALLEL_FOR_IF(n >= RELAXED_PARALLEL_MIN, schedule(static) reduction(+ : x),
  for (int j = 0; j < n; j++) {
    const clt_contact_t *ct = &w->contacts[j];
    uint64_t a = (uint32_t)ct->shape_a, b = (uint32_t)ct->shape_b, f = (uint32_t)ct->feature;
    x += key_mix(key_mix(key_mix((uint64_t)j ^ (a << 32)) ^ b) ^ (f << 32));
  });
  return x;
}

/* After a solve warm-started from the solve before: its impulses have been read, so their buffer
 * becomes next_memory, into which stage "remember" writes this solve's (the next solve's warm
 * start, or the step's memory). The step then holds two contact memories, not three (64 bytes a
 * contact). */
static void release_round_memory(clt_step_work_t *w, clt_relaxed_work_t *r) {
  free(w->next_memory);
  w->next_memory = r->round_memory;
  w->next_memory_capacity = r->round_memory_capacity;
  w->next_memory_count = 0;
  r->round_memory = NULL;
  r->round_memory_capacity = 0;
  r->round_memory_count = 0;
  clt_work_release(w, w->next_memory, (size_t)w->next_memory_capacity * sizeof *w->next_memory);
}

/* After the active set is found: what only the search for it reads is dead until the next search
 * writes it again (base/pages.h), so that it does not count in the solve's peak memory: the
 * proxies (96 bytes a shape) and the spheres' centres. (The broad phase gives back its grid and
 * sorts after each query, the spreading its links and start boxes.) The broad phase's pairs stay
 * (a later solve updates them, the diagnostics test them), and so do the own pairs and every
 * per-body array a later solve of the step starts from. */
static void release_search(clt_step_work_t *w, clt_relaxed_work_t *r) {
  clt_work_release(w, w->proxies, (size_t)w->proxy_capacity * sizeof *w->proxies);
  clt_work_release(w, r->sweep->centres, (size_t)r->sweep->centre_capacity * 3 * sizeof *r->sweep->centres);
}

/* The solve rounds of one step, as stages of scheme relaxed's list (scheme_relaxed.c, relaxed.h):
 * "begin solves", then the range "active set" … "active set test", repeated while the test finds
 * bodies outside their boxes, then "end solves". */

clt_status_t clt_stage_relaxed_begin(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_relaxed_work_t *r = clt_relaxed_work(c->work);
  if (!r || !clt_relaxed_reserve(r, 0, world->body_count))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (relaxed workspace)");
  r->round = 0;
  r->sweep->later_round = false;
  r->round_warm = false;
  if (world->body_count > 0) memset(r->demanded, 0, (size_t)world->body_count);
  r->sweeps = 0;
  r->last_count = -1;
  r->last_keys = 0;
  return CLT_OK;
}

clt_status_t clt_stage_relaxed_active_set(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  clt_relaxed_work_t *r = w->relaxed;
  int nb = world->body_count;
  /* the contacts of the solve before, or of the step before (its report was dropped when the
   * step began): dead until the narrow phase writes this solve's, and given back before the
   * broad phase, whose grid and sorts are the search's peak (base/pages.h) */
  clt_work_release(w, w->contacts, (size_t)w->contact_capacity * sizeof *w->contacts);
  clt_status_t st = clt_stage_relaxed_collide(c);
  if (st != CLT_OK) return st;
  release_search(w, r);
  /* Larger boxes, the same contacts: the last solve stands (its impulses are still in work->z, in
   * the same contact order) */
  if (r->round == 0 || w->contact_count != r->last_count || contact_keys(w) != r->last_keys) return CLT_OK;
  /* the narrow phase made the contacts anew: their normal velocity at the start of the step (the
   * velocities are those again) for stage "remember"'s restitution rule */
  st = clt_stage_relaxed_contacts(c);
  if (st != CLT_OK) return st;
  if (r->dv_applied) {
    /* v_free from the start of the step again, plus the last solve's dv: the same v⁺ */
    st = clt_stage_free_velocity(c);
    if (st != CLT_OK) return st;
    clt_relaxed_apply_dv(world, r);
  } else {
    CLT_PARALLEL_FOR_IF(nb >= RELAXED_PARALLEL_MIN, schedule(static),
    for (int i = 0; i < nb; i++) {
      const double *v = r->solved + 6 * (size_t)i;
      memcpy(world->states[i].velocity, v, 3 * sizeof *v);
      memcpy(world->states[i].angular_velocity, v + 3, 3 * sizeof *v);
    });
  }
  /* the last solve's impulses (its warm start) are not read again: as after a solve */
  release_round_memory(w, r);
  c->branch = true; /* to "end solves" */
  return CLT_OK;
}

clt_status_t clt_stage_relaxed_joint_rows(clt_step_context_t *c) {
  clt_step_work_t *w = c->work;
  /* the impulses of the step before (only its contact report read them: rows.h) or of the solve
   * before (read only where it stands, stage "active set"): dead until this solve writes them */
  clt_work_release(w, w->z, (size_t)w->z_capacity * sizeof *w->z);
  return clt_stage_joint_rows(c);
}

clt_status_t clt_stage_relaxed_free_velocity(clt_step_context_t *c) {
  c->work->relaxed->dv_applied = false;
  return clt_stage_free_velocity(c);
}

clt_status_t clt_stage_relaxed_solve_round(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  clt_relaxed_work_t *r = w->relaxed;
  clt_diagnostics_t *d = c->diagnostics;
  clt_status_t st = clt_stage_solve_relaxed(c);
  /* the block Gauss–Seidel's records: the next solve builds them anew; then the contacts it
   * shelved are made again (clt_contacts_shelve) */
  clt_work_release(w, r->contacts, r->contact_bytes);
  clt_work_release(w, r->hot_list, (size_t)r->contact_capacity * sizeof *r->hot_list);
  clt_work_release(w, r->block_A, (size_t)r->contact_capacity * 6 * sizeof *r->block_A);
  if (r->sweep->shelved) {
    clt_status_t su = clt_contacts_unshelve(world, w);
    if (st == CLT_OK) st = su;
  }
  if (r->round_warm) release_round_memory(w, r);
  r->sweeps += d->iterations;
  d->iterations = r->sweeps;
  d->solves = r->round + 1;
  return st;
}

clt_status_t clt_stage_relaxed_test(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  clt_relaxed_work_t *r = w->relaxed;
  clt_diagnostics_t *d = c->diagnostics;
  int nb = world->body_count;
  double h = c->h, eps = world->method.active_set_eps;
  bool usable = d->solver_status == CLT_SOLVE_SOLVED || d->solver_status == CLT_SOLVE_MAX_ITERATIONS;
  if (!usable || w->contact_count == 0) return CLT_OK;
  if (r->round + 1 >= RELAXED_SOLVES) { /* the last: what it missed is reported, not solved */
    d->set_misses = mark_demands(world, r, h, 0.25 * eps, 0.25 * eps / h, false);
    return CLT_OK;
  }
  r->last_count = w->contact_count;
  r->last_keys = contact_keys(w);
  if (mark_demands(world, r, h, 0.25 * eps, 0.25 * eps / h, true) == 0) return CLT_OK;
  /* again: this solve's impulses start the next (in key order, as stage "remember" leaves them) */
  clt_status_t st = clt_stage_remember(c);
  if (st != CLT_OK) return st;
  clt_contact_memory_take(&r->round_memory, &r->round_memory_count, &r->round_memory_capacity, &w->next_memory,
                          &w->next_memory_count, &w->next_memory_capacity);
  clt_work_release(w, w->next_memory, (size_t)w->next_memory_capacity * sizeof *w->next_memory);
  r->round_warm = true;
  CLT_PARALLEL_FOR_IF(nb >= RELAXED_PARALLEL_MIN, schedule(static),
  for (int i = 0; i < nb; i++) { /* the start-of-step velocities (positions have not moved) */
    if (!r->dv_applied) {
      double *v = r->solved + 6 * (size_t)i;
      memcpy(v, world->states[i].velocity, 3 * sizeof *v);
      memcpy(v + 3, world->states[i].angular_velocity, 3 * sizeof *v);
    }
    /* (the scheme's late_backup: stepper.h) */
    memcpy(world->states[i].velocity, world->backup_velocity[i], sizeof world->states[i].velocity);
    memcpy(world->states[i].angular_velocity, world->backup_velocity[i] + 3, sizeof world->states[i].angular_velocity);
  });
  r->round++;
  r->sweep->later_round = true;
  c->branch = true; /* to "active set": solve again */
  return CLT_OK;
}

clt_status_t clt_stage_relaxed_end(clt_step_context_t *c) {
  /* The demands and the velocities of the last solve serve the solves of this step only: dead
   * until a later step repeats a solve (base/pages.h; 96 bytes a body between the steps and in the
   * next step's first solve) */
  clt_relaxed_work_t *r = c->work->relaxed;
  clt_work_release(c->work, r->demand, (size_t)r->body_capacity * 6 * sizeof *r->demand);
  clt_work_release(c->work, r->solved, (size_t)r->body_capacity * 6 * sizeof *r->solved);
  return CLT_OK;
}

/* Whether method.solver selects the coloured block Gauss–Seidel (relaxed_bgs.c): bgs, and any
 * solver that does not apply to a QP (lemke, the default). */
static bool bgs_solver(clt_solver_kind_t solver) {
  return solver != CLT_SOLVER_APGD && solver != CLT_SOLVER_BBPGD && solver != CLT_SOLVER_MPRGP;
}

/* The solver of the cone solve: method.solver, except that lemke (the default, which does not
 * apply to a QP) selects APGD for Coulomb's law (s = 0: its fixed point of cone QPs, the default
 * method of docs/stepping.md) and the coloured block Gauss–Seidel for the relaxed scheme. */
static clt_solver_kind_t cone_solver(const clt_step_context_t *c) {
  clt_solver_kind_t solver = c->world->method.solver;
  if (solver == CLT_SOLVER_LEMKE && c->scheme == &clt_scheme_coulomb_circular) return CLT_SOLVER_APGD;
  return solver;
}

clt_status_t clt_stage_relaxed_inverse_mass(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  bool semi = world->dimension == 3 && world->method.gyroscopic == CLT_GYRO_SEMI_IMPLICIT;
  if (bgs_solver(cone_solver(c)) && world->joint_count == world->joints_removed && !semi) {
    c->work->symmetric = true; /* M̂ = M */
    return CLT_OK;
  }
  return clt_stage_inverse_mass(c);
}

clt_status_t clt_stage_relaxed_contacts(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  clt_relaxed_work_t *r = clt_relaxed_work(w);
  if (!r || !clt_relaxed_reserve(r, w->contact_count, 0))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (%d contacts)", w->contact_count);
  w->friction_directions = world->dimension == 2 ? 2 : world->method.friction_directions;
  w->row_count = w->joint_rows;
  int nc = w->contact_count;
  /* (each contact on its own; the memory is only read) */
  CLT_PARALLEL_FOR_IF(nc >= RELAXED_PARALLEL_MIN, schedule(static),
  for (int j = 0; j < nc; j++) {
    clt_contact_t *ct = &w->contacts[j];
    const clt_contact_memory_t *m = NULL;
    ct->normal_velocity = 0.0;
    if (ct->restitution > 0.0) {
      /* nᵀv⁽ˡ⁾: only the restitution rule reads it (stage_contact_rows.c) */
      clt_row_t row;
      clt_contact_row(world, ct, ct->normal, &row);
      ct->normal_velocity = clt_row_velocity(world, &row);
      m = clt_find_contact_memory(w, ct->shape_a, ct->shape_b, ct->feature);
    }
    ct->restitution_bias =
        m && m->restitution_state == CLT_RESTITUTION_PENDING ? ct->restitution * m->pre_velocity : 0.0;
    r->delta[j] = c->scheme->bias(&world->method, ct->distance, c->h) + ct->restitution_bias;
  });
  return CLT_OK;
}

/* The De Saxcé natural map of Coulomb's law, max over contacts of ‖P − Π_K(P − w̃)‖∞ on the cone
 * ‖x_T‖ ≤ μ x_N, for the iterate q->x with y = w of the problem whose normal biases are shifted by
 * `shift` (NULL: none); w̃ = (w_N + μ‖w_T‖, w_T) of the unshifted problem. g (may be NULL) receives
 * μ‖w_T‖ per contact. */
static double coulomb_residual(const relaxed_problem_t *q, const double *shift, double *g) {
  int dim = q->cone_dim;
  double residual = 0.0;
  for (int j = 0; j < q->nc; j++) {
    int k = q->offset[j];
    const double *x = q->x + k, *y = q->y + k;
    double gj = q->mu[j] * (dim == 3 ? hypot(y[1], y[2]) : fabs(y[1]));
    if (g) g[j] = gj;
    double wn = y[0] - (shift ? shift[j] : 0.0) + gj; /* w̃_N */
    double z[3] = {x[0] - wn, x[1] - y[1], dim == 3 ? x[2] - y[2] : 0.0}, pz[3];
    double zt = dim == 3 ? hypot(z[1], z[2]) : fabs(z[1]), mu = q->mu[j];
    if (z[0] >= 0.0 && zt <= mu * z[0]) { /* inside K (with μ = 0: the normal ray) */
      memcpy(pz, z, sizeof pz);
    } else if (mu * zt <= -z[0]) {
      pz[0] = pz[1] = pz[2] = 0.0;
    } else {
      double a = (z[0] + mu * zt) / (1.0 + mu * mu);
      pz[0] = a;
      pz[1] = mu * a * z[1] / zt;
      pz[2] = mu * a * z[2] / zt;
    }
    for (int i = 0; i < dim; i++) residual = fmax(residual, fabs(x[i] - pz[i]));
  }
  return residual;
}

/* Problems up to this many unknowns get the direct polish below when the fixed point stops short. */
#define COULOMB_DIRECT_UNKNOWNS 400

/* The exact-cone frictional contact solver of solvers/ (clt_fc_local_solve: NSGS with a
 * semismooth Newton polish) on the step's problem, for a small problem whose fixed point stopped
 * short: APGD's QPs on a rank-deficient Delassus matrix (boxes on boxes, two contact points per
 * side) can stall far above the tolerance while the fixed point needs them exact. The matrix is
 * formed densely (n products with the operator); joint rows are eliminated by their Schur
 * complement (skipped when their block is singular). Starts from the fixed point's iterate; the
 * answer replaces it only when its residual (coulomb_residual) is smaller. q->b must be unshifted. */
static clt_status_t coulomb_direct(clt_step_context_t *c, relaxed_problem_t *q, const clt_operator_t *op,
                                   double scale, clt_solve_result_t *result) {
  int n = q->n, nj = q->nj, nc = q->nc, dim = q->cone_dim, m = dim * nc;
  if (n > COULOMB_DIRECT_UNKNOWNS || nc == 0 || n != nj + m) return CLT_OK;
  for (int j = 0; j < nc; j++)
    if (q->offset[j] != nj + dim * j) return CLT_OK; /* one cone block per contact, in order */
  size_t nn = (size_t)n * (size_t)n;
  int mark = clt_arena_mark(&c->work->arena);
  double *a = CLT_ARENA_ZNEW(&c->work->arena, double, nn + (size_t)m * m + 4 * (size_t)n + (size_t)nj * (m + 1));
  if (!a) return clt_world_fail(c->world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (Coulomb direct solve)");
  double *wmat = a + nn, *unit = wmat + (size_t)m * m, *col = unit + n, *x = col + n, *y = x + n;
  double *ajc = y + n, *bj = ajc + (size_t)nj * m; /* A_jj⁻¹ A_jc (nj×m, column-major), A_jj⁻¹ b_j */
  for (int i = 0; i < n; i++) { /* A by columns (symmetric), stored column-major */
    unit[i] = 1.0;
    op->apply(op->user, unit, a + (size_t)i * n);
    unit[i] = 0.0;
  }
  bool ok = true;
  double *qc = col; /* q of the contact problem: b_c − A_cj A_jj⁻¹ b_j */
  for (int i = 0; i < m; i++) qc[i] = q->b[nj + i];
  if (nj > 0) {
    double *ajj = malloc((size_t)nj * nj * sizeof *ajj);
    ok = ajj != NULL;
    if (ok) {
      for (int i = 0; i < nj; i++) memcpy(ajj + (size_t)i * nj, a + (size_t)i * n, (size_t)nj * sizeof *ajj);
      for (int k = 0; k < m; k++) memcpy(ajc + (size_t)k * nj, a + (size_t)(nj + k) * n, (size_t)nj * sizeof *ajc);
      memcpy(bj, q->b, (size_t)nj * sizeof *bj);
      int info = 0, one = 1, rhs = m;
      clt_dpotrf("L", &nj, ajj, &nj, &info);
      if (info == 0) clt_dpotrs("L", &nj, &rhs, ajj, &nj, ajc, &nj, &info);
      if (info == 0) clt_dpotrs("L", &nj, &one, ajj, &nj, bj, &nj, &info);
      ok = info == 0;
    }
    free(ajj);
  }
  if (ok) {
    for (int k = 0; k < m; k++) { /* W = A_cc − A_cj A_jj⁻¹ A_jc, row-major */
      for (int i = 0; i < m; i++) {
        double v = a[(size_t)(nj + k) * n + nj + i];
        for (int l = 0; l < nj; l++) v -= a[(size_t)(nj + i) * n + l] * ajc[(size_t)k * nj + l];
        wmat[(size_t)i * m + k] = v;
      }
    }
    for (int i = 0; i < m && nj > 0; i++)
      for (int l = 0; l < nj; l++) qc[i] -= a[(size_t)(nj + i) * n + l] * bj[l];
    clt_fc_local_t fc = {dim, nc, {CLT_MATRIX_DENSE, m, m, wmat, NULL, NULL, 0}, qc, q->mu};
    clt_solver_options_t o = clt_default_solver_options();
    o.tolerance = 1e-2 * c->world->method.tolerance;
    o.max_iterations = c->world->method.max_iterations;
    o.warm_start = true;
    o.arena = &c->work->arena;
    double *r = x + nj;
    memcpy(r, q->x + nj, (size_t)m * sizeof *r);
    clt_solve_result_t fr, fa;
    clt_status_t st = clt_fc_local_solve(&fc, &o, r, NULL, &fr);
    ok = st == CLT_OK && (fr.status == CLT_SOLVE_SOLVED || fr.status == CLT_SOLVE_MAX_ITERATIONS);
    if (ok && fr.status != CLT_SOLVE_SOLVED) {
      st = clt_fc_local_active_set(&fc, &o, r, &fa);
      if (st != CLT_OK) ok = false;
    }
    for (int l = 0; ok && l < nj; l++) { /* x_j = −A_jj⁻¹ (b_j + A_jc r) */
      double v = -bj[l];
      for (int k = 0; k < m; k++) v -= ajc[(size_t)k * nj + l] * r[k];
      x[l] = v;
    }
    for (int i = 0; ok && i < n; i++) { /* y = A x + b */
      double v = q->b[i];
      for (int k = 0; k < n; k++) v += a[(size_t)k * n + i] * x[k];
      y[i] = v;
      ok = isfinite(v) && isfinite(x[i]);
    }
    if (ok) {
      double *x_fp = q->x, *y_fp = q->y;
      q->x = x;
      q->y = y;
      double residual = coulomb_residual(q, NULL, NULL) / scale;
      q->x = x_fp;
      q->y = y_fp;
      if (residual < result->residual) {
        memcpy(q->x, x, (size_t)n * sizeof *x);
        memcpy(q->y, y, (size_t)n * sizeof *y);
        result->residual = residual;
        result->iterations += fr.iterations;
        result->status = residual <= c->world->method.tolerance ? CLT_SOLVE_SOLVED : CLT_SOLVE_MAX_ITERATIONS;
      }
    }
  }
  clt_arena_pop(&c->work->arena, mark);
  return CLT_OK;
}

/* At most this many cone QPs per solve in the fixed point below; the last one's iterate is kept
 * and reported with its De Saxcé residual. */
#define COULOMB_FIXED_POINT_SOLVES 50
#define FIXED_POINT_QP_ITERATIONS 1000

/* Coulomb's law (s = 0) on the circular cone through the convex cone QP: De Saxcé's bipotential
 * form says that (P, w) satisfy Coulomb's law exactly when P ∈ K ⊥ w̃ ∈ K*, w̃ = (w_N + μ‖w_T‖,
 * w_T), which is the relaxed scheme's QP with its normal rows' bias Δ_j raised by the shift
 * s_j = μ_j ‖w_T,j‖. With s frozen the QP is convex and APGD / BBPGD solve it; the shifts are then
 * taken from its solution and the QP is solved again, warm-started, until they no longer move
 * (Tasora and Anitescu's fixed point; a contact that sticks has s = 0, so a resting scene needs one
 * solve). Converged: the natural map of the unshifted problem with w̃ meets the tolerance (the
 * residual reported, as the cone block Gauss–Seidel reports it). */
static clt_status_t coulomb_fixed_point(clt_step_context_t *c, relaxed_problem_t *q, clt_lcp_t *problem,
                                        const clt_cone_set_t *cones, clt_solver_options_t *o,
                                        clt_solve_result_t *result) {
  clt_world_t *world = c->world;
  clt_relaxed_work_t *r = c->work->relaxed;
  size_t nc = (size_t)q->nc;
  if (!clt_step_work_grow_doubles(&r->coulomb_shift, &r->coulomb_shift_capacity, q->nc > 0 ? 4 * q->nc : 1))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (Coulomb shifts)");
  /* s: the shifts of the QP solved last; g = G(s) = μ‖w_T‖ of its solution; the previous g and
   * g − s, for the Anderson step */
  double *shift = r->coulomb_shift, *g = shift + nc, *g_prev = g + nc, *f_prev = g_prev + nc;
  memset(shift, 0, sizeof(double) * 4 * nc); /* s, and g, g_prev, f_prev before their first write */
  double scale = 0.0; /* 1 + ‖b‖∞ of the unshifted problem */
  for (int p = 0; p < q->n; p++) scale = fmax(scale, fabs(q->b[p]));
  scale += 1.0;
  int iterations = result->iterations;
  o->warm_start = true;
  /* Each later QP to half the tolerance, so that the fixed point's own residual can meet it, and
   * at most FIXED_POINT_QP_ITERATIONS iterations: on degenerate stacks APGD may not get below the
   * tolerance much, and a QP that stops short is still a step of the fixed point. */
  o->tolerance = 0.5 * world->method.tolerance;
  for (int round = 1;; round++) {
    /* G(s) of this solution, and the De Saxcé residual of the unshifted problem */
    result->residual = coulomb_residual(q, shift, g) / scale;
    result->iterations = iterations;
    if (result->residual <= world->method.tolerance) {
      result->status = CLT_SOLVE_SOLVED;
      break;
    }
    if (round >= COULOMB_FIXED_POINT_SOLVES || iterations >= world->method.max_iterations) {
      result->status = CLT_SOLVE_MAX_ITERATIONS;
      break;
    }
    /* The next shifts: G(s), or from the second round the Anderson step of depth 1 on the
     * residual f = G(s) − s (the plain iteration contracts slowly where many contacts slide: a
     * factor 0.86 a QP in the disks21 pile's first steps), kept ≥ 0. */
    double gamma = 0.0;
    if (round > 1) {
      double num = 0.0, den = 0.0;
      for (size_t j = 0; j < nc; j++) {
        double df = (g[j] - shift[j]) - f_prev[j];
        num += (g[j] - shift[j]) * df;
        den += df * df;
      }
      gamma = den > 0.0 ? num / den : 0.0;
    }
    for (int j = 0; j < q->nc; j++) {
      double next = round > 1 ? g[j] - gamma * (g[j] - g_prev[j]) : g[j];
      if (!(next > 0.0)) next = 0.0;
      f_prev[j] = g[j] - shift[j];
      g_prev[j] = g[j];
      q->b[q->offset[j]] += next - shift[j];
      shift[j] = next;
    }
    clt_solve_result_t inner;
    memset(&inner, 0, sizeof inner);
    int left = world->method.max_iterations - iterations;
    o->max_iterations = left < FIXED_POINT_QP_ITERATIONS ? left : FIXED_POINT_QP_ITERATIONS;
    clt_status_t st = clt_cone_qp_solve(cone_solver(c), problem, cones, o, q->x, q->y, &inner);
    if (st != CLT_OK)
      return clt_world_fail(world, st, "step %lld: %s refused the cone QP: %s", (long long)c->step,
                            clt_solver_kind_name(cone_solver(c)), inner.message);
    iterations += inner.iterations;
    if (inner.status != CLT_SOLVE_SOLVED && inner.status != CLT_SOLVE_MAX_ITERATIONS) {
      *result = inner;
      result->iterations = iterations;
      break;
    }
  }
  /* the bias again as built (the rows' Δ), for anything that reads b after the solve */
  for (int j = 0; j < q->nc; j++) q->b[q->offset[j]] -= shift[j];
  if (result->status == CLT_SOLVE_MAX_ITERATIONS) return coulomb_direct(c, q, problem->op, scale, result);
  return CLT_OK;
}

clt_status_t clt_stage_solve_relaxed(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  clt_diagnostics_t *d = c->diagnostics;
  d->contacts = w->contact_count;
  if (w->contact_count == 0) {
    /* joints only (or nothing): the equalities ν v⁺ = −Υ, solved exactly as in every scheme */
    clt_problem_kind_t kind = {true, true};
    clt_status_t st = clt_solve_rows(world, w, kind, d);
    if (st != CLT_OK) return st;
    clt_apply_impulses(world, w, kind, NULL);
    return CLT_OK;
  }
  if (!w->symmetric)
    return clt_world_fail(world, CLT_ERR_UNSUPPORTED,
                          "step %lld: scheme %s's cone solve needs a symmetric M̂; the semi-implicit "
                          "gyroscopic term makes it non-symmetric (use gyroscopic explicit or off)",
                          (long long)c->step, c->scheme->name);
  clt_solver_kind_t solver = cone_solver(c);
  bool bgs = bgs_solver(solver);
  /* the block Gauss–Seidel writes z in its compact layout (rows.h, z_bracket) */
  int nstd = w->joint_rows + w->contact_count * (bgs ? CLT_Z_BRACKET : w->friction_directions + 2);
  if (!clt_step_work_reserve_z(w, nstd)) /* the solves keep their own arrays: only z is written */
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (step problem of size %d)", nstd);
  clt_relaxed_work_t *r = clt_relaxed_work(w);
  if (!r) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (relaxed QP)");
  if (bgs) {
    /* bgs, and lemke (the default, which does not apply to a QP): the coloured block Gauss–Seidel */
    clt_status_t st = clt_relaxed_bgs_solve(c, r);
    if (st != CLT_OK) return st;
    return report_unsolved(c, d->solver_status, d->residual, "");
  }

  relaxed_problem_t q;
  memset(&q, 0, sizeof q);
  if (!build_problem(world, w, r, &q))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (relaxed QP)");
  clt_body_rows_t op_data = relaxed_operator(q.rows, q.minv, q.n, world->body_count, q.body_start, q.body_entry, q.u);
  clt_operator_t op = {q.n, relaxed_apply, &op_data, NULL, NULL};
  clt_lcp_t problem = {q.n, NULL, &op, q.b, q.nj, NULL, 0, NULL, NULL};
  clt_cone_set_t cones = {q.nc, q.cone_dim, q.cone_start, q.mu};
  clt_solver_options_t o = clt_default_solver_options();
  o.tolerance = world->method.tolerance;
  o.max_iterations = world->method.max_iterations;
  o.warm_start = world->method.warm_start;
  o.threads = 0;
  o.arena = &w->arena;
  if (o.warm_start) warm_start(world, w, &q);
  clt_solve_result_t result;
  memset(&result, 0, sizeof result);
  clt_status_t st = clt_cone_qp_solve(solver, &problem, q.circular ? &cones : NULL, &o, q.x, q.y, &result);
  if (st != CLT_OK) {
    return clt_world_fail(world, st, "step %lld: %s refused the relaxed QP: %s", (long long)c->step,
                          clt_solver_kind_name(solver), result.message);
  }
  /* Coulomb's law (scheme anitescu-hart on the circular cone, s = 0) by a fixed point on the De
   * Saxcé shift (docs/stepping.md "Coulomb's law on the circular cone"). */
  if (c->scheme == &clt_scheme_coulomb_circular && result.status == CLT_SOLVE_SOLVED) {
    st = coulomb_fixed_point(c, &q, &problem, &cones, &o, &result);
    if (st != CLT_OK) return st;
  }
  d->lcp_size = q.n;
  d->solver_status = result.status;
  d->iterations = result.iterations;
  d->residual = result.residual;
  /* The last iterate of an unconverged solve is applied (and reported as such); nothing of a
   * failed or non-finite one. */
  bool usable = result.status == CLT_SOLVE_SOLVED || result.status == CLT_SOLVE_MAX_ITERATIONS;
  for (int i = 0; usable && i < q.n; i++)
    if (!isfinite(q.x[i])) usable = false;
  write_impulses(world, w, &q, usable);
  w->lcp_n = nstd;
  w->z_bracket = false;
  if (usable) {
    clt_body_rows_accumulate(&op_data, op_data.n >= RELAXED_PARALLEL_MIN, q.x);
    for (int i = 0; i < world->body_count; i++) {
      if (world->bodies[i].type != CLT_BODY_DYNAMIC) continue;
      const double *u = q.u + 6 * (size_t)i;
      clt_body_state_t *s = &world->states[i];
      if (world->dimension == 2) {
        s->velocity[0] += u[0];
        s->velocity[1] += u[1];
        s->angular_velocity[0] += u[3];
      } else {
        for (int k = 0; k < 3; k++) {
          s->velocity[k] += u[k];
          s->angular_velocity[k] += u[3 + k];
        }
      }
    }
  }
  return report_unsolved(c, result.status, result.residual, result.message);
}
