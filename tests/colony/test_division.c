/* Division (include/clatter/colony.h, SPEC.md §6.3, 002 §5.4): every division conserves the cells'
 * volume and the colony's centre of mass to round-off, gives daughters of length L/2 − d/3 that
 * do not overlap each other (gap ≥ division_gap), turned by at most max_reorientation from the
 * mother's axis, in the plane for a planar world. Growth and division only (no mechanics). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colony_test.h"
#include "math/vec.h"
#include "test_util.h"

/* Segment–segment distance by dense sampling of one segment and exact projection onto the other
 * (independent of the library's closest-point code). */
static double seg_dist(const double a0[3], const double a1[3], const double b0[3], const double b1[3]) {
  double best = INFINITY, db[3];
  clt_v3_sub(db, b1, b0);
  double lb = clt_v3_dot(db, db);
  for (int k = 0; k <= 2000; k++) {
    double s = k / 2000.0, p[3], r[3];
    for (int i = 0; i < 3; i++) p[i] = a0[i] + s * (a1[i] - a0[i]);
    clt_v3_sub(r, p, b0);
    double t = lb > 0 ? clt_v3_dot(r, db) / lb : 0.0;
    t = fmin(fmax(t, 0.0), 1.0);
    double q[3], e[3];
    clt_v3_axpy(q, b0, t, db);
    clt_v3_sub(e, p, q);
    best = fmin(best, clt_v3_norm(e));
  }
  return best;
}

static void run(bool planar) {
  clt_world_t *w = colony_test_world(planar, CLT_LAW_INERTIAL, CLT_CONTACT_MODEL_DEFAULT, 0.01);
  clt_colony_def_t cd = clt_default_colony_def();
  cd.diameter = 0.8;
  cd.division_length = 2.5;
  cd.growth_time = 0.7;
  cd.max_reorientation = 0.3;
  cd.division_gap = 0.05;
  cd.seed = 42;
  cd.initial_position[0] = 1.0;
  cd.initial_position[1] = -2.0;
  cd.initial_position[2] = 0.5;
  cd.initial_axis[0] = 1.0;
  cd.initial_axis[1] = 0.5;
  cd.initial_axis[2] = planar ? 0.0 : 0.7;
  clt_colony_t *c = NULL;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_OK);
  if (!c) return;
  const double d = cd.diameter, f = exp(0.01 / cd.growth_time);
  double worst_v = 0.0, worst_com = 0.0, worst_len = 0.0, min_gap = INFINITY, max_turn = 0.0, min_turn = INFINITY;
  double worst_plane = 0.0;
  int divisions = 0;
  while (clt_colony_cell_count(c) < 64) {
    int n0 = clt_colony_cell_count(c);
    clt_colony_cell_t *before = malloc((size_t)n0 * sizeof *before);
    double vol = 0.0, com[3] = {0, 0, 0};
    for (int i = 0; i < n0; i++) {
      CHECK(clt_colony_get_cell(c, i, &before[i]) == CLT_OK);
      double l = before[i].length * f; /* after this step's growth */
      double v = CLT_PI * d * d / 4.0 * l + CLT_PI * d * d * d / 6.0;
      vol += v;
      clt_v3_axpy(com, com, v, before[i].position);
    }
    clt_v3_scale(com, com, 1.0 / vol);
    CHECK(clt_colony_grow(c) == CLT_OK);
    int n1 = clt_colony_cell_count(c);
    double vol1 = 0.0, com1[3] = {0, 0, 0};
    for (int i = 0; i < n1; i++) {
      clt_colony_cell_t cell;
      CHECK(clt_colony_get_cell(c, i, &cell) == CLT_OK);
      double v = CLT_PI * d * d / 4.0 * cell.length + CLT_PI * d * d * d / 6.0;
      vol1 += v;
      clt_v3_axpy(com1, com1, v, cell.position);
      if (planar) {
        CHECK(cell.position[2] == 0.5); /* x ± s u with u_z = 0: exact */
        worst_plane = fmax(worst_plane, fabs(cell.axis[2]));
      }
    }
    clt_v3_scale(com1, com1, 1.0 / vol1);
    worst_v = fmax(worst_v, fabs(vol1 - vol) / vol);
    CHECK_NEAR(vol1, clt_colony_volume(c), 1e-12 * vol1);
    for (int k = 0; k < 3; k++) worst_com = fmax(worst_com, fabs(com1[k] - com[k]));
    if (n1 > n0) {
      /* synchronous growth: all cells divide together; mother k's sister is cell n0 + k */
      CHECK(n1 == 2 * n0);
      divisions++;
      for (int k = 0; k < n0; k++) {
        clt_colony_cell_t a, b;
        CHECK(clt_colony_get_cell(c, k, &a) == CLT_OK);
        CHECK(clt_colony_get_cell(c, n0 + k, &b) == CLT_OK);
        double lm = before[k].length * f, ld = 0.5 * lm - d / 3.0;
        worst_len = fmax(worst_len, fmax(fabs(a.length - ld), fabs(b.length - ld)));
        CHECK(a.generation == before[k].generation + 1 && b.generation == a.generation);
        double a0[3], a1[3], b0[3], b1[3];
        clt_v3_axpy(a0, a.position, -0.5 * a.length, a.axis);
        clt_v3_axpy(a1, a.position, 0.5 * a.length, a.axis);
        clt_v3_axpy(b0, b.position, -0.5 * b.length, b.axis);
        clt_v3_axpy(b1, b.position, 0.5 * b.length, b.axis);
        min_gap = fmin(min_gap, seg_dist(a0, a1, b0, b1) - d);
        /* the pair's centre is the mother's centre */
        for (int i = 0; i < 3; i++)
          worst_com = fmax(worst_com, fabs(0.5 * (a.position[i] + b.position[i]) - before[k].position[i]));
        for (int s = 0; s < 2; s++) {
          const double *ax = s ? b.axis : a.axis;
          double dot = fmin(1.0, fabs(clt_v3_dot(ax, before[k].axis)));
          double turn = acos(dot);
          max_turn = fmax(max_turn, turn);
          min_turn = fmin(min_turn, turn);
        }
      }
    }
    free(before);
  }
  printf("%s: %d generations, %lld divisions: max relative volume change %.3g, max centre-of-mass shift %.3g, "
         "max daughter length error %.3g, min sister gap %.6f (division_gap %.3f), turn angles [%.4f, %.4f] "
         "(max %.3f)\n",
         planar ? "planar" : "free 3D", divisions, (long long)clt_colony_division_count(c), worst_v, worst_com,
         worst_len, min_gap, cd.division_gap, min_turn, max_turn, cd.max_reorientation);
  CHECK(divisions == 6);
  CHECK(clt_colony_division_count(c) == 63);
  CHECK_LE(worst_v, 1e-14);
  CHECK_LE(worst_com, 1e-13);
  CHECK_LE(worst_len, 1e-14);
  CHECK_LE(cd.division_gap - 1e-6, min_gap); /* sampling resolution of seg_dist: 1e-6 relative */
  CHECK_LE(max_turn, cd.max_reorientation + 1e-12);
  CHECK(min_turn < max_turn);
  CHECK(max_turn > 0.5 * cd.max_reorientation); /* the generator does turn the daughters */
  if (planar) CHECK_LE(worst_plane, 1e-14); /* quaternion round-off */
  clt_colony_destroy(c);
  clt_world_destroy(w);
}

static void invalid(void) {
  clt_world_t *w = colony_test_world(false, CLT_LAW_INERTIAL, CLT_CONTACT_MODEL_DEFAULT, 0.01);
  clt_colony_t *c = (clt_colony_t *)1;
  clt_colony_def_t cd = clt_default_colony_def();
  cd.division_length = 0.5; /* < 2d/3: daughters of negative length */
  CHECK(clt_colony_create(w, &cd, &c) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(c == NULL);
  CHECK(strstr(clt_world_error(w), "division_length") != NULL);
  cd = clt_default_colony_def();
  cd.growth_time = 0.0;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_ERR_INVALID_ARGUMENT);
  cd = clt_default_colony_def();
  cd.initial_axis[0] = 0.0;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_ERR_INVALID_ARGUMENT);
  cd = clt_default_colony_def();
  cd.max_reorientation = 2.0;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_ERR_INVALID_ARGUMENT);
  cd = clt_default_colony_def();
  cd.initial_length = 5.0; /* beyond the division length */
  CHECK(clt_colony_create(w, &cd, &c) == CLT_ERR_INVALID_ARGUMENT);
  cd = clt_default_colony_def();
  cd.material = 3;
  CHECK(clt_colony_create(w, &cd, &c) == CLT_ERR_INVALID_ARGUMENT);
  CHECK(clt_world_body_count(w) == 0);
  clt_world_destroy(w);
  /* 2D worlds have no capsules */
  clt_world_def_t wd = clt_default_world_def();
  wd.dimension = 2;
  wd.gravity[2] = 0.0;
  CHECK(clt_world_create(&wd, &w, NULL, 0) == CLT_OK);
  cd = clt_default_colony_def();
  CHECK(clt_colony_create(w, &cd, &c) == CLT_ERR_INVALID_ARGUMENT);
  clt_world_destroy(w);
}

int main(void) {
  run(false);
  run(true);
  invalid();
  return clt_test_finish();
}
