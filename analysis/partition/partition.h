// The computation partitioner (docs/emitters.md "Computation partitioner"):
// splits a fusion's computation into subgraphs that can each be emitted as
// one function without re-emitting an instruction per access pattern.
//
// An instruction joins its users' subgraph when they all sit in one
// subgraph and either it has a single user, or every user reads it through
// the same indexing map from that subgraph's root. Otherwise it roots its
// own subgraph. Parameters belong to no subgraph (they are function
// arguments); the operands of a root tuple are roots.
#ifndef IXA_ANALYSIS_PARTITION_PARTITION_H_
#define IXA_ANALYSIS_PARTITION_PARTITION_H_

#include <functional>
#include <unordered_map>
#include <vector>

#include "analysis/hlo/module.h"
#include "core/expr.h"
#include "core/result.h"

namespace ixa {

struct Subgraph {
  const hlo::Instruction* root = nullptr;
  std::vector<const hlo::Instruction*> instructions;  // operands first
};

struct PartitionedComputation {
  // The subgraph of the computation's root first, then in the order their
  // roots are met walking from the root to the parameters.
  std::vector<Subgraph> subgraphs;
  std::unordered_map<const hlo::Instruction*, int> subgraph_of;
};

// The hero choice of the emitters: a transpose that moves the minor-most
// dimension (the transpose emitter's hero, docs/emitters.md) and a reduce
// (the reduction emitter's) are always subgraph roots.
bool IsHeroSubgraphRoot(const hlo::Instruction& instr);

Result<PartitionedComputation> PartitionComputation(
    const hlo::Computation& computation, ExprContext* ctx,
    const std::function<bool(const hlo::Instruction&)>& is_subgraph_root =
        IsHeroSubgraphRoot);

}  // namespace ixa

#endif  // IXA_ANALYSIS_PARTITION_PARTITION_H_
