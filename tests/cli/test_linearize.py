#!/usr/bin/env python3
"""`lagrange linearize` and `lagrange equilibria` against textbook results:
the driven cart pendulum's A and B in closed form and its open-loop poles,
the bead on a spinning hoop (equilibria at acos(g/(R w^2)) above the
critical speed, the bottom's stability switching there), the pendulum
(bottom marginal, top unstable); the CLI.md JSON keys; bad input.

usage: test_linearize.py LAGRANGE [LAGRANGE_SANITIZED]"""
import json, math, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BIN = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
CART = os.path.join(HERE, "models", "cart_pendulum_force.lag")
HOOP = os.path.join(ROOT, "examples", "bead_spinning_hoop.lag")
BOWL = os.path.join(ROOT, "examples", "particle_bowl.lag")
P3D = os.path.join(ROOT, "examples", "pendulum_3d_cartesian.lag")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:600]))


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)


def close(a, b, tol=1e-12):
    return abs(a - b) <= tol * max(1.0, abs(b))


# ---- the driven cart pendulum: A, B in closed form --------------------------
m, M, l, g, b = 1.0, 0.5, 0.8, 9.81, 0.1
r = run("linearize", CART, "--at", "theta=0", "--json")
check("cart: exit 0", r.returncode == 0, r.stderr)
d = json.loads(r.stdout) if r.returncode == 0 else {}
for key in ["state", "inputs", "dependent", "x0", "r0", "A", "B", "eigenvalues"]:
    check(f"cart: JSON has '{key}'", key in d)
A_ref = [[0, 0, 1, 0], [0, 0, 0, 1],
         [0, -M * g / m, -b / m, 0],
         [0, (M + m) * g / (m * l), b / (m * l), 0]]
B_ref = [[0], [0], [1 / m], [-1 / (m * l)]]
check("cart: state names", d.get("state") == ["x", "theta", "x'", "theta'"], d.get("state"))
check("cart: inputs", d.get("inputs") == ["F"], d.get("inputs"))
check("cart: A in closed form", all(close(x, y) for ra, rb in zip(d.get("A", []), A_ref)
                                     for x, y in zip(ra, rb)), d.get("A"))
check("cart: B in closed form", all(close(x, y) for ra, rb in zip(d.get("B", []), B_ref)
                                     for x, y in zip(ra, rb)), d.get("B"))
# open-loop poles: det(sI - A) = s (s^3 + (b/m) s^2 - (M+m) g/(m l) s - b g/(m l))
ev = sorted(d.get("eigenvalues", []))
poly = lambda s: s ** 3 + b / m * s ** 2 - (M + m) * g / (m * l) * s - b * g / (m * l)
check("cart: four eigenvalues, all real", len(ev) == 4 and all(abs(e[1]) < 1e-12 for e in ev), ev)
check("cart: eigenvalues are the characteristic polynomial's roots",
      all(abs(e[0]) < 1e-12 or abs(poly(e[0])) < 1e-9 for e in ev), ev)
check("cart: one unstable pole (the inverted pendulum)", sum(e[0] > 1e-9 for e in ev) == 1, ev)
r = run("linearize", CART, "--at", "theta=0")
check("cart: text output lists A and B", r.returncode == 0 and "A (4 x 4)" in r.stdout and
      "B (4 x 1)" in r.stdout, r.stdout + r.stderr)
r = run("linearize", CART, "--at", "theta=0", "--method", "kane", "--json")
dk = json.loads(r.stdout) if r.returncode == 0 else {}
check("cart: Kane's method gives the same A", dk.get("A") and all(
    close(x, y, 1e-10) for ra, rb in zip(dk["A"], d["A"]) for x, y in zip(ra, rb)), r.stderr)

# ---- the bead on a spinning hoop --------------------------------------------
R_, gh = 0.5, 9.81
wc = math.sqrt(gh / R_)
for w, label in [(0.9 * wc, "below"), (1.1 * wc, "above"), (6.0, "at w = 6")]:
    r = run("equilibria", HOOP, "--set", f"w={w!r}", "--json")
    d = json.loads(r.stdout) if r.returncode == 0 else {"equilibria": []}
    eqs = d["equilibria"]
    q = [e["q"][0] for e in eqs]
    stab = {round(e["q"][0], 9): e["stability"] for e in eqs}
    if w < wc:
        check(f"hoop {label} the critical speed: bottom and top only", len(eqs) == 2 and
              any(abs(x) < 1e-9 for x in q) and any(abs(x - math.pi) < 1e-9 for x in q), q)
        check(f"hoop {label}: the bottom is stable", stab.get(0.0) == "stable", stab)
    else:
        th = math.acos(gh / (R_ * w * w))
        check(f"hoop {label}: equilibria at +-acos(g/(R w^2)) = {th:.6f}", len(eqs) == 4 and
              any(abs(x - th) < 1e-9 for x in q) and any(abs(x + th) < 1e-9 for x in q), q)
        check(f"hoop {label}: the bottom is unstable", stab.get(0.0) == "unstable", stab)
        check(f"hoop {label}: the side equilibria are stable",
              stab.get(round(th, 9)) == "stable" and stab.get(round(-th, 9)) == "stable", stab)
    check(f"hoop {label}: the top is unstable", stab.get(round(math.pi, 9)) == "unstable", stab)
    check(f"hoop {label}: angles in (-pi, pi]", all(-math.pi < x <= math.pi for x in q), q)

# ---- the undamped pendulum: bottom marginal, top unstable -------------------
r = run("equilibria", HOOP, "--set", "w=0", "--set", "c=0", "--json")
d = json.loads(r.stdout) if r.returncode == 0 else {"equilibria": []}
stab = {round(e["q"][0], 9): e["stability"] for e in d["equilibria"]}
check("pendulum: bottom marginal, top unstable",
      stab == {0.0: "marginal", round(math.pi, 9): "unstable"}, stab)
check("pendulum: JSON keys", set(d) >= {"coordinates", "free", "equilibria"}, d)

# ---- cyclic coordinates are free ---------------------------------------------
r = run("equilibria", CART, "--json")
d = json.loads(r.stdout) if r.returncode == 0 else {}
check("cart: x is free (cyclic)", d.get("free") == ["x"], r.stdout + r.stderr)
check("cart: two equilibria (up and down)", len(d.get("equilibria", [])) == 2, d)

# ---- constrained: dependent variables and consistency -------------------------
r = run("linearize", P3D, "--at", "x=0.3, y=0.2", "--json")
d = json.loads(r.stdout) if r.returncode == 0 else {}
check("3D pendulum: z and z' are dependent", d.get("dependent") == ["z", "z'"], r.stdout + r.stderr)
r = run("linearize", P3D, "--at", "y=0.2, z=-0.5", "--independent", "y, z", "--json")
d = json.loads(r.stdout) if r.returncode == 0 else {}
check("3D pendulum: --independent chooses the state", d.get("state") == ["y", "z", "y'", "z'"],
      r.stdout + r.stderr)
r = run("linearize", P3D, "--at", "x=0.3, y=0.2, z=0.5")
check("an inconsistent given value is exit 1 naming it", r.returncode == 1 and "z = 0.5" in r.stderr,
      r.stderr)
check("  ... with file:line:col", r.stderr.startswith(P3D + ":"), r.stderr)
r = run("linearize", BOWL, "--at", "q1=0, q2=0, q3=0")
check("singular constraint Jacobian: exit 1 with advice", r.returncode == 1 and
      "--independent" in r.stderr, r.stderr)
r = run("linearize", BOWL, "--at", "zz=1")
check("unknown name in --at: exit 2", r.returncode == 2 and "zz" in r.stderr, r.stderr)
r = run("linearize", BOWL, "--independent", "q1, nope")
check("unknown name in --independent: exit 2", r.returncode == 2 and "nope" in r.stderr, r.stderr)
r = run("equilibria", HOOP, "--box", "theta=1:0")
check("empty box: exit 2", r.returncode == 2 and "--box" in r.stderr, r.stderr)
r = run("equilibria", HOOP, "--box", "nope=0:1")
check("unknown name in --box: exit 2", r.returncode == 2 and "nope" in r.stderr, r.stderr)
r = run("equilibria", HOOP, "--box", "theta=0.5:3.2", "--json")
d = json.loads(r.stdout) if r.returncode == 0 else {"equilibria": []}
check("--box limits the search", [round(e["q"][0], 6) for e in d["equilibria"]] ==
      [round(math.acos(9.81 / (0.5 * 36)), 6), round(math.pi, 6)], d)

# ---- modes: frequency, damping ratio, and shapes that are eigenvectors -----
DRP = os.path.join(ROOT, "examples", "double_rod_pendulum.lag")
r = run("linearize", DRP, "--json")
d = json.loads(r.stdout) if r.returncode == 0 else {"modes": [], "A": []}
check("double rod pendulum: three modes", len(d["modes"]) == 3, r.stderr)
for k, mode in enumerate(d["modes"]):
    lam = complex(-mode["damping_ratio"] * mode["natural_frequency"], mode["damped_frequency"])
    phi = [complex(a, b) for a, b in mode["shape"]]
    v = phi + [lam * x for x in phi]          # x = [q; q'] along the mode
    Av = [sum(complex(a) * x for a, x in zip(row, v)) for row in d["A"]]
    err = max(abs(a - lam * x) for a, x in zip(Av, v))
    check(f"mode {k}: A [phi; lam phi] = lam [phi; lam phi] (err {err:.1e})", err < 1e-9)
    check(f"mode {k}: the shape's largest component is 1", abs(max(phi, key=abs) - 1) < 1e-12)

# ---- Kane's own speeds: A against central differences of eval --method kane ----
def kane_fd(model, at):
    r = run("linearize", model, "--method", "kane", "--json", *(["--at", at] if at else []))
    if r.returncode:
        return 1.0, r.stderr
    d = json.loads(r.stdout)
    names = json.loads(run("eom", model, "--format", "json").stdout)["coordinates"]
    S, x0, eps = d["state"], d["x0"], 1e-6
    nq = sum(1 for s_ in S if s_ in names)

    def f(x):
        st = ", ".join(f"{a}={v!r}" for a, v in zip(S, x))
        e = json.loads(run("eval", model, "--method", "kane", "--json", "--state", st).stdout)
        return [e["qd"][names.index(a)] for a in S[:nq]] + e["ud"]
    worst = 0.0
    for c in range(len(S)):
        a, b = list(x0), list(x0)
        a[c] += eps
        b[c] -= eps
        fa, fb = f(a), f(b)
        for row in range(len(S)):
            fd = (fa[row] - fb[row]) / (2 * eps)
            worst = max(worst, abs(fd - d["A"][row][c]) / (1 + abs(fd)))
    return worst, ""


for model, at in [(os.path.join(ROOT, "examples", "kane_rigid_body.lag"),
                   "psi=0.3, theta=0.2, phi=0.1, psi'=0.5, theta'=0.2, phi'=-0.3"),
                  (os.path.join(HERE, "models", "rolling_disk_speeds.lag"), "psi=0.3, psi'=0.7, phi'=1"),
                  (os.path.join(HERE, "models", "rolling_disk8.lag"), "")]:
    err, why = kane_fd(model, at)
    check(f"--method kane, {os.path.basename(model)}: A in Kane's speeds matches finite differences "
          f"(worst {err:.1e})", err < 1e-7, why)

# ---- --symbolic: the expressions evaluate to the numeric A and B -------------
def symbolic_matches(model, at, params):
    import sympy as sm
    r = run("linearize", model, "--symbolic", "--format", "json", "--at", at)
    n = run("linearize", model, "--json", "--at", at)
    if r.returncode or n.returncode:
        return False, r.stderr + n.stderr
    ds, dn = json.loads(r.stdout), json.loads(n.stdout)
    names = json.loads(run("eom", model, "--format", "json").stdout)["coordinates"]
    vals = dict(params)
    for c, v in zip(names, dn["q0"]):
        vals[c] = v
    for c, v in zip(names, dn["qd0"]):
        vals[c + "_d"] = v
    for i, v in zip(dn["inputs"], dn["r0"]):
        vals[i] = v
    def num(expr):
        e = sm.sympify(expr.replace("^", "**").replace("'", "_d"), locals={k: sm.Symbol(k) for k in vals})
        return float(e.subs({sm.Symbol(k): v for k, v in vals.items()}))
    worst = 0.0
    for key in ("A", "B"):
        for rs, rn in zip(ds[key], dn[key]):
            for a, b in zip(rs, rn):
                worst = max(worst, abs(num(a) - b) / max(1.0, abs(b)))
    return worst < 1e-10 and ds["state"] == dn["state"], f"worst {worst}"


try:
    import sympy  # noqa: F401
    ok, why = symbolic_matches(CART, "theta=0.4, x'=0.3, theta'=-0.2",
                               {"m": 1.0, "M": 0.5, "l": 0.8, "g": 9.81, "b": 0.1})
    check("--symbolic: the driven cart's A and B equal the numeric ones", ok, why)
    ok, why = symbolic_matches(BOWL, "q1=0.3, q2=0.2, q1'=0.1, q2'=-0.4", {"m": 1.0, "g": 9.81, "r": 1.0})
    check("--symbolic: the bowl's (constrained) A equals the numeric one", ok, why)
except ImportError:
    check("sympy available for the --symbolic check", False)
r = run("linearize", CART, "--symbolic", "--format", "latex")
check("--symbolic --format latex: bmatrix", r.returncode == 0 and "\\begin{bmatrix}" in r.stdout, r.stderr)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
