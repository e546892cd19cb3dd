/* Solve stage of the `relaxed` scheme (SPEC.md §1 table with s = 1, §2.3; 003 "convex
 * relaxation", 000 §4 case 2): one convex QP per step,
 *     min_v ½ vᵀM̂v − (M v⁽ˡ⁾ + h k̂)ᵀv
 *     s.t. (n_j + μ_j d_{j,i})ᵀ v ≥ −Δ_j   every active contact j, generator i    (polyhedral)
 *          n_jᵀ v + Δ_j ≥ μ_j ‖T_j v‖       every active contact j                  (circular)
 *          ν_iᵀ v = −Υ_i                    every joint row i,
 * solved through its dual. With G the stacked constraint rows (joint rows, then per contact its
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
 * memory (c_n, tangential impulse vector) of the last step, re-expressed on this step's generators
 * (docs/stepping.md "The relaxed scheme"); joint impulses from the joint memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/solvers.h"
#include "math/vec.h"
#include "steppers/relaxed.h"

#define CLT_TWO_PI 6.283185307179586476925286766559
/* Below this many unknowns the products run on one thread: a parallel region per product costs
 * more than it saves on small problems, and spinning threads hurt on a loaded machine. The result
 * does not depend on it (every entry is summed in the same order either way). */
#define RELAXED_PARALLEL_MIN 4096

typedef struct relaxed_op_t {
  int n;             /* unknowns = rows of G */
  const clt_row_t *rows;
  const double *minv; /* 12 per row: M̂⁻¹ J_Aᵀ, M̂⁻¹ J_Bᵀ */
  int bodies;
  const int *body_start; /* bodies + 1 */
  const int *body_entry; /* 2·row + side, rows in increasing order per body */
  double *u;             /* 6 per body: M̂⁻¹ Gᵀ x */
} relaxed_op_t;

static void accumulate_bodies(const relaxed_op_t *r, const double *x) {
  int nb = r->bodies;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (r->n >= RELAXED_PARALLEL_MIN)
#endif
  for (int b = 0; b < nb; b++) {
    double acc[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (int e = r->body_start[b]; e < r->body_start[b + 1]; e++) {
      int p = r->body_entry[e] >> 1, side = r->body_entry[e] & 1;
      const double *m = r->minv + 12 * (size_t)p + 6 * (size_t)side;
      double xp = x[p];
      for (int k = 0; k < 6; k++) acc[k] += xp * m[k];
    }
    memcpy(r->u + 6 * (size_t)b, acc, sizeof acc);
  }
}

static double side_dot(const double lin[3], const double ang[3], const double *u) {
  return lin[0] * u[0] + lin[1] * u[1] + lin[2] * u[2] + ang[0] * u[3] + ang[1] * u[4] + ang[2] * u[5];
}

/* y = G M̂⁻¹ Gᵀ x. */
static void relaxed_apply(void *user, const double *x, double *y) {
  relaxed_op_t *r = user;
  accumulate_bodies(r, x);
  int n = r->n;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n >= RELAXED_PARALLEL_MIN)
#endif
  for (int p = 0; p < n; p++) {
    const clt_row_t *row = &r->rows[p];
    double s = 0.0;
    if (row->body_a >= 0) s += side_dot(row->jac.linear_a, row->jac.angular_a, r->u + 6 * (size_t)row->body_a);
    if (row->body_b >= 0) s += side_dot(row->jac.linear_b, row->jac.angular_b, r->u + 6 * (size_t)row->body_b);
    y[p] = s;
  }
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

/* A tangential vector with coordinates (a1, a2) on (t1, t2) as α d_k + β d_{k+1} with α, β ≥ 0 on
 * the two of the m balanced directions that bracket it (2D: m = 2, ±t1, a2 ignored). */
static void bracket(int dimension, int m, double a1, double a2, int *k0, int *k1, double *alpha, double *beta) {
  if (dimension == 2) {
    *k0 = a1 >= 0.0 ? 0 : 1;
    *k1 = *k0;
    *alpha = fabs(a1);
    *beta = 0.0;
    return;
  }
  double phi = atan2(a2, a1);
  if (phi < 0.0) phi += CLT_TWO_PI;
  int k = (int)floor(phi / (CLT_TWO_PI / (double)m));
  if (k < 0) k = 0;
  if (k >= m) k = m - 1;
  int k2 = (k + 1) % m;
  double th0 = CLT_TWO_PI * (double)k / (double)m, th1 = CLT_TWO_PI * (double)k2 / (double)m;
  double c0 = cos(th0), s0 = sin(th0), c1 = cos(th1), s1 = sin(th1);
  double det = c0 * s1 - s0 * c1;
  double a = (a1 * s1 - a2 * c1) / det, b = (c0 * a2 - s0 * a1) / det;
  *k0 = k;
  *k1 = k2;
  *alpha = a > 0.0 ? a : 0.0;
  *beta = b > 0.0 ? b : 0.0;
}

/* The step's QP and its buffers (allocated per step: the APGD/BBPGD solvers allocate per solve too). */
typedef struct relaxed_problem_t {
  int n, nj, nc, m, cone_dim;
  bool circular;
  clt_row_t *rows;
  double *minv, *b, *x, *y, *u, *mu;
  int *offset, *count, *body_start, *body_entry, *cone_start;
} relaxed_problem_t;

static void problem_free(relaxed_problem_t *q) {
  free(q->rows), free(q->minv), free(q->b), free(q->x), free(q->y), free(q->u), free(q->mu);
  free(q->offset), free(q->count), free(q->body_start), free(q->body_entry), free(q->cone_start);
}

/* Rows of G, their M̂⁻¹ Jᵀ, b and the per-body row lists. */
static bool build_problem(clt_world_t *world, clt_step_work_t *w, relaxed_problem_t *q) {
  int nj = w->joint_rows, nc = w->contact_count, m = w->friction_directions;
  int nb = world->body_count;
  q->nj = nj;
  q->nc = nc;
  q->m = m;
  q->circular = world->method.friction_cone == CLT_CONE_CIRCULAR;
  q->cone_dim = world->dimension == 2 ? 2 : 3;
  q->offset = malloc(sizeof(int) * (size_t)(nc + 1));
  q->count = malloc(sizeof(int) * (size_t)(nc + 1));
  q->mu = malloc(sizeof(double) * (size_t)(nc + 1));
  q->cone_start = malloc(sizeof(int) * (size_t)(nc + 1));
  if (!q->offset || !q->count || !q->mu || !q->cone_start) return false;
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
  size_t sn = (size_t)(n > 0 ? n : 1);
  q->rows = malloc(sizeof *q->rows * sn);
  q->minv = malloc(sizeof(double) * 12 * sn);
  q->b = malloc(sizeof(double) * sn);
  q->x = calloc(sn, sizeof(double));
  q->y = malloc(sizeof(double) * sn);
  q->u = calloc(6 * (size_t)(nb > 0 ? nb : 1), sizeof(double));
  q->body_start = calloc((size_t)nb + 1, sizeof(int));
  q->body_entry = malloc(sizeof(int) * 2 * sn);
  if (!q->rows || !q->minv || !q->b || !q->x || !q->y || !q->u || !q->body_start || !q->body_entry) return false;

  int stride = 1 + m;
  for (int p = 0; p < nj; p++) {
    q->rows[p] = w->rows[p];
    q->b[p] = w->row_bias[p];
  }
  for (int j = 0; j < nc; j++) {
    const clt_contact_t *ct = &w->contacts[j];
    double delta = w->row_bias[nj + j * stride];
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
    const clt_row_t *r = &q->rows[p];
    q->b[p] += clt_row_velocity(world, r); /* G v_free (+ kinematic bodies' prescribed velocity) */
    side_minv(world, w, r->body_a, r->jac.linear_a, r->jac.angular_a, q->minv + 12 * (size_t)p);
    side_minv(world, w, r->body_b, r->jac.linear_b, r->jac.angular_b, q->minv + 12 * (size_t)p + 6);
  }
  /* per-body lists of (row, side), rows increasing: a fixed summation order for Gᵀ x */
  for (int p = 0; p < n; p++) {
    const clt_row_t *r = &q->rows[p];
    if (r->body_a >= 0 && world->bodies[r->body_a].type == CLT_BODY_DYNAMIC) q->body_start[r->body_a + 1]++;
    if (r->body_b >= 0 && world->bodies[r->body_b].type == CLT_BODY_DYNAMIC) q->body_start[r->body_b + 1]++;
  }
  for (int i = 0; i < nb; i++) q->body_start[i + 1] += q->body_start[i];
  int *fill = malloc(sizeof(int) * (size_t)(nb > 0 ? nb : 1));
  if (!fill) return false;
  if (nb > 0) memcpy(fill, q->body_start, sizeof(int) * (size_t)nb);
  for (int p = 0; p < n; p++) {
    const clt_row_t *r = &q->rows[p];
    if (r->body_a >= 0 && world->bodies[r->body_a].type == CLT_BODY_DYNAMIC) q->body_entry[fill[r->body_a]++] = 2 * p;
    if (r->body_b >= 0 && world->bodies[r->body_b].type == CLT_BODY_DYNAMIC)
      q->body_entry[fill[r->body_b]++] = 2 * p + 1;
  }
  free(fill);
  return true;
}

/* Starting point from the memory of the last step (rows.h): joint impulses by joint and
 * component; a contact's (c_n, T = Σβ_k d_k) becomes generator multipliers with Σx = c_n and
 * μ Σ x_i d_i = T — T/μ on the two generators that bracket it, the rest of c_n spread evenly over
 * all m (Σ_i d_i = 0 for balanced directions), scaled into the cone if T/μ alone exceeds c_n — or
 * the cone block (c_n, T·t1, T·t2) (the solver projects it onto the cone). */
static void warm_start(const clt_world_t *world, const clt_step_work_t *w, relaxed_problem_t *q) {
  memset(q->x, 0, sizeof(double) * (size_t)q->n);
  for (int p = 0; p < q->nj && w->joint_impulse; p++) {
    int owner = w->joint_row_owner[p];
    if (6 * owner + 6 <= w->joint_impulse_capacity)
      q->x[p] = w->joint_impulse[6 * owner + w->joint_row_component[p]];
  }
  for (int j = 0; j < q->nc; j++) {
    const clt_contact_t *ct = &w->contacts[j];
    const clt_contact_memory_t *mem = clt_find_contact_memory(w, ct->shape_a, ct->shape_b, ct->feature);
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
    bracket(world->dimension, q->m, a1, a2, &k0, &k1, &alpha, &beta);
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
      bracket(world->dimension, m, x[1], q->cone_dim == 3 ? x[2] : 0.0, &k0, &k1, &alpha, &beta);
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
                          "step %lld: the relaxed scheme's QP needs a symmetric M̂; the semi-implicit "
                          "gyroscopic term makes it non-symmetric (use gyroscopic explicit or off)",
                          (long long)c->step);
  int nstd = w->joint_rows + w->contact_count * (w->friction_directions + 2);
  if (!clt_step_work_reserve_problem(w, nstd, w->joint_rows + w->contact_count))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (step problem of size %d)", nstd);

  relaxed_problem_t q;
  memset(&q, 0, sizeof q);
  if (!build_problem(world, w, &q)) {
    problem_free(&q);
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (relaxed QP)");
  }
  relaxed_op_t op_data = {q.n, q.rows, q.minv, world->body_count, q.body_start, q.body_entry, q.u};
  clt_operator_t op = {q.n, relaxed_apply, &op_data, NULL, NULL};
  clt_lcp_t problem = {q.n, NULL, &op, q.b, q.nj, NULL, 0};
  clt_cone_set_t cones = {q.nc, q.cone_dim, q.cone_start, q.mu};
  clt_solver_options_t o = clt_default_solver_options();
  o.tolerance = world->method.tolerance;
  o.max_iterations = world->method.max_iterations;
  o.warm_start = world->method.warm_start;
  o.threads = 0;
  if (o.warm_start) warm_start(world, w, &q);
  clt_solver_kind_t solver = world->method.solver == CLT_SOLVER_BBPGD ? CLT_SOLVER_BBPGD : CLT_SOLVER_APGD;
  clt_solve_result_t result;
  memset(&result, 0, sizeof result);
  clt_status_t st = clt_cone_qp_solve(solver, &problem, q.circular ? &cones : NULL, &o, q.x, q.y, &result);
  if (st != CLT_OK) {
    problem_free(&q);
    return clt_world_fail(world, st, "step %lld: %s refused the relaxed QP: %s", (long long)c->step,
                          clt_solver_kind_name(solver), result.message);
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
  if (usable) {
    accumulate_bodies(&op_data, q.x);
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
  problem_free(&q);
  if (result.status != CLT_SOLVE_SOLVED) {
    const char *what = clt_solver_status_name(result.status);
    if (world->method.on_unconverged == CLT_UNCONVERGED_ABORT)
      return clt_world_fail(world, CLT_ERR_SOLVER,
                            "step %lld: the relaxed QP (size %d) was not solved: %s, residual %.3g%s%s",
                            (long long)c->step, d->lcp_size, what, result.residual, result.message[0] ? ": " : "",
                            result.message);
    if (world->method.on_unconverged == CLT_UNCONVERGED_WARN)
      clt_world_log(world, CLT_LOG_WARNING, "step %lld: the relaxed QP (size %d) was not solved: %s, residual %.3g",
                    (long long)c->step, d->lcp_size, what, result.residual);
  }
  return CLT_OK;
}
