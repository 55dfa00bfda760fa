#include "analysis/hlo/printer.h"

#include <cctype>

namespace ixa::hlo {

std::string SanitizeHloName(std::string_view name) {
  std::string out;
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                    c == '.' || c == '-' || c == '$';
    out += ok ? c : '_';
  }
  return out.empty() ? "_" : out;
}

PrintNaming SanitizedNaming() {
  PrintNaming n;
  n.instruction = [](const Instruction* i) { return SanitizeHloName(i->name); };
  n.computation = [](const Computation* c) {
    return SanitizeHloName(c->name());
  };
  return n;
}

std::string PrintInstruction(const Instruction& instr, const std::string& name,
                             const PrintNaming& naming, bool is_root) {
  std::string out = is_root ? "ROOT " : "";
  out += name + " = " + instr.shape.ToString(/*with_layout=*/true) + " " +
         OpcodeName(instr) + "(";
  if (instr.opcode == Opcode::kParameter) {
    out += std::to_string(instr.parameter_number);
  } else if (instr.opcode == Opcode::kConstant) {
    out += instr.literal;
  } else {
    for (int i = 0; i < instr.operand_count(); ++i) {
      if (i) out += ", ";
      out += naming.instruction(instr.operand(i));
    }
  }
  out += ")";
  bool has_index = false;
  for (const auto& [key, raw] : instr.attributes) {
    std::string value = raw;
    // A called computation whose printed name differs (an inline body).
    for (const Computation* c : instr.called_computations) {
      if (raw == c->name()) value = naming.computation(c);
    }
    has_index |= key == "index";
    out += ", " + key + "=" + value;
  }
  if (instr.opcode == Opcode::kGetTupleElement && !has_index) {
    out += ", index=" + std::to_string(instr.tuple_index);
  }
  return out;
}

std::string PrintComputation(const Computation& computation,
                             const PrintNaming& naming, bool entry) {
  std::string out = entry ? "ENTRY " : "";
  out += naming.computation(&computation) + " {\n";
  for (const Instruction* instr : computation.post_order()) {
    out += "  " +
           PrintInstruction(*instr, naming.instruction(instr), naming,
                            instr == computation.root()) +
           "\n";
  }
  out += "}";
  for (const auto& [key, raw] : computation.attributes()) {
    out += ", " + key + "=" + raw;
  }
  return out + "\n";
}

std::string ModuleHeader(const Module& module) {
  std::string out = "HloModule " + SanitizeHloName(module.name());
  if (module.replica_count() != 1) {
    out += ", replica_count=" + std::to_string(module.replica_count());
  }
  if (module.num_partitions() != 1) {
    out += ", num_partitions=" + std::to_string(module.num_partitions());
  }
  return out;
}

std::string PrintModule(const Module& module) {
  const PrintNaming naming = SanitizedNaming();
  std::string out = ModuleHeader(module) + "\n\n";
  for (const auto& c : module.computations()) {
    if (c.get() == module.entry()) continue;
    out += PrintComputation(*c, naming, false) + "\n";
  }
  if (module.entry()) out += PrintComputation(*module.entry(), naming, true);
  return out;
}

}  // namespace ixa::hlo
