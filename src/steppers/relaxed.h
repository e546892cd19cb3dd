/* The solve stage of the `relaxed` scheme (SPEC.md §1 table, §2.3; stage_solve_relaxed.c). */
#ifndef CLATTER_STEPPERS_RELAXED_H
#define CLATTER_STEPPERS_RELAXED_H

#include "steppers/stepper.h"

/* Stage "solve" of scheme relaxed: the dual of the step's convex QP, solved matrix-free by APGD
 * (BBPGD when method.solver is bbpgd), then v⁺ = v_free + M̂⁻¹ Gᵀ x; writes the impulses into
 * work->z in the layout of rows.h so that stage "remember" and the contact report apply as they
 * are. With joints only it is the joint equality solve every scheme shares (clt_solve_rows). */
clt_status_t clt_stage_solve_relaxed(clt_step_context_t *c);

#endif
