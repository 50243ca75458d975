#!/usr/bin/env bash
# The catalogue of bad inputs: every file in tests/cli/bad (plus a few made
# here: a 10 MB line, 100000 nested parentheses, random bytes) must exit 1
# with "file:line:col: message", quickly, without a sanitizer report.
# Expected positions and message fragments are pinned in bad/EXPECT.
# usage: test_bad_inputs.sh LAGRANGE [SANITIZED_LAGRANGE]
set -u
bin=${2:-$1}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }

# generated inputs: too big or too random to keep in git
python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
open(f"{d}/ten_mb_line.lag", "w").write("coordinates x\nT = x'^2 + " + "+".join(["x"] * 5_000_000) + "\n")
open(f"{d}/deep_parens.lag", "w").write("coordinates x\nT = " + "(" * 100000 + "x" + ")" * 100000 + "\n")
r = random.Random(7)
for i in range(5):
    open(f"{d}/random_{i}.lag", "wb").write(bytes(r.randrange(256) for _ in range(2000)))
PY

# Which subcommand exposes the error (numeric ones need eval).
command_for() {
  case "$1" in
    *singular*|*missing_param*|*log_negative*) echo eval ;;
    *) echo eom ;;
  esac
}

check_one() {
  local f=$1 name cmd rc err start end
  name=$(basename "$f" .lag)
  cmd=$(command_for "$name")
  start=$(date +%s%N)
  timeout 60 "$bin" "$cmd" "$f" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  end=$(date +%s%N)
  err=$(head -c 2000 "$tmp/err")
  if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$tmp/err"; then
    bad "$name: sanitizer report"; head -n 20 "$tmp/err"; return
  fi
  [ "$rc" -eq 1 ] || { bad "$name: exit $rc, want 1: $err"; return; }
  grep -qE "^$(printf '%s' "$f" | sed 's/[.[\*^$/]/\\&/g'):[0-9]+:[0-9]+: " "$tmp/err" ||
    { bad "$name: no file:line:col in: $err"; return; }
  [ -s "$tmp/out" ] && { bad "$name: wrote to stdout on error"; return; }
  [ $(( (end - start) / 1000000 )) -lt 20000 ] || { bad "$name: took too long"; return; }
  ok
  # pinned position and message fragment, when there is one
  local want
  want=$(grep -E "^$name\|" "$here/bad/EXPECT" 2>/dev/null | head -n 1)
  if [ -n "$want" ]; then
    local pos frag
    pos=$(echo "$want" | cut -d'|' -f2); frag=$(echo "$want" | cut -d'|' -f3-)
    if grep -qF ":$pos: " "$tmp/err" && grep -qF -- "$frag" "$tmp/err"; then ok
    else bad "$name: want ':$pos:' and '$frag' in: $err"; fi
  fi
}

for f in "$here"/bad/*.lag "$tmp"/*.lag; do check_one "$f"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
