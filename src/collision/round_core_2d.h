/* Private: disks, segments and convex polygons as "rounded convex polygons" (narrowphase_2d.c). */
#ifndef CLATTER_COLLISION_ROUND_CORE_2D_H
#define CLATTER_COLLISION_ROUND_CORE_2D_H

#include "collision/narrowphase_pairs.h"

typedef struct clt_round_core_t {
  double v[CLT_MAX_POLYGON_VERTICES][2];      /* world-frame core vertices */
  double normal[CLT_MAX_POLYGON_VERTICES][2]; /* outward normal of edge v[i] → v[i+1] (count ≥ 2) */
  int count;                                  /* 1 disk, 2 segment, ≥ 3 polygon */
  double radius;                              /* disk / segment radius; 0 for polygons */
} clt_round_core_t;

/* The world-frame core of a placed disk, segment or polygon. */
void clt_round_core_make(const clt_placed_shape_t *s, clt_round_core_t *core);

#endif
