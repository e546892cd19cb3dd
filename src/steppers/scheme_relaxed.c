/* Scheme `relaxed` (SPEC.md §1 table, §2.3; 003 convex relaxation, 000 §4 case 2): Υ = γΘ/h,
 * Δ = γΦ/h and s = 1 — the friction-cone generators n + μ d replace the (β, λ) complementarity,
 * so the step is one convex QP, solved through its dual by the coloured cone block Gauss–Seidel
 * (relaxed_bgs.c; method.solver bgs, the default) or APGD / BBPGD (stage_solve_relaxed.c), all
 * matrix-free. Optionally the exact circular Coulomb cone (method.friction_cone). Its contact
 * stage computes Δ (restitution as in every scheme) but builds no friction-direction rows: the
 * solve stage builds the rows it uses. Collide to solve run as one stage, "solves", which repeats
 * them when the solution leaves the motions the active set was built for (stage_solve_relaxed.c,
 * clt_stage_relaxed_solves). */
#include "steppers/relaxed.h"

static double bias_relaxed(const clt_method_t *method, double value, double h) {
  return method->gamma * value / h;
}

static const clt_stage_t stages[] = {
    {"forces", clt_stage_forces, CLT_CLOCK_ASSEMBLE},
    {"inverse mass", clt_stage_relaxed_inverse_mass, CLT_CLOCK_ASSEMBLE},
    {"solves", clt_stage_relaxed_solves, CLT_CLOCK_OTHER}, /* collide … solve, timed inside */
    {"remember", clt_stage_remember, CLT_CLOCK_OTHER},
    {"backup", clt_stage_backup, CLT_CLOCK_OTHER},
    {"integrate", clt_stage_integrate, CLT_CLOCK_OTHER},
    {"commit", clt_stage_commit, CLT_CLOCK_OTHER},
    {"diagnose", clt_stage_diagnose, CLT_CLOCK_OTHER},
    {"diverge", clt_stage_diverge, CLT_CLOCK_OTHER},
};

/* (the positions move only in stage "integrate": late_backup) */
const clt_scheme_ops_t clt_scheme_relaxed = {"relaxed", bias_relaxed, stages, CLT_STAGE_COUNT(stages), true};

/* Scheme `anitescu-hart` on the circular cone (method.friction_cone circular): the same Υ and Δ
 * (γΘ/h, γΦ/h) with s = 0 — Coulomb's law proper, which the relaxation's s = 1 replaces by a cone
 * that lifts a sliding contact at μ‖v_T‖. The polyhedral form is the (c_n, β, λ) LCP of the row
 * stages (scheme_anitescu_hart.c); the circular one has no LCP form, so its step runs these stages:
 * the coloured block Gauss–Seidel solves each contact's Coulomb problem exactly (relaxed_bgs.c,
 * cone_t.coulomb), or APGD / BBPGD solve a fixed point of convex cone QPs on the De Saxcé shift
 * (stage_solve_relaxed.c, coulomb_fixed_point; the default method, docs/stepping.md). */
const clt_scheme_ops_t clt_scheme_coulomb_circular = {"anitescu-hart", bias_relaxed, stages, CLT_STAGE_COUNT(stages),
                                                      true};
