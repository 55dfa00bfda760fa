// Emitter plan ops: `thread_indexing` (spec/cli.md "Emitter plans").
#include "tools/ixa/protocol.h"

namespace ixa::cli {

void RegisterPlanOps(OpTable&) {}

}  // namespace ixa::cli
