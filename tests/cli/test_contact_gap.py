"""Contacts on an inequality of the configuration (`contact A >= B
[restitution e]`, `<=`) and the stops of a URDF's joint limits (`contact
limits`), through the command and Python, under both methods, against
closed forms written here with plain floats:

- a pendulum released from q0 onto the stop `contact q >= 0 restitution
  e`: the impact times from the elliptic integral of the pendulum (its
  quarter period K(sin(a/2))/w, a the amplitude, evaluated by Simpson's
  rule), the arrival speed from the energy, the rebound speed e times the
  arrival one, impacts decaying; with e = 0 onto `contact q >= 0.5` it
  stops at the arrival time F(pi/2, k) - F(phi1, k) (over w) and stays in
  persistent contact with contact1_fn = m g l sin(0.5), the static torque;
- a slider on a spring hitting `contact x <= 0.1`: the impact times from
  the harmonic motion's closed form (the second one after the rebound);
- two masses with `contact x - y >= 0`: momentum conserved through the
  impact, the relative velocity after -e times before (Newton);
- E - W conserved in every run, under both methods;
- a 2-link arm URDF with limits: `import` + `contact limits restitution 0`
  stops the shoulder at its upper limit (never beyond, to the tolerance)
  while the elbow keeps moving; without it the shoulder passes the limit;
  the columns in joint order, lower then upper; a limit with lower >=
  upper is left out with a note;
- `limits` is a name elsewhere (a parameter, a coordinate);
- errors at file:line:col with a hint: `contact limits` with no limits,
  friction on a gap contact, a q' in the inequality, a start violating a
  stop (plain and URDF), `>` for `>=`;
- Python's simulate gives the command's rows bit for bit.

Ends "N passed, N failed"."""
import math
import os
import shutil
import tempfile

from event_harness import (same_run, TOL, check, csv, finish, model_file, np, pairs, run,
                           simulate)

G = 9.81
METHODS = ("lagrange", "kane")


def balance(hdr, a, what, tol=1e-8):
    bal = a[:, hdr.index("E")] - a[:, hdr.index("W")]
    d = float(np.max(np.abs(bal - bal[0])))
    check(d < tol, f"{what}: E - W drifts {d}")


def ellip_f(phi, k, n=2000):
    """F(phi, k) = integral_0^phi dt / sqrt(1 - k^2 sin^2 t), Simpson's rule (smooth)."""
    h = phi / n
    s = 0.0
    for i in range(n + 1):
        w = 1 if i in (0, n) else (4 if i % 2 else 2)
        s += w / math.sqrt(1 - (k * math.sin(i * h)) ** 2)
    return s * h / 3


PEND = """coordinates q
parameters m = 1.5, g = 9.81, l = 0.8, e = {e}
frame N
point O
point P = O + l*sin(q)*N.x - l*cos(q)*N.y
particle P mass m
gravity -g*N.y
contact q >= {stop} restitution e
initial q = {q0}
simulate 0 to {tf} step 0.05
"""


def pendulum_bounces():
    m, l, e, q0 = 1.5, 0.8, 0.6, 1.0
    w = math.sqrt(G / l)
    # impact k: arrival speed v_k, amplitude a_k of the swing before it
    times, speeds = [], []
    t, a = 0.0, q0
    for k in range(4):
        quarter = ellip_f(math.pi / 2, math.sin(a / 2)) / w
        t += quarter if k == 0 else 2 * quarter
        v = math.sqrt(2 * G / l * (1 - math.cos(a)))
        times.append(t)
        speeds.append(v)
        a = math.acos(1 - (e * v) ** 2 * l / (2 * G))  # the rebound's amplitude
    path = model_file(PEND.format(e=e, stop=0, q0=q0, tf=3.6))
    for method in METHODS:
        what = f"pendulum onto q >= 0, --method {method}"
        hdr, a_, r = simulate(path, what, "--method", method)
        if hdr is None:
            continue
        ev = pairs(a_)
        iq, iv = hdr.index("q"), hdr.index("q'")
        check(len(ev) >= 4, f"{what}: {len(ev)} impacts")
        for k, i in enumerate(ev[:4]):
            check(abs(a_[i, 0] - times[k]) < 1e-7, f"{what}: impact {k + 1} at {a_[i, 0]}, "
                  f"closed form {times[k]}")
            check(abs(a_[i, iq]) < 1e-8, f"{what}: impact {k + 1} at q = {a_[i, iq]}")
            check(abs(a_[i, iv] + speeds[k]) < 1e-6, f"{what}: arrival {a_[i, iv]} vs "
                  f"{-speeds[k]}")
            check(abs(a_[i + 1, iv] - e * speeds[k]) < 1e-6,
                  f"{what}: rebound {a_[i + 1, iv]} vs e v = {e * speeds[k]}")
        reb = [a_[i + 1, iv] for i in ev]
        check(all(x > y for x, y in zip(reb, reb[1:])), f"{what}: rebounds not decaying {reb}")
        check(float(np.min(a_[:, iq])) > -1e-9, f"{what}: q below the stop {np.min(a_[:, iq])}")
        balance(hdr, a_, what)
        same_run(path, method, "pendulum bounces")
    os.unlink(path)


def pendulum_rest():
    m, l, q0, stop = 1.5, 0.8, 1.2, 0.5
    w = math.sqrt(G / l)
    k = math.sin(q0 / 2)
    phi1 = math.asin(math.sin(stop / 2) / k)
    t1 = (ellip_f(math.pi / 2, k) - ellip_f(phi1, k)) / w
    v1 = math.sqrt(2 * G / l * (math.cos(stop) - math.cos(q0)))
    fn = m * G * l * math.sin(stop)
    path = model_file(PEND.format(e=0, stop=stop, q0=q0, tf=2))
    for method in METHODS:
        what = f"pendulum onto q >= 0.5, e = 0, --method {method}"
        hdr, a, r = simulate(path, what, "--method", method)
        if hdr is None:
            continue
        ev = pairs(a)
        iq, iv, ifn = hdr.index("q"), hdr.index("q'"), hdr.index("contact1_fn")
        check(len(ev) == 1, f"{what}: {len(ev)} events")
        if not ev:
            continue
        i = ev[0]
        check(abs(a[i, 0] - t1) < 1e-7, f"{what}: impact at {a[i, 0]}, closed form {t1}")
        check(abs(a[i, iv] + v1) < 1e-6, f"{what}: arrival {a[i, iv]} vs {-v1}")
        after = a[i + 1:]
        check(float(np.max(np.abs(after[:, iq] - stop))) < 1e-9 and
              float(np.max(np.abs(after[:, iv]))) < 1e-9, f"{what}: not at rest on the stop")
        check(float(np.max(np.abs(after[1:, ifn] - fn))) < 1e-8,
              f"{what}: contact1_fn {after[-1, ifn]} vs m g l sin(0.5) = {fn}")
        check(float(np.max(np.abs(a[:i + 1, ifn]))) == 0, f"{what}: a force before the impact")
        balance(hdr, a, what)
        same_run(path, method, "pendulum at rest")
    os.unlink(path)


SLIDER = """coordinates x
parameters m = 2, k = 50, e = 0.7
frame N
point O
point P = O + x*N.x
particle P mass m
spring x: k, 0
contact x <= 0.1 restitution e
initial x' = 1.5
simulate 0 to 1.5 step 0.05
"""


def slider():
    m, kk, e, v0, c = 2.0, 50.0, 0.7, 1.5, 0.1
    w = math.sqrt(kk / m)
    t1 = math.asin(c * w / v0) / w
    vb = math.sqrt(v0 ** 2 - (c * w) ** 2)
    a2 = math.hypot(c, e * vb / w)
    phi = math.asin(e * vb / (a2 * w))
    t2 = t1 + (2 * math.pi - 2 * phi) / w
    path = model_file(SLIDER)
    for method in METHODS:
        what = f"slider on a spring onto x <= 0.1, --method {method}"
        hdr, a, r = simulate(path, what, "--method", method)
        if hdr is None:
            continue
        ev = pairs(a)
        ix, iv = hdr.index("x"), hdr.index("x'")
        check(len(ev) >= 2, f"{what}: {len(ev)} impacts")
        if len(ev) < 2:
            continue
        check(abs(a[ev[0], 0] - t1) < 1e-8, f"{what}: impact at {a[ev[0], 0]} vs {t1}")
        check(abs(a[ev[0], iv] - vb) < 1e-7 and abs(a[ev[0] + 1, iv] + e * vb) < 1e-7,
              f"{what}: velocity {a[ev[0], iv]} -> {a[ev[0] + 1, iv]}, closed form {vb} -> "
              f"{-e * vb}")
        check(abs(a[ev[1], 0] - t2) < 1e-7, f"{what}: second impact at {a[ev[1], 0]} vs {t2}")
        check(float(np.max(a[:, ix])) < c + 1e-9, f"{what}: x beyond 0.1")
        balance(hdr, a, what)
        same_run(path, method, "slider")
    os.unlink(path)


TWO = """coordinates x y
parameters m1 = 1, m2 = 3, e = 0.6
frame N
point O
point P = O + x*N.x
point Q = O + y*N.x
particle P mass m1
particle Q mass m2
contact x - y >= 0 restitution e
initial x = 1, x' = -1, y' = 1
simulate 0 to 1 step 0.1
"""


def two_masses():
    m1, m2, e = 1.0, 3.0, 0.6
    path = model_file(TWO)
    for method in METHODS:
        what = f"two masses, x - y >= 0, --method {method}"
        hdr, a, r = simulate(path, what, "--method", method)
        if hdr is None:
            continue
        ev = pairs(a)
        ixv, iyv = hdr.index("x'"), hdr.index("y'")
        check(len(ev) == 1, f"{what}: {len(ev)} impacts")
        if not ev:
            continue
        i = ev[0]
        check(abs(a[i, 0] - 0.5) < 1e-9, f"{what}: impact at {a[i, 0]}, closed form 0.5")
        p0 = m1 * a[i, ixv] + m2 * a[i, iyv]
        p1 = m1 * a[i + 1, ixv] + m2 * a[i + 1, iyv]
        check(abs(p1 - p0) < 1e-9 and abs(p0 - 2.0) < 1e-9, f"{what}: momentum {p0} -> {p1}")
        g0 = a[i, ixv] - a[i, iyv]
        g1 = a[i + 1, ixv] - a[i + 1, iyv]
        check(abs(g1 + e * g0) < 1e-9, f"{what}: relative velocity {g0} -> {g1} (e = {e})")
        # closed form: v_cm = 0.5, after: x' = v_cm + m2/(m1+m2) g1, y' = v_cm - m1/(m1+m2) g1
        vx = 0.5 + m2 / (m1 + m2) * (e * 2)
        vy = 0.5 - m1 / (m1 + m2) * (e * 2)
        check(abs(a[i + 1, ixv] - vx) < 1e-9 and abs(a[i + 1, iyv] - vy) < 1e-9,
              f"{what}: after ({a[i + 1, ixv]}, {a[i + 1, iyv]}) vs ({vx}, {vy})")
        balance(hdr, a, what)
        same_run(path, method, "two masses")
    os.unlink(path)


ARM = """<?xml version="1.0"?>
<robot name="arm2">
  <link name="base"/>
  <link name="upper">
    <inertial><origin xyz="0.25 0 0"/><mass value="2"/>
      <inertia ixx="0.01" iyy="0.05" izz="0.05" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="fore">
    <inertial><origin xyz="0.2 0 0"/><mass value="1"/>
      <inertia ixx="0.005" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="tip">
    <inertial><mass value="0.1"/>
      <inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="0.4" effort="10" velocity="2"/>
  </joint>
  <joint name="elbow" type="revolute">
    <parent link="upper"/><child link="fore"/>
    <origin xyz="0.5 0 0"/>
    <axis xyz="0 1 0"/>
    <limit lower="-2.5" upper="2.5" effort="10" velocity="2"/>
  </joint>
  <joint name="wrist" type="revolute">
    <parent link="fore"/><child link="tip"/>
    <origin xyz="0.4 0 0"/>
    <axis xyz="1 0 0"/>
    <limit lower="1" upper="1" effort="10" velocity="2"/>
  </joint>
</robot>
"""


def urdf():
    tmp = tempfile.mkdtemp()
    with open(os.path.join(tmp, "arm2.urdf"), "w") as f:
        f.write(ARM)

    def lag(name, text):
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    head = 'import "arm2.urdf"\ninitial elbow = -0.3\nsimulate 0 to 1.2 step 0.01\n'
    stops = lag("stops.lag", head + "contact limits restitution 0\n")
    free = lag("free.lag", head)
    for method in METHODS:
        what = f"arm2.urdf with contact limits, --method {method}"
        hdr, a, r = simulate(stops, what, "--method", method)
        if hdr is None:
            continue
        check(hdr[-4:] == ["contact1_fn", "contact2_fn", "contact3_fn", "contact4_fn"],
              f"{what}: columns {hdr[-6:]}")
        check("limit of joint 'wrist' is ignored" in r.stderr and "arm2.urdf:31:" in r.stderr,
              f"{what}: no note on the empty limit: {r.stderr}")
        ish, iel = hdr.index("shoulder"), hdr.index("elbow")
        sh = a[:, ish]
        check(float(np.max(sh)) < 0.4 + 1e-9, f"{what}: shoulder {np.max(sh)} beyond 0.4")
        check(abs(sh[-1] - 0.4) < 1e-9, f"{what}: shoulder ends at {sh[-1]}, not on its stop")
        check(float(np.max(a[:, hdr.index("contact2_fn")])) > 0, f"{what}: no force at the stop")
        check(float(np.max(np.abs(a[:, hdr.index("contact1_fn")]))) == 0,
              f"{what}: a force at the lower stop")
        el = a[:, iel]
        n = len(el) // 2
        check(float(np.max(el[n:]) - np.min(el[n:])) > 0.05, f"{what}: the elbow stopped")
        check(len(pairs(a)) >= 1, f"{what}: no impact")
        balance(hdr, a, what, 1e-7)
        same_run(stops, method, "arm2 limits")
        hdr, a, r = simulate(free, "arm2.urdf without contact limits", "--method", method)
        if hdr is not None:
            check(float(np.max(a[:, hdr.index("shoulder")])) > 0.6,
                  f"without contact limits the shoulder stays below {np.max(a[:, 1])}")
            check(not any(h.startswith("contact") for h in hdr), f"columns {hdr}")
    # the same stop written by hand: the same motion
    own = lag("own.lag", head + "contact shoulder >= -1.5\ncontact shoulder <= 0.4\n"
              "contact elbow >= -2.5\ncontact elbow <= 2.5\n")
    h1, a1, _ = simulate(stops, "limits")
    h2, a2, _ = simulate(own, "own stops")
    if h1 is not None and h2 is not None:
        check(h1 == h2 and a1.shape == a2.shape and float(np.max(np.abs(a1 - a2))) < 1e-12,
              "contact limits differs from the stops written out")
    # errors
    cases = [
        ("nolimits.lag", 'import "arm2.urdf"\ninitial elbow = 1\n\ncontact limits\n', "4:1",
         "imported URDF keeps no joint limits", None),
        ("violate.lag", 'import "arm2.urdf"\ninitial shoulder = 0.5\ncontact limits\n', "3:1",
         "the upper limit of joint 'shoulder'", "inside its limits"),
    ]
    with open(os.path.join(tmp, "nolim.urdf"), "w") as f:
        f.write(ARM.replace('<limit lower="-1.5" upper="0.4"', '<limit')
                .replace('<limit lower="-2.5" upper="2.5"', '<limit'))
    cases[0] = ("nolimits.lag", 'import "nolim.urdf"\ninitial elbow = 1\n\ncontact limits\n',
                "4:1", "imported URDF keeps no joint limits", "lower < upper")
    for name, text, pos, msg, hint in cases:
        p = lag(name, text)
        r = run("simulate", p)
        check(r.returncode != 0 and f"{p}:{pos}: " in r.stderr and msg in r.stderr and
              (hint is None or hint in r.stderr), f"{name}: {r.stderr.strip()}")
    shutil.rmtree(tmp)


BASE = """coordinates q1 q2
parameters m = 1, g = 9.81
frame N
point O
point P = O + q1*N.y + q2*N.x
particle P mass m
gravity -g*N.y
initial q1 = 2
"""


def errors():
    cases = [("contact limits\n", "9:1", "imports none", "import"),
             ("contact q1 >= 1 friction 0.3\n", "9:17", "takes no friction", "friction x: F"),
             ("contact q1' >= 0\n", "9:9", "velocity q1'", None),
             ("contact q1 >= 2.5 restitution 0.2\n", "9:1", "does not hold at the start",
              "inequality holding"),
             ("contact q1 > 1\n", "9:12", "write '>='", "contact q1 >= -1.2"),
             ("contact m >= 1\n", "9:11", "does not depend on the coordinates", "contact q1"),
             ("contact P plan O N.y restitution 1\n", "9:11", "'plane'", None)]
    for text, pos, msg, hint in cases:
        path = model_file(BASE + text)
        r = run("simulate", path)
        ok = r.returncode != 0 and f"{path}:{pos}: " in r.stderr and msg in r.stderr
        check(ok and (hint is None or hint in r.stderr), f"error for {text.strip()!r}: "
              f"{r.stderr.strip()}")
        os.unlink(path)
    # `<=` and `>=` on either side, with parameters and t: the gap holds
    path = model_file(BASE + "parameters c = 1\ncontact c*t <= q1 restitution 1\n"
                      "simulate 0 to 1 step 0.1\n")
    hdr, a, r = simulate(path, "c*t <= q1")
    if hdr is not None:
        g = a[:, hdr.index("q1")] - a[:, 0]
        check(float(np.min(g)) > -1e-9 and len(pairs(a)) >= 1,
              f"c*t <= q1: gap {np.min(g)}, {len(pairs(a))} events")
        balance(hdr, a, "c*t <= q1", 1e-7)
    os.unlink(path)


def limits_is_a_name():
    """`limits` stays an ordinary name outside `contact limits`."""
    text = """coordinates limits
parameters m = 1, g = 9.81
frame N
point O
point P = O + limits*N.y
particle P mass m
gravity -g*N.y
initial limits = 1
contact limits >= 0 restitution 0.5
simulate 0 to 1 step 0.1
"""
    path = model_file(text)
    hdr, a, r = simulate(path, "a coordinate named limits")
    if hdr is not None:
        t1 = math.sqrt(2 / G)
        ev = pairs(a)
        check(len(ev) >= 1 and abs(a[ev[0], 0] - t1) < 1e-8,
              f"limits >= 0: impact at {[a[i, 0] for i in ev]} vs {t1}")
    os.unlink(path)
    path = model_file(BASE.replace("parameters m = 1", "parameters limits = 0.5, m = 1") +
                      "contact q1 >= limits\nsimulate 0 to 1 step 0.1\n")
    hdr, a, r = simulate(path, "a parameter named limits")
    if hdr is not None:
        check(float(np.min(a[:, hdr.index("q1")])) > 0.5 - 1e-9 and len(pairs(a)) == 1,
              "q1 >= limits (a parameter): not stopped at 0.5")
    os.unlink(path)


pendulum_bounces()
pendulum_rest()
slider()
two_masses()
urdf()
errors()
limits_is_a_name()
finish()
