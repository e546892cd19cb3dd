/* The mass flow rate through a plane (src/analysis/flow.c, docs/analysis.md "Mass flow rate") on
 * known trajectories: particles of masses 1 … 12 kg moving at constant velocities through the plane
 * z = 0, some down, some up, some beside an orifice, with frames every 0.1 s; each interval's
 * crossings are the particles whose crossing time z₀ / v falls in it, and the rate is their signed
 * mass over the interval. A kinematic body and a body absent from a frame never count. */
#include <stdio.h>
#include <string.h>

#include "clatter/analysis.h"
#include "test_util.h"

#define BODIES 14
#define FRAMES 11
#define DT 0.1

static char message[512];

/* z₀ [m], v_z [m/s], x [m] of each particle (x beyond ±0.5: outside the orifice) */
static const double z0[BODIES] = {0.05, 0.23, 0.47, 0.61, 0.88, -0.17, -0.52, 0.33, 0.91, 0.12, -0.05, 0.75, 0.4, 0.35};
static const double vz[BODIES] = {-1, -1, -1, -1, -1, 0.5, 1, -0.5, -2, 0.3, -0.2, -0.8, -1, -1};
static const double xs[BODIES] = {0, 0.2, -0.3, 0.4, 0.1, 0, -0.2, 0.8, -0.9, 0.1, 0.3, 0.45, 0, 0};

int main(void) {
  static double position[FRAMES][BODIES][3];
  double mass[BODIES], radius[BODIES], volume[BODIES];
  int type[BODIES];
  for (int i = 0; i < BODIES; i++) {
    mass[i] = i + 1;
    radius[i] = 0.01;
    volume[i] = 4.0 / 3.0 * 3.14159265358979323846 * 1e-6;
    type[i] = CLT_BODY_DYNAMIC;
    for (int j = 0; j < FRAMES; j++) {
      position[j][i][0] = xs[i];
      position[j][i][1] = 0;
      position[j][i][2] = z0[i] + vz[i] * DT * j;
    }
  }
  type[12] = CLT_BODY_KINEMATIC; /* a paddle through the plane: no particle */
  mass[12] = INFINITY;
  position[4][13][0] = position[4][13][1] = position[4][13][2] = NAN; /* absent at frame 4 */
  clt_analysis_frame_t frames[FRAMES];
  for (int j = 0; j < FRAMES; j++) {
    clt_analysis_frame_t *f = &frames[j];
    memset(f, 0, sizeof *f);
    f->dimension = 3;
    f->frame = j;
    f->time = DT * j;
    f->gravity[2] = -9.81;
    f->body_count = BODIES;
    f->position = &position[j][0][0];
    f->mass = mass;
    f->body_type = type;
    f->radius = radius;
    f->volume = volume;
  }
  clt_analysis_box_t orifice = {{-0.5, -0.5, -INFINITY}, {0.5, 0.5, INFINITY}};
  double total_net = 0, total_expected = 0;
  for (int j = 0; j + 1 < FRAMES; j++) {
    for (int use_region = 0; use_region < 2; use_region++) {
      double down = 0, up = 0;
      int crossings = 0;
      for (int i = 0; i < 12; i++) {
        if (i == 13) continue;
        double tc = -z0[i] / vz[i]; /* z = 0 */
        if (!(tc > DT * j && tc < DT * (j + 1))) continue;
        if (use_region && (xs[i] < -0.5 || xs[i] > 0.5)) continue;
        crossings++;
        if (vz[i] < 0)
          down += mass[i];
        else
          up += mass[i];
      }
      /* body 13 crosses at t = 0.35 s (frames 3 → 4), when frame 4 lacks it */
      clt_flow_t flow;
      CHECK(clt_analysis_flow(&frames[j], &frames[j + 1], 2, 0.0, use_region ? &orifice : NULL, &flow, message,
                              sizeof message) == CLT_OK);
      CHECK(flow.crossings == crossings);
      CHECK_NEAR(flow.mass_negative, down, 1e-15);
      CHECK_NEAR(flow.mass_positive, up, 1e-15);
      CHECK_NEAR(flow.net, up - down, 1e-15);
      CHECK_NEAR(flow.rate, (up - down) / DT, 1e-12);
      if (!use_region) {
        total_net += flow.net;
        total_expected += up - down;
      }
    }
  }
  printf("net mass through z = 0 over 1 s: %g kg (expected %g kg)\n", total_net, total_expected);
  /* over the whole second in one interval: the particles that end on the other side, body 13
   * among them (present at both ends) */
  clt_flow_t flow;
  CHECK(clt_analysis_flow(&frames[0], &frames[FRAMES - 1], 2, 0.0, NULL, &flow, message, sizeof message) == CLT_OK);
  double net = 0;
  for (int i = 0; i < BODIES; i++) {
    if (i == 12) continue;
    double zend = z0[i] + vz[i] * DT * (FRAMES - 1);
    if ((z0[i] < 0) != (zend < 0)) net += zend < 0 ? -mass[i] : mass[i];
  }
  CHECK_NEAR(flow.net, net, 1e-15);
  CHECK_NEAR(flow.net, total_expected - mass[13],
             1e-15); /* nobody came back: the frame-by-frame sum lacks only body 13 */
  /* refused: frames out of order, another axis, a plane that is not a number */
  CHECK(clt_analysis_flow(&frames[3], &frames[2], 2, 0, NULL, &flow, message, sizeof message) ==
        CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "frames:", 7) == 0);
  CHECK(clt_analysis_flow(&frames[0], &frames[1], 3, 0, NULL, &flow, message, sizeof message) ==
        CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_analysis_flow(&frames[0], &frames[1], 2, NAN, NULL, &flow, message, sizeof message) ==
        CLT_ERR_INVALID_ARGUMENT);
  CHECK(strncmp(message, "plane:", 6) == 0);
  return clt_test_finish();
}
