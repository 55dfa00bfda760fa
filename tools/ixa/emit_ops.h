// The `emit` op and `ixa emit` (spec/cli.md "Code generation"): one
// dispatcher (ops_emit.cc) sends `target: "pto"` to the PTO generator
// (ops_emit_pto.cc) and every GPU target to the fusion emitters
// (ops_emit_fusion.cc). Both return the op's response fields.
#ifndef IXA_TOOLS_IXA_EMIT_OPS_H_
#define IXA_TOOLS_IXA_EMIT_OPS_H_

#include "tools/ixa/protocol.h"

namespace ixa::cli {

// target "pto": arch, conversion, dtype, shape, order, kernel.
Result<Json> EmitPtoRequest(const Json& request, ExprContext& ctx);
// targets "cpp", "cuda", "mlir": hlo, fusion, device, kernel, stages, host.
Result<Json> EmitFusionRequest(const Json& request, ExprContext& ctx);

// `ixa emit ...` (argv[1] is "emit"): prints the code of the same request
// without the JSON wrapping. Exit codes: 0 ok, 1 the request failed, 64
// usage, 66 FILE cannot be read, 73 the output file cannot be written.
int RunEmitCommand(int argc, char** argv);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_EMIT_OPS_H_
