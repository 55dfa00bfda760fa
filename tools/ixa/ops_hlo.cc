// HLO indexing ops of the query protocol (docs/protocol.md):
// indexing, fusion_indexing, partition.
#include <memory>
#include <unordered_map>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "analysis/indexing/indexing.h"
#include "analysis/partition/partition.h"
#include "tools/ixa/hlo_request.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {
namespace {

using hlo::Instruction;

Json MapList(const IndexingMapSet& set) {
  Json maps = Json::array();
  for (const IndexingMap& m : set) maps.push_back(MapToString(m));
  return maps;
}

// `instruction`, else the root of the named `fusion`'s computation, else
// the entry root.
Result<const Instruction*> GetInstruction(const Json& request,
                                          const hlo::Module& module) {
  IXA_ASSIGN_OR_RETURN(std::string name,
                       GetOptionalString(request, "instruction"));
  if (!name.empty()) {
    const Instruction* instr = module.FindInstruction(name);
    if (!instr) return Error::Invalid("no instruction named '" + name + "'");
    return instr;
  }
  IXA_ASSIGN_OR_RETURN(std::string fusion,
                       GetOptionalString(request, "fusion"));
  if (!fusion.empty()) {
    IXA_ASSIGN_OR_RETURN(FusionRegion region, ResolveFusion(module, fusion));
    return region.root;
  }
  return module.entry()->root();
}

// `set` rewritten between physical (layout-ordered) indices.
Result<IndexingMapSet> Physical(const IndexingMapSet& set,
                                const hlo::Shape& from, const hlo::Shape& to) {
  IndexingMapSet phys;
  for (const IndexingMap& m : set) {
    IXA_ASSIGN_OR_RETURN(IndexingMap p, ToPhysicalIndexing(m, from, to));
    phys.Insert(std::move(p));
  }
  return phys;
}

// Partial answers: an entry without a map says why.
void SetMapsOrUnknown(Json* entry, const IndexingMapSet& set,
                      const std::string& unknown_reason) {
  if (!unknown_reason.empty()) {
    (*entry)["unknown"] = true;
    (*entry)["reason"] = unknown_reason;
  } else {
    (*entry)["maps"] = MapList(set);
  }
}

// The request's choice of map forms: "all_gather": "xla" (the default,
// XLA's `d mod n` with a replica map) or "per_source" (one map per source
// replica, over its block).
Result<IndexingOptions> GetIndexingOptions(const Json& request) {
  IXA_ASSIGN_OR_RETURN(std::string all_gather,
                       GetOptionalString(request, "all_gather"));
  IndexingOptions options;
  if (all_gather == "per_source") {
    options.all_gather_per_source = true;
  } else if (!all_gather.empty() && all_gather != "xla") {
    return Error::BadRequest(
        "field 'all_gather' must be 'xla' or 'per_source'");
  }
  return options;
}

Result<Json> Indexing(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(const Instruction* instr,
                       GetInstruction(request, *module));
  IXA_ASSIGN_OR_RETURN(std::string direction,
                       GetOptionalString(request, "direction"));
  IXA_ASSIGN_OR_RETURN(bool physical,
                       GetBool(request, "physical_layout", false));
  IXA_ASSIGN_OR_RETURN(int64_t output, GetOptionalInt(request, "output", 0));
  IXA_ASSIGN_OR_RETURN(IndexingOptions indexing_options,
                       GetIndexingOptions(request));
  Json response = Json::object();
  if (direction.empty() || direction == "output_to_input") {
    IXA_ASSIGN_OR_RETURN(int64_t only, GetOptionalInt(request, "operand", -1));
    IXA_ASSIGN_OR_RETURN(HloInstructionIndexing indexing,
                         ComputeOutputToInputIndexingPartial(
                             *instr, output, &ctx, indexing_options));
    Json operands = Json::array();
    for (int k = 0; k < instr->operand_count(); ++k) {
      if (only >= 0 && k != only) continue;
      Json entry = {{"operand", k}, {"name", instr->operand(k)->name}};
      std::string reason = indexing.IsUnknown(k) ? indexing.unknown[k] : "";
      IndexingMapSet set;
      if (k < static_cast<int>(indexing.indexing_maps.size())) {
        set = indexing.indexing_maps[k];
      }
      if (physical && reason.empty()) {
        IXA_ASSIGN_OR_RETURN(set, Physical(set, OutputShape(*instr, output),
                                           IndexedOperandShape(*instr, k)));
      }
      SetMapsOrUnknown(&entry, set, reason);
      if (reason.empty() &&
          k < static_cast<int>(indexing.replica_maps.size()) &&
          !indexing.replica_maps[k].empty()) {
        entry["replica_maps"] = MapList(indexing.replica_maps[k]);
      }
      operands.push_back(std::move(entry));
    }
    response["operands"] = std::move(operands);
    return response;
  }
  if (direction != "input_to_output") {
    return Error::BadRequest(
        "field 'direction' must be 'output_to_input' or 'input_to_output'");
  }
  IXA_ASSIGN_OR_RETURN(int64_t operand, GetOptionalInt(request, "operand", 0));
  IXA_ASSIGN_OR_RETURN(
      HloInstructionIndexing indexing,
      ComputeInputToOutputIndexingPartial(*instr, operand, &ctx));
  Json outputs = Json::array();
  for (size_t j = 0; j < indexing.indexing_maps.size(); ++j) {
    if (Has(request, "output") && static_cast<int64_t>(j) != output) continue;
    Json entry = {{"output", j}};
    std::string reason = indexing.IsUnknown(j) ? indexing.unknown[j] : "";
    IndexingMapSet set = indexing.indexing_maps[j];
    if (physical && reason.empty()) {
      IXA_ASSIGN_OR_RETURN(set,
                           Physical(set, IndexedOperandShape(*instr, operand),
                                    OutputShape(*instr, j)));
    }
    SetMapsOrUnknown(&entry, set, reason);
    outputs.push_back(std::move(entry));
  }
  response["outputs"] = std::move(outputs);
  return response;
}

Result<Json> FusionIndexing(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(FlatRegion flat_region, GetRegion(request, *module));
  const FusionRegion& region = flat_region.region;
  IXA_ASSIGN_OR_RETURN(int64_t output, GetOptionalInt(request, "output", 0));
  IXA_ASSIGN_OR_RETURN(bool all, GetBool(request, "all_instructions", false));
  IXA_ASSIGN_OR_RETURN(bool by_producer,
                       GetBool(request, "group_by_producer", false));
  FusionIndexingOptions options;
  options.allow_unknown = true;
  IXA_ASSIGN_OR_RETURN(options.indexing, GetIndexingOptions(request));
  IXA_ASSIGN_OR_RETURN(
      GroupedIndexing grouped,
      ComputeGroupedOutputToInputIndexing(region, output, &ctx, options));
  // Maps of an instruction, or why it has none. The same few maps recur
  // at most instructions: each distinct one is printed once.
  std::unordered_map<uint32_t, Json> printed;
  auto entry_of = [&](const Instruction* instr, Json entry) {
    if (std::string why = grouped.UnknownReason(instr); !why.empty()) {
      entry["unknown"] = true;
      entry["reason"] = std::move(why);
      return entry;
    }
    Json maps = Json::array();
    for (uint32_t id : grouped.DistinctMapIdsOf(instr)) {
      auto [it, inserted] = printed.try_emplace(id);
      if (inserted) it->second = MapToString(grouped.Map(id));
      maps.push_back(it->second);
    }
    entry["maps"] = std::move(maps);
    if (auto r = grouped.replica_maps.find(instr);
        r != grouped.replica_maps.end() && !r->second.empty()) {
      entry["replica_maps"] = MapList(r->second);
    }
    if (auto r = grouped.replica_maps_by_collective.find(instr);
        r != grouped.replica_maps_by_collective.end() && !r->second.empty()) {
      Json list = Json::array();
      for (const GroupedIndexing::CollectiveReplicaMaps& c : r->second) {
        list.push_back(Json{{"collective", c.collective->name},
                            {"maps", MapList(c.maps)}});
      }
      entry["replica_maps_by_collective"] = std::move(list);
    }
    return entry;
  };
  Json parameters = Json::array();
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    parameters.push_back(
        entry_of(region.parameters[i],
                 {{"parameter", i}, {"name", region.parameters[i]->name}}));
  }
  Json response = {{"parameters", std::move(parameters)}};
  if (all) {
    // Root first, like the walk that computed them.
    Json instructions = Json::array();
    for (auto it = region.members.rbegin(); it != region.members.rend(); ++it) {
      instructions.push_back(entry_of(*it, {{"name", (*it)->name}}));
    }
    response["instructions"] = std::move(instructions);
  }
  if (by_producer) {
    IXA_ASSIGN_OR_RETURN(std::vector<ProducerGroup> groups,
                         GroupIndexingMapsByProducers(region, output, &ctx));
    Json list = Json::array();
    for (const ProducerGroup& g : groups) {
      Json entry = {{"producer", g.producer->name}};
      SetMapsOrUnknown(&entry, g.indexing.maps, g.indexing.unknown_reason);
      list.push_back(std::move(entry));
    }
    response["groups"] = std::move(list);
  }
  return response;
}

Result<Json> Partition(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(std::string fusion,
                       GetOptionalString(request, "fusion"));
  IXA_ASSIGN_OR_RETURN(FusionRegion region, ResolveFusion(*module, fusion));
  IXA_ASSIGN_OR_RETURN(PartitionedComputation partition,
                       PartitionComputation(*region.computation, &ctx));
  Json subgraphs = Json::array();
  for (const Subgraph& s : partition.subgraphs) {
    Json names = Json::array();
    for (const Instruction* i : s.instructions) names.push_back(i->name);
    subgraphs.push_back({{"root", s.root->name}, {"instructions", names}});
  }
  return Json{{"subgraphs", std::move(subgraphs)}};
}

}  // namespace

void RegisterHloOps(OpTable& table) {
  table["indexing"] = Indexing;
  table["fusion_indexing"] = FusionIndexing;
  table["partition"] = Partition;
}

}  // namespace ixa::cli
