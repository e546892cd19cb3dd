/* Ring (torus) pairs through clt_collide (src/collision/smooth_torus.c; SPEC.md §5, 002 §5.5) in
 * the near-degenerate poses where the closest core points are not unique or nearly so (issue 6:
 * "robust to near-degenerate poses"): coaxial rings (a whole circle of closest pairs), nearly
 * coaxial ones (tilt and offset 1e-12 to 1e-3), coplanar rings side by side and nested, a sphere
 * on or near the ring's axis (every circle point equally far), and a capsule along the axis
 * through the hole (exactly parallel, or nearly). Separated, touching and overlapping up to half
 * the smaller minor radius. References written here from the definitions: closed forms for the
 * exactly degenerate poses (coaxial circles √((R_A − R_B)² + h²); coplanar circles
 * |D − R_A − R_B| or |R_A − R_B| − D; a point at axial height h and radius ρ √((ρ − R)² + h²); a
 * segment parallel to the axis: that with h the distance from the plane to the segment), and for
 * the nearly degenerate ones the minimum over 1024 sampled angles of the closed-form point–circle
 * distance, its 4 lowest local minima refined by golden section. Checked: no failure, Φ, witness points on the surfaces with
 * the outward normals ±n, p_B − p_A = Φ n, the swapped order. */
#include <stdio.h>

#include "capsule_ref.h"

typedef struct circle_t {
  double c[3], d[3], R, r; /* centre, axis (unit), major and minor radius */
} circle_t;

static circle_t circle_of(const clt_shape_def_t *def, const clt_collide_pose_t *p) {
  circle_t k;
  double m[3][3];
  cr_qmat(m, p->orientation);
  for (int i = 0; i < 3; i++) k.c[i] = p->position[i], k.d[i] = m[i][2];
  k.R = def->major_radius;
  k.r = def->minor_radius;
  return k;
}
/* Distance from x to the circle's core and the closest core point (any on the axis). */
static double point_circle(const circle_t *k, const double x[3], double q[3]) {
  double w[3], pl[3];
  for (int i = 0; i < 3; i++) w[i] = x[i] - k->c[i];
  double h = cr_dot(w, k->d);
  for (int i = 0; i < 3; i++) pl[i] = w[i] - h * k->d[i];
  double rho = cr_norm(pl);
  if (rho > 0.0) {
    for (int i = 0; i < 3; i++) q[i] = k->c[i] + k->R * pl[i] / rho;
  } else {
    double t[3], h2[3] = {1.0, 0.0, 0.0};
    if (fabs(k->d[0]) > 0.6) h2[0] = 0.0, h2[1] = 1.0;
    cr_cross(t, k->d, h2);
    cr_normalize(t);
    for (int i = 0; i < 3; i++) q[i] = k->c[i] + k->R * t[i];
  }
  return hypot(rho - k->R, h);
}
static void circle_at(const circle_t *k, double t, double x[3]) {
  double e1[3], e2[3], h[3] = {1.0, 0.0, 0.0};
  if (fabs(k->d[0]) > 0.6) h[0] = 0.0, h[1] = 1.0;
  cr_cross(e1, k->d, h);
  cr_normalize(e1);
  cr_cross(e2, k->d, e1);
  for (int i = 0; i < 3; i++) x[i] = k->c[i] + k->R * (cos(t) * e1[i] + sin(t) * e2[i]);
}
/* Circle–circle core distance: 4096 angles of A, golden refinement about the best three. */
static double circle_circle(const circle_t *a, const circle_t *b) {
  enum { M = 1024 };
  static double f[M];
  double x[3], q[3], best = INFINITY;
  for (int i = 0; i < M; i++) {
    circle_at(a, 2.0 * REF_PI * i / M, x);
    f[i] = point_circle(b, x, q);
    best = fmin(best, f[i]);
  }
  /* the (up to) 4 lowest sampled local minima */
  int pick[4], np = 0;
  for (int i = 0; i < M; i++) {
    if (!(f[i] <= f[(i + 1) % M] && f[i] <= f[(i + M - 1) % M])) continue;
    if (np < 4) {
      pick[np++] = i;
    } else {
      int worst = 0;
      for (int j = 1; j < 4; j++)
        if (f[pick[j]] > f[pick[worst]]) worst = j;
      if (f[i] < f[pick[worst]]) pick[worst] = i;
    }
  }
  for (int m = 0; m < np; m++) {
    int i = pick[m];
    const double g = 0.6180339887498949;
    double lo = 2.0 * REF_PI * (i - 1) / M, hi = 2.0 * REF_PI * (i + 1) / M;
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1, f2;
    circle_at(a, x1, x);
    f1 = point_circle(b, x, q);
    circle_at(a, x2, x);
    f2 = point_circle(b, x, q);
    for (int it = 0; it < 100; it++) {
      if (f1 <= f2) {
        hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo);
        circle_at(a, x1, x);
        f1 = point_circle(b, x, q);
      } else {
        lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo);
        circle_at(a, x2, x);
        f2 = point_circle(b, x, q);
      }
    }
    best = fmin(best, fmin(f1, f2));
  }
  return best;
}

static clt_shape_def_t ring_def(double big, double small) {
  clt_shape_def_t d = clt_default_shape_def(CLT_SHAPE_TORUS);
  d.major_radius = big;
  d.minor_radius = small;
  return d;
}

/* Witness x on ring k with outward normal sign·n. */
static void ring_witness(cr_stats_t *st, const circle_t *k, const double x[3], const double n[3], double sign) {
  double q[3];
  double dist = point_circle(k, x, q);
  cr_track(&st->surface, fabs(dist - k->r));
  double m[3] = {(x[0] - q[0]) / dist, (x[1] - q[1]) / dist, (x[2] - q[2]) / dist};
  double e[3] = {m[0] - sign * n[0], m[1] - sign * n[1], m[2] - sign * n[2]};
  cr_track(&st->normal, cr_norm(e));
}

/* One pair in both orders; returns Φ (NAN on failure). */
static double collide_both(cr_stats_t *st, const clt_shape_def_t *da, const clt_collide_pose_t *pa,
                           const clt_shape_def_t *db, const clt_collide_pose_t *pb, clt_contact_point_t *c,
                           int *failed) {
  clt_contact_point_t sw[4];
  int n = clt_collide(da, pa, db, pb, 1e3, c, 4), m = clt_collide(db, pb, da, pa, 1e3, sw, 4);
  if (n != 1 || m != 1) {
    (*failed)++;
    return NAN;
  }
  st->points++;
  cr_check_point(st, c);
  cr_track(&st->swap, fabs(c->distance - sw[0].distance));
  return c->distance;
}

enum { COAXIAL, NEARLY_COAXIAL, COPLANAR, SPHERE_AXIS, CAPSULE_AXIS };
static const char *names[] = {"ring-ring coaxial", "ring-ring nearly coaxial", "ring-ring coplanar",
                              "ring-sphere on axis", "ring-capsule along axis"};

static void family(int kind, int poses, uint64_t seed) {
  rng_t rng = {seed};
  cr_stats_t st;
  cr_stats_init(&st, names[kind]);
  int failed = 0;
  for (int i = 0; i < poses; i++) {
    double ra = rng_uniform(&rng, 0.5, 1.5), sa = rng_uniform(&rng, 0.05, 0.3);
    double rb = rng_uniform(&rng, 0.5, 1.5), sb = rng_uniform(&rng, 0.05, 0.3);
    double ca[3], d[3], cb[3], db[3];
    for (int k = 0; k < 3; k++) ca[k] = rng_uniform(&rng, -1.0, 1.0);
    cr_unit(&rng, d);
    double smin = fmin(sa, sb), target; /* the core distance wanted: r_A + r_B + δ */
    switch (i % 4) {
      case 0: target = sa + sb; break;
      case 1: target = sa + sb - rng_uniform(&rng, 0.0, 0.5 * smin); break;
      case 2: target = sa + sb + rng_uniform(&rng, 0.0, 0.5); break;
      default: target = sa + sb + rng_uniform(&rng, -0.5 * smin, 0.5); break;
    }
    clt_shape_def_t a = ring_def(ra, sa), b = ring_def(rb, sb);
    double exact = NAN;
    if (kind == COAXIAL || kind == NEARLY_COAXIAL) {
      /* heights h with √((R_A − R_B)² + h²) = target when possible, else the radii differ by it */
      double dr = ra - rb, h;
      if (fabs(dr) < target) {
        h = sqrt(target * target - dr * dr) * (rng_int(&rng, 0, 1) ? 1.0 : -1.0);
      } else {
        rb = ra - (dr > 0 ? target : -target);
        if (rb < 0.2) rb = ra + target; /* keep B a ring */
        b.major_radius = rb;
        h = 0.0;
      }
      for (int k = 0; k < 3; k++) cb[k] = ca[k] + h * d[k], db[k] = d[k];
      exact = hypot(ra - rb, h) - sa - sb;
      if (kind == NEARLY_COAXIAL) {
        double axis[3], t[3], off[3];
        cr_perp(&rng, d, axis);
        cr_rotate(t, d, axis, pow(10.0, rng_uniform(&rng, -12.0, -3.0)));
        for (int k = 0; k < 3; k++) db[k] = t[k];
        cr_normalize(db);
        cr_perp(&rng, d, off);
        double o = pow(10.0, rng_uniform(&rng, -12.0, -3.0));
        for (int k = 0; k < 3; k++) cb[k] += o * off[k];
        exact = NAN;
      }
    } else if (kind == COPLANAR) {
      double t[3];
      cr_perp(&rng, d, t);
      double D;
      if (i % 2) { /* side by side: D − R_A − R_B = target */
        D = ra + rb + target;
      } else { /* nested: |R_A − R_B| − D = target, B inside A */
        rb = rng_uniform(&rng, 0.2, 0.6) * ra;
        b.major_radius = rb;
        D = ra - rb - target;
        if (D < 0.0) { /* too tight to nest: concentric, core distance R_A − R_B */
          D = 0.0;
        }
      }
      for (int k = 0; k < 3; k++) cb[k] = ca[k] + D * t[k], db[k] = (i % 3 ? 1.0 : -1.0) * d[k];
      exact = (i % 2) ? D - ra - rb - sa - sb : ra - rb - D - sa - sb;
    } else {
      /* sphere / capsule on the axis: point at axial height h, radius ρ (0 or tiny); B's radius
       * set so that Φ = δ: touching, overlapping by up to a quarter of r_A (≤ half of either
       * minor radius: r_B ≥ 0.2 here), or apart */
      ra = rng_uniform(&rng, 0.7, 1.5);
      a.major_radius = ra;
      double rho = i % 3 == 0 ? 0.0 : pow(10.0, rng_uniform(&rng, -12.0, -3.0)), off[3];
      cr_perp(&rng, d, off);
      double delta;
      switch (i % 4) {
        case 0: delta = 0.0; break;
        case 1: delta = -rng_uniform(&rng, 0.0, 0.25 * sa); break;
        case 2: delta = rng_uniform(&rng, 0.0, 0.2); break;
        default: delta = rng_uniform(&rng, -0.25 * sa, 0.2); break;
      }
      double h, axial;
      if (kind == SPHERE_AXIS) {
        h = rng_uniform(&rng, 0.0, 0.5);
        axial = h;
        b = clt_default_shape_def(CLT_SHAPE_SPHERE);
      } else { /* through the hole (axial gap 0) half of the time */
        double len = rng_uniform(&rng, 0.2, 2.0);
        b = clt_default_shape_def(CLT_SHAPE_CAPSULE);
        b.length = len;
        h = i % 2 ? rng_uniform(&rng, 0.0, 0.5 * len) : 0.5 * len + rng_uniform(&rng, 0.0, 0.5);
        axial = fmax(0.0, h - 0.5 * len);
      }
      sb = hypot(ra - rho, axial) - sa - delta;
      b.radius = sb;
      exact = delta;
      if (rng_int(&rng, 0, 1)) h = -h;
      for (int k = 0; k < 3; k++) cb[k] = ca[k] + h * d[k] + rho * off[k], db[k] = d[k];
    }
    clt_collide_pose_t pa = cr_pose(&rng, ca, d), pb = cr_pose(&rng, cb, db);
    circle_t ka = circle_of(&a, &pa);
    clt_contact_point_t c;
    double phi = collide_both(&st, &a, &pa, &b, &pb, &c, &failed);
    if (isnan(phi)) continue;
    double ref;
    if (kind == SPHERE_AXIS) {
      double q[3];
      ref = point_circle(&ka, pb.position, q) - sa - sb;
    } else if (kind == CAPSULE_AXIS) {
      cr_capsule_t cap = cr_capsule(&b, &pb);
      double best = INFINITY, x[3], q[3];
      for (int j = 0; j <= 1000; j++) {
        cr_at(&cap, j / 1000.0, x);
        best = fmin(best, point_circle(&ka, x, q));
      }
      ref = best - sa - sb;
      /* the sampled segment is exact to O(spacing²) here; the closed form is exact */
      if (!isnan(exact)) cr_track(&st.phi, fabs(phi - exact));
      cr_track(&st.phi, fmax(0.0, phi - ref)); /* Φ never above a sampled value */
      cr_count(&st, exact);
      ring_witness(&st, &ka, c.point_a, c.normal, 1.0);
      cr_check_capsule_witness(&st, &cap, c.point_b, c.normal, -1.0);
      continue;
    } else {
      circle_t kb = circle_of(&b, &pb);
      ref = circle_circle(&ka, &kb) - sa - sb;
      ring_witness(&st, &kb, c.point_b, c.normal, -1.0);
    }
    cr_count(&st, ref);
    cr_track(&st.phi, fabs(phi - ref));
    if (!isnan(exact)) cr_track(&st.phi, fabs(phi - exact));
    ring_witness(&st, &ka, c.point_a, c.normal, 1.0);
    if (kind == SPHERE_AXIS) {
      cr_capsule_t ball = {{pb.position[0], pb.position[1], pb.position[2]}, {pb.position[0], pb.position[1], pb.position[2]}, sb};
      cr_check_capsule_witness(&st, &ball, c.point_b, c.normal, -1.0);
    }
  }
  cr_print(&st);
  printf("%-28s failed %d\n", "", failed);
  CHECK(failed == 0);
  CHECK_LE(st.phi, 1e-9);
  CHECK_LE(st.surface, 1e-9);
  CHECK_LE(st.identity, 1e-10);
  CHECK_LE(st.normal, 1e-6);
  CHECK_LE(st.swap, 1e-9);
  CHECK(st.overlapping > 0 && st.separated > 0);
}

int main(void) {
  for (int k = COAXIAL; k <= CAPSULE_AXIS; k++) family(k, 400, 1400 + (uint64_t)k);
  return clt_test_finish();
}
