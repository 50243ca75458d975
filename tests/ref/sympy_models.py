"""Independent derivations of the examples with sympy.physics.mechanics.

Each function builds the same system as examples/NAME.lag, from the
textbook description (not from our model file), and returns
(q, L, T, V, rows, forcelist, frame, params): rows are the constraints at
velocity level in the file's order (holonomic rows time-differentiated),
so LagrangesMethod's multipliers are numbered as ours."""
import sympy as sm
import sympy.physics.mechanics as me

t = me.dynamicsymbols._t


def _particle_xyz(name, m, g_vec=None):
    q = me.dynamicsymbols(name)
    return q


def spring_mass():
    x = me.dynamicsymbols("x")
    m, k = 1, 4
    T = sm.Rational(1, 2) * m * x.diff(t) ** 2
    V = sm.Rational(1, 2) * k * x ** 2
    return [x], T - V, T, V, [], [], None


def cart_pendulum():
    x, th = me.dynamicsymbols("x theta")
    m, M, l, g = 1, sm.Rational(1, 2), sm.Rational(4, 5), sm.Rational(981, 100)
    # Gros: T = 1/2 (m+M) x'^2 + 1/2 M l^2 th'^2 + l M th' x' cos th, V = M g l cos th
    xd, thd = x.diff(t), th.diff(t)
    T = (m + M) * xd ** 2 / 2 + M * l ** 2 * thd ** 2 / 2 + l * M * thd * xd * sm.cos(th)
    V = M * g * l * sm.cos(th)
    return [x, th], T - V, T, V, [], [], None


def _point_mass_3d(names, m, g, gravity_axis=2):
    q = me.dynamicsymbols(names)
    T = m * sum(qi.diff(t) ** 2 for qi in q) / 2
    V = m * g * q[gravity_axis]
    return q, T, V


def pendulum_3d_cartesian():
    m, g, l = 1, sm.Rational(981, 100), 1
    q, T, V = _point_mass_3d("x y z", m, g)
    C = q[0] ** 2 + q[1] ** 2 + q[2] ** 2 - l ** 2
    return q, T - V, T, V, [C.diff(t)], [], None


def delta_robot():
    px, py, pz, a1, a2, a3 = q = me.dynamicsymbols("px py pz a1 a2 a3")
    m, J, M, g = sm.Rational(1, 2), sm.Rational(1, 50), sm.Rational(1, 5), sm.Rational(981, 100)
    ls, la, d = sm.Rational(3, 10), sm.Rational(4, 5), sm.Rational(1, 5)
    p = sm.Matrix([px, py, pz])
    T = m * (p.diff(t).T * p.diff(t))[0] / 2 + J * sum(a.diff(t) ** 2 for a in (a1, a2, a3)) / 2
    V = m * g * pz + M * g * ls * sum(sm.sin(a) for a in (a1, a2, a3)) / 2
    rows = []
    for gam, a in zip([0, 2 * sm.pi / 3, 4 * sm.pi / 3], (a1, a2, a3)):
        Rz = sm.Matrix([[sm.cos(gam), -sm.sin(gam), 0], [sm.sin(gam), sm.cos(gam), 0], [0, 0, 1]])
        pk = Rz * sm.Matrix([d + ls * sm.cos(a), 0, -ls * sm.sin(a)])
        diff = p - pk
        rows.append(((diff.T * diff)[0] - la ** 2).diff(t))
    return q, T - V, T, V, rows, [], None


def particle_slope():
    m, g = 1, sm.Rational(981, 100)
    q, T, V = _point_mass_3d("q1 q2 q3", m, g)
    return q, T - V, T, V, [(q[0] - q[1]).diff(t)], [], None


def particle_bowl():
    m, g, r = 1, sm.Rational(981, 100), 1
    q, T, V = _point_mass_3d("q1 q2 q3", m, g)
    return q, T - V, T, V, [(q[0] ** 2 + q[1] ** 2 + q[2] ** 2 - r ** 2).diff(t)], [], None


def _free_body(M, Ixx, Iyy, Izz):
    psi, theta, phi, x, y, z = q = me.dynamicsymbols("psi theta phi x y z")
    N = me.ReferenceFrame("N")
    B = me.ReferenceFrame("B")
    B.orient_body_fixed(N, (psi, theta, phi), "zxy")
    I_B = me.inertia(B, Ixx, Iyy, Izz)
    w = B.ang_vel_in(N)
    v = (x * N.x + y * N.y + z * N.z).dt(N)
    T = w.dot(I_B.dot(w)) / 2 + M * v.dot(v) / 2
    return q, N, B, T, v, w


def free_body_zxy():
    q, N, B, T, v, w = _free_body(2, sm.Rational(3, 10), sm.Rational(2, 5), sm.Rational(1, 2))
    return q, T, T, sm.S(0), [], [], None


def rolling_sphere():
    r = sm.Rational(1, 2)
    q, N, B, T, v, w = _free_body(2, sm.Rational(1, 5), sm.Rational(1, 5), sm.Rational(1, 5))
    c = v + w.cross(-r * N.z)
    rows = [c.dot(N.x), c.dot(N.y), c.dot(N.z)]
    return q, T, T, sm.S(0), rows, [], None


def double_rod_pendulum():
    # Moore: the chapter's code, with numbers for the symbols.
    m, g, kt, kl, l = 1, sm.Rational(981, 100), 2, 5, 1
    q1, q2, q3 = q = me.dynamicsymbols("q1 q2 q3")
    N, A, B = me.ReferenceFrame("N"), me.ReferenceFrame("A"), me.ReferenceFrame("B")
    A.orient_axis(N, q1, N.z)
    B.orient_axis(A, q2, A.x)
    O, Ao, Bo, Q = me.Point("O"), me.Point("Ao"), me.Point("Bo"), me.Point("Q")
    Ao.set_pos(O, l / sm.S(2) * A.x)
    Bo.set_pos(O, l * A.x)
    Q.set_pos(Bo, q3 * B.y)
    O.set_vel(N, 0)
    I = m * l ** 2 / sm.S(12)
    I_A_Ao = I * me.outer(A.y, A.y) + I * me.outer(A.z, A.z)
    I_B_Bo = I * me.outer(B.x, B.x) + I * me.outer(B.z, B.z)
    K = m / sm.S(2) * (Ao.vel(N).dot(Ao.vel(N)) + Bo.vel(N).dot(Bo.vel(N)) + Q.vel(N).dot(Q.vel(N))) + (
        A.ang_vel_in(N).dot(I_A_Ao.dot(A.ang_vel_in(N))) + B.ang_vel_in(N).dot(I_B_Bo.dot(B.ang_vel_in(N)))) / 2
    V = m * g * (Ao.pos_from(O).dot(-N.x) + Bo.pos_from(O).dot(-N.x)) + kt / sm.S(2) * q1 ** 2 + \
        kt / sm.S(2) * q2 ** 2 + kl / sm.S(2) * q3 ** 2
    return q, K - V, K, V, [], [], None


def sympy_lagrange_doc():
    # The SymPy documentation's example, verbatim.
    q1, q2 = me.dynamicsymbols("q1 q2")
    q1d, q2d = me.dynamicsymbols("q1 q2", 1)
    L = q1d ** 2 + q2d ** 2
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, q1d * N.x)
    return [q1, q2], L, sm.S(0), sm.S(0), [(q1 - q2).diff(t)], [(P, 7 * N.x)], N


def free_particle():
    q, T, V = _point_mass_3d("x y z", 1, 0)
    return q, T, T, sm.S(0), [], [], None


def uniform_gravity():
    q, T, V = _point_mass_3d("x y z", 1, sm.Rational(981, 100))
    return q, T - V, T, V, [], [], None


def central_force():
    r, th = me.dynamicsymbols("r theta")
    m, k = 1, 1
    T = m * (r.diff(t) ** 2 + r ** 2 * th.diff(t) ** 2) / 2
    V = -k / r
    return [r, th], T - V, T, V, [], [], None


def disk_incline():
    x, phi = me.dynamicsymbols("x phi")
    m, R, g, alpha = 1, sm.Rational(1, 5), sm.Rational(981, 100), sm.Rational(3, 10)
    T = m * x.diff(t) ** 2 / 2 + (m * R ** 2 / 2) * phi.diff(t) ** 2 / 2
    V = -m * g * x * sm.sin(alpha)
    return [x, phi], T - V, T, V, [(x - R * phi).diff(t)], [], None


def bead_rotating_wire():
    r = me.dynamicsymbols("r")
    m, omega = sm.Rational(1, 10), 2
    # polar velocity of a bead on a wire turning at omega: (r', r omega)
    T = m * (r.diff(t) ** 2 + r ** 2 * omega ** 2) / 2
    return [r], T, T, sm.S(0), [], [], None


def _oriented_body(kind, seq):
    a, b, c, x, y, z = q = me.dynamicsymbols("a b c x y z")
    N, B = me.ReferenceFrame("N"), me.ReferenceFrame("B")
    if kind == "space":
        B.orient_space_fixed(N, (a, b, c), seq)
    else:
        B.orient_body_fixed(N, (a, b, c), seq)
    M, g = 2, sm.Rational(981, 100)
    I_B = me.inertia(B, sm.Rational(3, 10), sm.Rational(2, 5), sm.Rational(1, 2))
    w = B.ang_vel_in(N)
    v = (x * N.x + y * N.y + z * N.z).dt(N)
    T = w.dot(I_B.dot(w)) / 2 + M * v.dot(v) / 2
    V = M * g * z
    return q, T - V, T, V, [], [], None


def free_body_space_xyz():
    return _oriented_body("space", "xyz")


def free_body_zxz():
    return _oriented_body("body", "zxz")


def _r(x):
    return sm.nsimplify(x)


def chain_relative():
    # planar chain, link i oriented about the previous link's z by qi (the
    # last one about -z), point masses at the link ends, gravity along -N.y
    q = me.dynamicsymbols("q1:5")
    m = [_r(x) for x in ("1.1", "1.2", "1.3", "1.4")]
    l = [_r(x) for x in ("1.05", "1.1", "1.15", "1.2")]
    g = _r("9.81")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    prev_f, prev_p, T, V = N, O, 0, 0
    for i in range(4):
        A = me.ReferenceFrame(f"A{i + 1}")
        A.orient_axis(prev_f, q[i], -prev_f.z if i == 3 else prev_f.z)
        P = prev_p.locatenew(f"P{i + 1}", -l[i] * A.y)
        P.v2pt_theory(prev_p, N, A)
        T += m[i] * P.vel(N).dot(P.vel(N)) / 2
        V += m[i] * g * P.pos_from(O).dot(N.y)
        prev_f, prev_p = A, P
    return q, T - V, T, V, [], [], None


def arm_3d():
    # five rigid links turning about z, y, y, x, y of the previous link
    q = me.dynamicsymbols("q1:6")
    m = [_r(f"1.{i}") for i in range(1, 6)]
    l = [_r(x) for x in ("0.55", "0.6", "0.65", "0.7", "0.75")]
    I = [_r(f"0.1{i}") for i in range(1, 6)]
    g = _r("9.81")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    prev_f, prev_p, T, V = N, O, 0, 0
    for i, ax in enumerate("zyyxy"):
        A = me.ReferenceFrame(f"A{i + 1}")
        A.orient_axis(prev_f, q[i], getattr(prev_f, ax))
        C = prev_p.locatenew(f"C{i + 1}", l[i] / 2 * A.z)
        P = prev_p.locatenew(f"P{i + 1}", l[i] * A.z)
        C.v2pt_theory(prev_p, N, A)
        P.v2pt_theory(prev_p, N, A)
        w = A.ang_vel_in(N)
        In = me.inertia(A, I[i], _r("1.1") * I[i], I[i] / 2)
        T += m[i] * C.vel(N).dot(C.vel(N)) / 2 + w.dot(In.dot(w)) / 2
        V += m[i] * g * C.pos_from(O).dot(N.z)
        prev_f, prev_p = A, P
    return q, T - V, T, V, [], [], None



def _position_level():
    """The holonomic constraints at position level (C(q) = 0), for the
    models whose rows above are their time derivatives; SymPy's Linearizer
    needs them to eliminate dependent coordinates."""
    def pend3d():
        x, y, z = me.dynamicsymbols("x y z")
        return [x ** 2 + y ** 2 + z ** 2 - 1]

    def bowl():
        q1, q2, q3 = me.dynamicsymbols("q1 q2 q3")
        return [q1 ** 2 + q2 ** 2 + q3 ** 2 - 1]

    def slope():
        q1, q2, q3 = me.dynamicsymbols("q1 q2 q3")
        return [q1 - q2]

    def disk():
        x, phi = me.dynamicsymbols("x phi")
        return [x - sm.Rational(1, 5) * phi]

    def doc():
        q1, q2 = me.dynamicsymbols("q1 q2")
        return [q1 - q2]

    def delta():
        px, py, pz, a1, a2, a3 = me.dynamicsymbols("px py pz a1 a2 a3")
        ls, la, d = sm.Rational(3, 10), sm.Rational(4, 5), sm.Rational(1, 5)
        p = sm.Matrix([px, py, pz])
        out = []
        for gam, a in zip([0, 2 * sm.pi / 3, 4 * sm.pi / 3], (a1, a2, a3)):
            Rz = sm.Matrix([[sm.cos(gam), -sm.sin(gam), 0], [sm.sin(gam), sm.cos(gam), 0], [0, 0, 1]])
            diff = p - Rz * sm.Matrix([d + ls * sm.cos(a), 0, -ls * sm.sin(a)])
            out.append((diff.T * diff)[0] - la ** 2)
        return out
    return {"pendulum_3d_cartesian": pend3d, "particle_bowl": bowl, "particle_slope": slope,
            "disk_incline": disk, "sympy_lagrange_doc": doc, "delta_robot": delta}


def bouncing_ball():
    # examples/bouncing_ball.lag between impacts: a particle falling freely
    y = me.dynamicsymbols("y")
    m, g = 1, sm.Rational(981, 100)
    T = m * y.diff(t) ** 2 / 2
    V = m * g * y
    return [y], T - V, T, V, [], [], None


def simplest_walker():
    # examples/simplest_walker.lag between heel strikes: Garcia et al.'s
    # beta -> 0 equations, theta'' = sin(theta - gamma) and phi'' = theta''
    # + sin(phi) (theta'^2 - cos(theta - gamma)) (the swing leg's equation
    # with the stance leg's acceleration put in), as a unit mass matrix with
    # V = cos(theta - gamma) and the rest a generalized force on phi: a point
    # moving with phi' along N.x carries it.
    th, ph = me.dynamicsymbols("theta phi")
    gamma = sm.Rational(9, 1000)
    T = (th.diff(t) ** 2 + ph.diff(t) ** 2) / 2
    V = sm.cos(th - gamma)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, ph.diff(t) * N.x)
    F = sm.sin(th - gamma) + sm.sin(ph) * (th.diff(t) ** 2 - sm.cos(th - gamma))
    return [th, ph], T - V, T, V, [], [(P, F * N.x)], N


POSITION_LEVEL = _position_level()

MODELS = {f.__name__: f for f in [free_body_space_xyz, free_body_zxz, spring_mass, cart_pendulum, pendulum_3d_cartesian, delta_robot,
                                  particle_slope, particle_bowl, free_body_zxy, rolling_sphere,
                                  double_rod_pendulum, sympy_lagrange_doc, free_particle,
                                  uniform_gravity, central_force, disk_incline,
                                  bead_rotating_wire, chain_relative, arm_3d, bouncing_ball,
                                  simplest_walker]}
