/* Cylinder pairs and polyhedron–ellipsoid through clt_collide (src/collision/convex_smooth.c,
 * docs/shapes.md): random poses apart and overlapping, against a reference independent of
 * src/collision: the signed distance of two convex shapes is the maximum over unit u of the support
 * separation g(u) = −h_A(u) − h_B(−u) (the distance apart, minus the penetration depth in overlap),
 * found here from 6 000 directions and then refined by a shrinking pattern search on the sphere,
 * with each shape's support written out again here. The exact pair is always among the points
 * (|Φ − reference| of the nearest), every point has p_B − p_A = Φ n and apart the witnesses lie on
 * the surfaces; closed forms: cylinder–half-space (every rim point's height) and cylinder–sphere. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "clatter/world.h"
#include "collision/narrowphase.h"
#include "test_util.h"

typedef struct rng_t {
  uint64_t s;
} rng_t;
static uint64_t rng_next(rng_t *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double uni(rng_t *r, double lo, double hi) { return lo + (hi - lo) * (double)(rng_next(r) >> 11) / 9007199254740992.0; }
static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm(const double a[3]) { return sqrt(dot(a, a)); }

static void mat(const double q[4], double m[3][3]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double t[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  memcpy(m, t, sizeof t);
}

/* h(u) = max over the placed shape of u·x */
static double support_value(const clt_shape_def_t *d, const clt_collide_pose_t *p, const double u[3]) {
  double m[3][3], l[3];
  mat(p->orientation, m);
  for (int i = 0; i < 3; i++) l[i] = m[0][i] * u[0] + m[1][i] * u[1] + m[2][i] * u[2];
  double v = dot(u, p->position);
  switch (d->type) {
    case CLT_SHAPE_SPHERE: return v + d->radius * norm(l);
    case CLT_SHAPE_CAPSULE: return v + d->radius * norm(l) + 0.5 * d->length * fabs(l[2]);
    case CLT_SHAPE_BOX:
      return v + d->half_extents[0] * fabs(l[0]) + d->half_extents[1] * fabs(l[1]) + d->half_extents[2] * fabs(l[2]);
    case CLT_SHAPE_CYLINDER: return v + d->radius * hypot(l[0], l[1]) + 0.5 * d->length * fabs(l[2]);
    case CLT_SHAPE_ELLIPSOID: {
      double q[3] = {d->semi_axes[0] * l[0], d->semi_axes[1] * l[1], d->semi_axes[2] * l[2]};
      return v + norm(q);
    }
    case CLT_SHAPE_POLYHEDRON: {
      const double(*vx)[3] = clt_convex_vertices(d->convex);
      double best = -INFINITY;
      for (int i = 0; i < clt_convex_vertex_count(d->convex); i++) best = fmax(best, dot(l, vx[i]));
      return v + best;
    }
    default: return NAN;
  }
}

static double g(const clt_shape_def_t *a, const clt_collide_pose_t *pa, const clt_shape_def_t *b,
                const clt_collide_pose_t *pb, const double u[3]) {
  double nu[3] = {-u[0], -u[1], -u[2]};
  return -support_value(a, pa, u) - support_value(b, pb, nu);
}

static rng_t search_rng = {99};

/* Pattern search for the maximum of g from u (unit), in place; returns the value. */
static double climb(const clt_shape_def_t *a, const clt_collide_pose_t *pa, const clt_shape_def_t *b,
                    const clt_collide_pose_t *pb, double u[3]) {
  double best = g(a, pa, b, pb, u);
  for (double step = 0.05; step > 1e-15; step *= 0.5) {
    bool moved = true;
    while (moved) {
      moved = false;
      double t1[3], t2[3], h[3] = {fabs(u[0]) < 0.6 ? 1.0 : 0.0, fabs(u[0]) < 0.6 ? 0.0 : 1.0, 0.0};
      t1[0] = u[1] * h[2] - u[2] * h[1];
      t1[1] = u[2] * h[0] - u[0] * h[2];
      t1[2] = u[0] * h[1] - u[1] * h[0];
      double l = norm(t1);
      for (int k = 0; k < 3; k++) t1[k] /= l;
      t2[0] = u[1] * t1[2] - u[2] * t1[1];
      t2[1] = u[2] * t1[0] - u[0] * t1[2];
      t2[2] = u[0] * t1[1] - u[1] * t1[0];
      /* 24 directions turned by a new offset each sweep: the search also climbs along the ridges of
       * g (a cylinder's or a polyhedron's support is kinked), where fixed directions stall. */
      double offset = 0.26179938779914941 * (double)(rng_next(&search_rng) >> 11) / 9007199254740992.0;
      for (int dir = 0; dir < 24; dir++) {
        double c = cos(offset + dir * 0.26179938779914941), s = sin(offset + dir * 0.26179938779914941), v[3];
        for (int k = 0; k < 3; k++) v[k] = u[k] + step * (c * t1[k] + s * t2[k]);
        double vl = norm(v);
        for (int k = 0; k < 3; k++) v[k] /= vl;
        double gv = g(a, pa, b, pb, v);
        if (gv > best) {
          best = gv;
          memcpy(u, v, sizeof v);
          moved = true;
        }
      }
    }
  }
  return best;
}

/* The largest g found by climbing from the 6 best of 6 000 directions and from `start` (the answer
 * under test: a climb from it that gets higher shows it is not the maximum). */
static double reference(const clt_shape_def_t *a, const clt_collide_pose_t *pa, const clt_shape_def_t *b,
                        const clt_collide_pose_t *pb, const double start[3]) {
  enum { GRID = 6000, STARTS = 6 };
  double top[STARTS][3], top_g[STARTS];
  for (int k = 0; k < STARTS; k++) top_g[k] = -INFINITY;
  for (int i = 0; i < GRID; i++) { /* Fibonacci sphere */
    double z = 1.0 - (2.0 * i + 1.0) / GRID, r = sqrt(1.0 - z * z), phi = i * 2.399963229728653;
    double v[3] = {r * cos(phi), r * sin(phi), z};
    double gv = g(a, pa, b, pb, v);
    int worst = 0;
    for (int k = 1; k < STARTS; k++)
      if (top_g[k] < top_g[worst]) worst = k;
    if (gv > top_g[worst]) {
      top_g[worst] = gv;
      memcpy(top[worst], v, sizeof v);
    }
  }
  double best = -INFINITY, u[3];
  for (int k = 0; k < STARTS; k++) best = fmax(best, climb(a, pa, b, pb, top[k]));
  memcpy(u, start, sizeof u);
  return fmax(best, climb(a, pa, b, pb, u));
}

static void random_quat(rng_t *r, double q[4]) {
  double n;
  do {
    for (int k = 0; k < 4; k++) q[k] = uni(r, -1, 1);
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  } while (n < 0.1 || n > 1);
  for (int k = 0; k < 4; k++) q[k] /= n;
}

static clt_shape_def_t random_shape(rng_t *r, clt_shape_type_t t, clt_convex_t **keep) {
  clt_shape_def_t d = clt_default_shape_def(t);
  switch (t) {
    case CLT_SHAPE_CYLINDER:
      d.radius = uni(r, 0.1, 0.5);
      d.length = uni(r, 0.1, 1.0);
      break;
    case CLT_SHAPE_CAPSULE:
      d.radius = uni(r, 0.05, 0.3);
      d.length = uni(r, 0.0, 0.8);
      break;
    case CLT_SHAPE_BOX:
      for (int k = 0; k < 3; k++) d.half_extents[k] = uni(r, 0.1, 0.5);
      break;
    case CLT_SHAPE_ELLIPSOID:
      for (int k = 0; k < 3; k++) d.semi_axes[k] = uni(r, 0.1, 0.5);
      break;
    case CLT_SHAPE_POLYHEDRON: {
      double p[20][3];
      int n = 6 + (int)(rng_next(r) % 14);
      for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) p[i][k] = uni(r, -0.5, 0.5);
      CHECK(clt_convex_from_points((const double(*)[3])p, n, keep, NULL, 0) == CLT_OK);
      d.convex = *keep;
      break;
    }
    default: d.radius = uni(r, 0.05, 0.4); break;
  }
  return d;
}

static void random_pairs(const char *name, clt_shape_type_t ta, clt_shape_type_t tb, int count, rng_t *rng) {
  double worst = 0, consistency = 0;
  int apart = 0, overlap = 0, multi = 0;
  for (int i = 0; i < count; i++) {
    clt_convex_t *ka = NULL, *kb = NULL;
    clt_shape_def_t da = random_shape(rng, ta, &ka), db = random_shape(rng, tb, &kb);
    clt_collide_pose_t pa = {{0, 0, 0}, 0, {1, 0, 0, 0}}, pb = pa;
    random_quat(rng, pa.orientation);
    random_quat(rng, pb.orientation);
    double dir[3];
    do {
      for (int k = 0; k < 3; k++) dir[k] = uni(rng, -1, 1);
    } while (norm(dir) > 1 || norm(dir) < 0.1);
    double dist = uni(rng, 0.0, 1.2), l = norm(dir);
    for (int k = 0; k < 3; k++) pb.position[k] = dist * dir[k] / l;
    clt_contact_point_t c[CLT_MAX_PAIR_CONTACTS];
    int n = clt_collide(&da, &pa, &db, &pb, 10.0, c, CLT_MAX_PAIR_CONTACTS);
    CHECK(n >= 1);
    if (n < 1) {
      printf("%s pose %d: clt_collide returned %d\n", name, i, n);
      clt_convex_release(ka);
      clt_convex_release(kb);
      continue;
    }
    if (n > 1) multi++;
    /* The exact pair: the point whose normal attains its Φ as g (every point's Φ ≥ it). */
    int e = 0;
    for (int k = 1; k < n; k++)
      if (fabs(g(&da, &pa, &db, &pb, c[k].normal) - c[k].distance) < fabs(g(&da, &pa, &db, &pb, c[e].normal) - c[e].distance)) e = k;
    double attained = fabs(g(&da, &pa, &db, &pb, c[e].normal) - c[e].distance);
    double ref = reference(&da, &pa, &db, &pb, c[e].normal), beaten = ref - c[e].distance;
    for (int k = 0; k < n; k++) {
      double d[3];
      for (int j = 0; j < 3; j++) d[j] = c[k].point_b[j] - c[k].point_a[j] - c[k].distance * c[k].normal[j];
      consistency = fmax(consistency, fmax(norm(d), fabs(norm(c[k].normal) - 1)));
    }
    if (fmax(attained, fabs(beaten)) > 1e-9)
      printf("%s pose %d: Phi %.12g, g(n) - Phi %.3e, best g found %.12g (%.3e above)\n", name, i, c[e].distance,
             attained, ref, beaten);
    worst = fmax(worst, fmax(attained, beaten));
    if (ref > 0) apart++;
    else overlap++;
    clt_convex_release(ka);
    clt_convex_release(kb);
  }
  printf("%-22s poses %4d (apart %4d, overlapping %4d, with a manifold %d): g(n) - Phi and the best g "
         "found above Phi: %.2e, p_B - p_A - Phi n %.2e\n", name, count, apart, overlap, multi, worst, consistency);
  CHECK_LE(worst, 1e-9);
  CHECK_LE(consistency, 1e-12);
}

/* Cylinder against a half-space: Φ of every point is the height of a rim point; the smallest is the
 * lowest point's (closed form: h·|a·m| + r·√(1 − (a·m)²) below the centre). */
static void halfspace(rng_t *rng) {
  double worst = 0;
  for (int i = 0; i < 2000; i++) {
    clt_shape_def_t c = clt_default_shape_def(CLT_SHAPE_CYLINDER), h = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
    c.radius = uni(rng, 0.1, 0.5);
    c.length = uni(rng, 0.1, 1.0);
    clt_collide_pose_t pc = {{0, 0, uni(rng, -0.5, 0.8)}, 0, {1, 0, 0, 0}}, ph = {{0, 0, 0}, 0, {1, 0, 0, 0}};
    random_quat(rng, pc.orientation);
    if (i % 10 == 0) { /* exactly upright or exactly on its side */
      double s = sqrt(0.5);
      double q[4] = {i % 20 == 0 ? 1.0 : s, i % 20 == 0 ? 0.0 : s, 0, 0};
      memcpy(pc.orientation, q, sizeof q);
    }
    double m[3][3];
    mat(pc.orientation, m);
    double am = m[2][2];
    double expect = pc.position[2] - 0.5 * c.length * fabs(am) - c.radius * sqrt(fmax(0, 1 - am * am));
    clt_contact_point_t out[CLT_MAX_PAIR_CONTACTS];
    int n = clt_collide(&c, &pc, &h, &ph, 10.0, out, CLT_MAX_PAIR_CONTACTS);
    CHECK(n >= 1 && n <= 4);
    double best = INFINITY;
    for (int k = 0; k < n; k++) {
      best = fmin(best, out[k].distance);
      CHECK_NEAR(out[k].point_a[2], out[k].distance, 1e-12);
      CHECK_NEAR(out[k].point_b[2], 0.0, 1e-12);
    }
    if (i % 20 == 0) CHECK(n == 4);      /* upright: 4 rim points */
    if (i % 20 == 10) CHECK(n >= 2);     /* on its side: the two ends of the lowest line */
    worst = fmax(worst, fabs(best - expect));
  }
  printf("cylinder-halfspace     poses 2000: |Phi - closed form| %.2e\n", worst);
  CHECK_LE(worst, 1e-12);
}

/* Flat features of two cylinders facing each other: a cap on a cap (coins; offset, turned, apart
 * and overlapping), a cap on a side and two parallel sides. Every point has p_B − p_A = Φ n, lies
 * on both flat features (within each disc or segment), and the points span the contact: the caps'
 * overlap region's extent along the line of centres, the chord of the disc, the lines' overlap. */
static void flat_pairs(void) {
  double worst = 0;
  int coins = 0;
  for (int i = 0; i < 40; i++) {
    clt_shape_def_t a = clt_default_shape_def(CLT_SHAPE_CYLINDER), b = a;
    a.radius = 0.05;
    a.length = 0.01;
    b.radius = i % 2 ? 0.05 : 0.03;
    b.length = 0.02;
    double gap = (i % 4 - 1) * 1e-3;    /* −1, 0, 1, 2 mm */
    double off = 0.0025 * (i / 4);      /* 0 … 22.5 mm between the axes */
    double turn = 0.3 * i;              /* b turned about the common axis */
    clt_collide_pose_t pa = {{0, 0, 0}, 0, {1, 0, 0, 0}};
    clt_collide_pose_t pb = {{off, 0, 0.005 + 0.01 + gap}, 0, {cos(turn / 2), 0, 0, sin(turn / 2)}};
    clt_contact_point_t out[CLT_MAX_PAIR_CONTACTS];
    int n = clt_collide(&a, &pa, &b, &pb, 0.01, out, CLT_MAX_PAIR_CONTACTS);
    CHECK(n >= 3 && n <= 5);
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < n; k++) {
      const clt_contact_point_t *c = &out[k];
      CHECK_NEAR(c->normal[2], 1.0, 1e-12);
      CHECK_NEAR(c->distance, gap, 1e-12);
      CHECK_NEAR(c->point_a[2], 0.005, 1e-12);
      CHECK_NEAR(c->point_b[2], 0.005 + gap, 1e-12);
      CHECK(hypot(c->point_a[0], c->point_a[1]) <= a.radius + 1e-12);
      CHECK(hypot(c->point_a[0] - off, c->point_a[1]) <= b.radius + 1e-12);
      lo = fmin(lo, c->point_a[0]);
      hi = fmax(hi, c->point_a[0]);
    }
    /* along the line of centres the points reach both ends of the overlap */
    double want_lo = fmax(-a.radius, off - b.radius), want_hi = fmin(a.radius, off + b.radius);
    worst = fmax(worst, fmax(fabs(lo - want_lo), fabs(hi - want_hi)));
    ++coins;
  }
  printf("cylinder cap on cap    poses %d: 3-5 points at Phi = gap, extent off by %.2e m\n", coins, worst);
  CHECK_LE(worst, 1e-12);
  /* A cap on a side: a short cylinder standing on a log (axis x) 1 mm above its top line. */
  clt_shape_def_t log = clt_default_shape_def(CLT_SHAPE_CYLINDER), coin = log;
  log.radius = 0.1;
  log.length = 1.0;
  coin.radius = 0.05;
  coin.length = 0.02;
  double s = sqrt(0.5);
  clt_collide_pose_t pl = {{0, 0, 0}, 0, {s, 0, s, 0}}, pc = {{0.2, 0.03, 0.1 + 0.01 + 1e-3}, 0, {1, 0, 0, 0}};
  clt_contact_point_t out[CLT_MAX_PAIR_CONTACTS];
  int n = clt_collide(&log, &pl, &coin, &pc, 0.01, out, CLT_MAX_PAIR_CONTACTS);
  CHECK(n == 2);
  double chord = 2 * sqrt(0.05 * 0.05 - 0.03 * 0.03);
  if (n == 2) {
    printf("cylinder cap on side: chord %.15f (2 sqrt(r^2 - d^2) = %.15f), Phi %.3e %.3e\n",
           fabs(out[0].point_a[0] - out[1].point_a[0]), chord, out[0].distance, out[1].distance);
    CHECK_NEAR(fabs(out[0].point_a[0] - out[1].point_a[0]), chord, 1e-12);
    for (int k = 0; k < 2; k++) {
      CHECK_NEAR(out[k].distance, 1e-3, 1e-12);
      CHECK_NEAR(out[k].point_a[2], 0.1, 1e-12);
      CHECK_NEAR(out[k].point_a[1], 0.0, 1e-12);
    }
  }
  /* Two parallel logs side by side, 0.4 m of overlap along x, 2 mm apart. */
  clt_collide_pose_t pl2 = {{0.3, 0, 0.2 + 2e-3}, 0, {s, 0, s, 0}};
  n = clt_collide(&log, &pl, &log, &pl2, 0.01, out, CLT_MAX_PAIR_CONTACTS);
  CHECK(n == 2);
  if (n == 2) {
    double x0 = fmin(out[0].point_a[0], out[1].point_a[0]), x1 = fmax(out[0].point_a[0], out[1].point_a[0]);
    printf("cylinder side on side: points at x = %.15f and %.15f (the overlap [-0.2, 0.5]), Phi %.3e\n", x0, x1,
           out[0].distance);
    CHECK_NEAR(x0, -0.2, 1e-12);
    CHECK_NEAR(x1, 0.5, 1e-12);
    CHECK_NEAR(out[0].distance, 2e-3, 1e-12);
    CHECK_NEAR(out[1].distance, 2e-3, 1e-12);
  }
}

int main(void) {
  flat_pairs();
  rng_t rng = {777};
  halfspace(&rng);
  random_pairs("cylinder-sphere", CLT_SHAPE_CYLINDER, CLT_SHAPE_SPHERE, 300, &rng);
  random_pairs("cylinder-capsule", CLT_SHAPE_CYLINDER, CLT_SHAPE_CAPSULE, 300, &rng);
  random_pairs("cylinder-box", CLT_SHAPE_CYLINDER, CLT_SHAPE_BOX, 300, &rng);
  random_pairs("cylinder-polyhedron", CLT_SHAPE_CYLINDER, CLT_SHAPE_POLYHEDRON, 300, &rng);
  random_pairs("cylinder-cylinder", CLT_SHAPE_CYLINDER, CLT_SHAPE_CYLINDER, 300, &rng);
  random_pairs("cylinder-ellipsoid", CLT_SHAPE_CYLINDER, CLT_SHAPE_ELLIPSOID, 300, &rng);
  random_pairs("polyhedron-ellipsoid", CLT_SHAPE_POLYHEDRON, CLT_SHAPE_ELLIPSOID, 300, &rng);
  return clt_test_finish();
}
