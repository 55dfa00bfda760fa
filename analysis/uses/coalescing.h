// Coalescing of a fusion's reads (spec/xla-reference.md §(f), §(h)).
//
// Thread mapping: XLA's loop emitter. A thread (th_x, bl_x) with chunk s0
// and unroll index s1 writes output element
//   linear = s0 * (unroll * threads) + (th_x + bl_x * threads_per_block) *
//            unroll + s1,      linear in [0, N - 1],
// delinearized over the output's physical (minor-to-major) order. Each
// parameter is read through thread -> output -> parameter (the grouped
// output-to-input maps) -> physical linear offset (the parameter's
// minor_to_major permutation; layout tiles are not modelled).
//
// Per operand and map, on the first warp (lanes 0..warp_size-1 of block 0,
// outer loop variables at their lower bound, runtime variables at the
// midpoint of their range):
//   coalesced      — XLA's verdict (IsIndexingCoalesced): the offset must
//                    split as f(lane) + g(last range var) and have no
//                    constraint other than the offset itself; the
//                    contiguous intervals then need fewer than 1/0.9 times
//                    the minimal number of line_bytes transactions.
//                    Structural failures give false, as in XLA.
//   the numbers    — exact, by enumerating the warp's accesses
//                    (hw::AnalyzeWarpAccess): transactions = distinct
//                    sector_bytes sectors touched by one warp request
//                    (what Nsight reports as sectors/request),
//                    bytes_requested = sectors * sector_bytes,
//                    bytes_useful = distinct bytes, efficiency = their
//                    ratio. Several maps of one operand are separate
//                    requests: their numbers add up.
// With tile_sizes (the Triton-style tiled variant): one output tile at the
// origin is read; the numbers count DRAM-to-L2 transactions of the whole
// tile, and bandwidth_utilization is XLA's heuristic: the contiguous bytes
// of the operand's tile (the product, minor to major, of min(tile, dim)
// over stride-1 dims up to the first partial one) over that amount rounded
// up to the DRAM-to-L2 transaction size. An operand whose symbolic tile is
// not representable falls back to the exact efficiency.
#ifndef IXA_ANALYSIS_USES_COALESCING_H_
#define IXA_ANALYSIS_USES_COALESCING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/shape.h"
#include "core/indexing_map.h"
#include "core/result.h"
#include "hw/device.h"

namespace ixa {

struct LaunchConfig {
  int64_t threads_per_block = 1;
  int64_t blocks = 1;
  int64_t unroll = 1;
};

// XLA's loop-emitter launch for `num_elements` outputs: unroll = gcd(N, 4)
// when N >= sm_count * 2048 (enough work to fill every SM), else 1;
// threads_per_block = min(4 * warp_size, ceil(N / unroll)); blocks =
// ceil(ceil(N / unroll) / threads_per_block).
LaunchConfig DefaultLoopLaunch(int64_t num_elements, const hw::Device& device);

// (th_x, th_y, th_z, bl_x, bl_y, bl_z)[chunk, unroll] -> output index.
Result<IndexingMap> LoopThreadToOutputMap(const hlo::Shape& output,
                                          const LaunchConfig& launch,
                                          ExprContext* ctx);

// Logical index -> element offset in memory (row-major over the physical
// order given by minor_to_major). A scalar maps to offset 0.
IndexingMap LinearizationMap(const hlo::Shape& shape, ExprContext* ctx);

// Bytes per element (sub-byte types count as one byte).
int64_t ElementBytes(const hlo::Shape& shape);

// The DRAM-to-L2 transaction size: 64 bytes on NVIDIA GPUs (XLA's device
// descriptions), the sector size elsewhere.
int64_t DramToL2TransactionBytes(const hw::Device& device);

// XLA's IsIndexingCoalesced on a (grid dims)[symbols] -> (linear offset)
// map. `why` (optional) receives the reason of a structural false.
Result<bool> IsIndexingCoalesced(const IndexingMap& thread_to_linear,
                                 int64_t element_bytes,
                                 const hw::Device& device,
                                 std::string* why = nullptr);

struct OperandCoalescing {
  int parameter = 0;
  std::string name;
  bool coalesced = true;
  int64_t transactions_per_warp_request = 0;
  int64_t bytes_requested = 0;
  int64_t bytes_useful = 0;
  double efficiency = 1.0;
  std::optional<double> bandwidth_utilization;  // tiled only
  int num_maps = 0;
  std::string note;  // why XLA's verdict is false by structure, if it is
};

struct CoalescingOptions {
  std::optional<LaunchConfig> launch;  // default: DefaultLoopLaunch
  std::vector<int64_t> tile_sizes;     // non-empty: the tiled variant
  int64_t enumeration_limit = int64_t{1} << 22;
};

struct CoalescingAnalysis {
  LaunchConfig launch;
  std::vector<OperandCoalescing> operands;
};

Result<CoalescingAnalysis> AnalyzeCoalescing(const FusionRegion& region,
                                             const hw::Device& device,
                                             const CoalescingOptions& options,
                                             ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_COALESCING_H_
