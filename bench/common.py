"""bench/common.py - what every benchmark script shares: running a process
with a time limit while measuring its wall time and peak memory, and the
command-line switches --quick / --timeout."""
import argparse, math, os, resource, signal, subprocess, sys, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = sys.executable  # one interpreter for the whole run (see RESULTS.md)
MEM_LIMIT_MB = 0  # address-space limit of every measured process (0: none), see setup


def parser(doc, default_timeout):
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "lagrange"))
    ap.add_argument("--quick", action="store_true", help="small sizes only (the smoke test)")
    ap.add_argument("--timeout", type=float, default=default_timeout,
                    help="CPU seconds per process (wall clock: 10 times that); a case over it "
                         "is recorded as 'timeout'")
    ap.add_argument("--mem-limit-mb", type=int, default=None,
                    help="address-space limit per process (default 8192, none with --quick: "
                         "a sanitized binary reserves terabytes)")
    return ap


def setup(args):
    """Applies the parsed common options; returns them."""
    global MEM_LIMIT_MB
    MEM_LIMIT_MB = args.mem_limit_mb if args.mem_limit_mb is not None else (0 if args.quick else 8192)
    return args


class Run:
    """The outcome of one process: rc (None on timeout), wall seconds, peak
    RSS in MB, CPU seconds (user + system), stdout (text, or only its byte count when count_only), stderr."""
    def __init__(self, rc, wall, cpu, rss_mb, out, nbytes, err):
        self.rc, self.wall, self.cpu, self.rss_mb = rc, wall, cpu, rss_mb
        self.out, self.nbytes, self.err = out, nbytes, err

    @property
    def timeout(self):
        return self.rc is None

    @property
    def ok(self):
        return self.rc == 0

    @property
    def status(self):
        """Why there is no result: timeout, out of memory, or the exit code."""
        if self.rc is None:
            return "timeout"
        if "memory" in self.err.lower() or "bad_alloc" in self.err or self.rc in (-6, -11, 134, 139):
            return f"out of memory ({MEM_LIMIT_MB // 1024} GB)"
        return f"error (exit {self.rc})"


def gives_up(status):
    """A status after which larger sizes are not tried."""
    return isinstance(status, str) and (status.startswith("timeout") or status.startswith("out of"))


def limit(pid, cpu_s):
    """The child's limits, set from outside once it runs: CPU seconds (each
    process of it; the time limit is on CPU, not wall clock, so that a
    loaded machine does not turn results into timeouts) and address space.
    Not a preexec_fn: that makes Python fork without vfork, and the child's
    copy-on-write faults of this interpreter's memory (NumPy and SymPy
    loaded) were charged to the measured process, 11-15 ms of CPU each."""
    c = max(1, int(math.ceil(cpu_s)))
    try:
        resource.prlimit(pid, resource.RLIMIT_CPU, (c, c + 5))
        if MEM_LIMIT_MB > 0:  # the machine is shared: a runaway case must not take it all
            lim = MEM_LIMIT_MB << 20
            resource.prlimit(pid, resource.RLIMIT_AS, (lim, lim))
    except (ProcessLookupError, PermissionError):
        pass  # it has already ended


def run(cmd, timeout, count_only=False, cwd=None):
    """Runs cmd with `timeout` CPU seconds per process (RLIMIT_CPU) and 10
    times that in wall-clock time for the whole process group. Peak RSS
    comes from wait4's rusage of this child (and its waited-for children).
    Its address space is limited to MEM_LIMIT_MB."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                         start_new_session=True)
    limit(p.pid, timeout)
    chunks, nbytes, errs = [], [0], []

    def pump_out():
        while True:
            b = p.stdout.read(1 << 16)
            if not b:
                break
            nbytes[0] += len(b)
            if not count_only:
                chunks.append(b)

    def pump_err():
        errs.append(p.stderr.read())

    threads = [threading.Thread(target=pump_out), threading.Thread(target=pump_err)]
    for t in threads:
        t.start()
    killed = [False]

    def kill():
        killed[0] = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(10 * timeout, kill)
    timer.start()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in threads:
        t.join()
    rc = p.returncode
    # killed by the wall clock, or over its CPU time (SIGXCPU; SIGKILL at the hard limit)
    if killed[0] or rc in (-signal.SIGXCPU, 128 + signal.SIGXCPU, -signal.SIGKILL) or \
            "CPU time limit" in b"".join(errs).decode(errors="replace"):
        rc = None
    out = b"".join(chunks).decode(errors="replace")
    err = b"".join(errs).decode(errors="replace")
    return Run(rc, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, out, nbytes[0], err)


def fmt(x, spec, none="timeout"):
    """Formats a number, or says why there is none."""
    if x is None:
        return none
    if isinstance(x, str):
        return x
    return format(x, spec)


def ratio(a, b, spec=".1f"):
    if a is None or b is None or isinstance(a, str) or isinstance(b, str) or b == 0:
        return ""
    return format(a / b, spec) + "x"


def table(header, rows):
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def note(msg):
    print(msg, file=sys.stderr, flush=True)
