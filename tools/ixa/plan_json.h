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

// A shared tile: {owner, operand, type, dims, bytes, logical_dims, layout,
// xla_bytes, layout_reason}; `layout` as hw::DescribeTileLayout ("pad 1",
// "Swizzle<5,0,5>").
inline Json SharedTileJson(const SharedTile& t) {
  Json j{{"owner", t.owner ? t.owner->name : std::string()},
         {"operand", t.operand},
         {"type", hlo::ElementTypeName(t.type)},
         {"dims", t.dims},
         {"bytes", t.bytes()}};
  if (!t.logical_dims.empty()) {
    SharedTile xla = t;
    xla.dims = t.xla_dims;
    j["logical_dims"] = t.logical_dims;
    j["layout"] = hw::DescribeTileLayout(t.layout);
    j["xla_bytes"] = xla.bytes();
    j["layout_reason"] = t.layout_reason;
  }
  return j;
}

// Every access of every shared tile of the plan with its wavefronts:
// {tile (its index in the plan's tiles), access (write or read),
// bytes_per_lane, vector_width, instances, wavefronts_worst, wavefronts_avg,
// ideal, conflict_free, reason}.
inline Json SharedAccessesJson(const EmitterPlan& plan) {
  Json out = Json::array();
  for (size_t i = 0; i < plan.shared_tiles.size(); ++i) {
    for (const SharedTileAccess& a : plan.shared_tiles[i].accesses) {
      out.push_back(Json{{"tile", i},
                         {"access", a.write ? "write" : "read"},
                         {"bytes_per_lane", a.bytes_per_lane},
                         {"vector_width", a.vector_width},
                         {"instances", a.instances},
                         {"wavefronts_worst", a.wavefronts_worst},
                         {"wavefronts_avg", a.wavefronts_avg},
                         {"ideal", a.wavefronts_ideal},
                         {"conflict_free", a.conflict_free},
                         {"reason", a.reason}});
    }
  }
  return out;
}

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_PLAN_JSON_H_
