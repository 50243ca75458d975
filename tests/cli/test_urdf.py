"""URDF import and quaternion frames (MODEL-FORMAT 1.1, issue 26).

- examples/arm3.urdf gives the `eval --json` of the same robot written by
  hand (tests/cli/urdf/arm3.lag) to 1e-12, under both methods, at two states;
  `import "arm3.urdf"` in a model adds to it;
- hostile or wrong URDFs (malformed XML, entities, an unknown joint type, a
  missing parent, cycles, two roots ...) are each an error at line:col,
  never a crash;
- names per the contract (reserved or taken names get a trailing _ and a
  note), mimic joints as constraints, floating joints by quaternions;
- a free rigid body oriented by a quaternion moves as the same body
  oriented by Euler angles, keeping the unit norm.
Ends "N passed, N failed"."""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
ARM = os.path.join(ROOT, "examples", "arm3.urdf")
ARM_LAG = os.path.join(ROOT, "tests", "cli", "urdf", "arm3.lag")
passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL " + what + ("\n    " + str(detail) if detail else ""))


def run(*args, stdin=None):
    return subprocess.run([BIN] + list(args), capture_output=True, text=True, input=stdin,
                          cwd=ROOT, timeout=120)


def flat(x, path=""):
    if isinstance(x, dict):
        for k in sorted(x):
            yield from flat(x[k], path + "." + k)
    elif isinstance(x, list):
        for i, y in enumerate(x):
            yield from flat(y, path + "[%d]" % i)
    else:
        yield path, x


def same_json(a, b, tol):
    """The largest relative difference of the numbers, or a reason."""
    fa, fb = dict(flat(a)), dict(flat(b))
    if fa.keys() != fb.keys():
        return "keys differ: %s" % sorted(set(fa) ^ set(fb))
    worst = 0.0
    for k in fa:
        x, y = fa[k], fb[k]
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            worst = max(worst, abs(x - y) / max(1.0, abs(x), abs(y)))
        elif x != y:
            return "%s: %r vs %r" % (k, x, y)
    return worst if worst <= tol else "differ by %g" % worst


STATES = ["yaw=0.3,shoulder=0.5,elbow=-0.7,yaw'=0.2,shoulder'=-0.1,elbow'=0.4",
          "yaw=-1.1,shoulder=2.0,elbow=1.3,yaw'=-0.8,shoulder'=0.6,elbow'=-1.5"]

# ---- 1. the arm against the hand-written model ------------------------------------
for method in ("lagrange", "kane"):
    for st in STATES:
        a = run("eval", ARM, "--json", "--state", st, "--method", method)
        b = run("eval", ARM_LAG, "--json", "--state", st, "--method", method)
        ok = a.returncode == 0 and b.returncode == 0
        r = same_json(json.loads(a.stdout), json.loads(b.stdout), 1e-12) if ok else a.stderr + b.stderr
        check(ok and not isinstance(r, str), "arm3.urdf == arm3.lag (%s, %s)" % (method, st[:12]), r)

# every command takes a .urdf
for cmd in (["eom"], ["simulate", "--tf", "0.2"], ["linearize"], ["codegen"]):
    r = run(cmd[0], ARM, *cmd[1:])
    check(r.returncode == 0 and r.stdout, "lagrange %s arm3.urdf" % cmd[0], r.stderr[-400:])

# ---- 2. import ------------------------------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    os.symlink(ARM, os.path.join(tmp, "arm3.urdf"))
    imp = os.path.join(tmp, "with_spring.lag")
    with open(imp, "w") as f:
        f.write('# the arm with a spring on the elbow\nimport "arm3.urdf"\n'
                'parameters k = 3\nspring elbow: k, 0.2\ninitial shoulder = 0.4\n')
    hand = os.path.join(tmp, "hand.lag")
    with open(ARM_LAG) as f:
        text = f.read()
    with open(hand, "w") as f:
        f.write(text + "parameters k = 3\nspring elbow: k, 0.2\ninitial shoulder = 0.4\n")
    a, b = run("eval", imp, "--json"), run("eval", hand, "--json")
    ok = a.returncode == 0 and b.returncode == 0
    r = same_json(json.loads(a.stdout), json.loads(b.stdout), 1e-12) if ok else a.stderr + b.stderr
    check(ok and not isinstance(r, str), "import \"arm3.urdf\" then a spring", r)

    def model_error(name, text, want):
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            f.write(text)
        r = run("eval", p)
        m = re.search(r"([^\s:]+):(\d+):(\d+): ", r.stderr)
        got = (os.path.basename(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None
        check(r.returncode == 1 and got == want and "Sanitizer" not in r.stderr,
              "import error %s at %s" % (name, want), (got, r.stderr.strip()[:300]))

    model_error("after.lag", 'import "arm3.urdf"\nparameters k = 3\nspring elbow: kk, 0\n',
                ("after.lag", 3, 15))
    model_error("own_frame.lag", 'import "arm3.urdf"\n\n  frame N\n', ("own_frame.lag", 3, 3))
    model_error("gravity.lag", 'gravity -9.81*base.z\nimport "arm3.urdf"\n', ("gravity.lag", 1, 1))
    model_error("missing.lag", 'import "nothere.urdf"\n', ("missing.lag", 1, 8))
    model_error("twice.lag", 'import "arm3.urdf"\nimport "arm3.urdf"\n', ("twice.lag", 2, 1))
    model_error("notquoted.lag", 'import arm3.urdf\n', ("notquoted.lag", 1, 1))
    model_error("notxml.lag", 'import "after.lag"\n', ("notxml.lag", 1, 8))

    # ---- 3. hostile and wrong URDFs -----------------------------------------------------
    LINK = '<link name="%s"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>'

    def urdf_error(name, text, line, col, words):
        p = os.path.join(tmp, name + ".urdf")
        with open(p, "w") as f:
            f.write(text)
        r = run("eval", p)
        want = "%s.urdf:%d:%d: " % (name, line, col)
        check(r.returncode == 1 and want in r.stderr and words in r.stderr
              and "Sanitizer" not in r.stderr and "runtime error" not in r.stderr,
              "hostile URDF %s: error at %d:%d" % (name, line, col), r.stderr.strip()[:300])

    urdf_error("malformed", '<robot name="r">\n  <link name="a">\n</robot>\n', 4, 1, "malformed XML")
    urdf_error("empty", '', 1, 1, "")
    urdf_error("laughs", '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
               ' <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n]>\n'
               '<robot name="&lol2;"><link name="a"/></robot>\n', 2, 1, "document type")
    urdf_error("external", '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM '
               '"file:///etc/passwd">]>\n<robot name="r"><link name="&x;"/></robot>\n', 2, 1,
               "document type")
    urdf_error("undefined_entity", '<robot name="r">\n <link name="&x;"/>\n</robot>\n', 2, 17,
               "malformed XML")
    urdf_error("unknown_type", '<robot name="r">\n ' + LINK % "a" + LINK % "b" +
               '\n  <joint name="j" type="spherical"><parent link="a"/><child link="b"/></joint>\n'
               '</robot>\n', 3, 3, "unknown joint type 'spherical'")
    urdf_error("missing_parent", '<robot name="r">\n ' + LINK % "b" +
               '\n  <joint name="j" type="revolute">\n    <parent link="a"/>\n'
               '    <child link="b"/></joint>\n</robot>\n', 4, 5, "no link named 'a'")
    urdf_error("cycle", '<robot name="r">\n' + LINK % "a" + LINK % "b" + LINK % "c" + '\n'
               '<joint name="j1" type="revolute"><parent link="a"/><child link="b"/></joint>\n'
               '<joint name="j2" type="revolute"><parent link="b"/><child link="c"/></joint>\n'
               '<joint name="j3" type="revolute"><parent link="c"/><child link="a"/></joint>\n'
               '</robot>\n', 1, 1, "cycle")
    urdf_error("cycle2", '<robot name="r">\n' + LINK % "r" + LINK % "b" + LINK % "c" + '\n'
               '<joint name="j1" type="revolute"><parent link="b"/><child link="c"/></joint>\n'
               '<joint name="j2" type="revolute"><parent link="c"/><child link="b"/></joint>\n'
               '</robot>\n', 4, 1, "cycle")
    urdf_error("two_parents", '<robot name="r">\n' + LINK % "a" + LINK % "b" + LINK % "c" + '\n'
               '<joint name="j1" type="revolute"><parent link="a"/><child link="c"/></joint>\n'
               '<joint name="j2" type="revolute"><parent link="b"/><child link="c"/></joint>\n'
               '</robot>\n', 4, 1, "already the child")
    urdf_error("two_roots", '<robot name="r">\n' + LINK % "a" + '\n' + LINK % "b" + '\n</robot>\n',
               3, 1, "second root")
    urdf_error("not_robot", '<?xml version="1.0"?>\n<model/>\n', 2, 1, "<robot>")
    urdf_error("bad_number", '<robot name="r">\n' + LINK % "a" + LINK % "b" + '\n'
               '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>\n'
               '  <origin xyz="0 0 nan"/></joint>\n</robot>\n', 4, 3, "finite number")
    urdf_error("zero_axis", '<robot name="r">\n' + LINK % "a" + LINK % "b" + '\n'
               '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>\n'
               '  <axis xyz="0 0 0"/></joint>\n</robot>\n', 4, 3, "axis")
    urdf_error("deep", '<robot name="r">' + "<a>" * 5000 + "</a>" * 5000 + '</robot>\n', 1, 785,
               "malformed XML")

LINK1 = ('<link name="%s"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/>'
         '</inertial></link>\n')

# ---- 4. names, mimic, floating ----------------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    p = os.path.join(tmp, "names.urdf")
    with open(p, "w") as f:
        f.write('<robot name="r">\n<link name="frame"/>\n'
                '<link name="link-2"><inertial><mass value="1"/>'
                '<inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial></link>\n'
                '<link name="l3"><inertial><mass value="1"/>'
                '<inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial></link>\n'
                '<joint name="sin" type="revolute"><parent link="frame"/><child link="link-2"/>'
                '<axis xyz="0 1 0"/><dynamics damping="0.2" friction="0.1"/></joint>\n'
                '<joint name="j2" type="prismatic"><parent link="link-2"/><child link="l3"/>'
                '<origin xyz="0 0 -0.5" rpy="0.1 0 0"/><axis xyz="0 0 2"/>'
                '<mimic joint="sin" multiplier="0.5" offset="0"/></joint>\n</robot>\n')
    r = run("eval", p, "--json")
    ok = r.returncode == 0
    j = json.loads(r.stdout) if ok else {}
    check(ok and j.get("coordinates") == ["sin_", "j2"] and j.get("multipliers") == ["lam1"],
          "reserved names get a _, mimic is a constraint", r.stdout[:200] + r.stderr)
    check("names.urdf:2:1: note: the link 'frame' is called 'frame_'" in r.stderr and
          "names.urdf:5:1: note: the joint 'sin' is called 'sin_'" in r.stderr,
          "notes at the URDF's line:col", r.stderr)
    r = run("simulate", p, "--tf", "1")
    check(r.returncode == 0 and "constraint residual" in r.stderr and "friction" in r.stderr,
          "simulate names.urdf (its joint friction modelled, with the mimic constraint)", r.stderr)

    # <dynamics friction="F">: Coulomb friction on the joint. A rotor spun about the
    # vertical (gravity along the axis, no torque) at w0 slows at F/I and stops at
    # t* = I w0 / F after I w0^2 / (2 F), then sticks.
    with open(os.path.join(tmp, "spin.urdf"), "w") as f:
        f.write('<robot name="spin"><link name="base"/><link name="rotor"><inertial><mass value="1"/>'
                '<inertia ixx="0.1" iyy="0.1" izz="0.2"/></inertial></link>'
                '<joint name="j" type="continuous"><parent link="base"/><child link="rotor"/>'
                '<axis xyz="0 0 1"/><dynamics friction="0.1"/></joint></robot>\n')
    spin = os.path.join(tmp, "spin.lag")
    with open(spin, "w") as f:
        f.write('import "spin.urdf"\ninitial j\' = 2\nsimulate 0 to 5 step 0.01\n')
    r = run("simulate", spin)
    rows = [list(map(float, ln.split(","))) for ln in r.stdout.strip().splitlines()[1:]] if not r.returncode else []
    I, F, w0 = 0.2, 0.1, 2.0
    ts = I * w0 / F
    worst = max((abs(row[1] - (w0 * min(row[0], ts) - F / I * min(row[0], ts) ** 2 / 2)) for row in rows),
                default=1.0)
    check(rows and worst < 1e-8 and abs(rows[-1][2]) < 1e-12 and "1 friction switch" in r.stderr,
          f"URDF joint friction: the spun rotor slows at F/I and sticks at t* = I w0/F ({worst:.1e})",
          r.stderr)

    p = os.path.join(tmp, "mimic.urdf")
    with open(p, "w") as f:
        f.write('<robot name="r">\n<link name="a"/>\n' + LINK1 % "b" + LINK1 % "c" +
                '<joint name="j1" type="revolute"><parent link="a"/><child link="b"/></joint>\n'
                '<joint name="j2" type="revolute"><parent link="b"/><child link="c"/>\n'
                '  <mimic joint="j1" multiplier="2" offset="0.1"/></joint>\n</robot>\n')
    r = run("simulate", p, "--tf", "0.1")
    check(r.returncode == 1 and "mimic.urdf:7:3: the initial state violates constraint C1" in r.stderr,
          "an error found after loading names the URDF's line:col", r.stderr)

    p = os.path.join(tmp, "visual.urdf")
    with open(p, "w") as f:
        f.write('<robot name="v">\n<link name="a"/>\n<link name="b"><inertial><mass value="1"/>'
                '<inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial>\n'
                '<visual><origin xyz="0 0 0.5" rpy="1.5707963267948966 0 0"/>'
                '<geometry><box size="0.1 0.2 0.3"/></geometry></visual>\n'
                '<visual><geometry><mesh filename="b.stl"/></geometry></visual>\n'
                '<visual><origin xyz="0.1 0 0"/><geometry><sphere radius="0.05"/></geometry>'
                '</visual></link>\n'
                '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
                '<axis xyz="0 1 0"/></joint>\n</robot>\n')
    html = os.path.join(tmp, "visual.html")
    r = run("animate", p, "--tf", "0.1", "--out", html)
    text = open(html).read() if r.returncode == 0 else ""
    m = re.search(r'id="lg-data">\n(.*?)\n</script>', text, re.S)
    shapes = json.loads(m.group(1))["shapes"] if m else []
    want = [("box", [0.1, 0.2, 0.3], [0, 0.5, 0]), ("sphere", [0.05, 0, 0], [0.1, 0, 0])]
    got = [(x["kind"], x["size"], [round(v, 12) for v in x["at"]]) for x in shapes]
    check(got == want, "visuals: a turned box in a frame of its own, its offset along its axes; "
          "a sphere at its origin", (got, r.stderr[-300:]))
    check("visual.urdf:5:19: note: a <visual> of link 'b' is a mesh: not drawn (cannot open" in r.stderr,
          "a missing mesh is left out with a note at the <mesh> line:col", r.stderr)

    p = os.path.join(tmp, "floating.urdf")
    with open(p, "w") as f:
        f.write('<robot name="f">\n<link name="world"/>\n'
                '<link name="box"><inertial><origin xyz="0.1 0 0" rpy="0.2 0.3 0.4"/>'
                '<mass value="2"/><inertia ixx="0.1" ixy="0.01" iyy="0.2" izz="0.3"/>'
                '</inertial></link>\n'
                '<joint name="free" type="floating"><parent link="world"/><child link="box"/>'
                '</joint>\n</robot>\n')
    r = run("simulate", p, "--tf", "2", "--dt", "0.5", "--set", "g=0",
            "--state", "free_e1'=0.3,free_e2'=0.2,free_x'=1")
    rows = list(csv.DictReader(io.StringIO(r.stdout))) if r.returncode == 0 else []
    ok = len(rows) == 5
    norm = max(abs(sum(float(w["free_e%d" % i]) ** 2 for i in range(4)) - 1) for w in rows) if ok else 1
    drift = max(abs(float(w["E"]) - float(rows[0]["E"])) for w in rows) if ok else 1
    check(ok and norm < 1e-8 and drift < 1e-7, "floating joint: unit norm kept, energy conserved",
          (norm, drift, r.stderr[-300:]))

# ---- 5. quaternion frames against Euler angles -------------------------------------------
BODY = ("parameters Ixx = 1, Iyy = 2, Izz = 3.5, Ixy = 0.1\nframe N\n%s\npoint O\n"
        "body B mass 1 at O inertia (Ixx, Iyy, Izz, Ixy, 0, 0)\n"
        "%s\nsimulate 0 to 3 step 0.25\n")
QUAT = BODY % ("coordinates e0 e1 e2 e3\nframe B = quaternion(N, e0, e1, e2, e3)",
               "initial e0 = 1, e1' = 0.3, e2' = 0.5, e3' = -0.2")
EULER = BODY % ("coordinates a b c\nframe B = body_fixed(N, xyz, a, b, c)",
                "initial a' = 0.6, b' = 1, c' = -0.4")
with tempfile.TemporaryDirectory() as tmp:
    out = {}
    for name, text in (("quat", QUAT), ("euler", EULER)):
        p = os.path.join(tmp, name + ".lag")
        with open(p, "w") as f:
            f.write(text)
        r = run("simulate", p, "--rtol", "1e-11", "--atol", "1e-12")
        out[name] = list(csv.DictReader(io.StringIO(r.stdout))) if r.returncode == 0 else r.stderr
    ok = all(isinstance(v, list) and len(v) == 13 for v in out.values())
    worst = 0.0

    def quat_matrix(w):
        e0, e1, e2, e3 = (float(w["e%d" % i]) for i in range(4))
        return [[e0*e0 + e1*e1 - e2*e2 - e3*e3, 2*(e1*e2 - e0*e3), 2*(e1*e3 + e0*e2)],
                [2*(e1*e2 + e0*e3), e0*e0 - e1*e1 + e2*e2 - e3*e3, 2*(e2*e3 - e0*e1)],
                [2*(e1*e3 - e0*e2), 2*(e2*e3 + e0*e1), e0*e0 - e1*e1 - e2*e2 + e3*e3]]

    def euler_matrix(w):  # body_fixed xyz: Rx(a) Ry(b) Rz(c)
        import math
        a, b, c = (float(w[k]) for k in "abc")
        def mul(X, Y):
            return [[sum(X[i][k] * Y[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
        Rx = [[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]]
        Ry = [[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]]
        Rz = [[math.cos(c), -math.sin(c), 0], [math.sin(c), math.cos(c), 0], [0, 0, 1]]
        return mul(mul(Rx, Ry), Rz)

    if ok:
        for a, b in zip(out["quat"], out["euler"]):
            A, B = quat_matrix(a), euler_matrix(b)
            worst = max([worst, abs(float(a["T"]) - float(b["T"]))] +
                        [abs(A[i][j] - B[i][j]) for i in range(3) for j in range(3)])
    check(ok and worst < 1e-7, "quaternion body == Euler-angle body (orientation, T)", (worst, out if not ok else ""))
    if ok:
        norm = max(abs(sum(float(w["e%d" % i]) ** 2 for i in range(4)) - 1) for w in out["quat"])
        check(norm < 1e-9, "quaternion unit norm kept", norm)
    p = os.path.join(tmp, "quat.lag")
    a, b = run("eval", p, "--json"), run("eval", p, "--json", "--method", "kane")
    ok = a.returncode == 0 and b.returncode == 0
    check(ok and json.loads(a.stdout)["multipliers"] == ["lam1"] and
          max(abs(x - y) for x, y in zip(json.loads(a.stdout)["qdd"], json.loads(b.stdout)["qdd"])) < 1e-12,
          "quaternion under Lagrange's and Kane's methods", a.stderr + b.stderr)
    p = os.path.join(tmp, "bad.lag")
    with open(p, "w") as f:
        f.write("coordinates a\nframe N\nframe B = quaternion(N, a, a)\n")
    r = run("eval", p)
    check(r.returncode == 1 and "bad.lag:3:11:" in r.stderr, "quaternion() takes five arguments",
          r.stderr)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
