"""Runs python/tests/ under Debian's python3 (NumPy): with pytest when it is
installed, else calling each test_ function itself. Ends "N passed, N failed"."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = os.environ.get("LAGRANGE_PYTHON", "/usr/bin/python3")
RUNNER = r'''
import importlib.util, sys, traceback
sys.path.insert(0, sys.argv[1] + "/python")
spec = importlib.util.spec_from_file_location("t", sys.argv[1] + "/python/tests/test_lagrange.py")
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
p = f = 0
for name in sorted(n for n in dir(mod) if n.startswith("test_")):
    try:
        getattr(mod, name)(); p += 1; print("ok", name)
    except Exception:
        f += 1; print("FAIL", name); traceback.print_exc()
print("%d passed, %d failed" % (p, f))
'''


def with_pytest(env):
    """pytest's summary ("3 passed, 1 failed in 2s") as our tally line."""
    r = subprocess.run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        os.path.join(ROOT, "python", "tests")],
                       env=env, capture_output=True, text=True)
    print(r.stdout[-20000:], r.stderr[-5000:])
    last = (r.stdout.strip().splitlines() or [""])[-1]
    passed = re.search(r"(\d+) passed", last)
    failed = re.search(r"(\d+) (failed|error)", last)
    p = int(passed.group(1)) if passed else 0
    f = int(failed.group(1)) if failed else (0 if r.returncode == 0 else 1)
    for line in r.stdout.splitlines():
        if line.startswith("FAILED"):
            print("FAIL " + line[7:])
    print("%d passed, %d failed" % (p, f))


if __name__ == "__main__":
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    if len(sys.argv) > 1:
        env["LAGRANGE_CLI"] = os.path.abspath(sys.argv[1])
    if subprocess.run([PY, "-c", "import pytest"], capture_output=True).returncode == 0:
        with_pytest(env)
    else:
        r = subprocess.run([PY, "-c", RUNNER, ROOT], env=env)
        if r.returncode != 0:
            print("0 passed, 1 failed")
