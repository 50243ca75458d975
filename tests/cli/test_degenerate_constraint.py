"""A constraint whose gradient vanishes where `--project` puts the start
(|p|^2 = l^2 with l = 0: a double root) is refused at its line under both
methods, instead of a run that drags the state back at steps of 1e-8
(Kane's method ground for minutes: found by test_hostile.py). A rod of
length 0.1 still runs.

Ends "N passed, N failed"."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
MODEL = os.path.join(ROOT, "examples", "pendulum_3d_cartesian.lag")
passed = failed = 0


def check(ok, what):
    global passed, failed
    passed += bool(ok)
    failed += not ok
    if not ok:
        print("FAIL " + what)


line = next(i + 1 for i, s in enumerate(open(MODEL)) if s.startswith("constraint"))
for method in ("lagrange", "kane"):
    args = [BIN, "simulate", MODEL, "--tf", "0.2", "--dt", "0.05", "--project", "--method", method]
    try:
        r = subprocess.run(args + ["--set", "l=0"], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        check(False, f"{method}: l = 0 still runs after 60 s")
        continue
    check(r.returncode == 1, f"{method}: l = 0 exits {r.returncode}: {r.stderr[-300:]}")
    check(re.search(rf"pendulum_3d_cartesian\.lag:{line}:\d+: constraint C1 is degenerate", r.stderr),
          f"{method}: the message names C1 at line {line}: {r.stderr[-300:]}")
    r = subprocess.run(args + ["--set", "l=0.1"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"{method}: l = 0.1 runs: {r.stderr[-300:]}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
