#include "analysis/fusion/fusion.h"

#include <algorithm>
#include <unordered_set>

#include "analysis/indexing/internal.h"
#include "core/budget.h"

namespace ixa {

using hlo::Computation;
using hlo::Instruction;

FusionRegion RegionOfComputation(const Computation& computation) {
  FusionRegion region;
  region.computation = &computation;
  region.root = computation.root();
  region.members = computation.post_order();
  for (int64_t i = 0; i < computation.parameter_count(); ++i) {
    region.parameters.push_back(computation.parameter(i));
  }
  return region;
}

Result<FusionRegion> RegionOfInstructions(
    const Computation& computation, const std::vector<std::string>& names) {
  if (names.empty()) return Error::Invalid("no instructions given");
  std::unordered_set<const Instruction*> set;
  for (const std::string& n : names) {
    const Instruction* instr = computation.Find(n);
    if (!instr) {
      return Error::Invalid("no instruction '" + n + "' in computation '" +
                            computation.name() + "'");
    }
    set.insert(instr);
  }
  FusionRegion region;
  region.computation = &computation;
  std::unordered_set<const Instruction*> seen_inputs;
  for (const Instruction* instr : computation.post_order()) {
    if (!set.count(instr)) continue;
    region.members.push_back(instr);
    for (const Instruction* o : instr->operands) {
      if (!set.count(o) && seen_inputs.insert(o).second) {
        region.parameters.push_back(o);
      }
    }
    bool used_inside =
        std::any_of(instr->users.begin(), instr->users.end(),
                    [&](const Instruction* u) { return set.count(u) > 0; });
    if (!used_inside) {
      if (region.root) {
        return Error::Invalid("instructions '" + region.root->name + "' and '" +
                              instr->name +
                              "' are both unused by the others: the group "
                              "needs a single root");
      }
      region.root = instr;
    }
  }
  return region;
}

Result<FusionRegion> ResolveFusion(const hlo::Module& module,
                                   const std::string& name) {
  if (name.empty()) {
    const Instruction* root = module.entry()->root();
    if (root->opcode == "fusion" && root->called()) {
      return RegionOfComputation(*root->called());
    }
    return RegionOfComputation(*module.entry());
  }
  if (const Instruction* instr = module.FindInstruction(name)) {
    if ((instr->opcode == "fusion" || instr->opcode == "call") &&
        instr->called()) {
      return RegionOfComputation(*instr->called());
    }
  }
  if (const Computation* c = module.FindComputation(name)) {
    return RegionOfComputation(*c);
  }
  return Error::Invalid("no fusion or computation named '" + name + "'");
}

std::vector<IndexingMap> GroupedIndexing::MapsOf(
    const Instruction* instr) const {
  std::vector<IndexingMap> out;
  auto it = maps.find(instr);
  if (it == maps.end()) return out;
  for (const IndexingMapSet& set : it->second) {
    for (const IndexingMap& m : set) out.push_back(m);
  }
  return out;
}

namespace {

// Which output of `operand` instruction `user` reads: get-tuple-element
// picks its element; everything else reads an array.
int ReadOutput(const Instruction& user) {
  return user.opcode == "get-tuple-element" ? user.tuple_index : 0;
}

}  // namespace

Result<GroupedIndexing> ComputeGroupedOutputToInputIndexing(
    const FusionRegion& region, int output_id, ExprContext* ctx,
    size_t max_maps_per_instruction) {
  GroupedIndexing result;
  const Instruction* root = region.root;
  if (output_id < 0 || output_id >= OutputCount(*root)) {
    return Error::Invalid("'" + root->name + "' has no output " +
                          std::to_string(output_id));
  }
  auto sets_of = [&](const Instruction* instr) -> std::vector<IndexingMapSet>& {
    auto [it, inserted] = result.maps.try_emplace(instr);
    if (inserted) {
      it->second.resize(OutputCount(*instr));
      result.order.push_back(instr);
    }
    return it->second;
  };
  IndexingMap seed = IndexingMap::Identity(ctx, OutputDims(*root, output_id));
  FinishMap(&seed);
  sets_of(root)[output_id].Insert(std::move(seed));

  // Users before operands: every consumer map of an instruction is known
  // before it is pushed to the instruction's operands.
  for (auto it = region.members.rbegin(); it != region.members.rend(); ++it) {
    const Instruction* instr = *it;
    auto found = result.maps.find(instr);
    if (found == result.maps.end() || instr->operands.empty()) continue;
    if (instr->opcode == "parameter") continue;
    // Copied: inserting operands may rehash the map.
    std::vector<IndexingMapSet> consumer_sets = found->second;
    for (int out = 0; out < static_cast<int>(consumer_sets.size()); ++out) {
      if (consumer_sets[out].empty()) continue;
      IXA_ASSIGN_OR_RETURN(HloInstructionIndexing operand_maps,
                           ComputeOutputToInputIndexing(*instr, out, ctx));
      for (int k = 0; k < instr->operand_count(); ++k) {
        const Instruction* operand = instr->operand(k);
        if (k >= static_cast<int>(operand_maps.indexing_maps.size()) ||
            operand_maps.indexing_maps[k].empty()) {
          continue;
        }
        int target = ReadOutput(*instr);
        if (operand->shape.IsTuple() && instr->opcode != "get-tuple-element") {
          return Error::Unsupported("'" + instr->name + "' (" + instr->opcode +
                                    ") reads a whole tuple: no map");
        }
        IndexingMapSet& into = sets_of(operand)[target];
        for (const IndexingMap& consumer : consumer_sets[out]) {
          for (const IndexingMap& producer : operand_maps.indexing_maps[k]) {
            if (DeadlineExpired("fusion_indexing")) return DeadlineError();
            IXA_ASSIGN_OR_RETURN(
                IndexingMap composed,
                indexing_internal::ComposeWithProducers(consumer, producer));
            FinishMap(&composed);
            into.Insert(std::move(composed));
            if (into.size() > max_maps_per_instruction) {
              return Error::Limit(
                  "more than " + std::to_string(max_maps_per_instruction) +
                  " distinct maps reach '" + operand->name + "'");
            }
          }
        }
      }
    }
  }
  return result;
}

Result<std::vector<IndexingMapSet>> ComputeFusionParameterIndexing(
    const FusionRegion& region, int output_id, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(
      GroupedIndexing grouped,
      ComputeGroupedOutputToInputIndexing(region, output_id, ctx));
  std::vector<IndexingMapSet> out(region.parameters.size());
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    for (const IndexingMap& m : grouped.MapsOf(region.parameters[i])) {
      out[i].Insert(m);
    }
  }
  return out;
}

Result<std::vector<IndexingMapSet>> ComputeFusionInputToOutputIndexing(
    const FusionRegion& region, int parameter, ExprContext* ctx) {
  if (parameter < 0 ||
      parameter >= static_cast<int>(region.parameters.size())) {
    return Error::Invalid("the fusion has no parameter " +
                          std::to_string(parameter));
  }
  const Instruction* source = region.parameters[parameter];
  std::unordered_map<const Instruction*, std::vector<IndexingMapSet>> maps;
  IndexingMap seed = IndexingMap::Identity(ctx, source->shape.dims);
  FinishMap(&seed);
  maps[source].resize(OutputCount(*source));
  maps[source][0].Insert(std::move(seed));
  // Operands before users: compose input -> output maps along every use.
  for (const Instruction* instr : region.members) {
    if (instr == source) continue;
    for (int k = 0; k < instr->operand_count(); ++k) {
      auto found = maps.find(instr->operand(k));
      if (found == maps.end()) continue;
      const IndexingMapSet& reaching = found->second[ReadOutput(*instr)];
      if (reaching.empty()) continue;
      IXA_ASSIGN_OR_RETURN(HloInstructionIndexing step,
                           ComputeInputToOutputIndexing(*instr, k, ctx));
      std::vector<IndexingMapSet>& into = maps[instr];
      into.resize(OutputCount(*instr));
      for (size_t j = 0; j < step.indexing_maps.size() && j < into.size();
           ++j) {
        for (const IndexingMap& first : reaching) {
          for (const IndexingMap& second : step.indexing_maps[j]) {
            if (DeadlineExpired("fusion_indexing")) return DeadlineError();
            IXA_ASSIGN_OR_RETURN(
                IndexingMap composed,
                indexing_internal::ComposeWithProducers(first, second));
            FinishMap(&composed);
            into[j].Insert(std::move(composed));
          }
        }
      }
    }
  }
  auto found = maps.find(region.root);
  if (found == maps.end()) {
    return std::vector<IndexingMapSet>(OutputCount(*region.root));
  }
  return found->second;
}

namespace indexing_internal {

Result<Indexing> FusionOutToIn(const Instruction& in, int output_id,
                               ExprContext* ctx) {
  if (!in.called()) return Unsupported(in, "no called computation");
  FusionRegion region = RegionOfComputation(*in.called());
  IXA_ASSIGN_OR_RETURN(std::vector<IndexingMapSet> params,
                       ComputeFusionParameterIndexing(region, output_id, ctx));
  Indexing out;
  out.indexing_maps = std::move(params);
  out.indexing_maps.resize(in.operand_count());
  return out;
}

Result<Indexing> FusionInToOut(const Instruction& in, int operand,
                               ExprContext* ctx) {
  if (!in.called()) return Unsupported(in, "no called computation");
  FusionRegion region = RegionOfComputation(*in.called());
  IXA_ASSIGN_OR_RETURN(
      std::vector<IndexingMapSet> outs,
      ComputeFusionInputToOutputIndexing(region, operand, ctx));
  Indexing out;
  out.indexing_maps = std::move(outs);
  return out;
}

}  // namespace indexing_internal
}  // namespace ixa
