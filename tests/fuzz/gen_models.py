#!/usr/bin/env python3
"""gen_models.py - a grammar-aware generator of valid models, each run
through eom/eval/simulate/codegen (both methods) under the given binary.

The models follow MODEL-FORMAT.md's grammar and are meant to be accepted:
coordinates with a positive definite kinetic energy, frames and points in
chains, particles and bodies, forces and torques, holonomic constraints that
hold at the initial state (or `--project`), nonholonomic ones, Kane speeds
with invertible kinematics. Into them go what breaks programs: extreme
numbers (1e308, 1e-308, 4.9e-324, integers beyond int64, -2^63, 0), time
derivatives in unusual places (der() of intermediates, q' in V, forces,
constraints and rotation-free intermediates), deep nesting, long sums,
long names, names that are keywords of C or Python, many coordinates.

Model K of seed S is always the same text, so a finding is reproduced by
`gen_models.py LAGRANGE --seed S --only K --keep DIR`.

Every run is judged by lagcheck.py; besides, generated C must compile,
generated Python must parse, and the text printer's T and V must read back
through the parser to the same text (its promise in sym_print.c).

usage: gen_models.py LAGRANGE [--seed S] [--models N | --seconds S]
                     [--only K] [--keep DIR] [--timeout S]
ends with "N passed, N failed" (one per model)."""
import argparse, json, math, os, random, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lagcheck  # noqa: E402

EXTREME = ["1e308", "1e-308", "4.9e-324", "1.7976931348623157e308", "0", "0.0",
           "99999999999999999999", "9223372036854775807", "9223372036854775808",
           "(-9223372036854775808)", "2^63", "2^-63", "(-2)^63", "1/3", "10^30", "1e-300",
           "123456789012345678901234567890/7", "2.5E+2", "1e-3"]
PLAIN_NAMES = ["x", "y", "z", "q", "s", "r1", "theta", "phi", "psi", "alpha", "beta", "a", "b",
               "w", "h", "k0", "Omega", "xi", "eta", "mu"]
ODD_NAMES = ["int", "double", "return", "def", "lambda", "None", "np", "math", "v0", "v1",
             "res", "xdot", "p", "M", "f", "u", "pow", "fabs", "main", "NAN", "e", "E", "i",
             "lam1", "lam2", "self", "import", "static", "const", "_", "_0", "Q_9_z", "x_d",
             "while", "class", "DEFAULT_PARAMS", "INFINITY", "dx", "nan", "inf", "Inf"]
FUNCS1 = ["sin", "cos", "tan", "exp", "log", "sqrt", "abs", "sign", "sinh", "cosh", "tanh",
          "atan", "asin", "acos"]
# `--state` cuts names at 127 characters (FINDINGS.md): longer ones are
# left at their initial values.
MAX_STATE_NAME = 120
SEQS = ["xyz", "xzy", "yxz", "yzx", "zxy", "zyx", "xyx", "xzx", "yxy", "yzy", "zxz", "zyz"]


class Model:
    """A model under construction: its lines and what it declared."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.coords, self.params, self.inputs, self.speeds = [], [], [], []
        self.scalars, self.frames, self.points = [], [], []
        self.constrained = False
        self.used = set(["t", "pi", "T", "V", "D", "L", "N", "O"])

    def name(self, stem):
        """A fresh name: plain, indexed, long or a keyword of C/Python."""
        rng = self.rng
        for _ in range(50):
            r = rng.random()
            if r < 0.08:
                n = rng.choice(ODD_NAMES)
            elif r < 0.12:
                n = stem + "_" + "".join(rng.choice("abcxyz019_") for _ in range(rng.randint(60, 300)))
            elif r < 0.5:
                n = rng.choice(PLAIN_NAMES)
            else:
                n = f"{stem}{rng.randint(1, 99)}"
            if n not in self.used:
                self.used.add(n)
                return n
        n = f"{stem}{len(self.used)}x"
        self.used.add(n)
        return n


class Gen:
    def __init__(self, rng):
        self.rng = rng

    # ---- numbers and expressions ----------------------------------------------
    def number(self, extreme=0.1):
        rng = self.rng
        r = rng.random()
        if r < extreme:
            return rng.choice(EXTREME)
        if r < 0.5:
            return str(rng.randint(1, 9))
        if r < 0.7:
            return f"{rng.randint(1, 9)}/{rng.randint(2, 9)}"
        return repr(round(rng.uniform(0.05, 3), rng.randint(1, 6)))

    def atom(self, m, vel=0.2, time=0.1):
        rng = self.rng
        r = rng.random()
        if m.coords and r < 0.45:
            c = rng.choice(m.coords)
            return c + "'" if rng.random() < vel else c
        if m.params and r < 0.65:
            return rng.choice(m.params)
        if m.inputs and r < 0.7:
            return rng.choice(m.inputs)
        if m.scalars and r < 0.78:
            s = rng.choice(m.scalars)
            return s + "'" if rng.random() < vel / 2 else s
        if r < 0.78 + time:
            return "t"
        if r < 0.9:
            return "pi"
        return self.number()

    def expr(self, m, depth=3, vel=0.2, time=0.1):
        """A random scalar expression of the model's names."""
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self.atom(m, vel, time)
        r = rng.random()
        a = lambda: self.expr(m, depth - 1, vel, time)  # noqa: E731
        if r < 0.35:
            return f"{a()} {rng.choice('+-*')} {a()}"
        if r < 0.45:
            return f"({a()})/({self.positive(m, depth - 1)})"
        if r < 0.55:
            return f"({a()})^{rng.choice(['2', '3', '-1', '(1/2)', '0', '1', '-2', '(-3/2)', '40'])}"
        if r < 0.62:
            return f"-({a()})"
        if r < 0.85:
            f = rng.choice(FUNCS1)
            arg = a()
            if f in ("log", "sqrt"):
                arg = f"1 + ({arg})^2"
            elif f in ("asin", "acos"):
                arg = f"tanh({arg})"
            elif f == "exp":
                arg = f"sin({arg})"
            return f"{f}({arg})"
        if r < 0.9:
            return f"atan2({a()}, 1 + ({a()})^2)"
        if r < 0.96 and vel > 0:
            return f"der({a()})"  # a derivative where one is unusual
        return f"({a()})"

    def positive(self, m, depth):
        """An expression that stays away from zero."""
        return f"2 + sin({self.expr(m, depth, 0.1)})"

    def deep(self, m):
        """Deep nesting or a long sum (the parser's and printer's depth)."""
        rng = self.rng
        n = rng.choice([20, 60, 150, 400])
        x = rng.choice(m.coords)
        r = rng.random()
        if r < 0.3:
            return "(" * n + x + ")" * n
        if r < 0.55:
            return "".join(rng.choice(["sin(", "cos(", "tanh("]) for _ in range(n // 4)) + x + ")" * (n // 4)
        if r < 0.8:
            return " + ".join(f"{self.number(0.02)}*{rng.choice(m.coords)}^{rng.randint(1, 4)}"
                              for _ in range(n))
        return "-" * min(n, 40) + x

    # ---- statements -------------------------------------------------------------
    def declare(self, m):
        rng = self.rng
        n = rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6, 8]) if rng.random() < 0.95 else rng.randint(12, 30)
        m.coords = [m.name("q") for _ in range(n)]
        m.lines.append("coordinates " + " ".join(m.coords))
        parts = []
        for i in range(rng.randint(1, 5)):
            p = m.name("k")
            if i and rng.random() < 0.2:
                val = f"{rng.choice(m.params)}*{self.number()}"
            else:
                val = self.number(0.15)
            parts.append(f"{p} = {val}")
            m.params.append(p)
        m.lines.append("parameters " + ", ".join(parts))
        if rng.random() < 0.3:
            ins = []
            for _ in range(rng.randint(1, 2)):
                u = m.name("F")
                law = rng.choice(["0", f"sin({self.number()}*t)", self.number(0.2), "t", "exp(-t)"])
                ins.append(f"{u} = {law}")
                m.inputs.append(u)
            m.lines.append("inputs " + ", ".join(ins))
        for _ in range(rng.randint(0, 2)):
            s = m.name("r")
            m.lines.append(f"{s} = {self.expr(m, 2, vel=0)}")  # no q': used in angles
            m.scalars.append(s)

    def kinetic(self, m):
        """T positive definite in the q': a weighted sum of squares."""
        rng = self.rng
        terms = []
        for c in m.coords:
            w = rng.choice(m.params) if rng.random() < 0.5 else self.number(0.05)
            g = f"*(1 + ({self.expr(m, 2, vel=0)})^2)" if rng.random() < 0.3 else ""
            terms.append(f"1/2*{w}^2*{c}'^2{g}")
        if len(m.coords) > 1 and rng.random() < 0.3:
            a, b = rng.sample(m.coords, 2)
            terms.append(f"{self.number()}/100*{a}'*{b}'")
        if m.scalars and rng.random() < 0.2:
            terms.append(f"1/2*der({rng.choice(m.scalars)})^2")
        m.lines.append("T = " + " + ".join(terms))

    def potential(self, m):
        rng = self.rng
        if rng.random() < 0.8:
            m.lines.append("V = " + self.expr(m, rng.randint(1, 4), vel=0))
        if rng.random() < 0.08:
            m.lines.append("V = " + self.deep(m))
        if rng.random() < 0.05:  # a velocity in V: unusual; accepted or refused cleanly
            m.lines.append(f"V = {rng.choice(m.coords)}'*{rng.choice(m.coords)}")
        if rng.random() < 0.3:
            c = rng.choice(m.coords)
            m.lines.append(f"D = 1/2*{self.number()}*{c}'^2")

    def mechanics(self, m):
        """Frames and points in chains, particles and bodies, gravity."""
        rng = self.rng
        if rng.random() < 0.4:
            return
        m.lines.append("frame N")
        m.lines.append("point O")
        m.frames, m.points = ["N"], ["O"]
        for _ in range(rng.randint(1, 6 if rng.random() < 0.9 else 20)):
            f, parent = m.name("F"), rng.choice(m.frames)
            angle = self.expr(m, 1, vel=0, time=0.1)
            if rng.random() < 0.8:
                ax = rng.choice([f"{parent}.x", f"{parent}.y", f"{parent}.z",
                                 f"{parent}.x + {self.number()}*{parent}.z"])
                m.lines.append(f"frame {f} = rotate({parent}, {ax}, {angle})")
            else:
                kind = rng.choice(["body_fixed", "space_fixed"])
                a = [self.expr(m, 1, vel=0, time=0) for _ in range(3)]
                m.lines.append(f"frame {f} = {kind}({parent}, {rng.choice(SEQS)}, {', '.join(a)})")
            m.frames.append(f)
        for _ in range(rng.randint(1, 5)):
            p, base, fr = m.name("P"), rng.choice(m.points), rng.choice(m.frames)
            off = " + ".join(f"({self.expr(m, 1, vel=0)})*{fr}.{ax}"
                             for ax in rng.sample("xyz", rng.randint(1, 3)))
            m.lines.append(f"point {p} = {base} + {off}")
            m.points.append(p)
        for p in rng.sample(m.points[1:], rng.randint(0, len(m.points) - 1)):
            m.lines.append(f"particle {p} mass {rng.choice(m.params)}^2 + {self.number()}")
        for fr in rng.sample(m.frames[1:], min(len(m.frames) - 1, rng.randint(0, 2))):
            I = ", ".join(self.number() for _ in range(3))
            if rng.random() < 0.3:
                I += ", " + ", ".join(f"{self.number()}/100" for _ in range(3))
            m.lines.append(f"body {fr} mass {self.number()} at {rng.choice(m.points)} inertia ({I})")
        if rng.random() < 0.5:
            m.lines.append(f"gravity -{self.number(0.1)}*N.{rng.choice('xyz')}")
        if rng.random() < 0.4:
            p, fr = rng.choice(m.points), rng.choice(m.frames)
            m.lines.append(f"force {p}: ({self.expr(m, 2, vel=0.3)})*{fr}.{rng.choice('xyz')}")
        if rng.random() < 0.3 and len(m.frames) > 1:
            fr = rng.choice(m.frames[1:])
            m.lines.append(f"torque {fr}: ({self.expr(m, 2, vel=0.3)})*{rng.choice(m.frames)}.z")

    def forces(self, m):
        rng = self.rng
        for c in rng.sample(m.coords, rng.randint(0, min(2, len(m.coords)))):
            m.lines.append(f"force {c}: {self.expr(m, 2, vel=0.4, time=0.3)}")

    def constraints(self, m, q0):
        """Holonomic rows g(q) = g(q0), nonholonomic rows zero at rest."""
        rng = self.rng
        if len(m.coords) < 2 or rng.random() < 0.6:
            return
        for _ in range(rng.randint(1, min(3, len(m.coords) - 1))):
            a, b = rng.sample(m.coords, 2)
            r = rng.random()
            if r < 0.4:
                k = self.number(0.05)
                m.lines.append(f"constraint {a} - {k}*{b} = {a}0c - {k}*{b}0c"
                               .replace(f"{a}0c", q0[a]).replace(f"{b}0c", q0[b]))
            elif r < 0.7:
                m.lines.append(f"constraint {a}^2 + {b}^2 = ({q0[a]})^2 + ({q0[b]})^2")
            elif r < 0.85:
                m.lines.append(f"constraint {a}' - {self.number()}*cos({b})*{b}'")
            else:
                m.lines.append(f"constraint der({a}*{b}) + {a}'")
            m.constrained = True

    def kane(self, m):
        """Speeds with triangular (so invertible) kinematics."""
        rng = self.rng
        if rng.random() < 0.6 or len(m.coords) > 8:
            return
        m.speeds = [m.name("u") for _ in m.coords]
        m.lines.append("speeds " + " ".join(m.speeds))
        rows = []
        for i, c in enumerate(m.coords):
            extra = ""
            if i + 1 < len(m.coords) and rng.random() < 0.4:
                extra = f" + {self.expr(m, 1, vel=0, time=0)}*{m.coords[i + 1]}'"
            rows.append(f"{c}'{extra} = {m.speeds[i]}")
        m.lines.append("kinematics " + ", ".join(rows))

    def model(self):
        rng = self.rng
        m = Model(rng)
        self.declare(m)
        q0 = {c: repr(round(rng.uniform(-1.5, 1.5), 3)) for c in m.coords}
        self.kinetic(m)
        self.potential(m)
        self.mechanics(m)
        self.forces(m)
        self.constraints(m, q0)
        self.kane(m)
        init = [f"{c} = {q0[c]}" for c in m.coords]
        if not m.constrained:
            init += [f"{c}' = {self.number(0.05)}" for c in rng.sample(m.coords, rng.randint(0, len(m.coords)))]
        m.lines.append("initial " + ", ".join(init))
        if rng.random() < 0.5:
            m.lines.append(f"simulate 0 to {rng.choice(['1', '10', '1e9', '0.5'])} step "
                           f"{rng.choice(['0.01', '0.1', '1e-9', '0.25'])}")
        return m


def commands(rng, m):
    """The runs one model gets: each command once, a method at random."""
    meth = lambda: ["--method", rng.choice(["lagrange", "kane"])]  # noqa: E731
    sim = ["simulate", "--t0", "0", "--tf", rng.choice(["0.05", "0.2"]), "--dt", "0.05"]
    if rng.random() < 0.3:
        sim += ["--integrator", rng.choice(["dopri", "bdf", "ida"])]
    if m.constrained:
        sim.append("--project")
    ev = ["eval", "--json"]
    short = [c for c in m.coords if len(c) <= MAX_STATE_NAME]
    if short and rng.random() < 0.4:
        c = rng.choice(short)
        ev += ["--state", f"{c}={rng.choice(['0', '1e308', '-1e-308', '0.5', '3'])}, {c}'=2"]
    return [["eom", "--format", "json"] + meth(), ["eom", "--format", rng.choice(["text", "latex"])] + meth(),
            ev + meth(), sim + meth(), ["codegen", "-o", "gen.c"] + meth(),
            ["codegen", "--lang", "python"] + meth()]


def check_generated(r, tmp):
    """Generated C must compile and generated Python must parse."""
    if "--lang" in r.cmd:
        src = r.out.decode(errors="replace")
        try:
            compile(src, "generated.py", "exec")
        except (SyntaxError, ValueError) as e:
            return f"generated Python does not parse: {e}"
        return None
    path = os.path.join(tmp, "gen.c")
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None
    p = subprocess.run([cc, "-std=c11", "-fsyntax-only", "-Wno-unused", path],
                       capture_output=True, timeout=120)
    if p.returncode != 0:
        return "generated C does not compile: " + p.stderr.decode(errors="replace")[:400]
    return None


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def roundtrip(binary, m, r, tmp, timeout, rng):
    """T and V as printed must read back to the same values: a model made
    of the printed T and V evaluates as the original at a random state."""
    try:
        doc = json.loads(r.out.decode())
    except ValueError:
        return None
    T, V = doc.get("T"), doc.get("V")
    if not isinstance(T, str) or not isinstance(V, str) or len(T) + len(V) > 20000:
        return None
    decl = [ln for ln in m.lines if ln.startswith(("coordinates ", "parameters ", "inputs ", "initial "))]
    path = os.path.join(tmp, "roundtrip.lag")
    with open(path, "w") as f:
        f.write("\n".join(decl + [f"T = {T}", f"V = {V}"]) + "\n")
    state = ", ".join(f"{c}={rng.uniform(-1, 1):.6f}, {c}'={rng.uniform(-1, 1):.6f}"
                      for c in m.coords if len(c) <= MAX_STATE_NAME)
    args = ["eval", "--json", "--state", state, "--t", "0.3"]
    r1 = lagcheck.run(binary, args, m.path, timeout=timeout, cwd=tmp)
    r2 = lagcheck.run(binary, args, path, timeout=timeout, cwd=tmp)
    for rr in (r1, r2):
        if rr.finding:
            return "round trip: " + rr.describe()
    if r1.rc != 0 or r2.rc != 0:
        return None  # a singular mass matrix in one of them, say
    d1, d2 = json.loads(r1.out.decode()), json.loads(r2.out.decode())
    for key in ("T", "V"):
        if not close(d1.get(key), d2.get(key)):
            return (f"round trip of {key}: the model gives {d1.get(key)!r}, its printed {key} "
                    f"reads back as {d2.get(key)!r} at {state}")
    return None


def one_model(binary, seed, k, tmp, timeout, keep):
    """Findings (strings) of model k of this seed."""
    rng = random.Random(seed * 1000003 + k)
    m = Gen(rng).model()
    text = "\n".join(m.lines) + "\n"
    path = os.path.join(tmp, f"gen_{seed}_{k}.lag")
    with open(path, "w") as f:
        f.write(text)
    m.path = path
    findings = []
    for args in commands(rng, m):
        r = lagcheck.run(binary, args, path, timeout=timeout, cwd=tmp)
        if os.environ.get("GEN_VERBOSE"):
            print(f"  {r.seconds:6.2f} s  exit {r.rc}  {' '.join(args)}", flush=True)
        why = r.finding and r.describe()
        if not why and r.rc == 0 and args[0] == "codegen":
            why = check_generated(r, tmp)
        if not why and r.rc == 0 and args[:3] == ["eom", "--format", "json"]:
            why = roundtrip(binary, m, r, tmp, timeout, rng)
        if why:
            findings.append(f"{' '.join(args)}: {why}")
    if findings and keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(path, keep)
    return text, findings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--models", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--only", type=int, default=-1)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=30, help="CPU seconds per run")
    ap.add_argument("--keep", default="")
    ap.add_argument("--print", action="store_true", help="print the models, run nothing")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    keep = os.path.abspath(a.keep) if a.keep else ""
    count = a.models or (0 if a.seconds else 40)
    passed = failed = 0
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        k = a.only if a.only >= 0 else a.first
        while True:
            if a.print:
                rng = random.Random(a.seed * 1000003 + k)
                print(f"# model {k} of seed {a.seed}\n" + "\n".join(Gen(rng).model().lines) + "\n")
            else:
                text, findings = one_model(binary, a.seed, k, tmp, a.timeout, keep)
                if findings:
                    failed += 1
                    print(f"FAIL model {k} of seed {a.seed}:\n" + "\n".join(findings) +
                          "\n--- model ---\n" + text[:3000])
                else:
                    passed += 1
            k += 1
            if a.only >= 0 or (count and k - a.first >= count):
                break
            if a.seconds and time.monotonic() - start > a.seconds:
                break
    if not a.print:
        print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
