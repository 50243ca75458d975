"""lagrange: equations of motion from model files, in Python.

A thin ctypes layer over the C library liblagrange.so (see docs/REFERENCE.md for
how it is found: $LAGRANGE_LIBRARY, the package's own copy, the in-tree
build/, then the system).

    import lagrange
    m = lagrange.load("examples/cart_pendulum.lag")
    m.coordinates, m.parameters
    r = m.eval(q=[0.0, 0.3], qd=[0.0, -0.4])     # r.qdd, r.lam, r.mass_matrix, ...
    a = m.accel([0.0, 0.3], [0.0, -0.4])          # q'' only (a right-hand side)
    R = m.eval(Q, QD)                             # Q, QD: (N, n) arrays, one C call
    s = m.simulate(tf=5.0, dt=0.01)               # s["t"], s["x"], s["theta'"], s["E"]
    A, B = m.linearize(at={"theta": 0.0}, independent=["x", "x'"])
    M, f = m.equations()                          # exact SymPy matrices
    m.outputs, m.outputs_at(q, qd)                # the model's `output` columns at a state
    src = m.codegen(lang="c")
    m.close()                                     # or: with lagrange.load(...) as m:

Errors in a model raise ModelError (a ValueError) carrying file, line, col;
a value out of range (tf=inf, a NUL in a name) raises ValueError.
A Model may be used from several threads at once. eval and accel are
one C call each (the extension lagrange._fast: `make python`), well under
a microsecond on small models (bench/RESULTS.md); a batch costs the
library's arithmetic per state.
"""
import ctypes
import os

import numpy as np

from . import _eval, _lib
from ._eval import EvalResult
from ._lib import lib

__all__ = ["load", "loads", "Model", "EvalResult", "EvalReport", "Simulation", "ModelError",
           "NumericError", "version"]


def version():
    """The version string of the C library in use."""
    return lib.lg_version().decode()


class ModelError(ValueError):
    """A model (or numeric) error: str() is the one-line diagnostic
    "file:line:col: what is wrong (how to fix it)"; the attributes file,
    line, col (0 when unknown), message and hint hold its parts."""

    def __init__(self, text, file="", line=0, col=0, message="", hint="", status=1):
        super().__init__(text)
        self.file, self.line, self.col = file, line, col
        self.message, self.hint, self.status = message, hint, status


class NumericError(ModelError):
    """A numeric failure (singular mass matrix, blow-up in a simulation)."""


def _error(st, text, file, line, col, message, hint):
    """The exception for a diagnostic of status st (the strings as bytes);
    the C extension raises what this returns too."""
    text = text.decode(errors="replace")
    if st == 4:  # a usage error: an argument out of range (tf = inf, a huge text)
        return ValueError(text or "bad call into liblagrange")
    if st == 3:
        return MemoryError(text)
    if st == 5:
        return OSError(text)
    cls = NumericError if st == 2 else ModelError
    return cls(text, file.decode(errors="replace"), line, col,
               message.decode(errors="replace"), hint.decode(errors="replace"), st)


_eval.bind(_error)


def _check(st, diag):
    if st != 0:
        raise _error(st, lib.lg_diag_text(ctypes.byref(diag)), diag.file, diag.line,
                     diag.col, diag.message, diag.hint)


def _dptr(a):
    """A double array's address, for a function argument (cheap)."""
    return a.__array_interface__["data"][0]


def _sptr(a):
    """A double array as a struct field's pointer."""
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


_METHODS = {"lagrange": 0, "kane": 1}
_SHAPES = {2: "sphere", 3: "capsule", 4: "cylinder", 5: "disk", 6: "box"}  # lg_draw_kind


def _method(method):
    try:
        return _METHODS[method.lower()]
    except (KeyError, AttributeError):
        raise ValueError("method must be 'lagrange' or 'kane', not %r" % (method,)) from None


def _c_path(path, what):
    """A path (str, bytes or os.PathLike, as open() takes) as the bytes the
    C library receives. A NUL byte would end the C string early (another
    file would be opened): ValueError."""
    try:
        b = os.fsencode(path)
    except TypeError:
        raise TypeError("%s must be a str, bytes or os.PathLike, not %s"
                        % (what, type(path).__name__)) from None
    if b"\0" in b:
        raise ValueError("%s %r contains a NUL byte: a file name cannot contain one"
                         % (what, os.fsdecode(b)))
    return b


def _name(k, what):
    """A parameter's or coordinate's name given by the caller: a str
    without NUL (no name in a model has one)."""
    if not isinstance(k, str):
        raise TypeError("%s names are strings, not %r" % (what, k))
    if "\0" in k:
        raise ValueError("%s name %r contains a NUL byte: no %s is named so" % (what, k, what))
    return k


def load(path, method="lagrange", set=None):
    """Load, check and derive the model file at `path` (a str, bytes or
    os.PathLike; method "lagrange" or "kane"); returns a Model. `set`: a
    dict {name: value} of parameter and input values that replace the
    model's, as the command's --set NAME=VALUE (an input becomes that
    constant). Raises ModelError for a bad model, OSError when the file
    cannot be read, ValueError for a path with a NUL byte or a `set` name
    the model does not have. A `.urdf` is derived lazily (its equations
    when something needs them; a large robot's eval from its numbers at
    once), with the same answers."""
    diag = _lib.Diag()
    mp = ctypes.c_void_p()
    meth = _method(method)
    cpath = _c_path(path, "path")
    _check(lib.lg_model_load_file(cpath, ctypes.byref(mp), ctypes.byref(diag)), diag)
    return Model._derive(mp, meth, set, _urdf(cpath))


def loads(text, name="<string>", method="lagrange", set=None):
    """Like load, from the model's text (str or bytes); `name` is what
    diagnostics call it (a str, bytes or os.PathLike, as for load)."""
    diag = _lib.Diag()
    mp = ctypes.c_void_p()
    meth = _method(method)
    cname = _c_path(name, "name")
    if isinstance(text, str):
        data = text.encode()
    elif isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
    else:
        raise TypeError("text must be a str or bytes, not %s" % type(text).__name__)
    _check(lib.lg_model_load_string(cname, data, len(data), ctypes.byref(mp),
                                    ctypes.byref(diag)), diag)
    return Model._derive(mp, meth, set, _urdf(cname))


def _urdf(cname):
    """A URDF read as it is is derived lazily (lg_derive_options.lazy): a
    large robot's q'' and eval's forms come from its numbers at once, the
    equations when something needs them, with the same answers (a URDF
    has nothing a later compilation could refuse)."""
    return cname.endswith(b".urdf")


class Simulation(dict):
    """The columns of `lagrange simulate`'s CSV as numpy arrays, by name:
    "t", each coordinate, each rate "x'", "T", "V", "E", "C1".."Cm", "W",
    the multipliers "lam1".."lamm" (constrained models, both methods), then
    the model's outputs (a vector output r as "r_x", "r_y", "r_z").
    `columns` lists the names in the CSV's order; `stats` holds steps,
    rhs_evals, t_end, max_energy_drift, max_residual."""


class Equilibria(list):
    """Model.equilibria's points (dicts), with the search's free, t,
    time_dependent and warning as attributes."""


class EvalReport(str):
    """What `lagrange eval` prints (Model.eval_report), a str; `note` is
    None or the remark the command prints on stderr with it (Kane's
    dependent speeds chosen at this state rather than the initial one)."""
    note = None


def _dptr_or_none(a):
    return None if a is None else _dptr(a)


class _System:
    """Owns one lg_system and frees it when the last reference goes: the
    Model's, its C core's (lagrange._fast.Core holds one), or a call's in
    progress (each method keeps one in a local until it returns). So
    closing a Model in a simulate callback, or in another thread while an
    eval runs, cannot free the system under a call."""
    __slots__ = ("ptr", "__weakref__")

    def __init__(self, ptr):
        self.ptr = ptr

    def __del__(self, _free=lib.lg_system_free):
        ptr, self.ptr = self.ptr, None
        if ptr:
            _free(ptr)


_CLOSED = ("this Model is closed (by close() or the end of its `with` block): "
           "load the model again to use it")

_MAX_ROWS_TOP = 2 ** 63  # max_rows beyond this is no bound at all (and fits size_t)


class Model(_eval.Core):
    """A derived model (equations ready to evaluate). Build it with load or
    loads. It is safe to call eval/accel/simulate/linearize on one model
    from several threads at once. eval and accel are methods of the C
    extension (lagrange._fast.Core); the rest is Python over ctypes.

    close() releases the derived system at once (else it goes with the
    Model); afterwards every method raises ValueError. A Model is a context
    manager: `with lagrange.load(path) as m:` closes it at the end.

    Attributes: coordinates (names), parameters ({name: default}, NaN
    where the model gives none), inputs (names), method, n (coordinates),
    m (constraint rows, one multiplier each), speeds (Kane's independent
    speeds when its state is [q; u], else empty), outputs (the output
    columns, see outputs_at), closed."""

    @classmethod
    def _derive(cls, mp, meth, settings=None, lazy=False):
        diag = _lib.Diag()
        sp = ctypes.c_void_p()
        try:
            for k, v in (settings or {}).items():
                st = lib.lg_model_set(mp, _name(k, "set").encode(), float(v),
                                      ctypes.byref(diag))
                if st != 0:
                    raise ValueError(diag.message.decode(errors="replace"))
            opt = _lib.DeriveOptions()
            lib.lg_derive_options_default(ctypes.byref(opt))
            opt.method = meth
            opt.lazy = 1 if lazy else 0
            _check(lib.lg_derive_with(mp, ctypes.byref(opt), ctypes.byref(sp),
                                      ctypes.byref(diag)), diag)
        finally:
            lib.lg_model_free(mp)
        owner = _System(sp.value)
        sp = owner.ptr
        self = cls.__new__(cls)
        self._sys = owner
        self.method = "kane" if meth else "lagrange"
        self.n = lib.lg_nq(sp)
        self.m = lib.lg_nc(sp)
        np_ = lib.lg_np(sp)
        self.coordinates = [lib.lg_coordinate_name(sp, i).decode() for i in range(self.n)]
        names = [lib.lg_parameter_name(sp, i).decode() for i in range(np_)]
        vals = np.zeros(np_)
        if np_:
            lib.lg_default_params(sp, _dptr(vals))
        self.parameters = dict(zip(names, (float(v) for v in vals)))
        self._pindex = {k: i for i, k in enumerate(names)}
        self.inputs = [lib.lg_input_name(sp, i).decode() for i in range(lib.lg_ninputs(sp))]
        # Kane's independent speeds when its state is [q; u] (else empty)
        self.speeds = [lib.lg_speed_name(sp, i).decode() for i in range(lib.lg_nu(sp))]
        # the model's output columns (`output` statements; a vector as r_x, r_y, r_z)
        self.outputs = [lib.lg_output_name(sp, i).decode()
                        for i in range(lib.lg_noutputs(sp))]
        self._bind(owner, self.n, self.m, np_, lib.lg_eval_record_size(sp))
        return self

    # -- lifetime -----------------------------------------------------------------
    def _live(self):
        """The _System for one call: the caller keeps it in a local until
        the call is done. ValueError once closed."""
        owner = getattr(self, "_sys", None)
        if owner is None:
            raise ValueError(_CLOSED if hasattr(self, "_sys") else
                             "this Model has no derived system: make one with lagrange.load "
                             "or lagrange.loads")
        return owner

    @property
    def closed(self):
        """True after close()."""
        return getattr(self, "_sys", None) is None

    def close(self):
        """Release the derived system now rather than when the Model is
        garbage-collected; every method raises ValueError afterwards.
        Closing twice does nothing. A call in progress (the simulate whose
        callback closes the model, an eval in another thread) finishes
        first: the system is freed when the last such call returns."""
        self._sys = None
        self._unbind()

    def __enter__(self):
        self._live()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return "<lagrange.Model %s coordinates=%r%s>" % (self.method, self.coordinates,
                                                          " closed" if self.closed else "")

    # -- helpers ------------------------------------------------------------------
    def initial_state(self):
        """(q, qd): the model's `initial` values as numpy arrays (under
        Kane's method, initial values of declared speeds give qd by the
        kinematical equations, as `lagrange eval` starts)."""
        owner = self._live()
        q, qd = np.zeros(self.n), np.zeros(self.n)
        lib.lg_initial_state(owner.ptr, _dptr(q), _dptr(qd))
        return q, qd

    def _params(self, params):
        """The parameter vector for a call: None (the library's defaults,
        which reports a parameter without a value) when params is empty,
        else the defaults overridden by name."""
        if not params:
            for k, v in self.parameters.items():
                if v != v:
                    raise ValueError("parameter %r has no value in the model: pass "
                                     "params={%r: ...}" % (k, k))
            return None
        p = np.array(list(self.parameters.values()), dtype=float)
        for k, v in params.items():
            if _name(k, "parameter") not in self._pindex:
                raise KeyError("no parameter %r (the model has %s)"
                               % (k, ", ".join(self.parameters) or "none"))
            p[self._pindex[k]] = float(v)
        missing = [k for k, v in zip(self.parameters, p) if v != v]
        if missing:
            raise ValueError("parameter %r has no value in the model: pass params={%r: ...}"
                             % (missing[0], missing[0]))
        return p

    def _state(self, v, what):
        """One state vector (n) from None (None), a dict by coordinate name
        (the rest from the initial state) or a sequence."""
        if v is None:
            return None
        if isinstance(v, dict):
            q0, qd0 = self.initial_state()
            a = (q0 if what == "q" else qd0).copy()
            for k, x in v.items():
                if _name(k, "coordinate") not in self.coordinates:
                    raise KeyError("no coordinate %r (the model has %s)"
                                   % (k, ", ".join(self.coordinates)))
                a[self.coordinates.index(k)] = float(x)
            return a
        a = np.ascontiguousarray(np.asarray(v, dtype=float).reshape(-1))
        if a.size != self.n:
            raise ValueError("%s needs %d values (%s), got %d"
                             % (what, self.n, ", ".join(self.coordinates), a.size))
        return a

    def _rows(self, v, default, what):
        """(N x n array, is_batch) from None, a dict, one state (n) or a
        batch (N x n)."""
        if v is None:
            return default.reshape(1, self.n), False
        if isinstance(v, dict):
            return self._state(v, what).reshape(1, self.n), False
        a = np.asarray(v, dtype=float)
        if a.ndim == 2 and a.shape[1] == self.n:
            return a, True
        if a.ndim <= 1 and a.size == self.n:
            return a.reshape(1, self.n), False
        raise ValueError("%s needs %d values (%s) or an (N, %d) array of states, got shape %s"
                         % (what, self.n, ", ".join(self.coordinates), self.n, a.shape))

    def _batch(self, q, qd, t):
        """Contiguous float64 (Q, QD, T) of N states (N x n, N x n, N) and
        whether the call is a batch: a 2-D q or qd, or a 1-D t."""
        q0 = qd0 = None
        if q is None or qd is None:
            q0, qd0 = self.initial_state()
        Q, bq = self._rows(q, q0, "q")
        QD, bqd = self._rows(qd, qd0, "qd")
        T = np.asarray(t, dtype=float)
        if T.ndim > 1:
            raise ValueError("t must be a number or a 1-D array of times, got shape %s"
                             % (T.shape,))
        bt = T.ndim == 1
        sizes = {len(Q)} if bq else set()
        sizes |= {len(QD)} if bqd else set()
        sizes |= {len(T)} if bt else set()
        if len(sizes) > 1:
            raise ValueError("q, qd and t hold different numbers of states: %s"
                             % sorted(sizes))
        N = sizes.pop() if sizes else 1
        c = np.ascontiguousarray
        Q = c(np.broadcast_to(Q, (N, self.n)), dtype=float)
        QD = c(np.broadcast_to(QD, (N, self.n)), dtype=float)
        T = c(np.broadcast_to(T, (N,)), dtype=float)
        return Q, QD, T, bq or bqd or bt

    # -- evaluation ---------------------------------------------------------------
    # eval(q=None, qd=None, t=0.0, params=None) and accel(q, qd, t=0.0,
    # params=None) are _eval.Core's (C): one state of plain numbers is
    # evaluated there; everything else comes here and goes back to C as
    # normalized arrays.
    def _eval_slow(self, q, qd, t, params):
        Q, QD, T, batch = self._batch(q, qd, t)
        return self._eval_many(Q, QD, T, self._params(params), batch)

    def _accel_slow(self, q, qd, t, params):
        Q, QD, T, batch = self._batch(q, qd, t)
        return self._accel_many(Q, QD, T, self._params(params), batch)

    def outputs_at(self, q, qd, t=0.0, params=None):
        """The model's outputs (the `output` statements) at one state, as a
        dict {column: value} in the order of self.outputs. q and qd as for
        eval (sequences or dicts by coordinate name). q'' and the
        multipliers an output uses are solved at the state (lg_eval_outputs;
        under Kane's method the multipliers from Lagrange's equations)."""
        owner = self._live()
        q0, qd0 = self.initial_state()
        q = self._state(q, "q")
        qd = self._state(qd, "qd")
        q = q0 if q is None else q
        qd = qd0 if qd is None else qd
        p = self._params(params)
        out = np.zeros(max(len(self.outputs), 1))
        diag = _lib.Diag()
        _check(lib.lg_eval_outputs(owner.ptr, float(t), _dptr(q), _dptr(qd), _dptr_or_none(p),
                                   _dptr(out), ctypes.byref(diag)), diag)
        return {k: float(v) for k, v in zip(self.outputs, out)}

    def _independent(self, independent):
        """The 2n flags of lg_linearize from names ("x", "theta'") given as
        a list or one comma-separated string, as `--independent`."""
        if independent is None:
            return None
        if isinstance(independent, str):
            independent = [w for w in independent.replace(",", " ").split() if w]
        flags = (ctypes.c_int * (2 * self.n))()
        for name in independent:
            rate = _name(name, "coordinate").endswith("'")
            base = name[:-1] if rate else name
            if base not in self.coordinates:
                raise KeyError("independent: %r is not a coordinate or a coordinate's rate "
                               "(the model has %s; write \"x\" or \"x'\")"
                               % (name, ", ".join(self.coordinates)))
            flags[self.coordinates.index(base) + (self.n if rate else 0)] = 1
        return flags

    def linearize(self, at=None, qd=None, t=0.0, params=None, independent=None):
        """Linearize x' = A (x - x0) + B (r - r0), as `lagrange linearize
        --json`, about the model's initial state with coordinates
        overridden by `at` (a dict; names may also be rates "x'"); qd
        (n values) sets every rate at once. independent: the names that
        must stay independent, coordinates and rates ("x'"), as a list or
        a string "x, theta'" (like `--independent`); the rest is chosen by
        pivoting. Under Kane's method with speeds of the model's own the
        state is [independent q; Kane's independent speeds] (as `linearize
        --method kane`). Returns (A, B) numpy arrays; the full result
        (state names, inputs, x0, r0) is in self.last_linearization."""
        owner = self._live()
        q, qd_ = self.initial_state()
        for k, v in (at or {}).items():
            if _name(k, "coordinate").endswith("'") and k[:-1] in self.coordinates:
                qd_[self.coordinates.index(k[:-1])] = float(v)
            elif k in self.coordinates:
                q[self.coordinates.index(k)] = float(v)
            else:
                raise KeyError("no coordinate %r (the model has %s)"
                               % (k, ", ".join(self.coordinates)))
        if qd is not None:
            qd_ = self._state(qd, "qd")
        p = self._params(params)
        flags = self._independent(independent)
        n, nr = self.n, max(len(self.inputs), 1)
        state = (ctypes.c_size_t * (2 * n))()
        A, B = np.zeros(4 * n * n), np.zeros(2 * n * nr)
        x0, r0 = np.zeros(2 * n), np.zeros(nr)
        res = _lib.Linearization(0, 0, state, _sptr(A), _sptr(B), _sptr(x0), _sptr(r0),
                                 None, None)
        diag = _lib.Diag()
        _check(lib.lg_linearize(owner.ptr, float(t), _dptr(q), _dptr(qd_), _dptr_or_none(p),
                                flags, ctypes.byref(res), ctypes.byref(diag)), diag)
        nx, nr = res.nx, res.nr
        names = [self.coordinates[k] if k < n else self.coordinates[k - n] + "'" if k < 2 * n
                 else self.speeds[k - 2 * n] for k in state[:nx]]
        A = A[:nx * nx].reshape(nx, nx).copy()
        B = B[:nx * nr].reshape(nx, nr).copy()
        self.last_linearization = {"state": names, "inputs": list(self.inputs),
                                   "A": A, "B": B, "x0": x0[:nx].copy(),
                                   "r0": r0[:nr].copy()}
        return A, B

    _FORMATS = {"text": 0, "latex": 1, "json": 2}

    def _point(self, at):
        """q, qd for --at: NaN (the initial value, solved when dependent)
        except where `at` names a coordinate or a rate "x'"."""
        q, qd = np.full(self.n, np.nan), np.full(self.n, np.nan)
        for k, v in (at or {}).items():
            if _name(k, "coordinate").endswith("'") and k[:-1] in self.coordinates:
                qd[self.coordinates.index(k[:-1])] = float(v)
            elif k in self.coordinates:
                q[self.coordinates.index(k)] = float(v)
            else:
                raise KeyError("no coordinate %r (the model has %s)"
                               % (k, ", ".join(self.coordinates)))
        return q, qd

    def linearize_report(self, at=None, t=0.0, params=None, independent=None, symbolic=False,
                         format="text"):
        """`lagrange linearize`'s output as a string, byte for byte: `at`
        as `--at` (a dict of coordinates and rates "x'"; the rest from the
        model's initial state, dependent ones solved onto the
        constraints), independent as `--independent`, symbolic as
        `--symbolic`; format "text" or "json" ("latex" with symbolic).
        What the command prints on stderr besides (the point is not an
        equilibrium) is in self.last_notes ("" when nothing)."""
        owner = self._live()
        q, qd = self._point(at)
        p = self._params(params)
        flags = self._independent(independent)
        o = _lib.LinOptions()
        lib.lg_lin_options_default(ctypes.byref(o))
        o.t = float(t)
        o.q, o.qd = _sptr(q), _sptr(qd)
        o.p = None if p is None else _sptr(p)
        o.independent = flags
        o.symbolic = 1 if symbolic else 0
        out, notes = ctypes.c_void_p(), ctypes.c_void_p()
        diag = _lib.Diag()
        _check(lib.lg_linearize_format(owner.ptr, ctypes.byref(o), self._FORMATS[format],
                                       ctypes.byref(out), ctypes.byref(notes),
                                       ctypes.byref(diag)), diag)
        try:
            text = ctypes.string_at(out.value).decode()
            self.last_notes = ctypes.string_at(notes.value).decode()
        finally:
            lib.lg_string_free(out)
            lib.lg_string_free(notes)
        return text

    def _equilibria(self, box, t, params, starts):
        """(result pointer, owner, keep-alive arrays) of lg_equilibria."""
        owner = self._live()
        lo, hi = np.full(self.n, np.nan), np.full(self.n, np.nan)
        for k, v in (box or {}).items():
            if _name(k, "coordinate") not in self.coordinates:
                raise KeyError("box: no coordinate %r (the model has %s)"
                               % (k, ", ".join(self.coordinates)))
            a, b = (float(x) for x in v)
            lo[self.coordinates.index(k)], hi[self.coordinates.index(k)] = a, b
        p = self._params(params)
        o = _lib.EquilibriaOptions()
        lib.lg_equilibria_options_default(ctypes.byref(o))
        o.t = float(t)
        o.lo, o.hi = _sptr(lo), _sptr(hi)
        o.p = None if p is None else _sptr(p)
        o.starts = int(starts)
        res = ctypes.POINTER(_lib.EquilibriaResult)()
        diag = _lib.Diag()
        _check(lib.lg_equilibria(owner.ptr, ctypes.byref(o), ctypes.byref(res),
                                 ctypes.byref(diag)), diag)
        return res, owner

    def equilibria(self, box=None, t=0.0, params=None, starts=0):
        """The static equilibria `lagrange equilibria` finds, as data: a
        list (in the command's order) of dicts with "q" (numpy array),
        "stability" ("stable", "unstable" or "marginal"), "eigenvalues"
        (complex numpy array) and "family" (None, or {"dimension": d,
        "directions": d x n array}). box: {name: (lo, hi)} as `--box`; t as
        `--t`. The list's attributes: free (the cyclic coordinates, held
        at 0), t, time_dependent (the equations depend on t explicitly)
        and warning (what the command prints on stderr, or None)."""
        res, owner = self._equilibria(box, t, params, starts)
        try:
            r, n = res.contents, self.n
            out = Equilibria()
            for i in range(r.count):
                e = r.points[i]
                eig = np.array([complex(e.eig_re[k], e.eig_im[k]) for k in range(e.neig)])
                fam = None
                if e.family_dim:
                    d = np.array([e.family[k] for k in range(e.family_dim * n)])
                    fam = {"dimension": e.family_dim, "directions": d.reshape(e.family_dim, n)}
                out.append({"q": np.array([e.q[j] for j in range(n)]),
                            "stability": e.stability.decode(), "eigenvalues": eig,
                            "family": fam})
            out.free = [c for j, c in enumerate(self.coordinates) if r.free[j]]
            out.t, out.time_dependent = r.t, bool(r.time_dependent)
            out.warning = r.warning.decode() if r.warning else None
            return out
        finally:
            lib.lg_equilibria_free(res)

    def equilibria_report(self, box=None, t=0.0, params=None, format="text"):
        """`lagrange equilibria`'s output as a string, byte for byte
        (format "text" or "json"); the warning it prints on stderr is in
        self.last_notes (a line ending in a newline, or "")."""
        res, owner = self._equilibria(box, t, params, 0)
        try:
            w = res.contents.warning
            self.last_notes = w.decode() + "\n" if w else ""
            return self._string(lib.lg_equilibria_format, res, self._FORMATS[format])
        finally:
            lib.lg_equilibria_free(res)

    _INTEGRATORS = {"auto": 0, "dopri": 1, "rk45": 1, "bdf": 2, "cvode": 2, "ida": 3,
                    "erk": 4, "verner": 5, "fehlberg": 6, "adams": 7}

    def params_with(self, values):
        """The parameter vector as `sweep --vary` gives a run: the model's
        values with `values` (a dict by name) given last, and every
        parameter defined from them recomputed (I = m*l^2/12 follows m).
        Returns a dict by parameter name (NaN where there is no value).
        KeyError for a name that is no parameter or input."""
        owner = self._live()
        names = list(values)
        arr = (ctypes.c_char_p * max(1, len(names)))(*[str(k).encode() for k in names])
        vals = np.array([float(values[k]) for k in names] or [0.0], dtype=float)
        p = np.zeros(max(1, len(self.parameters)), dtype=float)
        diag = _lib.Diag()
        st = lib.lg_params_with(owner.ptr, len(names), arr, _dptr(vals), _dptr(p),
                                ctypes.byref(diag))
        if st == 4:  # LG_ERR_USAGE: an unknown name
            raise KeyError(diag.message.decode(errors="replace"))
        _check(st, diag)
        return dict(zip(self.parameters, p[:len(self.parameters)].tolist()))

    def simulate(self, tf=None, dt=None, t0=None, q0=None, qd0=None, params=None,
                 rtol=None, atol=None, project=False, callback=None, max_rows=None,
                 integrator=None, stabilize=None, stop_when=None, jit=None, note=None,
                 outputs=None):
        """Integrate as `lagrange simulate` (the model's `simulate` line for
        what is not given; q0/qd0 None: the model's initial state, or a
        dict by coordinate name). Returns a Simulation: a dict of numpy
        columns named as the CSV's header.

        callback(t, q, qd), when given, is called at t0 and at every output
        time with copies of the state; a true return value stops the run
        there (the Simulation ends with that point). An exception raised
        in it (KeyboardInterrupt included) stops the run and propagates.

        As the command, a run of more than max_rows rows ((tf - t0)/dt + 1;
        default 10,000,000, as `simulate --max-rows`) is refused up front.

        integrator: as `simulate --integrator` (adams, erk, dopri, verner,
        fehlberg, bdf, ida; None or "auto": the command's default).

        stabilize: as `simulate --stabilize`: "project", "none" or
        "baumgarte:ALPHA,BETA" (None: the default, projection with IDA
        for a constrained model). stop_when: as `--stop-when`, an
        expression of t, q, q', parameters and inputs; the run stops
        where it crosses zero (stats["stopped"]). jit: as `--jit`: None or
        "off", "background" (start on the tape, switch when compiled) or
        "wait" (compile first; cached). project=True moves an initial
        state off the constraints onto them (under both methods) instead
        of raising ModelError.

        The library's remarks (projected values, the jit's notes) are
        kept in Simulation.notes (a list of lines) and passed to
        note(text) as they come, when given. Simulation.stats holds
        lg_simulate's statistics (steps, t_end, integrator, energy, ...).

        Raises ValueError for options out of range (t0, tf or dt not
        finite, tf <= t0, dt <= 0, too many rows, an unknown integrator),
        ModelError for an inconsistent initial state (unless project=True)
        and NumericError for a failure on the way.

        The columns after "W" are the multipliers lam1..lamm (solved from
        Lagrange's equations at each row's state, under both methods) and
        the model's outputs; outputs="h, r" (or ["h", "r"]) keeps only
        those, in that order, as `simulate --outputs` (an unknown name
        raises ValueError naming it)."""
        owner = self._live()
        o = _lib.SimOptions()
        lib.lg_sim_options_default(owner.ptr, ctypes.byref(o))
        if integrator is not None:
            if integrator not in self._INTEGRATORS:
                raise ValueError("integrator is one of %s, not %r"
                                 % (", ".join(sorted(self._INTEGRATORS)), integrator))
            o.integrator = self._INTEGRATORS[integrator]
        for k, v in (("tf", tf), ("dt", dt), ("t0", t0), ("rtol", rtol), ("atol", atol)):
            if v is not None:
                setattr(o, k, float(v))
        if max_rows is not None:
            mr = float(max_rows)
            if not (mr >= 1 and mr.is_integer()):
                raise ValueError("max_rows must be a whole number >= 1, not %r" % (max_rows,))
            o.max_rows = int(min(mr, _MAX_ROWS_TOP))
        o.project = 1 if project else 0
        if stabilize is not None:
            stab = str(stabilize)
            if stab == "project":
                o.stabilize = 0
            elif stab == "none":
                o.stabilize = 2
            elif stab.startswith("baumgarte:") and len(stab[10:].split(",")) == 2:
                try:
                    o.alpha, o.beta = (float(v) for v in stab[10:].split(","))
                except ValueError:
                    raise ValueError("stabilize is project, none or baumgarte:ALPHA,BETA, "
                                     "not %r" % (stabilize,)) from None
                o.stabilize = 1
            else:
                raise ValueError("stabilize is project, none or baumgarte:ALPHA,BETA, not %r"
                                 % (stabilize,))
        if jit is not None:
            modes = {"off": 0, "background": 1, "wait": 2}
            if jit not in modes:
                raise ValueError("jit is one of off, background, wait, not %r" % (jit,))
            o.jit = modes[jit]
        o.multipliers = o.outputs = 1
        sel_text = None
        if outputs is not None:
            if not isinstance(outputs, str):
                outputs = ", ".join(outputs)
            sel_text = outputs.encode()
            o.output_names = sel_text
        nsel = ctypes.c_size_t(0)
        room = max(len(self.outputs), 1)
        sel = (ctypes.c_size_t * room)()
        diag = _lib.Diag()
        _check(lib.lg_output_select(owner.ptr, sel_text, sel, room, ctypes.byref(nsel),
                                    ctypes.byref(diag)), diag)
        out_names = [self.outputs[sel[k]] for k in range(nsel.value)]
        stop_text = None
        if stop_when is not None:
            stop_text = str(stop_when).encode()
            o.stop_when = stop_text
        notes = []

        def on_note(_ud, text):
            line = text.decode(errors="replace")
            notes.append(line)
            if note is not None:
                try:
                    note(line)
                except BaseException as e:  # noqa: B902 - re-raised below
                    raised.append(e)

        cnote = _lib.NOTE_CALLBACK(on_note)
        o.note = ctypes.cast(cnote, ctypes.c_void_p)
        q = self._state(q0, "q")
        qd = self._state(qd0, "qd")
        p = self._params(params)
        n, m = self.n, self.m
        rows, raised = [], []

        def cb(_ud, pp):
            # ctypes cannot pass an exception through C: keep it, stop the
            # run (nonzero), and raise it once lg_simulate has returned
            try:
                pt = pp.contents
                qv, qdv = pt.q[:n], pt.qd[:n]
                rows.append([pt.t] + qv + qdv + [pt.T, pt.V, pt.E]
                            + (pt.C[:m] if m else []) + [pt.W]
                            + (pt.lam[:m] if m and pt.lam else [])
                            + (pt.contact[:pt.ncontact] if pt.ncontact else [])
                            + (pt.outputs[:pt.noutputs] if pt.noutputs else []))
                if callback is not None and callback(pt.t, np.array(qv), np.array(qdv)):
                    return 1
                return 0
            except BaseException as e:  # noqa: B902 - re-raised below
                raised.append(e)
                return 1

        ccb = _lib.SIM_CALLBACK(cb)
        stats = _lib.SimStats()
        diag = _lib.Diag()
        st = lib.lg_simulate(owner.ptr, ctypes.byref(o), _dptr_or_none(q), _dptr_or_none(qd),
                             _dptr_or_none(p), ccb, None, ctypes.byref(stats),
                             ctypes.byref(diag))
        if raised:
            raise raised[0]
        _check(st, diag)
        cols = (["t"] + self.coordinates + [c + "'" for c in self.coordinates]
                + ["T", "V", "E"] + ["C%d" % (i + 1) for i in range(m)] + ["W"]
                + ["lam%d" % (i + 1) for i in range(m)]
                + [lib.lg_contact_column(owner.ptr, i).decode()
                   for i in range(lib.lg_ncontact_columns(owner.ptr))]
                + out_names)
        data = np.array(rows, dtype=float).reshape(len(rows), len(cols))
        s = Simulation((c, data[:, i].copy()) for i, c in enumerate(cols))
        s.columns = cols
        s.stats = {k: getattr(stats, k) for k, _ in _lib.SimStats._fields_}
        for k in ("integrator", "energy"):
            s.stats[k] = (s.stats[k] or b"").decode(errors="replace")
        s.notes = notes
        return s

    # -- text ---------------------------------------------------------------------
    def _string(self, fn, *args):
        owner = self._live()
        out = ctypes.c_void_p()
        diag = _lib.Diag()
        _check(fn(owner.ptr, *args, ctypes.byref(out), ctypes.byref(diag)), diag)
        try:
            return ctypes.string_at(out.value).decode()
        finally:
            lib.lg_string_free(out)

    def _speed_values(self, v, names, what):
        """None, or a float64 array of len(names) values (NaN where not
        given) from a sequence or a dict by name."""
        if v is None:
            return None
        a = np.full(len(names), np.nan)
        if isinstance(v, dict):
            for k, x in v.items():
                if _name(k, what) not in names:
                    raise KeyError("no %s %r (the model has %s)"
                                   % (what, k, ", ".join(n for n in names if n) or "none"))
                a[names.index(k)] = float(x)
            return a
        b = np.asarray(v, dtype=float).reshape(-1)
        if b.size != len(names):
            raise ValueError("%s needs %d values, got %d" % (what, len(names), b.size))
        a[:] = b
        return a

    def eval_report(self, q=None, qd=None, t=0.0, params=None, u=None, udep=None,
                    format="text"):
        """What `lagrange eval` prints at the state (format "text", or
        "json" for `eval --json`; under Kane's method both are the JSON
        report), as an EvalReport (a str; .note is the command's remark on
        stderr, or None). q, qd: None (the model's initial values), a dict
        by coordinate name (the rest initial) or n values. Under Kane's
        method with declared speeds, u gives independent speeds and udep
        dependent ones (a dict by speed name, or a sequence with NaN where
        not given), as `eval --state 'u1=0.3'` does: given or initial
        speeds define the velocities, a dependent speed must agree with the
        velocity constraints (else ModelError). params: {name: value}
        over the defaults. Raises NumericError where the equations cannot
        be solved at the state."""
        fmt = {"text": 0, "json": 2}.get(format)
        if fmt is None:
            raise ValueError("format must be 'text' or 'json', not %r" % (format,))
        owner = self._live()
        qv, qdv = self._state(q, "q"), self._state(qd, "qd")
        # no params: the library's defaults (a parameter without a value is
        # an error where the equations use it, as the command says)
        p = self._params(params) if params else None
        deps = [(lib.lg_dependent_speed_name(owner.ptr, i) or b"").decode()
                for i in range(lib.lg_ndependent_speeds(owner.ptr))]
        uv = self._speed_values(u, self.speeds, "speed")
        dv = self._speed_values(udep, deps, "dependent speed")
        x = _lib.EvalState(float(t), *(None if a is None else _sptr(a)
                                       for a in (qv, qdv, uv, dv)))
        out, note = ctypes.c_void_p(), ctypes.c_void_p()
        diag = _lib.Diag()
        st = lib.lg_eval_format(owner.ptr, ctypes.byref(x), _dptr_or_none(p), fmt,
                                ctypes.byref(out), ctypes.byref(note), ctypes.byref(diag))
        _check(st, diag)
        try:
            r = EvalReport(ctypes.string_at(out.value).decode())
            r.note = ctypes.string_at(note.value).decode() if note.value else None
        finally:
            lib.lg_string_free(out)
            lib.lg_string_free(note)
        return r

    def eom(self, format="text"):
        """The equations as `lagrange eom --format FORMAT` prints them
        (format "text", "latex" or "json")."""
        fmt = {"text": 0, "latex": 1, "json": 2}[format]
        return self._string(lib.lg_print, fmt)

    def codegen(self, lang="c", name="model", functions=None):
        """Generated code as `lagrange codegen` writes it, as a string
        (lang "c": the source with the header prepended, separated by a
        comment line; lang "python": the module). codegen_files gives them
        apart. functions: as `codegen --functions`, a list of names or one
        string ("rhs, mass_matrix"; None: all but rhs_recursive, which C
        under Lagrange's method writes when named)."""
        src, hdr = self.codegen_files(lang, name, functions)
        return src if hdr is None else hdr + "\n/* ---- %s.c ---- */\n" % name + src

    def codegen_files(self, lang="c", name="model", functions=None):
        """(source, header) of codegen; header is None for Python."""
        owner = self._live()
        lg = {"c": 0, "python": 1}[lang]
        # The C side sees the name up to a NUL byte; codegen() pastes the
        # whole name into a comment: the two must be one C identifier.
        if not isinstance(name, str) or "\0" in name:
            raise ValueError("codegen: name must be a C identifier (a str without NUL), not %r"
                             % (name,))
        if functions is not None and not isinstance(functions, str):
            functions = ", ".join(functions)
        if functions is not None and "\0" in functions:
            raise ValueError("codegen: functions must not hold a NUL byte")
        src, hdr = ctypes.c_void_p(), ctypes.c_void_p()
        diag = _lib.Diag()
        _check(lib.lg_codegen_functions(owner.ptr, lg, name.encode(),
                                        None if functions is None else functions.encode(),
                                        ctypes.byref(src), ctypes.byref(hdr),
                                        ctypes.byref(diag)), diag)
        try:
            s = ctypes.string_at(src.value).decode()
            h = ctypes.string_at(hdr.value).decode() if hdr.value else None
        finally:
            lib.lg_string_free(src)
            lib.lg_string_free(hdr)
        return s, h

    def equations(self):
        """(M, f): exact SymPy matrices of M q'' = f (with the multipliers
        as in mass_matrix: M is n x (n+m)), coordinates as functions of t.
        The pair is an Equations object (a tuple): under Kane's method its
        .Fr and .Frstar are Kane's generalized active and inertia forces
        (Matrices, from `eom --json`'s "Fr" and "Frstar"; None under
        Lagrange's method), and _repr_latex_ shows the equations in
        Jupyter (the `equations` of `eom --format latex`)."""
        from ._sympy import equations
        return equations(self)

    def equations_all(self):
        """Every expression `eom --format json` prints, as SymPy objects (a
        dict: mass_matrix, forcing, mass_matrix_full, forcing_full, momenta,
        T, V)."""
        from ._sympy import parse_all
        return parse_all(self)

    def parameter_values(self):
        """{sympy.Symbol: value} of the defaults, for .subs on equations()."""
        import sympy as sm
        self._live()
        return {sm.Symbol(k): sm.nsimplify(v, rational=True)
                for k, v in self.parameters.items() if v == v}

    # -- the scene: the model's geometry (what `lagrange animate` draws) ------------
    def scene_info(self):
        """What the model draws, as `lagrange animate` draws it: a dict with
        "points" (a list of {"name", "from": the index of the point it is
        located from or -1, "particle": bool}, the origin first), "bodies"
        ({"frame": its frame's name, "point": its mass centre's index})
        and "draws" (the `draw` statements in file order: ("segment", i, j)
        or ("trail", i), point indices; a shape is (KIND, i, j, axis) with
        KIND "sphere", "capsule", "cylinder", "disk" or "box", j = -1 for
        one point, axis 0, 1, 2 for its frame's x, y, z)."""
        owner = self._live()
        sp = owner.ptr
        points = [{"name": lib.lg_point_name(sp, i).decode(),
                   "from": int(lib.lg_point_from(sp, i)),
                   "particle": bool(lib.lg_point_is_particle(sp, i))}
                  for i in range(lib.lg_npoints(sp))]
        bodies = [{"frame": lib.lg_body_frame(sp, b).decode(),
                   "point": int(lib.lg_body_point(sp, b))}
                  for b in range(lib.lg_nbodies(sp))]
        draws = []
        a, b = ctypes.c_long(), ctypes.c_long()
        for i in range(lib.lg_ndraws(sp)):
            kind = lib.lg_draw_info(sp, i, ctypes.byref(a), ctypes.byref(b))
            if kind == 0:
                draws.append(("segment", a.value, b.value))
            elif kind == 1:
                draws.append(("trail", a.value))
            else:
                axis = ctypes.c_int()
                lib.lg_draw_shape(sp, i, ctypes.byref(axis), None, None)
                draws.append((_SHAPES[kind], a.value, b.value, axis.value))
        return {"points": points, "bodies": bodies, "draws": draws}

    def scene(self, q=None, t=0.0, params=None):
        """The model's geometry at q (None: the initial state; a dict by
        coordinate name; n values; or an (N, n) array of states) and time t
        (a number, or N times), with params as in eval. Returns a dict:
        "points" (names), "positions" (npoints x 3: each point in the
        inertial frame), "rotations" (nbodies x 3 x 3: each body's R with
        v_body = R v_inertial), "gravity" (3) and "inertia" (nbodies x 7:
        mass, Ixx Iyy Izz Ixy Iyz Izx), "shape_rotations" (nshapes x 3 x 3:
        the R of each `draw` shape's frame, the identity without one) and
        "shape_values" (nshapes x 6: its sizes, then its offset along its
        frame's axes); for a batch every array but gravity, inertia and
        shape_values gets a leading axis N. The same numbers `lagrange
        animate` draws (lg_scene_many)."""
        owner = self._live()
        sp = owner.ptr
        Q, _, T, batch = self._batch(q, None, t)
        p = self._params(params)
        npt, nb, size = lib.lg_npoints(sp), lib.lg_nbodies(sp), lib.lg_scene_size(sp)
        out = np.zeros((len(T), size))
        diag = _lib.Diag()
        _check(lib.lg_scene_many(sp, len(T), _dptr(T), _dptr(Q), _dptr_or_none(p), _dptr(out),
                                 ctypes.byref(diag)), diag)
        o_rot = 3 * npt
        o_grav = o_rot + 9 * nb
        res = {"points": [lib.lg_point_name(sp, i).decode() for i in range(npt)],
               "positions": out[:, :o_rot].reshape(len(T), npt, 3),
               "rotations": out[:, o_rot:o_grav].reshape(len(T), nb, 3, 3),
               "gravity": out[0, o_grav:o_grav + 3].copy(),
               "inertia": out[0, o_grav + 3:o_grav + 3 + 7 * nb].reshape(nb, 7).copy()}
        o_sh = o_grav + 3 + 7 * nb
        ns = (size - o_sh) // 15
        res["shape_rotations"] = out[:, o_sh:o_sh + 9 * ns].reshape(len(T), ns, 3, 3)
        res["shape_values"] = out[0, o_sh + 9 * ns:].reshape(ns, 6).copy()
        if not batch:
            res["positions"] = res["positions"][0]
            res["rotations"] = res["rotations"][0]
            res["shape_rotations"] = res["shape_rotations"][0]
        return res
