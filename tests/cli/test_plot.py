#!/usr/bin/env python3
"""`simulate --plot`: one panel per group, chosen variables, ground tracks.

PNG plots are decoded (tests/cli/pngread.py, no PIL): the picture has one
band per panel (coordinates, rates, energy error, constraint residuals,
the track seen from above) and each band holds drawn (coloured) lines.
SVG text names the panels; --plot-vars and --plot-xy refuse unknown names
(exit 2, naming the valid ones) and leave no file.

usage: test_plot.py LAGRANGE [SANITIZED_LAGRANGE]"""
import os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngread  # noqa: E402

BINS = [os.path.abspath(b) for b in sys.argv[1:]] or ["build/lagrange"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EX = os.path.join(ROOT, "examples")
CART = os.path.join(EX, "cart_pendulum.lag")
BOWL = os.path.join(EX, "particle_bowl.lag")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:800]))


def run(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True, timeout=300)
    if "Sanitizer" in r.stderr or "runtime error" in r.stderr:
        check(f"sanitizer-clean {args}", False, r.stderr)
    return r


def bands_drawn(path, k):
    """For each of k horizontal bands: how many coloured pixels it holds."""
    w, h, rows = pngread.read(path)
    out = []
    for b in range(k):
        lo, hi = b * h // k, (b + 1) * h // k
        out.append(sum(1 for y in range(lo, hi) for px in rows[y][:w * 4 // 5]
                       if pngread.colourful(px)))
    return w, h, out


def release(L):
    with tempfile.TemporaryDirectory() as d:
        png = os.path.join(d, "bowl.png")
        r = run(L, "simulate", BOWL, "--tf", "3", "--out", os.devnull, "--plot", png,
                "--plot-xy", "P")
        ok = r.returncode == 0 and os.path.exists(png)
        w, h, drawn = bands_drawn(png, 5) if ok else (0, 0, [])
        check("PNG of a constrained model: 5 panels (q, q', energy, |C|, track), each drawn",
              ok and w == 900 and h >= 5 * 250 and len(drawn) == 5 and min(drawn) > 200,
              (r.stderr, w, h, drawn))
        png2 = os.path.join(d, "cart.png")
        r = run(L, "simulate", CART, "--tf", "2", "--out", os.devnull, "--plot", png2)
        ok = r.returncode == 0 and os.path.exists(png2)
        w, h, drawn = bands_drawn(png2, 3) if ok else (0, 0, [])
        check("PNG of an unconstrained model: 3 panels, no residual panel, each drawn",
              ok and h < 4 * 250 and min(drawn or [0]) > 200, (r.stderr, h, drawn))


def each(L, tag):
    with tempfile.TemporaryDirectory() as d:
        svg = os.path.join(d, "p.svg")
        r = run(L, "simulate", BOWL, "--tf", "1", "--out", os.devnull, "--plot", svg)
        text = open(svg).read() if os.path.exists(svg) else ""
        check(f"{tag}: SVG panels coordinates, rates, energy error (relative), residuals",
              r.returncode == 0 and all(s in text for s in (
                  "coordinates", "rates", "energy error", "max(|E0|, |T|, |V|)",
                  "constraint residuals", "q2'")), r.stderr)
        r = run(L, "simulate", CART, "--tf", "1", "--out", os.devnull, "--plot", svg,
                "--plot-vars", "theta'")
        text = open(svg).read() if os.path.exists(svg) else ""
        check(f"{tag}: --plot-vars theta' draws only the rates panel with theta'",
              r.returncode == 0 and "rates" in text and "theta'" in text and
              ">coordinates<" not in text and "x'<" not in text, r.stderr)
        pdf = os.path.join(d, "p.pdf")
        r = run(L, "simulate", CART, "--tf", "1", "--out", os.devnull, "--plot", pdf,
                "--plot-vars", "x, theta", "--plot-xy", "P, C")
        check(f"{tag}: a PDF with --plot-vars and --plot-xy",
              r.returncode == 0 and open(pdf, "rb").read(5) == b"%PDF-", r.stderr)
        bad = os.path.join(d, "bad.svg")
        r = run(L, "simulate", CART, "--tf", "1", "--plot", bad, "--plot-vars", "x, thta")
        check(f"{tag}: an unknown --plot-vars name is exit 2 naming the variables, no file",
              r.returncode == 2 and "'thta'" in r.stderr and "theta'" in r.stderr and
              not os.path.exists(bad) and r.stdout == "", r.stderr)
        r = run(L, "simulate", CART, "--tf", "1", "--plot", bad, "--plot-xy", "Q")
        check(f"{tag}: an unknown --plot-xy point is exit 2 naming the points, no file",
              r.returncode == 2 and "'Q'" in r.stderr and "O C P" in r.stderr and
              not os.path.exists(bad), r.stderr)
        r = run(L, "simulate", CART, "--tf", "1", "--plot-vars", "x")
        check(f"{tag}: --plot-vars without --plot is exit 2", r.returncode == 2, r.stderr)
        for ext in ("txt", "gif", "svgz"):
            r = run(L, "simulate", CART, "--tf", "1", "--plot", os.path.join(d, "p." + ext))
            check(f"{tag}: --plot p.{ext} is exit 2", r.returncode == 2 and
                  not os.path.exists(os.path.join(d, "p." + ext)), r.stderr)


release(BINS[0])
for i, b in enumerate(BINS):
    each(b, "release" if i == 0 else "sanitized")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
