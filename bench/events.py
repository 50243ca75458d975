"""bench/events.py - issue 25's speed goal: a run with 100 impacts costs at
most 3x a smooth run of the same length, tolerance and output rows.

Three models, each simulated over 100 periods P = 2 sqrt(2 h0/g) of the
ball (h0 = 1, g = 9.81) with the same step (0.01: about 9,000 rows):
- bounce: the ball with restitution e = 1 (`when y < 0: y' = -e*y'`):
  100 impacts, each one root finding, two rows and a restart;
- oscillator: a smooth motion of the same period and amplitude
  (y'' = -(2 pi/P)^2 y): no event, the integrator's steps all smooth;
- fall: the ball's own equations without the `when` (a parabola: the
  integrator takes long steps), the same rows;
- fall+guard: the same with a `when` that never fires (y < -1e9): the
  cost of watching a guard, without any event.
For each, the summary's integration wall time (lg_simulate's: the steps,
the root finding, the rows through the callback and the CSV), its steps and
right-hand sides, and the whole process's CPU time (derivation and start
included), best of --repeat runs. Prints the ratios bounce/this. Usage: /usr/bin/python3 bench/events.py [build/lagrange]
[--repeat N] [--quick]."""
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

G, H0 = 9.81, 1.0
P = 2 * math.sqrt(2 * H0 / G)
W = 2 * math.pi / P

HEAD = "coordinates y\nparameters m = 1, g = 9.81, e = 1, w = %.17g\n" % W
MODELS = {
    "bounce": HEAD + "T = 1/2*m*y'^2\nV = m*g*y\ninitial y = 1\nwhen y < 0: y' = -e*y'\n",
    "oscillator": HEAD + "T = 1/2*m*y'^2\nV = 1/2*m*w^2*y^2\ninitial y = 1\n",
    "fall": HEAD + "T = 1/2*m*y'^2\nV = m*g*y\ninitial y = 1\n",
    "fall+guard": HEAD + "T = 1/2*m*y'^2\nV = m*g*y\ninitial y = 1\nwhen y < -1e9: stop\n",
}
SUMMARY = re.compile(r"(\d+) steps, (\d+) RHS evaluations, ([0-9.e+-]+) s wall")


def measure(binary, path, args, repeat, timeout):
    """Best of repeat: (integration wall, process CPU, steps, rhs, events)."""
    best = None
    for _ in range(repeat):
        r = common.run([binary, "simulate", path, *args], timeout, count_only=True)
        if not r.ok:
            return r.status
        m = SUMMARY.search(r.err)
        ev = re.search(r"(\d+) events?", r.err)
        row = (float(m.group(3)), r.cpu, int(m.group(1)), int(m.group(2)),
               int(ev.group(1)) if ev else 0)
        best = row if best is None else (min(best[0], row[0]), min(best[1], row[1])) + row[2:]
    return best


def main():
    ap = common.parser(__doc__, 120)
    ap.add_argument("--repeat", type=int, default=5)
    args = common.setup(ap.parse_args())
    periods = 10 if args.quick else 100
    tf = periods * P
    files = {}
    for name, text in MODELS.items():
        f = tempfile.NamedTemporaryFile("w", suffix=f"_{name}.lag", delete=False)
        f.write(text + "simulate 0 to %.17g step 0.01\n" % tf)
        f.close()
        files[name] = f.name
    settings = [("default", []), ("1e-10", ["--rtol", "1e-10", "--atol", "1e-12"]),
                ("dopri 1e-8", ["--integrator", "dopri", "--rtol", "1e-8", "--atol", "1e-10"]),
                ("bdf 1e-8", ["--integrator", "bdf", "--rtol", "1e-8", "--atol", "1e-10"])]
    print(f"{periods} periods of {P:.6f} s (t = 0 to {tf:.4f}, step 0.01), best of {args.repeat}")
    print("| tolerance | model | events | steps | RHS | integration wall (s) | process CPU (s) "
          "| wall ratio bounce/this | RHS ratio bounce/this |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    try:
        for label, extra in settings:
            res = {n: measure(args.binary, files[n], extra, args.repeat, args.timeout)
                   for n in MODELS}
            b = res["bounce"]
            for n in MODELS:
                r = res[n]
                if isinstance(r, str):
                    print(f"| {label} | {n} | {r} |")
                    continue
                ratio = b[0] / r[0] if not isinstance(b, str) and r[0] > 0 else None
                rhs = b[3] / r[3] if not isinstance(b, str) and r[3] > 0 else None
                print(f"| {label} | {n} | {r[4]} | {r[2]} | {r[3]} | {r[0]:.4f} | {r[1]:.3f} | "
                      f"{common.fmt(ratio, '.2f', '-')} | {common.fmt(rhs, '.2f', '-')} |")
    finally:
        for path in files.values():
            os.unlink(path)


if __name__ == "__main__":
    main()
