#!/usr/bin/env python3
"""The benchmarks' quick mode runs, and their anchors agree: at random
states lagrange's generated rhs, SymPy's generated C (KanesMethod + cse +
Cholesky) and the hand-written articulated-body algorithm give the same
accelerations to 1e-10, and lagrange's generated rhs matches `lagrange
eval`; `simulate` and the SymPy + SciPy pipeline end at the same state.
A correctness check only: no timing is asserted.

The benchmarks run under /usr/bin/python3 when it has SymPy, NumPy and
SciPy (scripts/install-bench-deps.sh), else under this interpreter, and
the SciPy comparison is then skipped (said on stdout, counted neither way).

usage: test_bench_smoke.py LAGRANGE [SANITIZED_LAGRANGE]"""
import json, os, subprocess, sys, tempfile

BIN = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BENCH = os.path.join(ROOT, "bench")
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


def has(py, mods):
    return subprocess.run([py, "-c", "import " + ", ".join(mods)],
                          capture_output=True).returncode == 0


def table_rows(text, title):
    """The data rows of the Markdown table after the heading containing title."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("###") and title in ln)
    rows = []
    for ln in lines[start + 1:]:
        if ln.startswith("###"):
            break
        if ln.startswith("|") and not ln.startswith("|---"):
            rows.append([c.strip() for c in ln.strip().strip("|").split("|")])
    return rows[1:]


class Done:
    def __init__(self, p):
        self.stdout, self.stderr = p.communicate(timeout=600)
        self.returncode = p.returncode


def start(py, script, *args):
    """The three scripts run at once (each is mostly waiting on its own
    subprocesses); finish() collects one."""
    return subprocess.Popen([py, os.path.join(BENCH, script), BIN, "--quick", "--timeout", "120"] +
                            list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def main():
    full = "/usr/bin/python3"
    py = full if has(full, ["sympy", "numpy", "scipy"]) else sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "codegen.json")
        jobs = {"codegen": start(py, "codegen.py", "--json", out), "eom": start(py, "eom.py")}
        if py == full:
            jobs["simulate"] = start(py, "simulate.py")
        r = Done(jobs["codegen"])
        check(r.returncode == 0, "codegen.py --quick exits 0: " + r.stderr[-500:])
        with open(out) if os.path.exists(out) else open(os.devnull) as f:
            results = json.loads(f.read() or "[]")
        done = {k: Done(p) for k, p in jobs.items() if k != "codegen"}
    check(len(results) == 3, "codegen.py --quick measures 3 systems")
    for res in results:
        case = f"{res['kind']} n = {res['n']}"
        want = ["lagrange", "sympy", "recursive"] + ([] if res["kind"] == "arm" else ["aba"])
        check(res.get("impls") == want, f"{case}: every implementation built ({res.get('impls')})")
        for k, err in res.get("agree", {}).items():
            check(err < 1e-10, f"{case}: {k} agrees with {res['reference']} to 1e-10 ({err:.1e})")
        err = res.get("agree_eval")
        check(err is not None and err < 1e-10, f"{case}: generated rhs agrees with eval ({err})")
        check(isinstance(res["lagrange"].get("ops"), int) and isinstance(res["sympy"].get("ops"), int),
              f"{case}: both operation counts measured")
        check(set(res.get("ns", {})) == set(want), f"{case}: every implementation timed")
    r = done["eom"]
    check(r.returncode == 0, "eom.py --quick exits 0: " + r.stderr[-500:])
    if r.returncode == 0:
        rows = table_rows(r.stdout, "on the chain")
        check(len(rows) == 4 and all(c[2].replace(".", "").isdigit() and c[7].replace(".", "").isdigit()
                                     for c in rows), "eom.py --quick: every chain eom ran")
    if py != full:
        print("skipped: simulate.py needs /usr/bin/python3 with sympy, numpy and scipy "
              "(scripts/install-bench-deps.sh)")
    else:
        r = done["simulate"]
        check(r.returncode == 0, "simulate.py --quick exits 0: " + r.stderr[-500:])
        if r.returncode == 0:
            rows = table_rows(r.stdout, "SymPy + SciPy")
            diff = rows[0][-1] if rows else "-"
            check(diff != "-" and float(diff) < 1e-6,
                  f"simulate and the SciPy pipeline end at the same state ({diff})")
            rows = table_rows(r.stdout, "tape vs --jit")
            check(len(rows) == 6 and all(c[1].replace(".", "").isdigit() for c in rows),
                  "simulate.py --quick: the tape and the --jit runs (wait, background, cached, "
                  "long) finished")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
