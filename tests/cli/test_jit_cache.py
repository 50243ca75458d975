#!/usr/bin/env python3
"""The JIT cache cannot be used to run someone else's code (issue 21).

`simulate --jit` loads compiled code from its cache folder. The folder and
every folder above it must be root's or ours and writable by nobody else
(unless sticky, as /tmp); the folder itself ours and writable by nobody
else. An unsafe folder is refused with a warning that says how to fix it,
and the run goes on with the tape (the same CSV, byte for byte). Symbolic
links on the way are followed only when nobody else could have made them.
The object is loaded through a checked descriptor: a link, or a file others
can write, in place of the object is never loaded (a planted object with a
constructor writes a marker file that must never appear), also not when a
writable parent lets the folder be swapped during the run. A FIFO in place
of the key does not hang the run. Two runs compile one key once (a lock);
work folders a killed run left are removed by the next run; a background
compile ends with its run.

The tests run as root here: root's files count as ours, so the refusals
are exercised through modes, and through chown to another uid where an
owner matters (skipped when not root).

usage: test_jit_cache.py LAGRANGE [SANITIZED_LAGRANGE]"""
import ctypes, fcntl, os, shutil, signal, stat, subprocess, sys, tempfile, threading, time

BINS = [os.path.abspath(b) for b in sys.argv[1:]] or ["build/lagrange"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CART = os.path.abspath(os.path.join(ROOT, "examples", "cart_pendulum.lag"))
CHAIN = os.path.abspath(os.path.join(ROOT, "tests", "cli", "sim", "chain8_small.lag"))
ROOTUSER = os.geteuid() == 0
NOBODY = 65534
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:900]))


def run(L, cache, *args, env=None, timeout=300):
    """simulate CART --tf 1 --jit=wait ARGS with LAGRANGE_CACHE_DIR=cache;
    a run that hangs is killed at the timeout (returncode None)."""
    e = dict(os.environ)
    e.pop("CC", None)
    if cache is not None:
        e["LAGRANGE_CACHE_DIR"] = cache
    e.update(env or {})
    cmd = [L, "simulate", CART, "--tf", "1", "--jit=wait", *args]
    try:
        r = subprocess.run(cmd, capture_output=True, env=e, timeout=timeout)
    except subprocess.TimeoutExpired as t:
        r = subprocess.CompletedProcess(cmd, None, t.stdout or b"", t.stderr or b"")
    r.out, r.err = r.stdout.decode(), r.stderr.decode(errors="replace")
    if "Sanitizer" in r.err or "runtime error" in r.err:
        check(f"sanitizer-clean {args}", False, r.err)
    return r


def tape(L):
    e = dict(os.environ)
    return subprocess.run([L, "simulate", CART, "--tf", "1"], capture_output=True, env=e).stdout.decode()


def entry(cache, ext):
    """The cache entry's file with this extension (the name is the key's hash)."""
    names = [f for f in os.listdir(cache) if f.endswith(ext)] if os.path.isdir(cache) else []
    return names[0] if len(names) == 1 else None


def work_folders(cache):
    return [f for f in os.listdir(cache) if f.startswith("tmp-")] if os.path.isdir(cache) else []


def refused(r, what):
    return (r.returncode == 0 and "warning: --jit:" in r.err and what in r.err
            and "not using it" in r.err and "using the evaluation tape instead" in r.err)


def evil_object(d, marker):
    """A shared object with the JIT's functions whose constructor writes marker."""
    src = os.path.join(d, "evil.c")
    so = os.path.join(d, "evil.so")
    open(src, "w").write(
        '#include <stdio.h>\n'
        '__attribute__((constructor)) static void pwn(void) {\n'
        f'  FILE *f = fopen("{marker}", "w"); if (f) {{ fputs("pwned", f); fclose(f); }} }}\n'
        'int lg_jit_rhs(double t, const double *x, const double *u, const double *p, double *d)\n'
        '{ (void)t; (void)x; (void)u; (void)p; (void)d; return 1; }\n'
        'int lg_jit_rhs_recursive(double t, const double *x, const double *u, const double *p,\n'
        '  double *d) { (void)t; (void)x; (void)u; (void)p; (void)d; return 1; }\n')
    subprocess.run(["cc", "-shared", "-fPIC", "-o", so, src], check=True)
    return so


# ---- unsafe folders are refused; the run is the tape's ------------------------------------------
def unsafe_folders(L, tag, d, plain):
    for mode in (0o777, 0o770, 0o1777):
        c = os.path.join(d, f"open{mode:o}")
        os.mkdir(c)
        os.chmod(c, mode)
        r = run(L, c)
        check(f"{tag}: a cache folder of mode {mode:04o} is refused with the fix; the run is the "
              f"tape's, byte for byte", refused(r, "is writable by others") and f"chmod go-w {c}"
              in r.err and "LAGRANGE_CACHE_DIR" in r.err and r.out == plain
              and os.listdir(c) == [], r.err)
    p = os.path.join(d, "shared")
    os.mkdir(p)
    os.chmod(p, 0o777)
    c = os.path.join(p, "cache")
    r = run(L, c)
    check(f"{tag}: a parent folder writable by others (0777, not sticky) is refused; nothing is "
          f"made in it", refused(r, f"the folder {p} on its way is writable by others")
          and r.out == plain and not os.path.exists(c), r.err)
    os.chmod(p, 0o1777)
    r = run(L, c)
    check(f"{tag}: under a sticky parent (as /tmp) the cache is used",
          r.returncode == 0 and "warning" not in r.err and entry(c, ".so") is not None, r.err)
    r = run(L, os.path.join(p, "cache", "..", "cache2"))
    check(f"{tag}: '..' in the path goes back up the folders walked",
          r.returncode == 0 and "warning" not in r.err and entry(os.path.join(p, "cache2"), ".so"),
          r.err)
    if ROOTUSER:
        mine = os.path.join(d, "notmine")
        os.mkdir(mine, 0o700)
        os.chown(mine, NOBODY, NOBODY)
        r = run(L, mine)
        check(f"{tag}: a cache folder of another uid is refused",
              refused(r, f"belongs to uid {NOBODY}, not to you") and r.out == plain, r.err)
        q = os.path.join(d, "theirs")
        os.mkdir(q, 0o755)
        os.chown(q, NOBODY, NOBODY)
        r = run(L, os.path.join(q, "cache"))
        check(f"{tag}: a parent of another uid (not root) is refused",
              refused(r, f"the folder {q} on its way belongs to uid {NOBODY}")
              and r.out == plain, r.err)
    # without a cache folder the compile happens in $TMPDIR, checked the same way
    t = os.path.join(d, "tmpdir")
    os.mkdir(t)
    os.chmod(t, 0o777)
    env = {"LAGRANGE_CACHE_DIR": "", "XDG_CACHE_HOME": "", "HOME": "", "TMPDIR": t}
    r = run(L, None, env=env)
    check(f"{tag}: without a cache, a TMPDIR writable by others is refused",
          refused(r, f"the temporary folder {t}") and "TMPDIR" in r.err and r.out == plain
          and os.listdir(t) == [], r.err)
    os.chmod(t, 0o700)
    r = run(L, None, env=env)
    check(f"{tag}: without a cache, a private TMPDIR is used and left empty",
          r.returncode == 0 and "warning" not in r.err and os.listdir(t) == [], (r.err, os.listdir(t)))


# ---- symbolic links ---------------------------------------------------------------------------------
def links(L, tag, d, plain):
    real = os.path.join(d, "real")
    os.mkdir(real, 0o700)
    link = os.path.join(d, "link")
    os.symlink(real, link)
    r = run(L, link)
    check(f"{tag}: a link in a private folder is followed (the entry is in its target)",
          r.returncode == 0 and "warning" not in r.err and entry(real, ".so") is not None, r.err)
    if ROOTUSER:
        s = os.path.join(d, "sticky")
        os.mkdir(s)
        os.chmod(s, 0o1777)
        theirs = os.path.join(s, "cache")
        os.symlink(real, theirs)
        os.lchown(theirs, NOBODY, NOBODY)
        r = run(L, theirs)
        check(f"{tag}: another uid's link in a folder others can write to is not followed",
              refused(r, f"the symbolic link {theirs} on its way belongs to uid {NOBODY}") and r.out == plain, r.err)


# ---- planted objects are never loaded --------------------------------------------------------------
def planted(L, tag, d, plain):
    marker = os.path.join(d, "MARKER")
    evil = evil_object(d, marker)
    good = os.path.join(d, "good")
    waited = run(L, good)
    key, so = entry(good, ".key"), entry(good, ".so")
    check(f"{tag}: --jit=wait fills the cache (an entry .so and .key)", key and so, os.listdir(good))
    if not (key and so):
        return
    keytext = open(os.path.join(good, key), "rb").read()

    def plant(name, how):
        c = os.path.join(d, name)
        os.mkdir(c, 0o700)
        open(os.path.join(c, key), "wb").write(keytext)
        os.chmod(os.path.join(c, key), 0o600)
        if how == "link":
            os.symlink(evil, os.path.join(c, so))
        else:
            shutil.copy(evil, os.path.join(c, so))
            os.chmod(os.path.join(c, so), 0o777)
        return c

    for how, what in (("link", "a symbolic link"), ("writable", "a file others can write")):
        c = plant("plant-" + how, how)
        r = run(L, c)
        check(f"{tag}: {what} in place of the object is never loaded (compiled anew instead)",
              r.returncode == 0 and not os.path.exists(marker) and r.out == waited.out
              and "warning" not in r.err and not os.path.islink(os.path.join(c, so)),
              (r.err, os.path.exists(marker)))
    # a writable parent lets the folder be swapped during the run: the
    # attacker exchanges the cache with their own folder as fast as it can
    p = os.path.join(d, "swap")
    os.mkdir(p)
    os.chmod(p, 0o777)
    real = os.path.join(p, "cache")
    shutil.copytree(good, real)
    theirs = plant("theirs", "writable")
    os.rename(theirs, os.path.join(p, "theirs"))
    if os.path.exists(marker):
        os.unlink(marker)  # (an earlier failure)
    libc = ctypes.CDLL(None, use_errno=True)
    stop = threading.Event()

    def attacker():
        a, b = real.encode(), os.path.join(p, "theirs").encode()
        while not stop.is_set():
            libc.renameat2(-100, a, -100, b, 2)  # AT_FDCWD, RENAME_EXCHANGE

    t = threading.Thread(target=attacker)
    t.start()
    deadline, runs, warned = time.time() + 20, 0, True
    while time.time() < deadline and runs < 12 and not os.path.exists(marker):
        r = run(L, real)
        runs += 1
        warned = warned and refused(r, "on its way is writable by others")
    stop.set()
    t.join()
    check(f"{tag}: swapping the cache folder under a writable parent never gets code loaded "
          f"({runs} runs, each refused)", not os.path.exists(marker) and warned, runs)


# ---- a FIFO as the key ------------------------------------------------------------------------------
def fifo(L, tag, d, plain):
    c = os.path.join(d, "fifo")
    first = run(L, c)
    key = entry(c, ".key")
    if key:
        os.unlink(os.path.join(c, key))
        os.mkfifo(os.path.join(c, key), 0o600)
    t0 = time.time()
    r = run(L, c, timeout=60)
    check(f"{tag}: a FIFO in place of the key does not hang the run (the entry is made anew)",
          key and r.returncode == 0 and time.time() - t0 < 60 and r.out == first.out
          and "warning" not in r.err and stat.S_ISREG(os.stat(os.path.join(c, key)).st_mode),
          (r.returncode, r.err))


# ---- one compile per key; work folders of killed runs ---------------------------------------------
def slow_cc(d, name, log, secs=1.5):
    """A compiler that logs its pid, waits, then compiles."""
    path = os.path.join(d, name)
    open(path, "w").write(f'#!/bin/sh\necho $$ >> {log}\nsleep {secs}\nexec cc "$@"\n')
    os.chmod(path, 0o755)
    return path


def pids_of(log):
    return [int(x) for x in open(log).read().split()] if os.path.exists(log) else []


def alive(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(") ", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def wait_until(cond, timeout=15):
    deadline = time.time() + timeout
    while not cond() and time.time() < deadline:
        time.sleep(0.05)
    return cond()


def locking(L, tag, d, plain):
    c = os.path.join(d, "locked")
    log = os.path.join(d, "lock.log")
    cc = slow_cc(d, "slowcc.sh", log)
    e = dict(os.environ, LAGRANGE_CACHE_DIR=c, CC=cc)
    ps = [subprocess.Popen([L, "simulate", CART, "--tf", "1", "--jit=wait"], env=e,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in ps]
    check(f"{tag}: two concurrent runs of one key compile it once (a lock), both use it",
          len(pids_of(log)) == 1 and all(p.returncode == 0 for p in ps)
          and outs[0][0] == outs[1][0] and all(b"warning" not in o[1] for o in outs),
          (pids_of(log), [o[1][-300:] for o in outs]))
    # in the background too: the second helper waits for the first one's object
    # (runs of a few seconds: the second helper is waiting for the lock while
    # the first one's compiler sleeps, however the switch then falls. A run
    # that ends first stops its compiler, and the other helper then rightly
    # compiles again: on a loaded machine the runs are made longer until
    # both outlast the compile)
    for k, tf in enumerate(("2000", "8000", "32000")):
        c = os.path.join(d, f"locked-bg-{k}")
        log = os.path.join(d, f"lock-bg-{k}.log")
        cc = slow_cc(d, f"slowcc-bg-{k}.sh", log)
        e = dict(os.environ, LAGRANGE_CACHE_DIR=c, CC=cc)
        ps = [subprocess.Popen([L, "simulate", CHAIN, "--tf", tf, "--dt", "10", "--rtol", "1e-6",
                                "--atol", "1e-6", "--jit"], env=e,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
        outs = [p.communicate(timeout=600) for p in ps]
        if all(b"the run ended before the compiler" not in o[1] for o in outs):
            break
    check(f"{tag}: two concurrent background compiles of one key run one compiler",
          len(pids_of(log)) == 1 and all(p.returncode == 0 for p in ps)
          and all(b"warning" not in o[1] for o in outs),
          (pids_of(log), [o[1][-300:] for o in outs]))


def stale(L, tag, d, plain):
    c = os.path.join(d, "stale")
    run(L, c)
    dead = subprocess.Popen(["true"])
    dead.wait()
    gone = os.path.join(c, f"tmp-{dead.pid}-0123456789abcdef")
    os.mkdir(gone, 0o700)
    open(os.path.join(gone, "lg_jit.c"), "w").write("left over\n")
    live = os.path.join(c, f"tmp-{os.getpid()}-0123456789abcdef")
    os.mkdir(live, 0o700)
    held = os.path.join(c, f"tmp-{dead.pid}-fedcba9876543210")
    os.mkdir(held, 0o700)
    fd = os.open(held, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    r = run(L, c)
    os.close(fd)
    check(f"{tag}: a run removes the work folder of a process that is gone",
          r.returncode == 0 and not os.path.exists(gone), os.listdir(c))
    check(f"{tag}: ... but not one whose process lives or whose lock is held",
          os.path.isdir(live) and os.path.isdir(held), os.listdir(c))
    os.rmdir(live)
    os.rmdir(held)
    # SIGKILL of the run (and of its helper): the next run removes what they left
    c = os.path.join(d, "killed")
    log = os.path.join(d, "killed.log")
    cc = slow_cc(d, "slowcc2.sh", log)
    e = dict(os.environ, LAGRANGE_CACHE_DIR=c, CC=cc)
    p = subprocess.Popen([L, "simulate", CHAIN, "--tf", "1e5", "--dt", "10", "--jit"], env=e,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: pids_of(log), 60)
    sh = pids_of(log)[0] if pids_of(log) else None
    helper = int(open(f"/proc/{sh}/stat").read().rsplit(") ", 1)[1].split()[1]) if sh else None
    for pid in (p.pid, helper):
        if pid:
            os.kill(pid, signal.SIGKILL)
    p.wait()
    left = work_folders(c)
    wait_until(lambda: not alive(sh), 30)  # the orphaned compiler finishes
    r = run(L, c)
    check(f"{tag}: after SIGKILL of a run and its helper, the next run removes their work folder",
          sh and left and r.returncode == 0 and work_folders(c) == [], (left, work_folders(c)))
    # SIGKILL of the run alone: its helper and compiler end at once
    log = os.path.join(d, "orphan.log")
    cc = slow_cc(d, "slowcc3.sh", log, 10)
    c = os.path.join(d, "orphan")
    e = dict(os.environ, LAGRANGE_CACHE_DIR=c, CC=cc)
    p = subprocess.Popen([L, "simulate", CHAIN, "--tf", "1e5", "--dt", "10", "--jit"], env=e,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: pids_of(log), 60)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    sh = pids_of(log)[0] if pids_of(log) else None
    check(f"{tag}: after SIGKILL of a run, its compiler ends with it and its work folder goes",
          sh and wait_until(lambda: not alive(sh), 3) and wait_until(lambda: not work_folders(c), 3),
          (sh, work_folders(c)))


for i, L in enumerate(BINS):
    tag = "sanitized" if i else "release"
    plain = tape(L)
    for case in (unsafe_folders, links, planted, fifo, locking, stale):
        with tempfile.TemporaryDirectory() as d:
            os.chmod(d, 0o700)
            case(L, tag, d, plain)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
