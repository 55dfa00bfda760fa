#!/usr/bin/env bash
# The whole test suite: format check, Release build + all tests, then the
# same tests under AddressSanitizer + UndefinedBehaviorSanitizer, then each
# libFuzzer target for a short fixed time (tools/fuzz.sh; skip with
# IXA_SKIP_FUZZ=1, change the time with IXA_FUZZ_SECONDS).
set -euo pipefail
cd "$(dirname "$0")/.."
export IXA_TEST_JOBS=${IXA_TEST_JOBS:-$(nproc)}

# Benchmarks are not tests: leave them out of the test build.
tools/setup.sh -DIXA_BUILD_BENCH=OFF

echo "== clang-format check" >&2
files=$(git ls-files '*.h' '*.cc' 2>/dev/null || find core simplifier analysis hw emit tools tests -name '*.h' -o -name '*.cc')
clang-format --dry-run --Werror $files

echo "== tests (Release)" >&2
(cd build && ctest --output-on-failure -j"$IXA_TEST_JOBS")

if [ "${IXA_SKIP_SANITIZERS:-0}" != "1" ]; then
  echo "== tests (ASan + UBSan)" >&2
  # -O0 without debug info: instrumented code compiles about 40% faster
  # than at -O1, which matters more on 2 cores than the slower test run.
  # (A build type of its own: an empty one would default to Release, -O3.)
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
    -DCMAKE_CXX_FLAGS_SANITIZE=-O0 \
    -DIXA_SANITIZE=address,undefined -DIXA_BUILD_BENCH=OFF >/dev/null
  # Only what ctest runs: the test executables and the CLI.
  targets=$(cd build-asan && ninja -t targets all | sed -n 's/^\(test_[a-z_]*\|ixa\): .*/\1/p' | sort -u)
  cmake --build build-asan -j"$IXA_TEST_JOBS" --target $targets
  (cd build-asan && IXA_SANITIZED=1 ctest --output-on-failure -j"$IXA_TEST_JOBS" -LE nosan)
fi

if [ "${IXA_SKIP_FUZZ:-0}" != "1" ]; then
  # Keeps the fuzzers alive: each target runs on its seed corpus for a short
  # fixed time and any finding (crash, sanitizer report, failed property,
  # hang) fails the suite. A long run: tools/fuzz.sh 3600.
  echo "== fuzz (${IXA_FUZZ_SECONDS:-20} s per target)" >&2
  tools/fuzz.sh "${IXA_FUZZ_SECONDS:-20}"
fi
