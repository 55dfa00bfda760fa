// What fusion_decision and fusion_plan know of a kernel and of a producer
// fused into a consumer, in either cost model: XLA's counts and launch
// (which its legality rules read in both models), the kernel's cost, and
// for a pair the legality verdict and the fused kernel's cost.
#ifndef IXA_ANALYSIS_USES_FUSION_PAIR_H_
#define IXA_ANALYSIS_USES_FUSION_PAIR_H_

#include <optional>
#include <string>
#include <vector>

#include "analysis/uses/fusion_cost.h"
#include "analysis/uses/fusion_legality.h"
#include "analysis/uses/xla_cost_analysis.h"
#include "analysis/uses/xla_performance_model.h"

namespace ixa {

struct KernelInfo {
  FusionRegion region;
  bool is_fusion = false;
  bool custom_fusion = false;
  XlaCostAnalysis xla;
  XlaLaunch launch;
  XlaRunTime xla_time;  // the xla model only
  FusionCost cost;      // in the chosen model
  // Why the kernel's time is not known (its cost failed, or XLA's cost
  // of a custom call is undefined); empty when it is.
  std::string time_unknown;
  double exec_us() const { return cost.exec_us; }
  LegalityKernel Legality() const {
    return {&region, is_fusion, custom_fusion, &xla, &launch};
  }
};

// Everything about one kernel. Errors: budgets only (a kernel the model
// cannot cost gets time_unknown).
// `notes`: the ixa model's departures from XLA's (fusion plans skip them).
Result<KernelInfo> AnalyzeKernel(FusionRegion region, bool is_fusion,
                                 bool custom_fusion, CostModel model,
                                 const hw::Device& device, ExprContext* ctx,
                                 bool notes = true);

struct PairEstimate {
  LegalityVerdict legality;
  FusionRegion merged;
  // Set when the fused kernel was costed (always when legal, unless its
  // cost failed: then time_unknown says why).
  std::optional<FusionCost> fused;
  std::string time_unknown;
};

// The producer fused into the consumer: legality, then (when legal, or
// always with `cost_when_illegal`) the fused kernel's cost. `merged` is
// the fused kernel's instructions, operands before users, its root the
// consumer's. Errors: budgets only.
Result<PairEstimate> EstimatePair(const KernelInfo& producer,
                                  const KernelInfo& consumer,
                                  std::vector<const hlo::Instruction*> merged,
                                  const hlo::Instruction* computation_root,
                                  CostModel model, bool cost_when_illegal,
                                  const hw::Device& device, ExprContext* ctx,
                                  bool notes = true);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_FUSION_PAIR_H_
