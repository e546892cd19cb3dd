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

static void hull_free(peers_hull_t *h) {
  free(h->vertices);
  free(h->face_start);
  free(h->face_vertices);
  free(h->planes);
  free(h->edges);
  memset(h, 0, sizeof *h);
}

void peers_scene_free(peers_scene_t *s) {
  for (int k = 0; k < s->hull_count; ++k) hull_free(&s->hulls[k]);
  free(s->hulls);
  free(s->bodies);
  free(s->joints);
  s->hulls = NULL;
  s->hull_count = 0;
  s->bodies = NULL;
  s->joints = NULL;
}

/* ---- convex polyhedra (independent of every engine: a brute-force hull of a few points) ---- */

static double dot3(const double a[3], const double b[3]);

static void cross3(const double a[3], const double b[3], double out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Eigen-decomposition of a symmetric 3 × 3 matrix by cyclic Jacobi rotations: a = V diag(w) Vᵀ,
 * the columns of V the eigenvectors (a diagonal matrix gives V = 1). */
static void jacobi3(const double a_in[3][3], double w[3], double v[3][3]) {
  double a[3][3];
  memcpy(a, a_in, sizeof a);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) v[i][j] = i == j;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
    double scale = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
    if (off <= 1e-15 * scale) break;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        if (a[p][q] == 0.0) continue;
        double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), sn = t * c;
        for (int k = 0; k < 3; ++k) { /* a ← a J (columns p, q) */
          double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - sn * akq;
          a[k][q] = sn * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) { /* a ← Jᵀ a (rows p, q) */
          double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - sn * aqk;
          a[q][k] = sn * apk + c * aqk;
        }
        for (int k = 0; k < 3; ++k) {
          double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - sn * vkq;
          v[k][q] = sn * vkp + c * vkq;
        }
      }
  }
  for (int k = 0; k < 3; ++k) w[k] = a[k][k];
}

/* The hull of n points (every point must be a corner: points on a strictly convex surface, or a
 * prism's corners), re-expressed in its principal frame; the body gets the solid's mass and
 * principal moments at the given density. Brute force over point triples: n is a few dozen. */
static int hull_build(peers_hull_t *h, const double (*p)[3], int n, double density, peers_body_t *body) {
  memset(h, 0, sizeof *h);
  double size = 0;
  for (int i = 0; i < n; ++i) size = fmax(size, sqrt(dot3(p[i], p[i])));
  double eps = 1e-9 * size;
  int cap = 2 * n, count = 0; /* a polyhedron with n corners has at most 2n − 4 faces */
  double (*plane)[4] = malloc((size_t)cap * sizeof *plane);
  int *on = malloc((size_t)cap * (size_t)n * sizeof *on), *on_count = calloc((size_t)cap, sizeof *on_count);
  if (!plane || !on || !on_count) goto fail;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int k = j + 1; k < n; ++k) {
        double e1[3], e2[3], nrm[3];
        for (int c = 0; c < 3; ++c) {
          e1[c] = p[j][c] - p[i][c];
          e2[c] = p[k][c] - p[i][c];
        }
        cross3(e1, e2, nrm);
        double len = sqrt(dot3(nrm, nrm));
        if (len < 1e-12 * size * size) continue;
        for (int c = 0; c < 3; ++c) nrm[c] /= len;
        double d = dot3(nrm, p[i]);
        int above = 0, below = 0;
        for (int m = 0; m < n; ++m) {
          double sd = dot3(nrm, p[m]) - d;
          above += sd > eps;
          below += sd < -eps;
        }
        if (above && below) continue;
        if (above) { /* outward: every point on the negative side */
          for (int c = 0; c < 3; ++c) nrm[c] = -nrm[c];
          d = -d;
        }
        int seen = 0;
        for (int f = 0; f < count && !seen; ++f)
          seen = fabs(plane[f][0] - nrm[0]) + fabs(plane[f][1] - nrm[1]) + fabs(plane[f][2] - nrm[2]) < 1e-9 &&
                 fabs(plane[f][3] - d) < eps;
        if (seen) continue;
        if (count == cap) goto fail;
        memcpy(plane[count], nrm, sizeof nrm);
        plane[count][3] = d;
        ++count;
      }
  /* Each face's corners, counter-clockwise about its outward normal. */
  for (int f = 0; f < count; ++f) {
    int *list = on + (size_t)f * (size_t)n, m = 0;
    double centre[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i)
      if (fabs(dot3(plane[f], p[i]) - plane[f][3]) <= eps) {
        list[m++] = i;
        for (int c = 0; c < 3; ++c) centre[c] += p[i][c];
      }
    for (int c = 0; c < 3; ++c) centre[c] /= m;
    double u[3], v[3], angle[64];
    for (int c = 0; c < 3; ++c) u[c] = p[list[0]][c] - centre[c];
    cross3(plane[f], u, v);
    for (int a = 0; a < m && a < 64; ++a) {
      double r[3] = {p[list[a]][0] - centre[0], p[list[a]][1] - centre[1], p[list[a]][2] - centre[2]};
      angle[a] = atan2(dot3(r, v), dot3(r, u));
    }
    if (m > 64) goto fail;
    for (int a = 1; a < m; ++a) /* insertion sort by angle */
      for (int b = a; b > 0 && angle[b] < angle[b - 1]; --b) {
        double ta = angle[b];
        angle[b] = angle[b - 1];
        angle[b - 1] = ta;
        int ti = list[b];
        list[b] = list[b - 1];
        list[b - 1] = ti;
      }
    on_count[f] = m;
  }
  /* Mass properties of the solid: tetrahedra from the origin over fan triangles of each face;
   * ∫ x xᵀ over a tetrahedron (0, a, b, c) is V/20 (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a + b + c. */
  double volume = 0, first[3] = {0, 0, 0}, second[3][3] = {{0}};
  int total = 0;
  for (int f = 0; f < count; ++f) {
    const int *list = on + (size_t)f * (size_t)n;
    total += on_count[f];
    for (int t = 1; t + 1 < on_count[f]; ++t) {
      const double *a = p[list[0]], *b = p[list[t]], *c = p[list[t + 1]];
      double bc[3];
      cross3(b, c, bc);
      double vt = dot3(a, bc) / 6.0, sum[3];
      volume += vt;
      for (int k = 0; k < 3; ++k) {
        sum[k] = a[k] + b[k] + c[k];
        first[k] += vt * sum[k] / 4.0;
      }
      for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k)
          second[r][k] += vt / 20.0 * (a[r] * a[k] + b[r] * b[k] + c[r] * c[k] + sum[r] * sum[k]);
    }
  }
  if (!(volume > 0)) goto fail;
  double com[3], tensor[3][3], moments[3], axes[3][3];
  for (int k = 0; k < 3; ++k) com[k] = first[k] / volume;
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) second[r][k] -= volume * com[r] * com[k];
  double trace = second[0][0] + second[1][1] + second[2][2];
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) tensor[r][k] = density * ((r == k ? trace : 0.0) - second[r][k]);
  jacobi3(tensor, moments, axes);
  double det = axes[0][0] * (axes[1][1] * axes[2][2] - axes[1][2] * axes[2][1]) -
               axes[0][1] * (axes[1][0] * axes[2][2] - axes[1][2] * axes[2][0]) +
               axes[0][2] * (axes[1][0] * axes[2][1] - axes[1][1] * axes[2][0]);
  if (det < 0)
    for (int k = 0; k < 3; ++k) axes[k][2] = -axes[k][2];
  /* Corners, faces and planes in the principal frame x' = Vᵀ (x − com). */
  h->vertices = malloc((size_t)n * sizeof *h->vertices);
  h->face_start = malloc((size_t)(count + 1) * sizeof *h->face_start);
  h->face_vertices = malloc((size_t)total * sizeof *h->face_vertices);
  h->planes = malloc((size_t)count * sizeof *h->planes);
  h->edges = malloc((size_t)total * sizeof *h->edges);
  if (!h->vertices || !h->face_start || !h->face_vertices || !h->planes || !h->edges) goto fail;
  h->vertex_count = n;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k)
      h->vertices[i][k] = axes[0][k] * (p[i][0] - com[0]) + axes[1][k] * (p[i][1] - com[1]) + axes[2][k] * (p[i][2] - com[2]);
  h->face_count = count;
  h->inradius = INFINITY;
  int at = 0;
  for (int f = 0; f < count; ++f) {
    h->face_start[f] = at;
    const int *list = on + (size_t)f * (size_t)n;
    for (int a = 0; a < on_count[f]; ++a) {
      int i = list[a], j = list[(a + 1) % on_count[f]];
      h->face_vertices[at++] = i;
      if (i < j) { /* each edge once: from the face that walks it upwards */
        h->edges[h->edge_count][0] = i;
        h->edges[h->edge_count][1] = j;
        ++h->edge_count;
      }
    }
    for (int k = 0; k < 3; ++k)
      h->planes[f][k] = axes[0][k] * plane[f][0] + axes[1][k] * plane[f][1] + axes[2][k] * plane[f][2];
    h->planes[f][3] = plane[f][3] - dot3(plane[f], com);
    h->inradius = fmin(h->inradius, h->planes[f][3]);
  }
  h->face_start[count] = at;
  for (int i = 0; i < n; ++i) h->circumradius = fmax(h->circumradius, sqrt(dot3(h->vertices[i], h->vertices[i])));
  if (total != 2 * h->edge_count || h->vertex_count - h->edge_count + h->face_count != 2) goto fail; /* Euler */
  memset(body, 0, sizeof *body);
  body->shape = PEERS_HULL;
  body->hull = h;
  body->orientation[0] = 1.0;
  body->mass = density * volume;
  for (int k = 0; k < 3; ++k) body->inertia[k] = moments[k];
  free(plane);
  free(on);
  free(on_count);
  return 0;
fail:
  free(plane);
  free(on);
  free(on_count);
  hull_free(h);
  return -1;
}

/* q (w, x, y, z) of a rotation by angle about the vertical. */
static void yaw_quaternion(double angle, double q[4]) {
  q[0] = cos(0.5 * angle);
  q[1] = q[2] = 0.0;
  q[3] = sin(0.5 * angle);
}

#define PRISM_RADIUS 0.6 /* circumradius of the hexagon [m] */
#define PRISM_HEIGHT 1.0
#define PRISM_TURN 20.0  /* degrees between neighbours: faces meet in a 12-gon, no edges aligned */

int peers_scene_polystack(peers_scene_t *s, double duration) {
  scene_init(s, PEERS_POLYSTACK, 0.01);
  snprintf(s->name, sizeof s->name, "polystack10");
  s->steps = (int)lround((duration > 0 ? duration : 5.0) / s->time_step);
  s->needs_contacts = true;
  add_plane(s, 0, 0, 1, 0.0);
  const int n = 10;
  s->bodies = calloc((size_t)n, sizeof *s->bodies);
  s->hulls = calloc(1, sizeof *s->hulls);
  if (!s->bodies || !s->hulls) return -1;
  double corners[12][3];
  for (int k = 0; k < 6; ++k) {
    double a = k * 3.14159265358979323846 / 3.0;
    for (int z = 0; z < 2; ++z) {
      corners[2 * k + z][0] = PRISM_RADIUS * cos(a);
      corners[2 * k + z][1] = PRISM_RADIUS * sin(a);
      corners[2 * k + z][2] = (z ? 0.5 : -0.5) * PRISM_HEIGHT;
    }
  }
  peers_body_t prism;
  if (hull_build(&s->hulls[0], (const double (*)[3])corners, 12, DENSITY, &prism) != 0) return -1;
  s->hull_count = 1;
  s->body_count = n;
  for (int i = 0; i < n; ++i) {
    s->bodies[i] = prism;
    s->bodies[i].position[2] = PRISM_HEIGHT * (0.5 + i); /* exactly touching */
    yaw_quaternion(i * PRISM_TURN * 3.14159265358979323846 / 180.0, s->bodies[i].orientation);
  }
  return 0;
}

#define GRAIN_CORNERS 14
#define GRAIN_RADIUS 0.05 /* mean semi-axis [m]: the pile's sphere radius */

int peers_scene_polypile(peers_scene_t *s, int n, double duration) {
  if (peers_scene_pile(s, n, duration) != 0) return -1;
  s->kind = PEERS_POLYPILE;
  snprintf(s->name, sizeof s->name, "polypile%d", n);
  s->hulls = calloc((size_t)n, sizeof *s->hulls);
  if (!s->hulls) return -1;
  uint64_t seed = UINT64_C(0xD1B54A32D192ED03);
  const double golden = 3.14159265358979323846 * (3.0 - sqrt(5.0));
  for (int i = 0; i < n; ++i) {
    /* Corners: a Fibonacci lattice of directions, each turned by up to ±0.2 rad, on an ellipsoid
     * with semi-axes GRAIN_RADIUS (1 ± 0.08), so that two neighbours of the grid (centres ≥ 0.11 m
     * apart) cannot overlap at the start: every grain a different strictly convex 14-corner polyhedron. */
    double axes[3], corners[GRAIN_CORNERS][3];
    for (int k = 0; k < 3; ++k) axes[k] = GRAIN_RADIUS * (1.0 + 0.08 * jitter(&seed));
    for (int k = 0; k < GRAIN_CORNERS; ++k) {
      double z = 1.0 - (2.0 * k + 1.0) / GRAIN_CORNERS, r = sqrt(1.0 - z * z), a = golden * k;
      double d[3] = {r * cos(a) + 0.2 * jitter(&seed), r * sin(a) + 0.2 * jitter(&seed), z + 0.2 * jitter(&seed)};
      double len = sqrt(dot3(d, d));
      for (int c = 0; c < 3; ++c) corners[k][c] = axes[c] * d[c] / len;
    }
    peers_body_t *b = &s->bodies[i];
    double position[3];
    memcpy(position, b->position, sizeof position);
    if (hull_build(&s->hulls[i], (const double (*)[3])corners, GRAIN_CORNERS, DENSITY, b) != 0) return -1;
    s->hull_count = i + 1;
    memcpy(b->position, position, sizeof position);
    /* A uniformly random orientation (Shoemake's three numbers). */
    double u1 = 0.5 * (jitter(&seed) + 1.0), u2 = 3.14159265358979323846 * (jitter(&seed) + 1.0),
           u3 = 3.14159265358979323846 * (jitter(&seed) + 1.0);
    b->orientation[0] = sqrt(1 - u1) * sin(u2);
    b->orientation[1] = sqrt(1 - u1) * cos(u2);
    b->orientation[2] = sqrt(u1) * sin(u3);
    b->orientation[3] = sqrt(u1) * cos(u3);
  }
  return 0;
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

double peers_plane_distance(const peers_body_t *b, const peers_state_t *s, const peers_plane_t *p) {
  if (b->shape == PEERS_SPHERE) return dot3(p->normal, s->position) - p->offset - b->radius;
  if (b->shape == PEERS_BOX) return box_plane_distance(b, s, p);
  if (b->shape != PEERS_HULL) return INFINITY;
  double axes[3][3], lowest = INFINITY;
  state_axes(s, axes);
  for (int i = 0; i < b->hull->vertex_count; ++i) {
    const double *v = b->hull->vertices[i];
    double x = dot3(p->normal, s->position) - p->offset;
    for (int a = 0; a < 3; ++a) x += v[a] * dot3(p->normal, axes[a]);
    lowest = fmin(lowest, x);
  }
  return lowest;
}

/* A hull's corners in the world frame. */
static void hull_world(const peers_hull_t *h, const peers_state_t *s, double (*out)[3]) {
  double axes[3][3];
  state_axes(s, axes);
  for (int i = 0; i < h->vertex_count; ++i)
    for (int k = 0; k < 3; ++k)
      out[i][k] = s->position[k] + h->vertices[i][0] * axes[0][k] + h->vertices[i][1] * axes[1][k] +
                  h->vertices[i][2] * axes[2][k];
}

/* Overlap of two corner sets' projections on an axis (≤ 0: the axis separates them). */
static double projected_overlap(const double axis[3], const double (*a)[3], int na, const double (*b)[3], int nb) {
  double lo_a = INFINITY, hi_a = -INFINITY, lo_b = INFINITY, hi_b = -INFINITY;
  for (int i = 0; i < na; ++i) {
    double x = dot3(axis, a[i]);
    lo_a = fmin(lo_a, x);
    hi_a = fmax(hi_a, x);
  }
  for (int i = 0; i < nb; ++i) {
    double x = dot3(axis, b[i]);
    lo_b = fmin(lo_b, x);
    hi_b = fmax(hi_b, x);
  }
  return fmin(hi_a, hi_b) - fmax(lo_a, lo_b);
}

/* Penetration depth of two convex polyhedra by the separating-axis test over both hulls' face
 * normals and every edge–edge cross product (the minimum translation lies along one of them). */
static double hull_hull_penetration(const peers_body_t *ba, const double (*wa)[3], const peers_body_t *bb,
                                    const double (*wb)[3]) {
  const peers_hull_t *ha = ba->hull, *hb = bb->hull;
  double depth = INFINITY;
  for (int side = 0; side < 2; ++side) {
    const peers_hull_t *h = side ? hb : ha;
    const double (*w)[3] = side ? wb : wa;
    for (int f = 0; f < h->face_count; ++f) {
      /* the world normal from the face's first three corners, outward by the hull's winding */
      const int *fv = h->face_vertices + h->face_start[f];
      double e1[3], e2[3], nrm[3];
      for (int k = 0; k < 3; ++k) {
        e1[k] = w[fv[1]][k] - w[fv[0]][k];
        e2[k] = w[fv[2]][k] - w[fv[0]][k];
      }
      cross3(e1, e2, nrm);
      double len = sqrt(dot3(nrm, nrm));
      for (int k = 0; k < 3; ++k) nrm[k] /= len;
      double o = projected_overlap(nrm, wa, ha->vertex_count, wb, hb->vertex_count);
      if (o <= 0) return 0.0;
      depth = fmin(depth, o);
    }
  }
  for (int i = 0; i < ha->edge_count; ++i)
    for (int j = 0; j < hb->edge_count; ++j) {
      double ea[3], eb[3], axis[3];
      for (int k = 0; k < 3; ++k) {
        ea[k] = wa[ha->edges[i][1]][k] - wa[ha->edges[i][0]][k];
        eb[k] = wb[hb->edges[j][1]][k] - wb[hb->edges[j][0]][k];
      }
      cross3(ea, eb, axis);
      double len = sqrt(dot3(axis, axis));
      if (len < 1e-9 * sqrt(dot3(ea, ea) * dot3(eb, eb))) continue; /* parallel edges: face axes cover it */
      for (int k = 0; k < 3; ++k) axis[k] /= len;
      double o = projected_overlap(axis, wa, ha->vertex_count, wb, hb->vertex_count);
      if (o <= 0) return 0.0;
      depth = fmin(depth, o);
    }
  return depth;
}

/* Hull pairs whose bounding spheres meet (all pairs: the scenes have ≤ 10³ hulls). */
static double hull_pairs_penetration(const peers_scene_t *scene, const peers_state_t *states) {
  int n = scene->body_count, total = 0;
  for (int i = 0; i < n; ++i)
    if (scene->bodies[i].shape == PEERS_HULL) total += scene->bodies[i].hull->vertex_count;
  if (total == 0) return 0.0;
  double (*world)[3] = malloc((size_t)total * sizeof *world);
  int *first = malloc((size_t)n * sizeof *first);
  if (!world || !first) {
    free(world);
    free(first);
    return NAN;
  }
  int at = 0;
  for (int i = 0; i < n; ++i) {
    first[i] = at;
    if (scene->bodies[i].shape != PEERS_HULL) continue;
    hull_world(scene->bodies[i].hull, &states[i], world + at);
    at += scene->bodies[i].hull->vertex_count;
  }
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const peers_body_t *bi = &scene->bodies[i];
    if (bi->shape != PEERS_HULL) continue;
    for (int j = i + 1; j < n; ++j) {
      const peers_body_t *bj = &scene->bodies[j];
      if (bj->shape != PEERS_HULL) continue;
      double d[3];
      for (int k = 0; k < 3; ++k) d[k] = states[j].position[k] - states[i].position[k];
      double reach = bi->hull->circumradius + bj->hull->circumradius;
      if (!(dot3(d, d) < reach * reach)) continue;
      double pen = hull_hull_penetration(bi, (const double (*)[3])(world + first[i]), bj,
                                         (const double (*)[3])(world + first[j]));
      if (!(pen <= worst)) worst = pen;
    }
  }
  free(world);
  free(first);
  return worst;
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
      double dist = peers_plane_distance(b, &states[i], pl);
      if (!(-dist <= worst)) worst = -dist; /* NaN propagates */
    }
  }
  double spheres = sphere_pairs_penetration(scene, states);
  if (!(spheres <= worst)) worst = spheres; /* NaN propagates */
  double hulls = hull_pairs_penetration(scene, states);
  if (!(hulls <= worst)) worst = hulls;
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
