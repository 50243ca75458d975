"""Events (`when A < B: stop`, `when A > B: x' = ...`; MODEL-FORMAT 1.1,
"Events in detail"), through the command, the C library (Python) and
under both methods and every integrator family:

- the bouncing ball (tests/cli/events/bounce.lag): impact times equal the
  closed form t_k to 1e-8, each impact multiplies the apex height by e^2,
  two rows at each impact (before and after), E - W conserved;
- a stop event at the analytic time, one row there; a condition already
  true at t0 does not fire;
- a reset that breaks a velocity constraint (pendulum_kick.lag): the rates
  projected back in the mass-matrix metric, E - W conserved;
- Python's simulate gives the command's rows bit for bit;
- errors at line:col for a malformed `when`.

Ends "N passed, N failed"."""
import math
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
import lagrange  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
BOUNCE = os.path.join(ROOT, "tests", "cli", "events", "bounce.lag")
KICK = os.path.join(ROOT, "tests", "cli", "events", "pendulum_kick.lag")
TOL = ["--rtol", "1e-10", "--atol", "1e-12"]
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


def pairs(a):
    """Indices i with a[i, 0] == a[i + 1, 0]: the rows before and after an event."""
    return [i for i in range(len(a) - 1) if a[i, 0] == a[i + 1, 0]]


def bouncing(method, integrator):
    what = f"bounce --method {method} --integrator {integrator}"
    r = run("simulate", BOUNCE, "--method", method, "--integrator", integrator, *TOL)
    if r.returncode != 0:
        check(False, f"{what}: {r.stderr.strip()[-300:]}")
        return
    hdr, a = csv(r.stdout)
    g, e, h0 = 9.81, 0.8, 1.0
    v = math.sqrt(2 * g * h0)
    tk, expect = v / g, []
    while tk < 3:
        expect.append(tk)
        v *= e
        tk += 2 * v / g
    ev = pairs(a)
    check(len(ev) == len(expect), f"{what}: {len(ev)} impacts, expected {len(expect)}")
    y, yd, E, W = (hdr.index(c) for c in ("y", "y'", "E", "W"))
    for k, (i, t) in enumerate(zip(ev, expect)):
        check(abs(a[i, 0] - t) < 1e-8, f"{what}: impact {k + 1} at {a[i, 0]!r}, closed form {t!r}")
        check(abs(a[i + 1, yd] + e * a[i, yd]) < 1e-9, f"{what}: impact {k + 1}: y' after != -e y' before")
        apex = a[i + 1, yd] ** 2 / (2 * g)
        check(abs(apex - h0 * e ** (2 * (k + 1))) < 1e-8, f"{what}: apex after impact {k + 1}: {apex}")
    bal = a[:, E] - a[:, W]
    check(np.abs(bal - bal[0]).max() < 1e-8, f"{what}: E - W drifts by {np.abs(bal - bal[0]).max()}")
    check(f"{len(expect)} events" in r.stderr, f"{what}: the summary counts the events: {r.stderr}")


def model_file(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".lag", delete=False)
    f.write(text)
    f.close()
    return f.name


BASE = """coordinates y
parameters m = 1, g = 9.81, e = 0.8
T = 1/2*m*y'^2
V = m*g*y
initial y = 1, y' = 0
"""


def stopping():
    path = model_file(BASE + "when y < 0.5: stop\nsimulate 0 to 3 step 0.01\n")
    for method in ("lagrange", "kane"):
        r = run("simulate", path, "--method", method, *TOL)
        hdr, a = csv(r.stdout)
        t = math.sqrt(2 * 0.5 / 9.81)
        check(r.returncode == 0 and abs(a[-1, 0] - t) < 1e-8 and a[-2, 0] < a[-1, 0],
              f"stop --method {method}: ends at {a[-1, 0]!r}, analytic {t!r}")
        check("stopped at t" in r.stderr, f"stop --method {method}: summary {r.stderr}")
    os.unlink(path)
    # true at t0 (y < 2 from the start): never fires
    path = model_file(BASE + "when y < 2: stop\nsimulate 0 to 1 step 0.1\n")
    r = run("simulate", path)
    hdr, a = csv(r.stdout)
    check(r.returncode == 0 and a[-1, 0] == 1 and len(a) == 11 and "stopped" not in r.stderr,
          f"a condition true at t0 fired: {r.stderr}")
    os.unlink(path)


def constrained():
    for integ in ("dopri", "bdf", "ida"):
        r = run("simulate", KICK, "--integrator", integ, "--rtol", "1e-10", "--atol", "1e-10")
        if r.returncode != 0:
            check(False, f"kick {integ}: {r.stderr.strip()[-300:]}")
            continue
        hdr, a = csv(r.stdout)
        ev = pairs(a)
        x, y, xd, yd, E, W = (hdr.index(c) for c in ("x", "y", "x'", "y'", "E", "W"))
        check(len(ev) >= 1, f"kick {integ}: no event")
        for i in ev:
            check(abs(a[i, x] - 0.5) < 1e-8, f"kick {integ}: event at x = {a[i, x]}")
            cd = a[i + 1, x] * a[i + 1, xd] + a[i + 1, y] * a[i + 1, yd]
            check(abs(cd) < 1e-9, f"kick {integ}: rates off the constraint after the reset: {cd}")
        bal = a[:, E] - a[:, W]
        check(np.abs(bal - bal[0]).max() < 1e-6, f"kick {integ}: E - W drifts by {np.abs(bal - bal[0]).max()}")


def parity():
    r = run("simulate", KICK, "--method", "kane")
    check(r.returncode != 0 and "KICK:10:1" .replace("KICK", KICK) in r.stderr and
          "not supported yet under Kane's method" in r.stderr, f"kick under Kane: {r.stderr}")
    for path, methods in ((BOUNCE, ("lagrange", "kane")), (KICK, ("lagrange",))):
        for method in methods:
            r = run("simulate", path, "--method", method, *TOL)
            what = f"parity {os.path.basename(path)} --method {method}"
            hdr, a = csv(r.stdout)
            s = lagrange.load(path, method=method).simulate(rtol=1e-10, atol=1e-12)
            cols = [h for h in hdr if h in s]
            b = np.array([s[h] for h in cols]).T
            a = a[:, [hdr.index(h) for h in cols]]
            check(len(cols) == len(hdr) and a.shape == b.shape and np.array_equal(a, b),
                  f"{what}: the command and the library differ")
            check(s.stats["events"] == len(pairs(a)), f"{what}: stats events {s.stats['events']}")


def errors():
    cases = [("when y = 0: stop\n", "6:8", "'<' or '>'"),
             ("when y < 0 stop\n", "6:12", "':'"),
             ("when y < 0: z' = 1\n", "6:13", "unknown name 'z'"),
             ("when y < 0: y'' = 1\n", "6:13", "neither"),
             ("when y < 0: y' = 1, y' = 2\n", "6:21", "twice")]
    for text, pos, msg in cases:
        path = model_file(BASE + text)
        r = run("simulate", path)
        check(r.returncode != 0 and f"{path}:{pos}" in r.stderr and msg in r.stderr,
              f"error for {text.strip()!r}: {r.stderr.strip()}")
        os.unlink(path)


for m in ("lagrange", "kane"):
    for i in ("dopri", "bdf", "adams", "fehlberg"):
        bouncing(m, i)
stopping()
constrained()
parity()
errors()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
