/* clatter — the names of the public enums as the scene format and the output spell them
 * (docs/scene-format.md, docs/output-format.md): one table per enum, indexed by its value and
 * NULL-terminated, behind the public clt_*_name / clt_*_from_name functions (world.h, solvers.h,
 * types.h) and read directly by the scene reader's enum fields. */
#ifndef CLATTER_BASE_NAMES_H
#define CLATTER_BASE_NAMES_H

extern const char *const clt_scheme_names[];
extern const char *const clt_solver_kind_names[];
extern const char *const clt_gyroscopic_names[];
extern const char *const clt_on_unconverged_names[];
extern const char *const clt_friction_cone_names[];
extern const char *const clt_law_names[];
extern const char *const clt_body_type_names[];
extern const char *const clt_force_treatment_names[];
extern const char *const clt_motor_mode_names[];

/* The index of name in a NULL-terminated table, or −1. */
int clt_name_index(const char *const *names, const char *name);

#endif
