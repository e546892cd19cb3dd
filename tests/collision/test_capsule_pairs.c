/* Capsule (spherocylinder) pairs through clt_collide (src/collision/narrowphase_3d.c, SPEC.md §5):
 * capsule–capsule, capsule–sphere and capsule–half-space on structured near-degenerate families of
 * poses — parallel, antiparallel, nearly parallel (1e-12 to 1e-3 rad), crossed, collinear end to
 * end, zero-length capsules — separated, touching and overlapping up to half the smaller radius
 * (issue 6). References (capsule_ref.h, independent of src/collision): the core distance by golden
 * section (a convex function) minus the radii, exact while the cores do not meet (always here:
 * overlaps stay below half the smaller radius); brute-force sampling of both surfaces for a subset
 * of separated poses; the outward normals at the witness points; both argument orders; and the
 * answer's invariance under a large common translation (1e3). */
#include <stdio.h>
#include <stdlib.h>

#include "capsule_ref.h"

enum { PARALLEL, ANTIPARALLEL, NEARLY_PARALLEL, CROSSED, COLLINEAR, ZERO_LENGTH, GENERIC };
static const char *family_name[] = {"parallel", "antiparallel", "nearly parallel", "crossed", "collinear",
                                    "zero length", "generic"};

static clt_shape_def_t capsule_def(double r, double len) {
  clt_shape_def_t d = clt_default_shape_def(CLT_SHAPE_CAPSULE);
  d.radius = r;
  d.length = len;
  return d;
}

/* δ: touching, overlapping (down to −r_min/2), separated, or either, in turn. */
static double pick_delta(rng_t *r, int i, double rmin) {
  switch (i % 4) {
    case 0: return 0.0;
    case 1: return rng_uniform(r, -0.5 * rmin, 0.0);
    case 2: return rng_uniform(r, 0.0, 0.5);
    default: return rng_uniform(r, -0.5 * rmin, 0.5);
  }
}

/* Runs clt_collide in both orders and with both poses shifted far away; checks everything that
 * does not depend on the family; returns Φ (NAN when no single point came back). */
static double collide_checked(cr_stats_t *st, const clt_shape_def_t *da, const clt_collide_pose_t *pa,
                              const clt_shape_def_t *db, const clt_collide_pose_t *pb, clt_contact_point_t *out) {
  clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS], sw[CLT_MAX_PAIR_CONTACTS], far[CLT_MAX_PAIR_CONTACTS];
  int n = clt_collide(da, pa, db, pb, 1e3, c, CLT_MAX_PAIR_CONTACTS);
  int m = clt_collide(db, pb, da, pa, 1e3, sw, CLT_MAX_PAIR_CONTACTS);
  CHECK(n == 1 && m == 1);
  if (n != 1 || m != 1) return NAN;
  st->points += n;
  cr_check_point(st, &c[0]);
  cr_track(&st->swap, fabs(c[0].distance - sw[0].distance));
  double e[3] = {c[0].normal[0] + sw[0].normal[0], c[0].normal[1] + sw[0].normal[1], c[0].normal[2] + sw[0].normal[2]};
  cr_track(&st->swap, cr_norm(e));
  clt_collide_pose_t qa = *pa, qb = *pb;
  const double shift[3] = {1e3, -2e3, 5e2};
  for (int k = 0; k < 3; k++) qa.position[k] += shift[k], qb.position[k] += shift[k];
  int f = clt_collide(da, &qa, db, &qb, 1e3, far, CLT_MAX_PAIR_CONTACTS);
  CHECK(f == 1);
  if (f == 1) cr_track(&st->shift, fabs(far[0].distance - c[0].distance) / 1e3);
  *out = c[0];
  return c[0].distance;
}

static void sampled_check(cr_stats_t *st, const cr_capsule_t *a, const cr_capsule_t *b, double phi) {
  static double qa[1200][3], qb[1200][3];
  double ha, hb;
  int na = cr_samples(a, 500, qa, &ha), nb = cr_samples(b, 500, qb, &hb);
  double d = cr_sampled_distance((const double(*)[3])qa, na, (const double(*)[3])qb, nb);
  st->sampled++;
  st->sampled_below = fmin(st->sampled_below, d - phi);
  st->sampled_above = fmax(st->sampled_above, d - phi);
  CHECK_LE(d - phi, ha + hb);
}

static void capsule_capsule(int family, int poses, uint64_t seed) {
  rng_t rng = {seed};
  cr_stats_t st;
  char name[64];
  snprintf(name, sizeof name, "capsule-capsule %s", family_name[family]);
  cr_stats_init(&st, name);
  int exact = 0;
  for (int i = 0; i < poses; i++) {
    double ra = rng_uniform(&rng, 0.1, 0.8), rb = rng_uniform(&rng, 0.1, 0.8);
    double la = rng_uniform(&rng, 0.2, 2.5), lb = rng_uniform(&rng, 0.2, 2.5);
    if (family == ZERO_LENGTH) {
      int which = i % 3;
      if (which != 1) la = 0.0;
      if (which != 0) lb = 0.0;
    }
    double rmin = fmin(ra, rb), delta = pick_delta(&rng, i, rmin);
    double ca[3], da[3], db[3], cb[3], n[3];
    for (int k = 0; k < 3; k++) ca[k] = rng_uniform(&rng, -1.0, 1.0);
    cr_unit(&rng, da);
    bool known = false; /* Φ = δ by construction */
    switch (family) {
      case PARALLEL:
      case ANTIPARALLEL:
      case NEARLY_PARALLEL: {
        for (int k = 0; k < 3; k++) db[k] = family == ANTIPARALLEL ? -da[k] : da[k];
        cr_perp(&rng, da, n);
        double s = rng_uniform(&rng, -0.5 * (la + lb) - 0.3, 0.5 * (la + lb) + 0.3);
        for (int k = 0; k < 3; k++) cb[k] = ca[k] + (ra + rb + delta) * n[k] + s * da[k];
        known = fabs(s) <= 0.5 * (la + lb) && family != NEARLY_PARALLEL;
        if (family == NEARLY_PARALLEL) {
          double axis[3], t = pow(10.0, rng_uniform(&rng, -15.0, -3.0)), tmp[3];
          cr_perp(&rng, da, axis);
          cr_rotate(tmp, db, axis, rng_int(&rng, 0, 1) ? t : -t);
          for (int k = 0; k < 3; k++) db[k] = tmp[k];
          cr_normalize(db);
        }
        break;
      }
      case CROSSED: {
        do {
          cr_unit(&rng, db);
          cr_cross(n, da, db);
        } while (cr_norm(n) < 0.05);
        cr_normalize(n);
        if (rng_int(&rng, 0, 1)) for (int k = 0; k < 3; k++) n[k] = -n[k];
        double s = rng_uniform(&rng, 0.05, 0.95), t = rng_uniform(&rng, 0.05, 0.95);
        for (int k = 0; k < 3; k++) {
          double core_a = ca[k] + (s - 0.5) * la * da[k];
          double core_b = core_a + (ra + rb + delta) * n[k];
          cb[k] = core_b - (t - 0.5) * lb * db[k];
        }
        known = true;
        break;
      }
      case COLLINEAR: {
        double sign = rng_int(&rng, 0, 1) ? 1.0 : -1.0, off = pow(10.0, rng_uniform(&rng, -14.0, -6.0));
        cr_perp(&rng, da, n);
        for (int k = 0; k < 3; k++) {
          db[k] = sign * da[k];
          cb[k] = ca[k] + (0.5 * la + 0.5 * lb + ra + rb + delta) * da[k] + off * n[k];
        }
        break;
      }
      default: { /* zero length / generic: B around A at random, overlap capped below */
        cr_unit(&rng, db);
        double dir[3];
        cr_unit(&rng, dir);
        double reach = 0.5 * la + 0.5 * lb + ra + rb;
        double dist = rng_uniform(&rng, 0.0, reach + 0.5);
        for (int k = 0; k < 3; k++) cb[k] = ca[k] + dist * dir[k];
        break;
      }
    }
    clt_shape_def_t sa = capsule_def(ra, la), sb = capsule_def(rb, lb);
    clt_collide_pose_t pa = cr_pose(&rng, ca, da), pb = cr_pose(&rng, cb, db);
    cr_capsule_t a = cr_capsule(&sa, &pa), b = cr_capsule(&sb, &pb);
    double phi_ref = cr_core_distance(&a, &b) - ra - rb;
    if (phi_ref < -0.5 * rmin - 1e-12) { /* beyond this test's range (generic placements only) */
      CHECK(family == ZERO_LENGTH || family == GENERIC);
      i--;
      continue;
    }
    cr_count(&st, phi_ref);
    clt_contact_point_t c;
    double phi = collide_checked(&st, &sa, &pa, &sb, &pb, &c);
    if (isnan(phi)) continue;
    cr_track(&st.phi, fabs(phi - phi_ref));
    if (getenv("CR_DEBUG") && fabs(phi - phi_ref) > 1e-11)
      fprintf(stderr, "%s pose %d: phi %.15g ref %.15g la %g lb %g da.db-1 %.3e\n", name, i, phi, phi_ref, la, lb, cr_dot(da, db) - 1.0);
    if (known) {
      exact++;
      cr_track(&st.phi, fabs(phi - delta));
    }
    cr_check_capsule_witness(&st, &a, c.point_a, c.normal, 1.0);
    cr_check_capsule_witness(&st, &b, c.point_b, c.normal, -1.0);
    if (phi_ref > 1e-9 && i % 20 == 2) sampled_check(&st, &a, &b, phi);
  }
  cr_assert(&st, 1e-11);
  if (family == PARALLEL || family == ANTIPARALLEL || family == CROSSED) CHECK(exact > poses / 3);
  CHECK(st.overlapping > poses / 10 && st.separated > poses / 8);
  if (family != ZERO_LENGTH && family != GENERIC) CHECK(st.touching > poses / 20);
}

static void capsule_sphere(int family, int poses, uint64_t seed) {
  rng_t rng = {seed};
  cr_stats_t st;
  char name[64];
  snprintf(name, sizeof name, "capsule-sphere %s", family_name[family]);
  cr_stats_init(&st, name);
  for (int i = 0; i < poses; i++) {
    double ra = rng_uniform(&rng, 0.1, 0.8), rs = rng_uniform(&rng, 0.1, 1.2);
    double la = family == ZERO_LENGTH ? 0.0 : rng_uniform(&rng, 0.2, 2.5);
    double rmin = fmin(ra, rs), delta = pick_delta(&rng, i, rmin);
    double ca[3], da[3], cs[3], dir[3], q[3];
    for (int k = 0; k < 3; k++) ca[k] = rng_uniform(&rng, -1.0, 1.0);
    cr_unit(&rng, da);
    clt_shape_def_t sa = capsule_def(ra, la), ss = clt_default_shape_def(CLT_SHAPE_SPHERE);
    ss.radius = rs;
    clt_collide_pose_t pa = cr_pose(&rng, ca, da);
    cr_capsule_t a = cr_capsule(&sa, &pa);
    /* A point around A, then moved along the ray from its closest core point (which stays the
     * closest) to core distance r_a + r_s + δ: Φ = δ exactly. Half of the points lie beside the
     * cylinder (closest point inside the segment), half beyond the ends. */
    double s = i % 2 ? rng_uniform(&rng, 0.0, 1.0) : rng_uniform(&rng, -0.5, 1.5), x[3];
    cr_at(&a, s, x);
    cr_unit(&rng, dir);
    if (i % 2) { /* beside the cylinder: dir ⊥ axis */
      double t[3];
      cr_perp(&rng, da, t);
      for (int k = 0; k < 3; k++) dir[k] = t[k];
    }
    for (int k = 0; k < 3; k++) x[k] += 0.3 * dir[k];
    double d0 = cr_point_core(&a, x, q), u[3];
    if (!(d0 > 1e-6)) {
      i--;
      continue;
    }
    for (int k = 0; k < 3; k++) u[k] = (x[k] - q[k]) / d0;
    cr_axpy(cs, q, ra + rs + delta, u);
    clt_collide_pose_t ps = cr_pose(&rng, cs, u);
    cr_capsule_t b = {{cs[0], cs[1], cs[2]}, {cs[0], cs[1], cs[2]}, rs};
    double phi_ref = cr_core_distance(&a, &b) - ra - rs;
    cr_count(&st, phi_ref);
    clt_contact_point_t c;
    double phi = collide_checked(&st, &sa, &pa, &ss, &ps, &c);
    if (isnan(phi)) continue;
    cr_track(&st.phi, fabs(phi - phi_ref));
    cr_track(&st.phi, fabs(phi - delta));
    cr_check_capsule_witness(&st, &a, c.point_a, c.normal, 1.0);
    cr_check_capsule_witness(&st, &b, c.point_b, c.normal, -1.0);
    if (phi_ref > 1e-9 && i % 20 == 2) sampled_check(&st, &a, &b, phi);
  }
  cr_assert(&st, 1e-11);
  CHECK(st.touching > poses / 8 && st.overlapping > poses / 8 && st.separated > poses / 8);
}

/* Capsule against a half-space (on a rotated body, normal not unit in the def): one point per end
 * cap (one for a zero-length capsule, whose caps coincide), each Φ the cap's height − r, the
 * deepest one on the capsule surface; points beyond max_distance left out. */
enum { FLAT, NEAR_FLAT, TILTED, UPRIGHT, ZERO };
static const char *plane_family[] = {"flat", "nearly flat", "tilted", "upright", "zero length"};

static void capsule_halfspace(int family, int poses, uint64_t seed) {
  rng_t rng = {seed};
  cr_stats_t st;
  char name[64];
  snprintf(name, sizeof name, "capsule-halfspace %s", plane_family[family]);
  cr_stats_init(&st, name);
  int two_points = 0, one_point = 0;
  for (int i = 0; i < poses; i++) {
    double r = rng_uniform(&rng, 0.1, 0.8), len = family == ZERO ? 0.0 : rng_uniform(&rng, 0.2, 2.5);
    double delta = pick_delta(&rng, i, r);
    clt_shape_def_t plane = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
    double nl[3];
    cr_unit(&rng, nl);
    double scale = rng_uniform(&rng, 0.5, 3.0);
    for (int k = 0; k < 3; k++) plane.normal[k] = scale * nl[k], plane.point[k] = rng_uniform(&rng, -0.5, 0.5);
    double hc[3] = {rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1)}, hz[3];
    cr_unit(&rng, hz);
    clt_collide_pose_t ph = cr_pose(&rng, hc, hz);
    double m3[3][3], m[3], p[3];
    cr_qmat(m3, ph.orientation);
    for (int k = 0; k < 3; k++) {
      m[k] = m3[k][0] * nl[0] + m3[k][1] * nl[1] + m3[k][2] * nl[2];
      p[k] = hc[k] + m3[k][0] * plane.point[0] + m3[k][1] * plane.point[1] + m3[k][2] * plane.point[2];
    }
    double d[3];
    switch (family) {
      case FLAT: cr_perp(&rng, m, d); break;
      case NEAR_FLAT: {
        double t[3], axis[3];
        cr_perp(&rng, m, t);
        cr_cross(axis, m, t);
        cr_rotate(d, t, axis, pow(10.0, rng_uniform(&rng, -12.0, -3.0)));
        cr_normalize(d);
        break;
      }
      case UPRIGHT:
        for (int k = 0; k < 3; k++) d[k] = (i % 2 ? 1.0 : -1.0) * m[k];
        break;
      default: cr_unit(&rng, d); break;
    }
    /* Lowest cap centre at height r + δ. */
    double lowest = -0.5 * len * fabs(cr_dot(d, m)), c[3], x0[3];
    for (int k = 0; k < 3; k++) x0[k] = rng_uniform(&rng, -1.0, 1.0);
    double h0 = cr_dot(x0, m) - cr_dot(p, m);
    cr_axpy(c, x0, r + delta - lowest - h0, m);
    clt_shape_def_t sa = capsule_def(r, len);
    clt_collide_pose_t pa = cr_pose(&rng, c, d);
    cr_capsule_t a = cr_capsule(&sa, &pa);
    double e0[3], e1[3];
    for (int k = 0; k < 3; k++) e0[k] = a.p0[k] - p[k], e1[k] = a.p1[k] - p[k];
    double phi0 = cr_dot(e0, m) - r, phi1 = cr_dot(e1, m) - r, phi_ref = fmin(phi0, phi1);
    cr_count(&st, phi_ref);
    cr_track(&st.phi, fabs(phi_ref - delta)); /* the construction itself */

    for (int order = 0; order < 2; order++) {
      clt_contact_point_t out[CLT_MAX_PAIR_CONTACTS];
      int n = order == 0 ? clt_collide(&sa, &pa, &plane, &ph, 1e3, out, CLT_MAX_PAIR_CONTACTS)
                         : clt_collide(&plane, &ph, &sa, &pa, 1e3, out, CLT_MAX_PAIR_CONTACTS);
      CHECK(n == (len > 0.0 ? 2 : 1));
      if (n == 2) two_points++;
      if (n == 1) one_point++;
      double deepest = INFINITY;
      for (int j = 0; j < n; j++) {
        clt_contact_point_t pt = out[j];
        if (order == 1) { /* back to (capsule, plane) */
          for (int k = 0; k < 3; k++) {
            double t = pt.point_a[k];
            pt.point_a[k] = pt.point_b[k], pt.point_b[k] = t, pt.normal[k] = -pt.normal[k];
          }
        }
        cr_check_point(&st, &pt);
        double e[3] = {pt.normal[0] + m[0], pt.normal[1] + m[1], pt.normal[2] + m[2]};
        cr_track(&st.normal, cr_norm(e));
        /* p_B on the plane; p_A = the cap centre of its end − r m */
        double rel[3] = {pt.point_b[0] - p[0], pt.point_b[1] - p[1], pt.point_b[2] - p[2]};
        cr_track(&st.surface, fabs(cr_dot(rel, m)));
        const double *end = n == 1 ? (phi0 <= phi1 ? a.p0 : a.p1) : (pt.feature == 0 ? a.p0 : a.p1);
        double want = n == 1 ? fmin(phi0, phi1) : (pt.feature == 0 ? phi0 : phi1), pa_ref[3];
        cr_axpy(pa_ref, end, -r, m);
        double w[3] = {pt.point_a[0] - pa_ref[0], pt.point_a[1] - pa_ref[1], pt.point_a[2] - pa_ref[2]};
        cr_track(&st.surface, cr_norm(w));
        cr_track(&st.phi, fabs(pt.distance - want));
        deepest = fmin(deepest, pt.distance);
      }
      cr_track(&st.phi, fabs(deepest - phi_ref));
    }
    /* A cut between the two caps keeps only the lower one. */
    if (len > 0.0 && fabs(phi0 - phi1) > 1e-9) {
      clt_contact_point_t out[CLT_MAX_PAIR_CONTACTS];
      int n = clt_collide(&sa, &pa, &plane, &ph, 0.5 * (phi0 + phi1), out, CLT_MAX_PAIR_CONTACTS);
      CHECK(n == 1);
      if (n == 1) cr_track(&st.phi, fabs(out[0].distance - phi_ref));
    }
  }
  cr_assert(&st, 1e-12);
  if (family == ZERO) CHECK(one_point == 2 * poses);
  else CHECK(two_points == 2 * poses);
}

/* A capsule growing in place (the length may change in time, 002 §5.4) against a fixed capsule
 * (crossed or parallel): each longer capsule contains the shorter one, so Φ never increases, and by at
 * most the half-length increase (1-Lipschitz); from length 0 (a sphere) on, against the core
 * distance reference at every length. */
static void growing(int trials, uint64_t seed) {
  rng_t rng = {seed};
  double worst_up = 0.0, worst_drop = 0.0, worst_ref = 0.0;
  int failed = 0;
  for (int t = 0; t < trials; t++) {
    double ca[3], cb[3], da[3], db[3];
    for (int k = 0; k < 3; k++) ca[k] = rng_uniform(&rng, -1, 1), cb[k] = ca[k] + rng_uniform(&rng, -2, 2);
    cr_unit(&rng, da);
    cr_unit(&rng, db);
    if (t % 3 == 0) for (int k = 0; k < 3; k++) db[k] = da[k]; /* parallel */
    clt_shape_def_t sa = capsule_def(rng_uniform(&rng, 0.1, 0.5), 0.0), sb = capsule_def(rng_uniform(&rng, 0.1, 0.5), rng_uniform(&rng, 0.0, 2.0));
    clt_collide_pose_t pa = cr_pose(&rng, ca, da), pb = cr_pose(&rng, cb, db);
    double prev = NAN;
    for (int j = 0; j <= 60; j++) {
      sa.length = 0.05 * j;
      clt_contact_point_t c[4];
      if (clt_collide(&sa, &pa, &sb, &pb, 1e3, c, 4) != 1) {
        failed++;
        continue;
      }
      cr_capsule_t a = cr_capsule(&sa, &pa), b = cr_capsule(&sb, &pb);
      worst_ref = fmax(worst_ref, fabs(c[0].distance - (cr_core_distance(&a, &b) - sa.radius - sb.radius)));
      if (!isnan(prev)) {
        worst_up = fmax(worst_up, c[0].distance - prev);
        worst_drop = fmax(worst_drop, prev - c[0].distance - 0.025);
      }
      prev = c[0].distance;
    }
  }
  printf("growing capsule: %d x 61 lengths 0..3, failed %d, max |Phi - ref| %.1e, max increase %.1e, max drop "
         "beyond dL/2 %.1e\n", trials, failed, worst_ref, worst_up, worst_drop);
  CHECK(failed == 0);
  CHECK_LE(worst_ref, 1e-11);
  CHECK_LE(worst_up, 1e-12);
  CHECK_LE(worst_drop, 1e-12);
}

int main(void) {
  const int poses = 1000;
  for (int f = PARALLEL; f <= GENERIC; f++) capsule_capsule(f, poses, 600 + (uint64_t)f);
  capsule_sphere(GENERIC, poses, 700);
  capsule_sphere(ZERO_LENGTH, poses, 701);
  for (int f = FLAT; f <= ZERO; f++) capsule_halfspace(f, 500, 800 + (uint64_t)f);
  growing(60, 850);
  return clt_test_finish();
}
