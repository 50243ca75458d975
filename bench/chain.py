#!/usr/bin/env python3
"""bench/chain.py - lagrange eom vs SymPy's LagrangesMethod on the planar
n-link pendulum, side by side in one run.

The model file comes from bench/chain_model.py; SymPy builds the same
system (absolute angles, frames oriented about N.z, particles at the link
ends, gravity along -N.y) and forms the equations, the mass matrix and the
forcing vector. Prints a Markdown table with the ratio per n.

usage: bench/chain.py [LAGRANGE] [--max-sympy N] [--sizes 3,6,9,12,20,40]
"""
import argparse, os, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def time_lagrange(binary, n, repeats=3, method="lagrange"):
    model = subprocess.run([sys.executable, os.path.join(HERE, "chain_model.py"), str(n)],
                           check=True, capture_output=True, text=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".lag", delete=False) as f:
        f.write(model)
        path = f.name
    best = float("inf")
    try:
        for _ in range(repeats):
            t0 = time.perf_counter()
            subprocess.run([binary, "eom", path, "--method", method], check=True,
                           stdout=subprocess.DEVNULL)
            best = min(best, time.perf_counter() - t0)
    finally:
        os.unlink(path)
    return best


def time_sympy(n):
    from sympy_chain import chain_lagranges_method
    t0 = time.perf_counter()
    q, lm = chain_lagranges_method(n)
    lm.mass_matrix_full, lm.forcing_full
    return time.perf_counter() - t0


def time_sympy_kane(n):
    import sympy as sm
    import sympy.physics.mechanics as me
    t0 = time.perf_counter()
    q = me.dynamicsymbols(f"q1:{n + 1}")
    u = me.dynamicsymbols(f"u1:{n + 1}")
    m, l, g = sm.symbols("m l g")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    prev, particles, loads = O, [], []
    for i in range(n):
        A = me.ReferenceFrame(f"A{i + 1}")
        A.orient_axis(N, q[i], N.z)
        A.set_ang_vel(N, u[i] * N.z)
        P = prev.locatenew(f"P{i + 1}", -l * A.y)
        P.v2pt_theory(prev, N, A)
        particles.append(me.Particle(f"Pa{i + 1}", P, m))
        loads.append((P, -m * g * N.y))
        prev = P
    kd = [q[i].diff() - u[i] for i in range(n)]
    km = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=kd)
    km.kanes_equations(particles, loads)
    km.mass_matrix_full, km.forcing_full
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default=os.path.join(HERE, "..", "build", "lagrange"))
    ap.add_argument("--max-sympy", type=int, default=12)
    ap.add_argument("--sizes", default="3,6,9,12,20,40")
    a = ap.parse_args()
    print("| n | lagrange eom (s) | SymPy LagrangesMethod (s) | ratio | "
          "lagrange eom --method kane (s) | SymPy KanesMethod (s) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for n in [int(x) for x in a.sizes.split(",")]:
        ours = time_lagrange(a.binary, n)
        kane = time_lagrange(a.binary, n, method="kane")
        if n <= a.max_sympy:
            theirs, tk = time_sympy(n), time_sympy_kane(n)
            print(f"| {n} | {ours:.4f} | {theirs:.2f} | {theirs / ours:.0f}x | {kane:.4f} | "
                  f"{tk:.2f} | {tk / kane:.0f}x |", flush=True)
        else:
            print(f"| {n} | {ours:.4f} | (not run) | | {kane:.4f} | (not run) | |", flush=True)


if __name__ == "__main__":
    main()
