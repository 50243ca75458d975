"""Every front door gives the same answer on URDF robots, the hard cases of
issue 26, as tests/cli/test_parity.py checks the .lag examples:

- robots: examples/arm3.urdf, panda.urdf, ur5.urdf, and from bench/peers.py
  a 12-link 3D arm (past API_TREE_DENSE_MAX: its q'' takes the tree's own
  path), the branched torso (14 joints) and the floating-base quadruped
  (a quaternion: a constraint row);
- eval: `lagrange eval ROBOT.urdf --json` at a random state against
  Python's Model.eval (which calls lg_eval): q'', T, V, M, f, momenta, bit
  for bit;
- call order: in fresh models, Model.accel (lg_eval_accel) first then
  Model.eval, and Model.eval first then Model.accel, give one q''; a batch
  of states (lg_eval_accel_many, lg_work) gives each state's single q'';
- simulate: the command's CSV and lg_simulate's points (Python), equal;
- codegen: the command and lg_codegen (Python) write the same C, also with
  `--functions rhs_recursive`.

Runs itself under Debian's python3 (NumPy). Ends "N passed, N failed"."""
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy as np
except ImportError:  # the python3 on PATH may lack NumPy: Debian's has it
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path[:0] = [os.path.join(ROOT, "tests", "cli"), os.path.join(ROOT, "bench")]
import test_parity as P  # noqa: E402  (its helpers and counters; its main() does not run)
import peers  # noqa: E402
import urdf_ref  # noqa: E402

lagrange = P.lagrange
if len(sys.argv) > 1:
    P.BIN = sys.argv[1]
check = P.check


def robots(tmp):
    out = []
    for name in ("arm3", "panda", "ur5"):
        out.append(os.path.join(ROOT, "examples", name + ".urdf"))
    for name, text in (("arm12", peers.arm_urdf(12)), ("torso", peers.torso_urdf()),
                       ("quadruped", peers.quadruped_urdf())):
        p = os.path.join(tmp, name + ".urdf")
        with open(p, "w") as f:
            f.write(text)
        out.append(p)
    return out


def states(path, count, seed):
    """count consistent states (unit quaternions, e.e' = 0) as (q, qd) dicts"""
    R = urdf_ref.Robot(path)
    return [(q, qd) for q, qd, _ in peers.random_states(R, count, seed)]


def command_eval(path, method, q, qd):
    st = ", ".join(f"{c}={q[c]!r}, {c}'={qd[c]!r}" for c in q)
    r = P.run("eval", path, "--method", method, "--state", st, "--json")
    return r, (json.loads(r.stdout) if r.returncode == 0 else None)


def same_eval_at(path, method, q, qd):
    what = f"eval {os.path.basename(path)} --method {method} at a random state"
    r, d = command_eval(path, method, q, qd)
    if d is None:
        check(False, f"{what}: {r.stderr.strip()[-300:]}")
        return None
    coords = d["coordinates"]
    Q = np.array([q[c] for c in coords])
    QD = np.array([qd[c] for c in coords])
    check(np.array_equal(np.array(d["q"]), Q) and np.array_equal(np.array(d["qd"]), QD),
          f"{what}: the command read the state as given")
    res = lagrange.load(path, method=method).eval(q=Q, qd=QD)
    keys = ["qdd", "T", "V"] + (["mass_matrix", "forcing", "momenta"] if method == "lagrange" else [])
    for k in keys:
        a = np.array(d[k], dtype=float)
        b = np.array(getattr(res, k), dtype=float)
        check(a.shape == b.shape and np.array_equal(a, b), f"{what}: {k} differs")
    return coords, Q, QD, np.array(d["qdd"], dtype=float)


def same_order(path, method, coords, Q, QD, qdd, more):
    what = f"{os.path.basename(path)} --method {method}"
    m = lagrange.load(path, method=method)
    a = m.accel(Q, QD)
    e = m.eval(Q, QD)
    check(np.array_equal(a, qdd) and np.array_equal(np.asarray(e.qdd), qdd),
          f"{what}: accel then eval give the command's q''")
    m = lagrange.load(path, method=method)
    e = m.eval(Q, QD)
    a = m.accel(Q, QD)
    check(np.array_equal(a, qdd) and np.array_equal(np.asarray(e.qdd), qdd),
          f"{what}: eval then accel give the command's q''")
    # a batch on a fresh model: each row as the single calls on the model above
    QB = np.array([Q] + [[s[0][c] for c in coords] for s in more])
    QDB = np.array([QD] + [[s[1][c] for c in coords] for s in more])
    batch = lagrange.load(path, method=method).accel(QB, QDB)
    ok = batch.shape == QB.shape
    for k in range(len(QB)):
        ok = ok and np.array_equal(batch[k], m.accel(QB[k], QDB[k]))
    check(ok, f"{what}: a batch of {len(QB)} states gives each state's own q''")


def main():
    tmp = tempfile.mkdtemp()
    for path in robots(tmp):
        name = os.path.basename(path)[:-5]
        big = name in ("arm12", "torso", "quadruped")
        # Kane's method where its derivation is quick (the 12-link arm's is in test_parity)
        methods = ("lagrange",) if big else ("lagrange", "kane")
        st = states(path, 3, 1 + len(name))
        for method in methods:
            got = same_eval_at(path, method, *st[0])
            if got:
                same_order(path, method, *got, st[1:])
            P.same_simulation(path, method, [], {}, 0.2 if big else 0.5)
            P.same_code(path, method)
    print(f"{P.passed} passed, {P.failed} failed")
    return 1 if P.failed else 0


if __name__ == "__main__":
    sys.exit(main())
