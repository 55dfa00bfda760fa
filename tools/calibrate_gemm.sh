#!/usr/bin/env bash
# Measures cuBLAS GEMM throughput on this machine's GPU and writes a device
# description with a `gemm_table` (docs/cost-model.md "GEMMs"), which the
# ixa cost model then uses in place of its efficiency estimate:
#
#   tools/calibrate_gemm.sh --base h100 [--name h100_measured] [--quick]
#                           [--types bf16,tf32,fp8] [--out FILE]
#   build/bin/ixa --devices FILE ...    (requests then name the device)
#
# It compiles tools/calibrate/gemm_sweep.cu with nvcc (cuBLASLt), runs it
# over batch 1, 2, 4 and m, n, k in 256 .. 4096 (--quick: batch 1, 4 and
# 256, 1024, 4096) for each type pair, and writes one JSON device object
# {"name", "base", "notes", "gemm_table"} to FILE (default
# gemm_table.<name>.json). --compile-only compiles and stops (works without
# a GPU; exit 77, skipped, without nvcc). Without nvcc, or without a GPU,
# it fails saying so.
set -euo pipefail
cd "$(dirname "$0")/.."

base=""
name=""
quick=()
types="bf16,f16,tf32,f32,fp8"
out=""
compile_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base="$2"; shift ;;
    --name) name="$2"; shift ;;
    --quick) quick=(--quick) ;;
    --types) types="$2"; shift ;;
    --out) out="$2"; shift ;;
    --compile-only) compile_only=1 ;;
    *) echo "calibrate_gemm: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

NVCC=$(command -v nvcc || true)
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -z "$NVCC" ]; then
  echo "calibrate_gemm: nvcc is absent (PATH, /usr/local/cuda/bin):" \
    "gemm_sweep.cu not compiled" >&2
  # 77: the compile check is skipped (CTest's SKIP_RETURN_CODE), not passed.
  [ "$compile_only" = 1 ] && exit 77
  exit 2
fi

work=$(mktemp -d /tmp/ixa_calibrate_gemm.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "== compile tools/calibrate/gemm_sweep.cu with $NVCC" >&2
"$NVCC" -O2 -std=c++17 -o "$work/gemm_sweep" tools/calibrate/gemm_sweep.cu \
  -lcublasLt
if [ "$compile_only" = 1 ]; then
  echo "calibrate_gemm: compiled (--compile-only: not run)" >&2
  exit 0
fi
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "calibrate_gemm: no GPU on this machine (nvidia-smi finds none)" >&2
  exit 1
fi
if [ -z "$base" ]; then
  echo "calibrate_gemm: --base names the built-in device this GPU is" \
    "(ixa devices), e.g. --base h100" >&2
  exit 2
fi
name=${name:-${base}_measured}
out=${out:-gemm_table.$name.json}

echo "== time cuBLASLt GEMMs ($types)" >&2
"$work/gemm_sweep" "${quick[@]}" --types "$types" >"$work/rows.txt"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
python3 - "$work/rows.txt" "$out" "$base" "$name" "$gpu" <<'EOF'
import json, sys
rows, out, base, name, gpu = sys.argv[1:]
table = {}
for line in open(rows):
    key, b, m, n, k, tflops = line.split()
    table.setdefault(key, []).append(
        [int(b), int(m), int(n), int(k), float(tflops)])
if not table:
    sys.exit("calibrate_gemm: the sweep measured nothing")
device = {"name": name, "base": base,
          "notes": "gemm_table measured with cuBLASLt on " + gpu,
          "gemm_table": table}
with open(out, "w") as f:
    json.dump(device, f)
    f.write("\n")
print("calibrate_gemm: %d rows written to %s" %
      (sum(len(v) for v in table.values()), out), file=sys.stderr)
EOF
