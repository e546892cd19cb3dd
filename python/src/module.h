/* The clatter Python extension (clatter._clatter): what its files share. It is written against the
 * public C API only (include/clatter/), with NumPy's C API for the arrays (docs/python.md). */
#ifndef CLATTER_PYTHON_MODULE_H
#define CLATTER_PYTHON_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL clatter_ARRAY_API
#ifndef CLATTER_PYTHON_MAIN
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "clatter/clatter.h"
#include "clatter/output.h"
#include "clatter/problems.h"
#include "clatter/scene.h"

/* Raises the clatter.errors class of status (clatter.Error for an unknown one) with message.
 * Returns NULL, for `return raise_status(...)`. */
PyObject *clt_py_raise(clt_status_t status, const char *message);
/* Raises clatter.SceneError for a scene reader's message "SOURCE: PATH: reason" (the Python class
 * splits it). Returns NULL. */
PyObject *clt_py_raise_scene(clt_status_t status, const char *message);

/* A sequence of str → a malloc'ed array of UTF-8 pointers into the str objects (kept alive by the
 * caller's reference to the sequence's items, which *keep holds: a list). 0 on success, −1 with an
 * exception. */
int clt_py_strings(PyObject *seq, const char ***out, int *count, PyObject **keep);

/* A float64 array of exactly `count` values from obj (any sequence or array); NULL with an
 * exception naming `what`. The caller owns the returned reference. */
PyArrayObject *clt_py_vector(PyObject *obj, npy_intp count, const char *what);

extern PyTypeObject clt_py_world_type;

/* solvers.c */
PyObject *clt_py_solve_lcp(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *clt_py_solve_fc(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *clt_py_load_problem(PyObject *self, PyObject *args, PyObject *kwargs);

/* analysis.c */
PyObject *clt_py_analyze(PyObject *self, PyObject *args, PyObject *kwargs);

#endif
