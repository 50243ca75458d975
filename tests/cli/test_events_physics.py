"""Closed forms through `when` (MODEL-FORMAT 1.1, events with reset maps),
under both methods:

- the rimless wheel rolling down a slope (tests/cli/events/rimless_wheel.lag;
  McGeer 1990, Coleman et al. 1997): between impacts the energy
  1/2 l^2 w^2 + g l cos(theta - gamma) is conserved and each impact gives
  w+ = cos(2 alpha) w-, so the pre-impact speeds obey
  w-_(k+1)^2 = cos(2 alpha)^2 w-_k^2 + 4 (g/l) sin(alpha) sin(gamma)
  exactly, and tend, from a nearby start, to the fixed point
  w*^2 = 4 (g/l) sin(alpha) sin(gamma) / sin(2 alpha)^2;
- each impact's jump of W equals its closed form (the kinetic energy lost,
  (1 - cos(2 alpha)^2) T-, plus the potential's reference dropping by
  2 m g l sin(alpha) sin(gamma) to the new contact), and E - W is
  conserved through every impact of the wheel and of the bouncing ball
  (examples/bouncing_ball.lag), whose impact times and apex heights
  h0 e^(2k) are the closed form's.

(A ball with e = 0 that lands and stays needs `contact`, not `when`: after
y' = 0 at y = 0 gravity takes it through the floor with no new crossing;
tests of `contact` cover it.)

Ends "N passed, N failed"."""
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy as np
except ImportError:
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
WHEEL = os.path.join(ROOT, "tests", "cli", "events", "rimless_wheel.lag")
BALL = os.path.join(ROOT, "examples", "bouncing_ball.lag")
TOL = ["--rtol", "1e-12", "--atol", "1e-12", "--integrator", "dopri"]
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


def simulate(path, *args):
    r = subprocess.run([BIN, "simulate", path, *TOL, *args], capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        return None, None, r.stderr
    lines = r.stdout.strip().splitlines()
    hdr = lines[0].split(",")
    return hdr, np.array([[float(x) for x in ln.split(",")] for ln in lines[1:]]), r.stderr


def pairs(a):
    return [i for i in range(len(a) - 1) if a[i, 0] == a[i + 1, 0]]


def wheel(method):
    what = f"rimless wheel --method {method}"
    m, g, l, alpha, gamma = 1.0, 9.81, 1.0, math.pi / 8, 0.1
    hdr, a, err = simulate(WHEEL, "--method", method)
    if a is None:
        check(False, f"{what}: {err.strip()[-300:]}")
        return
    th, w, E, W = (hdr.index(c) for c in ("theta", "theta'", "E", "W"))
    ev = pairs(a)
    check(len(ev) >= 30, f"{what}: {len(ev)} impacts")
    c2 = math.cos(2 * alpha)
    gain = 4 * g / l * math.sin(alpha) * math.sin(gamma)
    steady = -math.sqrt(gain / math.sin(2 * alpha) ** 2)
    worst_rec = worst_jump = worst_reset = 0.0
    for k, i in enumerate(ev):
        before, after = a[i], a[i + 1]
        check(abs(before[th] + alpha) < 1e-9, f"{what}: impact {k + 1} at theta = {before[th]!r}")
        worst_reset = max(worst_reset, abs(after[th] - alpha), abs(after[w] - c2 * before[w]))
        if k:
            want = c2 ** 2 * a[ev[k - 1], w] ** 2 + gain
            worst_rec = max(worst_rec, abs(before[w] ** 2 - want))
        jump = (-(1 - c2 ** 2) * 0.5 * m * l ** 2 * before[w] ** 2
                + 2 * m * g * l * math.sin(alpha) * math.sin(gamma))
        worst_jump = max(worst_jump, abs((after[W] - before[W]) - jump))
    check(worst_reset < 1e-14, f"{what}: the reset map (off by {worst_reset:.1e})")
    check(worst_rec < 1e-8, f"{what}: w-^2 recursion off by {worst_rec:.1e}")
    check(worst_jump < 1e-9, f"{what}: W jumps by the closed form (off by {worst_jump:.1e})")
    # from a start 10% off the steady speed the distance shrinks by
    # cos(2 alpha)^2 = 1/2 per impact: after the last impact it is below
    # 2^-len(ev) of the start's
    last = a[ev[-1], w]
    bound = 2.0 ** -(len(ev) - 2) + 1e-9
    check(abs(last - steady) < bound * abs(steady),
          f"{what}: steady pre-impact speed {last!r}, closed form {steady!r}")
    check(abs(last - steady) < 1e-8, f"{what}: steady speed to 1e-8 ({abs(last - steady):.1e})")
    bal = a[:, E] - a[:, W]
    check(np.abs(bal - bal[0]).max() < 1e-9, f"{what}: E - W drifts by {np.abs(bal - bal[0]).max():.1e}")
    check(f"{len(ev)} events" in err, f"{what}: the summary counts the impacts: {err}")


def ball(method):
    what = f"bouncing ball --method {method}"
    hdr, a, err = simulate(BALL, "--method", method)
    if a is None:
        check(False, f"{what}: {err.strip()[-300:]}")
        return
    g, e, h0 = 9.81, 0.8, 1.0
    y, yd, E, W = (hdr.index(c) for c in ("y", "y'", "E", "W"))
    v, tk, expect = math.sqrt(2 * g * h0), math.sqrt(2 * h0 / g), []
    while tk < 3:
        expect.append(tk)
        v *= e
        tk += 2 * v / g
    ev = pairs(a)
    check(len(ev) == len(expect), f"{what}: {len(ev)} impacts, closed form {len(expect)}")
    for k, (i, t) in enumerate(zip(ev, expect)):
        check(abs(a[i, 0] - t) < 1e-9, f"{what}: impact {k + 1} at {a[i, 0]!r}, closed form {t!r}")
        apex = a[i + 1, yd] ** 2 / (2 * g)
        check(abs(apex - h0 * e ** (2 * k + 2)) < 1e-9, f"{what}: apex {k + 1}: {apex!r}")
        lost = 0.5 * (1 - e ** 2) * a[i, yd] ** 2
        check(abs((a[i + 1, W] - a[i, W]) + lost) < 1e-9, f"{what}: impact {k + 1}: W jump != -lost energy")
    bal = a[:, E] - a[:, W]
    check(np.abs(bal - bal[0]).max() < 1e-9, f"{what}: E - W drifts by {np.abs(bal - bal[0]).max():.1e}")


for method in ("lagrange", "kane"):
    wheel(method)
    ball(method)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
