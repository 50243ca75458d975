#!/usr/bin/env python3
"""bench/simulate.py - simulation as a whole process, side by side:
1. `lagrange simulate` with the tape against `--jit` (twice: the second run
   may reuse a cached object) on the 12-link chain for 10 s;
2. `lagrange simulate` against the pipeline a SymPy user runs
   (bench/sympy_sim.py: KanesMethod, lambdify(cse=True) of the full forms,
   numpy.linalg.solve, SciPy solve_ivp DOP853) on the chain, n = 3..12, 10 s
   at rtol = atol = 1e-10, output every 0.01 s for both; the final states
   are compared (max |q_lagrange - q_scipy|: the two integrators' own
   errors, a check that both simulate the same system).
Times are whole processes: wall clock and CPU (user + system) seconds.

usage: bench/simulate.py [LAGRANGE] [--quick] [--timeout S]
(--quick: n = 3, 1 s)"""
import json, os, re, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import setup, HERE, PY, fmt, note, parser, ratio, run, table  # noqa: E402
from models import lag_model  # noqa: E402


def lagrange_sim(binary, model, tf, timeout, extra=()):
    out = model + ".csv"
    r = run([binary, "simulate", model, "--tf", str(tf), "--out", out] + list(extra), timeout)
    if not r.ok:
        return {"status": r.status}
    m = re.search(r"(\d+) RHS evaluations, ([0-9.]+) s wall", r.err)
    with open(out) as f:
        last = f.read().strip().splitlines()[-1].split(",")
    took = re.search(r"took over at t = ([0-9.e+-]+)", r.err)
    return {"wall": r.wall, "cpu": r.cpu, "rss_mb": r.rss_mb, "nfev": int(m.group(1)) if m else None,
            "integrate_s": float(m.group(2)) if m else None, "final": [float(v) for v in last[1:]],
            "took_over": f"{float(took.group(1)):.2f}" if took else ""}


def wait_for_cache(folder, timeout=120):
    """Until the background helper has left its entry (.so and .key only)."""
    import time
    end = time.time() + timeout
    while time.time() < end:
        names = os.listdir(folder) if os.path.isdir(folder) else []
        if names and all(f.endswith((".so", ".key")) for f in names):
            return
        time.sleep(0.05)


def jit_vs_tape(binary, n, tf, timeout):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, f"chain{n}.lag")
        with open(model, "w") as f:
            f.write(lag_model("chain", n))
        # private, empty caches: --jit=wait compiles first; --jit starts on
        # the tape while a helper compiles (and leaves the entry); then the
        # cached object; and a run 10x longer from an empty cache, which
        # switches to the compiled code on the way
        runs = (("tape", [], tf, None), ("--jit=wait, empty cache", ["--jit=wait"], tf, "a"),
                ("--jit, empty cache", ["--jit"], tf, "b"), ("--jit, cached", ["--jit"], tf, "b"),
                (f"tape, {10 * tf:g} s", [], 10 * tf, None),
                (f"--jit, empty cache, {10 * tf:g} s", ["--jit"], 10 * tf, "c"))
        for label, extra, t_end, cache in runs:
            if cache:
                os.environ["LAGRANGE_CACHE_DIR"] = os.path.join(tmp, "jit-cache-" + cache)
            note(f"simulate: chain n = {n} {label}")
            r = lagrange_sim(binary, model, t_end, timeout, extra)
            if cache:
                wait_for_cache(os.environ.pop("LAGRANGE_CACHE_DIR"))
            rows.append([label, fmt(r.get("wall", r.get("status")), ".3f"), fmt(r.get("cpu"), ".3f", ""),
                         fmt(r.get("integrate_s"), ".3f", ""), fmt(r.get("nfev"), ",", ""),
                         fmt(r.get("rss_mb"), ",.0f", ""), r.get("took_over", "")])
    print(f"### `simulate`, {n}-link chain, {tf:g} s, default tolerances: tape vs --jit (whole process)\n")
    print(table(["run", "wall s", "CPU s (the run's process)", "integration s (reported)",
                 "RHS evaluations", "peak MB", "compiled code took over at t ="], rows))


def median_run(once, runs=5):
    """The run with the median CPU time of `runs` (a failed run ends it)."""
    got = []
    for _ in range(runs):
        d = once()
        if "cpu" not in d:
            return d
        got.append(d)
    got.sort(key=lambda d: d["cpu"])
    return got[len(got) // 2]


def versus_sympy(binary, sizes, tf, tol, timeout):
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            model = os.path.join(tmp, f"chain{n}.lag")
            with open(model, "w") as f:
                f.write(lag_model("chain", n))
            # the median of 5 runs each side (lagrange's are milliseconds:
            # one run is at the mercy of the machine's other work)
            note(f"simulate: chain n = {n} lagrange")
            lg = median_run(lambda: lagrange_sim(binary, model, tf, timeout,
                                                 ["--rtol", str(tol), "--atol", str(tol)]))
            note(f"simulate: chain n = {n} SymPy + SciPy")

            def sympy_once():
                r = run([PY, os.path.join(HERE, "sympy_sim.py"), "chain", str(n), str(tf), str(tol)],
                        timeout)
                d = json.loads(r.out.strip().splitlines()[-1]) if r.ok else {"status": r.status}
                if r.ok:
                    d.update(wall=r.wall, cpu=r.cpu)
                return d
            sy = median_run(sympy_once)
        diff = (max(abs(a - b) for a, b in zip(lg["final"][:n], sy["final"][:n]))
                if "final" in lg and "final" in sy else None)
        rows.append([n, fmt(lg.get("wall", lg.get("status")), ".3f"), fmt(lg.get("cpu"), ".3f", ""),
                     fmt(lg.get("nfev"), ",", ""),
                     fmt(sy.get("wall", sy.get("status")), ".2f"), fmt(sy.get("cpu"), ".2f", ""),
                     " / ".join(fmt(sy.get(k), ".2f", "") for k in
                                ("imports_s", "derive_s", "lambdify_s", "integrate_s")),
                     fmt(sy.get("nfev"), ",", ""), ratio(sy.get("wall"), lg.get("wall"), ".0f"),
                     ratio(sy.get("cpu"), lg.get("cpu"), ".0f"), fmt(diff, ".1e", "-")])
    print(f"\n### `simulate` vs the SymPy + SciPy pipeline: chain, {tf:g} s, rtol = atol = {tol:g} "
          "(whole processes, the median of 5 runs each)\n")
    print(table(["n", "lagrange wall s", "lagrange CPU s", "lagrange RHS evals", "SymPy wall s",
                 "SymPy CPU s", "SymPy imports / derive / lambdify / integrate s", "SciPy RHS evals",
                 "wall ratio", "CPU ratio", "max |q diff| at tf"], rows))


def main():
    ap = parser(__doc__, 600)
    a = setup(ap.parse_args())
    if a.quick:
        jit_vs_tape(a.binary, 3, 1.0, a.timeout)
        versus_sympy(a.binary, [3], 1.0, 1e-10, a.timeout)
    else:
        jit_vs_tape(a.binary, 12, 10.0, a.timeout)
        versus_sympy(a.binary, list(range(3, 13)), 10.0, 1e-10, a.timeout)


if __name__ == "__main__":
    main()
