"""Contact with a plane (`contact P plane O n restitution e [friction
mu]`, MODEL-FORMAT 1.1; friction in planar models, in 3D: test_contact3d.py), through the command and Python, under both methods
and several integrators, against closed forms:

- a ball bouncing (tests/cli/contact/ball.lag): impact times t_k and apex
  heights h0 e^(2k) to 1e-8, E - W conserved; the impacts accumulate and
  the ball rests in persistent contact before t_inf = sqrt(2 h0/g)(1 + e)/
  (1 - e) with a bounded number of events, then fn = m g;
- e = 0: lands and stays, fn = m g;
- a tilted plane with an unnormalized normal (tilted.lag), a rising floor
  (elevator.lag: the plane's point moves with t), a rod falling flat onto
  one end (rod.lag: the impulse equations' closed form), a lift-off when
  a growing pull cancels the normal force (lift.lag);
- a pendulum in Cartesian coordinates with its constraint striking a
  wall (pendulum_wall.lag): the impulse keeps the constraint, x' after is
  -e times before;
- friction in planar contact: a block launched on the floor (slide.lag)
  decelerates at mu g and sticks at v0/(mu g); on an incline
  (incline_contact.lag) it sticks when tan(alpha) < mu, else slides at
  g (sin(alpha) - mu cos(alpha)); an impact with friction (skid.lag) keeps
  vx - mu (1 + e)|vy|, or stops the skid when that is enough;
- Python's simulate gives the command's rows bit for bit;
- errors at line:col.

Ends "N passed, N failed"."""
import math
import os

from event_harness import (same_run, ROOT, TOL, check, csv, finish, lagrange, model_file, np, pairs,
                           run, simulate)
DIR = os.path.join(ROOT, "tests", "cli", "contact")
BALL, ROD, ELEVATOR, TILTED, LIFT = (os.path.join(DIR, f + ".lag") for f in
                                     ("ball", "rod", "elevator", "tilted", "lift"))


def ball(method, integ):
    what = f"ball --method {method} --integrator {integ}"
    hdr, a, r = simulate(BALL, what, "--method", method, "--integrator", integ)
    if a is None:
        return
    m, g, e, h0 = 2.0, 9.81, 0.8, 1.0
    y, yd, E, W, fn = (hdr.index(c) for c in ("y", "y'", "E", "W", "contact1_fn"))
    check(hdr[-1] == "contact1_fn" and hdr[hdr.index("W") + 1] == "contact1_fn",
          f"{what}: columns {hdr}")
    ev = pairs(a)
    v, tk = math.sqrt(2 * g * h0), math.sqrt(2 * h0 / g)
    tinf = math.sqrt(2 * h0 / g) * (1 + e) / (1 - e)
    checked = 0
    for k, i in enumerate(ev):
        if v * v / (2 * g) < 1e-6:  # the first bounces, down to a micrometre
            break
        check(abs(a[i, 0] - tk) < 1e-8, f"{what}: impact {k} at {a[i, 0]!r}, expected {tk!r}")
        check(abs(a[i, y]) < 1e-9 and a[i, yd] < 0, f"{what}: impact {k} at y = {a[i, y]}")
        apex = a[i + 1, yd] ** 2 / (2 * g)
        check(abs(apex - h0 * e ** (2 * (k + 1))) < 1e-8,
              f"{what}: apex {k + 1} = {apex!r}, expected {h0 * e ** (2 * (k + 1))!r}")
        v *= e
        tk += 2 * v / g
        checked += 1
    check(checked >= 25, f"{what}: only {checked} impacts compared")
    check(10 < len(ev) < 100 and a[ev[-1], 0] < tinf, f"{what}: {len(ev)} events, last at "
          f"{a[ev[-1], 0] if ev else None} (t_inf {tinf})")
    rest = a[ev[-1] + 1:] if ev else a[:0]
    check(len(rest) > 100 and np.all(np.abs(rest[:, y]) < 1e-9) and np.all(rest[:, yd] == 0) and
          np.all(np.abs(rest[:, fn] - m * g) < 1e-9), f"{what}: not resting with fn = m g")
    check(np.all(a[:ev[-1] + 1, fn] == 0), f"{what}: fn nonzero while bouncing")
    bal = a[:, E] - a[:, W]
    check(np.max(np.abs(bal - bal[0])) < 1e-8, f"{what}: E - W drifts {np.max(np.abs(bal - bal[0]))}")
    check(f"{len(ev)} events ({len(ev)} impacts, 0 lift-offs" in r.stderr, f"{what}: {r.stderr}")


def plastic():
    path = model_file(open(BALL).read().replace("e = 0.8", "e = 0"))
    for method in ("lagrange", "kane"):
        what = f"e = 0 --method {method}"
        hdr, a, r = simulate(path, what, "--method", method)
        if a is None:
            continue
        ev = pairs(a)
        t1 = math.sqrt(2 / 9.81)
        check(len(ev) == 1 and abs(a[ev[0], 0] - t1) < 1e-8, f"{what}: events {ev}")
        after = a[ev[0] + 1:]
        check(np.all(np.abs(after[:, 2]) < 1e-9) and np.all(after[:, 4] == 0) and
              np.all(np.abs(after[:, -1] - 2 * 9.81) < 1e-9) and np.all(np.abs(after[:, 3] - 0.3) < 1e-12),
              f"{what}: does not stay with fn = m g")
    os.unlink(path)


def tilted():
    g, e, b = 9.81, 0.6, 0.3
    t1 = math.sqrt(2 / g)
    v0 = g * t1
    n = np.array([-math.sin(b), math.cos(b)])
    vp = np.array([0, -v0]) + (1 + e) * v0 * math.cos(b) * n
    for method in ("lagrange", "kane"):
        what = f"tilted --method {method}"
        hdr, a, r = simulate(TILTED, what, "--method", method)
        if a is None:
            continue
        ev = pairs(a)
        check(len(ev) == 1 and abs(a[ev[0], 0] - t1) < 1e-8, f"{what}: events {ev}")
        if ev:
            got = a[ev[0] + 1, 3:5]
            check(np.max(np.abs(got - vp)) < 1e-8, f"{what}: after {got}, expected {vp}")


def elevator():
    g, e, u, h = 9.81, 0.7, 0.5, 1.0
    t1 = (-u + math.sqrt(u * u + 2 * g * h)) / g
    for integ in ("dopri", "bdf"):
        what = f"elevator --integrator {integ}"
        hdr, a, r = simulate(ELEVATOR, what, "--integrator", integ)
        if a is None:
            continue
        ev = pairs(a)
        check(len(ev) == 1 and abs(a[ev[0], 0] - t1) < 1e-8, f"{what}: events {ev}")
        if ev:
            check(abs(a[ev[0] + 1, 2] - (u + e * (g * t1 + u))) < 1e-8,
                  f"{what}: y' after {a[ev[0] + 1, 2]}")


def rod():
    m, l, g, e, h = 1.5, 0.8, 9.81, 0.5, 0.5
    t1 = math.sqrt(2 * h / g)
    v0 = g * t1
    for method in ("lagrange", "kane"):
        for integ in ("dopri", "bdf"):
            what = f"rod --method {method} --integrator {integ}"
            hdr, a, r = simulate(ROD, what, "--method", method, "--integrator", integ)
            if a is None:
                continue
            ev = pairs(a)
            check(len(ev) >= 1 and abs(a[ev[0], 0] - t1) < 1e-8, f"{what}: events {ev}")
            if not ev:
                continue
            yd, thd = hdr.index("y'"), hdr.index("th'")
            i = ev[0] + 1
            check(abs(a[i, yd] - (-v0 + (1 + e) * v0 / 4)) < 1e-8 and
                  abs(a[i, thd] - 3 * (1 + e) * v0 / (2 * l)) < 1e-8,
                  f"{what}: after ({a[i, yd]}, {a[i, thd]})")
            bal = a[:, hdr.index("E")] - a[:, hdr.index("W")]
            loss = a[i, hdr.index("W")]
            # the impact's loss: T- - T+
            tm = 0.5 * m * v0 ** 2
            vy, w = a[i, yd], a[i, thd]
            tp = 0.5 * m * vy ** 2 + 0.5 * m * l ** 2 / 12 * w ** 2
            check(np.max(np.abs(bal - bal[0])) < 1e-8 and abs(loss - (tp - tm)) < 1e-8,
                  f"{what}: W {loss}, expected {tp - tm}")


def lift():
    m, g, A = 2.0, 9.81, 7.0
    ts = m * g / A
    for method in ("lagrange", "kane"):
        what = f"lift --method {method}"
        hdr, a, r = simulate(LIFT, what, "--method", method)
        if a is None:
            continue
        ev = pairs(a)
        check(len(ev) == 1 and abs(a[ev[0], 0] - ts) < 1e-8 and "1 lift-off" in r.stderr,
              f"{what}: events {ev}")
        t = a[:, 0]
        before = t < ts - 1e-9
        check(np.max(np.abs(a[before, -1] - (m * g - A * t[before]))) < 1e-9,
              f"{what}: fn != m g - a t before the lift-off")
        d = np.maximum(t - ts, 0)
        err = np.max(np.abs(a[:, 1] - A * d ** 3 / (6 * m)))
        check(err < 1e-8, f"{what}: off y = a (t - t*)^3 / (6m) by {err}")


def pendulum_wall():
    g, l, e, th0 = 9.81, 1.0, 0.5, 1.0
    v = math.sqrt(2 * g * l * (1 - math.cos(th0)))
    path = os.path.join(DIR, "pendulum_wall.lag")
    for integ in ("dopri", "bdf", "ida"):
        what = f"pendulum at a wall --integrator {integ}"
        hdr, a, r = simulate(path, what, "--integrator", integ)
        if a is None:
            continue
        ev = pairs(a)
        check(len(ev) == 1, f"{what}: events {ev}")
        if not ev:
            continue
        x, xd, yd = (hdr.index(c) for c in ("x", "x'", "y'"))
        i = ev[0]
        check(abs(a[i, xd] + v) < 1e-8 and abs(a[i + 1, xd] - e * v) < 1e-8 and
              abs(a[i + 1, yd]) < 1e-9, f"{what}: x' {a[i, xd]} -> {a[i + 1, xd]}, expected "
              f"{-v} -> {e * v}")
        apex = np.max(a[i + 1:, x])  # sin(th1), cos(th1) = 1 - e^2 (1 - cos(th0))
        th1 = math.acos(1 - e * e * (1 - math.cos(th0)))
        check(abs(apex - l * math.sin(th1)) < 1e-4, f"{what}: apex {apex}, expected "
              f"{l * math.sin(th1)} (to the output step)")
        check("max constraint residual" in r.stderr and np.all(a[:, hdr.index("contact1_fn")] == 0),
              f"{what}: {r.stderr}")


def friction():
    g = 9.81
    path = os.path.join(DIR, "slide.lag")
    m, mu, v0 = 2.0, 0.4, 3.0
    ts = v0 / (mu * g)
    for method in ("lagrange", "kane"):
        for integ in ("dopri", "bdf"):
            what = f"slide --method {method} --integrator {integ}"
            hdr, a, r = simulate(path, what, "--method", method, "--integrator", integ)
            if a is None:
                continue
            ev = pairs(a)
            check(len(ev) == 1 and abs(a[ev[0], 0] - ts) < 1e-8, f"{what}: events {ev}")
            t = a[:, 0]
            tt = np.minimum(t, ts)
            err = np.max(np.abs(a[:, 1] - (v0 * tt - mu * g * tt ** 2 / 2)))
            check(err < 1e-8, f"{what}: off x = v0 t - mu g t^2/2 by {err}")
            fn, ft = hdr.index("contact1_fn"), hdr.index("contact1_ft")
            check(np.all(np.abs(a[:, fn] - m * g) < 1e-9), f"{what}: fn != m g")
            sliding = np.arange(len(a)) <= ev[0] if ev else t < ts
            check(np.all(np.abs(a[sliding, ft] + mu * m * g) < 1e-9) and
                  np.all(np.abs(a[~sliding, ft]) < 1e-9), f"{what}: ft")
            bal = a[:, hdr.index("E")] - a[:, hdr.index("W")]
            check(np.max(np.abs(bal - bal[0])) < 1e-8, f"{what}: E - W drifts")
    path = os.path.join(DIR, "incline_contact.lag")
    al = 0.5
    for mu, slides in ((0.3, True), (0.6, False)):
        what = f"incline in contact mu = {mu}"
        hdr, a, r = simulate(path, what, "--set", f"mu={mu}")
        if a is None:
            continue
        acc = g * (math.sin(al) - mu * math.cos(al)) if slides else 0
        sv = acc * a[:, 0] ** 2 / 2
        err = max(np.max(np.abs(a[:, 1] - sv * math.cos(al))),
                  np.max(np.abs(a[:, 2] + sv * math.sin(al))))
        check(err < 1e-8 and not pairs(a), f"{what}: off the closed form by {err}")
        ft = a[:, hdr.index("contact1_ft")]
        want = -mu * g * math.cos(al) if slides else -g * math.sin(al)
        check(np.all(np.abs(ft - want) < 1e-9), f"{what}: ft {ft[0]}, expected {want}")
    path = os.path.join(DIR, "skid.lag")
    e, vx = 0.5, 2.0
    vy = g * math.sqrt(2 / g)
    for mu in (0.2, 1.0):
        what = f"skid mu = {mu}"
        hdr, a, r = simulate(path, what, "--set", f"mu={mu}")
        if a is None:
            continue
        ev = pairs(a)
        want = max(vx - mu * (1 + e) * vy, 0)
        check(len(ev) >= 1 and abs(a[ev[0] + 1, 3] - want) < 1e-8 and
              abs(a[ev[0] + 1, 4] - e * vy) < 1e-8,
              f"{what}: after ({a[ev[0] + 1, 3]}, {a[ev[0] + 1, 4]}), expected ({want}, {e * vy})")


def parity():
    for path in (BALL, ROD, os.path.join(DIR, "slide.lag")):
        for method in ("lagrange", "kane"):
            s, a, what = same_run(path, method, os.path.basename(path))
            check(s.stats["impacts"] + s.stats["friction_switches"] == len(pairs(a)),
                  f"{what}: stats {s.stats['impacts']}")


BASE = """coordinates y
parameters m = 1, g = 9.81
frame N
point O
point P = O + y*N.y
particle P mass m
gravity -g*N.y
initial y = 1
"""


def errors():
    cases = [("contact Q plane O N.y restitution 1\n", "9:9", "unknown name 'Q'"),
             ("contact P plane m N.y restitution 1\n", "9:17", "not one"),
             ("contact P O N.y restitution 1\n", "9:11", "'plane'"),
             ("contact P plane O N.y e 1\n", "9:23", "'restitution'"),
             ("contact P plane O N.y restitution 1\ninitial y = -0.1\n", "9:1",
              "starts below its plane")]
    for text, pos, msg in cases:
        path = model_file(BASE + text)
        r = run("simulate", path)
        check(r.returncode != 0 and f"{path}:{pos}" in r.stderr and msg in r.stderr,
              f"error for {text.strip()!r}: {r.stderr.strip()}")
        os.unlink(path)
    path = model_file(BASE.replace("coordinates y", "coordinates y\nspeeds u")
                      .replace("initial y = 1", "kinematics y' = u\ninitial y = 1") +
                      "contact P plane O N.y restitution 1\n")
    r = run("simulate", path, "--method", "kane")
    check(r.returncode != 0 and f"{path}:11:1" in r.stderr and "Kane's method" in r.stderr,
          f"contact under Kane's speeds: {r.stderr.strip()}")
    os.unlink(path)
    for mu in ("0", "0.3"):  # no tangential motion: friction changes nothing
        path = model_file(BASE + f"contact P plane O N.y restitution 1 friction {mu}\n")
        r = run("simulate", path, *TOL)
        hdr, a = csv(r.stdout)
        check(r.returncode == 0 and len(pairs(a)) == 11 and np.max(a[:, 1]) < 1 + 1e-9 and
              np.min(a[:, 1]) > -1e-9, f"friction {mu} without tangential motion: {r.stderr}")
        check(hdr[-1] == ("contact1_ft" if mu != "0" else "contact1_fn"), f"columns {hdr}")
        os.unlink(path)


for meth in ("lagrange", "kane"):
    for i in ("dopri", "fehlberg", "bdf", "adams", "ida"):
        ball(meth, i)
plastic()
tilted()
elevator()
rod()
lift()
pendulum_wall()
friction()
parity()
errors()
finish()
