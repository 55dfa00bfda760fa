#!/usr/bin/env bash
# Coverage-guided fuzzing for robustness: builds the libFuzzer targets of
# tests/fuzz in build-fuzz (clang, ASan + UBSan, coverage on every library)
# and runs each for SECONDS seconds on its committed seed corpus and
# dictionary.
#
#   tools/fuzz.sh [SECONDS] [TARGET...]    (default: 30 s, every target)
#   tools/fuzz.sh 3600                     one hour per target
#   tools/fuzz.sh 60 map_simplify          one target
#   tools/fuzz.sh 0                        replay the corpora only (every
#                                          input once, no new inputs)
#   tools/fuzz.sh ci                       what the test suite runs: every
#                                          committed input once, then a fixed
#                                          number of new inputs per target
#                                          from a fixed seed, on a scratch
#                                          working corpus (the same inputs on
#                                          every machine: a run that passes
#                                          passes again; about 30 s on 2 cores)
#   tools/fuzz.sh build [tests]            configure and build only; with
#                                          `tests`, also every test
#                                          executable and the CLI, so the
#                                          sanitized test pass shares this
#                                          build (tools/test.sh does)
#
# Targets: map_roundtrip (parse -> print -> parse), map_simplify (parse +
# simplify checked by enumeration), hlo (HLO reader + indexing + fusion
# indexing + emitter plans + code generation), cli_request (one `ixa query`
# request line), emit (the `emit` op for every target: code or a clean
# error).
#
# Exit status 1 when a target fails (a crash, a sanitizer report, a failed
# property, a timeout): the input is in build-fuzz/findings/<target>/ and
# the log in build-fuzz/findings/<target>.log. Replay one input with
#   build-fuzz/bin/fuzz_<target> build-fuzz/findings/<target>/crash-...
# Inputs that grew coverage accumulate in build-fuzz/corpus/<target> (a
# working corpus; copy the interesting ones to tests/fuzz/corpus/<target>).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET=${1:-30}
if [ $# -gt 0 ]; then shift; fi
ALL_TARGETS=(map_roundtrip map_simplify hlo cli_request emit)
BUILD_ONLY=0
WITH_TESTS=0
if [ "$SECONDS_PER_TARGET" = build ]; then
  BUILD_ONLY=1
  if [ "${1:-}" = tests ]; then WITH_TESTS=1; shift; fi
fi
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=("${ALL_TARGETS[@]}"); fi
BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
JOBS=${IXA_TEST_JOBS:-$(nproc)}

# The fuzz build's own packages (clang and the libFuzzer runtime), plus
# what every build needs; apt-get only for what dpkg reports missing.
PACKAGES=(clang libclang-rt-14-dev cmake ninja-build libboost-dev
          libboost-graph-dev nlohmann-json3-dev catch2)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "fuzz: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update </dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y \
    --no-install-recommends "${missing[@]}" </dev/null
fi

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
fi
# -O1 with line tables: fast enough to fuzz, readable stack traces.
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Fuzz \
  -DCMAKE_CXX_FLAGS_FUZZ="-O1 -gline-tables-only" \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link" \
  -DIXA_SANITIZE=address,undefined -DIXA_FUZZ=ON -DIXA_BUILD_BENCH=OFF \
  -DIXA_BUILD_PYTHON=OFF \
  "${launcher[@]}" >/dev/null
build_targets=()
for t in "${TARGETS[@]}"; do build_targets+=("fuzz_$t"); done
if [ "$WITH_TESTS" = 1 ]; then
  # What ctest runs: the test executables and the CLI.
  build_targets+=($(cd "$BUILD_DIR" && ninja -t targets all |
    sed -n 's/^\(test_[a-z_]*\|ixa\): .*/\1/p' | sort -u))
fi
cmake --build "$BUILD_DIR" -j"$JOBS" --target "${build_targets[@]}"
if [ "$BUILD_ONLY" = 1 ]; then exit 0; fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=64}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# New inputs per target in `ci` mode: about 5 s each after the replay
# (the targets' speeds differ by a factor of 500).
declare -A CI_NEW_INPUTS=([map_roundtrip]=60000 [map_simplify]=8000
                          [hlo]=50 [cli_request]=1500 [emit]=1000)
# Runs one target; its summary goes to $BUILD_DIR/findings/<target>.status.
run_target() {
  local t=$1
  local corpus="$BUILD_DIR/corpus/$t"
  local findings="$BUILD_DIR/findings/$t"
  local log="$BUILD_DIR/findings/$t.log"
  mkdir -p "$corpus" "$findings"
  local dict=()
  if [ -f "tests/fuzz/$t.dict" ]; then dict=(-dict="tests/fuzz/$t.dict"); fi
  local mode
  if [ "$SECONDS_PER_TARGET" = 0 ]; then
    mode=(-runs=0)  # run every corpus input once
  elif [ "$SECONDS_PER_TARGET" = ci ]; then
    # libFuzzer counts the corpus replay among its runs.
    local committed
    committed=$(find "tests/fuzz/corpus/$t" -type f | wc -l)
    corpus="$BUILD_DIR/corpus-ci/$t"
    rm -rf "$corpus"
    mkdir -p "$corpus"
    mode=(-seed=1 -runs=$((committed + ${CI_NEW_INPUTS[$t]})))
  else
    mode=(-max_total_time="$SECONDS_PER_TARGET")
  fi
  local status=ok
  if ! "$BUILD_DIR/bin/fuzz_$t" "$corpus" "tests/fuzz/corpus/$t" "${dict[@]}" \
    "${mode[@]}" -timeout=20 -rss_limit_mb=2048 \
    -max_len=16384 -print_final_stats=1 -artifact_prefix="$findings/" \
    >"$log" 2>&1; then
    status=FAILED
  fi
  echo "$status" >"$BUILD_DIR/findings/$t.status"
}

# The targets run side by side, as many at once as there are jobs (each is
# one process): on 2 cores five 20 s runs take about 60 s, not 100.
if [ "$SECONDS_PER_TARGET" = ci ]; then
  echo "== fuzz ${TARGETS[*]}: the committed corpora, then fixed new inputs (seed 1), $JOBS at once" >&2
else
  echo "== fuzz ${TARGETS[*]} for ${SECONDS_PER_TARGET} s each, $JOBS at once" >&2
fi
running=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$BUILD_DIR/findings"
  rm -f "$BUILD_DIR/findings/$t.status"
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true
failures=0
for t in "${TARGETS[@]}"; do
  log="$BUILD_DIR/findings/$t.log"
  status=$(cat "$BUILD_DIR/findings/$t.status" 2>/dev/null || echo FAILED)
  if [ "$status" != ok ]; then failures=$((failures + 1)); fi
  summary=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  echo "fuzz_$t: $status; executions ${execs:-?}; ${summary}" >&2
  if [ "$status" = FAILED ]; then
    grep -E 'ERROR|FUZZ PROPERTY|SUMMARY|runtime error|Test unit written' \
      "$log" | head -20 >&2 || true
  fi
done
exit $((failures > 0 ? 1 : 0))
