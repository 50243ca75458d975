#!/usr/bin/env python3
"""Issue 23: a mass matrix singular because a frame's Euler angles are at
their singularity (gimbal lock) is named as such (the frame, the sequence,
the angle, another sequence to use), not "check masses and inertias";
through eval and simulate, body_fixed and space_fixed, symmetric and not.
A coordinate that really has no inertia still gets the old advice.

usage: test_orientation_singular.py LAGRANGE [LAGRANGE_SAN]"""
import os, subprocess, sys, tempfile

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "build", "lagrange")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + detail[:800]))


BODY = """coordinates psi theta phi
parameters m = 1, I1 = 0.1, I2 = 0.2, I3 = 0.3
frame N
frame B = {how}(N, {seq}, psi, theta, phi)
point O
body B mass m at O inertia (I1, I2, I3)
initial theta = {theta}
simulate 0 to 1 step 0.1
"""
cases = [("body_fixed", "zyx", "1.5707963267948966", "cos(theta) = 0", "body_fixed(N, zxy, ...)"),
         ("body_fixed", "zxz", "0", "sin(theta) = 0", "body_fixed(N, zxy, ...)"),
         ("space_fixed", "xyz", "-1.5707963267948966", "cos(theta) = 0", "space_fixed(N, xzy, ...)")]
with tempfile.TemporaryDirectory() as tmp:
    for how, seq, theta, why, other in cases:
        path = os.path.join(tmp, f"{how}_{seq}.lag")
        with open(path, "w") as fh:
            fh.write(BODY.format(how=how, seq=seq, theta=theta))
        for cmd in (["eval"], ["simulate"], ["eval", "--method", "kane"],
                    ["simulate", "--method", "kane"]):
            r = subprocess.run([BIN, *cmd, path], capture_output=True, text=True, timeout=60)
            err = r.stderr
            check(f"{how} {seq} at theta = {theta}: {' '.join(cmd)} names the Euler singularity",
                  r.returncode != 0 and "frame B's Euler angles" in err and
                  f"{how}(N, {seq}, psi, theta, phi)" in err and "gimbal lock" in err and
                  why in err and "theta = " in err and other in err and
                  "check masses and inertias" not in err, err)
        # away from the singularity the same model evaluates
        r = subprocess.run([BIN, "eval", path, "--state", "theta=0.4"], capture_output=True,
                           text=True, timeout=60)
        check(f"{how} {seq} at theta = 0.4: eval works", r.returncode == 0, r.stderr)
        # Kane's method with its own speeds (state [q; u]): Kane's mass matrix
        # is singular at the same place and says why
        own = os.path.join(tmp, f"{how}_{seq}_own.lag")
        with open(own, "w") as fh:
            fh.write(BODY.format(how=how, seq=seq, theta=theta) +
                     "speeds u1 u2 u3\nkinematics psi' = u1, theta' = u2, phi' = u3\n")
        for cmd in ("eval", "simulate"):
            r = subprocess.run([BIN, cmd, "--method", "kane", own], capture_output=True,
                               text=True, timeout=60)
            err = r.stderr
            check(f"{how} {seq} own speeds: {cmd} --method kane names the Euler singularity",
                  r.returncode != 0 and "Kane's mass matrix is singular" in err and
                  "frame B's Euler angles" in err and "gimbal lock" in err and other in err and
                  "check masses and inertias" not in err, err)
        # equilibria searches with M, never the old advice at a gimbal lock
        for method in ("lagrange", "kane"):
            r = subprocess.run([BIN, "equilibria", "--method", method, path, "--box",
                                f"theta={theta}:{float(theta) + 1e-15!r}"],
                               capture_output=True, text=True, timeout=60)
            check(f"{how} {seq}: equilibria --method {method} at the gimbal lock",
                  "check masses and inertias" not in r.stderr and
                  (r.returncode == 0 or "gimbal lock" in r.stderr), r.stderr)
    # a coordinate without inertia is still a missing inertia
    path = os.path.join(tmp, "massless.lag")
    with open(path, "w") as fh:
        fh.write("coordinates x y\nT = 1/2*x'^2\nV = y^2\n")
    for method in ("lagrange", "kane"):
        r = subprocess.run([BIN, "eval", "--method", method, path], capture_output=True,
                           text=True, timeout=60)
        check(f"a coordinate without inertia ({method}): no Euler angles named",
              r.returncode != 0 and "Euler" not in r.stderr and
              (method == "kane" or "check masses and inertias" in r.stderr), r.stderr)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
