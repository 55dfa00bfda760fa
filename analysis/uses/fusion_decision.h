// Should a producer be fused into its consumers? The question XLA's
// priority fusion asks of every producer, answered with the parts that
// justify the verdict (docs/cost-model.md "Fusion decisions"):
//
//   1. legality: XLA's rules (analysis/uses/fusion_legality.h) between the
//      producer and each consumer; the first refusal names its rule;
//   2. times, in the chosen model, with the producer duplicated into every
//      consumer (all of its users, or the one named):
//        unfused = (k + 1) launches + t(producer) + Σ t(consumer_i)
//        fused   =  k launches + Σ t(producer fused into consumer_i)
//                   (+ the producer's kernel and launch when it must still
//                   run: other users, the computation's root, or, in the
//                   ixa model, bitcast users, which XLA counts as fused
//                   although they keep the producer alive)
//      where t is a kernel's time without launch overhead (1 us each).
//      In the xla model the fused time is XLA's EstimateRunTimeForFusion;
//      in the ixa model it is the cost of the fused kernel itself.
//   fuse = legal and fused <= unfused; priority_us = unfused - fused.
//
// Fusions of the module are inlined first (kernel_graph.h): a kernel is a
// group of entry instructions, and the fused kernel is the union of the
// producer's and the consumer's. A consumer that reads the producer
// through a get-tuple-element (a multi-output producer) reads it with the
// get-tuple-element fused in.
#ifndef IXA_ANALYSIS_USES_FUSION_DECISION_H_
#define IXA_ANALYSIS_USES_FUSION_DECISION_H_

#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "analysis/uses/fusion_cost.h"
#include "analysis/uses/fusion_legality.h"
#include "hw/device.h"

namespace ixa {

inline constexpr double kKernelLaunchOverheadUs = 1.0;

struct DecisionOptions {
  CostModel model = CostModel::kIxa;
  // Only this consumer (it must use the producer); empty: every user.
  std::string consumer;
};

struct ConsumerDecision {
  std::string name;
  LegalityVerdict legality;
  FusionCost unfused;      // the consumer's own kernel
  FusionCost fused;        // the producer fused into it
  bool costed = false;     // unfused and fused were computed
  std::string cost_error;  // why not, when they could not be
  // Reads of the producer's output by this consumer (ixa counts), and the
  // distinct elements of it read; recompute_factor = their ratio.
  int64_t producer_reads = 0;
  int64_t producer_elements_read = 0;
  double recompute_factor = 0;
};

struct FusionDecision {
  CostModel model = CostModel::kIxa;
  std::string producer_name;
  std::vector<ConsumerDecision> consumers;
  bool legal = true;
  std::string rule, reason;  // the first refusal
  bool times_known = false;
  FusionCost producer;  // the producer's own kernel
  double unfused_us = 0, fused_us = 0, priority_us = 0;
  int unfused_kernels = 0, fused_kernels = 0;
  bool producer_kept = false;  // it still runs after the fusion
  bool fuse = false;
  double speedup = 1;
  std::vector<std::string> notes;
  // The first consumer's, for callers that ask about one consumer.
  const ConsumerDecision* first() const {
    return consumers.empty() ? nullptr : &consumers.front();
  }
};

// `producer` (and options.consumer) name entry instructions of `module`
// (a fusion or a single op each). Errors: unknown names, a consumer that
// does not use the producer, a producer that computes nothing (a
// parameter or constant) or is unused (invalid_argument).
Result<FusionDecision> DecideFusion(const hlo::Module& module,
                                    const std::string& producer,
                                    const DecisionOptions& options,
                                    const hw::Device& device, ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_FUSION_DECISION_H_
