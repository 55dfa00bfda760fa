#!/usr/bin/env bash
# Installs what is missing (Debian packages only), then configures and builds
# ixa in build/ (Release). Safe to run again; never prompts.
set -euo pipefail
cd "$(dirname "$0")/.."

# pybind11-dev, python3-dev: the Python module (tools/python); python3-pytest
# runs its tests. libboost-context-dev: the tests' CPU model of CUDA runs a
# block's threads as Boost.Context fibers (tests/emit/cuda_model). z3,
# python3-z3: the SMT solver that proves every simplifier rule's obligations
# (tests/simplifier/prove_rules.py). chromium: the tests render `ixa
# report`'s HTML page headless to a PNG.
PACKAGES=(g++ cmake ninja-build python3 libboost-dev libboost-graph-dev catch2
          nlohmann-json3-dev libbenchmark-dev clang-format mlir-14-tools
          libmlir-14 pybind11-dev python3-pybind11 python3-dev python3-pytest
          libboost-context-dev z3 python3-z3 chromium)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update </dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
    "${missing[@]}" </dev/null
fi

BUILD_DIR=${BUILD_DIR:-build}
# ccache where the machine has it (not installed for this): rebuilds of an
# unchanged file are free, also from another clone of the repository.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
fi
# Release is -O3 unless the arguments say otherwise (a later -D wins; set
# here so that a build directory configured by tools/test.sh, which builds
# at -O2, gets -O3 back).
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG" "${launcher[@]}" "$@" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
