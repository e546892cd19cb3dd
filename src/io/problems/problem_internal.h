/* clatter — shared pieces of the problem-file readers (shared/data/README.md §3): error
 * formatting, and the assembly of CSR matrices from (row, col, value) triplets, which every
 * storage form (dense column-major, SBM, CSparse CSC/CSR/triplet, FCLIB CSR/CSC/triplet) is
 * reduced to before it becomes a clt_matrix_t. */
#ifndef CLATTER_PROBLEM_INTERNAL_H
#define CLATTER_PROBLEM_INTERNAL_H

#include <stddef.h>

#include "clatter/problems.h"

/* A growable triplet list. */
typedef struct clt_triplets_t {
  int rows;
  int cols;
  int count;
  int capacity;
  int *row;
  int *col;
  double *value;
} clt_triplets_t;

/* Reserves room for `extra` more entries; returns 0 on success, -1 when out of memory. */
int clt_triplets_reserve(clt_triplets_t *t, long long extra);
void clt_triplets_push(clt_triplets_t *t, int row, int col, double value); /* after reserve */
void clt_triplets_free(clt_triplets_t *t);

/* Builds a CSR matrix (column indices sorted within rows, duplicates summed, exact zeros
 * dropped). Returns CLT_OK or CLT_ERR_OUT_OF_MEMORY. Indices must already be in range. */
clt_status_t clt_triplets_to_csr(const clt_triplets_t *t, clt_matrix_t *out);
/* Builds a dense row-major matrix (duplicates summed). */
clt_status_t clt_triplets_to_dense(const clt_triplets_t *t, clt_matrix_t *out);

/* snprintf into message (never overflows; message may be NULL). */
void clt_problem_message(char *message, size_t message_size, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The readers: fill out (zeroed by the caller) or return an error with the message set. */
clt_status_t clt_read_dat_problem(const char *path, clt_problem_file_t *out, char *message,
                                  size_t message_size);
clt_status_t clt_read_fclib_problem(const char *path, clt_problem_file_t *out, char *message,
                                    size_t message_size);

#endif
