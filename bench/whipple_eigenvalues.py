#!/usr/bin/env python3
"""bench/whipple_eigenvalues.py - the Whipple bicycle benchmark's eigenvalues
against forward speed, as in Fig. 3 of Meijaard, Papadopoulos, Ruina and
Schwab (Proc. R. Soc. A 463, 2007), from `lagrange linearize` on
examples/whipple_bicycle.lag about upright straight running at speeds 0 to
10 m/s. Writes bench/whipple_eigenvalues.svg with gnuplot.

Each run prints ten eigenvalues: the four of roll and steer (weave,
capsize, castor) and six zeros of the cyclic and decoupled states (xP, yP,
yaw, the wheel angles, the wheel rate); the six of smallest modulus are
dropped (near the capsize speed the capsize eigenvalue is itself near zero,
where either choice plots at zero). The self-stable range is located by
bisection on the sign of the largest real part (tests/ref/check_whipple.py
checks all of it against the paper).

usage: bench/whipple_eigenvalues.py [LAGRANGE]"""
import json, os, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
MODEL = os.path.join(ROOT, "examples", "whipple_bicycle.lag")
OUT = os.path.join(HERE, "whipple_eigenvalues.svg")
INDEPENDENT = "xP, yP, psi, phi, delta, thetaR, thetaF, phi', delta', thetaR'"
RR = 0.3  # rear wheel radius: forward speed v is thetaR' = -v/rR


def roll_steer_eigenvalues(v):
    r = subprocess.run([BIN, "linearize", MODEL, "--json", "--at",
                        f"phi=0, delta=0, thetaR'={-v / RR!r}", "--independent", INDEPENDENT],
                       capture_output=True, text=True, check=True)
    ev = sorted((complex(re, im) for re, im in json.loads(r.stdout)["eigenvalues"]), key=abs)
    return ev[len(ev) - 4:]


def boundary(lo, hi, tol=1e-5):
    """Speed in [lo, hi] where the largest real part changes sign."""
    def up(v):
        return max(e.real for e in roll_steer_eigenvalues(v)) > 1e-6
    ulo = up(lo)
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if up(mid) == ulo:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def main():
    speeds = [i * 0.05 for i in range(201)]
    t0 = time.time()
    rows = [(v, roll_steer_eigenvalues(v)) for v in speeds]
    per_run = (time.time() - t0) / len(speeds)
    vw, vc = boundary(4.0, 5.0), boundary(5.5, 6.5)
    print(f"{len(speeds)} linearizations, {per_run * 1000:.0f} ms each (wall); "
          f"weave speed {vw:.4f} m/s, capsize speed {vc:.4f} m/s")
    with tempfile.TemporaryDirectory() as tmp:
        dat = os.path.join(tmp, "eig.dat")
        with open(dat, "w") as f:
            for v, ev in rows:
                for e in ev:
                    f.write(f"{v!r} {e.real!r} {abs(e.imag) if abs(e.imag) > 1e-9 else 'NaN'}\n")
        gp = os.path.join(tmp, "plot.gp")
        with open(gp, "w") as f:
            f.write(f"""set terminal svg size 760,520 font 'Helvetica,13' background '#ffffff'
set output '{OUT}'
set title 'Whipple bicycle benchmark: eigenvalues of roll and steer (lagrange linearize)'
set xlabel 'forward speed v (m/s)'
set ylabel 'eigenvalue (1/s)'
set xrange [0:10]
set yrange [-10:10]
set grid lc rgb '#dddddd'
set key bottom right box opaque
set object 1 rect from {vw!r},-10 to {vc!r},10 behind fc rgb '#e8f4e8' fs solid 1.0 noborder
set arrow from {vw!r},-10 to {vw!r},10 nohead dt 2 lc rgb '#2a7a2a'
set arrow from {vc!r},-10 to {vc!r},10 nohead dt 2 lc rgb '#2a7a2a'
set label 'v_w = {vw:.4f}' at {vw + 0.1!r},8.8 tc rgb '#2a7a2a'
set label 'v_c = {vc:.4f}' at {vc + 0.1!r},7.6 tc rgb '#2a7a2a'
set label 'self-stable' at {0.5 * (vw + vc) - 0.55!r},-9.2 tc rgb '#2a7a2a'
set label 'weave' at 1.2,5.6
set label 'capsize' at 7.6,1.4
set label 'castor' at 3.0,-9.3
plot '{dat}' using 1:2 with points pt 7 ps 0.35 lc rgb '#1f4e9e' title 'real part', \\
     '{dat}' using 1:3 with points pt 6 ps 0.35 lc rgb '#c0392b' title '|imaginary part|', \\
     0 with lines lc rgb '#000000' lw 1 notitle
""")
        subprocess.run(["gnuplot", gp], check=True)
    print("wrote", os.path.relpath(OUT, ROOT))


main()
