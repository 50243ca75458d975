#!/usr/bin/env python3
"""`lagrange linearize --symbolic`: A and B as expressions that stay small
(shared subexpressions named under `where`, as `eom` names them) and mean
the numeric linearization.

For every example under both methods, at the initial state and at a
second point off it (the independent coordinates and rates moved, the
dependent ones solved), the JSON form's `where` definitions and the
entries of A and B are evaluated in order by a small parser here (no eval)
at the point the numeric `linearize --json` reports, and must equal its A
and B to 1e-10 relative. Every format stays under 1 MB. The release binary
runs under a memory cap (RLIMIT_AS, as `ulimit -v`), so that a blow-up
fails the test instead of exhausting the machine; the sanitized binary
runs the small models. Times are not asserted (bench/RESULTS.md has them).

usage: test_linearize_symbolic.py LAGRANGE [SANITIZED_LAGRANGE]"""
import json, math, os, re, resource, subprocess, sys, tempfile

BIN = sys.argv[1]
SAN = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
EXAMPLES = sorted(os.path.join(ROOT, "examples", f)
                  for f in os.listdir(os.path.join(ROOT, "examples")) if f.endswith(".lag"))
MODELS = EXAMPLES + [os.path.join(HERE, "models", m)
                     for m in ("cart_pendulum_force.lag", "bead_input.lag")]
MEM_CAP = 2 << 30          # bytes of address space for one run of the release binary
MAX_BYTES = 1_000_000
TOL = 1e-10
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:800]))


def capped():
    resource.setrlimit(resource.RLIMIT_AS, (MEM_CAP, MEM_CAP))


def run(binary, *args):
    """(exit code, stdout, stderr); a run past the cap or the time limit fails."""
    try:
        r = subprocess.run([binary, *args], capture_output=True, text=True, timeout=120,
                           preexec_fn=capped if binary == BIN else None)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after 120 s"


# ---- a small evaluator for the model language's expressions --------------------------
FUNCS = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin,
         "acos": math.acos, "atan": math.atan, "atan2": math.atan2, "sinh": math.sinh,
         "cosh": math.cosh, "tanh": math.tanh, "exp": math.exp, "log": math.log,
         "sqrt": math.sqrt, "abs": abs, "sign": lambda x: (x > 0) - (x < 0)}
TOKEN = re.compile(r"\s*(?:(\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)|"
                   r"([A-Za-z_][A-Za-z_0-9]*'*)|(.))")


def tokens(text):
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        num, name, op = m.groups()
        out.append(("n", float(num)) if num else ("a", name) if name else ("o", op))
        pos = m.end()
    out.append(("o", "$"))
    return out


class Expr:
    """Recursive descent over sum > product > unary minus > power > atom,
    evaluated while parsed; names from `env`."""

    def __init__(self, text, env):
        self.t, self.i, self.env = tokens(text), 0, env

    def peek(self):
        return self.t[self.i]

    def take(self, op=None):
        tok = self.t[self.i]
        if op is not None and tok != ("o", op):
            raise ValueError(f"expected {op!r} at token {self.i}, got {tok!r}")
        self.i += 1
        return tok

    def value(self):
        v = self.sum()
        self.take("$")
        return v

    def sum(self):
        v = self.product()
        while self.peek() in (("o", "+"), ("o", "-")):
            v = v + self.product() if self.take()[1] == "+" else v - self.product()
        return v

    def product(self):
        v = self.unary()
        while self.peek() in (("o", "*"), ("o", "/")):
            v = v * self.unary() if self.take()[1] == "*" else v / self.unary()
        return v

    def unary(self):
        if self.peek() == ("o", "-"):
            self.take()
            return -self.unary()
        return self.power()

    def power(self):
        base = self.atom()
        if self.peek() == ("o", "^"):
            self.take()
            e = self.unary()  # right-associative, may be negative
            return base ** int(e) if float(e).is_integer() else base ** e
        return base

    def atom(self):
        kind, v = self.take()
        if kind == "n":
            return v
        if kind == "a":
            if self.peek() == ("o", "(") and v in FUNCS:
                self.take("(")
                args = [self.sum()]
                while self.peek() == ("o", ","):
                    self.take()
                    args.append(self.sum())
                self.take(")")
                return FUNCS[v](*args)
            if v not in self.env:
                raise KeyError(f"no value for '{v}'")
            return self.env[v]
        if v == "(":
            x = self.sum()
            self.take(")")
            return x
        raise ValueError(f"unexpected {v!r}")


def evaluate(sym, num):
    """A and B of the symbolic JSON at the numeric JSON's point."""
    env = dict(sym["parameters"])
    env.update(pi=math.pi, t=sym["t"])
    for c, q, qd in zip(sym["coordinates"], num["q0"], num["qd0"]):
        env[c], env[c + "'"] = q, qd
    env.update(zip(num["inputs"], num["r0"]))
    for name, text in sym.get("where", {}).items():
        env[name] = Expr(text, env).value()
    return [[[Expr(x, env).value() for x in row] for row in sym[k]] for k in ("A", "B")]


def worst_error(sym_mats, num):
    worst = 0.0
    for got, key in zip(sym_mats, ("A", "B")):
        want = num[key]
        if len(got) != len(want) or any(len(a) != len(b) for a, b in zip(got, want)):
            return math.inf
        for ra, rb in zip(got, want):
            for a, b in zip(ra, rb):
                worst = max(worst, abs(a - b) / max(1.0, abs(b)))
    return worst


def second_point(num):
    """--at and --independent for a point off the initial one: each
    independent coordinate and rate moved by a different small amount."""
    at = [f"{s}={x + 0.05 + 0.037 * k:.17g}" for k, (s, x) in enumerate(zip(num["state"], num["x0"]))]
    return ", ".join(at), ", ".join(num["state"])


def check_point(model, method, label, extra):
    code, out, err = run(BIN, "linearize", model, "--method", method, "--json", *extra)
    if code:
        check(f"{label}: numeric linearization", False, err)
        return None
    num = json.loads(out)
    code, out, err = run(BIN, "linearize", model, "--method", method, "--symbolic",
                         "--format", "json", *extra)
    if code:
        check(f"{label}: --symbolic --format json exit 0", False, err)
        return num
    sym = json.loads(out)
    check(f"{label}: JSON under 1 MB ({len(out)} bytes)", len(out) < MAX_BYTES)
    check(f"{label}: the same state and point as the numeric one",
          all(sym.get(k) == num[k] for k in ("state", "dependent", "x0", "r0")),
          (sym.get("state"), num["state"]))
    try:
        err = worst_error(evaluate(sym, num), num)
    except (KeyError, ValueError, TypeError, ZeroDivisionError, OverflowError, IndexError,
            RecursionError) as ex:
        err = repr(ex)
    check(f"{label}: A and B evaluate to the numeric ones (worst {err})",
          isinstance(err, float) and err <= TOL, err)
    return num


def kane_own_speeds(model):
    with open(model) as f:
        return any(line.startswith("speeds") for line in f)


# ---- every example, both methods, two points ------------------------------------------
for model in MODELS:
    base = os.path.basename(model)
    for method in ("lagrange", "kane"):
        label = f"{base} --method {method}"
        if method == "kane" and kane_own_speeds(model):
            # Kane's own speeds: the expressions are in the rates only
            code, _, err = run(BIN, "linearize", model, "--method", method, "--symbolic")
            check(f"{label}: refused with a reason (exit 2)", code == 2 and "speeds" in err, err)
            continue
        num = check_point(model, method, f"{label} at the initial state", [])
        if num is None:
            continue
        at, indep = second_point(num)
        check_point(model, method, f"{label} off it", ["--at", at, "--independent", indep])
        for fmt in ("text", "latex"):
            code, out, err = run(BIN, "linearize", model, "--method", method, "--symbolic",
                                 "--format", fmt)
            check(f"{label}: --format {fmt} exit 0 and under 1 MB ({len(out)} bytes)",
                  code == 0 and len(out) < MAX_BYTES, err)

# ---- the named form -------------------------------------------------------------------
SPHERE = os.path.join(ROOT, "examples", "rolling_sphere.lag")
code, out, err = run(BIN, "linearize", SPHERE, "--symbolic")
check("rolling sphere, text: a where block defines the names A uses",
      code == 0 and "\nwhere:\n  z1 = " in out and "z1" in out.split("\nwhere:\n")[0], out[:300])
code, js, err = run(BIN, "linearize", SPHERE, "--symbolic", "--json")
check("--symbolic --json is the JSON form", code == 0 and json.loads(js).get("where"), js[:200])
code, tex, err = run(BIN, "linearize", SPHERE, "--symbolic", "--format", "latex")
check("rolling sphere, LaTeX: a document with a where paragraph",
      code == 0 and tex.startswith("\\documentclass") and "\\paragraph{where}" in tex and
      tex.rstrip().endswith("\\end{document}"), tex[:300])
try:
    subprocess.run(["pdflatex", "--version"], capture_output=True, check=True)
    have_tex = True
except (OSError, subprocess.CalledProcessError):
    have_tex = False
for name in ("rolling_sphere", "cart_pendulum", "whipple_bicycle") if have_tex else ():
    with tempfile.TemporaryDirectory() as tmp:
        code, tex, err = run(BIN, "linearize", os.path.join(ROOT, "examples", name + ".lag"),
                             "--symbolic", "--format", "latex")
        with open(os.path.join(tmp, "lin.tex"), "w") as f:
            f.write(tex)
        r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "lin.tex"],
                           cwd=tmp, capture_output=True, text=True, timeout=300)
        check(f"{name}: the LaTeX form compiles", code == 0 and r.returncode == 0 and
              os.path.exists(os.path.join(tmp, "lin.pdf")), r.stdout[-600:])

# ---- the sanitized binary on the small models -------------------------------------------
for name in ("cart_pendulum", "particle_bowl", "rolling_sphere", "kane_rigid_body"):
    model = os.path.join(ROOT, "examples", name + ".lag")
    for fmt in ("text", "latex", "json"):
        code, out, err = run(SAN, "linearize", model, "--symbolic", "--format", fmt)
        check(f"{name} --format {fmt} (sanitized): exit 0, clean", code == 0 and
              "ERROR" not in err and "runtime error" not in err, err[-600:])

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
