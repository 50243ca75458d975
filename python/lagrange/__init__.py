"""lagrange: equations of motion from model files, in Python.

A thin ctypes layer over the C library liblagrange.so (see README.md for
how it is found: $LAGRANGE_LIBRARY, the package's own copy, the in-tree
build/, then the system).

    import lagrange
    m = lagrange.load("examples/cart_pendulum.lag")
    m.coordinates, m.parameters
    r = m.eval(q=[0.0, 0.3], qd=[0.0, -0.4])     # r.qdd, r.lam, r.mass_matrix, ...
    s = m.simulate(tf=5.0, dt=0.01)               # s["t"], s["x"], s["theta'"], s["E"]
    A, B = m.linearize(at={"theta": 0.0})
    M, f = m.equations()                          # exact SymPy matrices
    src = m.codegen(lang="c")

Errors in a model raise ModelError (a ValueError) carrying file, line, col.
"""
import ctypes
import numpy as np

from . import _lib
from ._lib import lib

__all__ = ["load", "loads", "Model", "EvalResult", "Simulation", "ModelError",
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


def _check(st, diag):
    if st == 0:
        return
    text = lib.lg_diag_text(ctypes.byref(diag)).decode(errors="replace")
    cls = NumericError if st == 2 else ModelError
    if st == 4:
        raise TypeError(text or "bad call into liblagrange")
    if st == 3:
        raise MemoryError(text)
    if st == 5:
        raise OSError(text)
    raise cls(text, diag.file.decode(errors="replace"), diag.line, diag.col,
              diag.message.decode(errors="replace"), diag.hint.decode(errors="replace"), st)


def _dptr(a):
    """A double array's address, for a function argument (cheap)."""
    return a.__array_interface__["data"][0]


def _sptr(a):
    """A double array as a struct field's pointer."""
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


_METHODS = {"lagrange": 0, "kane": 1}


def _method(method):
    try:
        return _METHODS[method.lower()]
    except (KeyError, AttributeError):
        raise ValueError("method must be 'lagrange' or 'kane', not %r" % (method,)) from None


def load(path, method="lagrange"):
    """Load, check and derive the model file at `path` (method "lagrange"
    or "kane"); returns a Model. Raises ModelError for a bad model, OSError
    when the file cannot be read."""
    diag = _lib.Diag()
    mp = ctypes.c_void_p()
    meth = _method(method)
    _check(lib.lg_model_load_file(str(path).encode(), ctypes.byref(mp), ctypes.byref(diag)),
           diag)
    return Model._derive(mp, meth)


def loads(text, name="<string>", method="lagrange"):
    """Like load, from the model's text; `name` is what diagnostics call it."""
    diag = _lib.Diag()
    mp = ctypes.c_void_p()
    meth = _method(method)
    data = text.encode() if isinstance(text, str) else bytes(text)
    _check(lib.lg_model_load_string(name.encode(), data, len(data), ctypes.byref(mp),
                                    ctypes.byref(diag)), diag)
    return Model._derive(mp, meth)


class EvalResult:
    """What Model.eval returns: numpy arrays qdd (n), lam (m), mass_matrix
    (n x (n+m), [M, -J^T]), forcing (n), mass_matrix_full and forcing_full
    (the first-order form), constraint_forces (J^T lam), momenta (dL/dq'),
    residuals (the constraints), and floats T, V (energies)."""

    def __repr__(self):
        return "EvalResult(qdd=%r, lam=%r)" % (self.qdd, self.lam)


class Simulation(dict):
    """The columns of `lagrange simulate`'s CSV as numpy arrays, by name:
    "t", each coordinate, each rate "x'", "T", "V", "E", "C1".."Cm", "W".
    `columns` lists the names in the CSV's order; `stats` holds steps,
    rhs_evals, t_end, max_energy_drift, max_residual."""


class Model:
    """A derived model (equations ready to evaluate). Build it with load or
    loads. It is safe to call eval/simulate/linearize from several threads."""

    @classmethod
    def _derive(cls, mp, meth):
        diag = _lib.Diag()
        sp = ctypes.c_void_p()
        try:
            _check(lib.lg_derive(mp, meth, ctypes.byref(sp), ctypes.byref(diag)), diag)
        finally:
            lib.lg_model_free(mp)
        self = cls.__new__(cls)
        self._s = sp
        self._free = lib.lg_system_free
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
        self.inputs = [lib.lg_input_name(sp, i).decode() for i in range(lib.lg_ninputs(sp))]
        return self

    def __del__(self):
        s = getattr(self, "_s", None)
        if s:
            self._free(s)
            self._s = None

    def __repr__(self):
        return "<lagrange.Model %s coordinates=%r>" % (self.method, self.coordinates)

    # -- helpers ------------------------------------------------------------------
    def initial_state(self):
        """(q, qd): the model's `initial` values as numpy arrays."""
        q, qd = np.zeros(self.n), np.zeros(self.n)
        lib.lg_initial_state(self._s, _dptr(q), _dptr(qd))
        return q, qd

    def _params(self, params):
        if not params:
            p = getattr(self, "_pdef", None)
            if p is None:
                p = self._pdef = np.array(list(self.parameters.values()), dtype=float)
            return p
        p = np.array(list(self.parameters.values()), dtype=float)
        for k, v in (params or {}).items():
            if k not in self.parameters:
                raise KeyError("no parameter %r (the model has %s)"
                               % (k, ", ".join(self.parameters) or "none"))
            p[list(self.parameters).index(k)] = float(v)
        return np.ascontiguousarray(p)

    def _state(self, v, what):
        if v is None:
            return None
        if isinstance(v, dict):
            q0, qd0 = self.initial_state()
            a = (q0 if what == "q" else qd0).copy()
            for k, x in v.items():
                a[self.coordinates.index(k)] = float(x)
            return a
        a = np.ascontiguousarray(np.asarray(v, dtype=float).reshape(-1))
        if a.size != self.n:
            raise ValueError("%s needs %d values (%s), got %d"
                             % (what, self.n, ", ".join(self.coordinates), a.size))
        return a

    # -- evaluation ---------------------------------------------------------------
    def eval(self, q=None, qd=None, t=0.0, params=None):
        """Evaluate the equations at (t, q, q') (None: the model's initial
        state; a dict sets some coordinates by name) with parameters
        overriding the defaults by name. Returns an EvalResult as
        `lagrange eval --json`. Raises NumericError where M is singular."""
        if q is None or qd is None:
            q0, qd0 = self.initial_state()
        q = q0 if q is None else self._state(q, "q")
        qd = qd0 if qd is None else self._state(qd, "qd")
        p = self._params(params)
        n, m = self.n, self.m
        r = EvalResult()
        shapes = {"qdd": (n,), "lam": (m,), "constraint_forces": (n,),
                  "mass_matrix": (n, n + m), "forcing": (n,),
                  "mass_matrix_full": (2 * n + m, 2 * n + m), "forcing_full": (2 * n + m,),
                  "momenta": (n,), "residuals": (m,), "T": (1,), "V": (1,)}
        c = _lib.EvalResult()
        for k, shp in shapes.items():
            a = np.zeros(shp)
            setattr(r, k, a)
            setattr(c, k, _sptr(a))
        diag = _lib.Diag()
        _check(lib.lg_eval(self._s, float(t), _dptr(q), _dptr(qd), _dptr(p),
                           ctypes.byref(c), ctypes.byref(diag)), diag)
        r.T, r.V = float(r.T[0]), float(r.V[0])
        return r

    def accel(self, q, qd, t=0.0, params=None):
        """Only the accelerations q'' (a numpy array), the fast path for a
        right-hand side: as eval(...).qdd with less work per call."""
        q = q if type(q) is np.ndarray and q.dtype == np.float64 and q.flags.c_contiguous \
            and q.size == self.n else self._state(q, "q")
        qd = qd if type(qd) is np.ndarray and qd.dtype == np.float64 and \
            qd.flags.c_contiguous and qd.size == self.n else self._state(qd, "qd")
        p = self._params(params)
        out = np.empty(self.n)
        diag = _lib.Diag()
        st = lib.lg_eval_accel(self._s, float(t), _dptr(q), _dptr(qd), _dptr(p),
                               _dptr(out), None, ctypes.byref(diag))
        if st:
            _check(st, diag)
        return out

    def linearize(self, at=None, qd=None, t=0.0, params=None):
        """Linearize x' = A (x - x0) + B (r - r0) about the model's initial
        state with coordinates overridden by `at` (a dict, names may also
        be rates "x'"), as `lagrange linearize --json`. Returns (A, B) numpy
        arrays; the full result (state names, x0, r0) is in
        self.last_linearization."""
        q, qd_ = self.initial_state()
        for k, v in (at or {}).items():
            if k.endswith("'") and k[:-1] in self.coordinates:
                qd_[self.coordinates.index(k[:-1])] = float(v)
            elif k in self.coordinates:
                q[self.coordinates.index(k)] = float(v)
            else:
                raise KeyError("no coordinate %r (the model has %s)"
                               % (k, ", ".join(self.coordinates)))
        if qd is not None:
            qd_ = self._state(qd, "qd")
        p = self._params(params)
        n, nr = self.n, max(len(self.inputs), 1)
        state = (ctypes.c_size_t * (2 * n))()
        A, B = np.zeros(4 * n * n), np.zeros(2 * n * nr)
        x0, r0 = np.zeros(2 * n), np.zeros(nr)
        res = _lib.Linearization(0, 0, state, _sptr(A), _sptr(B), _sptr(x0), _sptr(r0),
                                 None, None)
        diag = _lib.Diag()
        _check(lib.lg_linearize(self._s, float(t), _dptr(q), _dptr(qd_), _dptr(p), None,
                                ctypes.byref(res), ctypes.byref(diag)), diag)
        nx, nr = res.nx, res.nr
        names = [self.coordinates[k] if k < n else self.coordinates[k - n] + "'"
                 for k in state[:nx]]
        A = A[:nx * nx].reshape(nx, nx).copy()
        B = B[:nx * nr].reshape(nx, nr).copy()
        self.last_linearization = {"state": names, "inputs": list(self.inputs),
                                   "A": A, "B": B, "x0": x0[:nx].copy(),
                                   "r0": r0[:nr].copy()}
        return A, B

    def simulate(self, tf=None, dt=None, t0=None, q0=None, qd0=None, params=None,
                 rtol=None, atol=None, project=False):
        """Integrate as `lagrange simulate` (the model's `simulate` line for
        what is not given; q0/qd0 None: the model's initial state). Returns a
        Simulation: a dict of numpy columns named as the CSV's header.
        Raises ModelError for an inconsistent initial state (unless
        project=True) and NumericError for a failure on the way."""
        o = _lib.SimOptions()
        lib.lg_sim_options_default(self._s, ctypes.byref(o))
        for k, v in (("tf", tf), ("dt", dt), ("t0", t0), ("rtol", rtol), ("atol", atol)):
            if v is not None:
                setattr(o, k, float(v))
        o.project = 1 if project else 0
        q = self._state(q0, "q")
        qd = self._state(qd0, "qd")
        p = self._params(params)
        n, m = self.n, self.m
        rows = []

        def cb(_ud, pp):
            pt = pp.contents
            rows.append([pt.t] + pt.q[:n] + pt.qd[:n] + [pt.T, pt.V, pt.E]
                        + (pt.C[:m] if m else []) + [pt.W])
            return 0

        ccb = _lib.SIM_CALLBACK(cb)
        stats = _lib.SimStats()
        diag = _lib.Diag()
        st = lib.lg_simulate(self._s, ctypes.byref(o), None if q is None else _dptr(q),
                             None if qd is None else _dptr(qd), _dptr(p), ccb, None,
                             ctypes.byref(stats), ctypes.byref(diag))
        _check(st, diag)
        cols = (["t"] + self.coordinates + [c + "'" for c in self.coordinates]
                + ["T", "V", "E"] + ["C%d" % (i + 1) for i in range(m)] + ["W"])
        data = np.array(rows, dtype=float).reshape(len(rows), len(cols))
        s = Simulation((c, data[:, i].copy()) for i, c in enumerate(cols))
        s.columns = cols
        s.stats = {k: getattr(stats, k) for k, _ in _lib.SimStats._fields_}
        return s

    # -- text ---------------------------------------------------------------------
    def _string(self, fn, *args):
        out = ctypes.c_void_p()
        diag = _lib.Diag()
        _check(fn(self._s, *args, ctypes.byref(out), ctypes.byref(diag)), diag)
        try:
            return ctypes.string_at(out.value).decode()
        finally:
            lib.lg_string_free(out)

    def eom(self, format="text"):
        """The equations as `lagrange eom --format FORMAT` prints them
        (format "text", "latex" or "json")."""
        fmt = {"text": 0, "latex": 1, "json": 2}[format]
        return self._string(lib.lg_print, fmt)

    def codegen(self, lang="c", name="model"):
        """Generated code as `lagrange codegen` writes it, as a string
        (lang "c": the source with the header prepended, separated by a
        comment line; lang "python": the module). codegen_files gives them
        apart."""
        src, hdr = self.codegen_files(lang, name)
        return src if hdr is None else hdr + "\n/* ---- %s.c ---- */\n" % name + src

    def codegen_files(self, lang="c", name="model"):
        """(source, header) of codegen; header is None for Python."""
        lg = {"c": 0, "python": 1}[lang]
        src, hdr = ctypes.c_void_p(), ctypes.c_void_p()
        diag = _lib.Diag()
        _check(lib.lg_codegen(self._s, lg, name.encode(), ctypes.byref(src),
                              ctypes.byref(hdr), ctypes.byref(diag)), diag)
        try:
            s = ctypes.string_at(src.value).decode()
            h = ctypes.string_at(hdr.value).decode() if hdr.value else None
        finally:
            lib.lg_string_free(src)
            lib.lg_string_free(hdr)
        return s, h

    def equations(self):
        """(M, f): exact SymPy matrices of M q'' = f (with the multipliers
        as in mass_matrix: M is n x (n+m)), coordinates as functions of t."""
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
        return {sm.Symbol(k): sm.nsimplify(v, rational=True)
                for k, v in self.parameters.items() if v == v}
