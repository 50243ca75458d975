#!/usr/bin/env python3
"""Every generated function and the printed equations against `lagrange
eval` (issue 21: the generated mass matrix of a 3D serial arm was wrong in
joint 9's row and column from 11 links on, through the collection codegen
and eom run first).

Models: every example under both methods, the planar chain in absolute and
in relative angles (12 links, both methods), and bench/models.py's 3D arm
with joint axes repeating z y y x y x z: 11 links under both methods, 14 and
20 under Lagrange's without rhs_jacobian (tens of MB of C). `--big`, which
`make bench` runs instead: the arm's rhs_jacobian at 14 links, 14 and 20
links under Kane's method, 30 links (C, eom) and the mass matrix of 40.
At random states (coordinates about the model's
initial values, rates about zero, parameters at their defaults):

- C (`codegen`, compiled into a shared object, called through ctypes) and
  Python (`codegen --lang python`, imported under Debian's python3 with
  NumPy): mass_matrix, forcing, mass_matrix_full, forcing_full, rhs,
  energy, momenta, constraints, constraint_jacobian, and in C
  rhs_recursive and rhs_jacobian. A function codegen refuses for a model
  (nonzero exit, a reason on stderr) is skipped and counted.
- `eom` (text and JSON), read back by tests/cli/eom_expr.py: mass_matrix,
  forcing (Kane's: forcing - velocity_forces, eval's forcing), the full
  forms, momenta, T, V, and the residuals of the printed equations (and of
  Kane's kinematics and dependent speeds) at eval's solution.

References: eval's matrices; rhs = [q'; q''] (Kane: [q'; u']); the
constraint Jacobian J from the constraint rows of Lagrange's
mass_matrix_full (and the residuals from Lagrange's eval at the same q, q',
under Kane too); rhs_jacobian against `linearize --json` (A and B, exact)
for an unconstrained model, else central differences of eval's rhs.

eval compiles the same collected equations codegen does, so a fault in
the collection moves eval and the generated code together; what then
disagrees is the routes that do not collect: rhs_recursive (the
articulated-body recursion), linearize's A (from the equations as
derived) and the printout of a large system (printed as derived past
4,000 nodes). With issue 21's fix reverted on a main where eval collects,
the 11-link arm fails in exactly those (and delta_robot under Kane in its
printed dependent speeds): a FAIL line says where two routes part, not
which of them is wrong.

Error = max|a - b| / max(max|ref|, 1e-3) per function (the floor: a
residual that is zero in exact arithmetic, ~1e-17 from eval, must not turn
roundoff into a relative error of 1).

usage: test_codegen_agreement.py LAGRANGE [SANITIZED_LAGRANGE] [--big] [--only=PREFIX]...
(the sanitized binary runs codegen and eom on the examples and chains;
the release one on the arms, and eval and linearize everywhere)"""
import ctypes, gc, glob, json, math, os, random, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "bench"))
import eom_expr  # noqa: E402
import models  # noqa: E402  (bench/models.py: the arm and the chains)

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
ONLY = [a[7:] for a in sys.argv[1:] if a.startswith("--only=")]  # label prefixes
REL = ARGS[0]
SAN = ARGS[1] if len(ARGS) > 1 else REL
BIG = "--big" in sys.argv
PY = "/usr/bin/python3"  # Debian's, with NumPy (the one on PATH may lack it)
gc.disable()  # see eom_expr.parse: the collector made reading arms quadratic

# Thresholds (in brackets the worst error measured once the bug was
# fixed; the bug gave 3e-3 to 9e-1). DENSE: evaluated directly
# (matrices, vectors, energies, constraints [1e-13]), or through one
# dense solve (rhs [6e-13, the 20-link arm in C]) and its derivative
# (rhs_jacobian against linearize's exact A [2e-13, the 11-link arm]).
# RECURSIVE: the O(n) recursion reaches q'' by another route than eval's
# solve (the 1e-10 [3e-12, the 20-link arm]). COND_EPS: a solve's
# forward error is bounded by ~cond * eps, so the limit of rhs,
# rhs_recursive and rhs_jacobian is raised to COND_EPS * cond of the
# solved matrix where that is larger (the 20-link arm: cond 3e5, NumPy's
# LU 4e-12 from eval). FD: central differences, h = 1e-6 (1 + |x|):
# truncation ~h^2 and cancellation ~eps/h [6e-10, the Whipple bicycle].
# PRINTED: the printout names every number exactly (integers, exact
# fractions, doubles in shortest round-trip form), so reading it back
# differs from eval only in the order of operations [2e-15]: the dense
# limit. EQUATION: a printed equation's residual at eval's solved q''
# (u'), relative to its larger side: a backward error, not growing with
# cond [1.4e-13, a free body under Kane's method].
DENSE, RECURSIVE, FD, PRINTED, EQUATION, COND_EPS = 1e-12, 1e-10, 1e-6, 1e-12, 1e-11, 1e-15
FLOOR = 1e-3

# One codegen run per group (names m, r, j): a refusal of rhs_recursive or
# rhs_jacobian (Kane's method, Python, a model that is not a tree) then
# costs one quick run, not a probe of every function.
CORE = ["mass_matrix", "forcing", "mass_matrix_full", "forcing_full", "rhs", "energy",
        "momenta", "constraints", "constraint_jacobian"]
GROUPS = [("m", CORE), ("r", ["rhs_recursive"]), ("j", ["rhs_jacobian"])]
SENTINEL = 7.25e300

passed = failed = 0
skipped = []  # (model, method, target, function, codegen's reason)
left_out = []  # (model, method, what): not generated or read, for time and memory


def check(label, err, tol, detail=""):
    global passed, failed
    ok = err is not None and err <= tol
    passed, failed = passed + ok, failed + (not ok)
    e = "n/a" if err is None else f"{err:.2e}"
    print(("PASS " if ok else "FAIL ") + f"{label} relerr={e} (limit {tol:.0e})"
          + ("" if ok or not detail else " " + str(detail)[:400]), flush=True)


def relerr(got, want):
    """max|a - b| / max(max|want|, FLOOR); None when the sizes differ."""
    if got is None or len(got) != len(want):
        return None
    if not want:
        return 0.0
    scale = max(max(abs(w) for w in want), FLOOR)
    worst = 0.0
    for a, b in zip(got, want):
        d = abs(a - b)
        if not d <= worst:  # NaN included
            worst = d if d == d else math.inf
    return worst / scale


def flat(m):
    return [float(v) for row in m for v in (row if isinstance(row, list) else [row])]


def run(args, timeout=600):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


# ---- the model file: parameters and inputs, for the printed equations ------------------
def statements(text):
    """Statements with their continuation lines joined (a line ending in a
    binary operator, `=` or a comma, or with a parenthesis open)."""
    out, cur = [], ""
    for line in text.split("\n"):
        line = line.split("#", 1)[0].rstrip()
        cur = (cur + " " + line.strip()) if cur else line.strip()
        if cur and (cur[-1] in ",+-*/^=(" or cur.count("(") > cur.count(")")):
            continue
        if cur:
            out.append(cur)
        cur = ""
    return out + ([cur] if cur else [])


def declared(text, keyword):
    """[(name, expression or None)] of every `keyword` statement."""
    out = []
    for s in statements(text):
        if s.split(None, 1)[0] == keyword:
            for item in eom_expr.split_top(s.split(None, 1)[1]):
                name, _, value = item.partition("=")
                out.append((name.strip(), value.strip() or None))
    return out


def model_env(path, t):
    """Parameter defaults and input values at time t, by the model file."""
    text = open(path).read()
    env = {"pi": math.pi, "t": t}
    for keyword in ("parameters", "inputs"):
        for name, value in declared(text, keyword):
            env[name] = eom_expr.parse(value)[0](env) if value else 0.0
    return env


# ---- eval: the reference ---------------------------------------------------------------
def evaluate(binary, path, method, state=None, t=None):
    args = [binary, "eval", path, "--method", method, "--json"]
    if state is not None:
        args += ["--state", state]
    if t is not None:
        args += ["--t", repr(t)]
    r = run(args)
    if r.returncode:
        raise RuntimeError(f"eval failed ({r.returncode}): {r.stderr[:300]}")
    return json.loads(r.stdout)


def state_string(names, values):
    return ", ".join(f"{k}={v!r}" for k, v in zip(names, values))


class Case:
    """One model under one method: the states and eval's answers there."""

    def __init__(self, label, path, method, binary, nstates, rng):
        # `binary` runs codegen and eom (under test); the references come
        # from the release binary (eval is covered under ASan elsewhere)
        self.label, self.path, self.method, self.gen = label, path, method, binary
        lag = evaluate(REL, path, "lagrange")
        first = lag if method == "lagrange" else evaluate(REL, path, "kane")
        self.q = first["coordinates"]
        self.n, self.m = len(self.q), len(lag["multipliers"])
        self.rates = [c + "'" for c in self.q]
        self.speeds = first["speeds"] if method == "kane" else self.rates
        centre = first["q"] + (first["u"] if method == "kane" else first["qd"])
        self.states, self.refs, self.lag = [], [], []
        for _ in range(nstates):
            t = round(rng.uniform(0, 2), 3)
            x = [c + rng.uniform(-0.5, 0.5) for c in centre[:self.n]] + \
                [c + rng.uniform(-1, 1) for c in centre[self.n:]]
            ref = evaluate(REL, path, method, state_string(self.q + self.speeds, x), t)
            given = ref["q"] + (ref["u"] if method == "kane" else ref["qd"])
            if any(abs(a - b) > 1e-15 * (1 + abs(b)) for a, b in zip(given, x)):
                raise RuntimeError(f"eval moved the state {x} to {given}")
            self.states.append((t, x))
            self.refs.append(ref)
            # the constraints and J are Lagrange's eval's, at the same q and q'
            self.lag.append(ref if method == "lagrange" or not self.m else
                            evaluate(REL, path, "lagrange",
                                     state_string(self.q + self.rates, ref["q"] + ref["qd"]), t))
        self.jac = {}  # state -> jacobian(), on demand

    def expected(self, k, fn):
        ref, lag, n, m = self.refs[k], self.lag[k], self.n, self.m
        if fn in ("mass_matrix", "mass_matrix_full", "forcing", "forcing_full", "momenta"):
            return flat(ref[fn])
        if fn in ("rhs", "rhs_recursive"):
            return flat(ref["qd"] + (ref["ud"] if self.method == "kane" else ref["qdd"]))
        if fn == "energy":
            return [ref["T"], ref["V"]]
        if fn == "constraints":
            return flat(lag.get("constraint_residuals", [])) if m else []
        if fn == "constraint_jacobian":
            full = lag["mass_matrix_full"]
            return flat([row[n:2 * n] for row in full[2 * n:2 * n + m]])
        raise KeyError(fn)

    def cond(self, k):
        """Condition of the matrix rhs solves at state k: [[M, -J^T], [J,
        0]] (the lower right block of mass_matrix_full), Kane's M."""
        ref = self.refs[k]
        if self.method == "kane":
            return condition(ref["mass_matrix"])
        return condition([row[self.n:] for row in ref["mass_matrix_full"][self.n:]])

    def jacobian_ref(self, k):
        if k not in self.jac:
            self.jac[k] = self.jacobian(k)
        return self.jac[k]

    def jacobian(self, k):
        """(dx'/dx, dx'/du or None) at state k: linearize's A and B when
        nothing is constrained (its x is then [q; q'], all independent),
        else central differences of eval's rhs (first state only)."""
        t, x = self.states[k]
        n = self.n
        if not self.m:
            r = run([REL, "linearize", self.path, "--at", state_string(self.q + self.rates, x),
                     "--t", repr(t), "--json"])
            if r.returncode:
                raise RuntimeError(f"linearize failed: {r.stderr[:300]}")
            d = json.loads(r.stdout)
            if d["state"] != self.q + self.rates:
                raise RuntimeError(f"linearize's state is {d['state']}")
            return flat(d["A"]), (flat(d["B"]) if d["inputs"] else None)
        cols = []
        for j in range(2 * n):
            h = 1e-6 * (1 + abs(x[j]))
            side = []
            for s in (1, -1):
                y = list(x)
                y[j] += s * h
                ref = evaluate(REL, self.path, "lagrange", state_string(self.q + self.rates, y), t)
                side.append(flat(ref["qd"] + ref["qdd"]))
            cols.append([(a - b) / (2 * h) for a, b in zip(*side)])
        return [cols[j][i] for i in range(2 * n) for j in range(2 * n)], None


# ---- the generated code ---------------------------------------------------------------
def refused(r):
    """codegen said no: exit 1 or 2 with a message (a sanitizer's report
    exits 1 too, and is a failure)."""
    return (r.returncode in (1, 2) and r.stderr.strip() and "Sanitizer" not in r.stderr
            and "runtime error" not in r.stderr)


def generate(case, lang, name, want, out):
    """codegen --functions `want` --name `name` -o `out`. A function
    codegen refuses alone is dropped and recorded. Returns the functions
    written, or None (and a FAIL) when codegen fails otherwise."""
    base = [case.gen, "codegen", case.path, "--method", case.method, "--lang", lang,
            "--name", name]
    r = run(base + ["--functions", ", ".join(want), "-o", out])
    if r.returncode == 0:
        return want
    if len(want) == 1 and refused(r):
        skipped.append((case.label, case.method, lang, want[0], r.stderr.strip().split("\n")[0]))
        return []
    keep = []
    for fn in want if len(want) > 1 else []:  # which of them is refused?
        probe = run(base + ["--functions", fn, "-o", out])
        if refused(probe):
            skipped.append((case.label, case.method, lang, fn, probe.stderr.strip().split("\n")[0]))
        else:
            keep.append(fn)
    r = run(base + ["--functions", ", ".join(keep), "-o", out]) if keep else r
    if r.returncode or not keep:
        check(f"{case.label} {case.method} {lang} codegen {', '.join(want)}", None, 0,
              r.stderr[:300])
        return None
    return keep


def compile_so(srcs, so):
    """gcc -O1 for small sources; clang -O0 (else gcc -O0) for large ones:
    an arm's functions are megabytes of straight-line code, where -O1
    costs 6x the time of clang -O0 (the values are the same: no excess
    precision or contraction on x86-64 either way)."""
    big = sum(os.path.getsize(f) for f in srcs) > 400_000
    cc = ["clang", "-O0"] if big and shutil.which("clang") else ["gcc", "-O0" if big else "-O1"]
    r = run(cc + ["-std=c99", "-shared", "-fPIC", "-o", so] + srcs + ["-lm"], timeout=1200)
    return r.returncode == 0, r.stderr[:300]


def header_sizes(h, name):
    return {k: int(v) for k, v in re.findall(rf"\b{name}_(N\w+) = (\d+)", open(h).read())}


def c_results(case, tmp, groups):
    """{function: [per state: values or None]} from the compiled C."""
    made = []
    for name, want in groups:
        fns = generate(case, "c", name, want, os.path.join(tmp, name + ".c"))
        if fns:
            made.append((name, fns))
    if not made:
        return {}
    so = os.path.join(tmp, "gen.so")
    ok, err = compile_so([os.path.join(tmp, name + ".c") for name, _ in made], so)
    if not ok:
        check(f"{case.label} {case.method} c compiles", None, 0, err)
        return {}
    lib = ctypes.CDLL(so)
    out = {}
    for name, fns in made:
        out.update(c_call(case, lib, name, header_sizes(os.path.join(tmp, name + ".h"), name), fns))
    try:
        import _ctypes
        _ctypes.dlclose(lib._handle)
    except (ImportError, AttributeError, OSError):
        pass
    return out


def c_call(case, lib, name, sizes, fns):
    D = ctypes.POINTER(ctypes.c_double)
    p = (ctypes.c_double * max(sizes["NP"], 1))()
    getattr(lib, name + "_default_params")(p)
    out = {}
    for fn in fns:
        f = getattr(lib, f"{name}_{fn}")
        f.restype = ctypes.c_int if fn.startswith("rhs") else None
        out[fn] = []
        for k, (t, x) in enumerate(case.states):
            xs = (ctypes.c_double * len(x))(*x)
            want = (len(case.jacobian_ref(k)[0]) if fn == "rhs_jacobian"
                    else len(case.expected(k, fn)))
            buf = (ctypes.c_double * (want + 8))(*([SENTINEL] * (want + 8)))
            if fn == "rhs_jacobian":
                nu = sizes.get("NU", 0)
                ju = (ctypes.c_double * max(2 * case.n * nu, 1))()
                f.argtypes = [ctypes.c_double, D, D, D, D, D]
                rc = f(t, xs, None, p, buf, ju if nu else None)
                vals = list(buf[:want]) + (list(ju[:2 * case.n * nu]) if nu else [])
            else:
                f.argtypes = [ctypes.c_double, D, D, D, D]
                rc = f(t, xs, None, p, buf)
                vals = list(buf[:want])
            if rc or any(v != SENTINEL for v in buf[want:]):
                vals = None  # an error return, or written past its size
            out[fn].append(vals)
    return out


PY_DRIVER = r"""
import json, sys, numpy as np
import importlib
sys.path.insert(0, sys.argv[1])
job = json.load(sys.stdin)
out = {}
for module, fn in job["functions"]:
    m = importlib.import_module(module)
    rows = []
    for t, x in job["states"]:
        try:
            rows.append(np.asarray(getattr(m, fn)(t, np.array(x)), dtype=float).ravel().tolist())
        except Exception as e:  # a singular matrix, a missing function
            rows.append(None)
            print(fn, repr(e), file=sys.stderr)
    out[fn] = rows
print(json.dumps(out))
"""


def py_results(case, tmp, groups):
    calls = []
    for name, want in groups:
        fns = generate(case, "python", name, want, os.path.join(tmp, f"gen_{name}.py"))
        calls += [(f"gen_{name}", fn) for fn in fns or []]
    if not calls:
        return {}
    job = json.dumps({"functions": calls, "states": case.states})
    r = subprocess.run([PY, "-c", PY_DRIVER, tmp], input=job, capture_output=True, text=True,
                       timeout=1200)
    if r.returncode:
        check(f"{case.label} {case.method} python imports and runs", None, 0, r.stderr[-300:])
        return {}
    return json.loads(r.stdout)


def compare_generated(case, target, results):
    for fn, rows in results.items():
        if fn == "rhs_jacobian" and case.m:
            tol = FD
        elif fn in ("rhs", "rhs_recursive", "rhs_jacobian"):
            # through a solve: the forward error grows with cond of the
            # solved matrix (3e5 for the 20-link arm: 4e-12 from NumPy's LU)
            tol = max([RECURSIVE if fn == "rhs_recursive" else DENSE] +
                      [COND_EPS * case.cond(k) for k in range(len(case.states))])
        else:
            tol = DENSE
        worst = 0.0
        for k, got in enumerate(rows):
            if fn == "rhs_jacobian":
                if k and case.m:
                    continue  # differences at the first state only
                A, B = case.jacobian_ref(k)
                want = A + (B or [])
            else:
                want = case.expected(k, fn)
            e = relerr(got, want)
            worst = None if e is None or worst is None else max(worst, e)
        check(f"{case.label} {case.method} {target} {fn}", worst, tol)


def condition(A):
    """||A||_inf ||A^-1||_inf by Gauss-Jordan with partial pivoting (no
    NumPy under the tests' python3; the matrices are at most 40 x 40);
    inf when singular."""
    n = len(A)
    norm = max(sum(abs(v) for v in row) for row in A)
    M = [list(map(float, row)) + [float(i == j) for j in range(n)] for i, row in enumerate(A)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        if M[p][c] == 0:
            return math.inf
        M[c], M[p] = M[p], M[c]
        piv = M[c][c]
        M[c] = [v / piv for v in M[c]]
        for r in range(n):
            if r != c and M[r][c]:
                f = M[r][c]
                M[r] = [a - f * b for a, b in zip(M[r], M[c])]
    return norm * max(sum(abs(v) for v in row[n:]) for row in M)


# ---- the printed equations --------------------------------------------------------------
def printed(case, fmt):
    args = [case.gen, "eom", case.path, "--method", case.method] + (["--json"] if fmt == "json" else [])
    r = run(args)
    if r.returncode:
        check(f"{case.label} {case.method} eom {fmt}", None, 0, r.stderr[:300])
        return None
    try:
        return eom_expr.read_json(r.stdout) if fmt == "json" else eom_expr.read_text(r.stdout)
    except (eom_expr.ParseError, ValueError) as e:
        check(f"{case.label} {case.method} eom {fmt} reads back", None, 0, e)
        return None


def compare_printed(case, fmt):
    d = printed(case, fmt)
    if d is None:
        return
    try:
        where = eom_expr.where_program(d.get("where", {}))
        mats = {k: [ev(s) for s in (flat_strings(d[k]))] for k in
                ("mass_matrix", "forcing", "mass_matrix_full", "forcing_full", "momenta")}
        mats["energy"] = [ev(d["T"]), ev(d["V"])]
        if case.method == "kane":  # eval's forcing is F - C
            mats["forcing"] = [difference(ev(F), ev(C))
                               for F, C in zip(d["forcing"], d["velocity_forces"])]
        eqs = {key: [tuple(ev(side) for side in e.split(" = ", 1)) for e in d.get(key, [])]
               for key in ("equations", "kinematics", "dependent_speeds")}
    except (eom_expr.ParseError, KeyError, IndexError) as e:
        check(f"{case.label} {case.method} eom {fmt} reads back", None, 0, repr(e))
        return
    worst = {}
    for k, (t, x) in enumerate(case.states):
        ref = case.refs[k]
        env = model_env(case.path, t)
        env.update(zip(case.q, ref["q"]))
        env.update(zip(case.rates, ref["qd"]))
        env.update(zip([c + "''" for c in case.q], ref["qdd"]))
        if case.method == "kane":
            env.update(zip(case.speeds, ref["u"]))
            env.update(zip([s + "'" for s in case.speeds], ref["ud"]))
        else:
            env.update(zip(d.get("multipliers", []), ref["lam"] or []))
        try:
            env = eom_expr.with_where(where, env)
            for key, fs in mats.items():
                want = [ref["T"], ref["V"]] if key == "energy" else flat(ref[key])
                e, w = relerr([f(env) for f in fs], want), worst.get(key, 0.0)
                worst[key] = None if e is None or w is None else max(w, e)
            for key, rows in eqs.items():
                # residual relative to the larger side (both are sums of
                # the same terms as eval's; zero for a free particle)
                sides = [(a(env), b(env)) for a, b in rows]
                scale = max([abs(v) for pair in sides for v in pair] + [FLOOR])
                e = max([abs(a - b) for a, b in sides] + [0.0]) / scale
                worst[key] = max(worst.get(key, 0.0), e if e == e else math.inf)
        except KeyError as e:
            check(f"{case.label} {case.method} eom {fmt}: the name {e} has a value", None, 0)
            return
    for key, e in worst.items():
        if key in eqs and not eqs[key]:
            continue
        tol = EQUATION if key in eqs else PRINTED
        check(f"{case.label} {case.method} eom {fmt} {key}", e, tol)


def ev(text):
    return eom_expr.parse(text)[0]


def difference(f, g):
    return lambda env: f(env) - g(env)


def flat_strings(m):
    return [s for row in m for s in (row if isinstance(row, list) else [row])]


# ---- the runs --------------------------------------------------------------------------
def run_case(label, path, method, binary, nstates, rng, core=CORE, jacobian=True, python=True,
             formats=("text", "json")):
    """Everything about one model under one method; what the size of the
    largest arms leaves out is listed at the end."""
    if ONLY and not any(label.startswith(o) for o in ONLY):
        return
    t0 = time.time()
    try:
        case = Case(label, path, method, binary, nstates, rng)
    except (RuntimeError, ValueError, KeyError, subprocess.TimeoutExpired) as e:
        check(f"{label} {method} eval", None, 0, e)
        return
    groups = [("m", core)] + GROUPS[1:2] + (GROUPS[2:] if jacobian else [])
    if core != CORE:
        left_out.append((label, method, "C " + ", ".join(f for f in CORE if f not in core)))
    if not jacobian:
        left_out.append((label, method, "C rhs_jacobian"))
    if not python:
        left_out.append((label, method, "python"))
    for fmt in sorted({"text", "json"} - set(formats)):
        left_out.append((label, method, "eom " + fmt))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            compare_generated(case, "c", c_results(case, tmp, groups))
            if python:
                compare_generated(case, "python", py_results(case, tmp, groups))
        for fmt in formats:
            compare_printed(case, fmt)
    except (RuntimeError, ValueError, KeyError, subprocess.TimeoutExpired) as e:
        # a reference that failed (linearize, eval at a differenced
        # state), a timeout: this model's remaining checks are lost
        check(f"{label} {method} runs to the end", None, 0, repr(e))
    print(f"-- {label} {method}: {time.time() - t0:.1f} s", flush=True)


def main():
    rng = random.Random(21)
    with tempfile.TemporaryDirectory() as gen:
        def model(kind, n):
            path = os.path.join(gen, f"{kind}{n}.lag")
            with open(path, "w") as fh:
                fh.write(models.lag_model(kind, n))
            return path
        if BIG:
            # arm30's C is 100 MB (clang -O0: 100 s, 4 GB); arm40's mass
            # matrix alone is 70 MB, its JSON printout 25 MB
            run_case("arm14", model("arm", 14), "lagrange", REL, 2, rng, core=["rhs"],
                     python=False, formats=())
            for n in (14, 20):
                run_case(f"arm{n}", model("arm", n), "kane", REL, 2, rng)
            run_case("arm30", model("arm", 30), "lagrange", REL, 1, rng, jacobian=False,
                     python=False)
            run_case("arm40", model("arm", 40), "lagrange", REL, 1, rng, core=["mass_matrix"],
                     jacobian=False, python=False, formats=("json",))
        else:
            for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag"))):
                for method in ("lagrange", "kane"):
                    run_case(os.path.basename(path)[:-4], path, method, SAN, 2, rng)
            for kind in ("chain", "chain_rel"):
                for method in ("lagrange", "kane"):
                    run_case(f"{kind}12", model(kind, 12), method, SAN, 2, rng)
            for method in ("lagrange", "kane"):
                run_case("arm11", model("arm", 11), method, REL, 2, rng)
            run_case("arm14", model("arm", 14), "lagrange", REL, 2, rng, jacobian=False)
            run_case("arm20", model("arm", 20), "lagrange", REL, 2, rng, jacobian=False)
    refusals = {}
    for label, method, lang, fn, why in skipped:
        refusals.setdefault((lang, method, fn, why.split(": ", 1)[-1]), []).append(label)
    for (lang, method, fn, why), labels in sorted(refusals.items()):
        print(f"skipped (codegen refuses): {lang} {fn} under {method} for {len(labels)} "
              f"model(s) ({', '.join(labels)}): {why[:160]}")
    for s in left_out:
        print("not tested (size%s): %s %s %s" % (("" if BIG else "; --big runs more",) + s))
    print(f"{len(skipped)} functions skipped on codegen's refusal, {len(left_out)} left out for size")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
