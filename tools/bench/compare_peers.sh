#!/usr/bin/env bash
# ixa against MLIR 14 on the peers' workload, in one run:
# installs what is missing, generates the workload, builds ixa and the
# comparison harness (tools/bench/compare_peers.cc + mlir_peer.cc, linked
# with Debian's libmlir-14-dev), checks ixa's answers (score_ixa.py: wrong
# answers and canonical forms), then times both engines item by item,
# alternating, per-item minimum, and prints the table of docs/benchmarks.md.
#
#   tools/bench/compare_peers.sh [--reps N] [--callgrind] [--cli] [--jobs N]
#                                [--isl]
#
#   --reps N      repetitions of the alternating timing (default 20)
#   --callgrind   also count instructions (valgrind --tool=callgrind, one
#                 pass per engine and workload, only the measured loop:
#                 --toggle-collect): noise-free ratios
#   --cli         also time `ixa query` as a whole process against the
#                 in-process batch (alternating, best of --reps), and with
#                 --jobs N (default 2) its scaling over --jobs 1
#   --isl         also run the peers' ISL harness once (about 2 minutes)
#
# Environment: PEERS (required): the peers' benchmark directory, which is
# not part of this repository (gen_workload.py, score_ixa.py, mlir_bench.cpp
# and isl_bench); BUILD_DIR (default build); SEED (default 20240601, the
# workload of docs/benchmarks.md).
# Data and the peers' build go to $BUILD_DIR/peers/.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build}
SEED=${SEED:-20240601}
REPS=20
CALLGRIND=0
CLI=0
JOBS=2
ISL=0
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS=$2; shift 2 ;;
    --callgrind) CALLGRIND=1; shift ;;
    --cli) CLI=1; shift ;;
    --jobs) JOBS=$2; CLI=1; shift 2 ;;
    --isl) ISL=1; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "compare_peers.sh: unknown argument '$1'" >&2; exit 64 ;;
  esac
done
if [ -z "${PEERS:-}" ] || [ ! -f "$PEERS/gen_workload.py" ]; then
  echo "compare_peers.sh: set PEERS to the peers' benchmark directory" \
       "(the one holding gen_workload.py)" >&2
  exit 66
fi
PEERS=$(cd "$PEERS" && pwd)

# 1. Install what is missing (never prompts).
PACKAGES=(g++ cmake ninja-build python3 libboost-dev nlohmann-json3-dev
          llvm-14-dev libmlir-14-dev)
[ "$CALLGRIND" = 1 ] && PACKAGES+=(valgrind)
[ "$ISL" = 1 ] && PACKAGES+=(libisl-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update </dev/null >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y \
    --no-install-recommends "${missing[@]}" </dev/null >/dev/null
fi

# 2. The workload (deterministic for a seed; generated once per build dir).
OUT="$BUILD_DIR/peers"
DATA="$OUT/data-$SEED"
mkdir -p "$OUT"
if [ ! -f "$DATA/mlir_w3.tsv" ]; then
  echo "== generating the workload (seed $SEED)" >&2
  python3 "$PEERS/gen_workload.py" --seed "$SEED" --out "$DATA" >/dev/null
fi

# 3. Build ixa and the harness.
echo "== building" >&2
LAUNCHER=()
command -v ccache >/dev/null && LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DIXA_BUILD_BENCH=ON -DIXA_BENCH_PEERS=ON "${LAUNCHER[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target ixa compare_peers >/dev/null
IXA="$ROOT/$BUILD_DIR/bin/ixa"
HARNESS="$ROOT/$BUILD_DIR/bin/compare_peers"

# 4. Quality through the CLI (also writes the ixa_w<k>.jsonl requests).
echo "== score_ixa.py (quality)" >&2
python3 "$PEERS/score_ixa.py" "$IXA" "$DATA" --runs 1 > "$OUT/score.txt"

# 5. Alternating per-item timing (and the whole-process CLI).
echo "== timing, $REPS repetitions" >&2
ARGS=(--reps "$REPS")
[ "$CLI" = 1 ] && ARGS+=(--cli "$IXA" --jobs "$JOBS")
"$HARNESS" "$DATA" "${ARGS[@]}" > "$OUT/timing.jsonl"

# 6. Instruction counts.
: > "$OUT/callgrind.txt"
if [ "$CALLGRIND" = 1 ]; then
  echo "== callgrind" >&2
  for w in 1 2 3; do
    for side in ixa parse mlir; do
      f="$OUT/callgrind.out.w$w.$side"
      valgrind --tool=callgrind --callgrind-out-file="$f" \
        --toggle-collect=CallgrindIxaPass --toggle-collect=CallgrindMlirPass \
        --toggle-collect=CallgrindParsePass \
        "$HARNESS" "$DATA" --workloads "$w" --once "$side" >/dev/null 2>&1
      echo "W$w $side $(sed -n 's/^totals: //p' "$f")" >> "$OUT/callgrind.txt"
    done
  done
fi

# 7. ISL (the peers' own harness, one run).
: > "$OUT/isl.jsonl"
if [ "$ISL" = 1 ]; then
  echo "== ISL (one run of the peers' isl_bench)" >&2
  cmake -S "$PEERS" -B "$OUT/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$OUT/build" -j"$(nproc)" --target isl_bench >/dev/null
  "$OUT/build/isl_bench" "$DATA" > "$OUT/isl.jsonl" 2>/dev/null
fi

# 8. The table.
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: $(git rev-parse --short HEAD)" \
       " loadavg: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') x $(nproc)" \
       " libmlir-14-dev $(dpkg-query -W -f='${Version}' libmlir-14-dev)"
}
python3 - "$OUT" "$REPS" <<'PY'
import json, sys
out, reps = sys.argv[1], sys.argv[2]
timing = {}
for l in open(out + "/timing.jsonl"):
    o = json.loads(l)
    timing[o["workload"]] = o
ir = {}
for l in open(out + "/callgrind.txt"):
    w, side, n = l.split()
    ir[(w, side)] = int(n)
isl = {}
for l in open(out + "/isl.jsonl"):
    o = json.loads(l)
    w = o["workload"]
    if w not in isl or o["us_per_item_total"] < isl[w][0]:
        isl[w] = (o["us_per_item_total"], o["peer"])
names = {"W1": "W1 simplify", "W2": "W2 compose", "W3": "W3 is_empty"}
head = "| workload | ixa µs/item | MLIR 14 µs/item |"
rule = "|---|---:|---:|"
if isl:
    head += " ISL µs/item |"
    rule += "---:|"
head += " ixa/MLIR time |"
rule += "---:|"
if ir:
    head += " ixa/MLIR instructions | ixa Ir/item | MLIR Ir/item |"
    rule += "---:|---:|---:|"
head += " ixa parse µs/item |"
rule += "---:|"
if ir:
    head += " ixa parse Ir/item |"
    rule += "---:|"
head += " ixa allocations/item |"
rule += "---:|"
print()
print(head)
print(rule)
for w in ("W1", "W2", "W3"):
    t = timing[w]
    row = "| %s | %.2f | %.2f |" % (names[w], t["ixa_us"], t["mlir_us"])
    if isl:
        row += " %s |" % ("%.0f (%s)" % isl[w] if w in isl else "-")
    row += " %.2f |" % t["time_ratio"]
    if ir:
        a, m = ir[(w, "ixa")], ir[(w, "mlir")]
        n = t["items"]
        row += " %.2f | %.0f | %.0f |" % (a / m, a / n, m / n)
    row += " %.2f |" % t["ixa_parse_us"]
    if ir:
        row += " %.0f |" % (ir[(w, "parse")] / t["items"])
    row += " %.1f |" % t["ixa_allocs_per_item"]
    print(row)
print()
print("µs/item: sum over items of each item's minimum over %s alternating "
      "repetitions (parse + op, one ExprContext per ixa item, one MLIRContext "
      "per repetition for MLIR)." % reps)
fails = sum(timing[w]["ixa_failures"] + timing[w]["mlir_failures"] for w in timing)
print("failures: %d; W3 correct: ixa %d/500, MLIR %d/500" % (
    fails, timing["W3"]["ixa_correct"], timing["W3"]["mlir_correct"]))
if "cli_us" in timing["W1"]:
    print()
    print("| workload | in-process batch µs/item | ixa query µs/item (whole process) | ratio | --jobs 1 | --jobs %d | speed-up |"
          % timing["W1"].get("cli_jobs", 2))
    print("|---|---:|---:|---:|---:|---:|---:|")
    for w in ("W1", "W2", "W3"):
        t = timing[w]
        print("| %s | %.2f | %.2f | %.2f | %s | %s | %s |" % (
            names[w], t["ixa_batch_us"], t["cli_us"], t["cli_over_in_process"],
            "%.2f" % t["cli_jobs1_us"] if "cli_jobs1_us" in t else "-",
            "%.2f" % t["cli_jobs_us"] if "cli_jobs_us" in t else "-",
            "%.2fx" % t["cli_jobs_speedup"] if "cli_jobs_speedup" in t else "-"))
PY
echo
echo "quality (score_ixa.py, through the CLI):"
grep '^ixa-peers:' "$OUT/score.txt" | sed 's/ [0-9.]* us\/item//g'
