"""Tests of the Python package against the command-line tool."""
import csv
import glob
import json
import os
import subprocess
import tempfile

import numpy as np

import lagrange
from threads_util import in_threads

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("LAGRANGE_CLI", os.path.join(ROOT, "build", "lagrange"))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag")))


def _cli(*args):
    return subprocess.run([CLI] + list(args), capture_output=True, text=True)


def _close(a, b, tol=1e-12):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


def test_eval_matches_cli():
    checked = 0
    for path in EXAMPLES:
        r = _cli("eval", "--json", path)
        if r.returncode != 0:
            continue
        j = json.loads(r.stdout)
        m = lagrange.load(path)
        e = m.eval()
        for k in ("qdd", "lam", "mass_matrix", "forcing"):
            if k in j:
                want = np.array(j[k], float)
                got = getattr(e, k)
                assert _close(got.reshape(want.shape) if got.size == want.size else got,
                              want), (path, k, got, want)
        checked += 1
    assert checked >= 5


def test_names_and_params():
    m = lagrange.load(os.path.join(ROOT, "examples", "cart_pendulum.lag"))
    assert m.coordinates == ["x", "theta"]
    assert list(m.parameters) == ["m", "M", "l", "g"]
    assert m.parameters["g"] == 9.81
    r1 = m.eval(q=[0.0, 0.3], qd=[0.0, -0.4], params={"l": 0.7})
    r2 = m.eval(q=[0.0, 0.3], qd=[0.0, -0.4])
    assert not np.allclose(r1.qdd, r2.qdd)


def test_simulate_matches_csv():
    path = os.path.join(ROOT, "examples", "cart_pendulum.lag")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "s.csv")
        r = subprocess.run([CLI, "simulate", path, "--tf", "1", "--dt", "0.1"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        with open(out, "w") as f:
            f.write(r.stdout)
        rows = list(csv.reader(open(out)))
    header = [h.strip() for h in rows[0]]
    data = np.array([[float(x) for x in row] for row in rows[1:] if row])
    s = lagrange.load(path).simulate(tf=1.0, dt=0.1)
    assert s.columns == header, (s.columns, header)
    for i, h in enumerate(header):
        assert np.allclose(s[h], data[:, i], rtol=1e-9, atol=1e-9), h


def test_linearize_matches_cli():
    path = os.path.join(ROOT, "examples", "cart_pendulum.lag")
    r = _cli("linearize", "--json", path)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    A, B = lagrange.load(path).linearize()
    assert _close(A, np.array(j["A"], float), 1e-10)


def test_errors_carry_position():
    try:
        lagrange.loads("coordinates x\nparameters m = 1\nparticle P mass m\nL = m*y^2\n",
                       name="bad.lag")
    except lagrange.ModelError as e:
        assert isinstance(e, ValueError)
        assert e.file == "bad.lag" and e.line >= 1 and e.col >= 1, (e.file, e.line, e.col)
        assert str(e).startswith("bad.lag:%d:%d:" % (e.line, e.col)), str(e)
    else:
        raise AssertionError("no ModelError")


def test_threads_same_results():
    m = lagrange.load(os.path.join(ROOT, "examples", "cart_pendulum.lag"))
    rng = np.random.default_rng(1)
    states = [(rng.normal(size=2), rng.normal(size=2)) for _ in range(200)]
    want = [m.eval(q=q, qd=qd).qdd for q, qd in states]
    got = [[None] * len(states) for _ in range(2)]

    def run(k):
        for i, (q, qd) in enumerate(states):
            got[k][i] = m.eval(q=q, qd=qd).qdd

    assert not in_threads(run, 2)
    for k in range(2):
        for a, b in zip(got[k], want):
            assert np.array_equal(a, b)


def test_codegen_string():
    m = lagrange.load(os.path.join(ROOT, "examples", "spring_mass.lag"))
    assert "#include" in m.codegen(lang="c")


def test_codegen_hostile_path_and_name():
    """A model file named to close the comment or docstring its path is
    written in: the generated module imports and the C compiles without
    running anything; a name with a NUL byte is refused (the C side would
    see only its start, while codegen() pastes all of it)."""
    import shutil
    with tempfile.TemporaryDirectory() as tmp:
        dirname = os.path.join(tmp, "d*", " int pwned = 1; ")
        os.makedirs(dirname)
        path = os.path.join(dirname, '*q"""; open("PWNED", "w"); """.lag')
        shutil.copy(os.path.join(ROOT, "examples", "spring_mass.lag"), path)
        m = lagrange.load(path)
        here = os.getcwd()
        os.chdir(tmp)
        try:
            py = m.codegen(lang="python", name="m")
            ns = {}
            exec(compile(py, "m.py", "exec"), ns)
            assert not os.path.exists("PWNED")
            x = np.array([0.1, 0.2])
            want = [x[1]] + list(m.eval(q=x[:1], qd=x[1:]).qdd)
            assert _close(ns["rhs"](0.0, x), want)
            src, hdr = m.codegen_files(lang="c", name="m")
            assert "*/ int pwned" not in src and "*/ int pwned" not in hdr
            if shutil.which("gcc"):
                with open("m.h", "w") as f:
                    f.write(hdr)
                with open("m.c", "w") as f:
                    f.write(src)
                r = subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-c", "m.c"],
                                   capture_output=True, text=True)
                assert r.returncode == 0, r.stderr
                r = subprocess.run(["nm", "m.o"], capture_output=True, text=True)
                assert "pwned" not in r.stdout
        finally:
            os.chdir(here)
        for bad in ["m\0 */ int x; /*", "m n", "1m", ""]:
            try:
                m.codegen(name=bad)
            except (ValueError, TypeError):
                continue
            raise AssertionError("codegen accepted the name %r" % bad)


def _sympy_reference(name):
    import sys
    import sympy.physics.mechanics as me
    sys.path.insert(0, os.path.join(ROOT, "tests", "ref"))
    from sympy_models import MODELS
    q, L, T, V, rows, forces, frame = MODELS[name]()
    lm = me.LagrangesMethod(L, q, nonhol_coneqs=rows or None, forcelist=forces or None,
                            frame=frame)
    lm.form_lagranges_equations()
    return lm


def test_equations_match_sympy():
    import sympy as sm
    import sys
    sys.path.insert(0, os.path.join(ROOT, "tests", "ref"))
    from sympy_models import MODELS
    checked = []
    for name in sorted(MODELS):
        path = os.path.join(ROOT, "examples", name + ".lag")
        if not os.path.exists(path):
            continue
        m = lagrange.load(path)
        M, f = m.equations()
        sub = m.parameter_values()
        lm = _sympy_reference(name)
        n = len(m.coordinates)
        Mr, fr = lm.mass_matrix, lm.forcing
        assert M.shape == Mr.shape, (name, M.shape, Mr.shape)
        assert n == len(lm.q)
        dM = sm.simplify(M.xreplace(sub) - Mr)
        assert dM == sm.zeros(*dM.shape), (name, dM)
        df = sm.simplify(f.xreplace(sub) - fr)
        assert df == sm.zeros(*df.shape), (name, df)
        checked.append(name)
    assert len(checked) >= 5, checked


def _chain_text(n):
    lines = ["coordinates " + " ".join(f"q{i}" for i in range(1, n + 1)),
             "parameters g = 9.81, " + ", ".join(f"m{i} = {1 + i / 10}, l{i} = {1 - i / 50}"
                                                 for i in range(1, n + 1)),
             "frame N", "point P0", "gravity -g*N.y"]
    for i in range(1, n + 1):
        lines += [f"frame A{i} = rotate(N, N.z, q{i})", f"point P{i} = P{i - 1} + l{i}*A{i}.x",
                  f"particle P{i} mass m{i}"]
    return "\n".join(lines + ["initial " + ", ".join(f"q{i} = {0.1 * i}" for i in range(1, n + 1))])


def test_equations_with_named_subexpressions():
    """A system large enough that eom names its shared subexpressions
    (`where`): equations() substitutes them, and M, f equal eval's."""
    import sympy as sm
    m = lagrange.loads(_chain_text(20), name="chain20.lag")
    assert "where" in json.loads(m.eom(format="json"))
    M, f = m.equations()
    t = sm.Symbol("t")
    q = [sm.Function(c)(t) for c in m.coordinates]
    qd = [sm.diff(x, t) for x in q]
    state = {x: 0.1 * (i + 1) for i, x in enumerate(q)}
    rates = {x: 0.05 * (i - 7) for i, x in enumerate(qd)}
    values = {**rates, **state}
    values.update(m.parameter_values())
    Mn = np.array(M.xreplace(values).evalf(), dtype=float)
    fn = np.array(f.xreplace(values).evalf(), dtype=float).ravel()
    r = m.eval(q=[float(state[x]) for x in q], qd=[float(rates[x]) for x in qd])
    assert _close(Mn, r.mass_matrix, 1e-10) and _close(fn, r.forcing, 1e-10)


def test_example_script_runs():
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        r = subprocess.run([os.sys.executable,
                            os.path.join(ROOT, "examples", "python", "cart_pendulum.py"),
                            os.path.join(d, "p.png")], capture_output=True, text=True,
                           env=env, cwd=d)
        assert r.returncode == 0, r.stderr
        assert "B =" in r.stdout


def test_accel_equals_eval():
    m = lagrange.load(os.path.join(ROOT, "examples", "double_rod_pendulum.lag"))
    rng = np.random.default_rng(2)
    for _ in range(20):
        q, qd = rng.normal(size=m.n), rng.normal(size=m.n)
        assert np.array_equal(m.accel(q, qd), m.eval(q=q, qd=qd).qdd)
        assert np.array_equal(m.accel(list(q), list(qd)), m.eval(q=q, qd=qd).qdd)


def test_eval_report():
    """Model.eval_report: `lagrange eval`'s text and JSON (byte parity with
    the command: tests/cli/test_parity_eval.py); its arguments."""
    m = lagrange.load(os.path.join(ROOT, "examples", "cart_pendulum.lag"))
    r = m.eval_report(q={"theta": 0.4}, t=0.5)
    assert isinstance(r, str) and r.note is None
    assert r.startswith("t = 0.5\nx = 0, x' = 0, x'' = ") and "theta = 0.4, " in r
    d = json.loads(m.eval_report(q=[0.0, 0.4], format="json"))
    assert np.array_equal(d["qdd"], m.eval(q=[0.0, 0.4], qd=[0.0, 0.0]).qdd)
    for bad, exc in (({"format": "latex"}, ValueError), ({"q": {"nosuch": 1}}, KeyError),
                     ({"params": {"nosuch": 1}}, KeyError)):
        try:
            m.eval_report(**bad)
            raise AssertionError("no error for %r" % (bad,))
        except exc:
            pass
    # Kane's declared speeds by name; a contradicted dependent speed
    k = lagrange.load(os.path.join(ROOT, "tests", "cli", "models", "rolling_disk_speeds.lag"),
                      method="kane")
    d = json.loads(k.eval_report(u={"w": 0.3, "s": 0.5}))
    assert d["u"] == [0.3, 0.5] and d["dependent_speeds"] == ["ux", "uy"]
    try:
        k.eval_report(u={"w": 0.3, "s": 0.5}, udep={"ux": 7.0})
        raise AssertionError("a contradicted dependent speed was accepted")
    except lagrange.ModelError as e:
        assert "`state` gives the dependent speed ux = 7" in str(e)
    # the bowl's dependent q3' cannot be solved where q3 = 0: chosen there, with a note
    b = lagrange.load(os.path.join(ROOT, "examples", "particle_bowl.lag"), method="kane")
    r = b.eval_report(q=[1, 0, 0], qd=[0, 1, 0.5], format="json")
    assert r.note and "note: the dependent speeds q3' chosen at the initial state" in r.note
