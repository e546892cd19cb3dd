/* Lemke's complementary pivoting method (SPEC.md §2.1; 004 §3.1; Cottle–Pang–Stone ch. 4).
 *
 * System  w − M z − e z₀ = q  with covering vector e = (1, …, 1). Variables are numbered
 * w_i = i, z_j = n + j, z₀ = 2n. The basis inverse B⁻¹ is kept explicitly and updated by the
 * product-form (rank-one) rule at each pivot, O(n²), and recomputed by an LU factorization every
 * LEMKE_REFACTOR_PERIOD pivots (and once at the end if the answer is not accurate enough). The
 * minimum-ratio test is lexicographic on the rows of [x_B, B⁻¹]: the classical perturbation
 * q(ε) = q + Σ ε^k e_k, which makes every basis nondegenerate and so excludes cycling. Ties that
 * include z₀'s row let z₀ leave at once (the solution is then reached). No blocking row means a
 * secondary ray: reported as CLT_SOLVE_RAY, never as a solution.
 *
 * Degenerate problems in floating point (docs/stepping.md "Degenerate contact sets"): a pivot
 * element must stand well above its own round-off level (pivot_noise), entries of q within
 * 0.1·tolerance of zero are exact zeros for the pivoting, and an answer that misses the
 * tolerance on a complementary basis is refreshed from an LU of the basis and then polished by
 * active-set Newton steps (lcp_newton_polish, also public as clt_lcp_polish). Every answer is
 * verified on the original data.
 *
 * Mixed LCPs: the free variables are eliminated by a Schur complement of the free block (LU,
 * condition checked), Lemke runs on the reduced problem, and the free part is recovered. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "solvers/lcp_internal.h"

struct lcp_lemke_work_t {
  int capacity;
  double *tab; /* n×(2n+1) row-major tableau B⁻¹[I, −M, −e]; its first n columns are B⁻¹ */
  double *mt;   /* Mᵀ row-major, so column j of M is contiguous */
  double *xb;   /* values of the basic variables, B⁻¹ q */
  double *d;    /* the entering column of the tableau */
  double *qs;   /* q with round-off-sized entries snapped to zero */
  double *cand_values; /* scratch of the final refresh */
  double *lu;   /* refactorization */
  double *work; /* dgetri work */
  int lwork;
  int *basis; /* basis[r]: the variable of row r */
  int *pos;   /* 2n + 1: row of a basic variable, −1 if nonbasic */
  int *cand;
  int *ipiv;
  int *nz; /* nonzero columns of the pivot row */
};

lcp_lemke_work_t *lcp_lemke_work_create(clt_arena_t *arena, int capacity) {
  if (capacity < 1) capacity = 1;
  size_t n = (size_t)capacity, m = 2 * n + 1;
  size_t lwork = 64 * n;
  /* One allocation for everything: small problems are dominated by set-up costs. */
  size_t doubles = n * m + 2 * n * n + 4 * n + lwork;
  size_t ints = n + m + n + n + m;
  size_t bytes = sizeof(lcp_lemke_work_t) + sizeof(double) * doubles + sizeof(int) * ints;
  lcp_lemke_work_t *w = clt_arena_alloc(arena, bytes);
  if (!w) return NULL;
  double *dp = (double *)(void *)(w + 1);
  w->capacity = capacity;
  w->lwork = (int)lwork;
  w->tab = dp, dp += n * m;
  w->mt = dp, dp += n * n;
  w->lu = dp, dp += n * n;
  w->xb = dp, dp += n;
  w->d = dp, dp += n;
  w->qs = dp, dp += n;
  w->cand_values = dp, dp += n;
  w->work = dp, dp += lwork;
  int *ip = (int *)(void *)dp;
  w->basis = ip, ip += n;
  w->pos = ip, ip += m;
  w->cand = ip, ip += n;
  w->ipiv = ip, ip += n;
  w->nz = ip;
  return w;
}

/* Accuracy check period (a refactorization follows only when the basis has drifted). */
static int refactor_period(int n) { return n > 32 ? n : 32; }

#define TAB(w, n, i, v) ((w)->tab[(size_t)(i) * (size_t)(2 * (n) + 1) + (size_t)(v)])

#define LEMKE_CANCEL 1e-13
/* A pivot element must exceed this many times its round-off level (pivot_noise). */
#define LEMKE_PIVOT_NOISE 1e7
/* Newton steps of the polish after an inexact or failed pivoting run. */
#define LEMKE_POLISH_STEPS 12

/* Product-form (rank-one) update of the tableau and x_B for the pivot on row r, entering column
 * d. Only the nonzero entries of the pivot row and column are touched: exact zeros of
 * structured problems stay exact zeros, which keeps degenerate ties exact. */
static void pivot(lcp_lemke_work_t *w, int n, int r, int entering) {
  const int m = 2 * n + 1;
  double *xb = w->xb;
  const double *d = w->d;
  double inv = 1.0 / d[r];
  double *rowr = w->tab + (size_t)r * (size_t)m;
  int nnz = 0;
  for (int k = 0; k < m; k++)
    if (rowr[k] != 0.0) {
      rowr[k] *= inv;
      w->nz[nnz++] = k;
    }
  xb[r] *= inv;
  /* Cancellation down to a few hundred ulps of the operands is an exact zero blurred by
   * round-off: keep it exact, or the lexicographic order would be decided by noise. (When
   * old − p cancels, |old| ≈ |p|, so comparing with |old| alone is enough.) */
  bool dense = 2 * nnz > m;
  for (int i = 0; i < n; i++) {
    double f = d[i];
    if (i == r || f == 0.0) continue;
    double *row = w->tab + (size_t)i * (size_t)m;
    if (dense) {
      for (int k = 0; k < m; k++) {
        double old = row[k], v = old - f * rowr[k];
        row[k] = fabs(v) <= LEMKE_CANCEL * fabs(old) ? 0.0 : v;
      }
    } else {
      for (int c = 0; c < nnz; c++) {
        int k = w->nz[c];
        double old = row[k], v = old - f * rowr[k];
        row[k] = fabs(v) <= LEMKE_CANCEL * fabs(old) ? 0.0 : v;
      }
    }
    double old = xb[i], v = old - f * xb[r];
    xb[i] = fabs(v) <= LEMKE_CANCEL * fabs(old) ? 0.0 : v;
    row[entering] = 0.0; /* exactly, not f − f·1 up to round-off */
  }
  rowr[entering] = 1.0;
  w->pos[w->basis[r]] = -1;
  w->basis[r] = entering;
  w->pos[entering] = r;
}

/* Recomputes the tableau and x_B = B⁻¹ q from the basis (LU). Returns false if B is singular.
 * The row-major array of B is Bᵀ to LAPACK; its inverse read back row-major is B⁻¹. */
static bool refactor(lcp_lemke_work_t *w, int n, const double *q) {
  const int m = 2 * n + 1;
  double *b = w->lu;
  memset(b, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int r = 0; r < n; r++) {
    int v = w->basis[r];
    if (v < n) {
      b[(size_t)v * (size_t)n + (size_t)r] = 1.0;
    } else if (v < 2 * n) {
      const double *col = w->mt + (size_t)(v - n) * (size_t)n;
      for (int i = 0; i < n; i++) b[(size_t)i * (size_t)n + (size_t)r] = -col[i];
    } else {
      for (int i = 0; i < n; i++) b[(size_t)i * (size_t)n + (size_t)r] = -1.0;
    }
  }
  int info = 0;
  clt_dgetrf(&n, &n, b, &n, w->ipiv, &info);
  if (info != 0) return false;
  clt_dgetri(&n, b, &n, w->ipiv, w->work, &w->lwork, &info);
  if (info != 0) return false;
  for (int i = 0; i < n; i++) {
    const double *binv = b + (size_t)i * (size_t)n;
    double *row = w->tab + (size_t)i * (size_t)m;
    double sq = 0.0, se = 0.0;
    for (int k = 0; k < n; k++) {
      sq += binv[k] * q[k];
      se += binv[k];
      row[k] = binv[k];
    }
    for (int j = 0; j < n; j++) {
      const double *col = w->mt + (size_t)j * (size_t)n;
      double s = 0.0;
      for (int k = 0; k < n; k++) s += binv[k] * col[k];
      row[n + j] = -s;
    }
    row[2 * n] = -se;
    w->xb[i] = sq;
  }
  for (int r = 0; r < n; r++)
    for (int i = 0; i < n; i++) TAB(w, n, i, w->basis[r]) = i == r ? 1.0 : 0.0;
  return true;
}

/* x_B = B⁻¹ q afresh from an LU factorization of the basis (O(n³/3), against O(n³) for the full
 * tableau of refactor): the end-of-run accuracy refresh. Returns false if B is singular. */
static bool refresh_xb(lcp_lemke_work_t *w, int n, const double *q, double *xb) {
  double *b = w->lu;
  memset(b, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int r = 0; r < n; r++) { /* column-major B: column r is the basic variable's column */
    int v = w->basis[r];
    double *col = b + (size_t)r * (size_t)n;
    if (v < n) {
      col[v] = 1.0;
    } else if (v < 2 * n) {
      const double *mc = w->mt + (size_t)(v - n) * (size_t)n;
      for (int i = 0; i < n; i++) col[i] = -mc[i];
    } else {
      for (int i = 0; i < n; i++) col[i] = -1.0;
    }
  }
  int info = 0, one = 1;
  clt_dgetrf(&n, &n, b, &n, w->ipiv, &info);
  if (info != 0) return false;
  memcpy(xb, q, sizeof(double) * (size_t)n);
  const char trans = 'N';
  clt_dgetrs(&trans, &n, &one, b, &n, w->ipiv, xb, &n, &info);
  return info == 0;
}

/* ‖B x_B − q‖∞: how far the updated tableau has drifted. O(n²) like one pivot. */
static double basis_drift(const lcp_lemke_work_t *w, int n, const double *q) {
  double *r = w->d; /* scratch: d is reloaded at the next pivot */
  for (int i = 0; i < n; i++) r[i] = -q[i];
  for (int c = 0; c < n; c++) {
    int v = w->basis[c];
    double x = w->xb[c];
    if (v < n) {
      r[v] += x;
    } else if (v < 2 * n) {
      const double *col = w->mt + (size_t)(v - n) * (size_t)n;
      for (int i = 0; i < n; i++) r[i] -= col[i] * x;
    } else {
      for (int i = 0; i < n; i++) r[i] -= x;
    }
  }
  return lcp_norm_inf(n, r);
}

/* Basic values within round-off of zero are degenerate zeros: make them exact, so that the
 * lexicographic test (not noise) decides between the rows they tie. */
static void snap_zeros(lcp_lemke_work_t *w, int n, double qnorm) {
  double xs = qnorm;
  for (int i = 0; i < n; i++) {
    double a = fabs(w->xb[i]);
    xs = a > xs ? a : xs;
  }
  double tol = 1e-13 * (xs > 0.0 ? xs : 1.0);
  for (int i = 0; i < n; i++)
    if (fabs(w->xb[i]) <= tol) w->xb[i] = 0.0;
}

/* Round-off level of d_i = (B⁻¹ a)_i for the entering column a: ε Σ_k |B⁻¹_ik| |a_k|. A pivot
 * element not well above it is an exact zero blurred by round-off (the entering column lies in
 * the span of basic columns, as with the dependent normal rows of a 4-point contact manifold);
 * pivoting on it makes the basis numerically singular. */
static double pivot_noise(const lcp_lemke_work_t *w, int n, int i, int entering) {
  const double *binv = w->tab + (size_t)i * (size_t)(2 * n + 1);
  double s = 0.0;
  if (entering < n) {
    s = fabs(binv[entering]);
  } else if (entering < 2 * n) {
    const double *col = w->mt + (size_t)(entering - n) * (size_t)n;
    for (int k = 0; k < n; k++) s += fabs(binv[k]) * fabs(col[k]);
  } else {
    for (int k = 0; k < n; k++) s += fabs(binv[k]);
  }
  return LEMKE_PIVOT_NOISE * DBL_EPSILON * s;
}

static int ratio_test(lcp_lemke_work_t *w, int n, int z0, int entering) {
  const double *d = w->d, *xb = w->xb;
  int *cand = w->cand;
  double dmax = 0.0, xs = 0.0;
  for (int i = 0; i < n; i++) {
    double a = fabs(d[i]), b = fabs(xb[i]);
    dmax = a > dmax ? a : dmax;
    xs = b > xs ? b : xs;
  }
  if (!(dmax > 0.0)) return -1;
  /* A pivot element below this is round-off of an exact zero. */
  double dtol = 1e-12 * dmax;
  double theta = INFINITY;
  int count = 0;
  for (int i = 0; i < n; i++) {
    if (d[i] > dtol && d[i] > pivot_noise(w, n, i, entering)) {
      double x = xb[i] > 0.0 ? xb[i] : 0.0;
      double ratio = x / d[i];
      if (ratio < theta) theta = ratio;
      cand[count++] = i;
    }
  }
  if (count == 0) return -1;
  /* Rows that the step θ drives to zero within round-off tie (degenerate). */
  double xtol = 1e-11 * (xs > 0.0 ? xs : 1.0);
  int k = 0;
  for (int c = 0; c < count; c++) {
    int i = cand[c];
    double x = xb[i] > 0.0 ? xb[i] : 0.0;
    if (x - theta * d[i] <= xtol) cand[k++] = i;
  }
  count = k;
  if (count == 1) return cand[0];
  int rz0 = w->pos[z0];
  for (int c = 0; c < count; c++)
    if (cand[c] == rz0) return rz0;
  /* Lexicographic tie-break on the columns of B⁻¹ / d_i. Columns that are zero on every tied
   * row (most of them in degenerate structured problems) decide nothing: skip them cheaply. */
  for (int col = 0; col < n && count > 1; col++) {
    bool any = false;
    for (int c = 0; c < count && !any; c++) any = TAB(w, n, cand[c], col) != 0.0;
    if (!any) continue;
    double vmin = INFINITY, vabs = 0.0;
    for (int c = 0; c < count; c++) {
      int i = cand[c];
      double v = TAB(w, n, i, col) / d[i], a = fabs(v);
      vmin = v < vmin ? v : vmin;
      vabs = a > vabs ? a : vabs;
    }
    double tol = 1e-9 * vabs;
    k = 0;
    for (int c = 0; c < count; c++) {
      int i = cand[c];
      if (TAB(w, n, i, col) / d[i] <= vmin + tol) cand[k++] = i;
    }
    count = k;
  }
  int best = cand[0];
  for (int c = 1; c < count; c++)
    if (d[cand[c]] > d[best]) best = cand[c];
  return best;
}

static void extract_z(const lcp_lemke_work_t *w, int n, double *z) {
  for (int j = 0; j < n; j++) {
    int r = w->pos[n + j];
    double v = r >= 0 ? w->xb[r] : 0.0;
    z[j] = v > 0.0 ? v : 0.0;
  }
}

/* Unscaled complementarity residual of z for (M, q) dense row-major. */
static double dense_residual(int n, const double *M, const double *q, const double *z) {
  double res = 0.0;
  for (int i = 0; i < n; i++) {
    const double *row = M + (size_t)i * (size_t)n;
    double s = q[i];
    for (int j = 0; j < n; j++) s += row[j] * z[j];
    double a = fabs(fmin(z[i], s));
    if (!(a <= res)) res = a;
  }
  return res;
}

clt_solver_status_t lcp_lemke_dense(lcp_lemke_work_t *w, int n, const double *M, const double *q,
                                    int max_pivots, double polish_tolerance, double *z, int *pivots,
                                    char *message, size_t message_size) {
  *pivots = 0;
  if (message && message_size) message[0] = '\0';
  const double *q_in = q;
  {
    double qn = lcp_norm_inf(n, q_in), snap = polish_tolerance * (1.0 + qn);
    for (int i = 0; i < n; i++) w->qs[i] = fabs(q_in[i]) <= snap ? 0.0 : q_in[i];
    q = w->qs;
  }
  int r = 0;
  for (int i = 1; i < n; i++)
    if (q[i] <= q[r]) r = i; /* ties: the largest index is the lexicographic minimum of (q, I) */
  if (n == 0 || q[r] >= 0.0) {
    for (int j = 0; j < n; j++) z[j] = 0.0;
    return CLT_SOLVE_SOLVED;
  }
  const int m = 2 * n + 1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      w->mt[(size_t)j * (size_t)n + (size_t)i] = M[(size_t)i * (size_t)n + (size_t)j];
  for (int i = 0; i < n; i++) {
    double *row = w->tab + (size_t)i * (size_t)m;
    memset(row, 0, sizeof(double) * (size_t)n);
    row[i] = 1.0;
    const double *mrow = M + (size_t)i * (size_t)n;
    for (int j = 0; j < n; j++) row[n + j] = -mrow[j];
    row[2 * n] = -1.0;
    w->xb[i] = q[i];
    w->basis[i] = i;
    w->pos[i] = i;
    w->pos[n + i] = -1;
  }
  const int z0 = 2 * n;
  w->pos[z0] = -1;
  if (max_pivots < 1) {
    extract_z(w, n, z);
    if (message) snprintf(message, message_size, "pivot limit %d reached", max_pivots);
    return CLT_SOLVE_MAX_ITERATIONS;
  }
  /* First pivot: z₀ enters at the most negative q (all of d = −e is blocking from below). */
  for (int i = 0; i < n; i++) w->d[i] = -1.0;
  pivot(w, n, r, z0);
  *pivots = 1;
  int entering = n + r; /* complement of the leaving w_r */
  int period = refactor_period(n);
  double qnorm = lcp_norm_inf(n, q);
  clt_solver_status_t status = CLT_SOLVE_MAX_ITERATIONS;
  while (*pivots < max_pivots) {
    for (int i = 0; i < n; i++) w->d[i] = TAB(w, n, i, entering);
    int row = ratio_test(w, n, z0, entering);
    if (row < 0) {
      status = CLT_SOLVE_RAY;
      if (message)
        snprintf(message, message_size,
                 "secondary ray after %d pivots (no solution reachable by Lemke with e)", *pivots);
      break;
    }
    int leaving = w->basis[row];
    pivot(w, n, row, entering);
    (*pivots)++;
    if (leaving == z0) {
      status = CLT_SOLVE_SOLVED;
      break;
    }
    entering = leaving < n ? leaving + n : leaving - n;
    if (*pivots % period == 0 && basis_drift(w, n, q) > 1e-11 * (1.0 + qnorm)) {
      if (!refactor(w, n, q)) {
        if (message) snprintf(message, message_size, "singular basis after %d pivots", *pivots);
        extract_z(w, n, z);
        return CLT_SOLVE_ERROR;
      }
    }
    snap_zeros(w, n, qnorm);
  }
  if (status == CLT_SOLVE_MAX_ITERATIONS && message)
    snprintf(message, message_size, "pivot limit %d reached", max_pivots);
  extract_z(w, n, z);
  if (status == CLT_SOLVE_SOLVED) {
    /* Polish: the updated tableau carries round-off from every pivot; recompute it once from
     * the final basis when the answer misses the requested accuracy. */
    double res = dense_residual(n, M, q, z);
    double *xb2 = w->d, *z2 = w->cand_values;
    if (res > polish_tolerance * (1.0 + qnorm) && refresh_xb(w, n, q, xb2)) {
      for (int j = 0; j < n; j++) {
        int r = w->pos[n + j];
        double v = r >= 0 ? xb2[r] : 0.0;
        z2[j] = v > 0.0 ? v : 0.0;
      }
      if (dense_residual(n, M, q, z2) < res) memcpy(z, z2, sizeof(double) * (size_t)n);
    }
  }
  return status;
}

/* Dense row-major copy of M. */
static double *densify(clt_arena_t *arena, const clt_matrix_t *m, int n) {
  double *a = CLT_ARENA_ZNEW(arena, double, (size_t)n * (size_t)n);
  if (!a) return NULL;
  if (m->kind == CLT_MATRIX_DENSE) {
    memcpy(a, m->values, sizeof(double) * (size_t)n * (size_t)n);
  } else {
    for (int i = 0; i < n; i++)
      for (int k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++)
        a[(size_t)i * (size_t)n + (size_t)m->col_index[k]] += m->values[k];
  }
  return a;
}

/* Mixed LCP: w_u = A u + C v + q_u = 0 gives u = −A⁻¹(C v + q_u); the reduced LCP on v is
 * (B − D A⁻¹ C, q_v − D A⁻¹ q_u) (Schur complement; SPEC.md §2 "Reduction"). */
static clt_solver_status_t solve_mixed(clt_arena_t *arena, const double *M, int n, int nf, const double *q,
                                       int max_pivots, double tol, double *z, int *pivots,
                                       char *message, size_t message_size) {
  int nc = n - nf, nrhs = nc + 1;
  clt_solver_status_t status = CLT_SOLVE_ERROR;
  int mark = clt_arena_mark(arena);
  double *a = CLT_ARENA_NEW(arena, double, (size_t)nf * (size_t)nf);        /* column-major */
  double *x = CLT_ARENA_NEW(arena, double, (size_t)nf * (size_t)nrhs);      /* [C | q_u], column-major */
  double *mr = CLT_ARENA_NEW(arena, double, (size_t)nc * (size_t)nc + 1); /* reduced, row-major */
  double *qr = CLT_ARENA_NEW(arena, double, (size_t)nc + 1);
  double *work = CLT_ARENA_NEW(arena, double, 4 * (size_t)nf);
  int *ipiv = CLT_ARENA_NEW(arena, int, nf);
  int *iwork = CLT_ARENA_NEW(arena, int, nf);
  lcp_lemke_work_t *lw = NULL;
  *pivots = 0;
  if (!a || !x || !mr || !qr || !work || !ipiv || !iwork) {
    snprintf(message, message_size, "out of memory");
    goto done;
  }
  double anorm = 0.0;
  for (int j = 0; j < nf; j++) {
    double colsum = 0.0;
    for (int i = 0; i < nf; i++) {
      double v = M[(size_t)i * (size_t)n + (size_t)j];
      a[(size_t)j * (size_t)nf + (size_t)i] = v;
      colsum += fabs(v);
    }
    anorm = fmax(anorm, colsum);
  }
  for (int c = 0; c < nc; c++)
    for (int i = 0; i < nf; i++)
      x[(size_t)c * (size_t)nf + (size_t)i] = M[(size_t)i * (size_t)n + (size_t)(nf + c)];
  for (int i = 0; i < nf; i++) x[(size_t)nc * (size_t)nf + (size_t)i] = q[i];
  int info = 0;
  clt_dgetrf(&nf, &nf, a, &nf, ipiv, &info);
  double rcond = 0.0;
  if (info == 0) {
    const char norm = '1';
    int info2 = 0;
    clt_dgecon(&norm, &nf, a, &nf, &anorm, &rcond, work, iwork, &info2);
  }
  if (info != 0 || !(rcond > 1e3 * DBL_EPSILON)) {
    snprintf(message, message_size,
             "free block (%d x %d) is singular or rank-deficient (rcond %.3g): dependent equality "
             "rows",
             nf, nf, rcond);
    goto done;
  }
  const char trans = 'N';
  clt_dgetrs(&trans, &nf, &nrhs, a, &nf, ipiv, x, &nf, &info);
  /* Reduced problem. */
  for (int i = 0; i < nc; i++) {
    const double *drow = M + (size_t)(nf + i) * (size_t)n;
    for (int j = 0; j < nc; j++) {
      double s = drow[nf + j];
      const double *xc = x + (size_t)j * (size_t)nf;
      for (int k = 0; k < nf; k++) s -= drow[k] * xc[k];
      mr[(size_t)i * (size_t)nc + (size_t)j] = s;
    }
    double s = q[nf + i];
    const double *xq = x + (size_t)nc * (size_t)nf;
    for (int k = 0; k < nf; k++) s -= drow[k] * xq[k];
    qr[i] = s;
  }
  if (nc > 0) {
    lw = lcp_lemke_work_create(arena, nc);
    if (!lw) {
      snprintf(message, message_size, "out of memory");
      goto done;
    }
    status =
        lcp_lemke_dense(lw, nc, mr, qr, max_pivots, tol, z + nf, pivots, message, message_size);
  } else {
    status = CLT_SOLVE_SOLVED;
  }
  /* u = −(A⁻¹ q_u + A⁻¹ C v). */
  for (int i = 0; i < nf; i++) {
    double s = x[(size_t)nc * (size_t)nf + (size_t)i];
    for (int j = 0; j < nc; j++) s += x[(size_t)j * (size_t)nf + (size_t)i] * z[nf + j];
    z[i] = -s;
  }
done:
  clt_arena_pop(arena, mark);
  return status;
}

static clt_status_t solve_bounded(const clt_lcp_t *p, const clt_solver_options_t *o, double *z, double *w,
                                  clt_solve_result_t *r);

clt_status_t lcp_solve_lemke(const clt_lcp_t *p, const clt_solver_options_t *o, double *z,
                             double *w, clt_solve_result_t *r) {
  int n = p->n;
  if (!p->M) {
    r->status = CLT_SOLVE_ERROR;
    lcp_set_message(r, "lemke does not apply: it needs an explicit matrix M (got an operator)");
    return CLT_OK;
  }
  if (lcp_has_bounds(p)) return solve_bounded(p, o, z, w, r);
  /* Dense input is used in place; CSR is expanded (Lemke is a dense method). */
  clt_scratch_t scratch;
  clt_arena_t *a = clt_scratch_begin(&scratch, o->arena);
  double *Mcopy = p->M->kind == CLT_MATRIX_DENSE ? NULL : densify(a, p->M, n);
  const double *M = p->M->kind == CLT_MATRIX_DENSE ? p->M->values : Mcopy;
  double *wbuf = w ? NULL : CLT_ARENA_NEW(a, double, n);
  lcp_lemke_work_t *lw = p->free_count == 0 ? lcp_lemke_work_create(a, n) : NULL;
  if (!M || (!w && !wbuf) || (p->free_count == 0 && !lw)) {
    clt_scratch_end(&scratch);
    lcp_set_message(r, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  double *wv = w ? w : wbuf;
  int pivots = 0;
  /* Refactor at the end only when the answer would miss the tolerance (with a margin). */
  double polish = 0.1 * o->tolerance;
  clt_solver_status_t st;
  if (p->free_count == 0)
    st = lcp_lemke_dense(lw, n, M, p->q, o->max_iterations, polish, z, &pivots, r->message,
                         sizeof r->message);
  else
    st = solve_mixed(a, M, n, p->free_count, p->q, o->max_iterations, polish, z, &pivots, r->message,
                     sizeof r->message);
  /* Verify on the original data: w = M z + q and the residual of solvers.h. */
  for (int i = 0; i < n; i++) {
    const double *row = M + (size_t)i * (size_t)n;
    double s = 0.0;
    for (int j = 0; j < n; j++) s += row[j] * z[j];
    wv[i] = s + p->q[i];
  }
  r->iterations = pivots;
  r->residual_abs = lcp_residual_abs(n, p->free_count, z, wv);
  r->residual = r->residual_abs / (1.0 + lcp_norm_inf(n, p->q));
  bool complementary = st == CLT_SOLVE_SOLVED;
  if (complementary && !(r->residual <= o->tolerance) && p->free_count < n) {
    /* A complementary basis whose answer misses the tolerance: floating-point trouble on a
     * degenerate problem (docs/stepping.md "Degenerate contact sets"). Polish it by active-set
     * Newton steps; a solution only if the residual then meets the tolerance. (A ray or the
     * pivot limit stays what it is: the caller decides what to do about it.) */
    double *zp = CLT_ARENA_NEW(a, double, n), *wp = CLT_ARENA_NEW(a, double, n);
    if (zp && wp) {
      memcpy(zp, z, sizeof(double) * (size_t)n);
      double res =
          lcp_newton_polish(a, n, p->free_count, M, p->q, LEMKE_POLISH_STEPS, o->tolerance, zp, wp, NULL);
      if (res < r->residual) { /* adopted when better */
        memcpy(z, zp, sizeof(double) * (size_t)n);
        memcpy(wv, wp, sizeof(double) * (size_t)n);
        r->residual_abs = lcp_residual_abs(n, p->free_count, z, wv);
        r->residual = r->residual_abs / (1.0 + lcp_norm_inf(n, p->q));
      }
    }
  }
  if (complementary && !(r->residual <= o->tolerance)) {
    /* an answer, short of the tolerance: not a failure to compute (solvers.h) */
    st = CLT_SOLVE_NOT_CONVERGED;
    lcp_set_message(r,
                    "lemke ended on a complementary basis but the residual %.3g exceeds the "
                    "tolerance %.3g (ill-conditioned basis)",
                    r->residual, o->tolerance);
  }
  r->status = st;
  if (st == CLT_SOLVE_SOLVED) r->message[0] = '\0';
  clt_scratch_end(&scratch);
  return CLT_OK;
}

/* A bounded problem (solvers.h: lo ≤ z ≤ hi for i ≥ free_count) as a standard mixed LCP of
 * x = z − lo ≥ 0 and, for every variable with a finite hi, the multiplier y ≥ 0 of z ≤ hi:
 *     w⁺ = M (lo + x) + q + E y ≥ 0  ⊥ x,      s = hi − lo − Eᵀ x ≥ 0  ⊥ y,
 * with E the columns of the unit vectors of the variables with a finite hi. Then w = w⁺ − E y: w ≥ 0
 * at z = lo, w = −y ≤ 0 at z = hi, w = 0 in between. The matrix [M E; −Eᵀ 0] is positive
 * semi-definite when M is (its skew part cancels), which Lemke's method handles (SPEC.md §2.1).
 * The answer is verified on the bounded problem itself. */
static clt_status_t solve_bounded(const clt_lcp_t *p, const clt_solver_options_t *o, double *z, double *w,
                                  clt_solve_result_t *r) {
  int n = p->n, nf = p->free_count, nb = 0;
  for (int i = nf; i < n; i++)
    if (isfinite(lcp_upper(p, i))) nb++;
  int big = n + nb;
  clt_scratch_t scratch;
  clt_arena_t *a = clt_scratch_begin(&scratch, o->arena);
  double *Mcopy = p->M->kind == CLT_MATRIX_DENSE ? NULL : densify(a, p->M, n);
  const double *M = p->M->kind == CLT_MATRIX_DENSE ? p->M->values : Mcopy;
  double *m2 = CLT_ARENA_ZNEW(a, double, (size_t)big * (size_t)big);
  double *q2 = CLT_ARENA_NEW(a, double, big), *z2 = CLT_ARENA_NEW(a, double, big);
  double *w2 = CLT_ARENA_NEW(a, double, big), *lo = CLT_ARENA_NEW(a, double, n);
  double *wv = w ? w : CLT_ARENA_NEW(a, double, n);
  if (!M || !m2 || !q2 || !z2 || !w2 || !lo || !wv) {
    clt_scratch_end(&scratch);
    lcp_set_message(r, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  for (int i = 0; i < n; i++) lo[i] = i < nf ? 0.0 : lcp_lower(p, i);
  for (int i = 0; i < n; i++) {
    const double *row = M + (size_t)i * (size_t)n;
    memcpy(m2 + (size_t)i * (size_t)big, row, sizeof(double) * (size_t)n);
    double s = 0.0;
    for (int j = 0; j < n; j++) s += row[j] * lo[j];
    q2[i] = p->q[i] + s;
  }
  for (int i = nf, k = n; i < n; i++) {
    double hi = lcp_upper(p, i);
    if (!isfinite(hi)) continue;
    m2[(size_t)i * (size_t)big + (size_t)k] = 1.0;
    m2[(size_t)k * (size_t)big + (size_t)i] = -1.0;
    q2[k] = hi - lo[i];
    k++;
  }
  clt_matrix_t mat = {CLT_MATRIX_DENSE, big, big, m2, NULL, NULL, 0};
  clt_lcp_t standard = {big, &mat, NULL, q2, nf, NULL, 0, NULL, NULL};
  clt_solve_result_t inner;
  memset(&inner, 0, sizeof inner);
  clt_solver_options_t oi = *o;
  oi.arena = a;
  clt_status_t st = lcp_solve_lemke(&standard, &oi, z2, w2, &inner);
  /* lo + (hi − lo) may round past hi: the answer is put back into its box */
  for (int i = 0; i < n; i++) z[i] = i < nf ? z2[i] : lcp_clamp(lo[i] + z2[i], lo[i], lcp_upper(p, i));
  for (int i = 0; i < n; i++) {
    const double *row = M + (size_t)i * (size_t)n;
    double s = 0.0;
    for (int j = 0; j < n; j++) s += row[j] * z[j];
    wv[i] = s + p->q[i];
  }
  *r = inner;
  r->residual_abs = lcp_problem_residual_abs(p, z, wv);
  r->residual = r->residual_abs / (1.0 + lcp_norm_inf(n, p->q));
  if (r->status == CLT_SOLVE_SOLVED && !(r->residual <= o->tolerance)) {
    r->status = CLT_SOLVE_NOT_CONVERGED;
    lcp_set_message(r, "lemke: the bounded problem's residual %.3g exceeds the tolerance %.3g", r->residual,
                    o->tolerance);
  }
  clt_scratch_end(&scratch);
  return st;
}

/* ---------------------------------------------------------------------------------------------
 * Active-set Newton polish (docs/stepping.md "Degenerate contact sets").
 *
 * The complementarity function Φ(z) = min(z, M z + q) (free rows: M z + q) is piecewise linear;
 * a semismooth Newton step with the piece picked at the current point is: z_i = 0 for every
 * i ≥ free_count with z_i ≤ w_i (the set I), and for the others (J) the equations w_J = 0, i.e.
 * M_JJ z_J = −q_J. On degenerate problems (dependent contact rows) M_JJ is singular but the
 * system is consistent near a solution: the step is the minimum-norm correction δ of
 * min ‖M_JJ δ − r‖, r = −(M_JJ z_J + q_J), by LAPACK's SVD least squares (dgelsd) with a relative
 * singular-value cutoff, so the iterate moves as little as the equations allow. The residual is
 * evaluated on the given problem; the best iterate is kept. No regularization enters the
 * equations: an answer is accepted only by the residual of solvers.h. */

#define POLISH_RCOND 1e-13

double lcp_newton_polish(clt_arena_t *arena, int n, int nf, const double *M, const double *q, int iterations,
                         double tolerance, double *z, double *w, int *steps) {
  if (steps) *steps = 0;
  double scale = 1.0 + lcp_norm_inf(n, q);
  int mark = clt_arena_mark(arena);
  double *zb = CLT_ARENA_NEW(arena, double, n);
  double *a = CLT_ARENA_NEW(arena, double, (size_t)n * (size_t)n);
  double *r = CLT_ARENA_NEW(arena, double, n);
  double *sv = CLT_ARENA_NEW(arena, double, n);
  int *J = CLT_ARENA_NEW(arena, int, n);
  int iteration_mark = clt_arena_mark(arena);
  double *work = NULL;
  int *iwork = NULL;
  double best = INFINITY;
  if (!zb || !a || !r || !sv || !J) goto done;
  for (int i = 0; i < n; i++) w[i] = lcp_dot(M + (size_t)i * (size_t)n, z, n) + q[i];
  best = lcp_residual_abs(n, nf, z, w) / scale;
  memcpy(zb, z, sizeof(double) * (size_t)n);
  for (int it = 0; it < iterations && !(best <= tolerance); it++) {
    int nj = 0;
    for (int i = 0; i < n; i++) {
      if (i >= nf && z[i] <= w[i]) {
        z[i] = 0.0;
      } else {
        J[nj++] = i;
      }
    }
    if (nj == 0) break;
    /* column-major M_JJ and r = −(M z + q)_J with z_I = 0 */
    for (int c = 0; c < nj; c++)
      for (int rr = 0; rr < nj; rr++)
        a[(size_t)c * (size_t)nj + (size_t)rr] = M[(size_t)J[rr] * (size_t)n + (size_t)J[c]];
    for (int rr = 0; rr < nj; rr++) r[rr] = -(lcp_dot(M + (size_t)J[rr] * (size_t)n, z, n) + q[J[rr]]);
    int one = 1, rank = 0, info = 0, lwork = -1, liwork;
    double wq = 0.0, rcond = POLISH_RCOND;
    int iwq = 0;
    clt_dgelsd(&nj, &nj, &one, a, &nj, r, &nj, sv, &rcond, &rank, &wq, &lwork, &iwq, &info);
    if (info != 0) break;
    lwork = (int)wq + 1;
    liwork = iwq > 1 ? iwq : 1;
    clt_arena_pop(arena, iteration_mark); /* the last step's LAPACK work arrays */
    work = CLT_ARENA_NEW(arena, double, lwork);
    iwork = clt_arena_alloc(arena, sizeof(int) * (size_t)liwork + sizeof(int) * 64 * (size_t)nj);
    if (!work || !iwork) break;
    clt_dgelsd(&nj, &nj, &one, a, &nj, r, &nj, sv, &rcond, &rank, work, &lwork, iwork, &info);
    if (info != 0) break;
    for (int c = 0; c < nj; c++) z[J[c]] += r[c];
    if (steps) (*steps)++;
    for (int i = 0; i < n; i++) w[i] = lcp_dot(M + (size_t)i * (size_t)n, z, n) + q[i];
    double res = lcp_residual_abs(n, nf, z, w) / scale;
    if (res < best) {
      best = res;
      memcpy(zb, z, sizeof(double) * (size_t)n);
    }
  }
  memcpy(z, zb, sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) w[i] = lcp_dot(M + (size_t)i * (size_t)n, z, n) + q[i];
done:
  clt_arena_pop(arena, mark);
  return best;
}

clt_status_t clt_lcp_polish(const clt_lcp_t *p, const clt_solver_options_t *o, double *z, double *w,
                            clt_solve_result_t *r) {
  clt_solve_result_t local;
  clt_solve_result_t *res = r ? r : &local;
  memset(res, 0, sizeof *res);
  res->status = CLT_SOLVE_ERROR;
  res->residual = res->residual_abs = INFINITY;
  clt_solver_options_t defaults = clt_default_solver_options();
  if (!o) o = &defaults;
  if (!p || !z || p->n < 0 || !clt_matrix_usable(p->M, p->n, p->n) || !p->q || p->free_count < 0 ||
      p->free_count > p->n || !(o->tolerance > 0.0)) {
    lcp_set_message(res, "lcp polish: needs an explicit n x n matrix, q, z and a tolerance > 0");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  int n = p->n;
  if (lcp_has_bounds(p)) {
    lcp_set_message(res, "lcp polish does not apply to bounded variables (clt_lcp_t.lower / upper)");
    return CLT_OK;
  }
  if (n == 0) {
    res->status = CLT_SOLVE_SOLVED;
    res->residual = res->residual_abs = 0.0;
    return CLT_OK;
  }
  clt_scratch_t scratch;
  clt_arena_t *a = clt_scratch_begin(&scratch, o->arena);
  double *Mcopy = p->M->kind == CLT_MATRIX_DENSE ? NULL : densify(a, p->M, n);
  const double *M = p->M->kind == CLT_MATRIX_DENSE ? p->M->values : Mcopy;
  double *wbuf = w ? NULL : CLT_ARENA_NEW(a, double, n);
  double *wv = w ? w : wbuf;
  if (!M || !wv) {
    clt_scratch_end(&scratch);
    lcp_set_message(res, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  int steps = 0;
  double scaled = lcp_newton_polish(a, n, p->free_count, M, p->q, o->max_iterations, o->tolerance, z,
                                    wv, &steps);
  if (isfinite(scaled)) {
    res->residual_abs = lcp_residual_abs(n, p->free_count, z, wv);
    res->residual = res->residual_abs / (1.0 + lcp_norm_inf(n, p->q));
  }
  res->iterations = steps;
  if (res->residual <= o->tolerance) {
    res->status = CLT_SOLVE_SOLVED;
  } else {
    res->status = isfinite(res->residual) ? CLT_SOLVE_MAX_ITERATIONS : CLT_SOLVE_ERROR;
    lcp_set_message(res, "lcp polish: %d Newton steps without reaching the tolerance", steps);
  }
  clt_scratch_end(&scratch);
  return CLT_OK;
}
