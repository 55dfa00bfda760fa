#!/usr/bin/env bash
# The whole test suite: format check, Release build + all tests, then the
# same tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang;
# skip with IXA_SKIP_SANITIZERS=1), then each libFuzzer target for a short
# fixed set of inputs from the same build (tools/fuzz.sh ci; skip with
# IXA_SKIP_FUZZ=1, fuzz for N seconds per target with IXA_FUZZ_SECONDS=N).
set -euo pipefail
cd "$(dirname "$0")/.."
export IXA_TEST_JOBS=${IXA_TEST_JOBS:-$(nproc)}

# Each phase is announced with the seconds spent so far, so that a CI log
# shows where the suite's time goes.
started=$(date +%s)
phase() { echo "== $1 (at $(($(date +%s) - started)) s)" >&2; }

# Benchmarks are not tests: leave them out of the test build. The tests'
# Release build is -O2: it compiles in two thirds of -O3's time, and no
# test measures speed (the benchmarks do, in the -O3 build of
# tools/setup.sh).
phase "install what is missing, build (Release)"
tools/setup.sh -DIXA_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG"

phase "clang-format check"
files=$(git ls-files '*.h' '*.cc' 2>/dev/null || find core simplifier analysis hw emit tools tests -name '*.h' -o -name '*.cc')
clang-format --dry-run --Werror $files

phase "tests (Release)"
(cd build && ctest --output-on-failure -j"$IXA_TEST_JOBS")

# The shared-library build (-DBUILD_SHARED_LIBS=ON) is configured, not
# built: a second build of every library costs more than it finds. The full
# check, run by hand when the build rules change:
#   BUILD_DIR=build-shared tools/setup.sh -DIXA_BUILD_BENCH=OFF \
#     -DBUILD_SHARED_LIBS=ON && (cd build-shared && ctest -j"$(nproc)")
phase "configure with BUILD_SHARED_LIBS=ON"
cmake -S . -B build-shared-configure -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DIXA_BUILD_BENCH=OFF -DBUILD_SHARED_LIBS=ON >/dev/null

# One instrumented build serves both the sanitizer pass and the fuzzers
# (clang, -O1, ASan + UBSan, coverage; tools/fuzz.sh configures it): two
# separate builds of every library cost more than the whole test run on 2
# cores.
skip_san=${IXA_SKIP_SANITIZERS:-0}
skip_fuzz=${IXA_SKIP_FUZZ:-0}
if [ "$skip_san" != "1" ]; then
  phase "build (clang, ASan + UBSan, fuzzer coverage)"
  tools/fuzz.sh build tests
  phase "tests (ASan + UBSan)"
  (cd "${FUZZ_BUILD_DIR:-build-fuzz}" &&
    IXA_SANITIZED=1 ctest --output-on-failure -j"$IXA_TEST_JOBS" -LE nosan)
fi

if [ "$skip_fuzz" != "1" ]; then
  # Keeps the fuzzers alive: each target replays its committed corpus and
  # then tries a fixed number of new inputs from a fixed seed (the same
  # inputs on every machine, so the suite's answer does not depend on the
  # machine's speed or on luck); any finding (crash, sanitizer report,
  # failed property, hang) fails the suite. Searching for new findings is a
  # separate, long run: tools/fuzz.sh 3600 (IXA_FUZZ_SECONDS=N runs that
  # here instead).
  phase "fuzz (${IXA_FUZZ_SECONDS:-ci})"
  tools/fuzz.sh "${IXA_FUZZ_SECONDS:-ci}"
fi
phase "done"
