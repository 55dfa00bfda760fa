#include "analysis/hlo/module.h"

#include <algorithm>
#include <array>

namespace ixa::hlo {

std::string Instruction::Attribute(std::string_view name) const {
  auto it = attributes.find(std::string(name));
  return it == attributes.end() ? std::string() : it->second;
}

const Instruction* Computation::parameter(int64_t i) const {
  if (i < 0 || i >= parameter_count()) return nullptr;
  return parameters_[i];
}

const Instruction* Computation::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const Computation* Module::FindComputation(std::string_view name) const {
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

const Instruction* Module::FindInstruction(std::string_view name) const {
  if (entry_) {
    if (const Instruction* i = entry_->Find(name)) return i;
  }
  for (const auto& c : computations_) {
    if (const Instruction* i = c->Find(name)) return i;
  }
  return nullptr;
}

int OffsetVectorOperand(const Instruction& instr) {
  int first = instr.opcode == "dynamic-slice"          ? 1
              : instr.opcode == "dynamic-update-slice" ? 2
                                                       : -1;
  if (first < 0 || instr.operand_count() != first + 1) return -1;
  const Shape& offsets = instr.operand(first)->shape;
  const Shape& operand = instr.operand(0)->shape;
  if (!offsets.IsArray() || offsets.rank() != 1 || operand.rank() == 0 ||
      offsets.dims[0] != operand.rank()) {
    return -1;
  }
  return first;
}

bool IsElementwiseOpcode(std::string_view opcode) {
  static constexpr std::array<std::string_view, 61> kOps = {
      "abs",
      "add",
      "and",
      "atan2",
      "bitcast-convert",
      "cbrt",
      "ceil",
      "clamp",
      "clz",  // not XLA's name; kept for older inputs
      "count-leading-zeros",
      "compare",
      "complex",
      "convert",
      "copy",
      "cosine",
      "divide",
      "erf",
      "exponential",
      "exponential-minus-one",
      "floor",
      "imag",
      "is-finite",
      "log",
      "log-plus-one",
      "logistic",
      "map",
      "maximum",
      "minimum",
      "multiply",
      "negate",
      "not",
      "or",
      "popcnt",
      "power",
      "real",
      "reduce-precision",
      "remainder",
      "round-nearest-afz",
      "round-nearest-even",
      "rsqrt",
      "select",
      "shift-left",
      "shift-right-arithmetic",
      "shift-right-logical",
      "sign",
      "sine",
      "sqrt",
      "stochastic-convert",
      "subtract",
      "tan",
      "tanh",
      "xor",
      "optimization-barrier",
      "acos",
      "acosh",
      "asin",
      "asinh",
      "atan",
      "atanh",
      "cosh",
      "sinh",
  };
  return std::find(kOps.begin(), kOps.end(), opcode) != kOps.end();
}

}  // namespace ixa::hlo
