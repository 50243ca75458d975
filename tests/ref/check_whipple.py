#!/usr/bin/env python3
"""The Whipple bicycle benchmark (Meijaard, Papadopoulos, Ruina and Schwab,
Proc. R. Soc. A 463 (2007) 1955-1982) against `lagrange linearize` on
examples/whipple_bicycle.lag.

The benchmark's linear equations for q = (roll phi, steer delta) at upright
straight running with forward speed v are
    M q'' + v C1 q' + (g K0 + v^2 K2) q = f,
so their state matrix is [[0, I], [-M^-1 (g K0 + v^2 K2), -v M^-1 C1]].

lagrange linearizes the full nonholonomic model (8 coordinates, the pitch
eliminated by the front contact's holonomic constraint, five rates by the
four no-slip conditions and the holonomic row's time derivative) with
--independent "xP, yP, psi, phi, delta, thetaR, thetaF, phi', delta',
thetaR'": 7 coordinates and 3 rates, a 10 x 10 A. The roll/steer block is
selected by name from the JSON's "state": rows and columns phi, delta,
phi', delta'. That this block is the whole story at upright straight
running is checked, not assumed: the rows phi'' and delta'' must not
depend on any other state (the position xP, yP, the yaw psi and the wheel
angles are cyclic; a change of the wheel rate thetaR', i.e. of the speed,
changes the roll/steer accelerations only at second order), so A is block
triangular and its eigenvalues are the block's plus zeros.

Checks: the published M, C1, K0, K2 against the formulas of the paper's
appendix A (so the constants below are the paper's); the block to 1e-10
relative at several speeds; the eigenvalues lagrange prints; the weave
and capsize speeds, where the real parts of the eigenvalues cross zero,
located by bisection on lagrange's eigenvalues and, more finely, by a
bracketing secant on the eigenvalues of lagrange's block, against the
paper's v_w = 4.29238253634111 and v_c = 6.02426201538837 (table 2); also
the speed 0.68428307889246 where the weave's complex pair appears.

usage: check_whipple.py [LAGRANGE]"""
import json, math, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
MODEL = os.path.join(ROOT, "examples", "whipple_bicycle.lag")
passed = failed = 0

try:
    import mpmath as mp
except ImportError:
    print("FAIL mpmath is not importable by this python3 (install python3-mpmath)")
    print("0 passed, 1 failed")
    sys.exit(1)


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + detail[:1500]))


# ---- the benchmark ------------------------------------------------------------------------
G = 9.81
# Meijaard et al. 2007, section 5 (eq. 5.4): the published coefficient matrices
PUBLISHED = {
    "M": [[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]],
    "C1": [[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]],
    "K0": [[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]],
    "K2": [[0.0, 76.59734589573222], [0.0, 2.65431523794604]],
}
# the paper's table 2(a): where the weave pair appears, and the weave and
# capsize speeds that bound the self-stable range
V_BIFURCATION, V_WEAVE, V_CAPSIZE = 0.68428307889246, 4.29238253634111, 6.02426201538837


def appendix_a():
    """M, C1, K0, K2 from the parameters of table 1 by the formulas of the
    paper's appendix A (total mass and centre, the front assembly about the
    steer axis, the gyrostatic coefficients)."""
    mp.mp.dps = 30
    f = mp.mpf
    w, c, lam, g = f("1.02"), f("0.08"), mp.pi / 10, f("9.81")
    rR, mR, IRxx, IRyy = f("0.3"), f(2), f("0.0603"), f("0.12")
    xB, zB, mB = f("0.3"), f("-0.9"), f(85)
    IBxx, IByy, IBzz, IBxz = f("9.2"), f(11), f("2.8"), f("2.4")
    xH, zH, mH = f("0.9"), f("-0.7"), f(4)
    IHxx, IHzz, IHxz = f("0.05892"), f("0.00708"), f("-0.00756")
    rF, mF, IFxx, IFyy = f("0.35"), f(3), f("0.1405"), f("0.28")
    IRzz, IFzz = IRxx, IFxx
    sl, cl = mp.sin(lam), mp.cos(lam)
    mT = mR + mB + mH + mF
    xT = (xB * mB + xH * mH + w * mF) / mT
    zT = (-rR * mR + zB * mB + zH * mH - rF * mF) / mT
    ITxx = IRxx + IBxx + IHxx + IFxx + mR * rR**2 + mB * zB**2 + mH * zH**2 + mF * rF**2
    ITxz = IBxz + IHxz - mB * xB * zB - mH * xH * zH + mF * w * rF
    ITzz = IRzz + IBzz + IHzz + IFzz + mB * xB**2 + mH * xH**2 + mF * w**2
    mA = mH + mF
    xA, zA = (xH * mH + w * mF) / mA, (zH * mH - rF * mF) / mA
    IAxx = IHxx + IFxx + mH * (zH - zA)**2 + mF * (rF + zA)**2
    IAxz = IHxz - mH * (xH - xA) * (zH - zA) + mF * (w - xA) * (rF + zA)
    IAzz = IHzz + IFzz + mH * (xH - xA)**2 + mF * (w - xA)**2
    uA = (xA - w - c) * cl - zA * sl
    IAll = mA * uA**2 + IAxx * sl**2 + 2 * IAxz * sl * cl + IAzz * cl**2
    IAlx = -mA * uA * zA + IAxx * sl + IAxz * cl
    IAlz = mA * uA * xA + IAxz * sl + IAzz * cl
    mu = c / w * cl
    SR, SF = IRyy / rR, IFyy / rF
    ST, SA = SR + SF, mA * uA + mu * mT * xT
    M = [[ITxx, IAlx + mu * ITxz], [IAlx + mu * ITxz, IAll + 2 * mu * IAlz + mu**2 * ITzz]]
    K0 = [[mT * zT, -SA], [-SA, -SA * sl]]
    K2 = [[0, (ST - mT * zT) * cl / w], [0, (SA + SF * sl) * cl / w]]
    C1 = [[0, mu * ST + SF * cl + ITxz * cl / w - mu * mT * zT],
          [-(mu * ST + SF * cl), IAlz * cl / w + mu * (SA + ITzz * cl / w)]]
    return {"M": M, "C1": C1, "K0": K0, "K2": K2}, g


def reference_block(v):
    """[[0, I], [-M^-1 (g K0 + v^2 K2), -v M^-1 C1]] from the published matrices."""
    P = {k: mp.matrix(x) for k, x in PUBLISHED.items()}
    Mi = P["M"] ** -1
    K = -Mi * (G * P["K0"] + v * v * P["K2"])
    C = -v * Mi * P["C1"]
    return [[0, 0, 1, 0], [0, 0, 0, 1],
            [float(K[0, 0]), float(K[0, 1]), float(C[0, 0]), float(C[0, 1])],
            [float(K[1, 0]), float(K[1, 1]), float(C[1, 0]), float(C[1, 1])]]


# ---- lagrange -----------------------------------------------------------------------------
INDEPENDENT = "xP, yP, psi, phi, delta, thetaR, thetaF, phi', delta', thetaR'"
BLOCK = ["phi", "delta", "phi'", "delta'"]
RR = 0.3  # the rear wheel's radius: rolling forward at v is thetaR' = -v/rR


def linearize(v):
    at = f"phi=0, delta=0, thetaR'={-v / RR!r}"
    r = subprocess.run([BIN, "linearize", MODEL, "--json", "--at", at, "--independent",
                        INDEPENDENT], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"linearize at v={v}: exit {r.returncode}: {r.stderr}")
    return json.loads(r.stdout)


def block_of(d):
    idx = [d["state"].index(s) for s in BLOCK]
    return [[d["A"][i][j] for j in idx] for i in idx], idx


def block_eigs(blk):
    E, _ = mp.eig(mp.matrix(blk))
    return [complex(e) for e in E]


def rel_err(a, b):
    """Entrywise |a - b| / |b| (absolute where the reference is exactly 0)."""
    return max(abs(x - y) / (abs(y) if y else 1.0) for ra, rb in zip(a, b)
               for x, y in zip(ra, rb))


# eigenvalues of the cyclic and decoupled states are zero up to the square
# root of the rounding in A (their kinematics form 2 x 2 Jordan blocks):
# about 1e-8 here; anything with a real part above this counts as unstable
ZERO = 1e-6


def unstable(d):
    return any(re > ZERO for re, _ in d["eigenvalues"])


def oscillating(d):
    return any(abs(im) > ZERO for _, im in d["eigenvalues"])


def bisect(lo, hi, tol, test=unstable):
    """The speed in [lo, hi] where test() changes, to tol; (v, calls)."""
    ulo = test(linearize(lo))
    if test(linearize(hi)) == ulo:
        raise RuntimeError(f"no change between {lo} and {hi}")
    calls = 2
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        calls += 1
        if test(linearize(mid)) == ulo:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi), calls


def max_real_block(v):
    return max(e.real for e in block_eigs(block_of(linearize(v))[0]))


def illinois(f, lo, hi, tol):
    """The root of f in [lo, hi] by regula falsi (Illinois), bracket kept."""
    flo, fhi, side, calls = f(lo), f(hi), 0, 2
    if flo * fhi > 0:
        raise RuntimeError(f"no sign change between {lo} and {hi}")
    while hi - lo > tol and calls < 60:
        m = (lo * fhi - hi * flo) / (fhi - flo)
        fm = f(m)
        calls += 1
        if fm == 0:
            return m, calls
        if (fm > 0) == (fhi > 0):
            hi, fhi = m, fm
            if side == 1:
                flo /= 2
            side = 1
        else:
            lo, flo = m, fm
            if side == -1:
                fhi /= 2
            side = -1
        if abs(fm) < 1e-13:
            return m, calls
    return 0.5 * (lo + hi), calls


def main():
    # the published matrices are the paper's: appendix A reproduces them
    ours, _ = appendix_a()
    for k in PUBLISHED:
        err = rel_err([[float(x) for x in r] for r in ours[k]], PUBLISHED[k])
        check(f"published {k} = appendix A formulas (worst {err:.1e})", err < 1e-13,
              f"{ours[k]} vs {PUBLISHED[k]}")

    for v in (0.0, 1.0, 4.292, 5.0, 6.024, 10.0):
        try:
            d = linearize(v)
        except RuntimeError as e:
            check(f"v = {v}: linearize runs", False, str(e))
            continue
        n = len(d["state"])
        check(f"v = {v}: state of 7 coordinates and 3 rates, pitch dependent",
              n == 10 and "thetaB" in d["dependent"] and all(s in d["state"] for s in BLOCK),
              f"{d['state']} / {d['dependent']}")
        if n != 10:
            continue
        blk, idx = block_of(d)
        ref = reference_block(v)
        err = rel_err(blk, ref)
        check(f"v = {v}: roll/steer block of A = benchmark (worst relative {err:.1e})",
              err <= 1e-10, f"\nours {blk}\nref  {ref}")
        # the selection is exact: phi, delta rows are phi', delta'; the phi''
        # and delta'' rows see no other state (cyclic or second order)
        scale = max(abs(x) for r in blk for x in r)
        leak = max(abs(d["A"][i][j]) for i in idx for j in range(n) if j not in idx)
        check(f"v = {v}: roll/steer rows independent of the other states (leak {leak:.1e})",
              leak <= 1e-12 * scale)
        # lagrange's eigenvalues: the block's, and zeros for the other states
        want = block_eigs(ref)
        got = [complex(re, im) for re, im in d["eigenvalues"]]
        unmatched = list(got)
        worst = 0.0
        for e in want:
            k = min(range(len(unmatched)), key=lambda i: abs(unmatched[i] - e))
            worst = max(worst, abs(unmatched[k] - e) / max(1.0, abs(e)))
            unmatched.pop(k)
        rest = max(abs(e) for e in unmatched)
        check(f"v = {v}: eigenvalues = benchmark's (worst {worst:.1e}) and {n - 4} zeros "
              f"(largest {rest:.1e})", worst <= 1e-9 and rest <= ZERO, f"{got} vs {want}")

    # weave and capsize speeds: where lagrange's eigenvalues change stability
    # (the bisection's answer is off by ZERO / (d re / dv), about 1e-5 m/s)
    for name, lo, hi, paper in (("weave", 4.0, 5.0, V_WEAVE), ("capsize", 5.5, 6.5, V_CAPSIZE)):
        try:
            vb, nb = bisect(lo, hi, 1e-6)
            check(f"{name} speed by bisection on lagrange's eigenvalues: {vb:.7f} "
                  f"({nb} runs), paper {paper:.10f}", abs(vb - paper) <= 1e-4)
            vs, ns = illinois(max_real_block, lo, hi, 1e-12)
            check(f"{name} speed from the eigenvalues of lagrange's block: {vs:.12f} "
                  f"({ns} runs), paper {paper:.12f}", abs(vs - paper) <= 1e-10)
        except RuntimeError as e:
            check(f"{name} speed", False, str(e))
    try:
        vb, nb = bisect(0.5, 1.0, 1e-7, oscillating)
        check(f"the weave pair appears at {vb:.7f} by bisection on lagrange's eigenvalues "
              f"({nb} runs), paper {V_BIFURCATION:.10f}", abs(vb - V_BIFURCATION) <= 1e-5)
    except RuntimeError as e:
        check("the weave pair's bifurcation speed", False, str(e))
    # between them every eigenvalue but the zeros has a negative real part
    for v in (4.5, 5.5, 6.0):
        check(f"v = {v}: self-stable", not unstable(linearize(v)))
    check("v = 3: weave unstable", unstable(linearize(3.0)))
    check("v = 7: capsize unstable", unstable(linearize(7.0)))


main()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
