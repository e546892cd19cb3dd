/* clatter — FCLIB HDF5 problems (shared/data/README.md §3.4), read with the HDF5 Lite API:
 * /fclib_local (W, q, mu) and /fclib_global (M, H, f, w, mu). A matrix group holds m, n, nz,
 * p, i, x with nz ≥ 0: triplet (i = row, p = column — the CSparse convention the files use, not
 * the fclib.h comment), nz = −1: CSC, nz = −2: CSR. Indices are 0-based. Every error names the
 * dataset. HDF5's own error printing is switched off during the read (the library never
 * prints) and restored afterwards. */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/problems/problem_internal.h"

typedef struct reader_t {
  const char *path;
  hid_t file;
  long long max_dim; /* largest matrix dimension the file can back: its size / sizeof(double) */
  char *message;
  size_t message_size;
} reader_t;

static clt_status_t fail(reader_t *rd, const char *dataset, const char *reason) {
  clt_problem_message(rd->message, rd->message_size, "%s: %s: %s", rd->path, dataset, reason);
  return CLT_ERR_FORMAT;
}

static int exists(reader_t *rd, const char *path) {
  /* H5Lexists needs every intermediate link to exist: check each prefix. */
  char prefix[256];
  size_t length = strlen(path);
  if (length >= sizeof prefix) return 0;
  for (size_t k = 1; k <= length; k++) {
    if (k == length || path[k] == '/') {
      memcpy(prefix, path, k);
      prefix[k] = '\0';
      if (H5Lexists(rd->file, prefix, H5P_DEFAULT) <= 0) return 0;
    }
  }
  return 1;
}

/* Whether the dataset's storage holds its claimed bytes: a dataset that was never written reads
 * as fill values, and a damaged or crafted file may claim billions of them. Compressed storage
 * may be up to about a thousandth of the data (deflate's best ratio is 1032:1). */
static bool stored(reader_t *rd, const char *path, unsigned long long bytes) {
  hid_t d = H5Dopen2(rd->file, path, H5P_DEFAULT);
  if (d < 0) return false;
  unsigned long long have = H5Dget_storage_size(d);
  hid_t dcpl = H5Dget_create_plist(d);
  bool filtered = dcpl >= 0 && H5Pget_nfilters(dcpl) > 0;
  if (dcpl >= 0) H5Pclose(dcpl);
  H5Dclose(d);
  return filtered ? bytes / 1100 <= have : bytes <= have;
}

/* Length of a rank-1 (or scalar) dataset, or -1 with the message set. */
static long long dataset_length(reader_t *rd, const char *path) {
  if (!exists(rd, path)) {
    fail(rd, path, "missing dataset");
    return -1;
  }
  int rank = 0;
  if (H5LTget_dataset_ndims(rd->file, path, &rank) < 0 || rank > 2) {
    fail(rd, path, "not a readable vector dataset");
    return -1;
  }
  hsize_t dims[2] = {1, 1};
  H5T_class_t type_class;
  size_t type_size;
  if (H5LTget_dataset_info(rd->file, path, dims, &type_class, &type_size) < 0) {
    fail(rd, path, "cannot read the dataset's shape");
    return -1;
  }
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT) {
    fail(rd, path, "not a numeric dataset");
    return -1;
  }
  long long length = 1;
  for (int k = 0; k < rank; k++) {
    if (dims[k] != 0 && (unsigned long long)length > (unsigned long long)rd->max_dim / dims[k]) {
      fail(rd, path, "claims more entries than the file has bytes");
      return -1;
    }
    length *= (long long)dims[k];
  }
  if (!stored(rd, path, (unsigned long long)length * type_size)) {
    fail(rd, path, "claims more entries than the file stores");
    return -1;
  }
  return length;
}

static clt_status_t read_int_scalar(reader_t *rd, const char *path, int *value) {
  long long length = dataset_length(rd, path);
  if (length < 0) return CLT_ERR_FORMAT;
  if (length != 1) return fail(rd, path, "expected one integer");
  if (H5LTread_dataset_int(rd->file, path, value) < 0) return fail(rd, path, "read failed");
  return CLT_OK;
}

/* Reads an integer array of at least `need` entries (allocates length + 1). */
static clt_status_t read_int_array(reader_t *rd, const char *path, long long need, int **out) {
  long long length = dataset_length(rd, path);
  if (length < 0) return CLT_ERR_FORMAT;
  if (length < need) {
    char reason[128];
    snprintf(reason, sizeof reason, "has %lld entries, %lld needed", length, need);
    return fail(rd, path, reason);
  }
  int *v = malloc(((size_t)length + 1) * sizeof *v);
  if (!v) return fail(rd, path, "out of memory");
  if (length > 0 && H5LTread_dataset_int(rd->file, path, v) < 0) {
    free(v);
    return fail(rd, path, "read failed");
  }
  *out = v;
  return CLT_OK;
}

/* Reads a double array of exactly `need` entries (at least, when at_least), all finite. */
static clt_status_t read_double_array(reader_t *rd, const char *path, long long need,
                                      int at_least, double **out) {
  long long length = dataset_length(rd, path);
  if (length < 0) return CLT_ERR_FORMAT;
  if (at_least ? length < need : length != need) {
    char reason[128];
    snprintf(reason, sizeof reason, "has %lld entries, %s%lld expected", length,
             at_least ? "at least " : "", need);
    return fail(rd, path, reason);
  }
  double *v = malloc(((size_t)length + 1) * sizeof *v);
  if (!v) return fail(rd, path, "out of memory");
  if (length > 0 && H5LTread_dataset_double(rd->file, path, v) < 0) {
    free(v);
    return fail(rd, path, "read failed");
  }
  for (long long k = 0; k < length; k++) {
    if (!isfinite(v[k])) {
      char reason[128];
      snprintf(reason, sizeof reason, "entry %lld is not finite (%g)", k, v[k]);
      free(v);
      return fail(rd, path, reason);
    }
  }
  *out = v;
  return CLT_OK;
}

/* Reads the matrix group `group` (e.g. "/fclib_local/W") into CSR. rows/cols < 0: take the
 * file's; otherwise they must match. */
static clt_status_t read_matrix(reader_t *rd, const char *group, int rows, int cols,
                                clt_matrix_t *out) {
  char path[256], reason[160];
  int m, n, nz;
  clt_status_t st;
  snprintf(path, sizeof path, "%s/m", group);
  if ((st = read_int_scalar(rd, path, &m)) != CLT_OK) return st;
  snprintf(path, sizeof path, "%s/n", group);
  if ((st = read_int_scalar(rd, path, &n)) != CLT_OK) return st;
  if (m <= 0 || n <= 0 || (rows >= 0 && m != rows) || (cols >= 0 && n != cols)) {
    snprintf(reason, sizeof reason, "matrix is %d x %d, expected %d x %d", m, n, rows, cols);
    return fail(rd, group, reason);
  }
  /* every row and column pairs with a vector entry (q; f and w): a file of B bytes backs at most
   * B / 8 of them, and the CSR built below costs memory in proportion */
  if (m > rd->max_dim || n > rd->max_dim) {
    snprintf(reason, sizeof reason, "matrix is %d x %d, more than a file of its size can hold", m, n);
    return fail(rd, group, reason);
  }
  snprintf(path, sizeof path, "%s/nz", group);
  if ((st = read_int_scalar(rd, path, &nz)) != CLT_OK) return st;
  if (nz < -2) {
    snprintf(reason, sizeof reason, "nz = %d is neither a triplet count nor -1 / -2", nz);
    return fail(rd, path, reason);
  }
  char p_path[256], i_path[256], x_path[256];
  snprintf(p_path, sizeof p_path, "%s/p", group);
  snprintf(i_path, sizeof i_path, "%s/i", group);
  snprintf(x_path, sizeof x_path, "%s/x", group);
  int *p = NULL, *idx = NULL;
  double *x = NULL;
  clt_triplets_t t = {0};
  t.rows = m;
  t.cols = n;
  if (nz >= 0) {
    /* triplet: i = row, p = column (README §3.4 pitfall) */
    if ((st = read_int_array(rd, p_path, nz, &p)) != CLT_OK) goto done;
    if ((st = read_int_array(rd, i_path, nz, &idx)) != CLT_OK) goto done;
    if ((st = read_double_array(rd, x_path, nz, 1, &x)) != CLT_OK) goto done;
    if (clt_triplets_reserve(&t, nz) != 0) {
      st = fail(rd, group, "out of memory");
      goto done;
    }
    for (int k = 0; k < nz; k++) {
      if (idx[k] < 0 || idx[k] >= m) {
        snprintf(reason, sizeof reason, "row index %d (entry %d) out of range [0, %d)", idx[k],
                 k, m);
        st = fail(rd, i_path, reason);
        goto done;
      }
      if (p[k] < 0 || p[k] >= n) {
        snprintf(reason, sizeof reason, "column index %d (entry %d) out of range [0, %d)", p[k],
                 k, n);
        st = fail(rd, p_path, reason);
        goto done;
      }
      clt_triplets_push(&t, idx[k], p[k], x[k]);
    }
  } else {
    const int csr = nz == -2;
    const int outer = csr ? m : n, inner = csr ? n : m;
    const char *outer_name = csr ? "row" : "column", *inner_name = csr ? "column" : "row";
    if ((st = read_int_array(rd, p_path, (long long)outer + 1, &p)) != CLT_OK) goto done;
    if (p[0] != 0) {
      snprintf(reason, sizeof reason, "%s pointer 0 is %d, not 0", outer_name, p[0]);
      st = fail(rd, p_path, reason);
      goto done;
    }
    for (int k = 0; k < outer; k++) {
      if (p[k + 1] < p[k]) {
        snprintf(reason, sizeof reason, "%s pointer %d (= %d) decreases", outer_name, k + 1,
                 p[k + 1]);
        st = fail(rd, p_path, reason);
        goto done;
      }
    }
    int count = p[outer];
    if ((st = read_int_array(rd, i_path, count, &idx)) != CLT_OK) goto done;
    if ((st = read_double_array(rd, x_path, count, 1, &x)) != CLT_OK) goto done;
    if (clt_triplets_reserve(&t, count) != 0) {
      st = fail(rd, group, "out of memory");
      goto done;
    }
    for (int j = 0; j < outer; j++) {
      for (int k = p[j]; k < p[j + 1]; k++) {
        if (idx[k] < 0 || idx[k] >= inner) {
          snprintf(reason, sizeof reason, "%s index %d (entry %d) out of range [0, %d)",
                   inner_name, idx[k], k, inner);
          st = fail(rd, i_path, reason);
          goto done;
        }
        clt_triplets_push(&t, csr ? j : idx[k], csr ? idx[k] : j, x[k]);
      }
    }
  }
  st = clt_triplets_to_csr(&t, out);
  if (st != CLT_OK) fail(rd, group, "out of memory");
done:
  free(p);
  free(idx);
  free(x);
  clt_triplets_free(&t);
  return st;
}

/* M is symmetric positive definite (README §2.3), but some dumps (CubeH8.hdf5, written by
 * LMGC90) store only one triangle: 3006 entries above the diagonal, none below. Such a matrix is
 * mirrored into the full symmetric M; a matrix with entries on both sides is kept as stored. */
static clt_status_t symmetrize_triangle(reader_t *rd, clt_matrix_t *M) {
  int upper = 0, lower = 0;
  for (int i = 0; i < M->rows; i++)
    for (int k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++) {
      if (M->col_index[k] > i) upper++;
      else if (M->col_index[k] < i) lower++;
    }
  if ((upper == 0) == (lower == 0)) return CLT_OK; /* diagonal, or both triangles stored */
  clt_triplets_t t = {0};
  t.rows = M->rows;
  t.cols = M->cols;
  if (clt_triplets_reserve(&t, 2LL * M->row_ptr[M->rows]) != 0)
    return fail(rd, "/fclib_global/M", "out of memory");
  for (int i = 0; i < M->rows; i++)
    for (int k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++) {
      clt_triplets_push(&t, i, M->col_index[k], M->values[k]);
      if (M->col_index[k] != i) clt_triplets_push(&t, M->col_index[k], i, M->values[k]);
    }
  clt_matrix_t full;
  clt_status_t st = clt_triplets_to_csr(&t, &full);
  clt_triplets_free(&t);
  if (st != CLT_OK) return fail(rd, "/fclib_global/M", "out of memory");
  clt_matrix_free(M);
  *M = full;
  return CLT_OK;
}

static clt_status_t read_spacedim(reader_t *rd, const char *path, int *dim) {
  clt_status_t st = read_int_scalar(rd, path, dim);
  if (st != CLT_OK) return st;
  if (*dim != 2 && *dim != 3) {
    char reason[96];
    snprintf(reason, sizeof reason, "spacedim %d is not supported (2 or 3)", *dim);
    return fail(rd, path, reason);
  }
  return CLT_OK;
}

static clt_status_t check_mu(reader_t *rd, const char *path, const double *mu, int nc) {
  for (int a = 0; a < nc; a++) {
    if (mu[a] < 0.0) {
      char reason[96];
      snprintf(reason, sizeof reason, "friction coefficient %d is negative (%g)", a, mu[a]);
      return fail(rd, path, reason);
    }
  }
  return CLT_OK;
}

static clt_status_t read_local(reader_t *rd, clt_problem_file_t *out) {
  clt_fc_local_t *p = &out->local;
  clt_status_t st;
  out->kind = CLT_PROBLEM_FC_LOCAL;
  if ((st = read_spacedim(rd, "/fclib_local/spacedim", &p->dim)) != CLT_OK) return st;
  if ((st = read_matrix(rd, "/fclib_local/W", -1, -1, &p->W)) != CLT_OK) return st;
  int m = p->W.rows;
  if (p->W.cols != m || m % p->dim != 0) {
    char reason[128];
    snprintf(reason, sizeof reason, "W is %d x %d: not square with a multiple of %d rows", m,
             p->W.cols, p->dim);
    return fail(rd, "/fclib_local/W", reason);
  }
  p->contacts = m / p->dim;
  if ((st = read_double_array(rd, "/fclib_local/vectors/q", m, 0, &p->q)) != CLT_OK) return st;
  if ((st = read_double_array(rd, "/fclib_local/vectors/mu", p->contacts, 0, &p->mu)) != CLT_OK)
    return st;
  return check_mu(rd, "/fclib_local/vectors/mu", p->mu, p->contacts);
}

static clt_status_t read_global(reader_t *rd, clt_problem_file_t *out) {
  clt_fc_global_t *p = &out->global;
  clt_status_t st;
  out->kind = CLT_PROBLEM_FC_GLOBAL;
  if ((st = read_spacedim(rd, "/fclib_global/spacedim", &p->dim)) != CLT_OK) return st;
  if (exists(rd, "/fclib_global/G"))
    return fail(rd, "/fclib_global/G", "equality constraints (G, b) are not supported");
  if ((st = read_matrix(rd, "/fclib_global/M", -1, -1, &p->M)) != CLT_OK) return st;
  if (p->M.cols != p->M.rows) return fail(rd, "/fclib_global/M", "M is not square");
  if ((st = symmetrize_triangle(rd, &p->M)) != CLT_OK) return st;
  p->n = p->M.rows;
  if ((st = read_matrix(rd, "/fclib_global/H", p->n, -1, &p->H)) != CLT_OK) return st;
  int m = p->H.cols;
  if (m % p->dim != 0) return fail(rd, "/fclib_global/H", "column count is not a multiple of spacedim");
  p->contacts = m / p->dim;
  if ((st = read_double_array(rd, "/fclib_global/vectors/f", p->n, 0, &p->f)) != CLT_OK) return st;
  if ((st = read_double_array(rd, "/fclib_global/vectors/w", m, 0, &p->w)) != CLT_OK) return st;
  if ((st = read_double_array(rd, "/fclib_global/vectors/mu", p->contacts, 0, &p->mu)) != CLT_OK)
    return st;
  return check_mu(rd, "/fclib_global/vectors/mu", p->mu, p->contacts);
}

clt_status_t clt_read_fclib_problem(const char *path, clt_problem_file_t *out, char *message,
                                    size_t message_size) {
  H5E_auto2_t old_func = NULL;
  void *old_data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  struct stat file_stat;
  reader_t rd = {path, -1, stat(path, &file_stat) == 0 ? (long long)file_stat.st_size / (long long)sizeof(double) : 0,
                 message, message_size};
  clt_status_t st;
  rd.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (rd.file < 0) {
    clt_problem_message(message, message_size, "%s: cannot open as HDF5", path);
    st = CLT_ERR_IO;
  } else if (H5Lexists(rd.file, "/fclib_local", H5P_DEFAULT) > 0) {
    st = read_local(&rd, out);
  } else if (H5Lexists(rd.file, "/fclib_global", H5P_DEFAULT) > 0) {
    st = read_global(&rd, out);
  } else {
    st = fail(&rd, "/", "neither /fclib_local nor /fclib_global: not an FCLIB problem");
  }
  if (rd.file >= 0) H5Fclose(rd.file);
  H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
  return st;
}
