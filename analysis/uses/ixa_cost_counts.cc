#include <algorithm>
#include <memory>
#include <string>

#include "analysis/hlo/custom_calls.h"
#include "analysis/indexing/indexing.h"
#include "analysis/uses/ixa_cost_model.h"
#include "analysis/uses/xla_cost_analysis.h"
#include "core/int_math.h"
#include "hw/throughput.h"

namespace ixa {
namespace {

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n = SaturatingMul(n, d);
  return n;
}

// A cuDNN convolution call (any of the five targets XLA calls
// convolutions, the backward ones included, whose operand maps are not
// known) does the flops of the convolution it describes, counted as XLA's
// cost analysis does, once per evaluation of its result (the region's
// maps of it; once when they are not known). False for other
// instructions.
bool CountCudnnConvolution(const hlo::Instruction& instr,
                           const GroupedIndexing& grouped,
                           const hw::Device* device, RegionFlopsCount* count) {
  if (!hlo::IsCudnnConvolution(instr) || !instr.conv ||
      instr.operand_count() < 2) {
    return false;
  }
  const hlo::Shape& result = hlo::LibraryCallResultShape(instr);
  const int64_t elements = std::max<int64_t>(result.ElementCount(), 1);
  int64_t evaluations = 0;
  if (!grouped.IsUnknown(&instr)) {
    for (const IndexingMap& m : grouped.MapsOf(&instr)) {
      IndexingMap fixed = FixRuntimeVars(m, /*midpoint=*/false);
      auto n = CountDomainPoints(fixed);
      evaluations = SaturatingAdd(evaluations, n.ok() ? *n : m.BoxSize());
    }
  }
  if (evaluations == 0) evaluations = elements;
  const double flops = XlaConvolutionFlops(instr, result) *
                       static_cast<double>(evaluations) /
                       static_cast<double>(elements);
  const int64_t whole = SaturatingFromDouble(flops);
  const bool narrow = IsNarrowDot(instr);
  int64_t& sink = narrow ? count->matrix_flops : count->vector_flops;
  sink = SaturatingAdd(sink, whole);
  if (device && !narrow) {
    // One FMA per pair of flops, as for a dot or convolution.
    const bool f64 = result.IsArray() && result.type == hlo::ElementType::kF64;
    count->issue_slots += flops / 2 * (f64 ? hw::Fp64Ratio(*device) : 1);
  }
  return true;
}

}  // namespace

bool IsNarrowDot(const hlo::Instruction& instr) {
  if (instr.opcode == hlo::Opcode::kCustomCall &&
      hlo::GetLibraryCallKind(instr) != hlo::LibraryCallKind::kNone &&
      instr.operand_count() >= 1) {
    return hlo::ElementBits(instr.operand(0)->shape.type) <= 16;
  }
  if (instr.opcode != hlo::Opcode::kDot || instr.operand_count() < 1)
    return false;
  return hlo::ElementBits(instr.operand(0)->shape.type) <= 16;
}

int64_t BytesOfElements(const hlo::Shape& shape, int64_t elements) {
  const int bits = hlo::ElementBits(shape.type);
  if (bits >= 8) return SaturatingMul(elements, bits / 8);
  const int64_t total_bits = SaturatingMul(elements, std::max(bits, 1));
  return total_bits / 8 + (total_bits % 8 != 0 ? 1 : 0);
}

int64_t FlopsPerElement(const hlo::Instruction& instr) {
  const hlo::Opcode op = instr.opcode;
  if (hlo::IsDataMovement(op)) return 0;
  if (op == hlo::Opcode::kCustomCall) {
    // A cuBLAS GEMM or cuDNN convolution does the work of its dot or
    // convolution; another custom call's work is not known.
    std::unique_ptr<hlo::Instruction> as_op = hlo::LibraryCallAsOp(instr);
    return as_op ? FlopsPerElement(*as_op) : 0;
  }
  if (op == hlo::Opcode::kReduce) {
    // Inputs are the first half of the operands, inits the second.
    const int inputs = instr.operand_count() / 2;
    if (inputs == 0) return 0;
    const int64_t out = Product(OutputDims(instr, 0));
    const int64_t in = instr.operand(0)->shape.ElementCount();
    return out == 0 ? 0 : inputs * (in / out);
  }
  if (op == hlo::Opcode::kReduceWindow) {
    int64_t window = 1;
    for (const hlo::WindowDim& w : instr.window) {
      window = SaturatingMul(window, w.size);
    }
    return std::max(1, instr.operand_count() / 2) * window;
  }
  if (op == hlo::Opcode::kDot) {
    int64_t k = 1;
    for (int64_t d : instr.dot.lhs_contracting) {
      k = SaturatingMul(k, instr.operand(0)->shape.dims[d]);
    }
    return 2 * k;
  }
  if (op == hlo::Opcode::kConvolution && instr.conv &&
      instr.operand_count() == 2) {
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
  UtilizationOptions options;
  options.product_first = true;
  if (fixed.empty()) {
    u.method = "empty";
  } else if (auto image = CountImageUnion(fixed, shape.dims, options);
             image.ok()) {
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
  return RegionFlops(region, ctx, nullptr);
}

double IssueSlotsPerElement(const hlo::Instruction& instr,
                            const hw::Device& device) {
  const hlo::Opcode op = instr.opcode;
  auto type = [](const hlo::Shape& s) {
    return std::string(hlo::ElementTypeName(s.type));
  };
  auto computation_slots = [&](const hlo::Computation* c) {
    double slots = 0;
    if (!c) return slots;
    for (const auto& i : c->instructions()) {
      slots += IssueSlotsPerElement(*i, device);
    }
    return slots;
  };
  if (op == hlo::Opcode::kCustomCall) {
    std::unique_ptr<hlo::Instruction> as_op = hlo::LibraryCallAsOp(instr);
    return as_op ? IssueSlotsPerElement(*as_op, device) : 0;
  }
  if (op == hlo::Opcode::kMap) return computation_slots(instr.called());
  if (hlo::IsElementwiseOpcode(op)) {
    if (!instr.shape.IsArray() || instr.operand_count() == 0) return 0;
    if (op == hlo::Opcode::kCompare) {
      return hw::IssueSlots(device, hlo::OpcodeName(op),
                            type(instr.operand(0)->shape));
    }
    if (op == hlo::Opcode::kConvert) {
      return hw::IssueSlots(device, hlo::OpcodeName(op), type(instr.shape),
                            type(instr.operand(0)->shape));
    }
    return hw::IssueSlots(device, hlo::OpcodeName(op), type(instr.shape));
  }
  if (op == hlo::Opcode::kReduce || op == hlo::Opcode::kReduceWindow) {
    // One application of the reducer per input element folded in (n per
    // output, not XLA's n - 1).
    const double per = static_cast<double>(FlopsPerElement(instr)) /
                       std::max(1, instr.operand_count() / 2);
    return per * computation_slots(instr.called());
  }
  if ((op == hlo::Opcode::kDot || op == hlo::Opcode::kConvolution) &&
      !IsNarrowDot(instr)) {
    // One FMA per pair of flops.
    const double fmas = static_cast<double>(FlopsPerElement(instr)) / 2;
    const bool f64 =
        instr.shape.IsArray() && instr.shape.type == hlo::ElementType::kF64;
    return fmas * (f64 ? hw::Fp64Ratio(device) : 1);
  }
  return 0;
}

Result<RegionFlopsCount> RegionFlops(const FusionRegion& region,
                                     ExprContext* ctx,
                                     const hw::Device* device) {
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
      if (CountCudnnConvolution(*instr, grouped, device, &count)) continue;
      // An op with an operand without indexing maps (a custom call, a
      // loop, a sparse dot, ...): its own work per element is not
      // modelled either.
      if (auto origin = grouped.unknown_origins.find(instr);
          origin != grouped.unknown_origins.end()) {
        not_counted(instr, origin->second);
        continue;
      }
      const int64_t per = FlopsPerElement(*instr);
      const double slots = device ? IssueSlotsPerElement(*instr, *device) : 0;
      if (per == 0 && slots == 0) continue;
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
      count.issue_slots += slots * static_cast<double>(evaluations);
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

}  // namespace ixa
