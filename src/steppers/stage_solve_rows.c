/* Solve (SPEC.md §1, §2): the step problem of the rows in the workspace.
 *
 * Reduction (§2): v⁺ = v_free + M̂⁻¹ N z with v_free = M̂⁻¹(M v + h k̂) already in the state, so
 *     w = A z + b,  A_pq = J_p M̂⁻¹ J_qᵀ,  b_p = J_p v_free + (Υ_p or Δ_p)
 * for every row-backed unknown, plus the friction-cone coupling of each contact (§1):
 *     σ_k = D_kᵀ v⁺ + λ        (A[β_k][λ] = 1)
 *     ζ   = μ c_n − Σ_k β_k    (A[λ][c_n] = μ, A[λ][β_k] = −1, b = 0).
 * With joints only, this is the equality system A c = −b with A = ν M̂⁻¹ νᵀ, which has full rank
 * after the dependent rows were left out (stage_joint_rows.c): Cholesky (LAPACK dpotrf) when M̂ is
 * symmetric, LU (dgetrf) when the semi-implicit gyroscopic term makes it non-symmetric. With
 * contacts it is a mixed LCP (free joint impulses first) for the world's solver: Lemke (exact;
 * eliminates the free block by a Schur complement) or block Gauss–Seidel (one block per joint,
 * one (c_n, β, λ) block per contact). The position projection of §3 uses the same assembly with
 * the plain M, no friction and b = the constraint values (clt_problem_kind_t).
 * The compliant rows of implicit force elements (SPEC.md §4, stage_spring_rows.c) sit among the
 * joint rows as free unknowns and add their ε to the diagonal of A (dense and CSR alike), so every
 * solver sees the same problem. The limit and motor rows (stage_actuation.c, docs/actuation.md)
 * come last among the joint rows as bounded unknowns (clt_lcp_t lower / upper; each a block of its
 * own for block Gauss–Seidel): with them the problem is a bounded mixed LCP even without
 * contacts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sort.h"
#include "base/algebra.h"
#include "clatter/solvers.h"
#include "steppers/stepper.h"

/* The largest scaled residual of an inexact solve whose impulses are still applied (see below). */
#define USABLE_RESIDUAL 1e-6
/* Newton steps of the polish after a failed Lemke solve (clt_lcp_polish). */
#define POLISH_STEPS 12
/* Sweeps of the block Gauss–Seidel fallback after a failed Lemke solve. */
#define LEMKE_FALLBACK_SWEEPS 2000

/* Layout of the unknowns for a problem kind (rows.h). */
static int contact_block(const clt_step_work_t *w, clt_problem_kind_t kind) {
  return kind.friction ? w->friction_directions + 2 : 1;
}
static int contact_rows(const clt_step_work_t *w, clt_problem_kind_t kind) {
  return kind.friction ? w->friction_directions + 1 : 1;
}

/* M̂⁻¹ J_sideᵀ of one side into out[6]. */
static void side_minv(const clt_step_work_t *w, int body, const double lin[3], const double ang[3], double out[6]) {
  memset(out, 0, 6 * sizeof *out);
  if (body < 0) return;
  double im = w->inv_linear[body];
  const double *ia = w->inv_angular[body];
  for (int k = 0; k < 3; k++) {
    out[k] = im * lin[k];
    out[3 + k] = ia[3 * k] * ang[0] + ia[3 * k + 1] * ang[1] + ia[3 * k + 2] * ang[2];
  }
}

static double dot6(const double lin[3], const double ang[3], const double v[6]) {
  return lin[0] * v[0] + lin[1] * v[1] + lin[2] * v[2] + ang[0] * v[3] + ang[1] * v[4] + ang[2] * v[5];
}

/* J_p M̂⁻¹ J_qᵀ. */
static double row_product(const clt_step_work_t *w, int p, int q) {
  const clt_row_t *rp = &w->rows[p], *rq = &w->rows[q];
  const double *mq = w->row_minv + 12 * (size_t)q;
  double s = 0.0;
  const int pb[2] = {rp->body_a, rp->body_b}, qb[2] = {rq->body_a, rq->body_b};
  const double *pl[2] = {rp->jac.linear_a, rp->jac.linear_b}, *pa[2] = {rp->jac.angular_a, rp->jac.angular_b};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      if (pb[i] >= 0 && pb[i] == qb[j]) s += dot6(pl[i], pa[i], mq + 6 * j);
  return s;
}

/* ε of row p: the compliance of an implicit force element's row (stage_spring_rows.c, SPEC.md §4)
 * or of a position motor's (stage_actuation.c), which adds ε c to its row gᵀv⁺ + b + ε c, i.e. ε
 * to the diagonal of A; 0 otherwise (every other joint row has compliance 0). */
static double row_eps(const clt_step_work_t *w, int p) { return p < w->joint_rows ? w->row_compliance[p] : 0.0; }

/* Row index of unknown v (−1 for λ). */
static int unknown_row(const clt_step_work_t *w, clt_problem_kind_t kind, int v) {
  int nj = w->joint_rows;
  if (v < nj) return v;
  int blk = contact_block(w, kind), j = (v - nj) / blk, k = (v - nj) % blk;
  if (kind.friction && k == blk - 1) return -1;
  return nj + j * contact_rows(w, kind) + k;
}

static double norm_inf(const double *x, int n) {
  double m = 0.0;
  for (int i = 0; i < n; i++)
    if (fabs(x[i]) > m || isnan(x[i])) m = fabs(x[i]);
  return m;
}

/* The friction-cone coupling entries of A (SPEC.md §1): A[β_k][λ] = 1, A[λ][β_k] = −1,
 * A[λ][c_n] = μ; 0 elsewhere (and for unknowns of different contacts). */
static double cone_entry(const clt_step_work_t *w, clt_problem_kind_t kind, int vp, int vq) {
  int nj = w->joint_rows;
  if (!kind.friction || vp < nj || vq < nj) return 0.0;
  int blk = contact_block(w, kind), m = w->friction_directions;
  int j = (vp - nj) / blk;
  if ((vq - nj) / blk != j) return 0.0;
  int kp = (vp - nj) % blk, kq = (vq - nj) % blk;
  if (kq == m + 1 && kp >= 1 && kp <= m) return 1.0;
  if (kp == m + 1 && kq >= 1 && kq <= m) return -1.0;
  if (kp == m + 1 && kq == 0) return w->contacts[j].friction;
  return 0.0;
}

static clt_status_t assemble_dense(clt_step_work_t *w, clt_problem_kind_t kind, int n) {
  if (!clt_step_work_reserve_dense(w, n)) return CLT_ERR_OUT_OF_MEMORY;
  double *A = w->A;
  memset(A, 0, (size_t)n * (size_t)n * sizeof *A);
  for (int vp = 0; vp < n; vp++) {
    int p = unknown_row(w, kind, vp);
    if (p < 0) continue;
    for (int vq = 0; vq < n; vq++) {
      int q = unknown_row(w, kind, vq);
      if (q >= 0) A[(size_t)vp * (size_t)n + (size_t)vq] = row_product(w, p, q) + (vp == vq ? row_eps(w, p) : 0.0);
    }
  }
  if (kind.friction) {
    int m = w->friction_directions, nj = w->joint_rows, blk = contact_block(w, kind);
    for (int j = 0; j < w->contact_count; j++) {
      int s = nj + j * blk, lambda = s + m + 1;
      for (int k = 0; k < m; k++) {
        A[(size_t)(s + 1 + k) * (size_t)n + (size_t)lambda] = 1.0;
        A[(size_t)lambda * (size_t)n + (size_t)(s + 1 + k)] = -1.0;
      }
      A[(size_t)lambda * (size_t)n + (size_t)s] = w->contacts[j].friction;
    }
  }
  return CLT_OK;
}

static int int_order(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* CSR with sorted column indices: row vp couples with the unknowns of its bodies' rows and, for a
 * contact, with its own cone entries. */
static clt_status_t assemble_csr(const clt_world_t *world, clt_step_work_t *w, clt_problem_kind_t kind, int n) {
  int nb = world->body_count, nj = w->joint_rows;
  if (!clt_step_work_grow_ints(&w->body_start, &w->body_start_capacity, nb + 2) ||
      !clt_step_work_grow_ints(&w->body_list, &w->body_list_capacity, 2 * n) ||
      !clt_step_work_grow_ints(&w->csr_row_ptr, &w->csr_row_capacity, n + 1))
    return CLT_ERR_OUT_OF_MEMORY;
  int *start = w->body_start;
  memset(start, 0, (size_t)(nb + 2) * sizeof *start);
  for (int v = 0; v < n; v++) {
    int p = unknown_row(w, kind, v);
    if (p < 0) continue;
    const clt_row_t *r = &w->rows[p];
    if (r->body_a >= 0 && w->inv_linear[r->body_a] > 0.0) start[r->body_a + 2]++;
    if (r->body_b >= 0 && w->inv_linear[r->body_b] > 0.0) start[r->body_b + 2]++;
  }
  for (int i = 0; i < nb; i++) start[i + 2] += start[i + 1];
  for (int v = 0; v < n; v++) { /* start[i + 1] runs as the fill cursor of body i */
    int p = unknown_row(w, kind, v);
    if (p < 0) continue;
    const clt_row_t *r = &w->rows[p];
    if (r->body_a >= 0 && w->inv_linear[r->body_a] > 0.0) w->body_list[start[r->body_a + 1]++] = v;
    if (r->body_b >= 0 && w->inv_linear[r->body_b] > 0.0) w->body_list[start[r->body_b + 1]++] = v;
  }
  /* now body i's unknowns are body_list[start[i], start[i + 1]), in increasing order */
  int nnz = 0;
  w->csr_row_ptr[0] = 0;
  int blk = contact_block(w, kind), m = w->friction_directions;
  for (int vp = 0; vp < n; vp++) {
    int p = unknown_row(w, kind, vp), count = 0;
    int bodies[2] = {-1, -1};
    if (p >= 0) {
      bodies[0] = w->rows[p].body_a;
      bodies[1] = w->rows[p].body_b;
    }
    int needed = 2 + blk;
    for (int k = 0; k < 2; k++)
      if (bodies[k] >= 0 && w->inv_linear[bodies[k]] > 0.0) needed += start[bodies[k] + 1] - start[bodies[k]];
    if (!clt_step_work_grow_ints(&w->scratch, &w->scratch_capacity, needed)) return CLT_ERR_OUT_OF_MEMORY;
    int *cols = w->scratch;
    for (int k = 0; k < 2; k++) {
      int b = bodies[k];
      if (b < 0 || !(w->inv_linear[b] > 0.0)) continue;
      for (int i = start[b]; i < start[b + 1]; i++) cols[count++] = w->body_list[i];
    }
    if (kind.friction && vp >= nj) {
      int s = nj + (vp - nj) / blk * blk, kp = (vp - nj) % blk;
      if (kp >= 1 && kp <= m) cols[count++] = s + m + 1;
      if (kp == m + 1)
        for (int k = 0; k <= m; k++) cols[count++] = s + k;
    }
    if (!clt_sort(cols, (size_t)count, sizeof *cols, int_order, &w->arena)) return CLT_ERR_OUT_OF_MEMORY;
    int unique = 0;
    for (int i = 0; i < count; i++)
      if (unique == 0 || cols[i] != cols[unique - 1]) cols[unique++] = cols[i];
    if (!clt_step_work_grow_ints(&w->csr_col, &w->csr_capacity, nnz + unique)) return CLT_ERR_OUT_OF_MEMORY;
    if (!clt_step_work_grow_doubles(&w->csr_val, &w->csr_val_capacity, nnz + unique)) return CLT_ERR_OUT_OF_MEMORY;
    for (int i = 0; i < unique; i++) {
      int vq = cols[i], q = unknown_row(w, kind, vq);
      w->csr_col[nnz] = vq;
      w->csr_val[nnz] = p >= 0 && q >= 0 ? row_product(w, p, q) + (vp == vq ? row_eps(w, p) : 0.0)
                                         : cone_entry(w, kind, vp, vq);
      nnz++;
    }
    w->csr_row_ptr[vp + 1] = nnz;
  }
  return CLT_OK;
}

/* Dense solve of A c = −b (joints only). */
static void solve_equalities(clt_step_work_t *w, int n, clt_solve_result_t *r) {
  int info = 0, one = 1;
  memcpy(w->chol, w->A, (size_t)n * (size_t)n * sizeof *w->chol);
  for (int i = 0; i < n; i++) w->z[i] = -w->b[i];
  if (w->symmetric) {
    clt_dpotrf("L", &n, w->chol, &n, &info);
    if (info == 0) clt_dpotrs("L", &n, &one, w->chol, &n, w->z, &n, &info);
  } else {
    info = 1;
  }
  if (info != 0) { /* not symmetric, or not numerically positive definite: LU */
    memcpy(w->chol, w->A, (size_t)n * (size_t)n * sizeof *w->chol);
    for (int i = 0; i < n; i++) w->z[i] = -w->b[i];
    clt_dgetrf(&n, &n, w->chol, &n, w->ipiv, &info);
    /* chol holds Aᵀ in column-major order, so solve the transposed system. */
    if (info == 0) clt_dgetrs("T", &n, &one, w->chol, &n, w->ipiv, w->z, &n, &info);
  }
  r->iterations = 1;
  for (int i = 0; i < n; i++) {
    double s = w->b[i];
    for (int j = 0; j < n; j++) s += w->A[(size_t)i * (size_t)n + (size_t)j] * w->z[j];
    w->w[i] = s;
  }
  r->residual_abs = norm_inf(w->w, n);
  r->residual = r->residual_abs / (1.0 + norm_inf(w->b, n));
  if (info == CLT_ALGEBRA_UNAVAILABLE) {
    r->status = CLT_SOLVE_ERROR;
    snprintf(r->message, sizeof r->message, "joint system: %.140s", clt_algebra_error());
  } else if (info != 0) {
    r->status = CLT_SOLVE_ERROR;
    snprintf(r->message, sizeof r->message, "joint system singular (LAPACK info %d)", info);
  } else {
    r->status = isfinite(r->residual) ? CLT_SOLVE_SOLVED : CLT_SOLVE_ERROR;
  }
}

/* z from the memory of the last step (rows.h): joint impulses by (joint, component); contact
 * impulses by key, the friction vector re-expressed on this step's two generators that bracket
 * it (β ≥ 0). Only the state is read, so a resumed run warm-starts identically. */
static void warm_start(const clt_world_t *world, clt_step_work_t *w, clt_problem_kind_t kind) {
  int nj = w->joint_rows, blk = contact_block(w, kind), m = w->friction_directions;
  for (int i = 0; i < nj; i++) {
    /* Joint impulses from the memory; the implicit elements' rows (owners past the joints) start
     * from 0: their impulses are not part of the checkpointed state (state.c), and a resumed run
     * must warm-start identically. */
    int slot = CLT_JOINT_SLOTS * w->joint_row_owner[i] + w->joint_row_component[i];
    bool joint = w->joint_row_owner[i] < world->joint_count;
    w->z[i] = joint && slot < w->joint_impulse_capacity ? w->joint_impulse[slot] : 0.0;
  }
  for (int j = 0; j < w->contact_count; j++) {
    const clt_contact_t *c = &w->contacts[j];
    double *z = w->z + nj + j * blk;
    memset(z, 0, (size_t)blk * sizeof *z);
    const clt_contact_memory_t *mem = clt_find_contact_memory(w, c->shape_a, c->shape_b, c->feature);
    if (!mem) continue;
    z[0] = mem->normal_impulse;
    z[m + 1] = mem->slip;
    double t1[3], t2[3];
    clt_contact_basis(world, w, j, t1, t2);
    double f1 = mem->tangent_impulse[0] * t1[0] + mem->tangent_impulse[1] * t1[1] + mem->tangent_impulse[2] * t1[2];
    if (world->dimension == 2) {
      z[1] = f1 > 0.0 ? f1 : 0.0;
      z[2] = f1 < 0.0 ? -f1 : 0.0;
      continue;
    }
    double f2 = mem->tangent_impulse[0] * t2[0] + mem->tangent_impulse[1] * t2[1] + mem->tangent_impulse[2] * t2[2];
    if (f1 == 0.0 && f2 == 0.0) continue;
    double sector = 6.283185307179586476925286766559 / (double)m;
    double phi = atan2(f2, f1);
    if (phi < 0.0) phi += 6.283185307179586476925286766559;
    int k = (int)(phi / sector);
    if (k >= m) k = m - 1;
    int k1 = (k + 1) % m;
    double a0 = sector * k, a1 = sector * (k + 1);
    double det = sin(a1 - a0); /* [cos a0, cos a1; sin a0, sin a1] β = (f1, f2) */
    double b0 = (f1 * sin(a1) - f2 * cos(a1)) / det, b1 = (f2 * cos(a0) - f1 * sin(a0)) / det;
    z[1 + k] = b0 > 0.0 ? b0 : 0.0;
    z[1 + k1] = b1 > 0.0 ? b1 : 0.0;
  }
}

clt_status_t clt_solve_rows(clt_world_t *world, clt_step_work_t *w, clt_problem_kind_t kind, clt_diagnostics_t *d) {
  int nj = w->joint_rows, nc = w->contact_count;
  int blk = contact_block(w, kind);
  int n = nj + nc * blk;
  int rows = nj + nc * contact_rows(w, kind);
  d->lcp_size = n;
  d->solver_status = CLT_SOLVE_NONE;
  d->iterations = 0;
  d->residual = 0.0;
  if (n == 0) return CLT_OK;
  int nfree = nj - w->bounded_rows; /* the bounded rows come last among the joint rows */
  int joint_blocks = w->bounded_rows;
  for (int i = 0; i < nfree; i++)
    if (i == 0 || w->joint_row_owner[i] != w->joint_row_owner[i - 1]) joint_blocks++;
  if (!clt_step_work_reserve_problem(w, n, joint_blocks + nc))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (step problem of size %d)", n);

  for (int p = 0; p < rows; p++) {
    const clt_row_t *r = &w->rows[p];
    side_minv(w, r->body_a, r->jac.linear_a, r->jac.angular_a, w->row_minv + 12 * (size_t)p);
    side_minv(w, r->body_b, r->jac.linear_b, r->jac.angular_b, w->row_minv + 12 * (size_t)p + 6);
  }
  for (int vp = 0; vp < n; vp++) {
    int p = unknown_row(w, kind, vp);
    w->b[vp] = p < 0 ? 0.0 : w->row_bias[p] + (kind.velocity ? clt_row_velocity(world, &w->rows[p]) : 0.0);
  }
  if (!isfinite(norm_inf(w->b, n))) {
    /* A diverged state (e.g. an explicit stiff damper past its stability limit, 004 §3.2): the free
     * velocity overflowed. Reported as such, not as a solver failure. */
    bool explicit_elements = false;
    for (int k = 0; k < world->force_count; k++)
      if (clt_force_is_element(&world->forces[k]) && world->forces[k].treatment == CLT_TREAT_EXPLICIT)
        explicit_elements = true;
    return clt_world_fail(world, CLT_ERR_DIVERGED,
                          "step %lld: the simulation diverged: the velocities are no longer finite%s", (long long)d->step,
                          explicit_elements ? " (explicit spring-damper elements are unstable when h·damping/mass or "
                                              "h²·stiffness/mass is large; use treatment implicit, SPEC.md §4)"
                                            : "");
  }
  /* Dense for Lemke (a dense method) and the joint equalities; CSR for block Gauss–Seidel, where
   * only unknowns that share a body couple (memory ∝ contacts, not contacts²). */
  w->dense = nc == 0 || world->method.solver == CLT_SOLVER_LEMKE;
  clt_status_t st = w->dense ? assemble_dense(w, kind, n) : assemble_csr(world, w, kind, n);
  if (st != CLT_OK) return clt_world_fail(world, st, "step: out of memory (step problem of size %d)", n);
  double *A = w->A;

  clt_solve_result_t result;
  memset(&result, 0, sizeof result);
  if (nc == 0 && w->bounded_rows == 0) {
    solve_equalities(w, n, &result);
  } else {
    int nb = 0;
    for (int i = 0; i < nfree; i++)
      if (i == 0 || w->joint_row_owner[i] != w->joint_row_owner[i - 1]) w->block_start[nb++] = i;
    for (int i = nfree; i < nj; i++) w->block_start[nb++] = i;
    for (int j = 0; j < nc; j++) w->block_start[nb++] = nj + j * blk;
    w->block_start[nb] = n;
    clt_matrix_t M = {CLT_MATRIX_DENSE, n, n, A, NULL, NULL, 0};
    if (!w->dense) {
      M.kind = CLT_MATRIX_CSR;
      M.values = w->csr_val;
      M.row_ptr = w->csr_row_ptr;
      M.col_index = w->csr_col;
      M.nnz = w->csr_row_ptr[n];
    }
    clt_lcp_t problem = {n, &M, NULL, w->b, nj, w->block_start, nb, NULL, NULL};
    if (w->bounded_rows > 0) {
      /* (from the arena, until the stage ends) */
      double *lower = CLT_ARENA_NEW(&w->arena, double, n), *upper = CLT_ARENA_NEW(&w->arena, double, n);
      if (!lower || !upper) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (bounds)");
      for (int i = 0; i < n; i++) {
        lower[i] = 0.0;
        upper[i] = INFINITY;
      }
      for (int i = nfree; i < nj; i++) {
        lower[i] = w->row_bounds[2 * (i - nfree)];
        upper[i] = w->row_bounds[2 * (i - nfree) + 1];
      }
      problem.free_count = nfree;
      problem.lower = lower;
      problem.upper = upper;
    }
    clt_solver_options_t o = clt_default_solver_options();
    o.tolerance = world->method.tolerance;
    o.max_iterations = world->method.max_iterations;
    o.relaxation = world->method.relaxation;
    o.threads = 1;
    o.arena = &w->arena;
    o.warm_start = kind.velocity && world->method.warm_start && world->method.solver != CLT_SOLVER_LEMKE;
    if (o.warm_start)
      warm_start(world, w, kind);
    else
      memset(w->z, 0, (size_t)n * sizeof *w->z);
    /* joints with limits or motors and no contact: a small dense problem, solved exactly (as the
     * joint system above is) whatever method.solver says for contacts */
    clt_solver_kind_t solver = nc == 0 ? CLT_SOLVER_LEMKE : world->method.solver;
    bool warm_nonzero = false; /* a start from memory, not from zero */
    for (int i = 0; o.warm_start && i < n && !warm_nonzero; i++) warm_nonzero = w->z[i] != 0.0;
    st = clt_lcp_solve(solver, &problem, &o, w->z, w->w, &result);
    if (clt_algebra_error()) /* no LAPACK (base/algebra.h): not a failed solve for a fallback to hide */
      return clt_world_fail(world, CLT_ERR_UNSUPPORTED, "step %lld: %s solver: %s", (long long)d->step,
                            clt_solver_kind_name(solver), clt_algebra_error());
    if (st == CLT_OK && warm_nonzero && result.status != CLT_SOLVE_SOLVED) {
      /* A warm start can leave block Gauss–Seidel creeping along the non-unique directions of a
       * degenerate contact set; a cold start from zero is then tried as well. */
      clt_solve_result_t cold;
      memset(&cold, 0, sizeof cold);
      o.warm_start = false;
      st = clt_lcp_solve(solver, &problem, &o, w->z, w->w, &cold);
      result.iterations += cold.iterations;
      result.status = cold.status;
      result.residual = cold.residual;
      result.residual_abs = cold.residual_abs;
      memcpy(result.message, cold.message, sizeof result.message);
    }
    if (st == CLT_OK && solver == CLT_SOLVER_LEMKE &&
        (result.status == CLT_SOLVE_RAY || result.status == CLT_SOLVE_MAX_ITERATIONS)) {
      /* Lemke stopped on a ray or at the pivot limit: on the degenerate LCP of stacked boxes (4-point
       * manifolds, dependent rows) this is floating-point trouble, and the end point is usually within
       * round-off of a solution. Polish it by active-set Newton steps (clt_lcp_polish); the step is
       * solved only if the residual then meets the tolerance on this problem. */
      clt_solve_result_t polished;
      memset(&polished, 0, sizeof polished);
      o.max_iterations = POLISH_STEPS;
      st = clt_lcp_polish(&problem, &o, w->z, w->w, &polished);
      if (st == CLT_OK && polished.status == CLT_SOLVE_SOLVED) {
        polished.iterations += result.iterations;
        result = polished;
      }
    }
    if (st == CLT_OK && solver == CLT_SOLVER_LEMKE &&
        (result.status == CLT_SOLVE_RAY || result.status == CLT_SOLVE_MAX_ITERATIONS ||
         ((result.status == CLT_SOLVE_ERROR || result.status == CLT_SOLVE_NOT_CONVERGED) &&
          !(result.residual <= USABLE_RESIDUAL)))) {
      /* Lemke lost its way in floating point (a ray, cycling, or an ill-conditioned basis on a degenerate
       * contact set, e.g. stacked boxes with 4-point manifolds; 004 Thm 2.2 guarantees a solution in
       * exact arithmetic). Block Gauss–Seidel from the last step's impulses gives an approximate
       * one; its status and residual are what the diagnostics report. */
      clt_solve_result_t fallback;
      memset(&fallback, 0, sizeof fallback);
      warm_start(world, w, kind);
      o.warm_start = true;
      o.max_iterations = world->method.max_iterations < LEMKE_FALLBACK_SWEEPS ? world->method.max_iterations
                                                                              : LEMKE_FALLBACK_SWEEPS;
      st = clt_lcp_solve(CLT_SOLVER_BGS, &problem, &o, w->z, w->w, &fallback);
      fallback.iterations += result.iterations;
      result = fallback;
      if (st == CLT_OK && result.status != CLT_SOLVE_SOLVED && result.status != CLT_SOLVE_ERROR) {
        clt_solve_result_t polished;
        memset(&polished, 0, sizeof polished);
        double *z_keep = CLT_ARENA_NEW(&w->arena, double, n); /* (until the stage ends) */
        if (z_keep) {
          memcpy(z_keep, w->z, (size_t)n * sizeof *z_keep);
          o.max_iterations = POLISH_STEPS;
          st = clt_lcp_polish(&problem, &o, w->z, w->w, &polished);
          if (st == CLT_OK && polished.residual < result.residual) {
            polished.iterations += result.iterations;
            result = polished;
          } else { /* keep the BGS iterate and its w */
            memcpy(w->z, z_keep, (size_t)n * sizeof *z_keep);
            clt_matrix_multiply(&M, w->z, w->w);
            for (int i = 0; i < n; i++) w->w[i] += w->b[i];
          }
        }
      }
    }
    if (st != CLT_OK)
      return clt_world_fail(world, st, "step %lld: %s solver refused the step problem: %s", (long long)d->step,
                            clt_solver_kind_name(solver), result.message);
    if (result.status == CLT_SOLVE_ERROR && result.iterations == 0)
      /* the solver does not apply to this problem (e.g. APGD/BBPGD need a symmetric matrix and the
       * friction LCP is not): a configuration error, not a failed step */
      return clt_world_fail(world, CLT_ERR_UNSUPPORTED, "step %lld: method.solver %s cannot solve the step problem: %s",
                            (long long)d->step, clt_solver_kind_name(solver), result.message);
  }
  w->lcp_n = n;
  w->z_bracket = false;
  d->solver_status = result.status;
  d->iterations = result.iterations;
  d->residual = result.residual;
  /* Impulses that are applied: a solution, the last iterate of an iterative solver, and an answer
   * whose residual only just missed the tolerance (Lemke's complementary basis, a stalled gradient
   * method: not_converged in the diagnostics; an error whose iterate is as close). Never those of
   * a ray, of a solver that did not apply, or non-finite ones: then no impulse at all. */
  bool near = result.status == CLT_SOLVE_ERROR || result.status == CLT_SOLVE_NOT_CONVERGED;
  bool usable = result.status == CLT_SOLVE_SOLVED || result.status == CLT_SOLVE_MAX_ITERATIONS ||
                (near && result.iterations > 0 && result.residual <= USABLE_RESIDUAL);
  for (int i = 0; usable && i < n; i++)
    if (!isfinite(w->z[i])) usable = false;
  if (!usable) memset(w->z, 0, (size_t)n * sizeof *w->z);
  if (result.status != CLT_SOLVE_SOLVED) {
    const char *what = clt_solver_status_name(result.status);
    if (world->method.on_unconverged == CLT_UNCONVERGED_ABORT)
      return clt_world_fail(world, CLT_ERR_SOLVER, "step %lld: the step problem (size %d) was not solved: %s, residual %.3g%s%s",
                            (long long)d->step, n, what, result.residual, result.message[0] ? ": " : "", result.message);
    if (world->method.on_unconverged == CLT_UNCONVERGED_WARN)
      clt_world_log(world, CLT_LOG_WARNING, "step %lld: the step problem (size %d) was not solved: %s, residual %.3g",
                    (long long)d->step, n, what, result.residual);
  }
  return CLT_OK;
}

void clt_apply_impulses(clt_world_t *world, const clt_step_work_t *w, clt_problem_kind_t kind, double *dv) {
  int nj = w->joint_rows, nc = w->contact_count;
  int n = nj + nc * contact_block(w, kind);
  if (dv) memset(dv, 0, (size_t)world->body_count * 6 * sizeof *dv);
  if (w->lcp_n != n) return;
  for (int v = 0; v < n; v++) {
    int p = unknown_row(w, kind, v);
    double zv = w->z[v];
    if (p < 0 || zv == 0.0) continue;
    const clt_row_t *r = &w->rows[p];
    const int body[2] = {r->body_a, r->body_b};
    for (int side = 0; side < 2; side++) {
      int i = body[side];
      if (i < 0 || world->bodies[i].type != CLT_BODY_DYNAMIC) continue;
      const double *m = w->row_minv + 12 * (size_t)p + 6 * (size_t)side;
      if (dv) {
        for (int k = 0; k < 6; k++) dv[6 * (size_t)i + (size_t)k] += zv * m[k];
      } else {
        clt_body_state_t *s = &world->states[i];
        if (world->dimension == 2) {
          s->velocity[0] += zv * m[0];
          s->velocity[1] += zv * m[1];
          s->angular_velocity[0] += zv * m[3];
        } else {
          for (int k = 0; k < 3; k++) {
            s->velocity[k] += zv * m[k];
            s->angular_velocity[k] += zv * m[3 + k];
          }
        }
      }
    }
  }
}

/* Stage "solve": the step problem of the dynamics (friction rows, b = J v_free + bias), then
 * v⁺ = v_free + M̂⁻¹ N z. */
clt_status_t clt_stage_solve(clt_step_context_t *c) {
  clt_problem_kind_t kind = {true, true};
  c->diagnostics->contacts = c->work->contact_count;
  clt_status_t st = clt_solve_rows(c->world, c->work, kind, c->diagnostics);
  if (st != CLT_OK) return st;
  clt_apply_impulses(c->world, c->work, kind, NULL);
  clt_record_spring_targets(c->world, c->work, c->h);
  return CLT_OK;
}
