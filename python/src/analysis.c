/* Granular measurements of run files (clatter/analysis.h): clatter.analyze wraps this, with the
 * request `clatter analyze` makes from its options and the same table, column by column. */
#include "module.h"

#include <string.h>

#include "clatter/analysis.h"

/* A number or a sequence of at most max numbers (None: 0 of them); −1 with an exception. */
static int numbers(PyObject *obj, double *out, int max, const char *what) {
  if (obj == Py_None) return 0;
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_DOUBLE, 0, 1, NPY_ARRAY_IN_ARRAY);
  if (!a) {
    PyErr_Format(PyExc_TypeError, "%s: expected a sequence of numbers", what);
    return -1;
  }
  npy_intp n = PyArray_SIZE(a);
  if (n > max) {
    PyErr_Format(PyExc_ValueError, "%s: at most %d numbers (got %zd)", what, max, (Py_ssize_t)n);
    Py_DECREF(a);
    return -1;
  }
  memcpy(out, PyArray_DATA(a), sizeof(double) * (size_t)n);
  Py_DECREF(a);
  return (int)n;
}

/* analyze(path, what, frames, region, axis, bins, plane, min_contacts, centre, heap_radius, fit)
 *   -> dict column name -> array (int64 for integer columns, float64 otherwise), in column order */
PyObject *clt_py_analyze(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *keywords[] = {"path",  "what",         "frames", "region",      "axis", "bins",
                             "plane", "min_contacts", "centre", "heap_radius", "fit",  NULL};
  PyObject *path_obj, *frames = Py_None, *region = Py_None, *plane = Py_None, *centre = Py_None, *fit = Py_None;
  const char *what;
  int axis = -1, bins = 0, min_contacts = 2;
  double heap_radius = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&s|$OOiiOiOdO", keywords, PyUnicode_FSConverter, &path_obj, &what,
                                   &frames, &region, &axis, &bins, &plane, &min_contacts, &centre, &heap_radius, &fit))
    return NULL;
  char message[2048];
  clt_analysis_request_t r = clt_default_analysis_request(clt_analysis_kind_from_name(what));
  if (r.kind == CLT_ANALYSIS_KIND_COUNT) {
    Py_DECREF(path_obj);
    snprintf(message, sizeof message,
             "what: unknown '%s' (packing, coordination, forces, stress, profile, repose, flow)", what);
    return clt_py_raise(CLT_ERR_INVALID_ARGUMENT, message);
  }
  r.axis = axis;
  r.bins = bins;
  r.min_contacts = min_contacts;
  r.repose.heap_radius = heap_radius;
  double v[7];
  int nr = 0, nc = 0, nf = 0, np = 0, nfit = 0;
  double region_v[7], centre_v[4], fit_v[3], plane_v[2];
  if (frames != Py_None && (nf = numbers(frames, v, 3, "frames")) < 0) goto fail;
  if (frames != Py_None) {
    if (nf != 3) {
      PyErr_SetString(PyExc_ValueError, "frames: expected (first, last, stride)");
      goto fail;
    }
    r.frames_given = true;
    r.first = (int64_t)v[0];
    r.last = (int64_t)v[1];
    r.stride = (int64_t)v[2];
  }
  if ((nr = numbers(region, region_v, 7, "region")) < 0 || (nc = numbers(centre, centre_v, 4, "centre")) < 0 ||
      (nfit = numbers(fit, fit_v, 3, "fit")) < 0 || (np = numbers(plane, plane_v, 2, "plane")) < 0)
    goto fail;
  if (fit != Py_None) {
    if (nfit != 2) {
      PyErr_SetString(PyExc_ValueError, "fit: expected (min, max), fractions of the heap radius");
      goto fail;
    }
    r.repose.fit_min = fit_v[0];
    r.repose.fit_max = fit_v[1];
  }
  if (plane != Py_None) {
    if (np != 1) {
      PyErr_SetString(PyExc_ValueError, "plane: expected one number");
      goto fail;
    }
    r.has_plane = true;
    r.plane = plane_v[0];
  }
  clt_analysis_run_t *run = NULL;
  clt_analysis_table_t table;
  clt_status_t st;
  Py_BEGIN_ALLOW_THREADS st = clt_analysis_open(PyBytes_AS_STRING(path_obj), &run, message, sizeof message);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  path_obj = NULL;
  if (st != CLT_OK) return clt_py_raise(st, message);
  int dimension = clt_analysis_dimension(run);
  if (region != Py_None) {
    st = clt_analysis_box_from_numbers(dimension, region_v, nr, &r.region, message, sizeof message);
    r.has_region = true;
  }
  if (st == CLT_OK && centre != Py_None) {
    if (nc != dimension && !(dimension == 3 && nc == 2)) {
      snprintf(message, sizeof message, "centre: expected %s [m] (got %d numbers)",
               dimension == 3 ? "(x, y) or (x, y, z)" : "(x, y)", nc);
      st = CLT_ERR_INVALID_ARGUMENT;
    } else {
      for (int k = 0; k < 3; k++) r.repose.centre[k] = k < nc ? centre_v[k] : 0;
      r.repose.has_centre = true;
    }
  }
  if (st == CLT_OK) {
    Py_BEGIN_ALLOW_THREADS st = clt_analysis_table(run, &r, &table, message, sizeof message);
    Py_END_ALLOW_THREADS
  }
  clt_analysis_close(run);
  if (st != CLT_OK) return clt_py_raise(st, message);
  PyObject *out = PyDict_New();
  for (int c = 0; out && c < table.column_count; c++) {
    npy_intp n = (npy_intp)table.row_count;
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, &n, table.integer[c] ? NPY_INT64 : NPY_DOUBLE);
    if (!a) {
      Py_CLEAR(out);
      break;
    }
    for (int64_t row = 0; row < table.row_count; row++) {
      double x = table.values[row * table.column_count + c];
      if (table.integer[c])
        ((int64_t *)PyArray_DATA(a))[row] = (int64_t)x;
      else
        ((double *)PyArray_DATA(a))[row] = x;
    }
    if (PyDict_SetItemString(out, table.names[c], (PyObject *)a) < 0) Py_CLEAR(out);
    Py_DECREF(a);
  }
  clt_analysis_table_free(&table);
  return out;
fail:
  Py_XDECREF(path_obj);
  return NULL;
}
