#include "analysis/fusion/fusion.h"

#include <algorithm>
#include <unordered_set>

#include "analysis/indexing/internal.h"
#include "core/budget.h"

namespace ixa {

using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;

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
    if (root->opcode == Opcode::kFusion && root->called()) {
      return RegionOfComputation(*root->called());
    }
    return RegionOfComputation(*module.entry());
  }
  if (const Instruction* instr = module.FindInstruction(name)) {
    if ((instr->opcode == Opcode::kFusion || instr->opcode == Opcode::kCall) &&
        instr->called()) {
      return RegionOfComputation(*instr->called());
    }
  }
  if (const Computation* c = module.FindComputation(name)) {
    return RegionOfComputation(*c);
  }
  return Error::Invalid("no fusion or computation named '" + name + "'");
}

FusionRegion SubRegionBelow(const FusionRegion& region, const Instruction* root,
                            const Instruction* stop) {
  std::unordered_set<const Instruction*> members(region.members.begin(),
                                                 region.members.end());
  std::unordered_set<const Instruction*> parameters(region.parameters.begin(),
                                                    region.parameters.end());
  auto inside = [&](const Instruction* n) {
    return members.count(n) > 0 && parameters.count(n) == 0 &&
           n->opcode != Opcode::kParameter;
  };
  std::unordered_set<const Instruction*> reach;
  std::vector<const Instruction*> stack = {root};
  while (!stack.empty()) {
    const Instruction* n = stack.back();
    stack.pop_back();
    if (n == stop || !inside(n) || !reach.insert(n).second) continue;
    for (const Instruction* o : n->operands) stack.push_back(o);
  }
  FusionRegion sub;
  sub.computation = region.computation;
  sub.root = root;
  sub.parameters = region.parameters;
  for (const Instruction* m : region.members) {
    if (reach.count(m)) sub.members.push_back(m);
  }
  return sub;
}

using fusion_internal::IdSet;
using fusion_internal::MapId;
using fusion_internal::MapPool;

std::vector<IndexingMap> GroupedIndexing::MapsOf(
    const Instruction* instr) const {
  std::vector<IndexingMap> out;
  auto it = sets.find(instr);
  if (it == sets.end()) return out;
  for (const IdSet& set : it->second) {
    for (MapId id : set.ids()) out.push_back(pool->map(id));
  }
  return out;
}

std::vector<uint32_t> GroupedIndexing::DistinctMapIdsOf(
    const Instruction* instr) const {
  auto it = sets.find(instr);
  if (it == sets.end()) return {};
  if (it->second.size() == 1) return it->second[0].ids();
  IdSet all;
  for (const IdSet& set : it->second) {
    for (MapId id : set.ids()) all.Insert(id, pool.get());
  }
  return all.ids();
}

std::vector<IndexingMap> GroupedIndexing::DistinctMapsOf(
    const Instruction* instr) const {
  std::vector<IndexingMap> out;
  for (MapId id : DistinctMapIdsOf(instr)) out.push_back(pool->map(id));
  return out;
}

namespace {

// Which output of `operand` instruction `user` reads: get-tuple-element
// picks its element; everything else reads an array.
int ReadOutput(const Instruction& user) {
  return user.opcode == Opcode::kGetTupleElement ? user.tuple_index : 0;
}

std::vector<MapId> InternAll(const IndexingMapSet& maps, MapPool* pool) {
  std::vector<MapId> ids;
  for (const IndexingMap& m : maps) ids.push_back(pool->Intern(m));
  return ids;
}

// GroupedIndexing::replica_maps of `operand`, read by `instr` through the
// maps `consumers` reach `instr` with: the replicas `instr` reads on
// (its own replica maps pass to its operands), and `step_replicas`, the
// replica maps of the operand at this step (an all-gather's), composed
// with every consumer map.
// The entry of `collective` in `list`, appended when missing.
IndexingMapSet& CollectiveEntry(
    std::vector<GroupedIndexing::CollectiveReplicaMaps>* list,
    const Instruction* collective) {
  for (GroupedIndexing::CollectiveReplicaMaps& e : *list) {
    if (e.collective == collective) return e.maps;
  }
  list->push_back({collective, IndexingMapSet()});
  return list->back().maps;
}

Status ComposeReplicaMaps(const Instruction* instr, const Instruction* operand,
                          const IndexingMapSet& step_replicas,
                          const IdSet& consumers, MapPool* pool,
                          GroupedIndexing* result) {
  auto& replica_maps = result->replica_maps;
  auto& by_collective = result->replica_maps_by_collective;
  if (auto own = replica_maps.find(instr); own != replica_maps.end()) {
    IndexingMapSet copy = own->second;
    IndexingMapSet& into = replica_maps[operand];
    for (const IndexingMap& r : copy) into.Insert(r);
  }
  if (auto own = by_collective.find(instr); own != by_collective.end()) {
    std::vector<GroupedIndexing::CollectiveReplicaMaps> copy = own->second;
    std::vector<GroupedIndexing::CollectiveReplicaMaps>& into =
        by_collective[operand];
    for (const GroupedIndexing::CollectiveReplicaMaps& e : copy) {
      IndexingMapSet& maps = CollectiveEntry(&into, e.collective);
      for (const IndexingMap& r : e.maps) maps.Insert(r);
    }
  }
  if (step_replicas.empty()) return Status();
  IndexingMapSet& into = replica_maps[operand];
  IndexingMapSet& of_instr = CollectiveEntry(&by_collective[operand], instr);
  for (const IndexingMap& r : step_replicas) {
    const MapId second = pool->Intern(r);
    for (MapId first : consumers.ids()) {
      if (DeadlineExpired("fusion_indexing")) return DeadlineError();
      IXA_ASSIGN_OR_RETURN(MapId composed, pool->Compose(first, second));
      into.Insert(pool->map(composed));
      of_instr.Insert(pool->map(composed));
    }
  }
  return Status();
}

}  // namespace

std::string GroupedIndexing::UnknownReason(const Instruction* instr) const {
  auto it = unknown.find(instr);
  return it == unknown.end() ? std::string() : it->second;
}

Result<GroupedIndexing> ComputeGroupedOutputToInputIndexing(
    const FusionRegion& region, int output_id, ExprContext* ctx,
    const FusionIndexingOptions& options) {
  GroupedIndexing result;
  result.pool = std::make_shared<MapPool>();
  MapPool* pool = result.pool.get();
  const Instruction* root = region.root;
  const bool no_outputs = output_id == 0 && OutputCount(*root) == 0;
  if (!no_outputs && (output_id < 0 || output_id >= OutputCount(*root))) {
    return Error::Invalid("'" + root->name + "' has no output " +
                          std::to_string(output_id));
  }
  auto sets_of = [&](const Instruction* instr) -> std::vector<IdSet>& {
    auto [it, inserted] = result.sets.try_emplace(instr);
    if (inserted) {
      it->second.resize(OutputCount(*instr));
      result.order.push_back(instr);
    }
    return it->second;
  };
  // The first reason reaching an instruction is kept (the one nearest the
  // root along the walk).
  auto mark_unknown = [&](const Instruction* instr, const std::string& why) {
    sets_of(instr);
    result.unknown.emplace(instr, why);
  };
  if (no_outputs) {
    // A root without outputs (an empty tuple) reads nothing, or, for an op
    // without maps (`() custom-call(...)`), what it reads is unknown.
    sets_of(root);
    IXA_ASSIGN_OR_RETURN(HloInstructionIndexing none,
                         ComputeOutputToInputIndexingPartial(*root, 0, ctx));
    for (int k = 0; k < root->operand_count(); ++k) {
      if (!none.IsUnknown(k)) continue;
      if (!options.allow_unknown) return Error::Unsupported(none.unknown[k]);
      result.unknown_origins.emplace(root, none.unknown[k]);
      mark_unknown(root->operand(k), none.unknown[k]);
    }
  } else {
    IndexingMap seed = IndexingMap::Identity(ctx, OutputDims(*root, output_id));
    FinishMap(&seed);
    sets_of(root)[output_id].Insert(pool->Intern(std::move(seed)), pool);
  }

  // Users before operands: every consumer map of an instruction is known
  // before it is pushed to the instruction's operands.
  for (auto it = region.members.rbegin(); it != region.members.rend(); ++it) {
    const Instruction* instr = *it;
    auto found = result.sets.find(instr);
    if (found == result.sets.end() || instr->operands.empty()) continue;
    if (instr->opcode == Opcode::kParameter) continue;
    if (auto why = result.unknown.find(instr); why != result.unknown.end()) {
      // What an unknown instruction reads is unknown too.
      const std::string reason = why->second;
      for (const Instruction* operand : instr->operands) {
        mark_unknown(operand, reason);
      }
      continue;
    }
    // Copied (ids only): the operands' sets are written while these are
    // read.
    std::vector<IdSet> consumer_sets = found->second;
    for (int out = 0; out < static_cast<int>(consumer_sets.size()); ++out) {
      if (consumer_sets[out].empty()) continue;
      IXA_ASSIGN_OR_RETURN(HloInstructionIndexing operand_maps,
                           ComputeOutputToInputIndexingPartial(
                               *instr, out, ctx, options.indexing));
      for (int k = 0; k < instr->operand_count(); ++k) {
        const Instruction* operand = instr->operand(k);
        if (operand_maps.IsUnknown(k)) {
          if (!options.allow_unknown) {
            return Error::Unsupported(operand_maps.unknown[k]);
          }
          result.unknown_origins.emplace(instr, operand_maps.unknown[k]);
          mark_unknown(operand, operand_maps.unknown[k]);
          continue;
        }
        if (k >= static_cast<int>(operand_maps.indexing_maps.size()) ||
            operand_maps.indexing_maps[k].empty()) {
          continue;
        }
        int target = ReadOutput(*instr);
        if (operand->shape.IsTuple() &&
            instr->opcode != Opcode::kGetTupleElement) {
          std::string why = "'" + instr->name + "' (" + OpcodeName(*instr) +
                            ") reads a whole tuple: no map";
          if (!options.allow_unknown) return Error::Unsupported(why);
          result.unknown_origins.emplace(instr, why);
          mark_unknown(operand, why);
          continue;
        }
        const std::vector<MapId> producers =
            InternAll(operand_maps.indexing_maps[k], pool);
        // The per-source form's blocks name their replica: no replica
        // maps are composed for it.
        const IndexingMapSet step_replicas =
            !options.indexing.all_gather_per_source &&
                    k < static_cast<int>(operand_maps.replica_maps.size())
                ? operand_maps.replica_maps[k]
                : IndexingMapSet();
        IXA_RETURN_IF_ERROR(ComposeReplicaMaps(
            instr, operand, step_replicas, consumer_sets[out], pool, &result));
        IdSet& into = sets_of(operand)[target];
        for (MapId consumer : consumer_sets[out].ids()) {
          for (MapId producer : producers) {
            if (DeadlineExpired("fusion_indexing")) return DeadlineError();
            IXA_ASSIGN_OR_RETURN(MapId composed,
                                 pool->Compose(consumer, producer));
            into.Insert(composed, pool);
            if (into.size() > options.max_maps_per_instruction) {
              return Error::Limit(
                  "more than " +
                  std::to_string(options.max_maps_per_instruction) +
                  " distinct maps reach '" + operand->name + "'");
            }
          }
        }
      }
    }
  }
  return result;
}

Result<GroupedIndexing> ComputeGroupedOutputToInputIndexing(
    const FusionRegion& region, int output_id, ExprContext* ctx,
    size_t max_maps_per_instruction) {
  FusionIndexingOptions options;
  options.max_maps_per_instruction = max_maps_per_instruction;
  return ComputeGroupedOutputToInputIndexing(region, output_id, ctx, options);
}

Result<std::vector<IndexingMapSet>> ComputeFusionParameterIndexing(
    const FusionRegion& region, int output_id, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(
      GroupedIndexing grouped,
      ComputeGroupedOutputToInputIndexing(region, output_id, ctx));
  std::vector<IndexingMapSet> out(region.parameters.size());
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    out[i] = IndexingMapSet::FromDistinct(
        grouped.DistinctMapsOf(region.parameters[i]));
  }
  return out;
}

Result<std::vector<PartialIndexing>> ComputeFusionParameterIndexingPartial(
    const FusionRegion& region, int output_id, ExprContext* ctx) {
  FusionIndexingOptions options;
  options.allow_unknown = true;
  IXA_ASSIGN_OR_RETURN(
      GroupedIndexing grouped,
      ComputeGroupedOutputToInputIndexing(region, output_id, ctx, options));
  std::vector<PartialIndexing> out(region.parameters.size());
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    const Instruction* p = region.parameters[i];
    if (grouped.IsUnknown(p)) {
      out[i].unknown_reason = grouped.UnknownReason(p);
      continue;
    }
    out[i].maps = IndexingMapSet::FromDistinct(grouped.DistinctMapsOf(p));
  }
  return out;
}

namespace {

// The forward walk behind both input-to-output forms. `unknown` gets the
// instructions reached through an op without a map (allow_unknown), else
// such an op is an error.
Result<std::vector<PartialIndexing>> ForwardIndexing(const FusionRegion& region,
                                                     int parameter,
                                                     ExprContext* ctx,
                                                     bool allow_unknown) {
  if (parameter < 0 ||
      parameter >= static_cast<int>(region.parameters.size())) {
    return Error::Invalid("the fusion has no parameter " +
                          std::to_string(parameter));
  }
  const Instruction* source = region.parameters[parameter];
  MapPool pool;
  std::unordered_map<const Instruction*, std::vector<IdSet>> maps;
  std::unordered_map<const Instruction*, std::string> unknown;
  // An empty tuple parameter (`()`) has no elements, so nothing reaches
  // the outputs from it.
  if (OutputCount(*source) == 0) {
    return std::vector<PartialIndexing>(OutputCount(*region.root));
  }
  IndexingMap seed = IndexingMap::Identity(ctx, source->shape.dims);
  FinishMap(&seed);
  maps[source].resize(OutputCount(*source));
  maps[source][0].Insert(pool.Intern(std::move(seed)), &pool);
  // Operands before users: compose input -> output maps along every use.
  for (const Instruction* instr : region.members) {
    if (instr == source) continue;
    for (int k = 0; k < instr->operand_count(); ++k) {
      const Instruction* operand = instr->operand(k);
      if (auto why = unknown.find(operand); why != unknown.end()) {
        unknown.emplace(instr, why->second);
        continue;
      }
      auto found = maps.find(operand);
      if (found == maps.end()) continue;
      // An operand without that output (an empty tuple read by any op but
      // get-tuple-element, whose index the verifier checks) passes nothing.
      if (ReadOutput(*instr) >= static_cast<int>(found->second.size())) {
        continue;
      }
      const IdSet& reaching = found->second[ReadOutput(*instr)];
      if (reaching.empty()) continue;
      IXA_ASSIGN_OR_RETURN(HloInstructionIndexing step,
                           ComputeInputToOutputIndexingPartial(*instr, k, ctx));
      std::vector<IdSet>& into = maps[instr];
      into.resize(OutputCount(*instr));
      for (size_t j = 0; j < step.indexing_maps.size() && j < into.size();
           ++j) {
        if (step.IsUnknown(j)) {
          if (!allow_unknown) return Error::Unsupported(step.unknown[j]);
          unknown.emplace(instr, step.unknown[j]);
          continue;
        }
        const std::vector<MapId> seconds =
            InternAll(step.indexing_maps[j], &pool);
        for (MapId first : reaching.ids()) {
          for (MapId second : seconds) {
            if (DeadlineExpired("fusion_indexing")) return DeadlineError();
            IXA_ASSIGN_OR_RETURN(MapId composed, pool.Compose(first, second));
            into[j].Insert(composed, &pool);
          }
        }
      }
    }
  }
  std::vector<PartialIndexing> out(OutputCount(*region.root));
  if (auto why = unknown.find(region.root); why != unknown.end()) {
    for (PartialIndexing& p : out) p.unknown_reason = why->second;
    return out;
  }
  auto found = maps.find(region.root);
  if (found == maps.end()) return out;
  for (size_t j = 0; j < out.size() && j < found->second.size(); ++j) {
    std::vector<IndexingMap> maps;
    for (MapId id : found->second[j].ids()) maps.push_back(pool.map(id));
    out[j].maps = IndexingMapSet::FromDistinct(std::move(maps));
  }
  return out;
}

}  // namespace

Result<std::vector<IndexingMapSet>> ComputeFusionInputToOutputIndexing(
    const FusionRegion& region, int parameter, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(std::vector<PartialIndexing> partial,
                       ForwardIndexing(region, parameter, ctx, false));
  std::vector<IndexingMapSet> out;
  for (PartialIndexing& p : partial) out.push_back(std::move(p.maps));
  return out;
}

Result<std::vector<PartialIndexing>> ComputeFusionInputToOutputIndexingPartial(
    const FusionRegion& region, int parameter, ExprContext* ctx) {
  return ForwardIndexing(region, parameter, ctx, true);
}

Result<std::vector<ProducerGroup>> GroupIndexingMapsByProducers(
    const FusionRegion& region, int output_id, ExprContext* ctx) {
  const Instruction* root = region.root;
  IXA_ASSIGN_OR_RETURN(
      HloInstructionIndexing indexing,
      ComputeOutputToInputIndexingPartial(*root, output_id, ctx));
  std::vector<ProducerGroup> groups;
  for (int k = 0; k < root->operand_count(); ++k) {
    const Instruction* producer = root->operand(k);
    auto it = std::find_if(
        groups.begin(), groups.end(),
        [&](const ProducerGroup& g) { return g.producer == producer; });
    if (it == groups.end()) {
      groups.push_back({producer, {}});
      it = groups.end() - 1;
    }
    PartialIndexing& into = it->indexing;
    if (into.unknown()) continue;
    if (indexing.IsUnknown(k)) {
      into.maps = IndexingMapSet();
      into.unknown_reason = indexing.unknown[k];
      continue;
    }
    if (k < static_cast<int>(indexing.indexing_maps.size())) {
      for (const IndexingMap& m : indexing.indexing_maps[k])
        into.maps.Insert(m);
    }
  }
  return groups;
}

namespace indexing_internal {

Result<Indexing> FusionOutToIn(const Instruction& in, int output_id,
                               ExprContext* ctx) {
  if (!in.called()) return Unsupported(in, "no called computation");
  FusionRegion region = RegionOfComputation(*in.called());
  IXA_ASSIGN_OR_RETURN(
      std::vector<PartialIndexing> params,
      ComputeFusionParameterIndexingPartial(region, output_id, ctx));
  Indexing out;
  out.indexing_maps.resize(in.operand_count());
  for (size_t i = 0; i < params.size() && i < out.indexing_maps.size(); ++i) {
    if (params[i].unknown()) {
      out.SetUnknown(i, params[i].unknown_reason);
      continue;
    }
    for (const IndexingMap& m : params[i].maps) {
      IndexingMap resolved = m;
      ResolveFusionParameterRtVars(in, &resolved);
      out.indexing_maps[i].Insert(std::move(resolved));
    }
  }
  return out;
}

Result<Indexing> FusionInToOut(const Instruction& in, int operand,
                               ExprContext* ctx) {
  if (!in.called()) return Unsupported(in, "no called computation");
  FusionRegion region = RegionOfComputation(*in.called());
  IXA_ASSIGN_OR_RETURN(
      std::vector<PartialIndexing> outs,
      ComputeFusionInputToOutputIndexingPartial(region, operand, ctx));
  Indexing out;
  out.indexing_maps.resize(outs.size());
  for (size_t j = 0; j < outs.size(); ++j) {
    if (outs[j].unknown()) {
      out.SetUnknown(j, outs[j].unknown_reason);
    } else {
      out.indexing_maps[j] = std::move(outs[j].maps);
    }
  }
  return out;
}

}  // namespace indexing_internal
}  // namespace ixa
