// EmitFusion: plan, then emit (kept apart from the pipeline so that code
// emitting with a given plan does not need the planner).
#include "emit/pipeline.h"

namespace ixa::emit {

Result<EmitResult> EmitFusion(const FusionRegion& region,
                              const hw::Device& device,
                              const EmitOptions& options, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(EmitterPlan plan,
                       ComputeEmitterPlan(region, device, ctx));
  return EmitFusionWithPlan(region, plan, options, ctx);
}

}  // namespace ixa::emit
