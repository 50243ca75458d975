#!/usr/bin/env python3
"""Kane's method against Lagrange's on every example and test model: at
three random states, Kane's q'' (from its speeds, kinematics and, for
constrained models, the dependent speeds it eliminates) must equal
Lagrange's q'' at the same (q, q') to 1e-10. For constrained models the
state is made consistent by Kane: its q' (from the independent speeds) is
the q' handed to Lagrange.

usage: test_kane.py LAGRANGE [SANITIZED_LAGRANGE]"""
import glob, json, os, random, subprocess, sys

BIN = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MODELS = sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag")) +
                glob.glob(os.path.join(ROOT, "tests", "cli", "models", "*.lag")))
# examples/whipple_bicycle.lag (five dependent speeds) is evaluated with the
# release binary: 0.04 s there, seconds a call under the sanitizers.
RELEASE = sys.argv[1]
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + detail[:800]))


def run_eval(model, state, method):
    binary = RELEASE if os.path.basename(model) == "whipple_bicycle.lag" else BIN
    r = subprocess.run([binary, "eval", model, "--state", state, "--json", "--method", method],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return None, r.stderr
    return json.loads(r.stdout), ""


rng = random.Random(5)
for model in MODELS:
    base, err = run_eval(model, "", "lagrange")
    if base is None:
        check(f"eval {os.path.basename(model)}", False, err)
        continue
    names = base["coordinates"]
    for k in range(3):
        q = [rng.uniform(-1, 1) for _ in names]
        qd = [rng.uniform(-1, 1) for _ in names]
        st = ", ".join([f"{a}={v!r}" for a, v in zip(names, q)] +
                       [f"{a}'={v!r}" for a, v in zip(names, qd)])
        kane, err = run_eval(model, st, "kane")
        if kane is None:
            check(f"kane eval {os.path.basename(model)} ({k})", False, err)
            continue
        st2 = ", ".join([f"{a}={v!r}" for a, v in zip(names, q)] +
                        [f"{a}'={v!r}" for a, v in zip(names, kane["qd"])])
        lag, err = run_eval(model, st2, "lagrange")
        if lag is None:
            check(f"lagrange eval {os.path.basename(model)} ({k})", False, err)
            continue
        ok = all(abs(a - b) <= 1e-10 * max(1, abs(b)) for a, b in zip(kane["qdd"], lag["qdd"]))
        check(f"kane = lagrange {os.path.basename(model)} state {k}", ok,
              f"kane {kane['qdd']} lagrange {lag['qdd']}")
# Seed 001: the single rigid body with body-fixed speeds has the mass
# matrix diag(m, m, m) beside the inertia matrix with products of inertia.
r = subprocess.run([BIN, "eom", os.path.join(ROOT, "examples", "kane_rigid_body.lag"),
                    "--method", "kane"], capture_output=True, text=True, timeout=120)
want = ["[m, 0, 0, 0, 0, 0]", "[0, m, 0, 0, 0, 0]", "[0, 0, m, 0, 0, 0]",
        "[0, 0, 0, Ixx, Ixy, Ixz]", "[0, 0, 0, Ixy, Iyy, Iyz]", "[0, 0, 0, Ixz, Iyz, Izz]"]
check("rigid body mass matrix as printed in seed 001", all(w in r.stdout for w in want),
      r.stdout[:1500] + r.stderr[:500])
check("kinematics solved exactly: theta' = u6*sin(phi) + u4*cos(phi)",
      "theta' = u6*sin(phi) + u4*cos(phi)" in r.stdout, r.stdout[:800])
# Kane's equations over time, in their own state [q; u]: the same motion
# as Lagrange's (q and q' columns) for speeds, constraints and plain models.
import csv, io  # noqa: E402
for name in ["kane_rigid_body", "rolling_sphere", "particle_bowl", "double_rod_pendulum",
             "pendulum_3d_cartesian", "cart_pendulum"]:
    model = os.path.join(ROOT, "examples", name + ".lag")
    runs = {}
    for method in ["lagrange", "kane"]:
        r = subprocess.run([BIN, "simulate", model, "--tf", "2", "--method", method],
                           capture_output=True, text=True, timeout=300)
        runs[method] = (r, list(csv.reader(io.StringIO(r.stdout))))
    (rl, a), (rk, b) = runs["lagrange"], runs["kane"]
    n = (len(a[0]) - 4) // 2 if a else 0
    ok = rl.returncode == 0 and rk.returncode == 0 and len(a) == len(b) and len(a) > 2
    diff = max((abs(float(x) - float(y)) for ra, rb in zip(a[1:], b[1:])
                for x, y in zip(ra[1:1 + 2 * n], rb[1:1 + 2 * n])), default=1) if ok else 1
    check(f"simulate --method kane = lagrange: {name} (max diff {diff:.1e})", ok and diff < 1e-7,
          rk.stderr[-400:])
# Generated C for Kane's own state x = [q; u]: xdot = [q'; u'] as eval has it.
import shutil, tempfile  # noqa: E402
HARNESS = r"""
#include <stdio.h>
#include "model.h"
int main(void) {
  double p[model_NP > 0 ? model_NP : 1], t, x[model_NX], xd[model_NX];
  model_default_params(p);
  while (scanf("%lf", &t) == 1) {
    for (int i = 0; i < model_NX; i++) if (scanf("%lf", &x[i]) != 1) return 2;
    int err = model_rhs(t, x, NULL, p, xd);
    printf("%d", err);
    for (int i = 0; i < model_NX; i++) printf(" %.17g", xd[i]);
    printf("\n");
  }
  return 0;
}
"""
for name in ["kane_rigid_body", "rolling_sphere"]:
    model = os.path.join(ROOT, "examples", name + ".lag")
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([BIN, "codegen", model, "--method", "kane", "--name", "model", "-o",
                            os.path.join(tmp, "model.c")], capture_output=True, text=True)
        open(os.path.join(tmp, "h.c"), "w").write(HARNESS)
        c = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", tmp,
                            "-o", os.path.join(tmp, "h"), os.path.join(tmp, "model.c"),
                            os.path.join(tmp, "h.c"), "-lm"], capture_output=True, text=True)
        if r.returncode or c.returncode:
            check(f"codegen --method kane {name} compiles", False, r.stderr + c.stderr)
            continue
        base, _ = run_eval(model, "", "lagrange")
        names = base["coordinates"]
        for k in range(2):
            q = [rng.uniform(-1, 1) for _ in names]
            qd = [rng.uniform(-1, 1) for _ in names]
            st = ", ".join([f"{a}={v!r}" for a, v in zip(names, q)] +
                           [f"{a}'={v!r}" for a, v in zip(names, qd)])
            kane, err = run_eval(model, st, "kane")
            feed = " ".join(repr(v) for v in [0.0] + q + kane["u"])
            out = subprocess.run([os.path.join(tmp, "h")], input=feed, capture_output=True,
                                 text=True).stdout.split()
            got = [float(v) for v in out[1:]]
            want = kane["qd"] + kane["ud"]
            ok = len(got) == len(want) and all(abs(a - b) <= 1e-10 * max(1, abs(b))
                                               for a, b in zip(got, want))
            check(f"generated Kane rhs = eval: {name} state {k}", ok, f"{got} vs {want}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
