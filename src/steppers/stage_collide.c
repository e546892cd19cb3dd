/* Collide (SPEC.md §1 "Active set", §5): every shape pair the broad phase proposes (bounds grown by
 * ε̂) goes through the narrow phase of src/collision; each point with Φ ≤ ε̂ becomes an active
 * contact with the pair's μ and e_N (geometric means of the two materials, world.h). Pairs of two
 * non-dynamic bodies never interact, nor do two bodies joined by a joint (their shapes usually
 * overlap at the joint by design; Box2D's collideConnected = false). Pairs of shape types the narrow phase does not handle are
 * skipped; pairs whose narrow phase FAILED (an iteration that did not converge) are counted in
 * work->collide_failed and reported through the world's log as warnings. The same machinery with
 * ε̂ = 0 gives the penetration part of the infeasibility over
 * ALL pairs (SPEC.md §1 "Infeasibility": a pair with Φ < 0 always has overlapping bounds). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/narrowphase_pairs.h"
#include "collision/primitives_3d.h"
#include "steppers/stepper.h"

static const clt_material_rec_t *shape_material(const clt_world_t *world, const clt_shape_def_t *s) {
  if (s->material >= 0 && s->material < world->material_count) return &world->materials[s->material];
  return &world->default_material;
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

/* Broad phase over every shape (proxy index = shape index); body_margin (NULL: none) grows the
 * bounds of each body's shapes (clt_find_contacts_swept). */
static clt_status_t broad_phase(clt_world_t *world, clt_step_work_t *w, double margin, const double *body_margin) {
  int n = world->shape_count;
  if (n > w->proxy_capacity) {
    int cap = w->proxy_capacity > 0 ? w->proxy_capacity : 16;
    while (cap < n) cap *= 2;
    clt_broadphase_proxy_t *p = realloc(w->proxies, (size_t)cap * sizeof *p);
    if (!p) return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "collide: out of memory");
    w->proxies = p;
    w->proxy_capacity = cap;
  }
  for (int i = 0; i < world->body_count; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    clt_collide_pose_t pose;
    body_pose(world, i, &pose);
    for (int k = 0; k < b->shape_count; k++) {
      int s = b->shape_first + k;
      clt_broadphase_proxy_t *p = &w->proxies[s];
      p->unbounded = !clt_shape_bounds(&world->shapes[s], &pose, p->lower, p->upper);
      p->has_plane = p->unbounded && plane_of(world, &world->shapes[s], &pose, p);
      if (p->has_plane && body_margin) p->plane_offset += body_margin[i];
      if (body_margin && !p->unbounded)
        for (int d = 0; d < 3; d++) {
          p->lower[d] -= body_margin[i];
          p->upper[d] += body_margin[i];
        }
      p->body = i;
      p->fixed = b->type != CLT_BODY_DYNAMIC;
    }
  }
  clt_status_t st = clt_broadphase_find_pairs(&w->broadphase, w->proxies, n, world->dimension, margin);
  if (st != CLT_OK) return clt_world_fail(world, st, "collide: broad phase failed (%s)", clt_status_name(st));
  return CLT_OK;
}

static bool joined(const clt_world_t *world, int a, int b) {
  for (int j = 0; j < world->joint_count; j++) {
    const clt_joint_rec_t *jt = &world->joints[j];
    if ((jt->body_a == a && jt->body_b == b) || (jt->body_a == b && jt->body_b == a)) return true;
  }
  return false;
}

clt_status_t clt_broad_phase_pairs(clt_world_t *world, clt_step_work_t *w, double margin, const double *body_margin) {
  return broad_phase(world, w, margin, body_margin);
}

clt_status_t clt_find_contacts(clt_world_t *world, clt_step_work_t *w, double max_distance) {
  return clt_find_contacts_swept(world, w, max_distance, NULL);
}

/* How far apart a pair may be and still close within the step, for the swept active set. Each
 * body's margin bounds its own motion over the step and contains h·|u| (its linear velocity at the
 * step start; stage_solve_relaxed.c: h (|u| + h |a| + |ω| reach)); what closes the gap is the
 * relative motion, so the two h·|u| terms are replaced by h·|u_A − u_B| (never more than the sum).
 * Bodies falling or moving together (a loose pile in free fall, grains riding a container) then
 * keep ε̂ + h²(|a_A| + |a_B|) instead of ε̂ + 2h|u|: on the 8000-sphere pile at t = 0.12 s 64
 * instead of 19 522 speculative grain–grain contacts. */
static double pair_reach(const clt_world_t *world, const double *body_margin, int a, int b, double max_distance) {
  double h = world->time_step;
  const double *ua = world->states[a].velocity, *ub = world->states[b].velocity;
  double na = 0.0, nb = 0.0, nr = 0.0;
  for (int k = 0; k < 3; k++) {
    na += ua[k] * ua[k];
    nb += ub[k] * ub[k];
    nr += (ua[k] - ub[k]) * (ua[k] - ub[k]);
  }
  double own = body_margin[a] + body_margin[b];
  double relative = own - h * (sqrt(na) + sqrt(nb)) + h * sqrt(nr);
  return max_distance + fmax(0.0, fmin(own, relative));
}

clt_status_t clt_find_contacts_swept(clt_world_t *world, clt_step_work_t *w, double max_distance,
                                     const double *body_margin) {
  w->contact_count = 0;
  w->collide_failed = 0;
  if (world->shape_count == 0) return CLT_OK;
  clt_status_t st = broad_phase(world, w, max_distance, body_margin);
  if (st != CLT_OK) return st;
  for (int k = 0; k < w->broadphase.pair_count; k++) {
    int sa = w->broadphase.pairs[k].a, sb = w->broadphase.pairs[k].b;
    int ba = w->proxies[sa].body, bb = w->proxies[sb].body;
    if (world->joint_count > 0 && joined(world, ba, bb)) continue;
    clt_collide_pose_t pa, pb;
    body_pose(world, ba, &pa);
    body_pose(world, bb, &pb);
    double reach = body_margin ? pair_reach(world, body_margin, ba, bb, max_distance) : max_distance;
    int count = clt_collide(&world->shapes[sa], &pa, &world->shapes[sb], &pb, reach, w->points,
                            CLT_MAX_PAIR_CONTACTS);
    if (count == CLT_COLLIDE_FAILED) {
      /* No trustworthy point (smooth.h): never taken as "apart" silently — counted, and reported
       * once per call with the first such pair. */
      if (w->collide_failed++ == 0)
        clt_world_log(world, CLT_LOG_WARNING,
                      "step %lld: narrow phase failed for shapes %d and %d (bodies %d, %d); no contact made",
                      (long long)world->step_count + 1, sa, sb, ba, bb);
      continue;
    }
    if (count <= 0) continue;
    if (!clt_step_work_reserve_contacts(w, w->contact_count + count))
      return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "collide: out of memory (%d contacts)", w->contact_count);
    const clt_material_rec_t *ma = shape_material(world, &world->shapes[sa]);
    const clt_material_rec_t *mb = shape_material(world, &world->shapes[sb]);
    for (int i = 0; i < count; i++) {
      const clt_contact_point_t *p = &w->points[i];
      clt_contact_t *c = &w->contacts[w->contact_count++];
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
      c->friction = sqrt(ma->friction * mb->friction);
      c->restitution = sqrt(ma->restitution * mb->restitution);
    }
  }
  if (w->collide_failed > 1)
    clt_world_log(world, CLT_LOG_WARNING, "step %lld: narrow phase failed for %d shape pairs in all",
                  (long long)world->step_count + 1, w->collide_failed);
  return CLT_OK;
}

clt_status_t clt_stage_collide(clt_step_context_t *c) {
  return clt_find_contacts(c->world, c->work, c->world->method.active_set_eps);
}

double clt_world_penetration(clt_world_t *world) {
  if (world->shape_count == 0) return 0.0;
  clt_step_work_t *w = clt_step_work(world);
  if (!w || broad_phase(world, w, 0.0, NULL) != CLT_OK) return NAN;
  double worst = 0.0;
  for (int k = 0; k < w->broadphase.pair_count; k++) {
    int sa = w->broadphase.pairs[k].a, sb = w->broadphase.pairs[k].b;
    int ba = w->proxies[sa].body, bb = w->proxies[sb].body;
    if (world->joint_count > 0 && joined(world, ba, bb)) continue;
    clt_collide_pose_t pa, pb;
    body_pose(world, ba, &pa);
    body_pose(world, bb, &pb);
    int count = clt_collide(&world->shapes[sa], &pa, &world->shapes[sb], &pb, 0.0, w->points, CLT_MAX_PAIR_CONTACTS);
    for (int i = 0; i < count; i++)
      if (-w->points[i].distance > worst) worst = -w->points[i].distance;
  }
  return worst;
}
