/* clatter — exact-cone nonsmooth Gauss–Seidel (NSGS) for the local frictional contact problem
 * FC(W, q, μ) of data README §2.2 (SPEC.md §2.2's block Gauss–Seidel with the circular Coulomb
 * cone instead of the polyhedral one).
 *
 * A sweep visits the contacts in order; contact a sees q̃_a = q_a + Σ_{b≠a} W_ab r_b with the
 * latest r_b (its block row of the block-CSR W), and its one-contact problem is solved exactly
 * (fc_local.c). The natural-map error (README §2.2) is computed from a full product u = W r + q
 * every few sweeps; the solve stops when it is ≤ the tolerance, and only then reports SOLVED.
 *
 * Stagnation control. Plain NSGS stalls on some of the data files (Siconos' too: OneObject,
 * BoxesStack1, spheres-in-a-box): with redundant contacts (W rank-deficient: BoxesStack1 has rank
 * 78 of 156) it cycles. When the error has not halved over a window of sweeps, the solver
 *  1. polishes the current strategy's best iterate with a semismooth Levenberg–Marquardt Newton
 *     (fc_newton.c; dense, so only for ≤ FC_NEWTON_MAX_UNKNOWNS unknowns), adopted only when it
 *     solves or gains a factor 100 — OneObject is solved this way at sweep 196;
 *  2. switches to the next sweep strategy (table `phases`), restarted from the starting point.
 * The best iterate seen is returned. Everything is deterministic (fixed orders, no threads). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/fc_internal.h"

static void set_message(clt_solve_result_t *result, const char *text) {
  if (result) snprintf(result->message, sizeof result->message, "%s", text);
}

#define FC_STAGNATION_WINDOW 100 /* sweeps; grows to a quarter of the current phase's length */
#define FC_NEWTON_ITERATIONS 30

/* Strategies tried in turn, each restarted from the starting point: forward sweeps; alternating
 * forward/backward sweeps (faster on the long force chains of granular media: the 7002-contact
 * flow converges only this way); then both under-relaxed (ω/2), which damps the cycles NSGS
 * falls into on redundant contacts (BoxesStack1 is then finished by the Newton polish). The
 * first is left at its first stagnation, later ones only past a share of the sweep budget (see
 * the loop). The last runs until the iteration limit. */
static const struct {
  int alternating;
  double omega_scale;
} phases[] = {{0, 1.0}, {1, 1.0}, {0, 0.5}, {1, 0.5}};
#define FC_PHASES ((int)(sizeof phases / sizeof phases[0]))

/* Sweep-count schedule of the full error evaluation: every sweep at first (small problems finish
 * in a few), then every 4th — one product costs about as much as a sweep. */
static int error_due(int sweep) { return sweep <= 8 || sweep % 4 == 0; }

/* One Gauss–Seidel sweep over the contacts in order, each contact's problem solved exactly. */
static void nsgs_sweep(const clt_fc_local_t *p, const clt_fc_blocks_t *blocks,
                       const clt_fc_contact_t *contacts, double omega, double *r, int backward) {
  const int d = p->dim, nc = p->contacts;
  for (int aa = 0; aa < nc; aa++) {
    const int a = backward ? nc - 1 - aa : aa;
    double qt[3], *ra = r + d * a;
    qt[0] = p->q[d * a];
    qt[1] = p->q[d * a + 1];
    qt[2] = d == 3 ? p->q[d * a + 2] : 0.0;
    const int kd = blocks->diag[a];
    if (d == 3) {
      for (int k = blocks->ptr[a]; k < blocks->ptr[a + 1]; k++) {
        if (k == kd) continue;
        const double *B = blocks->val + 9 * (size_t)k, *x = r + 3 * blocks->col[k];
        qt[0] += B[0] * x[0] + B[1] * x[1] + B[2] * x[2];
        qt[1] += B[3] * x[0] + B[4] * x[1] + B[5] * x[2];
        qt[2] += B[6] * x[0] + B[7] * x[1] + B[8] * x[2];
      }
    } else {
      for (int k = blocks->ptr[a]; k < blocks->ptr[a + 1]; k++) {
        if (k == kd) continue;
        const double *B = blocks->val + 4 * (size_t)k, *x = r + 2 * blocks->col[k];
        qt[0] += B[0] * x[0] + B[1] * x[1];
        qt[1] += B[2] * x[0] + B[3] * x[1];
      }
    }
    if (omega == 1.0) {
      clt_fc_contact_solve(d, &contacts[a], qt, ra);
    } else {
      double old[3] = {ra[0], ra[1], d == 3 ? ra[2] : 0.0};
      clt_fc_contact_solve(d, &contacts[a], qt, ra);
      for (int i = 0; i < d; i++) ra[i] = omega * ra[i] + (1.0 - omega) * old[i];
    }
  }
}

clt_status_t clt_fc_local_solve(const clt_fc_local_t *p, const clt_solver_options_t *options,
                                double *r, double *u, clt_solve_result_t *result) {
  clt_solve_result_t local_result;
  if (!result) result = &local_result;
  memset(result, 0, sizeof *result);
  result->status = CLT_SOLVE_ERROR;
  clt_solver_options_t defaults = clt_default_solver_options();
  if (!options) options = &defaults;
  if (!p || !r || (p->dim != 2 && p->dim != 3) || p->contacts < 0 || !p->q || !p->mu ||
      (p->contacts > 0 && !clt_matrix_usable(&p->W, p->dim * p->contacts, p->dim * p->contacts))) {
    set_message(result, "invalid frictional contact problem");
    return CLT_ERR_INVALID_ARGUMENT;
  }
  const int d = p->dim, nc = p->contacts, m = d * nc;
  for (int a = 0; a < nc; a++) {
    if (!(p->mu[a] >= 0.0) || !isfinite(p->mu[a])) {
      set_message(result, "friction coefficient negative or not finite");
      return CLT_ERR_INVALID_ARGUMENT;
    }
  }
  if (nc == 0) {
    result->status = CLT_SOLVE_SOLVED;
    return CLT_OK;
  }
  clt_fc_blocks_t blocks;
  clt_status_t st = clt_fc_blocks_build(&p->W, d, nc, &blocks);
  if (st != CLT_OK) {
    set_message(result, st == CLT_ERR_OUT_OF_MEMORY ? "out of memory" : "W has the wrong size");
    return st;
  }
  clt_fc_contact_t *contacts = malloc((size_t)nc * sizeof *contacts);
  double *work = malloc(5 * (size_t)m * sizeof *work); /* one block: u, best, trial, start, phase */
  if (!contacts || !work) {
    free(contacts);
    free(work);
    clt_fc_blocks_free(&blocks);
    set_message(result, "out of memory");
    return CLT_ERR_OUT_OF_MEMORY;
  }
  double *work_u = work, *best_r = work + m, *trial_r = work + 2 * (size_t)m;
  double *start_r = work + 3 * (size_t)m, *phase_r = work + 4 * (size_t)m;
  for (int a = 0; a < nc; a++)
    clt_fc_contact_prepare(d, blocks.val + (size_t)blocks.diag[a] * d * d, p->mu[a], &contacts[a]);
  if (!options->warm_start) memset(r, 0, (size_t)m * sizeof *r);
  for (int k = 0; k < m; k++) {
    if (!isfinite(r[k])) r[k] = 0.0;
  }
  const double omega =
      options->relaxation > 0.0 && options->relaxation < 2.0 ? options->relaxation : 1.0;
  const double tol = options->tolerance > 0.0 ? options->tolerance : 1e-10;
  const int max_sweeps = options->max_iterations > 0 ? options->max_iterations : 100000;

  double err = INFINITY, abs_err = INFINITY;
  const double norm_q = clt_fc_norm_q(p);
  int sweep = 0;
  /* the starting point may already be a solution (r = 0 is, when every q_N ≥ 0: the 667-contact
   * granular flow); at r = 0, u = q needs no product */
  if (options->warm_start) clt_fc_blocks_apply(&blocks, r, p->q, work_u);
  else memcpy(work_u, p->q, (size_t)m * sizeof *work_u);
  err = clt_fc_error_scaled(p, r, work_u, norm_q, &abs_err);
  /* stagnation control: see the file comment */
  double best_err = err, ref_err = err, phase_best = err;
  int ref_sweep = 0, phase = 0, phase_start = 0, phase_newton_tries = 0;
  memcpy(best_r, r, (size_t)m * sizeof *r);
  memcpy(phase_r, r, (size_t)m * sizeof *r);
  memcpy(start_r, r, (size_t)m * sizeof *r);
  while (!(err <= tol) && sweep < max_sweeps) {
    sweep++;
    nsgs_sweep(p, &blocks, contacts, omega * phases[phase].omega_scale, r,
               phases[phase].alternating ? (sweep & 1) : 0);
    if (!(error_due(sweep) || sweep == max_sweeps)) continue;
    clt_fc_blocks_apply(&blocks, r, p->q, work_u);
    err = clt_fc_error_scaled(p, r, work_u, norm_q, &abs_err);
    if (!isfinite(err)) break;
    if (err < best_err) {
      best_err = err;
      memcpy(best_r, r, (size_t)m * sizeof *r);
    }
    if (err < phase_best) {
      phase_best = err;
      memcpy(phase_r, r, (size_t)m * sizeof *r);
    }
    const int window = FC_STAGNATION_WINDOW > (sweep - phase_start) / 4
                           ? FC_STAGNATION_WINDOW : (sweep - phase_start) / 4;
    if (err <= 0.5 * ref_err) {
      ref_err = err;
      ref_sweep = sweep;
      continue;
    }
    if (sweep - ref_sweep < window || err <= tol) continue;
    /* stagnation (error not halved over the window): polish this phase's best iterate with the
     * semismooth Newton (small problems only: it is dense; twice per phase at most) */
    if (m <= FC_NEWTON_MAX_UNKNOWNS && phase_newton_tries < 2) {
      double polished_err;
      int its = 0;
      phase_newton_tries++;
      memcpy(trial_r, phase_r, (size_t)m * sizeof *r);
      clt_fc_newton_polish(p, &blocks, trial_r, FC_NEWTON_ITERATIONS, tol, &polished_err, &its);
      /* adopt the polished point only when it solves or is far better: a mere improvement
       * can put NSGS on a slower path (seen on the Capsules files) */
      if (polished_err <= tol || polished_err < 0.01 * phase_best) {
        memcpy(r, trial_r, (size_t)m * sizeof *r);
        clt_fc_blocks_apply(&blocks, r, p->q, work_u);
        err = clt_fc_error_scaled(p, r, work_u, norm_q, &abs_err);
        phase_best = err;
        memcpy(phase_r, r, (size_t)m * sizeof *r);
        if (err < best_err) {
          best_err = err;
          memcpy(best_r, r, (size_t)m * sizeof *r);
        }
        if (err <= tol) break;
      }
    }
    /* the first strategy is left at its first stagnation; a later one k only once the sweeps
     * reach (1 − 2^−k)·max: NSGS often plateaus for hundreds of sweeps and then drops again
     * (Capsules, the 7002-contact flow), so the sweep budget is shared out, not the patience */
    if (phase + 1 < FC_PHASES &&
        (phase == 0 || (double)sweep >= (1.0 - ldexp(1.0, -phase)) * max_sweeps)) {
      /* next strategy, restarted from the starting point: continuing from the stalled iterate
       * keeps NSGS on its slow path (Capsules, the 7002-contact granular flow) */
      phase++;
      phase_newton_tries = 0;
      phase_start = sweep;
      memcpy(r, start_r, (size_t)m * sizeof *r);
      clt_fc_blocks_apply(&blocks, r, p->q, work_u);
      err = clt_fc_error_scaled(p, r, work_u, norm_q, &abs_err);
      phase_best = err;
      memcpy(phase_r, r, (size_t)m * sizeof *r);
    }
    ref_err = err;
    ref_sweep = sweep;
  }
  if (!(err <= best_err)) { /* return the best iterate seen (also when err is NaN) */
    memcpy(r, best_r, (size_t)m * sizeof *r);
    clt_fc_blocks_apply(&blocks, r, p->q, work_u);
    err = clt_fc_error_scaled(p, r, work_u, norm_q, &abs_err);
  }
  result->iterations = sweep;
  result->residual = err;
  result->residual_abs = abs_err;
  if (err <= tol) {
    result->status = CLT_SOLVE_SOLVED;
  } else if (!isfinite(err)) {
    result->status = CLT_SOLVE_ERROR;
    set_message(result, "non-finite iterate (W not positive on the cone?)");
  } else {
    result->status = CLT_SOLVE_MAX_ITERATIONS;
    snprintf(result->message, sizeof result->message,
             "natural-map error %.3g > tolerance %.3g after %d sweeps", err, tol, sweep);
  }
  if (u) memcpy(u, work_u, (size_t)m * sizeof *u);
  free(contacts);
  free(work);
  clt_fc_blocks_free(&blocks);
  return CLT_OK;
}
