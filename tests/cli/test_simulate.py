#!/usr/bin/env python3
"""`lagrange simulate` against exact solutions and its failure modes:
harmonic oscillator, free fall, Kepler orbit (period and energy over 10
orbits), the cart pendulum's energy, constraint drift with and without
stabilization (3D Cartesian pendulum, delta robot, rolling sphere),
inconsistent initial states (refused, projected), a singular mass matrix
and a blow-up mid-run (exit 1 at the time, complete CSV so far), BDF,
IDA, Baumgarte, the plot, the JIT.

usage: test_simulate.py LAGRANGE [SANITIZED_LAGRANGE]"""
import csv, io, math, os, subprocess, sys, tempfile

BIN = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SIM = os.path.join(ROOT, "tests", "cli", "sim")
EX = os.path.join(ROOT, "examples")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:800]))


def sim(model, *args):
    r = subprocess.run([BIN, "simulate", model, *args], capture_output=True, text=True,
                       timeout=600)
    if "Sanitizer" in r.stderr or "runtime error" in r.stderr:
        check(f"sanitizer-clean {os.path.basename(model)} {args}", False, r.stderr)
    rows = list(csv.DictReader(io.StringIO(r.stdout))) if r.stdout else []
    return r, [{k: float(v) for k, v in row.items()} for row in rows]


def maxdev(rows, f):
    return max(abs(f(row)) for row in rows)


# ---- exact solutions ----
r, rows = sim(os.path.join(SIM, "oscillator.lag"), "--rtol", "1e-12", "--atol", "1e-12")
w = math.sqrt(8 / 2)
check("harmonic oscillator x = A cos(w t) to 1e-8",
      r.returncode == 0 and maxdev(rows, lambda p: p["x"] - 0.3 * math.cos(w * p["t"])) < 1e-8,
      r.stderr)
r, rows = sim(os.path.join(SIM, "oscillator.lag"), "--integrator", "bdf", "--rtol", "1e-10",
              "--atol", "1e-12")
check("BDF: the same oscillator to 1e-6",
      r.returncode == 0 and maxdev(rows, lambda p: p["x"] - 0.3 * math.cos(w * p["t"])) < 1e-6,
      r.stderr)
r, rows = sim(os.path.join(SIM, "free_fall.lag"))
check("free fall: exact parabola", r.returncode == 0 and maxdev(
    rows, lambda p: p["z"] - (10 + 3 * p["t"] - 9.81 * p["t"] ** 2 / 2)) < 1e-9 and maxdev(
    rows, lambda p: p["x"] - 2 * p["t"]) < 1e-9, r.stderr)

# Kepler: a = 1/(2/r0 - v0^2/k); period 2 pi sqrt(a^3/k); E = v0^2/2 - k/r0
r0, v0, k = 1.0, 1.2, 1.0
a = 1 / (2 / r0 - v0 ** 2 / k)
P = 2 * math.pi * math.sqrt(a ** 3 / k)
r, rows = sim(os.path.join(SIM, "kepler.lag"), "--tf", repr(10 * P), "--dt", repr(P / 200),
              "--rtol", "1e-12", "--atol", "1e-12")
E0 = v0 ** 2 / 2 - k / r0
check("Kepler: energy over 10 orbits to 1e-8 relative",
      r.returncode == 0 and maxdev(rows, lambda p: (p["E"] - E0) / E0) < 1e-8, r.stderr)
ends = [row for i, row in enumerate(rows) if i % 200 == 0 and i > 0]
check("Kepler: r returns to perihelion every period (10 orbits)",
      len(ends) == 10 and all(abs(p["r"] - r0) < 1e-6 for p in ends),
      [p["r"] for p in ends])
check("Kepler: theta advances 2 pi per period",
      len(ends) == 10 and abs(ends[-1]["theta"] - 20 * math.pi) < 1e-5, ends[-1:] )

r, rows = sim(os.path.join(EX, "cart_pendulum.lag"), "--rtol", "1e-12", "--atol", "1e-12")
E0 = rows[0]["E"] if rows else 1
check("cart pendulum: energy constant to 1e-8 relative",
      r.returncode == 0 and maxdev(rows, lambda p: (p["E"] - E0) / E0) < 1e-8, r.stderr)

# ---- constraint drift ----
pend = os.path.join(EX, "pendulum_3d_cartesian.lag")
r, rows = sim(pend, "--tf", "100")
check("3D pendulum over 100 s: |C| < 1e-8 by default (IDA)",
      r.returncode == 0 and maxdev(rows, lambda p: p["C1"]) < 1e-8, r.stderr)
r, rows = sim(pend, "--tf", "100", "--integrator", "dopri")
check("3D pendulum over 100 s: |C| < 1e-8 with Dormand-Prince and projection",
      r.returncode == 0 and maxdev(rows, lambda p: p["C1"]) < 1e-8, r.stderr)
# output every 1 s so the step size is the integrator's own choice
r, loose = sim(pend, "--tf", "100", "--dt", "1", "--stabilize", "none", "--rtol", "1e-6",
               "--atol", "1e-6")
check("3D pendulum without stabilization drifts visibly (|C| > 1e-5)",
      r.returncode == 0 and maxdev(loose, lambda p: p["C1"]) > 1e-5,
      maxdev(loose, lambda p: p["C1"]) if loose else r.stderr)
r, rows = sim(pend, "--tf", "100", "--dt", "1", "--stabilize", "baumgarte:5,5", "--rtol",
              "1e-6", "--atol", "1e-6")
check("Baumgarte keeps |C| below the unstabilized drift",
      r.returncode == 0 and loose and maxdev(rows, lambda p: p["C1"]) < maxdev(loose, lambda p: p["C1"]),
      r.stderr)
r, rows = sim(pend, "--tf", "20", "--integrator", "ida", "--rtol", "1e-12", "--atol", "1e-12")
check("IDA (GGL) at tolerance 1e-12 keeps |C| < 1e-11",
      r.returncode == 0 and maxdev(rows, lambda p: p["C1"]) < 1e-11, r.stderr)
delta = os.path.join(EX, "delta_robot.lag")
r, rows = sim(delta, "--tf", "100", "--dt", "0.1")
check("delta robot over 100 s: |C| < 1e-8 by default",
      r.returncode == 0 and rows and max(maxdev(rows, lambda p, c=c: p[c]) for c in ("C1", "C2", "C3")) < 1e-8,
      r.stderr)
r, rows = sim(delta, "--tf", "100", "--dt", "1", "--stabilize", "none", "--rtol", "1e-6",
              "--atol", "1e-6")
check("delta robot without stabilization drifts visibly",
      r.returncode == 0 and rows and maxdev(rows, lambda p: p["C1"]) > 1e-6, r.stderr)
r, rows = sim(os.path.join(EX, "rolling_sphere.lag"), "--tf", "5")
check("rolling sphere keeps its nonholonomic constraints (< 1e-8)",
      r.returncode == 0 and rows and max(maxdev(rows, lambda p, c=c: p[c]) for c in ("C1", "C2", "C3")) < 1e-8,
      r.stderr)

# ---- initial consistency ----
bad = os.path.join(SIM, "inconsistent.lag")
r, rows = sim(bad)
check("inconsistent initial state refused with file:line:col and each residual",
      r.returncode == 1 and f"{bad}:10:16: the initial state violates constraint C1" in r.stderr
      and "velocities violate constraint C1" in r.stderr and not rows, r.stderr)
r, rows = sim(bad, "--project")
first = rows[0] if rows else {}
check("--project moves the state onto the constraint and says so",
      r.returncode == 0 and "projected x" in r.stderr and
      abs(first.get("x", 9) ** 2 + first.get("y", 9) ** 2 - 1) < 1e-10 and
      abs(first.get("x", 9) * first.get("x'", 9) + first.get("y", 9) * first.get("y'", 9)) < 1e-10,
      r.stderr)

# ---- failures mid-run: no FILE, the rows so far in FILE.partial.csv ----
for name, what in [("singular.lag", "singular"), ("blowup.lag", "finite")]:
    with tempfile.TemporaryDirectory() as tmp:
        out, part = os.path.join(tmp, "o.csv"), os.path.join(tmp, "o.partial.csv")
        r, _ = sim(os.path.join(SIM, name), "--out", out)
        ok = r.returncode == 1 and "at t = " in r.stderr and what in r.stderr
        ok = ok and not os.path.exists(out) and part in r.stderr
        rows = list(csv.reader(open(part))) if os.path.exists(part) else []
        ok = ok and len(rows) > 2 and all(len(x) == len(rows[0]) for x in rows)
        ok = ok and all(math.isfinite(float(v)) for x in rows[1:] for v in x)
        check(f"{name}: stops with the time, rows so far in o.partial.csv, no o.csv", ok,
              r.stderr)

# ---- plot, JIT, temporary files ----
before = {f for f in os.listdir("/tmp") if f.startswith("lagrange-")}
with tempfile.TemporaryDirectory() as tmp:
    svg = os.path.join(tmp, "p.svg")
    r, _ = sim(os.path.join(EX, "cart_pendulum.lag"), "--tf", "2", "--plot", svg, "--out",
               os.path.join(tmp, "c.csv"))
    text = open(svg).read() if os.path.exists(svg) else ""
    check("--plot writes an SVG with the coordinates, energy and axis labels",
          r.returncode == 0 and "<svg" in text and "theta" in text and "energy" in text, r.stderr)
r1, a = sim(os.path.join(EX, "cart_pendulum.lag"), "--tf", "2")
r2, b = sim(os.path.join(EX, "cart_pendulum.lag"), "--tf", "2", "--jit")
check("--jit gives the same trajectory as the tape",
      r2.returncode == 0 and "warning" not in r2.stderr and len(a) == len(b) and
      maxdev(list(zip(a, b)), lambda p: p[0]["theta"] - p[1]["theta"]) < 1e-9, r2.stderr)
after = {f for f in os.listdir("/tmp") if f.startswith("lagrange-")}
check("no temporary files left behind", after <= before, after - before)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
