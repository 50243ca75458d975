#!/usr/bin/env python3
"""bench/accuracy.py - the global error of `lagrange simulate`'s default
integrator on constrained models (issue 23).

For every constrained example and every tests/physics model, under both
methods: a run with the default settings (rtol = atol = 1e-10, the default
integrator) and a reference run at rtol = atol = 1e-13 (the default
integrator too, unless --ref-integrator), both 0..2 s with output every
0.01 s. The error is the largest difference over rows and rate columns,
relative to the largest rate (max |q'| over the reference's rows); it must
be at most 100 x rtol = 1e-8. Prints a Markdown table (and exits 1 when a
row misses the bound, with --check).

usage: bench/accuracy.py [LAGRANGE] [--check] [--ref-integrator NAME]"""
import csv, glob, io, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
args = [a for a in sys.argv[1:] if not a.startswith("--")]
BIN = args[0] if args else os.path.join(ROOT, "build", "lagrange")
CHECK = "--check" in sys.argv
REF_INT = None
if "--ref-integrator" in sys.argv:
    REF_INT = sys.argv[sys.argv.index("--ref-integrator") + 1]
RTOL = 1e-10
BOUND = 100 * RTOL


def run(model, method, *extra):
    t0 = time.time()
    r = subprocess.run([BIN, "simulate", model, "--method", method, "--t0", "0", "--tf", "2",
                        "--dt", "0.01", *extra], capture_output=True, text=True, timeout=900)
    wall = time.time() - t0
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed", wall
    rows = list(csv.reader(io.StringIO(r.stdout)))
    head, body = rows[0], [[float(v) for v in row] for row in rows[1:]]
    summary = [ln for ln in r.stderr.splitlines() if "simulated to" in ln]
    integ = summary[-1].split(" with ")[1].split(":")[0] if summary else "?"
    return (head, body, integ), None, wall


def constrained(model):
    with open(model) as fh:
        return any(ln.lstrip().startswith("constraint") for ln in fh)


models = [m for m in sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag"))) if constrained(m)]
models += sorted(glob.glob(os.path.join(ROOT, "tests", "physics", "*.lag")))
print(f"| model | method | default integrator | error (relative to max rate) | <= {BOUND:.0e} | "
      f"default run (s) |")
print("|---|---|---|---|---|---|")
bad = 0
for model in models:
    name = os.path.relpath(model, ROOT)
    for method in ("lagrange", "kane"):
        got, err, wall = run(model, method)
        ref_extra = ["--rtol", "1e-13", "--atol", "1e-13"]
        if REF_INT:
            ref_extra += ["--integrator", REF_INT]
        ref, rerr, _ = run(model, method, *ref_extra)
        if got is None or ref is None:
            print(f"| {name} | {method} | - | run failed: {(err or rerr)[:80]} | no | |")
            bad += 1
            continue
        head, rows, integ = got
        _, rrows, _ = ref
        rates = [i for i, h in enumerate(head) if h.endswith("'")]
        scale = max(max(abs(r[i]) for i in rates) for r in rrows) or 1.0
        e = max(abs(a[i] - b[i]) for a, b in zip(rows, rrows) for i in rates) / scale
        if len(rows) != len(rrows):
            e = float("inf")
        ok = e <= BOUND
        bad += not ok
        print(f"| {name} | {method} | {integ} | {e:.1e} | {'yes' if ok else 'NO'} | {wall:.2f} |")
sys.exit(1 if CHECK and bad else 0)
