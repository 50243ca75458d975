#!/usr/bin/env python3
"""Replay the regression inputs in tests/fuzz/regress/ (what the fuzzers
found, minimized) through every command, both methods, under the given
binary (the sanitized one in `make check`). Each run must end well (see
lagcheck.py); each `# check: ARGS => REGEX` line in a file must exit 0 with
REGEX found in stdout.

usage: replay.py LAGRANGE [FILE...]"""
import glob, os, re, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lagcheck  # noqa: E402

# Every path through the pipeline a model can take from the command line.
COMMANDS = [["eom"], ["eom", "--format", "latex"], ["eom", "--format", "json"],
            ["eval", "--json"], ["codegen"], ["codegen", "--lang", "python"],
            ["simulate", "--t0", "0", "--tf", "0.05", "--dt", "0.01"]]
METHODS = [["--method", "lagrange"], ["--method", "kane"]]


def all_commands():
    return [c + m for c in COMMANDS for m in METHODS]


def replay(binary, path, tmp):
    """Failures (strings) of one regression file."""
    fails = []
    for args in all_commands():
        r = lagcheck.run(binary, args, path, timeout=60, cwd=tmp)
        if r.finding:
            fails.append(f"{os.path.basename(path)}: {r.describe()}")
    for args, regex in lagcheck.checks_of(path):
        r = lagcheck.run(binary, args, path, timeout=60, cwd=tmp)
        out = r.out.decode(errors="replace")
        if r.rc != 0 or not re.search(regex, out):
            fails.append(f"{os.path.basename(path)}: lagrange {' '.join(r.cmd)} (exit {r.rc}) "
                         f"does not print /{regex}/\n    {r.err.strip()[:300]}")
    return fails


def main():
    binary = os.path.abspath(sys.argv[1])
    files = sys.argv[2:] or sorted(glob.glob(os.path.join(HERE, "regress", "*.lag")))
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            fails = replay(binary, os.path.abspath(path), tmp)
            for f in fails:
                print("FAIL " + f)
            failed += bool(fails)
            passed += not fails
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
