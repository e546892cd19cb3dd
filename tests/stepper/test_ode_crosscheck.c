/* Cross-check against a peer (SPEC.md §1): for joints only, ODE's dWorldStep with CFM = 0 solves
 * the same velocity-level step — ERP = γ is `anitescu-hart`, ERP = αh is `baumgarte`, ERP = 0 is
 * `none`. A 3D double pendulum (two bars on spherical joints, the first to the world) released
 * with a spin; ODE is run with the exact finite rotation (dBodySetFiniteRotationMode 1, our
 * exponential map) and no gyroscopic term (clatter: CLT_GYRO_OFF), so both integrate the same
 * discrete model and must agree to rounding, step after step. Then a hinge with a limit and a
 * velocity motor against ODE's stop and motor rows (hinge_limit_motor, below). */
#include <math.h>
#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A hinge with a limit and a velocity motor (docs/actuation.md) against ODE's hinge with the same
 * rows: stop ERP = γ, stop CFM = 0, motor dParamVel / dParamFMax. A bar hinged at the origin about
 * y is body A of the joint (ODE's body 1) with the world as B, so ODE's hinge angle is −θ and its
 * stops are [−upper, −lower]. ODE leads: each step starts clatter from ODE's state, and the two
 * end states are compared where both solve the same problem:
 *  - ODE's stop row in (the bound violated at the start of the step: a row with
 *    c = −ERP · error / h, which is clatter's γ g/h), with the motor driving into it (ODE applies
 *    f_max as a force, which is where clatter's bounded motor row sits), or
 *  - no stop row in ODE and clatter's limit rows not pushing: the motor row alone.
 * Two kinds of step are not the same problem and are counted apart: clatter's limit row pushing
 * before the bound is reached (its Υ = g/h stops the bar at the bound; ODE lets it cross and
 * corrects afterwards), and a motor pulling away from a violated bound (ODE applies f_max as a
 * force, its "fudge"; clatter solves the motor row and the limit row together). */
static void hinge_limit_motor(double gamma) {
  const double upper = 0.6, lower = -0.8, f_max = 20.0;
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = h;
  wd.method.scheme = CLT_SCHEME_ANITESCU_HART;
  wd.method.gamma = gamma;
  wd.method.gyroscopic = CLT_GYRO_OFF;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  clt_body_def_t bd = clt_default_body_def();
  bd.mass = mass;
  memcpy(bd.inertia, inertia, sizeof bd.inertia);
  bd.position[0] = 0.5;
  clt_body_id_t bar;
  CHECK(clt_world_add_body(w, &bd, &bar) == CLT_OK);
  clt_joint_def_t jd = clt_default_joint_def(CLT_JOINT_REVOLUTE);
  jd.body_a = bar;
  jd.anchor_a[0] = -0.5;
  jd.axis_a[0] = jd.axis_a[2] = jd.axis_b[0] = jd.axis_b[2] = 0.0;
  jd.axis_a[1] = jd.axis_b[1] = 1.0;
  jd.limit.enabled = true;
  jd.limit.lower = lower;
  jd.limit.upper = upper;
  jd.motor.mode = CLT_MOTOR_VELOCITY;
  jd.motor.target_velocity = 2.0; /* lifting, into the upper bound */
  jd.motor.max_force = f_max;
  clt_joint_id_t joint;
  CHECK(clt_world_add_joint(w, &jd, &joint) == CLT_OK);

  dWorldID ow = dWorldCreate();
  dWorldSetGravity(ow, wd.gravity[0], wd.gravity[1], wd.gravity[2]);
  dWorldSetERP(ow, gamma);
  dWorldSetCFM(ow, 0.0);
  dBodyID ob = dBodyCreate(ow);
  dMass m;
  dMassSetParameters(&m, mass, 0, 0, 0, inertia[0], inertia[1], inertia[2], 0, 0, 0);
  dBodySetMass(ob, &m);
  dBodySetPosition(ob, 0.5, 0.0, 0.0);
  dBodySetFiniteRotationMode(ob, 1);
  dBodySetGyroscopicMode(ob, 0);
  dJointID oj = dJointCreateHinge(ow, 0);
  dJointAttach(oj, ob, 0);
  dJointSetHingeAnchor(oj, 0.0, 0.0, 0.0);
  dJointSetHingeAxis(oj, 0.0, 1.0, 0.0);
  dJointSetHingeParam(oj, dParamLoStop, -upper);
  dJointSetHingeParam(oj, dParamHiStop, -lower);
  dJointSetHingeParam(oj, dParamStopERP, gamma);
  dJointSetHingeParam(oj, dParamStopCFM, 0.0);
  dJointSetHingeParam(oj, dParamCFM, 0.0);
  dJointSetHingeParam(oj, dParamBounce, 0.0);
  dJointSetHingeParam(oj, dParamVel, -jd.motor.target_velocity);
  dJointSetHingeParam(oj, dParamFMax, f_max);

  double worst = 0.0;
  int compared = 0, with_stop = 0, speculative = 0, pulling_away = 0;
  for (int n = 0; n < 400; n++) {
    double target = n < 150 ? 2.0 : -1.5; /* then down, into the lower bound */
    if (n == 150) {
      clt_joint_motor_t motor = jd.motor;
      motor.target_velocity = target;
      CHECK(clt_joint_set_motor(w, joint, &motor) == CLT_OK);
      dJointSetHingeParam(oj, dParamVel, -target);
    }
    /* clatter from ODE's state */
    clt_body_state_t s0;
    CHECK(clt_body_get_state(w, bar, &s0) == CLT_OK);
    const dReal *p0 = dBodyGetPosition(ob), *q0 = dBodyGetQuaternion(ob), *v0 = dBodyGetLinearVel(ob),
                *w0 = dBodyGetAngularVel(ob);
    double ww[3];
    for (int k = 0; k < 3; k++) {
      s0.position[k] = p0[k];
      s0.velocity[k] = v0[k];
      ww[k] = w0[k];
    }
    for (int k = 0; k < 4; k++) s0.orientation[k] = q0[k];
    clt_q_rotate_inv(s0.angular_velocity, s0.orientation, ww);
    CHECK(clt_body_set_state(w, bar, &s0) == CLT_OK);
    double angle = -(double)dJointGetHingeAngle(oj); /* θ as ODE measures it */
    int ode_stop = angle >= upper ? 1 : angle <= lower ? -1 : 0;
    CHECK(clt_world_step(w) == CLT_OK);
    dWorldStep(ow, h);
    clt_joint_state_t js;
    CHECK(clt_joint_get_state(w, joint, &js) == CLT_OK);
    if (ode_stop == 0 && js.limit_impulse != 0.0) {
      speculative++;
      continue;
    }
    if (ode_stop != 0 && ode_stop * target < 0.0) {
      pulling_away++;
      continue;
    }
    with_stop += ode_stop != 0;
    compared++;
    clt_body_state_t s1;
    CHECK(clt_body_get_state(w, bar, &s1) == CLT_OK);
    const dReal *p = dBodyGetPosition(ob), *oq = dBodyGetQuaternion(ob), *v = dBodyGetLinearVel(ob),
                *om = dBodyGetAngularVel(ob);
    double w1[3], sgn = s1.orientation[0] * oq[0] >= 0.0 ? 1.0 : -1.0;
    clt_q_rotate(w1, s1.orientation, s1.angular_velocity);
    for (int k = 0; k < 3; k++) {
      worst = fmax(worst, fabs(s1.position[k] - p[k]));
      worst = fmax(worst, fabs(s1.velocity[k] - v[k]));
      worst = fmax(worst, fabs(w1[k] - om[k]));
    }
    for (int k = 0; k < 4; k++) worst = fmax(worst, fabs(s1.orientation[k] - sgn * oq[k]));
  }
  printf("  hinge with limit and velocity motor, gamma = stop ERP = %g: %d steps compared (%d with ODE's stop row "
         "in), largest difference of the state after a step %.3e; apart: %d steps where clatter's limit row "
         "stops the bar at the bound before ODE's stop engages, %d pulling away from a violated bound; "
         "final ODE angle %.9f (lower %g)\n",
         gamma, compared, with_stop, worst, speculative, pulling_away, -(double)dJointGetHingeAngle(oj), lower);
  CHECK(compared > 300 && with_stop > 100);
  CHECK_LE(worst, 1e-10);
  dWorldDestroy(ow);
  clt_world_destroy(w);
}

int main(void) {
  dInitODE2(0);
  hinge_limit_motor(0.2);
  hinge_limit_motor(1.0);
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
