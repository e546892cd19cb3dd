/* A small friction-structured LCP of SPEC.md §1: a 2D box (half sizes a × b, mass m) resting on
 * the ground on its two bottom corners, with per-contact unknowns (c_n, β₁, β₂, λ), friction
 * directions ±t. Shared by the BGS tests. */
#ifndef CLATTER_TESTS_LCP_TEST_FRICTION_H
#define CLATTER_TESTS_LCP_TEST_FRICTION_H

typedef struct box2d_lcp_t {
  double A[64], b[8];
  double rows[6][3]; /* Jacobian rows n₁, d₁₁, d₁₂, n₂, d₂₁, d₂₂ */
  double vstar[3], minv[3];
} box2d_lcp_t;

/* v: initial (vx, vy, ω); force: applied horizontal force; h step; μ friction. */
static inline void box2d_build(box2d_lcp_t *p, const double v[3], double force, double h,
                               double mu) {
  const double a = 0.5, bh = 0.25, m = 1.0, g = 9.81;
  const double inertia = m * (4.0 * a * a + 4.0 * bh * bh) / 12.0;
  p->minv[0] = p->minv[1] = 1.0 / m;
  p->minv[2] = 1.0 / inertia;
  p->vstar[0] = v[0] + h * force / m;
  p->vstar[1] = v[1] - h * g;
  p->vstar[2] = v[2];
  for (int c = 0; c < 2; c++) {
    double rx = c == 0 ? -a : a, ry = -bh;
    /* n = (0, 1): ρ × n = ρx; t = (1, 0): ρ × t = −ρy (SPEC.md §0, 2D Jacobian row). */
    double *n = p->rows[3 * c], *d1 = p->rows[3 * c + 1], *d2 = p->rows[3 * c + 2];
    n[0] = 0.0, n[1] = 1.0, n[2] = rx;
    d1[0] = 1.0, d1[1] = 0.0, d1[2] = -ry;
    for (int k = 0; k < 3; k++) d2[k] = -d1[k];
  }
  /* Variable order per contact c: 4c + (0: c_n, 1: β₁, 2: β₂, 3: λ). Impulse var → row index. */
  int row_of[8] = {0, 1, 2, -1, 3, 4, 5, -1};
  for (int i = 0; i < 64; i++) p->A[i] = 0.0;
  for (int i = 0; i < 8; i++) {
    int c = i / 4, kind = i % 4;
    if (kind == 3) { /* ζ = μ c_n − β₁ − β₂ */
      p->A[i * 8 + 4 * c] = mu;
      p->A[i * 8 + 4 * c + 1] = -1.0;
      p->A[i * 8 + 4 * c + 2] = -1.0;
      p->b[i] = 0.0;
      continue;
    }
    const double *ri = p->rows[row_of[i]];
    for (int j = 0; j < 8; j++) {
      if (row_of[j] < 0) continue;
      const double *rj = p->rows[row_of[j]];
      double s = 0.0;
      for (int k = 0; k < 3; k++) s += ri[k] * p->minv[k] * rj[k];
      p->A[i * 8 + j] = s;
    }
    if (kind == 1 || kind == 2) p->A[i * 8 + 4 * c + 3] = 1.0; /* + e λ */
    double s = 0.0;
    for (int k = 0; k < 3; k++) s += ri[k] * p->vstar[k];
    p->b[i] = s;
  }
}

/* v⁺ = v* + M⁻¹ Σ rows · impulses. */
static inline void box2d_velocity(const box2d_lcp_t *p, const double *z, double vplus[3]) {
  int row_of[8] = {0, 1, 2, -1, 3, 4, 5, -1};
  for (int k = 0; k < 3; k++) vplus[k] = p->vstar[k];
  for (int i = 0; i < 8; i++)
    if (row_of[i] >= 0)
      for (int k = 0; k < 3; k++) vplus[k] += p->minv[k] * p->rows[row_of[i]][k] * z[i];
}

#endif
