/* Scheme `baumgarte` (SPEC.md §1 table; 001 §IV.A, velocity form): Υ = αΘ, Δ = αΦ with α in 1/s.
 * Per step the error is multiplied by about (1 − αh): αh ≪ 1 corrects slowly, αh > 1 overshoots
 * (αh = 2 flips the sign of the error each step: the jitter 001 reports for α = 2000, h = 1 ms). */
#include "steppers/stepper.h"

static double bias_baumgarte(const clt_method_t *method, double value, double h) {
  (void)h;
  return method->alpha * value;
}

static const clt_stage_t stages[] = {
    CLT_STAGES_DYNAMICS,
    {"integrate", clt_stage_integrate, CLT_CLOCK_OTHER, NULL},
    {"spring projection", clt_stage_spring_project, CLT_CLOCK_SOLVE, NULL},
    {"commit", clt_stage_commit, CLT_CLOCK_OTHER, NULL},
    {"diagnose", clt_stage_diagnose, CLT_CLOCK_OTHER, NULL},
    {"diverge", clt_stage_diverge, CLT_CLOCK_OTHER, NULL},
};

const clt_scheme_ops_t clt_scheme_baumgarte = {"baumgarte", bias_baumgarte, stages, CLT_STAGE_COUNT(stages), false};
