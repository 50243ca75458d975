"""bench/common.py - what every benchmark script shares: running a process
with a time limit while measuring its wall time and peak memory, and the
command-line switches --quick / --timeout."""
import argparse, os, signal, subprocess, sys, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = sys.executable  # one interpreter for the whole run (see RESULTS.md)


def parser(doc, default_timeout):
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "lagrange"))
    ap.add_argument("--quick", action="store_true", help="small sizes only (the smoke test)")
    ap.add_argument("--timeout", type=float, default=default_timeout,
                    help="seconds per case; a case over it is recorded as 'timeout'")
    return ap


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


def run(cmd, timeout, count_only=False, cwd=None):
    """Runs cmd; kills its process group after `timeout` seconds. Peak RSS
    comes from wait4's rusage of this child alone."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                         start_new_session=True)
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

    timer = threading.Timer(timeout, kill)
    timer.start()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in threads:
        t.join()
    rc = None if killed[0] else p.returncode
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
