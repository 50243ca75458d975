"""Tests of Model.eval / accel's fast paths and batches, against the
command-line tool and against each other; simulate's callback;
linearize(independent=); docstrings."""
import glob
import inspect
import json
import os
import subprocess

import numpy as np
import pytest

import lagrange
from threads_util import in_threads

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("LAGRANGE_CLI", os.path.join(ROOT, "build", "lagrange"))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag")))
# eval --json's key for each EvalResult field
KEYS = {f: f for f in lagrange.EvalResult.FIELDS}
KEYS["residuals"] = "constraint_residuals"


def _cli(*args):
    return subprocess.run([CLI] + list(args), capture_output=True, text=True)


def _state_arg(m, q, qd):
    return ", ".join(["%s=%.17g" % (c, v) for c, v in zip(m.coordinates, q)]
                     + ["%s'=%.17g" % (c, v) for c, v in zip(m.coordinates, qd)])


def _same(got, want):
    got = np.asarray(got, float)
    want = np.asarray([np.nan if x is None else x for x in np.ravel(want)]
                      if np.ndim(want) else want, float).reshape(np.shape(got))
    return np.allclose(got, want, rtol=1e-13, atol=1e-13, equal_nan=True)


def _near(m, rng):
    """A random state near the initial one (a constrained model's state
    need not satisfy its constraints: eval reports the residuals)."""
    q, qd = m.initial_state()
    return q + 0.05 * rng.standard_normal(m.n), qd + 0.05 * rng.standard_normal(m.n)


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_every_field_matches_cli(path):
    m = lagrange.load(path)
    rng = np.random.default_rng(len(path))
    q, qd = _near(m, rng)
    t = 0.25
    r = _cli("eval", "--json", path, "--t", "0.25", "--state", _state_arg(m, q, qd))
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["coordinates"] == m.coordinates
    for e in (m.eval(q, qd, t=t), m.eval(list(q), tuple(qd), t),
              m.eval(q=q[None, :], qd=qd[None, :], t=[t])):
        for f, key in KEYS.items():
            got = getattr(e, f)
            if e.batch:
                got = got[0]
            assert _same(got, j[key]), (path, f, got, j[key])
    assert _same(m.accel(q, qd, t), j["qdd"])


# (the Whipple bicycle under Kane's method takes minutes to derive: left out)
@pytest.mark.parametrize("path", [p for p in EXAMPLES if "kane" in p or "rolling" in p], ids=os.path.basename)
def test_kane_matches_cli(path):
    m = lagrange.load(path, method="kane")
    q, qd = m.initial_state()
    r = _cli("eval", "--json", "--method", "kane", path)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    e = m.eval()
    assert _same(e.qdd, j["qdd"]), (e.qdd, j["qdd"])
    assert _same(m.eval(q, qd).qdd, j["qdd"])
    assert _same(m.eval(q[None], qd[None]).qdd[0], j["qdd"])


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_batch_equals_per_state(path):
    m = lagrange.load(path)
    rng = np.random.default_rng(7)
    states = [_near(m, rng) for _ in range(5)]
    Q = np.array([s[0] for s in states])
    QD = np.array([s[1] for s in states])
    T = np.linspace(0.0, 1.0, 5)
    b = m.eval(Q, QD, T)
    acc = m.accel(Q, QD, T)
    assert b.batch and b.qdd.shape == (5, m.n) and b.T.shape == (5,)
    assert b.mass_matrix.shape == (5, m.n, m.n + m.m)
    for k in range(5):
        one = m.eval(Q[k], QD[k], T[k])
        for f in lagrange.EvalResult.FIELDS:
            assert np.array_equal(np.asarray(getattr(one, f)), getattr(b, f)[k],
                                  equal_nan=True), (path, f, k)
        assert np.array_equal(m.accel(Q[k], QD[k], T[k]), acc[k], equal_nan=True)
        assert np.array_equal(acc[k], b.qdd[k], equal_nan=True)


def test_batch_broadcasts_and_checks_shapes():
    m = lagrange.load(os.path.join(ROOT, "examples", "cart_pendulum.lag"))
    q, qd = m.initial_state()
    QD = np.array([[0.0, 0.1], [0.0, 0.2], [0.0, 0.3]])
    b = m.eval(q, QD)                         # one q for every row
    for k in range(3):
        assert np.array_equal(b.qdd[k], m.eval(q, QD[k]).qdd)
    tb = m.eval(q, qd, t=[0.0, 1.0])           # a batch over t
    assert tb.qdd.shape == (2, 2)
    assert m.eval(np.zeros((0, 2)), np.zeros((0, 2))).qdd.shape == (0, 2)
    for bad in ([0.0], [[0.0, 1.0, 2.0]], np.zeros((2, 3))):
        with pytest.raises(ValueError):
            m.eval(bad, qd)
    with pytest.raises(ValueError):
        m.eval(np.zeros((2, 2)), np.zeros((3, 2)))
    with pytest.raises(KeyError):
        m.eval(q, qd, params={"nope": 1.0})


def test_fast_path_inputs_and_fresh_results():
    m = lagrange.load(os.path.join(ROOT, "examples", "double_rod_pendulum.lag"))
    rng = np.random.default_rng(3)
    q, qd = rng.standard_normal(3), rng.standard_normal(3)
    want = m.eval(q, qd, 0.5)
    for qq, qqd in ((list(q), list(qd)), (tuple(q), tuple(qd)),
                    (q.astype(np.float64), qd.copy())):
        got = m.eval(qq, qqd, 0.5)
        assert np.array_equal(got.record, want.record)
    r1 = m.eval(q, qd)
    keep = r1.qdd.copy(), r1.mass_matrix.copy(), r1.T
    m.eval(qd, q)                              # another state: r1 unchanged
    m.accel(qd, q)
    assert np.array_equal(r1.qdd, keep[0]) and np.array_equal(r1.mass_matrix, keep[1])
    assert r1.T == keep[2] and isinstance(r1.T, float)
    a1 = m.accel(q, qd)
    a2 = m.accel(qd, q)
    assert not np.shares_memory(a1, a2) and np.array_equal(a1, r1.qdd)
    # parameters by name: the slow path, the same numbers as a new model
    pm = m.eval(q, qd, params={"g": 1.0})
    assert not np.allclose(pm.qdd, r1.qdd)
    text = open(os.path.join(ROOT, "examples", "double_rod_pendulum.lag")).read()
    assert "g = 9.81" in text
    m2 = lagrange.loads(text.replace("g = 9.81", "g = 1.0"), name="g1")
    assert np.allclose(m2.eval(q, qd).qdd, pm.qdd, rtol=1e-13, atol=1e-13)


def test_batch_error_names_the_state():
    # the mass matrix (1 - x)^2 vanishes at x = 1
    m = lagrange.loads("coordinates x\nparameters m = 1\nT = 1/2*m*(1 - x)^2*x'^2\n",
                       name="singular.lag")
    Q = np.array([[0.5], [0.0], [1.0], [2.0]])
    with pytest.raises(lagrange.NumericError) as e:
        m.eval(Q, Q)
    assert "(state 2 of the batch)" in str(e.value), str(e.value)
    assert e.value.file == "singular.lag"
    with pytest.raises(lagrange.NumericError, match="state 2 of the batch"):
        m.accel(Q, Q)
    with pytest.raises(lagrange.NumericError):
        m.eval([1.0], [0.0])                 # the fast path raises too
    with pytest.raises(lagrange.NumericError):
        m.accel([1.0], [0.0])
    assert np.isfinite(m.accel([0.5], [0.0])).all()


def test_threads_two_models_batches_and_accel():
    ms = [lagrange.load(os.path.join(ROOT, "examples", n + ".lag"))
          for n in ("delta_robot", "cart_pendulum")]
    rng = np.random.default_rng(5)
    work = []
    for m in ms:
        states = [_near(m, rng) for _ in range(100)]
        want = [m.eval(q, qd).record for q, qd in states]
        work.append((m, states, want))
    def run(k):
        for m, states, want in work:
            for i, (q, qd) in enumerate(states):
                if (i + k) % 3 == 0:
                    got = m.eval(q[None], qd[None]).record[0]
                elif (i + k) % 3 == 1:
                    got = m.eval(list(q), list(qd)).record
                else:
                    a = m.accel(q, qd)
                    got = want[i].copy()
                    got[:m.n] = a
                assert np.array_equal(got, want[i], equal_nan=True), (k, i)

    errors = in_threads(run, 3)
    assert not errors, errors[:5]


class _Stop(Exception):
    pass


def test_simulate_callback_stops_and_raises():
    m = lagrange.load(os.path.join(ROOT, "examples", "cart_pendulum.lag"))
    seen = []

    def stop_at_half(t, q, qd):
        seen.append((t, q.copy(), qd.copy()))
        return t >= 0.5 - 1e-12

    s = m.simulate(tf=2.0, dt=0.1, callback=stop_at_half)
    assert abs(s["t"][-1] - 0.5) < 1e-9 and len(s["t"]) == len(seen) == 6
    assert np.allclose(s["theta"], [x[1][1] for x in seen])

    calls = []

    def boom(t, q, qd):
        calls.append(t)
        if t > 0.25:
            raise _Stop("from the callback")

    with pytest.raises(_Stop, match="from the callback"):
        m.simulate(tf=100.0, dt=0.1, callback=boom)
    assert len(calls) == 4      # the run stopped at the raise

    def interrupt(t, q, qd):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        m.simulate(tf=100.0, dt=0.1, callback=interrupt)


def test_linearize_independent_matches_cli():
    path = os.path.join(ROOT, "examples", "pendulum_3d_cartesian.lag")
    m = lagrange.load(path)
    for ind in ("x, y, x', y'", "y, z, y', z'"):
        r = _cli("linearize", "--json", path, "--independent", ind)
        assert r.returncode == 0, r.stderr
        j = json.loads(r.stdout)
        A, B = m.linearize(independent=[w.strip() for w in ind.split(",")])
        assert np.allclose(A, np.array(j["A"], float), rtol=1e-10, atol=1e-10), ind
        A2, _ = m.linearize(independent=ind)
        assert np.array_equal(A, A2)
        lin = m.last_linearization["state"]
        assert lin == [w.strip() for w in ind.split(",")], (lin, ind)
    with pytest.raises(KeyError):
        m.linearize(independent=["nope"])


def _public(obj, seen):
    for name, v in vars(obj).items():
        if name.startswith("_") or id(v) in seen:
            continue
        if inspect.isclass(v) or inspect.isfunction(v) or isinstance(v, property):
            seen.add(id(v))
            yield "%s.%s" % (getattr(obj, "__name__", obj), name), v
            if inspect.isclass(v) and v.__module__.startswith("lagrange"):
                yield from _public(v, seen)


def test_every_public_function_has_a_docstring():
    missing = []
    for name in lagrange.__all__:
        obj = getattr(lagrange, name)
        if not (obj.__doc__ or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for sub, v in _public(obj, set()):
                doc = (v.fget.__doc__ if isinstance(v, property) else v.__doc__) or ""
                if not doc.strip():
                    missing.append(sub)
    assert not missing, missing
    assert "batch" in lagrange.Model.eval.__doc__


def test_parameter_without_value():
    m = lagrange.loads("coordinates x\nparameters m, k = 2\nT = 1/2*m*x'^2\nV = 1/2*k*x^2\n",
                       name="novalue.lag")
    for call in (lambda: m.eval([0.1], [0.0]), lambda: m.accel([0.1], [0.0]),
                 lambda: m.eval([[0.1]], [[0.0]]), lambda: m.simulate(tf=0.1)):
        with pytest.raises(ValueError, match="parameter 'm' has no value"):
            call()
    # k / m with m = 4: x'' = -k x / m
    assert np.allclose(m.eval([0.1], [0.0], params={"m": 4.0}).qdd, [-0.05])
    assert np.allclose(m.accel([[0.1], [0.2]], [[0.0], [0.0]], params={"m": 4.0}),
                       [[-0.05], [-0.1]])


def _chain(n):
    import sys
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import models
    return lagrange.loads(models.lag_model("chain", n), name="chain%d.lag" % n)


def test_solution_satisfies_the_full_form():
    """q'' and lam solve mass_matrix_full [q'; q''; lam] = forcing_full:
    the library's own solvers (plain loops up to 24 unknowns, LAPACK
    above) against the forms it reports, for every example and for chains
    on both sides of that size."""
    rng = np.random.default_rng(11)
    models = [lagrange.load(p) for p in EXAMPLES] + [_chain(n) for n in (12, 24, 26)]
    for m in models:
        for _ in range(3):
            q, qd = _near(m, rng)
            r = m.eval(q, qd)
            x = np.concatenate([qd, r.qdd, r.lam])
            scale = 1 + np.abs(r.mass_matrix_full).max() * np.abs(x).max()
            res = np.abs(r.mass_matrix_full @ x - r.forcing_full).max()
            assert res <= 1e-11 * scale, (m, res, scale)
