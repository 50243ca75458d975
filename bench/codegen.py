#!/usr/bin/env python3
"""bench/codegen.py - generated code side by side: lagrange codegen, SymPy's
best generated C (bench/sympy_c.py) and, for the planar chain, the
hand-written articulated-body algorithm (bench/aba_chain.c).

Per system (chain in absolute and in relative angles, the 3D arm):
- operations after CSE: lagrange `codegen --stats` (`rhs N`, without the
  solve); SymPy: count_ops of its cse output (see bench/sympy_c.py); the
  Cholesky solve both use is counted apart;
- ns per right-hand-side call, gcc -O2, one driver (bench/rhs_harness.c)
  calling every implementation at the same random states;
- generated C size, gcc -O2 -c time and peak memory;
- agreement: every implementation's accelerations against the first one's
  at every state, and the first one's against `lagrange eval --json` at two
  states (max |a - a_ref| / (1 + |a_ref|)).

usage: bench/codegen.py [LAGRANGE] [--quick] [--timeout S] [--cc-timeout S] [--only kind:n,...]
       bench/codegen.py --from-json FILE,...   (reprint saved results)"""
import json, math, os, random, re, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import setup, HERE, PY, fmt, gives_up, note, parser, ratio, run, table  # noqa: E402
from models import lag_model, params  # noqa: E402
from sympy_c import cholesky_ops  # noqa: E402

CC = ["gcc", "-O2"]
NSTATES = 64


def lagrange_c(binary, kind, n, tmp, timeout):
    model = os.path.join(tmp, "model.lag")
    with open(model, "w") as f:
        f.write(lag_model(kind, n))
    # only the right-hand side, as SymPy's file holds only its rhs: the
    # compile times compare the same function
    r = run([binary, "codegen", model, "--name", "lg", "-o", os.path.join(tmp, "lg.c"), "--stats",
             "--functions", "rhs"], timeout)
    if not r.ok:
        return {"status": r.status, "err": r.err[-300:]}
    ops = int(re.search(r"\brhs (\d+)", r.err).group(1))
    return {"ops": ops, "gen_s": r.wall, "gen_cpu": r.cpu, "src": os.path.join(tmp, "lg.c"),
            "size": os.path.getsize(os.path.join(tmp, "lg.c"))}


def lagrange_recursive_c(binary, kind, n, tmp, timeout):
    """codegen --functions rhs_recursive: the forcing, then the O(n)
    articulated-body recursion through the model's kinematic tree."""
    model = os.path.join(tmp, "model.lag")
    src = os.path.join(tmp, "lgr.c")
    r = run([binary, "codegen", model, "--name", "lgr", "-o", src, "--stats",
             "--functions", "rhs_recursive"], timeout)
    if not r.ok:
        return {"status": r.status, "err": r.err[-300:]}
    ops = int(re.search(r"\brhs_recursive (\d+)", r.err).group(1))
    return {"ops": ops, "gen_cpu": r.cpu, "src": src, "size": os.path.getsize(src)}


def sympy_c(kind, n, tmp, timeout):
    r = run([PY, os.path.join(HERE, "sympy_c.py"), kind, str(n), tmp], timeout)
    lines = [ln for ln in r.out.splitlines() if ln.startswith("{")]
    if not lines:
        return {"status": r.status, "err": r.err[-300:]}
    d = json.loads(lines[-1])
    d.update(src=os.path.join(tmp, "sympy_rhs.c"), size=os.path.getsize(os.path.join(tmp, "sympy_rhs.c")),
             partial=r.timeout)
    return d


def compile_obj(src, timeout):
    """(object or None, wall seconds or why not, CPU seconds, peak MB)"""
    obj = src[:-2] + ".o"
    r = run(CC + ["-c", "-o", obj, src], timeout)
    if not r.ok:
        return None, r.status, None, r.rss_mb
    return obj, r.wall, r.cpu, r.rss_mb


def glue(kind, n, impls, path):
    """The C that tells rhs_harness.c what to call."""
    ps = params("arm" if kind == "arm" else "chain", n)
    out = ["#include <stddef.h>", "typedef int (*rhs_fn)(const double *, const double *, double *);"]
    wrappers = []
    for name in impls:
        if name == "lagrange":
            out.append("int lg_rhs(double, const double *, const double *, const double *, double *);")
            out.append("static int w_lagrange(const double *x, const double *p, double *xd) "
                       "{ return lg_rhs(0.0, x, NULL, p, xd); }")
        elif name == "recursive":
            out.append("int lgr_rhs_recursive(double, const double *, const double *, "
                       "const double *, double *);")
            out.append("static int w_recursive(const double *x, const double *p, double *xd) "
                       "{ return lgr_rhs_recursive(0.0, x, NULL, p, xd); }")
        elif name == "sympy":
            out.append("int sympy_rhs(const double *, const double *, double *);")
            out.append("static int w_sympy(const double *x, const double *p, double *xd) "
                       "{ return sympy_rhs(x, p, xd); }")
        else:
            out.append('#include "aba_chain.h"')
            out.append(f"static int w_aba(const double *x, const double *p, double *xd) "
                       f"{{ return aba_chain_rhs({n}, {int(kind == 'chain_rel')}, x, p, xd); }}")
        wrappers.append("w_" + name)
    out.append(f"const int bench_nq = {n}, bench_np = {len(ps)}, bench_nimpl = {len(impls)};")
    out.append("const char *const bench_names[] = {" + ", ".join(f'"{i}"' for i in impls) + "};")
    out.append("const rhs_fn bench_fn[] = {" + ", ".join(wrappers) + "};")
    out.append("void bench_params(double *p) {" +
               " ".join(f"p[{k}] = {v!r};" for k, (_, v) in enumerate(ps)) + "}")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def random_states(n, path, seed):
    rng = random.Random(seed)
    states = [[rng.uniform(-3.0, 3.0) for _ in range(n)] + [rng.uniform(-1.0, 1.0) for _ in range(n)]
              for _ in range(NSTATES)]
    with open(path, "w") as f:
        for s in states:
            f.write(" ".join(repr(v) for v in s) + "\n")
    return states


def rel_err(a, ref):
    return max(abs(x - y) / (1.0 + abs(y)) for x, y in zip(a, ref))


def eval_accels(binary, model, n, state, timeout):
    st = ", ".join([f"q{i + 1}={state[i]!r}" for i in range(n)] +
                   [f"q{i + 1}'={state[n + i]!r}" for i in range(n)])
    r = run([binary, "eval", model, "--state", st, "--json"], timeout)
    return json.loads(r.out)["qdd"] if r.ok else None


def measure(binary, kind, n, timeout, cc_timeout, seed, gave_up, rep_s):
    """Everything for one system and size; a dict of results. gave_up holds
    (kind, step) pairs that timed out at a smaller n: not tried again."""
    res = {"kind": kind, "n": n}
    skipped = {"status": "not run (gave up at a smaller n)"}
    with tempfile.TemporaryDirectory() as tmp:
        lg = dict(skipped) if (kind, "lagrange") in gave_up else lagrange_c(binary, kind, n, tmp, timeout)
        sy = ({"status": "not run"} if "sympy" in gave_up else  # --no-sympy
              dict(skipped) if (kind, "sympy") in gave_up else sympy_c(kind, n, tmp, timeout))
        rec = (dict(skipped) if (kind, "recursive") in gave_up or "src" not in lg else
               lagrange_recursive_c(binary, kind, n, tmp, timeout))
        res["lagrange"], res["sympy"], res["recursive"] = lg, sy, rec
        for name, d in (("lagrange", lg), ("sympy", sy), ("recursive", rec)):
            if gives_up(d.get("status")) or d.get("partial"):
                gave_up.add((kind, name))
        objs, impls = [], []
        for name, d in (("lagrange", lg), ("sympy", sy), ("recursive", rec)):
            if "src" not in d:
                continue
            if (kind, "cc-" + name) in gave_up:
                d["cc_s"], d["cc_mb"] = "not run (gave up at a smaller n)", None
                continue
            obj, secs, cpu, rss = compile_obj(d["src"], cc_timeout)
            d["cc_s"], d["cc_cpu"], d["cc_mb"] = secs, cpu, rss
            if obj:
                objs.append(obj)
                impls.append(name)
            elif gives_up(secs):
                gave_up.add((kind, "cc-" + name))
        if kind != "arm":
            impls.append("aba")
            objs.append(os.path.join(HERE, "aba_chain.c"))
        glue(kind, n, impls, os.path.join(tmp, "glue.c"))
        exe = os.path.join(tmp, "harness")
        r = run(CC + ["-I", HERE, "-o", exe, os.path.join(HERE, "rhs_harness.c"),
                      os.path.join(tmp, "glue.c")] + objs + ["-lm"], timeout)
        if not r.ok:
            res["error"] = "harness link failed: " + r.err[-300:]
            return res
        states = random_states(n, os.path.join(tmp, "states.txt"), seed)
        r = run([exe, "check", os.path.join(tmp, "states.txt")], timeout)
        xd = {}
        for line in r.out.splitlines():
            f = line.split()
            xd.setdefault(f[0], []).append([float(v) for v in f[3:]])
        ref = impls[0]
        res["impls"] = impls
        res["agree"] = {k: max(rel_err(a[n:], b[n:]) for a, b in zip(xd[k], xd[ref]))
                        for k in impls[1:]}
        model = os.path.join(tmp, "model.lag")
        errs = []
        for s in range(2):
            qdd = eval_accels(binary, model, n, states[s], timeout)
            if qdd is not None:
                errs.append(rel_err(xd[ref][s][n:], qdd))
        res["agree_eval"] = max(errs) if errs else None
        res["reference"] = ref
        r = run([exe, "time", os.path.join(tmp, "states.txt"), str(rep_s)], timeout)
        res["ns"] = {ln.split()[0]: float(ln.split()[1]) for ln in r.out.splitlines()}
    return res


def cases(quick):
    if quick:
        return [("chain", 4), ("chain_rel", 3), ("arm", 3)]
    return ([("chain", n) for n in (6, 12, 24, 40)] + [("chain_rel", n) for n in (6, 12, 24, 40)] +
            [("arm", k) for k in range(3, 8)])


def ops_of(d):
    return d.get("ops", d.get("status"))


def growth(results, i, tool):
    """n^k between this size and the previous one of the same system."""
    r, prev = results[i], results[i - 1] if i > 0 else None
    if not prev or prev["kind"] != r["kind"]:
        return ""
    a, b = prev[tool].get("ops"), r[tool].get("ops")
    if not isinstance(a, int) or not isinstance(b, int):
        return ""
    return f"n^{math.log(b / a) / math.log(r['n'] / prev['n']):.1f}"


def print_tables(results):
    rows = []
    for i, r in enumerate(results):
        lg, sy, rec = r["lagrange"], r["sympy"], r.get("recursive", {})
        rows.append([r["kind"], r["n"], fmt(ops_of(lg), ","), fmt(ops_of(sy), ","),
                     ratio(lg.get("ops"), sy.get("ops"), ".2f"), growth(results, i, "lagrange"),
                     growth(results, i, "sympy"), sy.get("variant", ""),
                     fmt(cholesky_ops(r["n"]), ","), fmt(ops_of(rec), ",")])
    print("### Operations after CSE (rhs without the solve)\n")
    print(table(["system", "n", "lagrange", "SymPy Kane + cse", "lagrange / SymPy", "growth lagrange",
                 "growth SymPy", "SymPy variant", "Cholesky solve (both)",
                 "lagrange rhs_recursive (with its O(n) solve)"], rows))
    rows = []
    for r in results:
        ns = r.get("ns", {})
        rows.append([r["kind"], r["n"], fmt(ns.get("lagrange"), ",.0f", "-"),
                     fmt(ns.get("recursive"), ",.0f", "-"),
                     fmt(ns.get("sympy"), ",.0f", "-"), fmt(ns.get("aba"), ",.0f", "-"),
                     ratio(ns.get("sympy"), ns.get("lagrange")),
                     ratio(ns.get("sympy"), ns.get("recursive")),
                     ratio(ns.get("lagrange"), ns.get("aba")),
                     ratio(ns.get("recursive"), ns.get("aba")),
                     ", ".join(f"{k} {v:.1e}" for k, v in r.get("agree", {}).items()) or "-",
                     fmt(r.get("agree_eval"), ".1e", "-")])
    print("\n### ns per rhs call (gcc -O2, same harness, 64 random states)\n")
    print(table(["system", "n", "lagrange rhs", "lagrange rhs_recursive", "SymPy", "ABA",
                 "SymPy / rhs", "SymPy / rhs_recursive", "rhs / ABA", "rhs_recursive / ABA",
                 "max rel. diff vs " + (results[0].get("reference") or "first"),
                 "first vs eval"], rows))
    rows = []
    for r in results:
        lg, sy = r["lagrange"], r["sympy"]
        rows.append([r["kind"], r["n"], fmt(lg.get("size", lg.get("status")), ","),
                     fmt(sy.get("size", sy.get("status")), ","),
                     fmt(lg.get("gen_cpu"), ".2f", "-"),
                     fmt(lg.get("cc_s"), ".2f", "-"), fmt(lg.get("cc_cpu"), ".2f", "-"),
                     fmt(lg.get("cc_mb"), ".0f", "-"),
                     fmt(sy.get("cc_s"), ".2f", "-"), fmt(sy.get("cc_cpu"), ".2f", "-"),
                     fmt(sy.get("cc_mb"), ".0f", "-")])
    print("\n### Generated C: size (bytes), lagrange codegen CPU time (s), gcc -O2 -c wall and CPU "
          "time (s) and peak memory (MB)\n")
    print(table(["system", "n", "lagrange C", "SymPy C", "codegen CPU s", "gcc wall s (lagrange)",
                 "gcc CPU s (lagrange)", "gcc MB (lagrange)", "gcc wall s (SymPy)", "gcc CPU s (SymPy)",
                 "gcc MB (SymPy)"], rows))


def main():
    ap = parser(__doc__, 600)
    ap.add_argument("--json", help="also write the raw results here")
    ap.add_argument("--only", help="comma-separated kind:n cases, e.g. chain:6,arm:3")
    ap.add_argument("--cc-timeout", type=float, default=120,
                    help="CPU seconds for gcc -O2 on one generated file (default 120)")
    ap.add_argument("--no-sympy", action="store_true",
                    help="lagrange and the ABA only (to rerun one side with other limits)")
    ap.add_argument("--from-json", help="only print the tables of saved results (FILE,FILE...)")
    a = setup(ap.parse_args())
    if a.from_json:
        results = []
        for path in a.from_json.split(","):
            with open(path) as f:
                results += json.load(f)
        print_tables(results)
        return
    todo = cases(a.quick)
    if a.only:
        todo = [(c.split(":")[0], int(c.split(":")[1])) for c in a.only.split(",")]
    results, gave_up = [], {"sympy"} if a.no_sympy else set()
    for i, (kind, n) in enumerate(todo):
        note(f"codegen: {kind} n = {n}")
        results.append(measure(a.binary, kind, n, a.timeout, a.cc_timeout, 1000 + i, gave_up,
                               0.005 if a.quick else 0.05))
        note("  " + json.dumps(results[-1], default=str))
        if a.json:  # after every case: a run stopped early keeps what it measured
            with open(a.json, "w") as f:
                json.dump(results, f, indent=1, default=str)
    print_tables(results)


if __name__ == "__main__":
    main()
