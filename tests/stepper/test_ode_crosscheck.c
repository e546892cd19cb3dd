/* Cross-check against a peer (SPEC.md §1): for joints only, ODE's dWorldStep with CFM = 0 solves
 * the same velocity-level step — ERP = γ is `anitescu-hart`, ERP = αh is `baumgarte`, ERP = 0 is
 * `none`. A 3D double pendulum (two bars on spherical joints, the first to the world) released
 * with a spin; ODE is run with the exact finite rotation (dBodySetFiniteRotationMode 1, our
 * exponential map) and no gyroscopic term (clatter: CLT_GYRO_OFF), so both integrate the same
 * discrete model and must agree to rounding, step after step. */
#include <math.h>
#include <ode/ode.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "math/vec.h"
#include "test_util.h"

#define STEPS 500
static const double h = 0.01;
static const double mass = 1.3, inertia[3] = {0.02, 0.11, 0.12};
static const double centre[2][3] = {{0.5, 0.0, 0.0}, {1.5, 0.0, 0.1}};
static const double velocity[2][3] = {{0.0, 0.4, 0.0}, {0.0, -0.2, 0.3}};
static const double spin_world[2][3] = {{0.0, 0.0, 1.5}, {0.7, 0.0, -2.0}};
static const double anchors[2][3] = {{0.0, 0.0, 0.0}, {1.0, 0.0, 0.05}}; /* world, at t = 0 */

/* Runs both engines; returns the largest difference in position [m] over all steps. */
static double compare(clt_scheme_t scheme, double gamma, double alpha, double erp, double *max_error) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  wd.method.scheme = scheme;
  wd.method.gamma = gamma;
  wd.method.alpha = alpha;
  wd.method.gyroscopic = CLT_GYRO_OFF;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);

  dWorldID ow = dWorldCreate();
  dWorldSetGravity(ow, wd.gravity[0], wd.gravity[1], wd.gravity[2]);
  dWorldSetERP(ow, erp);
  dWorldSetCFM(ow, 0.0);
  dBodyID ob[2];
  clt_body_id_t cb[2];
  for (int i = 0; i < 2; i++) {
    clt_body_def_t bd = clt_default_body_def();
    bd.mass = mass;
    memcpy(bd.inertia, inertia, sizeof bd.inertia);
    memcpy(bd.position, centre[i], sizeof bd.position);
    memcpy(bd.velocity, velocity[i], sizeof bd.velocity);
    memcpy(bd.angular_velocity, spin_world[i], sizeof bd.angular_velocity); /* identity orientation */
    CHECK(clt_world_add_body(w, &bd, &cb[i]) == CLT_OK);
    ob[i] = dBodyCreate(ow);
    dMass m;
    dMassSetParameters(&m, mass, 0, 0, 0, inertia[0], inertia[1], inertia[2], 0, 0, 0);
    dBodySetMass(ob[i], &m);
    dBodySetPosition(ob[i], centre[i][0], centre[i][1], centre[i][2]);
    dBodySetLinearVel(ob[i], velocity[i][0], velocity[i][1], velocity[i][2]);
    dBodySetAngularVel(ob[i], spin_world[i][0], spin_world[i][1], spin_world[i][2]);
    dBodySetFiniteRotationMode(ob[i], 1);
    dBodySetGyroscopicMode(ob[i], 0);
  }
  for (int j = 0; j < 2; j++) {
    clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_SPHERICAL);
    jd.body_a = cb[j];
    clt_v3_sub(jd.anchor_a, anchors[j], centre[j]);
    if (j == 0) {
      memcpy(jd.anchor_b, anchors[0], sizeof jd.anchor_b);
    } else {
      jd.body_b = cb[0];
      clt_v3_sub(jd.anchor_b, anchors[1], centre[0]);
    }
    CHECK(clt_world_add_joint(w, &jd, NULL) == CLT_OK);
    dJointID oj = dJointCreateBall(ow, 0);
    dJointAttach(oj, ob[j], j == 0 ? 0 : ob[0]);
    dJointSetBallAnchor(oj, anchors[j][0], anchors[j][1], anchors[j][2]);
  }
  double worst = 0.0;
  *max_error = 0.0;
  for (int n = 0; n < STEPS; n++) {
    CHECK(clt_world_step(w) == CLT_OK);
    dWorldStep(ow, h);
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    if (d.joint_error > *max_error) *max_error = d.joint_error;
    for (int i = 0; i < 2; i++) {
      clt_body_state_t s;
      clt_body_get_state(w, cb[i], &s);
      const dReal *p = dBodyGetPosition(ob[i]);
      for (int k = 0; k < 3; k++)
        if (fabs(s.position[k] - p[k]) > worst) worst = fabs(s.position[k] - p[k]);
    }
  }
  dWorldDestroy(ow);
  clt_world_destroy(w);
  return worst;
}

int main(void) {
  dInitODE2(0);
  double err;
  double d_ah = compare(CLT_SCHEME_ANITESCU_HART, 1.0, 0.0, 1.0, &err);
  printf("  anitescu-hart gamma = 1   vs ODE ERP = 1:   max position difference %.3e (joint error %.2e)\n", d_ah, err);
  CHECK_LE(d_ah, 1e-9);
  double d_ah2 = compare(CLT_SCHEME_ANITESCU_HART, 0.2, 0.0, 0.2, &err);
  printf("  anitescu-hart gamma = 0.2 vs ODE ERP = 0.2: max position difference %.3e (joint error %.2e)\n", d_ah2, err);
  CHECK_LE(d_ah2, 1e-9);
  double d_b = compare(CLT_SCHEME_BAUMGARTE, 1.0, 30.0, 30.0 * h, &err);
  printf("  baumgarte alpha = 30      vs ODE ERP = 0.3: max position difference %.3e (joint error %.2e)\n", d_b, err);
  CHECK_LE(d_b, 1e-9);
  double d_none = compare(CLT_SCHEME_NONE, 1.0, 0.0, 0.0, &err);
  printf("  none                      vs ODE ERP = 0:   max position difference %.3e (joint error %.2e)\n", d_none, err);
  CHECK_LE(d_none, 1e-9);
  dCloseODE();
  return clt_test_finish();
}
