#!/usr/bin/env python3
"""`lagrange linearize` against SymPy's LagrangesMethod.linearize on every
example (sympy_models.py), constrained ones included: at random operating
points (lagrange completes the dependent values; SymPy linearizes at the
completed point with the same split into independent and dependent
variables), A and B must agree to 1e-9 relative.

Every model is also checked against the definition itself: central
differences of `lagrange eval`'s accelerations along the constraint
manifold (each perturbed state completed onto the constraints). For
nonholonomic models this is the only reference: SymPy 1.14's
LagrangesMethod.linearize disagrees with the finite differences there (and
with itself between operating points), while ours agrees to 1e-7.

usage: check_linearize.py [LAGRANGE]"""
import json, os, random, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
passed = failed = 0

try:
    import sympy as sm
    import sympy.physics.mechanics as me
except ImportError:
    print("FAIL sympy is not importable by this python3 (install python3-sympy)")
    print("0 passed, 1 failed")
    sys.exit(1)
sys.path.insert(0, HERE)
from sympy_models import MODELS, POSITION_LEVEL  # noqa: E402

t = me.dynamicsymbols._t


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + detail[:800]))


def model_path(name):
    p = os.path.join(ROOT, "examples", name + ".lag")
    return p if os.path.exists(p) else os.path.join(ROOT, "tests", "cli", "models", name + ".lag")


def sympy_linearize(name, d):
    """SymPy's A, B at lagrange's completed operating point and split."""
    q, L, T, V, rows, forces, frame = MODELS[name]()
    hol = POSITION_LEVEL[name]() if name in POSITION_LEVEL else []
    nonhol = [] if hol else rows
    lm = me.LagrangesMethod(L, q, hol_coneqs=hol or None, nonhol_coneqs=nonhol or None,
                            forcelist=forces or None, frame=frame)
    lm.form_lagranges_equations()
    by = {str(qi).replace("(t)", ""): qi for qi in q}
    qi = [by[s] for s in d["state"] if not s.endswith("'")]
    ui = [by[s[:-1]].diff(t) for s in d["state"] if s.endswith("'")]
    qdep = [by[s] for s in d["dependent"] if not s.endswith("'")]
    udep = [by[s[:-1]].diff(t) for s in d["dependent"] if s.endswith("'")]
    names = [str(x).replace("(t)", "") for x in q]
    op = {by[s]: v for s, v in zip(names, d["q0"])}
    op.update({by[s].diff(t): v for s, v in zip(names, d["qd0"])})
    # SymPy's A holds q'' and the multipliers: their values at the point,
    # from SymPy's own full forms
    MF = lm.mass_matrix_full.xreplace(op).evalf()
    FF = lm.forcing_full.xreplace(op).evalf()
    sol = MF.LUsolve(FF)
    n = len(q)
    op.update({qq.diff(t, 2): sol[n + i] for i, qq in enumerate(q)})
    # (SymPy's equations, which the Linearizer reads, carry +lam where its
    # mass_matrix_full carries -lam: the multipliers change sign between them)
    op.update({lam: -sol[2 * n + i] for i, lam in enumerate(lm.lam_vec)})
    # The Linearizer's constraint solves are only multiplied into A and B
    # afterwards, never differentiated: solving them at the operating point
    # gives the same result and keeps SymPy fast on the delta robot.
    def at_point(M, b):
        return M.xreplace(op).evalf().LUsolve(b.xreplace(op).evalf())
    A, B, r = lm.linearize(q_ind=qi, qd_ind=ui, q_dep=qdep, qd_dep=udep, op_point=op,
                           A_and_B=True, simplify=False, linear_solver=at_point)
    return [[float(sm.N(v)) for v in row] for row in A.tolist()], B


def finite_differences(model, d, names):
    """A by central differences of eval's q'' along the manifold."""
    S, x0, eps = d["state"], d["x0"], 1e-6
    cols = []
    for c in range(len(S)):
        outs = []
        for sgn in (1, -1):
            x = list(x0)
            x[c] += sgn * eps
            at = ", ".join(f"{s}={v!r}" for s, v in zip(S, x))
            p = json.loads(subprocess.run([BIN, "linearize", model, "--json", "--at", at],
                                          capture_output=True, text=True, timeout=120).stdout)
            st = ", ".join([f"{a}={v!r}" for a, v in zip(names, p["q0"])] +
                           [f"{a}'={v!r}" for a, v in zip(names, p["qd0"])])
            e = json.loads(subprocess.run([BIN, "eval", model, "--json", "--state", st],
                                          capture_output=True, text=True, timeout=120).stdout)
            outs.append([e["qdd"][names.index(s[:-1])] if s.endswith("'") else e["qd"][names.index(s)]
                         for s in S])
        cols.append([(a - b) / (2 * eps) for a, b in zip(*outs)])
    return [[cols[c][r] for c in range(len(S))] for r in range(len(S))]


def worst(a, b):
    return max([abs(x - y) / max(1.0, abs(y)) for ra, rb in zip(a, b) for x, y in zip(ra, rb)] + [0.0])


rng = random.Random(7)
only = sys.argv[2:]
for name in sorted(MODELS):
    if only and name not in only:
        continue
    model = model_path(name)
    # the state's names, from lagrange itself (at a generic point: the
    # initial state may be singular, as Euler angles at gimbal lock are)
    eom = json.loads(subprocess.run([BIN, "eom", model, "--format", "json"], capture_output=True,
                                    text=True, timeout=120).stdout)
    names = eom["coordinates"]
    generic = ", ".join(f"{c}=0.4" for c in names)
    nonholonomic = bool(MODELS[name]()[4]) and name not in POSITION_LEVEL
    r = subprocess.run([BIN, "linearize", model, "--json"], capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        r = subprocess.run([BIN, "linearize", model, "--json", "--at", generic],
                           capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        check(f"{name}: linearize runs", False, r.stderr)
        continue
    d0 = json.loads(r.stdout)
    for k in range(2):
        at = []
        for s in d0["state"]:
            lo, hi = (-1.0, 1.0) if s.endswith("'") else (0.2, 0.7)
            at.append(f"{s}={rng.uniform(lo, hi)!r}")
        cmd = [BIN, "linearize", model, "--json", "--at", ", ".join(at)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            check(f"{name} point {k}: linearize", False, r.stderr)
            continue
        d = json.loads(r.stdout)
        fd = finite_differences(model, d, names)
        err = max(abs(x - y) / (1 + abs(y)) for ra, rb in zip(d["A"], fd) for x, y in zip(ra, rb))
        check(f"{name} point {k}: A matches finite differences on the manifold (worst {err:.1e})",
              err <= 1e-6, f"ours {d['A']}\nfd {fd}")
        if nonholonomic:
            continue
        t0 = time.time()
        try:
            A, B = sympy_linearize(name, d)
        except Exception as e:  # a broken reference is a failure, not a skip
            check(f"{name} point {k}: SymPy reference", False, repr(e))
            continue
        err = worst(d["A"], A)
        if os.environ.get("LIN_DEBUG"):
            print(json.dumps(d["A"]), "\n", json.dumps(A))
        check(f"{name} point {k}: A matches SymPy (worst {err:.1e}, SymPy {time.time() - t0:.1f} s)",
              err <= 1e-9 and len(A) == len(d["A"]), f"ours {d['A']}\nsympy {A}")
        nb = B.shape[1] if B is not None and hasattr(B, "shape") else 0
        check(f"{name} point {k}: B has one column per input", (len(d["B"][0]) if d["B"] else 0) == nb)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
