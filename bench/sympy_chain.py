"""The planar n-link pendulum in sympy.physics.mechanics, shared by the
benchmarks: the same system as bench/chain_model.py writes for lagrange
(absolute angles, frames rotated about N.z, a particle at the end of every
link, gravity along -N.y)."""
import sympy as sm
import sympy.physics.mechanics as me


def chain_lagranges_method(n, m=None, l=None, g=None):
    """LagrangesMethod with the equations formed; symbols unless given."""
    q = me.dynamicsymbols(f"q1:{n + 1}")
    sm_m, sm_l, sm_g = sm.symbols("m l g")
    m = sm_m if m is None else m
    l = sm_l if l is None else l
    g = sm_g if g is None else g
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    prev, particles = O, []
    for i in range(n):
        A = me.ReferenceFrame(f"A{i + 1}")
        A.orient_axis(N, q[i], N.z)
        P = prev.locatenew(f"P{i + 1}", -l * A.y)
        P.v2pt_theory(prev, N, A)
        particle = me.Particle(f"Pa{i + 1}", P, m)
        particle.potential_energy = m * g * P.pos_from(O).dot(N.y)
        particles.append(particle)
        prev = P
    lm = me.LagrangesMethod(me.Lagrangian(N, *particles), q)
    lm.form_lagranges_equations()
    return q, lm
