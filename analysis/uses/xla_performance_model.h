// XLA's GPU performance model (`"model": "xla"`, docs/cost-model.md "XLA's
// model"): the time of one kernel, and of a producer fused into a
// consumer, from the counts of xla_cost_analysis.h.
//
//   launch   the emitter's launch (analysis/emitters/plan.h); the loop,
//            concatenate, in-place dynamic-update-slice and input-slices
//            emitters use the 2026 rule: n' = ceil(n / unroll), threads =
//            min(4 * warp, n'), blocks = ceil(n' / threads) split into y
//            past block_dim_limit.x; unroll = gcd(n, MaxUnroll) from
//            threads_per_core * cores elements on (MaxUnroll 4, or the
//            Blackwell rule), at least ceil(8 / smallest output bits).
//            A kernel no emitter takes: 128 threads, ceil(n / 128) blocks.
//   compute  flops / floor(clock * 2 * min(threads, fpus_per_core) *
//            min(blocks, cores)) ns.
//   read     per operand: min(net, total) bytes at DRAM bandwidth times the
//            coalescing rate, the re-reads (total - net) at 2.5x (L2) or
//            20x (L1: the operand under 2 KiB per SM) bandwidth when the
//            operand fits in L2, else like the first read; each rate capped
//            at blocks * clock * 32 bytes. The rate is 1 when coalesced,
//            else element_bytes / 64 (every element pays a 64-byte
//            transaction).
//   write    bytes_written / DRAM bandwidth.
//   exec     compute + read + write - 0.95 * min(compute, read + write).
// Launch overhead (1 us per kernel) is not in exec: fusion decisions add it
// per kernel. Times are computed in 32-bit floats, as in XLA.
#ifndef IXA_ANALYSIS_USES_XLA_PERFORMANCE_MODEL_H_
#define IXA_ANALYSIS_USES_XLA_PERFORMANCE_MODEL_H_

#include <optional>
#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "analysis/uses/xla_cost_analysis.h"

namespace ixa {

// XLA's kKernelLaunchOverhead.
inline constexpr double kXlaKernelLaunchOverheadUs = 1.0;
// XLA's kMemoryComputeParallelism.
inline constexpr double kXlaMemoryComputeParallelism = 0.95;

// The emitter of a kernel and its launch, as XLA's cost model sees them.
struct XlaLaunch {
  EmitterKind kind = EmitterKind::kLoop;
  std::optional<ReductionKind> reduction_kind;
  LaunchDimensions launch;
  // The plan could not be made: the fallback launch (128 threads), and why.
  std::string fallback;
  // What the priority fusion's legality rules read of the plan.
  int64_t shared_memory_budget_bytes = 0;  // rule "budget: shared memory"
  int unnested_reductions = 0;             // reduction-emitter reduces
  bool own_plan_is_reduction = false;      // IsInputFusibleReduction
};

// The kernel's launch. Errors: budgets only (a plan that fails for any
// other reason gives the fallback launch).
Result<XlaLaunch> ComputeXlaLaunch(const FusionRegion& region,
                                   const hw::Device& device, ExprContext* ctx);

// The 2026 unroll factor of a loop-like kernel whose indexing shape has
// `elements` elements, on `device` (exposed for tests).
int64_t XlaUnrollFactor(const FusionRegion& region, EmitterKind kind,
                        int64_t elements, const hw::Device& device);

// One side of the coalescing heuristic: a kernel (plain op or fusion).
struct XlaKernelRef {
  const FusionRegion* region = nullptr;
  bool is_fusion = false;
  bool is_reduction = false;  // its own plan uses the reduction emitter
};

// XLA's IsReadCoalescedHeuristic: false when the emitter is not the tiled
// transpose and the producer or consumer moves the most-minor non-trivial
// dim with a copy or transpose (not of a broadcast or iota), or when the
// reduction emitter is used and both sides are input-fusible reductions.
bool XlaReadCoalescedHeuristic(EmitterKind kind, const XlaKernelRef& producer,
                               const XlaKernelRef* consumer);

struct XlaOperandCost {
  int index = 0;  // fusion parameter, or operand number of a plain op
  const hlo::Instruction* operand = nullptr;
  std::string name;
  float utilization = 0;
  int64_t size_bytes = 0;   // the operand's size
  int64_t bytes_total = 0;  // bytes accessed (re-reads included)
  int64_t bytes_net = 0;    // min(size, bytes_total): read from DRAM
  bool coalesced = true;
  double read_time_us = 0;
};

struct XlaRunTime {
  XlaLaunch launch;
  bool coalesced = true;
  int64_t flops = 0;
  std::vector<XlaOperandCost> operands;
  int64_t bytes_read = 0;  // Σ bytes_total
  int64_t bytes_written = 0;
  double compute_us = 0, read_us = 0, write_us = 0, memory_us = 0, exec_us = 0;
  // Non-empty when XLA's counts are undefined (a custom call of unknown
  // cost); the times are then not meaningful.
  std::string unknown;
};

// The time of one kernel (EstimateRunTimeForInstruction).
XlaRunTime EstimateXlaRunTime(const XlaCostAnalysis& analysis,
                              const XlaLaunch& launch, bool coalesced,
                              const hw::Device& device);

// A producer fused into one consumer (EstimateRunTimeForFusion): the
// producer's flops times its utilization by the consumer, plus the
// consumer's; per operand of the merged kernel, the producer's bytes times
// that utilization plus the consumer's, less what both read elementwise;
// the consumer's write; the merged kernel's launch and coalescing.
// `merged` is the fused kernel's region (its parameters the operands).
XlaRunTime EstimateXlaFusedRunTime(const XlaCostAnalysis& producer,
                                   const XlaRunTime& producer_time,
                                   const XlaCostAnalysis& consumer,
                                   const XlaRunTime& consumer_time,
                                   const FusionRegion& merged,
                                   const XlaLaunch& merged_launch,
                                   bool coalesced, const hw::Device& device);

// The parts of ReadTimeWithDRAMHeuristic, in seconds (exposed for tests).
double XlaReadTimeSeconds(const hw::Device& device, int64_t num_blocks,
                          int64_t bytes_net, int64_t bytes_total,
                          double bandwidth_rate);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_XLA_PERFORMANCE_MODEL_H_
