#!/usr/bin/env bash
# `lagrange sweep` on 2 and 3 threads under ThreadSanitizer (make tsan):
# ERK, BDF with the exact Jacobian, IDA, projection of the initial state,
# --jit, --stop-when, failing runs, Monte Carlo. Not a make-check script
# (its name does not start with test_): it needs the TSan build.
# usage: tsan_sweep.sh build-tsan/lagrange
set -u
L=$1
cd "$(dirname "$0")/../.."
export LAGRANGE_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$LAGRANGE_CACHE_DIR"' EXIT
passed=0 failed=0
one() {
  if "$L" sweep "$@" --tf 0.5 >/dev/null 2>"$LAGRANGE_CACHE_DIR/err" &&
     ! grep -q "ThreadSanitizer" "$LAGRANGE_CACHE_DIR/err"; then
    passed=$((passed + 1)); echo "PASS $*"
  else
    failed=$((failed + 1)); echo "FAIL $*"; head -n 40 "$LAGRANGE_CACHE_DIR/err"
  fi
}
one examples/cart_pendulum.lag --vary 'm=0.5:2:6' --jobs 2
one examples/cart_pendulum.lag --vary 'm=0.5:2:6' --integrator bdf --jobs 3
one examples/cart_pendulum.lag --vary 'm=0.5:2:6' --jit --jobs 2
one examples/cart_pendulum.lag --samples 8 --dist 'theta=normal(0,0.1)' --stop-when 't - 0.2' --jobs 3
one examples/delta_robot.lag --vary 'm=0.3:0.7:4' --jobs 2
one tests/cli/sim/pendulum_xy.lag --vary 'l=1:2:4' --project --integrator dopri --jobs 2
one tests/cli/sim/singular.lag --vary 'F=-1:1:4' --jobs 2
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
