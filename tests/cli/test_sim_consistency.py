"""The initial state against the constraints under both methods (issue 23),
and lg_simulate's new options through every door:

- a four-bar linkage (tests/cli/models/fourbar.lag) started off its loop
  is refused under Lagrange's and Kane's methods alike, every violated row
  named at its line (C1 and C2, position and velocity level), and no CSV
  is written; with --project both methods move it onto the loop (the same
  projected values), keep the loop during the run, and agree on the end
  state;
- Python's simulate raises ModelError for it, and with project=True gives
  the command's CSV bit for bit, its notes (Simulation.notes) equal to the
  command's lines; stop_when, stabilize and jit by name.

Ends "N passed, N failed"."""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import numpy as np
except ImportError:  # the python3 on PATH may lack NumPy: Debian's has it
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
sys.path.insert(0, os.path.join(ROOT, "python"))
import lagrange  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
GOOD = os.path.join(ROOT, "tests", "cli", "models", "fourbar.lag")
# the same linkage started off its loop (the constraints keep their lines)
TMP = tempfile.mkdtemp(prefix="lagrange-consistency-")
MODEL = os.path.join(TMP, "fourbar_off.lag")
with open(GOOD) as f:
    text = re.sub(r"(?m)^initial .*$", "initial q1 = 1.5708, q2 = 0.52, q3 = 1.69, q1' = 1",
                  f.read())
with open(MODEL, "w") as f:
    f.write(text)
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT)


def rows(text):
    lines = text.strip().splitlines()
    return np.array([[float(x) for x in ln.split(",")] for ln in lines[1:]])


ends = {}
for method in ("lagrange", "kane"):
    r = run("simulate", MODEL, "--method", method)
    expect = [f"{MODEL}:26:12: the initial state violates constraint C1",
              f"{MODEL}:26:12: the initial velocities violate constraint C1",
              f"{MODEL}:27:12: the initial state violates constraint C2",
              f"{MODEL}:27:12: the initial velocities violate constraint C2"]
    lines = r.stderr.splitlines()
    check(r.returncode == 1 and r.stdout == "" and len(lines) == 4
          and all(ln.startswith(e) and ln.endswith(")") and "--project" in ln
                  for ln, e in zip(lines, expect)),
          f"{method}: an inconsistent start is refused, every violated row named: {r.stderr}")
    r = run("simulate", MODEL, "--method", method, "--project")
    projected = [ln for ln in r.stderr.splitlines() if ": projected " in ln]
    check(r.returncode == 0 and len(projected) == 6, f"{method} --project: runs, 6 values "
          f"projected: {r.stderr}")
    summary = [ln for ln in r.stderr.splitlines() if "max constraint residual" in ln]
    res = float(summary[0].rsplit("= ", 1)[1]) if summary else 1
    check(res < 1e-8, f"{method} --project: the loop is kept during the run ({res})")
    data = rows(r.stdout)
    c = data[:, 10:12]
    check(np.abs(c).max() < 1e-8, f"{method}: C1, C2 stay below 1e-8 on every row")
    ends[method] = (data[-1], projected, r.stdout)

    # the library through Python: the same refusal, the same run
    m = lagrange.load(MODEL, method=method)
    try:
        m.simulate()
        check(False, f"{method}: Python ran an inconsistent start")
    except lagrange.ModelError as e:
        check("violates constraint C1" in str(e) and ":26:12:" in str(e),
              f"{method}: Python's ModelError names C1 at its line: {e}")
    seen = []
    s = m.simulate(project=True, note=seen.append)
    py = np.column_stack([s[k] for k in s.columns])
    check(py.shape == data.shape and np.array_equal(py, data),
          f"{method}: Python's project=True run equals the command's CSV bit for bit")
    check(s.notes == seen and [n.split(": projected ", 1)[1] for n in s.notes]
          == [ln.split(": projected ", 1)[1] for ln in projected],
          f"{method}: Python's notes are the command's projected values: {s.notes}")
    check(s.stats["integrator"] and "W = 0" in s.stats["energy"] and s.stats["t_end"] == 2.0,
          f"{method}: the statistics name the integrator and the energy: {s.stats}")

la, ka = ends["lagrange"][0], ends["kane"][0]
check(np.abs(la[1:7] - ka[1:7]).max() < 1e-6,
      f"the methods agree on the end state: {np.abs(la[1:7] - ka[1:7]).max():.2e}")
check(ends["lagrange"][1] == ends["kane"][1], "the same values projected under both methods")

# stop_when, stabilize and jit by name from Python, as the command
m = lagrange.load(os.path.join(ROOT, "tests", "cli", "sim", "pendulum.lag"))
s = m.simulate(tf=5, stop_when="theta")
r = run("simulate", "tests/cli/sim/pendulum.lag", "--tf", "5", "--stop-when", "theta")
check(s.stats["stopped"] == 1 and np.array_equal(
      np.column_stack([s[k] for k in s.columns]), rows(r.stdout)),
      "stop_when: Python stops where the command does, bit for bit")
try:
    m.simulate(stop_when="theta + thta")
    check(False, "a bad stop_when raised nothing")
except ValueError as e:
    check("`stop_when`:1:9:" in str(e) and "thta" in str(e),
          f"a bad stop_when is a ValueError at its column: {e}")
for stab, flag in (("none", "none"), ("baumgarte:5,5", "baumgarte:5,5")):
    mx = lagrange.load(os.path.join(ROOT, "tests", "cli", "sim", "pendulum_xy.lag"))
    s = mx.simulate(tf=1, stabilize=stab)
    r = run("simulate", "tests/cli/sim/pendulum_xy.lag", "--tf", "1", "--stabilize", flag)
    check(np.array_equal(np.column_stack([s[k] for k in s.columns]), rows(r.stdout)),
          f"stabilize={stab}: Python equals the command bit for bit")
try:
    m.simulate(jit="sometimes")
    check(False, "an unknown jit mode raised nothing")
except ValueError:
    check(True, "")

# the loop kept over a long run under Kane's method too (projected as
# Lagrange's when C or C' drift past 1e-11)
r = run("simulate", GOOD, "--method", "kane", "--tf", "20")
summary = [ln for ln in r.stderr.splitlines() if "max constraint residual" in ln]
res = float(summary[0].rsplit("= ", 1)[1]) if summary else 1
check(r.returncode == 0 and res < 1e-10,
      f"kane: the loop is kept below 1e-10 over 20 s ({res}): {r.stderr}")

# the model as written is on its loop: both methods run it as it is
for method in ("lagrange", "kane"):
    r = run("simulate", GOOD, "--method", method, "--tf", "1")
    check(r.returncode == 0 and "projected" not in r.stderr
          and np.abs(rows(r.stdout)[:, 10:12]).max() < 1e-8,
          f"{method}: fourbar.lag as written runs on its loop: {r.stderr}")

# a run's parameters as sweep gives them: a derived parameter follows, and
# Python's run with them equals the command's with --set, bit for bit
ROD = os.path.join(TMP, "rod.lag")
with open(ROD, "w") as f:
    f.write("coordinates theta\nparameters m = 1, g = 9.81, l = 2, I = m*l^2/12\n"
            "T = 1/2*(I + m*l^2/4)*theta'^2\nV = -m*g*l/2*cos(theta)\n"
            "initial theta = 0.4\nsimulate 0 to 1 step 0.01\n")
m = lagrange.load(ROD)
p = m.params_with({"m": 3})
check(p["m"] == 3 and abs(p["I"] - 1.0) < 1e-15 and p["l"] == 2,
      f"params_with: I = m*l^2/12 follows m: {p}")
s = m.simulate(params=p)
r = run("simulate", ROD, "--set", "m=3")
check(np.array_equal(np.column_stack([s[k] for k in s.columns]), rows(r.stdout)),
      "params_with's vector runs as the command's --set, bit for bit")
try:
    m.params_with({"nope": 1})
    check(False, "params_with accepted an unknown name")
except KeyError as e:
    check("nope" in str(e), f"params_with: an unknown name is a KeyError: {e}")
os.remove(ROD)

os.remove(MODEL)
os.rmdir(TMP)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
