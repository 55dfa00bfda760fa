#include "analysis/uses/fusion_cost.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "analysis/hlo/custom_calls.h"
#include "analysis/indexing/indexing.h"
#include "analysis/uses/xla_performance_model.h"
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
  if (instr.opcode == "custom-call" &&
      hlo::GetLibraryCallKind(instr) != hlo::LibraryCallKind::kNone &&
      instr.operand_count() >= 1) {
    return hlo::ElementBits(instr.operand(0)->shape.type) <= 16;
  }
  if (instr.opcode != "dot" || instr.operand_count() < 1) return false;
  return hlo::ElementBits(instr.operand(0)->shape.type) <= 16;
}

// The instructions whose every use inside the region leads, through
// elementwise ops of unchanged dims, into operand 0 (the buffer) of a
// dynamic-update-slice that is not updated in place. Outside the update
// window the buffer is read (and what computes it evaluated); inside it,
// never: each such instruction is used for `update elements` fewer
// elements than its maps say. (XLA's maps of a dynamic-update-slice's
// buffer are the identity: they cannot say which elements the update
// hides, since its offsets are runtime values.)
std::unordered_map<const hlo::Instruction*, int64_t> HiddenByUpdates(
    const FusionRegion& region, const EmitterPlan& plan) {
  std::unordered_set<const hlo::Instruction*> members(region.members.begin(),
                                                      region.members.end());
  std::unordered_set<const hlo::Instruction*> in_place;
  if (plan.kind == EmitterKind::kInPlaceDynamicUpdateSlice) {
    for (const RootPlan& r : plan.roots) in_place.insert(r.hero);
  }
  auto users_inside = [&](const hlo::Instruction* x) {
    std::vector<const hlo::Instruction*> out;
    for (const hlo::Instruction* u : x->users) {
      if (members.count(u)) out.push_back(u);
    }
    return out;
  };
  std::unordered_map<const hlo::Instruction*, int64_t> hidden;
  for (const hlo::Instruction* dus : region.members) {
    if (dus->opcode != "dynamic-update-slice" || dus->operand_count() < 2 ||
        in_place.count(dus) || !dus->shape.IsArray()) {
      continue;
    }
    const int64_t update = dus->operand(1)->shape.ElementCount();
    const hlo::Instruction* buffer = dus->operand(0);
    // Only the buffer slot may use it.
    bool only_buffer = true;
    for (int i = 1; i < dus->operand_count(); ++i) {
      only_buffer &= dus->operand(i) != buffer;
    }
    const auto buffer_users = users_inside(buffer);
    if (!only_buffer || buffer_users.size() != 1 || !buffer->shape.IsArray() ||
        buffer->shape.dims != dus->shape.dims) {
      continue;
    }
    std::unordered_set<const hlo::Instruction*> chain = {dus, buffer};
    std::vector<const hlo::Instruction*> stack = {buffer};
    while (!stack.empty()) {
      const hlo::Instruction* x = stack.back();
      stack.pop_back();
      hidden[x] = std::max(hidden[x], update);
      if (!members.count(x) || x->opcode == "parameter" ||
          !hlo::IsElementwiseOpcode(x->opcode)) {
        continue;
      }
      for (const hlo::Instruction* o : x->operands) {
        if (chain.count(o) || !o->shape.IsArray() ||
            o->shape.dims != buffer->shape.dims) {
          continue;
        }
        bool all_in_chain = true;
        for (const hlo::Instruction* u : users_inside(o)) {
          all_in_chain &= chain.count(u) > 0;
        }
        if (!all_in_chain) continue;
        chain.insert(o);
        stack.push_back(o);
      }
    }
  }
  return hidden;
}

}  // namespace

const char* CostModelName(CostModel model) {
  return model == CostModel::kXla ? "xla" : "ixa";
}

std::optional<CostModel> CostModelFromName(std::string_view name) {
  if (name == "ixa") return CostModel::kIxa;
  if (name == "xla") return CostModel::kXla;
  return std::nullopt;
}

bool RegionIsFusion(const FusionRegion& region) {
  if (region.computation && !region.computation->is_entry()) return true;
  int ops = 0;
  for (const hlo::Instruction* m : region.members) {
    if (m->opcode != "parameter" &&
        std::find(region.parameters.begin(), region.parameters.end(), m) ==
            region.parameters.end()) {
      ++ops;
    }
  }
  return ops > 1;
}

int64_t BytesOfElements(const hlo::Shape& shape, int64_t elements) {
  const int bits = hlo::ElementBits(shape.type);
  if (bits >= 8) return SaturatingMul(elements, bits / 8);
  const int64_t total_bits = SaturatingMul(elements, std::max(bits, 1));
  return total_bits / 8 + (total_bits % 8 != 0 ? 1 : 0);
}

int64_t FlopsPerElement(const hlo::Instruction& instr) {
  const std::string& op = instr.opcode;
  if (IsDataMovement(op)) return 0;
  if (op == "custom-call") {
    // A cuBLAS GEMM or cuDNN convolution does the work of its dot or
    // convolution; another custom call's work is not known.
    std::unique_ptr<hlo::Instruction> as_op = hlo::LibraryCallAsOp(instr);
    return as_op ? FlopsPerElement(*as_op) : 0;
  }
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
  // A library call's outputs past the first are its workspace: nothing
  // is computed for them.
  const int outputs =
      hlo::IsLibraryCall(*region.root) ? 1 : OutputCount(*region.root);
  for (int out = 0; out < outputs; ++out) {
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
    bytes = SaturatingAdd(bytes, BytesOfElements(s, elements));
  };
  for (const RootPlan& r : plan.roots) {
    // A library call's workspace is scratch memory, not an output.
    const hlo::Shape& shape = hlo::IsLibraryCall(*r.root)
                                  ? hlo::LibraryCallResultShape(*r.root)
                                  : r.root->shape;
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

void FillOccupancy(const hw::Device& device, FusionCost* cost) {
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
  cost->exec_us = cost->time_us;
  cost->write_us =
      device.dram_gbps > 0
          ? static_cast<double>(cost->bytes_written) / (device.dram_gbps * 1e3)
          : 0;
}

namespace {

// The work of an in-place dynamic-update-slice kernel: what computes each
// update (over the update's elements, not the buffer's) and the start
// indices; the buffer itself is neither read nor computed.
Result<RegionFlopsCount> InPlaceUpdateFlops(const FusionRegion& region,
                                            const EmitterPlan& plan,
                                            ExprContext* ctx) {
  RegionFlopsCount total;
  for (const RootPlan& r : plan.roots) {
    for (int i = 1; i < r.hero->operand_count(); ++i) {
      FusionRegion below = SubRegionBelow(region, r.hero->operand(i));
      if (below.members.empty()) continue;
      IXA_ASSIGN_OR_RETURN(RegionFlopsCount f, RegionFlops(below, ctx));
      total.vector_flops = SaturatingAdd(total.vector_flops, f.vector_flops);
      total.matrix_flops = SaturatingAdd(total.matrix_flops, f.matrix_flops);
      if (total.not_counted.empty()) total.not_counted = f.not_counted;
    }
  }
  return total;
}

Result<FusionCost> EstimateIxaCost(const FusionRegion& region,
                                   const hw::Device& device, ExprContext* ctx) {
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
  const std::unordered_map<const hlo::Instruction*, int64_t> hidden =
      HiddenByUpdates(region, plan);
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
    if (auto h = hidden.find(param); h != hidden.end()) {
      u.elements_read = std::max<int64_t>(0, u.elements_read - h->second);
      u.reads = std::max<int64_t>(0, u.reads - h->second);
      u.utilization = u.elements_total == 0
                          ? 1.0
                          : static_cast<double>(u.elements_read) /
                                static_cast<double>(u.elements_total);
    }
    u.parameter = static_cast<int>(i);
    u.name = param->name;
    const int64_t bytes = BytesOfElements(param->shape, u.elements_read);
    cost.bytes_read = SaturatingAdd(cost.bytes_read, bytes);
    double moved = static_cast<double>(bytes);
    OperandCost oc;
    oc.parameter = static_cast<int>(i);
    oc.name = param->name;
    oc.bytes_net = bytes;
    oc.bytes_total = BytesOfElements(param->shape, u.reads);
    oc.utilization = u.elements_total == 0
                         ? 0
                         : static_cast<double>(u.reads) /
                               static_cast<double>(u.elements_total);
    for (const OperandCoalescing& c : cost.coalescing) {
      if (c.parameter == static_cast<int>(i) && !c.coalesced &&
          c.efficiency > 0) {
        moved /= c.efficiency;
        oc.coalesced = false;
      }
    }
    oc.read_time_us =
        device.dram_gbps > 0 ? moved / (device.dram_gbps * 1e3) : 0;
    cost.bytes_moved += moved;
    cost.operands.push_back(std::move(oc));
    cost.utilization.push_back(std::move(u));
  }
  cost.bytes_written = PlanBytesWritten(plan);
  auto flops = plan.kind == EmitterKind::kInPlaceDynamicUpdateSlice
                   ? InPlaceUpdateFlops(region, plan, ctx)
                   : RegionFlops(region, ctx);
  if (flops.ok()) {
    int64_t vector = flops->vector_flops;
    for (const auto& [instr, elements] : hidden) {
      if (std::find(region.parameters.begin(), region.parameters.end(),
                    instr) != region.parameters.end()) {
        continue;
      }
      vector = std::max<int64_t>(
          0, vector - SaturatingMul(FlopsPerElement(*instr), elements));
    }
    cost.flops = SaturatingAdd(vector, flops->matrix_flops);
    cost.matrix_flops = flops->matrix_flops;
    if (!flops->not_counted.empty()) cost.flops_unknown = flops->not_counted;
  } else {
    cost.flops_unknown = flops.error().message;
  }
  FinishCost(device, &cost);
  return cost;
}

}  // namespace

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
    return EstimateIxaCost(region, device, ctx);
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
  return FusionCostFromXla(
      EstimateXlaRunTime(analysis, launch, coalesced, device), device);
}

}  // namespace ixa
