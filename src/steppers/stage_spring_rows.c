/* Compliant rows of the linearly implicit force elements (SPEC.md §4; 004 (32)–(33)).
 *
 * The linearly implicit Euler step of an element with φ, γ, δ puts
 *     M̂ = M + (h²γ + hδ) ∇φ∇φᵀ,   k̂ = k₁ − γ φ ∇φ
 * into M̂ v⁺ = M v + h k̂. M̂ would couple the element's two bodies, so instead the element gets a
 * bilateral row g = ∇φ with a free impulse c: M v⁺ − g c = M v + h k₁ and
 *     gᵀ v⁺ + b + ε c = 0,   b = γ φ / (hγ + δ),   ε = 1 / (h (hγ + δ)).
 * Eliminating c = −(h²γ + hδ) gᵀv⁺ − hγφ gives back exactly the M̂, k̂ form (the test
 * tests/stepper/test_stiff_rows.c checks it to round-off). The diagonal ε > 0 keeps the rows
 * independent of everything else, so they are not part of the joint rank decision and every solver
 * of SPEC.md §2 applies unchanged (they are free unknowns next to the joint impulses). A pure
 * damper (γ = 0) has b = 0, ε = 1/(hδ); an element with γ = δ = 0 has no row. As γ, δ → ∞ the row
 * becomes the unstabilized joint gᵀv⁺ = 0 (004 Thm 2.6). */
#include <math.h>
#include <string.h>

#include "steppers/stepper.h"

clt_status_t clt_build_spring_rows(clt_world_t *world, clt_step_work_t *w, double h) {
  w->spring_rows = 0;
  int count = 0;
  for (int k = 0; k < world->force_count; k++) {
    const clt_force_rec_t *f = &world->forces[k];
    if (clt_force_is_element(f) && f->treatment == CLT_TREAT_IMPLICIT && (f->stiffness > 0.0 || f->damping > 0.0))
      count++;
  }
  if (count == 0) return CLT_OK;
  int first = w->row_count;
  /* The remember stage files every joint row's impulse under CLT_JOINT_SLOTS·owner + component: room for the
   * elements' owners (joint_count + force index) beyond the joints'. */
  if (!clt_step_work_reserve_rows(w, first + count) ||
      !clt_step_work_reserve_joint_impulses(w, world->joint_count + world->force_count))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (spring rows)");
  int n = first;
  for (int k = 0; k < world->force_count; k++) {
    const clt_force_rec_t *f = &world->forces[k];
    if (!clt_force_is_element(f) || f->treatment != CLT_TREAT_IMPLICIT) continue;
    double gamma = f->stiffness, delta = f->damping;
    if (!(gamma > 0.0 || delta > 0.0)) continue;
    double phi, g[12];
    if (!clt_force_element_gradient(world, f, &phi, g)) continue; /* no direction: no force */
    clt_row_t *r = &w->rows[n];
    r->body_a = f->body_a;
    r->body_b = f->body_b;
    memcpy(r->jac.linear_a, g, 3 * sizeof *g);
    memcpy(r->jac.angular_a, g + 3, 3 * sizeof *g);
    memcpy(r->jac.linear_b, g + 6, 3 * sizeof *g);
    memcpy(r->jac.angular_b, g + 9, 3 * sizeof *g);
    double s = h * gamma + delta; /* > 0 */
    w->row_value[n] = phi;
    w->row_bias[n] = gamma * phi / s;
    w->row_compliance[n] = 1.0 / (h * s);
    w->joint_row_owner[n] = world->joint_count + k;
    w->joint_row_component[n] = 0;
    n++;
  }
  w->spring_rows = n - first;
  w->joint_rows = n;
  w->row_count = n;
  return CLT_OK;
}

void clt_record_spring_targets(clt_world_t *world, clt_step_work_t *w, double h) {
  if (!clt_step_work_grow_doubles(&w->spring_target, &w->spring_target_capacity, world->force_count)) return;
  for (int k = 0; k < world->force_count; k++) w->spring_target[k] = NAN; /* NaN: no target */
  int end = w->joint_rows - w->bounded_rows;
  for (int p = end - w->spring_rows; p < end; p++) {
    int k = w->joint_row_owner[p] - world->joint_count;
    w->spring_target[k] = w->row_value[p] + h * clt_row_velocity(world, &w->rows[p]);
  }
}

/* Implicit elements need the compliant rows, i.e. a pipeline whose solve stage is the step problem of
 * stage_solve_rows.c (clt_stage_solve) under the inertial law. The relaxed scheme's QP and the ReLCP
 * pipeline have no compliance term: they refuse such a world instead of dropping its elements. */
clt_status_t clt_check_spring_support(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  bool rows = false;
  for (int k = 0; k < c->scheme->stage_count; k++)
    if (c->scheme->stages[k].run == clt_stage_solve) rows = true;
  if (rows && world->law == CLT_LAW_INERTIAL) return CLT_OK;
  for (int k = 0; k < world->force_count; k++) {
    const clt_force_rec_t *f = &world->forces[k];
    if (!clt_force_is_element(f) || f->treatment != CLT_TREAT_IMPLICIT) continue;
    return clt_world_fail(world, CLT_ERR_UNSUPPORTED,
                          "step %lld: force #%d%s%s%s is linearly implicit (compliant rows, SPEC.md §4), which the "
                          "'%s' pipeline%s does not support (it has no compliant rows); use treatment explicit",
                          (long long)c->step, k, f->name[0] ? " '" : "", f->name, f->name[0] ? "'" : "",
                          c->scheme->name, world->law != CLT_LAW_INERTIAL ? " of the overdamped law" : "");
  }
  return CLT_OK;
}
