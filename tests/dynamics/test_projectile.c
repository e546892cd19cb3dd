/* Projectile under gravity, 2D and 3D: the step (SPEC.md §1 with no rows) is exact for
 *   v_n = v0 + n h g,  x_n = x0 + n h v0 + h² g n(n+1)/2
 * so the trajectory must match to rounding (1e-12 relative), and the continuous parabola
 * x0 + v0 t + ½ g t² to O(h). */
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

static double rel_err(double a, double b) { return fabs(a - b) / fmax(1.0, fabs(b)); }

static void run(int dim) {
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = dim;
  wd.time_step = 1e-3;
  double g[3] = {0.3, -9.81, dim == 3 ? -1.7 : 0.0};
  memcpy(wd.gravity, g, sizeof g);
  clt_world_t *w = NULL;
  char msg[256];
  CHECK(clt_world_create(&wd, &w, msg, sizeof msg) == CLT_OK);
  if (!w) return;
  clt_body_def_t bd = clt_default_body_def();
  double x0[3] = {1.0, 2.0, dim == 3 ? 3.0 : 0.0}, v0[3] = {4.0, 12.0, dim == 3 ? -2.5 : 0.0};
  memcpy(bd.position, x0, sizeof x0);
  memcpy(bd.velocity, v0, sizeof v0);
  bd.mass = 2.0;
  bd.inertia[0] = 0.5;
  if (dim == 3) bd.inertia[1] = bd.inertia[2] = 0.5;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  const int steps = 2000;
  double h = wd.time_step, worst_discrete = 0.0, worst_continuous = 0.0;
  for (int n = 1; n <= steps; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    clt_body_state_t s;
    clt_body_get_state(w, id, &s);
    double t = n * h;
    for (int k = 0; k < dim; k++) {
      double exact = x0[k] + n * h * v0[k] + h * h * g[k] * n * (n + 1) / 2.0;
      double vexact = v0[k] + n * h * g[k];
      worst_discrete = fmax(worst_discrete, rel_err(s.position[k], exact));
      worst_discrete = fmax(worst_discrete, rel_err(s.velocity[k], vexact));
      double parabola = x0[k] + v0[k] * t + 0.5 * g[k] * t * t;
      worst_continuous = fmax(worst_continuous, fabs(s.position[k] - parabola));
    }
  }
  printf("%dD: max relative error vs discrete solution %.3g, max |x - parabola| %.3g (h/2 |g| t = %.3g)\n",
         dim, worst_discrete, worst_continuous, 0.5 * h * 9.81 * steps * h);
  CHECK_LE(worst_discrete, 1e-12);
  /* x_n − x(t_n) = h g t_n / 2 exactly: first order in h. */
  double t_end = steps * h, gmax = 0.0;
  for (int k = 0; k < dim; k++) gmax = fmax(gmax, fabs(g[k]));
  CHECK_LE(worst_continuous, 0.5 * h * gmax * t_end * (1.0 + 1e-9));
  CHECK(worst_continuous > 0.25 * h * gmax * t_end); /* and not better: the scheme is first order */
  clt_world_destroy(w);
}

int main(void) {
  run(2);
  run(3);
  return clt_test_finish();
}
