/* bench/peers scenes (README.md gives every parameter) and the engine-neutral measurements. */
#include "peers.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PILE_RADIUS 0.05
#define PILE_SPACING 0.12 /* loose grid: 2.4 r between centres */
#define PILE_PER_SIDE 8   /* 8 × 8 spheres per layer */
#define PILE_JITTER 0.005 /* ± in x and y, breaks the grid's symmetry */
#define PILE_BOTTOM 0.07  /* centre height of the first layer (gap 2 cm above the floor) */
#define DENSITY 1000.0
#define FRICTION 0.5
#define GRAVITY 9.81

static void scene_init(peers_scene_t *s, peers_scene_kind_t kind, double h) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->time_step = h;
  s->gravity[2] = -GRAVITY;
  s->friction = FRICTION;
  s->restitution = 0.0;
  s->density = DENSITY;
}

static void add_plane(peers_scene_t *s, double nx, double ny, double nz, double offset) {
  peers_plane_t *p = &s->planes[s->plane_count++];
  p->normal[0] = nx;
  p->normal[1] = ny;
  p->normal[2] = nz;
  p->offset = offset;
}

static void box_body(peers_body_t *b, double hx, double hy, double hz, double density) {
  memset(b, 0, sizeof *b);
  b->shape = PEERS_BOX;
  b->half[0] = hx;
  b->half[1] = hy;
  b->half[2] = hz;
  b->orientation[0] = 1.0;
  b->mass = density * 8.0 * hx * hy * hz;
  double a = 2 * hx, c = 2 * hy, d = 2 * hz;
  b->inertia[0] = b->mass * (c * c + d * d) / 12.0;
  b->inertia[1] = b->mass * (a * a + d * d) / 12.0;
  b->inertia[2] = b->mass * (a * a + c * c) / 12.0;
}

/* xorshift64*: a fixed, portable jitter so every engine starts from the same grid. */
static double jitter(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  uint64_t r = x * UINT64_C(2685821657736338717);
  return (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [−1, 1) */
}

static int pile_layers(int n) { return (n + PILE_PER_SIDE * PILE_PER_SIDE - 1) / (PILE_PER_SIDE * PILE_PER_SIDE); }

double peers_pile_default_duration(int n) {
  double top = PILE_BOTTOM + (pile_layers(n) - 1) * PILE_SPACING;
  double t = sqrt(2.0 * top / GRAVITY) + 3.0;
  return t < 5.0 ? 5.0 : t;
}

int peers_scene_pile(peers_scene_t *s, int n, double duration) {
  scene_init(s, PEERS_PILE, 0.01);
  snprintf(s->name, sizeof s->name, "pile%d", n);
  if (duration <= 0) duration = peers_pile_default_duration(n);
  s->steps = (int)lround(duration / s->time_step);
  s->needs_contacts = true;
  /* 1 m × 1 m box: floor z = 0 and four walls, as half-spaces (walls of unbounded height). */
  add_plane(s, 0, 0, 1, 0.0);
  add_plane(s, 1, 0, 0, -0.5);
  add_plane(s, -1, 0, 0, -0.5);
  add_plane(s, 0, 1, 0, -0.5);
  add_plane(s, 0, -1, 0, -0.5);
  s->bodies = calloc((size_t)n, sizeof *s->bodies);
  if (!s->bodies) return -1;
  s->body_count = n;
  uint64_t seed = UINT64_C(0x9E3779B97F4A7C15);
  double mass = DENSITY * 4.0 / 3.0 * 3.14159265358979323846 * PILE_RADIUS * PILE_RADIUS * PILE_RADIUS;
  double inertia = 0.4 * mass * PILE_RADIUS * PILE_RADIUS;
  double first = -0.5 * (PILE_PER_SIDE - 1) * PILE_SPACING;
  for (int i = 0; i < n; ++i) {
    int layer = i / (PILE_PER_SIDE * PILE_PER_SIDE), k = i % (PILE_PER_SIDE * PILE_PER_SIDE);
    peers_body_t *b = &s->bodies[i];
    b->shape = PEERS_SPHERE;
    b->radius = PILE_RADIUS;
    b->position[0] = first + (k % PILE_PER_SIDE) * PILE_SPACING + PILE_JITTER * jitter(&seed);
    b->position[1] = first + (k / PILE_PER_SIDE) * PILE_SPACING + PILE_JITTER * jitter(&seed);
    b->position[2] = PILE_BOTTOM + layer * PILE_SPACING;
    b->orientation[0] = 1.0;
    b->mass = mass;
    b->inertia[0] = b->inertia[1] = b->inertia[2] = inertia;
  }
  return 0;
}

/* A column of n unit cubes exactly on top of one another (touching, aligned) on the floor z ≥ 0. */
static int cube_column(peers_scene_t *s, peers_scene_kind_t kind, int n, double duration, double default_duration) {
  scene_init(s, kind, 0.01);
  snprintf(s->name, sizeof s->name, "%s%d", kind == PEERS_TOWER ? "tower" : "stack", n);
  if (duration <= 0) duration = default_duration;
  s->steps = (int)lround(duration / s->time_step);
  s->needs_contacts = true;
  add_plane(s, 0, 0, 1, 0.0);
  s->bodies = calloc((size_t)n, sizeof *s->bodies);
  if (!s->bodies) return -1;
  s->body_count = n;
  for (int i = 0; i < n; ++i) {
    box_body(&s->bodies[i], 0.5, 0.5, 0.5, DENSITY);
    s->bodies[i].position[2] = 0.5 + i; /* exactly touching, perfectly aligned */
  }
  return 0;
}

int peers_scene_stack(peers_scene_t *s, double duration) { return cube_column(s, PEERS_STACK, 10, duration, 5.0); }

/* Issue [trust]: the 3D tower of 20 unit cubes, clatter with its default method (README.md). */
int peers_scene_tower(peers_scene_t *s, double duration) { return cube_column(s, PEERS_TOWER, 20, duration, 10.0); }

/* n links of length 2 hx along x from the world origin (half extents hx, hy, hy; density 1000; no
 * geometry), link 0's end (−hx, 0, 0) on the world origin, link i's end to link i−1's (+hx, 0, 0). */
static int link_row(peers_scene_t *s, peers_scene_kind_t kind, const char *name, double h, double duration, int n,
                    double hx, double hy, bool fixed) {
  scene_init(s, kind, h);
  snprintf(s->name, sizeof s->name, "%s", name);
  s->steps = (int)lround(duration / s->time_step);
  s->bodies = calloc((size_t)n, sizeof *s->bodies);
  s->joints = calloc((size_t)n, sizeof *s->joints);
  if (!s->bodies || !s->joints) return -1;
  s->body_count = n;
  s->joint_count = n;
  for (int i = 0; i < n; ++i) {
    box_body(&s->bodies[i], hx, hy, hy, DENSITY);
    s->bodies[i].shape = PEERS_NONE;
    s->bodies[i].position[0] = hx + 2 * hx * i;
    peers_joint_t *j = &s->joints[i];
    j->body_a = i;
    j->anchor_a[0] = -hx;
    j->body_b = i - 1; /* −1: the first link is pinned to the world at the origin */
    j->anchor_b[0] = i == 0 ? 0.0 : hx;
    j->fixed = fixed;
  }
  return 0;
}

/* chain6: six 100 × 10 × 10 mm rods on ball joints, horizontal at t = 0. */
int peers_scene_chain(peers_scene_t *s, double duration) {
  return link_row(s, PEERS_CHAIN, "chain6", 0.001, duration > 0 ? duration : 0.6, 6, 0.05, 0.005, false);
}

/* Issue [actuation]: a horizontal cantilever of 10 links (100 × 20 × 20 mm rods) welded end to end
 * by fixed joints, the last 100 times heavier (same size, 100× mass and inertia): the rigid answer
 * is that nothing moves. */
int peers_scene_cantilever(peers_scene_t *s, double duration) {
  if (link_row(s, PEERS_CANTILEVER, "cantilever10", 0.01, duration > 0 ? duration : 2.0, 10, 0.05, 0.01, true) != 0)
    return -1;
  peers_body_t *tip = &s->bodies[s->body_count - 1];
  tip->mass *= 100.0;
  for (int k = 0; k < 3; ++k) tip->inertia[k] *= 100.0;
  return 0;
}

void peers_scene_free(peers_scene_t *s) {
  free(s->bodies);
  free(s->joints);
  s->bodies = NULL;
  s->joints = NULL;
}

/* ---- measurements ---- */

void peers_quat_rotate(const double q[4], const double v[3], double out[3]) {
  /* v' = v + 2w (u × v) + 2 u × (u × v), u = (x, y, z) */
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double tx = 2 * (y * v[2] - z * v[1]);
  double ty = 2 * (z * v[0] - x * v[2]);
  double tz = 2 * (x * v[1] - y * v[0]);
  out[0] = v[0] + w * tx + (y * tz - z * ty);
  out[1] = v[1] + w * ty + (z * tx - x * tz);
  out[2] = v[2] + w * tz + (x * ty - y * tx);
}

static void quat_rotate_inverse(const double q[4], const double v[3], double out[3]) {
  double c[4] = {q[0], -q[1], -q[2], -q[3]};
  peers_quat_rotate(c, v, out);
}

/* World axes (columns of R) of a state, normalized against engines' quaternion drift. */
static void state_axes(const peers_state_t *s, double axes[3][3]) {
  double q[4], n = 0;
  for (int k = 0; k < 4; ++k) n += s->orientation[k] * s->orientation[k];
  n = sqrt(n);
  for (int k = 0; k < 4; ++k) q[k] = s->orientation[k] / n;
  for (int a = 0; a < 3; ++a) {
    double e[3] = {0, 0, 0};
    e[a] = 1;
    peers_quat_rotate(q, e, axes[a]);
  }
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Lowest signed distance of a box's vertices to a plane. */
static double box_plane_distance(const peers_body_t *b, const peers_state_t *s, const peers_plane_t *p) {
  double axes[3][3];
  state_axes(s, axes);
  double centre = dot3(p->normal, s->position) - p->offset;
  double reach = 0;
  for (int a = 0; a < 3; ++a) reach += b->half[a] * fabs(dot3(p->normal, axes[a]));
  return centre - reach;
}

/* Penetration depth of two boxes by the separating-axis test: for convex polyhedra the minimum
 * translation distance lies along a face normal or an edge–edge cross product, so the smallest
 * overlap over the 15 axes is the exact depth (0 if some axis separates). */
static double box_box_penetration(const peers_body_t *ba, const peers_state_t *sa,
                                  const peers_body_t *bb, const peers_state_t *sb) {
  double A[3][3], B[3][3], d[3];
  state_axes(sa, A);
  state_axes(sb, B);
  for (int k = 0; k < 3; ++k) d[k] = sb->position[k] - sa->position[k];
  double depth = INFINITY;
  double axes[15][3];
  int count = 0;
  for (int i = 0; i < 3; ++i) {
    memcpy(axes[count++], A[i], sizeof A[i]);
    memcpy(axes[count++], B[i], sizeof B[i]);
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double *c = axes[count];
      c[0] = A[i][1] * B[j][2] - A[i][2] * B[j][1];
      c[1] = A[i][2] * B[j][0] - A[i][0] * B[j][2];
      c[2] = A[i][0] * B[j][1] - A[i][1] * B[j][0];
      double n = sqrt(dot3(c, c));
      if (n < 1e-9) continue; /* parallel edges: covered by the face axes */
      for (int k = 0; k < 3; ++k) c[k] /= n;
      ++count;
    }
  for (int k = 0; k < count; ++k) {
    double ra = 0, rb = 0;
    for (int a = 0; a < 3; ++a) {
      ra += ba->half[a] * fabs(dot3(axes[k], A[a]));
      rb += bb->half[a] * fabs(dot3(axes[k], B[a]));
    }
    double overlap = ra + rb - fabs(dot3(axes[k], d));
    if (overlap <= 0) return 0.0;
    if (overlap < depth) depth = overlap;
  }
  return depth;
}

/* Sphere–sphere overlaps through a hashed uniform grid of cell size 2 r_max (linear in N). */
static double sphere_pairs_penetration(const peers_scene_t *scene, const peers_state_t *states) {
  int n = scene->body_count, spheres = 0;
  double rmax = 0;
  for (int i = 0; i < n; ++i)
    if (scene->bodies[i].shape == PEERS_SPHERE) {
      ++spheres;
      if (scene->bodies[i].radius > rmax) rmax = scene->bodies[i].radius;
    }
  if (spheres < 2) return 0.0;
  size_t table = 1;
  while (table < 2 * (size_t)spheres) table <<= 1;
  int *head = malloc(table * sizeof *head);
  int *next = malloc((size_t)n * sizeof *next);
  long (*cell)[3] = malloc((size_t)n * sizeof *cell);
  if (!head || !next || !cell) {
    free(head);
    free(next);
    free(cell);
    return NAN;
  }
  for (size_t k = 0; k < table; ++k) head[k] = -1;
  double size = 2 * rmax;
#define CELL_HASH(cx, cy, cz)                                                                     \
  ((size_t)(((uint64_t)(cx) * UINT64_C(73856093)) ^ ((uint64_t)(cy) * UINT64_C(19349663)) ^      \
            ((uint64_t)(cz) * UINT64_C(83492791))) & (table - 1))
  for (int i = 0; i < n; ++i) {
    if (scene->bodies[i].shape != PEERS_SPHERE) continue;
    for (int k = 0; k < 3; ++k) cell[i][k] = (long)floor(states[i].position[k] / size);
    size_t hsh = CELL_HASH(cell[i][0], cell[i][1], cell[i][2]);
    next[i] = head[hsh];
    head[hsh] = i;
  }
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    if (scene->bodies[i].shape != PEERS_SPHERE) continue;
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          long cx = cell[i][0] + dx, cy = cell[i][1] + dy, cz = cell[i][2] + dz;
          for (int j = head[CELL_HASH(cx, cy, cz)]; j >= 0; j = next[j]) {
            if (j <= i || cell[j][0] != cx || cell[j][1] != cy || cell[j][2] != cz) continue;
            double d[3];
            for (int k = 0; k < 3; ++k) d[k] = states[j].position[k] - states[i].position[k];
            double pen = scene->bodies[i].radius + scene->bodies[j].radius - sqrt(dot3(d, d));
            if (pen > worst) worst = pen;
          }
        }
  }
#undef CELL_HASH
  free(head);
  free(next);
  free(cell);
  return worst;
}

double peers_max_penetration(const peers_scene_t *scene, const peers_state_t *states) {
  double worst = 0;
  for (int i = 0; i < scene->body_count; ++i) {
    const peers_body_t *b = &scene->bodies[i];
    for (int p = 0; p < scene->plane_count; ++p) {
      const peers_plane_t *pl = &scene->planes[p];
      double dist;
      if (b->shape == PEERS_SPHERE)
        dist = dot3(pl->normal, states[i].position) - pl->offset - b->radius;
      else if (b->shape == PEERS_BOX)
        dist = box_plane_distance(b, &states[i], pl);
      else
        continue;
      if (-dist > worst) worst = -dist;
    }
  }
  double spheres = sphere_pairs_penetration(scene, states);
  if (!(spheres <= worst)) worst = spheres; /* NaN propagates */
  /* Boxes: all pairs (the stack has 10, the tower 20). */
  for (int i = 0; i < scene->body_count; ++i) {
    if (scene->bodies[i].shape != PEERS_BOX) continue;
    for (int j = i + 1; j < scene->body_count; ++j) {
      if (scene->bodies[j].shape != PEERS_BOX) continue;
      double pen = box_box_penetration(&scene->bodies[i], &states[i], &scene->bodies[j], &states[j]);
      if (pen > worst) worst = pen;
    }
  }
  return worst;
}

double peers_max_joint_error(const peers_scene_t *scene, const peers_state_t *states) {
  double worst = 0;
  for (int k = 0; k < scene->joint_count; ++k) {
    const peers_joint_t *j = &scene->joints[k];
    double pa[3], pb[3];
    peers_quat_rotate(states[j->body_a].orientation, j->anchor_a, pa);
    for (int c = 0; c < 3; ++c) pa[c] += states[j->body_a].position[c];
    if (j->body_b < 0) {
      memcpy(pb, j->anchor_b, sizeof pb);
    } else {
      peers_quat_rotate(states[j->body_b].orientation, j->anchor_b, pb);
      for (int c = 0; c < 3; ++c) pb[c] += states[j->body_b].position[c];
    }
    double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
    double e = sqrt(dot3(d, d));
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

double peers_kinetic_energy_split(const peers_scene_t *scene, const peers_state_t *states, double *rotational) {
  double ke = 0, rot = 0;
  for (int i = 0; i < scene->body_count; ++i) {
    const peers_body_t *b = &scene->bodies[i];
    double w[3];
    quat_rotate_inverse(states[i].orientation, states[i].angular_velocity, w);
    ke += 0.5 * b->mass * dot3(states[i].velocity, states[i].velocity);
    rot += 0.5 * (b->inertia[0] * w[0] * w[0] + b->inertia[1] * w[1] * w[1] + b->inertia[2] * w[2] * w[2]);
  }
  if (rotational) *rotational = rot;
  return ke + rot;
}

double peers_kinetic_energy(const peers_scene_t *scene, const peers_state_t *states) {
  return peers_kinetic_energy_split(scene, states, NULL);
}
