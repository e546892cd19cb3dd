/* A body-block operator (STYLE.md: matrix-free solvers get one, never the world): n rows, each
 * touching at most two bodies, with
 *     A = s J M̂⁻¹ Jᵀ,
 * given by each row's Jacobian blocks J_A, J_B (6 numbers each: linear, angular), the blocks
 * M̂⁻¹ J_Aᵀ, M̂⁻¹ J_Bᵀ, and each body's list of (row, side) entries. A product A x accumulates
 * u_b = Σ x_k M̂⁻¹ J_{k,side}ᵀ for every body b that has rows, then y_k = s (J_A · u_A + J_B · u_B):
 * every sum runs in a fixed order (a body's entries in row order, a row's two sides A then B), so the
 * numbers do not depend on threads. The ReLCP passes (steppers/stage_relcp_solve.c) fill one from
 * their constraints; body_pgs.h solves on it. */
#ifndef CLATTER_SOLVERS_BODY_ROWS_H
#define CLATTER_SOLVERS_BODY_ROWS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct clt_body_rows_t {
  int n;                  /* rows */
  int bodies;             /* body slots: body indices are < bodies */
  const double *jac;      /* per row: J_A (linear, angular), J_B, 12 doubles */
  const double *minv_jt;  /* 12 per row: M̂⁻¹ J_Aᵀ, M̂⁻¹ J_Bᵀ */
  const int *body;        /* per row: the body of each side, −1 for a side without one */
  size_t jac_stride;      /* bytes from one row's jac to the next: 12 doubles for a packed array,
                             the size of a row record where jac points into an array of records */
  size_t body_stride;     /* the same for body: 2 ints packed */
  const int *body_start;  /* bodies + 1: body b's entries are body_entry[body_start[b], body_start[b + 1]) */
  const int *body_entry;  /* 2 · row + side, rows increasing within a body */
  const int *active;      /* the bodies with at least one entry, increasing; NULL: every body */
  int active_count;       /* (with active NULL: bodies) */
  double scale;           /* s */
  double *u;              /* 6 per body slot: M̂⁻¹ Jᵀ x of the last product (written for active bodies) */
} clt_body_rows_t;

/* y = A x, leaving M̂⁻¹ Jᵀ x in op->u for the active bodies. parallel: OpenMP over bodies and rows
 * (the same numbers either way). */
void clt_body_rows_apply(const clt_body_rows_t *op, bool parallel, const double *x, double *y);

/* Only the first half: op->u = M̂⁻¹ Jᵀ x for the active bodies (a velocity change from impulses x). */
void clt_body_rows_accumulate(const clt_body_rows_t *op, bool parallel, const double *x);

#define CLT_BODY_ROWS_PACKED_JAC (12 * sizeof(double))
#define CLT_BODY_ROWS_PACKED_BODY (2 * sizeof(int))

/* Row p's Jacobian blocks and bodies, whatever the layout. */
static inline const double *clt_body_rows_jac(const clt_body_rows_t *op, int p) {
  return (const double *)(const void *)((const char *)op->jac + op->jac_stride * (size_t)p);
}
static inline const int *clt_body_rows_body(const clt_body_rows_t *op, int p) {
  return (const int *)(const void *)((const char *)op->body + op->body_stride * (size_t)p);
}

#endif
