/* clatter._clatter: the module, its errors and helpers (docs/python.md). */
#define CLATTER_PYTHON_MAIN
#include "module.h"

#include <string.h>

/* clatter.errors, imported when the module is: the classes the C code raises */
static PyObject *errors_module = NULL;

/* errors.raise_status(status_name, message) builds the instance: the Python side chooses the class
 * (clatter/errors.py) so that C and Python agree on one table */
static PyObject *raise_via(const char *function, clt_status_t status, const char *message) {
  PyObject *fn = errors_module ? PyObject_GetAttrString(errors_module, function) : NULL;
  if (!fn) {
    PyErr_Clear();
    PyErr_Format(PyExc_RuntimeError, "%s (%s)", message, clt_status_name(status));
    return NULL;
  }
  PyObject *exc = PyObject_CallFunction(fn, "ss", clt_status_name(status), message);
  Py_DECREF(fn);
  if (!exc) return NULL;
  PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
  Py_DECREF(exc);
  return NULL;
}

PyObject *clt_py_raise(clt_status_t status, const char *message) { return raise_via("from_status", status, message); }

PyObject *clt_py_raise_scene(clt_status_t status, const char *message) {
  return raise_via("scene_error", status, message);
}

int clt_py_strings(PyObject *seq, const char ***out, int *count, PyObject **keep) {
  *out = NULL;
  *count = 0;
  *keep = NULL;
  if (!seq || seq == Py_None) return 0;
  PyObject *list = PySequence_List(seq);
  if (!list) return -1;
  Py_ssize_t n = PyList_GET_SIZE(list);
  if (n > 1 << 20) {
    Py_DECREF(list);
    PyErr_SetString(PyExc_ValueError, "too many overrides");
    return -1;
  }
  const char **strings = PyMem_Calloc((size_t)n + 1, sizeof *strings);
  if (!strings) {
    Py_DECREF(list);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = PyList_GET_ITEM(list, i);
    if (!PyUnicode_Check(item)) {
      PyErr_Format(PyExc_TypeError, "overrides must be strings \"path=value\" (item %zd is %s)", i,
                   Py_TYPE(item)->tp_name);
      PyMem_Free(strings);
      Py_DECREF(list);
      return -1;
    }
    strings[i] = PyUnicode_AsUTF8(item);
    if (!strings[i]) {
      PyMem_Free(strings);
      Py_DECREF(list);
      return -1;
    }
  }
  *out = strings;
  *count = (int)n;
  *keep = list;
  return 0;
}

PyArrayObject *clt_py_vector(PyObject *obj, npy_intp count, const char *what) {
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_DOUBLE, 0, 1, NPY_ARRAY_IN_ARRAY);
  if (!a) {
    PyErr_Format(PyExc_TypeError, "%s: expected %zd numbers", what, (Py_ssize_t)count);
    return NULL;
  }
  if (PyArray_SIZE(a) != count) {
    PyErr_Format(PyExc_ValueError, "%s: expected %zd numbers (got %zd)", what, (Py_ssize_t)count,
                 (Py_ssize_t)PyArray_SIZE(a));
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

/* ---------------------------------------------------------------------------------------------
 * Module functions */

static PyObject *py_default_scene(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyUnicode_FromString(clt_scene_default_json());
}

static PyObject *py_solver_names(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  PyObject *list = PyList_New(0);
  for (int k = 0;; k++) {
    const char *name = clt_solver_kind_name((clt_solver_kind_t)k);
    if (!name || strcmp(name, "unknown") == 0) break;
    PyObject *s = PyUnicode_FromString(name);
    PyList_Append(list, s);
    Py_DECREF(s);
  }
  return list;
}

#define SET_ITEM(dict, key, value)                         \
  do {                                                     \
    PyObject *v_ = (value);                                \
    if (!v_ || PyDict_SetItemString(dict, key, v_) < 0) {  \
      Py_XDECREF(v_);                                      \
      Py_DECREF(dict);                                     \
      return NULL;                                         \
    }                                                      \
    Py_DECREF(v_);                                         \
  } while (0)

/* run_summary(path) -> dict: clt_output_read_summary, what `clatter info` prints */
static PyObject *py_run_summary(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *path_obj;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj)) return NULL;
  clt_output_summary_t s;
  char message[1024];
  clt_status_t st;
  Py_BEGIN_ALLOW_THREADS
  st = clt_output_read_summary(PyBytes_AS_STRING(path_obj), &s, message, sizeof message);
  Py_END_ALLOW_THREADS
  Py_DECREF(path_obj);
  if (st != CLT_OK) return clt_py_raise(st, message);
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  SET_ITEM(d, "format", PyUnicode_FromString(s.format));
  SET_ITEM(d, "format_version", PyLong_FromLong(s.format_version));
  SET_ITEM(d, "clatter_version", PyUnicode_FromString(s.clatter_version));
  SET_ITEM(d, "scene", PyUnicode_FromString(s.scene));
  SET_ITEM(d, "dimension", PyLong_FromLong(s.dimension));
  SET_ITEM(d, "time_step", PyFloat_FromDouble(s.time_step));
  SET_ITEM(d, "total_steps", PyLong_FromLongLong(s.total_steps));
  SET_ITEM(d, "status", PyUnicode_FromString(s.status));
  SET_ITEM(d, "status_message", PyUnicode_FromString(s.status_message));
  SET_ITEM(d, "steps", PyLong_FromLongLong(s.steps));
  SET_ITEM(d, "final_time", PyFloat_FromDouble(s.final_time));
  SET_ITEM(d, "bodies", PyLong_FromLong(s.bodies));
  SET_ITEM(d, "frames", PyLong_FromLongLong(s.frames));
  SET_ITEM(d, "max_infeasibility", PyFloat_FromDouble(s.max_infeasibility));
  SET_ITEM(d, "max_penetration", PyFloat_FromDouble(s.max_penetration));
  SET_ITEM(d, "unconverged_steps", PyLong_FromLongLong(s.unconverged_steps));
  SET_ITEM(d, "checkpoint_step", PyLong_FromLongLong(s.checkpoint_step));
  SET_ITEM(d, "first_step", PyLong_FromLongLong(s.first_step));
  SET_ITEM(d, "state_hash", PyUnicode_FromString(s.state_hash));
  SET_ITEM(d, "state_hash_step", PyLong_FromLongLong(s.state_hash_step));
  return d;
}

static PyMethodDef module_methods[] = {
    {"default_scene", py_default_scene, METH_NOARGS,
     "default_scene() -> str\n\nThe built-in default scene (scenes/examples/default.json) as JSON text."},
    {"solver_names", py_solver_names, METH_NOARGS, "solver_names() -> list[str]\n\nThe solvers by name."},
    {"run_summary", py_run_summary, METH_VARARGS,
     "run_summary(path) -> dict\n\nThe summary of a run file that `clatter info` prints."},
    {"solve_lcp", (PyCFunction)(void (*)(void))clt_py_solve_lcp, METH_VARARGS | METH_KEYWORDS,
     "solve_lcp(M, q, solver, free_count, tolerance, max_iterations, relaxation, z0, threads) -> tuple\n\n"
     "The standalone LCP solve (clatter.solve_lcp wraps it)."},
    {"solve_fc", (PyCFunction)(void (*)(void))clt_py_solve_fc, METH_VARARGS | METH_KEYWORDS,
     "solve_fc(W, q, mu, dim, tolerance, max_iterations, relaxation, r0) -> tuple\n\n"
     "The frictional contact solve (clatter.solve_fc wraps it)."},
    {"load_problem", (PyCFunction)(void (*)(void))clt_py_load_problem, METH_VARARGS | METH_KEYWORDS,
     "load_problem(path) -> dict\n\nA Siconos .dat or FCLIB HDF5 problem (clatter.load_problem wraps it)."},
    {"analyze", (PyCFunction)(void (*)(void))clt_py_analyze, METH_VARARGS | METH_KEYWORDS,
     "analyze(path, what, *, frames, region, axis, bins, plane, min_contacts, centre, heap_radius, fit) -> dict\n\n"
     "A granular measurement of a run file's frames (clatter.analyze wraps it)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "clatter._clatter",
                                        "The C extension of the clatter package (see clatter).", -1,
                                        module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__clatter(void) {
  import_array();
  errors_module = PyImport_ImportModule("clatter.errors");
  if (!errors_module) return NULL;
  if (PyType_Ready(&clt_py_world_type) < 0) return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  Py_INCREF(&clt_py_world_type);
  if (PyModule_AddObject(m, "World", (PyObject *)&clt_py_world_type) < 0) {
    Py_DECREF(&clt_py_world_type);
    Py_DECREF(m);
    return NULL;
  }
  PyModule_AddStringConstant(m, "VERSION", CLATTER_VERSION_STRING);
  PyModule_AddIntConstant(m, "STATE_SIZE", (long)sizeof(clt_body_state_t));
  return m;
}
