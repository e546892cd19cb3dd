/* Block Gauss–Seidel / projected Gauss–Seidel for the LCP (SPEC.md §2.2).
 *
 * Scalar blocks by default: z_i ← max(0, z_i − ω (M z + q)_i / M_ii), free variables without the
 * projection. With block_start, each block is solved exactly as a small LCP holding the others
 * fixed (Lemke on the block): this is what handles the friction block (c_n, β, λ) whose λ has a
 * zero diagonal. A block must be either all free (solved by LU) or all constrained. Relaxation
 * ω blends the old and the new block value. Bounded variables (solvers.h: lo ≤ z ≤ hi) are scalar
 * blocks of their own, clamped into their box. Warm start from the incoming z. Stops when the
 * scaled residual of solvers.h is ≤ tolerance, confirmed by a full product (a cheap per-sweep
 * bound decides when to compute it). Matrix-free with clt_operator_t's row_dot and diagonal
 * (scalar blocks). Where a zero or negative diagonal makes a scalar PGS step undefined, the
 * solver reports "does not apply" instead of running. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "solvers/lcp_internal.h"

/* Sweeps between two exact residual evaluations (best-iterate bookkeeping). */
#define BGS_EXACT_EVERY 64

typedef struct bgs_block_t {
  int start, size;
  bool free_block;
  double *local; /* size×size row-major M_bb (constrained) or its LU (free, column-major) */
  int *ipiv;     /* free blocks */
} bgs_block_t;

/* (M z)_i for row i. */
static inline double row_product(const clt_lcp_t *p, int i, const double *z) {
  const clt_matrix_t *m = p->M;
  if (!m) return p->op->row_dot(p->op->user, i, z);
  double s = 0.0;
  if (m->kind == CLT_MATRIX_DENSE) {
    s = lcp_dot(m->values + (size_t)i * (size_t)p->n, z, p->n);
  } else {
    for (int k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) s += m->values[k] * z[m->col_index[k]];
  }
  return s;
}

static double entry(const clt_lcp_t *p, int i, int j) {
  if (p->M) return clt_matrix_get(p->M, i, j);
  return i == j && p->op->diagonal ? p->op->diagonal[i] : 0.0;
}

clt_status_t lcp_solve_bgs(const clt_lcp_t *p, const clt_solver_options_t *o, double *z, double *w,
                           clt_solve_result_t *r) {
  int n = p->n, nf = p->free_count;
  int nb = p->block_start ? p->block_count : n;
  double omega = o->relaxation;
  bool bounds = lcp_has_bounds(p);
  if (!(omega > 0.0 && omega < 2.0)) {
    lcp_set_message(r, "bgs: relaxation %g outside (0, 2)", omega);
    return CLT_ERR_INVALID_ARGUMENT;
  }
  if (!p->M && (!p->op->diagonal || !p->op->row_dot)) {
    r->status = CLT_SOLVE_ERROR;
    lcp_set_message(r, "bgs does not apply: a matrix-free operator needs diagonal and row_dot");
    return CLT_OK;
  }
  if (!p->M && p->block_start) {
    for (int b = 0; b < nb; b++)
      if (p->block_start[b + 1] - p->block_start[b] > 1) {
        r->status = CLT_SOLVE_ERROR;
        lcp_set_message(r, "bgs does not apply: blocks larger than 1 need an explicit matrix M");
        return CLT_OK;
      }
  }
  if (!p->block_start) { /* scalar PGS: refuse a zero/negative diagonal before any work */
    for (int i = 0; i < n; i++) {
      double d = entry(p, i, i);
      if (!(i < nf ? d != 0.0 && isfinite(d) : d > 0.0)) {
        r->status = CLT_SOLVE_ERROR;
        lcp_set_message(r, "bgs does not apply: M[%d][%d] = %g %s (PGS step undefined)", i, i, d,
                        i < nf ? "is zero" : "<= 0");
        return CLT_OK;
      }
    }
  }
  clt_scratch_t scratch;
  clt_arena_t *a = clt_scratch_begin(&scratch, o->arena);
  bgs_block_t *blocks = CLT_ARENA_ZNEW(a, bgs_block_t, nb);
  double *diag = CLT_ARENA_NEW(a, double, n);
  double *wv = w ? w : CLT_ARENA_NEW(a, double, n);
  double *best = CLT_ARENA_NEW(a, double, n);
  int maxk = 1;
  clt_status_t ret = CLT_OK;
  lcp_lemke_work_t *lw = NULL;
  double *lq = NULL, *lz = NULL;
  if (!blocks || !diag || !wv || !best) {
    ret = CLT_ERR_OUT_OF_MEMORY;
    lcp_set_message(r, "out of memory");
    goto done;
  }
  r->status = CLT_SOLVE_ERROR;
  for (int b = 0; b < nb; b++) {
    bgs_block_t *bl = &blocks[b];
    bl->start = p->block_start ? p->block_start[b] : b;
    bl->size = p->block_start ? p->block_start[b + 1] - bl->start : 1;
    int end = bl->start + bl->size;
    if (bl->start < nf && end > nf) {
      lcp_set_message(r, "bgs: block %d mixes free and constrained variables", b);
      ret = CLT_ERR_INVALID_ARGUMENT;
      goto done;
    }
    bl->free_block = bl->start < nf;
    if (bl->size > maxk) maxk = bl->size;
    for (int i = bl->start; bounds && !bl->free_block && bl->size > 1 && i < end; i++)
      if (lcp_lower(p, i) != 0.0 || lcp_upper(p, i) != INFINITY) {
        lcp_set_message(r, "bgs: variable %d has bounds other than [0, inf) inside block %d of %d variables "
                        "(a bounded variable must be a block of its own)", i, b, bl->size);
        ret = CLT_ERR_INVALID_ARGUMENT;
        goto done;
      }
    if (bl->size == 1) {
      int i = bl->start;
      diag[i] = entry(p, i, i);
      if (!(bl->free_block ? diag[i] != 0.0 && isfinite(diag[i]) : diag[i] > 0.0)) {
        lcp_set_message(r, "bgs does not apply: M[%d][%d] = %g %s (PGS step undefined)", i, i,
                        diag[i], bl->free_block ? "is zero" : "<= 0");
        goto done;
      }
      continue;
    }
    int k = bl->size;
    bl->local = CLT_ARENA_NEW(a, double, (size_t)k * (size_t)k);
    if (!bl->local) {
      ret = CLT_ERR_OUT_OF_MEMORY;
      lcp_set_message(r, "out of memory");
      goto done;
    }
    for (int i = 0; i < k; i++)
      for (int j = 0; j < k; j++) {
        double v = entry(p, bl->start + i, bl->start + j);
        if (bl->free_block)
          bl->local[(size_t)j * (size_t)k + (size_t)i] = v; /* column-major */
        else
          bl->local[(size_t)i * (size_t)k + (size_t)j] = v;
      }
    if (bl->free_block) {
      bl->ipiv = CLT_ARENA_NEW(a, int, k);
      int info = 0;
      if (bl->ipiv) clt_dgetrf(&k, &k, bl->local, &k, bl->ipiv, &info);
      if (!bl->ipiv || info != 0) {
        lcp_set_message(r, "bgs does not apply: free block %d is singular", b);
        goto done;
      }
    }
  }
  if (maxk > 1) {
    lw = lcp_lemke_work_create(a, maxk);
    lq = CLT_ARENA_NEW(a, double, maxk);
    lz = CLT_ARENA_NEW(a, double, maxk);
    if (!lw || !lq || !lz) {
      ret = CLT_ERR_OUT_OF_MEMORY;
      lcp_set_message(r, "out of memory");
      goto done;
    }
  }
  if (!o->warm_start) memset(z, 0, sizeof(double) * (size_t)n);
  if (bounds)
    for (int i = nf; i < n; i++) z[i] = lcp_clamp(z[i], lcp_lower(p, i), lcp_upper(p, i));
  else
    for (int i = nf; i < n; i++)
      if (!(z[i] > 0.0)) z[i] = 0.0;
  double scale = 1.0 + lcp_norm_inf(n, p->q);
  double best_res = INFINITY;
  int sweep = 0;
  /* Convergence test: each sweep yields a cheap upper bound of the residual from the row values
   * it computes: w_i just after z_i's update moves by at most ‖M‖∞ max_j |Δz_j| during the
   * rest of the sweep, and |min(a, b) − min(a, c)| ≤ |b − c|. When the bound passes (or, for
   * an operator, every sweep), the residual is recomputed exactly with a full product before a
   * solve is claimed. The exact residual is also taken every BGS_EXACT_EVERY sweeps (to keep
   * the best iterate) and at the end. */
  double mnorm = INFINITY;
  if (p->M) {
    const clt_matrix_t *m = p->M;
    mnorm = 0.0;
    for (int i = 0; i < n; i++) {
      double rs = 0.0;
      if (m->kind == CLT_MATRIX_DENSE)
        for (int j = 0; j < n; j++) rs += fabs(m->values[(size_t)i * (size_t)n + (size_t)j]);
      else
        for (int k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) rs += fabs(m->values[k]);
      mnorm = rs > mnorm ? rs : mnorm;
    }
  }
  bool exact = true;
  int next_exact = 0, backoff = 1;
  const double *dense_m = p->M && p->M->kind == CLT_MATRIX_DENSE ? p->M->values : NULL;
  r->status = CLT_SOLVE_MAX_ITERATIONS;
  for (;;) {
    if (exact || sweep >= o->max_iterations) {
      lcp_apply(p, z, p->q, wv, o->threads);
      double res = lcp_problem_residual_abs(p, z, wv);
      if (res < best_res) {
        best_res = res;
        memcpy(best, z, sizeof(double) * (size_t)n);
      }
      if (!isfinite(res)) {
        r->status = CLT_SOLVE_ERROR;
        lcp_set_message(r, "bgs diverged (non-finite iterate) after %d sweeps", sweep);
        break;
      }
      if (res / scale <= o->tolerance) {
        r->status = CLT_SOLVE_SOLVED;
        break;
      }
      /* The estimate was optimistic: trust it less for a while. */
      next_exact = sweep + backoff;
      backoff = backoff < BGS_EXACT_EVERY ? 2 * backoff : BGS_EXACT_EVERY;
    }
    if (sweep >= o->max_iterations) {
      lcp_set_message(r, "bgs: %d sweeps without reaching the tolerance", sweep);
      break;
    }
    sweep++;
    double est = 0.0, dzmax = 0.0;
    for (int b = 0; b < nb; b++) {
      const bgs_block_t *bl = &blocks[b];
      int s = bl->start, k = bl->size;
      if (k == 1) {
        double wi;
        if (dense_m) {
          wi = lcp_dot(dense_m + (size_t)s * (size_t)n, z, n) + p->q[s];
        } else {
          wi = row_product(p, s, z) + p->q[s];
        }
        double zi = z[s] - omega * wi / diag[s];
        double lo = 0.0, hi = INFINITY;
        if (bounds && !bl->free_block) {
          lo = lcp_lower(p, s);
          hi = lcp_upper(p, s);
          zi = lcp_clamp(zi, lo, hi);
        } else if (!bl->free_block && !(zi > 0.0)) {
          zi = 0.0;
        }
        double dz = fabs(zi - z[s]);
        dzmax = dz > dzmax ? dz : dzmax;
        wi += diag[s] * (zi - z[s]);
        z[s] = zi;
        double e = bl->free_block ? fabs(wi) : bounds ? lcp_box_residual(zi, wi, lo, hi) : fabs(zi < wi ? zi : wi);
        est = e > est ? e : est;
        continue;
      }
      /* Local problem: M_bb z_b + (q_b + Σ_{j∉b} M_bj z_j). */
      for (int i = 0; i < k; i++) lq[i] = row_product(p, s + i, z) + p->q[s + i]; /* (Mz+q)_b */
      if (bl->free_block) {
        /* Equality rows: M_bb δ = −(M z + q)_b, z_b ← z_b + δ. */
        for (int i = 0; i < k; i++) lz[i] = -lq[i];
        const char trans = 'N';
        int one = 1, info = 0;
        clt_dgetrs(&trans, &k, &one, bl->local, &k, bl->ipiv, lz, &k, &info);
        for (int i = 0; i < k; i++) lz[i] += z[s + i];
      } else {
        for (int i = 0; i < k; i++) {
          const double *row = bl->local + (size_t)i * (size_t)k;
          double t = lq[i];
          for (int j = 0; j < k; j++) t -= row[j] * z[s + j];
          lq[i] = t;
        }
        int piv = 0;
        clt_solver_status_t ls =
            lcp_lemke_dense(lw, k, bl->local, lq, 100 * k + 100, 1e-14, lz, &piv, NULL, 0);
        if (ls != CLT_SOLVE_SOLVED) {
          r->status = CLT_SOLVE_ERROR;
          lcp_set_message(r, "bgs: the local LCP of block %d has no Lemke solution (%s)", b,
                          clt_solver_status_name(ls));
          goto finish;
        }
      }
      bool changed = false;
      for (int i = 0; i < k; i++) {
        double v = (1.0 - omega) * z[s + i] + omega * lz[i];
        if (!bl->free_block && !(v > 0.0)) v = 0.0;
        changed |= fabs(v - z[s + i]) > 0.0;
        z[s + i] = v;
      }
      /* Block estimate: exact at ω = 1 up to the local solve's accuracy (0 for a free block); a
       * block that moved is re-measured by the next exact check anyway. */
      if (changed && omega != 1.0) est = INFINITY;
    }
    est += mnorm * dzmax; /* ∞ · 0 cannot happen: mnorm is finite whenever M is given */
    if (!p->M) est = 0.0; /* operator: no bound, check every sweep */
    exact = (est / scale <= o->tolerance && sweep >= next_exact) || sweep % BGS_EXACT_EVERY == 0 ||
            nb < n;
  }
finish:
  if (r->status != CLT_SOLVE_SOLVED && isfinite(best_res)) {
    memcpy(z, best, sizeof(double) * (size_t)n);
    lcp_apply(p, z, p->q, wv, o->threads);
  }
  r->iterations = sweep;
  r->residual_abs = lcp_problem_residual_abs(p, z, wv);
  r->residual = r->residual_abs / scale;
  if (r->status == CLT_SOLVE_SOLVED) r->message[0] = '\0';
done:
  clt_scratch_end(&scratch);
  return ret;
}
