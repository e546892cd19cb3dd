/* The collide stage (src/collision/collide_all.c): on random 2D and 3D scenes of mixed shapes,
 * composite bodies, fixed bodies and walls, its contact list equals the one from calling
 * clt_collide on every pair by brute force (same points, same order), for ε̂ and for the
 * infeasibility query (max_distance = 0); an unsupported pair and a pair whose narrow phase failed
 * are reported, not skipped. */
#include <math.h>
#include <stdlib.h>

#include "collision/collide_all.h"
#include "collide_ref.h"
#include "test_util.h"

#define N_SHAPES 400

static clt_shape_def_t defs[N_SHAPES];
static clt_shape_instance_t inst[N_SHAPES];

static void make_scene(rng_t *r, int dim, int n) {
  double domain = dim == 2 ? sqrt((double)n) * 1.2 : cbrt((double)n) * 1.2;
  for (int i = 0; i < n; i++) {
    clt_shape_def_t *d = &defs[i];
    memset(d, 0, sizeof *d);
    d->local_orientation[0] = 1;
    d->filter = clt_default_shape_def(CLT_SHAPE_SPHERE).filter; /* everything collides */
    clt_shape_instance_t *s = &inst[i];
    memset(s, 0, sizeof *s);
    s->shape = d;
    s->body = (i > 0 && rng_int(r, 0, 4) == 0) ? inst[i - 1].body : i; /* composites */
    if (s->body != i) s->pose = inst[i - 1].pose;
    else {
      for (int k = 0; k < dim; k++) s->pose.position[k] = rng_uniform(r, 0, domain);
      s->pose.angle = rng_uniform(r, -REF_PI, REF_PI);
      double q[4], qn = 0;
      for (int k = 0; k < 4; k++) q[k] = rng_uniform(r, -1, 1), qn += q[k] * q[k];
      for (int k = 0; k < 4; k++) s->pose.orientation[k] = q[k] / sqrt(qn);
    }
    s->fixed = s->body == i ? rng_int(r, 0, 9) == 0 : (i > 0 && inst[i - 1].fixed);
    for (int k = 0; k < dim; k++) d->local_position[k] = rng_uniform(r, -0.2, 0.2);
    int kind = rng_int(r, 0, 99) == 0 ? -1 : rng_int(r, 0, dim == 2 ? 3 : 2);
    if (kind < 0) { /* a wall through the scene */
      d->type = dim == 2 ? CLT_SHAPE_HALFPLANE : CLT_SHAPE_HALFSPACE;
      d->normal[0] = rng_uniform(r, -1, 1), d->normal[1] = 1.0, d->normal[2] = dim == 3 ? rng_uniform(r, -1, 1) : 0.0;
      s->fixed = true;
      continue;
    }
    if (dim == 2) {
      d->type = kind == 0 ? CLT_SHAPE_DISK : kind == 1 ? CLT_SHAPE_POLYGON : kind == 2 ? CLT_SHAPE_ELLIPSE : CLT_SHAPE_SEGMENT;
      d->radius = rng_uniform(r, 0.2, 0.6);
      d->semi_axes[0] = rng_uniform(r, 0.2, 0.7), d->semi_axes[1] = rng_uniform(r, 0.2, 0.7);
      d->a[0] = -0.4, d->b[0] = 0.4, d->a[1] = rng_uniform(r, -0.2, 0.2);
      if (kind == 3) d->radius = rng_uniform(r, 0.0, 0.2);
      double h = rng_uniform(r, 0.2, 0.5), w = rng_uniform(r, 0.2, 0.5);
      double v[4][2] = {{-h, -w}, {h, -w}, {h, w}, {-h, w}};
      memcpy(d->vertices, v, sizeof v);
      d->vertex_count = 4;
    } else {
      d->type = kind == 0 ? CLT_SHAPE_SPHERE : kind == 1 ? CLT_SHAPE_BOX : CLT_SHAPE_CAPSULE;
      d->radius = rng_uniform(r, 0.2, 0.5);
      d->length = rng_uniform(r, 0.0, 0.8);
      for (int k = 0; k < 3; k++) d->half_extents[k] = rng_uniform(r, 0.15, 0.5);
    }
  }
}

static int brute(int n, double max_distance, clt_shape_contact_t *out, int cap) {
  int count = 0;
  clt_contact_point_t p[CLT_MAX_PAIR_CONTACTS];
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++) {
      if (inst[a].body == inst[b].body || (inst[a].fixed && inst[b].fixed)) continue;
      int m = clt_collide(inst[a].shape, &inst[a].pose, inst[b].shape, &inst[b].pose, max_distance, p, CLT_MAX_PAIR_CONTACTS);
      for (int i = 0; i < m && count < cap; i++) {
        out[count].shape_a = a, out[count].shape_b = b, out[count].point = p[i];
        count++;
      }
    }
  return count;
}

/* Bitwise equal fields (the struct's tail padding is not compared). */
static bool same_point(const clt_contact_point_t *x, const clt_contact_point_t *y) {
  bool same = x->distance == y->distance && x->feature == y->feature;
  for (int k = 0; k < 3; k++)
    same = same && x->normal[k] == y->normal[k] && x->point_a[k] == y->point_a[k] && x->point_b[k] == y->point_b[k];
  return same;
}

int main(void) {
  clt_contact_set_t set;
  clt_contact_set_init(&set);
  static clt_shape_contact_t ref[200000];
  rng_t r = {99};
  for (int dim = 2; dim <= 3; dim++) {
    for (int scene = 0; scene < 3; scene++) {
      make_scene(&r, dim, N_SHAPES);
      const double eps[2] = {1e-3, 0.0};
      for (int e = 0; e < 2; e++) {
        CHECK(clt_collide_all(&set, inst, N_SHAPES, dim, eps[e]) == CLT_OK);
        int m = brute(N_SHAPES, eps[e], ref, 200000);
        CHECK(m == set.count);
        int same = 0;
        for (int i = 0; i < m && i < set.count; i++)
          same += set.contacts[i].shape_a == ref[i].shape_a && set.contacts[i].shape_b == ref[i].shape_b &&
                  same_point(&set.contacts[i].point, &ref[i].point);
        CHECK(same == m);
        if (scene == 0) printf("dim %d, eps %g: %d candidate pairs, %d contact points (brute force %d)\n", dim, eps[e], set.candidate_pairs, set.count, m);
      }
    }
  }
  /* A torus near a box (no narrow phase for that pair yet): reported as unsupported. */
  clt_shape_def_t e, s;
  memset(&e, 0, sizeof e);
  memset(&s, 0, sizeof s);
  e.type = CLT_SHAPE_TORUS, e.major_radius = 1, e.minor_radius = 0.2;
  s.type = CLT_SHAPE_BOX, s.half_extents[0] = s.half_extents[1] = s.half_extents[2] = 1;
  e.local_orientation[0] = s.local_orientation[0] = 1;
  e.filter = s.filter = clt_default_shape_def(CLT_SHAPE_SPHERE).filter;
  clt_shape_instance_t two[2];
  memset(two, 0, sizeof two);
  two[0].shape = &e, two[1].shape = &s;
  two[0].body = 0, two[1].body = 1;
  two[0].pose.orientation[0] = two[1].pose.orientation[0] = 1;
  two[1].pose.position[0] = 1.5;
  CHECK(clt_collide_all(&set, two, 2, 3, 1e-3) == CLT_ERR_UNSUPPORTED);
  CHECK(set.unsupported_a == 0 && set.unsupported_b == 1 && set.count == 0);
  CHECK(set.failed_a == -1 && set.failed_b == -1);
  /* A pair whose narrow phase fails (an ellipsoid with a zero semi-axis: the shared-normal
   * iteration refuses it) is reported as a numerical failure naming the pair, not dropped. */
  e.type = CLT_SHAPE_ELLIPSOID, e.semi_axes[0] = e.semi_axes[1] = 0.5, e.semi_axes[2] = 0.0;
  s.type = CLT_SHAPE_SPHERE, s.radius = 0.5;
  two[1].pose.position[0] = 0.9;
  CHECK(clt_collide_all(&set, two, 2, 3, 1e-3) == CLT_ERR_NUMERICAL);
  CHECK(set.failed_a == 0 && set.failed_b == 1 && set.count == 0 && set.unsupported_a == -1);
  e.semi_axes[2] = 0.25; /* a valid ellipsoid: 0.5 + 0.5 = 1 > 0.9, one overlapping point */
  CHECK(clt_collide_all(&set, two, 2, 3, 1e-3) == CLT_OK);
  CHECK(set.count == 1 && set.failed_a == -1);
  if (set.count == 1) CHECK_NEAR(set.contacts[0].point.distance, -0.1, 1e-12);
  CHECK(!clt_collide_supported(CLT_SHAPE_TORUS, CLT_SHAPE_BOX));
  CHECK(!clt_collide_supported(CLT_SHAPE_DISK, CLT_SHAPE_SPHERE));
  CHECK(clt_collide_supported(CLT_SHAPE_BOX, CLT_SHAPE_SPHERE) && clt_collide_supported(CLT_SHAPE_SPHERE, CLT_SHAPE_BOX));
  clt_contact_set_destroy(&set);
  return clt_test_finish();
}
