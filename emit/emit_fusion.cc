// EmitFusion: plan, then emit (kept apart from the pipeline so that code
// emitting with a given plan does not need the planner).
#include "emit/emitters/emitters.h"
#include "emit/pipeline.h"

namespace ixa::emit {

namespace {

// Every in-place root can share its parameter's memory.
bool InPlaceRootsShareMemory(const EmitterPlan& plan) {
  for (const RootPlan& r : plan.roots) {
    const hlo::Instruction* dus = r.root;
    while (dus->opcode == hlo::Opcode::kBitcast ||
           dus->opcode == hlo::Opcode::kReshape) {
      dus = dus->operand(0);
    }
    if (dus->opcode != hlo::Opcode::kDynamicUpdateSlice) return false;
    const hlo::Instruction* base = dus->operand(0);
    if (base->opcode == hlo::Opcode::kBitcast) base = base->operand(0);
    if (!InPlaceShapesMatch(base->shape, r.root->shape)) return false;
  }
  return true;
}

}  // namespace

Result<EmitterPlan> PlanForEmit(const FusionRegion& region,
                                const hw::Device& device, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(EmitterPlan plan,
                       ComputeEmitterPlan(region, device, ctx));
  if (plan.kind == EmitterKind::kInPlaceDynamicUpdateSlice &&
      !InPlaceRootsShareMemory(plan)) {
    PlanOptions loop;
    loop.force_loop = true;
    IXA_ASSIGN_OR_RETURN(plan, ComputeEmitterPlan(region, device, loop, ctx));
  }
  return plan;
}

Result<EmitResult> EmitFusion(const FusionRegion& region,
                              const hw::Device& device,
                              const EmitOptions& options, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(EmitterPlan plan, PlanForEmit(region, device, ctx));
  return EmitFusionWithPlan(region, plan, options, ctx);
}

}  // namespace ixa::emit
