// XLA's priority fusion over a module's entry computation, with either cost
// model (docs/cost-model.md "Fusion plans"): every producer gets a
// priority, the time saved by fusing it into all its users
// (fusion_decision's question), and the highest is fused first, into every
// user; then the new kernels and their operands are prioritised again.
// Ties go to the newer instruction. Bitcasts are fused first wherever
// legal; a producer that cannot fuse into every non-bitcast user, or whose
// priority is negative, waits until a later fusion changes its users.
// Scalar constants are fused into their users at the end. The result is
// the fused module's text (which the module reader reads back) and the
// fusions made, in order, with the times that justified them.
#ifndef IXA_ANALYSIS_USES_FUSION_PLAN_H_
#define IXA_ANALYSIS_USES_FUSION_PLAN_H_

#include <map>
#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "analysis/uses/fusion_cost.h"
#include "hw/device.h"

namespace ixa {

struct FusionStep {
  // "fuse" (a producer into all its users), "bitcast" (a bitcast into the
  // users that may take it) or "constant" (a scalar constant, at the end).
  std::string kind;
  std::string producer;  // the producer kernel (its root's name)
  // The priority (µs saved); absent for bitcasts and constants.
  std::optional<double> priority_us;
  double producer_us = 0;  // the producer's kernel time
  struct Into {
    std::string consumer;  // the consumer kernel before
    std::string fusion;    // the kernel after (the consumer's root's name)
    double consumer_us = 0, fused_us = 0;
  };
  std::vector<Into> into;
  bool producer_kept = false;  // some users did not take it
};

struct FusionPlanResult {
  std::string module_text;
  std::vector<FusionStep> steps;
  int kernels_before = 0, kernels_after = 0;
  // Σ kernel times plus 1 µs per kernel, before and after, in the model.
  double time_before_us = 0, time_after_us = 0;
  bool times_known = true;
  // Producers that were never fused, counted by the rule that refused a
  // user (the last verdict seen for each producer).
  std::map<std::string, int> refusals;
};

struct FusionPlanOptions {
  CostModel model = CostModel::kIxa;
  // Cost each kernel and each producer/consumer pair once per structure
  // (analysis/uses/fusion_plan_cache.h): the same plan, faster on modules
  // that repeat themselves. Off only to check that claim.
  bool cache_costs = true;
};

// Plans the fusions of `module`'s entry computation (its fusions are
// inlined first; custom fusions stay as they are). Errors: budgets, and an
// internal error if the printed module did not read back.
Result<FusionPlanResult> PlanFusions(const hlo::Module& module,
                                     const hw::Device& device,
                                     const FusionPlanOptions& options,
                                     ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_FUSION_PLAN_H_
