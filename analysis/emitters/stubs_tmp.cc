// Temporary: emitter kinds not implemented yet.
#include "analysis/emitters/internal.h"

namespace ixa::emitters {

Result<PlanDraft> BuildConcatenatePlan(const FusionInfo&, const hw::Device&,
                                       ExprContext*) {
  return Error::Unsupported("concatenate emitter plan: not implemented yet");
}
Result<PlanDraft> BuildScatterPlan(const FusionInfo&, const hw::Device&,
                                   ExprContext*) {
  return Error::Unsupported("scatter emitter plan: not implemented yet");
}
Result<PlanDraft> BuildInPlaceDusPlan(const FusionInfo&,
                                      const std::vector<const Instruction*>&,
                                      const hw::Device&, ExprContext*) {
  return Error::Unsupported("in-place DUS emitter plan: not implemented yet");
}
Result<PlanDraft> BuildInputSlicesPlan(const FusionInfo&, const hw::Device&,
                                       ExprContext*) {
  return Error::Unsupported("input slices emitter plan: not implemented yet");
}
std::vector<const Instruction*> InPlaceDynamicUpdateSlices(const FusionInfo&) {
  return {};
}

}  // namespace ixa::emitters
