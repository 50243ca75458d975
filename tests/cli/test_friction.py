"""Coulomb friction on a coordinate (`friction x: F [static Fs]`,
MODEL-FORMAT 1.1), through the command and Python, under both methods and
every integrator family, against closed forms:

- a block on a spring (tests/cli/friction/coulomb.lag, m x'' = -k x - F
  sign(x')) from x0 at rest: a switch every half period pi sqrt(m/k), the
  amplitude falling by 2F/k each half cycle, the block at rest for good in
  the band |x| <= F/k at the closed-form position and time; E - W
  conserved; a start inside the band sticks (no event);
- a block on an incline (incline.lag): slides at g (sin(alpha) - mu
  cos(alpha)) when tan(alpha) > mu, sticks when tan(alpha) < mu;
- static above kinetic (push.lag): a force a t frees the block at
  t* = Fs/a, then x = a (t - t*)^3/(6m) + (Fs - F)(t - t*)^2/(2m);
- with a constraint (slope_constrained.lag): the slide along the line;
- Python's simulate gives the command's rows bit for bit;
- errors at line:col (unknown name, not a coordinate, twice, negative F,
  Fs < F, Kane's method with speeds of its own).

Ends "N passed, N failed"."""
import math
import os

from event_harness import (same_run, ROOT, TOL, check, csv, finish, lagrange, model_file, np, pairs,
                           run, simulate)
DIR = os.path.join(ROOT, "tests", "cli", "friction")
COULOMB, INCLINE, PUSH, SLOPE = (os.path.join(DIR, f + ".lag") for f in
                                 ("coulomb", "incline", "push", "slope_constrained"))


def coulomb(method, integ):
    what = f"coulomb --method {method} --integrator {integ}"
    hdr, a, r = simulate(COULOMB, what, "--method", method, "--integrator", integ)
    if a is None:
        return
    m, k, F, x0 = 2.0, 50.0, 3.0, 0.5
    half = math.pi * math.sqrt(m / k)
    amp, expect = x0, []
    while abs(amp) > F / k:  # each half cycle: |A| falls by 2F/k, the sign flips
        amp = -(abs(amp) - 2 * F / k) * math.copysign(1, amp)
        expect.append((len(expect) + 1) * half)
    ev = pairs(a)
    check(len(ev) == len(expect), f"{what}: {len(ev)} events, expected {len(expect)}")
    x, xd, E, W = (hdr.index(c) for c in ("x", "x'", "E", "W"))
    amp = x0
    for i, te in zip(ev, expect):
        amp = -(abs(amp) - 2 * F / k) * math.copysign(1, amp)
        check(abs(a[i, 0] - te) < 1e-8, f"{what}: switch at {a[i, 0]!r}, expected {te!r}")
        check(abs(a[i, x] - amp) < 1e-8, f"{what}: turning point {a[i, x]!r}, expected {amp!r}")
        check(a[i + 1, xd] == 0, f"{what}: the rate after a switch is {a[i + 1, xd]!r}")
    last = ev[-1] if ev else 0
    rest = a[last + 1:, x]
    check(abs(amp) <= F / k and np.all(np.abs(rest - amp) < 1e-8) and
          np.all(a[last + 1:, xd] == 0), f"{what}: not at rest at {amp} after the last switch")
    bal = a[:, E] - a[:, W]
    tol = 1e-8 if integ in ("dopri", "fehlberg") else 5e-8
    check(np.max(np.abs(bal - bal[0])) < tol, f"{what}: E - W drifts {np.max(np.abs(bal - bal[0]))}")
    # the work of friction: F times the path length
    path = sum(2 * x0 - 2 * F / k * (2 * j + 1) for j in range(len(expect)))
    check(abs(a[-1, W] + F * path) < 1e-7, f"{what}: W = {a[-1, W]}, expected {-F * path}")
    check(f"{len(expect)} events ({len(expect)} friction switches" in r.stderr,
          f"{what}: summary {r.stderr}")


def band_start():
    text = open(COULOMB).read().replace("initial x = 0.5", "initial x = 0.05")
    path = model_file(text)
    for method in ("lagrange", "kane"):
        hdr, a, r = simulate(path, f"in the band --method {method}", "--method", method)
        if a is not None:
            check(not pairs(a) and np.max(np.abs(a[:, 1] - 0.05)) < 1e-15 and "event" not in r.stderr,
                  f"a start inside the band |x| <= F/k moved: {r.stderr}")
    os.unlink(path)


def incline():
    g, al = 9.81, 0.4
    for method in ("lagrange", "kane"):
        for integ in ("dopri", "bdf"):
            what = f"incline --method {method} --integrator {integ}"
            hdr, a, r = simulate(INCLINE, what, "--method", method, "--integrator", integ)
            if a is None:
                continue
            acc = g * (math.sin(al) - 0.3 * math.cos(al))
            err = np.max(np.abs(a[:, 1] - acc * a[:, 0] ** 2 / 2))
            check(err < 1e-8 and not pairs(a), f"{what}: slides off x = a t^2/2 by {err}")
            bal = a[:, hdr.index("E")] - a[:, hdr.index("W")]
            check(np.max(np.abs(bal)) < 1e-8, f"{what}: E - W drifts")
            # mu = 0.5 > tan(0.4): sticks
            r = run("simulate", INCLINE, "--set", "mu=0.5", "--method", method, "--integrator",
                    integ, *TOL)
            hdr, a = csv(r.stdout)
            check(r.returncode == 0 and np.all(a[:, 1] == 0) and not pairs(a),
                  f"{what} mu = 0.5: moved {r.stderr}")
    check(0.3 < math.tan(al) < 0.5, "the incline's angle is between the two mu")


def push():
    m, A, F, Fs = 2.0, 3.0, 4.0, 6.5
    ts = Fs / A
    for method in ("lagrange", "kane"):
        for integ in ("dopri", "fehlberg", "bdf", "adams", "ida"):
            what = f"push --method {method} --integrator {integ}"
            hdr, a, r = simulate(PUSH, what, "--method", method, "--integrator", integ)
            if a is None:
                continue
            ev = pairs(a)
            check(len(ev) == 1 and abs(a[ev[0], 0] - ts) < 1e-8, f"{what}: events {ev}")
            t = a[:, 0]
            d = np.maximum(t - ts, 0)
            x = A * d ** 3 / (6 * m) + (Fs - F) * d ** 2 / (2 * m)
            err = np.max(np.abs(a[:, 1] - x))
            check(err < 1e-8, f"{what}: off the closed form by {err}")
            check(np.all(a[t < ts, 1] == 0), f"{what}: moved before t* = Fs/a")


def constrained():
    m, g, al, Fx = 1.0, 9.81, 0.5, 2.0
    acc = g * math.sin(al) - Fx * math.cos(al) / m  # along the line
    for integ in ("dopri", "bdf", "ida"):
        what = f"constrained --integrator {integ}"
        hdr, a, r = simulate(SLOPE, what, "--integrator", integ)
        if a is None:
            continue
        s = acc * a[:, 0] ** 2 / 2
        err = max(np.max(np.abs(a[:, 1] - s * math.cos(al))),
                  np.max(np.abs(a[:, 2] + s * math.sin(al))))
        check(err < 1e-8, f"{what}: off the closed form by {err}")
        bal = a[:, hdr.index("E")] - a[:, hdr.index("W")]
        check(np.max(np.abs(bal)) < 1e-8, f"{what}: E - W drifts {np.max(np.abs(bal))}")
    # sticks when m g sin(alpha) <= Fx cos(alpha)
    r = run("simulate", SLOPE, "--set", "Fx=6", *TOL)
    hdr, a = csv(r.stdout)
    check(r.returncode == 0 and np.max(np.abs(a[:, 1:3])) < 1e-12, f"constrained sticks: {r.stderr}")


def parity():
    for path in (COULOMB, PUSH):
        for method in ("lagrange", "kane"):
            s, a, what = same_run(path, method, os.path.basename(path))
            check(s.stats["events"] == len(pairs(a)) and
                  s.stats["friction_switches"] == len(pairs(a)),
                  f"{what}: stats {s.stats['events']} {s.stats['friction_switches']}")


BASE = """coordinates x
parameters m = 1, k = 1
T = 1/2*m*x'^2
V = k/2*x^2
initial x = 1
"""


def errors():
    cases = [("friction y: 1\n", "6:10", "unknown name 'y'"),
             ("friction k: 1\n", "6:10", "not one"),
             ("friction x 1\n", "6:12", "':'"),
             ("friction x: 1\nfriction x: 2\n", "7:10", "already has friction"),
             ("friction x: -1\n", "6:1", "negative"),
             ("friction x: 2 static 1\n", "6:1", "below the kinetic"),
             ("friction x: 1, 2\n", "6:14", "static")]
    for text, pos, msg in cases:
        path = model_file(BASE + text)
        r = run("simulate", path)
        check(r.returncode != 0 and f"{path}:{pos}" in r.stderr and msg in r.stderr,
              f"error for {text.strip()!r}: {r.stderr.strip()}")
        os.unlink(path)
    path = model_file("coordinates x\nspeeds u\nparameters m = 1\nframe N\npoint O\n"
                      "point P = O + x*N.x\nparticle P mass m\nkinematics x' = u\n"
                      "friction x: 1\ninitial u = 1\n")
    r = run("simulate", path, "--method", "kane")
    check(r.returncode != 0 and f"{path}:9:1" in r.stderr and "Kane's method" in r.stderr,
          f"friction under Kane's speeds: {r.stderr.strip()}")
    os.unlink(path)


for meth in ("lagrange", "kane"):
    for i in ("dopri", "fehlberg", "bdf", "adams", "ida"):
        coulomb(meth, i)
band_start()
incline()
push()
constrained()
parity()
errors()
finish()
