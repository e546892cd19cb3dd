/* Shared-normal points of ellipsoids (src/collision/smooth_ellipsoid.c) against ellipsoids,
 * spheres, capsules and half-spaces, on thousands of random poses (fixed seeds).
 *
 * Poses are built with a known shared-normal point: a random unit n, p_A the support point of A
 * along n, and B placed so that its support point along −n is p_A + δ n. For δ ≥ 0 (separated or
 * touching) that point is THE closest pair, so Φ = δ exactly. For δ < 0 (overlap up to half the
 * smaller radius) n is one shared-normal direction, so Φ ≥ δ, and the answer is checked by its
 * own conditions. References written here, independent of the library:
 *  - witness points on the surfaces (implicit function), outward normals there (its gradient)
 *    anti-parallel and parallel to p_B − p_A, p_B − p_A = Φ n, the sign by inside tests;
 *  - global optimality: the support separation g(u) of 1000 directions never exceeds Φ;
 *  - separated: dense sampling of A's surface with the exact point–ellipsoid distance to B, and of
 *    both surfaces (pairwise minimum), agree with Φ to the sampling resolution and never fall below
 *    it (beyond round-off);
 *  - swapping A and B gives the same Φ and the opposite normal.
 * Near-degenerate families: nearly spherical, 10:1 prolate and oblate, aligned axes. */
#include <stdio.h>

#include "smooth_ref.h"
#include "test_util.h"

typedef struct stats_t {
  int poses, separated, touching, overlapping, failed;
  double err_exact;      /* |Φ − δ| for δ ≥ 0, / scale */
  double below_known;    /* max (δ − Φ) for δ < 0, / scale (> 0 would be a wrong answer) */
  double implicit;       /* max |implicit| at the witness points */
  double normal;         /* max |n_surface ∓ n| */
  double parallel;       /* max angle between n and p_B − p_A (|Φ| > 1e-6 scale) */
  double consistency;    /* max |p_B − p_A − Φ n| / scale */
  double global;         /* max (g(u) − Φ) over sampled u, / scale */
  double swap_phi, swap_n;
  int sampled, sampled2;
  double sample_gap;     /* max (d_sampled − Φ) / h */
  double sample_below;   /* max (Φ − d_sampled) / scale */
  int iterations_max;
  int fallbacks;
} stats_t;

static double ellipsoid_sigma(const sref_shape_t *s, const double u[3]) {
  double l[3];
  const double (*r)[3] = s->placed.rotation;
  for (int k = 0; k < 3; k++) l[k] = (r[0][k] * u[0] + r[1][k] * u[1] + r[2][k] * u[2]) * s->def.semi_axes[k];
  return sref_norm(l);
}

/* Support point of the ellipsoid along unit u: c + R diag(a²) Rᵀ u / σ. */
static void ellipsoid_support(const sref_shape_t *s, const double u[3], double p[3]) {
  double l[3];
  const double (*r)[3] = s->placed.rotation;
  for (int k = 0; k < 3; k++)
    l[k] = (r[0][k] * u[0] + r[1][k] * u[1] + r[2][k] * u[2]) * s->def.semi_axes[k] * s->def.semi_axes[k];
  double sigma = ellipsoid_sigma(s, u), w[3];
  sref_dir_to_world(s, l, w);
  for (int k = 0; k < 3; k++) p[k] = s->placed.position[k] + w[k] / sigma;
}

/* Capsule helpers: axis (local z), ends, distance to the core segment. */
static void capsule_axis(const sref_shape_t *s, double z[3]) {
  for (int k = 0; k < 3; k++) z[k] = s->placed.rotation[k][2];
}
static double capsule_core(const sref_shape_t *s, const double x[3], double q[3]) {
  double z[3], d[3];
  capsule_axis(s, z);
  for (int k = 0; k < 3; k++) d[k] = x[k] - s->placed.position[k];
  double h = 0.5 * s->def.length, t = sref_dot(d, z);
  t = t < -h ? -h : (t > h ? h : t);
  for (int k = 0; k < 3; k++) q[k] = s->placed.position[k] + t * z[k];
  double r[3] = {x[0] - q[0], x[1] - q[1], x[2] - q[2]};
  return sref_norm(r);
}
static double capsule_sigma(const sref_shape_t *s, const double u[3]) {
  double z[3];
  capsule_axis(s, z);
  return s->def.radius + 0.5 * s->def.length * fabs(sref_dot(u, z));
}

/* B's kind in a pair test. */
enum { B_ELLIPSOID, B_SPHERE, B_CAPSULE };

static double b_sigma(int kind, const sref_shape_t *b, const double u[3]) {
  if (kind == B_CAPSULE) return capsule_sigma(b, u);
  if (kind == B_SPHERE) return b->def.radius;
  return ellipsoid_sigma(b, u);
}
/* B's implicit value (ellipsoid: normalized; sphere / capsule: distance − radius, over radius). */
static double b_implicit(int kind, const sref_shape_t *b, const double x[3]) {
  if (kind == B_ELLIPSOID) return sref_ellipsoid_implicit(b, x);
  double q[3];
  if (kind == B_SPHERE) {
    double d[3] = {x[0] - b->placed.position[0], x[1] - b->placed.position[1], x[2] - b->placed.position[2]};
    return sref_norm(d) / b->def.radius - 1.0;
  }
  return capsule_core(b, x, q) / b->def.radius - 1.0;
}
static void b_normal(int kind, const sref_shape_t *b, const double x[3], double n[3]) {
  if (kind == B_ELLIPSOID) {
    sref_ellipsoid_normal(b, x, n);
    return;
  }
  double q[3];
  if (kind == B_SPHERE)
    for (int k = 0; k < 3; k++) q[k] = b->placed.position[k];
  else
    capsule_core(b, x, q);
  double d[3] = {x[0] - q[0], x[1] - q[1], x[2] - q[2]}, len = sref_norm(d);
  for (int k = 0; k < 3; k++) n[k] = d[k] / len;
}
/* Exact distance from x to B (outside points). */
static double b_distance(int kind, const sref_shape_t *b, const double x[3]) {
  if (kind == B_ELLIPSOID) return sref_point_ellipsoid(b, x);
  double q[3];
  if (kind == B_SPHERE)
    for (int k = 0; k < 3; k++) q[k] = b->placed.position[k];
  else
    capsule_core(b, x, q);
  double d[3] = {x[0] - q[0], x[1] - q[1], x[2] - q[2]};
  return fmax(0.0, sref_norm(d) - b->def.radius);
}
/* Surface point i of n of B (for the two-surface sampling) and its covering radius. */
static void b_surface(int kind, const sref_shape_t *b, int n, int i, double x[3]) {
  double u[3], l[3];
  sref_fibonacci(n, i, u);
  if (kind == B_ELLIPSOID) {
    for (int k = 0; k < 3; k++) l[k] = b->def.semi_axes[k] * u[k];
    sref_to_world(b, l, x);
    return;
  }
  for (int k = 0; k < 3; k++) l[k] = b->def.radius * u[k];
  if (kind == B_CAPSULE) l[2] += (u[2] >= 0.0 ? 0.5 : -0.5) * b->def.length; /* caps + no cylinder */
  sref_to_world(b, l, x);
}

static void query(int kind, const sref_shape_t *a, const sref_shape_t *b, clt_contact_point_t *out,
                  clt_smooth_info_t *info) {
  if (kind == B_CAPSULE)
    clt_smooth_ellipsoid_capsule_query(&a->placed, &b->placed, out, info);
  else
    clt_smooth_ellipsoid_convex_query(&a->placed, &b->placed, out, info);
}

static void random_axes(sref_rng_t *r, int family, double a[3]) {
  double s = sref_range(r, 0.5, 1.5);
  switch (family) {
    case 0: /* general */
      for (int k = 0; k < 3; k++) a[k] = s * sref_range(r, 0.25, 1.0);
      break;
    case 1: /* nearly spherical */
      for (int k = 0; k < 3; k++) a[k] = s * (1.0 + 1e-7 * sref_uniform(r));
      break;
    case 2: /* 10:1 prolate */
      a[0] = s, a[1] = a[2] = 0.1 * s;
      break;
    default: /* 10:1 oblate */
      a[0] = a[1] = s, a[2] = 0.1 * s;
      break;
  }
}

static void run_pair_family(int kind, int poses, uint64_t seed, stats_t *st) {
  sref_rng_t rng = {seed};
  st->global = -INFINITY;
  for (int p = 0; p < poses; p++) {
    sref_shape_t a, b;
    double ax[3], bx[3];
    random_axes(&rng, p % 4, ax);
    sref_ellipsoid(&a, ax[0], ax[1], ax[2]);
    double ra[3][3], rb[3][3], ca[3];
    int orient = (p / 4) % 3; /* random, aligned (identity), same rotation */
    if (orient == 1) {
      sref_identity(ra);
    } else {
      sref_rotation(&rng, ra);
    }
    if (orient == 0)
      sref_rotation(&rng, rb);
    else
      memcpy(rb, ra, sizeof rb);
    for (int k = 0; k < 3; k++) ca[k] = sref_range(&rng, -2.0, 2.0);
    sref_place(&a, ca, ra);
    double rmin = fmin(fmin(ax[0], ax[1]), ax[2]), bscale;
    memset(&b.def, 0, sizeof b.def);
    if (kind == B_ELLIPSOID) {
      random_axes(&rng, (p / 12) % 4, bx);
      sref_ellipsoid(&b, bx[0], bx[1], bx[2]);
      rmin = fmin(rmin, fmin(fmin(bx[0], bx[1]), bx[2]));
      bscale = fmax(fmax(bx[0], bx[1]), bx[2]);
    } else {
      b.def.type = kind == B_SPHERE ? CLT_SHAPE_SPHERE : CLT_SHAPE_CAPSULE;
      b.def.radius = sref_range(&rng, 0.05, 0.8);
      b.def.length = kind == B_CAPSULE ? (p % 7 == 0 ? 0.0 : sref_range(&rng, 0.05, 3.0)) : 0.0;
      rmin = fmin(rmin, b.def.radius);
      bscale = b.def.radius + b.def.length;
    }
    double scale = fmax(fmax(ax[0], ax[1]), ax[2]) + bscale;
    /* Known shared-normal point along n at separation δ. */
    double n[3], pa[3], delta;
    sref_unit(&rng, n);
    ellipsoid_support(&a, n, pa);
    int regime = p % 5; /* 0, 1: separated; 2: touching; 3, 4: overlapping */
    if (regime < 2)
      delta = rmin * (regime == 0 ? sref_range(&rng, 1e-3, 0.1) : sref_range(&rng, 0.1, 2.0));
    else if (regime == 2)
      delta = rmin * (p % 3 == 0 ? 0.0 : (p % 3 == 1 ? 1e-12 : -1e-12));
    else
      delta = -rmin * sref_range(&rng, 1e-6, 0.5);
    double cb[3];
    if (kind == B_CAPSULE) {
      /* Cap contact (axis leaning away from n) or cylinder contact (axis ⊥ n). */
      double z[3], w[3];
      sref_unit(&rng, w);
      bool cylinder = (p % 2 == 0) && b.def.length > 0.0;
      if (cylinder) {
        double wn = sref_dot(w, n);
        for (int k = 0; k < 3; k++) z[k] = w[k] - wn * n[k];
      } else {
        double wn = sref_dot(w, n);
        if (wn < 0.0)
          for (int k = 0; k < 3; k++) w[k] = -w[k];
        wn = fabs(wn);
        if (wn < 0.2) /* lean at least ~12° so the cap is the unique support */
          for (int k = 0; k < 3; k++) w[k] += 0.3 * n[k];
        for (int k = 0; k < 3; k++) z[k] = w[k];
      }
      double zl = sref_norm(z);
      for (int k = 0; k < 3; k++) z[k] /= zl;
      /* Rotation with column 2 = z. */
      double x[3], y[3], t[3] = {1, 0, 0};
      if (fabs(z[0]) > 0.6) t[0] = 0, t[1] = 1;
      sref_cross(x, t, z);
      double xl = sref_norm(x);
      for (int k = 0; k < 3; k++) x[k] /= xl;
      sref_cross(y, z, x);
      for (int k = 0; k < 3; k++) rb[k][0] = x[k], rb[k][1] = y[k], rb[k][2] = z[k];
      double axis_point[3], along = cylinder ? sref_range(&rng, -0.45, 0.45) * b.def.length : 0.5 * b.def.length;
      for (int k = 0; k < 3; k++) axis_point[k] = pa[k] + (delta + b.def.radius) * n[k];
      for (int k = 0; k < 3; k++) cb[k] = axis_point[k] + along * z[k];
    } else {
      /* B's support point along −n is cb − M_B n / σ_B; put it at p_A + δ n. */
      sref_place(&b, ca, rb); /* placeholder centre to evaluate the support offset */
      double mn[3], s0[3];
      double mneg[3] = {-n[0], -n[1], -n[2]};
      if (kind == B_ELLIPSOID) {
        ellipsoid_support(&b, mneg, s0);
        for (int k = 0; k < 3; k++) mn[k] = ca[k] - s0[k]; /* = M_B n / σ_B */
      } else {
        for (int k = 0; k < 3; k++) mn[k] = b.def.radius * n[k];
      }
      for (int k = 0; k < 3; k++) cb[k] = pa[k] + delta * n[k] + mn[k];
    }
    sref_place(&b, cb, rb);

    clt_contact_point_t c;
    clt_smooth_info_t info;
    query(kind, &a, &b, &c, &info);
    st->poses++;
    if (info.status != CLT_SMOOTH_OK) {
      st->failed++;
      continue;
    }
    if (info.iterations > st->iterations_max) st->iterations_max = info.iterations;
    st->fallbacks += info.fallback;
    if (regime < 2)
      st->separated++;
    else if (regime == 2)
      st->touching++;
    else
      st->overlapping++;
    double phi = c.distance;
    if (delta >= -1e-12 * rmin) {
      double e = fabs(phi - delta) / scale;
      if (e > st->err_exact) st->err_exact = e;
      CHECK(e <= 1e-10);
    } else {
      double below = (delta - phi) / scale;
      if (below > st->below_known) st->below_known = below;
      CHECK(below <= 1e-12);
    }
    /* Witness points on the surfaces, normals there. */
    double fa = sref_ellipsoid_implicit(&a, c.point_a), fb = b_implicit(kind, &b, c.point_b);
    st->implicit = fmax(st->implicit, fmax(fabs(fa), fabs(fb)));
    CHECK(fabs(fa) <= 1e-10 && fabs(fb) <= 1e-10);
    double na[3], nb[3];
    sref_ellipsoid_normal(&a, c.point_a, na);
    b_normal(kind, &b, c.point_b, nb);
    double ea = 0.0, eb = 0.0;
    for (int k = 0; k < 3; k++) {
      ea = fmax(ea, fabs(na[k] - c.normal[k]));
      eb = fmax(eb, fabs(nb[k] + c.normal[k]));
    }
    st->normal = fmax(st->normal, fmax(ea, eb));
    CHECK(ea <= 1e-8 && eb <= 1e-8);
    double diff[3], cr[3], res[3];
    for (int k = 0; k < 3; k++) diff[k] = c.point_b[k] - c.point_a[k];
    sref_cross(cr, c.normal, diff);
    for (int k = 0; k < 3; k++) res[k] = diff[k] - phi * c.normal[k];
    double cons = sref_norm(res) / scale;
    st->consistency = fmax(st->consistency, cons);
    CHECK(cons <= 1e-12);
    if (fabs(phi) > 1e-6 * scale) {
      double angle = sref_norm(cr) / sref_norm(diff);
      st->parallel = fmax(st->parallel, angle);
      CHECK(angle <= 1e-8);
    }
    CHECK(fabs(sref_norm(c.normal) - 1.0) <= 1e-14);
    /* Sign by inside tests. */
    if (phi < -1e-9 * scale) CHECK(b_implicit(kind, &b, c.point_a) < 0.0 || sref_ellipsoid_implicit(&a, c.point_b) < 0.0);
    if (phi > 1e-9 * scale) CHECK(b_implicit(kind, &b, c.point_a) > 0.0 && sref_ellipsoid_implicit(&a, c.point_b) > 0.0);
    /* Global optimality: g(u) ≤ Φ for all u (1000 directions, randomly turned per pose). */
    double turn[3][3], worst = -INFINITY;
    sref_rotation(&rng, turn);
    for (int i = 0; i < 1000; i++) {
      double v[3], u[3];
      sref_fibonacci(1000, i, v);
      for (int k = 0; k < 3; k++) u[k] = turn[k][0] * v[0] + turn[k][1] * v[1] + turn[k][2] * v[2];
      double g = u[0] * (cb[0] - ca[0]) + u[1] * (cb[1] - ca[1]) + u[2] * (cb[2] - ca[2]) -
                 ellipsoid_sigma(&a, u) - b_sigma(kind, &b, u);
      worst = fmax(worst, g - phi);
    }
    st->global = fmax(st->global, worst / scale);
    CHECK(worst <= 1e-12 * scale);
    /* Swapping A and B (ellipsoid pairs only: the capsule query has the ellipsoid first). */
    if (kind == B_ELLIPSOID) {
      clt_contact_point_t s;
      clt_smooth_info_t si;
      clt_smooth_ellipsoid_convex_query(&b.placed, &a.placed, &s, &si);
      CHECK(si.status == CLT_SMOOTH_OK);
      double dphi = fabs(s.distance - phi) / scale, dn = 0.0;
      for (int k = 0; k < 3; k++) dn = fmax(dn, fabs(s.normal[k] + c.normal[k]));
      st->swap_phi = fmax(st->swap_phi, dphi);
      st->swap_n = fmax(st->swap_n, dn);
      CHECK(dphi <= 1e-10);
      CHECK(dn <= 1e-6);
    }
    /* Separated: dense surface sampling. */
    if (regime < 2 && p % 4 == 0) {
      const int ns = 2000;
      double h = fmax(fmax(ax[0], ax[1]), ax[2]) * sqrt(4.0 * SREF_PI / ns), best = INFINITY;
      for (int i = 0; i < ns; i++) {
        double u[3], l[3], x[3];
        sref_fibonacci(ns, i, u);
        for (int k = 0; k < 3; k++) l[k] = ax[k] * u[k];
        sref_to_world(&a, l, x);
        best = fmin(best, b_distance(kind, &b, x));
      }
      st->sampled++;
      st->sample_gap = fmax(st->sample_gap, (best - phi) / h);
      st->sample_below = fmax(st->sample_below, (phi - best) / scale);
      CHECK(phi <= best + 1e-12 * scale);
      CHECK(best - phi <= h);
    }
    if (regime < 2 && p % 15 == 0 && kind != B_CAPSULE) {
      const int na_ = 500, nb_ = 500;
      static double xb[500][3];
      double bmax = kind == B_ELLIPSOID ? fmax(fmax(b.def.semi_axes[0], b.def.semi_axes[1]), b.def.semi_axes[2])
                                        : b.def.radius;
      double h = (fmax(fmax(ax[0], ax[1]), ax[2]) + bmax) * sqrt(4.0 * SREF_PI / na_), best = INFINITY;
      for (int j = 0; j < nb_; j++) b_surface(kind, &b, nb_, j, xb[j]);
      for (int i = 0; i < na_; i++) {
        double u[3], l[3], x[3];
        sref_fibonacci(na_, i, u);
        for (int k = 0; k < 3; k++) l[k] = ax[k] * u[k];
        sref_to_world(&a, l, x);
        for (int j = 0; j < nb_; j++) {
          double d[3] = {x[0] - xb[j][0], x[1] - xb[j][1], x[2] - xb[j][2]};
          best = fmin(best, sref_dot(d, d));
        }
      }
      best = sqrt(best);
      st->sampled2++;
      CHECK(phi <= best + 1e-12 * scale);
      CHECK(best - phi <= h);
    }
  }
}

static void report(const char *name, const stats_t *st) {
  printf("%s: %d poses (%d separated, %d touching, %d overlapping), %d not converged, %d fallbacks, "
         "max iterations %d\n",
         name, st->poses, st->separated, st->touching, st->overlapping, st->failed, st->fallbacks,
         st->iterations_max);
  printf("  |Φ−δ|/L %.2e  (δ−Φ)/L overlap %.2e  |implicit| %.2e  normals %.2e  angle(n, pB−pA) %.2e  "
         "|pB−pA−Φn|/L %.2e\n",
         st->err_exact, st->below_known, st->implicit, st->normal, st->parallel, st->consistency);
  printf("  max (g(u)−Φ)/L over 1000 dirs %.2e  swap (ellipsoid pairs): |ΔΦ|/L %.2e |Δn| %.2e  sampled %d (+%d two-surface): "
         "max (d_s−Φ)/h %.3f, max (Φ−d_s)/L %.2e\n",
         st->global, st->swap_phi, st->swap_n, st->sampled, st->sampled2, st->sample_gap, st->sample_below);
}

/* Capsule whose length changes in time: cylinder contact, same δ for every length. */
static void growing_capsule(void) {
  sref_shape_t a, b;
  sref_ellipsoid(&a, 1.0, 0.4, 0.25);
  double ra[3][3], rb[3][3], ca[3] = {0.1, -0.2, 0.3};
  sref_rng_t rng = {77};
  sref_rotation(&rng, ra);
  sref_place(&a, ca, ra);
  double n[3] = {0.0, 0.0, 1.0}, pa[3];
  ellipsoid_support(&a, n, pa);
  memset(&b.def, 0, sizeof b.def);
  b.def.type = CLT_SHAPE_CAPSULE;
  b.def.radius = 0.2;
  sref_identity(rb);
  /* Capsule axis along x, the axis point above p_A; centre offset 0.3 along the axis. */
  rb[0][0] = 0, rb[0][2] = 1, rb[2][0] = -1, rb[2][2] = 0;
  double worst = 0.0;
  for (int i = 0; i <= 100; i++) {
    double len = 0.61 + 0.05 * i, delta = -0.05, cb[3];
    for (int k = 0; k < 3; k++) cb[k] = pa[k] + (delta + b.def.radius) * n[k];
    cb[0] += 0.3;
    b.def.length = len;
    sref_place(&b, cb, rb);
    clt_contact_point_t c;
    clt_smooth_info_t info;
    clt_smooth_ellipsoid_capsule_query(&a.placed, &b.placed, &c, &info);
    CHECK(info.status == CLT_SMOOTH_OK);
    /* δ < 0 here: Φ ≥ δ, and the witness on the cylinder must be at p_A's height. */
    CHECK(c.distance >= delta - 1e-12);
    worst = fmax(worst, fabs(c.distance - delta));
  }
  printf("growing capsule: 101 lengths 0.61..5.61, max |Φ − δ| %.2e\n", worst);
  CHECK(worst <= 1e-10);
}

static void halfspace(void) {
  sref_rng_t rng = {99};
  double worst = 0.0, worst_implicit = 0.0;
  for (int p = 0; p < 500; p++) {
    sref_shape_t a, h;
    double ax[3], ra[3][3], ca[3], id[3][3], zero[3] = {0, 0, 0};
    random_axes(&rng, p % 4, ax);
    sref_ellipsoid(&a, ax[0], ax[1], ax[2]);
    sref_rotation(&rng, ra);
    for (int k = 0; k < 3; k++) ca[k] = sref_range(&rng, -1, 1);
    sref_place(&a, ca, ra);
    memset(&h.def, 0, sizeof h.def);
    h.def.type = CLT_SHAPE_HALFSPACE;
    double m[3];
    sref_unit(&rng, m);
    for (int k = 0; k < 3; k++) h.def.normal[k] = 2.0 * m[k], h.def.point[k] = sref_range(&rng, -1, 1);
    sref_identity(id);
    sref_place(&h, zero, id);
    clt_contact_point_t c;
    clt_smooth_info_t info;
    clt_smooth_ellipsoid_halfspace_query(&a.placed, &h.placed, &c, &info);
    CHECK(info.status == CLT_SMOOTH_OK);
    double rel[3];
    for (int k = 0; k < 3; k++) rel[k] = ca[k] - h.def.point[k];
    double expect = sref_dot(rel, m) - ellipsoid_sigma(&a, m);
    worst = fmax(worst, fabs(c.distance - expect));
    worst_implicit = fmax(worst_implicit, fabs(sref_ellipsoid_implicit(&a, c.point_a)));
    for (int k = 0; k < 3; k++) rel[k] = c.point_b[k] - h.def.point[k];
    CHECK(fabs(sref_dot(rel, m)) <= 1e-12);
    CHECK(fabs(c.normal[0] + m[0]) + fabs(c.normal[1] + m[1]) + fabs(c.normal[2] + m[2]) <= 1e-14);
    int count = clt_smooth_ellipsoid_halfspace(&a.placed, &h.placed, 0.0, &c);
    CHECK(count == (expect <= 0.0 ? 1 : 0));
  }
  printf("ellipsoid–half-space: 500 poses, max |Φ − closed form| %.2e, |implicit| %.2e\n", worst, worst_implicit);
  CHECK(worst <= 1e-12);
  CHECK(worst_implicit <= 1e-12);
}

/* Special poses: concentric, identical, deep, far; and the failure flag on bad input. */
static void special(void) {
  sref_shape_t a, b;
  double id[3][3], o[3] = {0, 0, 0};
  sref_identity(id);
  sref_ellipsoid(&a, 1.0, 0.5, 0.25);
  sref_ellipsoid(&b, 1.0, 0.5, 0.25);
  sref_place(&a, o, id);
  sref_place(&b, o, id);
  clt_contact_point_t c;
  clt_smooth_info_t info;
  /* Identical concentric ellipsoids: the minimum translation is twice the smallest semi-axis. */
  clt_smooth_ellipsoid_convex_query(&a.placed, &b.placed, &c, &info);
  CHECK(info.status == CLT_SMOOTH_OK);
  CHECK_NEAR(c.distance, -0.5, 1e-12);
  CHECK_NEAR(fabs(c.normal[2]), 1.0, 1e-12);
  /* Side by side along x, aligned axes: Φ = 0.5 exactly, n = x. */
  double cb[3] = {2.5, 0, 0};
  sref_place(&b, cb, id);
  clt_smooth_ellipsoid_convex_query(&a.placed, &b.placed, &c, &info);
  CHECK(info.status == CLT_SMOOTH_OK);
  CHECK_NEAR(c.distance, 0.5, 1e-14);
  CHECK_NEAR(c.normal[0], 1.0, 1e-14);
  /* Pair function: range cut, and the failure flag for non-finite input. */
  clt_contact_point_t out[4];
  CHECK(clt_smooth_ellipsoid_ellipsoid(&a.placed, &b.placed, 0.4, out) == 0);
  CHECK(clt_smooth_ellipsoid_ellipsoid(&a.placed, &b.placed, 0.6, out) == 1);
  cb[1] = NAN;
  sref_place(&b, cb, id);
  CHECK(clt_smooth_ellipsoid_convex_query(&a.placed, &b.placed, &c, &info) == CLT_SMOOTH_BAD_INPUT);
  CHECK(clt_smooth_ellipsoid_ellipsoid(&a.placed, &b.placed, INFINITY, out) == CLT_SMOOTH_FAILED);
  sref_ellipsoid(&b, 1.0, 0.0, 1.0);
  cb[1] = 0.0;
  sref_place(&b, cb, id);
  CHECK(clt_smooth_ellipsoid_convex_query(&a.placed, &b.placed, &c, &info) == CLT_SMOOTH_BAD_INPUT);
}

/* Φ along a straight path of B through A (separated → touching → overlapping → separated): the
 * signed distance is 1-Lipschitz in a translation of B, so consecutive values may differ by at
 * most the step; a jump would mean a missed or wrong maximum. */
static void sweep(void) {
  sref_rng_t rng = {4242};
  double worst = 0.0;
  int count = 0;
  for (int p = 0; p < 40; p++) {
    sref_shape_t a, b;
    double ax[3], bx[3], ra[3][3], rb[3][3], o[3] = {0, 0, 0}, w[3];
    random_axes(&rng, p % 4, ax);
    random_axes(&rng, (p / 4) % 4, bx);
    sref_ellipsoid(&a, ax[0], ax[1], ax[2]);
    sref_ellipsoid(&b, bx[0], bx[1], bx[2]);
    sref_rotation(&rng, ra);
    sref_rotation(&rng, rb);
    sref_place(&a, o, ra);
    sref_unit(&rng, w);
    double reach = fmax(fmax(ax[0], ax[1]), ax[2]) + fmax(fmax(bx[0], bx[1]), bx[2]), prev = NAN;
    double offset[3];
    sref_unit(&rng, offset);
    for (int i = 0; i <= 400; i++) {
      double t = reach * (-1.2 + 2.4 * i / 400.0), cb[3];
      for (int k = 0; k < 3; k++) cb[k] = 0.3 * reach * offset[k] + t * w[k];
      sref_place(&b, cb, rb);
      clt_contact_point_t c;
      clt_smooth_info_t info;
      clt_smooth_ellipsoid_convex_query(&a.placed, &b.placed, &c, &info);
      CHECK(info.status == CLT_SMOOTH_OK);
      if (i > 0) {
        double step = reach * 2.4 / 400.0, ratio = fabs(c.distance - prev) / step;
        worst = fmax(worst, ratio);
        CHECK(ratio <= 1.0 + 1e-9);
      }
      prev = c.distance;
      count++;
    }
  }
  printf("sweeps: %d poses on 40 straight paths through A, max |ΔΦ|/|Δx| %.6f (≤ 1)\n", count, worst);
}

int main(void) {
  stats_t ee = {0}, es = {0}, ec = {0};
  run_pair_family(B_ELLIPSOID, 3000, 1, &ee);
  report("ellipsoid–ellipsoid", &ee);
  run_pair_family(B_SPHERE, 1000, 2, &es);
  report("ellipsoid–sphere", &es);
  run_pair_family(B_CAPSULE, 2000, 3, &ec);
  report("ellipsoid–capsule", &ec);
  CHECK(ee.failed == 0 && es.failed == 0 && ec.failed == 0);
  growing_capsule();
  sweep();
  halfspace();
  special();
  return clt_test_finish();
}
