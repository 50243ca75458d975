"""Evaluation at one state or many: the result object, the record layout
of lg_eval_many, and the per-thread buffers of the fast paths.

Why it looks the way it does: on small models a call's cost is almost all
interpreter and ctypes overhead (an empty ctypes call is ~0.15 us, reading
a NumPy array's address ~0.7 us, creating a NumPy array ~0.15 us). So
each thread keeps, per model, one input buffer [t, q, q'] and one output
record whose addresses are wrapped in ctypes objects once; a call copies
q and q' into the input buffer, makes one C call of three ready arguments
(lg_eval_packed: every argument costs ~0.1 us in ctypes), and copies the record once into a fresh array (so a result is
never overwritten by the next call). The result's fields are views into
that array, made when first read."""
import ctypes
import threading

import numpy as np

from . import _lib

# the types of t the fast paths take as they are (anything else: the batch path)
_SCALAR = frozenset((float, int, np.float64))

def layout(n, m):
    """{field: (start, stop, shape)} of one lg_eval_many record (the order
    lagrange.h documents), and the record's size in doubles."""
    N = 2 * n + m
    parts = (("qdd", (n,)), ("lam", (m,)), ("constraint_forces", (n,)),
             ("mass_matrix", (n, n + m)), ("forcing", (n,)),
             ("mass_matrix_full", (N, N)), ("forcing_full", (N,)), ("momenta", (n,)),
             ("residuals", (m,)), ("T", ()), ("V", ()))
    lay, off = {}, 0
    for name, shape in parts:
        size = int(np.prod(shape, dtype=np.int64))
        lay[name] = (off, off + size, shape)
        off += size
    return lay, off


class EvalResult:
    """What Model.eval returns, the fields of `lagrange eval --json`:

    qdd (n), lam (m), mass_matrix (n x (n+m): [M, -J^T]), forcing (n),
    mass_matrix_full and forcing_full (the first-order form, 2n+m),
    constraint_forces (J^T lam, n), momenta (dL/dq', n), residuals (the
    constraints, m): NumPy arrays; T and V (energies): floats.

    For a batch (eval with q, qd of shape (N, n)) every field gains a
    leading axis of length N (T and V become arrays of N). The fields are
    views into one array of this result's own (`record`), made on first
    access; nothing later overwrites them."""

    FIELDS = ("qdd", "lam", "constraint_forces", "mass_matrix", "forcing",
              "mass_matrix_full", "forcing_full", "momenta", "residuals", "T", "V")

    def __init__(self, record, lay):
        """record: one lg_eval_many record (1-D) or N of them (N x size);
        lay: the layout from layout(n, m)."""
        self._rec = record
        self._lay = lay

    @property
    def record(self):
        """The raw record(s) of lg_eval_many the fields are views into."""
        return self._rec

    @property
    def batch(self):
        """True when this holds many states (fields with a leading axis)."""
        return self._rec.ndim == 2

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            a, b, shape = self._lay[name]
        except KeyError:
            raise AttributeError("EvalResult has no field %r (fields: %s)"
                                 % (name, ", ".join(self.FIELDS))) from None
        rec = self._rec
        if rec.ndim == 1:
            v = float(rec[a]) if not shape else rec[a:b].reshape(shape)
        else:
            v = rec[:, a] if not shape else rec[:, a:b].reshape((rec.shape[0],) + shape)
        self.__dict__[name] = v
        return v

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.FIELDS))

    def as_dict(self):
        """{field: value} of every field."""
        return {k: getattr(self, k) for k in self.FIELDS}

    def __repr__(self):
        return "EvalResult(qdd=%r, lam=%r)" % (self.qdd, self.lam)


def _addr(a):
    return a.__array_interface__["data"][0]


class Buffers:
    """One thread's buffers for one model: the input x = [t, q, q'] of
    lg_eval_packed, an output record and an output q'', each with its
    address as a ctypes object."""
    __slots__ = ("inp", "rec", "acc", "pt", "prec", "pacc")

    def __init__(self, n, size):
        self.inp = np.zeros(1 + 2 * n)
        self.rec = np.zeros(size)
        self.acc = np.zeros(n)
        self.pt = ctypes.c_void_p(_addr(self.inp))
        self.prec = ctypes.c_void_p(_addr(self.rec))
        self.pacc = ctypes.c_void_p(_addr(self.acc))


class Evaluator:
    """The evaluation state of a Model: sizes, the record layout and the
    per-thread buffers (threading.local, so two threads never share
    one)."""

    def __init__(self, sp, n, m):
        self.sp, self.n, self.m = sp, n, m
        self.lay, self.size = layout(n, m)
        if self.size != _lib.lib.lg_eval_record_size(sp):
            raise ImportError("liblagrange's eval record does not match this package: "
                              "rebuild both from one source tree")
        self.tls = threading.local()
        self.shape = (n,)
        self.sq = slice(1, 1 + n)
        self.sqd = slice(1 + n, 1 + 2 * n)

    def buffers(self):
        """This thread's Buffers (made on its first call)."""
        try:
            return self.tls.b
        except AttributeError:
            b = self.tls.b = Buffers(self.n, self.size)
            return b

    def fast(self, q, qd, t):
        """Whether (q, qd, t) is one state the fast path copies as it is:
        q and qd float-like NumPy arrays of shape (n,) or lists/tuples of n
        numbers, t a float or an int."""
        if type(t) not in _SCALAR:
            return False
        for v in (q, qd):
            tv = type(v)
            if tv is np.ndarray:
                if v.shape != self.shape:
                    return False
            elif tv is list or tv is tuple:
                if len(v) != self.n or (self.n == 1 and hasattr(v[0], "__len__")):
                    return False
            else:
                return False
        return True
