"""Force elements (MODEL-FORMAT 1.1): `spring P Q: k, l0`, `damper P Q: c`,
`spring q: k, q0`, `damper q: c` give exactly the equations of the same
model with V and D written by hand (eval --json equal to 1e-14 under both
methods, at the initial state and at another), simulate conserves E - W
with the damper's work in W, and wrong elements are refused at
file:line:col. Ends "N passed, N failed"."""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
MODELS = os.path.join(ROOT, "tests", "cli", "models")
passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL " + what + ("\n    " + str(detail) if detail else ""))


def run(*args, stdin=None):
    return subprocess.run([BIN] + list(args), capture_output=True, text=True, input=stdin,
                          cwd=ROOT)


def flat(x, path=""):
    if isinstance(x, dict):
        for k in sorted(x):
            yield from flat(x[k], path + "." + k)
    elif isinstance(x, list):
        for i, e in enumerate(x):
            yield from flat(e, path + "[%d]" % i)
    else:
        yield path, x


def same_json(a, b, tol=1e-14):
    fa, fb = dict(flat(a)), dict(flat(b))
    if fa.keys() != fb.keys():
        return False, sorted(set(fa) ^ set(fb))
    for k in fa:
        x, y = fa[k], fb[k]
        if isinstance(x, (int, float)) and not isinstance(x, bool) and \
                isinstance(y, (int, float)):
            if abs(x - y) > tol * max(1.0, abs(x), abs(y)):
                return False, (k, x, y)
        elif x != y:
            return False, (k, x, y)
    return True, None


ELEM = os.path.join(MODELS, "spring_elements.lag")
HAND = os.path.join(MODELS, "spring_elements_hand.lag")

# 1. the same equations as the hand-written V and D, both methods, two states
for method in ("lagrange", "kane"):
    for state in ([], ["--state", "x=-0.3, y=0.4, th=2.1, x'=-1.2, y'=0.5, th'=0.7", "--t",
                       "0.25"]):
        a = run("eval", "--json", "--method", method, ELEM, *state)
        b = run("eval", "--json", "--method", method, HAND, *state)
        what = "eval --json --method %s%s: elements = hand-written V and D" % (
            method, " at a state" if state else "")
        if a.returncode or b.returncode:
            check(False, what, a.stderr + b.stderr)
            continue
        ok, why = same_json(json.loads(a.stdout), json.loads(b.stdout))
        check(ok, what, why)

# the printed equations agree too (the same expressions)
a, b = run("eom", "--json", ELEM), run("eom", "--json", HAND)
check(a.returncode == 0 and a.stdout == b.stdout, "eom --json: the same equations as written",
      a.stderr)

# 2. simulate: E - W conserved, the damper's work in W (negative, growing)
for method in ("lagrange", "kane"):
    r = run("simulate", "--method", method, "--tf", "3", ELEM)
    what = "simulate --method %s: E - W conserved" % method
    if r.returncode:
        check(False, what, r.stderr)
        continue
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    d = [float(x["E"]) - float(x["W"]) for x in rows]
    W = float(rows[-1]["W"])
    check(max(d) - min(d) < 1e-6 and W < -1, what + " (drift %.2g, W %.3g)" % (max(d) - min(d), W),
          (max(d) - min(d), W))
    check("work by dissipation D" in r.stderr, what + ": the summary names D's work", r.stderr)

# a point spring alone in 3D against the closed form of its potential
SPRING3D = """coordinates x y z
parameters k = 7, l0 = 0.5
frame N
point O
point P = O + x*N.x + y*N.y + z*N.z
particle P mass 2
spring O P: k, l0
initial x = 0.3, y = 0.4, z = 1.2
"""
with tempfile.NamedTemporaryFile("w", suffix=".lag", delete=False) as f:
    f.write(SPRING3D)
    path = f.name
r = run("eval", "--json", path)
os.unlink(path)
if r.returncode:
    check(False, "3D spring: eval", r.stderr)
else:
    out = json.loads(r.stdout)
    L = (0.3 ** 2 + 0.4 ** 2 + 1.2 ** 2) ** 0.5
    Vc = 7 / 2 * (L - 0.5) ** 2
    acc = [-7 * (L - 0.5) * c / L / 2 for c in (0.3, 0.4, 1.2)]
    check(abs(out["V"] - Vc) < 1e-14, "3D spring: V = k/2 (|OP| - l0)^2", (out["V"], Vc))
    check(all(abs(u - v) < 1e-13 for u, v in zip(out["qdd"], acc)),
          "3D spring: q'' = -k (|OP| - l0) r/|r| / m", (out["qdd"], acc))

# 3. errors at file:line:col
BASE = """coordinates x
parameters k = 1
frame N
point O
point P = O + x*N.x
particle P mass 1
"""
ERRORS = [
    ("spring P O Q: k, 1", "7:12: ", "expected ':'"),
    ("spring P Z: k, 1", "7:10: ", "unknown name 'Z'"),
    ("spring W: k, 1", "7:8: ", "unknown name 'W'"),
    ("spring P: k, 1", "7:8: ", "not a coordinate"),
    ("spring x O: k, 1", "7:8: ", "'x' is not a point"),
    ("spring P P: k, 1", "7:10: ", "two different points"),
    ("spring P O: k", "7:14: ", "rest length"),
    ("spring x: k", "7:12: ", "rest value"),
    ("spring P O: k, 1, 2", "7:17: ", "two values"),
    ("damper x: k, 1", "7:12: ", "one value"),
    ("spring P O: N.x, 1", "7:14: ", "must be a scalar"),
    ("damper P O: x''", "7:13: ", "acceleration"),
    ("spring = 2", "7:1: ", "reserved"),
    ("parameters damper", "7:12: ", "reserved"),
]
for line, where, text in ERRORS:
    r = run("eom", "-", stdin=BASE + line + "\n")
    err = r.stderr.splitlines()[0] if r.stderr else ""
    check(r.returncode == 1 and err.startswith("<stdin>:" + where) and text in err,
          "error: %-22s -> %s%s" % (line, where, text), err)

# with L, a spring (a potential) is refused; a damper is not
r = run("eom", "-", stdin="coordinates x\nL = x'^2/2\nspring x: 1, 0\n")
check(r.returncode == 1 and "<stdin>:3:1: " in r.stderr and "Lagrangian" in r.stderr,
      "a spring with L = is refused at its line", r.stderr)
r = run("eom", "-", stdin="coordinates x\nL = x'^2/2\ndamper x: 1\n")
check(r.returncode == 0, "a damper with L = is accepted", r.stderr)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
