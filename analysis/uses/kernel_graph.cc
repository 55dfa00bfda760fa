#include "analysis/uses/kernel_graph.h"

#include <algorithm>
#include <unordered_set>

#include "analysis/hlo/printer.h"

namespace ixa {

using hlo::Instruction;

FusionRegion RegionOfGroup(const std::vector<const Instruction*>& members,
                           const Instruction* root) {
  FusionRegion region;
  region.root = root;
  region.members = members;
  if (!members.empty()) region.computation = members[0]->parent;
  std::unordered_set<const Instruction*> inside(members.begin(), members.end());
  std::unordered_set<const Instruction*> seen;
  for (const Instruction* m : members) {
    for (const Instruction* o : m->operands) {
      if (!inside.count(o) && seen.insert(o).second) {
        region.parameters.push_back(o);
      }
    }
  }
  return region;
}

namespace {

bool Inlinable(const Instruction& instr) {
  if (instr.opcode != hlo::Opcode::kFusion || !instr.called()) return false;
  // A custom fusion (a library kernel, a hand-written one) is not XLA's to
  // regroup.
  if (instr.Attribute("kind") == "kCustom") return false;
  const hlo::Computation& body = *instr.called();
  if (!body.root() || body.root()->opcode == hlo::Opcode::kParameter)
    return false;
  for (const Instruction* p : body.post_order()) {
    if (p->opcode == hlo::Opcode::kParameter &&
        (p->parameter_number < 0 ||
         p->parameter_number >= instr.operand_count())) {
      return false;
    }
  }
  return true;
}

// The instructions of `body` its root uses (directly or not).
std::unordered_set<const Instruction*> Used(const hlo::Computation& body) {
  std::unordered_set<const Instruction*> used;
  std::vector<const Instruction*> stack = {body.root()};
  while (!stack.empty()) {
    const Instruction* n = stack.back();
    stack.pop_back();
    if (!used.insert(n).second) continue;
    for (const Instruction* o : n->operands) stack.push_back(o);
  }
  return used;
}

}  // namespace

Result<FlatModule> FlattenFusions(const hlo::Module& module) {
  const hlo::Computation& entry = *module.entry();
  hlo::PrintNaming naming = hlo::SanitizedNaming();
  std::unordered_set<std::string> taken;
  for (const Instruction* i : entry.post_order()) {
    taken.insert(hlo::SanitizeHloName(i->name));
  }
  // Printed names of the instructions of inlined fusions (and of their
  // parameters: the fusion's operands).
  std::unordered_map<const Instruction*, std::string> renamed;
  struct Pending {
    std::vector<std::string> member_names;
    std::string kind;
  };
  std::unordered_map<std::string, Pending> inlined;
  std::string body;
  for (const Instruction* instr : entry.post_order()) {
    const std::string own = hlo::SanitizeHloName(instr->name);
    const bool is_root = instr == entry.root();
    if (!Inlinable(*instr)) {
      body += "  " +
              hlo::PrintInstruction(
                  *instr, own,
                  {[&](const Instruction* i) {
                     auto it = renamed.find(i);
                     return it != renamed.end() ? it->second
                                                : hlo::SanitizeHloName(i->name);
                   },
                   naming.computation},
                  is_root) +
              "\n";
      continue;
    }
    const hlo::Computation& fused = *instr->called();
    const std::unordered_set<const Instruction*> used = Used(fused);
    Pending& p = inlined[instr->name];
    p.kind = instr->Attribute("kind");
    auto name_of = [&](const Instruction* i) -> std::string {
      auto it = renamed.find(i);
      return it != renamed.end() ? it->second : hlo::SanitizeHloName(i->name);
    };
    for (const Instruction* f : fused.post_order()) {
      if (!used.count(f)) continue;
      if (f->opcode == hlo::Opcode::kParameter) {
        renamed[f] =
            name_of(instr->operand(static_cast<int>(f->parameter_number)));
        continue;
      }
      std::string name;
      if (f == fused.root()) {
        name = own;
      } else {
        const std::string base = own + "." + hlo::SanitizeHloName(f->name);
        name = base;
        for (int k = 2; taken.count(name); ++k) {
          name = base + "." + std::to_string(k);
        }
        taken.insert(name);
      }
      renamed[f] = name;
      p.member_names.push_back(name);
      body += "  " +
              hlo::PrintInstruction(*f, name, {name_of, naming.computation},
                                    is_root && f == fused.root()) +
              "\n";
    }
    // Users of the fusion name its root by the fusion's own name.
    renamed[instr] = own;
  }
  std::string text =
      "HloModule " + hlo::SanitizeHloName(module.name()) + "\n\n";
  for (const auto& c : module.computations()) {
    if (c.get() == &entry) continue;
    text += hlo::PrintComputation(*c, naming, false) + "\n";
  }
  text += "ENTRY " + naming.computation(&entry) + " {\n" + body + "}\n";
  auto parsed = hlo::ParseHloModule(text);
  if (!parsed.ok()) {
    return Error{ErrorCode::kInternal,
                 "the module with its fusions inlined does not read back: " +
                     parsed.error().message,
                 0, 0};
  }
  FlatModule flat;
  flat.module = std::move(parsed).value();
  flat.text = std::move(text);
  const hlo::Computation& flat_entry = *flat.module->entry();
  for (auto& [name, p] : inlined) {
    KernelGroup g;
    g.name = name;
    g.is_fusion = true;
    g.fusion_kind = p.kind;
    std::unordered_set<const Instruction*> set;
    for (const std::string& m : p.member_names) {
      if (const Instruction* i = flat_entry.Find(m)) set.insert(i);
    }
    for (const Instruction* i : flat_entry.post_order()) {
      if (set.count(i)) g.members.push_back(i);
    }
    g.root = flat_entry.Find(hlo::SanitizeHloName(name));
    for (const Instruction* m : g.members) flat.kernel_of[m] = name;
    flat.kernels[name] = std::move(g);
  }
  for (const Instruction* instr : entry.post_order()) {
    if (inlined.count(instr->name)) continue;
    const Instruction* flat_instr =
        flat_entry.Find(hlo::SanitizeHloName(instr->name));
    if (!flat_instr) continue;
    KernelGroup g;
    g.name = instr->name;
    g.members = {flat_instr};
    g.root = flat_instr;
    g.is_fusion = false;  // a fusion left as it is: an opaque op
    g.fusion_kind = instr->Attribute("kind");
    flat.kernel_of[flat_instr] = instr->name;
    flat.kernels[instr->name] = std::move(g);
  }
  return flat;
}

Result<FlatRegion> RegionOfEntryInstructions(
    const hlo::Module& module, const std::vector<std::string>& names) {
  IXA_ASSIGN_OR_RETURN(FusionRegion plain,
                       RegionOfInstructions(*module.entry(), names));
  const bool has_fusion = std::any_of(
      plain.members.begin(), plain.members.end(), [](const Instruction* m) {
        return m->opcode == hlo::Opcode::kFusion && Inlinable(*m);
      });
  if (!has_fusion) return FlatRegion{nullptr, std::move(plain)};
  IXA_ASSIGN_OR_RETURN(FlatModule flat_module, FlattenFusions(module));
  auto flat = std::make_shared<const FlatModule>(std::move(flat_module));
  std::unordered_set<const Instruction*> members;
  for (const Instruction* m : plain.members) {
    auto it = flat->kernels.find(m->name);
    if (it == flat->kernels.end()) {
      return Error{ErrorCode::kInternal,
                   "instruction '" + m->name +
                       "' has no kernel in the module with its fusions inlined",
                   0, 0};
    }
    members.insert(it->second.members.begin(), it->second.members.end());
  }
  std::vector<const Instruction*> ordered;
  for (const Instruction* i : flat->module->entry()->post_order()) {
    if (members.count(i)) ordered.push_back(i);
  }
  const Instruction* root = flat->kernels.at(plain.root->name).root;
  FlatRegion result{flat, RegionOfGroup(ordered, root)};
  return result;
}

}  // namespace ixa
