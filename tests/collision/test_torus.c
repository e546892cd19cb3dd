/* Torus / ring pairs through the pair table (clt_collide → src/collision/smooth_torus.c; the
 * direct queries are tested in test_smooth_torus.c) against brute force on random poses (fixed
 * seeds), linked and unlinked, separated, touching and overlapping. A torus is the set of points
 * within r of its centreline circle, so its signed distance to another swept shape is the core
 * distance minus the radii. References written here: the circle–circle (circle–segment) distance
 * as the minimum over 4096 sampled angles on A's circle (parameters on B's segment) of the
 * closed-form point–circle distance, every local minimum near the best refined by golden section;
 * for separated poses also the minimum over pairs of sampled surface points; witness points on the
 * surfaces, p_B − p_A = Φ n, n the outward normal at p_A. Half-space: each point's Φ is its
 * height, the smallest the minimum height of the torus. Every pose is also queried in the
 * swapped order (B, A): the table's swap must give the mirrored points exactly.
 * A ring lying flat on a floor: 4 points whose support square contains the centre (static
 * balance of the weight by non-negative normal forces), where the single lowest point of the
 * shared-normal query would not; tilted, the extra points drop out of range. */
#include <math.h>
#include <stdlib.h>

#include "collision/narrowphase.h"
#include "collision/smooth.h"
#include "collide_ref.h"
#include "test_util.h"

typedef struct ring_t {
  double c[3], R[3][3]; /* centre, rotation (column 2 = axis) */
  double major, minor;
} ring_t;

static void qmul4(double o[4], const double a[4], const double b[4]) {
  o[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  o[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  o[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  o[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}
static void qmat(double m[3][3], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  m[0][0] = 1 - 2 * (y * y + z * z), m[0][1] = 2 * (x * y - w * z), m[0][2] = 2 * (x * z + w * y);
  m[1][0] = 2 * (x * y + w * z), m[1][1] = 1 - 2 * (x * x + z * z), m[1][2] = 2 * (y * z - w * x);
  m[2][0] = 2 * (x * z - w * y), m[2][1] = 2 * (y * z + w * x), m[2][2] = 1 - 2 * (x * x + y * y);
}
static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm3(const double a[3]) { return sqrt(dot3(a, a)); }

static void ring_point(const ring_t *g, double t, double x[3]) {
  for (int i = 0; i < 3; i++) x[i] = g->c[i] + g->major * (cos(t) * g->R[i][0] + sin(t) * g->R[i][1]);
}
/* Distance from p to the centreline circle (closed form, written here) and the closest point. */
static double ref_point_circle(const ring_t *g, const double p[3], double q[3]) {
  double d[3], l[3];
  for (int i = 0; i < 3; i++) d[i] = p[i] - g->c[i];
  for (int k = 0; k < 3; k++) l[k] = g->R[0][k] * d[0] + g->R[1][k] * d[1] + g->R[2][k] * d[2];
  double rho = hypot(l[0], l[1]);
  double ang = rho > 0 ? atan2(l[1], l[0]) : 0.0;
  ring_point(g, ang, q);
  return sqrt((rho - g->major) * (rho - g->major) + l[2] * l[2]);
}
static double ref_circle_circle(const ring_t *a, const ring_t *b) {
  enum { n = 4096 };
  static double f[n];
  double q[3], x[3], best = INFINITY;
  for (int i = 0; i < n; i++) {
    ring_point(a, 2 * REF_PI * i / n, x);
    best = fmin(best, f[i] = ref_point_circle(b, x, q));
  }
  double result = best;
  for (int k = 0; k < n; k++) {
    if (f[k] > best + 0.05 || f[k] > f[(k + n - 1) % n] || f[k] > f[(k + 1) % n]) continue;
    double lo = 2 * REF_PI * (k - 1) / n, hi = 2 * REF_PI * (k + 1) / n, g = 0.6180339887498949;
    for (int it = 0; it < 100; it++) {
      double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), p1[3], p2[3];
      ring_point(a, x1, p1);
      ring_point(a, x2, p2);
      if (ref_point_circle(b, p1, q) <= ref_point_circle(b, p2, q))
        hi = x2;
      else
        lo = x1;
    }
    ring_point(a, 0.5 * (lo + hi), x);
    result = fmin(result, ref_point_circle(b, x, q));
  }
  return result;
}
static int ring_samples(const ring_t *g, double (*pts)[3], double *spacing) {
  int k = 0, nu = 64, nv = 20;
  for (int i = 0; i < nu; i++)
    for (int j = 0; j < nv; j++) {
      double u = 2 * REF_PI * i / nu, v = 2 * REF_PI * j / nv, l[3];
      l[0] = (g->major + g->minor * cos(v)) * cos(u), l[1] = (g->major + g->minor * cos(v)) * sin(u), l[2] = g->minor * sin(v);
      for (int m = 0; m < 3; m++) pts[k][m] = g->c[m] + g->R[m][0] * l[0] + g->R[m][1] * l[1] + g->R[m][2] * l[2];
      k++;
    }
  *spacing = hypot(2 * REF_PI * (g->major + g->minor) / nu, 2 * REF_PI * g->minor / nv);
  return k;
}

static void random_quat(rng_t *r, double q[4]) {
  double n;
  do {
    for (int k = 0; k < 4; k++) q[k] = rng_uniform(r, -1, 1);
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  } while (n < 0.1 || n > 1);
  for (int k = 0; k < 4; k++) q[k] /= n;
}

static clt_shape_def_t make_def(rng_t *r, clt_shape_type_t t) {
  clt_shape_def_t d;
  memset(&d, 0, sizeof d);
  d.type = t;
  d.local_orientation[0] = 1;
  if (t == CLT_SHAPE_TORUS) {
    d.major_radius = rng_uniform(r, 0.5, 1.5);
    d.minor_radius = rng_uniform(r, 0.05, 0.4) * d.major_radius;
    for (int k = 0; k < 3; k++) d.local_position[k] = rng_uniform(r, -0.2, 0.2);
    random_quat(r, d.local_orientation);
  } else if (t == CLT_SHAPE_SPHERE) {
    d.radius = rng_uniform(r, 0.1, 1.0);
  } else if (t == CLT_SHAPE_CAPSULE) {
    d.radius = rng_uniform(r, 0.05, 0.5);
    d.length = rng_int(r, 0, 5) == 0 ? 0.0 : rng_uniform(r, 0.1, 3.0);
    for (int k = 0; k < 3; k++) d.local_position[k] = rng_uniform(r, -0.2, 0.2);
    random_quat(r, d.local_orientation);
  } else {
    for (int k = 0; k < 3; k++) d.normal[k] = rng_uniform(r, -1, 1), d.point[k] = rng_uniform(r, -0.3, 0.3);
  }
  return d;
}

static void place_ring(const clt_shape_def_t *d, const clt_collide_pose_t *p, ring_t *g) {
  double Rb[3][3], q[4];
  qmat(Rb, p->orientation);
  for (int i = 0; i < 3; i++) g->c[i] = p->position[i] + dot3(Rb[i], d->local_position);
  const double *a = p->orientation, *b = d->local_orientation;
  q[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  q[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  q[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  q[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  qmat(g->R, q);
  g->major = d->major_radius, g->minor = d->minor_radius;
}

/* Distance from B's segment [p0, p1] to A's centreline circle: 4096 sampled parameters (ends
 * included), every local minimum near the best refined by golden section. */
static double ref_segment_circle(const ring_t *a, const double p0[3], const double p1[3]) {
  enum { n = 4096 };
  static double f[n + 1];
  double q[3], x[3], best = INFINITY;
  for (int i = 0; i <= n; i++) {
    for (int k = 0; k < 3; k++) x[k] = p0[k] + (p1[k] - p0[k]) * i / n;
    best = fmin(best, f[i] = ref_point_circle(a, x, q));
  }
  double result = best;
  for (int i = 0; i <= n; i++) {
    /* (strict on the left: a plateau, e.g. a zero-length segment, is refined once) */
    if (f[i] > best + 0.05 || (i > 0 && f[i] >= f[i - 1]) || (i < n && f[i] > f[i + 1])) continue;
    double lo = fmax(0.0, (double)(i - 1) / n), hi = fmin(1.0, (double)(i + 1) / n), g = 0.6180339887498949;
    for (int it = 0; it < 100; it++) {
      double t1 = hi - g * (hi - lo), t2 = lo + g * (hi - lo), y1[3], y2[3];
      for (int k = 0; k < 3; k++) y1[k] = p0[k] + t1 * (p1[k] - p0[k]), y2[k] = p0[k] + t2 * (p1[k] - p0[k]);
      if (ref_point_circle(a, y1, q) <= ref_point_circle(a, y2, q))
        hi = t2;
      else
        lo = t1;
    }
    for (int k = 0; k < 3; k++) x[k] = p0[k] + 0.5 * (lo + hi) * (p1[k] - p0[k]);
    result = fmin(result, ref_point_circle(a, x, q));
  }
  return result;
}

/* Closest point of segment [p0, p1] to x, and the distance. */
static double ref_point_segment(const double p0[3], const double p1[3], const double x[3], double q[3]) {
  double d[3], e[3];
  for (int k = 0; k < 3; k++) d[k] = p1[k] - p0[k], e[k] = x[k] - p0[k];
  double l2 = dot3(d, d), t = l2 > 0 ? dot3(e, d) / l2 : 0.0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  for (int k = 0; k < 3; k++) q[k] = p0[k] + t * d[k], e[k] = x[k] - q[k];
  return norm3(e);
}

static int swap_mismatch; /* poses whose (B, A) answer is not the exact mirror of (A, B) */

static void run(clt_shape_type_t tb, int poses, uint64_t seed, const char *name) {
  rng_t rng = {seed};
  pair_stats_t st;
  stats_init(&st, name);
  int linked = 0;
  for (int pi = 0; pi < poses; pi++) {
    clt_shape_def_t da = make_def(&rng, CLT_SHAPE_TORUS), db = make_def(&rng, tb);
    clt_collide_pose_t pa, pb;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    random_quat(&rng, pa.orientation);
    random_quat(&rng, pb.orientation);
    double dir[3], reach = da.major_radius + da.minor_radius +
                           (tb == CLT_SHAPE_TORUS ? db.major_radius : tb == CLT_SHAPE_CAPSULE ? db.radius + 0.5 * db.length : 0.5);
    for (int k = 0; k < 3; k++) dir[k] = rng_uniform(&rng, -1, 1);
    double dl = norm3(dir), dist = rng_uniform(&rng, 0, 1.2 * reach);
    for (int k = 0; k < 3; k++) pb.position[k] = dist * dir[k] / dl;
    clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS];
    int n = clt_collide(&da, &pa, &db, &pb, 1e3, c, CLT_MAX_PAIR_CONTACTS);
    if (pi % 3 == 1 && n > 0) {
      for (int k = 0; k < 3; k++) pb.position[k] -= c[0].distance * c[0].normal[k];
      n = clt_collide(&da, &pa, &db, &pb, 1e3, c, CLT_MAX_PAIR_CONTACTS);
    }
    { /* The swapped order: through the table's swap (B not a torus) the exact mirror; two tori
       * run the pair routine in the other order, the same answer to rounding. */
      clt_contact_point_t s[CLT_MAX_PAIR_CONTACTS];
      int ns = clt_collide(&db, &pb, &da, &pa, 1e3, s, CLT_MAX_PAIR_CONTACTS);
      double tol = tb == CLT_SHAPE_TORUS ? 1e-12 : 0.0;
      bool same = ns == n;
      for (int i = 0; same && i < n; i++) {
        same = fabs(s[i].distance - c[i].distance) <= tol && (tol > 0 || s[i].feature == c[i].feature);
        for (int k = 0; k < 3; k++)
          same = same && fabs(s[i].normal[k] + c[i].normal[k]) <= 1e3 * tol &&
                 fabs(s[i].point_a[k] - c[i].point_b[k]) <= 1e3 * tol && fabs(s[i].point_b[k] - c[i].point_a[k]) <= 1e3 * tol;
      }
      swap_mismatch += !same;
    }
    ring_t ga, gb;
    memset(&gb, 0, sizeof gb);
    place_ring(&da, &pa, &ga);
    if (tb == CLT_SHAPE_TORUS || tb == CLT_SHAPE_CAPSULE) place_ring(&db, &pb, &gb); /* capsule: centre, axis */
    double s0[3], s1[3]; /* capsule core ends */
    for (int k = 0; k < 3; k++)
      s0[k] = gb.c[k] - 0.5 * db.length * gb.R[k][2], s1[k] = gb.c[k] + 0.5 * db.length * gb.R[k][2];
    double phi_ref, q[3];
    double N[3], P[3], nl = norm3(db.normal), Rb[3][3];
    qmat(Rb, pb.orientation);
    for (int i = 0; i < 3; i++) N[i] = dot3(Rb[i], db.normal) / nl, P[i] = pb.position[i] + dot3(Rb[i], db.point);
    if (tb == CLT_SHAPE_TORUS) {
      phi_ref = ref_circle_circle(&ga, &gb) - ga.minor - gb.minor;
    } else if (tb == CLT_SHAPE_CAPSULE) {
      phi_ref = ref_segment_circle(&ga, s0, s1) - ga.minor - db.radius;
    } else if (tb == CLT_SHAPE_SPHERE) {
      phi_ref = ref_point_circle(&ga, pb.position, q) - ga.minor - db.radius;
    } else {
      /* lowest centreline point: 20000 sampled angles, the best refined by golden section */
      phi_ref = INFINITY;
      int best_i = 0;
      for (int i = 0; i < 20000; i++) {
        double x[3], d[3];
        ring_point(&ga, 2 * REF_PI * i / 20000, x);
        for (int k = 0; k < 3; k++) d[k] = x[k] - P[k];
        if (dot3(d, N) - ga.minor < phi_ref) phi_ref = dot3(d, N) - ga.minor, best_i = i;
      }
      double lo = 2 * REF_PI * (best_i - 1) / 20000, hi = 2 * REF_PI * (best_i + 1) / 20000, g = 0.6180339887498949;
      for (int it = 0; it < 100; it++) {
        double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), p1[3], p2[3], d1[3], d2[3];
        ring_point(&ga, x1, p1);
        ring_point(&ga, x2, p2);
        for (int k = 0; k < 3; k++) d1[k] = p1[k] - P[k], d2[k] = p2[k] - P[k];
        if (dot3(d1, N) <= dot3(d2, N))
          hi = x2;
        else
          lo = x1;
      }
      double xm[3], dm[3];
      ring_point(&ga, 0.5 * (lo + hi), xm);
      for (int k = 0; k < 3; k++) dm[k] = xm[k] - P[k];
      phi_ref = fmin(phi_ref, dot3(dm, N) - ga.minor);
    }
    st.poses++;
    st.contacts += n;
    if (phi_ref > 1e-7) st.separated++;
    else if (phi_ref < -1e-7) st.overlapping++;
    else st.touching++;
    CHECK(n >= 1);
    if (n < 1) continue;
    double min_phi = INFINITY;
    for (int i = 0; i < n; i++) {
      const clt_contact_point_t *k = &c[i];
      min_phi = fmin(min_phi, k->distance);
      fmax_track(&st.normal_error, fabs(norm3(k->normal) - 1));
      double id[3], na[3];
      for (int m = 0; m < 3; m++) id[m] = k->point_b[m] - k->point_a[m] - k->distance * k->normal[m];
      fmax_track(&st.identity_error, norm3(id));
      double ea = fabs(ref_point_circle(&ga, k->point_a, q) - ga.minor);
      if (ea > 1e-12 && tb == CLT_SHAPE_HALFSPACE) {
        /* the extra half-space points stand for the tube's ball about a centreline point x =
         * p_A − r n: p_A on that ball, inside the torus */
        double x[3], qx[3];
        for (int m = 0; m < 3; m++) x[m] = k->point_a[m] - ga.minor * k->normal[m];
        double on_circle = ref_point_circle(&ga, x, qx);
        CHECK(ref_point_circle(&ga, k->point_a, q) <= ga.minor + 1e-12);
        fmax_track(&st.surface_error, on_circle);
      } else {
        fmax_track(&st.surface_error, ea);
        for (int m = 0; m < 3; m++) na[m] = (k->point_a[m] - q[m]) / ga.minor - k->normal[m];
        fmax_track(&st.normal_error, norm3(na));
      }
      if (tb == CLT_SHAPE_TORUS) {
        fmax_track(&st.surface_error, fabs(ref_point_circle(&gb, k->point_b, q) - gb.minor));
      } else if (tb == CLT_SHAPE_CAPSULE) { /* on the capsule, its outward normal there −n */
        fmax_track(&st.surface_error, fabs(ref_point_segment(s0, s1, k->point_b, q) - db.radius));
        for (int m = 0; m < 3; m++) na[m] = (k->point_b[m] - q[m]) / db.radius + k->normal[m];
        fmax_track(&st.normal_error, norm3(na));
      } else if (tb == CLT_SHAPE_SPHERE) {
        double d[3] = {k->point_b[0] - pb.position[0], k->point_b[1] - pb.position[1], k->point_b[2] - pb.position[2]};
        fmax_track(&st.surface_error, fabs(norm3(d) - db.radius));
      } else {
        double d[3] = {k->point_b[0] - P[0], k->point_b[1] - P[1], k->point_b[2] - P[2]};
        fmax_track(&st.surface_error, fabs(dot3(d, N)));
        double e[3] = {k->point_a[0] - P[0], k->point_a[1] - P[1], k->point_a[2] - P[2]};
        fmax_track(&st.distance_error, fabs(dot3(e, N) - k->distance)); /* Φ = height of p_A */
      }
    }
    fmax_track(&st.distance_error, fabs(min_phi - phi_ref));
    if (fabs(min_phi - phi_ref) > 1e-8) fprintf(stderr, "%s pose %d: phi %.12g ref %.12g\n", name, pi, min_phi, phi_ref);
    if (tb == CLT_SHAPE_TORUS) { /* linked rings: B's circle passes through A's disk an odd number of times */
      int crossings = 0;
      double prev = 0;
      for (int i = 0; i <= 720; i++) {
        double x[3], l[3], d[3];
        ring_point(&gb, 2 * REF_PI * i / 720, x);
        for (int m = 0; m < 3; m++) d[m] = x[m] - ga.c[m];
        for (int m = 0; m < 3; m++) l[m] = ga.R[0][m] * d[0] + ga.R[1][m] * d[1] + ga.R[2][m] * d[2];
        if (i > 0 && (prev < 0) != (l[2] < 0)) {
          double t = prev / (prev - l[2]);
          (void)t;
          if (hypot(l[0], l[1]) < ga.major) crossings++;
        }
        prev = l[2];
      }
      linked += crossings % 2;
    }
    if (phi_ref > 1e-7 && pi % 10 == 0 && (tb == CLT_SHAPE_TORUS || tb == CLT_SHAPE_SPHERE)) {
      static double sa[1400][3], sb[1400][3];
      double ha, hb = 0;
      int ma = ring_samples(&ga, sa, &ha), mb;
      if (tb == CLT_SHAPE_TORUS) {
        mb = ring_samples(&gb, sb, &hb);
      } else { /* sphere: a Fibonacci sphere */
        mb = 1000;
        double g = REF_PI * (3 - sqrt(5.0));
        for (int i = 0; i < mb; i++) {
          double z = 1 - 2 * (i + 0.5) / mb, rr = sqrt(1 - z * z);
          sb[i][0] = pb.position[0] + db.radius * rr * cos(g * i), sb[i][1] = pb.position[1] + db.radius * rr * sin(g * i);
          sb[i][2] = pb.position[2] + db.radius * z;
        }
        hb = 2 * db.radius * sqrt(4 * REF_PI / mb);
      }
      double best = INFINITY;
      for (int i = 0; i < ma; i++)
        for (int j = 0; j < mb; j++) {
          double d[3] = {sa[i][0] - sb[j][0], sa[i][1] - sb[j][1], sa[i][2] - sb[j][2]};
          best = fmin(best, dot3(d, d));
        }
      double gap = sqrt(best) - min_phi;
      fmax_track(&st.sampled_gap, gap);
      if (gap < st.sampled_gap_min) st.sampled_gap_min = gap;
      CHECK(gap >= -1e-9);
      CHECK_LE(gap, ha + hb);
    }
  }
  stats_print(&st);
  if (tb == CLT_SHAPE_TORUS) printf("  linked pairs among them: %d\n", linked);
  CHECK_LE(st.distance_error, 1e-9);
  CHECK_LE(st.surface_error, 1e-9);
  CHECK_LE(st.identity_error, 1e-9);
  CHECK_LE(st.normal_error, 1e-7);
  CHECK(st.separated > poses / 20 && st.touching > poses / 20 && st.overlapping > poses / 20);
  if (tb == CLT_SHAPE_TORUS) CHECK(linked > poses / 20);
}

/* Projection of x on the plane through p with unit normal m. */
static void project(const double x[3], const double p[3], const double m[3], double out[3]) {
  double d[3] = {x[0] - p[0], x[1] - p[1], x[2] - p[2]};
  double h = dot3(d, m);
  for (int k = 0; k < 3; k++) out[k] = x[k] - h * m[k];
}

/* Smallest signed distance from c to the edges of the polygon pts[0..n) (in order, in the plane of
 * normal m), positive inside: c lies inside the support polygon when it is > 0. A polygon of
 * fewer than 3 points has no inside: returns minus the distance from c to the nearest point. */
static double support_margin(const double (*pts)[3], int n, const double c[3], const double m[3]) {
  if (n < 3) {
    double best = INFINITY;
    for (int i = 0; i < n; i++) {
      double d[3] = {c[0] - pts[i][0], c[1] - pts[i][1], c[2] - pts[i][2]};
      best = fmin(best, norm3(d));
    }
    return -best;
  }
  double margin[2] = {INFINITY, INFINITY}; /* for either orientation of the polygon */
  for (int i = 0; i < n; i++) {
    const double *a = pts[i], *b = pts[(i + 1) % n];
    double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, r[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, x[3];
    x[0] = e[1] * r[2] - e[2] * r[1], x[1] = e[2] * r[0] - e[0] * r[2], x[2] = e[0] * r[1] - e[1] * r[0];
    double side = dot3(x, m) / norm3(e);
    margin[0] = fmin(margin[0], side);
    margin[1] = fmin(margin[1], -side);
  }
  return fmax(margin[0], margin[1]);
}

/* A ring lying flat, nearly flat and tilted on a floor (002 §5.5 rings resting on a plane). */
static void ring_on_floor(void) {
  const double R = 0.8, r = 0.1, eps = 1e-3;
  clt_shape_def_t ring, floor;
  memset(&ring, 0, sizeof ring);
  memset(&floor, 0, sizeof floor);
  ring.type = CLT_SHAPE_TORUS, ring.major_radius = R, ring.minor_radius = r, ring.local_orientation[0] = 1;
  floor.type = CLT_SHAPE_HALFSPACE, floor.normal[2] = 1, floor.local_orientation[0] = 1;
  rng_t rng = {77};
  int flat_ok = 0, tilted_ok = 0, flat_n = 0, tilted_n = 0, trials = 50;
  for (int trial = 0; trial < trials; trial++) {
    /* A common random frame q for floor and ring, the ring turned about its axis by spin and
     * tilted by tilt about a random in-plane direction; its lowest centreline point at height r
     * + gap above the floor (the floor's point at the origin of its frame). */
    clt_collide_pose_t pr, pf;
    memset(&pr, 0, sizeof pr);
    memset(&pf, 0, sizeof pf);
    random_quat(&rng, pf.orientation);
    double tilt = trial % 3 == 0 ? 0.0 : trial % 3 == 1 ? 1e-4 : 0.3, spin = rng_uniform(&rng, -REF_PI, REF_PI);
    double dir = rng_uniform(&rng, -REF_PI, REF_PI), gap = trial % 2 ? 0.0 : -2e-4;
    double qs[4] = {cos(0.5 * spin), 0, 0, sin(0.5 * spin)};
    double qt[4] = {cos(0.5 * tilt), sin(0.5 * tilt) * cos(dir), sin(0.5 * tilt) * sin(dir), 0}, q1[4];
    qmul4(q1, qt, qs);
    qmul4(pr.orientation, pf.orientation, q1);
    double Rf[3][3], m[3], c[3], local_c[3] = {rng_uniform(&rng, -2, 2), rng_uniform(&rng, -2, 2), 0};
    local_c[2] = r + gap + R * sin(tilt); /* centre height: the lowest point is R sin(tilt) below it */
    qmat(Rf, pf.orientation);
    for (int i = 0; i < 3; i++) m[i] = Rf[i][2], c[i] = dot3(Rf[i], local_c);
    memcpy(pr.position, c, sizeof c);
    clt_contact_point_t pts[8];
    int n = clt_collide(&ring, &pr, &floor, &pf, eps, pts, 8);
    double foot[4][3], centre[3], origin[3] = {0, 0, 0};
    project(c, origin, m, centre);
    double min_phi = INFINITY, phi_exact = gap;
    for (int i = 0; i < n; i++) {
      min_phi = fmin(min_phi, pts[i].distance);
      project(pts[i].point_a, origin, m, foot[i]);
      double d[3] = {pts[i].point_b[0] - pts[i].point_a[0], pts[i].point_b[1] - pts[i].point_a[1],
                     pts[i].point_b[2] - pts[i].point_a[2]};
      CHECK_NEAR(dot3(d, m), -pts[i].distance, 1e-12); /* p_A Φ above the floor, p_B on it */
      CHECK_NEAR(dot3(pts[i].normal, m), -1.0, 1e-15);
      CHECK(pts[i].feature == i);
    }
    double margin = support_margin((const double(*)[3])foot, n, centre, m);
    if (tilt < 1e-3) {
      /* Flat or nearly so: 4 points, a square of half-diagonal R about the centre: the weight is
       * balanced by 4 equal normal forces (the centre is the feet's centroid), with margin R/√2. */
      CHECK(n == 4);
      CHECK_NEAR(min_phi, phi_exact, 1e-12);
      CHECK_NEAR(margin, R / sqrt(2.0), 1e-4);
      double centroid[3] = {0, 0, 0};
      for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) centroid[k] += 0.25 * foot[i][k];
      double off[3] = {centroid[0] - centre[0], centroid[1] - centre[1], centroid[2] - centre[2]};
      CHECK_LE(norm3(off), 1e-12);
      flat_n++;
      flat_ok += n == 4 && margin > 0.5 * R;
      /* The shared-normal query alone gives one rim point, R off the centre: its normal force has
       * a lever arm R about the centre of mass and tips the ring (it rocks). */
      clt_placed_shape_t sr, sf;
      clt_place_shape(&ring, &pr, 3, &sr);
      clt_place_shape(&floor, &pf, 3, &sf);
      clt_contact_point_t one;
      CHECK(clt_smooth_torus_halfspace_query(&sr, &sf, &one, NULL) == CLT_SMOOTH_OK);
      double f1[3];
      project(one.point_a, origin, m, f1);
      CHECK_NEAR(support_margin((const double(*)[3])&f1, 1, centre, m), -R * cos(tilt), 1e-12);
      CHECK(one.distance == pts[0].distance); /* the table's first point is the query's */
    } else {
      /* Tilted 0.3 rad: the quarter turns are R sin(tilt) ≈ 0.24 higher: out of range. */
      CHECK(n == 1);
      CHECK_NEAR(min_phi, phi_exact, 1e-12);
      tilted_n++;
      tilted_ok += n == 1;
      clt_contact_point_t all[8];
      CHECK(clt_collide(&ring, &pr, &floor, &pf, 10.0, all, 8) == 4);
      double h = R * sin(tilt);
      CHECK_NEAR(all[0].distance, gap, 1e-12);
      CHECK_NEAR(all[1].distance, gap + h, 1e-12);
      CHECK_NEAR(all[2].distance, gap + 2 * h, 1e-12);
      CHECK_NEAR(all[3].distance, gap + h, 1e-12);
      CHECK(clt_collide(&ring, &pr, &floor, &pf, 10.0, all, 1) == 1 && all[0].feature == 0); /* deepest kept */
    }
  }
  printf("ring on a floor: %d/%d flat or nearly flat poses rest on 4 points around the centre, %d/%d tilted on 1\n",
         flat_ok, flat_n, tilted_ok, tilted_n);
  CHECK(flat_ok == flat_n && tilted_ok == tilted_n && flat_n > 0 && tilted_n > 0);
}

int main(void) {
  run(CLT_SHAPE_TORUS, 1500, 61, "torus-torus");
  run(CLT_SHAPE_SPHERE, 1500, 62, "torus-sphere");
  run(CLT_SHAPE_CAPSULE, 1500, 64, "torus-capsule");
  run(CLT_SHAPE_HALFSPACE, 500, 63, "torus-halfspace");
  printf("swapped order (B, A) not the mirror of (A, B): %d poses\n", swap_mismatch);
  CHECK(swap_mismatch == 0);
  ring_on_floor();
  /* Two linked rings pulled taut (002 §5.5 chain mail): rings of radius 1 in perpendicular planes,
   * centres 1.5 apart along x: the centrelines pass at distance 0.5, Φ = 0.5 − 2·0.1. */
  clt_shape_def_t ring;
  memset(&ring, 0, sizeof ring);
  ring.type = CLT_SHAPE_TORUS, ring.major_radius = 1, ring.minor_radius = 0.1, ring.local_orientation[0] = 1;
  clt_collide_pose_t pa, pb;
  memset(&pa, 0, sizeof pa);
  memset(&pb, 0, sizeof pb);
  pa.orientation[0] = 1;
  pb.orientation[0] = cos(REF_PI / 4), pb.orientation[1] = sin(REF_PI / 4); /* axis along −y */
  pb.position[0] = 1.5;
  clt_contact_point_t c[4];
  int n = clt_collide(&ring, &pa, &ring, &pb, 1.0, c, 4);
  CHECK(n == 1);
  CHECK_NEAR(c[0].distance, 0.3, 1e-12);
  CHECK_NEAR(c[0].normal[0], -1, 1e-9); /* from A's far side (x = 1) back towards B's near side at x = 0.5 */
  return clt_test_finish();
}
