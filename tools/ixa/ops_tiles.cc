// The tile ops (tile_ops.h): `tile` and `valid_tilings`.
#include <memory>

#include "analysis/uses/tile_analysis.h"
#include "analysis/uses/tile_constraints.h"
#include "analysis/uses/tiles.h"
#include "core/budget.h"
#include "tools/ixa/hlo_request.h"
#include "tools/ixa/tile_ops.h"

namespace ixa::cli {
namespace {

struct TileSpec {
  std::vector<int64_t> sizes, strides;
};

// `tile: {sizes, strides?}` for an array of `dims`: every size and stride
// at least 1; a size may exceed its dim (the tile then covers it whole).
Result<TileSpec> GetTileSpec(const Json& request,
                             const std::vector<int64_t>& dims,
                             const std::string& what) {
  if (!Has(request, "tile")) return Error::BadRequest("missing field 'tile'");
  if (!request.at("tile").is_object()) {
    return Error::BadRequest(
        "field 'tile' must be an object {sizes, strides?}");
  }
  const Json& tile = request.at("tile");
  TileSpec spec;
  IXA_ASSIGN_OR_RETURN(spec.sizes, GetIntList(tile, "sizes"));
  if (Has(tile, "strides")) {
    IXA_ASSIGN_OR_RETURN(spec.strides, GetIntList(tile, "strides"));
  }
  if (spec.sizes.size() != dims.size() ||
      (!spec.strides.empty() && spec.strides.size() != dims.size())) {
    return Error::Invalid(what + " has rank " + std::to_string(dims.size()) +
                          ": 'tile' needs that many sizes (and strides)");
  }
  for (size_t k = 0; k < dims.size(); ++k) {
    if (spec.sizes[k] < 1) {
      return Error::Invalid("tile size " + std::to_string(spec.sizes[k]) +
                            " of dim " + std::to_string(k) + " is below 1");
    }
    if (!spec.strides.empty() && spec.strides[k] < 1) {
      return Error::Invalid("tile strides must be >= 1");
    }
  }
  return spec;
}

// `reduction_sizes` / `contraction_sizes`: a list (every reduce / dot) or
// an object {name: list}.
Result<ExtraTileSizes> GetExtraSizes(const Json& request, const char* field) {
  ExtraTileSizes out;
  if (!Has(request, field)) return out;
  const Json& v = request.at(field);
  if (v.is_array()) {
    IXA_ASSIGN_OR_RETURN(out[""], GetIntList(request, field));
    return out;
  }
  if (!v.is_object()) {
    return Error::BadRequest(std::string("field '") + field +
                             "' must be a list of integers or an object "
                             "{instruction: list of integers}");
  }
  for (const auto& [name, sizes] : v.items()) {
    Json wrapped{{"sizes", sizes}};
    auto list = GetIntList(wrapped, "sizes");
    if (!list.ok()) {
      return Error::BadRequest(std::string("field '") + field + "' entry '" +
                               name + "' must be a list of integers");
    }
    out[name] = *list;
  }
  return out;
}

Json DnfJson(const std::vector<TileConjunction>& dnf) {
  Json out = Json::array();
  for (const TileConjunction& c : dnf) out.push_back(PrintTileAtoms(c));
  return out;
}

// XLA's disjunctive form of `clauses` ([] when nothing constrains them),
// or, past the size limit, null and the conjunctive form.
Json ConstraintsJson(const std::vector<TileClause>& clauses, Json* out) {
  if (clauses.empty()) return Json::array();
  auto dnf = ToDisjunctiveForm(clauses);
  if (!dnf.ok()) {
    Json cnf = Json::array();
    for (const TileClause& c : clauses) cnf.push_back(PrintTileClause(c));
    (*out)["constraints_conjunctive"] = std::move(cnf);
    return nullptr;
  }
  return DnfJson(*dnf);
}

Json SatisfiableJson(const std::vector<TileClause>& clauses,
                     std::span<const int64_t> extents, ExprContext& ctx) {
  TileSatisfiability s = DecideTileSatisfiability(clauses, extents, &ctx);
  if (!s.satisfiable) return nullptr;
  return *s.satisfiable;
}

// Block-id names: b<k> for the output's dims, k<j> for the steps of the
// reduction / contraction dims.
std::vector<std::string> BlockNames(const std::vector<TileSpaceDim>& space) {
  std::vector<std::string> names;
  int extra = 0;
  for (const TileSpaceDim& d : space) {
    names.push_back(d.kind == TileSpaceKind::kOutput
                        ? "b" + std::to_string(names.size())
                        : "k" + std::to_string(extra++));
  }
  return names;
}

// One tile: symbolic parts, constraints and, with sizes, the tile at them.
Result<Json> TileJson(const SymbolicTile& tile, std::span<const int64_t> sizes,
                      const std::vector<std::string>& block_names,
                      ExprContext& ctx) {
  Json j;
  if (!sizes.empty()) {
    IXA_ASSIGN_OR_RETURN(IndexingMap offsets,
                         TileOffsetsMap(tile, sizes, block_names));
    IXA_ASSIGN_OR_RETURN(ConcreteTile c, EvaluateTileAsRequested(tile, sizes));
    IXA_ASSIGN_OR_RETURN(ConcreteTile clipped, EvaluateTile(tile, sizes, true));
    j["offsets"] = MapToString(offsets);
    j["sizes"] = c.sizes;
    if (clipped.sizes != c.sizes) j["clipped_sizes"] = clipped.sizes;
    j["strides"] = c.strides;
    j["satisfied"] = c.satisfied;
    if (c.satisfied && !c.xla_satisfied && tile.xla_would_refuse.empty()) {
      j["xla_would_refuse"] = "XLA's constraints fail at these sizes";
    }
  }
  j["symbolic"] = Json{{"offsets", PrintTileExprs(tile, 0)},
                       {"sizes", PrintTileExprs(tile, 1)},
                       {"strides", PrintTileExprs(tile, 2)}};
  j["tile_map"] = MapToString(tile.tile_map);
  j["constraints"] = ConstraintsJson(tile.constraints, &j);
  j["satisfiable"] = SatisfiableJson(tile.constraints, tile.extents, ctx);
  if (tile.superset) {
    j["superset"] = true;
    j["superset_reason"] = tile.superset_reason;
  }
  if (!tile.xla_would_refuse.empty()) {
    j["xla_would_refuse"] = tile.xla_would_refuse;
  }
  return j;
}

Json SpaceJson(const FusionTiling& tiling, std::span<const int64_t> sizes) {
  Json out = Json::array();
  for (size_t k = 0; k < tiling.space.size(); ++k) {
    const TileSpaceDim& d = tiling.space[k];
    Json j{{"dim", "d" + std::to_string(k)},
           {"kind", TileSpaceKindName(d.kind)},
           {"index", d.dim},
           {"extent", d.extent}};
    if (!d.instruction.empty()) j["instruction"] = d.instruction;
    if (k < sizes.size()) j["size"] = sizes[k];
    out.push_back(std::move(j));
  }
  return out;
}

// The legacy per-parameter entries: conjunctive constraints, the tile at
// the origin.
Json OperandJson(const TiledInstruction& ti, const InstructionTile& t,
                 std::span<const int64_t> sizes) {
  Json j{{"parameter", ti.parameter},
         {"name", ti.instr->name},
         {"map", MapToString(t.map)}};
  if (!t.tile) {
    j["unsupported"] = t.unsupported;
    return j;
  }
  j["offsets"] = PrintTileExprs(*t.tile, 0);
  j["sizes"] = PrintTileExprs(*t.tile, 1);
  j["strides"] = PrintTileExprs(*t.tile, 2);
  j["constraints"] = PrintTileConstraints(*t.tile);
  j["tile_map"] = MapToString(t.tile->tile_map);
  Result<ConcreteTile> evaluated = EvaluateTileAsRequested(*t.tile, sizes);
  if (!evaluated.ok()) {
    j["values"] = nullptr;
    j["satisfied"] = false;
    j["reason"] = evaluated.error().message;
    return j;
  }
  const ConcreteTile& c = *evaluated;
  Json values{{"sizes", c.sizes}, {"strides", c.strides}};
  if (Result<ConcreteTile> clipped = EvaluateTile(*t.tile, sizes, true);
      clipped.ok() && clipped->sizes != c.sizes) {
    values["clipped_sizes"] = clipped->sizes;
  }
  values["offsets"] = c.offsets ? Json(*c.offsets) : Json(nullptr);
  j["values"] = std::move(values);
  j["satisfied"] = c.satisfied;
  if (t.tile->superset) j["superset"] = true;
  if (!t.tile->xla_would_refuse.empty()) {
    j["xla_would_refuse"] = t.tile->xla_would_refuse;
  }
  return j;
}

// `tile_instructions`: "all", or a list of names (nested ones as
// "fusion/name"); empty when absent.
Result<std::optional<std::vector<std::string>>> GetTileInstructions(
    const Json& request) {
  if (!Has(request, "tile_instructions")) {
    return std::optional<std::vector<std::string>>();
  }
  const Json& v = request.at("tile_instructions");
  if (v.is_string() && v.get<std::string>() == "all") {
    return std::optional<std::vector<std::string>>(std::vector<std::string>());
  }
  std::vector<std::string> names;
  if (v.is_array()) {
    for (const Json& n : v) {
      if (!n.is_string()) {
        names.clear();
        break;
      }
      names.push_back(n.get<std::string>());
    }
  }
  if (names.empty()) {
    return Error::BadRequest(
        "field 'tile_instructions' must be \"all\" or a non-empty list of "
        "instruction names");
  }
  return std::optional<std::vector<std::string>>(std::move(names));
}

Result<Json> InstructionJson(const TiledInstruction& ti,
                             std::span<const int64_t> sizes,
                             const std::vector<std::string>& block_names,
                             ExprContext& ctx) {
  Json j{{"name", ti.name}, {"opcode", OpcodeName(*ti.instr)}};
  if (ti.parameter >= 0) j["parameter"] = ti.parameter;
  if (!ti.unknown.empty()) {
    j["unknown"] = ti.unknown;
    return j;
  }
  Json tiles = Json::array();
  for (const InstructionTile& t : ti.tiles) {
    if (!t.tile) {
      tiles.push_back(
          Json{{"map", MapToString(t.map)}, {"unsupported", t.unsupported}});
      continue;
    }
    IXA_ASSIGN_OR_RETURN(Json tj, TileJson(*t.tile, sizes, block_names, ctx));
    tj["map"] = MapToString(t.map);
    tiles.push_back(std::move(tj));
  }
  j["tiles"] = std::move(tiles);
  return j;
}

// Is `name` (maybe "fusion/inner") an instruction of the module?
bool NamesAnInstruction(const hlo::Module& module, const std::string& name) {
  const size_t slash = name.rfind('/');
  const std::string last =
      slash == std::string::npos ? name : name.substr(slash + 1);
  for (const auto& c : module.computations()) {
    if (c->Find(last) != nullptr) return true;
  }
  return false;
}

// `check: true`: do the sizes satisfy every instruction's constraints?
Json TilingCheckJson(const FusionTiling& tiling,
                     std::span<const int64_t> clamped) {
  Json failing = Json::array();
  for (const TiledInstruction& ti : tiling.instructions) {
    for (const InstructionTile& t : ti.tiles) {
      if (!t.tile) continue;
      for (size_t i : FailingClauses(t.tile->constraints, clamped)) {
        failing.push_back(
            Json{{"instruction", ti.name},
                 {"constraint", PrintTileClause(t.tile->constraints[i])}});
      }
    }
  }
  const bool valid = tiling.no_tiling.empty() && failing.empty();
  Json j{{"valid", valid}, {"failing", std::move(failing)}};
  j["xla_valid"] = valid && tiling.xla_would_refuse.empty() &&
                   ClausesHold(tiling.xla_constraints, clamped);
  if (!tiling.no_tiling.empty()) j["reason"] = tiling.no_tiling;
  return j;
}

Result<Json> TileOfMap(const Json& request, ExprContext& ctx) {
  if (Has(request, "hlo")) {
    return Error::BadRequest("give either 'map' or 'hlo', not both");
  }
  IXA_ASSIGN_OR_RETURN(IndexingMap map, GetMap(request, "map", ctx));
  std::vector<int64_t> dims;
  for (const Variable& d : map.dims()) {
    if (d.bounds.upper == kInt64Max || d.bounds.upper < 0) {
      return Error::Invalid("the map's dims must be bounded to be tiled");
    }
    dims.push_back(d.bounds.upper + 1);
  }
  TileSpec spec;
  if (Has(request, "tile")) {
    IXA_ASSIGN_OR_RETURN(spec, GetTileSpec(request, dims, "the map's domain"));
  }
  TileExtraction extraction;
  extraction.output_strides = spec.strides;
  extraction.allow_superset = true;
  auto tile = SymbolicTileFromIndexingMap(map, extraction);
  if (!tile.ok()) {
    if (tile.error().code != ErrorCode::kUnsupported) return tile.error();
    return Json{{"tile", nullptr}, {"reason", tile.error().message}};
  }
  IXA_ASSIGN_OR_RETURN(Json j, TileJson(*tile, spec.sizes, {}, ctx));
  return Json{{"tile", std::move(j)}};
}

Result<Json> InputToOutput(const Json& request, const FusionRegion& region,
                           ExprContext& ctx) {
  if (!Has(request, "parameter")) {
    return Error::BadRequest(
        "direction input_to_output needs field 'parameter'");
  }
  int64_t parameter = -1;
  const Json& p = request.at("parameter");
  if (p.is_string()) {
    for (size_t i = 0; i < region.parameters.size(); ++i) {
      if (region.parameters[i]->name == p.get<std::string>()) parameter = i;
    }
    if (parameter < 0) {
      return Error::Invalid("the fusion has no parameter '" +
                            p.get<std::string>() + "'");
    }
  } else {
    IXA_ASSIGN_OR_RETURN(parameter, GetInt(request, "parameter"));
  }
  if (parameter < 0 ||
      parameter >= static_cast<int64_t>(region.parameters.size())) {
    return Error::Invalid("the fusion has no parameter " +
                          std::to_string(parameter));
  }
  const hlo::Instruction* source = region.parameters[parameter];
  if (source->shape.IsTuple()) {
    return Error::Invalid("parameter '" + source->name +
                          "' is a tuple: tile one of its elements' users");
  }
  const std::vector<int64_t>& dims = source->shape.dims;
  IXA_ASSIGN_OR_RETURN(TileSpec spec,
                       GetTileSpec(request, dims, "the parameter"));
  IXA_ASSIGN_OR_RETURN(
      std::vector<PartialIndexing> outputs,
      ComputeFusionInputToOutputIndexingPartial(region, parameter, &ctx));
  Json out_json = Json::array();
  for (size_t j = 0; j < outputs.size(); ++j) {
    Json o{{"output", j}};
    if (outputs[j].unknown()) {
      o["unknown"] = outputs[j].unknown_reason;
      out_json.push_back(std::move(o));
      continue;
    }
    Json tiles = Json::array();
    for (const IndexingMap& m : outputs[j].maps) {
      TileExtraction extraction;
      extraction.output_strides = spec.strides;
      extraction.extents = dims;
      extraction.allow_superset = true;
      auto tile = SymbolicTileFromIndexingMap(m, extraction);
      if (!tile.ok()) {
        if (tile.error().code != ErrorCode::kUnsupported) return tile.error();
        tiles.push_back(Json{{"map", MapToString(m)},
                             {"unsupported", tile.error().message}});
        continue;
      }
      IXA_ASSIGN_OR_RETURN(Json tj, TileJson(*tile, spec.sizes, {}, ctx));
      tj["map"] = MapToString(m);
      tiles.push_back(std::move(tj));
    }
    o["tiles"] = std::move(tiles);
    out_json.push_back(std::move(o));
  }
  return Json{{"parameter", parameter},
              {"name", source->name},
              {"outputs", std::move(out_json)}};
}

Result<FusionTilingOptions> GetTilingOptions(
    const Json& request, const FusionRegion& region,
    const std::vector<int64_t>& strides) {
  FusionTilingOptions options;
  IXA_ASSIGN_OR_RETURN(int64_t output, GetOptionalInt(request, "output", 0));
  if (output < 0 || output >= OutputCount(*region.root)) {
    return Error::Invalid("the fusion has no output " + std::to_string(output));
  }
  options.output_id = static_cast<int>(output);
  options.output_strides = strides;
  IXA_ASSIGN_OR_RETURN(options.reduction_sizes,
                       GetExtraSizes(request, "reduction_sizes"));
  IXA_ASSIGN_OR_RETURN(options.contraction_sizes,
                       GetExtraSizes(request, "contraction_sizes"));
  return options;
}

}  // namespace

Result<Json> TileOp(const Json& request, ExprContext& ctx) {
  if (Has(request, "map")) return TileOfMap(request, ctx);
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(FlatRegion flat_region, GetRegion(request, *module));
  const FusionRegion& region = flat_region.region;
  IXA_ASSIGN_OR_RETURN(std::string direction,
                       GetOptionalString(request, "direction"));
  if (direction == "input_to_output") {
    return InputToOutput(request, region, ctx);
  }
  if (!direction.empty() && direction != "output_to_input") {
    return Error::BadRequest(
        "field 'direction' must be \"output_to_input\" or "
        "\"input_to_output\"");
  }
  IXA_ASSIGN_OR_RETURN(int64_t output, GetOptionalInt(request, "output", 0));
  if (output < 0 || output >= OutputCount(*region.root)) {
    return Error::Invalid("the fusion has no output " + std::to_string(output));
  }
  const std::vector<int64_t>& dims = OutputDims(*region.root, output);
  IXA_ASSIGN_OR_RETURN(TileSpec spec, GetTileSpec(request, dims, "the output"));
  IXA_ASSIGN_OR_RETURN(FusionTilingOptions options,
                       GetTilingOptions(request, region, spec.strides));
  IXA_ASSIGN_OR_RETURN(auto selected, GetTileInstructions(request));
  IXA_ASSIGN_OR_RETURN(bool check, GetBool(request, "check", false));
  IXA_ASSIGN_OR_RETURN(FusionTiling tiling,
                       AnalyzeFusionTiling(region, options, &ctx));
  const std::vector<int64_t> sizes = tiling.Sizes(spec.sizes);
  const std::vector<int64_t> clamped =
      ClampToTileSpace(tiling, spec.strides, sizes);
  Json operands = Json::array();
  std::vector<UnknownOperand> unknown;
  for (const TiledInstruction& ti : tiling.instructions) {
    if (ti.parameter < 0) continue;
    if (!ti.unknown.empty()) {
      unknown.push_back({ti.parameter, ti.instr->name, ti.unknown});
      continue;
    }
    for (const InstructionTile& t : ti.tiles) {
      operands.push_back(OperandJson(ti, t, sizes));
    }
  }
  Json unknown_json = Json::array();
  for (const UnknownOperand& u : unknown) {
    unknown_json.push_back(Json{
        {"parameter", u.parameter}, {"name", u.name}, {"reason", u.reason}});
  }
  Json out{{"operands", std::move(operands)},
           {"unknown", std::move(unknown_json)}};
  if (selected || tiling.space.size() > dims.size()) {
    out["tile_dims"] = SpaceJson(tiling, sizes);
  }
  if (selected) {
    const std::vector<std::string> block_names = BlockNames(tiling.space);
    Json list = Json::array();
    auto add = [&](const TiledInstruction& ti) -> Status {
      IXA_ASSIGN_OR_RETURN(Json j,
                           InstructionJson(ti, sizes, block_names, ctx));
      list.push_back(std::move(j));
      return Status();
    };
    if (selected->empty()) {
      for (const TiledInstruction& ti : tiling.instructions) {
        IXA_RETURN_IF_ERROR(add(ti));
      }
    } else {
      for (const std::string& name : *selected) {
        if (const TiledInstruction* ti = tiling.Find(name)) {
          IXA_RETURN_IF_ERROR(add(*ti));
        } else if (NamesAnInstruction(*module, name)) {
          list.push_back(Json{{"name", name},
                              {"tiles", Json::array()},
                              {"note", "the output's tile does not read it"}});
        } else {
          return Error::Invalid("no instruction '" + name +
                                "' in the fusion (nested ones are named "
                                "'<fusion>/<name>')");
        }
      }
    }
    out["instructions"] = std::move(list);
    out["constraints"] = ConstraintsJson(tiling.constraints, &out);
    if (tiling.no_tiling.empty()) {
      out["satisfiable"] =
          SatisfiableJson(tiling.constraints, tiling.extents(), ctx);
    } else {
      out["satisfiable"] = false;
      out["no_tiling"] = tiling.no_tiling;
    }
    out["satisfied"] =
        tiling.no_tiling.empty() && ClausesHold(tiling.constraints, clamped);
    if (!tiling.xla_would_refuse.empty()) {
      out["xla_would_refuse"] = tiling.xla_would_refuse;
    }
  }
  if (check) out["check"] = TilingCheckJson(tiling, clamped);
  return out;
}

Result<Json> ValidTilingsOp(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::unique_ptr<hlo::Module> module, GetModule(request));
  IXA_ASSIGN_OR_RETURN(FlatRegion flat_region, GetRegion(request, *module));
  const FusionRegion& region = flat_region.region;
  IXA_ASSIGN_OR_RETURN(int64_t output, GetOptionalInt(request, "output", 0));
  if (output < 0 || output >= OutputCount(*region.root)) {
    return Error::Invalid("the fusion has no output " + std::to_string(output));
  }
  const std::vector<int64_t>& dims = OutputDims(*region.root, output);
  std::vector<int64_t> strides;
  if (Has(request, "strides")) {
    IXA_ASSIGN_OR_RETURN(strides, GetIntList(request, "strides"));
    if (strides.size() != dims.size()) {
      return Error::Invalid("'strides' needs one stride per output dim");
    }
    for (int64_t s : strides) {
      if (s < 1) return Error::Invalid("tile strides must be >= 1");
    }
  }
  IXA_ASSIGN_OR_RETURN(FusionTilingOptions options,
                       GetTilingOptions(request, region, strides));
  IXA_ASSIGN_OR_RETURN(int64_t limit, GetOptionalInt(request, "limit", 1000));
  if (limit < 0) return Error::Invalid("'limit' must be >= 0");
  std::optional<std::vector<std::vector<int64_t>>> given;
  if (Has(request, "candidates")) {
    const Json& c = request.at("candidates");
    const bool per_dim = c.is_array() && !c.empty() && c[0].is_array();
    given.emplace(dims.size());
    for (size_t k = 0; k < dims.size(); ++k) {
      Json wrapped{
          {"candidates", per_dim ? (k < c.size() ? c[k] : Json()) : c}};
      auto list = GetIntList(wrapped, "candidates");
      if (!list.ok() || (per_dim && c.size() != dims.size())) {
        return Error::BadRequest(
            "field 'candidates' must be a list of integers, or one such list "
            "per output dim");
      }
      for (int64_t v : *list) {
        if (v < 1) return Error::Invalid("candidate tile sizes must be >= 1");
      }
      if (list->empty()) {
        return Error::Invalid("no candidate tile sizes for dim " +
                              std::to_string(k));
      }
      (*given)[k] = *list;
    }
  }
  IXA_ASSIGN_OR_RETURN(FusionTiling tiling,
                       AnalyzeFusionTiling(region, options, &ctx));
  const std::vector<std::vector<int64_t>> axes =
      given ? *given : PowerOfTwoCandidates(tiling, strides);
  IXA_ASSIGN_OR_RETURN(ValidTilings valid,
                       EnumerateValidTilings(tiling, axes, strides, limit));
  Json out{{"tile_dims", SpaceJson(tiling, {})}};
  out["constraints"] = ConstraintsJson(tiling.constraints, &out);
  if (!tiling.xla_would_refuse.empty()) {
    out["xla_would_refuse"] = tiling.xla_would_refuse;
  }
  if (!tiling.no_tiling.empty()) out["reason"] = tiling.no_tiling;
  Json tilings = Json::array();
  for (const ValidTiling& t : valid.tilings) {
    Json j{{"sizes", t.sizes}, {"blocks", t.blocks}};
    if (valid.dnf && !valid.dnf->empty()) j["conjunction"] = t.conjunction;
    j["xla_valid"] = t.xla_valid;
    tilings.push_back(std::move(j));
  }
  if (!tiling.no_tiling.empty()) {
    out["satisfiable"] = false;
  } else if (valid.count > 0) {
    out["satisfiable"] = true;
  } else {
    out["satisfiable"] =
        SatisfiableJson(tiling.constraints, tiling.extents(), ctx);
  }
  out["tried"] = valid.tried;
  out["count"] = valid.count;
  out["tilings"] = std::move(tilings);
  if (valid.count > limit) out["truncated"] = true;
  return out;
}

}  // namespace ixa::cli
