/* Private: the layout of clt_convex_t (convex.c), read by the narrow phase (collision/convex_*.c),
 * the bounds and the viewers. docs/shapes.md describes the polyhedron shape. */
#ifndef CLATTER_GEOMETRY_CONVEX_H
#define CLATTER_GEOMETRY_CONVEX_H

#include "clatter/world.h"

struct clt_convex_t {
  int refs; /* atomic: worlds of different threads may share one polyhedron */
  int vertex_count, face_count, edge_count;
  double (*vertices)[3];  /* local frame, in the order of the input */
  int *face_start;        /* face f: face_vertices[face_start[f] … face_start[f + 1] − 1] */
  int *face_vertices;     /* counter-clockwise about the outward normal */
  double (*face_normal)[3]; /* outward, unit */
  double *face_offset;    /* plane n·x = offset */
  int (*edges)[2];        /* vertex pair, edges[e][0] < edges[e][1] */
  int (*edge_faces)[2];   /* the two faces that share it */
  double volume;
  double centroid[3];
  double inertia[3][3];   /* about the centroid, per unit density */
  double bound_radius;    /* largest |vertex| (about the local origin) */
  double size;            /* largest extent of the vertices: the scale of the tolerances */
  double interior[3];     /* the mean of the vertices: strictly inside */
};

/* The support point of the polyhedron in local direction d (the first vertex of largest d·v);
 * returns its index. */
int clt_convex_support(const clt_convex_t *c, const double d[3]);

#endif
