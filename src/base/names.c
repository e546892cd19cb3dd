/* Names of the public enums (base/names.h): statuses, the method's choices, body types. */
#include "base/names.h"

#include <string.h>

#include "clatter/solvers.h"

const char *const clt_scheme_names[] = {"none", "anitescu-hart", "baumgarte", "post", "relaxed", NULL};
const char *const clt_solver_kind_names[] = {"lemke", "bgs", "apgd", "bbpgd", "newton", "mprgp", NULL};
const char *const clt_gyroscopic_names[] = {"explicit", "semi-implicit", "off", NULL};
const char *const clt_on_unconverged_names[] = {"record", "warn", "abort", NULL};
const char *const clt_friction_cone_names[] = {"polyhedral", "circular", "auto", NULL};
const char *const clt_law_names[] = {"inertial", "overdamped", NULL};
const char *const clt_body_type_names[] = {"dynamic", "static", "kinematic", NULL};
const char *const clt_force_treatment_names[] = {"explicit", "implicit", NULL};
const char *const clt_motor_mode_names[] = {"off", "velocity", "position", "effort", NULL};
static const char *const status_names[] = {"ok",      "invalid_argument", "out_of_memory", "stale_handle",
                                           "unsupported", "numerical",    "solver",        "io",
                                           "format",  "diverged",         NULL};
static const char *const solver_status_names[] = {"none",  "solved", "ray", "max_iterations",
                                                  "error", "not_converged", NULL};

int clt_name_index(const char *const *names, const char *name) {
  if (!name) return -1;
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

/* names[value] when value is one of the table's, else NULL */
static const char *name_of(const char *const *names, int value) {
  for (int i = 0; names[i]; i++)
    if (i == value) return names[i];
  return NULL;
}

#define FROM_NAME(type, prefix, table)                                                \
  bool prefix##_from_name(const char *name, type *out) {                             \
    int i = clt_name_index(table, name);                                              \
    if (i < 0 || !out) return false;                                                  \
    *out = (type)i;                                                                   \
    return true;                                                                      \
  }

#define ENUM_NAMES(type, prefix, table)                                               \
  const char *prefix##_name(type value) { return name_of(table, (int)value); }        \
  FROM_NAME(type, prefix, table)

ENUM_NAMES(clt_scheme_t, clt_scheme, clt_scheme_names)
ENUM_NAMES(clt_gyroscopic_t, clt_gyroscopic, clt_gyroscopic_names)
ENUM_NAMES(clt_on_unconverged_t, clt_on_unconverged, clt_on_unconverged_names)
ENUM_NAMES(clt_friction_cone_t, clt_friction_cone, clt_friction_cone_names)
ENUM_NAMES(clt_law_t, clt_law, clt_law_names)
ENUM_NAMES(clt_body_type_t, clt_body_type, clt_body_type_names)
ENUM_NAMES(clt_force_treatment_t, clt_force_treatment, clt_force_treatment_names)
ENUM_NAMES(clt_motor_mode_t, clt_motor_mode, clt_motor_mode_names)

/* The statuses and the solver kind keep a name for any value ("unknown"): they are printed from
 * values that may come from a file. */
#define ENUM_NAMES_OR_UNKNOWN(type, prefix, table)                                    \
  const char *prefix##_name(type value) {                                             \
    const char *s = name_of(table, (int)value);                                       \
    return s ? s : "unknown";                                                         \
  }                                                                                   \
  FROM_NAME(type, prefix, table)

ENUM_NAMES_OR_UNKNOWN(clt_status_t, clt_status, status_names)
ENUM_NAMES_OR_UNKNOWN(clt_solver_status_t, clt_solver_status, solver_status_names)
ENUM_NAMES_OR_UNKNOWN(clt_solver_kind_t, clt_solver_kind, clt_solver_kind_names)
