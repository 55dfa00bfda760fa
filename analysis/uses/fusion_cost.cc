#include "analysis/uses/fusion_cost.h"

#include <algorithm>
#include <string>

#include "analysis/indexing/indexing.h"
#include "core/int_math.h"

namespace ixa {
namespace {

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n = SaturatingMul(n, d);
  return n;
}

bool IsDataMovement(std::string_view op) {
  static const char* kOps[] = {"parameter",
                               "constant",
                               "iota",
                               "tuple",
                               "get-tuple-element",
                               "broadcast",
                               "transpose",
                               "reshape",
                               "bitcast",
                               "slice",
                               "dynamic-slice",
                               "dynamic-update-slice",
                               "pad",
                               "concatenate",
                               "reverse",
                               "copy",
                               "gather",
                               "bitcast-convert"};
  for (const char* o : kOps) {
    if (op == o) return true;
  }
  return false;
}

// Dots on 16-bit (or narrower) inputs run on the matrix units.
bool IsNarrowDot(const hlo::Instruction& instr) {
  if (instr.opcode != "dot" || instr.operand_count() < 1) return false;
  return hlo::ElementBits(instr.operand(0)->shape.type) <= 16;
}

}  // namespace

int64_t FlopsPerElement(const hlo::Instruction& instr) {
  const std::string& op = instr.opcode;
  if (IsDataMovement(op)) return 0;
  if (op == "reduce") {
    // Inputs are the first half of the operands, inits the second.
    const int inputs = instr.operand_count() / 2;
    if (inputs == 0) return 0;
    const int64_t out = Product(OutputDims(instr, 0));
    const int64_t in = instr.operand(0)->shape.ElementCount();
    return out == 0 ? 0 : inputs * (in / out);
  }
  if (op == "reduce-window") {
    int64_t window = 1;
    for (const hlo::WindowDim& w : instr.window) {
      window = SaturatingMul(window, w.size);
    }
    return std::max(1, instr.operand_count() / 2) * window;
  }
  if (op == "dot") {
    int64_t k = 1;
    for (int64_t d : instr.dot.lhs_contracting) {
      k = SaturatingMul(k, instr.operand(0)->shape.dims[d]);
    }
    return 2 * k;
  }
  if (op == "convolution" && instr.conv && instr.operand_count() == 2) {
    const hlo::Shape& kernel = instr.operand(1)->shape;
    const int64_t out_features = kernel.dims[instr.conv->kernel_output_feature];
    return out_features == 0 ? 0 : 2 * (kernel.ElementCount() / out_features);
  }
  if (hlo::IsElementwiseOpcode(op)) return 1;
  return 0;
}

OperandUtilization UtilizationOfCoverage(std::span<const IndexingMap> coverage,
                                         const hlo::Shape& shape) {
  OperandUtilization u;
  u.elements_total = shape.ElementCount();
  u.num_maps = static_cast<int>(coverage.size());
  std::vector<IndexingMap> fixed;
  std::string failure;
  for (const IndexingMap& m : coverage) {
    bool rt = false;
    fixed.push_back(FixRuntimeVars(m, /*midpoint=*/false, &rt));
    u.depends_on_runtime |= rt;
    auto n = CountDomainPoints(fixed.back());
    if (!n.ok()) {
      failure = n.error().message;
      u.reads = SaturatingAdd(u.reads, fixed.back().BoxSize());
    } else {
      u.reads = SaturatingAdd(u.reads, *n);
    }
  }
  if (fixed.empty()) {
    u.method = "empty";
  } else if (auto image = CountImageUnion(fixed, shape.dims); image.ok()) {
    u.elements_read = image->count;
    u.method = image->method;
  } else {
    failure = image.error().message;
  }
  if (!failure.empty()) {
    u.elements_read = u.elements_total;
    u.method = "bound (" + failure + ")";
  }
  u.utilization = u.elements_total == 0
                      ? 1.0
                      : static_cast<double>(u.elements_read) /
                            static_cast<double>(u.elements_total);
  return u;
}

Result<RegionFlopsCount> RegionFlops(const FusionRegion& region,
                                     ExprContext* ctx) {
  RegionFlopsCount count;
  std::vector<std::string> missing;
  std::string reason;
  FusionIndexingOptions options;
  options.allow_unknown = true;
  for (int out = 0; out < OutputCount(*region.root); ++out) {
    IXA_ASSIGN_OR_RETURN(
        GroupedIndexing grouped,
        ComputeGroupedOutputToInputIndexing(region, out, ctx, options));
    auto not_counted = [&](const hlo::Instruction* instr, std::string why) {
      if (std::find(missing.begin(), missing.end(), instr->name) ==
          missing.end()) {
        missing.push_back(instr->name);
      }
      if (reason.empty()) reason = std::move(why);
    };
    for (const hlo::Instruction* instr : region.members) {
      // An op with an operand without indexing maps (a custom call, a
      // loop, a sparse dot, ...): its own work per element is not
      // modelled either.
      if (auto origin = grouped.unknown_origins.find(instr);
          origin != grouped.unknown_origins.end()) {
        not_counted(instr, origin->second);
        continue;
      }
      const int64_t per = FlopsPerElement(*instr);
      if (per == 0) continue;
      if (grouped.IsUnknown(instr)) {
        not_counted(instr, grouped.UnknownReason(instr));
        continue;
      }
      int64_t evaluations = 0;
      for (const IndexingMap& m : grouped.MapsOf(instr)) {
        IndexingMap fixed = FixRuntimeVars(m, /*midpoint=*/false);
        auto n = CountDomainPoints(fixed);
        evaluations = SaturatingAdd(evaluations, n.ok() ? *n : m.BoxSize());
      }
      int64_t& sink =
          IsNarrowDot(*instr) ? count.matrix_flops : count.vector_flops;
      sink = SaturatingAdd(sink, SaturatingMul(per, evaluations));
    }
  }
  if (!missing.empty()) {
    constexpr size_t kNamed = 4;
    std::string names;
    for (size_t i = 0; i < missing.size() && i < kNamed; ++i) {
      names += (i ? ", '" : "'") + missing[i] + "'";
    }
    if (missing.size() > kNamed) {
      names += " and " + std::to_string(missing.size() - kNamed) + " more";
    }
    count.not_counted = "the flops of " + names + " are not counted: " + reason;
  }
  return count;
}

int64_t PlanBytesWritten(const EmitterPlan& plan) {
  int64_t bytes = 0;
  auto add_shape = [&](const hlo::Shape& s, int64_t elements) {
    bytes = SaturatingAdd(bytes, SaturatingMul(elements, ElementBytes(s)));
  };
  for (const RootPlan& r : plan.roots) {
    const hlo::Shape& shape = r.root->shape;
    if (plan.kind == EmitterKind::kInPlaceDynamicUpdateSlice &&
        r.hero->operand_count() > 1) {
      add_shape(shape, r.hero->operand(1)->shape.ElementCount());
      continue;
    }
    if (plan.kind == EmitterKind::kScatter) {
      // Only the updated elements change: one per update element.
      add_shape(shape, r.hero->operands.back()->shape.ElementCount());
      continue;
    }
    if (shape.IsTuple()) {
      for (const hlo::Shape& e : shape.tuple_elements) {
        if (e.IsArray()) add_shape(e, e.ElementCount());
      }
    } else if (shape.IsArray()) {
      add_shape(shape, shape.ElementCount());
    }
  }
  return bytes;
}

void FinishCost(const hw::Device& device, FusionCost* cost) {
  const LaunchDimensions& l = cost->launch;
  const int64_t threads = std::max<int64_t>(1, l.threads_per_block());
  const int64_t blocks = std::max<int64_t>(1, l.num_blocks());
  int64_t per_core = 32;
  if (device.threads_per_core > 0) {
    per_core = std::min(per_core, device.threads_per_core / threads);
  }
  if (l.shared_memory_bytes > 0 && device.smem_bytes_per_sm > 0) {
    per_core =
        std::min(per_core, device.smem_bytes_per_sm / l.shared_memory_bytes);
  }
  cost->blocks_per_core = std::max<int64_t>(1, per_core);
  const int64_t cores = std::max<int64_t>(1, device.sm_count);
  cost->waves = (blocks + cores * cost->blocks_per_core - 1) /
                (cores * cost->blocks_per_core);
  double active = static_cast<double>(std::min(blocks, cores)) / cores;
  if (device.fpus_per_core > 0) {
    active *= static_cast<double>(std::min(threads, device.fpus_per_core)) /
              device.fpus_per_core;
  }
  cost->active_fraction = active;
  // GB/s = 1e3 bytes/us; TFLOP/s = 1e6 flops/us.
  cost->memory_us = 0;
  if (device.dram_gbps > 0) {
    cost->memory_us =
        (cost->bytes_moved + static_cast<double>(cost->bytes_written)) /
        (device.dram_gbps * 1e3);
  }
  auto at = [&](int64_t flops, double tflops) {
    return tflops > 0 ? static_cast<double>(flops) / (tflops * 1e6 * active)
                      : 0.0;
  };
  const double matrix_peak = device.peak_tflops_bf16 > 0
                                 ? device.peak_tflops_bf16
                                 : device.peak_tflops_fp32;
  cost->compute_us =
      at(cost->flops - cost->matrix_flops, device.peak_tflops_fp32) +
      at(cost->matrix_flops, matrix_peak);
  cost->time_us = std::max(cost->memory_us, cost->compute_us);
}

Result<FusionCost> EstimateFusionCost(const FusionRegion& region,
                                      const hw::Device& device,
                                      ExprContext* ctx) {
  FusionCost cost;
  auto planned = ComputeEmitterPlan(region, device, ctx);
  if (!planned.ok() && planned.error().code != ErrorCode::kInvalidArgument) {
    cost.note = "the emitters refuse this fusion (" + planned.error().message +
                "); costed with the loop emitter";
    PlanOptions loop;
    loop.force_loop = true;
    planned = ComputeEmitterPlan(region, device, loop, ctx);
  }
  if (!planned.ok()) return planned.error();
  const EmitterPlan& plan = *planned;
  cost.emitter = plan.kind;
  cost.reduction_kind = plan.reduction_kind;
  cost.launch = plan.launch;
  CoalescingAnalysis coalescing = AnalyzePlanCoalescing(region, plan, device);
  cost.coalescing = coalescing.operands;
  cost.unknown = coalescing.unknown;
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    const hlo::Instruction* param = region.parameters[i];
    const ParameterPlan& pp = plan.parameters[i];
    if (!param->shape.IsArray()) continue;
    OperandUtilization u;
    if (pp.unknown_reason) {
      // Unknown reads: the whole operand, once.
      u.elements_total = param->shape.ElementCount();
      u.elements_read = u.elements_total;
      u.reads = u.elements_total;
      u.utilization = 1;
      u.method = "unknown";
    } else {
      u = UtilizationOfCoverage(pp.coverage_maps, param->shape);
    }
    u.parameter = static_cast<int>(i);
    u.name = param->name;
    const int64_t bytes =
        SaturatingMul(ElementBytes(param->shape), u.elements_read);
    cost.bytes_read = SaturatingAdd(cost.bytes_read, bytes);
    double moved = static_cast<double>(bytes);
    for (const OperandCoalescing& c : cost.coalescing) {
      if (c.parameter == static_cast<int>(i) && !c.coalesced &&
          c.efficiency > 0) {
        moved /= c.efficiency;
      }
    }
    cost.bytes_moved += moved;
    cost.utilization.push_back(std::move(u));
  }
  cost.bytes_written = PlanBytesWritten(plan);
  if (auto flops = RegionFlops(region, ctx); flops.ok()) {
    cost.flops = SaturatingAdd(flops->vector_flops, flops->matrix_flops);
    cost.matrix_flops = flops->matrix_flops;
    if (!flops->not_counted.empty()) cost.flops_unknown = flops->not_counted;
  } else {
    cost.flops_unknown = flops.error().message;
  }
  FinishCost(device, &cost);
  return cost;
}

}  // namespace ixa
