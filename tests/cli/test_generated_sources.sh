#!/usr/bin/env bash
# Committed generated sources are what their generators write today:
# src/base/base_pow10.c (scripts/gen-pow10.py, the formatter's powers of ten).
cd "$(dirname "$0")/../.."
passed=0 failed=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if python3 scripts/gen-pow10.py "$tmp" && cmp -s "$tmp" src/base/base_pow10.c; then
  echo "PASS src/base/base_pow10.c is what scripts/gen-pow10.py writes"; passed=$((passed + 1))
else
  echo "FAIL src/base/base_pow10.c differs from scripts/gen-pow10.py's output"; failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
