"""Robots from published parameters (issue 26), without the peers: examples/ur5.urdf (a UR5-like
arm), examples/panda.urdf (a Panda-like arm, full inertias) and a small floating-base quadruped
(a quaternion) load, name their coordinates after their joints, and `eval --json` gives the
accelerations of tests/cli/urdf_ref.py (an independent pure-Python Newton-Euler +
composite-rigid-body reference from Featherstone's book, with its own URDF reading) to 1e-10
relative at random states. The reference itself is first checked against a closed form (a
pendulum). bench/peers.py compares the same robots with MuJoCo and KDL.
usage: test_urdf_robots.py BUILD/lagrange [BUILD-SAN/lagrange]. Ends "N passed, N failed"."""
import json
import math
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import urdf_ref  # noqa: E402

BINS = [b for b in sys.argv[1:3] if os.path.exists(b)] or [os.path.join(ROOT, "build", "lagrange")]
passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL " + what + ("\n    " + str(detail) if detail else ""))


def inertial(m, xyz, rpy, I):
    return (f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{m}"/>'
            f'<inertia ixx="{I[0]}" ixy="{I[1]}" ixz="{I[2]}" iyy="{I[3]}" iyz="{I[4]}" izz="{I[5]}"/></inertial>')


PENDULUM = ('<robot name="p"><link name="base"/><link name="rod">'
            + inertial(2.0, "0 0 -0.5", "0 0 0", (0.01, 0, 0, 0.03, 0, 0.02)) + '</link>'
            '<joint name="hinge" type="continuous"><parent link="base"/><child link="rod"/>'
            '<axis xyz="0 1 0"/></joint></robot>')


def quadruped():
    legs = []
    for k, (sx, sy) in enumerate(((1, 1), (1, -1), (-1, 1), (-1, -1))):
        L = f"leg{k}"
        legs.append(
            f'<link name="{L}_hip">' + inertial(0.7, f"0 {0.03 * sy} 0", "0.2 0.1 -0.3", (0.002, 0.0001, 0, 0.003, 0.0002, 0.0025)) + '</link>'
            f'<link name="{L}_thigh">' + inertial(1.1, "0.01 0 -0.12", "0 0 0", (0.01, 0.0003, -0.0005, 0.011, 0.0001, 0.002)) + '</link>'
            f'<link name="{L}_shank">' + inertial(0.3, "0 0 -0.12", "0.1 0 0", (0.004, 0, 0, 0.004, 0, 0.0003)) + '</link>'
            f'<joint name="{L}_roll" type="revolute"><parent link="trunk"/><child link="{L}_hip"/>'
            f'<origin xyz="{0.3 * sx} {0.1 * sy} 0"/><axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="30" velocity="10"/></joint>'
            f'<joint name="{L}_pitch" type="revolute"><parent link="{L}_hip"/><child link="{L}_thigh"/>'
            f'<origin xyz="0 {0.08 * sy} 0"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="30" velocity="10"/></joint>'
            f'<joint name="{L}_knee" type="revolute"><parent link="{L}_thigh"/><child link="{L}_shank"/>'
            f'<origin xyz="0 0 -0.25"/><axis xyz="0 1 0"/><limit lower="-2.7" upper="0" effort="30" velocity="10"/></joint>')
    return ('<robot name="quadruped"><link name="world"/><link name="trunk">'
            + inertial(12, "0.01 -0.005 0.02", "0.1 -0.05 0.2", (0.08, 0.001, -0.002, 0.3, 0.0005, 0.35)) + '</link>'
            '<joint name="base" type="floating"><parent link="world"/><child link="trunk"/></joint>'
            + "".join(legs) + '</robot>')


def states(R, count, seed):
    rnd = random.Random(seed)
    for _ in range(count):
        q = {c: rnd.uniform(-math.pi, math.pi) for c in R.coords}
        qd = {c: rnd.uniform(-2, 2) for c in R.coords}
        tau = {c: rnd.uniform(-5, 5) for c in R.coords}
        for c in R.coords:
            if c.endswith("_e0"):
                b = c[:-3]
                e = [rnd.gauss(0, 1) for _ in range(4)]
                n = math.sqrt(sum(x * x for x in e))
                e = [x / n for x in e]
                ed = [0.5 * x for x in urdf_ref.qmul(e, [0.0] + [rnd.uniform(-2, 2) for _ in range(3)])]
                for s, a, d in zip(("_e0", "_e1", "_e2", "_e3"), e, ed):
                    q[b + s], qd[b + s] = a, d
                for s in ("_x", "_y", "_z", "_e0", "_e1", "_e2", "_e3"):
                    del tau[b + s]
        yield q, qd, tau


def lagrange_qdd(binary, path, q, qd, tau):
    st = ", ".join(f"{c}={q[c]!r}, {c}'={qd[c]!r}" for c in q)
    sets = sum((["--set", f"tau_{c}={v!r}"] for c, v in tau.items()), [])
    r = subprocess.run([binary, "eval", path, "--state", st, "--json"] + sets, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr
    out = json.loads(r.stdout)
    return dict(zip(out["coordinates"], out["qdd"])), out["coordinates"]


HARNESS = r"""
#include <stdio.h>
#include "m.h"
int main(void) {
  double x[2 * m_NQ], u[m_NU + 1], p[m_NP + 1], xd[2 * m_NQ];
  m_default_params(p);
  for (;;) {
    for (int i = 0; i < 2 * m_NQ; i++)
      if (scanf("%lf", &x[i]) != 1) return 0;
    for (int i = 0; i < m_NU; i++)
      if (scanf("%lf", &u[i]) != 1) return 1;
    int e = m_rhs_recursive(0, x, u, p, xd);
    for (int i = 0; i < m_NQ; i++) printf("%.17g ", xd[m_NQ + i]);
    printf("%d\n", e);
  }
}
"""


def recursive_qdd(binary, path, rows, tmp):
    """q'' of `codegen --functions rhs_recursive` (compiled) at each (q, qd, tau): the
    link-coordinate recursion, with the floating base's quaternion norm taken at the root."""
    d = tempfile.mkdtemp(dir=tmp)
    r = subprocess.run([binary, "codegen", path, "--name", "m", "--functions", "rhs_recursive",
                        "-o", os.path.join(d, "m.c")], capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr
    head = open(os.path.join(d, "m.h")).read()
    coords = head.split("coordinates: ")[1].split("\n")[0].split()
    inputs = head.split("inputs: ")[1].split("\n")[0].replace("*/", "").split() if "inputs: " in head else []
    open(os.path.join(d, "h.c"), "w").write(HARNESS)
    c = subprocess.run(["gcc", "-O1", "-I", d, "-o", os.path.join(d, "h"), os.path.join(d, "m.c"),
                        os.path.join(d, "h.c"), "-lm"], capture_output=True, text=True)
    if c.returncode:
        return None, c.stderr
    text = "".join(" ".join(repr(v) for v in [q[k] for k in coords] + [qd[k] for k in coords]
                            + [tau.get(i[4:], 0.0) for i in inputs]) + "\n" for q, qd, tau in rows)
    out = subprocess.run([os.path.join(d, "h")], input=text, capture_output=True, text=True).stdout
    res = []
    for line in out.splitlines():
        v = line.split()
        if v[-1] != "0":
            return None, "singular"
        res.append(dict(zip(coords, map(float, v[:-1]))))
    return res, ""


def main():
    # the reference against a closed form: q'' = (tau - m g d sin q) / (Iyy + m d^2) for a rod
    # hanging at d = 0.5 below a y hinge (angle q about +y moves the mass centre to +x)
    R = urdf_ref.Robot(text=PENDULUM)
    worst = 0.0
    for q in (0.3, -1.2, 2.5):
        a = R.forward({"hinge": q}, {"hinge": 0.7}, {"hinge": 1.5})["hinge"]
        exact = (1.5 - 2.0 * 9.81 * 0.5 * math.sin(q)) / (0.03 + 2.0 * 0.25)
        worst = max(worst, abs(a - exact))
    check(worst < 1e-13, "reference: a pendulum's q'' is the closed form", worst)

    tmp = tempfile.mkdtemp()
    quad = os.path.join(tmp, "quadruped.urdf")
    with open(quad, "w") as fh:
        fh.write(quadruped())
    robots = [("UR5-like", os.path.join(ROOT, "examples", "ur5.urdf"), 3),
              ("Panda-like", os.path.join(ROOT, "examples", "panda.urdf"), 3),
              ("floating-base quadruped", quad, 2)]
    for k, binary in enumerate(BINS):
        for name, path, count in robots:
            R = urdf_ref.Robot(path)
            if k > 0:
                count = 1  # the sanitized build: one state
            worst, ok_names, err = 0.0, True, ""
            for q, qd, tau in states(R, count, 26):
                got, coords = lagrange_qdd(binary, path, q, qd, tau)
                if got is None:
                    err = coords
                    break
                ok_names = ok_names and sorted(coords) == sorted(R.coords)
                ref = R.forward(q, qd, tau)
                scale = max(abs(ref[c]) for c in R.coords)
                worst = max(worst, max(abs(got[c] - ref[c]) for c in R.coords) / scale)
            tag = f"{name} ({os.path.basename(binary)}{' sanitized' if k else ''})"
            check(not err, f"{tag}: loads and evaluates", err)
            if err:
                continue
            check(ok_names, f"{tag}: coordinates named after the joints", R.coords)
            check(worst <= 1e-10, f"{tag}: q'' agrees with the reference to 1e-10 relative ({worst:.1e})", worst)
    # the generated recursion (link coordinates; the quadruped's quaternion norm at its root)
    for name, path, count in robots:
        R = urdf_ref.Robot(path)
        rows = list(states(R, 4, 27))
        got, err = recursive_qdd(BINS[0], path, rows, tmp)
        check(got is not None and len(got) == len(rows), f"{name}: codegen --functions rhs_recursive "
              "compiles and runs", err)
        if not got:
            continue
        worst = 0.0
        for (q, qd, tau), g in zip(rows, got):
            ref = R.forward(q, qd, tau)
            scale = max(abs(ref[c]) for c in R.coords)
            worst = max(worst, max(abs(g[c] - ref[c]) for c in R.coords) / scale)
        check(worst <= 1e-10, f"{name}: generated rhs_recursive agrees with the reference to 1e-10 "
              f"relative ({worst:.1e})", worst)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
