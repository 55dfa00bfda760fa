// The loop emitter (docs/xla-reference.md §(h) h.6): every root written
// through the default thread map of root 0's launch; a loop root is its own
// hero.
#include "analysis/emitters/internal.h"
#include "analysis/indexing/indexing.h"

namespace ixa::emitters {

Result<PlanDraft> BuildLoopPlan(const FusionInfo& info,
                                const hw::Device& device,
                                const std::optional<LaunchDimensions>& launch,
                                ExprContext* ctx) {
  PlanDraft draft;
  EmitterPlan& plan = draft.plan;
  plan.kind = EmitterKind::kLoop;
  const hlo::Shape& element = OutputShape(*info.roots[0], 0);
  if (!element.IsArray()) {
    return Error::Unsupported("loop emitter: the first output " +
                              info.roots[0]->name + " is not an array");
  }
  LoopConfig config = ComputeLoopConfig(info, element, device);
  if (launch) {
    plan.launch = *launch;
    config.unroll = launch->unroll;
  } else {
    IXA_ASSIGN_OR_RETURN(plan.launch,
                         CalculateLaunchDimensions(element, device, config));
    plan.launch.unroll = config.unroll;
  }
  plan.loop_config = config;
  for (size_t k = 0; k < info.roots.size(); ++k) {
    const Instruction* root = info.roots[k];
    RootDraft rd;
    rd.plan.root = root;
    rd.plan.output = static_cast<int>(k);
    rd.plan.hero = root;
    const hlo::Shape& shape = OutputShape(*root, 0);
    IXA_ASSIGN_OR_RETURN(
        IndexingMap output,
        DefaultThreadMap(plan.launch, plan.launch.unroll, shape, ctx));
    if (info.IsInside(root)) {
      rd.plan.hero_operand_maps = OwnOperandMaps(*root, output, ctx);
    }
    rd.plan.output_map = std::move(output);
    rd.read_through_output = true;
    draft.roots.push_back(std::move(rd));
  }
  return draft;
}

}  // namespace ixa::emitters
