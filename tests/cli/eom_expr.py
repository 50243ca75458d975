"""Reading `lagrange eom` printouts back as numbers, for the tests.

parse(text) turns one expression of the model language as the text printer
writes it (numbers, names with primes `q1''`, + - * / ^, unary minus,
parentheses, the functions of MODEL-FORMAT.md) into a function of an
environment (a dict name -> float). No eval(): Python's own parser and
compiler recurse once per term of a sum and fail on the long sums an arm's
mass matrix prints, so sums and products are parsed by loops here and only
true nesting (parentheses, calls, powers) recurses.

read_text(out) and read_json(out) turn the whole text or JSON printout into
one dict of the same shape (lists of strings, lists of rows, scalars and
the `where` definitions); where_program() orders the shared
subexpressions so that with_where() evaluates each after what it reads."""
import contextlib, gc, json, math, re

TOKEN = re.compile(r"\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|[A-Za-z_]\w*'*|\S")


def _pow(a, b):
    try:
        return math.pow(a, b)
    except (ValueError, ZeroDivisionError):
        return math.nan
    except OverflowError:
        return math.inf


def _div(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        return math.copysign(math.inf, a) if a else math.nan


def _safe(f):
    def g(*a):
        try:
            return f(*a)
        except (ValueError, OverflowError):
            return math.nan
    return g


FUNCS = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": _safe(math.asin),
         "acos": _safe(math.acos), "atan": math.atan, "atan2": math.atan2, "sinh": _safe(math.sinh),
         "cosh": _safe(math.cosh), "tanh": math.tanh, "exp": _safe(math.exp),
         "log": _safe(math.log), "sqrt": _safe(math.sqrt), "abs": abs,
         "sign": lambda x: float((x > 0) - (x < 0))}


class ParseError(Exception):
    pass


class _Parser:
    """Recursive descent over the token strings: a sum is a loop over
    products, a product a loop over factors; a factor is an optionally
    negated power of a primary."""

    def __init__(self, text):
        self.toks = TOKEN.findall(text) + [""]
        self.i = 0
        self.names = set()

    def expect(self, tok):
        if self.toks[self.i] != tok:
            raise ParseError(f"expected {tok!r} at token {self.i}, got {self.toks[self.i]!r}")
        self.i += 1

    def sum(self):
        terms = [(True, self.product())]
        while self.toks[self.i] in ("+", "-"):
            self.i += 1
            terms.append((self.toks[self.i - 1] == "+", self.product()))
        if len(terms) == 1:
            return terms[0][1]

        def add(env):
            acc = 0.0
            for plus, f in terms:
                acc = acc + f(env) if plus else acc - f(env)
            return acc
        return add

    def product(self):
        first, rest = self.factor(), []
        while self.toks[self.i] in ("*", "/"):
            self.i += 1
            rest.append((self.toks[self.i - 1] == "/", self.factor()))
        if not rest:
            return first

        def mul(env):
            acc = first(env)
            for div, f in rest:
                acc = _div(acc, f(env)) if div else acc * f(env)
            return acc
        return mul

    def factor(self):
        """[-]* primary [^ factor]: unary minus binds looser than ^, and the
        exponent may itself be negated (`x^-1`; ^ is right-associative)."""
        tok = self.toks[self.i]
        if tok in ("-", "+"):
            self.i += 1
            f = self.factor()
            return (lambda env: -f(env)) if tok == "-" else f
        base = self.primary()
        if self.toks[self.i] != "^":
            return base
        self.i += 1
        exp = self.factor()
        return lambda env: _pow(base(env), exp(env))

    def primary(self):
        tok = self.toks[self.i]
        self.i += 1
        c = tok[:1]
        if c.isdigit() or c == ".":
            v = float(tok) if any(ch in tok for ch in ".eE") else int(tok)
            return lambda env: v
        if c.isalpha() or c == "_":
            if self.toks[self.i] != "(":
                self.names.add(tok)
                return lambda env: env[tok]
            if tok not in FUNCS:
                raise ParseError(f"unknown function {tok!r}")
            self.i += 1
            args = [self.sum()]
            while self.toks[self.i] == ",":
                self.i += 1
                args.append(self.sum())
            self.expect(")")
            fn = FUNCS[tok]
            if len(args) == 1:
                a = args[0]
                return lambda env: fn(a(env))
            return lambda env: fn(*[a(env) for a in args])
        if tok == "(":
            f = self.sum()
            self.expect(")")
            return f
        raise ParseError(f"unexpected {tok!r} at token {self.i - 1}")


_parsed = {}


def parse(text):
    """(function env -> float, set of names it reads). Memoized: the text
    and JSON printouts hold the same strings. The cyclic garbage collector
    is off meanwhile: its passes over the growing heap of closures made
    reading an arm's printout quadratic (16 s instead of 3 for 20 links);
    the callers that parse many keep it off too."""
    if text in _parsed:
        return _parsed[text]
    with _no_gc():
        p = _Parser(text)
        f = p.sum()
        if p.toks[p.i] != "":
            raise ParseError(f"trailing {p.toks[p.i]!r} in {text[:80]!r}")
    _parsed[text] = (f, p.names)
    return f, p.names


@contextlib.contextmanager
def _no_gc():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def split_top(s, sep=","):
    """s split at the separators outside parentheses."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(s):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == sep and depth == 0:
            out.append(s[start:i].strip())
            start = i + 1
    out.append(s[start:].strip())
    return out


def read_json(out):
    return json.loads(out)


def read_text(out):
    """The text printout as the dict `eom --json` gives: names lists,
    `KEY:` equation lists, `KEY (r x c):` matrices (a column as a list),
    `T = ...`, `V = ...` and the `where:` block as a dict."""
    d, lines, i = {}, out.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip():
            continue
        m = re.match(r"^(\w+) \((\d+) x (\d+)\):$", line)
        if m:
            rows = []
            for _ in range(int(m.group(2))):
                row = lines[i].strip()
                i += 1
                if not (row.startswith("[") and row.endswith("]")):
                    raise ParseError(f"matrix row expected: {row[:80]!r}")
                rows.append(split_top(row[1:-1]))
            d[m.group(1)] = [r[0] for r in rows] if m.group(3) == "1" else rows
            continue
        m = re.match(r"^(\w+):(.*)$", line)
        if m and m.group(2).strip():
            names = m.group(2).strip()
            d[m.group(1)] = [] if names == "(none)" else split_top(names)
            continue
        if m:
            key, items = m.group(1), []
            while i < len(lines) and lines[i].startswith("  "):
                items.append(lines[i].strip())
                i += 1
            if key == "where":
                d[key] = dict(tuple(s.strip() for s in it.split(" = ", 1)) for it in items)
            else:
                d[key] = items
            continue
        m = re.match(r"^(\w+) = (.*)$", line)
        if m:
            d[m.group(1)] = m.group(2)
            continue
        raise ParseError(f"unrecognised line {line[:80]!r}")
    return d


def where_program(where):
    """The `where` definitions as [(name, function)] in an order where each
    comes after the names its definition reads (an explicit stack: the
    chains of definitions are long)."""
    with _no_gc():
        return _where_order({k: parse(v) for k, v in where.items()})


def _where_order(parsed):
    deps = {k: sorted(d for d in names if d in parsed) for k, (_, names) in parsed.items()}
    order, done, active = [], set(), set()
    for root in parsed:
        if root in done:
            continue
        stack = [(root, iter(deps[root]))]
        active.add(root)
        while stack:
            name, todo = stack[-1]
            dep = next(todo, None)
            if dep is None:
                stack.pop()
                active.discard(name)
                done.add(name)
                order.append((name, parsed[name][0]))
            elif dep in active:
                raise ParseError(f"where: {dep} is defined through itself")
            elif dep not in done:
                active.add(dep)
                stack.append((dep, iter(deps[dep])))
    return order


def with_where(program, env):
    """env extended with the values of the `where` names."""
    out = dict(env)
    for name, f in program:
        out[name] = f(out)
    return out
