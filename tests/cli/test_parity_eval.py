"""`lagrange eval` is the library's report: for every example and every
model of tests/cli/models, under both methods, at the initial state and at
one random state (--state naming every coordinate and rate), and under
Kane's method with declared speeds at speeds given by name (one set
consistent, one with a dependent speed the constraints contradict), the command's
`eval` and `eval --json` output equals Python's Model.eval_report (which
calls lg_eval_format) byte for byte; where one fails, both fail. A note the
library gives (Kane's dependent speeds chosen at the state) is on the
command's stderr.

Runs itself under Debian's python3 (NumPy). Ends "N passed, N failed"."""
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy  # noqa: F401
except ImportError:  # the python3 on PATH may lack NumPy: Debian's has it
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path.insert(0, os.path.join(ROOT, "python"))
import lagrange  # noqa: E402

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
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def same(path, method, m, state, q, qd):
    """The command at --state `state` (None: no --state) against
    eval_report(q, qd), text and JSON."""
    name = os.path.relpath(path, ROOT)
    for fmt, flag in (("text", []), ("json", ["--json"])):
        what = f"eval {name} --method {method} {fmt} at {'the initial state' if state is None else state}"
        r = run("eval", path, "--method", method, *flag, *([] if state is None else ["--state", state]))
        try:
            if m is None:
                raise RuntimeError("the model did not load")
            out = m.eval_report(q=q, qd=qd, format=fmt)
        except Exception as e:  # noqa: BLE001
            check(r.returncode != 0, f"{what}: the command printed, Python raised {e}")
            continue
        if r.returncode != 0:
            check(False, f"{what}: the command failed, Python did not: {r.stderr.strip()[-300:]}")
            continue
        check(r.stdout == out, f"{what}: the command and lg_eval_format differ")
        check(out.note is None or out.note in r.stderr, f"{what}: the note is not on stderr")


def names(m, count, name):
    ptr = m._sys.ptr
    return [x.decode() for x in (name(ptr, i) for i in range(count(ptr))) if x]


def same_speeds(path, m, rng):
    """Kane's declared speeds given by name (--state 'u1=0.3'): the
    independent ones at random, then a dependent one far from what the
    constraints make it (both fail)."""
    lib = lagrange._lib.lib
    speeds = [s for s in m.speeds if not s.endswith("'")]  # declared, not rates
    deps = names(m, lib.lg_ndependent_speeds, lib.lg_dependent_speed_name)
    if m.method != "kane" or not speeds:
        return
    u = {s: rng.uniform(-0.5, 0.5) for s in speeds}
    name = os.path.relpath(path, ROOT)
    for extra in ([{}] + ([{deps[0]: 12345.0}] if deps else [])):
        state = ", ".join(f"{k}={v!r}" for k, v in list(u.items()) + list(extra.items()))
        r = run("eval", path, "--method", "kane", "--json", "--state", state)
        what = f"eval {name} --method kane --state '{state}'"
        try:
            out = m.eval_report(u=u, udep=extra or None, format="json")
        except lagrange.ModelError as e:
            check(r.returncode == 1 and r.stderr.strip().endswith(str(e).replace("`state`", "--state")),
                  f"{what}: Python raised {e}, the command said {r.returncode} {r.stderr.strip()[-300:]}")
            continue
        check(r.returncode == 0 and r.stdout == out, f"{what}: the command and lg_eval_format differ")


def main():
    rng = random.Random(20261128)
    paths = sorted(os.path.join(d, f) for d in (os.path.join(ROOT, "examples"),
                                                 os.path.join(ROOT, "tests", "cli", "models"))
                   for f in os.listdir(d) if f.endswith(".lag"))
    for path in paths:
        for method in ("lagrange", "kane"):
            try:
                m = lagrange.load(path, method=method)
            except Exception:  # noqa: BLE001 (the command must fail too)
                m = None
            same(path, method, m, None, None, None)
            if m is None:
                continue
            q0, qd0 = m.initial_state()
            q = {c: float(q0[i]) + rng.uniform(-0.4, 0.4) for i, c in enumerate(m.coordinates)}
            qd = {c: float(qd0[i]) + rng.uniform(-0.4, 0.4) for i, c in enumerate(m.coordinates)}
            state = ", ".join([f"{c}={v!r}" for c, v in q.items()] +
                              [f"{c}'={v!r}" for c, v in qd.items()])
            same(path, method, m, state, q, qd)
            same_speeds(path, m, rng)
            m.close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
