#!/usr/bin/env python3
"""bench/eom.py - deriving and printing the equations: `lagrange eom` as a
whole process (wall and CPU time, peak RSS, bytes printed) on the planar
chain in absolute and relative angles, both methods, beside SymPy's
KanesMethod forming the same system's mass matrix and forcing (CPU time
in the Python process, imports excluded); the growth
exponent between successive sizes; and `eom` of every shipped example.

usage: bench/eom.py [LAGRANGE] [--quick] [--timeout S] [--no-examples] [--only kind:n,...]
                   [--sympy-max-n N]
(full: the chain at n = 40, 80, 160, the relative-angle chain at 12, 24, 40;
--quick: n = 3 and 5, no examples)"""
import glob, json, math, os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import setup, HERE, PY, ROOT, fmt, gives_up, note, parser, ratio, run, table  # noqa: E402
from models import lag_model  # noqa: E402

SYMPY_WORKER = """
import sys, time
sys.path.insert(0, %r)
from models import sympy_kane
t0 = time.process_time()
km, q, u, ps = sympy_kane(%r, %d)
km.mass_matrix, km.forcing
print(time.process_time() - t0)
"""


def eom_run(binary, model, method, timeout):
    r = run([binary, "eom", model, "--method", method], timeout, count_only=True)
    if not r.ok:
        return {"status": r.status}
    return {"wall": r.wall, "cpu": r.cpu, "rss_mb": r.rss_mb, "bytes": r.nbytes}


def sympy_run(kind, n, timeout):
    r = run([PY, "-c", SYMPY_WORKER % (HERE, kind, n)], timeout)
    return {"wall": float(r.out.split()[-1])} if r.ok else {"status": r.status}


def growth(prev, cur, key, n0, n1):
    if not prev or key not in prev or key not in cur:
        return ""
    return f"n^{math.log(cur[key] / prev[key]) / math.log(n1 / n0):.1f}"


def chains(binary, todo, timeout, sympy_max_n):
    rows, gave_up = [], set()
    for kind in ("chain", "chain_rel"):
        prev = {}
        for n in [n for k, n in todo if k == kind]:
            with tempfile.TemporaryDirectory() as tmp:
                model = os.path.join(tmp, "model.lag")
                with open(model, "w") as f:
                    f.write(lag_model(kind, n))
                res = {}
                for method in ("lagrange", "kane"):
                    note(f"eom: {kind} n = {n} --method {method}")
                    key = (kind, method)
                    res[method] = ({"status": "not run (gave up at a smaller n)"} if key in gave_up
                                   else eom_run(binary, model, method, timeout))
                    if gives_up(res[method].get("status")):
                        gave_up.add(key)
                note(f"eom: {kind} n = {n} SymPy KanesMethod")
                if n > sympy_max_n:
                    res["sympy"] = {"status": "not run"}
                elif (kind, "sympy") in gave_up:
                    res["sympy"] = {"status": "not run (gave up at a smaller n)"}
                else:
                    res["sympy"] = sympy_run(kind, n, timeout)
                if gives_up(res["sympy"].get("status")):
                    gave_up.add((kind, "sympy"))
            lg, kn, sy = res["lagrange"], res["kane"], res["sympy"]
            p = prev.get("lagrange")
            rows.append([kind, n, fmt(lg.get("wall", lg.get("status")), ".3f"),
                         fmt(lg.get("cpu"), ".3f", ""),
                         fmt(lg.get("rss_mb"), ",.0f", ""), fmt(lg.get("bytes"), ",", ""),
                         " / ".join(x for x in (growth(p, lg, "cpu", prev.get("n"), n),
                                              growth(p, lg, "rss_mb", prev.get("n"), n),
                                              growth(p, lg, "bytes", prev.get("n"), n)) if x),
                         fmt(kn.get("wall", kn.get("status")), ".3f"), fmt(kn.get("cpu"), ".3f", ""),
                         fmt(kn.get("rss_mb"), ",.0f", ""), fmt(kn.get("bytes"), ",", ""),
                         fmt(sy.get("wall", sy.get("status")), ".2f"),
                         ratio(sy.get("wall"), kn.get("cpu"), ".0f")])
            prev = {"n": n, "lagrange": lg}
    print("### `lagrange eom` on the chain (whole process)\n")
    print(table(["system", "n", "eom wall s", "eom CPU s", "eom MB", "eom bytes printed",
                 "growth CPU / MB / bytes", "eom --method kane wall s", "kane CPU s", "kane MB", "kane bytes", "SymPy KanesMethod CPU s",
                 "SymPy / kane (CPU)"], rows))


def examples(binary, timeout):
    rows = []
    for model in sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag"))):
        row = [os.path.basename(model)]
        for method in ("lagrange", "kane"):
            note(f"eom: {os.path.basename(model)} --method {method}")
            r = eom_run(binary, model, method, timeout)
            row += [fmt(r.get("wall", r.get("status")), ".3f"), fmt(r.get("cpu"), ".3f", ""),
                    fmt(r.get("rss_mb"), ",.0f", ""),
                    fmt(r.get("bytes"), ",", "")]
        rows.append(row)
    print("\n### `lagrange eom` of every example (goal: under 0.1 s and 1 MB each)\n")
    print(table(["example", "eom wall s", "CPU s", "MB", "bytes", "kane wall s", "kane CPU s",
                 "kane MB", "kane bytes"], rows))


def main():
    ap = parser(__doc__, 300)
    ap.add_argument("--no-examples", action="store_true")
    ap.add_argument("--only", help="comma-separated kind:n chain cases, e.g. chain:40,chain_rel:12")
    ap.add_argument("--sympy-max-n", type=int, default=40,
                    help="run SymPy's KanesMethod up to this n (default 40)")
    a = setup(ap.parse_args())
    if a.only:
        todo = [(c.split(":")[0], int(c.split(":")[1])) for c in a.only.split(",")]
    elif a.quick:
        todo = [(k, n) for k in ("chain", "chain_rel") for n in (3, 5)]
    else:  # the relative-angle chain cannot reach 80 today: show where it stops
        todo = [("chain", n) for n in (40, 80, 160)] + [("chain_rel", n) for n in (12, 24, 40)]
    chains(a.binary, todo, a.timeout, a.sympy_max_n)
    if not a.no_examples and not a.quick:
        examples(a.binary, a.timeout)


if __name__ == "__main__":
    main()
