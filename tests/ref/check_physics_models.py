#!/usr/bin/env python3
"""The new-user models of issue 23 (tests/physics/*.lag) against independent
SymPy derivations written here from the textbook description (frames,
points and energies in sympy.physics.mechanics, not from the model files):
at three random states `lagrange eval --json` must give SymPy's M, f, J,
lam and q'' (LagrangesMethod's mass_matrix_full and forcing_full solved by
Gaussian elimination in floats) to 1e-10 relative. Unconstrained models
are also checked under `--method kane` (q'' from the speeds), and the
physics each model is there for: an Atwood tension is its multiplier
(lam1 = m1 (y1'' + g)); a ball on a turntable accelerates as
v' = 2/7 Omega z x v; the heavy top started in steady precession keeps
theta and psi' (simulated, both methods).

usage: check_physics_models.py [LAGRANGE]"""
import json, os, random, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("LAGRANGE", os.path.join(ROOT, "build", "lagrange"))
MODELS_DIR = os.path.join(ROOT, "tests", "physics")
passed = failed = 0

try:
    import sympy as sm
    import sympy.physics.mechanics as me
except ImportError:
    print("FAIL sympy is not importable by this python3 (install python3-sympy)")
    print("0 passed, 1 failed")
    sys.exit(1)

t = me.dynamicsymbols._t
R_ = sm.Rational


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + detail[:600]))


# ---- the references -----------------------------------------------------------------
# Each returns (q, T, V, rows, forcelist, frame): rows at velocity level in the
# file's order (holonomic rows differentiated), so the multipliers match.

def _rod(frame, m, l):
    """a uniform thin rod along frame.x: inertia dyadic about its centre"""
    return me.inertia(frame, 0, m * l ** 2 / 12, m * l ** 2 / 12)


def _T(bodies):
    """sum 1/2 m v.v + 1/2 w.I.w over (mass, centre point, frame or None, dyadic)"""
    N = bodies[0][4]
    T = 0
    for m, P, F, I, _ in bodies:
        v = P.vel(N)
        T += m * v.dot(v) / 2
        if F is not None:
            w = F.ang_vel_in(N)
            T += w.dot(I.dot(w)) / 2
    return T


def four_bar():
    th1, th2, th3 = q = me.dynamicsymbols("th1 th2 th3")
    l1, l2, l3, d = R_(3, 10), R_(8, 10), R_(6, 10), R_(7, 10)
    m1, m2, m3, g = 1, 2, R_(3, 2), R_(981, 100)
    N = me.ReferenceFrame("N")
    A, B, C = [N.orientnew(n, "Axis", [a, N.z]) for n, a in (("A", th1), ("B", th2), ("C", th3))]
    O = me.Point("O")
    O.set_vel(N, 0)
    pts = {}
    for name, base, vec in (("G1", O, l1 / 2 * A.x), ("P1", O, l1 * A.x)):
        pts[name] = base.locatenew(name, vec)
    pts["G2"] = pts["P1"].locatenew("G2", l2 / 2 * B.x)
    pts["P2"] = pts["P1"].locatenew("P2", l2 * B.x)
    E = O.locatenew("E", d * N.x)
    pts["G3"] = E.locatenew("G3", l3 / 2 * C.x)
    pts["Q2"] = E.locatenew("Q2", l3 * C.x)
    for P in pts.values():
        P.set_vel(N, P.pos_from(O).dt(N))
    T = _T([(m1, pts["G1"], A, _rod(A, m1, l1), N), (m2, pts["G2"], B, _rod(B, m2, l2), N),
            (m3, pts["G3"], C, _rod(C, m3, l3), N)])
    V = g * sum(m * P.pos_from(O).dot(N.y) for m, P in ((m1, pts["G1"]), (m2, pts["G2"]), (m3, pts["G3"])))
    gap = pts["P2"].pos_from(O) - pts["Q2"].pos_from(O)
    rows = [gap.dot(N.x).diff(t), gap.dot(N.y).diff(t)]
    return q, T, V, rows, [], N


def slider_crank():
    th, ph, x = q = me.dynamicsymbols("th ph x")
    r, l, m1, m2, m3, c, g = R_(2, 10), R_(6, 10), 1, R_(3, 2), 2, R_(1, 2), R_(981, 100)
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [th, N.z])
    B = N.orientnew("B", "Axis", [-ph, N.z])
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", r * A.x)
    G1 = O.locatenew("G1", r / 2 * A.x)
    G2 = P.locatenew("G2", l / 2 * B.x)
    Q = P.locatenew("Q", l * B.x)
    S = O.locatenew("S", x * N.x)
    for X in (P, G1, G2, Q, S):
        X.set_vel(N, X.pos_from(O).dt(N))
    T = _T([(m1, G1, A, _rod(A, m1, r), N), (m2, G2, B, _rod(B, m2, l), N), (m3, S, None, None, N)])
    V = g * (m1 * G1.pos_from(O).dot(N.y) + m2 * G2.pos_from(O).dot(N.y))
    gap = Q.pos_from(O) - S.pos_from(O)
    rows = [gap.dot(N.x).diff(t), gap.dot(N.y).diff(t)]
    return q, T, V, rows, [(S, -c * x.diff(t) * N.x)], N  # the damper's force on the slider


def atwood_pulley():
    y1, y2, th = q = me.dynamicsymbols("y1 y2 th")
    m1, m2, M, R, g = 2, 1, R_(3, 2), R_(1, 10), R_(981, 100)
    d = lambda s: s.diff(t)
    T = m1 * d(y1) ** 2 / 2 + m2 * d(y2) ** 2 / 2 + (M * R ** 2 / 2) * d(th) ** 2 / 2
    V = g * (m1 * y1 + m2 * y2)
    return q, T, V, [d(y1 + R * th), d(y2 - R * th)], [], None


def segway():
    x, phi, th = q = me.dynamicsymbols("x phi th")
    mw, r, mb, lb, Ib, kp, kd, g = 1, R_(2, 10), 5, R_(4, 10), R_(3, 10), 80, 10, R_(981, 100)
    N = me.ReferenceFrame("N")
    W = N.orientnew("W", "Axis", [-phi, N.z])
    B = N.orientnew("B", "Axis", [-th, N.z])
    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", x * N.x + r * N.y)
    G = C.locatenew("G", lb * (sm.sin(th) * N.x + sm.cos(th) * N.y))
    for X in (C, G):
        X.set_vel(N, X.pos_from(O).dt(N))
    T = _T([(mw, C, W, me.inertia(W, mw * r ** 2 / 4, mw * r ** 2 / 4, mw * r ** 2 / 2), N),
            (mb, G, B, me.inertia(B, Ib, Ib, Ib), N)])
    V = g * (mw * r + mb * G.pos_from(O).dot(N.y))
    tau = kp * th + kd * th.diff(t)
    # rolling: the contact point (below C) is at rest
    row = (x.diff(t) * N.x + W.ang_vel_in(N).cross(-r * N.y)).dot(N.x)
    return q, T, V, [row], [(W, -tau * N.z), (B, tau * N.z)], N


def ball_turntable():
    x, y, psi, theta, phi = q = me.dynamicsymbols("x y psi theta phi")
    m, r, Om = 1, R_(1, 10), 1
    N = me.ReferenceFrame("N")
    B = me.ReferenceFrame("B")
    B.orient_body_fixed(N, (psi, theta, phi), "zxy")
    w = B.ang_vel_in(N)
    I = R_(2, 5) * m * r ** 2
    v = x.diff(t) * N.x + y.diff(t) * N.y
    T = m * v.dot(v) / 2 + I * w.dot(w) / 2
    slip = v + w.cross(-r * N.z) - (Om * N.z).cross(x * N.x + y * N.y)
    return q, T, sm.S(0), [slip.dot(N.x), slip.dot(N.y)], [], N


def heavy_top():
    psi, theta, phi = q = me.dynamicsymbols("psi theta phi")
    m, l, I1, I3, g = R_(1, 2), R_(4, 100), R_(2, 1000), R_(4, 1000), R_(981, 100)
    N = me.ReferenceFrame("N")
    B = me.ReferenceFrame("B")
    B.orient_body_fixed(N, (psi, theta, phi), "zxz")
    w = B.ang_vel_in(N)
    vG = w.cross(l * B.z)  # G = O + l B.z, O fixed
    I = me.inertia(B, I1, I1, I3)
    T = m * vG.dot(vG) / 2 + w.dot(I.dot(w)) / 2
    V = m * g * (l * B.z).dot(N.z)
    return q, T, V, [], [], N


def kapitza():
    th = me.dynamicsymbols("th")
    q = [th]
    m, l, a, nu, g = 1, R_(1, 2), R_(5, 100), 100, R_(981, 100)
    X = l * sm.sin(th)
    Y = a * sm.cos(nu * t) - l * sm.cos(th)
    T = m * (X.diff(t) ** 2 + Y.diff(t) ** 2) / 2
    return q, T, m * g * Y, [], [], None


def conveyor():
    x, y = q = me.dynamicsymbols("x y")
    m, k, c = 1, R_(1, 2), 4
    T = m * (x.diff(t) ** 2 + y.diff(t) ** 2) / 2
    return q, T, c * y ** 2 / 2, [x.diff(t) - k * y], [], None


MODELS = {f.__name__: f for f in (four_bar, slider_crank, atwood_pulley, segway, ball_turntable,
                                  heavy_top, kapitza, conveyor)}


# ---- the comparison -----------------------------------------------------------------
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
    q, T, V, rows, forces, frame = MODELS[name]()
    lm = me.LagrangesMethod(T - V, q, nonhol_coneqs=rows or None, forcelist=forces or None,
                            frame=frame)
    lm.form_lagranges_equations()
    n = len(q)
    qs, us = sm.symbols(f"s0:{n}"), sm.symbols(f"v0:{n}")
    sub = {**{qi.diff(t): u for qi, u in zip(q, us)}, **{qi: s for qi, s in zip(q, qs)}}
    tt = sm.Symbol("tt")
    exprs = [sm.Matrix(e).xreplace(sub).xreplace({t: tt}) for e in (lm.mass_matrix_full, lm.forcing_full,
                                                                    lm.mass_matrix, lm.forcing)]
    f = sm.lambdify([tt, qs, us], exprs, modules=[{"ImmutableDenseMatrix": lambda rows: rows}, "math"])
    return q, f, len(rows)


def lagrange_eval(model, state, method=None, tv=0.0):
    cmd = [BIN, "eval", model, "--state", state, "--json", "--t", repr(tv)]
    if method:
        cmd += ["--method", method]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return r, (json.loads(r.stdout) if r.returncode == 0 else None)


rng = random.Random(23)
for name in sorted(MODELS):
    model = os.path.join(MODELS_DIR, name + ".lag")
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
        tv = rng.uniform(0, 1)
        state = ", ".join([f"{a}={x!r}" for a, x in zip(names, qv)] +
                          [f"{a}'={x!r}" for a, x in zip(names, uv)])
        r, d = lagrange_eval(model, state, tv=tv)
        if d is None:
            check(f"{name} state {k}: lagrange eval", False, r.stderr)
            continue
        MMF, FF, MM, F = f(tv, qv, uv)
        MMF = [[float(v) for v in row] for row in MMF]
        FF = [float(row[0]) for row in FF]
        MM = [[float(v) for v in row] for row in MM]
        F = [float(row[0]) for row in F]
        x = solve(MMF, FF)
        qdd, lam = x[n:2 * n], x[2 * n:]
        ref_J = [-MM[i][n + j] for j in range(m) for i in range(n)]
        ours_J = [-d["mass_matrix"][i][n + j] for j in range(m) for i in range(n)]
        ours_M = [v for row in d["mass_matrix"] for v in row[:n]]
        ref_M = [MM[i][j] for i in range(n) for j in range(n)]
        checks = [("M", ours_M, ref_M), ("f", d["forcing"], F), ("J", ours_J, ref_J),
                  ("lam", d["lam"] or [], lam), ("qdd", d["qdd"], qdd)]
        for label, ours, ref in checks:
            err = worst(ours, ref)
            check(f"{name} state {k}: {label} (worst {err:.1e})",
                  err <= 1e-10 and len(ours) == len(ref), f"ours {ours} sympy {ref}")
        # the physics each model is there for, at the same state
        if name == "atwood_pulley":
            err = abs(d["lam"][0] - 2 * (d["qdd"][0] + 9.81))
            check(f"{name} state {k}: the tension on m1 is lam1 = m1 (y1'' + g) ({err:.1e})", err <= 1e-10)
        if name == "ball_turntable":
            want = [-2 / 7 * 1 * uv[1], 2 / 7 * 1 * uv[0]]
            err = worst(d["qdd"][:2], want)
            check(f"{name} state {k}: v' = 2/7 Omega z x v ({err:.1e})", err <= 1e-10, f"{d['qdd'][:2]} {want}")
        if m == 0:  # Kane's method from the same q' (the speeds from the kinematics)
            rk, dk = lagrange_eval(model, state, "kane", tv)
            if dk is None:
                check(f"{name} state {k}: lagrange eval --method kane", False, rk.stderr)
            else:
                err = worst(dk["qdd"], qdd)
                check(f"{name} state {k}: Kane's qdd (worst {err:.1e})", err <= 1e-10, f"{dk['qdd']} {qdd}")

# The heavy top started in steady precession stays there (theta, psi'), both methods.
for method in ("lagrange", "kane"):
    r = subprocess.run([BIN, "simulate", os.path.join(MODELS_DIR, "heavy_top.lag"), "--method", method,
                        "--tf", "1", "--dt", "0.1"], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        check(f"heavy_top {method}: simulate", False, r.stderr)
        continue
    lines = r.stdout.strip().splitlines()
    head = lines[0].split(",")
    rows = [dict(zip(head, map(float, ln.split(",")))) for ln in lines[1:]]
    dth = max(abs(row["theta"] - 0.5) for row in rows)
    dpsi = max(abs(row["psi'"] - 0.81458838188606352) for row in rows)
    check(f"heavy_top {method}: steady precession (|d theta| {dth:.1e}, |d psi'| {dpsi:.1e})",
          dth < 1e-7 and dpsi < 1e-6)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
