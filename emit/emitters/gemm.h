// The GEMM emitter of the cuda target (docs/emitters.md "GEMM fusions"): a
// fusion whose hero is a (batched) matmul dot runs as a tiled matrix
// multiply. The per-element parts (each operand's fused producers, the
// epilogue from the dot to the root, the root's physical offset) are kernel
// IR functions lowered by the usual passes and printed by the C printer;
// the tiled skeleton that calls them (shared-memory tiles, double
// buffering, tensor cores) is printed by emit/targets/cuda_gemm.cc.
#ifndef IXA_EMIT_EMITTERS_GEMM_H_
#define IXA_EMIT_EMITTERS_GEMM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "emit/ir/kernel_ir.h"
#include "emit/pipeline.h"

namespace ixa::emit {

// The dot of a GEMM fusion and how it is tiled.
struct GemmSpec {
  const hlo::Instruction* dot = nullptr;
  const hlo::Instruction* root = nullptr;
  // The dot as batch x [m, k] . [k, n]: several batch, free or contracting
  // dims are each taken as one (row-major over them, in the dot's order).
  int64_t batch = 1, m = 1, n = 1, k = 1;
  ir::Type lhs_type = ir::Type::kF32, rhs_type = ir::Type::kF32;
  ir::Type out_type = ir::Type::kF32;   // the dot's result
  ir::Type root_type = ir::Type::kF32;  // the fusion's output
  // bf16 or f16 operands of one type: WMMA 16x16x16 with f32 accumulate.
  bool tensor_core = false;
  // Whether the contracting dim is the most minor of the operand's layout
  // (the tile loads run along k then, else along m resp. n).
  bool lhs_k_minor = true, rhs_k_minor = false;
  // Block tile, and warps per block along m and n (tensor cores) or the
  // threads' 16 x 16 grid with a 4 x 4 micro-tile each (FMA).
  int64_t block_m = 64, block_n = 64, block_k = 16;
  int64_t warps_m = 2, warps_n = 2;
  int64_t threads() const { return tensor_core ? 32 * warps_m * warps_n : 256; }
  // Shared memory the skeleton declares.
  int64_t shared_bytes() const;
};

// The GEMM spec of `region` when its hero is a dot the GEMM emitter takes
// (a single array root reached from the dot through elementwise ops only,
// plain dense layouts, operand and output types it computes); nullopt
// otherwise, with `why` saying what stops it.
std::optional<GemmSpec> FindGemm(const FusionRegion& region, std::string* why);

// Lowers and prints a GEMM fusion for the cuda target. `plan` is the
// planner's (reported with the GEMM's launch).
Result<EmitResult> EmitGemmFusion(const FusionRegion& region,
                                  const GemmSpec& spec, const EmitterPlan& plan,
                                  const EmitOptions& options, ExprContext* ctx);

// The names of the IR functions the skeleton calls.
struct GemmFunctions {
  std::string lhs, rhs, epilogue, offset;
};

// Prints the skeleton: `functions_code` (the C printer's text of the IR
// functions, includes and helpers first) followed by the kernel.
Result<std::string> PrintCudaGemm(const GemmSpec& spec,
                                  const ir::Module& module,
                                  const GemmFunctions& functions,
                                  const std::string& functions_code,
                                  const std::string& kernel_name);

}  // namespace ixa::emit

#endif  // IXA_EMIT_EMITTERS_GEMM_H_
