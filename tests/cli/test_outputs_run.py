"""Multipliers and outputs along a run (issue 24): simulate's CSV columns
lam1..lamm and the model's outputs after W, under both methods, against
closed forms on every row (the rod tension of a Cartesian pendulum, the
rope tension of an Atwood machine); both methods' lam agree; --outputs
chooses and refuses; generated NAME_outputs equal the CSV's columns;
Python's simulate equals the CSV bit for bit; eval --json's outputs equal
lg_eval_outputs and carry lam under Kane's method too.
Ends "N passed, N failed"."""
import ctypes
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy as np
except ImportError:  # the python3 on PATH may lack NumPy: Debian's has it
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path.insert(0, os.path.join(ROOT, "python"))
import lagrange  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL " + what + ("\n    " + str(detail) if detail else ""))


PENDULUM = """coordinates x y
parameters m = 1.3, g = 9.81, l = 0.8
frame N
point O
point P = O + x*N.x + y*N.y
particle P mass m
gravity -g*N.y
constraint x^2 + y^2 - l^2
output tension = -2*l*lam1      # J = [2x, 2y]: the rod's force is 2 lam1 (x, y)
output r = pos(P) in N
output E2 = T + V
initial x = 0.2, y = -0.7745966692414834
simulate 0 to 3 step 0.05
"""
ATWOOD = """coordinates y1 y2
parameters m1 = 2, m2 = 1.5, g = 9.81, len = 3
frame N
point O
point A = O + y1*N.y
point B = O + 2*N.x + y2*N.y
particle A mass m1
particle B mass m2
gravity -g*N.y
constraint y1 + y2 + len        # the rope over a pulley at height 0: its force on A is lam1
output tension = lam1
initial y1 = -1, y2 = -2
simulate 0 to 1 step 0.1
"""
tmp = tempfile.mkdtemp()


def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(*args):
    return subprocess.run([BIN] + list(args), capture_output=True, text=True)


def csv(text):
    lines = text.strip().splitlines()
    head = lines[0].split(",")
    rows = [[float(v) for v in ln.split(",")] for ln in lines[1:]]
    return head, rows


pend = write("pend.lag", PENDULUM)
atw = write("atwood.lag", ATWOOD)
m_, g_, l_ = 1.3, 9.81, 0.8
lams = {}
for method in ("lagrange", "kane"):
    r = run("simulate", pend, "--method", method, "--rtol", "1e-12", "--atol", "1e-12")
    head, rows = csv(r.stdout)
    check(r.returncode == 0 and head[8:] == ["C1", "W", "lam1", "tension", "r_x", "r_y", "r_z",
                                             "E2"],
          "%s: pendulum CSV: lam1 then the outputs after W" % method, (r.stderr, head))
    worst = worst_t = 0.0
    for row in rows:
        v = dict(zip(head, row))
        x, y, xd, yd = v["x"], v["y"], v["x'"], v["y'"]
        w = (x * yd - y * xd) / (l_ * l_)
        closed = m_ * (g_ * (-y / l_) + l_ * w * w)
        worst = max(worst, abs(-2 * l_ * v["lam1"] - closed) / max(1, abs(closed)))
        worst_t = max(worst_t, abs(v["tension"] - closed) / max(1, abs(closed)))
        worst_t = max(worst_t, abs(v["r_x"] - x) + abs(v["r_y"] - y) + abs(v["r_z"]))
    check(len(rows) == 61 and worst < 1e-9 and worst_t < 1e-9,
          "%s: -2 l lam1 = tension = m (g cos(theta) + l theta'^2) on every row (rel. %.1e)"
          % (method, max(worst, worst_t)), (len(rows), worst, worst_t))
    lams[method] = np.array([row[head.index("lam1")] for row in rows])
    r = run("simulate", atw, "--method", method)
    head, rows = csv(r.stdout)
    closed = 2 * 2 * 1.5 * 9.81 / (2 + 1.5)
    worst = max(abs(row[head.index("tension")] - closed) for row in rows) if rows else 1
    check(r.returncode == 0 and "lam1" in head and worst < 1e-9,
          "%s: Atwood rope tension 2 m1 m2 g / (m1 + m2) on every row (error %.1e)"
          % (method, worst), r.stderr)
d = np.max(np.abs(lams["lagrange"] - lams["kane"]) / np.maximum(1, np.abs(lams["lagrange"])))
check(d < 1e-9, "lam1 of Kane's method = Lagrange's on every row (rel. %.1e)" % d)

# --outputs ------------------------------------------------------------------------------
r = run("simulate", pend, "--outputs", "E2, r_y,tension")
head, rows = csv(r.stdout)
check(r.returncode == 0 and head[9:] == ["W", "lam1", "E2", "r_y", "tension"],
      "--outputs keeps those, in the order given (lam stays)", head)
r = run("simulate", pend, "--outputs", "r")
check(r.returncode == 0 and r.stdout.splitlines()[0].endswith("lam1,r_x,r_y,r_z"),
      "--outputs r: a vector output's three columns", r.stdout[:200])
r = run("simulate", pend, "--outputs", "tension, zz")
check(r.returncode == 2 and "'zz'" in r.stderr and "--outputs" in r.stderr and not r.stdout,
      "--outputs with an unknown name: exit 2 naming it", (r.returncode, r.stderr))
r = run("simulate", pend, "--outputs", "tension, tension")
check(r.returncode == 2 and "twice" in r.stderr, "--outputs naming one twice: exit 2", r.stderr)
plain = os.path.join(ROOT, "examples", "cart_pendulum.lag")
r = run("simulate", plain, "--tf", "0.1")
check(r.returncode == 0 and r.stdout.splitlines()[0].endswith(",W"),
      "a model without constraints or outputs: the CSV as before", r.stdout[:200])
if shutil.which("gnuplot"):
    svg = os.path.join(tmp, "p.svg")
    r = run("simulate", pend, "--tf", "0.5", "--plot", svg, "--plot-vars", "x, tension, r_y",
            "--out", os.path.join(tmp, "p.csv"))
    check(r.returncode == 0 and os.path.getsize(svg) > 0 and "outputs" in open(svg).read(),
          "--plot-vars may name outputs (a panel of them)", r.stderr)
r = run("simulate", pend, "--tf", "0.5", "--plot", os.path.join(tmp, "q.svg"), "--plot-vars",
        "nothere")
check(r.returncode == 2 and "tension" in r.stderr, "--plot-vars: unknown name lists the outputs",
      r.stderr)

# Python's simulate = the command's CSV, bit for bit --------------------------------------
for method in ("lagrange", "kane"):
    for path in (pend, atw):
        r = run("simulate", path, "--method", method)
        head, rows = csv(r.stdout)
        s = lagrange.load(path, method=method).simulate()
        same = s.columns == head and all(
            np.array_equal(s[c], np.array([row[i] for row in rows])) for i, c in enumerate(head))
        check(same, "%s %s: Python's simulate = the CSV (every column, bit for bit)"
              % (method, os.path.basename(path)), (s.columns, head))
m = lagrange.load(pend)
s = m.simulate(outputs=["r", "tension"])
check(s.columns[-4:] == ["r_x", "r_y", "r_z", "tension"] and isinstance(s["lam1"], np.ndarray),
      "Python: outputs= selects; columns by name as arrays", s.columns)
try:
    m.simulate(outputs="zz")
    check(False, "Python: outputs='zz' raises")
except ValueError as e:
    check("'zz'" in str(e), "Python: an unknown output raises ValueError naming it", e)

# eval --json: outputs = lg_eval_outputs, lam under Kane's method too ------------------------
yv = -math.sqrt(0.64 - 0.09)
state = "x=0.3, y=%r, x'=1.1, y'=%r" % (yv, -0.3 * 1.1 / yv)  # on the circle, along it
for method in ("lagrange", "kane"):
    r = run("eval", pend, "--method", method, "--json", "--state", state)
    d = json.loads(r.stdout) if r.returncode == 0 else {}
    mm = lagrange.load(pend, method=method)
    q = d.get("q", [0, 0])
    ref = mm.outputs_at(q, d.get("qd", [0, 0]))
    check(d.get("outputs") == ref and list(d["outputs"]) == mm.outputs,
          "%s: eval --json outputs = lg_eval_outputs" % method, (d.get("outputs"), ref))
    lams[method] = d.get("lam")
check(lams["kane"] is not None and abs(lams["kane"][0] - lams["lagrange"][0]) < 1e-12,
      "eval --json under Kane's method: lam = Lagrange's", lams)
r = run("eval", plain, "--json")
check(r.returncode == 0 and "outputs" not in json.loads(r.stdout),
      "eval --json of a model without outputs: no outputs key")

# generated NAME_outputs = the CSV's output columns -----------------------------------------
CC = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
src = os.path.join(tmp, "pend.c")
r = run("codegen", pend, "--name", "pend", "-o", src)
so = os.path.join(tmp, "pend.so")
ok = r.returncode == 0 and CC and subprocess.run(
    [CC, "-std=c99", "-O1", "-shared", "-fPIC", "-o", so, src, "-lm"]).returncode == 0
if not ok:
    check(False, "codegen and cc of the pendulum", r.stderr or "no C compiler")
else:
    lib = ctypes.CDLL(so)
    DP = ctypes.POINTER(ctypes.c_double)
    lib.pend_outputs.argtypes = [ctypes.c_double, DP, DP, DP, DP]
    r = run("simulate", pend)
    head, rows = csv(r.stdout)
    p = np.array([1.3, 9.81, 0.8])
    names = lagrange.load(pend).outputs
    worst = 0.0
    for row in rows:
        v = dict(zip(head, row))
        x = np.array([v["x"], v["y"], v["x'"], v["y'"]])
        out = np.zeros(len(names))
        c = lambda a: a.ctypes.data_as(DP)  # noqa: E731
        lib.pend_outputs(v["t"], c(x), None, c(p), c(out))
        worst = max(worst, max(abs(a - v[k]) / max(1, abs(a)) for a, k in zip(out, names)))
    check(worst < 1e-12, "generated pend_outputs = the CSV's output columns on %d rows (rel. %.1e)"
          % (len(rows), worst))

shutil.rmtree(tmp, ignore_errors=True)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
