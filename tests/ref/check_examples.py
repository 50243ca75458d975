#!/usr/bin/env python3
"""Every example against an independent SymPy derivation (sympy_models.py):
at three random states, `lagrange eval --json` must give SymPy's M, f,
q'', J^T lam, T, V and momenta (LagrangesMethod's mass_matrix_full and
forcing_full, solved by Gaussian elimination in floats) to 1e-10 relative.

usage: check_examples.py [LAGRANGE]"""
import json, os, random, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("LAGRANGE", os.path.join(ROOT, "build", "lagrange"))
passed = failed = 0

try:
    import sympy as sm
    import sympy.physics.mechanics as me
except ImportError:
    print("FAIL sympy is not importable by this python3 (install python3-sympy)")
    print("0 passed, 1 failed")
    sys.exit(1)
sys.path.insert(0, HERE)
from sympy_models import MODELS  # noqa: E402


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + detail[:600]))


def solve(A, b):
    n = len(b)
    A = [row[:] for row in A]
    b = b[:]
    for k in range(n):
        piv = max(range(k, n), key=lambda i: abs(A[i][k]))
        A[k], A[piv] = A[piv], A[k]
        b[k], b[piv] = b[piv], b[k]
        for i in range(k + 1, n):
            f = A[i][k] / A[k][k]
            for j in range(k, n):
                A[i][j] -= f * A[k][j]
            b[i] -= f * b[k]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (b[i] - sum(A[i][j] * x[j] for j in range(i + 1, n))) / A[i][i]
    return x


def worst(a, b):
    return max([abs(x - y) / max(1.0, abs(y)) for x, y in zip(a, b)] + [0.0])


def reference(name):
    q, L, T, V, rows, forces, frame = MODELS[name]()
    lm = me.LagrangesMethod(L, q, nonhol_coneqs=rows or None, forcelist=forces or None,
                            frame=frame)
    lm.form_lagranges_equations()
    n = len(q)
    t = me.dynamicsymbols._t
    qs = sm.symbols(f"s0:{n}")
    us = sm.symbols(f"v0:{n}")
    sub = {**{qi.diff(t): u for qi, u in zip(q, us)}, **{qi: s for qi, s in zip(q, qs)}}
    p = [L.diff(qi.diff(t)) for qi in q]
    exprs = [lm.mass_matrix_full, lm.forcing_full, lm.mass_matrix, lm.forcing, sm.Matrix([T, V]),
             sm.Matrix(p)]
    exprs = [sm.Matrix(e).xreplace(sub) for e in exprs]
    f = sm.lambdify([qs, us], exprs, modules=[{"ImmutableDenseMatrix": lambda rows: rows}, "math"])
    return q, f, len(rows)


rng = random.Random(1)
for name in sorted(MODELS):
    model = os.path.join(ROOT, "examples", name + ".lag")
    if not os.path.exists(model):  # test-only models
        model = os.path.join(ROOT, "tests", "cli", "models", name + ".lag")
    try:
        q, f, m = reference(name)
    except Exception as e:  # a broken reference is a failure, not a skip
        check(f"{name}: SymPy reference builds", False, repr(e))
        continue
    n = len(q)
    names = [str(qi).replace("(t)", "") for qi in q]
    for k in range(3):
        qv = [rng.uniform(0.3, 1.2) for _ in range(n)]
        uv = [rng.uniform(-1, 1) for _ in range(n)]
        state = ", ".join([f"{a}={x!r}" for a, x in zip(names, qv)] +
                          [f"{a}'={x!r}" for a, x in zip(names, uv)])
        r = subprocess.run([BIN, "eval", model, "--state", state, "--json"],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            check(f"{name} state {k}: lagrange eval", False, r.stderr)
            continue
        d = json.loads(r.stdout)
        MMF, FF, MM, F, TV, P = f(qv, uv)
        MMF = [[float(v) for v in row] for row in MMF]
        FF = [float(row[0]) for row in FF]
        MM = [[float(v) for v in row] for row in MM]
        F, TV, P = [[float(row[0]) for row in x] for x in (F, TV, P)]
        x = solve(MMF, FF)
        qdd, lam = x[n:2 * n], x[2 * n:]
        cf = [-sum(MM[i][n + j] * lam[j] for j in range(m)) for i in range(n)]
        ours_M = [v for row in d["mass_matrix"] for v in row[:n]]
        ref_M = [MM[i][j] for i in range(n) for j in range(n)]
        checks = [("M", ours_M, ref_M), ("f", d["forcing"], F),
                  ("qdd", d["qdd"], qdd), ("J^T lam", d["constraint_forces"], cf),
                  ("T, V", [d["T"], d["V"]], TV), ("momenta", d["momenta"], P)]
        for label, ours, ref in checks:
            err = worst(ours, ref)
            check(f"{name} state {k}: {label} (worst {err:.1e})", err <= 1e-10 and len(ours) == len(ref),
                  f"ours {ours} sympy {ref}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
