/* Scheme `relaxed` (SPEC.md §1 table, §2.3; 003 convex relaxation): Υ = γΘ/h, Δ = γΦ/h and s = 1,
 * one convex QP per step. Not built yet: with joint or contact rows the step refuses with
 * CLT_ERR_UNSUPPORTED (stage "relaxed"); without rows it is the free motion every scheme shares. */
#include "steppers/stepper.h"

static double bias_relaxed(const clt_method_t *method, double value, double h) {
  return method->gamma * value / h;
}

static clt_status_t stage_refuse_rows(clt_step_context_t *c) {
  if (c->work->row_count > 0)
    return clt_world_fail(c->world, CLT_ERR_UNSUPPORTED,
                          "step %lld: the relaxed scheme (one convex QP per step, SPEC.md §2.3) is not "
                          "available yet with joints or contacts",
                          (long long)c->step);
  return CLT_OK;
}

static const clt_stage_t stages[] = {
    {"forces", clt_stage_forces, CLT_CLOCK_ASSEMBLE},
    {"inverse mass", clt_stage_inverse_mass, CLT_CLOCK_ASSEMBLE},
    {"collide", clt_stage_collide, CLT_CLOCK_COLLIDE},
    {"joint rows", clt_stage_joint_rows, CLT_CLOCK_ASSEMBLE},
    {"contact rows", clt_stage_contact_rows, CLT_CLOCK_ASSEMBLE},
    {"relaxed", stage_refuse_rows, CLT_CLOCK_OTHER},
    {"free velocity", clt_stage_free_velocity, CLT_CLOCK_SOLVE},
    {"remember", clt_stage_remember, CLT_CLOCK_OTHER},
    {"integrate", clt_stage_integrate, CLT_CLOCK_OTHER},
    {"commit", clt_stage_commit, CLT_CLOCK_OTHER},
    {"diagnose", clt_stage_diagnose, CLT_CLOCK_OTHER},
};

const clt_scheme_ops_t clt_scheme_relaxed = {"relaxed", bias_relaxed, stages, CLT_STAGE_COUNT(stages)};
