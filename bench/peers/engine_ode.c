/* bench/peers: ODE (Debian libode-dev). dWorldQuickStep with 20 iterations, ODE's defaults
 * otherwise (ERP 0.2, CFM 1e-5, SOR 1.3, no auto-disable); contacts with dContactApprox1 so μ is
 * a Coulomb coefficient (friction pyramid scaled by the normal force), bounce 0; hash space. */
#include "peers.h"

#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ODE_MAX_CONTACTS 8

typedef struct ode_engine_t {
  const peers_scene_t *scene;
  dWorldID world;
  dSpaceID space;
  dJointGroupID contacts;
  dBodyID *bodies;
  dReal **hull_planes, **hull_points; /* per scene hull: dCreateConvex keeps the pointers */
  unsigned **hull_polygons;
  double h;
} ode_engine_t;

static int ode_initialized;

static void near_callback(void *data, dGeomID o1, dGeomID o2) {
  ode_engine_t *e = data;
  dBodyID b1 = dGeomGetBody(o1), b2 = dGeomGetBody(o2);
  if (!b1 && !b2) return;
  dContact contact[ODE_MAX_CONTACTS];
  int n = dCollide(o1, o2, ODE_MAX_CONTACTS, &contact[0].geom, sizeof(dContact));
  for (int k = 0; k < n; ++k) {
    contact[k].surface.mode = dContactApprox1;
    contact[k].surface.mu = e->scene->friction;
    contact[k].surface.bounce = 0;
    dJointID j = dJointCreateContact(e->world, e->contacts, &contact[k]);
    dJointAttach(j, b1, b2);
  }
}

static void ode_destroy(void *engine);

/* dCreateConvex's arrays for scene hull k: planes (n, d) with n·x = d, corners, and polygons as
 * (corner count, corner indices …) counter-clockwise from outside. */
static int ode_hull(ode_engine_t *e, int k) {
  const peers_hull_t *h = &e->scene->hulls[k];
  e->hull_planes[k] = malloc((size_t)h->face_count * 4 * sizeof(dReal));
  e->hull_points[k] = malloc((size_t)h->vertex_count * 3 * sizeof(dReal));
  e->hull_polygons[k] = malloc((size_t)(h->face_count + h->face_start[h->face_count]) * sizeof(unsigned));
  if (!e->hull_planes[k] || !e->hull_points[k] || !e->hull_polygons[k]) return -1;
  for (int f = 0; f < h->face_count; ++f)
    for (int c = 0; c < 4; ++c) e->hull_planes[k][4 * f + c] = (dReal)h->planes[f][c];
  for (int i = 0; i < h->vertex_count; ++i)
    for (int c = 0; c < 3; ++c) e->hull_points[k][3 * i + c] = (dReal)h->vertices[i][c];
  unsigned *out = e->hull_polygons[k];
  for (int f = 0; f < h->face_count; ++f) {
    *out++ = (unsigned)(h->face_start[f + 1] - h->face_start[f]);
    for (int a = h->face_start[f]; a < h->face_start[f + 1]; ++a) *out++ = (unsigned)h->face_vertices[a];
  }
  return 0;
}

static void *ode_create(const peers_scene_t *scene, const peers_options_t *options, char *why, size_t why_size) {
  if (!ode_initialized) {
    dInitODE2(0);
    ode_initialized = 1;
  }
  ode_engine_t *e = calloc(1, sizeof *e);
  if (!e) {
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  e->scene = scene;
  e->h = scene->time_step;
  e->world = dWorldCreate();
  dWorldSetGravity(e->world, scene->gravity[0], scene->gravity[1], scene->gravity[2]);
  dWorldSetQuickStepNumIterations(e->world, options->ode_iterations > 0 ? options->ode_iterations : 20);
  e->space = dHashSpaceCreate(0);
  dHashSpaceSetLevels(e->space, -5, 2); /* cells from 1/32 m (spheres of 0.1 m) to 4 m (1 m boxes) */
  e->contacts = dJointGroupCreate(0);
  e->bodies = calloc((size_t)scene->body_count, sizeof *e->bodies);
  int hulls = scene->hull_count > 0 ? scene->hull_count : 1;
  e->hull_planes = calloc((size_t)hulls, sizeof *e->hull_planes);
  e->hull_points = calloc((size_t)hulls, sizeof *e->hull_points);
  e->hull_polygons = calloc((size_t)hulls, sizeof *e->hull_polygons);
  if (!e->bodies || !e->hull_planes || !e->hull_points || !e->hull_polygons) {
    ode_destroy(e);
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  for (int p = 0; p < scene->plane_count; ++p) {
    const peers_plane_t *pl = &scene->planes[p];
    dCreatePlane(e->space, pl->normal[0], pl->normal[1], pl->normal[2], pl->offset);
  }
  for (int i = 0; i < scene->body_count; ++i) {
    const peers_body_t *b = &scene->bodies[i];
    dBodyID body = dBodyCreate(e->world);
    dMass mass;
    dMassSetZero(&mass);
    dMassSetParameters(&mass, b->mass, 0, 0, 0, b->inertia[0], b->inertia[1], b->inertia[2], 0, 0, 0);
    dBodySetMass(body, &mass);
    dBodySetPosition(body, b->position[0], b->position[1], b->position[2]);
    dQuaternion q = {b->orientation[0], b->orientation[1], b->orientation[2], b->orientation[3]};
    dBodySetQuaternion(body, q);
    dGeomID geom = NULL;
    if (b->shape == PEERS_SPHERE)
      geom = dCreateSphere(e->space, b->radius);
    else if (b->shape == PEERS_BOX)
      geom = dCreateBox(e->space, 2 * b->half[0], 2 * b->half[1], 2 * b->half[2]);
    else if (b->shape == PEERS_HULL) {
      int k = (int)(b->hull - scene->hulls);
      if (!e->hull_planes[k] && ode_hull(e, k) != 0) {
        ode_destroy(e);
        snprintf(why, why_size, "out of memory");
        return NULL;
      }
      geom = dCreateConvex(e->space, e->hull_planes[k], (unsigned)b->hull->face_count, e->hull_points[k],
                           (unsigned)b->hull->vertex_count, e->hull_polygons[k]);
    }
    if (geom) dGeomSetBody(geom, body);
    e->bodies[i] = body;
  }
  for (int k = 0; k < scene->joint_count; ++k) {
    const peers_joint_t *j = &scene->joints[k];
    if (j->fixed) { /* keeps the relative pose of the start */
      dJointID joint = dJointCreateFixed(e->world, 0);
      dJointAttach(joint, e->bodies[j->body_a], j->body_b >= 0 ? e->bodies[j->body_b] : 0);
      dJointSetFixed(joint);
      continue;
    }
    dJointID joint = dJointCreateBall(e->world, 0);
    dJointAttach(joint, e->bodies[j->body_a], j->body_b >= 0 ? e->bodies[j->body_b] : 0);
    /* ODE takes the anchor in world coordinates at the current (initial) pose. */
    dVector3 anchor;
    dBodyGetRelPointPos(e->bodies[j->body_a], j->anchor_a[0], j->anchor_a[1], j->anchor_a[2], anchor);
    dJointSetBallAnchor(joint, anchor[0], anchor[1], anchor[2]);
  }
  return e;
}

static int ode_step(void *engine, char *why, size_t why_size) {
  (void)why;
  (void)why_size;
  ode_engine_t *e = engine;
  dSpaceCollide(e->space, e, near_callback);
  dWorldQuickStep(e->world, e->h);
  dJointGroupEmpty(e->contacts);
  return 0;
}

static void ode_get_states(void *engine, peers_state_t *states) {
  ode_engine_t *e = engine;
  for (int i = 0; i < e->scene->body_count; ++i) {
    const dReal *p = dBodyGetPosition(e->bodies[i]), *q = dBodyGetQuaternion(e->bodies[i]);
    const dReal *v = dBodyGetLinearVel(e->bodies[i]), *w = dBodyGetAngularVel(e->bodies[i]);
    for (int k = 0; k < 3; ++k) {
      states[i].position[k] = p[k];
      states[i].velocity[k] = v[k];
      states[i].angular_velocity[k] = w[k]; /* ODE: world frame */
    }
    for (int k = 0; k < 4; ++k) states[i].orientation[k] = q[k];
  }
}

static void ode_destroy(void *engine) {
  ode_engine_t *e = engine;
  if (!e) return;
  if (e->contacts) dJointGroupDestroy(e->contacts);
  if (e->space) dSpaceDestroy(e->space);
  if (e->world) dWorldDestroy(e->world);
  for (int k = 0; k < e->scene->hull_count && e->hull_planes; ++k) {
    free(e->hull_planes[k]);
    free(e->hull_points[k]);
    free(e->hull_polygons[k]);
  }
  free(e->hull_planes);
  free(e->hull_points);
  free(e->hull_polygons);
  free(e->bodies);
  free(e);
}

static const char *ode_describe(void) {
  static char text[256];
  if (!ode_initialized) {
    dInitODE2(0);
    ode_initialized = 1;
  }
  snprintf(text, sizeof text,
           "ODE %s precision, dWorldQuickStep, 20 iterations, ERP 0.2 / CFM 1e-5 defaults, dContactApprox1 μ, "
           "hash space; polyhedra as dConvex (at most 8 contacts a pair)",
           dCheckConfiguration("ODE_double_precision") ? "double" : "single");
  return text;
}

const peers_engine_t peers_engine_ode = {"ode", ode_create, ode_step, NULL, ode_get_states, ode_destroy,
                                         ode_describe, NULL};
