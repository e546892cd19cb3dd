/* LCP common code (SPEC.md §2): option defaults, products, the residual ("Residual" in §2), the
 * cone projection of §2.3 and the dispatcher of clt_lcp_solve / clt_cone_qp_solve. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/lcp_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

clt_solver_options_t clt_default_solver_options(void) {
  clt_solver_options_t o;
  memset(&o, 0, sizeof o);
  o.tolerance = 1e-10;
  o.max_iterations = 100000;
  o.relaxation = 1.0;
  o.warm_start = false;
  o.threads = 0;
  return o;
}

void lcp_set_message(clt_solve_result_t *result, const char *format, ...) {
  if (!result) return;
  va_list args;
  va_start(args, format);
  vsnprintf(result->message, sizeof result->message, format, args);
  va_end(args);
}

/* Below this size the OpenMP start-up costs more than the product. */
#define LCP_PARALLEL_MIN_ROWS 256

static void dense_rows(const clt_matrix_t *m, int lo, int hi, const double *x, const double *q,
                       double *y) {
  int n = m->cols;
  for (int i = lo; i < hi; i++) {
    double s = lcp_dot(m->values + (size_t)i * (size_t)n, x, n);
    y[i] = q ? s + q[i] : s;
  }
}

static void csr_rows(const clt_matrix_t *m, int lo, int hi, const double *x, const double *q,
                     double *y) {
  for (int i = lo; i < hi; i++) {
    double s = 0.0;
    for (int k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) s += m->values[k] * x[m->col_index[k]];
    y[i] = q ? s + q[i] : s;
  }
}

void lcp_apply(const clt_lcp_t *p, const double *x, const double *q, double *y, int threads) {
  int n = p->n;
  if (!p->M) {
    /* The operator's own product: its determinism is the caller's contract. */
    p->op->apply(p->op->user, x, y);
    if (q)
      for (int i = 0; i < n; i++) y[i] += q[i];
    return;
  }
  const clt_matrix_t *m = p->M;
  bool dense = m->kind == CLT_MATRIX_DENSE;
#ifdef _OPENMP
  /* Rows in fixed chunks, each row one sequential dot product: bit-identical for any thread
   * count. Small products stay out of the OpenMP runtime (its start-up costs more). */
  if (n >= LCP_PARALLEL_MIN_ROWS && threads != 1) {
    int nt = threads > 0 ? threads : omp_get_max_threads();
    int chunks = (n + 63) / 64;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int c = 0; c < chunks; c++) {
      int lo = 64 * c, hi = lo + 64 < n ? lo + 64 : n;
      if (dense)
        dense_rows(m, lo, hi, x, q, y);
      else
        csr_rows(m, lo, hi, x, q, y);
    }
    return;
  }
#else
  (void)threads;
#endif
  if (dense)
    dense_rows(m, 0, n, x, q, y);
  else
    csr_rows(m, 0, n, x, q, y);
}

double lcp_norm_inf(int n, const double *x) {
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}

double lcp_residual_abs(int n, int free_count, const double *z, const double *w) {
  double comp = 0.0, eq = 0.0;
  for (int i = 0; i < free_count; i++) {
    double a = fabs(w[i]);
    if (!(a <= eq)) eq = a; /* NaN propagates */
  }
  for (int i = free_count; i < n; i++) {
    double a = fabs(fmin(z[i], w[i]));
    if (isnan(z[i]) || isnan(w[i])) a = NAN;
    if (!(a <= comp)) comp = a;
  }
  return comp + eq;
}

bool lcp_has_bounds(const clt_lcp_t *p) {
  if (!p->lower && !p->upper) return false;
  for (int i = p->free_count; i < p->n; i++)
    if (lcp_lower(p, i) != 0.0 || lcp_upper(p, i) != INFINITY) return true;
  return false;
}

double lcp_problem_residual_abs(const clt_lcp_t *p, const double *z, const double *w) {
  if (!lcp_has_bounds(p)) return lcp_residual_abs(p->n, p->free_count, z, w);
  double comp = 0.0, eq = 0.0;
  for (int i = 0; i < p->free_count; i++) {
    double a = fabs(w[i]);
    if (!(a <= eq)) eq = a;
  }
  for (int i = p->free_count; i < p->n; i++) {
    double a = lcp_box_residual(z[i], w[i], lcp_lower(p, i), lcp_upper(p, i));
    if (!(a <= comp)) comp = a;
  }
  return comp + eq;
}

static clt_status_t validate(const clt_lcp_t *p, const clt_cone_set_t *cones, clt_solve_result_t *result);

double clt_lcp_residual(const clt_lcp_t *problem, const double *z) {
  clt_solve_result_t scratch;
  if (!z || validate(problem, NULL, &scratch) != CLT_OK) return NAN;
  int n = problem->n;
  double *w = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!w) return NAN;
  lcp_apply(problem, z, problem->q, w, 0);
  double r = lcp_problem_residual_abs(problem, z, w) / (1.0 + lcp_norm_inf(n, problem->q));
  free(w);
  return r;
}

/* Projection onto K_μ = {‖t‖ ≤ μ n} (data README §2.2 formula). */
static void project_cone(int dim, double mu, double *x) {
  double nrm = x[0];
  double t = dim == 3 ? hypot(x[1], x[2]) : fabs(x[1]);
  if (t <= mu * nrm && nrm >= 0.0) return; /* (n ≥ 0 matters for μ = 0: 0 ≤ 0 · n for any n) */
  if (mu * t <= -nrm) {
    for (int k = 0; k < dim; k++) x[k] = 0.0;
    return;
  }
  double a = (mu * t + nrm) / (mu * mu + 1.0);
  double s = t > 0.0 ? mu * a / t : 0.0;
  x[0] = a;
  for (int k = 1; k < dim; k++) x[k] *= s;
}

void lcp_project(const clt_lcp_t *p, const clt_cone_set_t *cones, double *z) {
  bool bounds = lcp_has_bounds(p);
  if (!cones || cones->count == 0) {
    if (bounds)
      for (int i = p->free_count; i < p->n; i++) z[i] = lcp_clamp(z[i], lcp_lower(p, i), lcp_upper(p, i));
    else
      for (int i = p->free_count; i < p->n; i++) z[i] = z[i] > 0.0 ? z[i] : 0.0;
    return;
  }
  /* Cones are disjoint: project the bounded variables first, then overwrite each cone. Cone
   * members are never negative-clamped before their cone projection because we project the
   * cone from a saved copy. */
  double saved[3];
  int dim = cones->dim;
  int next = 0; /* cones are sorted by start (validated) */
  for (int i = p->free_count; i < p->n;) {
    if (next < cones->count && cones->start[next] == i) {
      for (int k = 0; k < dim; k++) saved[k] = z[i + k];
      project_cone(dim, cones->mu[next], saved);
      for (int k = 0; k < dim; k++) z[i + k] = saved[k];
      i += dim;
      next++;
    } else {
      z[i] = bounds ? lcp_clamp(z[i], lcp_lower(p, i), lcp_upper(p, i)) : z[i] > 0.0 ? z[i] : 0.0;
      i++;
    }
  }
}

double lcp_cone_residual_abs(const clt_lcp_t *p, const clt_cone_set_t *cones, const double *z,
                             const double *w) {
  if (!cones || cones->count == 0) return lcp_problem_residual_abs(p, z, w);
  bool bounds = lcp_has_bounds(p);
  double eq = 0.0, comp = 0.0, x[3];
  int dim = cones->dim, next = 0;
  for (int i = 0; i < p->free_count; i++) eq = fmax(eq, fabs(w[i]));
  for (int i = p->free_count; i < p->n;) {
    if (next < cones->count && cones->start[next] == i) {
      for (int k = 0; k < dim; k++) x[k] = z[i + k] - w[i + k];
      project_cone(dim, cones->mu[next], x);
      for (int k = 0; k < dim; k++) comp = fmax(comp, fabs(z[i + k] - x[k]));
      i += dim;
      next++;
    } else {
      comp = fmax(comp, bounds ? lcp_box_residual(z[i], w[i], lcp_lower(p, i), lcp_upper(p, i)) : fabs(fmin(z[i], w[i])));
      i++;
    }
  }
  return comp + eq;
}

double clt_cone_qp_residual(const clt_lcp_t *problem, const clt_cone_set_t *cones,
                            const double *z) {
  clt_solve_result_t scratch;
  if (!z || validate(problem, cones, &scratch) != CLT_OK) return NAN;
  int n = problem->n;
  double *w = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!w) return NAN;
  lcp_apply(problem, z, problem->q, w, 0);
  double r = lcp_cone_residual_abs(problem, cones, z, w) / (1.0 + lcp_norm_inf(n, problem->q));
  free(w);
  return r;
}

double lcp_asymmetry(const clt_matrix_t *M) {
  if (!M) return 0.0;
  double amax = 0.0, dmax = 0.0;
  int n = M->rows;
  if (M->kind == CLT_MATRIX_DENSE) {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double a = M->values[(size_t)i * (size_t)n + (size_t)j];
        amax = fmax(amax, fabs(a));
        if (j > i) dmax = fmax(dmax, fabs(a - M->values[(size_t)j * (size_t)n + (size_t)i]));
      }
  } else {
    for (int i = 0; i < n; i++)
      for (int k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++) {
        int j = M->col_index[k];
        amax = fmax(amax, fabs(M->values[k]));
        dmax = fmax(dmax, fabs(M->values[k] - clt_matrix_get(M, j, i)));
      }
  }
  return amax > 0.0 ? dmax / amax : 0.0;
}

/* Checks the problem and the cone set; writes the reason into result. */
static clt_status_t validate(const clt_lcp_t *p, const clt_cone_set_t *cones,
                             clt_solve_result_t *result) {
  if (!p || p->n < 0 || !p->q || (!p->M && !p->op) || p->free_count < 0 || p->free_count > p->n) {
    lcp_set_message(result, "invalid LCP: need n >= 0, q, M or op, 0 <= free_count <= n");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (p->M) {
    const clt_matrix_t *m = p->M;
    bool csr = m->kind == CLT_MATRIX_CSR;
    if ((!csr && m->kind != CLT_MATRIX_DENSE) || !m->values || (csr && (!m->row_ptr || !m->col_index))) {
      lcp_set_message(result, "invalid LCP: M is of no known kind or lacks its arrays (values, row_ptr, col_index)");
      return CLT_ERR_INVALID_ARGUMENT;
    }
    if (m->rows != p->n || m->cols != p->n) {
      lcp_set_message(result, "invalid LCP: M is %dx%d, expected %dx%d", m->rows, m->cols, p->n,
                      p->n);
      return CLT_ERR_INVALID_ARGUMENT;
    }
    size_t count = m->kind == CLT_MATRIX_DENSE ? (size_t)m->rows * (size_t)m->cols : (size_t)m->nnz;
    if (m->kind == CLT_MATRIX_CSR && (m->row_ptr[0] != 0 || m->row_ptr[m->rows] != m->nnz)) {
      lcp_set_message(result, "invalid LCP: CSR row pointers do not span nnz = %d", m->nnz);
      return CLT_ERR_INVALID_ARGUMENT;
    }
    for (size_t k = 0; k < count; k++)
      if (!isfinite(m->values[k])) {
        lcp_set_message(result, "invalid LCP: M has a non-finite entry");
        return CLT_ERR_INVALID_ARGUMENT;
      }
  } else if (p->op->n != p->n || !p->op->apply) {
    lcp_set_message(result, "invalid LCP: operator size %d, expected %d", p->op->n, p->n);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  for (int i = 0; i < p->n; i++)
    if (!isfinite(p->q[i])) {
      lcp_set_message(result, "invalid LCP: q[%d] is not finite", i);
      return CLT_ERR_INVALID_ARGUMENT;
    }
  if (p->lower || p->upper)
    for (int i = p->free_count; i < p->n; i++) {
      double lo = lcp_lower(p, i), hi = lcp_upper(p, i);
      if (!isfinite(lo) || !(hi >= lo)) {
        lcp_set_message(result, "invalid LCP: variable %d has bounds [%g, %g] (need a finite lower <= upper)", i, lo,
                        hi);
        return CLT_ERR_INVALID_ARGUMENT;
      }
    }
  if (p->block_start) {
    if (p->block_count < 1 || p->block_start[0] != 0 || p->block_start[p->block_count] != p->n) {
      lcp_set_message(result, "invalid LCP: block_start must run from 0 to n");
      return CLT_ERR_INVALID_ARGUMENT;
    }
    for (int b = 0; b < p->block_count; b++)
      if (p->block_start[b + 1] <= p->block_start[b]) {
        lcp_set_message(result, "invalid LCP: block %d is empty or reversed", b);
        return CLT_ERR_INVALID_ARGUMENT;
      }
  }
  if (cones && cones->count > 0) {
    if ((cones->dim != 2 && cones->dim != 3) || !cones->start || !cones->mu) {
      lcp_set_message(result, "invalid cone set: dim must be 2 or 3, start and mu given");
      return CLT_ERR_INVALID_ARGUMENT;
    }
    int last_end = p->free_count;
    for (int b = 0; b < cones->count; b++) {
      if (cones->start[b] < last_end || cones->start[b] + cones->dim > p->n ||
          !(cones->mu[b] >= 0.0) || !isfinite(cones->mu[b])) {
        lcp_set_message(result,
                        "invalid cone %d: cones must be sorted, disjoint, after the free "
                        "variables, inside [0, n), with finite mu >= 0",
                        b);
        return CLT_ERR_INVALID_ARGUMENT;
      }
      last_end = cones->start[b] + cones->dim;
    }
  }
  return CLT_OK;
}

static void finish_empty(const clt_lcp_t *p, double *z, double *w, clt_solve_result_t *r) {
  (void)p;
  (void)z;
  (void)w;
  r->status = CLT_SOLVE_SOLVED;
  r->iterations = 0;
  r->residual = 0.0;
  r->residual_abs = 0.0;
}

/* What every solve does first: reset the result, validate, check the arguments, and answer the
 * empty problem (*done = true then). */
static clt_status_t begin_solve(const clt_lcp_t *problem, const clt_cone_set_t *cones,
                                const clt_solver_options_t *o, double *z, double *w,
                                clt_solve_result_t *r, bool *done) {
  memset(r, 0, sizeof *r);
  r->status = CLT_SOLVE_ERROR;
  r->residual = r->residual_abs = INFINITY;
  clt_status_t st = validate(problem, cones, r);
  if (st != CLT_OK) return st;
  if (!z || !(o->tolerance > 0.0) || o->max_iterations < 0) {
    lcp_set_message(r, "invalid arguments: z must be given, tolerance > 0, max_iterations >= 0");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (problem->n == 0) {
    finish_empty(problem, z, w, r);
    *done = true;
  }
  return CLT_OK;
}

void lcp_finish_projected(const clt_lcp_t *p, const clt_cone_set_t *cones, const clt_solver_options_t *o,
                          const double *z, const double *q, double *wv, int iterations, double scale,
                          const char *name, clt_solve_result_t *r) {
  lcp_apply(p, z, q, wv, o->threads);
  r->iterations = iterations;
  r->residual_abs = lcp_cone_residual_abs(p, cones, z, wv);
  r->residual = r->residual_abs / scale;
  if (r->status == CLT_SOLVE_SOLVED && !(r->residual <= o->tolerance)) r->status = CLT_SOLVE_MAX_ITERATIONS;
  if (r->status == CLT_SOLVE_SOLVED)
    r->message[0] = '\0';
  else if (r->status == CLT_SOLVE_MAX_ITERATIONS)
    lcp_set_message(r, "%s: %d iterations without reaching the tolerance", name, iterations);
}

clt_status_t clt_lcp_solve(clt_solver_kind_t solver, const clt_lcp_t *problem,
                           const clt_solver_options_t *options, double *z, double *w,
                           clt_solve_result_t *result) {
  clt_solve_result_t local;
  clt_solve_result_t *r = result ? result : &local;
  clt_solver_options_t defaults = clt_default_solver_options();
  const clt_solver_options_t *o = options ? options : &defaults;
  bool done = false;
  clt_status_t st = begin_solve(problem, NULL, o, z, w, r, &done);
  if (st != CLT_OK || done) return st;
  switch (solver) {
    case CLT_SOLVER_LEMKE:
      return lcp_solve_lemke(problem, o, z, w, r);
    case CLT_SOLVER_BGS:
      return lcp_solve_bgs(problem, o, z, w, r);
    case CLT_SOLVER_APGD:
      return lcp_solve_apgd(problem, NULL, o, z, w, r);
    case CLT_SOLVER_BBPGD:
      return lcp_solve_bbpgd(problem, NULL, o, z, w, r);
    case CLT_SOLVER_MPRGP:
      return lcp_solve_mprgp(problem, o, z, w, r);
    case CLT_SOLVER_NEWTON:
      /* the sparse-direct solve of ReLCP passes (steppers/relcp_newton.c) needs their structure */
      r->status = CLT_SOLVE_ERROR;
      lcp_set_message(r, "newton applies to ReLCP passes only (method.contact_model relcp, snsd, multisphere:N)");
      return CLT_OK;
  }
  lcp_set_message(r, "unknown solver %d", (int)solver);
  return CLT_ERR_INVALID_ARGUMENT;
}

clt_status_t clt_cone_qp_solve(clt_solver_kind_t solver, const clt_lcp_t *problem,
                               const clt_cone_set_t *cones, const clt_solver_options_t *options,
                               double *z, double *w, clt_solve_result_t *result) {
  clt_solve_result_t local;
  clt_solve_result_t *r = result ? result : &local;
  clt_solver_options_t defaults = clt_default_solver_options();
  const clt_solver_options_t *o = options ? options : &defaults;
  bool done = false;
  clt_status_t st = begin_solve(problem, cones, o, z, w, r, &done);
  if (st != CLT_OK || done) return st;
  if (solver == CLT_SOLVER_APGD) return lcp_solve_apgd(problem, cones, o, z, w, r);
  if (solver == CLT_SOLVER_BBPGD) return lcp_solve_bbpgd(problem, cones, o, z, w, r);
  if (solver == CLT_SOLVER_MPRGP) {
    if (!cones || cones->count == 0) return lcp_solve_mprgp(problem, o, z, w, r);
    lcp_set_message(r, "mprgp handles bounds only (the polyhedral cone); the circular cone needs apgd or bbpgd");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  lcp_set_message(r, "the cone QP is solved by apgd, bbpgd or (without cones) mprgp only");
  return CLT_ERR_INVALID_ARGUMENT;
}
