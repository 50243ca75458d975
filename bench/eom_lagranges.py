#!/usr/bin/env python3
"""bench/eom_lagranges.py - issue 22's goal: `lagrange eom` of the planar
n-link chain against SymPy's LagrangesMethod deriving the same system, both
as whole processes (CPU time from wait4's rusage: the interpreter's start
and `import sympy` are in SymPy's figure, as the binary's start is in
lagrange's), and the ratio. Each side runs `--repeat` times; the minimum
CPU is reported.

usage: bench/eom_lagranges.py [LAGRANGE] [--n 12] [--kind chain|chain_rel] [--repeat 3]"""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import HERE, PY, parser, run, setup, table  # noqa: E402
from models import lag_model, params  # noqa: E402

# SymPy's LagrangesMethod as its documentation uses it: the Lagrangian of
# the particles (me.Lagrangian), gravity as the potential, the equations
# formed, then the mass matrix and forcing (what `lagrange eom` prints).
SYMPY_SCRIPT = r"""
import sys
sys.path.insert(0, %r)
import sympy as sm
import sympy.physics.mechanics as me
from models import params
kind, n = %r, %d
q = me.dynamicsymbols(f"q1:{n + 1}")
qd = [x.diff() for x in q]
ps = {name: sm.Symbol(name) for name, _ in params("chain", n)}
N = me.ReferenceFrame("N")
O = me.Point("O")
O.set_vel(N, 0)
prev_frame, prev_pt, parts = N, O, []
V = 0
for i in range(1, n + 1):
    m, l = ps[f"m{i}"], ps[f"l{i}"]
    A = me.ReferenceFrame(f"A{i}")
    if kind == "chain":
        A.orient_axis(N, q[i - 1], N.z)
    else:
        A.orient_axis(prev_frame, q[i - 1], prev_frame.z)
    P = prev_pt.locatenew(f"P{i}", -l * A.y)
    P.v2pt_theory(prev_pt, N, A)
    pa = me.Particle(f"Pa{i}", P, m)
    pa.potential_energy = m * ps["g"] * P.pos_from(O).dot(N.y)
    parts.append(pa)
    prev_frame, prev_pt = A, P
L = me.Lagrangian(N, *parts)
lm = me.LagrangesMethod(L, q)
lm.form_lagranges_equations()
lm.mass_matrix, lm.forcing
"""


def main():
    ap = parser(__doc__, 600)
    ap.add_argument("--n", type=int, default=12)
    ap.add_argument("--kind", default="chain", choices=("chain", "chain_rel"))
    ap.add_argument("--repeat", type=int, default=3)
    a = setup(ap.parse_args())
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model.lag")
        with open(model, "w") as f:
            f.write(lag_model(a.kind, a.n))
        lg = [run([a.binary, "eom", model], a.timeout, count_only=True) for _ in range(a.repeat)]
        sy = [run([PY, "-c", SYMPY_SCRIPT % (HERE, a.kind, a.n)], a.timeout, count_only=True)
              for _ in range(a.repeat)]
    for r in lg + sy:
        if r.rc != 0:
            sys.exit("a run failed: " + r.err[-400:])
    lcpu, scpu = min(r.cpu for r in lg), min(r.cpu for r in sy)
    print(table(["system", "n", "lagrange eom CPU s (whole process)",
                 "SymPy LagrangesMethod CPU s (whole process)", "SymPy / lagrange"],
                [[a.kind, a.n, f"{lcpu:.4f}", f"{scpu:.2f}", f"{scpu / lcpu:,.0f}x"]]))


if __name__ == "__main__":
    main()
