// The CUDA skeleton of a tiled GEMM (docs/emitters.md "GEMM fusions"):
// the spec the GEMM emitter (emit/emitters/gemm.h) fills in, and the
// printer of the kernel around the IR functions it lowered.
#ifndef IXA_EMIT_TARGETS_CUDA_GEMM_H_
#define IXA_EMIT_TARGETS_CUDA_GEMM_H_

#include <cstdint>
#include <string>

#include "analysis/hlo/module.h"
#include "core/result.h"
#include "emit/ir/kernel_ir.h"

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
  // bf16 or f16 operands of one type: WMMA 16x16x16 with f32 accumulate;
  // with tf32, f32 operands rounded to TF32: WMMA 16x16x8.
  bool tensor_core = false;
  bool tf32 = false;
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

#endif  // IXA_EMIT_TARGETS_CUDA_GEMM_H_
