/* The PSD LCP of one ReLCP pass (SPEC.md §6.2, §2; relcp.h):
 *     λ ≥ 0 ⊥ A λ + b ≥ 0,   A = h Dᵀ B D,
 * with the existing solvers (clt_lcp_solve). Small problems (and Lemke, which needs the matrix)
 * get A dense; larger ones a matrix-free operator: y = h Dᵀ (B (D x)), D x accumulated per body over
 * that body's constraints in increasing order and each y_k one fixed sum, so the product — and the
 * solve — is bit-identical for any OpenMP thread count (the pattern of stage_solve_relaxed.c).
 * method.solver = bgs on the matrix-free path runs the dedicated coloured projected Gauss–Seidel of
 * relcp_pgs.c (B D λ kept per body: O(1) per scalar update; over-relaxed by method.relaxation).
 * Measured on ReLCP passes of a compact 1000-ellipsoid suspension (≈ 4900 constraints, tolerance
 * 1e-8) and of a 512-cell colony (1500–2200 constraints, 1e-6): PGS needs 1.8–11× BBPGD's / APGD's
 * iteration count at ω = 1.8 (8–30× at ω = 1), a sweep costing about 1.6 operator products,
 * so apgd / bbpgd stay the faster choices there; a Jacobi scaling of A changes their iteration
 * counts by −15 … +27 % (diag(A) varies by < 1.5× on these problems).
 * method.solver = newton runs the sparse-direct interior-point Newton of relcp_newton.c (CHOLMOD;
 * 10–25 factorizations whatever the conditioning or rank deficiency of A), falling back to APGD
 * from its best iterate if it stops short of the tolerance. Measured (CPU time, one thread) on
 * five saved passes of a 1400-cell colony (1500–2200 constraints, tolerance 1e-6): 14–17 steps,
 * 1.3–4.5× less CPU than APGD (690–3500 iterations); on the growing colony (scenes/papers/
 * colony.json, 11 generations) 2.9× less CPU over the run, 4.5× on the division step at 2048 cells
 * (APGD: 96 000 iterations). On the 3D 1000-ellipsoid suspension (4 900 constraints) the factor
 * fills in and it is ~11× slower than APGD. A short APGD probe from the warm start before the
 * interior point (which cannot exploit a warm start) was tried: no measurable gain on the colony.
 * A solve that ends on a ray or short of the tolerance is polished (clt_lcp_polish) when the
 * matrix is dense; what remains unconverged is reported in the diagnostics and, with
 * on_unconverged = abort, fails the step in stage_relcp.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/solvers.h"
#include "steppers/relcp.h"
#include "steppers/relcp_newton.h"
#include "steppers/relcp_pgs.h"
#include "base/parallel.h"

/* Dense below this many constraints whatever the solver (assembly O(n²) memory, cheap products). */
#define RELCP_DENSE_MAX 256
/* Lemke needs the dense matrix; beyond this it is refused (n² doubles, O(n³) pivots). */
#define RELCP_LEMKE_MAX 3000
/* The most interior-point steps of method.solver = newton before it falls back to APGD (it
 * converges in 10–25 on colony and suspension passes, relcp_newton.c). */
#define RELCP_NEWTON_MAX_STEPS 100
/* Below this many unknowns the operator runs on one thread (result unchanged). */
#define RELCP_PARALLEL_MIN 4096

static bool grow(void **p, int *capacity, int needed, size_t size) {
  if (needed <= *capacity) return true;
  int cap = *capacity > 0 ? *capacity : 64;
  while (cap < needed) cap *= 2;
  void *q = realloc(*p, (size_t)cap * size);
  if (!q) return false;
  *p = q;
  *capacity = cap;
  return true;
}

typedef struct relcp_op_t {
  const clt_world_t *world;
  const clt_relcp_work_t *work;
  int n;
  double h;
} relcp_op_t;

static double side_dot(const double lin[3], const double ang[3], const double *u) {
  return lin[0] * u[0] + lin[1] * u[1] + lin[2] * u[2] + ang[0] * u[3] + ang[1] * u[4] + ang[2] * u[5];
}

clt_body_rows_t clt_relcp_operator(const clt_relcp_work_t *w, int bodies, double h) {
  clt_body_rows_t op = {.n = w->count, .bodies = bodies, .jac = w->jr, .minv_jt = w->bj, .body = w->jb,
                        .jac_stride = CLT_BODY_ROWS_PACKED_JAC, .body_stride = CLT_BODY_ROWS_PACKED_BODY,
                        .body_start = w->body_start, .body_entry = w->body_entry,
                        .active = w->active, .active_count = w->active_count, .scale = h, .u = w->accumulator};
  return op;
}

void clt_relcp_apply(const clt_relcp_work_t *w, double h, bool parallel, const double *x, double *y) {
  clt_body_rows_t op = clt_relcp_operator(w, 0, h);
  clt_body_rows_apply(&op, parallel, x, y);
}

static void op_apply(void *user, const double *x, double *y) {
  const relcp_op_t *o = user;
  clt_relcp_apply(o->work, o->h, o->n >= RELCP_PARALLEL_MIN, x, y);
}

/* Per-body lists of (constraint, side) over dynamic bodies, constraints in increasing order. */
static bool build_lists(const clt_world_t *world, clt_relcp_work_t *w) {
  int nb = world->body_count, n = w->count;
  if (!grow((void **)&w->body_start, &w->body_start_capacity, nb + 1, sizeof(int)) ||
      !grow((void **)&w->body_entry, &w->body_entry_capacity, 2 * n + 1, sizeof(int)) ||
      !grow((void **)&w->accumulator, &w->accumulator_capacity, 6 * nb + 6, sizeof(double)) ||
      !grow((void **)&w->active, &w->active_capacity, nb + 1, sizeof(int)))
    return false;
  int cc = w->compact_capacity;
  if (!grow((void **)&w->jr, &cc, n + 1, 12 * sizeof(double))) return false;
  cc = w->compact_capacity;
  if (!grow((void **)&w->jb, &cc, n + 1, 2 * sizeof(int))) return false;
  w->compact_capacity = cc;
  for (int p = 0; p < n; p++) {
    const clt_relcp_constraint_t *c = &w->constraints[p];
    double *j = w->jr + 12 * (size_t)p;
    memcpy(j, c->jac.linear_a, 3 * sizeof *j);
    memcpy(j + 3, c->jac.angular_a, 3 * sizeof *j);
    memcpy(j + 6, c->jac.linear_b, 3 * sizeof *j);
    memcpy(j + 9, c->jac.angular_b, 3 * sizeof *j);
    w->jb[2 * p] = world->bodies[c->body_a].type == CLT_BODY_DYNAMIC ? c->body_a : -1;
    w->jb[2 * p + 1] = world->bodies[c->body_b].type == CLT_BODY_DYNAMIC ? c->body_b : -1;
  }
  memset(w->body_start, 0, sizeof(int) * (size_t)(nb + 1));
  for (int p = 0; p < n; p++) {
    const clt_relcp_constraint_t *c = &w->constraints[p];
    if (world->bodies[c->body_a].type == CLT_BODY_DYNAMIC) w->body_start[c->body_a + 1]++;
    if (world->bodies[c->body_b].type == CLT_BODY_DYNAMIC) w->body_start[c->body_b + 1]++;
  }
  for (int i = 0; i < nb; i++) w->body_start[i + 1] += w->body_start[i];
  /* fill, using body_start[i] as body i's cursor (it ends at the start of body i + 1) */
  for (int p = 0; p < n; p++) {
    const clt_relcp_constraint_t *c = &w->constraints[p];
    if (world->bodies[c->body_a].type == CLT_BODY_DYNAMIC) w->body_entry[w->body_start[c->body_a]++] = 2 * p;
    if (world->bodies[c->body_b].type == CLT_BODY_DYNAMIC) w->body_entry[w->body_start[c->body_b]++] = 2 * p + 1;
  }
  /* body_start[i] now holds the end of body i: shift back */
  for (int i = nb; i > 0; i--) w->body_start[i] = w->body_start[i - 1];
  w->body_start[0] = 0;
  w->active_count = 0;
  for (int i = 0; i < nb; i++)
    if (w->body_start[i + 1] > w->body_start[i]) w->active[w->active_count++] = i;
  return true;
}

static void build_dense(const clt_world_t *world, clt_relcp_work_t *w, double h) {
  int n = w->count, nb = world->body_count;
  double *a = w->dense;
  memset(a, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int b = 0; b < nb; b++) {
    for (int e = w->body_start[b]; e < w->body_start[b + 1]; e++) {
      int p = w->body_entry[e] >> 1, sp = w->body_entry[e] & 1;
      const clt_relcp_constraint_t *c = &w->constraints[p];
      const double *lin = sp ? c->jac.linear_b : c->jac.linear_a;
      const double *ang = sp ? c->jac.angular_b : c->jac.angular_a;
      for (int f = w->body_start[b]; f < w->body_start[b + 1]; f++) {
        int q = w->body_entry[f] >> 1, sq = w->body_entry[f] & 1;
        a[(size_t)p * (size_t)n + (size_t)q] += h * side_dot(lin, ang, w->bj + 12 * (size_t)q + 6 * (size_t)sq);
      }
    }
  }
  /* exact symmetry (B is symmetric; rounding of the two orders may differ in the last bit) */
  for (int p = 0; p < n; p++)
    for (int q = p + 1; q < n; q++) {
      double s = 0.5 * (a[(size_t)p * (size_t)n + (size_t)q] + a[(size_t)q * (size_t)n + (size_t)p]);
      a[(size_t)p * (size_t)n + (size_t)q] = a[(size_t)q * (size_t)n + (size_t)p] = s;
    }
}

clt_status_t clt_relcp_solve(clt_world_t *world, clt_relcp_work_t *w, double h, clt_diagnostics_t *d) {
  int n = w->count;
  const clt_method_t *m = &world->method;
  if (n == 0) return CLT_OK;
  if (!build_lists(world, w)) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory (%d constraints)", n);
  bool lemke = m->solver == CLT_SOLVER_LEMKE;
  if (lemke && n > RELCP_LEMKE_MAX)
    return clt_world_fail(world, CLT_ERR_UNSUPPORTED,
                          "relcp: %d constraints are too many for Lemke (dense, at most %d); use solver apgd, "
                          "bbpgd or bgs",
                          n, RELCP_LEMKE_MAX);
  bool dense = lemke || n <= RELCP_DENSE_MAX;
  clt_matrix_t matrix;
  memset(&matrix, 0, sizeof matrix);
  relcp_op_t user = {world, w, n, h};
  clt_operator_t op;
  memset(&op, 0, sizeof op);
  clt_lcp_t problem;
  memset(&problem, 0, sizeof problem);
  problem.n = n;
  problem.q = w->b;
  if (dense) {
    if ((size_t)n * (size_t)n > (size_t)w->dense_capacity) {
      double *a = realloc(w->dense, sizeof(double) * (size_t)n * (size_t)n);
      if (!a) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory (dense %d x %d)", n, n);
      w->dense = a;
      w->dense_capacity = n * n;
    }
    build_dense(world, w, h);
    matrix.kind = CLT_MATRIX_DENSE;
    matrix.rows = matrix.cols = n;
    matrix.values = w->dense;
    problem.M = &matrix;
  } else {
    for (int p = 0; p < n; p++) {
      const clt_relcp_constraint_t *c = &w->constraints[p];
      w->diagonal[p] = h * (side_dot(c->jac.linear_a, c->jac.angular_a, w->bj + 12 * (size_t)p) +
                            side_dot(c->jac.linear_b, c->jac.angular_b, w->bj + 12 * (size_t)p + 6));
    }
    op.n = n;
    op.apply = op_apply;
    op.user = &user;
    op.diagonal = w->diagonal;
    problem.op = &op;
  }
  /* the step's scratch; none when called outside a step (the solvers then allocate their own) */
  clt_arena_t *arena = world->step_work ? &world->step_work->arena : NULL;
  clt_solver_options_t o = clt_default_solver_options();
  o.tolerance = m->tolerance;
  o.max_iterations = m->max_iterations;
  o.relaxation = m->relaxation;
  o.warm_start = true; /* λ_prev padded with zeros (SPEC.md §6.2) */
  o.arena = arena;
  clt_solve_result_t r;
  memset(&r, 0, sizeof r);
  clt_status_t st = CLT_OK;
  int newton_steps = 0;
  bool newton_solved = false;
  if (m->solver == CLT_SOLVER_NEWTON) {
    /* sparse-direct interior point (relcp_newton.c); anything short of the tolerance — a stall, a
     * failed factorization — continues with APGD from its best iterate, so a newton pass is never
     * less accurate than an apgd one */
    clt_relcp_newton_options_t no = {m->tolerance, m->max_iterations < RELCP_NEWTON_MAX_STEPS ? m->max_iterations : RELCP_NEWTON_MAX_STEPS,
                                     n >= RELCP_PARALLEL_MIN, arena};
    st = clt_relcp_newton_solve(w, h, &no, &r);
    if (st != CLT_OK)
      return clt_world_fail(world, st, "relcp: LCP of %d constraints: %s", n, r.message[0] ? r.message : "newton failed");
    newton_steps = r.iterations;
    newton_solved = r.status == CLT_SOLVE_SOLVED;
    if (!newton_solved && m->on_unconverged == CLT_UNCONVERGED_WARN)
      clt_world_log(world, CLT_LOG_WARNING, "relcp: newton on %d constraints fell back to apgd (%s)", n, r.message);
  }
  clt_solver_kind_t kind = m->solver == CLT_SOLVER_NEWTON ? CLT_SOLVER_APGD : m->solver;
  if (newton_solved) {
    /* done: λ from relcp_newton.c (w recomputed below) */
  } else if (!dense && kind == CLT_SOLVER_BGS) {
    /* the dedicated coloured PGS (relcp_pgs.c): O(1) per scalar update, parallel, deterministic */
    clt_relcp_pgs_options_t po = {m->tolerance, m->max_iterations, m->relaxation, n >= RELCP_PARALLEL_MIN,
                                  arena};
    st = clt_relcp_pgs_solve(w, world->body_count, h, &po, &r);
  } else {
    st = clt_lcp_solve(kind, &problem, &o, w->lambda, w->w, &r);
  }
  if (st != CLT_OK)
    return clt_world_fail(world, st, "relcp: LCP of %d constraints: %s", n, r.message[0] ? r.message : "solver failed");
  int iterations = newton_steps + (newton_solved ? 0 : r.iterations);
  if (r.status != CLT_SOLVE_SOLVED && dense) {
    /* a ray or an inaccurate basis (degenerate: near-parallel frozen normals of one pair) */
    clt_solve_result_t polished;
    memset(&polished, 0, sizeof polished);
    clt_solver_options_t po = o;
    po.max_iterations = 50;
    double *saved = w->diagonal; /* scratch of n doubles */
    memcpy(saved, w->lambda, sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++)
      if (!(w->lambda[i] >= 0.0) || !isfinite(w->lambda[i])) w->lambda[i] = 0.0;
    if (clt_lcp_polish(&problem, &po, w->lambda, w->w, &polished) == CLT_OK &&
        (polished.status == CLT_SOLVE_SOLVED || polished.residual < r.residual || !isfinite(r.residual))) {
      iterations += polished.iterations;
      r = polished;
    } else {
      memcpy(w->lambda, saved, sizeof(double) * (size_t)n);
    }
  }
  /* w = A λ + b of the returned λ (the solvers' w may be of another iterate after a fallback) */
  if (problem.M)
    clt_matrix_multiply(&matrix, w->lambda, w->w);
  else
    op_apply(&user, w->lambda, w->w);
  for (int i = 0; i < n; i++) w->w[i] += w->b[i];
  d->iterations += iterations;
  d->residual = r.residual;
  d->solver_status = r.status;
  if (r.status != CLT_SOLVE_SOLVED && m->on_unconverged == CLT_UNCONVERGED_WARN)
    clt_world_log(world, CLT_LOG_WARNING, "relcp: the LCP of %d constraints did not converge (%s, residual %.3g)", n,
                  clt_solver_status_name(r.status), r.residual);
  if (r.status != CLT_SOLVE_SOLVED && m->on_unconverged == CLT_UNCONVERGED_ABORT)
    return clt_world_fail(world, CLT_ERR_SOLVER, "relcp: the LCP of %d constraints did not converge (%s, residual %.3g%s%s)",
                          n, clt_solver_status_name(r.status), r.residual, r.message[0] ? ": " : "", r.message);
  return CLT_OK;
}
