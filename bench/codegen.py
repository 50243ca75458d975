#!/usr/bin/env python3
"""bench/codegen.py - generated code, side by side: lagrange codegen vs
SymPy's cse + ccode for the planar n-link pendulum.

For each n: the operation count after common-subexpression elimination
(ours: `lagrange codegen --stats`, the rhs function; SymPy: count_ops of
cse([mass_matrix_full, forcing_full])), and nanoseconds per right-hand-side
call, both compiled with gcc -O2 and both solving with the same dense LU.

usage: bench/codegen.py [LAGRANGE] [--sizes 3,6,10]"""
import argparse, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
CALLS = 200000

TIMER = r"""
#include <stdio.h>
#include <time.h>
#include "%(h)s"
int main(void) {
  enum { N = %(nq)d };
  double p[%(np)d], x[2 * N], xd[2 * N], acc = 0;
  %(params)s
  struct timespec a, b;
  for (int i = 0; i < 2 * N; i++) x[i] = 0.1 * (i + 1);
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int k = 0; k < %(calls)d; k++) {
    x[k %% (2 * N)] += 1e-9;
    %(call)s;
    acc += xd[2 * N - 1];
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%%.3f %%g\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / %(calls)d.0, acc);
  return 0;
}
"""


def ours(binary, n, tmp):
    model = os.path.join(tmp, "chain.lag")
    with open(model, "w") as f:
        f.write(subprocess.run([sys.executable, os.path.join(HERE, "chain_model.py"), str(n)],
                               capture_output=True, text=True, check=True).stdout)
    src = os.path.join(tmp, "chain.c")
    r = subprocess.run([binary, "codegen", model, "--name", "chain", "-o", src, "--stats"],
                       capture_output=True, text=True, check=True)
    ops = int(re.search(r"rhs (\d+)", r.stderr).group(1))
    main = os.path.join(tmp, "time_ours.c")
    with open(main, "w") as f:
        f.write(TIMER % dict(h="chain.h", nq=n, np=3, calls=CALLS, params="chain_default_params(p);",
                             call="chain_rhs(0.0, x, 0, p, xd)"))
    exe = os.path.join(tmp, "ours")
    subprocess.run(["gcc", "-O2", "-I", tmp, "-o", exe, main, src, "-lm"], check=True)
    ns = float(subprocess.run([exe], capture_output=True, text=True).stdout.split()[0])
    return ops, ns


def sympy_code(n, tmp):
    import sympy as sm
    import sympy.physics.mechanics as me
    from sympy_chain import chain_lagranges_method
    q, lm = chain_lagranges_method(n)
    MM, FF = lm.mass_matrix_full, lm.forcing_full
    qd = [qi.diff() for qi in q]
    xs = sm.symbols(f"x0:{2 * n}")
    sub = {**{qd[i]: xs[n + i] for i in range(n)}, **{q[i]: xs[i] for i in range(n)}}
    MM, FF = MM.xreplace(sub), FF.xreplace(sub)
    repl, (Mr, Fr) = sm.cse([MM, FF])
    ops = sum(sm.count_ops(e) for _, e in repl) + sm.count_ops(Mr) + sm.count_ops(Fr)
    F = 2 * n
    lines = [f"  const double x{i} = x[{i}];" for i in range(2 * n)]
    lines += ["  const double m = p[0], l = p[1], g = p[2];"]
    lines += [f"  const double {s} = {sm.ccode(e)};" for s, e in repl]
    lines += [f"  A[{i * F + j}] = {sm.ccode(Mr[i, j])};" for i in range(F) for j in range(F)]
    lines += [f"  b[{i}] = {sm.ccode(Fr[i])};" for i in range(F)]
    src = ("#include <math.h>\n#include \"sympy_chain.h\"\n"
           "static int lu(int n, double *A, double *b) {\n"
           "  for (int k = 0; k < n; k++) { int piv = k;\n"
           "    for (int i = k + 1; i < n; i++) if (fabs(A[i*n+k]) > fabs(A[piv*n+k])) piv = i;\n"
           "    if (!(fabs(A[piv*n+k]) > 0)) return 1;\n"
           "    if (piv != k) { for (int j = 0; j < n; j++) { double s = A[k*n+j]; A[k*n+j] = A[piv*n+j]; A[piv*n+j] = s; }\n"
           "      double s = b[k]; b[k] = b[piv]; b[piv] = s; }\n"
           "    for (int i = k + 1; i < n; i++) { double l = A[i*n+k] / A[k*n+k];\n"
           "      for (int j = k + 1; j < n; j++) A[i*n+j] -= l * A[k*n+j]; b[i] -= l * b[k]; } }\n"
           "  for (int i = n - 1; i >= 0; i--) { double s = b[i];\n"
           "    for (int j = i + 1; j < n; j++) s -= A[i*n+j] * b[j]; b[i] = s / A[i*n+i]; }\n"
           "  return 0; }\n"
           f"int sympy_rhs(const double *x, const double *p, double *xd) {{\n"
           f"  double A[{F * F}], b[{F}];\n" + "\n".join(lines) +
           f"\n  int err = lu({F}, A, b);\n  for (int i = 0; i < {F}; i++) xd[i] = b[i];\n"
           "  return err;\n}\n")
    with open(os.path.join(tmp, "sympy_chain.c"), "w") as f:
        f.write(src)
    with open(os.path.join(tmp, "sympy_chain.h"), "w") as f:
        f.write("int sympy_rhs(const double *x, const double *p, double *xd);\n")
    main = os.path.join(tmp, "time_sympy.c")
    with open(main, "w") as f:
        f.write(TIMER % dict(h="sympy_chain.h", nq=n, np=3, calls=CALLS,
                             params="p[0] = 1; p[1] = 1; p[2] = 9.81;",
                             call="sympy_rhs(x, p, xd)"))
    exe = os.path.join(tmp, "theirs")
    subprocess.run(["gcc", "-O2", "-I", tmp, "-o", exe, main, os.path.join(tmp, "sympy_chain.c"),
                    "-lm"], check=True)
    ns = float(subprocess.run([exe], capture_output=True, text=True).stdout.split()[0])
    return ops, ns


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default=os.path.join(HERE, "..", "build", "lagrange"))
    ap.add_argument("--sizes", default="3,6,10")
    a = ap.parse_args()
    print("| n | ops (lagrange rhs) | ops (SymPy cse of M_full, F_full) | ns/call lagrange | "
          "ns/call SymPy | speed-up |")
    print("|---|---|---|---|---|---|")
    for n in [int(s) for s in a.sizes.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            o_ops, o_ns = ours(a.binary, n, tmp)
            s_ops, s_ns = sympy_code(n, tmp)
        print(f"| {n} | {o_ops} | {s_ops} | {o_ns:.0f} | {s_ns:.0f} | {s_ns / o_ns:.1f}x |",
              flush=True)


if __name__ == "__main__":
    main()
