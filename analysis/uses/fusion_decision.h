// Should a producer be fused into its consumer? (docs/protocol.md
// `fusion_decision`.) The question a fusion pass asks, answered with the
// parts that justify the verdict:
//
//   unfused = t(producer kernel) + t(consumer kernel) + 2 launches: the
//             producer writes its output to memory, the consumer reads it
//             (each kernel costed by EstimateFusionCost through its own
//             emitter plan);
//   fused   = t(fused kernel) + 1 launch (+ the producer's kernel and a
//             launch when the producer has other users and must still be
//             materialised). The fused kernel keeps the consumer's plan:
//             its launch, and its thread maps of the producer's output
//             composed with the producer's output-to-input maps become the
//             reads of the producer's operands (coalescing and elements
//             read through them). The producer is recomputed as often as
//             the consumer's maps read each of its elements: flops =
//             consumer flops + producer flops per element * the exact
//             number of reads of the producer's output
//             (analysis/uses/utilization), and recompute_factor = reads /
//             distinct elements read.
//   launch overhead: XLA's kKernelLaunchOverhead, 1 us per kernel.
// fuse = fused < unfused; speedup = unfused / fused.
#ifndef IXA_ANALYSIS_USES_FUSION_DECISION_H_
#define IXA_ANALYSIS_USES_FUSION_DECISION_H_

#include <string>

#include "analysis/hlo/module.h"
#include "analysis/uses/fusion_cost.h"
#include "hw/device.h"

namespace ixa {

inline constexpr double kKernelLaunchOverheadUs = 1.0;

struct FusionDecision {
  FusionCost producer, consumer;  // the unfused kernels
  double unfused_us = 0;
  FusionCost fused;  // the fused kernel (time_us: the kernel alone)
  double fused_us = 0;
  double recompute_factor = 0;
  int64_t producer_reads = 0;          // reads of the producer's output
  int64_t producer_elements_read = 0;  // distinct elements of it read
  bool producer_kept = false;          // other users: its kernel still runs
  int unfused_kernels = 2, fused_kernels = 1;
  bool fuse = false;
  double speedup = 1;
};

// `producer` and `consumer` name instructions of `computation` (a fusion
// instruction or a single op each); the consumer must use the producer.
// Errors: unknown names or a consumer that does not read the producer
// (invalid_argument), a producer that is not an array (unsupported), and
// the plan errors of either kernel.
Result<FusionDecision> DecideFusion(const hlo::Computation& computation,
                                    const std::string& producer,
                                    const std::string& consumer,
                                    const hw::Device& device, ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_FUSION_DECISION_H_
