#!/usr/bin/env python3
"""bench/sweep.py - `lagrange sweep` runs per second with 1 and 2 threads
and with `mpirun -n 2`, on the 5-link chain (bench/models.py) and on
examples/delta_robot.lag, and the same chain sweep scripted the way a
SymPy user does it (KanesMethod once, lambdify(cse=True) of the full mass
matrix and forcing once, numpy.linalg.solve in the right-hand side,
SciPy's solve_ivp DOP853 per run, output every 0.01 s), serially and over
a multiprocessing pool of 2, as the anchor.

The sweep: the first link's initial angle q1 over a grid (chain), the
platform mass m over a grid (delta robot); t = 0..TF, rtol = atol = TOL.
Runs per second count the whole command (derivation and compilation
included: what a user waits for) and, from the summary line, the runs
alone; the CPU seconds of the whole command (user + system, children
included) show the cost of the parallel machinery apart from the
scheduler. The machine is shared: the load average is printed with each
result (run it when `uptime` says the machine is idle: with the kernel's
autogroup scheduling a busy machine gives one session its share of the
cores however many threads it runs).

usage: sweep.py LAGRANGE [--quick]   (Debian's /usr/bin/python3 with
python3-scipy and python3-sympy: scripts/install-bench-deps.sh)"""
import json, multiprocessing, os, re, resource, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from models import initial, lag_model, params  # noqa: E402

LAG = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/lagrange")
QUICK = "--quick" in sys.argv
DELTA = os.path.join(HERE, "..", "examples", "delta_robot.lag")
TF, TOL = 2.0, 1e-8
RUNS = {"chain": 16 if QUICK else 192, "delta": 8 if QUICK else 192}


def load():
    return os.getloadavg()[0]


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd):
    t, c = time.perf_counter(), child_cpu()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    timed.cpu = child_cpu() - c
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
    m = re.search(r"(\d+) runs, (\d+) failed, ([0-9.]+) s wall", r.stderr)
    return wall, float(m.group(3)), int(m.group(2)), r.stdout


def lagrange_case(name, model, vary, runs):
    base = [LAG, "sweep", model, "--vary", vary, "--tf", str(TF), "--rtol", str(TOL),
            "--atol", str(TOL)]
    ways = [("--jobs 1", base + ["--jobs", "1"]), ("--jobs 2", base + ["--jobs", "2"])]
    mpirun = shutil.which("mpirun")
    if mpirun:
        root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
        ways.append(("mpirun -n 2", [mpirun, *root, "--oversubscribe", "-n", "2", *base]))
    out, texts = [], []
    for label, cmd in ways:
        best = None
        for _ in range(1 if QUICK else 3):  # best of 3: the machine is shared
            res = timed(cmd) + (timed.cpu,)
            best = res if best is None or res[1] < best[1] else best
        wall, runs_wall, nfail, text, cpu = best
        texts.append(text)
        out.append({"case": name, "how": label, "runs": runs, "failed": nfail,
                    "wall_s": round(wall, 3), "runs_wall_s": round(runs_wall, 3),
                    "runs_per_s": round(runs / wall, 1),
                    "runs_per_s_runs_only": round(runs / runs_wall, 1),
                    "cpu_s": round(cpu, 3), "load": round(load(), 2)})
    same = all(t == texts[0] for t in texts)
    last = texts[0].strip().split("\n")[-1].split(",")
    for o in out:
        o["identical_files"] = same
        o["last_end"] = float(last[2])  # the last run's first coordinate at TF
    return out


# ---- the SciPy anchor ---------------------------------------------------------------------
_F = None


def _setup(n):
    global _F
    import numpy as np
    import sympy as sm
    from models import sympy_kane
    km, q, u, ps = sympy_kane("chain", n)
    xs = sm.symbols(f"x0:{2 * n}")
    sub = {**{u[i]: xs[n + i] for i in range(n)}, **{q[i]: xs[i] for i in range(n)}}
    f = sm.lambdify([xs, ps], [km.mass_matrix_full.xreplace(sub),
                               km.forcing_full.xreplace(sub)], modules="numpy", cse=True)
    _F = (f, np.array([v for _, v in params("chain", n)]), n)


def _one(q1):
    import numpy as np
    import scipy.integrate
    f, pv, n = _F

    def rhs(t, x):
        A, b = f(x, pv)
        return np.linalg.solve(A, np.asarray(b, dtype=float).ravel())

    x0 = np.array(initial("chain", n) + [0.0] * n)
    x0[0] = q1
    sol = scipy.integrate.solve_ivp(rhs, (0.0, TF), x0, method="DOP853", rtol=TOL, atol=TOL,
                                    t_eval=np.linspace(0.0, TF, int(round(TF / 0.01)) + 1))
    return [float(v) for v in sol.y[:, -1]]


def scipy_case(runs, workers):
    grid = [0 + 1.0 * i / (runs - 1) for i in range(runs)]
    t = time.perf_counter()
    if workers == 1:
        _setup(5)
        t_set = time.perf_counter()
        ends = [_one(v) for v in grid]
    else:  # every worker derives and lambdifies once (fork after setup)
        _setup(5)
        t_set = time.perf_counter()
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            ends = pool.map(_one, grid, chunksize=1)
    wall = time.perf_counter() - t
    return {"case": "chain5", "how": f"SymPy+SciPy, {workers} process" + ("es" if workers > 1 else ""),
            "runs": runs, "wall_s": round(wall, 3), "runs_wall_s": round(wall - (t_set - t), 3),
            "runs_per_s": round(runs / wall, 2),
            "runs_per_s_runs_only": round(runs / (wall - (t_set - t)), 2),
            "load": round(load(), 2), "last_end_q1": ends[-1][0]}


def _busy(n):
    x = 0
    for i in range(n):
        x += i
    return x


def control():
    """What the scheduler gives two workers now: a perfectly parallel busy
    loop in 1 and in 2 processes (the same total work)."""
    n = 4_000_000 if QUICK else 20_000_000
    t = time.perf_counter()
    _busy(n)
    one = time.perf_counter() - t
    t = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(_busy, [n // 2, n // 2])
    two = time.perf_counter() - t
    return {"case": "control", "how": "busy loop, 2 processes vs 1", "speedup": round(one / two, 2),
            "load": round(load(), 2)}


def main():
    results_control = control()
    with tempfile.TemporaryDirectory() as d:
        chain = os.path.join(d, "chain5.lag")
        open(chain, "w").write(lag_model("chain", 5))
        n = RUNS["chain"]
        results = lagrange_case("chain5", chain, f"q1=0:1:{n}", n)
        results += lagrange_case("delta_robot", os.path.abspath(DELTA),
                                 f"m=0.3:0.7:{RUNS['delta']}", RUNS["delta"])
        # the anchor: fewer runs (it is slow); runs per second compare
        k = 8 if QUICK else 24
        results.append(scipy_case(k, 1))
        results.append(scipy_case(k, 2))
    results.append(control())
    results.insert(0, results_control)
    for r in results:
        print(json.dumps(r))
    # the last run is the same (q1 = 1) in both sweeps of the chain
    ours = next(r["last_end"] for r in results if r["case"] == "chain5" and "last_end" in r)
    theirs = next(r["last_end_q1"] for r in results if "last_end_q1" in r)
    print(f"chain5: last run's q1(TF): lagrange {ours!r}, SciPy {theirs!r} "
          f"(|difference| {abs(ours - theirs):.1e}, tolerance {TOL})")
    for case in ("chain5", "delta_robot"):
        rs = {r["how"]: r for r in results if r["case"] == case}
        one = rs["--jobs 1"]["runs_per_s_runs_only"]
        for how in ("--jobs 2", "mpirun -n 2"):
            if how in rs:
                print(f"{case}: {how} / --jobs 1 = "
                      f"{rs[how]['runs_per_s_runs_only'] / one:.2f}x (runs only), "
                      f"{rs[how]['runs_per_s'] / rs['--jobs 1']['runs_per_s']:.2f}x (whole command); "
                      f"CPU s {rs['--jobs 1']['cpu_s']} -> {rs[how]['cpu_s']}")


if __name__ == "__main__":
    main()
