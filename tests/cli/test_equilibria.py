#!/usr/bin/env python3
"""`lagrange equilibria`: a singular mass matrix is an error that names the
coordinate (as `eval` does), and equilibria that are not isolated are one
family each, found from the rank of the conditions' Jacobian.

- A coordinate without inertia: exit 1, `file:line:col:`, the message names
  the coordinate where the elimination breaks down, nothing on stdout.
- Particles on a line joined by springs of rest length d, no anchor: every
  translate of x_i = (i - 1) d is an equilibrium. One entry, a family of
  dimension 1 along (1, ..., 1), represented at x1 = 0, in text and JSON;
  the 40-link chain too (it listed 1,000 points in 44 s; run under a
  memory cap and a generous time limit, no time asserted). With an anchor
  the one equilibrium is isolated (no `family`).
- The bottom of V = x^4 is isolated though its Jacobian vanishes.
- A translation family and a pendulum's isolated angles: two families.
- Curved families: a circular trough, a four-bar linkage without gravity:
  every entry is a family of dimension 1, a few entries, not hundreds.
- free_body_zxy (no potential) and rolling_sphere: one family each.

usage: test_equilibria.py LAGRANGE [LAGRANGE_SANITIZED]"""
import json, os, resource, subprocess, sys, tempfile

BIN = sys.argv[1]
SAN = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:600]))


def capped():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run(binary, *args, timeout=300):
    try:
        return subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout,
                              preexec_fn=capped if binary == BIN else None)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, -1, "", f"timed out after {timeout} s")


def equilibria(binary, path, *extra, timeout=300):
    r = run(binary, "equilibria", path, "--json", *extra, timeout=timeout)
    try:
        return r, json.loads(r.stdout)
    except ValueError:
        return r, {"equilibria": []}


def spring_chain(n, anchor=False, d=0.2):
    xs = [f"x{i}" for i in range(1, n + 1)]
    lines = ["coordinates " + " ".join(xs), f"parameters m = 1, k = 10, d = {d}",
             "frame N", "point O"]
    for i, x in enumerate(xs, 1):
        lines += [f"point P{i} = O + {x}*N.x", f"particle P{i} mass m"]
    terms = [f"1/2*k*(x{i + 1} - x{i} - d)^2" for i in range(1, n)]
    if anchor:
        terms.append("1/2*k*x1^2")
    return "\n".join(lines + ["V = " + " + ".join(terms)]) + "\n"


MODELS = {
    "singular.lag": "coordinates x y\nparameters m = 1, k = 2\nT = 1/2*m*x'^2\n"
                    "V = 1/2*k*x^2 + 1/2*k*(y - 1)^2\n",
    "chain3.lag": spring_chain(3),
    "chain40.lag": spring_chain(40),
    "anchored3.lag": spring_chain(3, anchor=True),
    "quartic.lag": "coordinates x\nparameters m = 1, k = 2\nT = 1/2*m*x'^2\nV = k*x^4\n",
    # two masses on a spring (a translation family) and a pendulum from the first
    "spring_pendulum.lag": "coordinates x1 x2 theta\n"
                           "parameters m = 1, k = 10, d = 0.5, l = 0.4, g = 9.81\n"
                           "frame N\nframe A = rotate(N, N.z, theta)\npoint O\n"
                           "point P1 = O + x1*N.x\npoint P2 = O + x2*N.x\n"
                           "point B = P1 - l*A.y\nparticle P1 mass m\nparticle P2 mass m\n"
                           "particle B mass m\ngravity -g*N.y\nV = 1/2*k*(x2 - x1 - d)^2\n",
    "trough.lag": "coordinates x y\nparameters m = 1, k = 3\nT = 1/2*m*(x'^2 + y'^2)\n"
                  "V = 1/2*k*(x^2 + y^2 - 1)^2\n",
    "fourbar.lag": "coordinates q1 q2 q3\nparameters l1 = 1, l2 = 2, l3 = 1.5, d = 2, m = 1\n"
                   "frame N\nframe A = rotate(N, N.z, q1)\nframe B = rotate(N, N.z, q2)\n"
                   "frame C = rotate(N, N.z, q3)\npoint O\npoint P1 = O + l1*A.x\n"
                   "point P2 = P1 + l2*B.x\npoint P3 = P2 - l3*C.x\nparticle P1 mass m\n"
                   "particle P2 mass m\nconstraint dot(pos(P3), N.x) - d\n"
                   "constraint dot(pos(P3), N.y)\n",
}

with tempfile.TemporaryDirectory() as tmp:
    path = {}
    for name, text in MODELS.items():
        path[name] = os.path.join(tmp, name)
        with open(path[name], "w") as f:
            f.write(text)

    # ---- a singular mass matrix: an error naming the coordinate, as eval's ----------
    for binary in (BIN, SAN):
        r = run(binary, "equilibria", path["singular.lag"])
        ev = run(binary, "eval", path["singular.lag"], "--state", "x=0.1")
        check("singular mass matrix: exit 1, as eval", r.returncode == 1 and ev.returncode == 1,
              (r.returncode, r.stdout, r.stderr))
        check("singular mass matrix: file:line:col, 'singular', names coordinate y",
              r.stderr.startswith(path["singular.lag"] + ":1:1: ") and "singular" in r.stderr and
              "coordinate y" in r.stderr and "coordinate y" in ev.stderr, r.stderr)
        check("singular mass matrix: nothing on stdout", r.stdout == "", r.stdout)
        r = run(binary, "equilibria", path["singular.lag"], "--json")
        check("singular mass matrix, --json: exit 1, no JSON", r.returncode == 1 and r.stdout == "",
              r.stdout)

    # ---- the free spring chain: one family of dimension 1 ---------------------------
    r, d = equilibria(SAN, path["chain3.lag"])
    eqs = d["equilibria"]
    check("free chain (3): exit 0, one entry", r.returncode == 0 and len(eqs) == 1, r.stderr or eqs)
    if eqs:
        e = eqs[0]
        fam = e.get("family", {})
        check("free chain (3): a family of dimension 1 along (1, 1, 1)",
              fam.get("dimension") == 1 and fam.get("directions") == [{"x1": 1, "x2": 1, "x3": 1}],
              fam)
        check("free chain (3): represented at x1 = 0, springs at rest length",
              abs(e["q"][0]) < 1e-9 and all(abs(b - a - 0.2) < 1e-9 for a, b in
                                             zip(e["q"], e["q"][1:])), e["q"])
        check("free chain (3): marginal", e["stability"] == "marginal", e["stability"])
    r = run(SAN, "equilibria", path["chain3.lag"])
    check("free chain (3), text: the family line",
          r.returncode == 0 and r.stdout.count("a family of equilibria of dimension 1 through "
                                               "this point, along (x1 = 1, x2 = 1, x3 = 1)") == 1,
          r.stdout)

    r, d = equilibria(BIN, path["chain40.lag"], timeout=600)
    eqs = d["equilibria"]
    check("free chain (40): exit 0 (within the memory cap), one entry",
          r.returncode == 0 and len(eqs) == 1, r.stderr[-300:] or len(eqs))
    if eqs:
        fam = eqs[0].get("family", {})
        check("free chain (40): a family of dimension 1 along every coordinate",
              fam.get("dimension") == 1 and
              fam.get("directions") == [{f"x{i}": 1 for i in range(1, 41)}], fam)
        q = eqs[0]["q"]
        check("free chain (40): x_i = (i - 1) d", all(abs(x - 0.2 * i) < 1e-8 for i, x in
                                                      enumerate(q)), q[:5])

    r, d = equilibria(SAN, path["anchored3.lag"])
    eqs = d["equilibria"]
    check("anchored chain: one isolated equilibrium, no family",
          r.returncode == 0 and len(eqs) == 1 and "family" not in eqs[0] and
          all(abs(x - 0.2 * i) < 1e-8 for i, x in enumerate(eqs[0]["q"])), eqs)

    r, d = equilibria(SAN, path["quartic.lag"])
    eqs = d["equilibria"]
    check("V = k x^4: the degenerate bottom is isolated (no family)",
          r.returncode == 0 and len(eqs) == 1 and "family" not in eqs[0] and
          abs(eqs[0]["q"][0]) < 1e-3, eqs)

    r, d = equilibria(SAN, path["spring_pendulum.lag"])
    eqs = d["equilibria"]
    thetas = sorted(round(abs(e["q"][2]), 9) for e in eqs)
    check("spring + pendulum: two families (theta = 0 and pi), each along x1 + x2",
          r.returncode == 0 and len(eqs) == 2 and thetas == [0, round(3.141592653589793, 9)] and
          all(e.get("family", {}).get("directions") == [{"x1": 1, "x2": 1}] for e in eqs), eqs)
    check("spring + pendulum: represented at x1 = 0, x2 = d",
          all(abs(e["q"][0]) < 1e-9 and abs(e["q"][1] - 0.5) < 1e-9 for e in eqs), eqs)

    for name, most in (("trough.lag", 4), ("fourbar.lag", 4)):
        r, d = equilibria(SAN, path[name])
        fams = [e for e in d["equilibria"] if "family" in e]
        check(f"{name}: a curved family, listed a few times at most (not hundreds)",
              r.returncode == 0 and 1 <= len(fams) <= most and
              all(e["family"]["dimension"] == 1 for e in fams), (r.stderr, len(fams)))

    # ---- examples with families --------------------------------------------------------
    for name, dim, dirs in (("free_body_zxy", 2, [{"theta": 1}, {"phi": 1}]),
                            ("rolling_sphere", 3, [{"psi": 1}, {"theta": 1}, {"phi": 1}])):
        r, d = equilibria(SAN, os.path.join(ROOT, "examples", name + ".lag"))
        eqs = d["equilibria"]
        check(f"{name}: one family of dimension {dim} at the origin",
              r.returncode == 0 and len(eqs) == 1 and eqs[0].get("family", {}).get("dimension") == dim
              and eqs[0]["family"]["directions"] == dirs and
              all(abs(x) < 1e-9 for x in eqs[0]["q"][:3]), eqs)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
