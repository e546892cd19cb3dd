/* bench/peers: Bullet (Debian libbullet-dev, single precision). btDiscreteDynamicsWorld with the
 * default sequential-impulse solver, default collision configuration and dbvt broadphase; one
 * stepSimulation(h, 0) per step (maxSubSteps 0: exactly one step of h). Bullet multiplies the two
 * bodies' friction coefficients, so every body and plane gets √μ to make each pair's μ = 0.5.
 * Deactivation (sleeping) is Bullet's default and stays on unless --bullet-no-sleep. */
#include "peers.h"

#include <btBulletDynamicsCommon.h>
#include <LinearMath/btGeometryUtil.h>
#include <LinearMath/btScalar.h>

#include <cmath>
#include <cstdio>
#include <new>
#include <vector>

namespace {

/* A polyhedron as Bullet recommends: the hull shrunk by its collision margin (every face plane moved
 * in by the margin, the corners recomputed from the planes), so that hull + margin is the solid with
 * its edges rounded by the margin instead of a solid inflated by it. Margin: Bullet's default 0.04 m,
 * at most a tenth of the inradius (the pile's grains are 5 cm). */
btConvexHullShape *shrunk_hull(const peers_hull_t *h) {
  btScalar margin = btScalar(std::fmin(0.04, 0.1 * h->inradius));
  btAlignedObjectArray<btVector3> planes, corners;
  for (int f = 0; f < h->face_count; ++f)
    planes.push_back(btVector3(h->planes[f][0], h->planes[f][1], h->planes[f][2]));
  for (int f = 0; f < h->face_count; ++f) planes[f][3] = btScalar(-h->planes[f][3]) + margin; /* n·x + d ≤ 0 inside */
  btGeometryUtil::getVerticesFromPlaneEquations(planes, corners);
  btConvexHullShape *shape = new btConvexHullShape(&corners[0][0], corners.size(), sizeof(btVector3));
  shape->setMargin(margin);
  return shape;
}

struct BulletEngine {
  const peers_scene_t *scene = nullptr;
  btDefaultCollisionConfiguration *config = nullptr;
  btCollisionDispatcher *dispatcher = nullptr;
  btDbvtBroadphase *broadphase = nullptr;
  btSequentialImpulseConstraintSolver *solver = nullptr;
  btDiscreteDynamicsWorld *world = nullptr;
  std::vector<btCollisionShape *> shapes;
  std::vector<btRigidBody *> statics;
  std::vector<btRigidBody *> bodies;
  std::vector<btTypedConstraint *> joints;
  double h = 0;

  ~BulletEngine() {
    for (btTypedConstraint *c : joints) {
      world->removeConstraint(c);
      delete c;
    }
    for (btRigidBody *b : bodies) {
      world->removeRigidBody(b);
      delete b->getMotionState();
      delete b;
    }
    for (btRigidBody *b : statics) {
      world->removeRigidBody(b);
      delete b->getMotionState();
      delete b;
    }
    for (btCollisionShape *s : shapes) delete s;
    delete world;
    delete solver;
    delete broadphase;
    delete dispatcher;
    delete config;
  }
};

void *bullet_create(const peers_scene_t *scene, const peers_options_t *options, char *why, size_t why_size) {
  BulletEngine *e = new (std::nothrow) BulletEngine;
  if (!e) {
    std::snprintf(why, why_size, "out of memory");
    return nullptr;
  }
  e->scene = scene;
  e->h = scene->time_step;
  e->config = new btDefaultCollisionConfiguration();
  e->dispatcher = new btCollisionDispatcher(e->config);
  e->broadphase = new btDbvtBroadphase();
  e->solver = new btSequentialImpulseConstraintSolver();
  e->world = new btDiscreteDynamicsWorld(e->dispatcher, e->broadphase, e->solver, e->config);
  e->world->setGravity(btVector3(scene->gravity[0], scene->gravity[1], scene->gravity[2]));
  const btScalar friction = btScalar(std::sqrt(scene->friction));

  for (int p = 0; p < scene->plane_count; ++p) {
    const peers_plane_t *pl = &scene->planes[p];
    btCollisionShape *shape =
        new btStaticPlaneShape(btVector3(pl->normal[0], pl->normal[1], pl->normal[2]), btScalar(pl->offset));
    e->shapes.push_back(shape);
    btRigidBody::btRigidBodyConstructionInfo info(0, new btDefaultMotionState(), shape);
    info.m_friction = friction;
    info.m_restitution = 0;
    btRigidBody *body = new btRigidBody(info);
    e->world->addRigidBody(body);
    e->statics.push_back(body);
  }
  /* Shapes shared between bodies of equal geometry (all spheres, all boxes of a scene are equal). */
  btCollisionShape *sphere = nullptr, *box = nullptr, *empty = nullptr;
  std::vector<btCollisionShape *> hulls(scene->hull_count, nullptr);
  for (int i = 0; i < scene->body_count; ++i) {
    const peers_body_t *b = &scene->bodies[i];
    btCollisionShape *shape;
    if (b->shape == PEERS_SPHERE) {
      if (!sphere) e->shapes.push_back(sphere = new btSphereShape(btScalar(b->radius)));
      shape = sphere;
    } else if (b->shape == PEERS_BOX) {
      if (!box) e->shapes.push_back(box = new btBoxShape(btVector3(b->half[0], b->half[1], b->half[2])));
      shape = box;
    } else if (b->shape == PEERS_HULL) {
      size_t k = size_t(b->hull - scene->hulls);
      if (!hulls[k]) e->shapes.push_back(hulls[k] = shrunk_hull(b->hull));
      shape = hulls[k];
    } else {
      if (!empty) e->shapes.push_back(empty = new btEmptyShape());
      shape = empty;
    }
    btTransform start;
    start.setOrigin(btVector3(b->position[0], b->position[1], b->position[2]));
    start.setRotation(btQuaternion(b->orientation[1], b->orientation[2], b->orientation[3], b->orientation[0]));
    btRigidBody::btRigidBodyConstructionInfo info(btScalar(b->mass), new btDefaultMotionState(start), shape,
                                                  btVector3(b->inertia[0], b->inertia[1], b->inertia[2]));
    info.m_friction = friction;
    info.m_restitution = 0;
    btRigidBody *body = new btRigidBody(info);
    if (options->bullet_no_sleep) body->setActivationState(DISABLE_DEACTIVATION);
    if (b->shape == PEERS_NONE) {
      /* No geometry: take it out of every collision pair. */
      e->world->addRigidBody(body, 0, 0);
    } else {
      e->world->addRigidBody(body);
    }
    e->bodies.push_back(body);
  }
  for (int k = 0; k < scene->joint_count; ++k) {
    const peers_joint_t *j = &scene->joints[k];
    btVector3 pa(j->anchor_a[0], j->anchor_a[1], j->anchor_a[2]);
    btVector3 pb(j->anchor_b[0], j->anchor_b[1], j->anchor_b[2]);
    btTypedConstraint *c;
    if (j->fixed) { /* frames at the anchors with the bodies' initial (identity) orientations */
      btTransform fa, fb;
      fa.setIdentity();
      fb.setIdentity();
      fa.setOrigin(pa);
      fb.setOrigin(pb);
      c = new btFixedConstraint(*e->bodies[j->body_a], j->body_b >= 0 ? *e->bodies[j->body_b] : btTypedConstraint::getFixedBody(),
                                fa, fb);
    } else if (j->body_b >= 0) {
      c = new btPoint2PointConstraint(*e->bodies[j->body_a], *e->bodies[j->body_b], pa, pb);
    } else {
      c = new btPoint2PointConstraint(*e->bodies[j->body_a], pa); /* pinned at its current world point */
    }
    e->world->addConstraint(c, true);
    e->joints.push_back(c);
  }
  return e;
}

int bullet_step(void *engine, char *, size_t) {
  BulletEngine *e = static_cast<BulletEngine *>(engine);
  e->world->stepSimulation(btScalar(e->h), 0);
  return 0;
}

void bullet_get_states(void *engine, peers_state_t *states) {
  BulletEngine *e = static_cast<BulletEngine *>(engine);
  for (size_t i = 0; i < e->bodies.size(); ++i) {
    const btRigidBody *b = e->bodies[i];
    const btTransform &t = b->getCenterOfMassTransform();
    btQuaternion q = t.getRotation();
    const btVector3 &p = t.getOrigin(), &v = b->getLinearVelocity(), &w = b->getAngularVelocity();
    for (int k = 0; k < 3; ++k) {
      states[i].position[k] = p[k];
      states[i].velocity[k] = v[k];
      states[i].angular_velocity[k] = w[k]; /* Bullet: world frame */
    }
    states[i].orientation[0] = q.w();
    states[i].orientation[1] = q.x();
    states[i].orientation[2] = q.y();
    states[i].orientation[3] = q.z();
  }
}

void bullet_destroy(void *engine) { delete static_cast<BulletEngine *>(engine); }

const char *bullet_describe(void) {
  static char text[256];
  std::snprintf(text, sizeof text,
                "Bullet %d (%s precision), btDiscreteDynamicsWorld, btSequentialImpulseConstraintSolver defaults "
                "(10 iterations), friction combined as a product (√μ per body); polyhedra as btConvexHullShape shrunk by "
                "its margin (min(0.04 m, inradius / 10))",
                btGetVersion(), sizeof(btScalar) == 8 ? "double" : "single");
  return text;
}

} // namespace

extern "C" const peers_engine_t peers_engine_bullet = {"bullet",       bullet_create,     bullet_step, nullptr,
                                                        bullet_get_states, bullet_destroy, bullet_describe, nullptr};
