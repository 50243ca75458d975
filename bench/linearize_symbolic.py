#!/usr/bin/env python3
"""`lagrange linearize --symbolic` of every shipped example (whole process:
parse, derive, the numeric linearization that picks the dependent
variables, the symbolic A and B, printing with named shared
subexpressions), under both methods, in text and JSON: wall and CPU
seconds, peak memory and bytes printed. Goal (issue 21): under a second
and 1 MB each.

usage: bench/linearize_symbolic.py [LAGRANGE] [--timeout S] [--mem-limit-mb MB]"""
import glob, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, fmt, note, parser, run, setup, table  # noqa: E402


def main():
    a = setup(parser(__doc__, 60).parse_args())
    rows = []
    for model in sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag"))):
        for method in ("lagrange", "kane"):
            row = [os.path.basename(model), method]
            for form in ("text", "json"):
                note(f"linearize --symbolic: {os.path.basename(model)} --method {method} {form}")
                r = run([a.binary, "linearize", model, "--method", method, "--symbolic",
                         "--format", form], a.timeout, count_only=True)
                if r.ok:
                    row += [fmt(r.wall, ".3f"), fmt(r.cpu, ".3f"), fmt(r.rss_mb, ",.0f"),
                            fmt(r.nbytes, ",")]
                else:  # refused (Kane's own speeds), or what went wrong
                    why = r.status if r.rc != 2 else "refused (exit 2)"
                    row += [why, "", "", ""]
            rows.append(row)
    print(table(["example", "method", "text wall s", "CPU s", "MB", "bytes", "json wall s",
                 "CPU s", "MB", "bytes"], rows))


if __name__ == "__main__":
    main()
