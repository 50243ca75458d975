#!/usr/bin/env python3
"""Numbers and NAME=VALUE lists on the command line (--state, --set, --at): only
finite decimal numbers, each name once, every --set name known to the model
in every subcommand; mistakes are exit 2 with the text and a caret under the
offending part. usage: test_cli_values.py LAGRANGE [SANITIZED_LAGRANGE]"""
import json
import os
import subprocess
import sys
import tempfile

BIN = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CART = os.path.join(ROOT, "examples", "cart_pendulum.lag")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail[:600]}")


def run(*args):
    r = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)
    if "Sanitizer" in r.stderr or "runtime error" in r.stderr:
        check("sanitizer-clean " + " ".join(args), False, r.stderr)
    return r


def caret_under(stderr, text, offending):
    """The message shows `text` and a caret under the first byte of `offending`."""
    lines = stderr.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line == "  " + text:
            return lines[i + 1] == "  " + " " * text.index(offending) + "^"
    return False


# ---- --state: bad values are exit 2, pointed at --------------------------------------
for text, offending, what in [
        ("x=nan", "nan", "not a finite decimal number"),
        ("theta=0.1, x=inf", "inf", "not a finite decimal number"),
        ("x=0x10", "0x10", "not a finite decimal number"),
        ("x=1e400", "1e400", "not a finite decimal number"),
        ("x=, theta=1", ", theta", "not a finite decimal number"),
        ("x=1, x=2", "x=2", "'x' is given twice"),
        ("theta'=1, x=0, theta'=2", "theta'=2", "'theta'' is given twice"),
        ("x''=1", "x''", "at most one prime"),
        ("x 1", "1", "expected '='"),
        ("=1", "=1", "expected NAME=VALUE")]:
    r = run("eval", CART, "--state", text, "--json")
    check(f"--state '{text}' is exit 2", r.returncode == 2 and not r.stdout, r.stderr)
    check(f"--state '{text}' says {what}", what in r.stderr, r.stderr)
    check(f"--state '{text}' points at '{offending}'", caret_under(r.stderr, text, offending),
          r.stderr)

# ---- linearize --at: the same rules -------------------------------------------------------
for text, offending, what in [
        ("theta=nan", "nan", "not a finite decimal number"),
        ("theta=0x1", "0x1", "not a finite decimal number"),
        ("theta=", "", "not a finite decimal number"),
        ("theta=0.1, theta=0.2", "theta=0.2", "'theta' is given twice")]:
    r = run("linearize", CART, "--at", text)
    check(f"--at '{text}' is exit 2 and says {what}",
          r.returncode == 2 and not r.stdout and what in r.stderr, r.stderr)
    if offending:
        check(f"--at '{text}' points at '{offending}'", caret_under(r.stderr, text, offending),
              r.stderr)

# ---- --state: good values still work ----------------------------------------------------
r = run("eval", CART, "--state", " x = -1.5e-1 , theta'=.5, theta=2.,", "--json")
ok = r.returncode == 0
d = json.loads(r.stdout) if ok else {}
check("--state accepts signs, exponents, '.5', '2.', blanks and a trailing comma",
      ok and d["q"] == [-0.15, 2.0] and d["qd"] == [0, 0.5], r.stderr + r.stdout[:300])
r = run("eval", CART, "--state", "", "--json")
check("an empty --state keeps the initial state", r.returncode == 0, r.stderr)

# ---- --set: values, duplicates, unknown names in every subcommand ---------------------------
for text, offending, what in [
        ("m=nan", "nan", "not a finite decimal number"),
        ("m=-inf", "-inf", "not a finite decimal number"),
        ("m=0x10", "0x10", "not a finite decimal number"),
        ("m=", "", "not a finite decimal number"),
        ("m=1, m=2", "m=2", "'m' is given twice")]:
    r = run("eom", CART, "--set", text)
    check(f"--set '{text}' is exit 2", r.returncode == 2 and not r.stdout, r.stderr)
    check(f"--set '{text}' says {what}", what in r.stderr, r.stderr)
    if offending:
        check(f"--set '{text}' points at '{offending}'", caret_under(r.stderr, text, offending),
              r.stderr)
r = run("eom", CART, "--set", "m=1", "--set", "m=2")
check("--set m twice is exit 2", r.returncode == 2 and "given twice" in r.stderr, r.stderr)
r = run("eval", CART, "--set", "m=2, M=1.5", "--json")
check("--set takes a list", r.returncode == 0, r.stderr)

with tempfile.TemporaryDirectory() as tmp:
    for sub, extra in [("eom", []), ("eval", []), ("linearize", []),
                       ("codegen", ["-o", os.path.join(tmp, "c.c")]),
                       ("simulate", ["--tf", "0.01", "--out", os.path.join(tmp, "s.csv")])]:
        r = run(sub, CART, "--set", "zz=1", *extra)
        check(f"{sub} --set zz=1 (unknown name) is exit 2",
              r.returncode == 2 and "no parameter or input named 'zz'" in r.stderr
              and not r.stdout, r.stderr)
    check("no output file after a usage error", not os.listdir(tmp), str(os.listdir(tmp)))

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
