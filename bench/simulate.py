#!/usr/bin/env python3
"""bench/simulate.py - right-hand-side evaluations per second of
`lagrange simulate` (tape and --jit) against SymPy's lambdify + NumPy
evaluation of the same right-hand side (mass_matrix_full, forcing_full,
numpy.linalg.solve), default and with cse=True.

Systems: the planar 5-link chain (bench/chain_model.py) and the delta robot
(examples/delta_robot.lag), 10 s of simulated time.
Needs a Python with both sympy and numpy (Debian: python3-sympy and
python3-numpy for /usr/bin/python3).

usage: /usr/bin/python3 bench/simulate.py [LAGRANGE]"""
import os, re, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "ref"))
sys.path.insert(0, HERE)
import numpy as np  # noqa: E402
import sympy as sm  # noqa: E402
import sympy.physics.mechanics as me  # noqa: E402


def ours(binary, model, jit):
    # Dormand-Prince (with projection for the delta robot): an ODE right-hand
    # side per evaluation, like SymPy's; constrained models default to IDA
    args = [binary, "simulate", model, "--tf", "10", "--out", os.devnull, "--integrator", "dopri"]
    if jit:
        args.append("--jit")
    r = subprocess.run(args, capture_output=True, text=True, check=True)
    m = re.search(r"(\d+) RHS evaluations, ([0-9.]+) s wall", r.stderr)
    n, wall = int(m.group(1)), float(m.group(2))
    return n / wall, wall


def chain_sympy(n):
    from sympy_chain import chain_lagranges_method
    return chain_lagranges_method(n, m=1, l=1, g=9.81)


def delta_sympy():
    from sympy_models import delta_robot
    q, L, T, V, rows, forces, frame = delta_robot()
    lm = me.LagrangesMethod(L, q, nonhol_coneqs=rows)
    lm.form_lagranges_equations()
    return q, lm


def sympy_rate(q, lm, cse):
    t = me.dynamicsymbols._t
    n = len(q)
    xs = sm.symbols(f"x0:{2 * n}")
    sub = {**{q[i].diff(t): xs[n + i] for i in range(n)}, **{q[i]: xs[i] for i in range(n)}}
    MM = lm.mass_matrix_full.xreplace(sub)
    FF = lm.forcing_full.xreplace(sub)
    f = sm.lambdify([xs], [MM, FF], modules="numpy", cse=cse)
    rng = np.random.default_rng(1)
    states = rng.uniform(-1, 1, size=(2000, 2 * n))
    t0 = time.perf_counter()
    for x in states:
        A, b = f(x)
        np.linalg.solve(np.asarray(A, dtype=float), np.asarray(b, dtype=float).ravel())
    return len(states) / (time.perf_counter() - t0)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
    with tempfile.NamedTemporaryFile("w", suffix=".lag", delete=False) as f:
        f.write(subprocess.run([sys.executable, os.path.join(HERE, "chain_model.py"), "5"],
                               capture_output=True, text=True, check=True).stdout)
        chain = f.name
    systems = [("5-link chain", chain, lambda: chain_sympy(5)),
               ("delta robot", os.path.join(ROOT, "examples", "delta_robot.lag"), delta_sympy)]
    print("| system | lagrange tape (RHS/s) | lagrange --jit (RHS/s) | SymPy lambdify (RHS/s) | "
          "lambdify cse=True (RHS/s) | tape / lambdify | tape / cse |")
    print("|---|---|---|---|---|---|---|")
    for label, model, build in systems:
        tape, _ = ours(binary, model, False)
        jit, _ = ours(binary, model, True)
        q, lm = build()
        plain, cse = sympy_rate(q, lm, False), sympy_rate(q, lm, True)
        print(f"| {label} | {tape:,.0f} | {jit:,.0f} | {plain:,.0f} | {cse:,.0f} | "
              f"{tape / plain:.0f}x | {tape / cse:.0f}x |", flush=True)
    os.unlink(chain)


if __name__ == "__main__":
    main()
