// XLA's priority-fusion legality (docs/cost-model.md "Legality"): may a
// producer kernel be fused into a consumer kernel at all? The rules run in
// XLA's order before any cost, and a refusal names its rule:
//
//   root                 the producer is the computation's root;
//   not_fusible          either side is not fusible (dots, sorts, custom
//                        calls, collectives, custom fusions, ...);
//   bitcast_consumer     the consumer is a lone bitcast;
//   scatter              the producer is a scatter, or the consumer is one
//                        and the producer is, or reads, its in-place
//                        operand;
//   reduce_into_reduce   both sides hold a significant reduce (array
//                        output, at least 16 inputs per output);
//   reduction_epilogue   the producer uses the reduction emitter and the
//                        fused kernel would not;
//   budget_shared_memory their shared memory exceeds a block's;
//   budget_reductions    more than 8 reduction-emitter reductions;
//   budget_operands      more than 96 operands and outputs;
//   ir_size              the producer's code times its copies in the
//                        consumer plus the consumer's exceeds 10000;
//   in_place             the consumer updates a buffer in place
//                        (dynamic-update-slice, scatter) and the producer
//                        is, or reads, that buffer in a way XLA refuses.
// XLA's Triton rules are not modelled (ixa plans no Triton fusions).
#ifndef IXA_ANALYSIS_USES_FUSION_LEGALITY_H_
#define IXA_ANALYSIS_USES_FUSION_LEGALITY_H_

#include <functional>
#include <string>

#include "analysis/uses/xla_cost_analysis.h"
#include "analysis/uses/xla_performance_model.h"

namespace ixa {

inline constexpr int kXlaMaxOperandsAndOutputsPerFusion = 96;
inline constexpr int kXlaMaxUnnestedReductionsPerFusion = 8;
inline constexpr double kXlaMaxIrSize = 10000;

// One side of a fusion, with what the rules read of it.
struct LegalityKernel {
  const FusionRegion* region = nullptr;
  bool is_fusion = false;
  bool custom_fusion = false;                 // a fusion of kind kCustom
  const XlaCostAnalysis* analysis = nullptr;  // IR size, times emitted
  const XlaLaunch* launch = nullptr;          // its own plan
};

struct LegalityVerdict {
  bool legal = true;
  std::string rule;    // empty when legal
  std::string reason;  // XLA's reason, in words
};

// True when XLA's IsFusible accepts the kernel (rule not_fusible).
bool IsFusibleKernel(const LegalityKernel& kernel);

// The rules for fusing `producer` into `consumer`. `computation_root` is
// the root of the computation both belong to; `merged_kind` gives the
// emitter of the fused kernel (asked only for reduction_epilogue).
LegalityVerdict CheckFusionLegality(
    const LegalityKernel& producer, const LegalityKernel& consumer,
    const hlo::Instruction* computation_root, const hw::Device& device,
    const std::function<EmitterKind()>& merged_kind);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_FUSION_LEGALITY_H_
