// One program per module (docs/compile.md): every fusion's kernel from the
// per-fusion pipeline (emit/pipeline.h), the instructions outside fusions
// as generated host code or one-instruction kernels, the control flow
// (`while`, `conditional`, `call`) on the host, a buffer assignment that
// reuses dead buffers, and the entry point
// `extern "C" int ixa_run(const void* const* params, void* const* results)`.
// The `cpp` target adds a `main` reading and writing .npy files.
#ifndef IXA_EMIT_PROGRAM_PROGRAM_H_
#define IXA_EMIT_PROGRAM_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "emit/targets/targets.h"
#include "hw/device.h"

namespace ixa::emit {

struct CompileOptions {
  Target target = Target::kCpp;  // cpp or cuda
  // The extern "C" entry point's name.
  std::string entry_name = "ixa_run";
  // The most shared memory one block may use.
  int64_t shared_memory_limit = 48 * 1024;
  // cuda: f32 GEMM kernels on TF32 tensor cores (EmitOptions::tf32).
  bool tf32 = false;
};

struct ProgramKernel {
  std::string name;         // the kernel function
  std::string instruction;  // the instruction it computes
  std::string computation;  // the host computation it runs in
  std::string emitter;  // EmitResult::emitter, or "dot", "convolution", "sort"
  // For a host loop in place of a kernel (emitter "dot", "convolution"):
  // why no kernel was generated.
  std::string refusal;
};

// One buffer of a host computation's arena (or a buffer it does not
// allocate: a parameter's, another value's it aliases).
struct ProgramBuffer {
  std::string computation;
  std::string instruction;
  int output = 0;                 // the leaf of a tuple-shaped value
  std::string shape;              // XLA text
  int64_t bytes = 0;              // what it holds
  int64_t offset = 0;             // in its computation's arena
  int defined = 0, last_use = 0;  // positions in the computation's order
};

// One array of the entry point's `params`: parameter `parameter`'s leaf
// at tuple index `index` (empty for an array parameter). A tuple-shaped
// parameter takes one entry per array leaf, in order.
struct ProgramParameter {
  int64_t parameter = 0;
  std::vector<int64_t> index;
  std::string shape;  // XLA text
};

struct ProgramResult {
  std::string code;
  // What params[i] holds, in order.
  std::vector<ProgramParameter> parameters;
  std::vector<ProgramKernel> kernels;
  std::vector<ProgramBuffer> buffers;
  // The arenas' bytes: the entry's arena plus the largest arena of any
  // computation it runs (a bound on what one run holds at once), against
  // the sum of every buffer's bytes.
  int64_t peak_bytes = 0;
  int64_t total_bytes = 0;
};

// Compiles `module` (its fusions as they are; every other instruction that
// computes an array becomes a one-instruction kernel, dots,
// convolutions and cuBLAS GEMM calls too (a host loop where the emitters
// refuse one), a host sort, or host control flow). A tuple-shaped entry
// parameter takes one `params` entry per array leaf (ProgramResult::
// parameters). Errors: Unsupported naming the op and type the program
// cannot compute (a token parameter among them); Invalid for a module
// that is not a program (a bad entry name).
Result<ProgramResult> CompileModule(const hlo::Module& module,
                                    const hw::Device& device,
                                    const CompileOptions& options,
                                    ExprContext* ctx);

}  // namespace ixa::emit

#endif  // IXA_EMIT_PROGRAM_PROGRAM_H_
