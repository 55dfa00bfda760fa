// The reduction emitter (xla-reference.md §(h) h.8).
#include "emit/emitters/emitters.h"

namespace ixa::emit::emitters {

Result<bool> BuildReduction(LoweringContext&, BlockBuilder&) {
  return Error::Unsupported("emit: the reduction emitter is not built yet");
}

}  // namespace ixa::emit::emitters
