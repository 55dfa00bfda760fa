// The printers of the kernel IR (docs/emitters.md §3): C++ with the GPU
// grid simulated on the CPU, CUDA C++, and MLIR 14 text. They print
// whatever stage the module is in; nothing here decides code.
#ifndef IXA_EMIT_TARGETS_TARGETS_H_
#define IXA_EMIT_TARGETS_TARGETS_H_

#include <string>

#include "core/result.h"
#include "emit/ir/kernel_ir.h"

namespace ixa::emit {

enum class Target { kCpp, kCuda, kMlir };
const char* TargetName(Target target);

struct PrintOptions {
  Target target = Target::kCpp;
  // mlir: grid ids become scf.for loops (the module lowers and runs on the
  // CPU); otherwise a gpu.module with a gpu.func kernel.
  bool host = false;
  // Lines put at the top as comments (what the code is).
  std::string header;
};

// Errors: Unsupported when the module holds something the target cannot
// print (an expression kind the printer does not know).
Result<std::string> PrintModule(const ir::Module& module,
                                const PrintOptions& options);

Result<std::string> PrintC(const ir::Module& module,
                           const PrintOptions& options);
Result<std::string> PrintMlir(const ir::Module& module,
                              const PrintOptions& options);

// The runtime helpers of the C-like targets, by name; `cuda` selects the
// device qualifiers. Each helper lists the helpers it uses.
struct CHelper {
  const char* name;
  const char* code;          // uses IXA_FN for the function qualifiers
  const char* deps;          // space-separated helper names
  const char* include = "";  // a header the helper needs (CUDA's)
};
const CHelper* FindCHelper(const std::string& name);

}  // namespace ixa::emit

#endif  // IXA_EMIT_TARGETS_TARGETS_H_
