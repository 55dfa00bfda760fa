// The concatenate emitter (docs/xla-reference.md §(h) h.6): one thread map
// over the operand largest along the concatenated dim, shared by every
// operand (each reads where it is in bounds); no output map.
#include <numeric>

#include "analysis/emitters/internal.h"
#include "analysis/indexing/indexing.h"

namespace ixa::emitters {

Result<PlanDraft> BuildConcatenatePlan(const FusionInfo& info,
                                       const hw::Device& device,
                                       ExprContext* ctx) {
  const Instruction* root = info.roots[0];
  const Instruction* concat = info.heroes[0];
  if (concat->dimensions.size() != 1) {
    return Error::Invalid("concatenate " + concat->name +
                          " needs one dimensions= entry");
  }
  const int64_t dim = concat->dimensions[0];
  // The first operand largest along the concatenated dim.
  const Instruction* largest = concat->operand(0);
  for (const Instruction* o : concat->operands) {
    if (o->shape.dims[dim] > largest->shape.dims[dim]) largest = o;
  }
  PlanDraft draft;
  EmitterPlan& plan = draft.plan;
  plan.kind = EmitterKind::kConcatenate;
  const LoopConfig config = ComputeLoopConfig(info, largest->shape, device);
  IXA_ASSIGN_OR_RETURN(
      plan.launch, CalculateLaunchDimensions(largest->shape, device, config));
  // An unroll factor that divides every operand's concatenated size.
  int64_t unroll = config.unroll;
  for (const Instruction* o : concat->operands) {
    if (unroll == 1) break;
    unroll = std::gcd(unroll, o->shape.dims[dim]);
  }
  plan.launch.unroll = unroll;
  plan.loop_config = config;
  IXA_ASSIGN_OR_RETURN(IndexingMap map, DefaultThreadMap(plan.launch, unroll,
                                                         largest->shape, ctx));
  RootDraft rd;
  rd.plan.root = root;
  rd.plan.output = 0;
  rd.plan.hero = concat;
  for (int i = 0; i < concat->operand_count(); ++i) {
    rd.plan.hero_operand_maps.push_back(map);
    rd.reads.push_back(OperandRead::kMap);
    // Where operand i's elements land in the concatenation (the epilogue
    // reads there).
    IXA_ASSIGN_OR_RETURN(HloInstructionIndexing to_out,
                         ComputeInputToOutputIndexing(*concat, i, ctx));
    for (const IndexingMap& m : to_out.indexing_maps[0]) {
      IXA_ASSIGN_OR_RETURN(IndexingMap placed, ComposeSimplified(map, m));
      rd.hero_output_maps.push_back(std::move(placed));
    }
  }
  draft.roots.push_back(std::move(rd));
  return draft;
}

}  // namespace ixa::emitters
