#include "analysis/uses/xla_cost_analysis.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "analysis/hlo/custom_calls.h"
#include "analysis/indexing/indexing.h"
#include "core/int_math.h"
#include "hw/op_profiles.h"

namespace ixa {
namespace {

using hlo::Instruction;
using hlo::Opcode;
using hlo::Shape;

int64_t ElementsRecursive(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t n = 0;
    for (const Shape& e : shape.tuple_elements) {
      n = SaturatingAdd(n, ElementsRecursive(e));
    }
    return n;
  }
  if (!shape.IsArray()) return 0;
  return shape.ElementCount();
}

int64_t FirstOutputElements(const Instruction& instr) {
  const Shape& s = instr.shape.IsTuple() && !instr.shape.tuple_elements.empty()
                       ? instr.shape.tuple_elements[0]
                       : instr.shape;
  return s.IsArray() ? s.ElementCount() : 0;
}

int64_t WindowElements(const Instruction& instr) {
  int64_t window = 1;
  for (const hlo::WindowDim& w : instr.window) {
    window = SaturatingMul(window, w.size);
  }
  return window;
}

double ComputationFlops(const hlo::Computation* comp, const hw::Device& device,
                        std::string* unknown) {
  if (!comp) return 0;
  double flops = 0;
  for (const auto& instr : comp->instructions()) {
    flops += XlaInstructionFlops(*instr, device, unknown);
  }
  return flops;
}

int64_t Log2Ceiling(int64_t n) {
  int64_t k = 0;
  while ((int64_t{1} << k) < n && k < 62) ++k;
  return k;
}

// Bytes a plain op reads of operand slot k (HloCostAnalysis).
int64_t UnfusedOperandBytes(const Instruction& x, int k) {
  const Opcode op = x.opcode;
  const Shape& operand = x.operand(k)->shape;
  const int n = x.operand_count();
  if (op == Opcode::kTuple || op == Opcode::kGetTupleElement ||
      op == Opcode::kBitcast)
    return 0;
  if ((op == Opcode::kSlice || op == Opcode::kDynamicSlice ||
       op == Opcode::kGather) &&
      k == 0) {
    return XlaShapeSize(x.shape);
  }
  if (op == Opcode::kDynamicUpdateSlice) {
    if (k == 0) return 0;
    if (k == 1) return XlaShapeSize(operand);
  }
  if (op == Opcode::kScatter && n >= 3) {
    // Operands [0, m), indices m, updates (m, 2m]: every operand and
    // update is charged its update's size.
    const int m = (n - 1) / 2;
    if (k < m) return XlaShapeSize(x.operand(m + 1 + k)->shape);
    if (k > m) return XlaShapeSize(operand);
  }
  if (op == Opcode::kBroadcast) return XlaShapeSize(x.shape);
  if (op == Opcode::kReduceWindow && k < n / 2) {
    return SaturatingMul(
        SaturatingMul(FirstOutputElements(x), WindowElements(x)),
        XlaElementBytesForCoalescing(operand));
  }
  if (op == Opcode::kReduce && k >= n / 2) {
    return SaturatingMul(FirstOutputElements(x), XlaShapeSize(operand));
  }
  return XlaShapeSize(operand);
}

// Bytes a plain op writes (HloCostAnalysis).
int64_t UnfusedBytesWritten(const Instruction& x) {
  const Opcode op = x.opcode;
  if (op == Opcode::kGetTupleElement || op == Opcode::kBitcast ||
      op == Opcode::kParameter) {
    return 0;
  }
  if (hlo::IsLibraryCall(x))
    return XlaShapeSize(hlo::LibraryCallResultShape(x));
  if (op == Opcode::kReduce && x.shape.IsTuple()) {
    int64_t bytes = 0;
    for (const Shape& e : x.shape.tuple_elements) {
      bytes = SaturatingAdd(bytes, XlaShapeSize(e));
    }
    return bytes;
  }
  if (op == Opcode::kScatter && x.operand_count() >= 3) {
    const int m = (x.operand_count() - 1) / 2;
    int64_t bytes = 0;
    for (int i = m + 1; i < x.operand_count(); ++i) {
      bytes = SaturatingAdd(bytes, XlaShapeSize(x.operand(i)->shape));
    }
    return bytes;
  }
  if (op == Opcode::kDynamicUpdateSlice && x.operand_count() > 1) {
    return XlaShapeSize(x.operand(1)->shape);
  }
  return XlaShapeSize(x.shape);
}

// The root, or the operand of a root tuple, that defines output leaf i.
void AddFusedBytesWritten(const Shape& shape, const Instruction* root,
                          int64_t* bytes) {
  if (root && root->opcode == Opcode::kDynamicUpdateSlice &&
      root->operand_count() > 1) {
    *bytes = SaturatingAdd(*bytes, XlaShapeSize(root->operand(1)->shape));
    return;
  }
  if (shape.IsTuple()) {
    for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
      const Instruction* sub =
          root && root->opcode == Opcode::kTuple &&
                  i < static_cast<size_t>(root->operand_count())
              ? root->operand(static_cast<int>(i))
              : nullptr;
      AddFusedBytesWritten(shape.tuple_elements[i], sub, bytes);
    }
    return;
  }
  if (shape.IsArray()) *bytes = SaturatingAdd(*bytes, XlaShapeSize(shape));
}

bool SameArrayDims(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.dims == b.dims;
}

void InsertUnique(std::vector<const Instruction*>* set,
                  const Instruction* value) {
  if (std::find(set->begin(), set->end(), value) == set->end()) {
    set->push_back(value);
  }
}

}  // namespace

double XlaConvolutionFlops(const Instruction& conv, const Shape& result) {
  const hlo::ConvDimensionNumbers& dn = *conv.conv;
  const Shape& lhs = conv.operand(0)->shape;
  const Shape& rhs = conv.operand(1)->shape;
  auto dim = [](const Shape& s, int64_t d) -> int64_t {
    return d >= 0 && d < s.rank() ? s.dims[d] : 1;
  };
  const int64_t input_feature = dim(lhs, dn.input_feature);
  const int64_t output_feature = dim(result, dn.output_feature);
  const int64_t batch = dim(lhs, dn.input_batch);
  double positions = 1;
  for (size_t i = 0; i < conv.window.size(); ++i) {
    const hlo::WindowDim& w = conv.window[i];
    const int64_t kernel_limit =
        i < dn.kernel_spatial.size() ? dim(rhs, dn.kernel_spatial[i]) : 1;
    const int64_t output_limit =
        i < dn.output_spatial.size() ? dim(result, dn.output_spatial[i]) : 1;
    const int64_t input_limit =
        i < dn.input_spatial.size() ? dim(lhs, dn.input_spatial[i]) : 1;
    int64_t valid = 0;
    for (int64_t k = 0; k < kernel_limit; ++k) {
      for (int64_t o = 0; o < output_limit; ++o) {
        const int64_t undilated =
            o * w.stride - w.pad_low + k * w.window_dilation;
        const int64_t at =
            w.base_dilation > 1 ? undilated / w.base_dilation : undilated;
        if (undilated != at * w.base_dilation) continue;
        if (at < 0 || at >= input_limit) continue;
        ++valid;
      }
    }
    positions *= static_cast<double>(valid);
  }
  const int64_t fg = std::max<int64_t>(conv.feature_group_count, 1);
  const int64_t bg = std::max<int64_t>(conv.batch_group_count, 1);
  return 2 * static_cast<double>(input_feature / fg) *
         static_cast<double>(output_feature) * static_cast<double>(batch / bg) *
         positions;
}

int64_t XlaShapeSize(const Shape& shape) {
  if (shape.IsTuple()) {
    return SaturatingMul(8, static_cast<int64_t>(shape.tuple_elements.size()));
  }
  if (!shape.IsArray()) return 0;
  const int bits = hlo::ElementBits(shape.type);
  const int64_t n = shape.ElementCount();
  if (bits >= 8) return SaturatingMul(n, bits / 8);
  // Packed sub-byte elements.
  return SaturatingMul(n, bits) / 8 + (SaturatingMul(n, bits) % 8 != 0);
}

int64_t XlaElementBytesForCoalescing(const Shape& shape) {
  if (!shape.IsArray()) return 4;
  return std::max(1, hlo::ElementBits(shape.type) / 8);
}

bool XlaIsFusibleBitcast(const Instruction& instr) {
  return instr.opcode == Opcode::kBitcast && instr.operand_count() == 1 &&
         hlo::ElementBits(instr.shape.type) ==
             hlo::ElementBits(instr.operand(0)->shape.type);
}

bool XlaIsElementwise(const Instruction& instr) {
  return hlo::IsElementwiseOpcode(instr.opcode);
}

bool XlaIsInPlaceDus(const FusionRegion& region, const Instruction& instr) {
  if (instr.opcode != Opcode::kDynamicUpdateSlice) return false;
  if (&instr == region.root) return true;
  return region.root && region.root->opcode == Opcode::kTuple &&
         std::find(region.root->operands.begin(), region.root->operands.end(),
                   &instr) != region.root->operands.end();
}

float XlaOperandUtilization(const Instruction& x, int k, bool in_place) {
  const Opcode op = x.opcode;
  const int n = x.operand_count();
  auto elements = [](const Shape& s) {
    return static_cast<float>(ElementsRecursive(s));
  };
  const float out = elements(x.shape);
  if ((op == Opcode::kSlice || op == Opcode::kDynamicSlice ||
       op == Opcode::kGather) &&
      k == 0) {
    const float in = elements(x.operand(0)->shape);
    return in > 0 ? out / in : 0.f;
  }
  if (op == Opcode::kDynamicUpdateSlice && k == 0) {
    if (in_place) return 0.f;
    const float update = n > 1 ? elements(x.operand(1)->shape) : 0.f;
    return out > 0 ? (out - update) / out : 0.f;
  }
  if (op == Opcode::kBroadcast) {
    const float in = elements(x.operand(0)->shape);
    return in > 0 ? out / in : 0.f;
  }
  if (op == Opcode::kReduceWindow && k < n / 2) {
    const float in = elements(x.operand(k)->shape);
    return in > 0 ? static_cast<float>(FirstOutputElements(x)) *
                        static_cast<float>(WindowElements(x)) / in
                  : 0.f;
  }
  if (op == Opcode::kReduce && k >= n / 2) {
    return static_cast<float>(FirstOutputElements(x));
  }
  return 1.f;
}

double XlaInstructionFlops(const Instruction& x, const hw::Device& device,
                           std::string* unknown) {
  const Opcode op = x.opcode;
  if (op == Opcode::kCopy || op == Opcode::kBitcastConvert) return 0;
  if (op == Opcode::kMap) {
    return static_cast<double>(ElementsRecursive(x.shape)) *
           ComputationFlops(x.called(), device, unknown);
  }
  if (XlaIsElementwise(x)) {
    if (!x.shape.IsArray()) return 0;
    return static_cast<double>(x.shape.ElementCount()) *
           static_cast<double>(
               hw::OpProfileFlops(device, hlo::OpcodeName(op),
                                  hlo::ElementTypeName(x.shape.type)));
  }
  if (op == Opcode::kReduce && x.operand_count() >= 2) {
    const double in = static_cast<double>(x.operand(0)->shape.ElementCount());
    const double out = static_cast<double>(FirstOutputElements(x));
    return (in - out) * ComputationFlops(x.called(), device, unknown);
  }
  if (op == Opcode::kReduceWindow && x.operand_count() >= 2) {
    return static_cast<double>(WindowElements(x) - 1) *
           static_cast<double>(FirstOutputElements(x)) *
           ComputationFlops(x.called(), device, unknown);
  }
  if ((op == Opcode::kDot || op == Opcode::kRaggedDot) &&
      x.operand_count() >= 2) {
    double k = 1;
    for (int64_t d : x.dot.lhs_contracting) {
      if (d >= 0 && d < x.operand(0)->shape.rank()) {
        k *= static_cast<double>(x.operand(0)->shape.dims[d]);
      }
    }
    return 2 * static_cast<double>(FirstOutputElements(x)) * k;
  }
  if (op == Opcode::kConvolution && x.conv && x.operand_count() == 2) {
    return XlaConvolutionFlops(x, x.shape);
  }
  if (op == Opcode::kSort && x.operand_count() >= 1) {
    const int64_t n = x.operand(0)->shape.ElementCount();
    return static_cast<double>(n) * static_cast<double>(Log2Ceiling(n));
  }
  if (op == Opcode::kConcatenate && x.operand_count() >= 1 &&
      !x.dimensions.empty()) {
    const int64_t dim = x.dimensions[0];
    const Shape& first = x.operand(0)->shape;
    const bool penalty =
        dim != 0 && dim < first.rank() && first.dims[dim] % 32 != 0;
    return static_cast<double>(x.shape.ElementCount()) * (penalty ? 400 : 6);
  }
  if (op == Opcode::kCustomCall) {
    // Every cuDNN convolution (forward, graph, backward input and filter,
    // bias-activation) is a convolution to XLA's cost analysis: its
    // operands 0 and 1 and its result, under its window and dim_labels.
    if (hlo::IsCudnnConvolution(x) && x.conv && x.operand_count() >= 2) {
      return XlaConvolutionFlops(x, hlo::LibraryCallResultShape(x));
    }
    if (std::unique_ptr<Instruction> as_op = hlo::LibraryCallAsOp(x)) {
      return XlaInstructionFlops(*as_op, device, unknown);
    }
    if (auto estimate = hlo::GetCustomCallCostEstimate(x); estimate.flops) {
      return static_cast<double>(*estimate.flops);
    }
    if (unknown && unknown->empty()) {
      *unknown = "custom call '" + x.name + "' (target " +
                 x.Attribute("custom_call_target") +
                 ") has no known cost: XLA counts -1";
    }
    return 0;
  }
  return 0;
}

int XlaCostAnalysis::OperandIndex(const Instruction* operand) const {
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] == operand) return static_cast<int>(i);
  }
  return -1;
}

float XlaCostAnalysis::UtilizationOf(const Instruction* operand) const {
  float u = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] == operand) u += operand_utilization[i];
  }
  return u;
}

int64_t XlaCostAnalysis::BytesOf(const Instruction* operand) const {
  const int i = OperandIndex(operand);
  return i < 0 ? 0 : operand_bytes[i];
}

float XlaCostAnalysis::CommonElementwiseUtilization(
    const Instruction* a, const Instruction* b) const {
  auto ra = use_roots.find(a), rb = use_roots.find(b);
  if (ra == use_roots.end() || rb == use_roots.end()) return 0;
  float sum = 0;
  for (const Instruction* r : ra->second) {
    if (std::find(rb->second.begin(), rb->second.end(), r) !=
        rb->second.end()) {
      auto w = root_utilization.find(r);
      if (w != root_utilization.end()) sum += w->second;
    }
  }
  return sum;
}

float XlaCostAnalysis::TimesEmitted(const Instruction* operand) const {
  if (!is_fusion) return 1;
  auto it = times_emitted.find(operand);
  return it == times_emitted.end() ? 0 : it->second;
}

XlaCostAnalysis AnalyzeXlaCost(const FusionRegion& region, bool is_fusion,
                               const hw::Device& device) {
  XlaCostAnalysis a;
  a.is_fusion = is_fusion;
  a.root = region.root;
  if (!is_fusion) {
    const Instruction& x = *region.root;
    a.operands = x.operands;
    for (int k = 0; k < x.operand_count(); ++k) {
      a.operand_utilization.push_back(XlaOperandUtilization(x, k));
      a.operand_bytes.push_back(UnfusedOperandBytes(x, k));
    }
    a.flops = static_cast<float>(XlaInstructionFlops(x, device, &a.unknown));
    a.bytes_written = UnfusedBytesWritten(x);
    a.ir_size = 1;
    return a;
  }
  std::unordered_set<const Instruction*> is_parameter(region.parameters.begin(),
                                                      region.parameters.end());
  std::unordered_map<const Instruction*, float> root_ir;
  a.root_utilization[region.root] = 1.f;
  root_ir[region.root] = 1.f;
  a.use_roots[region.root] = {region.root};
  float flops = 0, ir_size = 0;
  auto visit = [&](const Instruction* instr) {
    float u = 0, emitted = 0;
    for (const Instruction* r : a.use_roots[instr]) {
      u += a.root_utilization[r];
      emitted += root_ir[r];
    }
    a.utilization[instr] = u;
    a.times_emitted[instr] = emitted;
    ir_size += emitted;
    if (is_parameter.count(instr)) return;
    flops +=
        u * static_cast<float>(XlaInstructionFlops(*instr, device, &a.unknown));
    const bool passes =
        XlaIsElementwise(*instr) || instr->opcode == Opcode::kTuple ||
        instr->opcode == Opcode::kGetTupleElement ||
        (instr->opcode == Opcode::kBitcast && instr->operand_count() == 1 &&
         SameArrayDims(instr->shape, instr->operand(0)->shape));
    const bool in_place = XlaIsInPlaceDus(region, *instr);
    for (int k = 0; k < instr->operand_count(); ++k) {
      const Instruction* operand = instr->operand(k);
      std::vector<const Instruction*>& roots = a.use_roots[operand];
      if (passes) {
        // Copy first: `operand` may be `instr` itself in a malformed graph.
        const std::vector<const Instruction*> mine = a.use_roots[instr];
        for (const Instruction* r : mine) InsertUnique(&roots, r);
        continue;
      }
      InsertUnique(&roots, operand);
      float w = u * XlaOperandUtilization(*instr, k, in_place);
      const int64_t n = ElementsRecursive(operand->shape);
      w = n == 0 ? 0.f
                 : std::ceil(w * static_cast<float>(n)) / static_cast<float>(n);
      a.root_utilization[operand] += w;
      root_ir[operand] += emitted;
    }
  };
  for (auto it = region.members.rbegin(); it != region.members.rend(); ++it) {
    visit(*it);
  }
  for (const Instruction* p : region.parameters) {
    if (!a.utilization.count(p)) visit(p);
  }
  a.flops = flops;
  a.ir_size = ir_size;
  a.operands = region.parameters;
  for (const Instruction* p : region.parameters) {
    const float u = a.utilization[p];
    a.operand_utilization.push_back(u);
    int64_t bytes = 0;
    if (!p->shape.IsTuple()) {
      bytes = std::llround(static_cast<float>(XlaShapeSize(p->shape)) * u);
    } else {
      // A tuple parameter reads each leaf through its get-tuple-element
      // (the tuple's own pointer table where no such user exists).
      for (size_t i = 0; i < p->shape.tuple_elements.size(); ++i) {
        const Instruction* leaf = p;
        for (const Instruction* user : p->users) {
          if (user->opcode == Opcode::kGetTupleElement &&
              user->tuple_index == static_cast<int64_t>(i) &&
              a.utilization.count(user)) {
            leaf = user;
            break;
          }
        }
        bytes = SaturatingAdd(
            bytes, std::llround(static_cast<float>(XlaShapeSize(leaf->shape)) *
                                a.utilization[leaf]));
      }
    }
    a.operand_bytes.push_back(bytes);
  }
  AddFusedBytesWritten(region.root->shape, region.root, &a.bytes_written);
  return a;
}

}  // namespace ixa
