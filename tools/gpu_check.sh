#!/usr/bin/env bash
# Runs every test fusion's `cuda` kernel on a real NVIDIA GPU (an H100:
# sm_90) against the tests' interpreter, and times a GELU, a 021
# transpose, a row and a column reduction against a device-to-device copy
# of as many bytes. Prints one table: fusion, ok / mismatch, time, GB/s,
# fraction of the copy's bandwidth. Meant to finish within 8 minutes.
# Then times the GEMM emitter's bf16 kernel (a batched 1024^3 matmul)
# against cuBLAS, where libcublas is installed, and prints the ratio
# (tools/gpu/gemm_vs_cublas.cu).
#
#   tools/gpu_check.sh [--dry-run] [--keep DIR]
#
# --dry-run: build, write and compile everything, then stop before the
# first launch (works without a GPU). Without a GPU the script fails,
# saying so, after compiling. Needs nvcc 13 (/usr/local/cuda/bin or PATH)
# and what tools/setup.sh installs. BUILD_DIR (default build) is the
# Release build it uses.
set -euo pipefail
cd "$(dirname "$0")/.."

dry_run=0
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry_run=1 ;;
    --keep) keep="$2"; shift ;;
    *) echo "gpu_check: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

NVCC=$(command -v nvcc || true)
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -z "$NVCC" ]; then
  echo "gpu_check: nvcc not found (PATH, /usr/local/cuda/bin)" >&2
  exit 2
fi

BUILD_DIR=${BUILD_DIR:-build}
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
echo "== build test_emit (Release, $BUILD_DIR)" >&2
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  "${launcher[@]}" >/dev/null
cmake --build "$BUILD_DIR" --target test_emit -j"$(nproc)" >/dev/null

work=${keep:-$(mktemp -d /tmp/ixa_gpu_check.XXXXXX)}
mkdir -p "$work"
[ -z "$keep" ] && trap 'rm -rf "$work"' EXIT
export IXA_GPU_CHECK_DIR=$work

echo "== write every test fusion's kernel and buffers" >&2
"$BUILD_DIR/bin/test_emit" "[gpu_export]" >"$work/export.log" 2>&1 || {
  cat "$work/export.log" >&2
  echo "gpu_check: writing the fusions failed" >&2
  exit 1
}

echo "== compile for sm_90 with $NVCC" >&2
# One nvcc per fusion, all cores; a fusion that does not compile fails
# the check (its log follows).
awk '$2 != "skip" {print $1}' "$work/cases.txt" |
  xargs -P "$(nproc)" -I{} sh -c \
    "'$NVCC' -std=c++17 -O3 -arch=sm_90 -o '$work/{}/run' '$work/{}/launch.cu' \
       >'$work/{}/nvcc.log' 2>&1 || echo {} >>'$work/nvcc_failed.txt'"
if [ -s "$work/nvcc_failed.txt" ]; then
  while read -r label; do
    echo "-- nvcc failed for $label:" >&2
    head -20 "$work/$label/nvcc.log" >&2
  done <"$work/nvcc_failed.txt"
  exit 1
fi
compiled=$(awk '$2 != "skip"' "$work/cases.txt" | wc -l)
echo "compiled $compiled fusions" >&2

echo "== the GEMM emitter's bf16 kernel and its cuBLAS comparison" >&2
"$BUILD_DIR/bin/test_emit" "[gpu_gemm_export]" >"$work/gemm_export.log" 2>&1 || {
  cat "$work/gemm_export.log" >&2
  echo "gpu_check: writing the GEMM kernel failed" >&2
  exit 1
}
cublas=()
cuda_lib=$(dirname "$NVCC")/../lib64
if [ -e "$cuda_lib/libcublas.so" ]; then
  cublas=(-DIXA_HAVE_CUBLAS=1 -L"$cuda_lib" -lcublas)
else
  echo "gpu_check: no libcublas next to nvcc: the GEMM runs without a ratio" >&2
fi
"$NVCC" -std=c++17 -O3 -arch=sm_90 -I"$work/gemm" -o "$work/gemm/run" \
  tools/gpu/gemm_vs_cublas.cu "${cublas[@]}" >"$work/gemm/nvcc.log" 2>&1 || {
  head -20 "$work/gemm/nvcc.log" >&2
  echo "gpu_check: the GEMM comparison does not compile" >&2
  exit 1
}
if [ "$dry_run" = 1 ]; then
  echo "gpu_check: --dry-run: stopping before the first launch" >&2
  exit 0
fi

if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "gpu_check: no NVIDIA GPU found (nvidia-smi lists none): the kernels" \
    "compiled, nothing ran" >&2
  exit 3
fi

echo "== run on $(nvidia-smi -L | head -1)" >&2
while read -r label mode; do
  [ "$mode" = skip ] && continue
  reps=0
  [ "$mode" = timed ] && reps=50
  if ! timeout 60 "$work/$label/run" "$work/$label" "$reps" \
      >"$work/$label/run.log" 2>&1; then
    echo "-- $label failed on the GPU:" >&2
    head -5 "$work/$label/run.log" >&2
  fi
done <"$work/cases.txt"

echo "== the GEMM emitter against cuBLAS" >&2
gemm_status=0
timeout 120 "$work/gemm/run" 20 || gemm_status=$?
[ "$gemm_status" = 0 ] || echo "gpu_check: the GEMM comparison failed" >&2

echo "== compare with the interpreter" >&2
"$BUILD_DIR/bin/test_emit" "[gpu_compare]"
exit "$gemm_status"
