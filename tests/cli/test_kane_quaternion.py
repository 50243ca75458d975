#!/usr/bin/env python3
"""Kane's method with the body rates as speeds of a body oriented by Euler
parameters (MODEL-FORMAT 1.1: under Kane's method with body rates as speeds,
e.e' = 0 completes the kinematical equations), against derivations written
here in plain floats:

- the torque-free asymmetric top spun near its intermediate axis
  (examples/quaternion_top_kane.lag): Euler's equations I w' = -(w x I w)
  and e' = 1/2 e (x) (0, w) integrated by a fixed-step RK4 against
  `simulate --method kane` (e and w, w from the printed e, e') at every
  row; |e| = 1, the energy and the angular momentum in N (R(e) I w)
  constant; Lagrange's method (default speeds, e' from w) on the same
  trajectory, its multiplier of the norm ~0;
- `eval --method kane` at random states: w' = Euler's equations (the top)
  and the Newton-Euler equations about the fixed point (a heavy top), 1e-12;
- a rolling sphere (Euler parameters, body rates and the centre's velocity
  as speeds, two nonholonomic rows, vx vy dependent): Kane's q'' and w'
  against Lagrange's q'' (the same constraints, default speeds) mapped
  through w = 2 G(e) e', at random consistent states, 1e-10;
- `codegen --method kane` of the top compiles with gcc -Wall -Werror and its
  rhs agrees with eval;
- Python (lagrange.load(..., method="kane")): eval and simulate give the
  command's numbers bit for bit;
- errors: 2 speeds for a quaternion, the kinematics missing or short: a
  file:line:col message with a hint.

usage: test_kane_quaternion.py LAGRANGE [SANITIZED_LAGRANGE]"""
import ctypes, csv, io, json, math, os, random, shutil, subprocess, sys, tempfile

BIN = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
REL = sys.argv[1]
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TOP = os.path.join(ROOT, "examples", "quaternion_top_kane.lag")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:800]))


def run(args, binary=None, text=None):
    return subprocess.run([binary or BIN] + args, capture_output=True, text=True, timeout=300,
                          input=text)


def rows_of(out):
    r = list(csv.reader(io.StringIO(out)))
    return r[0], [[float(x) for x in row] for row in r[1:]]


# ---- quaternion algebra (e0 scalar), as the derivations need it ------------------------
def qmul(a, b):
    a0, a1, a2, a3 = a
    b0, b1, b2, b3 = b
    return [a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3, a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
            a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1, a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def rot(e):
    """R(e): body components -> N components."""
    e0, e1, e2, e3 = e
    return [[e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
            [2 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2 * (e2 * e3 - e0 * e1)],
            [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3]]


def matvec(R, v):
    return [sum(R[i][j] * v[j] for j in range(3)) for i in range(3)]


def matTvec(R, v):
    return [sum(R[j][i] * v[j] for j in range(3)) for i in range(3)]


def edot(e, w):
    return [0.5 * x for x in qmul(e, [0.0] + list(w))]


def body_rates(e, ed):
    """w = 2 G(e) e' (the body's angular velocity in its own axes)."""
    c = cross(e[1:], ed[1:])
    return [2 * (e[0] * ed[1 + i] - ed[0] * e[1 + i] - c[i]) for i in range(3)]


def euler_rhs(I, w, torque=(0.0, 0.0, 0.0)):
    Iw = [I[i] * w[i] for i in range(3)]
    c = cross(w, Iw)
    return [(torque[i] - c[i]) / I[i] for i in range(3)]


def close(a, b, tol):
    return len(a) == len(b) and all(abs(x - y) <= tol * max(1.0, abs(y)) for x, y in zip(a, b))


def worst(a, b):
    return max(abs(x - y) for x, y in zip(a, b))


def unit_quaternion(rng):
    e = [rng.gauss(0, 1) for _ in range(4)]
    s = math.sqrt(sum(x * x for x in e))
    return [x / s for x in e]


tmp = tempfile.mkdtemp(prefix="kaneq")


def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# ---- 1. the torque-free top over time ----------------------------------------------------
I_TOP = [1.0, 2.0, 3.0]
W0 = [0.1, 2.0, 0.05]
p = run(["simulate", TOP, "--method", "kane", "--rtol", "1e-12", "--atol", "1e-12", "--tf", "10", "--dt", "0.25"])
check("simulate --method kane of the top runs", p.returncode == 0, p.stderr)
head, rows = rows_of(p.stdout) if p.returncode == 0 else ([], [])
check("columns: q, q', T, V, E, the norm C1, W, lam1 (Kane's declared speeds print q')",
      head == ["t", "e0", "e1", "e2", "e3", "e0'", "e1'", "e2'", "e3'", "T", "V", "E", "C1", "W",
               "lam1"], head)
# RK4 of Euler's equations and e' = 1/2 e (x) (0, w), h = 1/1600
h, steps_per_row = 1.0 / 1600, 400
e, w = [1.0, 0.0, 0.0, 0.0], list(W0)


def f(y):
    e, w = y[:4], y[4:]
    return edot(e, w) + euler_rhs(I_TOP, w)


ref = [e + w]
y = e + w
for r in range(1, len(rows)):
    for _ in range(steps_per_row):
        k1 = f(y)
        k2 = f([a + h / 2 * b for a, b in zip(y, k1)])
        k3 = f([a + h / 2 * b for a, b in zip(y, k2)])
        k4 = f([a + h * b for a, b in zip(y, k3)])
        y = [a + h / 6 * (b + 2 * c + 2 * d + g) for a, b, c, d, g in zip(y, k1, k2, k3, k4)]
    ref.append(list(y))
L0 = matvec(rot([1.0, 0, 0, 0]), [I_TOP[i] * W0[i] for i in range(3)])
T0 = 0.5 * sum(I_TOP[i] * W0[i] ** 2 for i in range(3))
err_e = err_w = err_norm = err_T = err_L = 0.0
flipped = False
for row, yr in zip(rows, ref):
    e, ed = row[1:5], row[5:9]
    w = body_rates(e, ed)
    err_e = max(err_e, worst(e, yr[:4]))
    err_w = max(err_w, worst(w, yr[4:]))
    err_norm = max(err_norm, abs(sum(x * x for x in e) - 1))
    err_T = max(err_T, abs(0.5 * sum(I_TOP[i] * w[i] ** 2 for i in range(3)) - T0), abs(row[9] - T0))
    L = matvec(rot(e), [I_TOP[i] * w[i] for i in range(3)])
    err_L = max(err_L, worst(L, L0))
    flipped |= w[1] < 0
print("# top over 10 s: max |e - e_RK4| %.1e, |w - w_RK4| %.1e, ||e|^2 - 1| %.1e, energy %.1e, "
      "angular momentum %.1e" % (err_e, err_w, err_norm, err_T, err_L))
check("e0..e3 = RK4 of e' = 1/2 e (x) (0, w) at every row (1e-7)", err_e < 1e-7, err_e)
check("w1..w3 (from e, e') = RK4 of Euler's equations at every row (1e-7)", err_w < 1e-7, err_w)
check("the top flips (spin near the intermediate axis reverses w2)", flipped)
check("|e| = 1 along the motion (1e-9)", err_norm < 1e-9, err_norm)
check("energy constant (1e-9)", err_T < 1e-9, err_T)
check("angular momentum in N, R(e) I w, constant (1e-8)", err_L < 1e-8, err_L)
check("the norm's multiplier lam1 is 0 under Kane's method (1e-10)",
      rows and max(abs(r[14]) for r in rows) < 1e-10, [r[14] for r in rows][:5])
check("the norm's residual C1 stays at 0 (1e-9)", rows and max(abs(r[12]) for r in rows) < 1e-9)

# Lagrange's method, default speeds u = q', the same initial state (e' = 1/2 (0, w))
lag_top = open(TOP).read()
lag_top = "\n".join(l for l in lag_top.splitlines()
                    if not l.startswith(("speeds", "kinematics", "initial")))
lag_top += "\ninitial e0 = 1, e1' = %r, e2' = %r, e3' = %r\n" % (W0[0] / 2, W0[1] / 2, W0[2] / 2)
LAGTOP = write("top_lagrange.lag", lag_top)
p = run(["simulate", LAGTOP, "--rtol", "1e-12", "--atol", "1e-12", "--tf", "10", "--dt", "0.25"])
check("simulate (Lagrange, u = q') of the same top runs", p.returncode == 0, p.stderr)
if p.returncode == 0:
    lh, lrows = rows_of(p.stdout)
    d = max(worst(a[1:9], b[1:9]) for a, b in zip(lrows, rows)) if len(lrows) == len(rows) else 1
    check("Lagrange's q, q' = Kane's at every row (1e-7)", d < 1e-7, d)
    lam = max(abs(r[lh.index("lam1")]) for r in lrows)
    check("Lagrange's multiplier of the norm is ~0 at consistent states (1e-10)", lam < 1e-10, lam)

# ---- 2. eval at random states: Euler's equations -----------------------------------------
def eval_json(model, state, method="kane", binary=None):
    p = run(["eval", model, "--state", state, "--json", "--method", method], binary)
    return p, (json.loads(p.stdout) if p.returncode == 0 else None)


def state_of(names, values):
    return ", ".join("%s=%r" % (n, v) for n, v in zip(names, values))


rng = random.Random(26)
QN = ["e0", "e1", "e2", "e3"]
for k in range(4):
    e, w = unit_quaternion(rng), [rng.uniform(-2, 2) for _ in range(3)]
    p, j = eval_json(TOP, state_of(QN + ["w1", "w2", "w3"], e + w))
    if not j:
        check("eval --method kane of the top (state %d)" % k, False, p.stderr)
        continue
    check("top: w' = Euler's equations (state %d, 1e-12)" % k,
          close(j["ud"], euler_rhs(I_TOP, w), 1e-12), (j["ud"], euler_rhs(I_TOP, w)))
    check("top: q' = 1/2 e (x) (0, w) (state %d, 1e-12)" % k, close(j["qd"], edot(e, w), 1e-12))
    check("top: the norm's multiplier 0 (state %d)" % k, abs(j["lam"][0]) < 1e-12, j["lam"])

# the top given by (q, q'): a copy without initial speeds, so that q' decides
TOPQ = write("top_q.lag", "\n".join(l for l in open(TOP).read().splitlines()
                                     if not l.startswith("initial")) + "\ninitial e0 = 1\n")
for k in range(2):
    e, w = unit_quaternion(rng), [rng.uniform(-2, 2) for _ in range(3)]
    p, j = eval_json(TOPQ, state_of(QN + [n + "'" for n in QN], e + edot(e, w)))
    check("top given q': the speeds are the body rates (state %d, 1e-12)" % k,
          j is not None and close(j["u"], w, 1e-12), (p.stderr, j and j["u"], w))
    check("top given q': w' = Euler's equations (state %d, 1e-12)" % k,
          j is not None and close(j["ud"], euler_rhs(I_TOP, w), 1e-12))

HEAVY = write("heavy_top.lag", """coordinates e0 e1 e2 e3
parameters m = 1.5, A = 0.4, B = 0.5, C = 0.3, l = 0.7, g = 9.81
frame N
frame Bf = quaternion(N, e0, e1, e2, e3)
point O
point G = O + l*Bf.z
body Bf mass m at G inertia (A, B, C)
gravity -g*N.z
speeds w1 w2 w3
kinematics dot(angvel(Bf), Bf.x) = w1, dot(angvel(Bf), Bf.y) = w2,
  dot(angvel(Bf), Bf.z) = w3
initial e0 = 1
""")
m_, A_, B_, C_, l_, g_ = 1.5, 0.4, 0.5, 0.3, 0.7, 9.81
IO = [A_ + m_ * l_ * l_, B_ + m_ * l_ * l_, C_]  # about the fixed point O
for k in range(4):
    e, w = unit_quaternion(rng), [rng.uniform(-2, 2) for _ in range(3)]
    p, j = eval_json(HEAVY, state_of(QN + ["w1", "w2", "w3"], e + w))
    gB = matTvec(rot(e), [0.0, 0.0, -g_])          # gravity in the body's axes
    tau = cross([0.0, 0.0, l_], [m_ * x for x in gB])  # about O
    want = euler_rhs(IO, w, tau)
    check("heavy top: w' = Newton-Euler about the fixed point (state %d, 1e-12)" % k,
          j is not None and close(j["ud"], want, 1e-12), (p.stderr, j and j["ud"], want))

# ---- 3. a rolling sphere: dependent speeds beside the body rates ----------------------------
SPHERE = write("sphere.lag", """coordinates x y e0 e1 e2 e3
parameters M = 2, r = 0.5, I = 0.2, J = 0.3, K = 0.25, g = 9.81
frame N
frame B = quaternion(N, e0, e1, e2, e3)
point O
point C = O + x*N.x + y*N.y + r*N.z
body B mass M at C inertia (I, J, K)
speeds w1 w2 w3 vx vy
kinematics dot(angvel(B), B.x) = w1, dot(angvel(B), B.y) = w2, dot(angvel(B), B.z) = w3,
  x' = vx, y' = vy
constraint vel(C) + cross(angvel(B), -r*N.z)
gravity -g*N.z
initial e0 = 1, w1 = 0.3, w2 = 0.2, w3 = 1
""")
SPHERE_L = write("sphere_lagrange.lag", """coordinates x y e0 e1 e2 e3
parameters M = 2, r = 0.5, I = 0.2, J = 0.3, K = 0.25, g = 9.81
frame N
frame B = quaternion(N, e0, e1, e2, e3)
point O
point C = O + x*N.x + y*N.y + r*N.z
body B mass M at C inertia (I, J, K)
constraint vel(C) + cross(angvel(B), -r*N.z)
gravity -g*N.z
initial e0 = 1
""")
r_ = 0.5
SN = ["x", "y"] + QN
for k in range(4):
    e, w = unit_quaternion(rng), [rng.uniform(-2, 2) for _ in range(3)]
    x, y = rng.uniform(-1, 1), rng.uniform(-1, 1)
    wN = matvec(rot(e), w)
    v = [r_ * wN[1], -r_ * wN[0]]  # v_C = -w x (-r z): the contact point at rest
    qd = v + edot(e, w)
    p, kj = eval_json(SPHERE, state_of(SN + ["w1", "w2", "w3"], [x, y] + e + w))
    p2, lj = eval_json(SPHERE_L, state_of(SN + [n + "'" for n in SN], [x, y] + e + qd), "lagrange")
    if not kj or not lj:
        check("rolling sphere: eval under both methods (state %d)" % k, False, p.stderr + p2.stderr)
        continue
    check("rolling sphere: vx, vy dependent and = the rolling velocity (state %d)" % k,
          kj["dependent_speeds"] == ["vx", "vy"] and close(kj["udep"], v, 1e-12),
          (kj["dependent_speeds"], kj["udep"], v))
    check("rolling sphere: Kane's q' = the kinematics (state %d)" % k, close(kj["qd"], qd, 1e-12))
    check("rolling sphere: Kane's q'' = Lagrange's (state %d, 1e-10)" % k,
          close(kj["qdd"], lj["qdd"], 1e-10), (kj["qdd"], lj["qdd"]))
    edd = lj["qdd"][2:]
    wd = body_rates(e, edd)  # w' = 2 G(e) e'' (G(e') e' = 0)
    check("rolling sphere: Kane's w' = 2 G(e) e'' of Lagrange's (state %d, 1e-10)" % k,
          close(kj["ud"], wd, 1e-10), (kj["ud"], wd))
    check("rolling sphere: the norm's multiplier ~0 (state %d)" % k, abs(lj["lam"][-1]) < 1e-10,
          lj["lam"])
p = run(["simulate", SPHERE, "--method", "kane", "--tf", "2", "--dt", "0.5"])
check("rolling sphere: simulate --method kane runs", p.returncode == 0, p.stderr)
if p.returncode == 0:
    sh, srows = rows_of(p.stdout)
    c1 = max(abs(r[sh.index("C3")]) for r in srows)
    check("rolling sphere: the norm is the last C (C3) and stays 0", c1 < 1e-9, c1)

# ---- 4. codegen --method kane of the top ------------------------------------------------
gcc = shutil.which("gcc")
src = os.path.join(tmp, "top.c")
p = run(["codegen", TOP, "--method", "kane", "--name", "top", "-o", src], REL)
check("codegen --method kane of the top", p.returncode == 0, p.stderr)
if p.returncode == 0 and gcc:
    so = os.path.join(tmp, "top.so")
    c = subprocess.run([gcc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-shared", "-fPIC",
                        "-o", so, src, "-lm"], capture_output=True, text=True)
    check("the generated C compiles with gcc -Wall -Wextra -Werror", c.returncode == 0, c.stderr)
    if c.returncode == 0:
        lib = ctypes.CDLL(so)
        D = ctypes.POINTER(ctypes.c_double)
        lib.top_rhs.argtypes = [ctypes.c_double, D, D, D, D]
        par = (ctypes.c_double * 8)()
        lib.top_default_params(par)
        for k in range(3):
            e, w = unit_quaternion(rng), [rng.uniform(-2, 2) for _ in range(3)]
            xs = (ctypes.c_double * 7)(*(e + w))
            out = (ctypes.c_double * 7)()
            lib.top_rhs(0.0, xs, None, par, out)
            p, j = eval_json(TOP, state_of(QN + ["w1", "w2", "w3"], e + w))
            check("generated rhs = eval's [q'; u'] (state %d, 1e-12)" % k,
                  j is not None and close(list(out), j["qd"] + j["ud"], 1e-12),
                  (list(out), j and j["qd"] + j["ud"]))

# ---- 5. Python ---------------------------------------------------------------------------
lib = os.path.join(os.path.dirname(os.path.abspath(REL)), "liblagrange.so.0")
py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
script = r"""
import json, sys, lagrange
m = lagrange.load(sys.argv[1], method="kane")
j = json.loads(m.eval_report(q=[0.8, 0.6, 0, 0], u=[0.3, -1.25, 0.7], format="json"))
s = m.simulate(tf=2, dt=0.5)
rows = [[float(s[c][i]) for c in s.columns] for i in range(len(s["t"]))]
print(json.dumps({"eval": j, "columns": list(s.columns), "rows": rows}))
"""
env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
if os.path.exists(lib):
    env["LAGRANGE_LIBRARY"] = lib
pp = subprocess.run([py, "-c", script, TOP], capture_output=True, text=True, env=env, timeout=300)
check("Python: lagrange.load(..., method='kane') of the top", pp.returncode == 0, pp.stderr)
if pp.returncode == 0:
    got = json.loads(pp.stdout)
    p, j = eval_json(TOP, "e0=0.8, e1=0.6, e2=0, e3=0, w1=0.3, w2=-1.25, w3=0.7", binary=REL)
    check("Python eval = the command's, bit for bit", j is not None and all(
        got["eval"][key] == j[key] for key in ("q", "qd", "qdd", "u", "ud", "mass_matrix", "forcing")),
        (got["eval"], j))
    p = run(["simulate", TOP, "--method", "kane", "--tf", "2", "--dt", "0.5"], REL)
    ch, crows = rows_of(p.stdout)
    check("Python simulate columns = the command's", got["columns"] == ch, (got["columns"], ch))
    check("Python simulate rows = the command's, bit for bit", got["rows"] == crows,
          (got["rows"][:2], crows[:2]))

# ---- 6. errors ---------------------------------------------------------------------------
top_text = open(TOP).read()


def error_case(name, text, where, words):
    path = write(name + ".lag", text)
    p = run(["eval", path, "--method", "kane"])
    first = p.stderr.splitlines()[0] if p.stderr else ""
    ok = p.returncode != 0 and first.startswith("%s:%s:" % (path, where)) and \
        all(wd in p.stderr for wd in words)
    check("error: %s (at %s, with a hint)" % (name, where), ok, (p.returncode, p.stderr))


two = top_text.replace("speeds w1 w2 w3", "speeds w1 w2") \
    .replace(", dot(angvel(Bf), Bf.z) = w3", "").replace(", w3 = 0.05", "")
line = [i + 1 for i, l in enumerate(two.splitlines()) if l.startswith("speeds")][0]
error_case("two speeds for a quaternion", two, "%d:8" % line,
           ["one speed per coordinate", "one fewer per quaternion", "declare 4 speeds", "or 3"])
nokin = "\n".join(l for l in top_text.splitlines() if not l.startswith("kinematics"))
line = [i + 1 for i, l in enumerate(nokin.splitlines()) if l.startswith("speeds")][0]
error_case("body rates without kinematical equations", nokin, "%d:8" % line,
           ["one fewer per quaternion", "give one kinematical equation per speed"])
short = top_text.replace(", dot(angvel(Bf), Bf.z) = w3", "")
line = [i + 1 for i, l in enumerate(short.splitlines()) if l.startswith("kinematics")][0]
error_case("two kinematical rows for three speeds", short, "%d:12" % line,
           ["one kinematical equation per speed", "3 speeds, 2 equations", "e.e' = 0"])

shutil.rmtree(tmp, ignore_errors=True)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
