"""Every front door gives the same answer: the command, the C library
(through the Python package, which calls lg_simulate, lg_eval, lg_print
and lg_codegen) agree bit for bit on every example under both methods and
on the hard cases (3D arms past 10 links, both chains; the Whipple bicycle
and Kane with constraints are examples):

- simulate: the CSV and lg_simulate's points, at the defaults and with BDF
  (the exact Jacobian path);
- eval: q'', T, V (and under Lagrange's method M, f, momenta, multipliers);
- eom: the text and JSON printouts;
- codegen: C and Python, whether or not the system was printed first, and
  with a function list (`--functions`, lg_codegen_functions, Python's
  functions=), rhs_recursive included.

Runs itself under Debian's python3 (NumPy). Ends "N passed, N failed"."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy as np
except ImportError:  # the python3 on PATH may lack NumPy: Debian's has it
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import lagrange  # noqa: E402
import models  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT)


def csv(text):
    lines = text.strip().splitlines()
    return lines[0].split(","), np.array([[float(x) for x in ln.split(",")] for ln in lines[1:]])


def same_simulation(path, method, extra, kw, tf):
    r = run("simulate", path, "--method", method, "--tf", repr(tf), *extra)
    what = f"simulate {os.path.basename(path)} --method {method} {' '.join(extra)}"
    try:
        m = lagrange.load(path, method=method)
        s = m.simulate(tf=tf, **kw)
    except Exception as e:  # noqa: BLE001
        check(r.returncode != 0, f"{what}: the command ran, Python raised {e}")
        return
    if r.returncode != 0:
        check(False, f"{what}: the command failed: {r.stderr.strip()[-300:]}")
        return
    hdr, a = csv(r.stdout)
    cols = [h for h in hdr if h in s]
    b = np.array([s[h] for h in cols]).T
    a = a[:, [hdr.index(h) for h in cols]]
    ok = a.shape == b.shape and np.array_equal(a, b)
    diff = np.abs(a - b).max() if a.shape == b.shape else "shape"
    check(ok and len(cols) == len(hdr), f"{what}: differs by {diff} ({len(cols)} of {len(hdr)} columns)")


def same_eval(path, method):
    import json
    r = run("eval", path, "--method", method, "--json")
    what = f"eval {os.path.basename(path)} --method {method}"
    if r.returncode != 0:
        check(False, f"{what}: {r.stderr.strip()[-300:]}")
        return
    d = json.loads(r.stdout)
    res = lagrange.load(path, method=method).eval(q=d["q"], qd=d["qd"], t=d["t"])
    keys = ["qdd", "T", "V"] + (["mass_matrix", "forcing", "momenta", "lam"] if method == "lagrange" else [])
    for k in keys:
        a = np.array(d[k], dtype=float)
        b = np.array(getattr(res, k), dtype=float)
        check(a.shape == b.shape and np.array_equal(a, b), f"{what}: {k} differs")


def same_text(path, method):
    m = lagrange.load(path, method=method)
    for fmt, flag in (("text", []), ("json", ["--json"])):
        r = run("eom", path, "--method", method, *flag)
        check(r.returncode == 0 and r.stdout == m.eom(format=fmt),
              f"eom {os.path.basename(path)} --method {method} {fmt}: command and lg_print differ")


def same_code(path, method):
    what = f"codegen {os.path.basename(path)} --method {method}"
    for lang in ("c", "python"):
        r = run("codegen", path, "--method", method, "--lang", lang, "--name", "m")
        fresh = lagrange.load(path, method=method)
        printed = lagrange.load(path, method=method)
        printed.eom(format="text")
        printed.eom(format="json")
        try:
            a, b = fresh.codegen_files(lang, "m")[0], printed.codegen_files(lang, "m")[0]
        except Exception as e:  # noqa: BLE001
            check(r.returncode != 0, f"{what} {lang}: the command wrote code, lg_codegen raised {e}")
            continue
        check(a == b, f"{what} {lang}: lg_codegen differs after lg_print")
        check(r.returncode == 0 and r.stdout == a, f"{what} {lang}: the command and lg_codegen differ")
    # a function list (the O(n) recursion only where the model is a tree)
    lists = ["rhs, energy"] + (["rhs_recursive"] if method == "lagrange" else [])
    for funcs in lists:
        r = run("codegen", path, "--method", method, "--name", "m", "--functions", funcs)
        try:
            a = lagrange.load(path, method=method).codegen_files("c", "m", functions=funcs)[0]
        except Exception as e:  # noqa: BLE001
            check(r.returncode != 0, f"{what} --functions {funcs}: the command wrote code, "
                                     f"lg_codegen_functions raised {e}")
            continue
        check(r.returncode == 0 and r.stdout == a,
              f"{what} --functions {funcs}: the command and lg_codegen_functions differ")


def main():
    tmp = tempfile.mkdtemp()
    paths = sorted(os.path.join(ROOT, "examples", f) for f in os.listdir(os.path.join(ROOT, "examples"))
                   if f.endswith(".lag"))
    hard = []
    for kind, n in (("arm", 11), ("arm", 14), ("chain", 12), ("chain_rel", 12)):
        p = os.path.join(tmp, f"{kind}{n}.lag")
        with open(p, "w") as f:
            f.write(models.lag_model(kind, n))
        hard.append(p)
    for path in paths + hard:
        big = path in hard or "whipple" in path
        for method in ("lagrange", "kane"):
            same_simulation(path, method, [], {}, 1.0 if big else 3.0)
            same_simulation(path, method, ["--integrator", "bdf", "--rtol", "1e-8", "--atol", "1e-8"],
                            {"integrator": "bdf", "rtol": 1e-8, "atol": 1e-8}, 0.5 if big else 2.0)
            same_eval(path, method)
            same_text(path, method)
            same_code(path, method)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
