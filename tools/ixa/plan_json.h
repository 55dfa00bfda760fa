// JSON forms of emitter plans shared by the plan and use ops
// (docs/protocol.md, op `thread_indexing`).
#ifndef IXA_TOOLS_IXA_PLAN_JSON_H_
#define IXA_TOOLS_IXA_PLAN_JSON_H_

#include "analysis/emitters/plan.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

// {threads: [x, y, z], blocks: [x, y, z], shared_memory_bytes, unroll,
// vector_size}.
inline Json LaunchDimensionsJson(const LaunchDimensions& l) {
  return Json{{"threads", l.threads},
              {"blocks", l.blocks},
              {"shared_memory_bytes", l.shared_memory_bytes},
              {"unroll", l.unroll},
              {"vector_size", l.vector_size}};
}

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_PLAN_JSON_H_
