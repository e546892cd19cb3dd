/* The public enum ↔ name functions (world.h, types.h; src/base/names.c): every value's name reads
 * back to the value, unknown names and values are refused, and the names are the ones the scene
 * format reads (a scene with method.scheme = clt_scheme_name(s) builds a world whose method has
 * scheme s, and so on for the solver, the gyroscopic term, on_unconverged and the friction cone). */
#include <stdio.h>
#include <string.h>

#include "clatter/clatter.h"
#include "clatter/scene.h"
#include "test_util.h"

/* Builds the default scene with one method field set; the world's method. */
static bool method_with(const char *field, const char *name, clt_method_t *out) {
  char set[128];
  snprintf(set, sizeof set, "method.%s=\"%s\"", field, name);
  const char *sets[] = {set};
  clt_scene_overrides_t o = {sets, 1, NULL, 0};
  char message[512];
  clt_scene_t *scene = NULL;
  clt_world_t *world = NULL;
  bool ok = clt_scene_parse("{\"name\": \"n\", \"dimension\": 3, \"time_step\": 0.001, \"duration\": 0.01, "
                            "\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}]}",
                            "names.json", &o, &scene, message, sizeof message) == CLT_OK &&
            clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message) == CLT_OK;
  if (ok) *out = *clt_world_method(world);
  else printf("%s=%s: %s\n", field, name, message);
  clt_world_destroy(world);
  clt_scene_destroy(scene);
  return ok;
}

int main(void) {
  int schemes = 0, solvers = 0;
  for (int s = 0; clt_scheme_name((clt_scheme_t)s); s++, schemes++) {
    clt_scheme_t back = (clt_scheme_t)-1;
    CHECK(clt_scheme_from_name(clt_scheme_name((clt_scheme_t)s), &back) && back == (clt_scheme_t)s);
    clt_method_t m;
    /* each scheme reads with the default method otherwise */
    CHECK(method_with("scheme", clt_scheme_name((clt_scheme_t)s), &m) && m.scheme == (clt_scheme_t)s);
  }
  CHECK(schemes == 5);
  for (int k = 0; strcmp(clt_solver_kind_name((clt_solver_kind_t)k), "unknown") != 0; k++, solvers++) {
    clt_solver_kind_t back;
    CHECK(clt_solver_kind_from_name(clt_solver_kind_name((clt_solver_kind_t)k), &back) && back == (clt_solver_kind_t)k);
  }
  CHECK(solvers == 6);
  clt_method_t m;
  CHECK(method_with("solver", "apgd", &m) && m.solver == CLT_SOLVER_APGD);
  for (int g = 0; clt_gyroscopic_name((clt_gyroscopic_t)g); g++) {
    clt_gyroscopic_t back;
    CHECK(clt_gyroscopic_from_name(clt_gyroscopic_name((clt_gyroscopic_t)g), &back) && back == (clt_gyroscopic_t)g);
    CHECK(method_with("gyroscopic", clt_gyroscopic_name((clt_gyroscopic_t)g), &m) && m.gyroscopic == (clt_gyroscopic_t)g);
  }
  for (int u = 0; clt_on_unconverged_name((clt_on_unconverged_t)u); u++) {
    clt_on_unconverged_t back;
    CHECK(clt_on_unconverged_from_name(clt_on_unconverged_name((clt_on_unconverged_t)u), &back) &&
          back == (clt_on_unconverged_t)u);
    CHECK(method_with("on_unconverged", clt_on_unconverged_name((clt_on_unconverged_t)u), &m) &&
          m.on_unconverged == (clt_on_unconverged_t)u);
  }
  for (int c = 0; clt_friction_cone_name((clt_friction_cone_t)c); c++) {
    clt_friction_cone_t back;
    CHECK(clt_friction_cone_from_name(clt_friction_cone_name((clt_friction_cone_t)c), &back) &&
          back == (clt_friction_cone_t)c);
    CHECK(method_with("friction_cone", clt_friction_cone_name((clt_friction_cone_t)c), &m) &&
          m.friction_cone == (clt_friction_cone_t)c);
  }
  CHECK(strcmp(clt_scheme_name(CLT_SCHEME_ANITESCU_HART), "anitescu-hart") == 0);
  CHECK(strcmp(clt_friction_cone_name(CLT_CONE_AUTO), "auto") == 0);
  CHECK(strcmp(clt_law_name(CLT_LAW_OVERDAMPED), "overdamped") == 0);
  CHECK(strcmp(clt_body_type_name(CLT_BODY_KINEMATIC), "kinematic") == 0);
  CHECK(strcmp(clt_force_treatment_name(CLT_TREAT_IMPLICIT), "implicit") == 0);

  /* the statuses: names of every value, "unknown" past them, and back */
  for (int s = 0; strcmp(clt_status_name((clt_status_t)s), "unknown") != 0; s++) {
    clt_status_t back;
    CHECK(clt_status_from_name(clt_status_name((clt_status_t)s), &back) && back == (clt_status_t)s);
  }
  CHECK(strcmp(clt_status_name(CLT_ERR_DIVERGED), "diverged") == 0);
  for (int s = 0; strcmp(clt_solver_status_name((clt_solver_status_t)s), "unknown") != 0; s++) {
    clt_solver_status_t back;
    CHECK(clt_solver_status_from_name(clt_solver_status_name((clt_solver_status_t)s), &back) &&
          back == (clt_solver_status_t)s);
  }
  CHECK(strcmp(clt_solver_status_name(CLT_SOLVE_NOT_CONVERGED), "not_converged") == 0);

  /* refusals: unknown names (and NULL) leave *out alone; values out of range have no name */
  clt_scheme_t keep = CLT_SCHEME_POST;
  CHECK(!clt_scheme_from_name("Relaxed", &keep) && keep == CLT_SCHEME_POST);
  CHECK(!clt_scheme_from_name(NULL, &keep) && keep == CLT_SCHEME_POST);
  CHECK(!clt_scheme_from_name("relaxed", NULL));
  clt_solver_kind_t kind = CLT_SOLVER_BGS;
  CHECK(!clt_solver_kind_from_name("pgs", &kind) && kind == CLT_SOLVER_BGS);
  CHECK(clt_scheme_name((clt_scheme_t)99) == NULL && clt_scheme_name((clt_scheme_t)-1) == NULL);
  CHECK(strcmp(clt_solver_kind_name((clt_solver_kind_t)99), "unknown") == 0);
  CHECK(!method_with("scheme", "relaxd", &m));
  return clt_test_finish();
}
