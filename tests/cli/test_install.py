#!/usr/bin/env python3
"""`make install` into a temporary DESTDIR, then build against it the way a
user would: examples/api/accel.c through pkg-config, static and shared, and
tests/api/contract.c (only the names of ../shared/API.md) with gcc and
clang at -Wall -Wextra -Werror -pedantic. Their accelerations must equal
`lagrange eval --json` to 1e-12; the man pages must render without
warnings; `make uninstall` must remove every file."""
import json, os, random, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAGRANGE = os.path.join(ROOT, sys.argv[1] if len(sys.argv) > 1 else "build/lagrange")
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def close(a, b, tol=1e-12):
    return abs(a - b) <= tol * max(1.0, abs(b))


def evaluate(model, method, state=None):
    cmd = [LAGRANGE, "eval", model, "--json", "--method", method]
    if state:
        cmd += ["--state", state]
    r = run(cmd)
    return json.loads(r.stdout) if r.returncode == 0 else None


def parse_accel(text):
    qdd, lam = {}, []
    for line in text.splitlines():
        name, value = line.split(" = ")
        if name.endswith("''"):
            qdd[name[:-2]] = float(value)
        else:
            lam.append(float(value))
    return qdd, lam


def compare_accel(exe, env, model, method):
    r = run([exe, model] + (["kane"] if method == "kane" else []), env=env)
    ref = evaluate(model, method)
    if r.returncode != 0 or ref is None:
        check(False, "%s %s %s: %s" % (exe, model, method, r.stderr.strip()))
        return
    qdd, lam = parse_accel(r.stdout)
    ok = [close(qdd[c], v) for c, v in zip(ref["coordinates"], ref["qdd"])]
    if method == "lagrange":
        ok += [close(a, b) for a, b in zip(lam, ref["lam"])] + [len(lam) == len(ref["lam"])]
    check(all(ok) and len(qdd) == len(ref["coordinates"]),
          "%s %s %s: %s vs %s" % (os.path.basename(exe), model, method, r.stdout, ref["qdd"]))


def compare_contract(exe, env, model, method, rng):
    ref0 = evaluate(model, method)
    names = ref0["coordinates"]
    q = [rng.uniform(-1, 1) for _ in names]
    qd = [rng.uniform(-1, 1) for _ in names]
    t = rng.uniform(0, 1)
    state = ", ".join("%s=%r, %s'=%r" % (c, a, c, b) for c, a, b in zip(names, q, qd))
    ref = run([LAGRANGE, "eval", model, "--json", "--method", method, "--t", repr(t),
               "--state", state])
    r = run([exe, model, method, repr(t)] + [repr(x) for x in q + qd], env=env)
    if ref.returncode != 0:  # a singular state: the library must say so too
        check(r.returncode == 4, "%s %s %s singular: %s" % (exe, model, method, r.stderr))
        return
    ref = json.loads(ref.stdout)
    lines = dict(l.split(" ", 1) for l in r.stdout.splitlines() if " " in l)
    got = [float(x) for x in lines.get("qdd", "").split()]
    ok = len(got) == len(names) and all(close(a, b) for a, b in zip(got, ref["qdd"]))
    if method == "lagrange":
        lam = [float(x) for x in lines.get("lam", "").split()]
        ok = ok and len(lam) == len(ref["lam"]) and all(close(a, b) for a, b in zip(lam, ref["lam"]))
    check(r.returncode == 0 and ok, "%s %s %s at %s: %s / %s" % (
        os.path.basename(exe), model, method, state, r.stdout + r.stderr, ref["qdd"]))


def main():
    tmp = tempfile.mkdtemp(prefix="lagrange-install-")
    try:
        dest, prefix = os.path.join(tmp, "root"), "/usr/local"
        r = run(["make", "-s", "-C", ROOT, "install", "DESTDIR=" + dest, "PREFIX=" + prefix])
        check(r.returncode == 0, "make install: " + r.stderr)
        top = dest + prefix
        files = ["bin/lagrange", "lib/liblagrange.a", "lib/liblagrange.so", "include/lagrange.h",
                 "lib/pkgconfig/lagrange.pc", "share/man/man1/lagrange.1",
                 "share/man/man5/lagrange-model.5"]
        for f in files:
            check(os.path.exists(os.path.join(top, f)), "installed " + f)
        sonames = [f for f in os.listdir(os.path.join(top, "lib")) if f.startswith("liblagrange.so.")]
        check(len(sonames) == 1 and os.readlink(os.path.join(top, "lib/liblagrange.so")) == sonames[0],
              "liblagrange.so -> liblagrange.so.MAJOR")
        major = run(["sh", "-c", "readelf -d %s/lib/%s | grep SONAME" % (top, sonames[0])]).stdout
        check("[%s]" % sonames[0] in major, "soname " + major.strip())
        exported = run(["nm", "-D", "--defined-only", os.path.join(top, "lib", sonames[0])]).stdout.split("\n")
        names = [l.split()[-1] for l in exported if l.strip()]
        check(names and all(n.startswith("lg_") for n in names),
              "only lg_* exported: %s" % [n for n in names if not n.startswith("lg_")][:5])
        r = run([os.path.join(top, "bin/lagrange"), "--version"])
        check(r.returncode == 0 and r.stdout.startswith("lagrange "), "installed --version")
        # MPI lives in a plugin the installed binary finds in ../lib/lagrange;
        # nothing else links libmpi
        lagrange_bin = os.path.join(top, "bin/lagrange")
        check("libmpi" not in run(["ldd", lagrange_bin]).stdout, "lagrange does not link libmpi")
        plugin = os.path.join(top, "lib/lagrange/lagrange-mpi.so")
        mpirun = shutil.which("mpirun")
        if os.path.exists(os.path.join(ROOT, "build", "lagrange-mpi.so")) and mpirun:
            check(os.path.exists(plugin), "installed lib/lagrange/lagrange-mpi.so")
            model = os.path.join(ROOT, "examples", "cart_pendulum.lag")
            r = run([mpirun, "-n", "2", "--oversubscribe", lagrange_bin, "sweep", model,
                     "--vary", "m=1:2:3", "--tf", "0.5"],
                    env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                             OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
            check(r.returncode == 0 and "2 MPI ranks" in r.stderr and r.stdout.count("\n") == 4,
                  "the installed lagrange sweeps over 2 MPI ranks with its plugin: " + r.stderr)

        # pkg-config, as a user with the install under a sysroot
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(top, "lib/pkgconfig"),
                   PKG_CONFIG_SYSROOT_DIR=dest)
        pc = lambda *a: run(["pkg-config"] + list(a) + ["lagrange"], env=env).stdout.split()
        cflags, libs, static = pc("--cflags"), pc("--libs"), pc("--static", "--libs")
        check("-llagrange" in libs and len(static) > len(libs), "pkg-config libs %s %s" % (libs, static))
        # the static link: the archive by name (the linker would prefer the
        # .so beside it), the rest from Libs.private
        archive = ["-l:liblagrange.a" if x == "-llagrange" else x for x in static]
        run_env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(top, "lib"))
        bins = {}
        src = os.path.join(ROOT, "examples/api/accel.c")
        # shared; the archive with shared dependencies; everything static
        for kind, flags in (("shared", libs), ("static", archive),
                            ("allstatic", ["-static"] + static)):
            exe = os.path.join(tmp, "accel_" + kind)
            r = run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe, src] + cflags + flags)
            check(r.returncode == 0 and "error" not in r.stderr,
                  "build accel %s: %s" % (kind, r.stderr))
            bins[kind] = exe
        ldd = run(["ldd", bins["shared"]], env=run_env).stdout
        check(os.path.join(top, "lib") in ldd, "accel_shared loads the installed .so")
        check("liblagrange" not in run(["ldd", bins["static"]]).stdout, "accel_static has no .so")
        check(run(["ldd", bins["allstatic"]]).returncode != 0, "accel_allstatic is static")
        contract = os.path.join(ROOT, "tests/api/contract.c")
        for cc in ("gcc", "clang"):
            exe = os.path.join(tmp, "contract_" + cc)
            r = run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-o", exe, contract]
                    + cflags + libs)
            check(r.returncode == 0, "contract with %s: %s" % (cc, r.stderr))
            bins["contract_" + cc] = exe
        models = ["examples/cart_pendulum.lag", "examples/particle_bowl.lag",
                  "examples/double_rod_pendulum.lag", "examples/pendulum_3d_cartesian.lag",
                  "examples/rolling_sphere.lag", "tests/cli/models/rolling_disk_nh.lag",
                  "examples/spring_mass.lag", "examples/bead_rotating_wire.lag"]
        rng = random.Random(11)
        for m in models:
            model = os.path.join(ROOT, m)
            for method in ("lagrange", "kane"):
                for kind in ("shared", "static", "allstatic"):
                    compare_accel(bins[kind], os.environ if kind == "allstatic" else run_env,
                                  model, method)
                for cc in ("gcc", "clang"):
                    compare_contract(bins["contract_" + cc], run_env, model, method, rng)

        # lg_simulate against `lagrange simulate` (the same integrators; the
        # command simplifies the expressions first, hence round-off apart)
        exe = os.path.join(tmp, "simulate")
        r = run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe,
                 os.path.join(ROOT, "examples/api/simulate.c")] + cflags + libs)
        check(r.returncode == 0, "build simulate: " + r.stderr)
        for m, tf in (("examples/particle_bowl.lag", "1"), ("examples/cart_pendulum.lag", "2"),
                      ("examples/spring_mass.lag", "3")):
            model = os.path.join(ROOT, m)
            a = run([exe, model, tf], env=run_env)
            b = run([LAGRANGE, "simulate", model, "--tf", tf])
            ra = [l.split(",") for l in a.stdout.splitlines()]
            rb = [l.split(",") for l in b.stdout.splitlines()]
            ok = a.returncode == 0 and b.returncode == 0 and len(ra) == len(rb) > 2
            ok = ok and ra[0] == rb[0]
            for x, y in zip(ra[1:], rb[1:]):
                ok = ok and len(x) == len(y) and all(
                    abs(float(u) - float(v)) <= 1e-7 * max(1.0, abs(float(v))) for u, v in zip(x, y))
            check(ok, "lg_simulate vs simulate on %s: %s" % (m, a.stderr + b.stderr))

        # lg_linearize against `lagrange linearize --json`
        exe = os.path.join(tmp, "linearize")
        r = run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe,
                 os.path.join(ROOT, "tests/api/linearize.c")] + cflags + libs)
        check(r.returncode == 0, "build linearize: " + r.stderr)
        for m in ("examples/cart_pendulum.lag", "examples/particle_bowl.lag",
                  "examples/double_rod_pendulum.lag", "tests/cli/models/bead_input.lag",
                  "examples/rolling_sphere.lag"):
            model = os.path.join(ROOT, m)
            for method in ("lagrange", "kane"):
                a = run([exe, model, method], env=run_env)
                b = run([LAGRANGE, "linearize", model, "--json", "--method", method])
                if b.returncode != 0:  # a model the command refuses: so must the library
                    check(a.returncode != 0, "linearize %s %s refused: %s" % (m, method, a.stdout))
                    continue
                if method == "kane" and a.returncode == 3:
                    # declared speeds: the library linearizes in q' only (documented)
                    check("speeds" in a.stderr, "linearize %s kane refusal: %s" % (m, a.stderr))
                    continue
                ok = a.returncode == 0
                if ok:
                    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
                    ok = ja["state"] == jb["state"]
                    flat = lambda x: [v for row in x for v in (row if isinstance(row, list) else [row])]
                    for key in ("x0", "A", "B"):
                        va, vb = flat(ja[key]), flat(jb[key])
                        ok = ok and len(va) == len(vb) and all(close(u, v, 1e-10) for u, v in zip(va, vb))
                check(ok, "lg_linearize vs linearize on %s %s: %s %s" % (m, method, a.stdout[:300], a.stderr))

        # the header is C++-clean too
        r = subprocess.run(["g++", "-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-x",
                            "c++", "-fsyntax-only", "-"] + cflags,
                           input="#include <lagrange.h>\nint main() { return lg_version() ? 0 : 1; }\n",
                           capture_output=True, text=True)
        check(r.returncode == 0, "lagrange.h in C++: " + r.stderr)

        # the man pages render without a warning
        for page in ("share/man/man1/lagrange.1", "share/man/man5/lagrange-model.5"):
            r = run(["man", "--warnings", "-l", os.path.join(top, page)],
                    env=dict(os.environ, MANWIDTH="80", MANPAGER="cat", PAGER="cat"))
            check(r.returncode == 0 and not r.stderr.strip() and "NAME" in r.stdout,
                  "man -l %s: %s" % (page, r.stderr))

        r = run(["make", "-s", "-C", ROOT, "uninstall", "DESTDIR=" + dest, "PREFIX=" + prefix])
        left = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs]
        check(r.returncode == 0 and not left, "make uninstall leaves %s" % left)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
