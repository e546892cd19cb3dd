/* clatter — the exact one-contact Coulomb problem (data README §2.2 with nc = 1) and the
 * block-CSR form of W used by the Gauss–Seidel sweeps.
 *
 * One contact: u = W r + q̃ (W = W_aa, d×d), û = u + μ‖u_T‖e_N, K* ∋ û ⟂ r ∈ K. Its solutions
 * fall in three cases, tried in order; each one found is an exact solution:
 *   take-off  r = 0, valid iff q̃_N ≥ 0 (then û = q̃ + μ‖q̃_T‖e_N ∈ K*);
 *   stick     u = 0, r = −W⁻¹q̃, valid iff r ∈ K;
 *   slide     u_N = 0, r = r_N (1, μ t̂), u_T = −s t̂ with s ≥ 0 and t̂ a unit vector.
 * In 2D t̂ = ±1 (two candidates, closed form). In 3D write t̂ = (cos θ, sin θ): the normal row
 * gives r_N = −q̃_N / (W_NN + μ W_NT t̂), and the tangential rows ask that
 *   w(θ) = −q̃_N (W_TN + μ W_TT t̂) + (W_NN + μ W_NT t̂) q̃_T   (= r_N⁻¹-scaled u_T)
 * be antiparallel to t̂: G(θ) = w × t̂ = 0 with w·t̂ < 0. G is a trigonometric polynomial of
 * degree 2 (at most four roots on the circle). A Newton iteration on θ from the warm start
 * (the previous sweep's direction) finds the root in a few steps; when it fails, 96 samples of
 * G bracket every simple root and each is refined. Should no case apply (W_aa not positive
 * definite, or a degenerate tie), the candidate with the least local natural-map residual is
 * kept and improved by projection iterations (the "projection fallback"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/fc_internal.h"

#define FC_PI 3.14159265358979323846

/* ---- block-CSR W --------------------------------------------------------------------------- */

clt_status_t clt_fc_blocks_build(const clt_matrix_t *W, int dim, int contacts,
                                 clt_fc_blocks_t *out) {
  memset(out, 0, sizeof *out);
  const int m = dim * contacts, dd = dim * dim;
  if (W->rows != m || W->cols != m) return CLT_ERR_INVALID_ARGUMENT;
  int *marker = malloc(2 * (size_t)contacts * sizeof *marker); /* marker, then slot */
  int *ptr = calloc((size_t)contacts + 1, sizeof *ptr);
  int *diag = malloc((size_t)contacts * sizeof *diag);
  if (!marker || !ptr || !diag) {
    free(marker); free(ptr); free(diag);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  for (int b = 0; b < contacts; b++) marker[b] = -1;
  const int dense = W->kind == CLT_MATRIX_DENSE;
  /* pass 1: count distinct block columns per block row */
  for (int a = 0; a < contacts; a++) {
    int count = 0;
    for (int i = dim * a; i < dim * a + dim; i++) {
      if (dense) {
        const double *row = W->values + (size_t)i * (size_t)m;
        for (int j = 0; j < m; j++)
          if (row[j] != 0.0 && marker[j / dim] != a) marker[j / dim] = a, count++;
      } else {
        for (int k = W->row_ptr[i]; k < W->row_ptr[i + 1]; k++) {
          int b = W->col_index[k] / dim;
          if (marker[b] != a) marker[b] = a, count++;
        }
      }
    }
    /* the diagonal block always exists (it may be zero) */
    if (marker[a] != a) marker[a] = a, count++;
    ptr[a + 1] = ptr[a] + count;
  }
  const int nb = ptr[contacts];
  int *col = malloc(((size_t)nb + 1) * sizeof *col);
  double *val = calloc((size_t)nb * (size_t)dd + 1, sizeof *val);
  int *slot = marker + contacts;
  if (!col || !val) {
    free(marker); free(ptr); free(diag); free(col); free(val);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  for (int b = 0; b < contacts; b++) marker[b] = -1;
  /* pass 2: block columns in increasing order (sorted CSR rows keep them sorted, except the
   * forced diagonal), then the values */
  for (int a = 0; a < contacts; a++) {
    int next = ptr[a];
    for (int i = dim * a; i < dim * a + dim; i++) {
      if (dense) {
        const double *row = W->values + (size_t)i * (size_t)m;
        for (int j = 0; j < m; j++) {
          if (row[j] == 0.0) continue;
          int b = j / dim;
          if (marker[b] != a) marker[b] = a, slot[b] = next, col[next++] = b;
          val[(size_t)slot[b] * dd + (size_t)(i - dim * a) * dim + (size_t)(j - dim * b)] += row[j];
        }
      } else {
        for (int k = W->row_ptr[i]; k < W->row_ptr[i + 1]; k++) {
          int j = W->col_index[k], b = j / dim;
          if (marker[b] != a) marker[b] = a, slot[b] = next, col[next++] = b;
          val[(size_t)slot[b] * dd + (size_t)(i - dim * a) * dim + (size_t)(j - dim * b)] +=
              W->values[k];
        }
      }
    }
    if (marker[a] != a) marker[a] = a, slot[a] = next, col[next++] = a;
    diag[a] = slot[a];
  }
  free(marker);
  out->dim = dim;
  out->contacts = contacts;
  out->ptr = ptr;
  out->col = col;
  out->diag = diag;
  out->val = val;
  return CLT_OK;
}

void clt_fc_blocks_free(clt_fc_blocks_t *b) {
  if (!b) return;
  free(b->ptr);
  free(b->col);
  free(b->diag);
  free(b->val);
  memset(b, 0, sizeof *b);
}

void clt_fc_blocks_apply(const clt_fc_blocks_t *b, const double *r, const double *q, double *u) {
  const int d = b->dim;
  if (d == 3) {
    for (int a = 0; a < b->contacts; a++) {
      double u0 = q[3 * a], u1 = q[3 * a + 1], u2 = q[3 * a + 2];
      for (int k = b->ptr[a]; k < b->ptr[a + 1]; k++) {
        const double *B = b->val + 9 * (size_t)k, *x = r + 3 * b->col[k];
        u0 += B[0] * x[0] + B[1] * x[1] + B[2] * x[2];
        u1 += B[3] * x[0] + B[4] * x[1] + B[5] * x[2];
        u2 += B[6] * x[0] + B[7] * x[1] + B[8] * x[2];
      }
      u[3 * a] = u0, u[3 * a + 1] = u1, u[3 * a + 2] = u2;
    }
  } else {
    for (int a = 0; a < b->contacts; a++) {
      double u0 = q[2 * a], u1 = q[2 * a + 1];
      for (int k = b->ptr[a]; k < b->ptr[a + 1]; k++) {
        const double *B = b->val + 4 * (size_t)k, *x = r + 2 * b->col[k];
        u0 += B[0] * x[0] + B[1] * x[1];
        u1 += B[2] * x[0] + B[3] * x[1];
      }
      u[2 * a] = u0, u[2 * a + 1] = u1;
    }
  }
}

/* ---- one contact ---------------------------------------------------------------------------- */

void clt_fc_contact_prepare(int dim, const double *Waa, double mu, clt_fc_contact_t *c) {
  memcpy(c->W, Waa, (size_t)dim * dim * sizeof *Waa);
  c->invertible = 0;
  c->mu = mu;
  const double *A = c->W;
  double scale = 0.0;
  for (int k = 0; k < dim * dim; k++) scale = fabs(A[k]) > scale ? fabs(A[k]) : scale;
  if (dim == 2) {
    double det = A[0] * A[3] - A[1] * A[2];
    if (scale > 0.0 && fabs(det) > 1e-14 * scale * scale) {
      c->Winv[0] = A[3] / det, c->Winv[1] = -A[1] / det;
      c->Winv[2] = -A[2] / det, c->Winv[3] = A[0] / det;
      c->invertible = 1;
    }
  } else {
    double c00 = A[4] * A[8] - A[5] * A[7];
    double c01 = A[5] * A[6] - A[3] * A[8];
    double c02 = A[3] * A[7] - A[4] * A[6];
    double det = A[0] * c00 + A[1] * c01 + A[2] * c02;
    if (scale > 0.0 && fabs(det) > 1e-14 * scale * scale * scale) {
      double *I = c->Winv;
      I[0] = c00 / det;
      I[1] = (A[2] * A[7] - A[1] * A[8]) / det;
      I[2] = (A[1] * A[5] - A[2] * A[4]) / det;
      I[3] = c01 / det;
      I[4] = (A[0] * A[8] - A[2] * A[6]) / det;
      I[5] = (A[2] * A[3] - A[0] * A[5]) / det;
      I[6] = c02 / det;
      I[7] = (A[1] * A[6] - A[0] * A[7]) / det;
      I[8] = (A[0] * A[4] - A[1] * A[3]) / det;
      c->invertible = 1;
    }
  }
}

/* ‖r − P_K(r − û)‖² of the one-contact problem at r. */
static double local_error(int dim, const clt_fc_contact_t *c, const double *qt, const double *r) {
  double u[3];
  for (int i = 0; i < dim; i++) {
    double s = qt[i];
    for (int j = 0; j < dim; j++) s += c->W[i * dim + j] * r[j];
    u[i] = s;
  }
  return clt_fc_contact_error(dim, c->mu, r, u);
}

/* Sliding-direction function G(θ) (see the file comment), with G'(θ), w·t̂ and the
 * denominator W_NN + μ W_NT t̂. */
typedef struct slide3_t {
  double a, b0, b1, c0, c1, d00, d01, d10, d11, qn, qt0, qt1, mu;
} slide3_t;

static double slide_eval(const slide3_t *s, double theta, double *dG, double *wt, double *den) {
  const double ct = cos(theta), st = sin(theta);
  const double dn = s->a + s->mu * (s->b0 * ct + s->b1 * st);
  const double w0 = -s->qn * (s->c0 + s->mu * (s->d00 * ct + s->d01 * st)) + dn * s->qt0;
  const double w1 = -s->qn * (s->c1 + s->mu * (s->d10 * ct + s->d11 * st)) + dn * s->qt1;
  const double G = w0 * st - w1 * ct;
  if (dG) {
    /* t̂' = (−sin θ, cos θ) */
    const double dd = s->mu * (-s->b0 * st + s->b1 * ct);
    const double wp0 = -s->qn * s->mu * (-s->d00 * st + s->d01 * ct) + dd * s->qt0;
    const double wp1 = -s->qn * s->mu * (-s->d10 * st + s->d11 * ct) + dd * s->qt1;
    *dG = wp0 * st - wp1 * ct + (w0 * ct + w1 * st);
  }
  if (wt) *wt = w0 * ct + w1 * st;
  if (den) *den = dn;
  return G;
}

static void slide_r(const slide3_t *s, double theta, double den, double *r) {
  const double rn = -s->qn / den;
  r[0] = rn;
  r[1] = s->mu * rn * cos(theta);
  r[2] = s->mu * rn * sin(theta);
}

/* Newton on G from theta; returns 1 with *root when it converges to a valid sliding root. */
static int slide_newton(const slide3_t *s, double theta, double scale, double *root) {
  for (int it = 0; it < 30; it++) {
    double dG, wt, den;
    double G = slide_eval(s, theta, &dG, &wt, &den);
    double step = (dG != 0.0) ? -G / dG : 0.0;
    if (!isfinite(step)) return 0;
    if (step > 0.5) step = 0.5;
    if (step < -0.5) step = -0.5;
    theta += step;
    if (fabs(step) <= 1e-9 || G == 0.0) { /* quadratic convergence: θ is now exact to ~1e-18 */
      slide_eval(s, theta, NULL, &wt, &den);
      if (!(den > 0.0) || wt > 1e-12 * scale) return 0;
      *root = theta;
      return 1;
    }
  }
  double wt, den;
  double G = slide_eval(s, theta, NULL, &wt, &den);
  if (fabs(G) <= 1e-13 * scale && den > 0.0 && wt <= 1e-12 * scale) {
    *root = theta;
    return 1;
  }
  return 0;
}

/* Refines a root bracketed in [lo, hi] (G(lo)·G(hi) ≤ 0) by safeguarded Newton/bisection. */
static double slide_bracketed(const slide3_t *s, double lo, double hi) {
  double glo = slide_eval(s, lo, NULL, NULL, NULL);
  double x = 0.5 * (lo + hi);
  for (int it = 0; it < 100; it++) {
    double dG;
    double g = slide_eval(s, x, &dG, NULL, NULL);
    if (g == 0.0) return x;
    if ((g < 0.0) == (glo < 0.0)) lo = x, glo = g;
    else hi = x;
    double xn = dG != 0.0 ? x - g / dG : 0.5 * (lo + hi);
    if (!(xn > lo && xn < hi)) xn = 0.5 * (lo + hi);
    if (fabs(xn - x) <= 1e-16 * (1.0 + fabs(x)) || hi - lo <= 1e-16) return xn;
    x = xn;
  }
  return x;
}

/* Projection iterations r ← P_K(r − ρ û(r)) with ρ = 1/‖W_aa‖_F: the last resort. */
static void projection_iterations(int dim, const clt_fc_contact_t *c, const double *qt,
                                  double *r, int count) {
  double norm = 0.0;
  for (int k = 0; k < dim * dim; k++) norm += c->W[k] * c->W[k];
  const double rho = norm > 0.0 ? 1.0 / sqrt(norm) : 1.0;
  for (int it = 0; it < count; it++) {
    double u[3], x[3];
    for (int i = 0; i < dim; i++) {
      double s = qt[i];
      for (int j = 0; j < dim; j++) s += c->W[i * dim + j] * r[j];
      u[i] = s;
    }
    double ut = dim == 3 ? hypot(u[1], u[2]) : fabs(u[1]);
    x[0] = r[0] - rho * (u[0] + c->mu * ut);
    for (int i = 1; i < dim; i++) x[i] = r[i] - rho * u[i];
    clt_fc_project_cone(dim, c->mu, x, r);
  }
}

/* Keeps the candidate with the least local residual in best/best_err. */
static void consider(int dim, const clt_fc_contact_t *c, const double *qt, const double *cand,
                     double *best, double *best_err) {
  double e = local_error(dim, c, qt, cand);
  if (e < *best_err) {
    *best_err = e;
    memcpy(best, cand, (size_t)dim * sizeof *cand);
  }
}

static clt_fc_local_case_t fallback(int dim, const clt_fc_contact_t *c, const double *qt,
                                    double *r, const double *extra, int extra_count) {
  double best[3] = {0.0, 0.0, 0.0};
  double best_err = local_error(dim, c, qt, best);
  consider(dim, c, qt, r, best, &best_err);
  for (int k = 0; k < extra_count; k++) consider(dim, c, qt, extra + 3 * k, best, &best_err);
  double improved[3];
  memcpy(improved, best, sizeof improved);
  projection_iterations(dim, c, qt, improved, 50);
  consider(dim, c, qt, improved, best, &best_err);
  memcpy(r, best, (size_t)dim * sizeof *r);
  return CLT_FC_FALLBACK;
}

static clt_fc_local_case_t solve2(const clt_fc_contact_t *c, const double *qt, double *r) {
  const double *W = c->W;
  const double mu = c->mu;
  if (qt[0] >= 0.0) {
    r[0] = r[1] = 0.0;
    return CLT_FC_TAKE_OFF;
  }
  if (mu == 0.0 && W[0] > 0.0) {
    r[0] = -qt[0] / W[0];
    r[1] = 0.0;
    return CLT_FC_SLIDE;
  }
  double stick[3] = {0.0, 0.0, 0.0};
  if (c->invertible) {
    stick[0] = -(c->Winv[0] * qt[0] + c->Winv[1] * qt[1]);
    stick[1] = -(c->Winv[2] * qt[0] + c->Winv[3] * qt[1]);
    if (stick[0] > 0.0 && fabs(stick[1]) <= mu * stick[0]) {
      r[0] = stick[0], r[1] = stick[1];
      return CLT_FC_STICK;
    }
  }
  double cand[6] = {0};
  int count = 0;
  double first = c->invertible ? (stick[1] >= 0.0 ? 1.0 : -1.0) : (qt[1] <= 0.0 ? 1.0 : -1.0);
  for (int k = 0; k < 2; k++) {
    double t = k == 0 ? first : -first;
    double den = W[0] + mu * W[1] * t;
    if (!(den > 0.0)) continue;
    double rn = -qt[0] / den;
    double v = rn * (W[2] + mu * W[3] * t) + qt[1]; /* u_T */
    double scale = fabs(qt[1]) + rn * (fabs(W[2]) + mu * fabs(W[3]));
    if (v * t <= 1e-14 * scale) {
      r[0] = rn, r[1] = mu * rn * t;
      return CLT_FC_SLIDE;
    }
    cand[3 * count] = rn, cand[3 * count + 1] = mu * rn * t;
    count++;
  }
  if (c->invertible) {
    double p[3];
    clt_fc_project_cone(2, mu, stick, p);
    cand[3 * count] = p[0], cand[3 * count + 1] = p[1];
    count++;
  }
  return fallback(2, c, qt, r, cand, count);
}

static clt_fc_local_case_t solve3(const clt_fc_contact_t *c, const double *qt, double *r) {
  const double *W = c->W;
  const double mu = c->mu;
  if (qt[0] >= 0.0) {
    r[0] = r[1] = r[2] = 0.0;
    return CLT_FC_TAKE_OFF;
  }
  if (mu == 0.0 && W[0] > 0.0) {
    r[0] = -qt[0] / W[0];
    r[1] = r[2] = 0.0;
    return CLT_FC_SLIDE;
  }
  double stick[3] = {0.0, 0.0, 0.0};
  if (c->invertible) {
    const double *I = c->Winv;
    stick[0] = -(I[0] * qt[0] + I[1] * qt[1] + I[2] * qt[2]);
    stick[1] = -(I[3] * qt[0] + I[4] * qt[1] + I[5] * qt[2]);
    stick[2] = -(I[6] * qt[0] + I[7] * qt[1] + I[8] * qt[2]);
    if (stick[0] > 0.0 && sqrt(stick[1] * stick[1] + stick[2] * stick[2]) <= mu * stick[0]) {
      memcpy(r, stick, sizeof stick);
      return CLT_FC_STICK;
    }
  }
  slide3_t s = {W[0], W[1], W[2], W[3], W[6], W[4], W[5], W[7], W[8], qt[0], qt[1], qt[2], mu};
  const double scale = fabs(qt[0]) * (fabs(W[3]) + fabs(W[6]) + mu * (fabs(W[4]) + fabs(W[5]) +
                                                                     fabs(W[7]) + fabs(W[8]))) +
                       (fabs(W[0]) + mu * (fabs(W[1]) + fabs(W[2]))) *
                           (fabs(qt[1]) + fabs(qt[2]));
  /* starting direction: the warm start's, else the stick solution's (outside K), else −q̃_T */
  double theta0;
  if (r[1] != 0.0 || r[2] != 0.0) theta0 = atan2(r[2], r[1]);
  else if (c->invertible && (stick[1] != 0.0 || stick[2] != 0.0)) theta0 = atan2(stick[2], stick[1]);
  else theta0 = atan2(-qt[2], -qt[1]);
  double root;
  if (slide_newton(&s, theta0, scale, &root)) {
    double den;
    slide_eval(&s, root, NULL, NULL, &den);
    slide_r(&s, root, den, r);
    return CLT_FC_SLIDE;
  }
  /* sampled search: every sign change of G with a valid sliding root */
  enum { SAMPLES = 96 };
  double cand[3 * 8];
  int count = 0;
  double best[3], best_err = INFINITY;
  double prev_theta = -FC_PI, prev_G = slide_eval(&s, prev_theta, NULL, NULL, NULL);
  for (int k = 1; k <= SAMPLES; k++) {
    double theta = -FC_PI + 2.0 * FC_PI * k / SAMPLES;
    double G = slide_eval(&s, theta, NULL, NULL, NULL);
    if ((G <= 0.0) != (prev_G <= 0.0) || G == 0.0) {
      double x = slide_bracketed(&s, prev_theta, theta);
      double wt, den;
      slide_eval(&s, x, NULL, &wt, &den);
      if (den > 0.0) {
        double rc[3];
        slide_r(&s, x, den, rc);
        if (wt <= 1e-12 * scale) {
          double e = local_error(3, c, qt, rc);
          if (e < best_err) best_err = e, memcpy(best, rc, sizeof rc);
        } else if (count < 7) {
          memcpy(cand + 3 * count, rc, sizeof rc);
          count++;
        }
      }
    }
    prev_theta = theta, prev_G = G;
  }
  if (best_err < INFINITY) {
    memcpy(r, best, sizeof best);
    return CLT_FC_SLIDE;
  }
  if (c->invertible) {
    clt_fc_project_cone(3, mu, stick, cand + 3 * count);
    count++;
  }
  return fallback(3, c, qt, r, cand, count);
}

clt_fc_local_case_t clt_fc_contact_solve(int dim, const clt_fc_contact_t *c, const double *qt,
                                         double *r) {
  return dim == 3 ? solve3(c, qt, r) : solve2(c, qt, r);
}
