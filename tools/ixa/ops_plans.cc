// Emitter plan ops: `thread_indexing` (docs/protocol.md).
#include <memory>

#include "analysis/emitters/plan.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tools/ixa/device_request.h"
#include "tools/ixa/hlo_request.h"
#include "tools/ixa/plan_json.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {
namespace {

Json OptionalMap(const std::optional<IndexingMap>& m) {
  return m ? Json(MapToString(*m)) : Json(nullptr);
}

Result<Json> ThreadIndexing(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(FlatRegion flat_region, GetRegion(request, *module));
  const FusionRegion& region = flat_region.region;
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(request));
  // The plan `emit` generates code from, so that both report one launch.
  IXA_ASSIGN_OR_RETURN(EmitterPlan plan,
                       emit::PlanForEmit(region, device, &ctx));
  Json out{{"device", device.name},
           {"emitter", EmitterKindName(plan.kind)},
           {"launch", LaunchDimensionsJson(plan.launch)}};
  if (plan.reduction_kind) {
    out["reduction_kind"] = ReductionKindName(*plan.reduction_kind);
  }
  Json roots = Json::array();
  for (size_t k = 0; k < plan.roots.size(); ++k) {
    const RootPlan& r = plan.roots[k];
    Json operands = Json::array();
    for (const auto& m : r.hero_operand_maps)
      operands.push_back(OptionalMap(m));
    Json j{{"root", r.output},
           {"name", r.root->name},
           {"hero", r.hero->name},
           {"output", OptionalMap(r.output_map)},
           {"hero_operands", std::move(operands)}};
    if (plan.kind == EmitterKind::kReduction) j["group"] = r.group;
    roots.push_back(std::move(j));
  }
  out["roots"] = std::move(roots);
  Json params = Json::array();
  for (const ParameterPlan& p : plan.parameters) {
    Json j{{"parameter", p.parameter}, {"name", p.name}};
    if (p.unknown_reason) {
      j["unknown"] = true;
      j["reason"] = *p.unknown_reason;
    } else {
      Json maps = Json::array();
      for (const IndexingMap& m : p.maps) maps.push_back(MapToString(m));
      j["maps"] = std::move(maps);
      if (p.not_read) j["not_read"] = true;
    }
    params.push_back(std::move(j));
  }
  out["parameters"] = std::move(params);
  if (!plan.shared_tiles.empty()) {
    Json tiles = Json::array();
    for (const SharedTile& t : plan.shared_tiles) {
      tiles.push_back(SharedTileJson(t));
    }
    out["shared_tiles"] = std::move(tiles);
  }
  if (plan.transpose) {
    const TransposeDescription& t = *plan.transpose;
    out["transpose"] = Json{{"dims", t.dims},
                            {"permutation", t.permutation},
                            {"input_dims", t.input_dims},
                            {"block_sizes", t.block_sizes},
                            {"block_counts", t.block_counts}};
    if (t.generalized) out["transpose"]["generalized"] = true;
  }
  if (plan.reduction) {
    const ReductionDescription& r = *plan.reduction;
    Json groups = Json::array();
    for (const auto& g : r.groups) {
      Json names = Json::array();
      for (const hlo::Instruction* i : g) names.push_back(i->name);
      groups.push_back(std::move(names));
    }
    out["reduction"] = Json{{"dims", r.dims},
                            {"threads_reduced", r.threads_reduced},
                            {"threads_kept", r.threads_kept},
                            {"tile", r.tile},
                            {"block_counts", r.block_counts},
                            {"groups", std::move(groups)}};
  }
  if (plan.loop_config) {
    out["loop_config"] =
        Json{{"unroll", plan.loop_config->unroll},
             {"few_waves", plan.loop_config->few_waves},
             {"row_vectorized", plan.loop_config->row_vectorized}};
  }
  return out;
}

}  // namespace

void RegisterPlanOps(OpTable& table) {
  table["thread_indexing"] = ThreadIndexing;
}

}  // namespace ixa::cli
