/* Greedy two-body colouring (colouring.h). */
#include "solvers/colouring.h"

#include <string.h>

int clt_colour_pairs(int n, const int *bodies, uint64_t *body_mask, int *colour, int *order, int *start) {
  int counts[CLT_COLOUR_MAX + 1];
  memset(counts, 0, sizeof counts);
  for (int i = 0; i < n; i++) {
    int a = bodies[2 * i], b = bodies[2 * i + 1];
    uint64_t used = (a >= 0 ? body_mask[a] : 0) | (b >= 0 ? body_mask[b] : 0);
    int col = CLT_COLOUR_MAX;
    if (~used != 0) {
      col = __builtin_ctzll(~used);
      if (a >= 0) body_mask[a] |= (uint64_t)1 << col;
      if (b >= 0) body_mask[b] |= (uint64_t)1 << col;
    }
    colour[i] = col;
    counts[col]++;
  }
  int colours = 0;
  for (int c = 0; c <= CLT_COLOUR_MAX; c++)
    if (counts[c] > 0) colours = c + 1;
  start[0] = 0;
  for (int c = 0; c < colours; c++) start[c + 1] = start[c] + counts[c];
  int fill[CLT_COLOUR_MAX + 1];
  memcpy(fill, start, sizeof(int) * (size_t)(colours > 0 ? colours : 1));
  for (int i = 0; i < n; i++) order[fill[colour[i]]++] = i; /* stable: increasing within a colour */
  return colours;
}
