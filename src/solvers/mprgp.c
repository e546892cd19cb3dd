/* MPRGP: modified proportioning with reduced gradient projections (Dostál and Schöberl, Comput.
 * Optim. Appl. 30 (2005) 23–43; Dostál, "Optimal Quadratic Programming Algorithms", Springer 2009,
 * §8) for the symmetric PSD LCP as the bound-constrained QP
 *     min f(x) = ½ xᵀ M x + qᵀ x   s.t.  x_i ≥ 0 (i ≥ free_count),  g = M x + q.
 * It is conjugate gradients on the face of the current iterate (the variables at their bound
 * fixed), with two ways of leaving the face: an expansion step when the CG step would leave the
 * feasible set (the longest feasible CG step, then a projected step along the free gradient) and a
 * proportioning step along the chopped gradient when the bound variables that want to leave their
 * bound dominate the free gradient (‖β‖² > Γ² φ̃ᵀφ). On a face the iteration is CG, so where APGD /
 * BBPGD need O(√κ) steps with a poor constant, it needs about those of CG on the final active
 * face. One operator product per CG or proportioning step, two per expansion step.
 *
 * Departures from the textbook algorithm: the expansion's projected step is followed by the exact
 * minimization of f along it (no product: f is quadratic and the product of the direction is
 * needed anyway for the gradient update), so f decreases at every step whatever the estimate of
 * ‖M‖ behind the step length ᾱ = 1 / L (L: the largest Rayleigh quotient seen so far, which only
 * grows); a CG direction with pᵀMp ≤ 0 (M singular: ReLCP's repeated rows) is followed to the
 * bound, and reported as an unbounded QP when nothing bounds it. The gradient is updated
 * recursively and recomputed every MPRGP_REFRESH products and before a convergence claim.
 * iterations = operator products, as for APGD and BBPGD. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "solvers/lcp_internal.h"

/* Γ of the proportioning test */
#define MPRGP_GAMMA 1.0
/* products between exact gradient refreshes (the recursive update drifts) */
#define MPRGP_REFRESH 50

typedef struct mprgp_t {
  const clt_lcp_t *p;
  const clt_solver_options_t *o;
  int n, nf;
  double *x, *g, *dir, *adir, *phi, *best;
  int products;
  double lip; /* largest Rayleigh quotient of M seen */
} mprgp_t;

static void product(mprgp_t *s, const double *v, double *y) {
  lcp_apply(s->p, v, NULL, y, s->o->threads);
  s->products++;
}

static void refresh_gradient(mprgp_t *s) {
  lcp_apply(s->p, s->x, s->p->q, s->g, s->o->threads);
  s->products++;
}

/* free gradient φ (g on the free set: free variables and x_i > 0, zero at a bound) */
static void free_gradient(const mprgp_t *s, double *phi) {
  for (int i = 0; i < s->n; i++) phi[i] = i < s->nf || s->x[i] > 0.0 ? s->g[i] : 0.0;
}

/* ‖β‖² (β: the chopped gradient, min(g_i, 0) at a bound) and φ̃ᵀφ (φ̃: the reduced free gradient
 * min(x_i / ᾱ, φ_i) for bounded free variables) */
static void split_norms(const mprgp_t *s, double abar, double *beta2, double *phit_phi) {
  double b2 = 0.0, pp = 0.0;
  for (int i = 0; i < s->n; i++) {
    double gi = s->g[i];
    if (i < s->nf) {
      pp += gi * gi;
    } else if (s->x[i] > 0.0) {
      double t = s->x[i] / abar;
      pp += (gi < t ? gi : t) * gi;
    } else if (gi < 0.0) {
      b2 += gi * gi;
    }
  }
  *beta2 = b2;
  *phit_phi = pp;
}

static void note_rayleigh(mprgp_t *s, double dad, double dd) {
  if (dd > 0.0 && dad > 0.0 && isfinite(dad / dd) && dad / dd > s->lip) s->lip = dad / dd;
}

clt_status_t lcp_solve_mprgp(const clt_lcp_t *p, const clt_solver_options_t *o, double *z, double *w,
                             clt_solve_result_t *r) {
  if (!lcp_qp_applies(p, "mprgp", r)) return CLT_OK;
  if (lcp_has_bounds(p)) {
    r->status = CLT_SOLVE_ERROR;
    lcp_set_message(r, "mprgp does not apply: it handles the bounds [0, inf) only (bounded variables: lemke, bgs, "
                       "apgd or bbpgd)");
    return CLT_OK;
  }
  int n = p->n;
  size_t bytes = sizeof(double) * (size_t)n;
  clt_scratch_t scratch;
  clt_arena_t *a = clt_scratch_begin(&scratch, o->arena);
  mprgp_t s = {p, o, n, p->free_count, clt_arena_alloc(a, bytes), clt_arena_alloc(a, bytes),
               clt_arena_alloc(a, bytes), clt_arena_alloc(a, bytes), clt_arena_alloc(a, bytes),
               clt_arena_alloc(a, bytes), 0, 0.0};
  double *wv = w ? w : clt_arena_alloc(a, bytes);
  if (!s.x || !s.g || !s.dir || !s.adir || !s.phi || !s.best || !wv) {
    clt_scratch_end(&scratch);
    lcp_set_message(r, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  double *x = s.x, *g = s.g, *dir = s.dir, *adir = s.adir, *phi = s.phi;
  const int nf = s.nf;
  const double scale = 1.0 + lcp_norm_inf(n, p->q);
  s.lip = lcp_qp_lipschitz_guess(p, phi, adir, o->threads); /* scratch: both are set before use */
  if (o->warm_start)
    memcpy(x, z, bytes);
  else
    memset(x, 0, bytes);
  for (int i = nf; i < n; i++)
    if (!(x[i] > 0.0)) x[i] = 0.0; /* also NaN */
  refresh_gradient(&s);
  s.products = 0; /* iterations: the products of the iteration (a warm start at the answer takes none) */
  int since_refresh = 0;
  double best_res = INFINITY;
  bool new_direction = true; /* dir must be restarted from φ */
  r->status = CLT_SOLVE_MAX_ITERATIONS;
  for (;;) {
    double res = lcp_residual_abs(n, nf, x, g);
    if (!isfinite(res)) {
      r->status = CLT_SOLVE_ERROR;
      lcp_set_message(r, "mprgp diverged (non-finite iterate) after %d products", s.products);
      break;
    }
    if (res < best_res) {
      best_res = res;
      memcpy(s.best, x, bytes);
    }
    if (res / scale <= o->tolerance) {
      if (since_refresh > 0) { /* confirm with an exact gradient */
        refresh_gradient(&s);
        since_refresh = 0;
        res = lcp_residual_abs(n, nf, x, g);
      }
      if (res / scale <= o->tolerance) {
        r->status = CLT_SOLVE_SOLVED;
        break;
      }
      new_direction = true;
    }
    if (s.products >= o->max_iterations) break;
    if (since_refresh >= MPRGP_REFRESH) {
      /* the CG direction is kept: restarting it here would make this restarted CG */
      refresh_gradient(&s);
      since_refresh = 0;
      continue;
    }
    double abar = 1.0 / s.lip;
    double beta2, phit_phi;
    split_norms(&s, abar, &beta2, &phit_phi);
    if (beta2 > MPRGP_GAMMA * MPRGP_GAMMA * phit_phi) {
      /* proportioning: along the chopped gradient β (only bound variables, which it raises) */
      for (int i = 0; i < n; i++) dir[i] = i >= nf && !(x[i] > 0.0) && g[i] < 0.0 ? g[i] : 0.0;
      product(&s, dir, adir);
      since_refresh++;
      double gd = lcp_dot(g, dir, n), dad = lcp_dot(dir, adir, n);
      note_rayleigh(&s, dad, beta2);
      /* f(x − a β) decreases for a > 0 (gᵀβ = ‖β‖² > 0); a PSD M with βᵀMβ = 0 makes it unbounded */
      if (!(dad > 0.0)) {
        r->status = CLT_SOLVE_ERROR;
        lcp_set_message(r, "mprgp: the QP is unbounded below (no LCP solution) after %d products", s.products);
        break;
      }
      double a = gd / dad;
      for (int i = 0; i < n; i++) {
        x[i] -= a * dir[i];
        g[i] -= a * adir[i];
      }
      new_direction = true;
      continue;
    }
    if (new_direction) {
      free_gradient(&s, dir);
      new_direction = false;
    }
    /* CG step along −dir on the face: the step a_cg = gᵀd / dᵀMd, capped by feasibility at a_f */
    product(&s, dir, adir);
    since_refresh++;
    double gd = lcp_dot(g, dir, n), dad = lcp_dot(dir, adir, n);
    note_rayleigh(&s, dad, lcp_dot(dir, dir, n));
    if (!(gd > 0.0)) { /* not a descent direction (round-off): restart from φ */
      new_direction = true;
      free_gradient(&s, phi);
      if (!(lcp_dot(phi, phi, n) > 0.0)) {
        /* φ = 0 and β small: stationary to round-off, yet the residual test failed */
        refresh_gradient(&s);
        since_refresh = 0;
        if (lcp_residual_abs(n, nf, x, g) / scale > o->tolerance) {
          r->status = CLT_SOLVE_NOT_CONVERGED; /* a finite iterate short of the tolerance */
          lcp_set_message(r, "mprgp stalled (zero free gradient) after %d products", s.products);
        } else {
          r->status = CLT_SOLVE_SOLVED;
        }
        break;
      }
      continue;
    }
    double a_f = INFINITY;
    for (int i = nf; i < n; i++)
      if (dir[i] > 0.0) {
        double t = x[i] / dir[i];
        if (t < a_f) a_f = t;
      }
    double a_cg = dad > 0.0 ? gd / dad : INFINITY;
    if (!isfinite(a_cg) && !isfinite(a_f)) {
      r->status = CLT_SOLVE_ERROR;
      lcp_set_message(r, "mprgp: the QP is unbounded below (no LCP solution) after %d products", s.products);
      break;
    }
    if (a_cg <= a_f) {
      for (int i = 0; i < n; i++) {
        x[i] -= a_cg * dir[i];
        g[i] -= a_cg * adir[i];
      }
      /* conjugate the new free gradient against dir */
      free_gradient(&s, phi);
      double gamma = lcp_dot(phi, adir, n) / dad;
      for (int i = 0; i < n; i++) dir[i] = phi[i] - gamma * dir[i];
      continue;
    }
    /* expansion: the longest feasible CG step, then a projected step along the free gradient,
     * minimized exactly along the projected direction */
    for (int i = 0; i < n; i++) {
      x[i] -= a_f * dir[i];
      g[i] -= a_f * adir[i];
    }
    for (int i = nf; i < n; i++)
      if (dir[i] > 0.0 && x[i] < 0.0) x[i] = 0.0; /* round-off at the blocking bound */
    free_gradient(&s, phi);
    for (int i = 0; i < n; i++) {
      double t = x[i] - abar * phi[i];
      if (i >= nf && t < 0.0) t = 0.0;
      dir[i] = t - x[i]; /* a descent direction: dᵀg < 0 unless φ = 0 */
    }
    product(&s, dir, adir);
    since_refresh++;
    double gd2 = lcp_dot(g, dir, n), dad2 = lcp_dot(dir, adir, n);
    note_rayleigh(&s, dad2, lcp_dot(dir, dir, n));
    if (gd2 < 0.0) {
      double lam = dad2 > 0.0 ? -gd2 / dad2 : 1.0;
      if (lam > 1.0) lam = 1.0;
      for (int i = 0; i < n; i++) {
        x[i] += lam * dir[i];
        g[i] += lam * adir[i];
      }
      for (int i = nf; i < n; i++)
        if (x[i] < 0.0) x[i] = 0.0;
    }
    new_direction = true;
  }
  if (r->status != CLT_SOLVE_SOLVED) memcpy(x, s.best, bytes);
  memcpy(z, x, bytes);
  lcp_finish_projected(p, NULL, o, z, p->q, wv, s.products, scale, "mprgp", r);
  clt_scratch_end(&scratch);
  return CLT_OK;
}
