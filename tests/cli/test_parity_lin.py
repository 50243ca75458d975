"""`lagrange linearize` and `lagrange equilibria` against the C library
through Python (lg_linearize_format, lg_equilibria, lg_equilibria_format):
for every example and every tests/cli/models/*.lag model, under both
methods, the command's stdout equals Python's report byte for byte (or
both fail), and what the command adds on stderr after the model's notes
is Python's notes:

- linearize: text and --json at the initial state; --symbolic (text)
  where it is cheap (at most CHEAP_NQ coordinates);
- equilibria: text and --json (the search is the expensive part: under
  both methods up to EQ_BOTH_NQ coordinates, under Lagrange's, which
  equilibria uses under either, up to EQ_NQ).

Runs itself under Debian's python3 (NumPy). Ends "N passed, N failed".

usage: test_parity_lin.py LAGRANGE [LAGRANGE_SANITIZED]"""
import glob
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy as np  # noqa: F401
except ImportError:  # the python3 on PATH may lack NumPy: Debian's has it
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path.insert(0, os.path.join(ROOT, "python"))
import lagrange  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
CHEAP_NQ = 6
EQ_NQ = 8
EQ_BOTH_NQ = 4
MODELS = sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag")) +
                glob.glob(os.path.join(ROOT, "tests", "cli", "models", "*.lag")))
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def same(what, r, fn, notes_of):
    """The command's run r against fn() (Python); notes_of(): Python's
    stderr lines, which must end the command's stderr."""
    try:
        text = fn()
        notes = notes_of()
    except Exception as e:  # noqa: BLE001
        check(r.returncode != 0, f"{what}: the command ran, Python raised {e}")
        return
    if r.returncode != 0:
        check(False, f"{what}: Python ran, the command failed: {r.stderr.strip()[:300]}")
        return
    check(text == r.stdout, f"{what}: the outputs differ\n--- command\n{r.stdout[:800]}"
                            f"\n--- python\n{text[:800]}")
    check(r.stderr.endswith(notes), f"{what}: stderr {r.stderr[-400:]!r} does not end with "
                                    f"Python's notes {notes!r}")


os.chdir(ROOT)  # the same (relative) name in both: messages name the model
for path in MODELS:
    name = os.path.relpath(path, ROOT)
    t0 = time.time()
    for method in ("lagrange", "kane"):
        try:
            m = lagrange.load(name, method=method)
        except Exception as e:  # noqa: BLE001
            r = run("linearize", path, "--method", method)
            check(r.returncode != 0, f"{name} --method {method}: the command ran, load raised {e}")
            continue
        for fmt, extra in (("text", []), ("json", ["--json"])):
            r = run("linearize", name, "--method", method, *extra)
            same(f"linearize {name} --method {method} {fmt}", r,
                 lambda: m.linearize_report(format=fmt), lambda: m.last_notes)
        if m.n <= CHEAP_NQ:
            r = run("linearize", name, "--method", method, "--symbolic")
            same(f"linearize {name} --method {method} --symbolic", r,
                 lambda: m.linearize_report(symbolic=True), lambda: m.last_notes)
        if m.n <= (EQ_NQ if method == "lagrange" else EQ_BOTH_NQ):
            for fmt, extra in (("text", []), ("json", ["--json"])):
                r = run("equilibria", name, "--method", method, *extra)
                same(f"equilibria {name} --method {method} {fmt}", r,
                     lambda: m.equilibria_report(format=fmt),
                     lambda: m.last_notes.replace("`t`", "--t"))
        m.close()
    if os.environ.get("PARITY_TIMES"):
        print(f"{name}: {time.time() - t0:.1f} s")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
