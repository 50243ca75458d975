#!/usr/bin/env bash
# `eom --format latex` compiles with a stock amsmath (pdflatex from
# texlive-latex-base), for every example and both methods where they apply,
# with no overfull line.
# usage: test_latex.sh LAGRANGE [SANITIZED_LAGRANGE]
set -u
bin=${2:-$1}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
if ! command -v pdflatex >/dev/null; then
  echo "FAIL pdflatex is missing (scripts/install-deps.sh installs texlive-latex-base)"
  echo "0 passed, 1 failed"; exit 1
fi
compile() { # name, args...
  local name=$1; shift
  if "$bin" eom "$@" --format latex > "$tmp/$name.tex" 2> "$tmp/$name.err" &&
     (cd "$tmp" && timeout 120 pdflatex -interaction=nonstopmode -halt-on-error "$name.tex" \
        > "$name.log" 2>&1) && [ -s "$tmp/$name.pdf" ] &&
     ! grep -q 'Overfull \\hbox' "$tmp/$name.log"; then
    passed=$((passed + 1)); echo "PASS latex $name"
  else
    failed=$((failed + 1)); echo "FAIL latex $name"
    grep -m 3 -e '^!' -e '^Overfull' "$tmp/$name.log" 2>/dev/null
    head -c 400 "$tmp/$name.err"
  fi
}
for f in "$here"/../../examples/*.lag; do
  n=$(basename "$f" .lag)
  compile "$n" "$f"
done
compile kane_rigid_body_kane "$here/../../examples/kane_rigid_body.lag" --method kane
compile rolling_sphere_kane "$here/../../examples/rolling_sphere.lag" --method kane
# named shared subexpressions (`where`): 4.6 GB of LaTeX when printed as trees
compile delta_robot_kane "$here/../../examples/delta_robot.lag" --method kane
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
