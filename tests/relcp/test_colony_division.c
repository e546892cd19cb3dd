/* Planar ReLCP, capsule centrelines crossing at a trial configuration (the colony's stall at the
 * 512 → 1024 division, in small): in a planar overdamped world a short capsule B
 * (colony daughter size: r = 0.25, L = 0.838) lies across the end of capsule A, 0.03 apart, and is
 * pushed so hard that the first trial q₁ = q + h a moves its core right through A's core. The
 * narrow phase's normal for crossing cores is the common perpendicular of the axes, ±e_z, with
 * Φ = −2r: a row without mobility in the plane, which no force can lift (the recursion's LCPs
 * stall at residual 0.5 / 1.5 and the step is rejected). ReLCP must instead build the crossing
 * pair's constraint on an in-plane axis and push B back the way it came: the step is accepted
 * with the true overlap ≤ ε_tol, B stays on its side of A, z and ω_x, ω_y stay 0. */
#include <string.h>

#include "clatter/world.h"
#include "test_util.h"

#define PI 3.14159265358979323846

static double clt_v3_norm_test(const double x[3]) { return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

static clt_body_id_t add_capsule(clt_world_t *w, double x, double y, double angle, double fx, double fy) {
  clt_shape_def_t s = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  s.radius = 0.25;
  s.length = 0.838;
  clt_body_def_t bd = clt_default_body_def();
  bd.position[0] = x;
  bd.position[1] = y;
  /* capsule axis (local z) into the plane along angle: q_z(angle) ⊗ q_y(π/2) */
  double cy = cos(PI / 4), sy = sin(PI / 4), cz = cos(0.5 * angle), sz = sin(0.5 * angle);
  bd.orientation[0] = cz * cy;
  bd.orientation[1] = -sz * sy;
  bd.orientation[2] = cz * sy;
  bd.orientation[3] = cy * sz;
  for (int k = 0; k < 3; k++) bd.drag_linear[k] = bd.drag_angular[k] = 1.0;
  bd.shapes = &s;
  bd.shape_count = 1;
  clt_body_id_t id;
  CHECK(clt_world_add_body(w, &bd, &id) == CLT_OK);
  clt_force_def_t fd = clt_default_force_def(CLT_FORCE_APPLIED);
  fd.body_a = id;
  fd.force[0] = fx;
  fd.force[1] = fy;
  CHECK(clt_world_add_force(w, &fd, NULL) == CLT_OK);
  return id;
}

int main(void) {
  clt_world_def_t wd = clt_default_world_def();
  wd.time_step = 0.01;
  memset(wd.gravity, 0, sizeof wd.gravity);
  wd.law = CLT_LAW_OVERDAMPED;
  wd.planar = true;
  wd.method.contact_model = CLT_CONTACT_MODEL_RELCP;
  wd.method.overlap_tolerance = 5e-4;
  wd.method.active_set_eps = 0.025;
  clt_world_t *w = NULL;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  /* A along x; B nearly along y above A's right half, its lower core end 0.03 above A's surface
   * (outside ε̂, so not in C₀), driven down by 1.2 per step: q₁ has B's core through A's */
  clt_body_id_t a = add_capsule(w, 0.0, 0.0, 0.0, 0.0, 0.0);
  clt_body_id_t b = add_capsule(w, 0.1, 0.25 + 0.25 + 0.03 + 0.419, 0.5 * PI + 0.1, 2.0, -120.0);
  int steps = 0;
  double worst_overlap = 0.0, worst_z = 0.0, first_y = NAN, worst_xy = 0.0;
  for (int n = 0; n < 3; n++) {
    clt_status_t st = clt_world_step(w);
    CHECK(st == CLT_OK);
    if (st != CLT_OK) {
      printf("step %d: %s\n", n + 1, clt_world_error(w));
      break;
    }
    steps++;
    clt_diagnostics_t d;
    clt_world_get_diagnostics(w, &d);
    worst_overlap = fmax(worst_overlap, d.max_overlap);
    clt_body_state_t sa, sb;
    clt_body_get_state(w, a, &sa);
    clt_body_get_state(w, b, &sb);
    worst_z = fmax(worst_z, fmax(fabs(sa.position[2]), fabs(sb.position[2])));
    printf("step %d: y_B - y_A %.4f, x_B %.4f, %d ReLCP passes, %d constraints, overlap %.3g\n", n + 1,
           sb.position[1] - sa.position[1], sb.position[0], d.relcp_iterations, d.constraints, d.max_overlap);
    if (n == 0) first_y = sb.position[1] - sa.position[1];
    worst_xy = fmax(worst_xy, fmax(clt_v3_norm_test(sa.position), clt_v3_norm_test(sb.position)));
  }
  printf("colony division: %d steps, max overlap %.3g, max |z| %.3g, largest |position| %.3g\n", steps, worst_overlap,
         worst_z, worst_xy);
  CHECK(steps == 3);
  CHECK_LE(worst_overlap, 5e-4);
  CHECK(worst_z == 0.0);
  /* step 1 stopped B on A (surfaces touching: centre 0.5–0.95 above A's axis), not flung away or
   * through A */
  CHECK(first_y > 0.5 && first_y < 0.95);
  CHECK_LE(worst_xy, 5.0);
  clt_world_destroy(w);
  return clt_test_finish();
}
