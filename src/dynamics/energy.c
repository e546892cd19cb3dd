/* Energies and momentum of the current state (SPEC.md §7 diagnostics). Only dynamic bodies
 * carry energy and momentum (static and kinematic bodies have infinite mass). */
#include <math.h>
#include <string.h>

#include "dynamics/world_internal.h"
#include "math/vec.h"
#include "base/parallel.h"

/* Sums over the bodies in fixed blocks (their size depends only on the body count), the blocks in
 * parallel and their partial sums added in block order: the value does not depend on the number of
 * threads, and with one block it is the plain sum in body order. */
enum { ENERGY_BLOCK = 4096, ENERGY_MAX_BLOCKS = 1024 };

static int energy_blocks(int n, int *size) {
  int b = ENERGY_BLOCK;
  if ((n + b - 1) / b > ENERGY_MAX_BLOCKS) b = (n + ENERGY_MAX_BLOCKS - 1) / ENERGY_MAX_BLOCKS;
  *size = b;
  return n > 0 ? (n + b - 1) / b : 0;
}

static double body_kinetic_energy(const clt_world_t *world, int i) {
  const clt_body_rec_t *b = &world->bodies[i];
  if (b->type != CLT_BODY_DYNAMIC) return 0.0;
  const clt_body_state_t *s = &world->states[i];
  double e = b->mass * clt_v3_dot(s->velocity, s->velocity);
  if (world->dimension == 2) {
    e += b->inertia[0] * s->angular_velocity[0] * s->angular_velocity[0];
  } else {
    const double *w = s->angular_velocity;
    e += b->inertia[0] * w[0] * w[0] + b->inertia[1] * w[1] * w[1] + b->inertia[2] * w[2] * w[2];
  }
  return 0.5 * e;
}

static double body_potential_energy(const clt_world_t *world, int i) {
  const clt_body_rec_t *b = &world->bodies[i];
  if (b->type != CLT_BODY_DYNAMIC) return 0.0;
  return -(b->mass * clt_v3_dot(world->gravity, world->states[i].position)); /* −m g·x */
}

static double sum_bodies(const clt_world_t *world, double (*term)(const clt_world_t *, int)) {
  int size, blocks = energy_blocks(world->body_count, &size);
  double part[ENERGY_MAX_BLOCKS];
  CLT_PARALLEL_FOR_IF(blocks > 1, schedule(static),
  for (int k = 0; k < blocks; k++) {
    int i0 = k * size, i1 = i0 + size < world->body_count ? i0 + size : world->body_count;
    double sum = 0.0;
    for (int i = i0; i < i1; i++) sum += term(world, i);
    part[k] = sum;
  });
  double total = 0.0;
  for (int k = 0; k < blocks; k++) total += part[k];
  return total;
}

double clt_world_kinetic_energy(const clt_world_t *world) {
  return world ? sum_bodies(world, body_kinetic_energy) : NAN;
}

double clt_world_potential_energy(const clt_world_t *world) {
  if (!world) return NAN;
  return sum_bodies(world, body_potential_energy) + clt_forces_potential_energy(world);
}

void clt_world_momentum(const clt_world_t *world, double linear[3], double angular[3]) {
  if (!world) {
    if (linear) clt_v3_set(linear, NAN, NAN, NAN);
    if (angular) clt_v3_set(angular, NAN, NAN, NAN);
    return;
  }
  double p[3] = {0.0, 0.0, 0.0}, l[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < world->body_count; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    if (b->type != CLT_BODY_DYNAMIC) continue;
    const clt_body_state_t *s = &world->states[i];
    double mu[3], xmu[3];
    clt_v3_scale(mu, s->velocity, b->mass);
    clt_v3_add(p, p, mu);
    clt_v3_cross(xmu, s->position, mu);
    clt_v3_add(l, l, xmu);
    if (world->dimension == 2) {
      l[2] += b->inertia[0] * s->angular_velocity[0];
    } else {
      double jw[3] = {b->inertia[0] * s->angular_velocity[0], b->inertia[1] * s->angular_velocity[1],
                      b->inertia[2] * s->angular_velocity[2]};
      double jw_world[3];
      clt_q_rotate(jw_world, s->orientation, jw); /* spin part R J ω */
      clt_v3_add(l, l, jw_world);
    }
  }
  if (linear) clt_v3_copy(linear, p);
  if (angular) clt_v3_copy(angular, l);
}

void clt_world_state_changed(clt_world_t *world) {
  world->diagnostics_stale = true;
  world->diagnostics_stepped = false;
  world->divergence.valid = false; /* a new reference for the energy test (stage_diverge.c) */
}
