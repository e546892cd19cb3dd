/* clatter — a globalised semismooth Newton polish for the local frictional contact problem
 * (data README §2.2), used by NSGS (fc_nsgs.c) when its sweeps stagnate (contacts redundant
 * through a rank-deficient W, e.g. many contacts on one body, where Gauss–Seidel cycles).
 *
 * Equation: F_a(r) = r_a − P_K(r_a − ρ_a û_a(r)) = 0 for every contact (the natural map with a
 * per-contact scaling ρ_a = 1/‖W_aa‖_F; same zeros as the README's ρ = 1 map), u = W r + q,
 * û_a = u_a + μ_a ‖u_a,T‖ e_N. A generalized Jacobian is
 *   J_a = (I − P'_a) E_a^r + ρ_a P'_a D_a W_a,:,   D_a = I + μ_a e_N [0, u_T/‖u_T‖]ᵀ,
 * with P' the Jacobian of the cone projection at r_a − ρ_a û_a and E_a^r the rows of the
 * identity. Steps are Levenberg–Marquardt, (JᵀJ + λI) Δ = −JᵀF with λ = θ‖F‖, followed by an
 * Armijo backtracking search on ½‖F‖²; θ shrinks tenfold after every full step and grows
 * tenfold when no step is found. The λ ∝ ‖F‖ rule keeps fast local convergence even when the
 * solution set is not a single point (rank-deficient W), where plain Newton's J is singular.
 * Dense (JᵀJ by dsyrk, Cholesky by dpotrf): used only up to FC_NEWTON_MAX_UNKNOWNS. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/algebra.h"
#include "solvers/fc_internal.h"

/* Jacobian of the projection onto K_μ at x (d×d row-major). */
static void projection_jacobian(int d, double mu, const double *x, double *P) {
  memset(P, 0, (size_t)d * d * sizeof *P);
  const double n = x[0];
  const double t = d == 3 ? hypot(x[1], x[2]) : fabs(x[1]);
  if (t <= mu * n && n >= 0.0) {
    for (int i = 0; i < d; i++) P[i * d + i] = 1.0;
    return;
  }
  if (mu * t <= -n || t == 0.0) return;
  const double k = 1.0 / (1.0 + mu * mu);
  const double alpha = (mu * t + n) * k;
  double e[2] = {x[1] / t, d == 3 ? x[2] / t : 0.0};
  /* α = (μ t + n)/(1 + μ²): ∂α/∂n = k, ∂α/∂x_T = μ k e;  P_T = μ α e:
   * ∂P_T/∂n = μ k e, ∂P_T/∂x_T = μ (μ k e eᵀ + α (I − e eᵀ)/t) */
  P[0] = k;
  for (int j = 1; j < d; j++) P[j] = mu * k * e[j - 1];
  for (int i = 1; i < d; i++) {
    P[i * d] = mu * k * e[i - 1];
    for (int j = 1; j < d; j++) {
      double eij = e[i - 1] * e[j - 1];
      P[i * d + j] = mu * (mu * k * eij + alpha * ((i == j ? 1.0 : 0.0) - eij) / t);
    }
  }
}

/* F(r) (scaled natural map) and ½‖F‖²; u receives W r + q. */
static double residual(const clt_fc_local_t *p, const clt_fc_blocks_t *b, const double *rho,
                       const double *r, double *u, double *F) {
  const int d = p->dim;
  clt_fc_blocks_apply(b, r, p->q, u);
  double sum = 0.0;
  for (int a = 0; a < p->contacts; a++) {
    const double *ra = r + d * a, *ua = u + d * a;
    const double ut = d == 3 ? hypot(ua[1], ua[2]) : fabs(ua[1]);
    double x[3], px[3];
    x[0] = ra[0] - rho[a] * (ua[0] + p->mu[a] * ut);
    for (int i = 1; i < d; i++) x[i] = ra[i] - rho[a] * ua[i];
    clt_fc_project_cone(d, p->mu[a], x, px);
    for (int i = 0; i < d; i++) {
      F[d * a + i] = ra[i] - px[i];
      sum += F[d * a + i] * F[d * a + i];
    }
  }
  return 0.5 * sum;
}

/* Generalized Jacobian of F at r (u = W r + q), dense column-major: J[i + m·j]. The μ‖u_T‖
 * term is differentiated only where ‖u_T‖ is clearly nonzero; at a sticking contact (u_T → 0)
 * the element with zero derivative is chosen (0 lies in the subdifferential of ‖·‖ at 0). */
static void build_jacobian(const clt_fc_local_t *p, const clt_fc_blocks_t *b, const double *rho,
                           const double *r, const double *u, double *J) {
  const int d = p->dim, nc = p->contacts, m = d * nc;
  memset(J, 0, (size_t)m * m * sizeof *J);
  for (int a = 0; a < nc; a++) {
    const double *ra = r + d * a, *ua = u + d * a;
    const double mu = p->mu[a];
    const double ut = d == 3 ? hypot(ua[1], ua[2]) : fabs(ua[1]);
    const double un = fabs(ua[0]) + ut;
    const double rn = fabs(ra[0]) + fabs(ra[1]) + (d == 3 ? fabs(ra[2]) : 0.0);
    const int slip = ut > 0.0 && rho[a] * ut > 1e-9 * (rn + rho[a] * un);
    double x[3] = {0.0, 0.0, 0.0}, P[9], PD[9];
    x[0] = ra[0] - rho[a] * (ua[0] + mu * ut);
    for (int i = 1; i < d; i++) x[i] = ra[i] - rho[a] * ua[i];
    projection_jacobian(d, mu, x, P);
    /* PD = ρ P D, D = I + μ e_N [0, u_T/‖u_T‖] */
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) {
        double s = P[i * d + j];
        if (j > 0 && slip) s += P[i * d] * mu * ua[j] / ut;
        PD[i * d + j] = rho[a] * s;
      }
    /* (I − P) on the contact's own columns */
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++)
        J[(size_t)(d * a + i) + (size_t)m * (d * a + j)] += (i == j ? 1.0 : 0.0) - P[i * d + j];
    /* ρ P D W_a,: through the block row */
    for (int k = b->ptr[a]; k < b->ptr[a + 1]; k++) {
      const double *B = b->val + (size_t)k * d * d;
      const int c = b->col[k];
      for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
          double s = 0.0;
          for (int l = 0; l < d; l++) s += PD[i * d + l] * B[l * d + j];
          J[(size_t)(d * a + i) + (size_t)m * (d * c + j)] += s;
        }
    }
  }
}

int clt_fc_newton_polish(const clt_fc_local_t *p, const clt_fc_blocks_t *b, double *r,
                         int max_iterations, double tolerance, double *error_out,
                         int *iterations_out) {
  const int d = p->dim, nc = p->contacts, m = d * nc;
  if (iterations_out) *iterations_out = 0;
  if (m > FC_NEWTON_MAX_UNKNOWNS || m == 0) return 0;
  double *J = calloc((size_t)m * m, sizeof *J);        /* column-major m×m */
  double *A = malloc((size_t)m * m * sizeof *A);
  double *F = malloc((size_t)m * sizeof *F), *Fn = malloc((size_t)m * sizeof *Fn);
  double *u = malloc((size_t)m * sizeof *u), *g = malloc((size_t)m * sizeof *g);
  double *rn = malloc((size_t)m * sizeof *rn), *step = malloc((size_t)m * sizeof *step);
  double *rho = malloc((size_t)nc * sizeof *rho), *Jd = malloc((size_t)m * sizeof *Jd);
  double *r0 = malloc((size_t)m * sizeof *r0);
  double *Af = malloc((size_t)m * m * sizeof *Af);
  int improved = 0;
  if (!Af || !J || !A || !F || !Fn || !u || !g || !rn || !step || !rho || !Jd || !r0) goto done;
  memcpy(r0, r, (size_t)m * sizeof *r0);
  for (int a = 0; a < nc; a++) {
    const double *B = b->val + (size_t)b->diag[a] * d * d;
    double s = 0.0;
    for (int k = 0; k < d * d; k++) s += B[k] * B[k];
    rho[a] = s > 0.0 ? 1.0 / sqrt(s) : 1.0;
  }
  double phi = residual(p, b, rho, r, u, F);
  double start_err = clt_fc_error_from_u(p, r, u, NULL);
  double err = start_err;
  double theta = 1e-2;
  int it = 0;
  double history[4] = {err, err, err, err};
  int restarts = 0, stall_base = 0;
  while (it < max_iterations && !(err <= tolerance)) {
    /* Stalled (three iterations, after the first eight, without halving the error): θ has
     * grown and the steps have turned gradient-like; restarting the damping from a small value
     * recovers Newton steps (BoxesStack1: 1.6e-7 → 2.7e-9 in three iterations). Give up after
     * three restarts: the polish is meant to converge fast, and an iteration costs O(m³). */
    if (it - stall_base >= 8 && err > 0.5 * history[(it - 3) & 3]) {
      if (restarts >= 3) break;
      restarts++;
      theta = 1e-3;
      for (int k = 0; k < 4; k++) history[k] = INFINITY;
      stall_base = it;
    }
    it++;
    build_jacobian(p, b, rho, r, u, J);
    /* g = Jᵀ F */
    for (int j = 0; j < m; j++) {
      double s = 0.0;
      const double *col = J + (size_t)m * j;
      for (int i = 0; i < m; i++) s += col[i] * F[i];
      g[j] = s;
    }
    const double one = 1.0, zero = 0.0;
    /* A = JᵀJ (lower triangle) */
    clt_dsyrk("L", "T", &m, &m, &one, J, &m, &zero, A, &m);
    for (int i = 0; i < m; i++) Jd[i] = A[(size_t)i * m + i];
    const double normF = sqrt(2.0 * phi);
    int accepted = 0;
    for (int attempt = 0; attempt < 8 && !accepted; attempt++) {
      const double lambda = theta * normF;
      /* A keeps JᵀJ's lower triangle; the factor goes to Af with λ added on the diagonal */
      memcpy(Af, A, (size_t)m * m * sizeof *Af);
      for (int i = 0; i < m; i++) Af[(size_t)i * m + i] = Jd[i] + lambda + 1e-14 * (1.0 + Jd[i]);
      int info = 0, nrhs = 1;
      clt_dpotrf("L", &m, Af, &m, &info);
      if (info != 0) {
        theta *= 10.0;
        continue;
      }
      for (int i = 0; i < m; i++) step[i] = -g[i];
      clt_dpotrs("L", &m, &nrhs, Af, &m, step, &m, &info);
      double slope = 0.0; /* gᵀΔ < 0: Δ is a descent direction of ½‖F‖² */
      for (int i = 0; i < m; i++) slope += g[i] * step[i];
      if (!(slope < 0.0)) {
        theta *= 10.0;
        continue;
      }
      /* Armijo backtracking along the LM direction */
      for (double t = 1.0; t >= 0.03 && !accepted; t *= 0.5) {
        for (int i = 0; i < m; i++) rn[i] = r[i] + t * step[i];
        double phin = residual(p, b, rho, rn, u, Fn);
        if (phin <= phi + 1e-4 * t * slope) {
          accepted = 1;
          memcpy(r, rn, (size_t)m * sizeof *r);
          memcpy(F, Fn, (size_t)m * sizeof *F);
          phi = phin;
          if (t == 1.0) theta = fmax(theta * 0.1, 1e-10);
        }
      }
      if (!accepted) theta *= 10.0;
    }
    if (!accepted) {
      /* u was overwritten by the rejected trial: restore it for the error below */
      clt_fc_blocks_apply(b, r, p->q, u);
      break;
    }
    err = clt_fc_error_from_u(p, r, u, NULL);
    history[it & 3] = err;
  }
  clt_fc_blocks_apply(b, r, p->q, u);
  err = clt_fc_error_from_u(p, r, u, NULL);
  improved = err < start_err;
  if (!improved) {
    memcpy(r, r0, (size_t)m * sizeof *r);
    err = start_err;
  }
  if (error_out) *error_out = err;
  if (iterations_out) *iterations_out = it;
done:
  free(J); free(A); free(F); free(Fn); free(u); free(g); free(rn); free(step); free(rho); free(Jd);
  free(r0);
  free(Af);
  return improved;
}
