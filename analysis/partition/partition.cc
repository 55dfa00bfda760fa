#include "analysis/partition/partition.h"

#include <optional>

#include "analysis/indexing/indexing.h"

namespace ixa {

using hlo::Instruction;

bool IsHeroSubgraphRoot(const Instruction& instr) {
  if (instr.opcode == hlo::Opcode::kReduce) return true;
  if (instr.opcode == hlo::Opcode::kTranspose) {
    const std::vector<int64_t>& p = instr.dimensions;
    return !p.empty() && p.back() != static_cast<int64_t>(p.size()) - 1;
  }
  return false;
}

Result<PartitionedComputation> PartitionComputation(
    const hlo::Computation& computation, ExprContext* ctx,
    const std::function<bool(const Instruction&)>& is_subgraph_root) {
  PartitionedComputation result;
  const Instruction* root = computation.root();
  const bool root_is_tuple = root->opcode == hlo::Opcode::kTuple;
  // Maps from the subgraph root's output to each instruction's output;
  // nullopt when some op on the way has no map (then sharing it with
  // several users cannot be shown safe).
  std::unordered_map<const Instruction*, std::optional<IndexingMapSet>> maps;

  const auto& post = computation.post_order();
  for (auto it = post.rbegin(); it != post.rend(); ++it) {
    const Instruction* instr = *it;
    if (instr->opcode == hlo::Opcode::kParameter) continue;
    if (root_is_tuple && instr == root) continue;
    std::vector<const Instruction*> users;
    bool used_by_root_tuple = false;
    for (const Instruction* u : instr->users) {
      if (root_is_tuple && u == root) {
        used_by_root_tuple = true;
      } else {
        users.push_back(u);
      }
    }
    bool is_root = instr == root || users.empty() || used_by_root_tuple ||
                   is_subgraph_root(*instr);
    int subgraph = -1;
    if (!is_root) {
      subgraph = result.subgraph_of.at(users[0]);
      for (const Instruction* u : users) {
        if (result.subgraph_of.at(u) != subgraph) is_root = true;
      }
    }
    std::optional<IndexingMapSet> reached;
    if (!is_root) {
      // Compose the root -> user maps with each user's map to this operand.
      reached.emplace();
      for (const Instruction* u : users) {
        const std::optional<IndexingMapSet>& to_user = maps[u];
        if (!to_user) {
          reached.reset();
          break;
        }
        for (int out = 0; out < OutputCount(*u) && reached; ++out) {
          auto step = ComputeOutputToInputIndexing(*u, out, ctx);
          if (!step.ok()) {
            reached.reset();
            break;
          }
          for (int k = 0; k < u->operand_count(); ++k) {
            if (u->operand(k) != instr) continue;
            for (const IndexingMap& a : *to_user) {
              for (const IndexingMap& b : step->indexing_maps[k]) {
                auto composed = ComposeIndexingMaps(a, b);
                if (!composed.ok()) return composed.error();
                FinishMap(&composed.value());
                reached->Insert(std::move(composed).value());
              }
            }
          }
        }
      }
      // One user may be emitted with it whatever its access; several users
      // only when they agree on one map.
      if (users.size() > 1 && (!reached || reached->size() != 1)) {
        is_root = true;
      }
    }
    if (is_root) {
      subgraph = static_cast<int>(result.subgraphs.size());
      result.subgraphs.push_back({instr, {}});
      IndexingMapSet identity;
      if (instr->shape.IsArray()) {
        IndexingMap id = IndexingMap::Identity(ctx, instr->shape.dims);
        FinishMap(&id);
        identity.Insert(std::move(id));
        reached = std::move(identity);
      } else {
        reached.reset();  // tuple-shaped roots: no single map
      }
    }
    maps[instr] = std::move(reached);
    result.subgraph_of[instr] = subgraph;
  }
  // Members in operands-first order.
  for (const Instruction* instr : post) {
    auto found = result.subgraph_of.find(instr);
    if (found == result.subgraph_of.end()) continue;
    result.subgraphs[found->second].instructions.push_back(instr);
  }
  return result;
}

}  // namespace ixa
