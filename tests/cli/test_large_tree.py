#!/usr/bin/env python3
"""Large kinematic trees (issue 26): past API_TREE_DENSE_MAX coordinates
eval, simulate and codegen's default take M by composite rigid bodies, f by
Newton-Euler and q'' by the articulated-body recursion instead of deriving
the dense equations. Checked against an independent derivation: Kane's
method (partial velocities, its dense mass matrix and forcing), which with
u = q' has the same M, f, momenta and energies.

usage: test_large_tree.py LAGRANGE [SANITIZED_LAGRANGE]"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import models  # noqa: E402  (bench/models.py: the generated chains and arms)

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}" + (f": {detail[:600]}" if detail else ""))


def flat(x):
    if isinstance(x, list):
        return [v for item in x for v in flat(item)]
    return [x]


def rel(a, b):
    a, b = flat(a), flat(b)
    if len(a) != len(b) or not a:
        return float("inf")
    return max(abs(x - y) / (1 + abs(y)) for x, y in zip(a, b))


def with_torques(text, n):
    """The model plus a damping D and a time-varying generalized force, so
    the forcing has more than gravity and velocity terms."""
    return (text + f"D = 1/2*0.3*q2'^2 + 1/2*0.1*q{n}'^2\n"
            f"force q1: 0.4*sin(t) - 0.2*q1\n")


def state(n, rng):
    return ", ".join([f"q{i}={rng.uniform(-1.2, 1.2)!r}" for i in range(1, n + 1)] +
                     [f"q{i}'={rng.uniform(-1, 1)!r}" for i in range(1, n + 1)])


def ev(model, method, st, t):
    r = subprocess.run([BIN, "eval", model, "--json", "--method", method, "--state", st,
                        "--t", repr(t)], capture_output=True, text=True, timeout=600)
    return (json.loads(r.stdout) if r.returncode == 0 else None), r.stderr


DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "m.h"
int main(int argc, char **argv) {
  double x[2 * m_NQ], xd[2 * m_NQ], xr[2 * m_NQ], p[m_NP], M[m_NQ * m_NQ], f[m_NQ];
  double E[2], mom[m_NQ];
  double t = atof(argv[1]);
  for (int i = 0; i < 2 * m_NQ; i++) x[i] = atof(argv[2 + i]);
  m_default_params(p);
  if (m_rhs(t, x, NULL, p, xd) || m_rhs_recursive(t, x, NULL, p, xr)) return 1;
  m_mass_matrix(t, x, NULL, p, M);
  m_forcing(t, x, NULL, p, f);
  m_energy(t, x, NULL, p, E);
  m_momenta(t, x, NULL, p, mom);
  for (int i = 0; i < m_NQ; i++) printf("%.17g %.17g\n", xd[m_NQ + i], xr[m_NQ + i]);
  for (int i = 0; i < m_NQ * m_NQ; i++) printf("%.17g\n", M[i]);
  for (int i = 0; i < m_NQ; i++) printf("%.17g\n", f[i]);
  printf("%.17g\n%.17g\n", E[0], E[1]);
  for (int i = 0; i < m_NQ; i++) printf("%.17g\n", mom[i]);
  return 0;
}
"""


def backward(kane, qdd):
    """max |M q'' - f| / (max|M| max|q''| + max|f|) with Kane's M and f"""
    M, f = kane["mass_matrix"], kane["forcing"]
    n = len(f)
    M = [M[i * n:(i + 1) * n] for i in range(n)] if not isinstance(M[0], list) else M
    r = max(abs(sum(M[i][j] * qdd[j] for j in range(n)) - f[i]) for i in range(n))
    scale = max(abs(v) for row in M for v in row) * max(abs(v) for v in qdd) + max(abs(v) for v in f)
    return r / scale


def main():
    rng = random.Random(26)
    tmp = tempfile.mkdtemp(prefix="lg_tree_")
    cc = shutil.which("cc") or shutil.which("gcc")
    try:
        cases = [("arm", 10, False), ("chain", 12, False), ("arm", 11, True), ("arm", 24, False)]
        for kind, n, forces in cases:
            text = models.lag_model(kind, n)
            if forces:
                text = with_torques(text, n)
            name = f"{kind}{n}{'_forced' if forces else ''}"
            path = os.path.join(tmp, name + ".lag")
            with open(path, "w") as fh:
                fh.write(text)
            for k in range(2):
                st, t = state(n, rng), rng.uniform(0, 2)
                lag, e1 = ev(path, "lagrange", st, t)
                kane, e2 = ev(path, "kane", st, t)
                ok = lag is not None and kane is not None
                check(f"{name} state {k}: eval under both methods", ok, e1 + e2)
                if not ok:
                    continue
                for key in ("mass_matrix", "forcing", "momenta", "T", "V"):
                    err = rel(lag[key], kane[key])
                    check(f"{name} state {k}: {key} (composite rigid bodies, Newton-Euler, "
                          f"recursion) equals Kane's ({err:.1e})", err < 1e-10)
                # q'': M of the 24-link arm has a condition number near 1e7, so two
                # sound solves differ by up to cond * eps; the recursion's q'' must
                # solve Kane's M q'' = f to rounding (backward error), and agree in
                # value where M is well conditioned
                err, back = rel(lag["qdd"], kane["qdd"]), backward(kane, lag["qdd"])
                check(f"{name} state {k}: qdd (recursion) equals Kane's ({err:.1e}) or solves "
                      f"Kane's M q'' = f to rounding ({back:.1e})", err < 1e-10 or back < 1e-13)
            # the default C: NAME_rhs through the recursion, M and f as eval's
            if not cc:
                continue
            r = subprocess.run([BIN, "codegen", path, "--name", "m", "-o",
                                os.path.join(tmp, "m.c")], capture_output=True, text=True,
                               timeout=600)
            src = open(os.path.join(tmp, "m.c")).read() if r.returncode == 0 else ""
            s = subprocess.run([BIN, "codegen", path, "--functions", "rhs,rhs_recursive",
                                "--stats", "-o", os.path.join(tmp, "s.c")],
                               capture_output=True, text=True, timeout=600).stderr
            counts = {w.split()[0]: int(w.split()[1]) for w in s.split(":")[-1].split(",")
                      if len(w.split()) > 1}
            solve = n ** 3 // 3 + 2 * n * n
            shorter = counts.get("rhs_recursive", 1 << 60) < counts.get("rhs", 0) + solve
            calls = "return m_rhs_recursive(t, x, u, p, xdot);" in src
            check(f"{name}: the default code writes rhs_recursive, and NAME_rhs calls it "
                  f"exactly when that is shorter than M, f and the solve ({counts}, "
                  f"solve {solve})", "int m_rhs_recursive(" in src and calls == shorter,
                  r.stderr + s)
            with open(os.path.join(tmp, "drv.c"), "w") as fh:
                fh.write(DRIVER)
            exe = os.path.join(tmp, "drv")
            b = subprocess.run([cc, "-O1", "-std=c99", "-Wall", "-Werror", "-o", exe,
                                os.path.join(tmp, "drv.c"), os.path.join(tmp, "m.c"), "-lm"],
                               capture_output=True, text=True, timeout=600)
            check(f"{name}: the default code compiles warning-free", b.returncode == 0,
                  b.stderr)
            if b.returncode != 0:
                continue
            xs = [rng.uniform(-1.2, 1.2) for _ in range(n)] + [rng.uniform(-1, 1) for _ in range(n)]
            t = rng.uniform(0, 2)
            r = subprocess.run([exe, repr(t), *map(repr, xs)], capture_output=True, text=True,
                               timeout=60)
            rows = r.stdout.split("\n")
            st = ", ".join([f"q{i}={xs[i - 1]!r}" for i in range(1, n + 1)] +
                           [f"q{i}'={xs[n + i - 1]!r}" for i in range(1, n + 1)])
            kane, err = ev(path, "kane", st, t)
            if r.returncode != 0 or kane is None:
                check(f"{name}: generated code runs", False, r.stderr + err)
                continue
            qdd = [float(v.split()[0]) for v in rows[:n]]
            qrec = [float(v.split()[1]) for v in rows[:n]]
            M = [float(v) for v in rows[n:n + n * n]]
            f = [float(v) for v in rows[n + n * n:n + n * n + n]]
            check(f"{name}: generated NAME_rhs equals Kane's q'' ({rel(qdd, kane['qdd']):.1e})",
                  rel(qdd, kane["qdd"]) < 1e-10)
            check(f"{name}: generated rhs_recursive equals Kane's q'' "
                  f"({rel(qrec, kane['qdd']):.1e})", rel(qrec, kane["qdd"]) < 1e-10)
            check(f"{name}: generated mass_matrix equals Kane's ({rel(M, kane['mass_matrix']):.1e})",
                  rel(M, kane["mass_matrix"]) < 1e-10)
            check(f"{name}: generated forcing equals Kane's ({rel(f, kane['forcing']):.1e})",
                  rel(f, kane["forcing"]) < 1e-10)
            at = n + n * n + n
            TV = [float(v) for v in rows[at:at + 2]]
            mom = [float(v) for v in rows[at + 2:at + 2 + n]]
            check(f"{name}: generated energy equals Kane's T and V "
                  f"({rel(TV, [kane['T'], kane['V']]):.1e})", rel(TV, [kane["T"], kane["V"]]) < 1e-10)
            check(f"{name}: generated momenta equal Kane's ({rel(mom, kane['momenta']):.1e})",
                  rel(mom, kane["momenta"]) < 1e-10)
        # a small tree keeps the dense form (both built, the shorter taken)
        path = os.path.join(tmp, "arm4.lag")
        with open(path, "w") as fh:
            fh.write(models.lag_model("arm", 4))
        r = subprocess.run([BIN, "codegen", path, "--name", "m"], capture_output=True,
                           text=True, timeout=120)
        check("arm4: the default code keeps the dense rhs (no rhs_recursive unless asked)",
              r.returncode == 0 and "m_rhs_recursive" not in r.stdout and "int m_rhs(" in r.stdout,
              r.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
