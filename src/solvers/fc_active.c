/* clatter — the active-set polish of the local frictional contact problem (data README §2.2):
 * guess which contacts take off, stick and slide, and solve those cases' equations exactly.
 *
 * Why: where the Delassus matrix W is rank-deficient (boxes on boxes, two points per side), the
 * iterative solvers can stall at a natural-map error of 1e-9..1e-6 next to a solution that exists:
 * a box sliding on one edge whose two contact points both carry load while both separate at
 * 5e-7 m/s, where the solution has one point carrying it all and the other lifting off. The merit
 * function of the semismooth Newton polish (fc_newton.c) has a local minimum there; the exact
 * point is one switch of one contact's case away.
 *
 * Case equations for contact a (u = W r + q, normal first):
 *   take-off  r_a = 0
 *   stick     u_a = 0
 *   slide     u_N = 0,  r_T + μ r_N t = 0,  t = u_T / ‖u_T‖ (2D: the sign of u_T, held fixed)
 * solved by Gauss–Newton with minimum-norm least squares (dgelsd), which also settles a
 * statically indeterminate set of equations. The inequalities are not imposed: the natural-map
 * error of the answer (clt_fc_local_error) decides. The first guess reads the cases off the
 * starting point; the next ones switch the contacts whose guess is doubtful (loaded but
 * separating: to take-off; unloaded but approaching: to stick; sliding slowly: to stick), one
 * and then two at a time, most doubtful first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/algebra.h"
#include "solvers/fc_internal.h"

enum { CASE_TAKE_OFF, CASE_STICK, CASE_SLIDE };

/* Doubtful contacts considered for a switch, and Gauss–Newton iterations per guess. */
#define FC_ACTIVE_SWITCHES 8
#define FC_ACTIVE_NEWTON 20

typedef struct active_ctx_t {
  const clt_fc_local_t *p;
  int m;
  double *W;     /* m×m row-major (a dense copy) */
  double *u;     /* m */
  double *g;     /* m */
  double *jac;   /* m×m column-major, overwritten by dgelsd */
  double *rhs;   /* m */
  double *sv;    /* m */
  double *work;
  int lwork;
  int *iwork;
} active_ctx_t;

static void product(const active_ctx_t *x, const double *r, double *u) {
  int m = x->m;
  for (int i = 0; i < m; i++) {
    double s = x->p->q[i];
    const double *row = x->W + (size_t)i * m;
    for (int k = 0; k < m; k++) s += row[k] * r[k];
    u[i] = s;
  }
}

/* Gauss–Newton on the case equations from r (in place); false when a guess has no meaning (a
 * sliding contact in 3D whose tangential velocity vanished) or the solve failed. */
static bool solve_cases(active_ctx_t *x, const int *cases, const double *sign, double *r) {
  const clt_fc_local_t *p = x->p;
  int m = x->m, d = p->dim;
  double last = INFINITY;
  int stalls = 0;
  for (int it = 0; it < FC_ACTIVE_NEWTON; it++) {
    product(x, r, x->u);
    memset(x->jac, 0, (size_t)m * m * sizeof *x->jac);
    double norm = 0.0, scale = 0.0;
    for (int a = 0; a < p->contacts; a++) {
      int i0 = d * a;
      const double *u = x->u + i0, *ra = r + i0;
      switch (cases[a]) {
        case CASE_TAKE_OFF:
          for (int k = 0; k < d; k++) {
            x->g[i0 + k] = ra[k];
            x->jac[(size_t)(i0 + k) * m + i0 + k] = 1.0;
          }
          break;
        case CASE_STICK:
          for (int k = 0; k < d; k++) {
            x->g[i0 + k] = u[k];
            for (int c = 0; c < m; c++) x->jac[(size_t)c * m + i0 + k] = x->W[(size_t)(i0 + k) * m + c];
          }
          break;
        default: { /* slide */
          double mu = p->mu[a], t[2], nt = 0.0;
          x->g[i0] = u[0];
          for (int c = 0; c < m; c++) x->jac[(size_t)c * m + i0] = x->W[(size_t)i0 * m + c];
          if (d == 2) {
            t[0] = sign[a];
          } else {
            nt = hypot(u[1], u[2]);
            if (!(nt > 0.0)) return false;
            t[0] = u[1] / nt;
            t[1] = u[2] / nt;
          }
          for (int k = 1; k < d; k++) {
            int row = i0 + k;
            x->g[row] = ra[k] + mu * ra[0] * t[k - 1];
            x->jac[(size_t)row * m + row] += 1.0;
            x->jac[(size_t)i0 * m + row] += mu * t[k - 1];
            if (d == 3) { /* ∂t/∂u_T = (I − t tᵀ)/‖u_T‖, u_T = W_T r + q_T */
              for (int l = 1; l < d; l++) {
                double coef = mu * ra[0] * (((k == l) ? 1.0 : 0.0) - t[k - 1] * t[l - 1]) / nt;
                if (coef == 0.0) continue;
                const double *wrow = x->W + (size_t)(i0 + l) * m;
                for (int c = 0; c < m; c++) x->jac[(size_t)c * m + row] += coef * wrow[c];
              }
            }
          }
          break;
        }
      }
    }
    for (int i = 0; i < m; i++) {
      norm = fmax(norm, fabs(x->g[i]));
      scale = fmax(scale, fabs(r[i]));
    }
    if (!isfinite(norm)) return false;
    if (norm <= 1e-15 * (1.0 + scale)) break;
    if (!(norm < last) && ++stalls >= 3) break; /* Gauss–Newton need not decrease every step */
    last = fmin(last, norm);
    for (int i = 0; i < m; i++) x->rhs[i] = -x->g[i];
    int one = 1, rank = 0, info = 0;
    double rcond = 1e-13;
    clt_dgelsd(&m, &m, &one, x->jac, &m, x->rhs, &m, x->sv, &rcond, &rank, x->work, &x->lwork, x->iwork, &info);
    if (info != 0) return false;
    for (int i = 0; i < m; i++) r[i] += x->rhs[i];
  }
  return true;
}

typedef struct doubt_t {
  int contact;
  int alt;        /* the case to switch to */
  double weight;  /* how doubtful (larger first) */
} doubt_t;

static int by_weight(const void *a, const void *b) {
  const doubt_t *x = a, *y = b;
  if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
  return x->contact - y->contact;
}

clt_status_t clt_fc_local_active_set(const clt_fc_local_t *p, const clt_solver_options_t *options,
                                     double *r, clt_solve_result_t *result) {
  clt_solve_result_t local_result;
  if (!result) result = &local_result;
  memset(result, 0, sizeof *result);
  result->status = CLT_SOLVE_ERROR;
  if (!p || !r || (p->dim != 2 && p->dim != 3) || p->contacts < 0 ||
      (p->contacts > 0 && (!p->q || !p->mu || !clt_matrix_usable(&p->W, p->dim * p->contacts, p->dim * p->contacts)))) {
    snprintf(result->message, sizeof result->message, "invalid frictional contact problem");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  const int d = p->dim, nc = p->contacts, m = d * nc;
  const double tol = options && options->tolerance > 0.0 ? options->tolerance : 1e-10;
  double best_err = clt_fc_local_error(p, r, NULL);
  result->residual = best_err;
  if (nc == 0 || best_err <= tol || m > CLT_FC_ACTIVE_MAX_UNKNOWNS) {
    result->status = best_err <= tol ? CLT_SOLVE_SOLVED : CLT_SOLVE_MAX_ITERATIONS;
    return CLT_OK;
  }
  active_ctx_t x;
  memset(&x, 0, sizeof x);
  x.p = p;
  x.m = m;
  int smlsiz = 25, nlvl = 1;
  while ((m / (smlsiz + 1)) >> (nlvl - 1)) nlvl++;
  x.lwork = 12 * m + 2 * m * smlsiz + 8 * m * nlvl + m + (smlsiz + 1) * (smlsiz + 1) + 64;
  size_t doubles = 2 * (size_t)m * m + 6 * (size_t)m + (size_t)x.lwork;
  double *buf = malloc(doubles * sizeof *buf);
  x.iwork = malloc(((size_t)(3 * m * nlvl + 11 * m) + 64) * sizeof *x.iwork);
  int *cases = malloc(2 * (size_t)nc * sizeof *cases);
  doubt_t *doubts = malloc((size_t)nc * sizeof *doubts);
  if (!buf || !x.iwork || !cases || !doubts) {
    free(buf);
    free(x.iwork);
    free(cases);
    free(doubts);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  x.W = buf;
  x.jac = x.W + (size_t)m * m;
  x.u = x.jac + (size_t)m * m;
  x.g = x.u + m;
  x.rhs = x.g + m;
  x.sv = x.rhs + m;
  double *start = x.sv + m, *trial = start + m;
  x.work = trial + m;
  for (int i = 0; i < m; i++)
    for (int k = 0; k < m; k++) x.W[(size_t)i * m + k] = clt_matrix_get(&p->W, i, k);

  /* the first guess, and the doubtful contacts, from r and u = W r + q */
  memcpy(start, r, (size_t)m * sizeof *r);
  product(&x, start, x.u);
  double rscale = 0.0, uscale = 0.0;
  for (int i = 0; i < m; i++) {
    rscale = fmax(rscale, fabs(start[i]));
    uscale = fmax(uscale, fabs(x.u[i]));
  }
  const double r_eps = 1e-9 * rscale, u_eps = 1e-9 * (uscale > 0.0 ? uscale : 1.0);
  int *base = cases, *guess = cases + nc;
  double *signs = malloc((size_t)nc * sizeof *signs);
  if (!signs) {
    free(buf);
    free(x.iwork);
    free(cases);
    free(doubts);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  int ndoubt = 0;
  for (int a = 0; a < nc; a++) {
    const double *ra = start + d * a, *u = x.u + d * a;
    double ut = d == 3 ? hypot(u[1], u[2]) : fabs(u[1]);
    signs[a] = u[1] >= 0.0 ? 1.0 : -1.0;
    if (ra[0] <= r_eps) {
      base[a] = CASE_TAKE_OFF;
      if (u[0] < -u_eps) doubts[ndoubt++] = (doubt_t){a, CASE_STICK, -u[0] / (uscale + 1e-300)};
    } else if (ut <= u_eps) {
      base[a] = CASE_STICK;
      if (u[0] > u_eps) doubts[ndoubt++] = (doubt_t){a, CASE_TAKE_OFF, u[0] / (uscale + 1e-300)};
    } else {
      base[a] = CASE_SLIDE;
      if (u[0] > 1e-12 * uscale) doubts[ndoubt++] = (doubt_t){a, CASE_TAKE_OFF, u[0] / (uscale + 1e-300)};
      else if (ut <= 1e-6 * uscale) doubts[ndoubt++] = (doubt_t){a, CASE_STICK, 1e-6 - ut / (uscale + 1e-300)};
    }
  }
  qsort(doubts, (size_t)ndoubt, sizeof *doubts, by_weight);
  if (ndoubt > FC_ACTIVE_SWITCHES) ndoubt = FC_ACTIVE_SWITCHES;

  /* guesses: the first one, then one switch, then two */
  int tries = 1 + ndoubt + ndoubt * (ndoubt - 1) / 2, solved = 0;
  for (int t = 0; t < tries && best_err > tol; t++) {
    memcpy(guess, base, (size_t)nc * sizeof *guess);
    if (t >= 1 && t <= ndoubt) {
      guess[doubts[t - 1].contact] = doubts[t - 1].alt;
    } else if (t > ndoubt) {
      int k = t - 1 - ndoubt, i = 0;
      while (k >= ndoubt - 1 - i) k -= ndoubt - 1 - i++;
      int j = i + 1 + k;
      guess[doubts[i].contact] = doubts[i].alt;
      guess[doubts[j].contact] = doubts[j].alt;
    }
    memcpy(trial, start, (size_t)m * sizeof *trial);
    for (int a = 0; a < nc; a++)
      if (guess[a] == CASE_TAKE_OFF) memset(trial + d * a, 0, (size_t)d * sizeof *trial);
    if (!solve_cases(&x, guess, signs, trial)) continue;
    double err = clt_fc_local_error(p, trial, NULL);
    if (err < best_err) {
      best_err = err;
      memcpy(r, trial, (size_t)m * sizeof *r);
      solved = t + 1;
    }
  }
  result->residual = best_err;
  result->iterations = solved;
  result->status = best_err <= tol ? CLT_SOLVE_SOLVED : CLT_SOLVE_MAX_ITERATIONS;
  free(signs);
  free(buf);
  free(x.iwork);
  free(cases);
  free(doubts);
  return CLT_OK;
}
