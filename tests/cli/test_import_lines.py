"""file:line:col of the USER's file in a model that imports a URDF.

`import "arm2.urdf"` is expanded into model text before the model's own
statements, so the library parses a longer text than the user wrote. Every
error must still name the user's file and line (MODEL-FORMAT 1.1, CLI.md):
here each kind of error is written at a known line of a model that imports
a small URDF (written into a temp dir), and of a model without import
(the same two coordinates written by hand); the position expected is
computed from where the test put the statement (its line in the text, its
column found in the statement), never taken from the tool. Kinds: events
(`when`) and `friction` at load and at run time (a reset that moves the
coordinates off a constraint, a friction level < 0 with `--set`, Fs < F,
friction under Kane's method with speeds), outputs, initial values, the
start violating a constraint or a contact, draw, simulate options,
forces, springs, dampers, constraints (q'' in one, nonlinear in the
velocities), Kane's errors (speeds, kinematics), a parameter without a
value (simulate, eval, linearize, equilibria), lines named inside a
message ("(line N)", "'(' at L:C"), the end of the file, and the URDF's
own errors (still at the .urdf's line). Python's load and simulate give
the command's positions.

Usage: python3 tests/cli/test_import_lines.py [build/lagrange]
Ends "N passed, N failed"."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy  # noqa: F401  (the Python package needs it; Debian's python3 has it)
except ImportError:
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path.insert(0, os.path.join(ROOT, "python"))
import lagrange  # noqa: E402
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange"))
_tally = [0, 0]


def check(ok, what):
    _tally[0 if ok else 1] += 1
    if not ok:
        print("FAIL " + what)
    return ok


URDF = """<?xml version="1.0"?>
<robot name="arm2">
  <link name="base"/>
  <link name="upper">
    <inertial><origin xyz="0.25 0 0"/><mass value="2"/>
      <inertia ixx="0.01" iyy="0.05" izz="0.05" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="fore">
    <inertial><origin xyz="0.2 0 0"/><mass value="1"/>
      <inertia ixx="0.005" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/>
  </joint>
  <joint name="elbow" type="revolute">
    <parent link="upper"/><child link="fore"/>
    <origin xyz="0.5 0 0"/>
    <axis xyz="0 1 0"/>
  </joint>
</robot>
"""

# the two heads: the statements under test follow either
IMPORT = ['import "arm2.urdf"']
PLAIN = ["coordinates shoulder elbow",
         "parameters g = 9.81",
         "frame N",
         "point O",
         "point P = O + cos(shoulder)*N.x + sin(shoulder)*N.y",
         "point Q = P + cos(shoulder + elbow)*N.x + sin(shoulder + elbow)*N.y",
         "particle P mass 1",
         "particle Q mass 1",
         "gravity -g*N.y"]
HEADS = (("import", IMPORT), ("plain", PLAIN))

TMP = tempfile.mkdtemp()


def write(name, text):
    with open(os.path.join(TMP, name), "w") as f:
        f.write(text)


def run(*args):
    """The command in the temp dir, on model.lag (relative: messages start 'model.lag:')."""
    r = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=TMP, timeout=300)
    check(not any(w in r.stderr for w in ("Sanitizer", "runtime error")),
          f"{' '.join(args)}: a sanitizer report: {r.stderr[:2000]}")
    return r


def first_error(stderr):
    """The first stderr line that is a diagnostic of the model (not a run's notes)."""
    for line in stderr.splitlines():
        if line.startswith("model.lag:") and not line.startswith("model.lag: "):
            return line
        if line.startswith(("arm2.urdf:", "bad.urdf:", "lagrange")):
            return line
    return ""


# (name, command and options, body lines, index of the bad line, the text whose first
#  character is the column (None: column 1), fragment of the message;
#  a fragment may use {L0}, {L1} ...: the line of body[0], body[1] ...)
CASES = [
    # load time: events and friction
    ("when q''", ["eom"], ["when shoulder < -1: shoulder' = -2*elbow''"], 0, "elbow''",
     "acceleration elbow''"),
    ("when unknown", ["eom"], ["when nosuch < 1: stop"], 0, "nosuch", "unknown name 'nosuch'"),
    ("friction unknown", ["eom"], ["friction nosuch: 0.1"], 0, "nosuch",
     "unknown name 'nosuch'"),
    ("friction twice", ["eom"], ["friction elbow: 0.1", "friction elbow: 0.2"], 1, "elbow",
     "'elbow' already has friction (line {L0})"),
    # other statements
    ("output unknown", ["eom"], ["output h = shoulder + nosuch"], 0, "nosuch",
     "unknown name 'nosuch'"),
    ("initial unknown", ["eom"], ["initial nosuch = 1"], 0, "nosuch", "unknown name 'nosuch'"),
    ("draw unknown", ["eom"], ["draw nosuch"], 0, "nosuch", "unknown drawing 'nosuch'"),
    ("force unknown", ["eom"], ["force elbow: nosuch"], 0, "nosuch", "unknown name 'nosuch'"),
    ("spring unknown", ["eom"], ["spring shoulder: nosuch, 0"], 0, "nosuch",
     "unknown name 'nosuch'"),
    ("damper unknown", ["eom"], ["damper elbow: nosuch"], 0, "nosuch", "unknown name 'nosuch'"),
    ("constraint q''", ["eom"], ["constraint shoulder'' - elbow"], 0, "shoulder''",
     "acceleration shoulder''"),
    ("constraint nonlinear", ["eom"], ["constraint shoulder'^2 - elbow'"], 0, "shoulder'^2",
     "not linear in the velocities"),
    ("paren over lines", ["eom"], ["output h = (shoulder +", "  elbow", "output k = 1"], 2, None,
     "')' to close '(' at {L0}:12"),
    ("simulate step 0", ["simulate"], ["simulate 0 to 1 step 0"], 0, None,
     "simulate needs start < end and a positive step"),
    ("parameter from one without a value", ["eval"],
     ["parameters k, c = 2*k", "D = 1/2*c*shoulder'^2"], 0, "c = 2*k",
     "parameter 'c' has no value"),
    # Kane's method
    ("kane speeds", ["eom", "--method", "kane"], ["speeds u1"], 0, "u1",
     "one speed per coordinate"),
    ("kane kinematics", ["eom", "--method", "kane"],
     ["speeds u1 u2", "kinematics u1 = shoulder'"], 1, "u1",
     "one kinematical equation per speed"),
    ("kane dependent count", ["eom", "--method", "kane"],
     ["speeds u1 u2", "constraint u1 - u2", "dependent u2, u1"], 2, "u2",
     "2 dependent speeds declared, but the constraints have 1 row"),
    ("dependent twice", ["eom", "--method", "kane"],
     ["speeds u1 u2", "constraint u1 - u2", "dependent u2", "dependent u2"], 3, "u2",
     "'u2' is already declared dependent at {L2}:11"),
    # run time
    ("event reset off a constraint", ["simulate"],
     ["initial shoulder = 0.3, elbow = 0.3", "constraint shoulder - elbow",
      "when t > 0.05: shoulder = 0.1", "simulate 0 to 0.1 step 0.01"], 2, None,
     "this event's reset moves the coordinates off constraint C1"),
    ("friction < 0 (--set)", ["simulate", "--set", "mu=-1"],
     ["parameters mu = 0.1", "friction elbow: mu", "simulate 0 to 0.1 step 0.01"], 1, None,
     "the friction level is negative"),
    ("friction Fs < F", ["simulate"],
     ["parameters s = 0.1", "friction elbow: 0.2 static s", "simulate 0 to 0.1 step 0.01"], 1,
     None, "below the kinetic one"),
    ("friction under kane's speeds", ["simulate", "--method", "kane"],
     ["speeds u1 u2", "friction elbow: 0.1", "simulate 0 to 0.1 step 0.01"], 1, None,
     "not supported yet under Kane's method"),
    ("start off a constraint", ["simulate"],
     ["initial shoulder = 0.3", "constraint shoulder - elbow", "simulate 0 to 0.1 step 0.01"],
     1, "shoulder - elbow", "the initial state violates constraint C1"),
    ("start off a contact", ["simulate"],
     ["initial shoulder = 2", "contact shoulder <= 1", "simulate 0 to 0.1 step 0.01"], 1, None,
     "does not hold at the start"),
]
for cmd in (["simulate"], ["eval"], ["linearize"], ["equilibria", "--box", "shoulder=-1:1, elbow=-1:1"]):
    CASES.append((f"parameter without a value ({cmd[0]})", cmd,
                  ["parameters k", "D = 1/2*k*shoulder'^2"], 0, "k",
                  "parameter 'k' has no value"))


def cases():
    for name, cmd, body, bad, at, frag in CASES:
        for head_name, head in HEADS:
            what = f"{name} [{head_name}]"
            lines = head + body
            write("model.lag", "\n".join(lines) + "\n")
            line = len(head) + bad + 1
            col = lines[line - 1].index(at) + 1 if at else 1
            want = f"model.lag:{line}:{col}: "
            msg = frag.format(**{f"L{i}": len(head) + i + 1 for i in range(len(body))})
            r = run(*cmd, "model.lag")
            err = first_error(r.stderr)
            check(r.returncode != 0 and err.startswith(want) and msg in err,
                  f"{what}: want '{want}...{msg}', got rc {r.returncode}: {r.stderr.strip()}")


def named_lines():
    """Lines named inside a message, and the end of the file."""
    for head_name, head in HEADS:
        # L after energy terms: the plain model's first particle (line 7), the import line
        write("model.lag", "\n".join(head + ["L = shoulder'^2"]) + "\n")
        r = run("eom", "model.lag")
        want = f"model.lag:{len(head) + 1}:1: "
        ref = "(line 1)" if head is IMPORT else f"(line {PLAIN.index('particle P mass 1') + 1})"
        check(r.returncode != 0 and r.stderr.startswith(want) and ref in r.stderr,
              f"L after energies [{head_name}]: {r.stderr.strip()}")
        # a name the URDF (or the plain model's first line) declared
        write("model.lag", "\n".join(head + ["parameters shoulder"]) + "\n")
        r = run("eom", "model.lag")
        want = f"model.lag:{len(head) + 1}:12: "
        ref = ("'shoulder' is already declared by the imported URDF (line 1)" if head is IMPORT
               else "'shoulder' is already declared at line 1")
        check(r.returncode != 0 and r.stderr.startswith(want) and ref in r.stderr,
              f"redeclared [{head_name}]: {r.stderr.strip()}")
        # the end of the file, with and without a last line break
        for end in ("\n", ""):
            last = "output h = (shoulder + elbow"
            write("model.lag", "\n".join(head + [last]) + end)
            r = run("eom", "model.lag")
            want = (f"model.lag:{len(head) + 2}:1: " if end else
                    f"model.lag:{len(head) + 1}:{len(last) + 1}: ")
            check(r.returncode != 0 and r.stderr.startswith(want) and
                  f"'(' at {len(head) + 1}:12" in r.stderr,
                  f"end of file {end!r} [{head_name}]: want {want}: {r.stderr.strip()}")


def urdf_errors():
    """The URDF's own errors name the .urdf file and its line."""
    lines = URDF.splitlines()
    bad = URDF.replace('<parent link="upper"/>', '<parent link="nosuch"/>')
    write("bad.urdf", bad)
    write("model.lag", "# a comment\n" + 'import "bad.urdf"\n')
    r = run("eom", "model.lag")
    row = next(i for i, s in enumerate(bad.splitlines()) if "nosuch" in s) + 1
    col = bad.splitlines()[row - 1].index("<parent") + 1
    check(r.returncode != 0 and r.stderr.startswith(f"bad.urdf:{row}:{col}: ") and
          "no link named 'nosuch'" in r.stderr, f"URDF error: {r.stderr.strip()}")
    # a URDF name the model declared first: at the URDF's line (the frame of link
    # 'upper' is made by the joint that moves it), naming the model's line
    write("model.lag", "parameters upper = 1\n" + 'import "arm2.urdf"\n')
    r = run("eom", "model.lag")
    row = next(i for i, s in enumerate(lines) if '<joint name="shoulder"' in s) + 1
    col = lines[row - 1].index("<joint") + 1
    check(r.returncode != 0 and r.stderr.startswith(f"arm2.urdf:{row}:{col}: ") and
          "'upper' is already declared at model.lag:1" in r.stderr,
          f"URDF name declared by the model: {r.stderr.strip()}")


def urdf_note():
    """A note on the URDF (an empty joint limit) at the URDF's line, the run going on."""
    end = '<axis xyz="0 1 0"/>\n  </joint>'
    lim = URDF.replace(end, '<axis xyz="0 1 0"/>\n    <limit lower="-1.5" upper="0.4" '
                       'effort="1" velocity="1"/>\n  </joint>', 1)
    lim = lim.replace(end, '<axis xyz="0 1 0"/>\n    <limit lower="1" upper="1" effort="1" '
                      'velocity="1"/>\n  </joint>', 1)
    write("lim.urdf", lim)
    rows = [i + 1 for i, t in enumerate(lim.splitlines()) if "<limit" in t]
    check(len(rows) == 2, f"the test's URDF has limits on {rows}")
    col = lim.splitlines()[rows[-1] - 1].index("<limit") + 1
    write("model.lag", '\n\nimport "lim.urdf"\ncontact limits\nsimulate 0 to 0.01 step 0.01\n')
    r = run("simulate", "model.lag", "--out", os.path.join(TMP, "out.csv"))
    check(r.returncode == 0 and
          f"lim.urdf:{rows[-1]}:{col}: note: the limit of joint 'elbow' is ignored" in r.stderr,
          f"URDF note: {r.stderr.strip()}")


def python_api():
    """The library's positions through Python (load, simulate with params)."""
    for head_name, head in HEADS:
        body = ["parameters mu = 0.1", "initial shoulder = 0.3, elbow = 0.3",
                "constraint shoulder - elbow", "when t > 0.05: shoulder = 0.1",
                "friction elbow: mu", "simulate 0 to 0.1 step 0.01"]
        write("model.lag", "\n".join(head + body) + "\n")
        path = os.path.join(TMP, "model.lag")
        for params, row, frag in ((None, 3, "event's reset moves the coordinates off"),
                                  ({"mu": -1.0}, 4, "the friction level is negative")):
            want = f"{path}:{len(head) + row + 1}:1: "
            try:
                lagrange.load(path).simulate(params=params)
                err = "no error"
            except lagrange.ModelError as e:
                err = str(e)
            check(err.startswith(want) and frag in err,
                  f"Python, {frag} [{head_name}]: want {want}: {err}")
        # the same through loads (a name, no folder: the URDF is found from the cwd)
        cwd = os.getcwd()
        os.chdir(TMP)
        try:
            lagrange.loads("\n".join(head + ["output h = nosuch"]) + "\n", name="model.lag")
            err = "no error"
        except lagrange.ModelError as e:
            err = str(e)
        finally:
            os.chdir(cwd)
        check(err.startswith(f"model.lag:{len(head) + 1}:12: "),
              f"Python loads [{head_name}]: {err}")


def main():
    write("arm2.urdf", URDF)
    cases()
    named_lines()
    urdf_errors()
    urdf_note()
    python_api()
    shutil.rmtree(TMP)
    print(f"{_tally[0]} passed, {_tally[1]} failed")
    sys.exit(1 if _tally[1] else 0)


if __name__ == "__main__":
    main()
