/* Stage "post-stabilize" (SPEC.md §3; Cline–Pai, 001 eq. 15): after the dynamics step of scheme
 * `post`, q̃ = q ⊕ h v⁺ is projected back onto the constraints. At q̃: joint errors g_e = Θ(q̃),
 * active contacts recomputed with their distances g_c = Φ(q̃) and the rows J_e, J_c; then
 *     M dp − J_eᵀ λ_e − J_cᵀ λ_c = 0,   J_e dp + g_e = 0,   g_c + J_c dp ≥ 0 ⊥ λ_c ≥ 0,
 * i.e. the step problem of stage_solve_rows.c with the plain M, no friction and b = (g_e, g_c);
 * q⁺ = q̃ ⊕ dp, dp a twist applied with unit time. Velocities are unchanged. The projection is
 * repeated up to method.post_repeats more times while I(q) > method.post_tolerance (the first one
 * always runs). A projection that fails to solve is reported in the step's solver fields. */
#include <math.h>
#include <string.h>

#include "math/vec.h"
#include "steppers/stepper.h"

static double infeasibility(clt_world_t *world) {
  double j = clt_world_joint_error(world), p = clt_world_penetration(world);
  return j > p ? j : p;
}

/* q ⊕ dp for every dynamic body (dp: 6 per body, the layout of rows.h). */
static void displace(clt_world_t *world, const double *dp) {
  for (int i = 0; i < world->body_count; i++) {
    if (world->bodies[i].type != CLT_BODY_DYNAMIC) continue;
    clt_body_state_t *s = &world->states[i];
    const double *d = dp + 6 * (size_t)i;
    if (world->dimension == 2) {
      s->position[0] += d[0];
      s->position[1] += d[1];
      s->angle += d[3];
    } else {
      for (int k = 0; k < 3; k++) s->position[k] += d[k];
      clt_q_integrate(s->orientation, s->orientation, d + 3, 1.0);
    }
  }
}

clt_status_t clt_stage_post_project(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  clt_problem_kind_t kind = {false, false};
  if (!clt_step_work_reserve_dp(w, world->body_count))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "post-stabilize: out of memory");
  for (int pass = 0; pass <= world->method.post_repeats; pass++) {
    if (pass > 0 && infeasibility(world) <= world->method.post_tolerance) break;
    clt_status_t st = clt_compute_inverse_mass(world, w, c->h, true);
    if (st == CLT_OK) st = clt_build_joint_rows(world, w);
    if (st == CLT_OK) st = clt_find_contacts(world, w, world->method.active_set_eps);
    if (st == CLT_OK) st = clt_build_contact_rows(world, w, false);
    if (st != CLT_OK) return st;
    for (int r = 0; r < w->row_count; r++) w->row_bias[r] = w->row_value[r]; /* b = g */
    clt_diagnostics_t pd = *c->diagnostics;
    st = clt_solve_rows(world, w, kind, &pd);
    if (st != CLT_OK) return st;
    if (pd.solver_status != CLT_SOLVE_SOLVED && pd.solver_status != CLT_SOLVE_NONE) {
      c->diagnostics->solver_status = pd.solver_status;
      c->diagnostics->residual = pd.residual;
    }
    clt_apply_impulses(world, w, kind, w->dp);
    displace(world, w->dp);
  }
  return CLT_OK;
}
