#!/bin/sh
# bench/install-peers.sh - install the peers bench/peers.py compares lagrange against, from Debian:
# MuJoCo 2.2.2 (libmujoco-dev), Orocos KDL (liborocos-kdl-dev), and, when packaged, urdfdom and
# kdl_parser (to read a URDF into a KDL tree). Not a dependency of `make check`.
# Usage: sudo sh bench/install-peers.sh   (retries while another apt holds the lock)
set -e
PKGS="libmujoco-dev liborocos-kdl-dev"
OPT="liburdfdom-dev libkdl-parser-dev"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
apt_retry() {
    i=0
    until $SUDO env DEBIAN_FRONTEND=noninteractive apt-get "$@"; do
        i=$((i + 1))
        if [ $i -ge 30 ]; then echo "install-peers: apt-get $* failed 30 times" >&2; return 1; fi
        echo "install-peers: apt busy or failed; retrying in 10 s ($i/30)" >&2
        sleep 10
    done
}
if ! apt-cache show libmujoco-dev >/dev/null 2>&1; then apt_retry update; fi
apt_retry install -y --no-install-recommends $PKGS
for p in $OPT; do
    if apt-cache show "$p" >/dev/null 2>&1; then apt_retry install -y --no-install-recommends "$p" || true; fi
done
echo "install-peers: done"
