// The input slices emitter (docs/xla-reference.md §(h) h.3 step 4, h.6):
// several roots, each a unit-stride slice of an operand of one shape; the
// threads walk that shape and each writes the slices containing its
// element.
#include "analysis/emitters/internal.h"
#include "analysis/indexing/indexing.h"

namespace ixa::emitters {

Result<PlanDraft> BuildInputSlicesPlan(const FusionInfo& info,
                                       const hw::Device& device,
                                       ExprContext* ctx) {
  PlanDraft draft;
  EmitterPlan& plan = draft.plan;
  plan.kind = EmitterKind::kInputSlices;
  const hlo::Shape& shape = info.roots[0]->operand(0)->shape;
  LoopConfig config;
  if (info.bits_out > 0 && info.bits_out < 8) {
    config.unroll = CeilDiv(8, info.bits_out);
  }
  IXA_ASSIGN_OR_RETURN(plan.launch,
                       CalculateLaunchDimensions(shape, device, config));
  plan.launch.unroll = config.unroll;
  plan.loop_config = config;
  IXA_ASSIGN_OR_RETURN(
      IndexingMap base,
      DefaultThreadMap(plan.launch, config.unroll, shape, ctx));
  for (size_t k = 0; k < info.roots.size(); ++k) {
    const Instruction* slice = info.roots[k];
    // (d) -> (d - start), d in [start, start + size - 1].
    std::vector<Expr> results;
    std::vector<Constraint> constraints;
    for (int i = 0; i < shape.rank(); ++i) {
      const hlo::SliceDim& s = slice->slice[i];
      results.push_back(ctx->Dim(i) - s.start);
      constraints.push_back({ctx->Dim(i), Interval{s.start, s.limit - 1}});
    }
    IndexingMap to_slice =
        IndexingMap::FromTensorSizes(ctx, std::move(results), shape.dims, {});
    to_slice.SetConstraints(std::move(constraints));
    IXA_ASSIGN_OR_RETURN(IndexingMap output, ComposeSimplified(base, to_slice));
    RootDraft rd;
    rd.plan.root = slice;
    rd.plan.output = static_cast<int>(k);
    rd.plan.hero = slice;
    rd.plan.hero_operand_maps.push_back(std::nullopt);
    rd.plan.output_map = std::move(output);
    rd.read_through_output = true;
    draft.roots.push_back(std::move(rd));
  }
  return draft;
}

}  // namespace ixa::emitters
