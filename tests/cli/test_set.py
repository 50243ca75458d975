"""--set through every door: the command's `--set NAME=VALUE` and Python's
load(..., set={NAME: VALUE}) (lg_model_set) give the same q'' to the last
bit, for a parameter, a parameter other values use, and an input (which
becomes that constant); an unknown name is refused by both, naming it.
Ends "N passed, N failed"."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy as np  # noqa: F401
except ImportError:  # the python3 on PATH may lack NumPy: Debian's has it
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path.insert(0, os.path.join(ROOT, "python"))
import lagrange  # noqa: E402

BINS = sys.argv[1:] or [os.path.join(ROOT, "build", "lagrange")]
passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL " + what + ("\n    " + str(detail) if detail else ""))


CASES = [
    ("tests/cli/models/bead_input.lag", {"phi": 0.7, "m": 2.0}, "r=0.5, r'=0.1"),
    ("tests/cli/models/bead_input.lag", {"omega0": 3.5}, "r=0.4, r'=-0.2"),
    ("examples/cart_pendulum.lag", {"g": 1.62}, None),
]

for b in BINS:
    for path, settings, state in CASES:
        args = [b, "eval", path, "--json", "--t", "0.3"]
        for k, v in settings.items():
            args += ["--set", f"{k}={v!r}"]
        if state:
            args += ["--state", state]
        r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
        what = f"{os.path.basename(b)} eval {os.path.basename(path)} --set {settings}"
        if r.returncode != 0:
            check(False, what, r.stderr)
            continue
        out = json.loads(r.stdout)
        m = lagrange.load(os.path.join(ROOT, path), set=settings)
        q, qd = np.array(out["q"]), np.array(out["qd"])
        qdd = m.accel(q, qd, t=0.3)
        check(np.array_equal(qdd, np.array(out["qdd"])), what + ": Python's q'' is the command's",
              (qdd, out["qdd"]))
        unset = lagrange.load(os.path.join(ROOT, path))
        check(not np.array_equal(unset.accel(q, qd, t=0.3), qdd),
              what + ": and differs from the model's own values")
    r = subprocess.run([b, "eval", "tests/cli/models/bead_input.lag", "--set", "zz=1"],
                       capture_output=True, text=True, cwd=ROOT)
    check(r.returncode == 2 and "--set zz" in r.stderr and "'zz'" in r.stderr,
          f"{os.path.basename(b)}: --set of an unknown name is a usage error naming it", r.stderr)
try:
    lagrange.load(os.path.join(ROOT, "tests/cli/models/bead_input.lag"), set={"zz": 1})
    check(False, "Python: set= of an unknown name raises")
except ValueError as e:
    check("'zz'" in str(e), "Python: set= of an unknown name raises ValueError naming it", e)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
