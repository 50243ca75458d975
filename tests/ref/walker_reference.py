#!/usr/bin/env python3
"""An independent reference for tests/cli/test_walker.py: the simplest
walking model of Garcia, Chatterjee, Ruina and Coleman (J. Biomech. Eng.
120 (1998) 281-288) integrated with mpmath (mpmath.odefun: a Taylor series
method, here at 30 digits), the heel strike phi - 2 theta = 0 (its upward
crossing, after the mid-stance scuffing) located by mpmath.findroot, the
transition rule applied, and Newton's method on the step-to-step map of
(theta, theta') just after heel strike (Jacobian by central differences of
step 1e-12, exact to about 1e-18 at this precision).

It shares nothing with lagrange but the equations as printed in the paper:
    theta'' = sin(theta - gamma)
    phi''   = sin(theta - gamma) + sin(phi) (theta'^2 - cos(theta - gamma))
and prints, to 20 digits: the period-one fixed point at gamma = 0.009
(started from the digits of Garcia's own simulation code) with the
eigenvalues of its map's Jacobian and the step time; the period-one fixed
point at gamma = 0.016 (beyond the period doubling near 0.0151) with its
eigenvalues; and the period-two fixed point at gamma = 0.016 (its two
points). The starting guesses for gamma = 0.016 are 8 digits from a double
precision run; Newton converges from them to the numbers printed.
test_walker.py embeds the gamma = 0.009 numbers (it checks gamma = 0.016
live, one mpmath Newton step from its own points). It takes several minutes:

    python3 tests/ref/walker_reference.py"""
import sys
import time

import mpmath as mp

mp.mp.dps = 30


def step(x, gamma):
    """(theta, theta') just after a heel strike -> the same after the next,
    with the heel strike's time."""
    th, thd = x
    y0 = [th, 2 * th, thd, thd * (1 - mp.cos(2 * th))]

    def F(t, y):
        a = mp.sin(y[0] - gamma)
        return [y[2], y[3], a, a + mp.sin(y[1]) * (y[2] ** 2 - mp.cos(y[0] - gamma))]

    sol = mp.odefun(F, 0, y0)

    def g(t):
        y = sol(t)
        return y[1] - 2 * y[0]

    # scan for the upward crossing of phi - 2 theta after mid-stance (the
    # start is on the surface moving up; the scuffing crosses downward)
    t, dt, prev = mp.mpf("0.5"), mp.mpf("0.05"), None
    while True:
        cur = g(t)
        if prev is not None and prev < 0 <= cur:
            break
        prev, t = cur, t + dt
        if t > 10:
            raise RuntimeError("no heel strike by t = 10")
    ts = mp.findroot(g, (t - dt, t), solver="anderson")
    th_, ph_, thd_, phd_ = sol(ts)
    c = mp.cos(2 * th_)
    return mp.matrix([-th_, c * thd_]), ts


def stepn(x, gamma, n):
    for _ in range(n):
        x, ts = step(x, gamma)
    return x


def jacobian(x, gamma, n, h=mp.mpf("1e-12")):
    J = mp.matrix(2, 2)
    for j in range(2):
        e = mp.matrix(2, 1)
        e[j] = h
        d = (stepn(x + e, gamma, n) - stepn(x - e, gamma, n)) / (2 * h)
        J[0, j], J[1, j] = d[0], d[1]
    return J


def fixed_point(x, gamma, n):
    """Newton on P^n(x) - x: one full step, then chord steps with the same
    Jacobian until the update is below 1e-25; the Jacobian again at the
    result for the eigenvalues."""
    x = mp.matrix(x)
    J = jacobian(x, gamma, n)
    A = J - mp.eye(2)
    for _ in range(8):
        dx = mp.lu_solve(A, -(stepn(x, gamma, n) - x))
        x = x + dx
        if mp.norm(dx) < mp.mpf("1e-25"):
            break
    res = mp.norm(stepn(x, gamma, n) - x)
    ev = mp.eig(jacobian(x, gamma, n))[0]
    return x, res, ev


def show(name, v):
    print("%s = %s" % (name, mp.nstr(v, 20)))


if __name__ == "__main__":
    t0 = time.time()
    g1 = mp.mpf("0.009")
    x, res, ev = fixed_point([mp.mpf("0.20031090049483"), mp.mpf("-0.19983247291764")], g1, 1)
    show("P1_0009_THETA", x[0])
    show("P1_0009_THETAD", x[1])
    show("P1_0009_STEP_TIME", step(x, g1)[1])
    print("P1_0009_EIG =", [mp.nstr(e, 20) for e in ev], " residual", mp.nstr(res, 3))
    sys.stdout.flush()
    g2 = mp.mpf("0.016")
    x, res, ev = fixed_point([mp.mpf("0.24173856"), mp.mpf("-0.23574557")], g2, 1)
    show("P1_0016_THETA", x[0])
    show("P1_0016_THETAD", x[1])
    print("P1_0016_EIG =", [mp.nstr(e, 20) for e in ev], " residual", mp.nstr(res, 3))
    sys.stdout.flush()
    x, res, ev = fixed_point([mp.mpf("0.23571329"), mp.mpf("-0.23133825")], g2, 2)
    y = stepn(x, g2, 1)
    show("P2_0016_A_THETA", x[0])
    show("P2_0016_A_THETAD", x[1])
    show("P2_0016_B_THETA", y[0])
    show("P2_0016_B_THETAD", y[1])
    print("P2_0016_EIG =", [mp.nstr(e, 20) for e in ev], " residual", mp.nstr(res, 3))
    print("(%.0f s)" % (time.time() - t0))
