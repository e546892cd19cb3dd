/* Ring (torus) pairs of src/collision/smooth_torus.c against references written here, on
 * thousands of random poses (fixed seeds): separated, touching, overlapping, linked and unlinked.
 * A ring is the set of points within r of its centre circle (radius R about local z), so its
 * signed distance to another swept shape is the core distance minus the radii (002 §5.5).
 * References:
 *  - core distance: the minimum over 2048 sampled angles of the closed-form point–circle
 *    distance (atan2 form), every sampled local minimum within reach refined by golden section;
 *  - separated: pairwise minimum over 64×16 sampled surface points of each ring, within the
 *    sampling covering radius and never below Φ;
 *  - witness points on the surfaces, outward normals n and −n there, p_B − p_A = Φ n, sign by
 *    inside tests, A/B swap;
 *  - chainmail links (perpendicular rings, each through the other's hole, centres D apart along a
 *    diameter): core distance min over {|D + R_A − R_B|, |D − R_A − R_B| (D ≥ R_A),
 *    |D − R_A + R_B| (D < R_A)} in closed form;
 *  - half-space: Φ = height of the centre − R √(1 − (m·axis)²) − r; sphere: closed form; capsule:
 *    sampled segment + golden refinement. */
#include <stdio.h>

#include "smooth_ref.h"
#include "test_util.h"

static void ring_def(sref_shape_t *s, double major, double minor) {
  memset(&s->def, 0, sizeof s->def);
  s->def.type = CLT_SHAPE_TORUS;
  s->def.major_radius = major;
  s->def.minor_radius = minor;
}

/* Point of the centre circle at angle t (world). */
static void ring_point(const sref_shape_t *s, double t, double x[3]) {
  double l[3] = {s->def.major_radius * cos(t), s->def.major_radius * sin(t), 0.0};
  sref_to_world(s, l, x);
}

/* Distance from p to the centre circle, closest point q (atan2 form). */
static double ref_point_circle(const sref_shape_t *s, const double p[3], double q[3]) {
  double l[3];
  sref_to_local(s, p, l);
  double rho = hypot(l[0], l[1]), R = s->def.major_radius;
  ring_point(s, rho > 0.0 ? atan2(l[1], l[0]) : 0.0, q);
  return hypot(rho - R, l[2]);
}

/* Golden-section minimum of f on [lo, hi] for a 1D curve given by `point`. */
typedef void (*curve_fn)(const void *ctx, double t, double x[3]);
static double golden(curve_fn point, const void *ctx, const sref_shape_t *other, double lo, double hi) {
  const double g = 0.6180339887498949;
  double q[3], x[3];
  for (int it = 0; it < 120; it++) {
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), p1[3], p2[3];
    point(ctx, x1, p1);
    point(ctx, x2, p2);
    if (ref_point_circle(other, p1, q) <= ref_point_circle(other, p2, q))
      hi = x2;
    else
      lo = x1;
  }
  point(ctx, 0.5 * (lo + hi), x);
  return ref_point_circle(other, x, q);
}
static void ring_curve(const void *ctx, double t, double x[3]) { ring_point((const sref_shape_t *)ctx, t, x); }

/* Reference core distance between the centre circles of a and b. */
static double ref_circle_circle(const sref_shape_t *a, const sref_shape_t *b) {
  enum { n = 2048 };
  double f[n], q[3], x[3], best = INFINITY;
  for (int i = 0; i < n; i++) {
    ring_point(a, 2.0 * SREF_PI * i / n, x);
    f[i] = ref_point_circle(b, x, q);
    best = fmin(best, f[i]);
  }
  double result = best;
  for (int k = 0; k < n; k++) {
    double fl = f[(k + n - 1) % n], fr = f[(k + 1) % n];
    if (f[k] > best + 0.01 || f[k] > fl || f[k] > fr || (f[k] == fl && f[k] == fr)) continue;
    result = fmin(result, golden(ring_curve, a, b, 2.0 * SREF_PI * (k - 1) / n, 2.0 * SREF_PI * (k + 1) / n));
  }
  return result;
}

/* Torus surface helpers: distance of x to the centre circle minus r; outward normal. */
static double ring_implicit(const sref_shape_t *s, const double x[3]) {
  double q[3];
  return ref_point_circle(s, x, q) - s->def.minor_radius;
}
static void ring_normal(const sref_shape_t *s, const double x[3], double n[3]) {
  double q[3];
  double d = ref_point_circle(s, x, q);
  for (int k = 0; k < 3; k++) n[k] = (x[k] - q[k]) / d;
}
static int ring_surface(const sref_shape_t *s, double (*pts)[3], double *cover) {
  const int nu = 64, nv = 16;
  double R = s->def.major_radius, r = s->def.minor_radius;
  int k = 0;
  for (int i = 0; i < nu; i++)
    for (int j = 0; j < nv; j++) {
      double u = 2.0 * SREF_PI * i / nu, v = 2.0 * SREF_PI * j / nv;
      double l[3] = {(R + r * cos(v)) * cos(u), (R + r * cos(v)) * sin(u), r * sin(v)};
      sref_to_world(s, l, pts[k++]);
    }
  *cover = 0.5 * hypot(2.0 * SREF_PI * (R + r) / nu, 2.0 * SREF_PI * r / nv);
  return k;
}

typedef struct stats_t {
  int poses, separated, touching, overlapping, linked, failed;
  double err, implicit, normal, consistency, swap, sample_gap, sample_below;
  int sampled;
} stats_t;

/* Checks one ring–ring answer; ref_phi the reference. */
static void check_ring_pair(const sref_shape_t *a, const sref_shape_t *b, double ref_phi, stats_t *st,
                            bool sample) {
  clt_contact_point_t c, s;
  clt_smooth_info_t info, si;
  clt_smooth_torus_torus_query(&a->placed, &b->placed, &c, &info);
  st->poses++;
  if (info.status != CLT_SMOOTH_OK) {
    st->failed++;
    return;
  }
  double scale = a->def.major_radius + b->def.major_radius;
  double err = fabs(c.distance - ref_phi) / scale;
  st->err = fmax(st->err, err);
  CHECK(err <= 1e-9);
  CHECK(c.distance <= ref_phi + 1e-12 * scale);
  if (ref_phi > 1e-9 * scale)
    st->separated++;
  else if (ref_phi >= -1e-9 * scale)
    st->touching++;
  else
    st->overlapping++;
  double fa = ring_implicit(a, c.point_a), fb = ring_implicit(b, c.point_b);
  st->implicit = fmax(st->implicit, fmax(fabs(fa), fabs(fb)) / scale);
  CHECK(fabs(fa) <= 1e-10 * scale && fabs(fb) <= 1e-10 * scale);
  double na[3], nb[3], e = 0.0, res[3];
  ring_normal(a, c.point_a, na);
  ring_normal(b, c.point_b, nb);
  for (int k = 0; k < 3; k++) e = fmax(e, fmax(fabs(na[k] - c.normal[k]), fabs(nb[k] + c.normal[k])));
  st->normal = fmax(st->normal, e);
  CHECK(e <= 1e-8);
  for (int k = 0; k < 3; k++) res[k] = c.point_b[k] - c.point_a[k] - c.distance * c.normal[k];
  st->consistency = fmax(st->consistency, sref_norm(res) / scale);
  CHECK(sref_norm(res) <= 1e-12 * scale);
  if (c.distance < -1e-9 * scale) CHECK(ring_implicit(b, c.point_a) < 0.0 || ring_implicit(a, c.point_b) < 0.0);
  if (c.distance > 1e-9 * scale) CHECK(ring_implicit(b, c.point_a) > 0.0 && ring_implicit(a, c.point_b) > 0.0);
  clt_smooth_torus_torus_query(&b->placed, &a->placed, &s, &si);
  CHECK(si.status == CLT_SMOOTH_OK);
  st->swap = fmax(st->swap, fabs(s.distance - c.distance) / scale);
  CHECK(fabs(s.distance - c.distance) <= 1e-10 * scale);
  if (sample && ref_phi > 0.0) {
    static double pa[1024][3], pb[1024][3];
    double ha, hb, best = INFINITY;
    int na_ = ring_surface(a, pa, &ha), nb_ = ring_surface(b, pb, &hb);
    for (int i = 0; i < na_; i++)
      for (int j = 0; j < nb_; j++) {
        double d[3] = {pa[i][0] - pb[j][0], pa[i][1] - pb[j][1], pa[i][2] - pb[j][2]};
        best = fmin(best, sref_dot(d, d));
      }
    best = sqrt(best);
    st->sampled++;
    st->sample_gap = fmax(st->sample_gap, (best - c.distance) / (ha + hb));
    st->sample_below = fmax(st->sample_below, (c.distance - best) / scale);
    CHECK(c.distance <= best + 1e-12 * scale);
    CHECK(best - c.distance <= ha + hb);
  }
}

static void random_ring_pairs(int poses, uint64_t seed, stats_t *st) {
  sref_rng_t rng = {seed};
  for (int p = 0; p < poses; p++) {
    sref_shape_t a, b;
    double Ra = sref_range(&rng, 0.5, 2.0), Rb = p % 3 == 0 ? Ra : sref_range(&rng, 0.5, 2.0);
    ring_def(&a, Ra, Ra * sref_range(&rng, 0.05, 0.3));
    ring_def(&b, Rb, Rb * sref_range(&rng, 0.05, 0.3));
    double ra[3][3], rb[3][3], ca[3], cb[3], dir[3];
    sref_rotation(&rng, ra);
    if (p % 4 == 1) /* parallel planes */
      memcpy(rb, ra, sizeof rb);
    else
      sref_rotation(&rng, rb);
    for (int k = 0; k < 3; k++) ca[k] = sref_range(&rng, -1.0, 1.0);
    sref_unit(&rng, dir);
    double reach = Ra + Rb + a.def.minor_radius + b.def.minor_radius;
    double dist = reach * sref_range(&rng, 0.0, 1.1);
    for (int k = 0; k < 3; k++) cb[k] = ca[k] + dist * dir[k];
    sref_place(&a, ca, ra);
    sref_place(&b, cb, rb);
    double core = ref_circle_circle(&a, &b);
    double rmin = fmin(a.def.minor_radius, b.def.minor_radius);
    double phi = core - a.def.minor_radius - b.def.minor_radius;
    if (p % 5 == 2 && phi > -0.5 * rmin && phi < 2.0 * reach) {
      /* Touching: move B along the normal by −Φ (± 1e-12); the reference is recomputed. */
      clt_contact_point_t c;
      clt_smooth_info_t info;
      clt_smooth_torus_torus_query(&a.placed, &b.placed, &c, &info);
      double shift = -c.distance + (p % 3 - 1) * 1e-12;
      for (int k = 0; k < 3; k++) cb[k] += shift * c.normal[k];
      sref_place(&b, cb, rb);
      core = ref_circle_circle(&a, &b);
      phi = core - a.def.minor_radius - b.def.minor_radius;
    }
    /* Keep to the specified range: overlap up to half the smaller tube radius. */
    if (phi < -0.5 * rmin || phi > 2.0 * reach) {
      p--;
      continue;
    }
    check_ring_pair(&a, &b, phi, st, p % 10 == 0);
  }
}

/* Chainmail links: A in the xy-plane at the origin, B in the xz-plane at (D, 0, 0); then both
 * moved by one random rigid motion. */
static double chain_core(double Ra, double Rb, double D) {
  /* B is the ring through A's plane here: points of B (D + Rb cos θ, 0, Rb sin θ). */
  double best = fabs(D + Rb - Ra);
  if (D >= Rb)
    best = fmin(best, fabs(D - Rb - Ra));
  else
    best = fmin(best, fabs(D - Rb + Ra));
  return best;
}

static void chainmail(stats_t *st, double *worst_out) {
  sref_rng_t rng = {2024};
  double worst = 0.0;
  for (int p = 0; p < 400; p++) {
    double Ra = p % 2 == 0 ? 1.0 : sref_range(&rng, 0.7, 1.3), Rb = p % 2 == 0 ? 1.0 : sref_range(&rng, 0.7, 1.3);
    double r = 0.1 * fmin(Ra, Rb);
    double lo = fabs(Ra - Rb) + 0.05, hi = Ra + Rb - 0.05; /* linked: B passes through A's hole */
    double D = p == 0 ? Ra : sref_range(&rng, lo, hi);
    if (p == 1) D = 0.5 * (lo + hi);
    sref_shape_t a, b;
    ring_def(&a, Ra, r);
    ring_def(&b, Rb, r);
    double m[3][3], ra[3][3], rb[3][3], t[3], ca[3], cb[3];
    sref_rotation(&rng, m);
    for (int k = 0; k < 3; k++) t[k] = sref_range(&rng, -3.0, 3.0);
    /* local B frame: x → x, y → z, z → −y (its plane is xz). */
    double bl[3][3] = {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, offset[3] = {D, 0, 0};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        ra[i][j] = m[i][j];
        rb[i][j] = m[i][0] * bl[0][j] + m[i][1] * bl[1][j] + m[i][2] * bl[2][j];
      }
    for (int k = 0; k < 3; k++) {
      ca[k] = t[k];
      cb[k] = t[k] + m[k][0] * offset[0] + m[k][1] * offset[1] + m[k][2] * offset[2];
    }
    sref_place(&a, ca, ra);
    sref_place(&b, cb, rb);
    double expect = chain_core(Ra, Rb, D) - 2.0 * r;
    clt_contact_point_t c;
    clt_smooth_info_t info;
    clt_smooth_torus_torus_query(&a.placed, &b.placed, &c, &info);
    CHECK(info.status == CLT_SMOOTH_OK);
    worst = fmax(worst, fabs(c.distance - expect));
    CHECK_NEAR(c.distance, expect, 1e-10);
    st->linked++;
    check_ring_pair(&a, &b, expect, st, p % 20 == 0);
  }
  *worst_out = worst;
}

static void ring_sphere_halfspace_capsule(void) {
  sref_rng_t rng = {555};
  double worst_s = 0.0, worst_h = 0.0, worst_c = 0.0;
  int failed = 0;
  for (int p = 0; p < 1000; p++) {
    sref_shape_t a, s, h, cap;
    double R = sref_range(&rng, 0.5, 2.0), ra[3][3], ca[3], id[3][3], zero[3] = {0, 0, 0};
    ring_def(&a, R, R * sref_range(&rng, 0.05, 0.3));
    sref_rotation(&rng, ra);
    for (int k = 0; k < 3; k++) ca[k] = sref_range(&rng, -1, 1);
    sref_place(&a, ca, ra);
    sref_identity(id);
    /* Sphere anywhere near the ring (inside the hole too). */
    memset(&s.def, 0, sizeof s.def);
    s.def.type = CLT_SHAPE_SPHERE;
    s.def.radius = sref_range(&rng, 0.05, 0.5);
    double cs[3], q[3];
    for (int k = 0; k < 3; k++) cs[k] = ca[k] + sref_range(&rng, -1.5, 1.5) * R;
    sref_place(&s, cs, id);
    clt_contact_point_t c;
    clt_smooth_info_t info;
    clt_smooth_torus_sphere_query(&a.placed, &s.placed, &c, &info);
    double expect = ref_point_circle(&a, cs, q) - a.def.minor_radius - s.def.radius;
    worst_s = fmax(worst_s, fabs(c.distance - expect));
    CHECK(fabs(ring_implicit(&a, c.point_a)) <= 1e-12);
    /* Half-space: random plane and normal. */
    memset(&h.def, 0, sizeof h.def);
    h.def.type = CLT_SHAPE_HALFSPACE;
    double m[3], axis[3] = {ra[0][2], ra[1][2], ra[2][2]};
    sref_unit(&rng, m);
    if (p % 10 == 0) memcpy(m, axis, sizeof m); /* lying flat */
    for (int k = 0; k < 3; k++) h.def.normal[k] = m[k], h.def.point[k] = sref_range(&rng, -1, 1);
    sref_place(&h, zero, id);
    clt_smooth_torus_halfspace_query(&a.placed, &h.placed, &c, &info);
    double rel[3];
    for (int k = 0; k < 3; k++) rel[k] = ca[k] - h.def.point[k];
    double am = sref_dot(axis, m), inplane[3];
    for (int k = 0; k < 3; k++) inplane[k] = m[k] - am * axis[k];
    expect = sref_dot(rel, m) - R * sref_norm(inplane) - a.def.minor_radius;
    worst_h = fmax(worst_h, fabs(c.distance - expect));
    CHECK(fabs(ring_implicit(&a, c.point_a)) <= 1e-12);
    for (int k = 0; k < 3; k++) rel[k] = c.point_b[k] - h.def.point[k];
    CHECK(fabs(sref_dot(rel, m)) <= 1e-12);
    /* Capsule: random segment through the ring region (often through the hole). */
    memset(&cap.def, 0, sizeof cap.def);
    cap.def.type = CLT_SHAPE_CAPSULE;
    cap.def.radius = sref_range(&rng, 0.02, 0.3);
    cap.def.length = p % 9 == 0 ? 0.0 : sref_range(&rng, 0.1, 4.0);
    double rc[3][3], cc[3];
    sref_rotation(&rng, rc);
    for (int k = 0; k < 3; k++) cc[k] = ca[k] + sref_range(&rng, -1.0, 1.0) * R;
    sref_place(&cap, cc, rc);
    clt_smooth_torus_capsule_query(&a.placed, &cap.placed, &c, &info);
    if (info.status != CLT_SMOOTH_OK) {
      failed++;
      fprintf(stderr, "capsule fail p=%d residual %.3e phi %.6f len %.3f\n", p, info.residual, c.distance, cap.def.length);
      continue;
    }
    /* Reference: 4096 segment samples, golden refinement of sampled local minima, ends. */
    enum { n = 4096 };
    static double f[n + 1];
    double z[3] = {rc[0][2], rc[1][2], rc[2][2]}, x[3], best = INFINITY;
    for (int i = 0; i <= n; i++) {
      double t = -0.5 * cap.def.length + cap.def.length * i / n;
      for (int k = 0; k < 3; k++) x[k] = cc[k] + t * z[k];
      f[i] = ref_point_circle(&a, x, q);
      best = fmin(best, f[i]);
    }
    double core = best;
    for (int i = 1; i < n; i++) {
      if (f[i] > f[i - 1] || f[i] > f[i + 1] || f[i] > best + 0.01 || (f[i] == f[i - 1] && f[i] == f[i + 1]))
        continue;
      double lo = -0.5 * cap.def.length + cap.def.length * (i - 1) / n, hi = lo + 2.0 * cap.def.length / n;
      const double g = 0.6180339887498949;
      for (int it = 0; it < 120; it++) {
        double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), p1[3], p2[3];
        for (int k = 0; k < 3; k++) p1[k] = cc[k] + x1 * z[k], p2[k] = cc[k] + x2 * z[k];
        if (ref_point_circle(&a, p1, q) <= ref_point_circle(&a, p2, q))
          hi = x2;
        else
          lo = x1;
      }
      for (int k = 0; k < 3; k++) x[k] = cc[k] + 0.5 * (lo + hi) * z[k];
      core = fmin(core, ref_point_circle(&a, x, q));
    }
    expect = core - a.def.minor_radius - cap.def.radius;
    worst_c = fmax(worst_c, fabs(c.distance - expect));
    CHECK(c.distance <= expect + 1e-12);
    CHECK(fabs(ring_implicit(&a, c.point_a)) <= 1e-10);
    double res[3];
    for (int k = 0; k < 3; k++) res[k] = c.point_b[k] - c.point_a[k] - c.distance * c.normal[k];
    CHECK(sref_norm(res) <= 1e-12);
  }
  printf("ring–sphere 1000: max |Φ − closed form| %.2e; ring–half-space 1000 (100 flat): %.2e; "
         "ring–capsule 1000: %.2e, %d not converged\n",
         worst_s, worst_h, worst_c, failed);
  CHECK(worst_s <= 1e-12);
  CHECK(worst_h <= 1e-12);
  CHECK(worst_c <= 1e-9);
  CHECK(failed == 0);
}

static void bad_input(void) {
  sref_shape_t a, b;
  double id[3][3], o[3] = {0, 0, 0}, bad[3] = {NAN, 0, 0};
  sref_identity(id);
  ring_def(&a, 1.0, 0.1);
  ring_def(&b, 1.0, 0.1);
  sref_place(&a, o, id);
  sref_place(&b, bad, id);
  clt_contact_point_t c[2];
  clt_smooth_info_t info;
  CHECK(clt_smooth_torus_torus_query(&a.placed, &b.placed, c, &info) == CLT_SMOOTH_BAD_INPUT);
  CHECK(clt_smooth_torus_torus(&a.placed, &b.placed, INFINITY, c) == CLT_SMOOTH_FAILED);
  /* Pair function range cut: coaxial rings 1 apart along z: Φ = 1 − 0.2. */
  double up[3] = {0, 0, 1};
  sref_place(&b, up, id);
  CHECK(clt_smooth_torus_torus(&a.placed, &b.placed, 0.7, c) == 0);
  CHECK(clt_smooth_torus_torus(&a.placed, &b.placed, 0.9, c) == 1);
  CHECK_NEAR(c[0].distance, 0.8, 1e-14);
}

int main(void) {
  stats_t st = {0};
  random_ring_pairs(3000, 7, &st);
  double chain_worst = 0.0;
  chainmail(&st, &chain_worst);
  printf("ring–ring: %d poses (%d separated, %d touching, %d overlapping; %d chainmail links), %d not "
         "converged\n",
         st.poses, st.separated, st.touching, st.overlapping, st.linked, st.failed);
  printf("  |Φ − ref|/L %.2e  |implicit|/L %.2e  normals %.2e  |pB−pA−Φn|/L %.2e  swap |ΔΦ|/L %.2e\n", st.err,
         st.implicit, st.normal, st.consistency, st.swap);
  printf("  chainmail max |Φ − analytic| %.2e; surface sampling %d poses: max (d_s−Φ)/h %.3f, max (Φ−d_s)/L "
         "%.2e\n",
         chain_worst, st.sampled, st.sample_gap, st.sample_below);
  CHECK(st.failed == 0);
  ring_sphere_halfspace_capsule();
  bad_input();
  return clt_test_finish();
}
