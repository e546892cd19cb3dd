/* clatter — reading complementarity problems written by other projects (shared/data/README.md):
 * Siconos .dat LCPs (§3.2), Siconos .dat local frictional contact problems (§3.3, dense / SBM /
 * CSparse storage), and FCLIB HDF5 files (§3.4, local and global). Library clatter_problems. */
#ifndef CLATTER_PROBLEMS_H
#define CLATTER_PROBLEMS_H

#include "clatter/solvers.h"

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef enum clt_problem_kind_t {
  CLT_PROBLEM_LCP,
  CLT_PROBLEM_FC_LOCAL,
  CLT_PROBLEM_FC_GLOBAL
} clt_problem_kind_t;

/* Storage of the loaded matrices, whatever the file's storage (dense column-major, SBM, CSparse,
 * FCLIB CSR/CSC/triplet): lcp_M is DENSE row-major (LCP files are small; Lemke pivots densely);
 * local.W, global.M and global.H are CSR with sorted columns, duplicates summed and exact zeros
 * dropped. A global M stored as one triangle only (LMGC90 dumps, e.g. CubeH8.hdf5) is mirrored
 * into the full symmetric matrix. Everything is owned by the struct: clt_problem_file_free. */
typedef struct clt_problem_file_t {
  clt_problem_kind_t kind;
  /* CLT_PROBLEM_LCP */
  int lcp_n;
  clt_matrix_t lcp_M;
  double *lcp_q;
  /* CLT_PROBLEM_FC_LOCAL / CLT_PROBLEM_FC_GLOBAL */
  clt_fc_local_t local;
  clt_fc_global_t global;
} clt_problem_file_t;

/* Loads a problem file, detecting its kind from the content (HDF5 signature, or the token layout
 * of the .dat formats). On error returns CLT_ERR_IO or CLT_ERR_FORMAT and writes into message a
 * reason naming the file and the line (text) or dataset (HDF5), e.g.
 *   "lcp_x.dat:12: expected a number, found 'abc'"
 *   "x.hdf5: /fclib_local/W/p: column pointer 7 out of range". Non-finite numbers are errors. */
clt_status_t clt_problem_file_load(const char *path, clt_problem_file_t *out, char *message,
                                   size_t message_size);
void clt_problem_file_free(clt_problem_file_t *p);

const char *clt_problem_kind_name(clt_problem_kind_t kind); /* "lcp", "fc_local", "fc_global" */

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
