"""urdf_ref.py - an independent forward-dynamics reference for URDF robots, in pure Python
(no NumPy): its own URDF reading (xml.etree), spatial vectors in body coordinates, the
recursive Newton-Euler algorithm for the bias forces and the composite-rigid-body algorithm
for the mass matrix, as in R. Featherstone, "Rigid Body Dynamics Algorithms" (Springer 2008),
Tables 5.1 and 6.2, then a Gaussian elimination. Nothing here comes from lagrange.

Used by tests/cli/test_urdf_robots.py and bench/peers.py. Joints: revolute, continuous,
prismatic, fixed, floating (6 velocities (w, v) of the child frame in its own axes)."""
import math
import xml.etree.ElementTree as ET


def _nums(s, k):
    v = [float(t) for t in (s or "").split()] if s else [0.0] * k
    if len(v) != k:
        raise ValueError(f"expected {k} numbers in {s!r}")
    return v


def rpy_matrix(r, p, y):
    """URDF: R = Rz(y) Ry(p) Rx(r) (fixed axes x, y, z)."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr]]


def axis_matrix(a, q):
    """Rotation by angle q about the unit vector a (Rodrigues)."""
    x, y, z = a
    c, s = math.cos(q), math.sin(q)
    t = 1 - c
    return [[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
            [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
            [t * x * z - s * y, t * y * z + s * x, t * z * z + c]]


def quat_matrix(e0, e1, e2, e3):
    """The rotation of the unit quaternion e0 + e1 i + e2 j + e3 k (columns: the turned axes)."""
    return [[e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
            [2 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2 * (e2 * e3 - e0 * e1)],
            [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3]]


def qmul(a, b):
    return [a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]]


def mm(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def mv(A, x):
    return [sum(a * b for a, b in zip(row, x)) for row in A]


def tr(A):
    return [list(r) for r in zip(*A)]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def skew(a):
    return [[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]]


def add(a, b):
    return [x + y for x, y in zip(a, b)]


# spatial vectors (w, v): 6-lists; a transform X (parent -> child coordinates) as (E, r):
# E turns parent components into child ones, r is the child origin in parent coordinates.
def xmotion(X, m):
    E, r = X
    w, v = m[:3], m[3:]
    return mv(E, w) + mv(E, [v[i] - cross(r, w)[i] for i in range(3)])


def xforce_T(X, f):
    """X^* transposed: a force in child coordinates back to the parent."""
    E, r = X
    n, fl = mv(tr(E), f[:3]), mv(tr(E), f[3:])
    return add(n, cross(r, fl)) + fl


def crm(v, m):
    w, vl = v[:3], v[3:]
    return cross(w, m[:3]) + add(cross(w, m[3:]), cross(vl, m[:3]))


def crf(v, f):
    w, vl = v[:3], v[3:]
    return add(cross(w, f[:3]), cross(vl, f[3:])) + cross(w, f[3:])


class Body:
    def __init__(self, m, c, Ic):
        self.m, self.c, self.Ic = m, c, Ic  # mass, mass centre, inertia about it (body axes)

    def mul(self, v):
        """Spatial inertia about the body origin times a motion vector."""
        m, c, Ic = self.m, self.c, self.Ic
        w, vl = v[:3], v[3:]
        # h = m (v - c x w) ; n = Ic w + c x h
        hl = [m * (vl[i] - cross(c, w)[i]) for i in range(3)]
        n = add(mv(Ic, w), cross(c, hl))
        return n + hl

    def matrix(self):
        cols = []
        for k in range(6):
            e = [0.0] * 6
            e[k] = 1.0
            cols.append(self.mul(e))
        return tr(cols)


class Robot:
    """A URDF robot: joints in tree order (parents first), each with its dofs."""

    def __init__(self, path=None, text=None):
        root = ET.parse(path).getroot() if path else ET.fromstring(text)
        links = {}
        for L in root.findall("link"):
            ine = L.find("inertial")
            if ine is None:
                links[L.get("name")] = None
                continue
            o = ine.find("origin")
            xyz = _nums(o.get("xyz") if o is not None else None, 3)
            rpy = _nums(o.get("rpy") if o is not None else None, 3)
            m = float(ine.find("mass").get("value"))
            I = ine.find("inertia")
            g = lambda k: float(I.get(k, "0"))
            Iu = [[g("ixx"), g("ixy"), g("ixz")], [g("ixy"), g("iyy"), g("iyz")], [g("ixz"), g("iyz"), g("izz")]]
            R = rpy_matrix(*rpy)
            links[L.get("name")] = Body(m, xyz, mm(mm(R, Iu), tr(R)))
        joints = {}
        for J in root.findall("joint"):
            o = J.find("origin")
            a = J.find("axis")
            ax = _nums(a.get("xyz") if a is not None else "1 0 0", 3)
            n = math.sqrt(sum(x * x for x in ax))
            joints[J.find("child").get("link")] = dict(
                name=J.get("name"), type=J.get("type"), parent=J.find("parent").get("link"),
                xyz=_nums(o.get("xyz") if o is not None else None, 3),
                rpy=_nums(o.get("rpy") if o is not None else None, 3), axis=[x / n for x in ax])
        roots = [l for l in links if l not in joints]
        if len(roots) != 1:
            raise ValueError("one root link expected")
        self.root = roots[0]
        order, todo = [], [self.root]
        while todo:
            p = todo.pop(0)
            for c, J in joints.items():
                if J["parent"] == p:
                    order.append(c)
                    todo.append(c)
        self.links, self.joints, self.order = links, joints, order
        # coordinates in lagrange's names: each movable joint's angle/displacement, or
        # J_x J_y J_z J_e0..J_e3 for a floating one
        self.coords, self.ndof = [], 0
        for c in order:
            J = joints[c]
            t = J["type"]
            if t in ("revolute", "continuous", "prismatic"):
                self.coords.append(J["name"])
                self.ndof += 1
            elif t == "floating":
                self.coords += [J["name"] + s for s in ("_x", "_y", "_z", "_e0", "_e1", "_e2", "_e3")]
                self.ndof += 6
            elif t != "fixed":
                raise ValueError("joint type " + t + " not in the reference")

    def forward(self, q, qd, tau, g=9.81):
        """Accelerations in lagrange's coordinates (dict name -> value) from q, q', tau given as
        dicts in lagrange's coordinate names (tau: one per dof; a floating joint's 6 generalized
        forces are not used: its inputs are zero here)."""
        J, order = self.joints, self.order
        X, S, vJ, vel, dofs = {}, {}, {}, {}, []
        for c in order:
            j = J[c]
            t, nm = j["type"], j["name"]
            R0 = rpy_matrix(*j["rpy"])
            if t in ("revolute", "continuous"):
                R, p = mm(R0, axis_matrix(j["axis"], q[nm])), j["xyz"]
                S[c] = [j["axis"] + [0.0, 0.0, 0.0]]
                vJ[c] = [qd[nm]]
            elif t == "prismatic":
                R = R0
                p = add(j["xyz"], mv(R0, [q[nm] * a for a in j["axis"]]))
                S[c] = [[0.0, 0.0, 0.0] + j["axis"]]
                vJ[c] = [qd[nm]]
            elif t == "fixed":
                R, p = R0, j["xyz"]
                S[c], vJ[c] = [], []
            else:
                e = [q[nm + s] for s in ("_e0", "_e1", "_e2", "_e3")]
                ed = [qd[nm + s] for s in ("_e0", "_e1", "_e2", "_e3")]
                RJ = quat_matrix(*e)
                R = mm(R0, RJ)
                pj = [q[nm + s] for s in ("_x", "_y", "_z")]
                p = add(j["xyz"], mv(R0, pj))
                w = qmul([e[0], -e[1], -e[2], -e[3]], ed)
                wb = [2 * w[1], 2 * w[2], 2 * w[3]]
                vb = mv(tr(RJ), [qd[nm + s] for s in ("_x", "_y", "_z")])
                S[c] = [[1.0 if i == k else 0.0 for i in range(6)] for k in range(6)]
                vJ[c] = wb + vb
            X[c] = (tr(R), p)
            dofs.append(c)
        # RNEA with q'' = 0: velocities, bias accelerations, forces
        a0 = [0.0, 0.0, 0.0, 0.0, 0.0, g]
        v, a, f = {self.root: [0.0] * 6}, {self.root: a0}, {}
        for c in order:
            p = J[c]["parent"]
            vj = [sum(S[c][k][i] * vJ[c][k] for k in range(len(S[c]))) for i in range(6)]
            v[c] = add(xmotion(X[c], v[p]), vj)
            a[c] = add(xmotion(X[c], a[p]), crm(v[c], vj))
            B = self.links.get(c)
            f[c] = add(B.mul(a[c]), crf(v[c], B.mul(v[c]))) if B else [0.0] * 6
        for c in reversed(order):
            p = J[c]["parent"]
            if p != self.root:
                f[p] = add(f[p], xforce_T(X[c], f[c]))
        # dof indices
        idx, k = {}, 0
        for c in order:
            idx[c] = list(range(k, k + len(S[c])))
            k += len(S[c])
        n = k
        C = [0.0] * n
        for c in order:
            for r, s in zip(idx[c], S[c]):
                C[r] = sum(x * y for x, y in zip(s, f[c]))
        # CRBA
        Ic = {c: (self.links[c].matrix() if self.links.get(c) else [[0.0] * 6 for _ in range(6)]) for c in order}
        for c in reversed(order):
            p = J[c]["parent"]
            if p != self.root:
                # Ic[p] += X^T Ic[c] X, column by column
                cols = []
                for k2 in range(6):
                    e = [0.0] * 6
                    e[k2] = 1.0
                    cols.append(xforce_T(X[c], mv(Ic[c], xmotion(X[c], e))))
                Ic[p] = [[Ic[p][i][j2] + cols[j2][i] for j2 in range(6)] for i in range(6)]
        H = [[0.0] * n for _ in range(n)]
        for c in order:
            for r, s in zip(idx[c], S[c]):
                F = mv(Ic[c], s)
                H[r][r] = sum(x * y for x, y in zip(s, F))
                jj = c
                while True:
                    # F in jj's coordinates; move to parent after using jj's dofs
                    for r2, s2 in zip(idx[jj], S[jj]):
                        if jj != c or r2 != r:
                            H[r][r2] = H[r2][r] = sum(x * y for x, y in zip(s2, F))
                    p = J[jj]["parent"]
                    if p == self.root:
                        break
                    F = xforce_T(X[jj], F)
                    jj = p
        # right-hand side: joint forces
        rhs = [0.0] * n
        for c in order:
            j = J[c]
            if j["type"] in ("revolute", "continuous", "prismatic"):
                rhs[idx[c][0]] = tau.get(j["name"], 0.0)
        rhs = [rhs[i] - C[i] for i in range(n)]
        qdd = solve(H, rhs)
        out = {}
        for c in order:
            j = J[c]
            nm = j["name"]
            if j["type"] in ("revolute", "continuous", "prismatic"):
                out[nm] = qdd[idx[c][0]]
            elif j["type"] == "floating":
                ad = [qdd[i] for i in idx[c]]
                wb, vb = vJ[c][:3], vJ[c][3:]
                e = [q[nm + s] for s in ("_e0", "_e1", "_e2", "_e3")]
                ed = [qd[nm + s] for s in ("_e0", "_e1", "_e2", "_e3")]
                RJ = quat_matrix(*e)
                xdd = mv(RJ, add(ad[3:], cross(wb, vb)))
                edd = add(qmul(ed, [0.0] + wb), qmul(e, [0.0] + ad[:3]))
                for s, val in zip(("_x", "_y", "_z"), xdd):
                    out[nm + s] = val
                for s, val in zip(("_e0", "_e1", "_e2", "_e3"), edd):
                    out[nm + s] = 0.5 * val
                out[nm + "@w'"] = ad[:3]  # body-axes angular acceleration (MuJoCo's free qacc[3:6])
        return out


def solve(A, b):
    n = len(b)
    M = [list(A[i]) + [b[i]] for i in range(n)]
    for k in range(n):
        p = max(range(k, n), key=lambda i: abs(M[i][k]))
        M[k], M[p] = M[p], M[k]
        for i in range(k + 1, n):
            f = M[i][k] / M[k][k]
            for j in range(k, n + 1):
                M[i][j] -= f * M[k][j]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (M[i][n] - sum(M[i][j] * x[j] for j in range(i + 1, n))) / M[i][i]
    return x
