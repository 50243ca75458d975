#!/usr/bin/env python3
"""Output you can trust: how `lagrange` writes and reads files.

Regular files replaced atomically (permissions kept), symlinks kept and
their targets written, /dev/null and /dev/full never replaced (a full
device is exit 1 and leaves no file), FIFOs written directly, concurrent
runs, SIGTERM/SIGINT leave no temporary, failed runs leave no FILE but
FILE.partial.csv, codegen's .c and .h together, the plot and compiler
command injections, the JIT's compiler command and cache, the model reader
(64 MB limit, /dev/zero, NUL bytes, CR line ends, stdin), --plot
extensions and real PNG/PDF files, --max-rows, full standard output.

Every case runs with each binary given (release and sanitized). Only
temporary folders are written; /dev/null and /dev/full are only stat'ed.

usage: test_output_files.py LAGRANGE [SANITIZED_LAGRANGE]"""
import os, re, signal, stat, subprocess, sys, tempfile, threading, time

BINS = [os.path.abspath(b) for b in sys.argv[1:]] or ["build/lagrange"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CART = os.path.abspath(os.path.join(ROOT, "examples", "cart_pendulum.lag"))
CHAIN = os.path.abspath(os.path.join(ROOT, "tests", "cli", "sim", "chain8_small.lag"))
BLOWUP = os.path.abspath(os.path.join(ROOT, "tests", "cli", "sim", "blowup.lag"))
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:800]))


def run(binary, *args, env=None, cwd=None, stdout=subprocess.PIPE, input=None, timeout=300):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([binary, *args], stdout=stdout, stderr=subprocess.PIPE, env=e, cwd=cwd,
                       input=input, timeout=timeout)
    r.err = r.stderr.decode(errors="replace")
    r.out = r.stdout.decode(errors="replace") if r.stdout is not None else ""
    if "Sanitizer" in r.err or "runtime error" in r.err:
        check(f"sanitizer-clean {args}", False, r.err)
    return r


def is_csv(text, rows=None):
    lines = text.splitlines()
    if not lines or not lines[0].startswith("t,"):
        return False
    width = lines[0].count(",")
    ok = all(line.count(",") == width for line in lines)
    return ok and (rows is None or len(lines) == rows + 1)


def files(d):
    return sorted(os.listdir(d))


def entries(d):
    """A cache folder's files but the entries' lock files (u<uid>-<hash>.lock)."""
    return [f for f in files(d) if not f.endswith(".lock")] if os.path.isdir(d) else None


def device(path):
    st = os.stat(path)
    return stat.S_ISCHR(st.st_mode), st.st_rdev


# ---- atomic replacement, permissions, symlinks ---------------------------------
def regular_and_links(L, tag):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.csv")
        open(out, "w").write("old\n")
        os.chmod(out, 0o640)
        ino = os.stat(out).st_ino
        r = run(L, "simulate", CART, "--tf", "1", "--out", out)
        st = os.stat(out)
        check(f"{tag}: a regular file is replaced (new inode, complete CSV, 101 rows)",
              r.returncode == 0 and st.st_ino != ino and is_csv(open(out).read(), 101), r.err)
        check(f"{tag}: its permission bits are kept (0640)", stat.S_IMODE(st.st_mode) == 0o640,
              oct(st.st_mode))
        check(f"{tag}: no temporary left beside it", files(d) == ["out.csv"], files(d))
        os.umask(umask := os.umask(0o022))
        new = os.path.join(d, "new.csv")
        run(L, "simulate", CART, "--tf", "0.1", "--out", new)
        check(f"{tag}: a new file gets 0666 less the umask",
              stat.S_IMODE(os.stat(new).st_mode) == 0o666 & ~umask, oct(os.stat(new).st_mode))
        target, link = os.path.join(d, "target.csv"), os.path.join(d, "link.csv")
        open(target, "w").write("old\n")
        os.symlink("target.csv", link)
        r = run(L, "simulate", CART, "--tf", "1", "--out", link)
        check(f"{tag}: a symlink stays a symlink and its target gets the CSV",
              r.returncode == 0 and os.path.islink(link) and os.readlink(link) == "target.csv"
              and is_csv(open(target).read(), 101), r.err)
        dangling = os.path.join(d, "dangling.csv")
        os.symlink("sub/made.csv", dangling)
        os.mkdir(os.path.join(d, "sub"))
        r = run(L, "simulate", CART, "--tf", "0.1", "--out", dangling)
        made = os.path.join(d, "sub", "made.csv")
        check(f"{tag}: a dangling symlink's target is created, the link kept",
              r.returncode == 0 and os.path.islink(dangling) and os.path.isfile(made), r.err)


# ---- devices and FIFOs -------------------------------------------------------------------
def devices(L, tag):
    before = device("/dev/null")
    r = run(L, "simulate", CART, "--tf", "1", "--out", "/dev/null")
    after = device("/dev/null")
    check(f"{tag}: --out /dev/null succeeds and /dev/null is still the character device",
          r.returncode == 0 and before[0] and after == before, (before, after, r.err))
    before = device("/dev/full")
    r = run(L, "simulate", CART, "--tf", "1", "--out", "/dev/full")
    check(f"{tag}: --out /dev/full is exit 1 with a message; /dev/full untouched",
          r.returncode == 1 and "/dev/full" in r.err and "space" in r.err
          and device("/dev/full") == before, r.err)
    with tempfile.TemporaryDirectory() as d:
        r = run(L, "simulate", CART, "--tf", "1", "--out", "/dev/full", cwd=d)
        check(f"{tag}: ... and leaves no file", files(d) == [], files(d))
    for args in (["eom", CART], ["eom", CART, "--format", "json"], ["simulate", CART, "--tf", "1"],
                 ["codegen", CART], ["eval", CART, "--state", "x=0.1", "--json"],
                 ["linearize", CART, "--json"], ["equilibria", CART], ["--help"]):
        with open("/dev/full", "w") as full:
            r = run(L, *args, stdout=full)
        check(f"{tag}: {' '.join(args[:1] + args[2:])} > /dev/full is exit 1 with a message",
              r.returncode == 1 and "cannot write" in r.err, r.err)
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, "fifo.csv")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
        reader.start()
        r = run(L, "simulate", CART, "--tf", "1", "--out", fifo, timeout=60)
        reader.join(60)
        check(f"{tag}: a FIFO is written directly (a reader gets the CSV) and stays a FIFO",
              r.returncode == 0 and got and is_csv(got[0], 101)
              and stat.S_ISFIFO(os.stat(fifo).st_mode) and files(d) == ["fifo.csv"], r.err)


# ---- concurrency and signals ------------------------------------------------------------------
def concurrent(L, tag):
    with tempfile.TemporaryDirectory() as d:
        args = ["simulate", CART, "--tf", "20", "--dt", "0.002"]
        refs = []
        for g in ("9.81", "3"):
            ref = os.path.join(d, f"ref{g}.csv")
            run(L, *args, "--set", f"g={g}", "--out", ref)
            refs.append(open(ref).read())
        out = os.path.join(d, "both.csv")
        ps = [subprocess.Popen([L, *args, "--set", f"g={g}", "--out", out],
                               stderr=subprocess.DEVNULL) for g in ("9.81", "3")]
        codes = [p.wait(300) for p in ps]
        text = open(out).read() if os.path.exists(out) else ""
        check(f"{tag}: two concurrent runs to one file leave one complete run's CSV",
              codes == [0, 0] and text in refs and refs[0] != refs[1]
              and sorted(files(d)) == ["both.csv", "ref3.csv", "ref9.81.csv"], (codes, files(d)))


def killed(L, tag):
    for sig in (signal.SIGTERM, signal.SIGINT):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "long.csv")
            # as from a terminal: a shell's background job (make check &)
            # passes SIGINT on ignored, and lagrange keeps an ignored SIGINT
            p = subprocess.Popen([L, "simulate", CART, "--tf", "1e5", "--max-rows", "1e8",
                                  "--out", out], stderr=subprocess.DEVNULL,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            deadline = time.time() + 60
            while time.time() < deadline and not files(d) and p.poll() is None:
                time.sleep(0.05)
            seen = files(d)
            time.sleep(0.3)
            p.send_signal(sig)
            try:
                code = p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
                code = p.wait()
            check(f"{tag}: {sig.name} during a long run leaves no temporary and no FILE",
                  seen and seen[0].startswith(".long.csv-") and code == -sig
                  and files(d) == [], (seen, code, files(d)))


# ---- failed runs -------------------------------------------------------------------------------
def failures(L, tag):
    with tempfile.TemporaryDirectory() as d:
        out, part = os.path.join(d, "o.csv"), os.path.join(d, "o.partial.csv")
        open(out, "w").write("keep\n")
        r = run(L, "simulate", BLOWUP, "--out", out)
        check(f"{tag}: a failing run keeps the old FILE and writes FILE.partial.csv (named)",
              r.returncode == 1 and open(out).read() == "keep\n" and part in r.err
              and os.path.exists(part) and is_csv(open(part).read())
              and len(open(part).read().splitlines()) > 2, r.err)
        for f in (out, part):
            if os.path.exists(f):
                os.unlink(f)
        r = run(L, "simulate", BLOWUP, "--out", out, "--plot", os.path.join(d, "p.svg"))
        check(f"{tag}: a failing run leaves neither FILE nor the plot",
              r.returncode == 1 and sorted(files(d)) == ["o.partial.csv"], files(d))
    with tempfile.TemporaryDirectory() as d:
        fake = os.path.join(d, "bin")
        os.mkdir(fake)
        gp = os.path.join(fake, "gnuplot")
        open(gp, "w").write("#!/bin/sh\necho 'line 7: fake gnuplot cannot draw' >&2\nexit 1\n")
        os.chmod(gp, 0o755)
        out = os.path.join(d, "c.csv")
        r = run(L, "simulate", CART, "--tf", "1", "--out", out, "--plot",
                os.path.join(d, "p.svg"), env={"PATH": fake + ":" + os.environ["PATH"]})
        check(f"{tag}: a failing plot is exit 1 with gnuplot's message, no plot, no FILE",
              r.returncode == 1 and "fake gnuplot cannot draw" in r.err
              and sorted(files(d)) == ["bin", "c.partial.csv"], (r.err, files(d)))
        for f in files(d):
            if f != "bin":
                os.unlink(os.path.join(d, f))
        os.unlink(gp)
        r = run(L, "simulate", CART, "--tf", "1", "--plot", os.path.join(d, "p.svg"),
                env={"PATH": fake})
        check(f"{tag}: gnuplot missing: exit 1 saying what to install, no plot",
              r.returncode == 1 and "gnuplot" in r.err and "install" in r.err
              and files(d) == ["bin"], (r.err, files(d)))


# ---- folders in the way, codegen ---------------------------------------------------------------
def folders(L, tag):
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "x.h"))
        r = run(L, "codegen", CART, "-o", os.path.join(d, "x.c"))
        check(f"{tag}: codegen -o x.c with a folder x.h: exit 1 blaming x.h, neither file",
              r.returncode == 1 and "x.h: is a folder" in r.err and files(d) == ["x.h"],
              (r.err, files(d)))
        r = run(L, "codegen", CART, "-o", os.path.join(d, "y.c"))
        check(f"{tag}: codegen -o y.c writes y.c and y.h and nothing else",
              r.returncode == 0 and files(d) == ["x.h", "y.c", "y.h"]
              and '#include "y.h"' in open(os.path.join(d, "y.c")).read(), (r.err, files(d)))
        r = run(L, "simulate", CART, "--out", d)
        check(f"{tag}: --out FOLDER is exit 1 naming it", r.returncode == 1
              and f"{d}: is a folder" in r.err, r.err)
        r = run(L, "simulate", CART, "--out", os.path.join(d, "nope", "o.csv"))
        check(f"{tag}: --out into a missing folder names the folder",
              r.returncode == 1 and os.path.join(d, "nope") in r.err and "create the folder"
              in r.err and files(d) == ["x.h", "y.c", "y.h"], r.err)


# ---- injections ------------------------------------------------------------------------------------
def injections(L, tag):
    with tempfile.TemporaryDirectory() as d:
        for name in ("x'; system 'touch pwned'; set output 'y.svg",
                     "x\"; system \"touch pwned\"; set output \"y.svg"):
            r = run(L, "simulate", CART, "--tf", "1", "--plot", name, cwd=d)
            made = os.path.join(d, name)
            check(f"{tag}: --plot {name!r} runs nothing and draws that very file",
                  r.returncode == 0 and not os.path.exists(os.path.join(d, "pwned"))
                  and os.path.isfile(made) and "<svg" in open(made).read(), (r.err, files(d)))
        cache = os.path.join(d, "cache")
        r = run(L, "simulate", CART, "--tf", "0.5", "--jit=wait", cwd=d,
                env={"CC": "cc' -v; touch pwned2; echo '", "LAGRANGE_CACHE_DIR": cache})
        check(f"{tag}: CC with shell syntax runs nothing; the fallback says why",
              r.returncode == 0 and not os.path.exists(os.path.join(d, "pwned2"))
              and "cannot run the C compiler 'cc''" in r.err and is_csv(r.out, 51), r.err)


# ---- the JIT's compiler and cache ------------------------------------------------------------------
def jit(L, tag):
    with tempfile.TemporaryDirectory() as d:
        cache = os.path.join(d, "cache")
        log = os.path.join(d, "cc.log")
        wrap = os.path.join(d, "ccwrap.sh")
        open(wrap, "w").write(f'#!/bin/sh\necho "$@" >> {log}\nexec cc "$@"\n')
        env = {"CC": f"sh {wrap} -O1", "LAGRANGE_CACHE_DIR": cache}
        tape = run(L, "simulate", CART, "--tf", "2")
        first = run(L, "simulate", CART, "--tf", "2", "--jit=wait", env=env)
        calls = open(log).read().splitlines() if os.path.exists(log) else []
        check(f"{tag}: CC with arguments ('sh WRAPPER -O1') compiles and is used",
              first.returncode == 0 and "warning" not in first.err and len(calls) == 1
              and calls[0].startswith("-O1 ") and first.out.count("\n") == tape.out.count("\n"),
              (first.err, calls))
        mode = stat.S_IMODE(os.stat(cache).st_mode) if os.path.isdir(cache) else None
        check(f"{tag}: the cache folder is created 0700 and holds no work files",
              mode == 0o700 and all(f.endswith((".so", ".key", ".lock")) for f in files(cache)),
              (mode, files(cache) if mode else None))
        keys = [f for f in files(cache) if f.endswith(".key")] if mode else []
        key = open(os.path.join(cache, keys[0])).read() if keys else ""
        check(f"{tag}: the JIT compiles only the right-hand side",
              "int lg_jit_rhs(double t" in key and "double *res) {" not in key, keys)
        second = run(L, "simulate", CART, "--tf", "2", "--jit", env=env)
        calls2 = open(log).read().splitlines() if os.path.exists(log) else []
        check(f"{tag}: a second run loads the cached object without compiling",
              second.returncode == 0 and len(calls2) == 1 and second.out == first.out, calls2)
        src = open(os.path.join(ROOT, "examples", "cart_pendulum.lag")).read()
        other = os.path.join(d, "other.lag")
        open(other, "w").write(src.replace("g = 9.81", "g = 9.8"))
        run(L, "simulate", other, "--tf", "0.1", "--jit=wait", env=env)
        check(f"{tag}: another model compiles its own object",
              len(open(log).read().splitlines() if os.path.exists(log) else []) == 2)
        boom = os.path.join(d, "boom.sh")
        open(boom, "w").write("#!/bin/sh\necho 'boom: the compiler exploded' >&2\nexit 3\n")
        r = run(L, "simulate", CART, "--tf", "0.5", "--jit=wait",
                env={"CC": f"sh {boom}", "LAGRANGE_CACHE_DIR": os.path.join(d, "c2")})
        check(f"{tag}: a failing compiler: the warning gives its exit status and message",
              r.returncode == 0 and "exit status 3" in r.err and "boom: the compiler exploded"
              in r.err and is_csv(r.out, 51), r.err)
        c3 = os.path.join(d, "c3")
        ps = [subprocess.Popen([L, "simulate", CART, "--tf", "1", "--jit=wait"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=dict(os.environ, LAGRANGE_CACHE_DIR=c3))
              for _ in range(2)]
        outs = [p.communicate(120) for p in ps]
        check(f"{tag}: two concurrent --jit runs with an empty cache both use the JIT",
              all(p.returncode == 0 and b"warning" not in e for p, (o, e) in zip(ps, outs))
              and outs[0][0] == outs[1][0] and len(entries(c3)) == 2, (outs[0][1], files(c3)))
        slow = os.path.join(d, "slow.sh")
        open(slow, "w").write("#!/bin/sh\nsleep 3\nexec cc \"$@\"\n")
        c4 = os.path.join(d, "c4")
        p = subprocess.Popen([L, "simulate", CART, "--tf", "1", "--jit=wait"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=dict(os.environ, LAGRANGE_CACHE_DIR=c4, CC=f"sh {slow}"))
        deadline = time.time() + 60
        while time.time() < deadline and not (os.path.isdir(c4) and files(c4)):
            time.sleep(0.05)
        time.sleep(0.2)
        p.send_signal(signal.SIGTERM)
        p.communicate(60)
        check(f"{tag}: SIGTERM while compiling leaves no work folder in the cache",
              p.returncode == -signal.SIGTERM and os.path.isdir(c4) and entries(c4) == [],
              (p.returncode, files(c4) if os.path.isdir(c4) else None))
        gen = run(L, "codegen", CART)
        check(f"{tag}: codegen still writes every function (only the JIT is rhs-only)",
              "_mass_matrix_full(" in gen.out and "_momenta(" in gen.out, gen.err)
        r = run(L, "simulate", CART, "--tf", "1", "--jit=later")
        check(f"{tag}: --jit=later is a usage error naming the choices",
              r.returncode == 2 and "--jit=wait" in r.err and r.out == "", r.err)
        jit_background(L, tag, d, slow)


def gone(pid_file, timeout=10):
    """Whether every process whose pid the slow compiler wrote has ended."""
    deadline = time.time() + timeout
    while True:
        pids = [int(x) for x in open(pid_file).read().split()] if os.path.exists(pid_file) else []
        alive = []
        for pid in pids:
            try:
                os.kill(pid, 0)
                st = open(f"/proc/{pid}/stat").read().split(") ")[-1].split()[0]
                if st != "Z":
                    alive.append(pid)
            except (OSError, IndexError):
                pass
        if not alive or time.time() > deadline:
            return not alive
        time.sleep(0.05)


def jit_background(L, tag, d, slow):
    """--jit (background): the run starts on the tape while a helper
    compiles; a run shorter than the compile is the tape's run, byte for
    byte, and its helper and compiler end with it (issue 21: nothing of a
    run outlives it); a longer one switches; a cached object is used from
    t0."""
    tape = run(L, "simulate", CART, "--tf", "2")
    c5 = os.path.join(d, "c5")
    pids = os.path.join(d, "pids5")
    slowpid = os.path.join(d, "slowpid.sh")
    open(slowpid, "w").write(f"#!/bin/sh\necho $$ >> {pids}\nsleep 3\nexec cc \"$@\"\n")
    env = {"CC": f"sh {slowpid}", "LAGRANGE_CACHE_DIR": c5}
    t0 = time.time()
    first = run(L, "simulate", CART, "--tf", "2", "--jit", env=env)
    took = time.time() - t0
    check(f"{tag}: --jit with a slow compiler: the run does not wait for it (the tape's rows)",
          first.returncode == 0 and took < 2.5 and first.out == tape.out
          and "the run ended before the compiler" in first.err, (took, first.err))
    check(f"{tag}: the helper and its compiler end with the run and leave no work folder",
          gone(pids) and entries(c5) == [], (open(pids).read() if os.path.exists(pids) else "",
                                             files(c5) if os.path.isdir(c5) else None))
    waited = run(L, "simulate", CART, "--tf", "2", "--jit=wait", env=env)
    second = run(L, "simulate", CART, "--tf", "2", "--jit", env=env)
    check(f"{tag}: a run after --jit=wait loads its object and runs compiled code from t0",
          waited.returncode == 0 and second.returncode == 0 and second.out == waited.out
          and "took over" not in second.err and "note" not in second.err, second.err)
    # a run longer than the compile switches on the way, and says where
    # (a loaded machine may compile slower than a run of 150 s integrates:
    # then the run says so, and a longer one must switch)
    for k, tf in enumerate((150, 600, 2400)):
        c7 = os.path.join(d, f"c7-{k}")
        args = ("simulate", CHAIN, "--tf", str(tf), "--dt", str(tf // 15))
        ref = run(L, *args)
        r = run(L, *args, "--jit", env={"LAGRANGE_CACHE_DIR": c7})
        if "the run ended before the compiler" not in r.err:
            break
    m = re.search(r"took over at t = ([0-9.e+-]+)", r.err)
    rows = [ln.split(",") for ln in r.out.splitlines()[1:]]
    refs = [ln.split(",") for ln in ref.out.splitlines()[1:]]
    close = len(rows) == len(refs) == 16 and all(
        abs(float(a) - float(b)) < 1e-5 * (1 + abs(float(b))) for x, y in zip(rows, refs)
        for a, b in zip(x[1:], y[1:]))
    check(f"{tag}: a long --jit run switches to the compiled code on the way (rows agree with "
          f"the tape's)", r.returncode == 0 and m is not None and 0 < float(m.group(1)) < tf
          and close, (r.err, rows[-1:], refs[-1:]))
    # a signal to the run stops the helper and its compiler too
    c8 = os.path.join(d, "c8")
    pids8 = os.path.join(d, "pids8")
    open(slowpid, "w").write(f"#!/bin/sh\necho $$ >> {pids8}\nsleep 3\nexec cc \"$@\"\n")
    p = subprocess.Popen([L, "simulate", CHAIN, "--tf", "1e4", "--dt", "10", "--jit"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(os.environ, LAGRANGE_CACHE_DIR=c8, CC=f"sh {slowpid}"))
    deadline = time.time() + 60
    while time.time() < deadline and not os.path.exists(pids8):
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    p.communicate(60)
    stopped = os.path.exists(pids8) and gone(pids8)
    deadline = time.time() + 10  # the helper removes its folder after its compiler ended
    while time.time() < deadline and entries(c8) != []:
        time.sleep(0.05)
    check(f"{tag}: SIGTERM to a --jit run stops its helper and compiler; no work folder is left",
          p.returncode == -signal.SIGTERM and stopped and entries(c8) == [], (p.returncode, files(c8) if os.path.isdir(c8) else None))


# ---- reading the model ---------------------------------------------------------------------------------
def reading(L, tag):
    t0 = time.time()
    r = run(L, "eom", "/dev/zero", timeout=30)
    check(f"{tag}: eom /dev/zero stops at once with exit 1",
          r.returncode == 1 and time.time() - t0 < 20 and "/dev/zero" in r.err, r.err)
    with tempfile.TemporaryDirectory() as d:
        big = os.path.join(d, "big.lag")
        with open(big, "wb") as f:
            f.truncate(65 << 20)
        r = run(L, "eom", big)
        check(f"{tag}: a 65 MB model file is refused (64 MB limit)",
              r.returncode == 1 and "larger than 64 MB" in r.err, r.err)
        r = run(L, "eom", "-", input=b" " * ((64 << 20) + 10), timeout=60)
        check(f"{tag}: more than 64 MB on stdin is refused",
              r.returncode == 1 and "<stdin>" in r.err and "64 MB" in r.err, r.err)
        nul = os.path.join(d, "nul.lag")
        open(nul, "wb").write(b"coordinates x\nT = x'^2\0 + 1\n")
        r = run(L, "eom", nul)
        check(f"{tag}: a NUL byte is an error at its line:col",
              r.returncode == 1 and f"{nul}:2:9:" in r.err and "NUL" in r.err, r.err)
        open(nul, "wb").write(b"coordinates x  # a note\0\nT = x'^2\n")
        r = run(L, "eom", nul)
        check(f"{tag}: a NUL byte in a comment too", r.returncode == 1 and f"{nul}:1:24:" in r.err
              and "NUL" in r.err, r.err)
        open(nul, "wb").write(b"\xff\xfe\0\0garbage")
        r = run(L, "eom", nul)
        check(f"{tag}: a malformed byte before a NUL is reported first (1:1)",
              r.returncode == 1 and f"{nul}:1:1:" in r.err, r.err)
        text = open(CART, "rb").read()
        want = run(L, "eom", CART).out
        cr = os.path.join(d, "cart.lag")
        for name, data in (("CR", text.replace(b"\n", b"\r")),
                           ("CR LF", text.replace(b"\n", b"\r\n"))):
            open(cr, "wb").write(data)
            r = run(L, "eom", cr)
            check(f"{tag}: {name} line ends read like LF", r.returncode == 0 and r.out == want,
                  r.err)
        open(cr, "wb").write(b"coordinates x\rT = x'^2\rV = $x\r")
        r = run(L, "eom", cr)
        check(f"{tag}: positions after CR line ends count lines", f"{cr}:3:" in r.err, r.err)
    r = run(L, "eom", "-", input=text)
    check(f"{tag}: '-' reads the model from stdin", r.returncode == 0 and r.out == want, r.err)
    r = run(L, "eom", "-", input=b"coordinates x\nT = x'^2 +\n")
    check(f"{tag}: diagnostics name stdin <stdin>", r.returncode == 1
          and r.err.startswith("<stdin>:"), r.err)
    r = run(L, "eom", "/nonexistent/m.lag")
    check(f"{tag}: a missing model file says so (file:1:1: as every model error)",
          r.returncode == 1 and r.err.startswith("/nonexistent/m.lag:1:1: cannot read"), r.err)


# ---- plots and limits ---------------------------------------------------------------------------------
def plots(L, tag):
    with tempfile.TemporaryDirectory() as d:
        for ext in ("gif", "svgz", "txt", "png.bak"):
            r = run(L, "simulate", CART, "--plot", os.path.join(d, "p." + ext))
            check(f"{tag}: --plot p.{ext} is a usage error (exit 2), nothing written",
                  r.returncode == 2 and files(d) == [], r.err)
        magic = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "svg": b"<?xml"}
        for ext, head in magic.items():
            p = os.path.join(d, "p." + ext)
            r = run(L, "simulate", CART, "--tf", "1", "--plot", p, "--out", os.devnull)
            data = open(p, "rb").read() if os.path.exists(p) else b""
            check(f"{tag}: --plot p.{ext} is a real {ext.upper()} file",
                  r.returncode == 0 and data.startswith(head) and len(data) > 1000, r.err)
    r = run(L, "simulate", CART, "--tf", "1e6")
    check(f"{tag}: a run of more than 10 million rows is refused up front (exit 2)",
          r.returncode == 2 and "--max-rows" in r.err and r.out == "", r.err)
    r = run(L, "simulate", CART, "--tf", "3", "--max-rows", "200")
    check(f"{tag}: --max-rows lowers the limit", r.returncode == 2, r.err)
    r = run(L, "simulate", CART, "--tf", "3", "--max-rows", "301", "--out", os.devnull)
    check(f"{tag}: --max-rows N admits exactly N rows", r.returncode == 0, r.err)
    r = run(L, "simulate", CART, "--max-rows", "0")
    check(f"{tag}: --max-rows 0 is a usage error", r.returncode == 2, r.err)


for i, L in enumerate(BINS):
    tag = "sanitized" if i else "release"
    for case in (regular_and_links, devices, concurrent, killed, failures, folders, injections,
                 jit, reading, plots):
        case(L, tag)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
