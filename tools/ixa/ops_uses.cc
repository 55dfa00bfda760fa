// Use ops of the query protocol (docs/protocol.md):
// utilization, tile and valid_tilings (ops_tiles.cc), coalescing,
// fusion_cost, fusion_decision, fusion_plan.
#include <algorithm>
#include <iterator>
#include <memory>

#include "analysis/uses/coalescing.h"
#include "analysis/uses/fusion_cost.h"
#include "analysis/uses/fusion_decision.h"
#include "analysis/uses/fusion_plan.h"
#include "analysis/uses/tiles.h"
#include "analysis/uses/utilization.h"
#include "hw/device.h"
#include "tools/ixa/device_request.h"
#include "tools/ixa/hlo_request.h"
#include "tools/ixa/plan_json.h"
#include "tools/ixa/prefusion_request.h"
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

Json OperandCostJson(const OperandCost& o) {
  return Json{{"parameter", o.parameter},       {"name", o.name},
              {"bytes_total", o.bytes_total},   {"bytes_net", o.bytes_net},
              {"read_time_us", o.read_time_us}, {"coalesced", o.coalesced},
              {"utilization", o.utilization}};
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
  Json operands = Json::array();
  for (const OperandCost& o : cost.operands) {
    operands.push_back(OperandCostJson(o));
  }
  Json j{{"model", CostModelName(cost.model)},
         {"bytes_read", cost.bytes_read},
         {"bytes_moved", cost.bytes_moved},
         {"bytes_written", cost.bytes_written},
         {"flops", cost.flops},
         {"blocks_per_core", cost.blocks_per_core},
         {"waves", cost.waves},
         {"active_fraction", cost.active_fraction},
         {"time_us", cost.time_us},
         {"exec_us", cost.exec_us},
         {"memory_us", cost.memory_us},
         {"write_us", cost.write_us},
         {"compute_us", cost.compute_us},
         {"launch_overhead_us", cost.launch_overhead_us},
         {"operands", std::move(operands)},
         {"coalescing", std::move(coalescing)},
         {"utilization", std::move(utilization)},
         {"unknown", UnknownJson(cost.unknown)},
         {"notes", cost.notes}};
  if (cost.bytes_accessed) j["bytes_accessed"] = *cost.bytes_accessed;
  PlanSummary(cost.emitter, cost.reduction_kind, cost.launch, &j);
  if (cost.flops_unknown) j["flops_unknown"] = *cost.flops_unknown;
  if (!cost.note.empty()) j["note"] = cost.note;
  if (cost.time_unknown) j["time_unknown"] = *cost.time_unknown;
  return j;
}

Result<CostModel> GetModel(const Json& request) {
  IXA_ASSIGN_OR_RETURN(std::string name, GetOptionalString(request, "model"));
  if (name.empty()) return CostModel::kIxa;
  auto model = CostModelFromName(name);
  if (!model) {
    return Error::Invalid("unknown model " + QuoteForMessage(name) +
                          ": 'ixa' (the default) or 'xla'");
  }
  return *model;
}

Result<Json> Utilization(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(FlatRegion flat_region, GetRegion(request, *module));
  const FusionRegion& region = flat_region.region;
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
  IXA_ASSIGN_OR_RETURN(FlatRegion flat_region, GetRegion(request, *module));
  const FusionRegion& region = flat_region.region;
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

// The pre-fusion rewrites, when the pipeline rewrote anything.
void AddPrefusionRewrites(const PrefusedModule& prefused, Json* out) {
  if (prefused.prefusion.rewrites.empty()) return;
  (*out)["prefusion"] = PrefusionRewritesJson(prefused.prefusion.rewrites);
}

// The entry computation once the pre-fusion pipeline has split it into
// several kernels (a long reduction, a GEMM): XLA's fusion plan of it,
// each kernel costed, the report's times, bytes and flops summed over the
// kernels (the per-operand lists and the launch are the last kernel's).
Result<Json> SplitEntryCost(const Json& request, const PrefusedModule& prefused,
                            ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(request));
  CostOptions options;
  IXA_ASSIGN_OR_RETURN(options.model, GetModel(request));
  FusionPlanOptions plan_options;
  plan_options.model = options.model;
  IXA_ASSIGN_OR_RETURN(
      FusionPlanResult plan,
      PlanFusions(prefused.module(), device, plan_options, &ctx));
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> fused,
                       hlo::ParseHloModule(plan.module_text));
  Json kernels = Json::array();
  std::optional<FusionCost> total;
  for (const hlo::Instruction* i : fused->entry()->post_order()) {
    if (hlo::OpcodeIn(i->opcode,
                      {hlo::Opcode::kParameter, hlo::Opcode::kConstant,
                       hlo::Opcode::kTuple, hlo::Opcode::kGetTupleElement,
                       hlo::Opcode::kBitcast})) {
      continue;
    }
    IXA_ASSIGN_OR_RETURN(FlatRegion region,
                         RegionOfEntryInstructions(*fused, {i->name}));
    IXA_ASSIGN_OR_RETURN(
        FusionCost cost,
        EstimateFusionCost(region.region, device, options, &ctx));
    kernels.push_back(Json{{"name", i->name},
                           {"emitter", EmitterKindName(cost.emitter)},
                           {"time_us", cost.time_us}});
    if (!total) {
      total = std::move(cost);
      continue;
    }
    FusionCost sum = std::move(cost);
    sum.bytes_read += total->bytes_read;
    sum.bytes_moved += total->bytes_moved;
    sum.bytes_written += total->bytes_written;
    sum.flops += total->flops;
    sum.memory_us += total->memory_us;
    sum.compute_us += total->compute_us;
    sum.write_us += total->write_us;
    sum.time_us += total->time_us;
    sum.exec_us += total->exec_us;
    sum.launch_overhead_us += total->launch_overhead_us;
    if (sum.bytes_accessed && total->bytes_accessed) {
      *sum.bytes_accessed += *total->bytes_accessed;
    }
    if (!sum.time_unknown) sum.time_unknown = total->time_unknown;
    total = std::move(sum);
  }
  if (!total) {
    return Error::Invalid("the module's entry computation has no kernel");
  }
  Json out = CostJson(*total);
  out["device"] = device.name;
  out["kernels"] = std::move(kernels);
  AddPrefusionRewrites(prefused, &out);
  return out;
}

Result<Json> FusionCostOp(const Json& request, ExprContext& ctx) {
  // A module (an entry computation that is no fusion) goes through XLA's
  // pre-fusion pipeline first; a fusion or a group of `instructions` is
  // costed as written (a fusion is past the pipeline already).
  IXA_ASSIGN_OR_RETURN(bool prefusion, GetBool(request, "prefusion", true));
  IXA_ASSIGN_OR_RETURN(std::string fusion,
                       GetOptionalString(request, "fusion"));
  std::unique_ptr<hlo::Module> module;
  if (prefusion && fusion.empty() && !Has(request, "instructions")) {
    IXA_ASSIGN_OR_RETURN(PrefusedModule prefused, GetPrefusedModule(request));
    if (prefused.prefusion.module &&
        prefused.input->entry()->root()->opcode != hlo::Opcode::kFusion) {
      return SplitEntryCost(request, prefused, ctx);
    }
    module = std::move(prefused.input);
  } else {
    IXA_ASSIGN_OR_RETURN(module, GetModule(request));
  }
  IXA_ASSIGN_OR_RETURN(FlatRegion flat_region, GetRegion(request, *module));
  const FusionRegion& region = flat_region.region;
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(request));
  CostOptions options;
  IXA_ASSIGN_OR_RETURN(options.model, GetModel(request));
  IXA_ASSIGN_OR_RETURN(FusionCost cost,
                       EstimateFusionCost(region, device, options, &ctx));
  Json out = CostJson(cost);
  out["device"] = device.name;
  return out;
}

Json TimeOrNull(bool known, double us) { return known ? Json(us) : Json(); }

Result<Json> FusionDecisionOp(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(std::string producer, GetString(request, "producer"));
  DecisionOptions options;
  IXA_ASSIGN_OR_RETURN(options.consumer,
                       GetOptionalString(request, "consumer"));
  IXA_ASSIGN_OR_RETURN(options.model, GetModel(request));
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(request));
  IXA_ASSIGN_OR_RETURN(FusionDecision d,
                       DecideFusion(*module, producer, options, device, &ctx));
  const bool known = d.times_known;
  double memory = d.producer.memory_us, compute = d.producer.compute_us;
  int64_t read = d.producer.bytes_read, written = d.producer.bytes_written;
  double kernel_us = 0;
  Json consumer_costs = Json::array(), fused_costs = Json::array(),
       names = Json::array();
  for (const ConsumerDecision& c : d.consumers) {
    names.push_back(c.name);
    memory += c.unfused.memory_us;
    compute += c.unfused.compute_us;
    read += c.unfused.bytes_read;
    written += c.unfused.bytes_written;
    kernel_us += c.fused.exec_us;
    Json unfused = CostJson(c.unfused);
    unfused["name"] = c.name;
    consumer_costs.push_back(std::move(unfused));
    Json fused = c.costed ? CostJson(c.fused) : Json::object();
    fused["consumer"] = c.name;
    fused["legal"] = c.legality.legal;
    if (!c.legality.legal) {
      fused["rule"] = c.legality.rule;
      fused["reason"] = c.legality.reason;
    }
    if (!c.cost_error.empty()) fused["time_unknown"] = c.cost_error;
    fused["recompute_factor"] = c.recompute_factor;
    fused["producer_reads"] = c.producer_reads;
    fused["producer_elements_read"] = c.producer_elements_read;
    fused_costs.push_back(std::move(fused));
  }
  Json unfused{
      {"time_us", TimeOrNull(known, d.unfused_us)},
      {"kernels", d.unfused_kernels},
      {"launch_overhead_us", d.unfused_kernels * kKernelLaunchOverheadUs},
      {"memory_us", memory},
      {"compute_us", compute},
      {"bytes_read", read},
      {"bytes_written", written},
      {"producer", CostJson(d.producer)},
      {"consumers", consumer_costs}};
  if (!consumer_costs.empty()) unfused["consumer"] = consumer_costs[0];
  // The first consumer's fused kernel, with the plan's totals.
  Json fused = fused_costs.empty() ? Json::object() : fused_costs[0];
  fused["kernel_us"] = TimeOrNull(known, kernel_us);
  fused["time_us"] = TimeOrNull(known, d.fused_us);
  fused["kernels"] = d.fused_kernels;
  fused["launch_overhead_us"] = d.fused_kernels * kKernelLaunchOverheadUs;
  fused["producer_kept"] = d.producer_kept;
  fused["consumers"] = std::move(fused_costs);
  Json out{{"device", device.name},
           {"model", CostModelName(d.model)},
           {"producer", producer},
           {"consumers", std::move(names)},
           {"legal", d.legal},
           {"fuse", d.fuse},
           {"times_known", known},
           // A fusion the rules forbid has no speedup to speak of: its
           // fused kernel is one XLA never builds.
           {"speedup", known && d.legal ? Json(d.speedup) : Json()},
           {"priority_us", TimeOrNull(known && d.legal, d.priority_us)},
           {"unfused", std::move(unfused)},
           {"fused", std::move(fused)},
           {"notes", d.notes}};
  if (!options.consumer.empty()) out["consumer"] = options.consumer;
  if (!d.legal) {
    out["rule"] = d.rule;
    out["reason"] = d.reason;
  }
  return out;
}

Result<Json> FusionPlanOp(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(PrefusedModule prefused, GetPrefusedModule(request));
  const hlo::Module* module = &prefused.module();
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(request));
  FusionPlanOptions options;
  IXA_ASSIGN_OR_RETURN(options.model, GetModel(request));
  IXA_ASSIGN_OR_RETURN(FusionPlanResult plan,
                       PlanFusions(*module, device, options, &ctx));
  Json steps = Json::array();
  for (const FusionStep& s : plan.steps) {
    Json into = Json::array();
    for (const FusionStep::Into& i : s.into) {
      into.push_back(Json{{"consumer", i.consumer},
                          {"fusion", i.fusion},
                          {"consumer_us", i.consumer_us},
                          {"fused_us", i.fused_us}});
    }
    Json step{{"kind", s.kind},
              {"producer", s.producer},
              {"producer_us", s.producer_us},
              {"into", std::move(into)},
              {"producer_kept", s.producer_kept}};
    step["priority_us"] = s.priority_us ? Json(*s.priority_us) : Json();
    steps.push_back(std::move(step));
  }
  Json out{
      {"device", device.name},
      {"model", CostModelName(options.model)},
      {"hlo", plan.module_text},
      {"decisions", std::move(steps)},
      {"kernels_before", plan.kernels_before},
      {"kernels_after", plan.kernels_after},
      {"time_before_us", TimeOrNull(plan.times_known, plan.time_before_us)},
      {"time_after_us", TimeOrNull(plan.times_known, plan.time_after_us)},
      {"refusals", plan.refusals}};
  AddPrefusionRewrites(prefused, &out);
  return out;
}

}  // namespace

void RegisterUseOps(OpTable& table) {
  table["utilization"] = Utilization;
  table["tile"] = TileOp;
  table["valid_tilings"] = ValidTilingsOp;
  table["coalescing"] = Coalescing;
  table["fusion_cost"] = FusionCostOp;
  table["fusion_decision"] = FusionDecisionOp;
  table["fusion_plan"] = FusionPlanOp;
  table["prefusion"] = PrefusionOp;
}

}  // namespace ixa::cli
