#include "analysis/uses/fusion_pair.h"

#include "analysis/uses/kernel_graph.h"
#include "core/budget.h"

namespace ixa {
namespace {

bool IsBudgetError(const Error& e) {
  return e.code == ErrorCode::kLimitExceeded || DeadlineExpiredIn();
}

}  // namespace

Result<KernelInfo> AnalyzeKernel(FusionRegion region, bool is_fusion,
                                 bool custom_fusion, CostModel model,
                                 const hw::Device& device, ExprContext* ctx,
                                 bool notes) {
  KernelInfo k;
  k.region = std::move(region);
  k.is_fusion = is_fusion;
  k.custom_fusion = custom_fusion;
  k.xla = AnalyzeXlaCost(k.region, is_fusion, device);
  IXA_ASSIGN_OR_RETURN(k.launch, ComputeXlaLaunch(k.region, device, ctx));
  if (model == CostModel::kXla) {
    XlaKernelRef self{&k.region, is_fusion, k.launch.own_plan_is_reduction};
    const bool coalesced =
        XlaReadCoalescedHeuristic(k.launch.kind, self, nullptr);
    k.xla_time = EstimateXlaRunTime(k.xla, k.launch, coalesced, device);
    k.cost = FusionCostFromXla(k.xla_time, device);
    if (k.cost.time_unknown) k.time_unknown = *k.cost.time_unknown;
    return k;
  }
  CostOptions options;
  options.model = CostModel::kIxa;
  options.is_fusion = is_fusion;
  options.notes = notes;
  auto cost = EstimateFusionCost(k.region, device, options, ctx);
  if (!cost.ok()) {
    if (IsBudgetError(cost.error())) return cost.error();
    k.time_unknown = cost.error().message;
    return k;
  }
  k.cost = std::move(cost).value();
  return k;
}

Result<PairEstimate> EstimatePair(const KernelInfo& p, const KernelInfo& c,
                                  std::vector<const hlo::Instruction*> merged,
                                  const hlo::Instruction* computation_root,
                                  CostModel model, bool cost_when_illegal,
                                  const hw::Device& device, ExprContext* ctx,
                                  bool notes) {
  PairEstimate out;
  out.merged = RegionOfGroup(merged, c.region.root);
  std::optional<XlaLaunch> merged_launch;
  std::optional<Error> launch_error;
  auto launch = [&]() -> const XlaLaunch* {
    if (!merged_launch && !launch_error) {
      auto l = ComputeXlaLaunch(out.merged, device, ctx);
      if (l.ok()) {
        merged_launch = std::move(l).value();
      } else {
        launch_error = l.error();
      }
    }
    return merged_launch ? &*merged_launch : nullptr;
  };
  out.legality = CheckFusionLegality(p.Legality(), c.Legality(),
                                     computation_root, device, [&]() {
                                       const XlaLaunch* l = launch();
                                       return l ? l->kind : EmitterKind::kLoop;
                                     });
  if (launch_error) return *launch_error;
  if (!out.legality.legal && !cost_when_illegal) return out;
  if (!p.time_unknown.empty() || !c.time_unknown.empty()) {
    out.time_unknown =
        !p.time_unknown.empty() ? p.time_unknown : c.time_unknown;
    return out;
  }
  if (model == CostModel::kXla) {
    const XlaLaunch* l = launch();
    if (!l) return *launch_error;
    XlaKernelRef pr{&p.region, p.is_fusion, p.launch.own_plan_is_reduction};
    XlaKernelRef cr{&c.region, c.is_fusion, c.launch.own_plan_is_reduction};
    const bool coalesced = XlaReadCoalescedHeuristic(l->kind, pr, &cr);
    XlaRunTime t = EstimateXlaFusedRunTime(p.xla, p.xla_time, c.xla, c.xla_time,
                                           out.merged, *l, coalesced, device);
    out.fused = FusionCostFromXla(t, device);
    return out;
  }
  CostOptions options;
  options.model = CostModel::kIxa;
  options.is_fusion = true;
  options.notes = notes;
  auto cost = EstimateFusionCost(out.merged, device, options, ctx);
  if (!cost.ok()) {
    if (IsBudgetError(cost.error())) return cost.error();
    out.time_unknown = cost.error().message;
    return out;
  }
  out.fused = std::move(cost).value();
  return out;
}

}  // namespace ixa
