// The GEMM emitter of the cuda target (docs/emitters.md "GEMM fusions"): a
// fusion whose hero is a (batched) matmul dot runs as a tiled matrix
// multiply. The per-element parts (each operand's fused producers, the
// epilogue from the dot to the root, the root's physical offset) are kernel
// IR functions lowered by the usual passes and printed by the C printer;
// the tiled skeleton that calls them (shared-memory tiles, double
// buffering, tensor cores) is printed by emit/targets/cuda_gemm.cc.
#ifndef IXA_EMIT_EMITTERS_GEMM_H_
#define IXA_EMIT_EMITTERS_GEMM_H_

#include <optional>
#include <string>

#include "analysis/fusion/fusion.h"
#include "emit/emit_result.h"
#include "emit/ir/kernel_ir.h"
#include "emit/targets/cuda_gemm.h"

namespace ixa::emit {

// The GEMM spec of `region` when its hero is a dot the GEMM emitter takes
// (a single array root reached from the dot through elementwise ops only,
// plain dense layouts, operand and output types it computes); nullopt
// otherwise, with `why` saying what stops it. With `tf32`, an f32 x f32 ->
// f32 dot takes the tensor cores in TF32 (EmitOptions::tf32).
std::optional<GemmSpec> FindGemm(const FusionRegion& region, bool tf32,
                                 std::string* why);

// Lowers and prints a GEMM fusion for the cuda target. `plan` is the
// planner's (reported with the GEMM's launch).
Result<EmitResult> EmitGemmFusion(const FusionRegion& region,
                                  const GemmSpec& spec, const EmitterPlan& plan,
                                  const EmitOptions& options, ExprContext* ctx);

}  // namespace ixa::emit

#endif  // IXA_EMIT_EMITTERS_GEMM_H_
