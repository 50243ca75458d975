#!/usr/bin/env python3
"""Kane's generalized active and inertia forces (F_r, F*_r) that `eom
--method kane --json` prints under "Fr" and "Frstar" against SymPy's
KanesMethod (kanes_equations returns (fr, frstar)), on two examples: the
cart pendulum (speeds u = q') and a free rigid body with body-fixed speeds
u1..u6, products of inertia, a force and a torque
(examples/kane_rigid_body.lag). Both are read back with
tests/cli/eom_expr.py and compared at random states (q, u, u') to 1e-10;
F_r + F*_r = 0 are Kane's equations.

usage: check_kane_fr.py [LAGRANGE]"""
import json, os, random, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))
import eom_expr  # noqa: E402

passed = failed = 0
try:
    import sympy as sm
    import sympy.physics.mechanics as me
except ImportError:
    print("FAIL sympy is not importable by this python3 (install python3-sympy)")
    print("0 passed, 1 failed")
    sys.exit(1)


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:800]))


def cart_pendulum():
    """examples/cart_pendulum.lag in SymPy: speeds u = q'."""
    x, th = me.dynamicsymbols("x theta")
    ux, uth = me.dynamicsymbols("x_u theta_u")
    m, M, l, g = sm.symbols("m M l g")
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [-th, N.z])
    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", x * N.x)
    P = C.locatenew("P", l * A.y)
    kd = [x.diff() - ux, th.diff() - uth]
    C.set_vel(N, C.pos_from(O).dt(N).subs({x.diff(): ux}))
    P.set_vel(N, P.pos_from(O).dt(N).subs({x.diff(): ux, th.diff(): uth}))
    bodies = [me.Particle("pc", C, m), me.Particle("pp", P, M)]
    loads = [(C, -m * g * N.y), (P, -M * g * N.y)]
    km = me.KanesMethod(N, q_ind=[x, th], u_ind=[ux, uth], kd_eqs=kd)
    fr, frstar = km.kanes_equations(bodies, loads)
    # our names: coordinates and q' (= u), q'' (= u')
    names = {x: "x", th: "theta", ux: "x'", uth: "theta'", ux.diff(): "x''",
             uth.diff(): "theta''"}
    params = {m: 1.0, M: 0.5, l: 0.8, g: 9.81}
    return "examples/cart_pendulum.lag", fr, frstar, names, params, {}, km


def rigid_body():
    """examples/kane_rigid_body.lag in SymPy: body-fixed speeds."""
    psi, th, phi, x, y, z = me.dynamicsymbols("psi theta phi x y z")
    u = me.dynamicsymbols("u1:7")
    m, Ixx, Iyy, Izz, Ixy, Iyz, Ixz = sm.symbols("m Ixx Iyy Izz Ixy Iyz Ixz")
    Fx, Fy, Fz, Mx, My, Mz = sm.symbols("Fx Fy Fz Mx My Mz")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Body", [psi, th, phi], "ZXY")
    O = me.Point("O")
    O.set_vel(N, 0)
    Bo = O.locatenew("Bo", x * N.x + y * N.y + z * N.z)
    vB = Bo.pos_from(O).dt(N)
    wB = B.ang_vel_in(N)
    kd = [vB.dot(B.x) - u[0], vB.dot(B.y) - u[1], vB.dot(B.z) - u[2],
          wB.dot(B.x) - u[3], wB.dot(B.y) - u[4], wB.dot(B.z) - u[5]]
    B.set_ang_vel(N, u[3] * B.x + u[4] * B.y + u[5] * B.z)
    Bo.set_vel(N, u[0] * B.x + u[1] * B.y + u[2] * B.z)
    I = me.inertia(B, Ixx, Iyy, Izz, Ixy, Iyz, Ixz)
    body = me.RigidBody("B", Bo, B, m, (I, Bo))
    loads = [(Bo, Fx * B.x + Fy * B.y + Fz * B.z), (B, Mx * B.x + My * B.y + Mz * B.z)]
    km = me.KanesMethod(N, q_ind=[psi, th, phi, x, y, z], u_ind=u, kd_eqs=kd)
    fr, frstar = km.kanes_equations([body], loads)
    names = {psi: "psi", th: "theta", phi: "phi", x: "x", y: "y", z: "z"}
    for i, ui in enumerate(u):
        names[ui] = "u%d" % (i + 1)
        names[ui.diff()] = "u%d'" % (i + 1)
    params = {m: 2.0, Ixx: 0.3, Iyy: 0.4, Izz: 0.5, Ixy: 0.01, Iyz: 0.02, Ixz: 0.03,
              Fx: 0.1, Fy: 0.0, Fz: -0.2, Mx: 0.0, My: 0.05, Mz: 0.0}
    return "examples/kane_rigid_body.lag", fr, frstar, names, params, {}, km


def compare(case):
    path, fr, frstar, names, params, _, km = case
    r = subprocess.run([BIN, "eom", "--method", "kane", "--json", os.path.join(ROOT, path)],
                       capture_output=True, text=True)
    if r.returncode:
        check(path + ": eom --method kane --json", False, r.stderr)
        return
    d = eom_expr.read_json(r.stdout)
    check(path + ": Fr and Frstar printed, one per speed",
          len(d.get("Fr", [])) == len(fr) and len(d.get("Frstar", [])) == len(frstar),
          list(d))
    if "Fr" not in d or "Frstar" not in d:
        return
    prog = eom_expr.where_program(d.get("where", {}))
    ours_fr = [eom_expr.parse(s)[0] for s in d["Fr"]]
    ours_fs = [eom_expr.parse(s)[0] for s in d["Frstar"]]
    syms = list(names)
    subs_p = {k: v for k, v in params.items()}
    f_fr = sm.lambdify(syms, list(fr.subs(subs_p)), "math")
    f_fs = sm.lambdify(syms, list(frstar.subs(subs_p)), "math")
    # q' in terms of q and u (our printout may hold q' under own speeds)
    kdd = km.kindiffdict()
    qdots = [(k, sm.lambdify(syms, v.subs(subs_p), "math")) for k, v in kdd.items()]
    rnd = random.Random(24)
    worst = [0.0, 0.0]
    for _ in range(5):
        vals = [rnd.uniform(-1.5, 1.5) for _ in syms]
        env = {names[s]: v for s, v in zip(syms, vals)}
        env.update({str(k): v for k, v in params.items()})
        for qd, f in qdots:
            nm = names.get(qd.args[0] if qd.args else qd)
            if nm is not None and qd.args:
                env.setdefault(nm + "'", f(*vals))
        env = eom_expr.with_where(prog, env)
        for ours, ref, k in ((ours_fr, f_fr(*vals), 0), (ours_fs, f_fs(*vals), 1)):
            for a, b in zip(ours, ref):
                a = a(env)
                worst[k] = max(worst[k], abs(a - float(b)) / max(1.0, abs(float(b))))
    check(path + ": Fr = SymPy's fr (rel. error %.1e)" % worst[0], worst[0] < 1e-10, worst)
    check(path + ": Frstar = SymPy's frstar (rel. error %.1e)" % worst[1], worst[1] < 1e-10,
          worst)


for make in (cart_pendulum, rigid_body):
    compare(make())
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
