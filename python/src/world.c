/* clatter._clatter.World: a world built from a scene, its arrays, its steps and its run files
 * (docs/python.md). clatter.World (clatter/__init__.py) derives from it.
 *
 * The state arrays (position, orientation, angle, velocity, angular_velocity) are NumPy views of the
 * library's own state array (clt_world_states): they change when the world steps, and a write into
 * them is the body's new state. The world is told of writes as world.h asks: a copy of the array
 * (shadow) is kept from the moment a view is first made, and before anything reads or steps the
 * world, each body whose entry differs from the copy gets its entry back and the written value
 * through clt_body_set_state, which checks it (finite, within the limits, a dynamic body) and
 * normalizes it. An invalid write is undone and raised. A world with a colony gains bodies as it
 * steps (its array moves): its arrays are read-only copies. */
#include "module.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

typedef struct {
  PyObject_HEAD
  clt_world_t *world;
  clt_scene_t *scene;
  clt_colony_t *colony;
  clt_body_state_t *shadow; /* the copy of the states the views were last synchronized with */
  int shadow_count;
  int busy;                 /* a step or a run is under way with the GIL released */
  PyObject *weakrefs;
} WorldObject;

/* ---------------------------------------------------------------------------------------------
 * Life */

static void world_dealloc(WorldObject *self) {
  if (self->weakrefs) PyObject_ClearWeakRefs((PyObject *)self);
  clt_colony_destroy(self->colony);
  clt_world_destroy(self->world);
  clt_scene_destroy(self->scene);
  PyMem_Free(self->shadow);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *world_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  (void)args;
  (void)kwargs;
  WorldObject *self = (WorldObject *)type->tp_alloc(type, 0);
  return (PyObject *)self;
}

static int check_ready(WorldObject *self) {
  if (!self->world) {
    PyErr_SetString(PyExc_RuntimeError,
                    "this World holds no world: make one with World.from_scene, World.from_json or a "
                    "clatter.Scene's build()");
    return -1;
  }
  if (self->busy) {
    PyErr_SetString(PyExc_RuntimeError, "the world is stepping in another thread");
    return -1;
  }
  return 0;
}

/* The views' writes, handed to the library (see the file's comment). 0, or −1 with the library's
 * message raised and every write undone. */
static int sync_writes(WorldObject *self) {
  if (!self->shadow) return 0;
  clt_body_state_t *states = clt_world_states(self->world);
  int n = clt_world_body_count(self->world);
  if (!states || n != self->shadow_count) return 0;
  if (memcmp(states, self->shadow, (size_t)n * sizeof *states) == 0) return 0;
  for (int i = 0; i < n; i++) {
    if (memcmp(&states[i], &self->shadow[i], sizeof *states) == 0) continue;
    clt_body_state_t written = states[i];
    states[i] = self->shadow[i];
    clt_status_t st = clt_body_set_state(self->world, clt_world_body_at(self->world, i), &written);
    if (st != CLT_OK) {
      memcpy(states, self->shadow, (size_t)n * sizeof *states);
      clt_py_raise(st, clt_world_error(self->world));
      return -1;
    }
  }
  memcpy(self->shadow, states, (size_t)n * sizeof *states);
  return 0;
}

/* After the library changed the states (a step, a load): the copy follows. */
static void refresh_shadow(WorldObject *self) {
  if (!self->shadow) return;
  clt_body_state_t *states = clt_world_states(self->world);
  int n = clt_world_body_count(self->world);
  if (states && n == self->shadow_count) memcpy(self->shadow, states, (size_t)n * sizeof *states);
}

/* check_ready, then the views' writes: what every method that reads or steps the world does first */
static int enter(WorldObject *self) {
  if (check_ready(self) < 0) return -1;
  return sync_writes(self);
}

/* Builds self's world (and colony) from a loaded scene; takes the scene. */
static PyObject *finish_build(PyTypeObject *type, clt_scene_t *scene) {
  char message[2048];
  clt_world_t *world = NULL;
  clt_status_t st;
  Py_BEGIN_ALLOW_THREADS
  st = clt_scene_create_world(scene, NULL, NULL, &world, message, sizeof message);
  Py_END_ALLOW_THREADS
  if (st != CLT_OK) {
    clt_scene_destroy(scene);
    return clt_py_raise_scene(st, message);
  }
  clt_colony_t *colony = NULL;
  if (clt_scene_colony(scene)) {
    st = clt_scene_create_colony(scene, world, &colony, message, sizeof message);
    if (st != CLT_OK) {
      clt_world_destroy(world);
      clt_scene_destroy(scene);
      return clt_py_raise_scene(st, message);
    }
  }
  WorldObject *self = (WorldObject *)type->tp_alloc(type, 0);
  if (!self) {
    clt_colony_destroy(colony);
    clt_world_destroy(world);
    clt_scene_destroy(scene);
    return NULL;
  }
  self->world = world;
  self->scene = scene;
  self->colony = colony;
  return (PyObject *)self;
}

/* A scene read from a file (path) or from text (source names it), with overrides; then its world.
 * The GIL is released while a file is read. */
static PyObject *build_scene(PyTypeObject *type, const char *path, const char *text, const char *source,
                             PyObject *sets_obj, PyObject *params_obj) {
  clt_scene_overrides_t ov = {0};
  PyObject *keep_sets = NULL, *keep_params = NULL;
  const char **sets = NULL, **params = NULL;
  PyObject *result = NULL;
  if (clt_py_strings(sets_obj, &sets, &ov.set_count, &keep_sets) < 0 ||
      clt_py_strings(params_obj, &params, &ov.param_count, &keep_params) < 0)
    goto done;
  ov.sets = sets;
  ov.params = params;
  char message[2048];
  clt_scene_t *scene = NULL;
  clt_status_t st;
  if (path) {
    Py_BEGIN_ALLOW_THREADS
    st = clt_scene_load(path, &ov, &scene, message, sizeof message);
    Py_END_ALLOW_THREADS
  } else {
    st = clt_scene_parse(text, source, &ov, &scene, message, sizeof message);
  }
  if (st != CLT_OK) {
    clt_py_raise_scene(st, message);
    goto done;
  }
  result = finish_build(type, scene);
done:
  PyMem_Free(sets);
  PyMem_Free(params);
  Py_XDECREF(keep_sets);
  Py_XDECREF(keep_params);
  return result;
}

/* _load(path, sets, params) and _parse(text, source, sets, params): classmethods */
static PyObject *world_load(PyObject *cls, PyObject *args) {
  PyObject *path_obj, *sets_obj = Py_None, *params_obj = Py_None;
  if (!PyArg_ParseTuple(args, "O&|OO", PyUnicode_FSConverter, &path_obj, &sets_obj, &params_obj)) return NULL;
  PyObject *result = build_scene((PyTypeObject *)cls, PyBytes_AS_STRING(path_obj), NULL, NULL, sets_obj, params_obj);
  Py_DECREF(path_obj);
  return result;
}

static PyObject *world_parse(PyObject *cls, PyObject *args) {
  const char *text, *source;
  PyObject *sets_obj = Py_None, *params_obj = Py_None;
  if (!PyArg_ParseTuple(args, "ss|OO", &text, &source, &sets_obj, &params_obj)) return NULL;
  return build_scene((PyTypeObject *)cls, NULL, text, source, sets_obj, params_obj);
}

/* ---------------------------------------------------------------------------------------------
 * Stepping */

static PyObject *world_step(WorldObject *self, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"n", NULL};
  long long n = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|L", keywords, &n)) return NULL;
  if (n < 0) {
    PyErr_Format(PyExc_ValueError, "step: n must be >= 0 (got %lld)", n);
    return NULL;
  }
  if (enter(self) < 0) return NULL;
  clt_status_t st = CLT_OK;
  self->busy = 1;
  for (long long i = 0; i < n; i++) {
    Py_BEGIN_ALLOW_THREADS
    st = self->colony ? clt_colony_grow(self->colony) : CLT_OK;
    if (st == CLT_OK && self->scene) st = clt_scene_drive(self->scene, self->world); /* its functions of time */
    if (st == CLT_OK) st = clt_world_step(self->world);
    Py_END_ALLOW_THREADS
    if (st != CLT_OK) break;
    /* Ctrl-C between two steps: the world is whole (its last step is complete) */
    if (i + 1 < n && PyErr_CheckSignals() < 0) {
      self->busy = 0;
      refresh_shadow(self);
      return NULL;
    }
  }
  self->busy = 0;
  refresh_shadow(self);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------------
 * State arrays */

/* A view (or, for a colony, a copy) of one field of every body's state: `width` doubles from byte
 * `offset` of each clt_body_state_t; width 0 is a scalar per body (angle). */
static PyObject *state_array(WorldObject *self, size_t offset, int width) {
  if (check_ready(self) < 0) return NULL;
  int n = clt_world_body_count(self->world);
  clt_body_state_t *states = clt_world_states(self->world);
  npy_intp dims[2] = {n, width};
  npy_intp strides[2] = {(npy_intp)sizeof(clt_body_state_t), (npy_intp)sizeof(double)};
  int nd = width > 0 ? 2 : 1;
  if (!states || self->colony) {
    PyArrayObject *copy = (PyArrayObject *)PyArray_ZEROS(nd, dims, NPY_DOUBLE, 0);
    if (!copy) return NULL;
    double *dst = PyArray_DATA(copy);
    int w = width > 0 ? width : 1;
    for (int i = 0; i < n; i++) memcpy(dst + (size_t)i * w, (const char *)&states[i] + offset, (size_t)w * sizeof(double));
    PyArray_CLEARFLAGS(copy, NPY_ARRAY_WRITEABLE);
    return (PyObject *)copy;
  }
  if (!self->shadow) {
    self->shadow = PyMem_Malloc((size_t)n * sizeof *self->shadow);
    if (!self->shadow) return PyErr_NoMemory();
    self->shadow_count = n;
    memcpy(self->shadow, states, (size_t)n * sizeof *states);
  }
  PyObject *view = PyArray_New(&PyArray_Type, nd, dims, NPY_DOUBLE, strides, (char *)states + offset, 0,
                               NPY_ARRAY_ALIGNED | NPY_ARRAY_WRITEABLE, NULL);
  if (!view) return NULL;
  Py_INCREF(self);
  if (PyArray_SetBaseObject((PyArrayObject *)view, (PyObject *)self) < 0) {
    Py_DECREF(view);
    return NULL;
  }
  return view;
}

/* world.position = values: written through the view, then checked at once */
static int state_assign(WorldObject *self, PyObject *value, size_t offset, int width, const char *name) {
  if (!value) {
    PyErr_Format(PyExc_AttributeError, "%s cannot be deleted", name);
    return -1;
  }
  if (self->colony) {
    PyErr_Format(PyExc_ValueError,
                 "%s: a world with a colony gains bodies as it steps, so its arrays are copies; set a cell's "
                 "state with set_body_state", name);
    return -1;
  }
  PyObject *view = state_array(self, offset, width);
  if (!view) return -1;
  int rc = PyArray_CopyObject((PyArrayObject *)view, value);
  Py_DECREF(view);
  if (rc < 0) return -1;
  return sync_writes(self);
}

#define STATE_FIELD(field, width)                                                                            \
  static PyObject *get_##field(WorldObject *self, void *closure) {                                           \
    (void)closure;                                                                                           \
    return state_array(self, offsetof(clt_body_state_t, field), width);                                      \
  }                                                                                                          \
  static int set_##field(WorldObject *self, PyObject *value, void *closure) {                                \
    (void)closure;                                                                                           \
    return state_assign(self, value, offsetof(clt_body_state_t, field), width, #field);                      \
  }
STATE_FIELD(position, 3)
STATE_FIELD(orientation, 4)
STATE_FIELD(angle, 0)
STATE_FIELD(velocity, 3)
STATE_FIELD(angular_velocity, 3)

static PyObject *world_body_state(WorldObject *self, PyObject *args) {
  int i;
  if (!PyArg_ParseTuple(args, "i", &i)) return NULL;
  if (enter(self) < 0) return NULL;
  clt_body_state_t s;
  clt_status_t st = clt_body_get_state(self->world, clt_world_body_at(self->world, i), &s);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  return Py_BuildValue("{s:(ddd),s:d,s:(dddd),s:(ddd),s:(ddd)}", "position", s.position[0], s.position[1],
                       s.position[2], "angle", s.angle, "orientation", s.orientation[0], s.orientation[1],
                       s.orientation[2], s.orientation[3], "velocity", s.velocity[0], s.velocity[1], s.velocity[2],
                       "angular_velocity", s.angular_velocity[0], s.angular_velocity[1], s.angular_velocity[2]);
}

static int read_field(PyObject *dict, const char *key, double *dst, npy_intp count) {
  PyObject *v = PyDict_GetItemString(dict, key);
  if (!v) return 0;
  PyArrayObject *a = clt_py_vector(v, count, key);
  if (!a) return -1;
  memcpy(dst, PyArray_DATA(a), (size_t)count * sizeof(double));
  Py_DECREF(a);
  return 0;
}

/* _set_body_state(i, dict): the fields given replace the body's (clt_body_set_state) */
static PyObject *world_set_body_state(WorldObject *self, PyObject *args) {
  int i;
  PyObject *dict;
  if (!PyArg_ParseTuple(args, "iO!", &i, &PyDict_Type, &dict)) return NULL;
  if (enter(self) < 0) return NULL;
  clt_body_id_t id = clt_world_body_at(self->world, i);
  clt_body_state_t s;
  clt_status_t st = clt_body_get_state(self->world, id, &s);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  if (read_field(dict, "position", s.position, 3) < 0 || read_field(dict, "angle", &s.angle, 1) < 0 ||
      read_field(dict, "orientation", s.orientation, 4) < 0 || read_field(dict, "velocity", s.velocity, 3) < 0 ||
      read_field(dict, "angular_velocity", s.angular_velocity, 3) < 0)
    return NULL;
  st = clt_body_set_state(self->world, id, &s);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  refresh_shadow(self);
  Py_RETURN_NONE;
}

static PyObject *world_body_info(WorldObject *self, PyObject *args) {
  int i;
  if (!PyArg_ParseTuple(args, "i", &i)) return NULL;
  if (check_ready(self) < 0) return NULL;
  clt_body_info_t info;
  clt_body_id_t id = clt_world_body_at(self->world, i);
  if (clt_body_id_is_null(id) && i >= 0 && i < clt_world_body_count(self->world))
    return clt_py_raise(CLT_ERR_STALE_HANDLE, "body_info: the body was removed (remove_body)");
  clt_status_t st = clt_body_get_info(self->world, id, &info);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  return Py_BuildValue("{s:s,s:s,s:d,s:(ddd),s:i}", "name", info.name, "type", clt_body_type_name(info.type), "mass",
                       info.mass, "inertia", info.inertia[0], info.inertia[1], info.inertia[2], "shape_count",
                       info.shape_count);
}

static PyObject *world_apply_load(WorldObject *self, PyObject *args) {
  int i, torque_only;
  PyObject *value_obj, *point_obj;
  if (!PyArg_ParseTuple(args, "iOOp", &i, &value_obj, &point_obj, &torque_only)) return NULL;
  if (check_ready(self) < 0) return NULL;
  PyArrayObject *v = clt_py_vector(value_obj, 3, torque_only ? "torque" : "force");
  if (!v) return NULL;
  PyArrayObject *p = NULL;
  if (point_obj != Py_None) {
    p = clt_py_vector(point_obj, 3, "point");
    if (!p) {
      Py_DECREF(v);
      return NULL;
    }
  }
  if (i < 0 || i >= clt_world_body_count(self->world)) {
    Py_DECREF(v);
    Py_XDECREF(p);
    return PyErr_Format(PyExc_IndexError, "body index %d out of range [0, %d)", i, clt_world_body_count(self->world));
  }
  clt_body_id_t body = clt_world_body_at(self->world, i);
  clt_status_t st = torque_only ? clt_body_apply_torque(self->world, body, PyArray_DATA(v))
                                : clt_body_apply_force(self->world, body, PyArray_DATA(v), p ? PyArray_DATA(p) : NULL);
  Py_DECREF(v);
  Py_XDECREF(p);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  Py_RETURN_NONE;
}

static int body_row(clt_body_id_t id) { return clt_body_id_is_null(id) ? -1 : (int)id.index; }

static PyObject *world_joint_info(WorldObject *self, PyObject *args) {
  int i;
  if (!PyArg_ParseTuple(args, "i", &i)) return NULL;
  if (check_ready(self) < 0) return NULL;
  if (i < 0 || i >= clt_world_joint_count(self->world))
    return PyErr_Format(PyExc_IndexError, "joint index %d out of range [0, %d)", i, clt_world_joint_count(self->world));
  clt_joint_info_t j;
  clt_status_t st = clt_joint_get_info(self->world, clt_world_joint_at(self->world, i), &j);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  PyObject *limit = j.limit.enabled ? Py_BuildValue("{s:d,s:d,s:d,s:d}", "lower", j.limit.lower, "upper",
                                                    j.limit.upper, "restitution", j.limit.restitution, "swing",
                                                    j.limit.swing)
                                    : (Py_INCREF(Py_None), Py_None);
  PyObject *motor = j.motor.mode != CLT_MOTOR_OFF
                        ? Py_BuildValue("{s:s,s:d,s:d,s:d,s:d,s:d,s:d}", "mode", clt_motor_mode_name(j.motor.mode),
                                        "target_velocity", j.motor.target_velocity, "target_position",
                                        j.motor.target_position, "stiffness", j.motor.stiffness, "damping",
                                        j.motor.damping, "max_force", j.motor.max_force, "effort", j.motor.effort)
                        : (Py_INCREF(Py_None), Py_None);
  if (!limit || !motor) {
    Py_XDECREF(limit);
    Py_XDECREF(motor);
    return NULL;
  }
  return Py_BuildValue("{s:s,s:s,s:i,s:i,s:(ddd),s:(ddd),s:(ddd),s:(ddd),s:d,s:O,s:N,s:N}", "name", j.name, "type",
                       clt_joint_type_name(j.type), "body_a", body_row(j.body_a), "body_b", body_row(j.body_b),
                       "anchor_a", j.anchor_a[0], j.anchor_a[1], j.anchor_a[2], "anchor_b", j.anchor_b[0],
                       j.anchor_b[1], j.anchor_b[2], "axis_a", j.axis_a[0], j.axis_a[1], j.axis_a[2], "axis_b",
                       j.axis_b[0], j.axis_b[1], j.axis_b[2], "distance", j.distance, "collide_connected",
                       j.collide_connected ? Py_True : Py_False, "limit", limit, "motor", motor);
}

/* _remove_body(i) */
static PyObject *world_remove_body(WorldObject *self, PyObject *args) {
  int i;
  if (!PyArg_ParseTuple(args, "i", &i)) return NULL;
  if (check_ready(self) < 0) return NULL;
  if (i < 0 || i >= clt_world_body_count(self->world))
    return PyErr_Format(PyExc_IndexError, "body index %d out of range [0, %d)", i, clt_world_body_count(self->world));
  clt_body_id_t id = clt_world_body_at(self->world, i);
  if (clt_body_id_is_null(id)) { /* removed already: the library says so */
    id.index = (uint32_t)i;
    id.generation = 0;
  }
  clt_status_t st = clt_world_remove_body(self->world, id);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  refresh_shadow(self);
  Py_RETURN_NONE;
}

/* remove_joint(i) */
static PyObject *world_remove_joint(WorldObject *self, PyObject *args) {
  int i;
  if (!PyArg_ParseTuple(args, "i", &i)) return NULL;
  if (check_ready(self) < 0) return NULL;
  if (i < 0 || i >= clt_world_joint_count(self->world))
    return PyErr_Format(PyExc_IndexError, "joint index %d out of range [0, %d)", i, clt_world_joint_count(self->world));
  clt_joint_id_t id = clt_world_joint_at(self->world, i);
  if (id.index == CLT_NULL_INDEX) id.index = (uint32_t)i; /* removed: the library says so */
  clt_status_t st = clt_world_remove_joint(self->world, id);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  Py_RETURN_NONE;
}

/* _set_limit(i, enabled, lower, upper, restitution, swing) */
static PyObject *world_set_limit(WorldObject *self, PyObject *args) {
  int i, enabled;
  clt_joint_limit_t l = {0};
  if (!PyArg_ParseTuple(args, "ipdddd", &i, &enabled, &l.lower, &l.upper, &l.restitution, &l.swing)) return NULL;
  if (check_ready(self) < 0) return NULL;
  if (i < 0 || i >= clt_world_joint_count(self->world))
    return PyErr_Format(PyExc_IndexError, "joint index %d out of range [0, %d)", i, clt_world_joint_count(self->world));
  l.enabled = enabled != 0;
  clt_status_t st = clt_joint_set_limit(self->world, clt_world_joint_at(self->world, i), &l);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  Py_RETURN_NONE;
}

/* _set_motor(i, mode, target_velocity, target_position, stiffness, damping, max_force, effort) */
static PyObject *world_set_motor(WorldObject *self, PyObject *args) {
  int i;
  const char *mode;
  clt_joint_motor_t m = {0};
  if (!PyArg_ParseTuple(args, "isdddddd", &i, &mode, &m.target_velocity, &m.target_position, &m.stiffness,
                        &m.damping, &m.max_force, &m.effort))
    return NULL;
  if (check_ready(self) < 0) return NULL;
  if (i < 0 || i >= clt_world_joint_count(self->world))
    return PyErr_Format(PyExc_IndexError, "joint index %d out of range [0, %d)", i, clt_world_joint_count(self->world));
  if (!clt_motor_mode_from_name(mode, &m.mode))
    return PyErr_Format(PyExc_ValueError, "set_motor: mode must be off, velocity, position or effort (got '%s')", mode);
  clt_status_t st = clt_joint_set_motor(self->world, clt_world_joint_at(self->world, i), &m);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  Py_RETURN_NONE;
}

static PyObject *world_joint_state(WorldObject *self, PyObject *args) {
  int i;
  if (!PyArg_ParseTuple(args, "i", &i)) return NULL;
  if (check_ready(self) < 0) return NULL;
  if (i < 0 || i >= clt_world_joint_count(self->world))
    return PyErr_Format(PyExc_IndexError, "joint index %d out of range [0, %d)", i, clt_world_joint_count(self->world));
  clt_joint_state_t st;
  clt_status_t status = clt_joint_get_state(self->world, clt_world_joint_at(self->world, i), &st);
  if (status != CLT_OK) return clt_py_raise(status, clt_world_error(self->world));
  return Py_BuildValue("{s:d,s:d,s:d,s:d,s:(dddddd),s:i}", "position", st.position, "rate", st.rate, "limit_impulse",
                       st.limit_impulse, "motor_impulse", st.motor_impulse, "constraint_impulse",
                       st.constraint_impulse[0], st.constraint_impulse[1], st.constraint_impulse[2],
                       st.constraint_impulse[3], st.constraint_impulse[4], st.constraint_impulse[5], "limit_active",
                       st.limit_active);
}

static PyObject *world_force_info(WorldObject *self, PyObject *args) {
  int i;
  if (!PyArg_ParseTuple(args, "i", &i)) return NULL;
  if (check_ready(self) < 0) return NULL;
  if (i < 0 || i >= clt_world_force_count(self->world))
    return PyErr_Format(PyExc_IndexError, "force index %d out of range [0, %d)", i, clt_world_force_count(self->world));
  clt_force_info_t f;
  clt_status_t st = clt_force_get_info(self->world, clt_world_force_at(self->world, i), &f);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  return Py_BuildValue("{s:s,s:s,s:i,s:i,s:(ddd),s:(ddd),s:(ddd),s:(ddd),s:d,s:d,s:(ddd),s:(ddd),s:d,s:d,s:d,s:s,"
                       "s:(ddd),s:(ddd),s:d}",
                       "name", f.name, "type", clt_force_type_name(f.type), "body_a", body_row(f.body_a), "body_b",
                       body_row(f.body_b), "force", f.force[0], f.force[1], f.force[2], "torque", f.torque[0],
                       f.torque[1], f.torque[2], "force_amplitude", f.force_amplitude[0], f.force_amplitude[1],
                       f.force_amplitude[2], "torque_amplitude", f.torque_amplitude[0], f.torque_amplitude[1],
                       f.torque_amplitude[2], "frequency", f.frequency, "phase", f.phase, "anchor_a", f.anchor_a[0],
                       f.anchor_a[1], f.anchor_a[2], "anchor_b", f.anchor_b[0], f.anchor_b[1], f.anchor_b[2],
                       "stiffness", f.stiffness, "damping", f.damping, "rest_length", f.rest_length, "treatment",
                       clt_force_treatment_name(f.treatment), "axis_a", f.axis_a[0], f.axis_a[1], f.axis_a[2],
                       "axis_b", f.axis_b[0], f.axis_b[1], f.axis_b[2], "rest_angle", f.rest_angle);
}

static PyObject *world_set_applied_force(WorldObject *self, PyObject *args) {
  int i;
  PyObject *force_obj, *torque_obj;
  if (!PyArg_ParseTuple(args, "iOO", &i, &force_obj, &torque_obj)) return NULL;
  if (check_ready(self) < 0) return NULL;
  PyArrayObject *f = clt_py_vector(force_obj, 3, "force");
  if (!f) return NULL;
  PyArrayObject *t = clt_py_vector(torque_obj, 3, "torque");
  if (!t) {
    Py_DECREF(f);
    return NULL;
  }
  clt_status_t st = clt_force_set_applied(self->world, clt_world_force_at(self->world, i), PyArray_DATA(f),
                                          PyArray_DATA(t));
  Py_DECREF(f);
  Py_DECREF(t);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------------
 * What the last step did */

/* One row of contacts(): the structured array's dtype is this struct, aligned as C aligns it. */
typedef struct {
  int32_t body_a, body_b;
  double point[3];
  double normal[3];
  double distance;
  double normal_impulse;
  double friction_impulse[3];
  double impulse[3];
  npy_bool touching;
} contact_row_t;

static PyArray_Descr *contact_descr(void) {
  static PyArray_Descr *descr = NULL;
  if (descr) {
    Py_INCREF(descr);
    return descr;
  }
  PyObject *spec = Py_BuildValue("[(ss),(ss),(ss(i)),(ss(i)),(ss),(ss),(ss(i)),(ss(i)),(ss)]", "body_a", "<i4",
                                 "body_b", "<i4", "point", "<f8", 3, "normal", "<f8", 3, "distance", "<f8",
                                 "normal_impulse", "<f8", "friction_impulse", "<f8", 3, "impulse", "<f8", 3,
                                 "touching", "?");
  if (!spec) return NULL;
  PyArray_Descr *d = NULL;
  int ok = PyArray_DescrAlignConverter(spec, &d);
  Py_DECREF(spec);
  if (!ok) return NULL;
  if (d->elsize != (int)sizeof(contact_row_t)) {
    Py_DECREF(d);
    PyErr_SetString(PyExc_RuntimeError, "contacts: the dtype does not match the C layout");
    return NULL;
  }
  descr = d;
  Py_INCREF(descr);
  return descr;
}

static PyObject *world_contacts(WorldObject *self, PyObject *unused) {
  (void)unused;
  if (enter(self) < 0) return NULL;
  int n = clt_world_contact_count(self->world);
  PyArray_Descr *descr = contact_descr();
  if (!descr) return NULL;
  npy_intp dims[1] = {n};
  PyArrayObject *a = (PyArrayObject *)PyArray_Zeros(1, dims, descr, 0); /* steals descr */
  if (!a) return NULL;
  contact_row_t *rows = PyArray_DATA(a);
  for (int i = 0; i < n; i++) {
    clt_contact_info_t c;
    if (clt_world_get_contact(self->world, i, &c) != CLT_OK) {
      Py_DECREF(a);
      return clt_py_raise(CLT_ERR_INVALID_ARGUMENT, clt_world_error(self->world));
    }
    contact_row_t *r = &rows[i];
    r->body_a = c.body_a;
    r->body_b = c.body_b;
    memcpy(r->point, c.point, sizeof r->point);
    memcpy(r->normal, c.normal, sizeof r->normal);
    r->distance = c.distance;
    r->normal_impulse = c.normal_impulse;
    memcpy(r->impulse, c.impulse, sizeof r->impulse);
    for (int k = 0; k < 3; k++) r->friction_impulse[k] = c.impulse[k] - c.normal_impulse * c.normal[k];
    r->touching = c.touching ? NPY_TRUE : NPY_FALSE;
  }
  return (PyObject *)a;
}

static PyObject *world_diagnostics(WorldObject *self, PyObject *unused) {
  (void)unused;
  if (enter(self) < 0) return NULL;
  clt_diagnostics_t d;
  clt_status_t st = clt_world_get_diagnostics(self->world, &d);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  return Py_BuildValue(
      "{s:L,s:d,s:i,s:i,s:i,s:i,s:i,s:d,s:s,s:d,s:d,s:d,s:d,s:d,s:i,s:i,s:d,s:d,s:d,s:d,s:d,s:i,s:i,s:i,s:L,s:L}", "step",
      (long long)d.step, "t", d.t, "bodies", d.bodies, "contacts", d.contacts, "joints", d.joints, "lcp_size",
      d.lcp_size, "iterations", d.iterations, "residual", d.residual, "solver_status",
      clt_solver_status_name(d.solver_status), "infeasibility", d.infeasibility, "penetration", d.penetration,
      "joint_error", d.joint_error, "kinetic_energy", d.kinetic_energy, "potential_energy", d.potential_energy,
      "constraints", d.constraints, "relcp_iterations", d.relcp_iterations, "max_overlap", d.max_overlap, "wall_s",
      d.wall_s, "wall_collide_s", d.wall_collide_s, "wall_assemble_s", d.wall_assemble_s, "wall_solve_s",
      d.wall_solve_s, "solves", d.solves, "set_misses", d.set_misses, "touching_contacts", d.touching_contacts,
      "work_bytes", (long long)d.work_bytes, "arena_bytes", (long long)d.arena_bytes);
}

static PyObject *world_memory(WorldObject *self, PyObject *unused) {
  (void)unused;
  if (check_ready(self) < 0) return NULL;
  int n = clt_world_memory(self->world, NULL, 0);
  clt_memory_entry_t *entries = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *entries);
  if (!entries) return PyErr_NoMemory();
  n = clt_world_memory(self->world, entries, n);
  PyObject *list = PyList_New(n);
  for (int i = 0; list && i < n; i++) {
    PyObject *row = Py_BuildValue("{s:s,s:n,s:n,s:O}", "name", entries[i].name, "bytes", (Py_ssize_t)entries[i].bytes,
                                  "resident", (Py_ssize_t)entries[i].resident, "workspace",
                                  entries[i].workspace ? Py_True : Py_False);
    if (!row) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, row);
  }
  PyMem_Free(entries);
  return list;
}

static PyObject *world_energies(WorldObject *self, PyObject *unused) {
  (void)unused;
  if (enter(self) < 0) return NULL;
  double p[3], l[3];
  clt_world_momentum(self->world, p, l);
  return Py_BuildValue("{s:d,s:d,s:(ddd),s:(ddd)}", "kinetic_energy", clt_world_kinetic_energy(self->world),
                       "potential_energy", clt_world_potential_energy(self->world), "linear_momentum", p[0], p[1],
                       p[2], "angular_momentum", l[0], l[1], l[2]);
}

/* ---------------------------------------------------------------------------------------------
 * State: hash, save, load, checkpoints */

static PyObject *world_state_hash(WorldObject *self, PyObject *unused) {
  (void)unused;
  if (enter(self) < 0) return NULL;
  return PyLong_FromUnsignedLongLong(clt_world_state_hash(self->world));
}

static PyObject *world_save_state(WorldObject *self, PyObject *unused) {
  (void)unused;
  if (enter(self) < 0) return NULL;
  if (self->colony) {
    PyErr_SetString(PyExc_ValueError,
                    "save_state: a colony's cells are not in the world's state; a colony is saved in a run "
                    "file's checkpoint (World.run with checkpoint_every)");
    return NULL;
  }
  size_t size = clt_world_state_size(self->world);
  PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
  if (!bytes) return NULL;
  clt_status_t st = clt_world_save_state(self->world, PyBytes_AS_STRING(bytes), size);
  if (st != CLT_OK) {
    Py_DECREF(bytes);
    return clt_py_raise(st, clt_world_error(self->world));
  }
  return bytes;
}

static PyObject *world_load_state(WorldObject *self, PyObject *args) {
  Py_buffer buffer;
  if (!PyArg_ParseTuple(args, "y*", &buffer)) return NULL;
  if (check_ready(self) < 0) {
    PyBuffer_Release(&buffer);
    return NULL;
  }
  if (self->colony) {
    PyBuffer_Release(&buffer);
    PyErr_SetString(PyExc_ValueError, "load_state: a colony world is restored from a run file's checkpoint");
    return NULL;
  }
  clt_status_t st = clt_world_load_state(self->world, buffer.buf, (size_t)buffer.len);
  PyBuffer_Release(&buffer);
  if (st != CLT_OK) return clt_py_raise(st, clt_world_error(self->world));
  refresh_shadow(self);
  Py_RETURN_NONE;
}

static PyObject *world_load_checkpoint(WorldObject *self, PyObject *args) {
  PyObject *path_obj;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj)) return NULL;
  if (check_ready(self) < 0) {
    Py_DECREF(path_obj);
    return NULL;
  }
  if (self->colony) {
    Py_DECREF(path_obj);
    PyErr_SetString(PyExc_ValueError, "load_checkpoint: a colony run continues with `clatter run --resume`");
    return NULL;
  }
  char message[2048];
  int64_t step = -1;
  clt_status_t st;
  Py_BEGIN_ALLOW_THREADS
  st = clt_output_load_checkpoint(PyBytes_AS_STRING(path_obj), self->world, &step, message, sizeof message);
  Py_END_ALLOW_THREADS
  Py_DECREF(path_obj);
  if (st != CLT_OK) return clt_py_raise(st, message);
  refresh_shadow(self);
  return PyLong_FromLongLong(step);
}

/* ---------------------------------------------------------------------------------------------
 * Runs: clt_output_run writing the file `clatter run` writes */

typedef struct {
  PyObject *exc_type, *exc_value, *exc_tb; /* an exception a signal handler raised during the run */
} run_watch_t;

/* asked before each step, GIL released: Python's signal handlers run here (Ctrl-C stops the run,
 * interrupted and resumable; the exception is raised once the file is closed) */
static int run_stop(void *user) {
  run_watch_t *watch = user;
  PyGILState_STATE gil = PyGILState_Ensure();
  int stop = 0;
  if (PyErr_CheckSignals() < 0) {
    PyErr_Fetch(&watch->exc_type, &watch->exc_value, &watch->exc_tb);
    stop = 1;
  }
  PyGILState_Release(gil);
  return stop;
}

/* _run(path, scene_json, end_step, max_steps, checkpoint_every, overwrite) -> dict */
static PyObject *world_run(WorldObject *self, PyObject *args) {
  PyObject *path_obj;
  const char *scene_json;
  long long end_step, max_steps, checkpoint_every;
  int overwrite;
  if (!PyArg_ParseTuple(args, "O&zLLLp", PyUnicode_FSConverter, &path_obj, &scene_json, &end_step, &max_steps,
                        &checkpoint_every, &overwrite))
    return NULL;
  if (enter(self) < 0) {
    Py_DECREF(path_obj);
    return NULL;
  }
  char message[2048];
  /* the scene the file stores: the world's own, or the one run() made with another duration */
  clt_scene_t *scene = self->scene, *own = NULL;
  if (scene_json) {
    clt_status_t st = clt_scene_parse(scene_json, clt_scene_source(self->scene), NULL, &own, message, sizeof message);
    if (st != CLT_OK) {
      Py_DECREF(path_obj);
      return clt_py_raise_scene(st, message);
    }
    scene = own;
  }
  clt_output_t *out = NULL;
  clt_status_t st = clt_output_create_flags(PyBytes_AS_STRING(path_obj), scene, self->world,
                                            overwrite ? CLT_OUTPUT_OVERWRITE : 0u, &out, message, sizeof message);
  Py_DECREF(path_obj);
  if (st == CLT_OK && self->colony && (st = clt_output_attach_colony(out, self->colony)) != CLT_OK)
    snprintf(message, sizeof message, "run: the colony could not be attached to %s (%s)", clt_output_path(out),
             clt_status_name(st));
  if (st == CLT_OK && checkpoint_every > 0 && (st = clt_output_set_checkpoint_every(out, checkpoint_every)) != CLT_OK)
    snprintf(message, sizeof message, "run: checkpoint_every %lld could not be stored in %s (%s)", checkpoint_every,
             clt_output_path(out), clt_status_name(st));
  if (st != CLT_OK) {
    clt_output_discard(out); /* NULL (create failed: message says why) does nothing */
    clt_scene_destroy(own);
    return clt_py_raise(st, message);
  }
  const clt_scene_colony_t *colony_block = clt_scene_colony(scene);
  run_watch_t watch = {0};
  clt_run_loop_t loop = {.end_step = end_step,
                         .target_cells = colony_block ? 1 << colony_block->generations : 0,
                         .max_steps = max_steps,
                         .checkpoint_every = checkpoint_every,
                         .stop = run_stop,
                         .user = &watch,
                         .scene = self->scene};
  clt_run_result_t result;
  char h5_path[4096], csv_path[4096];
  snprintf(h5_path, sizeof h5_path, "%s", clt_output_path(out));
  snprintf(csv_path, sizeof csv_path, "%s", clt_output_csv_file(out));
  self->busy = 1;
  Py_BEGIN_ALLOW_THREADS
  clt_output_run(out, self->world, self->colony, &loop, &result);
  if (result.status == CLT_RUN_INTERRUPTED && result.stop_code)
    snprintf(result.message, sizeof result.message, "interrupted by an exception in Python (KeyboardInterrupt)");
  st = clt_output_close(out, result.status, result.message, message, sizeof message);
  Py_END_ALLOW_THREADS
  self->busy = 0;
  refresh_shadow(self);
  clt_scene_destroy(own);
  if (watch.exc_type) {
    PyErr_Restore(watch.exc_type, watch.exc_value, watch.exc_tb);
    return NULL;
  }
  if (st != CLT_OK) return clt_py_raise(st, message);
  if (result.status == CLT_RUN_DIVERGED || result.status == CLT_RUN_ERROR) {
    char why[6144];
    snprintf(why, sizeof why, "%s (the run file %s ends at the last good step, status %s)", result.message, h5_path,
             clt_run_status_name(result.status));
    return clt_py_raise(result.error != CLT_OK ? result.error : CLT_ERR_IO, why);
  }
  return Py_BuildValue("{s:s,s:s,s:L,s:s,s:s,s:s}", "status", clt_run_status_name(result.status), "message",
                       result.message, "steps", (long long)result.steps, "path", h5_path, "csv", csv_path, "warning",
                       result.warning);
}

/* ---------------------------------------------------------------------------------------------
 * Properties */

static PyObject *get_time(WorldObject *self, void *c) {
  (void)c;
  return check_ready(self) < 0 ? NULL : PyFloat_FromDouble(clt_world_time(self->world));
}
static PyObject *get_step_count(WorldObject *self, void *c) {
  (void)c;
  return check_ready(self) < 0 ? NULL : PyLong_FromLongLong(clt_world_step_count(self->world));
}
static PyObject *get_time_step(WorldObject *self, void *c) {
  (void)c;
  return check_ready(self) < 0 ? NULL : PyFloat_FromDouble(clt_world_time_step(self->world));
}
static PyObject *get_dimension(WorldObject *self, void *c) {
  (void)c;
  return check_ready(self) < 0 ? NULL : PyLong_FromLong(clt_world_dimension(self->world));
}
static PyObject *get_body_count(WorldObject *self, void *c) {
  (void)c;
  return check_ready(self) < 0 ? NULL : PyLong_FromLong(clt_world_body_count(self->world));
}
static PyObject *get_gravity(WorldObject *self, void *c) {
  (void)c;
  if (check_ready(self) < 0) return NULL;
  double g[3];
  clt_world_get_gravity(self->world, g);
  return Py_BuildValue("(ddd)", g[0], g[1], g[2]);
}
static PyObject *get_joint_count(WorldObject *self, void *c) {
  (void)c;
  return check_ready(self) < 0 ? NULL : PyLong_FromLong(clt_world_joint_count(self->world));
}
static PyObject *get_force_count(WorldObject *self, void *c) {
  (void)c;
  return check_ready(self) < 0 ? NULL : PyLong_FromLong(clt_world_force_count(self->world));
}
static PyObject *get_cell_count(WorldObject *self, void *c) {
  (void)c;
  return check_ready(self) < 0 ? NULL : PyLong_FromLong(clt_colony_cell_count(self->colony));
}
static PyObject *get_scene_json(WorldObject *self, void *c) {
  (void)c;
  return check_ready(self) < 0 ? NULL : PyUnicode_FromString(clt_scene_json(self->scene));
}
static PyObject *get_scene_source(WorldObject *self, void *c) {
  (void)c;
  return check_ready(self) < 0 ? NULL : PyUnicode_FromString(clt_scene_source(self->scene));
}
static PyObject *get_scene_steps(WorldObject *self, void *c) {
  (void)c;
  return check_ready(self) < 0 ? NULL : PyLong_FromLongLong(clt_scene_step_count(self->scene));
}
static PyObject *get_generations(WorldObject *self, void *c) {
  (void)c;
  if (check_ready(self) < 0) return NULL;
  const clt_scene_colony_t *colony = clt_scene_colony(self->scene);
  if (!colony) Py_RETURN_NONE;
  return PyLong_FromLong(colony->generations);
}

static PyGetSetDef world_getset[] = {
    {"time", (getter)get_time, NULL, "Simulated time t [s].", NULL},
    {"step_count", (getter)get_step_count, NULL, "Steps taken since t = 0.", NULL},
    {"time_step", (getter)get_time_step, NULL, "The time step h [s].", NULL},
    {"dimension", (getter)get_dimension, NULL, "2 or 3.", NULL},
    {"body_count", (getter)get_body_count, NULL, "Number of bodies (a colony's grow as it steps).", NULL},
    {"gravity", (getter)get_gravity, NULL, "Gravity (x, y, z) [m/s²] (2D: z is 0).", NULL},
    {"joint_count", (getter)get_joint_count, NULL, "Number of joints.", NULL},
    {"force_count", (getter)get_force_count, NULL, "Number of force elements.", NULL},
    {"cell_count", (getter)get_cell_count, NULL, "Cells of the scene's colony (0 without one).", NULL},
    {"scene_json", (getter)get_scene_json, NULL,
     "The resolved scene as JSON (overrides applied): `clatter run` of it gives the same world.", NULL},
    {"scene_source", (getter)get_scene_source, NULL, "The file (or name) the scene was read from.", NULL},
    {"scene_step_count", (getter)get_scene_steps, NULL, "Steps of the scene's whole duration.", NULL},
    {"colony_generations", (getter)get_generations, NULL, "The colony's G (a run ends at 2^G cells), or None.",
     NULL},
    {"position", (getter)get_position, (setter)set_position,
     "Positions of every body, shape (n, 3) [m]: a view of the world's memory (a copy for a colony).", NULL},
    {"orientation", (getter)get_orientation, (setter)set_orientation,
     "3D orientations, unit quaternions (w, x, y, z), shape (n, 4): a view.", NULL},
    {"angle", (getter)get_angle, (setter)set_angle, "2D angles θ [rad], shape (n,): a view.", NULL},
    {"velocity", (getter)get_velocity, (setter)set_velocity,
     "Linear velocities, world frame, shape (n, 3) [m/s]: a view.", NULL},
    {"angular_velocity", (getter)get_angular_velocity, (setter)set_angular_velocity,
     "Angular velocities, shape (n, 3) [rad/s]: 3D in the BODY frame; 2D ω in column 0. A view.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef world_methods[] = {
    {"_load", (PyCFunction)world_load, METH_VARARGS | METH_CLASS, "_load(path, sets, params): see from_scene."},
    {"_parse", (PyCFunction)world_parse, METH_VARARGS | METH_CLASS,
     "_parse(text, source, sets, params): see from_json."},
    {"step", (PyCFunction)(void (*)(void))world_step, METH_VARARGS | METH_KEYWORDS,
     "step(n=1)\n\nAdvances the world by n time steps (a colony grows its cells before each). The GIL is "
     "released during each step. A failed step raises (DivergedError, SolverError, ...) and leaves the world as "
     "it was before that step; the steps before it are kept (step_count says how many)."},
    {"body_state", (PyCFunction)world_body_state, METH_VARARGS, "body_state(i) -> dict: one body's state."},
    {"_set_body_state", (PyCFunction)world_set_body_state, METH_VARARGS, "_set_body_state(i, fields)."},
    {"body_info", (PyCFunction)world_body_info, METH_VARARGS,
     "body_info(i) -> dict: name, type, mass, inertia (principal moments), shape_count."},
    {"joint_info", (PyCFunction)world_joint_info, METH_VARARGS,
     "joint_info(i) -> dict: joint i (creation order) as the step holds it: name, type, body_a and body_b "
     "(body indices, -1 for the ground), anchor_a, anchor_b, axis_a, axis_b in each body's principal frame "
     "(the frame of position and orientation; world frame for the ground), distance (resolved), "
     "collide_connected, limit (None or lower, upper, restitution) and motor (None or mode, target_velocity, "
     "target_position, stiffness, damping, max_force, effort; docs/actuation.md)."},
    {"joint_state", (PyCFunction)world_joint_state, METH_VARARGS,
     "joint_state(i) -> dict: position and rate of a one-coordinate joint (clt_joint_get_state): a revolute "
     "joint's angle of B relative to A since creation [rad], a prismatic joint's slide [m], a distance joint's "
     "distance [m]; and the last step's limit_impulse (positive pushes the coordinate up), motor_impulse, "
     "constraint_impulse (one per row of the joint) and limit_active (-1 lower bound, +1 upper, 0 none); "
     "UnsupportedError for spherical and fixed joints."},
    {"_set_limit", (PyCFunction)world_set_limit, METH_VARARGS,
     "_set_limit(i, enabled, lower, upper, restitution, swing)."},
    {"_remove_joint", (PyCFunction)world_remove_joint, METH_VARARGS, "_remove_joint(i)."},
    {"_remove_body", (PyCFunction)world_remove_body, METH_VARARGS, "_remove_body(i)."},
    {"_set_motor", (PyCFunction)world_set_motor, METH_VARARGS,
     "_set_motor(i, mode, target_velocity, target_position, stiffness, damping, max_force, effort)."},
    {"force_info", (PyCFunction)world_force_info, METH_VARARGS,
     "force_info(i) -> dict: force element i (creation order) as the step holds it: the fields of its scene "
     "entry, with anchors and axes in each body's principal frame, rest_length resolved and the applied force's "
     "constant part as last set."},
    {"_set_applied_force", (PyCFunction)world_set_applied_force, METH_VARARGS,
     "_set_applied_force(i, force, torque)."},
    {"_apply_load", (PyCFunction)world_apply_load, METH_VARARGS,
     "_apply_load(i, value, point, torque_only): clt_body_apply_force / clt_body_apply_torque."},
    {"contacts", (PyCFunction)world_contacts, METH_NOARGS,
     "contacts() -> numpy structured array\n\nThe active contacts of the last step (world.h "
     "clt_contact_info_t): body_a, body_b (indices), point, normal (from A to B), distance (the gap Φ at the "
     "step's start; < 0: penetration), normal_impulse, friction_impulse (the tangential part of impulse), "
     "impulse (the total on B, world frame), touching. Impulses are N s: divide by time_step for forces."},
    {"diagnostics", (PyCFunction)world_diagnostics, METH_NOARGS,
     "diagnostics() -> dict\n\nThe diagnostics of the last step (SPEC.md §7; the columns of OUT.csv): solver "
     "iterations, residual and status, contacts, infeasibility, energies, wall times, ..."},
    {"memory", (PyCFunction)world_memory, METH_NOARGS,
     "memory() -> list[dict]\n\nThe world's buffers: name, bytes, resident, workspace."},
    {"energies", (PyCFunction)world_energies, METH_NOARGS,
     "energies() -> dict: kinetic and potential energy, linear and angular momentum of the current state."},
    {"state_hash", (PyCFunction)world_state_hash, METH_NOARGS,
     "state_hash() -> int\n\nThe 64-bit hash of the mutable state (the one `clatter info` prints)."},
    {"save_state", (PyCFunction)world_save_state, METH_NOARGS,
     "save_state() -> bytes\n\nThe complete mutable state (positions, velocities, warm starts, ...): loading it "
     "into a world of the same scene continues bit for bit."},
    {"load_state", (PyCFunction)world_load_state, METH_VARARGS,
     "load_state(state: bytes)\n\nRestores a state from save_state; a blob of another world, or damaged, raises "
     "FormatError and changes nothing."},
    {"load_checkpoint", (PyCFunction)world_load_checkpoint, METH_VARARGS,
     "load_checkpoint(path) -> int\n\nLoads the checkpoint of a run file (of a scene with the same bodies, joints "
     "and forces) and returns its step."},
    {"_run", (PyCFunction)world_run, METH_VARARGS, "_run(path, scene_json, end_step, max_steps, every, overwrite)."},
    {NULL, NULL, 0, NULL}};

PyTypeObject clt_py_world_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clatter._clatter.World",
    .tp_basicsize = sizeof(WorldObject),
    .tp_dealloc = (destructor)world_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A clatter world (the C part of clatter.World).",
    .tp_methods = world_methods,
    .tp_getset = world_getset,
    .tp_new = world_new,
    .tp_weaklistoffset = offsetof(WorldObject, weakrefs),
};
