/* _fast_result.c - EvalResult, what Model.eval returns.
 *
 * For one state the record lives inside the object: an eval allocates
 * nothing else. The first field read moves the record into a NumPy array
 * of the result's own (`record`), and every field is a view into that
 * array, made when first read and kept. The views refer to the array, not
 * to the result, so a result is never part of a reference cycle and needs
 * no garbage collector (views into the object itself would make one, and
 * the collector's work on every result cost more than the array). A
 * batch's record array comes from the call. */
#include "_fast.h"

#include <string.h>

PyTypeObject *fast_result_type;
static PyObject *field_index; /* {name: k} */
static PyObject *field_tuple; /* FIELDS */
static PyObject *rebuild_fn;  /* lagrange._fast._result, for pickle and copy */

const char *const fast_field_names[FAST_NFIELDS] = {
    "qdd",          "lam",     "constraint_forces", "mass_matrix", "forcing",
    "mass_matrix_full", "forcing_full", "momenta",   "residuals",   "T", "V"};

fast_field fast_field_at(Py_ssize_t n, Py_ssize_t m, int k) {
  Py_ssize_t N = 2 * n + m;
  /* each field's shape; its size is their product */
  const Py_ssize_t shape[FAST_NFIELDS][3] = {
      {1, n, 0}, {1, m, 0},     {1, n, 0}, {2, n, n + m}, {1, n, 0}, {2, N, N},
      {1, N, 0}, {1, n, 0},     {1, m, 0}, {0, 0, 0},     {0, 0, 0}};
  fast_field f = {0, 0, {0, 0}};
  for (int i = 0; i <= k; i++) {
    Py_ssize_t size = 1;
    for (int d = 0; d < shape[i][0]; d++) size *= shape[i][1 + d];
    if (i == k) {
      f.nd = shape[i][0];
      f.dims[0] = shape[i][1];
      f.dims[1] = shape[i][2];
    } else {
      f.off += size;
    }
  }
  return f;
}

Py_ssize_t fast_record_size(Py_ssize_t n, Py_ssize_t m) {
  if (n < 0 || m < 0 || n > FAST_MAX_DIM || m > FAST_MAX_DIM) return -1;
  return fast_field_at(n, m, FAST_NFIELDS - 1).off + 1;
}

lg_eval_result fast_record_ptrs(Py_ssize_t n, Py_ssize_t m, double *rec) {
  double *p[FAST_NFIELDS];
  for (int k = 0; k < FAST_NFIELDS; k++) p[k] = rec + fast_field_at(n, m, k).off;
  lg_eval_result r = {p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10]};
  return r;
}

static void init(fast_result *r, Py_ssize_t n, Py_ssize_t m, int batch, PyObject *rec) {
  r->n = n;
  r->m = m;
  r->batch = batch;
  r->rec = rec;
  for (int k = 0; k < FAST_NFIELDS; k++) r->field[k] = NULL;
}

fast_result *fast_result_one(Py_ssize_t n, Py_ssize_t m, Py_ssize_t size) {
  fast_result *r = PyObject_NewVar(fast_result, fast_result_type, size);
  if (r) init(r, n, m, 0, NULL);
  return r;
}

PyObject *fast_result_batch(Py_ssize_t n, Py_ssize_t m, PyObject *rec) {
  fast_result *r = PyObject_NewVar(fast_result, fast_result_type, 0);
  if (!r) return NULL;
  Py_INCREF(rec);
  init(r, n, m, 1, rec);
  return (PyObject *)r;
}

/* A view of `nd` dims at data, strides of a C array unless `rowstride`
 * (a batch: a leading axis of dims[0] records), kept alive by base. */
static PyObject *view(PyObject *base, double *data, int nd, npy_intp *dims,
                      npy_intp rowstride) {
  npy_intp strides[3];
  npy_intp s = sizeof(double);
  for (int d = nd - 1; d >= 0; d--) {
    strides[d] = s;
    s *= dims[d];
  }
  if (rowstride) strides[0] = rowstride;
  PyObject *a = PyArray_New(&PyArray_Type, nd, dims, NPY_DOUBLE, strides, data, 0,
                            NPY_ARRAY_ALIGNED | NPY_ARRAY_WRITEABLE, NULL);
  if (!a) return NULL;
  Py_INCREF(base);
  if (PyArray_SetBaseObject((PyArrayObject *)a, base) < 0) {
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

/* The record array (borrowed): for one state, made on first use from the
 * inline record, which is not read again. NULL: an exception. */
static PyObject *record(fast_result *r) {
  if (!r->rec) {
    npy_intp size = Py_SIZE(r);
    r->rec = PyArray_SimpleNew(1, &size, NPY_DOUBLE);
    if (!r->rec) return NULL;
    memcpy(PyArray_DATA((PyArrayObject *)r->rec), r->data, size * sizeof *r->data);
  }
  return r->rec;
}

static PyObject *make_field(fast_result *r, int k) {
  fast_field f = fast_field_at(r->n, r->m, k);
  if (!r->rec && f.nd == 0) return PyFloat_FromDouble(r->data[f.off]); /* T, V */
  PyArrayObject *rec = (PyArrayObject *)record(r);
  if (!rec) return NULL;
  double *at = (double *)PyArray_DATA(rec) + f.off;
  if (!r->batch) {
    if (f.nd == 0) return PyFloat_FromDouble(*at);
    return view((PyObject *)rec, at, (int)f.nd, f.dims, 0);
  }
  npy_intp dims[3] = {PyArray_DIM(rec, 0), f.dims[0], f.dims[1]};
  return view((PyObject *)rec, at, 1 + (int)f.nd, dims, PyArray_STRIDE(rec, 0));
}

static PyObject *result_getattro(PyObject *self, PyObject *name) {
  fast_result *r = (fast_result *)self;
  PyObject *idx = PyDict_GetItemWithError(field_index, name);
  if (!idx) {
    if (PyErr_Occurred()) return NULL;
    PyObject *v = PyObject_GenericGetAttr(self, name);
    if (!v && PyErr_ExceptionMatches(PyExc_AttributeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_AttributeError, "EvalResult has no field %R (fields: %S)", name,
                   field_tuple);
    }
    return v;
  }
  long k = PyLong_AsLong(idx);
  if (!r->field[k] && !(r->field[k] = make_field(r, (int)k))) return NULL;
  return Py_NewRef(r->field[k]);
}

static void result_dealloc(PyObject *self) {
  fast_result *r = (fast_result *)self;
  PyTypeObject *tp = Py_TYPE(self);
  Py_XDECREF(r->rec);
  for (int k = 0; k < FAST_NFIELDS; k++) Py_XDECREF(r->field[k]);
  PyObject_Free(self);
  Py_DECREF(tp);
}

static PyObject *get_record(PyObject *self, void *closure) {
  (void)closure;
  PyObject *rec = record((fast_result *)self);
  return rec ? Py_NewRef(rec) : NULL;
}

static PyObject *get_batch(PyObject *self, void *closure) {
  (void)closure;
  return PyBool_FromLong(((fast_result *)self)->batch);
}

static PyObject *as_dict(PyObject *self, PyObject *unused) {
  (void)unused;
  PyObject *d = PyDict_New();
  for (int k = 0; d && k < FAST_NFIELDS; k++) {
    PyObject *name = PyTuple_GET_ITEM(field_tuple, k);
    PyObject *v = PyObject_GetAttr(self, name);
    if (!v || PyDict_SetItem(d, name, v) < 0) Py_CLEAR(d);
    Py_XDECREF(v);
  }
  return d;
}

static PyObject *result_dir(PyObject *self, PyObject *unused) {
  (void)unused;
  PyObject *names = PyObject_Dir((PyObject *)Py_TYPE(self));
  PyObject *all = names ? PySet_New(names) : NULL;
  Py_XDECREF(names);
  for (int k = 0; all && k < FAST_NFIELDS; k++)
    if (PySet_Add(all, PyTuple_GET_ITEM(field_tuple, k)) < 0) Py_CLEAR(all);
  PyObject *list = all ? PySequence_List(all) : NULL;
  Py_XDECREF(all);
  if (list && PyList_Sort(list) < 0) Py_CLEAR(list);
  return list;
}

static PyObject *result_repr(PyObject *self) {
  PyObject *qdd = PyObject_GetAttrString(self, "qdd");
  PyObject *lam = qdd ? PyObject_GetAttrString(self, "lam") : NULL;
  PyObject *s = lam ? PyUnicode_FromFormat("EvalResult(qdd=%R, lam=%R)", qdd, lam) : NULL;
  Py_XDECREF(qdd);
  Py_XDECREF(lam);
  return s;
}

PyDoc_STRVAR(result_doc,
"What Model.eval returns, the fields of `lagrange eval --json`:\n\n"
"qdd (n), lam (m), mass_matrix (n x (n+m): [M, -J^T]), forcing (n),\n"
"mass_matrix_full and forcing_full (the first-order form, 2n+m),\n"
"constraint_forces (J^T lam, n), momenta (dL/dq', n), residuals (the\n"
"constraints, m): NumPy arrays; T and V (energies): floats.\n\n"
"For a batch (eval with q, qd of shape (N, n)) every field gains a\n"
"leading axis of length N (T and V become arrays of N). The fields are\n"
"views into this result's own record (`record`), made on first access;\n"
"nothing later overwrites them.");

/* pickle and copy: (_result, (record, n, m)) */
static PyObject *result_reduce(PyObject *self, PyObject *unused) {
  (void)unused;
  fast_result *r = (fast_result *)self;
  PyObject *rec = record(r);
  return rec ? Py_BuildValue("O(Onn)", rebuild_fn, rec, r->n, r->m) : NULL;
}

/* The arguments come from a pickle, which anyone can write: n and m are
 * bounded before any size is computed from them (a size that wrapped
 * could match a small record and give views far past its end), and a
 * batch's records are copied (the views are writable and aligned). */
PyObject *fast_result_rebuild(PyObject *module, PyObject *args) {
  (void)module;
  PyObject *rec;
  Py_ssize_t n, m;
  if (!PyArg_ParseTuple(args, "O!nn", &PyArray_Type, &rec, &n, &m)) return NULL;
  PyArrayObject *a = (PyArrayObject *)rec;
  Py_ssize_t size = fast_record_size(n, m);
  if (size < 0) {
    PyErr_Format(PyExc_ValueError, "_result(record, n, m): n and m must be from 0 to %zd, "
                 "not %zd and %zd", (Py_ssize_t)FAST_MAX_DIM, n, m);
    return NULL;
  }
  int nd = PyArray_NDIM(a);
  if (PyArray_TYPE(a) != NPY_DOUBLE || !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a) ||
      !PyArray_ISNOTSWAPPED(a) || (nd != 1 && nd != 2) || PyArray_DIM(a, nd - 1) != size) {
    PyErr_Format(PyExc_ValueError, "_result(record, n, m): a C-contiguous float64 record "
                 "of %zd values (or N of them) is needed for n = %zd, m = %zd", size, n, m);
    return NULL;
  }
  if (nd == 2) {
    PyObject *own = PyArray_NewCopy(a, NPY_CORDER);
    PyObject *r = own ? fast_result_batch(n, m, own) : NULL;
    Py_XDECREF(own);
    return r;
  }
  fast_result *r = fast_result_one(n, m, size);
  if (r) memcpy(r->data, PyArray_DATA(a), size * sizeof *r->data);
  return (PyObject *)r;
}

static PyMethodDef result_methods[] = {
    {"__reduce__", result_reduce, METH_NOARGS, NULL},
    {"as_dict", as_dict, METH_NOARGS,
     "as_dict($self, /)\n--\n\n{field: value} of every field."},
    {"__dir__", result_dir, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef result_getset[] = {
    {"record", get_record, NULL,
     "The raw record(s) of lg_eval_many the fields are views into.", NULL},
    {"batch", get_batch, NULL, "True when this holds many states (fields with a leading axis).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot result_slots[] = {
    {Py_tp_doc, (void *)result_doc},       {Py_tp_dealloc, (void *)result_dealloc},
    {Py_tp_getattro, (void *)result_getattro}, {Py_tp_repr, (void *)result_repr},
    {Py_tp_methods, result_methods},       {Py_tp_getset, result_getset},
    {0, NULL}};

static PyType_Spec result_spec = {
    "lagrange.EvalResult", offsetof(fast_result, data), sizeof(double),
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, result_slots};

int fast_result_init_type(PyObject *module) {
  field_index = PyDict_New();
  field_tuple = PyTuple_New(FAST_NFIELDS);
  if (!field_index || !field_tuple) return -1;
  for (int k = 0; k < FAST_NFIELDS; k++) {
    PyObject *name = PyUnicode_InternFromString(fast_field_names[k]);
    PyObject *idx = PyLong_FromLong(k);
    int bad = !name || !idx || PyDict_SetItem(field_index, name, idx) < 0;
    Py_XDECREF(idx);
    if (bad) {
      Py_XDECREF(name);
      return -1;
    }
    PyTuple_SET_ITEM(field_tuple, k, name);
  }
  if (!(rebuild_fn = PyObject_GetAttrString(module, "_result"))) return -1;
  fast_result_type = (PyTypeObject *)PyType_FromSpec(&result_spec);
  if (!fast_result_type) return -1;
  if (PyObject_SetAttrString((PyObject *)fast_result_type, "FIELDS", field_tuple) < 0)
    return -1;
  Py_INCREF(fast_result_type);
  return PyModule_AddObject(module, "EvalResult", (PyObject *)fast_result_type);
}
