/* _fast.c - the extension lagrange._fast: Model.eval and Model.accel.
 *
 * Why it exists: on small models the library evaluates a state in 0.1-0.3
 * us, while a ctypes call alone costs 0.17 us and reading a NumPy array's
 * address from Python 0.7 us. Here one call of a C method reads q and q'
 * where they are (a float64 array's memory, or a list's floats into a
 * stack buffer), calls lg_eval_many / lg_eval_accel_many once and returns
 * one new object (an EvalResult holding the record, or q'' as an array).
 *
 * Model (python/lagrange/__init__.py) derives from Core. What is not one
 * state of plain numbers (a batch, a dict, params, another dtype, an
 * error) goes to the Model's Python method _eval_slow / _accel_slow,
 * which normalizes the arguments into contiguous arrays and comes back to
 * _eval_many / _accel_many here: one C path into the library, one Python
 * path for the rest.
 *
 * The library's entries are the addresses ctypes found (bind()), so the
 * extension does not link liblagrange.so and uses the very copy that
 * _lib.py loaded ($LAGRANGE_LIBRARY, the package's copy or build/). */
#define FAST_MAIN_FILE
#include "_fast.h"

#include <string.h>

fast_lib fast_fn;
static PyObject *make_error; /* lagrange._error: the exception for a diagnostic */
static PyObject *zero;       /* 0.0: t when not given */
static PyObject *arg_str[4]; /* "q", "qd", "t", "params" */
static PyObject *slow_eval, *slow_accel;

/* Lists and strided arrays are copied into stack buffers up to this n;
 * larger models take the Python path (their arithmetic dominates). */
enum { FAST_STACK_N = 64, FAST_ARGS = 4 };
/* Batches from this many states release the GIL around the library. */
enum { FAST_NOGIL_MIN = 32 };

/* The lg_system is owned by a Python object (lagrange._System, which
 * frees it when the last reference goes): the core holds a reference to
 * it, not only its address, and every call takes one more for its
 * duration. So Model.close() (or the Model's last reference going) in a
 * simulate callback, or in another thread while a batch runs without the
 * GIL, frees the system only once the calls using it have returned. */
typedef struct core {
  PyObject_HEAD
  PyObject *owner;     /* the _System; NULL before _bind and after _unbind */
  const lg_system *s;  /* its address, valid while owner is held */
  Py_ssize_t n, m, np, size;
} core;

/* ---- arguments ---------------------------------------------------------------------- */
/* out[k]: the argument named arg_str[k], NULL when not given. */
static int parse(const char *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                 PyObject **out) {
  for (int k = 0; k < FAST_ARGS; k++) out[k] = k < nargs ? args[k] : NULL;
  if (nargs > FAST_ARGS) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most 4 arguments (%zd given)", fn, nargs);
    return -1;
  }
  Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t j = 0; j < nk; j++) {
    PyObject *key = PyTuple_GET_ITEM(kwnames, j);
    int k = 0;
    while (k < FAST_ARGS && key != arg_str[k]) k++; /* interned: the usual case */
    if (k == FAST_ARGS)
      for (k = 0; k < FAST_ARGS && PyUnicode_Compare(key, arg_str[k]) != 0; k++) {
      }
    if (k == FAST_ARGS) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", fn, key);
      return -1;
    }
    if (out[k]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument %R", fn, key);
      return -1;
    }
    out[k] = args[nargs + j];
  }
  return 0;
}

/* t as a double when it is a float (or a subclass: numpy.float64) or an
 * int; 0 otherwise (the Python path converts it). */
static int get_t(PyObject *t, double *out) {
  if (!t) {
    *out = 0.0;
    return 1;
  }
  if (PyFloat_Check(t)) {
    *out = PyFloat_AS_DOUBLE(t);
    return 1;
  }
  if (PyLong_CheckExact(t)) {
    *out = PyLong_AsDouble(t);
    if (*out == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return 0;
    }
    return 1;
  }
  return 0;
}

/* n doubles from a 1-D float64 array of shape (n,) (its own memory when
 * contiguous) or a list/tuple of n floats and ints; NULL (no exception)
 * for anything else. buf holds FAST_STACK_N doubles. */
static const double *get_vec(PyObject *v, Py_ssize_t n, double *buf) {
  if (PyArray_Check(v)) {
    PyArrayObject *a = (PyArrayObject *)v;
    if (PyArray_NDIM(a) != 1 || PyArray_DIM(a, 0) != n || PyArray_TYPE(a) != NPY_DOUBLE ||
        !PyArray_ISNOTSWAPPED(a) || !PyArray_ISALIGNED(a))
      return NULL;
    if (PyArray_IS_C_CONTIGUOUS(a)) return (const double *)PyArray_DATA(a);
    if (n > FAST_STACK_N) return NULL;
    const char *p = PyArray_DATA(a);
    npy_intp st = PyArray_STRIDE(a, 0);
    for (Py_ssize_t k = 0; k < n; k++) memcpy(buf + k, p + k * st, sizeof *buf);
    return buf;
  }
  if (!(PyList_CheckExact(v) || PyTuple_CheckExact(v)) || PySequence_Fast_GET_SIZE(v) != n ||
      n > FAST_STACK_N)
    return NULL;
  PyObject **items = PySequence_Fast_ITEMS(v);
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *x = items[k];
    if (PyFloat_Check(x)) {
      buf[k] = PyFloat_AS_DOUBLE(x);
    } else if (PyLong_CheckExact(x)) {
      buf[k] = PyLong_AsDouble(x);
      if (buf[k] == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return NULL;
      }
    } else {
      return NULL;
    }
  }
  return buf;
}

/* ---- errors ------------------------------------------------------------------------- */
/* Raise what make_error builds from d (ModelError, NumericError, ...). */
static void raise_diag(lg_status st, const lg_diag *d) {
  PyObject *e = PyObject_CallFunction(make_error, "iyyiiyy", (int)st, d->text, d->file,
                                      d->line, d->col, d->message, d->hint);
  if (e) {
    PyErr_SetObject((PyObject *)Py_TYPE(e), e);
    Py_DECREF(e);
  }
}

/* ---- the system of a call ----------------------------------------------------------- */
/* A new reference to the owner of c's system for one call (release it
 * with Py_DECREF when the call is done) and the system's address in *s
 * (valid until then, whatever Python code runs meanwhile); NULL with the
 * Model's "closed" error (its _live() raises it) once the model is closed. */
static PyObject *hold(PyObject *self, const lg_system **s) {
  core *c = (core *)self;
  *s = c->s;
  if (c->owner) return Py_NewRef(c->owner);
  PyObject *r = PyObject_CallMethod(self, "_live", NULL);
  if (r) { /* _live did not raise: a core never bound (not made by load) */
    Py_DECREF(r);
    PyErr_SetString(PyExc_ValueError, "this Model has no derived system: make one with "
                                      "lagrange.load or lagrange.loads");
  }
  return NULL;
}

/* ---- the library calls -------------------------------------------------------------- */
typedef struct call {
  const lg_system *s;
  size_t count;
  const double *t, *q, *qd, *p;
  double *out;
} call;

static lg_status call_lib(int accel, const call *a) {
  return accel ? fast_fn.accel_many(a->s, a->count, a->t, a->q, a->qd, a->p, a->out, NULL, NULL)
               : fast_fn.eval_many(a->s, a->count, a->t, a->q, a->qd, a->p, a->out, NULL);
}

/* lg_eval_many / lg_eval_accel_many without a diagnostic, the GIL released
 * for a large batch (the library is thread-safe on one system; the arrays
 * are held by the caller's references, the output is ours alone). */
static lg_status run(int accel, const call *a) {
  if (a->count < FAST_NOGIL_MIN) return call_lib(accel, a);
  lg_status st;
  Py_BEGIN_ALLOW_THREADS
  st = call_lib(accel, a);
  Py_END_ALLOW_THREADS
  return st;
}

/* After a failed run: the same call again with a diagnostic, raised. One
 * state that is not a batch goes through lg_eval / lg_eval_accel, whose
 * message does not name a state of a batch. */
static void raise_run(const core *c, int accel, int batch, const call *a) {
  lg_diag d;
  lg_status st;
  if (batch) {
    st = accel ? fast_fn.accel_many(a->s, a->count, a->t, a->q, a->qd, a->p, a->out, NULL, &d)
               : fast_fn.eval_many(a->s, a->count, a->t, a->q, a->qd, a->p, a->out, &d);
  } else if (accel) {
    st = fast_fn.accel(a->s, a->t[0], a->q, a->qd, a->p, a->out, NULL, &d);
  } else {
    lg_eval_result r = fast_record_ptrs(c->n, c->m, a->out);
    st = fast_fn.eval(a->s, a->t[0], a->q, a->qd, a->p, &r, &d);
  }
  if (st == LG_OK) {
    PyErr_SetString(PyExc_RuntimeError, "liblagrange failed once and not the second time");
    return;
  }
  raise_diag(st, &d);
}

/* ---- one state, the fast path -------------------------------------------------------- */
/* eval/accel at the state in a[] when it is plain numbers and no params;
 * NULL without an exception when the Python path must take it (not plain,
 * or the library reported an error: the Python path raises it). The
 * caller holds the system s. */
static PyObject *one_state(const core *c, const lg_system *s, int accel, PyObject **a) {
  double t, bq[FAST_STACK_N], bqd[FAST_STACK_N];
  if ((a[3] && a[3] != Py_None) || !a[0] || !a[1] || !get_t(a[2], &t)) return NULL;
  const double *q = get_vec(a[0], c->n, bq);
  const double *qd = q ? get_vec(a[1], c->n, bqd) : NULL;
  if (!qd) return NULL;
  if (accel) {
    npy_intp dim = c->n;
    PyObject *out = PyArray_SimpleNew(1, &dim, NPY_DOUBLE);
    if (out && fast_fn.accel_many(s, 1, &t, q, qd, NULL, PyArray_DATA((PyArrayObject *)out),
                                  NULL, NULL) != LG_OK)
      Py_CLEAR(out);
    return out;
  }
  fast_result *r = fast_result_one(c->n, c->m, c->size);
  if (r && fast_fn.eval_many(s, 1, &t, q, qd, NULL, r->data, NULL) != LG_OK) Py_CLEAR(r);
  return (PyObject *)r;
}

/* self.<name>(q, qd, t, params), the Python path. args[0] is a spare
 * slot PY_VECTORCALL_ARGUMENTS_OFFSET lets the callee use. */
static PyObject *slow(PyObject *self, PyObject *name, PyObject **a) {
  PyObject *args[6] = {NULL, self, a[0] ? a[0] : Py_None, a[1] ? a[1] : Py_None,
                       a[2] ? a[2] : zero, a[3] ? a[3] : Py_None};
  return PyObject_VectorcallMethod(name, args + 1, 5 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *core_eval(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
  PyObject *a[FAST_ARGS];
  if (parse("eval", args, nargs, kwnames, a) < 0) return NULL;
  const lg_system *s;
  PyObject *owner = hold(self, &s);
  if (!owner) return NULL;
  PyObject *r = one_state((core *)self, s, 0, a);
  if (!r && !PyErr_Occurred()) r = slow(self, slow_eval, a);
  Py_DECREF(owner);
  return r;
}

static PyObject *core_accel(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
  PyObject *a[FAST_ARGS];
  if (parse("accel", args, nargs, kwnames, a) < 0) return NULL;
  for (int k = 0; k < 2; k++)
    if (!a[k]) {
      PyErr_Format(PyExc_TypeError, "accel() missing required argument %R", arg_str[k]);
      return NULL;
    }
  const lg_system *s;
  PyObject *owner = hold(self, &s);
  if (!owner) return NULL;
  PyObject *r = one_state((core *)self, s, 1, a);
  if (!r && !PyErr_Occurred()) r = slow(self, slow_accel, a);
  Py_DECREF(owner);
  return r;
}

/* ---- many states, from the Python path --------------------------------------------- */
/* The data of a C-contiguous float64 array of shape (d0) or (d0, d1); d
 * < 0 takes any length there. */
static const double *get_arr(PyObject *v, const char *what, int nd, Py_ssize_t d0,
                             Py_ssize_t d1) {
  PyArrayObject *a = (PyArrayObject *)v;
  if (!PyArray_Check(v) || PyArray_NDIM(a) != nd || PyArray_TYPE(a) != NPY_DOUBLE ||
      !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a) || !PyArray_ISNOTSWAPPED(a) ||
      (d0 >= 0 && PyArray_DIM(a, 0) != d0) || (nd == 2 && PyArray_DIM(a, 1) != d1)) {
    PyErr_Format(PyExc_TypeError,
                 "%s: a C-contiguous float64 array of %d dimension(s) of the right size "
                 "is needed (Model._eval_many is internal: call Model.eval)",
                 what, nd);
    return NULL;
  }
  return (const double *)PyArray_DATA(a);
}

/* The call of _eval_many(Q, QD, T, P, batch) / _accel_many on the system
 * s, which the caller holds; *batch set. */
static int get_call(const core *c, const lg_system *s, PyObject *const *args,
                    Py_ssize_t nargs, call *a, int *batch) {
  if (nargs != 5) {
    PyErr_SetString(PyExc_TypeError, "_eval_many(Q, QD, T, P, batch) takes 5 arguments");
    return -1;
  }
  a->s = s;
  if (!(a->q = get_arr(args[0], "Q", 2, -1, c->n))) return -1;
  Py_ssize_t N = PyArray_DIM((PyArrayObject *)args[0], 0);
  a->count = (size_t)N;
  a->p = NULL;
  if (!(a->qd = get_arr(args[1], "QD", 2, N, c->n)) || !(a->t = get_arr(args[2], "T", 1, N, 0)) ||
      (args[3] != Py_None && !(a->p = get_arr(args[3], "P", 1, c->np, 0))))
    return -1;
  if ((*batch = PyObject_IsTrue(args[4])) < 0) return -1;
  if (!*batch && N != 1) {
    PyErr_SetString(PyExc_ValueError, "one state (not a batch) needs N = 1");
    return -1;
  }
  return 0;
}

/* The output of a call: a batch's array, or one state's result/array. */
static PyObject *new_output(const core *c, int accel, int batch, call *a) {
  npy_intp dims[2] = {(npy_intp)a->count, accel ? c->n : c->size};
  PyObject *out;
  if (!batch && !accel) {
    fast_result *r = fast_result_one(c->n, c->m, c->size);
    if (r) a->out = r->data;
    return (PyObject *)r;
  }
  out = batch ? PyArray_SimpleNew(2, dims, NPY_DOUBLE) : PyArray_SimpleNew(1, dims + 1, NPY_DOUBLE);
  if (out) a->out = PyArray_DATA((PyArrayObject *)out);
  return out;
}

static PyObject *many_held(PyObject *self, const lg_system *s, int accel,
                           PyObject *const *args, Py_ssize_t nargs) {
  const core *c = (const core *)self;
  call a;
  int batch;
  if (get_call(c, s, args, nargs, &a, &batch) < 0) return NULL;
  PyObject *out = new_output(c, accel, batch, &a);
  if (!out) return NULL;
  if (run(accel, &a) != LG_OK) {
    raise_run(c, accel, batch, &a);
    Py_DECREF(out);
    return NULL;
  }
  if (!batch || accel) return out;
  PyObject *r = fast_result_batch(c->n, c->m, out);
  Py_DECREF(out);
  return r;
}

static PyObject *many(PyObject *self, int accel, PyObject *const *args, Py_ssize_t nargs) {
  const lg_system *s;
  PyObject *owner = hold(self, &s);
  if (!owner) return NULL;
  PyObject *r = many_held(self, s, accel, args, nargs);
  Py_DECREF(owner);
  return r;
}

static PyObject *core_eval_many(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  return many(self, 0, args, nargs);
}

static PyObject *core_accel_many(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  return many(self, 1, args, nargs);
}

/* _bind(owner, n, m, np, record_size): the owner of the lg_system this
 * Model wraps (a lagrange._System: its `ptr` is the address; the core
 * keeps a reference), its sizes, and the library's record size (checked
 * against this extension's layout). */
static PyObject *core_bind(PyObject *self, PyObject *args) {
  core *c = (core *)self;
  PyObject *owner;
  Py_ssize_t n, m, np, size;
  if (!PyArg_ParseTuple(args, "Onnnn", &owner, &n, &m, &np, &size)) return NULL;
  if (!fast_fn.eval_many) {
    PyErr_SetString(PyExc_RuntimeError, "lagrange._fast.bind() was not called");
    return NULL;
  }
  if (size != fast_record_size(n, m)) {
    PyErr_SetString(PyExc_ImportError, "liblagrange's eval record does not match the "
                                       "extension lagrange._fast: rebuild both (make python)");
    return NULL;
  }
  PyObject *addr = PyObject_GetAttrString(owner, "ptr");
  if (!addr) return NULL;
  void *s = PyLong_AsVoidPtr(addr);
  Py_DECREF(addr);
  if (!s) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_bind: a NULL system");
    return NULL;
  }
  Py_INCREF(owner);
  Py_XSETREF(c->owner, owner);
  c->s = s;
  c->n = n;
  c->m = m;
  c->np = np;
  c->size = size;
  Py_RETURN_NONE;
}

/* _unbind(): lets go of the system (Model.close); calls in flight keep
 * their own reference until they return. */
static PyObject *core_unbind(PyObject *self, PyObject *unused) {
  (void)unused;
  core *c = (core *)self;
  c->s = NULL;
  Py_CLEAR(c->owner);
  Py_RETURN_NONE;
}

static void core_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  Py_CLEAR(((core *)self)->owner);
  tp->tp_free(self);
  Py_DECREF(tp); /* a heap type's instance holds its type */
}

PyDoc_STRVAR(eval_doc,
"eval($self, /, q=None, qd=None, t=0.0, params=None)\n--\n\n"
"Evaluate the equations at (t, q, q'), as `lagrange eval --json`.\n\n"
"q, qd: one state each (n numbers, in the order of `coordinates`;\n"
"None: the model's initial state; a dict sets some coordinates by\n"
"name), or a batch: arrays of shape (N, n) (a single state is used\n"
"for every row of the other), evaluated in one C call. t: a number,\n"
"or N times. params: {name: value} overriding the defaults.\n\n"
"Returns an EvalResult (qdd, lam, mass_matrix, forcing, ...); for a\n"
"batch each field has a leading axis of N. Raises NumericError where\n"
"M is singular or a value is not finite (for a batch: at the first such\n"
"state, named in the message), ValueError for q or qd of the wrong size.\n\n"
"The fastest call is one state of float64 arrays (or lists of floats)\n"
"with t a number and no params: one C call, one new object.");

PyDoc_STRVAR(accel_doc,
"accel($self, /, q, qd, t=0.0, params=None)\n--\n\n"
"Only the accelerations q'' (a fresh numpy array): as eval(...).qdd\n"
"with less work per call, for a right-hand side. q, qd, t and params\n"
"as for eval (a batch gives an (N, n) array).");

static PyMethodDef core_methods[] = {
    {"eval", (PyCFunction)(void (*)(void))core_eval, METH_FASTCALL | METH_KEYWORDS, eval_doc},
    {"accel", (PyCFunction)(void (*)(void))core_accel, METH_FASTCALL | METH_KEYWORDS,
     accel_doc},
    {"_eval_many", (PyCFunction)(void (*)(void))core_eval_many, METH_FASTCALL,
     "_eval_many(Q, QD, T, P, batch): lg_eval_many on normalized arrays."},
    {"_accel_many", (PyCFunction)(void (*)(void))core_accel_many, METH_FASTCALL,
     "_accel_many(Q, QD, T, P, batch): lg_eval_accel_many on normalized arrays."},
    {"_bind", core_bind, METH_VARARGS, "_bind(owner, n, m, np, record_size)"},
    {"_unbind", core_unbind, METH_NOARGS, "_unbind(): let go of the system (close)."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot core_slots[] = {
    {Py_tp_doc, (void *)"The evaluation core of a Model (C)."},
    {Py_tp_methods, core_methods},
    {Py_tp_dealloc, (void *)core_dealloc},
    {0, NULL}};

static PyType_Spec core_spec = {"lagrange._fast.Core", sizeof(core), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, core_slots};

/* ---- the module --------------------------------------------------------------------- */
static void *address(PyObject *v) {
  void *p = PyLong_AsVoidPtr(v);
  if (!p && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a NULL function address");
  return p;
}

/* bind(eval_many, accel_many, eval, eval_accel, make_error): the addresses
 * of lg_eval_many, lg_eval_accel_many, lg_eval, lg_eval_accel, and the
 * callable that turns (status, text, file, line, col, message, hint) into
 * the exception to raise. */
static PyObject *bind(PyObject *module, PyObject *args) {
  (void)module;
  PyObject *a[4], *err;
  if (!PyArg_ParseTuple(args, "OOOOO", &a[0], &a[1], &a[2], &a[3], &err)) return NULL;
  void *p[4];
  for (int k = 0; k < 4; k++)
    if (!(p[k] = address(a[k]))) return NULL;
  if (!PyCallable_Check(err)) {
    PyErr_SetString(PyExc_TypeError, "make_error must be callable");
    return NULL;
  }
  /* object pointers from dlsym: POSIX guarantees they convert */
  memcpy(&fast_fn.eval_many, &p[0], sizeof p[0]);
  memcpy(&fast_fn.accel_many, &p[1], sizeof p[1]);
  memcpy(&fast_fn.eval, &p[2], sizeof p[2]);
  memcpy(&fast_fn.accel, &p[3], sizeof p[3]);
  Py_INCREF(err);
  Py_XSETREF(make_error, err);
  Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"bind", bind, METH_VARARGS,
     "bind(eval_many, accel_many, eval, eval_accel, make_error): the library's entries."},
    {"_result", fast_result_rebuild, METH_VARARGS,
     "_result(record, n, m): an EvalResult of a record (pickle and copy use it)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "lagrange._fast",
    "Model.eval / Model.accel in C (see _fast.c); internal to the lagrange package.", -1,
    module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fast(void) {
  import_array();
  PyObject *mod = PyModule_Create(&module_def);
  if (!mod) return NULL;
  static const char *const names[FAST_ARGS] = {"q", "qd", "t", "params"};
  for (int k = 0; k < FAST_ARGS; k++)
    if (!(arg_str[k] = PyUnicode_InternFromString(names[k]))) goto fail;
  zero = PyFloat_FromDouble(0.0);
  slow_eval = PyUnicode_InternFromString("_eval_slow");
  slow_accel = PyUnicode_InternFromString("_accel_slow");
  if (!zero || !slow_eval || !slow_accel || fast_result_init_type(mod) < 0) goto fail;
  PyObject *core_type = PyType_FromSpec(&core_spec);
  if (!core_type || PyModule_AddObject(mod, "Core", core_type) < 0) {
    Py_XDECREF(core_type);
    goto fail;
  }
  return mod;
fail:
  Py_DECREF(mod);
  return NULL;
}
