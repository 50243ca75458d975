#!/usr/bin/env python3
"""`lagrange sweep` (CLI.md, issue 15): grids and seeded Monte Carlo over
parameters and initial values, rows in run order, `--jobs 1` vs `--jobs 2`
vs `mpirun -n 2` byte-identical, a row equal to `lagrange simulate` of the
same values (end state, max |C|, energy drift, t_end), failing runs as
`failed: ...` rows without stopping the sweep, usage errors (exit 2), and
SIGINT leaving neither FILE nor a temporary.

Each binary given is tested (release and sanitized). mpirun runs the
release binary only: OpenMPI leaks in MPI_Init/MPI_Finalize, largely from
its MCA plugins, which are unloaded by then, so LeakSanitizer reports
frames of "<unknown module>" that no suppression by library can name
(tried: libmpi, libopen-pal, libopen-rte, hwloc, libevent, pmix, mca_);
the MPI path shares every line of a run with the threads, which are
tested sanitized.

usage: test_sweep.py LAGRANGE [SANITIZED_LAGRANGE]"""
import csv, io, math, os, re, shutil, signal, subprocess, sys, tempfile, time

BINS = [os.path.abspath(b) for b in sys.argv[1:]] or ["build/lagrange"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CART = os.path.abspath(os.path.join(ROOT, "examples", "cart_pendulum.lag"))
SIM = os.path.abspath(os.path.join(ROOT, "tests", "cli", "sim"))
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:800]))


class Run:
    def __init__(self, r):
        self.code, self.out, self.err = r.returncode, r.stdout, r.stderr


def run(binary, *args, timeout=600):
    r = Run(subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout))
    if "Sanitizer" in r.err or "runtime error" in r.err:
        check(f"sanitizer-clean {args}", False, r.err)
    return r


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def sweep_file(L, d, name, *args, launcher=()):
    out = os.path.join(d, name)
    r = subprocess.run([*launcher, L, "sweep", *args, "--out", out], capture_output=True,
                       text=True, timeout=600)
    text = open(out).read() if os.path.exists(out) else ""
    return r, text


# ---- the grid: columns, order, threads, MPI ------------------------------------------------
GRID = [CART, "--vary", "m=0.5:2:4", "--vary", "theta'=-1:1:3", "--tf", "2"]


def grid(L, tag):
    with tempfile.TemporaryDirectory() as d:
        r1, t1 = sweep_file(L, d, "j1.csv", *GRID, "--jobs", "1")
        r2, t2 = sweep_file(L, d, "j2.csv", *GRID, "--jobs", "2")
        rs = rows(t1)
        check(f"{tag}: a 4 x 3 grid gives 12 rows in run order, exit 0",
              r1.returncode == 0 and [x["run"] for x in rs] == [str(i) for i in range(12)],
              (r1.stderr, t1[:300]))
        head = t1.split("\n", 1)[0]
        check(f"{tag}: the header is run, the varied names, the end state, max_abs_C, "
              "energy_drift, t_end, status",
              head == "run,m,theta',x_end,theta_end,x'_end,theta'_end,max_abs_C,energy_drift,"
                      "t_end,status", head)
        order = [(float(x["m"]), float(x["theta'"])) for x in rs]
        want = [(m, w) for m in (0.5, 1, 1.5, 2) for w in (-1, 0, 1)]
        check(f"{tag}: the first --vary varies slowest, values from A to B", order == want, order)
        check(f"{tag}: every run ok, t_end = tf",
              all(x["status"] == "ok" and float(x["t_end"]) == 2 for x in rs), t1[:400])
        check(f"{tag}: --jobs 1 and --jobs 2 write the same bytes",
              r2.returncode == 0 and t1 == t2 and t1, (r2.stderr, t2[:200]))
        cores, _ = sweep_file(L, d, "jd.csv", *GRID)
        check(f"{tag}: the default --jobs (every core) writes the same bytes",
              open(os.path.join(d, "jd.csv")).read() == t1 if os.path.exists(
                  os.path.join(d, "jd.csv")) else False, cores.stderr)
        # different runs really differ (the values reach the model)
        check(f"{tag}: runs with different values end in different states",
              len({x["x_end"] for x in rs}) == 12, t1[:300])
        return t1


def mpi(L, reference):
    mpirun = shutil.which("mpirun")
    if not mpirun:
        check("mpirun -n 2 (mpirun not installed: scripts/install-deps.sh installs openmpi-bin)",
              False)
        return
    launcher = [mpirun, "-n", "2", "--oversubscribe"]
    if os.geteuid() == 0:
        launcher.insert(1, "--allow-run-as-root")
    with tempfile.TemporaryDirectory() as d:
        r, text = sweep_file(L, d, "mpi.csv", *GRID, launcher=launcher)
        if "built without MPI" in r.stderr:
            check("mpirun -n 2: (this lagrange was built without MPI) rank 0 still writes "
                  "the same bytes", r.returncode == 0 and text == reference, r.stderr)
            return
        check("mpirun -n 2 writes the bytes of a threaded run, over 2 ranks",
              r.returncode == 0 and text == reference and "2 MPI ranks" in r.stderr,
              (r.returncode, r.stderr[-600:], text[:200]))
        mc = [CART, "--samples", "40", "--seed", "11", "--dist", "m=uniform(0.5,2)",
              "--dist", "theta=normal(0,0.2)", "--tf", "1"]
        r, t_mpi = sweep_file(L, d, "mc_mpi.csv", *mc, launcher=launcher)
        _, t_thr = sweep_file(L, d, "mc_thr.csv", *mc, "--jobs", "2")
        check("mpirun -n 2: the same Monte Carlo rows as the threads",
              r.returncode == 0 and t_mpi == t_thr and t_mpi, (r.stderr[-600:], t_mpi[:200]))


# ---- a row is a simulate of the same values -------------------------------------------------
def drift_of(err):
    m = re.search(r"max \|E - W\| drift = ([0-9.e+-]+)", err)
    return float(m.group(1)) if m else None


def versus_simulate(L, tag, grid_text):
    rs = rows(grid_text)
    row = rs[7]  # m = 1.5, theta' = 0
    with tempfile.TemporaryDirectory() as d:
        model = os.path.join(d, "cart.lag")
        rate = row["theta'"]
        src = open(CART).read().replace("initial theta = 0.1",
                                        f"initial theta = 0.1, theta' = {rate}")
        open(model, "w").write(src)
        r = run(L, "simulate", model, "--set", f"m={row['m']}", "--tf", "2")
        last = r.out.strip().split("\n")[-1].split(",")
        head = r.out.split("\n", 1)[0].split(",")
        sim = dict(zip(head, last))
        same = all(sim[k] == row[k + "_end"] for k in ("x", "theta", "x'", "theta'"))
        check(f"{tag}: a sweep row's end state equals simulate's last row (every digit)",
              r.code == 0 and same, (sim, row))
        drift = drift_of(r.err)
        check(f"{tag}: energy_drift is simulate's max |E - W| drift",
              drift is not None and float(f"{float(row['energy_drift']):.3g}") == drift,
              (row["energy_drift"], drift))
    # a constrained model: max_abs_C is the max over simulate's C column
    pend = os.path.join(SIM, "pendulum_xy.lag")
    r = run(L, "sweep", pend, "--vary", "g=5:15:3", "--tf", "1", "--jobs", "2")
    rs = rows(r.out)
    s = run(L, "simulate", pend, "--set", "g=15", "--tf", "1")
    sim = rows(s.out)
    maxc = max(abs(float(x["C1"])) for x in sim) if sim else None
    check(f"{tag}: max_abs_C is the max of |C| over simulate's rows (constrained model)",
          r.code == 0 and len(rs) == 3 and maxc is not None and
          float(rs[2]["max_abs_C"]) == maxc and
          rs[2]["x_end"] == sim[-1]["x"] and rs[2]["y'_end"] == sim[-1]["y'"],
          (r.err, rs[2] if rs else None, maxc))
    # --stop-when: t_end is where the run stopped
    r = run(L, "sweep", CART, "--vary", "theta=0.1:0.3:2", "--stop-when", "t - 0.5", "--tf",
            "3")
    rs = rows(r.out)
    check(f"{tag}: --stop-when applies to every run (t_end at the crossing)",
          r.code == 0 and len(rs) == 2 and all(abs(float(x["t_end"]) - 0.5) < 1e-9 for x in rs),
          (r.err, r.out[:300]))


def options(L, tag):
    args = [CART, "--vary", "m=0.5:2:3", "--tf", "1"]
    plain = rows(run(L, "sweep", *args).out)
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, LAGRANGE_CACHE_DIR=os.path.join(d, "cache"))
        r = subprocess.run([L, "sweep", *args, "--jit", "--jobs", "2"], capture_output=True,
                           text=True, timeout=600, env=env)
    jit = rows(r.stdout)
    close = len(jit) == 3 and len(plain) == 3 and all(
        abs(float(a[k]) - float(b[k])) < 1e-8 for a, b in zip(jit, plain)
        for k in ("x_end", "theta_end", "x'_end", "theta'_end"))
    check(f"{tag}: --jit runs take each run's parameters (rows agree with the tape's)",
          r.returncode == 0 and close and "warning" not in r.stderr, (r.stderr, jit, plain))
    k = run(L, "sweep", *args, "--method", "kane")
    check(f"{tag}: --method kane (u = q') gives the same end states",
          k.code == 0 and all(abs(float(a[c]) - float(b[c])) < 1e-7 for a, b in
                              zip(rows(k.out), plain) for c in ("x_end", "theta'_end")) and
          len(rows(k.out)) == 3, k.err)
    k = run(L, "sweep", os.path.join(ROOT, "examples", "rolling_sphere.lag"), "--vary",
            "m=1:2:2", "--method", "kane")
    check(f"{tag}: Kane's own state [q; u] is refused with a located message (exit 1)",
          k.code == 1 and "--method lagrange" in k.err and not k.out, k.err)
    b = run(L, "sweep", CART, "--vary", "m=1:2:2", "--integrator", "bdf", "--tf", "1")
    s = run(L, "simulate", CART, "--set", "m=2", "--integrator", "bdf", "--tf", "1")
    last = s.out.strip().split("\n")[-1].split(",")
    check(f"{tag}: --integrator bdf per run: the row equals simulate --integrator bdf",
          b.code == 0 and len(rows(b.out)) == 2 and rows(b.out)[1]["x_end"] == last[1],
          (b.err, last))


# ---- Monte Carlo ------------------------------------------------------------------------------
def monte_carlo(L, tag):
    mc = [CART, "--samples", "200", "--dist", "m=normal(1,0.1)", "--dist",
          "theta'=uniform(-0.5,0.5)", "--tf", "0.2"]
    a = run(L, "sweep", *mc, "--seed", "42", "--jobs", "2")
    b = run(L, "sweep", *mc, "--seed", "42", "--jobs", "1")
    c = run(L, "sweep", *mc, "--seed", "43", "--jobs", "2")
    check(f"{tag}: a seeded Monte Carlo is reproducible (and independent of --jobs)",
          a.code == 0 and a.out == b.out and len(rows(a.out)) == 200, (a.err, b.err))
    ra, rc_ = rows(a.out), rows(c.out)
    check(f"{tag}: another seed draws other values",
          c.code == 0 and len(rc_) == 200 and all(x["m"] != y["m"] for x, y in zip(ra, rc_)),
          c.err)
    ms = [float(x["m"]) for x in ra]
    ws = [float(x["theta'"]) for x in ra]
    mean = sum(ms) / len(ms)
    sd = math.sqrt(sum((v - mean) ** 2 for v in ms) / (len(ms) - 1))
    check(f"{tag}: normal(1, 0.1) draws have mean 1 and deviation 0.1 (200 samples)",
          abs(mean - 1) < 0.03 and 0.08 < sd < 0.12, (mean, sd))
    check(f"{tag}: uniform(-0.5, 0.5) draws stay inside and spread out",
          all(-0.5 <= w < 0.5 for w in ws) and min(ws) < -0.4 and max(ws) > 0.4, (min(ws), max(ws)))
    # the first rows of a longer sweep are the rows of a shorter one (row k depends on k only)
    s = run(L, "sweep", *[x if x != "200" else "20" for x in mc], "--seed", "42")
    check(f"{tag}: row k depends on (seed, k) only: 20 samples are the first 20 of 200",
          s.code == 0 and rows(s.out) == ra[:20], s.err)


# ---- failures ---------------------------------------------------------------------------------
def failures(L, tag):
    r = run(L, "sweep", os.path.join(SIM, "singular.lag"), "--vary", "F=-1:1:3", "--tf", "2")
    rs = rows(r.out)
    st = [x["status"] for x in rs]
    check(f"{tag}: a run reaching a singular mass matrix is a failed row; the sweep goes on",
          r.code == 0 and len(rs) == 3 and st[0] == "ok" and
          all(s.startswith("failed: ") and "singular" in s for s in st[1:]) and
          float(rs[1]["t_end"]) < 2, (r.err, st))
    r = run(L, "sweep", os.path.join(SIM, "blowup.lag"), "--vary", "m=1:2:2", "--tf", "5")
    rs = rows(r.out)
    check(f"{tag}: a blow-up is a failed row at the time it failed",
          r.code == 0 and len(rs) == 2 and
          all(x["status"].startswith("failed: ") and float(x["t_end"]) < 5 for x in rs),
          (r.err, r.out[-400:]))
    pend = os.path.join(SIM, "pendulum_xy.lag")
    r = run(L, "sweep", pend, "--vary", "l=1:2:2", "--tf", "0.5")
    rs = rows(r.out)
    check(f"{tag}: an initial state off the constraints is refused per run (failed row)",
          r.code == 0 and len(rs) == 2 and rs[0]["status"] == "ok" and
          rs[1]["status"].startswith("failed: ") and "violates constraint C1" in rs[1]["status"]
          and rs[1]["t_end"] == "0", r.out)
    r = run(L, "sweep", pend, "--vary", "l=1:2:2", "--tf", "0.5", "--project")
    rs = rows(r.out)
    check(f"{tag}: --project moves each run's initial state onto the constraints",
          r.code == 0 and [x["status"] for x in rs] == ["ok", "ok"] and
          float(rs[1]["max_abs_C"]) < 1e-8, r.out)


# ---- usage ------------------------------------------------------------------------------------
def usage(L, tag):
    cases = [
        (["--vary", "m=1:2"], "NAME=A:B:N"),
        (["--vary", "m=1:x:3"], "numbers"),
        (["--vary", "m=1:2:0"], "whole number"),
        (["--vary", "mass=1:2:3"], "valid names: m, M, l, g, x, theta, x', theta'"),
        (["--samples", "5", "--seed", "1", "--dist", "m=normal(1)"], "normal(MU,SIGMA)"),
        (["--samples", "5", "--seed", "1", "--dist", "m=cauchy(1,2)"], "uniform(A,B)"),
        (["--samples", "5", "--seed", "1", "--dist", "m=normal(1,-2)"], "SIGMA"),
        (["--dist", "m=normal(1,2)"], "--samples"),
        (["--samples", "0", "--dist", "m=normal(1,2)"], "--samples"),
        (["--samples", "3", "--seed", "x", "--dist", "m=normal(1,2)"], "--seed"),
        (["--vary", "m=1:2:2", "--vary", "m=3:4:2"], "twice"),
        (["--vary", "m=1:2:2", "--dist", "l=normal(1,2)"], "either"),
        (["--vary", "m=1:2:2", "--jobs", "0"], "--jobs"),
        ([], "either"),
    ]
    for args, words in cases:
        r = run(L, "sweep", CART, *args)
        check(f"{tag}: {' '.join(args) or '(nothing to vary)'} is exit 2 naming the problem",
              r.code == 2 and words in r.err and not r.out, (r.code, r.err))


# ---- SIGINT -----------------------------------------------------------------------------------
def interrupt(L, tag):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "long.csv")
        # as from a terminal: a background job (make check &) inherits
        # SIGINT ignored, and lagrange keeps an ignored SIGINT
        p = subprocess.Popen([L, "sweep", CART, "--vary", "m=0.5:2:400", "--tf", "2000",
                              "--jobs", "2", "--out", out], stderr=subprocess.DEVNULL,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.time() + 60
        while time.time() < deadline and not os.listdir(d) and p.poll() is None:
            time.sleep(0.05)
        seen = os.listdir(d)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        try:
            code = p.wait(60)
        except subprocess.TimeoutExpired:  # never leave it running
            p.kill()
            code = p.wait()
        check(f"{tag}: SIGINT during a sweep leaves no FILE and no temporary",
              seen and seen[0].startswith(".long.csv-") and code == -signal.SIGINT and
              os.listdir(d) == [], (seen, code, os.listdir(d)))


for i, L in enumerate(BINS):
    tag = "sanitized" if i else "release"
    reference = grid(L, tag)
    if i == 0:
        mpi(L, reference)
    versus_simulate(L, tag, reference)
    options(L, tag)
    monte_carlo(L, tag)
    failures(L, tag)
    usage(L, tag)
    interrupt(L, tag)

print(f"{passed} passed, {failed} failed")
