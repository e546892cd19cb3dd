/* Build rows, joints (SPEC.md §0, §1): ν = ∇Θ and Θ of every joint at q, through the joint table
 * of src/constraints. Dependent rows (a redundant joint, a closed loop, a row of two fixed bodies)
 * would make the Schur complement ν M̂⁻¹ νᵀ singular (SPEC.md §2 "Reduction": ν must have full
 * row rank): a pivoted Cholesky factorization of G = ν M⁻¹ νᵀ (plain, symmetric M) finds a
 * maximal independent subset and the others are left out of this step (their count is kept in
 * work->joint_rows_dropped). The kept rows stay in their original order (deterministic). */
#include <math.h>
#include <string.h>

#include "base/algebra.h"
#include "steppers/stepper.h"

/* Relative pivot threshold of the rank decision: a remaining Schur-complement pivot below this
 * fraction of the largest diagonal of G counts as zero (rounding leaves ~1e-16 on dependent rows). */
#define JOINT_RANK_TOLERANCE 1e-10

/* J_p M⁻¹ J_qᵀ for one pair of sides on the same dynamic body (plain M). */
static double side_product(const clt_world_t *world, int body, const double *lin_p, const double *ang_p,
                           const double *lin_q, const double *ang_q) {
  const clt_body_rec_t *b = &world->bodies[body];
  if (b->type != CLT_BODY_DYNAMIC) return 0.0;
  double s = b->inv_mass * (lin_p[0] * lin_q[0] + lin_p[1] * lin_q[1] + lin_p[2] * lin_q[2]);
  int na = world->dimension == 2 ? 1 : 3;
  for (int k = 0; k < na; k++) s += b->inv_inertia[k] * ang_p[k] * ang_q[k];
  return s;
}

static double plain_product(const clt_world_t *world, const clt_row_t *p, const clt_row_t *q) {
  double s = 0.0;
  const int pb[2] = {p->body_a, p->body_b}, qb[2] = {q->body_a, q->body_b};
  const double *pl[2] = {p->jac.linear_a, p->jac.linear_b}, *pa[2] = {p->jac.angular_a, p->jac.angular_b};
  const double *ql[2] = {q->jac.linear_a, q->jac.linear_b}, *qa[2] = {q->jac.angular_a, q->jac.angular_b};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      if (pb[i] >= 0 && pb[i] == qb[j]) s += side_product(world, pb[i], pl[i], pa[i], ql[j], qa[j]);
  return s;
}

clt_status_t clt_build_joint_rows(clt_world_t *world, clt_step_work_t *work) {
  int total = 0;
  for (int j = 0; j < world->joint_count; j++) {
    double theta[6];
    if (!world->joints[j].removed) total += clt_joint_constraint(world, &world->joints[j], theta);
  }
  if (!clt_step_work_reserve_rows(work, total) || !clt_step_work_reserve_problem(work, 2 * total, 0) ||
      !clt_step_work_reserve_dense(work, total))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (joint rows)");
  int n = 0;
  for (int j = 0; j < world->joint_count; j++) {
    const clt_joint_rec_t *joint = &world->joints[j];
    if (joint->removed) continue;
    double theta[6];
    clt_jacobian_row_t jac[6];
    int m = clt_joint_constraint(world, joint, theta);
    clt_joint_rows(world, joint, jac);
    for (int k = 0; k < m; k++, n++) {
      work->rows[n].body_a = joint->body_a;
      work->rows[n].body_b = joint->body_b;
      work->rows[n].jac = jac[k];
      work->row_value[n] = theta[k];
      work->row_bias[n] = 0.0;
      work->joint_row_owner[n] = j;
      work->joint_row_component[n] = k;
      work->row_compliance[n] = 0.0;
    }
  }
  work->joint_rows = n;
  work->joint_rows_dropped = 0;
  work->row_count = n;
  work->spring_rows = 0;
  work->bounded_rows = 0;
  return clt_drop_dependent_rows(world, work, n);
}

clt_status_t clt_drop_dependent_rows(clt_world_t *world, clt_step_work_t *work, int n) {
  if (!clt_step_work_reserve_problem(work, 2 * n, 0) || !clt_step_work_reserve_dense(work, n))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (joint rows)");
  work->joint_rows = n;
  work->row_count = n;
  work->bounded_rows = 0;
  if (n == 0) return CLT_OK;

  /* Rank of G = ν M⁻¹ νᵀ (lower triangle, column-major = row-major for a symmetric matrix). */
  double *g = work->A;
  double max_diag = 0.0;
  for (int p = 0; p < n; p++)
    for (int q = 0; q <= p; q++) {
      double v = plain_product(world, &work->rows[p], &work->rows[q]);
      g[(size_t)q * (size_t)n + (size_t)p] = v;
      g[(size_t)p * (size_t)n + (size_t)q] = v;
      if (p == q && v > max_diag) max_diag = v;
    }
  int rank = 0, info = 0;
  if (max_diag > 0.0) {
    double tol = JOINT_RANK_TOLERANCE * max_diag;
    clt_dpstrf("L", &n, g, &n, work->ipiv, &rank, &tol, work->b, &info);
    if (info == CLT_ALGEBRA_UNAVAILABLE) return clt_world_fail(world, CLT_ERR_UNSUPPORTED, "step: %s", clt_algebra_error());
    if (info < 0) return clt_world_fail(world, CLT_ERR_NUMERICAL, "step: joint rank factorization failed (%d)", info);
  }
  if (rank == n) return CLT_OK;
  /* Keep the pivoted rows piv[0..rank) (1-based), in their original order. */
  bool *keep = (bool *)work->chol; /* scratch: n bytes fit in the n² doubles */
  memset(keep, 0, (size_t)n * sizeof *keep);
  for (int k = 0; k < rank; k++) keep[work->ipiv[k] - 1] = true;
  int out = 0;
  for (int p = 0; p < n; p++) {
    if (!keep[p]) continue;
    work->rows[out] = work->rows[p];
    work->row_value[out] = work->row_value[p];
    work->row_bias[out] = work->row_bias[p];
    work->joint_row_owner[out] = work->joint_row_owner[p];
    work->joint_row_component[out] = work->joint_row_component[p];
    work->row_compliance[out] = work->row_compliance[p];
    out++;
  }
  work->joint_rows = out;
  work->joint_rows_dropped += n - out;
  work->row_count = out;
  return CLT_OK;
}

/* Stage "joint rows": ν, Θ at q and the scheme's Υ = bias(Θ) (SPEC.md §1 table), then the
 * compliant rows of the implicit force elements (SPEC.md §4; stage_spring_rows.c), which carry
 * their own bias γφ/(hγ + δ) whatever the scheme, then the limit and motor rows
 * (stage_actuation.c, docs/actuation.md). The relaxed scheme's QP (stage_solve_relaxed.c)
 * has no compliance term, so implicit elements are refused there rather than silently dropped
 * (clt_check_spring_support, also run by the forces stage of every pipeline). */
clt_status_t clt_stage_joint_rows(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_status_t st = clt_check_spring_support(c);
  if (st != CLT_OK) return st;
  st = clt_build_joint_rows(world, c->work);
  if (st != CLT_OK) return st;
  for (int i = 0; i < c->work->joint_rows; i++)
    c->work->row_bias[i] = c->scheme->bias(&world->method, c->work->row_value[i], c->h);
  st = clt_build_spring_rows(world, c->work, c->h);
  if (st != CLT_OK) return st;
  return clt_build_actuation_rows(world, c->work, c->scheme, c->h, true);
}
