"""Friction in 3D contact (the isotropic Coulomb cone of `contact P plane O
n restitution e friction mu`, MODEL-FORMAT 1.1) and `friction x:` with
`contact` in one model, through the command and Python, under both
methods, against closed forms and an independent RK4 integration written
here with plain floats:

- a particle launched on the floor z = 0 in a general direction (v0x,
  v0y): a straight line decelerating at mu g along -v0/|v0|, stopping at
  t* = |v0|/(mu g) after |v0|^2/(2 mu g), then sticking (one friction
  switch); fn = m g, ft = mu m g against the velocity;
- an incline whose normal is general (neither in the xy-plane nor along
  an axis): from rest it sticks when tan(alpha) < mu, else slides at
  g (sin alpha - mu cos alpha) downhill; started sideways with tan(alpha)
  < mu its path curves and stops (RK4 of the sliding ODE, to 1e-6), then
  sticks where it stopped;
- a ball thrown onto the floor with a horizontal velocity in a general
  direction: at the impact the tangential velocity after is |vt| - mu (1 +
  e)|vn| along vt/|vt| when that is positive (sliding), else 0 (sticking),
  the normal one -e times before;
- E - W conserved in all of these;
- a cart with Coulomb friction on its coordinate (`friction x: F`)
  carrying a ball that falls onto its floor (`contact` with the plane's
  point on the cart): the cart decelerates at F/(M + m) and sticks at
  v0 (M + m)/F, the ball lands at sqrt(2 h/g) and stays with fn = m g;
- Python's simulate gives the command's rows bit for bit.

Ends "N passed, N failed"."""
import math

from event_harness import (same_run, TOL, check, csv, finish, lagrange, model_file, np, pairs, run,
                           simulate)

G = 9.81


def balance(hdr, a, what, tol=1e-8):
    bal = a[:, hdr.index("E")] - a[:, hdr.index("W")]
    d = float(np.max(np.abs(bal - bal[0])))
    check(d < tol, f"{what}: E - W drifts {d}")


FLOOR = """coordinates x y z
parameters m = 2, g = 9.81, mu = 0.4, e = 0.5
frame N
point O
point P = O + x*N.x + y*N.y + z*N.z
particle P mass m
gravity -g*N.z
contact P plane O N.z restitution e friction mu
"""


def slide():
    m, mu, v0 = 2.0, 0.4, (3.0, -2.0)
    V = math.hypot(*v0)
    ts = V / (mu * G)
    path = model_file(FLOOR + f"initial x' = {v0[0]}, y' = {v0[1]}\nsimulate 0 to 1.5 step 0.01\n")
    for method in ("lagrange", "kane"):
        for integ in ("dopri", "bdf"):
            what = f"3D slide --method {method} --integrator {integ}"
            hdr, a, r = simulate(path, what, "--method", method, "--integrator", integ)
            if a is None:
                continue
            check(hdr[-3:] == ["contact1_fn", "contact1_ft1", "contact1_ft2"], f"{what}: {hdr}")
            ev = pairs(a)
            check(len(ev) == 1 and abs(a[ev[0], 0] - ts) < 1e-8, f"{what}: events {ev}")
            check("1 friction switch" in r.stderr, f"{what}: {r.stderr}")
            tt = np.minimum(a[:, 0], ts)
            s = V * tt - mu * G * tt ** 2 / 2
            err = max(np.max(np.abs(a[:, 1] - s * v0[0] / V)),
                      np.max(np.abs(a[:, 2] - s * v0[1] / V)), np.max(np.abs(a[:, 3])))
            check(err < 1e-8, f"{what}: off the straight line by {err}")
            check(abs(a[-1, 1] - V * V / (2 * mu * G) * v0[0] / V) < 1e-8, f"{what}: stop")
            fn, f1, f2 = (hdr.index(c) for c in ("contact1_fn", "contact1_ft1", "contact1_ft2"))
            check(np.all(np.abs(a[:, fn] - m * G) < 1e-9), f"{what}: fn != m g")
            sliding = np.arange(len(a)) <= ev[0] if ev else a[:, 0] < ts
            ft = np.hypot(a[:, f1], a[:, f2])
            check(np.all(np.abs(ft[sliding] - mu * m * G) < 1e-9) and
                  np.all(ft[~sliding] < 1e-9), f"{what}: |ft|")
            # the force opposes the velocity: its work rate -mu m g |v|
            vel = a[sliding][:, [4, 5]]
            sp = np.hypot(vel[:, 0], vel[:, 1])
            check(np.all(sp > 0), f"{what}: speed")
            balance(hdr, a, what)


def breakaway():
    """At rest on the floor under a horizontal pull k t along c = (0.6,
    0.8): sticks (|ft| = k t) until k t = mu m g, then slips along c from
    rest: s = k (t - ts)^3 / (6 m)."""
    m, mu, k, c = 2.0, 0.4, 5.0, (0.6, 0.8)
    ts = mu * m * G / k
    path = model_file(FLOOR + f"force P: {k}*t*({c[0]}*N.x + {c[1]}*N.y)\n"
                      "simulate 0 to 2.5 step 0.01\n")
    for method in ("lagrange", "kane"):
        what = f"3D breakaway --method {method}"
        hdr, a, r = simulate(path, what, "--method", method)
        if a is None:
            continue
        ev = pairs(a)
        check(len(ev) == 1 and abs(a[ev[0], 0] - ts) < 1e-8, f"{what}: events "
              f"{[a[i, 0] for i in ev]}, expected {ts}")
        tau = np.maximum(a[:, 0] - ts, 0)
        s = k * tau ** 3 / (6 * m)
        err = max(np.max(np.abs(a[:, 1] - s * c[0])), np.max(np.abs(a[:, 2] - s * c[1])),
                  np.max(np.abs(a[:, 3])))
        check(err < 1e-8, f"{what}: off the closed form by {err}")
        ft = np.hypot(a[:, hdr.index("contact1_ft1")], a[:, hdr.index("contact1_ft2")])
        want = np.minimum(k * a[:, 0], mu * m * G)
        check(np.max(np.abs(ft - want)) < 1e-8, f"{what}: |ft| off by {np.max(np.abs(ft - want))}")
        balance(hdr, a, what)


def incline_model(al, be, mu, v0w, T):
    """The plane through O with normal n = (sin al cos be, sin al sin be,
    cos al); its downhill unit d and level unit h (h = z x n / |z x n|)."""
    n = (math.sin(al) * math.cos(be), math.sin(al) * math.sin(be), math.cos(al))
    h = (-n[1] / math.sin(al), n[0] / math.sin(al), 0.0)
    d = (n[1] * h[2] - n[2] * h[1], n[2] * h[0] - n[0] * h[2], n[0] * h[1] - n[1] * h[0])
    if d[2] > 0:
        d = tuple(-c for c in d)
    text = f"""coordinates x y z
parameters m = 1.5, g = 9.81, mu = {mu}
frame N
point O
point P = O + x*N.x + y*N.y + z*N.z
particle P mass m
gravity -g*N.z
contact P plane O {n[0]!r}*N.x + {n[1]!r}*N.y + {n[2]!r}*N.z restitution 0 friction mu
initial x' = {v0w * h[0]!r}, y' = {v0w * h[1]!r}, z' = 0
simulate 0 to {T} step 0.01
"""
    return text, n, d, h


def rk4_incline(al, mu, v0w, T):
    """Plain RK4 of the slide in the plane's coordinates (s downhill, w
    level): (s, w)'' = g sin al (1, 0) - mu g cos al v/|v|, until the
    speed stops falling (the stop); returns (times, s, w, t_stop)."""
    hs = 1e-5
    st = [0.0, 0.0, 0.0, v0w]

    def f(y):
        sp = math.hypot(y[2], y[3])
        k = mu * G * math.cos(al) / sp
        return [y[2], y[3], G * math.sin(al) - k * y[2], -k * y[3]]

    out, t = [(0.0, 0.0, 0.0)], 0.0
    while t < T:
        k1 = f(st)
        k2 = f([a + hs / 2 * b for a, b in zip(st, k1)])
        k3 = f([a + hs / 2 * b for a, b in zip(st, k2)])
        k4 = f([a + hs * b for a, b in zip(st, k3)])
        nxt = [a + hs / 6 * (b + 2 * c + 2 * d_ + e_)
               for a, b, c, d_, e_ in zip(st, k1, k2, k3, k4)]
        v0, v1 = math.hypot(st[2], st[3]), math.hypot(nxt[2], nxt[3])
        if v1 > v0 or nxt[2] * st[2] + nxt[3] * st[3] < 0 or v1 < 1e-7:
            return out, t
        st, t = nxt, t + hs
        out.append((t, st[0], st[1]))
    return out, None


def incline():
    al, be = 0.5, 0.7
    for mu, slides in ((0.3, True), (0.6, False)):
        text, n, d, h = incline_model(al, be, mu, 0.0, 1.0)
        path = model_file(text)
        for method in ("lagrange", "kane"):
            what = f"3D incline from rest mu = {mu} --method {method}"
            hdr, a, r = simulate(path, what, "--method", method)
            if a is None:
                continue
            acc = G * (math.sin(al) - mu * math.cos(al)) if slides else 0
            sv = acc * a[:, 0] ** 2 / 2
            err = max(np.max(np.abs(a[:, 1 + i] - sv * d[i])) for i in range(3))
            check(err < 1e-8 and not pairs(a), f"{what}: off the closed form by {err}")
            fn = a[:, hdr.index("contact1_fn")]
            check(np.all(np.abs(fn - 1.5 * G * math.cos(al)) < 1e-9), f"{what}: fn {fn[0]}")
            ft = np.hypot(a[:, hdr.index("contact1_ft1")], a[:, hdr.index("contact1_ft2")])
            want = 1.5 * G * (mu * math.cos(al) if slides else math.sin(al))
            check(np.all(np.abs(ft - want) < 1e-9), f"{what}: |ft| {ft[0]}, expected {want}")
            balance(hdr, a, what)
    mu, v0w, T = 0.6, 2.0, 3.0  # tan(0.5) = 0.546 < 0.6: curves, stops, sticks
    text, n, d, h = incline_model(al, be, mu, v0w, T)
    path = model_file(text)
    ref, tstop = rk4_incline(al, mu, v0w, T)
    check(tstop is not None and 1 < tstop < T - 0.5, f"RK4 stop at {tstop}")
    for method in ("lagrange", "kane"):
        what = f"3D incline sideways --method {method}"
        hdr, a, r = simulate(path, what, "--method", method)
        if a is None or tstop is None:
            continue
        ev = pairs(a)
        check(len(ev) == 1 and abs(a[ev[0], 0] - tstop) < 1e-4, f"{what}: stop at "
              f"{[a[i, 0] for i in ev]}, RK4 {tstop}")
        err, compared = 0.0, 0
        # RK4's rows are 1e-5 apart: every output time (0.01 apart) is one of them
        for row in a:
            t = row[0]
            j = int(round(t * 1e5))
            if t > tstop:
                j = len(ref) - 1
            elif abs(j - t * 1e5) > 1e-6 or j >= len(ref):
                continue
            _, s, w = ref[j]
            p = [s * d[i] + w * h[i] for i in range(3)]
            err = max(err, max(abs(row[1 + i] - p[i]) for i in range(3)))
            compared += 1
        check(compared > 250 and err < 1e-6, f"{what}: off RK4 by {err} ({compared} rows)")
        g = a[:, 1] * n[0] + a[:, 2] * n[1] + a[:, 3] * n[2]
        check(np.max(np.abs(g)) < 1e-9, f"{what}: leaves the plane")
        check(np.all(np.abs(a[a[:, 0] > tstop + 1e-3][:, 4:7]) < 1e-12) if ev else False,
              f"{what}: not stuck after the stop")
        balance(hdr, a, what)


def skid():
    e, h0, vt0 = 0.5, 1.0, (2.0, 1.5)
    V = math.hypot(*vt0)
    vn = math.sqrt(2 * G * h0)
    t1 = math.sqrt(2 * h0 / G)
    for mu in (0.2, 1.0):
        path = model_file(FLOOR.replace("mu = 0.4", f"mu = {mu}") +
                          f"initial z = {h0}, x' = {vt0[0]}, y' = {vt0[1]}\n"
                          "simulate 0 to 0.8 step 0.01\n")
        for method in ("lagrange", "kane"):
            what = f"3D skid mu = {mu} --method {method}"
            hdr, a, r = simulate(path, what, "--method", method)
            if a is None:
                continue
            ev = pairs(a)
            left = max(V - mu * (1 + e) * vn, 0)
            want = (left * vt0[0] / V, left * vt0[1] / V, e * vn)
            got = tuple(a[ev[0] + 1, 4:7]) if ev else None
            check(len(ev) >= 1 and abs(a[ev[0], 0] - t1) < 1e-8 and
                  max(abs(x - y) for x, y in zip(got, want)) < 1e-8,
                  f"{what}: after {got}, expected {want}")
            loss = a[ev[0] + 1, hdr.index("W")] - a[ev[0], hdr.index("W")] if ev else 0
            m = 2.0
            de = m / 2 * (want[0] ** 2 + want[1] ** 2 + want[2] ** 2 - V * V - vn * vn)
            check(abs(loss - de) < 1e-8, f"{what}: W jumps {loss}, expected {de}")
            balance(hdr, a, what)


CART = """coordinates x y
parameters M = 3, m = 1, g = 9.81, F = 4
frame N
point O
point C = O + x*N.x
point P = O + x*N.x + y*N.y
particle C mass M
particle P mass m
gravity -g*N.y
friction x: F
contact P plane C N.y restitution 0
initial x' = 4, y = 0.5
simulate 0 to 7 step 0.01
"""


def cart():
    M, m, F, v0, h = 3.0, 1.0, 4.0, 4.0, 0.5
    ts, t1 = v0 * (M + m) / F, math.sqrt(2 * h / G)
    path = model_file(CART)
    for method in ("lagrange", "kane"):
        for integ in ("dopri", "bdf"):
            what = f"cart with friction and contact --method {method} --integrator {integ}"
            hdr, a, r = simulate(path, what, "--method", method, "--integrator", integ)
            if a is None:
                continue
            t = a[:, 0]
            tt = np.minimum(t, ts)
            err = np.max(np.abs(a[:, 1] - (v0 * tt - F / (M + m) * tt ** 2 / 2)))
            check(err < 1e-8, f"{what}: x off v0 t - F t^2/(2 (M + m)) by {err}")
            ty = np.minimum(t, t1)
            err = np.max(np.abs(a[:, 2] - (h - G * ty ** 2 / 2)))
            check(err < 1e-8, f"{what}: y off by {err}")
            ev = pairs(a)
            check(len(ev) == 2 and abs(a[ev[0], 0] - t1) < 1e-8 and abs(a[ev[1], 0] - ts) < 1e-8,
                  f"{what}: events at {[a[i, 0] for i in ev]}")
            check("(1 impact, 0 lift-offs, 1 friction switch" in r.stderr, f"{what}: {r.stderr}")
            fn = a[:, hdr.index("contact1_fn")]
            after = np.arange(len(a)) > ev[0] if ev else t > t1
            check(np.all(np.abs(fn[after] - m * G) < 1e-9) and np.all(fn[~after] == 0),
                  f"{what}: fn")
            balance(hdr, a, what)


def parity():
    paths = [model_file(FLOOR + "initial x' = 3, y' = -2\nsimulate 0 to 1.5 step 0.01\n"),
             model_file(CART)]
    for path in paths:
        for method in ("lagrange", "kane"):
            s, a, what = same_run(path, method, path)
            check(s.stats["impacts"] + s.stats["friction_switches"] == len(pairs(a)),
                  f"{what}: stats {s.stats}")


slide()
breakaway()
incline()
skid()
cart()
parity()
finish()
