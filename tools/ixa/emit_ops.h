// The `emit` op and `ixa emit` (docs/protocol.md, "Code generation"): one
// dispatcher (ops_emit.cc) sends `target: "pto"` to the PTO generator
// (ops_emit_pto.cc) and every GPU target to the fusion emitters
// (ops_emit_fusion.cc). Both return the op's response fields.
#ifndef IXA_TOOLS_IXA_EMIT_OPS_H_
#define IXA_TOOLS_IXA_EMIT_OPS_H_

#include <string>

#include "analysis/hlo/module.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

// target "pto": arch, conversion, dtype, shape, order, kernel.
Result<Json> EmitPtoRequest(const Json& request, ExprContext& ctx);
// targets "cpp", "cuda", "mlir": hlo, fusion, device, kernel, stages, host.
Result<Json> EmitFusionRequest(const Json& request, ExprContext& ctx);
// The same for a module read already (`ixa emit` reads its file itself, so
// that its errors name the file); the request's `hlo` is not looked at.
Result<Json> EmitFusionOfModule(const Json& request, const hlo::Module& module,
                                ExprContext& ctx);

// A name that C, CUDA and MLIR accept for the kernel: [A-Za-z_][A-Za-z0-9_]*.
bool IsCIdentifier(const std::string& s);

// `ixa emit ...` (argv[1] is "emit"): prints the code of the same request
// without the JSON wrapping. Exit codes: 0 ok, 1 the input cannot be
// emitted, 64 usage, 66 FILE cannot be read, 70 internal error, 73 the
// output cannot be written (`ixa emit --help` says more).
int RunEmitCommand(int argc, char** argv);

// `ixa compile ...` (ops_compile.cc): prints the program the `compile`
// request makes of a module (`ixa compile --help` says more).
int RunCompileCommand(int argc, char** argv);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_EMIT_OPS_H_
