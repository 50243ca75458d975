#!/usr/bin/env python3
"""--version, help, COMMAND --help, and the man page against the parser:
every subcommand `lagrange help` lists and every option src/cli/cli_args.c
accepts must be documented in man/lagrange.1."""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


def run(exe, *args):
    return subprocess.run([exe] + list(args), capture_output=True, text=True)


def main():
    exes = [os.path.join(ROOT, a) for a in sys.argv[1:]] or [os.path.join(ROOT, "build/lagrange")]
    header = open(os.path.join(ROOT, "src/api/lagrange.h")).read()
    version = re.search(r'LAGRANGE_VERSION_STRING "([^"]+)"', header).group(1)
    man = open(os.path.join(ROOT, "man/lagrange.1")).read().replace("\\-", "-")
    for exe in exes:
        r = run(exe, "--version")
        check(r.returncode == 0 and r.stdout == "lagrange %s\n" % version, "--version: " + r.stdout)
        r = run(exe, "help")
        check(r.returncode == 0 and r.stdout.startswith("usage:"), "help")
        commands = re.findall(r"lagrange (\w+)", r.stdout)
        check({"eom", "eval", "simulate", "codegen"} <= set(commands), "help lists %s" % commands)
        for cmd in set(commands):
            h = run(exe, "help", cmd)
            check(h.returncode == 0 and h.stdout.startswith("usage: lagrange " + cmd), "help " + cmd)
            if cmd != "help":
                h2 = run(exe, cmd, "--help")
                check(h2.returncode == 0 and h2.stdout == h.stdout, cmd + " --help")
                h3 = run(exe, cmd, "some.lag", "-h")
                check(h3.returncode == 0 and h3.stdout == h.stdout, cmd + " MODEL -h")
            check(re.search(r"^\.SS %s$" % cmd, man, re.M) is not None, "man page section " + cmd)
        r = run(exe, "help", "nope")
        check(r.returncode == 2 and "unknown command 'nope'" in r.stderr, "help nope")
        r = run(exe)
        check(r.returncode == 2 and "usage:" in r.stderr, "no arguments")
    # every option the parser knows is in the man page
    args = open(os.path.join(ROOT, "src/cli/cli_args.c")).read()
    options = set(re.findall(r'"(--?[a-z][a-z0-9-]*)"', args))
    check(len(options) > 10, "options found: %s" % sorted(options))
    for opt in sorted(options):
        check(re.search(r"(^|[\s\[(])" + re.escape(opt) + r"\b", man, re.M) is not None,
              "man page documents " + opt)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
