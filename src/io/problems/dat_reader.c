/* clatter — Siconos text problem files (shared/data/README.md §3.1–3.3): the NumericsMatrix
 * serialisation (storage 0 dense COLUMN-MAJOR, 1 SBM with cumulative block offsets and
 * column-major blocks, 2 CSparse text dump whose values carry only %g's 6 digits), the LCP .dat
 * ("n M q") and the local frictional-contact .dat ("d nc W q mu").
 *
 * The whole file is read into memory and tokenised on whitespace, keeping line numbers so that
 * every error names "file:line". Every number must be finite; every size and index is checked
 * before it is used. */
#include <limits.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/problems/problem_internal.h"

typedef struct lexer_t {
  const char *path;
  char *buf;
  size_t len;
  size_t pos;
  int line;      /* line of the next unread character */
  int tok_line;  /* line of the last token returned */
  char *message;
  size_t message_size;
} lexer_t;

static int next_token(lexer_t *lx, const char **start, size_t *length) {
  while (lx->pos < lx->len && isspace((unsigned char)lx->buf[lx->pos])) {
    if (lx->buf[lx->pos] == '\n') lx->line++;
    lx->pos++;
  }
  if (lx->pos >= lx->len) return 0; /* tok_line stays on the last token's line */
  lx->tok_line = lx->line;
  *start = lx->buf + lx->pos;
  while (lx->pos < lx->len && !isspace((unsigned char)lx->buf[lx->pos])) lx->pos++;
  *length = (size_t)(lx->buf + lx->pos - *start);
  return 1;
}

/* Copies a token for messages and parsing (truncated to fit). */
static void token_copy(const char *start, size_t length, char *out, size_t out_size) {
  size_t n = length < out_size - 1 ? length : out_size - 1;
  memcpy(out, start, n);
  out[n] = '\0';
}

static clt_status_t eof_error(lexer_t *lx, const char *what) {
  clt_problem_message(lx->message, lx->message_size,
                      "%s:%d: unexpected end of file (truncated?) while reading %s", lx->path,
                      lx->tok_line, what);
  return CLT_ERR_FORMAT;
}

static clt_status_t read_double(lexer_t *lx, const char *what, double *value) {
  const char *start;
  size_t length;
  if (!next_token(lx, &start, &length)) return eof_error(lx, what);
  char text[64];
  token_copy(start, length, text, sizeof text);
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (length >= sizeof text || end == text || *end != '\0') {
    clt_problem_message(lx->message, lx->message_size,
                        "%s:%d: expected a number for %s, found '%s'", lx->path, lx->tok_line,
                        what, text);
    return CLT_ERR_FORMAT;
  }
  if (!isfinite(v)) {
    clt_problem_message(lx->message, lx->message_size, "%s:%d: non-finite number '%s' in %s",
                        lx->path, lx->tok_line, text, what);
    return CLT_ERR_FORMAT;
  }
  *value = v;
  return CLT_OK;
}

/* An integer token; CSparse dumps write indices with %g, so a token like "1.5e+06" is accepted
 * when it denotes an integer exactly. */
static clt_status_t read_int(lexer_t *lx, const char *what, int *value) {
  const char *start;
  size_t length;
  if (!next_token(lx, &start, &length)) return eof_error(lx, what);
  char text[64];
  token_copy(start, length, text, sizeof text);
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (length < sizeof text && end != text && *end == '\0' && errno == 0 && v >= -2147483647L &&
      v <= 2147483647L) {
    *value = (int)v;
    return CLT_OK;
  }
  double d = strtod(text, &end);
  if (length < sizeof text && end != text && *end == '\0' && isfinite(d) && d == floor(d) &&
      fabs(d) <= 2147483647.0) {
    *value = (int)d;
    return CLT_OK;
  }
  clt_problem_message(lx->message, lx->message_size,
                      "%s:%d: expected an integer for %s, found '%s'", lx->path, lx->tok_line,
                      what, text);
  return CLT_ERR_FORMAT;
}

/* Expects a literal token (e.g. ":" or "to" in the CSparse dump). */
static clt_status_t expect_word(lexer_t *lx, const char *word, const char *what) {
  const char *start;
  size_t length;
  if (!next_token(lx, &start, &length)) return eof_error(lx, what);
  if (length != strlen(word) || memcmp(start, word, length) != 0) {
    char text[64];
    token_copy(start, length, text, sizeof text);
    clt_problem_message(lx->message, lx->message_size, "%s:%d: expected '%s' in %s, found '%s'",
                        lx->path, lx->tok_line, word, what, text);
    return CLT_ERR_FORMAT;
  }
  return CLT_OK;
}

/* Returns the rest of the current line (from pos to the newline, exclusive) and moves past it. */
static void rest_of_line(lexer_t *lx, char *out, size_t out_size) {
  size_t start = lx->pos;
  while (lx->pos < lx->len && lx->buf[lx->pos] != '\n') lx->pos++;
  token_copy(lx->buf + start, lx->pos - start, out, out_size);
}

/* The next non-blank line, whole. Returns 0 at end of file. */
static int next_line(lexer_t *lx, char *out, size_t out_size) {
  while (lx->pos < lx->len && isspace((unsigned char)lx->buf[lx->pos])) {
    if (lx->buf[lx->pos] == '\n') lx->line++;
    lx->pos++;
  }
  if (lx->pos >= lx->len) return 0;
  lx->tok_line = lx->line;
  rest_of_line(lx, out, out_size);
  return 1;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static clt_status_t size_error(lexer_t *lx, const char *format, ...) {
  char text[200];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  clt_problem_message(lx->message, lx->message_size, "%s:%d: %s", lx->path, lx->tok_line, text);
  return CLT_ERR_FORMAT;
}

static clt_status_t oom(lexer_t *lx) {
  clt_problem_message(lx->message, lx->message_size, "%s: out of memory", lx->path);
  return CLT_ERR_OUT_OF_MEMORY;
}

/* A count of numbers still to be read cannot exceed half the bytes left (one digit and one
 * separator each): rejects absurd sizes before any allocation. */
static int plausible_count(const lexer_t *lx, long long count) {
  return count >= 0 && count <= (long long)(lx->len - lx->pos) / 2 + 1;
}

/* ---- NumericsMatrix payloads → triplets ------------------------------------------------- */

static clt_status_t read_dense(lexer_t *lx, int size0, int size1, clt_triplets_t *t) {
  int s0, s1;
  clt_status_t st;
  if ((st = read_int(lx, "the dense matrix's row count", &s0)) != CLT_OK) return st;
  if ((st = read_int(lx, "the dense matrix's column count", &s1)) != CLT_OK) return st;
  if (s0 != size0 || s1 != size1)
    return size_error(lx, "dense payload size %d x %d differs from the matrix header",
                      s0, s1);
  long long count = (long long)size0 * size1;
  if (!plausible_count(lx, count))
    return size_error(lx, "dense matrix of %lld entries is larger than the file (%lld bytes)", count,
                      (long long)lx->len);
  if (clt_triplets_reserve(t, count) != 0) return oom(lx);
  char what[96];
  for (long long k = 0; k < count; k++) {
    double v;
    /* column-major (README §3.1): the k-th number is M[k mod size0][k div size0] */
    int row = (int)(k % size0), col = (int)(k / size0);
    snprintf(what, sizeof what, "matrix entry (%d, %d)", row, col);
    if ((st = read_double(lx, what, &v)) != CLT_OK) return st;
    if (v != 0.0) clt_triplets_push(t, row, col, v);
  }
  return CLT_OK;
}

static clt_status_t read_int_array(lexer_t *lx, int count, const char *name, int *out) {
  char what[96];
  for (int k = 0; k < count; k++) {
    snprintf(what, sizeof what, "%s[%d]", name, k);
    clt_status_t st = read_int(lx, what, &out[k]);
    if (st != CLT_OK) return st;
  }
  return CLT_OK;
}

/* Checks cumulative block offsets: strictly increasing, positive, ending at size. */
static clt_status_t check_offsets(lexer_t *lx, const int *offsets, int count, int size,
                                  const char *name) {
  int previous = 0;
  for (int k = 0; k < count; k++) {
    if (offsets[k] <= previous) {
      clt_problem_message(lx->message, lx->message_size,
                          "%s:%d: %s[%d] = %d is not a cumulative offset above %d", lx->path,
                          lx->tok_line, name, k, offsets[k], previous);
      return CLT_ERR_FORMAT;
    }
    previous = offsets[k];
  }
  if (previous != size) {
    clt_problem_message(lx->message, lx->message_size,
                        "%s:%d: %s ends at %d but the matrix has %d", lx->path, lx->tok_line,
                        name, previous, size);
    return CLT_ERR_FORMAT;
  }
  return CLT_OK;
}

static clt_status_t read_sbm(lexer_t *lx, int size0, int size1, clt_triplets_t *t) {
  clt_status_t st;
  int nbblocks, bn0, bn1;
  if ((st = read_int(lx, "the SBM block count", &nbblocks)) != CLT_OK) return st;
  if ((st = read_int(lx, "the SBM block-row count", &bn0)) != CLT_OK) return st;
  if ((st = read_int(lx, "the SBM block-column count", &bn1)) != CLT_OK) return st;
  if (nbblocks < 0 || bn0 <= 0 || bn1 <= 0 || bn0 > size0 || bn1 > size1 ||
      !plausible_count(lx, nbblocks) || (long long)nbblocks > (long long)bn0 * bn1)
    return size_error(lx, "invalid SBM block counts (%d blocks, %d block rows)", nbblocks,
                      bn0);
  int *offsets0 = malloc((size_t)bn0 * sizeof *offsets0);
  int *offsets1 = malloc((size_t)bn1 * sizeof *offsets1);
  int *index1 = malloc(((size_t)bn0 + 1) * sizeof *index1);
  int *index2 = malloc(((size_t)nbblocks + 1) * sizeof *index2);
  if (!offsets0 || !offsets1 || !index1 || !index2) {
    st = oom(lx);
    goto done;
  }
  if ((st = read_int_array(lx, bn0, "blocksize0", offsets0)) != CLT_OK) goto done;
  if ((st = check_offsets(lx, offsets0, bn0, size0, "blocksize0")) != CLT_OK) goto done;
  if ((st = read_int_array(lx, bn1, "blocksize1", offsets1)) != CLT_OK) goto done;
  if ((st = check_offsets(lx, offsets1, bn1, size1, "blocksize1")) != CLT_OK) goto done;
  int filled1, filled2;
  if ((st = read_int(lx, "filled1", &filled1)) != CLT_OK) goto done;
  if (filled1 != bn0 + 1) {
    st = size_error(lx, "filled1 = %d, expected block rows + 1 = %d", filled1, bn0 + 1);
    goto done;
  }
  if ((st = read_int(lx, "filled2", &filled2)) != CLT_OK) goto done;
  if (filled2 != nbblocks) {
    st = size_error(lx, "filled2 = %d, expected the block count %d", filled2, nbblocks);
    goto done;
  }
  if ((st = read_int_array(lx, bn0 + 1, "index1_data", index1)) != CLT_OK) goto done;
  if (index1[0] != 0 || index1[bn0] != nbblocks) {
    st = size_error(lx, "index1_data runs from %d to %d, not from 0 to the block count",
                    index1[0], index1[bn0]);
    goto done;
  }
  for (int i = 0; i < bn0; i++) {
    if (index1[i + 1] < index1[i]) {
      st = size_error(lx, "index1_data[%d] = %d decreases", i + 1, index1[i + 1]);
      goto done;
    }
  }
  for (int k = 0; k < nbblocks; k++) {
    char what[64];
    snprintf(what, sizeof what, "index2_data[%d]", k);
    if ((st = read_int(lx, what, &index2[k])) != CLT_OK) goto done;
    if (index2[k] < 0 || index2[k] >= bn1) {
      st = size_error(lx, "block column index %d out of range [0, %d)", index2[k], bn1);
      goto done;
    }
  }
  for (int i = 0; i < bn0; i++) {
    int row0 = i == 0 ? 0 : offsets0[i - 1];
    int rows = offsets0[i] - row0;
    for (int k = index1[i]; k < index1[i + 1]; k++) {
      int number;
      char what[96];
      snprintf(what, sizeof what, "the number of block %d", k);
      if ((st = read_int(lx, what, &number)) != CLT_OK) goto done;
      if (number != k) {
        st = size_error(lx, "block number %d where block %d was expected", number, k);
        goto done;
      }
      int j = index2[k];
      int col0 = j == 0 ? 0 : offsets1[j - 1];
      int cols = offsets1[j] - col0;
      if (!plausible_count(lx, (long long)rows * cols)) {
        st = size_error(lx, "block of %d x %d entries is larger than the rest of the file",
                        rows, cols);
        goto done;
      }
      if (clt_triplets_reserve(t, (long long)rows * cols) != 0) {
        st = oom(lx);
        goto done;
      }
      for (int c = 0; c < cols; c++) {
        for (int r = 0; r < rows; r++) { /* blocks are column-major too */
          double v;
          snprintf(what, sizeof what, "entry (%d, %d) of block %d", r, c, k);
          if ((st = read_double(lx, what, &v)) != CLT_OK) goto done;
          if (v != 0.0) clt_triplets_push(t, row0 + r, col0 + c, v);
        }
      }
    }
  }
  st = CLT_OK;
done:
  free(offsets0);
  free(offsets1);
  free(index1);
  free(index2);
  return st;
}

static clt_status_t index_error(lexer_t *lx, const char *name, int value, int limit) {
  clt_problem_message(lx->message, lx->message_size, "%s:%d: %s index %d out of range [0, %d)",
                      lx->path, lx->tok_line, name, value, limit);
  return CLT_ERR_FORMAT;
}

/* CSparse text dump (cs_print format). Compressed forms print, per column (CSC) or row (CSR):
 *   "col j : locations p0 to p1"  then one "index : value" line per entry;
 * the triplet form prints "triplet: m-by-n, nzmax: .. nnz: .." then "i j : value" lines. */
static clt_status_t read_csparse(lexer_t *lx, int size0, int size1, clt_triplets_t *t) {
  clt_status_t st;
  int origin;
  if ((st = read_int(lx, "the sparse matrix origin (1 triplet, 2 CSC, 3 CSR)", &origin)) !=
      CLT_OK)
    return st;
  if (origin < 1 || origin > 3)
    return size_error(lx, "unknown sparse origin %d (expected 1, 2 or 3)", origin);
  char line[512];
  char dummy[8];
  rest_of_line(lx, dummy, sizeof dummy);
  if (!next_line(lx, line, sizeof line)) return eof_error(lx, "the CSparse banner");
  if (strncmp(line, "CSparse", 7) != 0 && strncmp(line, "CXSparse", 8) != 0) {
    clt_problem_message(lx->message, lx->message_size,
                        "%s:%d: expected the 'CSparse Version ...' banner, found '%.60s'",
                        lx->path, lx->tok_line, line);
    return CLT_ERR_FORMAT;
  }
  if (!next_line(lx, line, sizeof line)) return eof_error(lx, "the CSparse size line");
  const char *header = line;
  int triplet = 0;
  if (strncmp(header, "triplet:", 8) == 0) {
    triplet = 1;
    header += 8;
  } else if (strncmp(header, "csr:", 4) == 0) {
    header += 4;
  }
  double m = -1, n = -1, nzmax = -1, nnz = -1;
  if (sscanf(header, " %lf-by-%lf, nzmax: %lf nnz: %lf", &m, &n, &nzmax, &nnz) != 4) {
    clt_problem_message(lx->message, lx->message_size,
                        "%s:%d: cannot parse the sparse size line '%.60s'", lx->path,
                        lx->tok_line, line);
    return CLT_ERR_FORMAT;
  }
  if (m != size0 || n != size1)
    return size_error(lx, "sparse matrix is %g-by-%g, not the header's %d x %d", m, n,
                      size0, size1);
  if (!(nnz >= 0) || nnz != floor(nnz) || !plausible_count(lx, (long long)nnz))
    return size_error(lx, "invalid nnz %g", nnz);
  int count = (int)nnz;
  if (clt_triplets_reserve(t, count) != 0) return oom(lx);
  if (triplet || origin == 1) {
    for (int k = 0; k < count; k++) {
      int i, j;
      double v;
      if ((st = read_int(lx, "a triplet row index", &i)) != CLT_OK) return st;
      if ((st = read_int(lx, "a triplet column index", &j)) != CLT_OK) return st;
      if ((st = expect_word(lx, ":", "a triplet entry")) != CLT_OK) return st;
      if ((st = read_double(lx, "a triplet value", &v)) != CLT_OK) return st;
      if (i < 0 || i >= size0) return index_error(lx, "row", i, size0);
      if (j < 0 || j >= size1) return index_error(lx, "column", j, size1);
      if (v != 0.0) clt_triplets_push(t, i, j, v);
    }
    return CLT_OK;
  }
  const int csr = origin == 3;
  const char *outer_word = csr ? "row" : "col";
  const int outer_count = csr ? size0 : size1, inner_count = csr ? size1 : size0;
  int expected = 0;
  for (int j = 0; j < outer_count; j++) {
    int index, p0, p1;
    if ((st = expect_word(lx, outer_word, "a sparse column header")) != CLT_OK) return st;
    if ((st = read_int(lx, "a column number", &index)) != CLT_OK) return st;
    if (index != j) return size_error(lx, "column %d where %d was expected", index, j);
    if ((st = expect_word(lx, ":", "a sparse column header")) != CLT_OK) return st;
    if ((st = expect_word(lx, "locations", "a sparse column header")) != CLT_OK) return st;
    if ((st = read_int(lx, "a location", &p0)) != CLT_OK) return st;
    if ((st = expect_word(lx, "to", "a sparse column header")) != CLT_OK) return st;
    if ((st = read_int(lx, "a location", &p1)) != CLT_OK) return st;
    if (p0 != expected || p1 < p0 - 1 || p1 >= count)
      return size_error(lx, "column locations %d to %d are inconsistent", p0, p1);
    for (int p = p0; p <= p1; p++) {
      int i;
      double v;
      if ((st = read_int(lx, "a row index", &i)) != CLT_OK) return st;
      if ((st = expect_word(lx, ":", "a sparse entry")) != CLT_OK) return st;
      if ((st = read_double(lx, "a sparse value", &v)) != CLT_OK) return st;
      if (i < 0 || i >= inner_count) return index_error(lx, csr ? "column" : "row", i, inner_count);
      if (v != 0.0) clt_triplets_push(t, csr ? j : i, csr ? i : j, v);
    }
    expected = p1 + 1;
  }
  if (expected != count)
    return size_error(lx, "the columns hold %d entries, the header says %d", expected, count);
  return CLT_OK;
}

/* Reads "storage size0 size1 payload" into triplets. */
static clt_status_t read_numerics_matrix(lexer_t *lx, int expect0, int expect1,
                                         clt_triplets_t *t) {
  clt_status_t st;
  int storage, size0, size1;
  if ((st = read_int(lx, "the matrix storage type", &storage)) != CLT_OK) return st;
  if (storage < 0 || storage > 2)
    return size_error(lx, "unknown matrix storage type %d (expected 0, 1 or 2)",
                      storage);
  if ((st = read_int(lx, "the matrix row count", &size0)) != CLT_OK) return st;
  if ((st = read_int(lx, "the matrix column count", &size1)) != CLT_OK) return st;
  if (size0 != expect0 || size1 != expect1)
    return size_error(lx, "matrix is %d x %d, but the problem needs %d x %d", size0, size1,
                      expect0, expect1);
  t->rows = size0;
  t->cols = size1;
  switch (storage) {
    case 0: return read_dense(lx, size0, size1, t);
    case 1: return read_sbm(lx, size0, size1, t);
    default: return read_csparse(lx, size0, size1, t);
  }
}

static clt_status_t read_vector(lexer_t *lx, int n, const char *name, double **out) {
  if (!plausible_count(lx, n))
    return size_error(lx, "%s of length %d is larger than the rest of the file", name, n);
  double *v = malloc(((size_t)n + 1) * sizeof *v);
  if (!v) return oom(lx);
  char what[64];
  for (int k = 0; k < n; k++) {
    snprintf(what, sizeof what, "%s[%d]", name, k);
    clt_status_t st = read_double(lx, what, &v[k]);
    if (st != CLT_OK) {
      free(v);
      return st;
    }
  }
  *out = v;
  return CLT_OK;
}

/* ---- kind detection and the two layouts --------------------------------------------------- */

/* Peeks at the first tokens: an FC .dat is "d nc storage size0 size1 ..." with d ∈ {2,3} and
 * size0 = size1 = d·nc; an LCP .dat is "n storage size0 size1 ..." with size0 = size1 = n. The
 * only layout that fits both (n = 2 in SBM storage with two blocks vs d = 2, nc = 1 in CSparse
 * storage) is told apart by the CSparse banner, a word where the SBM has a number. */
static int peek_kind(lexer_t *lx, clt_problem_kind_t *kind) {
  lexer_t copy = *lx;
  long long tok[7];
  int numeric[7];
  int count = 0;
  const char *start;
  size_t length;
  while (count < 7 && next_token(&copy, &start, &length)) {
    char text[64], *end;
    token_copy(start, length, text, sizeof text);
    long long v = strtoll(text, &end, 10);
    numeric[count] = end != text && *end == '\0';
    tok[count] = numeric[count] ? v : 0;
    count++;
  }
  for (int k = count; k < 7; k++) numeric[k] = 0, tok[k] = 0;
  int fc = count >= 5 && numeric[0] && numeric[1] && numeric[2] && numeric[3] && numeric[4] &&
           (tok[0] == 2 || tok[0] == 3) && tok[1] >= 0 && tok[1] <= INT_MAX && tok[2] >= 0 && tok[2] <= 2 &&
           tok[3] == tok[0] * tok[1] && tok[4] == tok[3] && (tok[2] != 2 || !numeric[6]);
  int lcp = count >= 4 && numeric[0] && numeric[1] && numeric[2] && numeric[3] && tok[0] >= 0 &&
            tok[1] >= 0 && tok[1] <= 2 && tok[2] == tok[0] && tok[3] == tok[0];
  if (fc) {
    *kind = CLT_PROBLEM_FC_LOCAL;
    return 1;
  }
  if (lcp) {
    *kind = CLT_PROBLEM_LCP;
    return 1;
  }
  return 0;
}

static clt_status_t read_lcp(lexer_t *lx, clt_problem_file_t *out) {
  clt_status_t st;
  int n;
  if ((st = read_int(lx, "the LCP size n", &n)) != CLT_OK) return st;
  if (n <= 0 || !plausible_count(lx, (long long)n))
    return size_error(lx, "invalid LCP size %d", n);
  clt_triplets_t t = {0};
  st = read_numerics_matrix(lx, n, n, &t);
  if (st == CLT_OK) st = clt_triplets_to_dense(&t, &out->lcp_M);
  clt_triplets_free(&t);
  if (st == CLT_OK) st = read_vector(lx, n, "q", &out->lcp_q);
  if (st != CLT_OK) return st;
  out->kind = CLT_PROBLEM_LCP;
  out->lcp_n = n;
  return CLT_OK; /* anything after q is a comment (README §3.2) */
}

static clt_status_t read_fc(lexer_t *lx, clt_problem_file_t *out) {
  clt_status_t st;
  int d, nc;
  if ((st = read_int(lx, "the contact dimension d", &d)) != CLT_OK) return st;
  if (d != 2 && d != 3) return size_error(lx, "contact dimension %d is not 2 or 3", d);
  if ((st = read_int(lx, "the contact count", &nc)) != CLT_OK) return st;
  if (nc <= 0 || !plausible_count(lx, (long long)nc * d))
    return size_error(lx, "invalid contact count %d", nc);
  const int m = d * nc;
  out->kind = CLT_PROBLEM_FC_LOCAL;
  out->local.dim = d;
  out->local.contacts = nc;
  clt_triplets_t t = {0};
  st = read_numerics_matrix(lx, m, m, &t);
  if (st == CLT_OK) st = clt_triplets_to_csr(&t, &out->local.W);
  clt_triplets_free(&t);
  if (st == CLT_OK) st = read_vector(lx, m, "q", &out->local.q);
  if (st == CLT_OK) st = read_vector(lx, nc, "mu", &out->local.mu);
  if (st != CLT_OK) return st;
  for (int a = 0; a < nc; a++) {
    if (out->local.mu[a] < 0.0) {
      clt_problem_message(lx->message, lx->message_size,
                          "%s:%d: friction coefficient mu[%d] = %g is negative", lx->path,
                          lx->tok_line, a, out->local.mu[a]);
      return CLT_ERR_FORMAT;
    }
  }
  return CLT_OK;
}

clt_status_t clt_read_dat_problem(const char *path, clt_problem_file_t *out, char *message,
                                  size_t message_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    clt_problem_message(message, message_size, "%s: cannot open file", path);
    return CLT_ERR_IO;
  }
  size_t capacity = 1 << 16, length = 0;
  char *buf = malloc(capacity + 1);
  while (buf) {
    size_t got = fread(buf + length, 1, capacity - length, f);
    length += got;
    if (length < capacity) break;
    char *bigger = realloc(buf, capacity * 2 + 1);
    if (!bigger) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = bigger;
    capacity *= 2;
  }
  int read_error = ferror(f);
  fclose(f);
  if (!buf) {
    clt_problem_message(message, message_size, "%s: out of memory", path);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  if (read_error) {
    free(buf);
    clt_problem_message(message, message_size, "%s: read error", path);
    return CLT_ERR_IO;
  }
  buf[length] = '\0';
  lexer_t lx = {path, buf, length, 0, 1, 1, message, message_size};
  for (size_t k = 0; k < length; k++) {
    if (buf[k] == '\0') {
      free(buf);
      clt_problem_message(message, message_size,
                          "%s: binary content; not a Siconos .dat or FCLIB HDF5 problem", path);
      return CLT_ERR_FORMAT;
    }
  }
  clt_problem_kind_t kind;
  clt_status_t st;
  if (!peek_kind(&lx, &kind)) {
    clt_problem_message(message, message_size,
                        "%s:1: not a problem file: expected an LCP .dat (n storage n n ...), an "
                        "FC .dat (d nc storage d*nc d*nc ...) or FCLIB HDF5",
                        path);
    st = CLT_ERR_FORMAT;
  } else {
    st = kind == CLT_PROBLEM_LCP ? read_lcp(&lx, out) : read_fc(&lx, out);
  }
  free(buf);
  return st;
}
