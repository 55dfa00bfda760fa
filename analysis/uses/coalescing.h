// Coalescing of a fusion's reads (docs/xla-reference.md §(f), §(h)).
//
// Thread mapping: the fusion's emitter plan (analysis/emitters/plan.h).
// Each parameter is read through the plan's thread -> parameter maps
// (ParameterPlan::maps) composed with the parameter's physical layout:
// hw's XLA tiled-layout map, minor_to_major and tiles included, giving the
// element offset in memory. A transpose fusion reads its input through
// the shared-memory tile, so its global reads are the tile loads.
//
// Per operand and map, on the first warp:
//   coalesced      — XLA's verdict (IsIndexingCoalesced) on the offset map:
//                    lanes (d0 in [0, 31]) of the first block, the other
//                    grid dims at their lower bound (XLA uses 0; the two
//                    differ only for a reduction group g > 0, whose maps
//                    have bl_y = g and which XLA's sample misses), runtime
//                    variables at their midpoint, every range variable but
//                    the last at its lower bound; the offset must split as
//                    f(lane) + g(last range var) with no other constraint;
//                    the contiguous intervals then need fewer than 1/0.9
//                    times the minimal number of line_bytes transactions.
//                    Structural failures give false, as in XLA.
//   the numbers    — exact, by enumerating one warp's request
//                    (hw::AnalyzeWarpAccess): the warp's warp_size
//                    consecutive threads (th_x fastest, then th_y, th_z) of
//                    the first block, the plan's innermost range variable
//                    (the unroll / vector index) over its whole range and
//                    every outer one at its lower bound; transactions =
//                    distinct sector_bytes sectors, bytes_requested =
//                    sectors * sector_bytes, bytes_useful = distinct bytes,
//                    efficiency = their ratio. Several maps of one operand
//                    are separate requests: their numbers add up.
// Operands the plan cannot map (an op without indexing maps on the path, a
// scatter operand written through runtime indices) are listed in
// `unknown` and the rest is answered; operands the kernel never reads (an
// in-place DUS operand) count as coalesced with no transactions.
// With tile_sizes (the Triton-style tiled variant): one output tile at the
// origin is read through the fusion's output-to-input maps (a tile larger
// than a dim is masked: the overhang reads nothing); the numbers count
// DRAM-to-L2 transactions of the whole tile, and
// bandwidth_utilization is XLA's heuristic: the contiguous bytes of the
// operand's tile (the product, minor to major, of min(tile, dim) over
// stride-1 dims up to the first partial one) over that amount rounded up to
// the DRAM-to-L2 transaction size. An operand whose symbolic tile is not
// representable falls back to the exact efficiency.
#ifndef IXA_ANALYSIS_USES_COALESCING_H_
#define IXA_ANALYSIS_USES_COALESCING_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "analysis/fusion/fusion.h"
#include "analysis/hlo/shape.h"
#include "analysis/uses/unknown_operand.h"
#include "core/indexing_map.h"
#include "core/result.h"
#include "hw/device.h"

namespace ixa {

// The coalescing request's `launch` override: the loop emitter's plan with
// (threads_per_block, 1, 1) threads, (blocks, 1, 1) blocks and `unroll`.
struct LaunchConfig {
  int64_t threads_per_block = 1;
  int64_t blocks = 1;
  int64_t unroll = 1;
};

// Bytes per element (sub-byte types count as one byte).
int64_t ElementBytes(const hlo::Shape& shape);

// The DRAM-to-L2 transaction size: 64 bytes on NVIDIA GPUs (XLA's device
// descriptions), the sector size elsewhere.
int64_t DramToL2TransactionBytes(const hw::Device& device);

// XLA's IsIndexingCoalesced on a (grid dims)[symbols] -> (element offset)
// map. `why` (optional) receives the reason of a structural false.
Result<bool> IsIndexingCoalesced(const IndexingMap& thread_to_offset,
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
  bool not_read = false;  // the kernel never reads it
  std::string note;       // why XLA's verdict is false by structure, if it is
};

// Coalescing of the reads `thread_maps` (grid ids -> logical index of a
// tensor of `shape`) make; parameter and name are left for the caller.
Result<OperandCoalescing> AnalyzeReads(std::span<const IndexingMap> thread_maps,
                                       const hlo::Shape& shape,
                                       const LaunchDimensions& launch,
                                       const hw::Device& device);

struct CoalescingOptions {
  std::optional<LaunchConfig> launch;  // override of the loop plan's launch
  std::vector<int64_t> tile_sizes;     // non-empty: the tiled variant
  int64_t enumeration_limit = int64_t{1} << 22;
};

struct CoalescingAnalysis {
  EmitterKind emitter = EmitterKind::kLoop;
  std::optional<ReductionKind> reduction_kind;
  LaunchDimensions launch;
  std::vector<OperandCoalescing> operands;
  std::vector<UnknownOperand> unknown;
};

// Plans the region (ComputeEmitterPlan, or the loop plan with the launch
// override) and analyses every parameter. Errors only for bad requests
// (an invalid device, tile sizes or launch); a plan the emitters refuse
// makes every operand unknown.
Result<CoalescingAnalysis> AnalyzeCoalescing(const FusionRegion& region,
                                             const hw::Device& device,
                                             const CoalescingOptions& options,
                                             ExprContext* ctx);

// The same for a plan already computed.
CoalescingAnalysis AnalyzePlanCoalescing(const FusionRegion& region,
                                         const EmitterPlan& plan,
                                         const hw::Device& device);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_COALESCING_H_
