#!/usr/bin/env python3
"""Issue 23's items for `linearize` and `equilibria`, through the command,
Python and (by parity) the C library, under both methods:

- `equilibria` on a model whose equations depend on t explicitly (the
  Kapitza pendulum, its pivot at a*cos(w*t)) warns on stderr that they
  do and names the --t used; the points and eigenvalues are those of the
  equations frozen there (the effective gravity g - a w^2 cos(w t)). A
  frame turning at w*t whose t cancels (the bead on a spinning hoop) and
  a model without t give no warning.
- `linearize --at` on a closed loop (a four-bar linkage): the text output
  lists the completed point (every coordinate and rate, the dependent
  ones marked and on the constraints) and the branch (the guess the
  dependent coordinates were solved from); the crossed assembly when its
  values are given; a warning on stderr when the accelerations there are
  not zero, none at an equilibrium that `equilibria` found.
- Python's reports (linearize_report, equilibria_report, equilibria) are
  the command's, byte for byte, with the same warnings.

usage: test_lin_issue23.py LAGRANGE [LAGRANGE_SANITIZED]"""
import json, math, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
try:
    import numpy as np  # noqa: F401
except ImportError:  # the python3 on PATH may lack NumPy: Debian's has it
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path.insert(0, os.path.join(ROOT, "python"))
import lagrange  # noqa: E402

BIN = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
KAPITZA = os.path.join(HERE, "models", "kapitza_pendulum.lag")
FOURBAR = os.path.join(HERE, "models", "four_bar_lin.lag")
HOOP = os.path.join(ROOT, "examples", "bead_spinning_hoop.lag")
CART = os.path.join(HERE, "models", "cart_pendulum_force.lag")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:600]))


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)


# ---- the Kapitza pendulum: equations that depend on t ------------------------------------
g, a, w, l = 9.81, 0.05, 200.0, 1.0
for t in (0.0, 0.3):
    targs = [] if t == 0 else ["--t", repr(t)]
    r = run("equilibria", KAPITZA, "--json", *targs)
    check(f"kapitza --t {t}: exit 0", r.returncode == 0, r.stderr)
    check(f"kapitza --t {t}: stderr says the equations depend on t",
          "depend on t" in r.stderr, r.stderr)
    check(f"kapitza --t {t}: ... and names --t and the time used",
          "--t" in r.stderr and f"t = {t:g}" in r.stderr, r.stderr)
    d = json.loads(r.stdout) if r.returncode == 0 else {"equilibria": []}
    geff = g - a * w * w * math.cos(w * t)   # the pivot's acceleration frozen at t
    rate = math.sqrt(abs(geff) / l)
    bottom = [e for e in d["equilibria"] if abs(e["q"][0]) < 1e-9]
    check(f"kapitza --t {t}: the bottom's eigenvalues are +-sqrt(|g - a w^2 cos(w t)|/l)",
          bottom and all(abs(math.hypot(*ev) - rate) < 1e-9 * rate
                         for ev in bottom[0]["eigenvalues"]), (bottom, rate))
    check(f"kapitza --t {t}: the bottom is {'unstable' if geff < 0 else 'marginal'} there",
          bottom and bottom[0]["stability"] == ("unstable" if geff < 0 else "marginal"), bottom)
    for method in ("lagrange", "kane"):
        m = lagrange.load(KAPITZA, method=method)
        rt = run("equilibria", KAPITZA, "--method", method, *targs)
        text = m.equilibria_report(t=t)
        check(f"kapitza --t {t} --method {method}: Python's report is the command's",
              rt.returncode == 0 and text == rt.stdout, text + rt.stdout)
        check(f"kapitza --t {t} --method {method}: Python's warning is the command's (`t`: --t)",
              m.last_notes.replace("`t`", "--t") == rt.stderr, (m.last_notes, rt.stderr))
        e = m.equilibria(t=t)
        check(f"kapitza --t {t} --method {method}: equilibria() says time_dependent",
              e.time_dependent and e.t == t and "`t`" in (e.warning or ""), e.warning)
        check(f"kapitza --t {t} --method {method}: equilibria() as data equals the JSON",
              [list(x["q"]) for x in e] == [x["q"] for x in d["equilibria"]] and
              [x["stability"] for x in e] == [x["stability"] for x in d["equilibria"]],
              (e, d))

for model, why in ((HOOP, "a frame turning at w*t (t cancels)"), (CART, "no t")):
    r = run("equilibria", model)
    check(f"{os.path.basename(model)}: no warning ({why})",
          r.returncode == 0 and "depend on t" not in r.stderr, r.stderr)
    e = lagrange.load(model).equilibria()
    check(f"{os.path.basename(model)}: equilibria().time_dependent is False ({why})",
          not e.time_dependent and e.warning is None, e.warning)

# ---- the four-bar linkage: the completed point, the branch, not an equilibrium ----------
A_, B_, C_, D_ = 0.4, 1.2, 1.0, 1.1


def loop_residual(th2, th3, th4):
    return max(abs(A_ * math.cos(th2) + B_ * math.cos(th3) - C_ * math.cos(th4) - D_),
               abs(A_ * math.sin(th2) + B_ * math.sin(th3) - C_ * math.sin(th4)))


def point_of(text):
    """{name: value} and the dependent names from the text's completed point."""
    vals, dep = {}, set()
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("q:") or line.startswith("q':"):
            for item in line.split(":", 1)[1].split(","):
                name, v = item.split("=")
                v = v.strip()
                if v.endswith("(dependent)"):
                    dep.add(name.strip())
                    v = v[:-len("(dependent)")]
                vals[name.strip()] = float(v)
    return vals, dep


INITIAL = (0.5218809975770102, 1.6305723011059852)     # the open assembly at th2 = pi/2
CROSSED = (-1.2194230047448242, -2.328114308273799)    # the crossed one
for method in ("lagrange", "kane"):
    tag = f"four-bar --method {method}"
    m = lagrange.load(FOURBAR, method=method)
    r = run("linearize", FOURBAR, "--method", method, "--at", "th2=1.2")
    check(f"{tag} --at th2=1.2: exit 0", r.returncode == 0, r.stderr)
    vals, dep = point_of(r.stdout)
    check(f"{tag}: the text lists the completed point",
          "operating point (completed onto the constraints):" in r.stdout and
          set(vals) == {"th2", "th3", "th4", "th2'", "th3'", "th4'"}, r.stdout)
    check(f"{tag}: th3, th4 and their rates are marked dependent",
          dep == {"th3", "th4", "th3'", "th4'"}, dep)
    check(f"{tag}: the completed point is on the loop (th2 = 1.2 kept)",
          vals.get("th2") == 1.2 and loop_residual(vals["th2"], vals["th3"], vals["th4"]) < 1e-12,
          vals)
    check(f"{tag}: the branch line names the guess (the model's initial th3, th4)",
          f"branch: th3, th4 solved by Newton's method from th3 = {INITIAL[0]!r}, "
          f"th4 = {INITIAL[1]!r}" in r.stdout, r.stdout)
    check(f"{tag}: the open assembly near the guess", vals.get("th3", 0) > 0 and vals["th4"] > 0,
          vals)
    j = run("linearize", FOURBAR, "--method", method, "--at", "th2=1.2", "--json")
    dj = json.loads(j.stdout) if j.returncode == 0 else {}
    check(f"{tag}: the text's point is the JSON's q0, qd0",
          dj.get("q0") == [vals.get(c) for c in ("th2", "th3", "th4")] and
          dj.get("qd0") == [vals.get(c + "'") for c in ("th2", "th3", "th4")], (dj, vals))
    check(f"{tag}: not an equilibrium: a warning on stderr naming the acceleration",
          "warning: the operating point is not an equilibrium" in r.stderr and "''" in r.stderr,
          r.stderr)
    # the crossed assembly, given consistently
    at = f"th2=1.5707963267948966, th3={CROSSED[0]!r}, th4={CROSSED[1]!r}"
    r = run("linearize", FOURBAR, "--method", method, "--at", at)
    vals, _ = point_of(r.stdout)
    check(f"{tag}: the crossed assembly when given: its point and branch",
          r.returncode == 0 and vals.get("th3", 1) < 0 and vals["th4"] < 0 and
          f"from th3 = {CROSSED[0]!r}, th4 = {CROSSED[1]!r}" in r.stdout, r.stdout + r.stderr)
    # an equilibrium equilibria found: no warning
    eq = json.loads(run("equilibria", FOURBAR, "--json").stdout)["equilibria"]
    stable = [e for e in eq if e["stability"] == "marginal"]
    at = ", ".join(f"{c}={v!r}" for c, v in zip(("th2", "th3", "th4"), stable[0]["q"]))
    r = run("linearize", FOURBAR, "--method", method, "--at", at)
    check(f"{tag}: at an equilibrium equilibria found, no warning",
          r.returncode == 0 and "not an equilibrium" not in r.stderr, r.stderr)
    # Python: the same reports and notes
    for kw, extra in (({"at": {"th2": 1.2}}, ["--at", "th2=1.2"]),
                      ({"at": {"th2": 1.2}, "format": "json"}, ["--at", "th2=1.2", "--json"]),
                      ({}, [])):
        r = run("linearize", FOURBAR, "--method", method, *extra)
        text = m.linearize_report(**kw)
        check(f"{tag} {' '.join(extra)}: Python's report and notes are the command's",
              r.returncode == 0 and text == r.stdout and m.last_notes == r.stderr,
              (text[:300], r.stdout[:300], m.last_notes, r.stderr))

# an unconstrained model's text has no point block (unchanged)
r = run("linearize", CART, "--at", "theta=0")
check("cart: no point block without constraints, no warning at the equilibrium",
      r.returncode == 0 and "operating point" not in r.stdout and r.stderr == "", r.stdout + r.stderr)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
