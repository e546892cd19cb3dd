/* The stages of one time step of the ReLCP family (SPEC.md §6; 002 §3.1, Algorithm 1) under
 * either law of motion (relcp.h for the generic form velocity = a + B D λ).
 *
 *  1. mobility: per dynamic body B and a (inertial: M⁻¹ and v + h M⁻¹ f_ext with the explicit
 *     gyroscopic torque; overdamped: 𝓜 = Z⁻¹ from src/dynamics/drag.c and 𝓜 F_ext, F_ext = applied
 *     forces + explicit springs + m g). Planar worlds (world->planar) confine each body to
 *     translations in its z = const plane and rotations about the world z axis: B becomes the
 *     inverse of M (or Z) restricted to that subspace — the in-plane 2×2 block of the world
 *     translational tensor inverted, and e eᵀ / (eᵀ J e) on the angular block with e = Rᵀ e_z —
 *     and a is the restricted response (so v_z = ω_x = ω_y = 0 exactly in the world frame);
 *  2. C₀: one shared-normal constraint per contact point with Φ ≤ ε̂ at q (the narrow phase of
 *     src/collision; one point per smooth pair), frozen normal and witness points;
 *  3. the recursion of SPEC.md §6.2: solve the PSD LCP (stage_relcp_solve.c), velocity_k =
 *     a + B D λ, q_{k+1} = q ⊕ h velocity_k; broad + narrow phase on the TRUE shapes at q_{k+1}; every
 *     point with Φ < −ε_tol becomes a new constraint frozen there (value pulled back to q, relcp.h;
 *     in planar worlds a capsule pair with crossing cores gets an in-plane axis instead of the
 *     narrow phase's ±e_z, planar_crossing_capsules);
 *     old constraints are kept as they are; stop when none overlaps beyond ε_tol. Reaching
 *     relcp_max_iterations passes with overlaps left rejects the step (CLT_ERR_SOLVER; the driver
 *     restores the state);
 *  4. snsd: the first pass is accepted whatever overlaps; multisphere:N: C₀ is built between the
 *     N-sphere proxies of ellipsoids, capsules and rings (src/collision/multisphere.h), and the
 *     one LCP is re-solved only while proxy pairs without a constraint overlap at the trial
 *     configuration (their constraints at q are added: complete_proxy_candidates).
 *     For every model the true overlap at the accepted state is measured on the true shapes.
 * The state becomes q⁺ with velocity = the accepted velocity (inertial v⁺; overdamped U).
 * Diagnostics: contacts = |C₀|, constraints = lcp_size = all constraints of the last pass,
 * relcp_iterations = passes (1: accepted after the SNSD solve, no augmentation; multisphere: the
 * solves), iterations = solver iterations summed over the passes, max_overlap = max(0, −Φ) over
 * all true shape pairs after the step. The contact report lists every constraint with its impulse
 * (overdamped: h λ). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/sort.h"
#include "collision/multisphere.h"
#include "math/vec.h"
#include "steppers/relcp.h"

/* realloc to at least `needed` elements with doubling; *capacity is only read. */
static bool grow_to(void **p, int capacity, int needed, size_t size, int *new_capacity) {
  int cap = capacity > 0 ? capacity : 64;
  while (cap < needed) cap *= 2;
  if (needed <= capacity) cap = capacity;
  if (cap != capacity || !*p) {
    void *q = realloc(*p, (size_t)cap * size);
    if (!q) return false;
    *p = q;
  }
  *new_capacity = cap;
  return true;
}

void clt_relcp_work_destroy(clt_relcp_work_t *w) {
  if (!w) return;
  free(w->mobility);
  free(w->base);
  free(w->velocity);
  free(w->trial);
  free(w->instances);
  free(w->instance_shape);
  free(w->proxies);
  clt_contact_set_destroy(&w->set);
  free(w->constraints);
  free(w->bj);
  free(w->b);
  free(w->lambda);
  free(w->w);
  free(w->diagonal);
  free(w->body_start);
  free(w->body_entry);
  free(w->active);
  free(w->jr);
  free(w->jb);
  free(w->dense);
  free(w->accumulator);
  free(w);
}

static bool reserve_bodies(clt_relcp_work_t *w, int nb) {
  if (nb <= w->body_capacity && w->mobility) return true;
  int c = 0;
  bool ok = grow_to((void **)&w->mobility, w->body_capacity, nb, 18 * sizeof(double), &c) &&
            grow_to((void **)&w->base, w->body_capacity, nb, 6 * sizeof(double), &c) &&
            grow_to((void **)&w->velocity, w->body_capacity, nb, 6 * sizeof(double), &c) &&
            grow_to((void **)&w->trial, w->body_capacity, nb, sizeof(clt_body_state_t), &c);
  if (ok) w->body_capacity = c;
  return ok;
}

static bool reserve_instances(clt_relcp_work_t *w, int n) {
  if (n <= w->instance_capacity && w->instances) return true;
  int c = 0;
  bool ok = grow_to((void **)&w->instances, w->instance_capacity, n, sizeof(clt_shape_instance_t), &c) &&
            grow_to((void **)&w->instance_shape, w->instance_capacity, n, sizeof(int), &c);
  if (ok) w->instance_capacity = c;
  return ok;
}

static bool reserve_constraints(clt_relcp_work_t *w, int n) {
  if (n <= w->capacity && w->constraints) return true;
  int c = 0;
  bool ok = grow_to((void **)&w->constraints, w->capacity, n, sizeof(clt_relcp_constraint_t), &c) &&
            grow_to((void **)&w->bj, w->capacity, n, 12 * sizeof(double), &c) &&
            grow_to((void **)&w->b, w->capacity, n, sizeof(double), &c) &&
            grow_to((void **)&w->lambda, w->capacity, n, sizeof(double), &c) &&
            grow_to((void **)&w->w, w->capacity, n, sizeof(double), &c) &&
            grow_to((void **)&w->diagonal, w->capacity, n, sizeof(double), &c);
  if (ok) w->capacity = c;
  return ok;
}

/* ---------------------------------------------------------------------------------------------
 * 1. Mobility and base velocity */

/* Inverse of a 3×3 matrix by its adjugate; false if singular. */
static bool invert3(const double a[3][3], double out[3][3]) {
  double cof[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      cof[i][j] = a[(i + 1) % 3][(j + 1) % 3] * a[(i + 2) % 3][(j + 2) % 3] -
                  a[(i + 1) % 3][(j + 2) % 3] * a[(i + 2) % 3][(j + 1) % 3];
  double det = a[0][0] * cof[0][0] + a[0][1] * cof[0][1] + a[0][2] * cof[0][2];
  if (!(fabs(det) > 0.0) || !isfinite(det)) return false;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) out[j][i] = cof[i][j] / det;
  for (int i = 0; i < 3; i++) /* exact symmetry for symmetric input */
    for (int j = i + 1; j < 3; j++) out[i][j] = out[j][i] = 0.5 * (out[i][j] + out[j][i]);
  return true;
}

static void mat_vec(const double *m, const double x[3], double y[3]) {
  for (int i = 0; i < 3; i++) y[i] = m[3 * i] * x[0] + m[3 * i + 1] * x[1] + m[3 * i + 2] * x[2];
}

/* The translational block for a world tensor Z (3×3): Z⁻¹, or in a planar world the inverse of
 * its in-plane 2×2 block (z row and column zero). */
static bool linear_block(bool planar, const double z[3][3], double *out) {
  memset(out, 0, 9 * sizeof *out);
  if (planar) {
    double det = z[0][0] * z[1][1] - z[0][1] * z[1][0];
    if (!(det > 0.0) || !isfinite(det)) return false;
    out[0] = z[1][1] / det;
    out[4] = z[0][0] / det;
    out[1] = out[3] = -0.5 * (z[0][1] + z[1][0]) / det;
    return true;
  }
  double inv[3][3];
  if (!invert3(z, inv)) return false;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) out[3 * i + j] = inv[i][j];
  return true;
}

/* The angular block for a body-frame tensor K: K⁻¹, or in a planar world e eᵀ / (eᵀ K e) with e
 * the world z axis in the body frame. */
static bool angular_block(bool planar, const double e[3], const double k[3][3], double *out) {
  memset(out, 0, 9 * sizeof *out);
  if (planar) {
    double ke[3];
    clt_m3_mulv(ke, k, e);
    double s = clt_v3_dot(e, ke);
    if (!(s > 0.0) || !isfinite(s)) return false;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) out[3 * i + j] = e[i] * e[j] / s;
    return true;
  }
  double inv[3][3];
  if (!invert3(k, inv)) return false;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) out[3 * i + j] = inv[i][j];
  return true;
}

static clt_status_t body_fail(clt_world_t *world, int i, const char *what) {
  char label[CLT_NAME_SIZE + 32];
  clt_body_label(world, i, label, sizeof label);
  return clt_world_fail(world, CLT_ERR_NUMERICAL, "relcp: %s: %s", label, what);
}

static clt_status_t mobility(clt_world_t *world, clt_relcp_work_t *w, double h, double t, double t_next) {
  bool planar = world->planar, overdamped = world->law == CLT_LAW_OVERDAMPED;
  for (int i = 0; i < world->body_count; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    const clt_body_state_t *s = &world->states[i];
    double *m = w->mobility + 18 * (size_t)i, *a = w->base + 6 * (size_t)i;
    memset(m, 0, 18 * sizeof *m);
    memset(a, 0, 6 * sizeof *a);
    if (b->type == CLT_BODY_KINEMATIC) {
      /* prescribed: its mean velocity over the step enters the constraints, so that x + h a is
       * exactly where its law puts it at t + h (as the trial configuration does); ω is constant */
      clt_body_state_t s0, s1;
      clt_kinematic_state(world, i, t, &s0);
      clt_kinematic_state(world, i, t_next, &s1);
      for (int k = 0; k < 3; k++) a[k] = (s1.position[k] - s0.position[k]) / h;
      clt_v3_copy(a + 3, s0.angular_velocity);
      continue;
    }
    if (b->type != CLT_BODY_DYNAMIC) continue;
    double r[3][3], e[3];
    clt_q_to_m3(r, s->orientation);
    for (int k = 0; k < 3; k++) e[k] = r[2][k]; /* Rᵀ e_z */
    double force[3], torque[3];
    for (int k = 0; k < 3; k++) {
      force[k] = world->force_acc[i][k] + b->mass * world->gravity[k];
      torque[k] = world->torque_acc[i][k];
    }
    if (overdamped) {
      double zt[3][3], zr[3][3], zw[3][3];
      if (!clt_body_drag(world, i, zt, zr))
        return body_fail(world, i, "no drag for the overdamped law (give drag_linear and drag_angular > 0)");
      clt_m3_rotate_tensor(zw, r, zt); /* R Z Rᵀ: world frame */
      if (!linear_block(planar, zw, m) || !angular_block(planar, e, zr, m + 9))
        return body_fail(world, i, "singular drag tensor");
      mat_vec(m, force, a);
      mat_vec(m + 9, torque, a + 3);
    } else {
      double mt[3][3] = {{b->mass, 0.0, 0.0}, {0.0, b->mass, 0.0}, {0.0, 0.0, b->mass}};
      double jb[3][3] = {{b->inertia[0], 0.0, 0.0}, {0.0, b->inertia[1], 0.0}, {0.0, 0.0, b->inertia[2]}};
      if (!linear_block(planar, mt, m) || !angular_block(planar, e, jb, m + 9))
        return body_fail(world, i, "singular mass matrix");
      /* a = B (M v + h f): momentum plus impulse, mapped back (the projection in a planar world) */
      const double *v = s->velocity, *om = s->angular_velocity;
      double p[3], l[3];
      for (int k = 0; k < 3; k++) {
        p[k] = b->mass * v[k] + h * force[k];
        l[k] = b->inertia[k] * om[k] + h * torque[k];
      }
      if (world->method.gyroscopic != CLT_GYRO_OFF) {
        /* explicit −ω × Jω (SPEC.md §1 default; the semi-implicit form is not used here: it
         * makes B non-symmetric) */
        double jw[3] = {b->inertia[0] * om[0], b->inertia[1] * om[1], b->inertia[2] * om[2]}, g[3];
        clt_v3_cross(g, om, jw);
        for (int k = 0; k < 3; k++) l[k] -= h * g[k];
      }
      mat_vec(m, p, a);
      mat_vec(m + 9, l, a + 3);
    }
  }
  return CLT_OK;
}

/* ---------------------------------------------------------------------------------------------
 * 2. Collision instances and constraints */

static void set_poses(clt_relcp_work_t *w, const clt_body_state_t *states, int first, int count) {
  for (int k = first; k < first + count; k++) {
    clt_shape_instance_t *in = &w->instances[k];
    const clt_body_state_t *s = &states[in->body];
    clt_v3_copy(in->pose.position, s->position);
    in->pose.angle = 0.0;
    clt_q_copy(in->pose.orientation, s->orientation);
  }
}

/* The true shapes [0, shape_count), and for multisphere the proxies after them. */
static clt_status_t build_instances(clt_world_t *world, clt_relcp_work_t *w, bool proxies) {
  int ns = world->shape_count;
  w->proxy_count = 0;
  int np = 0, per = world->method.multisphere_count;
  if (proxies) {
    for (int s = 0; s < ns; s++) {
      clt_shape_type_t t = clt_world_shape(world, s)->type;
      bool replaced = t == CLT_SHAPE_ELLIPSOID || t == CLT_SHAPE_CAPSULE || (t == CLT_SHAPE_TORUS && per >= 3);
      np += replaced ? (per > 1 ? per : 1) : 1;
    }
    if (!grow_to((void **)&w->proxies, w->proxy_capacity, np, sizeof(clt_shape_def_t), &w->proxy_capacity))
      return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory (proxies)");
  }
  if (!reserve_instances(w, ns + np)) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory");
  for (int i = 0; i < world->body_count; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    for (int k = 0; k < b->shape_count; k++) {
      int s = b->shape_first + k;
      clt_shape_instance_t *in = &w->instances[s];
      in->shape = clt_world_shape(world, s);
      in->body = i;
      in->fixed = b->type != CLT_BODY_DYNAMIC;
      w->instance_shape[s] = s;
    }
  }
  if (!proxies) return CLT_OK;
  double centres[CLT_MULTISPHERE_MAX][3], radii[CLT_MULTISPHERE_MAX];
  int p = 0;
  for (int i = 0; i < world->body_count; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    for (int k = 0; k < b->shape_count; k++) {
      int s = b->shape_first + k;
      const clt_shape_def_t *shape = clt_world_shape(world, s);
      clt_shape_type_t t = shape->type;
      bool replaced = t == CLT_SHAPE_ELLIPSOID || t == CLT_SHAPE_CAPSULE || (t == CLT_SHAPE_TORUS && per >= 3);
      int count = replaced ? clt_multisphere_build(shape, per, centres, radii) : 0;
      if (replaced && (count <= 0 || count > per)) {
        char label[CLT_NAME_SIZE + 32];
        clt_body_label(world, i, label, sizeof label);
        return clt_world_fail(world, CLT_ERR_UNSUPPORTED, "relcp: multisphere:%d: no proxy for the %s of %s", per,
                              clt_shape_type_name(t), label);
      }
      if (!replaced) {
        w->proxies[p] = *shape;
        w->instance_shape[ns + p] = s;
        w->instances[ns + p] = w->instances[s];
        w->instances[ns + p].shape = &w->proxies[p];
        p++;
        continue;
      }
      for (int j = 0; j < count; j++) {
        clt_shape_def_t sphere = clt_default_shape_def(CLT_SHAPE_SPHERE);
        double off[3];
        clt_q_rotate(off, shape->local_orientation, centres[j]);
        clt_v3_add(sphere.local_position, shape->local_position, off);
        sphere.radius = radii[j];
        sphere.material = shape->material;
        sphere.filter = shape->filter;
        w->proxies[p] = sphere;
        w->instance_shape[ns + p] = s;
        w->instances[ns + p] = w->instances[s];
        w->instances[ns + p].shape = &w->proxies[p];
        p++;
      }
    }
  }
  w->proxy_count = p;
  return CLT_OK;
}

static clt_status_t collide(clt_world_t *world, clt_relcp_work_t *w, int first, int count, double max_distance,
                            const char *where) {
  clt_status_t st = clt_collide_all(&w->set, w->instances + first, count, 3, max_distance);
  if (st == CLT_OK) return CLT_OK;
  if (st == CLT_ERR_UNSUPPORTED || st == CLT_ERR_NUMERICAL) {
    int a = st == CLT_ERR_UNSUPPORTED ? w->set.unsupported_a : w->set.failed_a;
    int b = st == CLT_ERR_UNSUPPORTED ? w->set.unsupported_b : w->set.failed_b;
    char la[CLT_NAME_SIZE + 32] = "?", lb[CLT_NAME_SIZE + 32] = "?";
    const char *ta = "?", *tb = "?";
    if (a >= 0 && b >= 0) {
      clt_body_label(world, w->instances[first + a].body, la, sizeof la);
      clt_body_label(world, w->instances[first + b].body, lb, sizeof lb);
      ta = clt_shape_type_name(w->instances[first + a].shape->type);
      tb = clt_shape_type_name(w->instances[first + b].shape->type);
    }
    return clt_world_fail(world, st, "relcp: %s: %s between the %s of %s and the %s of %s", where,
                          st == CLT_ERR_UNSUPPORTED ? "no narrow phase" : "the narrow phase failed", ta, la, tb, lb);
  }
  return clt_world_fail(world, st, "relcp: %s: collision failed (%s)", where, clt_status_name(st));
}

/* One side of a constraint row (SPEC.md §0): sign·n on u and sign·R_qᵀ(ρ × n) on the body-frame ω,
 * ρ = p − x at the configuration `at` where the constraint was found, R_q the start-of-step
 * orientation (the frame of the velocity unknowns). Static bodies have no row. */
static void row_side(const clt_world_t *world, const clt_body_state_t *at, int body, const double p[3],
                     const double n[3], double sign, double lin[3], double ang[3]) {
  if (world->bodies[body].type == CLT_BODY_STATIC) return;
  double rho[3], c[3], cb[3];
  clt_v3_sub(rho, p, at[body].position);
  clt_v3_cross(c, rho, n);
  clt_q_rotate_inv(cb, world->states[body].orientation, c);
  for (int k = 0; k < 3; k++) {
    lin[k] = sign * n[k];
    ang[k] = sign * cb[k];
  }
}

static double row_dot_velocity(const clt_relcp_constraint_t *c, const double *v) {
  const double *va = v + 6 * (size_t)c->body_a, *vb = v + 6 * (size_t)c->body_b;
  double s = 0.0;
  for (int k = 0; k < 3; k++)
    s += c->jac.linear_a[k] * va[k] + c->jac.angular_a[k] * va[3 + k] + c->jac.linear_b[k] * vb[k] +
         c->jac.angular_b[k] * vb[3 + k];
  return s;
}

/* A capsule instance's core segment at configuration `at`: its ends and radius. */
static void capsule_core(const clt_relcp_work_t *w, const clt_body_state_t *at, int instance, double e0[3],
                         double e1[3], double *radius) {
  const clt_shape_instance_t *in = &w->instances[instance];
  const clt_shape_def_t *def = in->shape;
  const clt_body_state_t *s = &at[in->body];
  double off[3], centre[3], q[4], axis[3], z[3] = {0.0, 0.0, 1.0};
  clt_q_rotate(off, s->orientation, def->local_position);
  clt_v3_add(centre, s->position, off);
  clt_q_mul(q, s->orientation, def->local_orientation);
  clt_q_rotate(axis, q, z);
  clt_v3_axpy(e0, centre, -0.5 * def->length, axis);
  clt_v3_axpy(e1, centre, 0.5 * def->length, axis);
  *radius = def->radius;
}

/* Gap of two capsule cores (ends a0 a1, b0 b1, radii summed in r) along the unit vector m. */
static double axis_gap(const double m[3], const double a0[3], const double a1[3], const double b0[3],
                       const double b1[3], double r) {
  return fmin(clt_v3_dot(m, b0), clt_v3_dot(m, b1)) - fmax(clt_v3_dot(m, a0), clt_v3_dot(m, a1)) - r;
}

/* Planar worlds: a capsule pair whose cores cross (or coincide) at the configuration `at` gets
 * from the narrow phase the common perpendicular of the axes, i.e. ±e_z (or an arbitrary normal
 * for coincident cores), with Φ = −(r_A + r_B). In the plane of motion such a row has no mobility
 * (B J = 0), so A_kk = 0 and the constraint's w stays at Φ whatever λ: the LCP is infeasible and
 * the recursion stalls (the colony's 512 → 1024 division). Such a pair instead gets an in-plane
 * separating axis: among the in-plane normals of either axis and the centre-to-centre directions
 * (at `at` and at the start-of-step q, both signs) the one along which the pair is farthest apart
 * at q (so the constraint pushes back the way the cores came, not on through), Φ = the gap along
 * it at `at` (≤ the true Φ), witness points on the supporting ends at `at` (the narrow phase's core
 * point where a whole axis supports). */
static void planar_crossing_capsules(const clt_world_t *world, const clt_relcp_work_t *w, int ia, int ib,
                                     const clt_body_state_t *at, clt_relcp_constraint_t *c) {
  double a0[3], a1[3], b0[3], b1[3], ra, rb, qa0[3], qa1[3], qb0[3], qb1[3];
  capsule_core(w, at, ia, a0, a1, &ra);
  capsule_core(w, at, ib, b0, b1, &rb);
  capsule_core(w, world->states, ia, qa0, qa1, &ra);
  capsule_core(w, world->states, ib, qb0, qb1, &rb);
  double ca[3], cb[3]; /* the narrow phase's core points */
  clt_v3_axpy(ca, c->point_a, -ra, c->normal);
  clt_v3_axpy(cb, c->point_b, rb, c->normal);
  const double *ends[2][4] = {{a0, a1, b0, b1}, {qa0, qa1, qb0, qb1}};
  double cand[6][3];
  for (int k = 0; k < 2; k++) {
    const double *e0 = ends[k][0], *e1 = ends[k][1], *f0 = ends[k][2], *f1 = ends[k][3];
    double *u = cand[3 * k];
    u[0] = -(e1[1] - e0[1]), u[1] = e1[0] - e0[0], u[2] = 0.0;
    u[3] = -(f1[1] - f0[1]), u[4] = f1[0] - f0[0], u[5] = 0.0;
    u[6] = 0.5 * (f0[0] + f1[0] - e0[0] - e1[0]), u[7] = 0.5 * (f0[1] + f1[1] - e0[1] - e1[1]), u[8] = 0.0;
  }
  double best = -INFINITY, n[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 6; k++) {
    double len = clt_v3_norm(cand[k]);
    if (!(len > 0.0)) continue;
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      double m[3];
      clt_v3_scale(m, cand[k], sgn / len);
      double gap = axis_gap(m, qa0, qa1, qb0, qb1, ra + rb);
      if (gap > best) {
        best = gap;
        clt_v3_copy(n, m);
      }
    }
  }
  if (!(best > -INFINITY)) return; /* both cores are points at one place: nothing better */
  double ua[3], ub[3];
  clt_v3_sub(ua, a1, a0);
  clt_v3_sub(ub, b1, b0);
  double da = clt_v3_dot(n, ua), db = clt_v3_dot(n, ub);
  double pa[3], pb[3];
  if (fabs(da) > 1e-9 * (1.0 + clt_v3_norm(ua)))
    clt_v3_copy(pa, da > 0.0 ? a1 : a0);
  else
    clt_v3_axpy(pa, ca, clt_v3_dot(n, a0) - clt_v3_dot(n, ca), n); /* ca moved onto A's supporting line */
  if (fabs(db) > 1e-9 * (1.0 + clt_v3_norm(ub)))
    clt_v3_copy(pb, db > 0.0 ? b0 : b1);
  else
    clt_v3_axpy(pb, cb, clt_v3_dot(n, b0) - clt_v3_dot(n, cb), n);
  c->distance = clt_v3_dot(n, pb) - clt_v3_dot(n, pa) - ra - rb;
  clt_v3_copy(c->normal, n);
  clt_v3_axpy(c->point_a, pa, ra, n);
  clt_v3_axpy(c->point_b, pb, -rb, n);
}

/* Appends the contact points of w->set (instances from `first`) with Φ < limit as constraints
 * found at configuration `at`, pass `iteration`; offset c = Φ − h J·velocity (velocity NULL: Φ). */
static clt_status_t append_constraints(clt_world_t *world, clt_relcp_work_t *w, int first,
                                       const clt_body_state_t *at, double limit, int iteration,
                                       const double *velocity, double h) {
  int added = 0;
  for (int k = 0; k < w->set.count; k++)
    if (w->set.contacts[k].point.distance < limit) added++;
  if (!reserve_constraints(w, w->count + added))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory (%d constraints)", w->count + added);
  for (int k = 0; k < w->set.count; k++) {
    const clt_shape_contact_t *sc = &w->set.contacts[k];
    if (!(sc->point.distance < limit)) continue;
    clt_relcp_constraint_t *c = &w->constraints[w->count];
    memset(c, 0, sizeof *c);
    c->body_a = w->instances[first + sc->shape_a].body;
    c->body_b = w->instances[first + sc->shape_b].body;
    c->shape_a = w->instance_shape[first + sc->shape_a];
    c->shape_b = w->instance_shape[first + sc->shape_b];
    c->key_a = first + sc->shape_a;
    c->key_b = first + sc->shape_b;
    c->feature = sc->point.feature;
    c->iteration = iteration;
    c->distance = sc->point.distance;
    clt_v3_copy(c->normal, sc->point.normal);
    clt_v3_copy(c->point_a, sc->point.point_a);
    clt_v3_copy(c->point_b, sc->point.point_b);
    /* planar worlds: crossing capsule cores get an in-plane axis (planar_crossing_capsules) */
    if (world->planar && fabs(c->normal[2]) > 1e-6 &&
        w->instances[first + sc->shape_a].shape->type == CLT_SHAPE_CAPSULE &&
        w->instances[first + sc->shape_b].shape->type == CLT_SHAPE_CAPSULE)
      planar_crossing_capsules(world, w, first + sc->shape_a, first + sc->shape_b, at, c);
    row_side(world, at, c->body_a, c->point_a, c->normal, -1.0, c->jac.linear_a, c->jac.angular_a);
    row_side(world, at, c->body_b, c->point_b, c->normal, 1.0, c->jac.linear_b, c->jac.angular_b);
    c->offset = velocity ? c->distance - h * row_dot_velocity(c, velocity) : c->distance;
    w->lambda[w->count] = 0.0; /* ι: padded with zeros */
    if (iteration == 0 && world->method.warm_start) {
      /* SNSD constraints start from their pair's force of the last step (memory) */
      const clt_contact_memory_t *mem = clt_find_contact_memory(world->step_work, c->key_a, c->key_b, c->feature);
      if (mem && mem->normal_impulse > 0.0) w->lambda[w->count] = mem->normal_impulse;
    }
    w->count++;
  }
  return CLT_OK;
}

/* B J_sideᵀ of the constraints [first, count) and their b = c + h J·a. */
static void prepare_constraints(const clt_world_t *world, clt_relcp_work_t *w, int first, double h) {
  for (int p = first; p < w->count; p++) {
    const clt_relcp_constraint_t *c = &w->constraints[p];
    double *bj = w->bj + 12 * (size_t)p;
    memset(bj, 0, 12 * sizeof *bj);
    for (int side = 0; side < 2; side++) {
      int body = side ? c->body_b : c->body_a;
      if (world->bodies[body].type != CLT_BODY_DYNAMIC) continue;
      const double *m = w->mobility + 18 * (size_t)body;
      mat_vec(m, side ? c->jac.linear_b : c->jac.linear_a, bj + 6 * side);
      mat_vec(m + 9, side ? c->jac.angular_b : c->jac.angular_a, bj + 6 * side + 3);
    }
    w->b[p] = c->offset + h * row_dot_velocity(c, w->base);
  }
}

/* velocity = a + B D λ, then the trial configuration q ⊕ h velocity (kinematic bodies: their law
 * at t + h; static bodies stay). */
static void trial_state(const clt_world_t *world, clt_relcp_work_t *w, double h, double t_next) {
  int nb = world->body_count;
  memcpy(w->velocity, w->base, 6 * sizeof(double) * (size_t)nb);
  for (int p = 0; p < w->count; p++) {
    const clt_relcp_constraint_t *c = &w->constraints[p];
    double l = w->lambda[p];
    if (l == 0.0) continue;
    for (int side = 0; side < 2; side++) {
      int body = side ? c->body_b : c->body_a;
      if (world->bodies[body].type != CLT_BODY_DYNAMIC) continue;
      double *v = w->velocity + 6 * (size_t)body;
      const double *bj = w->bj + 12 * (size_t)p + 6 * side;
      for (int k = 0; k < 6; k++) v[k] += l * bj[k];
    }
  }
  for (int i = 0; i < nb; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    const clt_body_state_t *s = &world->states[i];
    clt_body_state_t *t = &w->trial[i];
    *t = *s;
    if (b->type == CLT_BODY_KINEMATIC) {
      clt_kinematic_state(world, i, t_next, t);
    } else if (b->type == CLT_BODY_DYNAMIC) {
      const double *v = w->velocity + 6 * (size_t)i;
      clt_v3_copy(t->velocity, v);
      clt_v3_copy(t->angular_velocity, v + 3);
      clt_v3_axpy(t->position, s->position, h, t->velocity);
      clt_q_integrate(t->orientation, s->orientation, t->angular_velocity, h);
    }
  }
}

static clt_status_t report(clt_world_t *world, clt_step_work_t *sw, const clt_relcp_work_t *w, double scale) {
  if (!clt_grow((void **)&sw->report, &sw->report_capacity, w->count, sizeof *sw->report))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory (contact report)");
  for (int p = 0; p < w->count; p++) {
    const clt_relcp_constraint_t *c = &w->constraints[p];
    clt_contact_info_t *r = &sw->report[p];
    memset(r, 0, sizeof *r);
    r->body_a = c->body_a;
    r->body_b = c->body_b;
    for (int k = 0; k < 3; k++) r->point[k] = 0.5 * (c->point_a[k] + c->point_b[k]);
    clt_v3_copy(r->normal, c->normal);
    r->distance = c->distance;
    r->normal_impulse = scale * w->lambda[p];
    clt_v3_scale(r->impulse, c->normal, r->normal_impulse);
  }
  sw->report_count = w->count;
  sw->report_lazy = false;
  return CLT_OK;
}

static int memory_compare(const void *pa, const void *pb) {
  const clt_contact_memory_t *a = pa, *b = pb;
  if (a->shape_a != b->shape_a) return a->shape_a < b->shape_a ? -1 : 1;
  if (a->shape_b != b->shape_b) return a->shape_b < b->shape_b ? -1 : 1;
  if (a->feature != b->feature) return a->feature < b->feature ? -1 : 1;
  return 0;
}

/* The warm start of the next step (rows.h contact memory, sorted by key): one entry per SNSD
 * constraint with λ summed over every constraint of its pair (the recursion's later constraints
 * of a pair add to the pair's first SNSD entry). */
static clt_status_t remember(clt_world_t *world, clt_step_work_t *sw, const clt_relcp_work_t *w) {
  int n0 = 0;
  while (n0 < w->count && w->constraints[n0].iteration == 0) n0++;
  if (!clt_grow((void **)&sw->next_memory, &sw->next_memory_capacity, n0, sizeof *sw->next_memory))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory (contact memory)");
  for (int p = 0; p < n0; p++) {
    const clt_relcp_constraint_t *c = &w->constraints[p];
    clt_contact_memory_t *m = &sw->next_memory[p];
    memset(m, 0, sizeof *m);
    m->shape_a = c->key_a;
    m->shape_b = c->key_b;
    m->feature = c->feature;
    m->normal_impulse = w->lambda[p];
  }
  if (n0 > 1 && !clt_sort(sw->next_memory, (size_t)n0, sizeof *sw->next_memory, memory_compare, &sw->arena))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory (contact memory)");
  for (int p = n0; p < w->count; p++) {
    const clt_relcp_constraint_t *c = &w->constraints[p];
    int lo = 0, hi = n0; /* first entry with (shape_a, shape_b) ≥ the pair */
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      const clt_contact_memory_t *m = &sw->next_memory[mid];
      if (m->shape_a < c->key_a || (m->shape_a == c->key_a && m->shape_b < c->key_b))
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < n0 && sw->next_memory[lo].shape_a == c->key_a && sw->next_memory[lo].shape_b == c->key_b)
      sw->next_memory[lo].normal_impulse += w->lambda[p];
  }
  /* entries without force carry nothing to warm-start (rows.h keeps only pressing contacts) */
  int kept = 0;
  for (int p = 0; p < n0; p++)
    if (sw->next_memory[p].normal_impulse > 0.0) sw->next_memory[kept++] = sw->next_memory[p];
  sw->next_memory_count = kept;
  return CLT_OK;
}

static clt_status_t check_world(clt_world_t *world) {
  const char *model = world->method.contact_model == CLT_CONTACT_MODEL_RELCP  ? "relcp"
                      : world->method.contact_model == CLT_CONTACT_MODEL_SNSD ? "snsd"
                                                                                : "multisphere";
  if (world->method.contact_model == CLT_CONTACT_MODEL_DEFAULT)
    return clt_world_fail(world, CLT_ERR_UNSUPPORTED,
                          "step: %s needs a frictionless contact model of SPEC.md §6 (method.contact_model relcp, "
                          "snsd or multisphere); the default contact rows support only the inertial, unconfined law",
                          world->law == CLT_LAW_OVERDAMPED ? "the overdamped law" : "a planar world");
  if (world->dimension != 3)
    return clt_world_fail(world, CLT_ERR_UNSUPPORTED, "step: contact model %s is implemented for 3D worlds only",
                          model);
  if (world->joint_count > world->joints_removed)
    return clt_world_fail(world, CLT_ERR_UNSUPPORTED,
                          "step: contact model %s does not support joints (%d in this world): use the default contact "
                          "model",
                          model, world->joint_count - world->joints_removed);
  for (int f = 0; f < world->force_count; f++)
    if (clt_force_is_element(&world->forces[f]) && world->forces[f].treatment == CLT_TREAT_IMPLICIT)
      return clt_world_fail(world, CLT_ERR_UNSUPPORTED,
                            "step: contact model %s supports explicit force elements only (force #%d is implicit)",
                            model, f);
  return CLT_OK;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* multisphere:N (SPEC.md §6.3): LCP-MS is one LCP over sub-sphere pair constraints linearized at q,
 * one per near pair. A candidate set taken once at q (Φ ≤ ε̂) misses every pair that closes by more
 * than ε̂ within the step, and nothing then stops it: in the colony a synchronized division moves
 * cells by up to ≈ d in one step, and the true overlaps reached d (centrelines crossing). So the
 * candidate set is completed: after each solve, every proxy pair that overlaps beyond ε_tol at the
 * trial configuration and has no constraint yet gets the constraint it would have had in C₀ (at q:
 * value Φ(q), normal and witness points frozen at q, as if ε̂ had been large enough), and the LCP
 * is solved again. The accepted λ solves the LCP-MS problem over the completed set (SPEC.md §1
 * allows an adaptive ε̂); pairs already constrained are never added twice (one constraint per
 * sub-sphere pair, unlike the ReLCP recursion). *added = how many were added (0: accept). */
static clt_status_t complete_proxy_candidates(clt_world_t *world, clt_relcp_work_t *w, int ns, int pass, double h,
                                              int *added) {
  const clt_method_t *m = &world->method;
  set_poses(w, w->trial, ns, w->proxy_count);
  *added = 0;
  clt_status_t st = collide(world, w, ns, w->proxy_count, -m->overlap_tolerance, "multisphere trial check");
  if (st != CLT_OK || w->set.count == 0) return st;
  uint64_t *keys = CLT_ARENA_NEW(&world->step_work->arena, uint64_t, w->count); /* (until the stage ends) */
  if (!keys) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory");
  for (int p = 0; p < w->count; p++)
    keys[p] = (uint64_t)(uint32_t)w->constraints[p].key_a << 32 | (uint32_t)w->constraints[p].key_b;
  if (!clt_sort(keys, (size_t)w->count, sizeof *keys, cmp_u64, &world->step_work->arena))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory");
  set_poses(w, world->states, ns, w->proxy_count);
  int kept = 0;
  for (int k = 0; k < w->set.count; k++) {
    clt_shape_contact_t sc = w->set.contacts[k];
    uint64_t key = (uint64_t)(uint32_t)(ns + sc.shape_a) << 32 | (uint32_t)(ns + sc.shape_b);
    if (bsearch(&key, keys, (size_t)w->count, sizeof *keys, cmp_u64)) continue;
    const clt_shape_instance_t *a = &w->instances[ns + sc.shape_a], *b = &w->instances[ns + sc.shape_b];
    clt_contact_point_t pt;
    int np = clt_collide(a->shape, &a->pose, b->shape, &b->pose, INFINITY, &pt, 1);
    if (np < 0) {
      return clt_world_fail(world, CLT_ERR_NUMERICAL, "relcp: multisphere: the narrow phase failed at q");
    }
    if (np == 0) continue;
    sc.point = pt;
    w->set.contacts[kept++] = sc;
  }
  w->set.count = kept;
  int before = w->count;
  st = append_constraints(world, w, ns, world->states, INFINITY, pass, NULL, h);
  *added = w->count - before;
  return st;
}

/* The step of the ReLCP family as stages (scheme_relcp.c's list): "mobility", "active set",
 * then the recursion "prepare", "solve", "overlaps", "recurse" (SPEC.md §6.2: a pass per round,
 * repeated while overlaps beyond the tolerance remain, each adding the violated pairs as
 * constraints), then "accept". */

clt_status_t clt_stage_relcp_mobility(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *sw = c->work;
  clt_status_t st = check_world(world);
  if (st != CLT_OK) return st;
  if (!sw->relcp) {
    sw->relcp = calloc(1, sizeof *sw->relcp);
    if (!sw->relcp) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory");
    clt_contact_set_init(&sw->relcp->set);
  }
  clt_relcp_work_t *w = sw->relcp;
  int nb = world->body_count;
  if (!reserve_bodies(w, nb > 0 ? nb : 1)) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "relcp: out of memory");
  st = mobility(world, w, c->h, c->t, c->t_next);
  if (st != CLT_OK) return st;
  w->multisphere = world->method.contact_model == CLT_CONTACT_MODEL_MULTISPHERE;
  return build_instances(world, w, w->multisphere);
}

clt_status_t clt_stage_relcp_active_set(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_relcp_work_t *w = c->work->relcp;
  /* C₀ at q (SPEC.md §6.2 LCP-SNSD; proxies for multisphere) */
  w->count = 0;
  int ns = world->shape_count;
  int first = w->multisphere ? ns : 0, count = w->multisphere ? w->proxy_count : ns;
  set_poses(w, world->states, first, count);
  clt_status_t st = collide(world, w, first, count, world->method.active_set_eps, "active set");
  if (st != CLT_OK) return st;
  st = append_constraints(world, w, first, world->states, INFINITY, 0, NULL, c->h);
  if (st != CLT_OK) return st;
  c->diagnostics->contacts = w->count;
  w->prepared = 0;
  w->pass = 0;
  w->max_overlap = 0.0;
  return CLT_OK;
}

clt_status_t clt_stage_relcp_prepare(clt_step_context_t *c) {
  clt_relcp_work_t *w = c->work->relcp;
  w->pass++;
  prepare_constraints(c->world, w, w->prepared, c->h);
  w->prepared = w->count;
  return CLT_OK;
}

clt_status_t clt_stage_relcp_solve_pass(clt_step_context_t *c) {
  clt_relcp_work_t *w = c->work->relcp;
  clt_status_t st = clt_relcp_solve(c->world, w, c->h, c->diagnostics);
  if (st != CLT_OK) return st;
  trial_state(c->world, w, c->h, c->t_next);
  return CLT_OK;
}

clt_status_t clt_stage_relcp_overlaps(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_relcp_work_t *w = c->work->relcp;
  const clt_method_t *m = &world->method;
  int ns = world->shape_count;
  /* the TRUE overlaps at q_{k+1}, every pair (SPEC.md §6.2) */
  set_poses(w, w->trial, 0, ns);
  clt_status_t st = collide(world, w, 0, ns, 0.0, "trial overlap check");
  if (st != CLT_OK) return st;
  w->max_overlap = 0.0;
  w->violations = 0;
  for (int k = 0; k < w->set.count; k++) {
    double depth = -w->set.contacts[k].point.distance;
    if (depth > w->max_overlap) w->max_overlap = depth;
    if (depth > m->overlap_tolerance) w->violations++;
  }
  int added = 0; /* multisphere: complete the candidate set (complete_proxy_candidates) */
  if (w->multisphere && w->pass < m->relcp_max_iterations) {
    st = complete_proxy_candidates(world, w, ns, w->pass, c->h, &added);
    if (st != CLT_OK) return st;
  }
  c->branch = added > 0; /* to "prepare": solve again with the completed set */
  return CLT_OK;
}

clt_status_t clt_stage_relcp_recurse(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_relcp_work_t *w = c->work->relcp;
  const clt_method_t *m = &world->method;
  if (w->violations == 0 || m->contact_model != CLT_CONTACT_MODEL_RELCP) return CLT_OK;
  if (w->pass >= m->relcp_max_iterations)
    return clt_world_fail(world, CLT_ERR_SOLVER,
                          "step %lld: ReLCP reached relcp_max_iterations = %d with %d contact(s) still overlapping "
                          "by up to %.3g > overlap_tolerance %.3g (%d constraints); the step is rejected and the "
                          "state before it kept (reduce the time step or raise the cap)",
                          (long long)c->step, m->relcp_max_iterations, w->violations, w->max_overlap,
                          m->overlap_tolerance, w->count);
  clt_status_t st = append_constraints(world, w, 0, w->trial, -m->overlap_tolerance, w->pass, w->velocity, c->h);
  if (st != CLT_OK) return st;
  c->branch = true; /* to "prepare": the next pass */
  return CLT_OK;
}

clt_status_t clt_stage_relcp_accept(clt_step_context_t *c) {
  clt_world_t *world = c->world;
  clt_step_work_t *sw = c->work;
  clt_relcp_work_t *w = sw->relcp;
  clt_diagnostics_t *d = c->diagnostics;
  /* accept q⁺ = q_{k+1} */
  for (int i = 0; i < world->body_count; i++)
    if (world->bodies[i].type != CLT_BODY_STATIC) world->states[i] = w->trial[i];
  clt_status_t st = report(world, sw, w, world->law == CLT_LAW_OVERDAMPED ? c->h : 1.0);
  if (st != CLT_OK) return st;
  st = remember(world, sw, w);
  if (st != CLT_OK) return st;
  d->constraints = w->count;
  d->lcp_size = w->count;
  d->relcp_iterations = w->pass;
  d->max_overlap = w->max_overlap;
  if (w->count == 0) d->solver_status = CLT_SOLVE_NONE;
  return CLT_OK;
}

void clt_relcp_visit_memory(const clt_relcp_work_t *c, clt_memory_visit_fn f, void *u) {
  if (!c) return;
  const void *relcp[] = {c->mobility, c->base,    c->velocity, c->trial, c->instances, c->instance_shape,
                         c->proxies,  c->set.contacts, c->set.proxies, c->constraints, c->bj, c->b,
                         c->lambda,   c->w,       c->diagonal, c->body_start, c->body_entry, c->jr, c->jb,
                         c->active,   c->dense,   c->accumulator};
  static const char *const relcp_names[] = {
      "relcp mobility", "relcp base", "relcp velocity", "relcp trial", "relcp instances",
      "relcp instance_shape", "relcp proxies", "relcp contacts", "relcp contact proxies", "relcp constraints",
      "relcp bj", "relcp b", "relcp lambda", "relcp w", "relcp diagonal", "relcp body_start",
      "relcp body_entry", "relcp jr", "relcp jb", "relcp active", "relcp dense", "relcp accumulator"};
  _Static_assert(sizeof relcp / sizeof *relcp == sizeof relcp_names / sizeof *relcp_names, "one name a buffer");
  for (size_t i = 0; i < sizeof relcp / sizeof *relcp; i++) f(u, relcp_names[i], relcp[i], true);
}
