#include "analysis/uses/fusion_cost.h"

#include <algorithm>

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

Result<FusionCost> EstimateFusionCost(const FusionRegion& region,
                                      const hw::Device& device,
                                      ExprContext* ctx) {
  FusionCost cost;
  IXA_ASSIGN_OR_RETURN(cost.utilization, ComputeUtilization(region, ctx));
  IXA_ASSIGN_OR_RETURN(CoalescingAnalysis coalescing,
                       AnalyzeCoalescing(region, device, {}, ctx));
  cost.launch = coalescing.launch;
  cost.coalescing = coalescing.operands;
  for (size_t i = 0; i < cost.utilization.size(); ++i) {
    const OperandUtilization& u = cost.utilization[i];
    const int64_t bytes = SaturatingMul(
        ElementBytes(region.parameters[i]->shape), u.elements_read);
    cost.bytes_read = SaturatingAdd(cost.bytes_read, bytes);
    double moved = static_cast<double>(bytes);
    if (i < cost.coalescing.size() && !cost.coalescing[i].coalesced &&
        cost.coalescing[i].efficiency > 0) {
      moved /= cost.coalescing[i].efficiency;
    }
    cost.bytes_moved += moved;
  }
  for (int out = 0; out < OutputCount(*region.root); ++out) {
    const hlo::Shape& s = OutputShape(*region.root, out);
    if (!s.IsArray()) continue;
    cost.bytes_written = SaturatingAdd(
        cost.bytes_written, SaturatingMul(s.ElementCount(), ElementBytes(s)));
  }
  // Evaluations of each instruction: domain points of its maps from every
  // root output.
  int64_t vector_flops = 0, matrix_flops = 0;
  for (int out = 0; out < OutputCount(*region.root); ++out) {
    IXA_ASSIGN_OR_RETURN(GroupedIndexing grouped,
                         ComputeGroupedOutputToInputIndexing(region, out, ctx));
    for (const hlo::Instruction* instr : region.members) {
      const int64_t per = FlopsPerElement(*instr);
      if (per == 0) continue;
      int64_t evaluations = 0;
      for (const IndexingMap& m : grouped.MapsOf(instr)) {
        IndexingMap fixed = FixRuntimeVars(m, /*midpoint=*/false);
        auto n = CountDomainPoints(fixed);
        evaluations = SaturatingAdd(evaluations, n.ok() ? *n : m.BoxSize());
      }
      int64_t& sink = IsNarrowDot(*instr) ? matrix_flops : vector_flops;
      sink = SaturatingAdd(sink, SaturatingMul(per, evaluations));
    }
  }
  cost.flops = SaturatingAdd(vector_flops, matrix_flops);
  // GB/s = 1e3 bytes/us; TFLOP/s = 1e6 flops/us.
  if (device.dram_gbps > 0) {
    cost.memory_us =
        (cost.bytes_moved + static_cast<double>(cost.bytes_written)) /
        (device.dram_gbps * 1e3);
  }
  auto at = [](int64_t flops, double tflops) {
    return tflops > 0 ? static_cast<double>(flops) / (tflops * 1e6) : 0.0;
  };
  const double matrix_peak = device.peak_tflops_bf16 > 0
                                 ? device.peak_tflops_bf16
                                 : device.peak_tflops_fp32;
  cost.compute_us =
      at(vector_flops, device.peak_tflops_fp32) + at(matrix_flops, matrix_peak);
  cost.time_us = std::max(cost.memory_us, cost.compute_us);
  return cost;
}

}  // namespace ixa
