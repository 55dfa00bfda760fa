#include <algorithm>

#include "analysis/emitters/internal.h"
#include "analysis/hlo/printer.h"
#include "analysis/prefusion/internal.h"

namespace ixa::prefusion {

ModuleEdit::ModuleEdit(const hlo::Module& module) : module_(module) {
  for (const auto& c : module.computations()) {
    taken_.insert(NameOf(*c));
    for (const auto& i : c->instructions()) taken_.insert(NameOf(*i));
  }
}

std::string ModuleEdit::NewComputationName(const std::string& stem) {
  const std::string base = hlo::SanitizeHloName(stem);
  std::string name = base;
  for (int n = 2; taken_.count(name); ++n) {
    name = base + "." + std::to_string(n);
  }
  taken_.insert(name);
  return name;
}

void ModuleEdit::AddComputation(std::string text) {
  new_computations_.push_back(std::move(text));
}

std::string ModuleEdit::NewName(const hlo::Instruction& base,
                                const std::string& suffix) {
  const std::string stem = NameOf(base) + "." + suffix;
  std::string name = stem;
  for (int n = 2; taken_.count(name); ++n) {
    name = stem + "." + std::to_string(n);
  }
  taken_.insert(name);
  return name;
}

void ModuleEdit::Replace(const hlo::Instruction* instr,
                         std::vector<std::string> lines) {
  IXA_CHECK(!lines.empty());
  replacements_[instr] = std::move(lines);
}

void ModuleEdit::Remove(const hlo::Instruction* instr) {
  replacements_[instr] = {};
}

Result<std::unique_ptr<hlo::Module>> ModuleEdit::Apply(
    const std::string& pass) const {
  const hlo::PrintNaming naming = hlo::SanitizedNaming();
  auto print = [&](const hlo::Computation& c, bool entry) {
    std::string out = (entry ? "ENTRY " : "") + naming.computation(&c) + " {\n";
    for (const hlo::Instruction* instr : c.post_order()) {
      const bool is_root = instr == c.root();
      auto it = replacements_.find(instr);
      if (it == replacements_.end()) {
        out += "  " +
               hlo::PrintInstruction(*instr, naming.instruction(instr), naming,
                                     is_root) +
               "\n";
        continue;
      }
      const std::vector<std::string>& lines = it->second;
      // A removed instruction (its users replaced too).
      if (lines.empty()) continue;
      for (size_t k = 0; k < lines.size(); ++k) {
        const bool last = k + 1 == lines.size();
        out += std::string("  ") + (last && is_root ? "ROOT " : "") + lines[k] +
               "\n";
      }
    }
    out += "}";
    for (const auto& [key, raw] : c.attributes()) out += ", " + key + "=" + raw;
    return out + "\n";
  };
  std::string text = hlo::ModuleHeader(module_) + "\n\n";
  for (const std::string& c : new_computations_) text += c + "\n";
  for (const auto& c : module_.computations()) {
    if (c.get() != module_.entry()) text += print(*c, false) + "\n";
  }
  if (module_.entry()) text += print(*module_.entry(), true);
  auto module = hlo::ParseHloModule(text);
  if (!module.ok()) {
    return Error{ErrorCode::kInternal,
                 pass + " wrote a module that does not read back: " +
                     module.error().message,
                 0, 0};
  }
  return module;
}

std::unordered_set<const hlo::Computation*> SkippedComputations(
    const hlo::Module& module, FusionBodies bodies) {
  std::unordered_set<const hlo::Computation*> skipped;
  for (const auto& c : module.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->opcode != hlo::Opcode::kFusion || !i->called()) continue;
      const std::string kind = i->Attribute("kind");
      if (bodies == FusionBodies::kSkip ||
          (kind != "kLoop" && kind != "kInput")) {
        skipped.insert(i->called());
      }
    }
  }
  return skipped;
}

std::string NameOf(const hlo::Instruction& instr) {
  return hlo::SanitizeHloName(instr.name);
}

std::string NameOf(const hlo::Computation& computation) {
  return hlo::SanitizeHloName(computation.name());
}

std::vector<int64_t> DescendingLayout(int rank) {
  std::vector<int64_t> m2m(rank);
  for (int i = 0; i < rank; ++i) m2m[i] = rank - 1 - i;
  return m2m;
}

bool HasDescendingLayout(const hlo::Shape& shape) {
  if (shape.layout && !shape.layout->tiles.empty()) return false;
  return shape.MinorToMajor() == DescendingLayout(shape.rank());
}

hlo::Shape ArrayShape(hlo::ElementType type, std::vector<int64_t> dims,
                      std::vector<int64_t> minor_to_major) {
  hlo::Shape s = hlo::Shape::Array(type, std::move(dims));
  s.layout = hlo::Layout{};
  s.layout->minor_to_major = std::move(minor_to_major);
  return s;
}

std::string ShapeText(const hlo::Shape& shape) {
  if (shape.IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
      out += (i ? ", " : "") + ShapeText(shape.tuple_elements[i]);
    }
    return out + ")";
  }
  if (shape.IsArray() && !shape.layout) {
    hlo::Shape with = shape;
    with.layout = hlo::Layout{};
    with.layout->minor_to_major = DescendingLayout(shape.rank());
    return with.ToString(/*with_layout=*/true);
  }
  return shape.ToString(/*with_layout=*/true);
}

std::string Line(const std::string& name, const hlo::Shape& shape,
                 const std::string& opcode,
                 const std::vector<std::string>& operands,
                 const std::string& attributes) {
  std::string out = name + " = " + ShapeText(shape) + " " + opcode + "(";
  for (size_t i = 0; i < operands.size(); ++i) {
    out += (i ? ", " : "") + operands[i];
  }
  out += ")";
  if (!attributes.empty()) out += ", " + attributes;
  return out;
}

std::string IntList(const std::vector<int64_t>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? "," : "") + std::to_string(values[i]);
  }
  return out + "}";
}

std::string ReshapeOpcode(const hlo::Shape& from, const hlo::Shape& to) {
  return emitters::ReshapeIsBitcast(from, to) ? "bitcast" : "reshape";
}

std::optional<ReduceParts> GetReduceParts(const hlo::Instruction& instr) {
  if (instr.opcode != hlo::Opcode::kReduce || instr.operand_count() < 2 ||
      instr.operand_count() % 2 != 0 || !instr.called()) {
    return std::nullopt;
  }
  const int k = instr.operand_count() / 2;
  ReduceParts parts;
  for (int i = 0; i < k; ++i) {
    const hlo::Shape& in = instr.operand(i)->shape;
    if (!in.IsArray() || in.dynamic_mask != 0 ||
        in.dims != instr.operand(0)->shape.dims) {
      return std::nullopt;
    }
    parts.inputs.push_back(instr.operand(i));
    parts.inits.push_back(instr.operand(k + i));
  }
  if (k == 1) {
    if (!instr.shape.IsArray()) return std::nullopt;
    parts.outputs.push_back(instr.shape);
  } else {
    if (!instr.shape.IsTuple() ||
        static_cast<int>(instr.shape.tuple_elements.size()) != k) {
      return std::nullopt;
    }
    parts.outputs = instr.shape.tuple_elements;
  }
  for (const hlo::Shape& s : parts.outputs) {
    if (!s.IsArray() || s.dynamic_mask != 0) return std::nullopt;
  }
  return parts;
}

std::vector<std::string> ReduceLines(const hlo::Instruction& reduce,
                                     const std::string& name,
                                     const std::vector<std::string>& inputs,
                                     const std::vector<hlo::Shape>& outputs,
                                     const std::vector<int64_t>& dimensions,
                                     ModuleEdit* edit,
                                     std::vector<std::string>* element_names) {
  const int k = static_cast<int>(inputs.size());
  std::vector<std::string> operands = inputs;
  for (int i = 0; i < k; ++i) {
    operands.push_back(NameOf(*reduce.operand(k + i)));
  }
  hlo::Shape shape;
  if (k == 1) {
    shape = outputs[0];
  } else {
    shape.type = hlo::ElementType::kTuple;
    shape.tuple_elements = outputs;
  }
  std::vector<std::string> lines = {
      Line(name, shape, "reduce", operands,
           "dimensions=" + IntList(dimensions) +
               ", to_apply=" + NameOf(*reduce.called()))};
  if (element_names) {
    element_names->clear();
    if (k == 1) {
      element_names->push_back(name);
    } else {
      for (int i = 0; i < k; ++i) {
        const std::string gte =
            edit->NewName(reduce, "element" + std::to_string(i));
        lines.push_back(Line(gte, outputs[i], "get-tuple-element", {name},
                             "index=" + std::to_string(i)));
        element_names->push_back(gte);
      }
    }
  }
  return lines;
}

std::string InstructionExpansion::Add(const std::string& suffix,
                                      const hlo::Shape& shape,
                                      const std::string& opcode,
                                      const std::vector<std::string>& operands,
                                      const std::string& attributes) {
  const std::string name = edit_->NewName(instr_, suffix);
  lines_.push_back(Line(name, shape, opcode, operands, attributes));
  return name;
}

std::string InstructionExpansion::Constant(const std::string& suffix,
                                           hlo::ElementType type,
                                           const std::string& literal) {
  const std::string name = edit_->NewName(instr_, suffix);
  lines_.push_back(name + " = " + ShapeText(hlo::Shape::Array(type, {})) +
                   " constant(" + literal + ")");
  return name;
}

std::string InstructionExpansion::Broadcast(const std::string& suffix,
                                            const std::string& operand,
                                            const hlo::Shape& shape,
                                            const std::vector<int64_t>& dims) {
  return Add(suffix, shape, "broadcast", {operand},
             "dimensions=" + IntList(dims));
}

void InstructionExpansion::Finish(const hlo::Shape& shape,
                                  const std::string& opcode,
                                  const std::vector<std::string>& operands,
                                  const std::string& attributes) {
  lines_.push_back(Line(NameOf(instr_), shape, opcode, operands, attributes));
  edit_->Replace(&instr_, std::move(lines_));
}

void InstructionExpansion::Finish(const std::string& opcode,
                                  const std::vector<std::string>& operands,
                                  const std::string& attributes) {
  Finish(instr_.shape, opcode, operands, attributes);
}

}  // namespace ixa::prefusion
