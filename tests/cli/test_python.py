"""Runs python/tests/ under Debian's python3 (NumPy): with pytest when it is
installed, else calling each test_ function itself. Ends "N passed, N failed"."""
import os
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
if __name__ == "__main__":
    env = dict(os.environ)
    if len(sys.argv) > 1:
        env["LAGRANGE_CLI"] = os.path.abspath(sys.argv[1])
    r = subprocess.run([PY, "-c", RUNNER, ROOT], env=env)
    if r.returncode != 0:
        print("0 passed, 1 failed")
