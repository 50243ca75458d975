#!/usr/bin/env python3
"""The generated NAME_rhs_jacobian (exact dx'/dx and dx'/du of NAME_rhs):
against central differences of the generated NAME_rhs at random states,
constrained and time-dependent models included, and against `lagrange
linearize --json` (which for an unconstrained model is the same A and B).

usage: test_codegen_jacobian.py LAGRANGE [SANITIZED_LAGRANGE]"""
import json, os, random, subprocess, sys, tempfile

BIN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
passed = failed = 0

DRIVER = r"""
#include "m.h"
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
int main(int argc, char **argv) {
  enum { N2 = 2 * m_NQ, NU = m_NU > 0 ? m_NU : 1 };
  double p[m_NP > 0 ? m_NP : 1], x[N2], Jx[N2 * N2], Ju[N2 * NU], u[NU];
  m_default_params(p);
  for (int i = 0; i < N2 && i + 1 < argc; i++) x[i] = atof(argv[i + 1]);
  for (int k = 0; k < NU; k++) u[k] = 0.3;
  double t = 0.4;
  if (m_rhs_jacobian(t, x, m_NU ? u : 0, p, Jx, m_NU ? Ju : 0)) return 3;
  double worst = 0;
  for (int j = 0; j < N2; j++) {
    double a[N2], b[N2], fa[N2], fb[N2], h = 1e-6 * (1 + fabs(x[j]));
    for (int i = 0; i < N2; i++) a[i] = b[i] = x[i];
    a[j] += h; b[j] -= h;
    if (m_rhs(t, a, m_NU ? u : 0, p, fa) || m_rhs(t, b, m_NU ? u : 0, p, fb)) return 4;
    for (int i = 0; i < N2; i++) {
      double fd = (fa[i] - fb[i]) / (2 * h), d = fabs(fd - Jx[i * N2 + j]) / (1 + fabs(fd));
      if (d > worst) worst = d;
    }
  }
  printf("%.3e\n", worst);
  for (int i = 0; i < N2 * N2; i++) printf("%.17g\n", Jx[i]);
  for (int i = 0; m_NU && i < N2 * m_NU; i++) printf("%.17g\n", Ju[i]);
  return 0;
}
"""


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:600]))


def build(tmp, model):
    r = subprocess.run([BIN, "codegen", model, "--name", "m", "-o", os.path.join(tmp, "m.c")],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        return None, r.stderr
    with open(os.path.join(tmp, "drv.c"), "w") as fh:
        fh.write(DRIVER)
    exe = os.path.join(tmp, "drv")
    c = subprocess.run(["cc", "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-pedantic",
                        "-Wshadow", "-I", tmp, os.path.join(tmp, "drv.c"), os.path.join(tmp, "m.c"),
                        "-lm", "-o", exe], capture_output=True, text=True, timeout=300)
    return (exe if c.returncode == 0 else None), c.stderr


def driven_chain(n):
    """An n-link planar chain pushed at its tip by an input force F, with
    damping: at n = 14 its Jacobian tape is long enough to be split into
    pieces (src/cg/cg_emit_tape.c) that read the inputs (uu) and z."""
    q = " ".join(f"q{i}" for i in range(1, n + 1))
    par = ", ".join(f"m{i} = {1 + 0.25 * (i % 4)}, l{i} = {0.5 + 0.1 * (i % 3)}" for i in range(1, n + 1))
    lines = [f"coordinates {q}", f"parameters g = 9.81, b = 0.05, {par}", "inputs F = 0",
             "frame N", "point O"]
    for i in range(1, n + 1):
        lines += [f"frame A{i} = rotate(N, N.z, q{i})",
                  f"point P{i} = {'O' if i == 1 else f'P{i - 1}'} - l{i}*A{i}.y",
                  f"particle P{i} mass m{i}"]
    lines += ["gravity -g*N.y", f"force P{n}: F*N.x", "D = 1/2*b*(q1'^2 + q2'^2)"]
    return "\n".join(lines) + "\n"


rng = random.Random(5)
MODELS = [("tests/cli/models/cart_pendulum_force.lag", 2), ("examples/particle_bowl.lag", 3),
          ("examples/delta_robot.lag", 6), ("examples/double_rod_pendulum.lag", 3),
          ("examples/bead_rotating_wire.lag", 1), ("examples/rolling_sphere.lag", 6)]
with tempfile.TemporaryDirectory() as tmp:
    for rel, n in MODELS:
        name = os.path.basename(rel)
        exe, err = build(tmp, os.path.join(ROOT, rel))
        check(f"{name}: the generated Jacobian compiles (-pedantic -Wshadow -Werror)", exe, err)
        if not exe:
            continue
        for k in range(2):
            x = [rng.uniform(0.2, 0.7) for _ in range(n)] + [rng.uniform(-0.5, 0.5) for _ in range(n)]
            r = subprocess.run([exe, *map(repr, x)], capture_output=True, text=True, timeout=60)
            worst = float(r.stdout.split()[0]) if r.returncode == 0 else 1.0
            check(f"{name} state {k}: dx'/dx equals central differences of rhs (worst {worst:.1e})",
                  worst < 1e-6, r.stdout[:200] + r.stderr)
    # a long tape, split into pieces: still the exact Jacobian (central
    # differences) and linearize's A and B
    chain = os.path.join(tmp, "chain14.lag")
    with open(chain, "w") as fh:
        fh.write(driven_chain(14))
    exe, err = build(tmp, chain)
    src = open(os.path.join(tmp, "m.c")).read() if exe else ""
    jac = src[src.find("int m_rhs_jacobian("):]
    check("driven 14-link chain: the Jacobian is split into pieces reading uu and z, compiles",
          exe and "_piece" in jac and "uu, z, w, D);" in jac, err)
    x = [rng.uniform(-0.5, 0.5) for _ in range(28)]
    r = subprocess.run([exe or "false", *map(repr, x)], capture_output=True, text=True, timeout=60)
    out = r.stdout.split()
    worst = float(out[0]) if r.returncode == 0 and out else 1.0
    check(f"driven 14-link chain: dx'/dx equals central differences of rhs (worst {worst:.1e})",
          worst < 1e-6, r.stderr)
    at = ", ".join([f"q{i}={v!r}" for i, v in enumerate(x[:14], 1)] +
                   [f"q{i}'={v!r}" for i, v in enumerate(x[14:], 1)])
    lin = subprocess.run([BIN, "linearize", chain, "--set", "F=0.3", "--t", "0.4", "--at", at,
                          "--json"], capture_output=True, text=True, timeout=120)
    d = json.loads(lin.stdout) if lin.returncode == 0 else {"A": [], "B": []}
    got = [float(v) for v in out[1:]]
    want = [v for row in d["A"] for v in row] + [v for row in d["B"] for v in row]
    err = max([abs(a - b) / (1 + abs(b)) for a, b in zip(got, want)] +
              [1.0 if len(want) != 28 * 29 or len(got) != len(want) else 0.0])
    check(f"driven 14-link chain: rhs_jacobian equals linearize's A and B ({err:.1e})",
          err < 1e-10, lin.stderr)
    # unconstrained: the full Jacobian is linearize's A (and B)
    exe, err = build(tmp, os.path.join(ROOT, MODELS[0][0]))
    x = [0.1, 0.3, -0.2, 0.4]
    r = subprocess.run([exe, *map(repr, x)], capture_output=True, text=True, timeout=60)
    vals = [float(v) for v in r.stdout.split()[1:]]
    lin = subprocess.run([BIN, "linearize", os.path.join(ROOT, MODELS[0][0]), "--set", "F=0.3",
                          "--t", "0.4", "--at", "x=0.1, theta=0.3, x'=-0.2, theta'=0.4", "--json"],
                         capture_output=True, text=True, timeout=60)
    d = json.loads(lin.stdout) if lin.returncode == 0 else {"A": [], "B": []}
    A = [v for row in d["A"] for v in row]
    B = [v for row in d["B"] for v in row]
    err = max([abs(a - b) for a, b in zip(vals[:16], A)] + [abs(a - b) for a, b in zip(vals[16:], B)]
              + [1.0 if len(A) != 16 or len(B) != 4 else 0.0])
    check(f"cart with a force: rhs_jacobian equals linearize's A and B ({err:.1e})", err < 1e-12,
          lin.stderr)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
