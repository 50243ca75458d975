#!/usr/bin/env python3
"""Issue 23: the energy balance simulate reports is right under both methods.

Every example and every tests/physics model is simulated under Lagrange's
and Kane's method at rtol = atol = 1e-10; on every row E = T + V (E = h
for a model given by `L =`), and E - W is conserved:
max |(E - W) - (E0 - W0)| relative to the energy scale (max |T| + |V|,
|E|, |W| over the rows) is below 1e-6. Kane's method with dependent
speeds read E from a speed slot (0.625 while T was 2.5) and W drifted with
no applied force. The conveyor x' = k*y: W is the integral of the
constraint's power lam1*k*y (trapezoid on a fine grid, to 1e-8), and the
summary names the affine constraint instead of "conservative: W = 0".

usage: test_energy_balance.py LAGRANGE [LAGRANGE_SAN]"""
import csv, glob, io, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + detail[:800]))


def simulate(model, method, *extra):
    r = subprocess.run([BIN, "simulate", model, "--method", method, "--rtol", "1e-10",
                        "--atol", "1e-10", *extra], capture_output=True, text=True, timeout=600)
    rows = list(csv.DictReader(io.StringIO(r.stdout))) if r.returncode == 0 else []
    return r, [{k: float(v) for k, v in row.items()} for row in rows]


def balance(rows):
    e0 = rows[0]["E"] - rows[0]["W"]
    scale = max(max(abs(r["T"]) + abs(r["V"]), abs(r["E"]), abs(r["W"])) for r in rows)
    drift = max(abs(r["E"] - r["W"] - e0) for r in rows)
    return drift / scale if scale > 0 else drift


models = sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag"))) + \
    sorted(glob.glob(os.path.join(ROOT, "tests", "physics", "*.lag")))
# (a model and method the command refuses, for a documented reason, is listed here)
for model in models:
    name = os.path.relpath(model, ROOT)
    with open(model) as fh:
        is_L = any(ln.lstrip().startswith("L =") for ln in fh)
    for method in ("lagrange", "kane"):
        r, rows = simulate(model, method)
        if r.returncode != 0 or not rows:
            check(f"{name} {method}: simulate", False, r.stderr)
            continue
        rel = balance(rows)
        check(f"{name} {method}: E - W conserved ({rel:.1e} of the energy scale)", rel < 1e-6,
              r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "")
        if not is_L:
            bad = max(abs(row["E"] - row["T"] - row["V"]) / max(1.0, abs(row["T"]) + abs(row["V"]))
                      for row in rows)
            check(f"{name} {method}: E = T + V on every row ({bad:.1e})", bad < 1e-12)

# The conveyor: W is the constraint's work, the integral of lam1 * k * y.
conv = os.path.join(ROOT, "tests", "physics", "conveyor.lag")
k = 0.5
for method in ("lagrange", "kane"):
    r, rows = simulate(conv, method, "--dt", "0.001")
    if not rows:
        check(f"conveyor {method}: simulate", False, r.stderr)
        continue
    check(f"conveyor {method}: the summary names the constraint's work",
          "affine velocity constraints" in r.stderr and "conservative" not in r.stderr, r.stderr)
    # lam1 = m x'' = m k y' (m = 1): the power is lam1 * x' = k^2 y y'
    work, worst = 0.0, 0.0
    for a, b in zip(rows, rows[1:]):
        pa, pb = k * k * a["y"] * a["y'"], k * k * b["y"] * b["y'"]
        work += (b["t"] - a["t"]) * (pa + pb) / 2
        worst = max(worst, abs(work - b["W"]))
    check(f"conveyor {method}: W = integral of the constraint power ({worst:.1e})", worst < 1e-8)
    # and in closed form: W(t) = k^2 (y^2 - y0^2) / 2
    y0 = rows[0]["y"]
    closed = max(abs(row["W"] - k * k * (row["y"] ** 2 - y0 ** 2) / 2) for row in rows)
    check(f"conveyor {method}: W = k^2 (y^2 - y0^2)/2 ({closed:.1e})", closed < 1e-8)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
