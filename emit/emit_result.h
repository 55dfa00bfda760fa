// What generating one fusion takes and gives back: the options and the
// result (code, buffers, launch plan, stages). Every emitter and the
// pipeline share these types, so they sit below both.
#ifndef IXA_EMIT_EMIT_RESULT_H_
#define IXA_EMIT_EMIT_RESULT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "emit/targets/targets.h"

namespace ixa::emit {

struct EmitOptions {
  Target target = Target::kCpp;
  bool host = false;    // mlir: grid ids as loops (runs on the CPU)
  bool stages = false;  // print every stage, not only the final one
  std::string kernel_name = "fusion";
  // The most shared memory one block may use (static shared memory).
  int64_t shared_memory_limit = 48 * 1024;
  // cuda: an f32 x f32 -> f32 dot that the GEMM emitter takes multiplies
  // on TF32 tensor cores (WMMA 16x16x8, operands rounded to TF32, f32
  // accumulation), as cuBLAS does for XLA's f32 dots at default precision
  // on sm_80 and later. Off: f32 FMA, the dot's exact f32 semantics.
  bool tf32 = false;
};

struct EmittedBuffer {
  int index = 0;
  bool is_output = false;
  std::string name;   // the HLO parameter or the fusion output
  std::string shape;  // XLA text with layout
  int aliases = -1;   // an output in an input's memory (in place)
  // The bytes to allocate: the shape's bytes (its physical layout, padding
  // and packing included), rounded up where the target's atomics touch
  // whole aligned halfwords or words (docs/emitters.md). An in-place
  // output reports its input's allocation.
  int64_t allocation_bytes = 0;
};

struct EmittedStage {
  std::string name;
  std::string code;
};

struct EmitResult {
  std::string code;
  std::string kernel;
  EmitterPlan plan;
  // The emitter that generated the code: the plan's kind (EmitterKindName),
  // or "gemm" where the cuda target's tiled GEMM emitter took the fusion.
  std::string emitter;
  std::vector<EmittedBuffer> buffers;
  std::vector<EmittedStage> stages;  // with options.stages
  // Facts about the kernel's answers the caller should know (reduce inits
  // that are not their reducer's identity: emit/reduce_init_notes.h).
  std::vector<std::string> notes;
};

}  // namespace ixa::emit

#endif  // IXA_EMIT_EMIT_RESULT_H_
