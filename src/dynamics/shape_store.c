/* The world's shape storage: interned descriptions (world_internal.h, clt_world_shape).
 *
 * A granular pile of 10⁵ equal spheres used to store 10⁵ copies of a 776-byte clt_shape_def_t
 * (512 B of it the inline polygon vertices); stored in the principal frame, those copies are
 * identical. Each shape now holds a 4-byte index into a table of distinct descriptions, found by
 * a hash of their bytes. A description is compared on a canonical copy (zero-initialised, then
 * filled field by field, so padding never makes two equal descriptions differ) with memcmp: equal
 * means bit-for-bit equal, so every shape reads exactly the doubles it was given (−0.0 and 0.0
 * stay distinct) and results are bit-identical to storing copies.
 *
 * Writes are copy-on-write: clt_world_set_shape interns the new description and drops a reference
 * to the old one (freed, and its slot reused, when no shape uses it): a growing colony cell
 * (src/dynamics/body_shape.c) never changes the description its sisters share. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/world_internal.h"

/* Every field of clt_shape_def_t is copied below: a new field must be added there (or two shapes
 * that differ in it would share one description). */
_Static_assert(sizeof(clt_shape_def_t) ==
                   sizeof(double) * (2 + 3 + 3 + 2 + 3 + 3 + 3 + 3 + 2 * CLT_MAX_POLYGON_VERTICES + 3 + 1 + 4) +
                       2 * sizeof(double) /* type and vertex_count, each padded to 8 bytes */ +
                       2 * sizeof(double) /* material and the filter's three 4-byte fields */ +
                       2 * sizeof(void *) /* convex, mesh */,
               "clt_shape_def_t changed: update canonical_shape in src/dynamics/shape_store.c");

_Static_assert(offsetof(clt_shape_def_t, vertices) % 8 == 0 && sizeof(clt_shape_def_t) % 8 == 0,
               "shape_hash reads 8-byte words");

static void canonical_shape(clt_shape_def_t *c, const clt_shape_def_t *s) {
  memset(c, 0, sizeof *c);
  c->type = s->type;
  c->radius = s->radius;
  c->length = s->length;
  memcpy(c->half_extents, s->half_extents, sizeof c->half_extents);
  memcpy(c->semi_axes, s->semi_axes, sizeof c->semi_axes);
  c->major_radius = s->major_radius;
  c->minor_radius = s->minor_radius;
  memcpy(c->point, s->point, sizeof c->point);
  memcpy(c->normal, s->normal, sizeof c->normal);
  memcpy(c->a, s->a, sizeof c->a);
  memcpy(c->b, s->b, sizeof c->b);
  memcpy(c->vertices, s->vertices, sizeof c->vertices);
  c->vertex_count = s->vertex_count;
  c->convex = s->convex;
  c->mesh = s->mesh;
  memcpy(c->local_position, s->local_position, sizeof c->local_position);
  c->local_angle = s->local_angle;
  memcpy(c->local_orientation, s->local_orientation, sizeof c->local_orientation);
  c->material = s->material;
  c->filter = s->filter;
}

/* 64-bit FNV-1a-like mix of 8-byte words of the canonical bytes, leaving out the polygon vertex
 * slots past vertex_count (two thirds of the bytes for every other shape: a growing colony interns
 * one description per cell and step). Equal canonical bytes give equal hashes: the slots left out
 * are chosen by those bytes. */
static uint64_t mix_words(uint64_t h, const unsigned char *p, size_t from, size_t to) {
  for (size_t i = from; i + 8 <= to; i += 8) {
    uint64_t word;
    memcpy(&word, p + i, 8);
    h = (h ^ word) * 1099511628211ull;
    h ^= h >> 29;
  }
  return h;
}

static uint64_t shape_hash(const clt_shape_def_t *c) {
  const unsigned char *p = (const unsigned char *)c;
  size_t v0 = offsetof(clt_shape_def_t, vertices), v1 = v0 + sizeof c->vertices;
  int nv = c->vertex_count < 0 ? 0 : c->vertex_count > CLT_MAX_POLYGON_VERTICES ? CLT_MAX_POLYGON_VERTICES : c->vertex_count;
  uint64_t h = mix_words(14695981039346656037ull, p, 0, v0);
  h = mix_words(h, p, v0, v0 + (size_t)nv * sizeof c->vertices[0]);
  return mix_words(h, p, v1, sizeof *c);
}

static int bucket_of(const clt_world_t *world, uint64_t hash) {
  return (int)(hash & (uint64_t)(world->shape_bucket_count - 1));
}

/* Rebuilds the buckets with `count` (a power of two) of them. */
static bool rehash(clt_world_t *world, int count) {
  int32_t *buckets = malloc((size_t)count * sizeof *buckets);
  if (!buckets) return false;
  free(world->shape_buckets);
  world->shape_buckets = buckets;
  world->shape_bucket_count = count;
  for (int i = 0; i < count; i++) buckets[i] = -1;
  for (int d = 0; d < world->shape_desc_count; d++) {
    clt_shape_desc_t *e = &world->shape_descs[d];
    if (e->refs == 0) continue; /* free slots keep their free-list chain */
    int k = bucket_of(world, e->hash);
    e->next = buckets[k];
    buckets[k] = d;
  }
  return true;
}

/* The slot of description def (a reference added), interned if new; −1 when out of memory. */
static int32_t intern(clt_world_t *world, const clt_shape_def_t *def) {
  clt_shape_def_t c;
  canonical_shape(&c, def);
  if (c.filter.category != 1u || c.filter.mask != 0xFFFFFFFFu || c.filter.group != 0) world->filters_used = true;
  uint64_t hash = shape_hash(&c);
  if (world->shape_bucket_count > 0) {
    for (int32_t d = world->shape_buckets[bucket_of(world, hash)]; d >= 0; d = world->shape_descs[d].next) {
      clt_shape_desc_t *e = &world->shape_descs[d];
      if (e->hash == hash && memcmp(&e->def, &c, sizeof c) == 0) {
        e->refs++;
        return d;
      }
    }
  }
  int32_t d = world->shape_desc_free;
  if (d >= 0) {
    world->shape_desc_free = world->shape_descs[d].next;
  } else {
    if (world->shape_desc_count == world->shape_desc_capacity) {
      /* Few distinct descriptions in a typical world: grow by half (at least 4). */
      int cap = world->shape_desc_capacity + world->shape_desc_capacity / 2 + 4;
      clt_shape_desc_t *p = realloc(world->shape_descs, (size_t)cap * sizeof *p);
      if (!p) return -1;
      world->shape_descs = p;
      world->shape_desc_capacity = cap;
    }
    d = world->shape_desc_count++;
  }
  /* Load ≤ 1/2 of live-or-free slots: the buckets follow the slot count. */
  if (2 * world->shape_desc_count > world->shape_bucket_count) {
    int count = world->shape_bucket_count > 0 ? world->shape_bucket_count : 8;
    while (2 * world->shape_desc_count > count) count *= 2;
    world->shape_descs[d].refs = 0; /* not yet live: skipped by rehash */
    world->shape_descs[d].next = -1;
    if (!rehash(world, count)) {
      world->shape_descs[d].next = world->shape_desc_free;
      world->shape_desc_free = d;
      return -1;
    }
  }
  clt_shape_desc_t *e = &world->shape_descs[d];
  e->def = c;
  e->hash = hash;
  e->refs = 1;
  /* A description holds a reference to its polyhedron: the maker may release its own. */
  clt_convex_retain((clt_convex_t *)c.convex);
  clt_mesh_retain((clt_mesh_t *)c.mesh);
  int k = bucket_of(world, hash);
  e->next = world->shape_buckets[k];
  world->shape_buckets[k] = d;
  return d;
}

/* Drops a reference to slot d; the last one frees it. */
static void release(clt_world_t *world, int32_t d) {
  clt_shape_desc_t *e = &world->shape_descs[d];
  if (--e->refs > 0) return;
  int32_t *link = &world->shape_buckets[bucket_of(world, e->hash)];
  while (*link != d) link = &world->shape_descs[*link].next;
  *link = e->next;
  clt_convex_release((clt_convex_t *)e->def.convex);
  clt_mesh_release((clt_mesh_t *)e->def.mesh);
  e->def.convex = NULL;
  e->def.mesh = NULL;
  e->next = world->shape_desc_free;
  world->shape_desc_free = d;
}

bool clt_world_reserve_shapes(clt_world_t *world, int shapes) {
  if (shapes <= world->shape_capacity) return true;
  int32_t *p = realloc(world->shape_desc, (size_t)shapes * sizeof *p);
  if (!p) return false;
  world->shape_desc = p;
  world->shape_capacity = shapes;
  return true;
}

bool clt_world_push_shape(clt_world_t *world, const clt_shape_def_t *def) {
  if (world->shape_count == world->shape_capacity) {
    int cap = world->shape_capacity > 0 ? 2 * world->shape_capacity : 8;
    if (!clt_world_reserve_shapes(world, cap)) return false;
  }
  int32_t d = intern(world, def);
  if (d < 0) return false;
  world->shape_desc[world->shape_count++] = d;
  return true;
}

bool clt_world_reserve_shape_edits(clt_world_t *world, int edits) {
  int needed = world->shape_desc_count + edits;
  if (needed > world->shape_desc_capacity) {
    clt_shape_desc_t *p = realloc(world->shape_descs, (size_t)needed * sizeof *p);
    if (!p) return false;
    world->shape_descs = p;
    world->shape_desc_capacity = needed;
  }
  if (2 * needed > world->shape_bucket_count) {
    int count = world->shape_bucket_count > 0 ? world->shape_bucket_count : 8;
    while (2 * needed > count) count *= 2;
    if (!rehash(world, count)) return false;
  }
  return true;
}

void clt_world_pop_shape(clt_world_t *world) { release(world, world->shape_desc[--world->shape_count]); }

bool clt_world_set_shape(clt_world_t *world, int s, const clt_shape_def_t *def) {
  int32_t d = intern(world, def); /* before the release: an unchanged shape keeps its slot */
  if (d < 0) return false;
  release(world, world->shape_desc[s]);
  world->shape_desc[s] = d;
  return true;
}

void clt_world_free_shapes(clt_world_t *world) {
  for (int d = 0; d < world->shape_desc_count; d++)
    if (world->shape_descs[d].refs > 0) {
      clt_convex_release((clt_convex_t *)world->shape_descs[d].def.convex);
      clt_mesh_release((clt_mesh_t *)world->shape_descs[d].def.mesh);
    }
  free(world->shape_desc);
  free(world->shape_descs);
  free(world->shape_buckets);
  world->shape_desc = NULL;
  world->shape_descs = NULL;
  world->shape_buckets = NULL;
  world->shape_count = world->shape_capacity = 0;
  world->shape_desc_count = world->shape_desc_capacity = world->shape_bucket_count = 0;
  world->shape_desc_free = -1;
}

size_t clt_world_shape_bytes(const clt_world_t *world) {
  return (size_t)world->shape_capacity * sizeof *world->shape_desc +
         (size_t)world->shape_desc_capacity * sizeof *world->shape_descs +
         (size_t)world->shape_bucket_count * sizeof *world->shape_buckets;
}
