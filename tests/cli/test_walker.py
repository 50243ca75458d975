"""The simplest walking model (examples/simplest_walker.lag; Garcia,
Chatterjee, Ruina and Coleman, J. Biomech. Eng. 120 (1998) 281-288)
through Python's lagrange.simulate: the step-to-step (Poincare) map of
(theta, theta') just after a heel strike, read from the row after the
first event (Dormand-Prince, rtol = atol = 1e-12), and Newton's method on
it (Jacobian by central differences):

- the period-one gait at gamma = 0.009 agrees to 1e-10 with an independent
  reference: the paper's equations integrated with mpmath (a Taylor series
  method at 30 digits), the heel strike located by mpmath.findroot
  (tests/ref/walker_reference.py, whose printed numbers are embedded
  below; one mpmath step is also taken here, live, from lagrange's fixed
  point); with the digits of Garcia's own simulation code (0.20031090049483,
  -0.19983247291764, "to 1e-10") to 1e-10; the step time and the map's
  eigenvalues with the reference's;
- the events: one per step, the scuffing at mid-stance ignored (phi - 2
  theta crosses zero downward there: `when ... > 0` does not fire), the
  reset map applied exactly, E - W conserved;
- the period doubling: following the period-one gait up the slope, an
  eigenvalue of its map crosses -1 near Garcia's gamma = 0.0151; at
  gamma = 0.016 the period-one gait's eigenvalues agree with the
  reference's and a period-two gait exists whose two points agree with
  the reference's to 1e-10.

Ends "N passed, N failed"."""
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy as np
except ImportError:
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path.insert(0, os.path.join(ROOT, "python"))
import lagrange  # noqa: E402

MODEL = os.path.join(ROOT, "examples", "simplest_walker.lag")
passed = failed = 0

# tests/ref/walker_reference.py's output (mpmath, 30 digits), gamma = 0.009
REF = {"P1_0009_THETA": 0.20031090054424708936,
       "P1_0009_THETAD": -0.19983247300495235454,
       "P1_0009_STEP_TIME": 3.8824637528513741376,
       "P1_0009_EIG": [complex(-0.19009984106588814607, -0.55759877668206826881),
                       complex(-0.19009984106588814607, 0.55759877668206826881)]}

# Garcia's simulation code for the paper (gam = 0.009, long-period gait,
# "to 1e-10"). (Its comment gives the map's eigenvalues as
# -0.19120868949940 +/- 0.55633363687106i: 1.3e-3 from the mpmath
# reference's, which lagrange's agree with to 1e-7; not compared.)
GARCIA = (0.20031090049483, -0.19983247291764)
GARCIA_BIFURCATION = 0.0151


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL " + what)


walker = lagrange.load(MODEL)


def run(x, gamma, steps):
    th, thd = x
    return walker.simulate(tf=4.5 * steps, dt=0.25, q0={"theta": th, "phi": 2 * th},
                           qd0={"theta": thd, "phi": thd * (1 - math.cos(2 * th))},
                           params={"gamma": gamma}, rtol=1e-12, atol=1e-12,
                           integrator="dopri")


def events(s):
    t = s["t"]
    return [i for i in range(len(t) - 1) if t[i] == t[i + 1]]


def stride(x, gamma, steps=1):
    """P^steps(x): (theta, theta') after the steps-th heel strike."""
    s = run(x, gamma, steps)
    ev = events(s)
    if len(ev) < steps:
        raise RuntimeError("the walker fell at gamma = %g from %r" % (gamma, x))
    i = ev[steps - 1] + 1
    return np.array([s["theta"][i], s["theta'"][i]])


def jacobian(x, gamma, steps=1, h=1e-6):
    J = np.zeros((2, 2))
    for j in range(2):
        e = np.zeros(2)
        e[j] = h
        J[:, j] = (stride(x + e, gamma, steps) - stride(x - e, gamma, steps)) / (2 * h)
    return J


def fixed_point(x, gamma, steps=1):
    x = np.array(x, dtype=float)
    for _ in range(8):
        A = jacobian(x, gamma, steps) - np.eye(2)
        dx = np.linalg.solve(A, -(stride(x, gamma, steps) - x))
        x = x + dx
        if np.abs(dx).max() < 1e-13:
            break
    return x, np.abs(stride(x, gamma, steps) - x).max()


def dominant(ev):
    return ev[np.argmax(np.abs(ev))]


def period_one():
    x, res = fixed_point(GARCIA, 0.009)
    print("period one at gamma = 0.009: theta* = %.16g, theta'* = %.16g (residual %.1e)"
          % (x[0], x[1], res))
    check(res < 1e-12, "gamma 0.009: Newton converged (residual %.1e)" % res)
    ref = np.array([REF["P1_0009_THETA"], REF["P1_0009_THETAD"]])
    d = np.abs(x - ref).max()
    check(d < 1e-10, "gamma 0.009: fixed point = mpmath reference to 1e-10 (%.1e)" % d)
    d = np.abs(x - np.array(GARCIA)).max()
    check(d < 1e-10, "gamma 0.009: fixed point = Garcia's digits to 1e-10 (%.1e)" % d)
    ev = np.linalg.eigvals(jacobian(x, 0.009))
    ev = ev[np.argsort(ev.imag)]
    rev = np.array(sorted(REF["P1_0009_EIG"], key=lambda z: z.imag))
    d = np.abs(ev - rev).max()
    print("  eigenvalues %s, reference %s" % (ev, rev))
    check(d < 1e-6, "gamma 0.009: eigenvalues = reference to 1e-6 (%.1e)" % d)
    check(np.abs(ev).max() < 1, "gamma 0.009: the period-one gait is stable")
    # the run along one step: one event, at the reference's time; the
    # scuffing (phi - 2 theta crossing zero downward near theta = 0) does
    # not fire; the after-row is the transition rule of the before-row
    s = run(x, 0.009, 1)
    ev = events(s)
    t = s["t"]
    first = [i for i in ev if t[i] < 4.5]
    check(len(first) == 1, "one heel strike in the first step (%d)" % len(first))
    i = first[0]
    check(abs(t[i] - REF["P1_0009_STEP_TIME"]) < 1e-9,
          "step time %.15g = reference %.15g" % (t[i], REF["P1_0009_STEP_TIME"]))
    g = s["phi"] - 2 * s["theta"]
    mid = [k for k in range(1, i) if g[k - 1] > 0 >= g[k]]
    check(len(mid) == 1 and abs(s["theta"][mid[0]]) < 0.05,
          "phi - 2 theta crosses zero downward once near mid-stance, ignored")
    th, thd = s["theta"][i], s["theta'"][i]
    c = math.cos(2 * th)
    want = (-th, c * thd, -2 * th, c * (1 - c) * thd)
    got = (s["theta"][i + 1], s["theta'"][i + 1], s["phi"][i + 1], s["phi'"][i + 1])
    check(max(abs(a - b) for a, b in zip(got, want)) < 1e-15, "the transition rule applied")
    bal = s["E"] - s["W"]
    check(np.abs(bal - bal[0]).max() < 1e-9, "E - W conserved (%.1e)" % np.abs(bal - bal[0]).max())
    return x


def reference_module():
    try:
        import mpmath as mp
    except ImportError:
        check(False, "mpmath is not importable (it ships with SymPy)")
        return None, None
    sys.path.insert(0, os.path.join(ROOT, "tests", "ref"))
    import walker_reference as wr
    return wr, mp


def live_reference(x):
    """One step of the mpmath reference from lagrange's fixed point."""
    wr, mp = reference_module()
    if wr is None:
        return
    mp.mp.dps = 20
    t0 = time.time()
    y, ts = wr.step([mp.mpf(float(x[0])), mp.mpf(float(x[1]))], mp.mpf("0.009"))
    d = max(abs(float(y[0]) - x[0]), abs(float(y[1]) - x[1]))
    check(d < 1e-12, "mpmath maps lagrange's fixed point to itself to 1e-12 (%.1e, %.0f s)"
          % (d, time.time() - t0))


def doubling(x):
    # follow the period-one gait up the slope until an eigenvalue is < -1
    lam, g = [], 0.009
    while g < 0.016 - 1e-12:
        g = min(g + 0.001, 0.016)
        x, res = fixed_point(x, g)
        ev = np.linalg.eigvals(jacobian(x, g))
        lam.append((g, dominant(ev)))
    check(all(abs(l.imag) < 1e-9 or abs(l) < 1 for _, l in lam[-3:]), "real eigenvalues near the bifurcation")
    below = [(g, l.real) for g, l in lam if abs(l.imag) < 1e-12]
    k = next(i for i, (_, l) in enumerate(below) if l < -1)
    (g0, l0), (g1, l1) = below[k - 1], below[k]
    for _ in range(6):  # secant on the eigenvalue + 1
        gm = g0 + (g1 - g0) * (-1 - l0) / (l1 - l0)
        xm, _ = fixed_point(x, gm)
        lm = dominant(np.linalg.eigvals(jacobian(xm, gm))).real
        (g0, l0), (g1, l1) = (g1, l1), (gm, lm)
        if abs(lm + 1) < 1e-9:
            break
    print("period doubling at gamma = %.6f (eigenvalue %.9f); Garcia: about %g" % (gm, lm, GARCIA_BIFURCATION))
    check(abs(gm - GARCIA_BIFURCATION) < 1e-4,
          "eigenvalue -1 at gamma = %.6f, near Garcia's %g" % (gm, GARCIA_BIFURCATION))
    # at gamma = 0.016: the period-one gait, unstable, and the period-two gait
    x1, res = fixed_point(x, 0.016)
    J = jacobian(x1, 0.016)
    ev = np.linalg.eigvals(J)
    check(res < 1e-12 and ev.real.min() < -1 and np.abs(ev.imag).max() == 0,
          "gamma 0.016: the period-one gait (residual %.1e) is unstable, eigenvalues %s" % (res, ev))
    w, V = np.linalg.eig(J)
    v = V[:, np.argmin(w.real)].real
    y = x1 + 1e-3 * v  # off the unstable gait along the flip direction; settle
    for _ in range(60):
        y = stride(y, 0.016)
    a, res = fixed_point(y, 0.016, 2)
    b = stride(a, 0.016)
    if a[0] > b[0]:
        a, b = b, a
    print("period two at gamma = 0.016: (%.16g, %.16g) <-> (%.16g, %.16g) (residual %.1e)"
          % (a[0], a[1], b[0], b[1], res))
    check(res < 1e-12 and abs(a[0] - b[0]) > 1e-3, "gamma 0.016: a period-two gait (residual %.1e)" % res)
    ev2 = np.linalg.eigvals(jacobian(a, 0.016, 2))
    # the mpmath reference's period-two point, live: one Newton step on the
    # mpmath map P^2 from lagrange's point a, x = a + (I - J)^-1 (P^2(a) - a)
    # with lagrange's Jacobian J (its error, ~1e-7, times the step leaves
    # the result exact to well below 1e-15): a and b against it
    wr, mp = reference_module()
    if wr is None:
        return
    t0 = time.time()
    mp.mp.dps = 20
    ya = wr.step([mp.mpf(float(a[0])), mp.mpf(float(a[1]))], mp.mpf("0.016"))[0]
    yb = wr.step(ya, mp.mpf("0.016"))[0]
    r2 = np.array([float(yb[0]), float(yb[1])]) - a
    ra = a + np.linalg.solve(np.eye(2) - jacobian(a, 0.016, 2), r2)
    rb = np.array([float(ya[0]), float(ya[1])])
    rb = rb + jacobian(a, 0.016) @ (ra - a)  # P(ra) to first order
    d = max(np.abs(a - ra).max(), np.abs(b - rb).max())
    print("  mpmath reference period two: (%.16g, %.16g) <-> (%.16g, %.16g) (%.0f s)"
          % (ra[0], ra[1], rb[0], rb[1], time.time() - t0))
    check(d < 1e-10, "gamma 0.016: period-two points = mpmath reference to 1e-10 (%.1e)" % d)
    check(np.abs(ev2).max() < 1, "gamma 0.016: the period-two gait is stable (|eig| %.3f)" % np.abs(ev2).max())


x = period_one()
live_reference(x)
doubling(x)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
