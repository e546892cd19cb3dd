/* Scheme `post` (SPEC.md §1 table, §3; Cline–Pai, 001 §V): the dynamics step of `none`
 * (Υ = Δ = 0), then the position projection of §3 on q̃ = q ⊕ h v⁺ (stage_post.c). Velocities
 * are not changed by the projection. */
#include "steppers/stepper.h"

static double bias_post(const clt_method_t *method, double value, double h) {
  (void)method;
  (void)value;
  (void)h;
  return 0.0;
}

static const clt_stage_t stages[] = {
    CLT_STAGES_DYNAMICS,
    {"integrate", clt_stage_integrate, CLT_CLOCK_OTHER, NULL},
    {"spring projection", clt_stage_spring_project, CLT_CLOCK_SOLVE, NULL},
    {"post-stabilize", clt_stage_post_project, CLT_CLOCK_SOLVE, NULL},
    {"commit", clt_stage_commit, CLT_CLOCK_OTHER, NULL},
    {"diagnose", clt_stage_diagnose, CLT_CLOCK_OTHER, NULL},
    {"diverge", clt_stage_diverge, CLT_CLOCK_OTHER, NULL},
};

const clt_scheme_ops_t clt_scheme_post = {"post", bias_post, stages, CLT_STAGE_COUNT(stages), false};
