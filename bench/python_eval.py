"""Per-call time of lagrange's Model.eval (ctypes over liblagrange) against
SymPy's lambdify(cse=True) of LagrangesMethod's M and f plus
numpy.linalg.solve, on the same models (examples with a SymPy reference in
tests/ref/sympy_models.py). Run: PYTHONPATH=python /usr/bin/python3
bench/python_eval.py. Prints a Markdown table."""
import os
import sys
import timeit

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ref"))
import lagrange  # noqa: E402
from sympy_models import MODELS  # noqa: E402

NAMES = ["spring_mass", "cart_pendulum", "double_rod_pendulum", "free_body_zxy",
         "pendulum_3d_cartesian", "delta_robot"]


def sympy_rhs(name):
    q, L, T, V, rows, forces, frame = MODELS[name]()
    lm = me.LagrangesMethod(L, q, nonhol_coneqs=rows or None, forcelist=forces or None,
                            frame=frame)
    lm.form_lagranges_equations()
    t = me.dynamicsymbols._t
    n = len(q)
    qs, us = sm.symbols("s0:%d" % n), sm.symbols("v0:%d" % n)
    sub = {**{qi.diff(t): u for qi, u in zip(q, us)}, **{qi: s for qi, s in zip(q, qs)}}
    M = lm.mass_matrix_full.xreplace(sub)
    f = lm.forcing_full.xreplace(sub)
    fn = sm.lambdify([qs, us], [M, f], modules="numpy", cse=True)

    def rhs(qv, uv):
        Mv, fv = fn(qv, uv)
        return np.linalg.solve(np.asarray(Mv, float), np.asarray(fv, float).reshape(-1))
    return rhs


def per_call(fn, number=2000):
    return min(timeit.repeat(fn, number=number, repeat=3)) / number


def main():
    print("| model | n | m | Model.eval (us) | Model.accel (us) | lambdify+solve (us) "
          "| ratio eval | ratio accel |")
    print("|---|---|---|---|---|---|---|---|")
    for name in NAMES:
        m = lagrange.load(os.path.join(ROOT, "examples", name + ".lag"))
        q, qd = m.initial_state()
        rhs = sympy_rhs(name)
        ours = per_call(lambda: m.eval(q=q, qd=qd))
        fast = per_call(lambda: m.accel(q, qd))
        theirs = per_call(lambda: rhs(q, qd))
        print("| %s | %d | %d | %.1f | %.1f | %.1f | %.1fx | %.1fx |"
              % (name, m.n, m.m, ours * 1e6, fast * 1e6, theirs * 1e6, theirs / ours,
                 theirs / fast))


if __name__ == "__main__":
    main()
