#!/usr/bin/env bash
# The command line is a client of lagrange.h (issue 22): no file of src/cli
# includes a header of the library's layers (sym, mech, lang, num, cg, api
# internals), and no object of the command refers to a symbol of theirs
# (sym_, mech_, lang_, num_, cg_, api_): everything it computes comes
# through an lg_* function, so the C library and Python give the same.
# Ends "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "PASS $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

allowed='^(lagrange\.h|lg_base\.h|cli[a-z_]*\.h)$'
for f in src/cli/*.c src/cli/*.h; do
  inc=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  wrong=$(printf '%s\n' "$inc" | grep -Ev "$allowed" | grep -v '^$' | tr '\n' ' ')
  if [ -z "$wrong" ]; then ok "$f includes only lagrange.h, lg_base.h and the command's headers"
  else bad "$f includes $wrong"; fi
done

build=${1:-build/lagrange}
objdir=$(dirname "$build")/src/cli
if ls "$objdir"/*.o >/dev/null 2>&1; then
  for c in src/cli/*.c; do
    o=$objdir/$(basename "${c%.c}").o   # (a stale object of a removed file is not the command's)
    [ -f "$o" ] || { bad "$o is missing (build first)"; continue; }
    refs=$(nm -u "$o" | awk '{print $2}' | grep -E '^(sym|mech|lang|num|cg|api)_' | tr '\n' ' ')
    if [ -z "$refs" ]; then ok "$(basename "$o") calls no internal function"
    else bad "$(basename "$o") calls $refs"; fi
  done
else
  bad "no objects of the command in $objdir (build first)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
