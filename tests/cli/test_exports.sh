#!/usr/bin/env bash
# The libraries export exactly what lagrange.h declares: every global name
# defined in liblagrange.a and liblagrange.so.N is an lg_ function the header
# declares LAGRANGE_API, and every such function is there (the archive used
# to export 382 internal names). Ends "N passed, N failed".
cd "$(dirname "$0")/../.."
BIN=${1:-build/lagrange}
B=$(dirname "$BIN")
passed=0 failed=0
check() { if [ "$1" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $2"; fi; }
declared=$(tr '\n' ' ' < src/api/lagrange.h | grep -o 'LAGRANGE_API[^(;]*(' | grep -o 'lg_[a-z_0-9]* *(' | tr -d ' (' | sort -u)
for lib in "$B/liblagrange.a" "$B"/liblagrange.so.*; do
  [ -f "$lib" ] || continue
  if [ "${lib%.a}" != "$lib" ]; then
    got=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u)
  else
    got=$(nm -D --defined-only "$lib" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u)
  fi
  extra=$(comm -23 <(echo "$got") <(echo "$declared"))
  missing=$(comm -13 <(echo "$got") <(echo "$declared"))
  [ -z "$extra" ]; check $? "$lib exports names lagrange.h does not declare: $(echo $extra | head -c 300)"
  [ -z "$missing" ]; check $? "$lib lacks declared functions: $(echo $missing | head -c 300)"
done
[ "$passed" -ge 4 ]; check $? "both libraries were found beside $BIN"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
