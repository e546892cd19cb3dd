/* Scheme `relaxed` (SPEC.md §1 table, §2.3; 003 convex relaxation, 000 §4 case 2): Υ = γΘ/h,
 * Δ = γΦ/h and s = 1 — the friction-cone generators n + μ d replace the (β, λ) complementarity,
 * so the step is one convex QP, solved through its dual by the coloured cone block Gauss–Seidel
 * (relaxed_bgs.c; method.solver bgs, the default) or APGD / BBPGD (stage_solve_relaxed.c), all
 * matrix-free. Optionally the exact circular Coulomb cone (method.friction_cone). Its contact
 * stage computes Δ (restitution as in every scheme) but builds no friction-direction rows: the
 * solve stage builds the rows it uses. The stages from "active set" to "active set test" are a round,
 * repeated when the solution leaves the motions the active set was built for (relaxed.h). */
#include "steppers/relaxed.h"

static double bias_relaxed(const clt_method_t *method, double value, double h) {
  return method->gamma * value / h;
}

static const clt_stage_t stages[] = {
    {"forces", clt_stage_forces, CLT_CLOCK_ASSEMBLE, NULL},
    {"inverse mass", clt_stage_relaxed_inverse_mass, CLT_CLOCK_ASSEMBLE, NULL},
    {"begin solves", clt_stage_relaxed_begin, CLT_CLOCK_OTHER, NULL},
    /* a round; "active set" ends the rounds when it finds the contacts of the round before (that
     * solve stands), "active set test" repeats the round when a body left its box */
    {"active set", clt_stage_relaxed_active_set, CLT_CLOCK_COLLIDE, "end solves"},
    {"joint rows", clt_stage_relaxed_joint_rows, CLT_CLOCK_ASSEMBLE, NULL},
    {"contact rows", clt_stage_relaxed_contacts, CLT_CLOCK_ASSEMBLE, NULL},
    {"free velocity", clt_stage_relaxed_free_velocity, CLT_CLOCK_SOLVE, NULL},
    {"solve", clt_stage_relaxed_solve_round, CLT_CLOCK_SOLVE, NULL},
    {"active set test", clt_stage_relaxed_test, CLT_CLOCK_OTHER, "active set"},
    {"end solves", clt_stage_relaxed_end, CLT_CLOCK_OTHER, NULL},
    {"remember", clt_stage_remember, CLT_CLOCK_OTHER, NULL},
    {"backup", clt_stage_backup, CLT_CLOCK_OTHER, NULL},
    {"integrate", clt_stage_integrate, CLT_CLOCK_OTHER, NULL},
    {"commit", clt_stage_commit, CLT_CLOCK_OTHER, NULL},
    {"diagnose", clt_stage_diagnose, CLT_CLOCK_OTHER, NULL},
    {"diverge", clt_stage_diverge, CLT_CLOCK_OTHER, NULL},
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
