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

/* One Gauss–Newton projection: rows at the current q (joints, then `extra` equalities if any, then
 * the active contacts), b = g, the plain-M problem without friction, q ⊕ dp. A projection that
 * does not solve is reported in the step's solver fields. */
static clt_status_t project_once(clt_step_context_t *c, clt_status_t (*extra)(clt_world_t *, clt_step_work_t *)) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  clt_problem_kind_t kind = {false, false};
  clt_status_t st = clt_contact_report_keep(world, w); /* the dynamics step's contacts and z are overwritten */
  if (st == CLT_OK) st = clt_compute_inverse_mass(world, w, c->h, true);
  if (st == CLT_OK) st = clt_build_joint_rows(world, w);
  if (st == CLT_OK && extra) st = extra(world, w);
  if (st == CLT_OK) st = clt_build_actuation_rows(world, w, NULL, c->h, false); /* limits: g + ν dp ≥ 0 */
  if (st == CLT_OK) st = clt_find_contacts(world, w, world->method.active_set_eps);
  if (st == CLT_OK) st = clt_build_contact_rows(world, w, false, 0.0);
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
  return CLT_OK;
}

clt_status_t clt_stage_post_project(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  if (!clt_step_work_reserve_dp(w, world->body_count))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "post-stabilize: out of memory");
  for (int pass = 0; pass <= world->method.post_repeats; pass++) {
    if (pass > 0 && infeasibility(world) <= world->method.post_tolerance) break;
    clt_status_t st = project_once(c, NULL);
    if (st != CLT_OK) return st;
  }
  return CLT_OK;
}

/* Largest |φ(q) − target| over the implicit springs with a target this step (0 with none). */
static double spring_error(clt_world_t *world, const clt_step_work_t *w) {
  double e = 0.0;
  for (int k = 0; k < world->force_count && k < w->spring_target_capacity; k++) {
    const clt_force_rec_t *f = &world->forces[k];
    if (!(f->stiffness > 0.0) || !isfinite(w->spring_target[k])) continue;
    double phi, g[12];
    clt_force_element_gradient(world, f, &phi, g);
    e = fmax(e, fabs(phi - w->spring_target[k]));
  }
  return e;
}

/* Appends the equality rows ∇φ dp + (φ(q̃) − target) = 0 of the implicit springs (γ > 0) after
 * the joint rows, then drops dependent rows among all of them. */
static clt_status_t append_spring_equalities(clt_world_t *world, clt_step_work_t *w) {
  int n = w->joint_rows;
  int extra = 0;
  for (int k = 0; k < world->force_count && k < w->spring_target_capacity; k++)
    if (world->forces[k].stiffness > 0.0 && isfinite(w->spring_target[k])) extra++;
  if (extra == 0) return CLT_OK;
  if (!clt_step_work_reserve_rows(w, n + extra))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "spring projection: out of memory");
  for (int k = 0; k < world->force_count && k < w->spring_target_capacity; k++) {
    const clt_force_rec_t *f = &world->forces[k];
    if (!(f->stiffness > 0.0) || !isfinite(w->spring_target[k])) continue;
    double phi, g[12];
    if (!clt_force_element_gradient(world, f, &phi, g)) continue;
    clt_row_t *r = &w->rows[n];
    r->body_a = f->body_a;
    r->body_b = f->body_b;
    memcpy(r->jac.linear_a, g, 3 * sizeof *g);
    memcpy(r->jac.angular_a, g + 3, 3 * sizeof *g);
    memcpy(r->jac.linear_b, g + 6, 3 * sizeof *g);
    memcpy(r->jac.angular_b, g + 9, 3 * sizeof *g);
    w->row_value[n] = phi - w->spring_target[k];
    w->row_bias[n] = 0.0;
    w->row_compliance[n] = 0.0;
    w->joint_row_owner[n] = world->joint_count + k;
    w->joint_row_component[n] = 0;
    n++;
  }
  return clt_drop_dependent_rows(world, w, n);
}

/* Stage "spring projection" (SPEC.md §4 "Nonlinear projection", 004 (46)), run after "integrate"
 * when method.spring_projection > 0: Gauss–Newton steps of the projection of §3 (plain M
 * weighting, no friction, velocities unchanged) onto the joints Θ = 0 and the active contacts
 * Φ ≥ 0, with every implicit spring's φ held at its linearized post-step value φ(q) + h ∇φ(q)ᵀv⁺
 * (recorded by the solve stage). Holding those values keeps the energy bound of 004 Thm 2.4 for the
 * projected state (004 (47)); pure dampers (γ = 0) are not held (004 §2.3.4). Repeats up to
 * method.spring_projection times while the largest of the joint error, penetration and spring
 * error exceeds method.post_tolerance. A pass that does not decrease that error is undone and ends
 * the projection: near a singular configuration (a spring between the centres of two bars joined
 * end to end that lie in line: its row is then almost dependent on the joint's) a Gauss–Newton
 * pass can take a huge step (joint error 4e-6 → 0.16 → 3.8 in successive steps), which the next
 * step's stabilization turns into kinetic energy (KE 0.3 → 3.8e4 J). */
clt_status_t clt_stage_spring_project(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  int passes = world->method.spring_projection;
  if (passes <= 0) return CLT_OK;
  /* dp (6 per body) and, after it, the positions before a pass (8 per body) */
  if (!clt_step_work_reserve_dp(w, 3 * world->body_count))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "spring projection: out of memory");
  double error = fmax(infeasibility(world), spring_error(world, w));
  for (int pass = 0; pass < passes && error > world->method.post_tolerance; pass++) {
    double *saved = w->dp + 6 * (size_t)world->body_count;
    for (int i = 0; i < world->body_count; i++) {
      const clt_body_state_t *s = &world->states[i];
      double *b = saved + 8 * (size_t)i;
      memcpy(b, s->position, 3 * sizeof *b);
      b[3] = s->angle;
      memcpy(b + 4, s->orientation, 4 * sizeof *b);
    }
    clt_status_t st = project_once(c, append_spring_equalities);
    if (st != CLT_OK) return st;
    double after = fmax(infeasibility(world), spring_error(world, w));
    if (!(after < error)) {
      saved = w->dp + 6 * (size_t)world->body_count; /* nothing in the pass reserves dp; re-read anyway */
      for (int i = 0; i < world->body_count; i++) {
        clt_body_state_t *s = &world->states[i];
        const double *b = saved + 8 * (size_t)i;
        memcpy(s->position, b, 3 * sizeof *b);
        s->angle = b[3];
        memcpy(s->orientation, b + 4, 4 * sizeof *b);
      }
      break;
    }
    error = after;
  }
  return CLT_OK;
}
