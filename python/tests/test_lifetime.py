"""A Model's derived system and its lifetime: close(), `with`, and the
calls that still use the system when the model is closed (a simulate
callback, another thread). Before close() existed, Model.__del__ freed
the system while the C extension kept its address: a later eval read
freed memory and a simulate whose callback freed it crashed. The crash
tests run in a child interpreter, so a crash fails the test rather than
the whole run."""
import gc
import os
import subprocess
import sys
import textwrap
import threading
import weakref

import numpy as np
import pytest

import lagrange

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CART = os.path.join(ROOT, "examples", "cart_pendulum.lag")
CLOSED = "closed"


def _child(code):
    """Runs code in a child python3 with this package; (returncode, stdout,
    stderr). A segfault shows as returncode -11."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                       capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


# "release the system": close() now; before it existed, the __del__ that did it
RELEASE = 'release = getattr(m, "close", None) or m.__del__\n'


def test_release_inside_simulate_callback_does_not_crash():
    rc, out, err = _child('''
        import lagrange
        m = lagrange.load(%r)
        %s
        seen = []
        def cb(t, q, qd):
            seen.append(t)
            if len(seen) == 2:
                release()
        s = m.simulate(tf=0.5, dt=0.01, callback=cb)
        print(len(s["t"]), len(seen))
        ''' % (CART, RELEASE))
    assert rc == 0, (rc, err[-2000:])
    assert out.split() == ["51", "51"], out  # the run finished on the live system


def test_eval_after_release_raises_not_garbage():
    rc, out, err = _child('''
        import lagrange
        m = lagrange.load(%r)
        %s
        release()
        for call in (lambda: m.eval([0.0, 0.3], [0.0, 0.1]),
                     lambda: m.accel([0.0, 0.3], [0.0, 0.1]),
                     lambda: m.eval([[0.0, 0.3]] * 40, [[0.0, 0.1]] * 40)):
            try:
                call()
                print("returned")
            except ValueError as e:
                print("ValueError", "closed" in str(e))
        ''' % (CART, RELEASE))
    assert rc == 0, (rc, err[-2000:])
    assert out.split("\n")[:3] == ["ValueError True"] * 3, out


def test_every_method_raises_after_close():
    m = lagrange.load(CART)
    assert not m.closed
    m.close()
    m.close()  # twice: nothing more
    assert m.closed and "closed" in repr(m)
    calls = {
        "eval": lambda: m.eval([0.0, 0.3], [0.0, 0.0]),
        "eval()": lambda: m.eval(),
        "eval batch": lambda: m.eval(np.zeros((50, 2)), np.zeros((50, 2))),
        "eval params": lambda: m.eval([0.0, 0.3], [0.0, 0.0], params={"l": 1.0}),
        "accel": lambda: m.accel([0.0, 0.3], [0.0, 0.0]),
        "_eval_many": lambda: m._eval_many(np.zeros((1, 2)), np.zeros((1, 2)), np.zeros(1),
                                           None, False),
        "_accel_many": lambda: m._accel_many(np.zeros((1, 2)), np.zeros((1, 2)),
                                             np.zeros(1), None, False),
        "simulate": lambda: m.simulate(tf=0.1),
        "linearize": lambda: m.linearize(),
        "eom": lambda: m.eom(),
        "codegen": lambda: m.codegen(),
        "codegen_files": lambda: m.codegen_files(),
        "initial_state": lambda: m.initial_state(),
        "parameter_values": lambda: m.parameter_values(),
        "with": lambda: m.__enter__(),
    }
    for name, call in calls.items():
        with pytest.raises(ValueError, match=CLOSED):
            call()
    # what is not the system stays readable
    assert m.coordinates == ["x", "theta"] and m.n == 2


def test_with_closes():
    with lagrange.load(CART) as m:
        assert m.eval([0.0, 0.3], [0.0, 0.0]).qdd.shape == (2,)
    assert m.closed
    with pytest.raises(ValueError, match=CLOSED):
        m.eval([0.0, 0.3], [0.0, 0.0])
    with pytest.raises(KeyError):  # an exception in the block: closed and propagated
        with lagrange.loads("coordinates x\nT = x'^2\n") as k:
            raise KeyError("x")
    assert k.closed


def test_close_frees_now():
    """close() frees the system at once when no call is using it: the
    owner object goes (and lg_system_free with it) without waiting for
    the Model."""
    m = lagrange.load(CART)
    owner = weakref.ref(m._sys)
    m.eval([0.0, 0.3], [0.0, 0.0])
    m.close()
    assert owner() is None
    # and dropping a Model frees it too, with no __del__ of the Model's
    m = lagrange.load(CART)
    owner = weakref.ref(m._sys)
    del m
    assert owner() is None


def test_calls_in_flight_keep_the_system():
    """close() while other threads evaluate batches (the GIL released
    around the library): each call either ran on the live system (the
    right numbers) or saw the model closed; nothing reads freed memory."""
    ref = lagrange.load(CART)
    rng = np.random.default_rng(5)
    Q, QD = rng.standard_normal((20000, 2)), rng.standard_normal((20000, 2))
    want = ref.accel(Q, QD)
    outcomes = []
    for _ in range(10):
        m = lagrange.load(CART)
        started = threading.Event()

        def work():
            started.set()
            try:
                for _ in range(5):
                    got = m.accel(Q, QD)
                    outcomes.append("ok" if np.array_equal(got, want) else "WRONG")
            except ValueError as e:
                outcomes.append("closed" if CLOSED in str(e) else repr(e))

        ts = [threading.Thread(target=work) for _ in range(3)]
        for t in ts:
            t.start()
        started.wait()
        m.close()
        for t in ts:
            t.join()
        del m
        gc.collect()
    assert outcomes and set(outcomes) <= {"ok", "closed"}, outcomes


def test_close_inside_callback_then_eval_raises():
    m = lagrange.load(CART)
    seen = []

    def cb(t, q, qd):
        seen.append(t)
        if len(seen) == 3:
            m.close()
            m.eval(q, qd)  # raises: the run stops and simulate raises it

    with pytest.raises(ValueError, match=CLOSED):
        m.simulate(tf=1.0, dt=0.1, callback=cb)
    assert len(seen) == 3
