"""Per-call time of lagrange's Model.eval / Model.accel (the C extension
lagrange._fast over liblagrange) against SymPy's lambdify(cse=True) of the full forms
(mass_matrix_full, forcing_full) plus numpy.linalg.solve, on the same
models: the examples with a SymPy reference in tests/ref/sympy_models.py
(LagrangesMethod) and the planar chain of bench/models.py (KanesMethod, as
a SymPy user writes a chain) with n links.

Also the per-state time of one batch call (q, qd of shape (N, n)), and
the interpreter's floor on the cart pendulum: an empty Python method, an
empty call of a C function, an empty ctypes call (lg_nq), a new NumPy
array, and eval/accel themselves.

Run: /usr/bin/python3 bench/python_eval.py [--chains 6,12] [--quick] [--runs K]
(K runs keep each cell's minimum, for a shared machine).
Prints Markdown tables."""
import argparse
import os
import sys
import timeit

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ref"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import lagrange  # noqa: E402
from lagrange import _lib  # noqa: E402
from sympy_models import MODELS  # noqa: E402
import models  # noqa: E402

NAMES = ["spring_mass", "cart_pendulum", "double_rod_pendulum", "free_body_zxy",
         "pendulum_3d_cartesian", "delta_robot"]
BATCH = 1000


def solver(qs, us, M, f, extra=()):
    """lambdify(cse=True) of M, f in (q, u) and a right-hand side that
    solves M x = f with NumPy, as a SymPy user writes it."""
    fn = sm.lambdify([qs, us] + list(extra), [M, f], modules="numpy", cse=True)

    def rhs(qv, uv, *args):
        Mv, fv = fn(qv, uv, *args)
        return np.linalg.solve(np.asarray(Mv, float), np.asarray(fv, float).reshape(-1))
    return rhs


def sympy_example(name):
    q, L, T, V, rows, forces, frame = MODELS[name]()
    lm = me.LagrangesMethod(L, q, nonhol_coneqs=rows or None, forcelist=forces or None,
                            frame=frame)
    lm.form_lagranges_equations()
    t = me.dynamicsymbols._t
    n = len(q)
    qs, us = sm.symbols("s0:%d" % n), sm.symbols("v0:%d" % n)
    sub = {**{qi.diff(t): u for qi, u in zip(q, us)}, **{qi: s for qi, s in zip(q, qs)}}
    rhs = solver(qs, us, lm.mass_matrix_full.xreplace(sub), lm.forcing_full.xreplace(sub))
    return lambda qv, uv: rhs(qv, uv)


def sympy_chain(n):
    """KanesMethod's full forms of the chain with the parameters as an
    argument (values from models.params), so that the numbers match."""
    km, q, u, psyms = models.sympy_kane("chain", n)
    qs, us = sm.symbols("s0:%d" % n), sm.symbols("v0:%d" % n)
    t = me.dynamicsymbols._t
    sub = {**{qi.diff(t): ui for qi, ui in zip(q, u)}}
    sub2 = {**{ui: v for ui, v in zip(u, us)}, **{qi: s for qi, s in zip(q, qs)}}
    M = km.mass_matrix_full.xreplace(sub).xreplace(sub2)
    f = km.forcing_full.xreplace(sub).xreplace(sub2)
    rhs = solver(qs, us, M, f, [psyms])
    pvals = [v for _, v in models.params("chain", n)]
    return lambda qv, uv: rhs(qv, uv, pvals)


def per_call(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=7)) / number


def prepare(label, m, rhs):
    """The states of one row, checked: the two sides give the same q''
    (the chain: [q'; u'] against [q'; q''])."""
    q, qd = m.initial_state()
    rng = np.random.default_rng(0)
    qd = qd + 0.1 * rng.standard_normal(m.n)
    want = rhs(q, qd)[m.n:2 * m.n]
    got = m.accel(q, qd)
    assert np.allclose(want, got, rtol=1e-9, atol=1e-9), (label, want, got)
    Q = q + 0.1 * rng.standard_normal((BATCH, m.n))
    QD = qd + 0.1 * rng.standard_normal((BATCH, m.n))
    return q, qd, Q, QD


def measure(m, rhs, states, quick):
    """Seconds per call (per state for batches) of each column."""
    number = 300 if quick else 3000
    q, qd, Q, QD = states
    ql, qdl = list(q), list(qd)
    nb = max(3, number // 300)
    return [per_call(lambda: m.eval(q, qd), number),
            per_call(lambda: m.eval(ql, qdl), number),
            per_call(lambda: m.accel(q, qd), number),
            per_call(lambda: m.eval(Q, QD), nb) / BATCH,
            per_call(lambda: m.accel(Q, QD), nb) / BATCH,
            per_call(lambda: rhs(q, qd), max(30, number // 10))]


def floor(runs):
    m = lagrange.load(os.path.join(ROOT, "examples", "cart_pendulum.lag"))
    q, qd = m.initial_state()

    class Empty:
        def eval(self, q=None, qd=None, t=0.0, params=None):
            return None
    e = Empty()
    sp, nq = m._s, _lib.lib.lg_nq
    Q, QD = np.tile(q, (BATCH, 1)), np.tile(qd, (BATCH, 1))
    rows = [("an empty Python method e.eval(q, qd)", lambda: e.eval(q, qd)),
            ("an empty call of a C function, isinstance(q, float)",
             lambda: isinstance(q, float)),
            ("an empty ctypes call lg_nq(s)", lambda: nq(sp)),
            ("a new NumPy array, np.empty(2)", lambda: np.empty(2)),
            ("m.accel(q, qd)", lambda: m.accel(q, qd)),
            ("m.eval(q, qd)", lambda: m.eval(q, qd)),
            ("m.eval(q, qd).qdd (the result's first field read)",
             lambda: m.eval(q, qd).qdd),
            ("m.accel(Q, QD) per state (N = %d: the library's own time)" % BATCH,
             lambda: m.accel(Q, QD)),
            ("m.eval(Q, QD) per state (N = %d)" % BATCH, lambda: m.eval(Q, QD))]
    print("\n| the floor (cart pendulum) | us |\n|---|---|")
    for label, fn in rows:
        per = BATCH if "per state" in label else 1
        t = min(per_call(fn, 100000 // per) for _ in range(runs)) / per
        print("| %s | %.3f |" % (label, t * 1e6))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chains", default="6,12")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--runs", type=int, default=1,
                    help="measure every row this many times and keep each cell's "
                         "minimum (a shared, busy machine)")
    a = ap.parse_args()
    rows = []
    for name in NAMES:
        m = lagrange.load(os.path.join(ROOT, "examples", name + ".lag"))
        rows.append((name, m, sympy_example(name)))
    for n in [int(x) for x in a.chains.split(",") if x]:
        m = lagrange.loads(models.lag_model("chain", n), name="chain%d" % n)
        rows.append(("chain n=%d" % n, m, sympy_chain(n)))
    states = [prepare(label, m, rhs) for label, m, rhs in rows]
    best = [None] * len(rows)
    for _ in range(a.runs):
        for i, (label, m, rhs) in enumerate(rows):
            t = measure(m, rhs, states[i], a.quick)
            best[i] = t if best[i] is None else [min(x, y) for x, y in zip(best[i], t)]
    print("| model | n | m | eval (us) | eval, lists (us) | accel (us) | eval batch (us/state) "
          "| accel batch (us/state) | lambdify+solve (us) | ratio eval | ratio accel "
          "| ratio batch eval |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (label, m, _), t in zip(rows, best):
        ev, evl, ac, bt, ba, theirs = t
        print("| %s | %d | %d | %.2f | %.2f | %.2f | %.3f | %.3f | %.1f | %.1fx | %.1fx | %.0fx |"
              % (label, m.n, m.m, ev * 1e6, evl * 1e6, ac * 1e6, bt * 1e6, ba * 1e6,
                 theirs * 1e6, theirs / ev, theirs / ac, theirs / bt))
    floor(a.runs)


if __name__ == "__main__":
    main()
