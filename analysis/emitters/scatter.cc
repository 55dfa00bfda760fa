// The scatter emitter (docs/xla-reference.md §(h) h.6): one thread per
// update element (u = 1) over the first update's shape; the indices are
// read along their second dim for each update row. The scatter operands
// are written in place through runtime indices: no thread map.
#include "analysis/emitters/internal.h"

namespace ixa::emitters {

Result<PlanDraft> BuildScatterPlan(const FusionInfo& info,
                                   const hw::Device& device, ExprContext* ctx) {
  const Instruction* scatter = info.roots[0];
  const int count = scatter->operand_count();
  if (count < 3 || count % 2 == 0) {
    return Error::Invalid("scatter " + scatter->name +
                          " needs operands, indices and as many updates");
  }
  const int operands = (count - 1) / 2;
  const Instruction* indices = scatter->operand(operands);
  const hlo::Shape& update = scatter->operand(operands + 1)->shape;
  if (indices->shape.rank() != 2 || update.rank() < 1) {
    return Error::Unsupported(
        "scatter " + scatter->name +
        ": the emitter needs XLA's simplified form (rank-2 indices, updates "
        "with a leading index dim)");
  }
  PlanDraft draft;
  EmitterPlan& plan = draft.plan;
  plan.kind = EmitterKind::kScatter;
  IXA_ASSIGN_OR_RETURN(
      plan.launch,
      CalculateLaunchDimensions(scatter->operands.back()->shape, device, {}));
  IXA_ASSIGN_OR_RETURN(IndexingMap update_map,
                       DefaultThreadMap(plan.launch, 1, update, ctx));
  // (update index)[s] -> (d0, s): the row of indices an update row uses.
  std::vector<Variable> dims;
  for (int64_t d : update.dims) dims.push_back(RangeVar(d));
  IndexingMap to_indices(ctx, std::move(dims),
                         {RangeVar(indices->shape.dims[1])}, {},
                         {ctx->Dim(0), ctx->Symbol(0)});
  IXA_ASSIGN_OR_RETURN(IndexingMap indices_map,
                       ComposeSimplified(update_map, to_indices));
  RootDraft rd;
  rd.plan.root = scatter;
  rd.plan.output = 0;
  rd.plan.hero = scatter;
  for (int i = 0; i < count; ++i) {
    if (i < operands) {
      rd.plan.hero_operand_maps.push_back(std::nullopt);
      rd.reads.push_back(OperandRead::kUnknown);
      rd.unknown_reasons.push_back(
          "scatter " + scatter->name + " updates operand " + std::to_string(i) +
          " in place at runtime indices: no thread map");
    } else {
      rd.plan.hero_operand_maps.push_back(i == operands ? indices_map
                                                        : update_map);
      rd.reads.push_back(OperandRead::kMap);
      rd.unknown_reasons.emplace_back();
    }
  }
  draft.roots.push_back(std::move(rd));
  return draft;
}

}  // namespace ixa::emitters
