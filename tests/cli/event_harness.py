"""What the event, friction and contact tests share (test_events.py,
test_friction.py, test_contact.py): the binary under test, NumPy (the
script is run again under Debian's python3 when this one has none), the
tally of checks, and reading the CSV of `simulate` with its event rows."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy as np
except ImportError:
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path.insert(0, os.path.join(ROOT, "python"))
import lagrange  # noqa: E402,F401  (the tests use it through this module)

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
TOL = ["--rtol", "1e-10", "--atol", "1e-12"]
_tally = [0, 0]


def check(ok, what):
    """Count a check (print it when it fails); returns ok."""
    _tally[0 if ok else 1] += 1
    if not ok:
        print("FAIL " + what)
    return ok


def finish():
    print(f"{_tally[0]} passed, {_tally[1]} failed")
    sys.exit(1 if _tally[1] else 0)


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT)


def csv(text):
    lines = text.strip().splitlines()
    return lines[0].split(","), np.array([[float(x) for x in ln.split(",")] for ln in lines[1:]])


def pairs(a):
    """Indices i with a[i, 0] == a[i + 1, 0]: the rows before and after an event."""
    return [i for i in range(len(a) - 1) if a[i, 0] == a[i + 1, 0]]


def model_file(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".lag", delete=False)
    f.write(text)
    f.close()
    return f.name


def simulate(path, what, *args):
    """(header, rows, result) of `simulate PATH` at TOL; (None, None, r) and a failed check when it fails."""
    r = run("simulate", path, *TOL, *args)
    if r.returncode != 0:
        check(False, f"{what}: {r.stderr.strip()[-300:]}")
        return None, None, r
    hdr, a = csv(r.stdout)
    return hdr, a, r


def same_run(path, method, label):
    """simulate PATH through the command and through the library (Python) at TOL: the same
    rows, bit for bit (a failed check if not). Returns (the library's result, the rows, a label)."""
    what = f"parity {label} --method {method}"
    r = run("simulate", path, "--method", method, *TOL)
    hdr, a = csv(r.stdout)
    s = lagrange.load(path, method=method).simulate(rtol=1e-10, atol=1e-12)
    cols = [h for h in hdr if h in s]
    b = np.array([s[h] for h in cols]).T
    a = a[:, [hdr.index(h) for h in cols]]
    check(len(cols) == len(hdr) and a.shape == b.shape and np.array_equal(a, b),
          f"{what}: the command and the library differ")
    return s, a, what
