/* The active-set polish of the local frictional contact problem (clt_fc_local_active_set) on the
 * problem it exists for: a box sliding on the ground on its corner contacts (two in 2D, four in
 * 3D) while it rocks, so that W = Hᵀ M⁻¹ H is rank-deficient (3 < 4 and 6 < 12 unknowns) and the
 * corners on one side lift off. Started from the point where the iterative solvers stall (every
 * corner carrying an equal share of the load, all sliding, u_N ≠ 0 of both signs), it must reach a
 * natural-map error at rounding level, and the answer must satisfy the cone conditions checked
 * independently (r ∈ K, u_N ≥ 0, r·û = 0, sliding opposite u_T) with the lifted corners unloaded.
 * Also: a start that is already a solution is returned unchanged; invalid input is refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/solvers.h"
#include "test_util.h"

/* Largest violation of the Coulomb conditions over the contacts, each divided by scale:
 * ‖r_T‖ ≤ μ r_N, r_N ≥ 0, u_N ≥ 0, r·û = 0 (û = u + μ‖u_T‖ e_N), and r_T = −μ r_N u_T/‖u_T‖
 * where a contact slides. */
static double coulomb_violation(int d, int nc, const double *mu, const double *r, const double *u,
                                double scale) {
  double v = 0.0;
  for (int a = 0; a < nc; a++) {
    const double *ra = r + d * a, *ua = u + d * a;
    double rt = d == 3 ? hypot(ra[1], ra[2]) : fabs(ra[1]);
    double ut = d == 3 ? hypot(ua[1], ua[2]) : fabs(ua[1]);
    v = fmax(v, rt - mu[a] * ra[0]);
    v = fmax(v, -ra[0]);
    v = fmax(v, -ua[0]);
    double dot = ra[0] * (ua[0] + mu[a] * ut);
    for (int k = 1; k < d; k++) dot += ra[k] * ua[k];
    v = fmax(v, fabs(dot));
    if (ut > 1e-9 && ra[0] > 0.0)
      for (int k = 1; k < d; k++) v = fmax(v, fabs(ra[k] + mu[a] * ra[0] * ua[k] / ut));
  }
  return v / scale;
}

/* W = Hᵀ M⁻¹ H and q = Hᵀ v for one body with diagonal mass (n velocities: 3 in 2D — x, y, θ —
 * and 6 in 3D) and contacts on the ground (normal +z or +y) at the body-frame points given. */
static void box_problem(int d, int nc, const double (*points)[3], const double *minv, const double *v,
                        double *W, double *q) {
  int n = d == 2 ? 3 : 6, m = d * nc;
  double *H = calloc((size_t)n * m, sizeof *H); /* column j: the velocity row of unknown j */
  for (int a = 0; a < nc; a++) {
    const double *p = points[a];
    double *c = H + (size_t)(d * a) * n;
    if (d == 2) { /* normal (0, 1), tangent (1, 0): rows [n, p × n] */
      c[0] = 0.0, c[1] = 1.0, c[2] = p[0];
      c += n;
      c[0] = 1.0, c[1] = 0.0, c[2] = -p[1];
    } else { /* normal e_z, tangents e_x, e_y: [e, p × e] */
      const double e[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
      for (int k = 0; k < 3; k++, c += n) {
        for (int i = 0; i < 3; i++) c[i] = e[k][i];
        c[3] = p[1] * e[k][2] - p[2] * e[k][1];
        c[4] = p[2] * e[k][0] - p[0] * e[k][2];
        c[5] = p[0] * e[k][1] - p[1] * e[k][0];
      }
    }
  }
  for (int i = 0; i < m; i++) {
    double s = 0.0;
    for (int k = 0; k < n; k++) s += H[(size_t)i * n + k] * v[k];
    q[i] = s;
    for (int j = 0; j < m; j++) {
      double w = 0.0;
      for (int k = 0; k < n; k++) w += H[(size_t)i * n + k] * minv[k] * H[(size_t)j * n + k];
      W[(size_t)i * m + j] = w;
    }
  }
  free(H);
}

/* The box sliding along x at 1 m/s, falling at g h and rocking: the free velocity (v, ω) pushes
 * the −x corners into the ground harder than the +x ones; the stalled start shares the normal
 * impulse R equally between all corners, each sliding at the cone's edge. */
static void test_rocking_box(int d) {
  const int nc = d == 2 ? 2 : 4, m = d * nc;
  const double (*points)[3];
  static const double p2[2][3] = {{-0.5, -0.25, 0}, {0.5, -0.25, 0}};
  static const double p3[4][3] = {{-0.5, -0.5, -0.25}, {0.5, -0.5, -0.25}, {0.5, 0.5, -0.25}, {-0.5, 0.5, -0.25}};
  points = d == 2 ? p2 : p3;
  double mass = 2.0, inertia = 0.2;
  double minv2[3] = {1 / mass, 1 / mass, 1 / inertia}, v2[3] = {1.0, -0.0981, 1.0};
  double minv3[6] = {1 / mass, 1 / mass, 1 / mass, 1 / inertia, 1 / inertia, 1 / inertia};
  double v3[6] = {1.0, 0.0, -0.0981, 0.1, -1.0, 0.0};
  double W[144], q[12], mu[4] = {0.5, 0.5, 0.5, 0.5}, r[12], u[12];
  box_problem(d, nc, points, d == 2 ? minv2 : minv3, d == 2 ? v2 : v3, W, q);
  clt_fc_local_t p = {.dim = d, .contacts = nc};
  memset(&p.W, 0, sizeof p.W);
  p.W.kind = CLT_MATRIX_DENSE;
  p.W.rows = p.W.cols = m;
  p.W.values = W;
  p.q = q;
  p.mu = mu;
  /* the stalled start: total normal impulse R = −m v_N (the box stops falling), shared equally */
  double R = -mass * (d == 2 ? v2[1] : v3[2]);
  for (int a = 0; a < nc; a++) {
    r[d * a] = R / nc;
    r[d * a + 1] = -mu[a] * R / nc; /* sliding along +x: friction along −x */
    if (d == 3) r[d * a + 2] = 0.0;
  }
  double start_error = clt_fc_local_error(&p, r, NULL);
  clt_solver_options_t o = clt_default_solver_options();
  o.tolerance = 1e-13;
  clt_solve_result_t res;
  CHECK(clt_fc_local_active_set(&p, &o, r, &res) == CLT_OK);
  clt_matrix_multiply(&p.W, r, u);
  for (int i = 0; i < m; i++) u[i] += q[i];
  double error = clt_fc_local_error(&p, r, NULL);
  double scale = 0.0;
  for (int i = 0; i < m; i++) scale = fmax(scale, fmax(fabs(r[i]), fabs(q[i])));
  double violation = coulomb_violation(d, nc, mu, r, u, scale);
  int lifted = 0;
  for (int a = 0; a < nc; a++) lifted += fabs(r[d * a]) <= 1e-14 * R && u[d * a] > 1e-6;
  printf("%dD rocking box, %d corners: start error %.2e, active set %.2e after %d guesses "
         "(status %s), Coulomb violation %.2e, %d corners lifted\n",
         d, nc, start_error, error, res.iterations, clt_solver_status_name(res.status), violation, lifted);
  CHECK(start_error > 1e-3);
  CHECK(res.status == CLT_SOLVE_SOLVED);
  CHECK_NEAR(res.residual, error, 1e-15);
  CHECK_LE(error, 1e-13);
  CHECK_LE(violation, 1e-12);
  CHECK(lifted == nc / 2);

  /* a solution as the start: unchanged, solved, no guess tried */
  double again[12];
  memcpy(again, r, sizeof again);
  CHECK(clt_fc_local_active_set(&p, &o, again, &res) == CLT_OK);
  CHECK(res.status == CLT_SOLVE_SOLVED && res.iterations == 0);
  CHECK(memcmp(again, r, (size_t)m * sizeof *r) == 0);
}

static void test_invalid(void) {
  clt_fc_local_t p = {.dim = 4, .contacts = 1};
  double r[3] = {0, 0, 0};
  clt_solve_result_t res;
  CHECK(clt_fc_local_active_set(&p, NULL, r, &res) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_fc_local_active_set(NULL, NULL, r, &res) == CLT_ERR_INVALID_ARGUMENT);
}

int main(void) {
  test_rocking_box(2);
  test_rocking_box(3);
  test_invalid();
  return clt_test_finish();
}
