/* Collide (SPEC.md §1 "Active set", §5): every shape pair the broad phase proposes (bounds grown by
 * ε̂) goes through the narrow phase of src/collision; each point with Φ ≤ ε̂ becomes an active
 * contact with the pair's μ and e_N (geometric means of the two materials, world.h). Pairs of two
 * non-dynamic bodies never interact, nor do two bodies joined by a joint without collide_connected
 * (their shapes usually overlap at the joint by design; Box2D's collideConnected = false), nor two
 * shapes whose collision filters do not pass (world.h). Pairs of shape types the narrow phase does not handle are
 * skipped; pairs whose narrow phase FAILED (an iteration that did not converge) are counted in
 * work->collide_failed and reported through the world's log as warnings. The same machinery with
 * ε̂ = 0 gives the penetration part of the infeasibility over
 * ALL pairs (SPEC.md §1 "Infeasibility": a pair with Φ < 0 always has overlapping bounds). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/pages.h"
#include "collision/narrowphase_pairs.h"
#include "collision/primitives_3d.h"
#include "steppers/stepper.h"
#include "base/parallel.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* OpenMP (issue [granular]: 10⁵-body piles): the per-body and per-pair loops run in parallel from
 * this many bodies / pairs on (below it a parallel region costs more than the loop; the pile of
 * N = 10³, whose swept broad phase reports about 4500 pairs, stays on one thread). Every result
 * is independent of the number of threads: per-body and per-pair outputs go to their own slots,
 * contacts are concatenated in pair order (contiguous ranges of pairs per thread), and the only
 * reductions are max / and (order-independent). The narrow-phase functions called here keep no
 * static scratch; each thread has its own contact points. */
#define COLLIDE_PARALLEL_MIN 4096
#define COLLIDE_PAIR_PARALLEL_MIN 16384
/* A body's pose: the doubles of clt_body_state_t before its velocities (position, angle, orientation) */
#define REUSE_POSE 8
_Static_assert(offsetof(clt_body_state_t, velocity) == REUSE_POSE * sizeof(double), "pose before velocities");

static const clt_material_rec_t *shape_material(const clt_world_t *world, const clt_shape_def_t *s) {
  if (s->material >= 0 && s->material < world->material_count) return &world->materials[s->material];
  return &world->default_material;
}

/* A contact's μ and e_N: the geometric means of its two shapes' materials (docs/stepping.md
 * "Contacts", docs/scene-format.md "materials"). */
typedef struct pair_material_t {
  double friction, restitution;
} pair_material_t;

static pair_material_t pair_material(const clt_world_t *world, int shape_a, int shape_b) {
  const clt_material_rec_t *ma = shape_material(world, clt_world_shape(world, shape_a));
  const clt_material_rec_t *mb = shape_material(world, clt_world_shape(world, shape_b));
  return (pair_material_t){sqrt(ma->friction * mb->friction), sqrt(ma->restitution * mb->restitution)};
}

static void body_pose(const clt_world_t *world, int body, clt_collide_pose_t *pose) {
  const clt_body_state_t *s = &world->states[body];
  memcpy(pose->position, s->position, sizeof pose->position);
  pose->angle = s->angle;
  if (world->dimension == 3)
    memcpy(pose->orientation, s->orientation, sizeof pose->orientation);
  else {
    pose->orientation[0] = 1.0;
    pose->orientation[1] = pose->orientation[2] = pose->orientation[3] = 0.0;
  }
}

/* The boundary plane of a half-space / half-plane in the world (broadphase.h: lets the broad phase
 * pair a floor or wall only with what comes near it). */
static bool plane_of(const clt_world_t *world, const clt_shape_def_t *shape, const clt_collide_pose_t *pose,
                     clt_broadphase_proxy_t *p) {
  if (shape->type != CLT_SHAPE_HALFSPACE && shape->type != CLT_SHAPE_HALFPLANE) return false;
  clt_placed_shape_t placed;
  clt_place_shape(shape, pose, world->dimension, &placed);
  double point[3] = {0.0, 0.0, 0.0}, normal[3] = {0.0, 0.0, 0.0};
  if (world->dimension == 3) {
    clt_c3_halfspace(&placed, point, normal);
  } else {
    double c = placed.cos_angle, sn = placed.sin_angle;
    const double *lp = shape->point, *ln = shape->normal;
    point[0] = placed.position[0] + c * lp[0] - sn * lp[1];
    point[1] = placed.position[1] + sn * lp[0] + c * lp[1];
    normal[0] = c * ln[0] - sn * ln[1];
    normal[1] = sn * ln[0] + c * ln[1];
    double len = sqrt(normal[0] * normal[0] + normal[1] * normal[1]);
    if (!(len > 0.0)) return false;
    normal[0] /= len;
    normal[1] /= len;
  }
  double offset = normal[0] * point[0] + normal[1] * point[1] + normal[2] * point[2];
  if (!isfinite(offset)) return false;
  for (int k = 0; k < 3; k++) p->plane_normal[k] = normal[k];
  p->plane_offset = offset;
  return true;
}

/* The world position of a sphere centred on its body's origin (local_position 0) exactly as
 * clt_place_shape computes it — the pose's position plus the body rotation of the zero vector,
 * whose signed zeros depend only on the signs of the orientation's components, which its
 * normalization keeps — without the normalizations and rotation matrices a sphere's bounds and
 * the sphere–sphere pair do not use (at 10⁵ spheres 5·10⁵ placements per step). false: not such a
 * sphere. */
static bool centred_sphere(const clt_shape_def_t *shape, const clt_collide_pose_t *pose, double position[3]) {
  if (shape->type != CLT_SHAPE_SPHERE || shape->local_position[0] != 0.0 || shape->local_position[1] != 0.0 ||
      shape->local_position[2] != 0.0)
    return false;
  double q[4], offset[3];
  clt_q_copy(q, pose->orientation);
  if (!(clt_q_norm(q) > 0.0)) clt_q_identity(q); /* (as clt_place_shape) */
  clt_q_rotate(offset, q, shape->local_position);
  clt_v3_add(position, pose->position, offset);
  return true;
}

/* The proxies of every shape (proxy index = shape index) at the current state; body_sweep (NULL:
 * none; 6 per body) grows the bounds of each body's shapes below and above along each axis, and a
 * half-space's offset by the largest of the six (clt_find_contacts_swept). */
static clt_status_t place_proxies(clt_world_t *world, clt_step_work_t *w, const double *body_sweep) {
  int n = world->shape_count;
  if (n > w->proxy_capacity) {
    int cap = w->proxy_capacity > 0 ? w->proxy_capacity : 16;
    while (cap < n) cap *= 2;
    clt_broadphase_proxy_t *p = realloc(w->proxies, (size_t)cap * sizeof *p);
    if (!p) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "collide: out of memory");
    w->proxies = p;
    w->proxy_capacity = cap;
  }
  CLT_PARALLEL_FOR_IF(world->body_count >= COLLIDE_PARALLEL_MIN, schedule(static),
  for (int i = 0; i < world->body_count; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    clt_collide_pose_t pose;
    body_pose(world, i, &pose);
    for (int k = 0; k < b->shape_count; k++) {
      int s = b->shape_first + k;
      clt_broadphase_proxy_t *p = &w->proxies[s];
      const clt_shape_def_t *shape = clt_world_shape(world, s);
      double centre[3];
      if (world->dimension == 3 && centred_sphere(shape, &pose, centre)) {
        for (int d = 0; d < 3; d++) { /* clt_shape_bounds of a sphere */
          p->lower[d] = centre[d] - shape->radius;
          p->upper[d] = centre[d] + shape->radius;
        }
        p->unbounded = false;
      } else {
        p->unbounded = !clt_shape_bounds(shape, &pose, p->lower, p->upper);
      }
      p->has_plane = p->unbounded && plane_of(world, shape, &pose, p);
      const double *sweep = body_sweep ? body_sweep + 6 * (size_t)i : NULL;
      if (p->has_plane && sweep) p->plane_offset += clt_sweep_reach(sweep);
      if (sweep && !p->unbounded)
        for (int d = 0; d < 3; d++) {
          p->lower[d] -= sweep[d];
          p->upper[d] += sweep[3 + d];
        }
      p->body = i;
      p->fixed = b->type != CLT_BODY_DYNAMIC;
    }
  });
  return CLT_OK;
}

/* Broad phase over every shape (place_proxies, then the pairs into w->broadphase). */
static clt_status_t broad_phase(clt_world_t *world, clt_step_work_t *w, double margin, const double *body_sweep) {
  /* A later relaxed solve whose margins changed for fewer than half the bodies: the pairs of the
   * solve before stand for the others (clt_broadphase_update_pairs; the same pairs as a full
   * search, which is faster when most bodies changed) */
  const clt_sweep_t *r = &w->sweep;
  bool update = r->active && body_sweep == r->ext && r->later_round && r->ext_pairs_valid &&
                r->ext_changes < world->body_count / 2;
  if (w->sweep.active) {
    w->sweep.reuse_valid = false; /* the pairs they kept are overwritten */
    w->sweep.ext_pairs_valid = false;
  }
  clt_status_t st = place_proxies(world, w, body_sweep);
  if (st != CLT_OK) return st;
  int n = world->shape_count;
  st = update ? clt_broadphase_update_pairs(&w->broadphase, w->proxies, n, world->dimension, margin, r->ext_changed)
              : clt_broadphase_find_pairs(&w->broadphase, w->proxies, n, world->dimension, margin);
  if (st != CLT_OK) return clt_world_fail(world, st, "collide: broad phase failed (%s)", clt_status_name(st));
  /* its grid and sorts are dead until the next search writes them: they need not count in the
   * narrow phase's peak memory (base/pages.h) */
  if (clt_work_releases(w)) clt_broadphase_release_scratch(&w->broadphase);
  return CLT_OK;
}

double clt_body_extent(const clt_world_t *world, int i) {
  const clt_body_rec_t *b = &world->bodies[i];
  clt_collide_pose_t pose;
  body_pose(world, i, &pose);
  double far = 0.0;
  for (int k = 0; k < b->shape_count; k++) {
    double lo[3], hi[3];
    if (!clt_shape_bounds(clt_world_shape(world, b->shape_first + k), &pose, lo, hi)) return -1.0;
    double d = 0.0;
    for (int c = 0; c < 3; c++) {
      double e = fmax(fabs(lo[c] - pose.position[c]), fabs(hi[c] - pose.position[c]));
      d += e * e;
    }
    far = fmax(far, sqrt(d));
  }
  return far;
}

/* The relaxed scheme's passes over the pairs place every sphere once (clt_place_shape, as
 * clt_collide would for each of its pairs) and run sphere–sphere pairs directly on its centre: the
 * same function on the same input as clt_collide, without placing each sphere once per pair
 * (a sphere centred on its body: its body's position, centred_sphere). clt_collide_sphere_sphere
 * reads only the def and the position of a placed sphere, so only the centre is kept.
 * Returns the centres by shape index (3 each; only spheres are set), or NULL (other schemes, or
 * out of memory: clt_collide for every pair). */
static void sphere_centre(const clt_shape_def_t *shape, const clt_collide_pose_t *pose, double centre[3]) {
  if (!centred_sphere(shape, pose, centre)) {
    clt_placed_shape_t placed;
    clt_place_shape(shape, pose, 3, &placed);
    memcpy(centre, placed.position, sizeof placed.position);
  }
}

static const double *place_spheres(clt_world_t *world, clt_step_work_t *w) {
  clt_sweep_t *r = &w->sweep;
  if (!r->active || world->dimension != 3) return NULL;
  if (world->shape_count > r->centre_capacity &&
      !clt_step_work_grow((void **)&r->centres, &r->centre_capacity, world->shape_count, 3 * sizeof *r->centres))
    return NULL;
  CLT_PARALLEL_FOR_IF(world->body_count >= COLLIDE_PARALLEL_MIN, schedule(static),
  for (int i = 0; i < world->body_count; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    clt_collide_pose_t pose;
    bool posed = false;
    for (int k = 0; k < b->shape_count; k++) {
      int sh = b->shape_first + k;
      if (clt_world_shape(world, sh)->type != CLT_SHAPE_SPHERE) continue;
      if (!posed) body_pose(world, i, &pose);
      posed = true;
      sphere_centre(clt_world_shape(world, sh), &pose, r->centres + 3 * (size_t)sh);
    }
  });
  return r->centres;
}

/* clt_collide of shapes sa and sb (bodies ba and bb) into points (CLT_MAX_PAIR_CONTACTS). */
static int collide_pair(const clt_world_t *world, clt_contact_point_t *points, const double *centres, int sa,
                        int sb, int ba, int bb, double reach) {
  const clt_shape_def_t *a = clt_world_shape(world, sa), *b = clt_world_shape(world, sb);
  if (centres && a->type == CLT_SHAPE_SPHERE && b->type == CLT_SHAPE_SPHERE) {
    clt_placed_shape_t pa = {.def = a}, pb = {.def = b};
    memcpy(pa.position, centres + 3 * (size_t)sa, sizeof pa.position);
    memcpy(pb.position, centres + 3 * (size_t)sb, sizeof pb.position);
    int count = clt_collide_sphere_sphere(&pa, &pb, reach, points);
    return count < 0 ? CLT_COLLIDE_FAILED : count;
  }
  clt_collide_pose_t pa, pb;
  body_pose(world, ba, &pa);
  body_pose(world, bb, &pb);
  return clt_collide(a, &pa, b, &pb, reach, points, CLT_MAX_PAIR_CONTACTS);
}

/* Pairs of shapes that never touch (world.h clt_collision_filter_t): filters that do not pass, and
 * two bodies joined by a joint without collide_connected. */
static bool pair_excluded(const clt_world_t *world, int sa, int sb, int a, int b) {
  /* (the filters only where a scene set one: a pile's shapes are not read again for them) */
  if (world->filters_used &&
      !clt_collision_filter_pass(&clt_world_shape(world, sa)->filter, &clt_world_shape(world, sb)->filter))
    return true;
  for (int j = 0; j < world->joint_count; j++) {
    const clt_joint_rec_t *jt = &world->joints[j];
    if (jt->collide_connected || jt->removed) continue;
    if ((jt->body_a == a && jt->body_b == b) || (jt->body_a == b && jt->body_b == a)) return true;
  }
  return false;
}

clt_status_t clt_broad_phase_pairs(clt_world_t *world, clt_step_work_t *w, double margin, const double *body_sweep) {
  return broad_phase(world, w, margin, body_sweep);
}

clt_status_t clt_place_proxies(clt_world_t *world, clt_step_work_t *w, const double *body_sweep) {
  if (w->relaxed) w->sweep.reuse_valid = false; /* (as broad_phase: the kept pairs' proxies change) */
  return place_proxies(world, w, body_sweep);
}

clt_status_t clt_find_contacts(clt_world_t *world, clt_step_work_t *w, double max_distance) {
  return clt_find_contacts_swept(world, w, max_distance, NULL);
}

/* How far apart a pair may be and still close within the step, for the swept active set
 * (clt_stage_relaxed_collide): each body moves at u until time vt of the step and with a velocity
 * in its box [vlo, vhi] after, plus its slack (acceleration, rotation). The narrow phase gets the
 * isotropic bound, ε̂ + the slacks + t₀|u_A − u_B| + (h − t₀) max |v_A − v_B| over the boxes
 * (t₀ = the earlier vt); each point it returns is then kept only if its gap can close along its
 * own normal n (A to B): Φ ≤ ε̂ + the slacks + t₀ (nᵀ(u_A − u_B))⁺ + (h − t₀) max nᵀ(v_A − v_B).
 * The distance of two convex shapes under a translation d is at least Φ − nᵀd (the separating
 * plane of n moves by nᵀd), so nothing that can touch is dropped. Bodies falling together (a
 * loose pile in free fall, grains riding a container) keep ε̂ + h²(|a_A| + |a_B|); the grains of
 * a column beside each other, whose boxes open only along the fall, get no contact. */
typedef struct pair_motion_t {
  double t0, slack, h;
  double w0[3];          /* u_A − u_B */
  double wlo[3], whi[3]; /* the box of v_A − v_B */
} pair_motion_t;

static double pair_reach(const clt_world_t *world, const clt_sweep_t *r, int a, int b, double max_distance,
                         pair_motion_t *m) {
  const double *ua = r->u0 + 3 * (size_t)a, *ub = r->u0 + 3 * (size_t)b;
  m->h = world->time_step;
  m->t0 = fmin(r->vt[a], r->vt[b]);
  m->slack = max_distance + r->slack[a] + r->slack[b];
  double n0 = 0.0, nw = 0.0;
  bool da = world->bodies[a].type == CLT_BODY_DYNAMIC, db = world->bodies[b].type == CLT_BODY_DYNAMIC;
  double fa = da ? r->widen : 0.0, fb = db ? r->widen : 0.0;
  for (int k = 0; k < 3; k++) {
    double la = r->vlo[3 * (size_t)a + k], ha = r->vhi[3 * (size_t)a + k];
    double lb = r->vlo[3 * (size_t)b + k], hb = r->vhi[3 * (size_t)b + k];
    double ea = fa * (ha - la), eb = fb * (hb - lb);
    m->w0[k] = ua[k] - ub[k];
    m->wlo[k] = (la - ea) - (hb + eb);
    m->whi[k] = (ha + ea) - (lb - eb);
    n0 += m->w0[k] * m->w0[k];
    nw += fmax(m->wlo[k] * m->wlo[k], m->whi[k] * m->whi[k]);
  }
  return m->slack + m->t0 * sqrt(n0) + (m->h - m->t0) * sqrt(nw);
}

/* The velocity of body i's material point x (world frame) at the step start (a kinematic body's
 * mean over the step: clt_body_velocity6). */
static void point_velocity(const clt_world_t *world, int i, const double x[3], double v[3]) {
  double v6[6], w[3] = {0.0, 0.0, 0.0}, u[3] = {0.0, 0.0, 0.0}, r[3], wr[3];
  clt_body_velocity6(world, i, v6);
  if (world->dimension == 2) {
    u[0] = v6[0];
    u[1] = v6[1];
    w[2] = v6[3];
  } else {
    clt_v3_copy(u, v6);
    clt_v3_copy(w, v6 + 3);
  }
  clt_v3_sub(r, x, world->states[i].position);
  clt_v3_cross(wr, w, r);
  clt_v3_add(v, u, wr);
}

/* Whether the point (feature) of shapes sa and sb, of bodies a and b, bore last step (a contact
 * that bore marked both its bodies: clt_stage_relaxed_collide). */
static bool bore_last_step(const clt_step_work_t *w, int sa, int sb, int a, int b, int feature) {
  if (!w->sweep.bearing[a] || !w->sweep.bearing[b]) return false;
  const clt_contact_memory_t *last = clt_find_contact_memory(w, sa, sb, feature);
  return last && last->normal_impulse > 0.0;
}

/* Whether a point of the pair (shapes sa and sb of bodies a and b, gap Φ, normal n from A to B,
 * friction μ) can bear this step (pair_reach): its gap can close along n, or it bore last step and
 * is within h μ |slip| of closing, slip the tangential velocity of the two points at the step
 * start. The relaxed cone lets a contact bear at Φ ≤ h(μ‖T v⁺‖ − nᵀv⁺): a block sliding at
 * 1.2 m/s with μ = 0.3 rides 3.6 mm above its slope, and without its contact it would fall back
 * and be thrown up again every other step. A new contact at such a gap is the cone's artefact,
 * not Coulomb's law (a grain sliding 2 cm past a wall at 5 m/s would be pushed off it), and is
 * left out. */
static bool point_can_close(const clt_world_t *world, const clt_step_work_t *w, const pair_motion_t *m, int sa,
                            int sb, int a, int b, const clt_contact_point_t *p, double mu) {
  const double *n = p->normal;
  double c0 = 0.0, cw = 0.0;
  for (int k = 0; k < 3; k++) {
    c0 += n[k] * m->w0[k];
    cw += n[k] * (n[k] >= 0.0 ? m->whi[k] : m->wlo[k]);
  }
  double reach = m->slack + m->t0 * fmax(c0, 0.0) + (m->h - m->t0) * fmax(cw, 0.0);
  if (p->distance <= reach) return true;
  if (!(mu > 0.0) || !bore_last_step(w, sa, sb, a, b, p->feature)) return false;
  double va[3], vb[3], slip[3];
  point_velocity(world, a, p->point_a, va);
  point_velocity(world, b, p->point_b, vb);
  clt_v3_sub(slip, va, vb);
  double sn = clt_v3_dot(slip, n);
  for (int k = 0; k < 3; k++) slip[k] -= sn * n[k];
  return p->distance <= reach + m->h * mu * clt_v3_norm(slip);
}

/* The contact of point p of shapes sa and sb (bodies ba and bb), with the pair's μ and e_N; the
 * rest (normal velocity, restitution bias) 0 until the contact rows are built. */
static void make_contact(clt_contact_t *c, int sa, int sb, int ba, int bb, const clt_contact_point_t *p, double mu,
                         double restitution) {
  memset(c, 0, sizeof *c);
  c->shape_a = sa;
  c->shape_b = sb;
  c->body_a = ba;
  c->body_b = bb;
  c->feature = p->feature;
  c->distance = p->distance;
  memcpy(c->normal, p->normal, sizeof c->normal);
  memcpy(c->point_a, p->point_a, sizeof c->point_a);
  memcpy(c->point_b, p->point_b, sizeof c->point_b);
  c->friction = mu;
  c->restitution = restitution;
}

/* Contacts of a range of pairs, appended to a buffer in pair order (one per thread). */
typedef struct collide_out_t {
  clt_contact_t *contacts;
  int count, capacity;
  int failed;       /* pairs whose narrow phase failed */
  int first_failed; /* the first of them (pair index), −1: none */
  bool out_of_memory;
} collide_out_t;

/* The parallel narrow phase's buffers, and the split of the pairs it will use: the pairs are not
 * equally costly (low proxy indices pair with the floor and walls and, in a pile filled bottom up,
 * lie where the contacts are), so each thread's share is made proportional to the pairs a second
 * it got through last time. Where the split falls changes nothing but the time: the contacts come
 * out in pair order either way. */
struct clt_collide_threads_t {
  int count;
  collide_out_t *out;
  double *speed; /* pairs a second of each thread in the last call (0: not measured) */
};

void clt_collide_threads_destroy(struct clt_collide_threads_t *t) {
  if (!t) return;
  for (int i = 0; i < t->count; i++) free(t->out[i].contacts);
  free(t->out);
  free(t->speed);
  free(t);
}

/* The per-thread buffers of the parallel narrow phase, for `threads` threads (NULL: out of memory). */
static struct clt_collide_threads_t *collide_threads(clt_step_work_t *w, int threads) {
  struct clt_collide_threads_t *t = w->collide_threads;
  if (!t) {
    t = calloc(1, sizeof *t);
    if (!t) return NULL;
    w->collide_threads = t;
  }
  if (t->count < threads) {
    collide_out_t *out = realloc(t->out, (size_t)threads * sizeof *out);
    if (!out) return NULL;
    memset(out + t->count, 0, (size_t)(threads - t->count) * sizeof *out);
    t->out = out;
    double *speed = realloc(t->speed, (size_t)threads * sizeof *speed);
    if (!speed) return NULL;
    for (int i = 0; i < threads; i++) speed[i] = 0.0; /* a new team: equal shares first */
    t->speed = speed;
    t->count = threads;
  }
  return t;
}

/* Seconds on the OpenMP wall clock (0 without OpenMP: then the split stays equal). */
static double wall_clock(void) {
#ifdef _OPENMP
  return omp_get_wtime();
#else
  return 0.0;
#endif
}

/* Where thread `me` of nt starts in [0, pairs): equal shares until every thread's speed is known,
 * then shares in proportion to the speeds. */
static int pair_share_start(const struct clt_collide_threads_t *t, int pairs, int me, int nt) {
  if (me >= nt) return pairs;
  double total = 0.0, before = 0.0;
  for (int i = 0; i < nt; i++) {
    if (!(t->speed[i] > 0.0) || !isfinite(t->speed[i])) return (int)((int64_t)pairs * me / nt);
    total += t->speed[i];
    if (i < me) before += t->speed[i];
  }
  int k = (int)((double)pairs * (before / total));
  return k < 0 ? 0 : k > pairs ? pairs : k;
}

/* The narrow phase of pairs [k0, k1) of the broad phase, appended to out. */
static void collide_range(const clt_world_t *world, const clt_step_work_t *w, const double *centres,
                          double max_distance, const double *body_margin, int k0, int k1, collide_out_t *out) {
  clt_contact_point_t points[CLT_MAX_PAIR_CONTACTS];
  /* (the swept search has given the proxies back: clt_find_contacts_swept) */
  const int *shape_body = body_margin ? w->sweep.shape_body : NULL;
  for (int k = k0; k < k1; k++) {
    int sa = w->broadphase.pairs[k].a, sb = w->broadphase.pairs[k].b;
    int ba = shape_body ? shape_body[sa] : w->proxies[sa].body, bb = shape_body ? shape_body[sb] : w->proxies[sb].body;
    if (pair_excluded(world, sa, sb, ba, bb)) continue;
    pair_motion_t motion = {0};
    double reach = body_margin ? pair_reach(world, &w->sweep, ba, bb, max_distance, &motion) : max_distance;
    int count = collide_pair(world, points, centres, sa, sb, ba, bb, reach);
    if (count == CLT_COLLIDE_FAILED) {
      /* No trustworthy point (smooth.h): never taken as "apart" silently — counted, and reported
       * once per call with the first such pair. */
      if (out->failed++ == 0) out->first_failed = k;
      continue;
    }
    if (count <= 0) continue;
    if (!clt_step_work_grow((void **)&out->contacts, &out->capacity, out->count + count, sizeof *out->contacts)) {
      out->out_of_memory = true;
      return;
    }
    const pair_material_t pm = pair_material(world, sa, sb);
    for (int i = 0; i < count; i++) {
      const clt_contact_point_t *p = &points[i];
      double mu = pm.friction;
      if (body_margin && !point_can_close(world, w, &motion, sa, sb, ba, bb, p, mu)) continue;
      /* A point of the swept set beyond ε̂ (max_distance) that did not bear last step enters
       * frictionless: the relaxed cone would push such a pair apart whenever it slides faster
       * than Φ/(μh), touching or not (docs/stepping.md "The relaxation's artefact"), which stirred
       * the whole falling column of the 10⁵ pile. Once it bears, it takes its μ the step after.
       * Coulomb's law (scheme anitescu-hart on the circular cone, s = 0) has no such push but keeps
       * the rule: without it the 33 m column's landing needed more sweeps (one step at 8 × 1000
       * sweeps, 0.64 mm; docs/design/granular.md "The swept active set"). */
      if (body_margin && p->distance > max_distance && mu > 0.0 && !bore_last_step(w, sa, sb, ba, bb, p->feature))
        mu = 0.0;
      make_contact(&out->contacts[out->count++], sa, sb, ba, bb, p, mu, pm.restitution);
    }
  }
}

/* memcpy(dst, src, bytes) in pieces, giving back the source's pages behind each piece where the
 * step gives pages back: the resident size stays that of one copy plus a piece. */
static void copy_releasing(const clt_step_work_t *w, void *dst, const void *src, size_t bytes) {
  enum { PIECE = 256 * 1024 };
  if (!clt_work_releases(w) || bytes < 2 * (size_t)PIECE) {
    memcpy(dst, src, bytes);
    return;
  }
  char *d = dst;
  const char *s = src, *kept = src; /* [kept, s) is copied and still resident */
  size_t page = clt_page_bytes();
  for (size_t left = bytes; left > 0;) {
    size_t n = left < PIECE ? left : PIECE;
    memcpy(d, s, n);
    d += n;
    s += n;
    left -= n;
    if ((size_t)(s - kept) >= PIECE) {
      /* (clt_release_pages gives back the whole pages inside: the page that s falls in stays
       * for the next piece) */
      clt_release_pages((void *)(uintptr_t)kept, (size_t)(s - kept));
      kept = s - (uintptr_t)s % page;
    }
  }
}

clt_status_t clt_find_contacts_swept(clt_world_t *world, clt_step_work_t *w, double max_distance,
                                     const double *body_margin) {
  w->contact_count = 0;
  w->collide_failed = 0;
  if (w->sweep.active) w->sweep.swept = false;
  if (body_margin && !(w->sweep.active && body_margin == w->sweep.ext))
    return clt_world_fail(world, CLT_ERR_INVALID_ARGUMENT, "collide: a swept margin without its velocity boxes");
  if (world->shape_count == 0) return CLT_OK;
  clt_status_t st = broad_phase(world, w, max_distance, body_margin);
  if (st != CLT_OK) return st;
  /* The swept search's narrow phase takes each shape's body from r->shape_body: the proxies (96
   * bytes a shape) are dead until the next search places them (base/pages.h), and given back
   * before the contacts are written, the narrow phase's peak */
  if (body_margin) clt_work_release(w, w->proxies, (size_t)w->proxy_capacity * sizeof *w->proxies);
  const double *centres = place_spheres(world, w);
  int pairs = w->broadphase.pair_count, threads = 1, first_failed = -1;
  bool out_of_memory = false;
#ifdef _OPENMP
  if (pairs >= COLLIDE_PAIR_PARALLEL_MIN) threads = omp_get_max_threads();
#endif
  struct clt_collide_threads_t *ct = threads > 1 ? collide_threads(w, threads) : NULL;
  if (!ct) {
    /* one thread: straight into the contacts */
    collide_out_t out = {w->contacts, 0, w->contact_capacity, 0, -1, false};
    collide_range(world, w, centres, max_distance, body_margin, 0, pairs, &out);
    w->contacts = out.contacts;
    w->contact_capacity = out.capacity;
    w->contact_count = out.count;
    w->collide_failed = out.failed;
    first_failed = out.first_failed;
    out_of_memory = out.out_of_memory;
  } else {
    /* Each thread takes a contiguous range of the pairs: the first thread's contacts go straight
     * into the contacts, the others' into their buffers, appended in thread order after one
     * barrier: the contacts come out in pair order, as from one thread. (Blocks appended in an
     * ordered loop would keep the buffers small but hand over once per block, which a loaded
     * machine turns into waits for descheduled threads.) */
    ct->out[0].contacts = w->contacts;
    ct->out[0].capacity = w->contact_capacity;
    int team = 1;
#pragma omp parallel num_threads(threads)
    {
      int me = 0, nt = 1;
#ifdef _OPENMP
      me = omp_get_thread_num();
      nt = omp_get_num_threads();
#endif
      /* filled in a copy on this thread's stack (the threads' records share a cache line, and
       * collide_range writes the count at every contact) */
      collide_out_t *out = &ct->out[me], mine = *out;
      mine.count = 0;
      mine.failed = 0;
      mine.first_failed = -1;
      mine.out_of_memory = false;
      int k0 = pair_share_start(ct, pairs, me, nt), k1 = me + 1 < nt ? pair_share_start(ct, pairs, me + 1, nt) : pairs;
      double started = wall_clock();
      collide_range(world, w, centres, max_distance, body_margin, k0, k1, &mine);
      double took = wall_clock() - started;
      *out = mine;
#pragma omp barrier /* (every thread has read the speeds for its split) */
      /* this call's speed, averaged with the last one's (a step's calls see similar scenes) */
      double now = took > 0.0 && k1 > k0 ? (double)(k1 - k0) / took : 0.0;
      ct->speed[me] = ct->speed[me] > 0.0 && now > 0.0 ? 0.5 * (ct->speed[me] + now) : now;
#pragma omp barrier
#pragma omp single
      {
        team = nt;
        w->contacts = ct->out[0].contacts;
        w->contact_capacity = ct->out[0].capacity;
        int total = 0;
        for (int t = 0; t < nt; t++) {
          out_of_memory = out_of_memory || ct->out[t].out_of_memory;
          total += ct->out[t].count;
          if (w->collide_failed == 0) first_failed = ct->out[t].first_failed;
          w->collide_failed += ct->out[t].failed;
        }
        if (!out_of_memory && !clt_step_work_reserve_contacts(w, total)) out_of_memory = true;
      }
      if (!out_of_memory && me > 0 && out->count > 0) {
        int at = 0;
        for (int t = 0; t < me; t++) at += ct->out[t].count;
        /* a thread's own buffer is dead until its next narrow phase (base/pages.h): on 2 threads
         * it holds half the contacts of the 8·10³ pile, 1.6 MB, which a copy in one piece would
         * hold beside the contacts' own pages as they fault in */
        copy_releasing(w, w->contacts + at, out->contacts, (size_t)out->count * sizeof *w->contacts);
        clt_work_release(w, out->contacts, (size_t)out->capacity * sizeof *out->contacts);
      }
    }
    ct->out[0].contacts = NULL; /* (thread 0's buffer is the contacts) */
    ct->out[0].capacity = 0;
    if (!out_of_memory)
      for (int t = 0; t < team; t++) w->contact_count += ct->out[t].count;
  }
  if (first_failed >= 0) {
    int sa = w->broadphase.pairs[first_failed].a, sb = w->broadphase.pairs[first_failed].b;
    const int *shape_body = body_margin ? w->sweep.shape_body : NULL;
    clt_world_log(world, CLT_LOG_WARNING,
                  "step %lld: narrow phase failed for shapes %d and %d (bodies %d, %d); no contact made",
                  (long long)world->step_count + 1, sa, sb, shape_body ? shape_body[sa] : w->proxies[sa].body,
                  shape_body ? shape_body[sb] : w->proxies[sb].body);
  }
  if (out_of_memory)
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "collide: out of memory (%d contacts)", w->contact_count);
  if (w->collide_failed > 1)
    clt_world_log(world, CLT_LOG_WARNING, "step %lld: narrow phase failed for %d shape pairs in all",
                  (long long)world->step_count + 1, w->collide_failed);
  if (body_margin) w->sweep.swept = true;
  return CLT_OK;
}

/* Whether shapes sa and sb make their contact again from the shapes alone, cheaply and exactly: a
 * sphere against a sphere (the placed centres) or a half-space. */
static bool shelvable_pair(const clt_world_t *world, int sa, int sb) {
  clt_shape_type_t a = clt_world_shape(world, sa)->type, b = clt_world_shape(world, sb)->type;
  return (a == CLT_SHAPE_SPHERE && (b == CLT_SHAPE_SPHERE || b == CLT_SHAPE_HALFSPACE)) ||
         (b == CLT_SHAPE_SPHERE && a == CLT_SHAPE_HALFSPACE);
}

bool clt_contacts_shelve(clt_world_t *world, clt_step_work_t *w) {
  clt_sweep_t *r = &w->sweep;
  int nc = w->contact_count;
  if (!r->active) return false;
  r->shelved = false;
  if (!r->swept || world->dimension != 3 || nc == 0 || !clt_work_releases(w)) return false;
  if (3 * nc > r->shelf_capacity &&
      !clt_step_work_grow((void **)&r->shelf, &r->shelf_capacity, 3 * nc, sizeof *r->shelf))
    return false; /* (only memory not saved) */
  bool ok = true;
  CLT_PARALLEL_FOR_IF(nc >= COLLIDE_PARALLEL_MIN, schedule(static) reduction(&& : ok),
  for (int j = 0; j < nc; j++) {
    const clt_contact_t *c = &w->contacts[j];
    double mu = pair_material(world, c->shape_a, c->shape_b).friction;
    ok = ok && shelvable_pair(world, c->shape_a, c->shape_b) && c->body_a == r->shape_body[c->shape_a] &&
         c->body_b == r->shape_body[c->shape_b] && c->restitution == 0.0 && c->normal_velocity == 0.0 &&
         c->restitution_bias == 0.0 && (c->friction == mu || c->friction == 0.0);
    r->shelf[3 * (size_t)j] = c->shape_a;
    r->shelf[3 * (size_t)j + 1] = c->friction == mu ? c->shape_b : ~c->shape_b;
    r->shelf[3 * (size_t)j + 2] = c->feature;
  });
  if (!ok) return false;
#ifdef CLATTER_POISON_RELEASED
  /* a copy, which clt_contact_remake compares with what it makes (relaxed.h) */
  if (!clt_step_work_grow((void **)&r->shelf_check, &r->shelf_check_capacity, nc, sizeof *r->shelf_check)) return false;
  memcpy(r->shelf_check, w->contacts, (size_t)nc * sizeof *r->shelf_check);
#endif
  r->shelf_count = nc;
  r->shelved = true;
  clt_work_release(w, w->contacts, (size_t)w->contact_capacity * sizeof *w->contacts);
  return true;
}

bool clt_contact_remake(const clt_world_t *world, const clt_step_work_t *w, int j, clt_contact_t *c) {
  const clt_sweep_t *r = &w->sweep;
  int sa = r->shelf[3 * (size_t)j], sb = r->shelf[3 * (size_t)j + 1], feature = r->shelf[3 * (size_t)j + 2];
  bool frictionless = sb < 0;
  if (frictionless) sb = ~sb;
  int ba = r->shape_body[sa], bb = r->shape_body[sb];
  /* The call of collide_range but for its reach: for these pairs the reach only decides whether
   * the point is made (narrowphase_3d.c: cores_contact, point_halfspace), and this one was */
  double reach = INFINITY;
  clt_contact_point_t points[CLT_MAX_PAIR_CONTACTS];
  int count, i = 0;
  const clt_shape_def_t *da = clt_world_shape(world, sa), *db = clt_world_shape(world, sb);
  if (da->type == CLT_SHAPE_SPHERE && db->type == CLT_SHAPE_SPHERE) {
    /* collide_pair's path with the centres of place_spheres, each made where it is read */
    clt_placed_shape_t pa = {.def = da}, pb = {.def = db};
    clt_collide_pose_t pose;
    body_pose(world, ba, &pose);
    sphere_centre(da, &pose, pa.position);
    body_pose(world, bb, &pose);
    sphere_centre(db, &pose, pb.position);
    count = clt_collide_sphere_sphere(&pa, &pb, reach, points);
  } else {
    count = collide_pair(world, points, NULL, sa, sb, ba, bb, reach);
  }
  while (i < count && points[i].feature != feature) i++;
  if (i >= count) return false;
  const clt_contact_point_t *p = &points[i];
  const pair_material_t pm = pair_material(world, sa, sb);
  make_contact(c, sa, sb, ba, bb, p, frictionless ? 0.0 : pm.friction, pm.restitution);
#ifdef CLATTER_POISON_RELEASED
  if (memcmp(c, &r->shelf_check[j], sizeof *c) != 0) return false;
#endif
  return true;
}

clt_status_t clt_contact_lost(clt_world_t *world, const clt_step_work_t *w, int j) {
  const clt_sweep_t *r = &w->sweep;
  int sb = r->shelf[3 * (size_t)j + 1];
  return clt_world_fail(world, CLT_ERR_NUMERICAL,
                        "step %lld: contact %d (shapes %d and %d) was not made again the same from its shelf "
                        "(clt_contact_remake; did the positions move?)",
                        (long long)world->step_count + 1, j, r->shelf[3 * (size_t)j], sb < 0 ? ~sb : sb);
}

clt_status_t clt_contacts_unshelve(clt_world_t *world, clt_step_work_t *w) {
  clt_sweep_t *r = &w->sweep;
  if (!r->active || !r->shelved) return CLT_OK;
  int nc = r->shelf_count, lost = nc;
  CLT_PARALLEL_FOR_IF(nc >= COLLIDE_PARALLEL_MIN, schedule(static) reduction(min : lost),
  for (int j = 0; j < nc; j++)
    if (!clt_contact_remake(world, w, j, &w->contacts[j]) && j < lost) lost = j;
  );
  r->shelved = false;
  /* the shelf is dead until the next solve shelves (base/pages.h) */
  clt_work_release(w, r->shelf, (size_t)r->shelf_capacity * sizeof *r->shelf);
  return lost < nc ? clt_contact_lost(world, w, lost) : CLT_OK;
}

clt_status_t clt_stage_collide(clt_step_context_t *c) {
  return clt_find_contacts(c->world, c->work, c->world->method.active_set_eps);
}

double clt_body_rotation_reach(const clt_world_t *world, int i, bool *unbounded) {
  const clt_body_rec_t *b = &world->bodies[i];
  double reach = 0.0;
  *unbounded = false;
  for (int k = 0; k < b->shape_count; k++) {
    const clt_shape_def_t *sh = clt_world_shape(world, b->shape_first + k);
    double off = clt_v3_norm(sh->local_position);
    if (sh->type == CLT_SHAPE_SPHERE && off == 0.0) continue;
    clt_collide_pose_t pose;
    memset(&pose, 0, sizeof pose);
    pose.orientation[0] = 1.0;
    double lo[3], hi[3];
    if (!clt_shape_bounds(sh, &pose, lo, hi)) {
      *unbounded = true; /* a half-space: no finite reach */
      continue;
    }
    double far = 0.0;
    for (int d = 0; d < 3; d++) {
      double e = fmax(fabs(lo[d]), fabs(hi[d]));
      far += e * e;
    }
    reach = fmax(reach, sqrt(far));
  }
  return reach;
}

/* clt_body_rotation_reach, or −1 when the body has an unbounded shape. */
static double rotation_reach(const clt_world_t *world, int i) {
  bool unbounded;
  double reach = clt_body_rotation_reach(world, i, &unbounded);
  return unbounded ? -1.0 : reach;
}

void clt_sweep_keep_pairs(clt_world_t *world, clt_step_work_t *w, double eps) {
  clt_sweep_t *r = &w->sweep;
  if (!r->active) return;
  r->reuse_valid = false;
  if (!clt_sweep_reserve(r, world->body_count)) return;
  /* The poses of the search are those of the step's start, which the backup keeps until the next
   * step (clt_world_backup_pose; the states move in stage "integrate"); where one is not, nothing
   * is kept. Before stage "backup" of a late_backup scheme (stepper.h) the positions have not
   * moved, and the backup will be these poses. */
  bool start = true, late = !world->backup_written; /* an and over the bodies: any split */
  CLT_PARALLEL_FOR_IF(world->body_count >= COLLIDE_PARALLEL_MIN, schedule(static) reduction(&& : start),
  for (int i = 0; i < world->body_count; i++) {
    start = start && (late || memcmp(clt_world_backup_pose(world, i), &world->states[i], REUSE_POSE * sizeof(double)) == 0);
    r->reuse_reach[i] = rotation_reach(world, i);
    r->reuse_type[i] = (unsigned char)world->bodies[i].type;
  });
  if (!start) return;
  r->reuse_eps = eps;
  r->reuse_bodies = world->body_count;
  r->reuse_shapes = world->shape_count;
  r->reuse_step = world->step_count;
  r->reuse_valid = true;
}

/* Whether the kept pairs contain every pair that a broad phase with margin 0 would report now
 * (clt_sweep_keep_pairs): the same bodies and shapes, and each body within its allowance of where
 * it was. A point of body i moved by Δx plus at most D_i = |ΔR p| ≤ 2‖Δq‖·reach (3D; 2D:
 * |Δθ|·reach) in any direction, so its shapes' bounds now lie within those of then moved by Δx and
 * grown by D_i; a pair whose bounds touch now had bounds that touched when each was grown by
 * −Δx_k + D_i below and Δx_k + D_i above along axis k, and with those within the allowance the kept
 * broad phase (bounds grown by sweep + ε below and above; a half-space's reach 2ε) reported it. The
 * slack covers rounding. Shapes do not change within a relaxed step (no API changes a shape; the
 * colony's growth runs in its own pipeline, whose steps end the validity through the step count). */
static bool body_within_allowance(const clt_world_t *world, const clt_sweep_t *r, int i);

static bool kept_pairs_cover(const clt_world_t *world, const clt_step_work_t *w) {
  const clt_sweep_t *r = &w->sweep;
  if (!r->active || !r->reuse_valid || r->reuse_bodies != world->body_count || r->reuse_shapes != world->shape_count)
    return false;
  /* only for the state the step ends in (and changes of it within the allowance): not for a failed
   * step's restored state, a loaded one, or after another pipeline's steps (shapes that grew) */
  if (world->step_count != r->reuse_step + 1) return false;
  bool covered = true; /* an and over the bodies: the same for any split over threads */
  CLT_PARALLEL_FOR_IF(world->body_count >= COLLIDE_PARALLEL_MIN, schedule(static) reduction(&& : covered),
  for (int i = 0; i < world->body_count; i++)
    covered = covered && body_within_allowance(world, r, i);
  );
  return covered;
}

/* kept_pairs_cover for body i. */
static bool body_within_allowance(const clt_world_t *world, const clt_sweep_t *r, int i) {
  if (r->reuse_type[i] != (unsigned char)world->bodies[i].type) return false;
  const double *then = clt_world_backup_pose(world, i); /* its pose at the search */
  const clt_body_state_t *s = &world->states[i];
  if (memcmp(then, s, REUSE_POSE * sizeof(double)) == 0) return true;
  double reach = r->reuse_reach[i];
  if (world->bodies[i].shape_count == 0) return true;
  if (reach < 0.0) return false; /* a half-space moved */
  double dq = 0.0, rot;
  if (world->dimension == 2) {
    rot = fabs(s->angle - then[3]);
  } else {
    for (int k = 0; k < 4; k++) dq += (s->orientation[k] - then[4 + k]) * (s->orientation[k] - then[4 + k]);
    rot = 2.0 * sqrt(dq);
  }
  const double *ext = r->ext + 6 * (size_t)i; /* the sweeps kept (clt_sweep_keep_pairs) */
  for (int k = 0; k < 3; k++) {
    double d = s->position[k] - then[k];
    double below = -d + rot * reach, above = d + rot * reach;
    if (fabs(below) * 1e-6 + below + 1e-9 > ext[k] + r->reuse_eps ||
        fabs(above) * 1e-6 + above + 1e-9 > ext[3 + k] + r->reuse_eps)
      return false;
  }
  return true;
}

double clt_world_penetration(clt_world_t *world) {
  if (world->shape_count == 0) return 0.0;
  clt_step_work_t *w = clt_step_work(world);
  if (!w) return NAN;
  /* The pairs of the step's swept broad phase when they are known to cover the state (the relaxed
   * scheme's diagnostics after its step): only the proxies are placed anew and each kept pair is
   * tested as the broad phase with margin 0 would; otherwise the broad phase itself. Either way the
   * narrow phase sees the same pairs. */
  bool kept = kept_pairs_cover(world, w);
  if (kept ? place_proxies(world, w, NULL) != CLT_OK : broad_phase(world, w, 0.0, NULL) != CLT_OK) return NAN;
  double worst = 0.0; /* a max: the same for any split of the pairs over threads */
  const double *centres = place_spheres(world, w);
  int pairs = w->broadphase.pair_count;
  CLT_PARALLEL_FOR_IF(pairs >= COLLIDE_PAIR_PARALLEL_MIN, schedule(static) reduction(max : worst),
  for (int k = 0; k < pairs; k++) {
    int sa = w->broadphase.pairs[k].a, sb = w->broadphase.pairs[k].b;
    if (kept && !clt_broadphase_pair_test(&w->proxies[sa], &w->proxies[sb], world->dimension, 0.0)) continue;
    int ba = w->proxies[sa].body, bb = w->proxies[sb].body;
    if (pair_excluded(world, sa, sb, ba, bb)) continue;
    clt_contact_point_t points[CLT_MAX_PAIR_CONTACTS];
    int count = collide_pair(world, points, centres, sa, sb, ba, bb, 0.0);
    for (int i = 0; i < count; i++)
      if (-points[i].distance > worst) worst = -points[i].distance;
  });
  /* what the search read is dead until the next one writes it (base/pages.h; the pairs stay) */
  clt_work_release(w, w->proxies, (size_t)w->proxy_capacity * sizeof *w->proxies);
  if (w->sweep.active) clt_work_release(w, w->sweep.centres, (size_t)w->sweep.centre_capacity * 3 * sizeof(double));
  return worst;
}

bool clt_world_worst_penetration(clt_world_t *world, const double *size, double fraction, int *body_a, int *body_b,
                                 double *depth) {
  *body_a = *body_b = -1;
  *depth = 0.0;
  if (world->shape_count == 0) return false;
  clt_step_work_t *w = clt_step_work(world);
  if (!w) return false;
  /* the same pairs as clt_world_penetration (the kept pairs where they cover the state: a broad
   * phase here would replace the pairs the relaxed scheme reuses), serially: it runs only when
   * the largest penetration is already past the smallest bound */
  bool kept = kept_pairs_cover(world, w);
  if (kept ? place_proxies(world, w, NULL) != CLT_OK : broad_phase(world, w, 0.0, NULL) != CLT_OK) return false;
  const double *centres = place_spheres(world, w);
  double worst = 1.0; /* ratio of the penetration to its bound */
  for (int k = 0; k < w->broadphase.pair_count; k++) {
    int sa = w->broadphase.pairs[k].a, sb = w->broadphase.pairs[k].b;
    if (kept && !clt_broadphase_pair_test(&w->proxies[sa], &w->proxies[sb], world->dimension, 0.0)) continue;
    int ba = w->proxies[sa].body, bb = w->proxies[sb].body;
    if (pair_excluded(world, sa, sb, ba, bb)) continue;
    double bound = fraction * fmin(size[ba], size[bb]);
    if (!(bound < INFINITY)) continue; /* two bodies without a size (neither dynamic) */
    clt_contact_point_t points[CLT_MAX_PAIR_CONTACTS];
    int count = collide_pair(world, points, centres, sa, sb, ba, bb, 0.0);
    for (int i = 0; i < count; i++) {
      double d = -points[i].distance;
      if (d > worst * bound) {
        worst = d / bound;
        *body_a = ba;
        *body_b = bb;
        *depth = d;
      }
    }
  }
  clt_work_release(w, w->proxies, (size_t)w->proxy_capacity * sizeof *w->proxies);
  if (w->sweep.active) clt_work_release(w, w->sweep.centres, (size_t)w->sweep.centre_capacity * 3 * sizeof(double));
  return *body_a >= 0;
}
