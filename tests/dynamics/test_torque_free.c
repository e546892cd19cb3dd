/* Torque-free asymmetric body (3D, J = diag(1, 2, 3), no gravity, 10 s), SPEC.md §1:
 *  - explicit gyroscopic torque: the drift of the world-frame angular momentum and of the kinetic
 *    energy is first order in h (halving h halves it);
 *  - semi-implicit gyroscopic treatment (J + h K_c, K_c = −[Jω]ₓ): the kinetic energy never
 *    increases, step by step. */
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

static clt_world_t *make_world(double h, clt_gyroscopic_t gyro, clt_body_id_t *id) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  memset(wd.gravity, 0, sizeof wd.gravity);
  wd.method.gyroscopic = gyro;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = 1.0;
  bd.inertia[0] = 1.0;
  bd.inertia[1] = 2.0;
  bd.inertia[2] = 3.0;
  bd.angular_velocity[0] = 1.0;
  bd.angular_velocity[1] = 0.1;
  bd.angular_velocity[2] = 0.5;
  /* a non-trivial initial orientation so the world-frame momentum has all components */
  bd.orientation[0] = 0.9;
  bd.orientation[1] = 0.3;
  bd.orientation[2] = -0.2;
  bd.orientation[3] = 0.1;
  CHECK(clt_world_add_body(w, &bd, id) == CLT_OK);
  return w;
}

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* Relative drift at t = 10 s of |L_world| (vector difference) and of the kinetic energy. */
static void drift(double h, double *momentum_drift, double *energy_drift) {
  clt_body_id_t id;
  clt_world_t *w = make_world(h, CLT_GYRO_EXPLICIT, &id);
  double l0[3], lin[3];
  clt_world_momentum(w, lin, l0);
  double e0 = clt_world_kinetic_energy(w);
  int steps = (int)lround(10.0 / h);
  for (int n = 0; n < steps; n++) clt_world_step(w);
  double l1[3], d[3];
  clt_world_momentum(w, lin, l1);
  for (int k = 0; k < 3; k++) d[k] = l1[k] - l0[k];
  *momentum_drift = norm3(d) / norm3(l0);
  *energy_drift = fabs(clt_world_kinetic_energy(w) - e0) / e0;
  CHECK_NEAR(clt_world_time(w), 10.0, 1e-9);
  clt_world_destroy(w);
}

int main(void) {
  const double hs[3] = {1e-3, 5e-4, 2.5e-4};
  double dl[3], de[3];
  for (int i = 0; i < 3; i++) {
    drift(hs[i], &dl[i], &de[i]);
    printf("explicit gyroscopic, h = %.2e: relative drift |L| %.4e, kinetic energy %.4e\n", hs[i], dl[i], de[i]);
  }
  for (int i = 0; i < 2; i++) {
    double rl = dl[i] / dl[i + 1], re = de[i] / de[i + 1];
    printf("  ratio h = %.2e / %.2e: momentum %.4f, energy %.4f\n", hs[i], hs[i + 1], rl, re);
    CHECK(rl >= 1.7 && rl <= 2.3);
    CHECK(re >= 1.7 && re <= 2.3);
  }
  CHECK(dl[0] >= 1e-5 && dl[0] <= 1e-2);
  CHECK(de[0] >= 1e-5 && de[0] <= 1e-2);

  /* Semi-implicit: E_{n+1} ≤ E_n at every step. */
  clt_body_id_t id;
  clt_world_t *w = make_world(1e-3, CLT_GYRO_SEMI_IMPLICIT, &id);
  double e_prev = clt_world_kinetic_energy(w), e_start = e_prev;
  int increases = 0;
  double worst = -INFINITY;
  for (int n = 0; n < 10000; n++) {
    CHECK(clt_world_step(w) == CLT_OK || n < 0);
    double e = clt_world_kinetic_energy(w);
    if (e > e_prev) increases++;
    worst = fmax(worst, e - e_prev);
    e_prev = e;
  }
  printf("semi-implicit, h = 1e-3: kinetic energy %.10f -> %.10f, increases %d, largest step change %.3e\n",
         e_start, e_prev, increases, worst);
  CHECK(increases == 0);
  CHECK(e_prev < e_start);
  clt_world_destroy(w);
  return clt_test_finish();
}
