#include "analysis/uses/tile_analysis.h"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "analysis/fusion/map_pool.h"
#include "core/budget.h"

namespace ixa {

using fusion_internal::IdSet;
using fusion_internal::MapId;
using fusion_internal::MapPool;
using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;

const char* TileSpaceKindName(TileSpaceKind kind) {
  switch (kind) {
    case TileSpaceKind::kOutput:
      return "output";
    case TileSpaceKind::kReduction:
      return "reduction";
    case TileSpaceKind::kContraction:
      return "contraction";
  }
  return "output";
}

std::vector<int64_t> FusionTiling::extents() const {
  std::vector<int64_t> out;
  for (const TileSpaceDim& d : space) out.push_back(d.extent);
  return out;
}

std::vector<int64_t> FusionTiling::Sizes(
    std::span<const int64_t> output_sizes) const {
  std::vector<int64_t> out(output_sizes.begin(), output_sizes.end());
  for (const TileSpaceDim& d : space) {
    if (d.kind != TileSpaceKind::kOutput) out.push_back(d.size);
  }
  return out;
}

const TiledInstruction* FusionTiling::Find(const std::string& name) const {
  for (const TiledInstruction& t : instructions) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

namespace {

// Nested fusions deeper than this are tiled as one op (their maps through
// the nested computation), not instruction by instruction.
constexpr int kMaxNestedFusionDepth = 16;
constexpr size_t kMaxMapsPerInstruction = 4096;

// One instruction of the region, or of a fusion nested in it. Edges carry
// the instruction's own output-to-input maps (`operands`), or the identity
// from a nested fusion to its computation's root and from a nested
// parameter to the operand of the fusion it stands for.
struct Node {
  const Instruction* instr = nullptr;
  std::string name;
  std::vector<int> operands;
  int nested_root = -1;
  int caller_operand = -1;
  int parameter = -1;
  // Reduce / dot with tiled reduced (contracting) dims: per such dim its
  // position in the tile space (-1: not tiled).
  std::vector<int> extras;
};

class Graph {
 public:
  std::vector<Node> nodes;

  int Add(const Instruction* instr, std::string name) {
    Node node;
    node.instr = instr;
    node.name = std::move(name);
    nodes.push_back(std::move(node));
    return static_cast<int>(nodes.size()) - 1;
  }

  // The members of a computation (or region) in post-order; `ids` holds
  // the nodes of their operands already made.
  void AddInstruction(const Instruction* instr, const std::string& prefix,
                      std::unordered_map<const Instruction*, int>* ids,
                      int depth) {
    if (instr->opcode == Opcode::kFusion && instr->called() &&
        depth < kMaxNestedFusionDepth) {
      const Computation& c = *instr->called();
      const std::string inner_prefix = prefix + instr->name + "/";
      std::unordered_map<const Instruction*, int> inner;
      for (int64_t i = 0; i < c.parameter_count(); ++i) {
        const Instruction* p = c.parameter(i);
        if (p == nullptr) continue;
        int id = Add(p, inner_prefix + p->name);
        if (i < instr->operand_count()) {
          auto it = ids->find(instr->operand(static_cast<int>(i)));
          if (it != ids->end()) nodes[id].caller_operand = it->second;
        }
        inner[p] = id;
      }
      for (const Instruction* m : c.post_order()) {
        if (inner.count(m)) continue;
        AddInstruction(m, inner_prefix, &inner, depth + 1);
      }
      int id = Add(instr, prefix + instr->name);
      nodes[id].nested_root = inner.at(c.root());
      (*ids)[instr] = id;
      return;
    }
    int id = Add(instr, prefix + instr->name);
    for (const Instruction* o : instr->operands) {
      auto it = ids->find(o);
      nodes[id].operands.push_back(it == ids->end() ? -1 : it->second);
    }
    (*ids)[instr] = id;
  }
};

int OutputReadBy(const Instruction& user) {
  return user.opcode == Opcode::kGetTupleElement ? user.tuple_index : 0;
}

// A scaled-dot in XLA's operand order (lhs, rhs, lhs_scale, rhs_scale):
// tiled along K like a dot, each scale at its operand's contracting dim.
bool IsScaledDot(const Instruction& instr) {
  return instr.opcode == Opcode::kScaledDot && instr.operand_count() == 4;
}

// The reduced dims of a reduce (ascending) or the lhs contracting dims of
// a dot (or scaled-dot), with their extents; empty for other ops.
std::vector<std::pair<int64_t, int64_t>> ContractedDims(
    const Instruction& instr) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (instr.opcode == Opcode::kReduce && instr.operand_count() >= 2) {
    const std::vector<int64_t>& dims = instr.operand(0)->shape.dims;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (std::find(instr.dimensions.begin(), instr.dimensions.end(),
                    static_cast<int64_t>(i)) != instr.dimensions.end()) {
        out.push_back({static_cast<int64_t>(i), dims[i]});
      }
    }
  } else if ((instr.opcode == Opcode::kDot && instr.operand_count() == 2) ||
             IsScaledDot(instr)) {
    const std::vector<int64_t>& dims = instr.operand(0)->shape.dims;
    for (int64_t c : instr.dot.lhs_contracting) {
      if (c >= 0 && c < static_cast<int64_t>(dims.size())) {
        out.push_back({c, dims[c]});
      }
    }
  }
  return out;
}

// Where operand `k`'s index holds the j-th tiled dim of a reduce / dot
// (its position in the operand's index), or -1.
int64_t ContractedPosition(const Instruction& instr, int k, size_t j) {
  if (instr.opcode == Opcode::kReduce) {
    if (k >= instr.operand_count() / 2) return -1;  // an init value
    return ContractedDims(instr)[j].first;
  }
  // A scaled-dot's scales (operands 2 and 3) have their operand's rank.
  const std::vector<int64_t>& c =
      k % 2 == 0 ? instr.dot.lhs_contracting : instr.dot.rhs_contracting;
  return j < c.size() ? c[j] : -1;
}

constexpr const char* kPadRefusal = "a pad outside a GEMM fusion";

// Why XLA's tiling bails out on the fusion's structure where this
// analysis answers, or empty: a root that is a fusion; a multi-output
// fusion whose other outputs cannot reuse the tile (another shape); a pad
// outside a GEMM fusion (one with a dot); a reshape whose tile XLA cannot
// derive on its own (its standalone map has no XLA tile).
std::string XlaStructuralRefusal(const FusionRegion& region, int output_id,
                                 ExprContext* ctx) {
  const Instruction& root = *region.root;
  if (root.opcode == Opcode::kFusion) {
    return "the root '" + root.name +
           "' is a fusion: XLA tiles no fusion "
           "at the root";
  }
  if (root.opcode == Opcode::kTuple && output_id < OutputCount(root)) {
    const std::vector<int64_t>& dims = OutputDims(root, output_id);
    for (int j = 0; j < OutputCount(root); ++j) {
      if (OutputDims(root, j) != dims) {
        return "a multi-output fusion: output " + std::to_string(j) +
               " has another shape than output " + std::to_string(output_id) +
               " and cannot reuse its tile";
      }
    }
  }
  const bool gemm = std::any_of(
      region.members.begin(), region.members.end(), [](const Instruction* m) {
        return m->opcode == Opcode::kDot || m->opcode == Opcode::kScaledDot;
      });
  for (const Instruction* m : region.members) {
    if (m->opcode == Opcode::kPad && !gemm) {
      return "'" + m->name + "': " + kPadRefusal;
    }
    if (m->opcode != Opcode::kReshape && m->opcode != Opcode::kBitcast)
      continue;
    auto own = ComputeOutputToInputIndexing(*m, 0, ctx);
    if (!own.ok() || own->indexing_maps.empty() ||
        own->indexing_maps[0].size() != 1) {
      continue;
    }
    auto tile = SymbolicTileFromIndexingMap(*own->indexing_maps[0].begin());
    if (!tile.ok()) {
      return "'" + m->name + "': XLA derives no tile of the " + OpcodeName(*m) +
             " on its own (" + tile.error().message + ")";
    }
    if (!tile->xla_would_refuse.empty()) {
      return "'" + m->name + "': XLA derives no tile of the " + OpcodeName(*m) +
             " on its own (" + tile->xla_would_refuse + ")";
    }
  }
  return "";
}

// The tile sizes `v` that divide every operand's extent along a
// concatenate's dim: XLA tiles a concatenate only where each operand is a
// whole number of tiles.
std::vector<int64_t> ConcatenateTileSizes(const Instruction& concat) {
  const int64_t dim = concat.dimensions.empty() ? -1 : concat.dimensions[0];
  int64_t g = 0;
  for (const Instruction* o : concat.operands) {
    if (!o->shape.IsArray() || dim < 0 || dim >= o->shape.rank()) return {};
    g = std::gcd(g, o->shape.dims[dim]);
  }
  std::vector<int64_t> out;
  for (int64_t v = 1; v <= g && out.size() < 64; ++v) {
    if (g % v == 0) out.push_back(v);
  }
  return out;
}

class TilingWalk {
 public:
  TilingWalk(Graph graph, const FusionTilingOptions& options, ExprContext* ctx)
      : g_(std::move(graph)), options_(options), ctx_(ctx) {}

  Result<FusionTiling> Run(const FusionRegion& region, int root) {
    const Instruction& root_instr = *g_.nodes[root].instr;
    const int output_id = options_.output_id;
    if (output_id < 0 || output_id >= OutputCount(root_instr)) {
      return Error::Invalid("the fusion has no output " +
                            std::to_string(output_id));
    }
    const std::vector<int64_t>& dims = OutputDims(root_instr, output_id);
    if (!options_.output_strides.empty() &&
        options_.output_strides.size() != dims.size()) {
      return Error::Invalid(
          "the output has rank " + std::to_string(dims.size()) + ": got " +
          std::to_string(options_.output_strides.size()) + " strides");
    }
    for (size_t k = 0; k < dims.size(); ++k) {
      out_.space.push_back(
          {TileSpaceKind::kOutput, "", static_cast<int64_t>(k), dims[k], 0});
    }
    IXA_RETURN_IF_ERROR(AllocateExtras(root));
    sets_.resize(g_.nodes.size());
    unknown_.resize(g_.nodes.size());
    std::vector<Variable> vars;
    std::vector<Expr> results;
    for (size_t k = 0; k < out_.space.size(); ++k) {
      vars.push_back(MakeVariable(Interval{0, out_.space[k].extent - 1}));
      if (k < dims.size()) results.push_back(ctx_->Dim(k));
    }
    IndexingMap seed(ctx_, vars, {}, {}, results);
    FinishMap(&seed);
    SetsOf(root)[output_id].Insert(pool_.Intern(std::move(seed)), &pool_);
    for (int n = static_cast<int>(g_.nodes.size()) - 1; n >= 0; --n) {
      IXA_RETURN_IF_ERROR(Visit(n));
    }
    IXA_RETURN_IF_ERROR(CollectTiles(region));
    if (std::string why = XlaStructuralRefusal(region, output_id, ctx_);
        !why.empty()) {
      // A pad outside a GEMM fusion: ixa's tiles of its operand would be
      // supersets (the padding's blocks), so it refuses like XLA.
      if (out_.no_tiling.empty() &&
          why.find(kPadRefusal) != std::string::npos) {
        out_.no_tiling = why;
      }
      out_.xla_would_refuse = std::move(why);
    }
    return std::move(out_);
  }

 private:
  std::vector<IdSet>& SetsOf(int n) {
    if (sets_[n].empty()) {
      sets_[n].resize(std::max(OutputCount(*g_.nodes[n].instr), 1));
    }
    return sets_[n];
  }
  bool Reached(int n) const {
    if (!unknown_[n].empty()) return true;
    for (const IdSet& s : sets_[n]) {
      if (!s.empty()) return true;
    }
    return false;
  }
  void MarkUnknown(int n, const std::string& why) {
    if (n < 0) return;
    if (unknown_[n].empty()) unknown_[n] = why;
  }

  // The reduces and dots the root reaches that have tile sizes get their
  // tiled dims appended to the tile space, nearest the root first.
  Status AllocateExtras(int root) {
    std::vector<bool> reach(g_.nodes.size(), false);
    reach[root] = true;
    for (int n = root; n >= 0; --n) {
      if (!reach[n]) continue;
      const Node& node = g_.nodes[n];
      for (int o : node.operands) {
        if (o >= 0) reach[o] = true;
      }
      if (node.nested_root >= 0) reach[node.nested_root] = true;
      if (node.caller_operand >= 0) reach[node.caller_operand] = true;
    }
    for (int n = root; n >= 0; --n) {
      if (!reach[n]) continue;
      Node& node = g_.nodes[n];
      const Instruction& instr = *node.instr;
      if (node.nested_root >= 0) continue;
      const bool reduce = instr.opcode == Opcode::kReduce;
      const bool dot = instr.opcode == Opcode::kDot || IsScaledDot(instr);
      if (!reduce && !dot) continue;
      const ExtraTileSizes& given =
          reduce ? options_.reduction_sizes : options_.contraction_sizes;
      auto it = given.find(instr.name);
      if (it == given.end()) it = given.find("");
      if (it == given.end()) continue;
      auto contracted = ContractedDims(instr);
      const char* what = reduce ? "reduced" : "contracting";
      if (it->second.size() != contracted.size()) {
        return Error::Invalid(
            "'" + instr.name + "' has " + std::to_string(contracted.size()) +
            " " + what + " dims: got " + std::to_string(it->second.size()) +
            " tile sizes for them");
      }
      for (size_t j = 0; j < contracted.size(); ++j) {
        if (it->second[j] < 1) {
          return Error::Invalid(std::string(what) + " tile sizes must be >= 1");
        }
        node.extras.push_back(static_cast<int>(out_.space.size()));
        out_.space.push_back(
            {reduce ? TileSpaceKind::kReduction : TileSpaceKind::kContraction,
             node.name, contracted[j].first, contracted[j].second,
             it->second[j]});
      }
    }
    return Status();
  }

  // The consumer map with the node's tiled dims appended to its results,
  // so that it composes with WithExtras's maps.
  MapId ExtendConsumer(int n, MapId consumer) {
    auto key = (static_cast<uint64_t>(n) << 32) | consumer;
    if (auto it = extended_.find(key); it != extended_.end()) {
      return it->second;
    }
    IndexingMap m = pool_.map(consumer);
    for (int e : g_.nodes[n].extras) {
      m.mutable_results().push_back(ctx_->Dim(e));
    }
    MapId id = pool_.Intern(std::move(m));
    extended_.emplace(key, id);
    return id;
  }

  // An operand map of a reduce / dot whose range variable for each tiled
  // dim becomes a dim of the map (appended after the output's dims).
  Result<IndexingMap> WithExtras(const Node& node, int k,
                                 const IndexingMap& map) {
    const int n_out = map.num_dims(), nr = map.num_range_vars();
    std::vector<int> to_dim(nr, -1);
    for (size_t j = 0; j < node.extras.size(); ++j) {
      const int64_t p = ContractedPosition(*node.instr, k, j);
      if (p < 0) continue;
      if (p >= map.num_results() && IsScaledDot(*node.instr) && k >= 2) {
        continue;  // a scalar scale
      }
      if (p >= map.num_results()) {
        return Error::Unsupported("'" + node.instr->name +
                                  "': no result for its tiled dim");
      }
      Expr r = map.results()[p];
      if (r.IsConstant()) continue;  // a dim of extent 1
      // A scale reads its block of K: `s floordiv block`, the same range
      // variable as its operand's K.
      if (IsScaledDot(*node.instr) && k >= 2 &&
          r.kind() == ExprKind::kFloorDiv && r.lhs().IsSymbol()) {
        r = r.lhs();
      }
      if (!r.IsSymbol() || r.position() >= nr) {
        return Error::Unsupported(
            "'" + node.instr->name +
            "': its tiled dim is not one range variable in the map");
      }
      to_dim[r.position()] = n_out + static_cast<int>(j);
    }
    std::vector<Variable> dims = map.dims(), range_vars;
    for (int e : node.extras) {
      dims.push_back(MakeVariable(Interval{0, out_.space[e].extent - 1}));
    }
    std::vector<Expr> dim_repl, sym_repl;
    for (int d = 0; d < n_out; ++d) dim_repl.push_back(ctx_->Dim(d));
    for (int s = 0; s < nr; ++s) {
      if (to_dim[s] >= 0) {
        sym_repl.push_back(ctx_->Dim(to_dim[s]));
      } else {
        sym_repl.push_back(ctx_->Symbol(range_vars.size()));
        range_vars.push_back(map.range_vars()[s]);
      }
    }
    for (int t = 0; t < map.num_rt_vars(); ++t) {
      sym_repl.push_back(ctx_->Symbol(range_vars.size() + t));
    }
    std::vector<Expr> results;
    for (Expr r : map.results()) {
      results.push_back(Substitute(r, dim_repl, sym_repl));
    }
    std::vector<Constraint> constraints;
    for (const Constraint& c : map.constraints()) {
      constraints.push_back(
          {Substitute(c.expr, dim_repl, sym_repl), c.interval});
    }
    return IndexingMap(ctx_, dims, range_vars, map.rt_vars(), results,
                       constraints);
  }

  Status Insert(int into, int output, MapId id) {
    std::vector<IdSet>& sets = SetsOf(into);
    if (output >= static_cast<int>(sets.size())) return Status();
    sets[output].Insert(id, &pool_);
    if (sets[output].size() > kMaxMapsPerInstruction) {
      return Error::Limit("more than " +
                          std::to_string(kMaxMapsPerInstruction) +
                          " distinct maps reach '" + g_.nodes[into].name + "'");
    }
    return Status();
  }

  Status Visit(int n) {
    if (!Reached(n)) return Status();
    const Node& node = g_.nodes[n];
    const Instruction& instr = *node.instr;
    if (!unknown_[n].empty()) {
      // What an unknown instruction reads is unknown too.
      const std::string reason = unknown_[n];
      for (int o : node.operands) MarkUnknown(o, reason);
      MarkUnknown(node.nested_root, reason);
      MarkUnknown(node.caller_operand, reason);
      return Status();
    }
    // Copied (ids only): other sets are written while these are read.
    const std::vector<IdSet> consumer_sets = sets_[n];
    if (node.caller_operand >= 0 || node.nested_root >= 0) {
      const int to =
          node.caller_operand >= 0 ? node.caller_operand : node.nested_root;
      for (size_t j = 0; j < consumer_sets.size(); ++j) {
        for (MapId id : consumer_sets[j].ids()) {
          IXA_RETURN_IF_ERROR(Insert(to, static_cast<int>(j), id));
        }
      }
      return Status();
    }
    if (node.operands.empty() || instr.opcode == Opcode::kParameter) {
      return Status();
    }
    for (int out = 0; out < static_cast<int>(consumer_sets.size()); ++out) {
      if (consumer_sets[out].empty()) continue;
      IXA_ASSIGN_OR_RETURN(
          HloInstructionIndexing operand_maps,
          ComputeOutputToInputIndexingPartial(instr, out, ctx_));
      for (int k = 0; k < instr.operand_count(); ++k) {
        const int operand = node.operands[k];
        if (operand < 0) continue;
        if (operand_maps.IsUnknown(k)) {
          MarkUnknown(operand, operand_maps.unknown[k]);
          continue;
        }
        if (k >= static_cast<int>(operand_maps.indexing_maps.size()) ||
            operand_maps.indexing_maps[k].empty()) {
          continue;
        }
        if (instr.operand(k)->shape.IsTuple() &&
            instr.opcode != Opcode::kGetTupleElement) {
          MarkUnknown(operand, "'" + instr.name + "' (" + OpcodeName(instr) +
                                   ") reads a whole tuple: no map");
          continue;
        }
        std::vector<MapId> producers;
        for (const IndexingMap& m : operand_maps.indexing_maps[k]) {
          if (node.extras.empty()) {
            producers.push_back(pool_.Intern(m));
            continue;
          }
          IXA_ASSIGN_OR_RETURN(IndexingMap extended, WithExtras(node, k, m));
          producers.push_back(pool_.Intern(std::move(extended)));
        }
        for (MapId consumer : consumer_sets[out].ids()) {
          const MapId first =
              node.extras.empty() ? consumer : ExtendConsumer(n, consumer);
          for (MapId producer : producers) {
            if (DeadlineExpired("tile")) return DeadlineError();
            IXA_ASSIGN_OR_RETURN(MapId composed,
                                 pool_.Compose(first, producer));
            IXA_RETURN_IF_ERROR(Insert(operand, OutputReadBy(instr), composed));
          }
        }
      }
    }
    return Status();
  }

  static bool SameTile(const SymbolicTile& a, const SymbolicTile& b) {
    if (a.tile_map != b.tile_map || a.superset != b.superset ||
        a.constraints.size() != b.constraints.size()) {
      return false;
    }
    for (size_t i = 0; i < a.constraints.size(); ++i) {
      if (!SameClause(a.constraints[i], b.constraints[i])) return false;
    }
    return true;
  }

  void AddClauses(const std::vector<TileClause>& from,
                  std::vector<TileClause>* into) {
    for (const TileClause& c : from) {
      bool seen =
          std::any_of(into->begin(), into->end(),
                      [&](const TileClause& o) { return SameClause(o, c); });
      if (!seen) into->push_back(c);
    }
  }

  Result<const InstructionTile*> TileOf(MapId id) {
    if (auto it = tiles_.find(id); it != tiles_.end()) return &it->second;
    InstructionTile t;
    t.map = pool_.map(id);
    std::vector<int64_t> strides = options_.output_strides;
    if (!strides.empty()) strides.resize(out_.space.size(), 1);
    const std::vector<int64_t> extents = out_.extents();
    TileExtraction extraction;
    extraction.output_strides = strides;
    extraction.extents = extents;
    extraction.allow_superset = true;
    auto tile = SymbolicTileFromIndexingMap(t.map, extraction);
    if (tile.ok()) {
      t.tile = std::move(tile).value();
    } else if (tile.error().code == ErrorCode::kUnsupported) {
      t.unsupported = tile.error().message;
    } else {
      return tile.error();
    }
    return &tiles_.emplace(id, std::move(t)).first->second;
  }

  // XLA's rules for the tiled instructions it makes: no negative stride
  // (a reverse), and a concatenate only where every operand is a whole
  // number of tiles along its dim (an XLA constraint on the tile size).
  void AddXlaTiledInstructionRules(const Instruction& instr,
                                   SymbolicTile* tile) {
    for (int i = 0; i < tile->rank && tile->xla_would_refuse.empty(); ++i) {
      Expr stride = tile->stride(i);
      if (stride.IsConstant() && stride.constant() < 0) {
        tile->xla_would_refuse =
            "a negative stride (a reverse): XLA's tiled instructions take "
            "non-negative strides only";
      }
    }
    if (instr.opcode != Opcode::kConcatenate || instr.dimensions.empty() ||
        instr.dimensions[0] >= tile->rank) {
      return;
    }
    Expr size = tile->size(static_cast<int>(instr.dimensions[0]));
    if (size.IsConstant()) return;  // a fixed extent: no choice of tile
    const std::vector<int64_t> sizes = ConcatenateTileSizes(instr);
    if (size.kind() != ExprKind::kDim || sizes.empty()) {
      if (tile->xla_would_refuse.empty()) {
        tile->xla_would_refuse =
            "a concatenate whose operands XLA cannot split into whole tiles";
      }
      return;
    }
    TileClause divides;
    for (int64_t v : sizes) divides.push_back({size, Interval::Point(v)});
    // ixa refuses those sizes too: a block across two operands gives each
    // of them a superset tile (the elements of the other's part). Where
    // the clause holds, every block lies in one operand, whose tile is
    // then exact and the others' name only elements outside them.
    tile->constraints.push_back(divides);
    tile->xla_constraints.push_back(std::move(divides));
  }

  Status CollectTiles(const FusionRegion& region) {
    std::unordered_map<const Instruction*, int> parameter_index;
    for (size_t i = 0; i < region.parameters.size(); ++i) {
      parameter_index[region.parameters[i]] = static_cast<int>(i);
    }
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      if (!Reached(static_cast<int>(n))) continue;
      const Node& node = g_.nodes[n];
      TiledInstruction ti;
      ti.instr = node.instr;
      ti.name = node.name;
      ti.parameter = node.parameter;
      ti.unknown = unknown_[n];
      if (!ti.unknown.empty()) {
        if (out_.no_tiling.empty()) {
          out_.no_tiling = "'" + ti.name + "': " + ti.unknown;
        }
        out_.instructions.push_back(std::move(ti));
        continue;
      }
      IdSet all;
      for (const IdSet& s : sets_[n]) {
        for (MapId id : s.ids()) all.Insert(id, &pool_);
      }
      for (MapId id : all.ids()) {
        if (DeadlineExpired("tile")) return DeadlineError();
        IXA_ASSIGN_OR_RETURN(const InstructionTile* t, TileOf(id));
        bool seen = std::any_of(ti.tiles.begin(), ti.tiles.end(),
                                [&](const InstructionTile& o) {
                                  if (t->tile.has_value() != o.tile.has_value())
                                    return false;
                                  if (!t->tile)
                                    return t->unsupported == o.unsupported;
                                  return SameTile(*t->tile, *o.tile);
                                });
        if (seen) continue;
        ti.tiles.push_back(*t);
        if (!t->tile) {
          if (out_.no_tiling.empty()) {
            out_.no_tiling = "'" + ti.name + "': " + t->unsupported;
          }
          continue;
        }
        SymbolicTile& tile = *ti.tiles.back().tile;
        AddXlaTiledInstructionRules(*node.instr, &tile);
        AddClauses(tile.constraints, &out_.constraints);
        AddClauses(tile.xla_constraints, &out_.xla_constraints);
        if (out_.xla_would_refuse.empty() && !tile.xla_would_refuse.empty()) {
          out_.xla_would_refuse = "'" + ti.name + "': " + tile.xla_would_refuse;
        }
      }
      out_.instructions.push_back(std::move(ti));
    }
    return Status();
  }

  Graph g_;
  const FusionTilingOptions& options_;
  ExprContext* ctx_;
  MapPool pool_;
  std::vector<std::vector<IdSet>> sets_;
  std::vector<std::string> unknown_;
  std::unordered_map<uint64_t, MapId> extended_;
  std::unordered_map<MapId, InstructionTile> tiles_;
  FusionTiling out_;
};

}  // namespace

Result<FusionTiling> AnalyzeFusionTiling(const FusionRegion& region,
                                         const FusionTilingOptions& options,
                                         ExprContext* ctx) {
  Graph graph;
  std::unordered_map<const Instruction*, int> ids;
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    const Instruction* p = region.parameters[i];
    int id = graph.Add(p, p->name);
    graph.nodes[id].parameter = static_cast<int>(i);
    ids[p] = id;
  }
  for (const Instruction* m : region.members) {
    if (ids.count(m)) continue;
    graph.AddInstruction(m, "", &ids, 0);
  }
  auto root = ids.find(region.root);
  if (root == ids.end()) {
    return Error::Invalid("the region's root is not one of its members");
  }
  TilingWalk walk(std::move(graph), options, ctx);
  return walk.Run(region, root->second);
}

std::vector<int64_t> ClampToTileSpace(const FusionTiling& tiling,
                                      std::span<const int64_t> output_strides,
                                      std::vector<int64_t> sizes) {
  for (size_t k = 0; k < sizes.size() && k < tiling.space.size(); ++k) {
    const int64_t sigma = k < output_strides.size() ? output_strides[k] : 1;
    const int64_t range = (tiling.space[k].extent + sigma - 1) / sigma;
    sizes[k] = std::min(sizes[k], range);
  }
  return sizes;
}

std::vector<std::vector<int64_t>> PowerOfTwoCandidates(
    const FusionTiling& tiling, std::span<const int64_t> output_strides) {
  std::vector<std::vector<int64_t>> axes;
  for (size_t k = 0; k < tiling.space.size(); ++k) {
    if (tiling.space[k].kind != TileSpaceKind::kOutput) continue;
    const int64_t sigma = k < output_strides.size() ? output_strides[k] : 1;
    const int64_t range = (tiling.space[k].extent + sigma - 1) / sigma;
    std::vector<int64_t> values;
    for (int64_t p = 1;; p *= 2) {
      values.push_back(p);
      if (p >= range || p > (int64_t{1} << 61)) break;
    }
    axes.push_back(std::move(values));
  }
  return axes;
}

Result<ValidTilings> EnumerateValidTilings(
    const FusionTiling& tiling,
    const std::vector<std::vector<int64_t>>& candidates,
    std::span<const int64_t> output_strides, int64_t limit) {
  constexpr int64_t kMaxCandidateTilings = int64_t{1} << 22;
  ValidTilings out;
  int64_t total = 1;
  for (const auto& a : candidates) {
    total *= static_cast<int64_t>(a.size());
    if (total > kMaxCandidateTilings) {
      return Error::Limit("more than " + std::to_string(kMaxCandidateTilings) +
                          " candidate tilings");
    }
  }
  if (!tiling.no_tiling.empty() || total == 0) return out;
  auto dnf = ToDisjunctiveForm(tiling.constraints);
  if (dnf.ok()) out.dnf = std::move(dnf).value();
  std::vector<size_t> at(candidates.size(), 0);
  std::vector<int64_t> sizes(candidates.size());
  for (out.tried = 0; out.tried < total; ++out.tried) {
    if (DeadlineExpired("valid_tilings")) return DeadlineError();
    for (size_t k = 0; k < candidates.size(); ++k) {
      sizes[k] = candidates[k][at[k]];
    }
    const std::vector<int64_t> clamped =
        ClampToTileSpace(tiling, output_strides, tiling.Sizes(sizes));
    if (ClausesHold(tiling.constraints, clamped)) {
      if (out.count < limit) {
        ValidTiling t;
        t.sizes = sizes;
        for (size_t k = 0; k < sizes.size(); ++k) {
          const int64_t sigma =
              k < output_strides.size() ? output_strides[k] : 1;
          const int64_t range = (tiling.space[k].extent + sigma - 1) / sigma;
          t.blocks *= (range + clamped[k] - 1) / clamped[k];
        }
        if (out.dnf) t.conjunction = FirstHoldingConjunction(*out.dnf, clamped);
        t.xla_valid = tiling.xla_would_refuse.empty() &&
                      ClausesHold(tiling.xla_constraints, clamped);
        out.tilings.push_back(std::move(t));
      }
      ++out.count;
    }
    // The next vector, the last dim fastest.
    for (size_t k = candidates.size(); k-- > 0;) {
      if (++at[k] < candidates[k].size()) break;
      at[k] = 0;
    }
  }
  return out;
}

}  // namespace ixa
