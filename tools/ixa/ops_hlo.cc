// HLO indexing ops of the query protocol (spec/cli.md "HLO indexing"):
// indexing, fusion_indexing, partition.
#include <memory>

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

Result<Json> Indexing(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(const Instruction* instr,
                       GetInstruction(request, *module));
  IXA_ASSIGN_OR_RETURN(std::string direction,
                       GetOptionalString(request, "direction"));
  IXA_ASSIGN_OR_RETURN(bool physical,
                       GetBool(request, "physical_layout", false));
  IXA_ASSIGN_OR_RETURN(int64_t output, GetOptionalInt(request, "output", 0));
  Json response = Json::object();
  if (direction.empty() || direction == "output_to_input") {
    IXA_ASSIGN_OR_RETURN(int64_t only, GetOptionalInt(request, "operand", -1));
    IXA_ASSIGN_OR_RETURN(HloInstructionIndexing indexing,
                         ComputeOutputToInputIndexing(*instr, output, &ctx));
    Json operands = Json::array();
    for (int k = 0; k < instr->operand_count(); ++k) {
      if (only >= 0 && k != only) continue;
      IndexingMapSet set;
      if (k < static_cast<int>(indexing.indexing_maps.size())) {
        set = indexing.indexing_maps[k];
      }
      if (physical) {
        IndexingMapSet phys;
        for (const IndexingMap& m : set) {
          IXA_ASSIGN_OR_RETURN(
              IndexingMap p, ToPhysicalIndexing(m, OutputShape(*instr, output),
                                                instr->operand(k)->shape));
          phys.Insert(std::move(p));
        }
        set = std::move(phys);
      }
      operands.push_back({{"operand", k},
                          {"name", instr->operand(k)->name},
                          {"maps", MapList(set)}});
    }
    response["operands"] = std::move(operands);
    return response;
  }
  if (direction != "input_to_output") {
    return Error::BadRequest(
        "field 'direction' must be 'output_to_input' or 'input_to_output'");
  }
  IXA_ASSIGN_OR_RETURN(int64_t operand, GetOptionalInt(request, "operand", 0));
  IXA_ASSIGN_OR_RETURN(HloInstructionIndexing indexing,
                       ComputeInputToOutputIndexing(*instr, operand, &ctx));
  Json outputs = Json::array();
  for (size_t j = 0; j < indexing.indexing_maps.size(); ++j) {
    if (Has(request, "output") && static_cast<int64_t>(j) != output) continue;
    IndexingMapSet set = indexing.indexing_maps[j];
    if (physical) {
      IndexingMapSet phys;
      for (const IndexingMap& m : set) {
        IXA_ASSIGN_OR_RETURN(
            IndexingMap p, ToPhysicalIndexing(m, instr->operand(operand)->shape,
                                              OutputShape(*instr, j)));
        phys.Insert(std::move(p));
      }
      set = std::move(phys);
    }
    outputs.push_back({{"output", j}, {"maps", MapList(set)}});
  }
  response["outputs"] = std::move(outputs);
  return response;
}

Result<Json> FusionIndexing(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(FusionRegion region, GetRegion(request, *module));
  IXA_ASSIGN_OR_RETURN(int64_t output, GetOptionalInt(request, "output", 0));
  IXA_ASSIGN_OR_RETURN(bool all, GetBool(request, "all_instructions", false));
  IXA_ASSIGN_OR_RETURN(
      GroupedIndexing grouped,
      ComputeGroupedOutputToInputIndexing(region, output, &ctx));
  Json parameters = Json::array();
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    IndexingMapSet set;
    for (const IndexingMap& m : grouped.MapsOf(region.parameters[i])) {
      set.Insert(m);
    }
    parameters.push_back({{"parameter", i},
                          {"name", region.parameters[i]->name},
                          {"maps", MapList(set)}});
  }
  Json response = {{"parameters", std::move(parameters)}};
  if (all) {
    // Root first, like the walk that computed them.
    Json instructions = Json::array();
    for (auto it = region.members.rbegin(); it != region.members.rend(); ++it) {
      IndexingMapSet set;
      for (const IndexingMap& m : grouped.MapsOf(*it)) set.Insert(m);
      instructions.push_back({{"name", (*it)->name}, {"maps", MapList(set)}});
    }
    response["instructions"] = std::move(instructions);
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
