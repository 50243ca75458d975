#!/usr/bin/env python3
"""Mutation fuzzing of the examples (fixed seed): tokens inserted, spans cut
and copied. Every run must exit 0 or 1, an error must start with
file:line:col, and there must be no sanitizer report and no hang.

usage: test_fuzz.py LAGRANGE [SANITIZED_LAGRANGE]"""
import glob, os, random, subprocess, sys, tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BIN = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else sys.argv[1])
RUNS, SEED = 150, 11
TOKENS = [b"(", b")", b"+", b"-", b"*", b"/", b"^", b"'", b".", b",", b"=", b":", b"\n",
          b" x ", b"N.x", b"0", b"1e9", b"der(", b"cross(", b"dot(", b"pos(", b"vel(",
          b"angvel(", b"frame ", b"point ", b"constraint ", b"q1", b"t", b"pi", b"/0", b"^-1",
          b"1/(x-x)", b"speeds u1\n", b"kinematics q1' = u1\n"]
COMMANDS = [["eom"], ["eval"], ["eom", "--method", "kane"], ["eval", "--method", "kane"]]


def mutate(rng, src):
    s = bytearray(src)
    for _ in range(rng.randint(1, 6)):
        op, pos = rng.random(), rng.randrange(len(s) + 1)
        if op < 0.4:
            s[pos:pos] = rng.choice(TOKENS)
        elif op < 0.7 and len(s) > 1:
            del s[pos:pos + rng.randint(1, 8)]
        else:
            j = rng.randrange(len(s) + 1)
            s[pos:pos] = s[j:j + rng.randint(1, 20)]
    return bytes(s)


def main():
    rng = random.Random(SEED)
    # examples/whipple_bicycle.lag is left out: its Kane derivation takes about a
    # minute, its generated C is 10 MB and its LaTeX 5 MB (too big for these
    # tests' budgets); tests/ref/check_whipple.py covers it.
    sources = [open(f, "rb").read() for f in sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag")))
               if os.path.basename(f) != "whipple_bicycle.lag"]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "m.lag")
        for i in range(RUNS):
            text = mutate(rng, rng.choice(sources))
            open(model, "wb").write(text)
            cmd = rng.choice(COMMANDS)
            try:
                r = subprocess.run([BIN, cmd[0], model, *cmd[1:]], capture_output=True, timeout=30)
            except subprocess.TimeoutExpired:
                print(f"FAIL run {i}: hangs on\n{text!r}")
                bad += 1
                continue
            err = r.stderr.decode(errors="replace")
            if r.returncode not in (0, 1) or "Sanitizer" in err or "runtime error" in err:
                print(f"FAIL run {i}: exit {r.returncode}: {err[:300]}\n{text!r}")
                bad += 1
            elif r.returncode == 1 and not err.startswith(model + ":"):
                print(f"FAIL run {i}: no file:line:col: {err[:200]}")
                bad += 1
    print(f"{RUNS - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
