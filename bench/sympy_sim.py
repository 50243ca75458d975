#!/usr/bin/env python3
"""bench/sympy_sim.py - the pipeline a SymPy user runs to simulate a system
of bench/models.py: KanesMethod, `lambdify(cse=True)` of mass_matrix_full
and forcing_full, `numpy.linalg.solve` in the right-hand side, SciPy's
`solve_ivp` with DOP853, output every 0.01 s. Needs NumPy and SciPy in the
same interpreter as SymPy (Debian: python3-numpy, python3-scipy,
python3-sympy for /usr/bin/python3).

usage: sympy_sim.py KIND N TF TOL   prints one JSON line: the time of each
stage, the number of right-hand-side evaluations and the final state."""
import json, os, sys, time

t_start = time.perf_counter()
import numpy as np  # noqa: E402
import scipy.integrate  # noqa: E402
import sympy as sm  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import initial, params, sympy_kane  # noqa: E402


def main():
    kind, n, tf, tol = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    t0 = time.perf_counter()
    km, q, u, ps = sympy_kane(kind, n)
    MM, FF = km.mass_matrix_full, km.forcing_full
    t1 = time.perf_counter()
    xs = sm.symbols(f"x0:{2 * n}")
    sub = {**{u[i]: xs[n + i] for i in range(n)}, **{q[i]: xs[i] for i in range(n)}}
    f = sm.lambdify([xs, ps], [MM.xreplace(sub), FF.xreplace(sub)], modules="numpy", cse=True)
    pv = np.array([v for _, v in params("arm" if kind == "arm" else "chain", n)])
    t2 = time.perf_counter()

    def rhs(t, x):
        A, b = f(x, pv)
        return np.linalg.solve(A, np.asarray(b, dtype=float).ravel())

    x0 = np.array(initial("arm" if kind == "arm" else "chain", n) + [0.0] * n)
    sol = scipy.integrate.solve_ivp(rhs, (0.0, tf), x0, method="DOP853", rtol=tol, atol=tol,
                                    t_eval=np.linspace(0.0, tf, int(round(tf / 0.01)) + 1))
    t3 = time.perf_counter()
    print(json.dumps({"imports_s": t0 - t_start, "derive_s": t1 - t0, "lambdify_s": t2 - t1,
                      "integrate_s": t3 - t2, "nfev": int(sol.nfev), "status": int(sol.status),
                      "final": [float(v) for v in sol.y[:, -1]]}))


if __name__ == "__main__":
    main()
