#include "analysis/hlo/module.h"

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
  int first = instr.opcode == Opcode::kDynamicSlice         ? 1
              : instr.opcode == Opcode::kDynamicUpdateSlice ? 2
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

}  // namespace ixa::hlo
