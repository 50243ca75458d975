#!/usr/bin/env bash
# Installs the Debian packages lagrange needs to build and test, if missing.
# Safe to run repeatedly; does nothing when everything is present.
set -eu
need=()
have_pkg() { dpkg -s "$1" >/dev/null 2>&1; }
# libgfortran-12-dev: the static LAPACK needs the Fortran runtime to link.
# pkgconf, man-db, groff-base, clang: the install test builds the examples
# through pkg-config with gcc and clang and renders the man pages.
# libjs-three: three.js, embedded by `lagrange animate` at build time;
# chromium: the headless browser of tests/cli/test_animate.py.
# libxml2-dev: the headers of URDF import (libxml2 itself is dlopen'ed).
for p in libsundials-dev liblapacke-dev liblapack-dev libblas-dev libgfortran-12-dev libgmp-dev \
         gnuplot-nox python3-numpy python3-pytest texlive-latex-base pkgconf man-db groff-base clang \
         libjs-three chromium libxml2-dev; do
  have_pkg "$p" || need+=("$p")
done
# Debian's /usr/bin/python3 runs the Python package's tests (python/):
# it needs NumPy (above), pytest (above) and SymPy; python3-dev holds
# Python.h for the package's C extension (`make python`).
have_pkg python3-sympy || need+=(python3-sympy)
have_pkg python3-dev || need+=(python3-dev)
# SymPy is the independent reference for the tests: only install when the
# python3 on PATH cannot import it.
if ! python3 -c 'import sympy' >/dev/null 2>&1; then
  have_pkg python3-sympy || need+=(python3-sympy)
fi
# OpenMPI for `lagrange sweep` under mpirun (the Makefile builds MPI support
# when pkg-config finds ompi-c; without it everything else still builds).
for p in libopenmpi-dev openmpi-bin; do
  have_pkg "$p" || need+=("$p")
done
# LeakSanitizer/ASan runtime for clang builds (gcc ships its own); clang and
# its runtimes (libFuzzer) for `make fuzz` and the bounded fuzzing in `make check`.
for p in clang libclang-rt-14-dev; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "install-deps: installing ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
