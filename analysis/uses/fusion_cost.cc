#include "analysis/uses/fusion_cost.h"

#include <algorithm>
#include <string>

#include "analysis/uses/ixa_cost_model.h"
#include "analysis/uses/xla_cost_analysis.h"
#include "analysis/uses/xla_performance_model.h"
#include "core/int_math.h"

namespace ixa {

Result<FusionCost> EstimateFusionCost(const FusionRegion& region,
                                      const hw::Device& device,
                                      ExprContext* ctx) {
  return EstimateFusionCost(region, device, CostOptions(), ctx);
}

FusionCost FusionCostFromXla(const XlaRunTime& t, const hw::Device& device) {
  FusionCost cost;
  cost.model = CostModel::kXla;
  cost.emitter = t.launch.kind;
  cost.reduction_kind = t.launch.reduction_kind;
  cost.launch = t.launch.launch;
  cost.flops = t.flops;
  cost.bytes_read = t.bytes_read;
  cost.bytes_written = t.bytes_written;
  cost.compute_us = t.compute_us;
  cost.memory_us = t.memory_us;
  cost.write_us = t.write_us;
  cost.exec_us = t.exec_us;
  cost.time_us = t.exec_us;
  cost.launch_overhead_us = kXlaKernelLaunchOverheadUs;
  const int64_t blocks = std::max<int64_t>(1, cost.launch.num_blocks());
  const int64_t cores = std::max<int64_t>(1, device.sm_count);
  cost.active_fraction =
      static_cast<double>(std::min(blocks, cores)) / static_cast<double>(cores);
  FillOccupancy(device, &cost);
  for (const XlaOperandCost& o : t.operands) {
    OperandCost oc;
    oc.parameter = o.index;
    oc.name = o.name;
    oc.bytes_total = o.bytes_total;
    oc.bytes_net = o.bytes_net;
    oc.read_time_us = o.read_time_us;
    oc.coalesced = o.coalesced;
    oc.utilization = o.utilization;
    // DRAM traffic: the first read, inflated by the coalescing waste.
    const double rate =
        o.coalesced
            ? 1.0
            : 1.0 / static_cast<double>(std::max<int64_t>(
                        1, device.dram_to_l2_transaction_bytes /
                               XlaElementBytesForCoalescing(o.operand->shape)));
    cost.bytes_moved += static_cast<double>(o.bytes_net) / rate;
    cost.operands.push_back(std::move(oc));
  }
  if (!t.launch.fallback.empty()) {
    cost.note = "no emitter takes this kernel (" + t.launch.fallback +
                "): XLA's fallback launch of 128 threads per block";
  }
  if (!t.unknown.empty()) cost.time_unknown = t.unknown;
  return cost;
}

Result<FusionCost> EstimateFusionCost(const FusionRegion& region,
                                      const hw::Device& device,
                                      const CostOptions& options,
                                      ExprContext* ctx) {
  if (options.model == CostModel::kIxa) {
    return EstimateIxaCost(region, device, options, ctx);
  }
  if (!device.HasLaunchModel()) {
    return Error::Invalid("device " + device.name +
                          " has no GPU launch model: XLA's cost model needs "
                          "cores, threads and shared memory per block");
  }
  const bool is_fusion = options.is_fusion.value_or(RegionIsFusion(region));
  XlaCostAnalysis analysis = AnalyzeXlaCost(region, is_fusion, device);
  IXA_ASSIGN_OR_RETURN(XlaLaunch launch, ComputeXlaLaunch(region, device, ctx));
  XlaKernelRef self{&region, is_fusion, launch.own_plan_is_reduction};
  const bool coalesced = XlaReadCoalescedHeuristic(launch.kind, self, nullptr);
  FusionCost cost = FusionCostFromXla(
      EstimateXlaRunTime(analysis, launch, coalesced, device), device);
  int64_t accessed = SaturatingAdd(cost.bytes_read, cost.bytes_written);
  if (is_fusion) {
    for (const hlo::Instruction* m : region.members) {
      if (m->opcode == hlo::Opcode::kConstant && m->shape.IsArray() &&
          m->shape.ElementCount() > 8) {
        accessed = SaturatingAdd(accessed, XlaShapeSize(m->shape));
      }
    }
  }
  cost.bytes_accessed = accessed;
  return cost;
}

}  // namespace ixa
