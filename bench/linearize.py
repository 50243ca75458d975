#!/usr/bin/env python3
"""Linearization side by side: `lagrange linearize --json` (the whole
process: parse, derive, complete the operating point, A by forward AD,
eigenvalues) against SymPy's KanesMethod.linearize (A_and_B=True) plus the
substitution of the operating point, on the per-link planar chain of
bench/models.py at its initial state. Both A's are compared (they must
agree: the state is [q; u] with u = q' in both).

usage: linearize.py [LAGRANGE] [--quick] [--sympy-max-n N]"""
import json, os, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models  # noqa: E402

BIN = next((a for a in sys.argv[1:] if not a.startswith("--")),
           os.path.join(HERE, "..", "build", "lagrange"))
QUICK = "--quick" in sys.argv
SYMPY_MAX = 4 if QUICK else 8
for i, a in enumerate(sys.argv):
    if a == "--sympy-max-n":
        SYMPY_MAX = int(sys.argv[i + 1])
SIZES = [3, 4] if QUICK else [3, 4, 6, 8, 12, 24, 40]


def ours(n, tmp):
    path = os.path.join(tmp, f"chain{n}.lag")
    with open(path, "w") as fh:
        fh.write(models.lag_model("chain", n))
    t0 = time.perf_counter()
    r = subprocess.run([BIN, "linearize", path, "--json"], capture_output=True, text=True,
                       timeout=600)
    dt = time.perf_counter() - t0
    return dt, json.loads(r.stdout) if r.returncode == 0 else None


def sympy(n, d):
    import sympy as sm
    import sympy.physics.mechanics as me
    t0 = time.perf_counter()
    km, q, u, ps = models.sympy_kane("chain", n)
    vals = dict(zip(ps, [v for _, v in models.params("chain", n)]))
    op = {**{qi: v for qi, v in zip(q, d["q0"])}, **{ui: v for ui, v in zip(u, d["qd0"])}}
    op.update({qi.diff(me.dynamicsymbols._t): v for qi, v in zip(q, d["qd0"])})
    # A holds u' and q'' away from equilibrium: their values from SymPy's own forms
    M = km.mass_matrix.xreplace(op).xreplace(vals).evalf()
    f = km.forcing.xreplace(op).xreplace(vals).evalf()
    ud = M.LUsolve(f)
    op.update({ui.diff(me.dynamicsymbols._t): ud[i] for i, ui in enumerate(u)})
    t = me.dynamicsymbols._t
    op.update({qi.diff(t, 2): ud[i] for i, qi in enumerate(q)})
    A, B, _ = km.linearize(A_and_B=True, op_point=[op, vals], simplify=False)
    A = [[float(sm.N(v)) for v in row] for row in A.tolist()]
    return time.perf_counter() - t0, A


print("| n | lagrange linearize (whole process) s | SymPy KanesMethod.linearize s | ratio | max |A diff| |")
print("|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as tmp:
    for n in SIZES:
        t_ours, d = ours(n, tmp)
        if d is None:
            print(f"| {n} | failed | | | |")
            continue
        if n <= SYMPY_MAX:
            t_sym, A = sympy(n, d)
            diff = max(abs(a - b) for ra, rb in zip(d["A"], A) for a, b in zip(ra, rb))
            print(f"| {n} | {t_ours:.3f} | {t_sym:.2f} | {t_sym / t_ours:.0f}x | {diff:.1e} |",
                  flush=True)
        else:
            print(f"| {n} | {t_ours:.3f} | (not run) | | |", flush=True)
