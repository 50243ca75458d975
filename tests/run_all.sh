#!/usr/bin/env bash
# The test command: builds lagrange plainly and with ASan+UBSan, runs every
# unit test (sanitized), every CLI test and the SymPy cross-checks, and ends
# with one line "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh || { echo "dependency install failed"; echo "0 passed, 1 failed"; exit 1; }
JOBS=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# add the counts from the last "N passed, N failed" line of a log
tally() {
  local line p f
  line=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
  p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
  passed=$((passed + p)); failed=$((failed + f))
}

echo "== build (release and sanitized)"
# (python: the C extension of the Python package, for python/tests)
if ! make -s -j"$JOBS" all tests python >"$log/build.txt" 2>&1 ||
   ! make -s -j"$JOBS" SAN=1 all tests >>"$log/build.txt" 2>&1; then
  cat "$log/build.txt"
  echo "0 passed, 1 failed"
  exit 1
fi

# the JIT's cache of compiled objects: private to this run, not ~/.cache
export LAGRANGE_CACHE_DIR="$log/jit-cache"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "== unit tests (ASan+UBSan+LSan)"
for t in build-san/tests/test_*; do
  [ -x "$t" ] || continue
  if "$t" >"$log/unit.txt" 2>&1; then :; else
    echo "FAIL $t"; tail -n 30 "$log/unit.txt"
    grep -q 'passed, [0-9]* failed' "$log/unit.txt" || { failed=$((failed + 1)); continue; }
  fi
  tail -n 1 "$log/unit.txt"
  tally "$log/unit.txt"
done

echo "== CLI tests (sanitized binary)"
for t in tests/cli/test_*.sh tests/cli/test_*.py; do
  [ -f "$t" ] || continue
  case "$t" in
    *.py) python3 "$t" build/lagrange build-san/lagrange >"$log/cli.txt" 2>&1 ;;
    *) bash "$t" build/lagrange build-san/lagrange >"$log/cli.txt" 2>&1 ;;
  esac
  tail -n 1 "$log/cli.txt"
  grep '^FAIL' "$log/cli.txt" | head -n 20
  tally "$log/cli.txt"
done

echo "== SymPy cross-checks"
for t in tests/ref/check_*.py; do
  [ -f "$t" ] || continue
  python3 "$t" build/lagrange >"$log/ref.txt" 2>&1
  grep -E '^FAIL' "$log/ref.txt" | head -n 20
  tail -n 1 "$log/ref.txt"
  tally "$log/ref.txt"
done

echo "== fuzzing, bounded (tests/fuzz/run_fuzz.sh --check; the long run is make fuzz)"
bash tests/fuzz/run_fuzz.sh --check "${FUZZ_CHECK_SECONDS:-90}" >"$log/fuzz.txt" 2>&1
if tail -n 1 "$log/fuzz.txt" | grep -q ' 0 failed$'; then
  grep -E '^(FAIL|-- |libFuzzer)' "$log/fuzz.txt" | head -n 40
else # all of it: the sanitizer's report and the saved input's name are what CI can show
  head -n 150 "$log/fuzz.txt"
fi
tail -n 1 "$log/fuzz.txt"
tally "$log/fuzz.txt"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
