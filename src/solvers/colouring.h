/* Greedy colouring of two-body items (contacts, constraint rows) for parallel Gauss–Seidel sweeps
 * that stay bit-identical for any thread count (SPEC.md §2.2): items of one colour share no dynamic
 * body, so within a colour every update reads and writes only its own two bodies and the thread
 * schedule cannot change a number. Used by body_pgs.c (constraint rows) and steppers/relaxed_bgs.c (the
 * relaxed scheme's contact blocks). */
#ifndef CLATTER_SOLVERS_COLOURING_H
#define CLATTER_SOLVERS_COLOURING_H

#include <stdint.h>

/* Colours 0 … CLT_COLOUR_MAX − 1 are conflict-free; colour CLT_COLOUR_MAX collects the items that
 * found none (a body with ≥ CLT_COLOUR_MAX items) and must be swept serially. */
#define CLT_COLOUR_MAX 64

/* Colours item i (bodies[2i], bodies[2i + 1]; −1 = no dynamic body on that side) with the lowest
 * colour neither of its bodies has yet, in item order (a function of the input only). body_mask:
 * one zeroed word per body (left dirty). colour (n): each item's colour. order (n): the items
 * grouped by colour, increasing within a colour; colour c spans [start[c], start[c + 1]).
 * start needs CLT_COLOUR_MAX + 2 entries. Returns the colour count (the last colour may be the
 * overflow colour CLT_COLOUR_MAX). */
int clt_colour_pairs(int n, const int *bodies, uint64_t *body_mask, int *colour, int *order, int *start);

#endif
