// `emit` with targets "cpp", "cuda" and "mlir" (spec/emitters.md).
#include "tools/ixa/emit_ops.h"

namespace ixa::cli {

Result<Json> EmitFusionRequest(const Json& request, ExprContext&) {
  std::string target = request.value("target", std::string());
  return Error::Unsupported("emit: target '" + target +
                            "' is not implemented yet");
}

}  // namespace ixa::cli
