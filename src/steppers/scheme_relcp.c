/* Contact models relcp, snsd and multisphere:N (SPEC.md §6; 002 §3–§5) and the overdamped law of
 * motion (SPEC.md §6.1): frictionless shared-normal constraints under either law, one recursion
 * per step (stage_relcp.c, relcp.h). step.c selects this pipeline whenever method.contact_model is not the
 * default, the law is overdamped or the world is planar (stage "mobility" refuses the last two with
 * the default contact model: the default contact rows with friction know only the inertial,
 * unconfined law). The scheme's bias is not used: the recursion's right-hand side is the
 * linearized separation Φ + h Dᵀ(velocity) of SPEC.md §6.1, i.e. the anitescu-hart bias with γ = 1. */
#include "steppers/relcp.h"

static double bias_relcp(const clt_method_t *method, double value, double h) {
  (void)method;
  return value / h;
}

static const clt_stage_t stages[] = {
    {"forces", clt_stage_forces, CLT_CLOCK_ASSEMBLE, NULL},
    {"mobility", clt_stage_relcp_mobility, CLT_CLOCK_ASSEMBLE, NULL},
    {"active set", clt_stage_relcp_active_set, CLT_CLOCK_COLLIDE, NULL},
    /* the recursion: a pass per round, again while pairs overlap beyond the tolerance */
    {"prepare", clt_stage_relcp_prepare, CLT_CLOCK_ASSEMBLE, NULL},
    {"solve", clt_stage_relcp_solve_pass, CLT_CLOCK_SOLVE, NULL},
    {"overlaps", clt_stage_relcp_overlaps, CLT_CLOCK_COLLIDE, "prepare"},
    {"recurse", clt_stage_relcp_recurse, CLT_CLOCK_ASSEMBLE, "prepare"},
    {"accept", clt_stage_relcp_accept, CLT_CLOCK_OTHER, NULL},
    {"commit", clt_stage_commit, CLT_CLOCK_OTHER, NULL},
    {"diagnose", clt_stage_diagnose, CLT_CLOCK_OTHER, NULL},
    {"diverge", clt_stage_diverge, CLT_CLOCK_OTHER, NULL},
};

const clt_scheme_ops_t clt_scheme_relcp = {"relcp", bias_relcp, stages, CLT_STAGE_COUNT(stages), false};
