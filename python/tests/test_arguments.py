"""Arguments the package must refuse with a clear error rather than pass
on: simulation times that are not finite or not ordered, a run of more
rows than max_rows (the command's --max-rows bound), a NUL byte in a path
or a name (C would stop reading there), and paths given as bytes or
os.PathLike (accepted, as open() accepts them)."""
import os
import pathlib
import shutil
import tempfile

import numpy as np
import pytest

import lagrange

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CART = os.path.join(ROOT, "examples", "cart_pendulum.lag")
INF, NAN = float("inf"), float("nan")


def _stop_soon():
    """A callback that ends a run after a few points: a run that should
    have been refused ends quickly instead of running unbounded."""
    seen = []
    return lambda t, q, qd: seen.append(t) or len(seen) >= 3


def _refused(m, what, **kw):
    with pytest.raises(ValueError) as e:
        m.simulate(callback=_stop_soon(), **kw)
    text = str(e.value)
    assert what in text, text
    assert "--" not in text, text  # the library's terms, not the command's flags
    return text


# ---- simulate: times -----------------------------------------------------------------
def test_simulate_times_must_be_finite():
    m = lagrange.load(CART)
    for kw, name in (({"tf": INF}, "tf"), ({"tf": -INF}, "tf"), ({"tf": NAN}, "tf"),
                     ({"t0": -INF}, "t0"), ({"t0": NAN}, "t0"), ({"dt": INF}, "dt"),
                     ({"dt": NAN}, "dt")):
        text = _refused(m, name, **kw)
        assert "finite" in text, text


def test_simulate_tf_after_t0():
    m = lagrange.load(CART)
    assert "greater than t0" in _refused(m, "tf", t0=1.0, tf=1.0)
    assert "greater than t0" in _refused(m, "tf", t0=2.0, tf=1.0)
    assert "positive" in _refused(m, "dt", dt=0.0)
    assert "positive" in _refused(m, "dt", dt=-0.1)


# ---- simulate: the bound on rows -----------------------------------------------------
def test_simulate_max_rows_default_bound():
    m = lagrange.load(CART)
    # 1e-7 steps over 1 s: 10,000,001 rows, one past the command's default
    text = _refused(m, "max_rows", tf=1.0, dt=1e-7)
    assert "10000001 rows" in text and "10000000" in text, text
    assert "larger dt" in text, text
    _refused(m, "max_rows", tf=1e300)  # (tf - t0)/dt overflows


def test_simulate_max_rows_given():
    m = lagrange.load(CART)
    assert "max_rows = 10" in _refused(m, "11 rows", tf=1.0, dt=0.1, max_rows=10)
    s = m.simulate(tf=1.0, dt=0.1, max_rows=11)
    assert len(s["t"]) == 11
    s = m.simulate(tf=1.0, dt=1e-7, max_rows=1e30, callback=_stop_soon())  # raised
    assert len(s["t"]) == 3
    for bad in (0, -1, 1.5, INF, NAN):
        with pytest.raises(ValueError, match="max_rows"):
            m.simulate(tf=1.0, dt=0.1, max_rows=bad)


# ---- paths ---------------------------------------------------------------------------
def test_paths_bytes_and_pathlike():
    want = lagrange.load(CART).coordinates
    assert lagrange.load(os.fsencode(CART)).coordinates == want
    assert lagrange.load(pathlib.Path(CART)).coordinates == want
    # a file name that is not UTF-8 (bytes as the file system has them)
    d = tempfile.mkdtemp()
    try:
        odd = os.path.join(os.fsencode(d), b"caf\xe9.lag")
        shutil.copy(CART, odd)
        m = lagrange.load(odd)
        assert m.coordinates == want
        assert lagrange.loads(open(CART).read(), name=odd).coordinates == want
    finally:
        shutil.rmtree(d)
    with pytest.raises(OSError, match="cannot read"):
        lagrange.load(pathlib.Path(ROOT) / "no-such-model.lag")


def test_paths_refused():
    for bad in (CART + "\0.txt", os.fsencode(CART) + b"\0x", "\0"):
        with pytest.raises(ValueError, match="NUL"):
            lagrange.load(bad)
    for bad in (3, None, 1.5, ["a"]):
        with pytest.raises(TypeError, match="str, bytes or os.PathLike"):
            lagrange.load(bad)
    text = open(CART).read()
    with pytest.raises(ValueError, match="NUL"):
        lagrange.loads(text, name="cart\0.lag")
    with pytest.raises(TypeError, match="str or bytes"):
        lagrange.loads(5)


# ---- names ---------------------------------------------------------------------------
def test_names_with_nul_refused():
    m = lagrange.load(CART)
    calls = [
        lambda: m.eval([0.0, 0.3], [0.0, 0.0], params={"l\0": 1.0}),
        lambda: m.eval(q={"x\0": 0.0}),
        lambda: m.simulate(tf=0.1, q0={"theta\0": 0.1}),
        lambda: m.simulate(tf=0.1, params={"g\0": 1.0}),
        lambda: m.linearize(at={"theta\0": 0.0}),
        lambda: m.linearize(at={"theta\0'": 0.0}),
        lambda: m.linearize(independent=["x\0"]),
        lambda: m.codegen(name="model\0x"),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="NUL"):
            call()
    with pytest.raises(TypeError, match="strings"):
        m.eval([0.0, 0.3], [0.0, 0.0], params={1: 1.0})
    # the names without the NUL still work
    r = m.eval([0.0, 0.3], [0.0, 0.0], params={"l": 1.0})
    assert np.all(np.isfinite(r.qdd))
