/* Checks of the solver layer's matrices shared by the solvers' argument checks (solvers.h). */
#ifndef CLATTER_SOLVERS_MATRIX_INTERNAL_H
#define CLATTER_SOLVERS_MATRIX_INTERNAL_H

#include <stdbool.h>

#include "clatter/solvers.h"

/* Whether m can be read as a rows × cols matrix (rows, cols < 0: any size): not NULL, a known
 * kind, the arrays its size needs present, CSR row pointers spanning [0, nnz]. Entries and column
 * indices are not examined. */
bool clt_matrix_usable(const clt_matrix_t *m, int rows, int cols);

#endif
