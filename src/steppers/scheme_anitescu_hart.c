/* Scheme `anitescu-hart` (SPEC.md §1 table; 000 (2.8)–(2.10)): Υ = γΘ/h, Δ = γΦ/h. The velocity
 * rows then ask that the linearized constraint value after the step, g + h ġ⁺, be (1 − γ) g: with
 * γ = 1 one LCP per step removes the drift at once, and 000 Theorem 4.1 bounds the infeasibility
 * after the step by C‖h v⁺‖². γ < 1 is the parametric variant (000 (2.12)). */
#include "steppers/stepper.h"

static double bias_anitescu_hart(const clt_method_t *method, double value, double h) {
  return method->gamma * value / h;
}

static const clt_stage_t stages[] = {
    CLT_STAGES_DYNAMICS,
    {"integrate", clt_stage_integrate, CLT_CLOCK_OTHER, NULL},
    {"spring projection", clt_stage_spring_project, CLT_CLOCK_SOLVE, NULL},
    {"commit", clt_stage_commit, CLT_CLOCK_OTHER, NULL},
    {"diagnose", clt_stage_diagnose, CLT_CLOCK_OTHER, NULL},
    {"diverge", clt_stage_diverge, CLT_CLOCK_OTHER, NULL},
};

const clt_scheme_ops_t clt_scheme_anitescu_hart = {"anitescu-hart", bias_anitescu_hart, stages,
                                                   CLT_STAGE_COUNT(stages), false};
