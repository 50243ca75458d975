#!/usr/bin/env python3
"""codegen --functions rhs_recursive: q'' through the kinematic tree by the
articulated-body recursion (src/mech/mech_joint.c in link coordinates for
trees of rigid links, src/mech/mech_tree.c in world axes otherwise), against the generated
rhs (dense M, Cholesky) of the same file at random states, to 1e-10:
every example that is a tree (particles and bodies, rotating and
translating joints, a moving wire, a free body in Euler angles), chains
in absolute and in relative angles, a branched tree, and a 3D arm of
rigid bodies. Models that are not trees in their coordinates are refused
with a reason (exit 1, nothing written); so are Kane's method and Python.

usage: test_codegen_recursive.py LAGRANGE [SANITIZED_LAGRANGE]"""
import os, random, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chain_models import chain  # noqa: E402

BIN = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EX = os.path.join(ROOT, "examples")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:800]))


BRANCHED = """# a trunk with two branches: q2 and q3 both hang from the trunk's tip
coordinates q1 q2 q3 q4
parameters g = 9.81, m = 1.3, l = 0.7
frame N
point O
frame A = rotate(N, N.z, q1)
point P = O - l*A.y
particle P mass m
frame B = rotate(A, A.z, q2)
point Q = P - l*B.y
particle Q mass m
frame C = rotate(A, A.z, q3)
point R = P - l*C.y
particle R mass 2*m
frame E = rotate(C, C.x, q4)
point S = R - l*E.z
particle S mass m
gravity -g*N.y
"""

ARM = """# three rigid links, joints about z, y, x, with a damper and a spring
coordinates q1 q2 q3
parameters g = 9.81, m = 1.2, l = 0.6, I1 = 0.05, I2 = 0.08, I3 = 0.02, k = 3, c = 0.4
frame N
point O
frame A = rotate(N, N.z, q1)
frame B = rotate(A, A.y, q2)
frame C = rotate(B, B.x, q3)
point G1 = O + l/2*A.z
point J2 = O + l*A.z
point G2 = J2 + l/2*B.z
point J3 = J2 + l*B.z
point G3 = J3 + l/2*C.z
body A mass m at G1 inertia (I1, I2, I3)
body B mass m at G2 inertia (I2, I1, I3)
body C mass m/2 at G3 inertia (I3, I2, I1)
gravity -g*N.z
V = k/2*q2^2
D = c/2*q3'^2
torque C: 0.3*sin(t)*C.x
"""

# Trees of links that mech_joint.c solves in link coordinates: a slider
# then a hinge, a hinge pair with no mass between them (one link of two
# coordinates), a second body and a particle fixed on a link, a force at
# a point, an input on a coordinate, a spring and a damper.
LINKS = """# slider, hinge, and a two-axis joint through a massless frame
coordinates s q1 q2 q3
parameters g = 9.81, m = 1.1, l = 0.5, k = 2, c = 0.3
inputs u = 0.4*sin(2*t)
frame N
point O
point S = O + s*N.x
frame A = rotate(N, N.z, q1)
point GA = S + l/2*A.y
body A mass 2*m at GA inertia (0.02, 0.03, 0.04, 0.001, 0.002, 0.003)
point TIP = S + l*A.y
particle TIP mass m/3
frame Ap = space_fixed(A, xyz, 0.3, -0.2, 0.1)
point GA2 = S + 0.2*A.x
body Ap mass m/2 at GA2 inertia (0.01, 0.012, 0.015)
frame B0 = rotate(A, A.x, q2)
frame B = rotate(B0, B0.y, q3)
point GB = TIP + l/2*B.z + 0.05*B.x
body B mass m at GB inertia (0.03, 0.02, 0.025, 0.0, 0.004, 0.0)
gravity -g*N.y
V = k/2*s^2
D = c/2*q2'^2
force GB: 0.5*N.x - 0.2*cos(t)*N.z
force q1: u
"""

PLANAR = """# a free planar body (x, y, theta: one link of three coordinates) with a
# pendulum body hanging from it
coordinates x y th ph
parameters g = 9.81, m = 1.5, l = 0.8
frame N
point O
frame A = rotate(N, N.z, th)
point G = O + x*N.x + y*N.y
body A mass m at G inertia (0.1, 0.1, 0.2)
frame B = rotate(A, A.z, ph)
point H = G + 0.1*A.x - l*B.y
body B mass m/2 at H inertia (0.01, 0.01, 0.05)
gravity -g*N.y
"""

TORSO = """# a torso yawing on the ground carrying two 2-link arms of bodies
coordinates w a1 b1 a2 b2
parameters g = 9.81, m = 2, l = 0.4
frame N
point O
frame K = rotate(N, N.z, w)
point GT = O + 0.5*K.z
body K mass 3*m at GT inertia (0.3, 0.3, 0.1)
frame A1 = rotate(K, K.y, a1)
point S1 = O + 0.8*K.z + 0.2*K.y
point G1 = S1 + l/2*A1.x
body A1 mass m at G1 inertia (0.01, 0.04, 0.04)
frame B1 = rotate(A1, A1.z, b1)
point G1b = S1 + l*A1.x + l/2*B1.x
body B1 mass m/2 at G1b inertia (0.005, 0.02, 0.02)
frame A2 = rotate(K, K.y, a2)
point S2 = O + 0.8*K.z - 0.2*K.y
point G2 = S2 + l/2*A2.x
body A2 mass m at G2 inertia (0.01, 0.04, 0.04)
frame B2 = rotate(A2, A2.z, b2)
point G2b = S2 + l*A2.x + l/2*B2.x
body B2 mass m/2 at G2b inertia (0.005, 0.02, 0.02)
gravity -g*N.z
"""

NOT_A_TREE = """# q1 moves A and B, q2 moves B and C: the sets overlap without nesting
coordinates q1 q2
parameters m = 1
frame N
point O
point A = O + q1*N.x
point C = O + q2*N.y
point B = O + q1*N.x + q2*N.y
particle A mass m
particle B mass m
particle C mass m
"""

def urdf(name, joints):
    """A URDF robot: joints (name, type, parent, child, xyz, rpy, axis); every
    child link a body with an offset mass centre and a full inertia."""
    rnd = random.Random(sum(map(ord, name)))
    links = ["base"] + [j[3] for j in joints]
    out = [f'<?xml version="1.0"?>\n<robot name="{name}">', '  <link name="base"/>']
    for l in links[1:]:
        c = [rnd.uniform(-0.1, 0.1) for _ in range(3)]
        d = [rnd.uniform(0.02, 0.05) for _ in range(3)]
        o = [rnd.uniform(-0.004, 0.004) for _ in range(3)]
        out.append(f'  <link name="{l}"><inertial><origin xyz="{c[0]} {c[1]} {c[2]}" rpy="0.1 -0.2 0.3"/>'
                   f'<mass value="{rnd.uniform(0.5, 2)}"/><inertia ixx="{d[0]}" iyy="{d[1]}" izz="{d[2]}" '
                   f'ixy="{o[0]}" iyz="{o[1]}" ixz="{o[2]}"/></inertial></link>')
    for jn, ty, par, ch, xyz, rpy, ax in joints:
        lim = '<limit lower="-3" upper="3" effort="1" velocity="1"/>' if ty != "continuous" else ""
        out.append(f'  <joint name="{jn}" type="{ty}"><parent link="{par}"/><child link="{ch}"/>'
                   f'<origin xyz="{xyz[0]} {xyz[1]} {xyz[2]}" rpy="{rpy[0]} {rpy[1]} {rpy[2]}"/>'
                   f'<axis xyz="{ax[0]} {ax[1]} {ax[2]}"/>{lim}</joint>')
    return "\n".join(out) + "\n</robot>\n"


H = 1.5707963267948966
# Geometries the Denavit-Hartenberg steps (src/mech/mech_joint_stages.c) treat apart:
# parallel and antiparallel axes, axes that meet (a spherical wrist), right angles,
# an axis on its parent's line, a slider between hinges, a branch (the second child
# takes the general steps), a leaf whose x follows its parent's normal.
GEOMETRIES = {
    "parallel and antiparallel axes": [
        ("j1", "continuous", "base", "a", (0, 0, 0.1), (0, 0, 0), (0, 1, 0)),
        ("j2", "continuous", "a", "b", (0.3, 0, 0.05), (0, 0, 0), (0, 1, 0)),
        ("j3", "continuous", "b", "c", (0.25, 0.02, 0), (0, 0, 0), (0, -1, 0)),
        ("j4", "continuous", "c", "d", (0.2, 0, -0.1), (0, 0, 0), (0, 1, 0))],
    "a spherical wrist (axes that meet)": [
        ("j1", "revolute", "base", "a", (0, 0, 0.3), (0, 0, 0), (0, 0, 1)),
        ("j2", "revolute", "a", "b", (0, 0, 0.2), (0, 0, 0), (0, 1, 0)),
        ("j3", "revolute", "b", "c", (0, 0, 0), (0, 0, 0), (1, 0, 0)),
        ("j4", "revolute", "c", "d", (0, 0, 0), (0, 0, 0), (0, 0, 1))],
    "right angles, an axis on its parent's line": [
        ("j1", "revolute", "base", "a", (0, 0, 0.33), (0, 0, 0), (0, 0, 1)),
        ("j2", "revolute", "a", "b", (0, 0, 0), (-H, 0, 0), (0, 0, 1)),
        ("j3", "revolute", "b", "c", (0, -0.316, 0), (H, 0, 0), (0, 0, 1)),
        ("j4", "revolute", "c", "d", (0, 0, 0.2), (0, 0, 0), (0, 0, 1)),
        ("j5", "revolute", "d", "e", (0.0825, 0, 0), (H, 0, 0), (0, 0, 1))],
    "a slider between hinges, a branch": [
        ("j1", "continuous", "base", "a", (0, 0, 0.2), (0.3, 0, 0), (0.6, 0, 0.8)),
        ("s2", "prismatic", "a", "b", (0.1, 0, 0.2), (0, 0.4, 0), (0, 0, 1)),
        ("j3", "continuous", "b", "c", (0, 0.1, 0.1), (0, 0, 0.5), (0, 1, 0)),
        ("j4", "continuous", "a", "d", (-0.2, 0.1, 0), (0.2, 0.1, -0.3), (0.36, 0.48, 0.8)),
        ("j5", "continuous", "d", "e", (0.05, 0.2, 0.1), (-0.4, 0.2, 0.1), (0, 0.6, -0.8)),
        ("j6", "continuous", "a", "f", (0.2, -0.1, 0.05), (0, 0, 0), (0.6, 0.8, 0))],
}

HARNESS = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "m.h"
int main(int argc, char **argv) {
  (void)argc;
  double p[m_NP + 1], x[512], a[512], b[512], worst = 0;
  int n = m_NQ, bad = 0;
  m_default_params(p);
  srand((unsigned)atoi(argv[1]));
  for (int trial = 0; trial < 25; trial++) {
    for (int i = 0; i < 2 * n; i++) x[i] = 2.0 * rand() / RAND_MAX - 1.0;
    double t = 0.1 * trial;
    int e1 = m_rhs(t, x, NULL, p, a), e2 = m_rhs_recursive(t, x, NULL, p, b);
    bad += e1 != 0 || e2 != 0;
    for (int i = 0; i < 2 * n; i++) {
      double d = fabs(a[i] - b[i]) / (1 + fabs(a[i]));
      if (!(d <= worst)) worst = d;
    }
  }
  printf("%d %.3g\n", bad, worst);
  return 0;
}
"""


def compare(label, path, seed):
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([BIN, "codegen", path, "--name", "m", "--functions", "rhs, rhs_recursive",
                            "-o", os.path.join(tmp, "m.c"), "--stats"], capture_output=True, text=True)
        if r.returncode:
            check(f"{label}: codegen --functions rhs_recursive", False, r.stderr)
            return
        open(os.path.join(tmp, "h.c"), "w").write(HARNESS)
        exe = os.path.join(tmp, "h")
        c = subprocess.run(["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic",
                            "-I", tmp, "-o", exe, os.path.join(tmp, "m.c"), os.path.join(tmp, "h.c"),
                            "-lm"], capture_output=True, text=True)
        if c.returncode:
            check(f"{label}: the generated rhs_recursive compiles (-pedantic -Werror)", False, c.stderr)
            return
        out = subprocess.run([exe, str(seed)], capture_output=True, text=True).stdout.split()
        ok = len(out) == 2 and out[0] == "0" and float(out[1]) < 1e-10
        check(f"{label}: rhs_recursive = rhs at 25 random states ({out[1] if ok else out})", ok, out)
        if "rhs_recursive" not in r.stderr:
            check(f"{label}: --stats counts rhs_recursive", False, r.stderr)


BITS = r"""
#include <stdio.h>
#include <stdlib.h>
#include "m.h"
int main(void) {
  double p[m_NP + 1], x[512], a[512];
  m_default_params(p);
  srand(7);
  for (int trial = 0; trial < 10; trial++) {
    for (int i = 0; i < 2 * m_NQ; i++) x[i] = 4.0 * rand() / RAND_MAX - 2.0;
    m_rhs_recursive(0.1 * trial, x, NULL, p, a);
    for (int i = 0; i < 2 * m_NQ; i++) printf("%a\n", a[i]);
    m_rhs(0.1 * trial, x, NULL, p, a);
    for (int i = 0; i < 2 * m_NQ; i++) printf("%a\n", a[i]);
  }
  return 0;
}
"""


def same_bits_with_clones(label, path):
    """Long tapes' pieces are also compiled for AVX and chosen at load time where the CPU has
    it (cg_emit_tape.c): that build must give the same bits as -DLG_NO_CLONES (the baseline
    only), with gcc and with clang, and (on x86-64 glibc Linux) must hold both versions."""
    import platform
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([BIN, "codegen", path, "--name", "m", "--functions", "rhs, rhs_recursive",
                            "-o", os.path.join(tmp, "m.c")], capture_output=True, text=True)
        src = open(os.path.join(tmp, "m.c")).read() if r.returncode == 0 else ""
        check(f"{label}: split into pieces that may be cloned for AVX",
              "m_PIECE m_piece" in src and 'target_clones("avx", "default")' in src, r.stderr)
        open(os.path.join(tmp, "bits.c"), "w").write(BITS)
        outs = {}
        for cc in ("gcc", "clang"):
            if cc == "clang" and subprocess.run(["sh", "-c", "command -v clang"],
                                                capture_output=True).returncode:
                continue
            for flag in ("", "-DLG_NO_CLONES"):
                exe = os.path.join(tmp, f"bits_{cc}{flag}")
                obj = os.path.join(tmp, f"m_{cc}{flag}.o")
                c = subprocess.run([cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic",
                                    *([flag] if flag else []), "-I", tmp, "-c", "-o", obj,
                                    os.path.join(tmp, "m.c")], capture_output=True, text=True)
                if c.returncode == 0:
                    c = subprocess.run([cc, "-O2", "-I", tmp, "-o", exe, obj,
                                        os.path.join(tmp, "bits.c"), "-lm"], capture_output=True, text=True)
                if c.returncode:
                    check(f"{label}: compiles with {cc} {flag or '(clones)'}", False, c.stderr)
                    continue
                outs[(cc, flag)] = subprocess.run([exe], capture_output=True, text=True).stdout
                if not flag and platform.machine() == "x86_64" and sys.platform.startswith("linux"):
                    syms = subprocess.run(["nm", obj], capture_output=True, text=True).stdout
                    check(f"{label}: {cc} built an AVX and a baseline version of each piece",
                          ".avx" in syms and ".default" in syms, syms[:300])
        base = outs.get(("gcc", "-DLG_NO_CLONES"))
        check(f"{label}: every build gives the same bits ({len(outs)} builds)",
              base and len(base.split()) > 100 and all(o == base for o in outs.values()),
              {k: o[:80] for k, o in outs.items()})


def refused(label, path, reason, *extra):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "m.c")
        r = subprocess.run([BIN, "codegen", path, "--functions", "rhs_recursive", "-o", out, *extra],
                           capture_output=True, text=True)
        check(f"{label}: refused, saying why ({reason!r}), nothing written",
              r.returncode in (1, 2) and reason in r.stderr and not os.path.exists(out), r.stderr)


rng = random.Random(5)
with tempfile.TemporaryDirectory() as d:
    models = {}
    for name in ("cart_pendulum", "double_rod_pendulum", "bead_rotating_wire", "bead_spinning_hoop",
                 "free_body_zxy", "kane_rigid_body"):
        models[name] = os.path.join(EX, name + ".lag")
    for n, rel in ((7, False), (7, True), (13, False)):
        path = os.path.join(d, f"chain{n}{'rel' if rel else ''}.lag")
        open(path, "w").write(chain(n, rel))
        models[f"{n}-link chain in {'relative' if rel else 'absolute'} angles"] = path
    for name, text in (("branched tree", BRANCHED), ("3D arm of bodies with V, D and a torque", ARM),
                       ("links: slider, hinge, two-axis joint, fixed body and particle, inputs", LINKS),
                       ("planar free body with a pendulum", PLANAR),
                       ("torso with two arms of bodies", TORSO)):
        path = os.path.join(d, name.split()[0] + ".lag")
        open(path, "w").write(text)
        models[name] = path
    for label, joints in GEOMETRIES.items():
        path = os.path.join(d, label.split()[1] + ".urdf")
        open(path, "w").write(urdf(label.split()[1], joints))
        models["URDF: " + label] = path
    for label, path in models.items():
        compare(label, path, rng.randrange(1000))
    same_bits_with_clones("13-link chain", models["13-link chain in absolute angles"])
    arm = os.path.join(d, "arm9.urdf")
    open(arm, "w").write(urdf("arm9", [(f"j{i}", "continuous", "base" if i == 0 else f"l{i - 1}", f"l{i}",
                                        (0.05 * i, 0.1, 0.2), (0.3, -0.2 * i, 0.1), (0.36, 0.48, 0.8))
                                       for i in range(9)]))
    same_bits_with_clones("9-link URDF arm, general axes", arm)
    arm = os.path.join(d, "arm40.urdf")
    open(arm, "w").write(urdf("arm40", [(f"j{i}", "continuous", "base" if i == 0 else f"l{i - 1}", f"l{i}",
                                         (0.05, 0.1, 0.2), (0.3, -0.2, 0.1 * i), (0.36, 0.48, 0.8))
                                        for i in range(40)]))
    r = subprocess.run([BIN, "codegen", arm, "--functions", "rhs_recursive"], capture_output=True, text=True)
    check("40-link arm: a recursion past 14,000 instructions is compiled once (compile time)",
          r.returncode == 0 and "arm40_PIECE_ONCE arm40_piece" in r.stdout
          and "arm40_PIECE arm40_piece" not in r.stdout, r.stderr)
    bad = os.path.join(d, "overlap.lag")
    open(bad, "w").write(NOT_A_TREE)
    refused("overlapping sets", bad, "overlap without nesting")
    refused("constraints", os.path.join(EX, "particle_bowl.lag"), "constraints")
    refused("T written directly", os.path.join(EX, "spring_mass.lag"), "T or L is written")
    refused("Kane's method", models["cart_pendulum"], "Lagrange's method only", "--method", "kane")
    refused("Python", models["cart_pendulum"], "in C for Lagrange", "--lang", "python")
    r = subprocess.run([BIN, "codegen", models["cart_pendulum"]], capture_output=True, text=True)
    check("rhs_recursive is written only when asked for", r.returncode == 0 and "_rhs_recursive"
          not in r.stdout and "_rhs(" in r.stdout, r.stderr)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
