// The transpose emitter (xla-reference.md §(h) h.7).
#include "emit/emitters/emitters.h"

namespace ixa::emit::emitters {

Result<bool> BuildTranspose(LoweringContext&, BlockBuilder&) {
  return Error::Unsupported("emit: the transpose emitter is not built yet");
}

}  // namespace ixa::emit::emitters
