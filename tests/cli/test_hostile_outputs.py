#!/usr/bin/env python3
"""Hostile names and outputs (issue 21).

- codegen: a model file named to close the comment or docstring its path
  is written in (`*/ ... /*`, `\"\"\"`, newlines, backslashes, trigraphs,
  non-UTF-8 bytes) gives C that compiles with -Wall -Werror (C11, so
  trigraphs are live) and a module that imports, neither running anything,
  and both still computing the right-hand side `eval` gives; --name must be
  a C identifier; a header name an #include line cannot spell is refused.
- An output that is the model file (also through a symbolic or hard link,
  standard input, animate's default name, codegen's header, simulate's
  FILE.partial.csv), or two outputs that are one file, is refused (exit 2)
  and the model is left as it was.
- codegen -o to a device writes no header beside it.
- sweep: --jobs beyond the cores is capped with a note; a grid or a law
  whose width overflows is refused.
- animate: a point at a non-finite position is exit 1 naming it and the
  time; a motion too large to scale is exit 1 (no inf in the page).
- A long smooth run that reaches the projected-step limit says so and
  names --max-steps (not "the step size collapsed").

usage: test_hostile_outputs.py LAGRANGE [SANITIZED_LAGRANGE]"""
import json, os, shutil, subprocess, sys, tempfile

BIN = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else sys.argv[1])
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CART = os.path.join(ROOT, "examples", "cart_pendulum.lag")
SPRING = os.path.join(ROOT, "examples", "spring_mass.lag")
BLOWUP = os.path.join(ROOT, "tests", "cli", "sim", "blowup.lag")
PY = "/usr/bin/python3"
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else "\n    " + str(detail)[:1500]))


def run(*args, cwd=None, stdin=None, timeout=300):
    r = subprocess.run([BIN, *args], cwd=cwd, stdin=stdin, capture_output=True,
                       timeout=timeout)
    r.err = r.stderr.decode(errors="replace")
    r.out = r.stdout.decode(errors="replace")
    return r


def sanitizer_clean(r):
    return "Sanitizer" not in r.err and "runtime error" not in r.err


def copy_model(src, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.copy(src, path)
    return path


# ---- codegen: hostile model paths -----------------------------------------------------
# Unescaped, the first path ends the header's comment and defines a
# constructor that runs `touch PWNED` when the program starts; the
# others close the docstring, splice a line (backslash, ??/), or are not
# UTF-8. Directories carry the '/' the comment markers need.
C_PAYLOAD = ('\n#ifndef PW\n#define PW\n#include <stdlib.h>\n__attribute__((constructor)) '
             'static void pw(void) { system("touch PWNED"); }\n#endif\n')
HOSTILE_PATHS = [
    os.path.join("h*", C_PAYLOAD, "*.lag"),
    'q"""; import os; os.system(\'touch PWNED\'); """.lag',
    "new\nline \\ back\\slash ??/ tri*.lag",
    "end\\",
    os.path.join("tri*??", "\n", " x.lag"),  # ??/ + line end splices: "*/" ends the comment
    os.fsdecode(b"bytes \xff\xfe \xc3\xa9 *"),
    os.path.join("x*", " int pwned = 1; ", "*y.lag"),
]

HARNESS = r"""
#include <stdio.h>
#include "m.h"
int main(void) {
  double p[m_NP], x[2 * m_NQ], xd[2 * m_NQ];
  m_default_params(p);
  for (int i = 0; i < 2 * m_NQ; i++) x[i] = 0.1 * (i + 1);
  int err = m_rhs(0.0, x, NULL, p, xd);
  printf("%d", err);
  for (int i = 0; i < 2 * m_NQ; i++) printf(" %.17g", xd[i]);
  printf("\n");
  return 0;
}
"""

PY_DRIVER = r"""
import sys, json, numpy as np
sys.path.insert(0, sys.argv[1])
import m
x = np.array([0.1 * (i + 1) for i in range(2 * m.NQ)])
print(json.dumps(list(m.rhs(0.0, x))))
"""


def want_rhs(model):
    """x' at x = (0.1, 0.2, ...) from `lagrange eval`."""
    first = json.loads(run("eval", model, "--json").out)
    names = first["coordinates"]
    n = len(names)
    x = [0.1 * (i + 1) for i in range(2 * n)]
    st = ", ".join([f"{names[i]}={x[i]!r}" for i in range(n)] +
                   [f"{names[i]}'={x[n + i]!r}" for i in range(n)])
    doc = json.loads(run("eval", model, "--state", st, "--json").out)
    return x[n:] + doc["qdd"]


def close(a, b):
    return len(a) == len(b) and all(abs(u - v) <= 1e-10 * max(1, abs(v)) for u, v in zip(a, b))


def codegen_hostile():
    want = want_rhs(CART)
    have_gcc = shutil.which("gcc") is not None
    have_np = subprocess.run([PY, "-c", "import numpy"], capture_output=True).returncode == 0
    for k, rel in enumerate(HOSTILE_PATHS):
        label = f"hostile path {k} ({rel[:24]!r})"
        with tempfile.TemporaryDirectory() as tmp:
            model = copy_model(CART, os.path.join(tmp, "models", rel))
            out = os.path.join(tmp, "out")
            os.mkdir(out)
            r = run("codegen", model, "--name", "m", "-o", os.path.join(out, "m.c"), cwd=out)
            check(f"codegen C from {label}", r.returncode == 0 and sanitizer_clean(r), r.err)
            text = open(os.path.join(out, "m.h"), "rb").read() + \
                open(os.path.join(out, "m.c"), "rb").read()
            check(f"{label}: the generated C is ASCII", all(b < 0x80 for b in text))
            if have_gcc:
                with open(os.path.join(out, "harness.c"), "w") as f:
                    f.write(HARNESS)
                c = subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic",
                                    "-Wno-unused-parameter", "-o", "h", "m.c", "harness.c",
                                    "-lm"], cwd=out, capture_output=True, text=True)
                check(f"{label}: gcc -std=c11 -Wall -Werror compiles it", c.returncode == 0,
                      c.stderr)
                if c.returncode == 0:
                    e = subprocess.run(["./h"], cwd=out, capture_output=True, text=True)
                    vals = [float(v) for v in e.stdout.split()]
                    check(f"{label}: the compiled rhs matches eval", vals and vals[0] == 0 and
                          close(vals[1:], want), (e.stdout, want))
                    nm = subprocess.run(["nm", "h"], cwd=out, capture_output=True, text=True)
                    check(f"{label}: nothing but the generated functions is defined",
                          "pwned" not in nm.stdout and " pw\n" not in nm.stdout, nm.stdout[:500])
            r = run("codegen", model, "--lang", "python", "--name", "m", "-o",
                    os.path.join(out, "m.py"), cwd=out)
            check(f"codegen Python from {label}", r.returncode == 0 and sanitizer_clean(r), r.err)
            if have_np and r.returncode == 0:
                p = subprocess.run([PY, "-c", PY_DRIVER, out], cwd=out, capture_output=True,
                                   text=True)
                got = json.loads(p.stdout) if p.returncode == 0 else []
                check(f"{label}: the module imports and its rhs matches eval",
                      close(got, want), p.stderr)
            check(f"{label}: no command ran (no PWNED file)",
                  not os.path.exists(os.path.join(out, "PWNED")), os.listdir(out))
    if not have_gcc:
        check("gcc available for the generated C", False, "install gcc")


def codegen_names():
    with tempfile.TemporaryDirectory() as d:
        for bad in ["a*/b", "1x", "", "a b", "x\ny", "na\u00efve"]:
            r = run("codegen", CART, "--name", bad, "-o", os.path.join(d, "x.c"))
            check(f"--name {bad!r} is a usage error naming --name",
                  r.returncode == 2 and "--name" in r.err and not os.listdir(d), r.err)
        for bad in ['we"ird.c', "back\\slash.c", "new\nline.c", "tri??=.c"]:
            r = run("codegen", CART, "-o", os.path.join(d, bad))
            check(f"-o {bad!r}: a header name #include cannot spell is a usage error",
                  r.returncode == 2 and "#include" in r.err and not os.listdir(d), r.err)
        name = os.fsdecode(b"mod\xc3\xa8le \xff.c")
        r = run("codegen", CART, "--name", "m", "-o", os.path.join(d, name))
        ok = r.returncode == 0
        if ok and shutil.which("gcc"):
            c = subprocess.run(["gcc", "-std=c11", "-Wall", "-Werror", "-c", name], cwd=d,
                               capture_output=True, text=True)
            ok = c.returncode == 0
            r.err += c.stderr
        check("-o with non-ASCII bytes: the .c includes its header and compiles", ok, r.err)


# ---- outputs that are inputs -----------------------------------------------------------
def same_bytes(path, ref):
    return open(path, "rb").read() == open(ref, "rb").read()


def refused(label, r, model, ref, *names):
    check(label, r.returncode == 2 and same_bytes(model, ref) and
          all(n in r.err for n in names), (r.returncode, r.err))


def outputs_against_inputs():
    with tempfile.TemporaryDirectory() as d:
        m = copy_model(CART, os.path.join(d, "m.lag"))
        r = run("simulate", "m.lag", "--tf", "0.1", "--out", "m.lag", cwd=d)
        refused("simulate m.lag --out m.lag is refused, the model intact", r, m, CART,
                "--out", "model file")
        r = run("simulate", "m.lag", "--tf", "0.1", "--out", os.path.join(d, "..",
                os.path.basename(d), "m.lag"), cwd=d)
        refused("--out through another spelling of the model's path", r, m, CART, "m.lag")
        os.symlink("m.lag", os.path.join(d, "link.csv"))
        r = run("simulate", "m.lag", "--tf", "0.1", "--out", "link.csv", cwd=d)
        refused("--out a symbolic link to the model", r, m, CART, "link.csv")
        os.link(m, os.path.join(d, "hard.svg"))
        r = run("simulate", "m.lag", "--tf", "0.1", "--plot", "hard.svg", cwd=d)
        refused("--plot a hard link to the model", r, m, CART, "--plot", "hard.svg")
        with open(m, "rb") as f:
            r = run("simulate", "-", "--tf", "0.1", "--out", "m.lag", cwd=d, stdin=f)
        refused("a model read from standard input is an input too", r, m, CART, "<stdin>")
        for lang in ["c", "python"]:
            r = run("codegen", "m.lag", "--lang", lang, "-o", "m.lag", cwd=d)
            refused(f"codegen --lang {lang} -o m.lag", r, m, CART, "-o")
        os.link(m, os.path.join(d, "gen.h"))
        r = run("codegen", "m.lag", "-o", "gen.c", cwd=d)
        refused("codegen -o gen.c whose header gen.h is the model", r, m, CART, "header",
                "gen.h")
        check("... and gen.c is not written either", not os.path.exists(os.path.join(d, "gen.c")))
        r = run("sweep", "m.lag", "--vary", "m=1:2:2", "--tf", "0.1", "--out", "hard.svg", cwd=d)
        refused("sweep --out the model", r, m, CART, "--out")
        r = run("animate", "m.lag", "--tf", "0.1", "--out", "link.csv", cwd=d)
        refused("animate --out the model", r, m, CART, "--out")
        h = copy_model(CART, os.path.join(d, "a.html"))
        r = run("animate", "a.html", "--tf", "0.1", cwd=d)
        refused("animate a.html (its default output is a.html) is refused", r, h, CART,
                "default output", "a.html")
        # two outputs that are one file
        r = run("simulate", "m.lag", "--tf", "0.1", "--out", "p.svg", "--plot", "./p.svg", cwd=d)
        check("simulate --out p.svg --plot ./p.svg: the same file twice is refused",
              r.returncode == 2 and "same file" in r.err and
              not os.path.exists(os.path.join(d, "p.svg")), r.err)
        os.symlink("two.c", os.path.join(d, "two.h"))
        r = run("codegen", "m.lag", "-o", "two.c", cwd=d)
        check("codegen -o two.c with two.h a link to two.c is refused",
              r.returncode == 2 and "same file" in r.err and
              not os.path.exists(os.path.join(d, "two.c")), r.err)
        # the rows of a failed run go to FILE.partial.csv: not over the model
        b = copy_model(BLOWUP, os.path.join(d, "r.partial.csv"))
        r = run("simulate", "r.partial.csv", "--out", "r.csv", cwd=d)
        check("a failed run does not put its rows over a model named FILE.partial.csv",
              r.returncode == 1 and same_bytes(b, BLOWUP) and "model file" in r.err, r.err)
        # an unrelated output is still fine
        m = copy_model(CART, os.path.join(d, "m.lag"))
        r = run("simulate", "m.lag", "--tf", "0.1", "--out", "fine.csv", cwd=d)
        check("simulate --out another file still works", r.returncode == 0 and
              os.path.getsize(os.path.join(d, "fine.csv")) > 0, r.err)


def codegen_device():
    with tempfile.TemporaryDirectory() as d:
        os.symlink("/dev/null", os.path.join(d, "out.c"))
        r = run("codegen", CART, "-o", os.path.join(d, "out.c"))
        check("codegen -o a device (through a link to /dev/null) writes no header beside it",
              r.returncode == 0 and sorted(os.listdir(d)) == ["out.c"] and
              os.path.islink(os.path.join(d, "out.c")), (r.err, os.listdir(d)))
        r = run("codegen", CART, "-o", os.path.join(d, "real.c"))
        check("codegen -o a regular file still writes its header",
              r.returncode == 0 and os.path.exists(os.path.join(d, "real.h")), r.err)


# ---- sweep ------------------------------------------------------------------------------
def sweep_limits():
    cores = os.cpu_count() or 1
    if cores < 1024:
        r = run("sweep", CART, "--vary", "m=1:2:4", "--tf", "0.1", "--jobs", str(cores + 1))
        word = "thread" if cores == 1 else "threads"
        check(f"--jobs {cores + 1} on {cores} cores is capped with a note",
              r.returncode == 0 and "note" in r.err and "--jobs" in r.err and
              f"({cores} {word})" in r.err, r.err)
    for args in (["--vary", "m=-1e308:1e308:3"],
                 ["--samples", "3", "--seed", "1", "--dist", "m=uniform(-1e308,1e308)"],
                 ["--samples", "3", "--seed", "1", "--dist", "m=normal(0,1e308)"]):
        r = run("sweep", CART, *args, "--tf", "0.1")
        check(f"sweep {' '.join(args)}: a width that overflows is refused",
              r.returncode == 2 and "overflows" in r.err and "inf" not in r.out, r.err)
    r = run("sweep", CART, "--vary", "m=1e307:1e308:3", "--tf", "0.1")
    check("a wide but finite grid is still run", r.returncode == 0, r.err)


# ---- animate ----------------------------------------------------------------------------
INF_MODEL = """coordinates x
parameters m = 1, k = 1
frame N
point O
point P = O + x*N.x
point Q = O + exp(1000*x)*N.y
particle P mass m
V = k*x^2/2
initial x = 0, x' = 1
simulate 0 to 1 step 0.01
"""


def animate_non_finite():
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "inf.lag"), "w") as f:
            f.write(INF_MODEL)
        r = run("animate", "inf.lag", "--out", "inf.html", cwd=d)
        check("animate: a point at a non-finite position is exit 1 naming it and the time",
              r.returncode == 1 and "Q" in r.err and "t = 0.8" in r.err and
              not os.path.exists(os.path.join(d, "inf.html")), r.err)
        with open(os.path.join(d, "big.lag"), "w") as f:
            f.write(INF_MODEL.replace("exp(1000*x)*N.y", "1e308*x*N.y") +
                    "point R = O - 1e308*N.y\n")
        r = run("animate", "big.lag", "--out", "big.html", cwd=d)
        page = os.path.join(d, "big.html")
        has_inf = os.path.exists(page) and ':inf' in open(page).read().replace(" ", "")
        check("animate: a motion too large to scale is exit 1, no page with inf in its data",
              r.returncode == 1 and not os.path.exists(page) and not has_inf, r.err)


# ---- the projected-step limit -------------------------------------------------------------
def step_limit():
    r = run("simulate", SPRING, "--tf", "1e8", "--dt", "1e4")
    check("a long smooth run names --max-steps, not a step-size collapse",
          r.returncode == 1 and "--max-steps" in r.err and "collapsed" not in r.err and
          "stiff here" not in r.err, r.err)
    r = run("simulate", SPRING, "--tf", "1e3", "--dt", "1", "--max-steps", "1000")
    check("--max-steps sets the limit (1000: a run of 4e4 steps stops, naming it)",
          r.returncode == 1 and "limit of 1e+03" in r.err, r.err)
    r = run("simulate", SPRING, "--tf", "10", "--max-steps", "0")
    check("--max-steps 0 is a usage error", r.returncode == 2 and "--max-steps" in r.err, r.err)


codegen_hostile()
codegen_names()
outputs_against_inputs()
codegen_device()
sweep_limits()
animate_non_finite()
step_limit()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
