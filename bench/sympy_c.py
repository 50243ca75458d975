#!/usr/bin/env python3
"""bench/sympy_c.py - the best C a SymPy user generates for a system of
bench/models.py: KanesMethod (speeds u = q'), the n x n mass matrix's lower
triangle and the forcing vector through one `sympy.cse`, printed with
`ccode` (also after `factor_terms` when that gives fewer operations), solved with a Cholesky factorization of the n x n M (not the 2n
full system).

Operation count: `sympy.count_ops` (SymPy's own measure: an Add or Mul of k
terms counts k - 1, every power, function, negation and division 1) summed
over the cse replacements and the reduced outputs. The Cholesky solve is
counted apart (`cholesky_ops`), as `lagrange codegen --stats` counts its
`rhs` without the solve.

As a script: `sympy_c.py KIND N DIR` writes DIR/sympy_rhs.c and prints a
JSON line {"ops", "variant", "cholesky_ops", "derive_s", "cse_s"} per
improvement (see generate). The C function is
`int sympy_rhs(const double *x, const double *p, double *xdot)`, x = [q; q'],
p in bench/models.py's parameter order."""
import json, os, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

CHOLESKY = r"""
/* in-place Cholesky of the lower triangle (row-major n x n), then two
   triangular solves; b becomes the solution. Returns 1 if not positive. */
static int chol_solve(int n, double *A, double *b) {
  for (int j = 0; j < n; j++) {
    double s = A[j * n + j];
    for (int k = 0; k < j; k++) s -= A[j * n + k] * A[j * n + k];
    if (!(s > 0)) return 1;
    const double d = sqrt(s), inv = 1.0 / d;
    A[j * n + j] = inv; /* keep the reciprocal of the diagonal */
    for (int i = j + 1; i < n; i++) {
      double t = A[i * n + j];
      for (int k = 0; k < j; k++) t -= A[i * n + k] * A[j * n + k];
      A[i * n + j] = t * inv;
    }
  }
  for (int i = 0; i < n; i++) {
    double s = b[i];
    for (int k = 0; k < i; k++) s -= A[i * n + k] * b[k];
    b[i] = s * A[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    for (int k = i + 1; k < n; k++) s -= A[k * n + i] * b[k];
    b[i] = s * A[i * n + i];
  }
  return 0;
}
"""


def cholesky_ops(n):
    """Arithmetic operations of chol_solve above, counted as the tape counts."""
    ops = 0
    for j in range(n):
        ops += 2 * j + 2 + (n - 1 - j) * (2 * j + 1)  # diagonal: 2j, sqrt, 1/d
    for i in range(n):
        ops += 2 * i + 1 + 2 * (n - 1 - i) + 1
    return ops


def write_c(n, nparams, repl, red, path):
    import sympy as sm
    lines = [f"  const double x{i} = x[{i}];" for i in range(2 * n)]
    lines += [f"  const double p{k} = p[{k}];" for k in range(nparams)]
    lines += [f"  const double {s} = {sm.ccode(e)};" for s, e in repl]
    k = 0
    for i in range(n):
        for j in range(i + 1):
            lines.append(f"  A[{i * n + j}] = {sm.ccode(red[k])};")
            k += 1
    lines += [f"  b[{i}] = {sm.ccode(red[k + i])};" for i in range(n)]
    src = ("#include <math.h>\n" + CHOLESKY +
           "int sympy_rhs(const double *x, const double *p, double *xdot) {\n"
           f"  double A[{n * n}], b[{n}];\n" + "\n".join(lines) + "\n"
           f"  const int err = chol_solve({n}, A, b);\n"
           f"  for (int i = 0; i < {n}; i++) {{ xdot[i] = x[{n} + i]; xdot[{n} + i] = b[i]; }}\n"
           "  return err;\n}\n")
    with open(path + ".tmp", "w") as f:
        f.write(src)
    os.replace(path + ".tmp", path)  # never a half-written file


def generate(kind, n, outdir):
    """Prints a JSON line for plain cse, then another if cse after
    factor_terms (common factors pulled out of every sum, as a SymPy user
    might do) gives fewer operations: the caller keeps the last line, so a
    time limit during the second attempt still leaves the first."""
    import sympy as sm
    from models import sympy_kane
    t0 = time.perf_counter()
    km, q, u, ps = sympy_kane(kind, n)
    M, F = km.mass_matrix, km.forcing
    t1 = time.perf_counter()
    xs = sm.symbols(f"x0:{2 * n}")
    psym = sm.symbols(f"p0:{len(ps)}")
    sub = {**{u[i]: xs[n + i] for i in range(n)}, **{q[i]: xs[i] for i in range(n)},
           **dict(zip(ps, psym))}
    exprs = [M[i, j].xreplace(sub) for i in range(n) for j in range(i + 1)]
    exprs += [F[i].xreplace(sub) for i in range(n)]
    path = os.path.join(outdir, "sympy_rhs.c")
    best = None
    for variant in ("cse", "factor_terms+cse"):
        t2 = time.perf_counter()
        if variant != "cse":
            exprs = [sm.factor_terms(e) for e in exprs]
        repl, red = sm.cse(exprs, symbols=sm.numbered_symbols("c"))
        ops = int(sum(sm.count_ops(e) for _, e in repl) + sum(sm.count_ops(e) for e in red))
        if best is not None and ops >= best:
            continue
        best = ops
        write_c(n, len(ps), repl, red, path)
        print(json.dumps({"ops": ops, "variant": variant, "cholesky_ops": cholesky_ops(n),
                          "derive_s": t1 - t0, "cse_s": time.perf_counter() - t2}), flush=True)


if __name__ == "__main__":
    generate(sys.argv[1], int(sys.argv[2]), sys.argv[3])
