/* The standalone solvers from NumPy arrays (clatter/solvers.h) and the problem files
 * (clatter/problems.h): clatter.solve_lcp, clatter.solve_fc, clatter.load_problem wrap these. */
#include "module.h"

#include <string.h>

/* A square float64 C-contiguous matrix of size n (n < 0: any, set from the array). */
static PyArrayObject *square_matrix(PyObject *obj, int *n, const char *what) {
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_DOUBLE, 2, 2, NPY_ARRAY_IN_ARRAY);
  if (!a) {
    PyErr_Format(PyExc_TypeError, "%s: expected a 2-D array of numbers", what);
    return NULL;
  }
  npy_intp rows = PyArray_DIM(a, 0), cols = PyArray_DIM(a, 1);
  if (rows != cols || rows > 1 << 20 || (*n >= 0 && rows != *n)) {
    PyErr_Format(PyExc_ValueError, "%s: expected a square matrix%s (got %zd x %zd)", what,
                 *n >= 0 ? " matching q" : "", (Py_ssize_t)rows, (Py_ssize_t)cols);
    Py_DECREF(a);
    return NULL;
  }
  *n = (int)rows;
  return a;
}

static int solver_from(PyObject *name_obj, clt_solver_kind_t *kind) {
  const char *name = PyUnicode_AsUTF8(name_obj);
  if (!name) return -1;
  if (!clt_solver_kind_from_name(name, kind)) {
    PyErr_Format(PyExc_ValueError, "unknown solver '%s' (lemke, bgs, apgd, bbpgd, mprgp)", name);
    return -1;
  }
  return 0;
}

static PyObject *result_tuple(PyArrayObject *x, PyArrayObject *y, const clt_solve_result_t *r) {
  return Py_BuildValue("(NNsidds)", (PyObject *)x, (PyObject *)y, clt_solver_status_name(r->status), r->iterations,
                       r->residual, r->residual_abs, r->message);
}

/* solve_lcp(M, q, solver, free_count, tolerance, max_iterations, relaxation, z0, threads)
 *   -> (z, w, status, iterations, residual, residual_abs, message) */
PyObject *clt_py_solve_lcp(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *keywords[] = {"M", "q", "solver", "free_count", "tolerance", "max_iterations", "relaxation", "z0",
                             "threads", NULL};
  PyObject *m_obj, *q_obj, *solver_obj, *z0_obj = Py_None;
  int free_count = 0, max_iterations = 100000, threads = 0;
  double tolerance = 1e-10, relaxation = 1.0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOU|idid$Oi", keywords, &m_obj, &q_obj, &solver_obj, &free_count,
                                   &tolerance, &max_iterations, &relaxation, &z0_obj, &threads))
    return NULL;
  clt_solver_kind_t kind;
  if (solver_from(solver_obj, &kind) < 0) return NULL;
  PyArrayObject *q = (PyArrayObject *)PyArray_FROMANY(q_obj, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
  if (!q) return NULL;
  int n = (int)PyArray_DIM(q, 0);
  PyArrayObject *m = square_matrix(m_obj, &n, "M");
  if (!m) {
    Py_DECREF(q);
    return NULL;
  }
  npy_intp dims[1] = {n};
  PyArrayObject *z = (PyArrayObject *)PyArray_ZEROS(1, dims, NPY_DOUBLE, 0);
  PyArrayObject *w = (PyArrayObject *)PyArray_ZEROS(1, dims, NPY_DOUBLE, 0);
  if (!z || !w) goto fail;
  clt_solver_options_t options = clt_default_solver_options();
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  options.relaxation = relaxation;
  options.threads = threads;
  if (z0_obj != Py_None) {
    PyArrayObject *z0 = clt_py_vector(z0_obj, n, "z0");
    if (!z0) goto fail;
    memcpy(PyArray_DATA(z), PyArray_DATA(z0), (size_t)n * sizeof(double));
    Py_DECREF(z0);
    options.warm_start = true;
  }
  clt_matrix_t M = {.kind = CLT_MATRIX_DENSE, .rows = n, .cols = n, .values = PyArray_DATA(m)};
  clt_lcp_t problem = {.n = n, .M = &M, .q = PyArray_DATA(q), .free_count = free_count};
  clt_solve_result_t result;
  memset(&result, 0, sizeof result);
  clt_status_t st;
  Py_BEGIN_ALLOW_THREADS
  st = clt_lcp_solve(kind, &problem, &options, PyArray_DATA(z), PyArray_DATA(w), &result);
  Py_END_ALLOW_THREADS
  Py_DECREF(m);
  Py_DECREF(q);
  if (st != CLT_OK) {
    Py_DECREF(z);
    Py_DECREF(w);
    return clt_py_raise(st, result.message[0] ? result.message : "solve_lcp: invalid problem");
  }
  return result_tuple(z, w, &result);
fail:
  Py_XDECREF(z);
  Py_XDECREF(w);
  Py_DECREF(m);
  Py_DECREF(q);
  return NULL;
}

/* The local problem's W: a dense square array, or CSR given as (data, indices, indptr) with the
 * shape (scipy.sparse.csr_matrix's attributes, passed by clatter.solve_fc). */
typedef struct {
  PyArrayObject *values, *col, *row;
} csr_keep_t;

static int matrix_from(PyObject *obj, int m, clt_matrix_t *out, csr_keep_t *keep) {
  memset(out, 0, sizeof *out);
  memset(keep, 0, sizeof *keep);
  if (PyTuple_Check(obj) && PyTuple_GET_SIZE(obj) == 3) {
    keep->values = (PyArrayObject *)PyArray_FROMANY(PyTuple_GET_ITEM(obj, 0), NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
    keep->col = (PyArrayObject *)PyArray_FROMANY(PyTuple_GET_ITEM(obj, 1), NPY_INT, 1, 1, NPY_ARRAY_IN_ARRAY);
    keep->row = (PyArrayObject *)PyArray_FROMANY(PyTuple_GET_ITEM(obj, 2), NPY_INT, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (!keep->values || !keep->col || !keep->row) return -1;
    int nnz = (int)PyArray_DIM(keep->values, 0);
    if (PyArray_DIM(keep->row, 0) != m + 1 || PyArray_DIM(keep->col, 0) != nnz ||
        ((int *)PyArray_DATA(keep->row))[m] != nnz || ((int *)PyArray_DATA(keep->row))[0] != 0) {
      PyErr_SetString(PyExc_ValueError, "W: a CSR matrix (data, indices, indptr) of m rows, indptr[0] = 0 and "
                                        "indptr[m] = len(data)");
      return -1;
    }
    const int *row = PyArray_DATA(keep->row), *col = PyArray_DATA(keep->col);
    for (int i = 0; i < m; i++) {
      if (row[i + 1] < row[i]) {
        PyErr_SetString(PyExc_ValueError, "W: indptr must not decrease");
        return -1;
      }
      for (int k = row[i]; k < row[i + 1]; k++)
        if (col[k] < 0 || col[k] >= m || (k > row[i] && col[k] <= col[k - 1])) {
          PyErr_Format(PyExc_ValueError, "W: row %d: column indices must be sorted, unique and in [0, %d)", i, m);
          return -1;
        }
    }
    *out = (clt_matrix_t){.kind = CLT_MATRIX_CSR, .rows = m, .cols = m, .values = PyArray_DATA(keep->values),
                          .row_ptr = (int *)row, .col_index = (int *)col, .nnz = nnz};
    return 0;
  }
  int n = m;
  keep->values = square_matrix(obj, &n, "W");
  if (!keep->values) return -1;
  *out = (clt_matrix_t){.kind = CLT_MATRIX_DENSE, .rows = m, .cols = m, .values = PyArray_DATA(keep->values)};
  return 0;
}

static void csr_release(csr_keep_t *keep) {
  Py_XDECREF(keep->values);
  Py_XDECREF(keep->col);
  Py_XDECREF(keep->row);
}

/* solve_fc(W, q, mu, dim, tolerance, max_iterations, relaxation, r0)
 *   -> (r, u, status, iterations, residual, residual_abs, message) */
PyObject *clt_py_solve_fc(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *keywords[] = {"W", "q", "mu", "dim", "tolerance", "max_iterations", "relaxation", "r0", NULL};
  PyObject *w_obj, *q_obj, *mu_obj, *r0_obj = Py_None;
  int dim = 3, max_iterations = 10000;
  double tolerance = 1e-8, relaxation = 1.0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|idid$O", keywords, &w_obj, &q_obj, &mu_obj, &dim, &tolerance,
                                   &max_iterations, &relaxation, &r0_obj))
    return NULL;
  if (dim != 2 && dim != 3) {
    PyErr_Format(PyExc_ValueError, "dim must be 2 or 3 (got %d)", dim);
    return NULL;
  }
  PyArrayObject *q = (PyArrayObject *)PyArray_FROMANY(q_obj, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
  if (!q) return NULL;
  int m = (int)PyArray_DIM(q, 0);
  if (m % dim != 0) {
    Py_DECREF(q);
    PyErr_Format(PyExc_ValueError, "q: its length %d is not a multiple of dim %d", m, dim);
    return NULL;
  }
  int contacts = m / dim;
  PyArrayObject *mu = clt_py_vector(mu_obj, contacts, "mu");
  if (!mu) {
    Py_DECREF(q);
    return NULL;
  }
  clt_matrix_t W;
  csr_keep_t keep;
  PyArrayObject *r = NULL, *u = NULL;
  if (matrix_from(w_obj, m, &W, &keep) < 0) goto fail;
  npy_intp dims[1] = {m};
  r = (PyArrayObject *)PyArray_ZEROS(1, dims, NPY_DOUBLE, 0);
  u = (PyArrayObject *)PyArray_ZEROS(1, dims, NPY_DOUBLE, 0);
  if (!r || !u) goto fail;
  clt_solver_options_t options = clt_default_solver_options();
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  options.relaxation = relaxation;
  if (r0_obj != Py_None) {
    PyArrayObject *r0 = clt_py_vector(r0_obj, m, "r0");
    if (!r0) goto fail;
    memcpy(PyArray_DATA(r), PyArray_DATA(r0), (size_t)m * sizeof(double));
    Py_DECREF(r0);
    options.warm_start = true;
  }
  clt_fc_local_t problem = {.dim = dim, .contacts = contacts, .W = W, .q = PyArray_DATA(q), .mu = PyArray_DATA(mu)};
  clt_solve_result_t result;
  memset(&result, 0, sizeof result);
  clt_status_t st;
  Py_BEGIN_ALLOW_THREADS
  st = clt_fc_local_solve(&problem, &options, PyArray_DATA(r), PyArray_DATA(u), &result);
  Py_END_ALLOW_THREADS
  csr_release(&keep);
  Py_DECREF(q);
  Py_DECREF(mu);
  if (st != CLT_OK) {
    Py_DECREF(r);
    Py_DECREF(u);
    return clt_py_raise(st, result.message[0] ? result.message : "solve_fc: invalid problem");
  }
  return result_tuple(r, u, &result);
fail:
  csr_release(&keep);
  Py_XDECREF(r);
  Py_XDECREF(u);
  Py_DECREF(q);
  Py_DECREF(mu);
  return NULL;
}

static PyObject *copy_vector(const double *v, int n) {
  npy_intp dims[1] = {n};
  PyArrayObject *a = (PyArrayObject *)PyArray_ZEROS(1, dims, NPY_DOUBLE, 0);
  if (a && n > 0) memcpy(PyArray_DATA(a), v, (size_t)n * sizeof(double));
  return (PyObject *)a;
}

/* A library matrix as NumPy: dense → 2-D array, CSR → (data, indices, indptr, shape) */
static PyObject *copy_matrix(const clt_matrix_t *m) {
  if (m->kind == CLT_MATRIX_DENSE) {
    npy_intp dims[2] = {m->rows, m->cols};
    PyArrayObject *a = (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_DOUBLE, 0);
    if (a && m->rows > 0 && m->cols > 0)
      memcpy(PyArray_DATA(a), m->values, (size_t)m->rows * (size_t)m->cols * sizeof(double));
    return (PyObject *)a;
  }
  npy_intp nnz[1] = {m->nnz}, rows1[1] = {m->rows + 1};
  PyArrayObject *data = (PyArrayObject *)PyArray_ZEROS(1, nnz, NPY_DOUBLE, 0);
  PyArrayObject *col = (PyArrayObject *)PyArray_ZEROS(1, nnz, NPY_INT, 0);
  PyArrayObject *row = (PyArrayObject *)PyArray_ZEROS(1, rows1, NPY_INT, 0);
  if (!data || !col || !row) {
    Py_XDECREF(data);
    Py_XDECREF(col);
    Py_XDECREF(row);
    return NULL;
  }
  if (m->nnz > 0) {
    memcpy(PyArray_DATA(data), m->values, (size_t)m->nnz * sizeof(double));
    memcpy(PyArray_DATA(col), m->col_index, (size_t)m->nnz * sizeof(int));
  }
  memcpy(PyArray_DATA(row), m->row_ptr, (size_t)(m->rows + 1) * sizeof(int));
  return Py_BuildValue("(NNN(ii))", data, col, row, m->rows, m->cols);
}

PyObject *clt_py_load_problem(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *keywords[] = {"path", NULL};
  PyObject *path_obj;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&", keywords, PyUnicode_FSConverter, &path_obj)) return NULL;
  clt_problem_file_t p;
  char message[2048];
  clt_status_t st;
  Py_BEGIN_ALLOW_THREADS
  st = clt_problem_file_load(PyBytes_AS_STRING(path_obj), &p, message, sizeof message);
  Py_END_ALLOW_THREADS
  Py_DECREF(path_obj);
  if (st != CLT_OK) return clt_py_raise(st, message);
  PyObject *d = NULL;
  if (p.kind == CLT_PROBLEM_LCP) {
    d = Py_BuildValue("{s:s,s:N,s:N}", "kind", "lcp", "M", copy_matrix(&p.lcp_M), "q", copy_vector(p.lcp_q, p.lcp_n));
  } else if (p.kind == CLT_PROBLEM_FC_LOCAL) {
    int m = p.local.dim * p.local.contacts;
    d = Py_BuildValue("{s:s,s:i,s:N,s:N,s:N}", "kind", "fc_local", "dim", p.local.dim, "W", copy_matrix(&p.local.W),
                      "q", copy_vector(p.local.q, m), "mu", copy_vector(p.local.mu, p.local.contacts));
  } else {
    int m = p.global.dim * p.global.contacts;
    d = Py_BuildValue("{s:s,s:i,s:N,s:N,s:N,s:N,s:N}", "kind", "fc_global", "dim", p.global.dim, "M",
                      copy_matrix(&p.global.M), "H", copy_matrix(&p.global.H), "f", copy_vector(p.global.f, p.global.n),
                      "w", copy_vector(p.global.w, m), "mu", copy_vector(p.global.mu, p.global.contacts));
    /* the condensed local problem, which solve_fc solves */
    clt_fc_local_t local;
    memset(&local, 0, sizeof local);
    if (d && clt_fc_global_condense(&p.global, &local) == CLT_OK) {
      PyObject *W = copy_matrix(&local.W), *q = copy_vector(local.q, m);
      if (W && q) {
        PyDict_SetItemString(d, "W", W);
        PyDict_SetItemString(d, "q", q);
      }
      Py_XDECREF(W);
      Py_XDECREF(q);
      clt_fc_local_free(&local);
    }
  }
  clt_problem_file_free(&p);
  return d;
}
