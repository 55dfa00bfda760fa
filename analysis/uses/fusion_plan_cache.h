// What fusion_plan keeps of a kernel's and of a pair's cost, and caches of
// them by the structure of the region, so that the same kernel met again
// elsewhere in a module (a repeated layer, the same producer and consumer
// in the next block) is costed once.
//
// The structure of a group of instructions is what the analyses read of
// it: per member, in post order, its text without names (opcode, shape
// with layout, attributes, literal, called computations), its operands as
// members or as the region's parameters in order of first use, and its
// users inside the group in their order; per parameter, its own text
// without names; which of them is the computation's root. Two groups with
// the same structure get the same answers: the cached values hold no
// instruction and no name.
#ifndef IXA_ANALYSIS_USES_FUSION_PLAN_CACHE_H_
#define IXA_ANALYSIS_USES_FUSION_PLAN_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/emitters/plan.h"
#include "analysis/hlo/module.h"
#include "analysis/uses/fusion_pair.h"

namespace ixa {

// What the planner reads of a kernel.
struct KernelSummary {
  double exec_us = 0;
  std::string time_unknown;  // empty when the time is known
  EmitterKind launch_kind = EmitterKind::kLoop;
  bool fusible = false;  // IsFusibleKernel
};
KernelSummary SummarizeKernel(const KernelInfo& info);

// What the planner reads of a producer fused into a consumer.
struct PairSummary {
  bool legal = true;
  std::string rule;                     // the refusing rule, when not legal
  std::optional<double> fused_exec_us;  // set when the fused kernel was costed
};
PairSummary SummarizePair(const PairEstimate& pair);

// Structural keys of groups of one computation's instructions.
class RegionKeys {
 public:
  explicit RegionKeys(const hlo::Instruction* computation_root)
      : computation_root_(computation_root) {}

  // `members` in post order; `tags` (optional, one per member) marks which
  // side of a pair each member belongs to; `flags` are appended as given.
  std::vector<int32_t> Key(const std::vector<const hlo::Instruction*>& members,
                           const hlo::Instruction* root,
                           const std::vector<int32_t>& tags,
                           std::initializer_list<int32_t> flags);

 private:
  int32_t TextId(const hlo::Instruction* instr);

  const hlo::Instruction* computation_root_;
  std::unordered_map<const hlo::Instruction*, int32_t> text_id_of_;
  std::unordered_map<std::string, int32_t> text_ids_;
  std::unordered_map<const hlo::Instruction*, int32_t> local_;  // scratch
};

struct RegionKeyHash {
  size_t operator()(const std::vector<int32_t>& key) const;
};

// A cache of values by structural key with a budget on the keys' total
// size: once it is spent, nothing more is kept (the answers stay the same,
// only slower).
template <typename Value>
class StructuralCache {
 public:
  explicit StructuralCache(size_t budget_bytes) : budget_(budget_bytes) {}

  const Value* Find(const std::vector<int32_t>& key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }
  void Insert(std::vector<int32_t> key, Value value) {
    const size_t bytes = key.size() * sizeof(int32_t) + sizeof(Value) + 64;
    if (used_ + bytes > budget_) return;
    used_ += bytes;
    entries_.emplace(std::move(key), std::move(value));
  }
  size_t size() const { return entries_.size(); }

 private:
  size_t budget_;
  size_t used_ = 0;
  std::unordered_map<std::vector<int32_t>, Value, RegionKeyHash> entries_;
};

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_FUSION_PLAN_CACHE_H_
