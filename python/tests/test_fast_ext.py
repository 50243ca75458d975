"""Tests of the C extension lagrange._fast (Model.eval, Model.accel,
EvalResult): one state against a batch against `lagrange eval --json`,
the inputs it takes in place and those it converts, errors, threads,
reference counts and memory, and the package without the extension."""
import gc
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest

import lagrange
from threads_util import in_threads

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("LAGRANGE_CLI", os.path.join(ROOT, "build", "lagrange"))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag")))
CART = os.path.join(ROOT, "examples", "cart_pendulum.lag")
KEYS = {f: f for f in lagrange.EvalResult.FIELDS}
KEYS["residuals"] = "constraint_residuals"


def _close(got, want, tol=1e-12):
    got = np.asarray(got, float)
    want = np.asarray([np.nan if x is None else x for x in np.ravel(want)]
                      if np.ndim(want) else want, float).reshape(np.shape(got))
    return np.allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


def _state(m, rng):
    q, qd = m.initial_state()
    return q + 0.05 * rng.standard_normal(m.n), qd + 0.05 * rng.standard_normal(m.n)


def test_extension_is_in_use():
    # make python built it: eval and accel are the extension's C methods
    from lagrange import _eval
    assert _eval.MISSING is None, _eval.MISSING
    assert type(lagrange.Model.eval).__name__ == "method_descriptor"
    assert lagrange.EvalResult.__module__ == "lagrange"


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_single_batch_cli_agree(path):
    m = lagrange.load(path)
    rng = np.random.default_rng(abs(hash(os.path.basename(path))) % 1000)
    states = [_state(m, rng) for _ in range(3)]
    Q = np.array([s[0] for s in states])
    QD = np.array([s[1] for s in states])
    T = np.array([0.0, 0.5, 1.25])
    batch = m.eval(Q, QD, T)
    abatch = m.accel(Q, QD, T)
    k = 1
    q, qd = states[k]
    arg = ", ".join(["%s=%.17g" % (c, v) for c, v in zip(m.coordinates, q)]
                    + ["%s'=%.17g" % (c, v) for c, v in zip(m.coordinates, qd)])
    r = subprocess.run([CLI, "eval", "--json", path, "--t", "0.5", "--state", arg],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    one = m.eval(q, qd, 0.5)
    for f, key in KEYS.items():
        assert _close(getattr(one, f), j[key]), (f, getattr(one, f), j[key])
        assert _close(getattr(batch, f)[k], j[key]), f
    assert np.array_equal(one.record, batch.record[k], equal_nan=True)
    a = m.accel(q, qd, 0.5)
    assert np.array_equal(a, one.qdd) and np.array_equal(abatch[k], a)
    for i in range(3):
        assert np.array_equal(m.accel(Q[i], QD[i], T[i]), batch.qdd[i])


def test_inputs_taken_or_converted():
    m = lagrange.load(CART)
    q, qd = np.array([0.25, 0.5]), np.array([-1.0, 2.0])
    want = m.eval(q, qd, 0.75).record
    big = np.zeros((2, 4))
    big[0, ::2] = q                                   # strided views
    big[1, 1::2] = qd
    f32 = np.array([0.25, 0.5], np.float32)            # exactly representable
    same = [(list(q), list(qd), 0.75), (tuple(q), tuple(qd), 0.75),
            (big[0, ::2], big[1, 1::2], 0.75), (q, qd, np.float64(0.75)),
            (f32, qd.astype(np.float32), 0.75), (q, qd, [0.75]),
            (q.reshape(1, 2), qd, 0.75), (np.array(q, dtype=">f8"), qd, 0.75),
            ([np.float64(0.25), 0.5], [-1, 2], 0.75)]
    for args in same:
        r = m.eval(*args)
        rec = r.record[0] if r.batch else r.record
        assert np.array_equal(rec, want), args
        a = m.accel(*args)
        assert np.array_equal(a.reshape(-1), want[:2]), args
    # ints, an int t, keywords, t by position
    qi = m.eval([0, 1], [1, 0], 2).record
    assert np.array_equal(qi, m.eval(np.array([0.0, 1.0]), np.array([1.0, 0.0]), 2.0).record)
    assert np.array_equal(m.eval(np.array([0, 1]), np.array([1, 0]), t=2).record, qi)
    assert np.array_equal(m.eval(qd=[1, 0], q=[0, 1], t=2.0).record, qi)
    assert np.array_equal(m.accel(qd=[1, 0], q=[0, 1], t=2.0), qi[:2])
    with pytest.raises(OverflowError):
        m.eval([10**400, 0], [0, 0])
    # the input is read, never kept or changed
    q0 = q.copy()
    r = m.eval(q, qd)
    q[:] = 9.0
    assert np.array_equal(r.record, m.eval(q0, qd).record)


def test_bad_inputs_raise_clearly():
    m = lagrange.load(CART)
    q = [0.0, 0.3]
    for f in (m.eval, m.accel):
        for bad in ([0.0], [0.0, 1.0, 2.0], np.zeros(3), [[0.0, 1.0, 2.0]], ()):
            with pytest.raises(ValueError, match=r"q needs 2 values \(x, theta\)"):
                f(bad, q)
            with pytest.raises(ValueError, match=r"qd needs 2 values"):
                f(q, bad)
        with pytest.raises(ValueError):
            f(["a", "b"], q)                       # not numbers
        with pytest.raises(TypeError):
            f(q, [0.0, object()])
        with pytest.raises(TypeError, match="unexpected keyword argument 'p'"):
            f(q, q, p=1)
        with pytest.raises(TypeError, match="at most 4 arguments"):
            f(q, q, 0.0, None, 5)
        with pytest.raises(TypeError, match="multiple values"):
            f(q, q, q=q)
        with pytest.raises(ValueError, match="t must be a number"):
            f(q, q, t=[[0.0]])
    with pytest.raises(TypeError, match="missing required argument 'qd'"):
        m.accel(q)
    with pytest.raises(TypeError):
        m._eval_many([[0.0, 0.0]], [[0.0, 0.0]], [0.0], None, False)   # lists: internal
    with pytest.raises(TypeError):
        lagrange.EvalResult()


def test_non_finite_values():
    m = lagrange.load(CART)
    for bad in (np.nan, np.inf, -np.inf):
        # (theta and theta' enter the equations; x, x' and t do not)
        for call in (lambda: m.eval([0.0, bad], [0.0, 0.0]),
                     lambda: m.accel([0.0, 0.0], [0.0, bad]),
                     lambda: m.eval(np.array([0.0, bad]), [0.0, 0.0], t=0)):
            with pytest.raises(lagrange.NumericError) as e:
                call()
            assert e.value.file.endswith("cart_pendulum.lag") and e.value.line > 0
            assert "not finite" in str(e.value) and "batch" not in str(e.value)
    Q = np.zeros((4, 2))
    Q[2, 1] = np.nan
    for f in (m.eval, m.accel):
        with pytest.raises(lagrange.NumericError, match=r"\(state 2 of the batch\)"):
            f(Q, np.zeros((4, 2)))


def test_result_object():
    m = lagrange.load(os.path.join(ROOT, "examples", "pendulum_3d_cartesian.lag"))
    q, qd = m.initial_state()
    r = m.eval(q, qd)
    assert r.qdd is r.qdd and not r.batch and isinstance(r.T, float)
    assert r.mass_matrix.shape == (3, 4) and r.mass_matrix_full.shape == (7, 7)
    assert np.shares_memory(r.qdd, r.record) and np.shares_memory(r.forcing, r.record)
    assert r.record.shape == (lagrange._lib.lib.lg_eval_record_size(m._sys.ptr),)
    r.record[0] = 123.0                       # fields are views into the record
    assert r.qdd[0] == 123.0
    d = r.as_dict()
    assert list(d) == list(lagrange.EvalResult.FIELDS) and d["V"] == r.V
    assert set(lagrange.EvalResult.FIELDS) <= set(dir(r)) and "record" in dir(r)
    assert repr(r).startswith("EvalResult(qdd=array([123.")
    with pytest.raises(AttributeError, match="EvalResult has no field 'qddd'"):
        r.qddd
    # T read before the record exists, then the record: the same numbers
    r2 = m.eval(q, qd)
    t2 = r2.T
    assert r2.record[-2] == t2 and r2.V == r2.record[-1]
    b = m.eval(np.array([q, q]), np.array([qd, qd]))
    assert b.batch and b.T.shape == (2,) and b.mass_matrix.shape == (2, 3, 4)
    assert np.array_equal(b.mass_matrix[1], m.eval(q, qd).mass_matrix)
    assert np.shares_memory(b.record, b.momenta)


def test_result_pickles_and_copies():
    import copy
    import pickle
    m = lagrange.load(os.path.join(ROOT, "examples", "pendulum_3d_cartesian.lag"))
    q, qd = m.initial_state()
    for r in (m.eval(q, qd), m.eval(np.array([q, q]), np.array([qd, qd]))):
        for c in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r), copy.copy(r)):
            assert type(c) is lagrange.EvalResult and c.batch == r.batch
            for f in lagrange.EvalResult.FIELDS:
                assert np.array_equal(getattr(c, f), getattr(r, f), equal_nan=True), f
    with pytest.raises(ValueError):
        lagrange._eval._fast._result(np.zeros(5), 3, 1)


def test_result_sizes_from_a_pickle():
    """_result takes n and m from a pickle: sizes that wrap are refused
    before they are computed. n = 0, m = 486331011735726987 makes the
    record size wrap to 28: a 28-value record gave a view of 4.8e17
    multipliers, and reading one crashed. The test runs in a child so that
    a crash fails it cleanly."""
    code = textwrap.dedent("""
        import pickle, numpy as np, lagrange
        from lagrange import _fast
        for n, m, size in ((0, 486331011735726987, 28), (2**40, 0, 16), (1, 2**62, 10)):
            for rec in (np.zeros(size), np.zeros((2, size))):
                try:
                    r = _fast._result(rec, n, m)
                    print("built", float(r.lam.reshape(-1)[10**15 % max(r.lam.size, 1)]))
                except ValueError as e:
                    print("ValueError", "n and m" in str(e))
        # a pickle naming the same sizes, as anyone can write one
        class Forged:
            def __reduce__(self):
                return (_fast._result, (np.zeros(28), 0, 486331011735726987))
        try:
            pickle.loads(pickle.dumps(Forged()))
            print("unpickled")
        except ValueError as e:
            print("ValueError", "n and m" in str(e))
    """)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.split("\n")[:7] == ["ValueError True"] * 7, r.stdout
    # an unaligned or read-only batch is copied, not viewed
    m = lagrange.loads("coordinates x\nT = x'^2/2\nV = x^2/2\n")
    b = m.eval(np.zeros((2, 1)), np.ones((2, 1)))
    ro = b.record.copy()
    ro.flags.writeable = False
    c = lagrange._eval._fast._result(ro, 1, 0)
    c.qdd[0] = 5.0  # its own copy: writable
    assert ro[0, 0] == b.record[0, 0]


def test_threads_one_model_single_and_batches():
    m = lagrange.load(os.path.join(ROOT, "examples", "delta_robot.lag"))
    rng = np.random.default_rng(9)
    states = [_state(m, rng) for _ in range(64)]
    Q = np.array([s[0] for s in states])
    QD = np.array([s[1] for s in states])
    want = m.eval(Q, QD).record.copy()          # 64 states: the GIL is released
    def run(k):
        for rep in range(30):
            if (rep + k) % 2:
                got = m.eval(Q, QD).record
                acc = m.accel(Q, QD)
            else:
                got = np.array([m.eval(q, qd).record for q, qd in states])
                acc = np.array([m.accel(list(q), list(qd)) for q, qd in states])
            assert np.array_equal(got, want) and np.array_equal(acc, want[:, :m.n]), (k, rep)

    errors = in_threads(run, 2)
    assert not errors, errors[:5]


def _rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def test_no_reference_or_memory_leak():
    m = lagrange.load(CART)
    q, qd = np.array([0.1, 0.2]), np.array([0.3, 0.4])
    ql, t = [0.1, 0.2], 0.5
    Q, QD = np.tile(q, (3, 1)), np.tile(qd, (3, 1))
    kinds = [lambda: m.eval(q, qd, t), lambda: m.eval(q, qd, t).mass_matrix,
             lambda: m.eval(ql, ql).record, lambda: m.accel(q, qd, t),
             lambda: (m.eval(q, qd).T, m.eval(Q, QD).qdd, m.accel(Q, QD)),
             lambda: m.eval(q, qd, params={"g": 1.0}).V]
    bad = [lambda: m.eval([0.0, np.nan], qd), lambda: m.accel([0.0], qd)]

    def loop(n):
        for _ in range(n):
            for f in kinds:
                f()
            for f in bad:
                try:
                    f()
                except ValueError:
                    pass

    objs = (q, qd, ql, t, m, lagrange.EvalResult, Q, QD)
    loop(2000)
    gc.collect()
    refs = [sys.getrefcount(o) for o in objs]
    rss = _rss_kb()
    loop(20000)                         # 20000 x 8 calls
    gc.collect()
    assert [sys.getrefcount(o) for o in objs] == refs
    grown = _rss_kb() - rss
    assert grown < 4096, "memory grew by %d kB" % grown
    for _ in range(100000):
        m.eval(q, qd)
    gc.collect()
    assert [sys.getrefcount(o) for o in objs] == refs


def _copy_package(dst):
    """python/lagrange without the extension, in dst."""
    pkg = os.path.join(dst, "lagrange")
    os.makedirs(pkg)
    for p in glob.glob(os.path.join(ROOT, "python", "lagrange", "*.py")):
        shutil.copy(p, pkg)
    return pkg


def test_without_the_extension_eval_says_how_to_build_it():
    lib = sorted(glob.glob(os.path.join(ROOT, "build", "liblagrange.so.*")))[-1]
    with tempfile.TemporaryDirectory() as d:
        _copy_package(d)
        code = textwrap.dedent("""
            import lagrange
            m = lagrange.load(%r)
            print(m.coordinates, lagrange.EvalResult.FIELDS[0])
            s = m.simulate(tf=0.1, dt=0.05)
            print(len(s["t"]))
            try:
                m.eval([0.0, 0.1], [0.0, 0.0])
            except ImportError as e:
                print("ImportError:", e)
            """ % CART)
        env = dict(os.environ, PYTHONPATH=d, LAGRANGE_LIBRARY=lib)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, cwd=d)
    assert r.returncode == 0, r.stderr
    assert "['x', 'theta'] qdd" in r.stdout and "\n3\n" in r.stdout, r.stdout
    assert "ImportError:" in r.stdout and "make python" in r.stdout, r.stdout


def test_pip_install_builds_the_extension():
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "src")
        # a copy of the tree pip builds from (it writes build/ beside setup.py)
        shutil.copytree(os.path.join(ROOT, "python"), os.path.join(src, "python"),
                        ignore=shutil.ignore_patterns("*.so", "build", "*.egg-info",
                                                      "__pycache__"))
        shutil.copytree(os.path.join(ROOT, "src", "api"), os.path.join(src, "src", "api"))
        lib = sorted(glob.glob(os.path.join(ROOT, "build", "liblagrange.so.*")))[-1]
        env = dict(os.environ, LAGRANGE_LIBRARY=lib, PIP_NO_INDEX="1")
        env.pop("PYTHONPATH", None)
        r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                            "--no-build-isolation", "--target", os.path.join(d, "site"),
                            os.path.join(src, "python")],
                           env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        env = dict(os.environ, PYTHONPATH=os.path.join(d, "site"))
        env.pop("LAGRANGE_LIBRARY", None)
        code = ("import lagrange, lagrange._fast as f; m = lagrange.load(%r); "
                "print(f.__file__, m.accel([0.0, 0.3], [0.0, 0.0]))" % CART)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, cwd=d)
    assert r.returncode == 0, r.stderr
    assert os.path.join(d, "site", "lagrange", "_fast") in r.stdout, r.stdout
