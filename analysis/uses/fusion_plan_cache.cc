#include "analysis/uses/fusion_plan_cache.h"

#include "analysis/hlo/printer.h"

namespace ixa {

KernelSummary SummarizeKernel(const KernelInfo& info) {
  KernelSummary s;
  s.exec_us = info.exec_us();
  s.time_unknown = info.time_unknown;
  s.launch_kind = info.launch.kind;
  s.fusible = IsFusibleKernel(info.Legality());
  return s;
}

PairSummary SummarizePair(const PairEstimate& pair) {
  PairSummary s;
  s.legal = pair.legality.legal;
  s.rule = pair.legality.rule;
  if (pair.fused) s.fused_exec_us = pair.fused->exec_us;
  return s;
}

// The instruction's text with every name (its own, its operands') left
// out, interned: one id per distinct text. At most one entry per
// instruction of the module.
int32_t RegionKeys::TextId(const hlo::Instruction* instr) {
  auto it = text_id_of_.find(instr);
  if (it != text_id_of_.end()) return it->second;
  static const hlo::PrintNaming kNameless{
      [](const hlo::Instruction*) { return std::string("_"); },
      [](const hlo::Computation* c) { return c->name(); }};
  std::string text = hlo::PrintInstruction(*instr, "_", kNameless, false);
  const int32_t id =
      text_ids_.emplace(std::move(text), static_cast<int32_t>(text_ids_.size()))
          .first->second;
  text_id_of_.emplace(instr, id);
  return id;
}

std::vector<int32_t> RegionKeys::Key(
    const std::vector<const hlo::Instruction*>& members,
    const hlo::Instruction* root, const std::vector<int32_t>& tags,
    std::initializer_list<int32_t> flags) {
  std::vector<int32_t> key;
  key.reserve(members.size() * 8 + 8);
  local_.clear();
  const int32_t n = static_cast<int32_t>(members.size());
  for (int32_t i = 0; i < n; ++i) local_.emplace(members[i], i);
  std::vector<const hlo::Instruction*> parameters;
  key.push_back(n);
  for (int32_t i = 0; i < n; ++i) {
    const hlo::Instruction* m = members[i];
    key.push_back(TextId(m));
    key.push_back(tags.empty() ? 0 : tags[i]);
    key.push_back(m == computation_root_);
    key.push_back(static_cast<int32_t>(m->operands.size()));
    for (const hlo::Instruction* o : m->operands) {
      auto [it, added] =
          local_.emplace(o, n + static_cast<int32_t>(parameters.size()));
      if (added) parameters.push_back(o);
      key.push_back(it->second);
    }
  }
  key.push_back(root ? local_.at(root) : -1);
  key.push_back(static_cast<int32_t>(parameters.size()));
  for (const hlo::Instruction* p : parameters) {
    key.push_back(TextId(p));
    key.push_back(p == computation_root_);
  }
  // Users inside the group, in their order, of members and parameters.
  auto users_inside = [&](const hlo::Instruction* x) {
    const size_t count_at = key.size();
    key.push_back(0);
    for (const hlo::Instruction* u : x->users) {
      auto it = local_.find(u);
      if (it == local_.end() || it->second >= n) continue;
      key.push_back(it->second);
      ++key[count_at];
    }
  };
  for (const hlo::Instruction* m : members) users_inside(m);
  for (const hlo::Instruction* p : parameters) users_inside(p);
  key.insert(key.end(), flags.begin(), flags.end());
  return key;
}

size_t RegionKeyHash::operator()(const std::vector<int32_t>& key) const {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int32_t v : key) {
    h ^= static_cast<uint32_t>(v);
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return static_cast<size_t>(h);
}

}  // namespace ixa
