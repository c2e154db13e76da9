#!/usr/bin/env bash
# Installs the Debian 12 packages ozblas needs to build, test and benchmark (only what is missing).
#   bash scripts/deps.sh [more packages]   (scripts/fuzz.sh adds clang and its runtime)
set -euo pipefail
PKGS="build-essential cmake pkg-config libopenblas-dev libopenblas-openmp-dev libmpfr-dev libgmp-dev check libdnnl-dev python3-numpy liblapack3 liblapack-dev libblas-test liblapack-test bc python3-venv python3-dev gfortran libopenmpi-dev openmpi-bin libscalapack-openmpi-dev $*"
missing=""
for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "ozblas: installing$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
