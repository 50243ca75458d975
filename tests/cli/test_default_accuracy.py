#!/usr/bin/env python3
"""Issue 23: the default integrator of a constrained model meets its
tolerance: bench/accuracy.py --check (every constrained example and
tests/physics model, both methods: the default run within 100 x rtol of a
run at 1e-13, over rows and rates after 2 s, relative to the largest rate).

usage: test_default_accuracy.py LAGRANGE [LAGRANGE_SAN]"""
import os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "accuracy.py"), BIN, "--check"],
                   capture_output=True, text=True, timeout=1200)
passed = failed = 0
for line in r.stdout.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) >= 5 and cells[4] in ("yes", "no", "NO"):
        ok = cells[4] == "yes"
        passed, failed = passed + ok, failed + (not ok)
        print(("PASS " if ok else "FAIL ") + f"{cells[0]} {cells[1]} ({cells[2]}): error {cells[3]} <= 1e-8")
if passed + failed == 0 or r.returncode != 0 and failed == 0:
    failed += 1
    print("FAIL bench/accuracy.py ran " + r.stderr[-400:])
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
