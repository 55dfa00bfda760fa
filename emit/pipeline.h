// Code generation for one fusion (docs/emitters.md): the plan's emitter
// builds the kernel IR, the passes of §4 lower it stage by stage, and a
// target printer prints the stage asked for (the last is the `code`).
#ifndef IXA_EMIT_PIPELINE_H_
#define IXA_EMIT_PIPELINE_H_

#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "analysis/fusion/fusion.h"
#include "emit/emit_result.h"
#include "emit/ir/kernel_ir.h"
#include "emit/targets/targets.h"
#include "hw/device.h"

namespace ixa::emit {

// A kernel name every target can print: an identifier that is no C, C++
// or CUDA keyword, no reserved identifier (`__x`, `_X`), not `main`, and
// clashes with nothing the generated unit declares or uses at global scope
// (the runtime helpers `ixa_*`, the buffers `b0`, `b1`, ..., the grid ids,
// the standard types and the math and memory functions the code calls).
// Invalid otherwise, saying why.
Status CheckKernelName(const std::string& name);

// Lowers `region` with a given plan to the IR of every stage.
struct LoweredStage {
  std::string name;
  ir::Module module;
};
Result<std::vector<LoweredStage>> LowerFusion(const FusionRegion& region,
                                              const EmitterPlan& plan,
                                              const EmitOptions& options,
                                              ExprContext* ctx);

// Lowers and prints with a given plan. Errors: Invalid for a kernel name
// CheckKernelName refuses.
Result<EmitResult> EmitFusionWithPlan(const FusionRegion& region,
                                      const EmitterPlan& plan,
                                      const EmitOptions& options,
                                      ExprContext* ctx);

// The plan EmitFusion emits with: ComputeEmitterPlan on `device`, except
// that an in-place dynamic-update-slice plan whose output cannot share its
// parameter's memory becomes a loop plan (thread_indexing reports this
// plan, so that its launch is the emitted code's).
Result<EmitterPlan> PlanForEmit(const FusionRegion& region,
                                const hw::Device& device, ExprContext* ctx);

// Plans (PlanForEmit) then emits. Errors: Unsupported
// naming an op no emitter generates, Invalid when the plan needs more
// shared memory than the device gives a block. An in-place
// dynamic-update-slice plan whose output cannot share its parameter's
// memory (another layout: XLA's buffer assignment would not alias them)
// is emitted with the loop emitter instead.
Result<EmitResult> EmitFusion(const FusionRegion& region,
                              const hw::Device& device,
                              const EmitOptions& options, ExprContext* ctx);

}  // namespace ixa::emit

#endif  // IXA_EMIT_PIPELINE_H_
