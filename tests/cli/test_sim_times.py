#!/usr/bin/env python3
"""`simulate` and `sweep` times the command refuses (exit 2, nothing on
standard output): --tf, --t0, --dt given as inf, nan or a number that
overflows a double, t0 >= tf, and a run of more rows than --max-rows; the
message names the option and says a finite number is needed, and a huge
row count prints as a number, not 300 digits. The library's and Python's
side of the same checks: tests/unit/test_api_bounds.c,
python/tests/test_arguments.py.

usage: test_sim_times.py LAGRANGE [SANITIZED_LAGRANGE]"""
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CART = os.path.join(ROOT, "examples", "cart_pendulum.lag")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:800]))


def run(L, *args):
    r = subprocess.run([L, *args], capture_output=True, text=True, timeout=120)
    if "Sanitizer" in r.stderr or "runtime error" in r.stderr:
        check(f"sanitizer-clean {args}", False, r.stderr)
    return r


def suite(L, tag):
    for cmd in (["simulate", CART], ["sweep", CART, "--vary", "l=0.5:1:2"]):
        name = cmd[0]
        for opt in ("--tf", "--t0", "--dt"):
            for val in ("inf", "-inf", "nan", "1e999", "Infinity"):
                r = run(L, *cmd, opt, val)
                check(f"{tag}: {name} {opt} {val}: exit 2 naming {opt}, a finite number",
                      r.returncode == 2 and r.stdout == "" and opt in r.stderr
                      and "finite" in r.stderr and f"'{val}'" in r.stderr,
                      (r.returncode, r.stderr))
        r = run(L, *cmd, "--t0", "2", "--tf", "2")
        check(f"{tag}: {name} t0 = tf: exit 2", r.returncode == 2 and "t0 < tf" in r.stderr,
              r.stderr)
        r = run(L, *cmd, "--t0", "3", "--tf", "1")
        check(f"{tag}: {name} t0 > tf: exit 2", r.returncode == 2 and "t0 < tf" in r.stderr,
              r.stderr)
    r = run(L, "simulate", CART, "--tf", "1e300")
    check(f"{tag}: 1e302 rows print as 1e+302, not 300 digits",
          r.returncode == 2 and "1e+302 rows" in r.stderr and len(r.stderr) < 300, r.stderr)
    r = run(L, "simulate", CART, "--tf", "1e308", "--t0", "-1e308")
    check(f"{tag}: tf - t0 past the doubles: refused by the row bound",
          r.returncode == 2 and "inf rows" in r.stderr and "--max-rows" in r.stderr, r.stderr)


if __name__ == "__main__":
    bins = sys.argv[1:] or [os.path.join(ROOT, "build", "lagrange")]
    for k, L in enumerate(bins[:2]):
        suite(L, "san" if k else "release")
    print(f"{passed} passed, {failed} failed")
