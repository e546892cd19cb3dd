/* Growth (include/clatter/colony.h, SPEC.md §6.3): L(t) = L₀ e^{t/τ} exactly (the step multiplies
 * by e^{h/τ}, so after n steps L = L₀ e^{nh/τ} up to n roundings), the first division comes at
 * step m = ⌈τ ln(L_div/L₀)/h⌉, and after g generations (divisions of the synchronously growing
 * lineage) the colony has exactly 2^g cells, all of generation g. Growth and division only (no
 * mechanics, so no contacts). */
#include <stdio.h>

#include "colony_test.h"
#include "test_util.h"

int main(void) {
  const double h = 0.01, tau = 1.0, d = 1.0, ldiv = 3.0;
  clt_world_t *w = colony_test_world(true, CLT_LAW_OVERDAMPED, CLT_CONTACT_MODEL_RELCP, h);
  clt_colony_def_t cd = clt_default_colony_def();
  cd.diameter = d;
  cd.growth_time = tau;
  cd.division_length = ldiv;
  cd.seed = 3;
  clt_colony_t *c = NULL;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_OK);
  if (!c) return clt_test_finish();
  const double l0 = 0.5 * ldiv - d / 3.0; /* the default first length: a daughter's */
  clt_colony_cell_t cell;
  CHECK(clt_colony_get_cell(c, 0, &cell) == CLT_OK);
  CHECK(cell.length == l0);
  /* m: the first step count at which L₀ e^{mh/τ} ≥ L_div (94.45 → 95, far from an integer) */
  double steps_exact = tau * log(ldiv / l0) / h;
  int m = (int)ceil(steps_exact);
  CHECK(fabs(steps_exact - round(steps_exact)) > 0.1);
  double worst = 0.0;
  for (int n = 1; n < m; n++) {
    CHECK(clt_colony_grow(c) == CLT_OK);
    CHECK(clt_colony_get_cell(c, 0, &cell) == CLT_OK);
    double want = l0 * exp(n * h / tau);
    worst = fmax(worst, fabs(cell.length - want) / want);
  }
  printf("growth: max relative error of L against L0 exp(t/tau) over %d steps: %.3g\n", m - 1, worst);
  CHECK_LE(worst, 1e-13);
  CHECK(clt_colony_cell_count(c) == 1);
  /* One length per generation, as the colony must evolve it: the daughters of a mother of length
   * L ≥ L_div have L/2 − d/3 (a little more than L₀ when L overshoots L_div, so later generations
   * may take m − 1 steps). */
  int bad = 0, g = 0, n = m - 1;
  double lg = l0 * exp((m - 1) * h / tau), f = exp(h / tau);
  const int generations = 7;
  while (g < generations) {
    CHECK(clt_colony_grow(c) == CLT_OK);
    n++;
    lg *= f;
    if (lg >= ldiv) {
      lg = 0.5 * lg - d / 3.0;
      g++;
    }
    if (clt_colony_cell_count(c) != 1 << g) bad++;
  }
  CHECK(n >= generations * (m - 1) && n <= generations * m);
  CHECK(bad == 0);
  int count = clt_colony_cell_count(c);
  printf("after %d steps (%d generations of %d or %d steps): %d cells, %lld divisions\n", n, generations,
         m - 1, m, count, (long long)clt_colony_division_count(c));
  CHECK(count == 1 << generations);
  CHECK(clt_world_body_count(w) == count);
  CHECK(clt_colony_division_count(c) == count - 1);
  int wrong_generation = 0;
  for (int i = 0; i < count; i++) {
    CHECK(clt_colony_get_cell(c, i, &cell) == CLT_OK);
    if (cell.generation != generations) wrong_generation++;
  }
  CHECK(wrong_generation == 0);
  clt_colony_destroy(c);
  clt_world_destroy(w);
  return clt_test_finish();
}
