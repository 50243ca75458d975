#!/usr/bin/env bash
# Installs what the benchmarks in bench/ need beyond scripts/install-deps.sh:
# Debian's Python 3 with SymPy, NumPy and SciPy (the benchmarks run under
# /usr/bin/python3, one interpreter for every script), gcc for the generated
# C, and GNU time. Works on a fresh Debian 12 as root; safe to run repeatedly.
set -eu
need=()
have_pkg() { dpkg -s "$1" >/dev/null 2>&1; }
for p in python3 python3-numpy python3-scipy python3-sympy gcc libc6-dev time; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "install-bench-deps: installing ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
