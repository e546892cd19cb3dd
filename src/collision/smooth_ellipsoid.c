/* Shared-normal points of ellipsoids against ellipsoids, spheres, capsules, half-spaces and boxes
 * (SPEC.md §5; 002 §2.1.6), with a convergence flag (smooth.h).
 *
 * An ellipsoid is E = {c + R diag(a) y : |y| ≤ 1}; with M = R diag(a²) Rᵀ its support function
 * along a unit u is h(u) = u·c + σ(u), σ(u) = √(uᵀ M u), attained at s(u) = c + M u / σ(u), where
 * the outward normal is u. A sphere is the ellipsoid M = r² I. For convex A, B the signed distance
 * is the largest support separation over unit directions,
 *   Φ = max_u g(u),   g(u) = u·(c_B − c_A) − σ_A(u) − σ_B(u) = u·(p_B − p_A),
 *   p_A = s_A(u), p_B = s_B(−u),
 * (the distance when apart, minus the penetration depth when overlapping), and at a maximizer
 * p_B − p_A ∥ u: the outward normals u and −u are anti-parallel and parallel to p_B − p_A — the
 * shared-normal point. The unknown is u on the unit sphere (two parameters): Riemannian gradient
 * and Hessian
 *   grad = P (p_B − p_A),  Hess = P ∇²g P − g P,  ∇²g = −Σ (M/σ − M u uᵀ M / σ³),  P = I − u uᵀ.
 * Trust-region Newton (Levenberg–Marquardt shift where −Hess is not positive definite, step
 * accepted on the ratio of actual to predicted increase) from the centre line and the 4 best
 * mutually distant directions of a sample: a Fibonacci sphere (64 points, more for aspect ratios
 * over 10) plus directions from the geometry (± axes, ± cross products of an axis of A with one of
 * B, the centre line and its parts normal to each axis), which catch the narrow basins of
 * elongated shapes. The largest converged local maximum wins, and no sampled direction may beat it
 * (else it becomes a new start). If nothing converges or a sample still beats the answer, a denser
 * sample (400) and 12 starts; if that fails too, CLT_SMOOTH_NOT_CONVERGED — never an unconverged
 * point. The work is done in a frame centred on A so rounding scales with the pair, not with the
 * distance from the world origin.
 *
 * Capsule B (segment [q0, q1] of direction z, radius r): h_B(−u) = min over the two cap centres, so
 * g = min(g_0, g_1), g_k the ellipsoid–sphere separation with the sphere at q_k. A maximizer of g
 * is either a maximizer of g_k where q_k is the segment's support point (u·z ≥ 0 for q0, ≤ 0 for
 * q1), or lies on the ridge u·z = 0 (contact on the cylinder), where g is a smooth function of one
 * angle, maximized by a safeguarded 1D Newton iteration; there the capsule point is the axis point
 * at the height of p_A, valid when it lies within the segment. The length is read on every call.
 * An ascent on one cap that converges on the other cap's side continues on that cap.
 *
 * Two shortcuts keep the common case cheap (10⁴-body scenes, issue 6), without giving up the
 * guarantee (see solve_pair): (1) a certified local maximum with g > −(ρ_A + ρ_B), ρ the smallest
 * radius of curvature, is the global one, so separated and shallowly overlapping pairs take a
 * single ascent (from u ∝ (M_A + M_B)⁻¹ d for two ellipsoids): ≈ 1–3 µs instead of 8–15 µs per
 * pair; (2) the pair-table entries stop as soon as any direction separates the pair by more than
 * max_distance (every g(u) is a lower bound of Φ). The box pair is at the end of the file. */
#include <math.h>
#include <string.h>

#include "collision/collision_math.h"
#include "collision/smooth.h"

#define SAMPLE_COUNT 64
#define DENSE_SAMPLE_COUNT 400
#define START_COUNT 4
#define DENSE_START_COUNT 12
#define MAX_NEWTON 100
#define RIDGE_SAMPLES 32
#define MAX_EXTRA 64

typedef struct ell_t {
  double c[3];
  double m[3][3]; /* R diag(a²) Rᵀ */
  double size;    /* largest semi-axis */
  double axis[3][3]; /* axis[k]: local axis k in the world frame */
  double aspect;     /* largest over smallest semi-axis */
  double rho;        /* smallest radius of curvature of the surface, c²/a (sphere: r) */
} ell_t;

static bool make_ellipsoid(const clt_placed_shape_t *s, ell_t *e) {
  memset(e, 0, sizeof *e);
  clt_v3_copy(e->c, s->position);
  double a[3];
  if (s->def->type == CLT_SHAPE_ELLIPSOID) {
    a[0] = s->def->semi_axes[0], a[1] = s->def->semi_axes[1], a[2] = s->def->semi_axes[2];
  } else { /* sphere, or a capsule's cap */
    a[0] = a[1] = a[2] = s->def->radius;
  }
  if (!(a[0] > 0.0 && a[1] > 0.0 && a[2] > 0.0) || !clt_v3_isfinite(e->c)) return false;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      e->m[i][j] = s->rotation[i][0] * s->rotation[j][0] * a[0] * a[0] +
                   s->rotation[i][1] * s->rotation[j][1] * a[1] * a[1] +
                   s->rotation[i][2] * s->rotation[j][2] * a[2] * a[2];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      if (!isfinite(e->m[i][j])) return false;
  e->size = fmax(fmax(a[0], a[1]), a[2]);
  double small = fmin(fmin(a[0], a[1]), a[2]);
  e->aspect = e->size / small;
  e->rho = small * (small / e->size);
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++) e->axis[k][i] = s->rotation[i][k];
  return true;
}

/* σ(u) = √(uᵀ M u) and M u. */
static double support_sigma(const ell_t *e, const double u[3], double mu[3]) {
  clt_m3_mulv(mu, e->m, u);
  return sqrt(clt_v3_dot(u, mu));
}

/* The separation at unit u with its derivatives in the tangent basis (t1, t2) of u. */
typedef struct eval_t {
  double u[3];
  double g;
  double pa[3], pb[3];
  double t1[3], t2[3];
  double grad[2];
  double hess[2][2]; /* Riemannian Hessian of g */
} eval_t;

/* t_iᵀ (M/σ − m mᵀ/σ³) t_j, the support Hessian of one ellipsoid in the tangent basis. */
static double support_hess(const ell_t *e, double s, const double mu[3], const double ti[3], const double tj[3]) {
  double mt[3];
  clt_m3_mulv(mt, e->m, tj);
  return clt_v3_dot(ti, mt) / s - clt_v3_dot(ti, mu) * clt_v3_dot(tj, mu) / (s * s * s);
}

static void evaluate(const ell_t *a, const ell_t *b, const double u[3], eval_t *ev) {
  double ma[3], mb[3], diff[3];
  clt_v3_copy(ev->u, u);
  double sa = support_sigma(a, u, ma), sb = support_sigma(b, u, mb);
  clt_v3_axpy(ev->pa, a->c, 1.0 / sa, ma);
  /* B may be a point (M = 0: a box vertex, ellipsoid–box below). */
  if (sb > 0.0)
    clt_v3_axpy(ev->pb, b->c, -1.0 / sb, mb);
  else
    clt_v3_copy(ev->pb, b->c);
  clt_v3_sub(diff, ev->pb, ev->pa);
  ev->g = clt_v3_dot(u, diff);
  clt_v3_basis(u, ev->t1, ev->t2);
  const double *t[2] = {ev->t1, ev->t2};
  for (int i = 0; i < 2; i++) {
    ev->grad[i] = clt_v3_dot(t[i], diff);
    for (int j = 0; j < 2; j++) {
      ev->hess[i][j] = -support_hess(a, sa, ma, t[i], t[j]) - (sb > 0.0 ? support_hess(b, sb, mb, t[i], t[j]) : 0.0);
      if (i == j) ev->hess[i][j] -= ev->g;
    }
  }
  double sym = 0.5 * (ev->hess[0][1] + ev->hess[1][0]);
  ev->hess[0][1] = ev->hess[1][0] = sym;
}

/* Only g (for samples). */
static double separation(const ell_t *a, const ell_t *b, const double u[3]) {
  double ma[3], mb[3], d[3];
  clt_v3_sub(d, b->c, a->c);
  return clt_v3_dot(u, d) - support_sigma(a, u, ma) - support_sigma(b, u, mb);
}

/* Eigen-decomposition of the symmetric 2x2 [[p, q], [q, s]]: values l[0] ≤ l[1], unit vectors. */
static void eig2(double p, double q, double s, double l[2], double v[2][2]) {
  double mean = 0.5 * (p + s), half = 0.5 * (p - s), rad = sqrt(half * half + q * q);
  l[0] = mean - rad;
  l[1] = mean + rad;
  /* Eigenvector of l[1]: (q, l1 − p) or (l1 − s, q), whichever is longer (the better conditioned). */
  double a0 = q, a1 = l[1] - p, b0 = l[1] - s, b1 = q;
  double na = a0 * a0 + a1 * a1, nb = b0 * b0 + b1 * b1;
  if (na >= nb && na > 0.0) {
    double r = 1.0 / sqrt(na);
    v[1][0] = a0 * r, v[1][1] = a1 * r;
  } else if (nb > 0.0) {
    double r = 1.0 / sqrt(nb);
    v[1][0] = b0 * r, v[1][1] = b1 * r;
  } else { /* a multiple of the identity */
    v[1][0] = 1.0, v[1][1] = 0.0;
  }
  v[0][0] = -v[1][1], v[0][1] = v[1][0];
}

/* |s(μ)|² of the shifted step in the eigenbasis. */
static double step_norm2(const double gq[2], const double l[2], double mu) {
  double s0 = gq[0] / (l[0] + mu), s1 = gq[1] / (l[1] + mu);
  return s0 * s0 + s1 * s1;
}

typedef struct tolerance_t {
  double grad;  /* |grad| below this: stationary (rounding level of the witness points) */
  double scale; /* length scale of the pair */
  /* Early out of the pair-table entries: once some direction separates the pair by more than
   * cutoff (a lower bound of Φ) the answer is "farther than max_distance"; +∞ for the queries. */
  double cutoff;
  bool beyond; /* set when that happened */
} tolerance_t;

/* Trust-region Newton ascent of g from u. Returns true if it converged to a local maximum; *ev is
 * the last accepted point either way. */
static bool ascend(const ell_t *a, const ell_t *b, const double u0[3], tolerance_t *tol, eval_t *ev,
                   int *iterations) {
  const double cutoff = tol->cutoff;
  bool *beyond = &tol->beyond;
  evaluate(a, b, u0, ev);
  /* Every g(u) is a lower bound of Φ = max g: past the cutoff the pair is farther than asked. */
  if (ev->g > cutoff) {
    *beyond = true;
    return false;
  }
  double radius = 0.5; /* radians */
  for (int it = 0; it < MAX_NEWTON; it++) {
    (*iterations)++;
    double gn = sqrt(ev->grad[0] * ev->grad[0] + ev->grad[1] * ev->grad[1]);
    /* A = −Hess, positive definite near a maximum. */
    double l[2], v[2][2];
    eig2(-ev->hess[0][0], -ev->hess[0][1], -ev->hess[1][1], l, v);
    double anorm = fmax(fabs(l[0]), fabs(l[1])) + tol->scale * 1e-300;
    if (gn <= tol->grad) return l[0] >= -1e-8 * (anorm + tol->scale);
    double gq[2] = {v[0][0] * ev->grad[0] + v[0][1] * ev->grad[1], v[1][0] * ev->grad[0] + v[1][1] * ev->grad[1]};
    /* Shift μ ≥ 0 so A + μI is positive definite and |s| ≤ radius (Levenberg–Marquardt). */
    double floor_shift = 1e-10 * (anorm + tol->scale);
    double mu = l[0] > floor_shift ? 0.0 : floor_shift - l[0];
    double r2 = radius * radius;
    if (step_norm2(gq, l, mu) > r2) {
      /* Bisection for |s(μ)| ≤ radius; a step within a few percent of the radius is as good. */
      double lo = mu, hi = mu + gn / radius + anorm;
      for (int k = 0; k < 60 && hi - lo > 0.01 * (hi - mu); k++) {
        double mid = 0.5 * (lo + hi);
        if (step_norm2(gq, l, mid) > r2)
          lo = mid;
        else
          hi = mid;
      }
      mu = hi;
    }
    double sq[2] = {gq[0] / (l[0] + mu), gq[1] / (l[1] + mu)};
    double step[2] = {sq[0] * v[0][0] + sq[1] * v[1][0], sq[0] * v[0][1] + sq[1] * v[1][1]};
    double len = sqrt(step[0] * step[0] + step[1] * step[1]);
    /* Predicted increase of the quadratic model: gᵀs − ½ sᵀ A s. */
    double predicted = gq[0] * sq[0] + gq[1] * sq[1] - 0.5 * (l[0] * sq[0] * sq[0] + l[1] * sq[1] * sq[1]);
    double w[3];
    for (int k = 0; k < 3; k++) w[k] = ev->u[k] + step[0] * ev->t1[k] + step[1] * ev->t2[k];
    clt_v3_scale(w, w, 1.0 / clt_v3_norm(w));
    eval_t trial;
    evaluate(a, b, w, &trial);
    if (trial.g > cutoff) {
      *ev = trial;
      *beyond = true;
      return false;
    }
    double actual = trial.g - ev->g;
    bool accept;
    if (mu == 0.0 && len < 1e-5) {
      /* Inside the region of quadratic convergence the change of g is O(|s|²), at rounding level:
       * the ratio test is noise there. Accept the pure Newton step if it reduces the gradient. */
      accept = hypot(trial.grad[0], trial.grad[1]) < gn || actual >= 0.0;
    } else {
      accept = predicted > 0.0 && actual >= 0.01 * predicted;
    }
    double ratio = predicted > 0.0 ? actual / predicted : -1.0;
    if (accept) {
      *ev = trial;
      if (ratio > 0.75 && len > 0.8 * radius) radius = fmin(2.0 * radius, 1.5);
    } else {
      radius = 0.25 * fmin(radius, len);
      if (radius < 1e-15) {
        /* No progress possible: converged only if already at rounding level. */
        return gn <= 100.0 * tol->grad && l[0] >= -1e-8 * (anorm + tol->scale);
      }
    }
    if (accept && mu == 0.0 && len < 1e-15) {
      double gt = hypot(ev->grad[0], ev->grad[1]);
      return gt <= 100.0 * tol->grad;
    }
  }
  return false;
}

/* A Fibonacci sphere of n directions, computed per query (no shared state, so queries may run in
 * parallel); the golden-angle turns by a rotation recurrence instead of n cos/sin pairs. */
static void fibonacci_sphere(int n, double (*u)[3]) {
  const double golden = CLT_PI * (3.0 - sqrt(5.0));
  const double cg = cos(golden), sg = sin(golden);
  double c = 1.0, s = 0.0;
  for (int i = 0; i < n; i++) {
    double z = 1.0 - 2.0 * (i + 0.5) / n, r = sqrt(fmax(0.0, 1.0 - z * z));
    clt_v3_set(u[i], r * c, r * s, z);
    double cn = c * cg - s * sg;
    s = s * cg + c * sg;
    c = cn;
  }
}

/* Which pieces of B the separation uses: a single ellipsoid, or a capsule (two caps). For the
 * capsule, `half` selects the cap: +1 → q0 (valid for u·z ≥ 0), −1 → q1 (u·z ≤ 0), 0 → no
 * restriction. */
typedef struct pair_t {
  const ell_t *a;
  const ell_t *b[2];   /* b[0] the ellipsoid / q0 cap, b[1] the q1 cap (capsule only) */
  bool capsule;
  double z[3];         /* capsule axis (q0 → q1), unit */
  double half_length;
  double radius;
  double centre[3];    /* capsule centre */
  /* Directions from the geometry, sampled with the sphere: ± every axis, ± cross products of an
   * axis of A with one of B (crossing needles touch along those), the centre line and its parts
   * normal to each axis. Narrow basins of elongated shapes are found from these. */
  double extra[MAX_EXTRA][3];
  int extra_count;
} pair_t;

static void add_extra(pair_t *p, const double v[3]) {
  double len = clt_v3_norm(v);
  if (!(len > 1e-9) || p->extra_count + 2 > MAX_EXTRA) return;
  clt_v3_scale(p->extra[p->extra_count++], v, 1.0 / len);
  clt_v3_scale(p->extra[p->extra_count++], v, -1.0 / len);
}

static void make_extra(pair_t *p, const double d[3]) {
  const ell_t *a = p->a, *b = p->b[0];
  int nb = p->capsule ? 1 : 3;
  const double *baxis[3];
  for (int j = 0; j < 3; j++) baxis[j] = p->capsule ? p->z : b->axis[j];
  add_extra(p, d);
  for (int i = 0; i < 3; i++) add_extra(p, a->axis[i]);
  for (int j = 0; j < nb; j++) add_extra(p, baxis[j]);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < nb; j++) {
      double c[3];
      clt_v3_cross(c, a->axis[i], baxis[j]);
      add_extra(p, c);
    }
  for (int i = 0; i < 3 + nb; i++) {
    const double *ax = i < 3 ? a->axis[i] : baxis[i - 3];
    double q[3];
    clt_v3_axpy(q, d, -clt_v3_dot(d, ax), ax);
    add_extra(p, q);
  }
}



/* True separation g(u) of the pair (for a capsule the smaller of the two caps' separations). */
static double pair_separation(const pair_t *p, const double u[3]) {
  double g = separation(p->a, p->b[0], u);
  if (p->capsule) g = fmin(g, separation(p->a, p->b[1], u));
  return g;
}

typedef struct candidate_t {
  bool ok;
  double g;
  double u[3], pa[3], pb[3];
} candidate_t;

static void keep_best(candidate_t *best, const candidate_t *c) {
  if (c->ok && (!best->ok || c->g > best->g)) *best = *c;
}

/* Ridge of the capsule (u ⊥ z): g(θ) = u·(c − c_A) − σ_A(u) − r with u = cos θ e1 + sin θ e2. */
typedef struct ridge_t {
  double e1[3], e2[3], d[3];
} ridge_t;

static double ridge_eval(const pair_t *p, const ridge_t *rg, double theta, double *d1, double *d2, double u[3]) {
  double ct = cos(theta), st = sin(theta), du[3], mu[3];
  for (int k = 0; k < 3; k++) {
    u[k] = ct * rg->e1[k] + st * rg->e2[k];
    du[k] = -st * rg->e1[k] + ct * rg->e2[k];
  }
  double s = support_sigma(p->a, u, mu);
  double grad[3];
  clt_v3_axpy(grad, rg->d, -1.0 / s, mu);
  double g = clt_v3_dot(u, grad) - p->radius;
  if (d1) *d1 = clt_v3_dot(du, grad);
  if (d2) *d2 = -clt_v3_dot(u, grad) - support_hess(p->a, s, mu, du, du);
  return g;
}

static void ridge_candidate(const pair_t *p, const ridge_t *rg, double theta, const tolerance_t *tol,
                            candidate_t *c) {
  double u[3], mu[3];
  ridge_eval(p, rg, theta, NULL, NULL, u);
  double s = support_sigma(p->a, u, mu);
  double pa[3], rel[3];
  clt_v3_axpy(pa, p->a->c, 1.0 / s, mu);
  clt_v3_sub(rel, pa, p->centre);
  double t = clt_v3_dot(rel, p->z);
  c->ok = fabs(t) <= p->half_length + tol->grad;
  t = clt_c_clamp(t, -p->half_length, p->half_length);
  double axis_point[3];
  clt_v3_axpy(axis_point, p->centre, t, p->z);
  clt_v3_copy(c->u, u);
  clt_v3_copy(c->pa, pa);
  clt_v3_axpy(c->pb, axis_point, -p->radius, u);
  double diff[3];
  clt_v3_sub(diff, c->pb, c->pa);
  c->g = clt_v3_dot(diff, u);
}

/* Local maxima of g on the ridge: samples, then safeguarded Newton on g'(θ) = 0 in a bracket. */
static void search_ridge(const pair_t *p, const tolerance_t *tol, candidate_t *best, int *iterations,
                         int *starts) {
  ridge_t rg;
  clt_v3_basis(p->z, rg.e1, rg.e2);
  clt_v3_sub(rg.d, p->centre, p->a->c);
  const double step = 2.0 * CLT_PI / RIDGE_SAMPLES;
  double f[RIDGE_SAMPLES], u[3];
  for (int k = 0; k < RIDGE_SAMPLES; k++) f[k] = ridge_eval(p, &rg, k * step, NULL, NULL, u);
  for (int k = 0; k < RIDGE_SAMPLES; k++) {
    if (!(f[k] >= f[(k + RIDGE_SAMPLES - 1) % RIDGE_SAMPLES] && f[k] > f[(k + 1) % RIDGE_SAMPLES])) continue;
    (*starts)++;
    double lo = (k - 1) * step, hi = (k + 1) * step, dlo, dhi, x = k * step, d1, d2;
    ridge_eval(p, &rg, lo, &dlo, NULL, u);
    ridge_eval(p, &rg, hi, &dhi, NULL, u);
    bool converged = false;
    if (dlo >= 0.0 && dhi <= 0.0) {
      for (int it = 0; it < 100; it++) {
        (*iterations)++;
        ridge_eval(p, &rg, x, &d1, &d2, u);
        if (fabs(d1) <= tol->grad) {
          converged = true;
          break;
        }
        if (d1 > 0.0)
          lo = x;
        else
          hi = x;
        double nx = d2 < 0.0 ? x - d1 / d2 : 0.5 * (lo + hi);
        if (!(nx > lo && nx < hi)) nx = 0.5 * (lo + hi);
        if (hi - lo <= 1e-15 * (1.0 + fabs(x))) {
          converged = fabs(d1) <= 100.0 * tol->grad;
          x = nx;
          break;
        }
        x = nx;
      }
    }
    if (!converged) continue;
    candidate_t c;
    ridge_candidate(p, &rg, x, tol, &c);
    keep_best(best, &c);
  }
}

/* Candidate from a converged ascent on the separation against b[k]. */
static void cap_candidate(const pair_t *p, int k, const eval_t *ev, candidate_t *c) {
  c->ok = true;
  if (p->capsule) {
    double uz = clt_v3_dot(ev->u, p->z);
    /* A zero-length capsule is a sphere: both caps are the support point for every u. */
    c->ok = p->half_length == 0.0 || (k == 0 ? uz >= -1e-12 : uz <= 1e-12);
  }
  clt_v3_copy(c->u, ev->u);
  clt_v3_copy(c->pa, ev->pa);
  if (p->capsule) {
    clt_v3_axpy(c->pb, p->b[k]->c, -p->radius, ev->u);
  } else {
    clt_v3_copy(c->pb, ev->pb);
  }
  double diff[3];
  clt_v3_sub(diff, c->pb, c->pa);
  c->g = clt_v3_dot(diff, ev->u);
}

/* One ascent on cap k (or the ellipsoid B) from u into *c (c->ok false if it did not converge
 * to a valid point). A capsule ascent that converges on the other cap's side of the ridge is
 * continued on that cap from there (its maximum may lie on that side). Returns false when the
 * ascent passed the cutoff (ellipsoid B only; ev->g is then the lower bound). */
static bool ascend_candidate(const pair_t *p, int k, const double u[3], tolerance_t *ascent_tol, eval_t *ev,
                             clt_smooth_info_t *info, candidate_t *c) {
  memset(c, 0, sizeof *c);
  info->starts++;
  if (!ascend(p->a, p->b[k], u, ascent_tol, ev, &info->iterations)) return !ascent_tol->beyond;
  cap_candidate(p, k, ev, c);
  if (p->capsule && !c->ok) {
    eval_t other;
    info->starts++;
    if (ascend(p->a, p->b[1 - k], ev->u, ascent_tol, &other, &info->iterations)) cap_candidate(p, 1 - k, &other, c);
  }
  return true;
}

/* Runs ascents from the centre line and the `starts` best sampled directions of an n-point
 * sample; then from any sampled direction that beats the best answer. */
static void search(const pair_t *p, int n, int start_count, tolerance_t *tol, candidate_t *best,
                   clt_smooth_info_t *info) {
  int chosen[DENSE_START_COUNT];
  int count = 0;
  /* Best sampled directions, at least ~25° apart so the starts explore different basins. */
  double gs[DENSE_SAMPLE_COUNT + MAX_EXTRA], dirs[DENSE_SAMPLE_COUNT + MAX_EXTRA][3];
  int total = n + p->extra_count;
  fibonacci_sphere(n, dirs);
  for (int i = n; i < total; i++) clt_v3_copy(dirs[i], p->extra[i - n]);
  for (int i = 0; i < total; i++) {
    gs[i] = pair_separation(p, dirs[i]);
    if (gs[i] > tol->cutoff) { /* a lower bound of Φ past the cutoff: farther than asked */
      tol->beyond = true;
      best->ok = true;
      best->g = gs[i];
      return;
    }
  }
  /* A capsule's ascents run on one cap's separation g_k ≥ g, not a lower bound of Φ: no cutoff. */
  tolerance_t ascent_tol = *tol;
  if (p->capsule) ascent_tol.cutoff = INFINITY;
  for (int pick = 0; pick < start_count; pick++) {
    int arg = -1;
    for (int i = 0; i < total; i++) {
      if (arg >= 0 && !(gs[i] > gs[arg])) continue;
      bool far = true;
      for (int j = 0; j < count; j++)
        if (clt_v3_dot(dirs[i], dirs[chosen[j]]) > 0.9) far = false;
      if (far) arg = i;
    }
    if (arg < 0) break;
    chosen[count++] = arg;
  }
  double d[3];
  clt_v3_sub(d, p->capsule ? p->centre : p->b[0]->c, p->a->c);
  double dist = clt_v3_norm(d);
  for (int s = -1; s < count; s++) {
    double u[3];
    if (s < 0) {
      if (!(dist > 0.0)) continue;
      clt_v3_scale(u, d, 1.0 / dist);
    } else {
      clt_v3_copy(u, dirs[chosen[s]]);
    }
    /* For a capsule, ascend on the cap that is the support point for this direction. */
    int k = 0;
    if (p->capsule && clt_v3_dot(u, p->z) < 0.0) k = 1;
    eval_t ev;
    candidate_t c;
    if (!ascend_candidate(p, k, u, &ascent_tol, &ev, info, &c)) { /* g(ev.u) > cutoff: Φ is past it */
      tol->beyond = true;
      best->ok = true;
      best->g = ev.g;
      return;
    }
    keep_best(best, &c);
  }
  if (p->capsule) search_ridge(p, tol, best, &info->iterations, &info->starts);
  /* Global check: g(u) ≤ Φ for every u. A sample above the answer lies in an unexplored basin. */
  for (int round = 0; round < 8 && best->ok; round++) {
    int arg = -1;
    double slack = 1e-12 * tol->scale;
    for (int i = 0; i < total; i++)
      if (gs[i] > best->g + slack && (arg < 0 || gs[i] > gs[arg])) arg = i;
    if (arg < 0) break;
    double u[3];
    clt_v3_copy(u, dirs[arg]);
    int k = p->capsule && clt_v3_dot(u, p->z) < 0.0 ? 1 : 0;
    eval_t ev;
    candidate_t c;
    gs[arg] = -INFINITY; /* never again */
    if (!ascend_candidate(p, k, u, &ascent_tol, &ev, info, &c)) { /* g(ev.u) > cutoff: Φ is past it */
      tol->beyond = true;
      best->ok = true;
      best->g = ev.g;
      return;
    }
    keep_best(best, &c);
  }
  if (best->ok)
    for (int i = 0; i < total; i++)
      if (gs[i] > best->g + 1e-9 * tol->scale) best->ok = false; /* a basin we could not resolve */
}

/* Solves in a frame centred on A (rounding of the witness points then scales with the pair's
 * size, not with the distance from the world origin); `origin` is added back at the end. */
static clt_smooth_status_t solve_pair(pair_t *p, const double origin[3], double cutoff, clt_contact_point_t *out,
                                      clt_smooth_info_t *info) {
  tolerance_t tol;
  tol.cutoff = cutoff;
  tol.beyond = false;
  double ext = 0.0;
  for (int k = 0; k < 3; k++) {
    ext = fmax(ext, fabs(p->a->c[k]));
    ext = fmax(ext, fabs(p->b[0]->c[k]));
    if (p->capsule) ext = fmax(ext, fabs(p->b[1]->c[k]));
  }
  tol.scale = p->a->size + p->b[0]->size + (p->capsule ? 2.0 * p->half_length : 0.0);
  double d[3];
  clt_v3_sub(d, p->capsule ? p->centre : p->b[0]->c, p->a->c);
  make_extra(p, d);
  /* The witness points carry rounding of order ε·(|c| + size); the gradient can go no lower. */
  tol.grad = 64.0 * 2.220446049250313e-16 * (ext + tol.scale + clt_v3_norm(d));
  candidate_t best;
  memset(&best, 0, sizeof best);
  /* Fast path for two ellipsoids (spheres): one ascent from the centre line. With K = A − B
   * (Minkowski) g(u) = −h_K(u), and for t > 0 the set {u : g(u) ≥ t} on the sphere is
   * geodesically convex (h_K is convex and positively homogeneous: h_K(λu₁ + (1 − λ)u₂) ≤ −t and
   * |λu₁ + (1 − λ)u₂| ≤ 1), so a local maximum with g > 0 is THE maximum. Moreover a convex body
   * whose principal radii of curvature are all ≥ ρ is a convex body plus a ball of radius ρ
   * (Blaschke's rolling theorem; an ellipsoid a ≥ b ≥ c has ρ = c²/a), so g = g' − ρ_A − ρ_B with
   * g' the separation of the shrunk bodies, which has the same local maxima: a local maximum
   * with g > −(ρ_A + ρ_B) is global. Separated pairs and overlaps shallower than ρ_A + ρ_B (all
   * the small overlaps of a time-stepper) need no other start, sample or global check; deeper
   * overlaps, where the penetration depth may have several local maxima, get the full search.
   * The capsule's separation min(g₀, g₁) is the same kind of function, but its ascents run on
   * one cap at a time, so it always takes the full search. */
  double dist = clt_v3_norm(d);
  if (!p->capsule && dist > 0.0) {
    double u[3];
    eval_t ev;
    /* Start: the normal where the centre line leaves the ellipsoid M_A + M_B, u ∝ (M_A + M_B)⁻¹ d
     * (exact for two spheres, and for two ellipsoids of one shape and orientation, whose Minkowski
     * sum that is up to scale); the centre line if that system is singular. Measured on random
     * near pairs of aspect 1.5–6: 3.8–5.3 Newton iterations, 4.9–8.3 from the centre line. */
    double s[3][3], x[3];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) s[i][j] = p->a->m[i][j] + p->b[0]->m[i][j];
    double c0[3] = {s[1][1] * s[2][2] - s[1][2] * s[2][1], s[1][2] * s[2][0] - s[1][0] * s[2][2],
                    s[1][0] * s[2][1] - s[1][1] * s[2][0]};
    double det = s[0][0] * c0[0] + s[0][1] * c0[1] + s[0][2] * c0[2];
    double scale = s[0][0] + s[1][1] + s[2][2];
    if (det > 1e-12 * scale * scale * scale) { /* adjugate × d (the 1/det drops out) */
      x[0] = c0[0] * d[0] + (s[0][2] * s[2][1] - s[0][1] * s[2][2]) * d[1] + (s[0][1] * s[1][2] - s[0][2] * s[1][1]) * d[2];
      x[1] = c0[1] * d[0] + (s[0][0] * s[2][2] - s[0][2] * s[2][0]) * d[1] + (s[0][2] * s[1][0] - s[0][0] * s[1][2]) * d[2];
      x[2] = c0[2] * d[0] + (s[0][1] * s[2][0] - s[0][0] * s[2][1]) * d[1] + (s[0][0] * s[1][1] - s[0][1] * s[1][0]) * d[2];
      double xl = clt_v3_norm(x);
      if (xl > 0.0 && clt_v3_dot(x, d) > 0.0)
        clt_v3_scale(u, x, 1.0 / xl);
      else
        clt_v3_scale(u, d, 1.0 / dist);
    } else {
      clt_v3_scale(u, d, 1.0 / dist);
    }
    info->starts++;
    bool converged = ascend(p->a, p->b[0], u, &tol, &ev, &info->iterations);
    if (tol.beyond) {
      out->distance = ev.g; /* a lower bound, > cutoff: the pair entry reports "apart" */
      info->status = CLT_SMOOTH_OK;
      return CLT_SMOOTH_OK;
    }
    /* 1e-6 relative margin under ρ_A + ρ_B (the radii are computed to rounding). */
    double shrink = (1.0 - 1e-6) * (p->a->rho + p->b[0]->rho);
    if (converged && ev.g + shrink > 1e-9 * tol.scale) cap_candidate(p, 0, &ev, &best);
  }
  /* The same shortcut for a capsule, = segment ⊕ ball(r): a strict local maximum of g with
   * g > −(ρ_A + r) is global. Candidates: the ascent on one cap from the centre line, when it
   * converges strictly inside that cap's half of the sphere (there g = g_k near u); else the best
   * ridge maximum (u ⊥ axis) whose support point of A lies strictly within the segment's length (g
   * falls to first order off the ridge). A zero-length capsule is a sphere: any local maximum. */
  if (p->capsule && dist > 0.0) {
    double u[3];
    clt_v3_scale(u, d, 1.0 / dist);
    double floor = -(1.0 - 1e-6) * (p->a->rho + p->radius) + 1e-9 * tol.scale;
    double g_line = pair_separation(p, u);
    candidate_t c;
    memset(&c, 0, sizeof c);
    if (g_line > tol.cutoff) {
      tol.beyond = true;
      c.g = g_line;
    } else {
      int k = clt_v3_dot(u, p->z) < 0.0 ? 1 : 0;
      tolerance_t cap_tol = tol; /* g_k ≥ g is no lower bound: no cutoff in the ascent */
      cap_tol.cutoff = INFINITY;
      eval_t ev;
      info->starts++;
      if (ascend(p->a, p->b[k], u, &cap_tol, &ev, &info->iterations)) {
        double uz = clt_v3_dot(ev.u, p->z);
        bool strict = p->half_length == 0.0 || (k == 0 ? uz > 1e-9 : uz < -1e-9);
        cap_candidate(p, k, &ev, &c);
        if (c.ok && c.g > tol.cutoff) tol.beyond = true;
        else if (strict && c.ok && c.g > floor) best = c;
      }
      if (!tol.beyond && !best.ok && p->half_length > 0.0) {
        memset(&c, 0, sizeof c);
        search_ridge(p, &tol, &c, &info->iterations, &info->starts);
        if (c.ok) {
          double rel[3];
          clt_v3_sub(rel, c.pa, p->centre);
          double t = clt_v3_dot(rel, p->z);
          if (c.g > tol.cutoff) tol.beyond = true;
          else if (fabs(t) < p->half_length * (1.0 - 1e-9) && c.g > floor) best = c;
        }
      }
    }
    if (tol.beyond) {
      out->distance = c.g; /* a lower bound, > cutoff */
      info->status = CLT_SMOOTH_OK;
      return CLT_SMOOTH_OK;
    }
  }
  /* Basins of the separation shrink like the aspect ratio of the shapes: sample accordingly. */
  double aspect = fmax(p->a->aspect, p->capsule ? 1.0 : p->b[0]->aspect);
  int n = (int)fmin((double)DENSE_SAMPLE_COUNT, SAMPLE_COUNT * fmax(1.0, aspect / 10.0));
  if (!best.ok) search(p, n, START_COUNT, &tol, &best, info);
  if (tol.beyond) {
    out->distance = best.g;
    info->status = CLT_SMOOTH_OK;
    return CLT_SMOOTH_OK;
  }
  if (!best.ok) {
    info->fallback = 1;
    memset(&best, 0, sizeof best);
    search(p, DENSE_SAMPLE_COUNT, DENSE_START_COUNT, &tol, &best, info);
    if (tol.beyond) {
      out->distance = best.g;
      info->status = CLT_SMOOTH_OK;
      return CLT_SMOOTH_OK;
    }
  }
  if (!best.ok) {
    info->status = CLT_SMOOTH_NOT_CONVERGED;
    return info->status;
  }
  double diff[3], cross[3];
  clt_v3_sub(diff, best.pb, best.pa);
  clt_v3_cross(cross, best.u, diff);
  info->residual = clt_v3_norm(cross) / tol.scale;
  out->distance = best.g;
  clt_v3_copy(out->normal, best.u);
  /* p_B − p_A = Φ n to rounding; p_B stays the exact support point of B. */
  clt_v3_add(out->point_a, best.pa, origin);
  clt_v3_add(out->point_b, best.pb, origin);
  out->feature = 0;
  info->status = CLT_SMOOTH_OK;
  return CLT_SMOOTH_OK;
}

static clt_smooth_info_t *info_or_local(clt_smooth_info_t *info, clt_smooth_info_t *local) {
  clt_smooth_info_t *i = info ? info : local;
  memset(i, 0, sizeof *i);
  return i;
}

/* The queries with an early-out cutoff (+∞: none). Past the cutoff only out->distance is set, to a
 * lower bound of Φ above the cutoff. */
static clt_smooth_status_t convex_solve(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double cutoff,
                                        clt_contact_point_t *out, clt_smooth_info_t *info) {
  clt_smooth_info_t local;
  info = info_or_local(info, &local);
  ell_t a, b;
  if (!make_ellipsoid(sa, &a) || !make_ellipsoid(sb, &b)) return info->status = CLT_SMOOTH_BAD_INPUT;
  double origin[3];
  clt_v3_copy(origin, a.c);
  clt_v3_sub(b.c, b.c, origin);
  clt_v3_set(a.c, 0.0, 0.0, 0.0);
  pair_t p;
  memset(&p, 0, sizeof p);
  p.a = &a;
  p.b[0] = &b;
  return solve_pair(&p, origin, cutoff, out, info);
}

clt_smooth_status_t clt_smooth_ellipsoid_convex_query(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                                      clt_contact_point_t *out, clt_smooth_info_t *info) {
  return convex_solve(sa, sb, INFINITY, out, info);
}

static clt_smooth_status_t capsule_solve(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                         double cutoff, clt_contact_point_t *out, clt_smooth_info_t *info) {
  clt_smooth_info_t local;
  info = info_or_local(info, &local);
  ell_t a, caps[2];
  double len = sb->def->length;
  if (!make_ellipsoid(sa, &a) || !make_ellipsoid(sb, &caps[0]) || !(len >= 0.0) || !isfinite(len))
    return info->status = CLT_SMOOTH_BAD_INPUT;
  pair_t p;
  memset(&p, 0, sizeof p);
  p.a = &a;
  p.capsule = true;
  p.radius = sb->def->radius;
  p.half_length = 0.5 * len;
  for (int k = 0; k < 3; k++) p.z[k] = sb->rotation[k][2];
  double origin[3];
  clt_v3_copy(origin, a.c);
  clt_v3_set(a.c, 0.0, 0.0, 0.0);
  clt_v3_sub(p.centre, sb->position, origin);
  caps[1] = caps[0];
  clt_v3_axpy(caps[0].c, p.centre, -p.half_length, p.z);
  clt_v3_axpy(caps[1].c, p.centre, p.half_length, p.z);
  p.b[0] = &caps[0];
  p.b[1] = &caps[1];
  return solve_pair(&p, origin, cutoff, out, info);
}

clt_smooth_status_t clt_smooth_ellipsoid_capsule_query(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb,
                                                       clt_contact_point_t *out, clt_smooth_info_t *info) {
  return capsule_solve(sa, sb, INFINITY, out, info);
}

clt_smooth_status_t clt_smooth_ellipsoid_halfspace_query(const clt_placed_shape_t *sa,
                                                         const clt_placed_shape_t *sb, clt_contact_point_t *out,
                                                         clt_smooth_info_t *info) {
  clt_smooth_info_t local;
  info = info_or_local(info, &local);
  ell_t a;
  if (!make_ellipsoid(sa, &a)) return info->status = CLT_SMOOTH_BAD_INPUT;
  double p[3], m[3];
  clt_m3_mulv(p, sb->rotation, sb->def->point);
  clt_v3_add(p, p, sb->position);
  clt_m3_mulv(m, sb->rotation, sb->def->normal);
  double len = clt_v3_norm(m);
  if (!(len > 0.0) || !clt_v3_isfinite(p)) return info->status = CLT_SMOOTH_BAD_INPUT;
  clt_v3_scale(m, m, 1.0 / len);
  /* Normal from A to B is −m; p_A = s_A(−m); Φ = (p_A − p)·m; p_B its projection on the plane. */
  double n[3], mu[3], pa[3], pb[3], rel[3];
  clt_v3_scale(n, m, -1.0);
  double s = support_sigma(&a, n, mu);
  clt_v3_axpy(pa, a.c, 1.0 / s, mu);
  clt_v3_sub(rel, pa, p);
  double phi = clt_v3_dot(rel, m);
  clt_v3_axpy(pb, pa, -phi, m);
  out->distance = phi;
  clt_v3_copy(out->normal, n);
  clt_v3_copy(out->point_a, pa);
  clt_v3_copy(out->point_b, pb);
  out->feature = 0;
  info->status = CLT_SMOOTH_OK;
  return CLT_SMOOTH_OK;
}

/* Wraps a query as a pair-table entry. */
static int as_pair(clt_smooth_status_t status, const clt_contact_point_t *point, double max_distance,
                   clt_contact_point_t *out) {
  if (status != CLT_SMOOTH_OK) return CLT_SMOOTH_FAILED;
  if (point->distance > max_distance) return 0;
  out[0] = *point;
  return 1;
}

/* Bounding-sphere early out (radii of the bounding spheres about the shape origins). */
static bool far_apart(const clt_placed_shape_t *a, double ra, const clt_placed_shape_t *b, double rb,
                      double max_distance) {
  double d[3];
  clt_v3_sub(d, b->position, a->position);
  return clt_v3_norm(d) - ra - rb > max_distance;
}

static double ellipsoid_bound(const clt_placed_shape_t *s) {
  const double *a = s->def->semi_axes;
  return fmax(fmax(a[0], a[1]), a[2]);
}

int clt_smooth_ellipsoid_ellipsoid(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                   clt_contact_point_t *out) {
  if (far_apart(a, ellipsoid_bound(a), b, ellipsoid_bound(b), max_distance)) return 0;
  clt_contact_point_t point;
  return as_pair(convex_solve(a, b, max_distance, &point, NULL), &point, max_distance, out);
}

int clt_smooth_ellipsoid_sphere(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                clt_contact_point_t *out) {
  if (far_apart(a, ellipsoid_bound(a), b, b->def->radius, max_distance)) return 0;
  clt_contact_point_t point;
  return as_pair(convex_solve(a, b, max_distance, &point, NULL), &point, max_distance, out);
}

int clt_smooth_ellipsoid_capsule(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                 clt_contact_point_t *out) {
  if (far_apart(a, ellipsoid_bound(a), b, b->def->radius + 0.5 * b->def->length, max_distance)) return 0;
  clt_contact_point_t point;
  return as_pair(capsule_solve(a, b, max_distance, &point, NULL), &point, max_distance, out);
}

int clt_smooth_ellipsoid_halfspace(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                                   clt_contact_point_t *out) {
  clt_contact_point_t point;
  return as_pair(clt_smooth_ellipsoid_halfspace_query(a, b, &point, NULL), &point, max_distance, out);
}

/* ---------------------------------------------------------------------------------------------
 * Ellipsoid A against a box B (one shared-normal point, like the smooth pairs). In the box frame
 * (centre 0, axes aligned, half extents e) the support separation is
 *   G(u) = min_{y ∈ B} u·y − max_{x ∈ A} u·x = −Σ e_k |u_k| − u·c − σ_A(u),
 * smooth inside each orthant of u and kinked across the coordinate planes. Its maximum Φ (the
 * distance apart, minus the penetration depth in overlap) lies where −u is in the normal cone of
 * one box feature, so the candidates are:
 *  - the 6 face normals (u = ∓axis: closed form);
 *  - the 12 edges: u on the quarter circle between the two adjacent face normals, where
 *    G = u·(y_e − c) − σ_A(u) with y_e a point of the edge: 17 samples of the arc, then a
 *    safeguarded Newton iteration on G' = 0 in the bracket of every sampled local maximum;
 *  - the 8 vertices: u strictly inside the vertex's orthant, a stationary point of the
 *    ellipsoid–point separation u·(v − c) − σ_A(u): the trust-region ascent above with B = the
 *    point v, from the direction c → v, the orthant's centre and the orthant's best sample.
 * The sample: 128 Fibonacci directions (up to 512 for thin ellipsoids), the centre line, ± the
 * ellipsoid's axes and their cross products with the box's. The largest converged candidate
 * wins; no sample may beat it, else ascents start from the samples that do (8 rounds), and if one
 * still does the query reports CLT_SMOOTH_NOT_CONVERGED. Witness points: p_A = A's support point
 * along u, p_B = p_A + Φ u (on the box feature). */

#define BOX_ARC_SAMPLES 16
#define BOX_SAMPLE_COUNT 128 /* × aspect/5 for thin ellipsoids, up to 4× */

typedef struct box_pair_t {
  ell_t a;         /* the ellipsoid in the box frame */
  double e[3];     /* half extents */
  tolerance_t tol;
  candidate_t best;
  int iterations, starts;
  bool done; /* a certified local maximum above −ρ_A was found: it is the answer */
} box_pair_t;

static double box_separation(const box_pair_t *q, const double u[3]) {
  double mu[3];
  return -(q->e[0] * fabs(u[0]) + q->e[1] * fabs(u[1]) + q->e[2] * fabs(u[2])) - clt_v3_dot(u, q->a.c) -
         support_sigma(&q->a, u, mu);
}

/* Candidate (u, G(u)) with the witness points; false when G(u) passed the cutoff. `certified`:
 * u is a strict local maximum of G on the sphere (see box_solve). */
static bool box_candidate(box_pair_t *q, const double u[3], bool certified) {
  double mu[3];
  candidate_t c;
  double s = support_sigma(&q->a, u, mu);
  c.ok = true;
  c.g = box_separation(q, u);
  if (c.g > q->tol.cutoff) {
    q->tol.beyond = true;
    q->best.g = c.g;
    return false;
  }
  clt_v3_copy(c.u, u);
  clt_v3_axpy(c.pa, q->a.c, 1.0 / s, mu);
  clt_v3_axpy(c.pb, c.pa, c.g, u);
  keep_best(&q->best, &c);
  if (certified && c.g > -(1.0 - 1e-6) * q->a.rho + 1e-9 * q->tol.scale) q->done = true;
  return true;
}

/* G along the arc of edge (k; s_i, s_j): u(θ) = −(cos θ s_i e_i + sin θ s_j e_j); first and second
 * derivatives in θ. */
typedef struct box_arc_t {
  double n1[3], n2[3]; /* −s_i e_i, −s_j e_j */
  double y[3];         /* a point of the edge */
} box_arc_t;

static double box_arc_eval(const box_pair_t *q, const box_arc_t *arc, double theta, double *d1, double *d2,
                           double u[3]) {
  double ct = cos(theta), st = sin(theta), du[3], mu[3], w[3];
  for (int k = 0; k < 3; k++) {
    u[k] = ct * arc->n1[k] + st * arc->n2[k];
    du[k] = -st * arc->n1[k] + ct * arc->n2[k];
  }
  double s = support_sigma(&q->a, u, mu);
  for (int k = 0; k < 3; k++) w[k] = arc->y[k] - q->a.c[k] - mu[k] / s; /* y − s_A(u) */
  double g = clt_v3_dot(u, w);
  if (d1) *d1 = clt_v3_dot(du, w);
  if (d2) *d2 = -g - support_hess(&q->a, s, mu, du, du);
  return g;
}

/* Every local maximum of G on the arc (endpoints excluded: they are faces). */
static bool box_search_arc(box_pair_t *q, const box_arc_t *arc) {
  const double step = 0.5 * CLT_PI / BOX_ARC_SAMPLES;
  double f[BOX_ARC_SAMPLES + 1], u[3];
  for (int k = 0; k <= BOX_ARC_SAMPLES; k++) {
    f[k] = box_arc_eval(q, arc, k * step, NULL, NULL, u);
    if (f[k] > q->tol.cutoff) {
      q->tol.beyond = true;
      q->best.g = f[k];
      return false;
    }
  }
  for (int k = 0; k <= BOX_ARC_SAMPLES; k++) {
    bool left = k == 0 || f[k] >= f[k - 1], right = k == BOX_ARC_SAMPLES || f[k] > f[k + 1];
    if (!left || !right) continue;
    double lo = k == 0 ? 0.0 : (k - 1) * step, hi = k == BOX_ARC_SAMPLES ? 0.5 * CLT_PI : (k + 1) * step;
    double dlo, dhi, d1, d2, x = k * step;
    box_arc_eval(q, arc, lo, &dlo, NULL, u);
    box_arc_eval(q, arc, hi, &dhi, NULL, u);
    if (!(dlo > 0.0 && dhi < 0.0)) continue; /* the maximum is at an end: a face */
    q->starts++;
    bool converged = false;
    for (int it = 0; it < 100; it++) {
      q->iterations++;
      box_arc_eval(q, arc, x, &d1, &d2, u);
      if (fabs(d1) <= q->tol.grad) {
        converged = true;
        break;
      }
      if (d1 > 0.0)
        lo = x;
      else
        hi = x;
      double nx = d2 < 0.0 ? x - d1 / d2 : 0.5 * (lo + hi);
      if (!(nx > lo && nx < hi)) nx = 0.5 * (lo + hi);
      if (hi - lo <= 1e-15) {
        converged = fabs(d1) <= 100.0 * q->tol.grad;
        break;
      }
      x = nx;
    }
    if (!converged) continue;
    /* A strict local maximum of G if it is one along the arc (d2 < 0) and A's support point lies
     * strictly within the edge's length (G falls to first order off the arc). */
    double mu[3], sg = support_sigma(&q->a, u, mu), along = 0.0, half = 0.0;
    for (int k = 0; k < 3; k++)
      if (arc->n1[k] == 0.0 && arc->n2[k] == 0.0) along = q->a.c[k] + mu[k] / sg, half = q->e[k];
    if (!box_candidate(q, u, d2 < 0.0 && fabs(along) < half)) return false;
    if (q->done) return true;
  }
  return true;
}

/* Ascent of the ellipsoid–vertex separation from u0, kept if it converges strictly inside the
 * vertex's orthant (u_k s_k < 0). */
static bool box_vertex_ascent(box_pair_t *q, const double s[3], const double u0[3]) {
  ell_t v;
  memset(&v, 0, sizeof v);
  for (int k = 0; k < 3; k++) v.c[k] = s[k] * q->e[k];
  eval_t ev;
  q->starts++;
  /* f_v ≥ G off the orthant (u·v ≥ min over the box of u·y): not a lower bound of Φ, no cutoff
   * during the ascent; box_candidate checks G itself. */
  tolerance_t tol = q->tol;
  tol.cutoff = INFINITY;
  bool converged = ascend(&q->a, &v, u0, &tol, &ev, &q->iterations);
  if (!converged) return true;
  for (int k = 0; k < 3; k++)
    if (!(ev.u[k] * s[k] < 0.0)) return true; /* left the orthant: an edge or face has it */
  return box_candidate(q, ev.u, true); /* G = f_v near u: a local maximum of f_v is one of G */
}

static clt_smooth_status_t box_solve(const clt_placed_shape_t *sa, const clt_placed_shape_t *sb, double cutoff,
                                     clt_contact_point_t *out, clt_smooth_info_t *info) {
  clt_smooth_info_t local;
  info = info_or_local(info, &local);
  box_pair_t q;
  memset(&q, 0, sizeof q);
  const double *e = sb->def->half_extents;
  if (!(e[0] > 0.0 && e[1] > 0.0 && e[2] > 0.0) || !isfinite(e[0] + e[1] + e[2]) || !clt_v3_isfinite(sb->position))
    return info->status = CLT_SMOOTH_BAD_INPUT;
  /* A in the box frame: position R_Bᵀ(c_A − c_B), rotation R_Bᵀ R_A. */
  clt_placed_shape_t local_a = *sa;
  double d[3];
  clt_v3_sub(d, sa->position, sb->position);
  clt_m3_mulv_t(local_a.position, sb->rotation, d);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      local_a.rotation[i][j] = sb->rotation[0][i] * sa->rotation[0][j] + sb->rotation[1][i] * sa->rotation[1][j] +
                               sb->rotation[2][i] * sa->rotation[2][j];
  if (!make_ellipsoid(&local_a, &q.a)) return info->status = CLT_SMOOTH_BAD_INPUT;
  for (int k = 0; k < 3; k++) q.e[k] = e[k];
  double ext = clt_v3_norm(e);
  q.tol.scale = q.a.size + ext;
  q.tol.grad = 64.0 * 2.220446049250313e-16 * (q.tol.scale + clt_v3_norm(q.a.c));
  q.tol.cutoff = cutoff;
  q.tol.beyond = false;

  /* Shortcut: as for two ellipsoids (solve_pair), G = G' − ρ_A with G' the separation of the box
   * and the shrunk ellipsoid (A = A' ⊕ ball(ρ_A)), and a local maximum of G' with G' > 0 is the
   * global one; so is then any STRICT local maximum of G with G > −ρ_A: a face normal whose
   * support point of A projects strictly inside the face, an edge's arc maximum whose support
   * point projects strictly inside the edge, a vertex ascent converged inside its orthant. The
   * first such candidate ends the search (q.done): an ellipsoid resting on a face costs 6
   * evaluations. */
  bool going = true;
  /* the centre line: a lower bound that settles most pairs beyond the cutoff at once */
  double cl0 = clt_v3_norm(q.a.c);
  if (cl0 > 0.0) {
    double u[3];
    clt_v3_scale(u, q.a.c, -1.0 / cl0);
    double g = box_separation(&q, u);
    if (g > cutoff) {
      q.tol.beyond = true;
      q.best.g = g;
      going = false;
    }
  }
  /* faces */
  for (int k = 0; going && !q.done && k < 6; k++) {
    double u[3] = {0.0, 0.0, 0.0}, mu[3];
    int axis = k / 2;
    u[axis] = (k & 1) ? 1.0 : -1.0;
    double sg = support_sigma(&q.a, u, mu);
    bool inside = true;
    for (int j = 0; j < 3; j++)
      if (j != axis) inside = inside && fabs(q.a.c[j] + mu[j] / sg) < e[j];
    going = box_candidate(&q, u, inside);
  }
  /* edges */
  for (int k = 0; going && !q.done && k < 3; k++)
    for (int sg = 0; going && !q.done && sg < 4; sg++) {
      int i = (k + 1) % 3, j = (k + 2) % 3;
      double si = (sg & 1) ? 1.0 : -1.0, sj = (sg & 2) ? 1.0 : -1.0;
      box_arc_t arc;
      memset(&arc, 0, sizeof arc);
      arc.n1[i] = -si;
      arc.n2[j] = -sj;
      arc.y[i] = si * e[i];
      arc.y[j] = sj * e[j];
      going = box_search_arc(&q, &arc);
    }
  /* Sample of G: a Fibonacci sphere (denser for thin ellipsoids, whose basins are narrow), the
   * centre line, ± the ellipsoid's axes and the cross products of its axes with the box's. */
  enum { BOX_MAX_SAMPLES = 4 * BOX_SAMPLE_COUNT + 32 };
  double dirs[BOX_MAX_SAMPLES][3], gs[BOX_MAX_SAMPLES];
  int nfib = (int)fmin(4.0 * BOX_SAMPLE_COUNT, BOX_SAMPLE_COUNT * fmax(1.0, q.a.aspect / 5.0));
  fibonacci_sphere(nfib, dirs);
  int total = nfib;
  double cl = clt_v3_norm(q.a.c);
  if (cl > 0.0) clt_v3_scale(dirs[total++], q.a.c, -1.0 / cl); /* from A's centre to B's */
  for (int i = 0; i < 3; i++) {
    clt_v3_copy(dirs[total++], q.a.axis[i]);
    clt_v3_scale(dirs[total++], q.a.axis[i], -1.0);
    for (int j = 0; j < 3; j++) {
      double bj[3] = {0.0, 0.0, 0.0}, x[3];
      bj[j] = 1.0;
      clt_v3_cross(x, q.a.axis[i], bj);
      double xl = clt_v3_norm(x);
      if (!(xl > 1e-9)) continue;
      clt_v3_scale(dirs[total++], x, 1.0 / xl);
      clt_v3_scale(dirs[total++], x, -1.0 / xl);
    }
  }
  for (int i = 0; going && !q.done && i < total; i++) {
    gs[i] = box_separation(&q, dirs[i]);
    if (gs[i] > cutoff) {
      q.tol.beyond = true;
      q.best.g = gs[i];
      going = false;
    }
  }
  /* vertices: from the direction c → v, the orthant's centre and the orthant's best sample */
  for (int vtx = 0; going && !q.done && vtx < 8; vtx++) {
    double s[3] = {(vtx & 1) ? 1.0 : -1.0, (vtx & 2) ? 1.0 : -1.0, (vtx & 4) ? 1.0 : -1.0}, u[3], w[3];
    for (int k = 0; k < 3; k++) w[k] = s[k] * e[k] - q.a.c[k];
    bool inside = true;
    for (int k = 0; k < 3; k++) inside = inside && w[k] * s[k] < 0.0;
    if (inside && clt_v3_norm(w) > 0.0) {
      clt_v3_scale(u, w, 1.0 / clt_v3_norm(w));
      going = box_vertex_ascent(&q, s, u);
    }
    if (going && !q.done) {
      clt_v3_scale(u, s, -1.0 / sqrt(3.0));
      going = box_vertex_ascent(&q, s, u);
    }
    int arg = -1;
    for (int i = 0; going && !q.done && i < total; i++) {
      bool in = dirs[i][0] * s[0] < 0.0 && dirs[i][1] * s[1] < 0.0 && dirs[i][2] * s[2] < 0.0;
      if (in && (arg < 0 || gs[i] > gs[arg])) arg = i;
    }
    if (going && !q.done && arg >= 0) going = box_vertex_ascent(&q, s, dirs[arg]);
  }
  /* global check: no sample above the answer (else ascents from those samples, 8 rounds) */
  for (int round = 0; going && !q.done && round < 8; round++) {
    int arg = -1;
    for (int i = 0; i < total; i++)
      if (gs[i] > q.best.g + 1e-12 * q.tol.scale && (arg < 0 || gs[i] > gs[arg])) arg = i;
    if (arg < 0) break;
    double s[3];
    for (int k = 0; k < 3; k++) s[k] = dirs[arg][k] > 0.0 ? -1.0 : 1.0;
    gs[arg] = -INFINITY;
    going = box_vertex_ascent(&q, s, dirs[arg]);
  }
  if (going && !q.done && q.best.ok)
    for (int i = 0; i < total; i++)
      if (gs[i] > q.best.g + 1e-9 * q.tol.scale) q.best.ok = false;
  info->starts = q.starts;
  info->iterations = q.iterations;
  if (q.tol.beyond) {
    out->distance = q.best.g; /* a lower bound past the cutoff: "apart" for the pair entry */
    info->status = CLT_SMOOTH_OK;
    return CLT_SMOOTH_OK;
  }
  if (!q.best.ok) return info->status = CLT_SMOOTH_NOT_CONVERGED;
  /* back to the world frame */
  double diff[3], cross[3];
  clt_v3_sub(diff, q.best.pb, q.best.pa);
  clt_v3_cross(cross, q.best.u, diff);
  info->residual = clt_v3_norm(cross) / q.tol.scale;
  out->distance = q.best.g;
  clt_m3_mulv(out->normal, sb->rotation, q.best.u);
  clt_m3_mulv(out->point_a, sb->rotation, q.best.pa);
  clt_v3_add(out->point_a, out->point_a, sb->position);
  clt_m3_mulv(out->point_b, sb->rotation, q.best.pb);
  clt_v3_add(out->point_b, out->point_b, sb->position);
  out->feature = 0;
  info->status = CLT_SMOOTH_OK;
  return CLT_SMOOTH_OK;
}

clt_smooth_status_t clt_smooth_ellipsoid_box_query(const clt_placed_shape_t *a, const clt_placed_shape_t *b,
                                                   clt_contact_point_t *out, clt_smooth_info_t *info) {
  return box_solve(a, b, INFINITY, out, info);
}

int clt_smooth_ellipsoid_box(const clt_placed_shape_t *a, const clt_placed_shape_t *b, double max_distance,
                             clt_contact_point_t *out) {
  if (far_apart(a, ellipsoid_bound(a), b, clt_v3_norm(b->def->half_extents), max_distance)) return 0;
  clt_contact_point_t point;
  return as_pair(box_solve(a, b, max_distance, &point, NULL), &point, max_distance, out);
}
