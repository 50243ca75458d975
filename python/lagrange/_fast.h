/* _fast.h - what the two files of the extension lagrange._fast share: the
 * library's entries it calls (addresses handed over by the ctypes layer,
 * so that both use the one liblagrange.so that _lib.py found), the record
 * layout of lg_eval_many, and the EvalResult type. */
#ifndef LAGRANGE_FAST_H
#define LAGRANGE_FAST_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL lagrange_fast_ARRAY_API
#ifndef FAST_MAIN_FILE
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "lagrange.h"

/* The entries, with the prototypes of lagrange.h. */
typedef struct fast_lib {
  lg_status (*eval_many)(const lg_system *, size_t, const double *, const double *,
                         const double *, const double *, double *, lg_diag *);
  lg_status (*accel_many)(const lg_system *, size_t, const double *, const double *,
                          const double *, const double *, double *, double *, lg_diag *);
  lg_status (*eval)(const lg_system *, double, const double *, const double *,
                    const double *, const lg_eval_result *, lg_diag *);
  lg_status (*accel)(const lg_system *, double, const double *, const double *,
                     const double *, double *, double *, lg_diag *);
} fast_lib;

extern fast_lib fast_fn;

/* The fields of a record, in lagrange.h's order. */
enum { FAST_NFIELDS = 11 };
extern const char *const fast_field_names[FAST_NFIELDS];

/* Where field k sits in a record of a system with n coordinates and m
 * constraint rows: its offset in doubles, its rank (0: a float) and its
 * shape. */
typedef struct fast_field {
  Py_ssize_t off, nd;
  npy_intp dims[2];
} fast_field;

/* The largest n or m of a record: every offset (the largest term is
 * (2n + m)^2) and the record's bytes then fit a Py_ssize_t. No model
 * comes near it. */
#define FAST_MAX_DIM ((Py_ssize_t)1 << (sizeof(Py_ssize_t) >= 8 ? 28 : 12))

fast_field fast_field_at(Py_ssize_t n, Py_ssize_t m, int k);
/* The record's size in doubles; -1 when n or m is negative or past
 * FAST_MAX_DIM. */
Py_ssize_t fast_record_size(Py_ssize_t n, Py_ssize_t m);

/* The record pointers lg_eval fills, for a record at rec. */
lg_eval_result fast_record_ptrs(Py_ssize_t n, Py_ssize_t m, double *rec);

/* EvalResult: one state's record inline (one allocation per eval), or a
 * batch's (N, size) array. */
typedef struct fast_result {
  PyObject_VAR_HEAD
  Py_ssize_t n, m;
  int batch;
  PyObject *rec;                  /* the record array: a batch's, or made on first use */
  PyObject *field[FAST_NFIELDS];  /* the fields made so far */
  double data[];                  /* one state: the record (ob_size doubles) */
} fast_result;

extern PyTypeObject *fast_result_type;

int fast_result_init_type(PyObject *module);
/* A result for one state, its record (size doubles) uninitialized (NULL:
 * an exception). */
fast_result *fast_result_one(Py_ssize_t n, Py_ssize_t m, Py_ssize_t size);
/* A result over the (N, size) array rec (a new reference is taken). */
PyObject *fast_result_batch(Py_ssize_t n, Py_ssize_t m, PyObject *rec);
/* _result(record, n, m): the result of a record (one) or records (N). */
PyObject *fast_result_rebuild(PyObject *module, PyObject *args);

#endif
