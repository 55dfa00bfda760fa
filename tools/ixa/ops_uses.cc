// Use ops of the query protocol (docs/protocol.md):
// utilization, tile and valid_tilings (ops_tiles.cc), coalescing,
// fusion_cost, fusion_decision.
#include <memory>

#include "analysis/uses/coalescing.h"
#include "analysis/uses/fusion_cost.h"
#include "analysis/uses/fusion_decision.h"
#include "analysis/uses/tiles.h"
#include "analysis/uses/utilization.h"
#include "hw/device.h"
#include "tools/ixa/device_request.h"
#include "tools/ixa/hlo_request.h"
#include "tools/ixa/plan_json.h"
#include "tools/ixa/protocol.h"
#include "tools/ixa/tile_ops.h"

namespace ixa::cli {
namespace {

Result<std::vector<int64_t>> GetOptionalIntList(const Json& request,
                                                const char* field) {
  if (!Has(request, field)) return std::vector<int64_t>();
  return GetIntList(request, field);
}

Result<std::optional<LaunchConfig>> GetLaunch(const Json& request) {
  if (!Has(request, "launch")) return std::optional<LaunchConfig>();
  const Json& j = request.at("launch");
  if (!j.is_object()) {
    return Error::BadRequest(
        "field 'launch' must be an object {threads_per_block, blocks, "
        "unroll}");
  }
  LaunchConfig l;
  IXA_ASSIGN_OR_RETURN(l.threads_per_block, GetInt(j, "threads_per_block"));
  IXA_ASSIGN_OR_RETURN(l.blocks, GetInt(j, "blocks"));
  IXA_ASSIGN_OR_RETURN(l.unroll, GetOptionalInt(j, "unroll", 1));
  if (l.threads_per_block < 1 || l.blocks < 1 || l.unroll < 1) {
    return Error::Invalid(
        "launch: threads_per_block, blocks and unroll must be >= 1");
  }
  return std::optional<LaunchConfig>(l);
}

Json UtilizationJson(const OperandUtilization& u) {
  Json j{{"parameter", u.parameter},
         {"name", u.name},
         {"elements_total", u.elements_total},
         {"elements_read", u.elements_read},
         {"reads", u.reads},
         {"utilization", u.utilization},
         {"method", u.method}};
  if (u.depends_on_runtime) j["depends_on_runtime"] = true;
  return j;
}

Json CoalescingJson(const OperandCoalescing& c) {
  Json j{{"parameter", c.parameter},
         {"name", c.name},
         {"coalesced", c.coalesced},
         {"transactions_per_warp_request", c.transactions_per_warp_request},
         {"bytes_requested", c.bytes_requested},
         {"bytes_useful", c.bytes_useful},
         {"efficiency", c.efficiency}};
  if (c.bandwidth_utilization) {
    j["bandwidth_utilization"] = *c.bandwidth_utilization;
  }
  if (!c.note.empty()) j["note"] = c.note;
  if (c.not_read) j["not_read"] = true;
  return j;
}

Json UnknownJson(const std::vector<UnknownOperand>& unknown) {
  Json out = Json::array();
  for (const UnknownOperand& u : unknown) {
    out.push_back(Json{
        {"parameter", u.parameter}, {"name", u.name}, {"reason", u.reason}});
  }
  return out;
}

// The emitter, its reduction kind and the launch.
void PlanSummary(EmitterKind kind, const std::optional<ReductionKind>& rk,
                 const LaunchDimensions& launch, Json* out) {
  (*out)["emitter"] = EmitterKindName(kind);
  if (rk) (*out)["reduction_kind"] = ReductionKindName(*rk);
  (*out)["launch"] = LaunchDimensionsJson(launch);
}

Json CostJson(const FusionCost& cost) {
  Json coalescing = Json::array();
  for (const OperandCoalescing& c : cost.coalescing) {
    coalescing.push_back(CoalescingJson(c));
  }
  Json utilization = Json::array();
  for (const OperandUtilization& u : cost.utilization) {
    utilization.push_back(UtilizationJson(u));
  }
  Json j{{"bytes_read", cost.bytes_read},
         {"bytes_moved", cost.bytes_moved},
         {"bytes_written", cost.bytes_written},
         {"flops", cost.flops},
         {"blocks_per_core", cost.blocks_per_core},
         {"waves", cost.waves},
         {"active_fraction", cost.active_fraction},
         {"time_us", cost.time_us},
         {"memory_us", cost.memory_us},
         {"compute_us", cost.compute_us},
         {"coalescing", std::move(coalescing)},
         {"utilization", std::move(utilization)},
         {"unknown", UnknownJson(cost.unknown)}};
  PlanSummary(cost.emitter, cost.reduction_kind, cost.launch, &j);
  if (cost.flops_unknown) j["flops_unknown"] = *cost.flops_unknown;
  if (!cost.note.empty()) j["note"] = cost.note;
  return j;
}

Result<Json> Utilization(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(FusionRegion region, GetRegion(request, *module));
  IXA_ASSIGN_OR_RETURN(UtilizationAnalysis uses,
                       AnalyzeUtilization(region, &ctx));
  Json operands = Json::array();
  for (const OperandUtilization& u : uses.operands) {
    operands.push_back(UtilizationJson(u));
  }
  return Json{{"operands", std::move(operands)},
              {"unknown", UnknownJson(uses.unknown)}};
}

Result<Json> Coalescing(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(FusionRegion region, GetRegion(request, *module));
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(request));
  CoalescingOptions options;
  IXA_ASSIGN_OR_RETURN(options.launch, GetLaunch(request));
  IXA_ASSIGN_OR_RETURN(options.tile_sizes,
                       GetOptionalIntList(request, "tile_sizes"));
  IXA_ASSIGN_OR_RETURN(CoalescingAnalysis analysis,
                       AnalyzeCoalescing(region, device, options, &ctx));
  Json operands = Json::array();
  for (const OperandCoalescing& c : analysis.operands) {
    operands.push_back(CoalescingJson(c));
  }
  Json out{{"device", device.name},
           {"operands", std::move(operands)},
           {"unknown", UnknownJson(analysis.unknown)}};
  PlanSummary(analysis.emitter, analysis.reduction_kind, analysis.launch, &out);
  return out;
}

Result<Json> FusionCostOp(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(FusionRegion region, GetRegion(request, *module));
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(request));
  IXA_ASSIGN_OR_RETURN(FusionCost cost,
                       EstimateFusionCost(region, device, &ctx));
  Json out = CostJson(cost);
  out["device"] = device.name;
  return out;
}

Result<Json> FusionDecisionOp(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(std::string producer, GetString(request, "producer"));
  IXA_ASSIGN_OR_RETURN(std::string consumer, GetString(request, "consumer"));
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(request));
  IXA_ASSIGN_OR_RETURN(
      FusionDecision d,
      DecideFusion(*module->entry(), producer, consumer, device, &ctx));
  Json unfused{
      {"time_us", d.unfused_us},
      {"kernels", d.unfused_kernels},
      {"launch_overhead_us", d.unfused_kernels * kKernelLaunchOverheadUs},
      {"memory_us", d.producer.memory_us + d.consumer.memory_us},
      {"compute_us", d.producer.compute_us + d.consumer.compute_us},
      {"bytes_read", d.producer.bytes_read + d.consumer.bytes_read},
      {"bytes_written", d.producer.bytes_written + d.consumer.bytes_written},
      {"producer", CostJson(d.producer)},
      {"consumer", CostJson(d.consumer)}};
  Json fused = CostJson(d.fused);
  fused["kernel_us"] = d.fused.time_us;
  fused["time_us"] = d.fused_us;
  fused["kernels"] = d.fused_kernels;
  fused["launch_overhead_us"] = d.fused_kernels * kKernelLaunchOverheadUs;
  fused["recompute_factor"] = d.recompute_factor;
  fused["producer_reads"] = d.producer_reads;
  fused["producer_elements_read"] = d.producer_elements_read;
  fused["producer_kept"] = d.producer_kept;
  return Json{{"device", device.name},    {"producer", producer},
              {"consumer", consumer},     {"fuse", d.fuse},
              {"speedup", d.speedup},     {"unfused", std::move(unfused)},
              {"fused", std::move(fused)}};
}

}  // namespace

void RegisterUseOps(OpTable& table) {
  table["utilization"] = Utilization;
  table["tile"] = TileOp;
  table["valid_tilings"] = ValidTilingsOp;
  table["coalescing"] = Coalescing;
  table["fusion_cost"] = FusionCostOp;
  table["fusion_decision"] = FusionDecisionOp;
}

}  // namespace ixa::cli
