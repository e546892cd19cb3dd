/* Scheme `none` (SPEC.md §1 table; 004 (7)): the unstabilized velocity-level step, Υ = Δ = 0.
 * Constraint drift is left uncorrected: the baseline the stabilized schemes are measured against. */
#include "steppers/stepper.h"

static double bias_none(const clt_method_t *method, double value, double h) {
  (void)method;
  (void)value;
  (void)h;
  return 0.0;
}

static const clt_stage_t stages[] = {
    CLT_STAGES_DYNAMICS,
    {"integrate", clt_stage_integrate, CLT_CLOCK_OTHER, NULL},
    {"spring projection", clt_stage_spring_project, CLT_CLOCK_SOLVE, NULL},
    {"commit", clt_stage_commit, CLT_CLOCK_OTHER, NULL},
    {"diagnose", clt_stage_diagnose, CLT_CLOCK_OTHER, NULL},
    {"diverge", clt_stage_diverge, CLT_CLOCK_OTHER, NULL},
};

const clt_scheme_ops_t clt_scheme_none = {"none", bias_none, stages, CLT_STAGE_COUNT(stages), false};
