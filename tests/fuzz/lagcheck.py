"""lagcheck.py - the oracle shared by the model generator, the regression
replay and the hostile-input suite: run one `lagrange` command on one model
and say what, if anything, is wrong with how it ended.

A run is fine when it exits 0, or exits 1/2 with a `file:line:col: `
message on stderr whose line lies inside the file. Anything else is a
finding: a signal or another exit code, a sanitizer report, a hang past the
time limit, a JSON output that does not parse."""
import json, os, re, signal, subprocess

# Sanitizer exits get codes no model error uses, so a report is caught even
# when its text is cut off.
ENV = dict(os.environ,
           ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86",
           UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87")
SANITIZER_TEXT = ("Sanitizer", "runtime error:", "LeakSanitizer")


class Result:
    """How one run ended: `finding` is None or a one-line reason."""

    def __init__(self, cmd, rc, out, err, seconds, finding):
        self.cmd, self.rc, self.out, self.err = cmd, rc, out, err
        self.seconds, self.finding = seconds, finding

    def describe(self):
        tail = self.err.strip().splitlines()[-12:]
        return f"{self.finding}: lagrange {' '.join(self.cmd)}\n    " + "\n    ".join(tail)


def wants_json(args):
    """Does this command promise exactly one JSON object on stdout?"""
    a = " ".join(args)
    return (args[0] == "eom" and "--format json" in a) or (args[0] == "eval" and "--json" in a)


def located(err, model, nlines):
    """Is some stderr line `MODEL:LINE:COL: ...` (not a note or warning)
    with LINE inside the file?"""
    pat = re.compile(re.escape(model) + r":(\d+):(\d+): (?!note:|warning:)\S")
    for line in err.splitlines():
        m = pat.match(line)
        if m and 1 <= int(m.group(1)) <= nlines + 1 and int(m.group(2)) >= 1:
            return True
    return False


def run(binary, args, model, timeout=30, cwd=None):
    """Run `binary ARGS[0] MODEL ARGS[1:]` and judge how it ended.

    `timeout` is CPU seconds (RLIMIT_CPU), so a slow run on a loaded machine
    is not taken for a hang; the wall-clock limit is ten times as long and
    catches a process that waits forever."""
    import resource, time
    cmd = [args[0], model, *args[1:]]
    limit = max(1, int(timeout))

    def cpu_limit():
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))

    start = time.monotonic()
    try:
        p = subprocess.Popen([binary, *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=ENV, cwd=cwd, start_new_session=True, preexec_fn=cpu_limit)
        out, err = p.communicate(timeout=10 * limit)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return Result(cmd, None, b"", "", 10 * limit, f"hang (> {10 * limit} s wall clock)")
    seconds = time.monotonic() - start
    err = err.decode(errors="replace")
    rc = p.returncode
    if rc in (-signal.SIGXCPU, -signal.SIGKILL) or "CPU time limit" in err:
        return Result(cmd, rc, out, err, seconds, f"hang (> {limit} s of CPU time)")
    with open(model, "rb") as f:
        nlines = f.read().count(b"\n") + 1
    finding = None
    if any(s in err for s in SANITIZER_TEXT) or rc in (86, 87):
        finding = "sanitizer report"
    elif rc not in (0, 1, 2):
        finding = f"crash (signal {-rc})" if rc < 0 else f"exit code {rc}"
    elif rc != 0 and not located(err, model, nlines):
        finding = f"exit {rc} without a {os.path.basename(model)}:line:col: message"
    elif rc == 0 and wants_json(args):
        try:
            json.loads(out.decode())
        except (ValueError, UnicodeDecodeError) as e:
            finding = f"output is not one JSON object ({e})"
    return Result(cmd, rc, out, err, seconds, finding)


def checks_of(path):
    """The `# check: ARGS => REGEX` lines of a regression model."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"#\s*check:\s*(.*?)\s*=>\s*(.*?)\s*$", line)
            if m:
                out.append((m.group(1).split(), m.group(2)))
    return out
