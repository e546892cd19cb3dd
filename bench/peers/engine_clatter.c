/* bench/peers: clatter, through the public API only (include/clatter/world.h). The scene is built
 * as the other engines build it: same masses and principal inertias, half-space walls on one
 * static body, ball joints (CLT_JOINT_SPHERICAL); link bodies of the chain have no shapes.
 *
 * Honesty rules (README.md): a step that returns anything but CLT_OK stops the run and the row
 * shows the status and the library's message (CLT_ERR_UNSUPPORTED: "unsupported: ..."); and a step
 * that returns CLT_OK while the scene plainly needs constraints the step did not solve (a body
 * sinks into a wall or the floor and the diagnostics report no contacts, or the world has joints
 * and the step problem has no unknowns) stops the run as "unsupported (contacts|joints not in the
 * step yet)" instead of reporting the numbers of a free fall ("contact missed" when the step did
 * report contacts earlier in the run); a solve with status error or ray stops it too, and solves
 * that hit the iteration cap are counted in the status column. */
#include "peers.h"

#include "clatter/world.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct clatter_engine_t {
  const peers_scene_t *scene;
  clt_world_t *world;
  clt_body_id_t *bodies;
  clt_convex_t **hulls;   /* per scene hull (the world holds its own references) */
  int ever_contacts;      /* the step has reported contacts at least once */
  int steps;              /* steps taken */
  int capped, short_of;   /* steps whose solve hit the iteration cap / finished short of the tolerance */
  double worst_residual;  /* largest residual of those */
} clatter_engine_t;

/* Which method the clatter rows use on the scenes that take clatter's default method. */
typedef enum clatter_variant_t {
  CLATTER_PLAIN, /* clatter */
  CLATTER_FAST,  /* clatter-fast: the piles capped at 20 sweeps */
  CLATTER_LEMKE  /* clatter-lemke: friction_cone polyhedral + Lemke (the row stages' friction LCP) */
} clatter_variant_t;

/* The method per scene (README.md "Engines"). Piles: the `relaxed` scheme (one convex QP per step,
 * warm-started, swept active set) by the coloured cone block Gauss–Seidel (method.solver bgs) on
 * the exact circular cone, tolerance 1.5e-3 on the scaled residual of SPEC.md §2 (with 1 + ‖b‖∞ ≈
 * 1.2…18 here: at most a few cm/s of contact-velocity error, h × that ≤ 0.3 mm of position a
 * step) and at most 200 sweeps, over-relaxed by ω = 1.5 (the same solution to the tolerance in
 * fewer sweeps on a deep pile; docs/stepping.md "The relaxed scheme"). The stack, the chain and
 * the tower: clt_default_method() (anitescu-hart, friction_cone auto → the circular cone by APGD's
 * De Saxcé fixed point, docs/stepping.md "Default method"; the chain has no contacts, so its step
 * is the joints' solve whatever the cone); --clatter-cone, or the clatter-lemke engine, set the
 * cone there (polyhedral: with Lemke). --clatter-scheme/solver/tolerance/iterations/... override
 * the piles' method only: the piles' loose tolerance would let the stack's APGD collapse it;
 * --clatter-cone reaches only those three. */
static int scene_method(const peers_scene_t *scene, const peers_options_t *options, clatter_variant_t variant,
                        clt_method_t *m, char *why, size_t why_size) {
  bool fast = variant == CLATTER_FAST;
  *m = clt_default_method();
  if (scene->kind == PEERS_STACK || scene->kind == PEERS_CHAIN || scene->kind == PEERS_TOWER ||
      scene->kind == PEERS_CANTILEVER || scene->kind == PEERS_POLYSTACK) {
    clt_friction_cone_t cone = CLT_CONE_AUTO;
    if (variant == CLATTER_LEMKE) cone = CLT_CONE_POLYHEDRAL;
    else if (options->clatter_cone && !clt_friction_cone_from_name(options->clatter_cone, &cone)) {
      snprintf(why, why_size, "unknown clatter friction cone %s", options->clatter_cone);
      return -1;
    }
    m->friction_cone = cone;
    if (cone == CLT_CONE_POLYHEDRAL) m->solver = CLT_SOLVER_LEMKE;
    return 0;
  }
  if (scene->kind == PEERS_PILE || scene->kind == PEERS_POLYPILE) {
    m->scheme = CLT_SCHEME_RELAXED;
    m->solver = CLT_SOLVER_BGS;
    m->friction_cone = CLT_CONE_CIRCULAR;
    m->tolerance = fast ? 3e-3 : 1.5e-3;
    m->max_iterations = fast ? 20 : 200; /* clatter-fast: ODE's quickstep budget of 20 sweeps */
    m->relaxation = 1.5;
  }
  if (options->clatter_scheme && !clt_scheme_from_name(options->clatter_scheme, &m->scheme)) {
    snprintf(why, why_size, "unknown clatter scheme %s", options->clatter_scheme);
    return -1;
  }
  if (options->clatter_solver && !clt_solver_kind_from_name(options->clatter_solver, &m->solver)) {
    snprintf(why, why_size, "unknown clatter solver %s", options->clatter_solver);
    return -1;
  }
  if (options->clatter_tolerance > 0) m->tolerance = options->clatter_tolerance;
  if (options->clatter_iterations > 0) m->max_iterations = options->clatter_iterations;
  if (options->clatter_absolute) m->absolute_tolerance = true;
  if (options->clatter_relaxation > 0) m->relaxation = options->clatter_relaxation;
  return 0;
}

static void clatter_destroy(void *engine) {
  clatter_engine_t *e = engine;
  if (!e) return;
  clt_world_destroy(e->world);
  for (int k = 0; e->hulls && k < e->scene->hull_count; ++k) clt_convex_release(e->hulls[k]);
  free(e->hulls);
  free(e->bodies);
  free(e);
}

static void *fail(clatter_engine_t *e, clt_status_t st, const char *what, char *why, size_t why_size) {
  snprintf(why, why_size, "%s%s: %s", st == CLT_ERR_UNSUPPORTED ? "unsupported: " : "", what,
           e->world ? clt_world_error(e->world) : clt_status_name(st));
  clatter_destroy(e);
  return NULL;
}

static void *clatter_create_with(const peers_scene_t *scene, const peers_options_t *options, clatter_variant_t variant,
                                 char *why, size_t why_size) {
  clatter_engine_t *e = calloc(1, sizeof *e);
  if (!e) {
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  e->scene = scene;
  e->bodies = calloc((size_t)scene->body_count, sizeof *e->bodies);
  e->hulls = calloc((size_t)(scene->hull_count > 0 ? scene->hull_count : 1), sizeof *e->hulls);
  if (!e->bodies || !e->hulls) {
    clatter_destroy(e);
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  clt_world_def_t def = clt_default_world_def();
  def.dimension = 3;
  def.time_step = scene->time_step;
  for (int k = 0; k < 3; ++k) def.gravity[k] = scene->gravity[k];
  if (scene_method(scene, options, variant, &def.method, why, why_size) != 0) {
    clatter_destroy(e);
    return NULL;
  }
  char message[256] = "";
  clt_status_t st = clt_world_create(&def, &e->world, message, sizeof message);
  if (st != CLT_OK) {
    snprintf(why, why_size, "%sclt_world_create: %s", st == CLT_ERR_UNSUPPORTED ? "unsupported: " : "", message);
    clatter_destroy(e);
    return NULL;
  }
  clt_material_def_t mat = clt_default_material_def();
  mat.friction = scene->friction;
  mat.restitution = scene->restitution;
  mat.density = scene->density;
  int material = -1;
  st = clt_world_add_material(e->world, &mat, &material);
  if (st != CLT_OK) return fail(e, st, "clt_world_add_material", why, why_size);

  if (scene->plane_count > 0) {
    clt_shape_def_t walls[PEERS_MAX_PLANES];
    for (int p = 0; p < scene->plane_count; ++p) {
      walls[p] = clt_default_shape_def(CLT_SHAPE_HALFSPACE);
      for (int k = 0; k < 3; ++k) {
        walls[p].normal[k] = scene->planes[p].normal[k];
        walls[p].point[k] = scene->planes[p].normal[k] * scene->planes[p].offset;
      }
      walls[p].material = material;
    }
    clt_body_def_t container = clt_default_body_def();
    container.type = CLT_BODY_STATIC;
    container.shapes = walls;
    container.shape_count = scene->plane_count;
    container.name = "container";
    clt_body_id_t id;
    st = clt_world_add_body(e->world, &container, &id);
    if (st != CLT_OK) return fail(e, st, "container", why, why_size);
  }
  for (int i = 0; i < scene->body_count; ++i) {
    const peers_body_t *b = &scene->bodies[i];
    clt_shape_def_t shape = clt_default_shape_def(CLT_SHAPE_SPHERE);
    clt_body_def_t body = clt_default_body_def();
    if (b->shape == PEERS_SPHERE) {
      shape.radius = b->radius;
    } else if (b->shape == PEERS_BOX) {
      shape = clt_default_shape_def(CLT_SHAPE_BOX);
      for (int k = 0; k < 3; ++k) shape.half_extents[k] = b->half[k];
    } else if (b->shape == PEERS_HULL) {
      /* The scene's own faces, checked by clt_convex_from_faces (planar, convex, closed). */
      int k = (int)(b->hull - scene->hulls);
      if (!e->hulls[k]) {
        char message[256];
        st = clt_convex_from_faces((const double (*)[3])b->hull->vertices, b->hull->vertex_count,
                                   b->hull->face_vertices, b->hull->face_start, b->hull->face_count, &e->hulls[k],
                                   message, sizeof message);
        if (st != CLT_OK) {
          snprintf(why, why_size, "clt_convex_from_faces: %s", message);
          clatter_destroy(e);
          return NULL;
        }
      }
      shape = clt_default_shape_def(CLT_SHAPE_POLYHEDRON);
      shape.convex = e->hulls[k];
    }
    if (b->shape != PEERS_NONE) {
      shape.material = material;
      body.shapes = &shape;
      body.shape_count = 1;
    }
    for (int k = 0; k < 3; ++k) {
      body.position[k] = b->position[k];
      body.inertia[k] = b->inertia[k];
    }
    for (int k = 0; k < 4; ++k) body.orientation[k] = b->orientation[k];
    body.mass = b->mass;
    st = clt_world_add_body(e->world, &body, &e->bodies[i]);
    if (st != CLT_OK) return fail(e, st, "clt_world_add_body", why, why_size);
  }
  for (int k = 0; k < scene->joint_count; ++k) {
    const peers_joint_t *j = &scene->joints[k];
    clt_joint_def_t joint = clt_default_joint_def(j->fixed ? CLT_JOINT_FIXED : CLT_JOINT_SPHERICAL);
    joint.body_a = e->bodies[j->body_a];
    joint.body_b = j->body_b >= 0 ? e->bodies[j->body_b] : clt_world_ground();
    for (int c = 0; c < 3; ++c) {
      joint.anchor_a[c] = j->anchor_a[c];
      joint.anchor_b[c] = j->anchor_b[c];
    }
    clt_joint_id_t id;
    st = clt_world_add_joint(e->world, &joint, &id);
    if (st != CLT_OK) return fail(e, st, "clt_world_add_joint", why, why_size);
  }
  return e;
}

static void *clatter_create(const peers_scene_t *scene, const peers_options_t *options, char *why, size_t why_size) {
  return clatter_create_with(scene, options, CLATTER_PLAIN, why, why_size);
}

static void *clatter_create_fast(const peers_scene_t *scene, const peers_options_t *options, char *why,
                                 size_t why_size) {
  return clatter_create_with(scene, options, CLATTER_FAST, why, why_size);
}

static void *clatter_create_lemke(const peers_scene_t *scene, const peers_options_t *options, char *why,
                                  size_t why_size) {
  return clatter_create_with(scene, options, CLATTER_LEMKE, why, why_size);
}

static int clatter_step(void *engine, char *why, size_t why_size) {
  clatter_engine_t *e = engine;
  clt_status_t st = clt_world_step(e->world);
  if (st == CLT_OK) return 0;
  snprintf(why, why_size, "%s: %s", clt_status_name(st), clt_world_error(e->world));
  return -1;
}

/* Deepest overlap of any body with the static half-spaces (scenes.c's geometry). */
static double plane_penetration(const clatter_engine_t *e) {
  const peers_scene_t *s = e->scene;
  double worst = 0;
  for (int i = 0; i < s->body_count; ++i) {
    const peers_body_t *b = &s->bodies[i];
    if (b->shape == PEERS_NONE) continue;
    clt_body_state_t state;
    if (clt_body_get_state(e->world, e->bodies[i], &state) != CLT_OK) continue;
    peers_state_t ps;
    memcpy(ps.position, state.position, sizeof ps.position);
    memcpy(ps.orientation, state.orientation, sizeof ps.orientation);
    for (int p = 0; p < s->plane_count; ++p) {
      double depth = -peers_plane_distance(b, &ps, &s->planes[p]);
      if (depth > worst) worst = depth;
    }
  }
  return worst;
}

static int clatter_check(void *engine, char *why, size_t why_size) {
  clatter_engine_t *e = engine;
  clt_diagnostics_t d;
  if (clt_world_get_diagnostics(e->world, &d) != CLT_OK) return 0;
  ++e->steps;
  /* A step whose solver gave no answer is not a step of the scene's physics (SPEC.md §7: a solve
   * that did not converge is never passed off as one); one that hit its cap is counted. */
  if (d.solver_status == CLT_SOLVE_ERROR || d.solver_status == CLT_SOLVE_RAY) {
    snprintf(why, why_size, "solver %s (%d unknowns, residual %.3g): no answer for this step",
             clt_solver_status_name(d.solver_status), d.lcp_size, d.residual);
    return -1;
  }
  if (d.solver_status == CLT_SOLVE_MAX_ITERATIONS || d.solver_status == CLT_SOLVE_NOT_CONVERGED) {
    if (d.solver_status == CLT_SOLVE_MAX_ITERATIONS)
      ++e->capped;
    else
      ++e->short_of;
    if (!(d.residual <= e->worst_residual)) e->worst_residual = d.residual;
  }
  if (e->scene->joint_count > 0 && d.lcp_size == 0) {
    snprintf(why, why_size,
             "unsupported (joints not in the step yet): the world has %d joints but the step problem has no unknowns",
             e->scene->joint_count);
    return -1;
  }
  if (d.contacts > 0) e->ever_contacts = 1;
  if (e->scene->needs_contacts && d.contacts == 0) {
    double pen = plane_penetration(e);
    if (pen > 1e-3 && !e->ever_contacts) {
      snprintf(why, why_size,
               "unsupported (contacts not in the step yet): a body is %.1f mm inside a wall or the floor and the "
               "step reports 0 contacts",
               1e3 * pen);
      return -1;
    }
    if (pen > 1e-3) {
      snprintf(why, why_size, "contact missed: a body is %.1f mm inside a wall or the floor and the step reports 0 "
               "contacts (it reported contacts before)", 1e3 * pen);
      return -1;
    }
  }
  return 0;
}

static void clatter_get_states(void *engine, peers_state_t *states) {
  clatter_engine_t *e = engine;
  for (int i = 0; i < e->scene->body_count; ++i) {
    clt_body_state_t s;
    if (clt_body_get_state(e->world, e->bodies[i], &s) != CLT_OK) {
      memset(&states[i], 0, sizeof states[i]);
      states[i].position[0] = NAN;
      states[i].orientation[0] = 1;
      continue;
    }
    memcpy(states[i].position, s.position, sizeof s.position);
    memcpy(states[i].orientation, s.orientation, sizeof s.orientation);
    memcpy(states[i].velocity, s.velocity, sizeof s.velocity);
    /* clatter reports ω in the body frame (SPEC.md §0); the record wants the world frame. */
    peers_quat_rotate(s.orientation, s.angular_velocity, states[i].angular_velocity);
  }
}

static void clatter_note(void *engine, char *note, size_t note_size) {
  clatter_engine_t *e = engine;
  if (e->capped > 0 && e->short_of > 0)
    snprintf(note, note_size,
             "%d of %d solves hit the iteration cap, %d more finished short of the tolerance (worst residual %.3g)",
             e->capped, e->steps, e->short_of, e->worst_residual);
  else if (e->capped > 0)
    snprintf(note, note_size, "%d of %d solves hit the iteration cap (worst residual %.3g)", e->capped, e->steps,
             e->worst_residual);
  else if (e->short_of > 0)
    snprintf(note, note_size, "%d of %d solves finished short of the tolerance (not converged; worst residual %.3g)",
             e->short_of, e->steps, e->worst_residual);
}

static const char *clatter_describe(void) {
  return "clatter (this checkout): piles with the relaxed scheme and the coloured cone block Gauss-Seidel (bgs, "
         "circular cone, tolerance 1.5e-3, at most 200 sweeps, omega 1.5), polypile the same; stack, chain, tower and "
         "polystack with the default "
         "method (anitescu-hart, friction_cone auto: circular cone by APGD, tolerance 1e-10); override with --clatter-*";
}

static const char *clatter_describe_fast(void) {
  return "clatter-fast: as clatter, but the piles at tolerance 3e-3 and at most 20 block Gauss-Seidel sweeps (ODE "
         "quickstep's 20 iterations), whatever the residual";
}

const peers_engine_t peers_engine_clatter = {"clatter", clatter_create, clatter_step, clatter_check,
                                             clatter_get_states, clatter_destroy, clatter_describe, clatter_note};
static const char *clatter_describe_lemke(void) {
  return "clatter-lemke: as clatter, but the stack, the chain and the tower on the polyhedral rows "
         "(friction_cone polyhedral, m_C = 8, Lemke)";
}

const peers_engine_t peers_engine_clatter_fast = {"clatter-fast", clatter_create_fast, clatter_step, clatter_check,
                                                  clatter_get_states, clatter_destroy, clatter_describe_fast,
                                                  clatter_note};
const peers_engine_t peers_engine_clatter_lemke = {"clatter-lemke", clatter_create_lemke, clatter_step, clatter_check,
                                                   clatter_get_states, clatter_destroy, clatter_describe_lemke,
                                                   clatter_note};
