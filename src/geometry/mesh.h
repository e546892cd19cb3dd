/* Private: the layout of clt_mesh_t (mesh.c), read by the narrow phase (collision/mesh_pairs.c)
 * and the bounds. docs/shapes.md "Meshes". */
#ifndef CLATTER_GEOMETRY_MESH_H
#define CLATTER_GEOMETRY_MESH_H

#include "clatter/world.h"

typedef struct clt_mesh_node_t {
  double lo[3], hi[3];
  int first; /* leaf: first entry of order; inner: the left child (the right one is first + 1) */
  int count; /* leaf: triangles (≥ 1); inner: 0 */
} clt_mesh_node_t;

struct clt_mesh_t {
  int refs; /* atomic */
  int vertex_count, triangle_count;
  double (*vertices)[3];
  int (*triangles)[3];
  double (*normal)[3];    /* unit, the front side (counter-clockwise vertices) */
  int (*neighbor)[3];     /* the triangle across edge k (vertex k to k + 1); −1 on the boundary */
  unsigned char (*convex_edge)[3]; /* 1: edge k is a ridge or the boundary (a real edge), 0: flat or a
                                      valley between two triangles (an internal edge: no edge contacts) */
  clt_mesh_node_t *nodes; /* bounding volume hierarchy, root 0 */
  int node_count;
  int *order;             /* triangle indices in leaf order */
  double lo[3], hi[3];    /* bounds of the vertices */
  double size;            /* largest extent: the scale of the tolerances */
};

/* Calls visit(user, triangle) for every triangle whose box overlaps [lo, hi] (mesh frame); stops and
 * returns false when visit returns false. */
bool clt_mesh_query(const clt_mesh_t *mesh, const double lo[3], const double hi[3],
                    bool (*visit)(void *user, int triangle), void *user);

#endif
