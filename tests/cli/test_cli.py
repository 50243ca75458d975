#!/usr/bin/env python3
"""The command-line contract (../shared/CLI.md) on the cart pendulum, whose
matrices Gros prints: exit codes, eom in text/LaTeX/JSON, eval's JSON
schema and values against the hand-derived formulas, --set, --state.

usage: test_cli.py LAGRANGE [SANITIZED_LAGRANGE]"""
import json, math, os, random, subprocess, sys, tempfile

BIN = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CART = os.path.join(ROOT, "examples", "cart_pendulum.lag")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def run(*args):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60)
    if "Sanitizer" in p.stderr or "runtime error" in p.stderr:
        check("sanitizer-clean " + " ".join(args), False, p.stderr[:2000])
    return p


def cart_reference(q, qd, m=1.0, M=0.5, l=0.8, g=9.81):
    """Gros: [[M+m, M l c], [M l c, M l^2]] qdd = [M l th'^2 s, M g l s]."""
    x, th = q
    xd, thd = qd
    c, s = math.cos(th), math.sin(th)
    A = [[M + m, M * l * c], [M * l * c, M * l * l]]
    b = [M * l * thd * thd * s, M * g * l * s]
    det = A[0][0] * A[1][1] - A[0][1] * A[1][0]
    qdd = [(b[0] * A[1][1] - A[0][1] * b[1]) / det, (A[0][0] * b[1] - A[1][0] * b[0]) / det]
    T = 0.5 * (m + M) * xd ** 2 + 0.5 * M * l * l * thd ** 2 + M * l * thd * xd * c
    V = M * g * l * c
    p = [(M + m) * xd + M * l * thd * c, M * l * l * thd + M * l * xd * c]
    return A, b, qdd, T, V, p


def close(a, b, tol=1e-12):
    return abs(a - b) <= tol * max(1.0, abs(b))


# ---- exit codes ----
check("no arguments is usage (2)", run().returncode == 2)
check("unknown subcommand is usage (2)", run("frobnicate", CART).returncode == 2)
check("unknown option is usage (2)", run("eom", CART, "--bogus").returncode == 2)
check("bad --format is usage (2)", run("eom", CART, "--format", "pdf").returncode == 2)
r = run("eom", "/nonexistent/model.lag")
check("missing model file is exit 1 with file:line:col",
      r.returncode == 1 and r.stderr.startswith("/nonexistent/model.lag:1:1: "), r.stderr)
check("--set of an unknown name is usage (2)",
      run("eval", CART, "--set", "zz=1").returncode == 2)
check("--state of an unknown name is usage (2)",
      run("eval", CART, "--state", "y=1").returncode == 2)

# ---- eom ----
r = run("eom", CART)
check("eom text exits 0", r.returncode == 0, r.stderr)
for key in ["coordinates: x, theta", "multipliers: (none)", "equations:",
            "(M + m)*x'' + M*l*cos(theta)*theta'' = M*l*theta'^2*sin(theta)",
            "M*l*cos(theta)*x'' + M*l^2*theta'' = M*g*l*sin(theta)", "mass_matrix (2 x 2):",
            "[M + m, M*l*cos(theta)]", "forcing (2 x 1):", "mass_matrix_full (4 x 4):",
            "forcing_full (4 x 1):", "momenta (2 x 1):", "T = ", "V = M*g*l*cos(theta)"]:
    check(f"eom text contains {key!r}", key in r.stdout, r.stdout[:300])
r = run("eom", CART, "--format", "json")
try:
    doc = json.loads(r.stdout)
    ok = all(k in doc for k in ["coordinates", "multipliers", "equations", "mass_matrix",
                                "forcing", "mass_matrix_full", "forcing_full", "momenta", "T", "V"])
    check("eom json has every key", ok, str(doc.keys()))
    check("eom json mass matrix", doc["mass_matrix"][0] == ["M + m", "M*l*cos(theta)"],
          str(doc["mass_matrix"]))
except ValueError as e:
    check("eom json parses", False, str(e))
r = run("eom", CART, "--format", "latex")
tex = r.stdout
check("eom latex is a document", tex.startswith("\\documentclass") and "\\end{document}" in tex)
check("eom latex uses amsmath environments", "\\begin{bmatrix}" in tex and "\\begin{align*}" in tex)
check("eom latex braces balance", tex.count("{") == tex.count("}"))
check("eom latex escapes underscores in text", "mass\\_matrix" in tex)

# ---- eval against Gros's formulas at random states ----
rng = random.Random(3)
for k in range(3):
    q = [rng.uniform(-1, 1), rng.uniform(-3, 3)]
    qd = [rng.uniform(-2, 2), rng.uniform(-2, 2)]
    state = f"x={q[0]!r}, theta={q[1]!r}, x'={qd[0]!r}, theta'={qd[1]!r}"
    r = run("eval", CART, "--state", state, "--json")
    try:
        d = json.loads(r.stdout)
    except ValueError:
        check(f"eval json parses ({k})", False, r.stdout[:200] + r.stderr[:200])
        continue
    A, b, qdd, T, V, p = cart_reference(q, qd)
    keys = ["coordinates", "multipliers", "t", "q", "qd", "qdd", "lam", "constraint_forces",
            "mass_matrix", "forcing", "mass_matrix_full", "forcing_full", "T", "V", "momenta"]
    check(f"eval json schema ({k})", all(x in d for x in keys), str(list(d)))
    check(f"eval M ({k})", all(close(d["mass_matrix"][i][j], A[i][j]) for i in range(2) for j in range(2)))
    check(f"eval f ({k})", all(close(d["forcing"][i], b[i]) for i in range(2)))
    check(f"eval qdd ({k})", all(close(d["qdd"][i], qdd[i], 1e-10) for i in range(2)), str(d["qdd"]) + str(qdd))
    check(f"eval T, V ({k})", close(d["T"], T) and close(d["V"], V))
    check(f"eval momenta ({k})", all(close(d["momenta"][i], p[i]) for i in range(2)))
    full = d["mass_matrix_full"]
    check(f"eval mass_matrix_full ({k})", len(full) == 4 and full[0][0] == 1 and
          close(full[2][3], A[0][1]) and d["forcing_full"][0] == qd[0])

# ---- --set and --t ----
r = run("eval", CART, "--set", "M=2", "--set", "l=1.5", "--state", "theta=0.4", "--json")
d = json.loads(r.stdout)
A, b, qdd, T, V, p = cart_reference([0, 0.4], [0, 0], M=2, l=1.5)
check("--set overrides parameters", close(d["qdd"][1], qdd[1], 1e-10), str(d["qdd"]))
r = run("eval", CART, "--t", "2.5", "--json")
check("--t is reported", json.loads(r.stdout)["t"] == 2.5)
r = run("eval", CART, "--json")
check("unset state comes from initial", json.loads(r.stdout)["q"] == [0, 0.1])

# ---- numbers: the shortest form that reads back to the same double ----
r = run("eval", CART, "--state", "theta=0.1", "--json")
check("numbers print in their shortest exact form", '"q": [0, 0.1]' in r.stdout, r.stdout[:200])
d = json.loads(r.stdout)
r2 = run("eval", CART, "--state", "theta=%r" % d["qdd"][1])
check("printed numbers read back exactly", ("theta = %r" % d["qdd"][1]) in r2.stdout, r2.stdout)

# ---- a 200-character coordinate name in --state (no fixed-size buffer) ----
import tempfile
with tempfile.TemporaryDirectory() as tmp:
    long = "q_" + "a" * 200
    path = os.path.join(tmp, "long.lag")
    with open(path, "w") as fh:
        fh.write(f"coordinates {long}\nparameters m = 1, k = 2\nT = 1/2*m*{long}'^2\n"
                 f"V = 1/2*k*{long}^2\n")
    r = run("eval", path, "--state", f"{long}=0.5", "--json")
    ok = r.returncode == 0 and json.loads(r.stdout)["qdd"] == [-1]
    check("--state takes a 200-character name", ok, r.stdout + r.stderr)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
