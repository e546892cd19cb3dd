/* A frame by hand for the tests of src/analysis: a simple cubic lattice of n³ touching spheres
 * (radius 0.5, centres at the integer points 0 … n−1), on a static floor body at z = −0.5, with
 * a touching contact between every pair of neighbours and with the floor, a second contact row
 * for some pairs (two points: still one partner), and a candidate row (touching 0) between every
 * pair of diagonal neighbours in a layer. Room is left for extra bodies and contacts. */
#ifndef CLATTER_TESTS_LATTICE_H
#define CLATTER_TESTS_LATTICE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/analysis.h"

#define LATTICE_MAX_BODIES 4096
#define LATTICE_MAX_CONTACTS 32768

typedef struct lattice_t {
  int n;     /* spheres per side */
  int floor; /* the floor's body row */
  double position[LATTICE_MAX_BODIES][3], velocity[LATTICE_MAX_BODIES][3];
  double mass[LATTICE_MAX_BODIES], radius[LATTICE_MAX_BODIES], volume[LATTICE_MAX_BODIES];
  int type[LATTICE_MAX_BODIES];
  int32_t a[LATTICE_MAX_CONTACTS], b[LATTICE_MAX_CONTACTS];
  double point[LATTICE_MAX_CONTACTS][3], normal[LATTICE_MAX_CONTACTS][3], force[LATTICE_MAX_CONTACTS][3];
  uint8_t touching[LATTICE_MAX_CONTACTS];
  int bodies;
  int64_t contacts;
} lattice_t;

static inline int lattice_index(const lattice_t *l, int i, int j, int k) { return (k * l->n + j) * l->n + i; }

static inline int lattice_body(lattice_t *l, const double p[3], double radius, int type) {
  int b = l->bodies++;
  memcpy(l->position[b], p, sizeof l->position[b]);
  memset(l->velocity[b], 0, sizeof l->velocity[b]);
  l->radius[b] = radius;
  l->volume[b] = radius > 0 ? 4.0 / 3.0 * 3.14159265358979323846 * radius * radius * radius : 0;
  l->mass[b] = type == CLT_BODY_DYNAMIC ? 1000 * l->volume[b] : INFINITY;
  l->type[b] = type;
  return b;
}

/* A contact from a to b at point with force magnitude f along the normal from a to b. */
static inline void lattice_contact(lattice_t *l, int a, int b, const double point[3], const double normal[3], double f,
                                   int touching) {
  int64_t c = l->contacts++;
  l->a[c] = a;
  l->b[c] = b;
  for (int k = 0; k < 3; k++) {
    l->point[c][k] = point[k];
    l->normal[c][k] = normal[k];
    l->force[c][k] = f * normal[k];
  }
  l->touching[c] = (uint8_t)touching;
}

/* The contact between two bodies at the midpoint of their centres. */
static inline void lattice_pair(lattice_t *l, int a, int b, double f, int touching) {
  double p[3], n[3], d = 0;
  for (int k = 0; k < 3; k++) {
    p[k] = 0.5 * (l->position[a][k] + l->position[b][k]);
    n[k] = l->position[b][k] - l->position[a][k];
    d += n[k] * n[k];
  }
  for (int k = 0; k < 3; k++) n[k] /= sqrt(d);
  lattice_contact(l, a, b, p, n, f, touching);
}

static inline void lattice_build(lattice_t *l, int n) {
  memset(l, 0, sizeof *l);
  l->n = n;
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) lattice_body(l, (double[3]){i, j, k}, 0.5, CLT_BODY_DYNAMIC);
  l->floor = lattice_body(l, (double[3]){0, 0, -0.5}, 0, CLT_BODY_STATIC);
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        int s = lattice_index(l, i, j, k);
        if (i + 1 < n) lattice_pair(l, s, lattice_index(l, i + 1, j, k), 1, 1);
        if (j + 1 < n) lattice_pair(l, s, lattice_index(l, i, j + 1, k), 1, 1);
        if (k + 1 < n) lattice_pair(l, s, lattice_index(l, i, j, k + 1), 1, 1);
        if (i + 1 < n && j + 1 < n) lattice_pair(l, s, lattice_index(l, i + 1, j + 1, k), 0, 0);
        if ((i + j + k) % 3 == 0 && i + 1 < n) lattice_pair(l, s, lattice_index(l, i + 1, j, k), 1, 1);
        if (k == 0) lattice_contact(l, l->floor, s, (double[3]){i, j, -0.5}, (double[3]){0, 0, 1}, 1, 1);
      }
}

static inline clt_analysis_frame_t lattice_frame(lattice_t *l) {
  clt_analysis_frame_t f;
  memset(&f, 0, sizeof f);
  f.dimension = 3;
  f.gravity[2] = -9.81;
  f.body_count = l->bodies;
  f.position = &l->position[0][0];
  f.velocity = &l->velocity[0][0];
  f.mass = l->mass;
  f.body_type = l->type;
  f.radius = l->radius;
  f.volume = l->volume;
  f.contact_count = l->contacts;
  f.contact_body_a = l->a;
  f.contact_body_b = l->b;
  f.contact_point = &l->point[0][0];
  f.contact_normal = &l->normal[0][0];
  f.contact_force = &l->force[0][0];
  f.contact_touching = l->touching;
  return f;
}

#endif
