"""Outputs (MODEL-FORMAT 1.1, `output NAME = EXPR [in FRAME]`) through the
library (Python's Model.outputs_at over lg_eval_outputs), against closed
forms: the rod tension of a Cartesian pendulum m (g cos(theta) + l
theta'^2) from lam1 (scaled by the constraint's gradient, 2 l), the normal
force of a particle on a cone in steady motion m g / sin(alpha), angular
momentum conserved in a central field (two rows of one simulated motion),
the mass centre and momentum of a free sprung pair moving ballistically;
the multipliers under Kane's method equal Lagrange's; the output-only
names are refused elsewhere and wrong outputs at line:col.
Ends "N passed, N failed"."""
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy as np
except ImportError:  # the python3 on PATH may lack NumPy: Debian's has it
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path.insert(0, os.path.join(ROOT, "python"))
import lagrange  # noqa: E402

passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL " + what + ("\n    " + str(detail) if detail else ""))


def close(a, b, tol):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


# 1. Cartesian pendulum: tension from the multiplier -----------------------------------
PENDULUM = """coordinates x y
parameters m = 1.3, g = 9.81, l = 0.8
frame N
point O
point P = O + x*N.x + y*N.y
particle P mass m
gravity -g*N.y
constraint x^2 + y^2 - l^2
output tension = -2*l*lam1      # J = [2x, 2y]: the rod's force is 2 lam1 (x, y)
output ydd = y''
output E = T + V
output r = pos(P) in N
initial x = 0.2, y = -0.7745966692414834   # Kane's dependent speed: y'
"""
m_, g_, l_ = 1.3, 9.81, 0.8
for method in ("lagrange", "kane"):
    m = lagrange.loads(PENDULUM, method=method)
    check(m.outputs == ["tension", "ydd", "E", "r_x", "r_y", "r_z"],
          "%s: output columns (a vector as r_x, r_y, r_z)" % method, m.outputs)
    worst = 0.0
    for th, w in ((0.3, 1.1), (-0.6, 0.4), (2.9, -2.5), (0.0, 0.0)):
        q = [l_ * math.sin(th), -l_ * math.cos(th)]
        qd = [l_ * w * math.cos(th), l_ * w * math.sin(th)]
        o = m.outputs_at(q, qd, t=0.5)
        closed = m_ * (g_ * math.cos(th) + l_ * w * w)
        worst = max(worst, abs(o["tension"] - closed) / max(1, abs(closed)))
        r = m.eval(q, qd, t=0.5)
        ok = o["ydd"] == r.qdd[1] and close(o["E"], r.T + r.V, 1e-15) and \
            o["r_x"] == q[0] and o["r_y"] == q[1] and o["r_z"] == 0
        check(ok, "%s: q'', T + V and pos at theta=%g equal eval's" % (method, th), (o, r.qdd))
    check(worst < 1e-13, "%s: tension = m (g cos(theta) + l theta'^2) (rel. error %.1e)"
          % (method, worst), worst)

# 2. particle on a cone: the normal force in steady circular motion -------------------
CONE = """coordinates x y z
parameters m = 0.7, g = 9.81, alpha = 0.5
frame N
point O
point P = O + x*N.x + y*N.y + z*N.z
particle P mass m
gravity -g*N.z
constraint x^2 + y^2 - (z*tan(alpha))^2
output N_mag = abs(lam1)*sqrt(4*x^2 + 4*y^2 + 4*z^2*tan(alpha)^4)
output a = pos(P) in N
"""
alpha, mc = 0.5, 0.7
r0 = 0.6
w = math.sqrt(g_ / (r0 * math.tan(alpha)))
q = [r0, 0.0, r0 / math.tan(alpha)]
qd = [0.0, w * r0, 0.0]
lam = {}
for method in ("lagrange", "kane"):
    m = lagrange.loads(CONE, method=method)
    o = m.outputs_at(q, qd)
    check(close(o["N_mag"], mc * g_ / math.sin(alpha), 1e-13),
          "%s: cone: normal force = m g / sin(alpha)" % method, (o["N_mag"], mc * g_ / math.sin(alpha)))
    acc = m.accel(q, qd)
    check(close(acc[0], -w * w * r0, 1e-12) and abs(acc[2]) < 1e-12,
          "%s: cone: steady circle (x'' = -w^2 r, z'' = 0)" % method, acc)
    lam[method] = o["N_mag"]
check(close(lam["lagrange"], lam["kane"], 1e-12), "cone: Kane's multiplier = Lagrange's", lam)

# 3. angular momentum about the centre of a central field, along a motion -----------
CENTRAL = """coordinates x y z
parameters m = 1.7, k = 3, l0 = 0.4
frame N
point O
point P = O + x*N.x + y*N.y + z*N.z
particle P mass m
spring O P: k, l0
output h = angmom(O) in N
output p = momentum() in N
initial x = 1, y = 0.2, z = -0.3, x' = 0.1, y' = 0.9, z' = 0.4
simulate 0 to 4 step 0.5
"""
for method in ("lagrange", "kane"):
    m = lagrange.loads(CENTRAL, method=method)
    s = m.simulate(rtol=1e-10, atol=1e-12)
    rows = [0, len(s["t"]) // 2, len(s["t"]) - 1]
    hs = []
    for i in rows:
        q = [s[c][i] for c in m.coordinates]
        qd = [s[c + "'"][i] for c in m.coordinates]
        o = m.outputs_at(q, qd, t=s["t"][i])
        hs.append(np.array([o["h_x"], o["h_y"], o["h_z"]]))
        r, v = np.array(q), np.array(qd)
        ok = np.allclose(hs[-1], 1.7 * np.cross(r, v), rtol=0, atol=1e-14) and \
            np.allclose([o["p_x"], o["p_y"], o["p_z"]], 1.7 * v, rtol=0, atol=1e-14)
        check(ok, "%s: central field: h = r x m v, p = m v at t=%g" % (method, s["t"][i]))
    drift = max(np.max(np.abs(h - hs[0])) for h in hs)
    check(drift < 1e-7 and np.max(np.abs(hs[0])) > 0.5,
          "%s: central field: angmom(O) conserved along the motion (drift %.1e)"
          % (method, drift), hs)

# 4. a free sprung pair: its mass centre moves ballistically ------------------------
PAIR = """coordinates x1 y1 z1 x2 y2 z2
parameters m1 = 1, m2 = 3, g = 9.81, k = 40, l0 = 0.5
frame N
point O
point A = O + x1*N.x + y1*N.y + z1*N.z
point B = O + x2*N.x + y2*N.y + z2*N.z
particle A mass m1
particle B mass m2
gravity -g*N.z
spring A B: k, l0
damper A B: 0.3
output c = mass_center() in N
output p = momentum() in N
initial x1 = 0, y1 = 0, z1 = 1, x2 = 0.6, y2 = 0.1, z2 = 1.2
initial x1' = 1, y1' = -2, z1' = 3, x2' = 0, y2' = 0.5, z2' = 4
simulate 0 to 1.5 step 0.25
"""
m = lagrange.loads(PAIR)
s = m.simulate(rtol=1e-10, atol=1e-12)
M = 4.0
c0 = np.array([(0 + 3 * 0.6) / M, (0 + 3 * 0.1) / M, (1 + 3 * 1.2) / M])
v0 = np.array([(1 + 0) / M, (-2 + 3 * 0.5) / M, (3 + 3 * 4) / M])
worst_c = worst_p = 0.0
for i in range(len(s["t"])):
    t = s["t"][i]
    q = [s[c][i] for c in m.coordinates]
    qd = [s[c + "'"][i] for c in m.coordinates]
    o = m.outputs_at(q, qd, t=t)
    c = np.array([o["c_x"], o["c_y"], o["c_z"]])
    p = np.array([o["p_x"], o["p_y"], o["p_z"]])
    cc = c0 + v0 * t + np.array([0, 0, -9.81 / 2 * t * t])
    pc = M * (v0 + np.array([0, 0, -9.81 * t]))
    worst_c = max(worst_c, np.max(np.abs(c - cc)))
    worst_p = max(worst_p, np.max(np.abs(p - pc)))
check(worst_c < 1e-7, "sprung pair: mass_center() = c0 + v0 t - g t^2/2 (error %.1e)" % worst_c)
check(worst_p < 1e-7, "sprung pair: momentum() = M (v0 - g t) (error %.1e)" % worst_p)
check(len(s["t"]) == 7 and abs(s["t"][-1] - 1.5) < 1e-12, "sprung pair: the run's rows")

# 5. errors ---------------------------------------------------------------------------
BASE = """coordinates x
parameters k = 1
frame N
point O
point P = O + x*N.x
"""
ERRORS = [
    (BASE + "T = x'^2/2\noutput p = momentum() in N\n", 7, 12, "needs particles or bodies"),
    (BASE + "particle P mass 0\noutput c = mass_center() in N\n", 7, 12, "total mass"),
    (BASE + "particle P mass 1\noutput f = lam1\n", 7, 12, "no constraints"),
    (BASE + "particle P mass 1\nconstraint x - 1\noutput f = lam2\n", 8, 12,
     "1 constraint row"),
    ("coordinates x\nL = x'^2/2\noutput e = T\n", 3, 12, "Lagrangian"),
    (BASE + "particle P mass 1\noutput r = pos(P)\n", 7, 12, "name the frame"),
    (BASE + "particle P mass 1\noutput r = P in N\n", 7, 12, "a point"),
    (BASE + "particle P mass 1\noutput s = x in N\n", 7, 17, "is a scalar"),
    (BASE + "particle P mass 1\noutput s = vel(P) in k\n", 7, 22, "not a frame"),
    (BASE + "particle P mass 1\nD = k*T\n", 7, 7, "may only appear in an output"),
    (BASE + "particle P mass 1\nforce P: momentum()\n", 7, 10, "may only appear in an output"),
    (BASE + "particle P mass 1\noutput k = x\n", 7, 8, "already"),
    (BASE + "particle P mass 1\noutput r = vel(P) in N\noutput r_y = x\n", 8, 8, "already"),
    (BASE + "particle P mass 1\noutput in = x\n", 7, 8, "reserved"),
    (BASE + "particle P mass 1\noutput a = x''' \n", 7, 15, "too many primes"),
]
for text, line, col, msg in ERRORS:
    try:
        lagrange.loads(text, name="o.lag")
        check(False, "refused: %s" % text.splitlines()[-1], "accepted")
    except lagrange.ModelError as e:
        check((e.line, e.col) == (line, col) and msg in str(e),
              "refused at %d:%d: %s" % (line, col, text.splitlines()[-1]), str(e))

# q'' and T in an output are fine; an output may use an earlier output
m = lagrange.loads(BASE + "particle P mass 2\nforce P: -k*x*N.x\noutput a = x''\n"
                   "output f = 2*a\n")
o = m.outputs_at([0.5], [0.0])
check(list(o) == ["a", "f"] and close(o["a"], -0.25, 1e-15) and o["f"] == 2 * o["a"],
      "an output of q'' and an output of an output", o)
m = lagrange.loads(BASE + "particle P mass 2\n")
check(m.outputs == [] and m.outputs_at([0.5], [0.0]) == {}, "a model without outputs")

# 6. a free rigid body: angmom about its mass centre is I w (products of inertia) -----
BODY = open(os.path.join(ROOT, "examples", "kane_rigid_body.lag")).read() + """
output w = angvel(B) in B
output h = angmom(Bo) in B
output p = momentum() in B
"""
I = np.array([[0.3, 0.01, 0.03], [0.01, 0.4, 0.02], [0.03, 0.02, 0.5]])
rnd = np.random.default_rng(24)
for method in ("lagrange", "kane"):
    m = lagrange.loads(BODY, method=method)
    worst = 0.0
    for _ in range(4):
        q, qd = rnd.uniform(-1, 1, 6), rnd.uniform(-1, 1, 6)
        o = m.outputs_at(q, qd, t=0.2)
        w = np.array([o["w_x"], o["w_y"], o["w_z"]])
        h = np.array([o["h_x"], o["h_y"], o["h_z"]])
        worst = max(worst, np.max(np.abs(h - I @ w)))
    check(worst < 1e-14, "%s: rigid body: angmom(Bo) = I w in B (error %.1e)" % (method, worst))

# 7. generated C: NAME_outputs and NAME_multipliers equal the library ----------------
import ctypes  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
CC = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
CASES = [("pend", PENDULUM + "output l1 = lam1\n"), ("cone", CONE), ("central", CENTRAL),
         ("pair", PAIR), ("body", BODY)]
tmp = tempfile.mkdtemp()
for name, text in CASES:
    path = os.path.join(tmp, name + ".lag")
    with open(path, "w") as f:
        f.write(text)
    src = os.path.join(tmp, name + ".c")
    r = subprocess.run([BIN, "codegen", path, "--name", name, "-o", src], capture_output=True,
                       text=True)
    if r.returncode or not CC:
        check(False, "%s: codegen" % name, r.stderr or "no C compiler")
        continue
    so = os.path.join(tmp, name + ".so")
    r = subprocess.run([CC, "-std=c99", "-O1", "-Wall", "-Werror", "-shared", "-fPIC", "-o", so,
                        src, "-lm"], capture_output=True, text=True)
    if r.returncode:
        check(False, "%s: the generated code compiles" % name, r.stderr)
        continue
    lib = ctypes.CDLL(so)
    m = lagrange.loads(text)
    hdr = open(os.path.join(tmp, name + ".h")).read()
    check("enum { %s_NOUT = %d };" % (name, len(m.outputs)) in hdr,
          "%s: %s_NOUT in the header" % (name, name))
    DP = ctypes.POINTER(ctypes.c_double)
    for fn in ("outputs", "multipliers"):
        getattr(lib, name + "_" + fn).argtypes = [ctypes.c_double, DP, DP, DP, DP]
    n, p = m.n, np.array(list(m.parameters.values()))
    q0, qd0 = m.initial_state()
    worst = worst_lam = 0.0
    for k in range(6):
        base = np.array([r0, 0.0, r0 / math.tan(alpha)]) if name == "cone" else q0
        q = base + 0.1 * rnd.uniform(-1, 1, n)
        qd = qd0 + 0.3 * rnd.uniform(-1, 1, n)
        if name == "pend":  # on the circle, moving along it
            th, w = rnd.uniform(-0.7, 0.7), rnd.uniform(-2, 2)
            q = np.array([0.8 * math.sin(th), -0.8 * math.cos(th)])
            qd = np.array([0.8 * w * math.cos(th), 0.8 * w * math.sin(th)])
        x = np.concatenate([q, qd])
        out = np.zeros(len(m.outputs))
        lam = np.zeros(max(m.m, 1))
        c = lambda a: a.ctypes.data_as(DP)  # noqa: E731
        e1 = getattr(lib, name + "_outputs")(0.3, c(x), None, c(p), c(out))
        e2 = getattr(lib, name + "_multipliers")(0.3, c(x), None, c(p), c(lam))
        ref = m.outputs_at(q, qd, t=0.3)
        worst = max(worst, max(abs(a - b) / max(1, abs(b)) for a, b in zip(out, ref.values())))
        if m.m:
            r = m.eval(q, qd, t=0.3)
            worst_lam = max(worst_lam, np.max(np.abs(lam[:m.m] - r.lam) / np.maximum(1, np.abs(r.lam))))
        if e1 or e2:
            worst = math.inf
    check(worst < 1e-12, "%s: %s_outputs = lg_eval_outputs at 6 states (rel. %.1e)"
          % (name, name, worst), worst)
    check(worst_lam < 1e-12, "%s: %s_multipliers = eval's lam (rel. %.1e)"
          % (name, name, worst_lam), worst_lam)

# 7b. Kane's method (x = Kane's state as NAME_rhs takes it) and Python (NumPy module):
# NAME_outputs / outputs() and NAME_multipliers / multipliers() equal the library
import importlib.util  # noqa: E402


def kane_x(mk, q, qd):
    """Kane's state for (q, q'): [q; q'] without speeds of its own, else [q; u]
    with each independent speed a coordinate's rate ("x'")."""
    if not mk.speeds:
        return np.concatenate([q, qd])
    names = list(mk.coordinates)
    return np.concatenate([q, [qd[names.index(u[:-1])] for u in mk.speeds]])


for name, text in CASES:
    path = os.path.join(tmp, name + "_k.lag")
    with open(path, "w") as f:
        f.write(text)
    m = lagrange.loads(text)
    mk = lagrange.loads(text, method="kane")
    if any(not u.endswith("'") for u in mk.speeds):
        continue
    n, p = m.n, np.array(list(m.parameters.values()))
    q0, qd0 = m.initial_state()
    for method, lang in (("kane", "c"), ("kane", "python"), ("lagrange", "python")):
        ext = ".c" if lang == "c" else ".py"
        src = os.path.join(tmp, "%s_%s%s" % (name, method, ext))
        mod = "%s_%s" % (name, method)
        r = subprocess.run([BIN, "codegen", path, "--name", mod, "--method", method, "--lang",
                            lang, "--functions", "rhs, outputs, multipliers", "-o", src],
                           capture_output=True, text=True)
        if r.returncode:
            check(False, "%s: codegen --method %s --lang %s" % (name, method, lang), r.stderr)
            continue
        if lang == "c":
            so = os.path.join(tmp, mod + ".so")
            r = subprocess.run([CC, "-std=c99", "-O1", "-Wall", "-Werror", "-shared", "-fPIC",
                                "-o", so, src, "-lm"], capture_output=True, text=True)
            if r.returncode:
                check(False, "%s: the generated Kane code compiles" % name, r.stderr)
                continue
            lib = ctypes.CDLL(so)
            DP = ctypes.POINTER(ctypes.c_double)
            for fn in ("outputs", "multipliers", "rhs"):
                getattr(lib, mod + "_" + fn).argtypes = [ctypes.c_double, DP, DP, DP, DP]
            c = lambda a: a.ctypes.data_as(DP)  # noqa: E731

            def outs(x, lib=lib, mod=mod, c=c):
                out = np.zeros(len(m.outputs))
                lam = np.zeros(max(m.m, 1))
                xd = np.zeros(len(x))
                e1 = getattr(lib, mod + "_outputs")(0.3, c(x), None, c(p), c(out))
                e2 = getattr(lib, mod + "_multipliers")(0.3, c(x), None, c(p), c(lam))
                e3 = getattr(lib, mod + "_rhs")(0.3, c(x), None, c(p), c(xd))
                return (out, lam[:m.m], xd[:n]) if not (e1 or e2 or e3) else (None,) * 3
        else:
            spec = importlib.util.spec_from_file_location(mod, src)
            gen = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(gen)

            def outs(x, gen=gen):
                return (gen.outputs(0.3, x, None, p), gen.multipliers(0.3, x, None, p),
                        gen.rhs(0.3, x, None, p)[:n])
        worst = worst_lam = 0.0
        for k in range(6):
            base = np.array([r0, 0.0, r0 / math.tan(alpha)]) if name == "cone" else q0
            q = base + 0.1 * rnd.uniform(-1, 1, n)
            qd = qd0 + 0.3 * rnd.uniform(-1, 1, n)
            if name == "pend":  # on the circle, moving along it
                th, w = rnd.uniform(-0.7, 0.7), rnd.uniform(-2, 2)
                q = np.array([0.8 * math.sin(th), -0.8 * math.cos(th)])
                qd = np.array([0.8 * w * math.cos(th), 0.8 * w * math.sin(th)])
            x = kane_x(mk, q, qd) if method == "kane" else np.concatenate([q, qd])
            out, lam, qd = outs(x)  # q' = k(q, u) as NAME_rhs gives it (Kane's method
            if out is None:          # completes the dependent rates)
                worst = math.inf
                continue
            lm = m
            ref = lm.outputs_at(q, qd, t=0.3)
            worst = max(worst, max(abs(a - b) / max(1, abs(b)) for a, b in zip(out, ref.values())))
            if m.m:
                r = lm.eval(q, qd, t=0.3)
                worst_lam = max(worst_lam, np.max(np.abs(lam - r.lam) / np.maximum(1, np.abs(r.lam))))
        what = "%s --method %s --lang %s" % (name, method, lang)
        check(worst < 1e-9, "%s: outputs = lg_eval_outputs at 6 states (rel. %.1e)"
              % (what, worst), worst)
        check(worst_lam < 1e-9, "%s: multipliers = eval's lam (rel. %.1e)"
              % (what, worst_lam), worst_lam)

# without outputs, nothing changes unless asked
plain = os.path.join(ROOT, "examples", "cart_pendulum.lag")
r = subprocess.run([BIN, "codegen", plain, "--name", "cp"], capture_output=True, text=True)
check(r.returncode == 0 and "_outputs" not in r.stdout and "_multipliers" not in r.stdout,
      "codegen of a model without outputs writes no outputs or multipliers")
r = subprocess.run([BIN, "codegen", plain, "--name", "cp", "--functions",
                    "outputs, multipliers"], capture_output=True, text=True)
check(r.returncode == 0 and "int cp_outputs(" in r.stdout and "int cp_multipliers(" in r.stdout
      and "_rhs(" not in r.stdout, "--functions outputs, multipliers writes just them", r.stderr)
for extra in (["--method", "kane"], ["--lang", "python"]):
    r = subprocess.run([BIN, "codegen", plain, "--functions", "outputs, multipliers"] + extra,
                       capture_output=True, text=True)
    check(r.returncode == 0 and "outputs" in r.stdout and "multipliers" in r.stdout,
          "codegen --functions outputs, multipliers %s writes them" % " ".join(extra), r.stderr)
    r = subprocess.run([BIN, "codegen", plain] + extra, capture_output=True, text=True)
    check(r.returncode == 0 and "_outputs(" not in r.stdout and "def outputs" not in r.stdout,
          "codegen %s writes no outputs unless asked" % " ".join(extra), r.stderr)
# an output may use a Kane speed (a function of q, q' through the kinematics) under both
# methods; a speed the model does not declare is an unknown name at its line:col
SPEED = ("coordinates x y\nspeeds u1 u2\nparameters m = 1\nT = 1/2*m*(x'^2 + y'^2)\n"
         "kinematics x' = u1 + u2, y' = u1 - u2\nconstraint x' = 0.5*y\noutput s = u2\n"
         "initial y = 1, x' = 0.5\n")
for method in ("lagrange", "kane"):
    ms = lagrange.loads(SPEED, method=method)
    v = ms.outputs_at([0.0, 1.0], [0.5, 0.0])["s"]
    check(abs(v - 0.25) < 1e-15, "%s: output s = u2 = (x' - y')/2 (%r)" % (method, v))
try:
    lagrange.loads("coordinates x\nT = x'^2/2\noutput s = u1\n")
    check(False, "an undeclared speed in an output is refused")
except lagrange.ModelError as e:
    check("u1" in str(e) and ":3:" in str(e), "an undeclared speed in an output is refused", e)
shutil.rmtree(tmp)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
