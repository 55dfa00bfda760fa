// `emit` with target "pto" (spec/pto-codegen.md).
#include "tools/ixa/emit_ops.h"

namespace ixa::cli {

Result<Json> EmitPtoRequest(const Json&, ExprContext&) {
  return Error::Unsupported("emit: target 'pto' is not implemented yet");
}

}  // namespace ixa::cli
